//! Issue #22: reading a `Value` from text, `Dynamic` inferring its type, and one
//! vocabulary for numbers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use tfvalue::{value, Dynamic, Number, Refinements, Type, Value};

fn ty(s: &str) -> Type {
    s.parse().unwrap()
}

#[test]
fn from_json_takes_text_or_bytes() {
    let t = ty("object({ name = string, size = number })");
    let text = r#"{"name":"web","size":2}"#;
    let want = Value::from_iter([("name", Value::from("web")), ("size", Value::from(2))]);
    assert_eq!(Value::from_json(text, &t).unwrap(), want);
    let owned: String = text.into();
    assert_eq!(Value::from_json(&owned, &t).unwrap(), want);
    assert_eq!(Value::from_json(owned, &t).unwrap(), want);
    assert_eq!(Value::from_json(text.as_bytes(), &t).unwrap(), want);
    let bytes = text.as_bytes().to_vec();
    assert_eq!(Value::from_json(&bytes, &t).unwrap(), want);
    assert_eq!(
        Value::from_json(br#"{"name":"web","size":2}"#, &t).unwrap(),
        want
    );
}

#[test]
fn dynamic_infers_the_type_a_value_implies() {
    let cases = [
        (value!(true), "bool"),
        (value!(1.5), "number"),
        (value!("x"), "string"),
        (value!([1, null, 3]), "list(number)"),
        (value!([[1], []]), "list(list(number))"),
        (
            value!({ "name": "web", "ports": [80], "meta": { "a": true } }),
            "object({meta=object({a=bool}),name=string,ports=list(number)})",
        ),
        (value!(("a", 1)), "tuple([string,number])"),
        (
            value!({ "set": std::collections::BTreeSet::from(["a"]) }),
            "object({set=set(string)})",
        ),
        (
            value!({ "map": std::collections::BTreeMap::from([("k", 1)]) }),
            "object({map=map(number)})",
        ),
        // an unknown refined as a string is a string
        (
            value!([Refinements::new().with_prefix("i-"), "i-1"]),
            "list(string)",
        ),
        // a nested Dynamic brings its own type
        (
            value!({ "d": Dynamic::new(Type::set(Type::Number), Value::Set(vec![1.into()])) }),
            "object({d=set(number)})",
        ),
    ];
    for (v, want) in cases {
        let d = Dynamic::infer(v.clone()).unwrap_or_else(|e| panic!("{v:?}: {e}"));
        assert_eq!(d.ty().to_string(), want, "{v:?}");
        d.validate().unwrap();
        // it encodes and decodes back as a dynamic value
        let wrapped = d.clone().into_value();
        let back =
            Value::from_msgpack(&wrapped.to_msgpack(&Type::Dynamic).unwrap(), &Type::Dynamic)
                .unwrap();
        assert_eq!(back, wrapped, "{want}");
        assert_eq!(Dynamic::try_from(v).unwrap(), d);
    }
    // the dynamic type itself: a null, an unrefined unknown
    assert_eq!(Dynamic::infer(Value::Null).unwrap(), Dynamic::null());
    let u = Dynamic::infer(Value::Unknown(Refinements::new())).unwrap();
    assert_eq!(u.ty(), &Type::Dynamic);
}

#[test]
fn dynamic_says_where_it_cannot_infer() {
    let cases = [
        (value!([]), "list(any)"),
        (value!({ "a": null }), "object({a=any})"),
        (value!([null]), "list(any)"),
        (value!({ "tags": [] }), "object({tags=list(any)})"),
    ];
    for (v, open) in cases {
        let err = Dynamic::infer(v).unwrap_err().to_string();
        assert!(err.contains(open) && err.contains("Dynamic::new"), "{err}");
    }
    let err = Dynamic::infer(value!({ "l": [1, "a"] }))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "cannot infer one element type: this element has type string, the ones before it \
         number (a tuple, Value::Tuple, holds elements of different types) at l[1]"
    );
    // an unknown known only not to be null says nothing of its type
    assert!(Dynamic::infer(Value::Unknown(Refinements::new().not_null())).is_err());
    // nesting is bounded
    let mut deep = value!(1);
    for _ in 0..1_000 {
        deep = Value::List(vec![deep]);
    }
    assert!(Dynamic::infer(deep)
        .unwrap_err()
        .to_string()
        .contains("deeper"));
}

#[test]
fn into_typed_infers_dynamic_positions() {
    let t = ty("object({ name = string, extra = dynamic })");
    let v = value!({ "name": "web", "extra": { "replicas": 3, "zones": ["a", "b"] } })
        .into_typed(&t)
        .unwrap();
    let extra = v["extra"].as_dynamic().unwrap();
    assert_eq!(
        extra.ty().to_string(),
        "object({replicas=number,zones=list(string)})"
    );
    let back = Value::from_msgpack(&v.to_msgpack(&t).unwrap(), &t).unwrap();
    assert_eq!(back, v);
    // null stays the null of the dynamic type
    let v = value!({ "name": "web", "extra": null })
        .into_typed(&t)
        .unwrap();
    assert!(v["extra"].is_null());
    // and what cannot be inferred is an error with the path
    let err = value!({ "name": "web", "extra": [] })
        .into_typed(&t)
        .unwrap_err();
    assert!(err.to_string().ends_with(" at extra"), "{err}");
}

#[test]
fn numbers_and_values_share_a_vocabulary() {
    for text in ["42", "-7", "0.1", "1e400", "18446744073709551615", "-0"] {
        let n: Number = text.parse().unwrap();
        let v = Value::Number(n.clone());
        assert_eq!(n.as_i64(), n.to_i64(), "{text}");
        assert_eq!(n.as_u64(), n.to_u64(), "{text}");
        assert_eq!(n.as_f64(), n.to_f64(), "{text}");
        assert_eq!(v.as_i64(), n.as_i64(), "{text}");
        assert_eq!(v.as_u64(), n.as_u64(), "{text}");
        assert_eq!(v.as_f64(), n.as_f64(), "{text}");
    }
    assert_eq!("42".parse::<Number>().unwrap().as_i64(), Some(42));
    assert_eq!("1e400".parse::<Number>().unwrap().as_f64(), None);
    let neg_zero = Number::from_f64(-0.0).unwrap();
    assert!(neg_zero.as_f64().unwrap().is_sign_negative());
    assert_eq!(neg_zero, Number::from(0));
}
