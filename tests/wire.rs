//! The decoders and encoders `#[derive(TfValue)]` writes for models (`msgpack::wire`,
//! used by `DynamicValue::decode_model` and `encode_model`, the versioning codec and the
//! framework) against serde's derived `Deserialize` and `Serialize` over the same decoder
//! and encoder: on any bytes, the same value or the same error (message, attribute path,
//! offset); for any model, the same bytes or the same error.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use tfvalue::msgpack::Deserializer;
use tfvalue::{Dynamic, DynamicValue, Number, TfModel, TfValue, Unknown};

/// A string enum: no decoder of tfvalue's, so its fields fall back to serde.
#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename_all = "snake_case")]
enum Tier {
    Standard,
    HighIo,
}

#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rule {
    name: Unknown<String>,
    #[tfvalue(optional)]
    port: Unknown<Option<u16>>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Model {
    key: String,
    #[tfvalue(optional)]
    value: Unknown<Option<String>>,
    #[tfvalue(optional)]
    on: Unknown<Option<bool>>,
    #[tfvalue(optional)]
    count: Option<u64>,
    #[tfvalue(optional)]
    delta: Unknown<Option<i64>>,
    #[tfvalue(optional)]
    ratio: Option<f64>,
    #[tfvalue(optional)]
    size: Unknown<Option<Number>>,
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
    #[tfvalue(optional)]
    names: Option<Vec<String>>,
    #[tfvalue(block)]
    rule: Unknown<Vec<Rule>>,
    #[tfvalue(optional)]
    meta: Dynamic,
    #[tfvalue(optional)]
    tier: Unknown<Option<Tier>>,
    #[tfvalue(optional)]
    r#type: Option<String>,
}

/// With a serde attribute: the derive writes no decoder, `decode_model` uses serde.
#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
struct Renamed {
    #[serde(rename = "name")]
    label: String,
}

/// No attributes at all (an action without configuration, say).
#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
struct Empty {}

#[test]
fn a_model_without_attributes() {
    let dv = DynamicValue::encode_model(&Empty {}).unwrap();
    assert_eq!(dv.msgpack, [0x80]);
    assert_eq!(dv.decode_model::<Empty>().unwrap(), Empty {});
    let (wire, serde) = both::<Empty>(&map_of(&[(str_("x"), vec![0xc0])]), 128, false);
    assert_eq!(wire, serde);
}

fn wire_is_written<T: tfvalue::__private::WireDecode + tfvalue::__private::WireEncode>() {}

#[test]
fn models_without_serde_attributes_get_a_decoder() {
    wire_is_written::<Model>();
    wire_is_written::<Rule>();
    wire_is_written::<Option<Vec<Rule>>>();
}

/// What a decode came to, comparable.
#[derive(Debug, PartialEq)]
enum Outcome<T> {
    Ok(T),
    Err {
        message: String,
        path: String,
        offset: Option<u64>,
        category: tfvalue::Category,
    },
}

fn outcome<T>(r: tfvalue::Result<T>) -> Outcome<T> {
    match r {
        Ok(v) => Outcome::Ok(v),
        Err(e) => Outcome::Err {
            message: e.message().to_owned(),
            path: e.path().to_string(),
            offset: e.offset(),
            category: e.category(),
        },
    }
}

/// Both decoders over `bytes`, with the same settings, read to the end.
fn both<M>(bytes: &[u8], depth: usize, ignore: bool) -> (Outcome<M>, Outcome<M>)
where
    M: TfModel + for<'de> Deserialize<'de>,
{
    let run = |wire: bool| {
        let mut de = Deserializer::from_slice(bytes)
            .max_depth(depth)
            .ignore_undeclared_attributes(ignore);
        let v = if wire {
            M::__wire_decode(&mut de)
        } else {
            M::deserialize(&mut de)
        };
        outcome(v.and_then(|v| de.end().map(|()| v)))
    };
    (run(true), run(false))
}

fn model_and_nulls(bytes: &[u8]) -> (Outcome<Option<Model>>, Outcome<Option<Model>>) {
    (
        outcome(tfvalue::__private::model_from_msgpack::<Model>(bytes)),
        outcome(tfvalue::msgpack::from_slice::<Option<Model>>(bytes)),
    )
}

// MessagePack pieces.
fn str_(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    if s.len() < 32 {
        out.push(0xa0 | s.len() as u8);
    } else {
        out.push(0xd9);
        out.push(s.len() as u8);
    }
    out.extend_from_slice(s.as_bytes());
    out
}

fn map_of(entries: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![0x80 | entries.len() as u8];
    for (k, v) in entries {
        out.extend_from_slice(k);
        out.extend_from_slice(v);
    }
    out
}

fn array_of(items: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![0x90 | items.len() as u8];
    for i in items {
        out.extend_from_slice(i);
    }
    out
}

const KEYS: &[&str] = &[
    "key", "value", "on", "count", "delta", "ratio", "size", "tags", "names", "rule", "meta",
    "tier", "type", "name", "port", "extra", "",
];

/// Unknowns: plain, refined (not null, a prefix, bounds), definitely null, malformed.
const UNKNOWNS: &[&[u8]] = &[
    &[0xd4, 0x00, 0x00],
    &[0xc7, 0x03, 0x0c, 0x81, 0x01, 0xc2],
    &[0xc7, 0x03, 0x0c, 0x81, 0x01, 0xc3],
    &[0xc7, 0x06, 0x0c, 0x82, 0x01, 0xc2, 0x02, 0xa1, b'k'],
    &[0xc7, 0x05, 0x0c, 0x81, 0x03, 0x91, 0x05],
    &[0xc7, 0x02, 0x0c, 0x81, 0x01],
    &[0xd4, 0x05, 0x00],
    &[0xc7, 0x01, 0x0c, 0xc1],
];

fn leaf() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(vec![0xc0]),
        any::<bool>().prop_map(|b| vec![if b { 0xc3 } else { 0xc2 }]),
        (0u8..0x80).prop_map(|n| vec![n]),
        any::<i64>().prop_map(|n| {
            let mut v = vec![0xd3];
            v.extend_from_slice(&n.to_be_bytes());
            v
        }),
        any::<u64>().prop_map(|n| {
            let mut v = vec![0xcf];
            v.extend_from_slice(&n.to_be_bytes());
            v
        }),
        any::<f64>().prop_map(|f| {
            let mut v = vec![0xcb];
            v.extend_from_slice(&f.to_be_bytes());
            v
        }),
        prop::sample::select(vec![
            "1", "-2.5", "1e400", "x", "standard", "high_io", "kv-1"
        ])
        .prop_map(str_),
        prop::sample::select(KEYS.to_vec()).prop_map(str_),
        prop::sample::select(UNKNOWNS.to_vec()).prop_map(<[u8]>::to_vec),
        Just(vec![0xc4, 0x02, b'h', b'i']),
        Just(
            [&str_("\"string\"")[..], &str_("x")[..]]
                .iter()
                .fold(vec![0x92], |mut v, p| {
                    v.extend_from_slice(p);
                    v
                })
        ),
    ]
}

/// MessagePack values shaped like models: maps keyed by the models' attribute names.
fn value() -> impl Strategy<Value = Vec<u8>> {
    leaf().prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|items| array_of(&items)),
            prop::collection::vec(
                (prop::sample::select(KEYS.to_vec()).prop_map(str_), inner),
                0..8
            )
            .prop_map(|entries| map_of(&entries)),
        ]
    })
}

/// A model as Terraform would send it, every attribute present, in key order.
fn model() -> impl Strategy<Value = Vec<u8>> {
    let opt_str = prop_oneof![
        Just(vec![0xc0]),
        "[a-z]{0,6}".prop_map(|s| str_(&s)),
        prop::sample::select(UNKNOWNS.to_vec()).prop_map(<[u8]>::to_vec),
    ];
    let rule = (opt_str.clone(), leaf())
        .prop_map(|(name, port)| map_of(&[(str_("name"), name), (str_("port"), port)]));
    (
        opt_str.clone(),
        leaf(),
        leaf(),
        prop::collection::vec(rule, 0..3),
        prop::collection::vec((("[a-c]{1,2}"), opt_str.clone()), 0..3),
        value(),
        any::<bool>(),
    )
        .prop_map(|(value, on, size, rules, tags, meta, shuffle)| {
            let tags = map_of(
                &tags
                    .into_iter()
                    .map(|(k, v)| (str_(&k), v))
                    .collect::<Vec<_>>(),
            );
            let mut entries = vec![
                (str_("count"), vec![0x05]),
                (str_("delta"), vec![0xc0]),
                (str_("key"), str_("k")),
                (str_("meta"), meta),
                (str_("names"), array_of(&[str_("a"), str_("b")])),
                (str_("on"), on),
                (str_("ratio"), vec![0xc0]),
                (str_("rule"), array_of(&rules)),
                (str_("size"), size),
                (str_("tags"), tags),
                (str_("tier"), str_("high_io")),
                (str_("type"), vec![0xc0]),
                (str_("value"), value),
            ];
            if shuffle {
                entries.reverse();
            }
            map_of(&entries)
        })
}

/// Strings, some not in NFC (the encoders normalize them, and two map keys may become
/// one).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-c]{0,3}",
        Just("e\u{301}".to_owned()),
        Just("\u{e9}".to_owned()),
    ]
}

fn unknown_of<T: std::fmt::Debug + Clone + 'static>(
    known: impl Strategy<Value = T> + 'static,
) -> impl Strategy<Value = Unknown<T>> {
    prop_oneof![
        4 => known.prop_map(Unknown::Known),
        1 => Just(Unknown::unknown()),
        1 => Just(Unknown::unknown().not_null()),
    ]
}

/// A string or an unknown one, refined with a prefix or not.
fn unknown_text() -> impl Strategy<Value = Unknown<String>> {
    prop_oneof![
        4 => unknown_of(text()),
        1 => "[a-c]{0,2}".prop_map(|p| Unknown::unknown().with_prefix(p)),
    ]
}

fn model_value() -> impl Strategy<Value = Model> {
    let rule = (unknown_text(), unknown_of(prop::option::of(any::<u16>())))
        .prop_map(|(name, port)| Rule { name, port });
    let meta = prop_oneof![
        Just(Dynamic::null()),
        text().prop_map(|t| Dynamic::new(tfvalue::Type::String, tfvalue::Value::from(t))),
        any::<i64>().prop_map(|n| Dynamic::new(tfvalue::Type::Number, tfvalue::Value::from(n))),
    ];
    (
        (
            text(),
            unknown_of(prop::option::of(text())),
            unknown_of(prop::option::of(any::<bool>())),
            prop::option::of(any::<u64>()),
            unknown_of(prop::option::of(any::<i64>())),
            prop::option::of(any::<f64>()),
            unknown_of(prop::option::of(any::<i64>().prop_map(Number::from))),
        ),
        (
            unknown_of(prop::option::of(prop::collection::btree_map(
                text(),
                unknown_text(),
                0..3,
            ))),
            prop::option::of(prop::collection::vec(text(), 0..3)),
            unknown_of(prop::collection::vec(rule, 0..3)),
            meta,
            unknown_of(prop::option::of(prop_oneof![
                Just(Tier::Standard),
                Just(Tier::HighIo)
            ])),
            prop::option::of(text()),
        ),
    )
        .prop_map(
            |((key, value, on, count, delta, ratio, size), (tags, names, rule, meta, tier, ty))| {
                Model {
                    key,
                    value,
                    on,
                    count,
                    delta,
                    ratio,
                    size,
                    tags,
                    names,
                    rule,
                    meta,
                    tier,
                    r#type: ty,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn same_results_on_model_shaped_values(
        bytes in value(),
        depth in prop::sample::select(vec![2usize, 4, 128]),
        ignore in any::<bool>(),
    ) {
        let (wire, serde) = both::<Model>(&bytes, depth, ignore);
        prop_assert_eq!(wire, serde);
        let (wire, serde) = both::<Rule>(&bytes, depth, ignore);
        prop_assert_eq!(wire, serde);
        let (wire, serde) = model_and_nulls(&bytes);
        prop_assert_eq!(wire, serde);
    }

    #[test]
    fn same_results_on_models(
        bytes in model(),
        cut in any::<prop::sample::Index>(),
        flip in any::<(prop::sample::Index, u8)>(),
    ) {
        let (wire, serde) = both::<Model>(&bytes, 128, false);
        prop_assert_eq!(wire, serde);
        // Truncated, and one byte changed.
        let (wire, serde) = both::<Model>(&bytes[..cut.index(bytes.len())], 128, false);
        prop_assert_eq!(wire, serde);
        let mut changed = bytes.clone();
        let at = flip.0.index(changed.len());
        changed[at] ^= flip.1;
        let (wire, serde) = both::<Model>(&changed, 128, false);
        prop_assert_eq!(wire, serde);
        let (wire, serde) = both::<Model>(&changed, 128, true);
        prop_assert_eq!(wire, serde);
    }

    #[test]
    fn same_bytes_from_both_encoders(m in model_value()) {
        let wire = outcome(tfvalue::__private::model_to_msgpack(&m));
        let serde = outcome(tfvalue::msgpack::to_vec(&m));
        prop_assert_eq!(&wire, &serde);
        if let Outcome::Ok(bytes) = wire {
            // And back, through both decoders.
            let (wire, serde) = both::<Model>(&bytes, 128, false);
            prop_assert_eq!(&wire, &serde);
            prop_assert!(matches!(wire, Outcome::Ok(_)), "{:?}", wire);
        }
    }

    #[test]
    fn decoded_models_encode_alike(bytes in model()) {
        if let (Outcome::Ok(m), _) = both::<Model>(&bytes, 128, false) {
            prop_assert_eq!(
                outcome(tfvalue::__private::model_to_msgpack(&m)),
                outcome(tfvalue::msgpack::to_vec(&m))
            );
        }
    }

    #[test]
    fn models_round_trip(key in "[a-z]{1,8}", value in prop::option::of("[a-z]{0,8}"), count in any::<Option<u64>>()) {
        let m = Model {
            key,
            value: value.into(),
            on: Unknown::unknown(),
            count,
            delta: Some(-3).into(),
            ratio: Some(0.5),
            size: Unknown::Known(Some(Number::from(7))),
            tags: Some(BTreeMap::from([("a".to_owned(), Unknown::unknown())])).into(),
            names: None,
            rule: vec![Rule { name: "r".to_owned().into(), port: Some(80).into() }].into(),
            meta: Dynamic::null(),
            tier: Some(Tier::Standard).into(),
            r#type: Some("t".into()),
        };
        let dv = DynamicValue::encode(&m).unwrap();
        prop_assert_eq!(dv.decode_model::<Model>().unwrap(), m.clone());
        // As JSON (no unknowns there): through the transcoder, as `decode_as`.
        let known = Model { on: Some(true).into(), tags: Unknown::Known(None), ..m };
        let ty = Model::tf_type();
        let json = DynamicValue::encode(&known).unwrap().decode_value(&ty).unwrap().to_json(&ty).unwrap();
        let json = DynamicValue::from_json(json);
        prop_assert_eq!(json.decode_model::<Model>().unwrap(), known);
    }
}

#[test]
fn missing_attributes_are_reported_as_serde_does() {
    // Only `key` and `rule`: the optional fields are `None` or an error as for serde.
    let bytes = map_of(&[(str_("key"), str_("k")), (str_("rule"), array_of(&[]))]);
    let (wire, serde) = both::<Model>(&bytes, 128, false);
    assert_eq!(wire, serde);
    let bytes = map_of(&[(str_("value"), str_("v"))]);
    let (wire, serde) = both::<Model>(&bytes, 128, false);
    assert!(
        matches!(&wire, Outcome::Err { message, .. } if message.contains("key")),
        "{wire:?}"
    );
    assert_eq!(wire, serde);
}

#[test]
fn models_with_serde_attributes_decode_through_serde() {
    let dv = DynamicValue::from_json(br#"{"name": "x"}"#.to_vec());
    assert_eq!(
        dv.decode_model::<Renamed>().unwrap(),
        Renamed { label: "x".into() }
    );
}

#[test]
fn errors_name_the_attribute() {
    let bytes = map_of(&[(str_("name"), str_("r")), (str_("port"), str_("eighty"))]);
    let rule = array_of(&[bytes]);
    let model = map_of(&[(str_("key"), str_("k")), (str_("rule"), rule)]);
    let err = DynamicValue::from_msgpack(model)
        .decode_model::<Model>()
        .unwrap_err();
    assert_eq!(err.path().to_string(), "rule[0].port");
}
