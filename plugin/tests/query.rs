//! `terraform query` (with `-generate-config-out`) and an action invoked with `terraform
//! apply -invoke`, run by a real Terraform 1.14 or newer against the kv example
//! installed from a filesystem mirror.
//!
//! These machines have no such Terraform yet (1.11.4 at most): the test then prints why it
//! is skipped, and the same calls are replayed with a gRPC client in the crate's own tests
//! (`src/server/tests_replay.rs`). Give it one through `TFVALUE_TERRAFORM_LATEST`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use tfvalue_plugin::testing::{
    terraform_version, ProviderBinary, TerraformVersion, TERRAFORM_LATEST_ENV,
};

/// The Terraform to run, if it is 1.14 or newer; otherwise why not.
fn terraform() -> Result<PathBuf, String> {
    let Some(path) = std::env::var_os(TERRAFORM_LATEST_ENV) else {
        return Err(format!("{TERRAFORM_LATEST_ENV} is not set"));
    };
    let path = PathBuf::from(path);
    let version = terraform_version(&path).map_err(|e| e.to_string())?;
    let needed: TerraformVersion = "1.14.0".parse().map_err(|e| format!("{e:?}"))?;
    if version < needed {
        return Err(format!(
            "{} is Terraform {version}; list resources and actions need 1.14 or newer",
            path.display()
        ));
    }
    Ok(path)
}

struct Work {
    dir: PathBuf,
    terraform: PathBuf,
}

impl Work {
    fn run(&self, args: &[&str]) -> (bool, String) {
        let out = Command::new(&self.terraform)
            .args(args)
            .current_dir(self.dir.join("work"))
            .env("TF_CLI_CONFIG_FILE", self.dir.join("cli.tfrc"))
            .env("TF_IN_AUTOMATION", "1")
            .env("CHECKPOINT_DISABLE", "1")
            .env_remove("TF_PLUGIN_CACHE_DIR")
            .stdin(Stdio::null())
            .output()
            .expect("run terraform");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }

    fn ok(&self, args: &[&str]) -> String {
        let (ok, text) = self.run(args);
        assert!(ok, "terraform {args:?}:\n{text}");
        text
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn terraform_query_and_an_action_invoked() {
    let terraform = match terraform() {
        Ok(t) => t,
        Err(why) => {
            println!("skipped: {why}");
            return;
        }
    };
    let bin = ProviderBinary::example("kv").build().unwrap();
    let dir = std::env::temp_dir().join(format!("tfvalue-query-{}", std::process::id()));
    let platform = dir.join(format!(
        "mirror/example.com/acme/kv/0.1.0/{}_{}",
        std::env::consts::OS,
        match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            other => other,
        }
    ));
    std::fs::create_dir_all(&platform).unwrap();
    std::fs::create_dir_all(dir.join("work")).unwrap();
    std::fs::copy(&bin, platform.join("terraform-provider-kv_v0.1.0")).unwrap();
    let work = Work { dir, terraform };
    write(
        &work.dir.join("cli.tfrc"),
        &format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path    = {:?}\n    include = [\"example.com/acme/kv\"]\n  }}\n}}\n",
            work.dir.join("mirror").to_str().unwrap()
        ),
    );
    let store = work.dir.join("store.json");
    let entry = |key: &str| {
        serde_json::json!({
            "key": key, "value": format!("value of {key}"), "ttl": 3600, "id": format!("kv-{key}"),
            "version": 1, "tags": null, "rule": [], "acl": [], "meta": null, "secret": null,
            "secret_wo_version": null,
        })
    };
    let entries = serde_json::json!({ "app/a": entry("app/a"), "app/b": entry("app/b"), "sys/c": entry("sys/c") });
    write(&store, &entries.to_string());
    let w = work.dir.join("work");
    write(
        &w.join("main.tf"),
        &format!(
            "terraform {{\n  required_providers {{\n    kv = {{ source = \"example.com/acme/kv\", version = \"0.1.0\" }}\n  }}\n}}\n\nprovider \"kv\" {{\n  path = {:?}\n}}\n\naction \"kv_compact\" \"now\" {{\n  config {{\n    min_entries = 1\n  }}\n}}\n",
            store.to_str().unwrap()
        ),
    );
    write(
        &w.join("apps.tfquery.hcl"),
        "list \"kv_entry\" \"apps\" {\n  provider = kv\n\n  config {\n    prefix = \"app/\"\n  }\n}\n",
    );
    work.ok(&["init", "-input=false", "-no-color"]);

    // The list: one line per entry under the prefix, its identity and its name.
    let out = work.ok(&["query", "-no-color"]);
    for key in ["app/a", "app/b"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with("list.kv_entry.apps") && l.contains(&format!("key={key}"))),
            "no line for {key}:\n{out}"
        );
    }
    assert!(!out.contains("sys/c"), "the filter was not applied:\n{out}");

    // Their configuration, generated by the provider: what only it sets left out.
    work.ok(&["query", "-no-color", "-generate-config-out=generated.tf"]);
    let generated = std::fs::read_to_string(w.join("generated.tf")).unwrap();
    assert!(generated.contains("resource \"kv_entry\""), "{generated}");
    assert!(generated.contains("\"value of app/a\""), "{generated}");
    assert!(
        !generated.contains("kv-app/a"),
        "a computed-only id was written:\n{generated}"
    );
    // Its import blocks are for a plan to take the entries in; not for the action below.
    std::fs::remove_file(w.join("generated.tf")).unwrap();

    // The action, invoked: its progress shown, the store rewritten.
    let before = std::fs::read(&store).unwrap();
    let out = work.ok(&[
        "apply",
        "-no-color",
        "-auto-approve",
        "-input=false",
        "-invoke=action.kv_compact.now",
    ]);
    assert!(out.contains("rewrote 3 entries"), "{out}");
    assert_ne!(
        std::fs::read(&store).unwrap(),
        before,
        "the store was not rewritten"
    );
}
