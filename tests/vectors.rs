//! Conformance: every case of the go-cty vectors (copied into tests/vectors/) must pass.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use tfvalue::conformance::{run_file, Kind};

fn run(file: &str, kind: Kind) {
    let path = format!("{}/tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(Kind::from_file_name(file), Some(kind));
    let results = run_file(kind, &text);
    let failed: Vec<_> = results.iter().filter(|r| r.outcome.is_err()).collect();
    for r in &failed {
        eprintln!("FAIL {}: {}", r.name, r.outcome.as_ref().unwrap_err());
    }
    println!(
        "{file}: {} passed, {} failed",
        results.len() - failed.len(),
        failed.len()
    );
    assert!(
        results.len() > 20,
        "{file}: only {} cases read",
        results.len()
    );
    assert!(
        failed.is_empty(),
        "{file}: {} of {} cases failed",
        failed.len(),
        results.len()
    );
}

#[test]
fn msgpack_decode_vectors() {
    run("msgpack-decode.jsonl", Kind::MsgpackDecode);
}

#[test]
fn msgpack_encode_vectors() {
    run("msgpack-encode.jsonl", Kind::MsgpackEncode);
}

#[test]
fn json_decode_vectors() {
    run("json-decode.jsonl", Kind::JsonDecode);
}

#[test]
fn json_encode_vectors() {
    run("json-encode.jsonl", Kind::JsonEncode);
}

/// Float64s off the wire written as JSON, byte for byte as go-cty writes them (the
/// expected texts come from tests/vectors/gen_msgpack_to_json.py, which computes them from
/// math/big's rule, not from tfvalue).
#[test]
fn msgpack_to_json_vectors() {
    run("msgpack-to-json.jsonl", Kind::MsgpackToJson);
}

/// Every `msgpack-encode` case that carries go-cty's JSON text of its value is also a
/// JSON-encode case (see `json_encode_case_from_msgpack` for its expected outcome).
#[test]
fn msgpack_encode_json_text_vectors() {
    use tfvalue::conformance::json_encode_case_from_msgpack;

    let path = format!(
        "{}/tests/vectors/msgpack-encode.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut derived = String::new();
    let (mut matches, mut errors) = (0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(json_case) = json_encode_case_from_msgpack(&case) {
            if json_case["expect"].get("error").is_some() {
                errors += 1;
            } else {
                matches += 1;
            }
            derived.push_str(&json_case.to_string());
            derived.push('\n');
        }
    }
    let results = run_file(Kind::JsonEncode, &derived);
    let failed: Vec<_> = results.iter().filter(|r| r.outcome.is_err()).collect();
    for r in &failed {
        eprintln!("FAIL {}: {}", r.name, r.outcome.as_ref().unwrap_err());
    }
    println!(
        "msgpack-encode json_text: {} passed, {} failed ({matches} compared with json_text, {errors} expected to fail)",
        results.len() - failed.len(),
        failed.len()
    );
    assert!(results.len() > 150, "only {} derived cases", results.len());
    assert!(
        failed.is_empty(),
        "{} of {} derived cases failed",
        failed.len(),
        results.len()
    );
}

/// Further JSON cases written for tfvalue (not from ../shared), in the same format.
#[test]
fn json_decode_extra_vectors() {
    run("json-decode-extra.jsonl", Kind::JsonDecode);
}

#[test]
fn json_encode_extra_vectors() {
    run("json-encode-extra.jsonl", Kind::JsonEncode);
}

/// Terraform's text rules (golang.org/x/text's NFC and the prefix cut's character facts,
/// Unicode 15.0), written by `tests/vectors/gen_text.py` from the rules, not by tfvalue.
#[test]
fn msgpack_encode_text_vectors() {
    run("msgpack-encode-text.jsonl", Kind::MsgpackEncode);
}

#[test]
fn json_encode_text_vectors() {
    run("json-encode-text.jsonl", Kind::JsonEncode);
}

#[test]
fn msgpack_to_json_text_vectors() {
    run("msgpack-to-json-text.jsonl", Kind::MsgpackToJson);
}
