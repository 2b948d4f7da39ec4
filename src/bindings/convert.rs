//! Host JS values ↔ boundary graphs. Iterative, capped, and built from the host's own
//! intrinsics, so `Object.getPrototypeOf(realm.eval("[]")) === Array.prototype`.

use js_sys::{
    Array, ArrayBuffer, BigInt, Date, JsString, Map, Object, Reflect, RegExp, Set, Uint8Array,
};
use wasm_bindgen::{JsCast, JsValue, prelude::wasm_bindgen};

use crate::clone::tape;
use crate::error::{Limit, SandboxError};
use crate::value::{
    CloneLimits, ErrorName, Graph, ObjId, Object as GObject, Path, PathSeg, Text, Value, ViewKind,
};

#[wasm_bindgen(inline_js = "
function define_data(o, k, v) {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}
function define_hidden(o, k, v) {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: false, configurable: true });
}
export function kind_of(v) {
  if (Array.isArray(v)) return 'Array';
  if (v instanceof Map) return 'Map';
  if (v instanceof Set) return 'Set';
  if (v instanceof Date) return 'Date';
  if (v instanceof RegExp) return 'RegExp';
  if (v instanceof Error) return 'Error';
  if (v instanceof ArrayBuffer) return 'ArrayBuffer';
  if (ArrayBuffer.isView(v)) return v instanceof DataView ? 'DataView' : v.constructor.name;
  const tag = Object.prototype.toString.call(v);
  if (tag === '[object Boolean]' || tag === '[object Number]' || tag === '[object String]' || tag === '[object BigInt]') return tag.slice(8, -1) + 'Object';
  if (v instanceof Promise) return 'Promise';
  if (v instanceof WeakMap) return 'WeakMap';
  if (v instanceof WeakSet) return 'WeakSet';
  if (v instanceof WeakRef) return 'WeakRef';
  if (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer) return 'SharedArrayBuffer';
  const proto = Object.getPrototypeOf(v);
  if (proto === null || proto === Object.prototype) return 'Plain';
  // Class instances clone as plain objects (as structuredClone does); host platform
  // objects (DOM nodes, streams...) do not cross.
  if (tag === '[object Object]') return 'Plain';
  return 'Exotic:' + tag.slice(8, -1);
}
export class TrustedToken {
  constructor(module, name) { this.module = module; this.export = name; Object.freeze(this); }
}
export function is_token(v) { return v instanceof TrustedToken; }
export function error_stack(e) { const s = e.stack; return typeof s === 'string' ? s : undefined; }
export function unbox(v) { return v.valueOf(); }
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
  const count = ops[p++], made = new Array(count), kinds = new Uint8Array(count), views = [];
  for (let i = 0; i < count; i++) {
    const k = kinds[i] = ops[p++];
    switch (k) {
      case 0: made[i] = {}; break;
      case 1: made[i] = new Array(ops[p++]); break;
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
  const entries = (o) => { for (let n = ops[p++]; n > 0; n--) { const k = str(); define_data(o, k, value()); } };
  for (let i = 0; i < count; i++) {
    const o = made[i];
    switch (kinds[i]) {
      case 0: entries(o); break;
      case 1: for (let n = ops[p++]; n > 0; n--) { const k = ops[p++]; define_data(o, k, value()); } entries(o); break;
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
    fn kind_of(v: &JsValue) -> String;
    fn error_stack(e: &JsValue) -> JsValue;
    fn unbox(v: &JsValue) -> JsValue;
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

/// A JS string as boundary text, keeping lone surrogates.
pub fn text_of(s: &JsString) -> Text {
    if s.is_valid_utf16() {
        Text::Utf8(String::from(s))
    } else {
        Text::Utf16(s.iter().collect())
    }
}

struct ToGraph {
    limits: CloneLimits,
    graph: Graph,
    seen: Map,
    tasks: Vec<(JsValue, ObjId, Path)>,
    bytes: usize,
}

/// Converts a host value to a graph.
///
/// # Errors
/// `SANDBOX_NOT_CLONEABLE` with the path for functions, symbols, promises, weak
/// collections and platform objects; `SANDBOX_LIMIT_EXCEEDED` over a cap.
pub fn to_graph(value: &JsValue, limits: CloneLimits) -> Result<Graph, SandboxError> {
    let mut w = ToGraph {
        limits,
        graph: Graph::undefined(),
        seen: Map::new(),
        tasks: Vec::new(),
        bytes: 0,
    };
    let root = w.value(value, &Path::root())?;
    while let Some((v, id, path)) = w.tasks.pop() {
        w.fill(&v, id, &path)?;
    }
    w.graph.root = root;
    Ok(w.graph)
}

fn over(limit: Limit, what: String, path: &Path) -> SandboxError {
    let mut e = SandboxError::limit(limit, what);
    e.details.path = Some(path.render());
    e
}

impl ToGraph {
    fn charge(&mut self, n: usize, path: &Path) -> Result<(), SandboxError> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.limits.max_bytes {
            return Err(over(
                Limit::CloneBytes,
                format!(
                    "value at {} makes the clone larger than maxCloneBytes ({})",
                    path.render(),
                    self.limits.max_bytes
                ),
                path,
            ));
        }
        Ok(())
    }

    fn value(&mut self, v: &JsValue, path: &Path) -> Result<Value, SandboxError> {
        self.charge(8, path)?;
        if v.is_undefined() {
            return Ok(Value::Undefined);
        }
        if v.is_null() {
            return Ok(Value::Null);
        }
        if let Some(b) = v.as_bool() {
            return Ok(Value::Bool(b));
        }
        if let Some(n) = v.as_f64() {
            return Ok(Value::Number(n));
        }
        if let Some(s) = v.dyn_ref::<JsString>() {
            self.charge(s.length() as usize * 2, path)?;
            return Ok(Value::String(text_of(s)));
        }
        if v.is_bigint() {
            let s = bigint_string(v);
            self.charge(s.len(), path)?;
            return Ok(Value::BigInt(s));
        }
        if v.is_symbol() {
            return Err(SandboxError::not_cloneable(&path.render(), "symbol"));
        }
        if v.is_function() {
            return Err(SandboxError::not_cloneable(&path.render(), "function"));
        }
        Ok(Value::Object(self.object(v, path)?))
    }

    fn object(&mut self, v: &JsValue, path: &Path) -> Result<ObjId, SandboxError> {
        let known = self.seen.get(v);
        if let Some(id) = known.as_f64() {
            return Ok(ObjId(id as u32));
        }
        if path.depth() > self.limits.max_depth {
            return Err(over(
                Limit::CloneDepth,
                format!(
                    "value at {} is nested deeper than maxCloneDepth ({})",
                    path.render(),
                    self.limits.max_depth
                ),
                path,
            ));
        }
        if self.graph.objects.len() >= self.limits.max_objects {
            return Err(over(
                Limit::CloneObjects,
                format!(
                    "value at {} has more objects than maxCloneObjects ({})",
                    path.render(),
                    self.limits.max_objects
                ),
                path,
            ));
        }
        let kind = kind_of(v);
        let (object, needs_fill) = match kind.as_str() {
            "Plain" | "Array" | "Map" | "Set" | "Error" => (GObject::Plain(Vec::new()), true),
            "Date" => (GObject::Date(v.unchecked_ref::<Date>().get_time()), false),
            "RegExp" => {
                let re = v.unchecked_ref::<RegExp>();
                let source = text_of(&re.source());
                let flags = String::from(re.flags());
                self.charge(source.byte_len() + flags.len(), path)?;
                (GObject::RegExp { source, flags }, false)
            }
            "ArrayBuffer" => {
                let bytes = Uint8Array::new(v).to_vec();
                self.charge(bytes.len(), path)?;
                (GObject::ArrayBuffer(bytes), false)
            }
            "BooleanObject" => (
                GObject::BooleanObject(unbox(v).as_bool().unwrap_or(false)),
                false,
            ),
            "NumberObject" => (
                GObject::NumberObject(unbox(v).as_f64().unwrap_or(f64::NAN)),
                false,
            ),
            "StringObject" => {
                let s = unbox(v);
                let t = s
                    .dyn_ref::<JsString>()
                    .map(text_of)
                    .unwrap_or(Text::Utf8(String::new()));
                self.charge(t.byte_len(), path)?;
                (GObject::StringObject(t), false)
            }
            "BigIntObject" => (GObject::BigIntObject(bigint_string(&unbox(v))), false),
            other => {
                if let Some(view) = ViewKind::from_name(other) {
                    return self.view(v, view, path);
                }
                let what = other.strip_prefix("Exotic:").unwrap_or(other);
                return Err(SandboxError::not_cloneable(&path.render(), what));
            }
        };
        let id = self.reserve(v, object);
        if needs_fill {
            self.tasks.push((v.clone(), id, path.clone()));
            // Remember the kind so fill knows what to read.
            self.graph.objects[id.0 as usize] = match kind.as_str() {
                "Array" => GObject::Array {
                    length: Reflect::get(v, &"length".into())
                        .ok()
                        .and_then(|l| l.as_f64())
                        .unwrap_or(0.0) as u32,
                    elements: Vec::new(),
                    extra: Vec::new(),
                },
                "Map" => GObject::Map(Vec::new()),
                "Set" => GObject::Set(Vec::new()),
                "Error" => GObject::Error {
                    name: ErrorName::Error,
                    message: None,
                    stack: None,
                    cause: None,
                },
                _ => GObject::Plain(Vec::new()),
            };
        }
        Ok(id)
    }

    fn view(&mut self, v: &JsValue, kind: ViewKind, path: &Path) -> Result<ObjId, SandboxError> {
        let buffer = Reflect::get(v, &"buffer".into()).unwrap_or(JsValue::UNDEFINED);
        let byte_offset = Reflect::get(v, &"byteOffset".into())
            .ok()
            .and_then(|n| n.as_f64())
            .unwrap_or(0.0) as usize;
        let len_key = if kind == ViewKind::DataView {
            "byteLength"
        } else {
            "length"
        };
        let length = Reflect::get(v, &len_key.into())
            .ok()
            .and_then(|n| n.as_f64())
            .unwrap_or(0.0) as usize;
        if !buffer.is_instance_of::<ArrayBuffer>() {
            return Err(SandboxError::not_cloneable(
                &path.render(),
                "view over a SharedArrayBuffer",
            ));
        }
        let id = self.reserve(v, GObject::Plain(Vec::new()));
        let buffer = self.object(&buffer, &path.child(PathSeg::Key("buffer".into())))?;
        self.graph.objects[id.0 as usize] = GObject::View {
            kind,
            buffer,
            byte_offset,
            length,
        };
        Ok(id)
    }

    fn reserve(&mut self, v: &JsValue, object: GObject) -> ObjId {
        let id = self.graph.push(object);
        self.seen.set(v, &JsValue::from(id.0));
        id
    }

    fn fill(&mut self, v: &JsValue, id: ObjId, path: &Path) -> Result<(), SandboxError> {
        let slot = std::mem::replace(
            &mut self.graph.objects[id.0 as usize],
            GObject::Plain(Vec::new()),
        );
        let filled = match slot {
            GObject::Plain(_) => {
                let mut entries = Vec::new();
                for key in Object::keys(v.unchecked_ref::<Object>()).iter() {
                    let name = key
                        .dyn_ref::<JsString>()
                        .map(text_of)
                        .unwrap_or(Text::Utf8(String::new()));
                    self.charge(name.byte_len(), path)?;
                    let child = Reflect::get(v, &key).map_err(|e| getter_threw(&e, path))?;
                    let value = self.value(&child, &path.child(PathSeg::Key(name.to_lossy())))?;
                    entries.push((name, value));
                }
                GObject::Plain(entries)
            }
            GObject::Array { length, .. } => {
                let mut elements = Vec::new();
                let mut extra = Vec::new();
                for key in Object::keys(v.unchecked_ref::<Object>()).iter() {
                    let name = key
                        .dyn_ref::<JsString>()
                        .map(text_of)
                        .unwrap_or(Text::Utf8(String::new()));
                    let child = Reflect::get(v, &key).map_err(|e| getter_threw(&e, path))?;
                    match array_index(&name) {
                        Some(i) => {
                            let value =
                                self.value(&child, &path.child(PathSeg::Index(u64::from(i))))?;
                            elements.push((i, value));
                        }
                        None => {
                            self.charge(name.byte_len(), path)?;
                            let value =
                                self.value(&child, &path.child(PathSeg::Key(name.to_lossy())))?;
                            extra.push((name, value));
                        }
                    }
                }
                GObject::Array {
                    length,
                    elements,
                    extra,
                }
            }
            GObject::Map(_) => {
                let map = v.unchecked_ref::<Map>();
                let mut entries = Vec::new();
                for (i, entry) in map.entries().into_iter().enumerate() {
                    let entry: Array = entry.map_err(|e| getter_threw(&e, path))?.unchecked_into();
                    let k = self.value(&entry.get(0), &path.child(PathSeg::Entry(i, "key")))?;
                    let val = self.value(&entry.get(1), &path.child(PathSeg::Entry(i, "value")))?;
                    entries.push((k, val));
                }
                GObject::Map(entries)
            }
            GObject::Set(_) => {
                let set = v.unchecked_ref::<Set>();
                let mut values = Vec::new();
                for (i, item) in set.values().into_iter().enumerate() {
                    let item = item.map_err(|e| getter_threw(&e, path))?;
                    values.push(self.value(&item, &path.child(PathSeg::Entry(i, "value")))?);
                }
                GObject::Set(values)
            }
            GObject::Error { .. } => {
                let name = Reflect::get(v, &"name".into())
                    .ok()
                    .and_then(|n| n.as_string());
                let name = ErrorName::from_name(name.as_deref().unwrap_or("Error"));
                let message = if Object::prototype_has_own(v, "message") {
                    Reflect::get(v, &"message".into())
                        .ok()
                        .and_then(|m| m.dyn_into::<JsString>().ok())
                        .map(|m| text_of(&m))
                } else {
                    None
                };
                let stack = error_stack(v)
                    .dyn_into::<JsString>()
                    .ok()
                    .map(|s| text_of(&s));
                if let Some(m) = &message {
                    self.charge(m.byte_len(), path)?;
                }
                if let Some(s) = &stack {
                    self.charge(s.byte_len(), path)?;
                }
                let cause = if Object::prototype_has_own(v, "cause") {
                    let c = Reflect::get(v, &"cause".into()).unwrap_or(JsValue::UNDEFINED);
                    Some(self.value(&c, &path.child(PathSeg::Key("cause".into())))?)
                } else {
                    None
                };
                GObject::Error {
                    name,
                    message,
                    stack,
                    cause,
                }
            }
            other => other,
        };
        self.graph.objects[id.0 as usize] = filled;
        Ok(())
    }
}

trait HasOwn {
    fn prototype_has_own(v: &JsValue, key: &str) -> bool;
}

impl HasOwn for Object {
    fn prototype_has_own(v: &JsValue, key: &str) -> bool {
        v.dyn_ref::<Object>()
            .is_some_and(|o| Object::has_own(o, &JsValue::from_str(key)))
    }
}

fn getter_threw(e: &JsValue, path: &Path) -> SandboxError {
    let msg = Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| "a getter threw".into());
    let mut err = SandboxError::not_cloneable(&path.render(), "value whose getter threw");
    err.message = format!("reading {} threw: {msg}", path.render());
    err
}

fn array_index(name: &Text) -> Option<u32> {
    let Text::Utf8(s) = name else { return None };
    if s.is_empty() || (s.len() > 1 && s.starts_with('0')) {
        return None;
    }
    let n: u64 = s.parse().ok()?;
    if n < u64::from(u32::MAX) {
        u32::try_from(n).ok()
    } else {
        None
    }
}

fn bigint_string(v: &JsValue) -> String {
    v.dyn_ref::<BigInt>()
        .and_then(|b| b.to_string(10).ok())
        .map(String::from)
        .unwrap_or_default()
}

/// Builds a host value from a graph, with the host's intrinsics: the graph is flattened to
/// a tape ([`tape`]) and built by one JS call.
///
/// # Errors
/// `SANDBOX_NOT_CLONEABLE` for a `RegExp` or view the host engine refuses to build, or a
/// malformed graph (never for graphs the core made).
pub fn from_graph(graph: &Graph) -> Result<JsValue, SandboxError> {
    let t = tape::encode(graph);
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
