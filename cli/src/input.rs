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

/// Decodes the input as the format says.
pub fn decode_bytes(input: &[u8], format: InputFormat) -> Result<Vec<u8>, String> {
    let text = || -> Result<String, String> {
        let s = std::str::from_utf8(input).map_err(|_| "the input is not text".to_string())?;
        Ok(s.chars().filter(|c| !c.is_whitespace()).collect())
    };
    match format {
        InputFormat::Raw => Ok(input.to_vec()),
        InputFormat::Hex => hex(&text()?),
        InputFormat::Base64 => base64(&text()?),
        InputFormat::Auto => {
            let Ok(t) = text() else {
                return Ok(input.to_vec());
            };
            if !t.is_empty() && t.len() % 2 == 0 && t.bytes().all(|b| b.is_ascii_hexdigit()) {
                return hex(&t);
            }
            if !t.is_empty() {
                if let Ok(b) = base64(&t) {
                    return Ok(b);
                }
            }
            Ok(input.to_vec())
        }
    }
}

fn hex(s: &str) -> Result<Vec<u8>, String> {
    tfvalue::conformance::hex_decode(s).map_err(|e| format!("invalid hex input: {e}"))
}

/// Standard (and URL-safe) base64, with or without padding.
pub fn base64(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for (i, c) in s.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
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
        assert_eq!(decode_bytes(b"c3", InputFormat::Auto).unwrap(), [0xc3]);
        assert_eq!(
            decode_bytes(b"gaF4ww==", InputFormat::Auto).unwrap(),
            [0x81, 0xa1, b'x', 0xc3]
        );
        assert_eq!(
            decode_bytes(b"\x81\xa1x\xc3", InputFormat::Auto).unwrap(),
            [0x81, 0xa1, b'x', 0xc3]
        );
        assert_eq!(base64("aGVsbG8").unwrap(), b"hello");
        assert!(base64("a").is_err());
        assert!(decode_bytes(b"zz", InputFormat::Hex).is_err());
    }
}
