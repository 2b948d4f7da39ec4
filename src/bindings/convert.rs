//! Boundary graphs → host JS values, built from the host's own intrinsics, so
//! `Object.getPrototypeOf(realm.eval("[]")) === Array.prototype`. (The other way: `walk`.)

use wasm_bindgen::{JsValue, prelude::wasm_bindgen};

use crate::clone::tape::{self, Tape};
use crate::error::SandboxError;
use crate::value::{Graph, Text, Value};

#[wasm_bindgen(inline_js = "
function define_data(o, k, v) {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}
function define_hidden(o, k, v) {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: false, configurable: true });
}
export class TrustedToken {
  constructor(module, name) { this.module = module; this.export = name; Object.freeze(this); }
}
export function is_token(v) { return v instanceof TrustedToken; }
// Builds a host value from a tape (src/clone/tape.rs, which documents the layout). Throws
// 'regexp' or 'view:<name>' for what the host engine refuses to build.
const ERRORS = [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError];
const VIEWS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
  'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'DataView'];
// Lone surrogates: code units as they are (a TextDecoder would replace them).
function wide_text(wide, from, end) {
  let out = '';
  for (let i = from; i < end; i += 8192) out += String.fromCharCode.apply(null, wide.subarray(i, Math.min(end, i + 8192)));
  return out;
}
// The rarer parts read the tape through a cursor r; the hot loop keeps it in locals (a
// position captured by closures lives in their context: a memory write per step).
function str(r) {
  const n = r.lens[r.s++];
  if (n >= 0) return r.text.substring(r.at, r.at += n);
  return wide_text(r.wide, r.w, r.w -= n + 1);
}
function value(r) {
  switch (r.ops[r.p++]) {
    case 0: return undefined;
    case 1: return null;
    case 2: return false;
    case 3: return true;
    case 4: return r.ops[r.p++];
    case 5: return BigInt(str(r));
    case 6: return str(r);
    case 7: return r.made[r.ops[r.p++]];
    default: throw 'tape';
  }
}
function fill_rare(r, kind, o) {
  const ops = r.ops;
  switch (kind) {
    case 1: for (let n = ops[r.p++]; n > 0; n--) { let k = ops[r.p++]; if (k < 0) k = new_key(r); const v = value(r); define_data(o, r.keys[k], v); } break;
    case 2: for (let n = ops[r.p++]; n > 0; n--) { const k = value(r); o.set(k, value(r)); } break;
    case 3: for (let n = ops[r.p++]; n > 0; n--) o.add(value(r)); break;
    case 6:
      if (ops[r.p++] === 1) define_hidden(o, 'stack', str(r));
      if (ops[r.p++] === 1) define_hidden(o, 'cause', value(r));
      break;
  }
}
// Each distinct key is made once (the tape numbers them). A plain assignment is
// CreateDataProperty on a fresh object unless a prototype has the key (an accessor such
// as __proto__, a read-only property): such keys, and an array's extra keys, are defined.
// (Own is all: Object.prototype has an immutable null prototype. Faster than in for a
// key not yet internalized.)
const has_own = Object.prototype.hasOwnProperty;
// The keys of the last tapes by id: a model sent again numbers its keys the same, and
// reusing the string skips a substring and its internalization. Only short ones: a longer
// substring can be a slice that keeps the whole text alive.
const last_keys = [];
function new_key(r) {
  const id = r.keys.length, n = r.lens[r.s], last = last_keys[id];
  let s;
  if (last !== undefined && last.length === n && r.text.startsWith(last, r.at)) { s = last; r.s++; r.at += n; }
  else { s = str(r); if (id < 1024 && s.length < 13) last_keys[id] = s; }
  r.keys.push(s);
  r.plain.push(!has_own.call(Object.prototype, s));
  return id;
}
export function build_value(ops, text, lens, wide, bytes, tokenKey) {
  const count = ops[0], made = new Array(count), kinds = new Uint8Array(count), lengths = new Float64Array(count), views = [];
  const r = { ops, text, lens, wide, made, keys: [], plain: [], p: 0, s: 0, at: 0, w: 0 };
  let p = 1, b = 0;
  for (let i = 0; i < count; i++) {
    const k = kinds[i] = ops[p++];
    switch (k) {
      case 0: made[i] = {}; break;
      case 1: made[i] = []; lengths[i] = ops[p++]; break;
      case 2: made[i] = new Map(); break;
      case 3: made[i] = new Set(); break;
      case 4: made[i] = new Date(ops[p++]); break;
      case 5: { const source = str(r), flags = str(r); try { made[i] = new RegExp(source, flags); } catch { throw 'regexp'; } break; }
      case 6: { const C = ERRORS[ops[p++]]; made[i] = ops[p++] === 1 ? new C(str(r)) : new C(); break; }
      case 7: { const n = ops[p++]; made[i] = bytes.slice(b, b + n).buffer; b += n; break; }
      case 8: views.push(i, ops[p++], ops[p++], ops[p++], ops[p++]); break;
      case 9: {
        const module = str(r), name = str(r);
        if (tokenKey === undefined) { made[i] = new TrustedToken(module, name); break; }
        const o = {};
        define_data(o, tokenKey, [module, name]);
        made[i] = o;
        break;
      }
      case 10: made[i] = Object(ops[p++] === 1); break;
      case 11: made[i] = Object(ops[p++]); break;
      case 12: made[i] = Object(str(r)); break;
      case 13: made[i] = Object(BigInt(str(r))); break;
      default: throw 'tape';
    }
  }
  for (let v = 0; v < views.length; v += 5) {
    const name = VIEWS[views[v + 1]];
    try { made[views[v]] = new globalThis[name](made[views[v + 2]], views[v + 3], views[v + 4]); } catch { throw 'view:' + name; }
  }
  const keys = r.keys, plain = r.plain;
  let s = r.s, at = r.at, w = r.w;
  for (let c = ops[p++]; c > 0; c--) {
    const i = ops[p++], o = made[i], kind = kinds[i];
    if (kind !== 0 && kind !== 1) { r.p = p; r.s = s; r.at = at; r.w = w; fill_rare(r, kind, o); p = r.p; s = r.s; at = r.at; w = r.w; continue; }
    // Plain entries and array elements, with values read inline.
    for (let n = ops[p++]; n > 0; n--) {
      let k = ops[p++], v;
      if (k < 0 && kind === 0) { r.s = s; r.at = at; r.w = w; k = new_key(r); s = r.s; at = r.at; w = r.w; }
      const t = ops[p++];
      if (t === 4) v = ops[p++];
      else if (t === 6) { const m = lens[s++]; v = m >= 0 ? text.substring(at, at += m) : wide_text(wide, w, w -= m + 1); }
      else if (t === 7) v = made[ops[p++]];
      else if (t === 3) v = true;
      else if (t === 2) v = false;
      else if (t === 1) v = null;
      else if (t === 5) { const m = lens[s++]; v = BigInt(m >= 0 ? text.substring(at, at += m) : wide_text(wide, w, w -= m + 1)); }
      else if (t !== 0) throw 'tape';
      if (kind === 0) { if (plain[k]) o[keys[k]] = v; else define_data(o, keys[k], v); }
      // Ascending indices onto [] keep the array packed where it has no holes.
      else if (k in Array.prototype) define_data(o, k, v); else o[k] = v;
    }
    if (kind === 1) {
      if (o.length !== lengths[i]) o.length = lengths[i];
      if (ops[p] === 0) p++;
      else { r.p = p; r.s = s; r.at = at; r.w = w; fill_rare(r, 1, o); p = r.p; s = r.s; at = r.at; w = r.w; }
    }
  }
  r.p = p; r.s = s; r.at = at; r.w = w;
  return value(r);
}
")]
extern "C" {
    fn is_token(v: &JsValue) -> bool;
    #[wasm_bindgen(catch)]
    fn build_value(
        ops: &[f64],
        text: &str,
        lens: &[i32],
        wide: &[u16],
        bytes: &[u8],
        token_key: Option<String>,
    ) -> Result<JsValue, JsValue>;
}

thread_local! {
    // In a worker, tokens leave as `{ [key]: [module, export] }` under a random per-worker
    // key the guest never sees; the client turns exactly those into its TrustedToken class.
    static TOKEN_KEY: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Sets the worker's token key (see `TOKEN_KEY`).
pub fn set_token_key(key: Option<String>) {
    TOKEN_KEY.with(|k| *k.borrow_mut() = key);
}

/// Whether `v` is a genuine trusted-export token made by this thread's engine.
pub fn is_trusted_token(v: &JsValue) -> bool {
    is_token(v)
}

/// Builds a host value from a graph, with the host's intrinsics: the graph is flattened to
/// a tape ([`tape`]) and built by one JS call.
///
/// # Errors
/// `SANDBOX_NOT_CLONEABLE` for a `RegExp` or view the host engine refuses to build, or a
/// malformed graph (never for graphs the core made).
pub fn from_graph(graph: &Graph) -> Result<JsValue, SandboxError> {
    if graph.objects.is_empty() {
        // A primitive (most results of `call`): no tape to build.
        let malformed = || SandboxError::not_cloneable("$", "malformed graph");
        return Ok(match &graph.root {
            Value::Object(_) => return Err(malformed()),
            Value::Undefined => JsValue::UNDEFINED,
            Value::Null => JsValue::NULL,
            Value::Bool(b) => JsValue::from(*b),
            Value::Number(n) => JsValue::from(*n),
            Value::String(Text::Utf8(s)) => JsValue::from_str(s),
            Value::String(Text::Utf16(u)) => js_sys::JsString::from_char_code(u).into(),
            Value::BigInt(s) => js_sys::BigInt::new(&JsValue::from_str(s))
                .map_err(|_| malformed())?
                .into(),
        });
    }
    from_tape(&tape::encode(graph))
}

/// Builds a host value from a tape, with the host's intrinsics, in one JS call.
///
/// # Errors
/// As [`from_graph`].
pub fn from_tape(t: &Tape) -> Result<JsValue, SandboxError> {
    let key = TOKEN_KEY.with(|k| k.borrow().clone());
    build_value(&t.ops, &t.text, &t.lens, &t.wide, &t.bytes, key).map_err(|e| {
        let what = e.as_string().unwrap_or_default();
        let what = match what.as_str() {
            // A pattern the host engine rejects (Boa and V8 differ at the edges) cannot
            // cross; it must not throw out of the conversion.
            "regexp" => "RegExp the host engine rejects",
            w => w.strip_prefix("view:").unwrap_or("malformed graph"),
        };
        SandboxError::not_cloneable("$", what)
    })
}
