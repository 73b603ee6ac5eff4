//! One voice in errors: each problem is worded the same way in MessagePack and JSON, for
//! typed structs and for `Value`s. One row per problem; the message is compared without
//! its path and offset (`Error::message`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde::Deserialize;
use std::collections::BTreeMap;
use tfvalue::{Type, Value};

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Model {
    name: String,
    tags: BTreeMap<String, String>,
}

fn ty() -> Type {
    "object({ name = string, tags = map(string) })"
        .parse()
        .unwrap()
}

/// The messages of the four decoders for one input, given as (msgpack, JSON).
fn messages(mp: &[u8], json: &str) -> [String; 4] {
    let ty = ty();
    let m = |r: Result<(), tfvalue::Error>| match r {
        Ok(()) => "(no error)".to_string(),
        Err(e) => e.message().to_string(),
    };
    [
        m(tfvalue::msgpack::from_slice::<Model>(mp).map(|_| ())),
        m(Value::from_msgpack(mp, &ty).map(|_| ())),
        m(tfvalue::json::from_str::<Model>(json).map(|_| ())),
        m(Value::from_json(json.as_bytes(), &ty).map(|_| ())),
    ]
}

#[test]
fn each_problem_has_one_message() {
    let table: &[(&str, &[u8], &str, &str)] = &[
        ("empty input", b"", "", "the input is empty"),
        (
            "a duplicate attribute",
            b"\x83\xa4name\xa1x\xa4name\xa1y\xa4tags\x80",
            r#"{"name":"x","name":"y","tags":{}}"#,
            "duplicate attribute `name`",
        ),
        (
            "a duplicate key",
            b"\x82\xa4name\xa1x\xa4tags\x82\xa1a\xa11\xa1a\xa12",
            r#"{"name":"x","tags":{"a":"1","a":"2"}}"#,
            "duplicate key `a`",
        ),
        (
            "trailing data",
            b"\x82\xa4name\xa1x\xa4tags\x80\xc0",
            r#"{"name":"x","tags":{}} 1"#,
            "trailing data after the value",
        ),
    ];
    for (problem, mp, json, want) in table {
        for (i, got) in messages(mp, json).iter().enumerate() {
            let decoder = ["msgpack typed", "msgpack Value", "JSON typed", "JSON Value"][i];
            assert!(
                got.starts_with(want),
                "{problem}, {decoder}: {got:?} does not start with {want:?}"
            );
        }
    }
}

#[test]
fn a_wrong_kind_says_what_was_expected() {
    // JSON also shows the value it found (`number 5`), as serde_json does.
    for g in messages(b"\x82\xa4name\xa1x\xa4tags\x05", r#"{"name":"x","tags":5}"#) {
        assert!(g.starts_with("invalid type: number"), "{g}");
        assert!(g.ends_with(", expected a map"), "{g}");
    }
    for g in messages(b"\x82\xa4name\x05\xa4tags\x80", r#"{"name":[],"tags":{}}"#) {
        assert!(g.ends_with(", expected a string"), "{g}");
    }
}

#[test]
fn attributes_are_named_the_same_way() {
    // Undeclared: every decoder names it in backticks.
    let got = messages(
        b"\x83\xa4name\xa1x\xa4tags\x80\xa4size\x05",
        r#"{"name":"x","tags":{},"size":5}"#,
    );
    for g in &got {
        assert!(g.starts_with("unsupported attribute `size`"), "{g}");
    }
    // Missing: MessagePack requires every attribute; JSON state leaves nulls out, so a
    // `Value` reads a missing attribute as null and a struct field that cannot be null
    // says it is missing.
    let got = messages(b"\x81\xa4name\xa1x", r#"{"name":"x"}"#);
    assert_eq!(got[0], "missing attribute `tags`");
    assert_eq!(got[1], "missing attribute `tags`");
    assert_eq!(got[2], "missing attribute `tags`");
    assert_eq!(got[3], "(no error)");
}

#[test]
fn counts_are_in_good_grammar() {
    let e = tfvalue::msgpack::from_slice::<String>(b"\xa1").unwrap_err();
    assert_eq!(
        e.message(),
        "unexpected end of input: 1 byte announced, 0 left"
    );
    let e = tfvalue::msgpack::from_slice::<String>(b"\xa5ab").unwrap_err();
    assert_eq!(
        e.message(),
        "unexpected end of input: 5 bytes announced, 2 left"
    );
    let e = Value::from_msgpack(b"\xa1x\xc0", &Type::String).unwrap_err();
    assert_eq!(e.message(), "trailing data after the value (1 byte)");
    let e = Value::from_msgpack(b"\x92\x01\x02", &Type::tuple(vec![Type::Number])).unwrap_err();
    assert_eq!(
        e.message(),
        "invalid length: more than 1 element, expected a tuple of 1 element"
    );
}

#[test]
fn a_depth_error_shows_a_shortened_path() {
    let mut bytes = vec![0x91u8; 200];
    bytes.push(0xc0);
    let mut t = Type::String;
    for _ in 0..200 {
        t = Type::list(t);
    }
    let e = Value::from_msgpack(&bytes, &t).unwrap_err();
    assert_eq!(e.message(), "nesting is deeper than the limit of 128");
    let text = e.to_string();
    assert!(text.contains("…(104 more)…"), "{text}");
    assert!(text.len() < 200, "{text}");
    // the whole path is still there for code
    assert_eq!(e.path().steps().len(), 128);
}
