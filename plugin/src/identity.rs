//! Resource identity (Terraform 1.12+): a small object naming the remote object a
//! resource manages (an id, a region and a name), stored beside the state, sent with
//! every read, plan and apply, and the other way to import (`import { identity = {..} }`).

use std::collections::BTreeMap;
use std::sync::Arc;

use tfvalue::codec::RawState;
use tfvalue::schema::{AttributeType, Schema};
use tfvalue::{DynamicValue, Type};

use crate::diagnostic::Diagnostic;
use crate::provider::Context;

/// The identity schema of a resource type (tfplugin `ResourceIdentitySchema`): a version
/// and flat attributes of primitive types or lists of them.
///
/// ```
/// use tfvalue::Type;
/// use tfvalue_plugin::{IdentityAttribute, IdentitySchema};
///
/// let s = IdentitySchema::new(0)
///     .attribute(IdentityAttribute::required_for_import("id", Type::String))
///     .attribute(IdentityAttribute::optional_for_import("region", Type::String));
/// assert_eq!(s.implied_type(), Type::object([("id", Type::String), ("region", Type::String)]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct IdentitySchema {
    /// The identity's schema version ([`Provider::upgrade_resource_identity`] upgrades
    /// identities stored with an older one).
    ///
    /// [`Provider::upgrade_resource_identity`]: crate::Provider::upgrade_resource_identity
    pub version: i64,
    /// The attributes, by name.
    pub attributes: BTreeMap<String, IdentityAttribute>,
}

/// One attribute of an [`IdentitySchema`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct IdentityAttribute {
    /// The attribute's name.
    pub name: String,
    /// Its type: a primitive type or a list of one.
    pub ty: Type,
    /// An `import { identity = {..} }` block must set it.
    pub required_for_import: bool,
    /// An `import { identity = {..} }` block may set it.
    pub optional_for_import: bool,
    /// What it is.
    pub description: String,
}

impl IdentityAttribute {
    /// An attribute every import by identity sets.
    pub fn required_for_import(name: impl Into<String>, ty: Type) -> Self {
        IdentityAttribute {
            name: name.into(),
            ty,
            required_for_import: true,
            optional_for_import: false,
            description: String::new(),
        }
    }

    /// An attribute an import by identity may leave out (the provider finds it).
    pub fn optional_for_import(name: impl Into<String>, ty: Type) -> Self {
        IdentityAttribute {
            optional_for_import: true,
            required_for_import: false,
            ..IdentityAttribute::required_for_import(name, ty)
        }
    }

    /// With a description.
    #[must_use]
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = text.into();
        self
    }
}

impl IdentitySchema {
    /// A schema of this version with no attributes yet.
    pub fn new(version: i64) -> Self {
        IdentitySchema {
            version,
            attributes: BTreeMap::new(),
        }
    }

    /// Adds an attribute.
    #[must_use]
    pub fn attribute(mut self, attribute: IdentityAttribute) -> Self {
        self.attributes.insert(attribute.name.clone(), attribute);
        self
    }

    /// The identity schema a resource schema's shape describes, as the derive writes
    /// it for an identity model: each attribute required for import unless it is
    /// optional, with its description.
    ///
    /// # Errors
    ///
    /// The schema has nested blocks or nested attributes, or a type an identity cannot
    /// hold (identities are flat: primitives and lists of them).
    pub fn from_schema(schema: &Schema) -> Result<Self, String> {
        if let Some(name) = schema.block.block_types.keys().next() {
            return Err(format!("an identity has no blocks (`{name}`)"));
        }
        let mut out = IdentitySchema::new(schema.version);
        for (name, a) in &schema.block.attributes {
            let AttributeType::Type(ty) = &a.ty else {
                return Err(format!("an identity has no nested attributes (`{name}`)"));
            };
            let flat = |t: &Type| matches!(t, Type::String | Type::Number | Type::Bool);
            let ok = match ty {
                Type::List(t) => flat(t),
                t => flat(t),
            };
            if !ok {
                return Err(format!(
                    "identity attribute `{name}` is of type {}: an identity holds strings, \
                     numbers, bools and lists of them",
                    ty
                ));
            }
            let mut attr = if a.optional {
                IdentityAttribute::optional_for_import(name.clone(), ty.clone())
            } else {
                IdentityAttribute::required_for_import(name.clone(), ty.clone())
            };
            attr.description = a.description.clone().unwrap_or_default();
            out = out.attribute(attr);
        }
        Ok(out)
    }

    /// The object type of the identity's values.
    pub fn implied_type(&self) -> Type {
        Type::object(
            self.attributes
                .iter()
                .map(|(k, a)| (k.clone(), a.ty.clone())),
        )
    }
}

/// `UpgradeResourceIdentity`: an identity stored with an older identity schema version
/// (Terraform 1.12+ asks before it reads the resource).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct UpgradeResourceIdentityRequest {
    /// The resource type.
    pub type_name: String,
    /// The identity schema version it was stored with.
    pub version: i64,
    /// The stored identity (JSON).
    pub raw_identity: RawState,
    /// The resource type's current identity schema.
    pub schema: Arc<IdentitySchema>,
    /// Stop signal.
    pub ctx: Context,
}

impl UpgradeResourceIdentityRequest {
    /// A request, as the server builds it (useful in tests).
    pub fn new(
        type_name: impl Into<String>,
        version: i64,
        raw_identity: RawState,
        schema: Arc<IdentitySchema>,
    ) -> Self {
        UpgradeResourceIdentityRequest {
            type_name: type_name.into(),
            version,
            raw_identity,
            schema,
            ctx: Context::detached(),
        }
    }
}

/// The answer to [`UpgradeResourceIdentityRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct UpgradeResourceIdentityResponse {
    /// The identity in the current identity schema.
    pub upgraded_identity: DynamicValue,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl UpgradeResourceIdentityResponse {
    /// An upgraded identity.
    pub fn new(upgraded_identity: DynamicValue) -> Self {
        UpgradeResourceIdentityResponse {
            upgraded_identity,
            diagnostics: Vec::new(),
        }
    }
}

impl From<Diagnostic> for UpgradeResourceIdentityResponse {
    fn from(d: Diagnostic) -> Self {
        vec![d].into()
    }
}

impl From<Vec<Diagnostic>> for UpgradeResourceIdentityResponse {
    fn from(diagnostics: Vec<Diagnostic>) -> Self {
        UpgradeResourceIdentityResponse {
            upgraded_identity: DynamicValue::default(),
            diagnostics,
        }
    }
}

/// What [`Provider::upgrade_resource_identity`](crate::Provider::upgrade_resource_identity)
/// does by default: an identity of the current version is re-encoded; any other version
/// is an error.
pub fn same_version_identity(
    req: &UpgradeResourceIdentityRequest,
) -> UpgradeResourceIdentityResponse {
    if req.version != req.schema.version {
        return Diagnostic::error("unsupported identity schema version")
            .with_detail(format!(
                "The identity of `{}` has schema version {}, but this provider only reads version {}.",
                req.type_name, req.version, req.schema.version
            ))
            .into();
    }
    match req.raw_identity.transcode(&req.schema.implied_type(), true) {
        Ok(dv) => UpgradeResourceIdentityResponse::new(dv),
        Err(e) => Diagnostic::from_value_error("stored identity does not decode", &e).into(),
    }
}
