//! The `pattern` validator: a small, safe subset of regular expressions.
//!
//! This file is copied byte for byte into the derive crate (`derive/src/pattern.rs`), which
//! checks patterns at compile time; a test keeps the two copies equal. It needs nothing
//! but `std`.
//!
//! Supported: literal characters; `.`; escapes `\d`, `\w`, `\s` and `\` before any
//! punctuation; classes `[a-z0-9_]` and `[^...]` with ranges and those escapes; the
//! quantifiers `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (n, m at most 1000); `^` at the start
//! and `$` at the end. Without `^` and `$` the pattern may match anywhere in the string, as
//! Go's `regexp.MatchString` (and so terraform-plugin-framework's `RegexMatches`) does.
//! Groups and alternation are not supported (use `one_of` for a list of values). Matching
//! runs in time proportional to the string's length times the pattern's size, whatever
//! the input: no backtracking.

#![allow(dead_code)]

/// Largest repetition count accepted in `{n,m}`.
const MAX_REPEAT: u32 = 1000;

/// One character test.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Atom {
    Any,
    Char(char),
    /// Ranges (inclusive), negated or not.
    Class(Vec<(char, char)>, bool),
}

impl Atom {
    fn matches(&self, c: char) -> bool {
        match self {
            Atom::Any => c != '\n',
            Atom::Char(x) => *x == c,
            Atom::Class(ranges, negated) => {
                ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
            }
        }
    }
}

/// How often an expanded element may occur.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Times {
    One,
    Optional,
    Many,
}

/// A parsed pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Compiled {
    elems: Vec<(Atom, Times)>,
    start: bool,
    end: bool,
}

fn class_escape(c: char) -> Option<Vec<(char, char)>> {
    match c {
        'd' => Some(vec![('0', '9')]),
        'w' => Some(vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]),
        's' => Some(vec![(' ', ' '), ('\t', '\r')]),
        _ => None,
    }
}

fn escaped(c: char) -> Result<Atom, String> {
    if let Some(ranges) = class_escape(c) {
        return Ok(Atom::Class(ranges, false));
    }
    match c {
        'n' => Ok(Atom::Char('\n')),
        't' => Ok(Atom::Char('\t')),
        c if c.is_ascii_punctuation() => Ok(Atom::Char(c)),
        c => Err(format!("the escape `\\{c}` is not supported")),
    }
}

fn parse_class(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<Atom, String> {
    let negated = chars.peek() == Some(&'^');
    if negated {
        chars.next();
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = chars.next().ok_or("a class `[` is not closed")?;
        if c == ']' && !first {
            break;
        }
        first = false;
        let lo = if c == '\\' {
            let e = chars.next().ok_or("the pattern ends in `\\`")?;
            if let Some(r) = class_escape(e) {
                ranges.extend(r);
                continue;
            }
            match escaped(e)? {
                Atom::Char(x) => x,
                _ => return Err(format!("the escape `\\{e}` is not supported in a class")),
            }
        } else {
            c
        };
        if chars.peek() == Some(&'-') {
            let mut ahead = chars.clone();
            ahead.next();
            match ahead.peek() {
                Some(&']') | None => ranges.push((lo, lo)),
                Some(&hi) => {
                    chars.next();
                    chars.next();
                    let hi = if hi == '\\' {
                        match chars.next().map(escaped) {
                            Some(Ok(Atom::Char(x))) => x,
                            _ => return Err("a range ends in an unsupported escape".into()),
                        }
                    } else {
                        hi
                    };
                    if hi < lo {
                        return Err(format!("the range `{lo}-{hi}` is backwards"));
                    }
                    ranges.push((lo, hi));
                }
            }
        } else {
            ranges.push((lo, lo));
        }
    }
    Ok(Atom::Class(ranges, negated))
}

fn parse_count(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
) -> Result<(u32, Option<u32>), String> {
    let mut text = String::new();
    loop {
        match chars.next() {
            Some('}') => break,
            Some(c) if c.is_ascii_digit() || c == ',' => text.push(c),
            _ => return Err("a repetition `{` needs `{n}`, `{n,}` or `{n,m}`".into()),
        }
    }
    let number = |s: &str| -> Result<u32, String> {
        match s.parse::<u32>() {
            Ok(n) if n <= MAX_REPEAT => Ok(n),
            _ => Err(format!("a repetition count is a number up to {MAX_REPEAT}")),
        }
    };
    match text.split_once(',') {
        None => {
            let n = number(&text)?;
            Ok((n, Some(n)))
        }
        Some((lo, "")) => Ok((number(lo)?, None)),
        Some((lo, hi)) => {
            let (lo, hi) = (number(lo)?, number(hi)?);
            if hi < lo {
                return Err(format!("the repetition `{{{lo},{hi}}}` is backwards"));
            }
            Ok((lo, Some(hi)))
        }
    }
}

/// Parses a pattern.
pub(crate) fn compile(pattern: &str) -> Result<Compiled, String> {
    let mut chars = pattern.chars().peekable();
    let start = chars.peek() == Some(&'^');
    if start {
        chars.next();
    }
    let mut elems = Vec::new();
    let mut end = false;
    while let Some(c) = chars.next() {
        if end {
            return Err("`$` is supported only at the end".into());
        }
        let atom = match c {
            '$' => {
                end = true;
                continue;
            }
            '.' => Atom::Any,
            '[' => parse_class(&mut chars)?,
            '\\' => escaped(chars.next().ok_or("the pattern ends in `\\`")?)?,
            '(' | ')' | '|' => {
                return Err(format!(
                    "`{c}`: groups and alternation are not supported (use `one_of` for a list of values)"
                ))
            }
            '^' => return Err("`^` is supported only at the start".into()),
            '*' | '+' | '?' | '{' => return Err(format!("`{c}` follows nothing")),
            c => Atom::Char(c),
        };
        let (min, max) = match chars.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                chars.next();
                let count = parse_count(&mut chars)?;
                if matches!(chars.peek(), Some('*' | '+' | '?' | '{')) {
                    return Err("a quantifier follows a quantifier".into());
                }
                for _ in 0..count.0 {
                    elems.push((atom.clone(), Times::One));
                }
                match count.1 {
                    None => elems.push((atom, Times::Many)),
                    Some(hi) => {
                        for _ in count.0..hi {
                            elems.push((atom.clone(), Times::Optional));
                        }
                    }
                }
                continue;
            }
            _ => (1, Some(1)),
        };
        if (min, max) != (1, Some(1)) {
            chars.next();
            if matches!(chars.peek(), Some('*' | '+' | '?' | '{')) {
                return Err("a quantifier follows a quantifier (lazy and possessive forms are not supported)".into());
            }
        }
        if min == 1 {
            elems.push((atom.clone(), Times::One));
        }
        elems.push((
            atom,
            match max {
                None => Times::Many,
                _ if min == 1 => continue,
                _ => Times::Optional,
            },
        ));
    }
    if elems.len() > 4 * MAX_REPEAT as usize {
        return Err("the pattern is too long".into());
    }
    Ok(Compiled { elems, start, end })
}

/// Checks that a pattern is in the supported subset.
pub(crate) fn check(pattern: &str) -> Result<(), String> {
    compile(pattern).map(|_| ())
}

impl Compiled {
    /// Adds state `i` and every state reachable from it without reading.
    fn close(&self, i: usize, set: &mut [bool]) {
        let mut i = i;
        while i < set.len() && !set[i] {
            set[i] = true;
            match self.elems.get(i) {
                Some((_, Times::Optional | Times::Many)) => i += 1,
                _ => break,
            }
        }
    }

    /// Whether the pattern matches `s` (anywhere, unless anchored).
    pub(crate) fn is_match(&self, s: &str) -> bool {
        let n = self.elems.len() + 1;
        let mut cur = vec![false; n];
        self.close(0, &mut cur);
        for c in s.chars() {
            if cur.last() == Some(&true) && !self.end {
                return true;
            }
            let mut next = vec![false; n];
            for (i, ((atom, times), on)) in self.elems.iter().zip(&cur).enumerate() {
                if !on || !atom.matches(c) {
                    continue;
                }
                match times {
                    Times::Many => self.close(i, &mut next),
                    _ => self.close(i + 1, &mut next),
                }
            }
            if !self.start {
                self.close(0, &mut next);
            }
            cur = next;
        }
        cur.last() == Some(&true)
    }
}
