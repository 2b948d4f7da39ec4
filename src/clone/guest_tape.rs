//! Guest values → host tapes in one pass, with no graph in between.
//!
//! The reference is [`from_guest`](super::from_guest) then [`tape::encode`]: this writes a
//! tape the host builds into the same value, for what models are made of (plain objects,
//! arrays, maps, sets, dates and primitives). It gives up (`None`) on anything else and
//! wherever the reference would fail or run guest code: a cap, a value that cannot cross,
//! an accessor, a proxy, a token. It runs no guest code itself, so the caller can then run
//! the reference from the start, which decides every error, path and getter.
//!
//! It walks as the reference walks (the same depth-first order, the same reads, the same
//! charges), so each object is first reached at the same depth and every check fails
//! exactly when the reference's would.

use std::rc::Rc;

use boa_engine::builtins::object::OrdinaryObject;
use boa_engine::builtins::proxy::Proxy;
use boa_engine::object::builtins::{JsDate, JsMap, JsSet};
use boa_engine::object::shape::Shape;
use boa_engine::property::PropertyKey;
use boa_engine::string::JsStrVariant;
use boa_engine::{Context, JsObject, JsString, JsValue, JsVariant};
use rustc_hash::FxHashMap;

use super::from_guest::{
    Captured, array_length, data_keys, dense_elements_into, enumerable_entries,
};
use super::tape::{Tape, kind, value};
use super::{Emptied, KEPT_MAX};
use crate::value::CloneLimits;

thread_local! {
    /// What a tape works in, kept (empty) between tapes: growing each table and list again
    /// from nothing, by reallocations and rehashes, was about a tenth of a 1 KB model's
    /// crossing. A tape that gives up drops its own.
    static KEPT: std::cell::Cell<Lists> = std::cell::Cell::default();
}

/// The identity table keeps more (about 600 KB): its rehashes were 1 % of a 100 KB
/// model's crossing.
const SEEN_KEPT_MAX: usize = 1 << 15;

/// The most contents a tape keeps room for, and text and strings it reserves up front from
/// the last tape's.
const RESERVED_MAX: usize = 1 << 13;

/// A [`Writer`]'s lists and tables, kept between tapes, and the last tape's lengths.
#[derive(Default)]
struct Lists {
    /// Kind tags and their arguments, by object id (none of these kinds has text).
    head: Vec<f64>,
    /// Contents blocks, copied after the head once it is known.
    contents: Vec<f64>,
    seen: FxHashMap<JsObject, u32>,
    /// Objects to fill: each with its id, so it is not looked up again.
    tasks: Vec<(JsObject, u32, Fill, usize)>,
    keys: FxHashMap<JsString, Key>,
    /// Shared shapes read so far (held, so their addresses stay theirs), by address.
    shapes: FxHashMap<usize, ShapeEntry>,
    /// The values of the object being filled: one buffer for all of them (fills do not
    /// nest), instead of an allocation per object.
    values: Vec<JsValue>,
    /// The last tape's text bytes and strings (those leave with the tape).
    last: (usize, usize),
}

impl Lists {
    /// Empties what a tape used (none of it outlives the tape: shapes and objects are
    /// held only while it runs) and keeps it for the next.
    fn keep(mut self) {
        self.head.empty(KEPT_MAX);
        self.contents.empty(RESERVED_MAX);
        self.seen.empty(SEEN_KEPT_MAX);
        self.tasks.empty(KEPT_MAX);
        self.keys.empty(KEPT_MAX);
        self.shapes.empty(KEPT_MAX);
        self.values.empty(KEPT_MAX);
        KEPT.set(self);
    }
}

/// The tape of `v`, an object; `None` to take the reference's path.
pub fn tape(
    v: &JsValue,
    captured: &Captured,
    limits: CloneLimits,
    context: &mut Context,
) -> Option<Tape> {
    let JsVariant::Object(root) = v.variant() else {
        return None;
    };
    let mut lists = KEPT.take();
    let (text, strings) = lists.last;
    let mut w = Writer {
        captured,
        limits,
        context,
        bytes: 0,
        body: Tape {
            ops: std::mem::take(&mut lists.contents),
            text: String::with_capacity(text.min(RESERVED_MAX)),
            lens: Vec::with_capacity(strings.min(RESERVED_MAX)),
            ..Tape::default()
        },
        blocks: 0,
        lists,
    };
    w.charge(8)?;
    let id = w.object(&root, 0)?;
    while let Some((o, id, fill, depth)) = w.lists.tasks.pop() {
        w.fill(&o, id, fill, depth)?;
    }
    let mut t = w.body;
    let mut lists = w.lists;
    let mut ops = Vec::with_capacity(2 + lists.head.len() + t.ops.len() + 2);
    ops.push(lists.seen.len() as f64);
    ops.extend_from_slice(&lists.head);
    ops.push(w.blocks as f64);
    ops.extend_from_slice(&t.ops);
    ops.extend([value::OBJECT, f64::from(id)]);
    lists.contents = std::mem::replace(&mut t.ops, ops);
    lists.last = (t.text.len(), t.lens.len());
    lists.keep();
    Some(t)
}

/// A shared shape's keys, when its objects can be read by their values alone.
type ShapeKeys = Option<Rc<[JsString]>>;

/// What [`Writer::by_shape`] reads (besides the object's values): the shape's address, its
/// keys, and their numbers once written.
type ByShape = (usize, Rc<[JsString]>, Option<Rc<[Key]>>);

#[derive(Clone, Copy)]
enum Fill {
    Plain,
    Array,
    Map,
    Set,
}

/// A key as the tape sends it: its number, and its size as the reference charges it.
#[derive(Clone, Copy)]
struct Key {
    id: u32,
    bytes: usize,
}

struct Writer<'a> {
    captured: &'a Captured,
    limits: CloneLimits,
    context: &'a mut Context,
    bytes: usize,
    /// Contents blocks, and the text of the whole tape.
    body: Tape,
    blocks: usize,
    lists: Lists,
}

/// A shared shape, as its objects are written.
struct ShapeEntry {
    _held: Shape,
    /// Its keys when every property is an enumerable string-keyed data property.
    keys: ShapeKeys,
    /// Those keys as the tape numbers them, once one object of the shape has written them:
    /// every later one sends the numbers without looking its keys up.
    written: Option<Rc<[Key]>>,
}

impl Writer<'_> {
    fn charge(&mut self, n: usize) -> Option<()> {
        self.bytes = self.bytes.saturating_add(n);
        (self.bytes <= self.limits.max_bytes).then_some(())
    }

    fn str(&mut self, s: &JsString) {
        let t = &mut self.body;
        if let JsStrVariant::Latin1(bytes) = s.as_str().variant()
            && bytes.is_ascii()
            && let Ok(ascii) = std::str::from_utf8(bytes)
        {
            t.text.push_str(ascii);
            t.lens.push(i32::try_from(ascii.len()).unwrap_or(i32::MAX));
            return;
        }
        match s.to_std_string() {
            Ok(text) => {
                t.text.push_str(&text);
                t.lens.push(i32::try_from(s.len()).unwrap_or(i32::MAX));
            }
            Err(_) => {
                let units = s.to_vec();
                t.lens
                    .push(-(i32::try_from(units.len()).unwrap_or(i32::MAX - 1)) - 1);
                t.wide.extend_from_slice(&units);
            }
        }
    }

    /// Writes `key` (its number, or -1 and its text the first time), charged as the
    /// reference charges it.
    fn key(&mut self, key: &JsString) -> Option<Key> {
        let known = self.lists.keys.get(key).copied();
        let k = match known {
            Some(k) => {
                self.body.ops.push(f64::from(k.id));
                k
            }
            None => {
                let k = Key {
                    id: u32::try_from(self.lists.keys.len()).ok()?,
                    bytes: utf8_len(key),
                };
                self.lists.keys.insert(key.clone(), k);
                self.body.ops.push(-1.0);
                self.str(key);
                k
            }
        };
        self.charge(k.bytes)?;
        Some(k)
    }

    fn value(&mut self, v: &JsValue, depth: usize) -> Option<()> {
        self.charge(8)?;
        match v.variant() {
            JsVariant::Undefined => self.body.ops.push(value::UNDEFINED),
            JsVariant::Null => self.body.ops.push(value::NULL),
            JsVariant::Boolean(b) => self
                .body
                .ops
                .push(if b { value::TRUE } else { value::FALSE }),
            JsVariant::Integer32(i) => self.body.ops.extend([value::NUMBER, f64::from(i)]),
            JsVariant::Float64(f) => self.body.ops.extend([value::NUMBER, f]),
            JsVariant::BigInt(b) => {
                let s = b.to_string();
                self.charge(s.len())?;
                self.body.ops.push(value::BIGINT);
                self.str(&JsString::from(s.as_str()));
            }
            JsVariant::String(s) => {
                self.charge(s.len() * 2)?;
                self.body.ops.push(value::STRING);
                self.str(&s);
            }
            JsVariant::Symbol(_) => return None,
            JsVariant::Object(o) => {
                let id = self.object(&o, depth)?;
                self.body.ops.extend([value::OBJECT, f64::from(id)]);
            }
        }
        Some(())
    }

    fn object(&mut self, o: &JsObject, depth: usize) -> Option<u32> {
        if let Some(id) = self.lists.seen.get(o) {
            return Some(*id);
        }
        if depth > self.limits.max_depth || self.lists.seen.len() >= self.limits.max_objects {
            return None;
        }
        let token = self.captured.modules.as_ref().and_then(|m| m.token_of(o));
        if token.is_some() || o.is::<Proxy>() || o.is_callable() {
            return None;
        }
        let fill = if o.is::<OrdinaryObject>() {
            self.lists.head.push(kind::PLAIN);
            Fill::Plain
        } else if o.is_array() {
            // No guest code runs here, so the length now is the length when it is filled.
            let length = array_length(o, self.context);
            self.lists.head.extend([kind::ARRAY, f64::from(length)]);
            Fill::Array
        } else if JsMap::from_object(o.clone()).is_ok() {
            self.lists.head.push(kind::MAP);
            Fill::Map
        } else if JsSet::from_object(o.clone()).is_ok() {
            self.lists.head.push(kind::SET);
            Fill::Set
        } else if let Ok(date) = JsDate::from_object(o.clone()) {
            let t = date
                .get_time(self.context)
                .ok()?
                .as_number()
                .unwrap_or(f64::NAN);
            self.lists.head.extend([kind::DATE, t]);
            return Some(self.reserve(o));
        } else {
            return None;
        };
        let id = self.reserve(o);
        self.lists.tasks.push((o.clone(), id, fill, depth));
        Some(id)
    }

    fn reserve(&mut self, o: &JsObject) -> u32 {
        let id = self.lists.seen.len() as u32;
        self.lists.seen.insert(o.clone(), id);
        id
    }

    fn fill(&mut self, o: &JsObject, id: u32, fill: Fill, depth: usize) -> Option<()> {
        let mut values = std::mem::take(&mut self.lists.values);
        self.fill_with(o, id, fill, depth, &mut values)?;
        self.lists.values = values;
        Some(())
    }

    fn fill_with(
        &mut self,
        o: &JsObject,
        id: u32,
        fill: Fill,
        depth: usize,
        values: &mut Vec<JsValue>,
    ) -> Option<()> {
        self.blocks += 1;
        self.body.ops.push(f64::from(id));
        match fill {
            Fill::Plain => {
                if let Some((addr, keys, written)) = self.by_shape(o, values) {
                    self.body.ops.push(keys.len() as f64);
                    if let Some(written) = written {
                        for (key, v) in written.iter().zip(values.iter()) {
                            self.body.ops.push(f64::from(key.id));
                            self.charge(key.bytes)?;
                            self.value(v, depth + 1)?;
                        }
                        return Some(());
                    }
                    let mut ids = Vec::with_capacity(keys.len());
                    for (key, v) in keys.iter().zip(values.iter()) {
                        ids.push(self.key(key)?);
                        self.value(v, depth + 1)?;
                    }
                    if let Some(entry) = self.lists.shapes.get_mut(&addr) {
                        entry.written = Some(ids.into());
                    }
                    return Some(());
                }
                let entries = enumerable_data(o)?;
                self.body.ops.push(entries.len() as f64);
                for (key, v) in &entries {
                    self.key(&key_string(key))?;
                    self.value(v, depth + 1)?;
                }
            }
            Fill::Array => {
                if dense_elements_into(o, values) {
                    self.body.ops.push(values.len() as f64);
                    for (i, v) in (0u32..).zip(values.iter()) {
                        self.body.ops.push(f64::from(i));
                        self.value(v, depth + 1)?;
                    }
                    self.body.ops.push(0.0);
                    return Some(());
                }
                let mut elements = Vec::new();
                let mut extra = Vec::new();
                for (key, v) in enumerable_data(o)? {
                    match key {
                        PropertyKey::Index(i) => elements.push((i.get(), v)),
                        key => extra.push((key_string(&key), v)),
                    }
                }
                self.body.ops.push(elements.len() as f64);
                for (i, v) in &elements {
                    self.body.ops.push(f64::from(*i));
                    self.value(v, depth + 1)?;
                }
                self.body.ops.push(extra.len() as f64);
                for (key, v) in &extra {
                    self.key(key)?;
                    self.value(v, depth + 1)?;
                }
            }
            Fill::Map => {
                let mut raw = Vec::new();
                JsMap::from_object(o.clone())
                    .ok()?
                    .for_each_native(|k, v| {
                        raw.push((k, v));
                        Ok(())
                    })
                    .ok()?;
                self.body.ops.push(raw.len() as f64);
                for (k, v) in &raw {
                    self.value(k, depth + 1)?;
                    self.value(v, depth + 1)?;
                }
            }
            Fill::Set => {
                let mut raw = Vec::new();
                JsSet::from_object(o.clone())
                    .ok()?
                    .for_each_native(|v| {
                        raw.push(v);
                        Ok(())
                    })
                    .ok()?;
                self.body.ops.push(raw.len() as f64);
                for v in &raw {
                    self.value(v, depth + 1)?;
                }
            }
        }
        Some(())
    }

    /// A plain object's keys and values from its shared shape, as the reference reads
    /// them (`Walker::entries_by_shape`), with the shape's address and its keys' numbers
    /// once written; `None` for any other object.
    fn by_shape(&mut self, o: &JsObject, out: &mut Vec<JsValue>) -> Option<ByShape> {
        let object = o.borrow();
        let properties = object.properties();
        let (shape, values) = properties.shape_and_values()?;
        if !shape.is_shared() {
            return None;
        }
        let addr = shape.to_addr_usize();
        let entry = self.lists.shapes.entry(addr).or_insert_with(|| ShapeEntry {
            _held: shape.clone(),
            keys: data_keys(properties, values.len())
                .map(|keys| keys.iter().map(key_string).collect()),
            written: None,
        });
        let keys = entry.keys.clone()?;
        out.clear();
        out.extend_from_slice(values);
        Some((addr, keys, entry.written.clone()))
    }
}

/// An object's own enumerable properties, as the reference reads them, when all are data
/// properties; `None` if one is an accessor, whose getter only the reference may run.
fn enumerable_data(o: &JsObject) -> Option<Vec<(PropertyKey, JsValue)>> {
    enumerable_entries(o)
        .into_iter()
        .map(|(key, v)| v.map(|v| (key, v)))
        .collect()
}

/// A key as a string: an index in decimal (a symbol never reaches here: the property
/// maps' string and index keys are all there is).
fn key_string(key: &PropertyKey) -> JsString {
    match key {
        PropertyKey::String(s) => s.clone(),
        PropertyKey::Index(i) => JsString::from(i.get().to_string().as_str()),
        PropertyKey::Symbol(_) => JsString::default(),
    }
}

/// The size the reference charges for a key ([`crate::value::Text::byte_len`]): UTF-8
/// bytes, or two per unit for text with lone surrogates.
fn utf8_len(s: &JsString) -> usize {
    if let JsStrVariant::Latin1(bytes) = s.as_str().variant() {
        // Latin-1 is always well formed: one UTF-8 byte below 0x80, two from there.
        return bytes.len() + bytes.iter().filter(|b| **b >= 0x80).count();
    }
    match s.to_std_string() {
        Ok(text) => text.len(),
        Err(_) => s.len() * 2,
    }
}

#[cfg(test)]
#[path = "guest_tape_tests.rs"]
mod tests;
