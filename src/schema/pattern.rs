//! The `pattern` validator: regular expressions in the syntax of the `regex` crate
//! (through `regex-lite`, the small engine of the same authors), as Go's `regexp` and so
//! terraform-plugin-framework's `RegexMatches` nearly have it: groups, alternation,
//! classes, repetitions, anchors. The rule for where a pattern matches: **anywhere in
//! the value** unless it is anchored, as Go's `regexp.MatchString` does; write `^...$`
//! to match the whole value.
//!
//! This file is copied byte for byte into the derive crate (`derive/src/pattern.rs`), which
//! checks patterns at compile time; a test keeps the two copies equal.
//!
//! Matching runs in time proportional to the value's length times the pattern's size,
//! whatever the value (the engine never backtracks without bound), and a pattern is
//! limited in size and nesting, so that a value from another process costs little.

#![allow(dead_code)]

/// The largest compiled pattern accepted, in bytes of the engine's program.
const SIZE_LIMIT: usize = 1 << 20;

/// The deepest nesting of groups and repetitions accepted.
const NEST_LIMIT: u32 = 64;

/// A compiled pattern.
#[derive(Clone, Debug)]
pub(crate) struct Compiled(regex_lite::Regex);

/// Compiles `pattern`, or says why it is not one.
pub(crate) fn compile(pattern: &str) -> Result<Compiled, String> {
    regex_lite::RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map(Compiled)
        .map_err(|e| {
            // The engine's message, on one line.
            e.to_string()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
}

/// Whether `pattern` compiles (for the derive's compile-time check).
pub(crate) fn check(pattern: &str) -> Result<(), String> {
    compile(pattern).map(|_| ())
}

impl Compiled {
    /// Whether the pattern matches anywhere in `s`.
    pub(crate) fn is_match(&self, s: &str) -> bool {
        self.0.is_match(s)
    }
}
