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
export function build_value(ops, text, lens, wide, bytes, tokenKey) {
  let p = 0, s = 0, at = 0, w = 0, b = 0;
  const str = () => {
    const n = lens[s++];
    if (n >= 0) { at += n; return text.substring(at - n, at); }
    // Lone surrogates: code units as they are (a TextDecoder would replace them).
    const end = w - n - 1;
    let out = '';
    for (let i = w; i < end; i += 8192) out += String.fromCharCode.apply(null, wide.subarray(i, Math.min(end, i + 8192)));
    w = end;
    return out;
  };
  const count = ops[p++], made = new Array(count), kinds = new Uint8Array(count), lengths = new Float64Array(count), views = [];
  for (let i = 0; i < count; i++) {
    const k = kinds[i] = ops[p++];
    switch (k) {
      case 0: made[i] = {}; break;
      case 1: made[i] = []; lengths[i] = ops[p++]; break;
      case 2: made[i] = new Map(); break;
      case 3: made[i] = new Set(); break;
      case 4: made[i] = new Date(ops[p++]); break;
      case 5: { const source = str(), flags = str(); try { made[i] = new RegExp(source, flags); } catch { throw 'regexp'; } break; }
      case 6: { const C = ERRORS[ops[p++]]; made[i] = ops[p++] === 1 ? new C(str()) : new C(); break; }
      case 7: { const n = ops[p++]; made[i] = bytes.slice(b, b + n).buffer; b += n; break; }
      case 8: views.push(i, ops[p++], ops[p++], ops[p++], ops[p++]); break;
      case 9: {
        const module = str(), name = str();
        if (tokenKey === undefined) { made[i] = new TrustedToken(module, name); break; }
        const o = {};
        define_data(o, tokenKey, [module, name]);
        made[i] = o;
        break;
      }
      case 10: made[i] = Object(ops[p++] === 1); break;
      case 11: made[i] = Object(ops[p++]); break;
      case 12: made[i] = Object(str()); break;
      case 13: made[i] = Object(BigInt(str())); break;
      default: throw 'tape';
    }
  }
  for (let v = 0; v < views.length; v += 5) {
    const name = VIEWS[views[v + 1]];
    try { made[views[v]] = new globalThis[name](made[views[v + 2]], views[v + 3], views[v + 4]); } catch { throw 'view:' + name; }
  }
  const value = () => {
    switch (ops[p++]) {
      case 0: return undefined;
      case 1: return null;
      case 2: return false;
      case 3: return true;
      case 4: return ops[p++];
      case 5: return BigInt(str());
      case 6: return str();
      case 7: return made[ops[p++]];
      default: throw 'tape';
    }
  };
  // Each distinct key is made once (the tape numbers them). A plain assignment is
  // CreateDataProperty on a fresh object unless a prototype has the key (an accessor such
  // as __proto__, a read-only property): such keys, and an array's extra keys, are defined.
  const keys = [], plain = [];
  const entries = (o, array) => {
    for (let n = ops[p++]; n > 0; n--) {
      let k = ops[p++];
      if (k < 0) { k = keys.length; const s = str(); keys.push(s); plain.push(!(s in Object.prototype)); }
      const v = value();
      if (plain[k] && !array) o[keys[k]] = v; else define_data(o, keys[k], v);
    }
  };
  for (let c = ops[p++]; c > 0; c--) {
    const i = ops[p++], o = made[i];
    switch (kinds[i]) {
      case 0: entries(o, false); break;
      case 1:
        // Ascending indices onto [] keep the array packed where it has no holes.
        for (let n = ops[p++]; n > 0; n--) { const k = ops[p++]; const v = value(); if (k in Array.prototype) define_data(o, k, v); else o[k] = v; }
        if (o.length !== lengths[i]) o.length = lengths[i];
        entries(o, true);
        break;
      case 2: for (let n = ops[p++]; n > 0; n--) { const k = value(); o.set(k, value()); } break;
      case 3: for (let n = ops[p++]; n > 0; n--) o.add(value()); break;
      case 6:
        if (ops[p++] === 1) define_hidden(o, 'stack', str());
        if (ops[p++] === 1) define_hidden(o, 'cause', value());
        break;
    }
  }
  return value();
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
