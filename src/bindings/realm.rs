//! `RawRealm`: the synchronous realm as wasm exports. The JS shim (`pkg-template/realm.js`)
//! wraps it to rebuild `SandboxError`s and to recover from a dead wasm instance.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use super::convert::{from_graph, from_tape};
use super::error::to_js;
use super::walk::{to_graph, walk};
use crate::error::{ErrorCode, SandboxError};
use crate::options::{EvalOptions, RealmOptions};
use crate::realm::{HandlerFailure, HostHandler, Realm, ToHost};
use crate::value::{CloneLimits, ErrorName, Graph};

/// The host function behind `exposeHandlerAs`.
struct JsHandler {
    function: Function,
    limits: CloneLimits,
}

impl HostHandler for JsHandler {
    fn call(&self, args: Graph) -> Result<Graph, HandlerFailure> {
        let args = from_graph(&args).map_err(|e| HandlerFailure {
            name: ErrorName::TypeError,
            message: e.to_string(),
        })?;
        let args: Array = args.unchecked_into();
        match self.function.apply(&JsValue::UNDEFINED, &args) {
            Ok(result) => to_graph(&result, self.limits).map_err(|e| HandlerFailure {
                name: ErrorName::TypeError,
                message: format!("the host handler returned a value that cannot cross: {e}"),
            }),
            // Invariant: only a name and a message string reach the guest, never the
            // host's error object.
            Err(thrown) => {
                let name = Reflect::get(&thrown, &"name".into())
                    .ok()
                    .and_then(|n| n.as_string())
                    .unwrap_or_else(|| "Error".into());
                let message = Reflect::get(&thrown, &"message".into())
                    .ok()
                    .and_then(|m| m.as_string())
                    .or_else(|| thrown.as_string())
                    .unwrap_or_else(|| "the host handler threw".into());
                Err(HandlerFailure {
                    name: ErrorName::from_name(&name),
                    message,
                })
            }
        }
    }
}

/// A synchronous isolated realm. Methods throw plain-data errors (see `bindings::error`).
#[wasm_bindgen]
pub struct RawRealm {
    realm: Rc<RefCell<Realm>>,
    clone_limits: CloneLimits,
}

fn err(e: &SandboxError) -> JsValue {
    to_js(e)
}

fn busy() -> JsValue {
    to_js(&SandboxError::new(
        ErrorCode::Busy,
        "the realm is already running (a handler called back into its own realm)",
    ))
}

#[wasm_bindgen]
impl RawRealm {
    /// `new RawRealm({ handler, exposeHandlerAs, allowCodeGeneration, limits })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<RawRealm, JsValue> {
        super::install_bridge();
        let (handler, rest) = split_handler(&options)?;
        let graph = to_graph(&rest, CloneLimits::default()).map_err(|mut e| {
            e.code = ErrorCode::InvalidOptions;
            err(&e)
        })?;
        let options = RealmOptions::parse(&graph, handler.is_some()).map_err(|e| err(&e))?;
        let clone_limits = options.limits.clone;
        let handler: Option<Rc<dyn HostHandler>> = match handler {
            Some(function) => Some(Rc::new(JsHandler {
                function,
                limits: clone_limits,
            })),
            None => None,
        };
        let realm = Realm::new(options, handler).map_err(|e| err(&e))?;
        Ok(RawRealm {
            realm: Rc::new(RefCell::new(realm)),
            clone_limits,
        })
    }

    /// Evaluates `source`; returns a structured clone of the completion value.
    pub fn eval(&self, source: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let Some(source) = source.as_string() else {
            return Err(err(&SandboxError::invalid_option(
                "source",
                "must be a string",
            )));
        };
        let options = to_graph(&options, CloneLimits::default())
            .and_then(|g| EvalOptions::parse(&g))
            .map_err(|mut e| {
                e.code = ErrorCode::InvalidOptions;
                err(&e)
            })?;
        let mut realm = self.realm.try_borrow_mut().map_err(|_| busy())?;
        let graph = realm.eval(&source, &options).map_err(|e| err(&e))?;
        drop(realm);
        from_graph(&graph).map_err(|e| err(&e))
    }

    /// Defines global `name` in the guest as a clone of `value`.
    pub fn set(&self, name: JsValue, value: JsValue) -> Result<(), JsValue> {
        let Some(name) = name.as_string() else {
            return Err(err(&SandboxError::invalid_option(
                "name",
                "must be a string",
            )));
        };
        let walked = walk(&value, self.clone_limits).map_err(|e| err(&e))?;
        let mut realm = self.realm.try_borrow_mut().map_err(|_| busy())?;
        walked
            .with_tape(|tape| realm.set_tape(&name, tape))
            .map_err(|e| err(&e))
    }

    /// Calls guest global `name` with cloned `args` (an array); returns a clone of the result.
    pub fn call(&self, name: JsValue, args: Array) -> Result<JsValue, JsValue> {
        let Some(name) = name.as_string() else {
            return Err(err(&SandboxError::invalid_option(
                "name",
                "must be a string",
            )));
        };
        let walked = walk(&args, self.clone_limits).map_err(|e| err(&e))?;
        let mut realm = self.realm.try_borrow_mut().map_err(|_| busy())?;
        let result = walked
            .with_tape(|tape| realm.call_tape(&name, tape))
            .map_err(|e| err(&e))?;
        drop(realm);
        match result {
            ToHost::Graph(graph) => from_graph(&graph),
            ToHost::Tape(tape) => from_tape(&tape),
        }
        .map_err(|e| err(&e))
    }

    /// Frees the engine; later calls fail with `SANDBOX_DISPOSED`.
    pub fn dispose(&self) -> Result<(), JsValue> {
        let mut realm = self.realm.try_borrow_mut().map_err(|_| busy())?;
        realm.dispose();
        Ok(())
    }

    /// Runs the guest timers that are due.
    #[wasm_bindgen(js_name = runTimers)]
    pub fn run_timers(&self) -> Result<(), JsValue> {
        let mut realm = self.realm.try_borrow_mut().map_err(|_| busy())?;
        realm.run_timers(100);
        Ok(())
    }

    /// Milliseconds until the next guest timer is due, or -1.
    #[wasm_bindgen(js_name = nextTimerMs)]
    pub fn next_timer_ms(&self) -> f64 {
        self.realm
            .try_borrow()
            .ok()
            .and_then(|r| r.next_timer_delay())
            .map_or(-1.0, |d| d.as_secs_f64() * 1000.0)
    }

    /// Console messages, uncaught errors and unhandled rejections since the last take.
    #[wasm_bindgen(js_name = takeReports)]
    pub fn take_reports(&self) -> Array {
        let out = Array::new();
        if let Ok(mut realm) = self.realm.try_borrow_mut() {
            for report in realm.take_reports() {
                let o = js_sys::Object::new();
                super::events::fill(&o, &report);
                out.push(&o);
            }
        }
        out
    }

    /// Whether the realm was disposed (explicitly or after a fatal engine error).
    #[wasm_bindgen(getter)]
    pub fn disposed(&self) -> bool {
        self.realm
            .try_borrow()
            .map(|r| r.is_disposed())
            .unwrap_or(false)
    }
}

/// Takes `handler` out of the options bag; the rest must be plain data.
fn split_handler(options: &JsValue) -> Result<(Option<Function>, JsValue), JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok((None, JsValue::UNDEFINED));
    }
    if !options.is_object() || options.is_function() {
        return Err(err(&SandboxError::invalid_option(
            "options",
            "must be a plain object",
        )));
    }
    let handler = Reflect::get(options, &"handler".into()).unwrap_or(JsValue::UNDEFINED);
    let rest = js_sys::Object::assign(&js_sys::Object::new(), options.unchecked_ref());
    let _ = Reflect::delete_property(&rest, &"handler".into());
    if handler.is_undefined() {
        return Ok((None, rest.into()));
    }
    match handler.dyn_into::<Function>() {
        Ok(f) => Ok((Some(f), rest.into())),
        Err(_) => Err(err(&SandboxError::invalid_option(
            "handler",
            "must be a function",
        ))),
    }
}
