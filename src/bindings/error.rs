//! Errors leave as plain data (`{ name: 'SandboxError', code, message, ... }`): an `Error`
//! posted across a worker loses its fields, so the JS shim rebuilds the class.

use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

use crate::error::SandboxError;

fn put(o: &Object, key: &str, value: JsValue) {
    // Fresh object with no setters of ours; a failure here cannot happen for plain keys.
    let _ = Reflect::set(o, &JsValue::from_str(key), &value);
}

/// The plain-data form of an error.
pub fn to_js(e: &SandboxError) -> JsValue {
    let o = Object::new();
    put(&o, "name", "SandboxError".into());
    put(&o, "code", e.code.as_str().into());
    put(&o, "message", e.to_string().into());
    let d = &e.details;
    if let Some(limit) = d.limit {
        put(&o, "limit", limit.as_str().into());
    }
    if let Some(path) = &d.path {
        put(&o, "path", path.as_str().into());
    }
    if let Some(t) = &d.value_type {
        put(&o, "valueType", t.as_str().into());
    }
    if let Some(n) = &d.name {
        put(&o, "guestName", n.as_str().into());
    }
    if let Some(m) = &d.guest_message {
        put(&o, "guestMessage", m.as_str().into());
    }
    if let Some(s) = &d.stack {
        put(&o, "guestStack", s.as_str().into());
    }
    if let Some(loc) = &d.location {
        put(&o, "filename", loc.filename.as_str().into());
        put(&o, "line", loc.line.into());
        put(&o, "column", loc.column.into());
    }
    if let Some(r) = d.reason {
        put(&o, "reason", r.as_str().into());
    }
    if let Some(opt) = &d.option {
        put(&o, "option", opt.as_str().into());
    }
    o.into()
}
