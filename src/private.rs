//! The private newtype names that carry out-of-band data through serde, kept in one place.
//! tfvalue's serializers and deserializers recognise them; nobody else does. Also what
//! every format shares of keys: their bytewise order and their text.

use crate::error::{Error, Result};

/// An unknown value: serialized as a map of its refinements by name (see
/// `crate::unknown`); deserializers hand a known value over as the inner value
/// (`visit_newtype_struct`), and an unknown through `unknown::hand_over` (`visit_none`,
/// its refinements read by code that is not generic).
pub(crate) const UNKNOWN_TOKEN: &str = "$tfvalue::private::Unknown";
/// A number: the inner value is an int, a float64 or the decimal text.
pub(crate) const NUMBER_TOKEN: &str = crate::number::TOKEN;
/// A `dynamic` value: `[type JSON, value]`; null comes as unit, an unknown (whose
/// refinements say nothing) as empty bytes. The MessagePack and `Value` deserializers
/// decode it themselves and hand it over (`dynamic::hand_over`).
pub(crate) const DYNAMIC_TOKEN: &str = "$tfvalue::private::Dynamic";
/// Undecoded bytes of one value ([`Raw`](crate::Raw)): deserializers hand over the bytes
/// of the next value (`visit_borrowed_bytes` for MessagePack, `visit_borrowed_str` for JSON
/// text) without building it; serializers write the bytes as they are.
pub(crate) const RAW_TOKEN: &str = "$tfvalue::private::Raw";

/// What tfvalue's deserializers pass to `visit_newtype_struct` when they hand a visitor of
/// tfvalue's a value they have decoded themselves (through a slot the visitor knows of: see
/// `crate::dynamic::hand_over`). A visitor that is not tfvalue's gets an error from it.
pub(crate) struct HandedOver;

impl<'de> serde::de::Deserializer<'de> for HandedOver {
    type Error = Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(Error::data(
            "tfvalue handed a decoded value to a visitor that does not take one",
        ))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// Bytewise order of two keys or names, inline, without a call to `memcmp`: eight bytes
/// at a time (big-endian words order as their bytes do), the last word of the common
/// length overlapping what was already found equal, then the lengths. Names usually
/// differ in the first word; sorted keys that share a prefix (`key-000001`,
/// `key-000002`) take two.
#[inline]
pub(crate) fn bytes_cmp(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            let (x, y) = (word8(a, i), word8(b, i));
            if x != y {
                return x.cmp(&y);
            }
            i += 8;
        }
        // The last word: the bytes before `i` are equal, so the first difference in it is
        // the first difference of the rest.
        let (x, y) = (word8(a, n - 8), word8(b, n - 8));
        if x != y {
            return x.cmp(&y);
        }
    } else if n >= 4 {
        let (x, y) = (word4(a, 0), word4(b, 0));
        if x != y {
            return x.cmp(&y);
        }
        let (x, y) = (word4(a, n - 4), word4(b, n - 4));
        if x != y {
            return x.cmp(&y);
        }
    } else {
        for i in 0..n {
            if a[i] != b[i] {
                return a[i].cmp(&b[i]);
            }
        }
    }
    a.len().cmp(&b.len())
}

/// Whether `a` and `b` are the same bytes: names of up to sixteen bytes (most are) by
/// two overlapping words each, without a call to `memcmp` (a name read against the one
/// expected).
#[inline(always)]
pub(crate) fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        _ => a == b,
    }
}

/// Eight bytes of `s` from `at` (which the caller keeps in bounds) as a big-endian word.
#[inline(always)]
fn word8(s: &[u8], at: usize) -> u64 {
    s.get(at..at + 8)
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
        .map_or(0, u64::from_be_bytes)
}

/// Four bytes of `s` from `at` as a big-endian word.
#[inline(always)]
fn word4(s: &[u8], at: usize) -> u32 {
    s.get(at..at + 4)
        .and_then(|w| <[u8; 4]>::try_from(w).ok())
        .map_or(0, u32::from_be_bytes)
}

/// A [`Value`](crate::Value) being written: tfvalue's MessagePack serializer leaves the
/// check that collections agree on the types of their `dynamic` values to the value's own
/// conformance check (a value's objects are written as maps, which the serializer cannot
/// tell from real maps). Serialize only; transparent elsewhere.
pub(crate) const VALUE_TOKEN: &str = "$tfvalue::private::Value";

/// Whether `S` is one of tfvalue's own serializers (or the part of one that writes a
/// token's inner value). Used only where a foreign serializer would otherwise write
/// something wrong, never on a hot path of tfvalue's own formats.
pub(crate) fn is_ours<S: ?Sized>() -> bool {
    let name = std::any::type_name::<S>();
    name.trim_start_matches("&mut ").starts_with("tfvalue::")
}

/// Whether `D` is the deserializer serde's derive hands a field the input leaves out
/// (`serde::__private::de::missing_field`): it gives `None` to an `Option` and the
/// "missing attribute" error to anything else. Recognised by its name, as `is_ours` does.
#[inline]
pub(crate) fn is_missing_field<D: ?Sized>() -> bool {
    let name = std::any::type_name::<D>();
    // A format's deserializer comes as `&mut ..`: settled by one byte, as this runs for
    // every `Unknown` a derive reads.
    !name.starts_with('&') && name.contains("::MissingFieldDeserializer<")
}

/// Which private token a newtype struct name is, if any.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Token {
    Unknown,
    Dynamic,
    Number,
    Raw,
    Value,
}

/// Recognises a private token. Called for every newtype struct a (de)serializer sees, so
/// the common answers are quick: a name that does not start with `$` is no token, and the
/// tokens differ in their last byte, leaving one full comparison.
#[inline]
pub(crate) fn token(name: &str) -> Option<Token> {
    let b = name.as_bytes();
    if b.first() != Some(&b'$') {
        return None;
    }
    let (tok, text) = match b.last() {
        Some(b'n') => (Token::Unknown, UNKNOWN_TOKEN),
        Some(b'c') => (Token::Dynamic, DYNAMIC_TOKEN),
        Some(b'r') => (Token::Number, NUMBER_TOKEN),
        Some(b'w') => (Token::Raw, RAW_TOKEN),
        Some(b'e') => (Token::Value, VALUE_TOKEN),
        _ => return None,
    };
    (name == text).then_some(tok)
}

/// A map key's text, handed to `sink`: a string as it is, and integers, chars and unit
/// variants as their text; anything else is "map keys must be strings". The one key
/// serializer of every format (each sink normalizes and stores the text its own way).
pub(crate) struct KeyText<F>(pub(crate) F);

#[cold]
pub(crate) fn key_must_be_string() -> Error {
    Error::data("map keys must be strings")
}

macro_rules! key_text_ints {
    ($($m:ident: $t:ty),*) => {$(
        fn $m(self, v: $t) -> Result<R> {
            Ok((self.0)(&v.to_string()))
        }
    )*};
}

/// Serializer methods that refuse their call with `$err` (for serializers that accept
/// only some calls).
macro_rules! reject_calls {
    ($err:expr; $($method:ident($($arg:ty),*) -> $ret:ty;)*) => {$(
        fn $method(self, $(_: $arg),*) -> $crate::error::Result<$ret> {
            Err($err)
        }
    )*};
}
pub(crate) use reject_calls;

impl<R, F: FnOnce(&str) -> R> serde::Serializer for KeyText<F> {
    type Ok = R;
    type Error = Error;
    type SerializeSeq = serde::ser::Impossible<R, Error>;
    type SerializeTuple = serde::ser::Impossible<R, Error>;
    type SerializeTupleStruct = serde::ser::Impossible<R, Error>;
    type SerializeTupleVariant = serde::ser::Impossible<R, Error>;
    type SerializeMap = serde::ser::Impossible<R, Error>;
    type SerializeStruct = serde::ser::Impossible<R, Error>;
    type SerializeStructVariant = serde::ser::Impossible<R, Error>;

    #[inline]
    fn serialize_str(self, v: &str) -> Result<R> {
        Ok((self.0)(v))
    }
    fn serialize_char(self, v: char) -> Result<R> {
        self.serialize_str(v.encode_utf8(&mut [0u8; 4]))
    }
    key_text_ints!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
                   serialize_i64: i64, serialize_i128: i128, serialize_u8: u8,
                   serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
                   serialize_u128: u128);
    fn serialize_some<T: ?Sized + serde::Serialize>(self, value: &T) -> Result<R> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + serde::Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<R> {
        value.serialize(self)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<R> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_variant<T: ?Sized + serde::Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<R> {
        Err(key_must_be_string())
    }
    reject_calls! { key_must_be_string();
        serialize_bool(bool) -> R;
        serialize_f32(f32) -> R;
        serialize_f64(f64) -> R;
        serialize_bytes(&[u8]) -> R;
        serialize_none() -> R;
        serialize_unit() -> R;
        serialize_unit_struct(&'static str) -> R;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_cmp_is_bytewise_order() {
        for (a, b) in [
            ("", ""),
            ("", "a"),
            ("a", "b"),
            ("ab", "a"),
            ("tag-01", "tag-10"),
            ("é", "z"),
            ("z", "é"),
            ("abc", "abc"),
        ] {
            assert_eq!(
                bytes_cmp(a.as_bytes(), b.as_bytes()),
                a.as_bytes().cmp(b.as_bytes()),
                "{a} {b}"
            );
        }
        // Every length up to three words, differing (both ways, at the extremes of a
        // byte) at every position, or one a prefix of the other.
        for len in 0..25usize {
            let base: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            for at in 0..len {
                for byte in [0u8, 0x7f, 0x80, 0xff] {
                    let mut other = base.clone();
                    other[at] = byte;
                    assert_eq!(bytes_cmp(&base, &other), base.cmp(&other), "{len} {at}");
                    assert_eq!(bytes_cmp(&other, &base), other.cmp(&base), "{len} {at}");
                }
                assert_eq!(bytes_cmp(&base[..at], &base), base[..at].cmp(&base[..]));
                assert_eq!(bytes_cmp(&base, &base[..at]), base[..].cmp(&base[..at]));
            }
        }
    }

    /// `bytes_eq` is slice equality at every length up to three words, with a difference
    /// (both ways, at the extremes of a byte) at every position, and for different lengths.
    #[test]
    fn bytes_eq_is_equality() {
        for len in 0..25usize {
            let base: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(bytes_eq(&base, &base.clone()));
            for at in 0..len {
                for byte in [0u8, 0x7f, 0x80, 0xff] {
                    let mut other = base.clone();
                    other[at] = byte;
                    assert_eq!(bytes_eq(&base, &other), base == other, "{len} {at}");
                    assert_eq!(bytes_eq(&other, &base), base == other, "{len} {at}");
                }
                assert!(!bytes_eq(&base[..at], &base));
                assert!(!bytes_eq(&base, &base[..at]));
            }
        }
    }

    #[test]
    fn tokens_are_recognised_and_nothing_else() {
        assert_eq!(token(UNKNOWN_TOKEN), Some(Token::Unknown));
        assert_eq!(token(DYNAMIC_TOKEN), Some(Token::Dynamic));
        assert_eq!(token(NUMBER_TOKEN), Some(Token::Number));
        assert_eq!(token(RAW_TOKEN), Some(Token::Raw));
        assert_eq!(token(VALUE_TOKEN), Some(Token::Value));
        for other in [
            "",
            "$",
            "Wrapper",
            "$tfvalue::private::Unknowm",
            "$other::Number",
            "n",
        ] {
            assert_eq!(token(other), None, "{other}");
        }
    }
}
