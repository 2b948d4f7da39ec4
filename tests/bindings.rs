//! The wasm bindings in a browser page.
#![cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

include!("shared/bindings_cases.rs");
