//! Our own implementations of builtins whose Boa versions scale badly, installed over the
//! intrinsics of every realm at creation.
//!
//! Each follows ECMA-262 step by step and is indistinguishable from the builtin it
//! replaces (same `name`, `length`, property attributes, errors; not a constructor); the
//! differential tests (`tests/shared/engine_cases.rs`) hold them to V8's answers and
//! `scripts/test262.sh` runs test262's directories for them.

mod json;
mod search;
mod string;

use crate::clone::to_guest::define_hidden;
use boa_engine::object::FunctionObjectBuilder;
use boa_engine::{Context, JsObject, JsResult, JsString, JsValue, NativeFunction, js_string};

/// One replaced builtin: where it lives and why we replace it.
pub struct Override {
    /// `String.prototype.<name>`
    pub name: &'static str,
    /// Its `length`.
    pub length: usize,
    /// What is wrong with Boa's own.
    pub reason: &'static str,
}

/// The replaced `String.prototype` methods. Every entry is installed by [`install`].
pub const STRING_PROTOTYPE: &[Override] = &[
    Override {
        name: "indexOf",
        length: 1,
        reason: "StringIndexOf walks from 0 to fromIndex before searching: O(position) per call",
    },
    Override {
        name: "includes",
        length: 1,
        reason: "as indexOf",
    },
    Override {
        name: "split",
        length: 2,
        reason: "searches from each separator's end through StringIndexOf: quadratic",
    },
    Override {
        name: "replaceAll",
        length: 2,
        reason: "as split, for a string search value",
    },
];

/// `JSON.parse`, replaced when it has no callable reviver (Boa's serves the reviver case).
pub const JSON_PARSE: Override = Override {
    name: "parse",
    length: 2,
    reason: "runs the text through the script parser, compiler and VM: every key and string \
             stays in the context's interner for good, and a raw lone surrogate is refused",
};

/// Replaces each entry of [`STRING_PROTOTYPE`] on the realm's `String.prototype`, and
/// [`JSON_PARSE`].
///
/// # Errors
/// If a property cannot be redefined (never for a fresh realm).
pub fn install(context: &mut Context) -> JsResult<()> {
    let proto = context.intrinsics().constructors().string().prototype();
    for entry in STRING_PROTOTYPE {
        let body = match entry.name {
            "indexOf" => NativeFunction::from_fn_ptr(string::index_of_method),
            "includes" => NativeFunction::from_fn_ptr(string::includes),
            "split" => NativeFunction::from_fn_ptr(string::split),
            _ => NativeFunction::from_fn_ptr(string::replace_all),
        };
        let function = FunctionObjectBuilder::new(context.realm(), body)
            .name(JsString::from(entry.name))
            .length(entry.length)
            .constructor(false)
            .build();
        define_hidden(&proto, entry.name, function.into(), context)?;
    }
    install_json_parse(context)
}

fn install_json_parse(context: &mut Context) -> JsResult<()> {
    let json = context
        .global_object()
        .get(js_string!("JSON"), context)?
        .as_object()
        .ok_or_else(|| boa_engine::JsNativeError::typ().with_message("no JSON"))?;
    let original = json
        .get(js_string!("parse"), context)?
        .as_object()
        .ok_or_else(|| boa_engine::JsNativeError::typ().with_message("no JSON.parse"))?;
    let body = NativeFunction::from_copy_closure_with_captures(
        |_, args, original: &JsObject, context| {
            let reviver = args.get(1).cloned().unwrap_or_default();
            if reviver.is_callable() {
                return original.call(&JsValue::undefined(), args, context);
            }
            json::parse(&args.first().cloned().unwrap_or_default(), context)
        },
        original,
    );
    let function = FunctionObjectBuilder::new(context.realm(), body)
        .name(JsString::from(JSON_PARSE.name))
        .length(JSON_PARSE.length)
        .constructor(false)
        .build();
    define_hidden(&json, JSON_PARSE.name, function.into(), context)
}
