//! Terraform's MessagePack wire format as a serde data format.
//!
//! This is the encoding of the `msgpack` field of tfplugin5/6 `DynamicValue`, and the one
//! tfvalue always produces. The serde data model maps onto it like this:
//!
//! | Rust (serde) | wire |
//! | --- | --- |
//! | `bool` | bool |
//! | integers, floats, [`Number`](crate::Number) | number: the smallest int, a float64, or a decimal string; on decode any of these, range-checked |
//! | `String`, `&str`, `Cow<str>`, `char` | str, NFC-normalized on encode; bin that is valid UTF-8 is accepted on decode |
//! | `Option<T>` | nil for `None` |
//! | `Vec<T>`, slices, sets, tuples | array |
//! | maps with string keys, structs | map, keys in bytewise order on encode; duplicate keys rejected on decode |
//! | unit enum variants | str |
//! | [`Unknown<T>`](crate::Unknown) | extension 0, or 12 with refinements |
//! | [`Dynamic`](crate::Dynamic) | `[type JSON as bin, value]` |
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use std::collections::BTreeMap;
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Bucket<'a> {
//!     name: &'a str,
//!     tags: BTreeMap<String, String>,
//!     versioning: Option<bool>,
//! }
//!
//! let bucket = Bucket { name: "logs", tags: BTreeMap::from([("env".into(), "prod".into())]), versioning: None };
//! let bytes = tfvalue::msgpack::to_vec(&bucket)?;
//! let back: Bucket = tfvalue::msgpack::from_slice(&bytes)?; // `name` borrows from `bytes`
//! assert_eq!(back, bucket);
//! # Ok::<(), tfvalue::Error>(())
//! ```

mod de;
pub(crate) mod read;
mod ser;
mod strip;
mod unknown;
mod validate;
mod value;
#[doc(hidden)]
pub mod wire;
pub(crate) mod write;

use std::io;

pub use de::{Deserializer, DEFAULT_MAX_DEPTH};
pub use ser::{Compound, Serializer};
pub use strip::without_refinements;
pub use validate::{keeps_plan, validate, validate_structure, Validated};
/// The general (serde) paths of `Value::from_msgpack` and `Value::to_msgpack`, which the
/// fast paths hand everything they do not take on; for tests that hold the two to the same
/// bytes.
#[cfg(feature = "conformance")]
#[doc(hidden)]
pub use value::{from_msgpack_general, to_msgpack_general};

use crate::error::{Error, Result};

/// Serializes `value` into a new byte vector.
///
/// Each thread keeps the working buffers of its last encode (those of at most 64 KiB) and
/// the field order of the structs it has written out of Terraform's order, so that
/// encoding value after value allocates once per value: a value of up to 64 KiB comes in
/// a vector of exactly its size, a larger one in the buffer it was written in. A
/// [`Serializer`] you make yourself has buffers of its own.
///
/// ```
/// use serde::Serialize;
///
/// #[derive(Serialize)]
/// struct Tag { value: String, key: String }
///
/// let bytes = tfvalue::msgpack::to_vec(&Tag { value: "prod".into(), key: "env".into() })?;
/// assert_eq!(bytes, b"\x82\xa3key\xa3env\xa5value\xa4prod");
/// assert_eq!(bytes.capacity(), bytes.len());
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Errors
///
/// A value that the wire format cannot carry: NaN, an enum variant with data, a map key
/// that is not a string, duplicate map keys, a refinement that contradicts itself, or
/// nesting deeper than 128.
pub fn to_vec<T: ?Sized + serde::Serialize>(value: &T) -> Result<Vec<u8>> {
    to_vec_with(|ser| value.serialize(ser))
}

/// [`to_vec`] with `write` in place of `T::serialize`.
pub(crate) fn to_vec_with(write: impl FnOnce(&mut Serializer) -> Result<()>) -> Result<Vec<u8>> {
    let mut ser = Serializer::reusing(ser::Buffers::take());
    let written = write(&mut ser);
    let mut buffers = ser.into_buffers();
    let out = written.map(|()| buffers.take_out());
    buffers.put_back();
    out
}

/// Serializes `value` into a writer.
///
/// # Errors
///
/// As [`to_vec`], plus I/O errors from the writer.
pub fn to_writer<W: io::Write, T: ?Sized + serde::Serialize>(
    mut writer: W,
    value: &T,
) -> Result<()> {
    let bytes = to_vec(value)?;
    writer.write_all(&bytes).map_err(Error::io)
}

/// Deserializes a `T` from the whole of `bytes`, borrowing strings where `T` allows.
///
/// # Errors
///
/// Malformed or truncated input, trailing bytes after the value, a value that does not
/// fit `T` (with the attribute path and the byte offset), an unknown where `T` has no
/// [`Unknown`](crate::Unknown), or nesting deeper than 128.
pub fn from_slice<'de, T: serde::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    let _budget = crate::limits::fill::Guard::enter(bytes.len());
    let mut de = Deserializer::from_slice(bytes);
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Deserializes a `T` from a reader, which is read to its end.
///
/// The plugin protocol hands values over as whole byte buffers, so the reader is read into
/// memory first; the decoder then runs over the buffer as [`from_slice`] does.
///
/// # Errors
///
/// As [`from_slice`], plus I/O errors from the reader.
pub fn from_reader<R: io::Read, T: serde::de::DeserializeOwned>(mut reader: R) -> Result<T> {
    let mut buf = Vec::new();
    reader.read_to_end(&mut buf).map_err(Error::io)?;
    from_slice(&buf)
}
