//! Payloads walked apart from their message (as the worker's bindings send `args` and
//! `value`) against the same messages whole: the same exchange, reply for reply, with
//! results written to tapes where they can be; and the malformed ways to send one.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::{Dispatcher, Reply};
use crate::clone::fast::tests::Walk;
use crate::clone::tape::tests::decode;
use crate::error::ErrorCode;
use crate::options::{EvalOptions, RealmOptions};
use crate::realm::Realm;
use crate::value::{Graph, Object, Value};

/// A message graph from a JS object literal, built by a realm of our own.
fn msg(literal: &str) -> Graph {
    let mut builder = Realm::new(RealmOptions::default(), None).expect("realm");
    builder
        .eval(&format!("({literal})"), &EvalOptions::default())
        .expect("literal")
}

/// The message without its payload field, and the payload as its own graph.
fn split(message: &Graph) -> (Graph, Option<Graph>) {
    let Value::Object(root) = message.root else {
        return (message.clone(), None);
    };
    let Some(Object::Plain(fields)) = message.get(root) else {
        return (message.clone(), None);
    };
    let is = |k: &str| fields.iter().any(|(f, _)| f.to_lossy() == k);
    let key = if is("args") {
        "args"
    } else if is("value") && !is("ok") {
        "value"
    } else {
        return (message.clone(), None);
    };
    let mut envelope = message.clone();
    let mut payload = None;
    if let Some(Object::Plain(fields)) = envelope.objects.get_mut(root.0 as usize) {
        fields.retain(|(k, v)| {
            let hit = k.to_lossy() == key;
            if hit {
                payload = Some(Graph {
                    root: v.clone(),
                    objects: message.objects.clone(),
                });
            }
            !hit
        });
    }
    (envelope, payload)
}

/// `message` sent walked apart, as the bindings send it.
fn send_walked(d: &mut Dispatcher, message: &Graph) -> Vec<Reply> {
    match split(message) {
        (envelope, Some(payload)) => {
            Walk::of(&payload).tape(|tape| d.handle_with(&envelope, Some(tape)))
        }
        (whole, None) => d.handle(&whole),
    }
}

/// A reply with any tape read back, so both ways of sending compare.
fn norm(reply: &Reply) -> String {
    match reply {
        Reply::Tape { id, tape } => format!("result {id} {:?}", decode(tape)),
        Reply::Result { id, value } => format!("result {id} {value:?}"),
        other => format!("{other:?}"),
    }
}

fn call_id(replies: &[Reply]) -> u64 {
    replies
        .iter()
        .find_map(|r| match r {
            Reply::HostCall { call, .. } => Some(*call),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no host call in {replies:?}"))
}

const SETUP: &str = r"
    function identity(x) { return x }
    function pair(a, b) { return [a, b] }
    function describe(m) { return typeof m + ':' + Object.keys(m).join() }
    function withGetter(x) { return { get g() { return x } } }
    function throws(m) { throw new TypeError('no ' + m.name) }
    async function viaHost(x) { const y = await host(x.id); return { y, x } }
    function stored() { return kept }
";

/// (message after the realm is set up, tape replies expected from it)
const EXCHANGE: &[(&str, usize)] = &[
    // A model: built from its tape, written back to one.
    (
        "{ v: 1, type: 'call', id: 10, realm: 1, name: 'identity', args: [{ id: 'm', n: [1, 2.5, -0, NaN], tags: ['a', 'b'], when: new Date(5), m: new Map([[1, new Set(['x'])]]), deep: { a: { b: { c: null } } } }] }",
        1,
    ),
    // Shared references and a cycle, in and out.
    (
        "{ v: 1, type: 'call', id: 11, realm: 1, name: 'pair', args: (() => { const s = { s: 1 }; s.self = s; return [s, [s]] })() }",
        1,
    ),
    // A primitive result is a graph either way.
    (
        "{ v: 1, type: 'call', id: 12, realm: 1, name: 'describe', args: [{ a: 1, b: 2 }] }",
        0,
    ),
    // What the one-pass build leaves to the reference (an error) still crosses.
    (
        "{ v: 1, type: 'call', id: 13, realm: 1, name: 'identity', args: [{ e: new RangeError('r', { cause: 1 }) }] }",
        0,
    ),
    // What the tape writer leaves to the reference (an accessor) crosses as a graph.
    (
        "{ v: 1, type: 'call', id: 14, realm: 1, name: 'withGetter', args: [7] }",
        0,
    ),
    // The guest's error is the same error.
    (
        "{ v: 1, type: 'call', id: 15, realm: 1, name: 'throws', args: [{ name: 'x' }] }",
        0,
    ),
    // No arguments; a missing function.
    (
        "{ v: 1, type: 'call', id: 16, realm: 1, name: 'identity', args: [] }",
        0,
    ),
    (
        "{ v: 1, type: 'call', id: 17, realm: 1, name: 'nope', args: [1] }",
        0,
    ),
    // `set` with a walked value, read back by a call.
    (
        "{ v: 1, type: 'set', id: 18, realm: 1, name: 'kept', value: { list: [1, { two: 2 }], s: new Set([3]) } }",
        0,
    ),
    (
        "{ v: 1, type: 'call', id: 19, realm: 1, name: 'stored', args: [] }",
        1,
    ),
    // A realm that does not exist.
    (
        "{ v: 1, type: 'call', id: 20, realm: 9, name: 'identity', args: [1] }",
        0,
    ),
];

fn setup(d: &mut Dispatcher) {
    for m in [
        "{ v: 1, type: 'create', id: 1, realm: 1, options: { exposeHandlerAs: 'host' } }"
            .to_owned(),
        format!("{{ v: 1, type: 'eval', id: 2, realm: 1, source: {SETUP:?} }}"),
    ] {
        let replies = d.handle(&msg(&m));
        assert!(
            matches!(replies.last(), Some(Reply::Result { .. })),
            "{m}: {replies:?}"
        );
    }
}

#[test]
fn walked_payloads_answer_as_whole_messages_do() {
    let (mut whole, mut walked) = (Dispatcher::default(), Dispatcher::default());
    setup(&mut whole);
    setup(&mut walked);
    for (m, tapes) in EXCHANGE {
        let message = msg(m);
        let a = whole.handle(&message);
        let b = send_walked(&mut walked, &message);
        assert!(
            a.iter().all(|r| !matches!(r, Reply::Tape { .. })),
            "{m}: a whole message was answered with a tape"
        );
        let written = b.iter().filter(|r| matches!(r, Reply::Tape { .. })).count();
        assert_eq!(written, *tapes, "{m}: {b:?}");
        let (a, b): (Vec<_>, Vec<_>) = (a.iter().map(norm).collect(), b.iter().map(norm).collect());
        assert_eq!(a, b, "{m}");
    }
}

#[test]
fn a_walked_call_waiting_on_the_host_settles_as_a_whole_one_does() {
    let (mut whole, mut walked) = (Dispatcher::default(), Dispatcher::default());
    setup(&mut whole);
    setup(&mut walked);
    let call =
        msg("{ v: 1, type: 'call', id: 30, realm: 1, name: 'viaHost', args: [{ id: 'k' }] }");
    let a = whole.handle(&call);
    let b = send_walked(&mut walked, &call);
    assert_eq!(
        a.iter().map(norm).collect::<Vec<_>>(),
        b.iter().map(norm).collect::<Vec<_>>()
    );
    assert!(
        b.iter().any(|r| matches!(r, Reply::Pending { id: 30 })),
        "{b:?}"
    );
    let settle = |d: &mut Dispatcher, replies: &[Reply]| {
        let m = format!(
            "{{ v: 1, type: 'settle', id: 31, realm: 1, call: {}, ok: true, value: {{ got: 'k' }} }}",
            call_id(replies)
        );
        send_walked(d, &msg(&m))
    };
    let (a, b) = (settle(&mut whole, &a), settle(&mut walked, &b));
    assert_eq!(
        a.iter().map(norm).collect::<Vec<_>>(),
        b.iter().map(norm).collect::<Vec<_>>()
    );
    assert!(b.iter().any(|r| norm(r).starts_with("result 30 ")), "{b:?}");
}

#[test]
fn a_walked_payload_is_held_to_the_realms_clone_limits() {
    let mut d = Dispatcher::default();
    let created = d.handle(&msg(
        "{ v: 1, type: 'create', id: 1, realm: 1, options: { limits: { maxCloneObjects: 3 } } }",
    ));
    assert!(
        matches!(created.last(), Some(Reply::Result { .. })),
        "{created:?}"
    );
    d.handle(&msg(
        "{ v: 1, type: 'eval', id: 2, realm: 1, source: 'function identity(x) { return x }' }",
    ));
    let fits = send_walked(
        &mut d,
        &msg("{ v: 1, type: 'call', id: 3, realm: 1, name: 'identity', args: [{ a: {} }] }"),
    );
    assert!(
        matches!(fits.last(), Some(Reply::Tape { id: 3, .. })),
        "{fits:?}"
    );
    let over = send_walked(
        &mut d,
        &msg(
            "{ v: 1, type: 'call', id: 4, realm: 1, name: 'identity', args: [{ a: { b: { c: {} } } }] }",
        ),
    );
    match over.last() {
        Some(Reply::Error { id: Some(4), error }) => {
            assert_eq!(error.code, ErrorCode::LimitExceeded, "{error:?}");
            assert_eq!(error.details.path.as_deref(), Some("$[0].a.b"), "{error:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_payload_sent_wrong_is_a_protocol_error() {
    let mut d = Dispatcher::default();
    setup(&mut d);
    let one = Walk::of(&msg("[1]"));
    let not_array = Walk::of(&msg("({ 0: 1 })"));
    // (envelope, payload, what)
    let cases: &[(&str, &Walk, &str)] = &[
        (
            "{ v: 1, type: 'eval', id: 40, realm: 1, source: '1' }",
            &one,
            "an eval carries no payload",
        ),
        (
            "{ v: 1, type: 'call', id: 41, realm: 1, name: 'identity', args: [1] }",
            &one,
            "args sent twice",
        ),
        (
            "{ v: 1, type: 'call', id: 42, realm: 1, name: 'identity' }",
            &not_array,
            "args not an array",
        ),
        (
            "{ v: 1, type: 'card', id: 43, realm: 1, op: 'render' }",
            &not_array,
            "card args not an array",
        ),
        (
            "{ v: 1, type: 'settle', id: 44, realm: 1, call: 1, ok: true }",
            &one,
            "a settle carries no walked payload",
        ),
    ];
    for (envelope, payload, what) in cases {
        let replies = payload.tape(|t| d.handle_with(&msg(envelope), Some(t)));
        match replies.as_slice() {
            [Reply::Error { id: Some(_), error }] => {
                assert_eq!(error.code, ErrorCode::Protocol, "{what}: {error:?}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}
