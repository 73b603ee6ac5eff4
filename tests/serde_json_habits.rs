//! The lines serde_json users write out of habit, written against tfvalue: this file
//! compiling is half the test; the asserts are the other half.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tfvalue::{value, Dynamic, Number, Refinements, Type, Unknown, Value};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Bucket {
    name: String,
    size: Number,
    tags: BTreeMap<String, String>,
}

#[test]
fn json_verbs() {
    let b: Bucket = tfvalue::json::from_str(r#"{"name":"logs","size":0.1,"tags":{}}"#).unwrap();
    assert_eq!(b.size, "0.1".parse::<Number>().unwrap());
    let text = tfvalue::json::to_string(&b).unwrap();
    assert_eq!(text, r#"{"name":"logs","size":0.1,"tags":{}}"#);
    let pretty = tfvalue::json::to_string_pretty(&b).unwrap();
    assert!(pretty.contains("\n  \"name\": \"logs\""), "{pretty}");
    assert_eq!(tfvalue::json::from_str::<Bucket>(&pretty).unwrap(), b);
    let mut out = Vec::new();
    tfvalue::json::to_writer(&mut out, &b).unwrap();
    assert_eq!(
        tfvalue::json::from_reader::<_, Bucket>(&out[..]).unwrap(),
        b
    );
}

#[test]
fn values_as_serde_json_values() {
    let mut v = value!({ "name": "web", "port": 8080, "ratio": 0.5, "tags": { "env": "prod" } });
    assert_eq!(v["name"], "web");
    assert_eq!(v["port"], 8080);
    assert_eq!(v["port"], 8080u16);
    assert_eq!(8080_i64, v["port"]);
    assert_eq!(v["ratio"], 0.5);
    assert_eq!(v["port"].as_i64(), Some(8080));
    assert_eq!(v["port"].as_u64(), Some(8080));
    assert_eq!(v["ratio"].as_f64(), Some(0.5));
    assert!(v["missing"].is_null());
    v["tags"]["team"] = "web".into();
    v["replicas"] = 3.into();
    if let Some(tags) = v.get_mut("tags").and_then(Value::as_object_mut) {
        tags.remove("env");
    }
    assert_eq!(v["tags"]["team"], "web");
    assert!(v["tags"].get("env").is_none());
    v["ports"] = Value::from(vec![80, 443]);
    v["ports"][1] = 8443.into();
    assert_eq!(v["ports"][1], 8443);
    let list: Value = (1..=3).collect();
    assert_eq!(list[2], 3);
    let obj = Value::from_iter([("a", Value::from(1.5f64)), ("b", Value::from(true))]);
    assert_eq!(obj["b"], true);
    assert_eq!(
        obj.to_string(),
        "{ a = 1.5, b = true }",
        "Display is terraform console's"
    );
    let n = v["port"].as_number().unwrap();
    assert_eq!(u16::try_from(n).unwrap(), 8080);
    assert!(u8::try_from(n).is_err());
    assert_eq!(f64::try_from(n).unwrap(), 8080.0);
}

#[test]
fn types_read_both_ways() {
    let a: Type = r#"["object",{"ports":["list","number"]}]"#.parse().unwrap();
    let b: Type = "object({ports = list(number)})".parse().unwrap();
    assert_eq!(a, b);
    assert_eq!(b.to_string().parse::<Type>().unwrap(), a);
    assert_eq!(
        Type::from_json(r#"["list","number"]"#).unwrap(),
        Type::list(Type::Number)
    );
    let t: Type = serde_json::from_str(r#""string""#).unwrap();
    assert_eq!(t, Type::String);
    assert!("list(".parse::<Type>().is_err());
}

#[test]
fn to_value_and_from_value() {
    let tags: BTreeMap<String, Unknown<String>> = [
        ("env".to_string(), Unknown::Known("prod".to_string())),
        ("id".to_string(), Unknown::unknown()),
    ]
    .into();
    let v = tfvalue::to_value(&tags).unwrap();
    assert!(v["id"].is_unknown());
    let back: BTreeMap<String, Unknown<String>> = tfvalue::from_value(v.clone()).unwrap();
    assert_eq!(back, tags);
    let back: BTreeMap<String, Unknown<String>> = tfvalue::from_value(&v).unwrap();
    assert_eq!(back, tags);
}

#[test]
fn serde_json_itself_never_writes_garbage() {
    // Numbers are exact JSON numbers.
    let decimal: Number = "0.1".parse().unwrap();
    assert_eq!(serde_json::to_string(&decimal).unwrap(), "0.1");
    let big: Number = "123456789012345678901234567890".parse().unwrap();
    assert_eq!(
        serde_json::to_string(&big).unwrap(),
        "123456789012345678901234567890"
    );
    let read: Number = serde_json::from_str("0.1").unwrap();
    assert_eq!(read, decimal);
    assert_eq!(read, tfvalue::json::from_str::<Number>("0.1").unwrap());
    // A dynamic value is {"value", "type"}.
    let d = Dynamic::new(Type::list(Type::String), Value::from(vec!["a"]));
    let json: serde_json::Value = serde_json::to_value(&d).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"value": ["a"], "type": ["list", "string"]})
    );
    let back: Dynamic = serde_json::from_value(json).unwrap();
    assert_eq!(back, d);
    // A Value holding all of these.
    let v = Value::from_iter([
        ("d", Value::from(d.clone())),
        ("n", Value::Number(decimal.clone())),
    ]);
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"{"d":{"value":["a"],"type":["list","string"]},"n":0.1}"#
    );
    // An unknown cannot be JSON: an error that names what to use.
    let u = Value::from_iter([("id", Value::Unknown(Refinements::new()))]);
    let err = serde_json::to_string(&u).unwrap_err().to_string();
    assert!(err.contains("tfvalue::msgpack::to_vec"), "{err}");
    let err = serde_json::to_string(&Unknown::<String>::unknown())
        .unwrap_err()
        .to_string();
    assert!(err.contains("tfvalue::msgpack::to_vec"), "{err}");
    assert_eq!(
        serde_json::to_string(&Unknown::Known("x".to_string())).unwrap(),
        r#""x""#
    );
    assert_eq!(Refinements::new().to_string(), "known after apply");
    // Raw bytes: JSON text is raw JSON under serde_json, MessagePack an error.
    #[derive(Deserialize, Serialize)]
    struct Later<'a> {
        #[serde(borrow)]
        attrs: tfvalue::Raw<'a>,
    }
    let later: Later = tfvalue::json::from_str(r#"{"attrs":{"a":[1,0.1]}}"#).unwrap();
    assert_eq!(
        serde_json::to_string(&later).unwrap(),
        r#"{"attrs":{"a":[1,0.1]}}"#
    );
    let later: Later = tfvalue::msgpack::from_slice(b"\x81\xa5attrs\x91\x01").unwrap();
    let err = serde_json::to_string(&later).unwrap_err().to_string();
    assert!(err.contains("Raw::decode_value"), "{err}");
    // ...and the tool's way to JSON values:
    let ty: Type = "object({ d = any, n = number })".parse().unwrap();
    let j = v.to_json_value(&ty).unwrap();
    assert_eq!(j["n"], serde_json::json!(0.1));
}

/// Issue #21: one rule for a Rust `f64`: the float64 it denotes, in `value!` (literal or
/// variable) and `From` alike; number text is a decimal. Compared with an `f64`, a value
/// is equal when its nearest `f64` is that float, as in serde_json.
#[test]
fn one_number_one_value() {
    let x = 0.1;
    let literal = value!({ "ratio": 0.1 });
    let variable = value!({ "ratio": x });
    let from = Value::from_iter([("ratio", Value::from(0.1))]);
    assert_eq!(literal, variable);
    assert_eq!(literal, from);
    let ty: Type = "object({ ratio = number })".parse().unwrap();
    // the float64: cb 3f b9 99 99 99 99 99 9a on the wire, its short text in JSON
    let float_bytes = b"\x81\xa5ratio\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a";
    assert_eq!(literal.to_msgpack(&ty).unwrap(), float_bytes);
    assert_eq!(literal.to_json(&ty).unwrap(), br#"{"ratio":0.1}"#);
    assert_eq!(literal["ratio"].as_number().unwrap().to_string(), "0.1");
    assert_eq!(
        format!("{:#}", literal["ratio"].as_number().unwrap()),
        "0.1000000000000000055511151231257827021181583404541015625"
    );
    // number text: the decimal 0.1, a string on the wire
    let text = Value::from_json(br#"{"ratio":0.1}"#, &ty).unwrap();
    assert_eq!(text.to_msgpack(&ty).unwrap(), b"\x81\xa5ratio\xa30.1");
    assert_eq!(text.to_json(&ty).unwrap(), br#"{"ratio":0.1}"#);
    assert_ne!(text, literal);
    // both compare equal to the f64, as serde_json::Value does
    assert_eq!(literal["ratio"], 0.1);
    assert_eq!(text["ratio"], 0.1);
    assert_eq!(0.1, text["ratio"]);
    assert_ne!(text["ratio"], 0.2);
    assert_eq!(value!(1), 1.0);
    assert_eq!(Value::from(0.1f32), 0.1f32);
    assert_ne!(Value::from(0.1f32), 0.1);
    // the float64 off the wire is the same value again
    let back = Value::from_msgpack(float_bytes, &ty).unwrap();
    assert_eq!(back, literal);
}

/// `value!` never panics: an unknown, an exact number, a `Dynamic` and nested values go in
/// as themselves (the macro used to go through serde_json and unwrap).
#[test]
fn value_macro_takes_what_json_cannot_hold() {
    let id = Refinements::new().not_null().with_prefix("i-");
    let exact: Number = "123456789012345678901234567890.5".parse().unwrap();
    let d = Dynamic::new(Type::String, Value::from("x"));
    let inner = value!([1, null]);
    let v = value!({
        "id": id.clone(),
        "unknown": Refinements::new(),
        "exact": exact.clone(),
        "dyn": d.clone(),
        "inner": inner,
        "none": Option::<i32>::None,
        "list": vec!["a", "b"],
        "neg": -1,
        "sum": 1 + 2,
        "nested": { "deep": [ { "x": true }, false, "s" ] },
    });
    assert_eq!(v["id"], Value::Unknown(id));
    assert!(v["unknown"].is_unknown());
    assert_eq!(v["exact"], Value::Number(exact));
    assert_eq!(v["dyn"], Value::from(d));
    assert_eq!(v["inner"][0], 1);
    assert!(v["inner"][1].is_null());
    assert!(v["none"].is_null());
    assert_eq!(v["list"][1], "b");
    assert_eq!(v["neg"], -1);
    assert_eq!(v["sum"], 3);
    assert_eq!(v["nested"]["deep"][0]["x"], true);
    assert_eq!(v["nested"]["deep"][2], "s");
    assert_eq!(value!(null), Value::Null);
    assert_eq!(value!([]), Value::List(vec![]));
    assert_eq!(value!({}), Value::Object(tfvalue::Map::new()));
    // keys may be expressions; trailing commas are fine
    let key = "k";
    assert_eq!(
        value!({ key: 1, }),
        Value::from_iter([("k", Value::from(1))])
    );
    assert_eq!(value!([1, 2,]), Value::from(vec![1, 2]));
}
