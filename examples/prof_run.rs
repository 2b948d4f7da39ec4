#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use isolated_realm::{EvalOptions, Limits, Realm, RealmOptions};
use std::time::{Duration, Instant};
fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "fib".into());
    let reps: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let workloads = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/www/workloads.src.js"),
    )
    .unwrap();
    let options = RealmOptions {
        limits: Limits {
            instructions: u64::MAX / 2,
            timeout: Duration::from_secs(600),
            ..Limits::default()
        },
        ..RealmOptions::default()
    };
    let mut realm = Realm::new(options, None).unwrap();
    let eval = EvalOptions::default();
    realm.eval(&workloads, &eval).unwrap();
    let src = match what.as_str() {
        "fib" => "fib(27)".to_string(),
        "churn" => "run_churn()".to_string(),
        other => other.to_string(),
    };
    for _ in 0..reps {
        let t = Instant::now();
        let got = realm.eval(&src, &eval).unwrap();
        println!("{:>8.1} ms {:?}", t.elapsed().as_secs_f64() * 1e3, got.root);
    }
}
