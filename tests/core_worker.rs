//! The same core cases inside a dedicated worker, where the compartment tier runs them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

include!("shared/core_cases.rs");
include!("shared/platform_cases.rs");
