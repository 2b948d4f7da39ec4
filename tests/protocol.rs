//! The worker protocol natively and in a browser page: every malformed message is a typed
//! error, and a full exchange (create, eval, async host call, settle, dispose) works.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use isolated_realm::protocol::{Dispatcher, Reply};
use isolated_realm::{ErrorCode, EvalOptions, Graph, Realm, RealmOptions, Value};
use wasm_bindgen_test::wasm_bindgen_test;

/// Builds message graphs from JS object literals, through a realm of our own.
fn msg(literal: &str) -> Graph {
    let mut builder = Realm::new(RealmOptions::default(), None).expect("realm");
    builder
        .eval(&format!("({literal})"), &EvalOptions::default())
        .expect("literal")
}

const MALFORMED: &[(&str, &str, Option<u64>)] = &[
    ("a string", "'eval'", None),
    ("an array", "[1]", None),
    (
        "no version",
        "{ type: 'eval', id: 1, realm: 1, source: '1' }",
        Some(1),
    ),
    (
        "a future version",
        "{ v: 2, type: 'eval', id: 1, realm: 1, source: '1' }",
        Some(1),
    ),
    (
        "an unknown type",
        "{ v: 1, type: 'exec', id: 2, realm: 1 }",
        Some(2),
    ),
    (
        "an unknown field",
        "{ v: 1, type: 'eval', id: 3, realm: 1, source: '1', extra: true }",
        Some(3),
    ),
    (
        "a missing id",
        "{ v: 1, type: 'eval', realm: 1, source: '1' }",
        None,
    ),
    (
        "a fractional id",
        "{ v: 1, type: 'eval', id: 1.5, realm: 1, source: '1' }",
        None,
    ),
    (
        "a negative realm",
        "{ v: 1, type: 'eval', id: 4, realm: -1, source: '1' }",
        Some(4),
    ),
    (
        "a non-string source",
        "{ v: 1, type: 'eval', id: 5, realm: 1, source: 1 }",
        Some(5),
    ),
    (
        "non-array args",
        "{ v: 1, type: 'call', id: 6, realm: 1, name: 'f', args: {} }",
        Some(6),
    ),
    (
        "a non-boolean ok",
        "{ v: 1, type: 'settle', id: 7, realm: 1, call: 0, ok: 1 }",
        Some(7),
    ),
    (
        "a type that is not a string",
        "{ v: 1, type: 7, id: 8 }",
        Some(8),
    ),
    (
        "stats for one realm",
        "{ v: 1, type: 'stats', id: 9, realm: 1 }",
        Some(9),
    ),
    (
        "a warm-up with a script of its own",
        "{ v: 1, type: 'warm', id: 10, source: 'while (true) {}' }",
        Some(10),
    ),
    (
        "a card operation naming `module` and `modules`",
        "{ v: 1, type: 'card', id: 11, realm: 1, op: 'loadMany', module: 'a', modules: ['a'], args: [[]] }",
        Some(11),
    ),
    (
        "card `modules` that is not an array",
        "{ v: 1, type: 'card', id: 12, realm: 1, op: 'loadMany', modules: 'a', args: [[]] }",
        Some(12),
    ),
    (
        "card `modules` with a non-string",
        "{ v: 1, type: 'card', id: 13, realm: 1, op: 'loadMany', modules: ['a', 1], args: [[]] }",
        Some(13),
    ),
    (
        "card `modules` with a hole",
        "{ v: 1, type: 'card', id: 14, realm: 1, op: 'loadMany', modules: ['a', , 'b'], args: [[]] }",
        Some(14),
    ),
];

#[wasm_bindgen_test(unsupported = test)]
fn malformed_messages_are_protocol_errors_with_their_id() {
    let mut d = Dispatcher::default();
    for (name, literal, id) in MALFORMED {
        let replies = d.handle(&msg(literal));
        assert_eq!(replies.len(), 1, "{name}");
        match &replies[0] {
            Reply::Error { id: got, error } => {
                assert_eq!(error.code, ErrorCode::Protocol, "{name}: {error}");
                assert_eq!(got, id, "{name}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

fn one(d: &mut Dispatcher, literal: &str) -> Reply {
    let mut replies = d.handle(&msg(literal));
    assert_eq!(replies.len(), 1, "{literal}: {replies:?}");
    replies.remove(0)
}

fn error_code(r: &Reply) -> ErrorCode {
    match r {
        Reply::Error { error, .. } => error.code,
        other => panic!("not an error: {other:?}"),
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn realm_lifecycle_errors_are_typed() {
    let mut d = Dispatcher::default();
    assert_eq!(
        error_code(&one(
            &mut d,
            "{ v: 1, type: 'eval', id: 1, realm: 9, source: '1' }"
        )),
        ErrorCode::Disposed
    );
    assert_eq!(
        error_code(&one(
            &mut d,
            "{ v: 1, type: 'create', id: 2, realm: 1, options: { limits: { cpu: 1 } } }"
        )),
        ErrorCode::InvalidOptions
    );
    assert!(matches!(
        one(&mut d, "{ v: 1, type: 'create', id: 3, realm: 1 }"),
        Reply::Result { id: 3, .. }
    ));
    assert_eq!(
        error_code(&one(&mut d, "{ v: 1, type: 'create', id: 4, realm: 1 }")),
        ErrorCode::Protocol
    );
    assert!(matches!(
        one(&mut d, "{ v: 1, type: 'dispose', id: 5, realm: 1 }"),
        Reply::Result { id: 5, .. }
    ));
    assert_eq!(d.realm_count(), 0);
}

#[wasm_bindgen_test(unsupported = test)]
fn a_full_exchange_with_async_host_calls() {
    let mut d = Dispatcher::default();
    one(
        &mut d,
        "{ v: 1, type: 'create', id: 1, realm: 7, options: { exposeHandlerAs: 'host', limits: { timeoutMs: 500 } } }",
    );
    let r = one(
        &mut d,
        "{ v: 1, type: 'set', id: 2, realm: 7, name: 'base', value: { n: 40 } }",
    );
    assert!(matches!(r, Reply::Result { id: 2, .. }));

    let replies = d.handle(&msg(
        "{ v: 1, type: 'eval', id: 3, realm: 7, source: 'host(\"add\", base.n).then(x => x + 1)' }",
    ));
    assert!(
        matches!(replies[0], Reply::Pending { id: 3 }),
        "{replies:?}"
    );
    let Reply::HostCall {
        realm: 7,
        call,
        ref args,
    } = replies[1]
    else {
        panic!("{replies:?}")
    };
    assert!(matches!(args.root, Value::Object(_)));

    let replies = d.handle(&msg(&format!(
        "{{ v: 1, type: 'settle', id: 10, realm: 7, call: {call}, ok: true, value: 41 }}"
    )));
    assert_eq!(
        replies,
        vec![
            Reply::Result {
                id: 3,
                value: Graph::primitive(Value::Number(42.0))
            },
            Reply::Result {
                id: 10,
                value: Graph::undefined()
            },
        ]
    );

    // A failed host call rejects inside the guest; the guest decides what the host sees.
    let replies = d.handle(&msg(
        "{ v: 1, type: 'call', id: 4, realm: 7, name: 'host', args: ['x'] }",
    ));
    let Reply::HostCall { call, .. } = replies[1] else {
        panic!("{replies:?}")
    };
    let replies = d.handle(&msg(&format!("{{ v: 1, type: 'settle', id: 11, realm: 7, call: {call}, ok: false, error: {{ name: 'TypeError', message: 'nope' }} }}")));
    assert!(
        matches!(replies.last(), Some(Reply::Result { id: 11, .. })),
        "{replies:?}"
    );
    match &replies[0] {
        Reply::Error { id: Some(4), error } => {
            assert_eq!(error.code, ErrorCode::GuestThrew);
            assert_eq!(error.details.name.as_deref(), Some("TypeError"));
        }
        other => panic!("{other:?}"),
    }

    // A waiting entry settled by a later call is answered then.
    let replies = d.handle(&msg("{ v: 1, type: 'eval', id: 20, realm: 7, source: 'new Promise((r) => { globalThis.done = r })' }"));
    assert!(
        matches!(replies[0], Reply::Pending { id: 20 }),
        "{replies:?}"
    );
    let replies = d.handle(&msg(
        "{ v: 1, type: 'eval', id: 21, realm: 7, source: 'done(5); 0' }",
    ));
    assert!(
        replies.contains(&Reply::Result {
            id: 20,
            value: Graph::primitive(Value::Number(5.0))
        }),
        "{replies:?}"
    );
    assert!(
        replies.contains(&Reply::Result {
            id: 21,
            value: Graph::primitive(Value::Number(0.0))
        }),
        "{replies:?}"
    );

    // Settling an unknown call is a protocol error answered with the settle's id.
    let r = one(
        &mut d,
        "{ v: 1, type: 'settle', id: 12, realm: 7, call: 999, ok: true }",
    );
    assert!(
        matches!(&r, Reply::Error { id: Some(12), error } if error.code == ErrorCode::Protocol),
        "{r:?}"
    );

    // Disposing a realm ends the requests still waiting in it.
    let replies = d.handle(&msg(
        "{ v: 1, type: 'eval', id: 5, realm: 7, source: 'host()' }",
    ));
    assert!(matches!(replies[0], Reply::Pending { id: 5 }));
    let replies = d.handle(&msg("{ v: 1, type: 'dispose', id: 6, realm: 7 }"));
    assert!(replies.iter().any(|r| matches!(r, Reply::Error { id: Some(5), error } if error.code == ErrorCode::Disposed)), "{replies:?}");
    assert!(
        replies
            .iter()
            .any(|r| matches!(r, Reply::Result { id: 6, .. }))
    );
}

/// `path` (dot-separated keys) in a reply's plain-object graph.
fn number_at(g: &Graph, path: &str) -> f64 {
    let mut v = g.root.clone();
    for key in path.split('.') {
        let Value::Object(id) = v else {
            panic!("{path}: {g:?}")
        };
        let Some(isolated_realm::Object::Plain(fields)) = g.get(id) else {
            panic!("{path}: {g:?}")
        };
        v = fields
            .iter()
            .find(|(k, _)| k.to_lossy() == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {key} in {g:?}"));
    }
    match v {
        Value::Number(n) => n,
        other => panic!("{path}: {other:?}"),
    }
}

fn stats(d: &mut Dispatcher, id: u64) -> Graph {
    match one(d, &format!("{{ v: 1, type: 'stats', id: {id} }}")) {
        Reply::Result { value, .. } => value,
        other => panic!("{other:?}"),
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn a_warm_up_runs_in_a_realm_of_its_own_and_leaves_none() {
    let mut d = Dispatcher::default();
    assert!(matches!(
        one(&mut d, "{ v: 1, type: 'create', id: 1, realm: 1 }"),
        Reply::Result { id: 1, .. }
    ));
    // An error here (the warm-up script threw, or its realm failed) fails the test.
    match one(&mut d, "{ v: 1, type: 'warm', id: 2 }") {
        Reply::Result { id: 2, value } => assert_eq!(value.root, Value::Undefined),
        other => panic!("{other:?}"),
    }
    assert_eq!(number_at(&stats(&mut d, 3), "realms"), 1.0);
    match one(
        &mut d,
        "{ v: 1, type: 'eval', id: 4, realm: 1, source: 'typeof warm + typeof Row' }",
    ) {
        Reply::Result { id: 4, value } => assert_eq!(
            value.root,
            Value::String(isolated_realm::value::Text::Utf8(
                "undefinedundefined".into()
            ))
        ),
        other => panic!("{other:?}"),
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn a_warm_up_gives_its_heap_back_when_the_worker_is_idle() {
    let mut d = Dispatcher::default();
    // Built first: `msg` evaluates the literal in a realm of its own.
    let warm = msg("{ v: 1, type: 'warm', id: 1 }");
    let [stats2, stats3] = [2, 3].map(|id| msg(&format!("{{ v: 1, type: 'stats', id: {id} }}")));
    isolated_realm::heap::collect();
    let heap_in = |replies: Vec<Reply>| match &replies[..] {
        [Reply::Result { value, .. }] => number_at(value, "heapBytes"),
        other => panic!("{other:?}"),
    };
    let before = heap_in(d.handle(&stats2));
    assert!(matches!(
        &d.handle(&warm)[..],
        [Reply::Result { id: 1, .. }]
    ));
    assert!(
        d.idle(),
        "the warm-up's realm is the heap's garbage: idle collects"
    );
    let after = heap_in(d.handle(&stats3));
    assert!(after <= before * 1.1, "collected: {before} → {after}");
}

#[wasm_bindgen_test(unsupported = test)]
fn the_warm_up_script_does_what_a_card_does() {
    let mut realm = Realm::new(RealmOptions::default(), None).expect("realm");
    realm
        .eval(isolated_realm::protocol::WARM_UP, &EvalOptions::default())
        .expect("warm-up script");
    let out = realm
        .eval(
            "JSON.stringify(warm({ title: 'x', fields: { b: 'y', a: 2 }, list: [0, 1] }))",
            &EvalOptions::default(),
        )
        .expect("warm");
    assert_eq!(
        out.root,
        Value::String(isolated_realm::value::Text::Utf8(
            r#"{"title":"X","n":4,"list":[1],"ok":[true,null,null,1.5],"when":"1970-01-01T00:00:00.000Z","seen":{}}"#.into()
        ))
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn stats_count_realms_and_module_parses_shared_across_them() {
    // Unique bytes: the cache is per thread, shared with other tests in wasm.
    let source = format!(
        "export const n = 41 + 1; // {:?} {}",
        std::thread::current().id(),
        nonce()
    );
    let mut d = Dispatcher::default();
    let before = stats(&mut d, 1);
    for realm in [1u32, 2] {
        let created = one(
            &mut d,
            &format!(
                "{{ v: 1, type: 'create', id: {}, realm: {realm}, options: {{ modules: {{ realms: ['https://realm.example/p/'] }} }} }}",
                10 + realm
            ),
        );
        assert!(matches!(created, Reply::Result { .. }), "{created:?}");
        let asked = d.handle(&msg(&format!(
            "{{ v: 1, type: 'import', id: {}, realm: {realm}, url: 'https://realm.example/p/m.js' }}",
            20 + realm
        )));
        assert!(
            asked.iter().any(|r| matches!(r, Reply::Fetch { .. })),
            "{asked:?}"
        );
        let done = d.handle(&msg(&format!(
            "{{ v: 1, type: 'provide', id: {}, realm: {realm}, url: 'https://realm.example/p/m.js', ok: true, source: {source:?} }}",
            30 + realm
        )));
        assert!(
            done.iter()
                .any(|r| matches!(r, Reply::Result { id, .. } if *id == 20 + u64::from(realm))),
            "the import finished: {done:?}"
        );
    }
    let after = stats(&mut d, 2);
    assert_eq!(number_at(&after, "realms"), 2.0);
    let delta = |key: &str| number_at(&after, key) - number_at(&before, key);
    assert_eq!(
        delta("moduleCache.misses"),
        1.0,
        "parsed in the first realm"
    );
    assert_eq!(delta("moduleCache.hits"), 1.0, "not in the second");
    assert!(number_at(&after, "moduleCache.sourceBytes") >= source.len() as f64);
}

#[wasm_bindgen_test(unsupported = test)]
fn stats_report_the_heap_and_a_dispose_gives_it_back() {
    let mut d = Dispatcher::default();
    // Earlier tests on this thread (all of them, under wasm) left garbage in the shared heap.
    isolated_realm::heap::collect();
    let before = number_at(&stats(&mut d, 1), "heapBytes");
    for (id, src) in [
        ("2", "{ v: 1, type: 'create', id: 2, realm: 1 }"),
        (
            "3",
            "{ v: 1, type: 'eval', id: 3, realm: 1, source: 'globalThis.k = Array.from({ length: 5000 }, (_, i) => ({ i })); 0' }",
        ),
    ] {
        let r = one(&mut d, src);
        assert!(matches!(r, Reply::Result { .. }), "{id}: {r:?}");
    }
    let held = number_at(&stats(&mut d, 4), "heapBytes");
    assert!(held > before + 5000.0 * 32.0, "{before} → {held}");
    // Built first: `msg` evaluates each literal in a throwaway realm, whose drop would
    // collect what the dispose left.
    let dispose = msg("{ v: 1, type: 'dispose', id: 5, realm: 1 }");
    let [stats6, stats7] = [6, 7].map(|id| msg(&format!("{{ v: 1, type: 'stats', id: {id} }}")));
    let heap_in = |replies: Vec<Reply>| match &replies[..] {
        [Reply::Result { value, .. }] => number_at(value, "heapBytes"),
        other => panic!("{other:?}"),
    };
    assert!(matches!(
        &d.handle(&dispose)[..],
        [Reply::Result { id: 5, .. }]
    ));
    // The reply does not wait for the collection: the worker runs it once the reply is out.
    let replied = heap_in(d.handle(&stats6));
    assert!(
        replied > before + (held - before) / 2.0,
        "not collected before the reply: {before} → {held} → {replied}"
    );
    assert!(
        d.idle(),
        "the disposed realm is most of the heap: idle collects"
    );
    let after = heap_in(d.handle(&stats7));
    assert!(
        after < before + (held - before) / 10.0,
        "collected once idle: {before} → {held} → {after}"
    );
    assert!(
        !d.idle(),
        "nothing disposed since: idle does not collect again"
    );
}

/// A per-process counter, so two runs of this test on one thread use different bytes.
fn nonce() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}
