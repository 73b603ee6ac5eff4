//! `tfvalue inspect --state` and `--plan` on state files of format 3 and 4 and on plan JSON
//! of Terraform 0.12 to 1.x shapes (fixtures written for this project, in
//! `tests/fixtures/`).

use std::process::{Command, Stdio};

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tfvalue"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"))
        .stdin(Stdio::null())
        .output()
        .expect("run tfvalue");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "tfvalue {args:?}: {err}");
    assert_eq!(err, "", "tfvalue {args:?}");
    out
}

fn fails(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 1, "tfvalue {args:?} should fail: {out}");
    assert_eq!(out, "");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("tfvalue: "), "{err}");
    err
}

#[test]
fn format_4_state_lists_its_instances() {
    let out = ok(&["inspect", "--state", "terraform.tfstate"]);
    let addresses: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.trim_start().split("  (").next().unwrap().trim_end())
        .collect();
    assert_eq!(
        addresses,
        [
            "data.shelf_catalog.all",
            "shelf_bucket.logs[0]",
            "shelf_bucket.logs[1]",
            "shelf_item.readme",
            "shelf_item.readme (deposed object 7a3c9e01)",
            "module.archive.shelf_bucket.cold[\"eu\"]",
        ]
    );
    assert!(out
        .starts_with("terraform.tfstate: state format 4, Terraform 1.9.5, 6 resource instances\n"));
}

#[test]
fn format_4_state_with_its_schema() {
    let out = ok(&[
        "inspect",
        "--state",
        "terraform.tfstate",
        "--schema",
        "schema.json",
        "shelf_bucket.logs[0]",
    ]);
    // numbers stay exact; map keys are quoted; the dynamic value is unwrapped
    assert!(
        out.contains("    capacity       = 123456789012345678901234567890\n"),
        "{out}"
    );
    assert!(out.contains("        \"env\"  = \"prod\"\n"), "{out}");
    assert!(
        out.contains(
            "    settings       = {\n        replicas = 2\n        tier     = \"cold\"\n    }\n"
        ),
        "{out}"
    );
    // sensitive by sensitive_attributes and by the schema
    assert!(
        out.contains("    admin_password = (sensitive value)\n"),
        "{out}"
    );
    assert!(!out.contains("s3cr3t"), "{out}");
    // null attributes are left out, as terraform state show does
    let item = ok(&[
        "inspect",
        "--state",
        "terraform.tfstate",
        "--schema",
        "schema.json",
        "shelf_item.readme",
    ]);
    assert!(item.contains("    content = (sensitive value)\n"), "{item}");
    assert!(
        item.contains("        email = (sensitive value)\n        name  = \"Ada\"\n"),
        "{item}"
    );
    // a resource address selects the current and the deposed object
    assert_eq!(
        item.matches("resource \"shelf_item\" \"readme\" {").count(),
        2,
        "{item}"
    );
    assert!(
        item.contains("# shelf_item.readme (deposed object 7a3c9e01):\n"),
        "{item}"
    );
    let shown = ok(&[
        "inspect",
        "--show-sensitive",
        "--state",
        "terraform.tfstate",
        "--schema",
        "schema.json",
        "shelf_item.readme",
    ]);
    assert!(
        shown.contains("content = \"hello from the shelf\""),
        "{shown}"
    );
    assert!(shown.contains("email = \"ada@example.com\""), "{shown}");
}

#[test]
fn state_marks_are_honoured_without_a_schema() {
    // without a schema the state's own sensitive_attributes still mask
    let out = ok(&[
        "inspect",
        "--state",
        "terraform.tfstate",
        "shelf_item.readme",
    ]);
    assert!(out.contains("content = (sensitive value)"), "{out}");
    assert!(out.contains("email = (sensitive value)"), "{out}");
    assert!(!out.contains("hello from the shelf"), "{out}");
}

#[test]
fn attributes_flat_and_format_3_read_through_the_flatmap_reader() {
    // attributes_flat in a format 4 state, stored under an older schema version
    let (code, out, err) = run(&[
        "inspect",
        "--state",
        "terraform.tfstate",
        "--schema",
        "schema.json",
        "module.archive.shelf_bucket.cold[\"eu\"]",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("stored under schema version 0, the schema is version 1"),
        "{err}"
    );
    assert!(out.contains("    capacity   = 1000\n"), "{out}");
    assert!(
        out.contains("    readers    = [\n        \"carol\",\n    ]\n"),
        "{out}"
    );
    assert!(
        out.contains("    lifecycle_rule {\n        days   = 30\n        prefix = \"\"\n    }\n"),
        "{out}"
    );
    // format 3
    let list = ok(&["inspect", "--state", "old.tfstate"]);
    assert!(
        list.starts_with("old.tfstate: state format 3, Terraform 0.11.14, 5 resource instances\n"),
        "{list}"
    );
    for addr in [
        "shelf_bucket.logs ",
        "shelf_item.doc[0] ",
        "shelf_item.doc[1] ",
        "data.shelf_catalog.all ",
        "module.archive.shelf_bucket.cold ",
    ] {
        assert!(list.contains(&format!("  {addr}")), "{addr} in {list}");
    }
    let out = ok(&[
        "inspect",
        "--state",
        "old.tfstate",
        "--schema",
        "schema.json",
        "shelf_bucket.logs",
    ]);
    assert!(out.contains("    versioning     = true\n"), "{out}");
    assert!(
        out.contains("    readers        = [\n        \"alice\",\n        \"bob\",\n    ]\n"),
        "{out}"
    );
    assert!(out.contains("        \"team\" = \"platform\"\n"), "{out}");
    assert!(
        out.contains("    admin_password = (sensitive value)\n"),
        "{out}"
    );
    // the flatmap's unknown marker
    let doc = ok(&[
        "inspect",
        "--state",
        "old.tfstate",
        "--schema",
        "schema.json",
        "shelf_item.doc[0]",
    ]);
    assert!(doc.contains("    size   = (known after apply)\n"), "{doc}");
    let data = ok(&[
        "inspect",
        "--state",
        "old.tfstate",
        "--schema",
        "schema.json",
        "data.shelf_catalog.all",
    ]);
    assert!(
        data.starts_with("# data.shelf_catalog.all:\ndata \"shelf_catalog\" \"all\" {\n"),
        "{data}"
    );
    assert!(
        data.contains("        \"a.txt\",\n        \"b.txt\",\n"),
        "{data}"
    );
    // without a schema, the flatmap is shown as it is
    let raw = ok(&["inspect", "--state", "old.tfstate", "shelf_bucket.logs"]);
    assert!(raw.contains("\"tags.%\""), "{raw}");
}

#[test]
fn terraform_0_12_state_names_its_provider_plainly() {
    let out = ok(&["inspect", "--state", "state-0.12.tfstate"]);
    assert!(
        out.contains("module.archive.shelf_bucket.cold[0]  (shelf, schema version 1)"),
        "{out}"
    );
    let out = ok(&[
        "inspect",
        "--state",
        "state-0.12.tfstate",
        "--schema",
        "schema.json",
        "module.archive.shelf_bucket.cold[0]",
    ]);
    assert!(out.contains("admin_password = (sensitive value)"), "{out}");
    assert!(out.contains("capacity       = 1000\n"), "{out}");
}

#[test]
fn a_state_newer_than_the_schema() {
    let args = [
        "inspect",
        "--state",
        "newer.tfstate",
        "--schema",
        "schema.json",
        "shelf_bucket.logs[0]",
    ];
    let err = fails(&args);
    assert!(
        err.contains("`encryption`, `lifecycle_rule[0].storage_class`"),
        "{err}"
    );
    assert!(err.contains("--ignore-undeclared"), "{err}");
    let mut ignoring = args.to_vec();
    ignoring.push("--ignore-undeclared");
    let (code, out, err) = run(&ignoring);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        "tfvalue: warning: shelf_bucket.logs[0]: skipped what the schema does not declare: \
         `encryption`, `lifecycle_rule[0].storage_class`\n"
    );
    assert!(
        !out.contains("encryption") && !out.contains("storage_class"),
        "{out}"
    );
    assert!(out.contains("days   = 7"), "{out}");
    // without a schema nothing is undeclared
    let out = ok(&[
        "inspect",
        "--state",
        "newer.tfstate",
        "shelf_bucket.logs[0]",
    ]);
    assert!(out.contains("algorithm = \"aes256\""), "{out}");
}

#[test]
fn addresses_are_suggested() {
    let err = fails(&[
        "inspect",
        "--state",
        "terraform.tfstate",
        "shelf_bukcet.logs[0]",
    ]);
    assert!(err.contains("no resource instance \"shelf_bukcet.logs[0]\" in terraform.tfstate; did you mean \"shelf_bucket.logs[0]\""), "{err}");
    let err = fails(&["inspect", "--plan", "plan.json", "shelf_item.nwe"]);
    assert!(err.contains("did you mean \"shelf_item.new\""), "{err}");
    let err = fails(&["inspect", "--plan", "plan.json", "zzz"]);
    assert!(
        err.contains("run with --list to list them (7 in all)"),
        "{err}"
    );
}

#[test]
fn a_plan_without_an_address_is_shown_whole_as_terraform_show_does() {
    let out = ok(&["inspect", "--plan", "plan.json"]);
    // The legend of the actions there are, every change that changes something (the
    // no-op change of module.archive is left out, as Terraform leaves it out), the count.
    assert!(
        out.starts_with("Resource actions are indicated with the following symbols:\n  + create\n"),
        "{out}"
    );
    assert!(!out.contains("+/- create replacement"), "{out}");
    for header in [
        "  # data.shelf_catalog.all will be read during apply\n",
        "  # shelf_bucket.logs[0] will be updated in-place\n",
        "  # shelf_bucket.logs[1] must be replaced\n",
        "  # shelf_item.new will be created\n",
        "  # shelf_item.readme will be destroyed\n",
        "  # shelf_item.readme (deposed object 7a3c9e01) will be destroyed\n",
    ] {
        assert!(out.contains(header), "{header:?} missing:\n{out}");
    }
    assert!(!out.contains("module.archive"), "{out}");
    // The detail is the one an address shows.
    let one = ok(&["inspect", "--plan", "plan.json", "shelf_item.new"]);
    assert!(out.contains(&one), "{out}");
    assert!(
        out.ends_with("}\n\nPlan: 2 to add, 1 to change, 3 to destroy.\n"),
        "{out}"
    );
    // --list and an address do not go together.
    let (code, _, err) = run(&["inspect", "--plan", "plan.json", "--list", "shelf_item.new"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--list"), "{err}");
}

#[test]
fn plan_lists_changes_as_terraform_counts_them() {
    let out = ok(&["inspect", "--plan", "plan.json", "--list"]);
    assert!(
        out.starts_with("plan.json: plan JSON format 1.2, 7 resource changes\n"),
        "{out}"
    );
    assert!(out.contains("  replace  shelf_bucket.logs[1]\n"), "{out}");
    assert!(
        out.contains("  delete   shelf_item.readme (deposed object 7a3c9e01)\n"),
        "{out}"
    );
    assert!(
        out.ends_with("Plan: 2 to add, 1 to change, 3 to destroy.\n"),
        "{out}"
    );
}

#[test]
fn plan_update_is_a_diff() {
    let out = ok(&[
        "inspect",
        "--plan",
        "plan.json",
        "--schema",
        "schema.json",
        "shelf_bucket.logs[0]",
    ]);
    let want = r#"  # shelf_bucket.logs[0] will be updated in-place
  ~ resource "shelf_bucket" "logs" {
      ~ admin_password = (sensitive value)
        id             = "logs-a"
        name           = "logs-a"
      ~ readers        = [
          + "carol",
            # (2 unchanged elements hidden)
        ]
      ~ tags           = {
          + "cost" = "shared"
          ~ "env"  = "prod" -> "staging"
            # (1 unchanged element hidden)
        }
      ~ versioning     = true -> false
        # (4 unchanged attributes hidden)
      ~ lifecycle_rule {
          ~ days   = 7 -> 14
            # (1 unchanged attribute hidden)
        }
        # (1 unchanged block hidden)
    }
"#;
    assert_eq!(out, want);
    // the same without the schema: the plan's own marks mask the password
    let plain = ok(&["inspect", "--plan", "plan.json", "shelf_bucket.logs[0]"]);
    assert!(
        plain.contains("~ admin_password = (sensitive value)"),
        "{plain}"
    );
    let shown = ok(&[
        "inspect",
        "--show-sensitive",
        "--plan",
        "plan.json",
        "shelf_bucket.logs[0]",
    ]);
    assert!(
        shown.contains(r#"~ admin_password = "s3cr3t-a" -> "s3cr3t-b""#),
        "{shown}"
    );
}

#[test]
fn plan_create_delete_read_and_replace() {
    let out = ok(&["inspect", "--plan", "plan.json", "shelf_item.new"]);
    assert!(
        out.starts_with(
            "  # shelf_item.new will be created\n  + resource \"shelf_item\" \"new\" {\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("      + id      = (known after apply)\n"),
        "{out}"
    );
    assert!(
        out.contains("      + size    = (known after apply)\n"),
        "{out}"
    );
    assert!(
        out.contains("      + content = (sensitive value)\n"),
        "{out}"
    );
    assert!(
        out.contains("          + email = (sensitive value)\n"),
        "{out}"
    );
    assert!(!out.contains("draft 1") && !out.contains("grace@"), "{out}");
    let out = ok(&["inspect", "--plan", "plan.json", "shelf_item.readme"]);
    assert!(
        out.contains("  # (because shelf_item.readme is not in configuration)\n"),
        "{out}"
    );
    assert!(out.contains("      - size    = 20 -> null\n"), "{out}");
    assert!(
        out.contains("      - content = (sensitive value) -> null\n"),
        "{out}"
    );
    assert!(
        out.contains("  # shelf_item.readme (deposed object 7a3c9e01) will be destroyed\n"),
        "{out}"
    );
    let out = ok(&["inspect", "--plan", "plan.json", "data.shelf_catalog.all"]);
    assert!(
        out.contains(" <= data \"shelf_catalog\" \"all\" {\n"),
        "{out}"
    );
    assert!(
        out.contains("      + keys   = (known after apply)\n"),
        "{out}"
    );
    let out = ok(&["inspect", "--plan", "plan.json", "shelf_bucket.logs[1]"]);
    assert!(
        out.contains("-/+ resource \"shelf_bucket\" \"logs\" {\n"),
        "{out}"
    );
    assert!(
        out.contains("      ~ name           = \"logs-b\" -> \"logs-c\" # forces replacement\n"),
        "{out}"
    );
    assert!(
        out.contains("      ~ id             = \"logs-b\" -> (known after apply)\n"),
        "{out}"
    );
    let out = ok(&[
        "inspect",
        "--plan",
        "plan.json",
        "module.archive.shelf_bucket.cold[\"eu\"]",
    ]);
    assert!(out.contains("is unchanged"), "{out}");
}

#[test]
fn unknown_set_elements_are_found_by_their_place_in_the_plan() {
    // after: "readers": ["dave", null], after_unknown: "readers": [false, true]
    for schema in [&["--schema", "schema.json"][..], &[]] {
        let mut args = vec!["inspect", "--plan", "plan.json", "shelf_bucket.logs[1]"];
        args.extend_from_slice(schema);
        let out = ok(&args);
        assert!(
            out.contains(
                "= [\n          + \"dave\",\n          + (known after apply),\n        ]\n"
            ),
            "{out}"
        );
    }
    let out = ok(&[
        "inspect",
        "--plan",
        "plan.json",
        "--schema",
        "schema.json",
        "--output",
        "json",
        "shelf_bucket.logs[1]",
    ]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j["after"]["object"]["readers"],
        serde_json::json!({"set": [{"string": "dave"}, {"unknown": {}}]})
    );
}

#[test]
fn plan_as_tagged_json_keeps_the_unknowns() {
    let out = ok(&[
        "inspect",
        "--plan",
        "plan.json",
        "--schema",
        "schema.json",
        "--output",
        "json",
        "shelf_item.new",
    ]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["actions"], serde_json::json!(["create"]));
    assert_eq!(j["before"], serde_json::json!({"null": true}));
    assert_eq!(
        j["after"]["object"]["id"],
        serde_json::json!({"unknown": {}})
    );
    assert_eq!(
        j["after"]["object"]["key"],
        serde_json::json!({"string": "new.txt"})
    );
}

#[test]
fn terraform_0_12_plan() {
    let out = ok(&["inspect", "--plan", "plan-0.12.json", "--list"]);
    assert!(
        out.starts_with("plan-0.12.json: plan JSON format 0.1, 2 resource changes\n"),
        "{out}"
    );
    // provider_name "shelf" finds registry.terraform.io/acme/shelf; the schema masks content
    let out = ok(&[
        "inspect",
        "--plan",
        "plan-0.12.json",
        "--schema",
        "schema.json",
        "shelf_item.doc[0]",
    ]);
    assert!(
        out.contains("      + content = (sensitive value)\n"),
        "{out}"
    );
    let out = ok(&[
        "inspect",
        "--plan",
        "plan-0.12.json",
        "--schema",
        "schema.json",
        "shelf_bucket.logs",
    ]);
    assert!(
        out.contains("      ~ capacity       = 250 -> 500\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "      + lifecycle_rule {\n          + days   = 90\n          + prefix = \"old/\"\n        }\n        # (1 unchanged block hidden)\n"
        ),
        "{out}"
    );
}

#[test]
fn wrong_files_are_named() {
    let err = fails(&["inspect", "--plan", "terraform.tfstate"]);
    assert!(
        err.contains("is a state file, not a plan: use --state"),
        "{err}"
    );
    let err = fails(&["inspect", "--state", "plan.json"]);
    assert!(
        err.contains("is a plan (`terraform show -json` output), not a state: use --plan"),
        "{err}"
    );
    let err = fails(&["inspect", "--state", "schema.json"]);
    assert!(err.contains("is a provider schema file"), "{err}");
    let err = fails(&["inspect", "--state", "missing.tfstate"]);
    assert_eq!(err, "tfvalue: no such file: missing.tfstate\n");
    let err = fails(&[
        "inspect",
        "--state",
        "terraform.tfstate",
        "--schema",
        "schema.json",
        "--resource",
        "shelf_bucket",
    ]);
    assert!(
        err.contains("give --schema FILE without --resource"),
        "{err}"
    );
}

#[test]
fn a_whole_state_given_as_a_value_is_recognised() {
    let err = fails(&[
        "inspect",
        "--schema",
        "schema.json",
        "--resource",
        "shelf_bucket",
        "terraform.tfstate",
    ]);
    assert!(err.contains("unsupported attribute"), "{err}");
    assert!(
        err.ends_with("(this is a whole state file: use inspect --state FILE [ADDRESS])\n"),
        "{err}"
    );
    let err = fails(&[
        "decode",
        "--schema",
        "schema.json",
        "--resource",
        "shelf_bucket",
        "plan.json",
    ]);
    assert!(
        err.ends_with(
            "(this is a plan from `terraform show -json`: use inspect --plan FILE [ADDRESS])\n"
        ),
        "{err}"
    );
    // with no type at all, the file is named for what it is
    let err = fails(&["inspect", "terraform.tfstate"]);
    assert_eq!(
        err,
        "tfvalue: terraform.tfstate is a whole state file: use inspect --state FILE [ADDRESS]\n"
    );
}

#[test]
fn utf16_state_is_named_as_such() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/terraform.tfstate"
    ))
    .unwrap();
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let path = std::env::temp_dir().join(format!("tfvalue-utf16-{}.tfstate", std::process::id()));
    std::fs::write(&path, utf16).unwrap();
    let err = fails(&["inspect", "--state", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    assert!(
        err.contains("is UTF-16LE (it starts with the byte order mark FF FE), not UTF-8"),
        "{err}"
    );
}

#[test]
fn the_schema_must_have_the_provider() {
    let mut other: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/schema.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let p = other["provider_schemas"]["registry.terraform.io/acme/shelf"].take();
    other["provider_schemas"] = serde_json::json!({"registry.terraform.io/else/where": p});
    let path = std::env::temp_dir().join(format!("tfvalue-other-{}.json", std::process::id()));
    std::fs::write(&path, other.to_string()).unwrap();
    let schema = path.to_str().unwrap();
    let err = fails(&[
        "inspect",
        "--state",
        "terraform.tfstate",
        "--schema",
        schema,
        "shelf_item.readme",
    ]);
    assert!(
        err.contains("has no provider \"registry.terraform.io/acme/shelf\""),
        "{err}"
    );
    // --provider-address says which to use
    let out = ok(&[
        "inspect",
        "--state",
        "terraform.tfstate",
        "--schema",
        schema,
        "--provider-address",
        "else/where",
        "shelf_item.readme",
    ]);
    std::fs::remove_file(&path).unwrap();
    assert!(out.contains("content = (sensitive value)"), "{out}");
}

#[test]
fn state_as_terraform_show_json_prints_it() {
    let out = ok(&["inspect", "--state", "shown-state.json"]);
    assert!(
        out.starts_with("shown-state.json: `terraform show -json` state format 1.0, Terraform 1.9.5, 2 resource instances\n"),
        "{out}"
    );
    assert!(out.contains("  module.archive.shelf_item.note  (registry.terraform.io/acme/shelf, schema version 0)\n"), "{out}");
    // with the schema: `settings` is dynamic, written plainly there, and still decodes
    let out = ok(&[
        "inspect",
        "--state",
        "shown-state.json",
        "--schema",
        "schema.json",
        "shelf_bucket.logs[0]",
    ]);
    assert!(
        out.contains(
            "    settings       = {\n        replicas = 2\n        tier     = \"cold\"\n    }\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("    admin_password = (sensitive value)\n"),
        "{out}"
    );
    assert!(
        out.contains("    lifecycle_rule {\n        days   = 7\n"),
        "{out}"
    );
    let json = ok(&[
        "inspect",
        "--state",
        "shown-state.json",
        "--schema",
        "schema.json",
        "--output",
        "json",
        "shelf_bucket.logs[0]",
    ]);
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        j["value"]["object"]["readers"]["set"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    // sensitive_values mask without a schema
    let out = ok(&[
        "inspect",
        "--state",
        "shown-state.json",
        "module.archive.shelf_item.note",
    ]);
    assert!(out.contains("    content = (sensitive value)\n"), "{out}");
    let err = fails(&["inspect", "--plan", "shown-state.json"]);
    assert!(err.contains("output of a state, not of a plan"), "{err}");
}

#[test]
fn control_characters_from_a_file_do_not_reach_the_terminal() {
    let state = r#"{"version": 4, "resources": [{"mode": "managed", "type": "shelf_item",
        "name": "x\u001b[2J\nevil", "provider": "provider[\"registry.terraform.io/acme/shelf\"]",
        "instances": [{"schema_version": 0, "attributes": {"id": "a\u001b]0;title\u0007"}}]}]}"#;
    let path = std::env::temp_dir().join(format!("tfvalue-ctl-{}.tfstate", std::process::id()));
    std::fs::write(&path, state).unwrap();
    let p = path.to_str().unwrap();
    let list = ok(&["inspect", "--state", p]);
    let shown = ok(&["inspect", "--state", p, "shelf_item.x\u{1b}[2J\nevil"]);
    let err = fails(&["inspect", "--state", p, "nope\u{1b}"]);
    std::fs::remove_file(&path).unwrap();
    for text in [&list, &shown, &err] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
    }
    assert!(list.contains("shelf_item.x\\u001b[2J\\u000aevil"), "{list}");
    assert!(shown.contains(r#"id = "a\u001b]0;title\u0007""#), "{shown}");
}

#[test]
fn plans_of_terraform_0_15_and_imports_of_1_5() {
    let out = ok(&["inspect", "--plan", "plan-0.15.json", "shelf_item.secret"]);
    assert!(
        out.contains("      ~ content = (sensitive value)\n"),
        "{out}"
    );
    assert!(
        out.contains("      ~ size    = 9 -> (known after apply)\n"),
        "{out}"
    );
    assert!(!out.contains("words"), "{out}");
    let list = ok(&["inspect", "--plan", "plan-1.5-import.json", "--list"]);
    assert!(list.contains("  import   shelf_item.found\n"), "{list}");
    assert!(
        list.ends_with("Plan: 2 to import, 0 to add, 1 to change, 0 to destroy.\n"),
        "{list}"
    );
    let out = ok(&[
        "inspect",
        "--plan",
        "plan-1.5-import.json",
        "shelf_item.found",
    ]);
    assert!(
        out.starts_with(
            "  # shelf_item.found will be imported\n    resource \"shelf_item\" \"found\" {\n"
        ),
        "{out}"
    );
    let out = ok(&[
        "inspect",
        "--plan",
        "plan-1.5-import.json",
        "--schema",
        "schema.json",
        "shelf_item.retagged",
    ]);
    assert!(
        out.starts_with("  # shelf_item.retagged will be updated in-place\n  # (imported from \"logs-a/r.txt\")\n"),
        "{out}"
    );
    assert!(
        out.contains("      + owner  = {\n          + name = \"Lin\"\n        }\n"),
        "{out}"
    );
}
