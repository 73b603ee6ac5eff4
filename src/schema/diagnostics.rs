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
    /// An object's attributes break one of its
    /// [`ObjectValidator`](super::ObjectValidator)s (conflicting attributes, a missing one
    /// of a group).
    Combination,
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
            DiagnosticKind::Combination => "Invalid Attribute Combination",
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
/// line that set it). These are the fields of tfplugin's `Diagnostic`; this is the one
/// diagnostic type of tfvalue and of `tfvalue-plugin` (which re-exports it).
///
/// Display shows the summary, the detail and the path, in that order, leaving out what
/// is empty (`summary: detail at path`); a warning starts with `warning: `.
///
/// ```
/// use tfvalue::schema::{Diagnostic, Severity};
/// use tfvalue::{AttributePath, Type, Value};
///
/// let d = Diagnostic::warning("deprecated attribute")
///     .with_detail("use `size_gb` instead")
///     .at(AttributePath::new().attr("size"));
/// assert_eq!(d.severity, Severity::Warning);
/// assert_eq!(d.summary, "deprecated attribute");
/// assert_eq!(d.to_string(), "warning: deprecated attribute: use `size_gb` instead at size");
///
/// // An error from decoding becomes an error diagnostic at its path.
/// let err = Value::from_json(br#"{"size":"big"}"#, &Type::object([("size", Type::Number)])).unwrap_err();
/// let d = Diagnostic::from(err);
/// assert_eq!((d.severity, d.path().to_string()), (Severity::Error, "size".to_owned()));
/// assert_eq!(d.to_string(), r#"Invalid value: invalid number "big" at size"#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// One line saying what is wrong (Terraform's `Error: ...` line).
    pub summary: String,
    /// More about it, in a sentence or more; may be empty.
    pub detail: String,
    /// The attribute the problem is about; `None` for the whole value (or resource).
    pub attribute: Option<AttributePath>,
    kind: DiagnosticKind,
}

/// The path of a diagnostic about no attribute.
static ROOT: AttributePath = AttributePath::new();

impl Diagnostic {
    /// An error of this kind, with the kind's [summary](DiagnosticKind::summary) and
    /// `message` as the detail.
    pub fn new(kind: DiagnosticKind, path: AttributePath, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            summary: kind.summary().to_owned(),
            detail: message.into(),
            attribute: None,
            kind,
        }
        .at(path)
    }

    /// An error with this summary, about the whole value until [`at`](Diagnostic::at).
    ///
    /// ```
    /// use tfvalue::schema::Diagnostic;
    /// use tfvalue::AttributePath;
    ///
    /// let d = Diagnostic::error("invalid size")
    ///     .with_detail("size must be a power of two")
    ///     .at(AttributePath::new().attr("disk").index(0).attr("size"));
    /// assert!(d.is_error());
    /// assert_eq!(d.to_string(), "invalid size: size must be a power of two at disk[0].size");
    /// ```
    pub fn error(summary: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: String::new(),
            attribute: None,
            kind: DiagnosticKind::Other,
        }
    }

    /// A warning with this summary: Terraform shows it and goes on.
    pub fn warning(summary: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(summary)
        }
    }

    /// An error for a value that did not decode or encode: the summary says what was
    /// being done, the detail is tfvalue's message and the attribute its path.
    ///
    /// ```
    /// use tfvalue::schema::Diagnostic;
    /// use tfvalue::{DynamicValue, PathStep};
    ///
    /// #[derive(serde::Deserialize, Debug)]
    /// struct Config { size: u32 }
    ///
    /// let dv = DynamicValue::from_json(br#"{"size":"big"}"#.to_vec());
    /// let err = dv.decode::<Config>().unwrap_err();
    /// let d = Diagnostic::from_value_error("invalid configuration", &err);
    /// assert_eq!(d.path().steps(), [PathStep::Attr("size".into())]);
    /// ```
    pub fn from_value_error(summary: impl Into<String>, err: &crate::error::Error) -> Self {
        Diagnostic::error(summary)
            .with_detail(err.message())
            .at(err.path().clone())
    }

    /// The same diagnostic with this detail.
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }

    /// The same diagnostic about the attribute at `path` (an empty path: about the whole
    /// value).
    #[must_use]
    pub fn at(mut self, path: AttributePath) -> Self {
        self.attribute = if path.is_empty() { None } else { Some(path) };
        self
    }

    /// The same diagnostic about the attribute at `path` (as [`at`](Diagnostic::at)).
    #[must_use]
    pub fn with_path(self, path: AttributePath) -> Self {
        self.at(path)
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

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The short summary (Terraform's `Error: ...` line).
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// The detail: what is wrong, in a sentence.
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// Where in the value the problem is; empty for the value itself.
    pub fn path(&self) -> &AttributePath {
        self.attribute.as_ref().unwrap_or(&ROOT)
    }

    /// The detail (kept for callers of the first version; same as [`Diagnostic::detail`]).
    pub fn message(&self) -> &str {
        &self.detail
    }
}

impl From<crate::error::Error> for Diagnostic {
    /// An error diagnostic at the error's path, with its message as the detail.
    fn from(err: crate::error::Error) -> Self {
        Diagnostic::from(&err)
    }
}

impl From<&crate::error::Error> for Diagnostic {
    /// An error diagnostic at the error's path, with its message as the detail.
    fn from(err: &crate::error::Error) -> Self {
        Diagnostic::from_value_error("Invalid value", err)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.severity == Severity::Warning {
            f.write_str("warning: ")?;
        }
        f.write_str(&self.summary)?;
        if !self.detail.is_empty() {
            if !self.summary.is_empty() {
                f.write_str(": ")?;
            }
            f.write_str(&self.detail)?;
        }
        if let Some(path) = &self.attribute {
            write!(f, " at {path}")?;
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

/// Any error becomes an error diagnostic, so that `?` works in a function returning
/// `Result<_, Diagnostics>` (a provider's handler) on tfvalue's errors, I/O errors and the
/// errors of the libraries a provider calls. A [`tfvalue::Error`](crate::Error) keeps its
/// path (the diagnostic is at that attribute, with the message as the detail); any other
/// error's message is the summary, and its sources are the detail.
///
/// For this, `Diagnostics` does not implement [`std::error::Error`] itself (as
/// `anyhow::Error` does not); it converts into `Box<dyn std::error::Error>`.
///
/// ```
/// use tfvalue::schema::Diagnostics;
/// use tfvalue::{Type, Value};
///
/// fn read(path: &str) -> Result<Value, Diagnostics> {
///     let bytes = std::fs::read(path)?;
///     Ok(Value::from_json(&bytes, &Type::object([("size", Type::Number)]))?)
/// }
///
/// let err = read("/no/such/file.json").unwrap_err();
/// assert!(err.has_errors());
/// assert!(err[0].summary.contains("No such file"), "{err}");
/// ```
impl<E> From<E> for Diagnostics
where
    E: std::error::Error + Send + Sync + 'static,
{
    fn from(err: E) -> Self {
        if let Some(e) = (&err as &dyn std::any::Any).downcast_ref::<crate::error::Error>() {
            return Diagnostics(vec![Diagnostic::from(e)]);
        }
        let mut detail = String::new();
        let mut source = err.source();
        while let Some(s) = source {
            if !detail.is_empty() {
                detail.push_str(": ");
            }
            detail.push_str(&s.to_string());
            source = s.source();
        }
        Diagnostics(vec![Diagnostic::error(err.to_string()).with_detail(detail)])
    }
}

impl From<Diagnostics> for Box<dyn std::error::Error + Send + Sync + 'static> {
    fn from(d: Diagnostics) -> Self {
        Box::new(DiagnosticsError(d))
    }
}

impl From<Diagnostics> for Box<dyn std::error::Error + 'static> {
    fn from(d: Diagnostics) -> Self {
        Box::new(DiagnosticsError(d))
    }
}

/// [`Diagnostics`] as a [`std::error::Error`], inside a `Box<dyn Error>`.
#[derive(Debug)]
struct DiagnosticsError(Diagnostics);

impl fmt::Display for DiagnosticsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for DiagnosticsError {}

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
