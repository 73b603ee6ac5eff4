//! `to_value` / `from_value` walk the model or the value once, with no wire in between.
//! They must give what the old path through the wire gave (MessagePack encode, then
//! `Value::from_msgpack` or `msgpack::from_slice`): the property tests here hold the two to
//! the same values and the same errors on generated values, models and types, including
//! unknowns with refinements, `dynamic` values and exact numbers.
//!
//! Where the two differ, on purpose:
//! - the old path's encoder gave errors without a path; the new one names the path, so
//!   paths are compared where the old path had one;
//! - from a value with several mistakes, the old path reported the first in name order
//!   (the wire sorts attributes), the new one the first in the model's order: the inputs
//!   that compare errors have their mistakes in one attribute;

// Tests may panic: the workspace lints are for library code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tfvalue::{Dynamic, Number, ObjectType, Refinements, TfValue, Type, Unknown, Value};

// ---------------------------------------------------------------------------------------
// The old paths, and how results are compared

fn old_to_value<T: ?Sized + Serialize>(v: &T, ty: &Type) -> tfvalue::Result<Value> {
    Value::from_msgpack(&tfvalue::msgpack::to_vec(v)?, ty)
}

fn old_from_value<T: DeserializeOwned>(v: &Value) -> tfvalue::Result<T> {
    tfvalue::msgpack::from_slice(&tfvalue::msgpack::to_vec(v)?)
}

const HINT: &str =
    " (Deserializer::ignore_undeclared_attributes skips attributes the target does not declare)";

/// The same error: message and category, and the path where the old one had one.
fn same_error(new: &tfvalue::Error, old: &tfvalue::Error) -> Result<(), TestCaseError> {
    let old_message = old.message().replace(HINT, "");
    prop_assert_eq!(
        new.message(),
        old_message.as_str(),
        "new {}, old {}",
        new,
        old
    );
    prop_assert_eq!(new.category(), old.category(), "new {}, old {}", new, old);
    if !old.path().is_empty() {
        prop_assert_eq!(new.path(), old.path(), "new {}, old {}", new, old);
    }
    Ok(())
}

/// Both paths give the same value (and it encodes to the same bytes), or the same error.
fn same_value(
    new: tfvalue::Result<Value>,
    old: tfvalue::Result<Value>,
    ty: &Type,
) -> Result<(), TestCaseError> {
    match (new, old) {
        (Ok(n), Ok(o)) => {
            prop_assert_eq!(&n, &o);
            prop_assert_eq!(n.to_msgpack(ty).ok(), o.to_msgpack(ty).ok());
            prop_assert_eq!(n.to_json(ty).ok(), o.to_json(ty).ok());
        }
        (Err(n), Err(o)) => same_error(&n, &o)?,
        (n, o) => prop_assert!(false, "new {:?}, old {:?}", n, o),
    }
    Ok(())
}

fn same_result<T: PartialEq + std::fmt::Debug>(
    new: tfvalue::Result<T>,
    old: tfvalue::Result<T>,
) -> Result<(), TestCaseError> {
    match (new, old) {
        (Ok(n), Ok(o)) => prop_assert_eq!(n, o),
        (Err(n), Err(o)) => same_error(&n, &o)?,
        (n, o) => prop_assert!(false, "new {:?}, old {:?}", n, o),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Generated types and values (as in tests/roundtrip.rs, with strings that NFC changes)

fn leaf_type() -> BoxedStrategy<Type> {
    prop_oneof![Just(Type::String), Just(Type::Number), Just(Type::Bool)].boxed()
}

fn arb_type(with_dynamic: bool) -> BoxedStrategy<Type> {
    let leaf = if with_dynamic {
        prop_oneof![4 => leaf_type(), 1 => Just(Type::Dynamic)].boxed()
    } else {
        leaf_type()
    };
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(Type::list),
            inner.clone().prop_map(Type::set),
            inner.clone().prop_map(Type::map),
            (
                btree_map("[a-z_]{1,6}", inner.clone(), 0..4),
                vec(any::<bool>(), 4)
            )
                .prop_map(|(attrs, opt)| {
                    let optional: Vec<String> = attrs
                        .keys()
                        .zip(&opt)
                        .filter(|(_, o)| **o)
                        .map(|(n, _)| n.clone())
                        .collect();
                    Type::Object(ObjectType::new(attrs).with_optional(optional))
                }),
            vec(inner, 0..3).prop_map(Type::tuple),
        ]
    })
    .boxed()
}

fn arb_number() -> BoxedStrategy<Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::from),
        any::<u64>().prop_map(Number::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| Number::from_f64(f).unwrap()),
        "-?[0-9]{1,30}(\\.[0-9]{1,30})?(e-?[0-9]{1,2})?".prop_map(|s| s.parse::<Number>().unwrap()),
        Just(Number::infinity()),
        Just(Number::neg_infinity()),
    ]
    .boxed()
}

/// Strings, some not in NFC (`e` and a combining acute accent), which both paths normalize.
fn arb_string() -> BoxedStrategy<String> {
    "[a-z0-9 _é日\u{301}]{0,8}".boxed()
}

fn arb_refinements(ty: &Type) -> BoxedStrategy<Refinements> {
    let base = any::<bool>().prop_map(|nn| {
        if nn {
            Refinements::new().not_null()
        } else {
            Refinements::new()
        }
    });
    match ty {
        Type::String => (base, proptest::option::of("[a-zé\u{301}:/]{1,12}"))
            .prop_map(|(r, p)| match p {
                Some(p) => r.with_prefix(p),
                None => r,
            })
            .boxed(),
        Type::Number => (
            base,
            proptest::option::of((-50..50i64, any::<bool>())),
            proptest::option::of((0..100i64, any::<bool>())),
        )
            .prop_map(|(mut r, lo, width)| {
                if let Some((lo, inc)) = lo {
                    r = r.with_lower_bound(Number::from(lo), inc);
                    if let Some((w, inc2)) = width {
                        // Width 0 and both inclusive pins the number to one value.
                        r = r.with_upper_bound(Number::from(lo + w), inc2 || w == 0);
                        if w == 0 {
                            r = r.with_lower_bound(Number::from(lo), true);
                        }
                    }
                }
                r
            })
            .boxed(),
        Type::List(_) | Type::Set(_) | Type::Map(_) => {
            (base, 0..5u64, proptest::option::of(0..5u64))
                .prop_map(|(r, lo, extra)| {
                    let r = r.with_min_length(lo);
                    match extra {
                        Some(e) => r.with_max_length(lo + e),
                        None => r,
                    }
                })
                .boxed()
        }
        _ => base.boxed(),
    }
}

fn arb_known(ty: &Type, in_collection: bool) -> BoxedStrategy<Value> {
    match ty {
        Type::String => arb_string().prop_map(Value::String).boxed(),
        Type::Number => arb_number().prop_map(Value::Number).boxed(),
        Type::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Type::List(t) => vec(arb_value(t, true), 0..4).prop_map(Value::List).boxed(),
        Type::Set(t) => vec(arb_value(t, true), 0..4).prop_map(Value::Set).boxed(),
        Type::Map(t) => btree_map("[a-zé]{0,3}", arb_value(t, true), 0..4)
            .prop_map(|m| Value::Map(m.into()))
            .boxed(),
        Type::Object(o) => {
            let names: Vec<String> = o.attributes().keys().cloned().collect();
            let optional: Vec<bool> = names.iter().map(|n| o.is_optional(n)).collect();
            let values: Vec<BoxedStrategy<Option<Value>>> = o
                .attributes()
                .iter()
                .map(|(n, t)| {
                    if o.is_optional(n) {
                        proptest::option::of(arb_value(t, in_collection)).boxed()
                    } else {
                        arb_value(t, in_collection).prop_map(Some).boxed()
                    }
                })
                .collect();
            values
                .prop_map(move |vals| {
                    let _ = &optional;
                    Value::Object(
                        names
                            .iter()
                            .cloned()
                            .zip(vals)
                            .filter_map(|(n, v)| v.map(|v| (n, v)))
                            .collect(),
                    )
                })
                .boxed()
        }
        Type::Tuple(ts) => ts
            .iter()
            .map(|t| arb_value(t, in_collection))
            .collect::<Vec<_>>()
            .prop_map(Value::Tuple)
            .boxed(),
        // Elements of a collection share one concrete type: strings there.
        Type::Dynamic if in_collection => arb_string()
            .prop_map(|s| Dynamic::new(Type::String, Value::String(s)).into_value())
            .boxed(),
        Type::Dynamic => arb_type(false)
            .prop_flat_map(|t| {
                arb_value(&t, false).prop_map(move |v| Dynamic::new(t.clone(), v).into_value())
            })
            .boxed(),
        other => panic!("no strategy for {other}"),
    }
}

fn arb_value(ty: &Type, in_collection: bool) -> BoxedStrategy<Value> {
    if in_collection && *ty == Type::Dynamic {
        return prop_oneof![
            Just(Value::Null),
            arb_string().prop_map(|s| Dynamic::new(Type::String, Value::String(s)).into_value()),
        ]
        .boxed();
    }
    let t = ty.clone();
    prop_oneof![
        1 => Just(Value::Null),
        1 => arb_refinements(&t).prop_map(Value::Unknown),
        6 => arb_known(ty, in_collection),
    ]
    .boxed()
}

fn arb_pair() -> impl Strategy<Value = (Type, Value)> {
    arb_type(true).prop_flat_map(|t| arb_value(&t, false).prop_map(move |v| (t.clone(), v)))
}

// ---------------------------------------------------------------------------------------
// A model with every kind of field

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Rule {
    port: u16,
    #[tfvalue(optional)]
    cidr: Unknown<Option<String>>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Model {
    name: Unknown<String>,
    #[tfvalue(optional)]
    count: Unknown<Option<i64>>,
    #[tfvalue(optional)]
    ratio: Option<f64>,
    #[tfvalue(optional)]
    big: Option<u64>,
    #[tfvalue(optional)]
    exact: Option<Number>,
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
    #[tfvalue(optional)]
    ports: Option<BTreeSet<u16>>,
    #[tfvalue(block)]
    rule: Vec<Rule>,
    #[tfvalue(optional)]
    extra: Dynamic,
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
}

fn arb_unknown<T: std::fmt::Debug + Clone + 'static>(
    known: BoxedStrategy<T>,
    r: BoxedStrategy<Refinements>,
) -> BoxedStrategy<Unknown<T>> {
    prop_oneof![3 => known.prop_map(Unknown::Known), 1 => r.prop_map(Unknown::Unknown)].boxed()
}

fn arb_model() -> impl Strategy<Value = Model> {
    let s = || arb_refinements(&Type::String);
    let n = || arb_refinements(&Type::Number);
    let rule = (
        any::<u16>(),
        arb_unknown(proptest::option::of("[0-9./]{1,8}").boxed(), s()),
    )
        .prop_map(|(port, cidr)| Rule { port, cidr });
    let extra = prop_oneof![
        Just(Dynamic::null()),
        arb_pair().prop_filter_map("known type", |(t, v)| {
            (t != Type::Dynamic).then(|| Dynamic::new(t, v))
        }),
    ];
    (
        arb_unknown(arb_string(), s()),
        arb_unknown(proptest::option::of(any::<i64>()).boxed(), n()),
        proptest::option::of(any::<f64>().prop_filter("not NaN", |f| !f.is_nan())),
        proptest::option::of(any::<u64>()),
        proptest::option::of(arb_number()),
        arb_unknown(
            proptest::option::of(btree_map(
                "[a-zé]{0,3}",
                arb_unknown(arb_string(), s()),
                0..3,
            ))
            .boxed(),
            arb_refinements(&Type::map(Type::String)),
        ),
        proptest::option::of(proptest::collection::btree_set(any::<u16>(), 0..3)),
        vec(rule, 0..3),
        extra,
        arb_unknown(proptest::option::of(arb_string()).boxed(), s()),
    )
        .prop_map(
            |(name, count, ratio, big, exact, tags, ports, rule, extra, id)| Model {
                name,
                count,
                ratio,
                big,
                exact,
                tags,
                ports,
                rule,
                extra,
                id,
            },
        )
}

// ---------------------------------------------------------------------------------------
// Mutations: one mistake, in one attribute

/// The type with one attribute changed: dropped, retyped, or a required one added.
fn mutate_type(ty: &Type, which: usize, how: u8) -> Type {
    let Type::Object(o) = ty else {
        return Type::list(ty.clone());
    };
    let names: Vec<&String> = o.attributes().keys().collect();
    let mut attrs: Vec<(String, Type)> = o
        .attributes()
        .iter()
        .map(|(k, t)| (k.clone(), t.clone()))
        .collect();
    let optional: Vec<String> = o.optional().iter().cloned().collect();
    if names.is_empty() || how % 3 == 2 {
        attrs.push(("zz_added".into(), Type::String));
    } else {
        let i = which % names.len();
        if how % 3 == 0 {
            attrs.remove(i);
        } else {
            let t = &attrs[i].1;
            attrs[i].1 = match t {
                Type::String => Type::list(Type::Bool),
                Type::Number | Type::Bool => Type::String,
                Type::List(_) | Type::Set(_) | Type::Map(_) => Type::Number,
                Type::Dynamic => Type::Bool,
                _ => Type::String,
            };
        }
    }
    Type::Object(ObjectType::new(attrs).with_optional(optional))
}

/// The value with one attribute changed: dropped, replaced by a value of another kind, or
/// one added that the type does not declare.
fn mutate_value(v: &Value, which: usize, how: u8, with: &Value) -> Value {
    let Value::Object(m) = v else {
        return Value::List(vec![v.clone()]);
    };
    let mut m = m.clone();
    let keys: Vec<String> = m.keys().map(|k| k.to_string()).collect();
    if keys.is_empty() || how % 3 == 2 {
        m.insert("zz_added", Value::Bool(true));
    } else {
        let k = &keys[which % keys.len()];
        if how % 3 == 0 {
            m.remove(k.as_str());
        } else {
            m.insert(k.as_str(), with.clone());
        }
    }
    Value::Object(m)
}

// ---------------------------------------------------------------------------------------
// The properties

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// A `Value` is itself a model (`Serialize` as its structure says): converting it to
    /// its type, or to any other type, agrees with the wire.
    #[test]
    fn to_value_of_a_value_agrees_with_the_wire((ty, v) in arb_pair(), other in arb_type(true)) {
        same_value(tfvalue::to_value_as(&v, &ty), old_to_value(&v, &ty), &ty)?;
        same_value(tfvalue::to_value_as(&v, &other), old_to_value(&v, &other), &other)?;
    }

    /// A typed `Dynamic` read back from a value: every position of the value, against its
    /// type, through the deserializer.
    #[test]
    fn from_value_into_dynamic_agrees_with_the_wire((ty, v) in arb_pair()) {
        let d = if ty == Type::Dynamic { v.clone() } else { Dynamic::new(ty.clone(), v.clone()).into_value() };
        same_result(tfvalue::from_value::<Dynamic>(&d), old_from_value::<Dynamic>(&d))?;
        // Without the wrapper, a value is not a `dynamic` value (unless it is null).
        same_result(tfvalue::from_value::<Dynamic>(&v), old_from_value::<Dynamic>(&v))?;
    }

    /// Values as they are, into targets that take anything: `serde_json::Value` (no
    /// unknowns) and lists or maps of `Unknown<Option<serde_json::Value>>`.
    #[test]
    fn from_value_into_untyped_targets_agrees_with_the_wire((_, v) in arb_pair()) {
        same_result(
            tfvalue::from_value::<serde_json::Value>(&v),
            old_from_value::<serde_json::Value>(&v),
        )?;
        same_result(
            tfvalue::from_value::<Vec<Unknown<Option<serde_json::Value>>>>(&v),
            old_from_value::<Vec<Unknown<Option<serde_json::Value>>>>(&v),
        )?;
        same_result(
            tfvalue::from_value::<BTreeMap<String, Unknown<Option<serde_json::Value>>>>(&v),
            old_from_value::<BTreeMap<String, Unknown<Option<serde_json::Value>>>>(&v),
        )?;
    }

    /// A model to its value and back, against its own type and against a type with one
    /// attribute changed.
    #[test]
    fn models_agree_with_the_wire(m in arb_model(), which in any::<usize>(), how in any::<u8>()) {
        let ty = Model::tf_type();
        same_value(tfvalue::to_value(&m), old_to_value(&m, &ty), &ty)?;
        let new = tfvalue::to_value(&m);
        let other = mutate_type(&ty, which, how);
        same_value(tfvalue::to_value_as(&m, &other), old_to_value(&m, &other), &other)?;
        if let Ok(v) = new {
            same_result(tfvalue::from_value::<Model>(&v), old_from_value::<Model>(&v))?;
            // Back to a value, the same value (strings came out in NFC the first time).
            let back = tfvalue::from_value::<Model>(&v).unwrap();
            prop_assert_eq!(tfvalue::to_value(&back).unwrap(), v);
        }
    }

    /// A model read from a value with one attribute changed.
    #[test]
    fn models_from_changed_values_agree_with_the_wire(
        m in arb_model(),
        which in any::<usize>(),
        how in any::<u8>(),
        (_, with) in arb_pair(),
    ) {
        let v = tfvalue::to_value(&m).unwrap();
        let changed = mutate_value(&v, which, how, &with);
        same_result(tfvalue::from_value::<Model>(&changed), old_from_value::<Model>(&changed))?;
        // And nested: an element of the block list changed.
        if let Some(Value::List(rules)) = v.get("rule") {
            if let Some(first) = rules.first() {
                let mut v2 = v.clone();
                let rule = mutate_value(first, which, how, &with);
                if let Some(Value::List(rs)) = v2.get_mut("rule") {
                    rs[0] = rule;
                }
                same_result(tfvalue::from_value::<Model>(&v2), old_from_value::<Model>(&v2))?;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Cases by hand

#[test]
fn errors_name_the_path() {
    #[derive(Serialize)]
    struct Disk {
        size: f64,
    }
    #[derive(Serialize)]
    struct Server {
        disks: Vec<Disk>,
    }
    let ty = Type::object([("disks", Type::list(Type::object([("size", Type::Number)])))]);
    let err = tfvalue::to_value_as(
        &Server {
            disks: vec![Disk { size: 1.0 }, Disk { size: f64::NAN }],
        },
        &ty,
    )
    .unwrap_err();
    // The wire's encoder knew no path; the conversion does.
    assert_eq!(
        err.to_string(),
        "NaN is not a number and cannot be encoded at disks[1].size"
    );
    let err = tfvalue::to_value_as(
        &Server { disks: vec![] },
        &Type::object([("disks", Type::String)]),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: array, expected a string at disks"
    );
}

#[test]
fn from_value_refuses_what_the_target_does_not_declare() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Subset {
        name: String,
    }
    let v = Value::Object([("name", Value::from("x")), ("size", Value::from(5))].into());
    let err = tfvalue::from_value::<Subset>(&v).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unsupported attribute `size`, expected one of `name`"
    );
    let v = Value::Object([("name", Value::Unknown(Refinements::new()))].into());
    let err = tfvalue::from_value::<Subset>(&v).unwrap_err();
    assert_eq!(
        err.to_string(),
        "an unknown value where a string was expected (use tfvalue::Unknown<T> for values that can be unknown) at name"
    );
}

#[test]
fn a_raw_in_a_model_is_decoded_against_its_position() {
    #[derive(Serialize)]
    struct Envelope<'a> {
        config: tfvalue::Raw<'a>,
    }
    let ty = Type::object([("config", Type::object([("size", Type::Number)]))]);
    let msgpack = tfvalue::Raw::from_msgpack(&b"\x81\xa4size\x05"[..]).unwrap();
    let v = tfvalue::to_value_as(&Envelope { config: msgpack }, &ty).unwrap();
    assert_eq!(v["config"]["size"], 5);
    // JSON too (the wire could only carry MessagePack).
    let json = tfvalue::Raw::from_json(&br#"{"size":6}"#[..]).unwrap();
    let v = tfvalue::to_value_as(&Envelope { config: json }, &ty).unwrap();
    assert_eq!(v["config"]["size"], 6);
}

#[test]
fn deep_values_hit_the_nesting_limit_without_overflowing() {
    let mut v = Value::Null;
    for _ in 0..200 {
        v = Value::List(vec![v]);
    }
    let mut ty = Type::String;
    for _ in 0..200 {
        ty = Type::list(ty);
    }
    let err = tfvalue::to_value_as(&v, &ty).unwrap_err();
    assert_eq!(err.category(), tfvalue::Category::Limit);
    let err = tfvalue::from_value::<serde_json::Value>(&v).unwrap_err();
    assert_eq!(err.category(), tfvalue::Category::Limit);
}

/// A number where a `dynamic` value's type JSON belongs, as a list or a set of two: the
/// converter reads it as the wire holds it (an integer or a float64 is a number, any
/// other number its decimal text), as the old path did. It once read a float64 by its
/// text. Found by `to_value_of_a_value_agrees_with_the_wire`.
#[test]
fn a_number_where_type_json_belongs() {
    let numbers: [Number; 4] = [
        Number::from_f64(6.148358210868506e-299).unwrap(),
        Number::from_f64(0.5).unwrap(),
        Number::from(5),
        "123456789012345678901234567890.5".parse().unwrap(),
    ];
    for n in numbers {
        let items = vec![Value::Number(n), Value::Null];
        for v in [Value::List(items.clone()), Value::Set(items)] {
            let ty = Type::Dynamic;
            same_value(tfvalue::to_value_as(&v, &ty), old_to_value(&v, &ty), &ty).unwrap();
        }
    }
}
