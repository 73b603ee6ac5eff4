//! [`Key`]: the name of an attribute or the key of a map element, the vocabulary that types
//! and values share (object types hold their attribute names as keys; values decoded
//! against a type share them). It sits below both.

use std::borrow::Borrow;
use std::fmt;
use std::ops;
use std::sync::Arc;

/// A key of a [`Map`](crate::Map): an attribute name or a map key.
///
/// It reads as a `&str` (`Deref`, `AsRef<str>`, `Borrow<str>`, `Display`, `==` with
/// strings) and clones cheaply: the attribute names of objects decoded against a type
/// share the type's names instead of each owning a copy.
///
/// ```
/// use tfvalue::Key;
///
/// let k = Key::from("env");
/// assert_eq!(k, "env");
/// assert_eq!(k.len(), 3);
/// let s: String = k.clone().into();
/// assert_eq!(s, "env");
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key(Arc<str>);

impl Key {
    /// The key's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl ops::Deref for Key {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Key {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Key {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Self {
        Key(Arc::from(s))
    }
}

impl From<String> for Key {
    fn from(s: String) -> Self {
        Key(Arc::from(s))
    }
}

impl From<&String> for Key {
    fn from(s: &String) -> Self {
        Key(Arc::from(s.as_str()))
    }
}

impl From<&Key> for Key {
    fn from(k: &Key) -> Self {
        k.clone()
    }
}

impl From<Key> for String {
    fn from(k: Key) -> Self {
        String::from(&*k.0)
    }
}

impl From<&Key> for String {
    fn from(k: &Key) -> Self {
        String::from(&*k.0)
    }
}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Key {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Key> for str {
    fn eq(&self, other: &Key) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Key> for &str {
    fn eq(&self, other: &Key) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Key> for String {
    fn eq(&self, other: &Key) -> bool {
        **self == *other.0
    }
}

impl serde::Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}
