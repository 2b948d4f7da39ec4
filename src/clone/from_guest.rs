//! Guest values → Graph, following HTML's StructuredSerialize.
//!
//! Invariants:
//! - no engine object survives: the output is plain Rust data;
//! - traversal is iterative (an explicit work list), so nesting never grows the native stack;
//! - depth, object count and byte size are capped before anything is allocated for them;
//! - guest getters run (as in HTML), under the caller's instruction budget and deadline.

use boa_engine::builtins::error::Error as ErrorData;
use boa_engine::builtins::object::OrdinaryObject;
use boa_engine::builtins::proxy::Proxy;
use boa_engine::builtins::typed_array::TypedArrayKind;
use boa_engine::object::builtins::{
    JsArray, JsArrayBuffer, JsDataView, JsDate, JsMap, JsRegExp, JsSet, JsTypedArray,
};
use boa_engine::object::shape::Shape;
use boa_engine::object::{IndexPropertyValues, PropertyMap};
use boa_engine::property::{PropertyDescriptor, PropertyKey};
use boa_engine::string::JsStrVariant;
use boa_engine::{Context, JsError, JsObject, JsString, JsValue, JsVariant, js_string};
use rustc_hash::FxHashMap;
use std::rc::Rc;

use crate::error::{Limit, SandboxError};
use crate::value::{
    At, CloneLimits, ErrorName, Graph, ObjId, Object, Path, Seg, Text, Value, ViewKind,
};

/// Intrinsics captured before any guest code ran, so the guest cannot swap them.
#[derive(Clone)]
pub struct Captured {
    /// The getter of `Error.prototype.stack`.
    pub error_stack_getter: Option<JsObject>,
    /// The getter of `RegExp.prototype.unicodeSets` (JsRegExp has no accessor for `v`).
    pub regexp_unicode_sets: Option<JsObject>,
    /// The realm's module state, to recognise its trusted-export tokens by identity.
    pub modules: Option<std::rc::Rc<crate::modules::loader::Modules>>,
}

/// Why a conversion out of the guest failed.
#[derive(Debug)]
pub enum CloneError {
    /// A typed boundary error (not cloneable, over a cap).
    Boundary(SandboxError),
    /// The guest threw (a getter) or a limit stopped it; propagate as-is.
    Guest(JsError),
}

impl From<JsError> for CloneError {
    fn from(e: JsError) -> Self {
        CloneError::Guest(e)
    }
}

type Result<T> = std::result::Result<T, CloneError>;

/// A shape's key names, when its objects can be read by their values alone.
type KeyNames = Option<Rc<[Text]>>;

struct Task {
    object: JsObject,
    id: ObjId,
    kind: Kind,
    path: Path,
}

enum Kind {
    Plain,
    Array,
    Map,
    Set,
    Error,
}

struct Walker<'a> {
    context: &'a mut Context,
    captured: &'a Captured,
    limits: CloneLimits,
    graph: Graph,
    seen: FxHashMap<JsObject, ObjId>,
    tasks: Vec<Task>,
    bytes: usize,
    /// Shared shapes read so far, held so their addresses stay theirs: the key names when
    /// every property is an enumerable string-keyed data property, else `None`.
    shapes: FxHashMap<usize, (Shape, KeyNames)>,
}

/// Converts a guest value to a boundary graph.
///
/// # Errors
/// [`CloneError::Boundary`] with `SANDBOX_NOT_CLONEABLE` and the path for functions,
/// symbols, proxies, promises, weak collections and other exotic objects, or
/// `SANDBOX_LIMIT_EXCEEDED` for depth, count and size caps; [`CloneError::Guest`] when a
/// guest getter throws or a limit stops it.
pub fn from_guest(
    value: &JsValue,
    captured: &Captured,
    limits: CloneLimits,
    context: &mut Context,
) -> Result<Graph> {
    let mut walker = Walker {
        context,
        captured,
        limits,
        graph: Graph::undefined(),
        seen: FxHashMap::default(),
        tasks: Vec::new(),
        bytes: 0,
        shapes: FxHashMap::default(),
    };
    let root = walker.value(value, At::here(&Path::root()))?;
    while let Some(task) = walker.tasks.pop() {
        walker.fill(task)?;
    }
    walker.graph.root = root;
    Ok(walker.graph)
}

fn boundary(e: SandboxError) -> CloneError {
    CloneError::Boundary(e)
}

impl Walker<'_> {
    fn charge(&mut self, bytes: usize, at: At<'_>) -> Result<()> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.limits.max_bytes {
            let mut e = SandboxError::limit(
                Limit::CloneBytes,
                format!(
                    "value at {} makes the clone larger than maxCloneBytes ({})",
                    at.render(),
                    self.limits.max_bytes
                ),
            );
            e.details.path = Some(at.render());
            return Err(boundary(e));
        }
        Ok(())
    }

    fn value(&mut self, value: &JsValue, at: At<'_>) -> Result<Value> {
        self.charge(8, at)?;
        Ok(match value.variant() {
            JsVariant::Undefined => Value::Undefined,
            JsVariant::Null => Value::Null,
            JsVariant::Boolean(b) => Value::Bool(b),
            JsVariant::Integer32(i) => Value::Number(f64::from(i)),
            JsVariant::Float64(f) => Value::Number(f),
            JsVariant::BigInt(b) => {
                let s = b.to_string();
                self.charge(s.len(), at)?;
                Value::BigInt(s)
            }
            JsVariant::String(s) => {
                self.charge(s.len() * 2, at)?;
                Value::String(text(&s))
            }
            JsVariant::Symbol(_) => {
                return Err(boundary(SandboxError::not_cloneable(
                    &at.render(),
                    "symbol",
                )));
            }
            JsVariant::Object(o) => Value::Object(self.object(&o, at)?),
        })
    }

    fn object(&mut self, o: &JsObject, at: At<'_>) -> Result<ObjId> {
        if let Some(id) = self.seen.get(o) {
            return Ok(*id);
        }
        if at.depth() > self.limits.max_depth {
            let mut e = SandboxError::limit(
                Limit::CloneDepth,
                format!(
                    "value at {} is nested deeper than maxCloneDepth ({})",
                    at.render(),
                    self.limits.max_depth
                ),
            );
            e.details.path = Some(at.render());
            return Err(boundary(e));
        }
        if self.graph.objects.len() >= self.limits.max_objects {
            let mut e = SandboxError::limit(
                Limit::CloneObjects,
                format!(
                    "value at {} has more objects than maxCloneObjects ({})",
                    at.render(),
                    self.limits.max_objects
                ),
            );
            e.details.path = Some(at.render());
            return Err(boundary(e));
        }
        // Invariant: a token is recognised only by identity, and only this realm's own; a
        // look-alike or another compartment's token is ordinary data.
        if let Some((module, export)) = self.captured.modules.as_ref().and_then(|m| m.token_of(o)) {
            return Ok(self.reserve(o, Object::Token { module, export }));
        }
        let refuse = |what: &str| Err(boundary(SandboxError::not_cloneable(&at.render(), what)));
        // Proxies first: a Proxy is neither its target's kind nor safe to introspect. (By
        // type: `JsProxy::from_object` builds and drops an error for every other object.)
        if o.is::<Proxy>() {
            return refuse("Proxy");
        }
        if o.is_callable() {
            return refuse("function");
        }
        let (object, kind) = if o.is::<OrdinaryObject>() {
            (Object::Plain(Vec::new()), Some(Kind::Plain))
        } else if o.is_array() {
            (
                Object::Array {
                    // Read with the elements, in `fill`.
                    length: 0,
                    elements: Vec::new(),
                    extra: Vec::new(),
                },
                Some(Kind::Array),
            )
        } else if JsMap::from_object(o.clone()).is_ok() {
            (Object::Map(Vec::new()), Some(Kind::Map))
        } else if JsSet::from_object(o.clone()).is_ok() {
            (Object::Set(Vec::new()), Some(Kind::Set))
        } else if let Ok(date) = JsDate::from_object(o.clone()) {
            let t = date.get_time(self.context)?.as_number().unwrap_or(f64::NAN);
            (Object::Date(t), None)
        } else if let Ok(re) = JsRegExp::from_object(o.clone()) {
            // Boa's `source` cannot represent a lone surrogate as a String and fails with an
            // engine panic error, which would end the realm: refuse the value instead.
            let Ok(source) = re.source(self.context) else {
                return refuse("RegExp whose source has a lone surrogate");
            };
            // Boa's EscapeRegExpPattern turns every `/` into `\/`, even an escaped one, so
            // `/\//` would leave as `\\/` (a backslash, then a slash). Every `/` in its output
            // follows exactly the backslash it added; dropping those gives back the guest's
            // pattern as far as `/` goes (`/` and `\/` match the same in every mode).
            let source = source.replace("\\/", "/");
            let flags = self.regexp_flags(&re, o)?;
            self.charge(source.len() + flags.len(), at)?;
            (
                Object::RegExp {
                    source: Text::Utf8(source.into()),
                    flags,
                },
                None,
            )
        } else if o.is::<ErrorData>() {
            (
                Object::Error {
                    name: ErrorName::Error,
                    message: None,
                    stack: None,
                    cause: None,
                },
                Some(Kind::Error),
            )
        } else if let Ok(buffer) = JsArrayBuffer::from_object(o.clone()) {
            let Some(bytes) = buffer.to_vec() else {
                return refuse("detached ArrayBuffer");
            };
            self.charge(bytes.len(), at)?;
            (Object::ArrayBuffer(bytes), None)
        } else if let Ok(ta) = JsTypedArray::from_object(o.clone()) {
            let Some(kind) = ta.kind().and_then(view_kind) else {
                return refuse("typed array of an unsupported kind");
            };
            let buffer = ta.buffer(self.context)?;
            let byte_offset = ta.byte_offset(self.context)?;
            let length = ta.length(self.context)?;
            let id = self.reserve(o, Object::Plain(Vec::new()));
            let buffer = self.buffer_id(&buffer, at)?;
            self.graph.objects[id.0 as usize] = Object::View {
                kind,
                buffer,
                byte_offset,
                length,
            };
            return Ok(id);
        } else if let Ok(dv) = JsDataView::from_object(o.clone()) {
            let buffer = dv.buffer(self.context)?;
            let byte_offset = usize::try_from(dv.byte_offset(self.context)?).unwrap_or(usize::MAX);
            let length = usize::try_from(dv.byte_length(self.context)?).unwrap_or(usize::MAX);
            let id = self.reserve(o, Object::Plain(Vec::new()));
            let buffer = self.buffer_id(&buffer, at)?;
            self.graph.objects[id.0 as usize] = Object::View {
                kind: ViewKind::DataView,
                buffer,
                byte_offset,
                length,
            };
            return Ok(id);
        } else if let Some(b) = o.downcast_ref::<bool>().map(|b| *b) {
            (Object::BooleanObject(b), None)
        } else if let Some(n) = o.downcast_ref::<f64>().map(|n| *n) {
            (Object::NumberObject(n), None)
        } else if let Some(s) = o.downcast_ref::<JsString>().map(|s| s.clone()) {
            self.charge(s.len() * 2, at)?;
            (Object::StringObject(text(&s)), None)
        } else if let Some(b) = o
            .downcast_ref::<boa_engine::JsBigInt>()
            .map(|b| b.to_string())
        {
            (Object::BigIntObject(b), None)
        } else {
            return refuse(&exotic_name(o));
        };
        let id = self.reserve(o, object);
        if let Some(kind) = kind {
            self.tasks.push(Task {
                object: o.clone(),
                id,
                kind,
                path: at.path(),
            });
        }
        Ok(id)
    }

    /// The flags from the internal slot, never through `get flags` (which reads the guest's
    /// own, patchable accessors), as HTML's serializer does.
    fn regexp_flags(&mut self, re: &JsRegExp, o: &JsObject) -> Result<String> {
        let ctx = &mut *self.context;
        let v = match &self.captured.regexp_unicode_sets {
            Some(getter) => getter.call(&o.clone().into(), &[], ctx)?.to_boolean(),
            None => false,
        };
        let mut flags = String::new();
        for (on, c) in [
            (re.has_indices(ctx)?, 'd'),
            (re.global(ctx)?, 'g'),
            (re.ignore_case(ctx)?, 'i'),
            (re.multiline(ctx)?, 'm'),
            (re.dot_all(ctx)?, 's'),
            (re.unicode(ctx)?, 'u'),
            (v, 'v'),
            (re.sticky(ctx)?, 'y'),
        ] {
            if on {
                flags.push(c);
            }
        }
        Ok(flags)
    }

    fn reserve(&mut self, o: &JsObject, object: Object) -> ObjId {
        let id = self.graph.push(object);
        self.seen.insert(o.clone(), id);
        id
    }

    fn buffer_id(&mut self, buffer: &JsValue, at: At<'_>) -> Result<ObjId> {
        match buffer.as_object() {
            Some(b) if JsArrayBuffer::from_object(b.clone()).is_ok() => {
                let view = at.path();
                self.object(&b, At::below(&view, Seg::Name("buffer")))
            }
            _ => Err(boundary(SandboxError::not_cloneable(
                &at.render(),
                "view over a SharedArrayBuffer",
            ))),
        }
    }

    /// A plain object whose shared shape holds only enumerable string-keyed data
    /// properties: its entries, from the shape's key names (made once per shape) and its
    /// stored values. `None` for any other object, which takes the generic path.
    fn entries_by_shape(
        &mut self,
        o: &JsObject,
        path: &Path,
    ) -> Result<Option<Vec<(Text, Value)>>> {
        let (keys, values) = {
            let object = o.borrow();
            let properties = object.properties();
            let Some((shape, values)) = properties.shape_and_values() else {
                return Ok(None);
            };
            if !shape.is_shared() {
                return Ok(None);
            }
            let keys = match self.shapes.get(&shape.to_addr_usize()) {
                Some((_, keys)) => keys.clone(),
                None => {
                    let keys = data_keys(properties, values.len())
                        .map(|keys| keys.iter().map(key_text).collect::<Rc<[Text]>>());
                    self.shapes
                        .insert(shape.to_addr_usize(), (shape.clone(), keys.clone()));
                    keys
                }
            };
            let Some(keys) = keys else {
                return Ok(None);
            };
            (keys, values.to_vec())
        };
        let mut entries = Vec::with_capacity(keys.len());
        for (name, v) in keys.iter().zip(values) {
            self.charge(name.byte_len(), At::here(path))?;
            let v = self.value(&v, At::below(path, Seg::Key(name)))?;
            entries.push((name.clone(), v));
        }
        Ok(Some(entries))
    }

    /// The entries' values, as HTML reads them: "if ! HasOwnProperty(value, key), let v be ?
    /// Get(value, key)". Until a getter runs, no guest code has, so the values read with the
    /// keys still stand; after one, each property is read again (a getter may have deleted
    /// or changed it), and only an accessor runs guest code.
    fn own_values(
        &mut self,
        o: &JsObject,
        entries: Vec<(PropertyKey, Option<JsValue>)>,
    ) -> Result<Vec<(PropertyKey, JsValue)>> {
        let mut getter_ran = false;
        let mut out = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            let value = match value {
                Some(v) if !getter_ran => v,
                _ => {
                    getter_ran = true;
                    let descriptor = o.borrow().properties().get(&key);
                    match descriptor {
                        None => continue,
                        Some(d) if d.is_data_descriptor() => d.value().cloned().unwrap_or_default(),
                        Some(_) => o.get(key.clone(), self.context)?,
                    }
                }
            };
            out.push((key, value));
        }
        Ok(out)
    }

    fn fill(&mut self, task: Task) -> Result<()> {
        let Task {
            object: o,
            id,
            kind,
            path,
        } = task;
        let filled = match kind {
            Kind::Plain => {
                if let Some(entries) = self.entries_by_shape(&o, &path)? {
                    self.graph.objects[id.0 as usize] = Object::Plain(entries);
                    return Ok(());
                }
                let keys = enumerable_entries(&o);
                let mut entries = Vec::with_capacity(keys.len());
                for (key, v) in self.own_values(&o, keys)? {
                    let name = key_text(&key);
                    self.charge(name.byte_len(), At::here(&path))?;
                    let v = self.value(&v, At::below(&path, Seg::Key(&name)))?;
                    entries.push((name, v));
                }
                Object::Plain(entries)
            }
            Kind::Array => {
                // As HTML reads it: when the array is serialized, with its elements (a getter
                // that ran since the array was reached may have changed it).
                let length = array_length(&o, self.context);
                if let Some(values) = dense_elements(&o) {
                    let mut elements = Vec::with_capacity(values.len());
                    for (i, v) in (0..).zip(values) {
                        elements.push((i, self.value(&v, At::below(&path, Seg::Index(i)))?));
                    }
                    self.graph.objects[id.0 as usize] = Object::Array {
                        length,
                        elements,
                        extra: Vec::new(),
                    };
                    return Ok(());
                }
                let keys = enumerable_entries(&o);
                let mut elements = Vec::with_capacity(keys.len());
                let mut extra = Vec::new();
                for (key, v) in self.own_values(&o, keys)? {
                    if let PropertyKey::Index(i) = &key {
                        let i = i.get();
                        elements.push((i, self.value(&v, At::below(&path, Seg::Index(i)))?));
                        continue;
                    }
                    let name = key_text(&key);
                    let v = self.value(&v, At::below(&path, Seg::Key(&name)))?;
                    self.charge(name.byte_len(), At::here(&path))?;
                    extra.push((name, v));
                }
                Object::Array {
                    length,
                    elements,
                    extra,
                }
            }
            Kind::Map => {
                let map = JsMap::from_object(o.clone())?;
                let mut raw = Vec::new();
                map.for_each_native(|k, v| {
                    raw.push((k, v));
                    Ok(())
                })?;
                let mut entries = Vec::with_capacity(raw.len());
                for (i, (k, v)) in raw.into_iter().enumerate() {
                    let k = self.value(&k, At::below(&path, Seg::Entry(i, "key")))?;
                    let v = self.value(&v, At::below(&path, Seg::Entry(i, "value")))?;
                    entries.push((k, v));
                }
                Object::Map(entries)
            }
            Kind::Set => {
                let set = JsSet::from_object(o.clone())
                    .map_err(|_| boundary(SandboxError::not_cloneable(&path.render(), "Set")))?;
                let mut raw = Vec::new();
                set.for_each_native(|v| {
                    raw.push(v);
                    Ok(())
                })?;
                let mut values = Vec::with_capacity(raw.len());
                for (i, v) in raw.into_iter().enumerate() {
                    values.push(self.value(&v, At::below(&path, Seg::Entry(i, "value")))?);
                }
                Object::Set(values)
            }
            Kind::Error => self.error(&o, &path)?,
        };
        self.graph.objects[id.0 as usize] = filled;
        Ok(())
    }

    fn error(&mut self, o: &JsObject, path: &Path) -> Result<Object> {
        let name = o.get(js_string!("name"), self.context)?;
        let name = match name.as_string() {
            Some(s) => ErrorName::from_name(&s.to_std_string_lossy()),
            None => ErrorName::Error,
        };
        let message = if o.has_own_property(js_string!("message"), self.context)? {
            let m = o.get(js_string!("message"), self.context)?;
            let m = m.to_string(self.context)?;
            self.charge(m.len() * 2, At::here(path))?;
            Some(text(&m))
        } else {
            None
        };
        let stack = if o.has_own_property(js_string!("stack"), self.context)? {
            o.get(js_string!("stack"), self.context)?
        } else if let Some(getter) = &self.captured.error_stack_getter {
            getter.call(&o.clone().into(), &[], self.context)?
        } else {
            JsValue::undefined()
        };
        let stack = match stack.as_string() {
            Some(s) => {
                self.charge(s.len() * 2, At::here(path))?;
                Some(text(&s))
            }
            None => None,
        };
        let cause = if o.has_own_property(js_string!("cause"), self.context)? {
            let c = o.get(js_string!("cause"), self.context)?;
            Some(self.value(&c, At::below(path, Seg::Name("cause")))?)
        } else {
            None
        };
        Ok(Object::Error {
            name,
            message,
            stack,
            cause,
        })
    }
}

/// Own enumerable string-keyed properties, in [[OwnPropertyKeys]] order, each with its
/// value when it is a data property (`None`: an accessor). Only for ordinary objects and
/// arrays (a proxy is refused before this): their own keys are their property map's, so
/// the map is read directly (indices ascending, then strings in creation order) and no
/// guest code runs here.
pub(crate) fn enumerable_entries(o: &JsObject) -> Vec<(PropertyKey, Option<JsValue>)> {
    let object = o.borrow();
    let properties = object.properties();
    let mut indexed: Vec<(u32, PropertyDescriptor)> = properties.index_properties().collect();
    // Dense storage iterates in order; a sparse map does not.
    if !indexed.is_sorted_by_key(|(i, _)| *i) {
        indexed.sort_unstable_by_key(|(i, _)| *i);
    }
    let indexed = indexed.into_iter().map(|(i, d)| (PropertyKey::from(i), d));
    indexed
        .chain(properties.string_properties())
        .filter(|(_, d)| d.enumerable() == Some(true))
        .map(|(key, d)| {
            let value = d
                .is_data_descriptor()
                .then(|| d.value().cloned().unwrap_or_default());
            (key, value)
        })
        .collect()
}

/// An array's elements, when they are all its own enumerable properties: dense storage
/// (indices `0..n`, each a plain data property) and no keyed property but `length`.
/// `None` for any other array, which takes the generic path.
pub(crate) fn dense_elements(o: &JsObject) -> Option<Vec<JsValue>> {
    let mut values = Vec::new();
    dense_elements_into(o, &mut values).then_some(values)
}

/// [`dense_elements`] into `out` (cleared first), so a caller can reuse one buffer;
/// whether the array was dense.
pub(crate) fn dense_elements_into(o: &JsObject, out: &mut Vec<JsValue>) -> bool {
    out.clear();
    let object = o.borrow();
    let properties = object.properties();
    if properties.stored_values().len() != 1 {
        return false;
    }
    // Read from the storage itself: the iterator's items are full property descriptors.
    match properties.index_property_values() {
        IndexPropertyValues::DenseI32(values) => out.extend(values.map(|&i| JsValue::from(i))),
        IndexPropertyValues::DenseF64(values) => out.extend(values.map(|&f| JsValue::from(f))),
        IndexPropertyValues::DenseElement(values) => out.extend(values.cloned()),
        IndexPropertyValues::SparseProperty(_) | IndexPropertyValues::SparseElement(_) => {
            return false;
        }
    }
    true
}

/// An array's `length`: its own data property, never an accessor, so read where it is
/// stored (in the template's slot for most arrays, without a lookup).
pub(crate) fn array_length(o: &JsObject, context: &Context) -> u32 {
    if let Some(length) = JsArray::template_length(o, context) {
        return length;
    }
    o.borrow()
        .properties()
        .get(&js_string!("length").into())
        .and_then(|d| d.value().and_then(JsValue::as_number))
        .unwrap_or(0.0) as u32
}

/// The keys of a shape whose properties are all enumerable string-keyed data properties,
/// `stored` values in all (so its objects can be read by their stored values alone);
/// `None` for any other.
pub(crate) fn data_keys(properties: &PropertyMap, stored: usize) -> Option<Vec<PropertyKey>> {
    let named = properties.string_properties();
    let plain = named.len() == stored
        && named
            .iter()
            .all(|(_, d)| d.enumerable() == Some(true) && d.is_data_descriptor());
    plain.then(|| named.into_iter().map(|(k, _)| k).collect())
}

fn key_text(key: &PropertyKey) -> Text {
    match key {
        PropertyKey::String(s) => text(s),
        PropertyKey::Index(i) => Text::Utf8(i.get().to_string().into()),
        PropertyKey::Symbol(_) => Text::Utf8("".into()),
    }
}

/// Boundary text from a JS string, keeping lone surrogates.
pub fn text(s: &JsString) -> Text {
    // Most text is ASCII held as Latin-1: one copy, no per-character decoding.
    if let JsStrVariant::Latin1(bytes) = s.as_str().variant()
        && bytes.is_ascii()
        && let Ok(ascii) = std::str::from_utf8(bytes)
    {
        return Text::Utf8(ascii.into());
    }
    match s.to_std_string() {
        Ok(s) => Text::Utf8(s.into()),
        Err(_) => Text::Utf16(s.to_vec()),
    }
}

fn view_kind(kind: TypedArrayKind) -> Option<ViewKind> {
    Some(match kind {
        TypedArrayKind::Int8 => ViewKind::Int8,
        TypedArrayKind::Uint8 => ViewKind::Uint8,
        TypedArrayKind::Uint8Clamped => ViewKind::Uint8Clamped,
        TypedArrayKind::Int16 => ViewKind::Int16,
        TypedArrayKind::Uint16 => ViewKind::Uint16,
        TypedArrayKind::Int32 => ViewKind::Int32,
        TypedArrayKind::Uint32 => ViewKind::Uint32,
        TypedArrayKind::Float32 => ViewKind::Float32,
        TypedArrayKind::Float64 => ViewKind::Float64,
        TypedArrayKind::BigInt64 => ViewKind::BigInt64,
        TypedArrayKind::BigUint64 => ViewKind::BigUint64,
        #[allow(unreachable_patterns)]
        _ => return None,
    })
}

/// A name for a refused object, for the error's `value_type`.
fn exotic_name(o: &JsObject) -> String {
    use boa_engine::builtins::promise::Promise;
    use boa_engine::object::builtins::{JsWeakMap, JsWeakSet};
    if o.is::<Promise>() {
        "Promise".into()
    } else if JsWeakMap::from_object(o.clone()).is_ok() {
        "WeakMap".into()
    } else if JsWeakSet::from_object(o.clone()).is_ok() {
        "WeakSet".into()
    } else if o.downcast_ref::<boa_engine::JsSymbol>().is_some() {
        "Symbol object".into()
    } else {
        "exotic object".into()
    }
}
