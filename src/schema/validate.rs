//! Validation of a value against a block, collecting every problem.

use super::diagnostics::{DiagnosticKind, Diagnostics};
use super::{
    Attribute, AttributeType, Block, NestedBlock, NestedType, NestingMode, ObjectNesting,
    ObjectValidator, Validator,
};
use crate::error::Error;
use crate::path::{AttributePath, PathStep};
use crate::types::Type;
use crate::value::{common_type, sorted_refs, Map, Step, Value};

/// Which extra rules apply, by where the value comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Only the rules that hold for every value of the block.
    Any,
    /// Configuration: also, computed-only attributes are null.
    Config,
    /// Plan or state: also, write-only attributes are null.
    State,
}

impl Block {
    /// Checks a value against this block and returns every problem found.
    ///
    /// The rules, each reported with the [`AttributePath`] of the offending value:
    ///
    /// - **Type conformance** ([`DiagnosticKind::Type`]): the value is an object with
    ///   exactly the block's attributes and block types (every one present, as on the
    ///   wire, and no other), each of the implied type; `dynamic` positions carry their own
    ///   type ([`Value::Dynamic`]); refinements of unknowns do not contradict themselves.
    /// - **Required attributes** ([`DiagnosticKind::MissingRequired`]): a `required`
    ///   attribute, at any depth of nested attributes, is not null. Unknown is fine: it
    ///   will be known later. A `SINGLE` block with `min_items = 1` is not null either.
    /// - **Block counts** ([`DiagnosticKind::TooFewBlocks`],
    ///   [`DiagnosticKind::TooManyBlocks`]): a `LIST` or `SET` block has between
    ///   `min_items` and `max_items` blocks (`max_items = 0`: no limit). The check is
    ///   deferred where the count is not known yet, as Terraform does: a wholly unknown
    ///   collection is only reported when its length refinements rule the limits out, and
    ///   a set with unknown elements (which may turn out equal and merge) only when even
    ///   the most or fewest elements it could end up with break the limits. The elements
    ///   of a list are counted even when unknown: each is one block.
    /// - **Null blocks** ([`DiagnosticKind::NullBlock`]): a `GROUP` block is never null,
    ///   and neither is a `LIST`, `SET` or `MAP` block (no blocks is an empty collection).
    /// - **Validators** ([`DiagnosticKind::Validator`]): each of an attribute's
    ///   [`Validator`]s accepts its value, when known and not null.
    /// - **Rules of attributes together** ([`DiagnosticKind::Combination`]), in
    ///   [`validate_config`](Block::validate_config) only: each [`ObjectValidator`] of a
    ///   block or of nested objects holds.
    ///
    /// A null or unknown root value has nothing to check.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, DiagnosticKind, NestedBlock};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new()
    ///     .attribute("name", Attribute::required(Type::String))
    ///     .block("rule", NestedBlock::list(Block::new().attribute("port", Attribute::required(Type::Number))).max_items(1));
    ///
    /// let rule = |port: Value| Value::Object([("port".to_owned(), port)].into());
    /// let value = Value::Object([
    ///     ("name".to_owned(), Value::Null),
    ///     ("rule".to_owned(), Value::List(vec![rule(Value::from(80)), rule(Value::from("x"))])),
    /// ].into());
    ///
    /// let diags = block.validate(&value);
    /// let found: Vec<String> = diags.iter().map(ToString::to_string).collect();
    /// assert_eq!(found, [
    ///     "Missing required argument: required attribute is null at name",
    ///     "Too many blocks: at most 1 block is allowed, found 2 at rule",
    ///     "Invalid value type: invalid type: string, expected a number at rule[1].port",
    /// ]);
    /// assert_eq!(diags[0].kind(), DiagnosticKind::MissingRequired);
    /// ```
    pub fn validate(&self, value: &Value) -> Diagnostics {
        self.run(value, Mode::Any)
    }

    /// As [`Block::validate`], for a configuration value: also, attributes that only
    /// the provider sets (computed and not optional) are null
    /// ([`DiagnosticKind::Unconfigurable`]).
    pub fn validate_config(&self, value: &Value) -> Diagnostics {
        self.run(value, Mode::Config)
    }

    /// As [`Block::validate`], for a planned or stored value: also, write-only attributes
    /// are null ([`DiagnosticKind::WriteOnly`]), since Terraform never keeps them.
    pub fn validate_state(&self, value: &Value) -> Diagnostics {
        self.run(value, Mode::State)
    }

    fn run(&self, value: &Value, mode: Mode) -> Diagnostics {
        let mut w = Walker {
            mode,
            path: AttributePath::new(),
            out: Diagnostics::new(),
            depth: 0,
        };
        w.block(self, value, None);
        w.out
    }
}

/// The schema of an object: a block's, or nested attributes'.
#[derive(Clone, Copy)]
pub(crate) enum Scope<'a> {
    Block(&'a Block),
    Nested(&'a NestedType),
}

/// What a step of an [`ObjectValidator`] path names.
enum Member<'a> {
    Attribute(&'a Attribute),
    Block(&'a NestedBlock),
}

impl<'a> Scope<'a> {
    fn member(self, name: &str) -> Option<Member<'a>> {
        match self {
            Scope::Block(b) => b
                .attributes
                .get(name)
                .map(Member::Attribute)
                .or_else(|| b.block_types.get(name).map(Member::Block)),
            Scope::Nested(n) => n.attributes.get(name).map(Member::Attribute),
        }
    }

    /// The object scope a path step goes into, if it is one of a single object.
    fn enter(member: &Member<'a>) -> Option<Scope<'a>> {
        match member {
            Member::Attribute(a) => a
                .nested_type()
                .filter(|n| n.nesting == ObjectNesting::Single)
                .map(Scope::Nested),
            Member::Block(nb) => matches!(nb.nesting, NestingMode::Single | NestingMode::Group)
                .then_some(Scope::Block(&nb.block)),
        }
    }

    /// Why `path` does not name an attribute or block of this object, if it does not.
    pub(crate) fn path_problem(self, path: &str) -> Option<String> {
        let mut scope = self;
        let mut segs = path.split('.').peekable();
        while let Some(seg) = segs.next() {
            let Some(member) = scope.member(seg) else {
                return Some(format!("`{path}` names no attribute or block (`{seg}`)"));
            };
            if segs.peek().is_some() {
                match Scope::enter(&member) {
                    Some(inner) => scope = inner,
                    None => {
                        return Some(format!(
                            "`{path}` goes through `{seg}`, which is not a single object: \
                             put the rule on the schema of its elements"
                        ))
                    }
                }
            }
        }
        None
    }
}

/// Whether the attribute or block at `path` of object `v` is set: not null (an unknown
/// will be set), and for a list, set or map block, not empty.
fn is_set(scope: Scope<'_>, v: &Value, path: &str) -> bool {
    let mut scope = scope;
    let mut v = v;
    let mut segs = path.split('.').peekable();
    while let Some(seg) = segs.next() {
        let m = match v.unwrap_dynamic() {
            Value::Object(m) => m,
            Value::Unknown(_) => return true,
            _ => return false,
        };
        let (Some(member), Some(mv)) = (scope.member(seg), m.get(seg)) else {
            return false;
        };
        if segs.peek().is_none() {
            return match (&member, mv) {
                (_, Value::Null) => false,
                (Member::Block(_), Value::List(vs) | Value::Set(vs)) => !vs.is_empty(),
                (Member::Block(_), Value::Map(m)) => !m.is_empty(),
                _ => true,
            };
        }
        match Scope::enter(&member) {
            Some(inner) => scope = inner,
            None => return false,
        }
        v = mv;
    }
    false
}

struct Walker {
    mode: Mode,
    path: AttributePath,
    out: Diagnostics,
    depth: usize,
}

impl Walker {
    fn problem(&mut self, kind: DiagnosticKind, message: impl Into<String>) {
        self.out.add(kind, &self.path, message);
    }

    fn error(&mut self, err: &Error) {
        let mut path = self.path.clone();
        for step in err.path().steps() {
            path.push(step.clone());
        }
        self.out.add(DiagnosticKind::Type, &path, err.message());
    }

    fn mismatch(&mut self, v: &Value, expected: &str) {
        self.problem(
            DiagnosticKind::Type,
            format!("invalid type: {}, expected {expected}", kind_of(v)),
        );
    }

    fn enter(&mut self, step: PathStep) -> bool {
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

    /// An unknown has nothing more to check than its own refinements.
    fn unknown(&mut self, v: &Value) -> bool {
        match v {
            Value::Unknown(r) => {
                if let Err(e) = r.validate() {
                    self.error(&e);
                }
                true
            }
            _ => false,
        }
    }

    /// `concrete` is the value's own type where it sits inside a `dynamic` block value:
    /// there, positions the schema declares `dynamic` hold plain values of that type.
    fn block(&mut self, block: &Block, v: &Value, concrete: Option<&Type>) {
        if v.is_null() || self.unknown(v) {
            return;
        }
        let Value::Object(m) = v else {
            return self.mismatch(v, "object (a block)");
        };
        for (name, attr) in &block.attributes {
            if !self.enter(PathStep::Attr(name.to_string())) {
                continue;
            }
            match m.get(name) {
                Some(av) => self.attribute(attr, av, member(concrete, name)),
                None => self.problem(DiagnosticKind::Type, "missing attribute"),
            }
            self.leave();
        }
        for (name, nb) in &block.block_types {
            if block.attributes.contains_key(name) || !self.enter(PathStep::Attr(name.to_string()))
            {
                continue;
            }
            match m.get(name) {
                Some(bv) => self.nested_block(nb, bv, member(concrete, name)),
                None => self.problem(DiagnosticKind::Type, "missing block attribute"),
            }
            self.leave();
        }
        self.undeclared(m, |k| {
            block.attributes.contains_key(k) || block.block_types.contains_key(k)
        });
        self.object_rules(Scope::Block(block), &block.validators, v);
    }

    /// An attribute's validators; those of elements and keys at their own paths.
    fn validators(&mut self, validators: &[Validator], v: &Value) {
        if validators.is_empty() || matches!(v.unwrap_dynamic(), Value::Null | Value::Unknown(_)) {
            return;
        }
        for validator in validators {
            match (validator, v.unwrap_dynamic()) {
                (
                    Validator::Elements(inner),
                    Value::List(vs) | Value::Set(vs) | Value::Tuple(vs),
                ) => {
                    for (i, e) in vs.iter().enumerate() {
                        if self.enter(PathStep::Index(i as u64)) {
                            self.validators(inner, e);
                            self.leave();
                        }
                    }
                }
                (Validator::Elements(inner), Value::Map(m)) => {
                    for (k, e) in m {
                        if self.enter(PathStep::Key(k.to_string())) {
                            self.validators(inner, e);
                            self.leave();
                        }
                    }
                }
                (Validator::Keys(inner), Value::Map(m)) => {
                    for k in m.keys() {
                        if self.enter(PathStep::Key(k.to_string())) {
                            self.validators(inner, &Value::String(k.to_string()));
                            self.leave();
                        }
                    }
                }
                (Validator::Elements(_) | Validator::Keys(_), _) => {}
                (other, _) => {
                    if let Some(message) = other.problem(v) {
                        self.problem(DiagnosticKind::Validator, message);
                    }
                }
            }
        }
    }

    /// The checks of an object's attributes together (configuration only).
    fn object_rules(&mut self, scope: Scope<'_>, rules: &[ObjectValidator], v: &Value) {
        if self.mode != Mode::Config || rules.is_empty() {
            return;
        }
        for rule in rules {
            if let ObjectValidator::Custom(c) = rule {
                if let Err(message) = c.check(v) {
                    self.problem(DiagnosticKind::Combination, message);
                }
                continue;
            }
            let set: Vec<bool> = rule.paths().iter().map(|p| is_set(scope, v, p)).collect();
            for (at, message) in rule.problems(&set) {
                let steps = at.map(|p| p.split('.').count()).unwrap_or(0);
                for seg in at.into_iter().flat_map(|p| p.split('.')) {
                    self.path.push(PathStep::Attr(seg.to_owned()));
                }
                self.problem(DiagnosticKind::Combination, message);
                for _ in 0..steps {
                    self.path.pop();
                }
            }
        }
    }

    fn undeclared(&mut self, m: &Map, declared: impl Fn(&str) -> bool) {
        for k in m.keys().filter(|k| !declared(k)) {
            self.path.push(PathStep::Attr(k.to_string()));
            self.problem(
                DiagnosticKind::Type,
                "unsupported attribute: the schema does not declare it",
            );
            self.path.pop();
        }
    }

    fn attribute(&mut self, attr: &Attribute, v: &Value, concrete: Option<&Type>) {
        match (&attr.ty, concrete) {
            (AttributeType::Type(_), Some(c)) => self.conform(v, c),
            (AttributeType::Type(t), None) => self.conform(v, &super::without_optional_deep(t)),
            (AttributeType::Nested(n), _) => self.nested_type(n, v, concrete),
        }
        if v.is_null() && attr.required {
            self.problem(
                DiagnosticKind::MissingRequired,
                "required attribute is null",
            );
        }
        self.validators(&attr.validators, v);
        if !v.is_null() && self.mode == Mode::Config && attr.is_computed_only() {
            self.problem(
                DiagnosticKind::Unconfigurable,
                "computed attribute cannot be set in configuration",
            );
        }
        if !v.is_null() && self.mode == Mode::State && attr.write_only {
            self.problem(
                DiagnosticKind::WriteOnly,
                "write-only attribute must be null outside configuration",
            );
        }
    }

    fn nested_type(&mut self, n: &NestedType, v: &Value, concrete: Option<&Type>) {
        if v.is_null() || self.unknown(v) {
            return;
        }
        let elem = concrete.and_then(Type::element_type);
        match (n.nesting, v) {
            (ObjectNesting::Single, _) => self.nested_object(n, v, concrete),
            (ObjectNesting::List, Value::List(vs)) | (ObjectNesting::Set, Value::Set(vs)) => {
                for (i, e) in vs.iter().enumerate() {
                    if self.enter(PathStep::Index(i as u64)) {
                        self.nested_object(n, e, elem);
                        self.leave();
                    }
                }
            }
            (ObjectNesting::Map, Value::Map(m)) => {
                for (k, e) in m {
                    if self.enter(PathStep::Key(k.to_string())) {
                        self.nested_object(n, e, elem);
                        self.leave();
                    }
                }
            }
            (nesting, _) => self.mismatch(v, nesting.as_str()),
        }
    }

    fn nested_object(&mut self, n: &NestedType, v: &Value, concrete: Option<&Type>) {
        if v.is_null() || self.unknown(v) {
            return;
        }
        let Value::Object(m) = v else {
            return self.mismatch(v, "object");
        };
        for (name, attr) in &n.attributes {
            if !self.enter(PathStep::Attr(name.to_string())) {
                continue;
            }
            match m.get(name) {
                Some(av) => self.attribute(attr, av, member(concrete, name)),
                None => self.problem(DiagnosticKind::Type, "missing attribute"),
            }
            self.leave();
        }
        self.undeclared(m, |k| n.attributes.contains_key(k));
        self.object_rules(Scope::Nested(n), &n.validators, v);
    }

    fn nested_block(&mut self, nb: &NestedBlock, v: &Value, concrete: Option<&Type>) {
        let dynamic = nb.implied_type() == Type::Dynamic;
        match nb.nesting {
            NestingMode::Single | NestingMode::Group => {
                if v.is_null() {
                    if nb.nesting == NestingMode::Group {
                        self.problem(DiagnosticKind::NullBlock, "a group block is never null");
                    } else if nb.min_items >= 1 {
                        self.problem(DiagnosticKind::MissingRequired, "required block is null");
                    }
                    return;
                }
                self.block(&nb.block, v, concrete);
            }
            NestingMode::List | NestingMode::Set | NestingMode::Map => {
                let (inner, concrete) = match v {
                    // Inside a dynamic value the collection is a plain value of its type.
                    _ if concrete.is_some() => (v, concrete),
                    Value::Dynamic(d) if dynamic => (d.value(), Some(d.ty())),
                    Value::Null | Value::Unknown(_) => (v, None),
                    _ if dynamic => {
                        return self.mismatch(
                            v,
                            "dynamic (a block type that contains `dynamic` is itself dynamic)",
                        );
                    }
                    _ => (v, None),
                };
                self.block_collection(nb, inner, dynamic, concrete);
            }
        }
    }

    fn block_collection(
        &mut self,
        nb: &NestedBlock,
        v: &Value,
        dynamic: bool,
        concrete: Option<&Type>,
    ) {
        let (least, most) = match (nb.nesting, v) {
            (_, Value::Null) => {
                let what = nb.nesting.as_str();
                return self.problem(
                    DiagnosticKind::NullBlock,
                    format!("a {what} block is never null: no blocks is an empty {what}"),
                );
            }
            (_, Value::Unknown(r)) => {
                if let Err(e) = r.validate() {
                    return self.error(&e);
                }
                (r.min_length().unwrap_or(0), r.max_length())
            }
            (NestingMode::List, Value::List(vs)) => (vs.len() as u64, Some(vs.len() as u64)),
            (NestingMode::List, Value::Tuple(vs)) if dynamic => {
                (vs.len() as u64, Some(vs.len() as u64))
            }
            (NestingMode::Set, Value::Set(vs)) => {
                let refs = sorted_refs(vs, true);
                let known = refs.iter().filter(|e| e.is_wholly_known()).count() as u64;
                let most = refs.len() as u64;
                (if most > 0 { known.max(1) } else { 0 }, Some(most))
            }
            (NestingMode::Map, Value::Map(_)) => (0, None),
            (NestingMode::Map, Value::Object(_)) if dynamic => (0, None),
            (nesting, _) => {
                let expected = match (nesting, dynamic) {
                    (NestingMode::List, true) => "tuple (a list block that contains `dynamic`)",
                    (NestingMode::Map, true) => "object (a map block that contains `dynamic`)",
                    (n, _) => n.as_str(),
                };
                return self.mismatch(v, expected);
            }
        };
        if matches!(nb.nesting, NestingMode::List | NestingMode::Set) {
            if most.is_some_and(|most| most < nb.min_items) {
                self.problem(
                    DiagnosticKind::TooFewBlocks,
                    format!(
                        "at least {} {} required, found {}",
                        nb.min_items,
                        if nb.min_items == 1 {
                            "block is"
                        } else {
                            "blocks are"
                        },
                        count(least, most)
                    ),
                );
            }
            if nb.max_items > 0 && least > nb.max_items {
                self.problem(
                    DiagnosticKind::TooManyBlocks,
                    format!(
                        "at most {} {} allowed, found {}",
                        nb.max_items,
                        if nb.max_items == 1 {
                            "block is"
                        } else {
                            "blocks are"
                        },
                        count(least, most)
                    ),
                );
            }
        }
        match v {
            Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
                for (i, e) in vs.iter().enumerate() {
                    if self.enter(PathStep::Index(i as u64)) {
                        let c = match concrete {
                            Some(Type::Tuple(ts)) => ts.get(i),
                            other => other.and_then(Type::element_type),
                        };
                        self.block(&nb.block, e, c);
                        self.leave();
                    }
                }
            }
            Value::Map(m) | Value::Object(m) => {
                for (k, e) in m {
                    if self.enter(PathStep::Key(k.to_string())) {
                        let c = match concrete {
                            Some(Type::Object(o)) => o.get(k),
                            other => other.and_then(Type::element_type),
                        };
                        self.block(&nb.block, e, c);
                        self.leave();
                    }
                }
            }
            _ => {}
        }
    }

    /// Type conformance, reporting every mismatch rather than the first.
    fn conform(&mut self, v: &Value, ty: &Type) {
        if v.is_null() || self.unknown(v) {
            return;
        }
        match (v, ty) {
            (Value::Dynamic(d), Type::Dynamic) => {
                if let Err(e) = d.validate() {
                    self.error(&e);
                }
            }
            (_, Type::Dynamic) => self.problem(
                DiagnosticKind::Type,
                format!(
                    "a {} in a position of type dynamic must carry its own type (Value::Dynamic)",
                    kind_of(v)
                ),
            ),
            (Value::Bool(_), Type::Bool)
            | (Value::Number(_), Type::Number)
            | (Value::String(_), Type::String) => {}
            (Value::List(vs), Type::List(t)) | (Value::Set(vs), Type::Set(t)) => {
                for (i, e) in vs.iter().enumerate() {
                    if self.enter(PathStep::Index(i as u64)) {
                        self.conform(e, t);
                        self.leave();
                    }
                }
                if t.has_dynamic() {
                    let elems = vs.iter().enumerate().map(|(i, v)| (Step::Index(i), v));
                    if let Err(e) = common_type(elems, t) {
                        self.error(&e);
                    }
                }
            }
            (Value::Map(m), Type::Map(t)) => {
                for (k, e) in m {
                    if self.enter(PathStep::Key(k.to_string())) {
                        self.conform(e, t);
                        self.leave();
                    }
                }
                if t.has_dynamic() {
                    if let Err(e) = common_type(m.iter().map(|(k, v)| (Step::Key(k), v)), t) {
                        self.error(&e);
                    }
                }
            }
            (Value::Object(m), Type::Object(o)) => {
                for (name, aty) in o.attributes() {
                    match m.get(name) {
                        Some(e) => {
                            if self.enter(PathStep::Attr(name.to_string())) {
                                self.conform(e, aty);
                                self.leave();
                            }
                        }
                        None if o.is_optional(name) => {}
                        None => {
                            self.path.push(PathStep::Attr(name.to_string()));
                            self.problem(DiagnosticKind::Type, "missing attribute");
                            self.path.pop();
                        }
                    }
                }
                self.undeclared(m, |k| o.get(k).is_some());
            }
            (Value::Tuple(vs), Type::Tuple(ts)) => {
                if vs.len() != ts.len() {
                    return self.problem(
                        DiagnosticKind::Type,
                        format!(
                            "a tuple of {} elements does not conform to type {ty}",
                            vs.len()
                        ),
                    );
                }
                for (i, (e, t)) in vs.iter().zip(ts).enumerate() {
                    if self.enter(PathStep::Index(i as u64)) {
                        self.conform(e, t);
                        self.leave();
                    }
                }
            }
            _ => self.mismatch(v, &expected_of(ty)),
        }
    }
}

/// What a value of `ty` is called in a message, as the decoders say it: `a string`, `a
/// number`, `a bool`, else `a value of type list(string)`.
fn expected_of(ty: &Type) -> String {
    match ty {
        Type::String => "a string".into(),
        Type::Number => "a number".into(),
        Type::Bool => "a bool".into(),
        t => format!("a value of type {t}"),
    }
}

/// The type of one attribute of a concrete object type.
fn member<'t>(concrete: Option<&'t Type>, name: &str) -> Option<&'t Type> {
    concrete.and_then(Type::as_object).and_then(|o| o.get(name))
}

fn count(least: u64, most: Option<u64>) -> String {
    match most {
        Some(most) if most == least => most.to_string(),
        Some(most) => format!("between {least} and {most}"),
        None => format!("at least {least}"),
    }
}

/// The kind of a value in Terraform's words (`Value::Dynamic` by its inner value).
pub(crate) fn kind_of(v: &Value) -> &'static str {
    v.unwrap_dynamic().kind_name()
}
