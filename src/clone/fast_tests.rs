//! The one-pass build against its reference (decode, then `to_guest`), on tapes written as
//! the host walk writes them: the same guest values whenever it builds, and no build
//! wherever the reference fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;

use boa_engine::{Context, JsValue, js_string};

use super::{args, value};
use crate::clone::host_tape::{HostTape, decode};
use crate::clone::test_rng::Rng;
use crate::clone::{Captured, from_guest, to_guest, to_guest_args};
use crate::value::{CloneLimits, ErrorName, Graph, ObjId, Object, Text, Value};

/// A graph written as `walk_value` (src/bindings/walk.rs) writes a host value.
#[derive(Default)]
pub(crate) struct Walk {
    ops: Vec<f64>,
    text: String,
    wide: Vec<u16>,
    seen: HashMap<u32, usize>,
    keys: HashMap<Text, usize>,
    tasks: Vec<u32>,
}

impl Walk {
    pub(crate) fn of(graph: &Graph) -> Self {
        let mut w = Walk::default();
        w.value(graph, &graph.root);
        while let Some(id) = w.tasks.pop() {
            w.fill(graph, id);
        }
        w
    }

    fn str(&mut self, t: &Text) {
        match t {
            Text::Utf8(s) => {
                self.text.push_str(s);
                self.ops.push(s.encode_utf16().count() as f64);
            }
            Text::Utf16(u) => {
                self.wide.extend_from_slice(u);
                self.ops.push(-(u.len() as f64) - 1.0);
            }
        }
    }

    fn key(&mut self, k: &Text) {
        if let Some(id) = self.keys.get(k) {
            self.ops.push(*id as f64);
            return;
        }
        self.keys.insert(k.clone(), self.keys.len());
        self.ops.push(-1.0);
        self.str(k);
    }

    fn value(&mut self, graph: &Graph, v: &Value) {
        match v {
            Value::Undefined => self.ops.push(0.0),
            Value::Null => self.ops.push(1.0),
            Value::Bool(b) => self.ops.push(if *b { 3.0 } else { 2.0 }),
            Value::Number(n) => self.ops.extend([4.0, *n]),
            Value::BigInt(s) => {
                self.ops.push(5.0);
                self.str(&Text::from(s.as_str()));
            }
            Value::String(t) => {
                self.ops.push(6.0);
                self.str(t);
            }
            Value::Object(id) => self.object(graph, *id),
        }
    }

    fn object(&mut self, graph: &Graph, id: ObjId) {
        if let Some(known) = self.seen.get(&id.0) {
            self.ops.extend([7.0, *known as f64]);
            return;
        }
        self.seen.insert(id.0, self.seen.len());
        self.ops.push(8.0);
        let (kind, task) = match &graph.objects[id.0 as usize] {
            Object::Plain(_) => (0.0, true),
            Object::Array { length, .. } => {
                self.ops.extend([1.0, f64::from(*length)]);
                self.tasks.push(id.0);
                return;
            }
            Object::Map(_) => (2.0, true),
            Object::Set(_) => (3.0, true),
            Object::Error { .. } => (4.0, true),
            Object::Date(t) => {
                self.ops.extend([5.0, *t]);
                return;
            }
            Object::RegExp { source, flags } => {
                self.ops.push(6.0);
                self.str(source);
                self.str(&Text::from(flags.as_str()));
                return;
            }
            Object::BooleanObject(b) => {
                self.ops.extend([8.0, if *b { 1.0 } else { 0.0 }]);
                return;
            }
            Object::NumberObject(n) => {
                self.ops.extend([9.0, *n]);
                return;
            }
            Object::StringObject(t) => {
                self.ops.push(10.0);
                self.str(t);
                return;
            }
            Object::BigIntObject(s) => {
                self.ops.push(11.0);
                self.str(&Text::from(s.as_str()));
                return;
            }
            other => panic!("the walk test writes no {other:?}"),
        };
        self.ops.push(kind);
        if task {
            self.tasks.push(id.0);
        }
    }

    fn fill(&mut self, graph: &Graph, id: u32) {
        match &graph.objects[id as usize] {
            Object::Plain(entries) => {
                self.ops.push(entries.len() as f64);
                for (k, v) in entries {
                    self.key(k);
                    self.value(graph, v);
                }
            }
            Object::Array {
                elements, extra, ..
            } => {
                self.ops.push((elements.len() + extra.len()) as f64);
                for (i, v) in elements {
                    self.ops.extend([1.0, f64::from(*i)]);
                    self.value(graph, v);
                }
                for (k, v) in extra {
                    self.ops.push(0.0);
                    self.key(k);
                    self.value(graph, v);
                }
            }
            Object::Map(entries) => {
                for (k, v) in entries {
                    self.ops.push(1.0);
                    self.value(graph, k);
                    self.value(graph, v);
                }
                self.ops.push(0.0);
            }
            Object::Set(values) => {
                for v in values {
                    self.ops.push(1.0);
                    self.value(graph, v);
                }
                self.ops.push(0.0);
            }
            Object::Error {
                name,
                message,
                stack,
                cause,
            } => {
                self.str(&Text::from(name.as_str()));
                for text in [message, stack] {
                    match text {
                        Some(m) => {
                            self.ops.push(1.0);
                            self.str(m);
                        }
                        None => self.ops.push(0.0),
                    }
                }
                match cause {
                    Some(c) => {
                        self.ops.push(1.0);
                        self.value(graph, c);
                    }
                    None => self.ops.push(0.0),
                }
            }
            _ => {}
        }
    }

    pub(crate) fn tape<R>(&self, f: impl FnOnce(&HostTape<'_>) -> R) -> R {
        f(&HostTape {
            ops: &self.ops,
            text: &self.text,
            wide: &self.wide,
            buffer: &|_| None,
        })
    }
}

fn captured() -> Captured {
    Captured {
        error_stack_getter: None,
        regexp_unicode_sets: None,
        modules: None,
    }
}

/// The clone of `v`, spelled out (so `NaN` equals itself and `-0` differs from `0`).
fn back(v: &JsValue, context: &mut Context) -> String {
    let limits = CloneLimits {
        max_objects: usize::MAX,
        max_bytes: usize::MAX,
        max_depth: usize::MAX,
    };
    let g = from_guest(v, &captured(), limits, context).expect("what was built clones back");
    format!("{g:?}")
}

/// Checks both entry points on `graph` under `limits`; whether the one-pass build built.
fn check(what: &str, graph: &Graph, limits: CloneLimits) -> (bool, bool) {
    let walk = Walk::of(graph);
    let context = &mut Context::default();
    let reference = walk.tape(|t| decode(t, limits));
    let built = walk.tape(|t| value(t, limits, context));
    match (&reference, &built) {
        (Err(_), Some(_)) => panic!("{what}: built where the reference fails"),
        (Ok(g), Some(v)) => {
            let want = to_guest(g, context).expect("the reference builds");
            assert_eq!(back(v, context), back(&want, context), "{what}");
        }
        _ => {}
    }
    let built_args = walk.tape(|t| args(t, limits, context));
    match (&reference, built_args) {
        (Err(_), Some(_)) => panic!("{what}: arguments built where the reference fails"),
        (Ok(g), Some(list)) => {
            let want = to_guest_args(g, context).expect("the reference builds");
            assert_eq!(list.len(), want.len(), "{what}: argument count");
            for (a, b) in list.iter().zip(&want) {
                assert_eq!(back(a, context), back(b, context), "{what}: an argument");
            }
            (built.is_some(), true)
        }
        _ => (built.is_some(), false),
    }
}

fn plain(entries: &[(&str, Value)]) -> Object {
    Object::Plain(
        entries
            .iter()
            .map(|(k, v)| (Text::from(*k), v.clone()))
            .collect(),
    )
}

fn graph(objects: Vec<Object>) -> Graph {
    Graph {
        root: Value::Object(ObjId(0)),
        objects,
    }
}

fn obj(i: u32) -> Value {
    Value::Object(ObjId(i))
}

fn dense(values: Vec<Value>) -> Object {
    Object::Array {
        length: values.len() as u32,
        elements: (0..).zip(values).collect(),
        extra: vec![],
    }
}

#[test]
fn builds_what_the_reference_builds() {
    let n = Value::Number;
    let lone = Text::Utf16(vec![0x61, 0xd800]);
    let model = |i: u32| {
        plain(&[
            ("id", n(f64::from(i))),
            ("name", Value::str("café ☕")),
            ("dims", obj(i + 1)),
        ])
    };
    // (what, graph, built as a value, built as arguments)
    let cases: Vec<(&str, Graph, bool, bool)> = vec![
        ("a number", Graph::primitive(n(-0.0)), true, false),
        (
            "a lone surrogate",
            Graph::primitive(Value::String(lone.clone())),
            true,
            false,
        ),
        (
            "a BigInt",
            Graph::primitive(Value::BigInt("-12345678901234567890".into())),
            true,
            false,
        ),
        ("no arguments", graph(vec![dense(vec![])]), true, true),
        (
            "models sharing keys",
            graph(vec![
                dense(vec![obj(1), obj(3)]),
                model(1),
                dense(vec![n(1.0), n(2.0)]),
                model(3),
                dense(vec![n(f64::NAN)]),
            ]),
            true,
            true,
        ),
        (
            "odd keys: an index, a repeat, a lone surrogate",
            graph(vec![
                dense(vec![obj(1)]),
                Object::Plain(vec![
                    (Text::from("7"), n(1.0)),
                    (Text::from("b"), n(2.0)),
                    (Text::from("b"), n(3.0)),
                    (lone.clone(), Value::Null),
                ]),
            ]),
            true,
            true,
        ),
        (
            "a sparse array with extra keys",
            graph(vec![
                dense(vec![obj(1)]),
                Object::Array {
                    length: 5,
                    elements: vec![(1, n(1.0)), (3, Value::Bool(true))],
                    extra: vec![(Text::from("x"), Value::Undefined)],
                },
            ]),
            true,
            true,
        ),
        (
            "shared references and a cycle",
            graph(vec![
                dense(vec![obj(1), obj(1)]),
                plain(&[("self", obj(1)), ("m", obj(2))]),
                Object::Map(vec![(obj(1), obj(3)), (n(-0.0), Value::str("zero"))]),
                Object::Set(vec![obj(2), n(1.0), n(1.0)]),
            ]),
            true,
            true,
        ),
        (
            "dates, regexps and wrappers",
            graph(vec![
                dense(vec![obj(1), obj(2), obj(3), obj(4), obj(5), obj(6)]),
                Object::Date(1.7e12),
                Object::RegExp {
                    source: Text::from("a+(b)"),
                    flags: "gi".into(),
                },
                Object::BooleanObject(false),
                Object::NumberObject(-0.0),
                Object::StringObject(lone.clone()),
                Object::BigIntObject("7".into()),
            ]),
            true,
            true,
        ),
        (
            "a list that holds itself",
            graph(vec![dense(vec![obj(0)])]),
            true,
            false,
        ),
        (
            "a list with a hole",
            graph(vec![Object::Array {
                length: 2,
                elements: vec![(1, n(1.0))],
                extra: vec![],
            }]),
            true,
            false,
        ),
        (
            "a list whose elements come out of order, and one twice (the last one stays)",
            graph(vec![
                dense(vec![obj(1), obj(2)]),
                Object::Array {
                    length: 3,
                    elements: vec![(1, n(1.0)), (0, n(0.0)), (2, n(2.5)), (0, n(-1.0))],
                    extra: vec![],
                },
                Object::Array {
                    length: 2,
                    elements: vec![(0, Value::str("a")), (1, n(1.0)), (1, n(2.0))],
                    extra: vec![(Text::from("x"), n(3.0))],
                },
            ]),
            true,
            true,
        ),
        (
            "dense lists of i32s, of numbers, of anything, and empty, with and without extra keys",
            graph(vec![
                dense(vec![obj(1), obj(2), obj(3), obj(4), obj(5)]),
                dense(vec![n(1.0), n(-2.0), n(3.0)]),
                dense(vec![n(1.0), n(0.5), n(-0.0), n(f64::NAN)]),
                dense(vec![n(1.0), Value::Undefined, obj(1)]),
                dense(vec![]),
                Object::Array {
                    length: 2,
                    elements: vec![(0, n(7.0)), (1, Value::str("b"))],
                    extra: vec![(Text::from("x"), n(3.0)), (Text::from("-1"), n(4.0))],
                },
            ]),
            true,
            true,
        ),
        (
            "a list with holes at its end",
            graph(vec![
                dense(vec![obj(1)]),
                Object::Array {
                    length: 4,
                    elements: vec![(0, n(1.0)), (1, n(2.0))],
                    extra: vec![(Text::from("x"), n(3.0))],
                },
            ]),
            true,
            true,
        ),
        (
            "an element at the length (the reference's error)",
            graph(vec![Object::Array {
                length: 1,
                elements: vec![(0, n(0.0)), (1, n(1.0))],
                extra: vec![],
            }]),
            false,
            false,
        ),
        (
            "an error (the reference's)",
            graph(vec![
                dense(vec![obj(1)]),
                Object::Error {
                    name: ErrorName::TypeError,
                    message: Some(Text::from("m")),
                    stack: None,
                    cause: None,
                },
            ]),
            false,
            false,
        ),
        (
            "a regexp the guest cannot compile (the reference's)",
            graph(vec![
                dense(vec![obj(1)]),
                Object::RegExp {
                    source: Text::from("("),
                    flags: String::new(),
                },
            ]),
            false,
            false,
        ),
    ];
    for (what, g, want_value, want_args) in cases {
        let got = check(what, &g, CloneLimits::default());
        assert_eq!(
            got,
            (want_value, want_args),
            "{what}: which builds were taken"
        );
    }
}

fn random_graph(rng: &mut Rng) -> Graph {
    let count = 1 + rng.below(12);
    let keys = ["a", "b", "id", "名前", "0", "length"];
    let mut objects = Vec::new();
    for i in 0..count {
        let val = |rng: &mut Rng| match rng.below(9) {
            0 => Value::Undefined,
            1 => Value::Number(f64::from(rng.below(100)) - 50.5),
            2 => Value::str(["", "x", "ünï", "☕☕"][rng.below(4) as usize]),
            3 => Value::String(Text::Utf16(vec![0xdc00, 0x62])),
            4 => Value::BigInt(rng.below(1000).to_string()),
            5 => Value::Bool(rng.below(2) == 0),
            _ => obj(rng.below(count)),
        };
        let object = match rng.below(if i == 0 { 3 } else { 8 }) {
            0 => {
                let n = rng.below(5);
                dense((0..n).map(|_| val(rng)).collect())
            }
            1 => Object::Plain(
                (0..rng.below(5))
                    .map(|_| (Text::from(keys[rng.below(5) as usize]), val(rng)))
                    .collect(),
            ),
            2 => Object::Array {
                length: 6,
                elements: vec![(0, val(rng)), (4, val(rng))],
                extra: vec![(Text::from(keys[rng.below(6) as usize]), val(rng))],
            },
            3 => Object::Map((0..rng.below(3)).map(|_| (val(rng), val(rng))).collect()),
            4 => Object::Set((0..rng.below(3)).map(|_| val(rng)).collect()),
            5 => Object::Date(f64::from(rng.below(1000))),
            6 => Object::StringObject(Text::from("s")),
            _ => Object::Error {
                name: ErrorName::TypeError,
                message: None,
                stack: None,
                cause: Some(val(rng)),
            },
        };
        objects.push(object);
    }
    graph(objects)
}

/// Random graphs, under limits around what they need: the one-pass build never differs
/// from the reference, and builds all that it can.
#[test]
fn agrees_with_the_reference_on_random_graphs() {
    let mut built = 0;
    for seed in 0..3000 {
        let mut rng = Rng(seed);
        let g = random_graph(&mut rng);
        let limits = match seed % 4 {
            0 => CloneLimits::default(),
            1 => CloneLimits {
                max_bytes: 20 + rng.below(200) as usize,
                ..CloneLimits::default()
            },
            2 => CloneLimits {
                max_objects: 1 + rng.below(8) as usize,
                ..CloneLimits::default()
            },
            _ => CloneLimits {
                max_depth: rng.below(4) as usize,
                ..CloneLimits::default()
            },
        };
        let (as_value, _) = check(&format!("seed {seed}"), &g, limits);
        built += usize::from(as_value);
    }
    // Most graphs are within their limits and free of errors: the build takes them.
    assert!(built > 1000, "built only {built} of 3000");
}

/// Counts a tape claims but does not hold reserve nothing past the tape, and fail closed.
#[test]
fn claimed_counts_reserve_nothing() {
    let context = &mut Context::default();
    let limits = CloneLimits::default();
    for (what, ops) in [
        ("an argument list", vec![8.0, 1.0, 4e9, 4e9]),
        ("a plain object", vec![8.0, 0.0, 1e15]),
        ("an array", vec![8.0, 1.0, 4e9, 1e15]),
    ] {
        let tape = HostTape {
            ops: &ops,
            text: "",
            wide: &[],
            buffer: &|_| None,
        };
        assert!(args(&tape, limits, context).is_none(), "{what}");
        assert!(value(&tape, limits, context).is_none(), "{what}");
        assert!(decode(&tape, limits).is_err(), "{what}");
    }
}

/// Builds `g` in one pass as the guest's `v`, then asserts that each check is true there.
fn holds_in_the_guest(g: &Graph, checks: &[&str]) {
    let context = &mut Context::default();
    context.set_instruction_budget(usize::MAX, None);
    let v = Walk::of(g)
        .tape(|t| value(t, CloneLimits::default(), context))
        .expect("built in one pass");
    context
        .global_object()
        .set(js_string!("v"), v, false, context)
        .unwrap();
    for check in checks {
        let got = crate::parse::eval(check, None, context).unwrap();
        assert_eq!(got.as_boolean(), Some(true), "{check}");
    }
}

/// Lists laid out in one step are arrays as their literals are: the same properties, and
/// they grow, shrink and search as arrays do.
#[test]
fn laid_out_arrays_behave_as_literals() {
    let n = Value::Number;
    let g = graph(vec![
        dense(vec![obj(1), obj(2), obj(3)]),
        dense(vec![n(1.0), n(2.0), n(3.0)]),
        dense(vec![n(1.5), n(-0.0)]),
        dense(vec![Value::str("a"), Value::Undefined]),
    ]);
    let checks = [
        "v.every(Array.isArray) && v.every((a) => Object.getPrototypeOf(a) === Array.prototype)",
        "const lits = [[1, 2, 3], [1.5, -0], ['a', undefined]];
         const d = (a) => JSON.stringify(Object.getOwnPropertyDescriptors(a));
         v.every((a, i) => d(a) === d(lits[i]))",
        "Object.is(v[1][1], -0) && v[2].length === 2 && 1 in v[2] && v[2][1] === undefined",
        "v[0].push(4) === 4 && v[0][3] === 4 && v[0].indexOf(3) === 2",
        "v[0].push('x') === 5 && v[0].pop() === 'x' && v[0].join() === '1,2,3,4'",
        "(v[0].length = 1, v[0].length === 1 && v[0][1] === undefined && !(1 in v[0]))",
        "(v[1][5] = 9, v[1].length === 6 && !(3 in v[1]) && v[1][5] === 9)",
        "v[2].sort().join() === 'a,' && Object.isExtensible(v[1])",
    ];
    holds_in_the_guest(&g, &checks);
}

/// Builds keep their lists for the next one, emptied: a build in another realm gets that
/// realm's prototypes and layouts (the lists held the first realm's), and a build that
/// gave up part way leaves nothing for the next to read.
#[test]
fn builds_in_turn_share_nothing() {
    let n = Value::Number;
    let g = graph(vec![
        dense(vec![obj(1), obj(2), obj(3)]),
        plain(&[("a", n(1.0)), ("b", Value::str("x"))]),
        plain(&[("a", n(2.0)), ("b", Value::str("y"))]),
        plain(&[("b", n(3.0)), ("a", obj(1))]),
    ]);
    let checks = [
        "Object.getPrototypeOf(v) === Array.prototype",
        "v.every((o) => Object.getPrototypeOf(o) === Object.prototype)",
        "JSON.stringify(v) === '[{\"a\":1,\"b\":\"x\"},{\"a\":2,\"b\":\"y\"},{\"b\":3,\"a\":{\"a\":1,\"b\":\"x\"}}]'",
        "v[2].a === v[0] && Object.keys(v[2]).join() === 'b,a'",
    ];
    let reordered = graph(vec![plain(&[("b", n(1.0)), ("a", n(2.0))])]);
    let reordered_checks = ["Object.keys(v).join() === 'b,a' && v.b === 1 && v.a === 2"];
    // Each in a realm of its own.
    holds_in_the_guest(&g, &checks);
    holds_in_the_guest(&g, &checks);
    holds_in_the_guest(&reordered, &reordered_checks);
    // One that gives up after it made objects and keys (over its byte cap).
    let capped = CloneLimits {
        max_bytes: 40,
        ..CloneLimits::default()
    };
    let context = &mut Context::default();
    assert!(Walk::of(&g).tape(|t| value(t, capped, context)).is_none());
    holds_in_the_guest(&g, &checks);
}

/// Strings cross in without the lookup among Boa's static strings (patch boa_string-02): one
/// that spells a static string ("length", "prototype", "") is still that string to the
/// guest, as a value, a key it reads with, and a key the guest's own code compares.
#[test]
fn strings_that_spell_static_ones_are_those_strings() {
    let s = Value::str;
    let g = graph(vec![
        dense(vec![
            s("length"),
            s("prototype"),
            s(""),
            s("constructor"),
            obj(1),
        ]),
        plain(&[("length", s("length")), ("prototype", Value::Number(1.0))]),
    ]);
    let checks = [
        "v[0] === 'length' && v[1] === 'prototype' && v[2] === '' && v[3] === 'constructor'",
        "[1, 2, 3][v[0]] === 3 && typeof Function[v[1]] === 'function' && ({}).hasOwnProperty(v[2]) === false",
        "({}).constructor === ({})[v[3]] && new Map([['length', 1]]).get(v[0]) === 1 && new Set([v[1]]).has('prototype')",
        "v[4].length === 'length' && v[4][v[0]] === 'length' && v[4].prototype === 1 && Object.keys(v[4]).join() === 'length,prototype'",
        "(v[4][v[1]] = 2, v[4].prototype === 2) && JSON.stringify(v[4]) === '{\"length\":\"length\",\"prototype\":2}'",
        "switch (v[0]) { case 'length': true; break; default: false }",
    ];
    holds_in_the_guest(&g, &checks);
}

/// `JsArray::fill_fresh` (patches/boa_engine-28) lays out only an array as `JsArray::new`
/// made it, and hands the values back otherwise.
#[test]
fn only_fresh_arrays_are_laid_out_in_one_step() {
    use boa_engine::object::builtins::JsArray;
    use boa_engine::property::PropertyDescriptor;
    let context = &mut Context::default();
    let values = || vec![JsValue::from(1), JsValue::from(2)];
    let fresh = JsArray::new(context).unwrap();
    assert!(fresh.fill_fresh(values(), context).is_ok());
    assert_eq!(fresh.length(context).unwrap(), 2);
    assert_eq!(fresh.get(1, context).unwrap(), JsValue::from(2));
    // Filled once already.
    assert_eq!(fresh.fill_fresh(values(), context), Err(values()));
    type Spoil = fn(&JsArray, &mut Context);
    let spoiled: [(&str, Spoil); 4] = [
        ("an element", |a, c| {
            a.push(0, c).unwrap();
        }),
        ("another property", |a, c| {
            a.set(js_string!("x"), 1, true, c).unwrap();
        }),
        ("a length", |a, c| {
            a.set(js_string!("length"), 3, true, c).unwrap();
        }),
        ("sealed", |a, c| {
            a.set_integrity_level(boa_engine::object::IntegrityLevel::Sealed, c)
                .unwrap();
        }),
    ];
    for (what, spoil) in spoiled {
        let a = JsArray::new(context).unwrap();
        spoil(&a, context);
        let before = back(&a.clone().into(), context);
        assert_eq!(a.fill_fresh(values(), context), Err(values()), "{what}");
        assert_eq!(
            back(&a.clone().into(), context),
            before,
            "{what}: unchanged"
        );
    }
    // A read-only length is a different shape.
    let a = JsArray::new(context).unwrap();
    a.define_property_or_throw(
        js_string!("length"),
        PropertyDescriptor::builder().writable(false),
        context,
    )
    .unwrap();
    assert_eq!(a.fill_fresh(values(), context), Err(values()));
    // `fill_fresh_from` (patch 39) takes the values out of a buffer it leaves empty, or
    // leaves the buffer as it was.
    let mut buffer = values();
    assert!(!a.fill_fresh_from(&mut buffer, context));
    assert_eq!(buffer, values());
    let fresh = JsArray::new(context).unwrap();
    assert!(fresh.fill_fresh_from(&mut buffer, context));
    assert!(buffer.is_empty() && buffer.capacity() >= 2);
    assert_eq!(fresh.get(1, context).unwrap(), JsValue::from(2));
}

#[test]
fn what_a_one_pass_build_allocates_counts_towards_the_realms_share() {
    // A realm that only receives a large model, built in one pass from the host's tape,
    // gives its memory back at its dispose: the model counts towards its share.
    use crate::realm::ToHost;
    use crate::{EvalOptions, Realm, RealmOptions, heap};
    const N: u32 = 20_000;
    // The model (an array of N objects) as a value, or as the one argument of a call.
    let model = |as_arguments: bool| {
        let first = u32::from(as_arguments);
        let mut objects = if as_arguments {
            vec![dense(vec![obj(1)])]
        } else {
            vec![]
        };
        objects.push(dense((first + 1..=first + N).map(obj).collect()));
        objects.extend((0..N).map(|i| plain(&[("id", Value::Number(f64::from(i)))])));
        Walk::of(&graph(objects))
    };
    let (value_tape, arguments_tape) = (model(false), model(true));
    // Both take the one-pass path (the decoded one is counted anyway, inside the entry).
    let limits = crate::RealmOptions::default().limits.clone;
    let context = &mut Context::default();
    assert!(value_tape.tape(|t| value(t, limits, context)).is_some());
    assert!(arguments_tape.tape(|t| args(t, limits, context)).is_some());
    type Receive<'a> = &'a dyn Fn(&mut Realm);
    let cases: [(&str, Receive); 2] = [
        ("set", &|r| {
            value_tape.tape(|t| r.set_tape("kept", t)).expect("set")
        }),
        ("call", &|r| {
            let got = arguments_tape
                .tape(|t| r.call_tape("keep", t))
                .expect("call");
            assert!(
                matches!(&got, ToHost::Graph(g) if g.root == Value::Number(f64::from(N))),
                "{got:?}"
            );
        }),
    ];
    for (what, receive) in cases {
        heap::collect();
        let base = heap::allocated_bytes();
        let mut r = Realm::new(RealmOptions::default(), None).expect("realm");
        let keep = "globalThis.keep = (m) => { globalThis.kept = m; return m.length }; 0";
        r.eval(keep, &EvalOptions::default()).expect("eval");
        receive(&mut r);
        let held = heap::allocated_bytes();
        let n = N as usize;
        assert!(
            held > base + n * 32,
            "{what}: the model is on the heap: {base} → {held}"
        );
        r.dispose();
        let after = heap::allocated_bytes();
        assert!(
            after < base + (held - base) / 10,
            "{what}: dispose gave the model back: {base} → {held} → {after}"
        );
    }
}
