//! The problems that validation and the plan/apply check report.

use std::fmt;

use crate::path::AttributePath;

/// What kind of problem a [`Diagnostic`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The value does not conform to the schema's type: wrong kind, missing or undeclared
    /// attribute, wrong tuple length, a contradictory refinement.
    Type,
    /// A required attribute, or a `SINGLE` block with `min_items = 1`, is null.
    MissingRequired,
    /// A `LIST` or `SET` block has fewer blocks than `min_items`.
    TooFewBlocks,
    /// A `LIST` or `SET` block has more blocks than `max_items`.
    TooManyBlocks,
    /// A block value that Terraform never sends as null is null: a `GROUP` block, or a
    /// `LIST`, `SET` or `MAP` block (no blocks is an empty collection).
    NullBlock,
    /// Configuration sets an attribute that only the provider may set (computed, not
    /// optional).
    Unconfigurable,
    /// A write-only attribute has a value outside configuration.
    WriteOnly,
    /// After apply: a value that the plan knew has changed.
    Changed,
    /// After apply: an unknown planned value resolved outside its refinements.
    Refinement,
    /// After apply: a value is still unknown.
    StillUnknown,
    /// The schema itself breaks Terraform's rules ([`Block::check_schema`](super::Block::check_schema)).
    Schema,
}

/// One problem, where it is, and what it is.
///
/// Display reads like [`Error`](crate::Error): the message, then ` at ` and the path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    kind: DiagnosticKind,
    path: AttributePath,
    message: String,
}

impl Diagnostic {
    /// A diagnostic.
    pub fn new(kind: DiagnosticKind, path: AttributePath, message: impl Into<String>) -> Self {
        Diagnostic {
            kind,
            path,
            message: message.into(),
        }
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> DiagnosticKind {
        self.kind
    }

    /// Where in the value the problem is; empty for the value itself.
    pub fn path(&self) -> &AttributePath {
        &self.path
    }

    /// The message without the path.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if !self.path.is_empty() {
            write!(f, " at {}", self.path)?;
        }
        Ok(())
    }
}

/// Every problem found, in the order found (attributes before blocks, each by name).
///
/// It derefs to a slice of [`Diagnostic`]s, so `diags.len()`, `diags.iter()` and
/// `diags[0]` work; [`Diagnostics::into_result`] turns it into a `Result` for `?`.
/// Display prints one problem per line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    /// No problems.
    pub const fn new() -> Self {
        Diagnostics(Vec::new())
    }

    /// Adds a problem.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// The problems, by value.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.0
    }

    /// `Ok(())` when there are no problems, else `Err(self)`.
    ///
    /// # Errors
    ///
    /// `self`, when it holds any problem.
    pub fn into_result(self) -> Result<(), Diagnostics> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }

    /// Whether there is a problem at exactly this path.
    pub fn has_path(&self, path: &AttributePath) -> bool {
        self.0.iter().any(|d| d.path() == path)
    }

    pub(crate) fn add(
        &mut self,
        kind: DiagnosticKind,
        path: &AttributePath,
        message: impl Into<String>,
    ) {
        self.0.push(Diagnostic::new(kind, path.clone(), message));
    }
}

impl std::ops::Deref for Diagnostics {
    type Target = [Diagnostic];

    fn deref(&self) -> &[Diagnostic] {
        &self.0
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl FromIterator<Diagnostic> for Diagnostics {
    fn from_iter<I: IntoIterator<Item = Diagnostic>>(iter: I) -> Self {
        Diagnostics(iter.into_iter().collect())
    }
}

impl From<Diagnostics> for Vec<Diagnostic> {
    fn from(d: Diagnostics) -> Self {
        d.0
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
