//! Provider schemas: the tfplugin6 `Schema` model, its implied type, validation of values
//! against it, and the plan/apply consistency check.
//!
//! A provider describes each resource type with a [`Schema`]: a version and a root
//! [`Block`] of [`Attribute`]s and [`NestedBlock`]s. Attributes hold either a plain
//! [`Type`] or, in protocol version 6, a [`NestedType`] of attributes with an
//! [`ObjectNesting`]. Terraform turns the block into a type constraint, the *implied type*,
//! and every value of the resource that crosses the wire conforms to it.
//!
//! ```
//! use tfvalue::schema::{Attribute, Block, NestedBlock};
//! use tfvalue::Type;
//!
//! let block = Block::new()
//!     .attribute("name", Attribute::required(Type::String))
//!     .attribute("id", Attribute::computed(Type::String))
//!     .block("rule", NestedBlock::list(
//!         Block::new().attribute("port", Attribute::required(Type::Number)),
//!     ).min_items(1));
//! assert_eq!(block.implied_type().to_string(), "object({id=string,name=string,rule=list(object({port=number}))})");
//! ```
//!
//! - [`Block::implied_type`] follows Terraform Core's rules (see its docs for the tricky
//!   cases: `GROUP` blocks, and `LIST`/`MAP` blocks that contain `dynamic`).
//! - [`ProviderSchemas`] imports what `terraform providers schema -json` prints.
//! - [`Block::validate`] checks a [`Value`](crate::Value) against a block and reports every
//!   problem at once, each with its [`AttributePath`](crate::AttributePath).
//! - [`check_apply`] and [`Block::check_apply`] list every place where a value after apply
//!   breaks its plan: what Terraform reports as "Provider produced inconsistent result".
//! - [`Refinements::admits`](crate::Refinements::admits) tells whether a value is within
//!   what an unknown's refinements promised.

mod apply;
mod check;
mod diagnostics;
mod genconfig;
mod json;
mod pattern;
mod plan;
pub(crate) use plan::nesting_of;
mod plan_facts;
mod refine;
mod render;
mod validate;
mod validator;
mod write_only;

use std::collections::BTreeMap;

use crate::types::{ObjectType, Type};
use crate::unknown::Refinements;

pub use apply::check_apply;
pub use diagnostics::{Diagnostic, DiagnosticKind, Diagnostics, Severity};
pub use json::{ProviderSchema, ProviderSchemas};
pub(crate) use plan::model_value;
pub use plan::{plan_model, Plan, Planner};
pub use plan_facts::{DefaultValue, ReplaceFn, ReplaceIf};
pub use validator::{Bound, CustomValidator, ObjectValidator, Pattern, Validator};

/// A resource, data source, ephemeral resource or provider schema: a version and its block.
///
/// The version is the one `UpgradeResourceState` receives for stored state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Schema {
    /// The schema version (tfplugin6 `Schema.version`).
    pub version: i64,
    /// The root block.
    pub block: Block,
}

impl Schema {
    /// A schema with this version and block.
    pub fn new(version: i64, block: Block) -> Self {
        Schema { version, block }
    }

    /// The implied type of the root block (see [`Block::implied_type`]).
    pub fn implied_type(&self) -> Type {
        self.block.implied_type()
    }
}

/// How a description is written (tfplugin6 `StringKind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StringKind {
    /// Plain text.
    #[default]
    Plain,
    /// Markdown.
    Markdown,
}

/// A block: attributes and nested block types (tfplugin6 `Schema.Block`).
///
/// Fields are public for reading; build one with [`Block::new`] and the chained setters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Block {
    /// The attributes, by name.
    pub attributes: BTreeMap<String, Attribute>,
    /// The nested block types, by name.
    pub block_types: BTreeMap<String, NestedBlock>,
    /// What the block is for.
    pub description: Option<String>,
    /// How [`description`](Block::description) is written.
    pub description_kind: StringKind,
    /// Whether the block is deprecated.
    pub deprecated: bool,
    /// Why the block is deprecated and what to use instead (protocol 5.10/6.10
    /// `deprecation_message`, Terraform 1.15+ shows it).
    pub deprecation_message: Option<String>,
    /// Checks of its attributes together, run on configuration by
    /// [`Block::validate_config`]. Provider-side: not part of the wire schema.
    pub validators: Vec<ObjectValidator>,
}

/// An attribute of a block or of a nested type (tfplugin6 `Schema.Attribute`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Attribute {
    /// A plain type or a nested type.
    pub ty: AttributeType,
    /// The attribute must be set in configuration.
    pub required: bool,
    /// The attribute may be set in configuration.
    pub optional: bool,
    /// The provider may set the attribute (when configuration leaves it null, if optional).
    pub computed: bool,
    /// The value is hidden in Terraform's output.
    pub sensitive: bool,
    /// The attribute is deprecated.
    pub deprecated: bool,
    /// Why the attribute is deprecated and what to use instead (protocol 5.10/6.10
    /// `deprecation_message`, Terraform 1.15+ shows it; the JSON's too).
    pub deprecation_message: Option<String>,
    /// The value is only in configuration, never in plan or state (tfplugin6 `write_only`).
    pub write_only: bool,
    /// What the attribute is for.
    pub description: Option<String>,
    /// How [`description`](Attribute::description) is written.
    pub description_kind: StringKind,
    /// A change of this attribute replaces the resource ([`Block::plan`] reports it).
    /// Provider-side: not part of the wire schema.
    pub requires_replace: bool,
    /// When a change of a `requires_replace` attribute replaces (`None`: always).
    /// Provider-side: not part of the wire schema.
    pub replace_if: Option<ReplaceIf>,
    /// Checks of the value beyond its type, run by [`Block::validate`] and its kin.
    /// Provider-side: not part of the wire schema.
    pub validators: Vec<Validator>,
    /// What [`Planner`] plans when configuration leaves this (computed) attribute null.
    /// Provider-side: not part of the wire schema.
    pub default: Option<DefaultValue>,
    /// On an update, [`Planner`] keeps the prior state's value of this computed
    /// attribute instead of planning it unknown (terraform-plugin-framework's
    /// `UseStateForUnknown`). Provider-side: not part of the wire schema.
    pub use_state_for_unknown: bool,
    /// The refinements of the unknown [`Planner`] plans for this computed attribute.
    /// Provider-side: not part of the wire schema.
    pub refinements: Refinements,
}

/// The type of an attribute: a type constraint, or nested attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttributeType {
    /// `type`: a type constraint.
    Type(Type),
    /// `nested_type`: attributes of their own, nested as [`ObjectNesting`] says.
    Nested(NestedType),
}

/// Nested attributes (tfplugin6 `Schema.Object`): an object type whose attributes have
/// their own schema facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct NestedType {
    /// How the objects are nested.
    pub nesting: ObjectNesting,
    /// The attributes of each object, by name.
    pub attributes: BTreeMap<String, Attribute>,
    /// Checks of each object's attributes together, run on configuration by
    /// [`Block::validate_config`]. Provider-side: not part of the wire schema.
    pub validators: Vec<ObjectValidator>,
    /// The attribute that identifies an object of a `LIST` or `SET`, as
    /// [`NestedBlock::match_by`]. Provider-side: not part of the wire schema.
    pub match_by: Option<String>,
}

/// How nested attributes are nested (tfplugin6 `Schema.Object.NestingMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ObjectNesting {
    /// One object, which may be null.
    #[default]
    Single,
    /// A list of objects.
    List,
    /// A set of objects.
    Set,
    /// A map of objects.
    Map,
}

/// A nested block type (tfplugin6 `Schema.NestedBlock`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct NestedBlock {
    /// How the blocks are nested.
    pub nesting: NestingMode,
    /// The schema of each block.
    pub block: Block,
    /// The least number of blocks (for `SINGLE`, 1 makes the block required).
    pub min_items: u64,
    /// The greatest number of blocks; 0 means no limit.
    pub max_items: u64,
    /// The attribute that identifies a block of a `LIST` or `SET`: [`Planner`] pairs each
    /// planned block with the prior block of the same value of it (not the one at the
    /// same position) for `use_state_for_unknown`, and, in a list, for
    /// `requires_replace` (a set is compared whole, as without it). Provider-side: not
    /// part of the wire schema.
    pub match_by: Option<String>,
}

/// How nested blocks are nested (tfplugin6 `Schema.NestedBlock.NestingMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NestingMode {
    /// At most one block; its value is null when the block is absent.
    #[default]
    Single,
    /// A list of blocks.
    List,
    /// A set of blocks.
    Set,
    /// Blocks with one label each, as a map from label to block.
    Map,
    /// Exactly one block, never null: when absent, every attribute is null instead.
    Group,
}

impl NestingMode {
    /// The name Terraform's JSON uses: `single`, `list`, `set`, `map`, `group`.
    pub fn as_str(self) -> &'static str {
        match self {
            NestingMode::Single => "single",
            NestingMode::List => "list",
            NestingMode::Set => "set",
            NestingMode::Map => "map",
            NestingMode::Group => "group",
        }
    }
}

impl ObjectNesting {
    /// The name Terraform's JSON uses: `single`, `list`, `set`, `map`.
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectNesting::Single => "single",
            ObjectNesting::List => "list",
            ObjectNesting::Set => "set",
            ObjectNesting::Map => "map",
        }
    }
}

/// The builders' map insertions, not generic, so that a crate building schemas (every
/// `#[derive(TfModel)]`) calls them rather than compiling `BTreeMap`'s insertion again.
fn insert_attribute(map: &mut BTreeMap<String, Attribute>, name: String, attribute: Attribute) {
    map.insert(name, attribute);
}

fn insert_block(map: &mut BTreeMap<String, NestedBlock>, name: String, block: NestedBlock) {
    map.insert(name, block);
}

impl Block {
    /// An empty block.
    pub fn new() -> Self {
        Block::default()
    }

    /// Adds (or replaces) an attribute.
    #[must_use]
    pub fn attribute(mut self, name: impl Into<String>, attribute: Attribute) -> Self {
        // The map's code compiled here, once, not in every crate that builds a schema.
        insert_attribute(&mut self.attributes, name.into(), attribute);
        self
    }

    /// Adds (or replaces) a nested block type.
    #[must_use]
    pub fn block(mut self, name: impl Into<String>, block: NestedBlock) -> Self {
        insert_block(&mut self.block_types, name.into(), block);
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, text: impl Into<String>, kind: StringKind) -> Self {
        self.description = Some(text.into());
        self.description_kind = kind;
        self
    }

    /// Marks the block deprecated (as [`Attribute::deprecated`] marks an attribute: flags
    /// are adjectives, roles are `set_*` since `required`, `optional` and `computed` name
    /// the constructors).
    #[must_use]
    pub fn deprecated(mut self) -> Self {
        self.deprecated = true;
        self
    }

    /// Marks the block deprecated, saying why and what to use instead.
    ///
    /// ```
    /// use tfvalue::schema::Block;
    ///
    /// let b = Block::new().deprecation_message("use `rule` blocks");
    /// assert!(b.deprecated);
    /// assert_eq!(b.deprecation_message.as_deref(), Some("use `rule` blocks"));
    /// ```
    #[must_use]
    pub fn deprecation_message(mut self, message: impl Into<String>) -> Self {
        self.deprecated = true;
        self.deprecation_message = Some(message.into());
        self
    }

    /// Adds a check of the block's attributes together (see [`ObjectValidator`]).
    #[must_use]
    pub fn validator(mut self, validator: ObjectValidator) -> Self {
        self.validators.push(validator);
        self
    }

    /// The type Terraform Core gives values of this block (configschema `ImpliedType`).
    ///
    /// - A block is an object with one attribute per attribute and per nested block type.
    /// - An attribute has its `type`, or the type of its nested attributes: an object per
    ///   element, in a list, set or map as its [`ObjectNesting`] says.
    /// - A `SINGLE` or `GROUP` block is the object of its block. Both are that object type;
    ///   they differ in values: a `SINGLE` block is null when absent, a `GROUP` block never
    ///   is (its attributes are null instead).
    /// - A `LIST` block is a list of the block's objects and a `SET` block a set of them;
    ///   a `MAP` block is a map from label to object.
    /// - A `LIST` or `MAP` block whose block type contains `dynamic` anywhere is decoded by
    ///   Terraform as a tuple or an object, whose shape depends on how many blocks there
    ///   are, so the attribute's type is `dynamic` and its value travels with its own type
    ///   (terraform#34574). `SET` blocks may not contain `dynamic` at all.
    /// - No object type has optional attributes: Terraform strips them
    ///   (`WithoutOptionalAttributesDeep`), including from plain attribute types. Use
    ///   [`Block::spec_type`] for the type with optional attributes that Terraform uses to
    ///   decode configuration.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, NestedBlock};
    /// use tfvalue::Type;
    ///
    /// let with_any = Block::new().attribute("value", Attribute::optional(Type::Dynamic));
    /// let block = Block::new()
    ///     .block("static", NestedBlock::list(Block::new().attribute("n", Attribute::optional(Type::Number))))
    ///     .block("dyn_list", NestedBlock::list(with_any.clone()))
    ///     .block("dyn_map", NestedBlock::map(with_any.clone()))
    ///     .block("dyn_set", NestedBlock::set(with_any));
    /// assert_eq!(
    ///     block.implied_type().to_string(),
    ///     "object({dyn_list=any,dyn_map=any,dyn_set=set(object({value=any})),static=list(object({n=number}))})"
    /// );
    /// ```
    pub fn implied_type(&self) -> Type {
        without_optional_deep(&self.spec_type())
    }

    /// The type Terraform uses to decode configuration for this block (hcldec's implied
    /// type): as [`Block::implied_type`], except that the objects of nested attributes
    /// keep their optional attributes (every `optional` or `computed` nested attribute is
    /// optional in its object type), and plain attribute types keep theirs.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, NestedType};
    /// use tfvalue::Type;
    ///
    /// let block = Block::new().attribute("rule", Attribute::nested(
    ///     NestedType::list()
    ///         .attribute("port", Attribute::required(Type::Number))
    ///         .attribute("note", Attribute::optional(Type::String)),
    ///     ).set_optional());
    /// assert_eq!(block.spec_type().to_string(), "object({rule=list(object({note=optional(string),port=number}))})");
    /// assert_eq!(block.implied_type().to_string(), "object({rule=list(object({note=string,port=number}))})");
    /// ```
    pub fn spec_type(&self) -> Type {
        let mut o = ObjectType::default();
        for (name, attr) in &self.attributes {
            o.insert(name.clone(), attr.spec_type(), false);
        }
        for (name, nb) in &self.block_types {
            // An attribute and a block type of the same name make an invalid schema;
            // Terraform keeps the attribute, and so do we.
            if !self.attributes.contains_key(name) {
                o.insert(name.clone(), nb.spec_type(), false);
            }
        }
        Type::Object(o)
    }

    /// Whether any attribute, here or in nested blocks and nested types, is sensitive.
    pub fn contains_sensitive(&self) -> bool {
        self.attributes.values().any(Attribute::contains_sensitive)
            || self
                .block_types
                .values()
                .any(|nb| nb.block.contains_sensitive())
    }
}

impl NestedBlock {
    /// A block type with this nesting and block, and no item limits.
    pub fn new(nesting: NestingMode, block: Block) -> Self {
        NestedBlock {
            nesting,
            block,
            min_items: 0,
            max_items: 0,
            match_by: None,
        }
    }

    /// Pairs blocks with their prior blocks by the value of attribute `name` (see
    /// [`match_by`](NestedBlock::match_by)).
    #[must_use]
    pub fn match_by(mut self, name: impl Into<String>) -> Self {
        self.match_by = Some(name.into());
        self
    }

    /// A `SINGLE` block type.
    pub fn single(block: Block) -> Self {
        NestedBlock::new(NestingMode::Single, block)
    }

    /// A `LIST` block type.
    pub fn list(block: Block) -> Self {
        NestedBlock::new(NestingMode::List, block)
    }

    /// A `SET` block type.
    pub fn set(block: Block) -> Self {
        NestedBlock::new(NestingMode::Set, block)
    }

    /// A `MAP` block type.
    pub fn map(block: Block) -> Self {
        NestedBlock::new(NestingMode::Map, block)
    }

    /// A `GROUP` block type.
    pub fn group(block: Block) -> Self {
        NestedBlock::new(NestingMode::Group, block)
    }

    /// Sets the least number of blocks.
    #[must_use]
    pub fn min_items(mut self, n: u64) -> Self {
        self.min_items = n;
        self
    }

    /// Sets the greatest number of blocks (0: no limit).
    #[must_use]
    pub fn max_items(mut self, n: u64) -> Self {
        self.max_items = n;
        self
    }

    /// The type of the attribute this block type becomes in its parent's object (see
    /// [`Block::implied_type`]).
    pub fn implied_type(&self) -> Type {
        without_optional_deep(&self.spec_type())
    }

    fn spec_type(&self) -> Type {
        let inner = self.block.spec_type();
        match self.nesting {
            NestingMode::Single | NestingMode::Group => inner,
            NestingMode::List if inner.has_dynamic() => Type::Dynamic,
            NestingMode::List => Type::list(inner),
            NestingMode::Set => Type::set(inner),
            NestingMode::Map if inner.has_dynamic() => Type::Dynamic,
            NestingMode::Map => Type::map(inner),
        }
    }
}

impl Attribute {
    fn with_type(ty: AttributeType) -> Self {
        Attribute {
            ty,
            required: false,
            optional: false,
            computed: false,
            sensitive: false,
            deprecated: false,
            deprecation_message: None,
            write_only: false,
            description: None,
            description_kind: StringKind::Plain,
            requires_replace: false,
            replace_if: None,
            validators: Vec::new(),
            default: None,
            use_state_for_unknown: false,
            refinements: Refinements::new(),
        }
    }

    /// A required attribute of type `ty`.
    pub fn required(ty: Type) -> Self {
        Attribute::with_type(AttributeType::Type(ty)).set_required()
    }

    /// An optional attribute of type `ty`.
    pub fn optional(ty: Type) -> Self {
        Attribute::with_type(AttributeType::Type(ty)).set_optional()
    }

    /// A computed attribute of type `ty` (set by the provider, not by configuration).
    pub fn computed(ty: Type) -> Self {
        Attribute::with_type(AttributeType::Type(ty)).set_computed()
    }

    /// An optional and computed attribute of type `ty`.
    pub fn optional_computed(ty: Type) -> Self {
        Attribute::optional(ty).set_computed()
    }

    /// An attribute with nested attributes; neither required, optional nor computed yet.
    pub fn nested(nested: NestedType) -> Self {
        Attribute::with_type(AttributeType::Nested(nested))
    }

    /// An attribute of type `ty`; neither required, optional nor computed yet.
    pub fn of_type(ty: Type) -> Self {
        Attribute::with_type(AttributeType::Type(ty))
    }

    /// Makes the attribute required (and not optional).
    #[must_use]
    pub fn set_required(mut self) -> Self {
        self.required = true;
        self.optional = false;
        self
    }

    /// Makes the attribute optional (and not required).
    #[must_use]
    pub fn set_optional(mut self) -> Self {
        self.optional = true;
        self.required = false;
        self
    }

    /// Makes the attribute computed.
    #[must_use]
    pub fn set_computed(mut self) -> Self {
        self.computed = true;
        self
    }

    /// Marks the attribute sensitive.
    #[must_use]
    pub fn sensitive(mut self) -> Self {
        self.sensitive = true;
        self
    }

    /// Marks the attribute deprecated.
    #[must_use]
    pub fn deprecated(mut self) -> Self {
        self.deprecated = true;
        self
    }

    /// Marks the attribute deprecated, saying why and what to use instead.
    ///
    /// ```
    /// use tfvalue::schema::Attribute;
    /// use tfvalue::Type;
    ///
    /// let a = Attribute::optional(Type::String).deprecation_message("use `name`");
    /// assert!(a.deprecated);
    /// assert_eq!(a.deprecation_message.as_deref(), Some("use `name`"));
    /// ```
    #[must_use]
    pub fn deprecation_message(mut self, message: impl Into<String>) -> Self {
        self.deprecated = true;
        self.deprecation_message = Some(message.into());
        self
    }

    /// Marks the attribute write-only.
    #[must_use]
    pub fn write_only(mut self) -> Self {
        self.write_only = true;
        self
    }

    /// Marks the attribute as one whose change replaces the resource (see [`Block::plan`]).
    #[must_use]
    pub fn requires_replace(mut self) -> Self {
        self.requires_replace = true;
        self
    }

    /// A change replaces the resource only when configuration sets the attribute
    /// (terraform-plugin-framework's `RequiresReplaceIfConfigured`; see [`ReplaceIf`]).
    #[must_use]
    pub fn requires_replace_if_configured(mut self) -> Self {
        self.requires_replace = true;
        self.replace_if = Some(ReplaceIf::Configured);
        self
    }

    /// A change replaces the resource when `f(prior, planned, config)` says so
    /// (terraform-plugin-framework's `RequiresReplaceIf`; see [`ReplaceIf`]).
    #[must_use]
    pub fn requires_replace_if<F>(mut self, name: impl Into<String>, f: F) -> Self
    where
        F: Fn(&crate::value::Value, &crate::value::Value, &crate::value::Value) -> bool
            + Send
            + Sync
            + 'static,
    {
        self.requires_replace = true;
        self.replace_if = Some(ReplaceIf::Custom(ReplaceFn::new(name, f)));
        self
    }

    /// Plans `value` when configuration leaves the attribute null (see [`Planner`]); the
    /// attribute must be computed, and of the value's type.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new().attribute("ttl", Attribute::optional_computed(Type::Number).default_value(3600));
    /// let config = Value::Object([("ttl".to_owned(), Value::Null)].into());
    /// let plan = block.plan(&Value::Null, &config, &config);
    /// assert_eq!(plan.planned["ttl"], Value::from(3600));
    /// ```
    #[must_use]
    pub fn default_value(mut self, value: impl Into<DefaultValue>) -> Self {
        self.default = Some(value.into().fitted(&self.implied_type()));
        self
    }

    /// On an update, keeps the prior state's value of this computed attribute when
    /// configuration leaves it null, instead of planning it unknown (see [`Planner`]): for
    /// values the provider sets once, such as an id.
    #[must_use]
    pub fn use_state_for_unknown(mut self) -> Self {
        self.use_state_for_unknown = true;
        self
    }

    /// Refines the unknown [`Planner`] plans for this computed attribute (a prefix for a
    /// string, bounds for a number, lengths for a collection; not null for any but a
    /// `dynamic` attribute).
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block};
    /// use tfvalue::{Refinements, Type, Value};
    ///
    /// let id = Refinements::new().not_null().with_prefix("kv-");
    /// let block = Block::new().attribute("id", Attribute::computed(Type::String).refine(id.clone()));
    /// let config = Value::Object([("id".to_owned(), Value::Null)].into());
    /// assert_eq!(block.plan(&Value::Null, &config, &config).planned["id"], Value::Unknown(id));
    /// ```
    #[must_use]
    pub fn refine(mut self, refinements: Refinements) -> Self {
        self.refinements = refinements;
        self
    }

    /// Adds a validator.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, Validator};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new().attribute(
    ///     "tier",
    ///     Attribute::required(Type::String).validator(Validator::one_of(["standard", "premium"])),
    /// );
    /// let v = Value::Object([("tier".to_owned(), Value::from("gold"))].into());
    /// assert_eq!(
    ///     block.validate(&v).to_string(),
    ///     r#"Invalid attribute value: value must be one of "standard", "premium", found "gold" at tier"#
    /// );
    /// ```
    #[must_use]
    pub fn validator(mut self, validator: Validator) -> Self {
        self.validators.push(validator);
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, text: impl Into<String>, kind: StringKind) -> Self {
        self.description = Some(text.into());
        self.description_kind = kind;
        self
    }

    /// The attribute's type in its block's implied type: its `type`, or the object type
    /// of its nested attributes in their nesting, without optional attributes.
    pub fn implied_type(&self) -> Type {
        without_optional_deep(&self.spec_type())
    }

    fn spec_type(&self) -> Type {
        match &self.ty {
            AttributeType::Type(t) => t.clone(),
            AttributeType::Nested(n) => n.spec_type(),
        }
    }

    /// The plain type, if the attribute has one.
    pub fn plain_type(&self) -> Option<&Type> {
        match &self.ty {
            AttributeType::Type(t) => Some(t),
            AttributeType::Nested(_) => None,
        }
    }

    /// The nested attributes, if the attribute has them.
    pub fn nested_type(&self) -> Option<&NestedType> {
        match &self.ty {
            AttributeType::Type(_) => None,
            AttributeType::Nested(n) => Some(n),
        }
    }

    /// Computed and not optional: only the provider sets it.
    pub fn is_computed_only(&self) -> bool {
        self.computed && !self.optional && !self.required
    }

    fn contains_sensitive(&self) -> bool {
        self.sensitive
            || self
                .nested_type()
                .is_some_and(|n| n.attributes.values().any(Attribute::contains_sensitive))
    }
}

impl NestedType {
    /// Nested attributes with this nesting and no attributes yet.
    pub fn new(nesting: ObjectNesting) -> Self {
        NestedType {
            nesting,
            attributes: BTreeMap::new(),
            validators: Vec::new(),
            match_by: None,
        }
    }

    /// `SINGLE` nesting: one object.
    pub fn single() -> Self {
        NestedType::new(ObjectNesting::Single)
    }

    /// `LIST` nesting.
    pub fn list() -> Self {
        NestedType::new(ObjectNesting::List)
    }

    /// `SET` nesting.
    pub fn set() -> Self {
        NestedType::new(ObjectNesting::Set)
    }

    /// `MAP` nesting.
    pub fn map() -> Self {
        NestedType::new(ObjectNesting::Map)
    }

    /// Adds (or replaces) an attribute.
    #[must_use]
    pub fn attribute(mut self, name: impl Into<String>, attribute: Attribute) -> Self {
        insert_attribute(&mut self.attributes, name.into(), attribute);
        self
    }

    /// Adds a check of each object's attributes together (see [`ObjectValidator`]).
    #[must_use]
    pub fn validator(mut self, validator: ObjectValidator) -> Self {
        self.validators.push(validator);
        self
    }

    /// Pairs objects with their prior objects by the value of attribute `name` (see
    /// [`NestedBlock::match_by`]).
    #[must_use]
    pub fn match_by(mut self, name: impl Into<String>) -> Self {
        self.match_by = Some(name.into());
        self
    }

    /// The type of one object, with its `optional` and `computed` attributes optional.
    pub fn object_spec_type(&self) -> Type {
        let mut o = ObjectType::default();
        for (name, attr) in &self.attributes {
            o.insert(
                name.clone(),
                attr.spec_type(),
                attr.optional || attr.computed,
            );
        }
        Type::Object(o)
    }

    /// The type in the nesting, without optional attributes (see [`Block::implied_type`]).
    pub fn implied_type(&self) -> Type {
        without_optional_deep(&self.spec_type())
    }

    /// The type in the nesting, with optional attributes (see [`Block::spec_type`]).
    pub fn spec_type(&self) -> Type {
        let o = self.object_spec_type();
        match self.nesting {
            ObjectNesting::Single => o,
            ObjectNesting::List => Type::list(o),
            ObjectNesting::Set => Type::set(o),
            ObjectNesting::Map => Type::map(o),
        }
    }
}

/// The type with every optional-attribute marker removed, at any depth.
pub(crate) fn without_optional_deep(ty: &Type) -> Type {
    match ty {
        Type::List(t) => Type::list(without_optional_deep(t)),
        Type::Set(t) => Type::set(without_optional_deep(t)),
        Type::Map(t) => Type::map(without_optional_deep(t)),
        Type::Object(o) => Type::object(
            o.attributes()
                .iter()
                .map(|(k, t)| (k.clone(), without_optional_deep(t))),
        ),
        Type::Tuple(ts) => Type::tuple(ts.iter().map(without_optional_deep)),
        other => other.clone(),
    }
}
