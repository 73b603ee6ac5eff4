//! Validators of attribute values and of objects' attributes together: what each accepts
//! and rejects, the path of each problem, unknowns skipped (or counted as set), and the
//! schema check of the validators themselves.

// Tests may panic: the workspace lints are for library code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use tfvalue::schema::{
    Attribute, Block, DiagnosticKind, Diagnostics, NestedBlock, NestedType, ObjectNesting,
    ObjectValidator, Pattern, Validator,
};
use tfvalue::{Number, Refinements, Type, Value};

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

fn num(text: &str) -> Value {
    Value::Number(text.parse::<Number>().unwrap())
}

fn lines(d: &Diagnostics) -> Vec<String> {
    d.iter().map(ToString::to_string).collect()
}

/// One attribute `a` of type `ty` with `validator`, validated with value `v`.
fn check(ty: Type, validator: Validator, v: Value) -> Vec<String> {
    let block = Block::new().attribute("a", Attribute::optional(ty).validator(validator));
    lines(&block.validate(&obj(&[("a", v)])))
}

#[test]
fn number_ranges_are_exact_and_say_the_bound() {
    let at_least = || Validator::at_least(1);
    assert!(check(Type::Number, at_least(), num("1")).is_empty());
    assert_eq!(
        check(Type::Number, at_least(), num("0.999999999999999999999")),
        ["Invalid attribute value: value must be at least 1, found 0.999999999999999999999 at a"]
    );
    assert!(check(Type::Number, Validator::at_most(-5), num("-5")).is_empty());
    assert_eq!(
        check(Type::Number, Validator::at_most(-5), num("-4.5")),
        ["Invalid attribute value: value must be at most -5, found -4.5 at a"]
    );
    // Exclusive bounds reject the bound itself.
    assert_eq!(
        check(Type::Number, Validator::greater_than(0), num("0")),
        ["Invalid attribute value: value must be greater than 0, found 0 at a"]
    );
    assert!(check(Type::Number, Validator::greater_than(0), num("1e-30")).is_empty());
    let tenth: Number = "0.1".parse().unwrap();
    assert_eq!(
        check(Type::Number, Validator::less_than(tenth), num("0.1")),
        ["Invalid attribute value: value must be less than 0.1, found 0.1 at a"]
    );
    // The float 0.1 is a little more than the decimal 0.1: not rounded to pass.
    let float_tenth = Value::from(0.1_f64);
    assert_eq!(
        check(
            Type::Number,
            Validator::at_most("0.1".parse::<Number>().unwrap()),
            float_tenth
        )
        .len(),
        1
    );
    let between = || Validator::between(1, 65535);
    assert!(check(Type::Number, between(), num("65535")).is_empty());
    assert_eq!(check(Type::Number, between(), num("65536")).len(), 1);
    assert_eq!(check(Type::Number, between(), num("0")).len(), 1);
    // Not a number: the type check's business, not the range's.
    assert!(Validator::at_least(1) != Validator::at_most(1));
}

#[test]
fn none_of_rejects_the_listed_strings() {
    let v = || Validator::none_of(["root", "admin"]);
    assert!(check(Type::String, v(), Value::from("web")).is_empty());
    assert_eq!(
        check(Type::String, v(), Value::from("root")),
        [r#"Invalid attribute value: value must be none of "root", "admin", found "root" at a"#]
    );
}

#[test]
fn unknown_and_null_values_are_not_checked() {
    for validator in [
        Validator::at_least(1),
        Validator::none_of(["x"]),
        Validator::UniqueElements,
        Validator::each([Validator::at_least(1)]),
        Validator::keys([Validator::Pattern(Pattern::new("^a").unwrap())]),
        Validator::custom("never", |_| Err("ran".into())),
    ] {
        for v in [Value::Null, unknown()] {
            assert!(
                check(Type::Dynamic, validator.clone(), v.clone()).is_empty(),
                "{validator:?} on {v:?}"
            );
        }
    }
}

#[test]
fn element_validators_report_each_element_at_its_path() {
    let ports = || Validator::each([Validator::between(1, 65535)]);
    assert_eq!(
        check(
            Type::list(Type::Number),
            ports(),
            Value::List(vec![
                num("80"),
                num("0"),
                unknown(),
                Value::Null,
                num("70000")
            ])
        ),
        [
            "Invalid attribute value: value must be at least 1, found 0 at a[1]",
            "Invalid attribute value: value must be at most 65535, found 70000 at a[4]",
        ]
    );
    let tags = Validator::each([Validator::Length {
        min: Some(1),
        max: None,
    }]);
    let v = Value::Map(
        [("env", Value::from("")), ("team", Value::from("web"))]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    );
    assert_eq!(
        check(Type::map(Type::String), tags, v.clone()),
        [r#"Invalid attribute value: length must be at least 1, found 0 at a["env"]"#]
    );
    let keys = Validator::keys([Validator::Pattern(Pattern::new("^[a-z]+$").unwrap())]);
    assert!(check(Type::map(Type::String), keys.clone(), v).is_empty());
    let bad_key = Value::Map([("Env".to_owned(), Value::from("x"))].into_iter().collect());
    assert_eq!(
        check(Type::map(Type::String), keys, bad_key),
        [
            r#"Invalid attribute value: value must match the pattern `^[a-z]+$`, found "Env" at a["Env"]"#
        ]
    );
    // Elements of elements.
    let nested = Validator::each([Validator::each([Validator::none_of(["x"])])]);
    let v = Value::List(vec![
        Value::List(vec![Value::from("a")]),
        Value::List(vec![Value::from("b"), Value::from("x")]),
    ]);
    assert_eq!(
        check(Type::list(Type::list(Type::String)), nested, v),
        [r#"Invalid attribute value: value must be none of "x", found "x" at a[1][1]"#]
    );
}

#[test]
fn unique_elements_finds_duplicates_in_n_log_n() {
    let v = Value::List(vec![num("3"), num("1"), num("2"), num("1")]);
    assert_eq!(
        check(Type::list(Type::Number), Validator::UniqueElements, v),
        ["Invalid attribute value: elements must be unique: 1 is at [1] and [3] at a"]
    );
    // Unknown elements may turn out different: never duplicates.
    let v = Value::List(vec![unknown(), unknown(), num("1")]);
    assert!(check(Type::list(Type::Number), Validator::UniqueElements, v).is_empty());
    // 100,000 distinct strings and then one repeat: found (a quadratic check would take
    // minutes here).
    let mut many: Vec<Value> = (0..100_000).map(|i| Value::from(format!("s{i}"))).collect();
    assert!(check(
        Type::list(Type::String),
        Validator::UniqueElements,
        Value::List(many.clone())
    )
    .is_empty());
    many.push(Value::from("s777"));
    assert_eq!(
        check(
            Type::list(Type::String),
            Validator::UniqueElements,
            Value::List(many)
        ),
        [
            r#"Invalid attribute value: elements must be unique: "s777" is at [777] and [100000] at a"#
        ]
    );
}

#[test]
fn a_custom_validator_gets_the_known_value() {
    let even = Validator::custom("even", |v| match v.as_i64() {
        Some(n) if n % 2 != 0 => Err(format!("{n} is odd")),
        _ => Ok(()),
    });
    assert!(check(Type::Number, even.clone(), num("4")).is_empty());
    assert_eq!(
        check(Type::Number, even.clone(), num("3")),
        ["Invalid attribute value: 3 is odd at a"]
    );
    // A list with an unknown element is not wholly known: the function is not called.
    let all = Validator::custom("never", |_| Err("called".into()));
    assert!(check(Type::list(Type::Number), all, Value::List(vec![unknown()])).is_empty());
    // Equal by name.
    assert_eq!(even, Validator::custom("even", |_| Ok(())));
}

#[test]
fn a_custom_validator_that_panics_fails_with_a_message() {
    let odd = |v: &Value| match v.as_i64() {
        Some(n) if n % 2 != 0 => panic!("{n} is odd"),
        _ => Ok(()),
    };
    let v = Validator::custom("even", odd);
    assert!(check(Type::Number, v.clone(), num("4")).is_empty());
    assert_eq!(
        check(Type::Number, v, num("3")),
        ["Invalid attribute value: the check `even` panicked: 3 is odd at a"]
    );
    let rule = ObjectValidator::Custom(tfvalue::schema::CustomValidator::new("boom", |_| {
        panic!("not today")
    }));
    let problems = pair_block(rule)
        .validate_config(&Value::Object(
            [("a".to_owned(), Value::from("x"))].into_iter().collect(),
        ))
        .to_string();
    assert!(
        problems.contains("the check `boom` panicked: not today"),
        "{problems}"
    );
}

fn pair_block(rule: ObjectValidator) -> Block {
    Block::new()
        .attribute("a", Attribute::optional(Type::String))
        .attribute("b", Attribute::optional(Type::String))
        .attribute("c", Attribute::optional(Type::String))
        .validator(rule)
}

/// The problems of `rule` over `a`, `b`, `c` set as the flags say (`U`: unknown).
fn combination(rule: ObjectValidator, set: &str) -> Vec<String> {
    let value = |c: char| match set.chars().find(|x| x.to_ascii_lowercase() == c) {
        Some(x) if x.is_ascii_uppercase() => unknown(),
        Some(_) => Value::from("x"),
        None => Value::Null,
    };
    let v = obj(&[("a", value('a')), ("b", value('b')), ("c", value('c'))]);
    let block = pair_block(rule);
    assert!(block.check_schema().is_empty(), "{}", block.check_schema());
    let d = block.validate_config(&v);
    assert!(d.iter().all(|d| d.kind() == DiagnosticKind::Combination));
    // Only configuration is checked: a plan fills computed attributes in.
    assert!(block.validate(&v).is_empty());
    lines(&d)
}

#[test]
fn object_rules_as_the_framework_has_them() {
    let exactly = || ObjectValidator::exactly_one_of(["a", "b"]);
    assert!(combination(exactly(), "a").is_empty());
    assert_eq!(
        combination(exactly(), ""),
        ["Invalid Attribute Combination: exactly one of `a`, `b` must be set, found none"]
    );
    assert_eq!(
        combination(exactly(), "ab"),
        ["Invalid Attribute Combination: exactly one of `a`, `b` must be set, found `a` and `b` at b"]
    );
    // An unknown (a reference) counts as set.
    assert_eq!(combination(exactly(), "aB").len(), 1);
    assert!(combination(exactly(), "B").is_empty());

    let at_least = || ObjectValidator::at_least_one_of(["a", "b", "c"]);
    assert!(combination(at_least(), "C").is_empty());
    assert_eq!(
        combination(at_least(), ""),
        ["Invalid Attribute Combination: at least one of `a`, `b`, `c` must be set, found none"]
    );

    let conflicting = || ObjectValidator::conflicting(["a", "b", "c"]);
    assert!(combination(conflicting(), "b").is_empty());
    assert!(combination(conflicting(), "").is_empty());
    assert_eq!(
        combination(conflicting(), "aBc"),
        [
            "Invalid Attribute Combination: only one of `a`, `b`, `c` may be set, found `a`, `b` and `c` at b",
            "Invalid Attribute Combination: only one of `a`, `b`, `c` may be set, found `a`, `b` and `c` at c",
        ]
    );

    let together = || ObjectValidator::required_together(["a", "b"]);
    assert!(combination(together(), "").is_empty());
    assert!(combination(together(), "Ab").is_empty());
    assert_eq!(
        combination(together(), "a"),
        ["Invalid Attribute Combination: `a`, `b` must be set together, found only `a` at b"]
    );

    let conflicts = || ObjectValidator::conflicts_with("a", ["b", "c"]);
    assert!(
        combination(conflicts(), "bc").is_empty(),
        "only when `a` is set"
    );
    assert_eq!(
        combination(conflicts(), "ac"),
        ["Invalid Attribute Combination: `c` cannot be set when `a` is set at c"]
    );

    let requires = || ObjectValidator::also_requires("a", ["b"]);
    assert!(combination(requires(), "b").is_empty());
    assert!(combination(requires(), "aB").is_empty());
    assert_eq!(
        combination(requires(), "a"),
        ["Invalid Attribute Combination: `b` must be set when `a` is set at a"]
    );
}

#[test]
fn object_rules_reach_into_single_objects_and_run_in_each_nested_object() {
    // `network.subnet_id` through a single block; an empty list block is not set.
    let block = Block::new()
        .block(
            "network",
            NestedBlock::single(
                Block::new().attribute("subnet_id", Attribute::optional(Type::String)),
            ),
        )
        .block(
            "interface",
            NestedBlock::list(Block::new().attribute("id", Attribute::optional(Type::String))),
        )
        .validator(ObjectValidator::exactly_one_of([
            "network.subnet_id",
            "interface",
        ]));
    assert!(block.check_schema().is_empty(), "{}", block.check_schema());
    let v = |network: Value, interfaces: Vec<Value>| {
        obj(&[("network", network), ("interface", Value::List(interfaces))])
    };
    let subnet = obj(&[("subnet_id", Value::from("s-1"))]);
    let interface = obj(&[("id", Value::from("i-1"))]);
    assert!(block.validate_config(&v(subnet.clone(), vec![])).is_empty());
    assert!(block
        .validate_config(&v(Value::Null, vec![interface.clone()]))
        .is_empty());
    assert_eq!(
        lines(&block.validate_config(&v(Value::Null, vec![]))),
        ["Invalid Attribute Combination: exactly one of `network.subnet_id`, `interface` must be set, found none"]
    );
    assert_eq!(
        lines(&block.validate_config(&v(subnet, vec![interface]))),
        ["Invalid Attribute Combination: exactly one of `network.subnet_id`, `interface` must be set, found `network.subnet_id` and `interface` at interface"]
    );

    // A rule of nested objects runs in each, at its path.
    let rule = NestedType::new(ObjectNesting::List)
        .attribute("port", Attribute::optional(Type::Number))
        .attribute("range", Attribute::optional(Type::String))
        .validator(ObjectValidator::conflicting(["port", "range"]));
    let block = Block::new().attribute("rule", Attribute::nested(rule).set_optional());
    let elem = |port: Value, range: Value| obj(&[("port", port), ("range", range)]);
    let v = obj(&[(
        "rule",
        Value::List(vec![
            elem(num("80"), Value::Null),
            elem(num("81"), Value::from("1-2")),
        ]),
    )]);
    assert_eq!(
        lines(&block.validate_config(&v)),
        ["Invalid Attribute Combination: only one of `port`, `range` may be set, found `port` and `range` at rule[1].range"]
    );

    // A custom rule sees the whole object.
    let block = pair_block(ObjectValidator::Custom(
        tfvalue::schema::CustomValidator::new("a_before_b", |v| {
            match (v["a"].as_str(), v["b"].as_str()) {
                (Some(a), Some(b)) if a > b => Err(format!("`a` ({a}) sorts after `b` ({b})")),
                _ => Ok(()),
            }
        }),
    ));
    let v = obj(&[
        ("a", Value::from("z")),
        ("b", Value::from("y")),
        ("c", Value::Null),
    ]);
    assert_eq!(
        lines(&block.validate_config(&v)),
        ["Invalid Attribute Combination: `a` (z) sorts after `b` (y)"]
    );
}

#[test]
fn the_schema_check_finds_validators_that_cannot_work() {
    let block = Block::new()
        .attribute(
            "n",
            Attribute::optional(Type::Number)
                .validator(Validator::Range {
                    min: Some(tfvalue::schema::Bound::exclusive(5)),
                    max: Some(tfvalue::schema::Bound::inclusive(5)),
                })
                .validator(Validator::each([Validator::OneOf(vec![])])),
        )
        .block(
            "rule",
            NestedBlock::list(Block::new().attribute("port", Attribute::optional(Type::Number))),
        )
        .validator(ObjectValidator::conflicting(["n", "nmae"]))
        .validator(ObjectValidator::exactly_one_of(["rule.port"]))
        .validator(ObjectValidator::conflicting(["n"]));
    assert_eq!(
        lines(&block.check_schema()),
        [
            "Invalid provider schema: `nmae` names no attribute or block (`nmae`)",
            "Invalid provider schema: `rule.port` goes through `rule`, which is not a single object: put the rule on the schema of its elements",
            "Invalid provider schema: Conflicting([\"n\"]) names too few attributes to mean anything",
            "Invalid provider schema: the range 5..5 accepts no number at n",
            "Invalid provider schema: a one-of validator with no values accepts nothing at n",
        ]
    );
}

mod derived {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};
    use tfvalue::schema::{ObjectValidator, Validator};
    use tfvalue::{TfModel, TfValue, Unknown, Value};

    use super::{lines, num, obj, unknown};

    fn private_range(v: &Value) -> Result<(), String> {
        match v.as_str() {
            Some(s) if s.starts_with("10.") || s.starts_with("192.168.") => Ok(()),
            Some(s) => Err(format!("{s} is not a private range")),
            None => Ok(()),
        }
    }

    fn not_both_empty(v: &Value) -> Result<(), String> {
        if v["name"] == "" && v["vlan"].is_null() {
            return Err("an unnamed subnet needs a vlan".into());
        }
        Ok(())
    }

    #[derive(TfValue, Serialize, Deserialize)]
    #[tfvalue(exactly_one_of = ["cidr", "ipv6_cidr"], validate_with = not_both_empty)]
    struct Subnet {
        #[tfvalue(required, none_of = ["default"])]
        name: Unknown<String>,
        #[tfvalue(optional, validate_with = private_range)]
        cidr: Unknown<Option<String>>,
        #[tfvalue(optional, conflicts_with = ["vlan"])]
        ipv6_cidr: Unknown<Option<String>>,
        #[tfvalue(optional, at_least = 1, at_most = 4094)]
        vlan: Unknown<Option<i64>>,
        #[tfvalue(optional, greater_than = 0, less_than = 1)]
        weight: Unknown<Option<f64>>,
        #[tfvalue(
            optional,
            unique,
            each(pattern = r"^\d+\.\d+\.\d+\.\d+$"),
            max_length = 3
        )]
        dns: Unknown<Option<Vec<String>>>,
        #[tfvalue(
            optional,
            keys(pattern = "^[a-z]+$", max_length = 8),
            each(min_length = 1)
        )]
        tags: Unknown<Option<BTreeMap<String, String>>>,
        #[tfvalue(optional, also_requires = ["cidr"])]
        gateway: Unknown<Option<String>>,
    }

    #[derive(TfValue, Serialize, Deserialize)]
    struct Network {
        #[tfvalue(required)]
        name: Unknown<String>,
        #[tfvalue(optional, nested_type = "list")]
        subnet: Unknown<Option<Vec<Subnet>>>,
    }

    fn subnet(pairs: &[(&str, Value)]) -> Value {
        let mut v = obj(&[
            ("name", Value::from("a")),
            ("cidr", Value::from("10.0.0.0/24")),
            ("ipv6_cidr", Value::Null),
            ("vlan", Value::Null),
            ("weight", Value::Null),
            ("dns", Value::Null),
            ("tags", Value::Null),
            ("gateway", Value::Null),
        ]);
        for (k, x) in pairs {
            v[*k] = x.clone();
        }
        v
    }

    #[test]
    fn the_derive_writes_the_validators() {
        let block = Subnet::block();
        assert!(block.check_schema().is_empty(), "{}", block.check_schema());
        assert_eq!(
            block.attributes["vlan"].validators,
            [Validator::at_least(1), Validator::at_most(4094)]
        );
        assert_eq!(
            block.attributes["tags"].validators,
            [
                Validator::keys([
                    Validator::Pattern(tfvalue::schema::Pattern::new("^[a-z]+$").unwrap()),
                    Validator::Length {
                        min: None,
                        max: Some(8)
                    },
                ]),
                Validator::each([Validator::Length {
                    min: Some(1),
                    max: None
                }]),
            ]
        );
        assert_eq!(
            block.validators,
            [
                ObjectValidator::exactly_one_of(["cidr", "ipv6_cidr"]),
                ObjectValidator::Custom(tfvalue::schema::CustomValidator::new(
                    "not_both_empty",
                    |_| Ok(())
                )),
                ObjectValidator::conflicts_with("ipv6_cidr", ["vlan"]),
                ObjectValidator::also_requires("gateway", ["cidr"]),
            ]
        );
        // A nested model's rules go with it into the nested attribute.
        let network = Network::block();
        assert!(
            network.check_schema().is_empty(),
            "{}",
            network.check_schema()
        );
        let nested = network.attributes["subnet"].nested_type().unwrap();
        assert_eq!(nested.validators, block.validators);
    }

    #[test]
    fn derived_rules_reject_what_they_should_at_the_right_paths() {
        let network = Network::block();
        let good = obj(&[
            ("name", Value::from("n")),
            ("subnet", Value::List(vec![subnet(&[])])),
        ]);
        assert!(
            network.validate_config(&good).is_empty(),
            "{}",
            network.validate_config(&good)
        );
        let bad = obj(&[
            ("name", Value::from("n")),
            (
                "subnet",
                Value::List(vec![
                    subnet(&[]),
                    subnet(&[
                        ("name", Value::from("default")),
                        ("cidr", Value::from("8.8.8.0/24")),
                        ("vlan", num("0")),
                        ("weight", num("1")),
                        (
                            "dns",
                            Value::List(vec![
                                Value::from("1.1.1.1"),
                                Value::from("dns.example"),
                                Value::from("1.1.1.1"),
                            ]),
                        ),
                        (
                            "tags",
                            Value::Map(
                                [
                                    ("env".to_owned(), Value::from("")),
                                    ("Team".to_owned(), Value::from("x")),
                                ]
                                .into_iter()
                                .collect(),
                            ),
                        ),
                    ]),
                    subnet(&[
                        ("name", Value::from("")),
                        ("cidr", Value::Null),
                        ("ipv6_cidr", unknown()),
                        ("gateway", Value::from("10.0.0.1")),
                    ]),
                ]),
            ),
        ]);
        assert_eq!(
            lines(&network.validate_config(&bad)),
            [
                // Attributes in the schema's (name) order, each one's validators in the
                // order written.
                "Invalid attribute value: 8.8.8.0/24 is not a private range at subnet[1].cidr",
                r#"Invalid attribute value: elements must be unique: "1.1.1.1" is at [0] and [2] at subnet[1].dns"#,
                r#"Invalid attribute value: value must match the pattern `^\d+\.\d+\.\d+\.\d+$`, found "dns.example" at subnet[1].dns[1]"#,
                r#"Invalid attribute value: value must be none of "default", found "default" at subnet[1].name"#,
                r#"Invalid attribute value: value must match the pattern `^[a-z]+$`, found "Team" at subnet[1].tags["Team"]"#,
                r#"Invalid attribute value: length must be at least 1, found 0 at subnet[1].tags["env"]"#,
                "Invalid attribute value: value must be at least 1, found 0 at subnet[1].vlan",
                "Invalid attribute value: value must be less than 1, found 1 at subnet[1].weight",
                "Invalid Attribute Combination: an unnamed subnet needs a vlan at subnet[2]",
                "Invalid Attribute Combination: `cidr` must be set when `gateway` is set at subnet[2].gateway",
            ]
        );
    }
}
