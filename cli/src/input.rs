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
        Some(p) => return read_file(p),
    };
    Ok(buf)
}

/// Reads a file, saying "no such file" plainly when it is missing.
pub fn read_file(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("no such file: {path}"),
        std::io::ErrorKind::IsADirectory => format!("{path} is a directory, not a file"),
        _ => format!("cannot read {path}: {e}"),
    })
}

/// The name of standard input or of a file, for messages.
pub fn name(path: Option<&str>) -> &str {
    match path {
        None | Some("-") => "standard input",
        Some(p) => p,
    }
}

/// The encoding a text file is in when it is not UTF-8 but UTF-16 or UTF-32, by its
/// byte order mark or by the zero bytes of ASCII text in those encodings.
fn wide_encoding(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xFE, 0, 0, ..] => Some("UTF-32LE (it starts with the byte order mark FF FE 00 00)"),
        [0, 0, 0xFE, 0xFF, ..] => Some("UTF-32BE (it starts with the byte order mark 00 00 FE FF)"),
        [0xFF, 0xFE, ..] => Some("UTF-16LE (it starts with the byte order mark FF FE)"),
        [0xFE, 0xFF, ..] => Some("UTF-16BE (it starts with the byte order mark FE FF)"),
        [a, 0, b, 0, ..] if *a != 0 && *b != 0 && a.is_ascii() && b.is_ascii() => {
            Some("UTF-16LE (every other byte is zero)")
        }
        [0, a, 0, b, ..] if *a != 0 && *b != 0 && a.is_ascii() && b.is_ascii() => {
            Some("UTF-16BE (every other byte is zero)")
        }
        _ => None,
    }
}

/// The message for a UTF-16 or UTF-32 text input.
fn wide_message(what: &str, enc: &str) -> String {
    format!(
        "{what} is {enc}, not UTF-8; convert it first, e.g. `iconv -f UTF-16 -t UTF-8` \
         (PowerShell's `>` writes UTF-16: use `| Out-File -Encoding utf8`)"
    )
}

/// A JSON text file's bytes, checked to be UTF-8; a UTF-8 byte order mark is skipped.
pub fn utf8_json<'b>(what: &str, bytes: &'b [u8]) -> Result<&'b [u8], String> {
    if let Some(enc) = wide_encoding(bytes) {
        return Err(wide_message(what, enc));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(format!("{what} is empty"));
    }
    Ok(bytes)
}

/// How `--format auto` read the input, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detected {
    /// The format was given, not detected.
    Given,
    Hex,
    Base64,
    Raw,
}

impl Detected {
    /// ` (input read as hex: 12 bytes; choose with --format)`, or nothing when the format
    /// was given.
    pub fn note(self, len: usize) -> String {
        let how = match self {
            Detected::Given => return String::new(),
            Detected::Hex => "hex",
            Detected::Base64 => "base64",
            Detected::Raw => "raw bytes, since it is neither hex nor base64",
        };
        format!(" (input read as {how}: {len} bytes; choose with --format)")
    }
}

/// Decodes the input as the format says, and says what `auto` chose. Raw input is
/// returned as it is, without a copy, so a large file is held in memory once.
pub fn decode_bytes_detected(
    input: Vec<u8>,
    format: InputFormat,
) -> Result<(Vec<u8>, Detected), String> {
    if format != InputFormat::Raw {
        if let Some(enc) = wide_encoding(&input) {
            return Err(wide_message("the input", enc));
        }
    }
    let significant = || input.iter().copied().filter(|b| !b.is_ascii_whitespace());
    match format {
        InputFormat::Raw => Ok((input, Detected::Given)),
        InputFormat::Hex => hex(significant()).map(|b| (b, Detected::Given)),
        InputFormat::Base64 => base64(significant()).map(|b| (b, Detected::Given)),
        InputFormat::Auto => {
            let n = significant().count();
            if n > 0 && n % 2 == 0 && significant().all(|b| b.is_ascii_hexdigit()) {
                return hex(significant()).map(|b| (b, Detected::Hex));
            }
            if n > 0 && significant().all(|b| b.is_ascii_alphanumeric() || b"+/=-_".contains(&b)) {
                if let Ok(b) = base64(significant()) {
                    return Ok((b, Detected::Base64));
                }
            }
            Ok((input, Detected::Raw))
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

/// Standard base64 with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ABC[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_formats() {
        let d = |b: &[u8], f| decode_bytes_detected(b.to_vec(), f).map(|(b, _)| b);
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
        assert_eq!(base64_encode(b"hello"), "aGVsbG8=");
        assert_eq!(base64_encode(b"\x81\xa1x\xc3"), "gaF4ww==");
        assert!(base64(b"a".iter().copied()).is_err());
        assert!(d(b"zz", InputFormat::Hex).is_err());
        assert!(d(b"abc", InputFormat::Hex).is_err());
        // JSON text is left alone
        assert_eq!(d(b"{\"a\":1}", InputFormat::Auto).unwrap(), b"{\"a\":1}");
        let e = d(b"\xFF\xFE8\x001\x00", InputFormat::Auto).unwrap_err();
        assert!(e.contains("UTF-16LE"), "{e}");
        assert!(utf8_json("f", b"{\x00\"\x00a\x00")
            .unwrap_err()
            .contains("UTF-16LE"));
        assert_eq!(utf8_json("f", b"\xEF\xBB\xBF{}").unwrap(), b"{}");
        assert_eq!(
            decode_bytes_detected(b"c3".to_vec(), InputFormat::Auto)
                .unwrap()
                .1,
            Detected::Hex
        );
    }
}
