//! The model of a derive input: the struct, its fields and their roles, checked.

use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, GenericArgument, PathArguments, Type};

use crate::attr::{self, At, ContainerAttrs, Errors, FieldAttrs, Nesting};

/// The struct (or unit-variant enum).
pub struct Container<'a> {
    pub original: &'a DeriveInput,
    pub attrs: ContainerAttrs,
    pub description: Option<String>,
    pub fields: Vec<Field<'a>>,
    /// For an enum of unit variants: the strings serde writes for them.
    pub variants: Option<Vec<String>>,
    /// The rules of the attributes together (the struct's and its fields').
    pub rules: Vec<crate::validators::ObjectSpec>,
}

/// A field that serde writes.
pub struct Field<'a> {
    pub original: &'a syn::Field,
    /// The attribute name, as serde writes it.
    pub name: String,
    pub role: Role<'a>,
    pub flags: Flags,
    pub description: Option<String>,
    /// `deprecated = ".."`.
    pub deprecation_message: Option<String>,
    pub markdown: bool,
    pub validators: Validators,
    /// `default`, `use_state_for_unknown`, `refine(...)`, checked.
    pub plan: crate::plan::PlanAttrs,
    /// `match_by = ".."` of a list or set of blocks or nested attributes.
    pub match_by: Option<String>,
    /// `requires_replace_if_configured`, `requires_replace_if = path`.
    pub replace_if_configured: bool,
    pub replace_if: Option<syn::Path>,
    /// The field must be able to hold null, and its type is one the derive cannot see
    /// into (a type alias, say): the type system checks it (`__private::CanBeNull`).
    pub check_null: bool,
}

/// `one_of`, `min_length`, `max_length`, `pattern`.
#[derive(Default)]
pub struct Validators {
    pub one_of: Option<Vec<String>>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    /// The others, checked against the field's type.
    pub extra: Vec<At<crate::validators::Spec>>,
}

/// The schema facts of an attribute.
#[derive(Default, Clone, Copy)]
pub struct Flags {
    pub required: bool,
    pub optional: bool,
    pub computed: bool,
    pub sensitive: bool,
    pub deprecated: bool,
    pub write_only: bool,
    pub requires_replace: bool,
}

/// What a field becomes in the schema.
pub enum Role<'a> {
    /// An attribute of the field's own type.
    Attribute,
    /// An attribute with the nested attributes of the model `elem`.
    Nested { nesting: Nesting, elem: &'a Type },
    /// A nested block of the model `elem`.
    Block {
        nesting: Nesting,
        elem: &'a Type,
        min_items: u64,
        max_items: u64,
    },
}

/// What the derive can tell from how a field type is written.
pub(crate) struct Shape<'a> {
    /// `Option<..>` around the value (possibly inside `Unknown<..>`).
    pub(crate) nullable: bool,
    /// `Unknown<..>` around the value.
    pub(crate) unknown: bool,
    /// The collection, if the value is a list, set or map.
    pub(crate) collection: Option<Nesting>,
    /// The collection's element type (a map's value type), or the value's type.
    pub(crate) elem: &'a Type,
    /// The type inside the `Option`/`Unknown`/`Box` wrappers.
    pub(crate) inner: &'a Type,
    /// The value is a bare [`Dynamic`], which holds null and unknown itself.
    pub(crate) dynamic: bool,
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

/// The `n`th type argument of a path segment.
fn type_arg(seg: &syn::PathSegment, n: usize) -> Option<&Type> {
    match &seg.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .nth(n),
        _ => None,
    }
}

pub(crate) fn shape(ty: &Type) -> Shape<'_> {
    let mut s = Shape {
        nullable: false,
        unknown: false,
        collection: None,
        elem: ty,
        inner: ty,
        dynamic: false,
    };
    let mut cur = ty;
    while let Some(seg) = last_segment(cur) {
        let Some(inner) = type_arg(seg, 0) else { break };
        match seg.ident.to_string().as_str() {
            "Option" => s.nullable = true,
            "Unknown" => s.unknown = true,
            "Box" => {}
            _ => break,
        }
        cur = inner;
    }
    s.elem = cur;
    s.inner = cur;
    if let Some(seg) = last_segment(cur) {
        s.dynamic = seg.ident == "Dynamic" && seg.arguments.is_none();
        let found = match seg.ident.to_string().as_str() {
            "Vec" | "VecDeque" | "LinkedList" => type_arg(seg, 0).map(|t| (Nesting::List, t)),
            "BTreeSet" | "HashSet" | "IndexSet" => type_arg(seg, 0).map(|t| (Nesting::Set, t)),
            "BTreeMap" | "HashMap" | "IndexMap" => type_arg(seg, 1).map(|t| (Nesting::Map, t)),
            _ => None,
        };
        if let Some((nesting, elem)) = found {
            s.collection = Some(nesting);
            s.elem = elem;
        }
    }
    s
}

/// Type names that are certainly not model structs.
pub(crate) fn primitive_name(ty: &Type) -> Option<String> {
    if let Type::Reference(r) = ty {
        return primitive_name(&r.elem);
    }
    let seg = last_segment(ty)?;
    let name = seg.ident.to_string();
    const PRIMITIVES: &[&str] = &[
        "String", "str", "char", "bool", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
        "u32", "u64", "u128", "usize", "f32", "f64", "Number", "Dynamic", "Cow",
    ];
    PRIMITIVES.contains(&name.as_str()).then_some(name)
}

/// Checks the planner's facts of a field (`crate::plan`) against its role and type.
fn plan_check(
    ty: &Type,
    role: &Role<'_>,
    flags: &Flags,
    plan: &crate::plan::PlanAttrs,
    errors: &mut Errors,
) {
    let s = shape(ty);
    let primitive = primitive_name(s.elem);
    let kind = crate::plan::FieldKind {
        block: matches!(role, Role::Block { .. }),
        nested: matches!(role, Role::Nested { .. }),
        computed: flags.computed,
        primitive: primitive.as_deref(),
        collection: s.collection.is_some(),
        dynamic: s.dynamic,
    };
    crate::plan::check(plan, &kind, errors);
}

/// Whether the derive cannot tell what `ty` is from how it is written: not a type it
/// knows (a type alias, a type of the user's), so whether it holds null is for the type
/// system to say.
fn opaque(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => opaque(&r.elem),
        Type::Group(g) => opaque(&g.elem),
        Type::Paren(p) => opaque(&p.elem),
        Type::Path(_) => {
            const KNOWN: &[&str] = &[
                "Option",
                "Unknown",
                "Box",
                "Rc",
                "Arc",
                "Vec",
                "VecDeque",
                "LinkedList",
                "BTreeSet",
                "HashSet",
                "IndexSet",
                "BTreeMap",
                "HashMap",
                "IndexMap",
            ];
            primitive_name(ty).is_none()
                && last_segment(ty)
                    .is_none_or(|seg| !KNOWN.contains(&seg.ident.to_string().as_str()))
        }
        _ => false,
    }
}

/// Terraform attribute and block names: lowercase letters, digits and underscores.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

impl<'a> Container<'a> {
    /// Builds and checks the model, collecting every mistake in `errors`.
    pub fn from_ast(input: &'a DeriveInput, errors: &mut Errors) -> Option<Container<'a>> {
        let mut attrs = attr::container_attrs(&input.attrs, errors);
        let mut rules = std::mem::take(&mut attrs.rules);
        let serde = attr::serde_container(&input.attrs);
        let fields = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => &named.named,
                Fields::Unnamed(_) => {
                    errors.push(
                        input.ident.span(),
                        "#[derive(TfValue)] needs a struct with named fields: a tuple struct has no attribute names",
                    );
                    return None;
                }
                Fields::Unit => {
                    errors.push(
                        input.ident.span(),
                        "#[derive(TfValue)] needs a struct with named fields: serde writes a unit struct as null",
                    );
                    return None;
                }
            },
            Data::Enum(e) => {
                let variants = string_enum(e, &serde, errors)?;
                let description = attrs
                    .description
                    .as_ref()
                    .map(|d| d.value.clone())
                    .or_else(|| attr::doc_comment(&input.attrs));
                for (slot, name) in [
                    (attrs.version.as_ref().map(|v| v.span), "version"),
                    (attrs.deprecated, "deprecated"),
                ] {
                    if let Some(span) = slot {
                        errors.push(
                            span,
                            format_args!("`{name}` applies to model structs, not to a string enum"),
                        );
                    }
                }
                if !rules.is_empty() {
                    errors.push(
                        input.ident.span(),
                        "rules of attributes together (`exactly_one_of`, `validate_with`, ...) apply to model structs, not to a string enum",
                    );
                }
                return Some(Container {
                    original: input,
                    attrs,
                    description,
                    fields: Vec::new(),
                    variants: Some(variants),
                    rules: Vec::new(),
                });
            }
            Data::Union(u) => {
                errors.push(
                    u.union_token.span,
                    "#[derive(TfValue)] supports structs with named fields only",
                );
                return None;
            }
        };
        if let Some(span) = serde.transparent {
            errors.push(span, "#[derive(TfValue)] does not support `#[serde(transparent)]`: a model struct is an object");
        }
        let mut out = Vec::new();
        for field in fields {
            let serde_attrs = attr::serde_field(&field.attrs, errors);
            let field_attrs = attr::field_attrs(&field.attrs, errors);
            if serde_attrs.skip_serializing {
                // serde does not write it, so it is not part of the schema.
                continue;
            }
            if let Some(span) = serde_attrs.flatten {
                errors.push(
                    span,
                    "#[derive(TfValue)] does not support `#[serde(flatten)]`: serde's buffering loses unknown values; nest a block or attribute instead",
                );
                continue;
            }
            if let Some(span) = serde_attrs.skip_serializing_if {
                errors.push(
                    span,
                    "#[derive(TfValue)] does not support `skip_serializing_if`: Terraform objects carry every attribute; an `Option<T>` field is written as null",
                );
            }
            let Some(ident) = &field.ident else { continue };
            let (name, name_span) = match serde_attrs.rename {
                Some(At { value, span }) => (value, span),
                None => {
                    let raw = ident.unraw().to_string();
                    let name = match &serde.rename_all {
                        Some(rule) => attr::apply_rename_all(rule, &raw),
                        None => raw,
                    };
                    (name, ident.span())
                }
            };
            if !valid_name(&name) {
                errors.push(
                    name_span,
                    format_args!(
                        "`{name}` is not a valid Terraform attribute name: use lowercase letters, digits and underscores"
                    ),
                );
            }
            if let Some(prev) = out.iter().find(|f: &&Field| f.name == name) {
                let prev_ident = prev
                    .original
                    .ident
                    .as_ref()
                    .map_or(String::new(), |i| i.unraw().to_string());
                let this = ident.unraw().to_string();
                errors.push(
                    name_span,
                    format_args!(
                        "fields `{prev_ident}` and `{this}` are both named `{name}` in the schema: give one of them another name with `#[serde(rename = \"...\")]`"
                    ),
                );
            }
            let description = field_attrs
                .description
                .as_ref()
                .map(|d| d.value.clone())
                .or_else(|| attr::doc_comment(&field.attrs));
            let markdown = field_attrs.markdown.is_some();
            let (role, flags, validators, check_null) = field_role(field, &field_attrs, errors);
            for (key, slot) in [
                ("conflicts_with", &field_attrs.conflicts_with),
                ("also_requires", &field_attrs.also_requires),
            ] {
                if let Some(others) = slot {
                    rules.push(crate::validators::ObjectSpec::Field(
                        key,
                        name.clone(),
                        others.clone(),
                    ));
                }
            }
            plan_check(&field.ty, &role, &flags, &field_attrs.plan, errors);
            if let Some(m) = &field_attrs.match_by {
                let nesting = match &role {
                    Role::Block { nesting, .. } | Role::Nested { nesting, .. } => Some(*nesting),
                    Role::Attribute => None,
                };
                if !matches!(nesting, Some(Nesting::List | Nesting::Set)) {
                    errors.push(
                        m.span,
                        "`match_by` pairs the elements of a list or set of blocks or nested attributes with their prior elements: add `block` or `nested_type` on a list or set of a model",
                    );
                }
                if !valid_name(&m.value) {
                    errors.push(
                        m.span,
                        format_args!("`{}` is not an attribute name", m.value),
                    );
                }
            }
            out.push(Field {
                original: field,
                name,
                role,
                flags,
                description,
                deprecation_message: field_attrs
                    .deprecation_message
                    .as_ref()
                    .map(|m| m.value.clone()),
                markdown,
                validators,
                match_by: field_attrs.match_by.map(|m| m.value),
                replace_if_configured: field_attrs.requires_replace_if_configured.is_some(),
                replace_if: field_attrs.requires_replace_if.map(|p| p.value),
                plan: field_attrs.plan,
                check_null,
            });
        }
        let description = attrs
            .description
            .as_ref()
            .map(|d| d.value.clone())
            .or_else(|| attr::doc_comment(&input.attrs));
        let names: Vec<&str> = out.iter().map(|f| f.name.as_str()).collect();
        crate::validators::check_names(&rules, &names, errors);
        Some(Container {
            original: input,
            attrs,
            description,
            fields: out,
            variants: None,
            rules,
        })
    }
}

/// The strings serde writes for the unit variants of an enum, checked.
fn string_enum(
    e: &syn::DataEnum,
    serde: &attr::SerdeContainer,
    errors: &mut Errors,
) -> Option<Vec<String>> {
    if e.variants.is_empty() {
        errors.push(
            e.enum_token.span,
            "#[derive(TfValue)] on an enum needs unit variants: an enum with none has no value",
        );
        return None;
    }
    let mut names: Vec<String> = Vec::new();
    let mut ok = true;
    for v in &e.variants {
        if !matches!(v.fields, Fields::Unit) {
            errors.push(
                v.fields.span(),
                "#[derive(TfValue)] on an enum needs unit variants, which serde writes as strings: this variant has fields",
            );
            ok = false;
            continue;
        }
        let serde_attrs = attr::serde_field(&v.attrs, errors);
        if serde_attrs.skip_serializing {
            continue;
        }
        let name = match serde_attrs.rename {
            Some(r) => r.value,
            None => {
                let raw = v.ident.unraw().to_string();
                match &serde.rename_all {
                    Some(rule) => attr::apply_rename_all_variant(rule, &raw),
                    None => raw,
                }
            }
        };
        if names.contains(&name) {
            errors.push(
                v.ident.span(),
                format_args!("two variants are written as `{name}`"),
            );
        }
        names.push(name);
    }
    ok.then_some(names)
}

/// `Option<T>`, as written for a suggestion in a message.
fn suggest(wrapper: &str, ty: &Type) -> String {
    let text = quote::ToTokens::to_token_stream(ty).to_string();
    let text = text
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",");
    wrapper.replace('T', &text)
}

/// Works out what a field is, checking the combination of its attributes.
///
/// The role comes from the attributes alone; the `Option`/`Unknown` wrappers a field
/// needs to hold null and unknown never change it, they are only checked against it.
fn field_role<'a>(
    field: &'a syn::Field,
    a: &FieldAttrs,
    errors: &mut Errors,
) -> (Role<'a>, Flags, Validators, bool) {
    let ty = &field.ty;
    let s = shape(ty);
    let mut flags = Flags {
        sensitive: a.sensitive.is_some(),
        deprecated: a.deprecated.is_some(),
        write_only: a.write_only.is_some(),
        requires_replace: a.requires_replace.is_some(),
        ..Flags::default()
    };
    let validators = Validators {
        one_of: a.one_of.as_ref().map(|v| v.value.clone()),
        min_length: a.min_length.as_ref().map(|v| v.value),
        max_length: a.max_length.as_ref().map(|v| v.value),
        pattern: a.pattern.as_ref().map(|v| v.value.clone()),
        extra: crate::validators::merge_lengths(a.validators.clone()),
    };

    let replace_ifs = [
        a.requires_replace.map(|s| (s, "requires_replace")),
        a.requires_replace_if_configured
            .map(|s| (s, "requires_replace_if_configured")),
        a.requires_replace_if
            .as_ref()
            .map(|p| (p.span, "requires_replace_if")),
    ];
    let given: Vec<(proc_macro2::Span, &str)> = replace_ifs.into_iter().flatten().collect();
    if given.len() > 1 {
        let names: Vec<String> = given.iter().map(|(_, n)| format!("`{n}`")).collect();
        errors.push(
            given[1].0,
            format_args!(
                "{} conflict: give one (each `requires_replace_if..` implies `requires_replace`)",
                names.join(" and ")
            ),
        );
    }

    if let (Some(_), Some(nested)) = (&a.block, &a.nested_type) {
        errors.push(
            nested.span,
            "`block` and `nested_type` conflict: a field is either a nested block or an attribute",
        );
    }
    if a.block.is_none() {
        for (item, name) in [(&a.min_items, "min_items"), (&a.max_items, "max_items")] {
            if let Some(item) = item {
                errors.push(
                    item.span,
                    format_args!("`{name}` applies to blocks only: add `block`"),
                );
            }
        }
    }
    if let (Some(min), Some(max)) = (&a.min_length, &a.max_length) {
        if max.value < min.value {
            errors.push(
                max.span,
                format_args!(
                    "`max_length = {}` is less than `min_length = {}`",
                    max.value, min.value
                ),
            );
        }
    }
    if let Some(p) = &a.pattern {
        if let Err(e) = crate::pattern::check(&p.value) {
            errors.push(p.span, format_args!("invalid pattern: {e}"));
        }
    }

    if let Some(block) = &a.block {
        for (slot, name, hint) in [
            (a.required, "required", "use `min_items = 1`"),
            (
                a.optional,
                "optional",
                "blocks are optional unless `min_items` says otherwise",
            ),
            (a.computed, "computed", "blocks are set by configuration"),
            (
                a.sensitive,
                "sensitive",
                "mark the attributes inside the block",
            ),
            (
                a.write_only,
                "write_only",
                "mark the attributes inside the block",
            ),
            (
                a.requires_replace,
                "requires_replace",
                "mark the attributes inside the block",
            ),
            (
                a.requires_replace_if_configured,
                "requires_replace_if_configured",
                "mark the attributes inside the block",
            ),
            (
                a.requires_replace_if.as_ref().map(|p| p.span),
                "requires_replace_if",
                "mark the attributes inside the block",
            ),
        ] {
            if let Some(span) = slot {
                errors.push(
                    span,
                    format_args!("`{name}` does not apply to a block: {hint}"),
                );
            }
        }
        for (span, name) in [
            (a.one_of.as_ref().map(|v| v.span), "one_of"),
            (a.min_length.as_ref().map(|v| v.span), "min_length"),
            (a.max_length.as_ref().map(|v| v.span), "max_length"),
            (a.pattern.as_ref().map(|v| v.span), "pattern"),
        ] {
            if let Some(span) = span {
                let hint = if name.ends_with("length") {
                    "use `min_items` and `max_items` for the number of blocks"
                } else {
                    "validate the attributes inside the block"
                };
                errors.push(
                    span,
                    format_args!("`{name}` does not apply to a block: {hint}"),
                );
            }
        }
        let nesting = check_nesting(block, &s, ty, true, errors);
        let min_items = a.min_items.as_ref().map_or(0, |m| m.value);
        let max_items = a.max_items.as_ref().map_or(0, |m| m.value);
        if let (Some(min), Some(max)) = (&a.min_items, &a.max_items) {
            if max.value != 0 && max.value < min.value {
                errors.push(
                    max.span,
                    format_args!(
                        "`max_items = {}` is less than `min_items = {}`",
                        max.value, min.value
                    ),
                );
            }
        }
        let mut max_items = max_items;
        match nesting {
            Nesting::Single => {
                // Terraform wants min_items == max_items on a single block, 0 or 1.
                if let Some(min) = a.min_items.as_ref().filter(|m| m.value > 1) {
                    errors.push(min.span, "`min_items` of a single block is 0 or 1");
                }
                match (&a.min_items, &a.max_items) {
                    (_, Some(max)) if max.value != min_items => errors.push(
                        max.span,
                        "a single block has `max_items` equal to `min_items`: write `min_items = 1` for a required block",
                    ),
                    _ => max_items = min_items,
                }
                if min_items == 0 && !s.nullable {
                    errors.push(
                        ty.span(),
                        format_args!(
                            "a single block is null when configuration leaves it out: write `{}`, or `min_items = 1` for a required block",
                            suggest("Option<T>", s.inner)
                        ),
                    );
                }
            }
            Nesting::Group => {
                for (item, name) in [(&a.min_items, "min_items"), (&a.max_items, "max_items")] {
                    if let Some(item) = item {
                        errors.push(
                            item.span,
                            format_args!("`{name}` does not apply to a group block"),
                        );
                    }
                }
                if s.nullable {
                    errors.push(ty.span(), "a group block is never null: drop the `Option`");
                }
            }
            Nesting::Map => {
                for (item, name) in [(&a.min_items, "min_items"), (&a.max_items, "max_items")] {
                    if let Some(item) = item {
                        errors.push(
                            item.span,
                            format_args!("`{name}` does not apply to a map block"),
                        );
                    }
                }
            }
            Nesting::List | Nesting::Set => {}
        }
        if let Some(name) = primitive_name(s.elem) {
            errors.push(
                s.elem.span(),
                format_args!("`block` needs a model struct that derives TfValue, found `{name}`"),
            );
        }
        let role = Role::Block {
            nesting,
            elem: s.elem,
            min_items,
            max_items,
        };
        return (role, flags, validators, false);
    }

    // An attribute: required, optional, computed.
    let conflict = (a.required.is_some() && (a.optional.is_some() || a.computed.is_some()))
        || (a.write_only.is_some() && a.computed.is_some());
    if let (Some(_), Some(opt)) = (a.required, a.optional) {
        errors.push(
            opt,
            "`required` and `optional` conflict: an attribute is one or the other",
        );
    }
    if let (Some(_), Some(comp)) = (a.required, a.computed) {
        errors.push(
            comp,
            "`required` and `computed` conflict: configuration sets a required attribute, so the provider cannot",
        );
    }
    if let (Some(_), Some(comp)) = (a.write_only, a.computed) {
        errors.push(
            comp,
            "`write_only` and `computed` conflict: Terraform never stores write-only values",
        );
    }
    let dynamic = s.dynamic && a.nested_type.is_none();
    if a.required.is_some() || a.optional.is_some() || a.computed.is_some() {
        flags.required = a.required.is_some();
        flags.optional = a.optional.is_some();
        flags.computed = a.computed.is_some();
    } else if dynamic {
        // A bare `Dynamic` holds null itself: optional unless said otherwise.
        flags.optional = true;
    } else {
        flags.required = true;
        // (A misspelt role was reported already.)
        if s.nullable && !a.misspelt {
            errors.push(
                ty.span(),
                "write the role of a field that can be null, as `#[tfvalue(optional)]`, `#[tfvalue(computed)]`, `#[tfvalue(optional, computed)]` or `#[tfvalue(required)]`: `Option` and `Unknown` never decide it",
            );
        }
    }
    // What each role must be able to hold, in what Terraform sends (once the role is
    // clear: a conflict is reported alone). A type the derive cannot see into (a type
    // alias of `Unknown<Option<String>>`, say) is left to the type system to check.
    let needs_null = flags.computed || flags.optional || flags.write_only;
    let check_null = !dynamic && !conflict && needs_null && !s.nullable && opaque(s.inner);
    if !dynamic && !conflict && !check_null {
        if flags.computed && !s.nullable {
            let what = if flags.optional {
                "an optional and computed attribute is null in configuration when it is left out"
            } else {
                "a computed attribute is null in configuration"
            };
            errors.push(
                ty.span(),
                format_args!(
                    "{what}: write `{}` (unknown in the plan until the provider sets it), or `{}` in a model only decoded from stored state",
                    suggest("Unknown<Option<T>>", s.inner),
                    suggest("Option<T>", s.inner)
                ),
            );
        } else if flags.optional && !s.nullable {
            errors.push(
                ty.span(),
                format_args!(
                    "an optional attribute is null when configuration leaves it out: write `{}` (`{}` to hold a reference to another resource, unknown until apply)",
                    suggest("Option<T>", s.inner),
                    suggest("Unknown<Option<T>>", s.inner)
                ),
            );
        } else if flags.write_only && !s.nullable {
            errors.push(
                ty.span(),
                format_args!(
                    "a write-only attribute is null in the plan and in state: write `{}`",
                    suggest("Option<T>", s.inner)
                ),
            );
        }
    }
    if validators.min_length.is_some() || validators.max_length.is_some() {
        // Lengths of strings and collections only.
        if let Some(name) = primitive_name(s.elem)
            .filter(|n| n != "String" && n != "str" && n != "Cow" && n != "Dynamic")
        {
            if s.collection.is_none() {
                let span = a
                    .min_length
                    .as_ref()
                    .or(a.max_length.as_ref())
                    .map_or(ty.span(), |v| v.span);
                errors.push(
                    span,
                    format_args!("a length applies to strings and collections, not to `{name}`"),
                );
            }
        }
    }

    for (span, name) in [
        (a.one_of.as_ref().map(|v| v.span), "one_of"),
        (a.pattern.as_ref().map(|v| v.span), "pattern"),
    ] {
        let Some(span) = span else { continue };
        if a.nested_type.is_some() {
            continue;
        }
        let not_a_string = s.collection.is_some()
            || primitive_name(s.elem)
                .is_some_and(|n| !matches!(n.as_str(), "String" | "str" | "Cow" | "Dynamic"));
        if not_a_string {
            errors.push(
                span,
                format_args!(
                    "`{name}` applies to strings, and `{}` is not one",
                    suggest("T", s.inner)
                ),
            );
        }
    }

    match (&a.block, &a.nested_type) {
        (None, None) => crate::validators::check(&validators.extra, ty, errors),
        (block, _) => {
            let what = if block.is_some() {
                "a block"
            } else {
                "nested attributes"
            };
            for v in &validators.extra {
                if block.is_some() || !matches!(v.value, crate::validators::Spec::Custom(_)) {
                    errors.push(
                        v.span,
                        format_args!("this validator does not apply to {what}: validate the attributes inside (on their model struct)"),
                    );
                }
            }
        }
    }

    let role = match &a.nested_type {
        Some(nested) => {
            let nesting = check_nesting(nested, &s, ty, false, errors);
            if let Some(name) = primitive_name(s.elem) {
                errors.push(
                    s.elem.span(),
                    format_args!(
                        "`nested_type` needs a model struct that derives TfValue, found `{name}`"
                    ),
                );
            }
            for (span, name) in [
                (a.one_of.as_ref().map(|v| v.span), "one_of"),
                (a.pattern.as_ref().map(|v| v.span), "pattern"),
            ] {
                if let Some(span) = span {
                    errors.push(
                        span,
                        format_args!("`{name}` applies to string attributes: validate the nested attributes instead"),
                    );
                }
            }
            Role::Nested {
                nesting,
                elem: s.elem,
            }
        }
        None => Role::Attribute,
    };
    (role, flags, validators, check_null)
}

/// The nesting as written, or as the field type implies, checked against the field type.
fn check_nesting(
    written: &At<Option<At<Nesting>>>,
    s: &Shape<'_>,
    ty: &Type,
    block: bool,
    errors: &mut Errors,
) -> Nesting {
    let what = if block { "block" } else { "nested_type" };
    let implied = s.collection.unwrap_or(Nesting::Single);
    let Some(n) = &written.value else {
        return implied;
    };
    let ok = match (n.value, s.collection) {
        (Nesting::Single | Nesting::Group, None) => true,
        (Nesting::List, Some(Nesting::List)) => true,
        // A set of blocks may be held in a Vec: the wire form is the same array.
        (Nesting::Set, Some(Nesting::Set | Nesting::List)) => true,
        (Nesting::Map, Some(Nesting::Map)) => true,
        _ => false,
    };
    if !ok {
        let needs = match n.value {
            Nesting::Single | Nesting::Group => {
                "a model struct (or `Option` of one), not a collection"
            }
            Nesting::List => "a list such as `Vec<T>`",
            Nesting::Set => "a set such as `BTreeSet<T>` (or a `Vec<T>`)",
            Nesting::Map => "a map such as `BTreeMap<String, T>`",
        };
        errors.push(
            ty.span(),
            format_args!("`{what} = \"{}\"` needs a field of {needs}", n.value.name()),
        );
    }
    n.value
}
