//! Decoding a `Value` by walking a `Type`: one `DeserializeSeed` for every format.

use std::cmp::Ordering;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::unify::{common_type, type_placeholders, unify_seq, Step};
use super::{canonicalize_set, Key, Map, Value};
use crate::dynamic::DynamicVisitor;
use crate::number::Number;
use crate::private::{DYNAMIC_TOKEN, NUMBER_TOKEN, UNKNOWN_TOKEN};
use crate::types::{ObjectType, Type};
use crate::unknown::{take_handed, Decoded, RefineKind};

/// `Value` cannot be deserialized without a type: this impl exists only so that
/// `serde_json::from_str::<Value>`, a `Value` field in a `#[derive(Deserialize)]` struct and
/// the like fail to compile with a message that says what to use instead. Its bound is
/// implemented for nothing.
impl<'de> serde::Deserialize<'de> for Value
where
    &'de Value: ReadWithAType,
{
    fn deserialize<D: Deserializer<'de>>(_: D) -> Result<Value, D::Error> {
        Err(de::Error::custom(
            "a Value cannot be deserialized without a type",
        ))
    }
}

/// The bound of `Value`'s `Deserialize` impl, which no type meets: see there.
#[diagnostic::on_unimplemented(
    message = "a `Value` cannot be deserialized without a type: it is not `Deserialize`",
    label = "needs a type to be read",
    note = "read text or bytes against a type with `Value::from_json(text, &ty)` or \
            `Value::from_msgpack(bytes, &ty)`",
    note = "in a model struct, an attribute declared `dynamic` is a `tfvalue::Dynamic` (it \
            carries its type), and bytes to decode once the type is known a `tfvalue::Raw`"
)]
pub trait ReadWithAType {}

/// Decodes a [`Value`] of a given [`Type`] from any deserializer that speaks tfvalue's
/// private tokens (`tfvalue::msgpack`, `tfvalue::json`).
///
/// Options are carried down to the values nested in the type, but not into the value of
/// a `dynamic`, whose type comes with it (its attributes are never skipped). An object
/// attribute missing from the input is null when it is optional, when
/// [`missing_attributes_null`](TypedSeed::missing_attributes_null) is set, and always in
/// a human-readable format (JSON: Terraform's JSON state omits attributes).
#[derive(Clone, Copy)]
pub struct TypedSeed<'t> {
    ty: &'t Type,
    opts: SeedOptions,
    /// The whole value: tells tfvalue's MessagePack deserializer that the value checks its
    /// collections of `dynamic` values itself (see `VALUE_TOKEN`).
    root: bool,
}

#[derive(Clone, Copy, Default)]
pub(super) struct SeedOptions {
    missing_null: bool,
    ignore_undeclared: bool,
}

impl<'t> TypedSeed<'t> {
    /// A seed for values of `ty`.
    pub fn new(ty: &'t Type) -> Self {
        TypedSeed {
            ty,
            opts: SeedOptions::default(),
            root: true,
        }
    }

    /// Reads an object attribute missing from the input as null, required or not.
    #[must_use]
    pub(crate) fn missing_attributes_null(mut self, yes: bool) -> Self {
        self.opts.missing_null = yes;
        self
    }

    /// Skips object attributes the object type does not declare instead of failing.
    #[must_use]
    pub(crate) fn ignore_undeclared_attributes(mut self, yes: bool) -> Self {
        self.opts.ignore_undeclared = yes;
        self
    }
}

impl<'de> DeserializeSeed<'de> for TypedSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if self.root {
            let inner = TypedSeed {
                root: false,
                ..self
            };
            return d.deserialize_newtype_struct(crate::private::VALUE_TOKEN, Root(inner));
        }
        match self.ty {
            Type::Dynamic => d.deserialize_newtype_struct(DYNAMIC_TOKEN, DynamicVisitor::value()),
            ty => d.deserialize_newtype_struct(
                UNKNOWN_TOKEN,
                KnownOrUnknown {
                    ty,
                    opts: self.opts,
                },
            ),
        }
    }
}

/// The whole value, inside the private `VALUE_TOKEN` newtype.
struct Root<'t>(TypedSeed<'t>);

impl<'de> Visitor<'de> for Root<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of type {}", self.0.ty)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.0.deserialize(d)
    }
}

/// Either an unknown (its refinements handed over, see `unknown::hand_over`) or a known
/// value.
struct KnownOrUnknown<'t> {
    ty: &'t Type,
    opts: SeedOptions,
}

impl<'de> Visitor<'de> for KnownOrUnknown<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of type {}", self.ty)
    }

    // tfvalue's deserializers hand over an unknown through `unknown::hand_over`.
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        match take_handed(RefineKind::of(self.ty)) {
            Some(Ok(Decoded::Unknown(r))) => Ok(Value::Unknown(r)),
            Some(Ok(Decoded::Null)) => Ok(Value::Null),
            Some(Err(())) => Err(E::custom("invalid refinements")),
            None => Err(E::invalid_type(de::Unexpected::Option, &self)),
        }
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let opts = self.opts;
        match self.ty {
            Type::String => d.deserialize_str(StringVisitor),
            Type::Number => d.deserialize_newtype_struct(NUMBER_TOKEN, NumberVisitor),
            Type::Bool => d.deserialize_bool(BoolVisitor),
            Type::List(t) => d.deserialize_seq(SeqVisitor {
                elem: t,
                set: false,
                opts,
            }),
            Type::Set(t) => d.deserialize_seq(SeqVisitor {
                elem: t,
                set: true,
                opts,
            }),
            Type::Map(t) => d.deserialize_map(MapVisitor { elem: t, opts }),
            Type::Object(o) => {
                let opts = SeedOptions {
                    missing_null: opts.missing_null || d.is_human_readable(),
                    ..opts
                };
                d.deserialize_struct("", &[], ObjectVisitor { ty: o, opts })
            }
            Type::Tuple(ts) => d.deserialize_tuple(ts.len(), TupleVisitor { elems: ts, opts }),
            Type::Dynamic => d.deserialize_newtype_struct(DYNAMIC_TOKEN, DynamicVisitor::value()),
        }
    }
}

/// What a value of `ty` is called where another was found: `invalid type: {found},
/// expected {this}` (each visitor below says it the same way).
pub(super) fn expecting(ty: &Type) -> String {
    match ty {
        Type::String => "a string".to_owned(),
        Type::Number => "a number".to_owned(),
        Type::Bool => "a bool".to_owned(),
        Type::List(_) => "a list".to_owned(),
        Type::Set(_) => "a set".to_owned(),
        Type::Map(_) => "a map".to_owned(),
        Type::Object(_) => "an object".to_owned(),
        Type::Tuple(ts) => format!(
            "a tuple of {}",
            crate::error::plural(ts.len() as u64, "element")
        ),
        Type::Dynamic => "a dynamic value [type JSON, value]".to_owned(),
    }
}

macro_rules! null_visits {
    () => {
        fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_none<E: de::Error>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
    };
}

struct StringVisitor;

impl<'de> Visitor<'de> for StringVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    null_visits!();

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
}

struct NumberVisitor;

impl<'de> Visitor<'de> for NumberVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }

    null_visits!();

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(Number::from(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(Number::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("NaN is not a number"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        v.parse::<Number>().map(Value::Number).map_err(E::custom)
    }

    // A deserializer that does not know tfvalue's number token (serde_json, for a dynamic
    // value read by serde_json directly) passes itself on: `Number` reads the number's
    // text from it where it can, so the number is exact.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        <Number as serde::Deserialize>::deserialize(d).map(Value::Number)
    }
}

struct BoolVisitor;

impl<'de> Visitor<'de> for BoolVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a bool")
    }

    null_visits!();

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
}

/// The cautious capacity for a collection whose length comes from the input.
fn cautious(hint: Option<usize>) -> usize {
    hint.unwrap_or(0).min(4096)
}

struct SeqVisitor<'t> {
    elem: &'t Type,
    set: bool,
    opts: SeedOptions,
}

impl<'de> Visitor<'de> for SeqVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.set { "a set" } else { "a list" })
    }

    null_visits!();

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = SeqBuilder::new(self.elem, self.set, seq.size_hint());
        let seed = TypedSeed {
            ty: self.elem,
            opts: self.opts,
            root: false,
        };
        while let Some(v) = seq.next_element_seed(seed)? {
            out.push(v);
        }
        out.finish()
    }
}

/// The elements of a list or set as they come, then the checks and order of the whole.
pub(super) struct SeqBuilder<'t> {
    elem: &'t Type,
    set: bool,
    out: Vec<Value>,
}

impl<'t> SeqBuilder<'t> {
    pub(super) fn new(elem: &'t Type, set: bool, hint: Option<usize>) -> Self {
        SeqBuilder {
            elem,
            set,
            out: Vec::with_capacity(cautious(hint)),
        }
    }

    pub(super) fn push(&mut self, v: Value) {
        self.out.push(v);
    }

    /// The collection: elements with `dynamic` in their type agree on one concrete type;
    /// a set in canonical order without duplicates.
    pub(super) fn finish<E: de::Error>(self) -> Result<Value, E> {
        let mut out = self.out;
        if self.elem.has_dynamic() {
            unify_seq(&mut out, self.elem).map_err(E::custom)?;
        }
        if self.set {
            canonicalize_set(&mut out);
            Ok(Value::Set(out))
        } else {
            Ok(Value::List(out))
        }
    }
}

struct MapVisitor<'t> {
    elem: &'t Type,
    opts: SeedOptions,
}

impl<'de> Visitor<'de> for MapVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    null_visits!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = MapBuilder::new(self.elem, map.size_hint());
        let seed = TypedSeed {
            ty: self.elem,
            opts: self.opts,
            root: false,
        };
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let k = Key::from(&*k);
            let v = map.next_value_seed(seed)?;
            out.push(k, v)?;
        }
        out.finish()
    }
}

/// The entries of a map as they come (each key checked against the one before it), then
/// the checks and order of the whole.
pub(super) struct MapBuilder<'t> {
    elem: &'t Type,
    entries: Vec<(Key, Value)>,
    sorted: bool,
}

impl<'t> MapBuilder<'t> {
    pub(super) fn new(elem: &'t Type, hint: Option<usize>) -> Self {
        MapBuilder {
            elem,
            entries: Vec::with_capacity(cautious(hint)),
            sorted: true,
        }
    }

    pub(super) fn push<E: de::Error>(&mut self, k: Key, v: Value) -> Result<(), E> {
        if let Some((prev, _)) = self.entries.last() {
            match prev.as_bytes().cmp(k.as_bytes()) {
                Ordering::Less => {}
                Ordering::Equal => {
                    return Err(E::custom(format_args!("duplicate key `{k}`")));
                }
                Ordering::Greater => self.sorted = false,
            }
        }
        self.entries.push((k, v));
        Ok(())
    }

    /// The keys so far.
    pub(super) fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// The map: keys in order and unique; elements with `dynamic` in their type agree on
    /// one concrete type.
    pub(super) fn finish<E: de::Error>(self) -> Result<Value, E> {
        let mut entries = self.entries;
        if !self.sorted {
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(E::custom(format_args!("duplicate key `{}`", w[0].0)));
            }
        }
        if self.elem.has_dynamic() {
            let common = common_type(entries.iter().map(|(k, v)| (Step::Key(k), v)), self.elem)
                .map_err(E::custom)?;
            for (_, v) in &mut entries {
                type_placeholders(v, self.elem, &common);
            }
        }
        // Sorted and unique: the map is the vector.
        Ok(Value::Map(Map::from_sorted(entries)))
    }
}

struct ObjectVisitor<'t> {
    ty: &'t ObjectType,
    opts: SeedOptions,
}

impl<'de> Visitor<'de> for ObjectVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    null_visits!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = ObjectBuilder::new(self.ty, self.opts);
        // The name is checked as the key is read, so that an undeclared one is reported
        // where it is in the input.
        while let Some(attr) = map.next_key_seed(AttributeSeed(&mut out))? {
            match attr {
                Some((aty, name)) => {
                    let v = map.next_value_seed(TypedSeed {
                        ty: aty,
                        opts: self.opts,
                        root: false,
                    })?;
                    out.push(name.clone(), v);
                }
                None => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        out.finish()
    }
}

/// An object's key, read as the attribute of the object type it names.
struct AttributeSeed<'b, 't>(&'b mut ObjectBuilder<'t>);

impl<'de, 't> DeserializeSeed<'de> for AttributeSeed<'_, 't> {
    type Value = Option<(&'t Type, &'t Key)>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, 't> Visitor<'de> for AttributeSeed<'_, 't> {
    type Value = Option<(&'t Type, &'t Key)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an attribute name")
    }

    fn visit_str<E: de::Error>(self, k: &str) -> Result<Self::Value, E> {
        self.0.attribute(k)
    }
}

/// The attributes of an object as they come, matched against the type, then the
/// attributes left out.
pub(super) struct ObjectBuilder<'t> {
    ty: &'t ObjectType,
    opts: SeedOptions,
    /// Input usually comes in the type's (sorted) order: each name is then checked against
    /// the next declared one, and the attributes are collected in order, so the object is
    /// built in one pass. Anything else (out of order, duplicates) is sorted out at the end.
    cursor: std::iter::Peekable<
        std::iter::Zip<
            std::collections::btree_map::Values<'t, String, Type>,
            std::slice::Iter<'t, Key>,
        >,
    >,
    in_order: bool,
    out: Vec<(Key, Value)>,
}

impl<'t> ObjectBuilder<'t> {
    pub(super) fn new(ty: &'t ObjectType, opts: SeedOptions) -> Self {
        ObjectBuilder {
            ty,
            opts,
            cursor: ty.attributes().values().zip(ty.keys()).peekable(),
            in_order: true,
            out: Vec::with_capacity(ty.len()),
        }
    }

    /// The type and the (shared) name of the attribute `k`; `None` for an attribute the
    /// type does not declare when those are skipped.
    pub(super) fn attribute<E: de::Error>(
        &mut self,
        k: &str,
    ) -> Result<Option<(&'t Type, &'t Key)>, E> {
        if self.in_order {
            while let Some((aty, name)) = self.cursor.peek() {
                match name.as_bytes().cmp(k.as_bytes()) {
                    Ordering::Less => {
                        self.cursor.next();
                    }
                    Ordering::Equal => {
                        let hit = (*aty, *name);
                        self.cursor.next();
                        return Ok(Some(hit));
                    }
                    Ordering::Greater => break,
                }
            }
        }
        let keys = self.ty.keys();
        match keys.binary_search_by(|n| n.as_bytes().cmp(k.as_bytes())) {
            Ok(i) => {
                // Declared, but not where the order puts it: a duplicate or an attribute
                // that comes back.
                self.in_order = false;
                let name = &keys[i];
                match self.ty.attributes().get(name.as_str()) {
                    Some(aty) => Ok(Some((aty, name))),
                    None => Err(E::custom("object type out of step")),
                }
            }
            Err(_) if self.opts.ignore_undeclared => Ok(None),
            Err(_) => Err(E::custom(crate::error::unsupported_attribute(
                k,
                keys.iter().map(Key::as_str),
            ))),
        }
    }

    pub(super) fn push(&mut self, name: Key, v: Value) {
        self.out.push((name, v));
    }

    /// The names of the attributes so far.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.out.iter().map(|(k, _)| k.as_str())
    }

    /// The object: every attribute once, in order; those left out null where they may be.
    pub(super) fn finish<E: de::Error>(self) -> Result<Value, E> {
        let (attrs, keys) = (self.ty.attributes(), self.ty.keys());
        let mut out = self.out;
        if !self.in_order {
            out.sort_by(|a, b| a.0.cmp(&b.0));
            if let Some(w) = out.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(E::custom(format_args!("duplicate attribute `{}`", w[0].0)));
            }
        }
        if out.len() != attrs.len() {
            crate::limits::fill::charge(attrs.len() - out.len()).map_err(E::custom)?;
            let mut full = Vec::with_capacity(attrs.len());
            let mut present = out.into_iter().peekable();
            for name in keys {
                match present.next_if(|(k, _)| k == name) {
                    Some(entry) => full.push(entry),
                    None if self.opts.missing_null || self.ty.is_optional(name) => {
                        full.push((name.clone(), Value::Null));
                    }
                    None => {
                        return Err(E::custom(format_args!("missing attribute `{name}`")));
                    }
                }
            }
            out = full;
        }
        // Sorted and unique: the map is the vector.
        Ok(Value::Object(Map::from_sorted(out)))
    }
}

struct TupleVisitor<'t> {
    elems: &'t [Type],
    opts: SeedOptions,
}

impl<'de> Visitor<'de> for TupleVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a tuple of {}",
            crate::error::plural(self.elems.len() as u64, "element")
        )
    }

    null_visits!();

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(self.elems.len());
        for t in self.elems {
            match seq.next_element_seed(TypedSeed {
                ty: t,
                opts: self.opts,
                root: false,
            })? {
                Some(v) => out.push(v),
                None => {
                    return Err(de::Error::custom(format_args!(
                        "invalid length: {}, expected a tuple of {}",
                        crate::error::plural(out.len() as u64, "element"),
                        crate::error::plural(self.elems.len() as u64, "element")
                    )))
                }
            }
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(format_args!(
                "invalid length: more than {}, expected a tuple of {}",
                crate::error::plural(self.elems.len() as u64, "element"),
                crate::error::plural(self.elems.len() as u64, "element")
            )));
        }
        Ok(Value::Tuple(out))
    }
}
