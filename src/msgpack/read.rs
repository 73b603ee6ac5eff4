//! A bounds-checked MessagePack reader over a byte slice.
//!
//! Every length prefix is checked against the bytes that remain before anything is sliced
//! or allocated: an array header claiming four billion elements on a five-byte input is an
//! error, not an allocation.

use crate::error::{Category, Error, Origin, Result};
use crate::number::Number;

/// One MessagePack item; containers give their length, and their items follow.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Token<'a> {
    Nil,
    Bool(bool),
    UInt(u64),
    Int(i64),
    F32(f32),
    F64(f64),
    Str(&'a [u8]),
    Bin(&'a [u8]),
    Array(u32),
    Map(u32),
    /// A whole extension value, header included.
    Ext(&'a [u8]),
}

impl Token<'_> {
    /// How the item is named in "invalid type" messages.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Token::Nil => "null",
            Token::Bool(_) => "bool",
            Token::UInt(_) | Token::Int(_) | Token::F32(_) | Token::F64(_) => "number",
            Token::Str(_) => "string",
            Token::Bin(_) => "bytes",
            Token::Array(_) => "array",
            Token::Map(_) => "map",
            Token::Ext(_) => "unknown value",
        }
    }
}

#[derive(Clone)]
pub(crate) struct SliceReader<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> SliceReader<'a> {
    pub(crate) fn new(input: &'a [u8]) -> Self {
        SliceReader { input, pos: 0 }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.input.len() - self.pos
    }

    pub(crate) fn input_full(&self) -> &'a [u8] {
        self.input
    }

    pub(crate) fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.input.len());
    }

    pub(crate) fn rest(&self) -> &'a [u8] {
        &self.input[self.pos..]
    }

    #[cold]
    pub(crate) fn err(&self, e: Error) -> Error {
        e.at_offset(Origin::Msgpack, self.pos as u64)
    }

    #[inline]
    pub(crate) fn peek(&self) -> Result<u8> {
        match self.input.get(self.pos) {
            Some(b) => Ok(*b),
            None => Err(self.end_of_input()),
        }
    }

    #[cold]
    #[inline(never)]
    fn announced_too_much(&self, n: usize) -> Error {
        self.err(Error::new(
            Category::Eof,
            format_args!(
                "unexpected end of input: {} announced, {} left",
                crate::error::plural(n as u64, "byte"),
                self.remaining()
            ),
        ))
    }

    #[cold]
    #[inline(never)]
    fn too_many_items(&self, n: usize, map: bool) -> Error {
        self.err(Error::new(
            Category::Eof,
            format_args!(
                "unexpected end of input: {} of {} announced, {} left",
                if map { "map" } else { "array" },
                crate::error::plural(n as u64, "item"),
                crate::error::plural(self.remaining() as u64, "byte")
            ),
        ))
    }

    #[cold]
    fn end_of_input(&self) -> Error {
        if self.input.is_empty() {
            Error::new(Category::Eof, "the input is empty")
        } else {
            self.err(Error::eof())
        }
    }

    #[inline]
    fn byte(&mut self) -> Result<u8> {
        let b = self.peek()?;
        self.pos += 1;
        Ok(b)
    }

    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.announced_too_much(n));
        }
        let s = &self.input[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    fn be<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn len8(&mut self) -> Result<usize> {
        Ok(self.byte()? as usize)
    }
    fn len16(&mut self) -> Result<usize> {
        Ok(u16::from_be_bytes(self.be()?) as usize)
    }
    fn len32(&mut self) -> Result<usize> {
        Ok(u32::from_be_bytes(self.be()?) as usize)
    }

    fn container(&mut self, n: usize, per_item: usize, map: bool) -> Result<Token<'a>> {
        // Each item takes at least one byte: a length that cannot fit in what is left is
        // rejected before anyone sizes a buffer by it.
        if n.saturating_mul(per_item) > self.remaining() {
            return Err(self.too_many_items(n, map));
        }
        let n = n as u32;
        Ok(if map { Token::Map(n) } else { Token::Array(n) })
    }

    /// The bytes of a string with a fixstr or str8 header (the forms Terraform uses for
    /// names and short values), if one comes next and is whole; otherwise nothing is
    /// consumed and [`next`](Self::next) handles the item, errors included.
    #[inline(always)]
    pub(crate) fn try_short_str(&mut self) -> Option<&'a [u8]> {
        let m = *self.input.get(self.pos)?;
        let (start, n) = match m {
            0xa0..=0xbf => (self.pos + 1, (m & 0x1f) as usize),
            0xd9 => (self.pos + 2, *self.input.get(self.pos + 1)? as usize),
            _ => return None,
        };
        let s = self.input.get(start..start + n)?;
        self.pos = start + n;
        Some(s)
    }

    /// Consumes `bytes` if the input continues with them; `false` (nothing consumed)
    /// otherwise.
    #[inline]
    pub(crate) fn eat(&mut self, bytes: &[u8]) -> bool {
        if self.rest().starts_with(bytes) {
            self.pos += bytes.len();
            true
        } else {
            false
        }
    }

    /// Reads the next item.
    #[inline]
    pub(crate) fn next(&mut self) -> Result<Token<'a>> {
        let start = self.pos;
        let m = self.byte()?;
        Ok(match m {
            0x00..=0x7f => Token::UInt(m as u64),
            0x80..=0x8f => return self.container((m & 0x0f) as usize, 2, true),
            0x90..=0x9f => return self.container((m & 0x0f) as usize, 1, false),
            0xa0..=0xbf => Token::Str(self.take((m & 0x1f) as usize)?),
            0xc0 => Token::Nil,
            0xc1 => {
                self.pos = start;
                return Err(self.err(Error::syntax("invalid MessagePack marker 0xc1")));
            }
            0xc2 => Token::Bool(false),
            0xc3 => Token::Bool(true),
            0xc4 => {
                let n = self.len8()?;
                Token::Bin(self.take(n)?)
            }
            0xc5 => {
                let n = self.len16()?;
                Token::Bin(self.take(n)?)
            }
            0xc6 => {
                let n = self.len32()?;
                Token::Bin(self.take(n)?)
            }
            0xc7..=0xc9 => {
                let n = match m {
                    0xc7 => self.len8()?,
                    0xc8 => self.len16()?,
                    _ => self.len32()?,
                };
                // The type byte, then `n` bytes (taken apart: on a 32-bit target `n`
                // may be `usize::MAX`, and `1 + n` would overflow).
                self.take(1)?;
                self.take(n)?;
                Token::Ext(&self.input[start..self.pos])
            }
            0xca => Token::F32(f32::from_be_bytes(self.be()?)),
            0xcb => Token::F64(f64::from_be_bytes(self.be()?)),
            0xcc => Token::UInt(self.byte()? as u64),
            0xcd => Token::UInt(u16::from_be_bytes(self.be()?) as u64),
            0xce => Token::UInt(u32::from_be_bytes(self.be()?) as u64),
            0xcf => Token::UInt(u64::from_be_bytes(self.be()?)),
            0xd0 => Token::Int(i8::from_be_bytes(self.be()?) as i64),
            0xd1 => Token::Int(i16::from_be_bytes(self.be()?) as i64),
            0xd2 => Token::Int(i32::from_be_bytes(self.be()?) as i64),
            0xd3 => Token::Int(i64::from_be_bytes(self.be()?)),
            0xd4..=0xd8 => {
                let n = 1usize << (m - 0xd4);
                self.take(1 + n)?;
                Token::Ext(&self.input[start..self.pos])
            }
            0xd9 => {
                let n = self.len8()?;
                Token::Str(self.take(n)?)
            }
            0xda => {
                let n = self.len16()?;
                Token::Str(self.take(n)?)
            }
            0xdb => {
                let n = self.len32()?;
                Token::Str(self.take(n)?)
            }
            0xdc => {
                let n = self.len16()?;
                return self.container(n, 1, false);
            }
            0xdd => {
                let n = self.len32()?;
                return self.container(n, 1, false);
            }
            0xde => {
                let n = self.len16()?;
                return self.container(n, 2, true);
            }
            0xdf => {
                let n = self.len32()?;
                return self.container(n, 2, true);
            }
            0xe0..=0xff => Token::Int(m as i8 as i64),
        })
    }

    /// Skips one whole item, nested ones included, nested at most `depth` containers
    /// deep (however many containers it holds side by side).
    pub(crate) fn skip_value(&mut self, depth: usize) -> Result<()> {
        // Iterative: the items still to skip in each container entered and not left,
        // innermost last (the one being skipped is `pending`).
        let mut open: Vec<u64> = Vec::new();
        let mut pending: u64 = 1;
        loop {
            while pending == 0 {
                match open.pop() {
                    Some(outer) => pending = outer,
                    None => return Ok(()),
                }
            }
            pending -= 1;
            let items = match self.next()? {
                Token::Array(n) => u64::from(n),
                Token::Map(n) => 2 * u64::from(n),
                _ => continue,
            };
            if open.len() >= depth {
                return Err(self.err(Error::limit("nesting is deeper than the limit")));
            }
            if items > 0 {
                open.push(pending);
                pending = items;
            }
        }
    }

    /// Reads an extension value: its code and payload.
    pub(crate) fn read_ext(&mut self) -> Result<(i8, &'a [u8])> {
        let m = self.byte()?;
        let n = match m {
            0xd4..=0xd8 => 1usize << (m - 0xd4),
            0xc7 => self.len8()?,
            0xc8 => self.len16()?,
            0xc9 => self.len32()?,
            _ => return Err(self.err(Error::syntax("expected a MessagePack extension"))),
        };
        let code = self.byte()? as i8;
        let payload = self.take(n)?;
        Ok((code, payload))
    }

    /// Reads a map header if the next item is a map; `None` (nothing consumed) otherwise.
    pub(crate) fn try_read_map_len(&mut self) -> Result<Option<u32>> {
        let save = self.pos;
        match self.next()? {
            Token::Map(n) => Ok(Some(n)),
            _ => {
                self.pos = save;
                Ok(None)
            }
        }
    }

    pub(crate) fn read_array_len(&mut self) -> Result<u32> {
        match self.next()? {
            Token::Array(n) => Ok(n),
            t => Err(self.err(Error::invalid_type(t.describe(), "array"))),
        }
    }

    /// A refinement map key: an integer.
    pub(crate) fn read_refinement_key(&mut self) -> Result<i64> {
        match self.next()? {
            Token::UInt(n) => Ok(i64::try_from(n).unwrap_or(i64::MAX)),
            Token::Int(n) => Ok(n),
            t => Err(self.err(Error::data(format_args!(
                "refinement keys must be integers, found {}",
                t.describe()
            )))),
        }
    }

    pub(crate) fn read_bool_or_nil(&mut self) -> Result<Option<bool>> {
        match self.next()? {
            Token::Bool(b) => Ok(Some(b)),
            Token::Nil => Ok(None),
            t => Err(self.err(Error::invalid_type(t.describe(), "bool"))),
        }
    }

    pub(crate) fn read_str_or_bin(&mut self) -> Result<&'a str> {
        match self.next()? {
            Token::Str(b) | Token::Bin(b) => self.utf8(b),
            t => Err(self.err(Error::invalid_type(t.describe(), "string"))),
        }
    }

    pub(crate) fn read_int(&mut self) -> Result<i128> {
        match self.next()? {
            Token::UInt(n) => Ok(n as i128),
            Token::Int(n) => Ok(n as i128),
            t => Err(self.err(Error::invalid_type(t.describe(), "integer"))),
        }
    }

    pub(crate) fn read_number(&mut self) -> Result<Number> {
        let t = self.next()?;
        number_from_token(t).map_err(|e| self.err(e))
    }

    #[inline]
    pub(crate) fn utf8(&self, b: &'a [u8]) -> Result<&'a str> {
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s),
            Err(e) => Err(self.err(Error::syntax(format_args!(
                "invalid UTF-8 in string at byte {}",
                e.valid_up_to()
            )))),
        }
    }
}

/// A number from any of its wire encodings: int, float or decimal string.
pub(crate) fn number_from_token(t: Token<'_>) -> Result<Number> {
    match t {
        Token::UInt(n) => Ok(Number::from(n)),
        Token::Int(n) => Ok(Number::from(n)),
        Token::F32(f) => Number::from_f32(f).ok_or_else(|| Error::data("NaN is not a number")),
        Token::F64(f) => Number::from_f64(f).ok_or_else(|| Error::data("NaN is not a number")),
        Token::Str(b) | Token::Bin(b) => {
            let s = std::str::from_utf8(b).map_err(|_| Error::syntax("invalid UTF-8 in number"))?;
            s.parse::<Number>().map_err(|e| {
                let msg = e.to_string();
                if msg.contains("range") {
                    Error::limit(msg)
                } else {
                    Error::data(msg)
                }
            })
        }
        t => Err(Error::invalid_type(t.describe(), "number")),
    }
}
