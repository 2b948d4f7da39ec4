//! The core realm natively (`cargo test`) and in a browser page (`wasm-pack test`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

include!("shared/core_cases.rs");
include!("shared/platform_cases.rs");
