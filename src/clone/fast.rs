//! Host tapes → guest values in one pass, with no graph in between.
//!
//! The reference is [`host_tape::decode`](super::host_tape::decode) then
//! [`to_guest`](super::to_guest): this builds the same guest values, by the same helpers,
//! for the values models are made of. It gives up (`None`) on anything else and wherever
//! the reference would fail: a cap, a value the walk refused, an error object, a buffer or
//! view, a malformed tape, an engine error. The caller then runs the reference, which
//! decides every error and its path. So nothing here reports an error, and a tape is either
//! built exactly as the reference builds it or not at all. (What it gave up on is garbage
//! no guest code has seen.)
//!
//! It charges what the decoder charges and checks the depth and object count where the
//! decoder checks them. The checks are monotone (a running total, a count, each object's
//! own depth), so it fails one exactly when the decoder would.

use boa_engine::object::builtins::{JsArray, JsMap, JsSet};
use boa_engine::{Context, JsObject, JsStr, JsString, JsValue};

use super::host_tape::{Cursor, HostTape, Str};
use super::to_guest::{Layouts, bigint, insert_element, insert_extra, set_length, shell};
use super::{Emptied, KEPT_MAX};
use crate::value::{CloneLimits, Object, Text};

/// The guest arguments `tape` holds (a dense array, which nothing in it refers to), built
/// as [`to_guest_args`](super::to_guest_args) builds them from the decoded graph; `None`
/// to take that path.
pub fn args(
    tape: &HostTape<'_>,
    limits: CloneLimits,
    context: &mut Context,
) -> Option<Vec<JsValue>> {
    let mut b = Builder::new(tape, limits, context);
    // The root: a new array, never made in the guest.
    b.charge(8)?;
    if b.num()? as u8 != 8 || b.limits.max_objects == 0 || b.num()? as u8 != 1 {
        return None;
    }
    let length = b.num()? as u32;
    b.lists.objects.push(None);
    // Its entries are the first the tape fills: `length` index entries, in order.
    if b.count()? != length as usize {
        return None;
    }
    // Each entry takes at least three ops, so a tape cannot make this reserve more than it holds.
    let mut list = Vec::with_capacity((length as usize).min(b.cur.remaining() / 3));
    for i in 0..length {
        if b.num()? != 1.0 || b.num()? as u32 != i {
            return None;
        }
        list.push(b.value(1)?);
    }
    b.run()?;
    b.keep();
    Some(list)
}

/// The guest value `tape` holds, built as [`to_guest`](super::to_guest) builds it from the
/// decoded graph; `None` to take that path.
pub fn value(tape: &HostTape<'_>, limits: CloneLimits, context: &mut Context) -> Option<JsValue> {
    let mut b = Builder::new(tape, limits, context);
    let root = b.value(0)?;
    b.run()?;
    b.keep();
    Some(root)
}

/// An object waiting for its contents, in the order the tape gives them.
enum Fill {
    Plain,
    Array(u32),
    Map,
    Set,
}

thread_local! {
    /// What a build works in, kept (empty) between builds: a small value's build grew each
    /// list again from nothing. A build that gives up drops its own.
    static KEPT: std::cell::Cell<Lists> = std::cell::Cell::default();
}

/// A [`Builder`]'s lists, kept between builds.
#[derive(Default)]
struct Lists {
    /// The tape's objects by id (`None`: the argument list, which is not made).
    objects: Vec<Option<JsObject>>,
    tasks: Vec<(JsObject, Fill, usize)>,
    /// Key ids are the tape's: keys in the order first seen. Their UTF-8 sizes, as charged.
    layouts: Layouts,
    key_bytes: Vec<usize>,
    ids: Vec<u32>,
    /// An array's leading elements, one buffer for all arrays (fills do not nest).
    run: Vec<JsValue>,
}

struct Builder<'a, 'c> {
    limits: CloneLimits,
    context: &'c mut Context,
    cur: Cursor<'a>,
    bytes: usize,
    lists: Lists,
}

impl<'a, 'c> Builder<'a, 'c> {
    fn new(tape: &HostTape<'a>, limits: CloneLimits, context: &'c mut Context) -> Self {
        Self {
            limits,
            context,
            cur: Cursor::new(tape),
            bytes: 0,
            lists: KEPT.take(),
        }
    }

    /// Empties the lists (the objects are the guest's now; the layouts hold this realm's
    /// shapes, and the next build may be another realm's) and keeps them for the next.
    fn keep(self) {
        let mut lists = self.lists;
        lists.objects.empty(KEPT_MAX);
        lists.tasks.empty(KEPT_MAX);
        lists.layouts.empty(KEPT_MAX);
        lists.key_bytes.empty(KEPT_MAX);
        lists.ids.empty(KEPT_MAX);
        lists.run.empty(KEPT_MAX);
        KEPT.set(lists);
    }

    fn num(&mut self) -> Option<f64> {
        self.cur.num()
    }

    fn count(&mut self) -> Option<usize> {
        Some(self.num()? as usize)
    }

    fn charge(&mut self, n: usize) -> Option<()> {
        self.bytes = self.bytes.saturating_add(n);
        (self.bytes <= self.limits.max_bytes).then_some(())
    }

    /// The next string, its length in UTF-16 units, and its size as the decoder charges a
    /// key ([`Text::byte_len`]).
    fn string(&mut self) -> Option<(JsString, usize, usize)> {
        Some(match self.cur.string()? {
            // Data, seldom one of Boa's static strings: made without looking it up among them.
            Str::Text(s, units) if s.is_ascii() => (
                JsString::from_str_uninterned(JsStr::latin1(s.as_bytes())),
                units,
                s.len(),
            ),
            Str::Text(s, units) => (JsString::from(s), units, s.len()),
            Str::Wide(units) => match String::from_utf16(units) {
                Ok(s) => (JsString::from(s.as_str()), units.len(), s.len()),
                Err(_) => (JsString::from(units), units.len(), units.len() * 2),
            },
        })
    }

    /// A string read as the decoder's `text()` reads it, for the rare kinds.
    fn text(&mut self) -> Option<Text> {
        Some(self.cur.string()?.text())
    }

    fn key(&mut self) -> Option<u32> {
        let id = self.num()?;
        if id >= 0.0 {
            let id = id as usize;
            self.charge(*self.lists.key_bytes.get(id)?)?;
            return u32::try_from(id).ok();
        }
        let (key, _, bytes) = self.string()?;
        self.charge(bytes)?;
        self.lists.layouts.strings.push(key);
        self.lists.key_bytes.push(bytes);
        u32::try_from(self.lists.key_bytes.len() - 1).ok()
    }

    /// A value at `depth`.
    fn value(&mut self, depth: usize) -> Option<JsValue> {
        self.charge(8)?;
        let op = self.num()?;
        Some(match op as u8 {
            0 => JsValue::undefined(),
            1 => JsValue::null(),
            2 => JsValue::from(false),
            3 => JsValue::from(true),
            4 => JsValue::from(self.num()?),
            5 => {
                let s = self.text()?.to_lossy();
                self.charge(s.len())?;
                JsValue::from(bigint(&s).ok()?)
            }
            6 => {
                let (s, units, _) = self.string()?;
                self.charge(units * 2)?;
                JsValue::from(s)
            }
            7 => {
                let id = self.num()? as u32;
                self.lists.objects.get(id as usize)?.clone()?.into()
            }
            8 => self.object(depth)?.into(),
            _ => return None,
        })
    }

    /// A new object at `depth`: made now, filled when the tape reaches its contents.
    fn object(&mut self, depth: usize) -> Option<JsObject> {
        if depth > self.limits.max_depth || self.lists.objects.len() >= self.limits.max_objects {
            return None;
        }
        let (object, fill) = match self.num()? as u8 {
            0 => (Object::Plain(Vec::new()), Some(Fill::Plain)),
            1 => {
                let length = self.num()? as u32;
                let array = Object::Array {
                    length,
                    elements: Vec::new(),
                    extra: Vec::new(),
                };
                (array, Some(Fill::Array(length)))
            }
            2 => (Object::Map(Vec::new()), Some(Fill::Map)),
            3 => (Object::Set(Vec::new()), Some(Fill::Set)),
            5 => (Object::Date(self.num()?), None),
            6 => {
                let source = self.text()?;
                let flags = self.text()?.to_lossy();
                self.charge(source.byte_len() + flags.len())?;
                (Object::RegExp { source, flags }, None)
            }
            8 => (Object::BooleanObject(self.num()? == 1.0), None),
            9 => (Object::NumberObject(self.num()?), None),
            10 => {
                let t = self.text()?;
                self.charge(t.byte_len())?;
                (Object::StringObject(t), None)
            }
            11 => (Object::BigIntObject(self.text()?.to_lossy()), None),
            // Errors are filled when they are made, buffers are the host's and views need
            // their bounds checked: the reference's.
            _ => return None,
        };
        let made = shell(&object, &mut self.lists.layouts, self.context).ok()?;
        self.lists.objects.push(Some(made.clone()));
        if let Some(fill) = fill {
            self.lists.tasks.push((made.clone(), fill, depth));
        }
        Some(made)
    }

    /// Fills the objects made so far and those they reach, last made first.
    fn run(&mut self) -> Option<()> {
        while let Some((target, fill, depth)) = self.lists.tasks.pop() {
            match fill {
                Fill::Plain => self.plain(&target, depth)?,
                Fill::Array(length) => self.array(&target, length, depth)?,
                Fill::Map => {
                    let map = JsMap::from_object(target).ok()?;
                    while self.more()? {
                        let k = self.value(depth + 1)?;
                        let v = self.value(depth + 1)?;
                        map.set(k, v, self.context).ok()?;
                    }
                }
                Fill::Set => {
                    let set = JsSet::from_object(target).ok()?;
                    while self.more()? {
                        let v = self.value(depth + 1)?;
                        set.add(v, self.context).ok()?;
                    }
                }
            }
        }
        Some(())
    }

    /// Whether a map or set has another item; `None` where the walk stopped in it.
    fn more(&mut self) -> Option<bool> {
        match self.num()? as u8 {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn plain(&mut self, target: &JsObject, depth: usize) -> Option<()> {
        let n = self.count()?;
        let mut ids = std::mem::take(&mut self.lists.ids);
        ids.clear();
        let mut values = Vec::with_capacity(n.min(self.cur.remaining() / 2));
        for _ in 0..n {
            ids.push(self.key()?);
            values.push(self.value(depth + 1)?);
        }
        self.lists.layouts.fill(target, &ids, values, self.context);
        self.lists.ids = ids;
        Some(())
    }

    fn array(&mut self, target: &JsObject, length: u32, depth: usize) -> Option<()> {
        let mut run = std::mem::take(&mut self.lists.run);
        run.clear();
        self.array_with(target, length, depth, &mut run)?;
        self.lists.run = run;
        Some(())
    }

    fn array_with(
        &mut self,
        target: &JsObject,
        length: u32,
        depth: usize,
        run: &mut Vec<JsValue>,
    ) -> Option<()> {
        let n = self.count()?;
        let mut extra = Vec::new();
        // Elements 0, 1, 2... in order, while they come so: laid out in one step at the end
        // if they are all there is. Any other index inserts them, and itself, one by one.
        run.reserve(n.min(length as usize).min(self.cur.remaining() / 3));
        let mut scattered = false;
        for _ in 0..n {
            if self.num()? == 1.0 {
                let index = self.num()? as u32;
                let v = self.value(depth + 1)?;
                if !scattered && index as usize == run.len() && index < length {
                    run.push(v);
                    continue;
                }
                if !scattered {
                    scattered = true;
                    insert_elements(target, run.drain(..), length)?;
                }
                insert_element(target, index, length, v).ok()?;
            } else {
                let key = self.key()?;
                extra.push((key, self.value(depth + 1)?));
            }
        }
        let laid_out = run.len() == length as usize
            && JsArray::from_object(target.clone())
                .ok()?
                .fill_fresh_from(run, self.context);
        if !laid_out {
            insert_elements(target, run.drain(..), length)?;
            set_length(target, length);
        }
        for (key, v) in extra {
            let key = self.lists.layouts.strings.get(key as usize)?.clone();
            insert_extra(target, key, v, self.context).ok()?;
        }
        Some(())
    }
}

/// `values` as elements 0, 1, 2... of `target`, one by one.
fn insert_elements(
    target: &JsObject,
    values: impl Iterator<Item = JsValue>,
    length: u32,
) -> Option<()> {
    for (index, v) in (0..).zip(values) {
        insert_element(target, index, length, v).ok()?;
    }
    Some(())
}

#[cfg(test)]
#[path = "fast_tests.rs"]
pub(crate) mod tests;
