//! tfvalue::json: typed structs through every entry point, `Value` against types, error
//! messages with paths and offsets, exact numbers, `dynamic`, and the defences.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use tfvalue::json::{self, Deserializer, Serializer};
use tfvalue::{Category, Dynamic, DynamicValue, Number, Type, Unknown, Value};

fn ty(json: &str) -> Type {
    serde_json::from_str(json).unwrap()
}

fn num(s: &str) -> Number {
    s.parse().unwrap()
}

/// Decodes `bytes` as a `T` through every typed entry point and checks they agree.
fn decode_all<T>(bytes: &[u8]) -> T
where
    T: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let a: T = json::from_slice(bytes).unwrap();
    let b: T = json::from_reader(bytes).unwrap();
    let mut de = Deserializer::from_slice(bytes);
    let c = T::deserialize(&mut de).unwrap();
    de.end().unwrap();
    let d: T = DynamicValue::from_json(bytes.to_vec()).decode().unwrap();
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a, d);
    a
}

/// Encodes through every typed entry point and checks they agree.
fn encode_all<T: Serialize>(value: &T) -> Vec<u8> {
    let a = json::to_vec(value).unwrap();
    let mut b = Vec::new();
    json::to_writer(&mut b, value).unwrap();
    let mut ser = Serializer::new();
    value.serialize(&mut ser).unwrap();
    assert_eq!(a, b);
    assert_eq!(a, ser.into_inner());
    a
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rule {
    cidr: String,
    port: u16,
    description: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Group {
    name: String,
    size: Number,
    ratio: f64,
    enabled: bool,
    tags: BTreeMap<String, String>,
    rules: Vec<Rule>,
    note: Option<String>,
}

fn group() -> Group {
    Group {
        name: "web".into(),
        size: num("123456789012345678901234567890.5"),
        ratio: 0.1,
        enabled: true,
        tags: BTreeMap::from([
            ("env".into(), "prod".into()),
            ("team".into(), "infra".into()),
        ]),
        rules: vec![
            Rule {
                cidr: "10.0.0.0/8".into(),
                port: 443,
                description: None,
            },
            Rule {
                cidr: "0.0.0.0/0".into(),
                port: 80,
                description: Some("http".into()),
            },
        ],
        note: None,
    }
}

#[test]
fn typed_round_trip_through_every_entry_point() {
    let g = group();
    let bytes = encode_all(&g);
    assert_eq!(
        std::str::from_utf8(&bytes).unwrap(),
        r#"{"name":"web","size":123456789012345678901234567890.5,"ratio":0.1,"enabled":true,"tags":{"env":"prod","team":"infra"},"rules":[{"cidr":"10.0.0.0/8","port":443,"description":null},{"cidr":"0.0.0.0/0","port":80,"description":"http"}],"note":null}"#
    );
    assert_eq!(decode_all::<Group>(&bytes), g);
    // The same data through MessagePack decodes the same.
    let dv = DynamicValue::encode(&g).unwrap();
    assert_eq!(dv.decode::<Group>().unwrap(), g);
}

#[test]
fn typed_table() {
    // (JSON input, what it decodes to, what it encodes back to)
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct T {
        s: Option<String>,
        n: Option<i64>,
        u: Option<u8>,
        f: Option<f64>,
        b: Option<bool>,
    }
    let none = T {
        s: None,
        n: None,
        u: None,
        f: None,
        b: None,
    };
    let rows: &[(&str, T, &str)] = &[
        (
            r#"{}"#,
            T { ..none },
            r#"{"s":null,"n":null,"u":null,"f":null,"b":null}"#,
        ),
        (
            r#"{"s":"x","n":-5,"u":255,"f":1.5,"b":false}"#,
            T {
                s: Some("x".into()),
                n: Some(-5),
                u: Some(255),
                f: Some(1.5),
                b: Some(false),
            },
            r#"{"s":"x","n":-5,"u":255,"f":1.5,"b":false}"#,
        ),
        // go-cty's conversions: a number or bool where a string belongs keeps its text; a
        // number may be a string; a bool may be "true", "false", "1" or "0".
        (
            r#"{"s":1e3,"n":"12","u":"2.5e1","f":"0.25","b":"1"}"#,
            T {
                s: Some("1e3".into()),
                n: Some(12),
                u: Some(25),
                f: Some(0.25),
                b: Some(true),
            },
            r#"{"s":"1e3","n":12,"u":25,"f":0.25,"b":true}"#,
        ),
        (
            r#"{"s":true,"n":1e2,"f":1e0,"b":"0"}"#,
            T {
                s: Some("true".into()),
                n: Some(100),
                f: Some(1.0),
                b: Some(false),
                ..none
            },
            r#"{"s":"true","n":100,"u":null,"f":1,"b":false}"#,
        ),
        (
            r#"{"s":-0.50,"n":-0,"f":-0}"#,
            T {
                s: Some("-0.50".into()),
                n: Some(0),
                f: Some(0.0),
                ..none
            },
            // The float64 -0.0 is written `-0`, as go-cty writes it.
            r#"{"s":"-0.50","n":0,"u":null,"f":-0,"b":null}"#,
        ),
        // Strings are written in NFC, and read as they are.
        (
            "{\"s\":\"cafe\\u0301\"}",
            T {
                s: Some("cafe\u{301}".into()),
                ..none
            },
            "{\"s\":\"caf\u{e9}\",\"n\":null,\"u\":null,\"f\":null,\"b\":null}",
        ),
    ];
    for (input, want, output) in rows {
        let got: T = decode_all(input.as_bytes());
        assert_eq!(&got, want, "{input}");
        assert_eq!(
            std::str::from_utf8(&encode_all(&got)).unwrap(),
            *output,
            "{input}"
        );
    }
}

#[test]
fn borrowed_strings_point_into_the_input() {
    #[derive(Deserialize, Debug)]
    struct B<'a> {
        #[serde(borrow)]
        name: &'a str,
        #[serde(borrow)]
        tags: BTreeMap<&'a str, &'a str>,
    }
    let input = br#"{"name":"web","tags":{"env":"prod"}}"#;
    let b: B<'_> = json::from_slice(input).unwrap();
    let range = input.as_ptr_range();
    assert!(range.contains(&b.name.as_ptr()));
    let (k, v) = b.tags.iter().next().unwrap();
    assert!(range.contains(&k.as_ptr()) && range.contains(&v.as_ptr()));
    // An escaped string cannot be borrowed, as with serde_json.
    let err = json::from_slice::<B<'_>>(br#"{"name":"w\"eb","tags":{}}"#).unwrap_err();
    assert!(err.to_string().starts_with("invalid type: string"), "{err}");
}

#[test]
fn exact_numbers_survive_a_round_trip() {
    for text in [
        "123456789012345678901234567890.5",
        "1e400",
        "-1e-400",
        "0.1",
        "18446744073709551616",
    ] {
        let n = num(text);
        // As a Value.
        let v = Value::from_json(text.as_bytes(), &Type::Number).unwrap();
        assert_eq!(v, Value::Number(n.clone()), "{text}");
        let out = v.to_json(&Type::Number).unwrap();
        assert_eq!(Value::from_json(&out, &Type::Number).unwrap(), v, "{text}");
        assert_eq!(std::str::from_utf8(&out).unwrap(), n.to_string(), "{text}");
        // As a Number field.
        #[derive(Serialize, Deserialize, Debug, PartialEq)]
        struct S {
            n: Number,
        }
        let s: S = json::from_slice(format!(r#"{{"n":{text}}}"#).as_bytes()).unwrap();
        assert_eq!(s.n, n, "{text}");
        let back: S = json::from_slice(&json::to_vec(&s).unwrap()).unwrap();
        assert_eq!(back, s, "{text}");
    }
    // 1e400 in full: a one and 400 zeros.
    let out = json::to_vec(&num("1e400")).unwrap();
    assert_eq!(out.len(), 401);
    assert!(out[0] == b'1' && out[1..].iter().all(|&b| b == b'0'));
    // A float64 is written as the shortest text that reads back as it, as go-cty (and so
    // every state file) writes it; that text is the decimal 0.1, not the float64.
    let f = Number::from_f64(0.1).unwrap();
    let out = json::to_vec(&f).unwrap();
    assert_eq!(out, b"0.1");
    assert_eq!(json::from_slice::<Number>(&out).unwrap(), num("0.1"));
    // A number read from text that happens to be exactly a float64 keeps all its digits.
    let exact = num("0.1000000000000000055511151231257827021181583404541015625");
    assert_eq!(exact, f);
    assert_eq!(
        json::to_vec(&exact).unwrap(),
        b"0.1000000000000000055511151231257827021181583404541015625"
    );
    // but an f64 field reads 1e400 as out of range.
    let err = json::from_slice::<f64>(b"1e400").unwrap_err();
    assert_eq!(
        err.to_string(),
        "number 1e400 is out of range for f64 at line 1 column 1"
    );
}

#[test]
fn value_against_types() {
    let t = ty(
        r#"["object",{"id":"string","n":"number","on":"bool","l":["list","string"],"s":["set","number"],"m":["map","bool"],"t":["tuple",["string","number"]],"o":["object",{"x":"string"},["x"]]}]"#,
    );
    let v = Value::from_json(
        br#"{"id":7,"n":"1.50","on":"true","l":["a",1],"s":[2,1,2.0],"m":{"b":false,"a":true},"t":["x",1e1]}"#,
        &t,
    )
    .unwrap();
    assert_eq!(v["id"], "7");
    assert_eq!(v["n"].as_number(), Some(&num("1.5")));
    assert_eq!(v["on"], true);
    assert_eq!(v["l"][1], "1");
    assert_eq!(v["s"].as_set().map(<[Value]>::len), Some(2));
    assert_eq!(v["t"][1], 10);
    // Missing attributes are null, required or not.
    assert!(v["o"].is_null());
    assert_eq!(
        std::str::from_utf8(&v.to_json(&t).unwrap()).unwrap(),
        r#"{"id":"7","l":["a","1"],"m":{"a":true,"b":false},"n":1.5,"o":null,"on":true,"s":[1,2],"t":["x",10]}"#
    );
    // The same value through MessagePack.
    let back = Value::from_msgpack(&v.to_msgpack(&t).unwrap(), &t).unwrap();
    assert_eq!(back, v);
}

#[test]
fn dynamic_in_either_key_order() {
    let t = ty(r#"["object",{"d":"dynamic"}]"#);
    let type_first = br#"{"d":{"type":["list","number"],"value":[1,2]}}"#;
    let value_first = br#"{"d":{"value":[1,2],"type":["list","number"]}}"#;
    let a = Value::from_json(type_first, &t).unwrap();
    let b = Value::from_json(value_first, &t).unwrap();
    assert_eq!(a, b);
    let d = a["d"].as_dynamic().unwrap();
    assert_eq!(d.ty(), &Type::list(Type::Number));
    // Written with the type first.
    assert_eq!(a.to_json(&t).unwrap(), type_first);

    // A typed Dynamic field, and nested dynamic values read ahead of their types.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Output {
        value: Dynamic,
    }
    let nested = br#"{"value":{"value":{"value":"x","type":"string"},"type":"dynamic"}}"#;
    let out: Output = decode_all(nested);
    assert_eq!(out.value.ty(), &Type::String);
    assert_eq!(out.value.value(), &Value::from("x"));
    assert_eq!(
        json::to_vec(&out).unwrap(),
        br#"{"value":{"type":"string","value":"x"}}"#
    );

    // Errors inside a value read ahead keep the path and the offset in the whole input.
    let err =
        Value::from_json(br#"{"d":{"value":[1,"x"],"type":["list","number"]}}"#, &t).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid number "x" at d[1], line 1 column 18"#
    );
    let err =
        Value::from_json(br#"{"d":{"type":["list","number"],"value":[1,"x"]}}"#, &t).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid number "x" at d[1], line 1 column 43"#
    );
}

#[test]
fn dynamic_errors() {
    let rows: &[(&str, &str)] = &[
        (
            r#"{"value":1}"#,
            r#"a dynamic value needs both "type" and "value""#,
        ),
        (
            r#"{"type":"number"}"#,
            r#"a dynamic value needs both "type" and "value""#,
        ),
        (r#"{}"#, r#"a dynamic value needs both "type" and "value""#),
        (
            r#"{"type":"number","type":"number","value":1}"#,
            r#"duplicate key `type` in a dynamic value"#,
        ),
        (
            r#"{"value":1,"value":1,"type":"number"}"#,
            r#"duplicate key `value` in a dynamic value"#,
        ),
        (
            r#"{"type":"number","value":1,"x":0}"#,
            r#"unexpected key "x" in a dynamic value, expected "type" and "value""#,
        ),
        (
            r#"{"value":1,"type":"number","x":0}"#,
            r#"unexpected key "x" in a dynamic value, expected "type" and "value""#,
        ),
        (
            r#""x""#,
            r#"invalid type: string "x", expected a dynamic value {"type": T, "value": V}"#,
        ),
        (
            r#"[1]"#,
            r#"invalid type: array, expected a dynamic value {"type": T, "value": V}"#,
        ),
    ];
    for (input, message) in rows {
        let err = Value::from_json(input.as_bytes(), &Type::Dynamic).unwrap_err();
        assert_eq!(err.message(), *message, "{input}");
        assert_eq!(err.category(), Category::Data, "{input}");
        assert!(
            json::from_slice::<Dynamic>(input.as_bytes()).is_err(),
            "{input}"
        );
    }
    // A bad type names the problem.
    let err = Value::from_json(br#"{"value":1,"type":"numbr"}"#, &Type::Dynamic).unwrap_err();
    assert!(err.message().contains("numbr"), "{err}");
}

#[test]
fn duplicate_keys_are_rejected() {
    let rows: &[(&str, &str, &str)] = &[
        (
            r#"["map","string"]"#,
            r#"{"a":"1","a":"2"}"#,
            r#"duplicate key `a` at line 1 column 10"#,
        ),
        // out of order: found with a set
        (
            r#"["map","string"]"#,
            r#"{"b":"1","a":"2","b":"3"}"#,
            r#"duplicate key `b` at line 1 column 18"#,
        ),
        (
            r#"["object",{"a":"string"}]"#,
            r#"{"a":"1","a":"2"}"#,
            r#"duplicate attribute `a`"#,
        ),
        (
            r#"["list",["map","number"]]"#,
            r#"[{},{"k":1,"k":2}]"#,
            r#"duplicate key `k` at [1], line 1 column 12"#,
        ),
    ];
    for (t, input, message) in rows {
        let err = Value::from_json(input.as_bytes(), &ty(t)).unwrap_err();
        assert!(err.to_string().starts_with(message), "{input}: {err}");
    }
    // Typed maps and structs too.
    let err = json::from_slice::<HashMap<String, u8>>(br#"{"x":1,"x":2}"#).unwrap_err();
    assert_eq!(err.to_string(), r#"duplicate key `x` at line 1 column 8"#);
    let err = json::from_slice::<Rule>(br#"{"cidr":"a","port":1,"port":2}"#).unwrap_err();
    assert_eq!(err.message(), "duplicate attribute `port`");
}

#[test]
fn trailing_data_is_rejected() {
    for input in [&b"[\"a\"] x"[..], b"[\"a\"] [\"b\"]", b"1 2", b"{} }"] {
        let err = json::from_slice::<serde_json::Value>(input).unwrap_err();
        assert_eq!(err.message(), "trailing data after the value");
        assert_eq!(err.category(), Category::Syntax);
        assert!(Value::from_json(input, &Type::Dynamic).is_err());
    }
    let err = json::from_slice::<Vec<String>>(b"[\"a\"] x").unwrap_err();
    assert_eq!(
        err.to_string(),
        "trailing data after the value at line 1 column 7"
    );
    // Trailing whitespace is fine.
    assert_eq!(
        json::from_slice::<Vec<String>>(b" [\"a\"] \n\t").unwrap(),
        ["a"]
    );
    // Deserializer::end is where the check lives.
    let mut de = Deserializer::from_slice(b"true false");
    assert!(bool::deserialize(&mut de).unwrap());
    assert!(de.end().is_err());
}

#[test]
fn unknown_in_json_names_the_path() {
    #[derive(Serialize)]
    struct R {
        name: Unknown<String>,
        tags: HashMap<String, Unknown<String>>,
    }
    let r = R {
        name: Unknown::Known("x".into()),
        tags: HashMap::from([("env".to_string(), Unknown::unknown().with_prefix("pr"))]),
    };
    let err = json::to_vec(&r).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"unknown values cannot be encoded as JSON at tags["env"]"#
    );
    assert_eq!(err.category(), Category::Data);

    // Value: the path uses attribute steps for objects.
    let t = ty(r#"["object",{"rule":["list",["object",{"port":"number"}]]}]"#);
    let v = Value::from_msgpack(
        b"\x81\xa4rule\x92\x81\xa4port\x01\x81\xa4port\xd4\x00\x00",
        &t,
    )
    .unwrap();
    let err = v.to_json(&t).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown values cannot be encoded as JSON at rule[1].port"
    );

    // A known Unknown<T> is its value; decoding JSON always gives known values.
    let u: Unknown<Option<u8>> = json::from_slice(b"null").unwrap();
    assert_eq!(u, Unknown::Known(None));
    assert_eq!(json::to_vec(&Unknown::Known(5u8)).unwrap(), b"5");
    // A number pinned by its refinements to one value is that value, as in MessagePack.
    let pinned: Unknown<Number> = Unknown::unknown()
        .not_null()
        .with_lower_bound(7, true)
        .with_upper_bound(7, true);
    assert_eq!(json::to_vec(&pinned).unwrap(), b"7");
}

#[test]
fn error_messages_have_paths_and_offsets() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Disk {
        size: u32,
        kind: String,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Vm {
        disks: Vec<Disk>,
        tags: BTreeMap<String, bool>,
    }
    let rows: &[(&str, &str)] = &[
        (
            r#"{"disks":[{"size":1,"kind":"ssd"},{"size":-1,"kind":"hdd"}],"tags":{}}"#,
            "invalid value: number -1, expected u32 at disks[1].size, line 1 column 43",
        ),
        (
            r#"{"disks":[{"size":1,"kind":[]}],"tags":{}}"#,
            "invalid type: array, expected a string at disks[0].kind, line 1 column 29",
        ),
        (
            r#"{"disks":[],"tags":{"a":"yes"}}"#,
            r#"invalid value: string "yes", expected a bool (true, false, or one of the strings "true", "false", "1", "0") at tags["a"], line 1 column 25"#,
        ),
        (r#"{"disks":[{"size":1}],"tags":{}}"#, "missing attribute `kind` at disks[0], line 1 column 20"),
        (
            r#"{"disks":[{"size":1,"kind":"a","extra":1}],"tags":{}}"#,
            "unsupported attribute `extra`, expected one of `size`, `kind` at disks[0], line 1 column 32",
        ),
        (r#"{"disks":[{"size":1.5,"kind":"a"}],"tags":{}}"#, "invalid value: number 1.5, expected u32 at disks[0].size, line 1 column 19"),
        (r#"{"disks":[],"tags":{"a":true}"#, "EOF while parsing an object at line 1 column 29"),
        (r#"{"disks":[],"tags":{"a":tru}}"#, r#"expected ident at tags["a"], line 1 column 28"#),
        (r#"[]"#, "invalid type: array, expected struct Vm at line 1 column 2"),
        ("", "the input is empty at line 1 column 1"),
    ];
    for (input, message) in rows {
        let err = json::from_slice::<Vm>(input.as_bytes()).unwrap_err();
        assert_eq!(err.to_string(), *message, "{input}");
    }
    // JSON text is UTF-8; the offset is that of the first invalid byte.
    let err = json::from_slice::<String>(b"\"ab\xff\"").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid UTF-8 in JSON text at line 1 column 4"
    );
    assert_eq!(err.category(), Category::Syntax);
    let mut de = Deserializer::from_slice(b"[1] \xff");
    assert!(de.end().is_err());
    // Categories.
    assert!(json::from_slice::<Vm>(b"{\"disks\":[")
        .unwrap_err()
        .is_eof());
    assert_eq!(
        json::from_slice::<Vm>(b"@").unwrap_err().category(),
        Category::Syntax
    );
    assert_eq!(
        json::from_slice::<u8>(b"\"x\"").unwrap_err().category(),
        Category::Data
    );

    // Value decoding, with paths through maps, lists and objects.
    let t = ty(r#"["map",["list",["object",{"port":"number"}]]]"#);
    let err = Value::from_json(br#"{"web":[{"port":80},{"port":true}]}"#, &t).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid type: bool `true`, expected a number at ["web"][1].port, line 1 column 29"#
    );
    let err = Value::from_json(br#"{"web":[{"prt":80}]}"#, &t).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"unsupported attribute `prt`, expected one of `port` at ["web"][0], line 1 column 10"#
    );
}

#[test]
fn undeclared_attributes_can_be_ignored() {
    let input = br#"{"cidr":"a","port":1,"legacy":{"deep":[1,2]},"description":null}"#;
    assert!(json::from_slice::<Rule>(input).is_err());
    let mut de = Deserializer::from_slice(input).ignore_undeclared_attributes(true);
    let r = Rule::deserialize(&mut de).unwrap();
    de.end().unwrap();
    assert_eq!(
        r,
        Rule {
            cidr: "a".into(),
            port: 1,
            description: None
        }
    );

    let t = ty(r#"["object",{"cidr":"string"}]"#);
    assert!(Value::from_json(input, &t).is_err());
    let mut de = Deserializer::from_slice(input).ignore_undeclared_attributes(true);
    let v = de.decode_value(&t).unwrap();
    de.end().unwrap();
    assert_eq!(v["cidr"], "a");
    assert_eq!(v.as_object().map(|o| o.len()), Some(1));

    // An ignored attribute must still be well-formed JSON.
    let mut de = Deserializer::from_slice(br#"{"cidr":"a","port":1,"x":[1,}"#)
        .ignore_undeclared_attributes(true);
    assert!(Rule::deserialize(&mut de).is_err());
}

#[test]
fn depth_limit() {
    fn nested(n: usize) -> String {
        format!("{}{}", "[".repeat(n), "]".repeat(n))
    }
    // The default limit is 128 levels.
    assert!(json::from_slice::<serde_json::Value>(nested(128).as_bytes()).is_ok());
    let err = json::from_slice::<serde_json::Value>(nested(129).as_bytes()).unwrap_err();
    assert_eq!(err.category(), Category::Limit);
    assert!(
        err.message()
            .starts_with("nesting is deeper than the limit of 128"),
        "{err}"
    );
    // Configurable.
    let input = nested(10);
    let mut de = Deserializer::from_slice(input.as_bytes()).max_depth(9);
    assert!(serde_json::Value::deserialize(&mut de).is_err());
    let mut de = Deserializer::from_slice(input.as_bytes()).max_depth(10);
    assert!(serde_json::Value::deserialize(&mut de).is_ok());
    // A depth bomb fails cleanly, whatever the target.
    let bomb = nested(100_000);
    assert!(json::from_slice::<serde_json::Value>(bomb.as_bytes()).is_err());
    assert!(json::from_slice::<Dynamic>(bomb.as_bytes()).is_err());
    assert!(Value::from_json(bomb.as_bytes(), &Type::Dynamic).is_err());
    // Skipping a deep attribute, or reading a dynamic value ahead of its type, does not
    // recurse (serde_json skips iteratively), so it is safe whatever the depth.
    let skipped = format!(r#"{{"cidr":"a","port":1,"x":{bomb}}}"#);
    let mut de = Deserializer::from_slice(skipped.as_bytes()).ignore_undeclared_attributes(true);
    assert_eq!(Rule::deserialize(&mut de).unwrap().port, 1);
    let ahead = format!(r#"{{"value":{bomb},"type":"dynamic"}}"#);
    assert!(Value::from_json(ahead.as_bytes(), &Type::Dynamic).is_err());
    // Nested dynamic values count too.
    let mut deep = String::from("1");
    for _ in 0..200 {
        deep = format!(r#"{{"value":{deep},"type":"dynamic"}}"#);
    }
    let err = Value::from_json(deep.as_bytes(), &Type::Dynamic).unwrap_err();
    assert_eq!(err.category(), Category::Limit);

    // The serializer has the same limit.
    let mut v = serde_json::Value::Null;
    for _ in 0..200 {
        v = serde_json::Value::Array(vec![v]);
    }
    assert_eq!(json::to_vec(&v).unwrap_err().category(), Category::Limit);
}

#[test]
fn encoding_rejects_what_json_cannot_carry() {
    assert!(json::to_vec(&f64::NAN).is_err());
    assert!(json::to_vec(&f64::INFINITY).is_err());
    assert!(json::to_vec(&Number::infinity()).is_err());
    assert!(Value::Number(Number::neg_infinity())
        .to_json(&Type::Number)
        .is_err());
    assert!(json::to_vec(&HashMap::from([(true, 1)])).is_err());
    #[derive(Serialize)]
    enum E {
        A(u8),
    }
    assert!(json::to_vec(&E::A(1)).is_err());
    assert!(json::to_vec(&serde_bytes::Bytes::new(b"\xff")).is_err());
    assert_eq!(
        json::to_vec(&serde_bytes::Bytes::new(b"ok")).unwrap(),
        b"\"ok\""
    );
    // Values that do not conform are an error, as with MessagePack.
    assert!(Value::from("x").to_json(&Type::Number).is_err());
}

#[test]
fn unit_enums_and_raw_values() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum Mode {
        #[serde(rename = "on")]
        On,
        #[serde(rename = "off")]
        Off,
    }
    assert_eq!(
        decode_all::<Vec<Mode>>(br#"["on","off"]"#),
        [Mode::On, Mode::Off]
    );
    assert_eq!(encode_all(&Mode::Off), br#""off""#);
    assert!(json::from_slice::<Mode>(br#"{"on":1}"#).is_err());

    // serde_json's RawValue passes through untouched.
    #[derive(Serialize, Deserialize)]
    struct Raw<'a> {
        #[serde(borrow)]
        raw: &'a serde_json::value::RawValue,
        n: u8,
    }
    let input = br#"{"raw":{"a": [1, 2.50]},"n":1}"#;
    let r: Raw<'_> = json::from_slice(input).unwrap();
    assert_eq!(r.raw.get(), r#"{"a": [1, 2.50]}"#);
    assert_eq!(json::to_vec(&r).unwrap(), input);
}

#[test]
fn dynamic_value_reads_either_field() {
    let t = ty(r#"["object",{"name":"string","size":"number"}]"#);
    let v = Value::from_json(br#"{"name":"a","size":1e400}"#, &t).unwrap();
    let from_msgpack = DynamicValue::encode_value(&v, &t).unwrap();
    assert!(from_msgpack.json.is_empty());
    let from_json = DynamicValue::from_json(v.to_json(&t).unwrap());
    assert_eq!(from_msgpack.decode_value(&t).unwrap(), v);
    assert_eq!(from_json.decode_value(&t).unwrap(), v);
    // msgpack wins when both are set.
    let both = DynamicValue {
        msgpack: from_msgpack.msgpack.clone(),
        json: b"garbage".to_vec(),
    };
    assert_eq!(both.decode_value(&t).unwrap(), v);
    // Neither: null.
    assert!(DynamicValue::default().is_empty());
    assert_eq!(
        DynamicValue::default().decode_value(&t).unwrap(),
        Value::Null
    );
    assert_eq!(
        DynamicValue::default().decode::<Option<Rule>>().unwrap(),
        None
    );
    assert!(DynamicValue::default().decode::<Rule>().is_err());
}

#[test]
fn no_panic_on_malformed_input() {
    let t = ty(r#"["object",{"a":["list","number"],"d":"dynamic","m":["map","string"]}]"#);
    let inputs: &[&[u8]] = &[
        b"",
        b"{",
        b"}",
        b"[",
        b"{\"a\":",
        b"{\"a\":[1,",
        b"\"\\ud800\"",
        b"\"\\u12\"",
        b"\xff",
        b"\"\xff\"",
        b"{\"d\":{\"value\":",
        b"{\"d\":{\"value\":1,\"type\":",
        b"{\"d\":{\"type\":[\"list\"",
        b"nul",
        b"-",
        b"1e",
        b"1e99999999999",
        b"{\"a\":[1e99999999999]}",
        b"{\"m\":{\"\\ud800\":\"x\"}}",
        b"\"\x01\"",
    ];
    for input in inputs {
        assert!(
            Value::from_json(input, &t).is_err(),
            "{:?}",
            String::from_utf8_lossy(input)
        );
        let _ = json::from_slice::<Group>(input);
        let _ = json::from_slice::<serde_json::Value>(input);
        let _ = json::from_slice::<Dynamic>(input);
    }
}

#[test]
fn default_depth_fits_a_small_stack() {
    // 128 levels of arrays (as a Value and as serde_json's Value) and of dynamic values, on
    // a 1 MiB stack: the adapter adds a few frames per level, and this keeps an eye on how
    // many (it also passes unoptimized, with CARGO_PROFILE_TEST_OPT_LEVEL=0).
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let depth = 128;
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let mut ty = Type::Number;
            for _ in 0..depth {
                ty = Type::list(ty);
            }
            assert!(Value::from_json(text.as_bytes(), &ty).is_ok());
            assert!(json::from_slice::<serde_json::Value>(text.as_bytes()).is_ok());
            let mut dynamic = String::from(r#"{"value":1,"type":"number"}"#);
            for _ in 0..(depth - 1) {
                dynamic = format!(r#"{{"value":{dynamic},"type":"dynamic"}}"#);
            }
            let r = Value::from_json(dynamic.as_bytes(), &Type::Dynamic);
            assert!(r.is_ok(), "{r:?}");
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn numbers_read_as_strings_keep_their_text() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct S {
        a: String,
        b: Vec<String>,
        c: Option<String>,
    }
    // Pretty-printed, so that positions span lines.
    let input = "{\n  \"a\": 1.50,\n  \"b\": [\n    -0,\n    1e3, 12,\n    -12.5E-1, true, \"x\"\n  ],\n  \"c\": 123456789012345678901234567890\n}";
    let s: S = decode_all(input.as_bytes());
    assert_eq!(s.a, "1.50");
    assert_eq!(s.b, ["-0", "1e3", "12", "-12.5E-1", "true", "x"]);
    assert_eq!(s.c.as_deref(), Some("123456789012345678901234567890"));

    // The same inside a dynamic value read ahead of its type, and as Values.
    let t = ty(r#"["object",{"d":"dynamic","s":"string"}]"#);
    let input =
        "{\"s\": 2.0,\n \"d\": {\"value\": [\n1.50,\n 2e1\n], \"type\": [\"list\",\"string\"]}\n}";
    let v = Value::from_json(input.as_bytes(), &t).unwrap();
    assert_eq!(v["s"], "2.0");
    assert_eq!(v["d"][0], "1.50");
    assert_eq!(v["d"][1], "2e1");
}

#[test]
fn numbers_too_large_for_f64_where_strings_belong_keep_their_text() {
    use tfvalue::{Type, Value};
    for text in ["1e400", "-2e308", "123456789012345678901234567890e300"] {
        let v = Value::from_json(text.as_bytes(), &Type::String).unwrap();
        assert_eq!(v.as_str(), Some(text));
        let input = format!(r#"{{"a":[{text}, "x"]}}"#);
        let ty = Type::object([("a", Type::list(Type::String))]);
        let v = Value::from_json(input.as_bytes(), &ty).unwrap();
        assert_eq!(v["a"][0].as_str(), Some(text));
        #[derive(serde::Deserialize)]
        struct S {
            a: Vec<String>,
        }
        let s: S = tfvalue::json::from_slice(input.as_bytes()).unwrap();
        assert_eq!(s.a[0], text);
    }
}
