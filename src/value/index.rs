//! `value["attr"]`, `value[2]`.

use super::Value;

mod private {
    pub trait Sealed {}
    impl Sealed for usize {}
    impl Sealed for str {}
    impl Sealed for String {}
    impl<T: ?Sized + Sealed> Sealed for &T {}
}

/// A type that can index into a [`Value`]: `usize` for list, tuple and set elements (sets
/// in their stored order), `&str`/`String` for object attributes and map keys. Sealed.
pub trait Index: private::Sealed {
    #[doc(hidden)]
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value>;
    #[doc(hidden)]
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value>;
    /// For `IndexMut`: the element, an attribute or key made null if it is missing.
    #[doc(hidden)]
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value;
}

impl Index for usize {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        match v.unwrap_dynamic() {
            Value::List(vs) | Value::Tuple(vs) | Value::Set(vs) => vs.get(*self),
            _ => None,
        }
    }

    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        match v.unwrap_dynamic_mut() {
            Value::List(vs) | Value::Tuple(vs) | Value::Set(vs) => vs.get_mut(*self),
            _ => None,
        }
    }

    #[allow(clippy::panic)]
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        match v.unwrap_dynamic_mut() {
            Value::List(vs) | Value::Tuple(vs) | Value::Set(vs) => {
                let len = vs.len();
                match vs.get_mut(*self) {
                    Some(e) => e,
                    None => panic!("index {self} out of range for a value of {len} elements"),
                }
            }
            other => panic!("cannot index a {} with a number", other.kind_name()),
        }
    }
}

impl Index for str {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        match v.unwrap_dynamic() {
            Value::Object(m) | Value::Map(m) => m.get(self),
            _ => None,
        }
    }

    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        match v.unwrap_dynamic_mut() {
            Value::Object(m) | Value::Map(m) => m.get_mut(self),
            _ => None,
        }
    }

    #[allow(clippy::panic)]
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        let v = v.unwrap_dynamic_mut();
        if v.is_null() {
            *v = Value::Object(Default::default());
        }
        match v {
            Value::Object(m) | Value::Map(m) => m.entry(self.to_owned()).or_insert(Value::Null),
            other => panic!(
                "cannot index a {} with the name {self:?}",
                other.kind_name()
            ),
        }
    }
}

impl Index for String {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(v)
    }

    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        self.as_str().index_into_mut(v)
    }

    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        self.as_str().index_or_insert(v)
    }
}

impl<T: ?Sized + Index> Index for &T {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        (**self).index_into(v)
    }

    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        (**self).index_into_mut(v)
    }

    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        (**self).index_or_insert(v)
    }
}

static NULL: Value = Value::Null;

impl<I: Index> std::ops::Index<I> for Value {
    type Output = Value;

    /// Like [`Value::get`], but gives `Value::Null` where there is nothing, as
    /// `serde_json::Value` does, so that `v["a"]["b"]` never panics.
    fn index(&self, index: I) -> &Value {
        index.index_into(self).unwrap_or(&NULL)
    }
}

impl<I: Index> std::ops::IndexMut<I> for Value {
    /// As `serde_json::Value`'s: an element of a list, tuple or set, or an attribute or
    /// map key, inserted as null when it is missing (a null value becomes an empty object
    /// first).
    ///
    /// ```
    /// use tfvalue::Value;
    ///
    /// let mut v = Value::Null;
    /// v["tags"] = Value::Map(Default::default());
    /// v["tags"]["env"] = "prod".into();
    /// assert_eq!(v["tags"]["env"], "prod");
    /// ```
    ///
    /// # Panics
    ///
    /// An element index out of range, a number used on a value that has no elements, or a
    /// name used on a value that is neither an object, a map nor null: as indexing a `Vec`
    /// out of range does. Use [`Value::get_mut`] to get an `Option` instead.
    fn index_mut(&mut self, index: I) -> &mut Value {
        index.index_or_insert(self)
    }
}
