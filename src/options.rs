//! Host options, validated before anything runs. Unknown keys are errors (fail closed).

use web_time::Duration;

use crate::capabilities;
use crate::error::{Result, SandboxError};
use crate::modules::policy::Policy;
use crate::platform::PlatformLimits;
use crate::value::{CloneLimits, Graph, Object, Text, Value};

/// Per-call execution limits and boundary caps.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Instructions per entry (eval, call), including the jobs it queues.
    pub instructions: u64,
    /// Wall-clock deadline per entry.
    pub timeout: Duration,
    /// Deepest guest call nesting.
    pub max_recursion: usize,
    /// Largest VM value stack.
    pub max_stack_size: usize,
    /// Iterations of any single loop (`None`: only the instruction budget applies).
    pub max_loop_iterations: Option<u64>,
    /// Longest accepted source text, in bytes.
    pub max_source_length: usize,
    /// Boundary caps.
    pub clone: CloneLimits,
    /// Timers, clocks and console.
    pub platform: PlatformLimits,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            instructions: 500_000_000,
            timeout: Duration::from_millis(1_000),
            // Each guest frame costs native stack inside builtins that call back into
            // guest code; 400 keeps the deepest mix inside the wasm stack (see .cargo/config.toml).
            max_recursion: 400,
            max_stack_size: 64 * 1024,
            max_loop_iterations: None,
            max_source_length: 16 * 1024 * 1024,
            clone: CloneLimits::default(),
            platform: PlatformLimits::default(),
        }
    }
}

/// Options for a new realm, minus the host handler itself (the bindings hold that).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RealmOptions {
    /// Global name under which the host handler is exposed, if any.
    pub expose_handler_as: Option<String>,
    /// Whether `eval` and the `Function` constructors may compile strings.
    pub allow_code_generation: bool,
    /// Limits.
    pub limits: Limits,
    /// What modules the guest may import.
    pub modules: Policy,
}

/// Options for one `eval`.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalOptions {
    /// Name shown in stacks and locations.
    pub filename: String,
}

impl Default for EvalOptions {
    fn default() -> Self {
        Self {
            filename: "<eval>".to_owned(),
        }
    }
}

/// Reads an options bag: `None`/undefined means defaults; anything but a plain object is an error.
fn entries<'g>(graph: &'g Graph, what: &str) -> Result<&'g [(Text, Value)]> {
    match &graph.root {
        Value::Undefined | Value::Null => Ok(&[]),
        Value::Object(id) => match graph.get(*id) {
            Some(Object::Plain(entries)) => Ok(entries),
            _ => Err(SandboxError::invalid_option(what, "must be a plain object")),
        },
        _ => Err(SandboxError::invalid_option(what, "must be a plain object")),
    }
}

fn sub_entries<'g>(graph: &'g Graph, value: &Value, what: &str) -> Result<&'g [(Text, Value)]> {
    match value {
        Value::Undefined => Ok(&[]),
        Value::Object(id) => match graph.get(*id) {
            Some(Object::Plain(entries)) => Ok(entries),
            _ => Err(SandboxError::invalid_option(what, "must be a plain object")),
        },
        _ => Err(SandboxError::invalid_option(what, "must be a plain object")),
    }
}

fn positive_int(value: &Value, name: &str, max: f64) -> Result<Option<u64>> {
    match value {
        Value::Undefined => Ok(None),
        Value::Number(n) if n.fract() == 0.0 && *n >= 1.0 && *n <= max => Ok(Some(*n as u64)),
        _ => Err(SandboxError::invalid_option(
            name,
            format!("must be a whole number from 1 to {max}"),
        )),
    }
}

fn to_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

impl Limits {
    fn apply(&mut self, graph: &Graph, value: &Value) -> Result<()> {
        const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
        for (key, v) in sub_entries(graph, value, "limits")? {
            let key = key.to_lossy();
            let name = format!("limits.{key}");
            match key.as_str() {
                "instructions" => {
                    self.instructions =
                        positive_int(v, &name, MAX_SAFE)?.unwrap_or(self.instructions);
                }
                "timeoutMs" => {
                    if let Some(ms) = positive_int(v, &name, 3_600_000.0)? {
                        self.timeout = Duration::from_millis(ms);
                    }
                }
                "maxRecursion" => {
                    if let Some(n) = positive_int(v, &name, 10_000.0)? {
                        self.max_recursion = to_usize(n);
                    }
                }
                "maxStackSize" => {
                    if let Some(n) = positive_int(v, &name, 16_777_216.0)? {
                        self.max_stack_size = to_usize(n);
                    }
                }
                "maxLoopIterations" => {
                    self.max_loop_iterations =
                        positive_int(v, &name, MAX_SAFE)?.or(self.max_loop_iterations);
                }
                "maxSourceLength" => {
                    if let Some(n) = positive_int(v, &name, 1_073_741_824.0)? {
                        self.max_source_length = to_usize(n);
                    }
                }
                "maxCloneDepth" => {
                    if let Some(n) = positive_int(v, &name, 100_000.0)? {
                        self.clone.max_depth = to_usize(n);
                    }
                }
                "maxCloneObjects" => {
                    if let Some(n) = positive_int(v, &name, 100_000_000.0)? {
                        self.clone.max_objects = to_usize(n);
                    }
                }
                "maxCloneBytes" => {
                    if let Some(n) = positive_int(v, &name, 1_073_741_824.0)? {
                        self.clone.max_bytes = to_usize(n);
                    }
                }
                "maxTimers" => {
                    if let Some(n) = positive_int(v, &name, 100_000.0)? {
                        self.platform.timers.max_timers = to_usize(n);
                    }
                }
                "minIntervalMs" => {
                    if let Some(n) = positive_int(v, &name, 60_000.0)? {
                        self.platform.timers.min_interval = Duration::from_millis(n);
                    }
                }
                "clockResolutionMs" => {
                    if let Some(n) = positive_int(v, &name, 60_000.0)? {
                        self.platform.clock_resolution = Duration::from_millis(n);
                    }
                }
                "consolePerSecond" => {
                    if let Some(n) = positive_int(v, &name, 100_000.0)? {
                        self.platform.console_per_second = u32::try_from(n).unwrap_or(u32::MAX);
                    }
                }
                _ => return Err(SandboxError::invalid_option(&name, "is not a known limit")),
            }
        }
        Ok(())
    }
}

impl RealmOptions {
    /// Parses the options bag the host passed to `new Realm(...)`, without `handler`.
    ///
    /// # Errors
    /// `SANDBOX_INVALID_OPTIONS` for unknown keys, wrong types, out-of-range numbers, or a
    /// handler name that is not an identifier or would shadow a guest global.
    pub fn parse(graph: &Graph, has_handler: bool) -> Result<Self> {
        let mut options = RealmOptions {
            allow_code_generation: true,
            ..Self::default()
        };
        for (key, value) in entries(graph, "options")? {
            match key.to_lossy().as_str() {
                "exposeHandlerAs" => match value {
                    Value::Undefined => {}
                    Value::String(Text::Utf8(name)) => {
                        options.expose_handler_as = Some(name.to_string())
                    }
                    _ => {
                        return Err(SandboxError::invalid_option(
                            "exposeHandlerAs",
                            "must be a string",
                        ));
                    }
                },
                "allowCodeGeneration" => match value {
                    Value::Undefined => {}
                    Value::Bool(b) => options.allow_code_generation = *b,
                    _ => {
                        return Err(SandboxError::invalid_option(
                            "allowCodeGeneration",
                            "must be a boolean",
                        ));
                    }
                },
                "limits" => options.limits.apply(graph, value)?,
                "modules" => options.modules = Policy::parse(graph, value)?,
                other => {
                    return Err(SandboxError::invalid_option(other, "is not a known option"));
                }
            }
        }
        if let Some(name) = &options.expose_handler_as {
            if !has_handler {
                return Err(SandboxError::invalid_option(
                    "exposeHandlerAs",
                    "needs a `handler` function",
                ));
            }
            if !is_identifier(name) {
                return Err(SandboxError::invalid_option(
                    "exposeHandlerAs",
                    "must be a JavaScript identifier",
                ));
            }
            if capabilities::is_guest_global(name) {
                return Err(SandboxError::invalid_option(
                    "exposeHandlerAs",
                    format!("would shadow the guest global `{name}`"),
                ));
            }
        }
        Ok(options)
    }
}

impl EvalOptions {
    /// Parses the options bag of one `eval`.
    ///
    /// # Errors
    /// `SANDBOX_INVALID_OPTIONS` for unknown keys or a non-string filename.
    pub fn parse(graph: &Graph) -> Result<Self> {
        let mut options = Self::default();
        for (key, value) in entries(graph, "options")? {
            match key.to_lossy().as_str() {
                "filename" => match value {
                    Value::Undefined => {}
                    Value::String(Text::Utf8(name)) if !name.is_empty() && name.len() <= 2048 => {
                        options.filename = name.to_string();
                    }
                    _ => {
                        return Err(SandboxError::invalid_option(
                            "filename",
                            "must be a non-empty string of at most 2048 bytes",
                        ));
                    }
                },
                other => {
                    return Err(SandboxError::invalid_option(
                        other,
                        "is not a known eval option",
                    ));
                }
            }
        }
        Ok(options)
    }
}

/// ASCII identifier check; guest globals we expose are always ASCII names.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !capabilities::RESERVED_WORDS.contains(&s)
}
