//! Resource identity in the framework (Terraform 1.12+; terraform-plugin-framework's
//! `ResourceWithIdentity`): an identity model, computed from the resource's model.

use tfvalue::codec::{Codec, RawState};
use tfvalue::DynamicValue;

use super::{Model, Result};
use crate::diagnostic::Diagnostic;
use crate::identity::IdentitySchema;

type Of<M> = Box<dyn Fn(&M) -> Option<Result<DynamicValue>> + Send + Sync>;
type Decode = Box<dyn Fn(i64, &RawState) -> Result<DynamicValue> + Send + Sync>;
type ImportId = Box<dyn Fn(&DynamicValue) -> Result<String> + Send + Sync>;

/// The identity of a resource type ([`Resource::identity`](super::Resource::identity)):
/// a model of its own (`#[derive(TfValue)]`: required fields are required for an
/// import by identity, optional ones optional; doc comments are descriptions;
/// `#[tfvalue(version = N)]` its version), computed from the resource's model, so
/// that no handler deals with it.
///
/// The framework sends it with every read, plan, apply, import and move; Terraform
/// stores it beside the state. It names the remote object, so it never changes but by
/// replacement (the server refuses a changed one). An `import { identity = {..} }`
/// block (Terraform 1.12+) imports through [`Resource::import`](super::Resource::import)
/// with the id `import_id` makes of it.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::codec::Codec;
/// use tfvalue::{TfValue, Unknown};
/// use tfvalue_plugin::framework::ResourceIdentity;
///
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct Note {
///     name: Unknown<String>,
///     #[tfvalue(optional)]
///     text: Unknown<Option<String>>,
/// }
///
/// /// A note is named by its name.
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct NoteIdentity {
///     /// The note's name.
///     name: String,
/// }
///
/// let identity = ResourceIdentity::new(
///     Codec::<NoteIdentity>::new(),
///     |n: &Note| Some(NoteIdentity { name: n.name.known()?.clone() }),
///     |i| i.name,
/// );
/// assert_eq!(identity.schema().attributes["name"].required_for_import, true);
/// ```
pub struct ResourceIdentity<M> {
    schema: IdentitySchema,
    of: Of<M>,
    decode: Decode,
    import_id: ImportId,
}

impl<M: 'static> ResourceIdentity<M> {
    /// An identity of model `I`: `codec` reads stored identities (with upgrades from
    /// older versions, as for state), `of` makes the identity of a resource's model
    /// (`None` while it is not known, as in the plan of a create), `import_id` the id
    /// to import an object by when an `import` block names it by identity.
    ///
    /// # Panics
    ///
    /// `I`'s schema is not one an identity can have (nested blocks or attributes, or
    /// types other than strings, numbers, bools and lists of them): a mistake in the
    /// provider's code, found as soon as it starts.
    pub fn new<I: Model>(
        codec: Codec<I>,
        of: impl Fn(&M) -> Option<I> + Send + Sync + 'static,
        import_id: impl Fn(I) -> String + Send + Sync + 'static,
    ) -> Self {
        let schema = match IdentitySchema::from_schema(&I::schema()) {
            Ok(s) => s,
            // A mistake in the provider's code, reported at its start (documented).
            #[allow(clippy::panic)]
            Err(e) => panic!("the identity model {}: {e}", std::any::type_name::<I>()),
        };
        let read = move |version: i64, raw: &RawState| -> Result<I> {
            codec.decode(version, raw).map_err(|e| {
                Diagnostic::error(format!(
                    "the identity (schema version {version}) does not decode"
                ))
                .with_detail(e.message().to_owned())
                .at(e.path().clone())
                .into()
            })
        };
        let encode = |i: &I| -> Result<DynamicValue> {
            DynamicValue::encode_model(i).map_err(|e| {
                Diagnostic::error("the identity does not encode")
                    .with_detail(e.message().to_owned())
                    .into()
            })
        };
        ResourceIdentity {
            schema,
            of: Box::new(move |m| of(m).map(|i| encode(&i))),
            decode: Box::new(move |v, raw| read(v, raw).and_then(|i| encode(&i))),
            import_id: Box::new(move |dv| {
                let identity: I = dv.decode_model::<I>().map_err(|e| {
                    Diagnostic::error("the identity to import by does not fit its model")
                        .with_detail(e.message().to_owned())
                        .at(e.path().clone())
                })?;
                Ok(import_id(identity))
            }),
        }
    }

    /// The identity schema served to Terraform.
    pub fn schema(&self) -> &IdentitySchema {
        &self.schema
    }

    pub(super) fn of(&self, model: &M) -> Result<Option<DynamicValue>> {
        (self.of)(model).transpose()
    }

    pub(super) fn upgrade(&self, version: i64, raw: &RawState) -> Result<DynamicValue> {
        (self.decode)(version, raw)
    }

    pub(super) fn import_id(&self, identity: &DynamicValue) -> Result<String> {
        (self.import_id)(identity)
    }
}
