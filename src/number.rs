//! Arbitrary-precision numbers (to be written).
/// An exact number.
#[derive(Clone, Debug)]
pub struct Number;
