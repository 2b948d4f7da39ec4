//! Graph → guest values, built from the guest realm's intrinsics.
//!
//! Invariant: properties are defined with CreateDataProperty and collections are filled
//! through the intrinsic methods, never through `[[Set]]` or a method lookup, so guest
//! setters on `Object.prototype` or a patched `Map.prototype.set` never run here.

use boa_engine::builtins::object::OrdinaryObject;
use boa_engine::object::DataLayout;
use boa_engine::object::builtins::{
    AlignedVec, JsArray, JsArrayBuffer, JsDate, JsMap, JsRegExp, JsSet,
};
use boa_engine::property::PropertyDescriptor;
use rustc_hash::FxHashMap;

use boa_engine::{
    Context, JsBigInt, JsError, JsNativeError, JsObject, JsResult, JsString, JsValue, js_string,
};

use super::Emptied;
use crate::value::{ErrorName, Graph, KeyIds, Object, Text, Value, ViewKind};

/// Builds `graph` inside the realm of `context`.
///
/// # Errors
/// A guest `TypeError`/`RangeError` if the graph is malformed (bad ids, views out of
/// bounds) or an allocation is refused by the engine.
pub fn to_guest(graph: &Graph, context: &mut Context) -> JsResult<JsValue> {
    let shells = build(graph, None, context)?;
    converted(&graph.root, &shells, context)
}

/// Builds `graph`, whose root is an array, inside the realm of `context` as an argument
/// list: its elements, in order. An array of only its elements, which nothing else in the
/// graph refers to (every call's arguments), is never made in the guest: only its elements
/// are.
///
/// # Errors
/// As [`to_guest`]; a guest `TypeError` if the root is an object but not an array.
pub fn to_guest_args(graph: &Graph, context: &mut Context) -> JsResult<Vec<JsValue>> {
    if let Some((id, elements)) = argument_list(graph) {
        let shells = build(graph, Some(id), context)?;
        return elements
            .iter()
            .map(|(_, v)| converted(v, &shells, context))
            .collect();
    }
    let Some(list) = to_guest(graph, context)?.as_object() else {
        return Ok(Vec::new());
    };
    let list = JsArray::from_object(list)?;
    let len = list.length(context)?;
    let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0).min(1024));
    for i in 0..len {
        out.push(list.get(i, context)?);
    }
    Ok(out)
}

/// The root array's index and elements, if it holds exactly its elements `0..length` and
/// no value in the graph refers to it.
fn argument_list(graph: &Graph) -> Option<(usize, &[(u32, Value)])> {
    let Value::Object(root) = graph.root else {
        return None;
    };
    let Some(Object::Array {
        length,
        elements,
        extra,
    }) = graph.get(root)
    else {
        return None;
    };
    let dense = extra.is_empty()
        && elements.len() == *length as usize
        && elements.iter().zip(0..).all(|((i, _), want)| *i == want);
    let is_root = |v: &Value| matches!(v, Value::Object(id) if *id == root);
    let referred = graph.objects.iter().any(|o| match o {
        Object::Plain(entries) => entries.iter().any(|(_, v)| is_root(v)),
        Object::Array {
            elements, extra, ..
        } => elements.iter().any(|(_, v)| is_root(v)) || extra.iter().any(|(_, v)| is_root(v)),
        Object::Map(entries) => entries.iter().any(|(k, v)| is_root(k) || is_root(v)),
        Object::Set(values) => values.iter().any(is_root),
        Object::Error { cause, .. } => cause.as_ref().is_some_and(is_root),
        Object::View { buffer, .. } => *buffer == root,
        Object::Date(_)
        | Object::RegExp { .. }
        | Object::ArrayBuffer(_)
        | Object::BooleanObject(_)
        | Object::NumberObject(_)
        | Object::StringObject(_)
        | Object::BigIntObject(_)
        | Object::Token { .. } => false,
    });
    (dense && !referred).then_some((root.0 as usize, elements.as_slice()))
}

fn converted(v: &Value, shells: &[Option<JsObject>], context: &mut Context) -> JsResult<JsValue> {
    Ok(match v {
        Value::Object(id) => shells
            .get(id.0 as usize)
            .and_then(Clone::clone)
            .ok_or_else(|| malformed("dangling object reference"))?
            .into(),
        other => primitive(other, context)?,
    })
}

/// Every object of `graph` but `skip`, made and filled; `skip`'s place stays empty.
fn build(
    graph: &Graph,
    skip: Option<usize>,
    context: &mut Context,
) -> JsResult<Vec<Option<JsObject>>> {
    let mut shells: Vec<Option<JsObject>> = vec![None; graph.objects.len()];
    let mut layouts = Layouts::default();
    // Views need their buffers, so they are created after everything else.
    for (i, object) in graph.objects.iter().enumerate() {
        if !matches!(object, Object::View { .. }) && Some(i) != skip {
            shells[i] = Some(shell(object, &mut layouts, context)?);
        }
    }
    for (i, object) in graph.objects.iter().enumerate() {
        if let Object::View {
            kind,
            buffer,
            byte_offset,
            length,
        } = object
        {
            let buffer = match (graph.get(*buffer), shells.get(buffer.0 as usize)) {
                (Some(Object::ArrayBuffer(bytes)), Some(Some(b))) => {
                    let end = length
                        .checked_mul(kind.element_size())
                        .and_then(|n| n.checked_add(*byte_offset));
                    if end.is_none_or(|end| end > bytes.len()) {
                        return Err(malformed("view out of its buffer's bounds"));
                    }
                    b.clone()
                }
                _ => return Err(malformed("view without an ArrayBuffer")),
            };
            shells[i] = Some(view(*kind, buffer, *byte_offset, *length, context)?);
        }
    }
    let value = |v: &Value, context: &mut Context| converted(v, &shells, context);
    let mut keys = KeyIds::default();
    let mut ids = Vec::new();
    for (i, object) in graph.objects.iter().enumerate() {
        if Some(i) == skip {
            continue;
        }
        let target = shells
            .get(i)
            .and_then(Clone::clone)
            .ok_or_else(|| malformed("dangling object reference"))?;
        match object {
            Object::Plain(entries) => {
                ids.clear();
                let mut values = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    values.push(value(v, context)?);
                    let (id, new) = keys.id(k);
                    if new {
                        layouts.strings.push(text(k));
                    }
                    ids.push(id);
                }
                layouts.fill(&target, &ids, values, context);
            }
            Object::Array {
                length,
                elements,
                extra,
            } => {
                // A fresh array of length 0: each index is inserted as CreateDataProperty
                // would define it (ascending indices fill its dense storage), and the
                // length, at least one past the last index, is set after.
                for (index, v) in elements {
                    let v = value(v, context)?;
                    insert_element(&target, *index, *length, v)?;
                }
                set_length(&target, *length);
                for (k, v) in extra {
                    let v = value(v, context)?;
                    insert_extra(&target, text(k), v, context)?;
                }
            }
            Object::Map(entries) => {
                let map = JsMap::from_object(target)?;
                for (k, v) in entries {
                    let k = value(k, context)?;
                    let v = value(v, context)?;
                    map.set(k, v, context)?;
                }
            }
            Object::Set(values) => {
                let set =
                    JsSet::from_object(target).map_err(|_| malformed("Set shell is not a Set"))?;
                for v in values {
                    let v = value(v, context)?;
                    set.add(v, context)?;
                }
            }
            Object::Error { cause, stack, .. } => {
                if let Some(stack) = stack {
                    define_hidden(&target, "stack", text(stack).into(), context)?;
                }
                if let Some(cause) = cause {
                    let cause = value(cause, context)?;
                    define_hidden(&target, "cause", cause, context)?;
                }
            }
            Object::Date(_)
            | Object::RegExp { .. }
            | Object::ArrayBuffer(_)
            | Object::View { .. }
            | Object::BooleanObject(_)
            | Object::NumberObject(_)
            | Object::StringObject(_)
            | Object::BigIntObject(_)
            | Object::Token { .. } => {}
        }
    }
    Ok(shells)
}

/// Plain objects' keys as guest strings, numbered, and a layout per key sequence. Models
/// repeat their keys: each distinct key becomes a guest string once, and objects with the
/// same keys in the same order share one layout.
#[derive(Default)]
pub(crate) struct Layouts {
    /// The keys, by number.
    pub(crate) strings: Vec<JsString>,
    layouts: FxHashMap<Vec<u32>, Option<DataLayout>>,
    /// The layout of no keys, which plain shells are made from.
    empty: Option<DataLayout>,
}

/// Kept between builds, it forgets every key and layout: they hold one realm's shapes.
impl Emptied for Layouts {
    fn empty(&mut self, max: usize) {
        self.strings.empty(max);
        self.layouts.empty(max);
        self.empty = None;
    }
}

impl Layouts {
    /// A fresh plain shell: an ordinary object with `Object.prototype` and a shared shape,
    /// as an object literal gets, so objects with the same keys share one layout (and the
    /// guest's property caches hit) instead of a hash table each. Made from one layout per
    /// build, not by a lookup of the prototype's transition per object (about 1 % of a
    /// 100 KB crossing).
    pub(crate) fn plain(&mut self, context: &mut Context) -> JsObject {
        let proto = || context.intrinsics().constructors().object().prototype();
        if self.empty.is_none() {
            self.empty = DataLayout::new(context.root_shape(), Some(proto()), &[]);
        }
        let made = self.empty.as_ref().and_then(|l| l.create(Vec::new()));
        // (An empty layout always exists: the fallback is the same object, made slower.)
        made.unwrap_or_else(|| {
            JsObject::new(context.root_shape(), proto(), OrdinaryObject).upcast()
        })
    }

    /// Gives the fresh plain shell `target` the `values` under the keys numbered `ids`.
    pub(crate) fn fill(
        &mut self,
        target: &JsObject,
        ids: &[u32],
        values: Vec<JsValue>,
        context: &mut Context,
    ) {
        let strings = &self.strings;
        let layout = match self.layouts.get(ids) {
            Some(layout) => layout.as_ref(),
            None => {
                let names: Vec<JsString> =
                    ids.iter().map(|id| strings[*id as usize].clone()).collect();
                let proto = context.intrinsics().constructors().object().prototype();
                let layout = DataLayout::new(context.root_shape(), Some(proto), &names);
                self.layouts.entry(ids.to_vec()).or_insert(layout).as_ref()
            }
        };
        // The shell is a fresh, extensible ordinary object that no code has seen: its
        // properties are insertions, laid out in one step where the keys are distinct
        // non-index strings. Otherwise each is inserted (a repeated key overwrites in
        // place), still skipping the generic define path. (`fill` refuses only an object no
        // longer as fresh as a shell, and hands the values back.)
        let refused = match layout {
            Some(layout) => layout.fill(target, values).err(),
            None => Some(values),
        };
        for (v, id) in refused.into_iter().flatten().zip(ids) {
            target.insert_property(strings[*id as usize].clone(), data_property(v));
        }
    }
}

/// Element `index` of the fresh array `target`, inserted as CreateDataProperty would
/// define it (ascending indices fill its dense storage); `length` is set after.
pub(crate) fn insert_element(
    target: &JsObject,
    index: u32,
    length: u32,
    v: JsValue,
) -> JsResult<()> {
    if index >= length {
        return Err(malformed("an array element at or past its length"));
    }
    target.insert_property(index, data_property(v));
    Ok(())
}

/// Every index is below `length`, so ArraySetLength would delete nothing: the fresh
/// array's own `length` (writable, neither enumerable nor configurable) takes the value
/// directly.
pub(crate) fn set_length(target: &JsObject, length: u32) {
    target.insert_property(
        js_string!("length"),
        PropertyDescriptor::builder()
            .value(length)
            .writable(true)
            .enumerable(false)
            .configurable(false),
    );
}

/// A non-index key of an array.
pub(crate) fn insert_extra(
    target: &JsObject,
    key: JsString,
    v: JsValue,
    context: &mut Context,
) -> JsResult<()> {
    // Defining `length` with an object value would run ArraySetLength's ToNumber, i.e. the
    // guest's `valueOf`/`toString`: no graph a host array produces has it, so it is
    // malformed.
    if key == js_string!("length") {
        return Err(malformed("an array's extra keys include `length`"));
    }
    target.create_data_property_or_throw(key, v, context)?;
    Ok(())
}

/// A fresh guest error of a standard kind.
pub fn native_error(name: ErrorName) -> JsNativeError {
    match name {
        ErrorName::Error => JsNativeError::error(),
        ErrorName::EvalError => JsNativeError::eval(),
        ErrorName::RangeError => JsNativeError::range(),
        ErrorName::ReferenceError => JsNativeError::reference(),
        ErrorName::SyntaxError => JsNativeError::syntax(),
        ErrorName::TypeError => JsNativeError::typ(),
        ErrorName::UriError => JsNativeError::uri(),
    }
}

fn malformed(what: &str) -> JsError {
    JsNativeError::typ()
        .with_message(format!("malformed boundary value: {what}"))
        .into()
}

/// A JS string from boundary text, keeping lone surrogates.
pub fn text(t: &Text) -> JsString {
    match t {
        Text::Utf8(s) => JsString::from(&**s),
        Text::Utf16(units) => JsString::from(units.as_slice()),
    }
}

fn primitive(v: &Value, _context: &mut Context) -> JsResult<JsValue> {
    Ok(match v {
        Value::Undefined => JsValue::undefined(),
        Value::Null => JsValue::null(),
        Value::Bool(b) => JsValue::from(*b),
        Value::Number(n) => JsValue::from(*n),
        Value::BigInt(s) => JsValue::from(bigint(s)?),
        Value::String(t) => JsValue::from(text(t)),
        Value::Object(_) => return Err(malformed("object where a primitive was expected")),
    })
}

pub(crate) fn bigint(s: &str) -> JsResult<JsBigInt> {
    JsBigInt::from_string(s).ok_or_else(|| malformed("BigInt is not a decimal integer"))
}

/// What CreateDataProperty defines: a writable, enumerable, configurable data property.
fn data_property(value: JsValue) -> PropertyDescriptor {
    PropertyDescriptor::builder()
        .value(value)
        .writable(true)
        .enumerable(true)
        .configurable(true)
        .build()
}

/// Defines a writable, configurable, non-enumerable data property (how builtins are laid out).
pub(crate) fn define_hidden(
    target: &JsObject,
    key: &str,
    value: JsValue,
    context: &mut Context,
) -> JsResult<()> {
    target.define_property_or_throw(
        JsString::from(key),
        PropertyDescriptor::builder()
            .value(value)
            .writable(true)
            .enumerable(false)
            .configurable(true),
        context,
    )?;
    Ok(())
}

pub(crate) fn shell(
    object: &Object,
    layouts: &mut Layouts,
    context: &mut Context,
) -> JsResult<JsObject> {
    let ctors = context.intrinsics().constructors();
    Ok(match object {
        Object::Plain(_) => layouts.plain(context),
        Object::Array { .. } => JsArray::new(context)?.into(),
        Object::Map(_) => JsMap::new(context).into(),
        Object::Set(_) => JsSet::new(context).into(),
        Object::Date(t) => {
            let date = JsDate::new(context);
            date.set_time(*t, context)?;
            date.into()
        }
        Object::RegExp { source, flags } => {
            JsRegExp::new(text(source), JsString::from(flags.as_str()), context)?.into()
        }
        Object::Error { name, message, .. } => {
            // Boa always gives a new error an own `message`, and only as well-formed text.
            let error = native_error(*name).into_opaque(context);
            match message {
                Some(m) => define_hidden(&error, "message", text(m).into(), context)?,
                None => {
                    error.delete_property_or_throw(js_string!("message"), context)?;
                }
            }
            error
        }
        Object::ArrayBuffer(bytes) => {
            let block = AlignedVec::from_iter(0, bytes.iter().copied());
            JsArrayBuffer::from_byte_block(block, context)?.into()
        }
        Object::View { .. } => return Err(malformed("view created out of order")),
        // Arriving tokens are plain data: identity never crosses.
        Object::Token { module, export } => {
            let o = JsObject::with_object_proto(context.intrinsics());
            o.create_data_property_or_throw(
                js_string!("module"),
                JsString::from(module.as_str()),
                context,
            )?;
            o.create_data_property_or_throw(
                js_string!("export"),
                JsString::from(export.as_str()),
                context,
            )?;
            o
        }
        Object::BooleanObject(b) => {
            ctors
                .boolean()
                .constructor()
                .construct(&[JsValue::from(*b)], None, context)?
        }
        Object::NumberObject(n) => {
            ctors
                .number()
                .constructor()
                .construct(&[JsValue::from(*n)], None, context)?
        }
        Object::StringObject(s) => {
            ctors
                .string()
                .constructor()
                .construct(&[JsValue::from(text(s))], None, context)?
        }
        Object::BigIntObject(s) => {
            // `new BigInt` throws; `Object(1n)` is how a BigInt wrapper is made.
            let object_ctor = ctors.object().constructor();
            object_ctor
                .call(&JsValue::undefined(), &[JsValue::from(bigint(s)?)], context)?
                .as_object()
                .ok_or_else(|| malformed("Object(bigint) did not return an object"))?
                .clone()
        }
    })
}

fn view(
    kind: ViewKind,
    buffer: JsObject,
    byte_offset: usize,
    length: usize,
    context: &mut Context,
) -> JsResult<JsObject> {
    let ctors = context.intrinsics().constructors();
    let ctor = match kind {
        ViewKind::Int8 => ctors.typed_int8_array(),
        ViewKind::Uint8 => ctors.typed_uint8_array(),
        ViewKind::Uint8Clamped => ctors.typed_uint8clamped_array(),
        ViewKind::Int16 => ctors.typed_int16_array(),
        ViewKind::Uint16 => ctors.typed_uint16_array(),
        ViewKind::Int32 => ctors.typed_int32_array(),
        ViewKind::Uint32 => ctors.typed_uint32_array(),
        ViewKind::Float32 => ctors.typed_float32_array(),
        ViewKind::Float64 => ctors.typed_float64_array(),
        ViewKind::BigInt64 => ctors.typed_bigint64_array(),
        ViewKind::BigUint64 => ctors.typed_biguint64_array(),
        ViewKind::DataView => ctors.data_view(),
    };
    ctor.constructor().construct(
        &[
            buffer.into(),
            JsValue::from(byte_offset as f64),
            JsValue::from(length as f64),
        ],
        None,
        context,
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// Which roots are taken as a bare argument list (no guest array made for them).
    #[test]
    fn argument_lists_are_dense_unreferenced_arrays() {
        let list = |length, elements: Vec<(u32, Value)>, extra: Vec<(Text, Value)>| {
            let mut g = Graph::undefined();
            let id = g.push(Object::Array {
                length,
                elements,
                extra,
            });
            g.root = Value::Object(id);
            g
        };
        let with = |mut g: Graph, object: Object| {
            g.push(object);
            g
        };
        let root = Value::Object(crate::value::ObjId(0));
        let n = Value::Number;
        let cases: Vec<(&str, Graph, bool)> = vec![
            ("empty", list(0, vec![], vec![]), true),
            (
                "dense",
                list(2, vec![(0, n(1.0)), (1, n(2.0))], vec![]),
                true,
            ),
            ("a hole", list(2, vec![(1, n(2.0))], vec![]), false),
            ("trailing holes", list(3, vec![(0, n(1.0))], vec![]), false),
            (
                "an extra key",
                list(0, vec![], vec![(Text::from("x"), n(1.0))]),
                false,
            ),
            (
                "holds itself",
                list(1, vec![(0, root.clone())], vec![]),
                false,
            ),
            (
                "a plain object refers to it",
                with(
                    list(0, vec![], vec![]),
                    Object::Plain(vec![(Text::from("a"), root.clone())]),
                ),
                false,
            ),
            (
                "an element object that refers elsewhere",
                with(
                    list(1, vec![(0, Value::Object(crate::value::ObjId(1)))], vec![]),
                    Object::Plain(vec![(Text::from("a"), n(1.0))]),
                ),
                true,
            ),
            (
                "a map refers to it",
                with(
                    list(0, vec![], vec![]),
                    Object::Map(vec![(n(1.0), root.clone())]),
                ),
                false,
            ),
            (
                "a set refers to it",
                with(list(0, vec![], vec![]), Object::Set(vec![root.clone()])),
                false,
            ),
            (
                "an error's cause refers to it",
                with(
                    list(0, vec![], vec![]),
                    Object::Error {
                        name: ErrorName::Error,
                        message: None,
                        stack: None,
                        cause: Some(root.clone()),
                    },
                ),
                false,
            ),
            ("not an array", Graph::primitive(n(1.0)), false),
        ];
        for (what, graph, want) in cases {
            assert_eq!(argument_list(&graph).is_some(), want, "{what}");
        }
    }

    /// The layout applies to the shells `to_guest` makes (so the one-step path is taken),
    /// and to nothing that has a property already.
    #[test]
    fn shells_take_a_layout_in_one_step() {
        let mut context = Context::default();
        let keys = [js_string!("a"), js_string!("b")];
        let proto = context.intrinsics().constructors().object().prototype();
        let layout = DataLayout::new(context.root_shape(), Some(proto.clone()), &keys).unwrap();
        let fresh = shell(
            &Object::Plain(vec![]),
            &mut Layouts::default(),
            &mut context,
        )
        .unwrap();
        assert!(layout.fill(&fresh, vec![1.into(), 2.into()]).is_ok());
        let b = fresh.get(js_string!("b"), &mut context).unwrap();
        assert_eq!(b.as_number(), Some(2.0));
        // A second shell gets the same layout; a used one, or wrong values, nothing.
        let other = shell(
            &Object::Plain(vec![]),
            &mut Layouts::default(),
            &mut context,
        )
        .unwrap();
        assert_eq!(layout.fill(&other, vec![1.into()]), Err(vec![1.into()]));
        assert!(layout.fill(&other, vec![3.into(), 4.into()]).is_ok());
        assert_eq!(
            layout.fill(&fresh, vec![5.into(), 6.into()]),
            Err(vec![5.into(), 6.into()])
        );
        assert!(
            DataLayout::new(
                context.root_shape(),
                Some(proto.clone()),
                &[js_string!("a"), js_string!("a")]
            )
            .is_none()
        );
        assert!(
            DataLayout::new(
                context.root_shape(),
                Some(proto.clone()),
                &[js_string!("1")]
            )
            .is_none()
        );
        // No longer than Boa keeps a shape shared: past that, an object becomes unique.
        let many: Vec<JsString> = (0..1100)
            .map(|i| js_string!(format!("k{i}").as_str()))
            .collect();
        assert!(
            DataLayout::new(context.root_shape(), Some(proto.clone()), &many[..1000]).is_some()
        );
        assert!(DataLayout::new(context.root_shape(), Some(proto), &many).is_none());
    }
}
