//! The framework's example providers (`examples/kv.rs`, `examples/thing.rs`) under
//! `tfvalue_plugin::testing`, over protocol 5 and protocol 6: create with references and
//! unknown block lists, the no-change plan after every apply, update, replace, taint,
//! drift, import, state upgrade, apply errors, destroy. (`tests/acceptance.rs` has the
//! rest of thing's lifecycle.)
//!
//! Skipped (each case prints why) unless `TFVALUE_TERRAFORM` names a Terraform binary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use tfvalue::{Dynamic, Number, Value};
use tfvalue_plugin::testing::compare::{self, CompareValue};
use tfvalue_plugin::testing::{
    known, CheckResult, Plan, ProviderBinary, ResourceAction, Step, TestCase,
};

/// `kv_entry` as stored in the state.
#[derive(Deserialize, Debug, Clone, PartialEq)]
struct Entry {
    key: String,
    value: Option<String>,
    ttl: Option<Number>,
    id: Option<String>,
    version: Option<u64>,
    tags: Option<BTreeMap<String, String>>,
    rule: Vec<Rule>,
    acl: Vec<Acl>,
    meta: Dynamic,
    /// Write-only: always null in the state.
    secret_wo: Option<String>,
    secret_wo_version: Option<u64>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
struct Rule {
    name: String,
    priority: Option<Number>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
struct Acl {
    principal: String,
    level: String,
}

/// The kv example, taken in to be served in this process.
#[allow(dead_code)]
#[path = "../examples/kv.rs"]
mod kv;

/// The kv provider: served in this process, or (with `TFVALUE_TESTING_BINARY` set) the
/// example's binary that Terraform starts.
fn kv_provider() -> ProviderBinary {
    ProviderBinary::example("kv")
        .protocol_env("KV_PROTOCOL")
        .or_in_process(kv::provider)
}

fn kv_case(protocol: u32) -> (TestCase, PathBuf) {
    let case = TestCase::new(kv_provider())
        .source("example.com/acme/kv")
        .protocol(protocol);
    let store = case.dir().join("store.json");
    (case, store)
}

/// The store as JSON (`{}` when there is no file).
fn store_json(store: &Path) -> serde_json::Value {
    std::fs::read(store)
        .map(|b| serde_json::from_slice(&b).unwrap())
        .unwrap_or_else(|_| serde_json::json!({}))
}

fn edit_store(store: &Path, f: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>)) {
    let mut v = store_json(store);
    f(v.as_object_mut().unwrap());
    std::fs::write(store, serde_json::to_vec(&v).unwrap()).unwrap();
}

/// The provider block, through a variable (unknown while Terraform validates).
fn provider(store: &Path) -> String {
    format!(
        "variable \"store\" {{\n  default = {:?}\n}}\n\nprovider \"kv\" {{\n  path = var.store\n}}\n",
        store.to_str().unwrap()
    )
}

/// `a` in full; `b` made of references to `a` (unknown at plan, a `rule` block list
/// from a `dynamic` block over an unknown map); entries keyed by Unicode `for_each` keys;
/// a lookup of `a`.
fn kv_config(store: &Path, a_value: &str, b_key: &str) -> String {
    format!(
        r#"{provider}
resource "kv_entry" "a" {{
  key   = "alpha"
  value = "{a_value}"
  tags  = {{ "环境" = "test", "ünï" = "x" }}
  rule {{
    name     = "first"
    priority = 12345678901234567890
  }}
  rule {{ name = "second" }}
  acl {{
    principal = "alice"
    level     = "admin"
  }}
  acl {{
    principal = "bob"
    level     = "read"
  }}
  meta = {{ n = 12345678901234567890, f = 0.1, list = [1, "two"] }}
}}

resource "kv_entry" "b" {{
  key   = "{b_key}"
  value = kv_entry.a.id
  ttl   = kv_entry.a.version * 60
  tags  = {{ owner = kv_entry.a.id }}
  dynamic "rule" {{
    for_each = {{ (kv_entry.a.id) = 1 }}
    content {{ name = rule.key }}
  }}
  acl {{
    principal = kv_entry.a.id
    level     = "write"
  }}
  meta = {{ ref = kv_entry.a.id }}
}}

resource "kv_entry" "each" {{
  for_each = toset(["ü", "日本語", "🙂"])
  key      = "each-${{each.key}}"
  value    = each.key
}}

data "kv_lookup" "a" {{
  key = kv_entry.a.key
}}

output "looked_up_ttl" {{ value = data.kv_lookup.a.ttl }}
"#,
        provider = provider(store)
    )
}

fn kv_lifecycle(protocol: u32) -> TestCase {
    let (case, store) = kv_case(protocol);
    // `a` keeps its id over updates and replacements; its version moves every step.
    let id = CompareValue::new(compare::values_same());
    let version = CompareValue::new(compare::values_differ());
    let (id1, id2, id3) = (id.clone(), id.clone(), id.clone());
    let (v1, v2, v3) = (version.clone(), version.clone(), version.clone());
    let cfg = |a: &str, b: &str| kv_config(&store, a, b);
    let s = store.clone();
    let s2 = store.clone();
    let s3 = store.clone();
    let s4 = store.clone();
    let s5 = store.clone();
    let s6 = store.clone();
    let end = store.clone();
    let big = || known::number("12345678901234567890".parse::<Number>().unwrap());
    case.step(
        Step::config(cfg("one", "beta"))
            .plan_check(move |plan| {
                plan.expect_non_empty()?;
                // Known in the plan, exactly; unknown until `a` exists.
                plan.expect_known("kv_entry.a", "rule[0].priority", &big())?;
                plan.expect_known("kv_entry.a", "ttl", &known::number(3600u64))?;
                plan.expect_known(
                    "kv_entry.a",
                    "acl",
                    &known::set([
                        known::object([
                            ("principal", known::string("bob")),
                            ("level", known::string("read")),
                        ]),
                        known::object_partial([("level", known::string("admin"))]),
                    ]),
                )?;
                plan.expect_unknown("kv_entry.a", "id")?;
                plan.expect_unknown("kv_entry.b", "value")?;
                plan.expect_unknown("kv_entry.b", r#"tags["owner"]"#)?;
                plan.expect_resource_action("kv_entry.a", ResourceAction::Create)?;
                plan.expect_resource_action("data.kv_lookup.a", ResourceAction::Read)?;
                // The lookup is read during apply, so its output is unknown.
                plan.expect_unknown_output("looked_up_ttl", "")?;
                Ok(())
            })
            .post_apply_pre_refresh_plan_check(|plan| Ok(plan.expect_empty()?))
            .post_apply_post_refresh_plan_check(|plan| {
                plan.expect_empty()?;
                plan.expect_known_output("looked_up_ttl", "", &known::number(3600u64))?;
                Ok(())
            })
            .check(move |state| {
                state.expect(
                    "kv_entry.a",
                    "rule",
                    &known::list([
                        known::object([("name", known::string("first")), ("priority", big())]),
                        known::object([
                            ("name", known::string("second")),
                            ("priority", known::null()),
                        ]),
                    ]),
                )?;
                state.expect(
                    "kv_entry.a",
                    "tags",
                    &known::map_partial([("环境", known::string("test"))]),
                )?;
                state.expect("kv_entry.a", "id", &known::string_matching("^kv-"))?;
                state.expect("kv_entry.b", "rule", &known::size(1))?;
                state.expect_output("looked_up_ttl", &known::number(3600u64))?;
                let a: Entry = state.resource("kv_entry.a")?;
                assert_eq!(a.id.as_deref(), Some("kv-alpha"));
                assert_eq!(a.version, Some(1));
                assert_eq!(a.ttl, Some(Number::from(3600u32)), "the default");
                assert_eq!(a.rule[0].priority, Some("12345678901234567890".parse()?));
                assert_eq!(
                    a.meta.value()["n"],
                    Value::from("12345678901234567890".parse::<Number>()?)
                );
                assert_eq!(a.meta.value()["f"], Value::from("0.1".parse::<Number>()?));
                assert_eq!(a.tags.as_ref().unwrap()["环境"], "test");
                let b: Entry = state.resource("kv_entry.b")?;
                assert_eq!(b.value.as_deref(), Some("kv-alpha"));
                assert_eq!(b.ttl, Some(Number::from(60u32)));
                assert_eq!(
                    b.rule,
                    [Rule {
                        name: "kv-alpha".into(),
                        priority: None
                    }]
                );
                assert_eq!(b.acl[0].principal, "kv-alpha");
                assert_eq!(b.meta.value()["ref"], Value::from("kv-alpha"));
                let e: Entry = state.resource(r#"kv_entry.each["日本語"]"#)?;
                assert_eq!(e.key, "each-日本語");
                assert!(state.contains(r#"kv_entry.each["🙂"]"#));
                assert_eq!(
                    state.output("looked_up_ttl")?,
                    Value::from(Number::from(3600u32))
                );
                // The store holds tfvalue's JSON of the model: exact numbers, Unicode keys.
                let text = std::fs::read_to_string(&s)?;
                assert!(
                    text.contains("12345678901234567890") && text.contains("0.1"),
                    "{text}"
                );
                let json = store_json(&s);
                assert_eq!(json["alpha"]["version"], 1);
                assert_eq!(json.as_object().unwrap().len(), 5);
                id1.add(state, "kv_entry.a", "id")?;
                v1.add(state, "kv_entry.a", "version")?;
                Ok(())
            }),
    )
    // Update: a's version goes up; b, which refers to it, follows.
    .step(
        Step::config(cfg("two", "beta"))
            .plan_check(|plan| {
                plan.expect_resource_action("kv_entry.a", ResourceAction::Update)?;
                Ok(plan.expect_known("kv_entry.a", "value", &known::string("two"))?)
            })
            .check(move |state| {
                id2.add(state, "kv_entry.a", "id")?;
                v2.add(state, "kv_entry.a", "version")?;
                let a: Entry = state.resource("kv_entry.a")?;
                assert_eq!((a.value.as_deref(), a.version), (Some("two"), Some(2)));
                assert_eq!(
                    a.id.as_deref(),
                    Some("kv-alpha"),
                    "the id is kept on update"
                );
                let b: Entry = state.resource("kv_entry.b")?;
                assert_eq!((b.ttl, b.version), (Some(Number::from(120u32)), Some(2)));
                assert_eq!(store_json(&s2)["alpha"]["value"], "two");
                Ok(())
            }),
    )
    // Replace: `key` requires it.
    .step(
        Step::config(cfg("two", "gamma"))
            .plan_check(|plan| {
                plan.expect_resource_action("kv_entry.b", ResourceAction::Replace)?;
                Ok(plan.expect_resource_action("kv_entry.a", ResourceAction::NoOp)?)
            })
            .check(move |state| {
                let b: Entry = state.resource("kv_entry.b")?;
                assert_eq!((b.id.as_deref(), b.version), (Some("kv-gamma"), Some(1)));
                let json = store_json(&s3);
                assert!(
                    json.get("beta").is_none() && json.get("gamma").is_some(),
                    "{json}"
                );
                Ok(())
            }),
    )
    // Taint (`terraform taint`): replaced on the next apply, with a fresh version.
    .step(
        Step::config(cfg("two", "gamma"))
            .taint("kv_entry.a")
            .check(move |state| {
                let a: Entry = state.resource("kv_entry.a")?;
                assert_eq!((a.id.as_deref(), a.version), (Some("kv-alpha"), Some(1)));
                id3.add(state, "kv_entry.a", "id")?;
                v3.add(state, "kv_entry.a", "version")?;
                Ok(())
            }),
    )
    // An error at apply leaves the store and the state as they were.
    .step(
        Step::config(cfg("FAIL", "gamma"))
            .expect_error("Error: the store refused the value")
            .check(move |state| {
                let a: Entry = state.resource("kv_entry.a")?;
                assert_eq!(a.value.as_deref(), Some("two"));
                assert_eq!(store_json(&s4)["alpha"]["value"], "two");
                Ok(())
            }),
    )
    // Drift: changed and deleted behind Terraform's back; refresh sees it.
    .step({
        let s = store.clone();
        Step::refresh()
            .before(move || {
                edit_store(&s, |db| {
                    db["alpha"]["value"] = "drifted".into();
                    db.remove("each-ü");
                });
            })
            .expect_non_empty_plan()
            .plan_check(|plan| {
                // The refresh-only plan shows what changed outside Terraform.
                plan.expect_drift("kv_entry.a")?;
                Ok(plan.expect_drift(r#"kv_entry.each["ü"]"#)?)
            })
            .post_refresh_plan_check(|plan| {
                plan.expect_resource_action("kv_entry.a", ResourceAction::Update)?;
                plan.expect_resource_action(r#"kv_entry.each["ü"]"#, ResourceAction::Create)?;
                Ok(plan.expect_known("kv_entry.a", "value", &known::string("two"))?)
            })
            .check(|state| {
                let a: Entry = state.resource("kv_entry.a")?;
                assert_eq!(a.value.as_deref(), Some("drifted"));
                assert!(!state.contains(r#"kv_entry.each["ü"]"#));
                Ok(())
            })
    })
    .step(Step::config(cfg("two", "gamma")).check(move |state| {
        assert!(state.contains(r#"kv_entry.each["ü"]"#));
        assert_eq!(store_json(&s5)["alpha"]["value"], "two");
        let a: Entry = state.resource("kv_entry.a")?;
        assert_eq!(a.version, Some(2), "the drift was undone by an update");
        Ok(())
    }))
    // `-replace`: replaced although nothing changed, with a fresh version.
    .step(
        Step::config(cfg("two", "gamma"))
            .replace("kv_entry.a")
            .check(|state| {
                let a: Entry = state.resource("kv_entry.a")?;
                assert_eq!(a.version, Some(1));
                Ok(())
            }),
    )
    // Import by key, and of a key the store lacks.
    .step(Step::import("kv_entry.a").id("alpha").verify())
    // Through an `import {}` block (Terraform 1.5+): planned in a new directory, and
    // in place, where the plan is applied.
    .step(
        Step::import("kv_entry.a")
            .id("alpha")
            .with_import_block()
            .verify(),
    )
    .step(
        Step::import(r#"kv_entry.each["🙂"]"#)
            .id("each-🙂")
            .with_import_block()
            .in_place()
            .verify()
            .plan_check(|plan| {
                plan.expect_known(r#"kv_entry.each["🙂"]"#, "value", &known::string("🙂"))?;
                Ok(plan.expect_resource_action("kv_entry.a", ResourceAction::NoOp)?)
            })
            .check(|state| {
                state.expect(r#"kv_entry.each["🙂"]"#, "key", &known::string("each-🙂"))?;
                Ok(())
            }),
    )
    .step(
        Step::import(r#"kv_entry.each["日本語"]"#)
            .id_attribute("key")
            .verify(),
    )
    .step(
        Step::import("kv_entry.a")
            .id("nope")
            .expect_error("Error: no such entry"),
    )
    // Creating a key the store holds says to import it.
    .step(
        Step::config(format!(
            "{}\nresource \"kv_entry\" \"dup\" {{\n  key = \"alpha\"\n}}\n",
            cfg("two", "gamma")
        ))
        .expect_error("Error: the key exists: terraform import it")
        .check(move |state| {
            assert!(!state.contains("kv_entry.dup"));
            assert_eq!(store_json(&s6)["alpha"]["value"], "two");
            Ok(())
        }),
    )
    // A lookup of a key the store lacks: an error at `key`.
    .step(
        Step::config(format!(
            "{}\ndata \"kv_lookup\" \"missing\" {{\n  key = \"absent\"\n}}\n",
            cfg("two", "gamma")
        ))
        .expect_error("Error: no such entry.*key = \"absent\""),
    )
    .check_destroy(move |_| {
        assert_eq!(store_json(&end), serde_json::json!({}), "entries left");
        assert_eq!(id.values().len(), 3);
        Ok(())
    })
}

#[test]
fn kv_lifecycle_protocol_5() {
    TestCase::run_each(|| kv_lifecycle(5));
}

#[test]
fn kv_lifecycle_protocol_6() {
    TestCase::run_each(|| kv_lifecycle(6));
}

/// The provider block's checks, at `path`.
#[test]
fn kv_provider_block_errors() {
    for protocol in [5, 6] {
        TestCase::run_each(|| {
            let (case, _) = kv_case(protocol);
            let one = "resource \"kv_entry\" \"x\" {\n  key = \"x\"\n}\n";
            let with = |path: &str| format!("provider \"kv\" {{\n  path = {path:?}\n}}\n{one}");
            case.step(
                Step::config(with("/tmp/store.txt"))
                    .expect_error("Error: path must name a .json file.*path = \"/tmp/store.txt\""),
            )
            .step(
                Step::config(with("/no/such/dir/store.json"))
                    .expect_error("Error: the store's directory does not exist"),
            )
        });
    }
}

/// The schema's validators, run by the server when Terraform validates: a bad value is
/// an error at its attribute, before the provider's code runs. (The lifecycle test's
/// `ttl = kv_entry.a.version * 60`, unknown when validated, passes the same validator.)
#[test]
fn kv_schema_validators() {
    TestCase::run_each(|| {
        let (case, store) = kv_case(6);
        let config = format!(
            "{}\nresource \"kv_entry\" \"x\" {{\n  key = \"x\"\n  ttl = 0\n}}\n",
            provider(&store)
        );
        // Terraform points at the attribute's line.
        let line = 1 + config.lines().position(|l| l.contains("ttl = 0")).unwrap();
        case.step(Step::config(config).expect_error(format!(
            "Error: Invalid attribute value.*on main.tf line {line}, in resource \"kv_entry\" \"x\".*value must be at least 1, found 0"
        )))
    });
}

/// State of schema version 0 (the value under `data`) is upgraded to version 1.
fn kv_upgrade(protocol: u32) -> TestCase {
    let (case, store) = kv_case(protocol);
    let work = case.dir().join("work");
    let config = format!(
        "{}\nresource \"kv_entry\" \"old\" {{\n  key   = \"old\"\n  value = \"legacy\"\n  tags  = {{ a = \"b\" }}\n}}\n",
        provider(&store)
    );
    let seed_store = store.clone();
    let state_file = work.join("terraform.tfstate");
    let seed = move || {
        let provider = r#"provider[\"example.com/acme/kv\"]"#;
        std::fs::write(
            work.join("terraform.tfstate"),
            format!(
                r#"{{"version": 4, "terraform_version": "1.0.3", "serial": 1, "lineage": "0a5ec1a8-0000-4000-8000-00000000000{protocol}",
  "outputs": {{}},
  "resources": [{{"mode": "managed", "type": "kv_entry", "name": "old", "provider": "{provider}",
    "instances": [{{"schema_version": 0,
      "attributes": {{"key": "old", "data": "legacy", "ttl": 3600, "id": "kv-old", "version": 3, "tags": {{"a": "b"}}}},
      "sensitive_attributes": []}}]}}]}}"#
            ),
        )
        .unwrap();
        std::fs::write(
            &seed_store,
            r#"{"old":{"key":"old","value":"legacy","ttl":3600,"id":"kv-old","version":3,"tags":{"a":"b"},"rule":[],"acl":[],"meta":null}}"#,
        )
        .unwrap();
    };
    case.step(Step::config(config.clone()).before(seed).plan_only())
        .step(Step::config(config).check(move |state| {
            let old: Entry = state.resource("kv_entry.old")?;
            assert_eq!(
                (old.value.as_deref(), old.version),
                (Some("legacy"), Some(3))
            );
            let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&state_file)?)?;
            assert_eq!(file["resources"][0]["instances"][0]["schema_version"], 1);
            Ok(())
        }))
}

#[test]
fn kv_upgrade_protocol_5() {
    TestCase::run_each(|| kv_upgrade(5));
}

#[test]
fn kv_upgrade_protocol_6() {
    TestCase::run_each(|| kv_upgrade(6));
}

// ---------------------------------------------------------------------------------------
// thing

/// `thing_server` as stored in the state.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Server {
    id: Option<String>,
    name: String,
    ip_address: Option<String>,
    size: Option<u32>,
    tags: Option<BTreeMap<String, String>>,
    metadata: Dynamic,
    disk: Vec<Disk>,
    /// Not in protocol 5's schema.
    #[serde(default)]
    endpoints: Option<serde_json::Value>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Disk {
    size_gb: u32,
    kind: Option<String>,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Volume {
    id: Option<String>,
    server_id: String,
    size_gb: u32,
}

fn thing_case(protocol: u32) -> (TestCase, PathBuf) {
    let case = TestCase::new(ProviderBinary::example("thing").protocol_env("THING_PROTOCOL"))
        .source("example.com/acme/thing")
        .protocol(protocol);
    let db = case.dir().join("db.json");
    (case.env("THING_DB", &db), db)
}

/// Five servers and five volumes applied in parallel; the volumes' `server_id` and one
/// server's disks (a `dynamic` block over a list unknown at plan) refer to other servers.
fn fleet(first_name: &str) -> String {
    format!(
        r#"
resource "thing_server" "fleet" {{
  count = 5
  name  = count.index == 0 ? "{first_name}" : "fleet-${{count.index}}"
  disk {{ size_gb = 10 }}
}}

resource "thing_volume" "v" {{
  count     = 5
  server_id = thing_server.fleet[count.index].id
  size_gb   = count.index + 1
}}

resource "thing_server" "follower" {{
  name = "follower"
  size = length(thing_server.fleet[0].id)
  dynamic "disk" {{
    for_each = [for s in slice(thing_server.fleet, 0, 2) : s.id if s.id != ""]
    content {{ size_gb = 1 }}
  }}
}}
"#
    )
}

fn thing_replace_and_taint(protocol: u32) -> TestCase {
    let (case, db) = thing_case(protocol);
    let ids = |state: &tfvalue_plugin::testing::State, prefix: &str, n: usize| {
        let mut ids = Vec::new();
        for i in 0..n {
            let id = if prefix == "srv" {
                state
                    .resource::<Server>(&format!("thing_server.fleet[{i}]"))?
                    .id
            } else {
                state
                    .resource::<Volume>(&format!("thing_volume.v[{i}]"))?
                    .id
            };
            ids.push(id.unwrap_or_default());
        }
        Ok::<_, tfvalue_plugin::testing::Error>(ids)
    };
    let db1 = db.clone();
    let db2 = db.clone();
    case.step(Step::config(fleet("first")).check(move |state| {
        state.expect("thing_server.fleet[1]", "name", &known::string("fleet-1"))?;
        state.expect("thing_server.follower", "disk", &known::size(2))?;
        state.expect("thing_volume.v[4]", "size_gb", &known::number(5u64))?;
        let servers = ids(state, "srv", 5)?;
        let volumes = ids(state, "vol", 5)?;
        let mut all: Vec<&String> = servers.iter().chain(&volumes).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 10, "ids handed out twice: {servers:?} {volumes:?}");
        for (i, server) in servers.iter().enumerate() {
            let v: Volume = state.resource(&format!("thing_volume.v[{i}]"))?;
            assert_eq!(&v.server_id, server);
        }
        let f: Server = state.resource("thing_server.follower")?;
        assert_eq!(f.disk.len(), 2);
        assert_eq!(f.disk[0].kind.as_deref(), Some("ssd"), "the default");
        let db = store_json(&db1);
        assert_eq!(db.as_object().unwrap().len(), 11);
        Ok(())
    }))
    // Replace: `name` requires it; the volume that refers to the server is replaced too.
    .step(Step::config(fleet("renamed")).check(move |state| {
        let s: Server = state.resource("thing_server.fleet[0]")?;
        assert!(s.ip_address.unwrap().starts_with("10.0."));
        let v: Volume = state.resource("thing_volume.v[0]")?;
        assert_eq!(Some(v.server_id), s.id);
        assert_eq!(store_json(&db2).as_object().unwrap().len(), 11);
        Ok(())
    }))
    // Taint.
    .step(
        Step::config(fleet("renamed"))
            .taint("thing_server.fleet[1]")
            .check(|state| {
                let s: Server = state.resource("thing_server.fleet[1]")?;
                assert!(s.ip_address.unwrap().starts_with("10.0."));
                assert_eq!(s.size, Some(1), "the default");
                Ok(())
            }),
    )
    // An error at apply: a volume of a server that does not exist.
    .step(
        Step::config(format!(
            "{}\nresource \"thing_volume\" \"orphan\" {{\n  server_id = \"srv-none\"\n  size_gb = 1\n}}\n",
            fleet("renamed")
        ))
        .expect_error("Error: no such server.*server_id = \"srv-none\"")
        .check(|state| {
            assert!(!state.contains("thing_volume.orphan"));
            Ok(())
        }),
    )
    .check_destroy(move |_| {
        assert_eq!(store_json(&db), serde_json::json!({}), "objects left");
        Ok(())
    })
}

#[test]
fn thing_replace_and_taint_protocol_5() {
    TestCase::run_each(|| thing_replace_and_taint(5));
}

#[test]
fn thing_replace_and_taint_protocol_6() {
    TestCase::run_each(|| thing_replace_and_taint(6));
}

/// thing's state upgrades: a version 1 JSON state and a version 0 flatmap state.
fn thing_upgrade(protocol: u32) -> TestCase {
    let (case, db) = thing_case(protocol);
    let work = case.dir().join("work");
    let state_file = work.join("terraform.tfstate");
    let seed = move || {
        let provider = r#"provider[\"example.com/acme/thing\"]"#;
        std::fs::write(
            work.join("terraform.tfstate"),
            format!(
                r#"{{"version": 4, "terraform_version": "1.0.3", "serial": 1, "lineage": "0a5ec1a8-0000-4000-8000-00000000010{protocol}",
  "outputs": {{}},
  "resources": [
    {{"mode": "managed", "type": "thing_server", "name": "legacy", "provider": "{provider}",
      "instances": [{{"schema_version": 1,
        "attributes": {{"id": "srv-100", "name": "legacy", "size": 2, "tags": {{"a": "b"}}, "ip_address": "10.0.9.9"}},
        "sensitive_attributes": []}}]}},
    {{"mode": "managed", "type": "thing_server", "name": "ancient", "provider": "{provider}",
      "instances": [{{"schema_version": 0,
        "attributes_flat": {{"id": "srv-101", "name": "ancient", "cpus": "4"}}}}]}}]}}"#
            ),
        )
        .unwrap();
        let record = |id: &str,
                      name: &str,
                      size: u32,
                      tags: serde_json::Value,
                      ip: serde_json::Value| {
            serde_json::json!(["thing_server", {
                "id": id, "name": name, "size": size, "tags": tags, "ip_address": ip, "metadata": null,
                "disk": [{"size_gb": 10, "kind": "ssd"}], "endpoints": null,
            }])
        };
        let records = serde_json::json!({
            "srv-100": record("srv-100", "legacy", 2, serde_json::json!({"a": "b"}), "10.0.9.9".into()),
            "srv-101": record("srv-101", "ancient", 4, serde_json::Value::Null, serde_json::Value::Null),
        });
        std::fs::write(&db, serde_json::to_vec(&records).unwrap()).unwrap();
    };
    let config = r#"
resource "thing_server" "legacy" {
  name = "legacy"
  size = 2
  tags = { a = "b" }
  disk { size_gb = 10 }
}

resource "thing_server" "ancient" {
  name = "ancient"
  size = 4
  disk { size_gb = 10 }
}
"#;
    case.step(Step::config(config).before(seed).plan_only())
        .step(Step::config(config).check(move |state| {
            let ancient: Server = state.resource("thing_server.ancient")?;
            assert_eq!(ancient.size, Some(4));
            let legacy: Server = state.resource("thing_server.legacy")?;
            assert_eq!(
                legacy.disk,
                [Disk {
                    size_gb: 10,
                    kind: Some("ssd".into())
                }]
            );
            let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&state_file)?)?;
            for r in file["resources"].as_array().unwrap() {
                assert_eq!(r["instances"][0]["schema_version"], 2, "{r}");
            }
            Ok(())
        }))
}

#[test]
fn thing_upgrade_protocol_5() {
    TestCase::run_each(|| thing_upgrade(5));
}

#[test]
fn thing_upgrade_protocol_6() {
    TestCase::run_each(|| thing_upgrade(6));
}

/// An entry with the write-only `secret_wo`, in a configuration of its own.
fn kv_secret_config(store: &Path, secret: &str, version: u64) -> String {
    format!(
        r#"{provider}
resource "kv_entry" "s" {{
  key               = "secret"
  secret_wo         = "{secret}"
  secret_wo_version = {version}
}}
"#,
        provider = provider(store)
    )
}

/// What the store holds as `secret_wo` of the entry `secret`.
fn stored_secret(store: &Path) -> serde_json::Value {
    store_json(store)["secret"]["secret"].clone()
}

/// A write-only attribute end to end with Terraform 1.11 or later: the provider receives
/// the configured value (the store keeps it), the state never holds it, a new value
/// alone is no change (the step's no-change plan after apply holds), and a bump of
/// `secret_wo_version` hands the new value over.
fn kv_write_only(protocol: u32) {
    let (case, store) = kv_case(protocol);
    let (s1, s2, s3) = (store.clone(), store.clone(), store.clone());
    case.step(
        Step::config(kv_secret_config(&store, "s3cret-1", 1)).check(move |state| {
            let e: serde_json::Value = state.resource("kv_entry.s")?;
            assert_eq!(e["secret_wo"], serde_json::Value::Null);
            assert_eq!(e["secret_wo_version"], 1);
            let text = state.json().to_string();
            assert!(
                !text.contains("s3cret"),
                "the state holds the secret: {text}"
            );
            assert_eq!(stored_secret(&s1), "s3cret-1", "the provider received it");
            Ok(())
        }),
    )
    // A new value alone plans no change: the store keeps the first one.
    .step(
        Step::config(kv_secret_config(&store, "s3cret-2", 1)).check(move |state| {
            let e: serde_json::Value = state.resource("kv_entry.s")?;
            assert_eq!(e["version"], 1, "no update ran");
            assert_eq!(stored_secret(&s2), "s3cret-1");
            Ok(())
        }),
    )
    // A version bump is an update, and hands the new value over.
    .step(
        Step::config(kv_secret_config(&store, "s3cret-2", 2)).check(move |state| {
            let e: serde_json::Value = state.resource("kv_entry.s")?;
            assert_eq!(
                (e["version"].clone(), e["secret_wo"].clone()),
                (2.into(), serde_json::Value::Null)
            );
            assert!(!state.json().to_string().contains("s3cret"));
            assert_eq!(stored_secret(&s3), "s3cret-2");
            Ok(())
        }),
    )
    .run_latest();
}

#[test]
fn kv_write_only_protocol_5() {
    kv_write_only(5);
}

#[test]
fn kv_write_only_protocol_6() {
    kv_write_only(6);
}

/// An entry whose `secret_wo` comes from an ephemeral variable (Terraform 1.10+), as a
/// real configuration gets a secret: neither the plan file nor the state may hold it.
fn kv_ephemeral_secret_config(store: &Path) -> String {
    format!(
        r#"{provider}
variable "secret" {{
  type      = string
  ephemeral = true
}}
variable "secret_version" {{
  type = number
}}
resource "kv_entry" "s" {{
  key               = "secret"
  secret_wo         = var.secret
  secret_wo_version = var.secret_version
}}
"#,
        provider = provider(store)
    )
}

/// Every byte of every file in a saved plan (a zip archive, its entries compressed),
/// read with Python's `zipfile` (`.ci/run` needs Python already).
fn plan_file_contents(plan: &Path) -> Vec<u8> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile\n\
             z = zipfile.ZipFile(sys.argv[1])\n\
             sys.stdout.buffer.write(b''.join(z.read(n) for n in z.namelist()))",
        ])
        .arg(plan)
        .output()
        .expect("python3 reads the plan file");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// What a plan of the write-only `secret_wo` must show, and what it must not hold. A
/// create shows the attribute as `(write-only attribute)`; an update hides it among the
/// unchanged attributes (null before, null after).
fn check_secret_plan(plan: &Plan, action: &str) -> CheckResult {
    assert_eq!(plan.actions("kv_entry.s")?, [action]);
    plan.expect_known("kv_entry.s", "secret_wo", &known::null())?;
    plan.expect_sensitive("kv_entry.s", "secret_wo")?;
    plan.expect_known("kv_entry.s", "secret_wo_version", &known::not_null())?;
    assert!(
        action != "create"
            || plan
                .text()
                .contains("secret_wo         = (write-only attribute)"),
        "the plan does not show the write-only attribute:\n{}",
        plan.text()
    );
    assert!(!plan.text().contains("s3cret"), "{}", plan.text());
    assert!(
        !plan.json().to_string().contains("s3cret"),
        "{}",
        plan.json()
    );
    let contents = plan_file_contents(plan.path());
    let holds = |needle: &str| {
        contents
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
    };
    assert!(holds("secret_wo_version"), "the plan file was read");
    assert!(!holds("s3cret"), "the plan file holds the secret");
    Ok(())
}

/// A write-only attribute set from an ephemeral variable, through saved plans with
/// Terraform 1.11 or later: the plan shows `(write-only attribute)`, neither the plan
/// file nor the state holds the value, the provider receives it on create and on the
/// update a version bump plans.
fn kv_write_only_through_saved_plans(protocol: u32) {
    let (case, store) = kv_case(protocol);
    let (s1, s2) = (store.clone(), store.clone());
    let config = kv_ephemeral_secret_config(&store);
    case.step(
        Step::config(config.clone())
            .var("secret", "s3cret-1")
            .var("secret_version", "1")
            .plan_check(|plan| check_secret_plan(plan, "create"))
            .check(move |state| {
                assert!(!state.json().to_string().contains("s3cret"));
                assert_eq!(stored_secret(&s1), "s3cret-1", "the provider received it");
                Ok(())
            }),
    )
    .step(
        Step::config(config)
            .var("secret", "s3cret-2")
            .var("secret_version", "2")
            .plan_check(|plan| check_secret_plan(plan, "update"))
            .check(move |state| {
                assert!(!state.json().to_string().contains("s3cret"));
                assert_eq!(stored_secret(&s2), "s3cret-2");
                Ok(())
            }),
    )
    .run_latest();
}

#[test]
fn kv_write_only_through_saved_plans_protocol_5() {
    kv_write_only_through_saved_plans(5);
}

#[test]
fn kv_write_only_through_saved_plans_protocol_6() {
    kv_write_only_through_saved_plans(6);
}

/// The provider's functions, in outputs and in resource arguments.
fn kv_functions_config(store: &Path) -> String {
    format!(
        r#"{provider}
resource "kv_entry" "a" {{
  key = "alpha"
}}
resource "kv_entry" "b" {{
  key   = "beta"
  # Unknown while kv_entry.a is planned: Terraform makes the result unknown itself.
  value = provider::kv::id(kv_entry.a.id)
  tags  = provider::kv::merge({{ a = "1", b = "1" }}, {{ b = "2" }}, {{}})
}}
output "id" {{
  value = provider::kv::id("x")
}}
output "none" {{
  value = provider::kv::merge()
}}
"#,
        provider = provider(store)
    )
}

/// Provider-defined functions with Terraform 1.11 (functions need 1.8): a known
/// argument in an output, an unknown one in a resource argument (the value is known
/// after apply, and the next plan is empty), a variadic call with three and with no
/// maps; the function's own error at its argument, and a null where the parameter takes
/// none, refused by Terraform from the signature.
fn kv_functions(protocol: u32) -> TestCase {
    let (case, store) = kv_case(protocol);
    let config = kv_functions_config(&store);
    case.step(Step::config(config.clone()).check(|state| {
        let b: serde_json::Value = state.resource("kv_entry.b")?;
        assert_eq!(b["value"], "kv-kv-alpha");
        assert_eq!(b["tags"], serde_json::json!({ "a": "1", "b": "2" }));
        assert_eq!(state.output("id")?, "kv-x");
        let map = tfvalue::Type::Map(Box::new(tfvalue::Type::String));
        assert_eq!(
            state.output("none")?.to_json_value(&map)?,
            serde_json::json!({})
        );
        Ok(())
    }))
    .step(
        Step::config(format!(
            "{config}\noutput \"bad\" {{\n  value = provider::kv::id(\"\")\n}}\n"
        ))
        .expect_error(r#"Invalid value for "key" parameter: the key must not be empty"#),
    )
    .step(
        Step::config(format!(
            "{config}\noutput \"bad\" {{\n  value = provider::kv::id(null)\n}}\n"
        ))
        .expect_error(r#"Invalid value for "key" parameter: argument must not be null"#),
    )
}

#[test]
fn kv_functions_protocol_5() {
    TestCase::run_each(|| kv_functions(5).skip_below("1.8"));
}

#[test]
fn kv_functions_protocol_6() {
    TestCase::run_each(|| kv_functions(6).skip_below("1.8"));
}

fn kv_legacy_config(store: &Path) -> String {
    format!(
        "{}\nresource \"kv_legacy_entry\" \"x\" {{\n  key  = \"old\"\n  data = \"v\"\n}}\n",
        provider(store)
    )
}

fn kv_moved_config(store: &Path) -> String {
    format!(
        r#"{provider}
resource "kv_entry" "x" {{
  key   = "old"
  value = "v"
}}
moved {{
  from = kv_legacy_entry.x
  to   = kv_entry.x
}}
"#,
        provider = provider(store)
    )
}

/// A `moved` block from one resource type to another (Terraform 1.8+): the state of
/// `kv_legacy_entry.x` becomes that of `kv_entry.x` through MoveResourceState, the plan
/// is a move with no change (nothing is created, replaced or updated: the entry keeps
/// version 1), and the plan after it is empty.
fn kv_moved_across_types(protocol: u32) -> TestCase {
    let (case, store) = kv_case(protocol);
    let (s1, s2) = (store.clone(), store.clone());
    case.step(Step::config(kv_legacy_config(&store)).check(move |state| {
        let old: serde_json::Value = state.resource("kv_legacy_entry.x")?;
        assert_eq!(old["data"], "v");
        assert_eq!(old["id"], "kv-old");
        assert_eq!(store_json(&s1)["old"]["value"], "v");
        Ok(())
    }))
    .step(
        Step::config(kv_moved_config(&store))
            .plan_check(|plan| {
                assert_eq!(plan.actions("kv_entry.x")?, ["no-op"]);
                let change = plan.json()["resource_changes"]
                    .as_array()
                    .and_then(|c| c.iter().find(|c| c["address"] == "kv_entry.x"))
                    .cloned()
                    .unwrap_or_default();
                assert_eq!(change["previous_address"], "kv_legacy_entry.x");
                assert_eq!(change["change"]["after"]["ttl"], 3600);
                Ok(())
            })
            .check(move |state| {
                assert!(state
                    .resource::<serde_json::Value>("kv_legacy_entry.x")
                    .is_err());
                let e: serde_json::Value = state.resource("kv_entry.x")?;
                assert_eq!((&e["key"], &e["value"]), (&"old".into(), &"v".into()));
                assert_eq!((&e["id"], &e["version"]), (&"kv-old".into(), &1.into()));
                assert_eq!(store_json(&s2)["old"]["version"], 1, "not written again");
                Ok(())
            }),
    )
}

#[test]
fn kv_moved_across_types_protocol_5() {
    TestCase::run_each(|| kv_moved_across_types(5).skip_below("1.8"));
}

#[test]
fn kv_moved_across_types_protocol_6() {
    TestCase::run_each(|| kv_moved_across_types(6).skip_below("1.8"));
}

fn kv_lease_entries_config(store: &Path, other: &Path) -> String {
    format!(
        r#"{provider}
resource "kv_entry" "path" {{
  key   = "path"
  value = {other:?}
}}
resource "kv_entry" "token" {{
  key   = "token"
  value = "s3cret-lease"
}}
"#,
        provider = provider(store),
        other = other.to_str().unwrap()
    )
}

/// Two leases: one configures a second `kv` provider (its store's path), the other
/// feeds a write-only attribute of an entry in that store and a provisioner that takes
/// three seconds, long enough for renewals every second.
fn kv_lease_config(store: &Path, other: &Path) -> String {
    format!(
        r#"{entries}
ephemeral "kv_lease" "path" {{
  key = kv_entry.path.key
}}
ephemeral "kv_lease" "token" {{
  key = kv_entry.token.key
}}
provider "kv" {{
  alias = "b"
  path  = ephemeral.kv_lease.path.value
}}
resource "kv_entry" "s" {{
  provider          = kv.b
  key               = "s"
  secret_wo         = ephemeral.kv_lease.token.value
  secret_wo_version = 1
}}
resource "terraform_data" "wait" {{
  provisioner "local-exec" {{
    command     = "sleep 3"
    environment = {{ TOKEN = ephemeral.kv_lease.token.value }}
  }}
}}
"#,
        entries = kv_lease_entries_config(store, other)
    )
}

/// The lease log: `(event, key)` in order.
fn lease_log(store: &Path) -> Vec<(String, String)> {
    let mut path = store.as_os_str().to_owned();
    path.push(".leases");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let (event, key) = l.split_once(' ').unwrap();
            (event.to_owned(), key.to_owned())
        })
        .collect()
}

/// An ephemeral resource with Terraform 1.11 (ephemeral resources need 1.10): a lease
/// configures a provider block and another feeds a write-only attribute; the store
/// behind the second provider gets the secret, no state file holds it; the lease of
/// the token is renewed (`KV_LEASE_RENEW_SECS=1`, held open three seconds by a
/// provisioner) between its open and its close, and every open is closed; a lease of a
/// key the store lacks is an error at `key`.
///
/// The provider runs as its binary: `KV_LEASE_RENEW_SECS` reaches it through the
/// environment Terraform starts it with, which a provider served in process never sees.
fn kv_ephemeral(protocol: u32) -> TestCase {
    let case = TestCase::new(ProviderBinary::example("kv").protocol_env("KV_PROTOCOL"))
        .source("example.com/acme/kv")
        .protocol(protocol);
    let store = case.dir().join("store.json");
    let other = case.dir().join("other.json");
    let (s1, o1) = (store.clone(), other.clone());
    case.env("KV_LEASE_RENEW_SECS", "1")
        .step(Step::config(kv_lease_entries_config(&store, &other)))
        .step(
            Step::config(kv_lease_config(&store, &other)).check(move |state| {
                // The token's own entry holds it; nothing else does.
                for address in state.addresses() {
                    assert!(!address.starts_with("ephemeral."), "{address}");
                    let v: serde_json::Value = state.resource(&address)?;
                    let holds = v.to_string().contains("s3cret-lease");
                    assert_eq!(holds, address == "kv_entry.token", "{address}: {v}");
                }
                let e: serde_json::Value = state.resource("kv_entry.s")?;
                assert_eq!(e["secret_wo"], serde_json::Value::Null);
                assert_eq!(store_json(&o1)["s"]["secret"], "s3cret-lease");
                assert!(
                    store_json(&s1).get("s").is_none(),
                    "written to the other store"
                );
                let log = lease_log(&s1);
                for key in ["path", "token"] {
                    let events: Vec<&str> = log
                        .iter()
                        .filter(|(_, k)| k == key)
                        .map(|(e, _)| e.as_str())
                        .collect();
                    let opens = events.iter().filter(|e| **e == "open").count();
                    let closes = events.iter().filter(|e| **e == "close").count();
                    assert!(opens >= 1 && opens == closes, "{key}: {events:?}");
                    // Each renew falls between an open and its close.
                    let mut open = false;
                    for e in &events {
                        match *e {
                            "open" => open = true,
                            "close" => open = false,
                            _ => assert!(open, "{key}: a renew of a closed lease: {events:?}"),
                        }
                    }
                }
                assert!(
                    log.iter().any(|(e, k)| e == "renew" && k == "token"),
                    "no renewal: {log:?}"
                );
                Ok(())
            }),
        )
        .step(
            Step::config(format!(
                "{}\nephemeral \"kv_lease\" \"nope\" {{\n  key = \"nope\"\n}}\n",
                kv_lease_config(&store, &other)
            ))
            .expect_error("no such entry"),
        )
}

#[test]
fn kv_ephemeral_protocol_5() {
    TestCase::run_each(|| kv_ephemeral(5).skip_below("1.10"));
}

#[test]
fn kv_ephemeral_protocol_6() {
    TestCase::run_each(|| kv_ephemeral(6).skip_below("1.10"));
}

/// Terraform before 1.11 does not know write-only attributes and would keep the value in
/// plan and state: the provider refuses a configured one, saying which Terraform is
/// needed, before anything is planned.
#[test]
fn kv_write_only_is_refused_by_older_terraform() {
    let (case, store) = kv_case(6);
    let s = store.clone();
    case.step(
        Step::config(kv_secret_config(&store, "s3cret-1", 1))
            .expect_error("Write-only attribute not supported")
            .before(move || assert!(!s.exists())),
    )
    .step(Step::config(provider(&store)).check(move |state| {
        assert!(state.is_empty());
        assert!(!store.exists() || !std::fs::read_to_string(&store)?.contains("s3cret"));
        Ok(())
    }))
    .run();
}

/// A configuration from a directory with typed variables, a second provider (the thing
/// example, as its binary from the case's filesystem mirror, beside kv served in
/// process), and the directory's `terraform test` files (Terraform 1.6+; skipped below,
/// saying why): one that passes, one whose failing assertion is the expected error.
fn kv_with_files_variables_and_thing(protocol: u32) -> TestCase {
    let (case, store) = kv_case(protocol);
    let db = case.dir().join("db.json");
    let dir = case.dir().join("config");
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(
        dir.join("main.tf"),
        format!(
            r#"{}
variable "tags" {{ type = map(string) }}
variable "sizes" {{ type = list(number) }}
variable "value" {{
  type    = string
  default = "one"
}}

resource "kv_entry" "e" {{
  key   = "files"
  value = var.value
  tags  = var.tags
}}

resource "thing_server" "s" {{
  count = length(var.sizes)
  name  = "${{kv_entry.e.id}}-${{count.index}}"
  size  = var.sizes[count.index]
  disk {{ size_gb = 10 }}
}}

output "names" {{ value = thing_server.s[*].name }}
"#,
            provider(&store)
        ),
    )
    .unwrap();
    // Variables a `terraform test` run gives (a store of its own: the runs create real
    // entries); the step's own come from `.variable`.
    let tests_store = case.dir().join("tests-store.json");
    std::fs::write(
        dir.join("tests").join("pass.tftest.hcl"),
        format!(
            r#"variables {{
  store = {:?}
  tags  = {{ env = "test" }}
  sizes = [1]
}}

run "create" {{
  assert {{
    condition     = kv_entry.e.id == "kv-files" && thing_server.s[0].name == "kv-files-0"
    error_message = "unexpected names"
  }}
}}

run "update" {{
  variables {{ value = "two" }}
  assert {{
    condition     = kv_entry.e.version == 2
    error_message = "an update raises the version"
  }}
}}
"#,
            tests_store.to_str().unwrap()
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("tests").join("fail.tftest.hcl"),
        format!(
            r#"variables {{
  store = {:?}
  tags  = {{}}
  sizes = []
}}

run "wrong" {{
  assert {{
    condition     = kv_entry.e.value == "not this"
    error_message = "the value is not what this test wants"
  }}
}}
"#,
            tests_store.to_str().unwrap()
        ),
    )
    .unwrap();
    let db2 = db.clone();
    let tests_store = tests_store.clone();
    case.env("THING_DB", &db)
        .external_provider(
            "example.com/acme/thing",
            "0.1.0",
            ProviderBinary::example("thing"),
        )
        .step(
            Step::config_dir(&dir)
                .variable("tags", serde_json::json!({"env": "prod", "ünï": "x"}))
                .variable("sizes", [1, 2])
                .plan_check(|plan| {
                    plan.expect_known("kv_entry.e", r#"tags["env"]"#, &known::string("prod"))?;
                    plan.expect_resource_action("thing_server.s[1]", ResourceAction::Create)?;
                    // Known as a list of two on newer Terraforms, each name unknown.
                    Ok(plan.expect_unknown_output("names", "[1]")?)
                })
                .check(move |state| {
                    state.expect("thing_server.s[1]", "size", &known::number(2u64))?;
                    state.expect("thing_server.s[0]", "name", &known::string("kv-files-0"))?;
                    state.expect_output(
                        "names",
                        &known::list([known::string("kv-files-0"), known::string("kv-files-1")]),
                    )?;
                    assert!(std::fs::read_to_string(&db2)?.contains("kv-files-1"));
                    Ok(())
                }),
        )
        // The same directory, one variable changed: one server fewer.
        .step(
            Step::config_dir(&dir)
                .variable("tags", serde_json::json!({"env": "prod", "ünï": "x"}))
                .variable("sizes", [1])
                .plan_check(|plan| {
                    plan.expect_resource_action("thing_server.s[1]", ResourceAction::Destroy)?;
                    Ok(plan.expect_resource_action("kv_entry.e", ResourceAction::NoOp)?)
                }),
        )
        .step(
            Step::terraform_test(&dir)
                .filter("pass.tftest.hcl")
                .check(move |_| {
                    // `terraform test` destroys what its runs created.
                    assert_eq!(store_json(&tests_store), serde_json::json!({}));
                    Ok(())
                }),
        )
        .step(
            Step::terraform_test(&dir)
                .filter("fail.tftest.hcl")
                .expect_error("the value is not what this test wants"),
        )
        .check_destroy(move |_| {
            assert_eq!(std::fs::read_to_string(&db)?.trim(), "{}", "servers left");
            Ok(())
        })
}

#[test]
fn kv_with_files_variables_and_thing_protocol_6() {
    TestCase::run_each(|| kv_with_files_variables_and_thing(6));
}

/// An example file of the kv provider's docs (`examples/kv/examples/`, what
/// `tfvalue docs generate` puts on its pages).
fn docs_example(path: &str) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/kv/examples")
        .join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The examples the kv docs show work as written, under a real Terraform (1.11: the
/// functions, the ephemeral resource and the write-only attribute need it; the import by
/// identity needs 1.12 and is left out): the provider block, the resource, the
/// functions, then the data source, then the ephemeral resource.
fn kv_docs_examples(protocol: u32) {
    let case = TestCase::new(kv_provider())
        .source("example.com/acme/kv")
        .protocol(protocol);
    let store = case.work_dir().join("store.json");
    let first = [
        "provider/provider.tf",
        "resources/kv_entry/resource.tf",
        "functions/id/function.tf",
        "functions/merge/function.tf",
    ]
    .map(docs_example)
    .join("\n");
    // The entry the ephemeral resource's example leases.
    let first = format!(
        "{first}\nresource \"kv_entry\" \"password\" {{\n  key   = \"db-password\"\n  value = \"hunter2\"\n}}\n"
    );
    let second = format!(
        "{first}\n{}",
        docs_example("data-sources/kv_lookup/data-source.tf")
    );
    let third = format!(
        "{second}\n{}",
        docs_example("ephemeral-resources/kv_lease/ephemeral-resource.tf")
    );
    case.step(Step::config(first).check(|state| {
        let e: Entry = state.resource("kv_entry.greeting")?;
        assert_eq!(
            (e.value.as_deref(), e.rule.len(), e.acl.len()),
            (Some("hello"), 1, 1)
        );
        state.expect_output("greeting_id", &known::string("kv-greeting"))?;
        let tags = state.output("tags")?;
        assert_eq!(
            (tags["team"].as_str(), tags["env"].as_str()),
            (Some("web"), Some("prod"))
        );
        Ok(())
    }))
    .step(Step::config(second).check(|state| {
        state.expect_output("greeting", &known::string("hello"))?;
        Ok(())
    }))
    .step(Step::config(third).check(move |state| {
        assert!(state.contains("kv_entry.copy"));
        let stored = store_json(&store);
        assert_eq!(stored["db-password-copy"]["secret"], "hunter2", "{stored}");
        Ok(())
    }))
    .run_latest();
}

#[test]
fn kv_docs_examples_protocol_5() {
    kv_docs_examples(5);
}

#[test]
fn kv_docs_examples_protocol_6() {
    kv_docs_examples(6);
}
