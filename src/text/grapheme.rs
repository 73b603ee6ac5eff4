//! Grapheme clusters as go-textseg v15's `ScanGraphemeClusters` finds them, for the
//! prefix cut of go-cty's `SafeKnownPrefix`.
//!
//! go-textseg v15 is not UAX #29 as the Unicode 15.0 text states it (which `unicode-
//! segmentation` follows, in a later version): it is a longest-match scanner over a
//! grammar of its own, on Unicode 15.0's character classes. Where the two part:
//!
//! * no conjunct rule (UAX #29's GB9c, Unicode 15.1): `क्क` is two clusters, `क्` and `क`;
//! * a ZWJ joins a following pictograph after any Hangul syllable sequence, pictograph or
//!   regional indicator pair, with any extenders between (`ᅡ‍👨` is one cluster),
//!   where UAX #29's GB11 asks for a pictograph before the ZWJ; after any other character
//!   a ZWJ joins, but the pictograph after it starts a cluster of its own;
//! * `L LV T` (Hangul) is two clusters, `L LV` and `T`: after leading consonants, a
//!   syllable LV takes trailing consonants only with a vowel between;
//! * U+FFFD is a control: a cluster of its own;
//! * a lone CR (not followed by LF) or LF cannot be scanned: the scanner asks for more
//!   input, and `SafeKnownPrefix` keeps only what comes before it.
//!
//! Extend and SpacingMark behave the same in this grammar and are one class here.

pub(super) use super::grapheme_table::Class;
use super::grapheme_table::TABLE;

/// The class of `c`.
pub(super) fn class(c: char) -> Class {
    let cp = u32::from(c);
    if (0xAC00..=0xD7A3).contains(&cp) {
        // Precomposed Hangul syllables: LV when there is no trailing consonant.
        return if (cp - 0xAC00) % 28 == 0 {
            Class::LV
        } else {
            Class::LVT
        };
    }
    match TABLE.binary_search_by(|&(lo, hi, _)| {
        if hi < cp {
            std::cmp::Ordering::Less
        } else if lo > cp {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => TABLE.get(i).map_or(Class::Other, |&(_, _, k)| k),
        Err(_) => Class::Other,
    }
}

/// A position in a string, with the class of the character there.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<Class> {
        self.s.get(self.pos..)?.chars().next().map(class)
    }

    fn bump(&mut self) {
        if let Some(c) = self.s.get(self.pos..).and_then(|r| r.chars().next()) {
            self.pos += c.len_utf8();
        }
    }

    fn bump_while(&mut self, f: impl Fn(Class) -> bool) {
        while self.peek().is_some_and(&f) {
            self.bump();
        }
    }
}

/// The length in bytes of the first grapheme cluster of `s`, or `None` where go-textseg
/// cannot tell it without more input (a CR not followed by LF, or an LF).
pub(super) fn first_cluster(s: &str) -> Option<usize> {
    let mut cur = Cursor { s, pos: 0 };
    match cur.peek()? {
        Class::Cr => {
            cur.bump();
            if cur.peek() != Some(Class::Lf) {
                return None;
            }
            cur.bump();
        }
        Class::Lf => return None,
        Class::Control => cur.bump(),
        Class::Prepend => {
            cur.bump_while(|k| k == Class::Prepend);
            match cur.peek() {
                None | Some(Class::Cr | Class::Lf | Class::Control) => {}
                Some(k) => sequence(&mut cur, k),
            }
        }
        k => sequence(&mut cur, k),
    }
    Some(cur.pos)
}

/// One of the sequences a cluster is (after any prepended characters), starting with a
/// character of class `first`.
fn sequence(cur: &mut Cursor<'_>, first: Class) {
    use Class::*;
    match first {
        L | V | T | LV | LVT => {
            hangul(cur, first);
            extension(cur);
        }
        ExtPict => {
            cur.bump();
            extension(cur);
        }
        Ri => {
            cur.bump();
            if cur.peek() == Some(Ri) {
                cur.bump();
            }
            extension(cur);
        }
        Zwj => {
            cur.bump();
            cur.bump_while(|k| matches!(k, Zwj | Extend));
        }
        Other | Extend => {
            cur.bump();
            cur.bump_while(|k| matches!(k, Zwj | Extend));
        }
        Cr | Lf | Control | Prepend => {}
    }
}

/// `L+ (((LV? V+ | LVT) T*)? | LV?) | LV V* T* | V+ T* | LVT T* | T+`.
fn hangul(cur: &mut Cursor<'_>, first: Class) {
    use Class::*;
    let vowels_then_trailing = |cur: &mut Cursor<'_>| {
        cur.bump_while(|k| k == V);
        cur.bump_while(|k| k == T);
    };
    match first {
        L => {
            cur.bump_while(|k| k == L);
            match cur.peek() {
                Some(LV) => {
                    cur.bump();
                    if cur.peek() == Some(V) {
                        vowels_then_trailing(cur);
                    }
                }
                Some(V) => vowels_then_trailing(cur),
                Some(LVT) => {
                    cur.bump();
                    cur.bump_while(|k| k == T);
                }
                _ => {}
            }
        }
        LV => {
            cur.bump();
            vowels_then_trailing(cur);
        }
        V => vowels_then_trailing(cur),
        LVT => {
            cur.bump();
            cur.bump_while(|k| k == T);
        }
        _ => cur.bump_while(|k| k == T),
    }
}

/// What may follow a Hangul, pictograph or regional indicator sequence: extenders, and a
/// ZWJ with the pictograph after it (and that one's extenders).
fn extension(cur: &mut Cursor<'_>) {
    loop {
        match cur.peek() {
            Some(Class::Extend) => cur.bump(),
            Some(Class::Zwj) => {
                cur.bump();
                if cur.peek() == Some(Class::ExtPict) {
                    cur.bump();
                }
            }
            _ => return,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// The clusters of `s`, as go-textseg gives them (`None` for an unscannable rest).
    fn clusters(s: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            match first_cluster(rest) {
                Some(n) => {
                    out.push(&rest[..n]);
                    rest = &rest[n..];
                }
                None => {
                    out.push("<more>");
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn classes() {
        assert_eq!(class('a'), Class::Other);
        assert_eq!(class('\r'), Class::Cr);
        assert_eq!(class('\n'), Class::Lf);
        assert_eq!(class('\u{0}'), Class::Control);
        assert_eq!(class('\u{FFFD}'), Class::Control);
        assert_eq!(class('\u{301}'), Class::Extend);
        assert_eq!(class('\u{903}'), Class::Extend); // SpacingMark
        assert_eq!(class('\u{94D}'), Class::Extend); // virama
        assert_eq!(class('\u{200D}'), Class::Zwj);
        assert_eq!(class('\u{1F1E6}'), Class::Ri);
        assert_eq!(class('\u{600}'), Class::Prepend);
        assert_eq!(class('\u{1100}'), Class::L);
        assert_eq!(class('\u{1161}'), Class::V);
        assert_eq!(class('\u{11A8}'), Class::T);
        assert_eq!(class('가'), Class::LV);
        assert_eq!(class('각'), Class::LVT);
        assert_eq!(class('\u{1F468}'), Class::ExtPict);
        assert_eq!(class('\u{A9}'), Class::ExtPict);
        // assigned in Unicode 15.0 (Kawi)
        assert_eq!(class('\u{11F00}'), Class::Extend);
        assert_eq!(class('\u{11F02}'), Class::Prepend);
        // assigned in 16.0 (Tulu-Tigalari repha, Kirat Rai vowel): Other in 15.0
        assert_eq!(class('\u{113D1}'), Class::Other);
        assert_eq!(class('\u{16D63}'), Class::Other);
        // unassigned, but pictographic
        assert_eq!(class('\u{1FAFF}'), Class::ExtPict);
    }

    #[test]
    fn go_textseg_v15_clusters() {
        let cases: &[(&str, &[&str])] = &[
            ("abc", &["a", "b", "c"]),
            ("e\u{301}x", &["e\u{301}", "x"]),
            // no conjunct rule
            ("\u{915}\u{94D}\u{915}", &["\u{915}\u{94D}", "\u{915}"]),
            // a ZWJ joins a pictograph after Hangul, a flag, a pictograph
            ("\u{1161}\u{200D}\u{1F468}", &["\u{1161}\u{200D}\u{1F468}"]),
            (
                "\u{1F1E6}\u{1F1E8}\u{200D}\u{1F468}",
                &["\u{1F1E6}\u{1F1E8}\u{200D}\u{1F468}"],
            ),
            (
                "\u{1F1E6}\u{200D}\u{1F468}",
                &["\u{1F1E6}\u{200D}\u{1F468}"],
            ),
            (
                "\u{1F468}\u{903}\u{200D}\u{1F469}",
                &["\u{1F468}\u{903}\u{200D}\u{1F469}"],
            ),
            // but not after other characters
            ("a\u{200D}\u{1F468}", &["a\u{200D}", "\u{1F468}"]),
            // flags pair up
            (
                "\u{1F1E6}\u{1F1E8}\u{1F1E6}",
                &["\u{1F1E6}\u{1F1E8}", "\u{1F1E6}"],
            ),
            // Hangul
            ("\u{1100}\u{1161}\u{11A8}", &["\u{1100}\u{1161}\u{11A8}"]),
            ("\u{1100}가\u{11A8}", &["\u{1100}가", "\u{11A8}"]),
            (
                "\u{1100}가\u{1161}\u{11A8}",
                &["\u{1100}가\u{1161}\u{11A8}"],
            ),
            ("가\u{11A8}", &["가\u{11A8}"]),
            ("각\u{1161}", &["각", "\u{1161}"]),
            // prepend
            ("\u{600}a", &["\u{600}a"]),
            ("\u{600}\n", &["\u{600}", "<more>"]),
            ("\u{600}\u{600}", &["\u{600}\u{600}"]),
            // controls, U+FFFD, CR LF
            ("\u{FFFD}\u{301}", &["\u{FFFD}", "\u{301}"]),
            ("a\r\nb", &["a", "\r\n", "b"]),
            ("a\rb", &["a", "<more>"]),
            ("a\n", &["a", "<more>"]),
            ("\u{0}\u{301}", &["\u{0}", "\u{301}"]),
            // a ZWJ at the start
            (
                "\u{200D}\u{301}\u{200D}a",
                &["\u{200D}\u{301}\u{200D}", "a"],
            ),
        ];
        for (s, want) in cases {
            assert_eq!(&clusters(s), want, "{s:?}");
        }
    }
}
