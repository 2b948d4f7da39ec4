//! Host tapes → boundary graphs. The host side walks its value into a tape of numbers and
//! one string (`walk_value` in `src/bindings/walk.rs`, which documents the ops); the graph is
//! decoded from that tape here, where every cap, path and error is decided.

use crate::error::{Limit, SandboxError};
use crate::value::{
    At, CloneLimits, ErrorName, Graph, ObjId, Object, Path, Seg, Text, Value, ViewKind,
};

/// A walked host value: the tape, the joined well-formed text, the units of text with lone
/// surrogates, and the walk's `ArrayBuffer`s by index (copied only once charged).
pub struct HostTape<'a> {
    /// Ops, counts and numbers.
    pub ops: &'a [f64],
    /// Every well-formed string, joined.
    pub text: &'a str,
    /// Strings with lone surrogates, joined.
    pub wide: &'a [u16],
    /// The contents of the walk's `ArrayBuffer` number `i`.
    pub buffer: &'a dyn Fn(usize) -> Option<Vec<u8>>,
}

impl HostTape<'_> {
    /// Whether the root is a new array (ops 8, then kind 1), as an argument list must be.
    #[must_use]
    pub fn root_is_array(&self) -> bool {
        self.ops.get(..2) == Some(&[8.0, 1.0][..])
    }
}

/// Decodes `tape` into a graph.
///
/// # Errors
/// `SANDBOX_NOT_CLONEABLE` with the path for a value the walk refused or a getter that
/// threw, or a malformed tape; `SANDBOX_LIMIT_EXCEEDED` over a cap.
pub fn decode(tape: &HostTape<'_>, limits: CloneLimits) -> Result<Graph, SandboxError> {
    let mut d = Decoder {
        limits,
        graph: Graph::undefined(),
        tasks: Vec::new(),
        bytes: 0,
        cur: Cursor::new(tape),
        buffer: tape.buffer,
        keys: Vec::new(),
    };
    let root = d.value(At::here(&Path::root()))?;
    while let Some((id, path)) = d.tasks.pop() {
        d.fill(id, &path)?;
    }
    d.graph.root = root;
    Ok(d.graph)
}

/// A reader of a host tape: its ops in order, and its strings as they come.
pub(crate) struct Cursor<'a> {
    ops: &'a [f64],
    p: usize,
    text: &'a str,
    at: usize,
    wide: &'a [u16],
    w: usize,
}

/// A string of a host tape, as stored.
pub(crate) enum Str<'a> {
    /// Well-formed text, and its length in UTF-16 units.
    Text(&'a str, usize),
    /// UTF-16 units with lone surrogates.
    Wide(&'a [u16]),
}

impl Str<'_> {
    /// As boundary text.
    pub(crate) fn text(&self) -> Text {
        match self {
            Str::Text(s, _) => Text::Utf8((*s).into()),
            Str::Wide(units) => Text::from_utf16(units),
        }
    }
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(tape: &HostTape<'a>) -> Self {
        Self {
            ops: tape.ops,
            p: 0,
            text: tape.text,
            at: 0,
            wide: tape.wide,
            w: 0,
        }
    }

    pub(crate) fn num(&mut self) -> Option<f64> {
        let n = self.ops.get(self.p).copied()?;
        self.p += 1;
        Some(n)
    }

    /// How many ops are left.
    pub(crate) fn remaining(&self) -> usize {
        self.ops.len().saturating_sub(self.p)
    }

    /// The next string: its length op (`n >= 0` units of the joined text, `-(n + 1)` of
    /// the wide units), then its units.
    pub(crate) fn string(&mut self) -> Option<Str<'a>> {
        let n = self.num()? as i64;
        if n < 0 {
            let m = (-n - 1) as usize;
            let units = self.wide.get(self.w..self.w.checked_add(m)?)?;
            self.w += m;
            return Some(Str::Wide(units));
        }
        // `n` UTF-16 units of the joined text, which is well-formed.
        let n = n as usize;
        let rest = self.text.get(self.at..)?;
        // Most text is ASCII: one byte per unit, nothing to decode.
        if let Some(ascii) = rest.get(..n).filter(|s| s.is_ascii()) {
            self.at += n;
            return Some(Str::Text(ascii, n));
        }
        let (mut units, mut end) = (0, 0);
        for c in rest.chars() {
            if units >= n {
                break;
            }
            units += c.len_utf16();
            end += c.len_utf8();
        }
        if units != n {
            return None;
        }
        self.at += end;
        Some(Str::Text(rest.get(..end)?, n))
    }
}

fn over(limit: Limit, what: String, at: At<'_>) -> SandboxError {
    let mut e = SandboxError::limit(limit, what);
    e.details.path = Some(at.render());
    e
}

pub(crate) fn malformed() -> SandboxError {
    SandboxError::not_cloneable("$", "value the host walk could not describe")
}

struct Decoder<'a> {
    limits: CloneLimits,
    graph: Graph,
    tasks: Vec<(ObjId, Path)>,
    bytes: usize,
    cur: Cursor<'a>,
    buffer: &'a dyn Fn(usize) -> Option<Vec<u8>>,
    keys: Vec<Text>,
}

impl Decoder<'_> {
    fn num(&mut self) -> Result<f64, SandboxError> {
        self.cur.num().ok_or_else(malformed)
    }

    fn index(&mut self) -> Result<usize, SandboxError> {
        Ok(self.num()? as usize)
    }

    fn text(&mut self) -> Result<Text, SandboxError> {
        Ok(self.text_units()?.0)
    }

    /// The next string, and its length in UTF-16 units.
    fn text_units(&mut self) -> Result<(Text, usize), SandboxError> {
        let s = self.cur.string().ok_or_else(malformed)?;
        let units = match s {
            Str::Text(_, units) => units,
            Str::Wide(units) => units.len(),
        };
        Ok((s.text(), units))
    }

    /// A property key: an id of one seen before, or -1 and a new one.
    fn key(&mut self) -> Result<Text, SandboxError> {
        let id = self.num()?;
        if id >= 0.0 {
            return self.keys.get(id as usize).cloned().ok_or_else(malformed);
        }
        let name = self.text()?;
        self.keys.push(name.clone());
        Ok(name)
    }

    fn string(&mut self) -> Result<String, SandboxError> {
        Ok(self.text()?.to_lossy())
    }

    fn charge(&mut self, n: usize, at: At<'_>) -> Result<(), SandboxError> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.limits.max_bytes {
            return Err(self.over_bytes(at));
        }
        Ok(())
    }

    fn over_bytes(&self, at: At<'_>) -> SandboxError {
        over(
            Limit::CloneBytes,
            format!(
                "value at {} makes the clone larger than maxCloneBytes ({})",
                at.render(),
                self.limits.max_bytes
            ),
            at,
        )
    }

    /// A value op at `at`, after its charge.
    fn value(&mut self, at: At<'_>) -> Result<Value, SandboxError> {
        self.charge(8, at)?;
        let op = self.num()?;
        Ok(match op as u8 {
            0 => Value::Undefined,
            1 => Value::Null,
            2 => Value::Bool(false),
            3 => Value::Bool(true),
            4 => Value::Number(self.num()?),
            5 => {
                let s = self.string()?;
                self.charge(s.len(), at)?;
                Value::BigInt(s)
            }
            6 => {
                let (t, units) = self.text_units()?;
                self.charge(units * 2, at)?;
                Value::String(t)
            }
            _ => Value::Object(self.object(op, at)?),
        })
    }

    /// An object op (reference, new object, or the walk's stop) at `at`.
    fn object(&mut self, op: f64, at: At<'_>) -> Result<ObjId, SandboxError> {
        match op as u8 {
            7 => return Ok(ObjId(self.num()? as u32)),
            9 => {
                let what = self.string()?;
                return Err(SandboxError::not_cloneable(&at.render(), &what));
            }
            11 => {
                let msg = self.string()?;
                let mut err = SandboxError::not_cloneable(&at.render(), "value whose getter threw");
                err.message = format!("reading {} threw: {msg}", at.render());
                return Err(err);
            }
            _ => {}
        }
        if at.depth() > self.limits.max_depth {
            return Err(over(
                Limit::CloneDepth,
                format!(
                    "value at {} is nested deeper than maxCloneDepth ({})",
                    at.render(),
                    self.limits.max_depth
                ),
                at,
            ));
        }
        if self.graph.objects.len() >= self.limits.max_objects {
            return Err(over(
                Limit::CloneObjects,
                format!(
                    "value at {} has more objects than maxCloneObjects ({})",
                    at.render(),
                    self.limits.max_objects
                ),
                at,
            ));
        }
        if op as u8 != 8 {
            // The walk stopped at a lower bound of the bytes cap.
            return Err(self.over_bytes(at));
        }
        let id = self.graph.push(Object::Plain(Vec::new()));
        let object = match self.num()? as u8 {
            0 => Object::Plain(Vec::new()),
            1 => Object::Array {
                length: self.num()? as u32,
                elements: Vec::new(),
                extra: Vec::new(),
            },
            2 => Object::Map(Vec::new()),
            3 => Object::Set(Vec::new()),
            4 => Object::Error {
                name: ErrorName::Error,
                message: None,
                stack: None,
                cause: None,
            },
            5 => Object::Date(self.num()?),
            6 => {
                let source = self.text()?;
                let flags = self.string()?;
                self.charge(source.byte_len() + flags.len(), at)?;
                Object::RegExp { source, flags }
            }
            7 => {
                let buffer = self.index()?;
                let len = self.index()?;
                self.charge(len, at)?;
                Object::ArrayBuffer((self.buffer)(buffer).ok_or_else(malformed)?)
            }
            8 => Object::BooleanObject(self.num()? == 1.0),
            9 => Object::NumberObject(self.num()?),
            10 => {
                let t = self.text()?;
                self.charge(t.byte_len(), at)?;
                Object::StringObject(t)
            }
            11 => Object::BigIntObject(self.string()?),
            12 => {
                let kind = *ViewKind::ALL.get(self.index()?).ok_or_else(malformed)?;
                let byte_offset = self.index()?;
                let length = self.index()?;
                let op = self.num()?;
                let view = at.path();
                let buffer = self.object(op, At::below(&view, Seg::Name("buffer")))?;
                Object::View {
                    kind,
                    buffer,
                    byte_offset,
                    length,
                }
            }
            _ => return Err(malformed()),
        };
        if object.has_contents() {
            self.tasks.push((id, at.path()));
        }
        self.graph.objects[id.0 as usize] = object;
        Ok(id)
    }

    /// An object's own enumerable entries. An array's index keys come as numbers (flag 1)
    /// and land in `elements`; its other keys as strings (flag 0).
    fn entries(
        &mut self,
        path: &Path,
        array: bool,
        keyed: &mut Vec<(Text, Value)>,
        elements: &mut Vec<(u32, Value)>,
    ) -> Result<(), SandboxError> {
        let n = self.index()?;
        // Sized once (each entry takes at least two ops, so a bad count cannot over-reserve).
        let room = n.min(self.cur.remaining() / 2);
        if array {
            elements.reserve(room);
        } else {
            keyed.reserve(room);
        }
        for _ in 0..n {
            if array && self.num()? == 1.0 {
                let i = self.num()? as u32;
                let value = self.value(At::below(path, Seg::Index(i)))?;
                elements.push((i, value));
                continue;
            }
            let name = self.key()?;
            self.charge(name.byte_len(), At::here(path))?;
            let value = self.value(At::below(path, Seg::Key(&name)))?;
            keyed.push((name, value));
        }
        Ok(())
    }

    fn fill(&mut self, id: ObjId, path: &Path) -> Result<(), SandboxError> {
        let slot = std::mem::replace(
            &mut self.graph.objects[id.0 as usize],
            Object::Plain(Vec::new()),
        );
        let filled = match slot {
            Object::Plain(_) => {
                let mut entries = Vec::new();
                self.entries(path, false, &mut entries, &mut Vec::new())?;
                Object::Plain(entries)
            }
            Object::Array { length, .. } => {
                let mut elements = Vec::new();
                let mut extra = Vec::new();
                self.entries(path, true, &mut extra, &mut elements)?;
                Object::Array {
                    length,
                    elements,
                    extra,
                }
            }
            Object::Map(_) => {
                let mut entries = Vec::new();
                while self.item(path)? {
                    let i = entries.len();
                    let k = self.value(At::below(path, Seg::Entry(i, "key")))?;
                    let v = self.value(At::below(path, Seg::Entry(i, "value")))?;
                    entries.push((k, v));
                }
                Object::Map(entries)
            }
            Object::Set(_) => {
                let mut values = Vec::new();
                while self.item(path)? {
                    let i = values.len();
                    values.push(self.value(At::below(path, Seg::Entry(i, "value")))?);
                }
                Object::Set(values)
            }
            Object::Error { .. } => {
                let name = ErrorName::from_name(&self.string()?);
                let message = self.optional_text(path)?;
                let stack = self.optional_text(path)?;
                let cause = if self.num()? == 1.0 {
                    Some(self.value(At::below(path, Seg::Name("cause")))?)
                } else {
                    None
                };
                Object::Error {
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

    /// Whether a map or set has another item (1) or ended (0); a throw while iterating it.
    fn item(&mut self, path: &Path) -> Result<bool, SandboxError> {
        match self.num()? as u8 {
            0 => Ok(false),
            1 => Ok(true),
            op => self.object(f64::from(op), At::here(path)).map(|_| false),
        }
    }

    fn optional_text(&mut self, path: &Path) -> Result<Option<Text>, SandboxError> {
        if self.num()? != 1.0 {
            return Ok(None);
        }
        let t = self.text()?;
        self.charge(t.byte_len(), At::here(path))?;
        Ok(Some(t))
    }
}
