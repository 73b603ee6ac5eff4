//! The validators beyond `one_of`, lengths and `pattern`: on a field `none_of`, the
//! number ranges, `unique`, `each(..)`, `keys(..)`, `validate_with`, `conflicts_with`
//! and `also_requires`; on the struct `exactly_one_of`, `at_least_one_of`, `conflicting`,
//! `required_together` and `validate_with`. Parsed, checked against the field's type (a
//! validator that could never apply is a compile error, not a silent no-op), and
//! written as `.validator(..)` calls.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::Token;

use crate::attr::{self, At, Errors, Nesting};

/// One value validator, as written.
#[derive(Clone)]
pub enum Spec {
    OneOf(Vec<String>),
    NoneOf(Vec<String>),
    Length(Option<u64>, Option<u64>),
    Pattern(String),
    /// `at_least`, `at_most`, `greater_than` or `less_than`, and the number's text.
    Range(&'static str, String),
    Unique,
    Each(Vec<At<Spec>>),
    Keys(Vec<At<Spec>>),
    Custom(syn::Path),
}

impl Spec {
    pub fn key(&self) -> &'static str {
        match self {
            Spec::OneOf(_) => "one_of",
            Spec::NoneOf(_) => "none_of",
            Spec::Length(..) => "min_length/max_length",
            Spec::Pattern(_) => "pattern",
            Spec::Range(k, _) => k,
            Spec::Unique => "unique",
            Spec::Each(_) => "each",
            Spec::Keys(_) => "keys",
            Spec::Custom(_) => "validate_with",
        }
    }
}

/// The validators `each(..)` and `keys(..)` take (keep in step with [`inner`]).
pub const INNER_OPTIONS: &[&str] = &[
    "one_of",
    "none_of",
    "min_length",
    "max_length",
    "pattern",
    "at_least",
    "at_most",
    "greater_than",
    "less_than",
    "unique",
    "each",
    "keys",
    "validate_with",
];

/// The range keys.
const RANGES: [&str; 4] = ["at_least", "at_most", "greater_than", "less_than"];

/// Parses one value validator key shared by fields and `each(..)`/`keys(..)`; `None`
/// when `name` is not one.
pub fn parse_one(
    meta: &ParseNestedMeta,
    name: &str,
    errors: &mut Errors,
) -> syn::Result<Option<Option<At<Spec>>>> {
    let span = meta.path.span();
    let at = |value: Spec| Some(At { value, span });
    let spec = match name {
        "none_of" => attr::string_list(meta, errors)?.and_then(|v| at(Spec::NoneOf(v.value))),
        "one_of" => attr::string_list(meta, errors)?.and_then(|v| at(Spec::OneOf(v.value))),
        "pattern" => match attr::string_value(meta, errors)? {
            Some(p) => {
                if let Err(e) = crate::pattern::check(&p.value) {
                    errors.push(p.span, format_args!("invalid pattern: {e}"));
                }
                at(Spec::Pattern(p.value))
            }
            None => None,
        },
        "min_length" | "max_length" => {
            let n = attr::int_value::<u64>(meta, errors, "a non-negative integer")?;
            n.and_then(|n| {
                at(if name == "min_length" {
                    Spec::Length(Some(n.value), None)
                } else {
                    Spec::Length(None, Some(n.value))
                })
            })
        }
        k if RANGES.contains(&k) => {
            let key = RANGES
                .iter()
                .find(|r| **r == k)
                .copied()
                .unwrap_or("at_least");
            crate::plan::number(meta, errors)?.and_then(|n| at(Spec::Range(key, n.value)))
        }
        "unique" => {
            let mut slot = None;
            attr::flag(meta, &mut slot, errors)?;
            at(Spec::Unique)
        }
        "each" | "keys" => {
            let inner = inner(meta, name, errors)?;
            at(if name == "each" {
                Spec::Each(inner)
            } else {
                Spec::Keys(inner)
            })
        }
        "validate_with" => path_value(meta, errors)?.and_then(|p| at(Spec::Custom(p))),
        _ => return Ok(None),
    };
    Ok(Some(spec))
}

/// `each(..)` / `keys(..)`: a parenthesized list of validators.
fn inner(meta: &ParseNestedMeta, name: &str, errors: &mut Errors) -> syn::Result<Vec<At<Spec>>> {
    if !meta.input.peek(syn::token::Paren) {
        errors.push(
            meta.path.span(),
            format_args!("`{name}` takes validators: `{name}(pattern = \"...\")`"),
        );
        attr::skip_value(meta)?;
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut misspelt = false;
    meta.parse_nested_meta(|m| {
        let key = attr::key_name(&m);
        match parse_one(&m, &key, errors)? {
            Some(Some(spec)) => out.push(spec),
            Some(None) => {}
            None => {
                misspelt = true;
                errors.push(
                    m.path.span(),
                    attr::unknown_option("validator", &key, INNER_OPTIONS),
                );
                attr::skip_value(&m)?;
            }
        }
        Ok(())
    })?;
    if out.is_empty() && !misspelt {
        errors.push(
            meta.path.span(),
            format_args!("`{name}(..)` with no validators checks nothing"),
        );
    }
    Ok(merge_lengths(out))
}

/// `min_length` and `max_length` written apart make one length validator.
pub fn merge_lengths(specs: Vec<At<Spec>>) -> Vec<At<Spec>> {
    let mut out: Vec<At<Spec>> = Vec::new();
    for s in specs {
        if let Spec::Length(lo, hi) = &s.value {
            if let Some(At {
                value: Spec::Length(plo, phi),
                ..
            }) = out.iter_mut().find(|o| matches!(o.value, Spec::Length(..)))
            {
                *plo = plo.or(*lo);
                *phi = phi.or(*hi);
                continue;
            }
        }
        out.push(s);
    }
    out
}

/// `validate_with = path::to::function`.
pub fn path_value(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Option<syn::Path>> {
    let name = attr::key_name(meta);
    let signature = if name == "requires_replace_if" {
        "fn(prior: &tfvalue::Value, planned: &tfvalue::Value, config: &tfvalue::Value) -> bool"
    } else {
        "fn(&tfvalue::Value) -> Result<(), String>"
    };
    if !meta.input.peek(Token![=]) {
        errors.push(
            meta.path.span(),
            format_args!("`{name}` needs a function: `{name} = path::to::function`"),
        );
        attr::skip_value(meta)?;
        return Ok(None);
    }
    let expr: syn::Expr = meta.value()?.parse()?;
    match expr {
        syn::Expr::Path(p) if p.qself.is_none() => Ok(Some(p.path)),
        other => {
            errors.push(
                other.span(),
                format_args!("`{name}` expects the path of a function `{signature}`"),
            );
            Ok(None)
        }
    }
}

/// `.requires_replace_if_configured()` or `.requires_replace_if(..)`, if asked.
pub fn replace_if_tokens(
    configured: bool,
    custom: Option<&syn::Path>,
    krate: &TokenStream,
) -> TokenStream {
    let _ = krate;
    match (configured, custom) {
        (true, _) => quote!(.requires_replace_if_configured()),
        (false, Some(path)) => {
            let name = path_text(path);
            quote!(.requires_replace_if(#name, #path))
        }
        (false, None) => quote!(),
    }
}

/// What a type's values are, as far as the derive can tell.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Number,
    Bool,
    Collection(Nesting),
    /// `Dynamic`, a model, an alias: the derive cannot tell.
    Unknown,
}

fn kind_of(ty: &syn::Type) -> (Kind, &syn::Type) {
    let s = crate::ast::shape(ty);
    if let Some(n) = s.collection {
        return (Kind::Collection(n), s.elem);
    }
    let kind = match crate::ast::primitive_name(s.elem).as_deref() {
        Some("String" | "str" | "Cow" | "char") => Kind::String,
        Some("bool") => Kind::Bool,
        Some("Dynamic") | None => Kind::Unknown,
        Some(_) => Kind::Number,
    };
    (kind, s.elem)
}

/// Reports each validator that cannot apply to values of `ty`.
pub fn check(specs: &[At<Spec>], ty: &syn::Type, errors: &mut Errors) {
    let (kind, elem) = kind_of(ty);
    for s in specs {
        check_one(s, kind, elem, errors);
    }
}

fn check_one(s: &At<Spec>, kind: Kind, elem: &syn::Type, errors: &mut Errors) {
    if kind == Kind::Unknown {
        return;
    }
    let what = match kind {
        Kind::String => "a string",
        Kind::Number => "a number",
        Kind::Bool => "a bool",
        Kind::Collection(Nesting::List) => "a list",
        Kind::Collection(Nesting::Set) => "a set",
        Kind::Collection(_) => "a map",
        Kind::Unknown => "",
    };
    let fits = match &s.value {
        Spec::OneOf(_) | Spec::NoneOf(_) | Spec::Pattern(_) => kind == Kind::String,
        Spec::Length(..) => matches!(kind, Kind::String | Kind::Collection(_)),
        Spec::Range(..) => kind == Kind::Number,
        Spec::Unique => kind == Kind::Collection(Nesting::List),
        Spec::Each(inner) => {
            if let Kind::Collection(_) = kind {
                check(inner, elem, errors);
                true
            } else {
                false
            }
        }
        Spec::Keys(inner) => {
            if kind == Kind::Collection(Nesting::Map) {
                for i in inner {
                    check_one(i, Kind::String, elem, errors);
                }
                true
            } else {
                false
            }
        }
        Spec::Custom(_) => true,
    };
    if !fits {
        let applies = match &s.value {
            Spec::OneOf(_) | Spec::NoneOf(_) | Spec::Pattern(_) => "strings",
            Spec::Length(..) => "strings and collections",
            Spec::Range(..) => "numbers",
            Spec::Unique => "lists (a set's elements are unique already)",
            Spec::Each(_) => "lists, sets and maps",
            Spec::Keys(_) => "maps",
            Spec::Custom(_) => "anything",
        };
        errors.push(
            s.span,
            format_args!(
                "`{}` applies to {applies}, and this is {what}",
                s.value.key()
            ),
        );
    }
}

/// The expression of one validator.
fn expr(s: &Spec, krate: &TokenStream) -> TokenStream {
    let v = quote!(#krate::__private::Validator);
    match s {
        Spec::OneOf(values) => quote!(#v::one_of([#(#values),*])),
        Spec::NoneOf(values) => quote!(#v::none_of([#(#values),*])),
        Spec::Length(min, max) => {
            let opt = |n: &Option<u64>| match n {
                Some(n) => quote!(#krate::__private::Some(#n)),
                None => quote!(#krate::__private::None),
            };
            let (min, max) = (opt(min), opt(max));
            quote!(#v::Length { min: #min, max: #max })
        }
        Spec::Pattern(p) => {
            quote!(#v::Pattern(#krate::__private::pattern(#p)))
        }
        Spec::Range(key, text) => {
            let f = syn::Ident::new(key, Span::call_site());
            quote!(#v::#f(#krate::__private::number(#text)))
        }
        Spec::Unique => quote!(#v::UniqueElements),
        Spec::Each(inner) | Spec::Keys(inner) => {
            let f = syn::Ident::new(
                if matches!(s, Spec::Each(_)) {
                    "each"
                } else {
                    "keys"
                },
                Span::call_site(),
            );
            let inner = inner.iter().map(|i| expr(&i.value, krate));
            quote!(#v::#f([#(#inner),*]))
        }
        Spec::Custom(path) => {
            let name = path_text(path);
            quote!(#v::custom(#name, #path))
        }
    }
}

fn path_text(path: &syn::Path) -> String {
    quote::ToTokens::to_token_stream(path)
        .to_string()
        .replace(' ', "")
}

/// `.validator(..)` for each.
pub fn tokens(specs: &[At<Spec>], krate: &TokenStream) -> TokenStream {
    let exprs = specs.iter().map(|s| expr(&s.value, krate));
    quote!(#(.validator(#exprs))*)
}

/// A rule of the struct's attributes together.
pub enum ObjectSpec {
    /// `exactly_one_of`, `at_least_one_of`, `conflicting` or `required_together`.
    Group(&'static str, At<Vec<String>>),
    /// `conflicts_with` or `also_requires` on a field: its name and the others.
    Field(&'static str, String, At<Vec<String>>),
    Custom(syn::Path),
}

/// The struct's rules (keep in step with `attr::container_attrs`).
pub const GROUPS: [&str; 4] = [
    "exactly_one_of",
    "at_least_one_of",
    "conflicting",
    "required_together",
];

/// Reports names that are no field's (the first step of a path; the rest is checked
/// by the schema check when the provider starts).
pub fn check_names(rules: &[ObjectSpec], fields: &[&str], errors: &mut Errors) {
    for rule in rules {
        let (key, names, least) = match rule {
            ObjectSpec::Group(k, names) => (*k, names, if k.ends_with("one_of") { 1 } else { 2 }),
            ObjectSpec::Field(k, _, names) => (*k, names, 1),
            ObjectSpec::Custom(_) => continue,
        };
        for n in &names.value {
            let first = n.split('.').next().unwrap_or_default();
            if !fields.contains(&first) {
                errors.push(names.span, attr::unknown_name(first, fields));
            }
        }
        if names.value.len() < least {
            errors.push(
                names.span,
                format_args!(
                    "`{key}` needs at least {least} attribute{}: with fewer it means nothing",
                    if least == 1 { "" } else { "s" }
                ),
            );
        }
    }
}

/// `let __block = __block.validator(..);` for each rule.
pub fn object_tokens(rules: &[ObjectSpec], krate: &TokenStream) -> TokenStream {
    let o = quote!(#krate::__private::ObjectValidator);
    let each = rules.iter().map(|r| {
        let e = match r {
            ObjectSpec::Group(k, names) => {
                let f = syn::Ident::new(k, Span::call_site());
                let names = &names.value;
                quote!(#o::#f([#(#names),*]))
            }
            ObjectSpec::Field(k, field, names) => {
                let f = syn::Ident::new(k, Span::call_site());
                let names = &names.value;
                quote!(#o::#f(#field, [#(#names),*]))
            }
            ObjectSpec::Custom(path) => {
                let name = path_text(path);
                quote!(#o::Custom(#krate::__private::CustomValidator::new(#name, #path)))
            }
        };
        quote!(let __block = __block.validator(#e);)
    });
    quote!(#(#each)*)
}
