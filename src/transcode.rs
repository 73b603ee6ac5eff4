//! Current-version JSON state straight to MessagePack, without a `Value` tree where none
//! is needed: the engine of [`RawState::transcode`](crate::codec::RawState::transcode).
//!
//! A direct reader walks the JSON text against the [`Type`] and writes MessagePack into
//! one buffer as it goes, exactly as `Value::to_msgpack` writes the value
//! `Value::from_json` reads:
//!
//! - strings (NFC; a number or bool read as its text, as go-cty does), numbers (an integer
//!   of up to 18 digits as an int, anything else through [`Number`]'s parser, then the
//!   same `write_number`), bools (also from `"true"`, `"1"`, `"false"`, `"0"`), null,
//!   lists and tuples are written in place (a list's header is reserved at its largest and
//!   shrunk at its end);
//! - objects are written in the type's attribute order, every attribute present (missing
//!   ones as nil), undeclared ones skipped (when asked to). Keys that come sorted (as Go's
//!   `encoding/json` writes them) are written in place; out of order, the byte ranges of
//!   the entries written are recorded and the object's body is rebuilt once, in order;
//! - maps: keys in NFC, sorted bytewise, with the same fast path and rebuild;
//! - sets, `dynamic`, and collections of anything holding a `dynamic` (whose elements
//!   must agree on their types) are decoded as a `Value` with tfvalue's JSON deserializer
//!   and the typed decode, on the slice of text they span (with the nesting limit left at
//!   their depth), and written with the `Value` encoding.
//!
//! The reader accepts a subset of what the `Value` path accepts and reports nothing
//! itself: anything it does not take on (a duplicate key, an undeclared attribute that is
//! not to be skipped, a wrong kind, a malformed text, nesting at the limit, a string with
//! an escape it leaves to serde_json and serde_json rejects) makes it give up, and the
//! caller runs the `Value` path, whose error (or, for the rare input the reader is
//! stricter about, whose bytes) it returns. Errors are the cold path, and their messages,
//! paths and offsets are the `Value` path's by construction.

use std::borrow::Cow;
use std::ops::Range;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::json::{small_int, SmallInt};
use crate::msgpack::write::{write_array_len, write_map_len, write_number, write_str};
use crate::number::Number;
use crate::private::bytes_cmp;
use crate::types::{ObjectType, Type};
use crate::value::{TypedValue, Untracked, Value};

/// The nesting limit of the JSON deserializer and of the MessagePack encoding.
const MAX_DEPTH: usize = crate::json::DEFAULT_MAX_DEPTH;

const NIL: u8 = 0xc0;

/// The JSON `json`, a value of `ty`, as MessagePack: streamed by [`json_to_msgpack`],
/// or, for input it gives up on, decoded as a [`Value`] (whose errors then say what is
/// wrong, with their paths) and encoded.
pub(crate) fn to_msgpack(json: &[u8], ty: &Type, ignore_undeclared: bool) -> Result<Vec<u8>> {
    if let Ok(msgpack) = json_to_msgpack(json, ty, ignore_undeclared) {
        return Ok(msgpack);
    }
    crate::json::value_from_slice(json, ty, ignore_undeclared)?.to_msgpack(ty)
}

/// The JSON state `json` as the MessagePack of a value of `ty`: the bytes
/// `Value::from_json` (with `ignore_undeclared`) then `Value::to_msgpack` give, or an
/// error where the reader gives up (see the module docs).
pub(crate) fn json_to_msgpack(json: &[u8], ty: &Type, ignore_undeclared: bool) -> Result<Vec<u8>> {
    // JSON is UTF-8 throughout: checked once, so that any slice between ASCII
    // delimiters is a `str`.
    let text = std::str::from_utf8(json).map_err(|_| give_up())?;
    let _budget = crate::limits::fill::Guard::enter(json.len());
    let mut rd = Reader {
        text,
        b: json,
        i: 0,
        out: Vec::with_capacity(json.len()),
        segs: Vec::new(),
        scratch: Vec::new(),
        ignore_undeclared,
    };
    rd.value(ty, 0)?;
    rd.ws();
    if rd.i != rd.b.len() {
        return Err(give_up());
    }
    Ok(rd.out)
}

#[cold]
fn give_up() -> Error {
    Error::data("the streaming transcoder gave up on this input")
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

/// Whether every attribute name is in NFC (`ObjectType` keeps them so), as the reader
/// writes them in place in the type's order.
fn names_nfc(o: &ObjectType) -> bool {
    o.attributes()
        .keys()
        .all(|k| k.is_ascii() || matches!(crate::text::nfc(k), Cow::Borrowed(_)))
}

/// Whether the exponent of the JSON number `text` is beyond `i32::MAX`, where serde_json
/// stops reading it.
fn exponent_overflows(text: &str) -> bool {
    let Some(at) = text.find(['e', 'E']) else {
        return false;
    };
    let digits = text[at + 1..]
        .trim_start_matches(['+', '-'])
        .trim_start_matches('0');
    digits.len() > 10 || (digits.len() == 10 && digits > "2147483647")
}

struct Reader<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    out: Vec<u8>,
    /// The entries written of the objects and maps being read, innermost last; each level
    /// truncates back to where it started.
    segs: Vec<Seg>,
    /// The body of an object or map being put in order (reused).
    scratch: Vec<u8>,
    ignore_undeclared: bool,
}

impl<'a> Reader<'a> {
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Consumes `c` after white space, or gives up.
    #[inline]
    fn expect(&mut self, c: u8) -> Result<()> {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(give_up())
        }
    }

    /// Consumes the literal `lit` (`null`, `true`, `false`).
    #[inline]
    fn literal(&mut self, lit: &[u8]) -> Result<()> {
        if self.b.get(self.i..self.i + lit.len()) == Some(lit) {
            self.i += lit.len();
            Ok(())
        } else {
            Err(give_up())
        }
    }

    fn slice(&self, r: Range<usize>) -> Result<&'a str> {
        self.text.get(r).ok_or_else(give_up)
    }

    /// A JSON number token, as its text (checked against JSON's grammar).
    fn number(&mut self) -> Result<&'a str> {
        let start = self.i;
        let digits = |rd: &mut Reader<'a>| {
            let s = rd.i;
            while rd.peek().is_some_and(|c| c.is_ascii_digit()) {
                rd.i += 1;
            }
            rd.i - s
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(give_up()),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return Err(give_up());
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if digits(self) == 0 {
                return Err(give_up());
            }
        }
        self.slice(start..self.i)
    }

    /// A JSON string token (at its opening quote), as its content: borrowed without
    /// escapes; with them, as serde_json reads it.
    fn string(&mut self) -> Result<Cow<'a, str>> {
        let start = self.i;
        self.i += 1;
        let mut escaped = false;
        loop {
            let rest = self.b.get(self.i..).unwrap_or_default();
            let at = rest
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                .ok_or_else(give_up)?;
            self.i += at;
            match self.peek() {
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    self.i += 2;
                }
                // serde_json rejects control characters in strings.
                _ => return Err(give_up()),
            }
        }
        self.i += 1;
        if escaped {
            let raw = self.slice(start..self.i)?;
            serde_json::from_str::<String>(raw)
                .map(Cow::Owned)
                .map_err(|_| give_up())
        } else {
            self.slice(start + 1..self.i - 1).map(Cow::Borrowed)
        }
    }

    /// The extent of the next value, without reading it (its syntax is not checked).
    fn skip(&mut self) -> Result<Range<usize>> {
        self.ws();
        let start = self.i;
        let mut nest = 0usize;
        loop {
            self.ws();
            match self.peek().ok_or_else(give_up)? {
                b'[' | b'{' => {
                    nest += 1;
                    self.i += 1;
                    continue;
                }
                b']' | b'}' => {
                    nest = nest.checked_sub(1).ok_or_else(give_up)?;
                    self.i += 1;
                }
                b'"' => {
                    self.i += 1;
                    loop {
                        match self.peek().ok_or_else(give_up)? {
                            b'"' => break,
                            b'\\' => self.i += 2,
                            _ => self.i += 1,
                        }
                    }
                    self.i += 1;
                }
                b',' | b':' if nest > 0 => {
                    self.i += 1;
                    continue;
                }
                _ => {
                    let s = self.i;
                    while self.peek().is_some_and(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')
                    }) {
                        self.i += 1;
                    }
                    if self.i == s {
                        return Err(give_up());
                    }
                }
            }
            if nest == 0 {
                return Ok(start..self.i);
            }
        }
    }

    /// A value of `ty`, `depth` containers deep.
    fn value(&mut self, ty: &Type, depth: usize) -> Result<()> {
        self.ws();
        let c = self.peek().ok_or_else(give_up)?;
        if c == b'n' {
            if let Type::String
            | Type::Number
            | Type::Bool
            | Type::List(_)
            | Type::Map(_)
            | Type::Tuple(_)
            | Type::Object(_) = ty
            {
                self.literal(b"null")?;
                self.out.push(NIL);
                return Ok(());
            }
        }
        match ty {
            Type::String => match c {
                b'"' => {
                    let s = self.string()?;
                    write_str(&mut self.out, &s);
                }
                b't' => {
                    self.literal(b"true")?;
                    write_str(&mut self.out, "true");
                }
                b'f' => {
                    self.literal(b"false")?;
                    write_str(&mut self.out, "false");
                }
                // A number is read as its text, as written. One whose exponent is beyond
                // an i32 is left to the `Value` path: serde_json stops inside such an
                // exponent (`2E2222222222`), and the `Value` path then reports the number.
                _ => {
                    let n = self.number()?;
                    if exponent_overflows(n) {
                        return Err(give_up());
                    }
                    write_str(&mut self.out, n);
                }
            },
            Type::Number => {
                let n = match c {
                    b'"' => self.string()?.parse::<Number>().map_err(|_| give_up())?,
                    _ => {
                        let text = self.number()?;
                        match small_int(text) {
                            Some(SmallInt::U(u)) => Number::from(u),
                            Some(SmallInt::I(i)) => Number::from(i),
                            None => text.parse::<Number>().map_err(|_| give_up())?,
                        }
                    }
                };
                write_number(&mut self.out, &n);
            }
            Type::Bool => {
                let v = match c {
                    b't' => self.literal(b"true").map(|()| true)?,
                    b'f' => self.literal(b"false").map(|()| false)?,
                    b'"' => match self.string()?.as_ref() {
                        "true" | "1" => true,
                        "false" | "0" => false,
                        _ => return Err(give_up()),
                    },
                    _ => return Err(give_up()),
                };
                self.out.push(if v { 0xc3 } else { 0xc2 });
            }
            Type::List(elem) if c == b'[' && !elem.has_dynamic() => self.list(elem, depth)?,
            Type::Tuple(elems) if c == b'[' => self.tuple(elems, depth)?,
            Type::Map(elem) if c == b'{' && !elem.has_dynamic() => self.map(elem, depth)?,
            Type::Object(o) if c == b'{' && names_nfc(o) => self.object(o, depth)?,
            Type::List(_) | Type::Tuple(_) | Type::Map(_) | Type::Object(_)
                if !matches!(c, b'[' | b'{') =>
            {
                return Err(give_up())
            }
            // Sets (canonical order, duplicates), `dynamic` and collections of it (their
            // elements agree on one type): through a `Value`.
            _ => self.through_value(ty, depth)?,
        }
        Ok(())
    }

    /// Enters a container `depth` containers deep, as the JSON deserializer counts them.
    #[inline]
    fn enter(&mut self, depth: usize) -> Result<()> {
        if depth >= MAX_DEPTH {
            return Err(give_up());
        }
        self.i += 1;
        Ok(())
    }

    /// After an element: `,` (true) or the closing `close` (false).
    #[inline]
    fn next_or_close(&mut self, close: u8) -> Result<bool> {
        self.ws();
        match self.peek() {
            Some(b',') => {
                self.i += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.i += 1;
                Ok(false)
            }
            _ => Err(give_up()),
        }
    }

    /// An empty container: its closing byte is next.
    #[inline]
    fn empty(&mut self, close: u8) -> bool {
        self.ws();
        if self.peek() == Some(close) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn list(&mut self, elem: &Type, depth: usize) -> Result<()> {
        self.enter(depth)?;
        let pos = reserve_header(&mut self.out, false);
        let mut n = 0u32;
        if !self.empty(b']') {
            loop {
                self.value(elem, depth + 1)?;
                n = n.checked_add(1).ok_or_else(give_up)?;
                if !self.next_or_close(b']')? {
                    break;
                }
            }
        }
        finish_header(&mut self.out, pos, n, false);
        Ok(())
    }

    fn tuple(&mut self, elems: &[Type], depth: usize) -> Result<()> {
        self.enter(depth)?;
        let n = u32::try_from(elems.len()).map_err(|_| give_up())?;
        write_array_len(&mut self.out, n);
        if elems.is_empty() {
            return if self.empty(b']') {
                Ok(())
            } else {
                Err(give_up())
            };
        }
        for (i, t) in elems.iter().enumerate() {
            self.value(t, depth + 1)?;
            let more = self.next_or_close(b']')?;
            if more != (i + 1 < elems.len()) {
                return Err(give_up());
            }
        }
        Ok(())
    }

    /// A key and its colon.
    #[inline]
    fn key(&mut self) -> Result<Cow<'a, str>> {
        self.ws();
        if self.peek() != Some(b'"') {
            return Err(give_up());
        }
        let k = self.string()?;
        self.expect(b':')?;
        Ok(k)
    }

    fn object(&mut self, o: &ObjectType, depth: usize) -> Result<()> {
        self.enter(depth)?;
        let n = u32::try_from(o.len()).map_err(|_| give_up())?;
        write_map_len(&mut self.out, n);
        let seg_base = self.segs.len();
        let res = self.object_entries(o, depth);
        self.segs.truncate(seg_base);
        res
    }

    /// Writes one attribute of an object (name, then its value read from the input) and
    /// records where it is.
    fn attribute(&mut self, name: &str, aty: &Type, depth: usize) -> Result<()> {
        let start = self.out.len();
        let key = write_name(&mut self.out, name);
        self.value(aty, depth + 1)?;
        self.segs.push(Seg {
            key,
            entry: start..self.out.len(),
            present: true,
        });
        Ok(())
    }

    /// The entries of an object, written in the type's order.
    fn object_entries(&mut self, o: &ObjectType, depth: usize) -> Result<()> {
        let attrs = o.attributes();
        let body = self.out.len();
        let seg_base = self.segs.len();
        // While in order, the attributes not written yet, after the last one that was.
        let mut pending = attrs.iter().peekable();
        let mut last: Option<&str> = None;
        let mut in_order = true;
        if !self.empty(b'}') {
            loop {
                let k = self.key()?;
                // The common case: the next attribute of the type, in order.
                if in_order {
                    if let Some(&(name, aty)) = pending.peek().filter(|(n, _)| **n == k) {
                        pending.next();
                        last = Some(name);
                        self.attribute(name, aty, depth)?;
                        if !self.next_or_close(b'}')? {
                            break;
                        }
                        continue;
                    }
                }
                let Some((name, aty)) = attrs.get_key_value(k.as_ref()) else {
                    if !self.ignore_undeclared {
                        return Err(give_up());
                    }
                    let r = self.skip()?;
                    let skipped = self.slice(r)?;
                    serde_json::from_str::<serde::de::IgnoredAny>(skipped)
                        .map_err(|_| give_up())?;
                    if !self.next_or_close(b'}')? {
                        break;
                    }
                    continue;
                };
                if in_order {
                    match last.map(|l| bytes_cmp(l.as_bytes(), name.as_bytes())) {
                        None | Some(std::cmp::Ordering::Less) => {
                            // The attributes the input left out before this one: nil.
                            for (skipped, _) in pending.by_ref() {
                                if skipped == name {
                                    break;
                                }
                                let start = self.out.len();
                                let key = write_name(&mut self.out, skipped);
                                self.out.push(NIL);
                                self.segs.push(Seg {
                                    key,
                                    entry: start..self.out.len(),
                                    present: false,
                                });
                            }
                            last = Some(name);
                        }
                        Some(std::cmp::Ordering::Equal) => return Err(give_up()),
                        Some(std::cmp::Ordering::Greater) => in_order = false,
                    }
                }
                self.attribute(name, aty, depth)?;
                if !self.next_or_close(b'}')? {
                    break;
                }
            }
        }
        if in_order {
            for (skipped, _) in pending {
                write_str(&mut self.out, skipped);
                self.out.push(NIL);
            }
            return Ok(());
        }
        // Out of order: the entries written, in the type's order.
        let mut tail = std::mem::take(&mut self.scratch);
        tail.clear();
        tail.extend_from_slice(self.out.get(body..).unwrap_or_default());
        self.out.truncate(body);
        let res = self.rebuild_object(attrs, &tail, body, seg_base);
        self.scratch = tail;
        res
    }

    /// Writes the entries of an object recorded in `segs[seg_base..]` (in `tail`, which
    /// was the output from `body` on) in the type's order, missing ones as nil.
    fn rebuild_object(
        &mut self,
        attrs: &std::collections::BTreeMap<String, Type>,
        tail: &[u8],
        body: usize,
        seg_base: usize,
    ) -> Result<()> {
        let segs = self.segs.get_mut(seg_base..).unwrap_or_default();
        segs.sort_by(|a, b| key_of(tail, body, a).cmp(key_of(tail, body, b)));
        let mut i = 0;
        for name in attrs.keys() {
            let mut chosen: Option<&Seg> = None;
            while let Some(s) = segs.get(i) {
                if key_of(tail, body, s) != name.as_bytes() {
                    break;
                }
                match chosen {
                    Some(c) if c.present && s.present => return Err(give_up()),
                    Some(c) if c.present => {}
                    _ => chosen = Some(s),
                }
                i += 1;
            }
            match chosen {
                Some(s) => self.out.extend_from_slice(entry_of(tail, body, s)),
                None => {
                    write_str(&mut self.out, name);
                    self.out.push(NIL);
                }
            }
        }
        Ok(())
    }

    fn map(&mut self, elem: &Type, depth: usize) -> Result<()> {
        self.enter(depth)?;
        let pos = reserve_header(&mut self.out, true);
        let body = self.out.len();
        let seg_base = self.segs.len();
        let res = self.map_entries(elem, depth, body, seg_base);
        self.segs.truncate(seg_base);
        let n = res?;
        finish_header(&mut self.out, pos, n, true);
        Ok(())
    }

    fn map_entries(
        &mut self,
        elem: &Type,
        depth: usize,
        body: usize,
        seg_base: usize,
    ) -> Result<u32> {
        let mut n = 0u32;
        let mut sorted = true;
        let mut prev: Option<Range<usize>> = None;
        if !self.empty(b'}') {
            loop {
                let k = self.key()?;
                n = n.checked_add(1).ok_or_else(give_up)?;
                let start = self.out.len();
                let key = write_key(&mut self.out, &k);
                if sorted {
                    if let Some(p) = &prev {
                        let a = self.out.get(p.clone()).unwrap_or_default();
                        let b = self.out.get(key.clone()).unwrap_or_default();
                        match bytes_cmp(a, b) {
                            std::cmp::Ordering::Less => {}
                            std::cmp::Ordering::Equal => return Err(give_up()),
                            std::cmp::Ordering::Greater => sorted = false,
                        }
                    }
                }
                prev = Some(key.clone());
                self.value(elem, depth + 1)?;
                self.segs.push(Seg {
                    key,
                    entry: start..self.out.len(),
                    present: true,
                });
                if !self.next_or_close(b'}')? {
                    break;
                }
            }
        }
        if !sorted {
            let mut tail = std::mem::take(&mut self.scratch);
            tail.clear();
            tail.extend_from_slice(self.out.get(body..).unwrap_or_default());
            self.out.truncate(body);
            let segs = self.segs.get_mut(seg_base..).unwrap_or_default();
            segs.sort_by(|a, b| key_of(&tail, body, a).cmp(key_of(&tail, body, b)));
            let duplicate = segs
                .windows(2)
                .any(|w| key_of(&tail, body, &w[0]) == key_of(&tail, body, &w[1]));
            if !duplicate {
                for s in segs.iter() {
                    self.out.extend_from_slice(entry_of(&tail, body, s));
                }
            }
            self.scratch = tail;
            if duplicate {
                return Err(give_up());
            }
        }
        Ok(n)
    }

    /// The next value decoded as a `Value` of `ty` by the JSON deserializer and written
    /// with the `Value` encoding, both with the nesting limit left at `depth`.
    fn through_value(&mut self, ty: &Type, depth: usize) -> Result<()> {
        let r = self.skip()?;
        let text = self.slice(r)?;
        let left = MAX_DEPTH.saturating_sub(depth);
        let mut de = crate::json::Deserializer::from_slice(text.as_bytes())
            .ignore_undeclared_attributes(self.ignore_undeclared)
            .max_depth(left);
        let v = de.decode_value(ty)?;
        de.end()?;
        self.encode_value(&v, ty, left)
    }

    /// Writes a `Value` as the `Value` path does, with `left` levels of nesting left.
    fn encode_value(&mut self, v: &Value, ty: &Type, left: usize) -> Result<()> {
        v.conforms_to(ty)?;
        let settled = v.settled(ty)?;
        let buf = std::mem::take(&mut self.out);
        let mut ser = crate::msgpack::Serializer::with_buffer(buf).max_depth(left);
        let res =
            Untracked(TypedValue::new(settled.as_ref().unwrap_or(v), Some(ty))).serialize(&mut ser);
        self.out = ser.into_inner();
        res
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

/// Writes an attribute name (in NFC already, see [`names_nfc`]), recording where its
/// text is.
fn write_name(out: &mut Vec<u8>, name: &str) -> Range<usize> {
    crate::msgpack::write::write_str_raw(out, name);
    out.len() - name.len()..out.len()
}

/// Writes a key (NFC), recording where its text is.
fn write_key(out: &mut Vec<u8>, key: &str) -> Range<usize> {
    let len = write_str(out, key);
    out.len() - len..out.len()
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
