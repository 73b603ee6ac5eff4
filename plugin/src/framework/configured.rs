//! The client a provider's configuration builds, where its handlers find it.
//!
//! Each handler registered on a [`Framework<C>`](super::Framework) holds the cell of its
//! client, so the framework's own dispatch (find the handler by name, hand it the
//! request) does not depend on `C`: it is compiled once, in this crate, not again in each
//! provider's crate for its client type (`plugin/README.md`, "Build times").

use std::sync::{Arc, PoisonError, RwLock};

use crate::diagnostic::Diagnostic;

/// The client of one framework: empty until `ConfigureProvider` builds it.
pub(super) struct Configured<C>(Arc<RwLock<Option<Arc<C>>>>);

impl<C> Clone for Configured<C> {
    fn clone(&self) -> Self {
        Configured(self.0.clone())
    }
}

impl<C> Configured<C> {
    /// A cell with no client yet.
    pub(super) fn new() -> Self {
        Configured(Arc::new(RwLock::new(None)))
    }

    /// Keeps `client`, for every handler (replacing a client configured before).
    pub(super) fn set(&self, client: C) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(client));
    }

    /// The client, or the error of a request that came before it was built. (Not
    /// inlined: compiled once for each client type, not in every handler.)
    #[inline(never)]
    pub(super) fn get(&self) -> Result<Arc<C>, Diagnostic> {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(not_configured)
    }
}

/// The error of a handler called before the provider was configured. Not generic.
fn not_configured() -> Diagnostic {
    Diagnostic::error("the provider is not configured").with_detail(
        "Terraform configures a provider (ConfigureProvider) before it reads, plans, applies or imports; this request came before that, or after configuring failed.",
    )
}
