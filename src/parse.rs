//! Every parse of source text goes through here, as UTF-16.
//!
//! Boa's parser is generic over its input, and each crate that calls a generic `parse`
//! compiles its own copy of the whole parser: two UTF-8 copies and Boa's own UTF-16 one
//! (for `eval` and `Function`) made up about 750 KB of the wasm. Patch 14 gives Boa
//! non-generic UTF-16 entry points, so there is one copy. Encoding a source to UTF-16 costs
//! well under 1% of parsing it.

use std::path::Path;

use boa_engine::module::ParsedModule;
use boa_engine::{Context, JsResult, JsValue, Script};

fn utf16(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// Parses `text` as a script of the current realm.
///
/// # Errors
/// A `SyntaxError` for text that is not a script.
pub fn script(text: &str, path: Option<&Path>, context: &mut Context) -> JsResult<Script> {
    Script::parse_utf16(&utf16(text), path, None, context)
}

/// Parses and evaluates `text` as a script: `Context::eval` without its own parser copy.
///
/// # Errors
/// A `SyntaxError`, or what evaluation throws.
pub fn eval(text: &str, path: Option<&Path>, context: &mut Context) -> JsResult<JsValue> {
    script(text, path, context)?.evaluate(context)
}

/// Parses `text` as a module, outside any realm.
///
/// # Errors
/// A `SyntaxError` for text that is not a module.
pub fn module(text: &str) -> JsResult<ParsedModule> {
    ParsedModule::parse_utf16(&utf16(text))
}
