//! Typed errors with stable codes. The codes are API: each has a README anchor.

use std::fmt;

/// A stable error code. The string form never changes once released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// Options or arguments the host passed are malformed, unknown or out of range.
    InvalidOptions,
    /// A value cannot cross the boundary by structured clone.
    NotCloneable,
    /// The guest threw (or rejected) and did not catch it.
    GuestThrew,
    /// The guest source did not parse.
    Syntax,
    /// The guest ran past a budget, deadline, recursion, stack or size limit.
    LimitExceeded,
    /// The engine instance died (crash, timeout kill, memory cap) or was terminated.
    Terminated,
    /// The realm was disposed; it cannot be used again.
    Disposed,
    /// A realm method was called while that realm was already running (re-entrancy).
    Busy,
    /// A module or capability request was refused by policy.
    PolicyDenied,
    /// The worker protocol saw a malformed or unknown message.
    Protocol,
    /// The host's `onModelPatch` did not acknowledge model patches (raised by the client).
    PatchUnacknowledged,
    /// A render named a host component that is not a genuine token in the registry
    /// (raised by the host shim).
    UnknownToken,
    /// A render tree was too large or too deep to put in the DOM (raised by the host shim).
    RenderRejected,
}

impl ErrorCode {
    /// Every code, for documentation checks and tables.
    pub const ALL: [ErrorCode; 13] = [
        ErrorCode::InvalidOptions,
        ErrorCode::NotCloneable,
        ErrorCode::GuestThrew,
        ErrorCode::Syntax,
        ErrorCode::LimitExceeded,
        ErrorCode::Terminated,
        ErrorCode::Disposed,
        ErrorCode::Busy,
        ErrorCode::PolicyDenied,
        ErrorCode::Protocol,
        ErrorCode::PatchUnacknowledged,
        ErrorCode::UnknownToken,
        ErrorCode::RenderRejected,
    ];

    /// The stable string form, e.g. `SANDBOX_LIMIT_EXCEEDED`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidOptions => "SANDBOX_INVALID_OPTIONS",
            ErrorCode::NotCloneable => "SANDBOX_NOT_CLONEABLE",
            ErrorCode::GuestThrew => "SANDBOX_GUEST_THREW",
            ErrorCode::Syntax => "SANDBOX_SYNTAX",
            ErrorCode::LimitExceeded => "SANDBOX_LIMIT_EXCEEDED",
            ErrorCode::Terminated => "SANDBOX_TERMINATED",
            ErrorCode::Disposed => "SANDBOX_DISPOSED",
            ErrorCode::Busy => "SANDBOX_BUSY",
            ErrorCode::PolicyDenied => "SANDBOX_POLICY_DENIED",
            ErrorCode::Protocol => "SANDBOX_PROTOCOL",
            ErrorCode::PatchUnacknowledged => "SANDBOX_PATCH_UNACKNOWLEDGED",
            ErrorCode::UnknownToken => "SANDBOX_UNKNOWN_TOKEN",
            ErrorCode::RenderRejected => "SANDBOX_RENDER_REJECTED",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which limit stopped the guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The per-call instruction budget.
    Instructions,
    /// The per-call wall-clock deadline.
    Deadline,
    /// Nested call depth.
    Recursion,
    /// The VM value stack.
    Stack,
    /// Iterations of one loop.
    LoopIterations,
    /// Boundary value nesting depth.
    CloneDepth,
    /// Boundary value object count.
    CloneObjects,
    /// Boundary value size in bytes.
    CloneBytes,
    /// Source text length.
    SourceLength,
    /// The worker's wasm memory (the instance is replaced; see `TerminationReason::Memory`).
    Memory,
}

impl Limit {
    /// The option name that sets this limit, as the host spells it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Limit::Instructions => "instructions",
            Limit::Deadline => "timeoutMs",
            Limit::Recursion => "maxRecursion",
            Limit::Stack => "maxStackSize",
            Limit::LoopIterations => "maxLoopIterations",
            Limit::CloneDepth => "maxCloneDepth",
            Limit::CloneObjects => "maxCloneObjects",
            Limit::CloneBytes => "maxCloneBytes",
            Limit::SourceLength => "maxSourceLength",
            Limit::Memory => "memoryLimitMb",
        }
    }
}

/// Why an engine instance is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminationReason {
    /// The wasm instance trapped or the engine hit an internal error.
    Crashed,
    /// The host killed a worker that missed its deadline.
    Timeout,
    /// The worker exceeded its memory cap.
    Memory,
    /// The host asked for termination.
    Requested,
    /// The pool closed an idle or least recently used worker.
    Evicted,
}

impl TerminationReason {
    /// Stable string form.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            TerminationReason::Crashed => "crashed",
            TerminationReason::Timeout => "timeout",
            TerminationReason::Memory => "memory",
            TerminationReason::Requested => "requested",
            TerminationReason::Evicted => "evicted",
        }
    }
}

/// Where in guest source something happened.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The filename the host gave the source.
    pub filename: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// Structured details; which fields are set depends on the code.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Details {
    /// `LimitExceeded`: which limit.
    pub limit: Option<Limit>,
    /// `NotCloneable` / clone limits: the path to the value, e.g. `$.model.author`.
    pub path: Option<String>,
    /// `NotCloneable`: what kind of value was refused, e.g. `function`.
    pub value_type: Option<String>,
    /// `GuestThrew`: the guest error's name (`TypeError`), or `"value"` for a non-error throw.
    pub name: Option<String>,
    /// `GuestThrew`: the guest error's own message.
    pub guest_message: Option<String>,
    /// `GuestThrew`: the guest stack as a string.
    pub stack: Option<String>,
    /// `GuestThrew` / `Syntax`: where.
    pub location: Option<Location>,
    /// `Terminated`: why.
    pub reason: Option<TerminationReason>,
    /// `InvalidOptions`: the option that was wrong.
    pub option: Option<String>,
}

/// The one error type of the core. `message` is for people; `code` and `details` are for code.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxError {
    /// Stable code.
    pub code: ErrorCode,
    /// Human-readable explanation, without the code (Display appends it).
    pub message: String,
    /// Structured data (boxed: errors travel through many `Result`s on hot paths).
    pub details: Box<Details>,
}

impl SandboxError {
    /// A new error with empty details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Box::default(),
        }
    }

    /// `SANDBOX_INVALID_OPTIONS` naming the option.
    pub fn invalid_option(option: &str, why: impl fmt::Display) -> Self {
        let mut e = Self::new(
            ErrorCode::InvalidOptions,
            format!("option `{option}` {why}"),
        );
        e.details.option = Some(option.to_owned());
        e
    }

    /// `SANDBOX_LIMIT_EXCEEDED` naming the limit.
    pub fn limit(limit: Limit, message: impl Into<String>) -> Self {
        let mut e = Self::new(ErrorCode::LimitExceeded, message);
        e.details.limit = Some(limit);
        e
    }

    /// `SANDBOX_NOT_CLONEABLE` with the path and the kind of value.
    pub fn not_cloneable(path: &str, value_type: &str) -> Self {
        let mut e = Self::new(
            ErrorCode::NotCloneable,
            format!("{path} is a {value_type}, which cannot be structured-cloned"),
        );
        e.details.path = Some(path.to_owned());
        e.details.value_type = Some(value_type.to_owned());
        e
    }

    /// `SANDBOX_TERMINATED` with the reason.
    pub fn terminated(reason: TerminationReason, message: impl Into<String>) -> Self {
        let mut e = Self::new(ErrorCode::Terminated, message);
        e.details.reason = Some(reason);
        e
    }

    /// `SANDBOX_DISPOSED`.
    #[must_use]
    pub fn disposed() -> Self {
        Self::new(ErrorCode::Disposed, "the realm was disposed")
    }
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.message, self.code)
    }
}

impl std::error::Error for SandboxError {}

/// Result alias for the core.
pub type Result<T, E = SandboxError> = std::result::Result<T, E>;
