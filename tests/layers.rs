//! The layers of the crate, as the design sets them (shared DESIGN.md, "Layers"):
//!
//! ```text
//! schema, codec, flatmap, raw, ...       provider-facing models and stored state
//! msgpack/, json/                        the formats
//! Type, Number, Refinements, Unknown, Value, Dynamic, paths, Error, limits, text   the model
//! ```
//!
//! The model imports no format and nothing above it, and within the model the vocabulary
//! (keys, types, numbers, refinements, paths, errors) does not import the value tree built
//! from it; each format imports the model and not the other format; the schema layer
//! imports no format (it converts models and values directly); and inside the crate a
//! name is imported from the module that defines it, not through the crate root's
//! re-exports; the text rules (`text`: normalization, grapheme clusters, their tables)
//! import no other module. This test reads every `crate::`
//! path in `src/` (test modules and comments left out) and lists every import that
//! breaks a rule.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Layer {
    Model,
    Format,
    Upper,
}

const MODEL: &[&str] = &[
    "key",
    "types",
    "number",
    "unknown",
    "value",
    "dynamic",
    "path",
    "error",
    "limits",
    "private",
    "dyn_check",
    "text",
];
const FORMATS: &[&str] = &["msgpack", "json"];

/// The vocabulary below the value tree: what types, numbers and refinements are made of.
/// It does not know the tree (`Value`, `Dynamic`) built from it.
const VOCABULARY: &[&str] = &[
    "key", "types", "number", "unknown", "path", "error", "limits", "private", "text",
];
const TREE: &[&str] = &["value", "dynamic", "dyn_check"];

/// Upper modules that work on models and values without a wire (the schema layer's plan,
/// apply and validation helpers): they import no format (nor `transcode`, which streams
/// one format into another).
const NO_WIRE: &[&str] = &["schema"];
const WIRE: &[&str] = &["msgpack", "json", "transcode"];

fn layer(module: &str) -> Layer {
    if MODEL.contains(&module) {
        Layer::Model
    } else if FORMATS.contains(&module) {
        Layer::Format
    } else {
        Layer::Upper
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to (`value/de.rs` is in `value`; `lib.rs` is the
/// root, spelled "").
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_str()
        .unwrap();
    match first.strip_suffix(".rs") {
        Some("lib") => String::new(),
        Some(m) => m.to_string(),
        None => first.to_string(),
    }
}

/// The code of a file without comments and without its test module (by this crate's
/// convention the `#[cfg(test)] mod tests` comes last).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            // Other attributes may come between it and the module.
            let mut rest = lines.clone().map(str::trim_start);
            if rest
                .find(|l| !l.starts_with("#["))
                .is_some_and(|l| l.starts_with("mod "))
            {
                break;
            }
        }
        if t.starts_with("//") {
            continue;
        }
        // A trailing comment.
        let code = match line.find("// ") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The first path segment of each item a `crate::` path names: `crate::value::Map` gives
/// `value`, `crate::{Dynamic, value::Map}` gives `Dynamic` and `value`.
fn first_segments(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = code[from..].find("crate::") {
        let at = from + i;
        from = at + "crate::".len();
        if at > 0 {
            let before = bytes[at - 1];
            if before == b'$' || before == b'_' || before.is_ascii_alphanumeric() {
                continue;
            }
        }
        let rest = &code[from..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut end = 0;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let mut depth = 0;
            let mut item = String::new();
            for c in group[..end].chars().chain(std::iter::once(',')) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        let name: String = item
                            .trim()
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        if !name.is_empty() {
                            out.push(name);
                        }
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

#[test]
fn the_model_knows_no_wire_and_the_formats_not_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    assert!(modules.contains("msgpack") && modules.contains("value"));

    let mut problems = Vec::new();
    let mut imports = 0;
    for file in &files {
        let here = module_of(&src, file);
        let code = code_of(&fs::read_to_string(file).unwrap());
        let rel = file.strip_prefix(&src).unwrap().display().to_string();
        for seg in first_segments(&code) {
            imports += 1;
            if !modules.contains(&seg) || seg.is_empty() {
                if !here.is_empty() && seg != "__macro_support" {
                    problems.push(format!(
                        "{rel}: `crate::{seg}` goes through the crate root's re-exports; \
                         import it from the module that defines it"
                    ));
                }
                continue;
            }
            if seg == here || here.is_empty() {
                continue;
            }
            let (from, to) = (layer(&here), layer(&seg));
            let wrong = match from {
                Layer::Model => to != Layer::Model,
                Layer::Format => to == Layer::Upper || (to == Layer::Format && seg != here),
                Layer::Upper => false,
            };
            if wrong {
                problems.push(format!(
                    "{rel}: the {from:?} layer imports `crate::{seg}` ({to:?} layer)"
                ));
            }
            if VOCABULARY.contains(&here.as_str()) && TREE.contains(&seg.as_str()) {
                problems.push(format!(
                    "{rel}: the vocabulary imports `crate::{seg}`, the value tree above it"
                ));
            }
            if here == "text" {
                problems.push(format!(
                    "{rel}: the text rules are the bottom of the model, but import `crate::{seg}`"
                ));
            }
            if NO_WIRE.contains(&here.as_str()) && WIRE.contains(&seg.as_str()) {
                problems.push(format!(
                    "{rel}: `{here}` converts without a wire, but imports `crate::{seg}`"
                ));
            }
        }
    }
    assert!(
        imports > 100,
        "only {imports} `crate::` paths found: is the parser broken?"
    );
    assert!(
        problems.is_empty(),
        "{} imports break the layers:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The parser itself, on the shapes of paths the crate uses.
#[test]
fn paths_are_read_as_written() {
    let code = "use crate::{Dynamic, value::{Map, Value}, error::Error};\n\
                let x = crate::msgpack::to_vec(&v); $crate::Value; my_crate::x;";
    assert_eq!(
        first_segments(code),
        ["Dynamic", "value", "error", "msgpack"]
    );
    assert_eq!(
        code_of("a\n// crate::json\nb // crate::json\n#[cfg(test)]\n#[allow(x)]\nmod tests { crate::json }"),
        "a\nb \n"
    );
}
