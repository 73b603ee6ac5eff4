//! Diagnostics: what a provider tells Terraform about problems.

use std::fmt;

use tfvalue::AttributePath;

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Severity {
    /// The operation failed.
    Error,
    /// The operation went on, but something deserves attention.
    Warning,
}

/// A problem reported to Terraform: severity, summary, detail and, optionally, the
/// attribute it is about (Terraform then shows the configuration line that set it).
///
/// ```
/// use tfvalue::AttributePath;
/// use tfvalue_plugin::{Diagnostic, Severity};
///
/// let d = Diagnostic::error("invalid size")
///     .with_detail("size must be a power of two")
///     .at(AttributePath::new().attr("disk").index(0).attr("size"));
/// assert_eq!(d.severity, Severity::Error);
/// assert_eq!(d.to_string(), "error: invalid size: size must be a power of two (at disk[0].size)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// One line saying what is wrong.
    pub summary: String,
    /// More about it; may be empty.
    pub detail: String,
    /// The attribute the problem is about, if any.
    pub attribute: Option<AttributePath>,
}

impl Diagnostic {
    /// An error with this summary.
    pub fn error(summary: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: String::new(),
            attribute: None,
        }
    }

    /// A warning with this summary.
    pub fn warning(summary: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(summary)
        }
    }

    /// Sets the detail.
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }

    /// Sets the attribute path (an empty path means no attribute).
    #[must_use]
    pub fn at(mut self, path: AttributePath) -> Self {
        self.attribute = if path.is_empty() { None } else { Some(path) };
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// An error for a value that did not decode or encode: the summary names what was
    /// being done, the detail is tfvalue's message and the attribute its path.
    ///
    /// ```
    /// use tfvalue::{DynamicValue, PathStep};
    /// use tfvalue_plugin::Diagnostic;
    ///
    /// #[derive(serde::Deserialize, Debug)]
    /// struct Config { size: u32 }
    ///
    /// let dv = DynamicValue::from_json(br#"{"size":"big"}"#.to_vec());
    /// let err = dv.decode::<Config>().unwrap_err();
    /// let d = Diagnostic::from_value_error("invalid configuration", &err);
    /// assert_eq!(d.attribute.unwrap().steps(), [PathStep::Attr("size".into())]);
    /// ```
    pub fn from_value_error(summary: impl Into<String>, err: &tfvalue::Error) -> Self {
        Diagnostic::error(summary)
            .with_detail(err.to_string())
            .at(err.path().clone())
    }
}

impl From<tfvalue::Error> for Diagnostic {
    fn from(err: tfvalue::Error) -> Self {
        Diagnostic::from_value_error("invalid value", &err)
    }
}

impl From<tfvalue::schema::Diagnostic> for Diagnostic {
    fn from(d: tfvalue::schema::Diagnostic) -> Self {
        Diagnostic::error(d.message().to_owned()).at(d.path().clone())
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}: {}", self.summary)?;
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        if let Some(p) = &self.attribute {
            write!(f, " (at {p})")?;
        }
        Ok(())
    }
}

/// Whether any of `diagnostics` is an error.
///
/// ```
/// use tfvalue_plugin::{has_errors, Diagnostic};
///
/// assert!(!has_errors(&[Diagnostic::warning("old field")]));
/// assert!(has_errors(&[Diagnostic::warning("old field"), Diagnostic::error("bad")]));
/// ```
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}
