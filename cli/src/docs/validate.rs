//! `tfvalue docs validate`: the docs folder as the Registry reads it, and, given the
//! provider's schema, a page for everything the provider has and nothing else, with the
//! attributes its schema has.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use tfvalue::schema::{AttributeType, Block};
use tfvalue::Type;

use super::pages::{closes_fence, opens_fence, OWNED_DIRS};
use super::{Described, Kind};

/// The Registry's limit on a page's size.
const MAX_PAGE_BYTES: u64 = 500_000;

/// Every problem found, one line each, naming the file.
pub fn validate(dir: &Path, described: Option<&Described>) -> Result<Vec<String>, String> {
    if !dir.is_dir() {
        return Err(format!("{} is not a folder", dir.display()));
    }
    let mut problems = Vec::new();
    let at = |p: &Path| p.display().to_string();
    // The layout.
    let index = dir.join("index.md");
    if !index.is_file() {
        problems.push(format!("{}: missing (the provider's page)", at(&index)));
    }
    let mut pages: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", at(dir)))?;
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default()
            .to_owned();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            if name == "cdktf" {
                // The CDK for Terraform's docs, in their own layout.
                continue;
            }
            let Some(owned) = OWNED_DIRS.iter().find(|d| **d == name) else {
                problems.push(format!(
                    "{}: not a folder the Registry reads (it reads {})",
                    at(&path),
                    OWNED_DIRS.join(", ")
                ));
                continue;
            };
            let mut files: Vec<_> = std::fs::read_dir(&path)
                .map_err(|e| format!("cannot read {}: {e}", at(&path)))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .collect();
            files.sort();
            for file in files {
                let fname = file
                    .file_name()
                    .and_then(|f| f.to_str())
                    .unwrap_or_default()
                    .to_owned();
                if fname.starts_with('.') {
                    continue;
                }
                if file.is_dir() {
                    problems.push(format!("{}: a folder inside {owned}/", at(&file)));
                    continue;
                }
                let Some(stem) = fname.strip_suffix(".md") else {
                    problems.push(format!("{}: not a .md file", at(&file)));
                    continue;
                };
                check_page(&file, *owned == "guides", false, &mut problems);
                pages.entry(owned).or_default().insert(stem.to_owned());
            }
        } else if name == "index.md" {
            check_page(&path, false, true, &mut problems);
        } else {
            problems.push(format!(
                "{}: only index.md belongs at the top of the docs folder",
                at(&path)
            ));
        }
    }
    let Some(d) = described else {
        return Ok(problems);
    };
    // A page for everything, and nothing else.
    for kind in Kind::ALL {
        let names = d.names(kind);
        let found = pages.get(kind.dir()).cloned().unwrap_or_default();
        let mut expected = BTreeSet::new();
        for name in &names {
            let short = d.short_name(kind, name).to_owned();
            if !found.contains(&short) && !found.contains(name) {
                problems.push(format!(
                    "{}: missing (the page of {} {name})",
                    at(&dir.join(kind.dir()).join(format!("{short}.md"))),
                    kind.noun()
                ));
            }
            expected.insert(short);
            expected.insert(name.clone());
        }
        for stem in &found {
            if !expected.contains(stem) {
                problems.push(format!(
                    "{}: the provider has no {} {} (its {}: {})",
                    at(&dir.join(kind.dir()).join(format!("{stem}.md"))),
                    kind.noun(),
                    if kind == Kind::Function {
                        stem.clone()
                    } else {
                        format!("{}_{stem}", d.name)
                    },
                    kind.dir(),
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ));
            }
        }
    }
    // The attributes of each page with a schema section, against the schema.
    let mut check = |noun: &str, file: &Path, block: &Block| {
        let Ok(text) = std::fs::read_to_string(file) else {
            return;
        };
        let Some(documented) = documented_attributes(&text) else {
            return;
        };
        let mut expected = BTreeMap::new();
        block_names(block, &mut Vec::new(), &mut expected);
        compare_attributes(file, noun, &documented, &expected, &mut problems);
    };
    if let Some(p) = &d.provider {
        if index.is_file() {
            check("provider configuration", &index, &p.block);
        }
    }
    for kind in Kind::ALL {
        if kind == Kind::Function {
            continue;
        }
        for (name, schema) in d.blocks.get(&kind).into_iter().flatten() {
            let short = d.short_name(kind, name);
            let file = dir.join(kind.dir()).join(format!("{short}.md"));
            if file.is_file() {
                check(kind.noun(), &file, &schema.block);
            }
        }
    }
    Ok(problems)
}

/// The front matter: `---` lines around `key: value` lines (and `key: |-` with
/// indented lines after it).
fn check_page(path: &Path, guide: bool, index: bool, problems: &mut Vec<String>) {
    let at = path.display().to_string();
    match std::fs::metadata(path) {
        Ok(m) if m.len() >= MAX_PAGE_BYTES => {
            problems.push(format!(
                "{at}: {} bytes, over the Registry's limit of {MAX_PAGE_BYTES}",
                m.len()
            ));
        }
        _ => {}
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            problems.push(format!("{at}: cannot read it as UTF-8 text: {e}"));
            return;
        }
    };
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, "---")) => {}
        _ => {
            // Front matter is optional; a page without it has no keys to check.
            if guide {
                problems.push(format!("{at}: a guide needs front matter with page_title"));
            }
            return;
        }
    }
    let mut keys = BTreeSet::new();
    let mut closed = false;
    for (i, line) in lines {
        if line == "---" {
            closed = true;
            break;
        }
        if line.starts_with('#') || line.trim().is_empty() || line.starts_with([' ', '\t']) {
            continue;
        }
        let Some((key, _)) = line.split_once(':') else {
            problems.push(format!(
                "{at}:{}: front matter line is not `key: value`: {line:?}",
                i + 1
            ));
            continue;
        };
        let key = key.trim();
        match key {
            "page_title" | "description" | "subcategory" => {}
            "layout" | "sidebar_current" => problems.push(format!(
                "{at}:{}: `{key}` is for the legacy website layout, not the Registry",
                i + 1
            )),
            other => problems.push(format!(
                "{at}:{}: unknown front matter key `{other}` (the Registry reads page_title, \
                 subcategory and description)",
                i + 1
            )),
        }
        if !keys.insert(key.to_owned()) {
            problems.push(format!("{at}:{}: `{key}` given twice", i + 1));
        }
    }
    if !closed {
        problems.push(format!("{at}: the front matter has no closing `---`"));
    }
    if index && keys.contains("subcategory") {
        problems.push(format!("{at}: the provider's page takes no subcategory"));
    }
    if guide && !keys.contains("page_title") {
        problems.push(format!("{at}: a guide needs a page_title"));
    }
}

/// The attribute names a page documents, by nested path (`""` for the top, `rule.port`
/// for a nested schema), or `None` if the page has no schema section.
fn documented_attributes(text: &str) -> Option<BTreeMap<String, BTreeSet<String>>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut fence = None;
    let mut found = false;
    for line in text.lines() {
        if let Some(open) = fence {
            if closes_fence(line, open) {
                fence = None;
            }
            continue;
        }
        if let Some(open) = opens_fence(line) {
            fence = Some(open);
            continue;
        }
        if line == "## Schema" {
            current = Some(String::new());
            found = true;
            out.entry(String::new()).or_default();
            continue;
        }
        if let Some(rest) = line.strip_prefix("### Nested Schema for `") {
            if found {
                let path = rest.trim_end_matches('`').to_owned();
                out.entry(path.clone()).or_default();
                current = Some(path);
            }
            continue;
        }
        if line.starts_with("## ") {
            current = None;
            continue;
        }
        if let (Some(path), Some(rest)) = (&current, line.strip_prefix("- `")) {
            if let Some((name, _)) = rest.split_once('`') {
                out.entry(path.clone()).or_default().insert(name.to_owned());
            }
        }
    }
    found.then_some(out)
}

/// The attribute names a block has, by nested path, as the schema section lists them.
fn block_names(
    block: &Block,
    path: &mut Vec<String>,
    out: &mut BTreeMap<String, BTreeSet<String>>,
) {
    let key = path.join(".");
    let names = out.entry(key).or_default();
    names.extend(block.attributes.keys().cloned());
    names.extend(block.block_types.keys().cloned());
    for (name, a) in &block.attributes {
        path.push(name.clone());
        match &a.ty {
            AttributeType::Nested(n) => {
                let b = n
                    .attributes
                    .iter()
                    .fold(Block::new(), |b, (k, v)| b.attribute(k.clone(), v.clone()));
                block_names(&b, path, out);
            }
            AttributeType::Type(t) => object_names(t, path, out),
        }
        path.pop();
    }
    for (name, nb) in &block.block_types {
        path.push(name.clone());
        block_names(&nb.block, path, out);
        path.pop();
    }
}

fn object_names(t: &Type, path: &mut Vec<String>, out: &mut BTreeMap<String, BTreeSet<String>>) {
    match t {
        Type::Object(o) => {
            out.entry(path.join("."))
                .or_default()
                .extend(o.attributes().keys().cloned());
            for (name, inner) in o.attributes() {
                path.push(name.clone());
                object_names(inner, path, out);
                path.pop();
            }
        }
        Type::List(e) | Type::Set(e) | Type::Map(e) => object_names(e, path, out),
        _ => {}
    }
}

fn compare_attributes(
    file: &Path,
    noun: &str,
    documented: &BTreeMap<String, BTreeSet<String>>,
    expected: &BTreeMap<String, BTreeSet<String>>,
    problems: &mut Vec<String>,
) {
    let at = file.display();
    let place = |path: &str| {
        if path.is_empty() {
            format!("the {noun}'s schema")
        } else {
            format!("`{path}`")
        }
    };
    for (path, names) in documented {
        let Some(want) = expected.get(path) else {
            problems.push(format!(
                "{at}: documents the nested schema `{path}`, which the schema does not have"
            ));
            continue;
        };
        for n in names.difference(want) {
            let full = if path.is_empty() {
                n.clone()
            } else {
                format!("{path}.{n}")
            };
            problems.push(format!(
                "{at}: documents `{full}`, which {} does not have",
                place(path)
            ));
        }
        for n in want.difference(names) {
            let full = if path.is_empty() {
                n.clone()
            } else {
                format!("{path}.{n}")
            };
            problems.push(format!("{at}: does not document `{full}`"));
        }
    }
    for path in expected.keys() {
        if !documented.contains_key(path) && !expected[path].is_empty() {
            problems.push(format!("{at}: has no nested schema for `{path}`"));
        }
    }
}
