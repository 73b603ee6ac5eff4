//! The JSON that `terraform providers schema -json` prints, read and written with serde.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::{
    Attribute, AttributeType, Block, NestedBlock, NestedType, NestingMode, ObjectNesting, Schema,
    StringKind,
};
use crate::error::{Category, Error};
use crate::types::Type;

/// What `terraform providers schema -json` prints: the schemas of every provider in a
/// configuration, by provider address.
///
/// Keys this version does not know (`functions`, `resource_identity_schemas`, ...) are
/// ignored, so newer Terraform output still reads.
///
/// ```
/// use tfvalue::schema::ProviderSchemas;
///
/// let json = br#"{
///   "format_version": "1.0",
///   "provider_schemas": {
///     "registry.terraform.io/acme/demo": {
///       "provider": {"version": 0, "block": {"description_kind": "plain"}},
///       "resource_schemas": {
///         "demo_thing": {"version": 1, "block": {
///           "attributes": {"id": {"type": "string", "computed": true, "description_kind": "plain"}},
///           "description_kind": "plain"}}
///       }
///     }
///   }
/// }"#;
/// let schemas = ProviderSchemas::from_json(json)?;
/// let thing = schemas.provider("acme/demo").and_then(|p| p.resource("demo_thing")).unwrap();
/// assert_eq!(thing.version, 1);
/// assert_eq!(thing.implied_type().to_string(), "object({id=string})");
/// # Ok::<(), tfvalue::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProviderSchemas {
    /// The version of the JSON format (`"1.0"`).
    pub format_version: String,
    /// The schemas of each provider, by provider address
    /// (`registry.terraform.io/hashicorp/aws`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub provider_schemas: BTreeMap<String, ProviderSchema>,
}

/// The schemas of one provider.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProviderSchema {
    /// The provider's own configuration block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Schema>,
    /// Managed resource types, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_schemas: BTreeMap<String, Schema>,
    /// Data sources, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub data_source_schemas: BTreeMap<String, Schema>,
    /// Ephemeral resource types, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ephemeral_resource_schemas: BTreeMap<String, Schema>,
    /// List resource types, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub list_resource_schemas: BTreeMap<String, Schema>,
}

impl ProviderSchemas {
    /// Reads the JSON.
    ///
    /// # Errors
    ///
    /// Malformed JSON, a missing `format_version`, an attribute with both or neither of
    /// `type` and `nested_type`, an unknown nesting mode or description kind, or a
    /// malformed type. The message has the line and column.
    pub fn from_json(json: &[u8]) -> Result<ProviderSchemas, Error> {
        serde_json::from_slice(json).map_err(|e| {
            let category = if e.is_eof() {
                Category::Eof
            } else if e.is_syntax() {
                Category::Syntax
            } else {
                Category::Data
            };
            Error::new(category, format_args!("invalid provider schema JSON: {e}"))
        })
    }

    /// The schemas of a provider, by its full address or by its address without the
    /// registry host (`hashicorp/aws`) when only one provider matches.
    pub fn provider(&self, address: &str) -> Option<&ProviderSchema> {
        if let Some(p) = self.provider_schemas.get(address) {
            return Some(p);
        }
        let suffix = format!("/{address}");
        let mut found = self
            .provider_schemas
            .iter()
            .filter(|(k, _)| k.ends_with(&suffix));
        match (found.next(), found.next()) {
            (Some((_, p)), None) => Some(p),
            _ => None,
        }
    }
}

impl ProviderSchema {
    /// A managed resource type's schema.
    pub fn resource(&self, name: &str) -> Option<&Schema> {
        self.resource_schemas.get(name)
    }

    /// A data source's schema.
    pub fn data_source(&self, name: &str) -> Option<&Schema> {
        self.data_source_schemas.get(name)
    }

    /// An ephemeral resource type's schema.
    pub fn ephemeral_resource(&self, name: &str) -> Option<&Schema> {
        self.ephemeral_resource_schemas.get(name)
    }
}

// ---------------------------------------------------------------------------------------
// The JSON shapes. Serde goes through these and the model is built from them, so that the
// model can say "type or nested type" with an enum and check it on the way in.

#[derive(Deserialize)]
struct RawSchema {
    #[serde(default)]
    version: i64,
    #[serde(default)]
    block: Option<Block>,
}

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Schema", 2)?;
        st.serialize_field("version", &self.version)?;
        st.serialize_field("block", &self.block)?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for Schema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawSchema::deserialize(d)?;
        Ok(Schema::new(raw.version, raw.block.unwrap_or_default()))
    }
}

#[derive(Deserialize)]
struct RawBlock {
    #[serde(default)]
    attributes: BTreeMap<String, Attribute>,
    #[serde(default)]
    block_types: BTreeMap<String, NestedBlock>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    description_kind: StringKind,
    #[serde(default)]
    deprecated: bool,
    #[serde(default)]
    deprecation_message: Option<String>,
}

impl Serialize for Block {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Block", 6)?;
        if !self.attributes.is_empty() {
            st.serialize_field("attributes", &self.attributes)?;
        }
        if !self.block_types.is_empty() {
            st.serialize_field("block_types", &self.block_types)?;
        }
        if let Some(d) = &self.description {
            st.serialize_field("description", d)?;
        }
        st.serialize_field("description_kind", &self.description_kind)?;
        if self.deprecated {
            st.serialize_field("deprecated", &true)?;
        }
        if let Some(m) = &self.deprecation_message {
            st.serialize_field("deprecation_message", m)?;
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawBlock::deserialize(d)?;
        Ok(Block {
            attributes: raw.attributes,
            block_types: raw.block_types,
            description: raw.description.filter(|s| !s.is_empty()),
            description_kind: raw.description_kind,
            deprecated: raw.deprecated,
            deprecation_message: raw.deprecation_message.filter(|s| !s.is_empty()),
            validators: Vec::new(),
        })
    }
}

#[derive(Deserialize)]
struct RawBlockType {
    nesting_mode: NestingMode,
    #[serde(default)]
    block: Option<Block>,
    #[serde(default)]
    min_items: u64,
    #[serde(default)]
    max_items: u64,
}

impl Serialize for NestedBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("NestedBlock", 4)?;
        st.serialize_field("nesting_mode", &self.nesting)?;
        st.serialize_field("block", &self.block)?;
        if self.min_items != 0 {
            st.serialize_field("min_items", &self.min_items)?;
        }
        if self.max_items != 0 {
            st.serialize_field("max_items", &self.max_items)?;
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for NestedBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawBlockType::deserialize(d)?;
        Ok(NestedBlock {
            nesting: raw.nesting_mode,
            block: raw.block.unwrap_or_default(),
            min_items: raw.min_items,
            max_items: raw.max_items,
            match_by: None,
        })
    }
}

#[derive(Deserialize)]
struct RawNestedType {
    #[serde(default)]
    attributes: BTreeMap<String, Attribute>,
    nesting_mode: ObjectNesting,
}

#[derive(Deserialize)]
struct RawAttribute {
    #[serde(rename = "type", default)]
    ty: Option<Type>,
    #[serde(default)]
    nested_type: Option<RawNestedType>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    description_kind: StringKind,
    #[serde(default)]
    deprecated: bool,
    #[serde(default)]
    deprecation_message: Option<String>,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    optional: bool,
    #[serde(default)]
    computed: bool,
    #[serde(default)]
    sensitive: bool,
    #[serde(default)]
    write_only: bool,
}

impl Serialize for Attribute {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Nested<'a>(&'a NestedType);
        impl Serialize for Nested<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut st = s.serialize_struct("NestedType", 2)?;
                st.serialize_field("attributes", &self.0.attributes)?;
                st.serialize_field("nesting_mode", &self.0.nesting)?;
                st.end()
            }
        }
        let mut st = s.serialize_struct("Attribute", 11)?;
        match &self.ty {
            AttributeType::Type(t) => st.serialize_field("type", t)?,
            AttributeType::Nested(n) => st.serialize_field("nested_type", &Nested(n))?,
        }
        if let Some(d) = &self.description {
            st.serialize_field("description", d)?;
        }
        st.serialize_field("description_kind", &self.description_kind)?;
        for (name, set) in [
            ("deprecated", self.deprecated),
            ("required", self.required),
            ("optional", self.optional),
            ("computed", self.computed),
            ("sensitive", self.sensitive),
            ("write_only", self.write_only),
        ] {
            if set {
                st.serialize_field(name, &true)?;
            }
        }
        if let Some(m) = &self.deprecation_message {
            st.serialize_field("deprecation_message", m)?;
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for Attribute {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawAttribute::deserialize(d)?;
        let ty = match (raw.ty, raw.nested_type) {
            (Some(t), None) => AttributeType::Type(t),
            (None, Some(n)) => AttributeType::Nested(NestedType {
                nesting: n.nesting_mode,
                attributes: n.attributes,
                validators: Vec::new(),
                match_by: None,
            }),
            (Some(_), Some(_)) => {
                return Err(de::Error::custom(
                    "an attribute has either `type` or `nested_type`, not both",
                ))
            }
            (None, None) => {
                return Err(de::Error::custom(
                    "an attribute needs `type` or `nested_type`",
                ))
            }
        };
        Ok(Attribute {
            ty,
            required: raw.required,
            optional: raw.optional,
            computed: raw.computed,
            sensitive: raw.sensitive,
            deprecated: raw.deprecated,
            deprecation_message: raw.deprecation_message.filter(|s| !s.is_empty()),
            write_only: raw.write_only,
            description: raw.description.filter(|s| !s.is_empty()),
            description_kind: raw.description_kind,
            requires_replace: false,
            replace_if: None,
            validators: Vec::new(),
            default: None,
            use_state_for_unknown: false,
            refinements: crate::unknown::Refinements::new(),
        })
    }
}

/// Serde for the small enums, as the lowercase names Terraform's JSON uses.
macro_rules! name_serde {
    ($t:ty, $what:literal, [$($name:literal => $v:expr),* $(,)?]) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let name = match self { $(x if *x == $v => $name,)* _ => "invalid" };
                s.serialize_str(name)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
                match name.as_ref() {
                    $($name => Ok($v),)*
                    other => Err(de::Error::custom(format_args!(
                        concat!("unknown ", $what, " {:?}, expected one of {}"),
                        other,
                        OneOf(&[$($name),*]),
                    ))),
                }
            }
        }
    };
}

name_serde!(NestingMode, "nesting mode", [
    "single" => NestingMode::Single,
    "list" => NestingMode::List,
    "set" => NestingMode::Set,
    "map" => NestingMode::Map,
    "group" => NestingMode::Group,
]);

name_serde!(ObjectNesting, "nesting mode", [
    "single" => ObjectNesting::Single,
    "list" => ObjectNesting::List,
    "set" => ObjectNesting::Set,
    "map" => ObjectNesting::Map,
]);

name_serde!(StringKind, "description kind", [
    "plain" => StringKind::Plain,
    "markdown" => StringKind::Markdown,
]);

struct OneOf<'a>(&'a [&'a str]);

impl fmt::Display for OneOf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name:?}")?;
        }
        Ok(())
    }
}
