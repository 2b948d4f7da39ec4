// The core realm's behaviour: clone fidelity, paths, limits, errors, capabilities.
// Table-driven; each row names the behaviour it proves. Included by tests/core.rs (native
// and a browser page) and tests/core_worker.rs (a dedicated worker).

use wasm_bindgen_test::wasm_bindgen_test;

use std::cell::RefCell;
use std::rc::Rc;

use isolated_realm::capabilities;
use isolated_realm::heap;
use isolated_realm::value::{ErrorName, ObjId, ViewKind};
use isolated_realm::{
    ErrorCode, EvalOptions, Graph, HandlerFailure, HostHandler, Limit, Object, Realm, RealmOptions,
    SandboxError, Text, Value,
};

fn realm() -> Realm {
    Realm::new(
        RealmOptions {
            allow_code_generation: true,
            ..Default::default()
        },
        None,
    )
    .expect("realm")
}

fn eval(r: &mut Realm, src: &str) -> Result<Graph, SandboxError> {
    r.eval(src, &EvalOptions::default())
}

fn ok(r: &mut Realm, src: &str) -> Graph {
    eval(r, src).unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn truthy(r: &mut Realm, src: &str) {
    assert_eq!(
        ok(r, src).root,
        Value::Bool(true),
        "guest check failed: {src}"
    );
}

fn s(x: &str) -> Text {
    Text::from(x)
}

/// Object.is semantics on numbers, isomorphism on object graphs.
fn same(a: &Graph, b: &Graph) -> bool {
    let mut map: Vec<Option<u32>> = vec![None; a.objects.len()];
    let mut work = vec![(a.root.clone(), b.root.clone())];
    while let Some((x, y)) = work.pop() {
        match (&x, &y) {
            (Value::Number(p), Value::Number(q)) => {
                if !(p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan())) {
                    return false;
                }
            }
            (Value::Object(i), Value::Object(j)) => {
                match map[i.0 as usize] {
                    Some(m) if m == j.0 => continue,
                    Some(_) => return false,
                    None => map[i.0 as usize] = Some(j.0),
                }
                let (Some(oa), Some(ob)) = (a.get(*i), b.get(*j)) else {
                    return false;
                };
                if !same_shape(oa, ob, &mut work) {
                    return false;
                }
            }
            _ => {
                if x != y {
                    return false;
                }
            }
        }
    }
    true
}

fn same_shape(a: &Object, b: &Object, work: &mut Vec<(Value, Value)>) -> bool {
    fn pairs(work: &mut Vec<(Value, Value)>, x: &[(Text, Value)], y: &[(Text, Value)]) -> bool {
        if x.len() != y.len() {
            return false;
        }
        for ((ka, va), (kb, vb)) in x.iter().zip(y) {
            if ka != kb {
                return false;
            }
            work.push((va.clone(), vb.clone()));
        }
        true
    }
    match (a, b) {
        (Object::Plain(x), Object::Plain(y)) => pairs(work, x, y),
        (
            Object::Array {
                length: la,
                elements: ea,
                extra: xa,
            },
            Object::Array {
                length: lb,
                elements: eb,
                extra: xb,
            },
        ) => {
            if la != lb || ea.len() != eb.len() {
                return false;
            }
            for ((ia, va), (ib, vb)) in ea.iter().zip(eb) {
                if ia != ib {
                    return false;
                }
                work.push((va.clone(), vb.clone()));
            }
            pairs(work, xa, xb)
        }
        (Object::Map(x), Object::Map(y)) => {
            if x.len() != y.len() {
                return false;
            }
            for ((ka, va), (kb, vb)) in x.iter().zip(y) {
                work.push((ka.clone(), kb.clone()));
                work.push((va.clone(), vb.clone()));
            }
            true
        }
        (Object::Set(x), Object::Set(y)) => {
            if x.len() != y.len() {
                return false;
            }
            work.extend(x.iter().cloned().zip(y.iter().cloned()));
            true
        }
        (Object::Date(x), Object::Date(y)) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        (
            Object::Error {
                name: na,
                message: ma,
                cause: ca,
                ..
            },
            Object::Error {
                name: nb,
                message: mb,
                cause: cb,
                ..
            },
        ) => {
            if let (Some(x), Some(y)) = (ca, cb) {
                work.push((x.clone(), y.clone()));
            }
            na == nb && ma == mb && ca.is_some() == cb.is_some()
        }
        (
            Object::View {
                kind: ka,
                buffer: ba,
                byte_offset: oa,
                length: la,
            },
            Object::View {
                kind: kb,
                buffer: bb,
                byte_offset: ob,
                length: lb,
            },
        ) => {
            work.push((Value::Object(*ba), Value::Object(*bb)));
            ka == kb && oa == ob && la == lb
        }
        (x, y) => x == y,
    }
}

// ---------------------------------------------------------------- guest → host

type Build = fn() -> Graph;

fn plain(entries: Vec<(&str, Value)>) -> Graph {
    let mut g = Graph::undefined();
    let id = g.push(Object::Plain(
        entries.into_iter().map(|(k, v)| (s(k), v)).collect(),
    ));
    g.root = Value::Object(id);
    g
}

fn one(object: Object) -> Graph {
    let mut g = Graph::undefined();
    let id = g.push(object);
    g.root = Value::Object(id);
    g
}

/// An array of `length` whose elements are `values`, from index 0.
fn dense(length: u32, values: &[Value]) -> Graph {
    one(Object::Array {
        length,
        elements: (0..).zip(values.iter().cloned()).collect(),
        extra: vec![],
    })
}

fn prim(v: Value) -> Graph {
    Graph::primitive(v)
}

const OUT_CASES: &[(&str, &str, Build)] = &[
    ("undefined", "undefined", || prim(Value::Undefined)),
    ("null", "null", || prim(Value::Null)),
    ("true", "true", || prim(Value::Bool(true))),
    ("integer", "42", || prim(Value::Number(42.0))),
    ("negative zero", "-0", || prim(Value::Number(-0.0))),
    ("NaN", "NaN", || prim(Value::Number(f64::NAN))),
    ("infinity", "-Infinity", || {
        prim(Value::Number(f64::NEG_INFINITY))
    }),
    ("bigint", "-(2n ** 70n)", || {
        prim(Value::BigInt("-1180591620717411303424".into()))
    }),
    ("string", "'héllo 👋'", || prim(Value::str("héllo 👋"))),
    ("lone surrogate", "'a\\uD800b'", || {
        prim(Value::String(Text::Utf16(vec![0x61, 0xD800, 0x62])))
    }),
    (
        "plain object keeps insertion order",
        "({b: 1, a: 'x', 2: true})",
        || {
            plain(vec![
                ("2", Value::Bool(true)),
                ("b", Value::Number(1.0)),
                ("a", Value::str("x")),
            ])
        },
    ),
    (
        "own enumerable string keys only",
        "(() => { const o = Object.create({inherited: 1}); o.own = 1; Object.defineProperty(o, 'hidden', {value: 2}); o[Symbol('s')] = 3; return o; })()",
        || plain(vec![("own", Value::Number(1.0))]),
    ),
    ("getters run", "({ get g() { return 7 } })", || {
        plain(vec![("g", Value::Number(7.0))])
    }),
    (
        // HTML: the keys are listed first; one a getter deletes is then skipped, and one it
        // adds is not visited (structuredClone in V8 does the same).
        "keys a getter deletes or adds",
        "({ a: 1, get g() { delete this.b; this.late = 3; return 2 }, b: 'gone', c: 4 })",
        || {
            plain(vec![
                ("a", Value::Number(1.0)),
                ("g", Value::Number(2.0)),
                ("c", Value::Number(4.0)),
            ])
        },
    ),
    (
        "array elements a getter deletes",
        "(() => { const a = [1, 2, 3]; Object.defineProperty(a, 0, { get() { a.length = 1; return 'x' }, enumerable: true }); return a; })()",
        || {
            one(Object::Array {
                length: 3,
                elements: vec![(0, Value::str("x"))],
                extra: vec![],
            })
        },
    ),
    (
        "class instance clones as plain",
        "new (class P { constructor() { this.x = 1 } })()",
        || plain(vec![("x", Value::Number(1.0))]),
    ),
    (
        "array with holes and extra key",
        "(() => { const a = [1, , 3]; a.tag = 't'; return a; })()",
        || {
            one(Object::Array {
                length: 3,
                elements: vec![(0, Value::Number(1.0)), (2, Value::Number(3.0))],
                extra: vec![(s("tag"), Value::str("t"))],
            })
        },
    ),
    // Arrays of only their dense elements are read straight from their storage (each kind
    // of it); anything more on the array takes the generic path, and keeps it.
    ("dense array of small integers", "[1, 2, 3]", || {
        dense(3, &[Value::Number(1.0), Value::Number(2.0), Value::Number(3.0)])
    }),
    ("dense array of doubles", "[1.5, -0, 2]", || {
        dense(3, &[Value::Number(1.5), Value::Number(-0.0), Value::Number(2.0)])
    }),
    ("dense array of mixed values", "['a', null, true]", || {
        dense(3, &[Value::str("a"), Value::Null, Value::Bool(true)])
    }),
    ("dense array longer than its elements", "(() => { const a = [1, 2]; a.length = 4; return a; })()", || {
        dense(4, &[Value::Number(1.0), Value::Number(2.0)])
    }),
    ("frozen dense array", "Object.freeze([1, 2])", || {
        dense(2, &[Value::Number(1.0), Value::Number(2.0)])
    }),
    (
        "dense array with an extra key",
        "(() => { const a = [1, 2]; a.k = 'v'; return a; })()",
        || {
            one(Object::Array {
                length: 2,
                elements: vec![(0, Value::Number(1.0)), (1, Value::Number(2.0))],
                extra: vec![(s("k"), Value::str("v"))],
            })
        },
    ),
    (
        "dense array with a symbol key",
        "(() => { const a = [1, 2]; a[Symbol('s')] = 3; return a; })()",
        || dense(2, &[Value::Number(1.0), Value::Number(2.0)]),
    ),
    (
        "array element made non-enumerable",
        "(() => { const a = [1, 2, 3]; Object.defineProperty(a, 1, { enumerable: false }); return a; })()",
        || {
            one(Object::Array {
                length: 3,
                elements: vec![(0, Value::Number(1.0)), (2, Value::Number(3.0))],
                extra: vec![],
            })
        },
    ),
    (
        "huge sparse array allocates nothing",
        "(() => { const a = []; a[4294967294] = 1; return a; })()",
        || {
            one(Object::Array {
                length: 4_294_967_295,
                elements: vec![(4_294_967_294, Value::Number(1.0))],
                extra: vec![],
            })
        },
    ),
    ("map", "new Map([[1, 'a'], ['k', null]])", || {
        one(Object::Map(vec![
            (Value::Number(1.0), Value::str("a")),
            (Value::str("k"), Value::Null),
        ]))
    }),
    ("set", "new Set([3, 'x'])", || {
        one(Object::Set(vec![Value::Number(3.0), Value::str("x")]))
    }),
    ("date", "new Date(1700000000000)", || {
        one(Object::Date(1_700_000_000_000.0))
    }),
    ("invalid date", "new Date(NaN)", || {
        one(Object::Date(f64::NAN))
    }),
    ("regexp", "/a+b/gi", || {
        one(Object::RegExp {
            source: s("a+b"),
            flags: "gi".into(),
        })
    }),
    (
        "range error with cause",
        "new RangeError('bad', { cause: 5 })",
        || {
            one(Object::Error {
                name: ErrorName::RangeError,
                message: Some(s("bad")),
                stack: None,
                cause: Some(Value::Number(5.0)),
            })
        },
    ),
    (
        "unknown error name becomes Error",
        "(() => { const e = new Error('m'); e.name = 'Custom'; return e; })()",
        || {
            one(Object::Error {
                name: ErrorName::Error,
                message: Some(s("m")),
                stack: None,
                cause: None,
            })
        },
    ),
    ("array buffer", "new Uint8Array([1, 2, 3]).buffer", || {
        one(Object::ArrayBuffer(vec![1, 2, 3]))
    }),
    (
        "typed array over its buffer",
        "new Int16Array([1, -1])",
        || {
            let mut g = Graph::undefined();
            let view = g.push(Object::Plain(vec![]));
            let buf = g.push(Object::ArrayBuffer(vec![1, 0, 255, 255]));
            g.objects[0] = Object::View {
                kind: ViewKind::Int16,
                buffer: buf,
                byte_offset: 0,
                length: 2,
            };
            g.root = Value::Object(view);
            g
        },
    ),
    (
        "boxed primitives",
        "[Object(true), Object(1.5), Object('s'), Object(3n)]",
        || {
            let mut g = Graph::undefined();
            let arr = g.push(Object::Plain(vec![]));
            let b = g.push(Object::BooleanObject(true));
            let n = g.push(Object::NumberObject(1.5));
            let st = g.push(Object::StringObject(s("s")));
            let bi = g.push(Object::BigIntObject("3".into()));
            g.objects[0] = Object::Array {
                length: 4,
                elements: vec![
                    (0, Value::Object(b)),
                    (1, Value::Object(n)),
                    (2, Value::Object(st)),
                    (3, Value::Object(bi)),
                ],
                extra: vec![],
            };
            g.root = Value::Object(arr);
            g
        },
    ),
    (
        "cycle preserved",
        "(() => { const o = {}; o.self = o; return o; })()",
        || {
            let mut g = Graph::undefined();
            let id = g.push(Object::Plain(vec![]));
            g.objects[0] = Object::Plain(vec![(s("self"), Value::Object(id))]);
            g.root = Value::Object(id);
            g
        },
    ),
    (
        // HTML reads an array's length when it serializes the array, with its elements. A
        // getter elsewhere that runs after the array is reached but before it is read (here
        // `b`'s, which is read first) grows it: the length read with the elements stands.
        "array a getter grows before it is read",
        "(() => { const a = [1]; return { a, b: { get g() { a.push(2); return 0 } } }; })()",
        || {
            let mut g = Graph::undefined();
            let root = g.push(Object::Plain(vec![]));
            let a = g.push(Object::Array {
                length: 2,
                elements: vec![(0, Value::Number(1.0)), (1, Value::Number(2.0))],
                extra: vec![],
            });
            let b = g.push(Object::Plain(vec![(s("g"), Value::Number(0.0))]));
            g.objects[0] = Object::Plain(vec![(s("a"), Value::Object(a)), (s("b"), Value::Object(b))]);
            g.root = Value::Object(root);
            g
        },
    ),
    (
        "shared reference preserved",
        "(() => { const s = {v: 1}; return [s, s]; })()",
        || {
            let mut g = Graph::undefined();
            let arr = g.push(Object::Plain(vec![]));
            let shared = g.push(Object::Plain(vec![(s("v"), Value::Number(1.0))]));
            g.objects[0] = Object::Array {
                length: 2,
                elements: vec![(0, Value::Object(shared)), (1, Value::Object(shared))],
                extra: vec![],
            };
            g.root = Value::Object(arr);
            g
        },
    ),
];

#[wasm_bindgen_test(unsupported = test)]
fn guest_values_clone_out_faithfully() {
    let mut r = realm();
    for (name, src, build) in OUT_CASES {
        let got = ok(&mut r, src);
        let want = build();
        assert!(same(&got, &want), "{name}: got {got:?}, want {want:?}");
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn shared_reference_is_one_object() {
    let mut r = realm();
    let g = ok(&mut r, "(() => { const s = {v: 1}; return [s, s]; })()");
    let Value::Object(root) = g.root else {
        panic!()
    };
    let Some(Object::Array { elements, .. }) = g.get(root) else {
        panic!()
    };
    assert_eq!(elements[0].1, elements[1].1);
}

// ---------------------------------------------------------------- host → guest → host

const ROUND_TRIP: &[(&str, Build, &str)] = &[
    (
        "nested plain",
        || {
            plain(vec![
                ("a", Value::Number(1.0)),
                ("__proto__", Value::str("data, not a prototype")),
            ])
        },
        "Object.getPrototypeOf(x) === Object.prototype && Object.keys(x).join() === 'a,__proto__'",
    ),
    (
        "negative zero",
        || prim(Value::Number(-0.0)),
        "Object.is(x, -0)",
    ),
    (
        "bigint",
        || prim(Value::BigInt("123456789012345678901234567890".into())),
        "x === 123456789012345678901234567890n",
    ),
    (
        "lone surrogate",
        || prim(Value::String(Text::Utf16(vec![0xDC00]))),
        "x.length === 1 && x.charCodeAt(0) === 0xDC00",
    ),
    (
        "sparse array",
        || {
            one(Object::Array {
                length: 5,
                elements: vec![(4, Value::Bool(true))],
                extra: vec![],
            })
        },
        "Array.isArray(x) && x.length === 5 && !(0 in x) && x[4] === true",
    ),
    (
        "map keeps order",
        || {
            one(Object::Map(vec![
                (Value::str("z"), Value::Number(1.0)),
                (Value::str("a"), Value::Number(2.0)),
            ]))
        },
        "x instanceof Map && [...x.keys()].join() === 'z,a'",
    ),
    (
        "set",
        || one(Object::Set(vec![Value::Number(1.0), Value::Number(2.0)])),
        "x instanceof Set && x.has(2)",
    ),
    (
        "date",
        || one(Object::Date(0.0)),
        "x instanceof Date && x.getTime() === 0",
    ),
    (
        "regexp",
        || {
            one(Object::RegExp {
                source: s("^a$"),
                flags: "m".into(),
            })
        },
        "x instanceof RegExp && x.test('b\\na') && x.flags === 'm'",
    ),
    (
        "type error",
        || {
            one(Object::Error {
                name: ErrorName::TypeError,
                message: Some(s("m")),
                stack: Some(s("host stack")),
                cause: Some(Value::Number(1.0)),
            })
        },
        "x instanceof TypeError && x.message === 'm' && x.cause === 1 && x.stack === 'host stack'",
    ),
    (
        "data view window",
        || {
            let mut g = Graph::undefined();
            let v = g.push(Object::Plain(vec![]));
            let b = g.push(Object::ArrayBuffer(vec![0, 1, 2, 3, 4, 5, 6, 7]));
            g.objects[0] = Object::View {
                kind: ViewKind::DataView,
                buffer: b,
                byte_offset: 2,
                length: 4,
            };
            g.root = Value::Object(v);
            g
        },
        "x instanceof DataView && x.byteOffset === 2 && x.byteLength === 4 && x.getUint8(0) === 2",
    ),
    (
        "float64 view",
        || {
            let mut g = Graph::undefined();
            let v = g.push(Object::Plain(vec![]));
            let b = g.push(Object::ArrayBuffer(1.5f64.to_le_bytes().to_vec()));
            g.objects[0] = Object::View {
                kind: ViewKind::Float64,
                buffer: b,
                byte_offset: 0,
                length: 1,
            };
            g.root = Value::Object(v);
            g
        },
        "x instanceof Float64Array && x[0] === 1.5",
    ),
    (
        "an error without a message has no own message",
        || {
            one(Object::Error {
                name: ErrorName::TypeError,
                message: None,
                stack: None,
                cause: None,
            })
        },
        "x instanceof TypeError && !Object.hasOwn(x, 'message') && x.message === ''",
    ),
    (
        "an error message keeps its lone surrogate",
        || {
            one(Object::Error {
                name: ErrorName::RangeError,
                message: Some(Text::Utf16(vec![0x61, 0xD800])),
                stack: None,
                cause: Some(Value::Number(1.0)),
            })
        },
        "x instanceof RangeError && x.message.length === 2 && x.message.charCodeAt(1) === 0xD800 && !Object.getOwnPropertyDescriptor(x, 'message').enumerable && x.cause === 1",
    ),
    (
        "cycle",
        || {
            let mut g = Graph::undefined();
            let id = g.push(Object::Plain(vec![]));
            g.objects[0] = Object::Plain(vec![(s("me"), Value::Object(id))]);
            g.root = Value::Object(id);
            g
        },
        "x.me === x",
    ),
];

#[wasm_bindgen_test(unsupported = test)]
fn host_values_arrive_as_guest_values_and_return_unchanged() {
    let mut r = realm();
    for (name, build, check) in ROUND_TRIP {
        let g = build();
        r.set("x", &g).unwrap_or_else(|e| panic!("{name}: {e}"));
        truthy(&mut r, check);
        let back = ok(&mut r, "x");
        assert!(
            same(&g, &back),
            "{name}: round trip changed {g:?} into {back:?}"
        );
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn setters_on_guest_prototypes_do_not_run_during_clone_in() {
    let mut r = realm();
    ok(
        &mut r,
        "globalThis.hits = 0; Object.defineProperty(Object.prototype, 'a', { set(v) { hits++ }, configurable: true }); Map.prototype.set = () => { hits += 100 }; 0",
    );
    r.set("x", &plain(vec![("a", Value::Number(1.0))]))
        .expect("set");
    r.set(
        "m",
        &one(Object::Map(vec![(Value::Number(1.0), Value::Number(2.0))])),
    )
    .expect("set");
    truthy(&mut r, "hits === 0 && x.a === 1 && m.get(1) === 2");
}

/// Objects with the same keys in the same order are laid out together (patch 23): each
/// must still own its values, take changes alone, and read like a literal's properties.
#[wasm_bindgen_test(unsupported = test)]
fn objects_sharing_keys_arrive_each_with_its_own_values() {
    let mut r = realm();
    let mut g = Graph::undefined();
    let list = g.push(Object::Plain(vec![]));
    let rows: Vec<Vec<(&str, Value)>> = vec![
        vec![("a", Value::Number(1.0)), ("b", Value::str("x"))],
        vec![("a", Value::Number(2.0)), ("b", Value::str("y"))],
        vec![("b", Value::Number(3.0)), ("a", Value::Number(4.0))],
        vec![("0", Value::Number(5.0)), ("a", Value::Number(6.0))],
        vec![("a", Value::Number(7.0)), ("a", Value::Number(8.0))],
        vec![("a", Value::Object(ObjId(1))), ("b", Value::Object(ObjId(0)))],
        vec![],
    ];
    let mut elements = Vec::new();
    for (i, row) in rows.into_iter().enumerate() {
        let id = g.push(Object::Plain(
            row.into_iter().map(|(k, v)| (s(k), v)).collect(),
        ));
        elements.push((u32::try_from(i).unwrap(), Value::Object(id)));
    }
    g.objects[0] = Object::Array {
        length: u32::try_from(elements.len()).unwrap(),
        elements,
        extra: vec![],
    };
    g.root = Value::Object(list);
    r.set("x", &g).expect("set");
    for check in [
        "x.map(o => Object.keys(o).join()).join('|') === 'a,b|a,b|b,a|0,a|a|a,b|'",
        "x[0].a === 1 && x[0].b === 'x' && x[1].a === 2 && x[1].b === 'y'",
        "x[2].a === 4 && x[2].b === 3 && x[3][0] === 5 && x[3].a === 6 && x[4].a === 8",
        "x[5].a === x[0] && x[5].b === x",
        "x.slice(0, 6).every(o => Object.getPrototypeOf(o) === Object.prototype && Object.isExtensible(o))",
        "x.slice(0, 6).every(o => Object.values(Object.getOwnPropertyDescriptors(o)).every(d => d.writable && d.enumerable && d.configurable))",
        // One object's change is its own: no storage or shape is shared by mistake.
        "x[0].c = 9; delete x[1].a; x[1].b = 'z'; Object.keys(x[0]).join() === 'a,b,c' && Object.keys(x[1]).join() === 'b' && x[0].b === 'x' && x[5].c === undefined",
        // A read site that saw a literal of the same keys reads crossed objects right.
        "const read = (o) => o.b; read({ a: 0, b: 'lit' }) === 'lit' && read(x[0]) === 'x' && read(x[5]) === x",
        "Object.defineProperty(x[5], 'a', { get() { return 'g' } }); x[5].a === 'g' && x[0].a === 1",
    ] {
        truthy(&mut r, check);
    }
}

/// An object with more keys than a layout takes (Boa makes such an object unique at 1,024
/// transitions) arrives whole, and one of 1,000 keys twice, each with its own values.
#[wasm_bindgen_test(unsupported = test)]
fn objects_with_more_keys_than_a_layout_arrive_whole() {
    let mut r = realm();
    let mut g = Graph::undefined();
    let list = g.push(Object::Plain(vec![]));
    let mut elements = Vec::new();
    for (i, n) in [1500_u32, 1000, 1000].into_iter().enumerate() {
        let entries = (0..n)
            .map(|k| (s(&format!("k{k}")), Value::Number(f64::from(k) + 0.5 * i as f64)))
            .collect();
        elements.push((u32::try_from(i).unwrap(), Value::Object(g.push(Object::Plain(entries)))));
    }
    g.objects[0] = Object::Array {
        length: 3,
        elements,
        extra: vec![],
    };
    g.root = Value::Object(list);
    r.set("x", &g).expect("set");
    for check in [
        "x.map(o => Object.keys(o).length).join() === '1500,1000,1000'",
        "Object.keys(x[0])[1499] === 'k1499' && x[0].k1499 === 1499 && x[0].k0 === 0",
        "x[1].k999 === 999.5 && x[2].k999 === 1000 && x[1].k0 === 0.5",
        "x[1].k5 = 'five'; x[2].k5 === 6 && x[1].k5 === 'five' && x[0].k5 === 5",
        "Object.keys(x[2]).join() === Array.from({ length: 1000 }, (_, k) => 'k' + k).join()",
    ] {
        truthy(&mut r, check);
    }
}

/// Plain objects of one shape leave by that shape's key names (patch 23): objects whose
/// shape has a hidden, symbol-keyed or accessor property, an index key, or a getter that
/// changes a later one, must still leave exactly as JSON sees them.
#[wasm_bindgen_test(unsupported = test)]
fn objects_sharing_a_shape_leave_with_their_own_keys_and_values() {
    let mut r = realm();
    ok(
        &mut r,
        "globalThis.later = { x: 1, y: 2 }; globalThis.gone = { x: 1, y: 2 };
         globalThis.v = [
           { x: 1, y: 2 }, { x: 3, y: 4 },
           Object.defineProperty({ x: 5, y: 6 }, 'y', { enumerable: false }),
           { x: 7, y: 8, [Symbol('s')]: 9 },
           { x: 10, get y() { return 11 } },
           Object.assign(Object.create(null), { x: 12, y: 13 }),
           new (class { constructor() { this.x = 14; this.y = 15 } })(),
           { 1: 'i', x: 16, y: 17 },
           later, gone,
           { get g() { later.x = 99; delete gone.y; return 1 } },
         ]; 0",
    );
    let g = ok(&mut r, "v");
    r.set("back", &g).expect("set");
    truthy(
        &mut r,
        "JSON.stringify(back) === JSON.stringify(v) && back[8].x === 99 && !('y' in back[9])",
    );
}

// ---------------------------------------------------------------- refused values

const NOT_CLONEABLE: &[(&str, &str, &str)] = &[
    (
        "({ model: { author: { avatar() {} } } })",
        "$.model.author.avatar",
        "function",
    ),
    ("[1, Symbol('s')]", "$[1]", "symbol"),
    ("({ p: new Proxy({}, {}) })", "$.p", "Proxy"),
    (
        "({ 'odd key': Promise.resolve(1) })",
        "$[\"odd key\"]",
        "Promise",
    ),
    ("new Map([[1, new WeakMap()]])", "$<value #0>", "WeakMap"),
    ("({ s: new WeakSet() })", "$.s", "WeakSet"),
    ("({ f: new Proxy(function(){}, {}) })", "$.f", "Proxy"),
];

#[wasm_bindgen_test(unsupported = test)]
fn uncloneable_values_are_refused_with_their_path() {
    let mut r = realm();
    for (src, path, what) in NOT_CLONEABLE {
        let e = eval(&mut r, src).expect_err(src);
        assert_eq!(e.code, ErrorCode::NotCloneable, "{src}: {e}");
        assert_eq!(e.details.path.as_deref(), Some(*path), "{src}");
        assert_eq!(e.details.value_type.as_deref(), Some(*what), "{src}");
    }
}

// ---------------------------------------------------------------- limits

fn limited(instructions: u64, timeout_ms: u64) -> Realm {
    let mut o = RealmOptions {
        allow_code_generation: true,
        ..Default::default()
    };
    o.limits.instructions = instructions;
    o.limits.timeout = web_time::Duration::from_millis(timeout_ms);
    Realm::new(o, None).expect("realm")
}

const RUNAWAYS: &[(&str, &str, Limit)] = &[
    ("infinite loop", "while (true) {}", Limit::Instructions),
    (
        "loop inside a builtin callback",
        "[1].map(() => { for (;;) {} })",
        Limit::Instructions,
    ),
    (
        "exponential recursion",
        "function f(n) { return n ? f(n - 1) + f(n - 1) : 0 } f(60)",
        Limit::Instructions,
    ),
    (
        "unbounded recursion",
        "function f() { return f() + 1 } f()",
        Limit::Recursion,
    ),
    (
        "recursion through a builtin",
        "function f() { return [1].map(f) } f()",
        Limit::Recursion,
    ),
    (
        "catch cannot swallow it",
        "for (;;) { try { for (;;) {} } catch (e) {} }",
        Limit::Instructions,
    ),
    (
        "finally cannot extend it",
        "try { for (;;) {} } finally { for (;;) {} }",
        Limit::Instructions,
    ),
    (
        "async runaway in the job queue",
        "(async () => { for (;;) { await 0 } })(); 1",
        Limit::Instructions,
    ),
    (
        "promise flood",
        "function p() { Promise.resolve().then(p); Promise.resolve().then(p) } p(); 1",
        Limit::Instructions,
    ),
];

#[wasm_bindgen_test(unsupported = test)]
fn runaways_stop_with_the_named_limit_and_the_realm_lives_on() {
    // A million instructions is ample for each row; the promise rows spend most of their
    // time in Boa's promise machinery, which the budget does not count, so a bigger budget
    // only makes the suite slow.
    let mut r = limited(1_000_000, 60_000);
    for (name, src, limit) in RUNAWAYS {
        let e = eval(&mut r, src).expect_err(name);
        assert_eq!(e.code, ErrorCode::LimitExceeded, "{name}: {e}");
        assert_eq!(e.details.limit, Some(*limit), "{name}: {e}");
        // State survives and the next call runs normally.
        assert_eq!(
            ok(&mut r, "globalThis.n = (globalThis.n || 0) + 1; 2 + 2").root,
            Value::Number(4.0),
            "{name}"
        );
    }
    assert_eq!(ok(&mut r, "n").root, Value::Number(RUNAWAYS.len() as f64));
}

/// Runaways stopped deep inside guest calls made by a builtin, an accessor, a trap, a
/// generator or a constructor: each stop must unwind every frame it interrupted.
const STOPS_UNDER_CALLBACKS: &[&str] = &[
    "[1].forEach(() => g())",
    "[1].map(() => g())",
    "[1].filter(() => g())",
    "[1].some(() => g())",
    "[1].every(() => g())",
    "[1, 2].reduce(() => g())",
    "[1, 2].reduceRight(() => g())",
    "[2, 1].sort(() => g())",
    "[2, 1].toSorted(() => g())",
    "[1].find(() => g())",
    "[1].flatMap(() => g())",
    "Array.from([1], () => g())",
    "'a'.replace(/a/, () => g())",
    "JSON.parse('[1]', () => g())",
    "JSON.stringify({ toJSON: () => g() })",
    "Object.assign({}, { get a() { return g() } })",
    "new Proxy({}, { get: () => g() }).x",
    "[...(function* () { yield g() })()]",
    "Reflect.construct(class { constructor() { g() } }, [])",
    "[1].map(() => [1].forEach(() => [2, 1].sort(() => g())))",
];

/// The deepest `d(n)` this realm completes: what a leaked frame or stack slot would lower.
fn deepest_recursion(r: &mut Realm) -> u32 {
    ok(r, "function d(n) { return n ? d(n - 1) : 0 }");
    let (mut lo, mut hi) = (0, 1_000);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        match eval(r, &format!("d({mid})")) {
            Ok(_) => lo = mid,
            Err(e) => {
                assert!(
                    matches!(e.details.limit, Some(Limit::Recursion | Limit::Stack)),
                    "d({mid}): {e}"
                );
                hi = mid;
            }
        }
    }
    lo
}

#[wasm_bindgen_test(unsupported = test)]
fn stops_under_callbacks_leave_no_frames_behind() {
    // Small budgets keep each stop quick. With the small stack, a leaked stack slot, not
    // only a leaked frame, lowers the depth reached.
    for max_stack_size in [64 * 1024, 1_500] {
        let mut o = RealmOptions {
            allow_code_generation: true,
            ..Default::default()
        };
        o.limits.instructions = 20_000;
        o.limits.max_stack_size = max_stack_size;
        let mut r = Realm::new(o, None).expect("realm");
        let fresh = deepest_recursion(&mut r);
        assert!(fresh > 100, "{fresh}");
        ok(&mut r, "function g() { return (function h() { for (;;) {} })() }");
        ok(&mut r, "function stop() { return [1].map(() => g()) }");
        // A leak of one frame a stop would pass the recursion limit well within this.
        let stops = fresh / 4 + 1;
        for src in STOPS_UNDER_CALLBACKS {
            for _ in 0..stops {
                let e = eval(&mut r, src).expect_err(src);
                assert_eq!(e.details.limit, Some(Limit::Instructions), "{src}: {e}");
            }
            assert_eq!(deepest_recursion(&mut r), fresh, "{max_stack_size}: after {src}");
        }
        let mut no_args = Graph::undefined();
        let list = no_args.push(Object::Array {
            length: 0,
            elements: vec![],
            extra: vec![],
        });
        no_args.root = Value::Object(list);
        for _ in 0..stops {
            let e = r.call("stop", &no_args).expect_err("stop");
            assert_eq!(e.details.limit, Some(Limit::Instructions), "call: {e}");
        }
        assert_eq!(deepest_recursion(&mut r), fresh, "{max_stack_size}: after calls");
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn deadline_stops_a_loop_promptly() {
    let mut r = limited(u64::MAX / 2, 50);
    let start = web_time::Instant::now();
    let e = eval(&mut r, "for (;;) {}").expect_err("deadline");
    let took = start.elapsed();
    assert_eq!(e.details.limit, Some(Limit::Deadline), "{e}");
    assert!(took.as_millis() < 2_000, "took {took:?}");
}

/// The worker's memory ceiling stops guest bytecode inside the step that passes it, not
/// at its deadline. Only wasm has a linear memory to cap.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test]
fn memory_ceiling_stops_an_allocating_loop_within_its_step() {
    use isolated_realm::TerminationReason;
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            isolated_realm::budget::set_memory_ceiling(0);
        }
    }
    let size = || core::arch::wasm32::memory_size::<0>() as u64 * 65_536;
    let mut r = limited(u64::MAX / 2, 20_000);
    let ceiling = size() + (16 << 20);
    let _reset = Reset;
    isolated_realm::budget::set_memory_ceiling(ceiling);
    let start = web_time::Instant::now();
    let e = eval(&mut r, "const a = []; for (;;) a.push({ a: 1, b: [1, 2, 3] })")
        .expect_err("memory");
    let took = start.elapsed();
    assert_eq!(e.code, ErrorCode::Terminated, "{e}");
    assert_eq!(e.details.reason, Some(TerminationReason::Memory), "{e}");
    assert!(size() < ceiling + (8 << 20), "grew to {} past {ceiling}", size());
    assert!(took.as_millis() < 10_000, "took {took:?}");
}

#[wasm_bindgen_test(unsupported = test)]
fn budget_is_per_entry_not_per_realm() {
    let mut r = limited(2_000_000, 60_000);
    for _ in 0..20 {
        ok(
            &mut r,
            "{ let s = 0; for (let i = 0; i < 50000; i++) s += i; s }",
        );
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn loop_iteration_limit_applies_when_set() {
    let mut o = RealmOptions {
        allow_code_generation: true,
        ..Default::default()
    };
    o.limits.max_loop_iterations = Some(1000);
    let mut r = Realm::new(o, None).expect("realm");
    let e = eval(&mut r, "for (let i = 0; i < 5000; i++) {}").expect_err("loop");
    assert_eq!(e.details.limit, Some(Limit::LoopIterations));
}

#[wasm_bindgen_test(unsupported = test)]
fn clone_caps_end_huge_values_with_a_typed_error() {
    let mut o = RealmOptions {
        allow_code_generation: true,
        ..Default::default()
    };
    o.limits.clone.max_depth = 50;
    o.limits.clone.max_objects = 1000;
    o.limits.clone.max_bytes = 100_000;
    let mut r = Realm::new(o, None).expect("realm");
    let cases: &[(&str, Limit)] = &[
        (
            "let o = {}; for (let i = 0; i < 100; i++) o = {o}; o",
            Limit::CloneDepth,
        ),
        (
            "Array.from({length: 2000}, () => ({}))",
            Limit::CloneObjects,
        ),
        ("'x'.repeat(200000)", Limit::CloneBytes),
        ("new ArrayBuffer(200000)", Limit::CloneBytes),
    ];
    for (src, limit) in cases {
        let e = eval(&mut r, src).expect_err(src);
        assert_eq!(e.code, ErrorCode::LimitExceeded, "{src}: {e}");
        assert_eq!(e.details.limit, Some(*limit), "{src}");
        assert!(e.details.path.is_some(), "{src}: no path");
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn deep_values_do_not_overflow_the_native_stack() {
    let mut o = RealmOptions {
        allow_code_generation: true,
        ..Default::default()
    };
    o.limits.clone.max_depth = 100_000;
    let mut r = Realm::new(o, None).expect("realm");
    let g = ok(
        &mut r,
        "let o = null; for (let i = 0; i < 50000; i++) o = {o}; o",
    );
    assert_eq!(g.objects.len(), 50_000);
}

#[wasm_bindgen_test(unsupported = test)]
fn giant_allocations_are_catchable_range_errors() {
    let mut r = realm();
    for src in [
        "try { 'x'.repeat(2 ** 30); 'no' } catch (e) { e.name }",
        "try { new ArrayBuffer(2 ** 31); 'no' } catch (e) { e.name }",
        "try { const a = []; a.length = 2 ** 32; 'no' } catch (e) { e.name }",
        "try { new Array(2 ** 32); 'no' } catch (e) { e.name }",
    ] {
        assert_eq!(ok(&mut r, src).root, Value::str("RangeError"), "{src}");
    }
    // A long but legal length allocates nothing.
    assert_eq!(
        ok(&mut r, "const a = []; a.length = 2 ** 32 - 1; a.length").root,
        Value::Number(4_294_967_295.0)
    );
}

// ---------------------------------------------------------------- errors

#[wasm_bindgen_test(unsupported = test)]
fn guest_throws_carry_name_message_and_location() {
    let mut r = realm();
    let e = r
        .eval(
            "\nfunction f() {\n  null.x;\n}\nf();",
            &EvalOptions {
                filename: "card.js".into(),
            },
        )
        .expect_err("throw");
    assert_eq!(e.code, ErrorCode::GuestThrew);
    assert_eq!(e.details.name.as_deref(), Some("TypeError"));
    let loc = e.details.location.expect("location");
    assert_eq!((loc.filename.as_str(), loc.line), ("card.js", 3));
    assert!(e.details.stack.expect("stack").contains("card.js:3"));

    let e = eval(&mut r, "throw new RangeError('nope')").expect_err("throw");
    assert_eq!(e.details.name.as_deref(), Some("RangeError"));
    assert_eq!(e.details.guest_message.as_deref(), Some("nope"));

    let e = eval(&mut r, "throw 42").expect_err("throw");
    assert_eq!(
        (
            e.details.name.as_deref(),
            e.details.guest_message.as_deref()
        ),
        (Some("value"), Some("42"))
    );

    // A promise that settles within the entry is unwrapped; its rejection is a guest throw.
    let e = eval(&mut r, "(async () => { await null; throw new Error('async') })()")
        .expect_err("rejected");
    assert_eq!(
        (e.code, e.details.guest_message.as_deref()),
        (ErrorCode::GuestThrew, Some("async"))
    );
    assert_eq!(ok(&mut r, "(async () => { await null; return 7 })()").root, Value::Number(7.0));
    // One still pending cannot be waited for synchronously.
    let e = eval(&mut r, "new Promise(() => {})").expect_err("pending");
    assert_eq!(
        (e.code, e.details.value_type.as_deref()),
        (ErrorCode::NotCloneable, Some("pending Promise"))
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn syntax_errors_carry_line_and_column() {
    let mut r = realm();
    let e = r
        .eval(
            "let a = 1;\nlet b = ;",
            &EvalOptions {
                filename: "m.js".into(),
            },
        )
        .expect_err("syntax");
    assert_eq!(e.code, ErrorCode::Syntax);
    let loc = e.details.location.expect("location");
    assert_eq!((loc.filename.as_str(), loc.line), ("m.js", 2));
    assert!(loc.column > 0);

    // Columns count code points: the astral character before the error is one column.
    let e = r
        .eval(
            "let s = '\u{1F600}\u{e9}'; let b = ;",
            &EvalOptions {
                filename: "astral.js".into(),
            },
        )
        .expect_err("syntax");
    let loc = e.details.location.expect("location");
    assert_eq!((loc.line, loc.column), (1, 23), "{}", e.message);
}

#[wasm_bindgen_test(unsupported = test)]
fn source_text_keeps_every_character() {
    // Scripts, `eval` and JSON.parse's reviver all parse as UTF-16 (src/parse.rs): source
    // text and positions must be the same code points that came in.
    let mut r = realm();
    let f = "function caf\u{e9}() { return '\u{1F600}\u{4e2d}\\u{1F600}' }";
    assert_eq!(
        ok(&mut r, &format!("({f}).toString()")).root,
        Value::String(f.into())
    );
    assert_eq!(
        ok(&mut r, &format!("eval(String.raw`({f})`).toString()")).root,
        Value::String(f.into())
    );
    let reviver = "JSON.parse('{\"a\":\"\u{e9}\u{1F600}\",\"b\":1.50}', (k, v, c) => k === '' ? v : c.source)";
    assert_eq!(
        ok(&mut r, &format!("JSON.stringify({reviver})")).root,
        Value::String("{\"a\":\"\\\"\u{e9}\u{1F600}\\\"\",\"b\":\"1.50\"}".into())
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn code_generation_can_be_denied() {
    let o = RealmOptions {
        allow_code_generation: false,
        ..Default::default()
    };
    let mut r = Realm::new(o, None).expect("realm");
    for src in [
        "eval('1')",
        "(0, eval)('1')",
        "Function('return 1')()",
        "(async function(){}).constructor('return 1')",
        "(function*(){}).constructor('yield 1')",
        "(async function*(){}).constructor('yield 1')",
    ] {
        let e = eval(&mut r, src).expect_err(src);
        assert_eq!(e.code, ErrorCode::PolicyDenied, "{src}: {e}");
    }
    // The guest can catch the denial, and ordinary code still runs.
    assert_eq!(
        ok(&mut r, "try { eval('1') } catch (e) { e.name }").root,
        Value::str("EvalError")
    );
    // A guest's own EvalError after a caught denial is still the guest's error.
    let e = eval(
        &mut r,
        "try { Function('1') } catch (e) {} throw new EvalError('mine')",
    )
    .expect_err("guest throw");
    assert_eq!(e.code, ErrorCode::GuestThrew, "{e}");
    // Allowed by default: code stays inside the guest.
    let mut r = realm();
    assert_eq!(
        ok(&mut r, "Function('return typeof window')()").root,
        Value::str("undefined")
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn use_after_dispose_is_a_typed_error() {
    let mut r = realm();
    r.dispose();
    assert_eq!(
        eval(&mut r, "1").expect_err("disposed").code,
        ErrorCode::Disposed
    );
    assert_eq!(
        r.set("x", &prim(Value::Null)).expect_err("disposed").code,
        ErrorCode::Disposed
    );
    assert_eq!(
        r.call("f", &prim(Value::Undefined))
            .expect_err("disposed")
            .code,
        ErrorCode::Disposed
    );
}

// ---------------------------------------------------------------- the collector's heap

/// The heap's bytes now, as a signed number: the realms of a thread share the heap, and
/// under wasm-bindgen-test so do the tests, so differences can go either way.
fn heap_now() -> i64 {
    i64::try_from(heap::allocated_bytes()).unwrap_or(i64::MAX)
}

#[wasm_bindgen_test(unsupported = test)]
fn a_lone_realms_memory_is_collected_at_its_dispose() {
    heap::collect();
    let base = heap_now();
    let mut r = realm();
    ok(
        &mut r,
        "globalThis.keep = Array.from({ length: 5000 }, (_, i) => ({ i, s: 'x' + i })); 0",
    );
    let held = heap_now();
    assert!(held > base + 5000 * 32, "the guest's objects are counted: {base} → {held}");
    r.dispose();
    let after = heap_now();
    assert!(
        after < base + (held - base) / 10,
        "dispose gave the realm's memory back: {base} → {held} → {after}"
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn disposing_many_realms_collects_them_and_spares_the_live_one() {
    let mut survivor = realm();
    ok(&mut survivor, "globalThis.n = 41; globalThis.o = { deep: [{ x: 'kept' }] }; 0");
    heap::collect();
    let base = heap_now();
    let mut batch: Vec<Realm> = (0..20).map(|_| realm()).collect();
    for r in &mut batch {
        ok(r, "globalThis.a = Array.from({ length: 200 }, (_, i) => ({ i })); 0");
    }
    let peak = heap_now();
    for r in &mut batch {
        r.dispose();
    }
    let after = heap_now();
    assert!(
        after < base + (peak - base) / 10,
        "the batch was collected: {base} → {peak} → {after}"
    );
    // The collections ran while it lived: its objects and engine must be intact.
    assert_eq!(ok(&mut survivor, "n + 1").root, Value::Number(42.0));
    assert_eq!(
        ok(&mut survivor, "o.deep[0].x + [1, 2, 3].map((x) => x * 2).join()").root,
        Value::String(Text::Utf8("kept2,4,6".into()))
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn a_small_dispose_does_not_collect_over_a_large_live_realm() {
    // Collecting here would mark the large realm to free a small one: the rule waits until
    // the disposed realms are half the heap.
    let mut large = realm();
    ok(
        &mut large,
        "globalThis.big = Array.from({ length: 60000 }, (_, i) => ({ i, s: 'x' + i })); 0",
    );
    heap::collect();
    let mut small = realm();
    ok(&mut small, "globalThis.x = [1, 2, 3]; 0");
    let before = heap_now();
    small.dispose();
    assert_eq!(heap_now(), before, "the small realm's dispose ran no collection");
    // Once the disposed realms add up to half the heap, a dispose does collect.
    let mut growing = realm();
    ok(
        &mut growing,
        "globalThis.big = Array.from({ length: 90000 }, (_, i) => ({ i, s: 'y' + i })); 0",
    );
    let held = heap_now();
    growing.dispose();
    assert!(heap_now() < held, "{held} → {}", heap_now());
    assert_eq!(ok(&mut large, "big.length + big[59999].i").root, Value::Number(119_999.0));
}

#[wasm_bindgen_test(unsupported = test)]
fn the_collector_runs_again_once_the_heap_has_doubled() {
    // Patch boa_gc-05: after a collection, the next is due at twice what survived (the
    // threshold is never lowered). Before it, 1/0.7 of what survived: a large live heap was
    // marked again after growing by 43 %. Garbage in small steps shows each collection as
    // a drop.
    let mut r = realm();
    ok(
        &mut r,
        "globalThis.keep = Array.from({ length: 60000 }, (_, i) => ({ i, s: 'k' + i })); 0",
    );
    let mut samples = vec![heap_now()];
    for _ in 0..200 {
        ok(&mut r, "for (let i = 0; i < 800; i++) ({ i, j: [i] }); 0");
        samples.push(heap_now());
    }
    // (what survived a collection, the heap just before the next one)
    let drops: Vec<usize> = (1..samples.len())
        .filter(|&k| samples[k] < samples[k - 1])
        .collect();
    let cycles: Vec<(i64, i64)> = drops
        .windows(2)
        .map(|w| (samples[w[0]], samples[w[1] - 1]))
        .collect();
    assert!(
        cycles.len() >= 2,
        "at least three collections: drops at {drops:?} in {samples:?}"
    );
    for (live, peak) in cycles {
        assert!(live > 1 << 20, "a live heap past the 1 MB start: {live}");
        let growth = peak as f64 / live as f64;
        // Under wasm-bindgen-test the tests share one heap, whose threshold an earlier
        // test's larger heap may have raised past twice this one's.
        let most = if cfg!(target_arch = "wasm32") { f64::MAX } else { 2.1 };
        assert!(
            growth >= 1.9 && growth < most,
            "collected at {growth:.2} times what survived ({live} → {peak})"
        );
    }
    assert_eq!(ok(&mut r, "keep.length + keep[59999].i").root, Value::Number(119_999.0));
}

#[cfg(not(target_arch = "wasm32"))]
#[wasm_bindgen_test(unsupported = test)]
fn a_realm_held_in_a_thread_local_outlives_the_heap_safely() {
    // Thread-locals are dropped in reverse order of first use. This one is first used
    // before the engine's heap exists, so at thread exit the heap is freed before the realm
    // in it; dropping the realm's objects again corrupted memory (glibc aborted the run).
    thread_local! {
        static HELD: RefCell<Vec<Realm>> = const { RefCell::new(Vec::new()) };
    }
    std::thread::spawn(|| {
        HELD.with(|h| h.borrow_mut().clear());
        let mut r = realm();
        ok(&mut r, "globalThis.keep = Array.from({ length: 1000 }, (_, i) => ({ i })); 0");
        let mut disposed = realm();
        disposed.dispose();
        HELD.with(|h| h.borrow_mut().extend([r, disposed]));
    })
    .join()
    .expect("the thread exits cleanly");
    // And the usual order (the heap outlives the thread-local) still drops the realm.
    thread_local! {
        static LATER: RefCell<Option<Realm>> = const { RefCell::new(None) };
    }
    std::thread::spawn(|| {
        let r = realm();
        LATER.with(|h| *h.borrow_mut() = Some(r));
    })
    .join()
    .expect("the thread exits cleanly");
}

// ---------------------------------------------------------------- capabilities

#[wasm_bindgen_test(unsupported = test)]
fn guest_global_is_exactly_the_allowlist() {
    let mut r = realm();
    let g = ok(&mut r, "Object.getOwnPropertyNames(globalThis).sort()");
    let Value::Object(id) = g.root else { panic!() };
    let Some(Object::Array { elements, .. }) = g.get(id) else {
        panic!()
    };
    let mut got: Vec<String> = elements
        .iter()
        .map(|(_, v)| match v {
            Value::String(t) => t.to_lossy(),
            _ => String::new(),
        })
        .collect();
    got.sort();
    let mut want: Vec<String> = capabilities::GLOBALS
        .iter()
        .flat_map(|c| c.names.iter().map(|n| n.to_string()))
        .collect();
    want.retain(|n| isolated_realm::platform::has_host_bridge() || !capabilities::BRIDGED.contains(&n.as_str()));
    want.sort();
    assert_eq!(got, want);
}

#[wasm_bindgen_test(unsupported = test)]
fn host_authority_is_absent() {
    let mut r = realm();
    for name in [
        "window",
        "document",
        "fetch",
        "XMLHttpRequest",
        "localStorage",
        "indexedDB",
        "WebSocket",
        "Worker",
        "navigator",
        "importScripts",
        "postMessage",
        "self",
        "require",
        "process",
        "SharedArrayBuffer",
        "Atomics",
    ] {
        truthy(&mut r, &format!("typeof {name} === 'undefined'"));
    }
}

// ---------------------------------------------------------------- the host handler

struct Recorder {
    calls: RefCell<Vec<Graph>>,
}

struct Shared(Rc<Recorder>);

impl HostHandler for Shared {
    fn call(&self, args: Graph) -> Result<Graph, HandlerFailure> {
        let first = match &args.root {
            Value::Object(id) => match args.get(*id) {
                Some(Object::Array { elements, .. }) => elements.first().map(|e| e.1.clone()),
                _ => None,
            },
            _ => None,
        };
        self.0.calls.borrow_mut().push(args.clone());
        match first {
            Some(Value::String(t)) if t.to_lossy() == "fail" => Err(HandlerFailure {
                name: ErrorName::RangeError,
                message: "host said no".into(),
            }),
            _ => Ok(plain(vec![(
                "echo",
                Value::Number(args.objects.len() as f64),
            )])),
        }
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn handler_receives_clones_and_returns_clones() {
    let rec = Rc::new(Recorder {
        calls: RefCell::new(vec![]),
    });
    let o = RealmOptions {
        expose_handler_as: Some("callParent".into()),
        allow_code_generation: true,
        ..Default::default()
    };
    let mut r = Realm::new(o, Some(Rc::new(Shared(rec.clone())))).expect("realm");
    truthy(
        &mut r,
        "typeof callParent === 'function' && callParent.toString().includes('native code')",
    );
    truthy(
        &mut r,
        "const got = callParent(1, 2, { foo: 'bar' }); got.echo === 2 && Object.getPrototypeOf(got) === Object.prototype",
    );
    let args = rec.calls.borrow()[0].clone();
    let mut want = Graph::undefined();
    let arr = want.push(Object::Plain(vec![]));
    let obj = want.push(Object::Plain(vec![(s("foo"), Value::str("bar"))]));
    want.objects[0] = Object::Array {
        length: 3,
        elements: vec![
            (0, Value::Number(1.0)),
            (1, Value::Number(2.0)),
            (2, Value::Object(obj)),
        ],
        extra: vec![],
    };
    want.root = Value::Object(arr);
    assert!(same(&args, &want), "{args:?}");

    // A host failure is a fresh guest error with only name and message.
    truthy(
        &mut r,
        "try { callParent('fail'); false } catch (e) { e instanceof RangeError && e.message === 'host said no' && Object.keys(e).length === 0 }",
    );
    // Uncloneable arguments are a catchable guest TypeError naming the path.
    truthy(
        &mut r,
        "try { callParent({ f() {} }); false } catch (e) { e instanceof TypeError && e.message.startsWith('arguments[0].f is a function') }",
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn options_fail_closed() {
    let cases: &[(Build, &str)] = &[
        (|| plain(vec![("unknown", Value::Bool(true))]), "unknown"),
        (
            || plain(vec![("exposeHandlerAs", Value::str("callParent"))]),
            "exposeHandlerAs",
        ),
        (
            || plain(vec![("allowCodeGeneration", Value::str("yes"))]),
            "allowCodeGeneration",
        ),
        (
            || {
                let mut g = Graph::undefined();
                let limits = g.push(Object::Plain(vec![(
                    s("instructions"),
                    Value::Number(-1.0),
                )]));
                let root = g.push(Object::Plain(vec![(s("limits"), Value::Object(limits))]));
                g.root = Value::Object(root);
                g
            },
            "limits.instructions",
        ),
        (
            || {
                let mut g = Graph::undefined();
                let limits = g.push(Object::Plain(vec![(s("cpu"), Value::Number(1.0))]));
                let root = g.push(Object::Plain(vec![(s("limits"), Value::Object(limits))]));
                g.root = Value::Object(root);
                g
            },
            "limits.cpu",
        ),
        (|| prim(Value::Number(3.0)), "options"),
    ];
    for (build, option) in cases {
        let e = RealmOptions::parse(&build(), false).expect_err(option);
        assert_eq!(e.code, ErrorCode::InvalidOptions);
        assert_eq!(e.details.option.as_deref(), Some(*option));
    }
    for bad in ["Object", "1x", "class", "a-b"] {
        let e = RealmOptions::parse(&plain(vec![("exposeHandlerAs", Value::str(bad))]), true)
            .expect_err(bad);
        assert_eq!(
            e.details.option.as_deref(),
            Some("exposeHandlerAs"),
            "{bad}"
        );
    }
    let e = EvalOptions::parse(&plain(vec![("file", Value::str("x"))]))
        .expect_err("unknown eval option");
    assert_eq!(e.code, ErrorCode::InvalidOptions);
}

#[wasm_bindgen_test(unsupported = test)]
fn call_invokes_guest_functions_with_cloned_args() {
    let mut r = realm();
    ok(&mut r, "globalThis.add = (x, y) => x + y; 0");
    let mut args = Graph::undefined();
    let a = args.push(Object::Array {
        length: 2,
        elements: vec![(0, Value::Number(2.0)), (1, Value::Number(3.0))],
        extra: vec![],
    });
    args.root = Value::Object(a);
    assert_eq!(r.call("add", &args).expect("call").root, Value::Number(5.0));
    let e = r.call("missing", &args).expect_err("missing");
    assert_eq!(
        (e.code, e.details.name.as_deref()),
        (ErrorCode::GuestThrew, Some("TypeError"))
    );
}

/// Argument lists: a plain one is never made as a guest array (only its elements are); one
/// with holes, extra keys or a reference to itself still arrives as the array it is.
#[wasm_bindgen_test(unsupported = test)]
fn call_arguments_arrive_as_their_list() {
    let mut r = realm();
    ok(
        &mut r,
        "globalThis.look = function (...a) { return JSON.stringify([arguments.length, a.map((x) => x === a[0] && typeof x === 'object' ? 'first' : x), a.length > 1 && a[0] === a[1]]) }; 0",
    );
    let shared = || {
        let mut g = Graph::undefined();
        let list = g.push(Object::Plain(vec![]));
        let o = g.push(Object::Plain(vec![(s("k"), Value::Number(1.0))]));
        g.objects[0] = Object::Array {
            length: 2,
            elements: vec![(0, Value::Object(o)), (1, Value::Object(o))],
            extra: vec![],
        };
        g.root = Value::Object(list);
        g
    };
    let array = |length: u32, elements: Vec<(u32, Value)>, extra: Vec<(Text, Value)>| {
        let mut g = Graph::undefined();
        let list = g.push(Object::Array {
            length,
            elements,
            extra,
        });
        g.root = Value::Object(list);
        g
    };
    let cyclic = || {
        let mut g = array(1, vec![], vec![]);
        g.objects[0] = Object::Array {
            length: 1,
            elements: vec![(0, Value::Object(ObjId(0)))],
            extra: vec![],
        };
        g
    };
    let n = Value::Number;
    let cases: Vec<(&str, Graph, &str)> = vec![
        ("none", array(0, vec![], vec![]), "[0,[],false]"),
        ("two numbers", array(2, vec![(0, n(2.0)), (1, n(3.0))], vec![]), "[2,[2,3],false]"),
        ("one object twice stays one object", shared(), r#"[2,["first","first"],true]"#),
        ("a hole is undefined", array(3, vec![(0, n(1.0)), (2, n(3.0))], vec![]), "[3,[1,null,3],false]"),
        ("extra keys are not arguments", array(1, vec![(0, n(1.0))], vec![(s("x"), n(9.0))]), "[1,[1],false]"),
        ("a list holding itself", cyclic(), r#"[1,["first"],false]"#),
        ("not an array: no arguments", prim(Value::Number(4.0)), "[0,[],false]"),
    ];
    for (what, args, want) in cases {
        let got = r.call("look", &args).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got.root, Value::String(s(want)), "{what}");
    }
    // The self-referencing list is the argument itself: its element is the array.
    ok(&mut r, "globalThis.self0 = (a) => Array.isArray(a) && a[0] === a && a.length === 1; 0");
    assert_eq!(r.call("self0", &cyclic()).expect("self0").root, Value::Bool(true));
}

#[cfg(not(target_arch = "wasm32"))]
#[wasm_bindgen_test(unsupported = test)]
fn every_error_code_is_documented_in_the_readme() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    for code in ErrorCode::ALL {
        assert!(
            readme.contains(&format!("### `{}`", code.as_str())),
            "{code} is not documented"
        );
    }
}

// ---------------------------------------------------------------- async host calls

fn first_arg(call: &isolated_realm::handler::HostCall) -> Value {
    match &call.args.root {
        Value::Object(id) => match call.args.get(*id) {
            Some(Object::Array { elements, .. }) => elements.first().map(|e| e.1.clone()).unwrap_or(Value::Undefined),
            _ => Value::Undefined,
        },
        _ => Value::Undefined,
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn async_handler_calls_are_queued_then_settled() {
    use isolated_realm::Outcome;
    let o = RealmOptions {
        expose_handler_as: Some("host".into()),
        allow_code_generation: true,
        ..Default::default()
    };
    let mut r = Realm::new_async(o).expect("realm");
    let opts = EvalOptions::default();
    let out = r
        .eval_outcome("(async () => { const a = await host('a', 1); const b = await host('b'); return a + b })()", &opts)
        .expect("eval");
    let Outcome::Pending(token) = out else { panic!("expected pending, got {out:?}") };
    let calls = r.take_host_calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(first_arg(&calls[0]), Value::str("a"));
    assert!(r.settle(calls[0].call, Ok(prim(Value::Number(40.0)))).expect("settle").is_empty());
    let calls = r.take_host_calls();
    assert_eq!(first_arg(&calls[0]), Value::str("b"));
    let done = r.settle(calls[0].call, Ok(prim(Value::Number(2.0)))).expect("settle");
    assert_eq!(done, vec![(token, Ok(prim(Value::Number(42.0))))]);
    assert!(!r.has_pending());

    // A host failure rejects the guest promise with a fresh guest error.
    let Outcome::Pending(token) = r
        .eval_outcome("host('fail').catch(e => `${e instanceof RangeError}:${e.message}`)", &opts)
        .expect("eval") else { panic!() };
    let call = r.take_host_calls()[0].call;
    let done = r
        .settle(call, Err(HandlerFailure { name: ErrorName::RangeError, message: "no".into() }))
        .expect("settle");
    assert_eq!(done, vec![(token, Ok(prim(Value::str("true:no"))))]);

    // Promises that settle without the host finish at once; rejections are guest throws.
    assert_eq!(r.eval_outcome("(async () => 5)()", &opts).expect("eval"), Outcome::Done(prim(Value::Number(5.0))));
    let e = r.eval_outcome("Promise.reject(new TypeError('late'))", &opts).expect_err("rejected");
    assert_eq!((e.code, e.details.name.as_deref()), (ErrorCode::GuestThrew, Some("TypeError")));

    // Unknown call ids are protocol errors; a runaway after a settle is still a limit.
    assert_eq!(r.settle(999, Ok(prim(Value::Null))).expect_err("unknown").code, ErrorCode::Protocol);
    let Outcome::Pending(token) = r.eval_outcome("host('spin').then(() => { for (;;) {} })", &opts).expect("eval") else { panic!() };
    let call = r.take_host_calls()[0].call;
    let done = r.settle(call, Ok(prim(Value::Null))).expect("settle");
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].0, token);
    assert_eq!(done[0].1.as_ref().expect_err("limit").code, ErrorCode::LimitExceeded);
    assert_eq!(ok(&mut r, "1 + 1").root, Value::Number(2.0));
}
