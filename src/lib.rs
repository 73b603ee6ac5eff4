//! tfvalue: Terraform's object wire format as a serde data format.
#![forbid(unsafe_code)]

pub mod number;
pub use number::Number;
