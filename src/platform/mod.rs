//! The guest platform: the web-like capabilities card code expects (timers, clocks,
//! randomness, console, base64, structuredClone, text, URL, Intl). Each is listed in
//! `capabilities.rs`; none hands the guest a host object: natives take and return guest
//! values, and host services are reached only with plain data.

pub mod text;
pub mod timers;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use boa_engine::context::time::{Clock, JsInstant, StdClock};
use boa_engine::job::{Job, PromiseJob};
use boa_engine::object::builtins::{JsArray, JsPromise, JsTypedArray};
use boa_engine::object::{FunctionObjectBuilder, ObjectInitializer};
use boa_engine::property::{Attribute, PropertyDescriptor};
use boa_engine::{
    Context, JsNativeError, JsObject, JsResult, JsString, JsValue, NativeFunction, js_string,
};
use web_time::{Duration, Instant};

use crate::clone::to_guest::define_hidden;
use crate::clone::{Captured, CloneError, from_guest, to_guest};
use crate::error::SandboxError;
use crate::value::{CloneLimits, Graph};
use timers::{Timer, TimerLimits, Timers};

/// Host services reached with plain data only: URL parsing and Intl, answered by the host
/// engine's own builtins so results match the browser exactly.
pub trait Bridge {
    /// Runs operation `op` on cloned `args` (an array).
    ///
    /// # Errors
    /// The host's exception as (constructor name, message); it reaches the guest as a fresh
    /// error of that name.
    fn call(&self, op: &str, args: Graph) -> std::result::Result<Graph, (String, String)>;
}

thread_local! {
    static HOST_BRIDGE: RefCell<Option<Rc<dyn Bridge>>> = const { RefCell::new(None) };
}

/// Sets the bridge new realms on this thread use (the wasm bindings do, at start-up).
pub fn set_host_bridge(bridge: Rc<dyn Bridge>) {
    HOST_BRIDGE.with(|b| *b.borrow_mut() = Some(bridge));
}

/// Whether realms on this thread get the bridged capabilities (URL, Intl).
#[must_use]
pub fn has_host_bridge() -> bool {
    HOST_BRIDGE.with(|b| b.borrow().is_some())
}

/// The operations a bridge may be asked for; anything else is refused before the host.
pub const BRIDGE_OPS: &[&str] = &[
    "url.parse",
    "url.set",
    "params.parse",
    "params.serialize",
    "intl.new",
    "intl.call",
    "intl.supported",
    "intl.canonical",
    "intl.value",
];

/// Something the guest did that the host should hear about outside any call's result.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    /// `console.<level>(...args)`.
    Console {
        /// `log`, `info`, `warn`, `error` or `debug`.
        level: &'static str,
        /// The arguments, cloned (uncloneable ones as their string form).
        args: Graph,
    },
    /// Messages dropped by the console rate limit since the last report.
    ConsoleDropped(u64),
    /// An exception no guest code caught, thrown by a timer or microtask callback.
    Uncaught(SandboxError),
    /// A promise rejected with no handler by the end of an entry.
    UnhandledRejection(SandboxError),
    /// `{ patches, changed }`: model writes no call's result carried (an async action still
    /// waiting, a guest timer), taken as soon as the message or tick that made them ends.
    ModelPatches(Graph),
}

/// Platform options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlatformLimits {
    /// Timer caps.
    pub timers: TimerLimits,
    /// Clock resolution for `Date` and `performance.now()`.
    pub clock_resolution: Duration,
    /// Console messages per second before dropping.
    pub console_per_second: u32,
}

impl Default for PlatformLimits {
    fn default() -> Self {
        Self {
            timers: TimerLimits::default(),
            clock_resolution: Duration::from_millis(1),
            console_per_second: 100,
        }
    }
}

/// Per-realm platform state, shared by the natives through the registry.
pub struct Platform {
    /// The realm's timers.
    pub timers: RefCell<Timers>,
    /// Reports waiting for the host.
    pub reports: RefCell<Vec<Report>>,
    /// Values thrown by microtasks, classified by the realm after the entry.
    pub uncaught: RefCell<Vec<JsValue>>,
    /// Promises rejected without a handler (so far).
    pub rejected: RefCell<Vec<JsObject>>,
    limits: PlatformLimits,
    captured: Captured,
    clone_limits: CloneLimits,
    origin: Instant,
    console_window: Cell<Option<Instant>>,
    console_count: Cell<u32>,
    console_dropped: Cell<u64>,
    bridge: Option<Rc<dyn Bridge>>,
    natives: RefCell<Option<JsObject>>,
    locale_installed: Cell<bool>,
    chunks: RefCell<HashMap<usize, JsObject>>,
}

impl Platform {
    /// New state for one realm.
    #[must_use]
    pub fn new(limits: PlatformLimits, captured: Captured, clone_limits: CloneLimits) -> Self {
        Self {
            timers: RefCell::new(Timers::default()),
            reports: RefCell::new(Vec::new()),
            uncaught: RefCell::new(Vec::new()),
            rejected: RefCell::new(Vec::new()),
            limits,
            captured,
            clone_limits,
            origin: Instant::now(),
            console_window: Cell::new(None),
            console_count: Cell::new(0),
            console_dropped: Cell::new(0),
            bridge: HOST_BRIDGE.with(|b| b.borrow().clone()),
            natives: RefCell::new(None),
            locale_installed: Cell::new(false),
            chunks: RefCell::new(HashMap::new()),
        }
    }

    fn coarse_ms(&self, ms: f64) -> f64 {
        let res = self.limits.clock_resolution.as_secs_f64() * 1000.0;
        if res > 0.0 {
            (ms / res).floor() * res
        } else {
            ms
        }
    }

    /// Takes the reports, adding a drop notice if the console limit discarded anything.
    pub fn take_reports(&self) -> Vec<Report> {
        let dropped = self.console_dropped.replace(0);
        let mut out = std::mem::take(&mut *self.reports.borrow_mut());
        if dropped > 0 {
            out.push(Report::ConsoleDropped(dropped));
        }
        out
    }

    /// Cancels timers and forgets pending reports (dispose, or an aborted computation).
    pub fn clear(&self) {
        self.timers.borrow_mut().clear_all();
        self.uncaught.borrow_mut().clear();
    }

    fn console_allowed(&self) -> bool {
        let now = Instant::now();
        let fresh = self
            .console_window
            .get()
            .is_none_or(|start| now.duration_since(start) >= Duration::from_secs(1));
        if fresh {
            self.console_window.set(Some(now));
            self.console_count.set(0);
        }
        let n = self.console_count.get();
        if n >= self.limits.console_per_second {
            self.console_dropped.set(self.console_dropped.get() + 1);
            return false;
        }
        self.console_count.set(n + 1);
        true
    }
}

/// A Boa clock whose wall time is coarsened to the platform's resolution.
pub struct CoarseClock {
    inner: StdClock,
    resolution_ms: i64,
}

impl CoarseClock {
    /// A clock with `resolution` granularity for `Date`.
    #[must_use]
    pub fn new(resolution: Duration) -> Self {
        Self {
            inner: StdClock::new(),
            resolution_ms: i64::try_from(resolution.as_millis()).unwrap_or(1).max(1),
        }
    }
}

impl Clock for CoarseClock {
    fn now(&self) -> JsInstant {
        self.inner.now()
    }

    fn system_time_millis(&self) -> i64 {
        let t = self.inner.system_time_millis();
        t - t.rem_euclid(self.resolution_ms)
    }
}

thread_local! {
    // Boa native closures must be `Copy`, so they carry only the realm id.
    static PLATFORMS: RefCell<HashMap<u64, Rc<Platform>>> = RefCell::new(HashMap::new());
}

fn platform(id: u64) -> JsResult<Rc<Platform>> {
    PLATFORMS
        .with(|p| p.borrow().get(&id).cloned())
        .ok_or_else(|| {
            JsNativeError::typ()
                .with_message("the realm is gone")
                .into()
        })
}

/// Takes realm `id`'s platform state out, for the caller to drop (or, at thread exit,
/// leak). `None` once the registry itself is gone, at thread exit.
#[must_use]
pub fn uninstall(id: u64) -> Option<Rc<Platform>> {
    PLATFORMS
        .try_with(|p| p.borrow_mut().remove(&id))
        .ok()
        .flatten()
}

type Native = fn(u64, &JsValue, &[JsValue], &mut Context) -> JsResult<JsValue>;

fn native(id: u64, f: Native) -> NativeFunction {
    NativeFunction::from_copy_closure(move |this, args, context| f(id, this, args, context))
}

fn define_global(context: &mut Context, name: &str, value: JsValue) -> JsResult<()> {
    let global = context.global_object();
    define_hidden(&global, name, value, context)
}

fn global_fn(context: &mut Context, id: u64, name: &str, length: usize, f: Native) -> JsResult<()> {
    let function = FunctionObjectBuilder::new(context.realm(), native(id, f))
        .name(JsString::from(name))
        .length(length)
        .constructor(false)
        .build();
    define_global(context, name, function.into())
}

/// Installs the platform globals of realm `id`.
///
/// # Errors
/// If a global cannot be defined (never for a fresh realm).
pub fn install(context: &mut Context, id: u64, state: Rc<Platform>) -> JsResult<()> {
    PLATFORMS.with(|p| p.borrow_mut().insert(id, state));
    global_fn(context, id, "setTimeout", 1, |id, _, args, ctx| {
        add_timer(id, args, false, ctx)
    })?;
    global_fn(context, id, "setInterval", 1, |id, _, args, ctx| {
        add_timer(id, args, true, ctx)
    })?;
    global_fn(context, id, "clearTimeout", 1, clear_timer)?;
    global_fn(context, id, "clearInterval", 1, clear_timer)?;
    global_fn(context, id, "queueMicrotask", 1, queue_microtask)?;
    global_fn(context, id, "structuredClone", 1, structured_clone)?;
    global_fn(context, id, "atob", 1, |_, _, args, ctx| {
        text::atob(args, ctx)
    })?;
    global_fn(context, id, "btoa", 1, |_, _, args, ctx| {
        text::btoa(args, ctx)
    })?;

    let mut console = ObjectInitializer::new(context);
    for (name, f) in [
        ("log", console_log as Native),
        ("info", console_info),
        ("warn", console_warn),
        ("error", console_error),
        ("debug", console_debug),
    ] {
        console.function(native(id, f), JsString::from(name), 0);
    }
    let console = console.build();
    define_global(context, "console", console.into())?;

    let performance = ObjectInitializer::new(context)
        .function(native(id, performance_now), js_string!("now"), 0)
        .build();
    define_global(context, "performance", performance.into())?;

    install_prelude(context, id)?;

    let crypto = ObjectInitializer::new(context)
        .function(
            native(id, get_random_values),
            js_string!("getRandomValues"),
            1,
        )
        .function(native(id, random_uuid), js_string!("randomUUID"), 0)
        .build();
    define_global(context, "crypto", crypto.into())?;
    let _ = Attribute::all();
    Ok(())
}

/// Guest-side code of the platform: (source, the globals it defines, needs the bridge).
const CHUNKS: &[(&str, &[&str], bool)] = &[
    (
        include_str!("prelude/text.js"),
        &["TextEncoder", "TextDecoder"],
        false,
    ),
    (
        include_str!("prelude/url.js"),
        &["URL", "URLSearchParams"],
        true,
    ),
    (include_str!("prelude/intl.js"), &["Intl"], true),
];
const LOCALE: &str = include_str!("prelude/locale.js");

/// The natives the guest-side code closes over; never reachable from the global object.
fn natives(context: &mut Context, id: u64, bridged: bool) -> JsObject {
    let mut natives = ObjectInitializer::new(context);
    natives
        .function(
            native(id, |_, _, args, ctx| text::encode(args, ctx)),
            js_string!("encode"),
            1,
        )
        .function(
            native(id, |_, _, args, ctx| text::decode(args, ctx)),
            js_string!("decode"),
            3,
        );
    if bridged {
        natives.function(native(id, bridge_call), js_string!("bridge"), 2);
    }
    natives.build()
}

fn run_chunk(source: &str, natives: &JsObject, context: &mut Context) -> JsResult<JsValue> {
    let init = crate::parse::eval(source, None, context)?;
    let init = init
        .as_callable()
        .ok_or_else(|| JsNativeError::typ().with_message("a platform chunk is not a function"))?;
    init.call(&JsValue::undefined(), &[natives.clone().into()], context)
}

/// Installs the guest-side classes: the locale overrides now, the rest as globals that
/// evaluate their code on first use (realm creation stays cheap).
fn install_prelude(context: &mut Context, id: u64) -> JsResult<()> {
    let state = platform(id)?;
    let bridged = state.bridge.is_some();
    let natives = natives(context, id, bridged);
    *state.natives.borrow_mut() = Some(natives.clone());
    if bridged {
        install_locale_stubs(context, id)?;
    }
    for (chunk, (_, names, needs_bridge)) in CHUNKS.iter().enumerate() {
        if *needs_bridge && !bridged {
            continue;
        }
        for (slot, name) in names.iter().enumerate() {
            let get = FunctionObjectBuilder::new(
                context.realm(),
                NativeFunction::from_copy_closure(move |_, _, ctx| lazy_get(id, chunk, slot, ctx)),
            )
            .name(JsString::from(format!("get {name}").as_str()))
            .build();
            let set = FunctionObjectBuilder::new(
                context.realm(),
                NativeFunction::from_copy_closure(move |_, args, ctx| {
                    lazy_set(chunk, slot, args.first().cloned().unwrap_or_default(), ctx)
                }),
            )
            .name(JsString::from(format!("set {name}").as_str()))
            .build();
            context.global_object().define_property_or_throw(
                JsString::from(*name),
                PropertyDescriptor::builder()
                    .get(get)
                    .set(set)
                    .enumerable(false)
                    .configurable(true),
                context,
            )?;
        }
    }
    Ok(())
}

/// The locale-sensitive builtins the locale chunk replaces: (prototype, method).
const LOCALE_METHODS: &[(u8, &str)] = &[
    (0, "toLocaleString"),
    (1, "toLocaleString"),
    (2, "toLocaleString"),
    (2, "toLocaleDateString"),
    (2, "toLocaleTimeString"),
    (3, "localeCompare"),
    (3, "toLocaleUpperCase"),
    (3, "toLocaleLowerCase"),
];

fn locale_proto(context: &Context, which: u8) -> JsObject {
    let c = context.intrinsics().constructors();
    match which {
        0 => c.number().prototype(),
        1 => c.bigint().prototype(),
        2 => c.date().prototype(),
        _ => c.string().prototype(),
    }
}

/// Stubs that install the locale chunk on first call, then forward to what it installed.
fn install_locale_stubs(context: &mut Context, id: u64) -> JsResult<()> {
    for (i, (which, name)) in LOCALE_METHODS.iter().enumerate() {
        let stub = FunctionObjectBuilder::new(
            context.realm(),
            NativeFunction::from_copy_closure(move |this, args, ctx| {
                locale_stub(id, i, this, args, ctx)
            }),
        )
        .name(JsString::from(*name))
        .length(0)
        .constructor(false)
        .build();
        let proto = locale_proto(context, *which);
        define_hidden(&proto, name, stub.into(), context)?;
    }
    Ok(())
}

fn locale_stub(
    id: u64,
    i: usize,
    this: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let state = platform(id)?;
    if !state.locale_installed.replace(true) {
        let natives =
            state.natives.borrow().clone().ok_or_else(|| {
                JsNativeError::typ().with_message("the platform is not installed")
            })?;
        run_chunk(LOCALE, &natives, context)?;
    }
    let Some((which, name)) = LOCALE_METHODS.get(i) else {
        return Ok(JsValue::undefined());
    };
    let real = locale_proto(context, *which).get(JsString::from(*name), context)?;
    match real.as_callable() {
        Some(f) => f.call(this, args, context),
        None => Err(JsNativeError::typ()
            .with_message(format!("{name} is not a function"))
            .into()),
    }
}

/// Read of a lazy global: evaluates its chunk once and returns the export. The accessor
/// stays in place: turning it into a data property from inside the getter trips a Boa 0.22
/// global inline-cache bug (the cache keeps the pre-getter slot under the post-getter
/// shape), which broke functions on their second call.
fn lazy_get(id: u64, chunk: usize, slot: usize, context: &mut Context) -> JsResult<JsValue> {
    let state = platform(id)?;
    let Some((source, names, _)) = CHUNKS.get(chunk) else {
        return Ok(JsValue::undefined());
    };
    let cached = state.chunks.borrow().get(&chunk).cloned();
    let exports = match cached {
        Some(e) => e,
        None => {
            let natives = state.natives.borrow().clone().ok_or_else(|| {
                JsNativeError::typ().with_message("the platform is not installed")
            })?;
            let exports = run_chunk(source, &natives, context)?;
            let exports = exports
                .as_object()
                .ok_or_else(|| {
                    JsNativeError::typ().with_message("a platform chunk returned nothing")
                })?
                .clone();
            state.chunks.borrow_mut().insert(chunk, exports.clone());
            exports
        }
    };
    match names.get(slot) {
        Some(name) => exports.get(JsString::from(*name), context),
        None => Ok(JsValue::undefined()),
    }
}

/// Assignment to a lazy global: the guest's value wins, as a plain data property.
fn lazy_set(chunk: usize, slot: usize, value: JsValue, context: &mut Context) -> JsResult<JsValue> {
    if let Some(name) = CHUNKS.get(chunk).and_then(|(_, names, _)| names.get(slot)) {
        define_global(context, name, value)?;
    }
    Ok(JsValue::undefined())
}

fn bridge_call(id: u64, _: &JsValue, args: &[JsValue], context: &mut Context) -> JsResult<JsValue> {
    let state = platform(id)?;
    let Some(bridge) = &state.bridge else {
        return Err(JsNativeError::typ().with_message("no host bridge").into());
    };
    let op = args
        .first()
        .cloned()
        .unwrap_or_default()
        .to_string(context)?
        .to_std_string_lossy();
    // Invariant: only listed operations reach the host, and only with cloned data.
    if !BRIDGE_OPS.contains(&op.as_str()) {
        return Err(JsNativeError::typ()
            .with_message(format!("unknown bridge operation {op}"))
            .into());
    }
    let payload = args.get(1).cloned().unwrap_or_default();
    let graph = match from_guest(&payload, &state.captured, state.clone_limits, context) {
        Ok(g) => g,
        Err(CloneError::Guest(e)) => return Err(e),
        Err(CloneError::Boundary(e)) => {
            return Err(JsNativeError::typ().with_message(e.to_string()).into());
        }
    };
    match bridge.call(&op, graph) {
        Ok(result) => to_guest(&result, context),
        Err((name, message)) => Err(crate::clone::to_guest::native_error(
            crate::value::ErrorName::from_name(&name),
        )
        .with_message(message)
        .into()),
    }
}

fn add_timer(id: u64, args: &[JsValue], repeat: bool, context: &mut Context) -> JsResult<JsValue> {
    let state = platform(id)?;
    let (callback, delay, rest) = timers::parse_args(args, context)?;
    let limits = state.limits.timers;
    let (delay, interval) = if repeat {
        let period = delay.max(limits.min_interval);
        (period, Some(period))
    } else {
        (delay, None)
    };
    let timer = Timer {
        callback,
        args: rest,
        interval,
    };
    let handle = state.timers.borrow_mut().add(timer, delay, limits)?;
    Ok(JsValue::from(handle))
}

fn clear_timer(id: u64, _: &JsValue, args: &[JsValue], context: &mut Context) -> JsResult<JsValue> {
    let state = platform(id)?;
    if let Some(v) = args.first() {
        let n = v.to_number(context)?;
        if n.is_finite() && n >= 0.0 && n <= f64::from(u32::MAX) {
            state.timers.borrow_mut().clear(n as u32);
        }
    }
    Ok(JsValue::undefined())
}

fn queue_microtask(
    id: u64,
    _: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let Some(callback) = args.first().and_then(JsValue::as_callable) else {
        return Err(JsNativeError::typ()
            .with_message("queueMicrotask needs a function")
            .into());
    };
    context.enqueue_job(Job::PromiseJob(PromiseJob::new(move |context| {
        match callback.call(&JsValue::undefined(), &[], context) {
            Ok(_) => Ok(JsValue::undefined()),
            // Engine errors (limits) propagate; guest throws are reported, as browsers do.
            Err(e) => match e.into_opaque(context) {
                Ok(thrown) => {
                    if let Ok(state) = platform(id) {
                        state.uncaught.borrow_mut().push(thrown);
                    }
                    Ok(JsValue::undefined())
                }
                Err(engine) => Err(engine),
            },
        }
    })));
    Ok(JsValue::undefined())
}

fn structured_clone(
    id: u64,
    _: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let state = platform(id)?;
    let value = args.first().cloned().unwrap_or_default();
    match from_guest(&value, &state.captured, state.clone_limits, context) {
        Ok(graph) => to_guest(&graph, context),
        Err(CloneError::Guest(e)) => Err(e),
        Err(CloneError::Boundary(e)) => {
            let error = JsNativeError::error()
                .with_message(format!("{} [{}]", e.message, e.code))
                .into_opaque(context);
            error.set(
                js_string!("name"),
                js_string!("DataCloneError"),
                true,
                context,
            )?;
            Err(boa_engine::JsError::from_opaque(error.into()))
        }
    }
}

fn console_log(id: u64, _: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console(id, "log", args, ctx)
}
fn console_info(id: u64, _: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console(id, "info", args, ctx)
}
fn console_warn(id: u64, _: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console(id, "warn", args, ctx)
}
fn console_error(id: u64, _: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console(id, "error", args, ctx)
}
fn console_debug(id: u64, _: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console(id, "debug", args, ctx)
}

fn console(
    id: u64,
    level: &'static str,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let state = platform(id)?;
    if !state.console_allowed() {
        return Ok(JsValue::undefined());
    }
    // Each argument crosses by clone; one that cannot is sent as its string form.
    let mut sane = Vec::with_capacity(args.len());
    for arg in args {
        match from_guest(arg, &state.captured, state.clone_limits, context) {
            Ok(_) => sane.push(arg.clone()),
            Err(CloneError::Guest(e)) if e.as_engine().is_some() => return Err(e),
            Err(_) => {
                let shown = match arg.to_string(context) {
                    Ok(s) => s,
                    Err(e) if e.as_engine().is_some() => return Err(e),
                    Err(_) => js_string!("[uncloneable]"),
                };
                sane.push(shown.into());
            }
        }
    }
    let array = JsArray::from_iter(sane, context);
    match from_guest(&array.into(), &state.captured, state.clone_limits, context) {
        Ok(args) => state
            .reports
            .borrow_mut()
            .push(Report::Console { level, args }),
        Err(CloneError::Guest(e)) => return Err(e),
        Err(CloneError::Boundary(_)) => {}
    }
    Ok(JsValue::undefined())
}

fn performance_now(id: u64, _: &JsValue, _: &[JsValue], _: &mut Context) -> JsResult<JsValue> {
    let state = platform(id)?;
    let ms = state.origin.elapsed().as_secs_f64() * 1000.0;
    Ok(JsValue::from(state.coarse_ms(ms)))
}

fn random_bytes(buf: &mut [u8]) -> JsResult<()> {
    getrandom::fill(buf).map_err(|e| {
        JsNativeError::error()
            .with_message(format!("no randomness available: {e}"))
            .into()
    })
}

fn get_random_values(
    _: u64,
    _: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let target = args.first().cloned().unwrap_or_default();
    let Some(array) = target
        .as_object()
        .and_then(|o| JsTypedArray::from_object(o.clone()).ok())
    else {
        return Err(JsNativeError::typ()
            .with_message("getRandomValues needs an integer typed array")
            .into());
    };
    let kind = array.kind();
    let integer = !matches!(
        kind,
        Some(boa_engine::builtins::typed_array::TypedArrayKind::Float32)
            | Some(boa_engine::builtins::typed_array::TypedArrayKind::Float64)
            | None
    );
    if !integer {
        return Err(JsNativeError::typ()
            .with_message("getRandomValues needs an integer typed array")
            .into());
    }
    let len = array.byte_length(context)?;
    if len > 65_536 {
        return Err(JsNativeError::range()
            .with_message("getRandomValues fills at most 65536 bytes (QuotaExceededError)")
            .into());
    }
    let mut bytes = vec![0u8; len];
    random_bytes(&mut bytes)?;
    let offset = array.byte_offset(context)?;
    let buffer = array.buffer(context)?;
    let buffer = buffer
        .as_object()
        .and_then(|b| boa_engine::object::builtins::JsArrayBuffer::from_object(b.clone()).ok())
        .ok_or_else(|| JsNativeError::typ().with_message("typed array without a buffer"))?;
    if let Some(mut data) = buffer.data_mut()
        && let Some(window) = data.get_mut(offset..offset + len)
    {
        window.copy_from_slice(&bytes);
    }
    Ok(target)
}

fn random_uuid(_: u64, _: &JsValue, _: &[JsValue], _: &mut Context) -> JsResult<JsValue> {
    let mut b = [0u8; 16];
    random_bytes(&mut b)?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    let uuid = format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    );
    Ok(JsString::from(uuid.as_str()).into())
}

/// Records a rejection without a handler, or its later handling.
pub fn track_rejection(id: u64, promise: &JsObject, handled: bool) {
    if let Ok(state) = platform(id) {
        let mut rejected = state.rejected.borrow_mut();
        if handled {
            rejected.retain(|p| p != promise);
        } else if rejected.len() < 10_000 {
            rejected.push(promise.clone());
        }
    }
}

/// Still-unhandled rejections, with their reasons.
pub fn take_unhandled(state: &Platform) -> Vec<JsValue> {
    std::mem::take(&mut *state.rejected.borrow_mut())
        .into_iter()
        .filter_map(|p| JsPromise::from_object(p).ok())
        .filter_map(|p| match p.state() {
            boa_engine::builtins::promise::PromiseState::Rejected(reason) => Some(reason),
            _ => None,
        })
        .collect()
}
