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

/// Every kind of value, built by the guest and by the host from the same source: what comes
/// out of a realm must have the structure `structuredClone` gives the host's own, and so must
/// a host value sent in and read back.
#[wasm_bindgen_test]
fn values_cross_with_the_structure_structured_clone_gives() {
    const SOURCES: &[&str] = &[
        "[undefined, null, true, false, 0, -0, NaN, -Infinity, 1.5e300, 2 ** 53 + 2, 12345678901234567890n, -1n]",
        "'plain'",
        "'caf\\u00e9 \\u4e2d\\u6587 \\u{1F600} and a lone \\ud800 and \\udc00'",
        "({ a: 1, 'caf\\u00e9': { b: [1, , 3] }, ['k\\ud800']: 'v\\udfff', '': 'empty', 10: 'ten', 2: 'two' })",
        "({ ['__proto__']: { polluted: true }, constructor: 'c', toString: 's' })",
        "Object.assign([1, 2, 3, , 5], { extra: 'x', '-1': 'neg', '01': 'lead' })",
        "(() => { const a = []; a[70000] = 'far'; a.length = 70005; return a })()",
        "[[], {}, [[[]]], new Array(3)]",
        "new Map([[{ k: 1 }, new Set(['s', 2n, -0])], ['\\u{1F600}', new Date(0)], [NaN, null]])",
        "[/a+b/giu, /[\\u{1F600}]/v, /(?<year>\\d{4})/dsy, new RegExp(''), new Date(NaN), new Date(8.64e15)]",
        "[new RangeError('bad \\u00e9'), new TypeError(), new URIError('u'), new EvalError('v'), new SyntaxError('s'), new ReferenceError('r'), new Error('plain'), new Error('lone \\ud800 surrogate')]",
        "new Error('with a cause', { cause: { why: ['nested', 1] } })",
        "(() => { const b = new ArrayBuffer(16); new Uint8Array(b).set([1, 2, 3, 255]); return [b, new Uint8Array(b, 1, 2), new Int16Array(b, 2, 3), new Float64Array(b, 8, 1), new DataView(b, 4, 8), new BigInt64Array([-5n, 7n]), new Uint8ClampedArray([300, -2]), new Float32Array([1.5]), new ArrayBuffer(0)] })()",
        "[Object(true), Object(false), Object(-0), Object('str\\u00e9'), Object(7n)]",
        "(() => { const o = { name: 'cycle' }; o.self = o; o.list = [o, o, { back: o }]; const m = new Map(); m.set(m, o); o.m = m; return o })()",
        "(() => { class Point { constructor() { this.x = 1 } get y() { return 2 } } return [new Point(), Object.create({ inherited: 1 }, { own: { value: 'o', enumerable: true } })] })()",
        "(() => { const o = {}; Object.defineProperty(o, 'hidden', { value: 1, enumerable: false }); o.shown = 2; return o })()",
        // Keys repeat across objects (each crosses once, then by id), in other orders, with
        // names Object.prototype has and lone surrogates.
        "[{ id: 1, name: 'a', toString: 't' }, { name: 'b', id: 2, ['__proto__']: 1 }, { ['\\ud800']: 1, id: 3, valueOf: 'v' }, { ['\\ud800']: 2, hasOwnProperty: 0, name: 'c' }, Object.assign([0], { id: 'extra', name: 'n' })]",
        // Plain objects that share a first key (the walk sends an earlier object's key ids
        // only to one with the very same keys), and arrays whose length is not their count.
        "[{ a: 1, b: 2 }, { a: 3, c: 4 }, { a: 5, b: 6 }, { a: 7 }, { a: 8, b: 9, c: 10 }, { b: 1, a: 2 }, { a: 1, b: 2 }, { a: { a: { b: 1 } } }]",
        "(() => { const a = [1]; a.length = 4; const b = [1, 2, 3]; b.length = 1; class X extends Array {} return [a, b, X.from([1, 2]), Object.freeze([1, 2, 3]), new Array(5)] })()",
        // Arrays: dense with extras, holes with as many keys as the length, dense ones
        // with another prototype, and plain objects without Object.prototype.
        "[Object.assign([1, 2], { x: 1 }), Object.assign([1, , 3], { x: 'extra' }), Object.assign([, 2], { y: 1 }), Object.setPrototypeOf([1, 2], Object.prototype), Object.assign(Object.create(null), { a: 1 }), Object.setPrototypeOf(Object(1), Object.prototype)]",
        // Wrappers and dates cross with their internal values, whatever methods they own.
        "(() => { const n = Object(1), d = new Date(5), s = Object('s'); n.valueOf = () => 5; d.getTime = () => 7; s.valueOf = () => 'x'; return [n, d, s] })()",
        // What an object is comes from its slots, never from what it claims: a @@toStringTag
        // naming a wrapper, a builtin's prototype without the builtin's slots, and own
        // `global`, `length` or `constructor` shadowing what the slots hold.
        "[{ [Symbol.toStringTag]: 'Number', a: 1 }, Object.assign(Object.create(null), { [Symbol.toStringTag]: 'String', b: 2 }), { get [Symbol.toStringTag]() { throw new Error('no') }, c: 3 }]",
        "[Object.create(Map.prototype), Object.create(Set.prototype), Object.create(Date.prototype), Object.create(RegExp.prototype), Object.create(Error.prototype), Object.create(ArrayBuffer.prototype)]",
        "(() => { const r = /a/gi, u = new Uint8Array([1, 2, 3, 4]), v = new DataView(new ArrayBuffer(8), 2, 4); Object.defineProperty(r, 'global', { value: false }); Object.defineProperty(u, 'length', { value: 1000 }); Object.defineProperty(u, 'constructor', { get() { throw new Error('no') } }); Object.defineProperty(v, 'byteOffset', { value: 0 }); return [r, u, v] })()",
    ];
    let same = js(include_str!("same_structure.js"));
    let same: &Function = same.unchecked_ref();
    let structured_clone: Function = get(&js_sys::global(), "structuredClone").unchecked_into();
    let realm = RawRealm::new(JsValue::UNDEFINED).expect("realm");
    for src in SOURCES {
        let want = structured_clone
            .call1(&JsValue::UNDEFINED, &js(&format!("({src})")))
            .expect("structuredClone");
        let out = realm.eval((*src).into(), JsValue::UNDEFINED).expect(src);
        let diff = same.call2(&JsValue::UNDEFINED, &out, &want).expect("same");
        assert_eq!(diff.as_string().as_deref(), Some(""), "out of the guest: {src}");
        realm.set("x".into(), js(&format!("({src})"))).expect(src);
        let back = realm.eval("x".into(), JsValue::UNDEFINED).expect(src);
        let diff = same.call2(&JsValue::UNDEFINED, &back, &want).expect("same");
        assert_eq!(diff.as_string().as_deref(), Some(""), "in and back out: {src}");
    }
}

/// Host values that cannot cross, and host values over the caps: each refused with its code,
/// the limit or kind, and the path of the first offending value.
#[wasm_bindgen_test]
fn host_values_are_refused_with_code_and_path() {
    // (realm options, host value, code, limit or valueType, path)
    const CASES: &[(&str, &str, &str, &str, &str)] = &[
        ("{}", "({ a: { f() {} } })", "SANDBOX_NOT_CLONEABLE", "function", "$.a.f"),
        ("{}", "[1, Symbol('s')]", "SANDBOX_NOT_CLONEABLE", "symbol", "$[1]"),
        ("{}", "({ p: Promise.resolve(1) })", "SANDBOX_NOT_CLONEABLE", "Promise", "$.p"),
        ("{}", "new Map([[1, new WeakMap()]])", "SANDBOX_NOT_CLONEABLE", "WeakMap", "$<value #0>"),
        ("{}", "new Set([1, new WeakSet()])", "SANDBOX_NOT_CLONEABLE", "WeakSet", "$<value #1>"),
        ("{}", "({ 'a key': [new URL('https://a.example/')] })", "SANDBOX_NOT_CLONEABLE", "URL", "$[\"a key\"][0]"),
        ("{}", "({ get x() { throw new TypeError('nope') } })", "SANDBOX_NOT_CLONEABLE", "value whose getter threw", "$.x"),
        ("{}", "new Error('e', { cause: () => 1 })", "SANDBOX_NOT_CLONEABLE", "function", "$.cause"),
        ("{ limits: { maxCloneBytes: 100 } }", "({ ok: 'short', s: 'x'.repeat(200) })", "SANDBOX_LIMIT_EXCEEDED", "maxCloneBytes", "$.s"),
        ("{ limits: { maxCloneBytes: 100 } }", "[new ArrayBuffer(500)]", "SANDBOX_LIMIT_EXCEEDED", "maxCloneBytes", "$[0]"),
        ("{ limits: { maxCloneDepth: 3 } }", "({ a: { b: { c: { d: {} } } } })", "SANDBOX_LIMIT_EXCEEDED", "maxCloneDepth", "$.a.b.c.d"),
        ("{ limits: { maxCloneObjects: 5 } }", "Array.from({ length: 10 }, () => ({}))", "SANDBOX_LIMIT_EXCEEDED", "maxCloneObjects", "$[4]"),
        // Something that throws outside a getter: refused, and not taken for a crash.
        ("{}", "[(() => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy })()]", "SANDBOX_NOT_CLONEABLE", "value the host walk could not describe", "$"),
    ];
    for (options, value, code, what, path) in CASES {
        let realm = RawRealm::new(js(&format!("({options})"))).expect("realm");
        let e = realm.set("x".into(), js(&format!("({value})"))).expect_err(value);
        let got = (
            get(&e, "code").as_string().unwrap_or_default(),
            get(&e, "limit")
                .as_string()
                .or_else(|| get(&e, "valueType").as_string())
                .unwrap_or_default(),
            get(&e, "path").as_string().unwrap_or_default(),
        );
        assert_eq!(
            got,
            ((*code).to_owned(), (*what).to_owned(), (*path).to_owned()),
            "{value}: {}",
            get(&e, "message").as_string().unwrap_or_default()
        );
        // The realm is still usable, and `x` was never set.
        assert_eq!(realm.eval("typeof x".into(), JsValue::UNDEFINED).expect("eval"), JsValue::from_str("undefined"));
    }
}

/// Host getters run once each, in the boundary's order (an object's own keys, then the
/// objects they reached, last found first), and one that throws stops the clone there.
#[wasm_bindgen_test]
fn host_getters_run_once_each_in_order() {
    let realm = RawRealm::new(JsValue::UNDEFINED).expect("realm");
    let log = js("globalThis.getterLog = []");
    let value = js("({
        get a() { getterLog.push('a'); return { get c() { getterLog.push('c'); return 1 } } },
        get b() { getterLog.push('b'); return { get d() { getterLog.push('d'); return 2 } } },
        e: new Map([['k', { get f() { getterLog.push('f'); return 3 } }]]),
    })");
    realm.set("x".into(), value).expect("set");
    assert_eq!(
        js("getterLog.join()").as_string().as_deref(),
        Some("a,b,f,d,c")
    );
    assert_eq!(
        realm.eval("[x.a.c, x.b.d, x.e.get('k').f].join()".into(), JsValue::UNDEFINED).expect("eval"),
        JsValue::from_str("1,2,3")
    );
    let _ = log;
    js("getterLog.length = 0");
    let value = js("({ get a() { getterLog.push('a'); throw new RangeError('stop') }, get b() { getterLog.push('b'); return 1 } })");
    let e = realm.set("y".into(), value).expect_err("getter threw");
    assert_eq!(get(&e, "message").as_string().as_deref(), Some("reading $.a threw: stop [SANDBOX_NOT_CLONEABLE]"));
    assert_eq!(js("getterLog.join()").as_string().as_deref(), Some("a"));
    // An error's own fields are read guarded: a throwing `stack` getter leaves no stack.
    let value = js("Object.defineProperty(new RangeError('kept'), 'stack', { get() { throw new Error('no') } })");
    realm.set("z".into(), value).expect("set");
    assert_eq!(
        realm.eval("z instanceof RangeError && z.message".into(), JsValue::UNDEFINED).expect("eval"),
        JsValue::from_str("kept")
    );
}

/// Values leaving a realm are defined on the host's objects, never assigned through its
/// prototypes: a host setter on `Object.prototype` or `Array.prototype` (or the page's own
/// `__proto__` accessor) never runs, and every key lands as an own data property. (Index
/// setters on `Array.prototype` are not tried: they break every array on the page.)
#[wasm_bindgen_test]
fn host_prototype_setters_never_run_when_values_leave() {
    js("globalThis.setterLog = [];
        Object.defineProperty(Object.prototype, 'trap', { set(v) { setterLog.push('trap'); }, configurable: true });
        Object.defineProperty(Object.prototype, 'frozen', { value: 'proto', writable: false, configurable: true });
        Object.defineProperty(Array.prototype, 'extra', { set(v) { setterLog.push('extra'); }, configurable: true });");
    let realm = RawRealm::new(JsValue::UNDEFINED).expect("realm");
    let out = realm
        .eval(
            "[{ trap: 1, frozen: 2, ['__proto__']: 3, plain: 4 }, { plain: 5, trap: 6 }, Object.assign(['a', 'b', 'c'], { extra: 7 })]"
                .into(),
            JsValue::UNDEFINED,
        )
        .expect("eval");
    let check = js("(out) => JSON.stringify([
        setterLog,
        out.map((o) => Object.keys(o)),
        out.map((o) => Object.keys(o).map((k) => Object.getOwnPropertyDescriptor(o, k).value)),
        Object.getPrototypeOf(out[0]) === Object.prototype,
        Array.isArray(out[2]) && out[2].length,
    ])");
    let got = check.unchecked_ref::<Function>().call1(&JsValue::UNDEFINED, &out).expect("check");
    js("delete Object.prototype.trap; delete Object.prototype.frozen; delete Array.prototype.extra;");
    assert_eq!(
        got.as_string().as_deref(),
        Some(r#"[[],[["trap","frozen","__proto__","plain"],["plain","trap"],["0","1","2","extra"]],[[1,2,3,4],[5,6],["a","b","c",7]],true,3]"#)
    );
}

/// The compartment worker's host, fed messages as `worker.js` hands them over.
fn worker_reply(host: &mut isolated_realm::bindings::WorkerHost, message: &str) -> String {
    let replies = host.handle(js(&format!("({message})")));
    assert_eq!(replies.length(), 1, "{message}");
    js_sys::JSON::stringify(&replies.get(0))
        .expect("stringify")
        .as_string()
        .expect("string")
}

/// A message's fields are written as a tape in one pass when every one is flat, as the
/// client sends them (a call's, card operation's or set's payload is walked apart), and
/// walked otherwise. Each pair here differs only in the path its fields take (one made an
/// object or an array), and must get the same reply; the rows after them check what each
/// path answers (a lone surrogate is walked).
#[wasm_bindgen_test]
fn worker_messages_answer_alike_on_either_path() {
    let mut host = isolated_realm::bindings::WorkerHost::new(None, None);
    let created = worker_reply(&mut host, "{ v: 1, type: 'create', id: 1, realm: 1 }");
    assert!(created.contains("\"type\":\"result\""), "{created}");
    let src = "function add(a, b) { return a + b; } globalThis['f\\uFFFD'] = () => 'replaced'; globalThis['f\\uD800\\uDC00'] = () => 'pair'; 0";
    let evaled = worker_reply(
        &mut host,
        &format!("{{ v: 1, type: 'eval', id: 2, realm: 1, source: {src:?} }}"),
    );
    assert!(evaled.contains("\"type\":\"result\""), "{evaled}");

    let same = [
        // A wrong field's error, flat and as an object.
        (
            "{ v: 1, type: 'call', id: 3, realm: 1, name: 5, args: [] }",
            "{ v: 1, type: 'call', id: 3, realm: 1, name: {}, args: [] }",
        ),
        (
            "{ v: 2, type: 'call', id: 4, realm: 1, name: 'add', args: [] }",
            "{ v: [2], type: 'call', id: 4, realm: 1, name: 'add', args: [] }",
        ),
        (
            "{ v: 1, type: 'call', id: 'x', realm: 1, name: 'add', args: [] }",
            "{ v: 1, type: 'call', id: ['x'], realm: 1, name: 'add', args: [] }",
        ),
        (
            "{ v: 1, type: 'call', id: 5, realm: -1, name: 'add', args: [1, 2] }",
            "{ v: 1, type: 'call', id: 5, realm: { n: 1 }, name: 'add', args: [1, 2] }",
        ),
        (
            "{ v: 1, type: 'set', id: 6, realm: 1, name: null, value: 1 }",
            "{ v: 1, type: 'set', id: 6, realm: 1, name: new Date(0), value: 1 }",
        ),
        // An unknown field, and an own `__proto__` (defined, as structured clone gives it).
        (
            "{ v: 1, type: 'call', id: 7, realm: 1, name: 'add', args: [], extra: true }",
            "{ v: 1, type: 'call', id: 7, realm: 1, name: 'add', args: [], extra: {} }",
        ),
        (
            "JSON.parse('{\"v\":1,\"type\":\"call\",\"id\":8,\"realm\":1,\"name\":\"add\",\"args\":[],\"__proto__\":2}')",
            "JSON.parse('{\"v\":1,\"type\":\"call\",\"id\":8,\"realm\":1,\"name\":\"add\",\"args\":[],\"__proto__\":{}}')",
        ),
        // Messages without a payload are read the same way: an eval's source, a create's realm.
        (
            "{ v: 1, type: 'eval', id: 10, realm: 1, source: 5 }",
            "{ v: 1, type: 'eval', id: 10, realm: 1, source: { s: '5' } }",
        ),
        (
            "{ v: 1, type: 'create', id: 11, realm: 'two' }",
            "{ v: 1, type: 'create', id: 11, realm: ['two'] }",
        ),
        // A card operation's module, one (flat) or a list (walked), of a realm with none.
        (
            "{ v: 1, type: 'card', id: 9, realm: 1, op: 'render', module: '/cards/a.js', args: [] }",
            "{ v: 1, type: 'card', id: 9, realm: 1, op: 'render', modules: ['/cards/a.js'], args: [] }",
        ),
    ];
    for (flat, walked) in same {
        let a = worker_reply(&mut host, flat);
        let b = worker_reply(&mut host, walked);
        assert_eq!(a, b, "{flat}\n{walked}");
        assert!(a.contains("\"type\":\"error\""), "{a}");
    }

    // What each path answers.
    let rows = [
        (
            "{ v: 1, type: 'call', id: 20, realm: 1, name: 'add', args: [40, 2] }",
            r#"{"v":1,"type":"result","id":20,"value":42}"#,
        ),
        // The top of the id range; -0 is realm 0, which was never created.
        (
            "{ v: 1, type: 'call', id: 2 ** 53 - 1, realm: -0, name: 'add', args: ['a', 'b'] }",
            "SANDBOX_DISPOSED",
        ),
        (
            "{ v: 1, type: 'call', id: 2 ** 53 - 1, realm: 1, name: 'add', args: ['a', 'b'] }",
            r#"{"v":1,"type":"result","id":9007199254740991,"value":"ab"}"#,
        ),
        // A name with a lone surrogate (walked): read as UTF-8, as the sync Realm's `call`
        // reads it, the surrogate U+FFFD.
        (
            "{ v: 1, type: 'call', id: 21, realm: 1, name: 'f\\uD800', args: [] }",
            r#"{"v":1,"type":"result","id":21,"value":"replaced"}"#,
        ),
        (
            "{ v: 1, type: 'call', id: 22, realm: 1, name: 'f\\uD800\\uDC00', args: [] }",
            r#"{"v":1,"type":"result","id":22,"value":"pair"}"#,
        ),
        (
            "{ v: 1, type: 'set', id: 23, realm: 1, name: 'x', value: { a: [1] } }",
            r#"{"v":1,"type":"result","id":23}"#,
        ),
        (
            "{ v: 1, type: 'call', id: 24, realm: 1, name: 'add', args: [true, undefined] }",
            r#"{"v":1,"type":"result","id":24,"value":null}"#,
        ),
        (
            "{ v: 1, type: 'call', id: 25, realm: 1, name: 'add', args: 'x' }",
            "SANDBOX_PROTOCOL",
        ),
        (
            "{ v: 1, type: 'call', id: 26, realm: 1, name: 'add' }",
            "SANDBOX_PROTOCOL",
        ),
        (
            "{ v: 1, type: 'call', id: 27, realm: 2, name: 'add', args: [] }",
            "SANDBOX_DISPOSED",
        ),
        (
            "{ v: 1, type: 'eval', id: 28, realm: 1, source: '40 + 2' }",
            r#"{"v":1,"type":"result","id":28,"value":42}"#,
        ),
        (
            "{ v: 1, type: 'eval', id: 29, realm: 1, source: '40 + 2', options: {} }",
            r#"{"v":1,"type":"result","id":29,"value":42}"#,
        ),
        (
            "{ v: 1, type: 'eval', id: 30, realm: 1, source: \"'\\uD800'.length\" }",
            r#"{"v":1,"type":"result","id":30,"value":1}"#,
        ),
        (
            "{ v: 1, type: 'create', id: 31, realm: 3 }",
            r#"{"v":1,"type":"result","id":31}"#,
        ),
        (
            "{ v: 1, type: 'create', id: 32, realm: 4, options: { limits: { timeoutMs: 50 } } }",
            r#"{"v":1,"type":"result","id":32}"#,
        ),
        (
            "{ v: 1, type: 'dispose', id: 33, realm: 3 }",
            r#"{"v":1,"type":"result","id":33}"#,
        ),
        (
            "{ v: 1, type: 'eval', id: 34, realm: 3, source: '1' }",
            "SANDBOX_DISPOSED",
        ),
    ];
    for (message, want) in rows {
        let got = worker_reply(&mut host, message);
        if want.starts_with('{') {
            assert_eq!(got, want, "{message}");
        } else {
            assert!(got.contains(&format!("\"code\":\"{want}\"")), "{message}: {got}");
        }
    }
}

/// A message that throws when read is refused with `SANDBOX_PROTOCOL`, not thrown through
/// the wasm (which would end the worker). Only a caller other than `worker.js` could pass
/// one: a structured clone has no getters or traps.
#[wasm_bindgen_test]
fn worker_messages_that_throw_when_read_are_refused() {
    let mut host = isolated_realm::bindings::WorkerHost::new(None, None);
    let created = worker_reply(&mut host, "{ v: 1, type: 'create', id: 1, realm: 1 }");
    assert!(created.contains("\"type\":\"result\""), "{created}");
    for message in [
        "new Proxy({}, { getPrototypeOf() { throw new Error('trap'); } })",
        "{ v: 1, get type() { throw new Error('getter'); }, id: 2, realm: 1 }",
        "{ v: 1, type: 'call', id: 3, realm: 1, name: 'f', get args() { throw new Error('getter'); } }",
        "{ v: 1, type: 'call', id: 4, realm: 1, args: [], get name() { throw new Error('getter'); } }",
        "{ v: 1, type: 'eval', id: 5, realm: 1, get source() { throw new Error('getter'); } }",
    ] {
        let reply = worker_reply(&mut host, message);
        assert!(reply.contains("\"code\":\"SANDBOX_PROTOCOL\""), "{message}: {reply}");
    }
    let after = worker_reply(&mut host, "{ v: 1, type: 'eval', id: 6, realm: 1, source: '6 * 7' }");
    assert_eq!(after, r#"{"v":1,"type":"result","id":6,"value":42}"#);
}
