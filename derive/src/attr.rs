//! Parsing `#[tfvalue(...)]`, the `#[serde(...)]` attributes that decide names, and doc
//! comments. Every mistake is pushed onto the error list at its key's span, and parsing
//! goes on, so that one compile shows them all.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, LitStr, Token};

/// Errors collected over the whole derive.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    pub fn push(&mut self, span: Span, message: impl std::fmt::Display) {
        self.0.push(syn::Error::new(span, message));
    }

    pub fn push_error(&mut self, err: syn::Error) {
        self.0.push(err);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_compile_errors(self) -> TokenStream {
        self.0.into_iter().map(|e| e.to_compile_error()).collect()
    }
}

/// A value and where it was written.
#[derive(Clone)]
pub struct At<T> {
    pub value: T,
    pub span: Span,
}

/// How a block or nested attribute is nested, as written in `block = "..."`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Nesting {
    Single,
    List,
    Set,
    Map,
    Group,
}

impl Nesting {
    pub fn name(self) -> &'static str {
        match self {
            Nesting::Single => "single",
            Nesting::List => "list",
            Nesting::Set => "set",
            Nesting::Map => "map",
            Nesting::Group => "group",
        }
    }
}

/// `#[tfvalue(...)]` on a field.
#[derive(Default)]
pub struct FieldAttrs {
    pub required: Option<Span>,
    pub optional: Option<Span>,
    pub computed: Option<Span>,
    pub sensitive: Option<Span>,
    pub deprecated: Option<Span>,
    /// `deprecated = ".."`: why, and what to use instead.
    pub deprecation_message: Option<At<String>>,
    pub write_only: Option<Span>,
    pub markdown: Option<Span>,
    pub description: Option<At<String>>,
    /// `block`, with the nesting if given.
    pub block: Option<At<Option<At<Nesting>>>>,
    /// `nested_type`, with the nesting if given.
    pub nested_type: Option<At<Option<At<Nesting>>>>,
    pub min_items: Option<At<u64>>,
    pub max_items: Option<At<u64>>,
    pub requires_replace: Option<Span>,
    /// `requires_replace_if_configured`, `requires_replace_if = path`.
    pub requires_replace_if_configured: Option<Span>,
    pub requires_replace_if: Option<At<syn::Path>>,
    /// `one_of = ["a", "b"]`: the accepted strings, and where the key was written.
    pub one_of: Option<At<Vec<String>>>,
    pub min_length: Option<At<u64>>,
    pub max_length: Option<At<u64>>,
    pub pattern: Option<At<String>>,
    /// `none_of`, the ranges, `unique`, `each(..)`, `keys(..)`, `validate_with`.
    pub validators: Vec<At<crate::validators::Spec>>,
    /// `conflicts_with = [..]`, `also_requires = [..]`: rules of the struct.
    pub conflicts_with: Option<At<Vec<String>>>,
    pub also_requires: Option<At<Vec<String>>>,
    /// `match_by = "name"`: the attribute that pairs list or set elements with their
    /// prior elements.
    pub match_by: Option<At<String>>,
    /// `default`, `use_state_for_unknown`, `refine(...)`.
    pub plan: crate::plan::PlanAttrs,
    /// An attribute was not recognised (reported): checks that depend on what the field
    /// meant to say stay quiet.
    pub misspelt: bool,
}

/// `#[tfvalue(...)]` on the struct.
#[derive(Default)]
pub struct ContainerAttrs {
    pub description: Option<At<String>>,
    pub markdown: Option<Span>,
    pub deprecated: Option<Span>,
    /// `deprecated = ".."`: why, and what to use instead.
    pub deprecation_message: Option<At<String>>,
    pub version: Option<At<i64>>,
    pub krate: Option<At<syn::Path>>,
    /// `exactly_one_of = [..]` and the other rules, `validate_with`.
    pub rules: Vec<crate::validators::ObjectSpec>,
}

/// What serde's attributes say about a field's name and presence.
#[derive(Default)]
pub struct SerdeField {
    pub rename: Option<At<String>>,
    pub skip_serializing: bool,
    pub flatten: Option<Span>,
    pub skip_serializing_if: Option<Span>,
}

/// What serde's attributes say about the struct.
#[derive(Default)]
pub struct SerdeContainer {
    pub rename_all: Option<String>,
    pub transparent: Option<Span>,
}

pub(crate) fn key_name(meta: &ParseNestedMeta) -> String {
    let path = &meta.path;
    let mut s = String::new();
    for (i, seg) in path.segments.iter().enumerate() {
        if i > 0 {
            s.push_str("::");
        }
        s.push_str(&seg.ident.to_string());
    }
    s
}

/// Skips whatever follows a key (`= value` or `(...)`), so parsing can go on after a
/// mistake.
pub(crate) fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        let _: TokenStream = content.parse()?;
    }
    Ok(())
}

/// A flag: `sensitive`. Reports `sensitive = ...` and repeats.
/// `deprecated`, or `deprecated = "why, and what to use instead"`.
fn deprecated(
    meta: &ParseNestedMeta,
    slot: &mut Option<Span>,
    message: &mut Option<At<String>>,
    errors: &mut Errors,
) -> syn::Result<()> {
    if !meta.input.peek(Token![=]) {
        return flag(meta, slot, errors);
    }
    let span = meta.path.span();
    let v = string_value(meta, errors)?;
    if slot.is_some() {
        errors.push(span, "duplicate tfvalue attribute `deprecated`");
        return Ok(());
    }
    *slot = Some(span);
    *message = v;
    Ok(())
}

pub(crate) fn flag(
    meta: &ParseNestedMeta,
    slot: &mut Option<Span>,
    errors: &mut Errors,
) -> syn::Result<()> {
    let span = meta.path.span();
    let name = key_name(meta);
    if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        errors.push(
            span,
            format_args!("`{name}` takes no value: write `{name}`"),
        );
        skip_value(meta)?;
    }
    if slot.is_some() {
        errors.push(span, format_args!("duplicate tfvalue attribute `{name}`"));
    } else {
        *slot = Some(span);
    }
    Ok(())
}

/// `key = <expr>`, returning the expression (or reporting a missing value).
fn value_expr(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<Expr>> {
    if !meta.input.peek(Token![=]) {
        let name = key_name(meta);
        errors.push(
            meta.path.span(),
            format_args!("`{name}` needs a value: `{name} = ...`"),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    Ok(Some(meta.value()?.parse()?))
}

fn lit_str(expr: &Expr) -> Option<&LitStr> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s),
        _ => None,
    }
}

pub(crate) fn string_value(
    meta: &ParseNestedMeta,
    errors: &mut Errors,
) -> syn::Result<Option<At<String>>> {
    let name = key_name(meta);
    let Some(expr) = value_expr(meta, errors)? else {
        return Ok(None);
    };
    match lit_str(&expr) {
        Some(s) => Ok(Some(At {
            value: s.value(),
            span: s.span(),
        })),
        None => {
            errors.push(
                expr.span(),
                format_args!("`{name}` expects a string literal: `{name} = \"...\"`"),
            );
            Ok(None)
        }
    }
}

/// `key = ["a", "b"]`: a non-empty array of string literals.
pub(crate) fn string_list(
    meta: &ParseNestedMeta,
    errors: &mut Errors,
) -> syn::Result<Option<At<Vec<String>>>> {
    let name = key_name(meta);
    let key_span = meta.path.span();
    if !meta.input.peek(Token![=]) {
        errors.push(
            key_span,
            format_args!("`{name}` needs a value: `{name} = [\"a\", \"b\"]`"),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let input = meta.value()?;
    if !input.peek(syn::token::Bracket) {
        let expr: Expr = input.parse()?;
        errors.push(
            expr.span(),
            format_args!("`{name}` expects an array of string literals: `{name} = [\"a\", \"b\"]`"),
        );
        return Ok(None);
    }
    let content;
    let brackets = syn::bracketed!(content in input);
    let elems = syn::punctuated::Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
    let mut out = Vec::new();
    for elem in &elems {
        match lit_str(elem) {
            Some(s) => {
                let v = s.value();
                if out.contains(&v) {
                    errors.push(s.span(), format_args!("`{v}` is listed twice in `{name}`"));
                }
                out.push(v);
            }
            None => errors.push(
                elem.span(),
                format_args!("`{name}` expects string literals"),
            ),
        }
    }
    let span = brackets.span.join();
    if elems.is_empty() {
        errors.push(
            span,
            format_args!("`{name}` with no values accepts nothing: list the accepted values"),
        );
    }
    Ok(Some(At { value: out, span }))
}

pub(crate) fn int_value<N: std::str::FromStr>(
    meta: &ParseNestedMeta,
    errors: &mut Errors,
    what: &str,
) -> syn::Result<Option<At<N>>>
where
    N::Err: std::fmt::Display,
{
    let name = key_name(meta);
    let Some(expr) = value_expr(meta, errors)? else {
        return Ok(None);
    };
    match &expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => match i.base10_parse::<N>() {
            Ok(value) => Ok(Some(At {
                value,
                span: i.span(),
            })),
            Err(e) => {
                errors.push(i.span(), format_args!("`{name}` expects {what}: {e}"));
                Ok(None)
            }
        },
        _ => {
            errors.push(expr.span(), format_args!("`{name}` expects {what}"));
            Ok(None)
        }
    }
}

pub(crate) fn set_once<T>(
    slot: &mut Option<At<T>>,
    value: Option<At<T>>,
    key: Span,
    name: &str,
    errors: &mut Errors,
) {
    if slot.is_some() {
        errors.push(key, format_args!("duplicate tfvalue attribute `{name}`"));
    } else if let Some(v) = value {
        *slot = Some(v);
    }
}

/// `block`, `block = "list"`, `nested_type`, `nested_type = "set"`.
fn nesting(
    meta: &ParseNestedMeta,
    slot: &mut Option<At<Option<At<Nesting>>>>,
    group_allowed: bool,
    errors: &mut Errors,
) -> syn::Result<()> {
    let span = meta.path.span();
    let name = key_name(meta);
    let mut nesting = None;
    if meta.input.peek(Token![=]) {
        if let Some(s) = string_value(meta, errors)? {
            let found = match s.value.as_str() {
                "single" => Some(Nesting::Single),
                "list" => Some(Nesting::List),
                "set" => Some(Nesting::Set),
                "map" => Some(Nesting::Map),
                "group" if group_allowed => Some(Nesting::Group),
                _ => None,
            };
            match found {
                Some(n) => {
                    nesting = Some(At {
                        value: n,
                        span: s.span,
                    })
                }
                None => {
                    let expected = if group_allowed {
                        "`single`, `list`, `set`, `map` or `group`"
                    } else {
                        "`single`, `list`, `set` or `map`"
                    };
                    errors.push(
                        s.span,
                        format_args!(
                            "unknown nesting mode `{}` for `{name}`, expected {expected}",
                            s.value
                        ),
                    );
                }
            }
        }
    } else if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        errors.push(
            span,
            format_args!("write `{name}` or `{name} = \"<nesting>\"`"),
        );
        skip_value(meta)?;
    }
    if slot.is_some() {
        errors.push(span, format_args!("duplicate tfvalue attribute `{name}`"));
    } else {
        *slot = Some(At {
            value: nesting,
            span,
        });
    }
    Ok(())
}

/// The field attributes, as `#[tfvalue(...)]` takes them (keep in step with the match in
/// [`field_attrs`]): a misspelt one is answered with the nearest and the list.
pub const FIELD_OPTIONS: &[&str] = &[
    "required",
    "optional",
    "computed",
    "sensitive",
    "deprecated",
    "write_only",
    "markdown",
    "description",
    "block",
    "nested_type",
    "min_items",
    "max_items",
    "requires_replace",
    "requires_replace_if_configured",
    "requires_replace_if",
    "one_of",
    "min_length",
    "max_length",
    "pattern",
    "none_of",
    "at_least",
    "at_most",
    "greater_than",
    "less_than",
    "unique",
    "each",
    "keys",
    "validate_with",
    "conflicts_with",
    "also_requires",
    "match_by",
    "default",
    "use_state_for_unknown",
    "refine",
];

/// The container attributes (keep in step with [`container_attrs`]).
pub const CONTAINER_OPTIONS: &[&str] = &[
    "description",
    "markdown",
    "deprecated",
    "version",
    "crate",
    "exactly_one_of",
    "at_least_one_of",
    "conflicting",
    "required_together",
    "validate_with",
];

/// The option nearest `found` when one is close (a few edits away), and all of them
/// quoted, for a message.
fn nearest_and_list<'o>(found: &str, options: &[&'o str]) -> (Option<&'o str>, String) {
    let nearest = options
        .iter()
        .map(|o| (edit_distance(found, o), *o))
        .filter(|(d, o)| *d <= (o.len().max(found.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o);
    let list = options
        .iter()
        .map(|o| format!("`{o}`"))
        .collect::<Vec<_>>()
        .join(", ");
    (nearest, list)
}

/// `unknown tfvalue field attribute `computd`: did you mean `computed`? (...)`: the
/// nearest option when one is close, and the options.
pub(crate) fn unknown_option(what: &str, found: &str, options: &[&str]) -> String {
    match nearest_and_list(found, options) {
        (Some(o), list) => format!(
            "unknown tfvalue {what} attribute `{found}`: did you mean `{o}`? (the {what} attributes are {list})"
        ),
        (None, list) => format!(
            "unknown tfvalue {what} attribute `{found}`: the {what} attributes are {list}"
        ),
    }
}

/// `no attribute `nmae` in this struct: did you mean `name`? (...)`.
pub(crate) fn unknown_name(found: &str, names: &[&str]) -> String {
    match nearest_and_list(found, names) {
        (Some(o), list) => format!(
            "no attribute `{found}` in this struct: did you mean `{o}`? (its attributes are {list})"
        ),
        (None, list) => {
            format!("no attribute `{found}` in this struct (its attributes are {list})")
        }
    }
}

/// The number of single-character insertions, deletions, substitutions and transpositions
/// that turn `a` into `b` (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// Reads every `#[tfvalue(...)]` on a field.
pub fn field_attrs(attrs: &[Attribute], errors: &mut Errors) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("tfvalue")) {
        let result = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            match key_name(&meta).as_str() {
                // required
                "required" => flag(&meta, &mut out.required, errors),
                // optional
                "optional" => flag(&meta, &mut out.optional, errors),
                // computed
                "computed" => flag(&meta, &mut out.computed, errors),
                // sensitive
                "sensitive" => flag(&meta, &mut out.sensitive, errors),
                // deprecated, deprecated = "..."
                "deprecated" => deprecated(&meta, &mut out.deprecated, &mut out.deprecation_message, errors),
                // write_only
                "write_only" => flag(&meta, &mut out.write_only, errors),
                // markdown
                "markdown" => flag(&meta, &mut out.markdown, errors),
                // description = "..."
                "description" => {
                    let v = string_value(&meta, errors)?;
                    set_once(&mut out.description, v, span, "description", errors);
                    Ok(())
                }
                // block | block = "single" | "list" | "set" | "map" | "group"
                "block" => nesting(&meta, &mut out.block, true, errors),
                // nested_type | nested_type = "single" | "list" | "set" | "map"
                "nested_type" => nesting(&meta, &mut out.nested_type, false, errors),
                // min_items = N
                "min_items" => {
                    let v = int_value(&meta, errors, "a non-negative integer")?;
                    set_once(&mut out.min_items, v, span, "min_items", errors);
                    Ok(())
                }
                // max_items = N
                "max_items" => {
                    let v = int_value(&meta, errors, "a non-negative integer")?;
                    set_once(&mut out.max_items, v, span, "max_items", errors);
                    Ok(())
                }
                // requires_replace
                "requires_replace" => flag(&meta, &mut out.requires_replace, errors),
                // requires_replace_if_configured
                "requires_replace_if_configured" => {
                    flag(&meta, &mut out.requires_replace_if_configured, errors)
                }
                // requires_replace_if = path::to::function
                "requires_replace_if" => {
                    let v = crate::validators::path_value(&meta, errors)?
                        .map(|p| At { value: p, span });
                    set_once(&mut out.requires_replace_if, v, span, "requires_replace_if", errors);
                    Ok(())
                }
                // one_of = ["a", "b"]
                "one_of" => {
                    let v = string_list(&meta, errors)?;
                    set_once(&mut out.one_of, v, span, "one_of", errors);
                    Ok(())
                }
                // min_length = N
                "min_length" => {
                    let v = int_value(&meta, errors, "a non-negative integer")?;
                    set_once(&mut out.min_length, v, span, "min_length", errors);
                    Ok(())
                }
                // max_length = N
                "max_length" => {
                    let v = int_value(&meta, errors, "a non-negative integer")?;
                    set_once(&mut out.max_length, v, span, "max_length", errors);
                    Ok(())
                }
                // pattern = "^[a-z]+$"
                "pattern" => {
                    let v = string_value(&meta, errors)?;
                    set_once(&mut out.pattern, v, span, "pattern", errors);
                    Ok(())
                }
                // none_of = [..], at_least = N, at_most = N, greater_than = N,
                // less_than = N, unique, each(..), keys(..), validate_with = path
                name @ ("none_of" | "at_least" | "at_most" | "greater_than" | "less_than"
                | "unique" | "each" | "keys" | "validate_with") => {
                    if let Some(Some(spec)) = crate::validators::parse_one(&meta, name, errors)? {
                        if out.validators.iter().any(|v| v.value.key() == spec.value.key()) {
                            errors.push(span, format_args!("duplicate tfvalue attribute `{name}`"));
                        }
                        out.validators.push(spec);
                    }
                    Ok(())
                }
                // conflicts_with = ["a"], also_requires = ["b"]
                name @ ("conflicts_with" | "also_requires") => {
                    let v = string_list(&meta, errors)?;
                    let slot = if name == "conflicts_with" {
                        &mut out.conflicts_with
                    } else {
                        &mut out.also_requires
                    };
                    set_once(slot, v, span, name, errors);
                    Ok(())
                }
                // match_by = "name"
                "match_by" => {
                    let v = string_value(&meta, errors)?;
                    set_once(&mut out.match_by, v, span, "match_by", errors);
                    Ok(())
                }
                // default = <literal>
                "default" => crate::plan::default(&meta, &mut out.plan, errors),
                // use_state_for_unknown
                "use_state_for_unknown" => {
                    crate::plan::use_state_for_unknown(&meta, &mut out.plan, errors)
                }
                // refine(not_null, prefix = "...", min = N, ...)
                "refine" => crate::plan::refine(&meta, &mut out.plan, errors),
                "rename" | "rename_all" => {
                    errors.push(
                        span,
                        format_args!(
                            "unknown tfvalue field attribute `{}`: attribute names come from `#[serde(rename = \"...\")]`",
                            key_name(&meta)
                        ),
                    );
                    skip_value(&meta)
                }
                other => {
                    errors.push(span, unknown_option("field", other, FIELD_OPTIONS));
                    out.misspelt = true;
                    skip_value(&meta)
                }
            }
        });
        if let Err(e) = result {
            errors.push_error(e);
        }
    }
    out
}

/// Reads every `#[tfvalue(...)]` on the struct.
pub fn container_attrs(attrs: &[Attribute], errors: &mut Errors) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("tfvalue")) {
        let result = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            match key_name(&meta).as_str() {
                // description = "..."
                "description" => {
                    let v = string_value(&meta, errors)?;
                    set_once(&mut out.description, v, span, "description", errors);
                    Ok(())
                }
                // markdown
                "markdown" => flag(&meta, &mut out.markdown, errors),
                // deprecated, deprecated = "..."
                "deprecated" => deprecated(&meta, &mut out.deprecated, &mut out.deprecation_message, errors),
                // version = N
                "version" => {
                    let v = int_value(&meta, errors, "an integer")?;
                    set_once(&mut out.version, v, span, "version", errors);
                    Ok(())
                }
                // crate = "path::to::tfvalue"
                "crate" => {
                    let v = match string_value(&meta, errors)? {
                        Some(s) => match syn::parse_str::<syn::Path>(&s.value) {
                            Ok(path) => Some(At { value: path, span: s.span }),
                            Err(_) => {
                                errors.push(s.span, format_args!("`crate` expects a path such as \"::tfvalue\", found {:?}", s.value));
                                None
                            }
                        },
                        None => None,
                    };
                    set_once(&mut out.krate, v, span, "crate", errors);
                    Ok(())
                }
                // exactly_one_of = ["a", "b"], at_least_one_of, conflicting,
                // required_together (each as often as needed)
                name @ ("exactly_one_of" | "at_least_one_of" | "conflicting" | "required_together") => {
                    let key = crate::validators::GROUPS
                        .iter()
                        .find(|g| **g == name)
                        .copied()
                        .unwrap_or("conflicting");
                    if let Some(v) = string_list(&meta, errors)? {
                        out.rules.push(crate::validators::ObjectSpec::Group(key, v));
                    }
                    Ok(())
                }
                // validate_with = path::to::function
                "validate_with" => {
                    if let Some(p) = crate::validators::path_value(&meta, errors)? {
                        out.rules.push(crate::validators::ObjectSpec::Custom(p));
                    }
                    Ok(())
                }
                other => {
                    errors.push(span, unknown_option("container", other, CONTAINER_OPTIONS));
                    skip_value(&meta)
                }
            }
        });
        if let Err(e) = result {
            errors.push_error(e);
        }
    }
    out
}

/// `rename = "x"` or `rename(serialize = "x", deserialize = "y")`: the serialized name,
/// reporting names that differ (a value would not read back what it wrote).
fn serde_rename(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<At<String>>> {
    if meta.input.peek(Token![=]) {
        let expr: Expr = meta.value()?.parse()?;
        return Ok(lit_str(&expr).map(|s| At {
            value: s.value(),
            span: s.span(),
        }));
    }
    let mut ser = None;
    let mut de = None;
    meta.parse_nested_meta(|inner| {
        let expr: Expr = inner.value()?.parse()?;
        if let Some(s) = lit_str(&expr) {
            let v = At {
                value: s.value(),
                span: s.span(),
            };
            if inner.path.is_ident("serialize") {
                ser = Some(v);
            } else if inner.path.is_ident("deserialize") {
                de = Some(v);
            }
        }
        Ok(())
    })?;
    if let (Some(s), Some(d)) = (&ser, &de) {
        if s.value != d.value {
            errors.push(
                d.span,
                format_args!(
                    "#[derive(TfValue)] needs one name per attribute, but serde writes `{}` and reads `{}`",
                    s.value, d.value
                ),
            );
        }
    }
    Ok(ser.or(de))
}

/// Reads the `#[serde(...)]` attributes of a field. Syntax errors are left to serde's
/// own derive, which reports them.
pub fn serde_field(attrs: &[Attribute], errors: &mut Errors) -> SerdeField {
    let mut out = SerdeField::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            match key_name(&meta).as_str() {
                "rename" => out.rename = serde_rename(&meta, errors)?.or(out.rename.take()),
                "skip" | "skip_serializing" => out.skip_serializing = true,
                "flatten" => out.flatten = Some(span),
                "skip_serializing_if" => {
                    out.skip_serializing_if = Some(span);
                    skip_value(&meta)?;
                }
                _ => skip_value(&meta)?,
            }
            Ok(())
        });
    }
    out
}

/// Reads the `#[serde(...)]` attributes of the struct.
pub fn serde_container(attrs: &[Attribute]) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            match key_name(&meta).as_str() {
                "rename_all" => {
                    if meta.input.peek(Token![=]) {
                        let expr: Expr = meta.value()?.parse()?;
                        out.rename_all = lit_str(&expr).map(LitStr::value);
                    } else {
                        meta.parse_nested_meta(|inner| {
                            let expr: Expr = inner.value()?.parse()?;
                            if inner.path.is_ident("serialize") {
                                out.rename_all = lit_str(&expr).map(LitStr::value);
                            }
                            Ok(())
                        })?;
                    }
                }
                "transparent" => out.transparent = Some(meta.path.span()),
                _ => skip_value(&meta)?,
            }
            Ok(())
        });
    }
    out
}

/// The doc comment, as a description: lines trimmed and joined.
pub fn doc_comment(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let Some(s) = lit_str(&nv.value) {
                lines.push(s.value().trim().to_owned());
            }
        }
    }
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// serde's `rename_all` applied to a field name (which is snake_case in Rust).
pub fn apply_rename_all(rule: &str, field: &str) -> String {
    let pascal = || {
        field
            .split('_')
            .map(|part| {
                let mut chars = part.chars();
                match chars.next() {
                    Some(c) => c.to_ascii_uppercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            })
            .collect::<String>()
    };
    match rule {
        "UPPERCASE" | "SCREAMING_SNAKE_CASE" => field.to_ascii_uppercase(),
        "PascalCase" => pascal(),
        "camelCase" => {
            let p = pascal();
            let mut chars = p.chars();
            match chars.next() {
                Some(c) => c.to_ascii_lowercase().to_string() + chars.as_str(),
                None => p,
            }
        }
        "kebab-case" => field.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => field.to_ascii_uppercase().replace('_', "-"),
        // "lowercase", "snake_case", and rules serde itself rejects.
        _ => field.to_owned(),
    }
}

/// serde's `rename_all` applied to a variant name (which is PascalCase in Rust).
pub fn apply_rename_all_variant(rule: &str, variant: &str) -> String {
    let snake = || {
        let mut out = String::new();
        for (i, c) in variant.char_indices() {
            if c.is_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    };
    match rule {
        "lowercase" => variant.to_ascii_lowercase(),
        "UPPERCASE" => variant.to_ascii_uppercase(),
        "camelCase" => {
            let mut chars = variant.chars();
            match chars.next() {
                Some(c) => c.to_ascii_lowercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        }
        "snake_case" => snake(),
        "SCREAMING_SNAKE_CASE" => snake().to_ascii_uppercase(),
        "kebab-case" => snake().replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => snake().to_ascii_uppercase().replace('_', "-"),
        // "PascalCase", and rules serde itself rejects.
        _ => variant.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspellings_find_the_option() {
        assert_eq!(edit_distance("computd", "computed"), 1);
        assert_eq!(edit_distance("requird", "required"), 1);
        assert_eq!(edit_distance("optinoal", "optional"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert!(
            unknown_option("field", "computd", FIELD_OPTIONS).contains("did you mean `computed`?")
        );
        assert!(unknown_option("field", "senstive", FIELD_OPTIONS)
            .contains("did you mean `sensitive`?"));
        assert!(!unknown_option("field", "frobnicate", FIELD_OPTIONS).contains("did you mean"));
    }

    /// Every option the message lists is one the parser takes.
    #[test]
    fn the_lists_are_the_options() {
        use syn::parse::Parser;
        let parse = |option: &str| {
            Attribute::parse_outer
                .parse_str(&format!("#[tfvalue({option})]"))
                .unwrap()
        };
        for option in FIELD_OPTIONS {
            let mut errors = Errors::default();
            field_attrs(&parse(option), &mut errors);
            assert!(
                errors
                    .0
                    .iter()
                    .all(|e| !e.to_string().starts_with("unknown")),
                "{option}"
            );
        }
        for option in CONTAINER_OPTIONS {
            let mut errors = Errors::default();
            container_attrs(&parse(option), &mut errors);
            assert!(
                errors
                    .0
                    .iter()
                    .all(|e| !e.to_string().starts_with("unknown")),
                "{option}"
            );
        }
    }
}
