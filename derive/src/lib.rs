//! `#[derive(TfValue)]`: see the `tfvalue` crate for documentation.

use proc_macro::TokenStream;

/// Derives `tfvalue::TfValue`. Documented on the re-export in `tfvalue`.
#[proc_macro_derive(TfValue, attributes(tfvalue))]
pub fn derive_tfvalue(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
