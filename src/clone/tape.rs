//! A [`Graph`] flattened for the host side: one numeric tape, one string holding every
//! well-formed text, and side buffers. The host builds its value from these in a single
//! call (`build_value` in `src/bindings/convert.rs`) instead of crossing from wasm to JS
//! once per object, property and string.
//!
//! Layout of `ops`, which the JS decoder reads in the same order:
//! - the object count, then per object its kind tag and arguments ([`kind`]);
//! - then the count of contents blocks, and per object of kind plain, array, map, set or
//!   error, a block: the object's index, then its contents (blocks come in any order, so
//!   a writer that walks the guest can write each as it reaches it);
//! - then the root value.
//!
//! A value is a tag ([`value`]) and its payload. A string is taken from `text`/`lens` in
//! order: `lens[i] >= 0` is that many UTF-16 units of `text`; `-(n + 1)` is `n` units of
//! `wide`, for text with lone surrogates (which a Rust `String` cannot hold).
//!
//! A property key is a key id: `k >= 0` is the key first seen as id `k`; `-1` is a new key
//! (the next id), its string following. Models repeat their keys, and the decoder makes
//! each distinct key once.

use crate::value::{ErrorName, Graph, KeyIds, Object, Text, Value, ViewKind};

/// Object kind tags.
#[allow(missing_docs)] // each is named for the kind it tags
pub mod kind {
    pub const PLAIN: f64 = 0.0;
    pub const ARRAY: f64 = 1.0;
    pub const MAP: f64 = 2.0;
    pub const SET: f64 = 3.0;
    pub const DATE: f64 = 4.0;
    pub const REGEXP: f64 = 5.0;
    pub const ERROR: f64 = 6.0;
    pub const ARRAY_BUFFER: f64 = 7.0;
    pub const VIEW: f64 = 8.0;
    pub const TOKEN: f64 = 9.0;
    pub const BOOLEAN: f64 = 10.0;
    pub const NUMBER: f64 = 11.0;
    pub const STRING: f64 = 12.0;
    pub const BIGINT: f64 = 13.0;
}

/// Value tags.
#[allow(missing_docs)] // each is named for the value it tags
pub mod value {
    pub const UNDEFINED: f64 = 0.0;
    pub const NULL: f64 = 1.0;
    pub const FALSE: f64 = 2.0;
    pub const TRUE: f64 = 3.0;
    pub const NUMBER: f64 = 4.0;
    pub const BIGINT: f64 = 5.0;
    pub const STRING: f64 = 6.0;
    pub const OBJECT: f64 = 7.0;
}

/// Error constructors by index, as the decoder's table lists them.
pub const ERROR_NAMES: [ErrorName; 7] = ErrorName::ALL;

/// A flattened graph.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Tape {
    /// Tags, counts, numbers and object indices.
    pub ops: Vec<f64>,
    /// Every well-formed string, concatenated.
    pub text: String,
    /// Per string, in order: its length in UTF-16 units of `text`, or `-(n + 1)` for `n`
    /// units of `wide`.
    pub lens: Vec<i32>,
    /// Strings with lone surrogates, concatenated.
    pub wide: Vec<u16>,
    /// `ArrayBuffer` contents, concatenated.
    pub bytes: Vec<u8>,
}

impl Tape {
    fn num(&mut self, n: f64) {
        self.ops.push(n);
    }

    fn count(&mut self, n: usize) {
        self.ops.push(n as f64);
    }

    fn str(&mut self, s: &str) {
        let units = if s.is_ascii() {
            s.len()
        } else {
            s.chars().map(char::len_utf16).sum()
        };
        self.text.push_str(s);
        self.lens.push(i32::try_from(units).unwrap_or(i32::MAX));
    }

    fn text(&mut self, t: &Text) {
        match t {
            Text::Utf8(s) => self.str(s),
            Text::Utf16(u) => {
                self.wide.extend_from_slice(u);
                self.lens
                    .push(-(i32::try_from(u.len()).unwrap_or(i32::MAX - 1)) - 1);
            }
        }
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Undefined => self.num(value::UNDEFINED),
            Value::Null => self.num(value::NULL),
            Value::Bool(false) => self.num(value::FALSE),
            Value::Bool(true) => self.num(value::TRUE),
            Value::Number(n) => {
                self.num(value::NUMBER);
                self.num(*n);
            }
            Value::BigInt(s) => {
                self.num(value::BIGINT);
                self.str(s);
            }
            Value::String(t) => {
                self.num(value::STRING);
                self.text(t);
            }
            Value::Object(id) => {
                self.num(value::OBJECT);
                self.num(f64::from(id.0));
            }
        }
    }

    /// A flag (1 present, 0 absent), then the text if present.
    fn optional_text(&mut self, t: Option<&Text>) {
        match t {
            Some(t) => {
                self.num(1.0);
                self.text(t);
            }
            None => self.num(0.0),
        }
    }

    fn entries<'g>(&mut self, entries: &'g [(Text, Value)], keys: &mut KeyIds<'g>) {
        self.count(entries.len());
        for (k, v) in entries {
            match keys.id(k) {
                (_, true) => {
                    self.num(-1.0);
                    self.text(k);
                }
                (id, false) => self.num(f64::from(id)),
            }
            self.value(v);
        }
    }
}

fn error_index(name: ErrorName) -> f64 {
    ERROR_NAMES.iter().position(|n| *n == name).unwrap_or(0) as f64
}

fn view_index(kind: ViewKind) -> f64 {
    ViewKind::ALL.iter().position(|k| *k == kind).unwrap_or(0) as f64
}

/// Flattens `graph`.
#[must_use]
pub fn encode(graph: &Graph) -> Tape {
    let mut t = Tape::default();
    t.count(graph.objects.len());
    for object in &graph.objects {
        match object {
            Object::Plain(_) => t.num(kind::PLAIN),
            Object::Array { length, .. } => {
                t.num(kind::ARRAY);
                t.num(f64::from(*length));
            }
            Object::Map(_) => t.num(kind::MAP),
            Object::Set(_) => t.num(kind::SET),
            Object::Date(time) => {
                t.num(kind::DATE);
                t.num(*time);
            }
            Object::RegExp { source, flags } => {
                t.num(kind::REGEXP);
                t.text(source);
                t.str(flags);
            }
            Object::Error { name, message, .. } => {
                t.num(kind::ERROR);
                t.num(error_index(*name));
                t.optional_text(message.as_ref());
            }
            Object::ArrayBuffer(bytes) => {
                t.num(kind::ARRAY_BUFFER);
                t.count(bytes.len());
                t.bytes.extend_from_slice(bytes);
            }
            Object::View {
                kind: view,
                buffer,
                byte_offset,
                length,
            } => {
                t.num(kind::VIEW);
                t.num(view_index(*view));
                t.num(f64::from(buffer.0));
                t.count(*byte_offset);
                t.count(*length);
            }
            Object::Token { module, export } => {
                t.num(kind::TOKEN);
                t.str(module);
                t.str(export);
            }
            Object::BooleanObject(b) => {
                t.num(kind::BOOLEAN);
                t.num(if *b { 1.0 } else { 0.0 });
            }
            Object::NumberObject(n) => {
                t.num(kind::NUMBER);
                t.num(*n);
            }
            Object::StringObject(s) => {
                t.num(kind::STRING);
                t.text(s);
            }
            Object::BigIntObject(s) => {
                t.num(kind::BIGINT);
                t.str(s);
            }
        }
    }
    let mut keys = KeyIds::default();
    let filled = graph.objects.iter().filter(|o| o.has_contents()).count();
    t.count(filled);
    for (id, object) in graph.objects.iter().enumerate() {
        if object.has_contents() {
            t.count(id);
        }
        match object {
            Object::Plain(entries) => t.entries(entries, &mut keys),
            Object::Array {
                elements, extra, ..
            } => {
                t.count(elements.len());
                for (index, v) in elements {
                    t.num(f64::from(*index));
                    t.value(v);
                }
                t.entries(extra, &mut keys);
            }
            Object::Map(entries) => {
                t.count(entries.len());
                for (k, v) in entries {
                    t.value(k);
                    t.value(v);
                }
            }
            Object::Set(values) => {
                t.count(values.len());
                for v in values {
                    t.value(v);
                }
            }
            Object::Error { stack, cause, .. } => {
                t.optional_text(stack.as_ref());
                match cause {
                    Some(c) => {
                        t.num(1.0);
                        t.value(c);
                    }
                    None => t.num(0.0),
                }
            }
            _ => {}
        }
    }
    t.value(&graph.root);
    t
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::value::ObjId;
    use crate::{EvalOptions, Realm, RealmOptions};

    /// The JS decoder's steps, in Rust: a tape that decodes back to its graph proves the
    /// encoder writes everything, in the order the decoder reads it.
    struct Reader<'a> {
        t: &'a Tape,
        p: usize,
        s: usize,
        at: usize,
        w: usize,
        b: usize,
        keys: Vec<Text>,
    }

    impl Reader<'_> {
        fn num(&mut self) -> f64 {
            self.p += 1;
            self.t.ops[self.p - 1]
        }
        fn usize(&mut self) -> usize {
            self.num() as usize
        }
        fn text(&mut self) -> Text {
            let n = self.t.lens[self.s];
            self.s += 1;
            if n >= 0 {
                let units: Vec<u16> = self.t.text.encode_utf16().collect();
                let s = String::from_utf16(&units[self.at..self.at + n as usize]).unwrap();
                self.at += n as usize;
                Text::Utf8(s.into())
            } else {
                let m = (-n - 1) as usize;
                self.w += m;
                Text::Utf16(self.t.wide[self.w - m..self.w].to_vec())
            }
        }
        fn string(&mut self) -> String {
            match self.text() {
                Text::Utf8(s) => s.to_string(),
                Text::Utf16(_) => panic!("a name with lone surrogates"),
            }
        }
        fn value(&mut self) -> Value {
            let tag = self.num();
            match tag {
                value::UNDEFINED => Value::Undefined,
                value::NULL => Value::Null,
                value::FALSE => Value::Bool(false),
                value::TRUE => Value::Bool(true),
                value::NUMBER => Value::Number(self.num()),
                value::BIGINT => Value::BigInt(self.string()),
                value::STRING => Value::String(self.text()),
                value::OBJECT => Value::Object(ObjId(self.num() as u32)),
                other => panic!("value tag {other}"),
            }
        }
        fn key(&mut self) -> Text {
            let id = self.num();
            if id >= 0.0 {
                return self.keys[id as usize].clone();
            }
            let k = self.text();
            self.keys.push(k.clone());
            k
        }
        fn entries(&mut self) -> Vec<(Text, Value)> {
            (0..self.usize())
                .map(|_| (self.key(), self.value()))
                .collect()
        }
    }

    /// The graph a tape decodes to, read as the JS decoder reads it.
    pub(crate) fn decode(t: &Tape) -> Graph {
        let mut r = Reader {
            t,
            p: 0,
            s: 0,
            at: 0,
            w: 0,
            b: 0,
            keys: Vec::new(),
        };
        let n = r.usize();
        let mut objects = Vec::new();
        for _ in 0..n {
            let tag = r.num();
            objects.push(match tag {
                kind::PLAIN => Object::Plain(Vec::new()),
                kind::ARRAY => Object::Array {
                    length: r.num() as u32,
                    elements: Vec::new(),
                    extra: Vec::new(),
                },
                kind::MAP => Object::Map(Vec::new()),
                kind::SET => Object::Set(Vec::new()),
                kind::DATE => Object::Date(r.num()),
                kind::REGEXP => Object::RegExp {
                    source: r.text(),
                    flags: r.string(),
                },
                kind::ERROR => {
                    let name = ERROR_NAMES[r.usize()];
                    let message = (r.num() == 1.0).then(|| r.text());
                    Object::Error {
                        name,
                        message,
                        stack: None,
                        cause: None,
                    }
                }
                kind::ARRAY_BUFFER => {
                    let len = r.usize();
                    r.b += len;
                    Object::ArrayBuffer(t.bytes[r.b - len..r.b].to_vec())
                }
                kind::VIEW => Object::View {
                    kind: ViewKind::ALL[r.usize()],
                    buffer: ObjId(r.num() as u32),
                    byte_offset: r.usize(),
                    length: r.usize(),
                },
                kind::TOKEN => Object::Token {
                    module: r.string(),
                    export: r.string(),
                },
                kind::BOOLEAN => Object::BooleanObject(r.num() == 1.0),
                kind::NUMBER => Object::NumberObject(r.num()),
                kind::STRING => Object::StringObject(r.text()),
                kind::BIGINT => Object::BigIntObject(r.string()),
                other => panic!("kind tag {other}"),
            });
        }
        for _ in 0..r.usize() {
            let id = r.usize();
            match &mut objects[id] {
                Object::Plain(entries) => *entries = r.entries(),
                Object::Array {
                    elements, extra, ..
                } => {
                    *elements = (0..r.usize())
                        .map(|_| (r.num() as u32, r.value()))
                        .collect();
                    *extra = r.entries();
                }
                Object::Map(entries) => {
                    *entries = (0..r.usize()).map(|_| (r.value(), r.value())).collect();
                }
                Object::Set(values) => *values = (0..r.usize()).map(|_| r.value()).collect(),
                Object::Error { stack, cause, .. } => {
                    *stack = (r.num() == 1.0).then(|| r.text());
                    *cause = (r.num() == 1.0).then(|| r.value());
                }
                _ => {}
            }
        }
        let root = r.value();
        assert_eq!(
            (r.p, r.s, r.w, r.b),
            (t.ops.len(), t.lens.len(), t.wide.len(), t.bytes.len()),
            "the tape has unread parts"
        );
        assert_eq!(r.at, t.text.encode_utf16().count(), "unread text");
        Graph { root, objects }
    }

    const SOURCES: &[&str] = &[
        "undefined",
        "null",
        "[true, false, -0, NaN, Infinity, 1.5e300, 12345678901234567890n, -1n]",
        "'plain ascii'",
        "'caf\\u00e9 \\u4e2d\\u6587 \\u{1F600}'",
        "'lone \\ud800 surrogate' + '\\udc00'",
        "({ a: 1, 'caf\\u00e9': { b: [1, , 3] }, ['\\ud800']: '\\udfff', __proto__: null })",
        "Object.assign([1, 2, 3, , 5], { extra: 'x', '-1': 'neg' })",
        "(() => { const a = []; a[4294967294] = 'last'; a.length; return a })()",
        "new Map([[{ k: 1 }, new Set(['s', 2n])], ['\\u{1F600}', new Date(0)]])",
        "[/a+b/giu, new RegExp('\\\\u{1F600}\\u00e9', 'v'), new Date(NaN)]",
        "(() => { const e = new RangeError('bad \\u00e9', { cause: { why: 'x' } }); return [e, new TypeError(), new URIError('u'), new EvalError('v'), new SyntaxError('s'), new ReferenceError('r'), new Error('plain')] })()",
        "(() => { const b = new ArrayBuffer(16); new Uint8Array(b).set([1, 2, 3, 255]); return [b, new Uint8Array(b, 1, 2), new Int16Array(b, 2, 3), new Float64Array(b, 8, 1), new DataView(b, 4, 8), new BigInt64Array(2), new Uint8ClampedArray([300])] })()",
        "[Object(true), Object(false), Object(1.5), Object('str\\u00e9'), Object(7n)]",
        "(() => { const o = { name: 'cycle' }; o.self = o; o.list = [o, o]; return o })()",
        "[{ id: 1, name: 'a' }, { name: 'b', id: 2 }, Object.assign([0], { id: 'extra' }), { '\\ud800': 1, id: 3 }]",
    ];

    #[test]
    fn tapes_decode_back_to_their_graphs() {
        let mut realm = Realm::new(RealmOptions::default(), None).unwrap();
        let mut kinds = std::collections::HashSet::new();
        for src in SOURCES {
            let graph = realm.eval(src, &EvalOptions::default()).unwrap();
            for o in &graph.objects {
                kinds.insert(std::mem::discriminant(o));
            }
            // Debug text, so NaN equals NaN and -0 differs from 0.
            let tape = encode(&graph);
            assert_eq!(
                format!("{:?}", decode(&tape)),
                format!("{graph:?}"),
                "{src}"
            );
        }
        // Every kind the guest can send, except tokens (below).
        assert_eq!(kinds.len(), 13, "kinds covered");
        let token = Graph {
            root: Value::Object(ObjId(0)),
            objects: vec![Object::Token {
                module: "@host/ui".into(),
                export: "Button".into(),
            }],
        };
        assert_eq!(decode(&encode(&token)), token);
    }
}
