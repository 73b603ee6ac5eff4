//! The text a float64 is written as (JSON, `Display`): go-cty's `big.Float.Text('f', -1)`
//! of the float held at 53 bits, checked against the rule it states, with exact integer
//! arithmetic written here (none of the library's):
//!
//! * the text lies in `[v - h, v + h]`, `h` half an ulp of the 53-bit mantissa `M` (a
//!   subnormal normalized to 53 bits), the ends included only when `M` is even;
//! * no decimal with fewer significant digits lies there;
//! * of the two decimals with as many digits either side of `v`, it is the nearer one,
//!   or as near and ending in an even digit;
//! * it reads back as the float (as `f64::from_str` reads it), except for a power of two,
//!   where math/big's lower bound is half an ulp of the binade above, so the text may read
//!   back as the float below.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cmp::Ordering;

use proptest::prelude::*;
use tfvalue::{Number, Type, Value};

/// A natural number, base 2^32, least significant limb first, no trailing zero limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Nat(Vec<u32>);

impl Nat {
    fn from_u64(v: u64) -> Nat {
        let mut n = Nat(vec![v as u32, (v >> 32) as u32]);
        n.trim();
        n
    }

    fn from_decimal(s: &str) -> Nat {
        let mut n = Nat(Vec::new());
        for b in s.bytes() {
            n.mul_add(10, u32::from(b - b'0'));
        }
        n
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let t = u64::from(*limb) * u64::from(m) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    fn times_pow(&self, base: u32, k: u32) -> Nat {
        let mut n = self.clone();
        for _ in 0..k {
            n.mul_add(base, 0);
        }
        n
    }

    fn cmp(&self, other: &Nat) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// `|self - other|`.
    fn abs_diff(&self, other: &Nat) -> Nat {
        let (a, b) = match self.cmp(other) {
            Ordering::Less => (other, self),
            _ => (self, other),
        };
        let mut out = a.clone();
        let mut borrow = 0i64;
        for i in 0..out.0.len() {
            let t = i64::from(out.0[i]) - i64::from(*b.0.get(i).unwrap_or(&0)) - borrow;
            out.0[i] = t.rem_euclid(1 << 32) as u32;
            borrow = i64::from(t < 0);
        }
        out.trim();
        out
    }
}

/// `n * 2^p2 * 10^p10`.
#[derive(Clone, Debug)]
struct Exact {
    n: Nat,
    p2: i64,
    p10: i64,
}

/// The values at one scale, as naturals that compare and subtract like the values.
fn common(values: &[&Exact]) -> Vec<Nat> {
    let m2 = values.iter().map(|v| v.p2).min().unwrap();
    let m10 = values.iter().map(|v| v.p10).min().unwrap();
    values
        .iter()
        .map(|v| {
            v.n.times_pow(2, (v.p2 - m2) as u32)
                .times_pow(10, (v.p10 - m10) as u32)
        })
        .collect()
}

/// A plain decimal text (as written: no exponent) as `digits * 10^k`, digits without
/// trailing zeros; and its sign.
fn parse_text(t: &str) -> (bool, String, i64) {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    assert!(!body.contains(['e', 'E', '+']), "{t}");
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    assert!(frac.is_empty() || !frac.ends_with('0'), "{t}");
    assert!(int == "0" || !int.starts_with('0'), "{t}");
    let mut digits = format!("{int}{frac}").trim_start_matches('0').to_owned();
    let mut k = -(frac.len() as i64);
    while digits.ends_with('0') {
        digits.pop();
        k += 1;
    }
    (neg, digits, k)
}

/// `(M, e)` with the float's magnitude `M * 2^e`, `M` of 53 bits.
fn mantissa(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1 << 52) - 1);
    let (mut m, mut e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    while m < 1 << 52 {
        m <<= 1;
        e -= 1;
    }
    (m, e)
}

/// Checks `text` against the rule for the finite, non-zero `x`; an error says which part
/// fails.
fn check(x: f64, text: &str) -> Result<(), String> {
    let (neg, digits, k) = parse_text(text);
    if neg != x.is_sign_negative() {
        return Err("sign".into());
    }
    let (m, e) = mantissa(x);
    let inclusive = m % 2 == 0;
    let at = |n: Nat, p10: i64| Exact { n, p2: 0, p10 };
    let v = Exact {
        n: Nat::from_u64(2 * m),
        p2: e - 1,
        p10: 0,
    };
    let lo = Exact {
        n: Nat::from_u64(2 * m - 1),
        p2: e - 1,
        p10: 0,
    };
    let hi = Exact {
        n: Nat::from_u64(2 * m + 1),
        p2: e - 1,
        p10: 0,
    };
    let inside = |c: &Exact| {
        let s = common(&[c, &lo, &hi]);
        match (s[0].cmp(&s[1]), s[0].cmp(&s[2])) {
            (Ordering::Less, _) | (_, Ordering::Greater) => false,
            (Ordering::Equal, _) | (_, Ordering::Equal) => inclusive,
            _ => true,
        }
    };
    let t = at(Nat::from_decimal(&digits), k);
    if !inside(&t) {
        return Err("not within half an ulp".into());
    }
    // Fewer digits: a multiple of 10^(k+1); the two around t would be inside if any were.
    let shorter = &digits[..digits.len() - 1];
    let below = at(Nat::from_decimal(shorter), k + 1);
    let mut above = Nat::from_decimal(shorter);
    above.mul_add(1, 1);
    let above = at(above, k + 1);
    if inside(&below) || inside(&above) {
        return Err("a shorter text lies within half an ulp".into());
    }
    // As many digits: the grid neighbour on the other side of v.
    let s = common(&[&t, &v]);
    let t_above_v = s[0].cmp(&s[1]) == Ordering::Greater;
    let mut other = Nat::from_decimal(&digits);
    if t_above_v {
        other = other.abs_diff(&Nat::from_u64(1));
    } else {
        other.mul_add(1, 1);
    }
    let other = at(other, k);
    if inside(&other) {
        let s = common(&[&t, &other, &v]);
        let (dt, dother) = (s[0].abs_diff(&s[2]), s[1].abs_diff(&s[2]));
        let last_even = (digits.as_bytes()[digits.len() - 1] - b'0') % 2 == 0;
        match dt.cmp(&dother) {
            Ordering::Less => {}
            Ordering::Equal if last_even => {}
            Ordering::Equal => return Err("a tie that did not go to the even digit".into()),
            Ordering::Greater => return Err("the other candidate is nearer".into()),
        }
    }
    let back: f64 = text.parse().unwrap();
    let power_of_two = m == 1 << 52;
    if back != x && !(power_of_two && back == f64::from_bits(x.to_bits() - 1)) {
        return Err(format!("reads back as {back:e}"));
    }
    Ok(())
}

/// The text each writer gives for a float64: `Display` of the number and JSON.
fn texts(x: f64) -> (String, String) {
    let n = Number::from_f64(x).unwrap();
    let display = n.to_string();
    let json = Value::Number(n).to_json(&Type::Number).unwrap();
    (display, String::from_utf8(json).unwrap())
}

fn check_all(x: f64) -> Result<(), TestCaseError> {
    let (display, json) = texts(x);
    prop_assert_eq!(&display, &json);
    if x == 0.0 {
        prop_assert_eq!(&json, if x.is_sign_negative() { "-0" } else { "0" });
        return Ok(());
    }
    check(x, &json)
        .map_err(|why| TestCaseError::fail(format!("{x:e} ({:#x}) as {json}: {why}", x.to_bits())))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn any_bit_pattern(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        if x.is_finite() {
            check_all(x)?;
        }
    }

    #[test]
    fn subnormals(fraction in 1u64..(1 << 52), neg in any::<bool>()) {
        check_all(f64::from_bits(fraction | (u64::from(neg) << 63)))?;
    }

    /// Few fraction bits on a large whole part: where ties are.
    #[test]
    fn binary_fractions(whole in (1u64 << 45)..(1 << 53), shift in 1i32..11, neg in any::<bool>()) {
        let x = whole as f64 / 2f64.powi(shift);
        check_all(if neg { -x } else { x })?;
    }

    #[test]
    fn whole_numbers(whole in any::<u64>(), scale in 0i32..200) {
        check_all(whole as f64 * 2f64.powi(scale))?;
    }

    #[test]
    fn near_powers_of_ten(k in -320i32..309, ulps in -3i64..=3) {
        let x = format!("1e{k}").parse::<f64>().unwrap();
        let x = f64::from_bits((x.to_bits() as i64 + ulps) as u64);
        if x.is_finite() {
            check_all(x)?;
        }
    }
}

#[test]
fn every_power_of_two() {
    let (mut below_at_53_bits, mut below_as_f64) = (0, 0);
    for k in -1074i64..=1023 {
        let x = if k >= -1022 {
            f64::from_bits(((k + 1023) as u64) << 52)
        } else {
            f64::from_bits(1 << (k + 1074))
        };
        check_all(x).unwrap();
        let (text, _) = texts(x);
        // Read back at 53 bits: below the midpoint to the float below, 2^k - 2^(k-54).
        let (_, digits, p10) = parse_text(&text);
        let t = Exact {
            n: Nat::from_decimal(&digits),
            p2: 0,
            p10,
        };
        let midpoint = Exact {
            n: Nat::from_u64((1 << 54) - 1),
            p2: k - 54,
            p10: 0,
        };
        let s = common(&[&t, &midpoint]);
        if s[0].cmp(&s[1]) == Ordering::Less {
            below_at_53_bits += 1;
        }
        if text.parse::<f64>().unwrap() != x {
            below_as_f64 += 1;
        }
    }
    // The ones math/big writes one digit shorter than the correctly rounded shortest
    // text; eight of them are subnormal, which an f64 still reads back.
    assert_eq!(below_at_53_bits, 263);
    assert_eq!(below_as_f64, 255);
}

/// The checker itself rejects what the rule excludes.
#[test]
fn the_checker_rejects_other_texts() {
    let tie = f64::from_bits(0x42d0000000000008); // 70368744177664.125
    assert!(check(tie, "70368744177664.12").is_ok());
    assert!(check(tie, "70368744177664.13")
        .unwrap_err()
        .contains("even"));
    assert!(check(tie, "70368744177664.125")
        .unwrap_err()
        .contains("shorter"));
    assert!(check(0.1, "0.1").is_ok());
    assert!(check(0.1, "0.10000000000000001")
        .unwrap_err()
        .contains("shorter"));
    let min = f64::from_bits(1);
    let ieee = format!("0.{}5", "0".repeat(323));
    assert!(check(min, &ieee).unwrap_err().contains("half an ulp"));
    let go = format!("0.{}4940656458412465", "0".repeat(323));
    assert!(check(min, &go).is_ok());
    assert!(check(1.5, "1.4").is_err());
}
