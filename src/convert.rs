//! `to_value` and `from_value`: between typed structs and [`Value`].

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::Result;
use crate::tf_value::TfValue;
use crate::{types::Type, value::Value};

/// Converts a model (any [`TfValue`]: a `#[derive(TfValue)]` struct, a `String`, a
/// `Vec<Option<u32>>`, ...) into a [`Value`] of the type the model already knows.
///
/// `Value` is a serde target of its own, as `serde_json::Value` is for
/// `serde_json::to_value`: the model is walked once, with no wire in between. The result
/// is what the model's MessagePack encoding would decode to (strings in NFC, unknowns as
/// `Value::Unknown` with the refinements their type allows, `dynamic` fields with their
/// concrete types), and the errors name the attribute path.
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
/// What the wire cannot carry (an enum variant with data, a map key that is not a string,
/// NaN, duplicate keys, ...), with its path.
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
/// What [`to_value`] rejects, and a value that does not fit `ty` (a missing or undeclared
/// attribute, a string where a list belongs, ...), with its path.
pub fn to_value_as<T: ?Sized + Serialize>(value: &T, ty: &Type) -> Result<Value> {
    crate::value::to_value_typed(value, ty, Some(decode_raw))
}

/// The bytes of a [`Raw`](crate::Raw) in a model, decoded against the type of their
/// position (the value layer knows no wire, so the decoder comes from here).
fn decode_raw(bytes: &[u8], json: bool, ty: &Type) -> Result<Value> {
    if json {
        Value::from_json(bytes, ty)
    } else {
        Value::from_msgpack(bytes, ty)
    }
}

/// Converts a [`Value`] (by value or by reference) into a typed value.
///
/// The value is handed to `T` as its own structure says (lists, sets and tuples as
/// sequences, maps and objects as maps, unknowns to [`Unknown`](crate::Unknown) fields),
/// in one walk, as `serde_json::from_value` does; each item is read as tfvalue's
/// MessagePack decoder reads it, so that `T` gets what it would get from the value's
/// encoding.
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
/// A value that does not fit `T` (with its path): an attribute `T` does not declare, an
/// unknown where `T` has no [`Unknown`](crate::Unknown), a `dynamic` value that does not
/// conform to its type.
pub fn from_value<T: DeserializeOwned>(value: impl std::borrow::Borrow<Value>) -> Result<T> {
    crate::value::from_value_typed(value.borrow())
}
