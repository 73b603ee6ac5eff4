//! The crate page (`src/doc/overview.md`, the crate docs' first part) is the library part
//! of the README, word for word, so the two cannot drift; the README's sections about the
//! repository (the command, tests, layout, fuzzing) stay off the crate page.

use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The `## ` sections of a Markdown text, each with its heading, and what comes before
/// the first one.
fn sections(text: &str) -> (String, Vec<String>) {
    let mut parts = text.split("\n## ");
    let head = parts.next().unwrap_or_default().trim_end().to_owned();
    let secs = parts
        .map(|s| format!("## {}", s.trim_end()))
        .collect::<Vec<_>>();
    (head, secs)
}

#[test]
fn the_crate_page_is_the_library_part_of_the_readme() {
    let readme = read("README.md");
    let overview = read("src/doc/overview.md");
    let (head, secs) = sections(&overview);
    let (readme_head, readme_secs) = sections(&readme);
    // The title and the first paragraph are the README's (without its two commands).
    for paragraph in head.split("\n\n") {
        assert!(
            readme_head.contains(paragraph),
            "not in the README: {paragraph}"
        );
    }
    for sec in &secs {
        assert!(
            readme_secs.contains(sec),
            "not in the README as it is: {sec}"
        );
    }
    let titles: Vec<&str> = secs.iter().filter_map(|s| s.lines().next()).collect();
    assert_eq!(
        titles,
        [
            "## What it is",
            "## Quick start",
            "## Serving a provider",
            "## Compared with its peers"
        ]
    );
    // What the crate page leaves out.
    for gone in [
        "## The command",
        "## Tests, benches and fuzzing",
        "## Layout",
        "## Fuzzing",
    ] {
        assert!(readme.contains(gone), "{gone}");
        assert!(!overview.contains(gone), "{gone}");
    }
    assert!(!overview.contains("cargo run -p tfvalue-cli"));
    // And the crate docs include it.
    assert!(read("src/lib.rs").contains(r#"#![doc = include_str!("doc/overview.md")]"#));
}
