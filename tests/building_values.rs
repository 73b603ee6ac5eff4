//! Issue #22: building a value of any type by habit: `value!` with Rust collections,
//! or JSON-like syntax given its type's shape with `Value::into_typed`; never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use tfvalue::{value, Dynamic, Number, Refinements, Type, Unknown, Value};

fn ty(s: &str) -> Type {
    s.parse().unwrap()
}

/// Encodes against `ty` and decodes again: what a provider's peer would see.
fn round_trip(v: &Value, ty: &Type) -> Value {
    let bytes = v.to_msgpack(ty).unwrap();
    Value::from_msgpack(&bytes, ty).unwrap()
}

#[test]
fn sets_and_maps_from_rust_collections() {
    let t = ty("object({ ports = set(number), tags = map(string), ids = set(string) })");
    let v = value!({
        "ports": BTreeSet::from([443, 80]),
        "tags": HashMap::from([("env", "prod"), ("team", "web")]),
        "ids": HashSet::from(["b".to_string(), "a".to_string()]),
    });
    assert_eq!(round_trip(&v, &t), v);
    assert_eq!(
        v.to_json(&t).unwrap(),
        br#"{"ids":["a","b"],"ports":[80,443],"tags":{"env":"prod","team":"web"}}"#
    );
    let m: BTreeMap<String, Option<u8>> = [("a".to_string(), Some(1)), ("b".into(), None)].into();
    let v = value!(m);
    assert_eq!(v, round_trip(&v, &ty("map(number)")));
    assert!(v["b"].is_null());
}

#[test]
fn json_like_syntax_given_its_shape() {
    let t = ty("object({ name = string, ports = set(number), tags = map(string), \
                pair = tuple([string, number]), rules = list(object({ port = number, cidrs = set(string) })) })");
    let v = value!({
        "name": "web",
        "ports": [443, 80, 443],
        "tags": { "env": "prod" },
        "pair": ["a", 1],
        "rules": [ { "port": 22, "cidrs": ["10.0.0.0/8", "10.0.0.0/8"] } ],
    });
    // As built, it is lists and objects, which do not conform; the error says what to do.
    let err = v.to_msgpack(&t).unwrap_err().to_string();
    assert!(err.contains("Value::into_typed"), "{err}");
    let typed = v.into_typed(&t).unwrap();
    assert_eq!(typed["ports"], Value::Set(vec![80.into(), 443.into()]));
    assert!(typed["tags"].as_map().is_some());
    assert!(typed["pair"].as_tuple().is_some());
    assert_eq!(typed["rules"][0]["cidrs"].as_set().unwrap().len(), 1);
    // It encodes, and what it encodes to decodes back to it.
    assert_eq!(round_trip(&typed, &t), typed);
    // A value that already has the shape is unchanged.
    assert_eq!(typed.clone().into_typed(&t).unwrap(), typed);
}

#[test]
fn tuples_unknowns_and_numbers() {
    let t = ty("tuple([string, number, bool])");
    let v = value!(("a", 1.5, true));
    assert_eq!(v, round_trip(&v, &t));
    // unknowns stay unknown, refined ones keep their refinements
    let t = ty("object({ id = string, size = number, tags = set(string) })");
    let id = Refinements::new().not_null().with_prefix("i-");
    let v = value!({ "id": id.clone(), "size": Unknown::<u64>::unknown(), "tags": ["x"] })
        .into_typed(&t)
        .unwrap();
    assert_eq!(v["id"], Value::Unknown(id));
    assert!(v["size"].is_unknown());
    assert_eq!(round_trip(&v, &t), v);
    // exact numbers and float64s keep what they are
    let exact: Number = "0.1".parse().unwrap();
    let v = value!({ "id": "x", "size": exact.clone(), "tags": [] })
        .into_typed(&t)
        .unwrap();
    assert_eq!(v["size"], Value::Number(exact));
    assert_eq!(round_trip(&v, &t), v);
}

#[test]
fn what_does_not_fit_is_an_error_with_its_path() {
    let t = ty("object({ ports = set(number), meta = map(object({ a = string })) })");
    let cases = [
        (
            value!({ "ports": ["x"], "meta": {} }),
            "value of kind string does not conform to type number at ports[0]",
        ),
        (
            value!({ "ports": [], "meta": { "k": { "a": 1 } } }),
            "value of kind number does not conform to type string at meta[\"k\"].a",
        ),
        (
            value!({ "ports": [], "meta": {}, "extra": 1 }),
            "attribute \"extra\" is not declared by the object type at extra",
        ),
        (value!({ "ports": [] }), "missing attribute `meta`"),
        (value!([1]), "value of kind list does not conform to type"),
    ];
    for (v, want) in cases {
        let err = v.into_typed(&t).unwrap_err().to_string();
        assert!(err.starts_with(want), "{err}");
    }
    // a tuple of another length
    let err = value!([1, 2])
        .into_typed(&ty("tuple([number])"))
        .unwrap_err();
    assert!(err.to_string().contains("does not conform"), "{err}");
    // a value in a dynamic position needs its own type (or one that can be inferred)
    let d = Dynamic::new(Type::Number, 1.into());
    let v = value!({ "d": d })
        .into_typed(&ty("object({ d = dynamic })"))
        .unwrap();
    assert_eq!(v, round_trip(&v, &ty("object({ d = dynamic })")));
}

#[test]
fn deep_values_are_refused_not_overflowed() {
    let mut v = Value::List(vec![]);
    let mut t = Type::Number;
    for _ in 0..1_000 {
        v = Value::List(vec![v]);
        t = Type::set(t);
    }
    let err = v.into_typed(&t).unwrap_err();
    assert!(err.to_string().contains("deeper than"), "{err}");
}
