//! The fuzzing harness, shared by the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`, through
//! `#[path]`) and by `tests/fuzz_regressions.rs`, so a committed crasher replays natively,
//! on stable, through exactly the code path that found it.
//!
//! Three entry points, one per target, each taking the fuzzer's raw bytes:
//! - [`boundary`]: bytes → a structured [`Graph`] (well-formed or not) → `to_guest` into a
//!   realm (`Realm::set`, `Realm::call`) → `from_guest` out again (`Realm::eval`). A
//!   malformed graph must be a typed error, no guest hook may run on the way in (tripwires
//!   on the prototypes count), and a well-formed graph must come back the same after one
//!   crossing normalised it (a second crossing is a fixpoint).
//! - [`eval`]: bytes → source text → `Realm::eval` in one long-lived realm with small
//!   limits, recreated after it is disposed (and every [`ENGINE_RECYCLE`] inputs); every
//!   outcome is `Ok` or a typed error, and a realm that is not disposed still answers `1+1`
//!   afterwards.
//! - [`protocol`]: bytes → a sequence of worker messages (mostly well-formed, sometimes
//!   not) → `Dispatcher::handle` of one long-lived dispatcher (a worker; it starts with a
//!   card module loaded and a card rendered), with timer ticks in between; every message
//!   gets exactly one terminal reply carrying its id, and a waiting request is answered at
//!   most once. [`protocol_transcript`] replays one input on a fresh worker, for triage.
//!
//! Everything runs on one engine thread with a large native stack: Boa's parser and some
//! builtins recurse natively, and a deeply nested input exhausts an 8 MiB stack; in the
//! worker tier that is a wasm trap that ends the instance (contained: `SANDBOX_TERMINATED`
//! and a fresh worker; see SECURITY.md). The fuzzers look for what is not contained.
#![allow(dead_code, clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::mpsc::{Sender, channel};

use isolated_realm::protocol::{Dispatcher, MAX_REALMS, Reply};
use isolated_realm::value::{CloneLimits, ErrorName, ObjId, ViewKind};
use isolated_realm::{
    ErrorCode, EvalOptions, Graph, Object, Realm, RealmOptions, SandboxError, Text, Value,
};

/// Native stack of the engine thread.
const ENGINE_STACK: usize = 256 * 1024 * 1024;

/// A fresh engine thread (and with it fresh realms) after this many inputs. The guest's
/// leftovers and Boa's per-context string interner grow with the inputs, and a realm that
/// imported a module stays in Boa's per-thread heap after it is dropped (measured natively:
/// about 240 KB per realm with a one-line module, 800 KB with a card module; see the
/// report in `fuzz/regressions/README.md`); Boa's collection time grows with it.
const ENGINE_RECYCLE: u32 = 100;

/// Most messages one protocol input sends.
const MAX_MESSAGES: usize = 12;

// ---------------------------------------------------------------------------------------
// The engine thread

type Job = Box<dyn FnOnce() + Send>;
type Done = Sender<Result<(), String>>;

struct Engine {
    jobs: Sender<(Job, Done)>,
    thread: std::thread::JoinHandle<()>,
    ran: u32,
}

/// The engine thread, replaced every [`ENGINE_RECYCLE`] inputs.
static ENGINE: Mutex<Option<Engine>> = Mutex::new(None);

fn spawn_engine() -> Engine {
    let (tx, rx) = channel::<(Job, Done)>();
    let thread = std::thread::Builder::new()
        .name("fuzz-engine".into())
        .stack_size(ENGINE_STACK)
        .spawn(move || {
            for (job, done) in rx {
                let outcome =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).map_err(|p| {
                        // The realms of a thread that panicked are not reused.
                        BOUNDARY_REALM.with(|r| r.borrow_mut().take());
                        EVAL_REALM.with(|r| r.borrow_mut().take());
                        PROTOCOL.with(|r| r.borrow_mut().take());
                        p.downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                            .unwrap_or_else(|| "panic".to_owned())
                    });
                let _ = done.send(outcome);
            }
            // Drop the realms while the thread-locals they unregister from still exist.
            drop(PROTOCOL.with(|r| r.borrow_mut().take()));
            drop(EVAL_REALM.with(|r| r.borrow_mut().take()));
            drop(BOUNDARY_REALM.with(|r| r.borrow_mut().take()));
        })
        .expect("engine thread");
    Engine {
        jobs: tx,
        thread,
        ran: 0,
    }
}

/// Runs `job` on the engine thread; a panic there comes back as `Err` (and, under
/// libFuzzer, has already aborted the process through its panic hook). One job at a time.
fn on_engine(job: impl FnOnce() + Send + 'static) -> Result<(), String> {
    let mut engine = ENGINE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if engine.as_ref().is_some_and(|e| e.ran >= ENGINE_RECYCLE)
        && let Some(old) = engine.take()
    {
        // Boa's collector is per thread, and a realm that imported a module is never
        // collected (see ENGINE_RECYCLE): the thread's exit frees its whole heap.
        drop(old.jobs);
        let _ = old.thread.join();
    }
    let current = engine.get_or_insert_with(spawn_engine);
    current.ran += 1;
    let (done_tx, done_rx) = channel();
    current
        .jobs
        .send((Box::new(job), done_tx))
        .map_err(|_| "the engine thread is gone".to_owned())?;
    done_rx
        .recv()
        .map_err(|_| "the engine thread is gone".to_owned())?
}

/// Target 1: host → guest boundary values. Panics on a violated invariant.
pub fn boundary(data: &[u8]) {
    let data = data.to_vec();
    if let Err(e) = on_engine(move || boundary_inner(&data)) {
        panic!("{e}");
    }
}

/// Target 2: guest eval under limits. Panics on a violated invariant.
pub fn eval(data: &[u8]) {
    let data = data.to_vec();
    if let Err(e) = on_engine(move || eval_inner(&data)) {
        panic!("{e}");
    }
}

/// Target 3: the worker protocol. Panics on a violated invariant.
pub fn protocol(data: &[u8]) {
    let data = data.to_vec();
    if let Err(e) = on_engine(move || protocol_inner(&data)) {
        panic!("{e}");
    }
}

/// A target's entry point.
pub type Target = fn(&[u8]);

/// Each target's entry, by the directory name its regressions live under.
pub const TARGETS: [(&str, Target); 3] = [
    ("boundary", boundary),
    ("eval", eval),
    ("protocol", protocol),
];

// ---------------------------------------------------------------------------------------
// Reading structure out of bytes

/// A cursor over the fuzzer's bytes; past the end every read is zero, so generators that
/// stop on zero always terminate.
pub struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        if n <= 256 {
            usize::from(self.byte()) % n
        } else {
            (usize::from(self.byte()) << 8 | usize::from(self.byte())) % n
        }
    }

    fn bool(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// True about one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    fn bytes(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        let end = (start + n).min(self.data.len());
        self.pos = start + n;
        &self.data[start..end]
    }

    /// A length, mostly small.
    fn len(&mut self, max: usize) -> usize {
        match self.below(8) {
            0..=5 => self.below(8.min(max + 1)),
            6 => self.below(64.min(max + 1)),
            _ => self.below(max + 1),
        }
    }

    /// Numbers that find edges: zeros, NaN, infinities, integer and length boundaries.
    fn number(&mut self) -> f64 {
        const EDGES: [f64; 20] = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4_294_967_295.0,
            4_294_967_296.0,
            2_147_483_648.0,
            9_007_199_254_740_991.0,
            9_007_199_254_740_992.0,
            8.64e15,
            8.64e15 + 1.0,
            -8.64e15,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1e21,
        ];
        match self.below(4) {
            0 => EDGES[self.below(EDGES.len())],
            1 => f64::from(self.byte()),
            2 => f64::from(self.u32() as i32),
            _ => f64::from_bits(u64::from(self.u32()) << 32 | u64::from(self.u32())),
        }
    }

    /// A string: from `dict`, or short well-formed text, or UTF-16 with lone surrogates.
    fn text(&mut self, dict: &[&str]) -> Text {
        match self.below(6) {
            0..=2 if !dict.is_empty() => Text::from(dict[self.below(dict.len())]),
            3 => {
                let n = self.len(64);
                let units: Vec<u16> = (0..n)
                    .map(|_| u16::from_le_bytes([self.byte(), self.byte()]))
                    .collect();
                Text::from_utf16(&units)
            }
            _ => {
                let n = self.len(64);
                Text::from(String::from_utf8_lossy(self.bytes(n)).into_owned())
            }
        }
    }

    fn string(&mut self, dict: &[&str]) -> String {
        self.text(dict).to_lossy()
    }
}

// ---------------------------------------------------------------------------------------
// Graphs

const KEYS: &[&str] = &[
    "a",
    "b",
    "length",
    "0",
    "1",
    "4294967294",
    "4294967295",
    "-0",
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "valueOf",
    "then",
    "",
    "\u{0}",
    "message",
    "stack",
    "cause",
];

const BIGINTS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "18446744073709551616",
    "-9223372036854775809",
    "",
    "-",
    "+1",
    "0x10",
    "1e3",
    " 1",
    "1n",
    "123456789012345678901234567890123456789012345678901234567890",
];

const REGEXP_SOURCES: &[&str] = &[
    "",
    "a",
    "(?:)",
    "/",
    "\\",
    "[",
    "(?<n>a)\\k<n>",
    "\\p{L}",
    "[\\q{abc}]",
    "a{2,1}",
    "(a*)*b",
    "\n",
    "\u{2028}",
    "(?=a)*",
];

const REGEXP_FLAGS: &[&str] = &[
    "", "g", "i", "m", "s", "u", "v", "y", "d", "gimsuyd", "uv", "gg", "x", "G",
];

const STRINGS: &[&str] = &[
    "",
    "a",
    "x",
    "\u{0}",
    "\u{FEFF}",
    "𝄞",
    "<b>",
    "then",
    "__proto__",
];

/// A boundary graph: up to 24 objects of every kind, with references that may dangle,
/// views that may overrun, keys and numbers chosen to hit edges.
pub fn graph(input: &mut Input<'_>) -> Graph {
    let n = input.len(24);
    let mut g = Graph::undefined();
    for _ in 0..n {
        let object = object(input, n);
        g.push(object);
    }
    g.root = if n > 0 && !input.one_in(8) {
        Value::Object(ObjId(u32::try_from(input.below(n)).unwrap_or(0)))
    } else {
        value(input, n)
    };
    g
}

fn object_id(input: &mut Input<'_>, n: usize) -> ObjId {
    // Mostly valid; sometimes just past the end, sometimes anywhere.
    let id = match input.below(16) {
        0 => n,
        1 => usize::try_from(input.u32()).unwrap_or(usize::MAX),
        _ => input.below(n.max(1)),
    };
    ObjId(u32::try_from(id).unwrap_or(u32::MAX))
}

fn value(input: &mut Input<'_>, n: usize) -> Value {
    match input.below(10) {
        0 => Value::Undefined,
        1 => Value::Null,
        2 => Value::Bool(input.bool()),
        3 => Value::Number(input.number()),
        4 => Value::BigInt(input.string(BIGINTS)),
        5 => Value::String(input.text(STRINGS)),
        _ if n == 0 => Value::Number(input.number()),
        _ => Value::Object(object_id(input, n)),
    }
}

fn entries(input: &mut Input<'_>, n: usize) -> Vec<(Text, Value)> {
    let count = input.len(16);
    (0..count)
        .map(|_| (input.text(KEYS), value(input, n)))
        .collect()
}

fn object(input: &mut Input<'_>, n: usize) -> Object {
    match input.below(16) {
        0 | 1 => Object::Plain(entries(input, n)),
        2 | 3 => {
            let length = match input.below(4) {
                0 => u32::MAX,
                1 => input.u32(),
                _ => u32::from(input.byte() % 16),
            };
            let count = input.len(16);
            let elements = (0..count)
                .map(|_| {
                    let index = match input.below(8) {
                        0 => input.u32(),
                        _ => u32::from(input.byte() % 20),
                    };
                    (index, value(input, n))
                })
                .collect();
            let extra = if input.one_in(3) {
                entries(input, n)
            } else {
                Vec::new()
            };
            Object::Array {
                length,
                elements,
                extra,
            }
        }
        4 => {
            let count = input.len(16);
            Object::Map(
                (0..count)
                    .map(|_| (value(input, n), value(input, n)))
                    .collect(),
            )
        }
        5 => {
            let count = input.len(16);
            Object::Set((0..count).map(|_| value(input, n)).collect())
        }
        6 => Object::Date(input.number()),
        7 => Object::RegExp {
            source: input.text(REGEXP_SOURCES),
            flags: input.string(REGEXP_FLAGS),
        },
        8 => {
            const NAMES: [ErrorName; 7] = ErrorName::ALL;
            Object::Error {
                name: NAMES[input.below(NAMES.len())],
                message: input.bool().then(|| input.text(STRINGS)),
                stack: input.bool().then(|| input.text(STRINGS)),
                cause: input.bool().then(|| value(input, n)),
            }
        }
        9 | 10 => {
            let len = input.len(64);
            Object::ArrayBuffer(input.bytes(len).to_vec())
        }
        11 | 12 => {
            let huge = |input: &mut Input<'_>| match input.below(6) {
                0 => usize::MAX,
                1 => usize::try_from(input.u32()).unwrap_or(usize::MAX),
                2 => (1usize << 61) + usize::from(input.byte()),
                _ => usize::from(input.byte() % 24),
            };
            Object::View {
                kind: ViewKind::ALL[input.below(ViewKind::ALL.len())],
                buffer: object_id(input, n),
                byte_offset: huge(input),
                length: huge(input),
            }
        }
        13 => match input.below(4) {
            0 => Object::BooleanObject(input.bool()),
            1 => Object::NumberObject(input.number()),
            2 => Object::StringObject(input.text(STRINGS)),
            _ => Object::BigIntObject(input.string(BIGINTS)),
        },
        14 => Object::Token {
            module: input.string(&["@ui/components", ""]),
            export: input.string(&["Button", "default", ""]),
        },
        _ => Object::Plain(Vec::new()),
    }
}

/// `[root]` of `g`, for `Realm::call`.
fn as_args(g: &Graph) -> Graph {
    let mut args = g.clone();
    let id = args.push(Object::Array {
        length: 1,
        elements: vec![(0, g.root.clone())],
        extra: Vec::new(),
    });
    args.root = Value::Object(id);
    args
}

/// Graph equality that treats NaN as NaN and keeps `-0` apart from `0`.
fn same(a: &Graph, b: &Graph) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

// ---------------------------------------------------------------------------------------
// Target 1: the boundary

thread_local! {
    static BOUNDARY_REALM: RefCell<Option<Realm>> = const { RefCell::new(None) };
    static EVAL_REALM: RefCell<Option<Realm>> = const { RefCell::new(None) };
    static PROTOCOL: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

fn small_limits(options: &mut RealmOptions) {
    options.limits.instructions = 200_000;
    options.limits.timeout = std::time::Duration::from_millis(100);
    options.limits.clone = CloneLimits {
        max_depth: 64,
        max_objects: 2_000,
        max_bytes: 256 * 1024,
    };
}

/// Guest hooks the way in must never run (SECURITY.md invariant 4): conversions, setters
/// and getters on the prototypes, the collection methods, species. Each counts in `hits`.
const TRIPWIRES: &str = r#"
function id(x) { return x }
globalThis.hits = 0;
globalThis.tripped = '';
(() => {
  const trip = (what) => { hits++; if (tripped.length < 200) tripped += what + '; '; };
  const wrap = (object, key) => {
    const original = object[key];
    Object.defineProperty(object, key, {
      value: function (...args) { trip(String(key)); return original.apply(this, args); },
      writable: true, configurable: true,
    });
  };
  wrap(Object.prototype, 'valueOf');
  wrap(Object.prototype, 'toString');
  wrap(Array.prototype, 'toString');
  wrap(Array.prototype, 'join');
  wrap(Array.prototype, 'push');
  wrap(Array.prototype, Symbol.iterator);
  wrap(Map.prototype, 'set');
  wrap(Set.prototype, 'add');
  wrap(Object, 'defineProperty');
  Object.defineProperty(Object.prototype, Symbol.toPrimitive, {
    get() { trip('@@toPrimitive'); return undefined; }, configurable: true,
  });
  for (const key of ['a', 'b', '0', '1', 'then', 'length', 'cause', 'lastIndex']) {
    Object.defineProperty(Object.prototype, key, {
      get() { trip('get ' + key); return undefined; },
      set(v) { trip('set ' + key); },
      configurable: true,
    });
  }
  for (const C of [Array, Map, Set, RegExp, Promise, ArrayBuffer, Uint8Array]) {
    Object.defineProperty(C, Symbol.species, { get() { trip('species'); return C; }, configurable: true });
  }
})();
hits = 0;
tripped = '';
"#;

fn boundary_realm() -> Realm {
    let mut options = RealmOptions::default();
    small_limits(&mut options);
    let mut realm = Realm::new(options, None).expect("a boundary realm");
    realm
        .eval(TRIPWIRES, &EvalOptions::default())
        .expect("tripwires");
    realm
}

/// Fails if a tripwire fired.
fn no_hooks_ran(realm: &mut Realm, what: &str, g: &Graph) {
    let hits = realm.eval("hits", &EvalOptions::default());
    if !matches!(&hits, Ok(h) if h.root == Value::Number(0.0)) {
        let tripped = realm.eval("tripped", &EvalOptions::default());
        panic!("{what} ran guest hooks: {hits:?} {tripped:?}\n{g:?}");
    }
}

/// Fails unless `e` has one of the `allowed` codes.
fn typed(what: &str, e: &SandboxError, allowed: &[ErrorCode]) {
    assert!(
        allowed.contains(&e.code),
        "{what}: unexpected {} ({e})",
        e.code
    );
}

fn boundary_inner(data: &[u8]) {
    let g = graph(&mut Input::new(data));
    BOUNDARY_REALM.with(|cell| {
        let mut slot = cell.borrow_mut();
        let realm = slot.get_or_insert_with(boundary_realm);
        // In: a malformed graph is a guest error (TypeError, RangeError, SyntaxError for a
        // bad RegExp), never a crash, never the end of the realm.
        let into = [ErrorCode::GuestThrew, ErrorCode::LimitExceeded];
        // Out: the realm's clone caps, and what the guest cannot hand back faithfully (a
        // RegExp whose source has a lone surrogate).
        let out = [ErrorCode::LimitExceeded, ErrorCode::NotCloneable];
        let set = realm.set("v", &g);
        no_hooks_ran(realm, "set", &g);
        if let Err(e) = set {
            typed("set", &e, &into);
            return;
        }
        let first = match realm.eval("v", &EvalOptions::default()) {
            Ok(first) => first,
            Err(e) => {
                typed("eval v", &e, &out);
                return;
            }
        };
        no_hooks_ran(realm, "eval v", &g);
        // Through call's argument path too: the same value comes back.
        let called = realm.call("id", &as_args(&g));
        no_hooks_ran(realm, "call", &g);
        match called {
            Ok(called) => assert!(
                same(&first, &called),
                "call(id, v) differs from v:\n{first:?}\n{called:?}"
            ),
            Err(e) => typed("call id", &e, &into),
        }
        // One crossing normalised it; a second must be a fixpoint.
        if let Err(e) = realm.set("w", &first) {
            panic!("a graph the boundary produced does not cross back in: {e}\n{first:?}");
        }
        match realm.eval("w", &EvalOptions::default()) {
            Ok(second) => assert!(
                same(&first, &second),
                "the boundary is not a fixpoint:\n{first:?}\n{second:?}"
            ),
            Err(e) => panic!("a graph that crossed once does not cross again: {e}\n{first:?}"),
        }
        assert!(!realm.is_disposed(), "the boundary disposed its realm");
    });
}

// ---------------------------------------------------------------------------------------
// Target 2: eval under limits

fn eval_realm() -> Realm {
    let mut options = RealmOptions {
        allow_code_generation: true,
        ..RealmOptions::default()
    };
    small_limits(&mut options);
    Realm::new(options, None).expect("an eval realm")
}

fn eval_inner(data: &[u8]) {
    let source = String::from_utf8_lossy(data);
    EVAL_REALM.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_some_and(Realm::is_disposed) {
            *slot = None;
        }
        let realm = slot.get_or_insert_with(eval_realm);
        let allowed = [
            ErrorCode::Syntax,
            ErrorCode::GuestThrew,
            ErrorCode::LimitExceeded,
            ErrorCode::NotCloneable,
            ErrorCode::PolicyDenied,
            // An engine failure Boa reports as an error: typed, and the realm is disposed.
            ErrorCode::Terminated,
        ];
        if let Err(e) = realm.eval(&source, &EvalOptions::default()) {
            typed("eval", &e, &allowed);
            if e.code == ErrorCode::Terminated {
                assert!(realm.is_disposed(), "a terminated realm must be disposed");
                return;
            }
        }
        // Due timers and the reports they cause.
        for (_, result) in realm.run_timers(8) {
            if let Err(e) = result {
                typed("timer", &e, &allowed);
            }
        }
        let _ = realm.take_reports();
        if realm.is_disposed() {
            return;
        }
        // Whatever the guest did, a live realm still serves the next entry.
        match realm.eval("1+1", &EvalOptions::default()) {
            Ok(g) => assert_eq!(g.root, Value::Number(2.0), "1+1 after {source:?}"),
            Err(e) => panic!("the realm no longer evaluates 1+1 after {source:?}: {e}"),
        }
    });
}

// ---------------------------------------------------------------------------------------
// Target 3: the worker protocol

const REALM_PREFIX: &str = "https://r.test/a/";
const CARD_API: &str = "https://cardstack.com/base/card-api";

const URLS: &[&str] = &[
    "https://r.test/a/m.js",
    "https://r.test/a/card.js",
    "https://r.test/a/tla.js",
    "https://r.test/a/bad.js",
    "https://r.test/b/x.js",
    CARD_API,
    "./m.js",
    "data:text/javascript,1",
];

const MODULE_SOURCES: &[&str] = &[
    "export const x = 1; export default 2;",
    "import { x } from './m.js'; export const y = x + 1;",
    // Top-level await whose synchronous part can hit a limit: this fuzzer found Boa panicking
    // there ("async modules cannot directly throw"); patch 07 fixed it.
    "export const p = import('./m.js').then((m) => m.x);",
    "function r(n) { return n ? r(n - 1) : 0 } r(5000); export const t = await 0;",
    "import '../../b/x.js'; export const z = 1;",
    "export const = ;",
    "import { CardDef, contains, NumberField, StringField, html, on } from 'https://cardstack.com/base/card-api';
export class Counter extends CardDef {
  count = contains(NumberField);
  name = contains(StringField);
  inc() { this.count = this.count + 1; }
  async later() { await new Promise((ok) => setTimeout(ok, 0)); this.count = 7; }
  static isolated({ model, fields }) {
    return html`<p>${fields.count}</p><button ${on('click', model.inc)}>+</button><i ${on('click', model.later)}>x</i>`;
  }
  static embedded({ model }) { return html`<b>${model.name}</b>`; }
}
export class Spin extends CardDef { static isolated() { for (;;) {} } }",
];

const EVAL_SOURCES: &[&str] = &[
    "1+1",
    "globalThis.n = (globalThis.n || 0) + 1",
    "function f(a) { return [a, typeof a] }",
    "host(1, 'two', { three: 3 })",
    "host().then((v) => v)",
    "Promise.resolve(5)",
    "Promise.reject(new TypeError('no'))",
    "new Promise((ok) => setTimeout(() => ok('late'), 0))",
    "new Promise(() => {})",
    "setInterval(() => { globalThis.ticks = (globalThis.ticks || 0) + 1 }, 0)",
    "setTimeout(() => { throw new Error('in a timer') }, 0)",
    // Stopped by the instruction budget at once. (Not an async loop: Boa swallows the budget
    // error in async resumption, so one runs to its deadline, and a million of those would
    // be the whole campaign; the limits' own tests cover it.)
    "for (;;) {}",
    "console.log('hi', { a: 1 })",
    "throw new Error('x')",
    "import('https://r.test/a/m.js')",
    "import('https://r.test/b/x.js')",
    "(function r() { r() })()",
    "Symbol()",
    "() => 1",
    "'x'.repeat(1e6)",
    "new Proxy({}, {})",
    "globalThis",
];

const NAMES: &[&str] = &["f", "host", "nope", "Object", "eval", "n", "", "then"];

const CARD_OPS: &[&str] = &[
    "create",
    "load",
    "render",
    "renderMany",
    "dispatch",
    "describe",
    "serialize",
    "drop",
    "nope",
];

const FORMATS: &[&str] = &["isolated", "embedded", "fitted", "edit", "atom", "fancy"];

/// Builds one message graph at a time, mostly well-formed.
struct Builder {
    g: Graph,
}

impl Builder {
    fn new() -> Self {
        Self {
            g: Graph::undefined(),
        }
    }

    fn obj(&mut self, fields: Vec<(&str, Value)>) -> Value {
        let fields = fields
            .into_iter()
            .map(|(k, v)| (Text::from(k), v))
            .collect();
        Value::Object(self.g.push(Object::Plain(fields)))
    }

    fn arr(&mut self, items: Vec<Value>) -> Value {
        Value::Object(self.g.push(Object::Array {
            length: u32::try_from(items.len()).unwrap_or(u32::MAX),
            elements: (0u32..).zip(items).collect(),
            extra: Vec::new(),
        }))
    }

    /// Copies `other`'s objects in; returns its root, renumbered.
    fn embed(&mut self, other: &Graph) -> Value {
        let base = u32::try_from(self.g.objects.len()).unwrap_or(u32::MAX);
        let shift = |v: &Value| match v {
            Value::Object(ObjId(i)) => Value::Object(ObjId(i.saturating_add(base))),
            other => other.clone(),
        };
        for o in &other.objects {
            let o = match o {
                Object::Plain(e) => {
                    Object::Plain(e.iter().map(|(k, v)| (k.clone(), shift(v))).collect())
                }
                Object::Array {
                    length,
                    elements,
                    extra,
                } => Object::Array {
                    length: *length,
                    elements: elements.iter().map(|(i, v)| (*i, shift(v))).collect(),
                    extra: extra.iter().map(|(k, v)| (k.clone(), shift(v))).collect(),
                },
                Object::Map(e) => {
                    Object::Map(e.iter().map(|(k, v)| (shift(k), shift(v))).collect())
                }
                Object::Set(e) => Object::Set(e.iter().map(shift).collect()),
                Object::Error {
                    name,
                    message,
                    stack,
                    cause,
                } => Object::Error {
                    name: *name,
                    message: message.clone(),
                    stack: stack.clone(),
                    cause: cause.as_ref().map(shift),
                },
                Object::View {
                    kind,
                    buffer,
                    byte_offset,
                    length,
                } => Object::View {
                    kind: *kind,
                    buffer: ObjId(buffer.0.saturating_add(base)),
                    byte_offset: *byte_offset,
                    length: *length,
                },
                other => other.clone(),
            };
            self.g.objects.push(o);
        }
        shift(&other.root)
    }

    fn finish(mut self, root: Value) -> Graph {
        self.g.root = root;
        self.g
    }
}

/// What the conversation so far offers later messages to refer to.
#[derive(Default)]
struct Seen {
    next_id: u64,
    realms: Vec<u32>,
    calls: Vec<(u32, u64)>,
    fetches: Vec<(u32, String)>,
    strings: Vec<String>,
    /// Strings shaped like the card runtime's action ids (`seq:n`).
    actions: Vec<String>,
}

impl Seen {
    fn learn_strings(&mut self, g: &Graph) {
        for o in &g.objects {
            let values: Vec<&Value> = match o {
                Object::Plain(e) => e.iter().map(|(_, v)| v).collect(),
                Object::Array { elements, .. } => elements.iter().map(|(_, v)| v).collect(),
                _ => Vec::new(),
            };
            for v in values {
                let Value::String(t) = v else { continue };
                let text = t.to_lossy();
                let action = text.split_once(':').is_some_and(|(a, b)| {
                    !a.is_empty() && a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit())
                });
                if action && self.actions.len() < 64 {
                    self.actions.push(text);
                } else if self.strings.len() < 64 && text.len() < 128 {
                    self.strings.push(text);
                }
            }
        }
    }
}

fn num(n: impl Into<f64>) -> Value {
    Value::Number(n.into())
}

fn s(text: &str) -> Value {
    Value::str(text)
}

/// Small limits whatever the options say: an unbounded budget is the host's choice, and
/// the worker tier's watchdog is what bounds it (tested end to end), not the fuzzer's.
///
/// Small `maxRecursion` values found Boa panicking when `import()` (or an async generator's
/// `next`) hit the limit creating its promise capability; patch 07 fixed it.
fn limits_value(b: &mut Builder, input: &mut Input<'_>) -> Value {
    let mut fields = vec![
        ("instructions", num(input.below(100_000).max(1) as f64)),
        ("timeoutMs", num(input.below(20).max(1) as f64)),
        // Realms outlive inputs: intervals left by one run at every later tick.
        ("maxTimers", num(input.below(8).max(1) as f64)),
    ];
    if input.one_in(3) {
        let (key, value) = match input.below(9) {
            0 => ("minIntervalMs", num(input.below(20).max(1) as f64)),
            1 => ("maxCloneDepth", num(input.below(100).max(1) as f64)),
            2 => ("maxCloneObjects", num(input.below(1000).max(1) as f64)),
            3 => ("maxCloneBytes", num(input.below(100_000).max(1) as f64)),
            4 => ("clockResolutionMs", num(input.below(100).max(1) as f64)),
            5 => ("maxLoopIterations", num(input.below(10_000).max(1) as f64)),
            6 => ("consolePerSecond", num(input.below(4).max(1) as f64)),
            7 => ("maxRecursion", num(input.below(64).max(1) as f64)),
            _ => ("bogus", num(1)),
        };
        fields.push((key, value));
    }
    b.obj(fields)
}

fn options_value(b: &mut Builder, input: &mut Input<'_>) -> Value {
    let mut fields = vec![("limits", limits_value(b, input))];
    if input.bool() {
        fields.push((
            "exposeHandlerAs",
            s(if input.one_in(8) { "Object" } else { "host" }),
        ));
    }
    if input.one_in(4) {
        fields.push(("allowCodeGeneration", Value::Bool(input.bool())));
    }
    if !input.one_in(4) {
        let realms = b.arr(vec![s(if input.one_in(8) {
            "ftp://x/"
        } else {
            REALM_PREFIX
        })]);
        let card_api = b.arr(vec![s(CARD_API)]);
        fields.push((
            "modules",
            b.obj(vec![("realms", realms), ("cardApi", card_api)]),
        ));
    }
    b.obj(fields)
}

fn pick_realm(input: &mut Input<'_>, seen: &Seen) -> u32 {
    if !seen.realms.is_empty() && !input.one_in(6) {
        seen.realms[input.below(seen.realms.len())]
    } else {
        u32::try_from(input.below(4)).unwrap_or(0)
    }
}

fn card_string(input: &mut Input<'_>, seen: &Seen, dict: &[&str]) -> Value {
    if !seen.strings.is_empty() && input.bool() {
        s(&seen.strings[input.below(seen.strings.len())])
    } else {
        Value::String(input.text(dict))
    }
}

fn card_args(b: &mut Builder, input: &mut Input<'_>, seen: &Seen, op: &str) -> Value {
    match op {
        "create" | "load" => {
            let ty = b.obj(vec![
                ("module", s("https://r.test/a/card.js")),
                ("name", s(if input.one_in(4) { "Spin" } else { "Counter" })),
            ]);
            let attributes = b.obj(vec![("count", num(input.below(5) as f64))]);
            let data = b.obj(vec![
                ("id", card_string(input, seen, &["c1", "c2"])),
                ("attributes", attributes),
            ]);
            b.arr(vec![ty, data])
        }
        "render" | "serialize" | "drop" => {
            let id = card_string(input, seen, &["c1", "c2"]);
            let fmt = s(FORMATS[input.below(FORMATS.len())]);
            b.arr(vec![id, fmt])
        }
        "renderMany" => {
            let n = input.len(6);
            let items = (0..n)
                .map(|_| {
                    let id = card_string(input, seen, &["c1", "c2", "missing"]);
                    let fmt = s(FORMATS[input.below(FORMATS.len())]);
                    b.arr(vec![id, fmt])
                })
                .collect();
            let list = b.arr(items);
            b.arr(vec![list])
        }
        "dispatch" => {
            let id = card_string(input, seen, &["c1", "c2"]);
            let action = if !seen.actions.is_empty() && !input.one_in(4) {
                s(&seen.actions[input.below(seen.actions.len())])
            } else {
                card_string(input, seen, &["1:0", ""])
            };
            let event = b.obj(vec![("type", s("click"))]);
            b.arr(vec![id, action, event])
        }
        _ => {
            let g = graph(input);
            let v = b.embed(&g);
            b.arr(vec![v])
        }
    }
}

/// One message: a well-formed one of a random type, then perhaps broken on purpose.
fn message(input: &mut Input<'_>, seen: &mut Seen) -> Graph {
    let mut b = Builder::new();
    seen.next_id += 1;
    let id = if input.one_in(32) {
        input.number()
    } else {
        seen.next_id as f64
    };
    let realm = pick_realm(input, seen);
    // Most conversations need a realm first.
    let kind = if seen.realms.is_empty() && input.bool() {
        0
    } else {
        input.below(14)
    };
    let mut fields: Vec<(&str, Value)> = vec![("v", num(1)), ("id", num(id))];
    match kind {
        0 | 1 => {
            let realm = if input.one_in(4) {
                realm
            } else {
                u32::try_from(input.below(6)).unwrap_or(0)
            };
            fields.push(("type", s("create")));
            fields.push(("realm", num(realm)));
            let options = options_value(&mut b, input);
            fields.push(("options", options));
        }
        2..=4 => {
            fields.push(("type", s("eval")));
            fields.push(("realm", num(realm)));
            let source = if input.one_in(4) {
                input.string(&[])
            } else {
                EVAL_SOURCES[input.below(EVAL_SOURCES.len())].to_owned()
            };
            fields.push(("source", s(&source)));
            if input.one_in(4) {
                let filename = Value::String(input.text(&["f.js", ""]));
                let options = b.obj(vec![("filename", filename)]);
                fields.push(("options", options));
            }
        }
        5 => {
            fields.push(("type", s("set")));
            fields.push(("realm", num(realm)));
            fields.push(("name", Value::String(input.text(NAMES))));
            let g = graph(input);
            let value = b.embed(&g);
            fields.push(("value", value));
        }
        6 => {
            fields.push(("type", s("call")));
            fields.push(("realm", num(realm)));
            fields.push(("name", Value::String(input.text(NAMES))));
            let g = graph(input);
            let arg = b.embed(&g);
            let args = b.arr(vec![arg]);
            fields.push(("args", args));
        }
        7 | 8 => {
            fields.push(("type", s("card")));
            fields.push(("realm", num(realm)));
            let op = CARD_OPS[input.below(CARD_OPS.len())];
            fields.push(("op", s(op)));
            if matches!(op, "create" | "load" | "describe") || input.one_in(8) {
                fields.push(("module", s(URLS[input.below(URLS.len())])));
            }
            let args = card_args(&mut b, input, seen, op);
            fields.push(("args", args));
        }
        9 => {
            fields.push(("type", s("settle")));
            let (realm, call) = if !seen.calls.is_empty() && !input.one_in(4) {
                seen.calls[input.below(seen.calls.len())]
            } else {
                (realm, input.below(4) as u64)
            };
            fields.push(("realm", num(realm)));
            fields.push(("call", num(call as f64)));
            if input.bool() {
                fields.push(("ok", Value::Bool(true)));
                let g = graph(input);
                let value = b.embed(&g);
                fields.push(("value", value));
            } else {
                fields.push(("ok", Value::Bool(false)));
                let name = Value::String(input.text(&["TypeError", "Error", "Nope"]));
                let message = Value::String(input.text(STRINGS));
                let error = b.obj(vec![("name", name), ("message", message)]);
                fields.push(("error", error));
            }
        }
        10 => {
            fields.push(("type", s("import")));
            fields.push(("realm", num(realm)));
            fields.push(("url", Value::String(input.text(URLS))));
        }
        11 => {
            fields.push(("type", s("provide")));
            let (realm, url) = if !seen.fetches.is_empty() && !input.one_in(4) {
                seen.fetches[input.below(seen.fetches.len())].clone()
            } else {
                (realm, input.string(URLS))
            };
            fields.push(("realm", num(realm)));
            fields.push(("url", s(&url)));
            let source = if url.ends_with("/m.js") {
                MODULE_SOURCES[0]
            } else if url.ends_with("/card.js") && !input.one_in(4) {
                MODULE_SOURCES[MODULE_SOURCES.len() - 1]
            } else {
                MODULE_SOURCES[input.below(MODULE_SOURCES.len())]
            };
            match input.below(4) {
                0 => {
                    fields.push(("ok", Value::Bool(false)));
                    fields.push(("error", s("HTTP 404")));
                }
                1 => {
                    fields.push(("ok", Value::Bool(true)));
                    let buffer = b.g.push(Object::ArrayBuffer(source.as_bytes().to_vec()));
                    fields.push(("source", Value::Object(buffer)));
                }
                _ => {
                    fields.push(("ok", Value::Bool(true)));
                    fields.push(("source", s(source)));
                }
            }
        }
        12 => {
            fields.push((
                "type",
                s(if input.bool() { "invalidate" } else { "policy" }),
            ));
            if input.bool() {
                fields.push(("url", Value::String(input.text(URLS))));
            } else {
                fields.push(("realm", num(realm)));
                let realms = b.arr(vec![s(REALM_PREFIX)]);
                let modules = b.obj(vec![("realms", realms)]);
                fields.push(("modules", modules));
            }
        }
        _ if input.below(4) == 0 => fields.push(("type", s("warm"))),
        _ => {
            fields.push(("type", s("dispose")));
            fields.push(("realm", num(realm)));
        }
    }
    // Break it on purpose, sometimes.
    match input.below(12) {
        0 => {
            // Never a create's options: the default one-second deadline would make every
            // runaway guest a one-second input (how long a guest may run is the host's
            // choice, and the watchdog's business).
            let at = input.below(fields.len());
            if fields[at].0 != "options" {
                fields.remove(at);
            }
        }
        1 => {
            let at = input.below(fields.len());
            if fields[at].0 != "options" {
                fields[at].1 = value(input, 0);
            }
        }
        2 => fields.push(("extra", num(1))),
        3 => fields.insert(0, ("v", num(2))),
        4 => {
            // Anything at all.
            return graph(input);
        }
        _ => {}
    }
    let root = b.obj(fields);
    b.finish(root)
}

/// The id a message carries, as the protocol reads it (the first `id` field).
fn message_id(g: &Graph) -> Option<u64> {
    let Value::Object(root) = &g.root else {
        return None;
    };
    let Some(Object::Plain(fields)) = g.get(*root) else {
        return None;
    };
    let id = fields
        .iter()
        .find(|(k, _)| matches!(k, Text::Utf8(s) if &**s == "id"))
        .map(|(_, v)| v)?;
    match id {
        Value::Number(n) if n.fract() == 0.0 && *n >= 0.0 && *n <= 9_007_199_254_740_991.0 => {
            Some(*n as u64)
        }
        _ => None,
    }
}

/// Bookkeeping that checks every request is answered exactly once.
#[derive(Default)]
struct Ledger {
    /// Ids sent more than once, whose answers cannot be told apart.
    ambiguous: HashSet<u64>,
    sent: HashSet<u64>,
    /// Requests answered `pending`, waiting for their one result or error.
    waiting: HashSet<u64>,
    answered: HashMap<u64, u32>,
}

impl Ledger {
    fn send(&mut self, id: Option<u64>) {
        if let Some(id) = id
            && !self.sent.insert(id)
        {
            self.ambiguous.insert(id);
        }
    }

    /// Checks the replies to one message (`own`: its id, `None` for ticks).
    fn check(&mut self, own: Option<Option<u64>>, replies: &[Reply], seen: &mut Seen) {
        let mut terminal_for_own = 0;
        for reply in replies {
            let (id, is_final) = match reply {
                Reply::Result { id, value } => {
                    seen.learn_strings(value);
                    (Some(*id), true)
                }
                // Only a message with a walked payload is answered so; the fuzzer sends graphs.
                Reply::Tape { id, .. } => (Some(*id), true),
                Reply::Error { id, .. } => (*id, true),
                Reply::Pending { id } => (Some(*id), false),
                Reply::HostCall { realm, call, .. } => {
                    seen.calls.push((*realm, *call));
                    continue;
                }
                Reply::Fetch { realm, fetch } => {
                    seen.fetches.push((*realm, fetch.url.clone()));
                    continue;
                }
                Reply::Event { .. } => continue,
            };
            if let Some(own) = own
                && id == own
                && !own.is_some_and(|i| self.waiting.contains(&i))
            {
                // The message's own answer (an id-less error for an undecodable message).
                terminal_for_own += 1;
                if let Some(i) = id
                    && !is_final
                {
                    self.waiting.insert(i);
                }
                continue;
            }
            let Some(id) = id else {
                panic!("an id-less reply that is not the answer to the message: {reply:?}");
            };
            if self.ambiguous.contains(&id) {
                continue;
            }
            // Anything else finishes a request that was waiting, once.
            assert!(
                is_final && self.waiting.remove(&id),
                "reply for request {id}, which was not waiting: {reply:?}"
            );
            *self.answered.entry(id).or_default() += 1;
        }
        if let Some(own) = own
            && !own.is_some_and(|i| self.ambiguous.contains(&i))
        {
            assert_eq!(
                terminal_for_own, 1,
                "message {own:?} got {terminal_for_own} answers: {replies:?}"
            );
        }
    }
}

fn protocol_inner(data: &[u8]) {
    PROTOCOL.with(|cell| {
        let mut slot = cell.borrow_mut();
        let state = slot.get_or_insert_with(|| Worker::started(&mut None));
        protocol_run(state, data, &mut None);
    });
}

/// The messages an input sends and the replies they get, for triage.
pub fn protocol_transcript(data: &[u8]) -> Vec<String> {
    let data = data.to_vec();
    let (tx, rx) = channel();
    let ran = on_engine(move || {
        let mut lines = Some(Vec::new());
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut worker = Worker::started(&mut lines);
            protocol_run(&mut worker, &data, &mut lines);
        }));
        let mut lines = lines.unwrap_or_default();
        if let Err(p) = outcome {
            let why = p
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "panic".to_owned());
            lines.push(format!("FAILED: {why}"));
        }
        let _ = tx.send(lines);
    });
    let mut lines = rx.recv().unwrap_or_default();
    if let Err(e) = ran {
        lines.push(format!("FAILED: {e}"));
    }
    lines
}

/// One worker's dispatcher, what it said so far, and the bookkeeping that checks it. It
/// lives across inputs, as a worker serves a long stream of messages (until the engine
/// thread is recycled), so each input meets the state earlier ones left, including a realm
/// with a card module loaded and a card rendered (`card_prelude`).
struct Worker {
    dispatcher: Dispatcher,
    seen: Seen,
    ledger: Ledger,
}

impl Worker {
    /// A fresh worker after the card prelude.
    fn started(trace: &mut Option<Vec<String>>) -> Self {
        let mut worker = Worker {
            dispatcher: Dispatcher::default(),
            seen: Seen::default(),
            ledger: Ledger::default(),
        };
        Conversation {
            w: &mut worker,
            trace,
        }
        .card_prelude();
        worker
    }
}

/// Whether to print messages and ticks slower than 20 ms (`FUZZ_SLOW=1`), for tuning.
fn slow_log() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("FUZZ_SLOW").is_some())
}

/// A worker and where to log what it is told.
struct Conversation<'a> {
    w: &'a mut Worker,
    trace: &'a mut Option<Vec<String>>,
}

impl Conversation<'_> {
    fn log(&mut self, line: impl FnOnce() -> String) {
        if let Some(t) = self.trace.as_mut() {
            t.push(line());
        }
    }

    fn tick(&mut self) {
        let started = std::time::Instant::now();
        let replies = self.w.dispatcher.tick();
        let took = started.elapsed();
        if took > std::time::Duration::from_millis(20) && slow_log() {
            eprintln!("slow tick ({took:?}): {} replies", replies.len());
        }
        self.log(|| format!("tick -> ({took:?}) {replies:?}"));
        self.w.ledger.check(None, &replies, &mut self.w.seen);
    }

    /// Sends one message, checks its replies, and returns them.
    fn send(&mut self, m: &Graph) -> Vec<Reply> {
        self.log(|| format!("send {m:?}"));
        let id = message_id(m);
        // A pending request's id sent again would be ambiguous too.
        if let Some(i) = id
            && self.w.ledger.waiting.contains(&i)
        {
            self.w.ledger.ambiguous.insert(i);
        }
        self.w.ledger.send(id);
        let started = std::time::Instant::now();
        let replies = self.w.dispatcher.handle(m);
        let took = started.elapsed();
        if took > std::time::Duration::from_millis(20) && slow_log() {
            eprintln!("slow message ({took:?}): {m:?}");
        }
        self.log(|| format!("  -> ({took:?}) {replies:?}"));
        for r in &replies {
            if let Reply::Result { id: rid, .. } = r
                && Some(*rid) == id
                && matches!(extract_type(m).as_deref(), Some("create"))
                && let Some(realm) = extract_realm(m)
            {
                self.w.seen.realms.push(realm);
            }
        }
        self.w.ledger.check(Some(id), &replies, &mut self.w.seen);
        assert!(self.w.dispatcher.realm_count() <= MAX_REALMS);
        replies
    }

    /// A scripted start, so the fuzzed messages that follow meet a realm with a card module
    /// loaded and a rendered card (its action ids among the strings they can use): create,
    /// import, answer every fetch, create a card, render it.
    fn card_prelude(&mut self) {
        let realm = 1;
        let next = |seen: &mut Seen| {
            seen.next_id += 1;
            num(seen.next_id as f64)
        };
        let mut b = Builder::new();
        let realms = b.arr(vec![s(REALM_PREFIX)]);
        let card_api = b.arr(vec![s(CARD_API)]);
        let modules = b.obj(vec![("realms", realms), ("cardApi", card_api)]);
        let limits = b.obj(vec![
            ("instructions", num(300_000)),
            ("timeoutMs", num(50)),
            ("maxTimers", num(8)),
        ]);
        let options = b.obj(vec![
            ("limits", limits),
            ("modules", modules),
            ("exposeHandlerAs", s("host")),
        ]);
        let id = next(&mut self.w.seen);
        let root = b.obj(vec![
            ("v", num(1)),
            ("id", id),
            ("type", s("create")),
            ("realm", num(realm)),
            ("options", options),
        ]);
        self.send(&b.finish(root));
        let card = "https://r.test/a/card.js";
        let mut b = Builder::new();
        let id = next(&mut self.w.seen);
        let root = b.obj(vec![
            ("v", num(1)),
            ("id", id),
            ("type", s("import")),
            ("realm", num(realm)),
            ("url", s(card)),
        ]);
        let mut replies = self.send(&b.finish(root));
        // Answer fetches until the graph is complete (a handful at most).
        for _ in 0..4 {
            let fetches: Vec<String> = replies
                .iter()
                .filter_map(|r| match r {
                    Reply::Fetch { fetch, .. } => Some(fetch.url.clone()),
                    _ => None,
                })
                .collect();
            if fetches.is_empty() {
                break;
            }
            replies = Vec::new();
            for url in fetches {
                let source = if url == card {
                    MODULE_SOURCES[MODULE_SOURCES.len() - 1]
                } else {
                    MODULE_SOURCES[0]
                };
                let mut b = Builder::new();
                let id = next(&mut self.w.seen);
                let root = b.obj(vec![
                    ("v", num(1)),
                    ("id", id),
                    ("type", s("provide")),
                    ("realm", num(realm)),
                    ("url", s(&url)),
                    ("ok", Value::Bool(true)),
                    ("source", s(source)),
                ]);
                replies.extend(self.send(&b.finish(root)));
            }
        }
        for (op, args) in [("create", 0), ("render", 1)] {
            let mut b = Builder::new();
            let args = if args == 0 {
                let ty = b.obj(vec![("module", s(card)), ("name", s("Counter"))]);
                let attributes = b.obj(vec![("count", num(1)), ("name", s("n"))]);
                let data = b.obj(vec![("id", s("c1")), ("attributes", attributes)]);
                b.arr(vec![ty, data])
            } else {
                b.arr(vec![s("c1"), s("isolated")])
            };
            let id = next(&mut self.w.seen);
            let mut fields = vec![
                ("v", num(1)),
                ("id", id),
                ("type", s("card")),
                ("realm", num(realm)),
                ("op", s(op)),
                ("args", args),
            ];
            if op == "create" {
                fields.push(("module", s(card)));
            }
            let root = b.obj(fields);
            self.send(&b.finish(root));
        }
    }
}

fn protocol_run(worker: &mut Worker, data: &[u8], trace: &mut Option<Vec<String>>) {
    let mut input = Input::new(data);
    let mut c = Conversation { w: worker, trace };
    for _ in 0..MAX_MESSAGES {
        if input.is_empty() {
            break;
        }
        if input.one_in(6) {
            c.tick();
            continue;
        }
        let m = message(&mut input, &mut c.w.seen);
        c.send(&m);
    }
    c.tick();
}

fn field<'g>(g: &'g Graph, key: &str) -> Option<&'g Value> {
    let Value::Object(root) = &g.root else {
        return None;
    };
    let Some(Object::Plain(fields)) = g.get(*root) else {
        return None;
    };
    fields
        .iter()
        .find(|(k, _)| matches!(k, Text::Utf8(s) if &**s == key))
        .map(|(_, v)| v)
}

fn extract_type(g: &Graph) -> Option<String> {
    match field(g, "type") {
        Some(Value::String(t)) => Some(t.to_lossy()),
        _ => None,
    }
}

fn extract_realm(g: &Graph) -> Option<u32> {
    match field(g, "realm") {
        Some(Value::Number(n)) if n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX) => {
            Some(*n as u32)
        }
        _ => None,
    }
}
