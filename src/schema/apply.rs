//! The plan/apply consistency check: "Provider produced inconsistent result after apply".

use super::diagnostics::{Diagnostic, DiagnosticKind, Diagnostics};
use super::render::show;
use super::validate::kind_of;
use super::{Attribute, AttributeType, Block, NestedBlock, NestingMode};
use crate::path::{AttributePath, PathStep};
use crate::text::nfc;
use crate::types::Type;
use crate::value::{equal_hash_runs, sorted_refs, Fold, Value};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::hash::Hash;

/// Lists every place where `applied`, the value a provider returned from apply, breaks
/// `planned`, the value it planned, both of type `ty`.
///
/// This is Terraform's `AssertObjectCompatible` check, whose failures it reports as
/// "Provider produced inconsistent result after apply". The rules:
///
/// - A known planned value stays as planned ([`DiagnosticKind::Changed`]): primitives
///   are equal (strings compared in NFC, numbers by value), null stays null and non-null
///   stays non-null, list, tuple and map elements neither vanish nor appear, every object
///   attribute is checked, and every element of a planned set correlates with some
///   element of the final set and back, which may have fewer elements (equal values
///   merge) but not more. A `dynamic` value keeps its planned type.
/// - An unknown planned value resolves within its refinements
///   ([`DiagnosticKind::Refinement`], see [`Refinements::admits`](crate::Refinements::admits)):
///   not null when refined so, the string prefix, the number bounds, the collection
///   length bounds. An unknown of type `dynamic` may become anything.
/// - Nothing in the final value is unknown ([`DiagnosticKind::StillUnknown`]).
///
/// Use [`Block::check_apply`] when the schema is at hand: it also hides the values of
/// sensitive attributes in messages and applies the block rules.
///
/// ```
/// use tfvalue::schema::{check_apply, DiagnosticKind};
/// use tfvalue::{Refinements, Type, Value};
///
/// let ty: Type = serde_json::from_str(r#"["object",{"arn":"string","name":"string"}]"#)?;
/// let planned = Value::Object([
///     ("arn".to_owned(), Value::Unknown(Refinements::new().not_null().with_prefix("arn:aws:s3:::"))),
///     ("name".to_owned(), Value::from("logs")),
/// ].into());
/// let applied = Value::Object([
///     ("arn".to_owned(), Value::from("arn:aws:iam::123:role/logs")),
///     ("name".to_owned(), Value::from("logs-2")),
/// ].into());
///
/// let diags = check_apply(&planned, &applied, &ty);
/// let found: Vec<String> = diags.iter().map(ToString::to_string).collect();
/// assert_eq!(found, [
///     r#"Provider produced inconsistent result after apply: final value "arn:aws:iam::123:role/logs" does not start with the refined prefix "arn:aws:s3:::" at arn"#,
///     r#"Provider produced inconsistent result after apply: was "logs", but now "logs-2" at name"#,
/// ]);
/// assert_eq!(diags[0].kind(), DiagnosticKind::Refinement);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_apply(planned: &Value, applied: &Value, ty: &Type) -> Diagnostics {
    let mut c = Checker::new();
    c.value(planned, applied, ty);
    c.out
}

impl Block {
    /// As [`check_apply`] with the block's implied type, following the schema as
    /// Terraform does:
    ///
    /// - a problem inside a sensitive attribute is reported once, as "inconsistent values
    ///   for sensitive attribute", without the values;
    /// - the root object, and `SINGLE` and `GROUP` blocks, are "absent" or "present"; an
    ///   unknown planned `SINGLE` block may turn out absent;
    /// - `LIST` blocks keep their count, `MAP` blocks their keys (new keys may appear only
    ///   where the planned map was unknown), and `SET` blocks correlate element by element
    ///   and never grow.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new().attribute("password", Attribute::required(Type::String).sensitive());
    /// let obj = |s: &str| Value::Object([("password".to_owned(), Value::from(s))].into());
    /// let diags = block.check_apply(&obj("hunter2"), &obj("hunter3"));
    /// assert_eq!(diags.to_string(), "Provider produced inconsistent result after apply: inconsistent values for sensitive attribute at password");
    /// ```
    pub fn check_apply(&self, planned: &Value, applied: &Value) -> Diagnostics {
        let mut c = Checker::new();
        c.object(self, planned, applied, None);
        c.out
    }
}

/// A step of the path being checked, its name borrowed from the values or the schema:
/// the path is only written out for a problem.
enum Step<'v> {
    Attr(Cow<'v, str>),
    Key(&'v str),
    Index(u64),
}

struct Checker<'v> {
    path: Vec<Step<'v>>,
    out: Diagnostics,
    depth: usize,
}

impl<'v> Checker<'v> {
    fn new() -> Self {
        Checker {
            path: Vec::new(),
            out: Diagnostics::new(),
            depth: 0,
        }
    }

    fn problem(&mut self, kind: DiagnosticKind, message: impl Into<String>) {
        let path: AttributePath = self
            .path
            .iter()
            .map(|s| match s {
                Step::Attr(n) => PathStep::Attr(n.to_string()),
                Step::Key(k) => PathStep::Key((*k).to_owned()),
                Step::Index(i) => PathStep::Index(*i),
            })
            .collect();
        self.out.push(Diagnostic::new(kind, path, message));
    }

    fn enter(&mut self, step: Step<'v>) -> bool {
        self.path.push(step);
        self.depth += 1;
        if self.depth > crate::limits::DEFAULT_MAX_DEPTH {
            self.problem(
                DiagnosticKind::Type,
                "nesting is deeper than the limit of 128",
            );
            self.leave();
            return false;
        }
        true
    }

    fn leave(&mut self) {
        self.path.pop();
        self.depth -= 1;
    }

    /// Runs `f` at the same place and returns what it found instead of keeping it.
    fn probe(&mut self, f: impl FnOnce(&mut Checker<'v>)) -> Diagnostics {
        let kept = std::mem::take(&mut self.out);
        f(self);
        std::mem::replace(&mut self.out, kept)
    }

    fn absorb(&mut self, found: Diagnostics) {
        for d in found {
            self.out.push(d);
        }
    }

    /// Reports every unknown left in a final value.
    fn still_unknown(&mut self, a: &'v Value) {
        match a {
            Value::Unknown(_) => {
                self.problem(DiagnosticKind::StillUnknown, "final value is still unknown")
            }
            Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
                for (i, e) in vs.iter().enumerate() {
                    if !e.is_wholly_known() && self.enter(Step::Index(i as u64)) {
                        self.still_unknown(e);
                        self.leave();
                    }
                }
            }
            Value::Map(m) => {
                for (k, e) in m {
                    if !e.is_wholly_known() && self.enter(Step::Key(k.as_str())) {
                        self.still_unknown(e);
                        self.leave();
                    }
                }
            }
            Value::Object(m) => {
                for (k, e) in m {
                    if !e.is_wholly_known() && self.enter(Step::Attr(Cow::Borrowed(k.as_str()))) {
                        self.still_unknown(e);
                        self.leave();
                    }
                }
            }
            Value::Dynamic(d) => self.still_unknown(d.value()),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }

    fn value(&mut self, p: &'v Value, a: &'v Value, ty: &Type) {
        if let Value::Unknown(r) = p {
            if a.is_unknown() {
                return self.problem(DiagnosticKind::StillUnknown, "final value is still unknown");
            }
            if *ty != Type::Dynamic {
                for v in r.violations(a) {
                    self.problem(DiagnosticKind::Refinement, format!("final value {v}"));
                }
            }
            return self.still_unknown(a);
        }
        if a.is_unknown() {
            return self.problem(DiagnosticKind::StillUnknown, "was known, but now unknown");
        }
        match (p, a) {
            (Value::Null, Value::Null) => return,
            (Value::Null, _) => {
                return self.problem(
                    DiagnosticKind::Changed,
                    format!("was null, but now {}", show(a)),
                )
            }
            (_, Value::Null) => {
                return self.problem(
                    DiagnosticKind::Changed,
                    format!("was {}, but now null", show(p)),
                )
            }
            _ => {}
        }
        match (p, a, ty) {
            (Value::Dynamic(pd), Value::Dynamic(ad), Type::Dynamic) => {
                if pd.ty() != ad.ty() {
                    return self.problem(
                        DiagnosticKind::Changed,
                        format!(
                            "wrong final value type: planned {}, found {}",
                            pd.ty(),
                            ad.ty()
                        ),
                    );
                }
                self.value(pd.value(), ad.value(), pd.ty());
            }
            (Value::String(x), Value::String(y), _) => {
                // Equal bytes are equal in NFC too: normalized only when they differ.
                if x != y && nfc(x) != nfc(y) {
                    self.problem(
                        DiagnosticKind::Changed,
                        format!("was {}, but now {}", show(p), show(a)),
                    );
                }
            }
            (Value::Number(x), Value::Number(y), _) if x != y => {
                self.problem(DiagnosticKind::Changed, format!("was {x}, but now {y}"));
            }
            (Value::Bool(x), Value::Bool(y), _) if x != y => {
                self.problem(DiagnosticKind::Changed, format!("was {x}, but now {y}"));
            }
            (Value::Number(_), Value::Number(_), _) | (Value::Bool(_), Value::Bool(_), _) => {}
            (Value::List(ps), Value::List(xs), Type::List(t)) => self.sequence(ps, xs, |_| t),
            (Value::Tuple(ps), Value::Tuple(xs), Type::Tuple(ts)) => {
                self.sequence(ps, xs, |i| ts.get(i).unwrap_or(&Type::Dynamic));
            }
            (Value::Map(pm), Value::Map(am), Type::Map(t)) => {
                for (k, pv) in pm {
                    if self.enter(Step::Key(k.as_str())) {
                        match am.get(k) {
                            Some(av) => self.value(pv, av, t),
                            None => self.problem(DiagnosticKind::Changed, "element has vanished"),
                        }
                        self.leave();
                    }
                }
                for k in am.keys().filter(|k| !pm.contains_key(k)) {
                    if self.enter(Step::Key(k.as_str())) {
                        self.problem(DiagnosticKind::Changed, "new element has appeared");
                        self.leave();
                    }
                }
            }
            (Value::Object(pm), Value::Object(am), Type::Object(o)) => {
                for (name, t) in o.attributes() {
                    let (pe, ae) = (pm.get_key_value(name), am.get_key_value(name));
                    // The name as the values hold it, which outlives the type.
                    let step = match pe.or(ae) {
                        Some((k, _)) => Cow::Borrowed(k.as_str()),
                        None => Cow::Owned(name.clone()),
                    };
                    if self.enter(Step::Attr(step)) {
                        match (pe.map(|e| e.1), ae.map(|e| e.1)) {
                            (Some(pv), Some(av)) => self.value(pv, av, t),
                            (None, None) => {}
                            (Some(_), None) => self.problem(
                                DiagnosticKind::Type,
                                "attribute missing from the final value",
                            ),
                            (None, Some(_)) => self.problem(
                                DiagnosticKind::Type,
                                "attribute missing from the planned value",
                            ),
                        }
                        self.leave();
                    }
                }
            }
            (Value::Set(ps), Value::Set(xs), Type::Set(t)) => {
                let compared: Option<Vec<&str>> = match &**t {
                    Type::Object(o) => Some(o.attributes().keys().map(String::as_str).collect()),
                    _ => None,
                };
                self.sets(ps, xs, "length", compared.as_deref(), |c, pe, ae| {
                    c.value(pe, ae, t)
                });
            }
            _ => self.problem(
                DiagnosticKind::Type,
                format!(
                    "wrong final value type: planned {}, found {}",
                    kind_of(p),
                    kind_of(a)
                ),
            ),
        }
    }

    fn sequence<'t>(&mut self, ps: &'v [Value], xs: &'v [Value], elem: impl Fn(usize) -> &'t Type) {
        for (i, pv) in ps.iter().enumerate() {
            if self.enter(Step::Index(i as u64)) {
                match xs.get(i) {
                    Some(av) => self.value(pv, av, elem(i)),
                    None => self.problem(DiagnosticKind::Changed, "element has vanished"),
                }
                self.leave();
            }
        }
        for i in ps.len()..xs.len() {
            if self.enter(Step::Index(i as u64)) {
                self.problem(DiagnosticKind::Changed, "new element has appeared");
                self.leave();
            }
        }
    }

    /// Every planned element correlates with some final element and back (an element
    /// cannot be told apart from its value, so this is the most that can be said), and
    /// the set does not grow.
    ///
    /// `compared` names the attributes `check` compares as plain values when the
    /// elements are objects (`None`: the elements are compared whole). Pairs are only
    /// probed where they agree on what every planned element holds as a known string,
    /// bool or null there: any other pair differs where `check` demands equality, so it
    /// cannot correlate. That keeps a set of n elements at about n probes where the
    /// pairing is clear (a name, a port, a CIDR that each element has), not n * n.
    fn sets(
        &mut self,
        ps: &'v [Value],
        xs: &'v [Value],
        what: &str,
        compared: Option<&[&str]>,
        check: impl Fn(&mut Checker<'v>, &'v Value, &'v Value),
    ) {
        // A set that comes back as planned, every element known (a set the apply did not
        // touch): each element correlates with itself. One comparison per element.
        if ps == xs && ps.iter().all(Value::is_wholly_known) {
            return;
        }
        let ps = sorted_refs(ps, true);
        let xs = sorted_refs(xs, true);
        let mut p_ok = vec![false; ps.len()];
        let mut x_ok = vec![false; xs.len()];
        let mut probe_pair = |c: &mut Checker<'v>, i: usize, j: usize| {
            let (Some(pe), Some(xe)) = (ps.get(i), xs.get(j)) else {
                return;
            };
            if p_ok.get(i) == Some(&true) && x_ok.get(j) == Some(&true) {
                return;
            }
            if c.probe(|c| check(c, pe, xe)).is_empty() {
                if let Some(f) = p_ok.get_mut(i) {
                    *f = true;
                }
                if let Some(f) = x_ok.get_mut(j) {
                    *f = true;
                }
            }
        };
        match pairing_key(&ps, compared) {
            Some(key) => {
                // Each planned element's group of final elements of the same key, probed
                // in the planned elements' order.
                let KeyGroups {
                    p_group,
                    x_head,
                    x_next,
                } = key_groups(&key, &ps, &xs);
                const END: usize = usize::MAX;
                for (i, &g) in p_group.iter().enumerate() {
                    let mut j = x_head.get(g).copied().unwrap_or(END);
                    while j != END {
                        probe_pair(self, i, j);
                        j = x_next.get(j).copied().unwrap_or(END);
                    }
                }
            }
            None => {
                for i in 0..ps.len() {
                    for j in 0..xs.len() {
                        probe_pair(self, i, j);
                    }
                }
            }
        }
        let mut uncorrelated = false;
        for (pe, ok) in ps.iter().zip(&p_ok) {
            if !ok {
                uncorrelated = true;
                self.problem(
                    DiagnosticKind::Changed,
                    format!("planned set element {} does not correlate with any element in the final value", show(pe)),
                );
            }
        }
        if !uncorrelated {
            for (xe, ok) in xs.iter().zip(&x_ok) {
                if !ok {
                    self.problem(
                        DiagnosticKind::Changed,
                        format!(
                            "final set element {} does not correlate with any element in the plan",
                            show(xe)
                        ),
                    );
                }
            }
        }
        if ps.len() < xs.len() {
            self.problem(
                DiagnosticKind::Changed,
                format!("set {what} changed from {} to {}", ps.len(), xs.len()),
            );
        }
    }

    /// A block's object, as Terraform's `assertObjectCompatible`. `concrete` is the
    /// object's own type inside a `dynamic` block value, where positions the schema
    /// declares `dynamic` hold plain values.
    fn object(&mut self, block: &'v Block, p: &'v Value, a: &'v Value, concrete: Option<&Type>) {
        let root = if self.path.is_empty() {
            "root object "
        } else {
            "block "
        };
        match (p, a) {
            (Value::Null, Value::Null) => return,
            (Value::Null, _) => {
                return self.problem(
                    DiagnosticKind::Changed,
                    format!("{root}was absent, but now present"),
                )
            }
            (_, Value::Null) => {
                return self.problem(
                    DiagnosticKind::Changed,
                    format!("{root}was present, but now absent"),
                )
            }
            (Value::Unknown(_), _) => {
                let ty = concrete.cloned().unwrap_or_else(|| block.implied_type());
                return self.value(p, a, &ty);
            }
            (_, Value::Unknown(_)) => {
                return self.problem(DiagnosticKind::StillUnknown, "was known, but now unknown")
            }
            (Value::Object(_), Value::Object(_)) => {}
            _ => {
                return self.problem(
                    DiagnosticKind::Type,
                    format!(
                        "wrong final value type: planned {}, found {}",
                        kind_of(p),
                        kind_of(a)
                    ),
                )
            }
        }
        for (name, attr) in &block.attributes {
            if !self.enter(Step::Attr(Cow::Borrowed(name))) {
                continue;
            }
            match (p.get(name.as_str()), a.get(name.as_str())) {
                (Some(pv), Some(av)) => {
                    let ty =
                        member(concrete, name).map_or_else(|| attribute_type(attr), Cow::Borrowed);
                    let found = self.probe(|c| c.value(pv, av, &ty));
                    if attr.contains_sensitive() {
                        if !found.is_empty() {
                            self.problem(
                                DiagnosticKind::Changed,
                                "inconsistent values for sensitive attribute",
                            );
                        }
                    } else {
                        self.absorb(found);
                    }
                }
                (None, None) => {}
                _ => self.problem(
                    DiagnosticKind::Type,
                    "attribute missing from the planned or the final value",
                ),
            }
            self.leave();
        }
        for (name, nb) in &block.block_types {
            if block.attributes.contains_key(name) || !self.enter(Step::Attr(Cow::Borrowed(name))) {
                continue;
            }
            match (p.get(name.as_str()), a.get(name.as_str())) {
                (Some(pv), Some(av)) => self.nested_block(nb, pv, av, member(concrete, name)),
                (None, None) => {}
                _ => self.problem(
                    DiagnosticKind::Type,
                    "block missing from the planned or the final value",
                ),
            }
            self.leave();
        }
    }

    fn nested_block(
        &mut self,
        nb: &'v NestedBlock,
        p: &'v Value,
        a: &'v Value,
        concrete: Option<&Type>,
    ) {
        match nb.nesting {
            NestingMode::Single | NestingMode::Group => {
                // An unknown block placeholder may expand to no block at all.
                if p.is_unknown() && a.is_null() {
                    return;
                }
                self.object(&nb.block, p, a, concrete);
            }
            NestingMode::List | NestingMode::Set | NestingMode::Map => {
                let ty = concrete.cloned().unwrap_or_else(|| nb.implied_type());
                if let Value::Unknown(_) = p {
                    return self.value(p, a, &ty);
                }
                // The concrete type of a dynamic block value, which its elements follow.
                let concrete = concrete.or_else(|| p.as_dynamic().map(|d| d.ty()));
                if a.is_unknown() {
                    return self
                        .problem(DiagnosticKind::StillUnknown, "was known, but now unknown");
                }
                match (p.unwrap_dynamic(), a.unwrap_dynamic()) {
                    (Value::Null, Value::Null) => {}
                    (Value::Null, _) | (_, Value::Null) => self.value(p, a, &ty),
                    (Value::List(ps) | Value::Tuple(ps), Value::List(xs) | Value::Tuple(xs))
                        if nb.nesting == NestingMode::List =>
                    {
                        if ps.len() != xs.len() {
                            return self.problem(
                                DiagnosticKind::Changed,
                                format!("block count changed from {} to {}", ps.len(), xs.len()),
                            );
                        }
                        for (i, (pe, xe)) in ps.iter().zip(xs).enumerate() {
                            if self.enter(Step::Index(i as u64)) {
                                let c = match concrete {
                                    Some(Type::Tuple(ts)) => ts.get(i),
                                    other => other.and_then(Type::element_type),
                                };
                                self.object(&nb.block, pe, xe, c);
                                self.leave();
                            }
                        }
                    }
                    (Value::Map(pm) | Value::Object(pm), Value::Map(am) | Value::Object(am))
                        if nb.nesting == NestingMode::Map =>
                    {
                        for (k, pe) in pm {
                            if self.enter(Step::Key(k.as_str())) {
                                let c = match concrete {
                                    Some(Type::Object(o)) => o.get(k),
                                    other => other.and_then(Type::element_type),
                                };
                                match am.get(k) {
                                    Some(xe) => self.object(&nb.block, pe, xe, c),
                                    None => self
                                        .problem(DiagnosticKind::Changed, "block key has vanished"),
                                }
                                self.leave();
                            }
                        }
                        for k in am.keys().filter(|k| !pm.contains_key(k)) {
                            if self.enter(Step::Key(k.as_str())) {
                                self.problem(DiagnosticKind::Changed, "new block key has appeared");
                                self.leave();
                            }
                        }
                    }
                    (Value::Set(ps), Value::Set(xs)) if nb.nesting == NestingMode::Set => {
                        let elem = concrete.and_then(Type::element_type);
                        let compared: Vec<&str> =
                            nb.block.attributes.keys().map(String::as_str).collect();
                        self.sets(ps, xs, "block count", Some(&compared), |c, pe, xe| {
                            c.object(&nb.block, pe, xe, elem)
                        });
                    }
                    (pu, au) => self.problem(
                        DiagnosticKind::Type,
                        format!(
                            "wrong final value type: planned {}, found {}",
                            pu.kind_name(),
                            au.kind_name()
                        ),
                    ),
                }
            }
        }
    }
}

/// An attribute's type in its block's implied type, borrowed where it is its plain type.
fn attribute_type(attr: &Attribute) -> Cow<'_, Type> {
    match &attr.ty {
        AttributeType::Type(t) if t.is_plain() => Cow::Borrowed(t),
        _ => Cow::Owned(attr.implied_type()),
    }
}

/// The type of one attribute of a concrete object type.
fn member<'t>(concrete: Option<&'t Type>, name: &str) -> Option<&'t Type> {
    concrete.and_then(Type::as_object).and_then(|o| o.get(name))
}

/// Set elements grouped by their key (see [`key_groups`]): each planned element's group
/// (`usize::MAX` for none), each group's first final element, and the next final
/// element of the same group (`usize::MAX` ends a chain).
struct KeyGroups {
    p_group: Vec<usize>,
    x_head: Vec<usize>,
    x_next: Vec<usize>,
}

/// Groups the planned elements `ps` and the final elements `xs` by their keys: each
/// side's keys hashed and sorted by hash (numbers in an array: no table probed all over
/// the heap, and a sort cannot be driven quadratic), merged, and a run of one hash on
/// both sides sorted by the keys themselves. Each group's final elements are chained,
/// with no allocation per group. A hash found once on each side makes a group without a
/// look at the keys: were they different (a collision), its pair is probed and fails,
/// as elements of different keys cannot correlate.
fn key_groups<'v>(key: &PairingKey<'_>, ps: &[&'v Value], xs: &[&'v Value]) -> KeyGroups {
    const END: usize = usize::MAX;
    let hashes = |vs: &[&'v Value]| -> Vec<(u64, usize)> {
        let mut hs: Vec<(u64, usize)> = vs
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let mut h = Fold(0);
                key.of(v)?.hash(&mut h);
                Some((h.0, i))
            })
            .collect();
        hs.sort_unstable();
        hs
    };
    let (ph, xh) = (hashes(ps), hashes(xs));
    let mut p_group = vec![END; ps.len()];
    let mut x_head: Vec<usize> = Vec::new();
    let mut x_next = vec![END; xs.len()];
    let mut group = |pis: &[usize], xjs: &[usize]| {
        let g = x_head.len();
        let mut head = END;
        for &j in xjs {
            if let Some(next) = x_next.get_mut(j) {
                *next = std::mem::replace(&mut head, j);
            }
        }
        x_head.push(head);
        for &i in pis {
            if let Some(pg) = p_group.get_mut(i) {
                *pg = g;
            }
        }
    };
    equal_hash_runs(&ph, &xh, |pr, xr| match (pr, xr) {
        ([(_, p)], [(_, x)]) => group(&[*p], &[*x]),
        _ => {
            // Sorted by the keys themselves, then each run of one key a group.
            let by_key = |vs: &[&'v Value], run: &[(u64, usize)]| {
                let mut k: Vec<(PairKey<'v>, usize)> = run
                    .iter()
                    .filter_map(|&(_, i)| Some((key.of(vs.get(i)?)?, i)))
                    .collect();
                k.sort();
                k
            };
            let (pk, xk) = (by_key(ps, pr), by_key(xs, xr));
            let (mut c, mut d) = (0, 0);
            while let (Some(kp), Some(kx)) = (pk.get(c), xk.get(d)) {
                match kp.0.cmp(&kx.0) {
                    Ordering::Less => c += 1,
                    Ordering::Greater => d += 1,
                    Ordering::Equal => {
                        let same = |ks: &[(PairKey<'v>, usize)], at: usize| {
                            ks.get(at..)
                                .unwrap_or_default()
                                .iter()
                                .take_while(|e| e.0 == kp.0)
                                .map(|e| e.1)
                                .collect::<Vec<usize>>()
                        };
                        let (pi, xj) = (same(&pk, c), same(&xk, d));
                        (c, d) = (c + pi.len(), d + xj.len());
                        group(&pi, &xj);
                    }
                }
            }
        }
    });
    KeyGroups {
        p_group,
        x_head,
        x_next,
    }
}

/// A known string, bool or null, as a set check compares it: strings by their NFC form.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum KeyPart<'v> {
    Null,
    Bool(bool),
    Str(Cow<'v, str>),
}

fn key_part(v: &Value) -> Option<KeyPart<'_>> {
    match v {
        Value::Null => Some(KeyPart::Null),
        Value::Bool(b) => Some(KeyPart::Bool(*b)),
        Value::String(s) => Some(KeyPart::Str(nfc(s))),
        _ => None,
    }
}

/// What set elements are paired by (see [`Checker::sets`]).
enum PairingKey<'a> {
    /// The attributes every planned object holds as a known string, bool or null.
    Attributes(Vec<&'a str>),
    /// The elements themselves, each a known string, bool or null.
    Whole,
}

/// An element's key: one part (the usual case, held without a `Vec`) or several.
#[derive(Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum PairKey<'v> {
    One(KeyPart<'v>),
    Many(Vec<KeyPart<'v>>),
}

impl PairingKey<'_> {
    fn of<'v>(&self, v: &'v Value) -> Option<PairKey<'v>> {
        match self {
            PairingKey::Whole => key_part(v).map(PairKey::One),
            PairingKey::Attributes(names) => {
                let Value::Object(m) = v else { return None };
                match names.as_slice() {
                    [n] => m.get(n).and_then(key_part).map(PairKey::One),
                    _ => names
                        .iter()
                        .map(|n| m.get(n).and_then(key_part))
                        .collect::<Option<_>>()
                        .map(PairKey::Many),
                }
            }
        }
    }
}

/// The key planned elements `ps` can be paired by, if any: every one of them must have it.
fn pairing_key<'a>(ps: &[&Value], compared: Option<&[&'a str]>) -> Option<PairingKey<'a>> {
    let is_part = |v: &Value| matches!(v, Value::Null | Value::Bool(_) | Value::String(_));
    match compared {
        None => ps.iter().all(|p| is_part(p)).then_some(PairingKey::Whole),
        Some(names) => {
            // One pass over the elements (each read once), every name checked in it.
            let mut kept = vec![true; names.len()];
            for p in ps {
                let Value::Object(m) = p else { return None };
                for (kept, n) in kept.iter_mut().zip(names) {
                    *kept = *kept && m.get(n).is_some_and(is_part);
                }
            }
            let names: Vec<&str> = names
                .iter()
                .zip(&kept)
                .filter_map(|(n, kept)| kept.then_some(*n))
                .collect();
            (!names.is_empty()).then_some(PairingKey::Attributes(names))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Map;
    use crate::Refinements;

    /// A small deterministic generator (xorshift), so that failures reproduce.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A string, a bool, a number or null, sometimes unknown (in a plan): strings include
    /// two spellings of "é" (composed and decomposed), equal once in NFC.
    fn leaf(r: &mut Rng, kind: u64, planned: bool) -> Value {
        if planned && r.below(5) == 0 {
            return Value::Unknown(Refinements::default());
        }
        if r.below(6) == 0 {
            return Value::Null;
        }
        match kind {
            0 => Value::from(["a", "b", "\u{e9}", "e\u{301}"][r.below(4) as usize]),
            1 => Value::from(r.below(2) == 0),
            _ => Value::from(r.below(3) as i64),
        }
    }

    fn element(r: &mut Rng, planned: bool) -> Value {
        let mut m = Map::new();
        for (i, name) in ["name", "flag", "port"].into_iter().enumerate() {
            // Now and then an attribute is missing altogether.
            if r.below(40) != 0 {
                m.insert(name.to_owned(), leaf(r, i as u64, planned));
            }
        }
        if r.below(30) == 0 {
            return Value::from("not an object");
        }
        Value::Object(m)
    }

    fn diagnostics(ps: &[Value], xs: &[Value], compared: &[&str]) -> Vec<String> {
        let ty = Type::object([
            ("name", Type::String),
            ("flag", Type::Bool),
            ("port", Type::Number),
        ]);
        let mut c = Checker::new();
        c.sets(ps, xs, "length", Some(compared), |c, p, x| {
            c.value(p, x, &ty)
        });
        c.out.into_iter().map(|d| d.to_string()).collect()
    }

    /// Pairing set elements by their keys finds exactly what probing every pair finds.
    /// A set that comes back as planned passes without pairing only when every element
    /// is known: a planned unknown left in the final value is still reported (its
    /// element correlates with nothing).
    #[test]
    fn a_set_back_as_planned_passes_unless_unknowns_remain() {
        let mut r = Rng(0x2545_f491_4f6c_dd1d);
        let known: Vec<Value> = (0..50).map(|_| element(&mut r, false)).collect();
        assert!(known.iter().all(Value::is_wholly_known));
        assert_eq!(diagnostics(&known, &known, &["name"]), Vec::<String>::new());
        let mut with_unknown = known.clone();
        with_unknown.push(Value::Object(
            [
                ("name".to_owned(), Value::from("u")),
                ("flag".to_owned(), Value::Unknown(Refinements::new())),
                ("port".to_owned(), Value::from(1)),
            ]
            .into(),
        ));
        let found = diagnostics(&with_unknown, &with_unknown, &["name"]);
        assert!(
            found
                .iter()
                .any(|d| d.contains("flag = (unknown)") && d.contains("does not correlate")),
            "{found:?}"
        );
    }

    #[test]
    fn keyed_pairing_finds_what_probing_every_pair_finds() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut keyed_cases = 0;
        for _ in 0..3000 {
            let n = r.below(6) as usize;
            let ps: Vec<Value> = (0..n).map(|_| element(&mut r, true)).collect();
            // Final values: mostly the plan with its unknowns filled, sometimes changed.
            let mut xs: Vec<Value> = ps
                .iter()
                .map(|p| match p {
                    Value::Object(m) if r.below(4) != 0 => Value::Object(
                        m.iter()
                            .map(|(k, v)| {
                                let v = if v.is_unknown() || r.below(8) == 0 {
                                    leaf(
                                        &mut r,
                                        ["name", "flag", "port"]
                                            .iter()
                                            .position(|n| *n == k.as_ref())
                                            .unwrap_or(2)
                                            as u64,
                                        false,
                                    )
                                } else {
                                    v.clone()
                                };
                                (k.clone(), v)
                            })
                            .collect(),
                    ),
                    _ => element(&mut r, false),
                })
                .collect();
            if r.below(3) == 0 {
                xs.push(element(&mut r, false));
            }
            let sorted = sorted_refs(&ps, true);
            if pairing_key(&sorted, Some(&["name", "flag", "port"])).is_some() {
                keyed_cases += 1;
            }
            let keyed = diagnostics(&ps, &xs, &["name", "flag", "port"]);
            let every_pair = diagnostics(&ps, &xs, &[]);
            assert_eq!(keyed, every_pair, "planned {ps:?}\nfinal {xs:?}");
        }
        assert!(
            keyed_cases > 500,
            "only {keyed_cases} cases were paired by key"
        );
    }
}
