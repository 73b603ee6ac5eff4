//! Terraform's `number` type: exact arbitrary-precision decimals plus
//! positive and negative infinity.
//!
//! A [`Number`] is the value of a cty `number`. Unlike `f64` it has no NaN,
//! no negative zero and no rounding: `"0.1"` parses to exactly one tenth,
//! while [`Number::from_f64`]`(0.1)` keeps the exact binary value of the
//! `f64` nearest to one tenth,
//! 0.1000000000000000055511151231257827021181583404541015625. The two are
//! different numbers.
//!
//! # Text form
//!
//! [`Display`](fmt::Display) prints a number in plain decimal, never with an
//! exponent, as go-cty writes it (`big.Float`'s `Text('f', -1)`): a number read
//! from text or built from an integer with all its digits (`1000`, `0.001`,
//! `-1.5`), and a number built from a float64 (off the wire, or
//! [`Number::from_f64`]) as the shortest text that reads back as that float64
//! (`0.1`), which is also what `tfvalue::json` writes for it. The alternate form
//! `{:#}` prints the exact value of every number
//! (`0.1000000000000000055511151231257827021181583404541015625` for the float64
//! 0.1). The infinities print as `+Inf` and `-Inf`. [`FromStr`] accepts
//! everything `Display` prints, plus exponents and a few other forms; see the
//! `FromStr` implementation on [`Number`].
//!
//! Every number fits in [`MAX_NUMBER_TEXT_LEN`] characters of plain decimal
//! text, which bounds the cost of every operation on it.
//!
//! ```
//! use tfvalue::Number;
//!
//! let tenth: Number = "0.1".parse().unwrap();
//! assert_eq!(tenth.to_string(), "0.1");
//! let float = Number::from_f64(0.1).unwrap();
//! assert_ne!(tenth, float);
//! assert_eq!(float.to_string(), "0.1");
//! assert_eq!(format!("{float:#}"), "0.1000000000000000055511151231257827021181583404541015625");
//! assert_eq!("1e3".parse::<Number>().unwrap(), Number::from(1000));
//! assert_eq!("1e-3".parse::<Number>().unwrap().to_string(), "0.001");
//! ```

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::de::{self, Deserialize, Deserializer, Unexpected, Visitor};
use serde::ser::{Serialize, Serializer};

mod shortest;
pub(crate) use shortest::float_text;

/// The longest plain decimal text, in bytes, of any [`Number`].
///
/// Parsing rejects a number whose plain decimal form (as
/// [`Display`](fmt::Display) prints it, including a leading `-` and the
/// decimal point) would be longer than this, so `"1e999999999"` is an
/// error rather than a gigabyte of zeros or an infinity. Every finite `f64`
/// fits: the longest exact expansion of an `f64` is 1077 characters.
///
/// ```
/// use tfvalue::number::{Number, MAX_NUMBER_TEXT_LEN};
///
/// let longest = format!("1e{}", MAX_NUMBER_TEXT_LEN - 1);
/// assert!(longest.parse::<Number>().is_ok());
/// let too_long = format!("1e{}", MAX_NUMBER_TEXT_LEN);
/// assert!(too_long.parse::<Number>().is_err());
/// ```
pub const MAX_NUMBER_TEXT_LEN: usize = 4096;

/// The newtype-struct name through which [`Number`] talks to this crate's
/// serializers and deserializers.
pub(crate) const TOKEN: &str = "$tfvalue::private::Number";

/// How a [`Number`] is written on the wire, mirroring go-cty's msgpack
/// encoder. See [`Number::wire`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum WireNumber<'a> {
    /// A non-negative integer that fits in an `i64`.
    UInt(u64),
    /// A negative integer that fits in an `i64`.
    Int(i64),
    /// A non-integral value that is exactly an `f64`, or an infinity.
    Float(f64),
    /// Anything else, as plain decimal text without an exponent.
    Text(Cow<'a, str>),
}

/// An exact Terraform number: an arbitrary-precision decimal, or an
/// infinity.
///
/// Equality, ordering and hashing are by exact value, whatever the value
/// was built from: `1`, `"1.0"`, `1.0f64` and `"1e0"` are all equal, while
/// `"0.1"` is less than `0.1f64`. The infinities sort below and above every
/// finite number.
///
/// Read it as a Rust number with the names [`Value`](crate::Value) and serde_json use,
/// [`as_i64`](Number::as_i64), [`as_u64`](Number::as_u64) and [`as_f64`](Number::as_f64)
/// (the nearest `f64`), or with `to_*` for every Rust integer type, `to_f32`, and
/// [`to_exact_f64`](Number::to_exact_f64) (`to_i64` and `as_i64` are the same).
///
/// ```
/// use tfvalue::Number;
///
/// let one = Number::from(1);
/// assert_eq!(one, "1.0".parse().unwrap());
/// assert_eq!(one, Number::from_f64(1.0).unwrap());
/// assert!("0.1".parse::<Number>().unwrap() < Number::from_f64(0.1).unwrap());
/// assert!(Number::neg_infinity() < "-1e400".parse().unwrap());
/// ```
#[derive(Clone)]
pub struct Number {
    repr: Repr,
    /// Set for a number built from a float64 (off the wire, or `from_f64`): go-cty writes
    /// it as the shortest text that reads back as that float64 (in JSON always, `0.1` for
    /// the float64 nearest 0.1; in MessagePack where it is a whole number beyond `i64`,
    /// `1e300` as a 1 and 300 zeros), where a number parsed from text keeps all its
    /// digits. It takes no part in equality, ordering or hashing.
    short_text: bool,
    /// Set for the float64 `-0.0` (with `short_text`): it is zero, equal to every other
    /// zero, but go-cty writes it `-0` in JSON, and so does tfvalue.
    neg_zero: bool,
}

/// The representation of a [`Number`].
///
/// Every value has exactly one representation, so equality and hashing can
/// compare representations structurally:
///
/// * an integer in `i64::MIN..=i64::MAX` is always `Int` (zero is `Int(0)`;
///   there is no negative zero);
/// * an integer in `i64::MAX + 1..=u64::MAX` is always `UInt`;
/// * any other finite value that is exactly some `f64` is `Float`, holding a
///   finite `f64` that is neither NaN nor zero;
/// * any other finite value is `Decimal`;
/// * the infinities are `PosInf` and `NegInf`.
#[derive(Clone)]
enum Repr {
    Int(i64),
    UInt(u64),
    Float(f64),
    Decimal(Box<Decimal>),
    PosInf,
    NegInf,
}

/// A finite decimal `(-1)^neg * digits * 10^exp`.
///
/// Invariants: `digits` is non-empty, holds only ASCII digits, and neither
/// starts nor ends with `'0'`; the value is not an integer in
/// `i64::MIN..=u64::MAX` and not exactly an `f64`; its plain text is at most
/// [`MAX_NUMBER_TEXT_LEN`] bytes long (so `|exp|` is small).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Decimal {
    neg: bool,
    digits: Box<str>,
    exp: i32,
}

/// 2^63 as an `f64`.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;
/// 2^64 as an `f64`.
const TWO_64: f64 = 18_446_744_073_709_551_616.0;
/// 2^127 as an `f64`.
const TWO_127: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
/// 2^128 as an `f64`.
const TWO_128: f64 = 340_282_366_920_938_463_463_374_607_431_768_211_456.0;

impl Number {
    const ZERO: Number = Number {
        repr: Repr::Int(0),
        short_text: false,
        neg_zero: false,
    };

    /// Positive infinity.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!(Number::infinity().to_string(), "+Inf");
    /// assert_eq!(Number::infinity().to_f64(), Some(f64::INFINITY));
    /// ```
    pub fn infinity() -> Number {
        Number {
            repr: Repr::PosInf,
            short_text: false,
            neg_zero: false,
        }
    }

    /// Negative infinity.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!(Number::neg_infinity().to_string(), "-Inf");
    /// assert!(Number::neg_infinity() < Number::from(i128::MIN));
    /// ```
    pub fn neg_infinity() -> Number {
        Number {
            repr: Repr::NegInf,
            short_text: false,
            neg_zero: false,
        }
    }

    /// The exact value of `f`, or `None` if `f` is NaN.
    ///
    /// Negative zero becomes zero; the infinities become the infinities. The number
    /// remembers that it was a float64: it is written as go-cty writes a float64, as
    /// the shortest text that reads back as it (`0.1`; `-0` for negative zero) in JSON
    /// and by [`Display`](fmt::Display), where a number parsed from text keeps all its
    /// digits. This takes no part in equality.
    ///
    /// ```
    /// use tfvalue::Number;
    ///
    /// let n = Number::from_f64(0.1).unwrap();
    /// assert_eq!(format!("{n:#}"), "0.1000000000000000055511151231257827021181583404541015625");
    /// assert_eq!(n.to_string(), "0.1");
    /// assert_eq!(Number::from_f64(-0.0), Some(Number::from(0)));
    /// assert_eq!(Number::from_f64(f64::NAN), None);
    /// ```
    pub fn from_f64(f: f64) -> Option<Number> {
        if f.is_nan() {
            return None;
        }
        let repr = if f.is_infinite() {
            if f > 0.0 {
                Repr::PosInf
            } else {
                Repr::NegInf
            }
        } else if f.fract() == 0.0 && (-TWO_63..TWO_63).contains(&f) {
            // Exact: f is integral and in range; -0.0 becomes 0.
            Repr::Int(f as i64)
        } else if f.fract() == 0.0 && (0.0..TWO_64).contains(&f) {
            Repr::UInt(f as u64)
        } else {
            Repr::Float(f)
        };
        Some(Number {
            repr,
            short_text: true,
            neg_zero: f == 0.0 && f.is_sign_negative(),
        })
    }

    /// The exact value of `f`, or `None` if `f` is NaN: the float64 `f` widens to, as
    /// [`Number::from_f64`] keeps it (and go-cty reads a float32 off the wire).
    ///
    /// ```
    /// use tfvalue::Number;
    /// let n = Number::from_f32(0.1).unwrap();
    /// assert_eq!(format!("{n:#}"), "0.100000001490116119384765625");
    /// assert_eq!(n.to_string(), "0.10000000149011612");
    /// ```
    pub fn from_f32(f: f32) -> Option<Number> {
        Number::from_f64(f64::from(f))
    }

    /// Whether this is positive or negative infinity.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert!(Number::neg_infinity().is_infinite());
    /// assert!(!"1e400".parse::<Number>().unwrap().is_infinite());
    /// ```
    pub fn is_infinite(&self) -> bool {
        matches!(self.repr, Repr::PosInf | Repr::NegInf)
    }

    /// Whether this is finite, i.e. not an infinity.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert!(Number::from(3).is_finite());
    /// assert!(!Number::infinity().is_finite());
    /// ```
    pub fn is_finite(&self) -> bool {
        !self.is_infinite()
    }

    /// Whether this is a (finite) integer.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert!("1e400".parse::<Number>().unwrap().is_integer());
    /// assert!("2.0".parse::<Number>().unwrap().is_integer());
    /// assert!(!"2.5".parse::<Number>().unwrap().is_integer());
    /// assert!(!Number::infinity().is_integer());
    /// ```
    pub fn is_integer(&self) -> bool {
        match &self.repr {
            Repr::Int(_) | Repr::UInt(_) => true,
            Repr::Float(f) => f.fract() == 0.0,
            Repr::Decimal(d) => d.exp >= 0,
            Repr::PosInf | Repr::NegInf => false,
        }
    }

    /// Whether this is zero.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert!("-0.000".parse::<Number>().unwrap().is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        matches!(self.repr, Repr::Int(0))
    }

    /// Whether this is less than zero (zero is not negative).
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert!("-1e-400".parse::<Number>().unwrap().is_sign_negative());
    /// assert!(!"-0".parse::<Number>().unwrap().is_sign_negative());
    /// ```
    pub fn is_sign_negative(&self) -> bool {
        self.signum() < 0
    }

    /// -1, 0 or 1.
    fn signum(&self) -> i8 {
        match &self.repr {
            Repr::Int(i) => match i.cmp(&0) {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            },
            Repr::UInt(_) | Repr::PosInf => 1,
            Repr::Float(f) => {
                if *f < 0.0 {
                    -1
                } else {
                    1
                }
            }
            Repr::Decimal(d) => {
                if d.neg {
                    -1
                } else {
                    1
                }
            }
            Repr::NegInf => -1,
        }
    }

    /// The value as an `i128`, if it is an integer in range.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!(Number::from(i128::MIN).to_i128(), Some(i128::MIN));
    /// assert_eq!("1e40".parse::<Number>().unwrap().to_i128(), None);
    /// ```
    pub fn to_i128(&self) -> Option<i128> {
        match &self.repr {
            Repr::Int(i) => Some(i128::from(*i)),
            Repr::UInt(u) => Some(i128::from(*u)),
            Repr::Float(f) => {
                if f.fract() == 0.0 && (-TWO_127..TWO_127).contains(f) {
                    Some(*f as i128)
                } else {
                    None
                }
            }
            Repr::Decimal(d) => {
                let mag = d.integer_magnitude()?;
                if d.neg {
                    0i128.checked_sub_unsigned(mag)
                } else {
                    i128::try_from(mag).ok()
                }
            }
            Repr::PosInf | Repr::NegInf => None,
        }
    }

    /// The value as a `u128`, if it is an integer in range.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!(Number::from(u128::MAX).to_u128(), Some(u128::MAX));
    /// assert_eq!(Number::from(-1).to_u128(), None);
    /// ```
    pub fn to_u128(&self) -> Option<u128> {
        match &self.repr {
            Repr::Int(i) => u128::try_from(*i).ok(),
            Repr::UInt(u) => Some(u128::from(*u)),
            Repr::Float(f) => {
                if f.fract() == 0.0 && (0.0..TWO_128).contains(f) {
                    Some(*f as u128)
                } else {
                    None
                }
            }
            Repr::Decimal(d) => {
                if d.neg {
                    None
                } else {
                    d.integer_magnitude()
                }
            }
            Repr::PosInf | Repr::NegInf => None,
        }
    }

    /// The value as an `i64`, if it is an integer in range.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!("-12".parse::<Number>().unwrap().to_i64(), Some(-12));
    /// assert_eq!("1.5".parse::<Number>().unwrap().to_i64(), None);
    /// assert_eq!(Number::from(1u64 << 63).to_i64(), None);
    /// ```
    pub fn to_i64(&self) -> Option<i64> {
        match &self.repr {
            Repr::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The value as a `u64`, if it is an integer in range.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!(Number::from(u64::MAX).to_u64(), Some(u64::MAX));
    /// assert_eq!(Number::from(-1).to_u64(), None);
    /// ```
    pub fn to_u64(&self) -> Option<u64> {
        match &self.repr {
            Repr::Int(i) => u64::try_from(*i).ok(),
            Repr::UInt(u) => Some(*u),
            _ => None,
        }
    }

    /// The nearest `f64` (correctly rounded, ties to even).
    ///
    /// `None` only if a finite value is too large for an `f64`; the
    /// infinities map to the `f64` infinities. A value too small for an
    /// `f64` rounds to zero (negative zero for a negative value).
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!("0.1".parse::<Number>().unwrap().to_f64(), Some(0.1));
    /// assert_eq!("1e400".parse::<Number>().unwrap().to_f64(), None);
    /// assert_eq!(Number::infinity().to_f64(), Some(f64::INFINITY));
    /// ```
    pub fn to_f64(&self) -> Option<f64> {
        match &self.repr {
            Repr::Int(0) if self.neg_zero => Some(-0.0),
            Repr::Int(i) => Some(*i as f64),
            Repr::UInt(u) => Some(*u as f64),
            Repr::Float(f) => Some(*f),
            Repr::Decimal(d) => d.scientific().parse::<f64>().ok().filter(|f| f.is_finite()),
            Repr::PosInf => Some(f64::INFINITY),
            Repr::NegInf => Some(f64::NEG_INFINITY),
        }
    }

    /// The value as an `i64`, if it is an integer in range. The name `Value::as_i64` and
    /// `serde_json::Number::as_i64` use; the same as [`Number::to_i64`].
    ///
    /// ```
    /// use tfvalue::{Number, Value};
    /// let n: Number = "42".parse().unwrap();
    /// assert_eq!(n.as_i64(), Some(42));
    /// assert_eq!(Value::Number(n).as_i64(), Some(42));
    /// assert_eq!("4.2".parse::<Number>().unwrap().as_i64(), None);
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        self.to_i64()
    }

    /// The value as a `u64`, if it is an integer in range. The name `Value::as_u64` and
    /// `serde_json::Number::as_u64` use; the same as [`Number::to_u64`].
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!(Number::from(u64::MAX).as_u64(), Some(u64::MAX));
    /// assert_eq!(Number::from(-1).as_u64(), None);
    /// ```
    pub fn as_u64(&self) -> Option<u64> {
        self.to_u64()
    }

    /// The nearest `f64`, as [`Number::to_f64`] gives it. The name `Value::as_f64` and
    /// `serde_json::Number::as_f64` use.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!("0.1".parse::<Number>().unwrap().as_f64(), Some(0.1));
    /// assert_eq!(Number::from_f64(-0.0).unwrap().as_f64().map(f64::is_sign_negative), Some(true));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        self.to_f64()
    }

    /// The nearest `f32` (correctly rounded from the exact value, ties to
    /// even).
    ///
    /// `None` only if a finite value is too large for an `f32`; the
    /// infinities map to the `f32` infinities.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!("0.1".parse::<Number>().unwrap().to_f32(), Some(0.1f32));
    /// assert_eq!("1e39".parse::<Number>().unwrap().to_f32(), None);
    /// ```
    pub fn to_f32(&self) -> Option<f32> {
        let f = match &self.repr {
            Repr::Int(i) => *i as f32,
            Repr::UInt(u) => *u as f32,
            // One rounding step: f64 -> f32 `as` rounds to nearest, ties to even.
            Repr::Float(f) => *f as f32,
            Repr::Decimal(d) => d.scientific().parse::<f32>().ok()?,
            Repr::PosInf => return Some(f32::INFINITY),
            Repr::NegInf => return Some(f32::NEG_INFINITY),
        };
        if f.is_finite() {
            Some(f)
        } else {
            None
        }
    }

    /// The value as an `f64` if it is exactly an `f64` (the infinities
    /// included), else `None`.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert_eq!("0.5".parse::<Number>().unwrap().to_exact_f64(), Some(0.5));
    /// assert_eq!("0.1".parse::<Number>().unwrap().to_exact_f64(), None);
    /// assert_eq!(Number::from_f64(0.1).unwrap().to_exact_f64(), Some(0.1));
    /// assert_eq!(Number::from(u64::MAX).to_exact_f64(), None);
    /// ```
    pub fn to_exact_f64(&self) -> Option<f64> {
        match &self.repr {
            Repr::Int(0) if self.neg_zero => Some(-0.0),
            Repr::Int(i) => {
                let f = *i as f64;
                // |f| <= 2^63, so `as i128` is exact.
                (f as i128 == i128::from(*i)).then_some(f)
            }
            Repr::UInt(u) => {
                let f = *u as f64;
                // f <= 2^64, so `as u128` is exact.
                (f as u128 == u128::from(*u)).then_some(f)
            }
            Repr::Float(f) => Some(*f),
            // By the representation invariant a Decimal is never an f64.
            Repr::Decimal(_) => None,
            Repr::PosInf => Some(f64::INFINITY),
            Repr::NegInf => Some(f64::NEG_INFINITY),
        }
    }

    /// How go-cty's msgpack encoder writes this number: an integer in `i64`
    /// range as an integer (`UInt` when non-negative); a non-integral value
    /// that is exactly an `f64`, or an infinity, as a float64; anything
    /// else as its plain decimal text.
    pub(crate) fn wire(&self) -> WireNumber<'_> {
        match &self.repr {
            Repr::Int(i) => match u64::try_from(*i) {
                Ok(u) => WireNumber::UInt(u),
                Err(_) => WireNumber::Int(*i),
            },
            Repr::UInt(u) if self.short_text => {
                WireNumber::Text(Cow::Owned(float_text(*u as f64).unwrap_or_default()))
            }
            Repr::UInt(u) => WireNumber::Text(Cow::Owned(u.to_string())),
            Repr::Float(f) if self.short_text && f.fract() == 0.0 => {
                WireNumber::Text(Cow::Owned(float_text(*f).unwrap_or_default()))
            }
            Repr::Float(f) => {
                if f.fract() == 0.0 {
                    // An integer outside i64's range: text, like 2^63.
                    WireNumber::Text(Cow::Owned(self.to_string()))
                } else {
                    WireNumber::Float(*f)
                }
            }
            Repr::Decimal(d) => {
                if !d.neg && d.exp == 0 {
                    WireNumber::Text(Cow::Borrowed(&d.digits))
                } else {
                    let mut s = String::new();
                    if d.neg {
                        s.push('-');
                    }
                    push_plain(&mut s, &d.digits, d.exp);
                    WireNumber::Text(Cow::Owned(s))
                }
            }
            Repr::PosInf => WireNumber::Float(f64::INFINITY),
            Repr::NegInf => WireNumber::Float(f64::NEG_INFINITY),
        }
    }

    /// For a number built from a float64, the text go-cty writes for it (see
    /// [`float_text`]) where that is not simply the number's integer text: negative zero,
    /// a whole number beyond 2^53 (`9223372036854776000` for 2^63), any fraction.
    /// `None` for every other number.
    pub(crate) fn float_born_text(&self) -> Option<String> {
        if !self.short_text {
            return None;
        }
        match self.repr {
            Repr::Int(0) if self.neg_zero => Some("-0".to_owned()),
            Repr::Int(i) if i.unsigned_abs() <= 1 << 53 => None,
            Repr::Int(i) => float_text(i as f64),
            Repr::UInt(u) => float_text(u as f64),
            Repr::Float(f) => float_text(f),
            Repr::Decimal(_) | Repr::PosInf | Repr::NegInf => None,
        }
    }

    /// The number `(-1)^neg * mag`, which must be a whole `u64`.
    fn from_signed_u64(neg: bool, mag: u64) -> Option<Number> {
        let repr = if neg {
            Repr::Int(0i64.checked_sub_unsigned(mag)?)
        } else {
            match i64::try_from(mag) {
                Ok(i) => Repr::Int(i),
                Err(_) => Repr::UInt(mag),
            }
        };
        Some(Number {
            repr,
            short_text: false,
            neg_zero: false,
        })
    }

    /// Builds the canonical number `(-1)^neg * digits * 10^exp`.
    ///
    /// `digits` must be non-empty ASCII digits with no leading or trailing
    /// zero, and the plain text must fit in [`MAX_NUMBER_TEXT_LEN`].
    fn from_decimal_parts(neg: bool, digits: String, exp: i32) -> Number {
        if exp >= 0 {
            if let Some(n) = small_integer(&digits, exp).and_then(|m| Self::from_signed_u64(neg, m))
            {
                return n;
            }
        }
        if let Some(f) = exact_f64(neg, &digits, exp) {
            return Number {
                repr: Repr::Float(f),
                short_text: false,
                neg_zero: false,
            };
        }
        Number {
            repr: Repr::Decimal(Box::new(Decimal {
                neg,
                digits: digits.into_boxed_str(),
                exp,
            })),
            short_text: false,
            neg_zero: false,
        }
    }

    /// The canonical decimal digits and exponent of `|self|`, for a finite
    /// non-zero value.
    fn decimal_digits(&self) -> (Cow<'_, str>, i32) {
        match &self.repr {
            Repr::Int(i) => {
                let (d, e) = u128_digits(u128::from(i.unsigned_abs()));
                (Cow::Owned(d), e)
            }
            Repr::UInt(u) => {
                let (d, e) = u128_digits(u128::from(*u));
                (Cow::Owned(d), e)
            }
            Repr::Float(f) => {
                let (d, e) = exact_decimal(*f);
                (Cow::Owned(d), e)
            }
            Repr::Decimal(d) => (Cow::Borrowed(&d.digits), d.exp),
            Repr::PosInf | Repr::NegInf => (Cow::Borrowed(""), 0),
        }
    }

    /// Bounds on the position of the leading digit of `|self|` (for a
    /// finite non-zero value): `10^(p-1) <= |self| < 10^p` for some `p` in
    /// the returned inclusive range.
    fn leading_digit_bounds(&self) -> (i64, i64) {
        match &self.repr {
            Repr::Int(i) => {
                let p = i64::from(i.unsigned_abs().checked_ilog10().unwrap_or(0)) + 1;
                (p, p)
            }
            Repr::UInt(u) => {
                let p = i64::from(u.checked_ilog10().unwrap_or(0)) + 1;
                (p, p)
            }
            Repr::Float(f) => {
                // log10 may be off by a little near powers of ten.
                let p = f.abs().log10().floor() as i64 + 1;
                (p - 1, p + 1)
            }
            Repr::Decimal(d) => {
                let p = d.digits.len() as i64 + i64::from(d.exp);
                (p, p)
            }
            Repr::PosInf | Repr::NegInf => (i64::MIN, i64::MAX),
        }
    }
}

impl Decimal {
    /// `|self|` as a `u128`, if it is an integer that fits.
    fn integer_magnitude(&self) -> Option<u128> {
        if self.exp < 0 {
            return None;
        }
        let mut v: u128 = 0;
        for b in self.digits.bytes() {
            v = v.checked_mul(10)?.checked_add(u128::from(digit_value(b)))?;
        }
        for _ in 0..self.exp {
            v = v.checked_mul(10)?;
        }
        Some(v)
    }

    /// `self` in scientific notation, for the standard float parsers.
    fn scientific(&self) -> String {
        let sign = if self.neg { "-" } else { "" };
        format!("{sign}{}e{}", self.digits, self.exp)
    }
}

/// The value of an ASCII digit (0 for anything else, which the callers'
/// invariants rule out).
fn digit_value(b: u8) -> u8 {
    b.saturating_sub(b'0')
}

/// `digits * 10^exp` as a `u64`, if it fits.
fn small_integer(digits: &str, exp: i32) -> Option<u64> {
    let mut v: u64 = 0;
    for b in digits.bytes() {
        v = v.checked_mul(10)?.checked_add(u64::from(digit_value(b)))?;
    }
    for _ in 0..exp {
        v = v.checked_mul(10)?;
    }
    Some(v)
}

/// The canonical digits and exponent of a non-zero `u128` (trailing zeros
/// moved into the exponent).
fn u128_digits(mut v: u128) -> (String, i32) {
    let mut exp = 0;
    while v != 0 && v % 10 == 0 {
        v /= 10;
        exp += 1;
    }
    (v.to_string(), exp)
}

/// `(-1)^neg * digits * 10^exp` as an `f64`, if it is exactly one.
///
/// `digits` must be canonical (no leading or trailing zero).
fn exact_f64(neg: bool, digits: &str, exp: i32) -> Option<f64> {
    let n = digits.len() as i64;
    let exp64 = i64::from(exp);
    // Every f64's exact expansion has at most 767 significant digits, lies
    // below 10^309 and at or above 10^-324. A non-integer `q / 2^k` (q odd)
    // has exactly k <= 1074 fraction digits, the last one a 5.
    if n > 800 || n + exp64 > 309 || n + exp64 < -323 {
        return None;
    }
    if exp < 0 && (exp < -1074 || digits.as_bytes().last() != Some(&b'5')) {
        return None;
    }
    let f: f64 = format!("{digits}e{exp}").parse().ok()?;
    if !f.is_finite() || f == 0.0 {
        return None;
    }
    let (d2, e2) = exact_decimal(f);
    if d2 == digits && e2 == exp {
        Some(if neg { -f } else { f })
    } else {
        None
    }
}

/// A non-negative integer in base 10^9, least significant limb first.
struct BigDec(Vec<u32>);

const LIMB_BASE: u64 = 1_000_000_000;

impl BigDec {
    fn from_u64(mut v: u64) -> BigDec {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % LIMB_BASE) as u32);
            v /= LIMB_BASE;
        }
        BigDec(limbs)
    }

    fn mul_small(&mut self, x: u32) {
        let mut carry: u64 = 0;
        for limb in &mut self.0 {
            // < 10^9 * 2^32 + 2^33, well inside u64.
            let t = u64::from(*limb) * u64::from(x) + carry;
            *limb = (t % LIMB_BASE) as u32;
            carry = t / LIMB_BASE;
        }
        while carry > 0 {
            self.0.push((carry % LIMB_BASE) as u32);
            carry /= LIMB_BASE;
        }
    }

    fn mul_pow2(&mut self, mut k: u32) {
        while k >= 31 {
            self.mul_small(1 << 31);
            k -= 31;
        }
        if k > 0 {
            self.mul_small(1 << k);
        }
    }

    fn mul_pow5(&mut self, mut k: u32) {
        const FIVE_13: u32 = 1_220_703_125;
        while k >= 13 {
            self.mul_small(FIVE_13);
            k -= 13;
        }
        if k > 0 {
            self.mul_small(5u32.pow(k));
        }
    }

    /// Decimal digits without leading zeros ("" for zero).
    fn to_digits(&self) -> String {
        let mut rev: Vec<u8> = Vec::with_capacity(self.0.len() * 9);
        for &limb in &self.0 {
            let mut v = limb;
            for _ in 0..9 {
                rev.push(b'0' + (v % 10) as u8);
                v /= 10;
            }
        }
        while rev.last() == Some(&b'0') {
            rev.pop();
        }
        rev.iter().rev().map(|&b| char::from(b)).collect()
    }
}

/// The canonical decimal digits and exponent of `|f|`, for a finite,
/// non-zero `f`: `|f| == digits * 10^exp` exactly.
fn exact_decimal(f: f64) -> (String, i32) {
    let bits = f.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mut mant, mut exp2) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    if mant == 0 {
        return (String::from("0"), 0);
    }
    let tz = mant.trailing_zeros();
    mant >>= tz;
    exp2 += tz as i32;
    let mut big = BigDec::from_u64(mant);
    if exp2 >= 0 {
        big.mul_pow2(exp2.unsigned_abs());
        let mut digits = big.to_digits();
        let mut exp = 0;
        while digits.ends_with('0') {
            digits.pop();
            exp += 1;
        }
        (digits, exp)
    } else {
        // mant / 2^k == mant * 5^k / 10^k; mant is odd, so the digits end in 5.
        big.mul_pow5(exp2.unsigned_abs());
        (big.to_digits(), exp2)
    }
}

/// Appends the plain (exponent-free) text of `digits * 10^exp`.
fn push_plain(out: &mut String, digits: &str, exp: i32) {
    let n = digits.len();
    let k = exp.unsigned_abs() as usize;
    if exp >= 0 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', k));
    } else if n > k {
        let (int, frac) = digits.split_at(n - k);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', k - n));
        out.push_str(digits);
    }
}

/// Compares `|a|` with `|b|` for canonical non-zero digit strings.
fn cmp_magnitude(a: &str, a_exp: i32, b: &str, b_exp: i32) -> Ordering {
    let a_lead = a.len() as i64 + i64::from(a_exp);
    let b_lead = b.len() as i64 + i64::from(b_exp);
    // Same leading position: the digit strings compare lexicographically,
    // a proper prefix being smaller because the rest is non-zero.
    a_lead
        .cmp(&b_lead)
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// Compares an integer with a finite `f64`.
fn cmp_int_float(i: i128, f: f64) -> Ordering {
    let g = i as f64;
    match g.partial_cmp(&f) {
        // Rounding is monotonic, so a strict order between round(i) and f
        // is the order between i and f.
        Some(Ordering::Less) => Ordering::Less,
        Some(Ordering::Greater) => Ordering::Greater,
        // f == round(i) is an integer no larger than 2^64 in magnitude.
        _ => i.cmp(&(f as i128)),
    }
}

/// Compares two finite numbers at least one of which is a `Decimal`.
fn cmp_slow(a: &Number, b: &Number) -> Ordering {
    let (sa, sb) = (a.signum(), b.signum());
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    let (a_lo, a_hi) = a.leading_digit_bounds();
    let (b_lo, b_hi) = b.leading_digit_bounds();
    let magnitude = if a_hi < b_lo {
        Ordering::Less
    } else if a_lo > b_hi {
        Ordering::Greater
    } else {
        let (ad, ae) = a.decimal_digits();
        let (bd, be) = b.decimal_digits();
        cmp_magnitude(&ad, ae, &bd, be)
    };
    if sa < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        // Representations are canonical, so equal values have equal reprs.
        match (&self.repr, &other.repr) {
            (Repr::Int(a), Repr::Int(b)) => a == b,
            (Repr::UInt(a), Repr::UInt(b)) => a == b,
            (Repr::Float(a), Repr::Float(b)) => a.to_bits() == b.to_bits(),
            (Repr::Decimal(a), Repr::Decimal(b)) => a == b,
            (Repr::PosInf, Repr::PosInf) | (Repr::NegInf, Repr::NegInf) => true,
            _ => false,
        }
    }
}

impl Eq for Number {}

impl Hash for Number {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match &self.repr {
            Repr::Int(i) => {
                state.write_u8(0);
                i.hash(state);
            }
            Repr::UInt(u) => {
                state.write_u8(1);
                u.hash(state);
            }
            Repr::Float(f) => {
                state.write_u8(2);
                f.to_bits().hash(state);
            }
            Repr::Decimal(d) => {
                state.write_u8(3);
                d.hash(state);
            }
            Repr::PosInf => state.write_u8(4),
            Repr::NegInf => state.write_u8(5),
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        use Repr::{Decimal, Float, Int, NegInf, PosInf, UInt};
        match (&self.repr, &other.repr) {
            (Int(a), Int(b)) => a.cmp(b),
            (UInt(a), UInt(b)) => a.cmp(b),
            // UInt only holds values above i64::MAX.
            (Int(_), UInt(_)) => Ordering::Less,
            (UInt(_), Int(_)) => Ordering::Greater,
            // Canonical floats are never NaN or -0.0.
            (Float(a), Float(b)) => a.total_cmp(b),
            (Int(a), Float(b)) => cmp_int_float(i128::from(*a), *b),
            (UInt(a), Float(b)) => cmp_int_float(i128::from(*a), *b),
            (Float(a), Int(b)) => cmp_int_float(i128::from(*b), *a).reverse(),
            (Float(a), UInt(b)) => cmp_int_float(i128::from(*b), *a).reverse(),
            (PosInf, PosInf) | (NegInf, NegInf) => Ordering::Equal,
            (NegInf, _) | (_, PosInf) => Ordering::Less,
            (PosInf, _) | (_, NegInf) => Ordering::Greater,
            (Decimal(_), _) | (_, Decimal(_)) => cmp_slow(self, other),
        }
    }
}

impl Default for Number {
    /// Zero.
    fn default() -> Number {
        Number::ZERO
    }
}

impl fmt::Display for Number {
    /// The number in plain decimal, never with an exponent, as go-cty writes it: a
    /// number read from text or built from an integer with all its digits, a number
    /// built from a float64 as the shortest text that reads back as that float64
    /// (`0.1`; see [`Number::from_f64`]). With `{:#}`, the exact value of every number.
    /// The infinities as `+Inf` and `-Inf`. Width, fill, alignment, `+` and `0` flags
    /// are honoured as for integers.
    ///
    /// ```
    /// use tfvalue::Number;
    /// let n: Number = "-1.5e2".parse().unwrap();
    /// assert_eq!(n.to_string(), "-150");
    /// assert_eq!(format!("{:>8}", "1e-3".parse::<Number>().unwrap()), "   0.001");
    /// let f = Number::from_f64(1.1).unwrap();
    /// assert_eq!(f.to_string(), "1.1");
    /// assert_eq!(format!("{f:#}"), "1.100000000000000088817841970012523233890533447265625");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            if let Some(text) = self.float_born_text() {
                let body = text.trim_start_matches('-');
                return f.pad_integral(body.len() == text.len(), "", body);
            }
        }
        match &self.repr {
            Repr::Int(i) => fmt::Display::fmt(i, f),
            Repr::UInt(u) => fmt::Display::fmt(u, f),
            Repr::Float(x) => {
                let (digits, exp) = exact_decimal(*x);
                let mut body = String::new();
                push_plain(&mut body, &digits, exp);
                f.pad_integral(*x > 0.0, "", &body)
            }
            Repr::Decimal(d) => {
                let mut body = String::new();
                push_plain(&mut body, &d.digits, d.exp);
                f.pad_integral(!d.neg, "", &body)
            }
            Repr::PosInf => f.pad("+Inf"),
            Repr::NegInf => f.pad("-Inf"),
        }
    }
}

impl fmt::Debug for Number {
    /// `Number(<Display form>)`, e.g. `Number(1.5)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({self})")
    }
}

/// The error from parsing a [`Number`] from text.
///
/// ```
/// use tfvalue::Number;
///
/// let err = "0x10".parse::<Number>().unwrap_err();
/// assert_eq!(err.to_string(), r#"invalid number "0x10""#);
/// let err = "1e999999999".parse::<Number>().unwrap_err();
/// assert_eq!(err.to_string(), r#"number "1e999999999" is out of the supported range"#);
/// assert!(err.is_out_of_range());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseNumberError {
    kind: ParseErrorKind,
    /// The start of the rejected input (at most [`ERROR_INPUT_LEN`] bytes).
    input: String,
    truncated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ParseErrorKind {
    Invalid,
    OutOfRange,
}

/// How much of a rejected input an error message quotes.
const ERROR_INPUT_LEN: usize = 64;

impl ParseNumberError {
    fn new(kind: ParseErrorKind, input: &str) -> ParseNumberError {
        let mut end = input.len().min(ERROR_INPUT_LEN);
        while !input.is_char_boundary(end) {
            end -= 1;
        }
        ParseNumberError {
            kind,
            input: input.get(..end).unwrap_or_default().to_owned(),
            truncated: end < input.len(),
        }
    }

    /// Whether the input was a well-formed number whose plain decimal text
    /// would be longer than [`MAX_NUMBER_TEXT_LEN`], rather than malformed.
    ///
    /// ```
    /// use tfvalue::Number;
    /// assert!("1e-999999999".parse::<Number>().unwrap_err().is_out_of_range());
    /// assert!(!"1e".parse::<Number>().unwrap_err().is_out_of_range());
    /// ```
    pub fn is_out_of_range(&self) -> bool {
        self.kind == ParseErrorKind::OutOfRange
    }
}

impl fmt::Display for ParseNumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ellipsis = if self.truncated { "..." } else { "" };
        match self.kind {
            ParseErrorKind::Invalid => write!(f, "invalid number {:?}{ellipsis}", self.input),
            ParseErrorKind::OutOfRange => write!(
                f,
                "number {:?}{ellipsis} is out of the supported range",
                self.input
            ),
        }
    }
}

impl std::error::Error for ParseNumberError {}

/// The error from converting a NaN `f64` or `f32` into a [`Number`].
///
/// ```
/// use tfvalue::Number;
/// let err = Number::try_from(f64::NAN).unwrap_err();
/// assert_eq!(err.to_string(), "NaN is not a number");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NanError(());

impl fmt::Display for NanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NaN is not a number")
    }
}

impl std::error::Error for NanError {}

impl TryFrom<f64> for Number {
    type Error = NanError;

    /// The exact value of `f`; see [`Number::from_f64`].
    fn try_from(f: f64) -> Result<Number, NanError> {
        Number::from_f64(f).ok_or(NanError(()))
    }
}

impl TryFrom<f32> for Number {
    type Error = NanError;

    /// The exact value of `f`; see [`Number::from_f32`].
    fn try_from(f: f32) -> Result<Number, NanError> {
        Number::from_f32(f).ok_or(NanError(()))
    }
}

/// Splits `s` after its leading ASCII digits.
fn take_digits(s: &[u8]) -> (&[u8], &[u8]) {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    s.split_at(n)
}

/// Exponents are clamped to this magnitude while being read; anything this
/// large is out of range anyway (unless the significand is zero).
const EXP_CLAMP: i64 = 1 << 40;

impl FromStr for Number {
    type Err = ParseNumberError;

    /// Parses a number.
    ///
    /// The accepted syntax is an optional sign (`+` or `-`) followed by
    /// either `inf` in any letter case, or a decimal: ASCII digits with an
    /// optional `.` (at least one digit before or after it), then an
    /// optional exponent `e`/`E`, optional sign and one or more digits.
    /// Leading zeros are allowed (`00012` is 12) and `-0` is zero.
    ///
    /// Rejected: surrounding whitespace, `NaN`, `Infinity`, hex, `_`
    /// separators, non-ASCII digits, and any non-zero number whose plain
    /// text would exceed [`MAX_NUMBER_TEXT_LEN`] (such numbers are never
    /// rounded to zero or infinity). Zero is zero whatever its exponent.
    ///
    /// ```
    /// use tfvalue::Number;
    ///
    /// for ok in ["0", "-0", "+5", ".5", "5.", "1E3", "0.1e-2", "-inf", "+Inf"] {
    ///     assert!(ok.parse::<Number>().is_ok(), "{ok}");
    /// }
    /// for bad in ["", " 1", "NaN", "Infinity", "0x10", "1e", "e5", "--1", "1.2.3", "_1"] {
    ///     assert!(bad.parse::<Number>().is_err(), "{bad}");
    /// }
    /// ```
    fn from_str(s: &str) -> Result<Number, ParseNumberError> {
        let invalid = || ParseNumberError::new(ParseErrorKind::Invalid, s);
        let out_of_range = || ParseNumberError::new(ParseErrorKind::OutOfRange, s);

        let bytes = s.as_bytes();
        let (neg, body) = match bytes.split_first() {
            Some((b'-', rest)) => (true, rest),
            Some((b'+', rest)) => (false, rest),
            _ => (false, bytes),
        };
        if body.eq_ignore_ascii_case(b"inf") {
            return Ok(if neg {
                Number::neg_infinity()
            } else {
                Number::infinity()
            });
        }

        let (int_part, rest) = take_digits(body);
        let (frac_part, rest) = match rest.split_first() {
            Some((b'.', after)) => take_digits(after),
            _ => (&[][..], rest),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return Err(invalid());
        }
        let (exp_value, rest) = match rest.split_first() {
            Some((b'e' | b'E', after)) => {
                let (exp_neg, after) = match after.split_first() {
                    Some((b'-', r)) => (true, r),
                    Some((b'+', r)) => (false, r),
                    _ => (false, after),
                };
                let (exp_digits, after) = take_digits(after);
                if exp_digits.is_empty() {
                    return Err(invalid());
                }
                let mut e: i64 = 0;
                for &b in exp_digits {
                    e = (e * 10 + i64::from(digit_value(b))).min(EXP_CLAMP);
                }
                (if exp_neg { -e } else { e }, after)
            }
            _ => (0, rest),
        };
        if !rest.is_empty() {
            return Err(invalid());
        }

        // The significant digits are those between the first and last
        // non-zero digit of int_part ++ frac_part.
        let all = || int_part.iter().chain(frac_part.iter());
        let Some(first) = all().position(|&b| b != b'0') else {
            return Ok(Number::ZERO);
        };
        let trailing = all().rev().position(|&b| b != b'0').unwrap_or(0);
        let total = int_part.len() + frac_part.len();
        let count = total - trailing - first;
        // value = digits * 10^exp, where the last significant digit sits
        // at position int_len - 1 - last relative to the units digit.
        let exp = i64::try_from(int_part.len())
            .ok()
            .zip(i64::try_from(total - trailing).ok())
            .and_then(|(il, end)| il.checked_sub(end))
            .and_then(|shift| shift.checked_add(exp_value))
            .ok_or_else(out_of_range)?;
        let count_i = i64::try_from(count).map_err(|_| out_of_range())?;
        match plain_len(neg, count_i, exp) {
            Some(len) if len <= MAX_NUMBER_TEXT_LEN as i64 => {}
            _ => return Err(out_of_range()),
        }
        let exp = i32::try_from(exp).map_err(|_| out_of_range())?;
        let digits: String = all()
            .skip(first)
            .take(count)
            .map(|&b| char::from(b))
            .collect();
        Ok(Number::from_decimal_parts(neg, digits, exp))
    }
}

/// The length of the plain text of `(-1)^neg * d * 10^exp` where `d` has
/// `n` digits, or `None` on arithmetic overflow.
fn plain_len(neg: bool, n: i64, exp: i64) -> Option<i64> {
    let unsigned = if exp >= 0 {
        n.checked_add(exp)?
    } else {
        let k = exp.checked_neg()?;
        if n > k {
            n.checked_add(1)?
        } else {
            k.checked_add(2)?
        }
    };
    unsigned.checked_add(i64::from(neg))
}

macro_rules! from_via {
    ($via:ty => $($t:ty),*) => {$(
        impl From<$t> for Number {
            #[doc = concat!("The exact value of an `", stringify!($t), "`.")]
            fn from(v: $t) -> Number {
                Number::from(<$via>::from(v))
            }
        }
    )*};
}

from_via!(i64 => i8, i16, i32);
from_via!(u64 => u8, u16, u32);

impl From<i64> for Number {
    /// The exact value of an `i64`.
    fn from(v: i64) -> Number {
        Number {
            repr: Repr::Int(v),
            short_text: false,
            neg_zero: false,
        }
    }
}

impl From<u64> for Number {
    /// The exact value of a `u64`.
    fn from(v: u64) -> Number {
        match i64::try_from(v) {
            Ok(i) => Number {
                repr: Repr::Int(i),
                short_text: false,
                neg_zero: false,
            },
            Err(_) => Number {
                repr: Repr::UInt(v),
                short_text: false,
                neg_zero: false,
            },
        }
    }
}

impl From<i128> for Number {
    /// The exact value of an `i128`.
    fn from(v: i128) -> Number {
        if let Ok(i) = i64::try_from(v) {
            return Number::from(i);
        }
        if let Ok(u) = u64::try_from(v) {
            return Number::from(u);
        }
        let f = v as f64;
        // f == 2^127 means v (at most 2^127 - 1) was rounded up.
        if f != TWO_127 && f as i128 == v {
            return Number {
                repr: Repr::Float(f),
                short_text: false,
                neg_zero: false,
            };
        }
        let (digits, exp) = u128_digits(v.unsigned_abs());
        Number {
            repr: Repr::Decimal(Box::new(Decimal {
                neg: v < 0,
                digits: digits.into_boxed_str(),
                exp,
            })),
            short_text: false,
            neg_zero: false,
        }
    }
}

impl From<u128> for Number {
    /// The exact value of a `u128`.
    fn from(v: u128) -> Number {
        if let Ok(u) = u64::try_from(v) {
            return Number::from(u);
        }
        let f = v as f64;
        // f == 2^128 means v (at most 2^128 - 1) was rounded up.
        if f != TWO_128 && f as u128 == v {
            return Number {
                repr: Repr::Float(f),
                short_text: false,
                neg_zero: false,
            };
        }
        let (digits, exp) = u128_digits(v);
        Number {
            repr: Repr::Decimal(Box::new(Decimal {
                neg: false,
                digits: digits.into_boxed_str(),
                exp,
            })),
            short_text: false,
            neg_zero: false,
        }
    }
}

impl From<isize> for Number {
    /// The exact value of an `isize`.
    fn from(v: isize) -> Number {
        // isize is at most 128 bits wide on every Rust target.
        Number::from(v as i128)
    }
}

impl From<usize> for Number {
    /// The exact value of a `usize`.
    fn from(v: usize) -> Number {
        // usize is at most 128 bits wide on every Rust target.
        Number::from(v as u128)
    }
}

macro_rules! to_int {
    ($($name:ident($via:ident) -> $t:ty;)*) => {$(
        #[doc = concat!(
            "The value as an `", stringify!($t), "`, if it is an integer in range.\n\n",
            "```\n",
            "use tfvalue::Number;\n",
            "assert_eq!(Number::from(7).", stringify!($name), "(), Some(7));\n",
            "assert_eq!(\"7.5\".parse::<Number>().unwrap().", stringify!($name), "(), None);\n",
            "assert_eq!(Number::infinity().", stringify!($name), "(), None);\n",
            "```"
        )]
        pub fn $name(&self) -> Option<$t> {
            self.$via().and_then(|v| <$t>::try_from(v).ok())
        }
    )*};
}

impl Number {
    to_int! {
        to_i8(to_i64) -> i8;
        to_i16(to_i64) -> i16;
        to_i32(to_i64) -> i32;
        to_isize(to_i128) -> isize;
        to_u8(to_u64) -> u8;
        to_u16(to_u64) -> u16;
        to_u32(to_u64) -> u32;
        to_usize(to_u128) -> usize;
    }
}

macro_rules! try_from_number {
    ($($t:ty => $m:ident),*) => {$(
        impl TryFrom<&Number> for $t {
            type Error = crate::error::Error;

            /// The number as this type, when it is a whole number in its range.
            fn try_from(n: &Number) -> Result<$t, crate::error::Error> {
                n.$m().ok_or_else(|| {
                    crate::error::Error::data(format_args!(
                        "the number {n} is not a {}",
                        stringify!($t)
                    ))
                })
            }
        }

        impl TryFrom<Number> for $t {
            type Error = crate::error::Error;

            /// As `TryFrom<&Number>`.
            fn try_from(n: Number) -> Result<$t, crate::error::Error> {
                <$t>::try_from(&n)
            }
        }
    )*};
}

try_from_number!(
    i8 => to_i8, i16 => to_i16, i32 => to_i32, i64 => to_i64, i128 => to_i128, isize => to_isize,
    u8 => to_u8, u16 => to_u16, u32 => to_u32, u64 => to_u64, u128 => to_u128, usize => to_usize
);

impl TryFrom<&Number> for f64 {
    type Error = crate::error::Error;

    /// The number as an `f64` when an `f64` holds it exactly (`0.5`, the infinities, a
    /// float64 off the wire); the decimal `0.1` is not one. [`Number::to_f64`] gives the
    /// nearest `f64` instead.
    ///
    /// ```
    /// use tfvalue::Number;
    /// let half: Number = "0.5".parse().unwrap();
    /// assert_eq!(f64::try_from(&half).unwrap(), 0.5);
    /// assert!(f64::try_from(&"0.1".parse::<Number>().unwrap()).is_err());
    /// ```
    fn try_from(n: &Number) -> Result<f64, crate::error::Error> {
        n.to_exact_f64().ok_or_else(|| {
            crate::error::Error::data(format_args!(
                "the number {n} is not exactly an f64 (Number::to_f64 gives the nearest)"
            ))
        })
    }
}

impl TryFrom<Number> for f64 {
    type Error = crate::error::Error;

    /// As `TryFrom<&Number>`.
    fn try_from(n: Number) -> Result<f64, crate::error::Error> {
        f64::try_from(&n)
    }
}

impl TryFrom<&Number> for f32 {
    type Error = crate::error::Error;

    /// The number as an `f32` when an `f32` holds it exactly.
    fn try_from(n: &Number) -> Result<f32, crate::error::Error> {
        match n.to_exact_f64() {
            Some(f) if f64::from(f as f32) == f || f.is_infinite() => Ok(f as f32),
            _ => Err(crate::error::Error::data(format_args!(
                "the number {n} is not exactly an f32 (Number::to_f32 gives the nearest)"
            ))),
        }
    }
}

impl TryFrom<Number> for f32 {
    type Error = crate::error::Error;

    /// As `TryFrom<&Number>`.
    fn try_from(n: Number) -> Result<f32, crate::error::Error> {
        f32::try_from(&n)
    }
}

impl Serialize for Number {
    /// Serializes as a newtype struct named by the crate-private token,
    /// holding the go-cty wire form: an integer in `i64` range as `u64`
    /// (non-negative) or `i64`, a non-integral exact `f64` or an infinity as
    /// `f64`, and anything else as its plain decimal string. Under a
    /// generic serializer such as `serde_json` that is a number or a
    /// string.
    ///
    /// In a human-readable format (JSON), a value that is exactly an `f64` but was read
    /// from decimal text (not built from a float64) is its exact decimal text instead, so
    /// that it is written with all its digits, as go-cty writes numbers parsed from text;
    /// a float64 is written as go-cty writes it, the shortest text that reads back as it
    /// (see [`Number::from_f64`]).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            if !crate::private::is_ours::<S>() {
                return self.serialize_foreign(serializer);
            }
            if let Some(text) = self.float_born_text() {
                return serializer.serialize_newtype_struct(TOKEN, &text);
            }
            if let Repr::Float(f) = self.repr {
                if !self.short_text && f.fract() != 0.0 {
                    let exact = self.to_string();
                    if Some(&exact) != float_text(f).as_ref() {
                        return serializer.serialize_newtype_struct(TOKEN, &exact);
                    }
                }
            }
        }
        serializer.serialize_newtype_struct(TOKEN, &Wire(self))
    }
}

impl Number {
    /// Under a human-readable serializer that is not tfvalue's: under `serde_json`, the
    /// text `tfvalue::json` writes (an integer's digits, a float64's shortest text, a
    /// decimal's digits, in plain notation) through `serde_json`'s `RawValue`, so that
    /// `serde_json::to_string` writes the same number; under other formats, an integer
    /// as an integer, a number that is exactly an `f64` as that `f64`, and any other an
    /// error naming `tfvalue::json`.
    fn serialize_foreign<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let is_serde_json = std::any::type_name::<S>().contains("serde_json::");
        fn raw<S: Serializer>(text: String, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::Error as _;
            match serde_json::value::RawValue::from_string(text) {
                Ok(raw) => raw.serialize(serializer),
                Err(e) => Err(S::Error::custom(e)),
            }
        }
        if let Some(text) = self.float_born_text() {
            if is_serde_json {
                return raw(text, serializer);
            }
            return serializer.serialize_f64(self.to_exact_f64().unwrap_or_default());
        }
        match &self.repr {
            Repr::Int(i) => return serializer.serialize_i64(*i),
            Repr::UInt(u) => return serializer.serialize_u64(*u),
            Repr::PosInf | Repr::NegInf => {
                return Err(S::Error::custom(
                    "infinity cannot be written as JSON (tfvalue::json and go-cty refuse it too)",
                ))
            }
            Repr::Float(_) | Repr::Decimal(_) => {}
        }
        // A number read from text: all its digits.
        let text = self.to_string();
        if is_serde_json {
            return raw(text, serializer);
        }
        if let Some(f) = self.to_exact_f64() {
            if float_text(f).as_ref() == Some(&text) {
                return serializer.serialize_f64(f);
            }
        }
        Err(S::Error::custom(format_args!(
            "the number {text} is not exactly an f64, which is all this format can hold: \
             use tfvalue::json::to_vec or tfvalue::msgpack::to_vec"
        )))
    }
}

/// The inner value of [`Number`]'s newtype-struct serialization.
struct Wire<'a>(&'a Number);

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.wire() {
            WireNumber::UInt(u) => serializer.serialize_u64(u),
            WireNumber::Int(i) => serializer.serialize_i64(i),
            WireNumber::Float(f) => serializer.serialize_f64(f),
            WireNumber::Text(s) => serializer.serialize_str(&s),
        }
    }
}

impl<'de> Deserialize<'de> for Number {
    /// Accepts any integer, any non-NaN float (its exact value), or a
    /// string in the [`FromStr`] syntax, optionally inside the crate's
    /// newtype-struct wrapper.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Number, D::Error> {
        deserializer.deserialize_newtype_struct(TOKEN, NumberVisitor)
    }
}

struct NumberVisitor;

impl<'de> Visitor<'de> for NumberVisitor {
    type Value = Number;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
        Ok(Number::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
        Ok(Number::from(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Number, E> {
        Ok(Number::from(v))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Number, E> {
        Ok(Number::from(v))
    }

    fn visit_f32<E: de::Error>(self, v: f32) -> Result<Number, E> {
        Number::from_f32(v).ok_or_else(|| E::invalid_value(Unexpected::Float(f64::from(v)), &self))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
        Number::from_f64(v).ok_or_else(|| E::invalid_value(Unexpected::Float(v), &self))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Number, E> {
        v.parse().map_err(E::custom)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Number, E> {
        self.visit_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Number, E> {
        self.visit_str(&v)
    }

    /// Reached only under a deserializer that is not tfvalue's (tfvalue's own handle the
    /// private token). A human-readable one is asked for the number's text through
    /// `serde_json`'s `RawValue`, so that `serde_json::from_str::<Number>("0.1")` gives the
    /// decimal 0.1, as `tfvalue::json` does, not the float64 nearest it; a deserializer
    /// that does not know `RawValue` gives what it has.
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Number, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_newtype_struct(RAW_VALUE_TOKEN, RawNumberVisitor)
        } else {
            deserializer.deserialize_any(self)
        }
    }
}

/// serde_json's private name for `RawValue`, through which it hands over a value's text.
pub(crate) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The text of a JSON number (or of a string holding one) from serde_json's `RawValue`
/// protocol: a map with one entry whose value is the raw text.
struct RawNumberVisitor;

impl<'de> Visitor<'de> for RawNumberVisitor {
    type Value = Number;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Number, A::Error> {
        let Some(_token) = map.next_key::<String>()? else {
            return Err(de::Error::invalid_length(0, &self));
        };
        let raw: String = map.next_value()?;
        let raw = raw.trim();
        if raw.starts_with('"') {
            let s: String = serde_json::from_str(raw).map_err(de::Error::custom)?;
            return s.parse().map_err(de::Error::custom);
        }
        if raw == "null" {
            return Err(de::Error::invalid_type(Unexpected::Unit, &self));
        }
        raw.parse()
            .map_err(|_| de::Error::invalid_type(Unexpected::Other(&format!("JSON {raw}")), &self))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Number, D::Error> {
        deserializer.deserialize_any(NumberVisitor)
    }

    // A deserializer that does not know `RawValue` may call any of these.
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
        NumberVisitor.visit_i64(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
        NumberVisitor.visit_u64(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
        NumberVisitor.visit_f64(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Number, E> {
        NumberVisitor.visit_str(v)
    }
}

impl Number {
    /// Hands the number to a visitor that asked for a primitive (`expected` names it:
    /// `"f32"`, `"u8"`, ...): a float when `float`, otherwise the narrowest integer it
    /// fits; a number out of range or not whole for an integer is an error saying so.
    /// The one rule of both typed decoders (MessagePack and `Value`).
    pub(crate) fn visit_as<'de, V: Visitor<'de>>(
        &self,
        float: bool,
        expected: &str,
        visitor: V,
    ) -> crate::error::Result<V::Value> {
        use crate::error::Error;
        let out_of_range = || {
            Error::limit(format_args!(
                "number {} is out of range for {expected}",
                Short(self)
            ))
        };
        if float {
            let fits = if expected == "f32" {
                self.to_f32().map(f64::from)
            } else {
                self.to_f64()
            };
            return match fits {
                Some(f) => visitor.visit_f64(f),
                None => Err(out_of_range()),
            };
        }
        if let Some(i) = self.to_i64() {
            visitor.visit_i64(i)
        } else if let Some(u) = self.to_u64() {
            visitor.visit_u64(u)
        } else if let Some(i) = self.to_i128() {
            visitor.visit_i128(i)
        } else if let Some(u) = self.to_u128() {
            visitor.visit_u128(u)
        } else if self.is_integer() {
            Err(out_of_range())
        } else {
            Err(Error::data(format_args!(
                "invalid value: number {self}, expected {expected}"
            )))
        }
    }
}

/// A number in a message, shortened when its text is long (`1000…000 (401 characters)`).
struct Short<'a>(&'a Number);

impl fmt::Display for Short<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string();
        if text.len() <= 40 {
            f.write_str(&text)
        } else {
            write!(
                f,
                "{}…{} ({} characters)",
                &text[..20],
                &text[text.len() - 10..],
                text.len()
            )
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::hash_map::DefaultHasher;
    use std::collections::HashSet;

    fn num(s: &str) -> Number {
        s.parse()
            .unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
    }

    fn f(x: f64) -> Number {
        Number::from_f64(x).unwrap()
    }

    fn hash_of(n: &Number) -> u64 {
        let mut h = DefaultHasher::new();
        n.hash(&mut h);
        h.finish()
    }

    const SUBNORMAL_DIGITS: &str = "4940656458412465441765687928682213723650598026143247644255856825006755072702087518652998363616359923797965646954457177309266567103559397963987747960107818781263007131903114045278458171678489821036887186360569987307230500063874091535649843873124733972731696151400317153853980741262385655911710266585566867681870395603106249319452715914924553293054565444011274801297099995419319894090804165633245247571478690147267801593552386115501348035264934720193790268107107491703332226844753335720832431936092382893458368060106011506169809753078342277318329247904982524730776375927247874656084778203734469699533647017972677717585125660551199131504891101451037862738167250955837389733598993664809941164205702637090279242767544565229087538682506419718265533447265625";
    const E300: &str = "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160";

    #[test]
    fn accepts() {
        let cases: &[(&str, &str)] = &[
            ("0", "0"),
            ("-0", "0"),
            ("+0", "0"),
            ("+5", "5"),
            (".5", "0.5"),
            ("+.5", "0.5"),
            ("-.5", "-0.5"),
            ("5.", "5"),
            ("5.e1", "50"),
            ("00012", "12"),
            ("-00.00100", "-0.001"),
            ("1e3", "1000"),
            ("1E3", "1000"),
            ("1e+3", "1000"),
            ("1e0000000000000000000000003", "1000"),
            ("0.1e-2", "0.001"),
            ("1.5", "1.5"),
            ("12345678901234567890123", "12345678901234567890123"),
            (
                "123456789012345678901234567890.5",
                "123456789012345678901234567890.5",
            ),
            (
                "0.3333333333333333333333333333333333333333",
                "0.3333333333333333333333333333333333333333",
            ),
            ("9223372036854775807", "9223372036854775807"),
            ("9223372036854775808", "9223372036854775808"),
            ("-9223372036854775808", "-9223372036854775808"),
            ("-9223372036854775809", "-9223372036854775809"),
            ("18446744073709551615", "18446744073709551615"),
            ("18446744073709551616", "18446744073709551616"),
            ("1.0", "1"),
            ("100e-2", "1"),
            ("-0.0e5", "0"),
            ("0e999999999", "0"),
            ("0e99999999999999999999999", "0"),
            ("0.000e-999999999", "0"),
            ("Inf", "+Inf"),
            ("+Inf", "+Inf"),
            ("inf", "+Inf"),
            ("+inf", "+Inf"),
            ("INF", "+Inf"),
            ("iNf", "+Inf"),
            ("-Inf", "-Inf"),
            ("-inf", "-Inf"),
        ];
        for (input, want) in cases {
            assert_eq!(num(input).to_string(), *want, "input {input:?}");
        }
        let n = num("-1e-400");
        assert_eq!(n.to_string(), format!("-0.{}1", "0".repeat(399)));
        let n = num("1e400");
        assert_eq!(n.to_string(), format!("1{}", "0".repeat(400)));
    }

    #[test]
    fn rejects() {
        let invalid = [
            "NaN",
            "nan",
            "-nan",
            "0x10",
            "0x",
            "",
            " 1",
            "1 ",
            "abc",
            "\u{661}",
            "1\u{661}",
            "1e",
            "1e+",
            "1e-",
            "e5",
            "--1",
            "+-1",
            "-+1",
            "1.2.3",
            "1e5.5",
            "1e1e1",
            "Infinity",
            "infinity",
            "-Infinity",
            "in",
            "Inf ",
            " Inf",
            "_1",
            "1_000",
            ".",
            "-.",
            "+",
            "-",
            ".e1",
            "1f",
            "1p3",
            "１",
        ];
        for input in invalid {
            let err = input.parse::<Number>().unwrap_err();
            assert!(!err.is_out_of_range(), "{input:?}");
            assert_eq!(err.to_string(), format!("invalid number {input:?}"));
        }
        let out_of_range = [
            "1e999999999",
            "1e-999999999",
            "-1e999999999",
            "1e99999999999999999999999999999",
            "1e-99999999999999999999999999999",
            "1e4096",
            "-1e4095",
            "1e-4095",
            "-1e-4094",
        ];
        for input in out_of_range {
            let err = input.parse::<Number>().unwrap_err();
            assert!(err.is_out_of_range(), "{input:?}");
            assert_eq!(
                err.to_string(),
                format!("number {input:?} is out of the supported range")
            );
        }
    }

    #[test]
    fn text_length_bound() {
        let ok = [
            format!("1e{}", MAX_NUMBER_TEXT_LEN - 1),
            format!("-1e{}", MAX_NUMBER_TEXT_LEN - 2),
            format!("1e-{}", MAX_NUMBER_TEXT_LEN - 2),
            format!("-1e-{}", MAX_NUMBER_TEXT_LEN - 3),
            "7".repeat(MAX_NUMBER_TEXT_LEN),
            format!("-{}", "7".repeat(MAX_NUMBER_TEXT_LEN - 1)),
            format!("{}.5", "7".repeat(MAX_NUMBER_TEXT_LEN - 2)),
            // Leading and trailing zeros don't count.
            format!("{}1.{}", "0".repeat(100_000), "0".repeat(100_000)),
        ];
        for s in &ok {
            let n = num(s);
            assert!(n.to_string().len() <= MAX_NUMBER_TEXT_LEN);
            assert_eq!(num(&n.to_string()), n);
        }
        let too_long = [
            format!("1e{}", MAX_NUMBER_TEXT_LEN),
            "7".repeat(MAX_NUMBER_TEXT_LEN + 1),
            format!("-{}", "7".repeat(MAX_NUMBER_TEXT_LEN)),
            format!("{}.5", "7".repeat(MAX_NUMBER_TEXT_LEN - 1)),
        ];
        for s in &too_long {
            let err = s.parse::<Number>().unwrap_err();
            assert!(err.is_out_of_range());
            // The message quotes only the start of a long input.
            assert!(err.to_string().len() < 200, "{err}");
        }
    }

    #[test]
    fn error_message_truncates_on_char_boundary() {
        let s = "é".repeat(100);
        let msg = s.parse::<Number>().unwrap_err().to_string();
        assert!(msg.starts_with("invalid number \"é"));
        assert!(msg.ends_with("\"..."), "{msg}");
    }

    #[test]
    fn wire_examples() {
        use WireNumber::{Float, Int, Text, UInt};
        let text = |s: &str| Text(Cow::Owned(s.to_owned()));
        let cases: Vec<(Number, WireNumber<'static>)> = vec![
            (num("0"), UInt(0)),
            (num("-0"), UInt(0)),
            (f(-0.0), UInt(0)),
            (num("5"), UInt(5)),
            (num("-5"), Int(-5)),
            (Number::from(i64::MAX), UInt(i64::MAX as u64)),
            (Number::from(i64::MIN), Int(i64::MIN)),
            (f(1.0), UInt(1)),
            (num("1e3"), UInt(1000)),
            (num("9223372036854775808"), text("9223372036854775808")),
            // A whole float64 beyond i64 is written as its shortest text, as go-cty does.
            (f(TWO_63), text("9223372036854776000")),
            (num("18446744073709551615"), text("18446744073709551615")),
            (num("-9223372036854775809"), text("-9223372036854775809")),
            (num("0.1"), text("0.1")),
            (num("-0.1"), text("-0.1")),
            (num("0.5"), Float(0.5)),
            (f(0.5), Float(0.5)),
            (num("-2.75"), Float(-2.75)),
            (num("1e21"), text("1000000000000000000000")),
            (f(1e21), text("1000000000000000000000")),
            (num("4503599627370496.5"), text("4503599627370496.5")),
            (
                num("0.1000000000000000055511151231257827021181583404541015625"),
                Float(0.1),
            ),
            (f(0.1), Float(0.1)),
            (f(5e-324), Float(5e-324)),
            (num("1e400"), text(&format!("1{}", "0".repeat(400)))),
            (f(1e300), text(&format!("1{}", "0".repeat(300)))),
            (Number::infinity(), Float(f64::INFINITY)),
            (Number::neg_infinity(), Float(f64::NEG_INFINITY)),
            (Number::from(u128::MAX), text(&u128::MAX.to_string())),
        ];
        for (n, want) in cases {
            assert_eq!(n.wire(), want, "{n:?}");
        }
        // An unsigned integer Decimal borrows its digits.
        let n = num("18446744073709551617");
        assert!(matches!(
            n.wire(),
            Text(Cow::Borrowed("18446744073709551617"))
        ));
    }

    #[test]
    fn display_exact_floats() {
        // `{:#}` is the exact value of a float64; plain Display its short text.
        assert_eq!(
            format!("{:#}", f(0.1)),
            "0.1000000000000000055511151231257827021181583404541015625"
        );
        assert_eq!(f(0.1).to_string(), "0.1");
        let tiny = format!("0.{}{}", "0".repeat(323), SUBNORMAL_DIGITS);
        assert_eq!(tiny.len(), 1076);
        assert_eq!(format!("{:#}", f(5e-324)), tiny);
        assert_eq!(format!("{:#}", f(-5e-324)), format!("-{tiny}"));
        // a subnormal's short text has the digits of a 53-bit mantissa (go-cty's)
        assert_eq!(
            f(5e-324).to_string(),
            format!("0.{}4940656458412465", "0".repeat(323))
        );
        assert_eq!(format!("{:#}", f(1e300)), E300);
        assert_eq!(f(1e300).to_string(), format!("1{}", "0".repeat(300)));
        assert_eq!(format!("{:#}", f(f64::MAX)), format!("{:.0}", f64::MAX));
        assert_eq!(f(1.5).to_string(), "1.5");
        assert_eq!(f(-2.0).to_string(), "-2");
        assert_eq!(f(-0.0).to_string(), "-0");
        assert_eq!(format!("{:#}", f(-0.0)), "0");
        assert_eq!(f(1e21).to_string(), "1000000000000000000000");
        // Every exact expansion round-trips.
        for x in [0.1, 5e-324, 1e300, f64::MAX, f64::MIN_POSITIVE, -1e-310] {
            assert_eq!(num(&format!("{:#}", f(x))), f(x));
            assert_eq!(num(&format!("{:#}", f(x))).to_exact_f64(), Some(x));
        }
        // Text-born numbers keep their digits either way.
        let exact = num("0.1000000000000000055511151231257827021181583404541015625");
        assert_eq!(exact, f(0.1));
        assert_eq!(exact.to_string(), format!("{:#}", f(0.1)));
    }

    #[test]
    fn display_and_debug_formatting() {
        assert_eq!(format!("{:?}", num("1.5")), "Number(1.5)");
        assert_eq!(format!("{:?}", Number::infinity()), "Number(+Inf)");
        assert_eq!(format!("{:?}", num("-0.1")), "Number(-0.1)");
        assert_eq!(format!("{:+}", num("0.1")), "+0.1");
        assert_eq!(format!("{:+}", num("-0.1")), "-0.1");
        assert_eq!(format!("{:08}", num("-0.1")), "-00000.1");
        assert_eq!(format!("{:<6}|", num("0.5")), "0.5   |");
        assert_eq!(format!("{:>6}", Number::neg_infinity()), "  -Inf");
        assert_eq!(format!("{:5}", Number::from(-12)), "  -12");
        assert_eq!(Number::default(), Number::from(0));
    }

    #[test]
    fn equality_across_representations() {
        let one = [
            Number::from(1u8),
            Number::from(1i128),
            Number::from(1usize),
            num("1"),
            num("1.0"),
            num("1e0"),
            num("0.1e1"),
            num("+001.000"),
            f(1.0),
            Number::from_f32(1.0).unwrap(),
        ];
        for a in &one {
            for b in &one {
                assert_eq!(a, b);
                assert_eq!(a.cmp(b), Ordering::Equal);
                assert_eq!(hash_of(a), hash_of(b));
            }
        }
        assert_ne!(f(0.1), num("0.1"));
        assert!(num("0.1") < f(0.1));
        assert_eq!(num("-0"), Number::from(0));
        assert_eq!(f(-0.0), Number::from(0));
        assert_eq!(num("0.5"), f(0.5));
        assert_eq!(hash_of(&num("0.5")), hash_of(&f(0.5)));
        assert_eq!(num("1e21"), f(1e21));
        assert_eq!(num("9223372036854775808"), f(TWO_63));
        assert_eq!(num("9223372036854775808"), Number::from(1u64 << 63));
        assert_eq!(num("18446744073709551616"), f(TWO_64));
        assert_eq!(num("18446744073709551616"), Number::from(1u128 << 64));
        assert_eq!(num(E300), f(1e300));
        assert_eq!(Number::from(i128::MIN), f(-TWO_127));
        assert_eq!(Number::from(u128::MAX), num(&u128::MAX.to_string()));
        assert_eq!(Number::from(i128::MAX), num(&i128::MAX.to_string()));
        assert_eq!(
            num("0.1000000000000000055511151231257827021181583404541015625"),
            f(0.1)
        );
        assert_eq!(Number::from_f32(0.1).unwrap(), f(f64::from(0.1f32)));
        assert_eq!(Number::infinity(), num("inf"));
        assert_eq!(Number::neg_infinity(), num("-INF"));
        assert_eq!(Number::infinity(), f(f64::INFINITY));
        assert_eq!(Number::neg_infinity(), f(f64::NEG_INFINITY));
        assert_ne!(Number::infinity(), Number::neg_infinity());
        let set: HashSet<Number> = ["0.5", "5e-1", ".50", "1", "1.0"]
            .iter()
            .map(|s| num(s))
            .chain([f(0.5), f(1.0)])
            .collect();
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn ordering() {
        let ascending = [
            Number::neg_infinity(),
            num("-1e400"),
            f(-1e300),
            Number::from(i128::MIN),
            num("-18446744073709551616"),
            num("-9223372036854775809"),
            Number::from(i64::MIN),
            num("-1.5"),
            num("-1"),
            f(-0.1),
            num("-0.1"),
            f(-5e-324),
            num("-1e-400"),
            num("0"),
            num("1e-400"),
            f(5e-324),
            num("0.1"),
            f(0.1),
            num("0.3333333333333333333333333333333333333333"),
            f(0.5),
            num("0.5000000000000000000000000001"),
            num("1"),
            num("4503599627370496.5"),
            Number::from(i64::MAX),
            num("9223372036854775807.5"),
            Number::from(1u64 << 63),
            num("9223372036854775808.5"),
            Number::from(u64::MAX),
            num("18446744073709551615.5"),
            f(TWO_64),
            num("18446744073709551617"),
            num("12345678901234567890123"),
            num("123456789012345678901234567890.5"),
            f(1e300),
            num("1e400"),
            Number::infinity(),
        ];
        for (i, a) in ascending.iter().enumerate() {
            for (j, b) in ascending.iter().enumerate() {
                assert_eq!(a.cmp(b), i.cmp(&j), "{a:?} vs {b:?}");
                assert_eq!(a == b, i == j, "{a:?} vs {b:?}");
                assert_eq!(a.partial_cmp(b), Some(i.cmp(&j)));
            }
        }
    }

    #[test]
    fn predicates() {
        assert!(num("0").is_zero());
        assert!(!num("0").is_sign_negative());
        assert!(!num("1e-400").is_zero());
        assert!(num("-1e-400").is_sign_negative());
        assert!(f(-0.5).is_sign_negative());
        assert!(Number::neg_infinity().is_sign_negative());
        assert!(!Number::infinity().is_sign_negative());
        assert!(Number::infinity().is_infinite());
        assert!(!num("1e400").is_infinite());
        assert!(num("1e400").is_integer());
        assert!(f(1e300).is_integer());
        assert!(Number::from(u64::MAX).is_integer());
        assert!(!num("0.5").is_integer());
        assert!(!num("1e-400").is_integer());
        assert!(!num("12345678901234567890.1").is_integer());
        assert!(!Number::infinity().is_integer());
    }

    #[test]
    fn integer_conversions() {
        assert_eq!(num("1.5").to_i64(), None);
        assert_eq!(num("9223372036854775808").to_i64(), None);
        assert_eq!(num("9223372036854775807").to_i64(), Some(i64::MAX));
        assert_eq!(num("-9223372036854775808").to_i64(), Some(i64::MIN));
        assert_eq!(num("18446744073709551615").to_u64(), Some(u64::MAX));
        assert_eq!(num("18446744073709551616").to_u64(), None);
        assert_eq!(num("256").to_u8(), None);
        assert_eq!(num("255").to_u8(), Some(255));
        assert_eq!(num("-1").to_u8(), None);
        assert_eq!(num("-128").to_i8(), Some(-128));
        assert_eq!(num("-129").to_i8(), None);
        assert_eq!(num("2.0").to_i32(), Some(2));
        assert_eq!(num("2e1").to_i16(), Some(20));
        assert_eq!(num("65535").to_u16(), Some(65535));
        assert_eq!(num("4294967295").to_u32(), Some(u32::MAX));
        assert_eq!(num("-5").to_isize(), Some(-5));
        assert_eq!(num("5").to_usize(), Some(5));
        assert_eq!(num("1e400").to_u128(), None);
        assert_eq!(num("1e38").to_u128(), Some(10u128.pow(38)));
        assert_eq!(num("-1e38").to_i128(), Some(-(10i128.pow(38))));
        assert_eq!(num("1e39").to_i128(), None);
        assert_eq!(f(TWO_64).to_u128(), Some(1u128 << 64));
        assert_eq!(f(-TWO_127).to_i128(), Some(i128::MIN));
        assert_eq!(f(TWO_127).to_i128(), None);
        assert_eq!(f(TWO_127).to_u128(), Some(1u128 << 127));
        assert_eq!(f(TWO_128).to_u128(), None);
        assert_eq!(f(0.5).to_u128(), None);
        assert_eq!(
            num("18446744073709551617").to_u128(),
            Some((1u128 << 64) + 1)
        );
        assert_eq!(num("-18446744073709551617").to_u128(), None);
        assert_eq!(
            num("-18446744073709551617").to_i128(),
            Some(-(1i128 << 64) - 1)
        );
        assert_eq!(num("18446744073709551617.5").to_u128(), None);
        assert_eq!(Number::infinity().to_u128(), None);
        assert_eq!(Number::neg_infinity().to_i128(), None);
        assert_eq!(Number::from(u128::MAX).to_u128(), Some(u128::MAX));
        assert_eq!(Number::from(i128::MAX).to_i128(), Some(i128::MAX));
        assert_eq!(Number::from(i128::MAX).to_u128(), Some(i128::MAX as u128));
    }

    #[test]
    fn float_conversions() {
        assert_eq!(num("1e400").to_f64(), None);
        assert_eq!(num("-1e400").to_f64(), None);
        assert_eq!(num("0.1").to_f64(), Some(0.1));
        assert_eq!(num("1e-400").to_f64(), Some(0.0));
        assert_eq!(f(0.1).to_f64(), Some(0.1));
        assert_eq!(Number::from(u64::MAX).to_f64(), Some(TWO_64));
        assert_eq!(num("9007199254740993").to_f64(), Some(9007199254740992.0));
        assert_eq!(num("9007199254740993.5").to_f64(), Some(9007199254740994.0));
        assert_eq!(Number::infinity().to_f64(), Some(f64::INFINITY));
        assert_eq!(Number::neg_infinity().to_f64(), Some(f64::NEG_INFINITY));
        // Just above f64::MAX, but rounds down to it.
        let above_max = format!("{}.1", f(f64::MAX));
        assert_eq!(num(&above_max).to_f64(), Some(f64::MAX));

        assert_eq!(num("0.1").to_f32(), Some(0.1f32));
        assert_eq!(f(0.1).to_f32(), Some(0.1f32));
        assert_eq!(num("1e39").to_f32(), None);
        assert_eq!(f(1e39).to_f32(), None);
        assert_eq!(f(1e300).to_f32(), None);
        assert_eq!(Number::infinity().to_f32(), Some(f32::INFINITY));
        // Correct rounding directly from the decimal, no double rounding:
        // 1 + 2^-24 + 2^-60 is just above the f32 halfway point.
        let s = "1.00000005960464477539930799772017"; // > 1 + 2^-24
        assert_eq!(num(s).to_f32(), Some(1.0000001f32));
        assert_eq!(s.parse::<f32>().unwrap(), 1.0000001f32);

        assert_eq!(num("0.5").to_exact_f64(), Some(0.5));
        assert_eq!(num("0.1").to_exact_f64(), None);
        assert_eq!(num("1e400").to_exact_f64(), None);
        assert_eq!(num("1e22").to_exact_f64(), Some(1e22));
        assert_eq!(num("1e23").to_exact_f64(), None);
        assert_eq!(Number::from(i64::MAX).to_exact_f64(), None);
        assert_eq!(Number::from(i64::MIN).to_exact_f64(), Some(-TWO_63));
        assert_eq!(Number::from(u64::MAX).to_exact_f64(), None);
        assert_eq!(Number::from(1u64 << 63).to_exact_f64(), Some(TWO_63));
        assert_eq!(Number::infinity().to_exact_f64(), Some(f64::INFINITY));
        assert_eq!(f(5e-324).to_exact_f64(), Some(5e-324));
    }

    #[test]
    fn float_constructors() {
        assert_eq!(Number::from_f64(f64::NAN), None);
        assert_eq!(Number::from_f32(f32::NAN), None);
        assert!(Number::try_from(f64::NAN).is_err());
        assert!(Number::try_from(f32::NAN).is_err());
        assert_eq!(Number::try_from(2.5f64).unwrap(), num("2.5"));
        assert_eq!(Number::try_from(2.5f32).unwrap(), num("2.5"));
        assert_eq!(Number::try_from(f32::INFINITY).unwrap(), Number::infinity());
        assert_eq!(
            format!("{:#}", Number::from_f32(0.1).unwrap()),
            "0.100000001490116119384765625"
        );
        // the f32 widened to a float64, written as that float64
        assert_eq!(
            Number::from_f32(0.1).unwrap().to_string(),
            "0.10000000149011612"
        );
    }

    #[test]
    fn serde_json_round_trips() {
        // Under serde_json itself, numbers are exact JSON numbers, as tfvalue::json writes
        // them, and read back exactly.
        let cases = [
            ("1", "1"),
            ("-3", "-3"),
            ("0.5", "0.5"),
            ("0.1", "0.1"),
            ("9223372036854775808", "9223372036854775808"),
            ("1e21", "1000000000000000000000"),
            (
                "123456789012345678901234567890.5",
                "123456789012345678901234567890.5",
            ),
        ];
        for (input, json) in cases {
            let n = num(input);
            assert_eq!(serde_json::to_string(&n).unwrap(), json);
            assert_eq!(crate::json::to_string(&n).unwrap(), json);
            let back: Number = serde_json::from_str(json).unwrap();
            assert_eq!(back, n);
            let back: Number =
                serde_json::from_value(serde_json::from_str(json).unwrap()).unwrap_or(back);
            assert!(back == n || n.to_exact_f64().is_none());
        }
        // A float64 is its shortest text, as go-cty writes it.
        assert_eq!(serde_json::to_string(&f(0.1)).unwrap(), "0.1");
        let n: Number = serde_json::from_str("18446744073709551615").unwrap();
        assert_eq!(n, Number::from(u64::MAX));
        // The text 0.1 is the decimal 0.1, not the float64 nearest it.
        let n: Number = serde_json::from_str("0.1").unwrap();
        assert_eq!(n, num("0.1"));
        assert_eq!(n, crate::json::from_str::<Number>("0.1").unwrap());
        let n: Number = serde_json::from_str("\"-Inf\"").unwrap();
        assert_eq!(n, Number::neg_infinity());
        let n: Vec<Number> = serde_json::from_str(r#"[1, "2.5", -1e400]"#).unwrap();
        assert_eq!(n, [num("1"), num("2.5"), num("-1e400")]);
        let err = serde_json::from_str::<Number>("\"0x10\"").unwrap_err();
        assert!(
            err.to_string().contains(r#"invalid number "0x10""#),
            "{err}"
        );
        let err = serde_json::from_str::<Number>("true").unwrap_err();
        assert!(err.to_string().contains("expected a number"), "{err}");
        // Infinity has no JSON form.
        assert!(serde_json::to_string(&Number::infinity()).is_err());
    }

    #[test]
    fn serde_value_deserializers() {
        use serde::de::value::{
            Error, F32Deserializer, F64Deserializer, I128Deserializer, StrDeserializer,
            StringDeserializer, U128Deserializer,
        };
        use serde::de::IntoDeserializer;
        let d: F64Deserializer<Error> = 0.25f64.into_deserializer();
        assert_eq!(Number::deserialize(d).unwrap(), num("0.25"));
        let d: F64Deserializer<Error> = f64::NAN.into_deserializer();
        let err = Number::deserialize(d).unwrap_err().to_string();
        assert!(err.contains("expected a number"), "{err}");
        let d: F32Deserializer<Error> = f32::NAN.into_deserializer();
        assert!(Number::deserialize(d).is_err());
        let d: F32Deserializer<Error> = 0.1f32.into_deserializer();
        assert_eq!(
            Number::deserialize(d).unwrap(),
            Number::from_f32(0.1).unwrap()
        );
        let d: I128Deserializer<Error> = i128::MIN.into_deserializer();
        assert_eq!(Number::deserialize(d).unwrap(), Number::from(i128::MIN));
        let d: U128Deserializer<Error> = u128::MAX.into_deserializer();
        assert_eq!(Number::deserialize(d).unwrap(), Number::from(u128::MAX));
        let d: StrDeserializer<Error> = "1e3".into_deserializer();
        assert_eq!(Number::deserialize(d).unwrap(), Number::from(1000));
        let d: StringDeserializer<Error> = String::from("-0.5").into_deserializer();
        assert_eq!(Number::deserialize(d).unwrap(), num("-0.5"));
        let d: StrDeserializer<Error> = "nan".into_deserializer();
        let err = Number::deserialize(d).unwrap_err().to_string();
        assert_eq!(err, r#"invalid number "nan""#);
    }

    /// A serializer that records the call sequence, to check the
    /// newtype-struct token and the wire mapping.
    mod record {
        use serde::ser::{self, Impossible, Serialize};
        use std::fmt;

        #[derive(Debug)]
        pub struct Error(String);
        impl fmt::Display for Error {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl std::error::Error for Error {}
        impl ser::Error for Error {
            fn custom<T: fmt::Display>(msg: T) -> Self {
                Error(msg.to_string())
            }
        }

        pub struct Recorder;

        macro_rules! unsupported {
            ($($name:ident($($arg:ty),*) -> $ret:ty;)*) => {$(
                fn $name(self, $(_: $arg),*) -> Result<$ret, Error> {
                    Err(Error(stringify!($name).into()))
                }
            )*};
        }

        impl ser::Serializer for Recorder {
            type Ok = String;
            type Error = Error;
            type SerializeSeq = Impossible<String, Error>;
            type SerializeTuple = Impossible<String, Error>;
            type SerializeTupleStruct = Impossible<String, Error>;
            type SerializeTupleVariant = Impossible<String, Error>;
            type SerializeMap = Impossible<String, Error>;
            type SerializeStruct = Impossible<String, Error>;
            type SerializeStructVariant = Impossible<String, Error>;

            fn serialize_u64(self, v: u64) -> Result<String, Error> {
                Ok(format!("u64 {v}"))
            }
            fn serialize_i64(self, v: i64) -> Result<String, Error> {
                Ok(format!("i64 {v}"))
            }
            fn serialize_f64(self, v: f64) -> Result<String, Error> {
                Ok(format!("f64 {v:?}"))
            }
            fn serialize_str(self, v: &str) -> Result<String, Error> {
                Ok(format!("str {v}"))
            }
            fn serialize_newtype_struct<T: ?Sized + Serialize>(
                self,
                name: &'static str,
                value: &T,
            ) -> Result<String, Error> {
                Ok(format!("{name}({})", value.serialize(Recorder)?))
            }
            unsupported! {
                serialize_bool(bool) -> String;
                serialize_i8(i8) -> String;
                serialize_i16(i16) -> String;
                serialize_i32(i32) -> String;
                serialize_u8(u8) -> String;
                serialize_u16(u16) -> String;
                serialize_u32(u32) -> String;
                serialize_f32(f32) -> String;
                serialize_char(char) -> String;
                serialize_bytes(&[u8]) -> String;
                serialize_none() -> String;
                serialize_unit() -> String;
                serialize_unit_struct(&'static str) -> String;
                serialize_unit_variant(&'static str, u32, &'static str) -> String;
                serialize_seq(Option<usize>) -> Self::SerializeSeq;
                serialize_tuple(usize) -> Self::SerializeTuple;
                serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
                serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
                serialize_map(Option<usize>) -> Self::SerializeMap;
                serialize_struct(&'static str, usize) -> Self::SerializeStruct;
                serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
            }
            fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<String, Error> {
                Err(Error("some".into()))
            }
            fn serialize_newtype_variant<T: ?Sized + Serialize>(
                self,
                _: &'static str,
                _: u32,
                _: &'static str,
                _: &T,
            ) -> Result<String, Error> {
                Err(Error("newtype_variant".into()))
            }
        }
    }

    #[test]
    fn serialize_uses_token_and_wire() {
        let ser = |n: &Number| n.serialize(record::Recorder).unwrap();
        let t = TOKEN;
        assert_eq!(ser(&num("7")), format!("{t}(u64 7)"));
        assert_eq!(ser(&num("-7")), format!("{t}(i64 -7)"));
        assert_eq!(ser(&num("0.5")), format!("{t}(f64 0.5)"));
        assert_eq!(ser(&num("0.1")), format!("{t}(str 0.1)"));
        assert_eq!(ser(&Number::infinity()), format!("{t}(f64 inf)"));
        assert_eq!(ser(&Number::neg_infinity()), format!("{t}(f64 -inf)"));
        assert_eq!(
            ser(&num("9223372036854775808")),
            format!("{t}(str 9223372036854775808)")
        );
    }

    #[test]
    fn canonical_reprs() {
        // Integers in i64 range are Int; i64::MAX+1..=u64::MAX are UInt.
        assert!(matches!(num("-0").repr, Repr::Int(0)));
        assert!(matches!(f(-0.0).repr, Repr::Int(0)));
        assert!(matches!(num("12e2").repr, Repr::Int(1200)));
        assert!(matches!(f(-TWO_63).repr, Repr::Int(i64::MIN)));
        assert!(matches!(num("9223372036854775808").repr, Repr::UInt(_)));
        assert!(matches!(f(TWO_63).repr, Repr::UInt(_)));
        assert!(matches!(
            Number::from(u128::from(u64::MAX)).repr,
            Repr::UInt(_)
        ));
        // Other exact f64 values are Float.
        assert!(matches!(num("0.5").repr, Repr::Float(_)));
        assert!(matches!(num("1e22").repr, Repr::Float(_)));
        assert!(matches!(num("-18446744073709551616").repr, Repr::Float(_)));
        assert!(matches!(Number::from(1u128 << 100).repr, Repr::Float(_)));
        // Everything else is Decimal.
        assert!(matches!(num("0.1").repr, Repr::Decimal(_)));
        assert!(matches!(num("1e23").repr, Repr::Decimal(_)));
        assert!(matches!(num("18446744073709551617").repr, Repr::Decimal(_)));
        assert!(matches!(Number::from(u128::MAX).repr, Repr::Decimal(_)));
        assert!(matches!(Number::from(i128::MAX).repr, Repr::Decimal(_)));
        assert!(matches!(Number::from(i128::MIN + 1).repr, Repr::Decimal(_)));
        assert_eq!(std::mem::size_of::<Number>(), 24);
    }

    // ---- reference implementations for the property tests ----

    /// Plain text of a decimal literal (digits, optional point, optional
    /// exponent), computed by string shifting.
    fn ref_plain(s: &str) -> String {
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let (mant, exp) = match s.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i64>().unwrap()),
            None => (s, 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let digits = format!("{int}{frac}");
        let point = int.len() as i64 + exp;
        let body = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}", "0".repeat(point as usize - digits.len()))
        } else {
            let (a, b) = digits.split_at(point as usize);
            format!("{a}.{b}")
        };
        format!("{}{body}", if neg { "-" } else { "" })
    }

    /// Normalises plain text: no leading integer zeros, no trailing
    /// fraction zeros, no "-0".
    fn ref_normalize(s: &str) -> String {
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let int = if int.is_empty() { "0" } else { int };
        let body = if frac.is_empty() {
            int.to_string()
        } else {
            format!("{int}.{frac}")
        };
        if body == "0" {
            body
        } else if neg {
            format!("-{body}")
        } else {
            body
        }
    }

    /// Compares two plain decimal texts by value.
    fn ref_cmp(a: &str, b: &str) -> Ordering {
        fn key(s: &str) -> (i8, String, String) {
            let n = ref_normalize(s);
            let (neg, body) = match n.strip_prefix('-') {
                Some(r) => (true, r.to_string()),
                None => (false, n.clone()),
            };
            let (int, frac) = body.split_once('.').unwrap_or((&body, ""));
            let sign = if n == "0" {
                0
            } else if neg {
                -1
            } else {
                1
            };
            (sign, int.to_string(), frac.to_string())
        }
        let (sa, ia, fa) = key(a);
        let (sb, ib, fb) = key(b);
        if sa != sb {
            return sa.cmp(&sb);
        }
        let mag = ia
            .len()
            .cmp(&ib.len())
            .then_with(|| ia.cmp(&ib))
            .then_with(|| fa.cmp(&fb));
        if sa < 0 {
            mag.reverse()
        } else {
            mag
        }
    }

    /// The exact plain text of a finite f64, from the standard library's
    /// exact formatting.
    fn ref_f64_plain(x: f64) -> String {
        ref_normalize(&format!("{x:.1074}"))
    }

    fn finite_f64() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<u64>().prop_map(f64::from_bits),
            any::<f64>(),
            any::<i64>().prop_map(|i| i as f64),
            (any::<i32>(), -30i32..30).prop_map(|(m, e)| f64::from(m) * 2f64.powi(e)),
        ]
        .prop_filter("finite", |x| x.is_finite())
    }

    fn decimal_literal() -> impl Strategy<Value = String> {
        (
            prop_oneof![Just(""), Just("-"), Just("+")],
            "[0-9]{0,30}",
            prop_oneof![Just(None), "[0-9]{0,30}".prop_map(Some)],
            prop_oneof![Just(None), (-80i32..80).prop_map(Some)],
        )
            .prop_filter_map("needs a digit", |(sign, int, frac, exp)| {
                if int.is_empty() && frac.as_deref().unwrap_or("").is_empty() {
                    return None;
                }
                let mut s = format!("{sign}{int}");
                if let Some(frac) = frac {
                    s.push('.');
                    s.push_str(&frac);
                }
                if let Some(e) = exp {
                    s.push_str(&format!("e{e}"));
                }
                Some(s)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn f64_round_trips(x in finite_f64()) {
            let n = Number::from_f64(x).unwrap();
            prop_assert_eq!(n.to_exact_f64(), Some(x));
            prop_assert_eq!(n.to_f64(), Some(x));
            let text = format!("{n:#}");
            prop_assert_eq!(&text, &ref_f64_plain(x));
            prop_assert!(text.len() <= MAX_NUMBER_TEXT_LEN);
            let back = num(&text);
            prop_assert_eq!(&back, &n);
            prop_assert_eq!(hash_of(&back), hash_of(&n));
            prop_assert_eq!(n.to_f32(), Some(x as f32).filter(|g| g.is_finite()));
            // The shortest round-trip text is a different number unless exact.
            let short = num(&format!("{x:e}"));
            prop_assert_eq!(short.cmp(&n), ref_cmp(&ref_plain(&format!("{x:e}")), &text));
            prop_assert_eq!(short.to_f64(), Some(x));
        }

        #[test]
        fn f64_ordering(x in finite_f64(), y in finite_f64()) {
            let (a, b) = (f(x), f(y));
            prop_assert_eq!(Some(a.cmp(&b)), x.partial_cmp(&y));
            prop_assert_eq!(a == b, x == y);
        }

        #[test]
        fn i128_round_trips(v in any::<i128>(), w in any::<i128>()) {
            let (a, b) = (Number::from(v), Number::from(w));
            prop_assert_eq!(a.to_i128(), Some(v));
            prop_assert_eq!(a.to_string(), v.to_string());
            prop_assert_eq!(num(&v.to_string()), a.clone());
            prop_assert_eq!(a.cmp(&b), v.cmp(&w));
            prop_assert_eq!(a == b, v == w);
            prop_assert_eq!(a.to_i64(), i64::try_from(v).ok());
            prop_assert_eq!(a.to_u64(), u64::try_from(v).ok());
            prop_assert_eq!(a.to_i32(), i32::try_from(v).ok());
            prop_assert_eq!(a.to_u128(), u128::try_from(v).ok());
            prop_assert_eq!(a.to_f64(), Some(v as f64));
            prop_assert_eq!(a.to_f32(), Some(v as f32));
            prop_assert_eq!(a.is_integer(), true);
        }

        #[test]
        fn small_i128_round_trips(v in -(1i128 << 70)..(1i128 << 70)) {
            let a = Number::from(v);
            prop_assert_eq!(a.to_i128(), Some(v));
            prop_assert_eq!(a.to_string(), v.to_string());
            prop_assert_eq!(num(&v.to_string()), a);
        }

        #[test]
        fn u128_round_trips(v in any::<u128>()) {
            let a = Number::from(v);
            prop_assert_eq!(a.to_u128(), Some(v));
            prop_assert_eq!(a.to_string(), v.to_string());
            prop_assert_eq!(num(&v.to_string()), a);
        }

        #[test]
        fn int_vs_float(v in any::<i64>(), x in finite_f64(), near in any::<bool>()) {
            let x = if near { v as f64 } else { x };
            let (a, b) = (Number::from(v), f(x));
            prop_assert_eq!(a.cmp(&b), ref_cmp(&v.to_string(), &ref_f64_plain(x)));
            let (a, b) = (Number::from(v as u64), f(x));
            prop_assert_eq!(a.cmp(&b), ref_cmp(&(v as u64).to_string(), &ref_f64_plain(x)));
        }

        #[test]
        fn decimal_round_trips(s in decimal_literal()) {
            let n = num(&s);
            let plain = ref_normalize(&ref_plain(&s));
            prop_assert_eq!(n.to_string(), plain.clone());
            let again = num(&n.to_string());
            prop_assert_eq!(&again, &n);
            prop_assert_eq!(hash_of(&again), hash_of(&n));
            prop_assert_eq!(again.to_string(), plain);
            prop_assert_eq!(n.to_f64(), s.parse::<f64>().ok().filter(|x| x.is_finite()));
            prop_assert_eq!(n.to_f32(), s.parse::<f32>().ok().filter(|x| x.is_finite()));
            if let Some(x) = n.to_exact_f64() {
                prop_assert_eq!(f(x), n.clone());
            }
            match n.wire() {
                WireNumber::Text(t) => prop_assert_eq!(num(&t), n),
                WireNumber::Float(x) => {
                    prop_assert!(x.fract() != 0.0);
                    prop_assert_eq!(f(x), n);
                }
                WireNumber::Int(i) => prop_assert_eq!(Number::from(i), n),
                WireNumber::UInt(u) => prop_assert_eq!(Number::from(u), n),
            }
        }

        #[test]
        fn decimal_ordering(a in decimal_literal(), b in decimal_literal()) {
            let (x, y) = (num(&a), num(&b));
            let want = ref_cmp(&ref_plain(&a), &ref_plain(&b));
            prop_assert_eq!(x.cmp(&y), want);
            prop_assert_eq!(y.cmp(&x), want.reverse());
            prop_assert_eq!(x == y, want == Ordering::Equal);
        }

        #[test]
        fn decimal_vs_f64(a in decimal_literal(), x in finite_f64()) {
            let (n, m) = (num(&a), f(x));
            prop_assert_eq!(n.cmp(&m), ref_cmp(&ref_plain(&a), &ref_f64_plain(x)));
            // Near misses: perturb the exact expansion in its last digit.
            let exact = ref_f64_plain(x);
            for tweak in ["1", "0", "9"] {
                let t = if exact.contains('.') {
                    format!("{exact}{tweak}")
                } else {
                    format!("{exact}.{tweak}")
                };
                prop_assert_eq!(num(&t).cmp(&m), ref_cmp(&t, &exact));
                prop_assert_eq!(m.cmp(&num(&t)), ref_cmp(&exact, &t));
            }
        }
    }
}
