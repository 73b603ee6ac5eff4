//! `#[derive(TfValue)]`: see the `tfvalue` crate, which re-exports it, for documentation.
//!
//! The derive goes parse → model → check → expand: `attr` reads `#[tfvalue(...)]`,
//! `#[serde(...)]` and doc comments, `ast` builds the model of the struct and checks it,
//! collecting every mistake, and `expand` writes the impls (or the errors and a fallback
//! impl, so that code using the type does not pile up more errors).

mod ast;
mod attr;
mod expand;
mod pattern;
mod plan;
mod validators;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `tfvalue::TfValue` and `tfvalue::TfModel`. Documented on the re-export in
/// `tfvalue`.
#[proc_macro_derive(TfValue, attributes(tfvalue))]
pub fn derive_tfvalue(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
