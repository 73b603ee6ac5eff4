//! Property tests: for generated (Type, Value) pairs, MessagePack encoding and decoding
//! round-trip, and the encoding is canonical (encoding the decoded value gives the same
//! bytes).

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use tfvalue::{Dynamic, Number, ObjectType, Refinements, Type, Value};

fn leaf_type() -> BoxedStrategy<Type> {
    prop_oneof![Just(Type::String), Just(Type::Number), Just(Type::Bool)].boxed()
}

/// Types; `dynamic` only where `with_dynamic`, optional attributes only where `with_optional`.
fn arb_type(with_dynamic: bool, with_optional: bool) -> BoxedStrategy<Type> {
    let leaf = if with_dynamic {
        prop_oneof![4 => leaf_type(), 1 => Just(Type::Dynamic)].boxed()
    } else {
        leaf_type()
    };
    leaf.prop_recursive(4, 24, 4, move |inner| {
        prop_oneof![
            inner.clone().prop_map(Type::list),
            inner.clone().prop_map(Type::set),
            inner.clone().prop_map(Type::map),
            (
                btree_map("[a-z_]{1,6}", inner.clone(), 0..4),
                vec(any::<bool>(), 4)
            )
                .prop_map(move |(attrs, opt)| {
                    let names: Vec<String> = attrs.keys().cloned().collect();
                    let optional = names
                        .iter()
                        .zip(&opt)
                        .filter(|(_, o)| with_optional && **o)
                        .map(|(n, _)| n.clone());
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
        // floats, but not whole ones beyond i64 (go-cty writes those as their shortest text,
        // which is not their exact value)
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite()
                && !(f.fract() == 0.0 && f.abs() >= 9.2e18))
            .prop_map(|f| Number::from_f64(f).unwrap()),
        "-?[0-9]{1,40}(\\.[0-9]{1,40})?(e-?[0-9]{1,2})?".prop_map(|s| s.parse::<Number>().unwrap()),
        Just(Number::infinity()),
        Just(Number::neg_infinity()),
    ]
    .boxed()
}

/// Strings in NFC (encoding normalizes, so only those round-trip byte for byte).
fn arb_string() -> BoxedStrategy<String> {
    "[a-zA-Z0-9 _\\-é日本\u{1F600}]{0,12}".boxed()
}

fn arb_refinements(ty: &Type) -> BoxedStrategy<Refinements> {
    let not_null = any::<bool>();
    match ty {
        Type::String => (not_null, proptest::option::of("[a-z:/]{1,12}"))
            .prop_map(|(nn, p)| {
                let mut r = if nn {
                    Refinements::new().not_null()
                } else {
                    Refinements::new()
                };
                if let Some(p) = p {
                    r = r.with_prefix(p);
                }
                r
            })
            .boxed(),
        Type::Number => (
            not_null,
            proptest::option::of((any::<i32>(), any::<bool>())),
            proptest::option::of((1..1000i64, any::<bool>())),
        )
            .prop_map(|(nn, lo, width)| {
                let mut r = if nn {
                    Refinements::new().not_null()
                } else {
                    Refinements::new()
                };
                if let Some((lo, inc)) = lo {
                    r = r.with_lower_bound(Number::from(lo), inc);
                    if let Some((w, inc2)) = width {
                        r = r.with_upper_bound(Number::from(lo as i64 + w), inc2);
                    }
                } else if let Some((w, inc2)) = width {
                    r = r.with_upper_bound(Number::from(w), inc2);
                }
                r
            })
            .boxed(),
        Type::List(_) | Type::Set(_) | Type::Map(_) => {
            (not_null, 0..5u64, proptest::option::of(0..5u64))
                .prop_map(|(nn, lo, extra)| {
                    let mut r = if nn {
                        Refinements::new().not_null()
                    } else {
                        Refinements::new()
                    };
                    r = r.with_min_length(lo);
                    if let Some(e) = extra {
                        r = r.with_max_length(lo + e);
                    }
                    r
                })
                .boxed()
        }
        Type::Dynamic => Just(Refinements::new()).boxed(),
        _ => not_null
            .prop_map(|nn| {
                if nn {
                    Refinements::new().not_null()
                } else {
                    Refinements::new()
                }
            })
            .boxed(),
    }
}

/// A known, non-null value of `ty`. Inside a collection (`in_collection`), every `dynamic`
/// position holds a string, so that the elements share one concrete type, as go-cty
/// requires.
fn arb_known_in(ty: &Type, in_collection: bool) -> BoxedStrategy<Value> {
    match ty {
        Type::String => arb_string().prop_map(Value::String).boxed(),
        Type::Number => arb_number().prop_map(Value::Number).boxed(),
        Type::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Type::List(t) => vec(elem(t), 0..4).prop_map(Value::List).boxed(),
        Type::Set(t) => vec(elem(t), 0..4).prop_map(Value::Set).boxed(),
        Type::Map(t) => btree_map("[a-z]{0,4}", elem(t), 0..4)
            .prop_map(|m| Value::Map(m.into()))
            .boxed(),
        Type::Object(o) => {
            let attrs: Vec<(String, BoxedStrategy<Value>)> = o
                .attributes()
                .iter()
                .map(|(k, t)| (k.clone(), arb_value_in(t, in_collection)))
                .collect();
            let names: Vec<String> = attrs.iter().map(|(k, _)| k.clone()).collect();
            let strategies: Vec<BoxedStrategy<Value>> = attrs.into_iter().map(|(_, s)| s).collect();
            strategies
                .prop_map(move |vals| Value::Object(names.iter().cloned().zip(vals).collect()))
                .boxed()
        }
        Type::Tuple(ts) => ts
            .iter()
            .map(|t| arb_value_in(t, in_collection))
            .collect::<Vec<_>>()
            .prop_map(Value::Tuple)
            .boxed(),
        Type::Dynamic if in_collection => arb_string()
            .prop_map(|s| Dynamic::new(Type::String, Value::String(s)).into_value())
            .boxed(),
        Type::Dynamic => arb_type(false, false)
            .prop_flat_map(|t| {
                arb_value(&t).prop_map(move |v| Dynamic::new(t.clone(), v).into_value())
            })
            .boxed(),
        other => panic!("no strategy for {other}"),
    }
}

/// Elements of a collection: where the element type has `dynamic` in it, every dynamic
/// position holds a string (nulls and unknowns there are of that type too, as go-cty
/// makes them), so that the elements share one concrete type.
fn elem(t: &Type) -> BoxedStrategy<Value> {
    arb_value_in(t, true)
}

fn arb_value(ty: &Type) -> BoxedStrategy<Value> {
    arb_value_in(ty, false)
}

fn arb_value_in(ty: &Type, in_collection: bool) -> BoxedStrategy<Value> {
    if in_collection && *ty == Type::Dynamic {
        return prop_oneof![
            Just(Dynamic::new(Type::String, Value::Null).into_value()),
            Just(Dynamic::new(Type::String, Value::Unknown(Refinements::new())).into_value()),
            arb_string().prop_map(|s| Dynamic::new(Type::String, Value::String(s)).into_value()),
        ]
        .boxed();
    }
    let ty2 = ty.clone();
    prop_oneof![
        1 => Just(Value::Null),
        1 => arb_refinements(&ty2).prop_map(Value::Unknown),
        6 => arb_known_in(ty, in_collection),
    ]
    .boxed()
}

fn arb_pair_without_dynamic() -> impl Strategy<Value = (Type, Value)> {
    arb_type(false, true).prop_flat_map(|t| arb_value(&t).prop_map(move |v| (t.clone(), v)))
}

/// The value `bytes` hold, each unknown without its refinements, encoded.
fn made_plain(bytes: &[u8], ty: &Type) -> Vec<u8> {
    fn plain(v: &mut Value) {
        match v {
            Value::Unknown(r) => *r = Refinements::new(),
            Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => xs.iter_mut().for_each(plain),
            Value::Map(m) | Value::Object(m) => m.values_mut().for_each(plain),
            Value::Dynamic(_) => plain(v.unwrap_dynamic_mut()),
            _ => {}
        }
    }
    let mut v = Value::from_msgpack(bytes, ty).unwrap();
    plain(&mut v);
    v.to_msgpack(ty).unwrap()
}

/// Bytes in other forms than the canonical ones (wider integers, an integral float, a
/// string not in NFC or with a wider header, a set out of order whose elements become
/// one once plain): written canonically, as the value would be.
#[test]
fn without_refinements_writes_canonical_bytes() {
    let ty = Type::object([
        ("n", Type::Number),
        ("f", Type::Number),
        ("s", Type::String),
        ("t", Type::String),
        ("u", Type::String),
        ("xs", Type::list(Type::Number)),
    ]);
    let mut bytes = vec![0x86];
    bytes.extend_from_slice(b"\xa1f\xcb\x40\x14\x00\x00\x00\x00\x00\x00"); // 5.0
    bytes.extend_from_slice(b"\xa1n\xcd\x00\x05"); // 5 as uint16
    bytes.extend_from_slice(b"\xa1s\xa3e\xcc\x81"); // e + combining acute
    bytes.extend_from_slice(b"\xa1t\xd9\x02ok"); // str8 header
                                                 // a refined unknown string (not null, prefix "i-")
    let refined = Value::Unknown(Refinements::new().not_null().with_prefix("i-"))
        .to_msgpack(&Type::String)
        .unwrap();
    bytes.extend_from_slice(b"\xa1u");
    bytes.extend_from_slice(&refined);
    bytes.extend_from_slice(b"\xa2xs\xdc\x00\x02\x01\xd0\xff"); // array16, -1 as int8
    let plain = tfvalue::msgpack::without_refinements(&bytes, &ty).unwrap();
    assert_eq!(plain, made_plain(&bytes, &ty));
    assert_eq!(
        plain,
        b"\x86\xa1f\x05\xa1n\x05\xa1s\xa2\xc3\xa9\xa1t\xa2ok\xa1u\xd4\x00\x00\xa2xs\x92\x01\xff"
    );

    // A set of two unknowns that differ only in refinements: one element once plain.
    let set_ty = Type::set(Type::String);
    let two = Value::Set(vec![
        Value::Unknown(Refinements::new().not_null().with_prefix("a")),
        Value::Unknown(Refinements::new().not_null().with_prefix("b")),
    ]);
    let bytes = two.to_msgpack(&set_ty).unwrap();
    let plain = tfvalue::msgpack::without_refinements(&bytes, &set_ty).unwrap();
    assert_eq!(plain, made_plain(&bytes, &set_ty));
    let in_list = Type::list(set_ty.clone());
    let bytes = Value::List(vec![two.clone(), two])
        .to_msgpack(&in_list)
        .unwrap();
    assert_eq!(
        tfvalue::msgpack::without_refinements(&bytes, &in_list).unwrap(),
        made_plain(&bytes, &in_list)
    );
    // Optional attributes left out (the value writes them null): found by the fuzz
    // target `without_refinements`.
    let opt: Type =
        serde_json::from_str(r#"["object",{"é":["object",{"é":"string"},["é"]]},["é"]]"#).unwrap();
    let plain = tfvalue::msgpack::without_refinements(b"\x80", &opt).unwrap();
    assert_eq!(plain, made_plain(b"\x80", &opt));
    assert_eq!(plain, b"\x81\xa2\xc3\xa9\xc0");
    // What the value refuses is refused.
    let err = tfvalue::msgpack::without_refinements(b"\x81\xa1z\x01", &ty).unwrap_err();
    let want = Value::from_msgpack(b"\x81\xa1z\x01", &ty).unwrap_err();
    assert_eq!(err.to_string(), want.to_string());
}

fn arb_pair() -> impl Strategy<Value = (Type, Value)> {
    arb_type(true, true).prop_flat_map(|t| arb_value(&t).prop_map(move |v| (t.clone(), v)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn msgpack_round_trip((ty, value) in arb_pair()) {
        let bytes = value.to_msgpack(&ty).map_err(|e| TestCaseError::fail(format!("encode: {e}")))?;
        let back = Value::from_msgpack(&bytes, &ty).map_err(|e| TestCaseError::fail(format!("decode: {e}")))?;
        prop_assert_eq!(&back, &value);
        let again = back.to_msgpack(&ty).map_err(|e| TestCaseError::fail(format!("re-encode: {e}")))?;
        prop_assert_eq!(again, bytes);
    }

    /// `msgpack::without_refinements` writes as it streams what the value gives made
    /// plain (decoded, each unknown's refinements dropped, encoded): with `dynamic`
    /// positions (the value itself) and without (the stream, sets alone by value).
    #[test]
    fn without_refinements_is_the_value_made_plain(
        (ty, value) in prop_oneof![arb_pair().boxed(), arb_pair_without_dynamic().boxed()],
    ) {
        let bytes = value.to_msgpack(&ty).map_err(|e| TestCaseError::fail(format!("encode: {e}")))?;
        let plain = tfvalue::msgpack::without_refinements(&bytes, &ty)
            .map_err(|e| TestCaseError::fail(format!("strip: {e}")))?;
        prop_assert_eq!(plain, made_plain(&bytes, &ty));
    }

    #[test]
    fn type_json_round_trip(ty in arb_type(true, true)) {
        let text = serde_json::to_string(&ty).unwrap();
        prop_assert_eq!(Type::from_json(text.as_bytes()).unwrap(), ty.clone());
        prop_assert_eq!(ty.to_json(), text);
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in vec(any::<u8>(), 0..64), ty in arb_type(true, true)) {
        let _ = Value::from_msgpack(&bytes, &ty);
    }
}

#[test]
fn set_elements_that_differ_only_in_left_out_optional_attributes_are_one_element() {
    let ty: Type = serde_json::from_str(r#"["set",["object",{"a":"string"},["a"]]]"#).unwrap();
    let with_null = Value::Object([("a".to_string(), Value::Null)].into_iter().collect());
    let left_out = Value::Object(Default::default());
    let v = Value::Set(vec![left_out, with_null.clone()]);
    let bytes = v.to_msgpack(&ty).unwrap();
    assert_eq!(bytes, b"\x91\x81\xa1a\xc0");
    assert_eq!(
        Value::from_msgpack(&bytes, &ty).unwrap(),
        Value::Set(vec![with_null])
    );
    let json = v.to_json(&ty).unwrap();
    assert_eq!(json, br#"[{"a":null}]"#);
}

#[test]
fn nulls_and_unknowns_among_typed_dynamic_elements_take_their_type() {
    // go-cty gives them the collection's element type and writes them as [type, nil]
    let ty = Type::list(Type::Dynamic);
    let v = Value::from_msgpack(b"\x92\xc0\x92\xc4\x08\"string\"\xa1x", &ty).unwrap();
    assert_eq!(v[0].as_dynamic().map(|d| d.ty()), Some(&Type::String));
    assert!(v[0].unwrap_dynamic().is_null());
    assert_eq!(
        v.to_msgpack(&ty).unwrap(),
        b"\x92\x92\xc4\x08\"string\"\xc0\x92\xc4\x08\"string\"\xa1x"
    );
    // built by hand, the same bytes
    let by_hand = Value::List(vec![
        Value::Null,
        Dynamic::new(Type::String, "x".into()).into_value(),
    ]);
    assert_eq!(by_hand.to_msgpack(&ty).unwrap(), v.to_msgpack(&ty).unwrap());
    // with no typed element there is nothing to take
    let ty = Type::map(Type::Dynamic);
    let v = Value::from_msgpack(b"\x81\xa1a\xc0", &ty).unwrap();
    assert!(v["a"].is_null());
    assert_eq!(v.to_msgpack(&ty).unwrap(), b"\x81\xa1a\xc0");
}

// `Value::to_msgpack` and `Value::from_msgpack` take a fast path for what providers
// exchange and hand the rest to the general (serde) path: the two must agree on every
// value and every input, bytes and errors alike.
#[cfg(feature = "conformance")]
proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn fast_paths_agree_with_the_general_paths((ty, value) in arb_pair(), at in any::<usize>(), byte in any::<u8>()) {
        use tfvalue::msgpack::{from_msgpack_general, to_msgpack_general};
        let fast = value.to_msgpack(&ty).map_err(|e| e.to_string());
        let general = to_msgpack_general(&value, &ty).map_err(|e| e.to_string());
        prop_assert_eq!(&fast, &general);
        let json = value.to_json(&ty).map_err(|e| e.to_string());
        prop_assert_eq!(json, tfvalue::json::general_to_json(&value, &ty).map_err(|e| e.to_string()));
        let bytes = general.map_err(TestCaseError::fail)?;
        let mut changed = bytes.clone();
        let i = at % changed.len();
        changed[i] = byte;
        for input in [&bytes, &changed, &bytes[..i].to_vec()] {
            let fast = Value::from_msgpack(input, &ty).map_err(|e| e.to_string());
            let general = from_msgpack_general(input, &ty).map_err(|e| e.to_string());
            prop_assert_eq!(&fast, &general);
            prop_assert_eq!(validated(input, &ty), general.map(|v| summary(&v)));
        }
    }

    #[test]
    fn fast_and_general_decoders_agree_on_any_bytes(bytes in vec(any::<u8>(), 0..64), ty in arb_type(false, true)) {
        let fast = Value::from_msgpack(&bytes, &ty).map_err(|e| e.to_string());
        let general = tfvalue::msgpack::from_msgpack_general(&bytes, &ty).map_err(|e| e.to_string());
        prop_assert_eq!(&fast, &general);
        let full = validated(&bytes, &ty);
        prop_assert_eq!(&full, &general.map(|v| summary(&v)));
        // Without the UTF-8 check of strings: never stricter, the same facts when both pass.
        let structure = tfvalue::msgpack::validate_structure(&bytes, &ty)
            .map(|v| (v.is_wholly_known(), v.has_refinements()));
        if let Ok(facts) = &full {
            prop_assert_eq!(structure.as_ref().ok(), Some(facts));
        }
    }
}

/// Lists and sets of two objects or more take a path of their own in the fast decoder
/// (the attribute types gathered once): it agrees with the general decoder on nulls,
/// unknowns, a misnamed or missing attribute and object types too wide for it, and on
/// every prefix of each input.
#[cfg(feature = "conformance")]
#[test]
fn lists_of_objects_decode_as_the_general_decoder_decodes() {
    use tfvalue::msgpack::from_msgpack_general;
    let narrow = Type::object([("a", Type::String), ("b", Type::Number)]);
    let wide = Type::object((0..40).map(|i| (format!("f{i:02}"), Type::Bool)));
    let obj = |a: &str| -> Vec<u8> {
        let mut b = vec![0x82, 0xa1, b'a', 0xa0 + a.len() as u8];
        b.extend(a.as_bytes());
        b.extend([0xa1, b'b', 0x07]);
        b
    };
    let mut cases: Vec<(Type, Vec<u8>)> = Vec::new();
    for kind in [Type::list as fn(Type) -> Type, Type::set] {
        let ty = kind(narrow.clone());
        let list = |elems: &[Vec<u8>]| {
            let mut b = vec![0x90 + elems.len() as u8];
            for e in elems {
                b.extend(e);
            }
            b
        };
        cases.push((ty.clone(), list(&[obj("x"), obj("y"), obj("x")])));
        cases.push((ty.clone(), list(&[obj("x"), vec![0xc0], obj("z")])));
        cases.push((ty.clone(), list(&[vec![0xd4, 0, 0], obj("x")])));
        let mut misnamed = obj("y");
        misnamed[1] = 0xa1;
        misnamed[2] = b'c';
        cases.push((ty.clone(), list(&[obj("x"), misnamed])));
        cases.push((
            ty.clone(),
            list(&[obj("x"), vec![0x81, 0xa1, b'a', 0xa1, b'q']]),
        ));
        let mut w = vec![0xde, 0, 40];
        for i in 0..40 {
            w.extend([0xa3, b'f', b'0' + i / 10, b'0' + i % 10, 0xc2 + (i % 2)]);
        }
        cases.push((kind(wide.clone()), list(&[w.clone(), w])));
    }
    for (ty, bytes) in &cases {
        for end in 0..=bytes.len() {
            let input = &bytes[..end];
            let fast = Value::from_msgpack(input, ty).map_err(|e| e.to_string());
            let general = from_msgpack_general(input, ty).map_err(|e| e.to_string());
            assert_eq!(fast, general, "{ty:?} {input:x?}");
        }
    }
    // The whole inputs: the well-formed ones decode.
    let ok = cases
        .iter()
        .filter(|(ty, b)| Value::from_msgpack(b, ty).is_ok())
        .count();
    assert_eq!(
        ok, 8,
        "three good lists, a null and an unknown element, the wide type, twice"
    );
}

/// What `msgpack::validate` says of `bytes`: (wholly known, refined), or the error.
#[cfg(feature = "conformance")]
fn validated(bytes: &[u8], ty: &Type) -> Result<(bool, bool), String> {
    tfvalue::msgpack::validate(bytes, ty)
        .map(|v| (v.is_wholly_known(), v.has_refinements()))
        .map_err(|e| e.to_string())
}

/// The same facts, read off a decoded value.
#[cfg(feature = "conformance")]
fn summary(v: &Value) -> (bool, bool) {
    let mut refined = false;
    v.walk(&mut |_, v| refined |= v.as_unknown().is_some_and(|r| !r.is_empty()));
    (v.is_wholly_known(), refined)
}

/// `p` with each unknown replaced by what `o` (another value of the type) holds there.
fn overlay(p: &Value, o: &Value) -> Value {
    match (p, o) {
        (Value::Unknown(_), o) => o.clone(),
        (Value::Object(pm), Value::Object(om)) => Value::Object(
            pm.iter()
                .map(|(k, v)| {
                    (
                        k.to_string(),
                        om.get(k).map_or_else(|| v.clone(), |ov| overlay(v, ov)),
                    )
                })
                .collect(),
        ),
        (Value::Map(pm), Value::Map(om)) => Value::Map(
            pm.iter()
                .map(|(k, v)| {
                    (
                        k.to_string(),
                        om.get(k).map_or_else(|| v.clone(), |ov| overlay(v, ov)),
                    )
                })
                .collect(),
        ),
        (Value::List(pl), Value::List(ol)) => Value::List(
            pl.iter()
                .enumerate()
                .map(|(i, v)| ol.get(i).map_or_else(|| v.clone(), |ov| overlay(v, ov)))
                .collect(),
        ),
        (Value::Tuple(pl), Value::Tuple(ol)) => {
            Value::Tuple(pl.iter().zip(ol).map(|(v, ov)| overlay(v, ov)).collect())
        }
        (Value::Set(_), o) if !p.is_wholly_known() => o.clone(),
        (p, _) => p.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// `msgpack::keeps_plan` never says yes where the full check finds a problem, and says
    /// yes when the applied value is the (wholly known) plan itself.
    #[test]
    fn keeps_plan_is_never_wrong(
        (ty, planned, other) in arb_pair().prop_flat_map(|(t, v)| arb_value(&t).prop_map(move |o| (t.clone(), v.clone(), o)))
    ) {
        let applied = overlay(&planned, &other);
        let (Ok(pb), Ok(ab)) = (planned.to_msgpack(&ty), applied.to_msgpack(&ty)) else {
            return Ok(());
        };
        let keeps = tfvalue::msgpack::keeps_plan(&pb, &ab, &ty, |r, v| r.admits(v));
        if !applied.is_wholly_known() {
            // Not a value a provider may return from apply: never kept.
            prop_assert!(!keeps, "keeps_plan said yes to an applied value with an unknown");
            return Ok(());
        }
        let problems = tfvalue::schema::check_apply(&planned, &applied, &ty);
        if keeps {
            prop_assert!(problems.is_empty(), "keeps_plan said yes, the check found: {}", problems);
            // Yes also says that the applied value is one of its type.
            prop_assert!(tfvalue::msgpack::validate(&ab, &ty).is_ok_and(|v| v.is_wholly_known()));
        }
        if planned.is_wholly_known() && !ty.has_dynamic() {
            prop_assert!(tfvalue::msgpack::keeps_plan(&pb, &pb, &ty, |r, v| r.admits(v)));
        }
    }
}

/// A set as wide as Terraform sends (300 objects, each a container of its own) is kept
/// on its bytes when nothing in it is unknown; one unknown deep in it is found.
#[test]
fn keeps_plan_takes_a_wide_set_whole() {
    let ty: tfvalue::Type =
        serde_json::from_str(r#"["set",["object",{"port":"number"}]]"#).unwrap();
    let rule = |port: tfvalue::Value| tfvalue::Value::Object([("port".to_owned(), port)].into());
    let admits = |_: &tfvalue::Refinements, _: &tfvalue::Value| true;
    let mut rules: Vec<tfvalue::Value> = (0..300).map(|p| rule(tfvalue::Value::from(p))).collect();
    let known = tfvalue::Value::Set(rules.clone()).to_msgpack(&ty).unwrap();
    assert!(tfvalue::msgpack::keeps_plan(&known, &known, &ty, admits));
    rules[299] = rule(tfvalue::Value::Unknown(tfvalue::Refinements::new()));
    let unknown = tfvalue::Value::Set(rules).to_msgpack(&ty).unwrap();
    assert!(!tfvalue::msgpack::keeps_plan(
        &unknown, &unknown, &ty, admits
    ));
}

/// `keeps_plan` checks what the applied value holds where the plan is unknown: invalid
/// UTF-8 or an unknown there is never kept (the server then checks the state in full).
#[test]
fn keeps_plan_checks_what_resolves_an_unknown() {
    let ty: tfvalue::Type =
        serde_json::from_str(r#"["object",{"id":"string","name":"string"}]"#).unwrap();
    let planned = b"\x82\xa2id\xd4\x00\x00\xa4name\xa3web";
    let admits = |_: &tfvalue::Refinements, _: &tfvalue::Value| true;
    assert!(tfvalue::msgpack::keeps_plan(
        planned,
        b"\x82\xa2id\xa3i-1\xa4name\xa3web",
        &ty,
        admits
    ));
    for applied in [
        &b"\x82\xa2id\xa2\xff\xfe\xa4name\xa3web"[..],
        &b"\x82\xa2id\xd4\x00\x00\xa4name\xa3web"[..],
        &b"\x82\xa2id\x05\xa4name\xa3web"[..],
    ] {
        assert!(
            !tfvalue::msgpack::keeps_plan(planned, applied, &ty, admits),
            "{applied:x?}"
        );
    }
}
