//! Rules about where code lives, checked on the source tree.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each crate that calls one of Boa's generic parse entry points compiles its own copy of
/// the whole parser into the wasm (about 250 KB each). Only src/parse.rs may parse, through
/// the non-generic UTF-16 entry points of patch 14.
#[test]
fn only_src_parse_rs_calls_the_parser() {
    const GENERIC_ENTRY_POINTS: &[&str] = &[
        "Source::from",
        "Script::parse(",
        "Module::parse(",
        "ParsedModule::parse(",
        "Parser::new(Source",
        ".eval(Source",
        ".eval(boa_engine::Source",
    ];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 20,
        "found only {} files under src/",
        files.len()
    );
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("src/parse.rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for needle in GENERIC_ENTRY_POINTS {
                if line.contains(needle) {
                    offenders.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "parse through isolated_realm::parse instead:\n{}",
        offenders.join("\n")
    );
}
