//! The private newtype names that carry out-of-band data through serde, kept in one place.
//! tfvalue's serializers and deserializers recognise them; nobody else does.

/// An unknown value: serialized as the bytes of its MessagePack extension; deserializers
/// hand an unknown over as those bytes (`visit_bytes`) and a known value as the inner value
/// (`visit_newtype_struct`).
pub(crate) const UNKNOWN_TOKEN: &str = "$tfvalue::private::Unknown";
/// A number: the inner value is an int, a float64 or the decimal text.
pub(crate) const NUMBER_TOKEN: &str = crate::number::TOKEN;
/// A `dynamic` value: `[type JSON, value]`; null and unknown come as unit and bytes.
pub(crate) const DYNAMIC_TOKEN: &str = "$tfvalue::private::Dynamic";
/// Undecoded bytes of one value ([`Raw`](crate::Raw)): deserializers hand over the bytes
/// of the next value (`visit_borrowed_bytes` for MessagePack, `visit_borrowed_str` for JSON
/// text) without building it; serializers write the bytes as they are.
pub(crate) const RAW_TOKEN: &str = "$tfvalue::private::Raw";
