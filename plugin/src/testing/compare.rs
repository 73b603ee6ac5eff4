//! Comparisons of a value across steps, or of two values in one state, as
//! terraform-plugin-testing's `compare` package and `statecheck.CompareValue`,
//! `CompareValuePairs` have them.
//!
//! A [`CompareValue`] collects a value from each step that adds it, and compares each
//! new value with the ones before: that an `id` stays the same over an update and
//! differs after a replacement.
//!
//! ```no_run
//! use tfvalue_plugin::testing::compare::{self, CompareValue};
//! use tfvalue_plugin::testing::{ProviderBinary, Step, TestCase};
//!
//! let id = CompareValue::new(compare::values_same());
//! let (a, b) = (id.clone(), id.clone());
//! TestCase::new(ProviderBinary::example("kv"))
//!     .step(
//!         Step::config(r#"resource "kv_entry" "e" { key = "k", value = "1" }"#)
//!             .check(move |state| Ok(a.add(state, "kv_entry.e", "id")?)),
//!     )
//!     .step(
//!         Step::config(r#"resource "kv_entry" "e" { key = "k", value = "2" }"#)
//!             .check(move |state| Ok(b.add(state, "kv_entry.e", "id")?)),
//!     )
//!     .run();
//! ```

use std::sync::{Arc, Mutex};

use tfvalue::Value;

use super::known::show;
use super::{value_at, Error, State};

/// One value a comparison holds: where it came from (`kv_entry.e id`, and the how-manyth
/// value it is) and the value.
#[derive(Clone, Debug, PartialEq)]
pub struct Labeled {
    /// Where the value came from.
    pub label: String,
    /// The value.
    pub value: Value,
}

type CompareFn = dyn Fn(&[Labeled]) -> Result<(), String> + Send + Sync;

/// How the values of a comparison must relate (`compare.ValueComparer`).
#[derive(Clone)]
pub struct Comparer {
    name: &'static str,
    f: Arc<CompareFn>,
}

impl std::fmt::Debug for Comparer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Comparer {
    /// Compares `values` (in the order they were added).
    ///
    /// # Errors
    ///
    /// A message naming the values that break the rule.
    pub fn compare(&self, values: &[Labeled]) -> Result<(), String> {
        (self.f)(values)
    }
}

/// Every value equals the first (`compare.ValuesSame`).
pub fn values_same() -> Comparer {
    Comparer {
        name: "values_same",
        f: Arc::new(|values: &[Labeled]| {
            let Some((first, rest)) = values.split_first() else {
                return Ok(());
            };
            match rest.iter().find(|v| v.value != first.value) {
                None => Ok(()),
                Some(v) => Err(format!(
                    "expected {} to be the same as {}: {} then {}",
                    v.label,
                    first.label,
                    show(&first.value),
                    show(&v.value)
                )),
            }
        }),
    }
}

/// Every value differs from the one before it (`compare.ValuesDiffer`).
pub fn values_differ() -> Comparer {
    Comparer {
        name: "values_differ",
        f: Arc::new(|values: &[Labeled]| {
            match values.windows(2).find(|w| w[0].value == w[1].value) {
                None => Ok(()),
                Some(w) => Err(format!(
                    "expected {} to differ from {}, both are {}",
                    w[1].label,
                    w[0].label,
                    show(&w[1].value)
                )),
            }
        }),
    }
}

/// Every value differs from every other (`compare.ValuesDifferAll`).
pub fn values_differ_all() -> Comparer {
    Comparer {
        name: "values_differ_all",
        f: Arc::new(|values: &[Labeled]| {
            for (i, a) in values.iter().enumerate() {
                if let Some(b) = values[i + 1..].iter().find(|b| b.value == a.value) {
                    return Err(format!(
                        "expected {} to differ from {}, both are {}",
                        b.label,
                        a.label,
                        show(&a.value)
                    ));
                }
            }
            Ok(())
        }),
    }
}

/// A comparison of your own: `f` gets the values in the order they were added, and
/// says what is wrong.
pub fn custom(f: impl Fn(&[Labeled]) -> Result<(), String> + Send + Sync + 'static) -> Comparer {
    Comparer {
        name: "custom",
        f: Arc::new(f),
    }
}

/// The values of one attribute path gathered from the states of several steps, each
/// compared on arrival with those before (`statecheck.CompareValue`). Clones share the
/// values: give one to each step's check.
#[derive(Clone, Debug)]
pub struct CompareValue {
    comparer: Comparer,
    values: Arc<Mutex<Vec<Labeled>>>,
}

impl CompareValue {
    /// A comparison with no values yet.
    pub fn new(comparer: Comparer) -> Self {
        CompareValue {
            comparer,
            values: Arc::default(),
        }
    }

    /// Adds the value at `path` of the resource at `address` in `state`, and compares
    /// it with the values added before.
    ///
    /// # Errors
    ///
    /// No such resource or path, or a value that breaks the comparison: the message
    /// names each value's address, path and position, and the values.
    pub fn add(&self, state: &State, address: &str, path: &str) -> Result<(), Error> {
        let v = state.value(address)?;
        let at = value_at(&v, path).map_err(|e| Error::new(format!("`{address}`: {e}")))?;
        let mut values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        let label = format!(
            "`{address}`{} (value {})",
            if path.is_empty() {
                String::new()
            } else {
                format!(" at `{path}`")
            },
            values.len() + 1
        );
        values.push(Labeled {
            label,
            value: at.clone(),
        });
        self.comparer
            .compare(&values)
            .map_err(|m| Error::new(format!("{:?}: {m}", self.comparer)))
    }

    /// The values added so far.
    pub fn values(&self) -> Vec<Labeled> {
        self.values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// Compares two values of one state (`statecheck.CompareValuePairs`): the value at
/// `path_a` of `address_a` with the one at `path_b` of `address_b`.
///
/// # Errors
///
/// No such resource or path, or values that break the comparison.
pub fn compare_pair(
    state: &State,
    (address_a, path_a): (&str, &str),
    (address_b, path_b): (&str, &str),
    comparer: &Comparer,
) -> Result<(), Error> {
    let mut values = Vec::new();
    for (address, path) in [(address_a, path_a), (address_b, path_b)] {
        let v = state.value(address)?;
        let at = value_at(&v, path).map_err(|e| Error::new(format!("`{address}`: {e}")))?;
        values.push(Labeled {
            label: format!("`{address}` at `{path}`"),
            value: at.clone(),
        });
    }
    comparer
        .compare(&values)
        .map_err(|m| Error::new(format!("{comparer:?}: {m}")))
}
