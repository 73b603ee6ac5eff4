//! The example provider driven by a real Terraform (v1.0.3 in CI) over protocol 5 and
//! protocol 6: init, validate, plan, apply, a plan with no changes, a change, refresh
//! after drift, import, state upgrades from a version 1 JSON state and a version 0
//! flatmap state, the server's own apply check, destroy. Every `DynamicValue` Terraform
//! sent is logged by the server and must decode and re-encode byte for byte.
//!
//! The Terraform binary comes from `TFVALUE_TERRAFORM`; without it the test is skipped
//! (`.ci/run` always sets it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use tfvalue::{Type, Value};

struct Env {
    terraform: PathBuf,
    root: PathBuf,
    cli_config: PathBuf,
    protocol: u32,
}

struct Run {
    code: i32,
    out: String,
}

impl Env {
    fn new(terraform: PathBuf, provider: &Path, protocol: u32) -> Env {
        let root = std::env::temp_dir().join(format!(
            "tfvalue-plugin-e2e-{}-p{protocol}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        let plugin_dir = root.join("mirror/example.com/acme/thing/0.1.0/linux_amd64");
        std::fs::create_dir_all(&plugin_dir).unwrap();
        std::fs::copy(provider, plugin_dir.join("terraform-provider-thing_v0.1.0")).unwrap();
        let cli_config = root.join("cli.tfrc");
        std::fs::write(
            &cli_config,
            format!(
                "provider_installation {{\n  filesystem_mirror {{\n    path    = \"{}\"\n    include = [\"example.com/acme/thing\"]\n  }}\n}}\n",
                root.join("mirror").display()
            ),
        )
        .unwrap();
        Env {
            terraform,
            root,
            cli_config,
            protocol,
        }
    }

    fn dir(&self, name: &str) -> PathBuf {
        let d = self.root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn run_env(&self, dir: &Path, args: &[&str], extra: &[(&str, &str)]) -> Run {
        let mut cmd = Command::new(&self.terraform);
        cmd.args(args)
            .arg("-no-color")
            .current_dir(dir)
            .env("CHECKPOINT_DISABLE", "1")
            .env("TF_IN_AUTOMATION", "1")
            .env("TF_INPUT", "0")
            .env("TF_CLI_CONFIG_FILE", &self.cli_config)
            .env("THING_DB", dir.join("db.json"))
            .env("THING_PROTOCOL", self.protocol.to_string())
            .env(
                tfvalue_plugin::VALUE_LOG_ENV,
                self.root.join("values.jsonl"),
            )
            .env_remove("TF_LOG")
            .env_remove("TF_REATTACH_PROVIDERS");
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Run {
            code: out.status.code().unwrap_or(-1),
            out: text,
        }
    }

    /// Runs a step and checks its exit code.
    fn step(&self, dir: &Path, args: &[&str], want: i32) -> String {
        self.step_env(dir, args, &[], want)
    }

    fn step_env(&self, dir: &Path, args: &[&str], extra: &[(&str, &str)], want: i32) -> String {
        let started = Instant::now();
        let r = self.run_env(dir, args, extra);
        println!(
            "protocol {}: terraform {} -> {} ({:.1?})",
            self.protocol,
            args.join(" "),
            r.code,
            started.elapsed()
        );
        assert_eq!(
            r.code,
            want,
            "protocol {}: `terraform {}` exited with {}, expected {want}:\n{}",
            self.protocol,
            args.join(" "),
            r.code,
            r.out
        );
        r.out
    }

    fn show(&self, dir: &Path) -> serde_json::Value {
        serde_json::from_str(&self.step(dir, &["show", "-json"], 0)).unwrap()
    }
}

fn config(protocol: u32, body: &str) -> String {
    let _ = protocol;
    format!(
        "terraform {{\n  required_providers {{\n    thing = {{ source = \"example.com/acme/thing\", version = \"0.1.0\" }}\n  }}\n}}\n{body}"
    )
}

fn main_config(protocol: u32, tags: &str, size: u32) -> String {
    let endpoints = if protocol == 6 {
        "  endpoints = [{ host = \"a.example\", port = 80 }, { host = \"b.example\" }]\n"
    } else {
        ""
    };
    config(
        protocol,
        &format!(
            r#"
resource "thing_server" "web" {{
  name     = "web"
  size     = {size}
  tags     = {tags}
  metadata = {{ owner = "me", ports = [80, 443], weight = -1.5 }}
  disk {{ size_gb = 20 }}
  disk {{
    size_gb = 40
    kind    = "hdd"
  }}
{endpoints}}}

resource "thing_volume" "data" {{
  server_id = thing_server.web.id
  size_gb   = 5
}}

data "thing_info" "hi" {{
  name = "Zoë"
}}

output "greeting" {{ value = data.thing_info.hi.greeting }}
output "ip" {{ value = thing_server.web.ip_address }}
"#
        ),
    )
}

fn resource<'a>(show: &'a serde_json::Value, address: &str) -> &'a serde_json::Value {
    show["values"]["root_module"]["resources"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["address"] == address))
        .unwrap_or_else(|| panic!("{address} is not in the state: {show}"))
}

fn edit_db(dir: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("db.json");
    let mut db: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    f(&mut db);
    std::fs::write(&path, serde_json::to_vec_pretty(&db).unwrap()).unwrap();
}

fn main_scenario(env: &Env) {
    let p = env.protocol;
    let dir = env.dir("main");
    std::fs::write(
        dir.join("main.tf"),
        main_config(p, r#"{ env = "test" }"#, 2),
    )
    .unwrap();
    env.step(&dir, &["init"], 0);
    env.step(&dir, &["validate"], 0);
    let plan = env.step(&dir, &["plan", "-detailed-exitcode"], 2);
    assert!(plan.contains("2 to add"), "{plan}");
    env.step(&dir, &["apply", "-auto-approve"], 0);
    let ip = env.step(&dir, &["output", "-raw", "ip"], 0);
    assert!(ip.starts_with("10.0."), "ip {ip}");
    let greeting = env.step(&dir, &["output", "-raw", "greeting"], 0);
    assert_eq!(greeting, "hello, Zoë");
    env.step(&dir, &["plan", "-detailed-exitcode"], 0);

    // Change the configuration: an update in place.
    std::fs::write(
        dir.join("main.tf"),
        main_config(p, r#"{ env = "prod", team = "a" }"#, 4),
    )
    .unwrap();
    let plan = env.step(&dir, &["plan", "-detailed-exitcode"], 2);
    assert!(plan.contains("1 to change"), "{plan}");
    env.step(&dir, &["apply", "-auto-approve"], 0);
    env.step(&dir, &["plan", "-detailed-exitcode"], 0);
    let show = env.show(&dir);
    let server = &resource(&show, "thing_server.web")["values"];
    assert_eq!(server["size"], 4);
    assert_eq!(server["tags"]["team"], "a");
    let server_id = server["id"].as_str().unwrap().to_owned();

    // Drift: the real object changes behind Terraform's back.
    edit_db(&dir, |db| db[&server_id][1]["size"] = 7.into());
    env.step(&dir, &["refresh"], 0);
    let show = env.show(&dir);
    assert_eq!(resource(&show, "thing_server.web")["values"]["size"], 7);
    let plan = env.step(&dir, &["plan", "-detailed-exitcode"], 2);
    assert!(plan.contains("1 to change"), "{plan}");
    env.step(&dir, &["apply", "-auto-approve"], 0);
    env.step(&dir, &["plan", "-detailed-exitcode"], 0);

    // Import: forget the volume, then adopt it again by its id.
    let show = env.show(&dir);
    let volume_id = resource(&show, "thing_volume.data")["values"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    env.step(&dir, &["state", "rm", "thing_volume.data"], 0);
    let bad = env.step(&dir, &["import", "thing_volume.data", "vol-none"], 1);
    assert!(
        bad.contains("There is no thing_volume with id `vol-none`"),
        "{bad}"
    );
    env.step(&dir, &["import", "thing_volume.data", &volume_id], 0);
    env.step(&dir, &["plan", "-detailed-exitcode"], 0);

    // A diagnostic's attribute path is shown at the configuration line that set it.
    let good = std::fs::read_to_string(dir.join("main.tf")).unwrap();
    let bad = good.replacen("disk { size_gb = 20 }", "disk { size_gb = 0 }", 1);
    assert_ne!(good, bad);
    std::fs::write(dir.join("main.tf"), bad).unwrap();
    let out = env.step(&dir, &["validate"], 1);
    assert!(out.contains("a disk needs a size"), "{out}");
    assert!(out.contains("disk { size_gb = 0 }"), "{out}");
    std::fs::write(dir.join("main.tf"), good).unwrap();

    env.step(&dir, &["destroy", "-auto-approve"], 0);
    let db: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("db.json")).unwrap()).unwrap();
    assert_eq!(db, serde_json::json!({}), "objects left after destroy");
}

fn upgrade_scenario(env: &Env) {
    let dir = env.dir("upgrade");
    let provider = r#"provider[\"example.com/acme/thing\"]"#;
    let state = format!(
        r#"{{
  "version": 4, "terraform_version": "1.0.3", "serial": 1, "lineage": "0a5ec1a8-0000-4000-8000-000000000001",
  "outputs": {{}},
  "resources": [
    {{"mode": "managed", "type": "thing_server", "name": "legacy", "provider": "{provider}",
      "instances": [{{"schema_version": 1,
        "attributes": {{"id": "srv-100", "name": "legacy", "size": 2, "tags": {{"a": "b"}}, "ip_address": "10.0.9.9", "retired": true}},
        "sensitive_attributes": []}}]}},
    {{"mode": "managed", "type": "thing_server", "name": "ancient", "provider": "{provider}",
      "instances": [{{"schema_version": 0,
        "attributes_flat": {{"id": "srv-101", "name": "ancient", "cpus": "4"}}}}]}}
  ]
}}"#
    );
    std::fs::write(dir.join("terraform.tfstate"), state).unwrap();
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
    let db = serde_json::json!({
        "srv-100": record("srv-100", "legacy", 2, serde_json::json!({"a": "b"}), "10.0.9.9".into()),
        "srv-101": record("srv-101", "ancient", 4, serde_json::Value::Null, serde_json::Value::Null),
    });
    std::fs::write(dir.join("db.json"), serde_json::to_vec_pretty(&db).unwrap()).unwrap();
    let body = r#"
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
    std::fs::write(dir.join("main.tf"), config(env.protocol, body)).unwrap();
    env.step(&dir, &["init"], 0);
    // Without refresh, the plan compares the configuration with the upgraded state only:
    // no changes means both old states were upgraded to exactly what the config says.
    env.step(&dir, &["plan", "-refresh=false", "-detailed-exitcode"], 0);
    env.step(&dir, &["apply", "-auto-approve"], 0);
    let show = env.show(&dir);
    assert_eq!(resource(&show, "thing_server.ancient")["values"]["size"], 4);
    assert_eq!(
        resource(&show, "thing_server.legacy")["values"]["disk"][0]["kind"],
        "ssd"
    );
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("terraform.tfstate")).unwrap()).unwrap();
    for r in state["resources"].as_array().unwrap() {
        assert_eq!(r["instances"][0]["schema_version"], 2, "{r}");
    }

    // The server's own apply check: the provider breaks the refined promise of its plan
    // (an address in 10.0.0.0/16), which Terraform 1.0.3 cannot see (it drops
    // refinements); the server reports it, naming the attribute.
    let with_new = format!("{body}\nresource \"thing_server\" \"liar\" {{\n  name = \"liar\"\n  disk {{ size_gb = 1 }}\n}}\n");
    std::fs::write(dir.join("main.tf"), config(env.protocol, &with_new)).unwrap();
    let out = env.step_env(
        &dir,
        &["apply", "-auto-approve"],
        &[("THING_BREAK_PROMISE", "1")],
        1,
    );
    assert!(
        out.contains("Provider produced inconsistent result after apply"),
        "{out}"
    );
    assert!(
        out.contains("breaks its plan at `ip_address`")
            && out.contains("the refined prefix \"10.0.\""),
        "{out}"
    );
    std::fs::write(dir.join("main.tf"), config(env.protocol, body)).unwrap();
    env.step(&dir, &["destroy", "-auto-approve"], 0);
}

/// The ids of the servers in the state, by resource address.
fn server_ids(show: &serde_json::Value) -> std::collections::BTreeMap<String, String> {
    show["values"]["root_module"]["resources"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .filter(|r| r["type"] == "thing_server")
                .map(|r| {
                    (
                        r["address"].as_str().unwrap().to_owned(),
                        r["values"]["id"].as_str().unwrap().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The ids the provider's database holds.
fn db_ids(dir: &Path) -> std::collections::BTreeSet<String> {
    let db: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("db.json")).unwrap()).unwrap();
    db.as_object().unwrap().keys().cloned().collect()
}

/// Replacement after a plan with refined unknowns (`id` not null, `ip_address` with a
/// prefix), in every way Terraform replaces: `-replace`, `taint`, a change of an attribute
/// that requires replacement, and `create_before_destroy`; with several instances applied
/// at Terraform's default parallelism (10).
fn replace_scenario(env: &Env) {
    let dir = env.dir("replace");
    let body = |name: &str, cbd: &str| {
        format!(
            r#"
variable "n" {{
  type    = string
  default = "{name}"
}}

resource "thing_server" "r" {{
  count = 3
  name  = "${{var.n}}-${{count.index}}"
  disk {{ size_gb = 1 }}
}}

resource "thing_server" "cbd" {{
  name = "{cbd}"
  disk {{ size_gb = 2 }}
  lifecycle {{
    create_before_destroy = true
  }}
}}
"#
        )
    };
    std::fs::write(
        dir.join("main.tf"),
        config(env.protocol, &body("web", "cbd")),
    )
    .unwrap();
    env.step(&dir, &["init"], 0);
    env.step(&dir, &["validate"], 0);
    env.step(&dir, &["apply", "-auto-approve"], 0);
    let ids = server_ids(&env.show(&dir));
    assert_eq!(ids.len(), 4, "{ids:?}");
    let distinct: std::collections::BTreeSet<_> = ids.values().cloned().collect();
    assert_eq!(distinct.len(), 4, "ids handed out twice: {ids:?}");
    assert_eq!(db_ids(&dir), distinct);
    env.step(&dir, &["plan", "-detailed-exitcode"], 0);

    // Each way of replacing one instance: a new object, the old one gone, no error.
    let replaced = |how: &str, address: &str, ids: &std::collections::BTreeMap<String, String>| {
        let after = server_ids(&env.show(&dir));
        assert_ne!(
            after[address], ids[address],
            "{how}: {address} was not replaced"
        );
        let db = db_ids(&dir);
        assert!(
            db.contains(&after[address]),
            "{how}: the new object is missing"
        );
        assert!(!db.contains(&ids[address]), "{how}: the old object is left");
        env.step(&dir, &["plan", "-detailed-exitcode"], 0);
        after
    };
    env.step(
        &dir,
        &["apply", "-auto-approve", "-replace=thing_server.r[0]"],
        0,
    );
    let ids = replaced("-replace", "thing_server.r[0]", &ids);
    env.step(&dir, &["taint", "thing_server.r[1]"], 0);
    env.step(&dir, &["apply", "-auto-approve"], 0);
    let ids = replaced("taint", "thing_server.r[1]", &ids);

    // `name` requires replacement: every instance of `r` at once, in parallel.
    env.step(&dir, &["apply", "-auto-approve", "-var", "n=api"], 0);
    std::fs::write(
        dir.join("main.tf"),
        config(env.protocol, &body("api", "cbd")),
    )
    .unwrap();
    let after = server_ids(&env.show(&dir));
    for i in 0..3 {
        let a = format!("thing_server.r[{i}]");
        assert_ne!(after[&a], ids[&a], "requires_replace: {a} was not replaced");
    }
    assert_eq!(after["thing_server.cbd"], ids["thing_server.cbd"]);
    assert_eq!(db_ids(&dir), after.values().cloned().collect());
    env.step(&dir, &["plan", "-detailed-exitcode"], 0);

    // create_before_destroy: the new object exists before the old one goes.
    std::fs::write(
        dir.join("main.tf"),
        config(env.protocol, &body("api", "cbd2")),
    )
    .unwrap();
    env.step(&dir, &["apply", "-auto-approve"], 0);
    let ids = replaced("create_before_destroy", "thing_server.cbd", &after);
    assert_eq!(db_ids(&dir), ids.values().cloned().collect());

    env.step(&dir, &["destroy", "-auto-approve"], 0);
    assert!(db_ids(&dir).is_empty(), "objects left after destroy");
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// Every value Terraform sent decodes and re-encodes byte for byte.
fn check_value_log(env: &Env) -> usize {
    let log = std::fs::read_to_string(env.root.join("values.jsonl")).unwrap();
    let mut checked = 0;
    let mut unknowns = 0;
    let mut mismatches = Vec::new();
    for line in log.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        let bytes = unhex(entry["msgpack"].as_str().unwrap());
        if bytes.is_empty() {
            continue;
        }
        let ty: Type = serde_json::from_value(entry["type"].clone()).unwrap();
        let value = match Value::from_msgpack(&bytes, &ty) {
            Ok(v) => v,
            Err(e) => {
                mismatches.push(format!("{line}: does not decode: {e}"));
                continue;
            }
        };
        let mut has_unknown = false;
        value.walk(&mut |_, v| has_unknown |= v.is_unknown());
        unknowns += usize::from(has_unknown);
        match value.to_msgpack(&ty) {
            Ok(again) if again == bytes => checked += 1,
            Ok(again) => mismatches.push(format!("{line}: re-encoded as {again:02x?}")),
            Err(e) => mismatches.push(format!("{line}: does not encode: {e}")),
        }
    }
    assert!(
        mismatches.is_empty(),
        "byte mismatches:\n{}",
        mismatches.join("\n")
    );
    assert!(checked > 50, "only {checked} values logged");
    assert!(unknowns > 0, "no value with unknowns was logged");
    println!(
        "protocol {}: {checked} values byte-identical ({unknowns} with unknowns)",
        env.protocol
    );
    checked
}

/// The example provider, built (or found up to date) by cargo with this test's profile.
fn provider_binary() -> PathBuf {
    tfvalue_plugin::testing::ProviderBinary::example("thing")
        .build()
        .unwrap_or_else(|e| panic!("building the example provider: {e}"))
}

#[test]
fn terraform_end_to_end() {
    let Some(terraform) = std::env::var_os("TFVALUE_TERRAFORM") else {
        println!("skipped: TFVALUE_TERRAFORM is not set (the path to a Terraform binary; .ci/run sets it)");
        return;
    };
    let started = Instant::now();
    let provider = provider_binary();
    for protocol in [5, 6] {
        let env = Env::new(PathBuf::from(&terraform), &provider, protocol);
        main_scenario(&env);
        replace_scenario(&env);
        upgrade_scenario(&env);
        check_value_log(&env);
        let _ = std::fs::remove_dir_all(&env.root);
    }
    println!("terraform end to end: {:.1?}", started.elapsed());
}

/// Debug mode: the provider runs on its own, prints `TF_REATTACH_PROVIDERS`, and
/// Terraform attaches to it without installing anything.
#[test]
fn terraform_attaches_to_a_debug_mode_provider() {
    use std::io::{BufRead, BufReader};

    let Some(terraform) = std::env::var_os("TFVALUE_TERRAFORM") else {
        println!("skipped: TFVALUE_TERRAFORM is not set");
        return;
    };
    let env = Env::new(PathBuf::from(&terraform), &provider_binary(), 6);
    let dir = env.dir("debug");
    let mut child = Command::new(provider_binary())
        .arg("--debug")
        .env("THING_DB", dir.join("db.json"))
        .env_remove("THING_PROTOCOL")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let reattach = loop {
        let line = lines
            .next()
            .expect("no TF_REATTACH_PROVIDERS line")
            .unwrap();
        if let Some(rest) = line.trim().strip_prefix("TF_REATTACH_PROVIDERS='") {
            break rest.trim_end_matches('\'').to_owned();
        }
    };
    let parsed: serde_json::Value = serde_json::from_str(&reattach).unwrap();
    let entry = &parsed["example.com/acme/thing"];
    assert_eq!(entry["Protocol"], "grpc");
    assert_eq!(entry["ProtocolVersion"], 6);
    assert_eq!(entry["Pid"], child.id());
    assert_eq!(entry["Addr"]["Network"], "tcp");

    let body = "resource \"thing_server\" \"dbg\" {\n  name = \"dbg\"\n  disk { size_gb = 1 }\n}\n";
    std::fs::write(dir.join("main.tf"), config(6, body)).unwrap();
    let attach = [("TF_REATTACH_PROVIDERS", reattach.as_str())];
    env.step_env(&dir, &["init"], &attach, 0);
    let out = env.step_env(&dir, &["apply", "-auto-approve"], &attach, 0);
    assert!(out.contains("1 added"), "{out}");
    env.step_env(&dir, &["plan", "-detailed-exitcode"], &attach, 0);
    env.step_env(&dir, &["destroy", "-auto-approve"], &attach, 0);
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&env.root);
}
