//! A small test262 runner over our `Realm` (with every override and patch of ours in
//! place). Run it through `scripts/test262.sh`, which brings the test262 files; they are
//! never part of this repository.
//!
//! `cargo run --example test262 -- <test262 root> <dir or file under test/>... [--failures FILE] [--verbose]`
//!
//! Each test runs in a fresh realm: `assert.js`, `sta.js`, the test's `includes`, then the
//! test, once sloppy and once strict unless its flags say otherwise. Module tests run once,
//! through our module loader: the harness as a script, then an `import` of the test under
//! `https://test262.example/`, every fetch served from the test262 tree (so fixtures go
//! through the policy, the loader and the worker's parse cache). Async tests pass when they
//! print `Test262:AsyncTestComplete`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use isolated_realm::modules::policy::Policy;
use isolated_realm::{
    ErrorCode, EvalOptions, Graph, Limits, Outcome as Done, Realm, RealmOptions, SandboxError,
    Value,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Default, Debug)]
struct Meta {
    includes: Vec<String>,
    flags: Vec<String>,
    negative: Option<(String, String)>,
}

/// The YAML front matter, as far as a runner needs it.
fn meta(source: &str) -> Meta {
    let mut m = Meta::default();
    let Some(start) = source.find("/*---") else {
        return m;
    };
    let Some(len) = source[start..].find("---*/") else {
        return m;
    };
    let yaml = &source[start + 5..start + len];
    let mut key = String::new();
    let (mut phase, mut kind) = (String::new(), String::new());
    for line in yaml.lines() {
        let trimmed = line.trim();
        if !line.starts_with(' ') && !line.starts_with('\t') {
            if let Some((k, rest)) = trimmed.split_once(':') {
                key = k.trim().to_owned();
                let rest = rest.trim();
                if let Some(list) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                    let items = list
                        .split(',')
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty());
                    match key.as_str() {
                        "includes" => m.includes.extend(items),
                        "flags" => m.flags.extend(items),
                        _ => {}
                    }
                }
            }
            continue;
        }
        if let Some(item) = trimmed.strip_prefix("- ") {
            match key.as_str() {
                "includes" => m.includes.push(item.trim().to_owned()),
                "flags" => m.flags.push(item.trim().to_owned()),
                _ => {}
            }
        } else if key == "negative" {
            if let Some(v) = trimmed.strip_prefix("phase:") {
                v.trim().clone_into(&mut phase);
            } else if let Some(v) = trimmed.strip_prefix("type:") {
                v.trim().clone_into(&mut kind);
            }
        }
    }
    if !phase.is_empty() {
        m.negative = Some((phase, kind));
    }
    m
}

enum Outcome {
    Pass,
    Fail(String),
}

const PRINT: &str = "var __test262_printed = []; function print() { __test262_printed.push([].join.call(arguments, ' ')); }\n";

fn describe(e: &SandboxError) -> String {
    let name = e.details.name.clone().unwrap_or_default();
    let message = e.details.guest_message.clone().unwrap_or_default();
    format!("{:?} {name}: {message}", e.code)
}

/// The harness text a test needs (empty for `raw` tests).
fn harness(root: &Path, meta: &Meta) -> Result<String, Outcome> {
    let mut text = String::new();
    let raw = meta.flags.iter().any(|f| f == "raw");
    let is_async = meta.flags.iter().any(|f| f == "async");
    if !raw {
        text.push_str(PRINT);
        let mut includes = vec!["assert.js".to_owned(), "sta.js".to_owned()];
        if is_async {
            includes.push("doneprintHandle.js".to_owned());
        }
        includes.extend(meta.includes.iter().cloned());
        for include in includes {
            match std::fs::read_to_string(root.join("harness").join(&include)) {
                Ok(h) => {
                    text.push_str(&h);
                    text.push('\n');
                }
                Err(e) => return Err(Outcome::Fail(format!("harness {include}: {e}"))),
            }
        }
    }
    Ok(text)
}

fn run_once(root: &Path, source: &str, meta: &Meta, strict: bool) -> Outcome {
    let mut text = String::new();
    if strict {
        text.push_str("\"use strict\";\n");
    }
    let is_async = meta.flags.iter().any(|f| f == "async");
    match harness(root, meta) {
        Ok(h) => text.push_str(&h),
        Err(o) => return o,
    }
    text.push_str(source);
    text.push_str("\n;void 0;\n");

    let options = RealmOptions {
        allow_code_generation: true,
        limits: Limits {
            timeout: Duration::from_secs(20),
            ..Limits::default()
        },
        ..RealmOptions::default()
    };
    let mut realm = match Realm::new(options, None) {
        Ok(r) => r,
        Err(e) => return Outcome::Fail(format!("realm: {e}")),
    };
    let result = realm.eval(&text, &EvalOptions::default());
    match (&meta.negative, result) {
        (None, Ok(_)) => async_done(&mut realm, is_async),
        (None, Err(e)) => Outcome::Fail(describe(&e)),
        (Some((phase, kind)), Ok(_)) => Outcome::Fail(format!("expected {phase} {kind}")),
        (Some((phase, kind)), Err(e)) => expected_error(phase, kind, &e),
    }
}

/// Passes a sync test, or an async one that printed its completion.
fn async_done(realm: &mut Realm, is_async: bool) -> Outcome {
    if !is_async {
        return Outcome::Pass;
    }
    match realm.eval("__test262_printed.join('\\n')", &EvalOptions::default()) {
        Ok(g) => match g.root {
            Value::String(s) => {
                let out = s.to_lossy();
                if out.contains("Test262:AsyncTestComplete") {
                    Outcome::Pass
                } else {
                    Outcome::Fail(format!("async: {out}"))
                }
            }
            other => Outcome::Fail(format!("async: {other:?}")),
        },
        Err(e) => Outcome::Fail(describe(&e)),
    }
}

const MODULE_BASE: &str = "https://test262.example/";

/// Serves the realm's fetches from the test262 tree until none are left; returns the import
/// `token`'s result once it finished.
fn serve(
    realm: &mut Realm,
    root: &Path,
    token: Option<u64>,
) -> Option<Result<Graph, SandboxError>> {
    let mut result = None;
    for _ in 0..1000 {
        let fetches = realm.take_fetches();
        if fetches.is_empty() {
            break;
        }
        for f in fetches {
            let body = f
                .url
                .strip_prefix(MODULE_BASE)
                .and_then(|rel| std::fs::read(root.join(rel.split(['?', '#']).next()?)).ok())
                .ok_or_else(|| "404".to_owned());
            for (t, r) in realm.provide(&f.url, body) {
                if Some(t) == token {
                    result = Some(r);
                }
            }
        }
    }
    result
}

fn run_module(root: &Path, path: &Path, meta: &Meta) -> Outcome {
    let is_async = meta.flags.iter().any(|f| f == "async");
    let rel = path.strip_prefix(root).unwrap_or(path).to_string_lossy();
    let url = format!("{MODULE_BASE}{rel}");
    let options = RealmOptions {
        allow_code_generation: true,
        limits: Limits {
            timeout: Duration::from_secs(20),
            ..Limits::default()
        },
        modules: Policy::new(&[MODULE_BASE], &[], &[]).expect("policy"),
        ..RealmOptions::default()
    };
    let mut realm = match Realm::new(options, None) {
        Ok(r) => r,
        Err(e) => return Outcome::Fail(format!("realm: {e}")),
    };
    let text = match harness(root, meta) {
        Ok(h) => h,
        Err(o) => return o,
    };
    if let Err(e) = realm.eval(&format!("{PRINT}{text}\n;void 0;"), &EvalOptions::default()) {
        return Outcome::Fail(format!("harness: {}", describe(&e)));
    }
    let result = match realm.import(&url) {
        Ok(Done::Done(g)) => Ok(g),
        Ok(Done::Pending(token)) => serve(&mut realm, root, Some(token))
            .unwrap_or_else(|| Err(SandboxError::new(ErrorCode::Protocol, "never finished"))),
        Err(e) => Err(e),
    };
    // Computed dynamic imports the test started wait for the host too.
    serve(&mut realm, root, None);
    match (&meta.negative, result) {
        (None, Ok(_)) => async_done(&mut realm, is_async),
        (None, Err(e)) => Outcome::Fail(describe(&e)),
        (Some((phase, kind)), Ok(_)) => Outcome::Fail(format!("expected {phase} {kind}")),
        (Some((phase, kind)), Err(e)) => expected_error(phase, kind, &e),
    }
}

fn expected_error(phase: &str, kind: &str, e: &SandboxError) -> Outcome {
    {
        {
            let name = e.details.name.clone().unwrap_or_default();
            let ok = match phase {
                "parse" | "resolution" => e.code == ErrorCode::Syntax && kind == "SyntaxError",
                _ => {
                    e.code == ErrorCode::GuestThrew
                        && (name == kind || (kind == "Test262Error" && name == "value"))
                }
            };
            if ok {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("expected {phase} {kind}, got {}", describe(e)))
            }
        }
    }
}

fn run_file(root: &Path, path: &Path) -> Vec<(String, Outcome)> {
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => return vec![(String::new(), Outcome::Fail(e.to_string()))],
    };
    let meta = meta(&source);
    if meta.flags.iter().any(|f| f == "module") {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_module(root, path, &meta)
        }))
        .unwrap_or_else(|_| Outcome::Fail("panicked".into()));
        return vec![(" (module)".to_owned(), outcome)];
    }
    let only_strict = meta.flags.iter().any(|f| f == "onlyStrict");
    let no_strict = meta.flags.iter().any(|f| f == "noStrict" || f == "raw");
    let mut modes = Vec::new();
    if !only_strict {
        modes.push(false);
    }
    if !no_strict {
        modes.push(true);
    }
    modes
        .into_iter()
        .map(|strict| {
            let label = if strict { " (strict)" } else { "" };
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_once(root, &source, &meta, strict)
            }))
            .unwrap_or_else(|_| Outcome::Fail("panicked".into()));
            (label.to_owned(), outcome)
        })
        .collect()
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for entry in entries {
            collect(&entry, out);
        }
    } else if path.extension().is_some_and(|e| e == "js")
        && !path.to_string_lossy().contains("_FIXTURE")
    {
        out.push(path.to_owned());
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "--verbose");
    args.retain(|a| a != "--verbose");
    let mut failures_file = None;
    if let Some(i) = args.iter().position(|a| a == "--failures") {
        failures_file = args.get(i + 1).cloned();
        args.drain(i..(i + 2).min(args.len()));
    }
    let Some((root, dirs)) = args.split_first() else {
        eprintln!(
            "usage: test262 <test262 root> <dir under test/>... [--failures FILE] [--verbose]"
        );
        std::process::exit(2);
    };
    let root = PathBuf::from(root);
    // Silence the default panic printer: a panic is reported as a failure of its test.
    std::panic::set_hook(Box::new(|_| {}));
    let mut totals: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for dir in dirs {
        let mut files = Vec::new();
        collect(&root.join("test").join(dir), &mut files);
        let entry = totals.entry(dir.clone()).or_default();
        for file in files {
            let rel = file
                .strip_prefix(&root)
                .unwrap_or(&file)
                .to_string_lossy()
                .into_owned();
            for (label, outcome) in run_file(&root, &file) {
                match outcome {
                    Outcome::Pass => entry.0 += 1,
                    Outcome::Fail(why) => {
                        entry.1 += 1;
                        if verbose {
                            println!("FAIL {rel}{label}: {why}");
                        }
                        failures.push(format!("{rel}{label}"));
                    }
                }
            }
        }
    }
    println!("| directory | pass | fail |\n|---|---:|---:|");
    let (mut p, mut f) = (0, 0);
    for (dir, (pass, fail)) in &totals {
        println!("| {dir} | {pass} | {fail} |");
        p += pass;
        f += fail;
    }
    println!("| total | {p} | {f} |");
    if let Some(file) = failures_file {
        std::fs::write(&file, failures.join("\n") + "\n").expect("write failures");
    }
}
