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
    /// A value breaks one of its attribute's [`Validator`](super::Validator)s.
    Validator,
    /// A problem the provider reports in its own words ([`Diagnostic::error`],
    /// [`Diagnostic::warning`]), or an [`Error`](crate::Error) turned into a diagnostic.
    Other,
}

impl DiagnosticKind {
    /// The short summary Terraform shows on the `Error:` line for this kind.
    pub fn summary(self) -> &'static str {
        match self {
            DiagnosticKind::Type => "Invalid value type",
            DiagnosticKind::MissingRequired => "Missing required argument",
            DiagnosticKind::TooFewBlocks => "Too few blocks",
            DiagnosticKind::TooManyBlocks => "Too many blocks",
            DiagnosticKind::NullBlock => "Invalid block value",
            DiagnosticKind::Unconfigurable => "Invalid configuration for computed attribute",
            DiagnosticKind::WriteOnly => "Write-only attribute has a value",
            DiagnosticKind::Changed | DiagnosticKind::Refinement | DiagnosticKind::StillUnknown => {
                "Provider produced inconsistent result after apply"
            }
            DiagnosticKind::Schema => "Invalid provider schema",
            DiagnosticKind::Validator => "Invalid attribute value",
            DiagnosticKind::Other => "Error",
        }
    }
}

/// How serious a [`Diagnostic`] is (tfplugin `Diagnostic.Severity`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Severity {
    /// The operation fails.
    #[default]
    Error,
    /// Terraform shows it and goes on.
    Warning,
}

/// One problem as Terraform shows it: a [`Severity`], a summary, a detail, and the
/// [`AttributePath`] of the attribute it is about (Terraform points at the configuration
/// line that set it). These are the fields of tfplugin's `Diagnostic`.
///
/// Display reads like [`Error`](crate::Error): the detail, then ` at ` and the path.
///
/// ```
/// use tfvalue::schema::{Diagnostic, Severity};
/// use tfvalue::{AttributePath, Type, Value};
///
/// let d = Diagnostic::warning("Deprecated attribute", "use `size_gb` instead")
///     .with_path(AttributePath::new().attr("size"));
/// assert_eq!(d.severity(), Severity::Warning);
/// assert_eq!(d.summary(), "Deprecated attribute");
/// assert_eq!(d.to_string(), "use `size_gb` instead at size");
///
/// // An error from decoding becomes an error diagnostic at its path.
/// let err = Value::from_json(br#"{"size":"big"}"#, &Type::object([("size", Type::Number)])).unwrap_err();
/// let d = Diagnostic::from(err);
/// assert_eq!((d.severity(), d.path().to_string()), (Severity::Error, "size".to_owned()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    kind: DiagnosticKind,
    severity: Severity,
    summary: std::borrow::Cow<'static, str>,
    path: AttributePath,
    message: String,
}

impl Diagnostic {
    /// An error of this kind, with the kind's [summary](DiagnosticKind::summary) and
    /// `message` as the detail.
    pub fn new(kind: DiagnosticKind, path: AttributePath, message: impl Into<String>) -> Self {
        Diagnostic {
            kind,
            severity: Severity::Error,
            summary: std::borrow::Cow::Borrowed(kind.summary()),
            path,
            message: message.into(),
        }
    }

    /// An error in the provider's own words, about the whole value until
    /// [`with_path`](Diagnostic::with_path).
    pub fn error(summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Diagnostic {
            kind: DiagnosticKind::Other,
            severity: Severity::Error,
            summary: std::borrow::Cow::Owned(summary.into()),
            path: AttributePath::new(),
            message: detail.into(),
        }
    }

    /// A warning in the provider's own words.
    pub fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(summary, detail)
        }
    }

    /// The same diagnostic about the attribute at `path`.
    #[must_use]
    pub fn with_path(mut self, path: AttributePath) -> Self {
        self.path = path;
        self
    }

    /// The same diagnostic with this severity.
    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> DiagnosticKind {
        self.kind
    }

    /// Error or warning.
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// The short summary (Terraform's `Error: ...` line).
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// The detail: what is wrong, in a sentence.
    pub fn detail(&self) -> &str {
        &self.message
    }

    /// Where in the value the problem is; empty for the value itself.
    pub fn path(&self) -> &AttributePath {
        &self.path
    }

    /// The detail (kept for callers of the first version; same as [`Diagnostic::detail`]).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<crate::error::Error> for Diagnostic {
    /// An error diagnostic at the error's path, with its message as the detail.
    fn from(err: crate::error::Error) -> Self {
        Diagnostic {
            kind: DiagnosticKind::Other,
            severity: Severity::Error,
            summary: std::borrow::Cow::Borrowed("Invalid value"),
            path: err.path().clone(),
            message: err.message().to_owned(),
        }
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

    /// Whether any diagnostic is an error (warnings alone let the operation go on).
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity() == Severity::Error)
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

impl From<crate::error::Error> for Diagnostics {
    fn from(err: crate::error::Error) -> Self {
        Diagnostics(vec![Diagnostic::from(err)])
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

impl Extend<Diagnostic> for Diagnostics {
    fn extend<I: IntoIterator<Item = Diagnostic>>(&mut self, iter: I) {
        self.0.extend(iter);
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
