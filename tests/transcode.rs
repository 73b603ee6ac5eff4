//! `RawState::transcode` (current-version JSON state straight to MessagePack) against the
//! `Value` path it replaces (`decode_value` then `DynamicValue::encode_value`): the same
//! bytes for every input that decodes, the same error for every input that does not.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use tfvalue::codec::RawState;
use tfvalue::{Dynamic, DynamicValue, Number, ObjectType, Type, Value};

const CASES: u32 = 1000;

// ---------------------------------------------------------------------------------------
// The two paths

/// Both paths on `json`; panics where they disagree, else the bytes (or the error).
fn check(ty: &Type, json: &[u8], ignore: bool) -> Result<Vec<u8>, String> {
    let raw = RawState::from_json(json.to_vec());
    let new = raw.transcode(ty, ignore);
    let old = raw
        .decode_value(ty, ignore)
        .and_then(|v| DynamicValue::encode_value(&v, ty));
    match (new, old) {
        (Ok(a), Ok(b)) => {
            assert_eq!(
                a.msgpack,
                b.msgpack,
                "bytes differ for {ty} / {}",
                String::from_utf8_lossy(json)
            );
            assert!(a.json.is_empty());
            Ok(a.msgpack)
        }
        (Err(a), Err(b)) => {
            assert_eq!(
                a.to_string(),
                b.to_string(),
                "errors differ for {ty} / {}",
                String::from_utf8_lossy(json)
            );
            assert_eq!(a.category(), b.category());
            Err(a.to_string())
        }
        (a, b) => panic!(
            "paths disagree for {ty} / {}: transcode {:?}, value path {:?}",
            String::from_utf8_lossy(json),
            a.map(|d| d.msgpack),
            b.map(|d| d.msgpack)
        ),
    }
}

fn ty(s: &str) -> Type {
    s.parse().unwrap()
}

// ---------------------------------------------------------------------------------------
// A JSON tree of raw tokens, to reorder keys and break inputs

#[derive(Clone, Debug)]
enum J {
    /// A scalar's text as written (string literal with its quotes, number, literal).
    Raw(String),
    Arr(Vec<J>),
    /// Key literals (with quotes) and values.
    Obj(Vec<(String, J)>),
}

fn parse(text: &str) -> J {
    let b = text.as_bytes();
    let mut i = 0;
    let j = parse_at(b, &mut i);
    assert_eq!(i, b.len(), "left over in {text}");
    j
}

fn parse_string(b: &[u8], i: &mut usize) -> String {
    let start = *i;
    assert_eq!(b[*i], b'"');
    *i += 1;
    while b[*i] != b'"' {
        if b[*i] == b'\\' {
            *i += 1;
        }
        *i += 1;
    }
    *i += 1;
    String::from_utf8(b[start..*i].to_vec()).unwrap()
}

fn parse_at(b: &[u8], i: &mut usize) -> J {
    match b[*i] {
        b'[' => {
            *i += 1;
            let mut v = Vec::new();
            if b[*i] == b']' {
                *i += 1;
                return J::Arr(v);
            }
            loop {
                v.push(parse_at(b, i));
                let c = b[*i];
                *i += 1;
                if c == b']' {
                    return J::Arr(v);
                }
                assert_eq!(c, b',');
            }
        }
        b'{' => {
            *i += 1;
            let mut v = Vec::new();
            if b[*i] == b'}' {
                *i += 1;
                return J::Obj(v);
            }
            loop {
                let k = parse_string(b, i);
                assert_eq!(b[*i], b':');
                *i += 1;
                v.push((k, parse_at(b, i)));
                let c = b[*i];
                *i += 1;
                if c == b'}' {
                    return J::Obj(v);
                }
                assert_eq!(c, b',');
            }
        }
        b'"' => J::Raw(parse_string(b, i)),
        _ => {
            let start = *i;
            while *i < b.len() && !matches!(b[*i], b',' | b']' | b'}') {
                *i += 1;
            }
            J::Raw(String::from_utf8(b[start..*i].to_vec()).unwrap())
        }
    }
}

fn write(j: &J, out: &mut String) {
    match j {
        J::Raw(s) => out.push_str(s),
        J::Arr(v) => {
            out.push('[');
            for (n, e) in v.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write(e, out);
            }
            out.push(']');
        }
        J::Obj(v) => {
            out.push('{');
            for (n, (k, e)) in v.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(k);
                out.push(':');
                write(e, out);
            }
            out.push('}');
        }
    }
}

fn text(j: &J) -> String {
    let mut s = String::new();
    write(j, &mut s);
    s
}

/// Reorders the keys of every object: reversed, rotated, or left, by `seed`'s bits.
fn shuffle(j: &mut J, seed: &mut u64) {
    let mut next = || {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    };
    match j {
        J::Raw(_) => {}
        J::Arr(v) => v.iter_mut().for_each(|e| shuffle(e, seed)),
        J::Obj(v) => {
            match next() % 4 {
                0 => {}
                1 => v.reverse(),
                _ => {
                    if !v.is_empty() {
                        let k = (next() as usize) % v.len();
                        v.rotate_left(k);
                    }
                }
            }
            v.iter_mut().for_each(|(_, e)| shuffle(e, seed));
        }
    }
}

/// The paths to every node, as indexes into arrays and objects.
fn nodes(j: &J, at: &mut Vec<usize>, all: &mut Vec<Vec<usize>>) {
    all.push(at.clone());
    match j {
        J::Raw(_) => {}
        J::Arr(v) => {
            for (n, e) in v.iter().enumerate() {
                at.push(n);
                nodes(e, at, all);
                at.pop();
            }
        }
        J::Obj(v) => {
            for (n, (_, e)) in v.iter().enumerate() {
                at.push(n);
                nodes(e, at, all);
                at.pop();
            }
        }
    }
}

fn node_mut<'a>(j: &'a mut J, at: &[usize]) -> &'a mut J {
    match at.split_first() {
        None => j,
        Some((n, rest)) => match j {
            J::Arr(v) => node_mut(&mut v[*n], rest),
            J::Obj(v) => node_mut(&mut v[*n].1, rest),
            J::Raw(_) => unreachable!(),
        },
    }
}

/// One way of breaking (or bending) an input.
#[derive(Clone, Copy, Debug)]
enum Mutation {
    /// A value of another kind in place of a node.
    Replace(&'static str),
    /// An object loses an entry (a missing attribute is null in JSON state).
    DropEntry,
    /// An object gains an attribute no type declares.
    Undeclared,
    /// An object's first key again, with the same value.
    Duplicate,
    /// An object's first key again, NFD-spelled when it has a composed character.
    NfdTwin,
    Trailing(&'static str),
    Truncate,
}

fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::Replace("{}")),
        Just(Mutation::Replace("[]")),
        Just(Mutation::Replace("[1,2]")),
        Just(Mutation::Replace("\"x\"")),
        Just(Mutation::Replace("\"12\"")),
        Just(Mutation::Replace("1.5")),
        Just(Mutation::Replace("true")),
        Just(Mutation::Replace("null")),
        Just(Mutation::Replace(r#"{"type":"string","value":"s"}"#)),
        Just(Mutation::Replace(
            r#"{"value":[1],"type":["list","number"]}"#
        )),
        Just(Mutation::Replace(r#"{"a":1,"b":"x"}"#)),
        Just(Mutation::DropEntry),
        Just(Mutation::Undeclared),
        Just(Mutation::Duplicate),
        Just(Mutation::NfdTwin),
        Just(Mutation::Trailing(" ")),
        Just(Mutation::Trailing(" x")),
        Just(Mutation::Trailing("{}")),
        Just(Mutation::Truncate),
    ]
}

fn mutate(j: &J, m: Mutation, pick: usize) -> String {
    let mut j = j.clone();
    let mut all = Vec::new();
    nodes(&j, &mut Vec::new(), &mut all);
    let objects: Vec<Vec<usize>> = all
        .iter()
        .filter(|p| matches!(node_mut(&mut j, p), J::Obj(_)))
        .cloned()
        .collect();
    let at = &all[pick % all.len()];
    match m {
        Mutation::Replace(s) => *node_mut(&mut j, at) = J::Raw(s.to_string()),
        Mutation::Trailing(s) => return text(&j) + s,
        Mutation::Truncate => {
            let t = text(&j);
            let mut cut = pick % t.len().max(1);
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            return t[..cut].to_string();
        }
        Mutation::DropEntry | Mutation::Undeclared | Mutation::Duplicate | Mutation::NfdTwin => {
            if objects.is_empty() {
                return text(&j) + "]";
            }
            let J::Obj(v) = node_mut(&mut j, &objects[pick % objects.len()]) else {
                unreachable!()
            };
            match m {
                Mutation::DropEntry if !v.is_empty() => {
                    v.remove(pick % v.len());
                }
                Mutation::Undeclared => v.insert(
                    pick % (v.len() + 1),
                    ("\"zz_extra\"".into(), J::Raw("1".into())),
                ),
                Mutation::Duplicate if !v.is_empty() => {
                    let e = v[0].clone();
                    v.push(e);
                }
                Mutation::NfdTwin if !v.is_empty() => {
                    let (k, e) = v[0].clone();
                    use unicode_normalization::UnicodeNormalization;
                    v.push((k.nfd().collect(), e));
                }
                _ => {}
            }
        }
    }
    text(&j)
}

// ---------------------------------------------------------------------------------------
// Generators (as in tests/roundtrip_json.rs)

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
        Just("1e400".parse::<Number>().unwrap()),
    ]
}

fn arb_name() -> impl Strategy<Value = String> {
    prop_oneof![4 => "[a-z_]{1,6}", 1 => "\\PC{1,4}".prop_map(|s: String| tfvalue::text::normalize(&s).into_owned())]
}

/// Strings, with composed and decomposed accents now and then.
fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![4 => "\\PC{0,12}", 1 => "(e\u{301}|\u{e9}|a|\u{212b}|A\u{30a}){0,4}"]
}

fn arb_type() -> BoxedStrategy<Type> {
    prop_oneof![6 => arb_type_at(4, true), 1 => Just(Type::Dynamic)].boxed()
}

/// Types with `dynamic` in object attributes and tuple elements, and now and then in a
/// collection too.
fn arb_type_at(depth: u32, dynamic: bool) -> BoxedStrategy<Type> {
    let leaf = prop_oneof![Just(Type::String), Just(Type::Number), Just(Type::Bool)].boxed();
    if depth == 0 {
        return leaf;
    }
    let elem = prop_oneof![
        12 => arb_type_at(depth - 1, false),
        1 => Just(Type::Dynamic)
    ]
    .boxed();
    let member = if dynamic {
        prop_oneof![3 => arb_type_at(depth - 1, true), 1 => Just(Type::Dynamic)].boxed()
    } else {
        arb_type_at(depth - 1, false)
    };
    prop_oneof![
        2 => leaf,
        2 => elem.clone().prop_map(Type::list),
        1 => elem.clone().prop_map(Type::set),
        2 => elem.prop_map(Type::map),
        3 => (prop::collection::btree_map(arb_name(), member.clone(), 0..6), any::<u8>()).prop_map(|(attrs, mask)| {
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

/// A wholly-known value of `ty` (nulls included). A collection of `dynamic` holds values
/// of one type.
fn arb_value(ty: &Type) -> BoxedStrategy<Value> {
    match ty {
        Type::String => nullable(arb_string().prop_map(Value::String).boxed()),
        Type::Number => nullable(arb_number().prop_map(Value::Number).boxed()),
        Type::Bool => nullable(any::<bool>().prop_map(Value::Bool).boxed()),
        Type::List(t) | Type::Set(t) | Type::Map(t) if **t == Type::Dynamic => {
            let kind = ty.clone();
            nullable(
                arb_type_at(2, false)
                    .prop_flat_map(move |inner| {
                        let kind = kind.clone();
                        prop::collection::vec(arb_value(&inner), 0..4).prop_map(move |vs| {
                            let vs: Vec<Value> = vs
                                .into_iter()
                                .map(|v| Dynamic::new(inner.clone(), v).into_value())
                                .collect();
                            match kind {
                                Type::List(_) => Value::List(vs),
                                Type::Set(_) => Value::Set(vs),
                                _ => Value::Map(
                                    vs.into_iter()
                                        .enumerate()
                                        .map(|(i, v)| (format!("k{i}"), v))
                                        .collect(),
                                ),
                            }
                        })
                    })
                    .boxed(),
            )
        }
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
            prop::collection::btree_map(
                prop_oneof![4 => "[a-z]{1,3}", 1 => "(e\u{301}|\u{e9}|z){1,2}"],
                arb_value(t),
                0..5,
            )
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
        Type::Dynamic => nullable(
            arb_type_at(3, true)
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

    /// Whatever the key order, the bytes are the `Value` path's (and, for JSON written
    /// from a value, they decode: a map whose keys collide in NFC is the one exception,
    /// and then both fail alike).
    #[test]
    fn same_bytes_any_key_order((ty, v) in arb_type_value(), seed in any::<u64>(), ignore in any::<bool>()) {
        let Ok(js) = v.to_json(&ty) else { return Ok(()) };
        let mut j = parse(std::str::from_utf8(&js).unwrap());
        check(&ty, &js, ignore).ok();
        let mut seed = seed;
        shuffle(&mut j, &mut seed);
        let shuffled = text(&j);
        check(&ty, shuffled.as_bytes(), ignore).ok();
    }

    /// Broken and bent inputs: the same bytes or the same error.
    #[test]
    fn same_errors((ty, v) in arb_type_value(), m in arb_mutation(), pick in any::<usize>(), seed in any::<u64>(), ignore in any::<bool>()) {
        let Ok(js) = v.to_json(&ty) else { return Ok(()) };
        let mut j = parse(std::str::from_utf8(&js).unwrap());
        let mut seed = seed;
        shuffle(&mut j, &mut seed);
        let broken = mutate(&j, m, pick);
        check(&ty, broken.as_bytes(), ignore).ok();
    }

    /// Arbitrary bytes against arbitrary types: no panic, and the paths agree.
    #[test]
    fn garbage(ty in arb_type(), bytes in prop::collection::vec(prop_oneof![
        Just(b'{'), Just(b'}'), Just(b'['), Just(b']'), Just(b','), Just(b':'), Just(b'"'),
        Just(b'1'), Just(b'a'), Just(b'n'), Just(b' '), any::<u8>()], 0..40)) {
        check(&ty, &bytes, false).ok();
        check(&ty, &bytes, true).ok();
    }
}

// ---------------------------------------------------------------------------------------
// Targeted cases

#[test]
fn doc_example() {
    let t = ty(r#"["object",{"name":"string","size":"number"}]"#);
    let out = check(&t, br#"{"size":2,"name":"web","gone":true}"#, true).unwrap();
    assert_eq!(out, b"\x82\xa4name\xa3web\xa4size\x02");
}

#[test]
fn out_of_order_keys() {
    let t = ty(
        r#"["object",{"a":"string","b":["object",{"x":"number","y":"bool"}],"c":["list","string"],"d":"number"}]"#,
    );
    let sorted = check(
        &t,
        br#"{"a":"1","b":{"x":1,"y":true},"c":["p"],"d":4}"#,
        false,
    )
    .unwrap();
    for json in [
        &br#"{"d":4,"c":["p"],"b":{"y":true,"x":1},"a":"1"}"#[..],
        br#"{"b":{"x":1,"y":true},"a":"1","d":4,"c":["p"]}"#,
        br#"{"a":"1","d":4,"b":{"y":true,"x":1},"c":["p"]}"#,
        br#"{"c":["p"],"a":"1","b":{"x":1,"y":true},"d":4}"#,
    ] {
        assert_eq!(check(&t, json, false).unwrap(), sorted);
    }
    // left out, in and out of order
    let partial = check(&t, br#"{"d":4,"a":"1"}"#, false).unwrap();
    assert_eq!(partial, check(&t, br#"{"a":"1","d":4}"#, false).unwrap());
    assert_eq!(
        partial,
        check(&t, br#"{"a":"1","b":null,"c":null,"d":4}"#, false).unwrap()
    );
}

#[test]
fn undeclared_ignored_or_rejected() {
    let t = ty(r#"["object",{"a":"string","c":"number"}]"#);
    let json = br#"{"b":{"deep":[1,2,{"x":null}]},"a":"s","zz":1,"c":2}"#;
    let kept = check(&t, json, true).unwrap();
    assert_eq!(kept, check(&t, br#"{"a":"s","c":2}"#, false).unwrap());
    let err = check(&t, json, false).unwrap_err();
    assert!(err.contains("unsupported attribute `b`"), "{err}");
    // nested: the path names the attribute
    let t = ty(r#"["object",{"rule":["list",["object",{"port":"number"}]]}]"#);
    let err = check(
        &t,
        br#"{"rule":[{"port":1},{"port":2},{"port":3,"old":1}]}"#,
        false,
    )
    .unwrap_err();
    assert!(err.contains("unsupported attribute `old`"), "{err}");
    assert!(err.contains("rule[2]"), "{err}");
}

#[test]
fn missing_optional_and_required() {
    let t = Type::object([("a", Type::String), ("b", Type::Number), ("c", Type::Bool)])
        .with_optional(["b"]);
    let out = check(&t, br#"{"c":true}"#, false).unwrap();
    assert_eq!(out, b"\x83\xa1a\xc0\xa1b\xc0\xa1c\xc3");
    let out = check(&t, br#"{}"#, false).unwrap();
    assert_eq!(out, b"\x83\xa1a\xc0\xa1b\xc0\xa1c\xc0");
    check(&t, b"null", false).unwrap();
}

#[test]
fn duplicates() {
    let t = ty(r#"["object",{"a":"string","b":"string"}]"#);
    check(&t, br#"{"a":"x","a":"y"}"#, false).unwrap_err();
    check(&t, br#"{"b":"x","a":"y","b":"z"}"#, false).unwrap_err();
    let m = ty(r#"["map","string"]"#);
    let err = check(&m, br#"{"k":"x","j":"z","k":"y"}"#, false).unwrap_err();
    assert!(err.contains("duplicate key"), "{err}");
}

#[test]
fn wrong_kinds_with_paths() {
    let t =
        ty(r#"["object",{"tags":["map","string"],"rule":["list",["object",{"port":"number"}]]}]"#);
    let err = check(&t, br#"{"tags":{"env":[1]},"rule":[]}"#, false).unwrap_err();
    assert!(err.contains(r#"tags["env"]"#), "{err}");
    let err = check(
        &t,
        br#"{"rule":[{"port":1},{"port":2},{"port":"big"}]}"#,
        false,
    )
    .unwrap_err();
    assert!(err.contains("rule[2].port"), "{err}");
    check(&t, br#"[]"#, false).unwrap_err();
    check(&t, br#"{"rule":{}}"#, false).unwrap_err();
    check(&t, br#"{"rule":[]} x"#, false).unwrap_err();
    check(&t, br#"{"rule":[]"#, false).unwrap_err();
    check(&t, b"", false).unwrap_err();
    check(&t, b"\xff", false).unwrap_err();
}

#[test]
fn sets_of_objects() {
    let t = ty(r#"["object",{"s":["set",["object",{"n":"number","o":"string"}]],"x":"string"}]"#);
    let a = check(
        &t,
        br#"{"s":[{"n":2,"o":"b"},{"n":1},{"o":"a","n":2},{"n":1,"o":null}],"x":"x"}"#,
        false,
    )
    .unwrap();
    let b = check(
        &t,
        br#"{"x":"x","s":[{"n":1},{"n":2,"o":"a"},{"n":2,"o":"b"}]}"#,
        false,
    )
    .unwrap();
    assert_eq!(a, b);
}

#[test]
fn dynamic_attributes() {
    let t = ty(r#"["object",{"d":"dynamic","l":["list","dynamic"],"n":"string"}]"#);
    let a = check(
        &t,
        br#"{"n":"x","l":[{"value":1,"type":"number"},{"type":"number","value":null}],"d":{"value":{"k":[1]},"type":["object",{"k":["list","number"]}]}}"#,
        false,
    )
    .unwrap();
    let b = check(
        &t,
        br#"{"d":{"type":["object",{"k":["list","number"]}],"value":{"k":[1]}},"l":[{"type":"number","value":1},{"type":"number","value":null}],"n":"x"}"#,
        false,
    )
    .unwrap();
    assert_eq!(a, b);
    // elements of a list of dynamic that disagree on their type
    check(
        &t,
        br#"{"l":[{"value":1,"type":"number"},{"type":"string","value":"s"}]}"#,
        false,
    )
    .unwrap_err();
    check(&Type::Dynamic, br#"{"type":"string"}"#, false).unwrap_err();
}

#[test]
fn nfc_keys() {
    let m = ty(r#"["map","number"]"#);
    // "é" composed and decomposed: one key after NFC
    check(&m, "{\"e\u{301}\":1,\"\u{e9}\":2}".as_bytes(), false).unwrap_err();
    check(&m, "{\"\u{e9}\":2,\"e\u{301}\":1}".as_bytes(), false).unwrap_err();
    // NFC changes the order: "Å" (U+212B, NFC U+00C5) sorts after "Z" either way, "e\u{301}" after "f"
    let a = check(
        &m,
        "{\"\u{212b}\":1,\"Z\":2,\"e\u{301}\":3,\"f\":4}".as_bytes(),
        false,
    )
    .unwrap();
    let b = check(
        &m,
        "{\"Z\":2,\"f\":4,\"\u{e9}\":3,\"\u{c5}\":1}".as_bytes(),
        false,
    )
    .unwrap();
    assert_eq!(a, b);
    // strings are written in NFC
    let s = check(&Type::String, "\"e\u{301}\"".as_bytes(), false).unwrap();
    assert_eq!(s, b"\xa2\xc3\xa9");
}

#[test]
fn numbers() {
    let n = Type::Number;
    assert_eq!(check(&n, b"1", false).unwrap(), b"\x01");
    assert_eq!(check(&n, b"-1", false).unwrap(), b"\xff");
    assert_eq!(check(&n, b"\"1\"", false).unwrap(), b"\x01");
    assert_eq!(
        check(&n, b"1.5", false).unwrap(),
        b"\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00"
    );
    let big = check(&n, b"12345678901234567890123", false).unwrap();
    assert_eq!(big, b"\xb712345678901234567890123");
    for text in [
        "0",
        "-0",
        "0.1",
        "1e3",
        "1E400",
        "-1e-400",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678",
        "1.50",
        "\"-Inf\"",
        "\"1e3\"",
        "\"x\"",
        "true",
        "[1]",
        "{}",
        "01",
        "1.",
        "-",
    ] {
        check(&n, text.as_bytes(), false).ok();
        let t = ty(r#"["list","number"]"#);
        check(&t, format!("[{text},{text}]").as_bytes(), false).ok();
    }
    // strings from numbers and bools, bools from strings
    assert_eq!(check(&Type::String, b"1e3", false).unwrap(), b"\xa31e3");
    assert_eq!(check(&Type::String, b"true", false).unwrap(), b"\xa4true");
    assert_eq!(check(&Type::Bool, b"\"1\"", false).unwrap(), b"\xc3");
    check(&Type::Bool, b"\"yes\"", false).unwrap_err();
}

#[test]
fn tuples() {
    let t = ty(r#"["tuple",["string","number",["object",{"a":"bool"}]]]"#);
    check(&t, br#"["a",1,{"a":true}]"#, false).unwrap();
    check(&t, br#"["a",1]"#, false).unwrap_err();
    check(&t, br#"["a",1,{"a":true},4]"#, false).unwrap_err();
    check(&t, br#"null"#, false).unwrap();
}

#[test]
fn long_collections() {
    // headers of every size: fix, 16 and 32 bits
    let t = ty(r#"["map",["list","number"]]"#);
    for n in [0usize, 15, 16, 255, 256, 65535, 65536] {
        let mut js = String::from("{");
        for i in (0..n).rev() {
            if i + 1 != n {
                js.push(',');
            }
            js.push_str(&format!("\"k{i:06}\":[{i}]"));
        }
        js.push('}');
        check(&t, js.as_bytes(), false).unwrap();
    }
    let mut attrs = BTreeMap::new();
    for i in 0..300 {
        attrs.insert(format!("a{i:03}"), Type::Number);
    }
    let t = Type::Object(ObjectType::new(attrs));
    let mut js = String::from("{");
    for i in (0..300).rev().step_by(2) {
        js.push_str(&format!("\"a{i:03}\":{i},"));
    }
    js.pop();
    js.push('}');
    check(&t, js.as_bytes(), false).unwrap();
}

fn nested_list(levels: usize, inner: Type) -> Type {
    (0..levels).fold(inner, |t, _| Type::list(t))
}

#[test]
fn deep_nesting() {
    // far deeper than the limit: an error, not a stack overflow
    let t = nested_list(200, Type::String);
    let js = "[".repeat(100_000);
    let err = check(&t, js.as_bytes(), false).unwrap_err();
    assert!(
        err.contains("nesting is deeper than the limit of 128"),
        "{err}"
    );
    check(&Type::Dynamic, js.as_bytes(), false).unwrap_err();
    let deep_dyn = format!(
        r#"{{"type":{},"value":{}}}"#,
        "[\"list\",".repeat(300) + "\"string\"" + &"]".repeat(300),
        js
    );
    check(&Type::Dynamic, deep_dyn.as_bytes(), false).unwrap_err();
    let t = nested_list(60, Type::Dynamic);
    let deep_dyn = format!("{}{deep_dyn}", "[".repeat(60));
    let err = check(&t, deep_dyn.as_bytes(), false).unwrap_err();
    assert!(err.contains("limit"), "{err}");
    // around the limit, with streamed levels and a set (a Value subtree) at the bottom
    for levels in 124..=130 {
        for inner in [
            Type::String,
            Type::set(Type::String),
            Type::set(Type::list(Type::String)),
            Type::Dynamic,
        ] {
            let t = nested_list(levels, inner.clone());
            for extra in 0..3 {
                let js = format!(
                    "{}{}{}",
                    "[".repeat(levels + extra),
                    if extra == 0 { "\"s\"" } else { "" },
                    "]".repeat(levels + extra)
                );
                check(&t, js.as_bytes(), false).ok();
            }
            let js = format!(
                "{}{{\"type\":[\"list\",\"string\"],\"value\":[\"s\"]}}{}",
                "[".repeat(levels),
                "]".repeat(levels)
            );
            check(&t, js.as_bytes(), false).ok();
        }
    }
}

#[test]
fn flatmap_unchanged() {
    let t = ty(r#"["object",{"name":"string","tags":["map","string"]}]"#);
    let raw = RawState::from_flatmap(BTreeMap::from([
        ("name".to_string(), "web".to_string()),
        ("tags.%".to_string(), "1".to_string()),
        ("tags.env".to_string(), "prod".to_string()),
    ]));
    let v = raw.decode_value(&t, true).unwrap();
    assert_eq!(
        raw.transcode(&t, true).unwrap(),
        DynamicValue::encode_value(&v, &t).unwrap()
    );
    assert!(RawState::default().transcode(&t, true).is_err());
}

// ---------------------------------------------------------------------------------------
// State as Terraform stores it, small and large (timings are in benches/json.rs).

/// A resource state as Terraform stores it: attributes sorted, nulls written.
fn sample_state(blocks: usize, with_set: bool) -> (Type, String) {
    let mut attrs: Vec<(String, Type)> = Vec::new();
    for i in 0..12 {
        attrs.push((format!("s{i:02}"), Type::String));
    }
    for i in 0..6 {
        attrs.push((format!("n{i:02}"), Type::Number));
    }
    for i in 0..4 {
        attrs.push((format!("b{i:02}"), Type::Bool));
    }
    attrs.push(("tags".into(), Type::map(Type::String)));
    let rule = Type::object([
        ("cidr", Type::String),
        ("from_port", Type::Number),
        ("to_port", Type::Number),
        ("protocol", Type::String),
        ("enabled", Type::Bool),
        ("description", Type::String),
    ]);
    attrs.push(("rule".into(), Type::list(rule)));
    if with_set {
        attrs.push(("zones".into(), Type::set(Type::String)));
    }
    attrs.push((
        "timeouts".into(),
        Type::object([("create", Type::String), ("delete", Type::String)]),
    ));
    let ty = Type::object(attrs);
    let mut v = serde_json::Map::new();
    for i in 0..12 {
        v.insert(
            format!("s{i:02}"),
            format!("value-{i}-arn:aws:ec2:eu-west-1:123456789012").into(),
        );
    }
    for i in 0..6 {
        v.insert(format!("n{i:02}"), (i * 1000 + 7).into());
    }
    for i in 0..4 {
        v.insert(format!("b{i:02}"), (i % 2 == 0).into());
    }
    let tags: serde_json::Map<String, serde_json::Value> = (0..10)
        .map(|i| (format!("tag-{i:02}"), format!("v{i}").into()))
        .collect();
    v.insert("tags".into(), tags.into());
    let rules: Vec<serde_json::Value> = (0..blocks)
        .map(|i| {
            serde_json::json!({"cidr": format!("10.0.{}.0/24", i % 256), "from_port": i, "to_port": i + 10,
                "protocol": "tcp", "enabled": true, "description": null})
        })
        .collect();
    v.insert("rule".into(), rules.into());
    if with_set {
        v.insert(
            "zones".into(),
            serde_json::json!(["eu-west-1c", "eu-west-1a", "eu-west-1b"]),
        );
    }
    v.insert("timeouts".into(), serde_json::Value::Null);
    (
        ty,
        serde_json::to_string(&serde_json::Value::Object(v)).unwrap(),
    )
}

#[test]
fn stored_resource_states_transcode_as_the_value_path_does() {
    for (blocks, with_set) in [(5, false), (5, true), (1000, false)] {
        let (ty, js) = sample_state(blocks, with_set);
        let raw = RawState::from_json(js.into_bytes());
        let old = DynamicValue::encode_value(&raw.decode_value(&ty, true).unwrap(), &ty).unwrap();
        assert_eq!(raw.transcode(&ty, true).unwrap(), old, "{blocks} blocks");
    }
}

/// Numbers where a string belongs are read as their text; one whose exponent serde_json
/// cannot hold (found by fuzzing `fuzz/fuzz_targets/fast_paths.rs`) is decided by the
/// `Value` path, so both paths say the same.
#[test]
fn numbers_in_string_positions_agree_with_the_value_path() {
    let t = Type::String;
    for text in [
        "1",
        "-0",
        "1.50",
        "1e3",
        "2222E2222222222223222222\r",
        "1E400",
        "1e2147483647",
        "1e2147483648",
        "1e-00002147483648",
        "0e99999999999",
    ] {
        let raw = RawState::from_json(text.as_bytes().to_vec());
        let old = raw
            .decode_value(&t, false)
            .and_then(|v| DynamicValue::encode_value(&v, &t))
            .map_err(|e| e.to_string());
        let new = raw.transcode(&t, false).map_err(|e| e.to_string());
        assert_eq!(new, old, "{text:?}");
    }
}
