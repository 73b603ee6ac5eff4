//! The example provider (`examples/thing.rs`) under `tfvalue_plugin::testing`, over
//! protocol 5 and protocol 6, and the harness's own failures: each way a step can fail
//! must fail the case, and still destroy what it created.
//!
//! Skipped (each case prints why) unless `TFVALUE_TERRAFORM` names a Terraform binary;
//! the lifecycles also run with `TFVALUE_TERRAFORM_LATEST`'s (and `TFVALUE_TERRAFORMS`').

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use tfvalue::{Dynamic, TfValue, Unknown, Value};
use tfvalue_plugin::testing::{
    terraforms, CheckResult, Outcome, ProviderBinary, Step, TestCase, TERRAFORM_ENV,
    TERRAFORM_LATEST_ENV,
};

/// `thing_server`'s model, as the example declares it (the test reads the state into it).
#[derive(TfValue, Deserialize, Debug)]
#[allow(dead_code)]
struct Server {
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    #[tfvalue(required)]
    name: String,
    #[tfvalue(optional, computed)]
    size: Unknown<Option<u32>>,
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, String>>,
    #[tfvalue(computed)]
    ip_address: Unknown<Option<String>>,
    #[tfvalue(optional)]
    metadata: Option<Dynamic>,
    #[tfvalue(block)]
    disk: Vec<Disk>,
    /// Protocol 6 only: missing (so `None`) in a protocol 5 state.
    #[tfvalue(nested_type, optional)]
    endpoints: Option<Vec<Endpoint>>,
}

#[derive(TfValue, Deserialize, Debug)]
#[allow(dead_code)]
struct Endpoint {
    #[tfvalue(required)]
    host: String,
    #[tfvalue(optional)]
    port: Option<u16>,
}

#[derive(TfValue, Deserialize, Debug, PartialEq)]
struct Disk {
    #[tfvalue(required)]
    size_gb: u32,
    #[tfvalue(optional, computed)]
    kind: Unknown<Option<String>>,
}

#[derive(TfValue, Deserialize, Debug)]
struct Volume {
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    #[tfvalue(required)]
    server_id: Unknown<String>,
    #[tfvalue(required)]
    size_gb: u32,
}

fn thing() -> ProviderBinary {
    ProviderBinary::example("thing").protocol_env("THING_PROTOCOL")
}

/// A case of the example provider, with its "cloud" (a JSON file) in the case's directory.
fn case(protocol: u32) -> (TestCase, PathBuf) {
    let case = TestCase::new(thing())
        .source("example.com/acme/thing")
        .protocol(protocol);
    let db = case.dir().join("db.json");
    (case.env("THING_DB", &db), db)
}

fn config(size: u32, tags: &str) -> String {
    format!(
        r#"
resource "thing_server" "web" {{
  name     = "web"
  size     = {size}
  tags     = {tags}
  metadata = {{ owner = "me", ports = [80, 443] }}
  disk {{ size_gb = 20 }}
  disk {{
    size_gb = 40
    kind    = "hdd"
  }}
}}

# Its server_id is unknown until the server exists.
resource "thing_volume" "data" {{
  server_id = thing_server.web.id
  size_gb   = 5
}}

data "thing_info" "hi" {{
  name = "Zoë"
}}

output "greeting" {{ value = data.thing_info.hi.greeting }}
"#
    )
}

fn read_db(db: &Path) -> serde_json::Value {
    std::fs::read(db)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(serde_json::Value::Null)
}

/// Changes a stored server's size behind Terraform's back.
fn drift(db: &Path, size: u32) {
    let mut v = read_db(db);
    for (_, record) in v.as_object_mut().unwrap().iter_mut() {
        if record[0] == "thing_server" {
            record[1]["size"] = size.into();
        }
    }
    std::fs::write(db, serde_json::to_vec(&v).unwrap()).unwrap();
}

/// Changes a stored server's address behind Terraform's back.
fn set_ip(db: &Path, ip: &str) {
    let mut v = read_db(db);
    for (_, record) in v.as_object_mut().unwrap().iter_mut() {
        if record[0] == "thing_server" {
            record[1]["ip_address"] = ip.into();
        }
    }
    std::fs::write(db, serde_json::to_vec(&v).unwrap()).unwrap();
}

/// The server was created anew: its address is a fresh one, not `old`.
fn new_address(s: &tfvalue_plugin::testing::State, old: &str) -> CheckResult {
    let web: Server = s.resource("thing_server.web")?;
    let ip = web.ip_address.known().cloned().flatten().unwrap();
    assert!(ip.starts_with("10.0.0.") && ip != old, "{ip}");
    Ok(())
}

/// The lifecycle with each Terraform the environment names (1.0.3 and the newest one
/// in CI), the case built anew for each.
fn lifecycle(protocol: u32) {
    let terraforms = terraforms();
    if terraforms.is_empty() {
        println!("skipped: no Terraform is named ({TERRAFORM_ENV}, {TERRAFORM_LATEST_ENV})");
    }
    for terraform in terraforms {
        lifecycle_with(protocol, &terraform);
    }
}

fn lifecycle_with(protocol: u32, terraform: &Path) {
    let (case, db) = case(protocol);
    let case = case.terraform(terraform);
    let db2 = db.clone();
    let db3 = db.clone();
    let db4 = db.clone();
    let db5 = db.clone();
    let outcome = case
        .step(Step::config(config(2, r#"{ env = "test" }"#)).check(|s| {
            let web: Server = s.resource("thing_server.web")?;
            assert_eq!(web.size, Unknown::Known(Some(2)));
            assert_eq!(web.disk[0].kind, Unknown::Known(Some("ssd".into())));
            assert!(web
                .ip_address
                .known()
                .cloned()
                .flatten()
                .unwrap()
                .starts_with("10.0."));
            let vol: Volume = s.resource("thing_volume.data")?;
            assert_eq!(vol.size_gb, 5);
            assert_ne!(vol.id, web.id);
            assert_eq!(
                vol.server_id,
                Unknown::Known(web.id.known().cloned().flatten().unwrap())
            );
            // The same resource as a `Value` of its schema's type.
            let v = s.value("thing_server.web")?;
            assert_eq!(v["tags"]["env"], Value::from("test"));
            assert_eq!(v["metadata"]["ports"][1], Value::from(443));
            assert_eq!(s.output("greeting")?, Value::from("hello, Zoë"));
            assert!(s.contains("data.thing_info.hi"));
            Ok(())
        }))
        // An update in place.
        .step(
            Step::config(config(4, r#"{ env = "prod", team = "a" }"#)).check(|s| {
                let web: Server = s.resource("thing_server.web")?;
                assert_eq!(web.size, Unknown::Known(Some(4)));
                assert_eq!(web.tags.unwrap()["team"], "a");
                Ok(())
            }),
        )
        // Drift: the refresh sees it, and the plan wants to undo it.
        .step(
            Step::refresh()
                .before(move || drift(&db2, 7))
                .expect_non_empty_plan()
                .check(|s| {
                    let web: Server = s.resource("thing_server.web")?;
                    assert_eq!(web.size, Unknown::Known(Some(7)));
                    Ok(())
                }),
        )
        // Applying the configuration again undoes the drift.
        .step(Step::config(config(4, r#"{ env = "prod", team = "a" }"#)))
        // Taint and -replace: the server is created anew, with a new address (the
        // refresh before each apply reads the address set here; an update in place
        // would keep it).
        .step(
            Step::config(config(4, r#"{ env = "prod", team = "a" }"#))
                .before(move || set_ip(&db4, "10.9.9.9"))
                .taint("thing_server.web")
                .check(|s| new_address(s, "10.9.9.9")),
        )
        .step(
            Step::config(config(4, r#"{ env = "prod", team = "a" }"#))
                .before(move || set_ip(&db5, "10.9.9.8"))
                .replace("thing_server.web")
                .check(|s| new_address(s, "10.9.9.8")),
        )
        // Import into a new directory, compared with the applied state.
        .step(Step::import("thing_volume.data").verify())
        .step(Step::import("thing_server.web").verify())
        // Forget the server and adopt it again, then plan: no changes.
        .step(Step::import("thing_server.web").in_place())
        .step(Step::config(config(4, r#"{ env = "prod", team = "a" }"#)).plan_only())
        // A change the plan shows.
        .step(
            Step::config(config(5, r#"{ env = "prod", team = "a" }"#))
                .plan_only()
                .expect_non_empty_plan(),
        )
        // Errors, matched against what Terraform prints.
        .step(
            Step::import("thing_volume.data")
                .id("vol-none")
                .expect_error("There is no thing_volume with id `vol-none`"),
        )
        .step(
            Step::config(config(4, "{}").replace("size_gb = 20", "size_gb = 0"))
                .plan_only()
                .expect_error("a disk needs a size"),
        )
        .check_destroy(move |before| {
            assert!(before.contains("thing_server.web"));
            assert_eq!(
                read_db(&db3),
                serde_json::json!({}),
                "objects left after destroy"
            );
            Ok(())
        })
        .try_run()
        .unwrap_or_else(|e| panic!("protocol {protocol}, {}: {e}", terraform.display()));
    assert_eq!(outcome, Outcome::Passed, "{}", terraform.display());
    // The case's directory is gone, and with it the provider's store.
    assert!(!db.exists());
}

#[test]
fn thing_lifecycle_protocol_5() {
    lifecycle(5);
}

#[test]
fn thing_lifecycle_protocol_6() {
    lifecycle(6);
}

const ONE_SERVER: &str = r#"
resource "thing_server" "one" {
  name = "one"
  disk { size_gb = 1 }
}
"#;

/// The error of a case that must fail; `None` when Terraform is not there to run it.
fn failure(case: TestCase) -> Option<String> {
    match case.try_run() {
        Ok(Outcome::Skipped(_)) => None,
        Ok(other) => panic!("the case should have failed, but ended {other:?}"),
        Err(e) => Some(e.to_string()),
    }
}

#[test]
fn an_error_that_does_not_come_fails_the_case_and_destroys() {
    let (case, db) = case(6);
    let db2 = db.clone();
    let case = case
        .step(Step::config(ONE_SERVER).expect_error("no such thing"))
        .check_destroy(move |_| {
            assert_eq!(read_db(&db2), serde_json::json!({}));
            Ok(())
        });
    if let Some(e) = failure(case) {
        assert!(
            e.starts_with(
                "step 1 (config): expected an error matching `no such thing`, but \
                 `terraform apply -no-color -auto-approve` succeeded"
            ),
            "{e}"
        );
        // The failure shows the command's output.
        assert!(e.contains("Apply complete! Resources: 1 added"), "{e}");
    }
}

#[test]
fn an_error_that_does_not_match_fails_the_case() {
    let (case, _) = case(6);
    let case = case.step(
        Step::config(ONE_SERVER.replace("size_gb = 1", "size_gb = 0"))
            .plan_only()
            .expect_error("a disk needs no size"),
    );
    if let Some(e) = failure(case) {
        assert!(
            e.starts_with("step 1 (plan): the error does not match `a disk needs no size`"),
            "{e}"
        );
        assert!(e.contains("a disk needs a size"), "{e}");
    }
}

#[test]
fn a_failing_check_fails_the_case_and_destroys() {
    let (case, db) = case(6);
    let destroyed = std::rc::Rc::new(std::cell::Cell::new(false));
    let seen = destroyed.clone();
    let case = case
        .step(Step::config(ONE_SERVER).check(|s| {
            let one: Server = s.resource("thing_server.one")?;
            if one.size != Unknown::Known(Some(99)) {
                return Err(format!("size is {:?}", one.size).into());
            }
            Ok(())
        }))
        // Not run: the case stops at the failed check.
        .step(Step::config("this is not HCL"))
        .check_destroy(move |_| {
            seen.set(true);
            assert_eq!(read_db(&db), serde_json::json!({}));
            Ok(())
        });
    if let Some(e) = failure(case) {
        assert_eq!(e, "step 1 (config): check 1 failed: size is Known(Some(1))");
        assert!(destroyed.get());
    }
}

#[test]
fn a_panicking_check_is_resumed_after_the_destroy() {
    let (case, db) = case(6);
    let after_destroy = std::rc::Rc::new(std::cell::RefCell::new(None));
    let seen = after_destroy.clone();
    let case = case
        .step(Step::config(ONE_SERVER).check(|_| panic!("checked")))
        .check_destroy(move |_| {
            *seen.borrow_mut() = Some(read_db(&db));
            Ok(())
        });
    let skipped = std::env::var_os(TERRAFORM_ENV).is_none();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case.run()));
    if skipped {
        assert!(result.is_ok());
        return;
    }
    let panic = result.unwrap_err();
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"checked"));
    // The destroy ran, and emptied the store, before the panic went on.
    assert_eq!(*after_destroy.borrow(), Some(serde_json::json!({})));
}

#[test]
fn an_unexpected_empty_plan_fails_the_case() {
    let (case, _) = case(5);
    let case = case.step(Step::config(ONE_SERVER).expect_non_empty_plan());
    if let Some(e) = failure(case) {
        assert!(
            e.starts_with(
                "step 1 (config): expected a plan with changes after applying this step, \
                 but it had none"
            ),
            "{e}"
        );
    }
}

#[test]
fn the_protocol_is_checked() {
    // Without its variable, the provider serves protocol 6 only.
    let case = TestCase::new(ProviderBinary::example("thing"))
        .source("example.com/acme/thing")
        .protocol(5)
        .step(Step::config(ONE_SERVER).plan_only().expect_non_empty_plan());
    if let Some(e) = failure(case) {
        assert!(
            e.contains(
                "Terraform talked to the provider over protocol 6, but the case asked for \
                 protocol 5"
            ),
            "{e}"
        );
    }
}

#[test]
fn an_import_that_differs_fails_verify() {
    let (case, db) = case(6);
    let case = case.step(Step::config(ONE_SERVER)).step(
        Step::import("thing_server.one")
            .before(move || drift(&db, 9))
            .verify(),
    );
    if let Some(e) = failure(case) {
        assert!(
            e.starts_with(
                "step 2 (import thing_server.one): the imported state differs from the applied \
                 one:\n  size: applied 1, imported 9\n--- `terraform import -no-color \
                 thing_server.one srv-1` (exit code 0):"
            ),
            "{e}"
        );
    }
}
