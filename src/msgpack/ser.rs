//! The MessagePack serializer.

use serde::ser::{self, Serialize};

use super::read::{SliceReader, Token};
use super::write::*;
use crate::dyn_check::{At, Capture, DynCheck};
use crate::error::{Error, Result};
use crate::number::Number;
use crate::private::{bytes_cmp, token, KeyText, Token as Tok};

/// Serializes any `serde::Serialize` value into Terraform's MessagePack wire format.
///
/// The output is what go-cty writes: the smallest integer forms, strings in NFC, object
/// attributes and map keys in bytewise order (whatever order a struct declares its fields
/// in or a `HashMap` yields its keys), unknowns as extension 0 or 12.
///
/// The serializer writes into a buffer of its own, because sorting attributes and keys
/// needs to look back at what was written; [`into_inner`](Serializer::into_inner) takes it.
///
/// ```
/// use serde::Serialize;
/// use tfvalue::msgpack::Serializer;
///
/// #[derive(Serialize)]
/// struct Tag { value: String, key: String }
///
/// let mut ser = Serializer::new();
/// Tag { value: "prod".into(), key: "env".into() }.serialize(&mut ser)?;
/// // attributes come out sorted: key, then value
/// assert_eq!(ser.into_inner(), b"\x82\xa3key\xa3env\xa5value\xa4prod");
/// # Ok::<(), tfvalue::Error>(())
/// ```
pub struct Serializer {
    out: Vec<u8>,
    depth_left: usize,
    max_depth: usize,
    /// Set while a `Raw`'s bytes are being written verbatim.
    raw_next: bool,
    /// Where the serializer is, for the check that the elements of a collection agree on
    /// the types of the `dynamic` values in them.
    dyn_check: DynCheck<'static>,
    /// The fields of the structs being written, innermost last: each field's name and
    /// where its entry starts, so that a struct whose fields are not declared in
    /// Terraform's order is put in order without reading its entries again.
    fields: Vec<(&'static str, usize, usize)>,
    /// A buffer reused to reorder entries.
    scratch: Vec<u8>,
    /// The orders of the structs seen out of order.
    orders: Orders,
}

impl Default for Serializer {
    fn default() -> Self {
        Serializer::new()
    }
}

impl Serializer {
    /// A serializer with an empty buffer.
    pub fn new() -> Self {
        Serializer::with_buffer(Vec::new())
    }

    /// A serializer that appends to `buf`.
    pub fn with_buffer(buf: Vec<u8>) -> Self {
        Serializer {
            out: buf,
            depth_left: super::DEFAULT_MAX_DEPTH,
            max_depth: super::DEFAULT_MAX_DEPTH,
            raw_next: false,
            dyn_check: DynCheck::default(),
            fields: Vec::new(),
            scratch: Vec::new(),
            orders: Orders::default(),
        }
    }

    /// A serializer on buffers an earlier one left (see [`Buffers`]).
    pub(crate) fn reusing(b: Buffers) -> Self {
        Serializer {
            fields: b.fields,
            scratch: b.scratch,
            orders: b.orders,
            ..Serializer::with_buffer(b.out)
        }
    }

    /// The serializer's buffers, for [`Buffers::put_back`].
    pub(crate) fn into_buffers(self) -> Buffers {
        Buffers {
            out: self.out,
            fields: self.fields,
            scratch: self.scratch,
            orders: self.orders,
        }
    }

    /// Sets the nesting limit (default 128).
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.depth_left = depth;
        self.max_depth = depth;
        self
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.out
    }

    /// Takes the buffer.
    pub fn into_inner(self) -> Vec<u8> {
        self.out
    }

    /// Replaces what was written from `start` on by one byte.
    pub(crate) fn replace_tail(&mut self, start: usize, byte: u8) {
        self.out.truncate(start);
        self.out.push(byte);
    }

    fn enter(&mut self) -> Result<()> {
        match self.depth_left.checked_sub(1) {
            Some(d) => {
                self.depth_left = d;
                Ok(())
            }
            None => Err(Error::limit(format_args!(
                "nesting is deeper than the limit of {}",
                self.max_depth
            ))),
        }
    }

    fn leave(&mut self) {
        self.depth_left += 1;
    }

    fn write_header(&mut self, len: Option<usize>, map: bool) -> Result<Header> {
        let pos = self.out.len();
        match len {
            Some(n) => {
                let n = u32::try_from(n)
                    .map_err(|_| Error::limit("more than 2^32-1 elements cannot be encoded"))?;
                if map {
                    write_map_len(&mut self.out, n);
                } else {
                    write_array_len(&mut self.out, n);
                }
                Ok(Header {
                    pos,
                    announced: Some(n),
                    body: self.out.len(),
                })
            }
            None => {
                // The length is not known yet: reserve the largest header, shrink it at the end.
                self.out
                    .extend_from_slice(&[if map { 0xdf } else { 0xdd }, 0, 0, 0, 0]);
                Ok(Header {
                    pos,
                    announced: None,
                    body: self.out.len(),
                })
            }
        }
    }

    #[inline]
    fn finish_header(&mut self, h: &Header, count: u32, map: bool) -> Result<()> {
        if h.announced == Some(count) {
            return Ok(());
        }
        self.finish_header_slow(h, count, map)
    }

    /// [`Serializer::finish_header`] where the count is not the one announced, or none was.
    #[inline(never)]
    fn finish_header_slow(&mut self, h: &Header, count: u32, map: bool) -> Result<()> {
        match h.announced {
            Some(n) if n == count => Ok(()),
            Some(n) => Err(Error::data(format_args!(
                "{} announced {n} elements but {count} were written",
                if map { "a map" } else { "a sequence" }
            ))),
            None => {
                let mut header = Vec::with_capacity(5);
                if map {
                    write_map_len(&mut header, count);
                } else {
                    write_array_len(&mut header, count);
                }
                let body_len = self.out.len() - h.body;
                self.out.copy_within(h.body.., h.pos + header.len());
                self.out[h.pos..h.pos + header.len()].copy_from_slice(&header);
                self.out.truncate(h.pos + header.len() + body_len);
                Ok(())
            }
        }
    }

    /// Puts the entries of a struct, recorded from `fields[base..]`, in the order of
    /// their names, if they are not in it already. Whether they are, or the order to put
    /// them in, is worked out once per sequence of names and kept (see [`Orders`]); a
    /// struct out of order is put in order by a copy of its entries.
    fn sort_fields(&mut self, base: usize) -> Result<()> {
        let end = self.out.len();
        let Some(spans) = self.fields.get_mut(base..) else {
            return Ok(());
        };
        if spans.len() < 2 {
            return Ok(());
        }
        let Some(order) = self.orders.order_of(spans)? else {
            return Ok(());
        };
        let Some(&(_, body, _)) = spans.first() else {
            return Ok(());
        };
        // Each entry ends where the next begins.
        let mut next = end;
        for span in spans.iter_mut().rev() {
            span.2 = next;
            next = span.1;
        }
        // The largest entry is moved within the output; the others go through `scratch`
        // in order (a struct holding one large map is not copied whole).
        let largest = spans
            .iter()
            .enumerate()
            .max_by_key(|(_, &(_, start, stop))| stop - start)
            .map_or(0, |(i, _)| i);
        let mut sorted = std::mem::take(&mut self.scratch);
        sorted.clear();
        let mut split = 0;
        for &i in order {
            let i = as_index(i);
            if i == largest {
                split = sorted.len();
            } else if let Some(&(_, start, stop)) = spans.get(i) {
                sorted.extend_from_slice(self.out.get(start..stop).unwrap_or_default());
            }
        }
        let placed = spans.get(largest).and_then(|&(_, start, stop)| {
            let at = body + split;
            let rest = at + (stop - start);
            // Every entry is in `order` once: the others fill what the largest leaves.
            if sorted.len() + (stop - start) != end - body {
                return None;
            }
            self.out.copy_within(start..stop, at);
            let (before, after) = sorted.split_at(split);
            self.out.get_mut(body..at)?.copy_from_slice(before);
            self.out.get_mut(rest..end)?.copy_from_slice(after);
            Some(())
        });
        self.scratch = sorted;
        match placed {
            Some(()) => Ok(()),
            None => Err(Error::data("the fields of a struct overlap")),
        }
    }

    /// Puts the entries of the map whose body starts at `body` in bytewise key order.
    fn sort_entries(&mut self, body: usize, count: u32) -> Result<()> {
        let bytes = &self.out[body..];
        let mut r = SliceReader::new(bytes);
        let mut entries: Vec<(&[u8], std::ops::Range<usize>)> = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let start = r.pos();
            let key = match r.next()? {
                Token::Str(k) => k,
                _ => return Err(Error::data("map keys must be strings")),
            };
            r.skip_value(usize::MAX)?;
            entries.push((key, start..r.pos()));
        }
        entries.sort_by(|a, b| a.0.cmp(b.0));
        if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Error::data(format_args!(
                "duplicate key {:?}",
                String::from_utf8_lossy(w[0].0)
            )));
        }
        let mut sorted = Vec::with_capacity(bytes.len());
        for (_, range) in &entries {
            sorted.extend_from_slice(&bytes[range.clone()]);
        }
        self.out.truncate(body);
        self.out.extend_from_slice(&sorted);
        Ok(())
    }
}

/// The buffers of [`to_vec`](super::to_vec), kept from one call to the next on the
/// same thread: an encode of a typical value (a few KB) then allocates once, for the
/// bytes it returns (sized exactly), instead of growing its output from empty and
/// allocating its bookkeeping again each time. Only buffers up to [`KEEP`] bytes are
/// kept, so a thread holds at most a few hundred KB; a larger output is handed over
/// as it is, without a copy.
#[derive(Default)]
pub(crate) struct Buffers {
    out: Vec<u8>,
    fields: Vec<(&'static str, usize, usize)>,
    scratch: Vec<u8>,
    orders: Orders,
}

/// The largest buffer [`Buffers`] keeps (64 KiB).
const KEEP: usize = 64 * 1024;

thread_local! {
    static BUFFERS: std::cell::Cell<Buffers> = const {
        std::cell::Cell::new(Buffers {
            out: Vec::new(),
            fields: Vec::new(),
            scratch: Vec::new(),
            orders: Orders { slots: Vec::new() },
        })
    };
}

impl Buffers {
    /// This thread's buffers, emptied (or new ones, in an encode inside an encode, or
    /// when the thread is being torn down).
    pub(crate) fn take() -> Buffers {
        let mut b = BUFFERS.try_with(|c| c.take()).unwrap_or_default();
        b.out.clear();
        b
    }

    /// The bytes written: a copy sized exactly when the buffer is kept, the buffer
    /// itself when it is too large to keep.
    pub(crate) fn take_out(&mut self) -> Vec<u8> {
        if self.out.capacity() > KEEP {
            std::mem::take(&mut self.out)
        } else {
            self.out.clone()
        }
    }

    /// Gives the buffers back to the thread, those small enough to keep.
    pub(crate) fn put_back(mut self) {
        if self.out.capacity() > KEEP {
            self.out = Vec::new();
        }
        if self.scratch.capacity() > KEEP {
            self.scratch = Vec::new();
        }
        if self.fields.capacity() > KEEP / 16 {
            self.fields = Vec::new();
        }
        self.fields.clear();
        let _ = BUFFERS.try_with(|c| c.set(self));
    }
}

/// The layouts of the structs a thread has encoded: for a sequence of field names
/// (recognised by their addresses: the same `&'static str`s are the same names), whether
/// they come in Terraform's order (bytewise order of the names), and if not the indices
/// of the fields in that order. A sequence is found in one of [`Orders::SLOTS`] slots by
/// the addresses of its first and last names and its length; one not found there (not
/// seen before, or its slot taken by another since) is checked again (names compared,
/// sorted if out of order, duplicates refused) and takes the slot. So a struct costs the
/// comparisons of its names once, not at every encode, and a thread keeps a few KB.
#[derive(Default)]
pub(crate) struct Orders {
    slots: Vec<Layout>,
}

/// A sequence of field names and the order to write them in.
#[derive(Default)]
struct Layout {
    names: Vec<&'static str>,
    /// Empty when the names are in order as they come.
    order: Vec<u32>,
}

impl Orders {
    const SLOTS: usize = 64;

    /// The order of the fields in `spans` (name, start, end): `None` when they are in
    /// order as they are.
    fn order_of(&mut self, spans: &[(&'static str, usize, usize)]) -> Result<Option<&[u32]>> {
        let (Some(first), Some(last)) = (spans.first(), spans.last()) else {
            return Ok(None);
        };
        if self.slots.is_empty() {
            self.slots.resize_with(Self::SLOTS, Layout::default);
        }
        let hash = (first.0.as_ptr().addr() >> 3)
            ^ (last.0.as_ptr().addr() >> 1)
            ^ spans.len().wrapping_mul(0x9e37_79b9);
        let Some(slot) = self.slots.get_mut((hash ^ (hash >> 11)) % Self::SLOTS) else {
            return Ok(None);
        };
        let known = slot.names.len() == spans.len()
            && slot
                .names
                .iter()
                .zip(spans)
                .all(|(a, b)| std::ptr::eq(a.as_ptr(), b.0.as_ptr()) && a.len() == b.0.len());
        if !known {
            slot.names.clear();
            slot.order.clear();
            let in_order = spans
                .windows(2)
                .all(|w| bytes_cmp(w[0].0.as_bytes(), w[1].0.as_bytes()).is_lt());
            if !in_order {
                let Ok(n) = u32::try_from(spans.len()) else {
                    return Err(too_many());
                };
                slot.order.extend(0..n);
                slot.order.sort_unstable_by(|&a, &b| {
                    bytes_cmp(
                        spans[as_index(a)].0.as_bytes(),
                        spans[as_index(b)].0.as_bytes(),
                    )
                });
                if let Some(w) = slot
                    .order
                    .windows(2)
                    .find(|w| spans[as_index(w[0])].0 == spans[as_index(w[1])].0)
                {
                    let dup = spans[as_index(w[0])].0;
                    // Never kept: refused again next time.
                    slot.order.clear();
                    return Err(Error::data(format_args!("duplicate key {dup:?}")));
                }
            }
            // Kept once known to be right.
            slot.names.extend(spans.iter().map(|s| s.0));
        }
        Ok(if slot.order.is_empty() {
            None
        } else {
            Some(&slot.order)
        })
    }
}

/// A field index of an [`Orders`] entry as an index.
#[inline]
fn as_index(i: u32) -> usize {
    i as usize
}

struct Header {
    pos: usize,
    announced: Option<u32>,
    body: usize,
}

#[cold]
fn too_many() -> Error {
    Error::limit("more than 2^32-1 elements cannot be encoded")
}

#[cold]
fn unsupported(what: &str) -> Error {
    Error::data(format_args!(
        "{what} cannot be represented in Terraform's wire format"
    ))
}

impl<'a> ser::Serializer for &'a mut Serializer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.out.push(if v { 0xc3 } else { 0xc2 });
        Ok(())
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<()> {
        write_i64(&mut self.out, v as i64);
        Ok(())
    }
    #[inline]
    fn serialize_i16(self, v: i16) -> Result<()> {
        write_i64(&mut self.out, v as i64);
        Ok(())
    }
    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        write_i64(&mut self.out, v as i64);
        Ok(())
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Result<()> {
        write_i64(&mut self.out, v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        write_number(&mut self.out, &Number::from(v));
        Ok(())
    }
    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        write_u64(&mut self.out, v as u64);
        Ok(())
    }
    #[inline]
    fn serialize_u16(self, v: u16) -> Result<()> {
        write_u64(&mut self.out, v as u64);
        Ok(())
    }
    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        write_u64(&mut self.out, v as u64);
        Ok(())
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Result<()> {
        if v > i64::MAX as u64 {
            // beyond i64, go-cty writes the decimal text
            write_number(&mut self.out, &Number::from(v));
        } else {
            write_u64(&mut self.out, v);
        }
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        write_number(&mut self.out, &Number::from(v));
        Ok(())
    }

    fn serialize_f32(self, v: f32) -> Result<()> {
        self.serialize_f64(v as f64)
    }

    fn serialize_f64(self, v: f64) -> Result<()> {
        // An integral float is written as an integer, as go-cty does.
        if v.fract() == 0.0 && v.abs() < 9.0e15 {
            write_i64(&mut self.out, v as i64);
            return Ok(());
        }
        match Number::from_f64(v) {
            Some(n) => {
                write_number(&mut self.out, &n);
                Ok(())
            }
            None => Err(Error::data("NaN is not a number and cannot be encoded")),
        }
    }

    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        if self.raw_next {
            // a tfvalue::Raw holding JSON text
            self.raw_next = false;
            return Err(Error::data(
                "a tfvalue::Raw holding JSON cannot be written as MessagePack: decode it with its type first",
            ));
        }
        write_str(&mut self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        if self.raw_next {
            // The bytes of a tfvalue::Raw, already encoded.
            self.raw_next = false;
            self.out.extend_from_slice(v);
        } else {
            write_bin(&mut self.out, v);
            if self.dyn_check.capture == Capture::Next {
                let end = self.out.len();
                self.dyn_check.capture = Capture::Done(end - v.len(), end);
            }
        }
        Ok(())
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.out.push(0xc0);
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        self.out.push(0xc0);
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        match token(name) {
            Some(Tok::Unknown) => {
                value.serialize(super::unknown::UnknownOut { out: &mut self.out })
            }
            Some(Tok::Raw) => {
                self.raw_next = true;
                let r = value.serialize(&mut *self);
                self.raw_next = false;
                r
            }
            Some(Tok::Dynamic) if self.dyn_check.skip == 0 => {
                self.dyn_check.capture = Capture::Next;
                self.dyn_check.skip += 1;
                let r = value.serialize(&mut *self);
                self.dyn_check.skip -= 1;
                let captured = self.dyn_check.capture.take();
                r?;
                if let Some((a, b)) = captured {
                    let ty = crate::types::Type::from_json(&self.out[a..b])?;
                    self.dyn_check
                        .record_in_struct(ty, &self.out, &self.fields, true)?;
                }
                Ok(())
            }
            Some(Tok::Value) => {
                self.dyn_check.skip += 1;
                let r = value.serialize(&mut *self);
                self.dyn_check.skip -= 1;
                r
            }
            _ => value.serialize(self),
        }
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _value: &T,
    ) -> Result<()> {
        Err(unsupported(&format!(
            "enum variant `{name}::{variant}` with data"
        )))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a>> {
        self.enter()?;
        let header = self.write_header(len, false)?;
        self.dyn_check.push(true);
        Ok(Compound::new(self, header))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>> {
        self.enter()?;
        let header = self.write_header(Some(len), false)?;
        self.dyn_check.push(false);
        Ok(Compound::new(self, header))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a>> {
        self.serialize_tuple(len)
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(unsupported(&format!(
            "enum variant `{name}::{variant}` with data"
        )))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a>> {
        self.enter()?;
        let header = self.write_header(len, true)?;
        self.dyn_check.push(true);
        Ok(Compound::new(self, header))
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a>> {
        self.enter()?;
        let header = self.write_header(Some(len), true)?;
        let base = self.fields.len();
        self.dyn_check.push_fields(base);
        let mut c = Compound::new(self, header);
        c.fields_base = Some(base);
        Ok(c)
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(unsupported(&format!(
            "enum variant `{name}::{variant}` with data"
        )))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// The state of an array, map or struct being written.
#[doc(hidden)]
pub struct Compound<'a> {
    ser: &'a mut Serializer,
    header: Header,
    count: u32,
    /// Whether the keys of a map so far came in strictly increasing order.
    sorted: bool,
    /// The byte range of the previous map key's text.
    prev_key: Option<std::ops::Range<usize>>,
    /// For a struct: where its fields start in the serializer's `fields`.
    fields_base: Option<usize>,
}

impl<'a> Compound<'a> {
    fn new(ser: &'a mut Serializer, header: Header) -> Self {
        Compound {
            ser,
            header,
            count: 0,
            sorted: true,
            prev_key: None,
            fields_base: None,
        }
    }

    #[inline]
    fn bump(&mut self) -> Result<()> {
        match self.count.checked_add(1) {
            Some(n) => {
                self.count = n;
                Ok(())
            }
            None => Err(too_many()),
        }
    }

    /// A key that does not come after the one before it: a duplicate (an error), or the
    /// first key out of order (the entries are put in order at the end).
    #[cold]
    #[inline(never)]
    fn key_out_of_order(&mut self, text: std::ops::Range<usize>, dup: bool) -> Result<()> {
        if dup {
            return Err(Error::data(format_args!(
                "duplicate key {:?}",
                String::from_utf8_lossy(&self.ser.out[text])
            )));
        }
        self.sorted = false;
        Ok(())
    }

    fn end_seq(self) -> Result<()> {
        self.ser.finish_header(&self.header, self.count, false)?;
        self.ser.leave();
        self.ser.dyn_check.pop();
        Ok(())
    }

    fn end_map(self) -> Result<()> {
        match self.fields_base {
            Some(base) => {
                let sorted = self.ser.sort_fields(base);
                self.ser.fields.truncate(base);
                sorted?;
            }
            None if !self.sorted => self.ser.sort_entries(self.header.body, self.count)?,
            None => {}
        }
        self.ser.finish_header(&self.header, self.count, true)?;
        self.ser.leave();
        self.ser.dyn_check.pop();
        Ok(())
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.ser.dyn_check.at(At::Index(self.count));
        self.bump()?;
        value.serialize(&mut *self.ser)
    }

    fn end(self) -> Result<()> {
        self.end_seq()
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<()> {
        self.end_seq()
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<()> {
        self.end_seq()
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.bump()?;
        let out = &mut self.ser.out;
        // The key's text in NFC; the length of what was written.
        let len = key.serialize(KeyText(|k: &str| write_str(out, k)))?;
        // The key text is the last `len` bytes written; the previous key's is before it.
        let end = self.ser.out.len();
        let start = end - len;
        if self.sorted {
            if let Some(prev) = self.prev_key.clone() {
                let out = self.ser.out.as_slice();
                let order = match (out.get(prev), out.get(start..end)) {
                    (Some(p), Some(k)) => bytes_cmp(p, k),
                    _ => std::cmp::Ordering::Greater,
                };
                if order != std::cmp::Ordering::Less {
                    self.key_out_of_order(start..end, order == std::cmp::Ordering::Equal)?;
                }
            }
        }
        self.ser.dyn_check.at(At::KeyInOutput(start, end));
        self.prev_key = Some(start..end);
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)
    }

    fn end(self) -> Result<()> {
        self.end_map()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.bump()?;
        // Recorded for the order of the fields (checked at the end) and for the check of
        // `dynamic` values (which reads where it is from here).
        self.ser.fields.push((key, self.ser.out.len(), 0));
        write_str(&mut self.ser.out, key);
        value.serialize(&mut *self.ser)
    }

    fn end(self) -> Result<()> {
        self.end_map()
    }
}

/// The steps of the struct, sequence and map writers, for the encoders of
/// [`super::wire`]: each does what the `Serializer` method or the `Compound` method of
/// that name does, so that a model written by its own encoder comes out byte for byte as
/// serde's derived `Serialize` writes it.
impl Serializer {
    /// `serialize_struct`: a struct of `len` fields starts.
    #[doc(hidden)]
    pub fn wire_struct(&mut self, len: usize) -> Result<Compound<'_>> {
        ser::Serializer::serialize_struct(self, "", len)
    }

    /// `serialize_seq` of `len` elements.
    pub(super) fn wire_seq(&mut self, len: usize) -> Result<Compound<'_>> {
        ser::Serializer::serialize_seq(self, Some(len))
    }

    /// `serialize_map` of `len` entries.
    pub(super) fn wire_map(&mut self, len: usize) -> Result<Compound<'_>> {
        ser::Serializer::serialize_map(self, Some(len))
    }

    /// `serialize_none`.
    #[inline]
    pub(super) fn wire_none(&mut self) {
        self.out.push(0xc0);
    }
}

impl Compound<'_> {
    /// `serialize_field`'s steps before the value: the field's key. The value is written
    /// next, into the serializer returned.
    #[inline]
    #[doc(hidden)]
    pub fn wire_field(&mut self, key: &'static str) -> Result<&mut Serializer> {
        self.bump()?;
        self.ser.fields.push((key, self.ser.out.len(), 0));
        write_str(&mut self.ser.out, key);
        Ok(&mut *self.ser)
    }

    /// `serialize_element`'s steps before the value.
    #[inline]
    pub(super) fn wire_element(&mut self) -> Result<&mut Serializer> {
        self.ser.dyn_check.at(At::Index(self.count));
        self.bump()?;
        Ok(&mut *self.ser)
    }

    /// `serialize_key` of a string key; its value is written next, into the serializer
    /// returned.
    #[inline]
    pub(super) fn wire_key(&mut self, key: &str) -> Result<&mut Serializer> {
        ser::SerializeMap::serialize_key(self, key)?;
        Ok(&mut *self.ser)
    }

    /// The end of a struct or a map.
    #[doc(hidden)]
    pub fn wire_end_map(self) -> Result<()> {
        self.end_map()
    }

    /// The end of a sequence.
    pub(super) fn wire_end_seq(self) -> Result<()> {
        self.end_seq()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    /// A struct out of order whose largest field is first, in the middle or last (moved
    /// within the output, the others through the scratch buffer): the bytes of the same
    /// struct declared in name order.
    #[test]
    fn the_largest_field_is_placed_wherever_it_goes() {
        #[derive(serde::Serialize)]
        struct Mixed {
            mid: String,
            zeta: String,
            alpha: String,
        }
        #[derive(serde::Serialize)]
        struct Sorted {
            alpha: String,
            mid: String,
            zeta: String,
        }
        let long = "x".repeat(1000);
        for (alpha, mid, zeta) in [
            (long.clone(), "m".to_owned(), "z".to_owned()),
            ("a".to_owned(), long.clone(), "z".to_owned()),
            ("a".to_owned(), "m".to_owned(), long.clone()),
            ("a".to_owned(), "m".to_owned(), "z".to_owned()),
        ] {
            let mixed = super::super::to_vec(&Mixed {
                mid: mid.clone(),
                zeta: zeta.clone(),
                alpha: alpha.clone(),
            })
            .unwrap();
            let sorted = super::super::to_vec(&Sorted { alpha, mid, zeta }).unwrap();
            assert_eq!(mixed, sorted);
        }
    }

    /// Structs whose fields are declared out of Terraform's order, nested in each other, in
    /// lists and in maps: written as the same entries sorted by the map path (a
    /// `serde_json::Value`'s objects are maps), which reads its entries back instead.
    #[test]
    fn structs_out_of_order_are_written_in_order_at_every_level() {
        #[derive(serde::Serialize)]
        struct Inner {
            port: u16,
            cidrs: Vec<String>,
            b: Option<bool>,
        }
        #[derive(serde::Serialize)]
        struct Outer {
            zone: String,
            rules: Vec<Inner>,
            by_name: BTreeMap<String, Inner>,
            a: Inner,
            id: Option<String>,
        }
        let inner = |port| Inner {
            port,
            cidrs: vec!["10.0.0.0/8".into(), format!("192.168.{port}.0/24")],
            b: (port % 2 == 0).then_some(true),
        };
        let outer = Outer {
            zone: "eu-west-1a".into(),
            rules: (0..4).map(inner).collect(),
            by_name: [
                ("web".to_owned(), inner(80)),
                ("db".to_owned(), inner(5432)),
            ]
            .into(),
            a: inner(1),
            id: None,
        };
        let as_maps = serde_json::to_value(&outer).unwrap();
        let bytes = super::super::to_vec(&outer).unwrap();
        assert_eq!(bytes, super::super::to_vec(&as_maps).unwrap());
        assert!(bytes.starts_with(b"\x85\xa1a\x83\xa1b\xc0\xa5cidrs"));
    }

    #[test]
    fn non_string_keys_are_written_as_their_text_in_bytewise_order() {
        let m: HashMap<u32, bool> = [(10, true), (9, false), (100, true)].into();
        // "10" < "100" < "9"
        assert_eq!(
            super::super::to_vec(&m).unwrap(),
            b"\x83\xa210\xc3\xa3100\xc3\xa19\xc2"
        );
        let m: BTreeMap<char, u8> = [('b', 2), ('a', 1)].into();
        assert_eq!(super::super::to_vec(&m).unwrap(), b"\x82\xa1a\x01\xa1b\x02");
        // keys are normalized before they are ordered: "é" written as c3 a9
        let m: BTreeMap<String, u8> = [("e\u{301}".to_string(), 1), ("f".to_string(), 2)].into();
        assert_eq!(
            super::super::to_vec(&m).unwrap(),
            b"\x82\xa1f\x02\xa2\xc3\xa9\x01"
        );
        let m: BTreeMap<bool, u8> = [(true, 1)].into();
        assert!(super::super::to_vec(&m).is_err());
    }

    /// Keys of every length up to three words, sharing prefixes, given in every order the
    /// maps below yield: the output is in bytewise order, and a key NFC makes equal to
    /// another is a duplicate.
    #[test]
    fn keys_come_out_in_order_whatever_their_length() {
        let mut keys: Vec<String> = Vec::new();
        for len in 1..=24 {
            for last in [b'a', b'b', b'z'] {
                let mut k = "k".repeat(len - 1).into_bytes();
                k.push(last);
                keys.push(String::from_utf8(k).unwrap());
            }
        }
        let m: HashMap<&str, u8> = keys.iter().map(|k| (k.as_str(), 0)).collect();
        let bytes = super::super::to_vec(&m).unwrap();
        let back: Vec<(String, u8)> = {
            let mut r = crate::msgpack::read::SliceReader::new(&bytes);
            let n = r.try_read_map_len().unwrap().unwrap();
            (0..n)
                .map(|_| {
                    let k = r.read_str_or_bin().unwrap().to_owned();
                    r.skip_value(8).unwrap();
                    (k, 0)
                })
                .collect()
        };
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(
            back.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
            sorted
        );
        // a sorted map of the same keys writes the same bytes
        let b: BTreeMap<&str, u8> = keys.iter().map(|k| (k.as_str(), 0)).collect();
        assert_eq!(super::super::to_vec(&b).unwrap(), bytes);
        // "é" and "e" + combining acute are one key once normalized
        let m: BTreeMap<String, u8> =
            [("e\u{301}".to_string(), 1), ("\u{e9}".to_string(), 2)].into();
        let err = super::super::to_vec(&m).unwrap_err();
        assert!(err.to_string().starts_with("duplicate key"), "{err}");
    }

    /// The orders kept per thread: structs of the same names in other orders, with
    /// fields skipped or not, more kinds of struct than are kept, and a struct whose
    /// names repeat (refused every time, never kept); each time against the map path.
    #[test]
    fn struct_orders_kept_per_thread_give_the_order_of_the_names() {
        #[derive(serde::Serialize)]
        struct Ab {
            b: u8,
            a: u8,
            #[serde(skip_serializing_if = "Option::is_none")]
            c: Option<u8>,
        }
        #[derive(serde::Serialize)]
        struct Ba {
            a: u8,
            c: Option<u8>,
            b: u8,
        }
        /// A struct of the names it is given (any number, any order).
        struct Named(Vec<&'static str>);
        impl serde::Serialize for Named {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct as _;
                let mut st = s.serialize_struct("Named", self.0.len())?;
                for (i, name) in self.0.iter().enumerate() {
                    st.serialize_field(name, &i)?;
                }
                st.end()
            }
        }
        let same = |v: &dyn erased::Ser| {
            let bytes = v.to_vec().unwrap();
            assert_eq!(bytes, v.through_maps().unwrap());
            // exactly the bytes written, nothing spare
            assert_eq!(bytes.capacity(), bytes.len());
            bytes
        };
        for round in 0..3 {
            let with_c = same(&Ab {
                b: 2,
                a: 1,
                c: Some(round),
            });
            let without = same(&Ab {
                b: 2,
                a: 1,
                c: None,
            });
            assert_eq!(without, b"\x82\xa1a\x01\xa1b\x02");
            assert_eq!(
                with_c,
                [b"\x83\xa1a\x01\xa1b\x02\xa1c".as_slice(), &[round]].concat()
            );
            same(&Ba {
                a: 1,
                c: None,
                b: 2,
            });
            // more kinds of struct than there are slots (144 sequences, most of them out
            // of order, some of them sharing a slot)
            let names: Vec<&'static str> =
                ["l", "k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a"].to_vec();
            for n in 1..=names.len() {
                for skip in 0..names.len() {
                    let picked: Vec<&'static str> =
                        names.iter().cycle().skip(skip).take(n).copied().collect();
                    same(&Named(picked));
                }
            }
            let err = super::super::to_vec(&Named(vec!["b", "a", "b"])).unwrap_err();
            assert!(err.to_string().starts_with("duplicate key"), "{err}");
        }
    }

    /// An encode inside an encode (a `Serialize` that encodes something itself) has
    /// buffers of its own; an output larger than what a thread keeps comes out whole.
    #[test]
    fn encodes_inside_encodes_and_large_outputs() {
        struct Nested(u32);
        impl serde::Serialize for Nested {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct as _;
                let inner = match self.0 {
                    0 => Vec::new(),
                    n => super::super::to_vec(&Nested(n - 1)).map_err(serde::ser::Error::custom)?,
                };
                let mut st = s.serialize_struct("Nested", 2)?;
                st.serialize_field("z", &inner.len())?;
                st.serialize_field("a", &self.0)?;
                st.end()
            }
        }
        let bytes = super::super::to_vec(&Nested(3)).unwrap();
        // the innermost is 82 a1 a 00 a1 z 00 (7 bytes), each level around it too
        assert_eq!(bytes, b"\x82\xa1a\x03\xa1z\x07");
        let big: Vec<String> = (0..20_000).map(|i| format!("item {i}")).collect();
        let out = super::super::to_vec(&big).unwrap();
        assert!(out.len() > super::KEEP);
        let back: Vec<String> = super::super::from_slice(&out).unwrap();
        assert_eq!(back, big);
        // and the thread's next encode is still right
        assert_eq!(
            super::super::to_vec(&Nested(0)).unwrap(),
            b"\x82\xa1a\x00\xa1z\x00"
        );
    }

    /// Encodes through `to_vec` and through a `serde_json::Value` (whose objects are
    /// maps, sorted on the map path), for values of any type.
    mod erased {
        pub trait Ser {
            fn to_vec(&self) -> crate::error::Result<Vec<u8>>;
            fn through_maps(&self) -> crate::error::Result<Vec<u8>>;
        }
        impl<T: serde::Serialize> Ser for T {
            fn to_vec(&self) -> crate::error::Result<Vec<u8>> {
                super::super::super::to_vec(self)
            }
            fn through_maps(&self) -> crate::error::Result<Vec<u8>> {
                super::super::super::to_vec(&serde_json::to_value(self).unwrap())
            }
        }
    }
}
