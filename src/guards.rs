//! Guards installed over intrinsics whose native code would otherwise allocate without
//! bound before any budget check (the process aborts on a failed allocation).
//!
//! Each guard keeps the builtin's observable behaviour for legal inputs and throws the
//! same catchable `RangeError` V8 throws past its string length limit.

use crate::clone::to_guest::define_hidden;
use boa_engine::object::FunctionObjectBuilder;
use boa_engine::{
    Context, JsNativeError, JsObject, JsResult, JsString, JsValue, NativeFunction, js_string,
};

/// V8's maximum string length, so guest code sees the limit a browser would impose.
pub const MAX_STRING_LENGTH: u64 = (1 << 29) - 24;

/// One guarded builtin: where it lives and why it is guarded.
pub struct Guard {
    /// `String.prototype.<name>`
    pub name: &'static str,
    /// Why the unguarded builtin is unsafe to expose.
    pub reason: &'static str,
}

/// The guarded builtins. Every entry is installed by [`install`].
pub const GUARDS: &[Guard] = &[
    Guard {
        name: "repeat",
        reason: "Boa reserves one 16-byte slot per repetition before checking memory: \
                 'x'.repeat(2**30) aborts the process",
    },
    Guard {
        name: "padStart",
        reason: "allows results up to 2^32-1 units, far past what the worker can allocate",
    },
    Guard {
        name: "padEnd",
        reason: "as padStart",
    },
];

fn too_long() -> boa_engine::JsError {
    JsNativeError::range()
        .with_message("Invalid string length")
        .into()
}

fn this_string(this: &JsValue, context: &mut Context) -> JsResult<JsString> {
    if this.is_null_or_undefined() {
        return Err(JsNativeError::typ()
            .with_message("String.prototype method called on null or undefined")
            .into());
    }
    this.to_string(context)
}

fn repeat(
    this: &JsValue,
    args: &[JsValue],
    _original: &JsObject,
    context: &mut Context,
) -> JsResult<JsValue> {
    let s = this_string(this, context)?;
    let n = args
        .first()
        .cloned()
        .unwrap_or_default()
        .to_integer_or_infinity(context)?;
    let n = match n {
        boa_engine::value::IntegerOrInfinity::Integer(n) if n >= 0 => n as u64,
        _ => {
            return Err(JsNativeError::range()
                .with_message("repeat count must be a finite non-negative number")
                .into());
        }
    };
    if n == 0 || s.is_empty() {
        return Ok(js_string!().into());
    }
    if (s.len() as u64).saturating_mul(n) > MAX_STRING_LENGTH {
        return Err(too_long());
    }
    // Square-and-multiply: O(log n) concatenations, no per-repetition bookkeeping.
    let mut result = js_string!();
    let mut piece = s;
    let mut k = n;
    while k > 0 {
        if k & 1 == 1 {
            result = JsString::concat(result.as_str(), piece.as_str());
        }
        k >>= 1;
        if k > 0 {
            piece = JsString::concat(piece.as_str(), piece.as_str());
        }
    }
    Ok(result.into())
}

fn pad(
    this: &JsValue,
    args: &[JsValue],
    original: &JsObject,
    context: &mut Context,
) -> JsResult<JsValue> {
    let s = this_string(this, context)?;
    let max = args
        .first()
        .cloned()
        .unwrap_or_default()
        .to_length(context)?;
    if max > MAX_STRING_LENGTH && max > s.len() as u64 {
        return Err(too_long());
    }
    let mut rest = vec![JsValue::from(max as f64)];
    rest.extend(args.iter().skip(1).cloned());
    original.call(&s.into(), &rest, context)
}

/// Replaces each guarded builtin on the realm's `String.prototype`.
///
/// # Errors
/// If the intrinsic is missing or cannot be redefined (never for a fresh realm).
pub fn install(context: &mut Context) -> JsResult<()> {
    let proto = context.intrinsics().constructors().string().prototype();
    for guard in GUARDS {
        let key = JsString::from(guard.name);
        let original = proto
            .get(key.clone(), context)?
            .as_object()
            .ok_or_else(|| JsNativeError::typ().with_message("guarded builtin missing"))?
            .clone();
        let body = match guard.name {
            "repeat" => NativeFunction::from_copy_closure_with_captures(repeat, original),
            _ => NativeFunction::from_copy_closure_with_captures(pad, original),
        };
        let function = FunctionObjectBuilder::new(context.realm(), body)
            .name(key.clone())
            .length(1)
            .constructor(false)
            .build();
        define_hidden(&proto, guard.name, function.into(), context)?;
    }
    Ok(())
}
