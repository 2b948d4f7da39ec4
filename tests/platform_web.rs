//! The guest platform against this browser's engine, in a page.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

include!("shared/platform_web_cases.rs");
