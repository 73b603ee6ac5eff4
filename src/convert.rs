//! `to_value` and `from_value`: between typed structs and [`Value`].

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::Result;
use crate::value::TypedValue;
use crate::{Type, Value};

/// Converts a typed value into a [`Value`] of type `ty`.
///
/// The conversion goes through the MessagePack encoding, so it applies the same rules:
/// strings come out in NFC, map keys sorted, unknowns as `Value::Unknown`.
///
/// ```
/// use tfvalue::{Type, Unknown};
///
/// #[derive(serde::Serialize)]
/// struct Disk { size: u32, id: Unknown<String> }
///
/// let ty = Type::object([("id", Type::String), ("size", Type::Number)]);
/// let v = tfvalue::to_value(&Disk { size: 40, id: Unknown::unknown() }, &ty)?;
/// assert_eq!(v["size"], 40);
/// assert!(v["id"].is_unknown());
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Errors
///
/// What [`msgpack::to_vec`](crate::msgpack::to_vec) rejects, and a value that does not
/// fit `ty` (with its path).
pub fn to_value<T: ?Sized + Serialize>(value: &T, ty: &Type) -> Result<Value> {
    let bytes = crate::msgpack::to_vec(value)?;
    Value::from_msgpack(&bytes, ty)
}

/// Converts a [`Value`] into a typed value.
///
/// The conversion goes through the MessagePack encoding of the value as its own structure
/// says (lists, sets and tuples as arrays, maps and objects as maps).
///
/// ```
/// use std::collections::BTreeMap;
/// use tfvalue::Value;
///
/// let v = Value::Map(BTreeMap::from([("env".to_string(), Value::from("prod"))]));
/// let tags: BTreeMap<String, String> = tfvalue::from_value(&v)?;
/// assert_eq!(tags["env"], "prod");
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Errors
///
/// A value that does not fit `T` (with its path), or an unknown where `T` has no
/// [`Unknown`](crate::Unknown).
pub fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T> {
    let bytes = crate::msgpack::to_vec(&crate::value::Untracked(TypedValue::new(value, None)))?;
    crate::msgpack::from_slice(&bytes)
}
