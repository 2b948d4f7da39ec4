//! The isolated realm: a Boa context whose only contact with the host is cloned data.

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;

use boa_engine::builtins::promise::{OperationType, Promise, PromiseState};
use boa_engine::context::{ContextBuilder, HostHooks};
use boa_engine::error::{EngineError, RuntimeLimitError};
use boa_engine::object::builtins::JsPromise;
use boa_engine::property::{PropertyDescriptor, PropertyKey};
use boa_engine::realm::Realm as BoaRealm;
use boa_engine::{
    Context, JsError, JsNativeError, JsObject, JsResult, JsString, JsValue, js_string,
};

use crate::budget::Meter;
use crate::capabilities;
use crate::clone::host_tape::{self, HostTape};
use crate::clone::tape::Tape;
use crate::clone::{Captured, CloneError, fast, from_guest, guest_tape, to_guest, to_guest_args};
use crate::error::{ErrorCode, Limit, Location, Result, SandboxError, TerminationReason};
use crate::handler::{self, AsyncCalls, Handler, HostCall};
use crate::jobs::JobQueue;
use crate::modules::loader::{DENIED_MARKER, Fetch, Loader, Modules, export_names};
use crate::options::{EvalOptions, Limits, RealmOptions};
use crate::platform::{self, CoarseClock, Platform, Report};
use crate::value::{CloneLimits, ErrorName, Graph, Object, Value};

/// What a host handler's failure looks like to the guest: a fresh guest error.
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerFailure {
    /// Error constructor to use; unknown names become `Error`.
    pub name: ErrorName,
    /// Its message.
    pub message: String,
}

/// The host side of `exposeHandlerAs`. Receives the guest's arguments as one cloned
/// array and answers with a cloned value or a failure.
pub trait HostHandler {
    /// Handles one guest call.
    ///
    /// # Errors
    /// A [`HandlerFailure`] becomes a guest error of that name and message.
    fn call(&self, args: Graph) -> std::result::Result<Graph, HandlerFailure>;
}

/// Host hooks of every sandbox context.
struct SandboxHooks {
    realm_id: u64,
    allow_code_generation: bool,
    code_generation_denied: Cell<bool>,
}

const DENIED_MESSAGE: &str = "code generation from strings is disabled in this realm";

const MAX_BUFFER_BYTES: u64 = 256 * 1024 * 1024;

impl HostHooks for SandboxHooks {
    fn promise_rejection_tracker(
        &self,
        promise: &JsObject<Promise>,
        operation: OperationType,
        _context: &mut Context,
    ) {
        let promise = promise.clone().upcast();
        platform::track_rejection(self.realm_id, &promise, operation == OperationType::Handle);
    }

    fn ensure_can_compile_strings(
        &self,
        _realm: BoaRealm,
        _parameters: &[JsString],
        _body: &JsString,
        _direct: bool,
        _context: &mut Context,
    ) -> JsResult<()> {
        // Invariant: with allowCodeGeneration false, no string becomes code, whichever
        // evaluator (eval, Function, async/generator constructors) is reached.
        if self.allow_code_generation {
            return Ok(());
        }
        self.code_generation_denied.set(true);
        Err(JsNativeError::eval().with_message(DENIED_MESSAGE).into())
    }

    fn max_buffer_size(&self, _context: &mut Context) -> u64 {
        // Invariant: one guest allocation request cannot ask for more than this.
        MAX_BUFFER_BYTES
    }
}

thread_local! {
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

struct Inner {
    context: Context,
    meter: Meter,
    jobs: Rc<JobQueue>,
    hooks: Rc<SandboxHooks>,
    captured: Captured,
    async_calls: Option<Rc<AsyncCalls>>,
    platform: Rc<Platform>,
    modules: Rc<Modules>,
    /// Host imports waiting for their module graph, by token.
    imports: HashMap<u64, String>,
    /// Entries whose completion value is a promise still pending, by token.
    pending: HashMap<u64, JsPromise>,
    next_token: u64,
}

/// The result of an entry that may wait for promises.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<T = Graph> {
    /// Finished with this value.
    Done(T),
    /// Its completion value is a pending promise; [`Realm::settle`] reports it later.
    Pending(u64),
}

impl<T> Outcome<T> {
    /// The finished value mapped by `f`; a pending token as it is.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        match self {
            Outcome::Done(v) => Outcome::Done(f(v)),
            Outcome::Pending(token) => Outcome::Pending(token),
        }
    }
}

/// An isolated realm. Not thread-safe; one per context, one context per realm.
pub struct Realm {
    id: u64,
    inner: Option<Inner>,
    limits: Limits,
    /// Its estimated share of the collector's heap ([`crate::heap`]): what building it, its
    /// entries and the one-pass builds of the values it was given allocated.
    heap_share: usize,
    /// An entry is running, or unwound (a caught panic): its objects may be mid-update,
    /// so its own dispose or drop must not collect. (Other realms' disposes and Boa's
    /// threshold still may: this only keeps the unwound realm from starting one.)
    in_entry: bool,
}

impl Realm {
    /// Creates a realm with the guest global reduced to [`capabilities::GLOBALS`] and the
    /// handler, if any, exposed under `options.expose_handler_as`.
    ///
    /// # Errors
    /// `SANDBOX_INVALID_OPTIONS` for a handler without a name (or the reverse);
    /// `SANDBOX_TERMINATED` if the engine cannot be created.
    pub fn new(options: RealmOptions, handler: Option<Rc<dyn HostHandler>>) -> Result<Self> {
        Self::build(options, handler.map(Handler::Sync))
    }

    /// Like [`Realm::new`], but the exposed handler is asynchronous: the guest gets a
    /// promise per call, [`Realm::take_host_calls`] hands the calls to the host, and
    /// [`Realm::settle`] answers them. Used across a worker boundary.
    ///
    /// # Errors
    /// As [`Realm::new`].
    pub fn new_async(options: RealmOptions) -> Result<Self> {
        let handler = options
            .expose_handler_as
            .as_ref()
            .map(|_| Handler::Async(Rc::new(AsyncCalls::default())));
        Self::build(options, handler)
    }

    fn build(options: RealmOptions, handler: Option<Handler>) -> Result<Self> {
        if handler.is_some() != options.expose_handler_as.is_some() {
            return Err(SandboxError::invalid_option(
                "exposeHandlerAs",
                "and `handler` must be given together",
            ));
        }
        let heap_before = crate::heap::allocated_bytes();
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id + 1);
            id
        });
        let hooks = Rc::new(SandboxHooks {
            realm_id: id,
            allow_code_generation: options.allow_code_generation,
            code_generation_denied: Cell::new(false),
        });
        let jobs = Rc::new(JobQueue::default());
        let modules = Rc::new(Modules::new(options.modules.clone()));
        let mut context = ContextBuilder::new()
            .host_hooks(hooks.clone())
            .job_executor(jobs.clone())
            // Invariant: no module is ever loaded from the filesystem or network by the
            // engine itself; Boa's default loader would read the working directory.
            .module_loader(Rc::new(Loader(modules.clone())))
            .clock(Rc::new(CoarseClock::new(
                options.limits.platform.clock_resolution,
            )))
            .instructions_remaining(0)
            .build()
            .map_err(|e| internal(&format!("engine start failed: {e}")))?;
        let limits = options.limits.clone();
        {
            let rl = context.runtime_limits_mut();
            rl.set_recursion_limit(limits.max_recursion);
            rl.set_stack_size_limit(limits.max_stack_size);
            match limits.max_loop_iterations {
                Some(n) => rl.set_loop_iteration_limit(n),
                None => rl.disable_loop_iteration_limit(),
            }
        }
        let meter = Meter::default();
        let mut captured = capture_intrinsics(&mut context, &meter)?;
        captured.modules = Some(modules.clone());
        restrict_global(&mut context)?;
        crate::guards::install(&mut context)
            .map_err(|e| internal(&format!("installing builtin guards failed: {e}")))?;
        crate::builtins::install(&mut context)
            .map_err(|e| internal(&format!("installing our builtins failed: {e}")))?;
        let platform = Rc::new(Platform::new(
            limits.platform,
            captured.clone(),
            limits.clone,
        ));
        meter.arm(&mut context, 50_000_000, web_time::Duration::from_secs(10));
        let installed = platform::install(&mut context, id, platform.clone());
        meter.disarm(&mut context);
        installed.map_err(|e| internal(&format!("installing the platform failed: {e}")))?;
        let async_calls = match &handler {
            Some(Handler::Async(calls)) => Some(calls.clone()),
            _ => None,
        };
        if let (Some(name), Some(handler)) = (&options.expose_handler_as, handler) {
            handler::install(
                &mut context,
                id,
                name,
                handler,
                captured.clone(),
                limits.clone,
            )
            .map_err(|e| internal(&format!("installing the handler failed: {e}")))?;
        }
        Ok(Self {
            id,
            inner: Some(Inner {
                context,
                meter,
                jobs,
                hooks,
                captured,
                async_calls,
                platform,
                modules,
                imports: HashMap::new(),
                pending: HashMap::new(),
                next_token: 1,
            }),
            limits,
            // Less if a collection ran meanwhile: a dispose then collects later, not wrongly.
            heap_share: crate::heap::allocated_bytes().saturating_sub(heap_before),
            in_entry: false,
        })
    }

    /// Whether [`Realm::dispose`] was called or the engine failed fatally.
    #[must_use]
    pub fn is_disposed(&self) -> bool {
        self.inner.is_none()
    }

    /// The limits in force.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Evaluates a script and returns a structured clone of its completion value.
    ///
    /// # Errors
    /// `SANDBOX_SYNTAX`, `SANDBOX_GUEST_THREW`, `SANDBOX_LIMIT_EXCEEDED`,
    /// `SANDBOX_NOT_CLONEABLE`, `SANDBOX_POLICY_DENIED` (code generation denied),
    /// `SANDBOX_DISPOSED`, `SANDBOX_TERMINATED` (engine panic; the realm is then disposed).
    pub fn eval(&mut self, source: &str, options: &EvalOptions) -> Result<Graph> {
        settled(self.eval_with(source, options, true), self)
    }

    /// Like [`Realm::eval`], but a promise completion value is awaited: the result is its
    /// fulfilment (or the rejection as `SANDBOX_GUEST_THREW`), or [`Outcome::Pending`] if
    /// it waits on async host calls.
    ///
    /// # Errors
    /// As [`Realm::eval`].
    pub fn eval_outcome(&mut self, source: &str, options: &EvalOptions) -> Result<Outcome> {
        self.eval_with(source, options, true)
    }

    fn eval_with(
        &mut self,
        source: &str,
        options: &EvalOptions,
        await_promise: bool,
    ) -> Result<Outcome> {
        if source.len() > self.limits.max_source_length {
            return Err(SandboxError::limit(
                Limit::SourceLength,
                format!(
                    "source is {} bytes, over maxSourceLength ({})",
                    source.len(),
                    self.limits.max_source_length
                ),
            ));
        }
        let filename = options.filename.clone();
        self.enter(await_promise, move |inner| {
            let path = std::path::Path::new(&filename);
            // Parsed and compiled with a scratch interner: Boa's context interner keeps every
            // identifier and literal it ever saw (~600 B per eval of fresh source, for good),
            // and a compiled script holds strings, not interner symbols. (Modules have an
            // interner of their own: `modules::cache`.)
            let interner = std::mem::take(inner.context.interner_mut());
            let compiled = crate::parse::script(source, Some(path), &mut inner.context)
                .map_err(|e| Failure::Syntax(syntax_error(&e, source, &filename)))
                .and_then(|script| {
                    script.codeblock(&mut inner.context)?;
                    Ok(script)
                });
            *inner.context.interner_mut() = interner;
            let value = compiled?.evaluate(&mut inner.context)?;
            Ok(value)
        })
    }

    /// Defines (or replaces) a global binding in the guest as a clone of `value`.
    ///
    /// # Errors
    /// `SANDBOX_INVALID_OPTIONS` for a non-identifier name; `SANDBOX_GUEST_THREW` if the
    /// guest made the binding non-configurable; `SANDBOX_DISPOSED`.
    pub fn set(&mut self, name: &str, value: &Graph) -> Result<()> {
        self.set_with(name, Host::Graph(value))
    }

    /// [`Realm::set`] for a value walked on the host, decoded here.
    ///
    /// # Errors
    /// As [`Realm::set`]; `SANDBOX_NOT_CLONEABLE` or `SANDBOX_LIMIT_EXCEEDED` for the value
    /// (see [`host_tape::decode`]).
    pub fn set_tape(&mut self, name: &str, value: &HostTape<'_>) -> Result<()> {
        let limits = self.limits.clone;
        let built = if name.is_empty() {
            None
        } else {
            self.build_fast(|context| fast::value(value, limits, context))
        };
        match built {
            Some(v) => self.set_with(name, Host::Guest(v)),
            None => self.set(name, &host_tape::decode(value, limits)?),
        }
    }

    fn set_with(&mut self, name: &str, value: Host<'_, JsValue>) -> Result<()> {
        if name.is_empty() {
            return Err(SandboxError::invalid_option(
                "name",
                "must be a non-empty string",
            ));
        }
        self.enter(false, |inner| {
            let v = match value {
                Host::Graph(g) => to_guest(g, &mut inner.context)?,
                Host::Decoded(g) => to_guest(&g, &mut inner.context)?,
                Host::Guest(v) => v,
            };
            let global = inner.context.global_object();
            global.define_property_or_throw(
                JsString::from(name),
                PropertyDescriptor::builder()
                    .value(v)
                    .writable(true)
                    .enumerable(true)
                    .configurable(true),
                &mut inner.context,
            )?;
            Ok(JsValue::undefined())
        })
        .map(|_| ())
    }

    /// Calls the guest global function `name` with cloned `args` (a graph whose root is an
    /// array) and returns a clone of its result.
    ///
    /// # Errors
    /// As [`Realm::eval`]; a missing or non-callable `name` is a guest `TypeError`.
    pub fn call(&mut self, name: &str, args: &Graph) -> Result<Graph> {
        settled(self.call_with(name, Host::Graph(args), true), self)
    }

    /// [`Realm::call`] with arguments walked on the host, decoded here. The common values
    /// are built in the guest straight from the tape ([`fast`]); anything else, and every
    /// error, goes through the decoded graph, before the realm is entered.
    ///
    /// # Errors
    /// As [`Realm::call`]; `SANDBOX_NOT_CLONEABLE` or `SANDBOX_LIMIT_EXCEEDED` for the
    /// arguments (see [`host_tape::decode`]).
    pub fn call_tape(&mut self, name: &str, args: &HostTape<'_>) -> Result<ToHost> {
        let args = self.tape_args(args)?;
        settled(self.call_as(name, args, true, to_host), self)
    }

    /// Like [`Realm::call`], awaiting a promise result as [`Realm::eval_outcome`] does.
    ///
    /// # Errors
    /// As [`Realm::call`].
    pub fn call_outcome(&mut self, name: &str, args: &Graph) -> Result<Outcome> {
        self.call_with(name, Host::Graph(args), true)
    }

    /// [`Realm::call_outcome`] with arguments walked on the host, and the result crossing
    /// as [`Realm::call_tape`]'s does.
    ///
    /// # Errors
    /// As [`Realm::call_tape`].
    pub fn call_outcome_tape(
        &mut self,
        name: &str,
        args: &HostTape<'_>,
    ) -> Result<Outcome<ToHost>> {
        let args = self.tape_args(args)?;
        self.call_as(name, args, true, to_host)
    }

    /// The guest arguments a host tape holds: built in one pass ([`fast`]) where it can, the
    /// decoded graph otherwise (which decides every error, before the realm is entered).
    fn tape_args(&mut self, tape: &HostTape<'_>) -> Result<Host<'static, Vec<JsValue>>> {
        let limits = self.limits.clone;
        let built = self.build_fast(|context| fast::args(tape, limits, context));
        Ok(match built {
            Some(args) => Host::Guest(args),
            None => Host::Decoded(host_tape::decode(tape, limits)?),
        })
    }

    /// Runs a one-pass build ([`fast`]) in the realm's engine. What it allocates counts
    /// towards the realm's share as an entry's growth does: the values are the guest's.
    fn build_fast<R>(&mut self, build: impl FnOnce(&mut Context) -> Option<R>) -> Option<R> {
        self.counting_growth(|realm| build(&mut realm.inner.as_mut()?.context))
    }

    fn call_with(
        &mut self,
        name: &str,
        args: Host<'_, Vec<JsValue>>,
        await_promise: bool,
    ) -> Result<Outcome> {
        self.call_as(name, args, await_promise, from_guest)
    }

    fn call_as<T>(
        &mut self,
        name: &str,
        args: Host<'_, Vec<JsValue>>,
        await_promise: bool,
        cross: impl Cross<T>,
    ) -> Result<Outcome<T>> {
        self.enter_as(
            await_promise,
            |inner| {
                let context = &mut inner.context;
                let f = context.global_object().get(JsString::from(name), context)?;
                let Some(f) = f.as_callable() else {
                    return Err(JsNativeError::typ()
                        .with_message(format!("{name} is not a function"))
                        .into());
                };
                let args = args.into_guest(context)?;
                f.call(&JsValue::undefined(), &args, context)
                    .map_err(Failure::from)
            },
            cross,
        )
    }

    /// Runs the card operation `op` of the guest's card runtime with cloned `args` (a
    /// graph whose root is an array). Operations on card modules get their namespaces first
    /// (see [`crate::cards::Modules`]): each of `modules` must be an entry the host imported
    /// and that evaluated. A promise result (an async action) is awaited as
    /// [`Realm::eval_outcome`] does.
    ///
    /// # Errors
    /// `SANDBOX_PROTOCOL` for an unknown operation, modules the operation does not take, or
    /// a module that is not loaded; as [`Realm::call`] otherwise.
    pub fn card(&mut self, op: &str, modules: &[&str], args: &Graph) -> Result<Outcome> {
        let op = card_op(op, modules)?;
        self.card_as(op, modules, Host::Graph(args), from_guest)
    }

    /// [`Realm::card`] with arguments walked on the host, and the result crossing as
    /// [`Realm::call_tape`]'s does.
    ///
    /// # Errors
    /// As [`Realm::card`]; as [`Realm::call_tape`] for the arguments.
    pub fn card_tape(
        &mut self,
        op: &str,
        modules: &[&str],
        args: &HostTape<'_>,
    ) -> Result<Outcome<ToHost>> {
        let op = card_op(op, modules)?;
        let args = self.tape_args(args)?;
        self.card_as(op, modules, args, to_host)
    }

    fn card_as<T>(
        &mut self,
        op: crate::cards::Op,
        modules: &[&str],
        args: Host<'_, Vec<JsValue>>,
        cross: impl Cross<T>,
    ) -> Result<Outcome<T>> {
        self.enter_as(
            true,
            |inner| {
                let runtime = inner.modules.card_runtime(&mut inner.context)?;
                let mut argv = Vec::new();
                let mut namespaces = Vec::with_capacity(modules.len());
                for url in modules {
                    let ns = inner
                        .modules
                        .namespace(url, &mut inner.context)
                        .ok_or_else(|| {
                            Failure::Boundary(SandboxError::new(
                                ErrorCode::Protocol,
                                format!("module {url} is not loaded; import it first"),
                            ))
                        })?;
                    namespaces.push((*url, ns));
                }
                match op.modules() {
                    crate::cards::Modules::None => {}
                    crate::cards::Modules::One => {
                        argv.extend(namespaces.into_iter().map(|(_, ns)| JsValue::from(ns)));
                    }
                    crate::cards::Modules::Table => {
                        // No prototype: a guest's `Object.prototype` edits cannot add an entry.
                        let table = JsObject::with_null_proto();
                        for (url, ns) in namespaces {
                            table.create_data_property_or_throw(
                                JsString::from(url),
                                ns,
                                &mut inner.context,
                            )?;
                        }
                        argv.push(table.into());
                    }
                }
                argv.extend(args.into_guest(&mut inner.context)?);
                let f = runtime
                    .ops
                    .get(JsString::from(op.name()), &mut inner.context)?;
                let f = f
                    .as_callable()
                    .ok_or_else(|| JsNativeError::typ().with_message("card runtime is broken"))?;
                f.call(&runtime.ops.clone().into(), &argv, &mut inner.context)
                    .map_err(Failure::from)
            },
            cross,
        )
    }

    /// Model patches the card runtime holds that no call returned (writes of an async action
    /// still waiting, or of a guest timer), as `{ patches, changed }`; `None` when there are
    /// none or no card runtime was started. Cheap when there are none: no guest code runs.
    /// An error (patches over the clone caps, say) is the host's to hear about.
    pub fn take_stray_patches(&mut self) -> Option<Result<Graph>> {
        let inner = self.inner.as_mut()?;
        if !inner.modules.card_patches_waiting(&mut inner.context) {
            return None;
        }
        Some(done(self.card("flush", &[], &Graph::undefined())))
    }

    /// Imports the module at `url` (absolute) and evaluates its graph: `Done` with its
    /// export names once every module it needs was provided, else `Pending` until
    /// [`Realm::provide`] completes it. What to fetch comes from [`Realm::take_fetches`].
    ///
    /// # Errors
    /// `SANDBOX_POLICY_DENIED` for a URL the policy refuses (nothing is fetched);
    /// `SANDBOX_DISPOSED`.
    pub fn import(&mut self, url: &str) -> Result<Outcome> {
        let Some(inner) = self.inner.as_mut() else {
            return Err(SandboxError::disposed());
        };
        let resolved = inner.modules.policy().resolve(url, None)?;
        inner.modules.request(&resolved);
        let token = inner.next_token;
        inner.next_token += 1;
        inner.imports.insert(token, resolved.url);
        let finished = self.finish_imports();
        match finished.into_iter().find(|(t, _)| *t == token) {
            Some((_, result)) => result.map(Outcome::Done),
            None => Ok(Outcome::Pending(token)),
        }
    }

    /// Module sources the host must fetch (each already allowed by the policy).
    pub fn take_fetches(&mut self) -> Vec<Fetch> {
        self.inner
            .as_ref()
            .map(|i| i.modules.take_fetches())
            .unwrap_or_default()
    }

    /// The host's answer for a fetch: the bytes, or why it failed. Returns the imports that
    /// finished as a result, by token.
    pub fn provide(
        &mut self,
        url: &str,
        source: std::result::Result<Vec<u8>, String>,
    ) -> Vec<(u64, Result<Graph>)> {
        self.guest_running(|realm| {
            if let Some(inner) = realm.inner.as_mut() {
                inner.meter.arm(
                    &mut inner.context,
                    realm.limits.instructions,
                    realm.limits.timeout,
                );
                inner.modules.provide(url, source, &mut inner.context);
                inner.meter.disarm(&mut inner.context);
            }
        });
        let mut out = self.finish_imports();
        out.extend(self.resume_imports());
        out
    }

    /// Resumes the guest's dynamic imports whose module graph is now here (or failed): each
    /// settles its promise in one metered entry, and entries waiting on them may finish.
    fn resume_imports(&mut self) -> Vec<(u64, Result<Graph>)> {
        let ready = match self.inner.as_ref() {
            Some(inner) => inner.modules.take_ready_imports(),
            None => return Vec::new(),
        };
        if ready.is_empty() {
            return Vec::new();
        }
        let result = self.enter(false, move |inner| {
            for import in ready {
                import.resume(&mut inner.context);
            }
            Ok(JsValue::undefined())
        });
        self.after_jobs(result)
    }

    /// Entries finished by jobs that just ran; if the jobs failed, every waiting entry
    /// failed with them.
    fn after_jobs(&mut self, result: Result<Outcome>) -> Vec<(u64, Result<Graph>)> {
        match result {
            Ok(_) => self.finished(),
            Err(e) => {
                let tokens: Vec<u64> = self
                    .inner
                    .as_mut()
                    .map(|i| i.pending.drain().map(|(t, _)| t).collect())
                    .unwrap_or_default();
                tokens.into_iter().map(|t| (t, Err(e.clone()))).collect()
            }
        }
    }

    /// Replaces the module policy; every module loaded under the old one is evicted.
    /// Returns the URLs evicted.
    pub fn set_module_policy(&mut self, policy: crate::modules::policy::Policy) -> Vec<String> {
        self.inner
            .as_ref()
            .map(|i| i.modules.set_policy(policy))
            .unwrap_or_default()
    }

    /// Drops `url` and every module importing it; the next import fetches them again.
    pub fn invalidate(&mut self, url: &str) -> Vec<String> {
        self.inner
            .as_ref()
            .map(|i| i.modules.invalidate(url))
            .unwrap_or_default()
    }

    fn finish_imports(&mut self) -> Vec<(u64, Result<Graph>)> {
        let ready: Vec<(u64, String, Result<(), SandboxError>)> = match self.inner.as_ref() {
            Some(inner) => inner
                .imports
                .iter()
                .filter_map(|(t, u)| inner.modules.settled(u).map(|r| (*t, u.clone(), r)))
                .collect(),
            None => return Vec::new(),
        };
        let mut out = Vec::new();
        for (token, url, settled) in ready {
            if let Some(inner) = self.inner.as_mut() {
                inner.imports.remove(&token);
            }
            if let Err(e) = settled {
                out.push((token, Err(e)));
                continue;
            }
            let id = self.id;
            let entry = url.clone();
            let result = self.enter(true, move |inner| {
                let module = inner
                    .modules
                    .get(&entry)
                    .ok_or_else(|| JsNativeError::typ().with_message("module vanished"))?;
                let promise = module.load_link_evaluate(&mut inner.context);
                inner.context.run_jobs()?;
                match promise.state() {
                    PromiseState::Rejected(e) => {
                        platform::track_rejection(id, &promise.clone().into(), true);
                        Err(Failure::Js(JsError::from_opaque(e)))
                    }
                    _ => {
                        inner.modules.mark_evaluated(&entry);
                        Ok(export_names(&module, &mut inner.context)?)
                    }
                }
            });
            out.push((
                token,
                settled_now(result).map_err(|e| self.place_link_error(&url, e)),
            ));
        }
        out
    }

    /// A link error (Boa gives no position) becomes `SANDBOX_SYNTAX` at the import that
    /// names the missing binding.
    fn place_link_error(&self, entry: &str, mut e: SandboxError) -> SandboxError {
        let Some(inner) = self.inner.as_ref() else {
            return e;
        };
        let guest_message = e.details.guest_message.clone().unwrap_or_default();
        if let Some(failure) = inner.modules.failure_reported_as(&guest_message) {
            return failure;
        }
        if e.code == ErrorCode::PolicyDenied && e.details.path.is_none() {
            // "import of `specifier` denied: reason [SANDBOX_POLICY_DENIED]"
            e.details.path = guest_message.split('`').nth(1).map(str::to_owned);
        }
        if e.details.name.as_deref() != Some("SyntaxError") || e.details.location.is_some() {
            return e;
        }
        let message = e.details.guest_message.clone().unwrap_or_default();
        let name = message.split('`').nth(1).unwrap_or_default();
        if let Some((url, line, column)) = inner.modules.locate_import(entry, name) {
            e.code = ErrorCode::Syntax;
            e.message = format!("link error: {message} (at {url}:{line}:{column})");
            e.details.location = Some(Location {
                filename: url,
                line,
                column,
            });
        }
        e
    }

    /// Async host calls the guest made since the last take.
    pub fn take_host_calls(&mut self) -> Vec<HostCall> {
        self.inner
            .as_ref()
            .and_then(|i| i.async_calls.as_ref())
            .map(|c| c.take())
            .unwrap_or_default()
    }

    /// Whether any entry is waiting on a promise.
    #[must_use]
    pub fn has_pending(&self) -> bool {
        self.inner.as_ref().is_some_and(|i| !i.pending.is_empty())
    }

    /// Answers async host call `call`, runs the guest jobs that unblocks (one metered
    /// entry), and returns the entries that finished as a result, by token.
    ///
    /// # Errors
    /// `SANDBOX_PROTOCOL` for an unknown call id; a limit or crash while running the
    /// unblocked jobs fails every pending entry (and is returned here too).
    pub fn settle(
        &mut self,
        call: u64,
        outcome: std::result::Result<Graph, HandlerFailure>,
    ) -> Result<Vec<(u64, Result<Graph>)>> {
        let resolvers = self
            .inner
            .as_ref()
            .and_then(|i| i.async_calls.as_ref())
            .and_then(|c| c.resolvers(call));
        let Some(resolvers) = resolvers else {
            return Err(SandboxError::new(
                ErrorCode::Protocol,
                format!("no host call {call} is waiting"),
            ));
        };
        let result = self.enter(false, move |inner| {
            let context = &mut inner.context;
            match outcome {
                Ok(graph) => {
                    let v = to_guest(&graph, context)?;
                    resolvers
                        .resolve
                        .call(&JsValue::undefined(), &[v], context)?;
                }
                Err(failure) => {
                    let e = handler::failure_error(failure).into_opaque(context);
                    resolvers
                        .reject
                        .call(&JsValue::undefined(), &[e.into()], context)?;
                }
            }
            Ok(JsValue::undefined())
        });
        Ok(self.after_jobs(result))
    }

    /// Stops waiting for entry `token` (e.g. the host gave up on it).
    pub fn abandon(&mut self, token: u64) {
        if let Some(inner) = self.inner.as_mut() {
            inner.pending.remove(&token);
        }
    }

    /// Pending entries whose promise settled since (by any later entry), with results.
    pub fn take_finished(&mut self) -> Vec<(u64, Result<Graph>)> {
        if self.has_pending() {
            self.finished()
        } else {
            Vec::new()
        }
    }

    /// Collects pending entries whose promise settled, converting each result.
    fn finished(&mut self) -> Vec<(u64, Result<Graph>)> {
        let settled: Vec<(u64, JsPromise)> = match self.inner.as_ref() {
            Some(inner) => inner
                .pending
                .iter()
                .filter(|(_, p)| !matches!(p.state(), PromiseState::Pending))
                .map(|(t, p)| (*t, p.clone()))
                .collect(),
            None => return Vec::new(),
        };
        let mut out = Vec::with_capacity(settled.len());
        for (token, promise) in settled {
            if let Some(inner) = self.inner.as_mut() {
                inner.pending.remove(&token);
            }
            let result = self.enter(false, move |_| match promise.state() {
                PromiseState::Fulfilled(v) => Ok(v),
                PromiseState::Rejected(e) => Err(Failure::Js(JsError::from_opaque(e))),
                PromiseState::Pending => Ok(JsValue::undefined()),
            });
            out.push((token, done(result)));
        }
        out
    }

    /// Time until the next guest timer is due, if any is live.
    #[must_use]
    pub fn next_timer_delay(&self) -> Option<web_time::Duration> {
        self.inner
            .as_ref()
            .and_then(|i| i.platform.timers.borrow().next_delay())
    }

    /// Runs the timers that are due (each callback one metered entry; at most `max` of
    /// them) and returns the entries that finished as a result. A callback's uncaught
    /// error becomes a report; an interval whose callback hits a limit is cleared.
    pub fn run_timers(&mut self, max: usize) -> Vec<(u64, Result<Graph>)> {
        let now = web_time::Instant::now();
        for _ in 0..max {
            let Some(inner) = self.inner.as_ref() else {
                break;
            };
            let due = inner.platform.timers.borrow_mut().pop_due(now);
            let Some((timer_id, callback, args)) = due else {
                break;
            };
            let result = self.enter(false, move |inner| {
                callback.call(&JsValue::undefined(), &args, &mut inner.context)?;
                Ok(JsValue::undefined())
            });
            if let Err(e) = result
                && let Some(inner) = self.inner.as_ref()
            {
                if e.code == ErrorCode::LimitExceeded {
                    inner.platform.timers.borrow_mut().clear(timer_id);
                }
                inner
                    .platform
                    .reports
                    .borrow_mut()
                    .push(Report::Uncaught(e));
            }
        }
        self.finished()
    }

    /// Console messages, uncaught errors and unhandled rejections since the last take.
    pub fn take_reports(&mut self) -> Vec<Report> {
        self.inner
            .as_ref()
            .map(|i| i.platform.take_reports())
            .unwrap_or_default()
    }

    /// Classifies what the last entry left: microtask throws and unhandled rejections.
    fn collect_reports(inner: &mut Inner) {
        // A rejected promise the host is awaiting (a pending entry) is that entry's error.
        inner.platform.rejected.borrow_mut().retain(|p| {
            !inner
                .pending
                .values()
                .any(|awaited| JsObject::from(awaited.clone()) == *p)
        });
        let thrown = std::mem::take(&mut *inner.platform.uncaught.borrow_mut());
        let rejected = platform::take_unhandled(&inner.platform);
        // Describing errors runs guest getters: one small budget for all of an entry's
        // reports (not one each), and at most MAX_REPORTS described; the rest are counted.
        const MAX_REPORTS: usize = 20;
        let total = thrown.len() + rejected.len();
        inner.meter.arm(
            &mut inner.context,
            1_000_000,
            web_time::Duration::from_millis(50),
        );
        let items = thrown
            .into_iter()
            .map(|v| (v, false))
            .chain(rejected.into_iter().map(|v| (v, true)))
            .take(MAX_REPORTS);
        let mut described = 0;
        for (value, unhandled) in items {
            if inner.meter.tripped().is_some() {
                break;
            }
            described += 1;
            let e = describe_thrown(&value, inner);
            let report = if unhandled {
                Report::UnhandledRejection(e)
            } else {
                Report::Uncaught(e)
            };
            inner.platform.reports.borrow_mut().push(report);
        }
        inner.meter.disarm(&mut inner.context);
        if described < total {
            let e = SandboxError::new(
                ErrorCode::GuestThrew,
                format!(
                    "{} more uncaught errors were not described",
                    total - described
                ),
            );
            inner
                .platform
                .reports
                .borrow_mut()
                .push(Report::Uncaught(e));
        }
    }

    /// Frees the engine; the heap collects here when enough of it is disposed realms
    /// ([`crate::heap`]). Later calls fail with `SANDBOX_DISPOSED`.
    pub fn dispose(&mut self) {
        if self.drop_engine(true) {
            crate::heap::collect_if_due();
        }
    }

    /// As [`Realm::dispose`], but leaves the collection to the caller's
    /// [`crate::heap::collect_if_due`]: a worker runs it once its reply is posted.
    pub fn dispose_later(&mut self) {
        self.drop_engine(true);
    }

    /// Drops the engine and the registries' entries for it; returns whether the heap may
    /// collect now (`collectable`), as nothing of the realm is rooted any more.
    fn drop_engine(&mut self, collectable: bool) -> bool {
        let engine = self.inner.take();
        let state = (handler::uninstall(self.id), platform::uninstall(self.id));
        if !crate::heap::alive() {
            // A realm dropped at thread exit after the heap (held in a thread-local): the
            // heap freed every object with it, and dropping them again corrupts memory.
            std::mem::forget((engine, state));
            return false;
        }
        let was_live = engine.is_some();
        drop((engine, state));
        let counted = was_live && collectable && !self.in_entry && !std::thread::panicking();
        if counted {
            crate::heap::realm_disposed(self.heap_share);
        }
        counted
    }

    /// Runs one entry: arm the meter, run `body`, drain jobs, clone the result out, map
    /// every failure to a typed error.
    fn enter<F>(&mut self, await_promise: bool, body: F) -> Result<Outcome>
    where
        F: FnOnce(&mut Inner) -> std::result::Result<JsValue, Failure>,
    {
        self.enter_as(await_promise, body, from_guest)
    }

    /// [`Realm::enter`], its value crossing to the host by `cross`.
    fn enter_as<F, T, C>(&mut self, await_promise: bool, body: F, cross: C) -> Result<Outcome<T>>
    where
        F: FnOnce(&mut Inner) -> std::result::Result<JsValue, Failure>,
        C: Cross<T>,
    {
        self.guest_running(|realm| realm.enter_unguarded(await_promise, body, cross))
    }

    /// Runs `run`, which may run guest code: what the heap grows by counts towards the
    /// realm's share, and if it unwinds (a caught panic), the realm's own dispose does not
    /// collect. The share never shrinks, so a long-lived realm's temporaries count too.
    fn guest_running<R>(&mut self, run: impl FnOnce(&mut Self) -> R) -> R {
        self.in_entry = true;
        let out = self.counting_growth(run);
        self.in_entry = false;
        out
    }

    /// Runs `run`, adding what the heap grew by to the realm's share.
    fn counting_growth<R>(&mut self, run: impl FnOnce(&mut Self) -> R) -> R {
        let heap_before = crate::heap::allocated_bytes();
        let out = run(self);
        let grown = crate::heap::allocated_bytes().saturating_sub(heap_before);
        self.heap_share = self.heap_share.saturating_add(grown);
        out
    }

    fn enter_unguarded<F, T, C>(
        &mut self,
        await_promise: bool,
        body: F,
        cross: C,
    ) -> Result<Outcome<T>>
    where
        F: FnOnce(&mut Inner) -> std::result::Result<JsValue, Failure>,
        C: Cross<T>,
    {
        let Some(inner) = self.inner.as_mut() else {
            return Err(SandboxError::disposed());
        };
        inner.hooks.code_generation_denied.set(false);
        inner.meter.arm(
            &mut inner.context,
            self.limits.instructions,
            self.limits.timeout,
        );
        let result = body(inner).and_then(|v| {
            inner.context.run_jobs()?;
            let v = match v.as_promise().filter(|_| await_promise) {
                None => v,
                Some(promise) => match promise.state() {
                    PromiseState::Fulfilled(v) => v,
                    PromiseState::Rejected(e) => {
                        // Awaited by the host: its rejection is this entry's error, not an
                        // unhandled one.
                        platform::track_rejection(self.id, &promise.clone().into(), true);
                        return Err(Failure::Js(JsError::from_opaque(e)));
                    }
                    PromiseState::Pending => {
                        let token = inner.next_token;
                        inner.next_token += 1;
                        inner.pending.insert(token, promise);
                        return Ok(Outcome::Pending(token));
                    }
                },
            };
            let crossed = cross(&v, &inner.captured, self.limits.clone, &mut inner.context)?;
            Ok(Outcome::Done(crossed))
        });
        // Boa can swallow an uncatchable error inside async resumption, or turn it into a
        // rejection (a top-level-await module, patch 07); the meter cannot be fooled: once it
        // tripped, the entry failed on its limit.
        let result = match (result, inner.meter.tripped()) {
            (Ok(_) | Err(Failure::Js(_)), Some(_)) => {
                Err(Failure::Js(EngineError::NoInstructionsRemain.into()))
            }
            (r, _) => r,
        };
        if result.is_ok() {
            // Reading thrown values may run guest getters: metered by guest_threw itself.
            Self::collect_reports(inner);
        }
        inner.meter.disarm(&mut inner.context);
        match result {
            Ok(outcome) => Ok(outcome),
            Err(failure) => {
                let error = self.classify(failure);
                if let Some(inner) = self.inner.as_mut()
                    && error.code == ErrorCode::LimitExceeded
                {
                    // The queued jobs and waiting host calls belong to the aborted computation.
                    inner.jobs.clear();
                    inner.platform.uncaught.borrow_mut().clear();
                    if let Some(calls) = &inner.async_calls {
                        calls.clear();
                    }
                }
                if error.code == ErrorCode::Terminated {
                    // No collection: the engine failed, maybe inside the collector.
                    self.drop_engine(false);
                }
                Err(error)
            }
        }
    }

    fn classify(&mut self, failure: Failure) -> SandboxError {
        let Some(inner) = self.inner.as_mut() else {
            return SandboxError::disposed();
        };
        match failure {
            Failure::Syntax(e) | Failure::Boundary(e) => e,
            Failure::Js(err) => classify_js(err, inner),
        }
    }
}

impl Drop for Realm {
    fn drop(&mut self) {
        self.dispose();
    }
}

/// A card operation and the module it is about, checked before anything is built.
fn card_op(op: &str, modules: &[&str]) -> Result<crate::cards::Op> {
    use crate::cards::Modules;
    let Some(op) = crate::cards::Op::parse(op) else {
        return Err(SandboxError::new(
            ErrorCode::Protocol,
            format!("`{op}` is not a card operation"),
        ));
    };
    let fits = match op.modules() {
        Modules::None => modules.is_empty(),
        Modules::One => modules.len() == 1,
        Modules::Table => true,
    };
    if !fits {
        let wants = match op.modules() {
            Modules::None => "takes no module URL",
            _ => "needs one module URL",
        };
        return Err(SandboxError::new(
            ErrorCode::Protocol,
            format!(
                "card operation `{}` {wants}, not {}",
                op.name(),
                modules.len()
            ),
        ));
    }
    Ok(op)
}

/// The value of a synchronous entry: a promise completion that settled within the entry
/// (its jobs are drained) is unwrapped; one still pending cannot be waited for here.
fn settled<T>(outcome: Result<Outcome<T>>, realm: &mut Realm) -> Result<T> {
    match outcome? {
        Outcome::Done(g) => Ok(g),
        Outcome::Pending(token) => {
            realm.abandon(token);
            Err(SandboxError::not_cloneable("$", "pending Promise"))
        }
    }
}

/// The value of an import entry (never pending: its graph is complete).
fn settled_now(outcome: Result<Outcome>) -> Result<Graph> {
    match outcome? {
        Outcome::Done(g) => Ok(g),
        Outcome::Pending(_) => Err(internal("a module graph stayed pending after loading")),
    }
}

/// The value of an entry that cannot be pending (no promise awaiting).
fn done(outcome: Result<Outcome>) -> Result<Graph> {
    match outcome? {
        Outcome::Done(g) => Ok(g),
        Outcome::Pending(_) => Err(internal("an entry that never awaits was left pending")),
    }
}

/// A guest value for the host: a tape written straight from the guest where
/// [`guest_tape`] can, a graph otherwise (the reference, and every error).
fn to_host(
    v: &JsValue,
    captured: &Captured,
    limits: CloneLimits,
    context: &mut Context,
) -> std::result::Result<ToHost, CloneError> {
    if let Some(tape) = guest_tape::tape(v, captured, limits, context) {
        return Ok(ToHost::Tape(tape));
    }
    from_guest(v, captured, limits, context).map(ToHost::Graph)
}

/// What crosses to the host: a graph, or a tape the host builds its value from.
#[derive(Debug)]
pub enum ToHost {
    /// A graph (primitives, and whatever the tape writer leaves to the reference).
    Graph(Graph),
    /// A tape ([`crate::clone::tape`]).
    Tape(Tape),
}

/// A host value for the guest: a graph (borrowed, or decoded from a tape), or already built
/// in the guest.
enum Host<'g, T> {
    Graph(&'g Graph),
    Decoded(Graph),
    Guest(T),
}

impl Host<'_, Vec<JsValue>> {
    /// The guest arguments, built from the graph where they are not built yet.
    fn into_guest(self, context: &mut Context) -> JsResult<Vec<JsValue>> {
        match self {
            Host::Graph(g) => to_guest_args(g, context),
            Host::Decoded(g) => to_guest_args(&g, context),
            Host::Guest(args) => Ok(args),
        }
    }
}

/// How an entry's value crosses to the host: [`from_guest`] (a graph) or [`to_host`].
trait Cross<T>:
    FnOnce(&JsValue, &Captured, CloneLimits, &mut Context) -> std::result::Result<T, CloneError>
{
}

impl<T, F> Cross<T> for F where
    F: FnOnce(&JsValue, &Captured, CloneLimits, &mut Context) -> std::result::Result<T, CloneError>
{
}

/// A failed entry before classification.
enum Failure {
    Syntax(SandboxError),
    Boundary(SandboxError),
    Js(JsError),
}

impl From<JsError> for Failure {
    fn from(e: JsError) -> Self {
        Failure::Js(e)
    }
}

impl From<JsNativeError> for Failure {
    fn from(e: JsNativeError) -> Self {
        Failure::Js(e.into())
    }
}

impl From<CloneError> for Failure {
    fn from(e: CloneError) -> Self {
        match e {
            CloneError::Boundary(e) => Failure::Boundary(e),
            CloneError::Guest(e) => Failure::Js(e),
        }
    }
}

fn internal(message: &str) -> SandboxError {
    SandboxError::terminated(TerminationReason::Crashed, message)
}

fn classify_js(err: JsError, inner: &mut Inner) -> SandboxError {
    if let Some(engine) = err.as_engine() {
        return match engine {
            EngineError::NoInstructionsRemain => match inner.meter.tripped() {
                Some(Limit::Deadline) => SandboxError::limit(
                    Limit::Deadline,
                    "the guest ran past its deadline (limits.timeoutMs)",
                ),
                Some(Limit::Memory) => SandboxError::terminated(
                    TerminationReason::Memory,
                    "the guest grew the wasm memory past its ceiling (memoryLimitMb)",
                ),
                _ => SandboxError::limit(
                    Limit::Instructions,
                    "the guest used up its instruction budget (limits.instructions)",
                ),
            },
            EngineError::RuntimeLimit(RuntimeLimitError::Recursion) => SandboxError::limit(
                Limit::Recursion,
                "the guest nested calls deeper than limits.maxRecursion",
            ),
            EngineError::RuntimeLimit(RuntimeLimitError::StackSize) => SandboxError::limit(
                Limit::Stack,
                "the guest overflowed its value stack (limits.maxStackSize)",
            ),
            EngineError::RuntimeLimit(RuntimeLimitError::LoopIteration) => SandboxError::limit(
                Limit::LoopIterations,
                "a guest loop ran more than limits.maxLoopIterations times",
            ),
            EngineError::Panic(p) => internal(&format!("engine failure: {}", p.message())),
        };
    }
    let denied = inner.hooks.code_generation_denied.get();
    let thrown = match err.into_opaque(&mut inner.context) {
        Ok(v) => v,
        Err(e) => return internal(&format!("unclassifiable guest error: {e}")),
    };
    let mut e = guest_threw(&thrown, inner);
    // The loader's denials are guest-catchable errors; uncaught, they keep the typed code.
    if e.details
        .guest_message
        .as_deref()
        .is_some_and(|m| m.contains(DENIED_MARKER))
    {
        e.code = ErrorCode::PolicyDenied;
    }
    // Only our own denial: a guest's unrelated EvalError keeps its code.
    if denied
        && e.details.name.as_deref() == Some("EvalError")
        && e.details.guest_message.as_deref() == Some(DENIED_MESSAGE)
    {
        e.code = ErrorCode::PolicyDenied;
        e.message = format!("code generation denied: {}", e.message);
    }
    e
}

/// `SANDBOX_GUEST_THREW` with name, message, stack and location of a thrown guest value.
fn guest_threw(thrown: &JsValue, inner: &mut Inner) -> SandboxError {
    // Reading the error runs guest getters: arm a small budget of its own.
    inner.meter.arm(
        &mut inner.context,
        1_000_000,
        web_time::Duration::from_millis(50),
    );
    let e = describe_thrown(thrown, inner);
    inner.meter.disarm(&mut inner.context);
    e
}

/// `SANDBOX_GUEST_THREW` for a thrown value, under whatever budget the caller armed.
fn describe_thrown(thrown: &JsValue, inner: &mut Inner) -> SandboxError {
    let graph = from_guest(
        thrown,
        &inner.captured,
        CloneLimits::default(),
        &mut inner.context,
    );
    let mut e = SandboxError::new(ErrorCode::GuestThrew, "");
    match graph {
        Ok(g) => match g.root {
            Value::Object(id) => match g.get(id) {
                Some(Object::Error {
                    name,
                    message,
                    stack,
                    ..
                }) => {
                    let message = message.as_ref().map(|m| m.to_lossy()).unwrap_or_default();
                    let stack = stack.as_ref().map(|s| s.to_lossy());
                    e.details.location = stack.as_deref().and_then(top_location);
                    e.message = format!("uncaught {}: {message}", name.as_str());
                    e.details.name = Some(name.as_str().to_owned());
                    e.details.guest_message = Some(message);
                    e.details.stack = stack;
                }
                _ => {
                    e.message = "uncaught non-error object".into();
                    e.details.name = Some("value".into());
                }
            },
            ref primitive => {
                let shown = match primitive {
                    Value::String(t) => t.to_lossy(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    Value::Null => "null".into(),
                    Value::Undefined => "undefined".into(),
                    Value::BigInt(b) => format!("{b}n"),
                    Value::Object(_) => String::new(),
                };
                e.message = format!("uncaught value: {shown}");
                e.details.name = Some("value".into());
                e.details.guest_message = Some(shown);
            }
        },
        Err(_) => {
            e.message = "uncaught value that cannot be cloned".into();
            e.details.name = Some("value".into());
        }
    }
    if let Some(loc) = &e.details.location {
        e.message = format!(
            "{} (at {}:{}:{})",
            e.message, loc.filename, loc.line, loc.column
        );
    }
    e
}

/// The first bytecode frame of a Boa stack string: `    at f (file.js:3:7)`.
fn top_location(stack: &str) -> Option<Location> {
    stack.lines().find_map(|line| {
        let inner = line.trim().strip_suffix(')')?;
        let open = inner.rfind(" (")?;
        let loc = &inner[open + 2..];
        // The card runtime's frames are ours; the guest's first frame is the one to fix.
        if loc.starts_with("native") || loc.starts_with(crate::cards::FILENAME) {
            return None;
        }
        let mut parts = loc.rsplitn(3, ':');
        let column = parts.next()?.parse().ok()?;
        let line_no = parts.next()?.parse().ok()?;
        let filename = parts.next()?.to_owned();
        Some(Location {
            filename,
            line: line_no,
            column,
        })
    })
}

fn syntax_error(err: &JsError, _source: &str, filename: &str) -> SandboxError {
    let message = err
        .as_native()
        .map(|n| n.message().to_string())
        .unwrap_or_else(|| err.to_string());
    let mut e = SandboxError::new(ErrorCode::Syntax, format!("syntax error: {message}"));
    e.details.name = Some("SyntaxError".into());
    e.details.guest_message = Some(message.clone());
    if let Some((line, column)) = parse_position(&message) {
        e.details.location = Some(Location {
            filename: filename.to_owned(),
            line,
            column,
        });
        e.message = format!("{} (at {filename}:{line}:{column})", e.message);
    }
    e
}

/// Boa's parser messages end with `at line L, col C`.
pub(crate) fn parse_position(message: &str) -> Option<(u32, u32)> {
    let at = message.rfind("line ")?;
    let rest = &message[at + 5..];
    let (line, rest) = rest.split_once(',')?;
    let col = rest.trim().strip_prefix("col ")?;
    let col: String = col.chars().take_while(char::is_ascii_digit).collect();
    Some((line.trim().parse().ok()?, col.parse().ok()?))
}

/// Captures intrinsics the boundary relies on, before any guest code can replace them.
fn capture_intrinsics(context: &mut Context, meter: &Meter) -> Result<Captured> {
    meter.arm(context, 1_000_000, web_time::Duration::from_secs(5));
    let result = (|| -> JsResult<Captured> {
        let get_own = context
            .intrinsics()
            .constructors()
            .object()
            .constructor()
            .get(js_string!("getOwnPropertyDescriptor"), context)?;
        let error_proto = context.intrinsics().constructors().error().prototype();
        let desc = get_own
            .as_callable()
            .ok_or_else(|| JsNativeError::typ().with_message("getOwnPropertyDescriptor missing"))?
            .call(
                &JsValue::undefined(),
                &[error_proto.into(), js_string!("stack").into()],
                context,
            )?;
        let error_stack_getter = match desc.as_object() {
            Some(d) => d.get(js_string!("get"), context)?.as_object(),
            None => None,
        };
        let regexp_proto = context.intrinsics().constructors().regexp().prototype();
        let desc = get_own
            .as_callable()
            .ok_or_else(|| JsNativeError::typ().with_message("getOwnPropertyDescriptor missing"))?
            .call(
                &JsValue::undefined(),
                &[regexp_proto.into(), js_string!("unicodeSets").into()],
                context,
            )?;
        let regexp_unicode_sets = match desc.as_object() {
            Some(d) => d.get(js_string!("get"), context)?.as_object(),
            None => None,
        };
        Ok(Captured {
            error_stack_getter,
            regexp_unicode_sets,
            modules: None,
        })
    })();
    meter.disarm(context);
    result.map_err(|e| internal(&format!("capturing intrinsics failed: {e}")))
}

/// Deletes every global not in the allowlist.
fn restrict_global(context: &mut Context) -> Result<()> {
    let global = context.global_object();
    let keys = global
        .own_property_keys(context)
        .map_err(|e| internal(&format!("reading globals failed: {e}")))?;
    for key in keys {
        let keep = match &key {
            PropertyKey::String(s) => capabilities::is_guest_global(&s.to_std_string_lossy()),
            _ => false,
        };
        if !keep {
            // Invariant: anything the table does not list is gone before guest code runs.
            let deleted = global
                .delete_property_or_throw(key.clone(), context)
                .map_err(|e| internal(&format!("removing global failed: {e}")))?;
            if !deleted {
                return Err(internal(
                    "a global outside the allowlist could not be removed",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    /// No guest source we know still makes Boa fail internally, so a native function stands
    /// in for one: the failure is uncatchable, ends the realm as `crashed`, and the realm
    /// refuses later entries.
    #[test]
    fn an_engine_failure_ends_the_realm_as_crashed() {
        use boa_engine::{NativeFunction, error::PanicError, js_string};
        for src in [
            "engineFails()",
            "try { engineFails() } catch { 'caught' }",
            "try { engineFails() } finally { 'finally' }",
            "Promise.resolve().then(engineFails); 1",
        ] {
            let mut r = Realm::new(RealmOptions::default(), None).expect("realm");
            let inner = r.inner.as_mut().expect("live");
            let fails =
                NativeFunction::from_fn_ptr(|_, _, _| Err(PanicError::new("probe failure").into()));
            inner
                .context
                .register_global_builtin_callable(js_string!("engineFails"), 0, fails)
                .expect("register");
            let e = r.eval(src, &EvalOptions::default()).expect_err(src);
            assert_eq!(e.code, ErrorCode::Terminated, "{src}: {e}");
            assert_eq!(e.details.reason, Some(TerminationReason::Crashed), "{src}");
            assert!(e.message.contains("probe failure"), "{src}: {e}");
            assert!(r.is_disposed(), "{src}");
            let next = r.eval("1", &EvalOptions::default()).expect_err("disposed");
            assert_eq!(next.code, ErrorCode::Disposed, "{src}");
        }
    }

    #[test]
    fn boa_positions_parse() {
        assert_eq!(
            parse_position("expected token ';', got '}' in expression statement at line 3, col 14"),
            Some((3, 14))
        );
        assert_eq!(parse_position("no position"), None);
    }

    #[test]
    fn stack_top_location_skips_native_frames() {
        let stack = "    at map (native)\n    at f (card.js:3:7)\n    at <main> (card.js:5:1)\n";
        assert_eq!(
            top_location(stack),
            Some(Location {
                filename: "card.js".into(),
                line: 3,
                column: 7
            })
        );
    }
}
