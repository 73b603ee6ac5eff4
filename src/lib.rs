//! tfvalue: Terraform's object wire format as a serde data format.
#![forbid(unsafe_code)]
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod dynamic;
mod dynamic_value;
mod error;
pub mod json;
pub mod msgpack;
pub mod number;
mod path;
mod private;
mod types;
pub mod unknown;
pub mod value;

pub use dynamic::Dynamic;
pub use dynamic_value::DynamicValue;
pub use error::{Category, Error, Result};
pub use number::Number;
pub use path::{AttributePath, PathStep};
pub use types::{ObjectType, Type};
pub use unknown::{NumberBound, Refinements, Unknown};
pub use value::{Map, Value};
pub mod conformance;
pub mod tagged;
