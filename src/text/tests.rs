//! The text rules: normalization against the standard and Terraform's quirks, and the
//! prefix cut.

use super::*;

/// The largest prefix written whole (`unknown::MAX_PREFIX_LEN`, as go-cty).
const MAX_PREFIX_LEN: usize = 256;

fn safe_prefix(prefix: &str) -> Cow<'_, str> {
    prefix_as_written(prefix, MAX_PREFIX_LEN)
}

#[test]
fn nfc_borrows_what_is_normal() {
    assert_eq!(nfc("e\u{301}"), "\u{e9}");
    assert!(matches!(nfc("abc"), std::borrow::Cow::Borrowed("abc")));
    assert!(matches!(
        nfc("\u{e9}t\u{e9}"),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn prefix_cut_keeps_whole_graphemes() {
    let long = "é".repeat(150);
    let cut = safe_prefix(&long);
    assert_eq!(cut.len(), 252);
    assert_eq!(safe_prefix(&"p".repeat(256)).len(), 256);
    assert_eq!(safe_prefix(&"p".repeat(257)).len(), 254);
    // a trailing delimiter cannot be extended: it stays (go-cty's SafeKnownPrefix)
    let slash = format!("{}/bbbb", "a".repeat(254));
    assert_eq!(safe_prefix(&slash).len(), 255);
    // a character nothing combines with survives a cut inside the next character
    let emoji = format!("{}\u{1F600}{}", "a".repeat(250), "é".repeat(5));
    assert_eq!(safe_prefix(&emoji).len(), 254);
}

/// The two shapes of issue #21, cut as go-cty v1.19 (go-textseg v15) cuts them.
#[test]
fn prefix_cut_follows_go_textseg_v15() {
    // No conjunct rule: क्क is two clusters, and only the last is dropped.
    let conjunct = format!("{}\u{915}\u{94D}\u{915}{}", "a".repeat(246), "z".repeat(9));
    assert_eq!(safe_prefix(&conjunct).len(), 252);
    // A ZWJ after a Hangul vowel joins the pictograph after it: the whole is dropped.
    let zwj = format!(
        "{}\u{1161}\u{200D}\u{1F468}{}",
        "a".repeat(245),
        "z".repeat(9)
    );
    assert_eq!(safe_prefix(&zwj).len(), 245);
    // The same after a regional indicator, and after a pictograph with a spacing mark.
    let flag = format!(
        "{}\u{1F1E6}\u{200D}\u{1F468}{}",
        "a".repeat(244),
        "z".repeat(9)
    );
    assert_eq!(safe_prefix(&flag).len(), 244);
    let mark = format!(
        "{}\u{1F468}\u{903}\u{200D}\u{1F469}{}",
        "a".repeat(241),
        "z".repeat(9)
    );
    assert_eq!(safe_prefix(&mark).len(), 241);
    // After a letter, the ZWJ stays with the letter and the pictograph is alone.
    let letter = format!("{}b\u{200D}\u{1F468}{}", "a".repeat(247), "z".repeat(9));
    assert_eq!(safe_prefix(&letter).len(), 251);
}

/// go-textseg v15's grammar (`grapheme_clusters.rl`) written as regular expressions
/// over character classes and matched by brute force (every end a pattern can reach,
/// the longest kept): a second reading of it, to hold `grapheme::first_cluster` to.
mod oracle {
    use super::super::grapheme::{class, Class};
    use std::collections::BTreeSet;

    enum Re {
        Is(fn(Class) -> bool),
        Seq(Vec<Re>),
        Alt(Vec<Re>),
        Star(Box<Re>),
        Opt(Box<Re>),
    }
    use Re::*;

    fn is(k: Class) -> Re {
        match k {
            Class::Cr => Is(|c| c == Class::Cr),
            Class::Lf => Is(|c| c == Class::Lf),
            Class::Control => Is(|c| c == Class::Control),
            Class::Extend => Is(|c| c == Class::Extend),
            Class::Zwj => Is(|c| c == Class::Zwj),
            Class::Ri => Is(|c| c == Class::Ri),
            Class::Prepend => Is(|c| c == Class::Prepend),
            Class::L => Is(|c| c == Class::L),
            Class::V => Is(|c| c == Class::V),
            Class::T => Is(|c| c == Class::T),
            Class::LV => Is(|c| c == Class::LV),
            Class::LVT => Is(|c| c == Class::LVT),
            Class::ExtPict => Is(|c| c == Class::ExtPict),
            Class::Other => Is(|c| c == Class::Other),
        }
    }
    fn star(r: Re) -> Re {
        Star(Box::new(r))
    }
    fn opt(r: Re) -> Re {
        Opt(Box::new(r))
    }
    fn plus(k: Class) -> Re {
        Seq(vec![is(k), star(is(k))])
    }

    fn ends(re: &Re, cls: &[Class], i: usize) -> BTreeSet<usize> {
        match re {
            Is(f) => cls
                .get(i)
                .filter(|&&c| f(c))
                .map(|_| i + 1)
                .into_iter()
                .collect(),
            Seq(rs) => rs.iter().fold(BTreeSet::from([i]), |at, r| {
                at.iter().flat_map(|&j| ends(r, cls, j)).collect()
            }),
            Alt(rs) => rs.iter().flat_map(|r| ends(r, cls, i)).collect(),
            Opt(r) => {
                let mut out = ends(r, cls, i);
                out.insert(i);
                out
            }
            Star(r) => {
                let mut all = BTreeSet::from([i]);
                let mut frontier = vec![i];
                while let Some(j) = frontier.pop() {
                    for k in ends(r, cls, j) {
                        if all.insert(k) {
                            frontier.push(k);
                        }
                    }
                }
                all
            }
        }
    }

    fn tokens() -> Vec<Re> {
        use Class::*;
        // ZWJGlue = ZWJ (Extended_Pictographic Extend*)?
        let glue = || Seq(vec![is(Zwj), opt(Seq(vec![is(ExtPict), star(is(Extend))]))]);
        // Extension = (Extend | ZWJGlue | SpacingMark)*
        let extension = || star(Alt(vec![is(Extend), glue()]));
        let hangul = || {
            Seq(vec![
                Alt(vec![
                    Seq(vec![
                        plus(L),
                        Alt(vec![
                            opt(Seq(vec![
                                Alt(vec![Seq(vec![opt(is(LV)), plus(V)]), is(LVT)]),
                                star(is(T)),
                            ])),
                            opt(is(LV)),
                        ]),
                    ]),
                    Seq(vec![is(LV), star(is(V)), star(is(T))]),
                    Seq(vec![plus(V), star(is(T))]),
                    Seq(vec![is(LVT), star(is(T))]),
                    plus(T),
                ]),
                extension(),
            ])
        };
        let emoji = || Seq(vec![is(ExtPict), star(is(Extend)), extension()]);
        let zwj = || Seq(vec![is(Zwj), star(Alt(vec![is(Zwj), is(Extend)]))]);
        let flag = || Seq(vec![is(Ri), opt(is(Ri)), extension()]);
        // OtherSeq: any character but those that start the sequences above
        let other = || {
            Seq(vec![
                Is(|c| matches!(c, Class::Other | Class::Extend)),
                star(Alt(vec![is(Extend), is(Zwj)])),
            ])
        };
        vec![
            Seq(vec![is(Cr), is(Lf)]),
            is(Control),
            hangul(),
            emoji(),
            zwj(),
            flag(),
            Seq(vec![
                plus(Prepend),
                opt(Alt(vec![hangul(), emoji(), zwj(), flag(), other()])),
            ]),
            other(),
        ]
    }

    /// The first cluster's length in bytes, as the longest match of any token.
    pub(super) fn first_cluster(s: &str) -> Option<usize> {
        static TOKENS: std::sync::OnceLock<Vec<Re>> = std::sync::OnceLock::new();
        // The sweep's filler: a letter before a letter is a cluster of its own.
        if s.starts_with("aa") {
            return Some(1);
        }
        // Clusters in the sweep are short; look at a bounded window.
        let chars: Vec<char> = s.chars().take(32).collect();
        let cls: Vec<Class> = chars.iter().map(|&c| class(c)).collect();
        let n = TOKENS
            .get_or_init(tokens)
            .iter()
            .filter_map(|t| ends(t, &cls, 0).into_iter().max())
            .max()
            .filter(|&n| n > 0)?;
        Some(chars[..n].iter().map(|c| c.len_utf8()).sum())
    }
}

/// Characters of every class go-textseg knows, and a few that matter to NFC.
pub(crate) const SWEEP_CHARS: &[char] = &[
    'a',
    '-',
    '\u{E9}',
    '\u{915}',
    '\r',
    '\n',
    '\u{1}',
    '\u{FFFD}',
    '\u{301}',
    '\u{903}',
    '\u{94D}',
    '\u{200C}',
    '\u{FE0F}',
    '\u{1F3FB}',
    '\u{200D}',
    '\u{1F1E6}',
    '\u{1F1E8}',
    '\u{600}',
    '\u{1100}',
    '\u{1161}',
    '\u{11A8}',
    '\u{AC00}',
    '\u{AC01}',
    '\u{1F468}',
    '\u{A9}',
    '\u{2764}',
];

/// Every sequence of one to three of `SWEEP_CHARS`, placed so that the 255-byte cut
/// falls at each of its bytes (and just after it), with the filler before it and text
/// after it: the prefix is cut as the oracle reading of go-textseg v15 says.
#[test]
fn prefix_cut_sweep_agrees_with_the_grammar() {
    let n = SWEEP_CHARS.len();
    let (mut cases, mut cut_in_grapheme_step) = (0, 0);
    for len in 1..=3u32 {
        for code in 0..n.pow(len) {
            let mut seq = String::new();
            let mut c = code;
            for _ in 0..len {
                seq.push(SWEEP_CHARS[c % n]);
                c /= n;
            }
            for at in 1..=seq.len() {
                let s = format!("{}{seq}{}", "a".repeat(255 - at), "z".repeat(8));
                let nfc_s = nfc(&s);
                let b = &nfc_s.as_bytes()[..MAX_PREFIX_LEN - 1];
                let want = safe_known_prefix_with(b, oracle::first_cluster);
                let got = safe_prefix(&s);
                assert_eq!(got.len(), want.len(), "{seq:?} cut after byte {at}");
                cases += 1;
                if std::str::from_utf8(b).is_ok_and(|t| t.chars().next_back().is_some_and(is_inert))
                {
                    cut_in_grapheme_step += 1;
                }
            }
        }
    }
    assert!(cases > 100_000, "{cases}");
    // A quarter of them reach the grapheme scan; the rest stop at the NFC step.
    assert!(
        cut_in_grapheme_step > cases / 5,
        "{cut_in_grapheme_step} of {cases}"
    );
}

/// A small deterministic generator (the tests need no seed file).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Every character the tables say something of, with letters, Hangul syllables and
/// conjoining jamo: the characters where normalization does anything.
fn interesting() -> Vec<char> {
    let mut pool: Vec<char> = super::nfc_table::PROPS
        .iter()
        .filter_map(|e| char::from_u32(e.0))
        .collect();
    pool.extend("aeiouAEIOUnNcCsSzZ ".chars());
    pool.extend([
        '\u{AC00}', '\u{AC01}', '\u{AE4C}', '\u{D7A3}', '\u{1160}', '\u{11FF}',
    ]);
    pool
}

fn random_string(rng: &mut Lcg, pool: &[char], max: usize) -> String {
    (0..1 + rng.below(max))
        .map(|_| pool[rng.below(pool.len())])
        .collect()
}

/// The standard NFC here is the unicode-normalization crate's, on characters Unicode
/// 15.0 has (the crate's tables are newer; none of the pool is).
#[test]
fn unicode_nfc_is_the_standard() {
    use unicode_normalization::UnicodeNormalization;
    let pool = interesting();
    let mut rng = Lcg(7);
    let mut changed = 0;
    for _ in 0..60_000 {
        let s = random_string(&mut rng, &pool, 8);
        let want: String = s.nfc().collect();
        let got = normalize_unicode(&s);
        assert_eq!(
            got,
            want,
            "{:?}",
            s.chars().map(|c| c as u32).collect::<Vec<_>>()
        );
        changed += usize::from(want != s);
    }
    assert!(changed > 20_000, "{changed}");
}

/// Away from the characters its quirks need (astral ones, starters that combine
/// backward or that a compatibility decomposition starts with a mark, long runs of
/// marks), Terraform's NFC is the standard one.
#[test]
fn terraform_nfc_is_the_standard_away_from_its_quirks() {
    let pool: Vec<char> = interesting()
        .into_iter()
        .filter(|&c| {
            let p = Props::of(c);
            let jamo = (0x1100..=0x11FF).contains(&u32::from(c));
            let quirky = p.ccc == 0 && p.lead > 0 && !jamo;
            u32::from(c) < 0x10000 && !quirky
        })
        .collect();
    let mut rng = Lcg(11);
    let mut changed = 0;
    for _ in 0..60_000 {
        let s = random_string(&mut rng, &pool, 8);
        let want = normalize_unicode(&s);
        assert_eq!(
            normalize(&s),
            want,
            "{:?}",
            s.chars().map(|c| c as u32).collect::<Vec<_>>()
        );
        changed += usize::from(want != s);
    }
    assert!(changed > 20_000, "{changed}");
}

#[test]
fn terraform_nfc_composes_by_the_low_16_bits() {
    // U+20041 is a CJK ideograph; its low 16 bits are `A`'s.
    assert_eq!(normalize("\u{20041}\u{301}"), "\u{C1}");
    assert_eq!(normalize("x\u{30065}\u{308}y"), "x\u{EB}y");
    // The second character must combine backward itself: U+10301 does not.
    assert_eq!(normalize("A\u{10301}"), "A\u{10301}");
    // A real astral pair still composes.
    assert_eq!(normalize("\u{11099}\u{110BA}"), "\u{1109A}");
    for s in ["\u{20041}\u{301}", "x\u{30065}\u{308}y"] {
        assert_eq!(normalize_unicode(s), s);
    }
}

#[test]
fn terraform_nfc_lets_marks_pass_some_starters() {
    // U+09BE has class 0 but combines backward; U+05B0 (class 10) is below U+030C (230).
    let s = "U\u{9BE}\u{5B0}\u{30C}";
    assert_eq!(normalize(s), "\u{1D3}\u{9BE}\u{5B0}");
    assert_eq!(normalize_unicode(s), s);
    // U+FF9E starts with a mark only in its compatibility decomposition.
    let s = "A\u{FF9E}\u{5B0}\u{301}";
    assert_eq!(normalize(s), "\u{C1}\u{FF9E}\u{5B0}");
    assert_eq!(normalize_unicode(s), s);
    // Right after such a starter, a mark is tried with it, and stays when nothing comes.
    assert_eq!(normalize("U\u{9BE}\u{30C}"), "U\u{9BE}\u{30C}");
}

#[test]
fn terraform_nfc_is_stream_safe() {
    let s = format!("a{}", "\u{301}".repeat(31));
    let want = format!("\u{E1}{}\u{34F}\u{301}", "\u{301}".repeat(29));
    assert_eq!(normalize(&s), want);
    assert_eq!(
        normalize_unicode(&s),
        format!("\u{E1}{}", "\u{301}".repeat(30))
    );
    // Exactly 30 marks: no joiner.
    let s = format!("a{}", "\u{316}".repeat(30));
    assert_eq!(normalize(&s), s);
    // A syllable with a trailing consonant counts as two non-starters: the joiner comes
    // after 28 marks.
    let s = format!("\u{AC01}{}", "\u{316}".repeat(29));
    assert_eq!(
        normalize(&s),
        format!("\u{AC01}{}\u{34F}\u{316}", "\u{316}".repeat(28))
    );
    // Unordered marks are put in order within each run the joiner delimits.
    let s = format!("a{}\u{316}\u{301}", "\u{301}".repeat(30));
    let got = normalize(&s);
    assert!(got.ends_with("\u{34F}\u{316}\u{301}"), "{got:?}");
}

#[test]
fn the_tables_are_unicode_15() {
    assert_eq!(UNICODE_VERSION, (15, 0, 0));
    // U+0897 ARABIC PEPET (a mark, new in 16.0) is unassigned, so inert.
    assert!(is_inert('\u{897}'));
    assert_eq!(normalize("a\u{897}\u{301}"), "a\u{897}\u{301}");
    // U+1E4EC..U+1E4EF are marks of Nag Mundari (new in 15.0).
    assert_eq!(Props::of('\u{1E4EC}').ccc, 232);
    // Hangul jamo that compose with nothing are inert; the vowels and trailing
    // consonants are not.
    for c in ['\u{1160}', '\u{1176}', '\u{11A7}', '\u{11C3}', '\u{11FF}'] {
        assert!(is_inert(c), "{:X}", c as u32);
    }
    for c in [
        '\u{1161}', '\u{1175}', '\u{11A8}', '\u{11C2}', '\u{FF9E}', '\u{B4}',
    ] {
        assert!(!is_inert(c), "{:X}", c as u32);
    }
}

/// The prefix cut after characters whose facts differ between go-cty's tables and the
/// standard's: a jamo that composes with nothing is inert (so the grapheme scan decides:
/// the last cluster goes), a compatibility character is not (the NFC boundary decides).
#[test]
fn prefix_cut_after_inert_jamo_and_compatibility_characters() {
    // U+1160 ends the 255 bytes: inert, and a cluster of its own after `a`s.
    let s = format!("{}\u{1160}{}", "a".repeat(252), "z".repeat(9));
    assert_eq!(safe_prefix(&s).len(), 252);
    // U+1161 combines with what precedes: the segment from the last starter goes.
    let s = format!("{}\u{1161}{}", "a".repeat(252), "z".repeat(9));
    assert_eq!(safe_prefix(&s).len(), 251);
    // U+00B4 starts a segment of its own that a mark could still extend (its
    // compatibility decomposition ends with one): cut before it, whatever the clusters.
    let s = format!("{}\u{1F1E6}\u{B4}{}", "a".repeat(249), "z".repeat(9));
    assert_eq!(safe_prefix(&s).len(), 253);
}

/// The committed tables are what the scripts write (when Python and the registry's
/// source crates are there; CI has both).
#[test]
fn the_tables_are_generated() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (script, table) in [
        ("scripts/nfc_table.py", "src/text/nfc_table.rs"),
        ("scripts/grapheme_table.py", "src/text/grapheme_table.rs"),
    ] {
        let out = match std::process::Command::new("python3")
            .arg(root.join(script))
            .output()
        {
            Ok(out) if out.status.success() => out.stdout,
            Ok(out) => {
                println!(
                    "skipped {script}: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                continue;
            }
            Err(e) => {
                println!("skipped {script}: no python3 ({e})");
                continue;
            }
        };
        let committed = std::fs::read(root.join(table)).unwrap();
        assert!(
            out == committed,
            "{table} is not what {script} writes: run it"
        );
    }
}

#[test]
fn every_composition_is_found_and_nothing_else() {
    use super::nfc_table::COMPOSITIONS;
    for (a, b, c) in COMPOSITIONS.iter().map(|e| (e.1, e.2, e.3)) {
        let (a, b) = (char::from_u32(a).unwrap(), char::from_u32(b).unwrap());
        let s: String = [a, b].into_iter().collect();
        assert_eq!(
            normalize_unicode(&s),
            char::from_u32(c).unwrap().to_string()
        );
    }
    // No pair: a mark after a letter it has no composite with.
    assert_eq!(normalize("q\u{301}"), "q\u{301}");
    assert_eq!(normalize_unicode("q\u{301}"), "q\u{301}");
}
