//! Moving state across resource types (`moved` blocks from one type to another,
//! Terraform 1.8+; terraform-plugin-framework's `ResourceWithMoveState`).

use tfvalue::codec::{Codec, RawState};

use super::{Model, Result};
use crate::diagnostic::Diagnostic;

type Convert<M> = Box<dyn Fn(i64, &RawState) -> Result<M> + Send + Sync>;

/// A resource type whose state a resource takes with a `moved` block across types
/// ([`Resource::moves`](super::Resource::moves)): the source's type name (and, if
/// given, provider), how to read its stored state (a [`Codec`] of the source's model,
/// for any of its schema versions), and how to make this resource's model from it.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::codec::Codec;
/// use tfvalue::{TfValue, Unknown};
/// use tfvalue_plugin::framework::StateMove;
///
/// /// The old resource type's state.
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct OldNote {
///     id: String,
///     #[tfvalue(optional)]
///     body: Option<String>,
/// }
///
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct Note {
///     #[tfvalue(computed)]
///     id: Unknown<Option<String>>,
///     #[tfvalue(optional)]
///     text: Unknown<Option<String>>,
/// }
///
/// let from_old = StateMove::new("notes_old_note", Codec::<OldNote>::new(), |old: OldNote| {
///     Ok(Note { id: Some(old.id).into(), text: old.body.into() })
/// });
/// # let _ = from_old;
/// ```
pub struct StateMove<M> {
    source_type: String,
    source_provider: Option<String>,
    convert: Convert<M>,
}

impl<M: 'static> StateMove<M> {
    /// Takes the state of resources of type `source_type` (from any provider; see
    /// [`StateMove::from_provider`]), read with `codec` (the source's model, with its
    /// older versions if it had some), converted by `convert`.
    pub fn new<S>(
        source_type: impl Into<String>,
        codec: Codec<S>,
        convert: impl Fn(S) -> Result<M> + Send + Sync + 'static,
    ) -> Self
    where
        S: Model,
    {
        let source_type = source_type.into();
        let what = source_type.clone();
        StateMove {
            source_type,
            source_provider: None,
            convert: Box::new(move |version, raw| {
                let source = codec.decode(version, raw).map_err(|e| {
                    Diagnostic::error(format!(
                        "the state of `{what}` (schema version {version}) does not decode"
                    ))
                    .with_detail(e.message().to_owned())
                    .at(e.path().clone())
                })?;
                convert(source)
            }),
        }
    }

    /// Only from the provider with this address (`registry.terraform.io/acme/old`, as
    /// Terraform names it).
    #[must_use]
    pub fn from_provider(mut self, address: impl Into<String>) -> Self {
        self.source_provider = Some(address.into());
        self
    }

    /// Whether this move takes state of `source_type` from `provider`.
    pub(super) fn takes(&self, provider: &str, source_type: &str) -> bool {
        self.source_type == source_type
            && self
                .source_provider
                .as_deref()
                .is_none_or(|p| p == provider)
    }

    pub(super) fn convert(&self, version: i64, raw: &RawState) -> Result<M> {
        (self.convert)(version, raw)
    }

    pub(super) fn source_type(&self) -> &str {
        &self.source_type
    }
}
