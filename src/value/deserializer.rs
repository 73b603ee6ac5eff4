//! A serde `Deserializer` over a [`Value`]: what `from_value` does, in one walk over the
//! value (serde_json's `value/de.rs` is the model for it).
//!
//! The value is handed over as its own structure says (lists, sets and tuples as
//! sequences, maps and objects as maps, a `dynamic` value as `[type JSON, value]`, an
//! unknown as its refinements), and each item is offered to the target as tfvalue's
//! MessagePack deserializer offers it (tfvalue converted through that wire before): a
//! string where a number is asked for is read as one, an unknown where the target has no
//! [`Unknown`](crate::Unknown) is an error that says so, an attribute the target does not
//! declare is refused, and the elements of a collection must agree on the types of their
//! `dynamic` values. Sets come in canonical order, strings and keys in NFC.

use std::borrow::Cow;
use std::cmp::Ordering;

use serde::de::{self, value::BytesDeserializer, value::StrDeserializer, DeserializeSeed, Visitor};

use super::ser::{elem_type, fill_optional, has_optional};
use super::serializer::{handed, number_leaf, utf8, Leaf};
use super::{cmp_canonical, sorted_refs, Map, Value};
use crate::dyn_check::{At, DynCheck};
use crate::dynamic::Dynamic;
use crate::error::{Error, Result};
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::number::Number;
use crate::path::PathStep;
use crate::private::Token as Tok;
use crate::text::nfc;
use crate::types::Type;
use crate::unknown::{serialize_unknown, RefineKind, Refinements};

/// Deserializes a `T` from `value`.
pub(crate) fn from_value_typed<'de, T: de::Deserialize<'de>>(value: &Value) -> Result<T> {
    let mut st = State::new();
    let tok = token_of(value, None)?;
    T::deserialize(ValueDe {
        st: &mut st,
        tok,
        field: None,
    })
}

/// Deserializes one value on its own, as its structure says (a refinement's value).
pub(super) fn deserialize_detached<'de, S: DeserializeSeed<'de>>(
    value: &Value,
    seed: S,
) -> Result<S::Value> {
    let mut st = State::detached(DEFAULT_MAX_DEPTH);
    let tok = token_of(value, None)?;
    seed.deserialize(ValueDe {
        st: &mut st,
        tok,
        field: None,
    })
}

struct State<'v> {
    depth_left: usize,
    /// Set when an attribute was found undeclared: the error names it, and the path is the
    /// object's (as in every decoder).
    undeclared: bool,
    /// Where the walk is, for the check that the elements of a collection agree on the
    /// types of the `dynamic` values in them (see `crate::dyn_check`).
    dyn_check: DynCheck<'v>,
}

impl<'v> State<'v> {
    fn new() -> Self {
        State {
            depth_left: DEFAULT_MAX_DEPTH,
            undeclared: false,
            dyn_check: DynCheck::default(),
        }
    }

    /// The state of a walk over values made on the way (the value of a `dynamic`, whose
    /// own type covers what is nested in it, so the check is off).
    fn detached(depth_left: usize) -> Self {
        let mut dyn_check = DynCheck::default();
        dyn_check.skip = 1;
        State {
            depth_left,
            undeclared: false,
            dyn_check,
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
// What each value is handed over as

/// One item as it is handed over.
enum Token<'v> {
    Leaf(Leaf<'v>),
    Array(Elems<'v>),
    Map(Entries<'v>),
    /// An unknown: its refinements by name.
    Unknown(super::serializer::Entries),
}

impl Token<'_> {
    fn describe(&self) -> &'static str {
        match self {
            Token::Leaf(l) => l.describe(),
            Token::Array(_) => "array",
            Token::Map(_) => "map",
            Token::Unknown(_) => "unknown value",
        }
    }
}

/// The element types of a sequence written against a type.
#[derive(Clone, Copy)]
enum ElemTypes<'v> {
    None,
    One(&'v Type),
    Tuple(&'v [Type]),
}

impl<'v> ElemTypes<'v> {
    fn get(self, i: usize) -> Option<&'v Type> {
        match self {
            ElemTypes::None => None,
            ElemTypes::One(t) => Some(t),
            ElemTypes::Tuple(ts) => ts.get(i),
        }
    }
}

/// The elements of an array.
enum Elems<'v> {
    /// A list or tuple.
    Slice(&'v [Value], ElemTypes<'v>),
    /// A set, in canonical order without duplicates.
    Refs(Vec<&'v Value>, Option<&'v Type>),
    /// A set whose objects got the optional attributes they leave out, in order.
    Owned(Vec<Value>, Option<&'v Type>),
    /// A `dynamic` value: `[type JSON, value]` (the value with its concrete type).
    Dynamic(Box<(Vec<u8>, Type, Cow<'v, Value>)>),
}

impl Elems<'_> {
    fn len(&self) -> usize {
        match self {
            Elems::Slice(vs, _) => vs.len(),
            Elems::Refs(vs, _) => vs.len(),
            Elems::Owned(vs, _) => vs.len(),
            Elems::Dynamic(_) => 2,
        }
    }
}

/// The entries of a map, as they are read.
enum Entries<'v> {
    /// A map or an object as it is (keys in NFC, in order).
    Map(super::map::Iter<'v>, Option<&'v Type>),
    /// Keys that NFC changed, put in order again (as written, and as the value has them).
    Sorted(
        std::vec::IntoIter<(Cow<'v, str>, &'v str, &'v Value)>,
        Option<&'v Type>,
    ),
    /// An object written against its type: every attribute the type declares, those the
    /// value leaves out as null.
    Object(
        std::collections::btree_map::Iter<'v, String, Type>,
        std::iter::Peekable<super::map::Iter<'v>>,
    ),
}

impl Entries<'_> {
    /// The entries not read yet.
    fn len(&self) -> usize {
        match self {
            Entries::Map(it, _) => it.len(),
            Entries::Sorted(it, _) => it.len(),
            Entries::Object(it, _) => it.len(),
        }
    }
}

/// What `value` is handed over as, written against `ty` (`None`: as its own structure
/// says). The errors are those of writing it (a `dynamic` value that does not conform to
/// its type, contradictory refinements).
fn token_of<'v>(value: &'v Value, ty: Option<&'v Type>) -> Result<Token<'v>> {
    Ok(match value {
        Value::Null => Token::Leaf(Leaf::Nil),
        Value::Unknown(r) => unknown(r, ty.map_or(RefineKind::Any, RefineKind::of))?,
        Value::Dynamic(d) => match ty {
            None | Some(Type::Dynamic) => dynamic(d)?,
            Some(t) => {
                return Err(Error::data(format_args!(
                    "a dynamic value where a value of type {t} belongs"
                )))
            }
        },
        v if ty == Some(&Type::Dynamic) => {
            return Err(Error::data(format_args!(
                "a {} in a position of type dynamic must carry its own type",
                v.kind_name()
            )))
        }
        Value::Bool(b) => Token::Leaf(Leaf::Bool(*b)),
        Value::Number(n) => Token::Leaf(number_leaf(n)),
        Value::String(s) => Token::Leaf(Leaf::Str(nfc(s))),
        Value::List(vs) | Value::Tuple(vs) => Token::Array(Elems::Slice(
            vs,
            match ty {
                Some(Type::Tuple(ts)) => ElemTypes::Tuple(ts),
                t => elem_type(t).map_or(ElemTypes::None, ElemTypes::One),
            },
        )),
        Value::Set(vs) => {
            let t = elem_type(ty);
            match t {
                Some(t) if has_optional(t) => {
                    // Canonical order of the values as they are written (left-out
                    // optional attributes null), duplicates removed.
                    let mut filled: Vec<Value> = vs.iter().map(|v| fill_optional(v, t)).collect();
                    filled.sort_by(|a, b| cmp_canonical(a, b, true));
                    filled.dedup_by(|b, a| {
                        cmp_canonical(a, b, true) == Ordering::Equal
                            && a.is_wholly_known()
                            && b.is_wholly_known()
                    });
                    Token::Array(Elems::Owned(filled, Some(t)))
                }
                _ => Token::Array(Elems::Refs(sorted_refs(vs, true), t)),
            }
        }
        Value::Map(m) => entries(m, elem_type(ty))?,
        Value::Object(m) => match ty {
            Some(Type::Object(o)) => {
                Token::Map(Entries::Object(o.attributes().iter(), m.iter().peekable()))
            }
            _ => entries(m, None)?,
        },
    })
}

/// A map's entries, keys in NFC and in order.
fn entries<'v>(m: &'v Map, ty: Option<&'v Type>) -> Result<Token<'v>> {
    if m.keys().all(|k| k.is_ascii()) {
        return Ok(Token::Map(Entries::Map(m.iter(), ty)));
    }
    let mut es: Vec<(Cow<'v, str>, &'v str, &'v Value)> =
        m.iter().map(|(k, v)| (nfc(k), k.as_str(), v)).collect();
    es.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    if let Some(w) = es.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::data(format_args!("duplicate key {:?}", w[0].0)));
    }
    Ok(Token::Map(Entries::Sorted(es.into_iter(), ty)))
}

/// An unknown of a kind: a number its refinements pin down is that number.
fn unknown<'v>(r: &Refinements, kind: RefineKind) -> Result<Token<'v>> {
    match serialize_unknown(r, kind, super::serializer::UnknownParts)? {
        super::serializer::Unknown::Number(n) => Ok(Token::Leaf(number_leaf(&n))),
        super::serializer::Unknown::Refinements(entries) => Ok(Token::Unknown(entries)),
    }
}

/// A `dynamic` value: null, an unknown, or `[type JSON, value]`.
fn dynamic(d: &Dynamic) -> Result<Token<'_>> {
    if matches!(d.ty(), Type::Dynamic) {
        return match d.value() {
            Value::Null => Ok(Token::Leaf(Leaf::Nil)),
            Value::Unknown(r) => unknown(r, RefineKind::Dynamic),
            v => Err(Error::data(format_args!(
                "a {} of type dynamic must carry a concrete type",
                v.kind_name()
            ))),
        };
    }
    d.value().conforms_to(d.ty())?;
    let (ty, value) = d.wire_parts()?;
    let mut json = Vec::new();
    ty.write_json(&mut json, false);
    Ok(Token::Array(Elems::Dynamic(Box::new((json, ty, value)))))
}

// ---------------------------------------------------------------------------------------
// The deserializer

/// One value, handed to whatever the target asks for.
struct ValueDe<'a, 'v> {
    st: &'a mut State<'v>,
    tok: Token<'v>,
    /// The attribute this is the value of (an object's entry read as a struct field), and
    /// the struct's fields: a target that ignores it does not declare the attribute.
    field: Option<(&'v str, &'static [&'static str])>,
}

#[cold]
fn invalid(tok: &Token<'_>, expected: &dyn de::Expected) -> Error {
    if let Token::Unknown(_) = tok {
        return Error::data(format_args!(
            "an unknown value where {expected} was expected (use tfvalue::Unknown<T> for values that can be unknown)"
        ));
    }
    Error::invalid_type(tok.describe(), expected)
}

impl<'a, 'v> ValueDe<'a, 'v> {
    fn seq<'de, V: Visitor<'de>>(
        self,
        elems: Elems<'v>,
        collection: bool,
        visitor: V,
    ) -> Result<V::Value> {
        let st = self.st;
        st.enter()?;
        st.dyn_check.push(collection);
        let n = elems.len();
        let mut access = SeqAccess {
            st: &mut *st,
            elems,
            next: 0,
        };
        let v = visitor.visit_seq(&mut access)?;
        let left = n - access.next;
        if left != 0 {
            return Err(Error::data(format_args!(
                "invalid length: array of {n} elements, expected {}",
                n - left
            )));
        }
        st.leave();
        st.dyn_check.pop();
        Ok(v)
    }

    fn map<'de, V: Visitor<'de>>(
        self,
        entries: Entries<'v>,
        attrs: Option<&'static [&'static str]>,
        visitor: V,
    ) -> Result<V::Value> {
        let st = self.st;
        st.enter()?;
        st.dyn_check.push(attrs.is_none());
        let n = entries.len();
        let mut access = MapAccess {
            st: &mut *st,
            entries,
            attrs,
            pending: None,
        };
        let v = visitor.visit_map(&mut access)?;
        if access.entries.len() != 0 {
            return Err(Error::data(format_args!(
                "invalid length: map of {n} entries was not read to the end"
            )));
        }
        st.leave();
        st.dyn_check.pop();
        Ok(v)
    }

    /// Integers, floats and decimal strings all carry numbers.
    fn number_hint<'de, V: Visitor<'de>>(
        self,
        visitor: V,
        expected: &str,
        float: bool,
    ) -> Result<V::Value> {
        let leaf = match self.tok {
            Token::Leaf(leaf) => leaf,
            tok => return Err(invalid(&tok, &expected)),
        };
        match leaf {
            Leaf::UInt(n) => visitor.visit_u64(n),
            Leaf::Int(n) => visitor.visit_i64(n),
            Leaf::Nil => visitor.visit_unit(),
            // A float64 beyond f32's range would turn into infinity in an f32.
            Leaf::F64(f)
                if float
                    && !f.is_nan()
                    && (expected != "f32" || f.is_infinite() || (f as f32).is_finite()) =>
            {
                visitor.visit_f64(f)
            }
            leaf @ (Leaf::F64(_) | Leaf::Str(_) | Leaf::Bin(_)) => {
                let n = number_from_leaf(leaf)?;
                n.visit_as(float, expected, visitor)
            }
            leaf => Err(invalid(&Token::Leaf(leaf), &expected)),
        }
    }

    /// What a newtype struct of tfvalue's token `tok` (not `Value`'s) holds, read here in
    /// code that is not generic (see `deserialize_newtype_struct`).
    fn special(self, tok: Tok) -> Result<Special<'a, 'v>> {
        Ok(match tok {
            Tok::Unknown => match self.tok {
                Token::Unknown(entries) => {
                    // A refined unknown's payload is one more level of nesting.
                    self.st.enter()?;
                    Special::Unknown(handed(entries), self.st)
                }
                _ => Special::Known(self),
            },
            Tok::Dynamic => Special::Dynamic(self.read_dynamic()?),
            Tok::Raw => {
                return Err(Error::data(
                    "a tfvalue::Raw holds the bytes of a value as it came off the wire: a Value has none",
                ))
            }
            Tok::Number => match self.tok {
                Token::Leaf(Leaf::Nil) => Special::Null,
                Token::Leaf(Leaf::UInt(n)) => Special::UInt(n),
                Token::Leaf(Leaf::Int(n)) => Special::Int(n),
                Token::Leaf(Leaf::F64(f)) => Special::Float(f),
                Token::Leaf(Leaf::Str(s)) => Special::Text(s),
                Token::Leaf(Leaf::Bin(b)) => Special::Text(Cow::Borrowed(utf8(b)?)),
                tok => return Err(invalid(&tok, &"a number")),
            },
            Tok::Value => Special::Known(self),
        })
    }

    /// A `dynamic` value: null, an unknown, or `[type JSON, value]`. Not generic, so
    /// compiled here once: a model's `Dynamic` field gets the result handed over.
    fn read_dynamic(self) -> Result<Dynamic> {
        let visitor = crate::dynamic::DynamicVisitor;
        match self.tok {
            Token::Leaf(Leaf::Nil) => visitor.visit_unit(),
            // Refinements say nothing about a value of type dynamic itself: the
            // unknown is handed over as empty bytes.
            Token::Unknown(_) => visitor.visit_bytes(&[]),
            Token::Array(e) if e.len() == 2 => ValueDe {
                tok: Token::Leaf(Leaf::Nil),
                ..self
            }
            .dynamic(e, visitor),
            Token::Array(e) => Err(Error::data(format_args!(
                "a dynamic value must be an array of [type, value], found an array of {}",
                e.len()
            ))),
            tok => Err(Error::invalid_type(
                tok.describe(),
                "a dynamic value [type JSON, value]",
            )),
        }
    }

    /// A `dynamic` value: `[type JSON, value]`.
    fn dynamic<'de, V: Visitor<'de>>(self, elems: Elems<'v>, visitor: V) -> Result<V::Value> {
        let st = self.st;
        st.enter()?;
        st.dyn_check.skip += 1;
        let mut access = DynamicAccess {
            st: &mut *st,
            elems,
            state: 0,
            type_json: None,
        };
        let v = visitor.visit_seq(&mut access);
        let (state, type_json) = (access.state, access.type_json.take());
        st.dyn_check.skip -= 1;
        let v = v?;
        if state < 2 {
            return Err(Error::data("a dynamic value was not read to the end"));
        }
        st.leave();
        if let (0, Some(json)) = (st.dyn_check.skip, type_json) {
            let ty = Type::from_json(&json)?;
            st.dyn_check.record(ty, &[], false)?;
        }
        Ok(v)
    }
}

/// What a newtype struct of one of tfvalue's tokens holds, as `ValueDe::special` read it.
enum Special<'a, 'v> {
    /// A known value where an unknown could be.
    Known(ValueDe<'a, 'v>),
    /// An unknown's refinements, to hand over (one level deeper, to leave after).
    Unknown(crate::unknown::Handed, &'a mut State<'v>),
    /// A dynamic value, to hand over.
    Dynamic(Dynamic),
    /// A number, or null where one could be.
    Null,
    UInt(u64),
    Int(i64),
    Float(f64),
    Text(Cow<'v, str>),
}

fn number_from_leaf(leaf: Leaf<'_>) -> Result<Number> {
    let text = match leaf {
        Leaf::UInt(n) => return Ok(Number::from(n)),
        Leaf::Int(n) => return Ok(Number::from(n)),
        Leaf::F64(f) => {
            return Number::from_f64(f).ok_or_else(|| Error::data("NaN is not a number"))
        }
        Leaf::Str(s) => s,
        Leaf::Bin(b) => Cow::Borrowed(
            std::str::from_utf8(b).map_err(|_| Error::syntax("invalid UTF-8 in number"))?,
        ),
        leaf => return Err(Error::invalid_type(leaf.describe(), "number")),
    };
    text.parse::<Number>().map_err(|e| {
        let msg = e.to_string();
        if msg.contains("range") {
            Error::limit(msg)
        } else {
            Error::data(msg)
        }
    })
}

macro_rules! number_hints {
    ($($method:ident => $name:literal, $float:literal;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.number_hint(visitor, $name, $float)
        }
    )*};
}

impl<'de, 'a, 'v> de::Deserializer<'de> for ValueDe<'a, 'v> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.tok {
            Token::Leaf(Leaf::Nil) => visitor.visit_unit(),
            Token::Leaf(Leaf::Bool(b)) => visitor.visit_bool(b),
            Token::Leaf(Leaf::UInt(n)) => visitor.visit_u64(n),
            Token::Leaf(Leaf::Int(n)) => visitor.visit_i64(n),
            Token::Leaf(Leaf::F64(f)) => visitor.visit_f64(f),
            Token::Leaf(Leaf::Str(s)) => visitor.visit_str(&s),
            Token::Leaf(Leaf::Bin(b)) => visitor.visit_bytes(b),
            Token::Array(e) => ValueDe {
                tok: Token::Leaf(Leaf::Nil),
                ..self
            }
            .seq(e, true, visitor),
            Token::Map(m) => ValueDe {
                tok: Token::Leaf(Leaf::Nil),
                ..self
            }
            .map(m, None, visitor),
            tok @ Token::Unknown(_) => Err(invalid(&tok, &"a value")),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.tok {
            Token::Leaf(Leaf::Bool(b)) => visitor.visit_bool(b),
            Token::Leaf(Leaf::Nil) => visitor.visit_unit(),
            tok => Err(invalid(&tok, &visitor)),
        }
    }

    number_hints! {
        deserialize_i8 => "i8", false;
        deserialize_i16 => "i16", false;
        deserialize_i32 => "i32", false;
        deserialize_i64 => "i64", false;
        deserialize_i128 => "i128", false;
        deserialize_u8 => "u8", false;
        deserialize_u16 => "u16", false;
        deserialize_u32 => "u32", false;
        deserialize_u64 => "u64", false;
        deserialize_u128 => "u128", false;
        deserialize_f32 => "f32", true;
        deserialize_f64 => "f64", true;
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.tok {
            Token::Leaf(Leaf::Str(s)) => visitor.visit_str(&s),
            // bin is accepted where a string is expected, if it is valid UTF-8
            Token::Leaf(Leaf::Bin(b)) => visitor.visit_str(utf8(b)?),
            Token::Leaf(Leaf::Nil) => visitor.visit_unit(),
            tok => Err(invalid(&tok, &visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.tok {
            Token::Leaf(Leaf::Str(s)) => visitor.visit_bytes(s.as_bytes()),
            Token::Leaf(Leaf::Bin(b)) => visitor.visit_bytes(b),
            Token::Leaf(Leaf::Nil) => visitor.visit_unit(),
            tok => Err(invalid(&tok, &visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.tok {
            Token::Leaf(Leaf::Nil) => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.tok {
            Token::Leaf(Leaf::Nil) => visitor.visit_unit(),
            tok => Err(invalid(&tok, &visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        // The reading is done by `special`, which is not generic: what is left here for
        // each visitor is which of its methods to call.
        match token_name(name) {
            None => visitor.visit_newtype_struct(self),
            // A known value where an unknown could be, the common case: decided here.
            Some(Tok::Unknown) if !matches!(self.tok, Token::Unknown(_)) => {
                visitor.visit_newtype_struct(self)
            }
            Some(Tok::Value) => {
                // A `Value` checks its collections of dynamic values against its type itself.
                let ValueDe { st, tok, field } = self;
                st.dyn_check.skip += 1;
                let v = visitor.visit_newtype_struct(ValueDe {
                    st: &mut *st,
                    tok,
                    field,
                });
                st.dyn_check.skip -= 1;
                v
            }
            Some(tok) => match self.special(tok)? {
                Special::Known(de) => visitor.visit_newtype_struct(de),
                Special::Unknown(handed, st) => {
                    let v = crate::unknown::hand_over(handed, visitor)?;
                    st.leave();
                    Ok(v)
                }
                Special::Dynamic(d) => crate::dynamic::hand_over(d, visitor),
                Special::Null => visitor.visit_unit(),
                Special::UInt(n) => visitor.visit_u64(n),
                Special::Int(n) => visitor.visit_i64(n),
                Special::Float(f) => visitor.visit_f64(f),
                Special::Text(s) => visitor.visit_str(&s),
            },
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.seq_or_tuple(true, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.seq_or_tuple(false, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.seq_or_tuple(false, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.map_or_struct(None, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.map_or_struct(Some(fields), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.tok {
            Token::Leaf(Leaf::Str(s)) => visitor.visit_enum(StrDeserializer::<Error>::new(&s)),
            Token::Leaf(Leaf::Bin(b)) => {
                visitor.visit_enum(StrDeserializer::<Error>::new(utf8(b)?))
            }
            tok => Err(invalid(&tok, &visitor)),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((name, fields)) = self.field {
            self.st.undeclared = true;
            return Err(Error::data(crate::error::unsupported_attribute(
                name,
                fields.iter().copied(),
            )));
        }
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// Which private token a newtype struct name is.
fn token_name(name: &str) -> Option<Tok> {
    crate::private::token(name)
}

impl<'a, 'v> ValueDe<'a, 'v> {
    fn seq_or_tuple<'de, V: Visitor<'de>>(self, collection: bool, visitor: V) -> Result<V::Value> {
        match self.tok {
            Token::Array(e) => ValueDe {
                tok: Token::Leaf(Leaf::Nil),
                ..self
            }
            .seq(e, collection, visitor),
            Token::Leaf(Leaf::Nil) => visitor.visit_unit(),
            tok => Err(invalid(&tok, &visitor)),
        }
    }

    fn map_or_struct<'de, V: Visitor<'de>>(
        self,
        attrs: Option<&'static [&'static str]>,
        visitor: V,
    ) -> Result<V::Value> {
        match self.tok {
            Token::Map(m) => ValueDe {
                tok: Token::Leaf(Leaf::Nil),
                ..self
            }
            .map(m, attrs, visitor),
            Token::Leaf(Leaf::Nil) => visitor.visit_unit(),
            tok => Err(invalid(&tok, &visitor)),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Sequences and maps

struct SeqAccess<'a, 'v> {
    st: &'a mut State<'v>,
    elems: Elems<'v>,
    next: usize,
}

/// Deserializes `value` (written against `ty`) with a state of its own, for values made
/// on the way, which the walk cannot borrow for as long as its own.
fn detached<'de, S: DeserializeSeed<'de>>(
    depth_left: usize,
    value: &Value,
    ty: Option<&Type>,
    seed: S,
) -> Result<S::Value> {
    let mut st = State::detached(depth_left);
    let tok = token_of(value, ty)?;
    seed.deserialize(ValueDe {
        st: &mut st,
        tok,
        field: None,
    })
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let i = self.next;
        if i >= self.elems.len() {
            return Ok(None);
        }
        self.next += 1;
        self.st.dyn_check.at(At::Index(i as u32));
        let r = match &self.elems {
            Elems::Slice(vs, ts) => token_of(&vs[i], ts.get(i)).and_then(|tok| {
                seed.deserialize(ValueDe {
                    st: &mut *self.st,
                    tok,
                    field: None,
                })
            }),
            Elems::Refs(vs, t) => token_of(vs[i], *t).and_then(|tok| {
                seed.deserialize(ValueDe {
                    st: &mut *self.st,
                    tok,
                    field: None,
                })
            }),
            Elems::Owned(vs, t) => detached(self.st.depth_left, &vs[i], *t, seed),
            Elems::Dynamic(d) => {
                let (json, ty, value) = &**d;
                if i == 0 {
                    let mut st = State::detached(self.st.depth_left);
                    seed.deserialize(ValueDe {
                        st: &mut st,
                        tok: Token::Leaf(Leaf::Bin(json)),
                        field: None,
                    })
                } else {
                    detached(self.st.depth_left, value, Some(ty), seed)
                }
            }
        };
        r.map(Some)
            .map_err(|e| e.prepend(PathStep::Index(i as u64)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.elems.len() - self.next)
    }
}

/// The two elements of a `dynamic` value: its type JSON (str or bin), then the value.
struct DynamicAccess<'a, 'v> {
    st: &'a mut State<'v>,
    elems: Elems<'v>,
    state: u8,
    /// The type JSON, once read.
    type_json: Option<Vec<u8>>,
}

impl<'de> de::SeqAccess<'de> for DynamicAccess<'_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.state += 1;
        match (self.state, &self.elems) {
            (1, Elems::Dynamic(d)) => {
                self.type_json = Some(d.0.clone());
                seed.deserialize(BytesDeserializer::<Error>::new(&d.0))
                    .map(Some)
            }
            (1, elems) => {
                let tok = match elems {
                    Elems::Slice(vs, ts) => token_of(&vs[0], ts.get(0))?,
                    Elems::Refs(vs, t) => token_of(vs[0], *t)?,
                    Elems::Owned(vs, t) => token_of(&vs[0], *t)?,
                    Elems::Dynamic(_) => return Err(Error::data("a dynamic value out of step")),
                };
                let bytes: &[u8] = match &tok {
                    Token::Leaf(Leaf::Str(s)) => s.as_bytes(),
                    Token::Leaf(Leaf::Bin(b)) => b,
                    tok => return Err(Error::invalid_type(tok.describe(), "type JSON as bytes")),
                };
                self.type_json = Some(bytes.to_vec());
                seed.deserialize(BytesDeserializer::<Error>::new(bytes))
                    .map(Some)
            }
            (2, Elems::Dynamic(d)) => {
                let (_, ty, value) = &**d;
                detached(self.st.depth_left, value, Some(ty), seed).map(Some)
            }
            (2, Elems::Slice(vs, ts)) => {
                let tok = token_of(&vs[1], ts.get(1))?;
                seed.deserialize(ValueDe {
                    st: &mut *self.st,
                    tok,
                    field: None,
                })
                .map(Some)
            }
            (2, Elems::Refs(vs, t)) => {
                let tok = token_of(vs[1], *t)?;
                seed.deserialize(ValueDe {
                    st: &mut *self.st,
                    tok,
                    field: None,
                })
                .map(Some)
            }
            (2, Elems::Owned(vs, t)) => detached(self.st.depth_left, &vs[1], *t, seed).map(Some),
            _ => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(2usize.saturating_sub(self.state as usize))
    }
}

/// The value side of the entry being read.
enum Pending<'v> {
    Value(&'v Value, Option<&'v Type>),
    /// An attribute the object leaves out, written as null.
    Null,
}

struct MapAccess<'a, 'v> {
    st: &'a mut State<'v>,
    entries: Entries<'v>,
    /// Keys are attribute names (a struct's fields, given) rather than map keys.
    attrs: Option<&'static [&'static str]>,
    /// The key (as written, and as the value has it) and value of the entry being read.
    pending: Option<(Cow<'v, str>, &'v str, Pending<'v>)>,
}

impl<'de, 'v> de::MapAccess<'de> for MapAccess<'_, 'v> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let entry = match &mut self.entries {
            Entries::Map(it, t) => it
                .next()
                .map(|(k, v)| (Cow::Borrowed(k.as_str()), k.as_str(), Pending::Value(v, *t))),
            Entries::Sorted(it, t) => it
                .next()
                .map(|(k, orig, v)| (k, orig, Pending::Value(v, *t))),
            Entries::Object(attrs, present) => attrs.next().map(|(name, aty)| {
                let mut found = None;
                while let Some((k, v)) = present.peek() {
                    match k.as_bytes().cmp(name.as_bytes()) {
                        // not declared (conformance rules it out): not written
                        Ordering::Less => {
                            present.next();
                            continue;
                        }
                        Ordering::Equal => {
                            found = Some(*v);
                            present.next();
                        }
                        Ordering::Greater => {}
                    }
                    break;
                }
                let value = match found {
                    Some(v) => Pending::Value(v, Some(aty)),
                    None => Pending::Null,
                };
                (Cow::Borrowed(name.as_str()), name.as_str(), value)
            }),
        };
        let Some((key, orig, value)) = entry else {
            return Ok(None);
        };
        let k = seed.deserialize(StrDeserializer::<Error>::new(&key))?;
        self.pending = Some((key, orig, value));
        Ok(Some(k))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some((key, orig, value)) = self.pending.take() else {
            return Err(Error::data("a map value was asked for before its key"));
        };
        let field = match self.attrs {
            Some(fields) => {
                self.st.dyn_check.at(At::Field(orig));
                Some((orig, fields))
            }
            None => {
                self.st.dyn_check.at(At::Key(orig));
                None
            }
        };
        let tok = match value {
            Pending::Value(v, t) => token_of(v, t),
            Pending::Null => Ok(Token::Leaf(Leaf::Nil)),
        };
        tok.and_then(|tok| {
            seed.deserialize(ValueDe {
                st: &mut *self.st,
                tok,
                field,
            })
        })
        .map_err(|e| {
            if std::mem::take(&mut self.st.undeclared) {
                return e;
            }
            e.prepend(match self.attrs {
                Some(_) => PathStep::Attr(key.into_owned()),
                None => PathStep::Key(key.into_owned()),
            })
        })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}
