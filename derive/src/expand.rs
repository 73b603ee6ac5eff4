//! Code generation: the `TfValue` and `TfModel` impls, or compile errors and a fallback
//! impl so that code using the type does not pile up more errors.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::DeriveInput;

use crate::ast::{Container, Field, Role};
use crate::attr::{Errors, Nesting};

pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let container = Container::from_ast(input, &mut errors);
    let krate = container
        .as_ref()
        .and_then(|c| c.attrs.krate.as_ref())
        .map_or_else(
            || quote!(::tfvalue),
            |k| {
                let path = &k.value;
                quote!(#path)
            },
        );
    match container {
        Some(c) if errors.is_empty() => expand(&c, &krate),
        _ => {
            let fallback = fallback(input, &krate);
            let errors = errors.into_compile_errors();
            quote! {
                #errors
                #fallback
            }
        }
    }
}

/// The impl generics with `T: TfValue` added for every type parameter.
fn generics(input: &DeriveInput, krate: &TokenStream) -> syn::Generics {
    let mut generics = input.generics.clone();
    let params: Vec<syn::Ident> = generics.type_params().map(|p| p.ident.clone()).collect();
    if !params.is_empty() {
        let where_clause = generics.make_where_clause();
        for p in params {
            where_clause
                .predicates
                .push(syn::parse_quote!(#p: #krate::__private::TfValue));
        }
    }
    generics
}

fn wrap(body: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            #body
        };
    }
}

fn fallback(input: &DeriveInput, krate: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let generics = generics(input, krate);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    wrap(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::TfValue for #ident #ty_generics #where_clause {
            fn tf_type() -> #krate::__private::Type {
                ::core::unreachable!()
            }
        }
        #[automatically_derived]
        impl #impl_generics #krate::__private::TfModel for #ident #ty_generics #where_clause {
            fn block() -> #krate::__private::Block {
                ::core::unreachable!()
            }
        }
    })
}

fn opt_str(s: &Option<String>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

fn nesting_tokens(nesting: Nesting, krate: &TokenStream, object: bool) -> TokenStream {
    if object {
        match nesting {
            Nesting::List => quote!(#krate::__private::ObjectNesting::List),
            Nesting::Set => quote!(#krate::__private::ObjectNesting::Set),
            Nesting::Map => quote!(#krate::__private::ObjectNesting::Map),
            Nesting::Single | Nesting::Group => quote!(#krate::__private::ObjectNesting::Single),
        }
    } else {
        match nesting {
            Nesting::Single => quote!(#krate::__private::NestingMode::Single),
            Nesting::List => quote!(#krate::__private::NestingMode::List),
            Nesting::Set => quote!(#krate::__private::NestingMode::Set),
            Nesting::Map => quote!(#krate::__private::NestingMode::Map),
            Nesting::Group => quote!(#krate::__private::NestingMode::Group),
        }
    }
}

fn field_tokens(field: &Field, krate: &TokenStream) -> TokenStream {
    let name = &field.name;
    let f = &field.flags;
    let (required, optional, computed) = (f.required, f.optional, f.computed);
    let (sensitive, deprecated, write_only) = (f.sensitive, f.deprecated, f.write_only);
    let requires_replace = f.requires_replace;
    let v = &field.validators;
    let one_of = match &v.one_of {
        Some(values) => quote!(#krate::__private::Some(&[#(#values),*])),
        None => quote!(#krate::__private::None),
    };
    let opt_u64 = |n: Option<u64>| match n {
        Some(n) => quote!(#krate::__private::Some(#n)),
        None => quote!(#krate::__private::None),
    };
    let (min_length, max_length) = (opt_u64(v.min_length), opt_u64(v.max_length));
    let pattern = match &v.pattern {
        Some(p) => quote!(#krate::__private::Some(#p)),
        None => quote!(#krate::__private::None),
    };
    let description = opt_str(&field.description);
    let markdown = field.markdown;
    let facts = quote! {
        #krate::__private::Facts {
            required: #required,
            optional: #optional,
            computed: #computed,
            sensitive: #sensitive,
            deprecated: #deprecated,
            write_only: #write_only,
            requires_replace: #requires_replace,
            description: #description,
            markdown: #markdown,
            one_of: #one_of,
            min_length: #min_length,
            max_length: #max_length,
            pattern: #pattern,
        }
    };
    let plan = crate::plan::tokens(&field.plan, krate);
    let extra = crate::validators::tokens(&field.validators.extra, krate);
    let replace_if = crate::validators::replace_if_tokens(
        field.replace_if_configured,
        field.replace_if.as_ref(),
        krate,
    );
    let deprecation = match &field.deprecation_message {
        Some(m) => quote!(.deprecation_message(#m)),
        None => quote!(),
    };
    let plan = quote!(#plan #extra #replace_if #deprecation);
    match &field.role {
        Role::Attribute => {
            let ty = &field.original.ty;
            let call = quote_spanned! {ty.span()=>
                #krate::__private::attribute::<#ty>
            };
            quote! {
                let __block = __block.attribute(#name, #call(#facts) #plan);
            }
        }
        Role::Nested { nesting, elem } => {
            let nesting = nesting_tokens(*nesting, krate, true);
            let call = quote_spanned! {elem.span()=>
                #krate::__private::nested_attribute::<#elem>
            };
            match &field.match_by {
                Some(key) => quote! {
                    let __block = __block.attribute(#name, #krate::__private::match_by(#call(#nesting, #facts) #plan, #key));
                },
                None => quote! {
                    let __block = __block.attribute(#name, #call(#nesting, #facts) #plan);
                },
            }
        }
        Role::Block {
            nesting,
            elem,
            min_items,
            max_items,
        } => {
            let nesting = nesting_tokens(*nesting, krate, false);
            let call = quote_spanned! {elem.span()=>
                #krate::__private::block::<#elem>
            };
            let describe = match &field.description {
                Some(_) => quote! {
                    let __deprecated = __nested.block.deprecated || #deprecated;
                    __nested.block = #krate::__private::describe(__nested.block, #description, #markdown, __deprecated);
                },
                None if deprecated => quote! {
                    __nested.block.deprecated = true;
                },
                None => quote!(),
            };
            let match_by = match &field.match_by {
                Some(key) => quote! {
                    __nested = __nested.match_by(#key);
                },
                None => quote!(),
            };
            let describe = match &field.deprecation_message {
                Some(m) => quote! {
                    #describe
                    __nested.block = __nested.block.deprecation_message(#m);
                },
                None => describe,
            };
            quote! {
                let __block = {
                    #[allow(unused_mut)]
                    let mut __nested = #call(#nesting, #min_items, #max_items);
                    #describe
                    #match_by
                    __block.block(#name, __nested)
                };
            }
        }
    }
}

/// A unit-variant enum: a `string` whose accepted values are the variants' names.
fn expand_enum(c: &Container, variants: &[String], krate: &TokenStream) -> TokenStream {
    let input = c.original;
    let ident = &input.ident;
    let generics = generics(input, krate);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    wrap(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::TfValue for #ident #ty_generics #where_clause {
            fn tf_type() -> #krate::__private::Type {
                #krate::__private::Type::String
            }

            fn accepted_values() -> #krate::__private::Option<&'static [&'static str]> {
                #krate::__private::Some(&[#(#variants),*])
            }
        }
    })
}

fn expand(c: &Container, krate: &TokenStream) -> TokenStream {
    if let Some(variants) = &c.variants {
        return expand_enum(c, variants, krate);
    }
    let input = c.original;
    let ident = &input.ident;
    let generics = generics(input, krate);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let version = c.attrs.version.as_ref().map_or(0, |v| v.value);
    let description = opt_str(&c.description);
    let markdown = c.attrs.markdown.is_some();
    let deprecated = c.attrs.deprecated.is_some();
    let container_deprecation = match &c.attrs.deprecation_message {
        Some(m) => {
            let m = &m.value;
            quote!(.deprecation_message(#m))
        }
        None => quote!(),
    };
    let fields = c.fields.iter().map(|f| field_tokens(f, krate));
    let rules = crate::validators::object_tokens(&c.rules, krate);
    // Fields that must hold null, of types the derive cannot see into: the type system
    // says whether they can (an error on the field's type if not).
    let null_checks = c.fields.iter().filter(|f| f.check_null).map(|f| {
        let ty = &f.original.ty;
        quote_spanned! {ty.span()=>
            #krate::__private::can_be_null::<#ty>();
        }
    });
    let wire = wire_decoder(c, krate);
    let wire_hook = if wire.is_empty() {
        quote!()
    } else {
        quote! {
            fn __wire_encode(
                &self,
                __ser: &mut #krate::__private::MsgpackSerializer,
            ) -> #krate::__private::Result<()>
            where
                for<'__a> Self: #krate::__private::Serialize,
            {
                #[allow(unused_imports)]
                use #krate::__private::{ViaSerdeEncode as _, ViaWireEncode as _};
                (&&&#krate::__private::Probe::<Self>::NEW).encode(self, __ser)
            }

            fn __wire_decode(
                __de: &mut #krate::__private::MsgpackDeserializer<'_>,
            ) -> #krate::__private::Result<Self>
            where
                Self: for<'__de> #krate::__private::Deserialize<'__de>,
            {
                #[allow(unused_imports)]
                use #krate::__private::{ViaSerde as _, ViaWire as _};
                (&&&#krate::__private::Probe::<Self>::NEW).decode(__de)
            }
        }
    };
    wrap(quote! {
        #wire

        #[automatically_derived]
        impl #impl_generics #krate::__private::TfValue for #ident #ty_generics #where_clause {
            fn tf_type() -> #krate::__private::Type {
                #krate::__private::Block::implied_type(&<Self as #krate::__private::TfModel>::block())
            }

            fn schema_block() -> #krate::__private::Option<#krate::__private::Block> {
                #krate::__private::Some(<Self as #krate::__private::TfModel>::block())
            }
        }

        #[automatically_derived]
        impl #impl_generics #krate::__private::TfModel for #ident #ty_generics #where_clause {
            const SCHEMA_VERSION: i64 = #version;

            fn block() -> #krate::__private::Block {
                #(#null_checks)*
                let __block = #krate::__private::Block::new();
                #(#fields)*
                #rules
                #krate::__private::describe(__block, #description, #markdown, #deprecated)
                    #container_deprecation
            }

            #wire_hook
        }
    })
}

/// The model's own MessagePack decoder (`tfvalue::msgpack::wire`), in place of serde's
/// derived `Deserialize` for the framework's decoding: a struct that the derive can read
/// as serde does, i.e. one without type parameters and without `#[serde(...)]` attributes
/// (which could rename, skip or default a field). Empty where it cannot.
fn wire_decoder(c: &Container, krate: &TokenStream) -> TokenStream {
    let input = c.original;
    let syn::Data::Struct(data) = &input.data else {
        return quote!();
    };
    let serde_attr = |attrs: &[syn::Attribute]| attrs.iter().any(|a| a.path().is_ident("serde"));
    if !input.generics.params.is_empty()
        || !matches!(data.fields, syn::Fields::Named(_))
        || serde_attr(&input.attrs)
        || data.fields.iter().any(|f| serde_attr(&f.attrs))
        || data.fields.len() != c.fields.len()
    {
        return quote!();
    }
    let ident = &input.ident;
    let expecting = format!("struct {ident}");
    let names: Vec<&String> = c.fields.iter().map(|f| &f.name).collect();
    let types: Vec<&syn::Type> = c.fields.iter().map(|f| &f.original.ty).collect();
    let slots: Vec<syn::Ident> = (0..c.fields.len())
        .map(|i| quote::format_ident!("__f{}", i))
        .collect();
    let indices = 0..c.fields.len();
    let members: Vec<_> = c.fields.iter().map(|f| &f.original.ident).collect();
    // Each field's decoder and encoder, picked by its type (`msgpack::wire::Probe`).
    let probes: Vec<TokenStream> = types
        .iter()
        .map(|ty| quote!((&&&#krate::__private::Probe::<#ty>::NEW)))
        .collect();
    let count = c.fields.len();
    // The fields' indices in the bytewise order of their names, Terraform's order.
    let mut order: Vec<usize> = (0..c.fields.len()).collect();
    order.sort_by(|&a, &b| c.fields[a].name.as_bytes().cmp(c.fields[b].name.as_bytes()));
    let sorted = order.into_iter().map(|i| {
        let i = u16::try_from(i).unwrap_or(u16::MAX);
        quote!(#i)
    });
    let missing = slots
        .iter()
        .zip(&probes)
        .zip(&names)
        .map(|((slot, p), name)| {
            quote! {
                match #slot {
                    #krate::__private::Some(__v) => __v,
                    #krate::__private::None => #p.missing(#name).map_err(|__e| {
                        #krate::__private::MsgpackDeserializer::wire_missing_error(__e, __at)
                    })?,
                }
            }
        });
    quote! {
        #[automatically_derived]
        impl #krate::__private::WireDecode for #ident
        where
            #(for<'__de> #types: #krate::__private::Deserialize<'__de>,)*
        {
            fn wire_decode(
                __de: &mut #krate::__private::MsgpackDeserializer<'_>,
            ) -> #krate::__private::Result<Self> {
                #[allow(unused_imports)]
                use #krate::__private::{ViaSerde as _, ViaWire as _};
                const __FIELDS: &[&str] = &[#(#names),*];
                const __SORTED: &[u16] = &[#(#sorted),*];
                #(let mut #slots: #krate::__private::Option<#types> = #krate::__private::None;)*
                let __at = __de.wire_struct(__FIELDS, __SORTED, #expecting, &mut |__de, __i| {
                    match __i {
                        #(#indices => #slots = #krate::__private::Some(#probes.decode(__de)?),)*
                        _ => {}
                    }
                    #krate::__private::Result::Ok(())
                })?;
                #krate::__private::Result::Ok(#ident {
                    #(#members: #missing,)*
                })
            }

            fn wire_unit() -> #krate::__private::Result<Self> {
                #krate::__private::Result::Err(#krate::__private::wire_unit_error(#expecting))
            }
        }

        #[automatically_derived]
        impl #krate::__private::WireEncode for #ident
        where
            #(for<'__a> #types: #krate::__private::Serialize,)*
        {
            fn wire_encode(
                &self,
                __ser: &mut #krate::__private::MsgpackSerializer,
            ) -> #krate::__private::Result<()> {
                #[allow(unused_imports)]
                use #krate::__private::{ViaSerdeEncode as _, ViaWireEncode as _};
                let mut __s = __ser.wire_struct(#count)?;
                #(#probes.encode(&self.#members, __s.wire_field(#names)?)?;)*
                __s.wire_end_map()
            }
        }
    }
}
