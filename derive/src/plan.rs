//! The planner's facts of a field: `default = <literal>`, `use_state_for_unknown` and
//! `refine(...)`. Parsed here (called from `attr`), checked against the field's role and
//! type (called from `ast`), and written as builder calls on the attribute (`expand`).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Expr, Lit, Token, UnOp};

use crate::attr::{flag, int_value, key_name, set_once, skip_value, string_value, At, Errors};

/// A literal as written in `default = ..` or a numeric refinement.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Str(String),
    /// An integer, as base-10 text with its sign.
    Int(String),
    /// A number with a fraction or an exponent, as text with its sign.
    Float(String),
    Bool(bool),
    /// `null`, inside a list or an object.
    Null,
    /// `[a, b]`: a list or set.
    List(Vec<Literal>),
    /// `{ name = value, .. }`: a map or an object, as HCL writes one.
    Object(Vec<(String, Literal)>),
}

impl Literal {
    fn describe(&self) -> &'static str {
        match self {
            Literal::Str(_) => "a string",
            Literal::Int(_) | Literal::Float(_) => "a number",
            Literal::Bool(_) => "a bool",
            Literal::Null => "null",
            Literal::List(_) => "a list",
            Literal::Object(_) => "an object",
        }
    }

    fn composite(&self) -> bool {
        matches!(self, Literal::List(_) | Literal::Object(_))
    }

    /// Every number inside fits tfvalue's `Number`.
    fn numbers_fit(&self) -> bool {
        match self {
            Literal::Int(t) | Literal::Float(t) => number_fits(t),
            Literal::List(vs) => vs.iter().all(Literal::numbers_fit),
            Literal::Object(ps) => ps.iter().all(|(_, v)| v.numbers_fit()),
            _ => true,
        }
    }

    fn number_text(&self) -> Option<&str> {
        match self {
            Literal::Int(t) | Literal::Float(t) => Some(t),
            _ => None,
        }
    }
}

/// `refine(...)`: each refinement and where it was written.
#[derive(Default)]
pub struct Refine {
    pub not_null: Option<Span>,
    pub prefix: Option<At<String>>,
    pub min: Option<At<String>>,
    pub max: Option<At<String>>,
    pub exclusive_min: Option<At<String>>,
    pub exclusive_max: Option<At<String>>,
    pub min_length: Option<At<u64>>,
    pub max_length: Option<At<u64>>,
}

impl Refine {
    fn has_prefix(&self) -> Option<Span> {
        self.prefix.as_ref().map(|p| p.span)
    }

    fn has_bounds(&self) -> Option<Span> {
        [
            &self.min,
            &self.max,
            &self.exclusive_min,
            &self.exclusive_max,
        ]
        .into_iter()
        .flatten()
        .map(|b| b.span)
        .next()
    }

    fn has_length(&self) -> Option<Span> {
        [&self.min_length, &self.max_length]
            .into_iter()
            .flatten()
            .map(|b| b.span)
            .next()
    }
}

/// The planner's attributes of a field.
#[derive(Default)]
pub struct PlanAttrs {
    pub default: Option<At<Literal>>,
    pub use_state_for_unknown: Option<Span>,
    /// `refine(...)`, at the span of the key.
    pub refine: Option<At<Refine>>,
}

const REFINEMENTS: &str =
    "`not_null`, `prefix`, `min`, `max`, `exclusive_min`, `exclusive_max`, `min_length` or `max_length`";

/// The longest number text accepted (tfvalue's `MAX_NUMBER_TEXT_LEN`), roughly: digits
/// plus the exponent's size.
const MAX_NUMBER_TEXT: i64 = 4096;

/// A literal expression: a string, bool, or a number with an optional `-`.
fn literal(expr: &Expr) -> Option<Literal> {
    match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(Literal::Str(s.value())),
            Lit::Bool(b) => Some(Literal::Bool(b.value)),
            Lit::Int(i) => Some(Literal::Int(i.base10_digits().to_owned())),
            Lit::Float(f) => Some(Literal::Float(f.base10_digits().to_owned())),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match literal(&u.expr)? {
            Literal::Int(t) => Some(Literal::Int(format!("-{t}"))),
            Literal::Float(t) => Some(Literal::Float(format!("-{t}"))),
            _ => None,
        },
        Expr::Group(g) => literal(&g.expr),
        _ => None,
    }
}

/// A literal as HCL writes it: a string, number, bool or `null`, `[..]` of literals, or
/// `{ name = literal, .. }` (names bare or quoted, commas optional). Returns `None`
/// (having read the tokens) for anything else, with the span of the first token.
fn value_literal(input: syn::parse::ParseStream) -> syn::Result<(Option<Literal>, Option<Span>)> {
    let span = input.span();
    if input.peek(syn::token::Brace) {
        let content;
        syn::braced!(content in input);
        let mut pairs: Vec<(String, Literal)> = Vec::new();
        let mut ok = true;
        while !content.is_empty() {
            let key = if content.peek(syn::LitStr) {
                content.parse::<syn::LitStr>()?.value()
            } else {
                syn::ext::IdentExt::unraw(
                    &content.call(<syn::Ident as syn::ext::IdentExt>::parse_any)?,
                )
                .to_string()
            };
            if content.peek(Token![:]) {
                content.parse::<Token![:]>()?;
            } else {
                content.parse::<Token![=]>()?;
            }
            let (v, _) = value_literal(&content)?;
            match v {
                Some(v) if !pairs.iter().any(|(k, _)| *k == key) => pairs.push((key, v)),
                _ => ok = false,
            }
            if content.peek(Token![,]) {
                content.parse::<Token![,]>()?;
            }
        }
        return Ok((ok.then_some(Literal::Object(pairs)), Some(span)));
    }
    if input.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in input);
        let mut items = Vec::new();
        let mut ok = true;
        while !content.is_empty() {
            match value_literal(&content)?.0 {
                Some(v) => items.push(v),
                None => ok = false,
            }
            if content.peek(Token![,]) {
                content.parse::<Token![,]>()?;
            }
        }
        return Ok((ok.then_some(Literal::List(items)), Some(span)));
    }
    let expr: Expr = input.parse()?;
    let span = expr.span();
    if let Expr::Path(p) = &expr {
        if p.path.is_ident("null") {
            return Ok((Some(Literal::Null), Some(span)));
        }
    }
    Ok((literal(&expr), Some(span)))
}

/// Whether number text is within what tfvalue's `Number` reads.
fn number_fits(text: &str) -> bool {
    let body = text.trim_start_matches('-');
    let (mantissa, exp) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(i64::MAX)),
        None => (body, 0),
    };
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).count() as i64;
    digits.saturating_add(exp.saturating_abs()) < MAX_NUMBER_TEXT
}

/// A number literal for `key = ..`.
pub(crate) fn number(
    meta: &ParseNestedMeta,
    errors: &mut Errors,
) -> syn::Result<Option<At<String>>> {
    let name = key_name(meta);
    if !meta.input.peek(Token![=]) {
        errors.push(
            meta.path.span(),
            format_args!("`{name}` needs a value: `{name} = 0`"),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let expr: Expr = meta.value()?.parse()?;
    match literal(&expr).as_ref().and_then(Literal::number_text) {
        Some(t) if number_fits(t) => Ok(Some(At {
            value: t.to_owned(),
            span: expr.span(),
        })),
        Some(_) => {
            errors.push(expr.span(), "the number is too long for tfvalue's `Number`");
            Ok(None)
        }
        None => {
            errors.push(
                expr.span(),
                format_args!("`{name}` expects a number literal: `{name} = 0`"),
            );
            Ok(None)
        }
    }
}

/// `default = <literal>`.
pub fn default(
    meta: &ParseNestedMeta,
    out: &mut PlanAttrs,
    errors: &mut Errors,
) -> syn::Result<()> {
    let span = meta.path.span();
    if !meta.input.peek(Token![=]) {
        errors.push(span, "`default` needs a value: `default = 3600`");
        skip_value(meta)?;
        return Ok(());
    }
    let input = meta.value()?;
    let start = input.span();
    let (parsed, at) = value_literal(input)?;
    let span = at.unwrap_or(start);
    let value = match parsed {
        Some(l) if !l.numbers_fit() => {
            errors.push(span, "the number is too long for tfvalue's `Number`");
            None
        }
        Some(Literal::Null) => {
            errors.push(span, "a default of null is no default: leave `default` out");
            None
        }
        Some(l) => Some(At { value: l, span }),
        None => {
            errors.push(
                span,
                "`default` expects a literal as HCL writes it: `default = \"eu\"`, `default = 3600`, `default = true`, `default = [\"a\", \"b\"]`, `default = { env = \"dev\" }`",
            );
            None
        }
    };
    set_once(&mut out.default, value, span, "default", errors);
    Ok(())
}

/// `use_state_for_unknown`.
pub fn use_state_for_unknown(
    meta: &ParseNestedMeta,
    out: &mut PlanAttrs,
    errors: &mut Errors,
) -> syn::Result<()> {
    flag(meta, &mut out.use_state_for_unknown, errors)
}

/// `refine(not_null, prefix = "..", min = 1, ...)`.
pub fn refine(meta: &ParseNestedMeta, out: &mut PlanAttrs, errors: &mut Errors) -> syn::Result<()> {
    let span = meta.path.span();
    if !meta.input.peek(syn::token::Paren) {
        errors.push(
            span,
            "`refine` lists refinements: `refine(not_null, prefix = \"id-\")`",
        );
        skip_value(meta)?;
        return Ok(());
    }
    let mut r = Refine::default();
    let mut any = false;
    meta.parse_nested_meta(|inner| {
        any = true;
        let key = inner.path.span();
        match key_name(&inner).as_str() {
            // not_null
            "not_null" => flag(&inner, &mut r.not_null, errors),
            // prefix = "..."
            "prefix" => {
                let v = string_value(&inner, errors)?;
                if let Some(p) = v.as_ref().filter(|p| p.value.is_empty()) {
                    errors.push(p.span, "`prefix = \"\"` promises nothing: give the prefix");
                }
                set_once(&mut r.prefix, v, key, "prefix", errors);
                Ok(())
            }
            // min = N, max = N, exclusive_min = N, exclusive_max = N
            name @ ("min" | "max" | "exclusive_min" | "exclusive_max") => {
                let v = number(&inner, errors)?;
                let slot = match name {
                    "min" => &mut r.min,
                    "max" => &mut r.max,
                    "exclusive_min" => &mut r.exclusive_min,
                    _ => &mut r.exclusive_max,
                };
                set_once(slot, v, key, name, errors);
                Ok(())
            }
            // min_length = N, max_length = N
            name @ ("min_length" | "max_length") => {
                let v = int_value(&inner, errors, "a non-negative integer")?;
                let slot = if name == "min_length" {
                    &mut r.min_length
                } else {
                    &mut r.max_length
                };
                set_once(slot, v, key, name, errors);
                Ok(())
            }
            other => {
                errors.push(
                    key,
                    format_args!("unknown refinement `{other}`, expected {REFINEMENTS}"),
                );
                skip_value(&inner)
            }
        }
    })?;
    if !any {
        errors.push(
            span,
            format_args!("`refine()` refines nothing: list one or more of {REFINEMENTS}"),
        );
    }
    for (a, b, what) in [
        (&r.min, &r.exclusive_min, "lower"),
        (&r.max, &r.exclusive_max, "upper"),
    ] {
        if let (Some(_), Some(b)) = (a, b) {
            errors.push(
                b.span,
                format_args!("an unknown has one {what} bound: give `min`/`max` (inclusive) or `exclusive_min`/`exclusive_max`, not both"),
            );
        }
    }
    let lower = r.min.as_ref().or(r.exclusive_min.as_ref());
    let upper = r.max.as_ref().or(r.exclusive_max.as_ref());
    if let (Some(lo), Some(hi)) = (lower, upper) {
        if let (Ok(l), Ok(h)) = (lo.value.parse::<f64>(), hi.value.parse::<f64>()) {
            if h < l {
                errors.push(
                    hi.span,
                    format_args!(
                        "the upper bound {} is below the lower bound {}",
                        hi.value, lo.value
                    ),
                );
            }
        }
    }
    if let (Some(lo), Some(hi)) = (&r.min_length, &r.max_length) {
        if hi.value < lo.value {
            errors.push(
                hi.span,
                format_args!(
                    "`max_length = {}` is less than `min_length = {}`",
                    hi.value, lo.value
                ),
            );
        }
    }
    let value = Some(At { value: r, span });
    set_once(&mut out.refine, value, span, "refine", errors);
    Ok(())
}

/// What the derive knows of a field, for the checks.
pub struct FieldKind<'a> {
    pub block: bool,
    pub nested: bool,
    pub computed: bool,
    /// The value's type name, when it is a well-known one (`String`, `u32`, ...).
    pub primitive: Option<&'a str>,
    /// The value is a list, set or map (or a nested attribute of one).
    pub collection: bool,
    /// The value is a bare `Dynamic`.
    pub dynamic: bool,
}

fn is_string(name: &str) -> bool {
    matches!(name, "String" | "str" | "Cow")
}

fn is_number(name: &str) -> bool {
    matches!(
        name,
        "i8" | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "f32"
            | "f64"
            | "Number"
    )
}

/// Checks the planner's facts against the field's role and type, reporting each mistake.
pub fn check(p: &PlanAttrs, k: &FieldKind<'_>, errors: &mut Errors) {
    let keys = [
        (p.default.as_ref().map(|d| d.span), "default"),
        (p.use_state_for_unknown, "use_state_for_unknown"),
        (p.refine.as_ref().map(|r| r.span), "refine"),
    ];
    if k.block {
        for (span, name) in keys {
            if let Some(span) = span {
                errors.push(
                    span,
                    format_args!(
                        "`{name}` does not apply to a block: blocks are set by configuration"
                    ),
                );
            }
        }
        return;
    }
    if !k.computed {
        for (span, name) in keys {
            let Some(span) = span else { continue };
            let why = match name {
                "default" => "Terraform accepts a planned value the configuration left null only for a computed attribute: write `optional, computed`",
                "use_state_for_unknown" => "the planner keeps the prior value only of attributes the provider sets",
                _ => "the planner plans only computed attributes unknown",
            };
            errors.push(span, format_args!("`{name}` needs `computed`: {why}"));
        }
        return;
    }
    if let Some(d) = &p.default {
        if let Some(span) = p.use_state_for_unknown {
            errors.push(
                span,
                "`use_state_for_unknown` has no effect with `default`: the default is planned whenever configuration leaves the attribute null",
            );
        }
        if let Some(r) = &p.refine {
            errors.push(
                r.span,
                "`refine` has no effect with `default`: an attribute with a default is never planned unknown",
            );
        }
        let mismatch = if d.value.composite() {
            // Its shape against the type is the schema check's (the derive cannot see
            // into the models of nested attributes).
            k.primitive
                .filter(|n| *n != "Dynamic")
                .filter(|_| !k.collection && !k.nested)
                .map(|name| format!("`{name}`"))
        } else if k.nested {
            Some("an attribute with nested attributes".to_owned())
        } else if k.dynamic {
            Some("a `dynamic` attribute".to_owned())
        } else if k.collection {
            Some("a collection".to_owned())
        } else {
            k.primitive.and_then(|name| {
                let fits = match &d.value {
                    Literal::Str(_) => is_string(name),
                    Literal::Int(t) => {
                        is_number(name) && !(t.starts_with('-') && name.starts_with('u'))
                    }
                    Literal::Float(_) => matches!(name, "f32" | "f64" | "Number"),
                    Literal::Bool(_) => name == "bool",
                    Literal::Null | Literal::List(_) | Literal::Object(_) => true,
                };
                (!fits).then(|| format!("`{name}`"))
            })
        };
        if let Some(what) = mismatch {
            errors.push(
                d.span,
                format_args!(
                    "the default is {}, which does not fit {what}",
                    d.value.describe()
                ),
            );
        }
    }
    if let Some(r) = &p.refine {
        let r = &r.value;
        if k.dynamic {
            if let Some(span) = r
                .not_null
                .or(r.has_prefix())
                .or(r.has_bounds())
                .or(r.has_length())
            {
                errors.push(
                    span,
                    "a `dynamic` attribute cannot be refined: Terraform's wire form of a dynamic unknown has no refinements",
                );
            }
            return;
        }
        let kind = if k.nested {
            if k.collection {
                Some("a collection of nested attributes")
            } else {
                Some("an object")
            }
        } else if k.collection {
            Some("a collection")
        } else {
            match k.primitive {
                Some(n) if is_string(n) => Some("a string"),
                Some(n) if is_number(n) => Some("a number"),
                Some("bool") => Some("a bool"),
                _ => None,
            }
        };
        let Some(kind) = kind else { return };
        let checks = [
            (
                r.has_prefix(),
                "a prefix refines strings",
                kind == "a string",
            ),
            (r.has_bounds(), "bounds refine numbers", kind == "a number"),
            (
                r.has_length(),
                "a length refines lists, sets and maps",
                kind.contains("collection"),
            ),
        ];
        for (span, what, ok) in checks {
            if let (Some(span), false) = (span, ok) {
                errors.push(span, format_args!("{what}, and this attribute is {kind}"));
            }
        }
    }
}

/// A literal as a `tfvalue::Value` expression (a tuple for `[..]`, an object for `{..}`:
/// `Attribute::default_value` converts them to the attribute's type).
fn value_tokens(l: &Literal, krate: &TokenStream) -> TokenStream {
    let v = quote!(#krate::Value);
    match l {
        Literal::Str(s) => quote!(#v::String(::std::string::String::from(#s))),
        Literal::Int(t) | Literal::Float(t) => quote!(#v::Number(#krate::__private::number(#t))),
        Literal::Bool(b) => quote!(#v::Bool(#b)),
        Literal::Null => quote!(#v::Null),
        Literal::List(items) => {
            let items = items.iter().map(|i| value_tokens(i, krate));
            quote!(#v::Tuple(#krate::__private::vec![#(#items),*]))
        }
        Literal::Object(pairs) => {
            let pairs = pairs.iter().map(|(k, x)| {
                let x = value_tokens(x, krate);
                quote!((#k, #x))
            });
            quote!(#krate::__private::object(#krate::__private::vec![#(#pairs),*]))
        }
    }
}

/// The builder calls that set the facts on the attribute.
pub fn tokens(p: &PlanAttrs, krate: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let number = |t: &str| quote!(#krate::__private::number(#t));
    if let Some(d) = &p.default {
        let value = match &d.value {
            Literal::Str(s) => {
                quote!(#krate::__private::DefaultValue::String(::std::string::String::from(#s)))
            }
            Literal::Int(t) | Literal::Float(t) => {
                let n = number(t);
                quote!(#krate::__private::DefaultValue::Number(#n))
            }
            Literal::Bool(b) => quote!(#krate::__private::DefaultValue::Bool(#b)),
            composite => {
                let v = value_tokens(composite, krate);
                quote!(#krate::__private::DefaultValue::Value(#v))
            }
        };
        out.extend(quote!(.default_value(#value)));
    }
    if p.use_state_for_unknown.is_some() {
        out.extend(quote!(.use_state_for_unknown()));
    }
    if let Some(r) = &p.refine {
        let r = &r.value;
        let mut chain = TokenStream::new();
        if r.not_null.is_some() {
            chain.extend(quote!(.not_null()));
        }
        if let Some(prefix) = &r.prefix {
            let s = &prefix.value;
            chain.extend(quote!(.with_prefix(#s)));
        }
        for (b, lower, inclusive) in [
            (&r.min, true, true),
            (&r.exclusive_min, true, false),
            (&r.max, false, true),
            (&r.exclusive_max, false, false),
        ] {
            if let Some(b) = b {
                let n = number(&b.value);
                chain.extend(if lower {
                    quote!(.with_lower_bound(#n, #inclusive))
                } else {
                    quote!(.with_upper_bound(#n, #inclusive))
                });
            }
        }
        if let Some(n) = &r.min_length {
            let n = n.value;
            chain.extend(quote!(.with_min_length(#n)));
        }
        if let Some(n) = &r.max_length {
            let n = n.value;
            chain.extend(quote!(.with_max_length(#n)));
        }
        out.extend(quote!(.refine(#krate::__private::Refinements::new() #chain)));
    }
    out
}
