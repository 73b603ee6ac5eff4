//! tf-provider 0.2.2's side: the resource of `benches/support/requests_model.rs` (same attributes, same
//! handler logic) on tf-provider's `Resource` trait, written as its documentation and its
//! users write one (`State<'a>` of `tf_provider::value::Value` types, a list block as
//! `ValueList<Value<Block>>`), and its per-request path in process.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tf_provider::schema::{
    Attribute, AttributeConstraint, AttributeType, Block, Description, NestedBlock, Schema,
};
use tf_provider::value::{
    Value, ValueBool, ValueEmpty, ValueList, ValueMap, ValueNumber, ValueString,
};
use tf_provider::{map, AttributePath, Diagnostics, DynamicResource, Provider, Resource};

/// A rule of an instance (a nested block).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RuleState<'a> {
    /// Required.
    pub port: ValueNumber,
    /// Required.
    #[serde(borrow = "'a")]
    pub protocol: ValueString<'a>,
    /// Optional.
    pub cidrs: ValueList<ValueString<'a>>,
}

/// A cloud instance: the attributes of `Instance` in `benches/support/requests_model.rs`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct InstanceState<'a> {
    /// Computed.
    #[serde(borrow = "'a")]
    pub id: ValueString<'a>,
    /// Computed.
    pub arn: ValueString<'a>,
    /// Computed.
    pub created_at: ValueString<'a>,
    /// Required.
    pub name: ValueString<'a>,
    /// Optional.
    pub description: ValueString<'a>,
    /// Optional.
    pub image: ValueString<'a>,
    /// Optional.
    pub zone: ValueString<'a>,
    /// Optional.
    pub size: ValueNumber,
    /// Optional.
    pub disk_gb: ValueNumber,
    /// Optional.
    pub price: Value<f64>,
    /// Optional.
    pub enabled: ValueBool,
    /// Optional.
    pub monitoring: ValueBool,
    /// Optional.
    pub tags: ValueMap<'a, ValueString<'a>>,
    /// Optional.
    pub labels: ValueList<ValueString<'a>>,
    /// Optional.
    pub security_groups: ValueList<ValueString<'a>>,
    /// A list block.
    pub rule: ValueList<Value<RuleState<'a>>>,
}

/// The instance resource.
pub struct InstanceResource;

fn attribute(attr_type: AttributeType, constraint: AttributeConstraint) -> Attribute {
    Attribute {
        attr_type,
        description: Description::plain(""),
        constraint,
        ..Default::default()
    }
}

fn schema() -> Schema {
    use AttributeConstraint::{Computed, Optional, Required};
    let string_list = || AttributeType::List(AttributeType::String.into());
    Schema {
        version: 0,
        block: Block {
            version: 0,
            description: Description::plain("a cloud instance"),
            attributes: map! {
                "id" => attribute(AttributeType::String, Computed),
                "arn" => attribute(AttributeType::String, Computed),
                "created_at" => attribute(AttributeType::String, Computed),
                "name" => attribute(AttributeType::String, Required),
                "description" => attribute(AttributeType::String, Optional),
                "image" => attribute(AttributeType::String, Optional),
                "zone" => attribute(AttributeType::String, Optional),
                "size" => attribute(AttributeType::Number, Optional),
                "disk_gb" => attribute(AttributeType::Number, Optional),
                "price" => attribute(AttributeType::Number, Optional),
                "enabled" => attribute(AttributeType::Bool, Optional),
                "monitoring" => attribute(AttributeType::Bool, Optional),
                "tags" => attribute(AttributeType::Map(AttributeType::String.into()), Optional),
                "labels" => attribute(string_list(), Optional),
                "security_groups" => attribute(string_list(), Optional)
            },
            blocks: map! {
                "rule" => NestedBlock::List(Block {
                    version: 0,
                    description: Description::plain("a rule"),
                    attributes: map! {
                        "port" => attribute(AttributeType::Number, Required),
                        "protocol" => attribute(AttributeType::String, Required),
                        "cidrs" => attribute(string_list(), Optional)
                    },
                    ..Default::default()
                })
            },
            ..Default::default()
        },
    }
}

/// What the handler of `benches/support/requests_model.rs` does at apply: the computed attributes set
/// when the plan left the id unknown.
fn fill_computed(state: &mut InstanceState<'_>) {
    if state.id.is_unknown() {
        state.id = Value::Value("i-0123456789".into());
        state.arn = Value::Value("arn:aws:ec2:eu-west-1:123:instance/i-0123456789".into());
        state.created_at = Value::Value("2026-12-01T12:00:00Z".into());
    }
}

#[async_trait]
impl Resource for InstanceResource {
    type State<'a> = InstanceState<'a>;
    type PrivateState<'a> = ValueEmpty;
    type ProviderMetaState<'a> = ValueEmpty;

    fn schema(&self, _diags: &mut Diagnostics) -> Option<Schema> {
        Some(schema())
    }

    async fn read<'a>(
        &self,
        _diags: &mut Diagnostics,
        state: Self::State<'a>,
        private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>)> {
        Some((state, private_state))
    }

    async fn plan_create<'a>(
        &self,
        _diags: &mut Diagnostics,
        proposed_state: Self::State<'a>,
        _config_state: Self::State<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>)> {
        let mut planned = proposed_state;
        planned.id = Value::Unknown;
        planned.arn = Value::Unknown;
        planned.created_at = Value::Unknown;
        Some((planned, Value::Null))
    }

    async fn plan_update<'a>(
        &self,
        _diags: &mut Diagnostics,
        _prior_state: Self::State<'a>,
        proposed_state: Self::State<'a>,
        _config_state: Self::State<'a>,
        prior_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>, Vec<AttributePath>)> {
        Some((proposed_state, prior_private_state, Vec::new()))
    }

    async fn plan_destroy<'a>(
        &self,
        _diags: &mut Diagnostics,
        _prior_state: Self::State<'a>,
        prior_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<Self::PrivateState<'a>> {
        Some(prior_private_state)
    }

    async fn create<'a>(
        &self,
        _diags: &mut Diagnostics,
        planned_state: Self::State<'a>,
        _config_state: Self::State<'a>,
        planned_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>)> {
        let mut new = planned_state;
        fill_computed(&mut new);
        Some((new, planned_private_state))
    }

    async fn update<'a>(
        &self,
        _diags: &mut Diagnostics,
        _prior_state: Self::State<'a>,
        planned_state: Self::State<'a>,
        _config_state: Self::State<'a>,
        planned_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>)> {
        let mut new = planned_state;
        fill_computed(&mut new);
        Some((new, planned_private_state))
    }

    async fn destroy<'a>(
        &self,
        _diags: &mut Diagnostics,
        _prior_state: Self::State<'a>,
        _planned_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<()> {
        Some(())
    }
}

/// The provider: one resource, `instance` (served as `bench_instance`).
pub struct BenchProvider;

#[async_trait]
impl Provider for BenchProvider {
    type Config<'a> = ValueEmpty;
    type MetaState<'a> = ValueEmpty;

    fn schema(&self, _diags: &mut Diagnostics) -> Option<Schema> {
        Some(Schema {
            version: 0,
            block: Block {
                description: Description::plain("bench"),
                ..Default::default()
            },
        })
    }

    async fn configure<'a>(
        &self,
        _diags: &mut Diagnostics,
        _terraform_version: String,
        _config: Self::Config<'a>,
    ) -> Option<()> {
        Some(())
    }

    fn get_resources(
        &self,
        _diags: &mut Diagnostics,
    ) -> Option<HashMap<String, Box<dyn DynamicResource>>> {
        Some(map! {
            "instance" => InstanceResource
        })
    }

    fn get_data_sources(
        &self,
        _diags: &mut Diagnostics,
    ) -> Option<HashMap<String, Box<dyn tf_provider::DynamicDataSource>>> {
        Some(map! {})
    }
}

/// The provider name tf-provider prefixes its resources' names with.
pub const PROVIDER_NAME: &str = "bench";

/// An answer of tf-provider's per-request path: the state and the private data, or the
/// errors its diagnostics hold.
pub type Answer = Result<(Vec<u8>, Vec<u8>), String>;

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// tf-provider's per-request path without gRPC, for PlanResourceChange and
/// ApplyResourceChange between the decoded protobuf request and the protobuf response.
///
/// tf-provider 0.2.2 does not export `RawValue` (its `raw` module is private), so its
/// `DynamicResource` methods cannot be called from outside with a request's bytes. This
/// does, call for call, what its service (`tf6provider.rs`) and the blanket
/// `impl<T: Resource> DynamicResource for T` (`resource.rs`) do: the resource looked up
/// by name; the dispatch on which values are null (`RawValue::is_null`: empty or `0xc0`);
/// one boxed future per `DynamicResource` call (`#[async_trait]`); each value, the
/// private data and `provider_meta` decoded with `rmp_serde::from_slice` (empty read as
/// `0xc0`); the `Resource` method (the crate's own, boxed by its `#[async_trait]`); the
/// state and the private data encoded with `rmp_serde::to_vec_named`. `grpc-cpu` checks
/// that tf-provider's real process answers the same requests with the same bytes.
pub struct PeerInProcess {
    resources: HashMap<String, InstanceResource>,
}

impl Default for PeerInProcess {
    fn default() -> Self {
        Self::new()
    }
}

const NULL: [u8; 1] = [0xc0];

/// `RawValue::is_null` of a `RawValue::MessagePack`.
fn is_null(bytes: &[u8]) -> bool {
    bytes.is_empty() || bytes == NULL
}

/// `RawValue::deserialize` of a `RawValue::MessagePack`.
fn decode<'a, T: Deserialize<'a>>(diags: &mut Diagnostics, bytes: &'a [u8]) -> Option<T> {
    let slice = if bytes.is_empty() { &NULL[..] } else { bytes };
    match rmp_serde::from_slice::<T>(slice) {
        Ok(v) => Some(v),
        Err(e) => {
            diags.root_error_short(e.to_string());
            None
        }
    }
}

/// `RawValue::serialize_vec`.
fn encode<T: Serialize>(diags: &mut Diagnostics, value: &T) -> Option<Vec<u8>> {
    match rmp_serde::to_vec_named(value) {
        Ok(v) => Some(v),
        Err(e) => {
            diags.root_error_short(e.to_string());
            None
        }
    }
}

fn finish(diags: Diagnostics, out: Option<(Vec<u8>, Vec<u8>)>) -> Answer {
    match out {
        Some(out) if diags.errors.is_empty() => Ok(out),
        _ if diags.errors.is_empty() => Err("Internal error".to_owned()),
        _ => Err(diags
            .errors
            .iter()
            .map(|d| format!("{}: {}", d.summary, d.detail))
            .collect::<Vec<_>>()
            .join("; ")),
    }
}

/// The `DynamicResource` methods of the blanket impl, on byte slices.
impl InstanceResource {
    fn dyn_plan_create<'a>(
        &'a self,
        diags: &'a mut Diagnostics,
        proposed: &'a [u8],
        config: &'a [u8],
        meta: &'a [u8],
    ) -> Boxed<'a, Option<(Vec<u8>, Vec<u8>)>> {
        Box::pin(async move {
            let (proposed, config, meta) = (
                decode(diags, proposed),
                decode(diags, config),
                decode(diags, meta),
            );
            let (proposed, config, meta) = (proposed?, config?, meta?);
            let (state, private) =
                Resource::plan_create(self, diags, proposed, config, meta).await?;
            let (state, private) = (encode(diags, &state), encode(diags, &private));
            Some((state?, private?))
        })
    }

    fn dyn_plan_update<'a>(
        &'a self,
        diags: &'a mut Diagnostics,
        [prior, proposed, config, private, meta]: [&'a [u8]; 5],
    ) -> Boxed<'a, Option<(Vec<u8>, Vec<u8>)>> {
        Box::pin(async move {
            let (prior, proposed, config, private, meta) = (
                decode(diags, prior),
                decode(diags, proposed),
                decode(diags, config),
                decode(diags, private),
                decode(diags, meta),
            );
            let (prior, proposed, config, private, meta) =
                (prior?, proposed?, config?, private?, meta?);
            let (state, private, _replace) =
                Resource::plan_update(self, diags, prior, proposed, config, private, meta).await?;
            let (state, private) = (encode(diags, &state), encode(diags, &private));
            Some((state?, private?))
        })
    }

    fn dyn_create<'a>(
        &'a self,
        diags: &'a mut Diagnostics,
        [planned, config, private, meta]: [&'a [u8]; 4],
    ) -> Boxed<'a, Option<(Vec<u8>, Vec<u8>)>> {
        Box::pin(async move {
            let (planned, config, private, meta) = (
                decode(diags, planned),
                decode(diags, config),
                decode(diags, private),
                decode(diags, meta),
            );
            let (planned, config, private, meta) = (planned?, config?, private?, meta?);
            let (state, private) =
                Resource::create(self, diags, planned, config, private, meta).await?;
            let (state, private) = (encode(diags, &state), encode(diags, &private));
            Some((state?, private?))
        })
    }

    fn dyn_update<'a>(
        &'a self,
        diags: &'a mut Diagnostics,
        [prior, planned, config, private, meta]: [&'a [u8]; 5],
    ) -> Boxed<'a, Option<(Vec<u8>, Vec<u8>)>> {
        Box::pin(async move {
            let (prior, planned, config, private, meta) = (
                decode(diags, prior),
                decode(diags, planned),
                decode(diags, config),
                decode(diags, private),
                decode(diags, meta),
            );
            let (prior, planned, config, private, meta) =
                (prior?, planned?, config?, private?, meta?);
            let (state, private) =
                Resource::update(self, diags, prior, planned, config, private, meta).await?;
            let (state, private) = (encode(diags, &state), encode(diags, &private));
            Some((state?, private?))
        })
    }
}

impl PeerInProcess {
    /// The resources of [`BenchProvider`], named as tf-provider's server names them.
    pub fn new() -> Self {
        let mut resources = HashMap::new();
        resources.insert(format!("{PROVIDER_NAME}_instance"), InstanceResource);
        PeerInProcess { resources }
    }

    /// PlanResourceChange (prior state, proposed new state, configuration).
    pub async fn plan(
        &self,
        type_name: &str,
        [prior, proposed, config]: [Vec<u8>; 3],
        prior_private: Vec<u8>,
        provider_meta: Vec<u8>,
    ) -> Answer {
        let mut diags = Diagnostics::default();
        let Some(resource) = self.resources.get(type_name) else {
            return Err(format!("Could not find resource `{type_name}` in provider"));
        };
        let out = match (is_null(&prior), is_null(&proposed), is_null(&config)) {
            (false, false, false) => {
                resource
                    .dyn_plan_update(
                        &mut diags,
                        [&prior, &proposed, &config, &prior_private, &provider_meta],
                    )
                    .await
            }
            (true, false, false) => {
                resource
                    .dyn_plan_create(&mut diags, &proposed, &config, &provider_meta)
                    .await
            }
            // Not measured: a destroy plan.
            _ => return Err("not a create or an update".to_owned()),
        };
        finish(diags, out)
    }

    /// ApplyResourceChange (prior state, planned state, configuration).
    pub async fn apply(
        &self,
        type_name: &str,
        [prior, planned, config]: [Vec<u8>; 3],
        planned_private: Vec<u8>,
        provider_meta: Vec<u8>,
    ) -> Answer {
        let mut diags = Diagnostics::default();
        let Some(resource) = self.resources.get(type_name) else {
            return Err(format!("Could not find resource `{type_name}` in provider"));
        };
        let out = match (is_null(&prior), is_null(&planned), is_null(&config)) {
            (false, false, false) => {
                resource
                    .dyn_update(
                        &mut diags,
                        [&prior, &planned, &config, &planned_private, &provider_meta],
                    )
                    .await
            }
            (true, false, false) => {
                resource
                    .dyn_create(
                        &mut diags,
                        [&planned, &config, &planned_private, &provider_meta],
                    )
                    .await
            }
            // Not measured: a destroy.
            _ => return Err("not a create or an update".to_owned()),
        };
        finish(diags, out)
    }
}

/// Serves [`BenchProvider`] as a process with tf-provider's own `serve` (go-plugin
/// handshake; plaintext without `PLUGIN_CLIENT_CERT`).
pub async fn serve_process() -> anyhow::Result<()> {
    tf_provider::serve(PROVIDER_NAME, BenchProvider).await
}
