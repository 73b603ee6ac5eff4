//! The schema model: import, implied types, validation, refinements and check_apply.

// Tests may panic: the workspace lints are for library code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use tfvalue::schema::{
    check_apply, Attribute, AttributeType, Block, DiagnosticKind, Diagnostics, NestedBlock,
    NestedType, NestingMode, ObjectNesting, ProviderSchemas, StringKind,
};
use tfvalue::{AttributePath, Dynamic, Number, Refinements, Type, Value};

const FIXTURE: &[u8] = include_bytes!("fixtures/providers-schema.json");

fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    )
}

fn map(pairs: &[(&str, Value)]) -> Value {
    Value::Map(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    )
}

fn s(x: &str) -> Value {
    Value::from(x)
}

fn n(x: i64) -> Value {
    Value::from(x)
}

fn unknown() -> Value {
    Value::Unknown(Refinements::new())
}

fn path(text: &[&str]) -> AttributePath {
    // "a", "#2" (index), "'k" (map key)
    let mut p = AttributePath::new();
    for step in text {
        p = if let Some(i) = step.strip_prefix('#') {
            p.index(i.parse().unwrap())
        } else if let Some(k) = step.strip_prefix('\'') {
            p.key(k)
        } else {
            p.attr(*step)
        };
    }
    p
}

/// `(kind, "message at path")` for each diagnostic, for whole-list assertions.
fn listed(d: &Diagnostics) -> Vec<(DiagnosticKind, String)> {
    // The kind fixes the summary; what varies is the detail and the path.
    d.iter()
        .map(|d| {
            let shown = d.to_string();
            let prefix = format!("{}: ", d.kind().summary());
            assert!(shown.starts_with(&prefix), "{shown}");
            (d.kind(), shown[prefix.len()..].to_owned())
        })
        .collect()
}

fn ty(json: &str) -> Type {
    serde_json::from_str(json).unwrap()
}

// ---------------------------------------------------------------------------------------
// Import

#[test]
fn fixture_imports_every_construct() {
    let schemas = ProviderSchemas::from_json(FIXTURE).unwrap();
    assert_eq!(schemas.format_version, "1.0");
    assert_eq!(schemas.provider_schemas.len(), 2);

    let widget = schemas
        .provider("registry.terraform.io/acme/widget")
        .unwrap();
    assert!(std::ptr::eq(
        widget,
        schemas.provider("acme/widget").unwrap()
    ));
    assert!(schemas.provider("acme/nothing").is_none());

    let provider = widget.provider.as_ref().unwrap();
    let endpoint = &provider.block.attributes["endpoint"];
    assert_eq!(endpoint.description_kind, StringKind::Markdown);
    assert!(endpoint.optional && !endpoint.required && !endpoint.computed);
    assert!(provider.block.attributes["token"].sensitive);

    assert_eq!(widget.resource_schemas.len(), 2);
    assert_eq!(widget.data_source_schemas.len(), 1);
    assert_eq!(widget.ephemeral_resource_schemas.len(), 1);
    assert!(
        widget
            .ephemeral_resource("widget_session_token")
            .unwrap()
            .block
            .attributes["token"]
            .sensitive
    );
    assert!(widget.data_source("widget_image").is_some());

    let server = widget.resource("widget_server").unwrap();
    assert_eq!(server.version, 2);
    let b = &server.block;
    assert_eq!(b.description.as_deref(), Some("A **Widget** server."));
    assert_eq!(b.description_kind, StringKind::Markdown);
    assert!(b.attributes["id"].is_computed_only());
    assert!(b.attributes["size"].optional && b.attributes["size"].computed);
    assert!(b.attributes["name"].required);
    let pw = &b.attributes["admin_password"];
    assert!(pw.write_only && pw.sensitive);
    let legacy = &b.attributes["legacy_flavor"];
    assert!(legacy.deprecated);
    assert_eq!(
        legacy.deprecation_message.as_deref(),
        Some("Use `size` instead.")
    );
    assert_eq!(
        b.attributes["placement"].plain_type(),
        Some(&ty(
            r#"["object",{"zone":"string","rack":"number"},["rack"]]"#
        ))
    );

    let nested = |name: &str| b.attributes[name].nested_type().unwrap();
    assert_eq!(nested("endpoints").nesting, ObjectNesting::List);
    assert_eq!(nested("health_check").nesting, ObjectNesting::Single);
    assert_eq!(nested("mounts").nesting, ObjectNesting::Set);
    assert_eq!(nested("env").nesting, ObjectNesting::Map);
    assert!(nested("endpoints").attributes["host"].required);
    assert!(nested("env").attributes["value"].sensitive);

    let modes: Vec<(&str, NestingMode, u64, u64)> = b
        .block_types
        .iter()
        .map(|(k, nb)| (k.as_str(), nb.nesting, nb.min_items, nb.max_items))
        .collect();
    assert_eq!(
        modes,
        [
            ("annotation", NestingMode::Map, 0, 0),
            ("disk", NestingMode::List, 1, 4),
            ("extension", NestingMode::List, 0, 0),
            ("firewall_rule", NestingMode::Set, 0, 16),
            ("network", NestingMode::Single, 1, 1),
            ("timeouts", NestingMode::Group, 0, 0),
            ("volume", NestingMode::Map, 0, 0),
        ]
    );
    assert!(b.block_types["disk"]
        .block
        .block_types
        .contains_key("encryption"));
    assert!(
        widget
            .resource("widget_dns_record")
            .unwrap()
            .block
            .deprecated
    );
    assert!(b.contains_sensitive());
}

#[test]
fn fixture_implied_types_follow_terraform() {
    let schemas = ProviderSchemas::from_json(FIXTURE).unwrap();
    let server = schemas
        .provider("acme/widget")
        .unwrap()
        .resource("widget_server")
        .unwrap();
    assert_eq!(
        server.implied_type().to_string(),
        "object({admin_password=string,annotation=any,\
         disk=list(object({encryption=object({key_id=string}),kind=string,size_gb=number})),\
         endpoints=list(object({host=string,port=number,weight=number})),env=map(object({value=string})),\
         extension=any,firewall_rule=set(object({cidrs=list(string),port=number})),\
         health_check=object({interval=number,path=string}),id=string,labels=list(string),legacy_flavor=string,\
         mounts=set(object({read_only=bool,source=string})),name=string,\
         network=object({public_ip=string,subnet_id=string}),placement=object({rack=number,zone=string}),\
         ports=set(number),size=string,tags=map(string),timeouts=object({create=string,delete=string}),\
         user_data=any,volume=map(object({size_gb=number}))})"
    );
    let spec = server.block.spec_type();
    let spec = spec.as_object().unwrap();
    assert_eq!(
        spec.get("endpoints").unwrap().to_string(),
        "list(object({host=string,port=optional(number),weight=optional(number)}))"
    );
    assert_eq!(
        spec.get("placement").unwrap().to_string(),
        "object({rack=optional(number),zone=string})"
    );
    // The root object itself never has optional attributes.
    assert!(spec.optional().is_empty());
}

#[test]
fn fixture_round_trips_through_serde() {
    let schemas = ProviderSchemas::from_json(FIXTURE).unwrap();
    let json = serde_json::to_vec(&schemas).unwrap();
    let again = ProviderSchemas::from_json(&json).unwrap();
    assert_eq!(again, schemas);
    // Terraform's own shape: `type` and `nested_type`, flags only when set.
    let server = serde_json::to_value(
        &schemas.provider("acme/widget").unwrap().resource_schemas["widget_server"],
    )
    .unwrap();
    assert_eq!(
        server["block"]["attributes"]["id"],
        serde_json::json!({"type": "string", "description": "Server ID, assigned by the API.", "description_kind": "plain", "computed": true})
    );
    assert_eq!(server["block"]["block_types"]["disk"]["min_items"], 1);
    assert_eq!(
        server["block"]["attributes"]["mounts"]["nested_type"]["nesting_mode"],
        "set"
    );
}

#[test]
fn import_rejects_malformed_schemas() {
    let wrap = |attr: &str| {
        format!(
            r#"{{"format_version":"1.0","provider_schemas":{{"p":{{"resource_schemas":{{"r":{{"version":0,"block":{{"attributes":{{"a":{attr}}}}}}}}}}}}}}}"#
        )
    };
    for (attr, message) in [
        (
            r#"{"type":"string","nested_type":{"attributes":{},"nesting_mode":"list"}}"#,
            "either `type` or `nested_type`, not both",
        ),
        (r#"{"optional":true}"#, "needs `type` or `nested_type`"),
        (
            r#"{"nested_type":{"attributes":{},"nesting_mode":"group"}}"#,
            "unknown nesting mode \"group\"",
        ),
        (
            r#"{"type":["lisst","string"]}"#,
            "unknown type kind \"lisst\"",
        ),
        (
            r#"{"type":"string","description_kind":"html"}"#,
            "unknown description kind \"html\"",
        ),
    ] {
        let err = ProviderSchemas::from_json(wrap(attr).as_bytes()).unwrap_err();
        assert!(err.to_string().contains(message), "{attr}: {err}");
        assert!(err.is_data(), "{attr}: {err:?}");
    }
    let err = ProviderSchemas::from_json(b"{\"format_version\":").unwrap_err();
    assert!(err.is_eof(), "{err:?}");
    let err = ProviderSchemas::from_json(br#"{"provider_schemas":{}}"#).unwrap_err();
    assert!(
        err.to_string().contains("missing field `format_version`"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------
// Implied types

#[test]
fn implied_type_of_tricky_blocks() {
    let any = Block::new().attribute("v", Attribute::optional(Type::Dynamic));
    let plain = Block::new().attribute("v", Attribute::optional(Type::String));
    let cases = [
        (NestedBlock::single(plain.clone()), "object({v=string})"),
        (NestedBlock::group(plain.clone()), "object({v=string})"),
        (NestedBlock::list(plain.clone()), "list(object({v=string}))"),
        (NestedBlock::set(plain.clone()), "set(object({v=string}))"),
        (NestedBlock::map(plain.clone()), "map(object({v=string}))"),
        // terraform#34574: LIST and MAP blocks with `dynamic` inside become `dynamic`.
        (NestedBlock::list(any.clone()), "any"),
        (NestedBlock::map(any.clone()), "any"),
        (NestedBlock::set(any.clone()), "set(object({v=any}))"),
        (NestedBlock::single(any.clone()), "object({v=any})"),
        (NestedBlock::group(any.clone()), "object({v=any})"),
        // `dynamic` deep inside still counts.
        (
            NestedBlock::list(Block::new().block("inner", NestedBlock::single(any.clone()))),
            "any",
        ),
        // A LIST block inside a LIST block that contains `dynamic`: both become dynamic.
        (
            NestedBlock::single(Block::new().block("inner", NestedBlock::list(any.clone()))),
            "object({inner=any})",
        ),
        // A plain `dynamic` type inside a nested attribute counts too.
        (
            NestedBlock::list(Block::new().attribute(
                "n",
                Attribute::nested(
                    NestedType::single().attribute("x", Attribute::optional(Type::Dynamic)),
                ),
            )),
            "any",
        ),
    ];
    for (nb, want) in cases {
        assert_eq!(nb.implied_type().to_string(), want, "{nb:?}");
        let parent = Block::new().block("b", nb);
        assert_eq!(
            parent.implied_type().to_string(),
            format!("object({{b={want}}})")
        );
    }
    assert_eq!(
        Block::new().implied_type(),
        Type::object(Vec::<(String, Type)>::new())
    );
}

#[test]
fn nested_attributes_have_optional_attributes_only_in_the_spec_type() {
    let nested = NestedType::map()
        .attribute("req", Attribute::required(Type::Number))
        .attribute("opt", Attribute::optional(Type::String))
        .attribute("comp", Attribute::computed(Type::Bool))
        .attribute("both", Attribute::optional_computed(Type::String))
        .attribute(
            "deep",
            Attribute::nested(
                NestedType::single().attribute("x", Attribute::optional(Type::Number)),
            )
            .set_optional(),
        );
    let attr = Attribute::nested(nested.clone()).set_optional();
    assert_eq!(
        nested.spec_type().to_string(),
        "map(object({both=optional(string),comp=optional(bool),deep=optional(object({x=optional(number)})),opt=optional(string),req=number}))"
    );
    assert_eq!(
        attr.implied_type().to_string(),
        "map(object({both=string,comp=bool,deep=object({x=number}),opt=string,req=number}))"
    );
    // A plain object type with optional attributes loses them in the implied type, too.
    let plain = Attribute::optional(ty(r#"["object",{"a":"string"},["a"]]"#));
    assert_eq!(plain.implied_type().to_string(), "object({a=string})");
    assert!(matches!(attr.ty, AttributeType::Nested(_)));
}

#[test]
fn attribute_wins_over_a_block_of_the_same_name() {
    let b = Block::new()
        .attribute("x", Attribute::optional(Type::String))
        .block("x", NestedBlock::list(Block::new()));
    assert_eq!(b.implied_type().to_string(), "object({x=string})");
}

// ---------------------------------------------------------------------------------------
// Validation

fn server_block() -> Block {
    Block::new()
        .attribute("name", Attribute::required(Type::String))
        .attribute("id", Attribute::computed(Type::String))
        .attribute("size", Attribute::optional_computed(Type::Number))
        .attribute(
            "password",
            Attribute::optional(Type::String).write_only().sensitive(),
        )
        .attribute("tags", Attribute::optional(Type::map(Type::String)))
        .attribute("data", Attribute::optional(Type::Dynamic))
        .attribute(
            "endpoint",
            Attribute::nested(
                NestedType::list()
                    .attribute("host", Attribute::required(Type::String))
                    .attribute("port", Attribute::optional(Type::Number)),
            )
            .set_optional(),
        )
        .block(
            "network",
            NestedBlock::single(
                Block::new().attribute("subnet", Attribute::required(Type::String)),
            )
            .min_items(1)
            .max_items(1),
        )
        .block(
            "disk",
            NestedBlock::list(Block::new().attribute("gb", Attribute::required(Type::Number)))
                .min_items(1)
                .max_items(2),
        )
        .block(
            "rule",
            NestedBlock::set(Block::new().attribute("port", Attribute::required(Type::Number)))
                .max_items(2),
        )
        .block(
            "timeouts",
            NestedBlock::group(Block::new().attribute("create", Attribute::optional(Type::String))),
        )
        .block(
            "volume",
            NestedBlock::map(Block::new().attribute("gb", Attribute::required(Type::Number))),
        )
}

fn disk(gb: i64) -> Value {
    obj(&[("gb", n(gb))])
}

fn rule(port: Value) -> Value {
    obj(&[("port", port)])
}

/// A value of `server_block()` with no problems.
fn server_value() -> Value {
    obj(&[
        ("name", s("web")),
        ("id", unknown()),
        ("size", Value::Null),
        ("password", Value::Null),
        ("tags", map(&[("env", s("prod"))])),
        (
            "data",
            Value::Dynamic(Box::new(Dynamic::new(
                Type::list(Type::Number),
                Value::List(vec![n(1)]),
            ))),
        ),
        (
            "endpoint",
            Value::List(vec![obj(&[("host", s("a")), ("port", Value::Null)])]),
        ),
        ("network", obj(&[("subnet", s("sn-1"))])),
        ("disk", Value::List(vec![disk(10)])),
        ("rule", Value::Set(vec![rule(n(80)), rule(n(443))])),
        ("timeouts", obj(&[("create", Value::Null)])),
        ("volume", map(&[("data", disk(5))])),
    ])
}

fn with(v: &Value, name: &str, x: Value) -> Value {
    let mut m = v.as_object().unwrap().clone();
    m.insert(name.to_owned(), x);
    Value::Object(m)
}

#[test]
fn a_valid_value_has_no_problems() {
    let b = server_block();
    let v = server_value();
    assert_eq!(listed(&b.validate(&v)), []);
    assert_eq!(listed(&b.validate_state(&v)), []);
    assert!(b.validate(&v).into_result().is_ok());
    assert!(v.conforms_to(&b.implied_type()).is_ok());
    // Nothing to check in a null or unknown root.
    assert!(b.validate(&Value::Null).is_empty());
    assert!(b.validate(&unknown()).is_empty());
}

#[test]
fn type_problems_are_all_reported_with_paths() {
    let b = server_block();
    let mut m = server_value().as_object().unwrap().clone();
    m.insert("name", n(5));
    m.insert(
        "tags",
        map(&[("a", n(1)), ("b", s("ok")), ("c", Value::Bool(true))]),
    );
    m.insert("data", s("not wrapped"));
    m.remove("id");
    m.insert("bogus", s("x"));
    m.insert("endpoint", Value::List(vec![obj(&[("host", s("a"))])]));
    let d = b.validate(&Value::Object(m));
    assert_eq!(
        listed(&d),
        [
            (DiagnosticKind::Type, "a string in a position of type dynamic must carry its own type (Value::Dynamic) at data".to_owned()),
            (DiagnosticKind::Type, "missing attribute at endpoint[0].port".to_owned()),
            (DiagnosticKind::Type, "missing attribute at id".to_owned()),
            (DiagnosticKind::Type, "invalid type: number, expected a string at name".to_owned()),
            (DiagnosticKind::Type, "invalid type: number, expected a string at tags[\"a\"]".to_owned()),
            (DiagnosticKind::Type, "invalid type: bool, expected a string at tags[\"c\"]".to_owned()),
            (DiagnosticKind::Type, "unsupported attribute: the schema does not declare it at bogus".to_owned()),
        ]
    );
    assert!(d.has_path(&path(&["tags", "'c"])));
    assert!(b
        .validate(&s("x"))
        .iter()
        .any(|d| d.message() == "invalid type: string, expected object (a block)"));
}

#[test]
fn required_attributes_are_not_null_but_may_be_unknown() {
    let b = server_block();
    let v = with(&server_value(), "name", Value::Null);
    let v = with(
        &v,
        "endpoint",
        Value::List(vec![
            obj(&[("host", Value::Null), ("port", n(1))]),
            obj(&[("host", unknown()), ("port", n(2))]),
        ]),
    );
    let v = with(&v, "network", Value::Null);
    let d = b.validate(&v);
    assert_eq!(
        listed(&d),
        [
            (
                DiagnosticKind::MissingRequired,
                "required attribute is null at endpoint[0].host".to_owned()
            ),
            (
                DiagnosticKind::MissingRequired,
                "required attribute is null at name".to_owned()
            ),
            (
                DiagnosticKind::MissingRequired,
                "required block is null at network".to_owned()
            ),
        ]
    );
    let v = with(&server_value(), "name", unknown());
    assert!(b.validate(&v).is_empty());
    // Without min_items a single block may be null.
    let lax = Block::new().block("n", NestedBlock::single(Block::new()));
    assert!(lax.validate(&obj(&[("n", Value::Null)])).is_empty());
}

#[test]
fn list_block_counts_are_checked() {
    let b = server_block();
    let too_few = b.validate(&with(&server_value(), "disk", Value::List(vec![])));
    assert_eq!(
        listed(&too_few),
        [(
            DiagnosticKind::TooFewBlocks,
            "at least 1 block is required, found 0 at disk".to_owned()
        )]
    );
    let too_many = b.validate(&with(
        &server_value(),
        "disk",
        Value::List(vec![disk(1), disk(2), disk(3)]),
    ));
    assert_eq!(
        listed(&too_many),
        [(
            DiagnosticKind::TooManyBlocks,
            "at most 2 blocks are allowed, found 3 at disk".to_owned()
        )]
    );
    // Each element of a list is one block, known or not.
    let unknown_elems = b.validate(&with(
        &server_value(),
        "disk",
        Value::List(vec![unknown(), unknown(), unknown()]),
    ));
    assert_eq!(unknown_elems.len(), 1);
    assert_eq!(unknown_elems[0].kind(), DiagnosticKind::TooManyBlocks);
}

#[test]
fn block_counts_are_deferred_while_unknown() {
    let b = server_block();
    // A wholly unknown list: nothing to say...
    assert!(b
        .validate(&with(&server_value(), "disk", unknown()))
        .is_empty());
    // ...unless its length refinements rule the limits out.
    let long = Value::Unknown(Refinements::new().with_min_length(3));
    let d = b.validate(&with(&server_value(), "disk", long));
    assert_eq!(
        listed(&d),
        [(
            DiagnosticKind::TooManyBlocks,
            "at most 2 blocks are allowed, found at least 3 at disk".to_owned()
        )]
    );
    let empty = Value::Unknown(Refinements::new().with_max_length(0));
    let d = b.validate(&with(&server_value(), "disk", empty));
    assert_eq!(d[0].kind(), DiagnosticKind::TooFewBlocks);
    let fits = Value::Unknown(Refinements::new().with_min_length(1).with_max_length(2));
    assert!(b.validate(&with(&server_value(), "disk", fits)).is_empty());

    // Sets: three rules over a maximum of 2.
    let three = Value::Set(vec![rule(n(1)), rule(n(2)), rule(n(3))]);
    let d = b.validate(&with(&server_value(), "rule", three));
    assert_eq!(
        listed(&d),
        [(
            DiagnosticKind::TooManyBlocks,
            "at most 2 blocks are allowed, found 3 at rule".to_owned()
        )]
    );
    // Equal known elements are one element.
    let dups = Value::Set(vec![rule(n(1)), rule(n(1)), rule(n(2))]);
    assert!(b.validate(&with(&server_value(), "rule", dups)).is_empty());
    // Unknown elements may merge with others: deferred...
    let maybe = Value::Set(vec![rule(n(1)), rule(unknown()), rule(unknown())]);
    assert!(b.validate(&with(&server_value(), "rule", maybe)).is_empty());
    // ...but three distinct known elements are too many whatever the unknowns become.
    let surely = Value::Set(vec![rule(n(1)), rule(n(2)), rule(n(3)), rule(unknown())]);
    let d = b.validate(&with(&server_value(), "rule", surely));
    assert_eq!(
        listed(&d),
        [(
            DiagnosticKind::TooManyBlocks,
            "at most 2 blocks are allowed, found between 3 and 4 at rule".to_owned()
        )]
    );

    let min_set = Block::new().block(
        "r",
        NestedBlock::set(Block::new().attribute("p", Attribute::optional(Type::Number)))
            .min_items(2),
    );
    // Two unknowns could turn out equal, but a set of one is never two: deferred.
    let two_unknown = obj(&[("r", Value::Set(vec![rule_p(unknown()), rule_p(unknown())]))]);
    assert!(min_set.validate(&two_unknown).is_empty());
    let one = obj(&[("r", Value::Set(vec![rule_p(unknown())]))]);
    assert_eq!(
        min_set.validate(&one)[0].kind(),
        DiagnosticKind::TooFewBlocks
    );
}

fn rule_p(p: Value) -> Value {
    obj(&[("p", p)])
}

#[test]
fn null_blocks() {
    let b = server_block();
    let v = with(&server_value(), "timeouts", Value::Null);
    let v = with(&v, "disk", Value::Null);
    let v = with(&v, "volume", Value::Null);
    let d = b.validate(&v);
    assert_eq!(
        listed(&d),
        [
            (
                DiagnosticKind::NullBlock,
                "a list block is never null: no blocks is an empty list at disk".to_owned()
            ),
            (
                DiagnosticKind::NullBlock,
                "a group block is never null at timeouts".to_owned()
            ),
            (
                DiagnosticKind::NullBlock,
                "a map block is never null: no blocks is an empty map at volume".to_owned()
            ),
        ]
    );
}

#[test]
fn nested_blocks_are_validated_inside() {
    let b = server_block();
    let v = with(
        &server_value(),
        "volume",
        map(&[("a", disk(1)), ("b", obj(&[("gb", Value::Null)]))]),
    );
    let v = with(&v, "rule", Value::Set(vec![rule(s("http"))]));
    let d = b.validate(&v);
    assert_eq!(
        listed(&d),
        [
            (
                DiagnosticKind::Type,
                "invalid type: string, expected a number at rule[0].port".to_owned()
            ),
            (
                DiagnosticKind::MissingRequired,
                "required attribute is null at volume[\"b\"].gb".to_owned()
            ),
        ]
    );
}

#[test]
fn dynamic_list_and_map_blocks_are_dynamic_values() {
    let any = Block::new().attribute("v", Attribute::optional(Type::Dynamic));
    let b = Block::new()
        .block("l", NestedBlock::list(any.clone()).max_items(1))
        .block("m", NestedBlock::map(any));
    // Inside the concrete type of a dynamic value, values are plain.
    let elem = |v: Value| obj(&[("v", v)]);
    let elem_ty = |t: Type| Type::object([("v", t)]);
    let l = Value::Dynamic(Box::new(Dynamic::new(
        Type::tuple([elem_ty(Type::String), elem_ty(Type::Number)]),
        Value::Tuple(vec![elem(s("a")), elem(n(1))]),
    )));
    let m = Value::Dynamic(Box::new(Dynamic::new(
        Type::object([("k", elem_ty(Type::Bool))]),
        obj(&[("k", elem(Value::Bool(true)))]),
    )));
    let v = obj(&[("l", l), ("m", m)]);
    assert!(v.conforms_to(&b.implied_type()).is_ok());
    let d = b.validate(&v);
    assert_eq!(
        listed(&d),
        [(
            DiagnosticKind::TooManyBlocks,
            "at most 1 block is allowed, found 2 at l".to_owned()
        )]
    );
    // check_apply follows the concrete types inside, too.
    assert_eq!(listed(&b.check_apply(&v, &v)), []);
    let l2 = Value::Dynamic(Box::new(Dynamic::new(
        Type::tuple([elem_ty(Type::String), elem_ty(Type::Number)]),
        Value::Tuple(vec![elem(s("b")), elem(n(1))]),
    )));
    let changed = with(&v, "l", l2);
    assert_eq!(
        listed(&b.check_apply(&v, &changed)),
        [(
            DiagnosticKind::Changed,
            r#"was "a", but now "b" at l[0].v"#.to_owned()
        )]
    );
    // A plain list where the block is dynamic is a type problem.
    let d = b.validate(&obj(&[("l", Value::List(vec![])), ("m", Value::Null)]));
    assert_eq!(d[0].kind(), DiagnosticKind::Type);
    assert!(d[0].message().contains("itself dynamic"), "{d}");
}

#[test]
fn config_and_state_rules() {
    let b = server_block();
    let config = with(&server_value(), "id", s("srv-1"));
    let config = with(&config, "password", s("hunter2"));
    assert_eq!(
        listed(&b.validate_config(&config)),
        [(
            DiagnosticKind::Unconfigurable,
            "computed attribute cannot be set in configuration at id".to_owned()
        )]
    );
    // An unknown is still a value set by configuration.
    assert_eq!(b.validate_config(&server_value()).len(), 1);
    assert!(b
        .validate_config(&with(&server_value(), "id", Value::Null))
        .is_empty());
    assert_eq!(
        listed(&b.validate_state(&config)),
        [(
            DiagnosticKind::WriteOnly,
            "write-only attribute must be null outside configuration at password".to_owned()
        )]
    );
    assert!(b.validate(&config).is_empty());
}

#[test]
fn contradictory_refinements_are_type_problems() {
    let b = Block::new().attribute("n", Attribute::optional(Type::Number));
    let bad = Value::Unknown(
        Refinements::new()
            .with_lower_bound(Number::from(5), true)
            .with_upper_bound(Number::from(1), true),
    );
    let d = b.validate(&obj(&[("n", bad)]));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].kind(), DiagnosticKind::Type);
    assert!(
        d[0].message().starts_with("contradictory refinements"),
        "{d}"
    );
    assert_eq!(d[0].path(), &path(&["n"]));
}

// ---------------------------------------------------------------------------------------
// Refinements::admits

#[test]
fn admits_each_refinement() {
    let not_null = Refinements::new().not_null();
    assert!(!not_null.admits(&Value::Null));
    assert!(not_null.admits(&s("")));
    assert!(Refinements::new().admits(&Value::Null));

    let prefix = Refinements::new().with_prefix("ab");
    assert!(prefix.admits(&s("abc")));
    assert!(prefix.admits(&s("ab")));
    assert!(!prefix.admits(&s("a")));
    assert!(prefix.admits(&Value::Null));
    // NFC on both sides: "é" precomposed and decomposed are one string.
    let accent = Refinements::new().with_prefix("caf\u{e9}");
    assert!(accent.admits(&s("cafe\u{301} noir")));

    let range = Refinements::new()
        .with_lower_bound(Number::from(1), false)
        .with_upper_bound(Number::from(10), true);
    assert!(!range.admits(&n(1)));
    assert!(range.admits(&n(2)));
    assert!(range.admits(&n(10)));
    assert!(!range.admits(&n(11)));
    assert!(range.admits(&Value::Number("1.5".parse().unwrap())));

    let len = Refinements::new().with_min_length(1).with_max_length(2);
    assert!(!len.admits(&Value::List(vec![])));
    assert!(len.admits(&Value::List(vec![n(1)])));
    assert!(!len.admits(&map(&[("a", n(1)), ("b", n(2)), ("c", n(3))])));
    // A set with duplicates has fewer elements than it lists.
    assert!(len.admits(&Value::Set(vec![n(1), n(1), n(1)])));
    // Unknown elements may merge, so three of them may be one element...
    assert!(len.admits(&Value::Set(vec![unknown(), unknown(), unknown()])));
    // ...but three distinct known ones are three.
    assert!(!len.admits(&Value::Set(vec![n(1), n(2), n(3), unknown()])));

    // Refinements that do not apply to the kind of value are ignored.
    assert!(prefix.admits(&n(5)));
    assert!(range.admits(&s("x")));
    // A dynamic value is judged by its inner value.
    let d = Value::Dynamic(Box::new(Dynamic::new(Type::String, s("zz"))));
    assert!(!prefix.admits(&d));
}

#[test]
fn admits_unknowns_unless_their_refinements_cannot_overlap() {
    let prefix = Refinements::new().with_prefix("arn:aws:");
    assert!(prefix.admits(&unknown()));
    assert!(prefix.admits(&Value::Unknown(
        Refinements::new().with_prefix("arn:aws:s3:")
    )));
    assert!(prefix.admits(&Value::Unknown(Refinements::new().with_prefix("arn:"))));
    assert!(!prefix.admits(&Value::Unknown(Refinements::new().with_prefix("urn:"))));

    let low = Refinements::new().with_upper_bound(Number::from(5), false);
    assert!(!low.admits(&Value::Unknown(
        Refinements::new().with_lower_bound(Number::from(5), true)
    )));
    assert!(low.admits(&Value::Unknown(
        Refinements::new().with_lower_bound(Number::from(4), true)
    )));

    let short = Refinements::new().with_max_length(2);
    assert!(!short.admits(&Value::Unknown(Refinements::new().with_min_length(3))));
    assert!(short.admits(&Value::Unknown(Refinements::new().with_min_length(2))));
}

// ---------------------------------------------------------------------------------------
// check_apply

#[test]
fn check_apply_accepts_a_consistent_result() {
    let t = ty(
        r#"["object",{"id":"string","n":"number","tags":["map","string"],"s":["set","string"],"l":["list","number"]}]"#,
    );
    let planned = obj(&[
        (
            "id",
            Value::Unknown(Refinements::new().not_null().with_prefix("srv-")),
        ),
        ("n", n(3)),
        (
            "tags",
            Value::Unknown(Refinements::new().with_max_length(2)),
        ),
        ("s", Value::Set(vec![s("a"), unknown()])),
        ("l", Value::List(vec![n(1), unknown()])),
    ]);
    let applied = obj(&[
        ("id", s("srv-42")),
        ("n", Value::Number("3.0".parse().unwrap())),
        ("tags", map(&[("a", s("b"))])),
        // The unknown turned out equal to the known element and merged.
        ("s", Value::Set(vec![s("a")])),
        ("l", Value::List(vec![n(1), n(2)])),
    ]);
    let d = check_apply(&planned, &applied, &t);
    assert_eq!(listed(&d), []);
}

#[test]
fn check_apply_reports_changed_known_values() {
    let t = ty(
        r#"["object",{"a":"string","b":"bool","c":"number","l":["list","string"],"m":["map","number"],"t":["tuple",["string","number"]],"x":"string","y":"string"}]"#,
    );
    let planned = obj(&[
        ("a", s("one")),
        ("b", Value::Bool(true)),
        ("c", n(1)),
        ("l", Value::List(vec![s("p"), s("q")])),
        ("m", map(&[("k", n(1)), ("gone", n(2))])),
        ("t", Value::Tuple(vec![s("z"), n(1)])),
        ("x", Value::Null),
        ("y", s("here")),
    ]);
    let applied = obj(&[
        ("a", s("two")),
        ("b", Value::Bool(false)),
        ("c", n(2)),
        ("l", Value::List(vec![s("p"), s("Q"), s("r")])),
        ("m", map(&[("k", n(1)), ("new", n(3))])),
        ("t", Value::Tuple(vec![s("z"), n(9)])),
        ("x", s("set")),
        ("y", Value::Null),
    ]);
    let d = check_apply(&planned, &applied, &t);
    assert_eq!(
        listed(&d),
        [
            (
                DiagnosticKind::Changed,
                r#"was "one", but now "two" at a"#.to_owned()
            ),
            (
                DiagnosticKind::Changed,
                "was true, but now false at b".to_owned()
            ),
            (DiagnosticKind::Changed, "was 1, but now 2 at c".to_owned()),
            (
                DiagnosticKind::Changed,
                r#"was "q", but now "Q" at l[1]"#.to_owned()
            ),
            (
                DiagnosticKind::Changed,
                "new element has appeared at l[2]".to_owned()
            ),
            (
                DiagnosticKind::Changed,
                r#"element has vanished at m["gone"]"#.to_owned()
            ),
            (
                DiagnosticKind::Changed,
                r#"new element has appeared at m["new"]"#.to_owned()
            ),
            (
                DiagnosticKind::Changed,
                "was 1, but now 9 at t[1]".to_owned()
            ),
            (
                DiagnosticKind::Changed,
                r#"was null, but now "set" at x"#.to_owned()
            ),
            (
                DiagnosticKind::Changed,
                r#"was "here", but now null at y"#.to_owned()
            ),
        ]
    );
}

#[test]
fn check_apply_reports_refinement_violations() {
    let t =
        ty(r#"["object",{"id":"string","port":"number","ips":["list","string"],"name":"string"}]"#);
    let planned = obj(&[
        ("id", Value::Unknown(Refinements::new().not_null())),
        (
            "port",
            Value::Unknown(
                Refinements::new()
                    .with_lower_bound(Number::from(1), true)
                    .with_upper_bound(Number::from(1024), false),
            ),
        ),
        (
            "ips",
            Value::Unknown(Refinements::new().with_min_length(1).with_max_length(2)),
        ),
        (
            "name",
            Value::Unknown(Refinements::new().with_prefix("web-")),
        ),
    ]);
    let applied = obj(&[
        ("id", Value::Null),
        ("port", n(8080)),
        ("ips", Value::List(vec![])),
        ("name", s("db-1")),
    ]);
    let d = check_apply(&planned, &applied, &t);
    assert_eq!(
        listed(&d),
        [
            (
                DiagnosticKind::Refinement,
                "final value is null, but the unknown was refined as not null at id".to_owned()
            ),
            (
                DiagnosticKind::Refinement,
                "final value length 0 is below the refined minimum length 1 at ips".to_owned()
            ),
            (
                DiagnosticKind::Refinement,
                r#"final value "db-1" does not start with the refined prefix "web-" at name"#
                    .to_owned()
            ),
            (
                DiagnosticKind::Refinement,
                "final value 8080 is not < 1024 at port".to_owned()
            ),
        ]
    );
}

#[test]
fn check_apply_reports_values_still_unknown() {
    let t = ty(r#"["object",{"a":"string","b":["list","string"],"c":"string"}]"#);
    let planned = obj(&[("a", unknown()), ("b", unknown()), ("c", s("x"))]);
    let applied = obj(&[
        ("a", unknown()),
        ("b", Value::List(vec![s("ok"), unknown()])),
        ("c", unknown()),
    ]);
    let d = check_apply(&planned, &applied, &t);
    assert_eq!(
        listed(&d),
        [
            (
                DiagnosticKind::StillUnknown,
                "final value is still unknown at a".to_owned()
            ),
            (
                DiagnosticKind::StillUnknown,
                "final value is still unknown at b[1]".to_owned()
            ),
            (
                DiagnosticKind::StillUnknown,
                "was known, but now unknown at c".to_owned()
            ),
        ]
    );
}

#[test]
fn check_apply_sets_correlate_and_never_grow() {
    let t = Type::set(Type::String);
    let planned = Value::Set(vec![s("a"), s("b")]);
    let d = check_apply(&planned, &Value::Set(vec![s("a"), s("c")]), &t);
    assert_eq!(
        listed(&d),
        [(
            DiagnosticKind::Changed,
            r#"planned set element "b" does not correlate with any element in the final value"#
                .to_owned()
        )]
    );
    let grown = check_apply(
        &Value::Set(vec![s("a"), unknown()]),
        &Value::Set(vec![s("a"), s("b"), s("c")]),
        &t,
    );
    assert_eq!(
        listed(&grown),
        [(
            DiagnosticKind::Changed,
            "set length changed from 2 to 3".to_owned()
        )]
    );
    let extra = check_apply(
        &Value::Set(vec![s("a")]),
        &Value::Set(vec![s("a"), s("z")]),
        &t,
    );
    assert_eq!(
        listed(&extra),
        [
            (
                DiagnosticKind::Changed,
                r#"final set element "z" does not correlate with any element in the plan"#
                    .to_owned()
            ),
            (
                DiagnosticKind::Changed,
                "set length changed from 1 to 2".to_owned()
            ),
        ]
    );
    // An unknown element with a prefix correlates only with a fitting element.
    let pre = Value::Set(vec![Value::Unknown(Refinements::new().with_prefix("x-"))]);
    assert!(check_apply(&pre, &Value::Set(vec![s("x-1")]), &t).is_empty());
    // Once a planned element is unmatched, the final elements are not listed again.
    assert_eq!(
        listed(&check_apply(&pre, &Value::Set(vec![s("y-1")]), &t)),
        [(DiagnosticKind::Changed, r#"planned set element (unknown: prefix "x-") does not correlate with any element in the final value"#.to_owned())]
    );
}

#[test]
fn check_apply_dynamic_values() {
    let t = Type::Dynamic;
    let dynv = |ty: Type, v: Value| Value::Dynamic(Box::new(Dynamic::new(ty, v)));
    // An unknown of type dynamic may become anything.
    assert!(check_apply(&unknown(), &dynv(Type::Number, n(1)), &t).is_empty());
    let d = check_apply(&dynv(Type::String, s("a")), &dynv(Type::Number, n(1)), &t);
    assert_eq!(
        listed(&d),
        [(
            DiagnosticKind::Changed,
            "wrong final value type: planned string, found number".to_owned()
        )]
    );
    let d = check_apply(&dynv(Type::String, s("a")), &dynv(Type::String, s("b")), &t);
    assert_eq!(
        listed(&d),
        [(
            DiagnosticKind::Changed,
            r#"was "a", but now "b""#.to_owned()
        )]
    );
    let d = check_apply(&s("a"), &n(1), &Type::String);
    assert_eq!(d[0].kind(), DiagnosticKind::Type);
}

#[test]
fn block_check_apply_follows_the_schema() {
    let b = Block::new()
        .attribute("secret", Attribute::optional(Type::String).sensitive())
        .attribute(
            "env",
            Attribute::nested(
                NestedType::map().attribute("value", Attribute::optional(Type::String).sensitive()),
            )
            .set_optional(),
        )
        .attribute("name", Attribute::required(Type::String))
        .block(
            "disk",
            NestedBlock::list(Block::new().attribute("gb", Attribute::required(Type::Number))),
        )
        .block(
            "net",
            NestedBlock::single(Block::new().attribute("ip", Attribute::computed(Type::String))),
        )
        .block(
            "vol",
            NestedBlock::map(Block::new().attribute("gb", Attribute::required(Type::Number))),
        )
        .block(
            "rule",
            NestedBlock::set(Block::new().attribute("port", Attribute::required(Type::Number))),
        );
    let planned = obj(&[
        ("secret", s("hunter2")),
        ("env", map(&[("k", obj(&[("value", s("v1"))]))])),
        ("name", s("a")),
        ("disk", Value::List(vec![disk(1)])),
        ("net", obj(&[("ip", unknown())])),
        ("vol", map(&[("x", disk(1))])),
        ("rule", Value::Set(vec![rule(n(80))])),
    ]);
    assert!(b
        .check_apply(
            &planned,
            &with(&planned, "net", obj(&[("ip", s("10.0.0.1"))]))
        )
        .is_empty());

    let applied = obj(&[
        ("secret", s("hunter3")),
        ("env", map(&[("k", obj(&[("value", s("v2"))]))])),
        ("name", s("b")),
        ("disk", Value::List(vec![disk(1), disk(2)])),
        ("net", Value::Null),
        ("vol", map(&[("y", disk(1))])),
        ("rule", Value::Set(vec![rule(n(80)), rule(n(443))])),
    ]);
    let d = b.check_apply(&planned, &applied);
    assert_eq!(
        listed(&d),
        [
            (DiagnosticKind::Changed, "inconsistent values for sensitive attribute at env".to_owned()),
            (DiagnosticKind::Changed, r#"was "a", but now "b" at name"#.to_owned()),
            (DiagnosticKind::Changed, "inconsistent values for sensitive attribute at secret".to_owned()),
            (DiagnosticKind::Changed, "block count changed from 1 to 2 at disk".to_owned()),
            (DiagnosticKind::Changed, "block was present, but now absent at net".to_owned()),
            (DiagnosticKind::Changed, "final set element { port = 443 } does not correlate with any element in the plan at rule".to_owned()),
            (DiagnosticKind::Changed, "set block count changed from 1 to 2 at rule".to_owned()),
            (DiagnosticKind::Changed, r#"block key has vanished at vol["x"]"#.to_owned()),
            (DiagnosticKind::Changed, r#"new block key has appeared at vol["y"]"#.to_owned()),
        ]
    );
    // No value of a sensitive attribute is shown.
    assert!(!d.to_string().contains("hunter"));

    // Root presence.
    assert_eq!(
        b.check_apply(&Value::Null, &planned).to_string(),
        "Provider produced inconsistent result after apply: root object was absent, but now present"
    );
    assert_eq!(
        b.check_apply(&planned, &Value::Null).to_string(),
        "Provider produced inconsistent result after apply: root object was present, but now absent"
    );
    // An unknown single block placeholder may turn out absent.
    assert!(b
        .check_apply(
            &with(&planned, "net", unknown()),
            &with(&planned, "net", Value::Null)
        )
        .is_empty());
}

// ---------------------------------------------------------------------------------------
// Schema rules

#[test]
fn fixture_schemas_follow_terraforms_rules() {
    let schemas = ProviderSchemas::from_json(FIXTURE).unwrap();
    let mut checked = 0;
    for provider in schemas.provider_schemas.values() {
        let all = provider
            .resource_schemas
            .values()
            .chain(provider.data_source_schemas.values())
            .chain(provider.ephemeral_resource_schemas.values())
            .chain(provider.provider.as_ref());
        for schema in all {
            assert_eq!(listed(&schema.block.check_schema()), []);
            checked += 1;
        }
    }
    assert_eq!(checked, 7);
}

#[test]
fn check_schema_reports_every_broken_rule() {
    let any = Attribute::optional(Type::Dynamic);
    let wo = Attribute::optional(Type::String).write_only();
    let b = Block::new()
        .attribute("none", Attribute::of_type(Type::String))
        .attribute(
            "req_opt",
            Attribute::required(Type::String)
                .set_optional()
                .set_required(),
        )
        .attribute("req_comp", Attribute::required(Type::String).set_computed())
        .attribute(
            "wo_comp",
            Attribute::optional_computed(Type::String).write_only(),
        )
        .attribute("dup", Attribute::optional(Type::String))
        .attribute(
            "nested_set",
            Attribute::nested(
                NestedType::set()
                    .attribute("a", any.clone())
                    .attribute("b", wo.clone()),
            )
            .set_optional(),
        )
        .block("dup", NestedBlock::list(Block::new()))
        .block("Bad-Name", NestedBlock::list(Block::new()))
        .block("single", NestedBlock::single(Block::new()).min_items(1))
        .block("group", NestedBlock::group(Block::new()).max_items(1))
        .block("map", NestedBlock::map(Block::new()).min_items(1))
        .block(
            "list",
            NestedBlock::list(Block::new()).min_items(3).max_items(2),
        )
        .block(
            "set",
            NestedBlock::set(Block::new().attribute("a", any).attribute("b", wo)),
        )
        .block(
            "deep",
            NestedBlock::list(Block::new().attribute("x", Attribute::of_type(Type::Bool))),
        );
    let d = b.check_schema();
    assert!(d.iter().all(|d| d.kind() == DiagnosticKind::Schema));
    // The kind fixes the summary; what varies is the detail and the path.
    let found: Vec<String> = d
        .iter()
        .map(|d| format!("{} at {}", d.detail(), d.path()))
        .collect();
    assert_eq!(
        found,
        [
            "a set of nested attributes may not contain `dynamic` attributes at nested_set",
            "a set of nested attributes may not contain write-only attributes at nested_set",
            "attribute must be required, optional or computed at none",
            "attribute cannot be both required and computed at req_comp",
            "a write-only attribute cannot be computed at wo_comp",
            "block type names use lowercase letters, digits and underscores only at Bad-Name",
            "attribute must be required, optional or computed at deep.x",
            "name is both an attribute and a block type at dup",
            "a group block has no min_items or max_items at group",
            "min_items is greater than max_items at list",
            "a map block has no min_items or max_items at map",
            "a set block may not contain `dynamic` attributes at set",
            "a set block may not contain write-only attributes at set",
            "a single block has min_items equal to max_items, both 0 or 1 at single",
        ]
    );
    // Setters keep required and optional exclusive, so "req_opt" is fine.
    assert!(!d.has_path(&path(&["req_opt"])));
}
