#![doc = include_str!("../README.md")]
#![doc = include_str!("doc/design.md")]
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod convert;
mod dynamic;
mod error;
mod flatmap;
pub mod msgpack;
pub mod number;
mod path;
mod private;
mod raw;
mod types;
pub mod unknown;
pub mod value;

pub use convert::{from_value, to_value};
pub use dynamic::Dynamic;
pub use error::{Category, Error, Result};
pub use flatmap::UNKNOWN_MARKER;
pub use number::Number;
pub use path::{AttributePath, PathStep};
pub use raw::{Raw, RawFormat};
pub use types::{ObjectType, Type};
pub use unknown::{NumberBound, Refinements, Unknown};
pub use value::{Map, Value};
pub mod conformance;
pub mod tagged;
