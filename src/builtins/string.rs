//! Our `String.prototype` search methods, following ECMA-262 step by step over Boa's own
//! string representation, with [`super::search::Finder`] for `StringIndexOf`.

use super::search::{Finder, index_of};
use crate::guards::MAX_STRING_LENGTH;
use boa_engine::object::builtins::{JsArray, JsRegExp};
use boa_engine::string::{JsStr, JsStrVariant};
use boa_engine::{Context, JsArgs, JsNativeError, JsObject, JsResult, JsString, JsSymbol, JsValue};

const EMPTY: JsStr<'static> = JsStr::latin1(&[]);

/// `GetMethod(V, P)` for an object `V`: undefined and null are absent, anything else must
/// be callable.
fn get_method(
    object: &JsObject,
    key: JsSymbol,
    context: &mut Context,
) -> JsResult<Option<JsObject>> {
    let method = object.get(key, context)?;
    if method.is_null_or_undefined() {
        return Ok(None);
    }
    method.as_callable().map(Some).ok_or_else(|| {
        JsNativeError::typ()
            .with_message("value returned for property of object is not a function")
            .into()
    })
}

/// `IsRegExp(argument)`.
fn is_reg_exp(argument: &JsValue, context: &mut Context) -> JsResult<bool> {
    let Some(object) = argument.as_object() else {
        return Ok(false);
    };
    let matcher = object.get(JsSymbol::r#match(), context)?;
    if !matcher.is_undefined() {
        return Ok(matcher.to_boolean());
    }
    Ok(JsRegExp::from_object(object).is_ok())
}

/// `start` of `String.prototype.indexOf`/`includes`: ToIntegerOrInfinity(position) clamped
/// to the string.
fn start_position(position: &JsValue, len: usize, context: &mut Context) -> JsResult<usize> {
    let pos = position.to_integer_or_infinity(context)?;
    Ok(pos.clamp_finite(0, len as i64) as usize)
}

/// `String.prototype.indexOf ( searchString [ , position ] )`
pub(super) fn index_of_method(
    this: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let o = this.require_object_coercible()?;
    let s = o.to_string(context)?;
    let search = args.get_or_undefined(0).to_string(context)?;
    let start = start_position(args.get_or_undefined(1), s.len(), context)?;
    Ok(index_of(s.as_str(), search.as_str(), start)
        .map_or(-1, |i| i as i64)
        .into())
}

/// `String.prototype.includes ( searchString [ , position ] )`
pub(super) fn includes(
    this: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let o = this.require_object_coercible()?;
    let s = o.to_string(context)?;
    let search_value = args.get_or_undefined(0);
    if is_reg_exp(search_value, context)? {
        return Err(JsNativeError::typ()
            .with_message(
                "First argument to String.prototype.includes must not be a regular expression",
            )
            .into());
    }
    let search = search_value.to_string(context)?;
    let start = start_position(args.get_or_undefined(1), s.len(), context)?;
    Ok(index_of(s.as_str(), search.as_str(), start)
        .is_some()
        .into())
}

/// `String.prototype.split ( separator, limit )`
pub(super) fn split(this: &JsValue, args: &[JsValue], context: &mut Context) -> JsResult<JsValue> {
    let o = this.require_object_coercible()?;
    let separator = args.get_or_undefined(0);
    let limit = args.get_or_undefined(1);
    if let Some(object) = separator.as_object()
        && let Some(splitter) = get_method(&object, JsSymbol::split(), context)?
    {
        return splitter.call(separator, &[o.clone(), limit.clone()], context);
    }
    let s = o.to_string(context)?;
    let lim = if limit.is_undefined() {
        u32::MAX
    } else {
        limit.to_u32(context)?
    } as usize;
    let r = separator.to_string(context)?;
    if lim == 0 {
        return Ok(JsArray::new(context)?.into());
    }
    if separator.is_undefined() {
        return Ok(JsArray::from_iter([s.into()], context).into());
    }
    if r.is_empty() {
        // The code units of the first `lim` of them, each as a string.
        let head = lim.min(s.len());
        let units: Vec<JsValue> = match s.as_str().variant() {
            JsStrVariant::Latin1(b) => b[..head]
                .chunks(1)
                .map(|u| JsString::from(JsStr::latin1(u)).into())
                .collect(),
            JsStrVariant::Utf16(w) => w[..head]
                .chunks(1)
                .map(|u| JsString::from(JsStr::utf16(u)).into())
                .collect(),
        };
        return Ok(JsArray::from_iter(units, context).into());
    }
    if s.is_empty() {
        return Ok(JsArray::from_iter([s.into()], context).into());
    }
    let mut substrings: Vec<JsValue> = Vec::new();
    let mut i = 0;
    let mut finder = Finder::new(s.as_str(), r.as_str());
    while let Some(j) = finder.find(i) {
        substrings.push(s.slice(i, j).into());
        if substrings.len() == lim {
            return Ok(JsArray::from_iter(substrings, context).into());
        }
        i = j + r.len();
    }
    substrings.push(s.slice(i, s.len()).into());
    Ok(JsArray::from_iter(substrings, context).into())
}

fn too_long() -> boa_engine::JsError {
    JsNativeError::range()
        .with_message("Invalid string length")
        .into()
}

/// A string under construction: Latin-1 until a unit above U+00FF arrives.
enum Builder {
    Latin1(Vec<u8>),
    Utf16(Vec<u16>),
}

impl Builder {
    fn len(&self) -> usize {
        match self {
            Builder::Latin1(v) => v.len(),
            Builder::Utf16(v) => v.len(),
        }
    }

    /// Appends `piece`; past V8's string length limit this is V8's `RangeError`.
    fn push(&mut self, piece: JsStr<'_>) -> JsResult<()> {
        if (self.len() + piece.len()) as u64 > MAX_STRING_LENGTH {
            return Err(too_long());
        }
        match (&mut *self, piece.variant()) {
            (Builder::Latin1(v), JsStrVariant::Latin1(b)) => v.extend_from_slice(b),
            (Builder::Latin1(v), JsStrVariant::Utf16(w)) => {
                if w.iter().all(|&u| u <= 0xFF) {
                    v.extend(w.iter().map(|&u| u as u8));
                } else {
                    let mut wide: Vec<u16> =
                        Vec::with_capacity(v.capacity().max(v.len() + w.len()));
                    wide.extend(v.iter().map(|&b| u16::from(b)));
                    wide.extend_from_slice(w);
                    *self = Builder::Utf16(wide);
                }
            }
            (Builder::Utf16(v), JsStrVariant::Latin1(b)) => {
                v.extend(b.iter().map(|&b| u16::from(b)))
            }
            (Builder::Utf16(v), JsStrVariant::Utf16(w)) => v.extend_from_slice(w),
        }
        Ok(())
    }

    fn build(self) -> JsString {
        match self {
            Builder::Latin1(v) => JsString::from(JsStr::latin1(&v)),
            Builder::Utf16(v) => JsString::from(&v[..]),
        }
    }
}

/// One piece of a replacement template, as `GetSubstitution` reads it when there are no
/// captures and no named captures (a string search value): only `$$`, `$&`, `` $` `` and
/// `$'` are special; `$1`, `$<name>` and a lone `$` stand for themselves.
enum Piece {
    /// Template units `start..end`, copied as they are.
    Text(usize, usize),
    Dollar,
    Matched,
    Before,
    After,
}

fn parse_template(template: JsStr<'_>) -> Vec<Piece> {
    let unit = |k: usize| template.get(k).unwrap_or(0);
    let mut pieces = Vec::new();
    let mut literal = 0;
    let mut k = 0;
    while k < template.len() {
        if unit(k) == u16::from(b'$') && k + 1 < template.len() {
            let piece = match unit(k + 1) {
                0x24 => Some(Piece::Dollar),
                0x26 => Some(Piece::Matched),
                0x60 => Some(Piece::Before),
                0x27 => Some(Piece::After),
                _ => None,
            };
            if let Some(piece) = piece {
                if literal < k {
                    pieces.push(Piece::Text(literal, k));
                }
                pieces.push(piece);
                k += 2;
                literal = k;
                continue;
            }
        }
        k += 1;
    }
    if literal < template.len() {
        pieces.push(Piece::Text(literal, template.len()));
    }
    pieces
}

/// The length of `replaceAll`'s result for a template, saturating.
fn result_length(pieces: &[Piece], len: usize, matched: usize, positions: &[usize]) -> u64 {
    let kept = (len - positions.len() * matched) as u64;
    positions.iter().fold(kept, |total, &p| {
        pieces.iter().fold(total, |total, piece| {
            let part = match *piece {
                Piece::Text(a, b) => b - a,
                Piece::Dollar => 1,
                Piece::Matched => matched,
                Piece::Before => p,
                Piece::After => len - (p + matched).min(len),
            };
            total.saturating_add(part as u64)
        })
    })
}

/// `String.prototype.replaceAll ( searchValue, replaceValue )`
pub(super) fn replace_all(
    this: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let o = this.require_object_coercible()?;
    let search_value = args.get_or_undefined(0);
    let replace_value = args.get_or_undefined(1);
    if let Some(object) = search_value.as_object() {
        if is_reg_exp(search_value, context)? {
            let flags = object.get(JsString::from("flags"), context)?;
            flags.require_object_coercible()?;
            if !flags.to_string(context)?.contains(b'g') {
                return Err(JsNativeError::typ()
                    .with_message(
                        "String.prototype.replaceAll called with a non-global RegExp argument",
                    )
                    .into());
            }
        }
        if let Some(replacer) = get_method(&object, JsSymbol::replace(), context)? {
            return replacer.call(search_value, &[o.clone(), replace_value.clone()], context);
        }
    }
    let string = o.to_string(context)?;
    let search_string = search_value.to_string(context)?;
    let functional = replace_value.as_callable();
    let template = match functional {
        Some(_) => None,
        None => Some(replace_value.to_string(context)?),
    };
    let search_length = search_string.len();
    let advance_by = search_length.max(1);
    let mut positions = Vec::new();
    let mut finder = Finder::new(string.as_str(), search_string.as_str());
    let mut position = finder.find(0);
    while let Some(p) = position {
        positions.push(p);
        position = finder.find(p + advance_by);
    }
    if positions.is_empty() {
        return Ok(string.into());
    }

    let s = string.as_str();
    let pieces = template.as_ref().map(|t| parse_template(t.as_str()));
    let capacity = match &pieces {
        // The result's length is known before anything is built: refuse it first.
        Some(pieces) => {
            let len = result_length(pieces, s.len(), search_length, &positions);
            if len > MAX_STRING_LENGTH {
                return Err(too_long());
            }
            len as usize
        }
        None => string.len(),
    };
    let mut result = Builder::Latin1(Vec::with_capacity(capacity));
    let mut end_of_last_match = 0;
    for p in positions {
        result.push(s.get(end_of_last_match..p).unwrap_or(EMPTY))?;
        if let Some(f) = &functional {
            let replacement = f
                .call(
                    &JsValue::undefined(),
                    &[
                        search_string.clone().into(),
                        p.into(),
                        string.clone().into(),
                    ],
                    context,
                )?
                .to_string(context)?;
            result.push(replacement.as_str())?;
        } else if let (Some(template), Some(pieces)) = (&template, &pieces) {
            let t = template.as_str();
            for piece in pieces {
                let part = match *piece {
                    Piece::Text(a, b) => t.get(a..b),
                    Piece::Dollar => Some(JsStr::latin1(b"$".as_slice())),
                    Piece::Matched => Some(search_string.as_str()),
                    Piece::Before => s.get(..p),
                    Piece::After => s.get((p + search_length).min(s.len())..),
                };
                result.push(part.unwrap_or(EMPTY))?;
            }
        }
        end_of_last_match = p + search_length;
    }
    if end_of_last_match < s.len() {
        result.push(s.get(end_of_last_match..).unwrap_or(EMPTY))?;
    }
    Ok(result.build().into())
}
