//! The planner's rules (issue 20): computed attributes unknown on create and on any
//! update that changes the object, unless `use_state_for_unknown`; static defaults; a
//! no-change plan is the prior state; `requires_replace`; declared refinements. Each rule
//! on plain values of a hand-written schema, in nested blocks, nested attributes and sets,
//! and on a derived model, with the wire facts of Terraform 1.0.3: any configurable
//! attribute may be unknown in configuration and proposal, and computed-only attributes
//! are null in configuration (Terraform copies their prior values into the proposal).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use tfvalue::schema::{
    plan_model, Attribute, AttributeType, Block, DefaultValue, NestedBlock, NestedType, Planner,
};
use tfvalue::{
    AttributePath, DynamicValue, Map, Number, Refinements, TfModel, TfValue, Type, Unknown, Value,
};

fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    )
}

fn unknown() -> Value {
    Value::Unknown(Refinements::new())
}

fn s(text: &str) -> Value {
    Value::from(text)
}

/// A resource: `name` (required, replaces), `note` (optional), `id` (computed, set once,
/// refined), `etag` (computed, changes on every update), `ttl` (optional + computed,
/// default 3600).
fn resource() -> Block {
    Block::new()
        .attribute("name", Attribute::required(Type::String).requires_replace())
        .attribute("note", Attribute::optional(Type::String))
        .attribute(
            "id",
            Attribute::computed(Type::String)
                .use_state_for_unknown()
                .refine(Refinements::new().not_null().with_prefix("r-")),
        )
        .attribute("etag", Attribute::computed(Type::String))
        .attribute(
            "ttl",
            Attribute::optional_computed(Type::Number).default_value(3600),
        )
}

fn id_unknown() -> Value {
    Value::Unknown(Refinements::new().not_null().with_prefix("r-"))
}

fn res(name: Value, note: Value, id: Value, etag: Value, ttl: Value) -> Value {
    obj(&[
        ("name", name),
        ("note", note),
        ("id", id),
        ("etag", etag),
        ("ttl", ttl),
    ])
}

fn applied() -> Value {
    res(s("a"), s("x"), s("r-1"), s("e1"), Value::from(3600))
}

// ---------------------------------------------------------------------------------------
// Create, no change, update, destroy

#[test]
fn create_plans_computed_unknown_and_defaults() {
    let config = res(s("a"), Value::Null, Value::Null, Value::Null, Value::Null);
    let plan = resource().plan(&Value::Null, &config, &config);
    assert_eq!(
        plan.planned,
        res(
            s("a"),
            Value::Null,
            id_unknown(),
            unknown(),
            Value::from(3600)
        )
    );
    assert!(plan.requires_replace.is_empty());
}

#[test]
fn destroy_plans_null() {
    let plan = resource().plan(&applied(), &Value::Null, &Value::Null);
    assert_eq!(plan.planned, Value::Null);
    assert!(plan.requires_replace.is_empty());
}

/// `plan_no_change` (the proposal is the prior state, planned without a copy of it)
/// agrees with `plan_owned` given the prior state, on every combination of configuration
/// and state below: defaults the state holds or not, at the top, in set and list block
/// elements and in a nested attribute's elements, configured or left null.
#[test]
fn planning_a_proposal_that_is_the_prior_state_agrees_with_planning_with_the_state() {
    let nested = NestedType::list()
        .attribute("size", Attribute::required(Type::Number))
        .attribute(
            "kind",
            Attribute::optional_computed(Type::String).default_value("ssd"),
        );
    // A nested attribute whose default holds a computed value (planned unknown all the
    // same: the configuration leaves it null).
    let opts = NestedType::single()
        .attribute("mode", Attribute::optional(Type::String))
        .attribute("id", Attribute::computed(Type::String));
    let planner = Planner::new(
        resource()
            .block("disk", NestedBlock::set(disk_block()))
            .block("vol", NestedBlock::list(disk_block()))
            .attribute("extra", Attribute::nested(nested).set_optional())
            .attribute(
                "labels",
                Attribute::nested(
                    NestedType::map()
                        .attribute("v", Attribute::optional(Type::String))
                        .attribute("id", Attribute::computed(Type::String)),
                )
                .set_optional(),
            )
            .attribute(
                "opts",
                Attribute::nested(opts)
                    .set_optional()
                    .set_computed()
                    .default_value(obj(&[("id", s("d-1")), ("mode", s("fast"))])),
            ),
    );
    assert!(planner.sets_defaults());
    // The same attributes without defaults: a proposal that is the prior state is always
    // a plan of no change.
    let mut bare = planner.block().clone();
    bare.attributes.get_mut("ttl").unwrap().default = None;
    for name in ["disk", "vol"] {
        let nb = bare.block_types.get_mut(name).unwrap();
        nb.block.attributes.get_mut("kind").unwrap().default = None;
    }
    bare.attributes.get_mut("opts").unwrap().default = None;
    let extra = bare.attributes.get_mut("extra").unwrap();
    let AttributeType::Nested(n) = &mut extra.ty else {
        unreachable!()
    };
    n.attributes.get_mut("kind").unwrap().default = None;
    let bare = Planner::new(bare);
    assert!(!bare.sets_defaults());
    let ttls = [Value::Null, Value::from(3600), Value::from(60), unknown()];
    let kinds = [Value::Null, s("ssd"), s("hdd"), unknown()];
    let (mut unchanged, mut changed) = (0, 0);
    for config_ttl in &ttls {
        for state_ttl in &ttls {
            for config_kind in &kinds {
                for state_kind in &kinds {
                    for (n, blocks) in [0usize, 1, 2].into_iter().enumerate() {
                        let disks = |kind: &Value, state: bool| {
                            (0..blocks)
                                .map(|i| {
                                    let size = 10 * (i as i64 + 1);
                                    if state {
                                        disk(size, s("s1"), s("ok"), kind.clone())
                                    } else {
                                        disk_config(size, kind.clone())
                                    }
                                })
                                .collect::<Vec<_>>()
                        };
                        let extra = |kind: &Value| {
                            Value::List(
                                (0..n)
                                    .map(|i| {
                                        obj(&[
                                            ("kind", kind.clone()),
                                            ("size", Value::from(i as i64)),
                                        ])
                                    })
                                    .collect(),
                            )
                        };
                        let mut config =
                            res(s("a"), s("x"), Value::Null, Value::Null, config_ttl.clone());
                        let mut state = res(s("a"), s("x"), s("r-1"), s("e1"), state_ttl.clone());
                        for (v, kind, is_state) in [
                            (&mut config, config_kind, false),
                            (&mut state, state_kind, true),
                        ] {
                            let Value::Object(m) = v else { unreachable!() };
                            m.insert("disk".to_owned(), Value::Set(disks(kind, is_state)));
                            m.insert("vol".to_owned(), Value::List(disks(kind, is_state)));
                            m.insert("extra".to_owned(), extra(kind));
                            // Set as the default sets it, or left null.
                            let opts = if kind.is_null() {
                                Value::Null
                            } else {
                                obj(&[("id", s("d-1")), ("mode", s("fast"))])
                            };
                            m.insert("opts".to_owned(), opts);
                            let labels: Map = (0..n)
                                .map(|i| {
                                    let id = if is_state { s("l-1") } else { Value::Null };
                                    (format!("k{i}"), obj(&[("id", id), ("v", kind.clone())]))
                                })
                                .collect();
                            m.insert("labels".to_owned(), Value::Map(labels));
                        }
                        // A create whose configuration is the proposal; without defaults,
                        // also over the MessagePack bytes.
                        for p in [&planner, &bare] {
                            let create = p.plan_owned(&Value::Null, config.clone(), &config);
                            assert_eq!(p.plan_create(config.clone()), create, "{config:?}");
                            let ty = p.block().implied_type();
                            let wire = DynamicValue::encode_value(&config, &ty).unwrap();
                            // Only `opts`, a nested attribute, has a default the walk
                            // leaves to the planner over a `Value`.
                            let opts_default = p.sets_defaults() && config["opts"].is_null();
                            match wire.plan_create(p) {
                                Some(planned) => {
                                    assert!(!opts_default);
                                    let planned = planned.decode_value(&ty).unwrap();
                                    assert_eq!(planned, create.planned, "{config:?}");
                                }
                                None => assert!(opts_default, "{config:?}"),
                            }
                        }
                        let with_state = bare.plan_owned(&state, state.clone(), &config);
                        assert_eq!(with_state.planned, state, "{config:?} {state:?}");
                        let plan = bare.plan_no_change(state.clone(), &config).unwrap();
                        assert_eq!(plan.planned, state);
                        let with_state = planner.plan_owned(&state, state.clone(), &config);
                        match planner.plan_no_change(state.clone(), &config) {
                            Some(plan) => {
                                unchanged += 1;
                                assert_eq!(
                                    plan.planned, with_state.planned,
                                    "{config:?} {state:?}"
                                );
                                assert_eq!(plan.planned, state);
                                assert!(with_state.requires_replace.is_empty());
                                assert!(plan.requires_replace.is_empty());
                            }
                            None => {
                                changed += 1;
                                assert_ne!(with_state.planned, state, "{config:?} {state:?}");
                            }
                        }
                    }
                }
            }
        }
    }
    // Both answers are exercised.
    assert!(unchanged > 10 && changed > 10, "{unchanged} {changed}");
}

#[test]
fn a_no_change_plan_is_the_prior_state() {
    // Terraform copies the prior values of computed attributes that configuration leaves
    // null into the proposal.
    let config = res(s("a"), s("x"), Value::Null, Value::Null, Value::Null);
    let plan = resource().plan(&applied(), &applied(), &config);
    assert_eq!(plan.planned, applied());
    assert!(plan.requires_replace.is_empty());
    // Also when the default is what the prior state holds and configuration says it.
    let config = res(s("a"), s("x"), Value::Null, Value::Null, Value::from(3600));
    assert_eq!(
        resource().plan(&applied(), &applied(), &config).planned,
        applied()
    );
}

#[test]
fn an_update_plans_etag_unknown_and_keeps_the_id() {
    let config = res(s("a"), s("y"), Value::Null, Value::Null, Value::Null);
    let proposed = res(s("a"), s("y"), s("r-1"), s("e1"), Value::from(3600));
    let plan = resource().plan(&applied(), &proposed, &config);
    assert_eq!(
        plan.planned,
        res(s("a"), s("y"), s("r-1"), unknown(), Value::from(3600))
    );
    assert!(plan.requires_replace.is_empty());
}

#[test]
fn a_reference_in_configuration_is_a_change() {
    // `note = other.thing.attr`: unknown in configuration and proposal.
    let config = res(s("a"), unknown(), Value::Null, Value::Null, Value::Null);
    let proposed = res(s("a"), unknown(), s("r-1"), s("e1"), Value::from(3600));
    let plan = resource().plan(&applied(), &proposed, &config);
    assert_eq!(
        plan.planned,
        res(s("a"), unknown(), s("r-1"), unknown(), Value::from(3600))
    );
}

#[test]
fn use_state_for_unknown_plans_unknown_where_there_is_no_prior_value() {
    // A prior state whose id is null (an import that could not tell it, say).
    let prior = res(s("a"), s("x"), Value::Null, s("e1"), Value::from(3600));
    let config = res(s("a"), s("y"), Value::Null, Value::Null, Value::Null);
    let proposed = res(s("a"), s("y"), Value::Null, s("e1"), Value::from(3600));
    let plan = resource().plan(&prior, &proposed, &config);
    assert_eq!(plan.planned["id"], id_unknown());
}

// ---------------------------------------------------------------------------------------
// Defaults

#[test]
fn a_configured_value_wins_over_the_default() {
    let config = res(
        s("a"),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::from(60),
    );
    let plan = resource().plan(&Value::Null, &config, &config);
    assert_eq!(plan.planned["ttl"], Value::from(60));
}

#[test]
fn an_unknown_configured_value_wins_over_the_default() {
    let config = res(s("a"), Value::Null, Value::Null, Value::Null, unknown());
    let plan = resource().plan(&Value::Null, &config, &config);
    assert_eq!(plan.planned["ttl"], unknown());
    // On an update too, and it stays unrefined (the planner made no promise about it).
    let proposed = res(s("a"), s("x"), s("r-1"), s("e1"), unknown());
    let config = res(s("a"), s("x"), Value::Null, Value::Null, unknown());
    let plan = resource().plan(&applied(), &proposed, &config);
    assert_eq!(plan.planned["ttl"], unknown());
    assert_eq!(plan.planned["id"], s("r-1"));
}

#[test]
fn removing_a_configured_value_plans_the_default_again() {
    let prior = res(s("a"), s("x"), s("r-1"), s("e1"), Value::from(60));
    // Configuration no longer sets ttl: Terraform proposes the prior 60.
    let config = res(s("a"), s("x"), Value::Null, Value::Null, Value::Null);
    let proposed = res(s("a"), s("x"), s("r-1"), s("e1"), Value::from(60));
    let plan = resource().plan(&prior, &proposed, &config);
    assert_eq!(
        plan.planned,
        res(s("a"), s("x"), s("r-1"), unknown(), Value::from(3600))
    );
}

#[test]
fn defaults_of_each_kind() {
    let block = Block::new()
        .attribute(
            "region",
            Attribute::optional_computed(Type::String).default_value("eu"),
        )
        .attribute(
            "ratio",
            Attribute::optional_computed(Type::Number)
                .default_value("0.1".parse::<Number>().unwrap()),
        )
        .attribute(
            "enabled",
            Attribute::optional_computed(Type::Bool).default_value(true),
        );
    let config = obj(&[
        ("region", Value::Null),
        ("ratio", Value::Null),
        ("enabled", Value::Null),
    ]);
    let plan = block.plan(&Value::Null, &config, &config);
    assert_eq!(
        plan.planned,
        obj(&[
            ("region", s("eu")),
            ("ratio", Value::Number("0.1".parse().unwrap())),
            ("enabled", Value::Bool(true)),
        ])
    );
    assert!(block.check_schema().is_empty());
}

// ---------------------------------------------------------------------------------------
// requires_replace

#[test]
fn a_changed_value_requires_replacement() {
    let config = res(s("b"), s("x"), Value::Null, Value::Null, Value::Null);
    let proposed = res(s("b"), s("x"), s("r-1"), s("e1"), Value::from(3600));
    let plan = resource().plan(&applied(), &proposed, &config);
    assert_eq!(plan.requires_replace, [AttributePath::new().attr("name")]);
    // An unknown from configuration differs from every known value.
    let config = res(unknown(), s("x"), Value::Null, Value::Null, Value::Null);
    let proposed = res(unknown(), s("x"), s("r-1"), s("e1"), Value::from(3600));
    let plan = resource().plan(&applied(), &proposed, &config);
    assert_eq!(plan.requires_replace, [AttributePath::new().attr("name")]);
}

#[test]
fn an_unknown_the_planner_made_does_not_require_replacement() {
    // A computed attribute whose change would replace the resource: the planner plans it
    // unknown on an update, which is no change the configuration asked for.
    let block = resource().attribute(
        "zone",
        Attribute::optional_computed(Type::String).requires_replace(),
    );
    let with_zone = |v: Value, zone: Value| match v {
        Value::Object(mut m) => {
            m.insert("zone".to_owned(), zone);
            Value::Object(m)
        }
        other => other,
    };
    let prior = with_zone(applied(), s("z1"));
    let config = with_zone(
        res(s("a"), s("y"), Value::Null, Value::Null, Value::Null),
        Value::Null,
    );
    let proposed = with_zone(
        res(s("a"), s("y"), s("r-1"), s("e1"), Value::from(3600)),
        s("z1"),
    );
    let plan = block.plan(&prior, &proposed, &config);
    assert_eq!(plan.planned["zone"], unknown());
    assert!(
        plan.requires_replace.is_empty(),
        "{:?}",
        plan.requires_replace
    );
    // A zone the configuration changes does.
    let config = with_zone(
        res(s("a"), s("y"), Value::Null, Value::Null, Value::Null),
        s("z2"),
    );
    let proposed = with_zone(
        res(s("a"), s("y"), s("r-1"), s("e1"), Value::from(3600)),
        s("z2"),
    );
    let plan = block.plan(&prior, &proposed, &config);
    assert_eq!(plan.requires_replace, [AttributePath::new().attr("zone")]);
}

// ---------------------------------------------------------------------------------------
// Refinements

#[test]
fn refine_with_overrides_the_declared_refinements() {
    let planner = Planner::new(resource())
        .refine_with(|path, _| (path.to_string() == "etag").then(|| Refinements::new().not_null()));
    let config = res(s("a"), Value::Null, Value::Null, Value::Null, Value::Null);
    let plan = planner.plan(&Value::Null, &config, &config);
    assert_eq!(
        plan.planned["etag"],
        Value::Unknown(Refinements::new().not_null())
    );
    assert_eq!(plan.planned["id"], id_unknown());
}

#[test]
fn planner_refine_checks_the_name() {
    let err = Planner::new(resource())
        .refine("idd", Refinements::new().not_null())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no attribute `idd` to refine; the computed attributes are `etag`, `id`, `ttl`"
    );
    let err = Planner::new(resource())
        .refine("note", Refinements::new().not_null())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot refine `note`: the planner plans only computed attributes unknown, and `note` is not computed"
    );
    let err = Planner::new(resource())
        .refine("etag", Refinements::new().with_lower_bound(1, true))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot refine `etag`: bounds refine numbers, and the attribute is a string"
    );
    let err = Planner::new(resource())
        .refine("ttl", Refinements::new().not_null())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot refine `ttl`: refinements (not null) have no effect with a default: the planner never plans the attribute unknown"
    );
    // Names through blocks and nested attributes.
    let block = Block::new()
        .block(
            "disk",
            NestedBlock::list(Block::new().attribute("id", Attribute::computed(Type::String))),
        )
        .attribute(
            "port",
            Attribute::nested(
                NestedType::list().attribute("id", Attribute::computed(Type::Number)),
            )
            .set_optional(),
        );
    let planner = Planner::new(block)
        .refine("disk.id", Refinements::new().with_prefix("d-"))
        .unwrap()
        .refine("port.id", Refinements::new().with_lower_bound(1, true))
        .unwrap();
    let refined = &planner.block().block_types["disk"].block.attributes["id"];
    assert_eq!(refined.refinements.prefix(), Some("d-"));
    let err = planner.refine("disk.idd", Refinements::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no attribute `disk.idd` to refine; the computed attributes are `port.id`, `disk.id`"
    );
}

#[test]
fn check_schema_reports_misplaced_planner_facts() {
    let block = Block::new()
        .attribute(
            "a",
            Attribute::optional(Type::String)
                .default_value("x")
                .use_state_for_unknown()
                .refine(Refinements::new().not_null()),
        )
        .attribute(
            "b",
            Attribute::optional_computed(Type::Number).default_value("x"),
        )
        .attribute(
            "c",
            Attribute::computed(Type::Number).refine(Refinements::new().with_prefix("p")),
        )
        .attribute(
            "d",
            Attribute::computed(Type::Dynamic).refine(Refinements::new().not_null()),
        )
        .attribute(
            "e",
            Attribute::computed(Type::String).refine(Refinements::new().with_min_length(1)),
        )
        .attribute(
            "f",
            Attribute::optional_computed(Type::Bool)
                .default_value(true)
                .use_state_for_unknown(),
        )
        .attribute(
            "g",
            Attribute::computed(Type::list(Type::String))
                .refine(Refinements::new().with_min_length(1).not_null()),
        );
    let found: Vec<String> = block
        .check_schema()
        .iter()
        .map(|d| format!("{} at {}", d.detail(), d.path()))
        .collect();
    assert_eq!(
        found,
        [
            "a default (\"x\") applies to computed attributes only: the planner sets only those at a",
            "`use_state_for_unknown` applies to computed attributes only: the planner sets only those at a",
            "refinements (not null) apply to computed attributes only: the planner plans no other attribute unknown at a",
            "the default \"x\" is a string, but the attribute is a number at b",
            "a prefix refines strings, and the attribute is a number at c",
            "refinements (not null) of a dynamic attribute are never sent: Terraform's wire form of a dynamic unknown has none at d",
            "a length refines lists, sets and maps, and the attribute is a string at e",
            "`use_state_for_unknown` has no effect with a default: the default is planned whenever configuration leaves the attribute null at f",
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Nested blocks, nested attributes, sets, unknown block lists

/// `disk` blocks (a list): `size` required, `serial` computed and set once, `health`
/// computed and changing, `kind` optional + computed with a default.
fn disk_block() -> Block {
    Block::new()
        .attribute("size", Attribute::required(Type::Number))
        .attribute(
            "serial",
            Attribute::computed(Type::String).use_state_for_unknown(),
        )
        .attribute("health", Attribute::computed(Type::String))
        .attribute(
            "kind",
            Attribute::optional_computed(Type::String).default_value("ssd"),
        )
}

fn disk(size: i64, serial: Value, health: Value, kind: Value) -> Value {
    obj(&[
        ("size", Value::from(size)),
        ("serial", serial),
        ("health", health),
        ("kind", kind),
    ])
}

fn disk_config(size: i64, kind: Value) -> Value {
    disk(size, Value::Null, Value::Null, kind)
}

#[test]
fn list_blocks_follow_the_rules_per_element() {
    let block = Block::new()
        .attribute("name", Attribute::required(Type::String))
        .block("disk", NestedBlock::list(disk_block()));
    let prior = obj(&[
        ("name", s("a")),
        (
            "disk",
            Value::List(vec![disk(10, s("s1"), s("ok"), s("ssd"))]),
        ),
    ]);
    // A second disk is added; the first is as before.
    let config = obj(&[
        ("name", s("a")),
        (
            "disk",
            Value::List(vec![
                disk_config(10, Value::Null),
                disk_config(20, s("hdd")),
            ]),
        ),
    ]);
    let proposed = obj(&[
        ("name", s("a")),
        (
            "disk",
            Value::List(vec![
                disk(10, s("s1"), s("ok"), s("ssd")),
                disk(20, Value::Null, Value::Null, s("hdd")),
            ]),
        ),
    ]);
    let plan = block.plan(&prior, &proposed, &config);
    assert_eq!(
        plan.planned["disk"],
        Value::List(vec![
            disk(10, s("s1"), unknown(), s("ssd")),
            disk(20, unknown(), unknown(), s("hdd")),
        ])
    );
    // No change: the prior state.
    let config = obj(&[
        ("name", s("a")),
        ("disk", Value::List(vec![disk_config(10, Value::Null)])),
    ]);
    assert_eq!(block.plan(&prior, &prior, &config).planned, prior);
    // Create: defaults inside the blocks too.
    let plan = block.plan(&Value::Null, &config, &config);
    assert_eq!(
        plan.planned["disk"],
        Value::List(vec![disk(10, unknown(), unknown(), s("ssd"))])
    );
}

#[test]
fn nested_attributes_follow_the_rules() {
    let nested = NestedType::list()
        .attribute("size", Attribute::required(Type::Number))
        .attribute(
            "serial",
            Attribute::computed(Type::String).use_state_for_unknown(),
        )
        .attribute("health", Attribute::computed(Type::String))
        .attribute(
            "kind",
            Attribute::optional_computed(Type::String).default_value("ssd"),
        );
    let single = NestedType::single()
        .attribute("id", Attribute::computed(Type::String))
        .attribute("label", Attribute::optional(Type::String));
    let block = Block::new()
        .attribute("name", Attribute::required(Type::String))
        .attribute("disks", Attribute::nested(nested).set_optional())
        .attribute("meta", Attribute::nested(single).set_optional());
    let prior = obj(&[
        ("name", s("a")),
        (
            "disks",
            Value::List(vec![disk(10, s("s1"), s("ok"), s("ssd"))]),
        ),
        ("meta", obj(&[("id", s("m1")), ("label", s("l"))])),
    ]);
    let config = obj(&[
        ("name", s("b")),
        ("disks", Value::List(vec![disk_config(10, Value::Null)])),
        ("meta", obj(&[("id", Value::Null), ("label", s("l"))])),
    ]);
    let proposed = obj(&[
        ("name", s("b")),
        (
            "disks",
            Value::List(vec![disk(10, s("s1"), s("ok"), s("ssd"))]),
        ),
        ("meta", obj(&[("id", s("m1")), ("label", s("l"))])),
    ]);
    let plan = block.plan(&prior, &proposed, &config);
    assert_eq!(
        plan.planned,
        obj(&[
            ("name", s("b")),
            (
                "disks",
                Value::List(vec![disk(10, s("s1"), unknown(), s("ssd"))])
            ),
            ("meta", obj(&[("id", unknown()), ("label", s("l"))])),
        ])
    );
    // A nested attribute left out of configuration stays null: it is not computed.
    let config = obj(&[
        ("name", s("b")),
        ("disks", Value::Null),
        ("meta", Value::Null),
    ]);
    let plan = block.plan(&Value::Null, &config, &config);
    assert_eq!(plan.planned, config);
}

#[test]
fn set_elements_are_paired_with_their_configuration() {
    let block = Block::new()
        .attribute("name", Attribute::required(Type::String))
        .block("disk", NestedBlock::set(disk_block()));
    let prior = obj(&[
        ("name", s("a")),
        (
            "disk",
            Value::Set(vec![
                disk(10, s("s1"), s("ok"), s("ssd")),
                disk(20, s("s2"), s("ok"), s("hdd")),
            ]),
        ),
    ]);
    // The name changes; both disks stay. Terraform pairs the configured disks with the
    // prior ones and copies their computed values into the proposal.
    let config = obj(&[
        ("name", s("b")),
        (
            "disk",
            Value::Set(vec![
                disk_config(20, s("hdd")),
                disk_config(10, Value::Null),
            ]),
        ),
    ]);
    let proposed = obj(&[
        ("name", s("b")),
        (
            "disk",
            Value::Set(vec![
                disk(10, s("s1"), s("ok"), s("ssd")),
                disk(20, s("s2"), s("ok"), s("hdd")),
            ]),
        ),
    ]);
    let plan = block.plan(&prior, &proposed, &config);
    // Each disk keeps its serial, plans its health unknown, and keeps its kind: the
    // configured `hdd` (as Terraform requires of a configured value) and the default.
    assert_eq!(
        plan.planned["disk"],
        Value::Set(vec![
            disk(10, s("s1"), unknown(), s("ssd")),
            disk(20, s("s2"), unknown(), s("hdd")),
        ])
    );
    // A new disk in the set: unknown serial, default kind.
    let config = obj(&[
        ("name", s("a")),
        (
            "disk",
            Value::Set(vec![
                disk_config(10, Value::Null),
                disk_config(20, s("hdd")),
                disk_config(30, Value::Null),
            ]),
        ),
    ]);
    let proposed = obj(&[
        ("name", s("a")),
        (
            "disk",
            Value::Set(vec![
                disk(10, s("s1"), s("ok"), s("ssd")),
                disk(20, s("s2"), s("ok"), s("hdd")),
                disk(30, Value::Null, Value::Null, Value::Null),
            ]),
        ),
    ]);
    let plan = block.plan(&prior, &proposed, &config);
    assert_eq!(
        plan.planned["disk"],
        Value::Set(vec![
            disk(10, s("s1"), unknown(), s("ssd")),
            disk(20, s("s2"), unknown(), s("hdd")),
            disk(30, unknown(), unknown(), s("ssd")),
        ])
    );
}

#[test]
fn a_configured_computed_value_in_a_set_element_is_kept() {
    // Two elements that differ only in an optional + computed attribute, one configured
    // and one left to the default: pairing must not mix them up.
    let block = Block::new().block("disk", NestedBlock::set(disk_block()));
    let config = obj(&[(
        "disk",
        Value::Set(vec![
            disk_config(10, s("hdd")),
            disk_config(10, Value::Null),
        ]),
    )]);
    let plan = block.plan(&Value::Null, &config, &config);
    let expected = Value::Set(vec![
        disk(10, unknown(), unknown(), s("hdd")),
        disk(10, unknown(), unknown(), s("ssd")),
    ]);
    assert_eq!(plan.planned["disk"], expected);
    // Whatever the order of either set.
    let config = obj(&[(
        "disk",
        Value::Set(vec![
            disk_config(10, Value::Null),
            disk_config(10, s("hdd")),
        ]),
    )]);
    let proposed = obj(&[(
        "disk",
        Value::Set(vec![
            disk_config(10, s("hdd")),
            disk_config(10, Value::Null),
        ]),
    )]);
    let plan = block.plan(&Value::Null, &proposed, &config);
    assert_eq!(plan.planned["disk"], expected);
    // And on an update, where Terraform copied the prior computed values in.
    let prior = obj(&[(
        "disk",
        Value::Set(vec![
            disk(10, s("s2"), s("ok"), s("hdd")),
            disk(10, s("s1"), s("ok"), s("ssd")),
        ]),
    )]);
    let proposed = obj(&[(
        "disk",
        Value::Set(vec![
            disk(10, s("s1"), s("ok"), s("ssd")),
            disk(10, s("s2"), s("ok"), s("hdd")),
            disk(11, Value::Null, Value::Null, Value::Null),
        ]),
    )]);
    let config = obj(&[(
        "disk",
        Value::Set(vec![
            disk_config(10, Value::Null),
            disk_config(11, Value::Null),
            disk_config(10, s("hdd")),
        ]),
    )]);
    let plan = block.plan(&prior, &proposed, &config);
    assert_eq!(
        plan.planned["disk"],
        Value::Set(vec![
            disk(10, s("s2"), unknown(), s("hdd")),
            disk(10, s("s1"), unknown(), s("ssd")),
            disk(11, unknown(), unknown(), s("ssd")),
        ])
    );
}

#[test]
fn an_unknown_block_list_stays_unknown() {
    // `dynamic "disk" { for_each = var.unknown }`: the whole block list is unknown.
    let block = Block::new()
        .attribute("name", Attribute::required(Type::String))
        .attribute("id", Attribute::computed(Type::String))
        .block("disk", NestedBlock::list(disk_block()));
    let config = obj(&[("name", s("a")), ("id", Value::Null), ("disk", unknown())]);
    let plan = block.plan(&Value::Null, &config, &config);
    assert_eq!(
        plan.planned,
        obj(&[("name", s("a")), ("id", unknown()), ("disk", unknown())])
    );
}

// ---------------------------------------------------------------------------------------
// The derive

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Rule {
    #[tfvalue(required)]
    name: Unknown<String>,
    #[tfvalue(optional)]
    priority: Unknown<Option<Number>>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq, PartialOrd, Eq, Ord)]
struct Acl {
    #[tfvalue(required)]
    principal: Unknown<String>,
    #[tfvalue(required, one_of = ["read", "write", "admin"])]
    level: Unknown<String>,
}

/// An entry of a key-value store, as issue 20's `kv_entry`, with an `etag` the store
/// changes on every update.
#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Entry {
    #[tfvalue(required, requires_replace)]
    key: Unknown<String>,
    #[tfvalue(optional)]
    value: Unknown<Option<String>>,
    #[tfvalue(optional, computed, default = 3600)]
    ttl: Unknown<Option<Number>>,
    #[tfvalue(computed, use_state_for_unknown, refine(not_null, prefix = "kv-"))]
    id: Unknown<Option<String>>,
    #[tfvalue(computed, refine(not_null, min = 1))]
    version: Unknown<Option<u64>>,
    #[tfvalue(computed)]
    etag: Unknown<Option<String>>,
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
    #[tfvalue(block)]
    rule: Unknown<Vec<Rule>>,
    #[tfvalue(block = "set")]
    acl: Unknown<BTreeSet<Acl>>,
}

fn entry_config(value: Unknown<Option<String>>) -> Entry {
    Entry {
        key: "k".to_owned().into(),
        value,
        ttl: Unknown::null(),
        id: Unknown::null(),
        version: Unknown::null(),
        etag: Unknown::null(),
        tags: Unknown::null(),
        rule: Unknown::Known(vec![Rule {
            name: "r".to_owned().into(),
            priority: Unknown::null(),
        }]),
        acl: Unknown::Known(BTreeSet::from([Acl {
            principal: "me".to_owned().into(),
            level: "admin".to_owned().into(),
        }])),
    }
}

fn entry_applied() -> Entry {
    Entry {
        ttl: Unknown::Known(Some(Number::from(3600))),
        id: Unknown::Known(Some("kv-k".to_owned())),
        version: Unknown::Known(Some(1)),
        etag: Unknown::Known(Some("e1".to_owned())),
        ..entry_config(Unknown::Known(Some("v1".to_owned())))
    }
}

#[test]
fn the_derive_declares_the_facts() {
    let b = Entry::block();
    assert_eq!(b.attributes["ttl"].default, Some(DefaultValue::from(3600)));
    assert!(b.attributes["id"].use_state_for_unknown);
    assert_eq!(
        b.attributes["id"].refinements,
        Refinements::new().not_null().with_prefix("kv-")
    );
    assert_eq!(
        b.attributes["version"].refinements,
        Refinements::new().not_null().with_lower_bound(1, true)
    );
    assert!(b.attributes["etag"].refinements.is_empty());
    assert!(!b.attributes["etag"].use_state_for_unknown);
    assert!(b.check_schema().is_empty(), "{}", b.check_schema());
}

#[test]
fn a_model_through_create_no_change_update_and_replace() {
    // Create.
    let config = entry_config(Unknown::Known(Some("v1".to_owned())));
    let plan = plan_model(None, Some(&config), Some(&config)).unwrap();
    let planned = plan.planned.unwrap();
    assert_eq!(planned.ttl, Unknown::Known(Some(Number::from(3600))));
    assert_eq!(planned.id, Unknown::unknown().not_null().with_prefix("kv-"));
    assert_eq!(
        planned.version,
        Unknown::Unknown(Refinements::new().not_null().with_lower_bound(1, true))
    );
    assert_eq!(planned.etag, Unknown::unknown());
    assert!(plan.requires_replace.is_empty());

    // No change: Terraform proposes the prior state (computed values copied).
    let prior = entry_applied();
    let plan = plan_model(Some(&prior), Some(&prior), Some(&config)).unwrap();
    assert_eq!(plan.planned.as_ref(), Some(&prior));

    // An update of the value: the id stays, version and etag will change.
    let config = entry_config(Unknown::Known(Some("v2".to_owned())));
    let proposed = Entry {
        value: config.value.clone(),
        ..prior.clone()
    };
    let plan = plan_model(Some(&prior), Some(&proposed), Some(&config)).unwrap();
    let planned = plan.planned.unwrap();
    assert_eq!(
        planned,
        Entry {
            version: Unknown::Unknown(Refinements::new().not_null().with_lower_bound(1, true)),
            etag: Unknown::unknown(),
            ..proposed.clone()
        }
    );
    assert!(plan.requires_replace.is_empty());

    // A value from another resource, unknown until apply: still an update.
    let config = entry_config(Unknown::unknown());
    let proposed = Entry {
        value: Unknown::unknown(),
        ..prior.clone()
    };
    let planned = plan_model(Some(&prior), Some(&proposed), Some(&config))
        .unwrap()
        .planned
        .unwrap();
    assert_eq!(planned.id, prior.id);
    assert!(planned.value.is_unknown() && planned.etag.is_unknown());

    // A new key replaces the entry.
    let mut config = entry_config(Unknown::Known(Some("v1".to_owned())));
    config.key = "k2".to_owned().into();
    let proposed = Entry {
        key: config.key.clone(),
        ..prior.clone()
    };
    let plan = plan_model(Some(&prior), Some(&proposed), Some(&config)).unwrap();
    assert_eq!(plan.requires_replace, [AttributePath::new().attr("key")]);
}

#[test]
fn an_etag_that_changes_on_every_update_is_consistent_with_apply() {
    // The store changes the etag on every update; the planned unknown admits it, where
    // the prior value (what a plan that kept it would say) would not.
    let prior = entry_applied();
    let config = entry_config(Unknown::Known(Some("v2".to_owned())));
    let proposed = Entry {
        value: config.value.clone(),
        ..prior.clone()
    };
    let planned = plan_model(Some(&prior), Some(&proposed), Some(&config))
        .unwrap()
        .planned
        .unwrap();
    let after_apply = Entry {
        version: Unknown::Known(Some(2)),
        etag: Unknown::Known(Some("e2".to_owned())),
        ..planned.clone()
    };
    assert!(Entry::check_apply(&planned, &after_apply).is_empty());
    assert!(!Entry::check_apply(&proposed, &after_apply).is_empty());
}

// ---------------------------------------------------------------------------------------
// `match_by`: list elements paired with their prior elements by a key attribute (the
// `ipam` shape: a subnet's computed `id` kept across an insertion in the middle of the
// list, terraform-plugin-framework#489, #974), with no `modify_plan` code.

mod match_by {
    use super::*;

    #[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
    struct Subnet {
        cidr: Unknown<String>,
        #[tfvalue(computed, use_state_for_unknown)]
        id: Unknown<Option<String>>,
        #[tfvalue(computed)]
        etag: Unknown<Option<String>>,
    }

    #[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
    struct Vpc {
        name: Unknown<String>,
        #[tfvalue(optional, nested_type = "list", match_by = "cidr")]
        subnets: Unknown<Option<Vec<Subnet>>>,
        #[tfvalue(block, match_by = "cidr")]
        zone: Unknown<Vec<Subnet>>,
        #[tfvalue(optional, nested_type = "list")]
        by_position: Unknown<Option<Vec<Subnet>>>,
    }

    fn subnet(cidr: Value, id: Value) -> Value {
        obj(&[("cidr", cidr), ("id", id), ("etag", Value::Null)])
    }

    fn vpc(subnets: Vec<Value>) -> Value {
        obj(&[
            ("name", s("main")),
            ("subnets", Value::List(subnets.clone())),
            ("zone", Value::List(subnets.clone())),
            ("by_position", Value::List(subnets)),
        ])
    }

    /// The proposal Terraform makes for a list: the prior element at the same position
    /// gives each configured element its computed values.
    fn proposed(prior: &[Value], config: &[Value]) -> Vec<Value> {
        config
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let id = prior.get(i).map_or(Value::Null, |p| p["id"].clone());
                let etag = prior.get(i).map_or(Value::Null, |p| p["etag"].clone());
                obj(&[("cidr", c["cidr"].clone()), ("id", id), ("etag", etag)])
            })
            .collect()
    }

    fn ids(planned: &Value, attr: &str) -> Vec<Value> {
        let Value::List(vs) = &planned[attr] else {
            panic!("{attr}: {planned:?}");
        };
        vs.iter().map(|v| v["id"].clone()).collect()
    }

    fn prior_subnets() -> Vec<Value> {
        vec![
            obj(&[
                ("cidr", s("10.0.1.0/24")),
                ("id", s("subnet-1")),
                ("etag", s("e1")),
            ]),
            obj(&[
                ("cidr", s("10.0.3.0/24")),
                ("id", s("subnet-3")),
                ("etag", s("e3")),
            ]),
        ]
    }

    fn plan(config: &[Value]) -> Value {
        let prior = prior_subnets();
        let planner = Planner::for_model::<Vpc>();
        assert!(
            planner.block().check_schema().is_empty(),
            "{}",
            planner.block().check_schema()
        );
        planner
            .plan(
                &vpc(prior.clone()),
                &vpc(proposed(&prior, config)),
                &vpc(config.to_vec()),
            )
            .planned
    }

    #[test]
    fn an_insertion_in_the_middle_keeps_each_id_with_its_subnet() {
        let config = [
            subnet(s("10.0.1.0/24"), Value::Null),
            subnet(s("10.0.2.0/24"), Value::Null),
            subnet(s("10.0.3.0/24"), Value::Null),
        ];
        let planned = plan(&config);
        for attr in ["subnets", "zone"] {
            assert_eq!(
                ids(&planned, attr),
                [s("subnet-1"), unknown(), s("subnet-3")],
                "{attr}: the new subnet's id is unknown, the others keep theirs"
            );
        }
        // By position, as Terraform proposes, the new subnet would take subnet-3's id.
        assert_eq!(
            ids(&planned, "by_position"),
            [s("subnet-1"), s("subnet-3"), unknown()]
        );
    }

    #[test]
    fn a_removal_and_a_reordering_keep_the_ids() {
        let config = [subnet(s("10.0.3.0/24"), Value::Null)];
        assert_eq!(ids(&plan(&config), "subnets"), [s("subnet-3")]);
        let config = [
            subnet(s("10.0.3.0/24"), Value::Null),
            subnet(s("10.0.1.0/24"), Value::Null),
        ];
        assert_eq!(ids(&plan(&config), "zone"), [s("subnet-3"), s("subnet-1")]);
    }

    #[test]
    fn an_unknown_or_repeated_key_pairs_with_nothing_more() {
        // A cidr from a reference: its subnet is new as far as the plan knows.
        let config = [
            subnet(unknown(), Value::Null),
            subnet(s("10.0.1.0/24"), Value::Null),
            subnet(s("10.0.1.0/24"), Value::Null),
        ];
        assert_eq!(
            ids(&plan(&config), "subnets"),
            [unknown(), s("subnet-1"), unknown()],
            "each prior element pairs once"
        );
    }

    #[test]
    fn requires_replace_compares_the_paired_elements() {
        #[derive(TfValue, Serialize, Deserialize)]
        struct Rule {
            name: Unknown<String>,
            #[tfvalue(requires_replace)]
            port: Unknown<i64>,
        }
        #[derive(TfValue, Serialize, Deserialize)]
        struct Firewall {
            #[tfvalue(block, match_by = "name")]
            rule: Unknown<Vec<Rule>>,
        }
        let rule = |name: &str, port: i64| obj(&[("name", s(name)), ("port", Value::from(port))]);
        let fw = |rules: Vec<Value>| obj(&[("rule", Value::List(rules))]);
        let planner = Planner::for_model::<Firewall>();
        let prior = fw(vec![rule("ssh", 22), rule("web", 80)]);
        // Reordered: nothing to replace (by position, both ports would differ).
        let reordered = fw(vec![rule("web", 80), rule("ssh", 22)]);
        assert!(planner
            .plan(&prior, &reordered, &reordered)
            .requires_replace
            .is_empty());
        // web's port changed: that element's path.
        let changed = fw(vec![rule("web", 8080), rule("ssh", 22)]);
        assert_eq!(
            planner.plan(&prior, &changed, &changed).requires_replace,
            [AttributePath::new().attr("rule").index(0).attr("port")]
        );
    }

    #[test]
    fn inside_a_set_element_a_match_by_list_keeps_the_proposals_values() {
        // A set element has no prior element of its own: the proposal's copy stands.
        let target = Block::new()
            .attribute("host", Attribute::required(Type::String))
            .attribute(
                "id",
                Attribute::computed(Type::String).use_state_for_unknown(),
            );
        let rule = Block::new()
            .attribute("name", Attribute::required(Type::String))
            .block("target", NestedBlock::list(target).match_by("host"));
        let block = Block::new()
            .attribute("note", Attribute::optional(Type::String))
            .block("rule", NestedBlock::set(rule));
        let t = |host: &str, id: Value| obj(&[("host", s(host)), ("id", id)]);
        let state = |note: &str, id: Value| {
            obj(&[
                ("note", s(note)),
                (
                    "rule",
                    Value::Set(vec![obj(&[
                        ("name", s("r")),
                        ("target", Value::List(vec![t("h", id)])),
                    ])]),
                ),
            ])
        };
        let prior = state("a", s("t-1"));
        let proposed = state("b", s("t-1"));
        let config = state("b", Value::Null);
        let planned = Planner::new(block).plan(&prior, &proposed, &config).planned;
        assert_eq!(planned, state("b", s("t-1")));
    }

    #[test]
    fn a_set_inside_an_element_that_moved_keeps_nothing_of_its_neighbour() {
        let route = Block::new()
            .attribute("cidr", Attribute::required(Type::String))
            .attribute(
                "id",
                Attribute::computed(Type::String).use_state_for_unknown(),
            );
        let subnet = Block::new()
            .attribute("name", Attribute::required(Type::String))
            .block("route", NestedBlock::set(route));
        let block = Block::new().block("subnet", NestedBlock::list(subnet).match_by("name"));
        let sub = |name: &str, id: Value| {
            obj(&[
                ("name", s(name)),
                (
                    "route",
                    Value::Set(vec![obj(&[("cidr", s("0.0.0.0/0")), ("id", id)])]),
                ),
            ])
        };
        let list = |subs: Vec<Value>| obj(&[("subnet", Value::List(subs))]);
        let prior = list(vec![sub("a", s("r-a")), sub("b", s("r-b"))]);
        // `z` inserted first: by position, Terraform proposes a's route id for z, b's for a.
        let proposed = list(vec![
            sub("z", s("r-a")),
            sub("a", s("r-b")),
            sub("b", Value::Null),
        ]);
        let config = list(vec![
            sub("z", Value::Null),
            sub("a", Value::Null),
            sub("b", Value::Null),
        ]);
        let planned = Planner::new(block).plan(&prior, &proposed, &config).planned;
        let route_id = |i: usize| planned["subnet"][i]["route"].clone();
        for i in 0..3 {
            let Value::Set(rs) = route_id(i) else {
                panic!()
            };
            assert!(rs[0]["id"] != s("r-a") || i != 0, "z took a's route id");
            assert!(rs[0]["id"] != s("r-b") || i != 1, "a took b's route id");
        }
    }

    #[test]
    fn the_schema_check_finds_a_match_by_that_cannot_work() {
        let elem = || {
            Block::new()
                .attribute("name", Attribute::required(Type::String))
                .attribute("id", Attribute::computed(Type::String))
        };
        let block = Block::new()
            .block("a", NestedBlock::list(elem()).match_by("nmae"))
            .block("b", NestedBlock::list(elem()).match_by("id"))
            .block("c", NestedBlock::single(elem()).match_by("name"));
        let found: Vec<String> = block
            .check_schema()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            found,
            [
                "Invalid provider schema: `match_by` names `nmae`, which its elements do not have at a",
                "Invalid provider schema: `match_by` names `id`, which is computed only: the key must come from configuration at b",
                "Invalid provider schema: `match_by` pairs the elements of a list or a set only at c",
            ]
        );
        let _ = NestedType::list().match_by("x");
    }
}

// ---------------------------------------------------------------------------------------
// `requires_replace_if_configured` and `requires_replace_if` (terraform-plugin-framework's
// `RequiresReplaceIfConfigured` and `RequiresReplaceIf`).

mod replace_if {
    use super::*;

    /// A disk can grow in place; shrinking it replaces the server.
    fn shrinks(prior: &Value, planned: &Value, _config: &Value) -> bool {
        match (prior.as_i64(), planned.as_i64()) {
            (Some(p), Some(n)) => n < p,
            _ => false,
        }
    }

    #[derive(TfValue, Serialize, Deserialize)]
    struct Server {
        #[tfvalue(optional, computed, requires_replace_if_configured)]
        zone: Unknown<Option<String>>,
        #[tfvalue(requires_replace_if = shrinks)]
        disk_gb: Unknown<i64>,
        #[tfvalue(block)]
        nic: Unknown<Vec<Nic>>,
    }

    #[derive(TfValue, Serialize, Deserialize)]
    struct Nic {
        #[tfvalue(optional, requires_replace_if_configured)]
        subnet: Unknown<Option<String>>,
    }

    fn server(zone: Value, disk: i64, nic: Value) -> Value {
        obj(&[
            ("zone", zone),
            ("disk_gb", Value::from(disk)),
            ("nic", Value::List(vec![obj(&[("subnet", nic)])])),
        ])
    }

    fn replaced(prior: &Value, planned: &Value, config: &Value) -> Vec<AttributePath> {
        let planner = Planner::for_model::<Server>();
        assert!(planner.block().check_schema().is_empty());
        planner.plan(prior, planned, config).requires_replace
    }

    #[test]
    fn a_change_replaces_only_when_the_condition_holds() {
        let prior = server(s("eu-1a"), 100, s("a"));
        // The zone moved in configuration: replace.
        let next = server(s("eu-1b"), 100, s("a"));
        assert_eq!(
            replaced(&prior, &next, &next),
            [AttributePath::new().attr("zone")]
        );
        // The zone left to the provider (null in configuration), whatever it plans.
        let config = server(Value::Null, 100, s("a"));
        assert!(replaced(&prior, &next, &config).is_empty());
        // The disk grows in place, and shrinking replaces.
        let grown = server(s("eu-1a"), 200, s("a"));
        assert!(replaced(&prior, &grown, &grown).is_empty());
        let shrunk = server(s("eu-1a"), 50, s("a"));
        assert_eq!(
            replaced(&prior, &shrunk, &shrunk),
            [AttributePath::new().attr("disk_gb")]
        );
        // Inside a block, with the block's own configuration.
        let moved = server(s("eu-1a"), 100, s("b"));
        assert_eq!(
            replaced(&prior, &moved, &moved),
            [AttributePath::new().attr("nic").index(0).attr("subnet")]
        );
        let unset = server(s("eu-1a"), 100, Value::Null);
        assert!(
            replaced(&prior, &unset, &unset).is_empty(),
            "removed from configuration"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Defaults of lists, sets, maps and whole nested objects (terraform-plugin-framework's
// `listdefault`, `setdefault`, `mapdefault`, `objectdefault`; #726, #777), written in the
// derive as HCL writes them.

mod collection_defaults {
    use super::*;

    #[derive(TfValue, Serialize, Deserialize)]
    struct Listener {
        #[tfvalue(optional)]
        port: Unknown<Option<i64>>,
        #[tfvalue(optional)]
        host: Unknown<Option<String>>,
    }

    #[derive(TfValue, Serialize, Deserialize)]
    struct Service {
        #[tfvalue(optional, computed, default = ["eu-1a", "eu-1b"])]
        zones: Unknown<Option<Vec<String>>>,
        #[tfvalue(optional, computed, default = ["b", "a", "b"])]
        labels: Unknown<Option<BTreeSet<String>>>,
        #[tfvalue(optional, computed, default = { env = "dev", "team-name" = "web" })]
        tags: Unknown<Option<BTreeMap<String, String>>>,
        #[tfvalue(optional, computed, nested_type, default = { port = 80 })]
        listener: Unknown<Option<Listener>>,
        #[tfvalue(optional, computed, nested_type = "list", default = [{ port = 1, host = "a" }, { host = "b" }])]
        backends: Unknown<Option<Vec<Listener>>>,
        #[tfvalue(optional, computed, default = [])]
        empty: Unknown<Option<Vec<i64>>>,
    }

    #[test]
    fn defaults_of_collections_and_objects_fill_what_configuration_leaves_null() {
        let planner = Planner::for_model::<Service>();
        assert!(
            planner.block().check_schema().is_empty(),
            "{}",
            planner.block().check_schema()
        );
        let config = obj(&[
            ("zones", Value::Null),
            ("labels", Value::Null),
            ("tags", Value::Null),
            ("listener", Value::Null),
            ("backends", Value::Null),
            ("empty", Value::Null),
        ]);
        let planned = planner.plan(&Value::Null, &config, &config).planned;
        assert_eq!(planned["zones"], Value::List(vec![s("eu-1a"), s("eu-1b")]));
        assert_eq!(
            planned["labels"],
            Value::Set(vec![s("a"), s("b")]),
            "a set: canonical, once each"
        );
        assert_eq!(
            planned["tags"],
            Value::Map(
                [("env", s("dev")), ("team-name", s("web"))]
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect()
            )
        );
        let listener = |port: Value, host: Value| obj(&[("host", host), ("port", port)]);
        assert_eq!(
            planned["listener"],
            listener(Value::from(80), Value::Null),
            "missing attributes null"
        );
        assert_eq!(
            planned["backends"],
            Value::List(vec![
                listener(Value::from(1), s("a")),
                listener(Value::Null, s("b"))
            ])
        );
        assert_eq!(planned["empty"], Value::List(vec![]));
        // The whole value conforms to the implied type, as Terraform requires of a plan.
        planned
            .conforms_to(&planner.block().implied_type())
            .unwrap();
        // A configured value wins.
        let mut configured = config.clone();
        configured["zones"] = Value::List(vec![s("us-1a")]);
        let planned = planner.plan(&Value::Null, &configured, &configured).planned;
        assert_eq!(planned["zones"], Value::List(vec![s("us-1a")]));
        // The description the server sends says it as `terraform console` shows a map.
        let shown = planner.block().attributes["tags"]
            .default
            .as_ref()
            .unwrap()
            .to_string();
        assert!(shown.contains(r#""team-name" = "web""#), "{shown}");
    }

    #[test]
    fn a_default_that_does_not_fit_is_a_schema_problem() {
        #[derive(TfValue, Serialize, Deserialize)]
        struct Bad {
            #[tfvalue(optional, computed, nested_type, default = { prot = 80 })]
            listener: Unknown<Option<Listener>>,
            #[tfvalue(optional, computed, default = [1, "x"])]
            ports: Unknown<Option<Vec<i64>>>,
        }
        let found: Vec<String> = Bad::block()
            .check_schema()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].contains("the default { host = null, port = null, prot = 80 } does not fit"),
            "{}",
            found[0]
        );
        assert!(
            found[1].contains("the default [1, \"x\"] does not fit"),
            "{}",
            found[1]
        );
    }
}
