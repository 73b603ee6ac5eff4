//! Standard output, and how the command fails.
//!
//! Everything the command prints goes through [`print()`], which turns a closed pipe into
//! [`Fail::BrokenPipe`]: `tfvalue ... | head -1` then ends quietly with status 141, the
//! status a shell reports for a Unix tool that a closed pipe stopped (128 + SIGPIPE),
//! instead of panicking as `println!` does.

use std::io::Write;

/// The status for a closed output pipe: 128 + SIGPIPE (13), as shells report for `cat`.
pub const BROKEN_PIPE_STATUS: u8 = 141;

/// Why a command stopped.
#[derive(Debug)]
pub enum Fail {
    /// A one-line message for standard error; the status is 1.
    Message(String),
    /// Standard output was closed by its reader; nothing more is said.
    BrokenPipe,
}

impl From<String> for Fail {
    fn from(s: String) -> Self {
        Fail::Message(s)
    }
}

impl From<&str> for Fail {
    fn from(s: &str) -> Self {
        Fail::Message(s.to_owned())
    }
}

/// The result of a command.
pub type Outcome<T> = Result<T, Fail>;

/// Writes `text` to standard output and flushes it.
pub fn print(text: &str) -> Outcome<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::BrokenPipe => Fail::BrokenPipe,
            _ => Fail::Message(format!("cannot write to standard output: {e}")),
        })
}

/// Writes `text` and a newline to standard output.
pub fn println(text: &str) -> Outcome<()> {
    let mut s = String::with_capacity(text.len() + 1);
    s.push_str(text);
    s.push('\n');
    print(&s)
}

/// Writes a warning to standard error. A closed standard error is not worth failing for.
pub fn warn(text: &str) {
    let text = crate::diff::printable(text);
    let _ = writeln!(std::io::stderr().lock(), "tfvalue: warning: {text}");
}

/// Writes a line to standard error.
pub fn warn_plain(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}
