//! `#[derive(TfValue)]`: derived schemas, implied types and serde encodings agree.

// Tests may panic: the workspace lints are for library code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use tfvalue::schema::{
    Attribute, Block, NestedBlock, NestedType, NestingMode, ObjectNesting, StringKind,
};
use tfvalue::{Dynamic, Number, Refinements, TfModel, TfValue, Type, Unknown, Value};

/// A re-export of tfvalue, to test `#[tfvalue(crate = "...")]`.
mod shim {
    pub use ::tfvalue::*;
}

#[test]
fn derived_block_equals_the_hand_written_schema() {
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Disk {
        size_gb: u32,
        #[tfvalue(optional)]
        kind: Option<String>,
    }

    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Endpoint {
        host: String,
        #[tfvalue(optional)]
        port: Option<u16>,
    }

    /// A Widget server.
    #[derive(TfValue)]
    #[tfvalue(version = 3)]
    #[allow(dead_code)]
    struct Server {
        /// The server name.
        name: String,
        #[tfvalue(computed, description = "Assigned by the API.")]
        id: Unknown<Option<String>>,
        #[tfvalue(optional, computed)]
        size: Unknown<Option<String>>,
        #[tfvalue(computed)]
        arn: Option<Unknown<String>>,
        #[tfvalue(optional)]
        tags: Option<BTreeMap<String, String>>,
        #[tfvalue(optional, sensitive, write_only)]
        password: Option<String>,
        #[tfvalue(optional, deprecated, markdown, description = "Use `size`.")]
        flavor: Option<String>,
        #[tfvalue(computed)]
        labels: Unknown<Option<Vec<String>>>,
        #[tfvalue(optional, computed)]
        ports: Unknown<Option<BTreeSet<u16>>>,
        #[tfvalue(required)]
        user_data: Option<Dynamic>,
        #[tfvalue(nested_type, optional)]
        endpoints: Option<Vec<Endpoint>>,
        #[tfvalue(block, min_items = 1, max_items = 4)]
        disk: Vec<Disk>,
        #[tfvalue(block)]
        boot: Option<Disk>,
    }

    let disk = Block::new()
        .attribute("size_gb", Attribute::required(Type::Number))
        .attribute("kind", Attribute::optional(Type::String));
    let want = Block::new()
        .description("A Widget server.", StringKind::Plain)
        .attribute(
            "name",
            Attribute::required(Type::String).description("The server name.", StringKind::Plain),
        )
        .attribute(
            "id",
            Attribute::computed(Type::String)
                .description("Assigned by the API.", StringKind::Plain),
        )
        .attribute("size", Attribute::optional_computed(Type::String))
        .attribute("arn", Attribute::computed(Type::String))
        .attribute("tags", Attribute::optional(Type::map(Type::String)))
        .attribute(
            "password",
            Attribute::optional(Type::String).sensitive().write_only(),
        )
        .attribute(
            "flavor",
            Attribute::optional(Type::String)
                .deprecated()
                .description("Use `size`.", StringKind::Markdown),
        )
        .attribute("labels", Attribute::computed(Type::list(Type::String)))
        .attribute(
            "ports",
            Attribute::optional_computed(Type::set(Type::Number)),
        )
        .attribute("user_data", Attribute::required(Type::Dynamic))
        .attribute(
            "endpoints",
            Attribute::nested(
                NestedType::list()
                    .attribute("host", Attribute::required(Type::String))
                    .attribute("port", Attribute::optional(Type::Number)),
            )
            .set_optional(),
        )
        .block(
            "disk",
            NestedBlock::list(disk.clone()).min_items(1).max_items(4),
        )
        .block("boot", NestedBlock::single(disk));
    assert_eq!(Server::block(), want);
    assert!(Server::block().check_schema().is_empty());
    assert_eq!(Server::schema_block(), Some(want.clone()));
    assert_eq!(Server::SCHEMA_VERSION, 3);
    assert_eq!(Server::schema().version, 3);
    assert_eq!(Server::tf_type(), want.implied_type());
    assert_eq!(
        Server::tf_type().to_string(),
        "object({arn=string,boot=object({kind=string,size_gb=number}),disk=list(object({kind=string,size_gb=number})),\
         endpoints=list(object({host=string,port=number})),flavor=string,id=string,labels=list(string),name=string,\
         password=string,ports=set(number),size=string,tags=map(string),user_data=any})"
    );
}

#[test]
fn names_follow_serde() {
    #[derive(TfValue, Serialize, Deserialize)]
    #[allow(dead_code)]
    struct Model {
        #[serde(rename = "type")]
        kind: String,
        r#for: String,
        #[serde(skip)]
        cache: u8,
        #[serde(skip_serializing)]
        secret: u8,
        #[serde(skip_deserializing)]
        computed_here: u8,
        #[serde(rename(serialize = "both", deserialize = "both"))]
        same: u8,
        #[serde(default, alias = "old_name")]
        aliased: u8,
    }
    let names: Vec<String> = Model::block().attributes.into_keys().collect();
    assert_eq!(names, ["aliased", "both", "computed_here", "for", "type"]);
    // What serde writes is what the schema says.
    let value = Model {
        kind: "k".into(),
        r#for: "f".into(),
        cache: 1,
        secret: 2,
        computed_here: 3,
        same: 4,
        aliased: 5,
    };
    let bytes = tfvalue::msgpack::to_vec(&value).unwrap();
    let v = Value::from_msgpack(&bytes, &Model::tf_type()).unwrap();
    assert_eq!(v["type"], "k");
    assert_eq!(v["for"], "f");
    assert_eq!(v["computed_here"], 3);

    // A rename_all that makes names Terraform rejects is a compile error (tests/ui); the
    // lowercase rules pass through.
    #[derive(TfValue, Serialize)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    struct Snake {
        a_b: u8,
    }
    assert!(Snake::block().attributes.contains_key("a_b"));
}

#[test]
fn roles_come_from_the_attributes_never_from_the_wrappers() {
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Roles {
        plain: String,
        maybe_unknown: Unknown<String>,
        #[tfvalue(required)]
        nullable_required: Unknown<Option<String>>,
        #[tfvalue(optional)]
        optional: Option<String>,
        #[tfvalue(optional)]
        optional_unknown: Unknown<Option<String>>,
        #[tfvalue(optional)]
        optional_outside: Option<Unknown<String>>,
        #[tfvalue(optional)]
        boxed: Box<Option<String>>,
        #[tfvalue(computed)]
        computed: Unknown<Option<String>>,
        #[tfvalue(optional, computed)]
        both: Option<Unknown<String>>,
        // A model only decoded from stored state needs no `Unknown`.
        #[tfvalue(computed)]
        stored: Option<String>,
        any: Dynamic,
        #[tfvalue(required)]
        any_required: Dynamic,
        #[tfvalue(computed)]
        any_computed: Dynamic,
    }
    let b = Roles::block();
    let role = |n: &str| {
        let a = &b.attributes[n];
        (a.required, a.optional, a.computed)
    };
    assert_eq!(role("plain"), (true, false, false));
    assert_eq!(role("maybe_unknown"), (true, false, false));
    assert_eq!(role("nullable_required"), (true, false, false));
    assert_eq!(role("optional"), (false, true, false));
    assert_eq!(role("optional_unknown"), (false, true, false));
    assert_eq!(role("optional_outside"), (false, true, false));
    assert_eq!(role("boxed"), (false, true, false));
    assert_eq!(role("computed"), (false, false, true));
    assert_eq!(role("both"), (false, true, true));
    assert_eq!(role("stored"), (false, false, true));
    assert_eq!(role("any"), (false, true, false));
    assert_eq!(role("any_required"), (true, false, false));
    assert_eq!(role("any_computed"), (false, false, true));
    assert!(b.check_schema().is_empty());
}

#[test]
fn type_aliases_are_fields_like_the_types_they_name() {
    // The derive cannot see through an alias; the type system checks that these hold
    // null (tests/ui/type-alias-that-cannot-hold-null.rs is the other side).
    type MaybeId = Unknown<Option<String>>;
    type MaybeCount = Option<u32>;
    type Tags = BTreeMap<String, String>;

    #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    struct Server {
        #[tfvalue(computed)]
        id: MaybeId,
        #[tfvalue(optional)]
        count: Unknown<MaybeCount>,
        tags: Tags,
    }

    let block = Server::block();
    assert!(block.attributes["id"].computed && !block.attributes["id"].optional);
    assert!(block.attributes["count"].optional);
    assert!(block.attributes["tags"].required);
    assert_eq!(
        Server::tf_type().to_string(),
        "object({count=number,id=string,tags=map(string)})"
    );
    let v = Value::from_json(br#"{"id":null,"count":3,"tags":{}}"#, &Server::tf_type()).unwrap();
    let back: Server = tfvalue::from_value(&v).unwrap();
    assert_eq!(back.id, Unknown::Known(None));
    assert_eq!(back.count, Unknown::Known(Some(3)));
}

#[test]
fn block_and_nested_type_nesting() {
    #[derive(TfValue, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Debug, Clone)]
    struct Item {
        n: i64,
    }

    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Holder {
        #[tfvalue(block)]
        list: Vec<Item>,
        #[tfvalue(block)]
        set: BTreeSet<Item>,
        #[tfvalue(block = "set", max_items = 3)]
        set_in_vec: Vec<Item>,
        #[tfvalue(block)]
        map: HashMap<String, Item>,
        #[tfvalue(block)]
        single: Option<Item>,
        #[tfvalue(block = "group")]
        group: Item,
        #[tfvalue(nested_type, optional)]
        n_single: Option<Item>,
        #[tfvalue(nested_type, optional)]
        n_set: Option<BTreeSet<Item>>,
        #[tfvalue(nested_type = "map")]
        n_map: BTreeMap<String, Item>,
        // A struct without `block` or `nested_type` is a plain object attribute.
        plain: Item,
    }
    let b = Holder::block();
    assert_eq!(b.check_schema().to_string(), "");
    let nesting = |n: &str| b.block_types[n].nesting;
    assert_eq!(nesting("list"), NestingMode::List);
    assert_eq!(nesting("set"), NestingMode::Set);
    assert_eq!(nesting("set_in_vec"), NestingMode::Set);
    assert_eq!(b.block_types["set_in_vec"].max_items, 3);
    assert_eq!(nesting("map"), NestingMode::Map);
    assert_eq!(nesting("single"), NestingMode::Single);
    assert_eq!(nesting("group"), NestingMode::Group);
    let nested = |n: &str| b.attributes[n].nested_type().map(|t| t.nesting);
    assert_eq!(nested("n_single"), Some(ObjectNesting::Single));
    assert_eq!(nested("n_set"), Some(ObjectNesting::Set));
    assert_eq!(nested("n_map"), Some(ObjectNesting::Map));
    assert_eq!(
        b.attributes["plain"].plain_type(),
        Some(&Type::object([("n", Type::Number)]))
    );
    assert!(b.attributes["plain"].required);
    assert_eq!(
        Holder::tf_type().to_string(),
        "object({group=object({n=number}),list=list(object({n=number})),map=map(object({n=number})),\
         n_map=map(object({n=number})),n_set=set(object({n=number})),n_single=object({n=number}),\
         plain=object({n=number}),set=set(object({n=number})),set_in_vec=set(object({n=number})),\
         single=object({n=number})})"
    );
}

#[test]
fn a_required_single_block_has_max_items_one() {
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Net {
        subnet: String,
    }
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Server {
        #[tfvalue(block, min_items = 1)]
        network: Net,
        #[tfvalue(block)]
        backup: Option<Net>,
    }
    let b = Server::block();
    let items = |n: &str| (b.block_types[n].min_items, b.block_types[n].max_items);
    assert_eq!(items("network"), (1, 1));
    assert_eq!(items("backup"), (0, 0));
    assert!(b.check_schema().is_empty());
}

#[test]
fn blocks_inside_a_nested_type_become_nested_attributes() {
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Inner {
        x: String,
        #[tfvalue(block)]
        rules: Vec<Leaf>,
    }
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Leaf {
        y: bool,
    }
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Outer {
        #[tfvalue(nested_type, optional)]
        inner: Option<Inner>,
    }
    let attr = &Outer::block().attributes["inner"];
    let n = attr.nested_type().unwrap();
    let rules = n.attributes["rules"].nested_type().unwrap();
    assert_eq!(rules.nesting, ObjectNesting::List);
    assert!(n.attributes["rules"].optional);
    // The wire type is the same as the block's would be.
    assert_eq!(
        Outer::tf_type().to_string(),
        "object({inner=object({rules=list(object({y=bool})),x=string})})"
    );
}

#[test]
fn container_attributes() {
    /// Ignored: the attribute wins.
    #[derive(TfValue)]
    #[tfvalue(
        description = "A **thing**.",
        markdown,
        deprecated,
        crate = "crate::shim"
    )]
    #[allow(dead_code)]
    struct Thing {
        a: String,
    }
    let b = Thing::block();
    assert_eq!(b.description.as_deref(), Some("A **thing**."));
    assert_eq!(b.description_kind, StringKind::Markdown);
    assert!(b.deprecated);
    assert_eq!(Thing::SCHEMA_VERSION, 0);

    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Plain {
        a: String,
    }
    let b = Plain::block();
    assert_eq!(b.description, None);
    assert!(!b.deprecated);
}

#[test]
fn block_fields_carry_descriptions_into_the_nested_block() {
    /// The default description.
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Rule {
        port: u16,
    }
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Firewall {
        /// Inbound rules.
        #[tfvalue(block, deprecated)]
        rule: Vec<Rule>,
        #[tfvalue(block)]
        other: Vec<Rule>,
    }
    let b = Firewall::block();
    let rule = &b.block_types["rule"].block;
    assert_eq!(rule.description.as_deref(), Some("Inbound rules."));
    assert!(rule.deprecated);
    let other = &b.block_types["other"].block;
    assert_eq!(
        other.description.as_deref(),
        Some("The default description.")
    );
    assert!(!other.deprecated);
}

#[test]
fn generics_and_lifetimes() {
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Wrapper<'a, T> {
        value: T,
        label: &'a str,
        labels: Vec<std::borrow::Cow<'a, str>>,
    }
    assert_eq!(
        <Wrapper<'static, Vec<bool>>>::tf_type().to_string(),
        "object({label=string,labels=list(string),value=list(bool)})"
    );
    assert_eq!(
        <Wrapper<'static, Option<u8>>>::block().attributes["value"].plain_type(),
        Some(&Type::Number)
    );
}

#[test]
fn a_derived_schema_validates_its_own_values() {
    #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    struct Rule {
        port: u16,
    }
    #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    struct Fw {
        name: String,
        #[tfvalue(computed)]
        id: Unknown<Option<String>>,
        #[tfvalue(block, min_items = 1, max_items = 2)]
        rule: Vec<Rule>,
    }
    let ok = Fw {
        name: "a".into(),
        id: Unknown::unknown().not_null().with_prefix("fw-"),
        rule: vec![Rule { port: 80 }],
    };
    let v = Value::from_msgpack(&tfvalue::msgpack::to_vec(&ok).unwrap(), &Fw::tf_type()).unwrap();
    assert!(Fw::block().validate(&v).is_empty());
    let none = Fw { rule: vec![], ..ok };
    let v = Value::from_msgpack(&tfvalue::msgpack::to_vec(&none).unwrap(), &Fw::tf_type()).unwrap();
    let d = Fw::block().validate(&v);
    assert_eq!(
        d.to_string(),
        "Too few blocks: at least 1 block is required, found 0 at rule"
    );

    // A plan/apply check between two model values.
    let planned = Value::from_msgpack(
        &tfvalue::msgpack::to_vec(&Fw {
            rule: vec![Rule { port: 80 }],
            ..none
        })
        .unwrap(),
        &Fw::tf_type(),
    )
    .unwrap();
    let applied = Fw {
        name: "a".into(),
        id: Unknown::Known(Some("sg-1".into())),
        rule: vec![Rule { port: 80 }],
    };
    let applied =
        Value::from_msgpack(&tfvalue::msgpack::to_vec(&applied).unwrap(), &Fw::tf_type()).unwrap();
    let d = Fw::block().check_apply(&planned, &applied);
    assert_eq!(
        d.to_string(),
        r#"Provider produced inconsistent result after apply: final value "sg-1" does not start with the refined prefix "fw-" at id"#
    );
}

// ---------------------------------------------------------------------------------------
// The property: a model's derived type, its serde encoding and `Value` agree.

#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct PRule {
    port: u16,
    #[tfvalue(optional)]
    protocol: Option<String>,
    cidrs: Vec<String>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct PNetwork {
    subnet: String,
    #[tfvalue(computed)]
    public_ip: Unknown<Option<String>>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct PEndpoint {
    host: String,
    #[tfvalue(optional)]
    weight: Option<i64>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[tfvalue(version = 1)]
struct PServer {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    #[tfvalue(optional, computed)]
    id: Unknown<Option<String>>,
    count: Unknown<i64>,
    #[tfvalue(optional)]
    size: Option<i64>,
    ratio: f64,
    enabled: bool,
    tags: BTreeMap<String, String>,
    ports: BTreeSet<u16>,
    members: Unknown<Vec<String>>,
    pair: (String, i64),
    // A bare `Dynamic` holds null itself: optional by default.
    extra: Dynamic,
    #[tfvalue(nested_type, optional)]
    endpoints: Option<Vec<PEndpoint>>,
    #[tfvalue(block, max_items = 8)]
    rule: Vec<PRule>,
    #[tfvalue(block)]
    network: Option<PNetwork>,
}

fn text() -> impl Strategy<Value = String> {
    // NFC-stable text, so that what is decoded equals what was encoded.
    "[a-z0-9 ._é€-]{0,8}"
}

fn opt_unknown_string() -> impl Strategy<Value = Unknown<Option<String>>> {
    prop_oneof![
        Just(Unknown::Known(None)),
        text().prop_map(|s| Unknown::Known(Some(s))),
        Just(Unknown::unknown()),
        Just(Unknown::unknown().not_null()),
        "[a-z:]{1,6}".prop_map(|p| Unknown::unknown().with_prefix(p)),
        "[a-z:]{1,6}".prop_map(|p| Unknown::unknown().not_null().with_prefix(p)),
    ]
}

fn unknown_count() -> impl Strategy<Value = Unknown<i64>> {
    prop_oneof![
        any::<i64>().prop_map(Unknown::Known),
        Just(Unknown::unknown()),
        (-1000i64..0, 1i64..1000).prop_map(|(lo, hi)| Unknown::unknown()
            .with_lower_bound(lo, true)
            .with_upper_bound(hi, false)),
    ]
}

fn unknown_list() -> impl Strategy<Value = Unknown<Vec<String>>> {
    prop_oneof![
        prop::collection::vec(text(), 0..3).prop_map(Unknown::Known),
        Just(Unknown::unknown()),
        (0u64..3, 3u64..6).prop_map(|(lo, hi)| Unknown::unknown()
            .not_null()
            .with_min_length(lo)
            .with_max_length(hi)),
    ]
}

fn dynamic() -> impl Strategy<Value = Dynamic> {
    prop_oneof![
        Just(Dynamic::null()),
        text().prop_map(|s| Dynamic::new(Type::String, Value::String(s))),
        any::<i32>()
            .prop_map(|n| Dynamic::new(Type::Number, Value::Number(Number::from(i64::from(n))))),
        prop::collection::vec(any::<bool>(), 0..3).prop_map(|v| Dynamic::new(
            Type::list(Type::Bool),
            Value::List(v.into_iter().map(Value::Bool).collect())
        )),
        (text(), any::<bool>()).prop_map(|(s, b)| Dynamic::new(
            Type::object([("s", Type::String), ("b", Type::Bool)]),
            Value::Object(
                [
                    ("s".to_owned(), Value::String(s)),
                    ("b".to_owned(), Value::Bool(b))
                ]
                .into()
            ),
        )),
    ]
}

fn rule() -> impl Strategy<Value = PRule> {
    (
        any::<u16>(),
        prop::option::of(text()),
        prop::collection::vec(text(), 0..3),
    )
        .prop_map(|(port, protocol, cidrs)| PRule {
            port,
            protocol,
            cidrs,
        })
}

fn server() -> impl Strategy<Value = PServer> {
    let a = (
        text(),
        text(),
        opt_unknown_string(),
        unknown_count(),
        prop::option::of(any::<i64>()),
        -1e9f64..1e9,
    );
    let b = (
        any::<bool>(),
        prop::collection::btree_map("[a-z]{1,4}", text(), 0..3),
        prop::collection::btree_set(any::<u16>(), 0..4),
        unknown_list(),
        (text(), any::<i64>()),
        dynamic(),
    );
    let c = (
        prop::option::of(prop::collection::vec(
            (text(), prop::option::of(any::<i64>()))
                .prop_map(|(host, weight)| PEndpoint { host, weight }),
            0..3,
        )),
        prop::collection::vec(rule(), 0..3),
        prop::option::of(
            (text(), opt_unknown_string())
                .prop_map(|(subnet, public_ip)| PNetwork { subnet, public_ip }),
        ),
    );
    (a, b, c).prop_map(
        |(
            (name, kind, id, count, size, ratio),
            (enabled, tags, ports, members, pair, extra),
            (endpoints, rule, network),
        )| {
            PServer {
                name,
                kind,
                id,
                count,
                size,
                ratio,
                enabled,
                tags,
                ports,
                members,
                pair,
                extra,
                endpoints,
                rule,
                network,
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn model_type_encoding_and_value_agree(s in server()) {
        let ty = PServer::tf_type();
        prop_assert_eq!(&ty, &PServer::block().implied_type());
        let bytes = tfvalue::msgpack::to_vec(&s).unwrap();
        let v = Value::from_msgpack(&bytes, &ty).unwrap();
        prop_assert!(v.conforms_to(&ty).is_ok());
        let again = v.to_msgpack(&ty).unwrap();
        prop_assert_eq!(&again, &bytes);
        let back: PServer = tfvalue::msgpack::from_slice(&again).unwrap();
        prop_assert_eq!(&back, &s);
        // The value is valid for the derived schema, and consistent with itself.
        let block = PServer::block();
        prop_assert!(block.validate_state(&v).is_empty(), "{}", block.validate_state(&v));
        if v.is_wholly_known() {
            prop_assert!(block.check_apply(&v, &v).is_empty());
        }
        // Every refinement in the plan admits the value it was generated with.
        if let Unknown::Unknown(r) = &s.id {
            prop_assert!(r.admits(&Value::Null) != r.is_not_null());
        }
    }
}

#[test]
fn refinements_in_a_model_travel_as_the_value_encodes_them() {
    let r = Refinements::new().not_null().with_prefix("i-");
    let s = PNetwork {
        subnet: "sn".into(),
        public_ip: Unknown::refined(r.clone()),
    };
    let bytes = tfvalue::msgpack::to_vec(&s).unwrap();
    let v = Value::from_msgpack(&bytes, &PNetwork::tf_type()).unwrap();
    assert_eq!(v["public_ip"].as_unknown(), Some(&r));
}

#[test]
fn deprecation_messages_on_attributes_blocks_and_models() {
    #[derive(TfValue)]
    #[tfvalue(deprecated = "use `kv_entry`")]
    #[allow(dead_code)]
    struct Old {
        #[tfvalue(optional, deprecated = "use `size`")]
        length: Option<u64>,
        #[tfvalue(optional, deprecated)]
        width: Option<u64>,
        #[tfvalue(block, deprecated = "use `rule` blocks")]
        rules: Vec<Rule>,
        size: u64,
    }
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Rule {
        port: u64,
    }
    let b = Old::block();
    assert!(b.deprecated);
    assert_eq!(b.deprecation_message.as_deref(), Some("use `kv_entry`"));
    let length = &b.attributes["length"];
    assert!(length.deprecated);
    assert_eq!(length.deprecation_message.as_deref(), Some("use `size`"));
    assert!(b.attributes["width"].deprecated);
    assert_eq!(b.attributes["width"].deprecation_message, None);
    assert!(!b.attributes["size"].deprecated);
    let rules = &b.block_types["rules"].block;
    assert!(rules.deprecated);
    assert_eq!(
        rules.deprecation_message.as_deref(),
        Some("use `rule` blocks")
    );
    assert!(
        !Rule::block().deprecated,
        "the model of the block is left alone"
    );
}
