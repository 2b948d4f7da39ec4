//! `JSON.parse` without a reviver: a direct ECMA-404 parser that builds the values.
//!
//! Boa's own checks the text with serde_json, then wraps it in parentheses, parses that as a
//! script, compiles it to bytecode and runs it: every key and string goes through the
//! context's interner, which keeps it for good, and a raw lone surrogate in a string (valid
//! JSON, and accepted by V8) fails the UTF-8 conversion. With a reviver we keep Boa's, which
//! also implements the source-text access the reviver's third argument needs.
//!
//! The parser is iterative (an explicit stack), so nesting depth costs heap, not native stack.
//!
//! Objects get shared shapes, as object literals do: records with the same keys in the same
//! order share one layout, made once and given to each in one step, so later reads of their
//! properties hit the guest's inline caches.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use boa_engine::builtins::object::OrdinaryObject;
use boa_engine::object::DataLayout;
use boa_engine::object::builtins::JsArray;
use boa_engine::object::shape::RootShape;
use boa_engine::string::JsStr;
use boa_engine::{Context, JsNativeError, JsObject, JsResult, JsString, JsValue};
use rustc_hash::FxHashMap;

/// `JSON.parse(text)` with no callable reviver; the caller handles the reviver case.
///
/// # Errors
/// `SyntaxError` for text that is not JSON; whatever `ToString(text)` throws.
pub fn parse(text: &JsValue, context: &mut Context) -> JsResult<JsValue> {
    let text = text.to_string(context)?;
    match text.as_str().variant() {
        boa_engine::string::JsStrVariant::Latin1(units) => Parser::new(units).run(context),
        boa_engine::string::JsStrVariant::Utf16(units) => Parser::new(units).run(context),
    }
}

/// A code unit of the text: Latin-1 bytes or UTF-16 units.
trait Unit: Copy + Eq + std::hash::Hash {
    fn get(self) -> u16;
    /// The units as a string, when they need no unescaping.
    fn string(units: &[Self]) -> JsString;
}

impl Unit for u8 {
    fn get(self) -> u16 {
        u16::from(self)
    }
    fn string(units: &[u8]) -> JsString {
        JsString::from(JsStr::latin1(units))
    }
}

impl Unit for u16 {
    fn get(self) -> u16 {
        self
    }
    fn string(units: &[u16]) -> JsString {
        JsString::from(units)
    }
}

enum Frame {
    Array(Vec<JsValue>),
    Object(Members),
}

/// An object being parsed: its keys so far (the last one's value is being parsed), their
/// ids while every key has one, and the values so far.
#[derive(Default)]
struct Members {
    keys: Vec<JsString>,
    ids: Option<Vec<u32>>,
    values: Vec<JsValue>,
}

impl Members {
    fn new((key, id): (JsString, Option<u32>)) -> Self {
        Self {
            keys: vec![key],
            ids: id.map(|id| vec![id]),
            values: Vec::new(),
        }
    }

    fn push_key(&mut self, (key, id): (JsString, Option<u32>)) {
        self.keys.push(key);
        match (&mut self.ids, id) {
            (Some(ids), Some(id)) => ids.push(id),
            _ => self.ids = None,
        }
    }
}

struct Parser<'a, T> {
    s: &'a [T],
    pos: usize,
    /// Keys seen so far, by their text, with their ids: records repeat their keys, and one
    /// string per key saves an allocation per property (and shape lookups compare the same
    /// string).
    keys: HashMap<&'a [T], (JsString, u32)>,
    /// Layouts by key ids, in order; `None` for keys that cannot share one (a repeated or
    /// index key, or too many).
    layouts: FxHashMap<Vec<u32>, Option<DataLayout>>,
}

/// Distinct keys the cache holds at most; past that, keys are made afresh (and objects with
/// such a key take the generic path).
const MAX_KEYS: usize = 1024;
/// Distinct key lists the layout cache holds at most; past that, new lists take the generic
/// path.
const MAX_LAYOUTS: usize = 256;

fn syntax(message: String) -> boa_engine::JsError {
    JsNativeError::syntax().with_message(message).into()
}

impl<'a, T: Unit> Parser<'a, T> {
    fn new(s: &'a [T]) -> Self {
        Self {
            s,
            pos: 0,
            keys: HashMap::new(),
            layouts: FxHashMap::default(),
        }
    }

    fn peek(&self) -> Option<u16> {
        self.s.get(self.pos).map(|u| u.get())
    }

    fn skip_ws(&mut self) {
        while let Some(0x20 | 0x09 | 0x0A | 0x0D) = self.peek() {
            self.pos += 1;
        }
    }

    /// V8's wording, so a guest sees the messages it would in the browser.
    fn unexpected(&self) -> boa_engine::JsError {
        match self.peek() {
            None => syntax("Unexpected end of JSON input".into()),
            Some(u) => {
                let c = char::from_u32(u32::from(u)).unwrap_or(char::REPLACEMENT_CHARACTER);
                syntax(format!(
                    "Unexpected token '{c}', at position {} is not valid JSON",
                    self.pos
                ))
            }
        }
    }

    fn expect(&mut self, unit: u8) -> JsResult<()> {
        if self.peek() == Some(u16::from(unit)) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn run(mut self, context: &mut Context) -> JsResult<JsValue> {
        let mut stack: Vec<Frame> = Vec::new();
        self.skip_ws();
        'value: loop {
            // One value starts here: a scalar completes at once, a container opens a frame.
            let mut value = match self.peek() {
                Some(0x7B) => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(0x7D) {
                        self.pos += 1;
                        // No keys: the fresh object already has its shape.
                        self.object(Members::default(), context)?.into()
                    } else {
                        let key = self.key()?;
                        stack.push(Frame::Object(Members::new(key)));
                        continue 'value;
                    }
                }
                Some(0x5B) => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(0x5D) {
                        self.pos += 1;
                        JsArray::new(context)?.into()
                    } else {
                        stack.push(Frame::Array(Vec::new()));
                        continue 'value;
                    }
                }
                Some(0x22) => self.string()?.into(),
                Some(0x74) => self.literal(b"true", JsValue::from(true))?,
                Some(0x66) => self.literal(b"false", JsValue::from(false))?,
                Some(0x6E) => self.literal(b"null", JsValue::null())?,
                Some(0x2D | 0x30..=0x39) => self.number()?,
                _ => return Err(self.unexpected()),
            };
            // The value is complete: hand it to the enclosing frames until one wants more.
            loop {
                self.skip_ws();
                match stack.last_mut() {
                    None => {
                        if self.pos < self.s.len() {
                            return Err(syntax(format!(
                                "Unexpected non-whitespace character after JSON at position {}",
                                self.pos
                            )));
                        }
                        return Ok(value);
                    }
                    Some(Frame::Array(items)) => {
                        items.push(value);
                        match self.peek() {
                            Some(0x2C) => {
                                self.pos += 1;
                                self.skip_ws();
                                continue 'value;
                            }
                            Some(0x5D) => {
                                self.pos += 1;
                                let Some(Frame::Array(items)) = stack.pop() else {
                                    unreachable!("the top frame is this array")
                                };
                                value = JsArray::from_iter(items, context).into();
                            }
                            _ => return Err(self.unexpected()),
                        }
                    }
                    Some(Frame::Object(members)) => {
                        members.values.push(value);
                        match self.peek() {
                            Some(0x2C) => {
                                self.pos += 1;
                                self.skip_ws();
                                let key = self.key()?;
                                members.push_key(key);
                                continue 'value;
                            }
                            Some(0x7D) => {
                                self.pos += 1;
                                let Some(Frame::Object(members)) = stack.pop() else {
                                    unreachable!("the top frame is this object")
                                };
                                value = self.object(members, context)?.into();
                            }
                            _ => return Err(self.unexpected()),
                        }
                    }
                }
            }
        }
    }

    /// A complete object. Its properties are what CreateDataProperty would make on a fresh
    /// object, key by key: a repeated key keeps its first place and its last value, and
    /// `__proto__` is an own property. Distinct non-index keys take a layout in one step.
    fn object(&mut self, members: Members, context: &mut Context) -> JsResult<JsObject> {
        let proto = context.intrinsics().constructors().object().prototype();
        let object = JsObject::new(context.root_shape(), proto.clone(), OrdinaryObject).upcast();
        let layout = match members.ids {
            Some(ids) => self.layout(ids, &members.keys, proto, context.root_shape()),
            None => None,
        };
        // `fill` refuses only an object no longer fresh, and hands the values back.
        let refused = match layout {
            Some(layout) => layout.fill(&object, members.values).err(),
            None => Some(members.values),
        };
        for (key, value) in members.keys.into_iter().zip(refused.into_iter().flatten()) {
            object.create_data_property_or_throw(key, value, context)?;
        }
        Ok(object)
    }

    fn layout(
        &mut self,
        ids: Vec<u32>,
        keys: &[JsString],
        proto: JsObject,
        root: &RootShape,
    ) -> Option<&DataLayout> {
        let full = self.layouts.len() >= MAX_LAYOUTS;
        match self.layouts.entry(ids) {
            Entry::Occupied(e) => e.into_mut().as_ref(),
            Entry::Vacant(_) if full => None,
            Entry::Vacant(e) => e.insert(DataLayout::new(root, Some(proto), keys)).as_ref(),
        }
    }

    /// `"key" :` and the whitespace after it, with the key's id when it has one.
    fn key(&mut self) -> JsResult<(JsString, Option<u32>)> {
        if self.peek() != Some(0x22) {
            return Err(self.unexpected());
        }
        let start = self.pos + 1;
        let plain = self.s[start..]
            .iter()
            .position(|u| matches!(u.get(), 0x22 | 0x5C) || u.get() < 0x20)
            .map(|n| start + n)
            .filter(|&end| self.s[end].get() == 0x22);
        let key = match plain {
            Some(end) => {
                let text: &'a [T] = &self.s[start..end];
                self.pos = end + 1;
                if let Some((k, id)) = self.keys.get(text) {
                    (k.clone(), Some(*id))
                } else {
                    let k = T::string(text);
                    let n = self.keys.len();
                    let id = (n < MAX_KEYS).then(|| u32::try_from(n).ok()).flatten();
                    if let Some(id) = id {
                        self.keys.insert(text, (k.clone(), id));
                    }
                    (k, id)
                }
            }
            None => (self.string()?, None),
        };
        self.skip_ws();
        self.expect(b':')?;
        self.skip_ws();
        Ok(key)
    }

    fn literal(&mut self, word: &[u8], value: JsValue) -> JsResult<JsValue> {
        for &b in word {
            self.expect(b)?;
        }
        Ok(value)
    }

    fn number(&mut self) -> JsResult<JsValue> {
        let start = self.pos;
        let digit = |u: Option<u16>| matches!(u, Some(0x30..=0x39));
        if self.peek() == Some(0x2D) {
            self.pos += 1;
        }
        match self.peek() {
            Some(0x30) => self.pos += 1,
            Some(0x31..=0x39) => {
                while digit(self.peek()) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.unexpected()),
        }
        if self.peek() == Some(0x2E) {
            self.pos += 1;
            if !digit(self.peek()) {
                return Err(self.unexpected());
            }
            while digit(self.peek()) {
                self.pos += 1;
            }
        }
        if let Some(0x45 | 0x65) = self.peek() {
            self.pos += 1;
            if let Some(0x2B | 0x2D) = self.peek() {
                self.pos += 1;
            }
            if !digit(self.peek()) {
                return Err(self.unexpected());
            }
            while digit(self.peek()) {
                self.pos += 1;
            }
        }
        // ASCII by construction; Rust's parse rounds correctly, as StringToNumber does.
        let text: String = self.s[start..self.pos]
            .iter()
            .map(|u| char::from(u.get() as u8))
            .collect();
        let n: f64 = text
            .parse()
            .map_err(|_| syntax(format!("Invalid number in JSON at position {start}")))?;
        Ok(JsValue::from(n))
    }

    /// A string token, the opening quote at `pos`.
    fn string(&mut self) -> JsResult<JsString> {
        self.pos += 1;
        let start = self.pos;
        // The common case: no escapes, so the units are the string.
        loop {
            match self.peek() {
                None => return Err(syntax("Unterminated string in JSON".into())),
                Some(0x22) => {
                    let s = T::string(&self.s[start..self.pos]);
                    self.pos += 1;
                    return Ok(s);
                }
                Some(0x5C) => break,
                Some(u) if u < 0x20 => return Err(self.bad_control()),
                Some(_) => self.pos += 1,
            }
        }
        let mut out: Vec<u16> = self.s[start..self.pos].iter().map(|u| u.get()).collect();
        loop {
            match self.peek() {
                None => return Err(syntax("Unterminated string in JSON".into())),
                Some(0x22) => {
                    self.pos += 1;
                    return Ok(JsString::from(&out[..]));
                }
                Some(0x5C) => {
                    self.pos += 1;
                    let escaped = match self.peek() {
                        Some(0x22) => 0x22,
                        Some(0x5C) => 0x5C,
                        Some(0x2F) => 0x2F,
                        Some(0x62) => 0x08,
                        Some(0x66) => 0x0C,
                        Some(0x6E) => 0x0A,
                        Some(0x72) => 0x0D,
                        Some(0x74) => 0x09,
                        Some(0x75) => {
                            let mut unit: u16 = 0;
                            for _ in 0..4 {
                                self.pos += 1;
                                let d = self
                                    .peek()
                                    .and_then(|u| char::from_u32(u32::from(u)))
                                    .and_then(|c| c.to_digit(16))
                                    .ok_or_else(|| {
                                        syntax(format!(
                                            "Bad Unicode escape in JSON at position {}",
                                            self.pos
                                        ))
                                    })?;
                                unit = unit * 16 + d as u16;
                            }
                            unit
                        }
                        _ => {
                            return Err(syntax(format!(
                                "Bad escaped character in JSON at position {}",
                                self.pos
                            )));
                        }
                    };
                    out.push(escaped);
                    self.pos += 1;
                }
                Some(u) if u < 0x20 => return Err(self.bad_control()),
                Some(u) => {
                    out.push(u);
                    self.pos += 1;
                }
            }
        }
    }

    fn bad_control(&self) -> boa_engine::JsError {
        syntax(format!(
            "Bad control character in string literal in JSON at position {}",
            self.pos
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::parse;
    use boa_engine::{Context, JsObject, js_string};

    fn element(array: &JsObject, i: u32, context: &mut Context) -> JsObject {
        array.get(i, context).unwrap().as_object().unwrap().clone()
    }

    fn shape(o: &JsObject) -> (usize, bool) {
        let o = o.borrow();
        (o.shape().to_addr_usize(), o.shape().is_unique())
    }

    /// Parsed records share the shape an object literal with the same keys gets, so the
    /// guest's inline caches serve both; an object past Boa's transition limit is unique,
    /// as Boa would make it.
    #[test]
    fn records_share_the_literal_shape() {
        let mut context = Context::default();
        context.set_instruction_budget(1_000_000, None);
        let text = js_string!(r#"[{"a":1,"b":"x"},{"a":2,"b":"y"},{"b":3,"a":4}]"#);
        let parsed = parse(&text.into(), &mut context).unwrap();
        let array = parsed.as_object().unwrap().clone();
        let literal = crate::parse::eval("({ a: 0, b: '' })", None, &mut context).unwrap();
        let literal = literal.as_object().unwrap().clone();
        let (first, second, swapped) = (
            element(&array, 0, &mut context),
            element(&array, 1, &mut context),
            element(&array, 2, &mut context),
        );
        assert_eq!(shape(&first), shape(&literal));
        assert_eq!(shape(&second), shape(&literal));
        assert!(!shape(&first).1);
        assert_ne!(shape(&swapped).0, shape(&first).0);

        let keys: Vec<String> = (0..1100).map(|i| format!("\"k{i}\":{i}")).collect();
        let text = js_string!(format!("{{{}}}", keys.join(",")).as_str());
        let big = parse(&text.into(), &mut context).unwrap();
        assert!(shape(&big.as_object().unwrap()).1);
    }
}
