//! Host JS values → boundary tapes. The host value is walked once, in JS (`walk_value`
//! below), into a tape of numbers and one string; the core decodes that tape
//! ([`crate::clone::host_tape`]), where every cap, path and error is decided. This replaced a walk from Rust that crossed
//! into JS several times per property (its type, its key, its text, its getter).
//!
//! The JS walk visits values in the order the graph is built (an object's own keys, then
//! the objects they reached, last found first), and runs each getter once. It stops at the
//! first value that cannot cross, the first getter that throws, and as soon as a lower bound
//! of the bytes charged here passes the cap, so a huge host value is not walked to the end.
//!
//! Value ops: 0 undefined, 1 null, 2 false, 3 true, 4 number n, 5 BigInt (string), 6 string,
//! 7 a reference to object id, 8 a new object (kind and payload follow), 9 refused (the kind,
//! as a string), 10 stopped (a cap), 11 a getter threw (its message). A string is one op,
//! its length: `n >= 0` UTF-16 units of the joined well-formed `text`, or `-(n + 1)` units
//! of `wide`, for text with lone surrogates (as in [`crate::clone::tape`]).
//! A property key is a key id: `k >= 0` is the key first seen as id `k`, `-1` a new key
//! (the next id) whose string follows.

use js_sys::{Array, Float64Array, Uint8Array, Uint16Array};
use wasm_bindgen::{JsCast, JsValue, prelude::wasm_bindgen};

use crate::clone::host_tape::{HostTape, decode, malformed};
use crate::error::{ErrorCode, SandboxError};
use crate::value::{CloneLimits, Graph};

#[wasm_bindgen(inline_js = "
const VIEWS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
  'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'DataView'];
const INDEX = /^(?:0|[1-9][0-9]*)$/;
const toTag = Object.prototype.toString;
// What structuredClone reads from internal slots, read by the intrinsics (an own `valueOf`,
// `getTime`, `length` or `constructor` is not consulted). Each throws for an object without
// the slot, so each is also the brand check structuredClone makes.
const getter = (o, k) => Object.getOwnPropertyDescriptor(o, k).get;
const numberValue = Number.prototype.valueOf, boolValue = Boolean.prototype.valueOf,
  stringValue = String.prototype.valueOf, bigintValue = BigInt.prototype.valueOf, dateTime = Date.prototype.getTime;
const reSource = getter(RegExp.prototype, 'source');
// `flags` is generic (it reads `global`, `sticky`... off the object); each flag's own getter
// reads the slot.
const FLAGS = [['d', 'hasIndices'], ['g', 'global'], ['i', 'ignoreCase'], ['m', 'multiline'], ['s', 'dotAll'],
  ['u', 'unicode'], ['v', 'unicodeSets'], ['y', 'sticky']].filter(([, name]) => Object.hasOwn(RegExp.prototype, name))
  .map(([flag, name]) => [flag, getter(RegExp.prototype, name)]);
const regexpFlags = (v) => FLAGS.map(([flag, read]) => (read.call(v) ? flag : '')).join('');
const mapSize = getter(Map.prototype, 'size'), setSize = getter(Set.prototype, 'size');
const bufferLength = getter(ArrayBuffer.prototype, 'byteLength');
const TypedArray = Object.getPrototypeOf(Uint8Array.prototype);
const viewName = getter(TypedArray, Symbol.toStringTag), viewBuffer = getter(TypedArray, 'buffer'),
  viewOffset = getter(TypedArray, 'byteOffset'), viewLength = getter(TypedArray, 'length');
const dvBuffer = getter(DataView.prototype, 'buffer'), dvOffset = getter(DataView.prototype, 'byteOffset'),
  dvLength = getter(DataView.prototype, 'byteLength');
const isError = Error.isError || ((v) => v instanceof Error);
const WRAPPERS = { __proto__: null, '[object Boolean]': boolValue, '[object Number]': numberValue, '[object String]': stringValue, '[object BigInt]': bigintValue };
function has(brand, v) {
  try { brand.call(v); return true; } catch { return false; }
}
// A tag says what an object claims (an own or inherited @@toStringTag can say anything);
// the brand check says what it is.
function wrapper(v, tag) {
  const brand = WRAPPERS[tag];
  return brand !== undefined && has(brand, v) ? tag.slice(8, -1) + 'Object' : undefined;
}
function kind(v) {
  // Most values are plain: one prototype read and two cheap checks decide what the
  // instanceof chain below would. An object with such a prototype has a builtin tag only
  // through its internal slots or an own @@toStringTag (which structuredClone ignores).
  const proto = Object.getPrototypeOf(v);
  if ((proto === Object.prototype || proto === null) && !Array.isArray(v) && !ArrayBuffer.isView(v)) {
    let tag;
    try { tag = toTag.call(v); } catch { return 'Plain'; }
    // The common answer first: no wrapper brand has this tag.
    return tag === '[object Object]' ? 'Plain' : wrapper(v, tag) || 'Plain';
  }
  if (Array.isArray(v)) return 'Array';
  if (ArrayBuffer.isView(v)) return viewName.call(v) || 'DataView';
  // Past here, an object that only inherits from a builtin's prototype (Object.create(Map.prototype))
  // lacks the slots: structuredClone copies it as a plain object, and so do we.
  if (v instanceof Map) return has(mapSize, v) ? 'Map' : 'Plain';
  if (v instanceof Set) return has(setSize, v) ? 'Set' : 'Plain';
  if (v instanceof Date) return has(dateTime, v) ? 'Date' : 'Plain';
  if (v instanceof RegExp) return v !== RegExp.prototype && has(reSource, v) ? 'RegExp' : 'Plain';
  if (v instanceof Error) return isError(v) ? 'Error' : 'Plain';
  if (v instanceof ArrayBuffer) return has(bufferLength, v) ? 'ArrayBuffer' : 'Plain';
  const tag = toTag.call(v);
  const boxed = wrapper(v, tag);
  if (boxed) return boxed;
  if (v instanceof Promise) return 'Promise';
  if (v instanceof WeakMap) return 'WeakMap';
  if (v instanceof WeakSet) return 'WeakSet';
  if (v instanceof WeakRef) return 'WeakRef';
  if (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer) return 'SharedArrayBuffer';
  // Class instances clone as plain objects (as structuredClone does); host platform
  // objects (DOM nodes, streams...) do not cross, and neither does anything else that
  // names itself with a @@toStringTag.
  if (tag === '[object Object]') return 'Plain';
  return tag.slice(8, -1);
}
// The tape's buffer, kept between walks (a getter that walks again gets its own).
let spare = new Float64Array(4096);
export function walk_value(root, maxObjects, maxBytes, maxDepth) {
  const strs = [], wides = [], buffers = [], seen = new Set(), tasks = [], keyIds = new Map();
  let ops = spare || new Float64Array(4096), n = 0, objects = 0, bytes = 0, done = false;
  spare = null;
  const grow = () => { const bigger = new Float64Array(ops.length * 2); bigger.set(ops); ops = bigger; };
  const push = (x) => { if (n === ops.length) grow(); ops[n++] = x; };
  const str = (s) => {
    if (s.isWellFormed()) { strs.push(s); push(s.length); } else { wides.push(s); push(-s.length - 1); }
  };
  // A key seen before goes as its id; a new one as -1, then its string.
  const key = (k) => {
    const id = keyIds.get(k);
    if (id !== undefined) { push(id); return id; }
    const fresh = keyIds.size;
    keyIds.set(k, fresh); push(-1); str(k);
    return fresh;
  };
  // Plain objects of one layout list the same keys: once one has sent them, the next sends
  // their ids without a lookup per key. By first key: [keys, ids].
  const layouts = new Map();
  // `bytes` is a lower bound of what the decoder charges: past the cap, it has failed by this point.
  const stop = (op, what) => { push(op); if (what !== undefined) str(what); done = true; };
  const threw = (e) => { let m; try { m = e && e.message; } catch {} stop(11, typeof m === 'string' ? m : 'a getter threw'); };
  // Identity: an object's id is its place in `seen`. Most graphs share nothing, so one `add`
  // both looks up and records; the first shared object builds `ids` (by object) from `seen`.
  // An object recorded here that the walk does not then take ends the walk.
  let ids;
  const object = (v, depth) => {
    if (ids === undefined) {
      const size = seen.size;
      if (seen.add(v).size === size) {
        ids = new Map();
        for (const o of seen) ids.set(o, ids.size);
        push(7); push(ids.get(v)); return;
      }
    } else {
      const known = ids.get(v);
      if (known !== undefined) { push(7); push(known); return; }
      ids.set(v, ids.size);
    }
    if (depth > maxDepth || objects >= maxObjects) return stop(10);
    const k = kind(v);
    switch (k) {
      case 'Plain': case 'Map': case 'Set': case 'Error':
        objects++; push(8); push(k === 'Plain' ? 0 : k === 'Map' ? 2 : k === 'Set' ? 3 : 4); tasks.push(v, k, depth); return;
      case 'Array': objects++; push(8); push(1); push(v.length >>> 0); tasks.push(v, k, depth); return;
      case 'Date': objects++; push(8); push(5); push(dateTime.call(v)); return;
      case 'RegExp': {
        const source = reSource.call(v), flags = regexpFlags(v);
        objects++; push(8); push(6); str(source); str(flags);
        if ((bytes += source.length + flags.length) > maxBytes) stop(10);
        return;
      }
      case 'ArrayBuffer': { const length = bufferLength.call(v); objects++; push(8); push(7); push(buffers.length); push(length); buffers.push(v); if ((bytes += length) > maxBytes) stop(10); return; }
      case 'BooleanObject': objects++; push(8); push(8); push(boolValue.call(v) ? 1 : 0); return;
      case 'NumberObject': objects++; push(8); push(9); push(numberValue.call(v)); return;
      case 'StringObject': { const s = stringValue.call(v); objects++; push(8); push(10); str(s); if ((bytes += s.length) > maxBytes) stop(10); return; }
      case 'BigIntObject': { const s = String(bigintValue.call(v)); objects++; push(8); push(11); str(s); return; }
    }
    const view = VIEWS.indexOf(k);
    if (view < 0) return stop(9, k);
    const dv = k === 'DataView';
    const buffer = (dv ? dvBuffer : viewBuffer).call(v), offset = (dv ? dvOffset : viewOffset).call(v),
      length = (dv ? dvLength : viewLength).call(v);
    if (!(buffer instanceof ArrayBuffer)) return stop(9, 'view over a SharedArrayBuffer');
    objects++; push(8); push(12); push(view); push(offset); push(length);
    object(buffer, depth + 1);
  };
  // Numbers and strings first: they are most values.
  const value = (v, depth) => {
    if ((bytes += 8) > maxBytes) return stop(10);
    if (n + 2 > ops.length) grow();
    const t = typeof v;
    if (t === 'number') { ops[n++] = 4; ops[n++] = v; return; }
    if (t === 'string') {
      ops[n++] = 6;
      if (v.isWellFormed()) { strs.push(v); ops[n++] = v.length; } else { wides.push(v); ops[n++] = -v.length - 1; }
      if ((bytes += v.length * 2) > maxBytes) stop(10);
      return;
    }
    if (t === 'object') { if (v === null) ops[n++] = 1; else object(v, depth); return; }
    if (t === 'boolean') { ops[n++] = v ? 3 : 2; return; }
    if (t === 'undefined') { ops[n++] = 0; return; }
    if (t === 'bigint') { const s = v.toString(); ops[n++] = 5; str(s); if ((bytes += s.length) > maxBytes) stop(10); return; }
    if (t === 'symbol') return stop(9, 'symbol');
    if (t === 'function') return stop(9, 'function');
    object(v, depth);
  };
  // An array's index keys go as numbers (flag 1), its other keys as key ids (flag 0).
  const entries = (v, array, depth) => {
    const names = Object.keys(v);
    push(names.length);
    let i = 0;
    if (array) {
      // Own keys list indices first, ascending, all below the length: if the key at
      // length - 1 is that index, the first `length` keys are 0 .. length - 1.
      const len = v.length;
      if (len > 0 && names.length >= len && names[len - 1] === String(len - 1)) {
        for (; i < len; i++) {
          if (n + 2 > ops.length) grow();
          ops[n++] = 1; ops[n++] = i;
          let child;
          try { child = v[i]; } catch (e) { return threw(e); }
          if (typeof child === 'number') {
            if ((bytes += 8) > maxBytes) return stop(10);
            if (n + 2 > ops.length) grow();
            ops[n++] = 4; ops[n++] = child;
            continue;
          }
          value(child, depth + 1);
          if (done) return;
        }
      }
    }
    let ids, sent;
    if (!array && names.length > 0) {
      const known = layouts.get(names[0]);
      ids = known !== undefined && known[0].length === names.length ? known[1] : undefined;
      for (let j = 1; ids !== undefined && j < names.length; j++) if (known[0][j] !== names[j]) ids = undefined;
      if (ids === undefined) sent = [];
      else {
        // A known layout (the common case): only ids and values.
        for (; i < names.length; i++) {
          const name = names[i];
          push(ids[i]);
          if ((bytes += name.length) > maxBytes) return stop(10);
          let child;
          try { child = v[name]; } catch (e) { return threw(e); }
          if (typeof child === 'number') {
            if ((bytes += 8) > maxBytes) return stop(10);
            if (n + 2 > ops.length) grow();
            ops[n++] = 4; ops[n++] = child;
            continue;
          }
          value(child, depth + 1);
          if (done) return;
        }
        return;
      }
    }
    for (; i < names.length; i++) {
      const name = names[i];
      const index = array && INDEX.test(name) ? +name : -1;
      if (index >= 0 && index < 4294967295) { push(1); push(index); }
      else {
        if (array) push(0);
        if (ids !== undefined) push(ids[i]);
        else if (sent !== undefined) sent.push(key(name));
        else key(name);
        if ((bytes += name.length) > maxBytes) return stop(10);
      }
      let child;
      try { child = v[name]; } catch (e) { return threw(e); }
      value(child, depth + 1);
      if (done) return;
    }
    if (sent !== undefined) layouts.set(names[0], [names, sent]);
  };
  const fill = (v, k, depth) => {
    switch (k) {
      case 'Plain': return entries(v, false, depth);
      case 'Array': return entries(v, true, depth);
      case 'Map': case 'Set':
        try {
          for (const e of k === 'Map' ? v.entries() : v.values()) {
            push(1);
            if (k === 'Map') { value(e[0], depth + 1); if (done) return; }
            value(k === 'Map' ? e[1] : e, depth + 1);
            if (done) return;
          }
        } catch (e) { return threw(e); }
        push(0);
        return;
      case 'Error': {
        let name, message, stack;
        try { name = v.name; } catch {}
        str(typeof name === 'string' ? name : 'Error');
        if (Object.hasOwn(v, 'message')) { try { message = v.message; } catch {} }
        if (typeof message === 'string') { push(1); str(message); if ((bytes += message.length) > maxBytes) return stop(10); } else push(0);
        try { stack = v.stack; } catch {}
        if (typeof stack === 'string') { push(1); str(stack); if ((bytes += stack.length) > maxBytes) return stop(10); } else push(0);
        if (Object.hasOwn(v, 'cause')) {
          let cause;
          try { cause = v.cause; } catch {}
          push(1);
          return value(cause, depth + 1);
        }
        push(0);
      }
    }
  };
  value(root, 0);
  while (!done && tasks.length) {
    const depth = tasks.pop(), k = tasks.pop(), v = tasks.pop();
    fill(v, k, depth);
  }
  // Small values are the common case: numbers alone come back as the bare tape.
  // Read (copied into wasm) before anything can walk again.
  if (ops.length <= 1 << 16) spare = ops;
  ops = ops.subarray(0, n);
  if (!strs.length && !wides.length && !buffers.length) return ops;
  let units;
  if (wides.length) {
    let wide = 0;
    for (const w of wides) wide += w.length;
    units = new Uint16Array(wide);
    let at = 0;
    for (const w of wides) for (let i = 0; i < w.length; i++) units[at++] = w.charCodeAt(i);
  }
  return [ops, strs.length ? strs.join('') : undefined, units, buffers.length ? buffers : undefined];
}
// The worker protocol's messages: a call, card operation or set has its payload walked
// apart from the rest (walk_message). The key it is under, for a plain object whose
// `type` has one and that has it; undefined when the message is decoded whole.
const PAYLOADS = { __proto__: null, call: 'args', card: 'args', set: 'value' };
const plain = (m) => typeof m === 'object' && m !== null && !Array.isArray(m) && Object.getPrototypeOf(m) === Object.prototype;
function payload_key(m) {
  if (!plain(m)) return undefined;
  const type = m.type;
  const key = typeof type === 'string' ? PAYLOADS[type] : undefined;
  return key !== undefined && key in m ? key : undefined;
}
// The realm whose clone limits bound the payload: -1 when `realm` is not one, -2 when the
// message is decoded whole.
export function message_realm(m) {
  if (payload_key(m) === undefined) return -2;
  const r = m.realm;
  return typeof r === 'number' && Number.isInteger(r) && r >= 0 && r <= 4294967295 ? r : -1;
}
export function walk_payload(m, maxObjects, maxBytes, maxDepth) {
  return walk_value(m[payload_key(m)], maxObjects, maxBytes, maxDepth);
}
// A plain-object message's fields besides its payload, when every one is a number, a
// well-formed string, a boolean, null or undefined (all the client sends, but an eval's or
// a create's options): walk_value's tape of them as one plain object, written in one pass.
// Undefined otherwise, for the general walk. The tape is copied into wasm before anything
// can write it again.
let flatOps = new Float64Array(64);
export function flat_tape(m, maxBytes) {
  if (!plain(m)) return undefined;
  const key = payload_key(m);
  const names = Object.keys(m);
  if (flatOps.length < 3 + 4 * names.length) flatOps = new Float64Array(3 + 4 * names.length);
  const ops = flatOps, strs = [];
  let n = 3, count = 0, bytes = 8;
  for (const name of names) {
    if (name === key) continue;
    const v = m[name], t = typeof v;
    if (!name.isWellFormed()) return undefined;
    ops[n++] = -1; ops[n++] = name.length; strs.push(name);
    bytes += name.length + 8;
    if (t === 'number') { ops[n++] = 4; ops[n++] = v; }
    else if (t === 'string' && v.isWellFormed()) { ops[n++] = 6; ops[n++] = v.length; strs.push(v); bytes += 2 * v.length; }
    else if (t === 'boolean') ops[n++] = v ? 3 : 2;
    else if (v === undefined) ops[n++] = 0;
    else if (v === null) ops[n++] = 1;
    else return undefined;
    count++;
  }
  // walk_value stops at its cap: the general walk writes that stop.
  if (bytes > maxBytes) return undefined;
  ops[0] = 8; ops[1] = 0; ops[2] = count;
  return [ops.subarray(0, n), strs.join('')];
}
// A split message's fields besides its payload, for the general walk. Defined, not
// assigned: an own `__proto__` stays a field (and is refused).
export function envelope_copy(m) {
  const key = payload_key(m);
  return Object.fromEntries(Object.entries(m).filter(([k]) => k !== key));
}
")]
extern "C" {
    #[wasm_bindgen(catch)]
    fn walk_value(
        root: &JsValue,
        max_objects: f64,
        max_bytes: f64,
        max_depth: f64,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch)]
    fn message_realm(message: &JsValue) -> Result<f64, JsValue>;

    #[wasm_bindgen(catch)]
    fn walk_payload(
        message: &JsValue,
        max_objects: f64,
        max_bytes: f64,
        max_depth: f64,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch)]
    fn flat_tape(message: &JsValue, max_bytes: f64) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch)]
    fn envelope_copy(message: &JsValue) -> Result<JsValue, JsValue>;
}

/// A host value, walked: what the core decodes (see [`HostTape`]).
pub struct Walked {
    ops: Vec<f64>,
    text: String,
    wide: Vec<u16>,
    /// The `ArrayBuffer`s met, left on the host until the decoder charges them.
    buffers: JsValue,
}

impl Walked {
    /// Runs `f` on the tape.
    pub fn with_tape<R>(&self, f: impl FnOnce(&HostTape<'_>) -> R) -> R {
        let buffers = self.buffers.dyn_ref::<Array>();
        let buffer = |i: usize| {
            let buffer = buffers?.get(u32::try_from(i).ok()?);
            buffer
                .is_instance_of::<js_sys::ArrayBuffer>()
                .then(|| Uint8Array::new(&buffer).to_vec())
        };
        f(&HostTape {
            ops: &self.ops,
            text: &self.text,
            wide: &self.wide,
            buffer: &buffer,
        })
    }
}

/// Walks a host value into a tape (in JS, once).
///
/// # Errors
/// `SANDBOX_NOT_CLONEABLE` when something the walk touched threw outside a getter.
pub fn walk(value: &JsValue, limits: CloneLimits) -> Result<Walked, SandboxError> {
    walked(walk_value(
        value,
        limits.max_objects as f64,
        limits.max_bytes as f64,
        limits.max_depth as f64,
    ))
}

/// What `walk_value` returned.
fn walked(result: Result<JsValue, JsValue>) -> Result<Walked, SandboxError> {
    // Something the walk touched threw outside a getter (a throwing `constructor` or
    // `getTime`, say): refused, like any value that cannot be described.
    result.map(tape_parts).map_err(|_| malformed())
}

/// A tape as `walk_value` writes it: the bare tape, or the tape with its text and buffers.
fn tape_parts(walked: JsValue) -> Walked {
    match walked.dyn_into::<Array>() {
        Ok(parts) => {
            let wide = parts.get(2);
            let wide = if wide.is_undefined() {
                Vec::new()
            } else {
                wide.unchecked_into::<Uint16Array>().to_vec()
            };
            Walked {
                ops: parts.get(0).unchecked_into::<Float64Array>().to_vec(),
                text: parts.get(1).as_string().unwrap_or_default(),
                wide,
                buffers: parts.get(3),
            }
        }
        Err(ops) => Walked {
            ops: ops.unchecked_into::<Float64Array>().to_vec(),
            text: String::new(),
            wide: Vec::new(),
            buffers: JsValue::UNDEFINED,
        },
    }
}

/// A worker protocol message, walked: whole, or (a call, card operation or set) its
/// payload apart from the rest.
pub enum Message {
    Whole(Graph),
    Split { envelope: Graph, payload: Walked },
}

/// Walks a protocol message; a payload under the limits `payload_limits` gives for the realm
/// the message names (`None` when it names none). Fields that are all flat (every message the
/// client sends, but an eval's or a create's options) are written as a tape in one pass, not
/// walked (`flat_tape`).
///
/// # Errors
/// As [`to_graph`]; `SANDBOX_PROTOCOL` when the message's fields cannot be read.
pub fn walk_message(
    message: &JsValue,
    payload_limits: impl FnOnce(Option<u32>) -> CloneLimits,
) -> Result<Message, SandboxError> {
    let limits = CloneLimits::default();
    let unreadable = |_| SandboxError::new(ErrorCode::Protocol, "the message could not be read");
    let flat = |message: &JsValue| -> Result<Option<Graph>, SandboxError> {
        let tape = flat_tape(message, limits.max_bytes as f64).map_err(unreadable)?;
        if tape.is_undefined() {
            return Ok(None);
        }
        tape_parts(tape)
            .with_tape(|tape| decode(tape, limits))
            .map(Some)
    };
    let realm = message_realm(message).map_err(unreadable)?;
    if realm == -2.0 {
        return Ok(Message::Whole(match flat(message)? {
            Some(graph) => graph,
            None => to_graph(message, limits)?,
        }));
    }
    let payload_limits = payload_limits((realm >= 0.0).then_some(realm as u32));
    let payload = walked(walk_payload(
        message,
        payload_limits.max_objects as f64,
        payload_limits.max_bytes as f64,
        payload_limits.max_depth as f64,
    ))?;
    let envelope = match flat(message)? {
        Some(graph) => graph,
        None => to_graph(&envelope_copy(message).map_err(unreadable)?, limits)?,
    };
    Ok(Message::Split { envelope, payload })
}

/// Converts a host value to a graph.
///
/// # Errors
/// `SANDBOX_NOT_CLONEABLE` with the path for functions, symbols, promises, weak
/// collections, platform objects and a getter that throws; `SANDBOX_LIMIT_EXCEEDED` over a
/// cap.
pub fn to_graph(value: &JsValue, limits: CloneLimits) -> Result<Graph, SandboxError> {
    walk(value, limits)?.with_tape(|tape| decode(tape, limits))
}
