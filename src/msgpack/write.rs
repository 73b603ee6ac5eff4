//! Writing MessagePack items with the smallest header, as go-cty does.

use crate::number::{Number, WireNumber};

#[inline]
pub(crate) fn write_u64(out: &mut Vec<u8>, n: u64) {
    if n < 0x80 {
        out.push(n as u8);
    } else if n <= u8::MAX as u64 {
        out.extend_from_slice(&[0xcc, n as u8]);
    } else if n <= u16::MAX as u64 {
        out.push(0xcd);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else if n <= u32::MAX as u64 {
        out.push(0xce);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    } else {
        out.push(0xcf);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

/// Non-negative values use the unsigned forms.
#[inline]
pub(crate) fn write_i64(out: &mut Vec<u8>, n: i64) {
    if n >= 0 {
        write_u64(out, n as u64);
    } else if n >= -32 {
        out.push(n as i8 as u8);
    } else if n >= i8::MIN as i64 {
        out.extend_from_slice(&[0xd0, n as i8 as u8]);
    } else if n >= i16::MIN as i64 {
        out.push(0xd1);
        out.extend_from_slice(&(n as i16).to_be_bytes());
    } else if n >= i32::MIN as i64 {
        out.push(0xd2);
        out.extend_from_slice(&(n as i32).to_be_bytes());
    } else {
        out.push(0xd3);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

#[inline]
pub(crate) fn write_f64(out: &mut Vec<u8>, f: f64) {
    out.push(0xcb);
    out.extend_from_slice(&f.to_be_bytes());
}

pub(crate) fn write_number(out: &mut Vec<u8>, n: &Number) {
    match n.wire() {
        WireNumber::UInt(u) => write_u64(out, u),
        WireNumber::Int(i) => write_i64(out, i),
        WireNumber::Float(f) => write_f64(out, f),
        WireNumber::Text(t) => write_str_raw(out, &t),
    }
}

#[inline]
fn write_len(
    out: &mut Vec<u8>,
    n: usize,
    fix: Option<(u8, usize)>,
    m8: Option<u8>,
    m16: u8,
    m32: u8,
) {
    match fix {
        Some((base, max)) if n <= max => out.push(base | n as u8),
        _ => match m8 {
            Some(m) if n <= u8::MAX as usize => out.extend_from_slice(&[m, n as u8]),
            _ if n <= u16::MAX as usize => {
                out.push(m16);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            _ => {
                out.push(m32);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
        },
    }
}

/// Writes a string exactly as given (the caller normalizes).
#[inline]
pub(crate) fn write_str_raw(out: &mut Vec<u8>, s: &str) {
    if s.len() <= 31 {
        // fixstr, the common case: names and short values
        out.reserve(1 + s.len());
        out.push(0xa0 | s.len() as u8);
    } else {
        write_len(out, s.len(), None, Some(0xd9), 0xda, 0xdb);
    }
    out.extend_from_slice(s.as_bytes());
}

/// Writes a string in NFC, as the protocol requires; returns the length written.
#[inline(always)]
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) -> usize {
    let b = s.as_bytes();
    // Short ASCII (names, most values) is NFC as it is and takes a fixstr header.
    if b.len() <= 31 && b.is_ascii() {
        out.push(0xa0 | b.len() as u8);
        out.extend_from_slice(b);
        return b.len();
    }
    write_str_slow(out, s)
}

#[inline(never)]
fn write_str_slow(out: &mut Vec<u8>, s: &str) -> usize {
    let s = crate::text::nfc(s);
    write_str_raw(out, &s);
    s.len()
}

pub(crate) fn write_bin(out: &mut Vec<u8>, b: &[u8]) {
    write_len(out, b.len(), None, Some(0xc4), 0xc5, 0xc6);
    out.extend_from_slice(b);
}

#[inline]
pub(crate) fn write_array_len(out: &mut Vec<u8>, n: u32) {
    if n <= 15 {
        out.push(0x90 | n as u8);
    } else {
        write_len(out, n as usize, None, None, 0xdc, 0xdd);
    }
}

#[inline]
pub(crate) fn write_map_len(out: &mut Vec<u8>, n: u32) {
    if n <= 15 {
        out.push(0x80 | n as u8);
    } else {
        write_len(out, n as usize, None, None, 0xde, 0xdf);
    }
}

pub(crate) fn write_ext_header(out: &mut Vec<u8>, len: usize, code: i8) {
    match len {
        1 => out.push(0xd4),
        2 => out.push(0xd5),
        4 => out.push(0xd6),
        8 => out.push(0xd7),
        16 => out.push(0xd8),
        n if n <= u8::MAX as usize => out.extend_from_slice(&[0xc7, n as u8]),
        n if n <= u16::MAX as usize => {
            out.push(0xc8);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0xc9);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
    }
    out.push(code as u8);
}
