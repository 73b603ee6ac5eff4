//! `value!`: a [`Value`](crate::Value) from JSON-like syntax, and what it takes in the
//! places where it takes a Rust expression.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::{Key, Map, Value};
use crate::dynamic::Dynamic;
use crate::number::Number;
use crate::unknown::{Refinements, Unknown};

/// Builds a [`Value`](crate::Value) from JSON-like syntax, as `serde_json::json!` does.
///
/// `{..}` is an object ([`Value::Object`](crate::Value::Object)), `[..]` a list, `null`,
/// `true` and `false` themselves. Anywhere else a Rust expression goes in as the value it
/// converts into: a number, a string, a `bool`, an `Option` (`None` is null), a `Vec` or
/// an array (a list), a `BTreeSet` or `HashSet` (a set), a `BTreeMap` or `HashMap` (a
/// map), a tuple (a tuple), a [`Number`](crate::Number), [`Refinements`](crate::Refinements)
/// (an unknown), an [`Unknown<T>`](crate::Unknown), a [`Dynamic`](crate::Dynamic), another
/// `Value`. Building a value never fails and never panics; a type that does not convert is
/// a compile error that says what does.
///
/// **A Rust `f64` is the float64 it denotes**, whether it is a literal or a variable:
/// `value!(0.1)`, `value!(x)` with `let x = 0.1;` and `Value::from(0.1)` are the same
/// value, which is written back as that float64 (`cb 3f b9 99 ..` in MessagePack, `0.1`
/// in JSON). A macro cannot tell a literal from a variable by its value, so a literal
/// meaning a decimal would make the two differ. JSON text `0.1` is the decimal 0.1 (as
/// go-cty reads number text), and so is `"0.1".parse::<Number>()`; compared with an `f64`
/// (`v == 0.1`), both are equal to `0.1`, as in serde_json.
///
/// ```
/// use tfvalue::{value, Number, Refinements, Type, Value};
///
/// let v = value!({ "name": "web", "ports": [80, 443], "tags": null, "ratio": 0.1 });
/// assert_eq!(v["ports"][1], 443);
/// assert!(v["tags"].is_null());
/// assert_eq!(v["ratio"], 0.1);
/// assert_eq!(v["ratio"], Value::from(0.1));
///
/// // Sets, maps, unknowns and exact decimals go in as Rust values.
/// let ports = std::collections::BTreeSet::from([443, 80]);
/// let id = Refinements::new().not_null().with_prefix("i-");
/// let v = value!({ "ports": ports, "id": id, "exact": "0.1".parse::<Number>()? });
/// assert!(v["ports"].as_set().is_some());
/// assert!(v["id"].is_unknown());
/// assert_eq!(v["exact"], 0.1);
/// assert_ne!(v["exact"], Value::from(0.1));
///
/// // Or built as JSON would be, then given the type's shape.
/// let ty: Type = "object({ ports = set(number), tags = map(string) })".parse()?;
/// let v = value!({ "ports": [443, 80], "tags": { "env": "prod" } }).into_typed(&ty)?;
/// assert_eq!(v, Value::from_msgpack(&v.to_msgpack(&ty)?, &ty)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Against a type, where lists become sets or tuples and objects maps, see
/// [`Value::into_typed`](crate::Value::into_typed).
#[macro_export]
macro_rules! value {
    ($($value:tt)+) => {
        $crate::__value!($($value)+)
    };
}

/// The rules of [`value!`]: one value, then the elements of a list (`@list`) and the
/// entries of an object (`@object`), taken a token at a time.
#[macro_export]
#[doc(hidden)]
macro_rules! __value {
    // One value.
    (null) => {
        $crate::Value::Null
    };
    (true) => {
        $crate::Value::Bool(true)
    };
    (false) => {
        $crate::Value::Bool(false)
    };
    ([]) => {
        $crate::Value::List($crate::__private::Vec::new())
    };
    ([ $($elems:tt)+ ]) => {
        $crate::Value::List($crate::__value!(@list [] $($elems)+))
    };
    ({}) => {
        $crate::Value::Object($crate::Map::new())
    };
    ({ $($entries:tt)+ }) => {{
        let mut object = $crate::Map::new();
        $crate::__value!(@object object () $($entries)+);
        $crate::Value::Object(object)
    }};
    ($other:expr) => {
        $crate::value::IntoValue::into_value($other)
    };

    // List elements: `[done,] rest`.
    (@list [$($done:expr,)*]) => {
        $crate::__private::vec![$($done,)*]
    };
    (@list [$($done:expr,)*] null $(, $($rest:tt)*)?) => {
        $crate::__value!(@list [$($done,)* $crate::__value!(null),] $($($rest)*)?)
    };
    (@list [$($done:expr,)*] true $(, $($rest:tt)*)?) => {
        $crate::__value!(@list [$($done,)* $crate::__value!(true),] $($($rest)*)?)
    };
    (@list [$($done:expr,)*] false $(, $($rest:tt)*)?) => {
        $crate::__value!(@list [$($done,)* $crate::__value!(false),] $($($rest)*)?)
    };
    (@list [$($done:expr,)*] [$($list:tt)*] $(, $($rest:tt)*)?) => {
        $crate::__value!(@list [$($done,)* $crate::__value!([$($list)*]),] $($($rest)*)?)
    };
    (@list [$($done:expr,)*] {$($object:tt)*} $(, $($rest:tt)*)?) => {
        $crate::__value!(@list [$($done,)* $crate::__value!({$($object)*}),] $($($rest)*)?)
    };
    (@list [$($done:expr,)*] $next:expr, $($rest:tt)*) => {
        $crate::__value!(@list [$($done,)* $crate::__value!($next),] $($rest)*)
    };
    (@list [$($done:expr,)*] $last:expr) => {
        $crate::__value!(@list [$($done,)* $crate::__value!($last),])
    };

    // Object entries: `map (key tokens so far) rest`.
    (@object $map:ident ()) => {};
    (@object $map:ident ($($key:tt)+) : null $(, $($rest:tt)*)?) => {
        $crate::__value!(@entry $map ($($key)+) ($crate::__value!(null)) $($($rest)*)?);
    };
    (@object $map:ident ($($key:tt)+) : true $(, $($rest:tt)*)?) => {
        $crate::__value!(@entry $map ($($key)+) ($crate::__value!(true)) $($($rest)*)?);
    };
    (@object $map:ident ($($key:tt)+) : false $(, $($rest:tt)*)?) => {
        $crate::__value!(@entry $map ($($key)+) ($crate::__value!(false)) $($($rest)*)?);
    };
    (@object $map:ident ($($key:tt)+) : [$($list:tt)*] $(, $($rest:tt)*)?) => {
        $crate::__value!(@entry $map ($($key)+) ($crate::__value!([$($list)*])) $($($rest)*)?);
    };
    (@object $map:ident ($($key:tt)+) : {$($object:tt)*} $(, $($rest:tt)*)?) => {
        $crate::__value!(@entry $map ($($key)+) ($crate::__value!({$($object)*})) $($($rest)*)?);
    };
    (@object $map:ident ($($key:tt)+) : $value:expr, $($rest:tt)*) => {
        $crate::__value!(@entry $map ($($key)+) ($crate::__value!($value)) $($rest)*);
    };
    (@object $map:ident ($($key:tt)+) : $value:expr) => {
        $crate::__value!(@entry $map ($($key)+) ($crate::__value!($value)));
    };
    (@object $map:ident ($($key:tt)*) $next:tt $($rest:tt)*) => {
        $crate::__value!(@object $map ($($key)* $next) $($rest)*);
    };
    (@entry $map:ident ($($key:tt)+) ($value:expr) $($rest:tt)*) => {
        let _ = $map.insert(($($key)+), $value);
        $crate::__value!(@object $map () $($rest)*);
    };
}

/// What [`value!`](crate::value!) takes where it takes a Rust expression: what a
/// [`Value`] is made from. Implemented for the same types as `From<T> for Value`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot go into `value!`: it does not convert into a `Value`",
    label = "not convertible into a `Value`",
    note = "`value!` takes numbers, strings, bools, `Option`s, `Vec`s and arrays (lists), \
            `BTreeSet`/`HashSet` (sets), `BTreeMap`/`HashMap` (maps), tuples, `Number`, \
            `Refinements` and `Unknown<T>` (unknowns), `Dynamic` and `Value`",
    note = "a type that implements `Serialize` (a model struct) goes in as \
            `tfvalue::to_value(&x)?`"
)]
pub trait IntoValue {
    /// The value.
    fn into_value(self) -> Value;
}

macro_rules! into_value_via_from {
    ($($t:ty),* $(,)?) => {$(
        impl IntoValue for $t {
            fn into_value(self) -> Value {
                Value::from(self)
            }
        }
    )*};
}

into_value_via_from!(
    bool,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64,
    &str,
    String,
    Number,
    Refinements,
    Dynamic,
    Value,
    Map,
    (),
    serde_json::Value
);

impl IntoValue for &Value {
    fn into_value(self) -> Value {
        self.clone()
    }
}

impl<T: IntoValue> IntoValue for Option<T> {
    fn into_value(self) -> Value {
        self.map_or(Value::Null, IntoValue::into_value)
    }
}

impl<T: IntoValue> IntoValue for Vec<T> {
    fn into_value(self) -> Value {
        Value::List(self.into_iter().map(IntoValue::into_value).collect())
    }
}

impl<T: IntoValue + Clone> IntoValue for &[T] {
    fn into_value(self) -> Value {
        Value::List(self.iter().cloned().map(IntoValue::into_value).collect())
    }
}

impl<T: IntoValue> IntoValue for Unknown<T> {
    fn into_value(self) -> Value {
        match self {
            Unknown::Known(v) => v.into_value(),
            Unknown::Unknown(r) => Value::Unknown(r),
        }
    }
}

impl<T: IntoValue, const N: usize> IntoValue for [T; N] {
    fn into_value(self) -> Value {
        Value::List(self.into_iter().map(IntoValue::into_value).collect())
    }
}

impl<T: IntoValue> IntoValue for BTreeSet<T> {
    fn into_value(self) -> Value {
        Value::Set(self.into_iter().map(IntoValue::into_value).collect())
    }
}

impl<T: IntoValue, S> IntoValue for HashSet<T, S> {
    fn into_value(self) -> Value {
        Value::Set(self.into_iter().map(IntoValue::into_value).collect())
    }
}

impl<K: Into<Key>, V: IntoValue> IntoValue for BTreeMap<K, V> {
    fn into_value(self) -> Value {
        Value::Map(map_of(self))
    }
}

impl<K: Into<Key>, V: IntoValue, S> IntoValue for HashMap<K, V, S> {
    fn into_value(self) -> Value {
        Value::Map(map_of(self))
    }
}

fn map_of<K: Into<Key>, V: IntoValue>(entries: impl IntoIterator<Item = (K, V)>) -> Map {
    let mut map = Map::new();
    for (k, v) in entries {
        map.insert(k, v.into_value());
    }
    map
}

macro_rules! tuples {
    ($(($($t:ident $i:tt),+))*) => {$(
        impl<$($t: IntoValue),+> IntoValue for ($($t,)+) {
            fn into_value(self) -> Value {
                Value::Tuple(vec![$(self.$i.into_value()),+])
            }
        }
    )*};
}

tuples! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
}

impl<T: IntoValue> From<BTreeSet<T>> for Value {
    /// A set.
    fn from(s: BTreeSet<T>) -> Value {
        s.into_value()
    }
}

impl<T: IntoValue, S> From<HashSet<T, S>> for Value {
    /// A set.
    fn from(s: HashSet<T, S>) -> Value {
        s.into_value()
    }
}

impl<K: Into<Key>, V: IntoValue> From<BTreeMap<K, V>> for Value {
    /// A map.
    fn from(m: BTreeMap<K, V>) -> Value {
        m.into_value()
    }
}

impl<K: Into<Key>, V: IntoValue, S> From<HashMap<K, V, S>> for Value {
    /// A map.
    fn from(m: HashMap<K, V, S>) -> Value {
        m.into_value()
    }
}

impl<T: IntoValue> From<Unknown<T>> for Value {
    /// The known value, or an unknown with its refinements.
    fn from(u: Unknown<T>) -> Value {
        u.into_value()
    }
}

impl<T: IntoValue, const N: usize> From<[T; N]> for Value {
    /// A list.
    fn from(a: [T; N]) -> Value {
        a.into_value()
    }
}

impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::String(s.clone())
    }
}

impl From<char> for Value {
    /// A one-character string.
    fn from(c: char) -> Value {
        Value::String(c.to_string())
    }
}
