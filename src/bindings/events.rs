//! Guest reports (console, uncaught errors, unhandled rejections) as plain JS data:
//! `{ kind: 'console', level, args }`, `{ kind: 'console-dropped', count }`,
//! `{ kind: 'error' | 'unhandledrejection', error }`, `{ kind: 'patches', value }`.

use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

use super::convert::from_graph;
use super::error::to_js;
use crate::platform::Report;

fn set(o: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(o, &key.into(), value);
}

/// Writes `report`'s fields onto `o`.
pub fn fill(o: &Object, report: &Report) {
    match report {
        Report::Console { level, args } => {
            set(o, "kind", &"console".into());
            set(o, "level", &(*level).into());
            set(
                o,
                "args",
                &from_graph(args).unwrap_or_else(|_| js_sys::Array::new().into()),
            );
        }
        Report::ConsoleDropped(n) => {
            set(o, "kind", &"console-dropped".into());
            set(o, "count", &JsValue::from(*n as f64));
        }
        Report::Uncaught(e) => {
            set(o, "kind", &"error".into());
            set(o, "error", &to_js(e));
        }
        Report::UnhandledRejection(e) => {
            set(o, "kind", &"unhandledrejection".into());
            set(o, "error", &to_js(e));
        }
        Report::ModelPatches(g) => {
            set(o, "kind", &"patches".into());
            set(o, "value", &from_graph(g).unwrap_or(JsValue::NULL));
        }
    }
}
