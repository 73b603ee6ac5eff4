//! Normalization Form C, twice: as Terraform computes it (golang.org/x/text's `norm`
//! package, which go-cty calls for every string) and as Unicode's UAX #15 defines it,
//! both over the Unicode 15.0.0 facts of `nfc_table`.
//!
//! Terraform's normalizer differs from the standard in a few places, all reproduced here
//! on purpose (the encoder normalizes to write what Terraform would hold):
//!
//! * a composition is looked up by the low 16 bits of both characters, so any character
//!   whose low 16 bits are those of a composition's first one composes like it
//!   (`U+20041 U+0301` gives `Á`);
//! * within a segment, a character with combining class 0 that is not the one a
//!   composition starts from does not block a later mark from it (`U U+09BE U+05B0
//!   U+030C` gives `Ǔ U+09BE U+05B0`), and neither does a starter that only a
//!   compatibility decomposition makes a non-starter (`U+FF9E`);
//! * after more than 30 non-starters in a row it inserts U+034F COMBINING GRAPHEME JOINER
//!   (UAX #15's Stream-Safe Text Format), counting a Hangul syllable's jamo as trailing
//!   non-starters;
//! * a segment holding a Hangul jamo (U+1100..U+11FF) after its first character is
//!   composed by the Hangul rules only from that jamo on.

use std::borrow::Cow;

use super::nfc_table::{COMPOSITIONS, DECOMPOSITIONS, PROPS};

const COMBINES_FORWARD: u8 = 0x20;
const NOT_YES_C: u8 = 0x10;
const COMBINES_BACKWARD: u8 = 0x08;
const DECOMPOSES: u8 = 0x04;
const TRAILING: u8 = 0x03;

const HANGUL_BASE: u32 = 0xAC00;
const HANGUL_END: u32 = HANGUL_BASE + 19 * 21 * 28;
const L_BASE: u32 = 0x1100;
const L_END: u32 = 0x1113;
const V_BASE: u32 = 0x1161;
const V_END: u32 = 0x1176;
/// One before the first trailing consonant (a syllable with no trailing one has T = 0).
const T_BASE: u32 = 0x11A7;
const T_END: u32 = 0x11C3;
const T_COUNT: u32 = 28;
const VT_COUNT: u32 = 21 * 28;

/// The most non-starters in a row before a grapheme joiner goes in.
const MAX_NON_STARTERS: u8 = 30;
const GRAPHEME_JOINER: char = '\u{34F}';

/// A character's normalization facts, as x/text keeps them.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(super) struct Props {
    /// The combining class (of the first character of the decomposition, if any).
    pub(super) ccc: u8,
    pub(super) flags: u8,
    /// Leading non-starters (the trailing ones are in `flags`).
    pub(super) lead: u8,
    start: u16,
    len: u8,
}

impl Props {
    pub(super) fn of(c: char) -> Props {
        let u = u32::from(c);
        if (HANGUL_BASE..HANGUL_END).contains(&u) {
            let lv = (u - HANGUL_BASE) % T_COUNT == 0;
            let flags = if lv {
                DECOMPOSES | COMBINES_FORWARD | 1
            } else {
                DECOMPOSES | 2
            };
            return Props {
                flags,
                ..Props::default()
            };
        }
        let found = match bmp_index().get(u as usize) {
            Some(&0) => None,
            Some(&i) => Some(usize::from(i) - 1),
            None => PROPS.binary_search_by_key(&u, |e| e.0).ok(),
        };
        match found {
            Some(i) => {
                let (_, ccc, flags, lead, start, len) = PROPS[i];
                Props {
                    ccc,
                    flags,
                    lead,
                    start,
                    len,
                }
            }
            None => Props::default(),
        }
    }

    fn combines_backward(self) -> bool {
        self.flags & COMBINES_BACKWARD != 0
    }

    fn is_yes_c(self) -> bool {
        self.flags & NOT_YES_C == 0
    }

    pub(super) fn trailing(self) -> u8 {
        self.flags & TRAILING
    }

    /// Nothing before or after can change this character (x/text's `BoundaryAfter`).
    pub(super) fn is_inert(self) -> bool {
        self.flags & 0x3F == 0 && self.ccc == 0
    }

    /// Nothing before this character can combine with it (x/text's `BoundaryBefore`).
    fn boundary_before(self) -> bool {
        self.ccc == 0 && !self.combines_backward()
    }

    fn decomposition(self) -> &'static [char] {
        if self.flags & DECOMPOSES == 0 {
            return &[];
        }
        let start = usize::from(self.start);
        DECOMPOSITIONS
            .get(start..start + usize::from(self.len))
            .unwrap_or(&[])
    }
}

/// For each character of the Basic Multilingual Plane, one more than the index of its
/// entry in `PROPS` (0: none), made once: a lookup is one load, not a search.
fn bmp_index() -> &'static [u16] {
    static INDEX: std::sync::OnceLock<Box<[u16]>> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = vec![0u16; 0x10000];
        for (i, e) in PROPS.iter().enumerate() {
            if let (Some(slot), Ok(n)) = (index.get_mut(e.0 as usize), u16::try_from(i + 1)) {
                *slot = n;
            }
        }
        index.into_boxed_slice()
    })
}

/// What the stream-safe count says of the next character.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Step {
    /// It continues the segment.
    Continue,
    /// It starts a new segment.
    Starter,
    /// Too many non-starters: a grapheme joiner goes before it.
    Overflow,
}

/// The count of non-starters in a row (x/text's `streamSafe`).
#[derive(Clone, Copy, Default)]
pub(super) struct StreamSafe(u8);

impl StreamSafe {
    fn next(&mut self, p: Props) -> Step {
        self.0 += p.lead;
        if self.0 > MAX_NON_STARTERS {
            self.0 = 0;
            return Step::Overflow;
        }
        if p.lead == 0 {
            self.0 = p.trailing();
            return Step::Starter;
        }
        Step::Continue
    }

    /// The count going backwards, from the end of a text.
    pub(super) fn backwards(&mut self, p: Props) -> Step {
        let c = self.0 + p.trailing();
        if c > MAX_NON_STARTERS {
            return Step::Overflow;
        }
        self.0 = c;
        if p.lead == 0 {
            Step::Starter
        } else {
            Step::Continue
        }
    }
}

/// The composite of `a` and `b` as x/text finds it: by the low 16 bits of each.
fn combine_terraform(a: char, b: char) -> Option<char> {
    let i = composition_of(truncated_key(a, b))?;
    char::from_u32(COMPOSITIONS[i].3)
}

/// x/text's key of a pair: the low 16 bits of each character, the first's above.
fn truncated_key(a: char, b: char) -> u32 {
    ((u32::from(a) & 0xFFFF) << 16) | (u32::from(b) & 0xFFFF)
}

/// Slots of the composition hash table: a power of two, at least twice the entries.
const SLOTS: usize = 4096;

/// Where `key` is in `COMPOSITIONS`, through an open-addressing table built once (a
/// composition is looked up for every mark that follows a starter).
fn composition_of(key: u32) -> Option<usize> {
    static TABLE: std::sync::OnceLock<Box<[(u32, u16)]>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = vec![(0u32, 0u16); SLOTS];
        for (i, e) in COMPOSITIONS.iter().enumerate() {
            let mut slot = slot_of(e.0);
            while t[slot].1 != 0 {
                slot = (slot + 1) % SLOTS;
            }
            // 1 + the index: 0 marks an empty slot.
            t[slot] = (e.0, u16::try_from(i + 1).unwrap_or(0));
        }
        t.into_boxed_slice()
    });
    let mut slot = slot_of(key);
    loop {
        let (k, i) = *table.get(slot)?;
        if i == 0 {
            return None;
        }
        if k == key {
            return Some(usize::from(i) - 1);
        }
        slot = (slot + 1) % SLOTS;
    }
}

fn slot_of(key: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B1) >> 20) as usize % SLOTS
}

/// The primary composite of `a` and `b`, Hangul included.
fn combine_unicode(a: char, b: char) -> Option<char> {
    if let Some(x) = combine_hangul(a, b) {
        return Some(x);
    }
    let i = composition_of(truncated_key(a, b))?;
    let (_, first, second, composite) = COMPOSITIONS[i];
    (first == u32::from(a) && second == u32::from(b))
        .then(|| char::from_u32(composite))
        .flatten()
}

/// A leading consonant and a vowel, or an LV syllable and a trailing consonant, composed.
fn combine_hangul(a: char, b: char) -> Option<char> {
    let (l, v) = (u32::from(a), u32::from(b));
    if (L_BASE..L_END).contains(&l) && (V_BASE..V_END).contains(&v) {
        return char::from_u32(HANGUL_BASE + (l - L_BASE) * VT_COUNT + (v - V_BASE) * T_COUNT);
    }
    if (HANGUL_BASE..HANGUL_END).contains(&l)
        && T_BASE < v
        && v < T_END
        && (l - HANGUL_BASE) % T_COUNT == 0
    {
        return char::from_u32(l + v - T_BASE);
    }
    None
}

fn is_hangul(c: char) -> bool {
    (HANGUL_BASE..HANGUL_END).contains(&u32::from(c))
}

/// The jamo of a Hangul syllable.
fn hangul_jamo(c: char) -> impl Iterator<Item = char> {
    let s = u32::from(c) - HANGUL_BASE;
    let t = s % T_COUNT;
    let lv = s / T_COUNT;
    [
        Some(L_BASE + lv / 21),
        Some(V_BASE + lv % 21),
        (t != 0).then_some(T_BASE + t),
    ]
    .into_iter()
    .flatten()
    .filter_map(char::from_u32)
}

/// The character at byte `i` of `s` and its length.
fn char_at(s: &str, i: usize) -> (char, usize) {
    match s.get(i..).and_then(|r| r.chars().next()) {
        Some(c) => (c, c.len_utf8()),
        // `i` is always a character boundary here.
        None => ('\0', 1),
    }
}

/// NFC as Terraform computes it (see the module's documentation).
pub(crate) fn terraform(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    let (n, normal) = quick_span(s, 0);
    if normal {
        return Cow::Borrowed(s);
    }
    let mut r = Reorder {
        src: s,
        out: String::with_capacity(s.len() + 8),
        buf: Vec::new(),
        ss: StreamSafe::default(),
    };
    r.out.push_str(&s[..n]);
    let mut p = n;
    while p < s.len() {
        p = r.segment(p);
        p = r.append_quick(p);
    }
    if r.out == s {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(r.out)
    }
}

/// Where the text from `i` on stops being certainly normal (x/text's `quickSpan`): the
/// start of the segment where it stops, and whether it reached the end.
fn quick_span(s: &str, mut i: usize) -> (usize, bool) {
    let b = s.as_bytes();
    let n = b.len();
    let mut last_cc = 0u8;
    let mut ss = StreamSafe::default();
    let mut segment = i;
    while i < n {
        if b[i] < 0x80 {
            while i < n && b[i] < 0x80 {
                i += 1;
            }
            segment = i - 1;
            last_cc = 0;
            ss = StreamSafe::default();
            continue;
        }
        let (c, size) = char_at(s, i);
        let p = Props::of(c);
        match ss.next(p) {
            Step::Starter => segment = i,
            Step::Overflow => return (segment, false),
            Step::Continue if last_cc > p.ccc => return (segment, false),
            Step::Continue => {}
        }
        if !p.is_yes_c() {
            return (segment, false);
        }
        last_cc = p.ccc;
        i += size;
    }
    (n, true)
}

#[derive(Clone, Copy)]
struct Entry {
    c: char,
    ccc: u8,
    flags: u8,
}

impl Entry {
    /// A character the buffer made (a jamo, a composite, a joiner): no facts kept.
    fn bare(c: char) -> Entry {
        Entry {
            c,
            ccc: 0,
            flags: 0,
        }
    }
}

/// x/text's reorder buffer: one segment, decomposed, ordered, then composed.
struct Reorder<'a> {
    src: &'a str,
    out: String,
    buf: Vec<Entry>,
    ss: StreamSafe,
}

impl Reorder<'_> {
    /// Copies the normal text from `i` on; returns where it stopped.
    fn append_quick(&mut self, i: usize) -> usize {
        if i >= self.src.len() {
            return i;
        }
        let (end, _) = quick_span(self.src, i);
        self.out.push_str(&self.src[i..end]);
        end
    }

    /// Normalizes the segment at `sp` into `out`; returns where the next one starts.
    fn segment(&mut self, mut sp: usize) -> usize {
        let (c, mut size) = char_at(self.src, sp);
        let p = Props::of(c);
        match self.ss.next(p) {
            Step::Starter if !self.buf.is_empty() => {
                self.flush();
                return sp;
            }
            Step::Overflow => {
                self.buf.push(Entry::bare(GRAPHEME_JOINER));
                self.flush();
                return sp;
            }
            _ => {}
        }
        self.insert(c, p);
        loop {
            sp += size;
            if sp >= self.src.len() {
                break;
            }
            let (c, n) = char_at(self.src, sp);
            size = n;
            let p = Props::of(c);
            match self.ss.next(p) {
                Step::Starter => break,
                Step::Overflow => {
                    self.buf.push(Entry::bare(GRAPHEME_JOINER));
                    break;
                }
                Step::Continue => {}
            }
            self.insert(c, p);
        }
        self.flush();
        sp
    }

    fn insert(&mut self, c: char, p: Props) {
        if is_hangul(c) {
            self.buf.extend(hangul_jamo(c).map(Entry::bare));
        } else if p.flags & DECOMPOSES != 0 {
            for &d in p.decomposition() {
                let q = Props::of(d);
                if q.boundary_before() && !self.buf.is_empty() {
                    self.flush();
                }
                self.insert_ordered(d, q);
            }
        } else {
            self.insert_ordered(c, p);
        }
    }

    fn insert_ordered(&mut self, c: char, p: Props) {
        let e = Entry {
            c,
            ccc: p.ccc,
            flags: p.flags,
        };
        let mut n = self.buf.len();
        if p.ccc > 0 {
            while n > 0 && self.buf[n - 1].ccc > p.ccc {
                n -= 1;
            }
        }
        self.buf.insert(n, e);
    }

    fn flush(&mut self) {
        self.compose();
        self.out.extend(self.buf.iter().map(|e| e.c));
        self.buf.clear();
    }

    fn compose(&mut self) {
        let b = &mut self.buf;
        let n = b.len();
        if n == 0 {
            return;
        }
        let (mut s, mut k) = (0, 1);
        for i in 1..n {
            if u32::from(b[i].c) & !0xFF == 0x1100 {
                return Self::compose_hangul(b, s, i, k);
            }
            let e = b[i];
            if e.flags & COMBINES_BACKWARD != 0 {
                let before = b[k - 1].ccc;
                let mut blocked = false;
                if before == 0 {
                    s = k - 1;
                } else {
                    blocked = s != k - 1 && before >= e.ccc;
                }
                if !blocked {
                    if let Some(x) = combine_terraform(b[s].c, e.c) {
                        b[s] = Entry::bare(x);
                        continue;
                    }
                }
            }
            b[k] = e;
            k += 1;
        }
        b.truncate(k);
    }

    /// The rest of a segment from a jamo on, composed by the Hangul rules only.
    fn compose_hangul(b: &mut Vec<Entry>, mut s: usize, from: usize, mut k: usize) {
        for i in from..b.len() {
            let (before, here) = (b[k - 1].ccc, b[i].ccc);
            if before == 0 {
                s = k - 1;
            }
            if s != k - 1 && before >= here {
                b[k] = b[i];
                k += 1;
                continue;
            }
            let made = combine_hangul(b[s].c, b[i].c);
            match made {
                Some(x) => b[s] = Entry::bare(x),
                None => {
                    b[k] = b[i];
                    k += 1;
                }
            }
        }
        b.truncate(k);
    }
}

/// UAX #15's quick check: every character NFC_QC Yes and the marks in order.
fn unicode_quick_check(s: &str) -> bool {
    let mut last = 0u8;
    for c in s.chars() {
        if c.is_ascii() {
            last = 0;
            continue;
        }
        let p = Props::of(c);
        if !p.is_yes_c() || (p.ccc != 0 && last > p.ccc) {
            return false;
        }
        last = p.ccc;
    }
    true
}

/// NFC as UAX #15 defines it, with the Unicode 15.0.0 facts.
pub(crate) fn unicode(s: &str) -> Cow<'_, str> {
    if s.is_ascii() || unicode_quick_check(s) {
        return Cow::Borrowed(s);
    }
    // The canonical decomposition, in canonical order.
    let mut d: Vec<(char, u8)> = Vec::with_capacity(s.len());
    let mut push = |c: char| {
        let ccc = Props::of(c).ccc;
        let mut n = d.len();
        if ccc > 0 {
            while n > 0 && d[n - 1].1 > ccc {
                n -= 1;
            }
        }
        d.insert(n, (c, ccc));
    };
    for c in s.chars() {
        if is_hangul(c) {
            hangul_jamo(c).for_each(&mut push);
        } else {
            let p = Props::of(c);
            match p.decomposition() {
                [] => push(c),
                parts => parts.iter().copied().for_each(&mut push),
            }
        }
    }
    // Canonical composition: a character joins the last starter unless something between
    // them is a starter or has a class as high as its own.
    let mut out: Vec<char> = Vec::with_capacity(d.len());
    let mut starter: Option<usize> = None;
    // The class of the last character kept after the starter, if any.
    let mut last: Option<u8> = None;
    for (c, ccc) in d {
        if let Some(si) = starter {
            let blocked = last.is_some_and(|l| l == 0 || l >= ccc);
            if !blocked {
                if let Some(x) = combine_unicode(out[si], c) {
                    out[si] = x;
                    continue;
                }
            }
        }
        if ccc == 0 {
            starter = Some(out.len());
            last = None;
        } else {
            last = Some(ccc);
        }
        out.push(c);
    }
    if out.iter().copied().eq(s.chars()) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(out.into_iter().collect())
    }
}
