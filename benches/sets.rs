#![allow(missing_docs)] // criterion_group! and criterion_main! generate public items
//! Plans and apply checks of a large set of objects (issue #33: the cost per element must
//! stay flat from 1,000 to 100,000 elements): objects with a required `name`, an optional
//! `port` and a computed `id`, as a provider with a big `rule` set has it, once as a block
//! set (group `block_set`) and once as a set nested attribute (`nested_set`, protocol 6). Measured: `Block::plan` with no change and with one element changed (its `port`),
//! and `Block::check_apply` of the changed plan against the state a correct provider
//! answers with (every unknown `id` filled in). The plan of no change twice: as it is
//! (no attribute has a default, so the planner compares the proposal with the prior
//! state and is done) and with a default on each rule's `proto` (`with_default`: then
//! defaults are planned first, which walks the set and pairs its elements with the
//! configuration's).
//!
//! The values are what a provider meets: decoded from the MessagePack Terraform sends (so
//! each set is in canonical order, as decoding leaves it), with ids that do not follow the
//! names (a cloud's ids are random), so that the prior state's order (by `id`, the first
//! attribute) is not the configuration's (by `name`).
//!
//! Run with `cargo bench -p tfvalue --bench sets`; throughput is in elements. The
//! measured calls are `op_plan` and `op_check_apply` (not inlined), for instruction
//! counts per call under callgrind (benches/README.md, "Issue #33's table, measured
//! again").

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tfvalue::schema::{Attribute, Block, NestedBlock, NestedType, NestingMode};
use tfvalue::{Type, Value};

fn obj(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn rules(n: usize, ids: bool, changed: Option<usize>) -> Value {
    Value::Set(
        (0..n)
            .map(|i| {
                let port = if changed == Some(i) { 9999 } else { i as i64 };
                // A changed element matches no prior one: Terraform proposes it without
                // the computed values it had.
                let id = if ids && changed != Some(i) {
                    Value::from(format!("id-{:016x}", scramble(i as u64)))
                } else {
                    Value::Null
                };
                obj(vec![
                    ("name", Value::from(format!("rule-{i}"))),
                    ("port", Value::from(port)),
                    ("id", id),
                ])
            })
            .collect(),
    )
}

/// A bijection of `u64` that scatters consecutive numbers (a splitmix64 step).
fn scramble(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// `v` as the planner gets it from Terraform: encoded and decoded.
fn decoded(v: Value, ty: &Type) -> Value {
    let bytes = v.to_msgpack(ty).expect("encodes");
    Value::from_msgpack(&bytes, ty).expect("decodes")
}

/// How the `rule` set is declared.
#[derive(Clone, Copy)]
enum Shape {
    /// `rule { ... }` blocks: a block set.
    Blocks,
    /// `rule = [{ ... }]`: an optional set nested attribute.
    Nested,
}

/// The schema, with a `proto` that has a default in each rule when `with_default`.
fn schema(shape: Shape, with_default: bool) -> Block {
    let mut rule = vec![
        ("name", Attribute::required(Type::String)),
        ("port", Attribute::optional(Type::Number)),
        ("id", Attribute::computed(Type::String)),
    ];
    if with_default {
        rule.push((
            "proto",
            Attribute::optional_computed(Type::String).default_value("tcp"),
        ));
    }
    let root = Block::new().attribute("id", Attribute::computed(Type::String));
    match shape {
        Shape::Blocks => {
            let rule = rule
                .into_iter()
                .fold(Block::new(), |b, (name, a)| b.attribute(name, a));
            root.block("rule", NestedBlock::new(NestingMode::Set, rule))
        }
        Shape::Nested => {
            let rule = rule
                .into_iter()
                .fold(NestedType::set(), |n, (name, a)| n.attribute(name, a));
            root.attribute("rule", Attribute::nested(rule).set_optional())
        }
    }
}

/// The plan with every unknown `id` (its own and its rules') filled in: what a correct
/// provider applies.
fn applied(planned: &Value) -> Value {
    let Value::Object(m) = planned else {
        panic!("a plan is an object")
    };
    let mut m = m.clone();
    if m.get("id").is_some_and(Value::is_unknown) {
        m.insert("id".to_owned(), Value::from("x"));
    }
    if let Some(Value::Set(es)) = m.get_mut("rule") {
        for (i, e) in es.iter_mut().enumerate() {
            if let Value::Object(f) = e {
                if f.get("id").is_some_and(Value::is_unknown) {
                    f.insert("id".to_owned(), Value::from(format!("new-{i}")));
                }
            }
        }
    }
    Value::Object(m)
}

/// One plan, dropped: what each iteration measures.
#[inline(never)]
fn op_plan(block: &Block, prior: &Value, proposed: &Value, config: &Value) {
    black_box(block.plan(prior, proposed, config));
}

/// One apply check, dropped.
#[inline(never)]
fn op_check_apply(block: &Block, planned: &Value, after: &Value) {
    black_box(block.check_apply(planned, after));
}

fn sets(c: &mut Criterion) {
    for (group, shape) in [("block_set", Shape::Blocks), ("nested_set", Shape::Nested)] {
        set_group(c, group, shape);
    }
}

fn set_group(c: &mut Criterion, group: &str, shape: Shape) {
    let block = schema(shape, false);
    let ty = block.implied_type();
    let obj = |fields| decoded(obj(fields), &ty);
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    for n in [1_000usize, 10_000, 100_000] {
        let prior = obj(vec![("id", "x".into()), ("rule", rules(n, true, None))]);
        let config = obj(vec![("id", Value::Null), ("rule", rules(n, false, None))]);
        let changed_config = obj(vec![
            ("id", Value::Null),
            ("rule", rules(n, false, Some(n / 2))),
        ]);
        // As Terraform proposes it: the prior state's ids kept where an element is
        // unchanged.
        let changed_proposed = obj(vec![
            ("id", "x".into()),
            ("rule", rules(n, true, Some(n / 2))),
        ]);
        let planned = block
            .plan(&prior, &changed_proposed, &changed_config)
            .planned;
        let after = decoded(applied(&planned), &ty);
        let planned = decoded(planned, &ty);
        assert!(block.check_apply(&planned, &after).is_empty());
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("plan_no_change", n), &n, |b, _| {
            b.iter(|| op_plan(&block, &prior, &prior, &config))
        });
        {
            let block = schema(shape, true);
            let ty = block.implied_type();
            // Each rule with its `proto`: the default in the state, null in the
            // configuration.
            let with_proto = |v: &Value, proto: Value| {
                let Value::Object(m) = v else {
                    panic!("an object")
                };
                let mut m = m.clone();
                if let Some(Value::Set(es)) = m.get_mut("rule") {
                    for e in es {
                        if let Value::Object(f) = e {
                            f.insert("proto".to_owned(), proto.clone());
                        }
                    }
                }
                decoded(Value::Object(m), &ty)
            };
            let prior = with_proto(&prior, "tcp".into());
            let config = with_proto(&config, Value::Null);
            assert_eq!(block.plan(&prior, &prior, &config).planned, prior);
            let id = BenchmarkId::new("plan_no_change_with_default", n);
            g.bench_with_input(id, &n, |b, _| {
                b.iter(|| op_plan(&block, &prior, &prior, &config))
            });
        }
        g.bench_with_input(BenchmarkId::new("plan_one_change", n), &n, |b, _| {
            b.iter(|| op_plan(&block, &prior, &changed_proposed, &changed_config))
        });
        g.bench_with_input(BenchmarkId::new("check_apply", n), &n, |b, _| {
            b.iter(|| op_check_apply(&block, &planned, &after))
        });
    }
    g.finish();
}

criterion_group!(benches, sets);
criterion_main!(benches);
