// The crate page: the library part of the README (what it is, the quick start, the peers;
// not the command, tests, layout and fuzzing sections, which are about the repository).
// tests/readme.rs holds the two to the same text.
#![doc = include_str!("doc/overview.md")]
// The README's links, resolved within the crate (on docs.rs and in local docs alike).
#![doc = "[`Unknown<T>`]: crate::Unknown"]
#![doc = "[`Number`]: crate::Number"]
#![doc = "[`Dynamic`]: crate::Dynamic"]
#![doc = "[`Value`]: crate::Value"]
#![doc = include_str!("doc/tutorial.md")]
#![doc = include_str!("doc/design.md")]
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod codec;
mod convert;
mod dyn_check;
mod dynamic;
mod dynamic_value;
mod error;
pub mod flatmap;
pub mod json;
mod key;
pub mod limits;
pub mod msgpack;
pub mod number;
mod path;
mod private;
mod raw;
pub mod schema;
pub mod text;
mod tf_value;
mod transcode;
mod types;
pub mod unknown;
pub mod value;
mod wire_plan;

pub use convert::{from_value, to_value, to_value_as};
pub use dynamic::Dynamic;
pub use dynamic_value::DynamicValue;
pub use error::{Category, Error, Result};
pub use number::Number;
pub use path::{AttributePath, ParsePathError, PathStep};
pub use raw::{Raw, RawFormat};
pub use types::{ObjectType, Type};
pub use unknown::{NumberBound, Refinements, Unknown};
pub use value::{Key, Map, Value};

#[doc(hidden)]
pub use tf_value::__private;
pub use tf_value::{MapKey, TfModel, TfValue};
#[cfg(feature = "derive")]
#[doc = include_str!("schema/derive.md")]
pub use tfvalue_derive::TfValue;
#[cfg(feature = "conformance")]
#[doc(hidden)]
pub mod conformance;
#[cfg(feature = "conformance")]
#[doc(hidden)]
pub mod tagged;
