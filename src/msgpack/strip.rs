//! [`without_refinements`]: a value's bytes with its unknowns' refinements dropped,
//! written as it streams by.

use super::read::{number_from_token, SliceReader, Token};
use super::validate::validate;
use super::write::{write_array_len, write_map_len, write_number, write_str};
use crate::error::{Error, Result};
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::private::bytes_cmp;
use crate::types::Type;
use crate::unknown::Refinements;
use crate::value::Value;

/// The plain unknown as go-cty writes it: extension 0 with one ignored byte of payload.
const PLAIN_UNKNOWN: [u8; 3] = [0xd4, 0x00, 0x00];

/// The bytes of the value `bytes` hold (of type `ty`), with every unknown's refinements
/// dropped: what Terraform before 1.6 sends back of a plan a provider made with
/// refinements, and so what a provider compares such a plan with.
///
/// The result is exactly that of [`Value::from_msgpack`], then each unknown made plain,
/// then [`Value::to_msgpack`] (canonical bytes: smallest forms, strings in NFC, sets in
/// their order), but written as the input streams by: no [`Value`] is built, except of
/// each set (whose order may change once its elements lose their refinements), each
/// `dynamic` value, and each list or map with a `dynamic` in its element type (whose
/// elements settle on one type). For a large plan that is the difference between about
/// its own size and several times it.
///
/// ```
/// use tfvalue::{msgpack, Refinements, Type, Value};
///
/// let ty = Type::object([("id", Type::String), ("name", Type::String)]);
/// let refined = Value::Unknown(Refinements::new().not_null().with_prefix("i-"));
/// let plan = Value::Object([
///     ("id".to_string(), refined),
///     ("name".to_string(), Value::from("web")),
/// ].into_iter().collect());
/// let bytes = plan.to_msgpack(&ty)?;
/// let plain = msgpack::without_refinements(&bytes, &ty)?;
/// let expected = Value::Object([
///     ("id".to_string(), Value::Unknown(Refinements::new())),
///     ("name".to_string(), Value::from("web")),
/// ].into_iter().collect());
/// assert_eq!(plain, expected.to_msgpack(&ty)?);
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Errors
///
/// Those of [`Value::from_msgpack`] on the same bytes.
pub fn without_refinements(bytes: &[u8], ty: &Type) -> Result<Vec<u8>> {
    // Checked first (without allocating), so that what follows meets only what
    // `Value::from_msgpack` reads, and its errors are the errors.
    validate(bytes, ty)?;
    let mut out = Vec::with_capacity(bytes.len());
    let mut r = SliceReader::new(bytes);
    if write_plain(&mut r, ty, &mut out, DEFAULT_MAX_DEPTH).is_ok() && r.remaining() == 0 {
        return Ok(out);
    }
    // Anything the walk declines: the value itself.
    let mut v = Value::from_msgpack(bytes, ty)?;
    make_plain(&mut v);
    v.to_msgpack(ty)
}

/// Each unknown in `v` without its refinements.
fn make_plain(v: &mut Value) {
    match v {
        Value::Unknown(r) => *r = Refinements::new(),
        Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => xs.iter_mut().for_each(make_plain),
        Value::Map(m) | Value::Object(m) => m.values_mut().for_each(make_plain),
        Value::Dynamic(_) => make_plain(v.unwrap_dynamic_mut()),
        _ => {}
    }
}

/// The declined case: the caller builds the value instead.
fn decline() -> Error {
    Error::data("not written as it streams by")
}

/// Writes the value at `r` (valid: see [`without_refinements`]) in its canonical form
/// with plain unknowns; what it declines, the caller writes through the value.
fn write_plain(r: &mut SliceReader<'_>, ty: &Type, out: &mut Vec<u8>, depth: usize) -> Result<()> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(decline());
    };
    let start = r.pos();
    let alone = match ty {
        Type::Set(_) | Type::Dynamic => true,
        Type::List(elem) | Type::Map(elem) => elem.has_dynamic(),
        _ => false,
    };
    if alone {
        // A set's elements may come in another order once plain (and two may become
        // one); a collection's `dynamic` positions settle on one type across its
        // elements (see `Value::to_msgpack`); a `dynamic` value writes its type: each
        // is built, made plain and written again, alone (nothing outside it changes
        // how it is written).
        r.skip_value(depth)?;
        let whole = r.input_full().get(start..r.pos()).ok_or_else(decline)?;
        let mut v = Value::from_msgpack(whole, ty)?;
        make_plain(&mut v);
        out.extend_from_slice(&v.to_msgpack(ty)?);
        return Ok(());
    }
    let token = r.next()?;
    match (token, ty) {
        (Token::Nil, _) => out.push(0xc0),
        (Token::Ext(_), _) => out.extend_from_slice(&PLAIN_UNKNOWN),
        (Token::Bool(b), Type::Bool) => out.push(if b { 0xc3 } else { 0xc2 }),
        (Token::Str(s), Type::String) => {
            write_str(out, r.utf8(s)?);
        }
        (t, Type::Number) => write_number(out, &number_from_token(t)?),
        (Token::Array(n), Type::List(elem)) => {
            write_array_len(out, n);
            for _ in 0..n {
                write_plain(r, elem, out, depth)?;
            }
        }
        (Token::Array(n), Type::Tuple(elems)) => {
            if elems.len() != n as usize {
                return Err(decline());
            }
            write_array_len(out, n);
            for elem in elems {
                write_plain(r, elem, out, depth)?;
            }
        }
        (Token::Map(n), Type::Map(_) | Type::Object(_)) => {
            if let Type::Object(o) = ty {
                // Optional attributes left out are written null by the value: declined.
                if o.attributes().len() != n as usize {
                    return Err(decline());
                }
            }
            write_map_len(out, n);
            let mut prev: Option<std::ops::Range<usize>> = None;
            for _ in 0..n {
                let Token::Str(k) = r.next()? else {
                    return Err(decline());
                };
                let len = write_str(out, r.utf8(k)?);
                let key = out.len() - len..out.len();
                // Keys in strictly increasing order as written (else the value puts
                // them in order: declined).
                if let Some(p) = prev {
                    match (out.get(p), out.get(key.clone())) {
                        (Some(a), Some(b)) if bytes_cmp(a, b).is_lt() => {}
                        _ => return Err(decline()),
                    }
                }
                let elem = match ty {
                    Type::Map(elem) => &**elem,
                    Type::Object(o) => {
                        let name = out
                            .get(key.clone())
                            .and_then(|b| std::str::from_utf8(b).ok());
                        match name.and_then(|name| o.get(name)) {
                            Some(t) => t,
                            None => return Err(decline()),
                        }
                    }
                    _ => return Err(decline()),
                };
                prev = Some(key);
                write_plain(r, elem, out, depth)?;
            }
        }
        _ => return Err(decline()),
    }
    Ok(())
}
