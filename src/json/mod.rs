//! Terraform's JSON value format as a serde data format.
//!
//! This is the encoding of the `json` field of tfplugin5/6 `DynamicValue` (Terraform
//! Core falls back to it when the `msgpack` field is empty) and of `RawState.json` in
//! `UpgradeResourceState`. It is what go-cty's `ctyjson` package reads and writes, and
//! differs from plain JSON in a few ways, all handled here on top of serde_json:
//!
//! | Rust (serde) | JSON |
//! | --- | --- |
//! | `bool` | `true`/`false`; on decode also the strings `"true"`, `"false"`, `"1"`, `"0"` |
//! | integers, floats, [`Number`](crate::Number) | a number, exactly, of any size; on decode also a string holding one (`"5"`, `"1e3"`, `"-Inf"`) |
//! | `String`, `&str`, `char` | a string, NFC-normalized on encode; on decode a number or bool is also read as its text (`1e3` as `"1e3"`) |
//! | `Option<T>` | `null` for `None` |
//! | `Vec<T>`, sets, tuples | an array |
//! | maps with string keys, structs | an object; duplicate keys and undeclared attributes are rejected on decode |
//! | unit enum variants | a string |
//! | [`Unknown<T>`](crate::Unknown) | the value when known; an unknown is an error (JSON has no unknowns) |
//! | [`Dynamic`](crate::Dynamic) | `{"type": T, "value": V}` (either key order on decode) |
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use std::collections::BTreeMap;
//! use tfvalue::Number;
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Bucket {
//!     name: String,
//!     size: Number,
//!     tags: BTreeMap<String, String>,
//!     versioning: Option<bool>,
//! }
//!
//! let input = br#"{"name": "logs", "size": 1e400, "tags": {"env": "prod"}, "versioning": "true"}"#;
//! let bucket: Bucket = tfvalue::json::from_slice(input)?;
//! assert_eq!(bucket.versioning, Some(true));
//! // 1e400 does not fit an f64, but a Number keeps it exactly.
//! assert_eq!(bucket.size.to_string().len(), 401);
//!
//! let out = tfvalue::json::to_vec(&bucket)?;
//! let back: Bucket = tfvalue::json::from_slice(&out)?;
//! assert_eq!(back, bucket);
//! # Ok::<(), tfvalue::Error>(())
//! ```
//!
//! Errors name the attribute path and the byte offset of the problem:
//!
//! ```
//! use std::collections::HashMap;
//! use tfvalue::Unknown;
//!
//! #[derive(serde::Serialize)]
//! struct Resource { tags: HashMap<String, Unknown<String>> }
//!
//! let r = Resource { tags: HashMap::from([("env".to_string(), Unknown::unknown())]) };
//! let err = tfvalue::json::to_vec(&r).unwrap_err();
//! assert_eq!(err.to_string(), r#"unknown values cannot be encoded as JSON at tags["env"]"#);
//!
//! #[derive(serde::Deserialize, Debug)]
//! struct Disk { size: u32 }
//! let err = tfvalue::json::from_slice::<Vec<Disk>>(br#"[{"size": 1}, {"size": "big"}]"#).unwrap_err();
//! assert_eq!(err.to_string(), r#"invalid number "big" at [1].size, line 1 column 24"#);
//! ```

mod de;
mod ser;
mod value;

use std::io;

pub(crate) use de::{small_int, SmallInt};
pub use de::{Deserializer, DEFAULT_MAX_DEPTH};
pub use ser::{Compound, Serializer};

use crate::error::{Error, Result};
use crate::path::{AttributePath, PathStep};
use crate::types::Type;
use crate::unknown::RefineKind;
use crate::value::{TypedValue, Untracked, Value};

/// Serializes `value` as JSON into a new byte vector.
///
/// # Errors
///
/// A value that JSON cannot carry: an unknown, NaN or an infinity, an enum variant with
/// data, a map key that is not a string, bytes that are not UTF-8, or nesting deeper than
/// 128. The error names the path.
pub fn to_vec<T: ?Sized + serde::Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut ser = Serializer::new();
    value.serialize(&mut ser)?;
    Ok(ser.into_inner())
}

/// Serializes `value` as a JSON string, as [`to_vec`] does.
///
/// ```
/// let s = tfvalue::json::to_string(&vec![tfvalue::Number::from_f64(0.1).unwrap()])?;
/// assert_eq!(s, "[0.1]");
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Errors
///
/// As [`to_vec`].
pub fn to_string<T: ?Sized + serde::Serialize>(value: &T) -> Result<String> {
    let bytes = to_vec(value)?;
    String::from_utf8(bytes).map_err(|_| Error::data("the JSON written is not UTF-8"))
}

/// Serializes `value` as an indented JSON string (two spaces, as `serde_json`'s
/// `to_string_pretty`), with the same exact numbers as [`to_vec`].
///
/// ```
/// use std::collections::BTreeMap;
/// let tags: BTreeMap<&str, &str> = [("env", "prod")].into();
/// assert_eq!(tfvalue::json::to_string_pretty(&tags)?, "{\n  \"env\": \"prod\"\n}");
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Errors
///
/// As [`to_vec`].
pub fn to_string_pretty<T: ?Sized + serde::Serialize>(value: &T) -> Result<String> {
    let compact = to_string(value)?;
    Ok(indent(&compact))
}

/// Indents compact JSON (no white space outside strings, as tfvalue writes it).
fn indent(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}' | ']')) {
                    if let Some(close) = chars.next() {
                        out.push(close);
                    }
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out
}

/// Deserializes a `T` from a JSON string, as [`from_slice`] does.
///
/// ```
/// let n: tfvalue::Number = tfvalue::json::from_str("0.1")?;
/// assert_eq!(n, "0.1".parse()?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`from_slice`].
pub fn from_str<'de, T: serde::Deserialize<'de>>(s: &'de str) -> Result<T> {
    from_slice(s.as_bytes())
}

/// Serializes `value` as JSON into a writer.
///
/// # Errors
///
/// As [`to_vec`], plus I/O errors from the writer.
pub fn to_writer<W: io::Write, T: ?Sized + serde::Serialize>(
    mut writer: W,
    value: &T,
) -> Result<()> {
    let bytes = to_vec(value)?;
    writer.write_all(&bytes).map_err(Error::io)
}

/// Deserializes a `T` from the whole of `bytes`, borrowing strings where `T` allows.
///
/// # Errors
///
/// Malformed JSON, trailing data after the value, a value that does not fit `T` (with the
/// attribute path and byte offset), a duplicate key, an attribute `T` does not declare, or
/// nesting deeper than 128. Use a [`Deserializer`] to change the last two.
pub fn from_slice<'de, T: serde::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    let _budget = crate::limits::fill::Guard::enter(bytes.len());
    let mut de = Deserializer::from_slice(bytes);
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Deserializes a `T` from a reader, which is read to its end.
///
/// The reader is read into memory first, and the decoder then runs over the buffer as
/// [`from_slice`] does (borrowing, exact numbers and `dynamic` values in either key order
/// all need the whole input at hand).
///
/// # Errors
///
/// As [`from_slice`], plus I/O errors from the reader.
pub fn from_reader<R: io::Read, T: serde::de::DeserializeOwned>(mut reader: R) -> Result<T> {
    let mut buf = Vec::new();
    reader.read_to_end(&mut buf).map_err(Error::io)?;
    from_slice(&buf)
}

impl Value {
    /// Decodes JSON text against a type, following go-cty's `ctyjson.Unmarshal`. The text
    /// is a `&str`, a `String`, bytes (`&[u8]`, `Vec<u8>`), anything that is
    /// `AsRef<[u8]>`.
    ///
    /// An object attribute missing from the input is null (Terraform's JSON state omits
    /// attributes added to a schema later); an attribute the type does not declare is an
    /// error (use [`Deserializer::ignore_undeclared_attributes`] and
    /// [`Deserializer::decode_value`] to skip them). Numbers are exact. A number may be
    /// given as a string, a string as a number or bool, and a bool as a string, as
    /// go-cty allows.
    ///
    /// A `Value` is not `Deserialize` (`serde_json::from_str::<Value>` does not compile):
    /// without a type it cannot tell a set from a list, or what a `dynamic` holds. Read it
    /// with this function; in a model struct, an attribute declared `dynamic` is a
    /// [`Dynamic`](crate::Dynamic), and bytes to decode later, once the type is known, a
    /// [`Raw`](crate::Raw).
    ///
    /// ```
    /// use tfvalue::{Type, Value};
    ///
    /// let ty: Type = serde_json::from_str(r#"["object",{"id":"string","port":"number","d":"dynamic"}]"#)?;
    /// let v = Value::from_json(r#"{"id": 42, "port": "8080", "d": {"value": [1], "type": ["list","number"]}}"#, &ty)?;
    /// assert_eq!(v["id"], "42");
    /// assert_eq!(v["port"], 8080);
    /// assert_eq!(v["d"][0], 1);
    /// assert_eq!(Value::from_json(br#"{"id":"x","port":1,"d":null}"#, &ty)?["id"], "x");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Malformed JSON, trailing data, a value that does not fit `ty` (wrong kinds, an
    /// undeclared attribute, a duplicate key, a tuple of the wrong length), a malformed
    /// `dynamic` value, or nesting deeper than 128. The error names the path and offset.
    pub fn from_json(json: impl AsRef<[u8]>, ty: &Type) -> Result<Value> {
        value_from_slice(json.as_ref(), ty, false)
    }

    /// Encodes the value as JSON against a type, as go-cty's `ctyjson.Marshal` does.
    ///
    /// Every attribute the object type declares is written, optional ones that are
    /// missing as null; sets in canonical order; numbers exactly.
    ///
    /// ```
    /// use tfvalue::{Type, Value};
    ///
    /// let ty: Type = serde_json::from_str(r#"["object",{"n":"number","s":["set","string"]}]"#)?;
    /// let v = Value::from_json(br#"{"n": 123456789012345678901234567890.5, "s": ["b", "a"]}"#, &ty)?;
    /// assert_eq!(v.to_json(&ty)?, br#"{"n":123456789012345678901234567890.5,"s":["a","b"]}"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A value that does not conform to `ty` (see [`Value::conforms_to`]), an unknown
    /// anywhere in it (JSON has no unknowns; the error names its path), an infinity, or
    /// nesting deeper than 128.
    pub fn to_json(&self, ty: &Type) -> Result<Vec<u8>> {
        match value::to_json_fast(self, ty) {
            Ok(bytes) => Ok(bytes),
            Err(value::Bail) => to_json_general(self, ty),
        }
    }

    /// The value as a [`serde_json::Value`], for tools built on serde_json: what
    /// [`Value::to_json`] writes, parsed. `serde_json::Value` holds numbers as `i64`, `u64`
    /// or `f64`, so a number no `f64` holds exactly (the decimal `0.1`, a 30-digit integer)
    /// is the `f64` nearest it there; keep the bytes of `to_json` where every digit counts.
    ///
    /// ```
    /// use tfvalue::{Type, Value};
    ///
    /// let ty: Type = r#"["object",{"name":"string","ports":["list","number"]}]"#.parse()?;
    /// let v = Value::from_json(br#"{"name": "web", "ports": [80, 443]}"#, &ty)?;
    /// assert_eq!(v.to_json_value(&ty)?, serde_json::json!({"name": "web", "ports": [80, 443]}));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Value::to_json`].
    pub fn to_json_value(&self, ty: &Type) -> Result<serde_json::Value> {
        let bytes = self.to_json(ty)?;
        serde_json::from_slice(&bytes).map_err(|e| Error::data(format_args!("{e}")))
    }
}

/// [`Value::from_json`], skipping the attributes `ty` does not declare when
/// `ignore_undeclared` is set; within the fill budget of the input's size.
pub(crate) fn value_from_slice(bytes: &[u8], ty: &Type, ignore_undeclared: bool) -> Result<Value> {
    let _budget = crate::limits::fill::Guard::enter(bytes.len());
    let mut de = Deserializer::from_slice(bytes).ignore_undeclared_attributes(ignore_undeclared);
    let v = de.decode_value(ty)?;
    de.end()?;
    Ok(v)
}

/// The general path of `Value::to_json`, for tests that hold the fast path to the same
/// bytes and errors.
#[cfg(feature = "conformance")]
#[doc(hidden)]
pub fn general_to_json(v: &Value, ty: &Type) -> Result<Vec<u8>> {
    to_json_general(v, ty)
}

/// The general path of [`Value::to_json`]: conformance, the unknowns check, then serde.
fn to_json_general(v: &Value, ty: &Type) -> Result<Vec<u8>> {
    v.conforms_to(ty)?;
    check_known(v, ty, &mut AttributePath::new(), 0)?;
    match v.settled(ty)? {
        Some(settled) => to_vec(&Untracked(TypedValue::new(&settled, Some(ty)))),
        None => to_vec(&Untracked(TypedValue::new(v, Some(ty)))),
    }
}

static ANY: Type = Type::Dynamic;

fn elem(t: &Type) -> &Type {
    match t {
        Type::List(e) | Type::Set(e) | Type::Map(e) => e,
        _ => &ANY,
    }
}

/// Finds an unknown that JSON cannot carry, with its path. A number that its refinements
/// pin to one value is written as that number, as go-cty does.
fn check_known(v: &Value, ty: &Type, path: &mut AttributePath, depth: usize) -> Result<()> {
    if depth > DEFAULT_MAX_DEPTH {
        return Err(Error::limit("nesting is deeper than the limit of 128"));
    }
    let step = |p: &mut AttributePath, s: PathStep, v: &Value, t: &Type| -> Result<()> {
        p.push(s);
        check_known(v, t, p, depth + 1)?;
        p.pop();
        Ok(())
    };
    match v {
        Value::Unknown(r) => {
            let collapsed =
                r.validate().is_ok() && r.collapsed_number(RefineKind::of(ty)).is_some();
            if collapsed {
                Ok(())
            } else {
                Err(Error::data("unknown values cannot be encoded as JSON").prepend_path(path))
            }
        }
        Value::List(vs) | Value::Set(vs) => {
            let t = elem(ty);
            for (i, e) in vs.iter().enumerate() {
                step(path, PathStep::Index(i as u64), e, t)?;
            }
            Ok(())
        }
        Value::Tuple(vs) => {
            for (i, e) in vs.iter().enumerate() {
                let t = match ty {
                    Type::Tuple(ts) => ts.get(i).unwrap_or(&ANY),
                    _ => &ANY,
                };
                step(path, PathStep::Index(i as u64), e, t)?;
            }
            Ok(())
        }
        Value::Map(m) => {
            let t = elem(ty);
            for (k, e) in m {
                step(path, PathStep::Key(k.to_string()), e, t)?;
            }
            Ok(())
        }
        Value::Object(m) => {
            for (k, e) in m {
                let t = match ty {
                    Type::Object(o) => o.get(k).unwrap_or(&ANY),
                    _ => &ANY,
                };
                step(path, PathStep::Attr(k.to_string()), e, t)?;
            }
            Ok(())
        }
        Value::Dynamic(d) => check_known(d.value(), d.ty(), path, depth + 1),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => Ok(()),
    }
}
