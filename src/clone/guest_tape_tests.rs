//! The one-pass tape writer against its reference (`from_guest`, then `encode`): the same
//! graph whenever it writes, no tape wherever the reference fails, and no guest code run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use boa_engine::{Context, JsValue};

use super::tape;
use crate::clone::tape::tests::decode;
use crate::clone::test_rng::Rng;
use crate::clone::{Captured, from_guest};
use crate::value::{CloneLimits, Object, Value};

fn captured() -> Captured {
    Captured {
        error_stack_getter: None,
        regexp_unicode_sets: None,
        modules: None,
    }
}

/// A context with room to run (a fresh one has no instruction budget: patch 01).
fn context() -> Context {
    let mut context = Context::default();
    context.set_instruction_budget(usize::MAX, None);
    context
}

fn eval(src: &str, context: &mut Context) -> JsValue {
    crate::parse::eval(src, None, context).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// Checks the writer on `v` under `limits`; whether it wrote.
fn check(what: &str, v: &JsValue, limits: CloneLimits, context: &mut Context) -> bool {
    let before = eval("globalThis.getterRuns", context);
    let written = tape(v, &captured(), limits, context);
    let after = eval("globalThis.getterRuns", context);
    assert_eq!(
        format!("{before:?}"),
        format!("{after:?}"),
        "{what}: the writer ran a getter"
    );
    let reference = from_guest(v, &captured(), limits, context);
    match (written, reference) {
        (Some(_), Err(e)) => panic!("{what}: written where the reference fails ({e:?})"),
        (Some(t), Ok(g)) => {
            // Debug text, so NaN equals NaN and -0 differs from 0.
            assert_eq!(format!("{:?}", decode(&t)), format!("{g:?}"), "{what}");
            true
        }
        (None, _) => false,
    }
}

const PRELUDE: &str = "globalThis.getterRuns = 0; globalThis.shared = { s: 1 };";

#[test]
fn writes_what_the_reference_clones() {
    let context = &mut context();
    eval(PRELUDE, context);
    // (source, written under the default limits)
    let cases: &[(&str, bool)] = &[
        (
            "({ a: 1, b: 'two', c: [1, 2.5, -0, NaN], d: null, e: undefined, f: true })",
            true,
        ),
        (
            "[{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { name: 'c', id: 3 }]",
            true,
        ),
        (
            "({ 'caf\\u00e9': '\\u4e2d\\u{1F600}', ['\\ud800']: '\\udfff', 7: 'index key' })",
            true,
        ),
        ("Object.assign([1, , 3], { extra: 'x', '-1': 'neg' })", true),
        (
            "(() => { const a = []; a[4294967294] = 'last'; return a })()",
            true,
        ),
        (
            "new Map([[shared, new Set(['s', 2n, shared])], [-0, new Date(0)]])",
            true,
        ),
        (
            "(() => { const o = { name: 'cycle' }; o.self = o; o.list = [o, o]; return o })()",
            true,
        ),
        (
            "({ big: 12345678901234567890n, neg: -1n, nan: new Date(NaN) })",
            true,
        ),
        (
            "Object.create(null, { a: { value: 1, enumerable: true }, hidden: { value: 2 } })",
            true,
        ),
        ("Object.freeze({ frozen: [1, 2] })", true),
        (
            "(() => { class P { constructor() { this.x = 1 } } return new P() })()",
            true,
        ),
        (
            "(() => { const o = {}; for (let i = 0; i < 40; i++) o['k' + i] = i; delete o.k3; return o })()",
            true,
        ),
        // The reference's, each for its own reason.
        ("({ get a() { getterRuns++; return 1 } })", false),
        ("[1, 2, { get b() { getterRuns++; return 2 } }]", false),
        (
            "Object.defineProperty([1], 1, { get() { getterRuns++; return 2 }, enumerable: true })",
            false,
        ),
        ("({ f() {} })", false),
        ("({ s: Symbol('x') })", false),
        ("new Proxy({}, {})", false),
        ("[new Error('e')]", false),
        ("[/a+/g]", false),
        ("[new Uint8Array(2)]", false),
        ("[Object(1)]", false),
        ("({ p: Promise.resolve(1) })", false),
    ];
    for (src, want) in cases {
        let v = eval(src, context);
        let wrote = check(src, &v, CloneLimits::default(), context);
        assert_eq!(wrote, *want, "{src}: written or not");
    }
}

/// Guest values, as source text.
impl Rng {
    fn value(&mut self, depth: u32) -> String {
        let leaf = depth > 3;
        match self.below(if leaf { 8 } else { 16 }) {
            0 => "undefined".into(),
            1 => format!("{}", f64::from(self.below(1000)) / 8.0 - 50.0),
            2 => ["''", "'x'", "'\\u00fcn\\u00ef'", "'\\u2615'", "'\\ud800b'"]
                [self.below(5) as usize]
                .into(),
            3 => format!("{}n", self.below(1000)),
            4 => "null".into(),
            5 => "shared".into(),
            6 => "-0".into(),
            7 => "NaN".into(),
            8 | 9 => {
                let keys = ["a", "b", "id", "\\u540d", "0", "7", "length", "__proto__x"];
                let n = self.below(5);
                let body: Vec<String> = (0..n)
                    .map(|_| {
                        format!(
                            "'{}': {}",
                            keys[self.below(8) as usize],
                            self.value(depth + 1)
                        )
                    })
                    .collect();
                format!("({{ {} }})", body.join(", "))
            }
            10 | 11 => {
                let n = self.below(5);
                let body: Vec<String> = (0..n)
                    .map(|_| {
                        if self.below(6) == 0 {
                            String::new()
                        } else {
                            self.value(depth + 1)
                        }
                    })
                    .collect();
                format!("[{}]", body.join(", "))
            }
            12 => format!(
                "new Map([[{}, {}]])",
                self.value(depth + 1),
                self.value(depth + 1)
            ),
            13 => format!(
                "new Set([{}, {}])",
                self.value(depth + 1),
                self.value(depth + 1)
            ),
            14 => format!("new Date({})", self.below(10_000)),
            _ => [
                "({ get g() { getterRuns++; return 1 } })",
                "Symbol('s')",
                "(() => 1)",
                "new Error('e')",
                "Object.assign([1, 2], { x: 1 })",
                "Object.defineProperty({}, 'h', { value: 1 })",
            ][self.below(6) as usize]
                .into(),
        }
    }
}

/// Random guest values, under limits around what they need: the writer never differs from
/// the reference, never runs a getter, and writes all that it can.
#[test]
fn agrees_with_the_reference_on_random_values() {
    let context = &mut context();
    eval(PRELUDE, context);
    let mut written = 0;
    let total = 2000;
    for seed in 0..total {
        let mut rng = Rng(seed);
        let src = format!("[{}, {}]", rng.value(0), rng.value(0));
        let v = eval(&src, context);
        let limits = match seed % 4 {
            0 => CloneLimits::default(),
            1 => CloneLimits {
                max_bytes: 16 + rng.below(200) as usize,
                ..CloneLimits::default()
            },
            2 => CloneLimits {
                max_objects: 1 + rng.below(6) as usize,
                ..CloneLimits::default()
            },
            _ => CloneLimits {
                max_depth: rng.below(4) as usize,
                ..CloneLimits::default()
            },
        };
        written += usize::from(check(&format!("seed {seed}: {src}"), &v, limits, context));
    }
    assert!(
        written > total as usize / 3,
        "wrote only {written} of {total}"
    );
}

/// Array lengths as the guest reads them, by both paths: most arrays' `length` is read from
/// the array template's slot (patch 37) and the rest by a lookup, and the two must agree with
/// `.length` (the reference shares the read, so it is checked against the guest here).
#[test]
fn array_lengths_are_what_the_guest_reads() {
    let context = &mut context();
    eval(PRELUDE, context);
    let cases = [
        "[]",
        "[1, 2, 3]",
        "new Array(7)",
        "Array(3).fill(0)",
        "[1, 2, 3].concat([4, 5])",
        "JSON.parse('[1, [2, 3], []]')",
        "(() => { const a = [1]; a.length = 5; return a })()",
        "(() => { const a = [1, 2, 3]; a.length = 1; return a })()",
        "(() => { const a = []; a[9] = 1; return a })()",
        "Object.assign([1, 2], { x: 1 })",
        "(() => { const a = [1, 2]; Object.setPrototypeOf(a, null); return a })()",
        "(() => { class X extends Array {} return X.from([1, 2, 3]) })()",
        "(() => { const a = [1, 2, 3, 4]; Object.freeze(a); return a })()",
        "(() => { const a = [1, 2]; a.pop(); a.push(7, 8, 9); return a })()",
    ];
    for src in cases {
        let v = eval(src, context);
        let want = eval(&format!("({src}).length"), context)
            .as_number()
            .unwrap() as u32;
        let limits = CloneLimits::default();
        let written = tape(&v, &captured(), limits, context).expect(src);
        for (path, g) in [
            ("tape", decode(&written)),
            (
                "reference",
                from_guest(&v, &captured(), limits, context).unwrap(),
            ),
        ] {
            let Value::Object(id) = g.root else {
                panic!("{src}: not an object")
            };
            match g.get(id) {
                Some(Object::Array { length, .. }) => {
                    assert_eq!(*length, want, "{src} ({path})");
                }
                other => panic!("{src} ({path}): {other:?}"),
            }
        }
    }
    // An ordinary object can take the array template's shape; it still crosses as one.
    let src = "(() => { const o = Object.create(Array.prototype); \
               Object.defineProperty(o, 'length', { value: 3, writable: true }); return o })()";
    let v = eval(src, context);
    let g = from_guest(&v, &captured(), CloneLimits::default(), context).unwrap();
    let Value::Object(id) = g.root else {
        panic!("not an object")
    };
    assert!(
        matches!(g.get(id), Some(Object::Plain(_))),
        "{:?}",
        g.get(id)
    );
}

/// The identity table is kept between tapes (emptied): each tape starts with no object seen,
/// after one that wrote thousands and after one that gave up part way.
#[test]
fn each_tape_starts_with_no_object_seen() {
    let context = &mut context();
    eval(PRELUDE, context);
    let big = eval("Array.from({ length: 3000 }, (_, i) => ({ i }))", context);
    let small = eval("const o = { a: 1 }; [o, o, { b: o }]", context);
    let limits = CloneLimits::default();
    assert!(check("big", &big, limits, context));
    assert!(check("small after big", &small, limits, context));
    let capped = CloneLimits {
        max_objects: 100,
        ..limits
    };
    assert!(!check("big over the cap", &big, capped, context));
    assert!(check("small after a give-up", &small, limits, context));
    assert!(check("big again", &big, limits, context));
}
