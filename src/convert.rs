//! `to_value` and `from_value`: between typed structs and [`Value`].

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::tf_value::TfValue;
use crate::value::TypedValue;
use crate::{types::Type, value::Value};

/// Converts a model (any [`TfValue`]: a `#[derive(TfValue)]` struct, a `String`, a
/// `Vec<Option<u32>>`, ...) into a [`Value`] of the type the model already knows.
///
/// The conversion goes through the MessagePack encoding, so it applies the same rules:
/// strings come out in NFC, map keys sorted, unknowns as `Value::Unknown`.
///
/// ```
/// use std::collections::BTreeMap;
/// use tfvalue::Unknown;
///
/// let tags: BTreeMap<String, Unknown<String>> =
///     [("env".to_string(), Unknown::Known("prod".to_string())), ("id".to_string(), Unknown::unknown())].into();
/// let v = tfvalue::to_value(&tags)?;
/// assert_eq!(v["env"], "prod");
/// assert!(v["id"].is_unknown());
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Errors
///
/// What [`msgpack::to_vec`](crate::msgpack::to_vec) rejects (an enum variant with data, a
/// map key that is not a string, ...), with its path.
pub fn to_value<T: ?Sized + TfValue + Serialize>(value: &T) -> Result<Value> {
    to_value_as(value, &T::tf_type())
}

/// Converts any serializable value into a [`Value`] of type `ty`, for types that are not
/// [`TfValue`]s (a plain serde struct, a `serde_json::Value`).
///
/// ```
/// use tfvalue::{Type, Unknown};
///
/// #[derive(serde::Serialize)]
/// struct Disk { size: u32, id: Unknown<String> }
///
/// let ty = Type::object([("id", Type::String), ("size", Type::Number)]);
/// let v = tfvalue::to_value_as(&Disk { size: 40, id: Unknown::unknown() }, &ty)?;
/// assert_eq!(v["size"], 40);
/// assert!(v["id"].is_unknown());
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Errors
///
/// What [`msgpack::to_vec`](crate::msgpack::to_vec) rejects, and a value that does not
/// fit `ty` (with its path).
pub fn to_value_as<T: ?Sized + Serialize>(value: &T, ty: &Type) -> Result<Value> {
    let bytes = crate::msgpack::to_vec(value)?;
    // The bytes are ours, not the caller's: an offset into them would mean nothing.
    Value::from_msgpack(&bytes, ty).map_err(Error::without_offset)
}

/// Converts a [`Value`] (by value or by reference) into a typed value.
///
/// The conversion goes through the MessagePack encoding of the value as its own structure
/// says (lists, sets and tuples as arrays, maps and objects as maps).
///
/// ```
/// use std::collections::BTreeMap;
/// use tfvalue::Value;
///
/// let v = Value::Map([("env".to_string(), Value::from("prod"))].into());
/// let tags: BTreeMap<String, String> = tfvalue::from_value(&v)?;
/// assert_eq!(tags["env"], "prod");
/// let tags: BTreeMap<String, String> = tfvalue::from_value(v)?;
/// assert_eq!(tags["env"], "prod");
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Errors
///
/// A value that does not fit `T` (with its path), or an unknown where `T` has no
/// [`Unknown`](crate::Unknown).
pub fn from_value<T: DeserializeOwned>(value: impl std::borrow::Borrow<Value>) -> Result<T> {
    let bytes = crate::msgpack::to_vec(&crate::value::Untracked(TypedValue::new(
        value.borrow(),
        None,
    )))?;
    crate::msgpack::from_slice(&bytes).map_err(Error::without_offset)
}
