//! Deferred decoding: the undecoded bytes of one value, to decode once its schema is known.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::error::{Error, Result};
use crate::msgpack::read::SliceReader;
use crate::private::RAW_TOKEN;
use crate::{types::Type, value::Value};

/// The wire format of the bytes in a [`Raw`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RawFormat {
    /// Terraform's MessagePack encoding.
    Msgpack,
    /// Terraform's JSON encoding.
    Json,
}

/// The undecoded bytes of one value, borrowed from the input where possible: what
/// Terraform's `plans.DynamicValue` is inside Terraform Core.
///
/// As a field of a typed struct it captures the bytes of that attribute without decoding
/// them (skipping a value does not build it), so that a provider can look at the rest
/// first and decode this part once it knows the schema. Written back, it is copied
/// verbatim.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::{Raw, Type, Value};
///
/// #[derive(Deserialize, Serialize)]
/// struct Envelope<'a> {
///     kind: String,
///     #[serde(borrow)]
///     config: Raw<'a>,
/// }
///
/// let bytes = b"\x82\xa6config\x81\xa4size\x05\xa4kind\xa6bucket";
/// let env: Envelope = tfvalue::msgpack::from_slice(bytes)?;
/// assert_eq!(env.kind, "bucket");
/// assert_eq!(env.config.as_bytes(), b"\x81\xa4size\x05"); // borrowed from `bytes`
/// let ty = Type::object([("size", Type::Number)]);
/// assert_eq!(env.config.decode_value(&ty)?["size"], 5);
/// assert_eq!(tfvalue::msgpack::to_vec(&env)?, bytes);
/// # Ok::<(), tfvalue::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Raw<'a> {
    bytes: Cow<'a, [u8]>,
    format: RawFormat,
}

impl fmt::Debug for Raw<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Raw({:?}, {} bytes)", self.format, self.bytes.len())
    }
}

impl<'a> Raw<'a> {
    /// The MessagePack bytes of exactly one value.
    ///
    /// # Errors
    ///
    /// Bytes that are not one whole MessagePack value (truncated, trailing bytes, nesting
    /// deeper than 128).
    pub fn from_msgpack(bytes: impl Into<Cow<'a, [u8]>>) -> Result<Self> {
        let bytes = bytes.into();
        let mut r = SliceReader::new(&bytes);
        r.skip_value(crate::limits::DEFAULT_MAX_DEPTH)?;
        if r.remaining() != 0 {
            return Err(r.err(Error::syntax("trailing data after the value")));
        }
        Ok(Raw {
            bytes,
            format: RawFormat::Msgpack,
        })
    }

    /// The JSON text of exactly one value.
    ///
    /// # Errors
    ///
    /// Text that is not one JSON value.
    pub fn from_json(text: impl Into<Cow<'a, [u8]>>) -> Result<Self> {
        let bytes = text.into();
        serde_json::from_slice::<de::IgnoredAny>(&bytes)
            .map_err(|e| Error::syntax(format_args!("invalid JSON: {e}")))?;
        Ok(Raw {
            bytes,
            format: RawFormat::Json,
        })
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Which encoding the bytes are in.
    pub fn format(&self) -> RawFormat {
        self.format
    }

    /// An owned copy, independent of the input it was borrowed from.
    pub fn into_owned(self) -> Raw<'static> {
        Raw {
            bytes: Cow::Owned(self.bytes.into_owned()),
            format: self.format,
        }
    }

    /// Decodes the bytes as a value of `ty`.
    ///
    /// # Errors
    ///
    /// As [`Value::from_msgpack`] (or [`Value::from_json`] for JSON bytes).
    pub fn decode_value(&self, ty: &Type) -> Result<Value> {
        match self.format {
            RawFormat::Msgpack => Value::from_msgpack(&self.bytes, ty),
            RawFormat::Json => Value::from_json(&self.bytes, ty),
        }
    }

    /// Decodes the bytes as a `T`.
    ///
    /// # Errors
    ///
    /// As [`msgpack::from_slice`](crate::msgpack::from_slice) (or
    /// [`json::from_slice`](crate::json::from_slice)).
    pub fn decode<'de, T: Deserialize<'de>>(&'de self) -> Result<T> {
        match self.format {
            RawFormat::Msgpack => crate::msgpack::from_slice(&self.bytes),
            RawFormat::Json => crate::json::from_slice(&self.bytes),
        }
    }
}

impl Serialize for Raw<'_> {
    /// Under tfvalue's serializers, the bytes as they are. Under `serde_json`, JSON text
    /// as raw JSON; anything else would be written wrong (MessagePack bytes as an array
    /// of numbers), so it is an error naming what to use.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if !crate::private::is_ours::<S>() {
            use serde::ser::Error as _;
            if self.format == RawFormat::Json && std::any::type_name::<S>().contains("serde_json::")
            {
                let text = std::str::from_utf8(&self.bytes)
                    .map_err(|_| S::Error::custom("raw JSON is not valid UTF-8"))?;
                return serde_json::value::RawValue::from_string(text.to_owned())
                    .map_err(S::Error::custom)?
                    .serialize(s);
            }
            return Err(S::Error::custom(
                "a tfvalue::Raw is written by tfvalue::msgpack or tfvalue::json (MessagePack \
                 bytes only by tfvalue::msgpack): decode it with Raw::decode_value first \
                 for another format",
            ));
        }
        s.serialize_newtype_struct(RAW_TOKEN, &RawBytes(self))
    }
}

struct RawBytes<'r, 'a>(&'r Raw<'a>);

impl Serialize for RawBytes<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0.format {
            RawFormat::Msgpack => s.serialize_bytes(&self.0.bytes),
            // JSON text travels as a str, so that the writers can tell the two apart.
            RawFormat::Json => match std::str::from_utf8(&self.0.bytes) {
                Ok(text) => s.serialize_str(text),
                Err(_) => Err(serde::ser::Error::custom("raw JSON is not valid UTF-8")),
            },
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_newtype_struct(RAW_TOKEN, RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the undecoded bytes of a value")
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> std::result::Result<Raw<'de>, E> {
        Ok(Raw {
            bytes: Cow::Borrowed(v),
            format: RawFormat::Msgpack,
        })
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Raw<'de>, E> {
        Ok(Raw {
            bytes: Cow::Owned(v.to_vec()),
            format: RawFormat::Msgpack,
        })
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> std::result::Result<Raw<'de>, E> {
        Ok(Raw {
            bytes: Cow::Borrowed(v.as_bytes()),
            format: RawFormat::Json,
        })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Raw<'de>, E> {
        Ok(Raw {
            bytes: Cow::Owned(v.as_bytes().to_vec()),
            format: RawFormat::Json,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        _d: D,
    ) -> std::result::Result<Raw<'de>, D::Error> {
        Err(de::Error::custom(
            "tfvalue::Raw can only be read by tfvalue's own deserializers",
        ))
    }
}
