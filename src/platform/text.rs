//! `atob`/`btoa` (HTML's forgiving base64) and the UTF-8 codec behind `TextEncoder` and
//! `TextDecoder`. Pure functions over guest strings and bytes.

use boa_engine::object::builtins::{JsArrayBuffer, JsTypedArray, JsUint8Array};
use boa_engine::{Context, JsError, JsNativeError, JsResult, JsString, JsValue, js_string};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn invalid_character(context: &mut Context, message: &str) -> JsError {
    let e = JsNativeError::error()
        .with_message(message.to_owned())
        .into_opaque(context);
    let _ = e.set(
        js_string!("name"),
        js_string!("InvalidCharacterError"),
        true,
        context,
    );
    JsError::from_opaque(e.into())
}

/// Standard base64 with padding.
#[must_use]
pub fn encode_base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// HTML's forgiving-base64 decode; `None` where a browser throws.
#[must_use]
pub fn decode_base64(input: &[u16]) -> Option<Vec<u8>> {
    let mut data: Vec<u8> = Vec::with_capacity(input.len());
    for &u in input {
        match u {
            0x09 | 0x0A | 0x0C | 0x0D | 0x20 => {}
            u if u < 0x80 => data.push(u as u8),
            _ => return None,
        }
    }
    if data.len().is_multiple_of(4) {
        if data.ends_with(b"==") {
            data.truncate(data.len() - 2);
        } else if data.ends_with(b"=") {
            data.truncate(data.len() - 1);
        }
    }
    if data.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for c in data {
        let v = ALPHABET.iter().position(|&a| a == c)? as u32;
        buffer = (buffer << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `atob(data)`
pub fn atob(args: &[JsValue], context: &mut Context) -> JsResult<JsValue> {
    let s = args
        .first()
        .cloned()
        .unwrap_or_default()
        .to_string(context)?;
    match decode_base64(&s.to_vec()) {
        Some(bytes) => {
            let units: Vec<u16> = bytes.into_iter().map(u16::from).collect();
            Ok(JsString::from(units.as_slice()).into())
        }
        None => Err(invalid_character(
            context,
            "The string to be decoded is not correctly encoded.",
        )),
    }
}

/// `btoa(data)`
pub fn btoa(args: &[JsValue], context: &mut Context) -> JsResult<JsValue> {
    let s = args
        .first()
        .cloned()
        .unwrap_or_default()
        .to_string(context)?;
    let mut bytes = Vec::with_capacity(s.len());
    for u in s.iter() {
        if u > 0xFF {
            return Err(invalid_character(
                context,
                "The string to be encoded contains characters outside of the Latin1 range.",
            ));
        }
        bytes.push(u as u8);
    }
    Ok(JsString::from(encode_base64(&bytes).as_str()).into())
}

/// UTF-8 bytes of a JS string; lone surrogates become U+FFFD, as `TextEncoder` does.
#[must_use]
pub fn utf8_encode(s: &JsString) -> Vec<u8> {
    String::from_utf16_lossy(&s.to_vec()).into_bytes()
}

/// The bytes viewed by a `BufferSource` (ArrayBuffer or any view).
///
/// # Errors
/// A guest `TypeError` for anything else.
pub fn buffer_source(value: &JsValue, context: &mut Context) -> JsResult<Vec<u8>> {
    let Some(o) = value.as_object() else {
        if value.is_undefined() {
            return Ok(Vec::new());
        }
        return Err(JsNativeError::typ()
            .with_message("expected an ArrayBuffer or a view of one")
            .into());
    };
    if let Ok(buffer) = JsArrayBuffer::from_object(o.clone()) {
        return Ok(buffer.to_vec().unwrap_or_default());
    }
    let (buffer, offset, len) = if let Ok(ta) = JsTypedArray::from_object(o.clone()) {
        (
            ta.buffer(context)?,
            ta.byte_offset(context)?,
            ta.byte_length(context)?,
        )
    } else if let Ok(dv) = boa_engine::object::builtins::JsDataView::from_object(o.clone()) {
        (
            dv.buffer(context)?,
            usize::try_from(dv.byte_offset(context)?).unwrap_or(0),
            usize::try_from(dv.byte_length(context)?).unwrap_or(0),
        )
    } else {
        return Err(JsNativeError::typ()
            .with_message("expected an ArrayBuffer or a view of one")
            .into());
    };
    let bytes = buffer
        .as_object()
        .and_then(|b| JsArrayBuffer::from_object(b.clone()).ok())
        .and_then(|b| b.to_vec())
        .unwrap_or_default();
    Ok(bytes
        .get(offset..offset + len)
        .map(<[u8]>::to_vec)
        .unwrap_or_default())
}

/// `encode(string) → Uint8Array`, the native behind `TextEncoder.prototype.encode`.
pub fn encode(args: &[JsValue], context: &mut Context) -> JsResult<JsValue> {
    let s = args
        .first()
        .cloned()
        .unwrap_or_default()
        .to_string(context)?;
    let bytes = utf8_encode(&s);
    Ok(JsUint8Array::from_iter(bytes, context)?.into())
}

/// `decode(bytes, fatal, ignoreBOM) → string`, the native behind `TextDecoder.prototype.decode`.
pub fn decode(args: &[JsValue], context: &mut Context) -> JsResult<JsValue> {
    let bytes = buffer_source(&args.first().cloned().unwrap_or_default(), context)?;
    let fatal = args.get(1).is_some_and(JsValue::to_boolean);
    let ignore_bom = args.get(2).is_some_and(JsValue::to_boolean);
    let body = if !ignore_bom && bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        &bytes[3..]
    } else {
        &bytes[..]
    };
    let text = if fatal {
        match std::str::from_utf8(body) {
            Ok(s) => s.to_owned(),
            Err(_) => {
                return Err(JsNativeError::typ()
                    .with_message("The encoded data was not valid UTF-8.")
                    .into());
            }
        }
    } else {
        String::from_utf8_lossy(body).into_owned()
    };
    Ok(JsString::from(text.as_str()).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_forgives_like_browsers() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"\xff\x00", "/wA="),
        ] {
            assert_eq!(encode_base64(bytes), text);
            let units: Vec<u16> = text.encode_utf16().collect();
            assert_eq!(decode_base64(&units).as_deref(), Some(bytes));
        }
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        assert_eq!(
            decode_base64(&units(" Zm 9v\n")).as_deref(),
            Some(&b"foo"[..])
        );
        assert_eq!(decode_base64(&units("Zm8")).as_deref(), Some(&b"fo"[..]));
        assert_eq!(decode_base64(&units("Z")), None);
        assert_eq!(decode_base64(&units("Zm9v!")), None);
        assert_eq!(decode_base64(&units("Zg=")), None);
    }
}
