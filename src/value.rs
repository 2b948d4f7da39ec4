//! The boundary value model: what a structured clone carries, with no engine objects in it.
//!
//! Objects live in an arena and are referenced by index, so cycles and shared references
//! survive the crossing and no conversion ever recurses on the native stack.

use std::collections::hash_map::Entry;
use std::rc::Rc;

use rustc_hash::FxHashMap;

/// A string as JS sees it: UTF-16, possibly with lone surrogates.
///
/// Invariant: `Utf16` is only used when the text is not valid UTF-16, so derived
/// equality is semantic equality.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Text {
    /// Well-formed text (shared: a key repeated across a model is one allocation).
    Utf8(Rc<str>),
    /// Text with lone surrogates.
    Utf16(Vec<u16>),
}

impl Text {
    /// From UTF-16 code units, keeping lone surrogates.
    #[must_use]
    pub fn from_utf16(units: &[u16]) -> Self {
        match String::from_utf16(units) {
            Ok(s) => Text::Utf8(s.into()),
            Err(_) => Text::Utf16(units.to_vec()),
        }
    }

    /// Size in bytes, for the clone size cap.
    #[must_use]
    pub fn byte_len(&self) -> usize {
        match self {
            Text::Utf8(s) => s.len(),
            Text::Utf16(u) => u.len() * 2,
        }
    }

    /// Lossy display form, for paths and messages.
    #[must_use]
    pub fn to_lossy(&self) -> String {
        match self {
            Text::Utf8(s) => (**s).to_owned(),
            Text::Utf16(u) => String::from_utf16_lossy(u),
        }
    }
}

/// Numbers a graph's distinct keys, in the order first seen. A clone of a key seen before
/// shares its storage and is found by address; any other key is found by its text.
#[derive(Debug, Default)]
pub struct KeyIds<'g> {
    by_addr: FxHashMap<usize, u32>,
    by_text: FxHashMap<&'g Text, u32>,
}

impl<'g> KeyIds<'g> {
    /// The id of `key`, and whether it is new.
    pub fn id(&mut self, key: &'g Text) -> (u32, bool) {
        let addr = match key {
            Text::Utf8(s) => s.as_ptr() as usize,
            Text::Utf16(u) => u.as_ptr() as usize,
        };
        if let Some(id) = self.by_addr.get(&addr) {
            return (*id, false);
        }
        let next = u32::try_from(self.by_text.len()).unwrap_or(u32::MAX);
        let (id, new) = match self.by_text.entry(key) {
            Entry::Occupied(id) => (*id.get(), false),
            Entry::Vacant(slot) => (*slot.insert(next), true),
        };
        self.by_addr.insert(addr, id);
        (id, new)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text::Utf8(s.into())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::Utf8(s.into())
    }
}

/// Index of an object in a [`Graph`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObjId(pub u32);

/// A value: a primitive or a reference into the graph's arena.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `undefined`
    Undefined,
    /// `null`
    Null,
    /// A boolean.
    Bool(bool),
    /// A number, including `-0` and `NaN`.
    Number(f64),
    /// A BigInt, as its decimal string (with a leading `-` when negative).
    BigInt(String),
    /// A string.
    String(Text),
    /// An object in the arena.
    Object(ObjId),
}

impl Value {
    /// Convenience for tests and hosts.
    #[must_use]
    pub fn str(s: &str) -> Self {
        Value::String(Text::from(s))
    }
}

/// The standard error constructors a clone may carry; anything else clones as `Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorName {
    /// `Error`
    Error,
    /// `EvalError`
    EvalError,
    /// `RangeError`
    RangeError,
    /// `ReferenceError`
    ReferenceError,
    /// `SyntaxError`
    SyntaxError,
    /// `TypeError`
    TypeError,
    /// `URIError`
    UriError,
}

impl ErrorName {
    /// Every kind, for tables.
    pub const ALL: [ErrorName; 7] = [
        ErrorName::Error,
        ErrorName::EvalError,
        ErrorName::RangeError,
        ErrorName::ReferenceError,
        ErrorName::SyntaxError,
        ErrorName::TypeError,
        ErrorName::UriError,
    ];

    /// Parse a `name` property the way HTML's serializer does: unknown names become `Error`.
    #[must_use]
    pub fn from_name(name: &str) -> Self {
        match name {
            "EvalError" => ErrorName::EvalError,
            "RangeError" => ErrorName::RangeError,
            "ReferenceError" => ErrorName::ReferenceError,
            "SyntaxError" => ErrorName::SyntaxError,
            "TypeError" => ErrorName::TypeError,
            "URIError" => ErrorName::UriError,
            _ => ErrorName::Error,
        }
    }

    /// The constructor name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorName::Error => "Error",
            ErrorName::EvalError => "EvalError",
            ErrorName::RangeError => "RangeError",
            ErrorName::ReferenceError => "ReferenceError",
            ErrorName::SyntaxError => "SyntaxError",
            ErrorName::TypeError => "TypeError",
            ErrorName::UriError => "URIError",
        }
    }
}

/// Typed array element kinds (and `DataView`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// `Int8Array`
    Int8,
    /// `Uint8Array`
    Uint8,
    /// `Uint8ClampedArray`
    Uint8Clamped,
    /// `Int16Array`
    Int16,
    /// `Uint16Array`
    Uint16,
    /// `Int32Array`
    Int32,
    /// `Uint32Array`
    Uint32,
    /// `Float32Array`
    Float32,
    /// `Float64Array`
    Float64,
    /// `BigInt64Array`
    BigInt64,
    /// `BigUint64Array`
    BigUint64,
    /// `DataView`
    DataView,
}

impl ViewKind {
    /// Every kind, for tables.
    pub const ALL: [ViewKind; 12] = [
        ViewKind::Int8,
        ViewKind::Uint8,
        ViewKind::Uint8Clamped,
        ViewKind::Int16,
        ViewKind::Uint16,
        ViewKind::Int32,
        ViewKind::Uint32,
        ViewKind::Float32,
        ViewKind::Float64,
        ViewKind::BigInt64,
        ViewKind::BigUint64,
        ViewKind::DataView,
    ];

    /// The constructor name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ViewKind::Int8 => "Int8Array",
            ViewKind::Uint8 => "Uint8Array",
            ViewKind::Uint8Clamped => "Uint8ClampedArray",
            ViewKind::Int16 => "Int16Array",
            ViewKind::Uint16 => "Uint16Array",
            ViewKind::Int32 => "Int32Array",
            ViewKind::Uint32 => "Uint32Array",
            ViewKind::Float32 => "Float32Array",
            ViewKind::Float64 => "Float64Array",
            ViewKind::BigInt64 => "BigInt64Array",
            ViewKind::BigUint64 => "BigUint64Array",
            ViewKind::DataView => "DataView",
        }
    }

    /// From a constructor name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Bytes per element (1 for `DataView`, whose length is in bytes).
    #[must_use]
    pub const fn element_size(self) -> usize {
        match self {
            ViewKind::Int8 | ViewKind::Uint8 | ViewKind::Uint8Clamped | ViewKind::DataView => 1,
            ViewKind::Int16 | ViewKind::Uint16 => 2,
            ViewKind::Int32 | ViewKind::Uint32 | ViewKind::Float32 => 4,
            ViewKind::Float64 | ViewKind::BigInt64 | ViewKind::BigUint64 => 8,
        }
    }
}

/// An object in the arena.
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    /// A plain object: own enumerable string keys, in order.
    Plain(Vec<(Text, Value)>),
    /// An array: its length, its present elements (sparse, ascending), other own enumerable keys.
    Array {
        /// `length`
        length: u32,
        /// Present elements by index; absent indices are holes.
        elements: Vec<(u32, Value)>,
        /// Non-index own enumerable string keys.
        extra: Vec<(Text, Value)>,
    },
    /// A `Map`, entries in order.
    Map(Vec<(Value, Value)>),
    /// A `Set`, values in order.
    Set(Vec<Value>),
    /// A `Date` by time value.
    Date(f64),
    /// A `RegExp`.
    RegExp {
        /// `source`
        source: Text,
        /// `flags`
        flags: String,
    },
    /// An error.
    Error {
        /// Constructor kind.
        name: ErrorName,
        /// Own `message`, if it is a data property.
        message: Option<Text>,
        /// The stack as a string.
        stack: Option<Text>,
        /// Own `cause`, if any.
        cause: Option<Value>,
    },
    /// An `ArrayBuffer`'s bytes.
    ArrayBuffer(Vec<u8>),
    /// A typed array or `DataView` over a buffer in the graph.
    View {
        /// Which view.
        kind: ViewKind,
        /// The `ArrayBuffer` it views.
        buffer: ObjId,
        /// Offset in bytes.
        byte_offset: usize,
        /// Length in elements (bytes for `DataView`).
        length: usize,
    },
    /// `new Boolean(b)`
    BooleanObject(bool),
    /// `new Number(n)`
    NumberObject(f64),
    /// `new String(s)`
    StringObject(Text),
    /// `Object(1n)`
    BigIntObject(String),
    /// A genuine token of a trusted module export (recognised by identity in the realm that
    /// issued it). Only ever produced leaving the guest; arriving, it is plain data.
    Token {
        /// The trusted module's specifier.
        module: String,
        /// The export name.
        export: String,
    },
}

/// A cloned value with its object arena.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// The value itself.
    pub root: Value,
    /// Objects referenced from `root`, by index.
    pub objects: Vec<Object>,
}

impl Object {
    /// Whether objects of this kind have contents beyond their kind's own arguments (keys,
    /// elements, entries, an error's stack and cause), filled after every object is made.
    #[must_use]
    pub fn has_contents(&self) -> bool {
        matches!(
            self,
            Object::Plain(_)
                | Object::Array { .. }
                | Object::Map(_)
                | Object::Set(_)
                | Object::Error { .. }
        )
    }
}

impl Graph {
    /// A graph holding only a primitive.
    #[must_use]
    pub fn primitive(root: Value) -> Self {
        Self {
            root,
            objects: Vec::new(),
        }
    }

    /// `undefined`.
    #[must_use]
    pub fn undefined() -> Self {
        Self::primitive(Value::Undefined)
    }

    /// Adds an object and returns its id.
    pub fn push(&mut self, object: Object) -> ObjId {
        let id = ObjId(u32::try_from(self.objects.len()).unwrap_or(u32::MAX));
        self.objects.push(object);
        id
    }

    /// The object behind `id`, if it exists.
    #[must_use]
    pub fn get(&self, id: ObjId) -> Option<&Object> {
        self.objects.get(id.0 as usize)
    }
}

/// Caps that bound every conversion, whichever direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloneLimits {
    /// Deepest nesting of objects.
    pub max_depth: usize,
    /// Most objects in one value.
    pub max_objects: usize,
    /// Most bytes (strings, buffers, roughly 8 per primitive) in one value.
    pub max_bytes: usize,
}

impl Default for CloneLimits {
    fn default() -> Self {
        Self {
            max_depth: 1_000,
            max_objects: 1_000_000,
            max_bytes: 64 * 1024 * 1024,
        }
    }
}

/// A path into a value, as a parent-linked list: extending it is O(1), and it is only
/// rendered when an error needs it.
#[derive(Debug, Clone, Default)]
pub struct Path(Option<Rc<PathNode>>);

#[derive(Debug)]
struct PathNode {
    parent: Path,
    seg: PathSeg,
    depth: usize,
}

/// One step of a path.
#[derive(Debug, Clone)]
pub enum PathSeg {
    /// `.name` or `["odd name"]` (a clone of the key: it shares the key's storage)
    Key(Text),
    /// `[3]`
    Index(u64),
    /// A Map key or value, or a Set value, by position.
    Entry(usize, &'static str),
}

impl Drop for Path {
    // Iterative: a path as deep as the value it walks must not recurse when dropped.
    fn drop(&mut self) {
        let mut next = self.0.take();
        while let Some(rc) = next {
            next = match Rc::try_unwrap(rc) {
                Ok(mut node) => node.parent.0.take(),
                Err(_) => None,
            };
        }
    }
}

impl Path {
    /// The root, `$`.
    #[must_use]
    pub fn root() -> Self {
        Self(None)
    }

    /// A child path.
    #[must_use]
    pub fn child(&self, seg: PathSeg) -> Self {
        let depth = self.depth() + 1;
        Self(Some(Rc::new(PathNode {
            parent: self.clone(),
            seg,
            depth,
        })))
    }

    /// Number of steps from the root.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.0.as_ref().map_or(0, |n| n.depth)
    }

    /// Renders as `$.a[0]["b c"]`.
    #[must_use]
    pub fn render(&self) -> String {
        let mut segs = Vec::with_capacity(self.depth());
        let mut cur = self.0.as_ref();
        while let Some(node) = cur {
            segs.push(&node.seg);
            cur = node.parent.0.as_ref();
        }
        let mut out = String::from("$");
        for seg in segs.into_iter().rev() {
            match seg {
                PathSeg::Key(k) => {
                    let k = k.to_lossy();
                    if is_identifier(&k) {
                        out.push('.');
                        out.push_str(&k);
                        continue;
                    }
                    out.push_str("[\"");
                    out.push_str(&k.replace('\\', "\\\\").replace('"', "\\\""));
                    out.push_str("\"]");
                }
                PathSeg::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
                PathSeg::Entry(i, what) => {
                    out.push_str(&format!("<{what} #{i}>"));
                }
            }
        }
        out
    }
}

/// Where a value sits while a conversion walks it: its parent's path and its own step. A
/// [`Path`] costs an allocation, so one is made only for an error or a nested object.
#[derive(Clone, Copy)]
pub struct At<'a> {
    parent: &'a Path,
    seg: Seg<'a>,
}

/// A step not yet made into a [`PathSeg`].
#[derive(Clone, Copy)]
pub enum Seg<'a> {
    /// The parent itself.
    Here,
    /// `.name`
    Key(&'a Text),
    /// `.name`, for names the walk spells itself (`cause`, `buffer`).
    Name(&'static str),
    /// `[3]`
    Index(u32),
    /// A Map key or value, or a Set value, by position.
    Entry(usize, &'static str),
}

impl<'a> At<'a> {
    /// The value at `parent` itself.
    #[must_use]
    pub fn here(parent: &'a Path) -> Self {
        Self {
            parent,
            seg: Seg::Here,
        }
    }

    /// The value one `seg` below `parent`.
    #[must_use]
    pub fn below(parent: &'a Path, seg: Seg<'a>) -> Self {
        Self { parent, seg }
    }

    /// Number of steps from the root.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.parent.depth() + usize::from(!matches!(self.seg, Seg::Here))
    }

    /// The path, made.
    #[must_use]
    pub fn path(&self) -> Path {
        let seg = match self.seg {
            Seg::Here => return self.parent.clone(),
            Seg::Key(t) => PathSeg::Key(t.clone()),
            Seg::Name(n) => PathSeg::Key(n.into()),
            Seg::Index(i) => PathSeg::Index(u64::from(i)),
            Seg::Entry(i, what) => PathSeg::Entry(i, what),
        };
        self.parent.child(seg)
    }

    /// The path, rendered as `$.a[0]`.
    #[must_use]
    pub fn render(&self) -> String {
        self.path().render()
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_js_accessors() {
        let p = Path::root()
            .child(PathSeg::Key("model".into()))
            .child(PathSeg::Index(3))
            .child(PathSeg::Key("odd key".into()));
        assert_eq!(p.render(), "$.model[3][\"odd key\"]");
        let key = Text::from("b c");
        for (at, depth, rendered) in [
            (At::here(&p), 3, "$.model[3][\"odd key\"]"),
            (
                At::below(&p, Seg::Index(7)),
                4,
                "$.model[3][\"odd key\"][7]",
            ),
            (
                At::below(&p, Seg::Key(&key)),
                4,
                "$.model[3][\"odd key\"][\"b c\"]",
            ),
            (
                At::below(&p, Seg::Name("cause")),
                4,
                "$.model[3][\"odd key\"].cause",
            ),
            (
                At::below(&Path::root(), Seg::Entry(2, "key")),
                1,
                "$<key #2>",
            ),
            (At::here(&Path::root()), 0, "$"),
        ] {
            assert_eq!((at.depth(), at.render().as_str()), (depth, rendered));
            assert_eq!(at.path().depth(), depth);
        }
    }

    #[test]
    fn lone_surrogates_are_kept() {
        assert_eq!(Text::from_utf16(&[0x61]), Text::Utf8("a".into()));
        assert_eq!(Text::from_utf16(&[0xD800]), Text::Utf16(vec![0xD800]));
    }
}
