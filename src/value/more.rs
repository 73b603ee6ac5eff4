//! The rest of the surface a serde_json user expects of a value: numbers out as Rust
//! numbers, mutable access, construction from Rust values, comparisons with Rust values,
//! and `Display`.

use std::fmt;

use super::index::Index;
use super::{Map, Value};
use crate::dynamic::Dynamic;
use crate::number::Number;

impl Value {
    /// The number as an `i64`, if this is a number that is a whole `i64` (as
    /// `serde_json::Value::as_i64`).
    ///
    /// ```
    /// use tfvalue::Value;
    /// assert_eq!(Value::from(-3).as_i64(), Some(-3));
    /// assert_eq!(Value::from(1.5).as_i64(), None);
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::to_i64)
    }

    /// The number as a `u64`, if this is a number that is a whole `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::to_u64)
    }

    /// The number as the nearest `f64`, if this is a number an `f64` can hold (as
    /// `serde_json::Value::as_f64`: `0.1` gives the `f64` nearest it).
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::to_f64)
    }

    /// The elements of a list, mutably.
    pub fn as_list_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::List(v) => Some(v),
            _ => None,
        }
    }

    /// The elements of a set, mutably (the set stays a set: duplicates are one element
    /// when it is compared or written).
    pub fn as_set_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Set(v) => Some(v),
            _ => None,
        }
    }

    /// The elements of a tuple, mutably.
    pub fn as_tuple_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Tuple(v) => Some(v),
            _ => None,
        }
    }

    /// The elements of a map, mutably.
    pub fn as_map_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The attributes of an object, mutably.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// Looks up an attribute, map key or element mutably: `v.get_mut("tags")`. Sees
    /// through `Dynamic`.
    ///
    /// ```
    /// use tfvalue::Value;
    ///
    /// let mut v = Value::from_iter([("name", "web")]);
    /// if let Some(name) = v.get_mut("name") {
    ///     *name = "api".into();
    /// }
    /// assert_eq!(v["name"], "api");
    /// ```
    pub fn get_mut<I: Index>(&mut self, index: I) -> Option<&mut Value> {
        index.index_into_mut(self)
    }

    /// The value with its `Dynamic` wrapper taken off, mutably.
    pub fn unwrap_dynamic_mut(&mut self) -> &mut Value {
        match self {
            Value::Dynamic(d) => d.value_mut(),
            v => v,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Construction

impl From<f64> for Value {
    /// A number with the exact value of `f`, written back as the same float64; NaN, which
    /// is no number, is null (as `serde_json::Value::from` makes it).
    fn from(f: f64) -> Self {
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

impl From<f32> for Value {
    /// As `From<f64>`.
    fn from(f: f32) -> Self {
        Value::from(f64::from(f))
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    /// A list. (A set or a tuple is `Value::Set(..)` or `Value::Tuple(..)`.)
    fn from(v: Vec<T>) -> Self {
        Value::List(v.into_iter().map(Into::into).collect())
    }
}

impl<T: Clone + Into<Value>> From<&[T]> for Value {
    /// A list.
    fn from(v: &[T]) -> Self {
        Value::List(v.iter().cloned().map(Into::into).collect())
    }
}

impl From<Map> for Value {
    /// An object. (A map is `Value::Map(..)`.)
    fn from(m: Map) -> Self {
        Value::Object(m)
    }
}

impl<T: Into<Value>> FromIterator<T> for Value {
    /// A list.
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Value::List(iter.into_iter().map(Into::into).collect())
    }
}

impl<K: Into<String>, V: Into<Value>> FromIterator<(K, V)> for Value {
    /// An object.
    ///
    /// ```
    /// use tfvalue::Value;
    /// let v = Value::from_iter([("name", Value::from("web")), ("port", Value::from(80))]);
    /// assert_eq!(v["port"], 80);
    /// assert!(v.as_object().is_some());
    /// ```
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Value::Object(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

impl From<serde_json::Value> for Value {
    /// Objects become [`Value::Object`], arrays [`Value::List`], and numbers the exact
    /// number their JSON text says (`0.1` is the decimal 0.1). For sets, maps and tuples,
    /// decode against a type with [`Value::from_json_value`].
    fn from(j: serde_json::Value) -> Self {
        match j {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => n
                .to_string()
                .parse::<Number>()
                .map_or(Value::Null, Value::Number),
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(vs) => Value::List(vs.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(m) => {
                Value::Object(m.into_iter().map(|(k, v)| (k, Value::from(v))).collect())
            }
        }
    }
}

impl Value {
    /// Reads a `serde_json::Value` as a value of `ty`, as [`Value::from_json`] reads its
    /// text.
    ///
    /// # Errors
    ///
    /// As [`Value::from_json`].
    pub fn from_json_value(
        json: &serde_json::Value,
        ty: &crate::types::Type,
    ) -> crate::error::Result<Value> {
        let text =
            serde_json::to_vec(json).map_err(|e| crate::error::Error::data(format_args!("{e}")))?;
        Value::from_json(&text, ty)
    }
}

impl From<()> for Value {
    /// Null.
    fn from((): ()) -> Self {
        Value::Null
    }
}

// ---------------------------------------------------------------------------------------
// Comparisons with Rust values (seeing through `Dynamic`)

impl PartialEq<String> for Value {
    fn eq(&self, other: &String) -> bool {
        self.unwrap_dynamic().as_str() == Some(other.as_str())
    }
}

impl PartialEq<Number> for Value {
    fn eq(&self, other: &Number) -> bool {
        self.unwrap_dynamic().as_number() == Some(other)
    }
}

macro_rules! eq_number {
    ($($t:ty),*) => {$(
        impl PartialEq<$t> for Value {
            fn eq(&self, other: &$t) -> bool {
                self.unwrap_dynamic().as_number() == Some(&Number::from(*other))
            }
        }
        impl PartialEq<Value> for $t {
            fn eq(&self, other: &Value) -> bool {
                other == self
            }
        }
        impl PartialEq<$t> for &Value {
            fn eq(&self, other: &$t) -> bool {
                *self == other
            }
        }
    )*};
}
eq_number!(i8, i16, i32, i128, isize, u8, u16, u32, u64, u128, usize);

impl PartialEq<Value> for i64 {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

impl PartialEq<i64> for &Value {
    fn eq(&self, other: &i64) -> bool {
        *self == other
    }
}

macro_rules! eq_float {
    ($($t:ty),*) => {$(
        impl PartialEq<$t> for Value {
            /// Equal when the value is a number whose nearest `f64` is `other`, as
            /// `serde_json::Value` compares with a float: `Value::from(0.1) == 0.1`, and the
            /// decimal 0.1 read from JSON text is `== 0.1` too (while the two values are not
            /// equal to each other: `Value == Value` compares exactly).
            fn eq(&self, other: &$t) -> bool {
                self.unwrap_dynamic().as_f64() == Some(f64::from(*other))
            }
        }
        impl PartialEq<Value> for $t {
            fn eq(&self, other: &Value) -> bool {
                other == self
            }
        }
    )*};
}
eq_float!(f32, f64);

impl PartialEq<Value> for str {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

impl PartialEq<Value> for &str {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

impl PartialEq<Value> for String {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

impl PartialEq<Value> for bool {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

// ---------------------------------------------------------------------------------------
// Display

impl fmt::Display for Value {
    /// The value as `terraform console` shows it: strings quoted, objects and maps as
    /// `{ name = "web", port = 80 }`, lists and tuples as `[1, 2]`, sets as `toset([..])`,
    /// null as `null`, and unknowns as the CLI marks them, `(known after apply)`, with
    /// their refinements.
    ///
    /// ```
    /// use tfvalue::{Refinements, Value};
    ///
    /// let v = Value::from_iter([
    ///     ("name", Value::from("web")),
    ///     ("ports", Value::Set(vec![80.into(), 443.into()])),
    ///     ("id", Value::Unknown(Refinements::new())),
    /// ]);
    /// assert_eq!(
    ///     v.to_string(),
    ///     r#"{ id = (known after apply), name = "web", ports = toset([80, 443]) }"#
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Unknown(r) if r.is_empty() => f.write_str("(known after apply)"),
            Value::Unknown(r) => write!(f, "(known after apply, {r})"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::List(vs) | Value::Tuple(vs) => write_seq(f, vs.iter()),
            Value::Set(vs) => {
                f.write_str("toset(")?;
                write_seq(f, super::sorted_refs(vs, false).into_iter())?;
                f.write_str(")")
            }
            Value::Map(m) => write_map(f, m, true),
            Value::Object(m) => write_map(f, m, false),
            Value::Dynamic(d) => write!(f, "{}", d.value()),
        }
    }
}

fn write_seq<'a>(f: &mut fmt::Formatter<'_>, vs: impl Iterator<Item = &'a Value>) -> fmt::Result {
    f.write_str("[")?;
    for (i, v) in vs.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    f.write_str("]")
}

fn write_map(f: &mut fmt::Formatter<'_>, m: &Map, quote_keys: bool) -> fmt::Result {
    if m.is_empty() {
        return f.write_str("{}");
    }
    f.write_str("{ ")?;
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        let ident = !quote_keys
            && k.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
            && k.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
        if ident {
            write!(f, "{k} = {v}")?;
        } else {
            write!(f, "{k:?} = {v}")?;
        }
    }
    f.write_str(" }")
}

impl fmt::Display for Dynamic {
    /// The value, as [`Value`]'s `Display` shows it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value())
    }
}
