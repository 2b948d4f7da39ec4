//! Everything the guest can reach, as data. This is the one place to review.
//!
//! The guest global is built from this table: at realm creation every own property of the
//! global that is not listed here is deleted (fail closed: a new Boa version that adds a
//! global does not silently widen the guest's reach). A test asserts the global's keys
//! equal this table exactly.

/// Where a capability comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// An ECMAScript intrinsic created by the engine inside the guest realm.
    Intrinsic,
    /// Installed by us; `enforced_in` names the code that upholds the invariant.
    Endowment,
}

/// One entry of the allowlist.
#[derive(Debug, Clone, Copy)]
pub struct Capability {
    /// Global names this entry covers.
    pub names: &'static [&'static str],
    /// Where it comes from.
    pub source: Source,
    /// The invariant that makes it safe to hand to untrusted code.
    pub invariant: &'static str,
    /// Where the invariant is enforced.
    pub enforced_in: &'static str,
}

/// The allowlist. Order is irrelevant; names must be unique.
pub const GLOBALS: &[Capability] = &[
    Capability {
        names: &[
            "globalThis",
            "Infinity",
            "NaN",
            "undefined",
            "isFinite",
            "isNaN",
            "parseFloat",
            "parseInt",
            "decodeURI",
            "decodeURIComponent",
            "encodeURI",
            "encodeURIComponent",
            "escape",
            "unescape",
        ],
        source: Source::Intrinsic,
        invariant: "pure functions and constants over guest values; no I/O, no host objects",
        enforced_in: "boa_engine intrinsics of the guest realm",
    },
    Capability {
        names: &[
            "Object",
            "Function",
            "Array",
            "Number",
            "Boolean",
            "String",
            "Symbol",
            "BigInt",
            "Math",
            "JSON",
            "Reflect",
            "Proxy",
            "Promise",
            "Iterator",
            "Date",
            "RegExp",
            "Map",
            "Set",
            "WeakMap",
            "WeakSet",
            "WeakRef",
            "FinalizationRegistry",
        ],
        source: Source::Intrinsic,
        invariant: "constructors and namespaces of the guest realm only; their prototypes are \
                    guest objects, so mutation never reaches the host's intrinsics",
        enforced_in: "boa_engine intrinsics; boundary crossing is by clone (clone/)",
    },
    Capability {
        names: &[
            "Error",
            "AggregateError",
            "EvalError",
            "RangeError",
            "ReferenceError",
            "SyntaxError",
            "TypeError",
            "URIError",
        ],
        source: Source::Intrinsic,
        invariant: "guest errors; the host sees only cloned name/message/stack strings",
        enforced_in: "realm.rs guest_threw",
    },
    Capability {
        names: &[
            "ArrayBuffer",
            "DataView",
            "Int8Array",
            "Uint8Array",
            "Uint8ClampedArray",
            "Int16Array",
            "Uint16Array",
            "Int32Array",
            "Uint32Array",
            "Float32Array",
            "Float64Array",
            "BigInt64Array",
            "BigUint64Array",
        ],
        source: Source::Intrinsic,
        invariant: "buffers are guest memory, capped by max_buffer_size; bytes are copied at \
                    the boundary, never shared",
        enforced_in: "realm.rs SandboxHooks::max_buffer_size, clone/",
    },
    Capability {
        names: &["eval"],
        source: Source::Intrinsic,
        invariant: "compiles guest source into the guest realm only; denied when \
                    allowCodeGeneration is false",
        enforced_in: "realm.rs SandboxHooks::ensure_can_compile_strings",
    },
    Capability {
        names: &["setTimeout", "setInterval", "clearTimeout", "clearInterval"],
        source: Source::Endowment,
        invariant: "handlers must be guest functions (a string is a TypeError, never compiled); \
                    callbacks are held in Rust and run by the embedder's loop, each as one \
                    metered entry; live timers and the interval period are capped; all are \
                    cancelled on dispose, and an interval that hits a limit is cleared",
        enforced_in: "platform/timers.rs, platform/mod.rs add_timer, realm.rs run_timers",
    },
    Capability {
        names: &["queueMicrotask"],
        source: Source::Endowment,
        invariant: "enqueues a guest function on the guest's own job queue, drained inside the \
                    entry's budget; a throw is reported, never propagated to the host",
        enforced_in: "platform/mod.rs queue_microtask",
    },
    Capability {
        names: &["console"],
        source: Source::Endowment,
        invariant: "log/info/warn/error/debug send cloned arguments (uncloneable ones as \
                    strings) to the host as reports, rate-limited per second; no host object \
                    is reachable from it",
        enforced_in: "platform/mod.rs console",
    },
    Capability {
        names: &["performance"],
        source: Source::Endowment,
        invariant: "only now(), coarsened to limits.clockResolutionMs (default 1 ms) to blunt \
                    timing side channels; Date is coarsened the same way by our Boa clock",
        enforced_in: "platform/mod.rs performance_now, CoarseClock",
    },
    Capability {
        names: &["crypto"],
        source: Source::Endowment,
        invariant: "getRandomValues (integer typed arrays, at most 65536 bytes) and randomUUID, \
                    from the platform CSPRNG; no keys, no subtle",
        enforced_in: "platform/mod.rs get_random_values, random_uuid",
    },
    Capability {
        names: &["atob", "btoa", "structuredClone"],
        source: Source::Endowment,
        invariant: "pure functions over guest values: base64 per HTML, and a clone within the \
                    guest realm by the same capped boundary code",
        enforced_in: "platform/text.rs, platform/mod.rs structured_clone",
    },
    Capability {
        names: &["TextEncoder", "TextDecoder"],
        source: Source::Endowment,
        invariant: "guest classes (platform/prelude.js) over two pure natives: UTF-8 encode to \
                    a guest Uint8Array and decode from guest bytes",
        enforced_in: "platform/text.rs encode, decode",
    },
    Capability {
        names: &["URL", "URLSearchParams", "Intl"],
        source: Source::Endowment,
        invariant: "guest classes whose parsing and formatting are answered by the host \
                    engine's own URL and Intl through the bridge: only listed operations, only \
                    cloned data in and out; present only where the host provides a bridge \
                    (the wasm build), absent natively",
        enforced_in: "platform/mod.rs bridge_call, BRIDGE_OPS; bindings/bridge.rs",
    },
];

/// Names that exist only where the host provides a bridge.
pub const BRIDGED: &[&str] = &["URL", "URLSearchParams", "Intl"];

/// Globals Boa creates that we remove, with the reason. Anything else unlisted is removed too.
pub const REMOVED: &[(&str, &str)] = &[
    (
        "SharedArrayBuffer",
        "no threads to share with; a shared counter is a high-resolution timer",
    ),
    (
        "Atomics",
        "Atomics.wait could block the worker's thread; nothing to synchronise with",
    ),
];

/// Whether `name` is a global the guest is given by the table.
#[must_use]
pub fn is_guest_global(name: &str) -> bool {
    GLOBALS.iter().any(|c| c.names.contains(&name))
}

/// Words that cannot name a global binding the guest could call.
pub const RESERVED_WORDS: &[&str] = &[
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "arguments",
];

/// The host handler endowment, installed under the name the host chose.
pub const HANDLER: Capability = Capability {
    names: &[],
    source: Source::Endowment,
    invariant: "a native function: arguments leave by structured clone, the return value \
                comes back by clone, a host throw becomes a fresh guest error carrying only \
                name and message; the host handler never sees a guest object nor the guest a \
                host object",
    enforced_in: "realm.rs install_handler",
};

/// The card runtime, reachable only by importing a `modules.cardApi` specifier.
pub const CARD_API: Capability = Capability {
    names: &[],
    source: Source::Endowment,
    invariant: "guest-level JavaScript evaluated in the guest realm: it holds no host object \
                and no native function, so it can do nothing the guest could not; its host \
                operations object is held by Rust only; everything it returns leaves by clone, \
                and render trees are untrusted input to the host shim's sanitiser",
    enforced_in: "cards/mod.rs Runtime::create, realm.rs Realm::card, pkg-template/cards.js",
};

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_not_removed() {
        let mut seen = HashSet::new();
        for c in GLOBALS {
            for n in c.names {
                assert!(seen.insert(*n), "duplicate {n}");
            }
        }
        for (n, _) in REMOVED {
            assert!(!seen.contains(n), "{n} both allowed and removed");
        }
    }
}
