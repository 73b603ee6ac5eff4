//! The fast path of [`Value::to_json`]: the value and its type walked together, the JSON
//! written as it goes, conformance checked on the way. Whatever it does not take on
//! (`dynamic` positions, unknowns that are not a pinned number, non-ASCII map keys, sets
//! of objects with optional attributes, and every error) it hands to the general serde
//! path, which writes the same bytes and says what is wrong, with the path.

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter};

use super::ser::write_str;
use super::Serializer;
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::types::{ObjectType, Type};
use crate::unknown::RefineKind;
use crate::value::{sorted_refs, Map, Value};

/// The fast path gave up: the general path decides.
pub(super) struct Bail;

type Fast<T> = std::result::Result<T, Bail>;

impl From<crate::error::Error> for Bail {
    fn from(_: crate::error::Error) -> Bail {
        Bail
    }
}

/// The value as JSON, or `Bail`.
pub(super) fn to_json_fast(v: &Value, ty: &Type) -> Fast<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    write(&mut out, v, ty, DEFAULT_MAX_DEPTH)?;
    Ok(out)
}

fn write(out: &mut Vec<u8>, v: &Value, ty: &Type, depth: usize) -> Fast<()> {
    let depth = depth.checked_sub(1).ok_or(Bail)?;
    match (v, ty) {
        (_, Type::Dynamic) | (Value::Dynamic(_), _) => Err(Bail),
        (Value::Null, _) => {
            out.extend_from_slice(b"null");
            Ok(())
        }
        (Value::Unknown(r), ty) => {
            // Only a number its refinements pin to one value can be written.
            r.validate()?;
            match r.collapsed_number(RefineKind::of(ty)) {
                Some(n) => write_number(out, n),
                None => Err(Bail),
            }
        }
        (Value::Bool(b), Type::Bool) => {
            out.extend_from_slice(if *b { b"true" } else { b"false" });
            Ok(())
        }
        (Value::Number(n), Type::Number) => write_number(out, n),
        (Value::String(s), Type::String) => {
            write_str(out, s);
            Ok(())
        }
        (Value::List(vs), Type::List(t)) => write_seq(out, vs.iter(), |_| Some(&**t), depth),
        (Value::Set(vs), Type::Set(t)) => {
            if !t.is_plain() {
                return Err(Bail);
            }
            write_seq(
                out,
                sorted_refs(vs, true).into_iter(),
                |_| Some(&**t),
                depth,
            )
        }
        (Value::Tuple(vs), Type::Tuple(ts)) => {
            if vs.len() != ts.len() {
                return Err(Bail);
            }
            write_seq(out, vs.iter(), |i| ts.get(i), depth)
        }
        (Value::Map(m), Type::Map(t)) => {
            out.push(b'{');
            for (i, (k, e)) in m.iter().enumerate() {
                // Non-ASCII keys may change order or collide in NFC.
                if !k.is_ascii() {
                    return Err(Bail);
                }
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, k);
                out.push(b':');
                write(out, e, t, depth)?;
            }
            out.push(b'}');
            Ok(())
        }
        (Value::Object(m), Type::Object(o)) => write_object(out, m, o, depth),
        _ => Err(Bail),
    }
}

fn write_seq<'v>(
    out: &mut Vec<u8>,
    elems: impl Iterator<Item = &'v Value>,
    ty: impl Fn(usize) -> Option<&'v Type>,
    depth: usize,
) -> Fast<()> {
    out.push(b'[');
    for (i, e) in elems.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, e, ty(i).ok_or(Bail)?, depth)?;
    }
    out.push(b']');
    Ok(())
}

/// Every attribute the type declares, in name order (the map's order too); a left-out
/// optional one as null.
fn write_object(out: &mut Vec<u8>, m: &Map, o: &ObjectType, depth: usize) -> Fast<()> {
    out.push(b'{');
    let mut present = m.iter().peekable();
    for (i, ((name, aty), key)) in o.attributes().iter().zip(o.keys()).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, key);
        out.push(b':');
        match present.peek() {
            Some((k, v)) if *k == key => {
                write(out, v, aty, depth)?;
                present.next();
            }
            // Anything before `name` is not declared: the general path says so.
            Some((k, _)) if k.as_bytes() < name.as_bytes() => return Err(Bail),
            _ if o.is_optional(name) => out.extend_from_slice(b"null"),
            _ => return Err(Bail),
        }
    }
    out.push(b'}');
    match present.next() {
        Some(_) => Err(Bail),
        None => Ok(()),
    }
}

/// A number as the general path writes it (exact text, or the shortest text of a float64).
fn write_number(out: &mut Vec<u8>, n: &crate::number::Number) -> Fast<()> {
    if let Some(text) = n.float_born_text() {
        out.extend_from_slice(text.as_bytes());
        return Ok(());
    }
    if let Some(i) = n.to_i64() {
        return CompactFormatter.write_i64(out, i).map_err(|_| Bail);
    }
    let mut ser = Serializer::with_buffer(std::mem::take(out));
    let r = n.serialize(&mut ser);
    *out = ser.into_inner();
    r.map_err(Bail::from)
}
