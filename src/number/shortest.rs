//! The decimal text go-cty writes for a float64.
//!
//! go-cty holds a float64 that came off the wire as a `big.Float` of 53 bits
//! (`SetFloat64`) and writes it with `Text('f', -1)`. What math/big's `ftoa.go`
//! (`roundShortest`) and `decimal.go` do there, stated as a rule:
//!
//! * The value is `M * 2^e` with a full 53-bit mantissa `M` (in `2^52..2^53`) and an
//!   unbounded exponent, so a subnormal float64 is normalized like any other and keeps
//!   53 bits of precision: `5e-324` is `2^-1074` held exactly, and its text needs the
//!   digits a 53-bit neighbour would, `0.000…4940656458412465`, where the IEEE shortest
//!   text is `5e-324`.
//! * The candidates are the decimals within half an ulp of `M` on either side,
//!   `[v - 2^(e-1), v + 2^(e-1)]`, both ends included only when `M` is even (round half
//!   to even would then read them back as `v`). The lower half-ulp is the same as the
//!   upper one even when `M` is a power of two, where the float below is only a quarter
//!   of an ulp away: math/big does not narrow it, so for 263 of the 2,098 powers of two
//!   the text has one digit fewer than the correctly rounded shortest text and reads
//!   back as the float below (`2^653`).
//! * Of those candidates, the ones with the fewest significant digits; of those, the
//!   one closest to `v`; of two equally close, the one whose last digit is even
//!   (`70368744177664.125` is `70368744177664.12`).
//! * Written in plain notation, never with an exponent; a negative value, and the
//!   float64 `-0.0`, with a leading `-`.
//!
//! Digits are generated as in Steele & White's free-format algorithm, on integers
//! scaled so that every comparison is exact: `r / s` is the value still to be written,
//! `m / s` half an ulp, both in units of the digit being generated.

use std::cmp::Ordering;

/// Enough 32-bit limbs for every number the digit generation holds: the largest is
/// `10 * s` for the smallest subnormal, below `2^1131`.
const LIMBS: usize = 40;

/// A non-negative integer of at most [`LIMBS`] limbs, least significant first.
#[derive(Clone, Copy)]
struct Big {
    len: usize,
    limbs: [u32; LIMBS],
}

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big {
            len: 0,
            limbs: [0; LIMBS],
        };
        b.limbs[0] = v as u32;
        b.limbs[1] = (v >> 32) as u32;
        b.len = if v >> 32 != 0 { 2 } else { usize::from(v != 0) };
        b
    }

    fn push(&mut self, limb: u32) {
        // The callers' magnitudes are bounded (see LIMBS), so there is always room.
        if let Some(slot) = self.limbs.get_mut(self.len) {
            *slot = limb;
            self.len += 1;
        }
    }

    fn mul_small(&mut self, x: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs[..self.len] {
            let t = u64::from(*limb) * u64::from(x) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry != 0 {
            self.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut k: u32) {
        while k >= 9 {
            self.mul_small(1_000_000_000);
            k -= 9;
        }
        if k > 0 {
            self.mul_small(10u32.pow(k));
        }
    }

    fn shl(&mut self, k: u32) {
        let (words, bits) = ((k / 32) as usize, k % 32);
        if self.len == 0 {
            return;
        }
        if bits != 0 {
            let mut carry = 0u32;
            for limb in &mut self.limbs[..self.len] {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry != 0 {
                self.push(carry);
            }
        }
        if words > 0 {
            let len = (self.len + words).min(LIMBS);
            self.limbs.copy_within(..len - words, words);
            self.limbs[..words].fill(0);
            self.len = len;
        }
    }

    fn add(&self, other: &Big) -> Big {
        let mut out = *self;
        let n = self.len.max(other.len);
        let mut carry = 0u64;
        for i in 0..n {
            let t = u64::from(self.limbs[i]) + u64::from(other.limbs[i]) + carry;
            out.limbs[i] = t as u32;
            carry = t >> 32;
        }
        out.len = n;
        if carry != 0 {
            out.push(carry as u32);
        }
        out
    }

    /// `self -= other`, for `self >= other`.
    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.len {
            let t = i64::from(self.limbs[i]) - i64::from(other.limbs[i]) - borrow;
            self.limbs[i] = t as u32;
            borrow = i64::from(t < 0);
        }
        while self.len > 0 && self.limbs[self.len - 1] == 0 {
            self.len -= 1;
        }
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.len.cmp(&other.len).then_with(|| {
            self.limbs[..self.len]
                .iter()
                .rev()
                .cmp(other.limbs[..other.len].iter().rev())
        })
    }
}

/// The decimal `0.d1 d2 … dn * 10^point` (Go's `decimal`), `n <= 17`.
pub(crate) struct Shortest {
    neg: bool,
    digits: [u8; 20],
    len: usize,
    point: i32,
}

impl Shortest {
    /// The text of the finite `f` (see the module docs); `None` for NaN and the
    /// infinities.
    pub(crate) fn of(f: f64) -> Option<Shortest> {
        Shortest::of_with(f, true)
    }

    /// [`Shortest::of`], with or without the fast path (tests compare the two).
    fn of_with(f: f64, fast: bool) -> Option<Shortest> {
        if !f.is_finite() {
            return None;
        }
        let bits = f.to_bits();
        let mut out = Shortest {
            neg: bits >> 63 != 0,
            digits: [0; 20],
            len: 0,
            point: 0,
        };
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let (mut mant, mut exp) = match biased {
            0 if fraction == 0 => return Some(out),
            0 => (fraction, -1074),
            _ => (fraction | (1 << 52), biased - 1075),
        };
        // A normal float that is not a power of two has the same interval here as in
        // the IEEE shortest text Rust writes, and the same choice in it but at a tie.
        if fast && biased != 0 && fraction != 0 {
            if let Some(fast) = Shortest::fast(f, out.neg, mant, exp) {
                return Some(fast);
            }
        }
        // A full 53-bit mantissa, as big.Float holds a subnormal too.
        let shift = mant.leading_zeros() - 11;
        mant <<= shift;
        exp -= shift as i32;
        out.generate(mant, exp);
        Some(out)
    }

    /// The text of the normal float `f = ±mant * 2^exp` (not a power of two) from Rust's
    /// shortest text (`{:e}`), which picks from the same candidates as math/big (the
    /// decimals within half an ulp, ends included when `mant` is even; the fewest digits;
    /// the nearest) and differs only at a tie between two nearest, which Rust rounds up
    /// and math/big to an even last digit. `None` where a tie may be (the exact value has
    /// one digit more than the text), or anything is unexpected: the digits are then
    /// generated below. `tests` compares both on random and tie-prone floats.
    fn fast(f: f64, neg: bool, mant: u64, exp: i32) -> Option<Shortest> {
        use std::fmt::Write;
        let mut text = Text::default();
        write!(text, "{:e}", f.abs()).ok()?;
        let text = text.bytes.get(..text.len)?;
        let e_at = text.iter().position(|&b| b == b'e')?;
        let exponent: i32 = std::str::from_utf8(text.get(e_at + 1..)?)
            .ok()?
            .parse()
            .ok()?;
        let mut out = Shortest {
            neg,
            digits: [0; 20],
            len: 0,
            point: exponent.checked_add(1)?,
        };
        for &b in text.get(..e_at)? {
            match b {
                b'.' => {}
                b'0'..=b'9' if out.len < 17 => out.push_digit(b - b'0'),
                _ => return None,
            }
        }
        out.trim();
        if out.len == 0 || exact_digits(mant, exp).is_none_or(|d| d == out.len + 1) {
            return None;
        }
        Some(out)
    }

    /// The digits of `mant * 2^exp` (`mant` of exactly 53 bits).
    fn generate(&mut self, mant: u64, exp: i32) {
        let inclusive = mant & 1 == 0;
        // r / s = v and m / s = half an ulp.
        let (mut r, mut s, mut m);
        if exp >= 0 {
            r = Big::from_u64(mant);
            r.shl(exp.unsigned_abs() + 1);
            s = Big::from_u64(2);
            m = Big::from_u64(1);
            m.shl(exp.unsigned_abs());
        } else {
            r = Big::from_u64(mant << 1);
            s = Big::from_u64(1);
            s.shl(1 + exp.unsigned_abs());
            m = Big::from_u64(1);
        }
        // The position of the leading digit, 10^(point-1) <= v < 10^point: v is in
        // [2^(exp+52), 2^(exp+53)), so the estimate is exact or one short.
        let mut point = (f64::from(exp + 52) * std::f64::consts::LOG10_2).floor() as i32 + 1;
        if point >= 0 {
            s.mul_pow10(point.unsigned_abs());
        } else {
            r.mul_pow10(point.unsigned_abs());
            m.mul_pow10(point.unsigned_abs());
        }
        while r.cmp(&s) != Ordering::Less {
            s.mul_small(10);
            point += 1;
        }
        // (Never taken with the estimate above; kept so a first digit is never 0.)
        while {
            let mut ten_r = r;
            ten_r.mul_small(10);
            ten_r.cmp(&s) == Ordering::Less
        } {
            r.mul_small(10);
            m.mul_small(10);
            point -= 1;
        }
        self.point = point;
        // One digit a step, until the truncation or its round-up lies in the interval.
        while self.len < self.digits.len() {
            r.mul_small(10);
            m.mul_small(10);
            let mut digit = 0u8;
            while r.cmp(&s) != Ordering::Less && digit < 9 {
                r.sub_assign(&s);
                digit += 1;
            }
            let low = match r.cmp(&m) {
                Ordering::Less => true,
                Ordering::Equal => inclusive,
                Ordering::Greater => false,
            };
            let high = match r.add(&m).cmp(&s) {
                Ordering::Greater => true,
                Ordering::Equal => inclusive,
                Ordering::Less => false,
            };
            let up = match (low, high) {
                (false, false) => {
                    self.push_digit(digit);
                    continue;
                }
                (true, false) => false,
                (false, true) => true,
                // Both in the interval: the nearer; at a tie, the even last digit.
                (true, true) => match r.add(&r).cmp(&s) {
                    Ordering::Less => false,
                    Ordering::Greater => true,
                    Ordering::Equal => digit % 2 == 1,
                },
            };
            if up {
                self.push_digit(digit);
                self.round_up();
            } else {
                self.push_digit(digit);
                self.trim();
            }
            return;
        }
    }

    fn push_digit(&mut self, d: u8) {
        if let Some(slot) = self.digits.get_mut(self.len) {
            *slot = d;
            self.len += 1;
        }
    }

    /// Adds one unit in the last digit, dropping the nines that carry.
    fn round_up(&mut self) {
        while self.len > 0 && self.digits[self.len - 1] == 9 {
            self.len -= 1;
        }
        if self.len == 0 {
            self.digits[0] = 1;
            self.len = 1;
            self.point += 1;
        } else {
            self.digits[self.len - 1] += 1;
        }
    }

    fn trim(&mut self) {
        while self.len > 0 && self.digits[self.len - 1] == 0 {
            self.len -= 1;
        }
    }

    /// Appends the text in plain notation (`0.001`, `12.5`, `1200`, `-0`).
    pub(crate) fn write_to(&self, out: &mut Vec<u8>) {
        if self.neg {
            out.push(b'-');
        }
        let digits = self.digits[..self.len].iter().map(|d| b'0' + d);
        let n = self.len as i64;
        let point = i64::from(self.point);
        if self.len == 0 {
            out.push(b'0');
        } else if point <= 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', point.unsigned_abs() as usize));
            out.extend(digits);
        } else if point < n {
            let (int, frac) = self.digits[..self.len].split_at(point as usize);
            out.extend(int.iter().map(|d| b'0' + d));
            out.push(b'.');
            out.extend(frac.iter().map(|d| b'0' + d));
        } else {
            out.extend(digits);
            out.extend(std::iter::repeat_n(b'0', (point - n) as usize));
        }
    }

    /// The text as a `String`.
    pub(crate) fn to_text(&self) -> String {
        let mut out = Vec::with_capacity(24);
        self.write_to(&mut out);
        // Only ASCII digits, '.', and '-' were written.
        String::from_utf8(out).unwrap_or_default()
    }
}

/// A float's `{:e}` text (at most 24 bytes for an `f64`), written without allocating.
#[derive(Default)]
struct Text {
    bytes: [u8; 32],
    len: usize,
}

impl std::fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// How many significant digits the exact decimal value of `mant * 2^exp` has:
/// `Some(usize::MAX)` for 39 or more (the value needs more than 128 bits), `None` for
/// an integer past 2^127 (its digits are not worked out; the caller takes the slow way).
fn exact_digits(mant: u64, exp: i32) -> Option<usize> {
    let zeros = mant.trailing_zeros();
    let odd = u128::from(mant >> zeros);
    let exp = exp + zeros as i32;
    let significant = if exp < 0 {
        // odd / 2^k = odd * 5^k / 10^k: the digits of odd * 5^k, which ends in 5.
        match 5u128
            .checked_pow(exp.unsigned_abs())
            .and_then(|p| odd.checked_mul(p))
        {
            Some(v) => v,
            // Past 2^128: 39 digits or more.
            None => return Some(usize::MAX),
        }
    } else if exp <= 74 {
        // An integer below 2^127, its trailing zeros not significant.
        let mut v = odd << exp;
        while v % 10 == 0 {
            v /= 10;
        }
        v
    } else {
        return None;
    };
    Some(significant.checked_ilog10().map_or(1, |l| l as usize + 1))
}

/// go-cty's text of the finite float64 `f` (see the module docs), or `None` for NaN and
/// the infinities.
pub(crate) fn float_text(f: f64) -> Option<String> {
    Shortest::of(f).map(|s| s.to_text())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn text(f: f64) -> String {
        float_text(f).unwrap()
    }

    /// The fast path (Rust's shortest text, ties set aside) gives the digit
    /// generation's text on random floats, and on floats made to have few digits, where
    /// ties are: halves, quarters and eighths of integers, integers times powers of two,
    /// short decimals, and the tie of the module docs.
    #[test]
    fn the_fast_path_writes_what_the_digit_generation_writes() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut floats = vec![f64::from_bits(0x42d0000000000008), 0.1, 0.3, 1e23, 5e-310];
        for _ in 0..100_000 {
            floats.push(f64::from_bits(next()));
        }
        for _ in 0..20_000 {
            let k = next() >> (11 + next() % 40);
            let j = (next() % 90) as i32;
            floats.push(k as f64 / 2f64.powi(j));
            floats.push(k as f64 * 2f64.powi(j));
            floats.push(k as f64 + 0.5);
            floats.push(k as f64 + 0.125);
            floats.push(
                format!("{}.{}", next() % 100_000, next() % 1_000_000)
                    .parse()
                    .unwrap(),
            );
            floats.push(
                format!("{}e{}", next() % 1_000_000_000, (next() % 60) as i32 - 30)
                    .parse()
                    .unwrap(),
            );
        }
        let (mut taken, mut declined) = (0, 0);
        for f in floats {
            for f in [f, -f] {
                let Some(slow) = Shortest::of_with(f, false) else {
                    continue;
                };
                let got = Shortest::of(f).unwrap();
                let bits = f.to_bits();
                assert_eq!(got.to_text(), slow.to_text(), "{f:e} ({bits:#x})");
                let biased = ((bits >> 52) & 0x7ff) as i32;
                let fraction = bits & ((1 << 52) - 1);
                if biased != 0 && fraction != 0 {
                    let mant = fraction | (1 << 52);
                    match Shortest::fast(f, bits >> 63 != 0, mant, biased - 1075) {
                        Some(_) => taken += 1,
                        None => declined += 1,
                    }
                }
            }
        }
        // Most floats take the fast path; the ones with a tie (and big integers) do not.
        assert!(taken > 250_000, "{taken} taken, {declined} declined");
        assert!(declined > 1_000, "{taken} taken, {declined} declined");
    }

    #[test]
    fn the_issue_cases() {
        assert_eq!(
            text(f64::from_bits(0x42d0000000000008)),
            "70368744177664.12"
        );
        let min = text(f64::from_bits(1));
        assert!(min.ends_with("4940656458412465"), "{min}");
        assert_eq!(min.len(), "0.".len() + 323 + 16);
        assert_eq!(text(0.1), "0.1");
        assert_eq!(text(-0.0), "-0");
        assert_eq!(text(0.0), "0");
        assert_eq!(text(1e23), "100000000000000000000000");
        assert_eq!(text(2f64.powi(63)), "9223372036854776000");
        assert!(float_text(f64::NAN).is_none());
        assert!(float_text(f64::INFINITY).is_none());
    }
}
