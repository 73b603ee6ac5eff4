//! Model decoders written by `#[derive(TfValue)]`, over tfvalue's MessagePack decoder.
//!
//! serde's derived `Deserialize` for a model is compiled in the crate of the model, for
//! each decoder, together with the decoder's methods for each of its fields' types: a
//! third of a provider's release build. A model without `#[serde(...)]` attributes gets
//! a [`WireDecode`] instead: its fields are read by [`Deserializer::wire_struct`], which is
//! not generic, and each field by its type's `WireDecode`, which for the types without
//! type parameters (`String`, `Number`, `Dynamic`, ...) is serde's decoding compiled here,
//! once. A field of a type with no `WireDecode` is read by serde, as before.
//!
//! Each step does what [`Deserializer`]'s `deserialize_*` method does around its visitor,
//! and what the visitor does: the same checks, the same errors, paths and offsets (the
//! tests hold the two to the same results on the same bytes).

use std::collections::BTreeMap;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, IntoDeserializer};

use serde::Serialize;

use super::{Deserializer, Serializer};
use crate::error::{Error, Origin, Result};
use crate::path::PathStep;
use crate::unknown::Unknown;

/// A value decoded from tfvalue's MessagePack through code written for its type (see the
/// module doc). Implemented by `#[derive(TfValue)]`; not meant to be implemented by hand.
pub trait WireDecode: Sized {
    /// Decodes one value.
    fn wire_decode(de: &mut Deserializer<'_>) -> Result<Self>;

    /// What an unknown refined as definitely null makes of this type (its known null):
    /// what `Self::deserialize` returns for a unit.
    fn wire_unit() -> Result<Self>;

    /// What a struct field of this type is when its attribute is missing: `None` for an
    /// `Option`, an error for the others (serde's rule for derived structs).
    fn wire_missing(name: &'static str) -> Result<Self> {
        Err(<Error as de::Error>::missing_field(name))
    }
}

/// A value encoded as tfvalue's MessagePack through code written for its type, byte for
/// byte as its serde `Serialize` writes it (see the module doc). Implemented by
/// `#[derive(TfValue)]`; not meant to be implemented by hand.
pub trait WireEncode {
    /// Writes the value.
    fn wire_encode(&self, ser: &mut Serializer) -> Result<()>;
}

/// Types whose `WireDecode` is their serde decoding, compiled here.
macro_rules! by_serde {
    ($($t:ty),* $(,)?) => {$(
        impl WireDecode for $t {
            fn wire_decode(de: &mut Deserializer<'_>) -> Result<Self> {
                <$t as Deserialize>::deserialize(de)
            }
            fn wire_unit() -> Result<Self> {
                <$t as Deserialize>::deserialize(().into_deserializer())
            }
        }

        impl WireEncode for $t {
            fn wire_encode(&self, ser: &mut Serializer) -> Result<()> {
                <$t as Serialize>::serialize(self, ser)
            }
        }
    )*};
}

by_serde!(
    String,
    bool,
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    f32,
    f64,
    crate::number::Number,
    crate::dynamic::Dynamic,
);

impl<T: WireDecode> WireDecode for Option<T> {
    #[inline]
    fn wire_decode(de: &mut Deserializer<'_>) -> Result<Self> {
        if de.wire_take_nil()? {
            return Ok(None);
        }
        T::wire_decode(de).map(Some)
    }

    fn wire_unit() -> Result<Self> {
        Ok(None)
    }

    fn wire_missing(_: &'static str) -> Result<Self> {
        Ok(None)
    }
}

impl<T: WireDecode> WireDecode for Unknown<T> {
    fn wire_decode(de: &mut Deserializer<'_>) -> Result<Self> {
        if !de.wire_peek_unknown()? {
            return T::wire_decode(de).map(Unknown::Known);
        }
        let (refinements, at) = de.wire_unknown()?;
        let v = match refinements {
            Some(r) => Unknown::Unknown(r),
            None => Unknown::Known(T::wire_unit().map_err(|e| locate(e, at))?),
        };
        de.wire_leave();
        Ok(v)
    }

    fn wire_unit() -> Result<Self> {
        Err(unit_error("a known or unknown value"))
    }

    fn wire_missing(name: &'static str) -> Result<Self> {
        T::wire_missing(name).map(Unknown::Known)
    }
}

impl<T: WireDecode> WireDecode for Vec<T> {
    fn wire_decode(de: &mut Deserializer<'_>) -> Result<Self> {
        let (n, at) = de.wire_seq_begin("a sequence")?;
        let mut out = Vec::with_capacity(capacity::<T>(n, de));
        for i in 0..n {
            de.wire_seq_element(i);
            out.push(T::wire_decode(de).map_err(|e| element_error(e, i, at))?);
        }
        de.wire_seq_end();
        Ok(out)
    }

    fn wire_unit() -> Result<Self> {
        Err(unit_error("a sequence"))
    }
}

impl<T: WireDecode> WireDecode for BTreeMap<String, T> {
    fn wire_decode(de: &mut Deserializer<'_>) -> Result<Self> {
        let (n, at) = de.wire_map_begin("a map")?;
        let mut out = BTreeMap::new();
        de.wire_map(n, at, &mut |de, key| {
            let v = T::wire_decode(de)?;
            out.insert(key.to_owned(), v);
            Ok(())
        })?;
        Ok(out)
    }

    fn wire_unit() -> Result<Self> {
        Err(unit_error("a map"))
    }
}

impl<T: WireEncode> WireEncode for Option<T> {
    #[inline]
    fn wire_encode(&self, ser: &mut Serializer) -> Result<()> {
        match self {
            Some(v) => v.wire_encode(ser),
            None => {
                ser.wire_none();
                Ok(())
            }
        }
    }
}

impl<T: WireEncode> WireEncode for Unknown<T> {
    #[inline]
    fn wire_encode(&self, ser: &mut Serializer) -> Result<()> {
        match self {
            Unknown::Known(v) => v.wire_encode(ser),
            Unknown::Unknown(r) => write_unknown(ser, r),
        }
    }
}

/// An unknown, as `Unknown<T>`'s `Serialize` writes it. Not generic.
fn write_unknown(ser: &mut Serializer, r: &crate::unknown::Refinements) -> Result<()> {
    crate::unknown::serialize_unknown(r, crate::unknown::RefineKind::Any, ser)
}

impl<T: WireEncode> WireEncode for Vec<T> {
    fn wire_encode(&self, ser: &mut Serializer) -> Result<()> {
        let mut seq = ser.wire_seq(self.len())?;
        for v in self {
            v.wire_encode(seq.wire_element()?)?;
        }
        seq.wire_end_seq()
    }
}

impl<T: WireEncode> WireEncode for BTreeMap<String, T> {
    fn wire_encode(&self, ser: &mut Serializer) -> Result<()> {
        let mut map = ser.wire_map(self.len())?;
        for (k, v) in self {
            v.wire_encode(map.wire_key(k)?)?;
        }
        map.wire_end_map()
    }
}

/// `decode` over the whole of `bytes`, as [`from_slice`](super::from_slice) runs
/// `T::deserialize`.
pub(crate) fn from_slice_with<T>(
    bytes: &[u8],
    decode: impl FnOnce(&mut Deserializer<'_>) -> Result<T>,
) -> Result<T> {
    let _budget = crate::limits::fill::Guard::enter(bytes.len());
    let mut de = Deserializer::from_slice(bytes);
    let value = decode(&mut de)?;
    de.end()?;
    Ok(value)
}

/// The capacity serde's `Vec` visitor reserves for `n` elements (at most 1 MiB of them),
/// and no more elements than bytes left.
fn capacity<T>(n: u32, de: &Deserializer<'_>) -> usize {
    let most = (1024 * 1024) / std::mem::size_of::<T>().max(1);
    (n as usize).min(most).min(de.remaining_input().len())
}

#[cold]
fn element_error(e: Error, i: u32, at: usize) -> Error {
    locate(e.prepend(PathStep::Index(u64::from(i))), at)
}

fn locate(e: Error, at: usize) -> Error {
    e.at_offset(Origin::Msgpack, at as u64)
}

/// What a visitor expecting `expected` makes of a unit (serde's default `visit_unit`).
#[cold]
#[doc(hidden)]
pub fn unit_error(expected: &str) -> Error {
    <Error as de::Error>::invalid_type(de::Unexpected::Unit, &expected)
}

/// The struct decoder the derive writes calls these.
impl Deserializer<'_> {
    /// A missing field's error, located at the struct (as serde's visitor's errors are).
    #[doc(hidden)]
    pub fn wire_missing_error(e: Error, at: usize) -> Error {
        locate(e, at)
    }
}

/// Picks a field's decoder: [`WireDecode`] where its type has one, serde where not (see
/// `__private::wire`). Autoref specialization: a method call on `&&&Probe<T>` finds
/// [`ViaWire`] first where `T: WireDecode`, and [`ViaSerde`] otherwise.
#[doc(hidden)]
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    #[doc(hidden)]
    pub const NEW: Self = Probe(PhantomData);
}

#[doc(hidden)]
pub trait ViaWire<T> {
    fn decode(&self, de: &mut Deserializer<'_>) -> Result<T>;
    fn missing(&self, name: &'static str) -> Result<T>;
}

#[doc(hidden)]
pub trait ViaSerde<T> {
    fn decode(&self, de: &mut Deserializer<'_>) -> Result<T>;
    fn missing(&self, name: &'static str) -> Result<T>;
}

impl<T: WireDecode> ViaWire<T> for &&Probe<T> {
    #[inline]
    fn decode(&self, de: &mut Deserializer<'_>) -> Result<T> {
        T::wire_decode(de)
    }
    #[inline]
    fn missing(&self, name: &'static str) -> Result<T> {
        T::wire_missing(name)
    }
}

impl<T: for<'de> Deserialize<'de>> ViaSerde<T> for &Probe<T> {
    #[inline]
    fn decode(&self, de: &mut Deserializer<'_>) -> Result<T> {
        T::deserialize(de)
    }
    fn missing(&self, name: &'static str) -> Result<T> {
        T::deserialize(MissingFieldDeserializer(name, PhantomData))
    }
}

/// Picks a field's encoder, as [`ViaWire`] and [`ViaSerde`] pick its decoder.
#[doc(hidden)]
pub trait ViaWireEncode<T> {
    fn encode(&self, v: &T, ser: &mut Serializer) -> Result<()>;
}

#[doc(hidden)]
pub trait ViaSerdeEncode<T> {
    fn encode(&self, v: &T, ser: &mut Serializer) -> Result<()>;
}

impl<T: WireEncode> ViaWireEncode<T> for &&Probe<T> {
    #[inline]
    fn encode(&self, v: &T, ser: &mut Serializer) -> Result<()> {
        v.wire_encode(ser)
    }
}

impl<T: Serialize> ViaSerdeEncode<T> for &Probe<T> {
    #[inline]
    fn encode(&self, v: &T, ser: &mut Serializer) -> Result<()> {
        v.serialize(ser)
    }
}

/// serde's deserializer for a missing field (`serde::__private::de::missing_field`):
/// `None` for an `Option`, else "missing field". Named as serde's, which `Unknown` tells
/// apart by its name.
struct MissingFieldDeserializer<E>(&'static str, PhantomData<E>);

impl<'de> de::Deserializer<'de> for MissingFieldDeserializer<Error> {
    type Error = Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(<Error as de::Error>::missing_field(self.0))
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
