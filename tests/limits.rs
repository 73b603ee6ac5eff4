//! The defences against hostile input: depth bombs, length prefixes that claim more than
//! the input holds, truncation, trailing bytes. Each must give a clean error.

use serde::Deserialize;
use tfvalue::{Category, Type, Value};

fn list_type(depth: usize) -> Type {
    let mut ty = Type::String;
    for _ in 0..depth {
        ty = Type::list(ty);
    }
    ty
}

/// Runs `f` on a thread with a small stack, so unbounded recursion would crash the test.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn depth_bomb_against_a_deep_type_is_a_depth_error() {
    let err = on_small_stack(|| {
        let mut input = vec![0x91; 1000];
        input.push(0xa1);
        input.push(b'x');
        let ty = list_type(1000);
        let err = Value::from_msgpack(&input, &ty).unwrap_err();
        // dropping a 1000-deep type on this thread must not overflow either
        drop(ty);
        err
    });
    assert_eq!(err.category(), Category::Limit);
    assert!(
        err.to_string()
            .contains("nesting is deeper than the limit of 128"),
        "{err}"
    );
    // the path says where: 128 list levels in
    assert_eq!(err.path().steps().len(), 128);
}

#[test]
fn nesting_up_to_the_limit_is_fine() {
    let mut input = vec![0x91; 128];
    input.push(0xc3);
    let mut ty = Type::Bool;
    for _ in 0..128 {
        ty = Type::list(ty);
    }
    let v = Value::from_msgpack(&input, &ty).unwrap();
    assert_eq!(v.to_msgpack(&ty).unwrap(), input);
    let mut deeper = vec![0x91];
    deeper.extend_from_slice(&input);
    assert!(Value::from_msgpack(&deeper, &Type::list(ty)).is_err());
}

#[test]
fn typed_depth_bomb_of_100000_levels_is_a_depth_error() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Nest(Vec<Nest>);

    let err = on_small_stack(|| {
        let mut input = vec![0x91; 100_000];
        input.push(0x90);
        tfvalue::msgpack::from_slice::<Nest>(&input).unwrap_err()
    });
    assert_eq!(err.category(), Category::Limit, "{err}");

    // Ignoring a deep value is bounded too.
    let err = on_small_stack(|| {
        let mut input = vec![0x91; 100_000];
        input.push(0x90);
        tfvalue::msgpack::from_slice::<serde::de::IgnoredAny>(&input).unwrap_err()
    });
    assert_eq!(err.category(), Category::Limit, "{err}");
}

#[test]
fn the_depth_limit_is_configurable() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Nest(Vec<Nest>);
    let mut input = vec![0x91; 10];
    input.push(0x90);
    let mut de = tfvalue::msgpack::Deserializer::from_slice(&input).max_depth(5);
    assert_eq!(
        Nest::deserialize(&mut de).unwrap_err().category(),
        Category::Limit
    );
    let mut de = tfvalue::msgpack::Deserializer::from_slice(&input).max_depth(11);
    assert!(Nest::deserialize(&mut de).is_ok());
    de.end().unwrap();
}

#[test]
fn nested_dynamic_bomb_is_a_depth_error() {
    let err = on_small_stack(|| {
        let mut input = Vec::new();
        for _ in 0..100_000 {
            input.extend_from_slice(b"\x92\xc4\x09\"dynamic\"");
        }
        input.push(0xc0);
        Value::from_msgpack(&input, &Type::Dynamic).unwrap_err()
    });
    assert_eq!(err.category(), Category::Limit, "{err}");
}

#[test]
fn deep_type_json_inside_dynamic_is_rejected() {
    let err = on_small_stack(|| {
        let mut ty = String::new();
        for _ in 0..100_000 {
            ty.push_str("[\"list\",");
        }
        ty.push_str("\"string\"");
        ty.push_str(&"]".repeat(100_000));
        let mut input = vec![0x92, 0xc6];
        input.extend_from_slice(&(ty.len() as u32).to_be_bytes());
        input.extend_from_slice(ty.as_bytes());
        input.push(0xc0);
        Value::from_msgpack(&input, &Type::Dynamic).unwrap_err()
    });
    assert!(err.to_string().contains("invalid type JSON"), "{err}");
}

#[test]
fn length_prefixes_larger_than_the_input_are_rejected_before_allocating() {
    let cases: &[(&[u8], Type)] = &[
        (b"\xdd\xff\xff\xff\xff", Type::list(Type::String)),
        (b"\xdd\xff\xff\xff\xff", Type::set(Type::String)),
        (b"\xdd\xff\xff\xff\xff", Type::tuple([Type::String])),
        (b"\xdf\xff\xff\xff\xff", Type::map(Type::String)),
        (b"\xdf\xff\xff\xff\xff", Type::object([("a", Type::String)])),
        (b"\xdb\xff\xff\xff\xff", Type::String),
        (b"\xc6\xff\xff\xff\xff", Type::String),
        (b"\xc9\xff\xff\xff\xff", Type::String),
        (b"\xdc\xff\xff", Type::list(Type::Bool)),
        (b"\xde\xff\xff", Type::map(Type::Bool)),
        (b"\x92\xc6\xff\xff\xff\xff", Type::Dynamic),
    ];
    for (input, ty) in cases {
        let err = Value::from_msgpack(input, ty).unwrap_err();
        assert_eq!(err.category(), Category::Eof, "{ty}: {err}");
        assert!(err.to_string().contains("left"), "{ty}: {err}");
    }
    // The same through typed decoding.
    assert!(
        tfvalue::msgpack::from_slice::<Vec<String>>(b"\xdd\xff\xff\xff\xff")
            .unwrap_err()
            .is_eof()
    );
    assert!(
        tfvalue::msgpack::from_slice::<std::collections::BTreeMap<String, String>>(
            b"\xdf\xff\xff\xff\xff"
        )
        .unwrap_err()
        .is_eof()
    );
    assert!(
        tfvalue::msgpack::from_slice::<String>(b"\xdb\xff\xff\xff\xff")
            .unwrap_err()
            .is_eof()
    );
}

#[test]
fn every_truncation_of_a_valid_value_is_a_clean_error() {
    let ty: Type = serde_json::from_str(
        r#"["object",{"a":["list","string"],"b":["map","number"],"c":"dynamic","d":["set","bool"],"e":"string"}]"#,
    )
    .unwrap();
    let mut full = Vec::new();
    full.extend_from_slice(b"\x85");
    full.extend_from_slice(b"\xa1a\x92\xa1x\xd9\x03yyy");
    full.extend_from_slice(b"\xa1b\x82\xa1k\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00\xa1l\xa51e400");
    full.extend_from_slice(b"\xa1c\x92\xc4\x08\"string\"\xa2hi");
    full.extend_from_slice(b"\xa1d\x92\xc2\xc3");
    full.extend_from_slice(b"\xa1e\xc7\x06\x0c\x81\x02\xa3abc");
    let v = Value::from_msgpack(&full, &ty).unwrap();
    assert_eq!(v["e"].as_unknown().unwrap().prefix(), Some("abc"));
    for n in 0..full.len() {
        let err = Value::from_msgpack(&full[..n], &ty).unwrap_err();
        assert!(
            matches!(
                err.category(),
                Category::Eof | Category::Syntax | Category::Data
            ),
            "prefix of {n} bytes: {err}"
        );
    }
}

#[test]
fn trailing_bytes_are_rejected() {
    let err = Value::from_msgpack(b"\xa1x\xa1y", &Type::String).unwrap_err();
    assert_eq!(err.category(), Category::Syntax);
    assert_eq!(
        err.to_string(),
        "trailing data after the value (2 bytes) (msgpack offset 2)"
    );
    let err = tfvalue::msgpack::from_slice::<u8>(b"\x01\x02").unwrap_err();
    assert!(
        err.to_string().starts_with("trailing data after the value"),
        "{err}"
    );
    // and the Deserializer gives the rest back to a caller who wants it
    let mut de = tfvalue::msgpack::Deserializer::from_slice(b"\x01\x02");
    assert_eq!(u8::deserialize(&mut de).unwrap(), 1);
    assert_eq!(de.remaining_input(), b"\x02");
}

#[test]
fn refinement_payloads_are_bounded() {
    // a prefix of 1020 bytes makes a payload of 1025 bytes: over the limit
    let mut input = vec![0xc8, 0x04, 0x01, 0x0c, 0x81, 0x02, 0xda, 0x03, 0xfc];
    input.extend(std::iter::repeat_n(b'x', 1020));
    let err = Value::from_msgpack(&input, &Type::String).unwrap_err();
    assert_eq!(err.category(), Category::Limit, "{err}");
    // a length refinement of a billion is data, not a capacity
    let v = Value::from_msgpack(
        b"\xc7\x0f\x0c\x83\x01\xc2\x05\xce\x3b\x9a\xca\x00\x06\xce\x3b\x9a\xca\x00",
        &Type::list(Type::String),
    )
    .unwrap();
    assert_eq!(v.as_unknown().unwrap().min_length(), Some(1_000_000_000));
}

#[test]
fn reserved_marker_and_garbage_are_syntax_errors() {
    let err = Value::from_msgpack(b"\xc1", &Type::String).unwrap_err();
    assert_eq!(err.category(), Category::Syntax);
    assert!(err.to_string().contains("0xc1"));
    let err = Value::from_msgpack(b"", &Type::String).unwrap_err();
    assert!(err.is_eof());
}

#[test]
fn a_length_upper_bound_of_the_largest_int_is_unbounded() {
    let ty = Type::list(Type::String);
    let v = Value::from_msgpack(
        b"\xc7\x0b\x0c\x81\x06\xcf\x7f\xff\xff\xff\xff\xff\xff\xff",
        &ty,
    )
    .unwrap();
    assert_eq!(v.as_unknown().unwrap().max_length(), None);
    assert_eq!(v.to_msgpack(&ty).unwrap(), b"\xd4\x00\x00");
    let r = tfvalue::Refinements::new().with_max_length(i64::MAX as u64);
    assert_eq!(Value::Unknown(r).to_msgpack(&ty).unwrap(), b"\xd4\x00\x00");
}

#[test]
fn a_type_from_the_input_cannot_multiply_filled_in_nulls() {
    // dynamic: list(object({1000 optional attributes})), then 4000 empty objects
    let mut attrs = String::new();
    let mut names = String::new();
    for i in 0..1000 {
        if i > 0 {
            attrs.push(',');
            names.push(',');
        }
        attrs.push_str(&format!("\"a{i}\":\"string\""));
        names.push_str(&format!("\"a{i}\""));
    }
    let ty_json = format!("[\"list\",[\"object\",{{{attrs}}},[{names}]]]");
    let mut input = vec![0x92, 0xc6];
    input.extend_from_slice(&(ty_json.len() as u32).to_be_bytes());
    input.extend_from_slice(ty_json.as_bytes());
    input.extend_from_slice(&[0xdc, 0x0f, 0xa0]);
    input.extend(std::iter::repeat_n(0x80, 4000));
    // optional markers of a type read from the input are dropped, so the empty objects
    // are missing required attributes
    let err = Value::from_msgpack(&input, &Type::Dynamic).unwrap_err();
    assert_eq!(err.category(), Category::Data, "{err}");
    assert!(err.to_string().contains("missing attribute"), "{err}");
    // the same in JSON, where any missing attribute is null
    let mut json = format!("{{\"type\":{ty_json},\"value\":[");
    for i in 0..4000 {
        if i > 0 {
            json.push(',');
        }
        json.push_str("{}");
    }
    json.push_str("]}");
    let err = Value::from_json(json.as_bytes(), &Type::Dynamic).unwrap_err();
    assert_eq!(err.category(), Category::Limit, "{err}");
    // a few empty objects are fine
    let small = format!("{{\"type\":{ty_json},\"value\":[{{}},{{}}]}}");
    let v = Value::from_json(small.as_bytes(), &Type::Dynamic).unwrap();
    assert_eq!(
        v.unwrap_dynamic()[1].as_object().map(|o| o.len()),
        Some(1000)
    );
}
