//! Diagnostics: what a provider tells Terraform about problems.
//!
//! The one diagnostic type is tfvalue's [`Diagnostic`] (with [`Severity`] and
//! [`Diagnostics`]), re-exported here: what a schema check reports is what a handler
//! returns and what the server sends.

pub use tfvalue::schema::{Diagnostic, Diagnostics, Severity};

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
