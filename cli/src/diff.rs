//! Shows resource instances as `terraform state show` does, and planned changes as a
//! diff of before and after, as `terraform plan` does.

use serde_json::Value as Json;
use tfvalue::{Map, Value};

use crate::render::{unknown_text, BlockNesting, Mask};

/// How to show values.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub show_sensitive: bool,
}

/// Where values are sensitive: a plan's or state's marks (`true` where sensitive, with
/// objects and arrays around), and the schema's `sensitive` attributes.
#[derive(Clone, Copy, Default)]
pub struct Sens<'a> {
    pub marks: Option<&'a Json>,
    pub mask: Option<&'a Mask>,
}

impl<'a> Sens<'a> {
    fn is(&self) -> bool {
        self.marks == Some(&Json::Bool(true)) || self.mask.is_some_and(|m| m.sensitive)
    }
    /// The marks inside this place: all of it when the whole is marked sensitive.
    fn inner_marks(&self, get: impl FnOnce(&'a Json) -> Option<&'a Json>) -> Option<&'a Json> {
        match self.marks {
            Some(Json::Bool(true)) => Some(&SENSITIVE),
            Some(m) => get(m),
            None => None,
        }
    }
    fn attr(&self, k: &str) -> Sens<'a> {
        Sens {
            marks: self.inner_marks(|m| m.get(k)),
            mask: self.mask.and_then(|m| m.attrs.get(k)),
        }
    }
    fn key(&self, k: &str) -> Sens<'a> {
        Sens {
            marks: self.inner_marks(|m| m.get(k)),
            mask: self.mask.and_then(|m| m.elems.as_deref()),
        }
    }
    /// The nesting of the schema's block named `k` here, if `k` is a block.
    fn block(&self, k: &str) -> Option<BlockNesting> {
        self.mask.and_then(|m| m.attrs.get(k)).and_then(|m| m.block)
    }
    fn index(&self, i: usize) -> Sens<'a> {
        Sens {
            marks: self.inner_marks(|m| m.get(i)),
            mask: self.mask.and_then(|m| m.elems.as_deref()),
        }
    }
}

/// The mark of a sensitive place.
static SENSITIVE: Json = Json::Bool(true);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sym {
    Create,
    Delete,
    Update,
    Same,
}

impl Sym {
    fn text(self) -> (&'static str, &'static str) {
        match self {
            Sym::Create => ("+", GREEN),
            Sym::Delete => ("-", RED),
            Sym::Update => ("~", YELLOW),
            Sym::Same => (" ", ""),
        }
    }
}

const RESET: &str = "\x1b[0m";
const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";
const DIM: &str = "\x1b[2m";
const BOLD: &str = "\x1b[1m";

struct R<'a> {
    buf: String,
    style: Style,
    replace: &'a [Vec<Json>],
    path: Vec<Json>,
    /// Showing one value, not a change: everything is unchanged.
    same: bool,
}

/// Text from a file with its control characters escaped, so that printing it cannot drive
/// the terminal.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| c.is_control()) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// As [`printable`], for text of several lines: the newlines stay.
pub fn printable_lines(s: &str) -> String {
    s.split('\n')
        .map(|l| printable(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

fn quoted(s: &str) -> String {
    Json::from(s).to_string()
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '-')
}

/// An attribute name as HCL writes it, or a map key quoted.
fn label(k: &str, is_map: bool) -> String {
    if is_map || !is_ident(k) {
        quoted(k)
    } else {
        k.to_owned()
    }
}

fn inner(v: &Value) -> &Value {
    match v {
        Value::Dynamic(d) => inner(d.value()),
        v => v,
    }
}

fn entries(v: &Value) -> Option<(&Map, bool)> {
    match inner(v) {
        Value::Object(m) => Some((m, false)),
        Value::Map(m) => Some((m, true)),
        _ => None,
    }
}

/// The attributes of an object or entries of a map; `empty` for anything else.
fn fields<'v>(v: &'v Value, empty: &'v Map) -> &'v Map {
    entries(v).map_or(empty, |(m, _)| m)
}

fn items(v: &Value) -> Option<&[Value]> {
    match inner(v) {
        Value::List(x) | Value::Set(x) | Value::Tuple(x) => Some(x),
        _ => None,
    }
}

fn is_null(v: &Value) -> bool {
    inner(v).is_null()
}

impl R<'_> {
    fn paint(&mut self, color: &str, text: &str) {
        if self.style.color && !color.is_empty() {
            self.buf.push_str(color);
            self.buf.push_str(text);
            self.buf.push_str(RESET);
        } else {
            self.buf.push_str(text);
        }
    }

    fn spaces(&mut self, n: usize) {
        for _ in 0..n {
            self.buf.push(' ');
        }
    }

    /// Starts a line: the indentation, the action symbol and a space.
    fn start(&mut self, indent: usize, sym: Sym) {
        self.spaces(indent);
        let (s, c) = sym.text();
        self.paint(c, s);
        self.buf.push(' ');
    }

    fn forces_replacement(&self) -> bool {
        self.replace.iter().any(|p| p == &self.path)
    }

    fn mark_replacement(&mut self) {
        if self.forces_replacement() {
            self.paint(RED, " # forces replacement");
        }
    }

    /// A whole value, where the cursor stands after `name = `; nested lines carry `sym`.
    fn value(&mut self, v: &Value, sens: Sens<'_>, indent: usize, sym: Sym) {
        if sens.is() && !self.style.show_sensitive && !is_null(v) {
            self.paint(DIM, "(sensitive value)");
            return;
        }
        match inner(v) {
            Value::Null => self.paint(DIM, "null"),
            Value::Unknown(r) => self.paint(DIM, &unknown_text(r)),
            Value::Bool(b) => self.buf.push_str(&b.to_string()),
            Value::Number(n) => self.buf.push_str(&n.to_string()),
            // Multi-line text as a heredoc, as Terraform shows it.
            Value::String(s) if s.trim_end_matches('\n').contains('\n') => {
                self.buf.push_str("<<-EOT\n");
                for line in s.trim_end_matches('\n').split('\n') {
                    if !line.is_empty() {
                        self.spaces(indent + 6);
                        // Control characters stay escaped, so no value can drive the
                        // terminal.
                        for c in line.chars() {
                            if c.is_control() && c != '\t' {
                                self.buf.push_str(&format!("\\u{:04x}", u32::from(c)));
                            } else {
                                self.buf.push(c);
                            }
                        }
                    }
                    self.buf.push('\n');
                }
                self.spaces(indent + 2);
                self.buf.push_str("EOT");
            }
            Value::String(s) => self.buf.push_str(&quoted(s)),
            Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => {
                if xs.is_empty() {
                    self.buf.push_str("[]");
                    return;
                }
                self.buf.push_str("[\n");
                for (i, x) in xs.iter().enumerate() {
                    self.start(indent + 4, sym);
                    self.value(x, sens.index(i), indent + 4, sym);
                    self.buf.push_str(",\n");
                }
                self.spaces(indent + 2);
                self.buf.push(']');
            }
            Value::Map(m) | Value::Object(m) => {
                let is_map = matches!(inner(v), Value::Map(_));
                let shown: Vec<(&tfvalue::Key, &Value)> =
                    m.iter().filter(|(_, x)| is_map || !is_null(x)).collect();
                if shown.is_empty() {
                    self.buf.push_str("{}");
                    return;
                }
                self.buf.push_str("{\n");
                let labels: Vec<String> = shown.iter().map(|(k, _)| label(k, is_map)).collect();
                let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
                for ((k, x), l) in shown.iter().zip(&labels) {
                    self.start(indent + 4, sym);
                    self.paint(BOLD, l);
                    self.spaces(width - l.chars().count());
                    self.buf.push_str(" = ");
                    let s = if is_map { sens.key(k) } else { sens.attr(k) };
                    self.value(x, s, indent + 4, sym);
                    self.buf.push('\n');
                }
                self.spaces(indent + 2);
                self.buf.push('}');
            }
            Value::Dynamic(_) => {}
        }
    }

    /// One entry of an object, map or the resource itself. Returns false when it is
    /// unchanged and was hidden.
    #[allow(clippy::too_many_arguments)]
    fn entry(
        &mut self,
        indent: usize,
        name: &str,
        width: usize,
        b: &Value,
        bs: Sens<'_>,
        a: &Value,
        as_: Sens<'_>,
        show_unchanged: bool,
    ) -> bool {
        let pad = width.saturating_sub(name.chars().count());
        let (bnull, anull) = (is_null(b), is_null(a));
        if bnull && anull {
            return true;
        }
        let unchanged = self.same || (b == a && b.is_wholly_known() && bs.is() == as_.is());
        if unchanged && !show_unchanged {
            return false;
        }
        let sym = if unchanged {
            Sym::Same
        } else if bnull {
            Sym::Create
        } else if anull {
            Sym::Delete
        } else {
            Sym::Update
        };
        self.start(indent, sym);
        self.paint(BOLD, name);
        self.spaces(pad);
        self.buf.push_str(" = ");
        match sym {
            Sym::Same | Sym::Create => {
                let (v, s) = if bnull { (a, as_) } else { (b, bs) };
                self.value(v, s, indent, sym);
                self.mark_replacement();
            }
            Sym::Delete => {
                self.value(b, bs, indent, sym);
                self.buf.push_str(" -> null");
                self.mark_replacement();
            }
            Sym::Update => self.update(indent, b, bs, a, as_),
        }
        self.buf.push('\n');
        true
    }

    fn update(&mut self, indent: usize, b: &Value, bs: Sens<'_>, a: &Value, as_: Sens<'_>) {
        let hide = !self.style.show_sensitive;
        if hide && (bs.is() || as_.is()) {
            self.paint(DIM, "(sensitive value)");
            self.mark_replacement();
            return;
        }
        if let (Some((bm, bmap)), Some((am, amap))) = (entries(b), entries(a)) {
            if bmap == amap {
                self.buf.push('{');
                self.mark_replacement();
                self.buf.push('\n');
                self.entries(indent + 4, bm, bs, am, as_, bmap, false);
                self.spaces(indent + 2);
                self.buf.push('}');
                return;
            }
        }
        if let (Some(bx), Some(ax)) = (items(b), items(a)) {
            self.buf.push('[');
            self.mark_replacement();
            self.buf.push('\n');
            self.seq(indent + 4, bx, bs, ax, as_);
            self.spaces(indent + 2);
            self.buf.push(']');
            return;
        }
        self.value(b, bs, indent, Sym::Delete);
        self.buf.push_str(" -> ");
        self.value(a, as_, indent, Sym::Create);
        self.mark_replacement();
    }

    /// The entries of two objects or maps, changed ones shown and the rest counted.
    #[allow(clippy::too_many_arguments)]
    fn entries(
        &mut self,
        indent: usize,
        bm: &Map,
        bs: Sens<'_>,
        am: &Map,
        as_: Sens<'_>,
        is_map: bool,
        show_all: bool,
    ) {
        let null = Value::Null;
        let mut keys: Vec<&tfvalue::Key> = bm.keys().chain(am.keys()).collect();
        keys.sort();
        keys.dedup();
        let keys: Vec<&tfvalue::Key> = keys
            .into_iter()
            .filter(|k| {
                !(is_null(bm.get(k).unwrap_or(&null)) && is_null(am.get(k).unwrap_or(&null)))
            })
            .collect();
        let nesting = |k: &str| {
            if is_map {
                None
            } else {
                as_.block(k).or_else(|| bs.block(k))
            }
        };
        let (blocks, keys): (Vec<&tfvalue::Key>, Vec<&tfvalue::Key>) =
            keys.into_iter().partition(|k| nesting(k).is_some());
        let labels: Vec<String> = keys.iter().map(|k| label(k, is_map)).collect();
        let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let mut hidden = 0;
        for (k, l) in keys.iter().zip(&labels) {
            let (kb, ka) = if is_map {
                (bs.key(k), as_.key(k))
            } else {
                (bs.attr(k), as_.attr(k))
            };
            self.path.push(Json::from(k.as_str()));
            let identifying =
                !is_map && self.path.len() == 1 && matches!(k.as_str(), "id" | "name");
            let shown = self.entry(
                indent,
                l,
                width,
                bm.get(k).unwrap_or(&null),
                kb,
                am.get(k).unwrap_or(&null),
                ka,
                show_all || identifying,
            );
            self.path.pop();
            if !shown {
                hidden += 1;
            }
        }
        if hidden > 0 {
            self.spaces(indent + 2);
            let what = match (is_map, hidden) {
                (true, 1) => "element",
                (true, _) => "elements",
                (false, 1) => "attribute",
                (false, _) => "attributes",
            };
            self.paint(DIM, &format!("# ({hidden} unchanged {what} hidden)"));
            self.buf.push('\n');
        }
        let mut hidden_blocks = 0;
        for k in blocks {
            let Some(n) = nesting(k) else { continue };
            self.path.push(Json::from(k.as_str()));
            hidden_blocks += self.blocks(
                indent,
                k,
                n,
                bm.get(k).unwrap_or(&null),
                bs.attr(k),
                am.get(k).unwrap_or(&null),
                as_.attr(k),
                show_all,
            );
            self.path.pop();
        }
        if hidden_blocks > 0 {
            self.spaces(indent + 2);
            let s = if hidden_blocks == 1 { "" } else { "s" };
            self.paint(
                DIM,
                &format!("# ({hidden_blocks} unchanged block{s} hidden)"),
            );
            self.buf.push('\n');
        }
    }

    /// The objects of a nested block, each as `name { ... }`; returns how many were
    /// unchanged and hidden.
    #[allow(clippy::too_many_arguments)]
    fn blocks(
        &mut self,
        indent: usize,
        name: &str,
        nesting: BlockNesting,
        b: &Value,
        bs: Sens<'_>,
        a: &Value,
        as_: Sens<'_>,
        show_all: bool,
    ) -> usize {
        let null = Value::Null;
        let mut hidden = 0;
        match nesting {
            BlockNesting::Single => {
                hidden += usize::from(!self.block_one(indent, name, b, bs, a, as_, show_all));
            }
            BlockNesting::Map => {
                let empty = Map::new();
                let bm = entries(b).map_or(&empty, |(m, _)| m);
                let am = entries(a).map_or(&empty, |(m, _)| m);
                let mut keys: Vec<&tfvalue::Key> = bm.keys().chain(am.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    self.path.push(Json::from(k.as_str()));
                    let l = format!("{name} {}", quoted(k));
                    let (vb, va) = (bm.get(k).unwrap_or(&null), am.get(k).unwrap_or(&null));
                    let shown = self.block_one(indent, &l, vb, bs.key(k), va, as_.key(k), show_all);
                    self.path.pop();
                    hidden += usize::from(!shown);
                }
            }
            BlockNesting::List => {
                let bx = items(b).unwrap_or(&[]);
                let ax = items(a).unwrap_or(&[]);
                let ops = lcs(bx, ax);
                let mut k = 0;
                while k < ops.len() {
                    let (i, j) = match ops[k] {
                        Op::Same(i, j) => (Some(i), Some(j)),
                        Op::Del(i) => match ops.get(k + 1) {
                            Some(&Op::Ins(j)) => {
                                k += 1;
                                (Some(i), Some(j))
                            }
                            _ => (Some(i), None),
                        },
                        Op::Ins(j) => (None, Some(j)),
                    };
                    k += 1;
                    let vb = i.map_or(&null, |i| &bx[i]);
                    let va = j.map_or(&null, |j| &ax[j]);
                    let sb = i.map_or(Sens::default(), |i| bs.index(i));
                    let sa = j.map_or(Sens::default(), |j| as_.index(j));
                    self.path.push(Json::from(j.or(i).unwrap_or(0)));
                    let shown = self.block_one(indent, name, vb, sb, va, sa, show_all);
                    self.path.pop();
                    hidden += usize::from(!shown);
                }
            }
        }
        hidden
    }

    /// One object of a nested block. Returns false when it is unchanged and was hidden.
    #[allow(clippy::too_many_arguments)]
    fn block_one(
        &mut self,
        indent: usize,
        label: &str,
        b: &Value,
        bs: Sens<'_>,
        a: &Value,
        as_: Sens<'_>,
        show_all: bool,
    ) -> bool {
        let (bnull, anull) = (is_null(b), is_null(a));
        if bnull && anull {
            return true;
        }
        let unchanged = self.same || (b == a && b.is_wholly_known());
        if unchanged && !show_all {
            return false;
        }
        let sym = if unchanged {
            Sym::Same
        } else if bnull {
            Sym::Create
        } else if anull {
            Sym::Delete
        } else {
            Sym::Update
        };
        self.start(indent, sym);
        self.paint(BOLD, label);
        self.buf.push_str(" {");
        self.mark_replacement();
        self.buf.push('\n');
        if (bs.is() || as_.is()) && !self.style.show_sensitive {
            self.spaces(indent + 4);
            self.paint(
                DIM,
                "# At least one attribute in this block is (or was) sensitive,",
            );
            self.buf.push('\n');
            self.spaces(indent + 4);
            self.paint(DIM, "# so its contents will not be displayed.");
            self.buf.push('\n');
        } else {
            let empty = Map::new();
            let (bm, am) = match sym {
                Sym::Same => {
                    let m = fields(if bnull { a } else { b }, &empty);
                    (m, m)
                }
                _ => (fields(b, &empty), fields(a, &empty)),
            };
            self.entries(
                indent + 4,
                bm,
                bs,
                am,
                as_,
                false,
                show_all || sym != Sym::Update,
            );
        }
        self.spaces(indent + 2);
        self.buf.push_str("}\n");
        true
    }

    /// The elements of two sequences: a longest-common-subsequence diff, with an element
    /// removed and one added at the same place shown as an update when both are objects.
    fn seq(&mut self, indent: usize, bx: &[Value], bs: Sens<'_>, ax: &[Value], as_: Sens<'_>) {
        let ops = lcs(bx, ax);
        let mut hidden = 0;
        let mut k = 0;
        while k < ops.len() {
            match ops[k] {
                Op::Same(i, j) => {
                    if bs.index(i).is() == as_.index(j).is() {
                        hidden += 1;
                    } else {
                        self.element(
                            indent,
                            Sym::Update,
                            &bx[i],
                            bs.index(i),
                            &ax[j],
                            as_.index(j),
                            j,
                        );
                    }
                }
                Op::Del(i) => {
                    if let Some(&Op::Ins(j)) = ops.get(k + 1) {
                        if entries(&bx[i]).is_some() && entries(&ax[j]).is_some() {
                            self.element(
                                indent,
                                Sym::Update,
                                &bx[i],
                                bs.index(i),
                                &ax[j],
                                as_.index(j),
                                j,
                            );
                            k += 2;
                            continue;
                        }
                    }
                    self.element(
                        indent,
                        Sym::Delete,
                        &bx[i],
                        bs.index(i),
                        &Value::Null,
                        Sens::default(),
                        i,
                    );
                }
                Op::Ins(j) => {
                    self.element(
                        indent,
                        Sym::Create,
                        &Value::Null,
                        Sens::default(),
                        &ax[j],
                        as_.index(j),
                        j,
                    );
                }
            }
            k += 1;
        }
        if hidden > 0 {
            self.spaces(indent + 2);
            let s = if hidden == 1 { "" } else { "s" };
            self.paint(DIM, &format!("# ({hidden} unchanged element{s} hidden)"));
            self.buf.push('\n');
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn element(
        &mut self,
        indent: usize,
        sym: Sym,
        b: &Value,
        bs: Sens<'_>,
        a: &Value,
        as_: Sens<'_>,
        index: usize,
    ) {
        self.path.push(Json::from(index));
        self.start(indent, sym);
        match sym {
            Sym::Create => self.value(a, as_, indent, sym),
            Sym::Delete => self.value(b, bs, indent, sym),
            _ => self.update(indent, b, bs, a, as_),
        }
        self.buf.push_str(",\n");
        self.path.pop();
    }
}

enum Op {
    Same(usize, usize),
    Del(usize),
    Ins(usize),
}

/// The longest common subsequence of two short sequences, as edit operations. Long
/// sequences (over 2000 elements either side) are diffed as all removed and all added,
/// to keep the table small.
fn lcs(b: &[Value], a: &[Value]) -> Vec<Op> {
    let (n, m) = (b.len(), a.len());
    if n > 2000 || m > 2000 || n.saturating_mul(m) > 1_000_000 {
        let mut ops: Vec<Op> = (0..n).map(Op::Del).collect();
        ops.extend((0..m).map(Op::Ins));
        return ops;
    }
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[at(i, j)] = if b[i] == a[j] && b[i].is_wholly_known() {
                t[at(i + 1, j + 1)] + 1
            } else {
                t[at(i + 1, j)].max(t[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::new();
    while i < n && j < m {
        if b[i] == a[j] && b[i].is_wholly_known() {
            ops.push(Op::Same(i, j));
            i += 1;
            j += 1;
        } else if t[at(i + 1, j)] >= t[at(i, j + 1)] {
            ops.push(Op::Del(i));
            i += 1;
        } else {
            ops.push(Op::Ins(j));
            j += 1;
        }
    }
    ops.extend((i..n).map(Op::Del));
    ops.extend((j..m).map(Op::Ins));
    ops
}

/// What a resource block is called: `resource "t" "n"` or `data "t" "n"`.
pub struct Header<'a> {
    pub data: bool,
    pub type_name: &'a str,
    pub name: &'a str,
}

impl Header<'_> {
    fn block(&self) -> String {
        let kw = if self.data { "data" } else { "resource" };
        format!("{kw} {} {}", quoted(self.type_name), quoted(self.name))
    }
}

/// An instance as `terraform state show` prints it.
pub fn show_instance(
    label: &str,
    header: &Header<'_>,
    v: &Value,
    sens: Sens<'_>,
    style: Style,
) -> String {
    let mut r = R {
        buf: String::new(),
        style,
        replace: &[],
        path: Vec::new(),
        same: true,
    };
    r.paint(DIM, &format!("# {}:", printable(label)));
    r.buf.push('\n');
    r.buf.push_str(&header.block());
    r.buf.push(' ');
    let empty = Map::new();
    let m = entries(v).map_or(&empty, |(m, _)| m);
    if entries(v).is_none() && !is_null(v) {
        // Not an object (a state never holds such a thing, but a value may).
        r.value(v, sens, 0, Sym::Same);
        r.buf.push('\n');
        return r.buf;
    }
    r.buf.push_str("{\n");
    r.entries(2, m, sens, m, sens, false, true);
    r.buf.push_str("}\n");
    r.buf
}

/// A planned change as `terraform plan` prints it.
#[allow(clippy::too_many_arguments)]
pub fn show_change(
    label: &str,
    header: &Header<'_>,
    action: &str,
    reason: Option<&str>,
    importing: Option<&str>,
    before: &Value,
    bs: Sens<'_>,
    after: &Value,
    as_: Sens<'_>,
    replace_paths: &[Vec<Json>],
    style: Style,
) -> String {
    let mut r = R {
        buf: String::new(),
        style,
        replace: replace_paths,
        path: Vec::new(),
        same: false,
    };
    let (what, sym, color) = match action {
        "create" => ("will be created", "  +", GREEN),
        "update" => ("will be updated in-place", "  ~", YELLOW),
        "delete" => ("will be destroyed", "  -", RED),
        "replace" => ("must be replaced", "-/+", RED),
        "replace (create first)" => ("must be replaced", "+/-", RED),
        "read" => ("will be read during apply", " <=", CYAN),
        "forget" => (
            "will be removed from the state, but not destroyed",
            "  .",
            DIM,
        ),
        _ if importing.is_some() => ("will be imported", "   ", ""),
        _ => ("is unchanged", "   ", ""),
    };
    let what = match reason {
        Some("replace_because_tainted") => "is tainted, so must be replaced",
        Some("replace_by_request") => "will be replaced, as requested",
        Some("replace_because_cannot_update") => "must be replaced",
        _ => what,
    };
    let label = printable(label);
    r.paint(BOLD, &format!("  # {label} {what}"));
    r.buf.push('\n');
    match reason {
        Some("delete_because_no_resource_config") => {
            r.buf
                .push_str(&format!("  # (because {label} is not in configuration)\n"));
        }
        Some("delete_because_count_index" | "delete_because_each_key") => {
            r.buf.push_str(&format!(
                "  # (because index {label} is out of range for count or for_each)\n"
            ));
        }
        _ => {}
    }
    match importing {
        Some(id) if !id.is_empty() && what != "will be imported" => {
            r.buf
                .push_str(&format!("  # (imported from {})\n", printable(&quoted(id))));
        }
        _ => {}
    }
    r.paint(color, sym);
    r.buf.push(' ');
    r.buf.push_str(&header.block());
    r.buf.push_str(" {\n");
    let empty = Map::new();
    let bm = entries(before).map_or(&empty, |(m, _)| m);
    let am = entries(after).map_or(&empty, |(m, _)| m);
    let show_all = !matches!(action, "update" | "replace" | "replace (create first)");
    r.entries(6, bm, bs, am, as_, false, show_all);
    r.buf.push_str("    }\n");
    r.buf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(pairs: &[(&str, Value)]) -> Value {
        Value::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn multi_line_strings_are_heredocs() {
        let style = Style {
            color: false,
            show_sensitive: false,
        };
        let h = Header {
            data: false,
            type_name: "t",
            name: "n",
        };
        let a = obj(&[("script", "#!/bin/sh\n\necho hi\x1b[2J\n".into())]);
        let out = show_change(
            "t.n",
            &h,
            "create",
            None,
            None,
            &Value::Null,
            Sens::default(),
            &a,
            Sens::default(),
            &[],
            style,
        );
        assert_eq!(
            out,
            "  # t.n will be created\n  + resource \"t\" \"n\" {\n      + script = <<-EOT\n            #!/bin/sh\n\n            echo hi\\u001b[2J\n        EOT\n    }\n"
        );
    }

    #[test]
    fn a_wholly_sensitive_value_masks_every_attribute() {
        let style = Style {
            color: false,
            show_sensitive: false,
        };
        let v = obj(&[("a", "secret".into()), ("b", Value::List(vec!["x".into()]))]);
        let h = Header {
            data: false,
            type_name: "t",
            name: "n",
        };
        let marks = Json::Bool(true);
        let sens = Sens {
            marks: Some(&marks),
            mask: None,
        };
        let out = show_instance("t.n", &h, &v, sens, style);
        assert_eq!(
            out,
            "# t.n:\nresource \"t\" \"n\" {\n    a = (sensitive value)\n    b = (sensitive value)\n}\n"
        );
    }

    #[test]
    fn update_shows_changes_and_hides_the_rest() {
        let style = Style {
            color: false,
            show_sensitive: false,
        };
        let b = obj(&[
            ("id", "a".into()),
            ("size", "small".into()),
            ("zone", "z1".into()),
            ("ports", Value::List(vec![80.into(), 443.into()])),
        ]);
        let a = obj(&[
            ("id", "a".into()),
            ("size", "large".into()),
            ("zone", "z1".into()),
            ("ports", Value::List(vec![80.into(), 8443.into()])),
        ]);
        let h = Header {
            data: false,
            type_name: "t",
            name: "n",
        };
        let replace = vec![vec![Json::from("size")]];
        let out = show_change(
            "t.n",
            &h,
            "replace",
            None,
            None,
            &b,
            Sens::default(),
            &a,
            Sens::default(),
            &replace,
            style,
        );
        let want = "  # t.n must be replaced
-/+ resource \"t\" \"n\" {
        id    = \"a\"
      ~ ports = [
          - 443,
          + 8443,
            # (1 unchanged element hidden)
        ]
      ~ size  = \"small\" -> \"large\" # forces replacement
        # (1 unchanged attribute hidden)
    }
";
        assert_eq!(out, want);
    }
}
