//! Conformance: every case of the go-cty vectors (copied into tests/vectors/) must pass.

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
