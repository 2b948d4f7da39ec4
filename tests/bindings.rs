//! The wasm bindings in a browser page.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

include!("shared/bindings_cases.rs");
