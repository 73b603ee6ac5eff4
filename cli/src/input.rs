//! Reading wire bytes: hex, base64 or raw, from a file or standard input.

use std::io::Read;

/// How the input bytes are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// Hex if the input is all hex digits, else base64 if it is valid base64, else raw.
    Auto,
    /// Hex digits (whitespace ignored).
    Hex,
    /// Standard base64, padded or not (whitespace ignored).
    Base64,
    /// The bytes themselves.
    Raw,
}

/// Reads a file, or standard input for `-` or no path.
pub fn read_input(path: Option<&str>) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    match path {
        None | Some("-") => std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?,
        Some(p) => return std::fs::read(p).map_err(|e| format!("cannot read {p}: {e}")),
    };
    Ok(buf)
}

/// Decodes the input as the format says. Raw input is returned as it is, without a copy,
/// so a large file is held in memory once.
pub fn decode_bytes(input: Vec<u8>, format: InputFormat) -> Result<Vec<u8>, String> {
    let significant = || input.iter().copied().filter(|b| !b.is_ascii_whitespace());
    match format {
        InputFormat::Raw => Ok(input),
        InputFormat::Hex => hex(significant()),
        InputFormat::Base64 => base64(significant()),
        InputFormat::Auto => {
            let n = significant().count();
            if n > 0 && n % 2 == 0 && significant().all(|b| b.is_ascii_hexdigit()) {
                return hex(significant());
            }
            if n > 0 && significant().all(|b| b.is_ascii_alphanumeric() || b"+/=-_".contains(&b)) {
                if let Ok(b) = base64(significant()) {
                    return Ok(b);
                }
            }
            Ok(input)
        }
    }
}

fn hex(digits: impl Iterator<Item = u8>) -> Result<Vec<u8>, String> {
    let val = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::new();
    let mut high: Option<u32> = None;
    for (i, c) in digits.enumerate() {
        let Some(v) = val(c) else {
            return Err(format!("invalid hex input: {:?} at digit {i}", c as char));
        };
        match high.take() {
            None => high = Some(v),
            Some(h) => out.push((h * 16 + v) as u8),
        }
    }
    if high.is_some() {
        return Err("invalid hex input: an odd number of digits".into());
    }
    Ok(out)
}

/// Standard (and URL-safe) base64, with or without padding.
pub fn base64(chars: impl Iterator<Item = u8>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for (i, c) in chars.enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => continue,
            _ => return Err(format!("invalid base64 input at character {i}")),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("invalid base64 input: truncated".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_formats() {
        let d = |b: &[u8], f| decode_bytes(b.to_vec(), f);
        assert_eq!(d(b"c3", InputFormat::Auto).unwrap(), [0xc3]);
        assert_eq!(d(b" c3\n 90 ", InputFormat::Auto).unwrap(), [0xc3, 0x90]);
        assert_eq!(
            d(b"gaF4ww==", InputFormat::Auto).unwrap(),
            [0x81, 0xa1, b'x', 0xc3]
        );
        assert_eq!(
            d(b"\x81\xa1x\xc3", InputFormat::Auto).unwrap(),
            [0x81, 0xa1, b'x', 0xc3]
        );
        assert_eq!(base64(b"aGVsbG8".iter().copied()).unwrap(), b"hello");
        assert!(base64(b"a".iter().copied()).is_err());
        assert!(d(b"zz", InputFormat::Hex).is_err());
        assert!(d(b"abc", InputFormat::Hex).is_err());
        // JSON text is left alone
        assert_eq!(d(b"{\"a\":1}", InputFormat::Auto).unwrap(), b"{\"a\":1}");
    }
}
