//! The wasm bindings in a dedicated worker.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

include!("shared/bindings_cases.rs");
