//! `Value` on this wire: [`Value::from_msgpack`] and [`Value::to_msgpack`].
//!
//! Both walk the value and its type together, straight over the bytes, for the values
//! providers exchange: no serde machinery per value, object attributes matched against the
//! type's names in order, conformance checked as the bytes are written. Whatever this
//! path does not take on (`dynamic` positions, non-ASCII map keys, sets of objects with
//! optional attributes, and every error) it hands to the general serde path, which gives
//! the same bytes and the errors with their paths: the fast path never decides an error.

use std::cmp::Ordering;

use super::read::{number_from_token, SliceReader, Token};
use super::write::{write_array_len, write_map_len, write_number, write_str, write_str_raw};
use super::{to_vec, Deserializer, Serializer};
use crate::error::Result;
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::types::{ObjectType, Type};
use crate::unknown::{read_refinements, serialize_unknown, Decoded, RefineKind};
use crate::value::{
    canonicalize_set, sorted_refs, Key, Map, TypedSeed, TypedValue, Untracked, Value,
};

impl Value {
    /// Decodes MessagePack bytes against a type.
    ///
    /// # Errors
    ///
    /// Malformed or truncated input, trailing bytes, a value that does not fit `ty`
    /// (missing or undeclared attributes, wrong kinds, duplicate keys), malformed or
    /// contradictory refinements, or nesting deeper than 128. The error names the path.
    pub fn from_msgpack(bytes: &[u8], ty: &Type) -> Result<Value> {
        let mut r = SliceReader::new(bytes);
        if let Ok(v) = read(&mut r, ty, DEFAULT_MAX_DEPTH) {
            if r.remaining() == 0 {
                return Ok(v);
            }
        }
        from_msgpack_general(bytes, ty)
    }

    /// Encodes the value as MessagePack against a type, byte-identical to go-cty.
    ///
    /// # Errors
    ///
    /// A value that does not conform to `ty` (see [`Value::conforms_to`]), a number or
    /// refinement that cannot be encoded, or nesting deeper than 128.
    pub fn to_msgpack(&self, ty: &Type) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(128);
        if write(&mut out, self, ty, DEFAULT_MAX_DEPTH).is_ok() {
            return Ok(out);
        }
        to_msgpack_general(self, ty)
    }
}

/// The general path of [`Value::from_msgpack`]: serde, with a [`TypedSeed`].
#[doc(hidden)]
pub fn from_msgpack_general(bytes: &[u8], ty: &Type) -> Result<Value> {
    let _budget = crate::limits::fill::Guard::enter(bytes.len());
    let mut de = Deserializer::from_slice(bytes);
    let v = serde::de::DeserializeSeed::deserialize(TypedSeed::new(ty), &mut de)?;
    de.end()?;
    Ok(v)
}

/// The general path of [`Value::to_msgpack`]: the conformance check, then serde.
#[doc(hidden)]
pub fn to_msgpack_general(v: &Value, ty: &Type) -> Result<Vec<u8>> {
    v.conforms_to(ty)?;
    match v.settled(ty)? {
        Some(settled) => to_vec(&Untracked(TypedValue::new(&settled, Some(ty)))),
        None => to_vec(&Untracked(TypedValue::new(v, Some(ty)))),
    }
}

/// The fast path gave up: the general path decides.
pub(super) struct Bail;

pub(super) type Fast<T> = std::result::Result<T, Bail>;

impl From<crate::error::Error> for Bail {
    fn from(_: crate::error::Error) -> Bail {
        Bail
    }
}

// ---------------------------------------------------------------------------------------
// Writing

fn write(out: &mut Vec<u8>, v: &Value, ty: &Type, depth: usize) -> Fast<()> {
    let depth = depth.checked_sub(1).ok_or(Bail)?;
    match (v, ty) {
        (_, Type::Dynamic) | (Value::Dynamic(_), _) => Err(Bail),
        (Value::Null, _) => {
            out.push(0xc0);
            Ok(())
        }
        (Value::Unknown(r), ty) => {
            // The model decides what is written (a pinned number, the refinements that
            // apply); the serializer writes it.
            let mut ser = Serializer::with_buffer(std::mem::take(out));
            let res = serialize_unknown(r, RefineKind::of(ty), &mut ser);
            *out = ser.into_inner();
            res.map_err(Bail::from)
        }
        (Value::Bool(b), Type::Bool) => {
            out.push(if *b { 0xc3 } else { 0xc2 });
            Ok(())
        }
        (Value::Number(n), Type::Number) => {
            write_number(out, n);
            Ok(())
        }
        (Value::String(s), Type::String) => {
            write_str(out, s);
            Ok(())
        }
        (Value::List(vs), Type::List(t)) => {
            write_array_len(out, len32(vs.len())?);
            for e in vs {
                write(out, e, t, depth)?;
            }
            Ok(())
        }
        (Value::Set(vs), Type::Set(t)) => {
            if !t.is_plain() {
                return Err(Bail);
            }
            let elems = sorted_refs(vs, true);
            write_array_len(out, len32(elems.len())?);
            for e in elems {
                write(out, e, t, depth)?;
            }
            Ok(())
        }
        (Value::Map(m), Type::Map(t)) => {
            write_map_len(out, len32(m.len())?);
            for (k, e) in m {
                // Non-ASCII keys may change order or collide in NFC.
                if !k.is_ascii() {
                    return Err(Bail);
                }
                write_str_raw(out, k);
                write(out, e, t, depth)?;
            }
            Ok(())
        }
        (Value::Object(m), Type::Object(o)) => write_object(out, m, o, depth),
        (Value::Tuple(vs), Type::Tuple(ts)) => {
            if vs.len() != ts.len() {
                return Err(Bail);
            }
            write_array_len(out, len32(vs.len())?);
            for (e, t) in vs.iter().zip(ts) {
                write(out, e, t, depth)?;
            }
            Ok(())
        }
        _ => Err(Bail),
    }
}

/// Every attribute the type declares, in name order (the map's order too: walk both
/// together); a left-out optional one as null.
fn write_object(out: &mut Vec<u8>, m: &Map, o: &ObjectType, depth: usize) -> Fast<()> {
    write_map_len(out, len32(o.len())?);
    let mut present = m.iter().peekable();
    for ((name, aty), key) in o.attributes().iter().zip(o.keys()) {
        write_str_raw(out, key);
        match present.peek() {
            Some((k, v)) if *k == key => {
                write(out, v, aty, depth)?;
                present.next();
            }
            // Anything before `name` is not declared: the general path says so.
            Some((k, _)) if k.as_bytes() < name.as_bytes() => return Err(Bail),
            _ if o.is_optional(name) => out.push(0xc0),
            _ => return Err(Bail),
        }
    }
    match present.next() {
        Some(_) => Err(Bail),
        None => Ok(()),
    }
}

fn len32(n: usize) -> Fast<u32> {
    u32::try_from(n).map_err(|_| Bail)
}

// ---------------------------------------------------------------------------------------
// Reading

/// The bytes of the string that comes next (a short one without the general token
/// reader); anything else is the general path's.
#[inline(always)]
fn str_bytes<'a>(r: &mut SliceReader<'a>) -> Fast<&'a [u8]> {
    if let Some(b) = r.try_short_str() {
        return Ok(b);
    }
    match r.next()? {
        Token::Str(b) => Ok(b),
        _ => Err(Bail),
    }
}

/// [`read`], a short string without the call (most values in an object or a collection
/// are).
#[inline(always)]
fn read_elem(r: &mut SliceReader<'_>, ty: &Type, depth: usize) -> Fast<Value> {
    if matches!(ty, Type::String) {
        if let Some(b) = r.try_short_str() {
            return Ok(Value::String(r.utf8(b)?.to_owned()));
        }
    }
    read(r, ty, depth)
}

/// The most attributes an object type may have for its types to be gathered on the stack
/// (see [`read`]'s lists and sets).
const OBJECT_TYPES: usize = 32;

/// A filler for the slots of an object's attribute types.
static NO_TYPE: Type = Type::Bool;

/// [`read`] of an element of type `ty`, the object type `o` whose attribute types,
/// in order, are `types`.
#[inline]
fn read_object_elem(
    r: &mut SliceReader<'_>,
    ty: &Type,
    o: &ObjectType,
    types: &[&Type],
    depth: usize,
) -> Fast<Value> {
    // A null or an unknown: as `read` reads it.
    if matches!(r.peek()?, 0xc0 | 0xc7..=0xc9 | 0xd4..=0xd8) {
        return read(r, ty, depth);
    }
    let depth = depth.checked_sub(1).ok_or(Bail)?;
    let Token::Map(n) = r.next()? else {
        return Err(Bail);
    };
    if n as usize != o.len() {
        return Err(Bail);
    }
    object_body(r, o, types.iter().copied(), depth)
}

/// The attributes of an object of type `o` (their types `types`, in order), every one in
/// the type's order, as Terraform writes objects. Its callers read the map's header: with
/// the header read here, the `small` decode took 1,284 more instructions (callgrind).
#[inline]
fn object_body<'t>(
    r: &mut SliceReader<'_>,
    o: &ObjectType,
    types: impl Iterator<Item = &'t Type>,
    depth: usize,
) -> Fast<Value> {
    let mut out: Vec<(Key, Value)> = Vec::with_capacity(o.len());
    for (aty, key) in types.zip(o.keys()) {
        if !crate::private::bytes_eq(str_bytes(r)?, key.as_bytes()) {
            return Err(Bail);
        }
        out.push((key.clone(), read_elem(r, aty, depth)?));
    }
    Ok(Value::Object(Map::from_sorted(out)))
}

pub(super) fn read(r: &mut SliceReader<'_>, ty: &Type, depth: usize) -> Fast<Value> {
    let depth = depth.checked_sub(1).ok_or(Bail)?;
    if matches!(ty, Type::Dynamic) {
        return Err(Bail);
    }
    let marker = r.peek()?;
    if marker == 0xc0 {
        r.next()?;
        return Ok(Value::Null);
    }
    if matches!(marker, 0xc7..=0xc9 | 0xd4..=0xd8) {
        let Token::Ext(raw) = r.next()? else {
            return Err(Bail);
        };
        let refinements = super::unknown::Refinements::from_ext(raw)?;
        return match read_refinements(refinements, RefineKind::of(ty))? {
            Decoded::Unknown(r) => Ok(Value::Unknown(r)),
            Decoded::Null => Ok(Value::Null),
        };
    }
    match ty {
        Type::String => {
            let b = str_bytes(r)?;
            Ok(Value::String(r.utf8(b)?.to_owned()))
        }
        Type::Number => {
            let t = r.next()?;
            // A float32 and anything that is not a number: the general path's.
            if !matches!(
                t,
                Token::UInt(_) | Token::Int(_) | Token::F64(_) | Token::Str(_)
            ) {
                return Err(Bail);
            }
            Ok(Value::Number(number_from_token(t)?))
        }
        Type::Bool => match r.next()? {
            Token::Bool(b) => Ok(Value::Bool(b)),
            _ => Err(Bail),
        },
        Type::List(t) | Type::Set(t) => {
            let Token::Array(n) = r.next()? else {
                return Err(Bail);
            };
            if t.has_dynamic() {
                return Err(Bail);
            }
            // Each element takes at least one byte: no more room than the input holds.
            let mut out = Vec::with_capacity((n as usize).min(r.remaining()));
            match &**t {
                // Objects: their attributes' types found once for all the elements, not
                // by a walk of the type's map for each.
                Type::Object(o) if n >= 2 && o.len() <= OBJECT_TYPES => {
                    let mut types = [&NO_TYPE; OBJECT_TYPES];
                    for (slot, aty) in types.iter_mut().zip(o.attributes().values()) {
                        *slot = aty;
                    }
                    let types = types.get(..o.len()).ok_or(Bail)?;
                    for _ in 0..n {
                        out.push(read_object_elem(r, t, o, types, depth)?);
                    }
                }
                _ => {
                    for _ in 0..n {
                        out.push(read_elem(r, t, depth)?);
                    }
                }
            }
            if matches!(ty, Type::Set(_)) {
                canonicalize_set(&mut out);
                Ok(Value::Set(out))
            } else {
                Ok(Value::List(out))
            }
        }
        Type::Map(t) => {
            let Token::Map(n) = r.next()? else {
                return Err(Bail);
            };
            if t.has_dynamic() {
                return Err(Bail);
            }
            let mut out: Vec<(Key, Value)> = Vec::with_capacity((n as usize).min(r.remaining()));
            for _ in 0..n {
                let k = str_bytes(r)?;
                // Keys in strictly increasing order (as Terraform writes them); anything
                // else, duplicates included, is the general path's.
                if out.last().is_some_and(|(prev, _)| {
                    crate::private::bytes_cmp(prev.as_bytes(), k) != Ordering::Less
                }) {
                    return Err(Bail);
                }
                let k = Key::from(r.utf8(k)?);
                out.push((k, read_elem(r, t, depth)?));
            }
            Ok(Value::Map(Map::from_sorted(out)))
        }
        Type::Object(o) => {
            let Token::Map(n) = r.next()? else {
                return Err(Bail);
            };
            // Every attribute, in the type's order, as Terraform writes objects.
            if n as usize != o.len() {
                return Err(Bail);
            }
            object_body(r, o, o.attributes().values(), depth)
        }
        Type::Tuple(ts) => {
            let Token::Array(n) = r.next()? else {
                return Err(Bail);
            };
            if n as usize != ts.len() {
                return Err(Bail);
            }
            let mut out = Vec::with_capacity(ts.len());
            for t in ts {
                out.push(read_elem(r, t, depth)?);
            }
            Ok(Value::Tuple(out))
        }
        Type::Dynamic => Err(Bail),
    }
}
