//! The one error type of the crate.

use std::fmt::{self, Display};
use std::io;

use crate::path::{AttributePath, PathStep};

/// What kind of problem an [`Error`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// Reading or writing failed in the underlying I/O stream.
    Io,
    /// The input ended in the middle of a value.
    Eof,
    /// The bytes are not well-formed MessagePack or JSON (bad marker, invalid UTF-8,
    /// trailing bytes, malformed type JSON, ...).
    Syntax,
    /// The input is well-formed but does not fit what was expected: a type mismatch,
    /// a missing or undeclared attribute, a duplicate key, a contradictory refinement,
    /// an unknown where one cannot be represented, a value that does not conform to
    /// its type on encode.
    Data,
    /// A safety limit was hit: nesting depth, number size, refinement payload size.
    Limit,
}

/// Which format an offset refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    None,
    Msgpack,
    Json,
}

struct ErrorImpl {
    category: Category,
    message: String,
    path: AttributePath,
    offset: Option<u64>,
    /// The line and column (both from 1) of the offset, for input that is text.
    line_column: Option<(u64, u64)>,
    origin: Origin,
    source: Option<io::Error>,
}

/// An error from encoding, decoding, validation or conversion.
///
/// The error is opaque and one pointer wide (its contents are boxed, since a larger
/// `Result` measurably slows the hot paths). It tells what went wrong
/// ([`category`](Error::category) and its message), where in the value
/// ([`path`](Error::path)), and where in the input ([`offset`](Error::offset)).
///
/// Display reads like serde's messages, followed by the path and where in the input: the
/// line and column in text (JSON), as serde_json says it, the byte offset in MessagePack.
///
/// ```
/// use tfvalue::{Type, Value};
///
/// let ty: Type = serde_json::from_str(r#"["object",{"tags":["map","string"]}]"#)?;
/// // {"tags": {"env": 5}}: a number where a string belongs.
/// let err = Value::from_msgpack(b"\x81\xa4tags\x81\xa3env\x05", &ty).unwrap_err();
/// assert_eq!(err.path().to_string(), r#"tags["env"]"#);
/// assert_eq!(
///     err.to_string(),
///     r#"invalid type: number, expected a string at tags["env"] (msgpack offset 11)"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Error(Box<ErrorImpl>);

/// `Result<T, tfvalue::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    #[cold]
    pub(crate) fn new(category: Category, message: impl Display) -> Self {
        Error(Box::new(ErrorImpl {
            category,
            message: message.to_string(),
            path: AttributePath::new(),
            offset: None,
            line_column: None,
            origin: Origin::None,
            source: None,
        }))
    }

    #[cold]
    pub(crate) fn data(message: impl Display) -> Self {
        Error::new(Category::Data, message)
    }

    #[cold]
    pub(crate) fn syntax(message: impl Display) -> Self {
        Error::new(Category::Syntax, message)
    }

    #[cold]
    pub(crate) fn limit(message: impl Display) -> Self {
        Error::new(Category::Limit, message)
    }

    #[cold]
    pub(crate) fn eof() -> Self {
        Error::new(Category::Eof, "unexpected end of input")
    }

    #[cold]
    pub(crate) fn io(err: io::Error) -> Self {
        let mut e = Error::new(Category::Io, &err);
        e.0.source = Some(err);
        e
    }

    /// `invalid type: {found}, expected {expected}`.
    #[cold]
    pub(crate) fn invalid_type(found: impl Display, expected: impl Display) -> Self {
        Error::data(format_args!("invalid type: {found}, expected {expected}"))
    }

    /// The category of this error.
    pub fn category(&self) -> Category {
        self.0.category
    }

    /// The message without path and offset, e.g. `invalid type: number, expected a string`.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Where in the value the problem is; empty for the value itself.
    pub fn path(&self) -> &AttributePath {
        &self.0.path
    }

    /// The byte offset in the input at which the problem was detected, if known.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// The line (from 1) at which the problem was detected, for input that is text (JSON),
    /// as `serde_json::Error::line` gives it.
    ///
    /// ```
    /// use tfvalue::{Type, Value};
    ///
    /// let ty = Type::object([("size", Type::Number)]);
    /// let err = Value::from_json(b"{\n  \"size\": \"big\"\n}", &ty).unwrap_err();
    /// assert_eq!((err.line(), err.column()), (Some(2), Some(11)));
    /// assert_eq!(err.to_string(), r#"invalid number "big" at size, line 2 column 11"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn line(&self) -> Option<u64> {
        self.0.line_column.map(|(l, _)| l)
    }

    /// The column (from 1, in bytes) at which the problem was detected, for input that is
    /// text (JSON); see [`line`](Error::line).
    pub fn column(&self) -> Option<u64> {
        self.0.line_column.map(|(_, c)| c)
    }

    /// Whether the input ended early.
    pub fn is_eof(&self) -> bool {
        self.0.category == Category::Eof
    }

    /// Whether a value did not fit what was expected.
    pub fn is_data(&self) -> bool {
        self.0.category == Category::Data
    }

    /// Puts a path step in front of the path (used on the way up out of nested values).
    #[cold]
    pub(crate) fn prepend(mut self, step: PathStep) -> Self {
        self.0.path.prepend(step);
        self
    }

    /// Prepends a whole path.
    #[cold]
    pub(crate) fn prepend_path(mut self, path: &AttributePath) -> Self {
        for step in path.steps().iter().rev() {
            self.0.path.prepend(step.clone());
        }
        self
    }

    /// Puts context in front of the message: `decoding state of schema version 1: ...`.
    #[cold]
    pub(crate) fn context(mut self, ctx: impl Display) -> Self {
        self.0.message = format!("{ctx}: {}", self.0.message);
        self
    }

    /// Records the offset in text input with its line and column, unless an offset is
    /// already set (the innermost wins).
    #[cold]
    pub(crate) fn at_text_offset(
        mut self,
        origin: Origin,
        offset: u64,
        line: u64,
        column: u64,
    ) -> Self {
        if self.0.offset.is_none() {
            self.0.offset = Some(offset);
            self.0.line_column = Some((line, column));
            self.0.origin = origin;
        }
        self
    }

    /// The same error without an offset: for input the caller never saw.
    #[cold]
    pub(crate) fn without_offset(mut self) -> Self {
        self.0.offset = None;
        self.0.line_column = None;
        self
    }

    /// Records the input offset unless one is already set (the innermost wins).
    #[cold]
    pub(crate) fn at_offset(mut self, origin: Origin, offset: u64) -> Self {
        if self.0.offset.is_none() {
            self.0.offset = Some(offset);
            self.0.origin = origin;
        }
        self
    }
}

/// `1 byte`, `2 bytes`: a count with its noun.
pub(crate) fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A path too long to read (a nesting-limit error is 128 steps deep) keeps its first and
/// last steps and says how many are left out.
const PATH_SHOWN: usize = 12;

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)?;
        let steps = self.0.path.steps();
        if steps.len() > 2 * PATH_SHOWN {
            let head: AttributePath = steps[..PATH_SHOWN].iter().cloned().collect();
            let tail: AttributePath = steps[steps.len() - PATH_SHOWN..].iter().cloned().collect();
            let tail = tail.to_string();
            let sep = if tail.starts_with('[') { "" } else { "." };
            write!(
                f,
                " at {head}…({} more)…{sep}{tail}",
                steps.len() - 2 * PATH_SHOWN
            )?;
        } else if !steps.is_empty() {
            write!(f, " at {}", self.0.path)?;
        }
        if let Some((line, column)) = self.0.line_column {
            // Text: where serde_json says it, after the path if there is one.
            let sep = if steps.is_empty() { " at" } else { "," };
            return write!(f, "{sep} line {line} column {column}");
        }
        if let Some(offset) = self.0.offset {
            match self.0.origin {
                Origin::Msgpack => write!(f, " (msgpack offset {offset})")?,
                Origin::Json => write!(f, " (json offset {offset})")?,
                Origin::None => write!(f, " (offset {offset})")?,
            }
        }
        Ok(())
    }
}

// Debug is what people see from `unwrap()`, so keep it readable and flat.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}: \"{}\")", self.0.category, self)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.source {
            Some(e) => Some(e),
            None => None,
        }
    }
}

impl From<Error> for io::Error {
    fn from(err: Error) -> io::Error {
        match err.0.category {
            Category::Io => {
                let mut err = err;
                match err.0.source.take() {
                    Some(e) => e,
                    None => io::Error::other(err),
                }
            }
            Category::Eof => io::Error::new(io::ErrorKind::UnexpectedEof, err),
            _ => io::Error::new(io::ErrorKind::InvalidData, err),
        }
    }
}

/// Marks a message whose error is a [`Category::Limit`], so that the category survives
/// a trip through a visitor's `de::Error::custom`.
pub(crate) const LIMIT_MARK: &str = "\u{0}limit\u{0}";

impl serde::de::Error for Error {
    #[cold]
    fn custom<T: Display>(msg: T) -> Self {
        let msg = msg.to_string();
        match msg.strip_prefix(LIMIT_MARK) {
            Some(rest) => Error::limit(rest),
            None => Error::data(msg),
        }
    }

    #[cold]
    fn invalid_type(unexp: serde::de::Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Error::invalid_type(Unexpected(unexp), exp)
    }

    #[cold]
    fn invalid_value(unexp: serde::de::Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Error::data(format_args!(
            "invalid value: {}, expected {}",
            Unexpected(unexp),
            exp
        ))
    }

    #[cold]
    fn missing_field(field: &'static str) -> Self {
        Error::data(format_args!("missing attribute `{field}`"))
    }

    #[cold]
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Error::data(unsupported_attribute(field, expected.iter().copied()))
    }

    #[cold]
    fn duplicate_field(field: &'static str) -> Self {
        Error::data(format_args!("duplicate attribute `{field}`"))
    }
}

impl serde::ser::Error for Error {
    #[cold]
    fn custom<T: Display>(msg: T) -> Self {
        Error::data(msg)
    }
}

/// `unsupported attribute `x`, expected one of `a`, `b``: every decoder words an attribute
/// the target does not declare this way (serde's `unknown_field`, the object types of
/// `Value` decoding).
#[cold]
pub(crate) fn unsupported_attribute<'a>(
    field: &str,
    expected: impl IntoIterator<Item = &'a str>,
) -> String {
    let mut out = format!("unsupported attribute `{field}`");
    let mut expected = expected.into_iter().peekable();
    if expected.peek().is_none() {
        out.push_str(": no attributes are declared");
        return out;
    }
    out.push_str(", expected one of ");
    for (i, name) in expected.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('`');
        out.push_str(name);
        out.push('`');
    }
    out
}

/// serde's `Unexpected`, named in Terraform's vocabulary.
struct Unexpected<'a>(serde::de::Unexpected<'a>);

impl Display for Unexpected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use serde::de::Unexpected as U;
        match self.0 {
            U::Bool(b) => write!(f, "bool `{b}`"),
            U::Unsigned(n) => write!(f, "number {n}"),
            U::Signed(n) => write!(f, "number {n}"),
            U::Float(n) => write!(f, "number {n}"),
            U::Char(c) => write!(f, "string {c:?}"),
            U::Str(s) => write!(f, "string {s:?}"),
            U::Bytes(_) => f.write_str("bytes"),
            U::Unit | U::Option => f.write_str("null"),
            U::NewtypeStruct => f.write_str("newtype struct"),
            U::Seq => f.write_str("array"),
            U::Map => f.write_str("map"),
            U::Enum => f.write_str("enum"),
            U::UnitVariant => f.write_str("unit variant"),
            U::NewtypeVariant => f.write_str("newtype variant"),
            U::TupleVariant => f.write_str("tuple variant"),
            U::StructVariant => f.write_str("struct variant"),
            U::Other(other) => f.write_str(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_pointer() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn display_has_path_and_offset() {
        let e = Error::invalid_type("number", "a string")
            .at_offset(Origin::Msgpack, 17)
            .prepend(PathStep::Key("env".into()))
            .prepend(PathStep::Attr("tags".into()));
        assert_eq!(
            e.to_string(),
            r#"invalid type: number, expected a string at tags["env"] (msgpack offset 17)"#
        );
        assert_eq!(e.category(), Category::Data);
        // the innermost offset wins
        let e = e.at_offset(Origin::Msgpack, 3);
        assert_eq!(e.offset(), Some(17));
        let io: io::Error = Error::eof().into();
        assert_eq!(io.kind(), io::ErrorKind::UnexpectedEof);
    }
}
