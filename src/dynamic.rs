//! Values in positions declared `dynamic`: they carry their own type.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::path::PathStep;
use crate::private::DYNAMIC_TOKEN;
use crate::types::{ObjectType, Type};
use crate::unknown::{serialize_unknown, RefineKind};
use crate::value::unify::unify;
use crate::value::{canonicalize_set, TypedSeed, TypedValue, Value};

/// A value with its own type: what an attribute declared `dynamic` holds.
///
/// On the MessagePack wire it is `[type JSON as bin, value]`; in JSON it is
/// `{"type": T, "value": V}`. The type is concrete: decoding works out the types of nested
/// `dynamic` values and drops optional-attribute markers, as go-cty does. A null or
/// unknown of the `dynamic` type itself has [`Type::Dynamic`] as its type.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::{Dynamic, Type, Value};
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// struct Output { value: Dynamic }
///
/// let out = Output { value: Dynamic::new(Type::list(Type::String), Value::List(vec!["a".into()])) };
/// let bytes = tfvalue::msgpack::to_vec(&out)?;
/// assert_eq!(bytes, b"\x81\xa5value\x92\xc4\x11[\"list\",\"string\"]\x91\xa1a");
/// let back: Output = tfvalue::msgpack::from_slice(&bytes)?;
/// assert_eq!(back, out);
/// # Ok::<(), tfvalue::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Dynamic {
    ty: Type,
    value: Value,
}

impl Dynamic {
    /// A value of type `ty`. Encoding checks that the value conforms to it.
    pub fn new(ty: Type, value: Value) -> Self {
        Dynamic { ty, value }
    }

    /// The null of the `dynamic` type itself.
    pub fn null() -> Self {
        Dynamic::new(Type::Dynamic, Value::Null)
    }

    /// `value` with the type it has by itself, where that is unambiguous: `bool`,
    /// `number` and `string` for those; a list, set or map of the one type its elements
    /// share (nulls and unknowns among them take it); an object of its attributes' types;
    /// a tuple of its elements' types; a nested [`Dynamic`] its own type. A null or an
    /// unrefined unknown as a whole is the null or unknown of the `dynamic` type itself.
    ///
    /// ```
    /// use tfvalue::{value, Dynamic, Type};
    ///
    /// let d = Dynamic::infer(value!({ "name": "web", "ports": [80, null, 443] }))?;
    /// assert_eq!(d.ty().to_string(), "object({name=string,ports=list(number)})");
    /// let err = Dynamic::try_from(value!([1, "a"])).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "cannot infer one element type: this element has type string, the ones before it \
    ///      number (a tuple, Value::Tuple, holds elements of different types) at [1]"
    /// );
    /// assert!(Dynamic::infer(value!({ "tags": [] })).is_err());
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Where the value does not determine a type: a null, an unknown or an empty
    /// collection inside it says nothing of its type (give it with [`Dynamic::new`]), the
    /// elements of a list, set or map differ in type (a [`Value::Tuple`] may hold elements
    /// of different types), or nesting is deeper than 128.
    pub fn infer(value: Value) -> Result<Dynamic> {
        let ty = match &value {
            Value::Null => return Ok(Dynamic::null()),
            Value::Unknown(r) if r.is_empty() => return Ok(Dynamic::new(Type::Dynamic, value)),
            v => own_type(v, 0)?,
        };
        if ty.has_dynamic() {
            return Err(Error::data(format_args!(
                "cannot infer the type of the value: it gives {ty}, where each `any` is a null, \
                 an unknown or an empty collection that says nothing of its type; give the \
                 type with Dynamic::new(ty, value)"
            )));
        }
        let value = value.into_typed(&ty)?;
        Ok(Dynamic::new(ty, value))
    }

    /// The type.
    pub fn ty(&self) -> &Type {
        &self.ty
    }

    /// The value.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Replaces the type by a more specific one that the same value conforms to.
    pub(crate) fn set_ty(&mut self, ty: Type) {
        self.ty = ty;
    }

    /// The value, mutably (it must still conform to the type when it is written).
    pub fn value_mut(&mut self) -> &mut Value {
        &mut self.value
    }

    /// The type and the value.
    pub fn into_parts(self) -> (Type, Value) {
        (self.ty, self.value)
    }

    /// As a [`Value`] in a position declared `dynamic`: null and unknown of the `dynamic`
    /// type itself are plain `Value::Null` and `Value::Unknown`.
    pub fn into_value(self) -> Value {
        if matches!(self.ty, Type::Dynamic) {
            self.value
        } else {
            Value::Dynamic(Box::new(self))
        }
    }

    /// Checks that the value conforms to the type.
    ///
    /// # Errors
    ///
    /// As [`Value::conforms_to`].
    pub fn validate(&self) -> Result<()> {
        if matches!(self.ty, Type::Dynamic) {
            return match self.value {
                Value::Null | Value::Unknown(_) => Ok(()),
                _ => Err(Error::data(
                    "a value of type dynamic must be null or unknown; known values carry a concrete type",
                )),
            };
        }
        self.value.conforms_to(&self.ty)
    }
}

impl Serialize for Dynamic {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if matches!(self.ty, Type::Dynamic) {
            return match &self.value {
                Value::Null => s.serialize_unit(),
                Value::Unknown(r) => serialize_unknown(r, RefineKind::Dynamic, s),
                v => Err(serde::ser::Error::custom(format_args!(
                    "a {} of type dynamic must carry a concrete type",
                    v.kind_name()
                ))),
            };
        }
        self.value
            .conforms_to(&self.ty)
            .map_err(serde::ser::Error::custom)?;
        if s.is_human_readable() && !crate::private::is_ours::<S>() {
            // serde_json and the like: `{"value": V, "type": T}`, as tfvalue::json writes it.
            return Foreign(self).serialize(s);
        }
        s.serialize_newtype_struct(DYNAMIC_TOKEN, &Wire(self))
    }
}

impl Dynamic {
    /// The concrete type of the value and the value as they are written (see below): the
    /// wrappers of nested `dynamic` values taken off, left-out optional attributes out of
    /// the type.
    pub(crate) fn wire_parts(&self) -> Result<(Type, std::borrow::Cow<'_, Value>)> {
        if self.ty.has_dynamic() {
            let (t, v) = absorb(&self.ty, self.value.clone(), false)?;
            Ok((t, std::borrow::Cow::Owned(v)))
        } else {
            Ok((
                value_type(&self.ty, &self.value, false),
                std::borrow::Cow::Borrowed(&self.value),
            ))
        }
    }
}

/// `{"value": V, "type": T}` for a human-readable serializer that is not tfvalue's.
struct Foreign<'a>(&'a Dynamic);

impl Serialize for Foreign<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let (ty, value) = self.0.wire_parts().map_err(serde::ser::Error::custom)?;
        let mut st = s.serialize_struct("Dynamic", 2)?;
        st.serialize_field("value", &TypedValue::new(&value, Some(&ty)))?;
        st.serialize_field("type", &ty)?;
        st.end()
    }
}

/// `[type JSON, value]`.
struct Wire<'a>(&'a Dynamic);

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let (ty, value) = self.0.wire_parts().map_err(serde::ser::Error::custom)?;
        let mut json = Vec::new();
        ty.write_json(&mut json, false);
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(serde_bytes::Bytes::new(&json))?;
        t.serialize_element(&TypedValue::new(&value, Some(&ty)))?;
        t.end()
    }
}

// A dynamic value is written with the concrete type of the value itself, as go-cty's
// `Value.Type()` says: the types of `dynamic` values nested in it become part of it (their
// wrappers are taken off), and an optional attribute the value leaves out is not part of
// it (`{a = "x"}` of `object({a = string, b = optional(string)})` is written as
// `object({a = string})` with `{"a": "x"}`). Inside a collection, whose elements share one
// type, a left-out optional attribute stays, as null.

/// The concrete type of `value`, for a type without `dynamic` in it.
fn value_type(ty: &Type, value: &Value, in_collection: bool) -> Type {
    match (ty, value) {
        (Type::Object(o), Value::Object(m)) if !in_collection => Type::Object(ObjectType::new(
            o.attributes()
                .iter()
                .filter(|(name, _)| m.contains_key(name.as_str()) || !o.is_optional(name))
                .map(|(name, t)| {
                    let t = match m.get(name) {
                        Some(v) => value_type(t, v, false),
                        None => strip_optional(t),
                    };
                    (name.clone(), t)
                }),
        )),
        (Type::Tuple(ts), Value::Tuple(vs)) if ts.len() == vs.len() && !in_collection => {
            Type::Tuple(
                ts.iter()
                    .zip(vs)
                    .map(|(t, v)| value_type(t, v, false))
                    .collect(),
            )
        }
        (t, _) => strip_optional(t),
    }
}

/// The concrete type of `value` and the value without the wrappers of the `dynamic`
/// values nested in it, for a type with `dynamic` in it.
fn absorb(ty: &Type, value: Value, in_collection: bool) -> Result<(Type, Value)> {
    if !ty.has_dynamic() {
        let t = value_type(ty, &value, in_collection);
        return Ok((t, value));
    }
    Ok(match (ty, value) {
        (Type::Dynamic, Value::Dynamic(d)) => {
            let (t, v) = d.into_parts();
            absorb(&t, v, in_collection)?
        }
        (Type::Object(o), Value::Object(mut m)) => {
            let mut attrs = Vec::with_capacity(o.len());
            let mut out = crate::value::Map::new();
            for (name, aty) in o.attributes() {
                match m.remove(name) {
                    Some(v) => {
                        let (t, v) = absorb(aty, v, in_collection)?;
                        attrs.push((name.clone(), t));
                        out.insert(name.clone(), v);
                    }
                    None if o.is_optional(name) && !in_collection => {}
                    None => attrs.push((name.clone(), strip_optional(aty))),
                }
            }
            (Type::Object(ObjectType::new(attrs)), Value::Object(out))
        }
        (Type::Tuple(ts), Value::Tuple(vs)) if ts.len() == vs.len() => {
            let mut types = Vec::with_capacity(vs.len());
            let mut out = Vec::with_capacity(vs.len());
            for (t, v) in ts.iter().zip(vs) {
                let (t, v) = absorb(t, v, in_collection)?;
                types.push(t);
                out.push(v);
            }
            (Type::Tuple(types), Value::Tuple(out))
        }
        (Type::List(t), Value::List(vs)) => {
            let (et, vs) = absorb_elems(t, vs, None)?;
            (Type::List(Box::new(et)), Value::List(vs))
        }
        (Type::Set(t), Value::Set(vs)) => {
            let (et, vs) = absorb_elems(t, vs, None)?;
            (Type::Set(Box::new(et)), Value::Set(vs))
        }
        (Type::Map(t), Value::Map(m)) => {
            let (keys, vs): (Vec<crate::value::Key>, Vec<Value>) = m.into_iter().unzip();
            let (et, vs) = absorb_elems(t, vs, Some(&keys))?;
            (
                Type::Map(Box::new(et)),
                Value::Map(keys.into_iter().zip(vs).collect()),
            )
        }
        // null and unknown
        (t, v) => (strip_optional(t), v),
    })
}

/// The elements of a collection share one concrete type; undetermined positions (nulls,
/// unknowns, empty collections of `dynamic`) take it (see `value::unify`).
fn absorb_elems(
    t: &Type,
    vs: Vec<Value>,
    keys: Option<&[crate::value::Key]>,
) -> Result<(Type, Vec<Value>)> {
    let mut elem_ty = Type::Dynamic;
    let mut out = Vec::with_capacity(vs.len());
    for (i, v) in vs.into_iter().enumerate() {
        let (et, v) = absorb(t, v, true).map_err(|e| e.prepend(step(keys, i)))?;
        elem_ty = merge_elem(elem_ty, &et, step(keys, i))?;
        out.push(v);
    }
    Ok((or_declared(elem_ty, t), out))
}

/// The path step of the `i`th element of a collection (a map's, with its key).
fn step(keys: Option<&[crate::value::Key]>, i: usize) -> PathStep {
    match keys.and_then(|k| k.get(i)) {
        Some(k) => PathStep::Key(k.to_string()),
        None => PathStep::Index(i as u64),
    }
}

/// The type the elements so far share, and the next one's.
fn merge_elem(before: Type, next: &Type, at: PathStep) -> Result<Type> {
    match unify(&before, next) {
        Some(t) => Ok(t),
        None => Err(inconsistent(&before, next, at)),
    }
}

#[cold]
fn inconsistent(before: &Type, next: &Type, at: PathStep) -> Error {
    let element: crate::path::AttributePath = std::iter::once(at).collect();
    Error::data(format_args!(
        "inconsistent element types in a collection with dynamic values: element {element} \
         has type {next}, the elements before it {before}"
    ))
}

/// Where no element determines the element type, the declared one (its `dynamic`
/// positions undetermined).
fn or_declared(elem_ty: Type, declared: &Type) -> Type {
    match elem_ty {
        Type::Dynamic => strip_optional(declared),
        t => t,
    }
}

impl<'de> Deserialize<'de> for Dynamic {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_newtype_struct(DYNAMIC_TOKEN, DynamicVisitor)
    }
}

// tfvalue's own deserializers decode a dynamic value themselves, in code that is not
// generic (compiled once, in this crate), and hand the result to the visitor through this
// slot: otherwise every crate that deserializes a model with a `Dynamic` in it would
// compile the whole `Value` decoder again, for each format, inside its own code. A thread
// local, as serde gives a visitor no way to receive a value of a type it does not name.
// The slot is full only between `hand_over`'s two lines: the visitor takes the value at
// once, and whatever it does, the slot is emptied before `hand_over` returns.
thread_local! {
    static HANDED_OVER: std::cell::Cell<Option<Dynamic>> = const { std::cell::Cell::new(None) };
}

/// Gives `visitor` (tfvalue's [`DynamicVisitor`] or [`AsValue`]) a dynamic value the
/// deserializer has decoded.
pub(crate) fn hand_over<'de, V: Visitor<'de>>(d: Dynamic, visitor: V) -> Result<V::Value> {
    put_handed_over(d);
    let v = visitor.visit_newtype_struct(crate::private::HandedOver);
    clear_handed_over();
    v
}

// Not generic (compiled once, not for every visitor).
fn put_handed_over(d: Dynamic) {
    HANDED_OVER.with(|slot| slot.set(Some(d)));
}

fn clear_handed_over() {
    drop(take_handed_over());
}

fn take_handed_over() -> Option<Dynamic> {
    HANDED_OVER.with(|slot| slot.take())
}

/// Reads a `dynamic` value: null, an unknown (as the bytes of its extension), or the
/// sequence `[type, value]`.
pub(crate) struct DynamicVisitor;

impl DynamicVisitor {
    /// The visitor for a `Value` in a `dynamic` position.
    pub(crate) fn value() -> AsValue {
        AsValue
    }
}

pub(crate) struct AsValue;

impl<'de> Visitor<'de> for AsValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        DynamicVisitor.expecting(f)
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bytes<E: de::Error>(self, ext: &[u8]) -> std::result::Result<Value, E> {
        DynamicVisitor.visit_bytes(ext).map(Dynamic::into_value)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Value, A::Error> {
        DynamicVisitor.visit_seq(seq).map(Dynamic::into_value)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Value, D::Error> {
        if let Some(v) = take_handed_over() {
            return Ok(v.into_value());
        }
        // Not one of tfvalue's deserializers: as `DynamicVisitor` does.
        d.deserialize_newtype_struct(crate::number::RAW_VALUE_TOKEN, JsonText)
            .map(Dynamic::into_value)
    }
}

impl<'de> Visitor<'de> for DynamicVisitor {
    type Value = Dynamic;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a dynamic value [type JSON, value]")
    }

    fn visit_unit<E: de::Error>(self) -> std::result::Result<Dynamic, E> {
        Ok(Dynamic::null())
    }

    fn visit_none<E: de::Error>(self) -> std::result::Result<Dynamic, E> {
        Ok(Dynamic::null())
    }

    /// An unknown of the dynamic type itself (its refinements say nothing, so tfvalue's
    /// deserializers hand it over as empty bytes).
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> std::result::Result<Dynamic, E> {
        Ok(Dynamic::new(
            Type::Dynamic,
            Value::Unknown(Default::default()),
        ))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Dynamic, A::Error> {
        let Some(ty) = seq.next_element_seed(TypeJsonSeed)? else {
            return Err(de::Error::custom("a dynamic value needs a type"));
        };
        // Optional-attribute markers in a type that comes from the input are dropped before
        // the value is read: an object that leaves an optional attribute out is read as
        // if it held null there, so markers from the input would let every byte of an
        // empty object `80` stand for as many null attributes as the type JSON names, a
        // cost quadratic in the input. go-cty writes concrete types here, without markers,
        // and the decoded type drops them anyway (see `concretize`).
        let ty = if has_optional(&ty) {
            strip_optional(&ty)
        } else {
            ty
        };
        let scope = crate::limits::fill::DynamicScope::enter();
        let value = seq.next_element_seed(TypedSeed::new(&ty))?;
        drop(scope);
        let Some(value) = value else {
            return Err(de::Error::custom("a dynamic value needs a value"));
        };
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "a dynamic value has two elements: type and value",
            ));
        }
        concretize(&ty, value).map_err(de::Error::custom)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Dynamic, D::Error> {
        if let Some(v) = take_handed_over() {
            return Ok(v);
        }
        // Not one of tfvalue's deserializers: serde_json, which gives the value's text
        // through its raw value token.
        d.deserialize_newtype_struct(crate::number::RAW_VALUE_TOKEN, JsonText)
    }
}

/// A dynamic value from serde_json used directly (`{"type": T, "value": V}`, in either
/// order, or `[type JSON, value]`): its text, through serde_json's raw value token, is
/// decoded by code that is not generic. (A visitor that asked any deserializer for
/// anything would compile the whole `Value` decoder again for each one, tfvalue's own
/// included, in every crate that deserializes a `Dynamic`.)
struct JsonText;

impl<'de> Visitor<'de> for JsonText {
    type Value = Dynamic;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a dynamic value {"type": T, "value": V}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Dynamic, A::Error> {
        let Some(_token) = map.next_key::<std::borrow::Cow<'de, str>>()? else {
            return Err(de::Error::invalid_length(0, &self));
        };
        let text: std::borrow::Cow<'de, str> = map.next_value()?;
        from_json_text(&text).map_err(de::Error::custom)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        _: D,
    ) -> std::result::Result<Dynamic, D::Error> {
        Err(de::Error::custom(
            "a Dynamic is read by tfvalue's deserializers (tfvalue::msgpack, tfvalue::json, \
             a Value), or by serde_json as {\"type\": T, \"value\": V}",
        ))
    }
}

/// A dynamic value from its JSON text: `{"type": T, "value": V}` in either order,
/// `[type JSON, value]`, or null. The value is read against its type by serde_json's
/// deserializer, whose raw value token gives each number's text, so numbers are exact.
fn from_json_text(text: &str) -> Result<Dynamic> {
    use serde_json::value::RawValue;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Form<'a> {
        #[serde(borrow, rename = "type")]
        ty: &'a RawValue,
        #[serde(borrow)]
        value: &'a RawValue,
    }

    let json_error = |e: serde_json::Error| Error::data(format_args!("a dynamic value: {e}"));
    let text = text.trim();
    let (ty, value) = match text.as_bytes().first() {
        Some(b'n') if text == "null" => return Ok(Dynamic::null()),
        Some(b'[') => {
            let (ty, value): (String, &RawValue) =
                serde_json::from_str(text).map_err(json_error)?;
            (Type::from_json(ty)?, value)
        }
        _ => {
            let form: Form<'_> = serde_json::from_str(text).map_err(json_error)?;
            (Type::from_json(form.ty.get())?, form.value)
        }
    };
    // As in `DynamicVisitor::visit_seq`: no optional-attribute markers from the input.
    let ty = if has_optional(&ty) {
        strip_optional(&ty)
    } else {
        ty
    };
    let mut de = serde_json::Deserializer::from_str(value.get());
    let scope = crate::limits::fill::DynamicScope::enter();
    let value = TypedSeed::new(&ty).deserialize(&mut de);
    drop(scope);
    let value =
        value.map_err(|e| Error::data(format_args!("the value of a dynamic value: {e}")))?;
    de.end().map_err(json_error)?;
    concretize(&ty, value)
}

/// The type of a dynamic value, from its JSON text (bin or str in MessagePack, the raw JSON
/// of the `type` member in JSON).
struct TypeJsonSeed;

impl<'de> DeserializeSeed<'de> for TypeJsonSeed {
    type Value = Type;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Type, D::Error> {
        d.deserialize_bytes(self)
    }
}

impl<'de> Visitor<'de> for TypeJsonSeed {
    type Value = Type;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("type JSON")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Type, E> {
        Type::from_json(v).map_err(E::custom)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Type, E> {
        self.visit_bytes(v.as_bytes())
    }
}

/// Works out the concrete type of a value decoded against a type that may contain
/// `dynamic`, taking off the wrappers of nested dynamic values whose types are now part of
/// the outer type, and dropping optional-attribute markers.
pub(crate) fn concretize(ty: &Type, value: Value) -> Result<Dynamic> {
    if !ty.has_dynamic() {
        return Ok(Dynamic::new(strip_optional(ty), value));
    }
    let (ty, value) = concretize_inner(ty, value)?;
    Ok(Dynamic::new(ty, value))
}

fn concretize_inner(ty: &Type, value: Value) -> Result<(Type, Value)> {
    Ok(match (ty, value) {
        (Type::Dynamic, Value::Dynamic(d)) => (d.ty, d.value),
        (Type::Dynamic, v) => (Type::Dynamic, v),
        (t, v @ (Value::Null | Value::Unknown(_))) => (strip_optional(t), v),
        (Type::List(t), Value::List(vs)) => {
            let (et, vs) = concretize_elems(t, vs, None)?;
            (Type::List(Box::new(et)), Value::List(vs))
        }
        (Type::Set(t), Value::Set(vs)) => {
            let (et, mut vs) = concretize_elems(t, vs, None)?;
            canonicalize_set(&mut vs);
            (Type::Set(Box::new(et)), Value::Set(vs))
        }
        (Type::Map(t), Value::Map(m)) => {
            let (keys, vs): (Vec<crate::value::Key>, Vec<Value>) = m.into_iter().unzip();
            let (et, vs) = concretize_elems(t, vs, Some(&keys))?;
            (
                Type::Map(Box::new(et)),
                Value::Map(keys.into_iter().zip(vs).collect()),
            )
        }
        (Type::Object(o), Value::Object(m)) => {
            let mut attrs = Vec::with_capacity(m.len());
            let mut out = crate::value::Map::new();
            for (name, v) in m {
                let aty = o.get(&name).unwrap_or(&Type::Dynamic);
                let (t, v) = concretize_inner(aty, v)?;
                attrs.push((name.clone(), t));
                out.insert(name, v);
            }
            (Type::Object(ObjectType::new(attrs)), Value::Object(out))
        }
        (Type::Tuple(ts), Value::Tuple(vs)) => {
            let mut types = Vec::with_capacity(vs.len());
            let mut out = Vec::with_capacity(vs.len());
            for (t, v) in ts.iter().zip(vs) {
                let (t, v) = concretize_inner(t, v)?;
                types.push(t);
                out.push(v);
            }
            (Type::Tuple(types), Value::Tuple(out))
        }
        (t, v) => (strip_optional(t), v),
    })
}

/// The elements of a collection must end up with one concrete type; undetermined
/// positions take it.
fn concretize_elems(
    t: &Type,
    vs: Vec<Value>,
    keys: Option<&[crate::value::Key]>,
) -> Result<(Type, Vec<Value>)> {
    let mut elem_ty = Type::Dynamic;
    let mut out = Vec::with_capacity(vs.len());
    for (i, v) in vs.into_iter().enumerate() {
        let (et, v) = concretize_inner(t, v).map_err(|e| e.prepend(step(keys, i)))?;
        elem_ty = merge_elem(elem_ty, &et, step(keys, i))?;
        out.push(v);
    }
    Ok((or_declared(elem_ty, t), out))
}

/// Whether an object type anywhere in `ty` has optional attributes.
fn has_optional(ty: &Type) -> bool {
    match ty {
        Type::List(t) | Type::Set(t) | Type::Map(t) => has_optional(t),
        Type::Object(o) => !o.optional().is_empty() || o.attributes().values().any(has_optional),
        Type::Tuple(ts) => ts.iter().any(has_optional),
        _ => false,
    }
}

/// The same type without optional-attribute markers.
pub(crate) fn strip_optional(ty: &Type) -> Type {
    match ty {
        Type::List(t) => Type::list(strip_optional(t)),
        Type::Set(t) => Type::set(strip_optional(t)),
        Type::Map(t) => Type::map(strip_optional(t)),
        Type::Object(o) => Type::Object(ObjectType::new(
            o.attributes()
                .iter()
                .map(|(k, t)| (k.clone(), strip_optional(t))),
        )),
        Type::Tuple(ts) => Type::Tuple(ts.iter().map(strip_optional).collect()),
        t => t.clone(),
    }
}

impl TryFrom<Value> for Dynamic {
    type Error = Error;

    /// As [`Dynamic::infer`].
    fn try_from(value: Value) -> Result<Dynamic> {
        Dynamic::infer(value)
    }
}

/// The type `v` has by itself (see [`Dynamic::infer`]); `Type::Dynamic` where nothing in
/// it says.
fn own_type(v: &Value, depth: usize) -> Result<Type> {
    if depth > crate::limits::DEFAULT_MAX_DEPTH {
        return Err(Error::limit("nesting is deeper than the limit of 128"));
    }
    Ok(match v {
        Value::Null => Type::Dynamic,
        Value::Unknown(r) if r.prefix().is_some() => Type::String,
        Value::Unknown(r) if r.lower_bound().is_some() || r.upper_bound().is_some() => Type::Number,
        Value::Unknown(_) => Type::Dynamic,
        Value::Bool(_) => Type::Bool,
        Value::Number(_) => Type::Number,
        Value::String(_) => Type::String,
        Value::List(vs) => Type::list(common_own_type(
            vs.iter()
                .enumerate()
                .map(|(i, e)| (PathStep::Index(i as u64), e)),
            depth,
        )?),
        Value::Set(vs) => Type::set(common_own_type(
            vs.iter()
                .enumerate()
                .map(|(i, e)| (PathStep::Index(i as u64), e)),
            depth,
        )?),
        Value::Map(m) => Type::map(common_own_type(
            m.iter().map(|(k, e)| (PathStep::Key(k.to_string()), e)),
            depth,
        )?),
        Value::Object(m) => {
            let mut attrs = Vec::with_capacity(m.len());
            for (k, e) in m {
                let t = own_type(e, depth + 1)
                    .map_err(|err| err.prepend(PathStep::Attr(k.to_string())))?;
                attrs.push((k.clone(), t));
            }
            Type::Object(ObjectType::new(attrs))
        }
        Value::Tuple(vs) => {
            let mut types = Vec::with_capacity(vs.len());
            for (i, e) in vs.iter().enumerate() {
                types.push(
                    own_type(e, depth + 1).map_err(|err| err.prepend(PathStep::Index(i as u64)))?,
                );
            }
            Type::Tuple(types)
        }
        Value::Dynamic(d) => strip_optional(d.ty()),
    })
}

/// The one type elements share (`Type::Dynamic` where none says), or the element that
/// differs.
fn common_own_type<'a>(
    elems: impl Iterator<Item = (PathStep, &'a Value)>,
    depth: usize,
) -> Result<Type> {
    let mut acc = Type::Dynamic;
    for (step, e) in elems {
        let t = own_type(e, depth + 1).map_err(|err| err.prepend(step.clone()))?;
        acc = match unify(&acc, &t) {
            Some(u) => u,
            None => {
                return Err(Error::data(format_args!(
                    "cannot infer one element type: this element has type {t}, the ones \
                     before it {acc} (a tuple, Value::Tuple, holds elements of different types)"
                ))
                .prepend(step))
            }
        };
    }
    Ok(acc)
}
