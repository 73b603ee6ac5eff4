//! Provider models against what Terraform really sends (issue 11): the payloads of
//! Terraform v1.0.3 for the example provider, written here byte by byte from the facts in
//! PLUGIN-NOTES (computed attributes null in configuration, references unknown, a block
//! list from a `dynamic` block over an unknown collection, numbers as fixint, float64 or
//! decimal text), decoded into the model the tutorial teaches; the plan helper; string
//! enums and validators; and the property that a derived model decodes every value of its
//! implied type with nulls and unknowns wherever the protocol puts them.

// Tests may panic: the workspace lints are for library code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use tfvalue::schema::{plan_model, Diagnostic, DiagnosticKind, Severity, Validator};
use tfvalue::{
    AttributePath, Dynamic, DynamicValue, Number, Refinements, TfModel, TfValue, Type, Unknown,
    Value,
};

// ---------------------------------------------------------------------------------------
// The model, written the way the tutorial teaches.

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
enum DiskKind {
    Ssd,
    Hdd,
}

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Disk {
    size_gb: Unknown<u32>,
    #[tfvalue(optional)]
    kind: Unknown<Option<DiskKind>>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Server {
    #[tfvalue(requires_replace, min_length = 1, pattern = "^[a-z][a-z0-9-]*$")]
    name: Unknown<String>,
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    #[tfvalue(computed)]
    ipv4_address: Unknown<Option<String>>,
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
    #[tfvalue(optional, sensitive)]
    root_password: Unknown<Option<String>>,
    #[tfvalue(block, min_items = 1, max_items = 8)]
    disk: Unknown<Vec<Disk>>,
}

// MessagePack, written by hand.
const NIL: &[u8] = &[0xc0];
const UNKNOWN: &[u8] = &[0xd4, 0x00, 0x00];

fn map(n: u8) -> Vec<u8> {
    vec![0x80 | n]
}

fn arr(n: u8) -> Vec<u8> {
    vec![0x90 | n]
}

fn s(text: &str) -> Vec<u8> {
    let mut out = vec![0xa0 | u8::try_from(text.len()).unwrap()];
    out.extend_from_slice(text.as_bytes());
    out
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// An object with its attributes in name order, as Terraform writes them.
fn object(attrs: &[(&str, &[u8])]) -> Vec<u8> {
    let mut sorted = attrs.to_vec();
    sorted.sort_by_key(|(k, _)| *k);
    let mut out = map(u8::try_from(sorted.len()).unwrap());
    for (k, v) in sorted {
        out.extend(s(k));
        out.extend_from_slice(v);
    }
    out
}

fn decode(bytes: Vec<u8>) -> Server {
    DynamicValue::from_msgpack(bytes).decode().unwrap()
}

#[test]
fn a_config_with_a_reference_and_a_dynamic_block_over_an_unknown_collection() {
    // name = thing.other.id, disk from `dynamic "disk" { for_each = thing.other.disks }`,
    // tags = { env = thing.other.env }; id and ipv4_address are computed: null.
    let tags = cat(&[&map(1), &s("env"), UNKNOWN]);
    let bytes = object(&[
        ("disk", UNKNOWN),
        ("id", NIL),
        ("ipv4_address", NIL),
        ("name", UNKNOWN),
        ("root_password", &s("s3cret")),
        ("tags", &tags),
    ]);
    let config = decode(bytes.clone());
    assert!(config.name.is_unknown());
    assert!(config.id.is_null());
    assert!(config.ipv4_address.is_null());
    assert!(config.disk.is_unknown());
    assert_eq!(config.root_password.as_deref(), Some("s3cret"));
    assert!(config.tags.value().unwrap()["env"].is_unknown());
    // Written back exactly as read.
    assert_eq!(tfvalue::msgpack::to_vec(&config).unwrap(), bytes);
    // And valid configuration for the derived schema.
    let v = Value::from_msgpack(&bytes, &Server::tf_type()).unwrap();
    assert_eq!(Server::block().validate_config(&v).to_string(), "");
}

#[test]
fn a_config_with_unknowns_inside_blocks_and_every_number_form() {
    let disk1 = object(&[("kind", &s("ssd")), ("size_gb", &[0x28])]);
    let disk2 = object(&[("kind", UNKNOWN), ("size_gb", UNKNOWN)]);
    let disks = cat(&[&arr(2), &disk1, &disk2]);
    let bytes = object(&[
        ("disk", &disks),
        ("id", NIL),
        ("ipv4_address", NIL),
        ("name", &s("web-1")),
        ("root_password", NIL),
        ("tags", NIL),
    ]);
    let config = decode(bytes);
    let Unknown::Known(disks) = &config.disk else {
        panic!("known disks")
    };
    assert_eq!(disks[0].size_gb, Unknown::Known(40));
    assert_eq!(disks[0].kind, Unknown::Known(Some(DiskKind::Ssd)));
    assert!(disks[1].size_gb.is_unknown() && disks[1].kind.is_unknown());
    assert!(config.root_password.is_null() && config.tags.is_null());

    // Numbers: a positive fixint, a float64, and decimal text.
    #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    struct Numbers {
        count: Unknown<u32>,
        #[tfvalue(optional)]
        ratio: Unknown<Option<f64>>,
        #[tfvalue(optional)]
        big: Unknown<Option<Number>>,
        #[tfvalue(optional)]
        tenth: Unknown<Option<Number>>,
    }
    let mut float = vec![0xcb];
    float.extend_from_slice(&(-1.5f64).to_be_bytes());
    let bytes = object(&[
        ("big", &s("12345678901234567890")),
        ("count", &[0x07]),
        ("ratio", &float),
        ("tenth", &s("0.1")),
    ]);
    let n: Numbers = DynamicValue::from_msgpack(bytes).decode().unwrap();
    assert_eq!(n.count, Unknown::Known(7));
    assert_eq!(n.ratio.value(), Some(&-1.5));
    assert_eq!(n.big.value().unwrap().to_string(), "12345678901234567890");
    assert_eq!(n.tenth.value().unwrap().to_string(), "0.1");
}

fn prior_bytes() -> Vec<u8> {
    let disk = object(&[("kind", &s("hdd")), ("size_gb", &[0x50])]);
    let disks = cat(&[&arr(1), &disk]);
    let tags = cat(&[&map(1), &s("env"), &s("prod")]);
    object(&[
        ("disk", &disks),
        ("id", &s("srv-8f2a")),
        ("ipv4_address", &s("10.0.3.7")),
        ("name", &s("web-1")),
        ("root_password", NIL),
        ("tags", &tags),
    ])
}

#[test]
fn prior_state_proposed_new_state_and_the_plan() {
    let prior = decode(prior_bytes());
    assert_eq!(prior.id.as_deref(), Some("srv-8f2a"));

    // The proposal for `name = thing.other.name` (unknown): Terraform has copied the
    // computed values from the prior state.
    let disk = object(&[("kind", &s("hdd")), ("size_gb", &[0x50])]);
    let disks = cat(&[&arr(1), &disk]);
    let proposed_bytes = object(&[
        ("disk", &disks),
        ("id", &s("srv-8f2a")),
        ("ipv4_address", &s("10.0.3.7")),
        ("name", UNKNOWN),
        ("root_password", NIL),
        ("tags", NIL),
    ]);
    let proposed = decode(proposed_bytes);
    let config = Server {
        id: Unknown::null(),
        ipv4_address: Unknown::null(),
        ..proposed.clone()
    };
    let plan = plan_model(Some(&prior), Some(&proposed), Some(&config)).unwrap();
    // The object changes, so its computed attributes (neither `use_state_for_unknown`)
    // are unknown; the unknown name replaces the server.
    let expected = Server {
        id: Unknown::unknown(),
        ipv4_address: Unknown::unknown(),
        ..proposed.clone()
    };
    assert_eq!(plan.planned.as_ref(), Some(&expected));
    assert_eq!(plan.requires_replace, [AttributePath::new().attr("name")]);

    // The planned state a provider returns on create, with refined unknowns (ext 12):
    // id not null; ipv4_address not null with prefix "10.0.".
    let id = [0xc7, 0x03, 0x0c, 0x81, 0x01, 0xc2];
    let mut ip = vec![0xc7, 0x0a, 0x0c, 0x82, 0x01, 0xc2, 0x02];
    ip.extend(s("10.0."));
    let planned_bytes = object(&[
        ("disk", &disks),
        ("id", &id),
        ("ipv4_address", &ip),
        ("name", &s("web-1")),
        ("root_password", NIL),
        ("tags", NIL),
    ]);
    let planned = decode(planned_bytes.clone());
    assert!(planned.id.refinements().unwrap().is_not_null());
    assert_eq!(
        planned.ipv4_address.refinements().unwrap().prefix(),
        Some("10.0.")
    );
    // The planner writes exactly these bytes.
    let create = Server {
        id: Unknown::null(),
        ipv4_address: Unknown::null(),
        ..planned.clone()
    };
    let plan = Server::planner()
        .refine("id", Refinements::new().not_null())
        .unwrap()
        .refine(
            "ipv4_address",
            Refinements::new().not_null().with_prefix("10.0."),
        )
        .unwrap()
        .plan_model(None, Some(&create), Some(&create))
        .unwrap();
    assert!(plan.requires_replace.is_empty());
    assert_eq!(
        tfvalue::msgpack::to_vec(&plan.planned.unwrap()).unwrap(),
        planned_bytes
    );

    // Destroy: the proposed new state is null.
    let gone: Option<Server> = DynamicValue::from_msgpack(NIL.to_vec()).decode().unwrap();
    assert!(gone.is_none());
    let plan = plan_model::<Server>(Some(&prior), None, None).unwrap();
    assert_eq!(plan.planned, None);
}

#[test]
fn check_apply_on_models() {
    let prior = decode(prior_bytes());
    let planned = Server {
        ipv4_address: Unknown::unknown().not_null().with_prefix("10.0."),
        ..prior.clone()
    };
    assert!(Server::check_apply(&planned, &prior).is_empty());
    let applied = Server {
        ipv4_address: "192.168.0.1".to_owned().into(),
        name: "web-2".to_owned().into(),
        ..prior
    };
    let d = Server::check_apply(&planned, &applied);
    let found: Vec<(DiagnosticKind, String)> =
        d.iter().map(|d| (d.kind(), d.to_string())).collect();
    assert_eq!(
        found,
        [
            (
                DiagnosticKind::Refinement,
                r#"Provider produced inconsistent result after apply: final value "192.168.0.1" does not start with the refined prefix "10.0." at ipv4_address"#.to_owned()
            ),
            (
                DiagnosticKind::Changed,
                r#"Provider produced inconsistent result after apply: was "web-1", but now "web-2" at name"#.to_owned()
            ),
        ]
    );
    assert_eq!(
        d[0].summary(),
        "Provider produced inconsistent result after apply"
    );
    assert_eq!(d[0].severity(), Severity::Error);
}

// ---------------------------------------------------------------------------------------
// The plan helper on values.

#[test]
fn plan_marks_computed_nulls_unknown_at_any_depth_and_lists_replacements() {
    #[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
    struct Rule {
        #[tfvalue(requires_replace)]
        port: Unknown<u16>,
        #[tfvalue(computed)]
        rule_id: Unknown<Option<String>>,
    }
    #[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
    struct Fw {
        name: Unknown<String>,
        #[tfvalue(computed)]
        id: Unknown<Option<String>>,
        #[tfvalue(optional, computed)]
        region: Unknown<Option<String>>,
        #[tfvalue(block)]
        rule: Unknown<Vec<Rule>>,
    }
    let rule = |port: u16, id: Unknown<Option<String>>| Rule {
        port: port.into(),
        rule_id: id,
    };
    let config = Fw {
        name: "fw".to_owned().into(),
        id: Unknown::null(),
        region: Unknown::null(),
        rule: vec![rule(80, Unknown::null()), rule(443, Unknown::null())].into(),
    };
    let planner = Fw::planner().refine_with(|path, _| {
        (path.to_string() == "rule[1].rule_id").then(|| Refinements::new().with_prefix("r-"))
    });
    let plan = planner
        .plan_model(None, Some(&config), Some(&config))
        .unwrap();
    let planned = plan.planned.unwrap();
    assert!(planned.id.is_unknown());
    assert!(planned.region.is_unknown());
    let Unknown::Known(rules) = &planned.rule else {
        panic!()
    };
    assert_eq!(rules[0].rule_id, Unknown::unknown());
    assert_eq!(rules[1].rule_id.refinements().unwrap().prefix(), Some("r-"));

    // Update: the second rule's port changes, a third rule appears.
    let prior = Fw {
        id: Some("fw-1".to_owned()).into(),
        region: Some("eu".to_owned()).into(),
        rule: vec![
            rule(80, Some("r-1".to_owned()).into()),
            rule(443, Some("r-2".to_owned()).into()),
        ]
        .into(),
        ..config.clone()
    };
    let proposed = Fw {
        rule: vec![
            rule(80, Some("r-1".to_owned()).into()),
            rule(8443, Some("r-2".to_owned()).into()),
            rule(22, Unknown::null()),
        ]
        .into(),
        ..prior.clone()
    };
    let plan = plan_model(Some(&prior), Some(&proposed), Some(&proposed)).unwrap();
    let paths: Vec<String> = plan
        .requires_replace
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(paths, ["rule[1].port", "rule[2].port"]);
    let Unknown::Known(rules) = plan.planned.unwrap().rule else {
        panic!()
    };
    assert!(rules[2].rule_id.is_unknown());
    assert_eq!(rules[1].rule_id.as_deref(), Some("r-2"));

    // No change: the plan is the prior state, nothing becomes unknown.
    let plan = plan_model(Some(&prior), Some(&prior), Some(&config)).unwrap();
    assert_eq!(plan.planned.as_ref(), Some(&prior));
    assert!(plan.requires_replace.is_empty());

    // A whole block list that is unknown stays unknown.
    let unknown_rules = Fw {
        rule: Unknown::unknown(),
        ..config
    };
    let plan = plan_model(None, Some(&unknown_rules), Some(&unknown_rules)).unwrap();
    assert!(plan.planned.unwrap().rule.is_unknown());
}

// ---------------------------------------------------------------------------------------
// Unknown<T> in sets and maps, and the conveniences of Unknown<Option<T>>.

#[test]
fn unknowns_sit_in_sets_and_maps() {
    #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    struct Group {
        #[tfvalue(optional)]
        members: Unknown<Option<BTreeSet<Unknown<String>>>>,
        #[tfvalue(optional)]
        labels: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
        ports: Unknown<Vec<Unknown<u16>>>,
    }
    assert_eq!(
        Group::tf_type().to_string(),
        "object({labels=map(string),members=set(string),ports=list(number)})"
    );
    let set: BTreeSet<Unknown<String>> = [
        Unknown::Known("b".to_owned()),
        Unknown::unknown().with_prefix("x"),
        Unknown::Known("a".to_owned()),
    ]
    .into();
    let g = Group {
        members: Some(set).into(),
        labels: Some(BTreeMap::from([("k".to_owned(), Unknown::unknown())])).into(),
        ports: vec![
            Unknown::Known(80),
            Unknown::unknown().with_lower_bound(1024, true),
        ]
        .into(),
    };
    let bytes = tfvalue::msgpack::to_vec(&g).unwrap();
    let back: Group = tfvalue::msgpack::from_slice(&bytes).unwrap();
    assert_eq!(back, g);
    let v = Value::from_msgpack(&bytes, &Group::tf_type()).unwrap();
    assert!(v["members"].get(2).unwrap().is_unknown());
    // Known values order before unknowns, as `Unknown` declares its variants.
    assert!(Unknown::Known(9) < Unknown::<u8>::unknown());
}

#[test]
fn conveniences_of_a_value_that_may_be_null_or_unknown() {
    let mut x: Unknown<Option<String>> = "a".to_owned().into();
    assert_eq!(x.value().map(String::as_str), Some("a"));
    assert!(!x.is_null() && x.is_known() && !x.is_unknown());
    x = Unknown::null();
    assert!(x.is_null() && x.value().is_none());
    x = Unknown::unknown();
    assert!(!x.is_null() && x.is_unknown() && x.into_value().is_none());
    let y: Unknown<Option<u8>> = Some(3).into();
    assert_eq!(y.known(), Some(&Some(3)));
}

// ---------------------------------------------------------------------------------------
// String enums and validators (issue 12, item 6).

#[test]
fn a_string_enum_is_a_string_attribute_that_accepts_its_variants() {
    #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "kebab-case")]
    enum Tier {
        Standard,
        HighIo,
        #[serde(rename = "gp3")]
        GeneralPurpose,
    }
    #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    struct Volume {
        tier: Unknown<Tier>,
        #[tfvalue(optional)]
        backup_tier: Unknown<Option<Tier>>,
    }
    assert_eq!(Tier::tf_type(), Type::String);
    assert_eq!(
        Tier::accepted_values(),
        Some(&["standard", "high-io", "gp3"][..])
    );
    let b = Volume::block();
    assert_eq!(
        b.attributes["tier"].validators,
        [Validator::one_of(["standard", "high-io", "gp3"])]
    );
    assert_eq!(
        b.attributes["tier"].validators,
        b.attributes["backup_tier"].validators
    );
    // serde writes what the schema accepts.
    let v = Volume {
        tier: Tier::HighIo.into(),
        backup_tier: Some(Tier::GeneralPurpose).into(),
    };
    let value =
        Value::from_msgpack(&tfvalue::msgpack::to_vec(&v).unwrap(), &Volume::tf_type()).unwrap();
    assert_eq!(value["tier"], "high-io");
    assert!(b.validate(&value).is_empty());
    // A value from configuration that is not a variant: a diagnostic at its path.
    let bad = Value::Object(
        [
            ("tier".to_owned(), Value::from("fast")),
            ("backup_tier".to_owned(), Value::Unknown(Refinements::new())),
        ]
        .into(),
    );
    let d = b.validate_config(&bad);
    assert_eq!(
        d.to_string(),
        r#"Invalid attribute value: value must be one of "standard", "high-io", "gp3", found "fast" at tier"#
    );
    assert_eq!(d[0].kind(), DiagnosticKind::Validator);
    assert_eq!(d[0].summary(), "Invalid attribute value");
}

#[test]
fn validators_report_diagnostics_with_paths() {
    #[derive(TfValue, Serialize, Deserialize, Debug)]
    struct Rule {
        #[tfvalue(one_of = ["tcp", "udp"])]
        protocol: Unknown<String>,
        #[tfvalue(optional, max_length = 2)]
        cidrs: Unknown<Option<Vec<Unknown<String>>>>,
    }
    #[derive(TfValue, Serialize, Deserialize, Debug)]
    struct Fw {
        #[tfvalue(min_length = 3, max_length = 8, pattern = r"^[a-z]+-?\d*$")]
        name: Unknown<String>,
        #[tfvalue(block)]
        rule: Unknown<Vec<Rule>>,
    }
    assert!(Fw::block().check_schema().is_empty());
    let fw = Fw {
        name: "Fw".to_owned().into(),
        rule: vec![
            Rule {
                protocol: "tcp".to_owned().into(),
                cidrs: Unknown::unknown(),
            },
            Rule {
                protocol: "icmp".to_owned().into(),
                cidrs: Some(vec![
                    "a".to_owned().into(),
                    "b".to_owned().into(),
                    Unknown::unknown(),
                ])
                .into(),
            },
        ]
        .into(),
    };
    let v = Value::from_msgpack(&tfvalue::msgpack::to_vec(&fw).unwrap(), &Fw::tf_type()).unwrap();
    let found: Vec<String> = Fw::block()
        .validate(&v)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        found,
        [
            "Invalid attribute value: length must be at least 3, found 2 at name",
            r#"Invalid attribute value: value must match the pattern `^[a-z]+-?\d*$`, found "Fw" at name"#,
            "Invalid attribute value: number of elements must be at most 2, found 3 at rule[1].cidrs",
            r#"Invalid attribute value: value must be one of "tcp", "udp", found "icmp" at rule[1].protocol"#,
        ]
    );
}

#[test]
fn diagnostics_have_severity_summary_detail_and_path() {
    let err = tfvalue::msgpack::from_slice::<Server>(&object(&[("name", &[0x01])])).unwrap_err();
    let d = Diagnostic::from(err);
    assert_eq!(d.severity(), Severity::Error);
    assert_eq!(d.summary(), "Invalid value");
    assert!(!d.detail().is_empty());
    let w = Diagnostic::warning("Deprecated")
        .with_detail("use `size_gb`")
        .with_path(AttributePath::new().attr("size"));
    assert_eq!(
        (w.severity(), w.summary(), w.detail()),
        (Severity::Warning, "Deprecated", "use `size_gb`")
    );
    let mut all = tfvalue::schema::Diagnostics::from(w);
    assert!(!all.has_errors());
    all.push(d);
    assert!(all.has_errors());
}

// ---------------------------------------------------------------------------------------
// The property: a model decodes every value of its implied type, with nulls and unknowns
// wherever Terraform puts them.

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct PRule {
    port: Unknown<u16>,
    #[tfvalue(optional)]
    cidrs: Unknown<Option<Vec<Unknown<String>>>>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct PNet {
    subnet: Unknown<String>,
    #[tfvalue(computed)]
    ip: Unknown<Option<String>>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct PServer {
    name: Unknown<String>,
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    #[tfvalue(optional, computed)]
    size: Unknown<Option<Number>>,
    #[tfvalue(optional)]
    enabled: Unknown<Option<bool>>,
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
    #[tfvalue(optional)]
    ports: Unknown<Option<BTreeSet<Unknown<u16>>>>,
    #[tfvalue(optional)]
    kind: Unknown<Option<DiskKind>>,
    extra: Dynamic,
    #[tfvalue(block)]
    rule: Unknown<Vec<PRule>>,
    #[tfvalue(block)]
    network: Unknown<Option<PNet>>,
}

fn unknown() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Unknown(Refinements::new())),
        Just(Value::Unknown(Refinements::new().not_null())),
    ]
}

/// A known value from `known`, or an unknown.
fn or_unknown(known: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
    prop_oneof![3 => known, 1 => unknown()].boxed()
}

/// A known value, null, or an unknown.
fn or_null(known: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
    prop_oneof![3 => known, 1 => Just(Value::Null), 1 => unknown()].boxed()
}

fn string() -> impl Strategy<Value = Value> {
    "[a-z0-9 ._é-]{0,6}".prop_map(Value::String)
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(|f| Value::Number(Number::from_f64(f).unwrap())),
        "-?[1-9][0-9]{0,30}\\.[0-9]{1,10}".prop_map(|t| Value::Number(t.parse().unwrap())),
    ]
}

fn port() -> impl Strategy<Value = Value> {
    any::<u16>().prop_map(Value::from)
}

fn obj_of(attrs: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    let (names, strategies): (Vec<_>, Vec<_>) = attrs.into_iter().unzip();
    strategies
        .prop_map(move |values| {
            Value::Object(names.iter().map(|n| (*n).to_owned()).zip(values).collect())
        })
        .boxed()
}

fn rule() -> BoxedStrategy<Value> {
    obj_of(vec![
        ("port", or_unknown(port())),
        (
            "cidrs",
            or_null(prop::collection::vec(or_unknown(string()), 0..3).prop_map(Value::List)),
        ),
    ])
}

fn server_value() -> BoxedStrategy<Value> {
    // A set holds at most one unknown element here: `BTreeSet<Unknown<T>>` merges equal
    // unknowns, where Terraform keeps each unknown element apart.
    let ports = (
        prop::collection::btree_set(any::<u16>(), 0..4),
        prop::option::of(unknown()),
    )
        .prop_map(|(known, unknown)| {
            Value::Set(known.into_iter().map(Value::from).chain(unknown).collect())
        });
    // An unknown of type `dynamic` carries no refinements on the wire.
    let extra = prop_oneof![
        Just(Value::Null),
        Just(Value::Unknown(Refinements::new())),
        string().prop_map(|v| Value::Dynamic(Box::new(Dynamic::new(Type::String, v)))),
        prop::collection::vec(or_unknown(number()), 0..3).prop_map(|v| Value::Dynamic(Box::new(
            Dynamic::new(Type::list(Type::Number), Value::List(v))
        ))),
    ];
    obj_of(vec![
        ("name", or_unknown(string())),
        ("id", or_null(string())),
        ("size", or_null(number())),
        ("enabled", or_null(any::<bool>().prop_map(Value::Bool))),
        (
            "tags",
            or_null(
                prop::collection::btree_map("[a-z]{1,3}", or_unknown(string()), 0..3)
                    .prop_map(|m| Value::Map(m.into())),
            ),
        ),
        ("ports", or_null(ports)),
        (
            "kind",
            or_null(prop_oneof![
                Just(Value::from("ssd")),
                Just(Value::from("hdd"))
            ]),
        ),
        ("extra", extra.boxed()),
        (
            "rule",
            or_unknown(prop::collection::vec(rule(), 0..3).prop_map(Value::List)),
        ),
        (
            "network",
            or_null(obj_of(vec![
                ("subnet", or_unknown(string())),
                ("ip", or_null(string())),
            ])),
        ),
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_model_decodes_every_value_with_nulls_and_unknowns_anywhere(v in server_value()) {
        let ty = PServer::tf_type();
        prop_assert!(v.conforms_to(&ty).is_ok(), "{:?}", v.conforms_to(&ty));
        let bytes = v.to_msgpack(&ty).unwrap();
        let model: PServer = DynamicValue::from_msgpack(bytes.clone()).decode().unwrap();
        // Nothing is lost: the model writes the same value back.
        let again = tfvalue::msgpack::to_vec(&model).unwrap();
        prop_assert_eq!(Value::from_msgpack(&again, &ty).unwrap(), v);
        // The plan of a create from it decodes into the model too.
        let plan = PServer::planner().plan_model(None, Some(&model), Some(&model)).unwrap();
        let planned = plan.planned.unwrap();
        prop_assert!(planned.id.is_known() == model.id.value().is_some());
    }
}

/// `v` with every unknown made null: what JSON, which has no unknowns, can carry.
fn settle(v: &mut Value) {
    match v {
        Value::Unknown(_) => *v = Value::Null,
        Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => xs.iter_mut().for_each(settle),
        Value::Map(m) | Value::Object(m) => m.values_mut().for_each(settle),
        Value::Dynamic(d) => settle(d.value_mut()),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// JSON read through MessagePack (`decode_as`, and the versioning codec, which
    /// compile no JSON decoder for the model) gives what the JSON decoder gives: the same
    /// model, or an error at the same attribute.
    #[test]
    fn json_through_msgpack_decodes_as_the_json_decoder_does(mut v in server_value()) {
        settle(&mut v);
        let ty = PServer::tf_type();
        let json = v.to_json(&ty).unwrap();
        let dv = DynamicValue::from_json(json.clone());
        let direct = dv.decode::<PServer>();
        let through = dv.decode_as::<PServer>(&ty);
        let codec = tfvalue::codec::Codec::<PServer>::new();
        let raw = tfvalue::codec::RawState::from_json(json);
        let stored = codec.decode(0, &raw);
        let owned = codec.decode_owned(0, raw.clone());
        match (&direct, &through, &stored, &owned) {
            (Ok(a), Ok(b), Ok(c), Ok(d)) => {
                prop_assert_eq!(a, b);
                prop_assert_eq!(a, c);
                prop_assert_eq!(a, d);
            }
            (Err(a), Err(b), Err(c), Err(d)) => {
                prop_assert_eq!(a.path(), b.path());
                prop_assert_eq!(a.path(), c.path());
                prop_assert_eq!(a.path(), d.path());
                prop_assert_eq!(b.offset(), None, "an offset in bytes the caller never saw");
            }
            _ => prop_assert!(
                false,
                "the paths disagree: {:?} / {:?} / {:?} / {:?}",
                direct.err(),
                through.err(),
                stored.err(),
                owned.err()
            ),
        }
    }
}

#[test]
fn a_stored_json_state_decodes_into_the_same_model() {
    // RawState.json of UpgradeResourceState: JSON, never unknown.
    let json = br#"{"disk":[{"kind":null,"size_gb":80}],"id":"srv-8f2a","ipv4_address":"10.0.3.7",
        "name":"web-1","root_password":null,"tags":{"env":"prod"}}"#;
    let state: Server = tfvalue::json::from_slice(json).unwrap();
    assert_eq!(state, {
        let mut s = decode(prior_bytes());
        if let Unknown::Known(disks) = &mut s.disk {
            disks[0].kind = Unknown::null();
        }
        s
    });
    assert!(state.root_password.is_null());
}

// ---------------------------------------------------------------------------------------
// `Dynamic` from every deserializer: tfvalue's own hand a decoded value over to it, and a
// deserializer that knows nothing of tfvalue (serde_json used directly) gives the JSON
// form, in either order.

#[derive(Deserialize, Debug, PartialEq)]
struct WithDynamic {
    name: String,
    extra: Dynamic,
    more: Option<Dynamic>,
}

#[test]
fn dynamic_from_a_deserializer_that_does_not_know_tfvalue() {
    let d: Dynamic = serde_json::from_str(r#"{"type":["list","number"],"value":[1,2.5]}"#).unwrap();
    assert_eq!(d.ty(), &Type::list(Type::Number));
    assert_eq!(
        d.value(),
        &Value::List(vec![Value::from(1), Value::from(2.5)])
    );
    // The value first, then its type.
    let d: Dynamic =
        serde_json::from_str(r#"{"value":{"a":"x"},"type":["map","string"]}"#).unwrap();
    assert_eq!(d.ty(), &Type::map(Type::String));
    assert_eq!(
        d.value(),
        &Value::Map([("a".to_owned(), Value::from("x"))].into())
    );
    // The pair form, the type as its JSON text.
    let d: Dynamic = serde_json::from_str(r#"["\"bool\"", true]"#).unwrap();
    assert_eq!((d.ty(), d.value()), (&Type::Bool, &Value::Bool(true)));
    let d: Dynamic = serde_json::from_str("null").unwrap();
    assert_eq!(d, Dynamic::null());
    // Numbers are read from their text: exact, as tfvalue::json reads them.
    let d: Dynamic = serde_json::from_str(
        r#"{"type":["list","number"],"value":[0.1,123456789012345678901234567890]}"#,
    )
    .unwrap();
    let exact: Dynamic = tfvalue::json::from_str(
        r#"{"type":["list","number"],"value":[0.1,123456789012345678901234567890]}"#,
    )
    .unwrap();
    assert_eq!(d, exact);
    assert_eq!(
        d.value(),
        &Value::List(vec![
            Value::Number("0.1".parse().unwrap()),
            Value::Number("123456789012345678901234567890".parse().unwrap()),
        ])
    );
    // A dynamic value inside one.
    let d: Dynamic = serde_json::from_str(
        r#"{"type":["object",{"d":"dynamic"}],"value":{"d":{"value":"x","type":"string"}}}"#,
    )
    .unwrap();
    assert_eq!(d.ty(), &Type::object([("d", Type::String)]));
    assert_eq!(
        d.value(),
        &Value::Object([("d".to_owned(), Value::from("x"))].into())
    );

    let err = serde_json::from_str::<Dynamic>(r#"{"type":"string"}"#).unwrap_err();
    assert!(err.to_string().contains("missing field `value`"), "{err}");
    let err =
        serde_json::from_str::<Dynamic>(r#"{"type":"string","value":"x","also":1}"#).unwrap_err();
    assert!(err.to_string().contains("unknown field `also`"), "{err}");
    let err = serde_json::from_str::<Dynamic>(r#"{"type":"number","value":"ten"}"#).unwrap_err();
    assert!(err.to_string().contains("number"), "{err}");

    let m: WithDynamic =
        serde_json::from_str(r#"{"name":"n","extra":{"type":"string","value":"x"},"more":null}"#)
            .unwrap();
    assert_eq!(m.extra, Dynamic::new(Type::String, Value::from("x")));
    assert_eq!(m.more, None);

    // Another foreign deserializer: a clear error, nothing guessed.
    let err = Dynamic::deserialize(
        serde::de::value::StrDeserializer::<serde::de::value::Error>::new("x"),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("expected a dynamic value"),
        "{err}"
    );
}

#[test]
fn dynamic_fields_from_msgpack_and_from_a_value_agree() {
    let ty = Type::object([
        ("name", Type::String),
        ("extra", Type::Dynamic),
        ("more", Type::Dynamic),
    ]);
    let extra = Dynamic::new(
        Type::list(Type::Number),
        Value::List(vec![Value::from(1), Value::from(2)]),
    );
    for more in [
        Value::Null,
        Value::Dynamic(Box::new(Dynamic::new(Type::Bool, Value::Bool(false)))),
    ] {
        let value = Value::Object(
            [
                ("name".to_owned(), Value::from("n")),
                ("extra".to_owned(), Value::Dynamic(Box::new(extra.clone()))),
                ("more".to_owned(), more.clone()),
            ]
            .into(),
        );
        let bytes = DynamicValue::encode_value(&value, &ty).unwrap();
        let from_wire: WithDynamic = bytes.decode().unwrap();
        let from_value: WithDynamic = tfvalue::from_value(&value).unwrap();
        assert_eq!(from_wire, from_value);
        assert_eq!(from_wire.extra, extra);
        assert_eq!(from_wire.more.is_some(), !more.is_null());
        // Nothing is left behind for the next decode: a foreign one after it sees only its
        // own input.
        let d: Dynamic = serde_json::from_str(r#"{"type":"string","value":"y"}"#).unwrap();
        assert_eq!(d, Dynamic::new(Type::String, Value::from("y")));
    }
    // A dynamic value whose type and value disagree is an error that names the attribute.
    let bad = b"\x83\xa4name\xa1n\xa5extra\x92\xc4\x08\"string\"\x05\xa4more\xc0";
    let err = DynamicValue::from_msgpack(bad.to_vec())
        .decode::<WithDynamic>()
        .unwrap_err();
    assert!(err.to_string().contains("extra"), "{err}");
}

#[derive(Deserialize, Debug, PartialEq)]
struct Nested {
    outer: Dynamic,
    label: Unknown<Option<String>>,
    size: Unknown<Option<Number>>,
}

/// Values handed over inside values handed over: a dynamic object with a dynamic attribute
/// and refined unknowns in it, next to refined unknowns of the model's own fields. The
/// model's fields come out as the `Value` decoder reads the same bytes.
#[test]
fn handed_over_values_nest() {
    let inner = Value::Dynamic(Box::new(Dynamic::new(
        Type::list(Type::String),
        Value::List(vec![
            Value::from("a"),
            Value::Unknown(Refinements::new().not_null().with_prefix("b-")),
        ]),
    )));
    let outer = Dynamic::new(
        Type::object([("x", Type::Dynamic), ("n", Type::Number)]),
        Value::Object(
            [
                ("x".to_owned(), inner),
                (
                    "n".to_owned(),
                    Value::Unknown(Refinements::new().with_lower_bound(3, true)),
                ),
            ]
            .into(),
        ),
    );
    let ty = Type::object([
        ("outer", Type::Dynamic),
        ("label", Type::String),
        ("size", Type::Number),
    ]);
    let value = Value::Object(
        [
            ("outer".to_owned(), Value::Dynamic(Box::new(outer))),
            (
                "label".to_owned(),
                Value::Unknown(Refinements::new().with_prefix("l-")),
            ),
            (
                "size".to_owned(),
                Value::Unknown(Refinements::new().with_lower_bound(1, false)),
            ),
        ]
        .into(),
    );
    let bytes = DynamicValue::encode_value(&value, &ty).unwrap();
    let as_value = bytes.decode_value(&ty).unwrap();
    let model: Nested = bytes.decode().unwrap();
    let from_value: Nested = tfvalue::from_value(&as_value).unwrap();
    assert_eq!(model, from_value);
    let Value::Object(o) = &as_value else {
        panic!("{as_value:?}")
    };
    let Value::Dynamic(d) = &o["outer"] else {
        panic!("{:?}", o["outer"])
    };
    assert_eq!(&model.outer, d.as_ref());
    let Value::Unknown(label) = &o["label"] else {
        panic!("{:?}", o["label"])
    };
    assert_eq!(model.label, Unknown::Unknown(label.clone()));
    assert!(
        matches!(&model.size, Unknown::Unknown(r) if !r.is_empty()),
        "{:?}",
        model.size
    );
}

/// A foreign deserializer that hands `Unknown<T>` a map where it asked for a newtype (one
/// that forwards everything to `deserialize_any`) gets an error: the map is not read as
/// refinements, and the value is not made unknown.
#[test]
fn a_foreign_map_is_not_an_unknown() {
    use serde::de::value::{Error as DeError, MapDeserializer};
    let entries = vec![("prefix".to_owned(), "x".to_owned())];
    let de = MapDeserializer::<_, DeError>::new(entries.into_iter());
    let r = Unknown::<BTreeMap<String, String>>::deserialize(de);
    assert!(r.is_err(), "{r:?}");
}
