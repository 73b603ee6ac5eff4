//! Current-version JSON state straight to MessagePack, without a `Value` tree where none
//! is needed: the engine of [`RawState::transcode`](crate::codec::RawState::transcode).
//!
//! The JSON is read with tfvalue's own JSON [`Deserializer`](crate::json::Deserializer)
//! (so syntax, go-cty's conversions, duplicate map keys, the nesting limit and the
//! offsets are its), driven by the [`Type`] through `DeserializeSeed`s whose visitors write
//! MessagePack into one buffer as they go, exactly as `Value::to_msgpack` would write the
//! value `Value::from_json` reads:
//!
//! - strings (NFC), numbers (int, float64 or decimal text, via the same `write_number`),
//!   bools, null, lists and tuples are written in place (a list's header is reserved at
//!   its largest and shrunk at its end);
//! - objects are written in the type's attribute order, every attribute present (missing
//!   ones as nil), undeclared ones skipped or rejected. Keys that come sorted (as Go's
//!   `encoding/json` writes them) are written in place; out of order, the byte ranges of
//!   the entries written are recorded and the object's body is rebuilt once, in order;
//! - maps: keys in NFC, sorted bytewise, duplicates after NFC rejected, with the same fast
//!   path and rebuild;
//! - sets, `dynamic`, and collections of anything holding a `dynamic` (whose elements
//!   must agree on their types) are decoded as a `Value` subtree with the typed decode and
//!   written with the `Value` encoding, with the nesting limit left at that depth.
//!
//! Errors: [`json_to_msgpack`] fails wherever the `Value` path would, but its messages are
//! not always the same (an error of the `Value` encoding surfaces here as a decode error,
//! a duplicate attribute out of order is found at the end of its object). The caller
//! therefore answers any failure by running the `Value` path, whose error (or, should the
//! two ever disagree, whose bytes) it returns: errors are the cold path.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde::Serialize;

use crate::error::Result;
use crate::msgpack::write::{write_array_len, write_map_len, write_number, write_str};
use crate::number::Number;
use crate::private::{bytes_cmp, NUMBER_TOKEN, VALUE_TOKEN};
use crate::types::{ObjectType, Type};
use crate::value::{TypedSeed, TypedValue, Untracked, Value};

/// The nesting limit of the MessagePack encoding the `Value` path uses.
const MAX_DEPTH: usize = crate::msgpack::DEFAULT_MAX_DEPTH;

const NIL: u8 = 0xc0;

/// The JSON state `json` as the MessagePack of a value of `ty`: the bytes
/// `Value::from_json` (with `ignore_undeclared`) then `Value::to_msgpack` give.
pub(crate) fn json_to_msgpack(json: &[u8], ty: &Type, ignore_undeclared: bool) -> Result<Vec<u8>> {
    let _budget = crate::value::fill::Guard::enter(json.len());
    let mut de =
        crate::json::Deserializer::from_slice(json).ignore_undeclared_attributes(ignore_undeclared);
    let mut tx = Tx {
        // MessagePack is rarely larger than the JSON it comes from.
        out: Vec::with_capacity(json.len()),
        segs: Vec::new(),
        ignore_undeclared,
    };
    Root { tx: &mut tx, ty }.deserialize(&mut de)?;
    de.end()?;
    Ok(tx.out)
}

/// The output and the scratch space shared by every level.
struct Tx {
    out: Vec<u8>,
    /// The entries written of the objects and maps being read, innermost last; each level
    /// truncates back to where it started.
    segs: Vec<Seg>,
    ignore_undeclared: bool,
}

/// One entry of an object or map, written in `out`.
#[derive(Clone)]
struct Seg {
    /// The key's text (NFC).
    key: Range<usize>,
    /// Key and value.
    entry: Range<usize>,
    /// False for the nil of an attribute the input left out (written while the keys came
    /// in order); an entry from the input replaces it.
    present: bool,
}

impl Tx {
    /// Writes a `Value` subtree as the `Value` path writes it at `depth` containers deep.
    fn encode_value(&mut self, v: &Value, ty: &Type, depth: usize) -> Result<()> {
        v.conforms_to(ty)?;
        let settled = v.settled(ty)?;
        let buf = std::mem::take(&mut self.out);
        let mut ser =
            crate::msgpack::Serializer::with_buffer(buf).max_depth(MAX_DEPTH.saturating_sub(depth));
        let res =
            Untracked(TypedValue::new(settled.as_ref().unwrap_or(v), Some(ty))).serialize(&mut ser);
        self.out = ser.into_inner();
        res
    }
}

/// The whole value, inside the private `VALUE_TOKEN` newtype as `TypedSeed` reads it.
struct Root<'a, 't> {
    tx: &'a mut Tx,
    ty: &'t Type,
}

impl<'de> DeserializeSeed<'de> for Root<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_newtype_struct(VALUE_TOKEN, self)
    }
}

impl<'de> Visitor<'de> for Root<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of type {}", self.ty)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        Seed {
            tx: self.tx,
            ty: self.ty,
            depth: 0,
        }
        .deserialize(d)
    }
}

/// A value of `ty`, `depth` containers deep.
struct Seed<'a, 't> {
    tx: &'a mut Tx,
    ty: &'t Type,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Seed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let Seed { tx, ty, depth } = self;
        match ty {
            Type::String => d.deserialize_str(StrV(tx)),
            Type::Number => d.deserialize_newtype_struct(NUMBER_TOKEN, NumV(tx)),
            Type::Bool => d.deserialize_bool(BoolV(tx)),
            Type::List(elem) if !elem.has_dynamic() => d.deserialize_seq(ListV { tx, elem, depth }),
            Type::Map(elem) if !elem.has_dynamic() => d.deserialize_map(MapV { tx, elem, depth }),
            Type::Tuple(elems) => d.deserialize_tuple(elems.len(), TupleV { tx, elems, depth }),
            Type::Object(o) if names_nfc(o) => d.deserialize_struct("", &[], ObjV { tx, o, depth }),
            // Sets (canonical order, duplicates), `dynamic` and collections of it (their
            // elements agree on one type): through a `Value`.
            _ => {
                let v = TypedSeed::new(ty)
                    .missing_attributes_null(true)
                    .ignore_undeclared_attributes(tx.ignore_undeclared)
                    .deserialize(d)?;
                tx.encode_value(&v, ty, depth).map_err(D::Error::custom)
            }
        }
    }
}

/// Whether every attribute name is in NFC (`ObjectType` keeps them so), as this writes
/// them in place in the type's order.
fn names_nfc(o: &ObjectType) -> bool {
    o.attributes()
        .keys()
        .all(|k| k.is_ascii() || matches!(crate::unknown::nfc(k), Cow::Borrowed(_)))
}

macro_rules! nil_visits {
    () => {
        fn visit_unit<E: de::Error>(self) -> Result<(), E> {
            self.0.out.push(NIL);
            Ok(())
        }
        fn visit_none<E: de::Error>(self) -> Result<(), E> {
            self.0.out.push(NIL);
            Ok(())
        }
    };
}

macro_rules! nil_visits_named {
    () => {
        fn visit_unit<E: de::Error>(self) -> Result<(), E> {
            self.tx.out.push(NIL);
            Ok(())
        }
        fn visit_none<E: de::Error>(self) -> Result<(), E> {
            self.tx.out.push(NIL);
            Ok(())
        }
    };
}

struct StrV<'a>(&'a mut Tx);

impl<'de> Visitor<'de> for StrV<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    nil_visits!();

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        write_str(&mut self.0.out, v);
        Ok(())
    }
}

struct NumV<'a>(&'a mut Tx);

impl<'de> Visitor<'de> for NumV<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }

    nil_visits!();

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        write_number(&mut self.0.out, &Number::from(v));
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        write_number(&mut self.0.out, &Number::from(v));
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        let n = Number::from_f64(v).ok_or_else(|| E::custom("NaN is not a number"))?;
        write_number(&mut self.0.out, &n);
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        let n = v.parse::<Number>().map_err(E::custom)?;
        write_number(&mut self.0.out, &n);
        Ok(())
    }
}

struct BoolV<'a>(&'a mut Tx);

impl<'de> Visitor<'de> for BoolV<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a bool")
    }

    nil_visits!();

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.0.out.push(if v { 0xc3 } else { 0xc2 });
        Ok(())
    }
}

/// Reserves the largest array or map header; [`finish_header`] shrinks it.
fn reserve_header(out: &mut Vec<u8>, map: bool) -> usize {
    let pos = out.len();
    out.extend_from_slice(&[if map { 0xdf } else { 0xdd }, 0, 0, 0, 0]);
    pos
}

/// Writes the header reserved at `pos` for `count` entries, moving the body up to it.
fn finish_header(out: &mut Vec<u8>, pos: usize, count: u32, map: bool) {
    let mut header = Vec::with_capacity(5);
    if map {
        write_map_len(&mut header, count);
    } else {
        write_array_len(&mut header, count);
    }
    let body = pos + 5;
    if header.len() == 5 {
        if let Some(slot) = out.get_mut(pos..body) {
            slot.copy_from_slice(&header);
        }
        return;
    }
    let body_len = out.len().saturating_sub(body);
    out.copy_within(body.., pos + header.len());
    if let Some(slot) = out.get_mut(pos..pos + header.len()) {
        slot.copy_from_slice(&header);
    }
    out.truncate(pos + header.len() + body_len);
}

fn bump<E: de::Error>(n: u32) -> Result<u32, E> {
    n.checked_add(1)
        .ok_or_else(|| E::custom("more than 2^32-1 elements cannot be encoded"))
}

struct ListV<'a, 't> {
    tx: &'a mut Tx,
    elem: &'t Type,
    depth: usize,
}

impl<'de> Visitor<'de> for ListV<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    nil_visits_named!();

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let ListV { tx, elem, depth } = self;
        let pos = reserve_header(&mut tx.out, false);
        let mut n = 0u32;
        while let Some(()) = seq.next_element_seed(Seed {
            tx: &mut *tx,
            ty: elem,
            depth: depth + 1,
        })? {
            n = bump(n)?;
        }
        finish_header(&mut tx.out, pos, n, false);
        Ok(())
    }
}

struct TupleV<'a, 't> {
    tx: &'a mut Tx,
    elems: &'t [Type],
    depth: usize,
}

impl<'de> Visitor<'de> for TupleV<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a tuple of {}",
            crate::error::plural(self.elems.len() as u64, "element")
        )
    }

    nil_visits_named!();

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let TupleV { tx, elems, depth } = self;
        let len = elems.len();
        let n = u32::try_from(len)
            .map_err(|_| A::Error::custom("more than 2^32-1 elements cannot be encoded"))?;
        write_array_len(&mut tx.out, n);
        for (i, t) in elems.iter().enumerate() {
            let seed = Seed {
                tx: &mut *tx,
                ty: t,
                depth: depth + 1,
            };
            if seq.next_element_seed(seed)?.is_none() {
                return Err(A::Error::custom(format_args!(
                    "invalid length: {}, expected a tuple of {}",
                    crate::error::plural(i as u64, "element"),
                    crate::error::plural(len as u64, "element")
                )));
            }
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(A::Error::custom(format_args!(
                "invalid length: more than {}, expected a tuple of {}",
                crate::error::plural(len as u64, "element"),
                crate::error::plural(len as u64, "element")
            )));
        }
        Ok(())
    }
}

/// A key of an object or map, borrowed from the input when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// The text of a key recorded in `seg`, within `bytes` that start at `base` of the output.
fn key_of<'b>(bytes: &'b [u8], base: usize, seg: &Seg) -> &'b [u8] {
    bytes
        .get(seg.key.start.saturating_sub(base)..seg.key.end.saturating_sub(base))
        .unwrap_or_default()
}

fn entry_of<'b>(bytes: &'b [u8], base: usize, seg: &Seg) -> &'b [u8] {
    bytes
        .get(seg.entry.start.saturating_sub(base)..seg.entry.end.saturating_sub(base))
        .unwrap_or_default()
}

/// Writes a key (NFC), recording where its text is.
fn write_key(out: &mut Vec<u8>, key: &str) -> Range<usize> {
    let len = write_str(out, key);
    out.len() - len..out.len()
}

struct ObjV<'a, 't> {
    tx: &'a mut Tx,
    o: &'t ObjectType,
    depth: usize,
}

impl<'de> Visitor<'de> for ObjV<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    nil_visits_named!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let ObjV { tx, o, depth } = self;
        let attrs = o.attributes();
        let n = u32::try_from(attrs.len())
            .map_err(|_| A::Error::custom("more than 2^32-1 elements cannot be encoded"))?;
        write_map_len(&mut tx.out, n);
        let body = tx.out.len();
        let seg_base = tx.segs.len();
        // In order, the attributes not written yet, after the last one that was.
        let mut pending = attrs.iter();
        let mut last: Option<&str> = None;
        let mut in_order = true;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            let Some((name, aty)) = attrs.get_key_value(k.as_ref()) else {
                if tx.ignore_undeclared {
                    map.next_value::<de::IgnoredAny>()?;
                    continue;
                }
                tx.segs.truncate(seg_base);
                return Err(A::Error::custom(format_args!(
                    "unsupported attribute `{k}`"
                )));
            };
            if in_order {
                match last.map(|l| bytes_cmp(l.as_bytes(), name.as_bytes())) {
                    None | Some(std::cmp::Ordering::Less) => {
                        // The attributes the input left out before this one: nil.
                        for (skipped, _) in pending.by_ref() {
                            if skipped == name {
                                break;
                            }
                            let start = tx.out.len();
                            let key = write_key(&mut tx.out, skipped);
                            tx.out.push(NIL);
                            tx.segs.push(Seg {
                                key,
                                entry: start..tx.out.len(),
                                present: false,
                            });
                        }
                        last = Some(name);
                    }
                    Some(std::cmp::Ordering::Equal) => {
                        tx.segs.truncate(seg_base);
                        return Err(A::Error::custom(format_args!("duplicate attribute `{k}`")));
                    }
                    Some(std::cmp::Ordering::Greater) => in_order = false,
                }
            }
            let start = tx.out.len();
            let key = write_key(&mut tx.out, name);
            let res = map.next_value_seed(Seed {
                tx: &mut *tx,
                ty: aty,
                depth: depth + 1,
            });
            if let Err(e) = res {
                tx.segs.truncate(seg_base);
                return Err(e);
            }
            tx.segs.push(Seg {
                key,
                entry: start..tx.out.len(),
                present: true,
            });
        }
        if in_order {
            for (skipped, _) in pending {
                write_str(&mut tx.out, skipped);
                tx.out.push(NIL);
            }
            tx.segs.truncate(seg_base);
            return Ok(());
        }
        // Out of order: the entries written, in the type's order.
        let tail = tx.out.split_off(body);
        let segs = tx.segs.get_mut(seg_base..).unwrap_or_default();
        segs.sort_by(|a, b| key_of(&tail, body, a).cmp(key_of(&tail, body, b)));
        let mut i = 0;
        let mut res = Ok(());
        for name in attrs.keys() {
            let mut chosen: Option<&Seg> = None;
            while let Some(s) = segs.get(i) {
                if key_of(&tail, body, s) != name.as_bytes() {
                    break;
                }
                match chosen {
                    Some(c) if c.present && s.present => {
                        res = Err(A::Error::custom(format_args!(
                            "duplicate attribute `{name}`"
                        )));
                    }
                    Some(c) if c.present => {}
                    _ => chosen = Some(s),
                }
                i += 1;
            }
            match chosen {
                Some(s) => tx.out.extend_from_slice(entry_of(&tail, body, s)),
                None => {
                    write_str(&mut tx.out, name);
                    tx.out.push(NIL);
                }
            }
        }
        tx.segs.truncate(seg_base);
        res
    }
}

struct MapV<'a, 't> {
    tx: &'a mut Tx,
    elem: &'t Type,
    depth: usize,
}

impl<'de> Visitor<'de> for MapV<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    nil_visits_named!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let MapV { tx, elem, depth } = self;
        let pos = reserve_header(&mut tx.out, true);
        let body = tx.out.len();
        let seg_base = tx.segs.len();
        let mut n = 0u32;
        let mut sorted = true;
        let mut prev: Option<Range<usize>> = None;
        let res = (|| {
            while let Some(k) = map.next_key_seed(KeySeed)? {
                n = bump(n)?;
                let start = tx.out.len();
                let key = write_key(&mut tx.out, &k);
                if sorted {
                    if let Some(p) = &prev {
                        let out = &tx.out;
                        let (a, b) = (
                            out.get(p.clone()).unwrap_or_default(),
                            out.get(key.clone()).unwrap_or_default(),
                        );
                        match bytes_cmp(a, b) {
                            std::cmp::Ordering::Less => {}
                            std::cmp::Ordering::Equal => {
                                return Err(A::Error::custom(format_args!(
                                    "duplicate key {:?}",
                                    String::from_utf8_lossy(b)
                                )))
                            }
                            std::cmp::Ordering::Greater => sorted = false,
                        }
                    }
                }
                prev = Some(key.clone());
                map.next_value_seed(Seed {
                    tx: &mut *tx,
                    ty: elem,
                    depth: depth + 1,
                })?;
                tx.segs.push(Seg {
                    key,
                    entry: start..tx.out.len(),
                    present: true,
                });
            }
            Ok(())
        })();
        if let Err(e) = res {
            tx.segs.truncate(seg_base);
            return Err(e);
        }
        let mut res = Ok(());
        if !sorted {
            let tail = tx.out.split_off(body);
            let segs = tx.segs.get_mut(seg_base..).unwrap_or_default();
            segs.sort_by(|a, b| key_of(&tail, body, a).cmp(key_of(&tail, body, b)));
            if let Some(w) = segs
                .windows(2)
                .find(|w| key_of(&tail, body, &w[0]) == key_of(&tail, body, &w[1]))
            {
                res = Err(A::Error::custom(format_args!(
                    "duplicate key {:?}",
                    String::from_utf8_lossy(key_of(&tail, body, &w[0]))
                )));
            }
            for s in segs.iter() {
                tx.out.extend_from_slice(entry_of(&tail, body, s));
            }
        }
        tx.segs.truncate(seg_base);
        res?;
        finish_header(&mut tx.out, pos, n, true);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::json_to_msgpack;
    use crate::Type;

    /// The streaming path itself (not the `Value` path the caller falls back to) gives
    /// the `Value` path's bytes.
    fn streams(ty: &str, json: &str) {
        let ty: Type = ty.parse().unwrap();
        let fast = json_to_msgpack(json.as_bytes(), &ty, true)
            .unwrap_or_else(|e| panic!("{ty} / {json}: the streaming path failed: {e}"));
        let v = crate::codec::RawState::from_json(json.as_bytes().to_vec())
            .decode_value(&ty, true)
            .unwrap();
        assert_eq!(fast, v.to_msgpack(&ty).unwrap(), "{ty} / {json}");
    }

    #[test]
    fn streaming_path_succeeds() {
        let obj = r#"["object",{"a":"string","b":["object",{"x":"number","y":"bool"}],"c":["list","string"],"d":"number","m":["map","number"]}]"#;
        streams(
            obj,
            r#"{"a":"1","b":{"x":1,"y":true},"c":["p"],"d":4,"m":{"k":1}}"#,
        );
        streams(
            obj,
            r#"{"m":{"z":1,"a":2},"d":4,"c":["p"],"b":{"y":true,"x":1},"a":"1"}"#,
        );
        streams(obj, r#"{"d":4,"a":"1","old":[1,{"x":2}]}"#);
        streams(obj, r#"{"b":null,"a":"1","d":4,"c":null}"#);
        streams(obj, r#"{}"#);
        streams(obj, r#"null"#);
        streams(
            r#"["map","number"]"#,
            "{\"\u{212b}\":1,\"Z\":2,\"e\u{301}\":3,\"f\":4}",
        );
        streams(
            r#"["list","number"]"#,
            r#"[1,-1,1.5,"2",12345678901234567890123,1e400,null]"#,
        );
        streams(r#"["list","string"]"#, r#"["e\u0301",1e3,true,null,"x"]"#);
        streams(r#"["list","bool"]"#, r#"[true,"false","1",null]"#);
        streams(
            r#"["tuple",["string",["set","number"],"dynamic"]]"#,
            r#"["s",[3,1,3],{"value":[1],"type":["list","number"]}]"#,
        );
        streams(
            r#"["object",{"s":["set",["object",{"n":"number","o":"string"}]],"d":"dynamic","l":["list","dynamic"]}]"#,
            r#"{"l":[{"value":1,"type":"number"},{"type":"number","value":null}],"s":[{"n":2},{"n":1,"o":"a"}],"d":null}"#,
        );
        let long: String = (0..70000)
            .rev()
            .map(|i| format!("\"k{i:06}\":[{i}]"))
            .collect::<Vec<_>>()
            .join(",");
        streams(r#"["map",["list","number"]]"#, &format!("{{{long}}}"));
    }

    #[test]
    fn streaming_path_fails_where_the_value_path_does() {
        let ty: Type = r#"["object",{"a":"string","m":["map","number"]}]"#.parse().unwrap();
        for json in [
            r#"{"a":"x","a":"y"}"#,
            r#"{"m":{},"a":"x","m":{}}"#,
            "{\"m\":{\"e\u{301}\":1,\"\u{e9}\":2}}",
            "{\"m\":{\"\u{e9}\":1,\"a\":2,\"e\u{301}\":2}}",
            r#"{"a":[]}"#,
            r#"{"a":"x"} 1"#,
            r#"[]"#,
        ] {
            let raw = crate::codec::RawState::from_json(json.as_bytes().to_vec());
            assert!(raw
                .decode_value(&ty, false)
                .and_then(|v| v.to_msgpack(&ty))
                .is_err());
            assert!(
                json_to_msgpack(json.as_bytes(), &ty, false).is_err(),
                "{json}"
            );
        }
        assert!(json_to_msgpack(br#"{"z":1}"#, &ty, false).is_err());
    }
}
