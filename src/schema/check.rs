//! Terraform's rules for a schema itself (configschema `InternalValidate`).

use super::diagnostics::{DiagnosticKind, Diagnostics};
use super::{Attribute, Block, NestingMode, ObjectNesting};
use crate::path::{AttributePath, PathStep};

impl Block {
    /// Checks the schema against the rules Terraform applies when it loads a provider's
    /// schemas, and returns every problem ([`DiagnosticKind::Schema`]), with the path of the
    /// attribute or block type in question:
    ///
    /// - an attribute is `required`, `optional` or `computed`, but not `required` together
    ///   with `optional` or `computed`, and a `write_only` attribute is not `computed`;
    /// - a name is not both an attribute and a block type, and block type names use
    ///   lowercase letters, digits and underscores only;
    /// - a `SINGLE` block has `min_items` equal to `max_items`, both 0 or 1; `GROUP` and
    ///   `MAP` blocks have neither; a `LIST` or `SET` block has `min_items <= max_items`
    ///   unless `max_items` is 0;
    /// - `SET` blocks and `SET` nested attributes contain no `dynamic` and no write-only
    ///   attribute (set elements are hashed by their exact type, and marks inside a set
    ///   move up to the set);
    ///
    /// and the provider-side rules of the [`Planner`](super::Planner)'s facts: a
    /// [`default`](Attribute::default), [`use_state_for_unknown`](Attribute::use_state_for_unknown)
    /// and [`refinements`](Attribute::refinements) only on computed attributes; a default of
    /// the attribute's own type, and neither of the other two beside it (a default is
    /// never planned unknown); a prefix only on strings, bounds only on numbers, lengths
    /// only on collections, and no refinement of a `dynamic` attribute.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, NestedBlock};
    /// use tfvalue::Type;
    ///
    /// let ok = Block::new()
    ///     .attribute("name", Attribute::required(Type::String))
    ///     .block("network", NestedBlock::single(Block::new()).min_items(1).max_items(1));
    /// assert!(ok.check_schema().is_empty());
    ///
    /// let bad = Block::new()
    ///     .attribute("name", Attribute::of_type(Type::String))
    ///     .block("network", NestedBlock::single(Block::new()).min_items(1));
    /// assert_eq!(bad.check_schema().to_string(), "\
    /// Invalid provider schema: attribute must be required, optional or computed at name
    /// Invalid provider schema: a single block has min_items equal to max_items, both 0 or 1 at network");
    /// ```
    pub fn check_schema(&self) -> Diagnostics {
        let mut out = Diagnostics::new();
        check_block(self, &mut AttributePath::new(), &mut out, 0);
        out
    }
}

fn problem(out: &mut Diagnostics, path: &AttributePath, message: impl Into<String>) {
    out.add(DiagnosticKind::Schema, path, message);
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn check_block(block: &Block, path: &mut AttributePath, out: &mut Diagnostics, depth: usize) {
    if depth > crate::limits::DEFAULT_MAX_DEPTH {
        return problem(out, path, "schema nesting is deeper than the limit of 128");
    }
    object_rules(
        super::validate::Scope::Block(block),
        &block.validators,
        path,
        out,
    );
    for (name, attr) in &block.attributes {
        path.push(PathStep::Attr(name.to_string()));
        check_attribute(attr, path, out, depth + 1);
        path.pop();
    }
    for (name, nb) in &block.block_types {
        path.push(PathStep::Attr(name.to_string()));
        if block.attributes.contains_key(name) {
            problem(out, path, "name is both an attribute and a block type");
        } else if !valid_name(name) {
            problem(
                out,
                path,
                "block type names use lowercase letters, digits and underscores only",
            );
        }
        let (min, max) = (nb.min_items, nb.max_items);
        match nb.nesting {
            NestingMode::Single => {
                if min != max || min > 1 {
                    problem(
                        out,
                        path,
                        "a single block has min_items equal to max_items, both 0 or 1",
                    );
                }
            }
            NestingMode::Group | NestingMode::Map => {
                if min != 0 || max != 0 {
                    let what = nb.nesting.as_str();
                    problem(
                        out,
                        path,
                        format!("a {what} block has no min_items or max_items"),
                    );
                }
            }
            NestingMode::List | NestingMode::Set => {
                if max != 0 && min > max {
                    problem(out, path, "min_items is greater than max_items");
                }
                if nb.nesting == NestingMode::Set {
                    if nb.block.implied_type().has_dynamic() {
                        problem(
                            out,
                            path,
                            "a set block may not contain `dynamic` attributes",
                        );
                    }
                    if block_has_write_only(&nb.block) {
                        problem(
                            out,
                            path,
                            "a set block may not contain write-only attributes",
                        );
                    }
                }
            }
        }
        if let Some(key) = &nb.match_by {
            let list_or_set = matches!(nb.nesting, NestingMode::List | NestingMode::Set);
            match_by_problem(key, list_or_set, &nb.block.attributes, path, out);
        }
        check_block(&nb.block, path, out, depth + 1);
        path.pop();
    }
}

/// `match_by` names a configurable attribute of the elements of a list or set.
fn match_by_problem(
    key: &str,
    list_or_set: bool,
    attributes: &std::collections::BTreeMap<String, Attribute>,
    path: &AttributePath,
    out: &mut Diagnostics,
) {
    if !list_or_set {
        problem(
            out,
            path,
            "`match_by` pairs the elements of a list or a set only",
        );
    }
    match attributes.get(key) {
        None => problem(
            out,
            path,
            format!("`match_by` names `{key}`, which its elements do not have"),
        ),
        Some(a) if a.is_computed_only() => problem(
            out,
            path,
            format!(
                "`match_by` names `{key}`, which is computed only: the key must come from configuration"
            ),
        ),
        Some(_) => {}
    }
}

fn check_attribute(
    attr: &Attribute,
    path: &mut AttributePath,
    out: &mut Diagnostics,
    depth: usize,
) {
    if depth > crate::limits::DEFAULT_MAX_DEPTH {
        return problem(out, path, "schema nesting is deeper than the limit of 128");
    }
    if !attr.required && !attr.optional && !attr.computed {
        problem(
            out,
            path,
            "attribute must be required, optional or computed",
        );
    }
    if attr.required && attr.optional {
        problem(out, path, "attribute cannot be both required and optional");
    }
    if attr.required && attr.computed {
        problem(out, path, "attribute cannot be both required and computed");
    }
    if attr.write_only && attr.computed {
        problem(out, path, "a write-only attribute cannot be computed");
    }
    for v in &attr.validators {
        if let Some(message) = v.schema_problem() {
            problem(out, path, message);
        }
    }
    for message in super::plan_facts::problems(attr) {
        problem(out, path, message);
    }
    if let Some(nested) = attr.nested_type() {
        if nested.nesting == ObjectNesting::Set {
            if attr.implied_type().has_dynamic() {
                problem(
                    out,
                    path,
                    "a set of nested attributes may not contain `dynamic` attributes",
                );
            }
            if nested.attributes.values().any(attribute_has_write_only) {
                problem(
                    out,
                    path,
                    "a set of nested attributes may not contain write-only attributes",
                );
            }
        }
        for (name, inner) in &nested.attributes {
            path.push(PathStep::Attr(name.to_string()));
            check_attribute(inner, path, out, depth + 1);
            path.pop();
        }
        object_rules(
            super::validate::Scope::Nested(nested),
            &nested.validators,
            path,
            out,
        );
        if let Some(key) = &nested.match_by {
            let list_or_set = matches!(nested.nesting, ObjectNesting::List | ObjectNesting::Set);
            match_by_problem(key, list_or_set, &nested.attributes, path, out);
        }
    }
}

/// The paths an object's rules name exist, and each rule names enough of them.
fn object_rules(
    scope: super::validate::Scope<'_>,
    rules: &[super::ObjectValidator],
    path: &AttributePath,
    out: &mut Diagnostics,
) {
    for rule in rules {
        let paths = rule.paths();
        for p in &paths {
            if let Some(message) = scope.path_problem(p) {
                problem(out, path, message);
            }
        }
        let least = match rule {
            super::ObjectValidator::Custom(_) => 0,
            super::ObjectValidator::AtLeastOneOf(_) | super::ObjectValidator::ExactlyOneOf(_) => 1,
            _ => 2,
        };
        if paths.len() < least {
            problem(
                out,
                path,
                format!("{rule:?} names too few attributes to mean anything"),
            );
        }
    }
}

fn attribute_has_write_only(attr: &Attribute) -> bool {
    attr.write_only
        || attr
            .nested_type()
            .is_some_and(|n| n.attributes.values().any(attribute_has_write_only))
}

fn block_has_write_only(block: &Block) -> bool {
    block.attributes.values().any(attribute_has_write_only)
        || block
            .block_types
            .values()
            .any(|nb| block_has_write_only(&nb.block))
}
