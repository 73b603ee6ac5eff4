//! [`Map`]: the attributes of an object or the elements of a map.

use std::collections::BTreeMap;
use std::fmt;
use std::mem::ManuallyDrop;
use std::ops;

use super::Value;
use crate::key::Key;

/// The attributes of an object or the elements of a map, sorted by key (bytewise, the
/// order Terraform writes them in), each key once.
///
/// Its methods read like `BTreeMap<String, Value>`'s (and `serde_json::Map`'s), but the
/// entries live in one sorted vector: decoding, which meets the keys in order, builds it
/// in one pass with one allocation, and iteration is a walk over a slice. Looking a key up
/// is a binary search. Inserting a key after the last one is a push; inserting one
/// elsewhere moves the entries after it, so a large map built from keys in no particular
/// order is better collected ([`FromIterator`], [`Extend`]: one sort at the end).
///
/// ```
/// use tfvalue::{Map, Value};
///
/// let mut tags: Map = [("env".to_owned(), Value::from("prod"))].into();
/// tags.insert("app".to_owned(), "web".into());
/// assert_eq!(tags.keys().collect::<Vec<_>>(), ["app", "env"]);
/// assert_eq!(tags.get("env"), Some(&Value::from("prod")));
/// assert_eq!(tags["app"], "web");
/// ```
#[derive(Clone, Default, PartialEq)]
pub struct Map {
    // `ManuallyDrop`: dropped by `Map`'s own `Drop`, compiled once, here.
    entries: ManuallyDrop<Vec<(Key, Value)>>,
}

/// Drops the entries here, in code compiled once in this crate, rather than in each
/// codegen unit of every crate that drops a [`Value`] (`plugin/README.md`, "Build
/// times").
impl Drop for Map {
    #[inline(never)]
    fn drop(&mut self) {
        // What is left behind is empty: nothing allocated, nothing to drop.
        drop(std::mem::take(&mut *self.entries));
    }
}

impl Map {
    /// An empty map.
    pub const fn new() -> Self {
        Map {
            entries: ManuallyDrop::new(Vec::new()),
        }
    }

    /// An empty map with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        Map {
            entries: ManuallyDrop::new(Vec::with_capacity(capacity)),
        }
    }

    /// Entries already sorted by key with no key twice (what decoders build).
    pub(crate) fn from_sorted(entries: Vec<(Key, Value)>) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        Map {
            entries: ManuallyDrop::new(entries),
        }
    }

    /// The entries in any order; a later entry for a key replaces an earlier one, as
    /// `BTreeMap`'s `FromIterator` does. One sort, `O(n log n)`.
    fn from_unsorted(mut entries: Vec<(Key, Value)>) -> Self {
        if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
            // Stable: equal keys stay in the order given, and the last of them is kept.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out: Vec<(Key, Value)> = Vec::with_capacity(entries.len());
            for e in entries {
                match out.last_mut() {
                    Some(last) if last.0 == e.0 => *last = e,
                    _ => out.push(e),
                }
            }
            entries = out;
        }
        Map {
            entries: ManuallyDrop::new(entries),
        }
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        // Names usually differ early: bytewise (as `String`'s `Ord`), inline, without `memcmp`.
        self.entries
            .binary_search_by(|(k, _)| crate::private::bytes_cmp(k.as_bytes(), key.as_bytes()))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    /// The value of `key`, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }

    /// The stored key and value of `key`.
    pub fn get_key_value(&self, key: &str) -> Option<(&Key, &Value)> {
        self.find(key).ok().map(|i| {
            let (k, v) = &self.entries[i];
            (k, v)
        })
    }

    /// Whether `key` has an entry.
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, returning the value it replaces.
    pub fn insert(&mut self, key: impl Into<Key>, value: Value) -> Option<Value> {
        let key = key.into();
        if self.entries.last().is_none_or(|(last, _)| *last < key) {
            self.entries.push((key, value));
            return None;
        }
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.find(key).ok().map(|i| self.entries.remove(i).1)
    }

    /// Removes `key`, returning its key and value.
    pub fn remove_entry(&mut self, key: &str) -> Option<(Key, Value)> {
        self.find(key).ok().map(|i| self.entries.remove(i))
    }

    /// The entry of `key`, to read, change or fill in.
    pub fn entry(&mut self, key: impl Into<Key>) -> Entry<'_> {
        let key = key.into();
        match self.find(&key) {
            Ok(index) => Entry::Occupied(OccupiedEntry { map: self, index }),
            Err(index) => Entry::Vacant(VacantEntry {
                map: self,
                index,
                key,
            }),
        }
    }

    /// Keeps only the entries for which `f` says yes.
    pub fn retain(&mut self, mut f: impl FnMut(&Key, &mut Value) -> bool) {
        self.entries.retain_mut(|(k, v)| f(k, v));
    }

    /// The entries in key order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries.iter())
    }

    /// The entries in key order, values mutable.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.entries.iter_mut())
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Key> + ExactSizeIterator + '_ {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator + '_ {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in key order, mutable.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator + '_ {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// The values in key order, taken.
    pub fn into_values(mut self) -> impl DoubleEndedIterator<Item = Value> + ExactSizeIterator {
        std::mem::take(&mut *self.entries)
            .into_iter()
            .map(|(_, v)| v)
    }

    /// The entries as a sorted slice.
    pub fn as_slice(&self) -> &[(Key, Value)] {
        &self.entries
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl ops::Index<&str> for Map {
    type Output = Value;

    /// # Panics
    ///
    /// If `key` has no entry, as `BTreeMap`'s indexing does.
    #[allow(clippy::panic)] // documented, as `BTreeMap`'s and `serde_json::Map`'s
    fn index(&self, key: &str) -> &Value {
        match self.get(key) {
            Some(v) => v,
            None => panic!("no entry for key {key:?} in the map"),
        }
    }
}

impl<K: Into<Key>> FromIterator<(K, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        Map::from_unsorted(iter.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

impl<K: Into<Key>> Extend<(K, Value)> for Map {
    fn extend<I: IntoIterator<Item = (K, Value)>>(&mut self, iter: I) {
        let mut entries = std::mem::take(&mut *self.entries);
        entries.extend(iter.into_iter().map(|(k, v)| (k.into(), v)));
        *self = Map::from_unsorted(entries);
    }
}

impl<K: Into<Key>, const N: usize> From<[(K, Value); N]> for Map {
    fn from(entries: [(K, Value); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl From<BTreeMap<String, Value>> for Map {
    fn from(m: BTreeMap<String, Value>) -> Self {
        Map::from_sorted(m.into_iter().map(|(k, v)| (Key::from(k), v)).collect())
    }
}

impl From<Map> for BTreeMap<String, Value> {
    fn from(m: Map) -> Self {
        m.into_iter().map(|(k, v)| (String::from(k), v)).collect()
    }
}

impl IntoIterator for Map {
    type Item = (Key, Value);
    type IntoIter = std::vec::IntoIter<(Key, Value)>;

    fn into_iter(mut self) -> Self::IntoIter {
        std::mem::take(&mut *self.entries).into_iter()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a Key, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Map {
    type Item = (&'a Key, &'a mut Value);
    type IntoIter = IterMut<'a>;

    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

/// The entries of a [`Map`] in key order.
#[derive(Clone, Debug)]
pub struct Iter<'a>(std::slice::Iter<'a, (Key, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Key, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// The entries of a [`Map`] in key order, values mutable.
#[derive(Debug)]
pub struct IterMut<'a>(std::slice::IterMut<'a, (Key, Value)>);

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a Key, &'a mut Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&*k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IterMut<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (&*k, v))
    }
}

impl ExactSizeIterator for IterMut<'_> {}

/// One key's place in a [`Map`], from [`Map::entry`].
pub enum Entry<'a> {
    /// The key has a value.
    Occupied(OccupiedEntry<'a>),
    /// The key has none yet.
    Vacant(VacantEntry<'a>),
}

/// A key with a value.
pub struct OccupiedEntry<'a> {
    map: &'a mut Map,
    index: usize,
}

/// A key without a value.
pub struct VacantEntry<'a> {
    map: &'a mut Map,
    index: usize,
    key: Key,
}

impl<'a> Entry<'a> {
    /// The value, after inserting `default` if there was none.
    pub fn or_insert(self, default: Value) -> &'a mut Value {
        self.or_insert_with(|| default)
    }

    /// The value, after inserting what `f` makes if there was none.
    pub fn or_insert_with(self, f: impl FnOnce() -> Value) -> &'a mut Value {
        match self {
            Entry::Occupied(e) => &mut e.map.entries[e.index].1,
            Entry::Vacant(e) => {
                e.map.entries.insert(e.index, (e.key, f()));
                &mut e.map.entries[e.index].1
            }
        }
    }

    /// The key.
    pub fn key(&self) -> &Key {
        match self {
            Entry::Occupied(e) => &e.map.entries[e.index].0,
            Entry::Vacant(e) => &e.key,
        }
    }
}

impl fmt::Debug for Entry<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Occupied(e) => f
                .debug_tuple("Occupied")
                .field(&e.map.entries[e.index])
                .finish(),
            Entry::Vacant(e) => f.debug_tuple("Vacant").field(&e.key).finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(keys: &[&str]) -> Map {
        keys.iter()
            .enumerate()
            .map(|(i, k)| (k.to_string(), Value::from(i)))
            .collect()
    }

    /// The map against `BTreeMap` on the same operations.
    #[test]
    fn behaves_as_a_btreemap() {
        let ops: Vec<(&str, Option<i64>)> = vec![
            ("b", Some(1)),
            ("a", Some(2)),
            ("c", Some(3)),
            ("b", Some(4)),
            ("a", None),
            ("", Some(5)),
            ("é", Some(6)),
            ("e", Some(7)),
            ("zz", None),
            ("e", None),
            ("b", None),
            ("b", Some(8)),
        ];
        let mut ours = Map::new();
        let mut theirs = BTreeMap::new();
        for (k, v) in ops {
            match v {
                Some(v) => assert_eq!(
                    ours.insert(k.to_string(), v.into()),
                    theirs.insert(k.to_string(), Value::from(v))
                ),
                None => assert_eq!(ours.remove(k), theirs.remove(k)),
            }
            assert!(ours
                .iter()
                .map(|(k, v)| (k.as_str(), v))
                .eq(theirs.iter().map(|(k, v)| (k.as_str(), v))));
            assert_eq!(ours.len(), theirs.len());
        }
        assert_eq!(Map::from(theirs.clone()), ours);
        assert_eq!(BTreeMap::from(ours.clone()), theirs);
    }

    #[test]
    fn collecting_sorts_and_keeps_the_last_of_a_key() {
        let got: Map = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), Value::from(v)))
            .collect();
        let want: BTreeMap<String, Value> = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), Value::from(v)))
            .collect();
        assert!(got
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .eq(want.iter().map(|(k, v)| (k.as_str(), v))));
        let mut ext = m(&["x", "a"]);
        ext.extend([
            ("m".to_string(), Value::Null),
            ("a".to_string(), Value::Null),
        ]);
        assert_eq!(ext.keys().collect::<Vec<_>>(), ["a", "m", "x"]);
        assert_eq!(ext["a"], Value::Null);
    }

    #[test]
    fn entries() {
        let mut map = m(&["a", "c"]);
        *map.entry("b").or_insert(Value::Null) = Value::from(9);
        map.entry("a").or_insert_with(|| unreachable!());
        assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(map["b"], 9);
        map.retain(|k, _| k != "a");
        assert_eq!(map.keys().collect::<Vec<_>>(), ["b", "c"]);
    }
}
