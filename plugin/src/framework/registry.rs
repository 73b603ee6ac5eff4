//! Handlers by name, for `Framework`.
//!
//! A `BTreeMap<String, Box<dyn AnyResource<C>>>` is compiled again for every provider's
//! client type `C`, in the provider's crate (a few thousand lines of LLVM IR for each of
//! the seven kinds of handler). Here the names are searched by code that is not generic,
//! compiled once in this crate; what is generic is a `Vec` beside them.

/// Names in order, and the item of each.
pub(crate) struct Registry<T> {
    names: Names,
    items: Vec<T>,
}

/// The sorted names of a [`Registry`].
#[derive(Default)]
struct Names(Vec<String>);

impl Names {
    /// Where `name` is, or where it would go.
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|n| n.as_str().cmp(name))
    }
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            names: Names::default(),
            items: Vec::new(),
        }
    }
}

impl<T> Registry<T> {
    /// The item named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&T> {
        self.names.find(name).ok().and_then(|i| self.items.get(i))
    }

    /// Adds `item` under `name`, replacing (and returning) the one there was.
    pub(crate) fn insert(&mut self, name: String, item: T) -> Option<T> {
        match self.names.find(&name) {
            Ok(i) => self
                .items
                .get_mut(i)
                .map(|old| std::mem::replace(old, item)),
            Err(i) => {
                self.names.0.insert(i, name);
                self.items.insert(i, item);
                None
            }
        }
    }

    /// The names, in order.
    pub(crate) fn keys(&self) -> std::slice::Iter<'_, String> {
        self.names.0.iter()
    }

    /// The items, in the order of their names.
    pub(crate) fn values(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }
}

impl<'a, T> IntoIterator for &'a Registry<T> {
    type Item = (&'a String, &'a T);
    type IntoIter = std::iter::Zip<std::slice::Iter<'a, String>, std::slice::Iter<'a, T>>;

    fn into_iter(self) -> Self::IntoIter {
        self.names.0.iter().zip(self.items.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::Registry;

    #[test]
    fn a_registry_is_a_map_by_name() {
        let mut r = Registry::default();
        assert_eq!(r.insert("b".to_owned(), 2), None);
        assert_eq!(r.insert("a".to_owned(), 1), None);
        assert_eq!(r.insert("c".to_owned(), 3), None);
        assert_eq!(r.insert("b".to_owned(), 20), Some(2));
        assert_eq!(r.get("b"), Some(&20));
        assert_eq!(r.get("d"), None);
        assert_eq!(r.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(r.values().copied().collect::<Vec<_>>(), [1, 20, 3]);
        let pairs: Vec<(&String, &i32)> = (&r).into_iter().collect();
        assert_eq!(pairs.len(), 3);
        assert_eq!((pairs[0].0.as_str(), *pairs[0].1), ("a", 1));
    }
}
