//! Boa bugs fixed by our patches (patches/), natively and in a page: each row is a repro
//! that failed on boa_engine 0.22.0 from crates.io, with V8's answer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use isolated_realm::{EvalOptions, Realm, RealmOptions, Value};
use wasm_bindgen_test::wasm_bindgen_test;

const CASES: &[(&str, &str, &str)] = &[
    (
        "a getter that redefines its own property as data (property inline cache)",
        "const o = {}; Object.defineProperty(o, 'p', { configurable: true, get() { Object.defineProperty(o, 'p', { value: {} }); return 1 } }); const read = (x) => x.p; JSON.stringify([read(o), read(o)])",
        "[1,{}]",
    ),
    (
        "a setter that redefines its own property as data (used to panic)",
        "const o = {}; Object.defineProperty(o, 'p', { configurable: true, set(v) { Object.defineProperty(o, 'p', { value: v, writable: true }) } }); const w = (x, v) => { x.p = v }; w(o, 1); w(o, 2); String(o.p)",
        "2",
    ),
    (
        "a global getter that redefines itself as data (global inline cache)",
        "Object.defineProperty(globalThis, 'lazy', { configurable: true, get() { Object.defineProperty(globalThis, 'lazy', { value: 'data', writable: true, configurable: true }); return 'first' } }); function f() { return lazy } [f(), f(), f()].join()",
        "first,data,data",
    ),
    (
        "a global getter that deletes another global",
        "globalThis.other = 'o'; Object.defineProperty(globalThis, 'g', { configurable: true, get() { delete globalThis.other; return 'g' } }); function h() { return g } [h(), h(), typeof other].join()",
        "g,g,undefined",
    ),
];

#[wasm_bindgen_test(unsupported = test)]
fn inline_caches_survive_accessors_that_reshape_objects() {
    for (name, src, want) in CASES {
        let mut r = Realm::new(RealmOptions::default(), None).unwrap();
        let got = r
            .eval(src, &EvalOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.root, Value::str(want), "{name}");
    }
}
