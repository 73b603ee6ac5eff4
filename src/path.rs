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
}
