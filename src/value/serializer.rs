//! A serde `Serializer` whose output is a [`Value`] of a given [`Type`]: what `to_value`
//! does, in one walk over the model (serde_json's `value/ser.rs` is the model for it).
//!
//! It gives what the model's MessagePack encoding decoded against the type would give
//! (tfvalue converted through the wire before): strings in NFC, map keys unique,
//! integral floats as integers and every number as the wire would carry it, unknowns with
//! the refinements their type allows, `dynamic` values with their concrete types, and the
//! decoder's errors in its words. The leaves and the collections are built by the same
//! code as `TypedSeed`'s (`value::de`), so the two cannot drift apart. Two things differ,
//! both for the better: errors carry the path to where they arose (the encoder's never
//! did), and of several mistakes in one model the first in the model's order is reported
//! (the wire put attributes in name order first).

use std::borrow::Cow;

use serde::de::{self, Error as _};
use serde::ser::{self, Impossible, Serialize};

use super::de::{expecting, MapBuilder, ObjectBuilder, SeedOptions, SeqBuilder};
use super::{Key, Value};
use crate::dyn_check::{At, DynCheck};
use crate::dynamic::{concretize, strip_optional};
use crate::error::{plural, Error, Result};
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::number::{Number, WireNumber};
use crate::path::PathStep;
use crate::private::{bytes_cmp, reject_calls, token, KeyText, Token as Tok};
use crate::text::nfc;
use crate::types::Type;
use crate::unknown::{
    read_refinements, Decoded, RefineKind, LOWER, MAX_LENGTH, MIN_LENGTH, NULL, PREFIX, UPPER,
};

/// Decodes the bytes of a [`Raw`](crate::Raw) met in a model (`json`: JSON text, else
/// MessagePack) as a value of the type of its position. The model knows no wire: the
/// caller above it passes the decoder in.
pub(crate) type RawDecoder = fn(&[u8], bool, &Type) -> Result<Value>;

/// Converts `value` into a [`Value`] of type `ty`.
pub(crate) fn to_value_typed<T: ?Sized + Serialize>(
    value: &T,
    ty: &Type,
    raw: Option<RawDecoder>,
) -> Result<Value> {
    let mut st = State::new(raw);
    value.serialize(Ser { st: &mut st, ty })
}

/// What one conversion keeps between the calls serde makes.
struct State {
    depth_left: usize,
    /// The check that the elements of a collection agree on the types of the `dynamic`
    /// values in them (a model has no type at hand; see `crate::dyn_check`), as tfvalue's
    /// MessagePack serializer makes it.
    dyn_check: DynCheck<'static>,
    /// The text of the map key being written at each level (for the paths of that check).
    keys: Vec<u8>,
    raw: Option<RawDecoder>,
    /// Set while a `Raw`'s bytes are being handed over.
    raw_next: bool,
    /// Set while a `Dynamic` is written whose type the check must record: `Some(None)`
    /// until its type JSON is met.
    capture: Option<Option<Vec<u8>>>,
}

impl State {
    fn new(raw: Option<RawDecoder>) -> Self {
        State {
            depth_left: DEFAULT_MAX_DEPTH,
            dyn_check: DynCheck::default(),
            keys: Vec::new(),
            raw,
            raw_next: false,
            capture: None,
        }
    }

    fn enter(&mut self) -> Result<()> {
        match self.depth_left.checked_sub(1) {
            Some(d) => {
                self.depth_left = d;
                Ok(())
            }
            None => Err(Error::limit(format_args!(
                "nesting is deeper than the limit of {DEFAULT_MAX_DEPTH}"
            ))),
        }
    }

    fn leave(&mut self) {
        self.depth_left += 1;
    }
}

// ---------------------------------------------------------------------------------------
// Leaves: what a scalar is on the wire, and what the type-driven decoder makes of it.

/// A scalar as the MessagePack encoding of the model would carry it.
pub(super) enum Leaf<'a> {
    Nil,
    Bool(bool),
    UInt(u64),
    Int(i64),
    F64(f64),
    Str(Cow<'a, str>),
    Bin(&'a [u8]),
}

impl Leaf<'_> {
    /// The name of the kind in messages (as the MessagePack decoder names its tokens).
    pub(super) fn describe(&self) -> &'static str {
        match self {
            Leaf::Nil => "null",
            Leaf::Bool(_) => "bool",
            Leaf::UInt(_) | Leaf::Int(_) | Leaf::F64(_) => "number",
            Leaf::Str(_) => "string",
            Leaf::Bin(_) => "bytes",
        }
    }
}

/// An integer as the wire carries it: non-negative ones unsigned.
pub(super) fn int_leaf(n: i64) -> Leaf<'static> {
    match u64::try_from(n) {
        Ok(u) => Leaf::UInt(u),
        Err(_) => Leaf::Int(n),
    }
}

/// A number as the wire carries it: the smallest integer, a float64, or its decimal text.
pub(super) fn number_leaf(n: &Number) -> Leaf<'static> {
    match n.wire() {
        WireNumber::UInt(u) => Leaf::UInt(u),
        WireNumber::Int(i) => Leaf::Int(i),
        WireNumber::Float(f) => Leaf::F64(f),
        WireNumber::Text(t) => Leaf::Str(Cow::Owned(t.into_owned())),
    }
}

/// An `f64` as tfvalue's MessagePack serializer writes it: an integral one as an integer.
pub(super) fn f64_leaf(v: f64) -> Result<Leaf<'static>> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        return Ok(int_leaf(v as i64));
    }
    match Number::from_f64(v) {
        Some(n) => Ok(number_leaf(&n)),
        None => Err(Error::data("NaN is not a number and cannot be encoded")),
    }
}

/// Bytes read as text.
pub(super) fn utf8(b: &[u8]) -> Result<&str> {
    std::str::from_utf8(b).map_err(|e| {
        Error::syntax(format_args!(
            "invalid UTF-8 in string at byte {}",
            e.valid_up_to()
        ))
    })
}

/// A value of `ty` from a scalar, as `TypedSeed` reads it.
fn leaf_value(ty: &Type, leaf: Leaf<'_>) -> Result<Value> {
    if let (_, Leaf::Nil) = (ty, &leaf) {
        return Ok(Value::Null);
    }
    match (ty, leaf) {
        (Type::String, Leaf::Str(s)) => Ok(Value::String(s.into_owned())),
        (Type::String, Leaf::Bin(b)) => Ok(Value::String(utf8(b)?.to_owned())),
        (Type::Number, Leaf::UInt(u)) => Ok(Value::Number(Number::from(u))),
        (Type::Number, Leaf::Int(i)) => Ok(Value::Number(Number::from(i))),
        (Type::Number, Leaf::F64(f)) => Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| Error::custom("NaN is not a number")),
        (Type::Number, Leaf::Str(s)) => number_text(&s),
        (Type::Number, Leaf::Bin(b)) => number_text(utf8(b)?),
        (Type::Bool, Leaf::Bool(b)) => Ok(Value::Bool(b)),
        (ty, leaf) => Err(mismatch(ty, leaf.describe())),
    }
}

fn number_text(s: &str) -> Result<Value> {
    s.parse::<Number>()
        .map(Value::Number)
        .map_err(<Error as de::Error>::custom)
}

/// `invalid type: {found}, expected {what ty holds}`.
#[cold]
fn mismatch(ty: &Type, found: &str) -> Error {
    Error::invalid_type(found, expecting(ty))
}

#[cold]
fn unsupported(what: &str) -> Error {
    Error::data(format_args!(
        "{what} cannot be represented in Terraform's wire format"
    ))
}

const DYNAMIC_EXPECTED: &str = "a dynamic value [type JSON, value]";

// ---------------------------------------------------------------------------------------
// The serializer

/// Writes one value into a position of type `ty`.
struct Ser<'s, 't> {
    st: &'s mut State,
    ty: &'t Type,
}

impl<'s, 't> Ser<'s, 't> {
    fn leaf(self, leaf: Leaf<'_>) -> Result<Value> {
        if matches!(self.ty, Type::Dynamic) {
            return match leaf {
                Leaf::Nil => Ok(Value::Null),
                other => Err(Error::invalid_type(other.describe(), DYNAMIC_EXPECTED)),
            };
        }
        leaf_value(self.ty, leaf)
    }

    fn seq(self, len: Option<usize>, collection: bool) -> Result<Compound<'s, 't>> {
        let kind = match self.ty {
            Type::List(t) => Kind::Seq(SeqBuilder::new(t, false, len), t),
            Type::Set(t) => Kind::Seq(SeqBuilder::new(t, true, len), t),
            Type::Tuple(ts) => Kind::Tuple(Vec::with_capacity(ts.len()), ts),
            Type::Dynamic => match len {
                Some(2) | None => Kind::Dynamic(None, None),
                Some(n) => {
                    return Err(Error::data(format_args!(
                        "a dynamic value must be an array of [type, value], found an array of {n}"
                    )))
                }
            },
            ty => return Err(mismatch(ty, "array")),
        };
        self.st.enter()?;
        self.st.dyn_check.push(collection);
        Ok(Compound::new(self.st, kind, len))
    }

    fn map(self, len: Option<usize>, collection: bool) -> Result<Compound<'s, 't>> {
        let kind = match self.ty {
            Type::Map(t) => Kind::Map(MapBuilder::new(t, len), t),
            Type::Object(o) => Kind::Object(ObjectBuilder::new(o, SeedOptions::default()), None),
            Type::Dynamic => return Err(Error::invalid_type("map", DYNAMIC_EXPECTED)),
            ty => return Err(mismatch(ty, "map")),
        };
        self.st.enter()?;
        self.st.dyn_check.push(collection);
        Ok(Compound::new(self.st, kind, len))
    }

    /// An unknown, handed over as its refinements by name.
    fn unknown<T: ?Sized + Serialize>(self, entries: &T) -> Result<Value> {
        let entries = entries.serialize(EntriesSer { st: self.st })?;
        // A refined unknown's payload is one level of nesting on the wire.
        self.st.enter()?;
        self.st.leave();
        if matches!(self.ty, Type::Dynamic) {
            // Refinements say nothing about a value of type dynamic itself.
            return Ok(Value::Unknown(Default::default()));
        }
        match read_refinements(EntriesAccess::new(entries), RefineKind::of(self.ty))? {
            Decoded::Unknown(r) => Ok(Value::Unknown(r)),
            Decoded::Null => Ok(Value::Null),
        }
    }
}

impl<'s, 't> ser::Serializer for Ser<'s, 't> {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = Compound<'s, 't>;
    type SerializeTuple = Compound<'s, 't>;
    type SerializeTupleStruct = Compound<'s, 't>;
    type SerializeTupleVariant = Impossible<Value, Error>;
    type SerializeMap = Compound<'s, 't>;
    type SerializeStruct = Compound<'s, 't>;
    type SerializeStructVariant = Impossible<Value, Error>;

    fn serialize_bool(self, v: bool) -> Result<Value> {
        self.leaf(Leaf::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value> {
        self.leaf(int_leaf(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Value> {
        self.leaf(int_leaf(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Value> {
        self.leaf(int_leaf(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Value> {
        self.leaf(int_leaf(v))
    }
    fn serialize_i128(self, v: i128) -> Result<Value> {
        self.leaf(number_leaf(&Number::from(v)))
    }
    fn serialize_u8(self, v: u8) -> Result<Value> {
        self.leaf(Leaf::UInt(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Value> {
        self.leaf(Leaf::UInt(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Value> {
        self.leaf(Leaf::UInt(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Value> {
        if v > i64::MAX as u64 {
            // beyond i64, go-cty writes the decimal text
            return self.leaf(number_leaf(&Number::from(v)));
        }
        self.leaf(Leaf::UInt(v))
    }
    fn serialize_u128(self, v: u128) -> Result<Value> {
        self.leaf(number_leaf(&Number::from(v)))
    }
    fn serialize_f32(self, v: f32) -> Result<Value> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value> {
        let leaf = f64_leaf(v)?;
        self.leaf(leaf)
    }
    fn serialize_char(self, v: char) -> Result<Value> {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }

    fn serialize_str(self, v: &str) -> Result<Value> {
        if self.st.raw_next {
            // The text of a `Raw` holding JSON.
            self.st.raw_next = false;
            return raw_value(self.st, v.as_bytes(), true, self.ty);
        }
        self.leaf(Leaf::Str(nfc(v)))
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<Value> {
        if self.st.raw_next {
            // The bytes of a `Raw` holding MessagePack.
            self.st.raw_next = false;
            return raw_value(self.st, v, false, self.ty);
        }
        if let Some(None) = self.st.capture {
            self.st.capture = Some(Some(v.to_vec()));
        }
        self.leaf(Leaf::Bin(v))
    }

    fn serialize_none(self) -> Result<Value> {
        self.leaf(Leaf::Nil)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Value> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value> {
        self.leaf(Leaf::Nil)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value> {
        self.leaf(Leaf::Nil)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Value> {
        match token(name) {
            Some(Tok::Unknown) => self.unknown(value),
            Some(Tok::Raw) => {
                self.st.raw_next = true;
                let r = value.serialize(Ser {
                    st: &mut *self.st,
                    ty: self.ty,
                });
                self.st.raw_next = false;
                r
            }
            Some(Tok::Dynamic) if self.st.dyn_check.skip == 0 => {
                // The elements of a collection must agree on the types of their dynamic
                // values: the type is recorded once the value is through.
                let outer = self.st.capture.replace(None);
                self.st.dyn_check.skip += 1;
                let r = value.serialize(Ser {
                    st: &mut *self.st,
                    ty: self.ty,
                });
                self.st.dyn_check.skip -= 1;
                let captured = std::mem::replace(&mut self.st.capture, outer).flatten();
                let v = r?;
                if let Some(json) = captured {
                    let ty = Type::from_json(&json)?;
                    self.st.dyn_check.record(ty, &self.st.keys, false)?;
                }
                Ok(v)
            }
            Some(Tok::Value | Tok::Dynamic) => {
                // A `Value` is checked against its type as it is converted.
                self.st.dyn_check.skip += 1;
                let r = value.serialize(Ser {
                    st: &mut *self.st,
                    ty: self.ty,
                });
                self.st.dyn_check.skip -= 1;
                r
            }
            Some(Tok::Number) | None => value.serialize(self),
        }
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        _: &T,
    ) -> Result<Value> {
        Err(unsupported(&format!(
            "enum variant `{name}::{variant}` with data"
        )))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'s, 't>> {
        self.seq(len, true)
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'s, 't>> {
        self.seq(Some(len), false)
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Compound<'s, 't>> {
        self.seq(Some(len), false)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(unsupported(&format!(
            "enum variant `{name}::{variant}` with data"
        )))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'s, 't>> {
        self.map(len, true)
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Compound<'s, 't>> {
        self.map(Some(len), false)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(unsupported(&format!(
            "enum variant `{name}::{variant}` with data"
        )))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// The bytes of a `Raw`, decoded against the type of their position.
fn raw_value(st: &mut State, bytes: &[u8], json: bool, ty: &Type) -> Result<Value> {
    match st.raw {
        Some(decode) => decode(bytes, json, ty),
        None => Err(Error::data(
            "a tfvalue::Raw holds undecoded bytes: decode it with Raw::decode_value first",
        )),
    }
}

// ---------------------------------------------------------------------------------------
// Collections

enum Kind<'t> {
    Seq(SeqBuilder<'t>, &'t Type),
    Tuple(Vec<Value>, &'t [Type]),
    Map(MapBuilder<'t>, &'t Type),
    /// The object's builder, and the attribute whose value comes next.
    Object(ObjectBuilder<'t>, Option<(&'t Type, &'t Key)>),
    /// `[type JSON, value]` in a position of type `dynamic`: the type once read, and the
    /// value once converted.
    Dynamic(Option<Type>, Option<Value>),
}

/// An array, map or struct being converted.
#[doc(hidden)]
pub(crate) struct Compound<'s, 't> {
    st: &'s mut State,
    kind: Kind<'t>,
    announced: Option<usize>,
    count: usize,
    /// Whether the keys so far came in strictly increasing order, and the previous one.
    sorted: bool,
    prev: Option<Key>,
    /// The map key or attribute name the next value belongs to.
    key: Option<Key>,
    /// Where this map's keys start in `State::keys`.
    keys_at: usize,
}

impl<'s, 't> Compound<'s, 't> {
    fn new(st: &'s mut State, kind: Kind<'t>, announced: Option<usize>) -> Self {
        let keys_at = st.keys.len();
        Compound {
            st,
            kind,
            announced,
            count: 0,
            sorted: true,
            prev: None,
            key: None,
            keys_at,
        }
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let i = self.count;
        self.count += 1;
        self.st.dyn_check.at(At::Index(i as u32));
        let at = |e: Error| e.prepend(PathStep::Index(i as u64));
        match &mut self.kind {
            Kind::Seq(b, t) => {
                let v = value
                    .serialize(Ser {
                        st: &mut *self.st,
                        ty: t,
                    })
                    .map_err(at)?;
                b.push(v);
                Ok(())
            }
            Kind::Tuple(out, ts) => match ts.get(i) {
                Some(t) => {
                    let v = value
                        .serialize(Ser {
                            st: &mut *self.st,
                            ty: t,
                        })
                        .map_err(at)?;
                    out.push(v);
                    Ok(())
                }
                // Too many: counted, and refused at the end.
                None => Ok(()),
            },
            Kind::Dynamic(ty, v) => match i {
                0 => {
                    let json = value.serialize(TypeJson)?;
                    if let Some(None) = self.st.capture {
                        self.st.capture = Some(Some(json.clone()));
                    }
                    let t = Type::from_json(&json).map_err(<Error as de::Error>::custom)?;
                    // Optional-attribute markers are dropped before the value is read,
                    // as the decoder does.
                    *ty = Some(strip_optional(&t));
                    Ok(())
                }
                1 => {
                    let Some(t) = ty.as_ref() else {
                        return Err(Error::data("a dynamic value needs a type"));
                    };
                    let scope = crate::limits::fill::DynamicScope::enter();
                    self.st.dyn_check.skip += 1;
                    let r = value.serialize(Ser {
                        st: &mut *self.st,
                        ty: t,
                    });
                    self.st.dyn_check.skip -= 1;
                    drop(scope);
                    *v = Some(r?);
                    Ok(())
                }
                // More than two: refused at the end.
                _ => Ok(()),
            },
            Kind::Map(..) | Kind::Object(..) => Err(Error::data("a map was given elements")),
        }
    }

    fn end_seq(self) -> Result<Value> {
        self.check_count("a sequence")?;
        self.st.leave();
        self.st.dyn_check.pop();
        match self.kind {
            Kind::Seq(b, _) => b.finish(),
            Kind::Tuple(out, ts) => {
                if self.count > ts.len() {
                    return Err(Error::data(format_args!(
                        "invalid length: more than {}, expected a tuple of {}",
                        plural(ts.len() as u64, "element"),
                        plural(ts.len() as u64, "element")
                    )));
                }
                if out.len() < ts.len() {
                    return Err(Error::data(format_args!(
                        "invalid length: {}, expected a tuple of {}",
                        plural(out.len() as u64, "element"),
                        plural(ts.len() as u64, "element")
                    )));
                }
                Ok(Value::Tuple(out))
            }
            Kind::Dynamic(Some(ty), Some(v)) if self.count == 2 => Ok(concretize(&ty, v)
                .map_err(<Error as de::Error>::custom)?
                .into_value()),
            Kind::Dynamic(..) => Err(Error::data(format_args!(
                "a dynamic value must be an array of [type, value], found an array of {}",
                self.count
            ))),
            Kind::Map(..) | Kind::Object(..) => Err(Error::data("a map was given elements")),
        }
    }

    /// A key, written out as the wire would (NFC), checked against the one before it; for
    /// an object, the attribute it names (an error if the type does not declare it).
    fn key(&mut self, text: Cow<'_, str>, made: Option<Key>) -> Result<Key> {
        self.count += 1;
        if let Some(prev) = &self.prev {
            match bytes_cmp(prev.as_bytes(), text.as_bytes()) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => return Err(duplicate_key(&text)),
                std::cmp::Ordering::Greater => self.sorted = false,
            }
        }
        let key = match &mut self.kind {
            Kind::Object(b, pending) => {
                // An attribute shares the type's name.
                let (aty, name) = b
                    .attribute::<Error>(&text)?
                    .ok_or_else(|| Error::data("an undeclared attribute was skipped"))?;
                *pending = Some((aty, name));
                name.clone()
            }
            _ => made.unwrap_or_else(|| Key::from(&*text)),
        };
        self.prev = Some(key.clone());
        Ok(key)
    }

    /// The value of the attribute or map key `key` (the last one [`key`](Self::key) took).
    fn value<T: ?Sized + Serialize>(&mut self, key: Key, value: &T) -> Result<()> {
        match &mut self.kind {
            Kind::Map(b, t) => {
                let v = value
                    .serialize(Ser {
                        st: &mut *self.st,
                        ty: t,
                    })
                    .map_err(|e| e.prepend(PathStep::Key(key.to_string())))?;
                b.push(key, v)
            }
            Kind::Object(b, pending) => {
                let Some((aty, _)) = pending.take() else {
                    return Err(Error::data("an attribute value was given before its name"));
                };
                let v = value
                    .serialize(Ser {
                        st: &mut *self.st,
                        ty: aty,
                    })
                    .map_err(|e| e.prepend(PathStep::Attr(key.to_string())))?;
                b.push(key, v);
                Ok(())
            }
            _ => Err(Error::data("a sequence was given entries")),
        }
    }

    fn end_map(self) -> Result<Value> {
        self.check_count("a map")?;
        self.st.keys.truncate(self.keys_at);
        self.st.leave();
        self.st.dyn_check.pop();
        if !self.sorted {
            // Keys out of order: a duplicate among them is found once.
            let mut names: Vec<&str> = match &self.kind {
                Kind::Map(b, _) => b.keys().collect(),
                Kind::Object(b, _) => b.names().collect(),
                _ => Vec::new(),
            };
            names.sort_unstable();
            if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
                return Err(duplicate_key(w[0]));
            }
        }
        match self.kind {
            Kind::Map(b, _) => b.finish(),
            Kind::Object(b, _) => b.finish(),
            _ => Err(Error::data("a sequence was given entries")),
        }
    }

    fn check_count(&self, what: &str) -> Result<()> {
        match self.announced {
            Some(n) if n != self.count => Err(Error::data(format_args!(
                "{what} announced {n} elements but {} were written",
                self.count
            ))),
            _ => Ok(()),
        }
    }
}

#[cold]
fn duplicate_key(key: &str) -> Error {
    Error::data(format_args!("duplicate key {key:?}"))
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = Value;
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<Value> {
        self.end_seq()
    }
}

impl ser::SerializeTuple for Compound<'_, '_> {
    type Ok = Value;
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<Value> {
        self.end_seq()
    }
}

impl ser::SerializeTupleStruct for Compound<'_, '_> {
    type Ok = Value;
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<Value> {
        self.end_seq()
    }
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = Value;
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        let made = key.serialize(KeyText(|k: &str| Key::from(&*nfc(k))))?;
        let key = self.key(Cow::Borrowed(made.as_str()), Some(made.clone()))?;
        self.st.keys.truncate(self.keys_at);
        self.st.keys.extend_from_slice(key.as_bytes());
        self.st
            .dyn_check
            .at(At::KeyInOutput(self.keys_at, self.st.keys.len()));
        self.key = Some(key);
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let Some(key) = self.key.take() else {
            return Err(Error::data("a map value was given before its key"));
        };
        self.value(key, value)
    }

    fn end(self) -> Result<Value> {
        self.end_map()
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = Value;
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        let key = self.key(nfc(name), None)?;
        self.st.dyn_check.at(At::Field(name));
        self.value(key, value)
    }

    fn end(self) -> Result<Value> {
        self.end_map()
    }
}

// ---------------------------------------------------------------------------------------
// Map keys, type JSON and refinements

/// The type JSON of a `dynamic` value: bytes, or a string.
struct TypeJson;

#[cold]
fn not_type_json(found: &str) -> Error {
    Error::invalid_type(found, "type JSON as bytes")
}

impl ser::Serializer for TypeJson {
    type Ok = Vec<u8>;
    type Error = Error;
    type SerializeSeq = Impossible<Vec<u8>, Error>;
    type SerializeTuple = Impossible<Vec<u8>, Error>;
    type SerializeTupleStruct = Impossible<Vec<u8>, Error>;
    type SerializeTupleVariant = Impossible<Vec<u8>, Error>;
    type SerializeMap = Impossible<Vec<u8>, Error>;
    type SerializeStruct = Impossible<Vec<u8>, Error>;
    type SerializeStructVariant = Impossible<Vec<u8>, Error>;

    fn serialize_bytes(self, v: &[u8]) -> Result<Vec<u8>> {
        Ok(v.to_vec())
    }
    fn serialize_str(self, v: &str) -> Result<Vec<u8>> {
        Ok(nfc(v).as_bytes().to_vec())
    }
    fn serialize_char(self, v: char) -> Result<Vec<u8>> {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Vec<u8>> {
        self.serialize_str(variant)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Vec<u8>> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Vec<u8>> {
        match token(name) {
            Some(Tok::Unknown) => Err(not_type_json("unknown value")),
            _ => value.serialize(self),
        }
    }
    /// As on the wire, where the type JSON is read: a number is its wire form (an integer
    /// or a float64 is a number; any other, its decimal text, is text).
    fn is_human_readable(&self) -> bool {
        false
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Vec<u8>> {
        Err(not_type_json("enum"))
    }
    reject_calls! { not_type_json("bool");
        serialize_bool(bool) -> Vec<u8>;
    }
    reject_calls! { not_type_json("number");
        serialize_i8(i8) -> Vec<u8>;
        serialize_i16(i16) -> Vec<u8>;
        serialize_i32(i32) -> Vec<u8>;
        serialize_i64(i64) -> Vec<u8>;
        serialize_i128(i128) -> Vec<u8>;
        serialize_u8(u8) -> Vec<u8>;
        serialize_u16(u16) -> Vec<u8>;
        serialize_u32(u32) -> Vec<u8>;
        serialize_u64(u64) -> Vec<u8>;
        serialize_u128(u128) -> Vec<u8>;
        serialize_f32(f32) -> Vec<u8>;
        serialize_f64(f64) -> Vec<u8>;
    }
    reject_calls! { not_type_json("null");
        serialize_none() -> Vec<u8>;
        serialize_unit() -> Vec<u8>;
        serialize_unit_struct(&'static str) -> Vec<u8>;
    }
    reject_calls! { not_type_json("array");
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
    }
    reject_calls! { not_type_json("map");
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

/// The type of each refinement's value, for converting it.
fn entry_type(name: &str) -> Option<Type> {
    Some(match name {
        NULL => Type::Bool,
        PREFIX => Type::String,
        LOWER | UPPER => Type::tuple([Type::Number, Type::Bool]),
        MIN_LENGTH | MAX_LENGTH => Type::Number,
        _ => return None,
    })
}

/// The refinements of an unknown, as the model hands them over: a map of named entries,
/// each converted to a [`Value`].
pub(super) type Entries = Vec<(&'static str, Value)>;

/// The names of the refinements, as `'static` strings.
fn entry_name(name: &str) -> Option<&'static str> {
    [NULL, PREFIX, LOWER, UPPER, MIN_LENGTH, MAX_LENGTH]
        .into_iter()
        .find(|n| *n == name)
}

const NOT_REFINEMENTS: &str = "an unknown value's refinements must be a map of named entries";

struct EntriesSer<'s> {
    st: &'s mut State,
}

struct EntriesMap<'s> {
    st: &'s mut State,
    out: Entries,
    name: Option<&'static str>,
}

impl<'s> ser::Serializer for EntriesSer<'s> {
    type Ok = Entries;
    type Error = Error;
    type SerializeSeq = Impossible<Entries, Error>;
    type SerializeTuple = Impossible<Entries, Error>;
    type SerializeTupleStruct = Impossible<Entries, Error>;
    type SerializeTupleVariant = Impossible<Entries, Error>;
    type SerializeMap = EntriesMap<'s>;
    type SerializeStruct = Impossible<Entries, Error>;
    type SerializeStructVariant = Impossible<Entries, Error>;

    fn serialize_map(self, _: Option<usize>) -> Result<EntriesMap<'s>> {
        Ok(EntriesMap {
            st: self.st,
            out: Vec::new(),
            name: None,
        })
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Entries> {
        Err(Error::data(NOT_REFINEMENTS))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<Entries> {
        Err(Error::data(NOT_REFINEMENTS))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Entries> {
        Err(Error::data(NOT_REFINEMENTS))
    }
    reject_calls! { Error::data(NOT_REFINEMENTS);
        serialize_bool(bool) -> Entries;
        serialize_i8(i8) -> Entries;
        serialize_i16(i16) -> Entries;
        serialize_i32(i32) -> Entries;
        serialize_i64(i64) -> Entries;
        serialize_u8(u8) -> Entries;
        serialize_u16(u16) -> Entries;
        serialize_u32(u32) -> Entries;
        serialize_u64(u64) -> Entries;
        serialize_f32(f32) -> Entries;
        serialize_f64(f64) -> Entries;
        serialize_char(char) -> Entries;
        serialize_str(&str) -> Entries;
        serialize_bytes(&[u8]) -> Entries;
        serialize_none() -> Entries;
        serialize_unit() -> Entries;
        serialize_unit_struct(&'static str) -> Entries;
        serialize_unit_variant(&'static str, u32, &'static str) -> Entries;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

impl ser::SerializeMap for EntriesMap<'_> {
    type Ok = Entries;
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        let text = key.serialize(KeyText(|k: &str| nfc(k).into_owned()))?;
        match entry_name(&text) {
            Some(name) => {
                self.name = Some(name);
                Ok(())
            }
            None => Err(Error::data(format_args!(
                "{text:?} is not a refinement of an unknown"
            ))),
        }
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let name = self
            .name
            .take()
            .ok_or_else(|| Error::data("a refinement value was given before its key"))?;
        let ty = entry_type(name).ok_or_else(|| Error::data(NOT_REFINEMENTS))?;
        let v = value.serialize(Ser {
            st: &mut *self.st,
            ty: &ty,
        })?;
        self.out.push((name, v));
        Ok(())
    }

    fn end(self) -> Result<Entries> {
        Ok(self.out)
    }
}

/// The refinements of an unknown, for `unknown::hand_over` (not generic: compiled once).
pub(super) fn handed(entries: Entries) -> crate::unknown::Handed {
    if entries.is_empty() {
        return crate::unknown::Handed::Plain;
    }
    crate::unknown::Handed::Read(Box::new(move |kind| {
        read_refinements(EntriesAccess::new(entries), kind)
    }))
}

/// The refinements of an unknown handed to a visitor, as a format's deserializer hands
/// them over: a map of named entries.
pub(super) struct EntriesAccess {
    entries: std::vec::IntoIter<(&'static str, Value)>,
    value: Option<Value>,
}

impl EntriesAccess {
    pub(super) fn new(entries: Entries) -> Self {
        EntriesAccess {
            entries: entries.into_iter(),
            value: None,
        }
    }
}

impl<'de> de::MapAccess<'de> for EntriesAccess {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.entries.next() {
            Some((name, v)) => {
                self.value = Some(v);
                seed.deserialize(de::value::BorrowedStrDeserializer::new(name))
                    .map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self.value.take() {
            Some(v) => super::deserializer::deserialize_detached(&v, seed),
            None => Err(Error::data(
                "a refinement value was asked for before its key",
            )),
        }
    }
}

/// An unknown as the model hands it to a format: a number its refinements pin down, or
/// its refinements by name.
pub(super) enum Unknown {
    Number(Number),
    Refinements(Entries),
}

/// Takes what the model hands over for an unknown (see `crate::unknown::serialize_unknown`).
pub(super) struct UnknownParts;

impl ser::Serializer for UnknownParts {
    type Ok = Unknown;
    type Error = Error;
    type SerializeSeq = Impossible<Unknown, Error>;
    type SerializeTuple = Impossible<Unknown, Error>;
    type SerializeTupleStruct = Impossible<Unknown, Error>;
    type SerializeTupleVariant = Impossible<Unknown, Error>;
    type SerializeMap = Impossible<Unknown, Error>;
    type SerializeStruct = Impossible<Unknown, Error>;
    type SerializeStructVariant = Impossible<Unknown, Error>;

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Unknown> {
        let mut st = State::new(None);
        match token(name) {
            Some(Tok::Unknown) => Ok(Unknown::Refinements(
                value.serialize(EntriesSer { st: &mut st })?,
            )),
            Some(Tok::Number) => match value.serialize(Ser {
                st: &mut st,
                ty: &Type::Number,
            })? {
                Value::Number(n) => Ok(Unknown::Number(n)),
                _ => Err(Error::data(NOT_REFINEMENTS)),
            },
            _ => Err(Error::data(NOT_REFINEMENTS)),
        }
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Unknown> {
        Err(Error::data(NOT_REFINEMENTS))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Unknown> {
        Err(Error::data(NOT_REFINEMENTS))
    }
    reject_calls! { Error::data(NOT_REFINEMENTS);
        serialize_bool(bool) -> Unknown;
        serialize_i8(i8) -> Unknown;
        serialize_i16(i16) -> Unknown;
        serialize_i32(i32) -> Unknown;
        serialize_i64(i64) -> Unknown;
        serialize_u8(u8) -> Unknown;
        serialize_u16(u16) -> Unknown;
        serialize_u32(u32) -> Unknown;
        serialize_u64(u64) -> Unknown;
        serialize_f32(f32) -> Unknown;
        serialize_f64(f64) -> Unknown;
        serialize_char(char) -> Unknown;
        serialize_str(&str) -> Unknown;
        serialize_bytes(&[u8]) -> Unknown;
        serialize_none() -> Unknown;
        serialize_unit() -> Unknown;
        serialize_unit_struct(&'static str) -> Unknown;
        serialize_unit_variant(&'static str, u32, &'static str) -> Unknown;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}
