//! The text rules on arbitrary strings: both normalizations (no panic, bounded output,
//! the standard form stable) and the prefix cut of a refined unknown string (what is
//! written is at most 256 bytes, and a prefix of the normalized text).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfvalue::text::{normalize, normalize_unicode};
use tfvalue::{Refinements, Type, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let terraform = normalize(s);
    // A character becomes at most three (U+1D160), each at most four bytes, and a
    // U+034F goes in at most once per 30 characters.
    assert!(terraform.len() <= 12 * s.len() + 2, "{s:?}");
    if s.is_ascii() {
        assert_eq!(terraform, s);
    }
    let unicode = normalize_unicode(s);
    assert!(unicode.len() <= 12 * s.len(), "{s:?}");
    assert_eq!(normalize_unicode(&unicode), unicode, "{s:?}");

    let v = Value::Unknown(Refinements::new().with_prefix(s));
    let bytes = v
        .to_msgpack(&Type::String)
        .unwrap_or_else(|e| panic!("an unknown with a prefix must encode: {e}"));
    match Value::from_msgpack(&bytes, &Type::String) {
        Ok(Value::Unknown(r)) => {
            let written = r.prefix().unwrap_or("");
            assert!(written.len() <= 256, "{s:?}");
            assert!(terraform.starts_with(written), "{s:?} -> {written:?}");
        }
        other => panic!("the unknown must decode as one: {other:?}"),
    }
});
