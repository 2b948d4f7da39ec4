//! isolated-realm: run untrusted JavaScript behind a structured-clone boundary.
//!
//! The core (everything but `bindings`) is plain Rust over Boa and runs under `cargo test`.
//! Only `bindings` touches wasm-bindgen and the browser.
#![warn(missing_docs)]

pub mod budget;
pub mod builtins;
pub mod capabilities;
pub mod cards;
pub mod clone;
pub mod error;
pub mod guards;
pub mod handler;
pub mod heap;
pub mod jobs;
pub mod modules;
pub mod options;
pub mod parse;
pub mod platform;
pub mod protocol;
pub mod realm;
pub mod value;

#[cfg(target_arch = "wasm32")]
pub mod bindings;

pub use error::{ErrorCode, Limit, SandboxError, TerminationReason};
pub use options::{EvalOptions, Limits, RealmOptions};
pub use realm::{HandlerFailure, HostHandler, Outcome, Realm};
pub use value::{Graph, Object, Text, Value};
