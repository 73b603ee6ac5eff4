//! Prints a value as an indented tree, the way `terraform plan` shows values.

use std::collections::BTreeMap;
use std::fmt::Write;

use tfvalue::{Refinements, Type, Value};

/// Which attributes are sensitive: a tree that mirrors the value's attributes.
#[derive(Clone, Debug, Default)]
pub struct Mask {
    /// The whole value at this place is sensitive.
    pub sensitive: bool,
    /// Attributes of an object at this place.
    pub attrs: BTreeMap<String, Mask>,
    /// Elements of a collection at this place.
    pub elems: Option<Box<Mask>>,
    /// A nested block of the schema is at this place (shown as `name { ... }` in plans).
    pub block: Option<BlockNesting>,
}

/// How a nested block holds its objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockNesting {
    /// One object (`single`, `group`).
    Single,
    /// A list or set of objects.
    List,
    /// A map of objects, by key.
    Map,
}

impl Mask {
    fn attr(&self, name: &str) -> Option<&Mask> {
        self.attrs.get(name)
    }
}

/// How to render.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub show_sensitive: bool,
}

const RESET: &str = "\x1b[0m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const MAGENTA: &str = "\x1b[35m";
const DIM: &str = "\x1b[2m";
const YELLOW: &str = "\x1b[33m";
const RED: &str = "\x1b[31m";
const BOLD: &str = "\x1b[1m";

struct Out<'a> {
    buf: String,
    style: Style,
    _life: std::marker::PhantomData<&'a ()>,
}

impl Out<'_> {
    fn paint(&mut self, color: &str, text: &str) {
        if self.style.color {
            self.buf.push_str(color);
            self.buf.push_str(text);
            self.buf.push_str(RESET);
        } else {
            self.buf.push_str(text);
        }
    }

    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.buf.push_str("  ");
        }
    }
}

/// The words Terraform uses for an unknown: `(known after apply, not null, prefix "arn:")`.
pub fn unknown_text(r: &Refinements) -> String {
    if r.is_empty() {
        "(known after apply)".to_owned()
    } else {
        format!("(known after apply, {r})")
    }
}

/// Renders `value` of type `ty`.
pub fn render(value: &Value, ty: &Type, mask: &Mask, style: Style) -> String {
    let mut out = Out {
        buf: String::new(),
        style,
        _life: std::marker::PhantomData,
    };
    node(&mut out, value, Some(ty), Some(mask), 0);
    out.buf.push('\n');
    out.buf
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '-')
}

fn node(out: &mut Out<'_>, value: &Value, ty: Option<&Type>, mask: Option<&Mask>, level: usize) {
    if mask.is_some_and(|m| m.sensitive) && !out.style.show_sensitive && !value.is_null() {
        out.paint(RED, "(sensitive value)");
        return;
    }
    match value {
        Value::Null => out.paint(DIM, "null"),
        Value::Unknown(r) => out.paint(YELLOW, &unknown_text(r)),
        Value::Bool(b) => out.paint(MAGENTA, &b.to_string()),
        Value::Number(n) => out.paint(CYAN, &n.to_string()),
        Value::String(s) => out.paint(GREEN, &quoted(s)),
        Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
            let kind = match value {
                Value::List(_) => "list",
                Value::Set(_) => "set",
                _ => "tuple",
            };
            if vs.is_empty() {
                out.paint(DIM, kind);
                out.buf.push_str(" []");
                return;
            }
            out.paint(DIM, kind);
            out.buf.push_str(" [\n");
            let elem_mask = mask.and_then(|m| m.elems.as_deref());
            for (i, v) in vs.iter().enumerate() {
                let t = match ty {
                    Some(Type::Tuple(ts)) => ts.get(i),
                    Some(t) => t.element_type(),
                    None => None,
                };
                out.indent(level + 1);
                node(out, v, t, elem_mask, level + 1);
                out.buf.push_str(",\n");
            }
            out.indent(level);
            out.buf.push(']');
        }
        Value::Map(m) | Value::Object(m) => {
            let is_map = matches!(value, Value::Map(_));
            let label = if is_map { "map" } else { "object" };
            if m.is_empty() {
                out.paint(DIM, label);
                out.buf.push_str(" {}");
                return;
            }
            out.paint(DIM, label);
            out.buf.push_str(" {\n");
            let names: Vec<String> = m
                .keys()
                .map(|k| {
                    if is_map || !is_ident(k) {
                        quoted(k)
                    } else {
                        k.to_string()
                    }
                })
                .collect();
            let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
            for ((k, v), name) in m.iter().zip(&names) {
                let t = match ty {
                    Some(Type::Object(o)) => o.get(k),
                    Some(t) => t.element_type(),
                    None => None,
                };
                let child_mask = if is_map {
                    mask.and_then(|m| m.elems.as_deref())
                } else {
                    mask.and_then(|m| m.attr(k))
                };
                out.indent(level + 1);
                out.paint(BOLD, name);
                let pad = width - name.chars().count();
                let _ = write!(out.buf, "{:pad$} = ", "");
                node(out, v, t, child_mask, level + 1);
                out.buf.push('\n');
            }
            out.indent(level);
            out.buf.push('}');
        }
        Value::Dynamic(d) => {
            out.paint(DIM, &crate::diff::printable(&format!("<{}> ", d.ty())));
            node(out, d.value(), Some(d.ty()), mask, level);
        }
    }
}

/// The sensitive attributes of a schema block, as a [`Mask`].
pub fn mask_for_block(block: &tfvalue::schema::Block) -> Mask {
    use tfvalue::schema::{AttributeType, NestingMode};
    let mut m = Mask::default();
    for (name, attr) in &block.attributes {
        let mut am = Mask {
            sensitive: attr.sensitive,
            ..Mask::default()
        };
        if let AttributeType::Nested(nt) = &attr.ty {
            let mut inner = Mask::default();
            for (n, a) in &nt.attributes {
                inner.attrs.insert(
                    n.clone(),
                    Mask {
                        sensitive: a.sensitive,
                        ..Mask::default()
                    },
                );
            }
            if nt.nesting == tfvalue::schema::ObjectNesting::Single {
                am.attrs = inner.attrs;
            } else {
                am.elems = Some(Box::new(inner));
            }
        }
        m.attrs.insert(name.clone(), am);
    }
    for (name, nb) in &block.block_types {
        let inner = mask_for_block(&nb.block);
        let bm = match nb.nesting {
            NestingMode::Single | NestingMode::Group => Mask {
                block: Some(BlockNesting::Single),
                ..inner
            },
            NestingMode::Map => Mask {
                elems: Some(Box::new(inner)),
                block: Some(BlockNesting::Map),
                ..Mask::default()
            },
            _ => Mask {
                elems: Some(Box::new(inner)),
                block: Some(BlockNesting::List),
                ..Mask::default()
            },
        };
        m.attrs.insert(name.clone(), bm);
    }
    m
}
