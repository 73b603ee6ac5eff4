use super::*;

const SCHEMA: &str = r#"{"format_version":"1.0","provider_schemas":{"example.com/acme/kv":{
    "provider":{"version":0,"block":{}},
    "resource_schemas":{"kv_entry":{"version":0,"block":{"attributes":{
        "key":{"type":"string","required":true},
        "ttl":{"type":"number","optional":true},
        "tags":{"type":["map","string"],"optional":true,"sensitive":true},
        "rule":{"type":["list",["object",{"name":"string","priority":"number"}]],"optional":true}}}}}}}}"#;

fn schemas() -> Result<ProviderSchemas, Error> {
    ProviderSchemas::from_json(SCHEMA.as_bytes()).map_err(|e| Error::new(e.to_string()))
}

/// State and plan checks read numbers exactly from the file's text, and say where,
/// what and what was found when a value does not match.
#[test]
fn state_checks_match_values_exactly() {
    let text = r#"{"version":4,"outputs":{"n":{"type":"number","value":0.30000000000000000001}},
        "resources":[{"mode":"managed","type":"kv_entry","name":"a","instances":[{"attributes":
        {"key":"a","ttl":12345678901234567890.5,"tags":{"env":"prod"},
         "rule":[{"name":"r","priority":null}]}}]}]}"#;
    let json: serde_json::Value = serde_json::from_str(text).unwrap();
    let fetch = schemas;
    let state = State {
        json: (json, text.to_owned()).into(),
        schemas: &fetch,
    };
    let exact = |s: &str| known::number(s.parse::<tfvalue::Number>().unwrap());
    state
        .expect("kv_entry.a", "ttl", &exact("12345678901234567890.5"))
        .unwrap();
    let e = state
        .expect("kv_entry.a", "ttl", &exact("12345678901234567890"))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "`kv_entry.a` at ttl: expected 12345678901234567890, found 12345678901234567890.5"
    );
    state
        .expect("kv_entry.a", r#"tags["env"]"#, &known::string("prod"))
        .unwrap();
    let rules = known::list([known::object([
        ("name", known::string("r")),
        ("priority", known::number(1u64)),
    ])]);
    assert_eq!(
        state
            .expect("kv_entry.a", "rule", &rules)
            .unwrap_err()
            .to_string(),
        "`kv_entry.a` at rule[0].priority: expected 1, found null"
    );
    assert_eq!(
        state
            .expect(
                "kv_entry.a",
                "",
                &known::object_partial([("key", known::string("b"))])
            )
            .unwrap_err()
            .to_string(),
        r#"`kv_entry.a` at key: expected "b", found "a""#
    );
    assert_eq!(
        state
            .expect("kv_entry.a", "nope", &known::null())
            .unwrap_err()
            .to_string(),
        "`kv_entry.a`: there is nothing at `nope`"
    );
    assert!(state
        .expect("kv_entry.a", "rule[", &known::null())
        .unwrap_err()
        .to_string()
        .contains("the path `rule[`"));
    assert!(state
        .expect("kv_entry.b", "", &known::null())
        .unwrap_err()
        .to_string()
        .contains("not in the state"));
    state
        .expect_output("n", &exact("0.30000000000000000001"))
        .unwrap();
    assert_eq!(
        state
            .expect_output("n", &exact("0.3"))
            .unwrap_err()
            .to_string(),
        "output `n`: expected 0.3, found 0.30000000000000000001"
    );
}

#[test]
fn plan_checks_read_known_unknown_and_sensitive_values() {
    let text = r#"{"resource_changes":[{"address":"kv_entry.a","mode":"managed","type":"kv_entry",
        "change":{"actions":["create"],"after":{"key":"a","tags":{"env":"prod"},"rule":[]},
        "after_unknown":{"ttl":true,"rule":[]},"after_sensitive":{"tags":{"env":true}}}},
        {"address":"kv_entry.b","mode":"managed","type":"kv_entry",
        "change":{"actions":["no-op"],"after":{"key":"b","ttl":1.5},"after_unknown":{},"after_sensitive":{}}}],
        "output_changes":{"x":{"actions":["no-op"]}}}"#;
    let json: serde_json::Value = serde_json::from_str(text).unwrap();
    let plan = Plan {
        path: PathBuf::new(),
        json: (json, text.to_owned()).into(),
        text: String::new(),
        schemas: schemas(),
    };
    plan.expect_known("kv_entry.a", "key", &known::string("a"))
        .unwrap();
    plan.expect_known(
        "kv_entry.b",
        "ttl",
        &known::number("1.50".parse::<tfvalue::Number>().unwrap()),
    )
    .unwrap();
    assert_eq!(
        plan.expect_known("kv_entry.a", "ttl", &known::number(3600u64))
            .unwrap_err()
            .to_string(),
        "`kv_entry.a` at ttl: expected 3600, found (unknown)"
    );
    plan.expect_unknown("kv_entry.a", "ttl").unwrap();
    assert_eq!(
        plan.expect_unknown("kv_entry.a", "key")
            .unwrap_err()
            .to_string(),
        "`kv_entry.a` at `key`: expected a value unknown until apply, found one that is not"
    );
    plan.expect_sensitive("kv_entry.a", r#"tags["env"]"#)
        .unwrap();
    assert!(plan.expect_sensitive("kv_entry.b", "key").is_err());
    assert!(plan
        .expect_known("kv_entry.a", "nope", &known::null())
        .unwrap_err()
        .to_string()
        .contains("has no `nope`"));
    assert_eq!(
        plan.expect_empty().unwrap_err().to_string(),
        r#"expected an empty plan, found `kv_entry.a` (["create"])"#
    );
    plan.expect_non_empty().unwrap();
    let empty = plan_of(
        r#"{"format_version":"1.2","resource_changes":[{"address":"kv_entry.a",
        "mode":"managed","type":"kv_entry","name":"a","change":{"actions":["no-op"],
        "before":{"key":"a"},"after":{"key":"a"},"after_unknown":{}}}]}"#,
    );
    empty.expect_empty().unwrap();
    assert_eq!(
        empty.expect_non_empty().unwrap_err().to_string(),
        "expected a plan that changes something, found an empty plan"
    );
}

#[test]
fn versions_parse_and_skip_with_a_reason() {
    let v = |s: &str| s.parse::<TerraformVersion>().unwrap();
    assert_eq!(v("v1.12.0-beta1"), v("1.12"));
    assert!(v("1.10.0") > v("1.9.9") && v("1.0.3") < v("1.8"));
    for bad in ["", "1", "one.two", "1.2.3.4", "1.x"] {
        assert!(bad.parse::<TerraformVersion>().is_err(), "{bad}");
    }
    let range = Versions {
        below: Some(v("1.8")),
        above: Some(v("1.11")),
    };
    assert_eq!(
        range.skip(v("1.0.3")).as_deref(),
        Some("Terraform 1.0.3 is below 1.8.0, which this needs")
    );
    assert_eq!(range.skip(v("1.8.0")), None);
    assert_eq!(
        range.skip(v("1.11.4")).as_deref(),
        Some("Terraform 1.11.4 is above 1.11.0, the newest this runs with")
    );
    assert_eq!(Versions::default().skip(v("1.0.3")), None);
}

#[test]
fn terraforms_come_from_three_variables_each_binary_once() {
    let dir = case::TempDir::new();
    let a = dir.0.join("a");
    let b = dir.0.join("b");
    std::fs::write(&a, "").unwrap();
    std::fs::write(&b, "").unwrap();
    // The same file by another spelling counts once.
    let a_again = dir.0.join(".").join("a");
    let os = |p: &Path| Some(p.as_os_str().to_owned());
    let list = std::env::join_paths([b.as_path(), Path::new(""), a_again.as_path()]).unwrap();
    assert_eq!(
        terraforms_from(os(&a), Some(OsString::new()), Some(list)),
        vec![a.clone(), b.clone()]
    );
    assert_eq!(
        terraforms_from(os(&b), os(&a), None),
        vec![b.clone(), a.clone()]
    );
    assert!(terraforms_from(None, Some(OsString::new()), None).is_empty());
    // A path that does not exist is kept (its run says it is missing), once.
    let gone = dir.0.join("gone");
    assert_eq!(terraforms_from(os(&gone), os(&gone), None), vec![gone]);
}

#[test]
fn unwrapped_joins_a_wrapped_diagnostic() {
    let out = "\n╷\n│ Error: no such entry\n│ \n│   with kv_entry.e,\n│ There is no entry\n│ with key `x`.\n╵\n";
    assert_eq!(
        unwrapped(out),
        "Error: no such entry with kv_entry.e, There is no entry with key `x`."
    );
    let p = Pattern::new("no entry with key `x`").unwrap();
    assert!(!p.is_match(out));
    assert!(p.is_match(&unwrapped(out)));
}

#[test]
fn hcl_strings_escape_interpolation() {
    assert_eq!(hcl_string(r#"a"b\c${x}%{y}"#), r#""a\"b\\c$${x}%%{y}""#);
}

#[test]
fn default_names_come_from_the_binary() {
    assert_eq!(ProviderBinary::example("thing").default_name(), "thing");
    assert_eq!(
        ProviderBinary::bin("terraform-provider-kv").default_name(),
        "kv"
    );
    assert_eq!(
        ProviderBinary::path("/x/terraform-provider-kv_v1.2.3").default_name(),
        "kv"
    );
}

#[test]
fn state_addresses_follow_terraform() {
    let json = serde_json::json!({
        "version": 4,
        "resources": [
            {"mode": "managed", "type": "kv_entry", "name": "e", "instances": [
                {"index_key": "ü \"q\"", "attributes": {"key": "a"}},
                {"index_key": 2, "attributes": {"key": "b"}}
            ]},
            {"module": "module.m", "mode": "data", "type": "kv_lookup", "name": "l", "instances": [
                {"attributes": {"key": "c"}}
            ]}
        ]
    });
    let no_schema = || Err(Error::new("no schema"));
    let state = State {
        json: json.into(),
        schemas: &no_schema,
    };
    assert_eq!(
        state.addresses(),
        [
            r#"kv_entry.e["ü \"q\""]"#,
            "kv_entry.e[2]",
            "module.m.data.kv_lookup.l"
        ]
    );
    assert!(!state.is_empty());
    #[derive(serde::Deserialize)]
    struct Entry {
        key: String,
    }
    let e: Entry = state.resource("kv_entry.e[2]").unwrap();
    assert_eq!(e.key, "b");
    let missing = state.resource::<Entry>("kv_entry.f").err().unwrap();
    assert!(
        missing
            .message()
            .starts_with("`kv_entry.f` is not in the state (it holds `kv_entry.e"),
        "{missing}"
    );
    assert_eq!(
        state.value("kv_entry.e[2]").unwrap_err().message(),
        "no schema"
    );
}

#[test]
fn attribute_diff_names_each_attribute() {
    let a = serde_json::json!({"id": "x", "size": 1, "password": "p"});
    let b = serde_json::json!({"id": "x", "size": 2, "password": null});
    assert_eq!(
        attribute_diff(&a, &b, &["password".to_owned()]),
        ["  size: applied 1, imported 2"]
    );
}

#[test]
fn a_case_without_terraform_is_skipped() {
    let case = TestCase::new(ProviderBinary::path("/nonexistent"));
    let dir = case.dir().to_path_buf();
    assert!(dir.is_dir());
    let outcome = case
        .step(Step::config(""))
        .try_run_with(None, TERRAFORM_ENV)
        .unwrap();
    assert!(matches!(outcome, Outcome::Skipped(r) if r.contains(TERRAFORM_ENV)));
    assert!(!dir.exists(), "the temporary directory is removed");
}

fn plan_of(text: &str) -> Plan {
    let json: serde_json::Value = serde_json::from_str(text).unwrap();
    Plan {
        path: PathBuf::new(),
        json: (json, text.to_owned()).into(),
        text: String::new(),
        schemas: schemas(),
    }
}

/// Actions, imports, drift and outputs, each with the message of its failure.
#[test]
fn plan_checks_of_actions_imports_drift_and_outputs() {
    let plan = plan_of(
        r#"{"resource_changes":[
        {"address":"kv_entry.a","mode":"managed","type":"kv_entry","change":{"actions":["delete","create"]}},
        {"address":"kv_entry.b","mode":"managed","type":"kv_entry","change":{"actions":["no-op"],
         "after":{"key":"b"},"importing":{"id":"b"}}},
        {"address":"kv_entry.c","mode":"managed","type":"kv_entry","change":{"actions":["update"],
         "after":{"key":"c"},"importing":{"id":"c"}}}],
        "resource_drift":[{"address":"kv_entry.a","change":{"actions":["update"]}}],
        "planned_values":{"outputs":{"n":{"type":"number","value":12345678901234567890.5}}},
        "output_changes":{
         "n":{"actions":["create"],"after":12345678901234567890.5,"after_unknown":false,"after_sensitive":false},
         "t":{"actions":["create"],"after":{"a":[1,"x"]},"after_unknown":false,"after_sensitive":true},
         "u":{"actions":["create"],"after":null,"after_unknown":true,"after_sensitive":false},
         "z":{"actions":["create"],"after":null,"after_unknown":false,"after_sensitive":false}}}"#,
    );
    plan.expect_resource_action("kv_entry.a", ResourceAction::Replace)
        .unwrap();
    plan.expect_resource_action("kv_entry.a", ResourceAction::DestroyBeforeCreate)
        .unwrap();
    assert_eq!(
        plan.expect_resource_action("kv_entry.a", ResourceAction::CreateBeforeDestroy)
            .unwrap_err()
            .to_string(),
        r#"`kv_entry.a`: expected the action CreateBeforeDestroy, found ["delete", "create"]"#
    );
    assert_eq!(
        plan.expect_resource_action("kv_entry.b", ResourceAction::Update)
            .unwrap_err()
            .to_string(),
        r#"`kv_entry.b`: expected the action Update, found ["no-op"]"#
    );
    assert_eq!(
        plan.expect_import("kv_entry.b").unwrap(),
        serde_json::json!({"key": "b"})
    );
    assert!(plan
        .expect_import("kv_entry.a")
        .unwrap_err()
        .to_string()
        .contains("expected the plan to import it, but it does not"));
    assert!(plan
        .expect_import("kv_entry.c")
        .unwrap_err()
        .to_string()
        .starts_with(r#"`kv_entry.c`: expected a no-op import, found the actions ["update"]"#));
    plan.expect_drift("kv_entry.a").unwrap();
    assert_eq!(
        plan.expect_drift("kv_entry.b").unwrap_err().to_string(),
        r#"`kv_entry.b`: expected drift, found drift in ["kv_entry.a"]"#
    );
    let exact = |s: &str| known::number(s.parse::<tfvalue::Number>().unwrap());
    plan.expect_known_output("n", "", &exact("12345678901234567890.5"))
        .unwrap();
    assert_eq!(
        plan.expect_known_output("n", "", &exact("12345678901234567890"))
            .unwrap_err()
            .to_string(),
        "output `n`: expected 12345678901234567890, found 12345678901234567890.5"
    );
    // No type in `planned_values`: the type the JSON implies (a tuple here).
    plan.expect_known_output("t", "a[1]", &known::string("x"))
        .unwrap();
    assert_eq!(
        plan.expect_known_output("t", "a[0]", &known::number(2u64))
            .unwrap_err()
            .to_string(),
        "output `t` at a[0]: expected 2, found 1"
    );
    plan.expect_known_output("z", "", &known::null()).unwrap();
    plan.expect_known_output("u", "", &known::null())
        .unwrap_err();
    plan.expect_unknown_output("u", "").unwrap();
    assert_eq!(
        plan.expect_unknown_output("z", "").unwrap_err().to_string(),
        "output `z`: expected a value unknown until apply, found null"
    );
    plan.expect_sensitive_output("t").unwrap();
    assert_eq!(
        plan.expect_sensitive_output("n").unwrap_err().to_string(),
        "output `n`: expected a sensitive value, found one that is not"
    );
    assert_eq!(
        plan.expect_known_output("nope", "", &known::null())
            .unwrap_err()
            .to_string(),
        r#"the plan has no output `nope` (it has ["n", "t", "u", "z"])"#
    );
}

/// Values compared across states: same, differ (from the one before), differ from all,
/// and pairs in one state, with the messages that name each value.
#[test]
fn compare_values_across_states() {
    use super::compare::{self, CompareValue};
    let state_with = |id: &str, other: &str| {
        let text = format!(
            r#"{{"version":4,"resources":[{{"mode":"managed","type":"kv_entry","name":"a",
            "instances":[{{"attributes":{{"key":"{id}"}}}}]}},{{"mode":"managed","type":"kv_entry",
            "name":"b","instances":[{{"attributes":{{"key":"{other}"}}}}]}}]}}"#
        );
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        (json, text)
    };
    let fetch = schemas;
    let state = |id: &str, other: &str| State {
        json: state_with(id, other).into(),
        schemas: &fetch,
    };
    let same = CompareValue::new(compare::values_same());
    let clone = same.clone();
    same.add(&state("x", "y"), "kv_entry.a", "key").unwrap();
    clone.add(&state("x", "y"), "kv_entry.a", "key").unwrap();
    assert_eq!(
        same.add(&state("z", "y"), "kv_entry.a", "key")
            .unwrap_err()
            .to_string(),
        r#"values_same: expected `kv_entry.a` at `key` (value 3) to be the same as `kv_entry.a` at `key` (value 1): "x" then "z""#
    );
    assert_eq!(same.values().len(), 3);
    let differ = CompareValue::new(compare::values_differ());
    for id in ["x", "y", "x"] {
        differ.add(&state(id, "y"), "kv_entry.a", "key").unwrap();
    }
    assert!(differ
        .add(&state("x", "y"), "kv_entry.a", "key")
        .unwrap_err()
        .to_string()
        .ends_with(r#"(value 4) to differ from `kv_entry.a` at `key` (value 3), both are "x""#));
    let all = CompareValue::new(compare::values_differ_all());
    all.add(&state("x", "y"), "kv_entry.a", "key").unwrap();
    all.add(&state("y", "y"), "kv_entry.a", "key").unwrap();
    all.add(&state("x", "y"), "kv_entry.a", "key").unwrap_err();
    let s = state("x", "y");
    compare::compare_pair(
        &s,
        ("kv_entry.a", "key"),
        ("kv_entry.b", "key"),
        &compare::values_differ(),
    )
    .unwrap();
    assert_eq!(
        compare::compare_pair(
            &s,
            ("kv_entry.a", "key"),
            ("kv_entry.b", "key"),
            &compare::values_same()
        )
        .unwrap_err()
        .to_string(),
        r#"values_same: expected `kv_entry.b` at `key` to be the same as `kv_entry.a` at `key`: "x" then "y""#
    );
    assert!(same
        .add(&s, "kv_entry.c", "key")
        .unwrap_err()
        .to_string()
        .contains("is not in the state"));
    // A comparison of one's own: the values come in order, and its words are the failure's.
    let growing = CompareValue::new(compare::custom(|values| {
        let texts: Vec<String> = values.iter().map(|v| v.value.to_string()).collect();
        match texts.windows(2).find(|w| w[1].len() <= w[0].len()) {
            Some(w) => Err(format!("{} is not longer than {}", w[1], w[0])),
            None => Ok(()),
        }
    }));
    growing.add(&state("x", "y"), "kv_entry.a", "key").unwrap();
    growing.add(&state("xx", "y"), "kv_entry.a", "key").unwrap();
    let e = growing
        .add(&state("z", "y"), "kv_entry.a", "key")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("custom: "), "{e}");
    assert!(e.contains(r#""z" is not longer than "xx""#), "{e}");
}

#[test]
fn identities_are_written_as_hcl() {
    let v =
        serde_json::json!({"key": "a\"${b}", "n": 1.5, "tags": ["x", true, null], "o": {"k": 1}});
    assert_eq!(
        hcl_value(&v, 2),
        "{\n    \"key\" = \"a\\\"$${b}\"\n    \"n\" = 1.5\n    \"o\" = {\n      \"k\" = 1\n    }\n    \"tags\" = [\"x\", true, null]\n  }"
    );
    assert!(is_config_file("main.tf") && is_config_file("x.tf.json"));
    assert!(is_config_file("terraform.tfvars.json") && !is_config_file("notes.md"));
}

#[test]
fn dynamic_values_lose_their_wrapper_as_in_a_plan() {
    let state = serde_json::json!({"meta": {"type": ["object", {"n": "number"}], "value": {"n": 1}},
        "tags": {"type": "x", "value": 1}, "list": [{"type": "string", "value": "s"}]});
    assert_eq!(
        unwrap_dynamic(&state),
        serde_json::json!({"meta": {"n": 1}, "tags": {"type": "x", "value": 1}, "list": ["s"]})
    );
}
