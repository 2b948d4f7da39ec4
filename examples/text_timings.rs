//! Native timings of the string and regex paths the benchmark's text workload uses.
//!
//! `cargo run --release --example text_timings` (or without `--release`: dependencies,
//! Boa included, are optimized in dev builds too). Each row is the best of three runs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use isolated_realm::{EvalOptions, Limits, Realm, RealmOptions, Value};
use std::time::{Duration, Instant};

const ROWS: &[(&str, &str)] = &[
    (
        "indexOf scan, 200 KB ASCII ('lorem', from each hit + 1)",
        "(() => { let p = 0, h = 0; while ((p = ASCII.indexOf('lorem', p)) !== -1) { h++; p++ } return h })()",
    ),
    (
        "indexOf scan, 200 KB UTF-16",
        "(() => { let p = 0, h = 0; while ((p = WIDE.indexOf('lorem', p)) !== -1) { h++; p++ } return h })()",
    ),
    (
        "includes(' ', p) at every 16th position, 200 KB",
        "(() => { let h = 0; for (let p = 0; p < ASCII.length; p += 16) if (ASCII.includes(' ', p)) h++; return h })()",
    ),
    (
        "lastIndexOf scan backwards, 200 KB",
        "(() => { let p = ASCII.length, h = 0; while ((p = ASCII.lastIndexOf('lorem', p)) !== -1) { h++; p-- } return h })()",
    ),
    ("split(',') 200 KB ASCII", "ASCII.split(',').length"),
    ("split(',') 200 KB UTF-16", "WIDE.split(',').length"),
    ("split(', ') 200 KB ASCII", "ASCII.split(', ').length"),
    (
        "replaceAll(',', ';') 200 KB",
        "ASCII.replaceAll(',', ';').length",
    ),
    (
        "replace(/,/g, ';') 110 KB ASCII",
        "ASCII.slice(0, 110000).replace(/,/g, ';').length",
    ),
    (
        "replace(/,/g, ';') 110 KB Latin-1",
        "LATIN.slice(0, 110000).replace(/,/g, ';').length",
    ),
    (
        "replace(/,/g, ';') 110 KB UTF-16",
        "WIDE.slice(0, 110000).replace(/,/g, ';').length",
    ),
    ("split(/\\s+/) 200 KB ASCII", "ASCII.split(/\\s+/).length"),
    ("split(/\\s+/) 200 KB Latin-1", "LATIN.split(/\\s+/).length"),
    ("split(/\\s+/) 200 KB UTF-16", "WIDE.split(/\\s+/).length"),
    (
        "split(/,/) 50 KB ASCII, no comma",
        "NOCOMMA.split(/,/).length",
    ),
    (
        "[...matchAll(/\\w+/g)] 200 KB ASCII",
        "[...ASCII.matchAll(/\\w+/g)].length",
    ),
    ("bench text workload: run_text()", "run_text()"),
    ("bench text workload: run_text_utf16()", "run_text_utf16()"),
];

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let workloads = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/www/workloads.src.js"),
    )
    .expect("bench/www/workloads.src.js");
    let options = RealmOptions {
        limits: Limits {
            instructions: u64::MAX / 2,
            timeout: Duration::from_secs(600),
            ..Limits::default()
        },
        ..RealmOptions::default()
    };
    let mut realm = Realm::new(options, None).expect("realm");
    let eval = EvalOptions::default();
    realm.eval(&workloads, &eval).expect("workloads");
    realm
        .eval(
            "setup_text(); setup_text_utf16();
             var ASCII = STATE.text;
             var WIDE = STATE.textUtf16;
             var LATIN = ASCII.split('lorem').join('l\\u00f6rem');
             var NOCOMMA = ASCII.slice(0, 50000).replace(/,/g, ';');
             undefined",
            &eval,
        )
        .expect("setup");
    for (name, src) in ROWS {
        if !name.contains(filter.as_str()) {
            continue;
        }
        let mut best = Duration::MAX;
        let mut answer = String::new();
        for _ in 0..3 {
            let t = Instant::now();
            let got = realm.eval(src, &eval).expect(name);
            best = best.min(t.elapsed());
            answer = match got.root {
                Value::String(s) => s.to_lossy(),
                other => format!("{other:?}"),
            };
            if best > Duration::from_secs(5) {
                break;
            }
        }
        println!("{:>10.1} ms  {name}  → {answer}", best.as_secs_f64() * 1e3);
    }
}
