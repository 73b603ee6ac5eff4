//! [`validate`]: a value's bytes checked against its type without building the value.

use std::cmp::Ordering;

use super::read::{number_from_token, SliceReader, Token};
use super::value::{from_msgpack_general, read, Bail, Fast};
use crate::error::Result;
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::private::bytes_cmp;
use crate::types::Type;
use crate::unknown::Refinements;
use crate::unknown::{read_refinements, Decoded, RefineKind};
use crate::value::Value;

/// What [`validate`] learned about a value besides that it conforms to its type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Validated {
    unknowns: bool,
    refinements: bool,
}

impl Validated {
    /// Whether the value holds no unknown anywhere (a value of a provider's state, as
    /// Terraform sends it in `prior_state` and `current_state`, always does).
    pub fn is_wholly_known(&self) -> bool {
        !self.unknowns
    }

    /// Whether some unknown in the value carries refinements (not null, a prefix, bounds).
    pub fn has_refinements(&self) -> bool {
        self.refinements
    }

    /// What a decoded value holds.
    pub(crate) fn of(v: &Value) -> Validated {
        let mut out = Validated::default();
        v.walk(&mut |_, v| {
            if let Some(r) = v.as_unknown() {
                out.unknowns = true;
                out.refinements |= !r.is_empty();
            }
        });
        out
    }
}

/// Checks that `bytes` hold one value of type `ty`, exactly as [`Value::from_msgpack`]
/// would read it, without building the value: nothing is allocated for the values of
/// the input (strings are checked for UTF-8 where they lie, numbers parsed, map keys
/// checked for order and duplicates, refinements for consistency).
///
/// A server checks what it receives this way before handing the bytes on to a typed
/// decode, at a fraction of the cost of decoding them twice.
///
/// ```
/// use tfvalue::{msgpack, Type};
///
/// let ty: Type = serde_json::from_str(r#"["object",{"name":"string","size":"number"}]"#)?;
/// let v = msgpack::validate(b"\x82\xa4name\xa3web\xa4size\xd4\x00\x00", &ty)?;
/// assert!(!v.is_wholly_known());
/// let err = msgpack::validate(b"\x82\xa4name\xa3web\xa4size\xa1x", &ty).unwrap_err();
/// assert!(err.to_string().contains("at size"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// Exactly those of [`Value::from_msgpack`] on the same bytes: the value's path and
/// what was expected.
pub fn validate(bytes: &[u8], ty: &Type) -> Result<Validated> {
    validate_with(bytes, ty, Strings::Utf8)
}

/// As [`validate`], except that strings are not checked for UTF-8: what a server checks
/// of a value it hands to code that decodes it, since a decode checks every string it
/// reads (and a string nobody reads is never trusted). Everything else is checked: the
/// value's shape against the type (kinds, attribute names, lengths, map keys in order
/// and distinct), numbers, refinements, and whether it is wholly known.
///
/// ```
/// use tfvalue::{msgpack, Type};
///
/// let ty: Type = serde_json::from_str(r#"["object",{"name":"string"}]"#)?;
/// assert!(msgpack::validate_structure(b"\x81\xa4name\xa2\xff\xfe", &ty).is_ok());
/// assert!(msgpack::validate(b"\x81\xa4name\xa2\xff\xfe", &ty).is_err());
/// assert!(msgpack::validate_structure(b"\x81\xa4name\x05", &ty).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// Those of [`validate`], but for invalid UTF-8 in strings.
pub fn validate_structure(bytes: &[u8], ty: &Type) -> Result<Validated> {
    validate_with(bytes, ty, Strings::Unchecked)
}

/// Whether strings are checked for UTF-8.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strings {
    Utf8,
    Unchecked,
}

fn validate_with(bytes: &[u8], ty: &Type, strings: Strings) -> Result<Validated> {
    let mut r = SliceReader::new(bytes);
    let mut out = Validated::default();
    if check(&mut r, ty, DEFAULT_MAX_DEPTH, strings, &mut out).is_ok() && r.remaining() == 0 {
        return Ok(out);
    }
    // Whatever the walk does not take on (and every error): the general path decides,
    // with its messages and paths.
    from_msgpack_general(bytes, ty).map(|v| Validated::of(&v))
}

fn check(
    r: &mut SliceReader<'_>,
    ty: &Type,
    depth: usize,
    strings: Strings,
    out: &mut Validated,
) -> Fast<()> {
    let depth = depth.checked_sub(1).ok_or(Bail)?;
    let marker = r.peek()?;
    if marker == 0xc0 {
        r.next()?;
        return Ok(());
    }
    if matches!(marker, 0xc7..=0xc9 | 0xd4..=0xd8) {
        if matches!(ty, Type::Dynamic) {
            return Err(Bail);
        }
        let Token::Ext(raw) = r.next()? else {
            return Err(Bail);
        };
        let refinements = super::unknown::Refinements::from_ext(raw)?;
        if let Decoded::Unknown(refined) = read_refinements(refinements, RefineKind::of(ty))? {
            out.unknowns = true;
            out.refinements |= !refined.is_empty();
        }
        return Ok(());
    }
    match ty {
        Type::String => string(r, strings),
        Type::Number => {
            let t = r.next()?;
            match t {
                Token::UInt(_) | Token::Int(_) => Ok(()),
                Token::F64(f) if f.is_finite() => Ok(()),
                Token::F64(_) | Token::Str(_) => {
                    number_from_token(t)?;
                    Ok(())
                }
                _ => Err(Bail),
            }
        }
        Type::Bool => match r.next()? {
            Token::Bool(_) => Ok(()),
            _ => Err(Bail),
        },
        Type::List(t) | Type::Set(t) => {
            let Token::Array(n) = r.next()? else {
                return Err(Bail);
            };
            if !is_primitive(t) && t.has_dynamic() {
                return Err(Bail);
            }
            for _ in 0..n {
                // Strings (most elements) without a call of their own.
                if matches!(**t, Type::String) && string_fast(r, strings)? {
                    continue;
                }
                check(r, t, depth, strings, out)?;
            }
            Ok(())
        }
        Type::Map(t) => {
            let Token::Map(n) = r.next()? else {
                return Err(Bail);
            };
            if !is_primitive(t) && t.has_dynamic() {
                return Err(Bail);
            }
            let mut prev: Option<&[u8]> = None;
            for _ in 0..n {
                let k = key(r)?.ok_or(Bail)?;
                // Keys in strictly increasing order, as Terraform writes them; anything
                // else (duplicates included) is the general path's to judge.
                if prev.is_some_and(|p| bytes_cmp(p, k) != Ordering::Less) {
                    return Err(Bail);
                }
                if strings == Strings::Utf8 && !is_utf8(k) {
                    return Err(Bail);
                }
                prev = Some(k);
                if matches!(**t, Type::String) && string_fast(r, strings)? {
                    continue;
                }
                check(r, t, depth, strings, out)?;
            }
            Ok(())
        }
        Type::Object(o) => {
            let Token::Map(n) = r.next()? else {
                return Err(Bail);
            };
            if n as usize != o.len() {
                return Err(Bail);
            }
            for (aty, name) in o.attributes().values().zip(o.keys()) {
                let k = key(r)?.ok_or(Bail)?;
                if bytes_cmp(k, name.as_bytes()) != Ordering::Equal {
                    return Err(Bail);
                }
                if matches!(aty, Type::String) && string_fast(r, strings)? {
                    continue;
                }
                check(r, aty, depth, strings, out)?;
            }
            Ok(())
        }
        Type::Tuple(ts) => {
            let Token::Array(n) = r.next()? else {
                return Err(Bail);
            };
            if n as usize != ts.len() {
                return Err(Bail);
            }
            for t in ts {
                check(r, t, depth, strings, out)?;
            }
            Ok(())
        }
        Type::Dynamic => {
            // `[type JSON, value]`, with a concrete type that has no optional attributes
            // (what go-cty writes); anything else is the general path's.
            let Token::Array(2) = r.next()? else {
                return Err(Bail);
            };
            let (Token::Str(json) | Token::Bin(json)) = r.next()? else {
                return Err(Bail);
            };
            let inner = Type::from_json(json)?;
            if inner.has_dynamic() || has_optional(&inner) {
                return Err(Bail);
            }
            check(r, &inner, depth, strings, out)
        }
    }
}

/// A string where the type says string (null and unknowns were taken before).
#[inline]
fn string(r: &mut SliceReader<'_>, strings: Strings) -> Fast<()> {
    let b = key(r)?.ok_or(Bail)?;
    if strings == Strings::Unchecked || is_utf8(b) {
        Ok(())
    } else {
        Err(Bail)
    }
}

/// `Ok(true)` when a short string came next and was taken (and is UTF-8 if asked);
/// `Ok(false)` with nothing consumed when something else comes (null, an unknown, a
/// long string): [`check`] takes it.
#[inline(always)]
fn string_fast(r: &mut SliceReader<'_>, strings: Strings) -> Fast<bool> {
    match r.try_short_str() {
        Some(b) if strings == Strings::Unchecked || is_utf8(b) => Ok(true),
        Some(_) => Err(Bail),
        None => Ok(false),
    }
}

/// Whether `b` is UTF-8. ASCII, what nearly every string Terraform sends is, is checked a
/// word at a time; anything else goes through the full check (its error, with the byte,
/// comes from the general path).
#[inline]
fn is_utf8(b: &[u8]) -> bool {
    b.is_ascii() || std::str::from_utf8(b).is_ok()
}

/// A string, number or bool: no `dynamic` inside.
#[inline]
fn is_primitive(t: &Type) -> bool {
    matches!(t, Type::String | Type::Number | Type::Bool)
}

fn has_optional(ty: &Type) -> bool {
    match ty {
        Type::List(t) | Type::Set(t) | Type::Map(t) => has_optional(t),
        Type::Object(o) => {
            o.attributes().keys().any(|k| o.is_optional(k))
                || o.attributes().values().any(has_optional)
        }
        Type::Tuple(ts) => ts.iter().any(has_optional),
        _ => false,
    }
}

/// Whether `applied` (the new state a provider returns from apply) provably keeps the plan
/// `planned`, both of type `ty`, judged on the bytes: wherever the plan is known, the
/// applied value is the same value (the same bytes), and wherever the plan is unknown,
/// `admits` accepts the applied value with the unknown's refinements (it receives the
/// decoded value; with no refinements the value is accepted without decoding it).
///
/// `true` means no check of the plan against the new state would find a problem, and
/// that `applied` is a wholly known value of `ty`: what `applied` holds where the plan is
/// unknown is checked as [`validate`] checks it, and elsewhere it is the plan's own bytes
/// (so `planned` must be a value already checked against `ty`). `false` means this test
/// cannot tell (a difference, an invalid or unknown applied value, equal values in other
/// bytes, a set whose elements were unknown, a `dynamic` value that changed): check
/// `applied` with [`validate`] and the plan on decoded values, with their messages.
///
/// ```
/// use tfvalue::{msgpack, Type};
///
/// let ty: Type = serde_json::from_str(r#"["object",{"id":"string","name":"string"}]"#)?;
/// let planned = b"\x82\xa2id\xd4\x00\x00\xa4name\xa3web";
/// let applied = b"\x82\xa2id\xa3i-1\xa4name\xa3web";
/// assert!(msgpack::keeps_plan(planned, applied, &ty, |_, _| true));
/// let renamed = b"\x82\xa2id\xa3i-1\xa4name\xa3api";
/// assert!(!msgpack::keeps_plan(planned, renamed, &ty, |_, _| true));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn keeps_plan(
    planned: &[u8],
    applied: &[u8],
    ty: &Type,
    admits: impl Fn(&Refinements, &Value) -> bool,
) -> bool {
    let mut p = SliceReader::new(planned);
    let mut a = SliceReader::new(applied);
    matches!(
        same_or_resolved(&mut p, &mut a, ty, DEFAULT_MAX_DEPTH, &admits),
        Ok(true)
    ) && p.remaining() == 0
        && a.remaining() == 0
}

/// Reads one value from each side; `Ok(true)` when the applied one keeps the planned one.
fn same_or_resolved(
    p: &mut SliceReader<'_>,
    a: &mut SliceReader<'_>,
    ty: &Type,
    depth: usize,
    admits: &impl Fn(&Refinements, &Value) -> bool,
) -> Fast<bool> {
    let depth = depth.checked_sub(1).ok_or(Bail)?;
    let marker = p.peek()?;
    if marker == 0xc0 {
        p.next()?;
        return Ok(matches!(a.next()?, Token::Nil));
    }
    if matches!(marker, 0xc7..=0xc9 | 0xd4..=0xd8) {
        let Token::Ext(raw) = p.next()? else {
            return Err(Bail);
        };
        if matches!(ty, Type::Dynamic) {
            return Err(Bail);
        }
        let refinements = super::unknown::Refinements::from_ext(raw)?;
        return match read_refinements(refinements, RefineKind::of(ty))? {
            // An unknown refined as null is the known null.
            Decoded::Null => Ok(matches!(a.next()?, Token::Nil)),
            Decoded::Unknown(r) if r.is_empty() => {
                let mut seen = Validated::default();
                check(a, ty, depth, Strings::Utf8, &mut seen)?;
                Ok(seen.is_wholly_known())
            }
            Decoded::Unknown(r) => {
                let value = read(a, ty, depth)?;
                Ok(Validated::of(&value).is_wholly_known() && admits(&r, &value))
            }
        };
    }
    // Containers whose elements are walked one by one (lists, tuples, maps, objects);
    // anything else must be the same bytes.
    match ty {
        // One item (the marker showed it is no unknown): the applied value must be the
        // same bytes, which need no walk of their own.
        t if is_primitive(t) => {
            let start = p.pos();
            if p.try_short_str().is_none() {
                p.next()?;
            }
            let planned = p.input_full().get(start..p.pos()).ok_or(Bail)?;
            Ok(a.eat(planned))
        }
        Type::List(_) | Type::Tuple(_) if !of_dynamic(ty) => {
            let (Token::Array(n), Token::Array(m)) = (p.next()?, a.next()?) else {
                return Ok(false);
            };
            if n != m {
                return Ok(false);
            }
            if let Type::List(t) = ty {
                if let Some(same) = same_flat(p, a, t, u64::from(n))? {
                    return Ok(same);
                }
            }
            for i in 0..n as usize {
                let t = match ty {
                    Type::List(t) => &**t,
                    Type::Tuple(ts) => ts.get(i).ok_or(Bail)?,
                    _ => return Err(Bail),
                };
                if !same_or_resolved(p, a, t, depth, admits)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Type::Map(_) | Type::Object(_) if !of_dynamic(ty) => {
            let (Token::Map(n), Token::Map(m)) = (p.next()?, a.next()?) else {
                return Ok(false);
            };
            if n != m {
                return Ok(false);
            }
            if let Type::Map(t) = ty {
                if let Some(same) = same_flat(p, a, t, 2 * u64::from(n))? {
                    return Ok(same);
                }
            }
            // An object's attributes come in the type's order (the canonical order, as the
            // plan was checked to have): each key is matched, not looked up.
            let mut attributes = match ty {
                Type::Object(o) if n as usize == o.len() => {
                    Some(o.keys().iter().zip(o.attributes().values()))
                }
                Type::Object(_) => return Err(Bail),
                _ => None,
            };
            for _ in 0..n {
                let (Some(pk), Some(ak)) = (key(p)?, key(a)?) else {
                    return Ok(false);
                };
                if bytes_cmp(pk, ak) != Ordering::Equal {
                    return Ok(false);
                }
                let t = match (&mut attributes, ty) {
                    (Some(attributes), _) => match attributes.next() {
                        Some((key, t)) if bytes_cmp(key.as_bytes(), pk) == Ordering::Equal => t,
                        _ => return Err(Bail),
                    },
                    (None, Type::Map(t)) => t,
                    _ => return Err(Bail),
                };
                if !same_or_resolved(p, a, t, depth, admits)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => {
            let (ps, pe) = span(p, depth)?;
            let (as_, ae) = span(a, depth)?;
            let planned = p.input_full().get(ps..pe).ok_or(Bail)?;
            let applied = a.input_full().get(as_..ae).ok_or(Bail)?;
            // A set (or `dynamic` value) with an unknown inside cannot be matched on its
            // bytes: the full check correlates its elements.
            Ok(planned == applied && !has_ext(planned)?)
        }
    }
}

/// A string (a map key, an attribute name or a string value) if one comes next; `None`
/// when something else came (and was consumed).
#[inline(always)]
fn key<'a>(r: &mut SliceReader<'a>) -> Fast<Option<&'a [u8]>> {
    if let Some(k) = r.try_short_str() {
        return Ok(Some(k));
    }
    match r.next()? {
        Token::Str(k) => Ok(Some(k)),
        _ => Ok(None),
    }
}

/// The body of a list or map of strings, numbers or bools (`items` items, keys included)
/// with no unknown in the plan: `Some(true)` when the applied body is the same bytes.
/// `None` (nothing consumed) when the body is not one of those or the plan holds an
/// unknown there: the caller walks it element by element.
fn same_flat(
    p: &mut SliceReader<'_>,
    a: &mut SliceReader<'_>,
    elem: &Type,
    items: u64,
) -> Fast<Option<bool>> {
    if !is_primitive(elem) {
        return Ok(None);
    }
    let start = p.pos();
    for _ in 0..items {
        if p.try_short_str().is_some() {
            continue;
        }
        match p.next()? {
            Token::Ext(_) | Token::Array(_) | Token::Map(_) => {
                p.seek(start);
                return Ok(None);
            }
            _ => {}
        }
    }
    let planned = p.input_full().get(start..p.pos()).ok_or(Bail)?;
    Ok(Some(a.eat(planned)))
}

/// The byte range of the next value.
fn span(r: &mut SliceReader<'_>, depth: usize) -> Fast<(usize, usize)> {
    let start = r.pos();
    r.skip_value(depth)?;
    Ok((start, r.pos()))
}

/// Whether the value in `bytes` holds an extension (an unknown) anywhere. Iterative:
/// each item read consumes input, so the walk ends with the bytes (a container's
/// announced length was checked against them), however deep or wide the value.
fn has_ext(bytes: &[u8]) -> Fast<bool> {
    let mut r = SliceReader::new(bytes);
    let mut pending: u64 = 1;
    while pending > 0 {
        pending -= 1;
        match r.next()? {
            Token::Ext(_) => return Ok(true),
            Token::Array(n) => pending += u64::from(n),
            Token::Map(n) => pending += 2 * u64::from(n),
            _ => {}
        }
    }
    Ok(false)
}

/// A list or map of `dynamic` values: its elements must agree on their types, which
/// only the full check correlates.
fn of_dynamic(ty: &Type) -> bool {
    matches!(ty, Type::List(t) | Type::Map(t) if matches!(**t, Type::Dynamic))
}
