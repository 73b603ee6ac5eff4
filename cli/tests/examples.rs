//! Runs every example of the README's command section and of the `--help` texts, so they
//! cannot drift from what the command does. The examples run in `cli/tests/fixtures/`,
//! which holds the files they name.

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Runs a shell command line as a user would, with `tfvalue` on the PATH.
fn sh(line: &str) -> (i32, String, String) {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_tfvalue"));
    let dir = bin.parent().unwrap().to_owned();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("set -o pipefail; {line}"))
        .current_dir(fixtures())
        .env("PATH", path)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("run bash");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tfvalue(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tfvalue"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "tfvalue {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The README's command section: each `$ ` line of a `console` block, with the output
/// lines that follow it.
fn readme_examples() -> Vec<(String, String)> {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let start = readme
        .find("\n## The command\n")
        .expect("a command section");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    let section = &rest[..end];
    let mut examples: Vec<(String, String)> = Vec::new();
    let mut in_block = false;
    for line in section.lines() {
        if line == "```console" {
            in_block = true;
        } else if line == "```" {
            in_block = false;
        } else if in_block {
            if let Some(cmd) = line.strip_prefix("$ ") {
                examples.push((cmd.to_owned(), String::new()));
            } else if let Some((_, out)) = examples.last_mut() {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    examples
}

/// The subcommands `tfvalue --help` lists.
fn subcommands() -> Vec<String> {
    let help = tfvalue(&["--help"]);
    let list = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section");
    list.lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// The example lines of a help text: the lines after `Examples:` up to a blank line,
/// without their `# comments`.
fn help_examples(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = help.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() == "Examples:" || line.trim_end() == "Example:" {
            for ex in lines.by_ref() {
                if ex.trim().is_empty() {
                    break;
                }
                let ex = ex.split("  # ").next().unwrap_or(ex).trim();
                out.push(ex.to_owned());
            }
        }
    }
    out
}

fn errors_in(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| !l.starts_with("tfvalue: warning: "))
        .collect()
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let examples = readme_examples();
    assert!(examples.len() >= 8, "{examples:?}");
    let with_output = examples.iter().filter(|(_, out)| !out.is_empty()).count();
    assert_eq!(
        with_output,
        examples.len(),
        "every README example shows its output"
    );
    for (cmd, want) in &examples {
        assert!(cmd.contains("tfvalue "), "{cmd}");
        let (code, out, err) = sh(cmd);
        assert_eq!(code, 0, "README example failed: {cmd}\n{err}");
        assert!(errors_in(&err).is_empty(), "{cmd}: {err}");
        assert_eq!(&out, want, "README example prints something else: {cmd}");
    }
}

#[test]
fn readme_shows_every_subcommand() {
    let examples = readme_examples();
    for sub in subcommands() {
        let shown = examples.iter().any(|(cmd, _)| {
            cmd.starts_with(&format!("tfvalue {sub} "))
                || cmd.contains(&format!("| tfvalue {sub} "))
        });
        assert!(shown, "the README has no example of `tfvalue {sub}`");
    }
}

#[test]
fn help_examples_run() {
    let subs = subcommands();
    assert_eq!(
        subs,
        ["inspect", "decode", "encode", "schema", "check", "docs"]
    );
    let mut all = help_examples(&tfvalue(&["--help"]));
    assert!(all.len() >= 5, "top-level --help has examples: {all:?}");
    // `docs` is a group: its commands have the examples.
    let subs: Vec<String> = subs
        .into_iter()
        .flat_map(|s| {
            if s == "docs" {
                vec!["docs generate".to_owned(), "docs validate".to_owned()]
            } else {
                vec![s]
            }
        })
        .collect();
    for sub in &subs {
        let words: Vec<&str> = sub.split(' ').chain(["--help"]).collect();
        let ex = help_examples(&tfvalue(&words));
        assert!(
            ex.iter().any(|e| e.contains(&format!("tfvalue {sub}"))),
            "`tfvalue {sub} --help` has no example of itself: {ex:?}"
        );
        all.extend(ex);
    }
    for ex in &all {
        assert!(
            ex.contains("tfvalue"),
            "an example line that is not a command: {ex}"
        );
        let (code, out, err) = sh(ex);
        assert_eq!(code, 0, "help example failed: {ex}\n{err}");
        assert!(errors_in(&err).is_empty(), "{ex}: {err}");
        assert!(!out.trim().is_empty(), "help example printed nothing: {ex}");
    }
}

#[test]
fn the_help_describes_the_tagged_notation() {
    for sub in ["decode", "encode"] {
        let help = tfvalue(&[sub, "--help"]);
        for tag in [
            "{\"unknown\":",
            "{\"dynamic\":",
            "{\"number\":\"1.5\"}",
            "[\"object\",",
        ] {
            assert!(help.contains(tag), "`{sub} --help` lacks {tag}");
        }
    }
}
