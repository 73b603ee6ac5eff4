//! The safety limits, in one place: how deep values and types may nest, how long a
//! number's text and a refinement payload may be. Decoding rejects input past them with a
//! [`Category::Limit`](crate::Category::Limit) error.
//!
//! ```
//! assert_eq!(tfvalue::limits::DEFAULT_MAX_DEPTH, 128);
//! let mut de = tfvalue::msgpack::Deserializer::from_slice(b"\x91\x91\xc0").max_depth(1);
//! let err = serde::Deserialize::deserialize(&mut de).map(|_: Vec<Vec<()>>| ()).unwrap_err();
//! assert_eq!(err.category(), tfvalue::Category::Limit);
//! ```

/// How deep values may nest by default: arrays, maps, refined unknowns and the body of
/// each `dynamic` value count one level each (`msgpack::Deserializer::max_depth` and
/// `json::Deserializer::max_depth` change it).
pub const DEFAULT_MAX_DEPTH: usize = crate::msgpack::DEFAULT_MAX_DEPTH;

/// How deep a type's JSON may nest by default ([`Type::from_json_with_depth`] takes
/// another limit).
///
/// [`Type::from_json_with_depth`]: crate::Type::from_json_with_depth
pub const DEFAULT_TYPE_DEPTH: usize = crate::types::DEFAULT_TYPE_DEPTH;

/// The longest plain decimal text of a number, in characters.
pub const MAX_NUMBER_TEXT_LEN: usize = crate::number::MAX_NUMBER_TEXT_LEN;

/// The largest refinement payload of an unknown, in bytes (go-cty's limit too).
pub const MAX_REFINEMENT_PAYLOAD: usize = crate::unknown::MAX_REFINEMENT_PAYLOAD;
