//! `WorkerHost`: the protocol dispatcher as a wasm export; `worker.js` feeds it messages.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::convert::{from_graph, from_tape};
use super::error::to_js;
use super::events;
use super::walk::{Message, walk_message};
use crate::error::{ErrorCode, SandboxError};
use crate::protocol::{Dispatcher, Reply, VERSION};
use crate::value::CloneLimits;

/// Serves the worker protocol for the realms of one worker.
#[wasm_bindgen]
#[derive(Default)]
pub struct WorkerHost {
    dispatcher: Dispatcher,
}

// The reply to most messages, made in one crossing: one literal, where setting each field
// from here turned every key into a string decoded from wasm memory.
#[wasm_bindgen(inline_js = "
export function result_message(v, id, value, tokens) {
  return tokens ? { v, type: 'result', id, value, tokens: true } : { v, type: 'result', id, value };
}
")]
extern "C" {
    fn result_message(v: u32, id: f64, value: &JsValue, tokens: bool) -> JsValue;
}

fn envelope(kind: &str) -> Object {
    let o = Object::new();
    let _ = Reflect::set(&o, &"v".into(), &JsValue::from(VERSION));
    let _ = Reflect::set(&o, &"type".into(), &kind.into());
    o
}

fn field(o: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(o, &key.into(), value);
}

fn error_reply(id: Option<u64>, error: &SandboxError) -> JsValue {
    let o = envelope("error");
    field(
        &o,
        "id",
        &id.map_or(JsValue::NULL, |i| JsValue::from(i as f64)),
    );
    field(&o, "error", &to_js(error));
    o.into()
}

#[wasm_bindgen]
impl WorkerHost {
    /// A host with no realms. `token_key` is the random key trusted-export tokens leave
    /// under (see `convert::TOKEN_KEY`); `memory_limit` is the worker's memory cap in
    /// bytes, which then also stops guest bytecode inside a step (see `budget`).
    #[wasm_bindgen(constructor)]
    pub fn new(token_key: Option<String>, memory_limit: Option<f64>) -> WorkerHost {
        super::install_bridge();
        super::convert::set_token_key(token_key.filter(|k| k.len() >= 16));
        let ceiling = memory_limit
            .filter(|b| b.is_finite() && *b >= 1.0)
            .unwrap_or(0.0);
        crate::budget::set_memory_ceiling(ceiling as u64);
        WorkerHost::default()
    }

    /// Runs the guest timers that are due; returns the replies to post.
    pub fn tick(&mut self) -> Array {
        let out = Array::new();
        for reply in self.dispatcher.tick() {
            out.push(&encode(reply));
        }
        out
    }

    /// Milliseconds until the next guest timer is due, or -1 when none is live.
    #[wasm_bindgen(getter, js_name = nextTimerMs)]
    pub fn next_timer_ms(&self) -> f64 {
        self.dispatcher
            .next_timer_delay()
            .map_or(-1.0, |d| d.as_secs_f64() * 1000.0)
    }

    /// Handles one message; returns the replies to post, in order. The payload of a call,
    /// card operation or set (`args`, `value`) is walked apart from the rest, under the
    /// target realm's clone limits, and crosses as the sync `Realm`'s does: built in the
    /// guest from its tape, the result written to a tape where it can be.
    pub fn handle(&mut self, message: JsValue) -> Array {
        let out = Array::new();
        let id = || {
            Reflect::get(&message, &"id".into())
                .ok()
                .and_then(|v| v.as_f64())
                .map(|f| f as u64)
        };
        let protocol_error = |mut e: SandboxError| {
            e.code = ErrorCode::Protocol;
            error_reply(id(), &e)
        };
        let limits = |realm: Option<u32>| {
            realm.map_or_else(CloneLimits::default, |r| self.dispatcher.clone_limits(r))
        };
        let replies = match walk_message(&message, limits) {
            Ok(Message::Whole(graph)) => self.dispatcher.handle(&graph),
            Ok(Message::Split { envelope, payload }) => {
                payload.with_tape(|tape| self.dispatcher.handle_with(&envelope, Some(tape)))
            }
            Err(e) => {
                out.push(&protocol_error(e));
                return out;
            }
        };
        for reply in replies {
            out.push(&encode(reply));
        }
        out
    }

    /// Runs what waits until the replies are posted (the collection after a dispose).
    pub fn idle(&mut self) {
        self.dispatcher.idle();
    }

    /// Number of live realms in this worker.
    #[wasm_bindgen(getter, js_name = realmCount)]
    pub fn realm_count(&self) -> usize {
        self.dispatcher.realm_count()
    }
}

fn encode(reply: Reply) -> JsValue {
    match reply {
        // The tape writer leaves tokens to the graph: none are in here.
        Reply::Tape { id, tape } => match from_tape(&tape) {
            Ok(v) => result_message(VERSION, id as f64, &v, false),
            Err(e) => error_reply(Some(id), &e),
        },
        Reply::Result { id, value } => match from_graph(&value) {
            Ok(v) => {
                let tokens = value
                    .objects
                    .iter()
                    .any(|x| matches!(x, crate::value::Object::Token { .. }));
                result_message(VERSION, id as f64, &v, tokens)
            }
            Err(e) => error_reply(Some(id), &e),
        },
        Reply::Error { id, error } => error_reply(id, &error),
        Reply::Pending { id } => {
            let o = envelope("pending");
            field(&o, "id", &JsValue::from(id as f64));
            o.into()
        }
        Reply::Event { realm, report } => {
            let o = envelope("event");
            field(&o, "realm", &JsValue::from(realm));
            events::fill(&o, &report);
            o.into()
        }
        Reply::Fetch { realm, fetch } => {
            let o = envelope("fetch");
            field(&o, "realm", &JsValue::from(realm));
            field(&o, "url", &fetch.url.as_str().into());
            field(&o, "credentials", &JsValue::from(fetch.credentials));
            field(
                &o,
                "realmPrefix",
                &fetch
                    .realm
                    .as_deref()
                    .map_or(JsValue::NULL, JsValue::from_str),
            );
            field(
                &o,
                "integrity",
                &fetch
                    .integrity
                    .as_deref()
                    .map_or(JsValue::NULL, JsValue::from_str),
            );
            o.into()
        }
        Reply::HostCall { realm, call, args } => match from_graph(&args) {
            Ok(args) => {
                let o = envelope("host-call");
                field(&o, "realm", &JsValue::from(realm));
                field(&o, "call", &JsValue::from(call as f64));
                field(&o, "args", &args);
                o.into()
            }
            Err(e) => error_reply(None, &e),
        },
    }
}
