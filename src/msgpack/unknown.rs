//! Unknown values on the wire: extension code 0, or code 12 whose payload is a map of
//! refinements keyed by small integers (go-cty's `ctymsgpack`). The model hands
//! refinements over and takes them back as a map of named entries (see `crate::unknown`);
//! this module maps those names to the wire's keys and back.

use serde::de::value::{BoolDeserializer, BorrowedStrDeserializer, I128Deserializer};
use serde::de::{DeserializeSeed, MapAccess};
use serde::ser::{self, Serialize};

use super::read::SliceReader;
use super::write::{write_ext_header, write_map_len};
use crate::error::{Error, Result};
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::private::reject_calls;
use crate::unknown::{LOWER, MAX_LENGTH, MAX_REFINEMENT_PAYLOAD, MIN_LENGTH, NULL, PREFIX, UPPER};

/// The plain unknown: extension 0 with one ignored byte of payload, as go-cty writes it.
const PLAIN_UNKNOWN: [u8; 3] = [0xd4, 0x00, 0x00];

/// The wire key of a refinement entry.
fn wire_key(name: &str) -> Option<u8> {
    Some(match name {
        NULL => 1,
        PREFIX => 2,
        LOWER => 3,
        UPPER => 4,
        MIN_LENGTH => 5,
        MAX_LENGTH => 6,
        _ => return None,
    })
}

/// The name of a wire key; other keys are skipped, as go-cty skips them.
fn entry_name(key: i64) -> Option<&'static str> {
    Some(match key {
        1 => NULL,
        2 => PREFIX,
        3 => LOWER,
        4 => UPPER,
        5 => MIN_LENGTH,
        6 => MAX_LENGTH,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------
// Reading

/// The refinements of an unknown's extension, handed to a visitor as a map of named
/// entries, read from the payload as the visitor asks for them.
pub(crate) struct Refinements<'de> {
    r: SliceReader<'de>,
    left: u32,
    seen: Vec<i64>,
    pending: Option<i64>,
}

impl<'de> Refinements<'de> {
    /// The refinements of a whole extension value (header included). Any code but 12 is
    /// the plain unknown and its payload is ignored; so is a payload of one byte (go-cty
    /// reads every extension that short as the plain unknown, `d4 00 00`).
    pub(crate) fn from_ext(ext: &'de [u8]) -> Result<Self> {
        let mut r = SliceReader::new(ext);
        let (code, payload) = r.read_ext()?;
        let mut refinements = Refinements {
            r: SliceReader::new(&[]),
            left: 0,
            seen: Vec::new(),
            pending: None,
        };
        if code != 12 || payload.len() <= 1 {
            return Ok(refinements);
        }
        if payload.len() > MAX_REFINEMENT_PAYLOAD {
            return Err(Error::limit(format_args!(
                "refinement payload of {} bytes is over the limit of {MAX_REFINEMENT_PAYLOAD}",
                payload.len()
            )));
        }
        let mut r = SliceReader::new(payload);
        let Some(n) = r.try_read_map_len()? else {
            return Err(Error::data("refinement payload must be a map"));
        };
        refinements.r = r;
        refinements.left = n;
        // Anything after the map inside the payload is padding and ignored, as go-cty does.
        Ok(refinements)
    }
}

/// The refinements of an unknown (a whole extension value), checked as far as they can be
/// without knowing the kind of value, for `unknown::hand_over`: the payload is kept to be
/// read for the visitor's kind.
pub(crate) fn handed(ext: &[u8]) -> Result<crate::unknown::Handed> {
    let refinements = Refinements::from_ext(ext)?;
    if refinements.left == 0 {
        return Ok(crate::unknown::Handed::Plain);
    }
    let ext = ext.to_vec();
    Ok(crate::unknown::Handed::Read(Box::new(move |kind| {
        crate::unknown::read_refinements(Refinements::from_ext(&ext)?, kind)
    })))
}

impl<'de> MapAccess<'de> for Refinements<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        while self.left > 0 {
            self.left -= 1;
            let key = self.r.read_refinement_key()?;
            if self.seen.contains(&key) {
                return Err(Error::data(format_args!("duplicate refinement key {key}")));
            }
            self.seen.push(key);
            match entry_name(key) {
                Some(name) => {
                    self.pending = Some(key);
                    return seed
                        .deserialize(BorrowedStrDeserializer::new(name))
                        .map(Some);
                }
                None => self.r.skip_value(DEFAULT_MAX_DEPTH)?,
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self.pending.take() {
            // nil reads as false, as go-cty does.
            Some(1) => seed.deserialize(BoolDeserializer::new(
                self.r.read_bool_or_nil()?.unwrap_or(false),
            )),
            Some(2) => seed.deserialize(BorrowedStrDeserializer::new(self.r.read_str_or_bin()?)),
            Some(3 | 4) => {
                let start = self.r.pos();
                let len = self.r.read_array_len()?;
                if len != 2 {
                    return Err(Error::data(format_args!(
                        "a number bound refinement must be [number, inclusive], found an array of {len}"
                    )));
                }
                self.r.read_number()?;
                if self.r.read_bool_or_nil()?.is_none() {
                    return Err(Error::data(
                        "a number bound's inclusive flag must be a bool, found nil",
                    ));
                }
                // `[number, inclusive]`, checked: read as a tuple by the model.
                let bytes = &self.r.input_full()[start..self.r.pos()];
                seed.deserialize(&mut super::Deserializer::from_slice(bytes))
            }
            Some(_) => seed.deserialize(I128Deserializer::new(self.r.read_int()?)),
            None => Err(Error::data(
                "a refinement value was asked for before its key",
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writing

/// Writes the refinements the model hands over (a map of named entries) as the unknown's
/// extension: `d4 00 00` when there are none, else extension 12.
pub(crate) struct UnknownOut<'a> {
    pub(crate) out: &'a mut Vec<u8>,
}

/// The entries written so far, keyed for the wire.
pub(crate) struct Entries<'a> {
    out: &'a mut Vec<u8>,
    body: super::Serializer,
    n: u32,
}

const NOT_REFINEMENTS: &str = "an unknown value's refinements must be a map of named entries";

impl<'a> ser::Serializer for UnknownOut<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = Entries<'a>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_map(self, _len: Option<usize>) -> Result<Entries<'a>> {
        Ok(Entries {
            out: self.out,
            body: super::Serializer::new(),
            n: 0,
        })
    }

    reject_calls! { Error::data(NOT_REFINEMENTS);
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<()> {
        Err(Error::data(NOT_REFINEMENTS))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, _: &T) -> Result<()> {
        Err(Error::data(NOT_REFINEMENTS))
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(Error::data(NOT_REFINEMENTS))
    }
}

impl ser::SerializeMap for Entries<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        // The name is written as a string, then replaced by its wire key.
        let start = self.body.as_bytes().len();
        key.serialize(&mut self.body)?;
        let mut r = SliceReader::new(&self.body.as_bytes()[start..]);
        let name = r.read_str_or_bin()?;
        let code = wire_key(name).ok_or_else(|| {
            Error::data(format_args!("{name:?} is not a refinement of an unknown"))
        })?;
        self.body.replace_tail(start, code);
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut self.body)?;
        self.n += 1;
        Ok(())
    }

    fn end(self) -> Result<()> {
        if self.n == 0 {
            // An unrefined unknown is always extension 0, never 12 with an empty map.
            self.out.extend_from_slice(&PLAIN_UNKNOWN);
            return Ok(());
        }
        let body = self.body.into_inner();
        let mut head = Vec::with_capacity(5);
        write_map_len(&mut head, self.n);
        write_ext_header(self.out, head.len() + body.len(), 12);
        self.out.extend_from_slice(&head);
        self.out.extend_from_slice(&body);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde::{Serialize, Serializer};

    use crate::number::Number;
    use crate::unknown::{serialize_unknown, RefineKind, Refinements};

    struct As(Refinements, RefineKind);

    impl Serialize for As {
        fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            serialize_unknown(&self.0, self.1, s)
        }
    }

    fn enc(r: &Refinements, kind: RefineKind) -> String {
        let out = super::super::to_vec(&As(r.clone(), kind)).unwrap();
        out.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn plain_unknown_is_ext0() {
        assert_eq!(enc(&Refinements::new(), RefineKind::String), "d40000");
        // not-null on dynamic is never written
        assert_eq!(
            enc(&Refinements::new().not_null(), RefineKind::Dynamic),
            "d40000"
        );
        // vacuous refinements
        assert_eq!(
            enc(&Refinements::new().with_prefix(""), RefineKind::String),
            "d40000"
        );
        assert_eq!(
            enc(
                &Refinements::new().with_lower_bound(Number::neg_infinity(), true),
                RefineKind::Number
            ),
            "d40000"
        );
        // refined: extension 12 with the map keyed 1..6 in order
        assert_eq!(
            enc(
                &Refinements::new().not_null().with_prefix("ab"),
                RefineKind::String
            ),
            "c7070c8201c202a26162"
        );
        // a number pinned to one value is that number
        assert_eq!(
            enc(
                &Refinements::new()
                    .not_null()
                    .with_lower_bound(7, true)
                    .with_upper_bound(7, true),
                RefineKind::Number
            ),
            "07"
        );
    }
}
