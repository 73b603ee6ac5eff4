//! One voice in errors: each problem is worded the same way in MessagePack and JSON, for
//! typed structs and for `Value`s, and from a `Value` (`from_value`) and legacy flatmap
//! state. One row per problem; the message is compared without its path and position
//! (`Error::message`), and where the decoders must also agree on the path and position,
//! that is compared too.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tfvalue::codec::{Codec, RawState};
use tfvalue::{TfValue, Type, Unknown, Value};

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

/// Where an error is: its path, and its position (line and column in JSON, the byte
/// offset in MessagePack).
fn place(e: &tfvalue::Error) -> (String, Option<u64>, Option<u64>, Option<u64>) {
    (e.path().to_string(), e.line(), e.column(), e.offset())
}

#[test]
fn an_undeclared_attribute_is_one_error_everywhere() {
    let ty = ty();
    let mp = b"\x83\xa4name\xa1x\xa4tags\x80\xa4size\x05";
    // `size` (its opening quote) is on line 2, column 3.
    let json = "{\"name\":\"x\",\n  \"size\":5,\"tags\":{}}";
    let errors = [
        tfvalue::msgpack::from_slice::<Model>(mp).unwrap_err(),
        Value::from_msgpack(mp, &ty).unwrap_err(),
        tfvalue::json::from_str::<Model>(json).unwrap_err(),
        Value::from_json(json.as_bytes(), &ty).unwrap_err(),
        tfvalue::from_value::<Model>(Value::Object(
            [
                ("name", Value::from("x")),
                ("size", Value::from(5)),
                ("tags", Value::Map(Default::default())),
            ]
            .into(),
        ))
        .unwrap_err(),
    ];
    for e in &errors {
        // The message names the attribute and what is declared; the path is the object's,
        // as go-cty's JSON decoder says it.
        assert_eq!(
            e.message(),
            "unsupported attribute `size`, expected one of `name`, `tags`",
            "{e}"
        );
        assert_eq!(e.path().to_string(), "", "{e}");
    }
    // Where: at the attribute's name, in both MessagePack decoders and both JSON decoders.
    assert_eq!(place(&errors[0]), place(&errors[1]));
    assert_eq!(errors[0].offset(), Some(14));
    assert_eq!(place(&errors[2]), place(&errors[3]));
    assert_eq!((errors[2].line(), errors[2].column()), (Some(2), Some(3)));
    assert_eq!(
        errors[2].to_string(),
        "unsupported attribute `size`, expected one of `name`, `tags` at line 2 column 3"
    );
    // Nested, the path is that of the object holding it.
    let nested = "object({ disk = list(object({ size = number })) })"
        .parse::<Type>()
        .unwrap();
    let e = Value::from_json(br#"{"disk":[{"size":1,"kind":"ssd"}]}"#, &nested).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unsupported attribute `kind`, expected one of `size` at disk[0], line 1 column 20"
    );
}

#[test]
fn a_missing_attribute_is_null_in_json_state_for_every_decoder() {
    // Terraform's JSON state leaves nulls out, and go-cty reads a missing attribute as
    // null: a `Value` holds null, and a typed field holds what it makes of null.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Computed {
        name: String,
        id: Unknown<Option<String>>,
        size: Option<u32>,
    }
    let ty: Type = "object({ name = string, id = string, size = number })"
        .parse()
        .unwrap();
    let json = r#"{"name":"x"}"#;
    let v = Value::from_json(json.as_bytes(), &ty).unwrap();
    assert!(v["id"].is_null() && v["size"].is_null());
    let typed: Computed = tfvalue::json::from_str(json).unwrap();
    assert_eq!(
        typed,
        Computed {
            name: "x".into(),
            id: Unknown::Known(None),
            size: None
        }
    );
    // A field that cannot be null says the attribute is missing, in every decoder.
    let got = messages(b"\x81\xa4name\xa1x", r#"{"name":"x"}"#);
    assert_eq!(got[0], "missing attribute `tags`");
    assert_eq!(got[1], "missing attribute `tags`");
    assert_eq!(got[2], "missing attribute `tags`");
    // (MessagePack always carries every attribute; JSON state does not.)
    assert_eq!(got[3], "(no error)");
}

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Disk {
    name: String,
    size: String,
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
}

#[test]
fn a_missing_attribute_in_flatmap_state_is_called_missing() {
    let codec = Codec::<Disk>::new();
    let state = |pairs: &[(&str, &str)]| {
        RawState::from_flatmap(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    };
    let err = codec.decode(0, &state(&[("name", "d")])).unwrap_err();
    assert_eq!(
        err.message(),
        "decoding state of schema version 0: missing attribute `size`"
    );
    // The same state as JSON says the same.
    let err = codec
        .decode(0, &RawState::from_json(br#"{"name":"d"}"#.to_vec()))
        .unwrap_err();
    assert_eq!(
        err.message(),
        "decoding state of schema version 0: missing attribute `size`"
    );
    // A computed attribute the state leaves out is null to the model (as in JSON).
    let disk = codec
        .decode(0, &state(&[("name", "d"), ("size", "10")]))
        .unwrap();
    assert_eq!(disk.id, Unknown::Known(None));
    let disk = codec
        .decode(
            0,
            &RawState::from_json(br#"{"name":"d","size":"10"}"#.to_vec()),
        )
        .unwrap();
    assert_eq!(disk.id, Unknown::Known(None));
}

#[test]
fn json_errors_say_line_and_column() {
    // A wrong kind on the third line, for the typed and the untyped decoder alike.
    let json = "{\n  \"name\": \"x\",\n  \"tags\": 5\n}";
    let ty = ty();
    let typed = tfvalue::json::from_str::<Model>(json).unwrap_err();
    let untyped = Value::from_json(json.as_bytes(), &ty).unwrap_err();
    for e in [&typed, &untyped] {
        assert_eq!((e.line(), e.column()), (Some(3), Some(11)), "{e}");
        assert!(e.to_string().ends_with(" at tags, line 3 column 11"), "{e}");
    }
    // Syntax errors too, and the end of the input.
    let e = Value::from_json(b"{\"name\": \"x\",\n  \"tags\": {} x", &ty).unwrap_err();
    assert_eq!((e.line(), e.column()), (Some(2), Some(14)), "{e}");
    let e = tfvalue::json::from_str::<Model>("{\"name\":").unwrap_err();
    assert_eq!(e.line(), Some(1), "{e}");
    // MessagePack has no lines: its errors keep the byte offset.
    let e = Value::from_msgpack(b"\x82\xa4name\xa1x\xa4tags\x05", &ty).unwrap_err();
    assert_eq!((e.line(), e.offset()), (None, Some(13)));
    assert!(e.to_string().ends_with("(msgpack offset 13)"), "{e}");
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
