//! Replays every committed fuzz crasher (`fuzz/regressions/<target>/*`) through the same
//! harness the cargo-fuzz targets run (`tests/shared/fuzz_harness.rs`), on stable, so CI
//! catches a regression without nightly or libFuzzer. Native only: the harness runs the
//! engine on a thread of its own with a large stack.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "shared/fuzz_harness.rs"]
mod fuzz_harness;

use std::path::PathBuf;

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| {
            p.is_file()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !n.starts_with('.') && n != "README.md")
        })
        .collect();
    files.sort();
    files
}

fn replay(target: &str) {
    let (_, run) = fuzz_harness::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .expect("a target");
    let files = inputs(target);
    for file in &files {
        let data = std::fs::read(file).expect("a regression input");
        let outcome = std::panic::catch_unwind(|| run(&data));
        assert!(outcome.is_ok(), "{} fails again", file.display());
    }
    eprintln!("{target}: {} regression inputs replayed", files.len());
}

#[test]
fn boundary_regressions() {
    replay("boundary");
}

#[test]
fn eval_regressions() {
    replay("eval");
}

#[test]
fn protocol_regressions() {
    replay("protocol");
}

/// Found by the protocol fuzzer: a module with top-level await whose synchronous part hits a
/// limit made Boa panic ("async modules cannot directly throw"). Patch 07: the import now
/// fails with a typed error, and the realm serves the next entry.
#[test]
fn a_top_level_await_module_that_hits_a_limit_is_a_typed_error() {
    use isolated_realm::Outcome;
    use isolated_realm::modules::policy::Policy;
    for (source, max_recursion) in [
        ("for (;;) {} await 0;", 400),
        ("function r() { r() } r(); await 0;", 400),
        // The fuzzer's case was `await 0;` under a recursion limit of 1: the call that hit
        // it was Boa's own, inside `await` (patches 25 and 26 took those calls out, and that
        // module now runs). The first call the module makes hits it the same way.
        ("[0].map((x) => x); await 0;", 1),
    ] {
        let policy = Policy::new(&["https://r.test/a/"], &[], &[]).expect("policy");
        let mut options = RealmOptions {
            modules: policy,
            ..RealmOptions::default()
        };
        options.limits.instructions = 100_000;
        options.limits.max_recursion = max_recursion;
        let mut r = Realm::new_async(options).expect("realm");
        let Ok(Outcome::Pending(token)) = r.import("https://r.test/a/tla.js") else {
            panic!("{source}: the import waits for its source");
        };
        let mut finished = Vec::new();
        for f in r.take_fetches() {
            finished.extend(r.provide(&f.url, Ok(source.as_bytes().to_vec())));
        }
        let (_, result) = finished
            .into_iter()
            .find(|(t, _)| *t == token)
            .unwrap_or_else(|| panic!("{source}: the import did not finish"));
        let e = result.expect_err(source);
        // The budget is the meter's (a limit); the recursion limit surfaces as the RangeError
        // that rejected the module's evaluation.
        let want = if source.starts_with("for") {
            ErrorCode::LimitExceeded
        } else {
            ErrorCode::GuestThrew
        };
        assert_eq!(e.code, want, "{source}: {e}");
        let g = r
            .eval("1+1", &EvalOptions::default())
            .expect("the realm lives");
        assert_eq!(g.root, Value::Number(2.0), "{source}");
    }
}

#[test]
fn harness_smoke() {
    fuzz_harness::boundary(b"");
    fuzz_harness::boundary(&[3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    fuzz_harness::eval(b"1+1");
    fuzz_harness::eval(b"for(;;){}");
    fuzz_harness::eval(b"throw 1");
    fuzz_harness::protocol(b"");
    fuzz_harness::protocol(&[1; 64]);
    fuzz_harness::protocol(&(0u8..=255).collect::<Vec<_>>());
}

// The findings behind the committed crashers, spelled out.

use isolated_realm::{ErrorCode, EvalOptions, Graph, Object, Realm, RealmOptions, Text, Value};

fn realm() -> Realm {
    Realm::new(RealmOptions::default(), None).expect("a realm")
}

/// boundary/regexp-escaped-slash: Boa's `source` escapes every `/`, even an escaped one.
#[test]
fn a_guest_regexp_with_an_escaped_slash_leaves_as_the_same_pattern() {
    let mut r = realm();
    // The guest's own pattern text, which is what HTML's serializer carries.
    for (guest, host) in [
        (r"/\//", r"\/"),
        (r"/a\/b/g", r"a\/b"),
        (r"/[/]/", "[/]"),
        ("new RegExp('/')", "/"),
        (r"/\\\//", r"\\\/"),
    ] {
        let g = r.eval(guest, &EvalOptions::default()).expect("eval");
        let Some(Object::RegExp { source, .. }) = g.objects.first() else {
            panic!("{guest}: {g:?}");
        };
        assert_eq!(source, &Text::from(host), "{guest}");
    }
}

/// Found while fixing the above: Boa's `source` fails on a lone surrogate, and the engine
/// error it raises ended the realm.
#[test]
fn a_guest_regexp_with_a_lone_surrogate_is_refused_and_the_realm_lives() {
    let mut r = realm();
    let e = r
        .eval(r"new RegExp('\uD800')", &EvalOptions::default())
        .expect_err("refused");
    assert_eq!(e.code, ErrorCode::NotCloneable, "{e}");
    let g = r.eval("1 + 1", &EvalOptions::default()).expect("alive");
    assert_eq!(g.root, Value::Number(2.0));
}

/// eval/using-declaration-in-a-function: Boa 0.22 compiles `using` like `let`, without
/// disposal, and a `using` in a function body panicked in the VM (an index out of bounds),
/// which in wasm ends the instance. Now every form is a SyntaxError
/// (patches/boa_parser-02-using-declarations-refused.patch), however the source arrives.
#[test]
fn using_declarations_are_a_syntax_error_and_the_realm_lives() {
    let mut r = realm();
    let eval = EvalOptions::default();
    for source in [
        "function f() { using x = null } f()",
        "{ using x = { [Symbol.dispose]() {} } }",
        "async function f() { await using x = null }",
        "using x = null",
    ] {
        let e = r.eval(source, &eval).expect_err(source);
        assert_eq!(e.code, ErrorCode::Syntax, "{source}: {e}");
        assert!(e.message.contains("not supported"), "{source}: {e}");
    }
    // Boa's `for` head has no `using` form: a plain syntax error there.
    let e = r.eval("for (using x of []) {}", &eval).expect_err("for-of");
    assert_eq!(e.code, ErrorCode::Syntax, "{e}");
    // Code the guest compiles itself (where the host allows it) is refused the same way, as
    // a catchable SyntaxError.
    let mut r = Realm::new(
        RealmOptions {
            allow_code_generation: true,
            ..RealmOptions::default()
        },
        None,
    )
    .expect("a realm");
    for source in [
        "eval('function f() { using x = null } f()')",
        "Function('using x = null')",
        "eval('(async () => { await using x = null })')",
    ] {
        let wrapped = format!("try {{ {source}; 'no error' }} catch (e) {{ e.name }}");
        let g = r.eval(&wrapped, &eval).expect(source);
        assert_eq!(g.root, Value::String("SyntaxError".into()), "{source}");
    }
    let g = r.eval("1 + 1", &eval).expect("alive");
    assert_eq!(g.root, Value::Number(2.0));
}

/// boundary/array-extra-length-runs-valueof: an array graph whose extra keys include
/// `length` made `to_guest` run ArraySetLength's ToNumber, i.e. guest `valueOf`/`toString`.
#[test]
fn an_array_graph_with_length_among_its_extra_keys_is_malformed_and_runs_no_guest_code() {
    let mut r = realm();
    r.eval(
        "globalThis.hits = 0; Object.prototype.valueOf = function () { hits++; return 3 }; 0",
        &EvalOptions::default(),
    )
    .expect("hook");
    let mut g = Graph::undefined();
    let inner = g.push(Object::Plain(Vec::new()));
    let array = g.push(Object::Array {
        length: 1,
        elements: Vec::new(),
        extra: vec![(Text::from("length"), Value::Object(inner))],
    });
    g.root = Value::Object(array);
    let e = r.set("v", &g).expect_err("malformed");
    assert_eq!(e.code, ErrorCode::GuestThrew, "{e}");
    assert!(e.message.contains("malformed boundary value"), "{e}");
    let hits = r.eval("hits", &EvalOptions::default()).expect("hits");
    assert_eq!(hits.root, Value::Number(0.0), "no guest hook ran");
}
