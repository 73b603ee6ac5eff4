//! Attribute paths: where in a value something went wrong.

use std::fmt;

/// One step of an [`AttributePath`], as in tfplugin's `AttributePath.Step`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum PathStep {
    /// An object attribute or block name: `.name`.
    Attr(String),
    /// A map element key: `["key"]`.
    Key(String),
    /// A list or tuple element, or the position of a set element: `[2]`.
    Index(u64),
}

/// A path into a value, such as `resource.tags["env"]` or `rule[2].port`.
///
/// Decoding and validation errors carry one (see [`Error::path`](crate::Error::path)).
/// Display renders it the way Terraform prints attribute paths in diagnostics:
///
/// ```
/// use tfvalue::{AttributePath, PathStep};
///
/// let path = AttributePath::new()
///     .attr("rule")
///     .index(2)
///     .attr("tags")
///     .key("env");
/// assert_eq!(path.to_string(), r#"rule[2].tags["env"]"#);
/// assert_eq!(path.steps().len(), 4);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttributePath {
    steps: Vec<PathStep>,
}

impl AttributePath {
    /// The empty path: the value itself.
    pub const fn new() -> Self {
        AttributePath { steps: Vec::new() }
    }

    /// The steps, outermost first.
    pub fn steps(&self) -> &[PathStep] {
        &self.steps
    }

    /// Whether this is the root path.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Appends an attribute step.
    #[must_use]
    pub fn attr(mut self, name: impl Into<String>) -> Self {
        self.steps.push(PathStep::Attr(name.into()));
        self
    }

    /// Appends a map key step.
    #[must_use]
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.steps.push(PathStep::Key(key.into()));
        self
    }

    /// Appends an element index step.
    #[must_use]
    pub fn index(mut self, index: u64) -> Self {
        self.steps.push(PathStep::Index(index));
        self
    }

    /// Appends a step in place.
    pub fn push(&mut self, step: PathStep) {
        self.steps.push(step);
    }

    /// Removes the innermost step.
    pub fn pop(&mut self) -> Option<PathStep> {
        self.steps.pop()
    }

    /// Puts a step in front (used while an error travels up out of nested values).
    pub(crate) fn prepend(&mut self, step: PathStep) {
        self.steps.insert(0, step);
    }
}

impl From<Vec<PathStep>> for AttributePath {
    fn from(steps: Vec<PathStep>) -> Self {
        AttributePath { steps }
    }
}

impl FromIterator<PathStep> for AttributePath {
    fn from_iter<I: IntoIterator<Item = PathStep>>(iter: I) -> Self {
        AttributePath {
            steps: iter.into_iter().collect(),
        }
    }
}

/// A path that does not parse ([`AttributePath`]'s `FromStr`): what was expected, and
/// the byte offset where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePathError {
    /// What the parser expected.
    pub expected: &'static str,
    /// The byte offset in the text where it did not find it.
    pub offset: usize,
}

impl fmt::Display for ParsePathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected {} at byte {} of the path",
            self.expected, self.offset
        )
    }
}

impl std::error::Error for ParsePathError {}

/// Reads a path as [`Display`](fmt::Display) writes it: `rule[2].tags["env"]`
/// (`name` and `.name` for attributes, `["key"]` with JSON string escapes for map keys,
/// `[N]` for elements). The empty text is the empty path.
///
/// ```
/// use tfvalue::AttributePath;
///
/// let p: AttributePath = r#"rule[2].tags["env"]"#.parse()?;
/// assert_eq!(p, AttributePath::new().attr("rule").index(2).attr("tags").key("env"));
/// assert!("rule[".parse::<AttributePath>().is_err());
/// # Ok::<(), tfvalue::ParsePathError>(())
/// ```
impl std::str::FromStr for AttributePath {
    type Err = ParsePathError;

    fn from_str(text: &str) -> Result<Self, ParsePathError> {
        let bytes = text.as_bytes();
        let mut path = AttributePath::new();
        let mut at = 0;
        let fail = |expected, offset| ParsePathError { expected, offset };
        while at < bytes.len() {
            match bytes[at] {
                b'[' => {
                    at += 1;
                    if bytes.get(at) == Some(&b'"') {
                        let (key, end) = parse_quoted(text, at)?;
                        path.push(PathStep::Key(key));
                        at = end;
                    } else {
                        let start = at;
                        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                            at += 1;
                        }
                        let index = text[start..at]
                            .parse()
                            .map_err(|_| fail("an index or a quoted key", start))?;
                        path.push(PathStep::Index(index));
                    }
                    if bytes.get(at) != Some(&b']') {
                        return Err(fail("`]`", at));
                    }
                    at += 1;
                }
                b'.' if !path.is_empty() => {
                    at += 1;
                    let (name, end) = parse_identifier(text, at)?;
                    path.push(PathStep::Attr(name));
                    at = end;
                }
                _ if path.is_empty() => {
                    let (name, end) = parse_identifier(text, at)?;
                    path.push(PathStep::Attr(name));
                    at = end;
                }
                _ => return Err(fail("`.` or `[`", at)),
            }
        }
        Ok(path)
    }
}

fn parse_identifier(text: &str, start: usize) -> Result<(String, usize), ParsePathError> {
    let rest = &text[start..];
    let len = rest
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_alphanumeric() || c == '_' || (i > 0 && c == '-')) || (i == 0 && c.is_numeric())
        })
        .map_or(rest.len(), |(i, _)| i);
    if len == 0 {
        return Err(ParsePathError {
            expected: "an attribute name",
            offset: start,
        });
    }
    Ok((rest[..len].to_owned(), start + len))
}

/// A JSON-quoted string starting at `start` (its `"`), and the offset after it.
fn parse_quoted(text: &str, start: usize) -> Result<(String, usize), ParsePathError> {
    let fail = |expected, offset| ParsePathError { expected, offset };
    let mut out = String::new();
    let mut chars = text[start + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        let here = start + 1 + i;
        match c {
            '"' => return Ok((out, here + 1)),
            '\\' => match chars.next() {
                Some((_, '"')) => out.push('"'),
                Some((_, '\\')) => out.push('\\'),
                Some((_, '/')) => out.push('/'),
                Some((_, 'n')) => out.push('\n'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'b')) => out.push('\u{8}'),
                Some((_, 'f')) => out.push('\u{c}'),
                Some((_, 'u')) => {
                    let hex: String = (0..4)
                        .filter_map(|_| chars.next().map(|(_, c)| c))
                        .collect();
                    let c = u32::from_str_radix(&hex, 16)
                        .ok()
                        .filter(|_| hex.len() == 4)
                        .and_then(char::from_u32)
                        .ok_or(fail("four hex digits of a character", here + 2))?;
                    out.push(c);
                }
                _ => {
                    return Err(fail(
                        "an escape (`\\\"`, `\\\\`, `\\n`, `\\uXXXX`, ..)",
                        here + 1,
                    ))
                }
            },
            c => out.push(c),
        }
    }
    Err(fail("the closing `\"` of a key", text.len()))
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

fn write_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if c.is_control() => write!(f, "\\u{:04x}", c as u32)?,
            c => fmt::Write::write_char(f, c)?,
        }
    }
    f.write_str("\"")
}

impl fmt::Display for AttributePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.steps.iter().enumerate() {
            match step {
                PathStep::Attr(name) if is_identifier(name) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(name)?;
                }
                // An attribute name that is not an identifier is shown as an index.
                PathStep::Attr(name) | PathStep::Key(name) => {
                    f.write_str("[")?;
                    write_quoted(f, name)?;
                    f.write_str("]")?;
                }
                PathStep::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_terraform() {
        let p = AttributePath::new()
            .attr("ebs_block_device")
            .index(2)
            .attr("volume_size");
        assert_eq!(p.to_string(), "ebs_block_device[2].volume_size");
        let p = AttributePath::new().attr("tags").key("a\"b");
        assert_eq!(p.to_string(), r#"tags["a\"b"]"#);
        let p = AttributePath::new().attr("has space");
        assert_eq!(p.to_string(), r#"["has space"]"#);
        assert_eq!(AttributePath::new().to_string(), "");
    }

    #[test]
    fn parses_what_it_renders() {
        let paths = [
            AttributePath::new()
                .attr("rule")
                .index(2)
                .attr("tags")
                .key("env"),
            AttributePath::new().attr("tags").key("a\"b\\c\n\u{1f}é"),
            AttributePath::new().key("has space").attr("x-y"),
            AttributePath::new()
                .attr("a")
                .index(0)
                .index(18_446_744_073_709_551_615),
            AttributePath::new(),
        ];
        for p in paths {
            let text = p.to_string();
            assert_eq!(text.parse::<AttributePath>(), Ok(p), "{text}");
        }
        // An attribute whose name is no identifier renders as a key and reads back as one.
        let p: AttributePath = AttributePath::new()
            .attr("has space")
            .to_string()
            .parse()
            .unwrap();
        assert_eq!(p, AttributePath::new().key("has space"));
    }

    #[test]
    fn bad_paths_say_what_and_where() {
        for (text, expected, offset) in [
            ("rule[", "an index or a quoted key", 5),
            ("rule[2", "`]`", 6),
            ("rule.", "an attribute name", 5),
            ("rule..x", "an attribute name", 5),
            (".rule", "an attribute name", 0),
            ("2abc", "an attribute name", 0),
            ("a[\"k", "the closing `\"` of a key", 4),
            (
                "a[\"\\q\"]",
                "an escape (`\\\"`, `\\\\`, `\\n`, `\\uXXXX`, ..)",
                4,
            ),
            ("a[99999999999999999999]", "an index or a quoted key", 2),
            ("a b", "`.` or `[`", 1),
        ] {
            assert_eq!(
                text.parse::<AttributePath>(),
                Err(ParsePathError { expected, offset }),
                "{text}"
            );
        }
    }
}
