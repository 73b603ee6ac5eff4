//! What a differential run of 110,000 cases against go-cty found, pinned: collections whose
//! elements differ in concrete type below a `dynamic` position, float64s in JSON,
//! non-string keys, and long refinement prefixes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use proptest::prelude::*;
use tfvalue::{Dynamic, Number, ObjectType, Refinements, Type, Value};

// ---------------------------------------------------------------------------------------
// MessagePack built by hand

fn fixstr(s: &str) -> Vec<u8> {
    assert!(s.len() < 32);
    let mut out = vec![0xa0 | s.len() as u8];
    out.extend_from_slice(s.as_bytes());
    out
}

/// `[type JSON as bin, value]`.
fn dyn_mp(ty_json: &str, value: &[u8]) -> Vec<u8> {
    let mut out = vec![0x92, 0xc4, ty_json.len() as u8];
    out.extend_from_slice(ty_json.as_bytes());
    out.extend_from_slice(value);
    out
}

fn arr(elems: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![0x90 | elems.len() as u8];
    for e in elems {
        out.extend_from_slice(e);
    }
    out
}

fn map(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![0x80 | entries.len() as u8];
    for (k, v) in entries {
        out.extend_from_slice(&fixstr(k));
        out.extend_from_slice(v);
    }
    out
}

fn ty(json: &str) -> Type {
    Type::from_json(json.as_bytes()).unwrap()
}

fn dynamic(t: Type, v: Value) -> Value {
    Dynamic::new(t, v).into_value()
}

fn inconsistent(e: &tfvalue::Error) -> bool {
    e.to_string().contains("inconsistent element types")
}

// ---------------------------------------------------------------------------------------
// 1. Bytes that crash Terraform: mixed concrete types below `dynamic`

#[test]
fn map_of_lists_of_dynamic_with_mixed_element_types_is_rejected() {
    let t = ty(r#"["map",["list","dynamic"]]"#);
    let bytes = map(&[
        ("a", arr(&[dyn_mp("\"string\"", &fixstr("x"))])),
        ("b", arr(&[dyn_mp("\"number\"", &[0x01])])),
    ]);
    let err = Value::from_msgpack(&bytes, &t).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert!(
        err.to_string()
            .contains(r#"element ["b"] has type list(number)"#),
        "{err}"
    );

    let json = br#"{"a":[{"value":"x","type":"string"}],"b":[{"value":1,"type":"number"}]}"#;
    let err = Value::from_json(json, &t).unwrap_err();
    assert!(inconsistent(&err), "{err}");

    let v = Value::Map(
        [
            (
                "a".to_string(),
                Value::List(vec![dynamic(Type::String, "x".into())]),
            ),
            (
                "b".to_string(),
                Value::List(vec![dynamic(Type::Number, Value::Number(1.into()))]),
            ),
        ]
        .into_iter()
        .collect(),
    );
    assert!(inconsistent(&v.to_msgpack(&t).unwrap_err()));
    assert!(inconsistent(&v.to_json(&t).unwrap_err()));
    assert!(inconsistent(&v.conforms_to(&t).unwrap_err()));
}

#[test]
fn list_of_objects_with_a_dynamic_attribute_of_two_types_is_rejected() {
    let t = ty(r#"["list",["object",{"a":"dynamic"}]]"#);
    let bytes = arr(&[
        map(&[("a", dyn_mp("\"string\"", &fixstr("x")))]),
        map(&[("a", dyn_mp("\"bool\"", &[0xc3]))]),
    ]);
    let err = Value::from_msgpack(&bytes, &t).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert!(
        err.to_string()
            .contains("element [1] has type object({a=bool})"),
        "{err}"
    );
    let json = br#"[{"a":{"value":"x","type":"string"}},{"a":{"value":true,"type":"bool"}}]"#;
    assert!(inconsistent(&Value::from_json(json, &t).unwrap_err()));

    let obj = |v: Value| Value::Object([("a".to_string(), v)].into_iter().collect());
    let v = Value::List(vec![
        obj(dynamic(Type::String, "x".into())),
        obj(dynamic(Type::Bool, true.into())),
    ]);
    assert!(inconsistent(&v.to_msgpack(&t).unwrap_err()));
    assert!(inconsistent(&v.to_json(&t).unwrap_err()));
}

#[test]
fn set_of_tuples_of_dynamic_with_mixed_types_is_rejected() {
    let t = ty(r#"["set",["tuple",["dynamic"]]]"#);
    let bytes = arr(&[
        arr(&[dyn_mp("\"string\"", &fixstr("x"))]),
        arr(&[dyn_mp("\"number\"", &[0x05])]),
    ]);
    assert!(inconsistent(&Value::from_msgpack(&bytes, &t).unwrap_err()));
    let json = br#"[[{"value":"x","type":"string"}],[{"value":5,"type":"number"}]]"#;
    assert!(inconsistent(&Value::from_json(json, &t).unwrap_err()));
    let v = Value::Set(vec![
        Value::Tuple(vec![dynamic(Type::String, "x".into())]),
        Value::Tuple(vec![dynamic(Type::Number, Value::Number(5.into()))]),
    ]);
    assert!(inconsistent(&v.to_msgpack(&t).unwrap_err()));
    assert!(inconsistent(&v.to_json(&t).unwrap_err()));
}

#[test]
fn mixed_types_inside_a_dynamic_value_are_rejected() {
    // The type of the dynamic value itself has the collection: list(list(dynamic)).
    let inner = arr(&[
        arr(&[dyn_mp("\"string\"", &fixstr("x"))]),
        arr(&[dyn_mp("\"number\"", &[0x05])]),
    ]);
    let bytes = dyn_mp(r#"["list",["list","dynamic"]]"#, &inner);
    let err = Value::from_msgpack(&bytes, &Type::Dynamic).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    let err = tfvalue::msgpack::from_slice::<Dynamic>(&bytes).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    let json = br#"{"value":[[{"value":"x","type":"string"}],[{"value":5,"type":"number"}]],"type":["list",["list","dynamic"]]}"#;
    assert!(inconsistent(
        &Value::from_json(json, &Type::Dynamic).unwrap_err()
    ));
    // Built by hand and encoded.
    let d = Dynamic::new(
        ty(r#"["list",["list","dynamic"]]"#),
        Value::List(vec![
            Value::List(vec![dynamic(Type::String, "x".into())]),
            Value::List(vec![dynamic(Type::Number, Value::Number(5.into()))]),
        ]),
    );
    assert!(inconsistent(&tfvalue::msgpack::to_vec(&d).unwrap_err()));
}

#[test]
fn schema_validation_reports_mixed_types_below_dynamic() {
    use tfvalue::schema::{Attribute, Block};
    let block = Block::new().attribute(
        "rules",
        Attribute::optional(ty(r#"["list",["object",{"a":"dynamic"}]]"#)),
    );
    let obj = |v: Value| Value::Object([("a".to_string(), v)].into_iter().collect());
    let config = Value::Object(
        [(
            "rules".to_string(),
            Value::List(vec![
                obj(dynamic(Type::String, "x".into())),
                obj(dynamic(Type::Bool, true.into())),
            ]),
        )]
        .into_iter()
        .collect(),
    );
    let diags = block.validate(&config);
    assert!(
        diags
            .iter()
            .any(|d| d.to_string().contains("inconsistent element types")),
        "{diags:?}"
    );
}

/// The decided case: an empty inner collection (or a null or unknown one) beside typed
/// siblings takes their type, as the cty value go-cty writes those bytes for.
#[test]
fn an_empty_inner_collection_beside_a_typed_one_takes_its_type() {
    let t = ty(r#"["map",["list","dynamic"]]"#);
    let bytes = map(&[
        ("a", arr(&[dyn_mp("\"string\"", &fixstr("x"))])),
        ("b", arr(&[])),
        ("c", vec![0xc0]),
        ("d", vec![0xd4, 0x00, 0x00]),
    ]);
    let v = Value::from_msgpack(&bytes, &t).unwrap();
    assert_eq!(v["b"], Value::List(vec![]));
    assert!(v["c"].is_null());
    assert!(v["d"].is_unknown());
    assert_eq!(v.to_msgpack(&t).unwrap(), bytes);
    let json = v.to_json(&Type::map(Type::list(Type::Dynamic)));
    // unknowns cannot be written to JSON; without "d" it can
    assert!(json.is_err());
    let mut m = v.as_map().unwrap().clone();
    m.remove("d");
    let v = Value::Map(m);
    let text = v.to_json(&t).unwrap();
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&text).unwrap(),
        serde_json::json!({"a": [{"value": "x", "type": "string"}], "b": [], "c": null})
    );
    assert_eq!(Value::from_json(&text, &t).unwrap(), v);
}

/// A null in a `dynamic` position takes the type its siblings share, at any depth, and is
/// written `[type, nil]` as go-cty writes a null of a concrete type there.
#[test]
fn a_null_in_a_nested_dynamic_position_takes_the_common_type() {
    let t = ty(r#"["list",["object",{"a":"dynamic"}]]"#);
    let obj = |v: Value| Value::Object([("a".to_string(), v)].into_iter().collect());
    let by_hand = Value::List(vec![
        obj(dynamic(Type::String, "x".into())),
        obj(Value::Null),
    ]);
    let go_cty = arr(&[
        map(&[("a", dyn_mp("\"string\"", &fixstr("x")))]),
        map(&[("a", dyn_mp("\"string\"", &[0xc0]))]),
    ]);
    assert_eq!(by_hand.to_msgpack(&t).unwrap(), go_cty);
    let back = Value::from_msgpack(&go_cty, &t).unwrap();
    assert_eq!(
        back[1]["a"].as_dynamic().map(Dynamic::ty),
        Some(&Type::String)
    );
    // and c0 in the input reads as the same value
    let plain = arr(&[
        map(&[("a", dyn_mp("\"string\"", &fixstr("x")))]),
        map(&[("a", vec![0xc0])]),
    ]);
    assert_eq!(Value::from_msgpack(&plain, &t).unwrap(), back);
}

// The property: nested `dynamic` collections whose elements get different concrete types
// are an error every time, on both sides of both formats; with one type they are fine.

/// An element type with at least one `dynamic` in it.
fn arb_elem_type() -> impl Strategy<Value = Type> {
    Just(Type::Dynamic).prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(Type::list),
            inner.clone().prop_map(Type::set),
            inner.clone().prop_map(Type::map),
            inner.clone().prop_map(|t| Type::Object(ObjectType::new([
                ("d".to_string(), t),
                ("s".to_string(), Type::String)
            ]))),
            inner.prop_map(|t| Type::tuple(vec![Type::Number, t])),
        ]
    })
}

/// The concrete types a `dynamic` position can be given, with a value of each.
fn kind(i: usize) -> (Type, Value) {
    match i {
        0 => (Type::String, "x".into()),
        1 => (Type::Number, Value::Number(Number::from(1))),
        2 => (Type::Bool, true.into()),
        _ => (Type::list(Type::String), Value::List(vec!["x".into()])),
    }
}

/// A value of `t` with every position filled (one element in every collection), and every
/// `dynamic` position holding the value of kind `k`.
fn populate(t: &Type, k: usize) -> Value {
    match t {
        Type::Dynamic => {
            let (kt, kv) = kind(k);
            dynamic(kt, kv)
        }
        Type::List(e) => Value::List(vec![populate(e, k)]),
        Type::Set(e) => Value::Set(vec![populate(e, k)]),
        Type::Map(e) => Value::Map([("k".to_string(), populate(e, k))].into_iter().collect()),
        Type::Object(o) => Value::Object(
            o.attributes()
                .iter()
                .map(|(n, t)| (n.clone(), populate(t, k)))
                .collect(),
        ),
        Type::Tuple(ts) => Value::Tuple(ts.iter().map(|t| populate(t, k)).collect()),
        Type::String => "s".into(),
        Type::Number => Value::Number(Number::from(7)),
        Type::Bool => false.into(),
        other => panic!("no value for {other}"),
    }
}

#[derive(Clone, Copy, Debug)]
enum Outer {
    List,
    Set,
    Map,
}

/// How the collection sits in the whole value: as it is, or inside an object attribute,
/// a tuple, or a one-element list.
#[derive(Clone, Copy, Debug)]
enum Wrap {
    None,
    Object,
    Tuple,
    List,
}

fn collection_type(outer: Outer, e: &Type) -> Type {
    match outer {
        Outer::List => Type::list(e.clone()),
        Outer::Set => Type::set(e.clone()),
        Outer::Map => Type::map(e.clone()),
    }
}

fn wrap_type(w: Wrap, t: Type) -> Type {
    match w {
        Wrap::None => t,
        Wrap::Object => Type::Object(ObjectType::new([("w".to_string(), t)])),
        Wrap::Tuple => Type::tuple(vec![t]),
        Wrap::List => Type::list(t),
    }
}

fn wrap_value(w: Wrap, v: Value) -> Value {
    match w {
        Wrap::None => v,
        Wrap::Object => Value::Object([("w".to_string(), v)].into_iter().collect()),
        Wrap::Tuple => Value::Tuple(vec![v]),
        Wrap::List => Value::List(vec![v]),
    }
}

/// The bytes of two elements put together, each encoded on its own (each is valid alone).
fn wire_msgpack(outer: Outer, w: Wrap, e: &Type, a: &Value, b: &Value) -> Vec<u8> {
    let (ea, eb) = (a.to_msgpack(e).unwrap(), b.to_msgpack(e).unwrap());
    let inner = match outer {
        Outer::List | Outer::Set => arr(&[ea, eb]),
        Outer::Map => map(&[("a", ea), ("b", eb)]),
    };
    match w {
        Wrap::None => inner,
        Wrap::Object => map(&[("w", inner)]),
        Wrap::Tuple | Wrap::List => arr(&[inner]),
    }
}

fn wire_json(outer: Outer, w: Wrap, e: &Type, a: &Value, b: &Value) -> Vec<u8> {
    let ja = String::from_utf8(a.to_json(e).unwrap()).unwrap();
    let jb = String::from_utf8(b.to_json(e).unwrap()).unwrap();
    let inner = match outer {
        Outer::List | Outer::Set => format!("[{ja},{jb}]"),
        Outer::Map => format!(r#"{{"a":{ja},"b":{jb}}}"#),
    };
    match w {
        Wrap::None => inner,
        Wrap::Object => format!(r#"{{"w":{inner}}}"#),
        Wrap::Tuple | Wrap::List => format!("[{inner}]"),
    }
    .into_bytes()
}

fn arb_outer() -> impl Strategy<Value = Outer> {
    prop_oneof![Just(Outer::List), Just(Outer::Set), Just(Outer::Map)]
}

fn arb_wrap() -> impl Strategy<Value = Wrap> {
    prop_oneof![
        Just(Wrap::None),
        Just(Wrap::Object),
        Just(Wrap::Tuple),
        Just(Wrap::List)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mixed_types_below_dynamic_are_always_an_error(
        e in arb_elem_type(),
        outer in arb_outer(),
        w in arb_wrap(),
        (ka, kb) in (0..4usize, 0..4usize).prop_filter("two kinds", |(a, b)| a != b),
    ) {
        let t = wrap_type(w, collection_type(outer, &e));
        let (a, b) = (populate(&e, ka), populate(&e, kb));

        let elems = match outer {
            Outer::List => Value::List(vec![a.clone(), b.clone()]),
            Outer::Set => Value::Set(vec![a.clone(), b.clone()]),
            Outer::Map => Value::Map([("a".to_string(), a.clone()), ("b".to_string(), b.clone())].into_iter().collect()),
        };
        let v = wrap_value(w, elems);
        prop_assert!(v.to_msgpack(&t).is_err(), "msgpack encode of {v:?} as {t}");
        prop_assert!(v.to_json(&t).is_err(), "json encode of {v:?} as {t}");

        let mp = wire_msgpack(outer, w, &e, &a, &b);
        let err = Value::from_msgpack(&mp, &t);
        prop_assert!(err.is_err(), "msgpack decode as {t}: {err:?}");
        prop_assert!(inconsistent(&err.unwrap_err()));
        let js = wire_json(outer, w, &e, &a, &b);
        let err = Value::from_json(&js, &t);
        prop_assert!(err.is_err(), "json decode of {} as {t}: {err:?}", String::from_utf8_lossy(&js));
        prop_assert!(inconsistent(&err.unwrap_err()));

        // Inside a dynamic value too.
        let d = Dynamic::new(t.clone(), v);
        prop_assert!(tfvalue::msgpack::to_vec(&d).is_err());

        // With one kind on both sides, the same shapes are fine and round-trip.
        let b2 = populate(&e, ka);
        let mp = wire_msgpack(outer, w, &e, &a, &b2);
        let back = Value::from_msgpack(&mp, &t).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let again = back.to_msgpack(&t).unwrap();
        prop_assert_eq!(Value::from_msgpack(&again, &t).unwrap(), back);
        let js = wire_json(outer, w, &e, &a, &b2);
        prop_assert!(Value::from_json(&js, &t).is_ok());
    }
}

// ---------------------------------------------------------------------------------------
// 2. JSON of float64s

#[test]
fn a_float64_off_the_wire_is_written_to_json_as_its_shortest_text() {
    let v = Value::from_msgpack(b"\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a", &Type::Number).unwrap();
    assert_eq!(v.to_json(&Type::Number).unwrap(), b"0.1");
    // MessagePack keeps the float64.
    assert_eq!(
        v.to_msgpack(&Type::Number).unwrap(),
        b"\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a"
    );
    // Plain notation, never an exponent.
    for (f, text) in [
        (1e-7, "0.0000001"),
        (-2.5e-5, "-0.000025"),
        (1e21, "1000000000000000000000"),
        (123456.789, "123456.789"),
        (f64::MAX, &format!("{}", f64::MAX)),
    ] {
        let n = Number::from_f64(f).unwrap();
        assert_eq!(tfvalue::json::to_vec(&n).unwrap(), text.as_bytes(), "{f}");
        assert_eq!(tfvalue::json::to_vec(&f).unwrap(), text.as_bytes(), "{f}");
        let v = Value::Number(n);
        assert_eq!(v.to_json(&Type::Number).unwrap(), text.as_bytes(), "{f}");
    }
    // Inside a dynamic value and a refined-to-one-value unknown alike.
    let d = Value::from_msgpack(
        &dyn_mp("\"number\"", b"\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a"),
        &Type::Dynamic,
    )
    .unwrap();
    let text = d.to_json(&Type::Dynamic).unwrap();
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&text).unwrap(),
        serde_json::json!({"value": 0.1, "type": "number"})
    );
    assert!(std::str::from_utf8(&text).unwrap().contains(":0.1"));
    let pinned = Value::Unknown(
        Refinements::new()
            .with_lower_bound(Number::from_f64(0.1).unwrap(), true)
            .with_upper_bound(Number::from_f64(0.1).unwrap(), true),
    );
    if let Ok(text) = pinned.to_json(&Type::Number) {
        assert_eq!(text, b"0.1");
    }
    // Numbers read from text keep their digits.
    let v = Value::from_json(
        b"0.1000000000000000055511151231257827021181583404541015625",
        &Type::Number,
    )
    .unwrap();
    assert_eq!(
        v.to_json(&Type::Number).unwrap(),
        b"0.1000000000000000055511151231257827021181583404541015625"
    );
    let v = Value::from_json(b"0.1", &Type::Number).unwrap();
    assert_eq!(v.to_json(&Type::Number).unwrap(), b"0.1");
    assert_eq!(v.to_msgpack(&Type::Number).unwrap(), b"\xa30.1");
}

// ---------------------------------------------------------------------------------------
// 3. Non-string keys

#[test]
fn non_string_keys_are_rejected_in_maps_objects_and_structs() {
    let bool_obj = Type::Object(ObjectType::new([(String::new(), Type::Bool)]));
    for (bytes, t) in [
        (&b"\x81\x00\xc3"[..], &bool_obj),
        (b"\x81\xc0\xc3", &bool_obj),
        (b"\x81\x01\xa11", &Type::map(Type::String)),
        (b"\x81\xc0\xa11", &Type::map(Type::String)),
        (b"\x81\xd0\xff\xa11", &Type::map(Type::String)),
        (b"\x81\xcd\x01\x00\xa11", &Type::map(Type::String)),
        (b"\x81\xc3\xa11", &Type::map(Type::String)),
    ] {
        let err = Value::from_msgpack(bytes, t).unwrap_err();
        assert!(err.to_string().contains("keys must be strings"), "{err}");
    }
    let err = tfvalue::msgpack::from_slice::<std::collections::BTreeMap<String, String>>(
        b"\x81\x01\xa11",
    )
    .unwrap_err();
    assert!(err.to_string().contains("keys must be strings"), "{err}");
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct S {
        #[serde(rename = "")]
        x: bool,
    }
    assert!(tfvalue::msgpack::from_slice::<S>(b"\x81\xc0\xc3").is_err());
    // A bin key that is UTF-8 is still a string, as the protocol allows.
    let v = Value::from_msgpack(b"\x81\xc4\x01a\xa11", &Type::map(Type::String)).unwrap();
    assert_eq!(v["a"], "1");
}

// ---------------------------------------------------------------------------------------
// 4. Long refinement prefixes, cut as go-cty's SafeKnownPrefix cuts them

fn written_prefix(prefix: &str) -> String {
    let v = Value::Unknown(Refinements::new().with_prefix(prefix));
    let bytes = v.to_msgpack(&Type::String).unwrap();
    match Value::from_msgpack(&bytes, &Type::String).unwrap() {
        Value::Unknown(r) => r.prefix().unwrap_or("").to_owned(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hangul_vowel_or_final_jamo_at_the_cut_takes_the_starter_before_it() {
    // 251 'a', then 'b', then U+1161 (a medial vowel that does not compose with 'b') ends
    // exactly at byte 255; the rest makes the prefix longer than 256 bytes.
    for jamo in ['\u{1161}', '\u{1175}', '\u{11A8}', '\u{11C2}'] {
        let p = format!("{}b{jamo}{}", "a".repeat(251), "z".repeat(20));
        assert_eq!(written_prefix(&p), "a".repeat(251), "{jamo:?}");
    }
    // The jamo that compose with nothing are inert to Terraform's normalizer (a third
    // differential run, go-cty v1.19.0): the grapheme scan decides, and the jamo is a
    // cluster of its own after `b`.
    for jamo in ['\u{1160}', '\u{1176}', '\u{11A7}', '\u{11C3}', '\u{11FF}'] {
        let p = format!("{}b{jamo}{}", "a".repeat(251), "z".repeat(20));
        assert_eq!(
            written_prefix(&p),
            format!("{}b", "a".repeat(251)),
            "{jamo:?}"
        );
    }
    // Two jamo in a row: both go, and the starter before them.
    let p = format!("{}b\u{1161}\u{11A8}{}", "a".repeat(248), "z".repeat(20));
    assert_eq!(written_prefix(&p), "a".repeat(248));
    // A Hangul syllable (a starter) at the cut is one grapheme: only it goes.
    let p = format!("{}b\u{AC00}{}", "a".repeat(251), "z".repeat(20));
    assert_eq!(written_prefix(&p), format!("{}b", "a".repeat(251)));
}

#[test]
fn a_lone_line_break_ends_the_prefix() {
    // Where the cut ends in a character that nothing can combine with (a digit), the
    // grapheme scan decides, and it stops at a lone CR or LF.
    for brk in ["\n", "\r"] {
        // near the end
        let p = format!("{}{brk}123{}", "1".repeat(240), "9".repeat(40));
        assert_eq!(written_prefix(&p), "1".repeat(240), "{brk:?}");
        // further in
        let p = format!("{}{brk}{}", "1".repeat(30), "2".repeat(300));
        assert_eq!(written_prefix(&p), "1".repeat(30), "{brk:?}");
        // as the last character of the cut
        let p = format!("{}{brk}{}", "1".repeat(254), "9".repeat(40));
        assert_eq!(written_prefix(&p), "1".repeat(254), "{brk:?}");
    }
    // Where it ends in one that could still combine (a Latin letter), the NFC step cuts
    // before that letter and the scan never runs.
    let p = format!("{}\n{}", "a".repeat(100), "b".repeat(200));
    assert_eq!(
        written_prefix(&p),
        format!("{}\n{}", "a".repeat(100), "b".repeat(153))
    );
    let p = format!("{}\r\n{}", "1".repeat(100), "2".repeat(200));
    assert_eq!(
        written_prefix(&p),
        format!("{}\r\n{}", "1".repeat(100), "2".repeat(152))
    );
    // CR LF is one grapheme cluster: the scan goes on past it, and drops the last cluster.
    let p = format!("{}\r\n{}", "a".repeat(100), "b".repeat(200));
    assert_eq!(
        written_prefix(&p),
        format!("{}\r\n{}", "a".repeat(100), "b".repeat(152))
    );
    // Short prefixes are written as they are.
    assert_eq!(written_prefix("a\nb"), "a\nb");
}

// Typed structs: the MessagePack serializer follows where it is, since a struct has no
// type at hand; what it writes is what goes to Terraform.

#[derive(serde::Serialize)]
struct Rule {
    name: String,
    value: Dynamic,
    other: Option<Dynamic>,
}

fn rule(value: Dynamic, other: Option<Dynamic>) -> Rule {
    Rule {
        name: "r".into(),
        value,
        other,
    }
}

#[test]
fn typed_collections_with_mixed_dynamic_types_are_not_written() {
    let s = || Dynamic::new(Type::String, "x".into());
    let n = || Dynamic::new(Type::Number, Value::Number(1.into()));
    let err = tfvalue::msgpack::to_vec(&vec![s(), n()]).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), "[1]");

    let err = tfvalue::msgpack::to_vec(&vec![rule(s(), None), rule(n(), None)]).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), "[1].value");

    let m: std::collections::BTreeMap<String, Vec<Dynamic>> =
        [("a".to_string(), vec![s()]), ("b".to_string(), vec![n()])]
            .into_iter()
            .collect();
    let err = tfvalue::msgpack::to_vec(&m).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), r#"["b"][0]"#);

    #[derive(serde::Serialize)]
    struct Model {
        rules: Vec<Rule>,
    }
    let err = tfvalue::msgpack::to_vec(&Model {
        rules: vec![rule(s(), Some(n())), rule(s(), Some(s()))],
    })
    .unwrap_err();
    assert_eq!(err.path().to_string(), "rules[1].other");

    // Structs inside structs, declared out of order (written sorted), a struct written
    // before the list and fields after it: the path is where the value is, at any depth.
    #[derive(serde::Serialize)]
    struct Inner {
        z: u8,
        rules: Vec<Rule>,
        a: u8,
    }
    #[derive(serde::Serialize)]
    struct Outer {
        zz: Inner,
        before: Rule,
        blocks: Vec<Inner>,
        after: u8,
    }
    let inner = |rules| Inner { z: 1, rules, a: 2 };
    let err = tfvalue::msgpack::to_vec(&Outer {
        zz: inner(vec![rule(s(), None)]),
        before: rule(n(), Some(s())),
        blocks: vec![
            inner(vec![rule(s(), None), rule(s(), Some(n()))]),
            inner(vec![rule(s(), None), rule(n(), None)]),
        ],
        after: 3,
    })
    .unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), "blocks[1].rules[1].value");
    let err = tfvalue::msgpack::to_vec(&Outer {
        zz: inner(vec![]),
        before: rule(n(), Some(s())),
        blocks: vec![
            inner(vec![rule(s(), Some(n()))]),
            inner(vec![rule(s(), Some(s()))]),
        ],
        after: 3,
    })
    .unwrap_err();
    assert_eq!(err.path().to_string(), "blocks[1].rules[0].other");
    // The same values that agree: written, and read back in Terraform's order.
    let bytes = tfvalue::msgpack::to_vec(&Outer {
        zz: inner(vec![rule(s(), None)]),
        before: rule(n(), Some(s())),
        blocks: vec![inner(vec![rule(s(), Some(n()))]), inner(vec![])],
        after: 3,
    })
    .unwrap();
    let rule_ty = r#"["object",{"name":"string","value":"dynamic","other":"dynamic"}]"#;
    let inner_ty =
        format!(r#"["object",{{"a":"number","rules":["list",{rule_ty}],"z":"number"}}]"#);
    let t = ty(&format!(
        r#"["object",{{"after":"number","before":{rule_ty},"blocks":["list",{inner_ty}],"zz":{inner_ty}}}]"#
    ));
    let v = Value::from_msgpack(&bytes, &t).unwrap();
    assert_eq!(v.to_msgpack(&t).unwrap(), bytes);
}

#[test]
fn typed_values_that_agree_are_written_as_before() {
    let s = || Dynamic::new(Type::String, "x".into());
    let n = || Dynamic::new(Type::Number, Value::Number(1.into()));
    // Two positions of one element may differ; nulls take no part.
    let rules = vec![
        rule(s(), Some(n())),
        rule(s(), None),
        rule(Dynamic::new(Type::String, Value::Null), Some(n())),
        rule(Dynamic::null(), Some(n())),
    ];
    let bytes = tfvalue::msgpack::to_vec(&rules).unwrap();
    let t = ty(r#"["list",["object",{"name":"string","value":"dynamic","other":"dynamic"}]]"#);
    let v = Value::from_msgpack(&bytes, &t).unwrap();
    assert_eq!(v.as_list().map(<[Value]>::len), Some(4));
    // A struct's fields are positions, not elements: they may hold different types.
    let one = rule(s(), Some(n()));
    assert!(tfvalue::msgpack::to_vec(&one).is_ok());
    // A dynamic value whose own type has a collection is checked as a Value.
    let d = Dynamic::new(
        Type::list(Type::Dynamic),
        Value::List(vec![
            Dynamic::new(Type::String, "a".into()).into_value(),
            Dynamic::new(Type::Number, Value::Number(2.into())).into_value(),
        ]),
    );
    assert!(inconsistent(
        &tfvalue::msgpack::to_vec(&vec![d]).unwrap_err()
    ));
    // An object Value with attributes of different dynamic types is one element.
    let t = ty(r#"["list",["object",{"a":"dynamic","b":"dynamic"}]]"#);
    let v = Value::List(vec![Value::Object(
        [
            ("a".to_string(), s().into_value()),
            ("b".to_string(), n().into_value()),
        ]
        .into_iter()
        .collect(),
    )]);
    assert!(v.to_msgpack(&t).is_ok());
    assert!(tfvalue::msgpack::to_vec(&v).is_ok());
}

#[test]
fn typed_collections_with_mixed_dynamic_types_are_not_read() {
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Item {
        a: Dynamic,
    }
    let mixed = arr(&[
        dyn_mp("\"string\"", &fixstr("x")),
        dyn_mp("\"number\"", &[0x01]),
    ]);
    let err = tfvalue::msgpack::from_slice::<Vec<Dynamic>>(&mixed).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), "[1]");

    let items = arr(&[
        map(&[("a", dyn_mp("\"string\"", &fixstr("x")))]),
        map(&[("a", dyn_mp("\"bool\"", &[0xc3]))]),
    ]);
    let err = tfvalue::msgpack::from_slice::<Vec<Item>>(&items).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), "[1].a");

    let nested = map(&[
        ("a", arr(&[dyn_mp("\"string\"", &fixstr("x"))])),
        ("b", arr(&[dyn_mp("\"number\"", &[0x01])])),
    ]);
    let err =
        tfvalue::msgpack::from_slice::<std::collections::BTreeMap<String, Vec<Dynamic>>>(&nested)
            .unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), r#"["b"][0]"#);

    // What agrees reads as before: nulls, and a struct's fields of different types.
    let ok = arr(&[
        dyn_mp("\"string\"", &fixstr("x")),
        vec![0xc0],
        dyn_mp("\"string\"", &[0xc0]),
    ]);
    assert_eq!(
        tfvalue::msgpack::from_slice::<Vec<Option<Dynamic>>>(&ok)
            .unwrap()
            .len(),
        3
    );
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Two {
        a: Dynamic,
        b: Dynamic,
    }
    let two = map(&[
        ("a", dyn_mp("\"string\"", &fixstr("x"))),
        ("b", dyn_mp("\"number\"", &[0x01])),
    ]);
    assert!(tfvalue::msgpack::from_slice::<Vec<Two>>(&arr(&[two.clone(), two])).is_ok());
    // A tuple's positions are not elements.
    let pair = arr(&[
        dyn_mp("\"string\"", &fixstr("x")),
        dyn_mp("\"number\"", &[0x01]),
    ]);
    assert!(tfvalue::msgpack::from_slice::<(Dynamic, Dynamic)>(&pair).is_ok());
}

#[test]
fn typed_json_with_mixed_dynamic_types_is_neither_read_nor_written() {
    #[derive(serde::Serialize, serde::Deserialize, Debug)]
    struct Item {
        a: Dynamic,
    }
    let s = || Dynamic::new(Type::String, "x".into());
    let n = || Dynamic::new(Type::Number, Value::Number(1.into()));
    let err = tfvalue::json::to_vec(&vec![s(), n()]).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), "[1]");
    let err = tfvalue::json::to_vec(&vec![Item { a: s() }, Item { a: n() }]).unwrap_err();
    assert_eq!(err.path().to_string(), "[1].a");

    let text = br#"[{"value":"x","type":"string"},{"type":"number","value":1}]"#;
    let err = tfvalue::json::from_slice::<Vec<Dynamic>>(text).unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), "[1]");
    let text = br#"{"k":[{"a":{"value":"x","type":"string"}},{"a":{"value":true,"type":"bool"}}]}"#;
    let err = tfvalue::json::from_slice::<std::collections::BTreeMap<String, Vec<Item>>>(text)
        .unwrap_err();
    assert!(inconsistent(&err), "{err}");
    assert_eq!(err.path().to_string(), r#"["k"][1].a"#);

    // What agrees: fine both ways.
    let ok = vec![Item { a: s() }, Item { a: s() }];
    let text = tfvalue::json::to_vec(&ok).unwrap();
    assert_eq!(
        tfvalue::json::from_slice::<Vec<Item>>(&text).unwrap().len(),
        2
    );
    let pair = br#"[{"value":"x","type":"string"},{"type":"number","value":1}]"#;
    assert!(tfvalue::json::from_slice::<(Dynamic, Dynamic)>(pair).is_ok());
}
