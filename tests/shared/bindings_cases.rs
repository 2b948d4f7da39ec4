// The wasm bindings as JS sees them: host values in, host values out, plain-data errors.
// Included by tests/bindings.rs (a page) and tests/bindings_worker.rs (a dedicated worker).

use isolated_realm::bindings::RawRealm;
use js_sys::{Array, Date, Function, Map, Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).expect("get")
}

fn js(src: &str) -> JsValue {
    js_sys::eval(src).expect("host eval")
}

#[wasm_bindgen_test]
fn results_use_host_intrinsics() {
    let realm = RawRealm::new(JsValue::UNDEFINED).expect("realm");
    let v = realm
        .eval("[1, { foo: 'bar' }, new Map([[1, 2]]), new Date(7), new Uint8Array([9])]".into(), JsValue::UNDEFINED)
        .expect("eval");
    assert!(Array::is_array(&v));
    let arr: Array = v.unchecked_into();
    assert_eq!(Object::get_prototype_of(&arr.get(1)), Object::get_prototype_of(&Object::new().into()));
    assert_eq!(arr.get(2).unchecked_into::<Map>().get(&JsValue::from(1)), JsValue::from(2));
    assert_eq!(arr.get(3).unchecked_into::<Date>().get_time(), 7.0);
    assert_eq!(arr.get(4).unchecked_into::<Uint8Array>().to_vec(), vec![9]);
}

#[wasm_bindgen_test]
fn host_values_round_trip_with_cycles() {
    let realm = RawRealm::new(JsValue::UNDEFINED).expect("realm");
    let value = js("(() => { const o = { s: 'a\\uD800', n: -0, b: 10n ** 20n, d: new Date(3), m: new Map([['k', new Set([1])]]) }; o.self = o; return o; })()");
    realm.set("x".into(), value).expect("set");
    let inside = realm
        .eval("x.self === x && Object.is(x.n, -0) && x.b === 10n ** 20n && x.m.get('k').has(1) && x.s.charCodeAt(1) === 0xD800".into(), JsValue::UNDEFINED)
        .expect("eval");
    assert_eq!(inside, JsValue::TRUE);
    let back = realm.eval("x".into(), JsValue::UNDEFINED).expect("back");
    assert_eq!(get(&back, "self"), back);
    assert!(js_sys::Object::is(&get(&back, "n"), &JsValue::from(-0.0)));
}

#[wasm_bindgen_test]
fn errors_are_plain_data_with_codes() {
    let realm = RawRealm::new(js("({ limits: { timeoutMs: 50 } })")).expect("realm");
    let e = realm.eval("while (true) {}".into(), JsValue::UNDEFINED).expect_err("limit");
    assert_eq!(get(&e, "name"), JsValue::from_str("SandboxError"));
    assert_eq!(get(&e, "code"), JsValue::from_str("SANDBOX_LIMIT_EXCEEDED"));
    assert!(!e.is_instance_of::<js_sys::Error>());
    let e = realm.set("x".into(), js("({ f() {} })")).expect_err("function");
    assert_eq!(get(&e, "code"), JsValue::from_str("SANDBOX_NOT_CLONEABLE"));
    assert_eq!(get(&e, "path"), JsValue::from_str("$.f"));
    let e = RawRealm::new(js("({ limit: {} })")).err().expect("unknown option");
    assert_eq!(get(&e, "code"), JsValue::from_str("SANDBOX_INVALID_OPTIONS"));
    let e = RawRealm::new(js("({ handler: 1, exposeHandlerAs: 'cb' })")).err().expect("bad handler");
    assert_eq!(get(&e, "option"), JsValue::from_str("handler"));
}

#[wasm_bindgen_test]
fn handler_exchanges_clones() {
    let handler: Function = js("(function (a, b) { if (a === 'fail') throw new RangeError('no'); return { sum: a + b.n }; })").unchecked_into();
    let options = Object::new();
    Reflect::set(&options, &"handler".into(), &handler).expect("set");
    Reflect::set(&options, &"exposeHandlerAs".into(), &"callParent".into()).expect("set");
    let realm = RawRealm::new(options.into()).expect("realm");
    let out = realm.eval("callParent(1, { n: 2 }).sum".into(), JsValue::UNDEFINED).expect("call");
    assert_eq!(out, JsValue::from(3));
    let caught = realm
        .eval("try { callParent('fail', {}) } catch (e) { e instanceof RangeError && e.message }".into(), JsValue::UNDEFINED)
        .expect("caught");
    assert_eq!(caught, JsValue::from_str("no"));
}

#[wasm_bindgen_test]
fn call_passes_arguments() {
    let realm = RawRealm::new(JsValue::UNDEFINED).expect("realm");
    realm.eval("globalThis.add = (x, y) => x + y; 0".into(), JsValue::UNDEFINED).expect("define");
    let args = Array::of2(&JsValue::from(2), &JsValue::from(3));
    assert_eq!(realm.call("add".into(), args).expect("call"), JsValue::from(5));
    realm.dispose().expect("dispose");
    let e = realm.eval("1".into(), JsValue::UNDEFINED).expect_err("disposed");
    assert_eq!(get(&e, "code"), JsValue::from_str("SANDBOX_DISPOSED"));
}
