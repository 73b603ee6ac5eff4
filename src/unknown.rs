//! Unknown values and their refinements.
//!
//! During planning Terraform does not know every value yet. An unknown value travels as a
//! MessagePack extension: code 0 when nothing more is known, or code 12 whose payload is a
//! map of *refinements*, facts that will hold once the value is known:
//!
//! | key | refinement | applies to |
//! | --- | --- | --- |
//! | 1 | the value will not be null (`false`) | every type |
//! | 2 | a string prefix | `string` |
//! | 3, 4 | number lower / upper bound `[number, inclusive]` | `number` |
//! | 5, 6 | collection length lower / upper bound | `list`, `set`, `map` |
//!
//! [`Refinements`] holds these facts; [`Unknown<T>`] is the field type for a value that may
//! be unknown in a typed model.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::error::{Error, Result};
use crate::number::Number;
use crate::private::UNKNOWN_TOKEN;

/// The largest refinement payload accepted when decoding, in bytes (as go-cty).
pub const MAX_REFINEMENT_PAYLOAD: usize = 1024;

/// A prefix longer than this many bytes is shortened when encoding (as go-cty).
pub const MAX_PREFIX_LEN: usize = 256;

/// One bound of a number range: the bound itself, and whether it is included.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NumberBound {
    /// The bound.
    pub value: Number,
    /// Whether the bound itself is a possible value.
    pub inclusive: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Inner {
    not_null: bool,
    prefix: Option<String>,
    lower: Option<NumberBound>,
    upper: Option<NumberBound>,
    len_lower: Option<u64>,
    len_upper: Option<u64>,
}

/// What is known about an unknown value.
///
/// Vacuous refinements are dropped when they are set: an empty prefix, a lower bound of
/// -∞, an upper bound of +∞, a minimum length of 0. So `Refinements::default()` is the plain
/// unknown, and two `Refinements` are equal when they say the same thing.
///
/// ```
/// use tfvalue::{Number, Refinements};
///
/// let r = Refinements::new().not_null().with_prefix("arn:aws:");
/// assert!(r.is_not_null());
/// assert_eq!(r.prefix(), Some("arn:aws:"));
/// assert!(Refinements::new().with_prefix("").is_empty());
///
/// let port = Refinements::new().with_lower_bound(1, true).with_upper_bound(65535, true);
/// assert_eq!(port.lower_bound().unwrap().value, Number::from(1));
/// ```
///
/// # One name per refinement
///
/// Each refinement has one name, used by the builder (`with_` + name) on `Refinements`
/// and on [`Unknown<T>`], and by the getter here:
///
/// | refinement | builder | getter |
/// | --- | --- | --- |
/// | not null | `not_null()` | `is_not_null()` |
/// | string prefix | `with_prefix(p)` | `prefix()` |
/// | number lower bound | `with_lower_bound(n, inclusive)` | `lower_bound()` |
/// | number upper bound | `with_upper_bound(n, inclusive)` | `upper_bound()` |
/// | collection length lower bound | `with_min_length(n)` | `min_length()` |
/// | collection length upper bound | `with_max_length(n)` | `max_length()` |
#[derive(Clone, Default)]
pub struct Refinements(Option<Box<Inner>>);

impl Inner {
    /// The bounds that say something: decoding keeps a -∞ lower or +∞ upper bound as
    /// given (go-cty writes it back), but it means the same as no bound.
    fn effective_lower(&self) -> Option<&NumberBound> {
        self.lower
            .as_ref()
            .filter(|b| b.value != Number::neg_infinity())
    }
    fn effective_upper(&self) -> Option<&NumberBound> {
        self.upper
            .as_ref()
            .filter(|b| b.value != Number::infinity())
    }
}

impl PartialEq for Refinements {
    /// Equal when they say the same thing.
    fn eq(&self, other: &Refinements) -> bool {
        let empty = Inner::default();
        let a = self.0.as_deref().unwrap_or(&empty);
        let b = other.0.as_deref().unwrap_or(&empty);
        a.not_null == b.not_null
            && a.prefix == b.prefix
            && a.effective_lower() == b.effective_lower()
            && a.effective_upper() == b.effective_upper()
            && a.len_lower == b.len_lower
            && a.len_upper == b.len_upper
    }
}

impl Eq for Refinements {}

impl PartialOrd for Refinements {
    fn partial_cmp(&self, other: &Refinements) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Refinements {
    /// An arbitrary but total order that agrees with `==` (what the refinements say), so
    /// that unknowns can sit in a `BTreeSet`.
    fn cmp(&self, other: &Refinements) -> std::cmp::Ordering {
        let empty = Inner::default();
        let key = |r: &'_ Refinements| {
            let a = r.0.as_deref().unwrap_or(&empty);
            (
                a.not_null,
                a.prefix.clone(),
                a.effective_lower().cloned(),
                a.effective_upper().cloned(),
                a.len_lower,
                a.len_upper,
            )
        };
        key(self).cmp(&key(other))
    }
}

impl std::hash::Hash for Refinements {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let empty = Inner::default();
        let a = self.0.as_deref().unwrap_or(&empty);
        a.not_null.hash(state);
        a.prefix.hash(state);
        a.effective_lower().hash(state);
        a.effective_upper().hash(state);
        a.len_lower.hash(state);
        a.len_upper.hash(state);
    }
}

impl fmt::Debug for Refinements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Refinements");
        if let Some(i) = &self.0 {
            if i.not_null {
                d.field("not_null", &true);
            }
            if let Some(p) = &i.prefix {
                d.field("prefix", p);
            }
            if let Some(b) = &i.lower {
                d.field("lower", b);
            }
            if let Some(b) = &i.upper {
                d.field("upper", b);
            }
            if let Some(n) = i.len_lower {
                d.field("len_lower", &n);
            }
            if let Some(n) = i.len_upper {
                d.field("len_upper", &n);
            }
        }
        d.finish()
    }
}

impl fmt::Display for Refinements {
    /// Terraform's wording: `not null, prefix "arn:", >= 1, <= 10, length 1..5`; with
    /// nothing refined, `known after apply`, as the CLI marks an unknown.
    ///
    /// ```
    /// use tfvalue::Refinements;
    /// assert_eq!(Refinements::new().to_string(), "known after apply");
    /// assert_eq!(Refinements::new().not_null().with_prefix("arn:").to_string(), r#"not null, prefix "arn:""#);
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(i) = &self.0 else {
            return f.write_str("known after apply");
        };
        let mut first = true;
        let mut sep = |f: &mut fmt::Formatter<'_>| {
            if first {
                first = false;
                Ok(())
            } else {
                f.write_str(", ")
            }
        };
        if i.not_null {
            sep(f)?;
            f.write_str("not null")?;
        }
        if let Some(p) = &i.prefix {
            sep(f)?;
            write!(f, "prefix {p:?}")?;
        }
        if let Some(b) = &i.lower {
            sep(f)?;
            write!(f, "{} {}", if b.inclusive { ">=" } else { ">" }, b.value)?;
        }
        if let Some(b) = &i.upper {
            sep(f)?;
            write!(f, "{} {}", if b.inclusive { "<=" } else { "<" }, b.value)?;
        }
        match (i.len_lower, i.len_upper) {
            (None, None) => {}
            (lo, hi) => {
                sep(f)?;
                let lo = lo.unwrap_or(0);
                match hi {
                    Some(hi) if hi == lo => write!(f, "length {lo}")?,
                    Some(hi) => write!(f, "length {lo}..{hi}")?,
                    None => write!(f, "length >= {lo}")?,
                }
            }
        }
        Ok(())
    }
}

impl Refinements {
    /// No refinements: the plain unknown.
    pub const fn new() -> Self {
        Refinements(None)
    }

    /// Whether nothing is refined.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    fn edit(mut self, f: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = self.0.take().unwrap_or_default();
        f(&mut inner);
        if *inner == Inner::default() {
            Refinements(None)
        } else {
            Refinements(Some(inner))
        }
    }

    /// The value will not be null.
    #[must_use]
    pub fn not_null(self) -> Self {
        self.edit(|i| i.not_null = true)
    }

    /// A string value will start with `prefix` (an empty prefix says nothing).
    #[must_use]
    pub fn with_prefix(self, prefix: impl Into<String>) -> Self {
        let prefix = prefix.into();
        self.edit(|i| {
            i.prefix = if prefix.is_empty() {
                None
            } else {
                Some(prefix)
            }
        })
    }

    /// A number will be at least (`inclusive`) or above `value`. -∞ says nothing.
    #[must_use]
    pub fn with_lower_bound(self, value: impl Into<Number>, inclusive: bool) -> Self {
        let value = value.into();
        self.edit(|i| {
            i.lower = if value == Number::neg_infinity() {
                None
            } else {
                Some(NumberBound { value, inclusive })
            }
        })
    }

    /// A number will be at most (`inclusive`) or below `value`. +∞ says nothing.
    #[must_use]
    pub fn with_upper_bound(self, value: impl Into<Number>, inclusive: bool) -> Self {
        let value = value.into();
        self.edit(|i| {
            i.upper = if value == Number::infinity() {
                None
            } else {
                Some(NumberBound { value, inclusive })
            }
        })
    }

    /// A collection will have at least `len` elements (0 says nothing).
    #[must_use]
    pub fn with_min_length(self, len: u64) -> Self {
        self.edit(|i| i.len_lower = if len == 0 { None } else { Some(len) })
    }

    /// A collection will have at most `len` elements.
    #[must_use]
    pub fn with_max_length(self, len: u64) -> Self {
        self.edit(|i| i.len_upper = Some(len))
    }

    /// Whether the value is known not to be null.
    pub fn is_not_null(&self) -> bool {
        self.0.as_ref().is_some_and(|i| i.not_null)
    }

    /// The string prefix, if any.
    pub fn prefix(&self) -> Option<&str> {
        self.0.as_ref().and_then(|i| i.prefix.as_deref())
    }

    /// The number lower bound, if any.
    pub fn lower_bound(&self) -> Option<&NumberBound> {
        self.0.as_ref().and_then(|i| i.lower.as_ref())
    }

    /// The number upper bound, if any.
    pub fn upper_bound(&self) -> Option<&NumberBound> {
        self.0.as_ref().and_then(|i| i.upper.as_ref())
    }

    /// The collection length lower bound, if any (never 0).
    pub fn min_length(&self) -> Option<u64> {
        self.0.as_ref().and_then(|i| i.len_lower)
    }

    /// The collection length upper bound, if any.
    pub fn max_length(&self) -> Option<u64> {
        self.0.as_ref().and_then(|i| i.len_upper)
    }

    /// Keeps only the refinements that apply to values of `kind`.
    pub(crate) fn restricted_to(&self, kind: RefineKind) -> Refinements {
        let Some(i) = &self.0 else {
            return Refinements(None);
        };
        let keep = Inner {
            not_null: i.not_null && kind != RefineKind::Dynamic,
            prefix: if kind.allows_prefix() {
                i.prefix.clone()
            } else {
                None
            },
            lower: if kind.allows_bounds() {
                i.lower.clone()
            } else {
                None
            },
            upper: if kind.allows_bounds() {
                i.upper.clone()
            } else {
                None
            },
            len_lower: if kind.allows_length() {
                i.len_lower
            } else {
                None
            },
            len_upper: if kind.allows_length() {
                i.len_upper
            } else {
                None
            },
        };
        if keep == Inner::default() {
            Refinements(None)
        } else {
            Refinements(Some(Box::new(keep)))
        }
    }

    /// Checks that the refinements can all hold at once.
    ///
    /// # Errors
    ///
    /// A lower number bound above the upper one (or equal, with either exclusive), or a
    /// length lower bound above the upper one.
    pub fn validate(&self) -> Result<()> {
        let Some(i) = &self.0 else { return Ok(()) };
        if let (Some(lo), Some(hi)) = (&i.lower, &i.upper) {
            let ok = match lo.value.cmp(&hi.value) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Equal => lo.inclusive && hi.inclusive,
                std::cmp::Ordering::Greater => false,
            };
            if !ok {
                return Err(Error::data(format_args!(
                    "contradictory refinements: number lower bound {} {} is not below upper bound {} {}",
                    lo.value,
                    if lo.inclusive { "(inclusive)" } else { "(exclusive)" },
                    hi.value,
                    if hi.inclusive { "(inclusive)" } else { "(exclusive)" },
                )));
            }
        }
        if let (Some(lo), Some(hi)) = (i.len_lower, i.len_upper) {
            if lo > hi {
                return Err(Error::data(format_args!(
                    "contradictory refinements: length lower bound {lo} is above upper bound {hi}"
                )));
            }
        }
        Ok(())
    }

    /// For a number that is not null and whose bounds are one included point, that number:
    /// go-cty writes such an unknown as the known number.
    pub(crate) fn collapsed_number(&self, kind: RefineKind) -> Option<&Number> {
        let i = self.0.as_ref()?;
        if !kind.allows_bounds() || !i.not_null {
            return None;
        }
        match (&i.lower, &i.upper) {
            (Some(lo), Some(hi))
                if lo.inclusive
                    && hi.inclusive
                    && lo.value == hi.value
                    && !lo.value.is_infinite() =>
            {
                Some(&lo.value)
            }
            _ => None,
        }
    }
}

/// Which refinements apply, by the kind of type the unknown stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RefineKind {
    /// The type is not known (a typed `Unknown<T>`): every refinement may be given.
    Any,
    String,
    Number,
    Collection,
    /// bool, object, tuple: only nullness.
    NullnessOnly,
    /// `dynamic` itself: no refinement is written, and none is read.
    Dynamic,
}

impl RefineKind {
    fn allows_prefix(self) -> bool {
        matches!(self, RefineKind::Any | RefineKind::String)
    }
    fn allows_bounds(self) -> bool {
        matches!(self, RefineKind::Any | RefineKind::Number)
    }
    fn allows_length(self) -> bool {
        matches!(self, RefineKind::Any | RefineKind::Collection)
    }
    pub(crate) fn of(ty: &crate::types::Type) -> RefineKind {
        use crate::types::Type;
        match ty {
            Type::String => RefineKind::String,
            Type::Number => RefineKind::Number,
            Type::List(_) | Type::Set(_) | Type::Map(_) => RefineKind::Collection,
            Type::Dynamic => RefineKind::Dynamic,
            _ => RefineKind::NullnessOnly,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Refinements through serde. The model says what an unknown's refinements are; the formats
// own the bytes (`tfvalue::msgpack` writes and reads the extension, JSON has no unknowns).
// Between the two they travel as a map of named entries, under the private unknown token:
//
// | entry | value |
// | --- | --- |
// | `null` | bool: `false` says "not null", `true` "definitely null" |
// | `prefix` | string |
// | `lower`, `upper` | `(number, inclusive)` |
// | `min_length`, `max_length` | integer |
//
// An empty map is the unknown with no refinements.

/// The names of the refinement entries, in the order they are written.
pub(crate) const NULL: &str = "null";
pub(crate) const PREFIX: &str = "prefix";
pub(crate) const LOWER: &str = "lower";
pub(crate) const UPPER: &str = "upper";
pub(crate) const MIN_LENGTH: &str = "min_length";
pub(crate) const MAX_LENGTH: &str = "max_length";

/// What the refinements a format handed over amount to.
pub(crate) enum Decoded {
    Unknown(Refinements),
    /// An unknown refined as "definitely null" is the known null.
    Null,
}

/// The refinements of an unknown that one of tfvalue's deserializers has found, handed to
/// tfvalue's visitor, which knows what kind of value it reads and so which refinements it
/// may have (see [`hand_over`]).
pub(crate) enum Handed {
    /// The plain unknown: no refinements.
    Plain,
    /// Refinements, to be read for the visitor's kind of value.
    Read(Box<dyn FnOnce(RefineKind) -> Result<Decoded>>),
}

// The deserializers read an unknown's refinements in code that is not generic (compiled
// once, in this crate) and hand them to the visitor through this slot: handed over as a
// map (`visit_map`), every crate that deserializes an `Unknown<T>` compiled the reading of
// refinements again for each format. A thread local, as serde gives a visitor no way to
// receive a value of a type it does not name. The slots are full only inside `hand_over`.
thread_local! {
    static HANDED: std::cell::Cell<Option<Handed>> = const { std::cell::Cell::new(None) };
    static FAILED: std::cell::Cell<Option<Error>> = const { std::cell::Cell::new(None) };
}

/// Gives `visitor` (tfvalue's `Unknown<T>` visitor or the `Value` decoder's) an unknown
/// with these refinements: it is called with `visit_none`, and takes them with
/// [`take_handed`]. An error in reading them comes back as it was made.
pub(crate) fn hand_over<'de, V: Visitor<'de>>(handed: Handed, visitor: V) -> Result<V::Value> {
    put_handed(handed);
    let v = visitor.visit_none();
    match (v, end_hand_over()) {
        (Err(_), Some(e)) => Err(e),
        (v, _) => v,
    }
}

// `hand_over`'s work on the slots, not generic (compiled once, not for every visitor).
fn put_handed(handed: Handed) {
    HANDED.with(|slot| slot.set(Some(handed)));
}

fn end_hand_over() -> Option<Error> {
    HANDED.with(|slot| slot.take());
    FAILED.with(|slot| slot.take())
}

/// The refinements handed over, read for `kind`; `None` if none were handed over (a
/// `visit_none` from a deserializer that is not tfvalue's). `Err(())`: reading them
/// failed, and [`hand_over`] returns the error.
pub(crate) fn take_handed(kind: RefineKind) -> Option<std::result::Result<Decoded, ()>> {
    let handed = HANDED.with(|slot| slot.take())?;
    let read = match handed {
        Handed::Plain => Ok(Decoded::Unknown(Refinements::new())),
        Handed::Read(read) => read(kind),
    };
    Some(read.map_err(|e| FAILED.with(|slot| slot.set(Some(e)))))
}

/// Reads the refinements of an unknown of `kind`, as a format hands them over: a map of
/// named entries (see above). Refinements that `kind` does not allow are an error; those
/// of an unknown of type `dynamic` itself carry no information and are not read.
pub(crate) fn read_refinements<'de, A: de::MapAccess<'de>>(
    mut map: A,
    kind: RefineKind,
) -> std::result::Result<Decoded, A::Error> {
    use de::Error as _;
    if kind == RefineKind::Dynamic {
        return Ok(Decoded::Unknown(Refinements::new()));
    }
    let mut inner = Inner::default();
    let mut null = false;
    while let Some(key) = map.next_key::<std::borrow::Cow<'_, str>>()? {
        match &*key {
            NULL => {
                if map.next_value::<bool>()? {
                    null = true;
                } else {
                    inner.not_null = true;
                }
            }
            PREFIX => {
                if !kind.allows_prefix() {
                    return Err(A::Error::custom(
                        "a string prefix refinement on a value that is not a string",
                    ));
                }
                let s: String = map.next_value()?;
                if !s.is_empty() {
                    inner.prefix = Some(s);
                }
            }
            LOWER | UPPER => {
                if !kind.allows_bounds() {
                    return Err(A::Error::custom(
                        "a number bound refinement on a value that is not a number",
                    ));
                }
                let (value, inclusive): (Number, bool) = map.next_value()?;
                // Kept as given, infinite ones too: go-cty writes them back.
                let bound = Some(NumberBound { value, inclusive });
                if key == LOWER {
                    inner.lower = bound;
                } else {
                    inner.upper = bound;
                }
            }
            MIN_LENGTH | MAX_LENGTH => {
                if !kind.allows_length() {
                    return Err(A::Error::custom(
                        "a length refinement on a value that is not a collection",
                    ));
                }
                let n: i128 = map.next_value()?;
                if key == MIN_LENGTH {
                    // A negative minimum says nothing.
                    if n > 0 {
                        inner.len_lower = Some(u64::try_from(n).unwrap_or(u64::MAX));
                    }
                } else if n < 0 {
                    return Err(A::Error::custom(format_args!(
                        "collection length upper bound {n} is negative"
                    )));
                } else if n < i64::MAX as i128 {
                    inner.len_upper = Some(n as u64);
                } else {
                    // go-cty writes "no upper bound" as the largest int: unbounded.
                    inner.len_upper = None;
                }
            }
            _ => {
                map.next_value::<de::IgnoredAny>()?;
            }
        }
    }
    let refinements = if inner == Inner::default() {
        Refinements(None)
    } else {
        Refinements(Some(Box::new(inner)))
    };
    refinements.validate().map_err(A::Error::custom)?;
    if null {
        if refinements.is_not_null() {
            return Err(A::Error::custom(
                "contradictory refinements: null and not null",
            ));
        }
        return Ok(Decoded::Null);
    }
    Ok(Decoded::Unknown(refinements))
}

/// The refinements of an unknown as they are handed to a format to write: restricted to
/// what its kind allows, the prefix made safe, "no upper bound" left out.
struct Entries(Refinements);

impl Serialize for Entries {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Some(i) = &self.0 .0 else {
            return s.serialize_map(Some(0))?.end();
        };
        let prefix = i
            .prefix
            .as_deref()
            .map(safe_prefix)
            .filter(|p| !p.is_empty());
        // The largest int means unbounded to go-cty, so it is not written.
        let max_length = i.len_upper.filter(|&hi| hi < i64::MAX as u64);
        let n = [
            i.not_null,
            prefix.is_some(),
            i.lower.is_some(),
            i.upper.is_some(),
            i.len_lower.is_some(),
            max_length.is_some(),
        ]
        .iter()
        .filter(|&&b| b)
        .count();
        let mut m = s.serialize_map(Some(n))?;
        if i.not_null {
            m.serialize_entry(NULL, &false)?;
        }
        if let Some(p) = &prefix {
            m.serialize_entry(PREFIX, &**p)?;
        }
        for (key, bound) in [(LOWER, &i.lower), (UPPER, &i.upper)] {
            if let Some(b) = bound {
                m.serialize_entry(key, &(&b.value, b.inclusive))?;
            }
        }
        if let Some(lo) = i.len_lower {
            m.serialize_entry(MIN_LENGTH, &lo)?;
        }
        if let Some(hi) = max_length {
            m.serialize_entry(MAX_LENGTH, &hi)?;
        }
        m.end()
    }
}

/// The prefix as it is written (see [`crate::text::prefix_as_written`]).
fn safe_prefix(prefix: &str) -> std::borrow::Cow<'_, str> {
    crate::text::prefix_as_written(prefix, MAX_PREFIX_LEN)
}

// ---------------------------------------------------------------------------------------
// Unknown<T>

/// A value that may not be known yet: the field type for computed attributes.
///
/// `Option<T>` carries null, so the usual type of a computed, optional attribute is
/// `Unknown<Option<T>>`.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::Unknown;
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// struct Instance {
///     ami: String,
///     arn: Unknown<Option<String>>,
/// }
///
/// let planned = Instance {
///     ami: "ami-123".into(),
///     arn: Unknown::unknown().not_null().with_prefix("arn:aws:ec2:"),
/// };
/// let bytes = tfvalue::msgpack::to_vec(&planned)?;
/// let back: Instance = tfvalue::msgpack::from_slice(&bytes)?;
/// assert_eq!(back, planned);
/// assert_eq!(back.arn.refinements().unwrap().prefix(), Some("arn:aws:ec2:"));
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// `Unknown<T>` is `Eq`, `Ord` and `Hash` where `T` is, so unknowns can be set elements
/// and map values: `BTreeSet<Unknown<String>>`, `BTreeMap<String, Unknown<String>>`. Known
/// values order before unknowns. Two unknowns with the same refinements are equal, so a
/// `BTreeSet` keeps one of them where Terraform's set keeps both: hold a set that may
/// contain several unknown elements as a [`Value`](crate::Value) when that matters.
///
/// For the usual `Unknown<Option<T>>`, [`Unknown::null`], [`Unknown::is_null`],
/// [`Unknown::value`], [`Unknown::as_deref`] and `From<T>` save the nested matching.
///
/// # Under other serializers
///
/// The unknown travels through serde as a private newtype (`$tfvalue::private::Unknown`)
/// that only tfvalue's own serializers and deserializers recognise. Under a foreign
/// deserializer (serde_json used directly, say) every value is known. Under a foreign
/// serializer a known value is written as its inner value, and an unknown as the bytes of
/// its MessagePack extension. `tfvalue::json` refuses unknowns, since JSON cannot carry
/// them. Buffering in serde's `#[serde(flatten)]`, `untagged` and internally tagged enums
/// loses the private newtype, so an unknown inside them fails to decode: keep `Unknown<T>`
/// fields in plain structs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unknown<T> {
    /// The value is known.
    Known(T),
    /// The value is not known yet; the refinements say what is.
    Unknown(Refinements),
}

impl<T> Default for Unknown<T> {
    /// The plain unknown.
    fn default() -> Self {
        Unknown::Unknown(Refinements::new())
    }
}

impl<T> From<T> for Unknown<T> {
    fn from(value: T) -> Self {
        Unknown::Known(value)
    }
}

impl<T> Unknown<T> {
    /// The plain unknown: nothing is known about the value.
    #[allow(clippy::self_named_constructors)] // `Unknown::unknown()` reads as intended
    pub const fn unknown() -> Self {
        Unknown::Unknown(Refinements::new())
    }

    /// An unknown with these refinements.
    ///
    /// Refinements that do not apply to the kind of `T` (a prefix on a number) are written
    /// as given by `tfvalue::msgpack`; prefer the typed builders ([`Unknown::with_prefix`],
    /// [`Unknown::with_lower_bound`], [`Unknown::with_min_length`], ...) which exist only
    /// where they apply.
    pub const fn refined(refinements: Refinements) -> Self {
        Unknown::Unknown(refinements)
    }

    /// Whether the value is known.
    pub fn is_known(&self) -> bool {
        matches!(self, Unknown::Known(_))
    }

    /// Whether the value is unknown.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Unknown::Unknown(_))
    }

    /// The known value.
    pub fn known(&self) -> Option<&T> {
        match self {
            Unknown::Known(v) => Some(v),
            Unknown::Unknown(_) => None,
        }
    }

    /// The known value, by value.
    pub fn into_known(self) -> Option<T> {
        match self {
            Unknown::Known(v) => Some(v),
            Unknown::Unknown(_) => None,
        }
    }

    /// The refinements of an unknown value.
    pub fn refinements(&self) -> Option<&Refinements> {
        match self {
            Unknown::Known(_) => None,
            Unknown::Unknown(r) => Some(r),
        }
    }

    /// `Unknown<&T>`.
    pub fn as_ref(&self) -> Unknown<&T> {
        match self {
            Unknown::Known(v) => Unknown::Known(v),
            Unknown::Unknown(r) => Unknown::Unknown(r.clone()),
        }
    }

    /// Maps the known value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Unknown<U> {
        match self {
            Unknown::Known(v) => Unknown::Known(f(v)),
            Unknown::Unknown(r) => Unknown::Unknown(r),
        }
    }

    fn refine(self, f: impl FnOnce(Refinements) -> Refinements) -> Self {
        match self {
            Unknown::Known(v) => Unknown::Known(v),
            Unknown::Unknown(r) => Unknown::Unknown(f(r)),
        }
    }

    /// Refines an unknown as "will not be null". A known value is returned unchanged.
    #[must_use]
    pub fn not_null(self) -> Self {
        self.refine(Refinements::not_null)
    }
}

impl<T: kind::Str> Unknown<T> {
    /// Refines an unknown string: it will start with `prefix`. A known value is returned unchanged.
    #[must_use]
    pub fn with_prefix(self, prefix: impl Into<String>) -> Self {
        self.refine(|r| r.with_prefix(prefix))
    }
}

impl<T: kind::Num> Unknown<T> {
    /// Refines an unknown number with a lower bound. A known value is returned unchanged.
    #[must_use]
    pub fn with_lower_bound(self, bound: impl Into<Number>, inclusive: bool) -> Self {
        self.refine(|r| r.with_lower_bound(bound, inclusive))
    }

    /// Refines an unknown number with an upper bound. A known value is returned unchanged.
    #[must_use]
    pub fn with_upper_bound(self, bound: impl Into<Number>, inclusive: bool) -> Self {
        self.refine(|r| r.with_upper_bound(bound, inclusive))
    }
}

impl<T: kind::Collection> Unknown<T> {
    /// Refines an unknown collection: at least `len` elements. A known value is returned unchanged.
    #[must_use]
    pub fn with_min_length(self, len: u64) -> Self {
        self.refine(|r| r.with_min_length(len))
    }

    /// Refines an unknown collection: at most `len` elements. A known value is returned unchanged.
    #[must_use]
    pub fn with_max_length(self, len: u64) -> Self {
        self.refine(|r| r.with_max_length(len))
    }
}

/// The conveniences of a value that may be null as well as unknown: the usual field type
/// of an optional or computed attribute.
///
/// ```
/// use tfvalue::Unknown;
///
/// let set: Unknown<Option<String>> = "web".to_owned().into();
/// assert_eq!(set.value(), Some(&"web".to_owned()));
/// assert_eq!(set.as_deref(), Some("web"));
///
/// let null = Unknown::<Option<String>>::null();
/// assert!(null.is_null() && null.is_known() && null.value().is_none());
///
/// let unknown = Unknown::<Option<String>>::unknown().not_null();
/// assert!(unknown.is_unknown() && !unknown.is_null());
/// ```
impl<T> Unknown<Option<T>> {
    /// The known null.
    pub const fn null() -> Self {
        Unknown::Known(None)
    }

    /// Whether the value is the known null.
    pub fn is_null(&self) -> bool {
        matches!(self, Unknown::Known(None))
    }

    /// The value, when it is known and not null.
    pub fn value(&self) -> Option<&T> {
        match self {
            Unknown::Known(Some(v)) => Some(v),
            _ => None,
        }
    }

    /// The value, by value, when it is known and not null.
    pub fn into_value(self) -> Option<T> {
        match self {
            Unknown::Known(Some(v)) => Some(v),
            _ => None,
        }
    }

    /// The value through `Deref` (`Option<&str>` for a `String`), when known and not null.
    pub fn as_deref(&self) -> Option<&T::Target>
    where
        T: std::ops::Deref,
    {
        self.value().map(|v| &**v)
    }
}

impl<T> From<T> for Unknown<Option<T>> {
    /// The known, non-null value.
    fn from(value: T) -> Self {
        Unknown::Known(Some(value))
    }
}

/// Marker traits that say which refinements apply to a Rust type (sealed).
pub mod kind {
    use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

    mod sealed {
        pub trait Sealed {}
    }

    /// Types that hold a Terraform string: a prefix refinement applies.
    pub trait Str: sealed::Sealed {}
    /// Types that hold a Terraform number: bound refinements apply.
    pub trait Num: sealed::Sealed {}
    /// Types that hold a Terraform list, set or map: length refinements apply.
    pub trait Collection: sealed::Sealed {}

    macro_rules! mark {
        ($tr:ident: $($t:ty),*) => {$(
            impl sealed::Sealed for $t {}
            impl $tr for $t {}
        )*};
    }
    mark!(Str: String, Box<str>, std::borrow::Cow<'_, str>, &str);
    mark!(Num: i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, crate::number::Number);

    impl<T> sealed::Sealed for Vec<T> {}
    impl<T> Collection for Vec<T> {}
    impl<T> sealed::Sealed for BTreeSet<T> {}
    impl<T> Collection for BTreeSet<T> {}
    impl<T, S> sealed::Sealed for HashSet<T, S> {}
    impl<T, S> Collection for HashSet<T, S> {}
    impl<K, V> sealed::Sealed for BTreeMap<K, V> {}
    impl<K, V> Collection for BTreeMap<K, V> {}
    impl<K, V, S> sealed::Sealed for HashMap<K, V, S> {}
    impl<K, V, S> Collection for HashMap<K, V, S> {}

    impl<T: sealed::Sealed> sealed::Sealed for Option<T> {}
    impl<T: Str> Str for Option<T> {}
    impl<T: Num> Num for Option<T> {}
    impl<T: Collection> Collection for Option<T> {}
}

/// Serializes an unknown of `kind` through any serializer: a number that its refinements
/// pin to one value as that number (go-cty writes it as known), any other unknown as its
/// refinements under the private token.
pub(crate) fn serialize_unknown<S: Serializer>(
    r: &Refinements,
    kind: RefineKind,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    if !crate::private::is_ours::<S>() {
        // serde_json would write the refinements as a JSON object.
        return Err(serde::ser::Error::custom(if s.is_human_readable() {
            "an unknown value cannot be written as JSON (JSON has no unknowns): write it \
             with tfvalue::msgpack::to_vec, or check that the value is known first"
        } else {
            "an unknown value is a MessagePack extension only tfvalue writes: use \
             tfvalue::msgpack::to_vec"
        }));
    }
    r.validate().map_err(serde::ser::Error::custom)?;
    if let Some(n) = r.collapsed_number(kind) {
        return n.serialize(s);
    }
    s.serialize_newtype_struct(UNKNOWN_TOKEN, &Entries(r.restricted_to(kind)))
}

impl<T: Serialize> Serialize for Unknown<T> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Unknown::Known(v) => v.serialize(s),
            Unknown::Unknown(r) => serialize_unknown(r, RefineKind::Any, s),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Unknown<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        if crate::private::is_missing_field::<D>() {
            // An attribute the input leaves out: what `T` makes of it (`None` for an
            // `Option`, else "missing attribute"), as a field of type `T` would.
            return T::deserialize(d).map(Unknown::Known);
        }
        d.deserialize_newtype_struct(UNKNOWN_TOKEN, UnknownVisitor(PhantomData))
    }
}

struct UnknownVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for UnknownVisitor<T> {
    type Value = Unknown<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a known or unknown value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        T::deserialize(d).map(Unknown::Known)
    }

    // tfvalue's deserializers hand over an unknown through `hand_over`.
    fn visit_none<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
        match take_handed(RefineKind::Any) {
            Some(Ok(Decoded::Unknown(r))) => Ok(Unknown::Unknown(r)),
            Some(Ok(Decoded::Null)) => {
                // A "definitely null" unknown is the known null.
                T::deserialize(de::value::UnitDeserializer::<E>::new()).map(Unknown::Known)
            }
            Some(Err(())) => Err(E::custom("invalid refinements")),
            None => Err(E::invalid_type(de::Unexpected::Option, &self)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contradictions_are_rejected() {
        let r = Refinements::new()
            .with_lower_bound(Number::from(5), false)
            .with_upper_bound(Number::from(5), true);
        assert!(r.validate().is_err());
        let r = Refinements::new().with_min_length(5).with_max_length(2);
        assert!(r.validate().is_err());
    }
}
