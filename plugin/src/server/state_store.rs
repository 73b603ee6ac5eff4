//! The state store RPCs of tfplugin6 (6.10: `ValidateStateStoreConfig` to
//! `DeleteState`). tfvalue-plugin declares no state store yet (`GetProviderSchema`
//! lists none, so Terraform never configures one here); a client that calls these
//! anyway gets an error diagnostic, or an error event, at once: never a hang.

/// The answer to a state store RPC for a provider with no state stores.
pub(crate) fn no_state_store(type_name: &str) -> crate::Diagnostic {
    crate::Diagnostic::error("unknown state store type").with_detail(format!(
        "This provider has no state store type `{type_name}` (tfvalue-plugin serves no state \
         stores yet)."
    ))
}
