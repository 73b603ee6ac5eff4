//! The MessagePack deserializer.

use std::collections::HashSet;

use serde::de::{
    self, value::BorrowedBytesDeserializer, value::BorrowedStrDeserializer, DeserializeSeed,
    IntoDeserializer, Visitor,
};

use super::read::{number_from_token, SliceReader, Token};
use super::wire::unit_error;
use crate::dyn_check::{At, DynCheck};
use crate::error::{Error, Origin, Result};
use crate::path::PathStep;
use crate::private::{bytes_cmp, token, Token as Tok};
use std::cmp::Ordering;

/// The default nesting limit (the model's, [`limits::DEFAULT_MAX_DEPTH`](crate::limits::DEFAULT_MAX_DEPTH)).
pub use crate::limits::DEFAULT_MAX_DEPTH;

/// Deserializes Terraform's MessagePack wire format into any `serde::Deserialize` type.
///
/// Build it from a slice, set limits, deserialize, then call [`end`](Deserializer::end)
/// to reject trailing bytes (the free function [`from_slice`](super::from_slice) does
/// all of that):
///
/// ```
/// use tfvalue::msgpack::Deserializer;
/// use serde::Deserialize;
///
/// let bytes = b"\x92\xa1a\xa1b";
/// let mut de = Deserializer::from_slice(bytes).max_depth(16);
/// let v = Vec::<String>::deserialize(&mut de)?;
/// de.end()?;
/// assert_eq!(v, ["a", "b"]);
/// # Ok::<(), tfvalue::Error>(())
/// ```
pub struct Deserializer<'de> {
    r: SliceReader<'de>,
    depth_left: usize,
    max_depth: usize,
    ignore_undeclared: bool,
    /// Where the value of the struct field being read starts: a struct that ignores the
    /// value at that very place does not declare the attribute.
    field_value_at: usize,
    /// The name of that field, where its key starts, and the fields the struct declares.
    field_key: &'de str,
    field_key_at: usize,
    field_names: &'static [&'static str],
    /// Set when an attribute was found undeclared: the error names the attribute, and the
    /// path is the object's (as in every decoder).
    undeclared: bool,
    /// Where the deserializer is, for the check that the elements of a collection agree on
    /// the types of the `dynamic` values in them.
    dyn_check: DynCheck<'de>,
}

impl<'de> Deserializer<'de> {
    /// A deserializer over `input`, borrowing strings from it where the target allows.
    pub fn from_slice(input: &'de [u8]) -> Self {
        Deserializer {
            r: SliceReader::new(input),
            depth_left: DEFAULT_MAX_DEPTH,
            max_depth: DEFAULT_MAX_DEPTH,
            ignore_undeclared: false,
            field_value_at: usize::MAX,
            field_key: "",
            field_key_at: 0,
            field_names: &[],
            undeclared: false,
            dyn_check: DynCheck::default(),
        }
    }

    /// Sets the nesting limit (default 128): arrays, maps, refined unknowns and the body of
    /// each `dynamic` value count one level each.
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.depth_left = depth;
        self.max_depth = depth;
        self
    }

    /// Whether an attribute that the target struct does not declare is skipped (`true`)
    /// or an error (`false`, the default, so that nothing is dropped silently).
    ///
    /// ```
    /// use serde::Deserialize;
    /// use tfvalue::msgpack::Deserializer;
    ///
    /// #[derive(Deserialize, Debug)]
    /// struct Subset { name: String }
    ///
    /// let bytes = b"\x82\xa4name\xa1x\xa4size\x05";
    /// let err = tfvalue::msgpack::from_slice::<Subset>(bytes).unwrap_err();
    /// assert_eq!(err.message(), "unsupported attribute `size`, expected one of `name`");
    /// assert_eq!(err.offset(), Some(8)); // where `size` is
    /// let mut de = Deserializer::from_slice(bytes).ignore_undeclared_attributes(true);
    /// assert_eq!(Subset::deserialize(&mut de)?.name, "x");
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    #[must_use]
    pub fn ignore_undeclared_attributes(mut self, ignore: bool) -> Self {
        self.ignore_undeclared = ignore;
        self
    }

    /// The byte offset of the next item.
    pub fn position(&self) -> usize {
        self.r.pos()
    }

    /// Checks that the whole input was consumed.
    ///
    /// # Errors
    ///
    /// `trailing data after the value` when any input is left.
    pub fn end(&mut self) -> Result<()> {
        if self.r.remaining() == 0 {
            Ok(())
        } else {
            Err(self.r.err(Error::syntax(format_args!(
                "trailing data after the value ({})",
                crate::error::plural(self.r.remaining() as u64, "byte")
            ))))
        }
    }

    /// The input that has not been consumed yet.
    pub fn remaining_input(&self) -> &'de [u8] {
        self.r.rest()
    }

    #[inline]
    fn enter(&mut self) -> Result<()> {
        match self.depth_left.checked_sub(1) {
            Some(d) => {
                self.depth_left = d;
                Ok(())
            }
            None => Err(self.r.err(Error::limit(format_args!(
                "nesting is deeper than the limit of {}",
                self.max_depth
            )))),
        }
    }

    #[inline]
    fn leave(&mut self) {
        self.depth_left += 1;
    }

    #[cold]
    fn invalid(&self, at: usize, t: &Token<'_>, expected: &dyn de::Expected) -> Error {
        if let Token::Ext(_) = t {
            return Error::data(format_args!(
                "an unknown value where {expected} was expected (use tfvalue::Unknown<T> for values that can be unknown)"
            ))
            .at_offset(Origin::Msgpack, at as u64);
        }
        Error::invalid_type(t.describe(), expected).at_offset(Origin::Msgpack, at as u64)
    }

    #[inline]
    fn visit_seq_of<V: Visitor<'de>>(
        &mut self,
        n: u32,
        at: usize,
        collection: bool,
        visitor: V,
    ) -> Result<V::Value> {
        self.enter()?;
        self.dyn_check.push(collection);
        let mut access = SeqAccess {
            de: self,
            left: n,
            index: 0,
        };
        let v = visitor
            .visit_seq(&mut access)
            .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))?;
        let left = access.left;
        if left != 0 {
            return Err(self.r.err(Error::data(format_args!(
                "invalid length: array of {n} elements, expected {}",
                n - left
            ))));
        }
        self.leave();
        self.dyn_check.pop();
        Ok(v)
    }

    #[inline]
    fn visit_map_of<V: Visitor<'de>>(
        &mut self,
        n: u32,
        at: usize,
        attrs: Option<&'static [&'static str]>,
        visitor: V,
    ) -> Result<V::Value> {
        self.enter()?;
        self.dyn_check.push(attrs.is_none());
        let mut access = MapAccess::new(self, n, attrs);
        let v = visitor
            .visit_map(&mut access)
            .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))?;
        let left = access.left;
        if left != 0 {
            return Err(self.r.err(Error::data(format_args!(
                "invalid length: map of {n} entries was not read to the end"
            ))));
        }
        self.leave();
        self.dyn_check.pop();
        Ok(v)
    }

    /// An array read as a list or set (`collection`) or as a tuple.
    fn seq_or_tuple<V: Visitor<'de>>(&mut self, collection: bool, visitor: V) -> Result<V::Value> {
        let at = self.r.pos();
        match self.r.next()? {
            Token::Array(n) => self.visit_seq_of(n, at, collection, visitor),
            Token::Nil => visitor
                .visit_unit()
                .map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64)),
            t => Err(self.invalid(at, &t, &visitor)),
        }
    }

    /// Integers, floats and decimal strings all carry numbers.
    fn number_hint<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        expected: &str,
        float: bool,
    ) -> Result<V::Value> {
        let at = self.r.pos();
        let t = self.r.next()?;
        let res = match t {
            Token::UInt(n) => visitor.visit_u64(n),
            Token::Int(n) => visitor.visit_i64(n),
            Token::Nil => visitor.visit_unit(),
            // A float64 beyond f32's range would turn into infinity in an f32: checked below.
            Token::F64(f)
                if float
                    && !f.is_nan()
                    && (expected != "f32" || f.is_infinite() || (f as f32).is_finite()) =>
            {
                visitor.visit_f64(f)
            }
            Token::F32(f) if float && !f.is_nan() => visitor.visit_f32(f),
            Token::F32(_) | Token::F64(_) | Token::Str(_) | Token::Bin(_) => {
                let n =
                    number_from_token(t).map_err(|e| e.at_offset(Origin::Msgpack, at as u64))?;
                n.visit_as(float, expected, visitor)
            }
            t => return Err(self.invalid(at, &t, &expected)),
        };
        res.map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64))
    }
}

macro_rules! number_hints {
    ($($method:ident => $name:literal, $float:literal;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.number_hint(visitor, $name, $float)
        }
    )*};
}

impl<'de> Deserializer<'de> {
    /// What a newtype struct of tfvalue's token `tok` holds (unknown with an extension
    /// next, dynamic, raw or number; the caller decides the other cases), read here in
    /// code that is not generic (see `deserialize_newtype_struct`).
    fn newtype(&mut self, tok: Option<Tok>) -> Result<Newtype<'de>> {
        Ok(match tok {
            // Decided by the caller.
            None | Some(Tok::Value) => return Err(Error::data("not a token read here")),
            Some(Tok::Unknown) => {
                let handed = self.read_unknown()?;
                self.enter()?;
                Newtype::Unknown(handed)
            }
            Some(Tok::Dynamic) => Newtype::Dynamic(Box::new(self.read_dynamic()?)),
            Some(Tok::Raw) => {
                // Skip the value without building it, and hand over its bytes.
                let start = self.r.pos();
                self.r.skip_value(self.depth_left)?;
                Newtype::Raw(&self.r.input_full()[start..self.r.pos()])
            }
            Some(Tok::Number) => {
                let at = self.r.pos();
                Newtype::Number(match self.r.next()? {
                    Token::Nil => NumberToken::Null,
                    Token::UInt(n) => NumberToken::UInt(n),
                    Token::Int(n) => NumberToken::Int(n),
                    Token::F32(f) => NumberToken::Float(f as f64),
                    Token::F64(f) => NumberToken::Float(f),
                    Token::Str(b) | Token::Bin(b) => NumberToken::Text(
                        self.r
                            .utf8(b)
                            .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))?,
                    ),
                    t => return Err(self.invalid(at, &t, &"a number")),
                })
            }
        })
    }

    /// Reads an unknown (the extension next), for `unknown::hand_over`. Not generic.
    fn read_unknown(&mut self) -> Result<crate::unknown::Handed> {
        let at = self.r.pos();
        let Token::Ext(raw) = self.r.next()? else {
            return Err(self.r.err(Error::syntax("malformed extension")));
        };
        super::unknown::handed(raw).map_err(|e| e.at_offset(Origin::Msgpack, at as u64))
    }

    /// Reads a `dynamic` value: null, an unknown, or `[type JSON, value]`. Not generic, so
    /// compiled here once: a model's `Dynamic` field gets the result handed over.
    fn read_dynamic(&mut self) -> Result<crate::dynamic::Dynamic> {
        let visitor = crate::dynamic::DynamicVisitor;
        let at = self.r.pos();
        let t = self.r.next()?;
        match t {
            Token::Nil => visitor.visit_unit(),
            Token::Ext(raw) => {
                // Refinements say nothing about a value of type dynamic itself: the
                // extension is checked, and the unknown handed over as empty bytes.
                super::unknown::Refinements::from_ext(raw)?;
                visitor.visit_borrowed_bytes(&[])
            }
            Token::Array(2) => {
                self.enter()?;
                self.dyn_check.skip += 1;
                let mut access = DynamicAccess {
                    de: self,
                    state: 0,
                    type_json: None,
                };
                let v = visitor.visit_seq(&mut access);
                let (type_json, state) = (access.type_json, access.state);
                self.dyn_check.skip -= 1;
                let v = v?;
                if state < 2 {
                    return Err(Error::data("a dynamic value was not read to the end"));
                }
                self.leave();
                if let (0, Some(json)) = (self.dyn_check.skip, type_json) {
                    let ty = crate::types::Type::from_json(json)?;
                    self.dyn_check.record(ty, &[], false)?;
                }
                Ok(v)
            }
            Token::Array(n) => Err(Error::data(format_args!(
                "a dynamic value must be an array of [type, value], found an array of {n}"
            ))),
            t => Err(Error::invalid_type(
                t.describe(),
                "a dynamic value [type JSON, value]",
            )),
        }
        .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))
    }
}

/// What a newtype struct holds, as `Deserializer::newtype` read it.
enum Newtype<'de> {
    /// An unknown's refinements, to hand over.
    Unknown(crate::unknown::Handed),
    /// A dynamic value, to hand over (boxed: the others are small).
    Dynamic(Box<crate::dynamic::Dynamic>),
    /// The bytes of one value.
    Raw(&'de [u8]),
    /// A number as the wire has it.
    Number(NumberToken<'de>),
}

enum NumberToken<'de> {
    Null,
    UInt(u64),
    Int(i64),
    Float(f64),
    Text(&'de str),
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.r.pos();
        let t = self.r.next()?;
        let res = match t {
            Token::Nil => visitor.visit_unit(),
            Token::Bool(b) => visitor.visit_bool(b),
            Token::UInt(n) => visitor.visit_u64(n),
            Token::Int(n) => visitor.visit_i64(n),
            Token::F32(f) => visitor.visit_f32(f),
            Token::F64(f) => visitor.visit_f64(f),
            Token::Str(b) => {
                let s = self
                    .r
                    .utf8(b)
                    .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))?;
                visitor.visit_borrowed_str(s)
            }
            Token::Bin(b) => visitor.visit_borrowed_bytes(b),
            Token::Array(n) => return self.visit_seq_of(n, at, true, visitor),
            Token::Map(n) => return self.visit_map_of(n, at, None, visitor),
            Token::Ext(_) => return Err(self.invalid(at, &t, &"a value")),
        };
        res.map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.r.pos();
        let t = self.r.next()?;
        let res = match t {
            Token::Bool(b) => visitor.visit_bool(b),
            Token::Nil => visitor.visit_unit(),
            t => return Err(self.invalid(at, &t, &visitor)),
        };
        res.map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64))
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
        let at = self.r.pos();
        if let Some(b) = self.r.try_short_str() {
            let s = self
                .r
                .utf8(b)
                .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))?;
            return visitor
                .visit_borrowed_str(s)
                .map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64));
        }
        let t = self.r.next()?;
        let res = match t {
            // bin is accepted where a string is expected, if it is valid UTF-8
            Token::Str(b) | Token::Bin(b) => {
                let s = self
                    .r
                    .utf8(b)
                    .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))?;
                visitor.visit_borrowed_str(s)
            }
            Token::Nil => visitor.visit_unit(),
            t => return Err(self.invalid(at, &t, &visitor)),
        };
        res.map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.r.pos();
        let t = self.r.next()?;
        let res = match t {
            Token::Str(b) | Token::Bin(b) => visitor.visit_borrowed_bytes(b),
            Token::Nil => visitor.visit_unit(),
            t => return Err(self.invalid(at, &t, &visitor)),
        };
        res.map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.r.peek()? == 0xc0 {
            let at = self.r.pos();
            self.r.next()?;
            visitor
                .visit_none()
                .map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64))
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.r.pos();
        match self.r.next()? {
            Token::Nil => visitor.visit_unit(),
            t => Err(self.invalid(at, &t, &visitor)),
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
        // The reading is done by `newtype`, which is not generic: what is left here for
        // each visitor is which of its methods to call. The common cases (no token, a known
        // value where an unknown could be) are decided here, without a call.
        let tok = token(name);
        match tok {
            None => return visitor.visit_newtype_struct(self),
            Some(Tok::Unknown) if !matches!(self.r.peek()?, 0xc7..=0xc9 | 0xd4..=0xd8) => {
                return visitor.visit_newtype_struct(self)
            }
            Some(Tok::Value) => {
                // A `Value` checks its collections of dynamic values against its type itself.
                self.dyn_check.skip += 1;
                let v = visitor.visit_newtype_struct(&mut *self);
                self.dyn_check.skip -= 1;
                return v;
            }
            _ => {}
        }
        let at = self.r.pos();
        let offset = |e: Error| e.at_offset(Origin::Msgpack, at as u64);
        match self.newtype(tok)? {
            Newtype::Unknown(handed) => {
                // An unknown's payload is one more level of nesting (`newtype` entered it).
                let v = crate::unknown::hand_over(handed, visitor).map_err(offset)?;
                self.leave();
                Ok(v)
            }
            Newtype::Dynamic(d) => crate::dynamic::hand_over(*d, visitor),
            Newtype::Raw(bytes) => visitor.visit_borrowed_bytes(bytes).map_err(offset),
            Newtype::Number(n) => match n {
                NumberToken::Null => visitor.visit_unit(),
                NumberToken::UInt(n) => visitor.visit_u64(n),
                NumberToken::Int(n) => visitor.visit_i64(n),
                NumberToken::Float(f) => visitor.visit_f64(f),
                NumberToken::Text(s) => visitor.visit_borrowed_str(s),
            }
            .map_err(offset),
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
        let at = self.r.pos();
        match self.r.next()? {
            Token::Map(n) => self.visit_map_of(n, at, None, visitor),
            Token::Nil => visitor
                .visit_unit()
                .map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64)),
            t => Err(self.invalid(at, &t, &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let at = self.r.pos();
        match self.r.next()? {
            Token::Map(n) => self.visit_map_of(n, at, Some(fields), visitor),
            Token::Nil => visitor
                .visit_unit()
                .map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64)),
            t => Err(self.invalid(at, &t, &visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let at = self.r.pos();
        match self.r.next()? {
            Token::Str(b) | Token::Bin(b) => {
                let s = self
                    .r
                    .utf8(b)
                    .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))?;
                visitor
                    .visit_enum(s.into_deserializer())
                    .map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64))
            }
            t => Err(self.invalid(at, &t, &visitor)),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if !self.ignore_undeclared && self.r.pos() == self.field_value_at {
            // Where the attribute's name is, and the object's path (as every decoder).
            self.undeclared = true;
            return Err(Error::data(crate::error::unsupported_attribute(
                self.field_key,
                self.field_names.iter().copied(),
            ))
            .at_offset(Origin::Msgpack, self.field_key_at as u64));
        }
        self.r.skip_value(self.depth_left)?;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

struct SeqAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    left: u32,
    index: u64,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let i = self.index;
        self.index += 1;
        self.de.dyn_check.at(At::Index(i as u32));
        match seed.deserialize(&mut *self.de) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(e.prepend(PathStep::Index(i))),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

struct MapAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    left: u32,
    total: u32,
    /// Keys are attribute names (struct, object) rather than map keys.
    attrs: bool,
    /// The fields of the struct being read.
    fields: &'static [&'static str],
    /// Where the last key starts.
    key_at: usize,
    /// Where the entries start, to rescan for duplicates when keys arrive out of order.
    start: usize,
    key: &'de str,
    prev: Option<&'de str>,
    seen: Option<HashSet<&'de str>>,
}

impl<'a, 'de> MapAccess<'a, 'de> {
    /// The entries of a map (`attrs`: a struct's or an object's, with the struct's
    /// fields) of `n` entries, starting here.
    #[inline]
    fn new(de: &'a mut Deserializer<'de>, n: u32, attrs: Option<&'static [&'static str]>) -> Self {
        let start = de.r.pos();
        MapAccess {
            de,
            left: n,
            total: n,
            attrs: attrs.is_some(),
            fields: attrs.unwrap_or_default(),
            start,
            key: "",
            key_at: start,
            prev: None,
            seen: None,
        }
    }

    /// Reads a key. Strings and valid UTF-8 bin are keys; anything else is an error (go-cty
    /// reads nil and integer keys as the empty string, which would make different inputs
    /// one key: "all keys must be strings").
    #[inline]
    fn read_key(r: &mut SliceReader<'de>) -> Result<&'de str> {
        match r.try_short_str() {
            Some(b) => r.utf8(b),
            None => Self::read_key_slow(r),
        }
    }

    fn read_key_slow(r: &mut SliceReader<'de>) -> Result<&'de str> {
        let at = r.pos();
        match r.next()? {
            Token::Str(b) | Token::Bin(b) => r.utf8(b),
            t => Err(Error::data(format_args!(
                "map keys must be strings, found {}",
                t.describe()
            ))
            .at_offset(Origin::Msgpack, at as u64)),
        }
    }

    /// Rejects a key seen before. Terraform writes keys sorted, so the common case is a
    /// comparison with the previous key, kept inline; out of order, a set of the keys so
    /// far is built once.
    #[inline]
    fn check_duplicate(&mut self, key: &'de str, at: usize) -> Result<()> {
        if self.seen.is_none() {
            match self.prev {
                Some(prev) if bytes_cmp(prev.as_bytes(), key.as_bytes()) != Ordering::Less => {}
                _ => {
                    self.prev = Some(key);
                    return Ok(());
                }
            }
        }
        self.check_duplicate_slow(key, at)
    }

    #[cold]
    fn check_duplicate_slow(&mut self, key: &'de str, at: usize) -> Result<()> {
        let dup = || {
            let what = if self.attrs { "attribute" } else { "key" };
            Error::data(format_args!("duplicate {what} `{key}`"))
                .at_offset(Origin::Msgpack, at as u64)
        };
        if let Some(seen) = &mut self.seen {
            if !seen.insert(key) {
                return Err(dup());
            }
            return Ok(());
        }
        match self.prev {
            None => {}
            Some(prev) if prev < key => {}
            Some(prev) if prev == key => return Err(dup()),
            Some(_) => {
                // Out of order: collect the keys read so far by scanning again.
                let read = self.total - self.left - 1;
                let mut r = SliceReader::new(self.de.r.input_full());
                r.seek(self.start);
                let mut seen = HashSet::with_capacity(read as usize + 1);
                for _ in 0..read {
                    seen.insert(Self::read_key(&mut r)?);
                    r.skip_value(self.de.depth_left)?;
                }
                if !seen.insert(key) {
                    return Err(dup());
                }
                self.seen = Some(seen);
            }
        }
        self.prev = Some(key);
        Ok(())
    }
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let at = self.de.r.pos();
        let key = Self::read_key(&mut self.de.r)?;
        self.check_duplicate(key, at)?;
        self.key = key;
        self.key_at = at;
        seed.deserialize(BorrowedStrDeserializer::<Error>::new(key))
            .map(Some)
            .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        if self.attrs {
            self.de.field_value_at = self.de.r.pos();
            self.de.field_key = self.key;
            self.de.field_key_at = self.key_at;
            self.de.field_names = self.fields;
            self.de.dyn_check.at(At::Field(self.key));
        } else {
            self.de.dyn_check.at(At::Key(self.key));
        }
        match seed.deserialize(&mut *self.de) {
            Ok(v) => Ok(v),
            Err(e) if std::mem::take(&mut self.de.undeclared) => Err(e),
            Err(e) => Err(e.prepend(if self.attrs {
                PathStep::Attr(self.key.to_owned())
            } else {
                PathStep::Key(self.key.to_owned())
            })),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

/// The two elements of a `dynamic` value: its type JSON (str or bin), then the value.
struct DynamicAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    state: u8,
    /// The type JSON, once read.
    type_json: Option<&'de [u8]>,
}

impl<'de> de::SeqAccess<'de> for DynamicAccess<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.state += 1;
        match self.state {
            1 => {
                let at = self.de.r.pos();
                match self.de.r.next()? {
                    Token::Str(b) | Token::Bin(b) => {
                        self.type_json = Some(b);
                        seed.deserialize(BorrowedBytesDeserializer::<Error>::new(b))
                            .map(Some)
                            .map_err(|e| e.at_offset(Origin::Msgpack, at as u64))
                    }
                    t => Err(Error::invalid_type(t.describe(), "type JSON as bytes")
                        .at_offset(Origin::Msgpack, at as u64)),
                }
            }
            2 => seed.deserialize(&mut *self.de).map(Some),
            _ => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(2usize.saturating_sub(self.state as usize))
    }
}

/// The steps of the `deserialize_*` methods above around their visitors, for the decoders
/// of [`super::wire`]: each does what its method does before and after the visitor, so
/// that a model decodes with the same checks, errors and paths through code compiled here.
impl<'de> Deserializer<'de> {
    /// `deserialize_option`: a nil next is taken (`true`).
    #[inline]
    #[doc(hidden)]
    pub fn wire_take_nil(&mut self) -> Result<bool> {
        if self.r.peek()? == 0xc0 {
            self.r.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// `deserialize_newtype_struct` of an `Unknown`: is an extension next?
    #[inline]
    pub(super) fn wire_peek_unknown(&mut self) -> Result<bool> {
        Ok(matches!(self.r.peek()?, 0xc7..=0xc9 | 0xd4..=0xd8))
    }

    /// The unknown next (the extension): its refinements, `None` for one refined as
    /// definitely null, and where it starts. One level is entered, left by
    /// [`wire_leave`](Self::wire_leave) once the value is made.
    pub(super) fn wire_unknown(&mut self) -> Result<(Option<crate::unknown::Refinements>, usize)> {
        use crate::unknown::{Decoded, Handed, RefineKind, Refinements};
        let at = self.r.pos();
        let handed = self.read_unknown()?;
        self.enter()?;
        let decoded = match handed {
            Handed::Plain => Ok(Decoded::Unknown(Refinements::new())),
            Handed::Read(read) => read(RefineKind::Any),
        };
        match decoded.map_err(|e| e.at_offset(Origin::Msgpack, at as u64))? {
            Decoded::Unknown(r) => Ok((Some(r), at)),
            Decoded::Null => Ok((None, at)),
        }
    }

    #[inline]
    pub(super) fn wire_leave(&mut self) {
        self.leave();
    }

    /// The start of an array read as a list or set (`deserialize_seq`): its length and
    /// where it starts. Anything else is the error the visitor expecting `expected` gets.
    pub(super) fn wire_seq_begin(&mut self, expected: &str) -> Result<(u32, usize)> {
        self.wire_begin(false, expected)
    }

    /// An array (`map` false) or a map next, entered.
    fn wire_begin(&mut self, map: bool, expected: &str) -> Result<(u32, usize)> {
        let at = self.r.pos();
        let n = match self.r.next()? {
            Token::Array(n) if !map => n,
            Token::Map(n) if map => n,
            Token::Nil => return Err(unit_error(expected).at_offset(Origin::Msgpack, at as u64)),
            t => return Err(self.invalid(at, &t, &expected)),
        };
        self.enter()?;
        self.dyn_check.push(true);
        Ok((n, at))
    }

    /// Before element `i` of an array.
    #[inline]
    pub(super) fn wire_seq_element(&mut self, i: u32) {
        self.dyn_check.at(At::Index(i));
    }

    /// After the last element.
    #[inline]
    pub(super) fn wire_seq_end(&mut self) {
        self.leave();
        self.dyn_check.pop();
    }

    /// The start of a map (`deserialize_map`): its length and where it starts.
    pub(super) fn wire_map_begin(&mut self, expected: &str) -> Result<(u32, usize)> {
        self.wire_begin(true, expected)
    }

    /// Reads a map: `entry` decodes the value of each key (the key is checked for
    /// duplicates, and errors get its path step), as `deserialize_map` with a map's visitor.
    pub(super) fn wire_map(
        &mut self,
        n: u32,
        at: usize,
        entry: &mut dyn FnMut(&mut Self, &'de str) -> Result<()>,
    ) -> Result<()> {
        self.wire_entries(n, at, None, entry)
    }

    /// Reads a struct (`deserialize_struct` with the visitor serde derives for it):
    /// `field` decodes the value of field `i` of `fields` (`sorted`: their indices in the
    /// bytewise order of their names); an attribute the struct does not
    /// declare is skipped or an error (see
    /// [`ignore_undeclared_attributes`](Self::ignore_undeclared_attributes)). Returns where
    /// the struct starts, for the errors of the fields it lacks.
    #[doc(hidden)]
    pub fn wire_struct(
        &mut self,
        fields: &'static [&'static str],
        sorted: &'static [u16],
        expected: &str,
        field: &mut dyn FnMut(&mut Self, usize) -> Result<()>,
    ) -> Result<usize> {
        let at = self.r.pos();
        let n = match self.r.next()? {
            Token::Map(n) => n,
            Token::Nil => {
                return Err(unit_error(expected).at_offset(Origin::Msgpack, at as u64));
            }
            t => return Err(self.invalid(at, &t, &expected)),
        };
        self.enter()?;
        self.dyn_check.push(false);
        // Terraform writes attributes in bytewise order: the next field in that order
        // (`sorted`, the fields' indices in their names' order) is tried first.
        let mut next = 0;
        self.wire_entries(n, at, Some(fields), &mut |de, key| {
            let i = match sorted.get(next).map(|&i| usize::from(i)) {
                Some(i) if fields.get(i) == Some(&key) => {
                    next += 1;
                    Some(i)
                }
                _ => fields.iter().position(|f| *f == key),
            };
            match i {
                Some(i) => field(de, i),
                None => de.wire_ignore(),
            }
        })?;
        Ok(at)
    }

    /// The entries of a map or struct (entered already), as `visit_map_of` reads them
    /// with `MapAccess`: each key checked, the value read by `entry` with the path step
    /// of its key; then the map is left.
    fn wire_entries(
        &mut self,
        n: u32,
        at: usize,
        attrs: Option<&'static [&'static str]>,
        entry: &mut dyn FnMut(&mut Self, &'de str) -> Result<()>,
    ) -> Result<()> {
        let mut access = MapAccess::new(self, n, attrs);
        let read = (|| {
            while access.left != 0 {
                access.left -= 1;
                let key_at = access.de.r.pos();
                let key = MapAccess::read_key(&mut access.de.r)?;
                access.check_duplicate(key, key_at)?;
                let de = &mut *access.de;
                match attrs {
                    Some(fields) => {
                        de.field_value_at = de.r.pos();
                        de.field_key = key;
                        de.field_key_at = key_at;
                        de.field_names = fields;
                        de.dyn_check.at(At::Field(key));
                    }
                    None => de.dyn_check.at(At::Key(key)),
                }
                match entry(de, key) {
                    Ok(()) => {}
                    Err(e) if std::mem::take(&mut de.undeclared) => return Err(e),
                    Err(e) if attrs.is_some() => {
                        return Err(e.prepend(PathStep::Attr(key.to_owned())))
                    }
                    Err(e) => return Err(e.prepend(PathStep::Key(key.to_owned()))),
                }
            }
            Ok(())
        })();
        read.map_err(|e: Error| e.at_offset(Origin::Msgpack, at as u64))?;
        self.leave();
        self.dyn_check.pop();
        Ok(())
    }

    /// `deserialize_ignored_any`, for the value of an attribute the struct lacks.
    fn wire_ignore(&mut self) -> Result<()> {
        de::Deserializer::deserialize_ignored_any(self, de::IgnoredAny).map(drop)
    }
}
