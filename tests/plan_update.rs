//! `DynamicValue::plan_update`, the planner's update over MessagePack, against
//! `Planner::plan_owned` over the decoded values: on generated prior states, proposals
//! and configurations of one schema (every kind of attribute, nested blocks and nested
//! attributes, computed attributes inside them, sets, maps, dynamic values, numbers and
//! non-ASCII strings), the walk either declines or plans exactly what the planner plans,
//! `requires_replace` included.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use tfvalue::schema::{Attribute, Block, NestedBlock, NestedType, Planner};
use tfvalue::{AttributePath, Dynamic, DynamicValue, Number, Refinements, Type, Value};

fn disk() -> Block {
    Block::new()
        .attribute("size", Attribute::required(Type::Number))
        .attribute("serial", Attribute::computed(Type::String))
        .attribute("kind", Attribute::optional_computed(Type::String))
        .attribute(
            "did",
            Attribute::computed(Type::String).use_state_for_unknown(),
        )
}

/// Every kind of attribute the walk meets, and blocks of each nesting.
fn schema() -> Block {
    Block::new()
        .attribute("name", Attribute::required(Type::String).requires_replace())
        .attribute("size", Attribute::optional(Type::Number))
        .attribute(
            "id",
            Attribute::computed(Type::String)
                .use_state_for_unknown()
                .refine(Refinements::new().not_null().with_prefix("r-")),
        )
        .attribute("etag", Attribute::computed(Type::String))
        .attribute("mode", Attribute::optional_computed(Type::String))
        .attribute(
            "zone",
            Attribute::optional_computed(Type::String).requires_replace(),
        )
        .attribute("tags", Attribute::optional(Type::map(Type::String)))
        .attribute(
            "ports",
            Attribute::optional(Type::set(Type::Number)).requires_replace(),
        )
        .attribute("extra", Attribute::optional(Type::Dynamic))
        .attribute(
            "opts",
            Attribute::nested(
                NestedType::single()
                    .attribute("a", Attribute::optional(Type::String))
                    .attribute("b", Attribute::computed(Type::String)),
            )
            .set_optional(),
        )
        .attribute(
            "items",
            Attribute::nested(
                NestedType::list()
                    .attribute("x", Attribute::optional(Type::String))
                    .attribute("y", Attribute::computed(Type::String)),
            )
            .set_optional(),
        )
        .block("disk", NestedBlock::list(disk()))
        .block(
            "rule",
            NestedBlock::set(rule(Attribute::optional(Type::String))),
        )
}

/// A rule: its `rid` as given.
fn rule(rid: Attribute) -> Block {
    Block::new()
        .attribute("port", Attribute::required(Type::Number))
        .attribute("rid", rid)
}

fn unknown() -> Value {
    Value::Unknown(Refinements::new())
}

fn strings(known_only: bool) -> BoxedStrategy<Value> {
    let mut pool = vec![
        Value::Null,
        Value::from("a"),
        Value::from("b"),
        Value::from("r-1"),
        // One text, composed and decomposed.
        Value::from("\u{e9}"),
        Value::from("e\u{301}"),
    ];
    if !known_only {
        pool.push(unknown());
        pool.push(Value::Unknown(Refinements::new().not_null()));
    }
    prop::sample::select(pool).boxed()
}

fn numbers(known_only: bool) -> BoxedStrategy<Value> {
    let big: Number = "123456789012345678901234567890".parse().unwrap();
    let mut pool = vec![
        Value::Null,
        Value::from(1),
        Value::from(2),
        Value::from(-7),
        Value::from(1.5),
        Value::from(u64::MAX),
        Value::Number(big),
    ];
    if !known_only {
        pool.push(unknown());
    }
    prop::sample::select(pool).boxed()
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn tags(known_only: bool) -> BoxedStrategy<Value> {
    let map = |pairs: &[(&str, &str)]| {
        Value::Map(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
                .collect(),
        )
    };
    let mut pool = vec![
        Value::Null,
        map(&[]),
        map(&[("a", "1")]),
        map(&[("a", "2")]),
        map(&[("b", "1")]),
        map(&[("a", "1"), ("b", "1")]),
        map(&[("a", "1"), ("c", "1")]),
    ];
    if !known_only {
        pool.push(unknown());
        pool.push(Value::Map(
            [("a".to_owned(), unknown())].into_iter().collect(),
        ));
    }
    prop::sample::select(pool).boxed()
}

fn ports(known_only: bool) -> BoxedStrategy<Value> {
    let set = |ns: &[i64]| Value::Set(ns.iter().map(|&n| Value::from(n)).collect());
    let mut pool = vec![Value::Null, set(&[]), set(&[1]), set(&[1, 2]), set(&[2])];
    if !known_only {
        pool.push(unknown());
    }
    prop::sample::select(pool).boxed()
}

fn dynamic(ty: Type, v: Value) -> Value {
    Value::Dynamic(Box::new(Dynamic::new(ty, v)))
}

fn extra(known_only: bool) -> BoxedStrategy<Value> {
    let mut pool = vec![
        Value::Null,
        dynamic(Type::String, Value::from("a")),
        dynamic(Type::Number, Value::from(1)),
        dynamic(
            Type::list(Type::String),
            Value::List(vec![Value::from("a")]),
        ),
        dynamic(
            Type::list(Type::String),
            Value::List(vec![Value::from("b")]),
        ),
    ];
    if !known_only {
        pool.push(unknown());
    }
    prop::sample::select(pool).boxed()
}

fn disks(known_only: bool) -> BoxedStrategy<Value> {
    let one = (
        numbers(true),
        strings(known_only),
        strings(known_only),
        strings(known_only),
    )
        .prop_map(|(size, serial, kind, did)| {
            obj(vec![
                ("did", did),
                ("kind", kind),
                ("serial", serial),
                ("size", size),
            ])
        });
    let list = prop::collection::vec(one, 0..3).prop_map(Value::List);
    if known_only {
        list.boxed()
    } else {
        prop_oneof![4 => list, 1 => Just(unknown())].boxed()
    }
}

fn rules(known_only: bool) -> BoxedStrategy<Value> {
    // Ports and `rid`s (a computed attribute in one of the schemas: null in
    // configuration, the prior state's value in the proposal).
    let set = |rs: &[(i64, Option<&str>)]| {
        Value::Set(
            rs.iter()
                .map(|&(p, rid)| {
                    let rid = rid.map_or(Value::Null, Value::from);
                    obj(vec![("port", Value::from(p)), ("rid", rid)])
                })
                .collect(),
        )
    };
    let mut pool = vec![
        set(&[]),
        set(&[(80, None)]),
        set(&[(80, Some("r-1"))]),
        set(&[(80, None), (443, None)]),
        set(&[(80, Some("r-1")), (443, Some("r-2"))]),
        set(&[(80, None), (443, Some("r-2"))]),
        set(&[(443, None)]),
    ];
    if !known_only {
        pool.push(unknown());
    }
    prop::sample::select(pool).boxed()
}

fn opts(known_only: bool) -> BoxedStrategy<Value> {
    let one =
        (strings(known_only), strings(known_only)).prop_map(|(a, b)| obj(vec![("a", a), ("b", b)]));
    if known_only {
        prop_oneof![1 => Just(Value::Null), 3 => one].boxed()
    } else {
        prop_oneof![1 => Just(Value::Null), 1 => Just(unknown()), 3 => one].boxed()
    }
}

fn items(known_only: bool) -> BoxedStrategy<Value> {
    let one =
        (strings(known_only), strings(known_only)).prop_map(|(x, y)| obj(vec![("x", x), ("y", y)]));
    let list = prop::collection::vec(one, 0..3).prop_map(Value::List);
    if known_only {
        prop_oneof![1 => Just(Value::Null), 3 => list].boxed()
    } else {
        prop_oneof![1 => Just(Value::Null), 1 => Just(unknown()), 3 => list].boxed()
    }
}

type Pool = fn(bool) -> BoxedStrategy<Value>;

/// The attributes (and blocks) of [`schema`] with what their values are drawn from.
const ATTRIBUTES: [(&str, Pool); 13] = [
    ("disk", disks),
    ("etag", strings),
    ("extra", extra),
    ("id", strings),
    ("items", items),
    ("mode", strings),
    ("name", strings),
    ("opts", opts),
    ("ports", ports),
    ("rule", rules),
    ("size", numbers),
    ("tags", tags),
    ("zone", strings),
];

/// One attribute's prior value (known), proposal and configuration: often the proposal
/// is the prior value (the attribute unchanged) or the configuration (configured), as
/// Terraform proposes, and sometimes anything.
fn triple(pool: Pool) -> BoxedStrategy<[Value; 3]> {
    (pool(true), pool(false), pool(false), 0..5u8)
        .prop_map(|(prior, any, other, how)| match how {
            // Unchanged, and configured as it is.
            0 => [prior.clone(), prior.clone(), prior],
            // Unchanged, configuration null or anything (a computed value kept).
            1 => [prior.clone(), prior, other],
            2 => [prior.clone(), prior, Value::Null],
            // Configured anew.
            3 => [prior, any.clone(), any],
            _ => [prior, any, other],
        })
        .boxed()
}

fn values() -> impl Strategy<Value = [Value; 3]> {
    ATTRIBUTES
        .iter()
        .map(|&(_, pool)| triple(pool))
        .collect::<Vec<_>>()
        .prop_map(|triples| {
            let mut out = [Vec::new(), Vec::new(), Vec::new()];
            for ((name, _), t) in ATTRIBUTES.iter().zip(triples) {
                for (side, v) in out.iter_mut().zip(t) {
                    side.push((*name, v));
                }
            }
            out.map(obj)
        })
}

/// [`compare`] over 4,000 triples, most of which the walk must plan, changes among them.
fn compare_mostly_walked(planner: &Planner) {
    let (walked, changed) = compare(planner, 4000);
    println!("planned over MessagePack: {walked} of 4000, {changed} of them changed");
    assert!(walked > 1500 && changed > 500, "{walked} {changed}");
}

/// Runs the comparison over `cases` generated triples; returns how many the walk
/// planned and how many of those changed something.
fn compare(planner: &Planner, cases: u32) -> (usize, usize) {
    let ty = planner.block().implied_type();
    let walked = AtomicUsize::new(0);
    let changed = AtomicUsize::new(0);
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    runner
        .run(&values(), |[prior, proposed, config]| {
            let wire = |v: &Value| DynamicValue::encode_value(v, &ty).unwrap();
            let (p, n, c) = (wire(&prior), wire(&proposed), wire(&config));
            // The values as the planner over values has them: decoded (strings NFC).
            let decoded = |dv: &DynamicValue| dv.decode_value(&ty).unwrap();
            let (prior, proposed, config) = (decoded(&p), decoded(&n), decoded(&c));
            let by_value = planner.plan_owned(&prior, proposed.clone(), &config);
            if let Some(plan) = n.plan_update(&p, &c, planner) {
                walked.fetch_add(1, Ordering::Relaxed);
                if by_value.planned != proposed {
                    changed.fetch_add(1, Ordering::Relaxed);
                }
                let planned = plan.planned.decode_value(&ty).unwrap();
                prop_assert_eq!(&planned, &by_value.planned);
                prop_assert_eq!(&plan.requires_replace, &by_value.requires_replace);
                // The plan's bytes are what encoding the planned value writes.
                prop_assert_eq!(&plan.planned.msgpack, &wire(&by_value.planned).msgpack);
            }
            Ok(())
        })
        .unwrap();
    (walked.into_inner(), changed.into_inner())
}

#[test]
fn the_walk_plans_what_the_planner_plans() {
    compare_mostly_walked(&Planner::new(schema()));
}

#[test]
fn the_walk_plans_defaults_as_the_planner_does() {
    // Defaults in the root (one that requires replacement) and in each block of a list:
    // the proposal with its defaults is what the prior state is compared with.
    let disk = disk().attribute(
        "kind",
        Attribute::optional_computed(Type::String).default_value("a"),
    );
    let block = schema()
        .attribute(
            "mode",
            Attribute::optional_computed(Type::String).default_value("b"),
        )
        .attribute(
            "zone",
            Attribute::optional_computed(Type::String)
                .default_value("r-1")
                .requires_replace(),
        )
        .block("disk", NestedBlock::list(disk));
    let planner = Planner::new(block);
    assert!(planner.sets_defaults());
    compare_mostly_walked(&planner);
}

#[test]
fn sets_of_computed_attributes_are_planned_by_the_planner_over_values() {
    // A computed attribute in each block of a set: the set alone is decoded and planned
    // by the planner over values, the rest over the bytes.
    let block = schema().block(
        "rule",
        NestedBlock::set(rule(Attribute::computed(Type::String))),
    );
    compare_mostly_walked(&Planner::new(block));
}

#[test]
fn lists_matched_by_an_attribute_are_left_to_the_planner() {
    // Computed attributes in a `match_by` list: the walk plans what it plans (a change
    // elsewhere, none there) and declines where the planner pairs elements with the
    // prior state's.
    let block = schema().block("disk", NestedBlock::list(disk()).match_by("size"));
    let (walked, _) = compare(&Planner::new(block), 1000);
    println!("planned over MessagePack: {walked} of 1000");
}

#[test]
fn the_walk_declines_what_it_does_not_plan() {
    let ty = schema().implied_type();
    // Every attribute null but `name`, the blocks empty.
    let value = |name: &str| {
        let attrs = ATTRIBUTES.iter().map(|&(attr, _)| {
            let v = match attr {
                "disk" => Value::List(vec![]),
                "rule" => Value::Set(vec![]),
                "name" => Value::from(name),
                _ => Value::Null,
            };
            (attr, v)
        });
        DynamicValue::encode_value(&obj(attrs.collect()), &ty).unwrap()
    };
    let (prior, proposed) = (value("a"), value("b"));
    let planner = Planner::new(schema());
    let plan = proposed.plan_update(&prior, &proposed, &planner).unwrap();
    assert_eq!(plan.requires_replace, [AttributePath::new().attr("name")]);
    // Not an update.
    let null = DynamicValue::from_msgpack(vec![0xc0]);
    assert!(proposed.plan_update(&null, &proposed, &planner).is_none());
    assert!(null.plan_update(&prior, &proposed, &planner).is_none());
    // JSON.
    let json = DynamicValue::from_json(b"{}".to_vec());
    assert!(json.plan_update(&prior, &proposed, &planner).is_none());
    // A nested attribute's default left null, a refine_with function, requires_replace
    // inside a block, replace_if.
    let opts = NestedType::single().attribute("a", Attribute::optional(Type::String));
    let with_default = schema().attribute(
        "opts",
        Attribute::nested(opts)
            .set_optional()
            .set_computed()
            .default_value(Value::Object(
                [("a".to_owned(), Value::from("x"))].into_iter().collect(),
            )),
    );
    let nested_replace = schema().block(
        "disk",
        NestedBlock::list(
            disk().attribute("size", Attribute::required(Type::Number).requires_replace()),
        ),
    );
    let replace_if = schema().attribute(
        "zone",
        Attribute::optional_computed(Type::String).requires_replace_if_configured(),
    );
    for planner in [
        Planner::new(with_default),
        Planner::new(replace_if),
        Planner::new(schema()).refine_with(|_, _| None),
        Planner::new(nested_replace),
    ] {
        assert!(proposed.plan_update(&prior, &proposed, &planner).is_none());
    }
}

#[test]
fn one_value_written_two_ways_is_no_change() {
    // `name` in a `str 8` header and `size` as a float64 in the proposal: the same values
    // as the prior state's, so no change (the computed `etag` stays); the walk says so or
    // declines, never plans a change.
    let block = Block::new()
        .attribute("etag", Attribute::computed(Type::String))
        .attribute("name", Attribute::required(Type::String))
        .attribute("size", Attribute::optional(Type::Number));
    let ty = block.implied_type();
    let planner = Planner::new(block);
    // The object {etag, name, size} of these encoded values.
    let object = |etag: &[u8], name: &[u8], size: &[u8]| {
        let attrs: [(&[u8], &[u8]); 3] = [(b"etag", etag), (b"name", name), (b"size", size)];
        let mut out = vec![0x83];
        for (key, value) in attrs {
            out.push(0xa4);
            out.extend_from_slice(key);
            out.extend_from_slice(value);
        }
        DynamicValue::from_msgpack(out)
    };
    let mut one_f64 = vec![0xcb];
    one_f64.extend_from_slice(&1.0f64.to_be_bytes());
    let p = object(b"\xa2e1", b"\xa1a", b"\x01");
    let n = object(b"\xa2e1", b"\xd9\x01a", &one_f64);
    let c = object(b"\xc0", b"\xa1a", b"\x01");
    let decoded = |dv: &DynamicValue| dv.decode_value(&ty).unwrap();
    let by_value = planner.plan_owned(&decoded(&p), decoded(&n), &decoded(&c));
    assert_eq!(by_value.planned, decoded(&p));
    if let Some(plan) = n.plan_update(&p, &c, &planner) {
        assert_eq!(decoded(&plan.planned), by_value.planned);
    }
    // The name alone written two ways is told equal: with the size changed too, the walk
    // plans the change (the etag unknown).
    let n = object(b"\xa2e1", b"\xd9\x01a", b"\x02");
    let plan = n.plan_update(&p, &c, &planner).unwrap();
    let by_value = planner.plan_owned(&decoded(&p), decoded(&n), &decoded(&c));
    assert!(by_value.planned["etag"].is_unknown());
    assert_eq!(decoded(&plan.planned), by_value.planned);
}
