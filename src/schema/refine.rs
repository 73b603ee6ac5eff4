//! Whether a value is within what an unknown's refinements promised.

use std::cmp::Ordering;

use crate::number::Number;
use crate::text::nfc;
use crate::unknown::{NumberBound, Refinements};
use crate::value::{sorted_refs, Value};

impl Refinements {
    /// Whether `value` may be what an unknown with these refinements turns out to be.
    ///
    /// It is `false` only when the value definitely breaks a refinement, as go-cty's
    /// `ValueRange.Includes` answers `False`:
    ///
    /// - null, when the unknown was refined as not null;
    /// - a string that does not start with the prefix (both compared in NFC);
    /// - a number outside the bounds;
    /// - a list, map or set whose length is outside the length bounds (for a set with
    ///   unknown elements, only when no way of resolving them could fit);
    /// - another unknown whose own refinements cannot overlap these (a different prefix,
    ///   disjoint bounds).
    ///
    /// Refinements that do not apply to the kind of value (a prefix on a number) are
    /// ignored, and a value in a `dynamic` position is judged by its inner value.
    ///
    /// ```
    /// use tfvalue::{Number, Refinements, Value};
    ///
    /// let arn = Refinements::new().not_null().with_prefix("arn:aws:");
    /// assert!(arn.admits(&Value::from("arn:aws:s3:::logs")));
    /// assert!(!arn.admits(&Value::from("s3://logs")));
    /// assert!(!arn.admits(&Value::Null));
    ///
    /// let port = Refinements::new().with_lower_bound(Number::from(1), true).with_upper_bound(Number::from(65535), true);
    /// assert!(port.admits(&Value::from(443)));
    /// assert!(!port.admits(&Value::from(0)));
    ///
    /// let two_or_three = Refinements::new().with_min_length(2).with_max_length(3);
    /// assert!(!two_or_three.admits(&Value::List(vec![Value::from(1)])));
    /// ```
    pub fn admits(&self, value: &Value) -> bool {
        self.violations(value).is_empty()
    }

    /// Each refinement that `value` breaks, described (empty when [`Refinements::admits`]).
    pub(crate) fn violations(&self, value: &Value) -> Vec<String> {
        let mut out = Vec::new();
        match value {
            Value::Null => {
                if self.is_not_null() {
                    out.push("is null, but the unknown was refined as not null".to_owned());
                }
            }
            Value::Dynamic(d) => return self.violations(d.value()),
            Value::Unknown(other) => self.unknown_violations(other, &mut out),
            Value::String(s) => {
                if let Some(prefix) = self.prefix() {
                    if !nfc(s).starts_with(nfc(prefix).as_ref()) {
                        out.push(format!(
                            "{s:?} does not start with the refined prefix {prefix:?}"
                        ));
                    }
                }
            }
            Value::Number(n) => {
                if let Some(lo) = self.lower_bound() {
                    if !above(n, lo) {
                        out.push(format!(
                            "{n} is not {} {}",
                            if lo.inclusive { ">=" } else { ">" },
                            lo.value
                        ));
                    }
                }
                if let Some(hi) = self.upper_bound() {
                    if !below(n, hi) {
                        out.push(format!(
                            "{n} is not {} {}",
                            if hi.inclusive { "<=" } else { "<" },
                            hi.value
                        ));
                    }
                }
            }
            Value::List(vs) => self.length_violations(vs.len() as u64, vs.len() as u64, &mut out),
            Value::Map(m) => self.length_violations(m.len() as u64, m.len() as u64, &mut out),
            Value::Set(vs) => {
                // Unknown elements are never merged by `sorted_refs`, so its length is the
                // most the set can have; wholly known distinct elements stay distinct, and
                // that is the least (one, if every element is unknown).
                let refs = sorted_refs(vs, true);
                let most = refs.len() as u64;
                let known = refs.iter().filter(|v| v.is_wholly_known()).count() as u64;
                let least = if most > 0 { known.max(1) } else { 0 };
                self.length_violations(least, most, &mut out);
            }
            Value::Bool(_) | Value::Object(_) | Value::Tuple(_) => {}
        }
        out
    }

    fn length_violations(&self, least: u64, most: u64, out: &mut Vec<String>) {
        let shown = if least == most {
            format!("length {most}")
        } else {
            format!("length {least}..{most}")
        };
        if let Some(lo) = self.min_length() {
            if most < lo {
                out.push(format!("{shown} is below the refined minimum length {lo}"));
            }
        }
        if let Some(hi) = self.max_length() {
            if least > hi {
                out.push(format!("{shown} is above the refined maximum length {hi}"));
            }
        }
    }

    fn unknown_violations(&self, other: &Refinements, out: &mut Vec<String>) {
        if let (Some(a), Some(b)) = (self.prefix(), other.prefix()) {
            let (a, b) = (nfc(a), nfc(b));
            if !a.starts_with(b.as_ref()) && !b.starts_with(a.as_ref()) {
                out.push(format!(
                    "an unknown with prefix {b:?} cannot start with the refined prefix {a:?}"
                ));
            }
        }
        let disjoint_numbers = match (self.lower_bound(), other.upper_bound()) {
            (Some(lo), Some(hi)) => ordered_apart(hi, lo),
            _ => false,
        } || match (other.lower_bound(), self.upper_bound()) {
            (Some(lo), Some(hi)) => ordered_apart(hi, lo),
            _ => false,
        };
        if disjoint_numbers {
            out.push(format!(
                "an unknown refined as ({other}) cannot be within ({self})"
            ));
        }
        let disjoint_lengths = match (self.min_length(), other.max_length()) {
            (Some(lo), Some(hi)) => hi < lo,
            _ => false,
        } || match (other.min_length(), self.max_length()) {
            (Some(lo), Some(hi)) => hi < lo,
            _ => false,
        };
        if disjoint_lengths {
            out.push(format!(
                "an unknown of length ({other}) cannot have length ({self})"
            ));
        }
    }
}

/// `n` is at or above the bound, as it says.
fn above(n: &Number, lo: &NumberBound) -> bool {
    match n.cmp(&lo.value) {
        Ordering::Greater => true,
        Ordering::Equal => lo.inclusive,
        Ordering::Less => false,
    }
}

/// `n` is at or below the bound, as it says.
fn below(n: &Number, hi: &NumberBound) -> bool {
    match n.cmp(&hi.value) {
        Ordering::Less => true,
        Ordering::Equal => hi.inclusive,
        Ordering::Greater => false,
    }
}

/// Whether nothing can be at most `hi` and at least `lo`.
fn ordered_apart(hi: &NumberBound, lo: &NumberBound) -> bool {
    match hi.value.cmp(&lo.value) {
        Ordering::Less => true,
        Ordering::Equal => !(hi.inclusive && lo.inclusive),
        Ordering::Greater => false,
    }
}
