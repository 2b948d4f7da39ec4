//! The string and regex builtins we replace or patch, against this browser's engine: each
//! case of tests/shared/engine_cases.rs runs in the guest and in V8, and the JSON of both
//! must be identical.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use isolated_realm::{EvalOptions, Realm, RealmOptions, Value};
use wasm_bindgen_test::wasm_bindgen_test;

include!("shared/engine_cases.rs");

/// Each case whose JSON differs between a guest realm and this browser's V8, with a report.
fn differences_from_v8(cases: &[(String, String)]) -> Vec<(String, String)> {
    let mut realm = Realm::new(RealmOptions::default(), None).expect("realm");
    let mut out = Vec::new();
    for (case, source) in cases {
        let guest = match realm.eval(source, &EvalOptions::default()) {
            Ok(g) => match g.root {
                Value::String(t) => t.to_lossy(),
                other => format!("{other:?}"),
            },
            Err(e) => format!("guest error: {e}"),
        };
        let host = js_sys::eval(source)
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| "host error".into());
        if guest != host {
            out.push((
                case.clone(),
                format!("{case}\n    guest: {guest}\n    V8:    {host}"),
            ));
        }
    }
    out
}

#[wasm_bindgen_test]
fn string_and_regex_builtins_agree_with_the_browser() {
    let cases = sources(true);
    let failures: Vec<String> = differences_from_v8(&cases)
        .into_iter()
        .filter(|(case, _)| !KNOWN_V8_DIFFERENCES.contains(&case.as_str()))
        .map(|(_, report)| report)
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} differ from V8:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    // Each listed difference must still name a case (a renamed case would hide a new one).
    for known in KNOWN_V8_DIFFERENCES {
        assert!(cases.iter().any(|(c, _)| c == known), "stale: {known}");
    }
}

/// `JSON.parse` (ours without a reviver) and `JSON.stringify` (patch 13) against V8's, case
/// by case.
#[wasm_bindgen_test]
fn json_agrees_with_the_browser() {
    let failures: Vec<String> = differences_from_v8(&json_sources())
        .into_iter()
        .map(|(_, report)| report)
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The answers tests/engine.rs requires for locals read in place, for `using` as a name and
/// for the fast paths of patches 19-21, 24, 27, 29, 30 and 60 and for regex start searches
/// (regress-01) are still V8's own.
#[wasm_bindgen_test]
fn locals_and_using_cases_are_v8s() {
    for (source, want) in LOCALS_CASES
        .iter()
        .chain(USING_AS_A_NAME)
        .chain(FAST_PATH_CASES)
        .chain(CALL_CASES)
        .chain(INLINE_CACHE_CASES)
        .chain(DISPATCH_CASES)
        .chain(REGEX_START_CASES)
        .chain(OWN_GET_CASES)
        .chain(SPECIES_CASES)
    {
        // In a `Function` body: sloppy, as a guest script is (`js_sys::eval` runs in the
        // glue module's strict code, and some cases need sloppy mode).
        let v8 = js_sys::Function::new_no_args(&format!("return {}", json_of(source)))
            .call0(&wasm_bindgen::JsValue::UNDEFINED)
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| "host error".into());
        assert_eq!(v8, *want, "{source}");
    }
}

/// The answers tests/engine.rs requires of promise jobs are still V8's own. Each case runs
/// in a fresh iframe's realm, so its changes to `Promise` cannot meet the test harness's own
/// promises, and is read back once a timer there has let every job run.
#[wasm_bindgen_test]
async fn promise_cases_are_v8s() {
    let run = js_sys::Function::new_with_args(
        "source",
        "const frame = document.createElement('iframe');
         document.body.appendChild(frame);
         const w = frame.contentWindow;
         return new Promise((done) => {
           const log = new w.Array();
           new w.Function('log', source)(log);
           w.setTimeout(() => { done(JSON.stringify(log)); frame.remove(); }, 0);
         });",
    );
    for (source, want) in PROMISE_CASES {
        let settled = match run.call1(&wasm_bindgen::JsValue::UNDEFINED, &(*source).into()) {
            Ok(p) => wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(p))
                .await
                .ok(),
            Err(_) => None,
        };
        let v8 = settled
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| "host error".into());
        assert_eq!(v8, *want, "{source}");
    }
}

/// The messages tests/engine.rs requires of our realm are still V8's own.
#[wasm_bindgen_test]
fn error_messages_are_v8s() {
    for (source, want) in ERROR_MESSAGES {
        let v8 = js_sys::eval(&message_of(source))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| "host error".into());
        assert_eq!(v8, *want, "{source}");
    }
}
