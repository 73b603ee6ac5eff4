//! Attribute validators beyond the type: one-of, length, pattern.

use std::fmt;

use super::pattern::{compile, Compiled};
use crate::error::{Error, Result};
use crate::value::Value;

/// A check of an attribute's value beyond its type, run by
/// [`Block::validate`](super::Block::validate) and its kin. Null and unknown values are
/// not checked (they are checked once known), and neither are values of other kinds (a
/// pattern on a number): the type check reports those.
///
/// `#[derive(TfValue)]` adds them from `#[tfvalue(one_of = [..], min_length = N,
/// max_length = N, pattern = "..")]`, and a field whose type is a string enum gets its
/// [`OneOf`](Validator::OneOf) by itself.
///
/// ```
/// use tfvalue::schema::{Attribute, Block, Pattern, Validator};
/// use tfvalue::{Type, Value};
///
/// let block = Block::new().attribute(
///     "name",
///     Attribute::required(Type::String)
///         .validator(Validator::Length { min: Some(1), max: Some(8) })
///         .validator(Validator::Pattern(Pattern::new("^[a-z][a-z0-9-]*$")?)),
/// );
/// let v = Value::Object([("name".to_owned(), Value::from("Web_server"))].into());
/// assert_eq!(block.validate(&v).to_string(), "\
/// Invalid attribute value: length must be at most 8, found 10 at name
/// Invalid attribute value: value must match the pattern `^[a-z][a-z0-9-]*$`, found \"Web_server\" at name");
/// # Ok::<(), tfvalue::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Validator {
    /// A string is one of these.
    OneOf(Vec<String>),
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

    /// What is wrong with `value`, if anything.
    pub(crate) fn problem(&self, value: &Value) -> Option<String> {
        let value = value.unwrap_dynamic();
        match (self, value) {
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
                Err(e) => Some(format!("unsupported pattern `{}`: {e}", p.source)),
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
                .map(|e| format!("unsupported pattern `{}`: {e}", p.source)),
            Validator::Length {
                min: Some(min),
                max: Some(max),
            } if max < min => Some(format!("length bounds {min}..{max} are backwards")),
            Validator::OneOf(v) if v.is_empty() => {
                Some("a one-of validator with no values accepts nothing".to_owned())
            }
            _ => None,
        }
    }
}

/// A pattern for [`Validator::Pattern`]: a small, safe subset of regular expressions.
///
/// Supported: literal characters; `.`; the escapes `\d`, `\w`, `\s` and `\` before any
/// punctuation; classes such as `[a-z0-9_]` and `[^,]`; the quantifiers `*`, `+`, `?`,
/// `{n}`, `{n,}` and `{n,m}` (counts up to 1000); `^` at the start and `$` at the end.
/// Without them the pattern may match anywhere, as Go's `regexp.MatchString` (used by
/// terraform-plugin-framework's `RegexMatches`) does. Groups and alternation are not
/// supported: [`Validator::OneOf`] covers lists of values. Matching never backtracks:
/// its time is the string's length times the pattern's size, whatever the input.
///
/// ```
/// use tfvalue::schema::Pattern;
///
/// let p = Pattern::new(r"^[a-z]{2}-[a-z]+-\d$")?;
/// assert!(p.is_match("eu-west-1"));
/// assert!(!p.is_match("eu-west-one"));
/// assert!(Pattern::new("(a|b)").is_err());
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
            Err(e) => Err(Error::data(format_args!(
                "unsupported pattern `{source}`: {e}"
            ))),
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

    /// Whether `s` matches (false for an unsupported pattern).
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
        for bad in [
            "(a)", "a|b", "*a", "a**", "[a", "a{2,1}", "a{5000}", r"\q", "a^", "$a",
        ] {
            assert!(Pattern::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_derive_has_the_same_pattern_module() {
        assert_eq!(
            include_str!("pattern.rs"),
            include_str!("../../derive/src/pattern.rs")
        );
    }
}
