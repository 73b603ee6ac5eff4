//! The JSON serializer: serde_json's formatter prints, and this adapter handles tfvalue's
//! tokens (exact numbers, `dynamic`, unknowns, which JSON cannot carry).

use std::ops::Range;

use serde::ser::{self, Serialize};
use serde_json::ser::{CompactFormatter, Formatter};

use crate::dyn_check::{At, Capture, DynCheck};
use crate::error::{Error, Result};
use crate::path::PathStep;
use crate::private::{
    reject_calls, DYNAMIC_TOKEN, NUMBER_TOKEN, RAW_TOKEN, UNKNOWN_TOKEN, VALUE_TOKEN,
};
use crate::text::nfc;

/// The newtype-struct name of `serde_json::value::RawValue`, whose text is written as is.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Serializes any `serde::Serialize` value as Terraform's JSON value format.
///
/// This is what go-cty's `ctyjson.Marshal` writes, up to whitespace and the order of
/// keys: strings in NFC, numbers exactly (a [`Number`](crate::Number) of any size or precision is written
/// in full, without exponent), `dynamic` values as `{"type": T, "value": V}`. Object keys
/// come in the order the value yields them (`Value` objects and maps, and `BTreeMap`s,
/// are sorted; struct fields come in declaration order).
///
/// JSON cannot carry unknown values, so an [`Unknown`](crate::Unknown) that is not known
/// is an error naming its path; so are NaN and the infinities.
///
/// The serializer writes into a buffer of its own; [`into_inner`](Serializer::into_inner)
/// takes it.
///
/// ```
/// use serde::Serialize;
/// use tfvalue::json::Serializer;
///
/// #[derive(Serialize)]
/// struct Disk { size: tfvalue::Number, name: String }
///
/// let mut ser = Serializer::new();
/// let disk = Disk { size: "123456789012345678901234567890.5".parse()?, name: "data".into() };
/// disk.serialize(&mut ser)?;
/// assert_eq!(ser.into_inner(), br#"{"size":123456789012345678901234567890.5,"name":"data"}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Serializer {
    out: Vec<u8>,
    depth_left: usize,
    max_depth: usize,
    /// Where the serializer is, for the check that the elements of a collection agree on
    /// the types of the `dynamic` values in them.
    dyn_check: DynCheck<'static>,
}

impl Default for Serializer {
    fn default() -> Self {
        Serializer::new()
    }
}

impl Serializer {
    /// A serializer with an empty buffer.
    pub fn new() -> Self {
        Serializer::with_buffer(Vec::with_capacity(128))
    }

    /// A serializer that appends to `buf`.
    pub fn with_buffer(buf: Vec<u8>) -> Self {
        Serializer {
            out: buf,
            depth_left: super::DEFAULT_MAX_DEPTH,
            max_depth: super::DEFAULT_MAX_DEPTH,
            dyn_check: DynCheck::default(),
        }
    }

    /// Sets the nesting limit (default 128).
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.depth_left = depth;
        self.max_depth = depth;
        self
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.out
    }

    /// Takes the buffer.
    pub fn into_inner(self) -> Vec<u8> {
        self.out
    }

    fn enter(&mut self) -> Result<()> {
        match self.depth_left.checked_sub(1) {
            Some(d) => {
                self.depth_left = d;
                Ok(())
            }
            None => Err(Error::limit(format_args!(
                "nesting is deeper than the limit of {}",
                self.max_depth
            ))),
        }
    }

    fn leave(&mut self) {
        self.depth_left += 1;
    }
}

/// A JSON string literal, NFC-normalized as Terraform's strings are.
#[inline]
pub(super) fn write_str(out: &mut Vec<u8>, s: &str) {
    // Printable ASCII without quotes or backslashes (most strings) is NFC and needs no
    // escapes: one pass.
    if is_plain(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        crate::types::write_json_string(out, &nfc(s));
    }
}

/// Whether every byte is printable ASCII other than `"` and `\`, eight bytes at a time.
#[inline]
fn is_plain(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is zero, or below `n` (n <= 128).
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let bad = below(x, 0x20)
            | (x & HIGH)
            | zero(x ^ (ONES * 0x22))
            | zero(x ^ (ONES * 0x5c))
            | zero(x ^ (ONES * 0x7f));
        if bad != 0 {
            return false;
        }
    }
    chunks
        .remainder()
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
}

#[inline]
fn io(r: std::io::Result<()>) -> Result<()> {
    r.map_err(Error::io)
}

#[cold]
fn unsupported(what: &str) -> Error {
    Error::data(format_args!(
        "{what} cannot be represented in Terraform's wire format"
    ))
}

#[cold]
fn non_finite(v: f64) -> Error {
    if v.is_nan() {
        Error::data("NaN is not a number and cannot be encoded")
    } else {
        Error::data("infinity cannot be encoded as JSON")
    }
}

/// Whether `s` is a JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
pub(super) fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

impl<'a> ser::Serializer for &'a mut Serializer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        io(CompactFormatter.write_bool(&mut self.out, v))
    }

    fn serialize_i8(self, v: i8) -> Result<()> {
        io(CompactFormatter.write_i8(&mut self.out, v))
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        io(CompactFormatter.write_i16(&mut self.out, v))
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        io(CompactFormatter.write_i32(&mut self.out, v))
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        io(CompactFormatter.write_i64(&mut self.out, v))
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        io(CompactFormatter.write_i128(&mut self.out, v))
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        io(CompactFormatter.write_u8(&mut self.out, v))
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        io(CompactFormatter.write_u16(&mut self.out, v))
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        io(CompactFormatter.write_u32(&mut self.out, v))
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        io(CompactFormatter.write_u64(&mut self.out, v))
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        io(CompactFormatter.write_u128(&mut self.out, v))
    }

    fn serialize_f32(self, v: f32) -> Result<()> {
        if !v.is_finite() {
            return Err(non_finite(f64::from(v)));
        }
        if v.fract() == 0.0 && v.abs() < 9.0e15 && (v != 0.0 || v.is_sign_positive()) {
            return io(CompactFormatter.write_i64(&mut self.out, v as i64));
        }
        write_shortest(&mut self.out, f64::from(v))
    }

    fn serialize_f64(self, v: f64) -> Result<()> {
        if !v.is_finite() {
            return Err(non_finite(v));
        }
        // An integral float is written as an integer, as go-cty does (negative zero as `-0`).
        if v.fract() == 0.0 && v.abs() < 9.0e15 && (v != 0.0 || v.is_sign_positive()) {
            return io(CompactFormatter.write_i64(&mut self.out, v as i64));
        }
        write_shortest(&mut self.out, v)
    }

    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        write_str(&mut self.out, v);
        Ok(())
    }

    /// JSON has no bytes: they are written as a string if they are UTF-8 (the MessagePack
    /// encoding's bin reads back as a string too).
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        match std::str::from_utf8(v) {
            Ok(s) => self.serialize_str(s),
            Err(_) => Err(Error::data(
                "bytes that are not valid UTF-8 cannot be encoded as JSON",
            )),
        }
    }

    fn serialize_none(self) -> Result<()> {
        io(CompactFormatter.write_null(&mut self.out))
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<()> {
        io(CompactFormatter.write_null(&mut self.out))
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        match name {
            UNKNOWN_TOKEN => Err(Error::data(UNKNOWN_IN_JSON)),
            NUMBER_TOKEN => value.serialize(NumberOut { out: &mut self.out }),
            RAW_TOKEN => value.serialize(TfRawOut { out: &mut self.out }),
            DYNAMIC_TOKEN => {
                self.enter()?;
                let track = self.dyn_check.skip == 0;
                self.dyn_check.skip += 1;
                let r = value.serialize(DynamicOut { ser: &mut *self });
                self.dyn_check.skip -= 1;
                let captured = self.dyn_check.capture.take();
                r?;
                self.leave();
                if let (true, Some((a, b))) = (track, captured) {
                    let ty = crate::types::Type::from_json(&self.out[a..b])?;
                    self.dyn_check.record(ty, &self.out, false)?;
                }
                Ok(())
            }
            VALUE_TOKEN => {
                self.dyn_check.skip += 1;
                let r = value.serialize(&mut *self);
                self.dyn_check.skip -= 1;
                r
            }
            _ => value.serialize(self),
        }
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _value: &T,
    ) -> Result<()> {
        Err(unsupported(&format!(
            "enum variant `{name}::{variant}` with data"
        )))
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>> {
        self.enter()?;
        self.out.push(b'[');
        self.dyn_check.push(true);
        Ok(Compound::new(self, Kind::Seq))
    }

    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>> {
        self.enter()?;
        self.out.push(b'[');
        self.dyn_check.push(false);
        Ok(Compound::new(self, Kind::Seq))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a>> {
        self.serialize_tuple(len)
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(unsupported(&format!(
            "enum variant `{name}::{variant}` with data"
        )))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>> {
        self.enter()?;
        self.out.push(b'{');
        self.dyn_check.push(true);
        Ok(Compound::new(self, Kind::Map))
    }

    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Compound<'a>> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Compound::new(self, Kind::Raw));
        }
        self.enter()?;
        self.out.push(b'{');
        self.dyn_check.push(false);
        Ok(Compound::new(self, Kind::Map))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(unsupported(&format!(
            "enum variant `{name}::{variant}` with data"
        )))
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Seq,
    Map,
    /// serde_json's `RawValue`: one field whose string is written as it is.
    Raw,
}

/// The state of an array, map or struct being written.
#[doc(hidden)]
pub struct Compound<'a> {
    ser: &'a mut Serializer,
    kind: Kind,
    first: bool,
    index: u64,
    /// Where the current map key's JSON text is in the output.
    key: Range<usize>,
}

impl<'a> Compound<'a> {
    fn new(ser: &'a mut Serializer, kind: Kind) -> Self {
        Compound {
            ser,
            kind,
            first: true,
            index: 0,
            key: 0..0,
        }
    }

    #[inline]
    fn comma(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.ser.out.push(b',');
        }
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.comma();
        let i = self.index;
        self.index += 1;
        self.ser.dyn_check.at(At::Index(i as u32));
        value
            .serialize(&mut *self.ser)
            .map_err(|e| e.prepend(PathStep::Index(i)))
    }

    fn end_with(self, close: u8) -> Result<()> {
        if self.kind != Kind::Raw {
            self.ser.out.push(close);
            self.ser.leave();
            self.ser.dyn_check.pop();
        }
        Ok(())
    }

    /// The current map key, read back from the output (only needed for error paths).
    #[cold]
    fn key_text(&self) -> String {
        self.ser
            .out
            .get(self.key.clone())
            .and_then(|json| serde_json::from_slice::<String>(json).ok())
            .unwrap_or_default()
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.end_with(b']')
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.end_with(b']')
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.end_with(b']')
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.comma();
        let start = self.ser.out.len();
        key.serialize(KeyOut {
            out: &mut self.ser.out,
        })?;
        self.key = start..self.ser.out.len();
        self.ser
            .dyn_check
            .at(At::KeyInOutput(self.key.start, self.key.end));
        self.ser.out.push(b':');
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match value.serialize(&mut *self.ser) {
            Ok(()) => Ok(()),
            Err(e) => Err(e.prepend(PathStep::Key(self.key_text()))),
        }
    }

    fn end(self) -> Result<()> {
        self.end_with(b'}')
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        if self.kind == Kind::Raw {
            return value.serialize(RawOut {
                out: &mut self.ser.out,
            });
        }
        self.comma();
        write_str(&mut self.ser.out, key);
        self.ser.out.push(b':');
        self.ser.dyn_check.at(At::Field(key));
        value
            .serialize(&mut *self.ser)
            .map_err(|e| e.prepend(PathStep::Attr(key.to_owned())))
    }

    fn end(self) -> Result<()> {
        self.end_with(b'}')
    }
}

// ---------------------------------------------------------------------------------------
// Serializers for the parts of tokens and keys

macro_rules! reject_rest {
    ($what:expr) => {
        reject_calls! { Error::data($what);
            serialize_bool(bool) -> ();
            serialize_i8(i8) -> ();
            serialize_i16(i16) -> ();
            serialize_i32(i32) -> ();
            serialize_u8(u8) -> ();
            serialize_u16(u16) -> ();
            serialize_u32(u32) -> ();
            serialize_f32(f32) -> ();
            serialize_char(char) -> ();
            serialize_none() -> ();
            serialize_unit() -> ();
            serialize_unit_struct(&'static str) -> ();
            serialize_unit_variant(&'static str, u32, &'static str) -> ();
            serialize_seq(Option<usize>) -> Self::SerializeSeq;
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
            serialize_map(Option<usize>) -> Self::SerializeMap;
            serialize_struct(&'static str, usize) -> Self::SerializeStruct;
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
        }
        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<()> {
            Err(Error::data($what))
        }
        fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, _: &T) -> Result<()> {
            Err(Error::data($what))
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<()> {
            Err(Error::data($what))
        }
    };
}

macro_rules! impossible_types {
    () => {
        type Ok = ();
        type Error = Error;
        type SerializeSeq = ser::Impossible<(), Error>;
        type SerializeTuple = ser::Impossible<(), Error>;
        type SerializeTupleStruct = ser::Impossible<(), Error>;
        type SerializeTupleVariant = ser::Impossible<(), Error>;
        type SerializeMap = ser::Impossible<(), Error>;
        type SerializeStruct = ser::Impossible<(), Error>;
        type SerializeStructVariant = ser::Impossible<(), Error>;
    };
}

/// A finite float64 as go-cty writes it (`big.Float`'s `Text('f', -1)` of the float held at
/// 53 bits): the shortest decimal text that reads back as `v`, ties to an even last
/// digit, in plain notation (`0.0000001`, `1000000000000000000000`, `-0`).
fn write_shortest(out: &mut Vec<u8>, v: f64) -> Result<()> {
    match crate::number::float_text(v) {
        Some(text) => {
            out.extend_from_slice(text.as_bytes());
            Ok(())
        }
        None => Err(non_finite(v)),
    }
}

/// The inner value of a [`Number`](crate::Number): an integer, a float64 or the plain decimal text.
struct NumberOut<'a> {
    out: &'a mut Vec<u8>,
}

const NOT_A_NUMBER: &str = "a number's wire form must be an integer, a float or decimal text";

impl ser::Serializer for NumberOut<'_> {
    impossible_types!();

    fn serialize_u64(self, v: u64) -> Result<()> {
        io(CompactFormatter.write_u64(self.out, v))
    }

    fn serialize_i64(self, v: i64) -> Result<()> {
        io(CompactFormatter.write_i64(self.out, v))
    }

    fn serialize_i128(self, v: i128) -> Result<()> {
        io(CompactFormatter.write_i128(self.out, v))
    }

    fn serialize_u128(self, v: u128) -> Result<()> {
        io(CompactFormatter.write_u128(self.out, v))
    }

    /// A float64 is written as the shortest text that reads back as it (`0.1`), in plain
    /// notation, as go-cty writes it; a number that is exactly a float64 but was read from
    /// decimal text comes as its text instead (see `Number`'s `Serialize`).
    fn serialize_f64(self, v: f64) -> Result<()> {
        if !v.is_finite() {
            return Err(non_finite(v));
        }
        write_shortest(self.out, v)
    }

    /// Plain decimal text, written as a JSON number.
    fn serialize_str(self, v: &str) -> Result<()> {
        if is_json_number(v) {
            self.out.extend_from_slice(v.as_bytes());
            Ok(())
        } else {
            Err(Error::data(format_args!(
                "{v:?} cannot be encoded as a JSON number"
            )))
        }
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(Error::data(NOT_A_NUMBER))
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(Error::data(NOT_A_NUMBER))
    }

    reject_rest!(NOT_A_NUMBER);
}

/// The inner value of a [`Raw`](crate::Raw): JSON text is written as it is; MessagePack
/// bytes cannot be.
struct TfRawOut<'a> {
    out: &'a mut Vec<u8>,
}

const RAW_NOT_JSON: &str =
    "a tfvalue::Raw holding MessagePack cannot be written as JSON: decode it with its type first";

impl ser::Serializer for TfRawOut<'_> {
    impossible_types!();

    fn serialize_str(self, v: &str) -> Result<()> {
        self.out.extend_from_slice(v.as_bytes());
        Ok(())
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(Error::data(RAW_NOT_JSON))
    }

    fn serialize_u64(self, _: u64) -> Result<()> {
        Err(Error::data(RAW_NOT_JSON))
    }

    fn serialize_i64(self, _: i64) -> Result<()> {
        Err(Error::data(RAW_NOT_JSON))
    }

    fn serialize_f64(self, _: f64) -> Result<()> {
        Err(Error::data(RAW_NOT_JSON))
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(Error::data(RAW_NOT_JSON))
    }

    reject_rest!(RAW_NOT_JSON);
}

/// An unknown that reached the serializer: JSON has no unknowns (a number pinned to one
/// value by its refinements comes as that number and never gets here).
const UNKNOWN_IN_JSON: &str = "unknown values cannot be encoded as JSON";

/// The text of serde_json's `RawValue`, written as it is.
struct RawOut<'a> {
    out: &'a mut Vec<u8>,
}

const NOT_RAW: &str = "a raw JSON value must be a string of JSON text";

impl ser::Serializer for RawOut<'_> {
    impossible_types!();

    fn serialize_str(self, v: &str) -> Result<()> {
        self.out.extend_from_slice(v.as_bytes());
        Ok(())
    }

    fn serialize_u64(self, _: u64) -> Result<()> {
        Err(Error::data(NOT_RAW))
    }
    fn serialize_i64(self, _: i64) -> Result<()> {
        Err(Error::data(NOT_RAW))
    }
    fn serialize_f64(self, _: f64) -> Result<()> {
        Err(Error::data(NOT_RAW))
    }
    fn serialize_i128(self, _: i128) -> Result<()> {
        Err(Error::data(NOT_RAW))
    }
    fn serialize_u128(self, _: u128) -> Result<()> {
        Err(Error::data(NOT_RAW))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(Error::data(NOT_RAW))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(Error::data(NOT_RAW))
    }

    reject_rest!(NOT_RAW);
}

/// Map keys must be strings; integers and chars are written as their text.
struct KeyOut<'a> {
    out: &'a mut Vec<u8>,
}

const KEY_NOT_STRING: &str = "map keys must be strings";

macro_rules! int_keys {
    ($($m:ident: $t:ty),*) => {$(
        fn $m(self, v: $t) -> Result<()> {
            write_str(self.out, &v.to_string());
            Ok(())
        }
    )*};
}

impl ser::Serializer for KeyOut<'_> {
    impossible_types!();

    fn serialize_str(self, v: &str) -> Result<()> {
        write_str(self.out, v);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }

    int_keys!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_i128: i128,
              serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_u128: u128);

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_bool(self, _: bool) -> Result<()> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_f32(self, _: f32) -> Result<()> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_f64(self, _: f64) -> Result<()> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_none(self) -> Result<()> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_unit(self) -> Result<()> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(Error::data(KEY_NOT_STRING))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(Error::data(KEY_NOT_STRING))
    }
}

/// The inner value of a `dynamic`: the 2-tuple (type JSON as bytes, value), written as
/// `{"type": T, "value": V}`. The type comes first, so that a reader that cannot look
/// ahead can decode the value as it reads it.
struct DynamicOut<'a> {
    ser: &'a mut Serializer,
}

const NOT_DYNAMIC: &str = "a dynamic value's wire form must be the pair (type JSON, value)";

impl<'a> ser::Serializer for DynamicOut<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = DynamicPair<'a>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_tuple(self, len: usize) -> Result<DynamicPair<'a>> {
        if len != 2 {
            return Err(Error::data(NOT_DYNAMIC));
        }
        Ok(DynamicPair {
            ser: self.ser,
            state: 0,
        })
    }

    fn serialize_u64(self, _: u64) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_i64(self, _: i64) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_f64(self, _: f64) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_i128(self, _: i128) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_u128(self, _: u128) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_str(self, _: &str) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }

    reject_rest!(NOT_DYNAMIC);
}

struct DynamicPair<'a> {
    ser: &'a mut Serializer,
    state: u8,
}

impl ser::SerializeTuple for DynamicPair<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.state = self.state.saturating_add(1);
        match self.state {
            1 => {
                self.ser.out.extend_from_slice(br#"{"type":"#);
                let start = self.ser.out.len();
                value.serialize(TypeOut {
                    out: &mut self.ser.out,
                })?;
                self.ser.dyn_check.capture = Capture::Done(start, self.ser.out.len());
                self.ser.out.extend_from_slice(br#","value":"#);
                Ok(())
            }
            2 => value.serialize(&mut *self.ser),
            _ => Err(Error::data(NOT_DYNAMIC)),
        }
    }

    fn end(self) -> Result<()> {
        if self.state != 2 {
            return Err(Error::data(NOT_DYNAMIC));
        }
        self.ser.out.push(b'}');
        Ok(())
    }
}

/// The type JSON of a `dynamic`, written as it is (tfvalue wrote it, compact).
struct TypeOut<'a> {
    out: &'a mut Vec<u8>,
}

impl ser::Serializer for TypeOut<'_> {
    impossible_types!();

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        // The type JSON must be JSON, or the output would be malformed.
        match serde_json::from_slice::<&serde_json::value::RawValue>(v) {
            Ok(_) => {
                self.out.extend_from_slice(v);
                Ok(())
            }
            Err(_) => Err(Error::data("a dynamic value's type is not valid JSON")),
        }
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        self.serialize_bytes(v.as_bytes())
    }

    fn serialize_u64(self, _: u64) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_i64(self, _: i64) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_f64(self, _: f64) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_i128(self, _: i128) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_u128(self, _: u128) -> Result<()> {
        Err(Error::data(NOT_DYNAMIC))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(Error::data(NOT_DYNAMIC))
    }

    reject_rest!(NOT_DYNAMIC);
}

#[cfg(test)]
mod tests {
    use super::{is_json_number, is_plain};

    /// The eight-at-a-time scan says what the byte-by-byte rule says, for every byte at
    /// every position of a chunk and of the remainder.
    #[test]
    fn plain_scan_matches_the_byte_rule() {
        let rule = |b: &[u8]| {
            b.iter()
                .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
        };
        for len in [1usize, 7, 8, 9, 16, 21] {
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut b = vec![b'a'; len];
                    b[at] = byte;
                    assert_eq!(is_plain(&b), rule(&b), "{len} {at} {byte:#x}");
                }
            }
        }
    }

    #[test]
    fn json_number_grammar() {
        for ok in [
            "0",
            "-0",
            "1",
            "-12",
            "1.5",
            "0.001",
            "1e3",
            "1E+3",
            "-1.25e-7",
            "123456789012345678901234567890",
        ] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in [
            "", "-", "01", "+1", ".5", "1.", "1e", "1e+", "Inf", "-Inf", "NaN", "1 ", " 1", "0x10",
            "1.2.3",
        ] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }
}
