//! Text as Terraform holds it: Unicode normalization and the rules of the 256-byte prefix
//! cut of a refined unknown string, with the Unicode 15.0.0 tables Terraform's own
//! libraries use.
//!
//! Terraform normalizes every string it holds to NFC (go-cty's `cty.StringVal` calls
//! golang.org/x/text's `norm.NFC`), so tfvalue writes strings, map keys and prefixes in
//! that form: otherwise a value Terraform sends back would differ from the one the
//! provider planned. x/text's NFC is not quite Unicode's NFC (see [`normalize`]);
//! [`normalize`] is Terraform's, byte for byte, and [`normalize_unicode`] is the
//! standard's, for a user who needs that.
//!
//! ```
//! use tfvalue::text;
//!
//! // Both agree on ordinary text...
//! assert_eq!(text::normalize("e\u{301}"), "\u{e9}");
//! assert_eq!(text::normalize_unicode("e\u{301}"), "\u{e9}");
//! // ...and part where Terraform's normalizer composes by the low 16 bits of a character.
//! assert_eq!(text::normalize("\u{20041}\u{301}"), "\u{c1}");
//! assert_eq!(text::normalize_unicode("\u{20041}\u{301}"), "\u{20041}\u{301}");
//! ```

use std::borrow::Cow;

mod grapheme;
mod grapheme_table;
#[rustfmt::skip] // as `scripts/nfc_table.py` writes it
mod nfc_table;
mod normalize;

use normalize::{Props, Step, StreamSafe};

/// The version of Unicode of every table here: normalization, and the grapheme classes of
/// the prefix cut. It is the version Terraform's libraries use (golang.org/x/text's
/// `norm` tables, built with Go 1.21 or later, and go-textseg v15), not the newest one:
/// a character assigned later is, to both, an unassigned one.
pub const UNICODE_VERSION: (u8, u8, u8) = (15, 0, 0);

/// Normalizes `s` to NFC as Terraform does, borrowing it when it already is (always for
/// ASCII).
///
/// This is what golang.org/x/text's `norm.NFC` computes, which Terraform applies to every
/// string, and it differs from Unicode's NFC ([`normalize_unicode`]) on rare text:
///
/// * x/text finds a composition by the low 16 bits of both characters, so a character
///   whose low 16 bits are those of a composition's first character composes like it:
///   `U+20041 U+0301` becomes `Á` (U+00C1);
/// * a character of combining class 0 that combines with what precedes it (such as
///   U+09BE) or that only a compatibility decomposition starts with a mark (U+FF9E) does
///   not block a later mark from composing with the starter before it:
///   `U U+09BE U+05B0 U+030C` becomes `Ǔ U+09BE U+05B0`;
/// * more than 30 non-starters in a row get a U+034F COMBINING GRAPHEME JOINER after the
///   30th (the Stream-Safe Text Format), a Hangul syllable counting as one or two;
/// * a segment with a Hangul jamo after its first character is composed by the Hangul
///   rules only, from that jamo on.
///
/// The tables are Unicode 15.0.0's ([`UNICODE_VERSION`]).
///
/// ```
/// assert_eq!(tfvalue::text::normalize("caf\u{65}\u{301}"), "caf\u{e9}");
/// let marks = format!("a{}", "\u{301}".repeat(31));
/// let joined = tfvalue::text::normalize(&marks);
/// assert_eq!(joined, format!("\u{e1}{}\u{34f}\u{301}", "\u{301}".repeat(29)));
/// ```
pub fn normalize(s: &str) -> Cow<'_, str> {
    normalize::terraform(s)
}

/// Normalizes `s` to NFC as Unicode's UAX #15 defines it (with the Unicode 15.0.0 tables),
/// borrowing it when it already is. Terraform does not write this form for every string:
/// use [`normalize`] for what goes to Terraform.
///
/// ```
/// assert_eq!(tfvalue::text::normalize_unicode("\u{1100}\u{1161}\u{11a8}"), "\u{ac01}");
/// ```
pub fn normalize_unicode(s: &str) -> Cow<'_, str> {
    normalize::unicode(s)
}

/// Terraform's NFC: what every string the crate writes goes through.
#[inline]
pub(crate) fn nfc(s: &str) -> Cow<'_, str> {
    normalize::terraform(s)
}

/// The prefix of a refined unknown string as it is written: NFC, and if longer than
/// `max` bytes (256), its first `max - 1` bytes made safe as go-cty's `SafeKnownPrefix`
/// does: a longer string could still extend the last character or grapheme cluster, so
/// that is dropped, unless it is a character that nothing can change, or a lone
/// delimiter (`-`, `/`, `:`, space, ...).
pub(crate) fn prefix_as_written(prefix: &str, max: usize) -> Cow<'_, str> {
    let s = nfc(prefix);
    match s.as_bytes().get(..max.saturating_sub(1)) {
        Some(cut) if s.len() > max => Cow::Owned(safe_known_prefix(cut)),
        _ => s,
    }
}

/// `SafeKnownPrefix` of go-cty's `ctystrings`, on bytes that may end inside a character
/// (the first 255 bytes of a longer prefix).
///
/// Two steps, as go-cty takes them, after normalizing what it is given. First the NFC
/// boundary (x/text's `LastBoundary`): if the last segment could still change with what
/// follows, it is dropped. Else a scan by grapheme clusters from the start, as go-textseg
/// v15 finds them (see `grapheme`): it stops at a lone CR or LF (the scanner asks for more
/// input there, since CR LF is one cluster), dropping everything from it on; otherwise the
/// last cluster is dropped unless it is a single delimiter.
fn safe_known_prefix(b: &[u8]) -> String {
    safe_known_prefix_with(b, grapheme::first_cluster)
}

/// [`safe_known_prefix`] with the grapheme scanner given (the tests give a second one).
fn safe_known_prefix_with(b: &[u8], first_cluster: impl Fn(&str) -> Option<usize>) -> String {
    let (valid, cut_inside_char) = match std::str::from_utf8(b) {
        Ok(s) => (s, false),
        Err(e) => (
            std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or(""),
            true,
        ),
    };
    // go-cty normalizes first; the partial character at the end stays as it is.
    let s = nfc(valid);
    match last_boundary(&s) {
        // A segment that could still change, or the partial character, is dropped.
        Some(i) if cut_inside_char || i != s.len() => return s[..i].to_owned(),
        Some(_) => {}
        // No boundary at all: go's LastBoundary gives up and the scan decides, which
        // cannot end a cluster inside the partial character.
        None if cut_inside_char => return String::new(),
        None => {}
    }
    // The start and end of the last cluster scanned.
    let (mut start, mut end) = (0, 0);
    while let Some(rest) = s.get(end..).filter(|r| !r.is_empty()) {
        start = end;
        match first_cluster(rest) {
            Some(n) if n > 0 => end += n,
            _ => break,
        }
    }
    let mut cluster = s.get(start..end).unwrap_or("").chars();
    let keep = match (cluster.next(), cluster.next()) {
        (Some(c), None) if is_prefix_delimiter(c) => end,
        _ => start,
    };
    s.get(..keep).unwrap_or("").to_owned()
}

/// x/text's `LastBoundary` of normalized text: where its last segment that a following
/// character could still change begins; the end when nothing can change the last
/// character; `None` when there is no boundary at all.
fn last_boundary(s: &str) -> Option<usize> {
    let mut chars = s.char_indices().rev();
    let (p, c) = chars.next()?;
    let props = Props::of(c);
    if props.is_inert() {
        return Some(s.len());
    }
    let mut ss = StreamSafe::default();
    let mut step = ss.backwards(props);
    let mut i = p;
    while step != Step::Starter {
        let (q, c) = chars.next()?;
        step = ss.backwards(Props::of(c));
        if step == Step::Overflow {
            break;
        }
        i = q;
    }
    Some(i)
}

/// Whether nothing that follows `c` can change it under Terraform's NFC.
#[cfg(test)]
fn is_inert(c: char) -> bool {
    Props::of(c).is_inert()
}

fn is_prefix_delimiter(c: char) -> bool {
    matches!(
        c,
        '-' | '_'
            | ':'
            | ';'
            | '/'
            | '\\'
            | ','
            | '.'
            | '('
            | ')'
            | '{'
            | '}'
            | '['
            | ']'
            | '|'
            | '?'
            | '!'
            | '~'
            | ' '
            | '\t'
            | '@'
            | '#'
            | '$'
            | '%'
            | '^'
            | '&'
            | '*'
            | '+'
            | '"'
            | '\''
    )
}

#[cfg(test)]
mod tests;
