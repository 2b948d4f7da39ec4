//! The thin wasm-bindgen layer: JS values in, the core's typed results out.
//! Nothing here makes policy decisions; it converts and forwards.

mod bridge;
mod convert;
mod error;
mod events;
mod realm;
mod walk;
mod worker;

pub use realm::RawRealm;
pub use worker::WorkerHost;

use wasm_bindgen::prelude::*;

/// Installs the panic hook once, so a Rust panic is logged before the instance traps.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
    install_bridge();
}

/// Gives realms created on this thread the host bridge (URL, Intl). Idempotent; the
/// constructors call it, so it only matters for code that builds core realms directly.
pub fn install_bridge() {
    if !crate::platform::has_host_bridge() {
        crate::platform::set_host_bridge(std::rc::Rc::new(bridge::HostBridge));
    }
}

/// Whether `value` is a genuine trusted-export token returned by a sync realm.
#[wasm_bindgen(js_name = isTrustedToken)]
pub fn is_trusted_token(value: JsValue) -> bool {
    convert::is_trusted_token(&value)
}

/// Every stable error code, for the JS shim and documentation checks.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> js_sys::Array {
    crate::ErrorCode::ALL
        .iter()
        .map(|c| JsValue::from_str(c.as_str()))
        .collect()
}
