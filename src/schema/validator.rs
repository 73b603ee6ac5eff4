//! Validators beyond the type: of an attribute's value (one-of, none-of, lengths,
//! patterns, number ranges, elements, keys, uniqueness, functions of one's own) and of an
//! object's attributes together (conflicts, exactly one of, required together, ...).

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use super::pattern::{compile, Compiled};
use crate::error::{Error, Result};
use crate::number::Number;
use crate::value::{cmp_canonical, Value};

/// A check of an attribute's value beyond its type, run by
/// [`Block::validate`](super::Block::validate) and its kin (so, in a `tfvalue-plugin`
/// server, before the provider's handler), each problem reported at the attribute path
/// of the failing value (`ports[2]`, `tags["env"]`).
///
/// The rule terraform-plugin-framework follows: null and unknown values are not checked
/// (they are checked once known), and neither are values of other kinds (a pattern on a
/// number): the type check reports those. A collection is checked when it is known,
/// even if some of its elements are not ([`Validator::Elements`] skips those).
///
/// `#[derive(TfValue)]` adds them from `#[tfvalue(one_of = [..], none_of = [..],
/// min_length = N, max_length = N, pattern = "..", at_least = N, at_most = N,
/// greater_than = N, less_than = N, unique, each(..), keys(..), validate_with = path)]`,
/// and a field whose type is a string enum gets its [`OneOf`](Validator::OneOf) by itself.
///
/// ```
/// use tfvalue::schema::{Attribute, Block, Pattern, Validator};
/// use tfvalue::{Type, Value};
///
/// let block = Block::new()
///     .attribute(
///         "name",
///         Attribute::required(Type::String)
///             .validator(Validator::Length { min: Some(1), max: Some(8) })
///             .validator(Validator::Pattern(Pattern::new("^[a-z][a-z0-9-]*$")?)),
///     )
///     .attribute(
///         "ports",
///         Attribute::required(Type::list(Type::Number))
///             .validator(Validator::each([Validator::between(1, 65535)]))
///             .validator(Validator::UniqueElements),
///     );
/// let v = Value::Object([
///     ("name".to_owned(), Value::from("Web_server")),
///     ("ports".to_owned(), Value::from(vec![80, 0, 80])),
/// ].into());
/// assert_eq!(block.validate(&v).to_string(), "\
/// Invalid attribute value: length must be at most 8, found 10 at name
/// Invalid attribute value: value must match the pattern `^[a-z][a-z0-9-]*$`, found \"Web_server\" at name
/// Invalid attribute value: value must be at least 1, found 0 at ports[1]
/// Invalid attribute value: elements must be unique: 80 is at [0] and [2] at ports");
/// # Ok::<(), tfvalue::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Validator {
    /// A string is one of these.
    OneOf(Vec<String>),
    /// A string is none of these.
    NoneOf(Vec<String>),
    /// A string's length in characters (Unicode scalar values), or a list's, set's or
    /// map's number of elements, is within these inclusive bounds.
    Length {
        /// The least length.
        min: Option<u64>,
        /// The greatest length.
        max: Option<u64>,
    },
    /// A string matches this pattern.
    Pattern(Pattern),
    /// A number is within these bounds, compared exactly (Terraform's numbers have
    /// arbitrary precision: `0.1` is not rounded to a float). Built with
    /// [`at_least`](Validator::at_least), [`at_most`](Validator::at_most),
    /// [`between`](Validator::between), [`greater_than`](Validator::greater_than) and
    /// [`less_than`](Validator::less_than).
    Range {
        /// The lower bound.
        min: Option<Bound>,
        /// The upper bound.
        max: Option<Bound>,
    },
    /// Every element of a list, set or map (or tuple) passes these validators, each
    /// reported at the element's path. Unknown and null elements are skipped.
    Elements(Vec<Validator>),
    /// Every key of a map passes these validators (run on the key as a string).
    Keys(Vec<Validator>),
    /// The elements of a list (or tuple) are all different (a set's are by nature).
    /// Elements not wholly known are never duplicates.
    UniqueElements,
    /// A function of one's own, run on a wholly known, non-null value.
    Custom(CustomValidator),
}

/// A bound of [`Validator::Range`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The bound.
    pub value: Number,
    /// Whether the bound itself is out of range (`greater_than` rather than `at_least`).
    pub exclusive: bool,
}

/// A check written as a function, for [`Validator::Custom`] and
/// [`ObjectValidator::Custom`]: `Err` holds the message. Two compare equal when their
/// names do (the derive names one by its function's path).
///
/// ```
/// use tfvalue::schema::{Attribute, Block, CustomValidator, Validator};
/// use tfvalue::{Type, Value};
///
/// let even = CustomValidator::new("even", |v| match v.as_i64() {
///     Some(n) if n % 2 != 0 => Err(format!("{n} is odd")),
///     _ => Ok(()),
/// });
/// let block = Block::new()
///     .attribute("n", Attribute::required(Type::Number).validator(Validator::Custom(even)));
/// let v = Value::Object([("n".to_owned(), Value::from(3))].into());
/// assert_eq!(block.validate(&v).to_string(), "Invalid attribute value: 3 is odd at n");
/// ```
#[derive(Clone)]
pub struct CustomValidator {
    name: String,
    check: Arc<CheckFn>,
}

/// The function of a [`CustomValidator`].
type CheckFn = dyn Fn(&Value) -> std::result::Result<(), String> + Send + Sync;

impl CustomValidator {
    /// A check named `name` (for `Debug` and equality).
    pub fn new<F>(name: impl Into<String>, check: F) -> Self
    where
        F: Fn(&Value) -> std::result::Result<(), String> + Send + Sync + 'static,
    {
        CustomValidator {
            name: name.into(),
            check: Arc::new(check),
        }
    }

    /// The check's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs the check. A check that panics fails with a message saying so: the
    /// provider's server runs checks on the values Terraform sends, before any handler,
    /// and a panic there would end the request without a diagnostic.
    ///
    /// # Errors
    ///
    /// The check's message, or `the check `name` panicked: ...`.
    pub fn check(&self, value: &Value) -> std::result::Result<(), String> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (self.check)(value)))
            .unwrap_or_else(|panic| Err(self.panicked(&*panic)))
    }

    #[cold]
    fn panicked(&self, panic: &(dyn std::any::Any + Send)) -> String {
        let message = match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
            (Some(s), _) => s,
            (_, Some(s)) => s.as_str(),
            _ => "a panic without a message",
        };
        format!("the check `{}` panicked: {message}", self.name)
    }
}

impl PartialEq for CustomValidator {
    fn eq(&self, other: &CustomValidator) -> bool {
        self.name == other.name
    }
}

impl Eq for CustomValidator {}

impl fmt::Debug for CustomValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CustomValidator").field(&self.name).finish()
    }
}

/// A check of an object's attributes together, on a [`Block`](super::Block) (a resource,
/// a block) or a [`NestedType`](super::NestedType) (each nested object): the rules of
/// terraform-plugin-framework-validators' `resourcevalidator` and of its attribute
/// validators `ConflictsWith`, `ExactlyOneOf`, `AtLeastOneOf` and `AlsoRequires`.
///
/// Run on configuration only ([`Block::validate_config`](super::Block::validate_config);
/// a plan fills computed attributes in). Attributes are named by their path from the
/// object: `"name"`, or `"network.subnet_id"` through single nested blocks and single
/// nested attributes; for the elements of a list, put the validator on the nested
/// block's or nested attribute's own schema (the derive: on its model struct). An
/// attribute is *set* when it is not null: an unknown value (a reference) counts as set,
/// since it will be; a list, set or map block with no blocks counts as not set.
///
/// ```
/// use tfvalue::schema::{Attribute, Block, ObjectValidator};
/// use tfvalue::{Refinements, Type, Value};
///
/// let block = Block::new()
///     .attribute("cidr", Attribute::optional(Type::String))
///     .attribute("ipv6_cidr", Attribute::optional(Type::String))
///     .validator(ObjectValidator::exactly_one_of(["cidr", "ipv6_cidr"]));
/// let v = |a: Value, b: Value| {
///     Value::Object([("cidr".to_owned(), a), ("ipv6_cidr".to_owned(), b)].into())
/// };
/// assert_eq!(
///     block.validate_config(&v(Value::Null, Value::Null)).to_string(),
///     "Invalid Attribute Combination: exactly one of `cidr`, `ipv6_cidr` must be set, found none",
/// );
/// assert_eq!(
///     block.validate_config(&v(Value::from("10.0.0.0/16"), Value::Unknown(Refinements::new()))).to_string(),
///     "Invalid Attribute Combination: exactly one of `cidr`, `ipv6_cidr` must be set, found `cidr` and `ipv6_cidr` at ipv6_cidr",
/// );
/// assert!(block.validate_config(&v(Value::Null, Value::Unknown(Refinements::new()))).is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ObjectValidator {
    /// At most one of these is set (`resourcevalidator.Conflicting`).
    Conflicting(Vec<String>),
    /// When `attribute` is set, none of `with` is (`ConflictsWith`).
    ConflictsWith {
        /// The attribute the rule is about.
        attribute: String,
        /// The attributes it conflicts with.
        with: Vec<String>,
    },
    /// Exactly one of these is set (`ExactlyOneOf`).
    ExactlyOneOf(Vec<String>),
    /// At least one of these is set (`AtLeastOneOf`).
    AtLeastOneOf(Vec<String>),
    /// All of these are set, or none (`resourcevalidator.RequiredTogether`).
    RequiredTogether(Vec<String>),
    /// When `attribute` is set, so are all of `requires` (`AlsoRequires`).
    AlsoRequires {
        /// The attribute the rule is about.
        attribute: String,
        /// The attributes it needs.
        requires: Vec<String>,
    },
    /// A function of one's own, run on the object (known and not null; its attributes
    /// may be unknown).
    Custom(CustomValidator),
}

fn names<I, S>(paths: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    paths.into_iter().map(Into::into).collect()
}

impl ObjectValidator {
    /// [`ObjectValidator::Conflicting`] these attributes.
    pub fn conflicting<I: IntoIterator<Item = S>, S: Into<String>>(paths: I) -> Self {
        ObjectValidator::Conflicting(names(paths))
    }

    /// [`ObjectValidator::ConflictsWith`]: `attribute` and each of `with`.
    pub fn conflicts_with<I: IntoIterator<Item = S>, S: Into<String>>(
        attribute: impl Into<String>,
        with: I,
    ) -> Self {
        ObjectValidator::ConflictsWith {
            attribute: attribute.into(),
            with: names(with),
        }
    }

    /// [`ObjectValidator::ExactlyOneOf`] these attributes.
    pub fn exactly_one_of<I: IntoIterator<Item = S>, S: Into<String>>(paths: I) -> Self {
        ObjectValidator::ExactlyOneOf(names(paths))
    }

    /// [`ObjectValidator::AtLeastOneOf`] these attributes.
    pub fn at_least_one_of<I: IntoIterator<Item = S>, S: Into<String>>(paths: I) -> Self {
        ObjectValidator::AtLeastOneOf(names(paths))
    }

    /// [`ObjectValidator::RequiredTogether`]: these attributes.
    pub fn required_together<I: IntoIterator<Item = S>, S: Into<String>>(paths: I) -> Self {
        ObjectValidator::RequiredTogether(names(paths))
    }

    /// [`ObjectValidator::AlsoRequires`]: `attribute` needs each of `requires`.
    pub fn also_requires<I: IntoIterator<Item = S>, S: Into<String>>(
        attribute: impl Into<String>,
        requires: I,
    ) -> Self {
        ObjectValidator::AlsoRequires {
            attribute: attribute.into(),
            requires: names(requires),
        }
    }

    /// The attribute paths the rule names.
    pub(crate) fn paths(&self) -> Vec<&str> {
        match self {
            ObjectValidator::Conflicting(p)
            | ObjectValidator::ExactlyOneOf(p)
            | ObjectValidator::AtLeastOneOf(p)
            | ObjectValidator::RequiredTogether(p) => p.iter().map(String::as_str).collect(),
            ObjectValidator::ConflictsWith {
                attribute,
                with: others,
            }
            | ObjectValidator::AlsoRequires {
                attribute,
                requires: others,
            } => std::iter::once(attribute.as_str())
                .chain(others.iter().map(String::as_str))
                .collect(),
            ObjectValidator::Custom(_) => Vec::new(),
        }
    }

    /// The problems of the rule given which of its paths are set (in the order of
    /// [`paths`](ObjectValidator::paths)): each a path to report at (`None`: the object)
    /// and a message.
    pub(crate) fn problems<'p>(&'p self, set: &[bool]) -> Vec<(Option<&'p str>, String)> {
        let paths = self.paths();
        let quoted = |ps: &[&str]| {
            ps.iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let which: Vec<&str> = paths
            .iter()
            .zip(set)
            .filter(|(_, s)| **s)
            .map(|(p, _)| *p)
            .collect();
        let and = |ps: &[&str]| match ps {
            [] => "none".to_owned(),
            [one] => format!("`{one}`"),
            [init @ .., last] => format!("{} and `{last}`", quoted(init)),
        };
        let mut out = Vec::new();
        match self {
            ObjectValidator::Conflicting(_) if which.len() > 1 => {
                for p in &which[1..] {
                    out.push((
                        Some(*p),
                        format!(
                            "only one of {} may be set, found {}",
                            quoted(&paths),
                            and(&which)
                        ),
                    ));
                }
            }
            ObjectValidator::ExactlyOneOf(_) if which.len() != 1 => {
                let message = format!(
                    "exactly one of {} must be set, found {}",
                    quoted(&paths),
                    and(&which)
                );
                if which.is_empty() {
                    out.push((None, message));
                } else {
                    for p in &which[1..] {
                        out.push((Some(*p), message.clone()));
                    }
                }
            }
            ObjectValidator::AtLeastOneOf(_) if which.is_empty() => out.push((
                None,
                format!("at least one of {} must be set, found none", quoted(&paths)),
            )),
            ObjectValidator::RequiredTogether(_)
                if !which.is_empty() && which.len() < paths.len() =>
            {
                for (p, s) in paths.iter().zip(set) {
                    if !s {
                        out.push((
                            Some(*p),
                            format!(
                                "{} must be set together, found only {}",
                                quoted(&paths),
                                and(&which)
                            ),
                        ));
                    }
                }
            }
            ObjectValidator::ConflictsWith { attribute, .. } if set[0] => {
                for p in &which[1..] {
                    out.push((
                        Some(*p),
                        format!("`{p}` cannot be set when `{attribute}` is set"),
                    ));
                }
            }
            ObjectValidator::AlsoRequires { attribute, .. } if set[0] => {
                for (p, s) in paths.iter().zip(set).skip(1) {
                    if !s {
                        out.push((
                            Some(attribute.as_str()),
                            format!("`{p}` must be set when `{attribute}` is set"),
                        ));
                    }
                }
            }
            _ => {}
        }
        out
    }
}

impl Validator {
    /// [`Validator::OneOf`] these strings.
    pub fn one_of<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Validator::OneOf(values.into_iter().map(Into::into).collect())
    }

    /// [`Validator::NoneOf`] these strings.
    pub fn none_of<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Validator::NoneOf(values.into_iter().map(Into::into).collect())
    }

    /// A number is at least `min` (framework: `AtLeast`).
    pub fn at_least(min: impl Into<Number>) -> Self {
        Validator::Range {
            min: Some(Bound::inclusive(min)),
            max: None,
        }
    }

    /// A number is at most `max` (framework: `AtMost`).
    pub fn at_most(max: impl Into<Number>) -> Self {
        Validator::Range {
            min: None,
            max: Some(Bound::inclusive(max)),
        }
    }

    /// A number is between `min` and `max`, both included (framework: `Between`).
    pub fn between(min: impl Into<Number>, max: impl Into<Number>) -> Self {
        Validator::Range {
            min: Some(Bound::inclusive(min)),
            max: Some(Bound::inclusive(max)),
        }
    }

    /// A number is greater than `min`.
    pub fn greater_than(min: impl Into<Number>) -> Self {
        Validator::Range {
            min: Some(Bound::exclusive(min)),
            max: None,
        }
    }

    /// A number is less than `max`.
    pub fn less_than(max: impl Into<Number>) -> Self {
        Validator::Range {
            min: None,
            max: Some(Bound::exclusive(max)),
        }
    }

    /// [`Validator::Elements`]: every element passes `validators`.
    pub fn each(validators: impl IntoIterator<Item = Validator>) -> Self {
        Validator::Elements(validators.into_iter().collect())
    }

    /// [`Validator::Keys`]: every key of a map passes `validators`.
    pub fn keys(validators: impl IntoIterator<Item = Validator>) -> Self {
        Validator::Keys(validators.into_iter().collect())
    }

    /// [`Validator::Custom`]: `check` under `name`.
    pub fn custom<F>(name: impl Into<String>, check: F) -> Self
    where
        F: Fn(&Value) -> std::result::Result<(), String> + Send + Sync + 'static,
    {
        Validator::Custom(CustomValidator::new(name, check))
    }

    /// What is wrong with `value`, if anything (for the validators that check the value
    /// itself: [`Elements`](Validator::Elements) and [`Keys`](Validator::Keys) are run by
    /// the walker, which knows the paths).
    pub(crate) fn problem(&self, value: &Value) -> Option<String> {
        let value = value.unwrap_dynamic();
        match (self, value) {
            (Validator::NoneOf(values), Value::String(s)) => {
                if !values.iter().any(|v| v == s) {
                    return None;
                }
                let list: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
                Some(format!(
                    "value must be none of {}, found {s:?}",
                    list.join(", ")
                ))
            }
            (Validator::Range { min, max }, Value::Number(n)) => {
                if let Some(b) = min {
                    let o = n.cmp(&b.value);
                    if o == Ordering::Less || (b.exclusive && o == Ordering::Equal) {
                        let what = if b.exclusive {
                            "greater than"
                        } else {
                            "at least"
                        };
                        return Some(format!("value must be {what} {}, found {n}", b.value));
                    }
                }
                if let Some(b) = max {
                    let o = n.cmp(&b.value);
                    if o == Ordering::Greater || (b.exclusive && o == Ordering::Equal) {
                        let what = if b.exclusive { "less than" } else { "at most" };
                        return Some(format!("value must be {what} {}, found {n}", b.value));
                    }
                }
                None
            }
            (Validator::UniqueElements, Value::List(vs) | Value::Tuple(vs)) => {
                // Sorted by the canonical order: duplicates are neighbours (n log n).
                let mut order: Vec<usize> = (0..vs.len()).collect();
                order.sort_by(|&a, &b| cmp_canonical(&vs[a], &vs[b], false).then(a.cmp(&b)));
                order.windows(2).find_map(|w| {
                    let (a, b) = (&vs[w[0]], &vs[w[1]]);
                    (a.is_wholly_known()
                        && b.is_wholly_known()
                        && cmp_canonical(a, b, false) == Ordering::Equal)
                        .then(|| {
                            format!(
                                "elements must be unique: {} is at [{}] and [{}]",
                                brief(a),
                                w[0],
                                w[1]
                            )
                        })
                })
            }
            (Validator::Custom(c), v) if !v.is_null() && v.is_wholly_known() => c.check(v).err(),
            (Validator::OneOf(values), Value::String(s)) => {
                if values.iter().any(|v| v == s) {
                    return None;
                }
                let list: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
                Some(format!(
                    "value must be one of {}, found {s:?}",
                    list.join(", ")
                ))
            }
            (Validator::Length { min, max }, v) => {
                let (len, what) = match v {
                    Value::String(s) => (s.chars().count() as u64, "length"),
                    Value::List(vs) | Value::Set(vs) => (vs.len() as u64, "number of elements"),
                    Value::Map(m) => (m.len() as u64, "number of elements"),
                    _ => return None,
                };
                if let Some(min) = min.filter(|&m| len < m) {
                    return Some(format!("{what} must be at least {min}, found {len}"));
                }
                if let Some(max) = max.filter(|&m| len > m) {
                    return Some(format!("{what} must be at most {max}, found {len}"));
                }
                None
            }
            (Validator::Pattern(p), Value::String(s)) => match &p.compiled {
                Ok(c) if c.is_match(s) => None,
                Ok(_) => Some(format!(
                    "value must match the pattern `{}`, found {s:?}",
                    p.source
                )),
                Err(e) => Some(format!("invalid pattern `{}`: {e}", p.source)),
            },
            _ => None,
        }
    }

    /// What is wrong with the validator itself, if anything.
    pub(crate) fn schema_problem(&self) -> Option<String> {
        match self {
            Validator::Pattern(p) => p
                .compiled
                .as_ref()
                .err()
                .map(|e| format!("invalid pattern `{}`: {e}", p.source)),
            Validator::Length {
                min: Some(min),
                max: Some(max),
            } if max < min => Some(format!("length bounds {min}..{max} are backwards")),
            Validator::OneOf(v) if v.is_empty() => {
                Some("a one-of validator with no values accepts nothing".to_owned())
            }
            Validator::Range {
                min: Some(lo),
                max: Some(hi),
            } if lo.value > hi.value
                || (lo.value == hi.value && (lo.exclusive || hi.exclusive)) =>
            {
                Some(format!(
                    "the range {}..{} accepts no number",
                    lo.value, hi.value
                ))
            }
            Validator::Elements(vs) | Validator::Keys(vs) => {
                vs.iter().find_map(Validator::schema_problem)
            }
            _ => None,
        }
    }
}

/// A value as `terraform console` shows it, cut short for a message.
fn brief(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

impl Bound {
    /// A bound that is in range.
    pub fn inclusive(value: impl Into<Number>) -> Self {
        Bound {
            value: value.into(),
            exclusive: false,
        }
    }

    /// A bound that is out of range.
    pub fn exclusive(value: impl Into<Number>) -> Self {
        Bound {
            value: value.into(),
            exclusive: true,
        }
    }
}

/// A pattern for [`Validator::Pattern`]: a regular expression in the syntax of the
/// `regex` crate (through `regex-lite`), which is Go's `regexp` syntax for what
/// terraform-plugin-framework's `RegexMatches` patterns use: groups, alternation,
/// classes (`[a-z0-9_]`, `\d`, `\w`, `\s`, ASCII), repetitions, anchors. Where the two
/// differ: `\<` and `\>` are word boundaries here (write `<` and `>` for the
/// characters), and a class takes `&&`, `--` and `~~` as set operations.
///
/// **Where it matches:** anywhere in the value, unless anchored, as Go's
/// `regexp.MatchString` does: `"b"` matches `"abc"`; write `^...$` to match the whole
/// value. Matching time is the value's length times the pattern's size, whatever the
/// value, and patterns are limited in size and nesting.
///
/// ```
/// use tfvalue::schema::Pattern;
///
/// let p = Pattern::new(r"^[a-z]{2}-[a-z]+-\d$")?;
/// assert!(p.is_match("eu-west-1"));
/// assert!(!p.is_match("eu-west-one"));
/// // An IPv4 address, octet by octet.
/// let octet = r"(25[0-5]|2[0-4]\d|1?\d?\d)";
/// let ipv4 = Pattern::new(&format!(r"^{octet}(\.{octet}){{3}}$"))?;
/// assert!(ipv4.is_match("10.0.255.1"));
/// assert!(!ipv4.is_match("10.0.256.1"));
/// assert!(Pattern::new("(a|b").is_err());
/// # Ok::<(), tfvalue::Error>(())
/// ```
#[derive(Clone)]
pub struct Pattern {
    source: String,
    compiled: std::result::Result<Compiled, String>,
}

impl Pattern {
    /// Parses a pattern.
    ///
    /// # Errors
    ///
    /// A pattern outside the supported subset, saying what is not supported.
    pub fn new(source: &str) -> Result<Pattern> {
        match compile(source) {
            Ok(c) => Ok(Pattern {
                source: source.to_owned(),
                compiled: Ok(c),
            }),
            Err(e) => Err(Error::data(format_args!("invalid pattern `{source}`: {e}"))),
        }
    }

    /// A pattern that the derive has checked already; one outside the subset is reported
    /// by [`Block::check_schema`](super::Block::check_schema) and by validation.
    pub(crate) fn unchecked(source: &str) -> Pattern {
        Pattern {
            source: source.to_owned(),
            compiled: compile(source),
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether `s` matches (false for an invalid pattern).
    pub fn is_match(&self, s: &str) -> bool {
        self.compiled.as_ref().is_ok_and(|c| c.is_match(s))
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source
    }
}

impl Eq for Pattern {}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let m = |p: &str, s: &str| Pattern::new(p).unwrap().is_match(s);
        assert!(m("^a+$", "aaa"));
        assert!(!m("^a+$", ""));
        assert!(m("^a*$", ""));
        assert!(m("b", "abc"));
        assert!(!m("^b", "abc"));
        assert!(m("c$", "abc"));
        assert!(!m("b$", "abc"));
        assert!(m("^[a-c]{2,3}$", "abc"));
        assert!(!m("^[a-c]{2,3}$", "abca"));
        assert!(!m("^[a-c]{2,3}$", "a"));
        assert!(m("^[^,]+$", "a b"));
        assert!(!m("^[^,]+$", "a,b"));
        assert!(m(r"^\d+\.\d+$", "1.25"));
        assert!(!m(r"^\d+\.\d+$", "1x25"));
        assert!(m("^a?b$", "b"));
        assert!(m("^a?b$", "ab"));
        assert!(!m("^a?b$", "aab"));
        assert!(m("^.*x.*x.*x.*y$", &format!("{}y", "x".repeat(3))));
        assert!(!m("^.*x.*x.*x.*y$", &"x".repeat(5000)));
        assert!(m("^[a-]+$", "a-a"));
        assert!(m("^é+$", "éé"));
        // Groups and alternation (the `regex` crate's syntax).
        assert!(m("^(ab|cd)+$", "abcdab"));
        assert!(!m("^(ab|cd)+$", "abc"));
        assert!(m("^(?:dev|prod)-[0-9]+$", "prod-12"));
        let octet = r"(25[0-5]|2[0-4]\d|1?\d?\d)";
        let ipv4 = format!(r"^{octet}(\.{octet}){{3}}$");
        assert!(m(&ipv4, "192.168.0.1"));
        assert!(!m(&ipv4, "192.168.0.256"));
        assert!(!m(&ipv4, "1.2.3"));
        // Linear time on a value built to make a backtracking engine explode.
        assert!(!m("^(a+)+$", &format!("{}b", "a".repeat(100_000))));
        for bad in ["(a", "*a", "[a", "a{2,1}", r"\q", "(?P<x>a)(?P<x>b)"] {
            assert!(Pattern::new(bad).is_err(), "{bad}");
        }
        // A pattern too big for the engine's limit is refused, not built.
        assert!(Pattern::new(&"(a{1000}){1000}".repeat(10)).is_err());
    }

    #[test]
    fn the_derive_has_the_same_pattern_module() {
        assert_eq!(
            include_str!("pattern.rs"),
            include_str!("../../derive/src/pattern.rs")
        );
    }
}
