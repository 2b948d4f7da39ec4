//! The guest platform against this browser's engine, in a dedicated worker.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

include!("shared/platform_web_cases.rs");
