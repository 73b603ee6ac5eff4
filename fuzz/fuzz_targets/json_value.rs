//! The JSON side on arbitrary bytes: type JSON (`Type::from_json`), the tagged notation
//! (`tfvalue::tagged::from_tagged`), and `Value::from_json` against a few fixed types,
//! with the decoded value re-encoded and decoded again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfvalue::{tagged, Type};

fuzz_target!(|data: &[u8]| {
    // Type JSON: what parses prints back to the same type.
    if let Ok(ty) = Type::from_json(data) {
        let text = ty.to_json();
        let again = Type::from_json(text.as_bytes())
            .unwrap_or_else(|e| panic!("printed type JSON must parse: {e}\n{text}"));
        assert_eq!(ty, again, "type JSON round trip: {text}");
        let _ = ty.to_string();
    }
    // Values as JSON against fixed types: what decodes re-encodes and decodes back.
    for ty_text in [
        r#""dynamic""#,
        r#"["object",{"a":"string","b":["list","number"],"c":["map","bool"],"d":"dynamic"},["d"]]"#,
        r#"["set",["tuple",["number","string"]]]"#,
    ] {
        let Ok(ty) = Type::from_json(ty_text.as_bytes()) else {
            continue;
        };
        if let Ok(v) = tfvalue::Value::from_json(data, &ty) {
            let json = v
                .to_json(&ty)
                .unwrap_or_else(|e| panic!("decoded JSON must encode: {e}"));
            let back = tfvalue::Value::from_json(&json, &ty)
                .unwrap_or_else(|e| panic!("encoded JSON must decode: {e}"));
            let again = back
                .to_json(&ty)
                .unwrap_or_else(|e| panic!("re-encode: {e}"));
            assert_eq!(json, again, "JSON encoding is not stable");
        }
    }
    // The tagged notation: what parses prints back to the same value.
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(v) = tagged::from_tagged(&json) else {
        return;
    };
    let printed = tagged::to_tagged(&v);
    let back = tagged::from_tagged(&printed)
        .unwrap_or_else(|e| panic!("printed tagged notation must parse: {e}\n{printed}"));
    assert!(
        back == v,
        "tagged round trip changed the value\n{v:?}\n{back:?}"
    );
    // A value without a type encodes as its own structure says; that must not panic.
    let _ = tfvalue::msgpack::to_vec(&v);
});
