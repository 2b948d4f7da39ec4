//! The worker protocol: a closed, versioned set of messages, and the dispatcher that serves
//! them. Plain Rust over [`Graph`]s, so every malformed message is tested natively.
//!
//! Host → worker: `{ v: 1, type, id, realm, ... }` with `type` one of `create`, `eval`,
//! `set`, `call`, `card`, `settle`, `import`, `provide`, `policy`, `invalidate`, `stats`,
//! `dispose`. Worker → host: `result`, `error`, `pending`, `host-call`, `event`, `fetch`
//! (see [`Reply`]). Anything else is `SANDBOX_PROTOCOL`. Every message is
//! answered by exactly one `result`, `error` or `pending` carrying its `id` (after any
//! replies it caused), so the host can watch each one with a deadline.

use std::collections::HashMap;

use crate::clone::host_tape::HostTape;
use crate::clone::tape::Tape;
use crate::error::{ErrorCode, Result, SandboxError};
use crate::handler::HostCall;
use crate::options::{EvalOptions, RealmOptions};
use crate::platform::Report;
use crate::realm::{HandlerFailure, Outcome, Realm, ToHost};
use crate::value::{CloneLimits, ErrorName, Graph, Object, Text, Value};

/// The protocol version both sides must speak.
pub const VERSION: u32 = 1;

/// Most realms one worker hosts.
pub const MAX_REALMS: usize = 256;

/// A request id chosen by the host (a safe integer).
pub type RequestId = u64;

/// A value a message carries into the guest: in the message's own graph, or walked apart
/// from it as a host tape (the bindings walk `args` and `value` so; see [`decode_with`]).
pub enum Payload<'t> {
    /// Part of the message graph.
    Graph(Graph),
    /// Walked on its own.
    Tape(&'t HostTape<'t>),
}

impl std::fmt::Debug for Payload<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Payload::Graph(g) => f.debug_tuple("Graph").field(g).finish(),
            Payload::Tape(t) => f.debug_tuple("Tape").field(&t.ops.len()).finish(),
        }
    }
}

impl Payload<'_> {
    fn is_array(&self) -> bool {
        match self {
            Payload::Graph(g) => {
                matches!(&g.root, Value::Object(o) if matches!(g.get(*o), Some(Object::Array { .. })))
            }
            Payload::Tape(t) => t.root_is_array(),
        }
    }
}

/// A decoded host → worker message.
#[derive(Debug)]
pub enum Request<'t> {
    /// Create realm `realm` with `options` (its handler, if named, is asynchronous).
    Create {
        /// Request id.
        id: RequestId,
        /// Realm id chosen by the host.
        realm: u32,
        /// Parsed options.
        options: RealmOptions,
    },
    /// Evaluate `source`, awaiting a promise result.
    Eval {
        /// Request id.
        id: RequestId,
        /// Target realm.
        realm: u32,
        /// Source text.
        source: String,
        /// Parsed eval options.
        options: EvalOptions,
    },
    /// Define a guest global.
    Set {
        /// Request id.
        id: RequestId,
        /// Target realm.
        realm: u32,
        /// Global name.
        name: String,
        /// Value to clone in.
        value: Payload<'t>,
    },
    /// Call a guest global function, awaiting a promise result.
    Call {
        /// Request id.
        id: RequestId,
        /// Target realm.
        realm: u32,
        /// Function name.
        name: String,
        /// Arguments (root is an array).
        args: Payload<'t>,
    },
    /// Run a card operation of the guest's card runtime, awaiting a promise result.
    Card {
        /// Request id.
        id: RequestId,
        /// Target realm.
        realm: u32,
        /// Operation name (see `cards::Op`).
        op: String,
        /// The card modules the operation is about: `module` (one, for create, load and
        /// describe) or `modules` (any number, for loadMany) in the message.
        modules: Vec<String>,
        /// Arguments (root is an array).
        args: Payload<'t>,
    },
    /// Answer an async host call.
    Settle {
        /// Request id (acknowledged with an empty result once the guest ran).
        id: RequestId,
        /// Target realm.
        realm: u32,
        /// The host call id.
        call: u64,
        /// The host's answer.
        outcome: std::result::Result<Graph, HandlerFailure>,
    },
    /// Import a module (absolute URL) and evaluate its graph.
    Import {
        /// Request id.
        id: RequestId,
        /// Target realm.
        realm: u32,
        /// The module URL.
        url: String,
    },
    /// The host's answer to a `fetch`.
    Provide {
        /// Request id.
        id: RequestId,
        /// Target realm.
        realm: u32,
        /// The fetched URL.
        url: String,
        /// The bytes, or why fetching failed.
        source: std::result::Result<Vec<u8>, String>,
    },
    /// Replace a realm's module policy, evicting what was loaded under the old one.
    Policy {
        /// Request id.
        id: RequestId,
        /// Target realm.
        realm: u32,
        /// The new policy.
        policy: crate::modules::policy::Policy,
    },
    /// Drop a module and its importers in every realm of this worker.
    Invalidate {
        /// Request id.
        id: RequestId,
        /// The module URL.
        url: String,
    },
    /// Run [`WARM_UP`] in a throwaway realm, so the engine code a first realm, eval and
    /// call take is compiled (in a browser, by V8 on first use) before a compartment waits.
    Warm {
        /// Request id.
        id: RequestId,
    },
    /// This worker's figures: live realms and the module parse cache.
    Stats {
        /// Request id.
        id: RequestId,
    },
    /// Dispose a realm.
    Dispose {
        /// Request id.
        id: RequestId,
        /// Target realm.
        realm: u32,
    },
}

/// A worker → host message.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Request `id` finished with `value`.
    Result {
        /// Request id.
        id: RequestId,
        /// The value.
        value: Graph,
    },
    /// Request `id` finished with the value this tape holds: a call or card operation whose
    /// arguments came as a tape ([`Payload::Tape`]), and whose result
    /// [`guest_tape`](crate::clone::guest_tape) could write.
    Tape {
        /// Request id.
        id: RequestId,
        /// The value, flattened.
        tape: Tape,
    },
    /// Request `id` failed (`id` is `None` when the message had no usable id).
    Error {
        /// Request id, if the message had one.
        id: Option<RequestId>,
        /// The error.
        error: SandboxError,
    },
    /// Request `id` waits on host calls; it is not running.
    Pending {
        /// Request id.
        id: RequestId,
    },
    /// Something the guest in `realm` did outside any call's result.
    Event {
        /// Realm.
        realm: u32,
        /// What happened.
        report: Report,
    },
    /// The guest in `realm` needs a module source (already allowed by its policy).
    Fetch {
        /// Realm.
        realm: u32,
        /// What to fetch and how.
        fetch: crate::modules::loader::Fetch,
    },
    /// The guest in `realm` called the async host handler.
    HostCall {
        /// Realm.
        realm: u32,
        /// Call id, to settle with.
        call: u64,
        /// Arguments array.
        args: Graph,
    },
}

fn protocol(message: impl Into<String>) -> SandboxError {
    SandboxError::new(ErrorCode::Protocol, message)
}

/// Field access on a message graph.
struct Message<'g> {
    graph: &'g Graph,
    fields: &'g [(Text, Value)],
}

impl<'g> Message<'g> {
    fn new(graph: &'g Graph) -> Result<Self> {
        match &graph.root {
            Value::Object(id) => match graph.get(*id) {
                Some(Object::Plain(fields)) => Ok(Self { graph, fields }),
                _ => Err(protocol("a message must be a plain object")),
            },
            _ => Err(protocol("a message must be a plain object")),
        }
    }

    fn get(&self, key: &str) -> Option<&'g Value> {
        self.fields
            .iter()
            .find(|(k, _)| matches!(k, Text::Utf8(s) if &**s == key))
            .map(|(_, v)| v)
    }

    fn int(&self, key: &str, max: f64) -> Result<u64> {
        match self.get(key) {
            Some(Value::Number(n)) if n.fract() == 0.0 && *n >= 0.0 && *n <= max => Ok(*n as u64),
            _ => Err(protocol(format!(
                "`{key}` must be a whole number from 0 to {max}"
            ))),
        }
    }

    fn string(&self, key: &str) -> Result<String> {
        match self.get(key) {
            Some(Value::String(t)) => Ok(t.to_lossy()),
            _ => Err(protocol(format!("`{key}` must be a string"))),
        }
    }

    /// A dense array of strings.
    fn strings(&self, key: &str) -> Result<Vec<String>> {
        let wrong = || protocol(format!("`{key}` must be an array of strings"));
        let Some(Value::Object(o)) = self.get(key) else {
            return Err(wrong());
        };
        let Some(Object::Array {
            length,
            elements,
            extra,
        }) = self.graph.get(*o)
        else {
            return Err(wrong());
        };
        if !extra.is_empty() || elements.len() != *length as usize {
            return Err(wrong());
        }
        elements
            .iter()
            .map(|(_, v)| match v {
                Value::String(t) => Ok(t.to_lossy()),
                _ => Err(wrong()),
            })
            .collect()
    }

    /// A sub-value as its own graph (sharing the arena).
    fn graph(&self, key: &str) -> Graph {
        Graph {
            root: self.get(key).cloned().unwrap_or(Value::Undefined),
            objects: self.graph.objects.clone(),
        }
    }

    /// The payload field `key`: walked apart when `walked` is given (the field must then be
    /// absent from the graph), part of the graph otherwise.
    fn payload<'t>(&self, key: &str, walked: Option<&'t HostTape<'t>>) -> Result<Payload<'t>> {
        match walked {
            None => Ok(Payload::Graph(self.graph(key))),
            Some(_) if self.get(key).is_some() => Err(protocol(format!(
                "`{key}` came both in the message and walked apart"
            ))),
            Some(tape) => Ok(Payload::Tape(tape)),
        }
    }

    fn only(&self, allowed: &[&str]) -> Result<()> {
        for (k, _) in self.fields {
            let k = k.to_lossy();
            if !allowed.contains(&k.as_str()) {
                return Err(protocol(format!("unknown message field `{k}`")));
            }
        }
        Ok(())
    }
}

const MAX_ID: f64 = 9_007_199_254_740_991.0;

/// Decodes one message.
///
/// # Errors
/// `SANDBOX_PROTOCOL` (with the request id when one could be read) for a wrong version, an
/// unknown type or field, or a field of the wrong type; option errors keep their own code.
pub fn decode(
    graph: &Graph,
) -> std::result::Result<Request<'static>, (Option<RequestId>, SandboxError)> {
    decode_with(graph, None)
}

/// Decodes one message whose payload (`args` of `call` and `card`, `value` of `set`) was
/// walked apart from it, as `payload`.
///
/// # Errors
/// As [`decode`]; `SANDBOX_PROTOCOL` for a payload given to a message that takes none, or
/// given twice.
pub fn decode_with<'t>(
    graph: &Graph,
    payload: Option<&'t HostTape<'t>>,
) -> std::result::Result<Request<'t>, (Option<RequestId>, SandboxError)> {
    let m = Message::new(graph).map_err(|e| (None, e))?;
    let id = m.int("id", MAX_ID).ok();
    let fail = |e: SandboxError| (id, e);
    match m.get("v") {
        Some(Value::Number(v)) if *v == f64::from(VERSION) => {}
        _ => {
            return Err(fail(protocol(format!(
                "unsupported protocol version; this worker speaks v{VERSION}"
            ))));
        }
    }
    let kind = m.string("type").map_err(fail)?;
    if payload.is_some() && !matches!(kind.as_str(), "call" | "card" | "set") {
        return Err(fail(protocol(format!(
            "a `{kind}` message carries no payload"
        ))));
    }
    let realm = || m.int("realm", f64::from(u32::MAX)).map(|r| r as u32);
    let request = match kind.as_str() {
        "create" => {
            m.only(&["v", "type", "id", "realm", "options"])
                .map_err(fail)?;
            Request::Create {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
                options: RealmOptions::parse(&m.graph("options"), true).map_err(fail)?,
            }
        }
        "eval" => {
            m.only(&["v", "type", "id", "realm", "source", "options"])
                .map_err(fail)?;
            Request::Eval {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
                source: m.string("source").map_err(fail)?,
                options: EvalOptions::parse(&m.graph("options")).map_err(fail)?,
            }
        }
        "set" => {
            m.only(&["v", "type", "id", "realm", "name", "value"])
                .map_err(fail)?;
            Request::Set {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
                name: m.string("name").map_err(fail)?,
                value: m.payload("value", payload).map_err(fail)?,
            }
        }
        "call" => {
            m.only(&["v", "type", "id", "realm", "name", "args"])
                .map_err(fail)?;
            let args = m.payload("args", payload).map_err(fail)?;
            if !args.is_array() {
                return Err(fail(protocol("`args` must be an array")));
            }
            Request::Call {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
                name: m.string("name").map_err(fail)?,
                args,
            }
        }
        "card" => {
            m.only(&[
                "v", "type", "id", "realm", "op", "module", "modules", "args",
            ])
            .map_err(fail)?;
            let args = m.payload("args", payload).map_err(fail)?;
            if !args.is_array() {
                return Err(fail(protocol("`args` must be an array")));
            }
            let modules = match (m.get("module"), m.get("modules")) {
                (None | Some(Value::Undefined), None | Some(Value::Undefined)) => Vec::new(),
                (Some(_), None | Some(Value::Undefined)) => vec![m.string("module").map_err(fail)?],
                (None | Some(Value::Undefined), Some(_)) => m.strings("modules").map_err(fail)?,
                _ => return Err(fail(protocol("give `module` or `modules`, not both"))),
            };
            Request::Card {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
                op: m.string("op").map_err(fail)?,
                modules,
                args,
            }
        }
        "settle" => {
            m.only(&["v", "type", "id", "realm", "call", "ok", "value", "error"])
                .map_err(fail)?;
            let outcome = match m.get("ok") {
                Some(Value::Bool(true)) => Ok(m.graph("value")),
                Some(Value::Bool(false)) => Err(failure(&m)),
                _ => return Err(fail(protocol("`ok` must be a boolean"))),
            };
            Request::Settle {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
                call: m.int("call", MAX_ID).map_err(fail)?,
                outcome,
            }
        }
        "import" => {
            m.only(&["v", "type", "id", "realm", "url"]).map_err(fail)?;
            Request::Import {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
                url: m.string("url").map_err(fail)?,
            }
        }
        "provide" => {
            m.only(&["v", "type", "id", "realm", "url", "ok", "source", "error"])
                .map_err(fail)?;
            let source = match m.get("ok") {
                Some(Value::Bool(true)) => match m.get("source") {
                    Some(Value::Object(o)) => match m.graph.get(*o) {
                        Some(Object::ArrayBuffer(bytes)) => Ok(bytes.clone()),
                        _ => return Err(fail(protocol("`source` must be an ArrayBuffer"))),
                    },
                    Some(Value::String(t)) => Ok(t.to_lossy().into_bytes()),
                    _ => {
                        return Err(fail(protocol(
                            "`source` must be an ArrayBuffer or a string",
                        )));
                    }
                },
                Some(Value::Bool(false)) => {
                    Err(m.string("error").unwrap_or_else(|_| "fetch failed".into()))
                }
                _ => return Err(fail(protocol("`ok` must be a boolean"))),
            };
            Request::Provide {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
                url: m.string("url").map_err(fail)?,
                source,
            }
        }
        "policy" => {
            m.only(&["v", "type", "id", "realm", "modules"])
                .map_err(fail)?;
            let modules = m.graph("modules");
            Request::Policy {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
                policy: crate::modules::policy::Policy::parse(&modules, &modules.root)
                    .map_err(fail)?,
            }
        }
        "invalidate" => {
            m.only(&["v", "type", "id", "url"]).map_err(fail)?;
            Request::Invalidate {
                id: m.int("id", MAX_ID).map_err(fail)?,
                url: m.string("url").map_err(fail)?,
            }
        }
        "warm" => {
            m.only(&["v", "type", "id"]).map_err(fail)?;
            Request::Warm {
                id: m.int("id", MAX_ID).map_err(fail)?,
            }
        }
        "stats" => {
            m.only(&["v", "type", "id"]).map_err(fail)?;
            Request::Stats {
                id: m.int("id", MAX_ID).map_err(fail)?,
            }
        }
        "dispose" => {
            m.only(&["v", "type", "id", "realm"]).map_err(fail)?;
            Request::Dispose {
                id: m.int("id", MAX_ID).map_err(fail)?,
                realm: realm().map_err(fail)?,
            }
        }
        other => return Err(fail(protocol(format!("unknown message type `{other}`")))),
    };
    Ok(request)
}

/// An entry whose value crosses as a graph.
fn graph(result: Result<Outcome>) -> Result<Outcome<ToHost>> {
    result.map(|o| o.map(ToHost::Graph))
}

/// `{ name, message }` of a failed host call; anything malformed becomes a plain `Error`.
fn failure(m: &Message<'_>) -> HandlerFailure {
    let sub = m.graph("error");
    let fields = Message::new(&sub).ok();
    let text = |key: &str| {
        fields
            .as_ref()
            .and_then(|f| f.get(key))
            .and_then(|v| match v {
                Value::String(t) => Some(t.to_lossy()),
                _ => None,
            })
    };
    HandlerFailure {
        name: ErrorName::from_name(&text("name").unwrap_or_default()),
        message: text("message").unwrap_or_else(|| "the host handler failed".into()),
    }
}

/// Serves decoded requests against the realms of one worker.
#[derive(Default)]
pub struct Dispatcher {
    realms: HashMap<u32, Realm>,
    /// Pending entries: (realm, token) → the request waiting for it.
    waiting: HashMap<(u32, u64), RequestId>,
}

impl Dispatcher {
    /// Handles one message and returns the replies, in order.
    pub fn handle(&mut self, message: &Graph) -> Vec<Reply> {
        self.handle_with(message, None)
    }

    /// Handles one message whose payload was walked apart from it (see [`decode_with`]).
    /// A call or card operation so sent answers with a [`Reply::Tape`] where the result
    /// could be written as one.
    pub fn handle_with(&mut self, message: &Graph, payload: Option<&HostTape<'_>>) -> Vec<Reply> {
        match decode_with(message, payload) {
            Ok(request) => self.serve(request),
            Err((id, error)) => vec![Reply::Error { id, error }],
        }
    }

    /// The clone limits of `realm` (the defaults for a realm that does not exist, which
    /// any message to it is refused for).
    #[must_use]
    pub fn clone_limits(&self, realm: u32) -> CloneLimits {
        self.realms
            .get(&realm)
            .map_or_else(CloneLimits::default, |r| r.limits().clone)
    }

    /// Number of live realms.
    #[must_use]
    pub fn realm_count(&self) -> usize {
        self.realms.len()
    }

    /// Work that waits until the replies are posted: collecting what disposes freed, once
    /// the disposed realms are half the heap ([`crate::heap`]). Returns whether it collected.
    pub fn idle(&mut self) -> bool {
        crate::heap::collect_if_due()
    }

    /// Runs the guest timers that are due, in every realm; returns the replies they cause.
    pub fn tick(&mut self) -> Vec<Reply> {
        let mut replies = Vec::new();
        let mut ids: Vec<u32> = self.realms.keys().copied().collect();
        ids.sort_unstable();
        for realm in ids {
            let finished = match self.realms.get_mut(&realm) {
                Some(r) => r.run_timers(100),
                None => continue,
            };
            self.deliver(realm, finished, &mut replies);
        }
        self.flush_host_calls(&mut replies);
        self.stray_patches_first(&mut replies);
        replies
    }

    /// Time until the next guest timer is due, in any realm.
    #[must_use]
    pub fn next_timer_delay(&self) -> Option<web_time::Duration> {
        self.realms
            .values()
            .filter_map(Realm::next_timer_delay)
            .min()
    }

    fn deliver(
        &mut self,
        realm: u32,
        finished: Vec<(u64, Result<Graph>)>,
        replies: &mut Vec<Reply>,
    ) {
        for (token, result) in finished {
            if let Some(waiting) = self.waiting.remove(&(realm, token)) {
                replies.push(match result {
                    Ok(value) => Reply::Result { id: waiting, value },
                    Err(error) => Reply::Error {
                        id: Some(waiting),
                        error,
                    },
                });
            }
        }
    }

    fn serve(&mut self, request: Request<'_>) -> Vec<Reply> {
        let mut replies = Vec::new();
        match request {
            Request::Create { id, realm, options } => {
                let result = if self.realms.contains_key(&realm) {
                    Err(protocol(format!("realm {realm} already exists")))
                } else if self.realms.len() >= MAX_REALMS {
                    Err(SandboxError::new(
                        ErrorCode::LimitExceeded,
                        format!("a worker hosts at most {MAX_REALMS} realms"),
                    ))
                } else {
                    Realm::new_async(options).map(|r| {
                        self.realms.insert(realm, r);
                    })
                };
                replies.push(unit(id, result));
            }
            Request::Eval {
                id,
                realm,
                source,
                options,
            } => {
                let result = self
                    .realm(realm)
                    .and_then(|r| r.eval_outcome(&source, &options));
                self.outcome(id, realm, graph(result), &mut replies);
            }
            Request::Set {
                id,
                realm,
                name,
                value,
            } => {
                let result = self.realm(realm).and_then(|r| match &value {
                    Payload::Graph(g) => r.set(&name, g),
                    Payload::Tape(t) => r.set_tape(&name, t),
                });
                replies.push(unit(id, result));
            }
            Request::Call {
                id,
                realm,
                name,
                args,
            } => {
                let result = self.realm(realm).and_then(|r| match &args {
                    Payload::Graph(g) => r.call_outcome(&name, g).map(|o| o.map(ToHost::Graph)),
                    Payload::Tape(t) => r.call_outcome_tape(&name, t),
                });
                self.outcome(id, realm, result, &mut replies);
            }
            Request::Card {
                id,
                realm,
                op,
                modules,
                args,
            } => {
                let modules: Vec<&str> = modules.iter().map(String::as_str).collect();
                let result = self.realm(realm).and_then(|r| match &args {
                    Payload::Graph(g) => r.card(&op, &modules, g).map(|o| o.map(ToHost::Graph)),
                    Payload::Tape(t) => r.card_tape(&op, &modules, t),
                });
                self.outcome(id, realm, result, &mut replies);
            }
            Request::Settle {
                id,
                realm,
                call,
                outcome,
            } => match self.realm(realm).and_then(|r| r.settle(call, outcome)) {
                Ok(finished) => {
                    self.deliver(realm, finished, &mut replies);
                    // Every message ends with one reply carrying its own id.
                    replies.push(unit(id, Ok(())));
                }
                Err(error) => replies.push(Reply::Error {
                    id: Some(id),
                    error,
                }),
            },
            Request::Import { id, realm, url } => {
                let result = self.realm(realm).and_then(|r| r.import(&url));
                self.outcome(id, realm, graph(result), &mut replies);
            }
            Request::Provide {
                id,
                realm,
                url,
                source,
            } => match self.realm(realm) {
                Ok(r) => {
                    let finished = r.provide(&url, source);
                    self.deliver(realm, finished, &mut replies);
                    replies.push(unit(id, Ok(())));
                }
                Err(error) => replies.push(Reply::Error {
                    id: Some(id),
                    error,
                }),
            },
            Request::Policy { id, realm, policy } => match self.realm(realm) {
                Ok(r) => {
                    let gone = r.set_module_policy(policy);
                    replies.push(Reply::Result {
                        id,
                        value: url_list(gone),
                    });
                }
                Err(error) => replies.push(Reply::Error {
                    id: Some(id),
                    error,
                }),
            },
            Request::Invalidate { id, url } => {
                let mut gone = Vec::new();
                for r in self.realms.values_mut() {
                    gone.extend(r.invalidate(&url));
                }
                gone.sort();
                gone.dedup();
                replies.push(Reply::Result {
                    id,
                    value: url_list(gone),
                });
            }
            Request::Warm { id } => replies.push(unit(id, warm())),
            Request::Stats { id } => replies.push(Reply::Result {
                id,
                value: stats(self.realms.len()),
            }),
            Request::Dispose { id, realm } => {
                let result = match self.realms.remove(&realm) {
                    Some(mut r) => {
                        // The worker collects after posting the reply: see `idle`.
                        r.dispose_later();
                        Ok(())
                    }
                    None => Err(SandboxError::disposed()),
                };
                // Entries that were waiting in it end now.
                let orphans: Vec<(u32, u64)> = self
                    .waiting
                    .keys()
                    .filter(|(r, _)| *r == realm)
                    .copied()
                    .collect();
                for key in orphans {
                    if let Some(waiting) = self.waiting.remove(&key) {
                        replies.push(Reply::Error {
                            id: Some(waiting),
                            error: SandboxError::disposed(),
                        });
                    }
                }
                replies.push(unit(id, result));
            }
        }
        self.flush_host_calls(&mut replies);
        self.stray_patches_first(&mut replies);
        replies
    }

    /// Model patches no reply carries go out *before* the replies: they were written while
    /// this message or tick ran, so a host that sees a call end (a failed dispatch, say) has
    /// already been handed the writes made before it. A write of an async action still
    /// waiting, or of a timer, is then the host's at once and not lost with a killed worker.
    fn stray_patches_first(&mut self, replies: &mut Vec<Reply>) {
        let mut realms: Vec<u32> = self.realms.keys().copied().collect();
        realms.sort_unstable();
        let strays: Vec<Reply> = realms
            .into_iter()
            .filter_map(|realm| {
                let report = match self.realms.get_mut(&realm)?.take_stray_patches()? {
                    Ok(g) => Report::ModelPatches(g),
                    Err(e) => Report::Uncaught(e),
                };
                Some(Reply::Event { realm, report })
            })
            .collect();
        replies.splice(0..0, strays);
    }

    fn realm(&mut self, realm: u32) -> Result<&mut Realm> {
        self.realms.get_mut(&realm).ok_or_else(|| {
            SandboxError::new(
                ErrorCode::Disposed,
                format!("realm {realm} does not exist (disposed, or never created)"),
            )
        })
    }

    fn outcome(
        &mut self,
        id: RequestId,
        realm: u32,
        result: Result<Outcome<ToHost>>,
        replies: &mut Vec<Reply>,
    ) {
        match result {
            Ok(Outcome::Done(ToHost::Graph(value))) => replies.push(Reply::Result { id, value }),
            Ok(Outcome::Done(ToHost::Tape(tape))) => replies.push(Reply::Tape { id, tape }),
            Ok(Outcome::Pending(token)) => {
                self.waiting.insert((realm, token), id);
                replies.push(Reply::Pending { id });
            }
            Err(error) => replies.push(Reply::Error {
                id: Some(id),
                error,
            }),
        }
    }

    /// Host calls and reports of every realm, after the replies that caused them; and any
    /// waiting entry a later call settled (`done(5)` resolving an earlier eval's promise).
    fn flush_host_calls(&mut self, replies: &mut Vec<Reply>) {
        let mut realms: Vec<u32> = self.realms.keys().copied().collect();
        realms.sort_unstable();
        for &realm in &realms {
            let finished = match self.realms.get_mut(&realm) {
                Some(r) => r.take_finished(),
                None => continue,
            };
            self.deliver(realm, finished, replies);
        }
        for realm in realms {
            if let Some(r) = self.realms.get_mut(&realm) {
                for report in r.take_reports() {
                    replies.push(Reply::Event { realm, report });
                }
                for HostCall { call, args } in r.take_host_calls() {
                    replies.push(Reply::HostCall { realm, call, args });
                }
                for fetch in r.take_fetches() {
                    replies.push(Reply::Fetch { realm, fetch });
                }
            }
        }
    }
}

/// `{ realms, heapBytes, moduleCache: { hits, misses, evictions, entries, sourceBytes } }`
fn stats(realms: usize) -> Graph {
    let c = crate::modules::cache::stats();
    let mut value = Graph::undefined();
    let field = |k: &str, n: f64| (Text::Utf8(k.into()), Value::Number(n));
    #[allow(clippy::cast_precision_loss)] // counters stay far below 2^53
    let cache = value.push(Object::Plain(vec![
        field("hits", c.hits as f64),
        field("misses", c.misses as f64),
        field("evictions", c.evictions as f64),
        field("entries", c.entries as f64),
        field("sourceBytes", c.source_bytes as f64),
    ]));
    #[allow(clippy::cast_precision_loss)]
    let root = value.push(Object::Plain(vec![
        field("realms", realms as f64),
        field("heapBytes", crate::heap::allocated_bytes() as f64),
        (Text::Utf8("moduleCache".into()), Value::Object(cache)),
    ]));
    value.root = Value::Object(root);
    value
}

fn url_list(urls: Vec<String>) -> Graph {
    let mut value = Graph::undefined();
    let list = value.push(Object::Array {
        length: u32::try_from(urls.len()).unwrap_or(u32::MAX),
        elements: urls
            .into_iter()
            .enumerate()
            .map(|(i, u)| {
                (
                    u32::try_from(i).unwrap_or(u32::MAX),
                    Value::String(Text::Utf8(u.into())),
                )
            })
            .collect(),
        extra: Vec::new(),
    });
    value.root = Value::Object(list);
    value
}

/// `warm`'s script: the paths a card or plugin takes first (parser, compiler, calls,
/// classes, objects, arrays, strings, regex, JSON, the boundary both ways).
pub const WARM_UP: &str = r"
class Row { constructor(k, v) { this.k = k; this.v = v } html() { return `<b>${this.k}</b>${this.v}` } }
function warm(m) {
  const rows = Object.entries(m.fields).map(([k, v]) => new Row(k, typeof v === 'number' ? v * 2 : String(v)));
  rows.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  let out = '';
  for (const r of rows) { try { out += r.html() } catch (e) { out += e.message } }
  const words = out.replace(/<[^>]+>/g, ' ').split(/\s+/).filter(Boolean);
  const json = JSON.parse(JSON.stringify({ words, n: words.length, list: m.list.slice(1) }));
  return { title: m.title.toUpperCase(), n: json.n, list: json.list, ok: [true, null, undefined, 1.5], when: new Date(0), seen: new Map([[1, 'a']]) };
}
";
const WARM_ARGS: &str =
    "[{ title: 'warm', fields: { a: 1, b: 'two', c: 3.5, d: true }, list: [1, 'x', { y: [2] }] }]";

/// Runs [`WARM_UP`] in a realm of no compartment; the realm is gone when it returns (its
/// heap is collected at the worker's next `idle`).
fn warm() -> Result<()> {
    // Options as a compartment's create sends them, parsed the same way.
    let mut options = Graph::undefined();
    let modules = options.push(Object::Plain(Vec::new()));
    let root = options.push(Object::Plain(vec![(
        Text::Utf8("modules".into()),
        Value::Object(modules),
    )]));
    options.root = Value::Object(root);
    let mut realm = Realm::new_async(RealmOptions::parse(&options, true)?)?;
    let run = (|| {
        let args = realm.eval(WARM_ARGS, &EvalOptions::default())?;
        realm.eval(WARM_UP, &EvalOptions::default())?;
        realm.call("warm", &args).map(drop)
    })();
    realm.dispose_later();
    run
}

fn unit(id: RequestId, result: Result<()>) -> Reply {
    match result {
        Ok(()) => Reply::Result {
            id,
            value: Graph::undefined(),
        },
        Err(error) => Reply::Error {
            id: Some(id),
            error,
        },
    }
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
