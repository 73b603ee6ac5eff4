//! Property tests: JSON and MessagePack agree.
//!
//! - For generated wholly-known `(Type, Value)` pairs, the JSON round trip and the
//!   MessagePack round trip give the same value, and re-encoding is stable.
//! - Typed structs with the same data decode the same from either field of a
//!   `DynamicValue`, and equal to what was encoded.
//! - No input makes the JSON decoder panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use tfvalue::{Dynamic, DynamicValue, Number, ObjectType, Type, Value};

const CASES: u32 = 1000;

fn arb_number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::from),
        any::<u64>().prop_map(Number::from),
        any::<f64>().prop_filter_map("finite", |f| if f.is_finite() {
            Number::from_f64(f)
        } else {
            None
        }),
        "-?[0-9]{1,30}(\\.[0-9]{1,30})?(e-?[0-9]{1,3})?".prop_map(|s| s.parse::<Number>().unwrap()),
        Just(
            "123456789012345678901234567890.5"
                .parse::<Number>()
                .unwrap()
        ),
        Just("1e400".parse::<Number>().unwrap()),
    ]
}

fn arb_name() -> impl Strategy<Value = String> {
    prop_oneof![4 => "[a-z_]{1,6}", 1 => "\\PC{1,4}".prop_map(|s: String| tfvalue::text::normalize(&s).into_owned())]
}

/// Types with `dynamic` in object attributes and tuple elements, but not inside
/// collections, whose elements must all have one concrete type.
fn arb_type() -> BoxedStrategy<Type> {
    prop_oneof![4 => arb_type_at(3, true), 1 => Just(Type::Dynamic)].boxed()
}

fn arb_type_at(depth: u32, dynamic: bool) -> BoxedStrategy<Type> {
    let leaf = prop_oneof![Just(Type::String), Just(Type::Number), Just(Type::Bool)].boxed();
    if depth == 0 {
        return leaf;
    }
    let elem = arb_type_at(depth - 1, false);
    let member = if dynamic {
        prop_oneof![2 => arb_type_at(depth - 1, true), 1 => Just(Type::Dynamic)].boxed()
    } else {
        arb_type_at(depth - 1, false)
    };
    prop_oneof![
        2 => leaf,
        1 => elem.clone().prop_map(Type::list),
        1 => elem.clone().prop_map(Type::set),
        1 => elem.prop_map(Type::map),
        1 => (prop::collection::btree_map(arb_name(), member.clone(), 0..4), any::<u8>()).prop_map(|(attrs, mask)| {
            let optional: Vec<String> =
                attrs.keys().enumerate().filter(|(i, _)| mask & (1 << (i % 8)) != 0).map(|(_, k)| k.clone()).collect();
            Type::Object(ObjectType::new(attrs).with_optional(optional))
        }),
        1 => prop::collection::vec(member, 0..4).prop_map(Type::tuple),
    ]
    .boxed()
}

fn nullable(s: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop_oneof![1 => Just(Value::Null), 7 => s].boxed()
}

/// A wholly-known value of `ty` (nulls included).
fn arb_value(ty: &Type) -> BoxedStrategy<Value> {
    match ty {
        Type::String => nullable("\\PC{0,12}".prop_map(Value::String).boxed()),
        Type::Number => nullable(arb_number().prop_map(Value::Number).boxed()),
        Type::Bool => nullable(any::<bool>().prop_map(Value::Bool).boxed()),
        Type::List(t) => nullable(
            prop::collection::vec(arb_value(t), 0..4)
                .prop_map(Value::List)
                .boxed(),
        ),
        Type::Set(t) => nullable(
            prop::collection::vec(arb_value(t), 0..4)
                .prop_map(Value::Set)
                .boxed(),
        ),
        Type::Map(t) => nullable(
            prop::collection::btree_map("[a-z]{1,3}", arb_value(t), 0..4)
                .prop_map(|m| Value::Map(m.into()))
                .boxed(),
        ),
        Type::Object(o) => {
            let attrs: Vec<BoxedStrategy<Option<(String, Value)>>> = o
                .attributes()
                .iter()
                .map(|(name, t)| {
                    let name = name.clone();
                    let present = arb_value(t).prop_map({
                        let name = name.clone();
                        move |v| Some((name.clone(), v))
                    });
                    if o.is_optional(&name) {
                        // An optional attribute may be left out of the value.
                        prop_oneof![Just(None), present].boxed()
                    } else {
                        present.boxed()
                    }
                })
                .collect();
            nullable(
                attrs
                    .prop_map(|attrs| Value::Object(attrs.into_iter().flatten().collect()))
                    .boxed(),
            )
        }
        Type::Tuple(ts) => {
            let elems: Vec<BoxedStrategy<Value>> = ts.iter().map(arb_value).collect();
            nullable(elems.prop_map(Value::Tuple).boxed())
        }
        // A value with its own concrete type.
        Type::Dynamic => nullable(
            arb_type()
                .prop_flat_map(|t| {
                    let v = arb_value(&t);
                    (Just(t), v)
                })
                .prop_map(|(t, v)| Dynamic::new(t, v).into_value())
                .boxed(),
        ),
        other => panic!("no generator for type {other}"),
    }
}

fn arb_type_value() -> impl Strategy<Value = (Type, Value)> {
    arb_type().prop_flat_map(|t| {
        let v = arb_value(&t);
        (Just(t), v)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn json_and_msgpack_round_trips_agree((ty, v) in arb_type_value()) {
        prop_assert!(v.is_wholly_known());
        let mp = v.to_msgpack(&ty).map_err(|e| TestCaseError::fail(format!("msgpack: {e}")))?;
        let js = v.to_json(&ty).map_err(|e| TestCaseError::fail(format!("json: {e}")))?;
        let from_mp = Value::from_msgpack(&mp, &ty).map_err(|e| TestCaseError::fail(format!("msgpack back: {e}")))?;
        let from_js = Value::from_json(&js, &ty).map_err(|e| {
            TestCaseError::fail(format!("json back: {e}: {}", String::from_utf8_lossy(&js)))
        })?;
        // JSON writes a float64 as the shortest text that reads back as it (as go-cty does),
        // which reads back as that decimal: compare float64s by that text.
        prop_assert_eq!(shortest(&from_mp), shortest(&from_js), "json: {}", String::from_utf8_lossy(&js));
        // Once decoded (strings in NFC, sets without duplicates, optional attributes
        // filled in), a value encodes stably in both formats.
        let js2 = from_js.to_json(&ty).unwrap();
        let again = Value::from_json(&js2, &ty).unwrap();
        prop_assert_eq!(&again, &from_js);
        prop_assert_eq!(again.to_json(&ty).unwrap(), js2);
        let mp2 = from_mp.to_msgpack(&ty).unwrap();
        let again = Value::from_msgpack(&mp2, &ty).unwrap();
        prop_assert_eq!(&again, &from_mp);
        prop_assert_eq!(again.to_msgpack(&ty).unwrap(), mp2);
        // And either field of a DynamicValue gives the same.
        let a = DynamicValue::from_json(js).decode_value(&ty).unwrap();
        let b = DynamicValue::encode_value(&v, &ty).unwrap().decode_value(&ty).unwrap();
        prop_assert_eq!(shortest(&a), shortest(&b));
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rule {
    cidr: String,
    from_port: u32,
    to_port: Option<u32>,
    enabled: bool,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Model {
    name: String,
    count: i64,
    big: u64,
    small: i8,
    ratio: f64,
    exact: Number,
    enabled: Option<bool>,
    tags: BTreeMap<String, String>,
    ports: Vec<u16>,
    rules: Vec<Rule>,
    note: Option<String>,
    extra: Option<Dynamic>,
}

fn nfc_string() -> impl Strategy<Value = String> {
    "\\PC{0,12}".prop_map(|s: String| tfvalue::text::normalize(&s).into_owned())
}

prop_compose! {
    fn arb_rule()(cidr in nfc_string(), from_port in any::<u32>(), to_port in any::<Option<u32>>(), enabled in any::<bool>()) -> Rule {
        Rule { cidr, from_port, to_port, enabled }
    }
}

fn arb_dynamic() -> impl Strategy<Value = Option<Dynamic>> {
    let concrete = arb_type().prop_flat_map(|t| {
        // The value must not be null at the top: a null Dynamic of a concrete type reads
        // back as that type's null, which is fine, but keep the comparison simple.
        let v = arb_value(&t);
        (Just(t), v)
    });
    prop_oneof![
        1 => Just(None),
        3 => concrete.prop_map(|(t, v)| {
            // Round trips normalize the value (NFC, sets, optional attributes), so compare
            // against the normalized form.
            let bytes = Dynamic::new(t.clone(), v).into_value().to_msgpack(&Type::Dynamic).unwrap();
            match Value::from_msgpack(&bytes, &Type::Dynamic).unwrap() {
                Value::Dynamic(d) => Some(*d),
                Value::Null => None,
                other => panic!("not a dynamic value: {other:?}"),
            }
        }),
    ]
}

prop_compose! {
    fn arb_model()(
        name in nfc_string(),
        count in any::<i64>(),
        big in any::<u64>(),
        small in any::<i8>(),
        ratio in any::<f64>().prop_filter("finite", |f| f.is_finite()),
        exact in arb_number(),
        enabled in any::<Option<bool>>(),
        tags in prop::collection::btree_map(nfc_string(), nfc_string(), 0..4),
        ports in prop::collection::vec(any::<u16>(), 0..4),
        rules in prop::collection::vec(arb_rule(), 0..3),
        note in prop::option::of(nfc_string()),
        extra in arb_dynamic(),
    ) -> Model {
        Model { name, count, big, small, ratio, exact, enabled, tags, ports, rules, note, extra }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn typed_structs_decode_the_same_from_either_field(m in arb_model()) {
        let from_msgpack = DynamicValue::encode(&m).unwrap();
        let from_json = DynamicValue::from_json(tfvalue::json::to_vec(&m).unwrap());
        let a: Model = from_msgpack.decode().unwrap();
        let b: Model = from_json.decode().map_err(|e| {
            TestCaseError::fail(format!("{e}: {}", String::from_utf8_lossy(&from_json.json)))
        })?;
        prop_assert_eq!(&shortest_model(&a), &shortest_model(&b));
        // What was encoded comes back, except that a whole float64 beyond i64 is written as
        // the shortest text that reads back as that float64 (as go-cty writes it), not as
        // its exact expansion.
        prop_assert_eq!(&Model { exact: m.exact.clone(), ..a.clone() }, &m);
        prop_assert!(a.exact == m.exact || a.exact.to_f64() == m.exact.to_f64(), "{:?} {:?}", a.exact, m.exact);
    }

    #[test]
    fn json_decoder_never_panics(input in "[\\[\\]{}\",:0-9a-z\\\\. eE+-]{0,48}") {
        let t: Type = serde_json::from_str(r#"["object",{"a":["list","number"],"d":"dynamic","s":"string","m":["map","bool"]}]"#).unwrap();
        let _ = Value::from_json(input.as_bytes(), &t);
        let _ = Value::from_json(input.as_bytes(), &Type::Dynamic);
        let _ = tfvalue::json::from_slice::<Model>(input.as_bytes());
        let _ = tfvalue::json::from_slice::<Dynamic>(input.as_bytes());
    }

    #[test]
    fn json_decoder_never_panics_on_bytes(input in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = Value::from_json(&input, &Type::Dynamic);
        let _ = tfvalue::json::from_slice::<Model>(&input);
        let _ = tfvalue::json::from_slice::<serde_json::Value>(&input);
    }
}

/// A number that is exactly a float64 as the text JSON writes for that float64 (go-cty's
/// shortest text, as `Number::from_f64`'s Display gives it), read back as a decimal:
/// where JSON writes a float64's short text, MessagePack may carry the float, or the
/// whole number it is (a whole float64 in `i64` range goes on the wire as an integer).
fn shortest_number(n: &Number) -> Number {
    match n.to_exact_f64() {
        Some(f) if f.is_finite() => Number::from_f64(f).unwrap().to_string().parse().unwrap(),
        _ => n.clone(),
    }
}

/// `v` with every number as [`shortest_number`] gives it.
fn shortest(v: &Value) -> Value {
    match v {
        Value::Number(n) => Value::Number(shortest_number(n)),
        Value::List(vs) => Value::List(vs.iter().map(shortest).collect()),
        Value::Set(vs) => Value::Set(vs.iter().map(shortest).collect()),
        Value::Tuple(vs) => Value::Tuple(vs.iter().map(shortest).collect()),
        Value::Map(m) => Value::Map(m.iter().map(|(k, v)| (k.clone(), shortest(v))).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), shortest(v))).collect())
        }
        Value::Dynamic(d) => Dynamic::new(d.ty().clone(), shortest(d.value())).into_value(),
        other => other.clone(),
    }
}

fn shortest_model(m: &Model) -> Model {
    Model {
        exact: shortest_number(&m.exact),
        extra: m
            .extra
            .as_ref()
            .map(|d| Dynamic::new(d.ty().clone(), shortest(d.value()))),
        ..m.clone()
    }
}

/// Whether an object in `v` leaves out one of its type's optional attributes.
fn leaves_out_optional(v: &Value, ty: &Type) -> bool {
    match (v, ty) {
        (Value::Object(m), Type::Object(o)) => o.attributes().iter().any(|(k, t)| match m.get(k) {
            None => true,
            Some(e) => leaves_out_optional(e, t),
        }),
        (Value::List(vs) | Value::Set(vs), Type::List(t) | Type::Set(t)) => {
            vs.iter().any(|e| leaves_out_optional(e, t))
        }
        (Value::Map(m), Type::Map(t)) => m.values().any(|e| leaves_out_optional(e, t)),
        (Value::Tuple(vs), Type::Tuple(ts)) => {
            vs.iter().zip(ts).any(|(e, t)| leaves_out_optional(e, t))
        }
        (Value::Dynamic(d), _) => leaves_out_optional(d.value(), d.ty()),
        _ => false,
    }
}

/// The generators reach the shapes the properties are about.
#[test]
fn generators_cover_the_interesting_shapes() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    fn walk(v: &Value, f: &mut impl FnMut(&Value)) {
        f(v);
        match v {
            Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
                vs.iter().for_each(|e| walk(e, f))
            }
            Value::Map(m) | Value::Object(m) => m.values().for_each(|e| walk(e, f)),
            Value::Dynamic(d) => walk(d.value(), f),
            _ => {}
        }
    }
    let mut runner = TestRunner::deterministic();
    let strategy = arb_type_value();
    let (
        mut dynamic,
        mut nested_dynamic,
        mut sets,
        mut missing_optional,
        mut long_numbers,
        mut non_ascii,
    ) = (0, 0, 0, 0, 0, 0);
    for _ in 0..CASES {
        let (ty, v) = strategy.new_tree(&mut runner).unwrap().current();
        missing_optional += usize::from(leaves_out_optional(&v, &ty));
        let mut seen = [false; 5];
        walk(&v, &mut |e| match e {
            Value::Dynamic(d) => {
                seen[0] = true;
                if d.ty().has_dynamic() {
                    seen[1] = true;
                }
            }
            Value::Set(s) if s.len() > 1 => seen[2] = true,
            Value::Number(n) if n.to_string().len() > 30 => seen[3] = true,
            Value::String(s) if !s.is_ascii() => seen[4] = true,
            _ => {}
        });
        dynamic += usize::from(seen[0]);
        nested_dynamic += usize::from(seen[1]);
        sets += usize::from(seen[2]);
        long_numbers += usize::from(seen[3]);
        non_ascii += usize::from(seen[4]);
    }
    println!(
        "of {CASES}: dynamic {dynamic}, dynamic with dynamic in its type {nested_dynamic}, sets {sets}, \
         optional attributes {missing_optional}, long numbers {long_numbers}, non-ASCII strings {non_ascii}"
    );
    for (what, n) in [
        ("dynamic", dynamic),
        ("nested dynamic", nested_dynamic),
        ("sets", sets),
        ("optional attributes", missing_optional),
        ("long numbers", long_numbers),
        ("non-ASCII strings", non_ascii),
    ] {
        assert!(n >= CASES as usize / 50, "only {n} cases with {what}");
    }
}
