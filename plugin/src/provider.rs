//! The [`Provider`] trait and the requests and responses of its operations.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use tfvalue::codec::RawState;
use tfvalue::schema::Schema;
use tfvalue::{AttributePath, DynamicValue, Type};

use crate::action::{InvokeActionRequest, PlanActionRequest, PlanActionResponse};
use crate::diagnostic::Diagnostic;
use crate::function::{CallFunctionRequest, CallFunctionResponse, Function, FunctionError};
use crate::identity::{
    same_version_identity, IdentitySchema, UpgradeResourceIdentityRequest,
    UpgradeResourceIdentityResponse,
};
use crate::list::{ListResourceRequest, ValidateListResourceConfigRequest};
use crate::state_store::{
    ConfigureStateStoreRequest, GetStatesResponse, LockStateRequest, LockStateResponse,
    ReadStateBytesRequest, ReadStateBytesResponse, StateStoreRequest, UnlockStateRequest,
    WriteStateBytesRequest,
};

/// Every schema a provider has: its own configuration, its managed resources, its data
/// sources and the signatures of its functions.
///
/// ```
/// use tfvalue::schema::{Attribute, Block, Schema};
/// use tfvalue::Type;
/// use tfvalue_plugin::Schemas;
///
/// let schemas = Schemas::new()
///     .resource("acme_thing", Schema::new(0, Block::new().attribute("name", Attribute::required(Type::String))))
///     .data_source("acme_info", Schema::new(0, Block::new().attribute("id", Attribute::computed(Type::String))));
/// assert!(schemas.resources.contains_key("acme_thing"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Schemas {
    /// The provider block's schema.
    pub provider: Schema,
    /// The `provider_meta` block's schema, if the provider has one.
    pub provider_meta: Option<Schema>,
    /// Managed resource types, by type name.
    pub resources: BTreeMap<String, Schema>,
    /// Data source types, by type name.
    pub data_sources: BTreeMap<String, Schema>,
    /// Provider-defined functions (Terraform 1.8+), by name: `provider::<provider>::<name>`.
    pub functions: BTreeMap<String, Function>,
    /// Ephemeral resource types (Terraform 1.10+), by type name: `ephemeral "<type>"`
    /// blocks, opened for a run and never stored.
    pub ephemeral_resources: BTreeMap<String, Schema>,
    /// Identity schemas (Terraform 1.12+), by resource type.
    pub identities: BTreeMap<String, IdentitySchema>,
    /// List resource types (Terraform 1.14+ `list` blocks, `terraform query`), by type
    /// name: each is a managed resource type with an identity, and its schema is that
    /// of the `list` block's `config` block (the filter). See [`crate::ListResults`].
    pub list_resources: BTreeMap<String, Schema>,
    /// Action types (Terraform 1.14+ `action` blocks), by type name: the schema of the
    /// action's configuration.
    pub actions: BTreeMap<String, Schema>,
    /// State store types (protocol 6.10; Terraform 1.15+, experimental there), by type
    /// name: the schema of the `state_store` block. Served over protocol 6 only.
    pub state_stores: BTreeMap<String, Schema>,
    /// What the provider offers beyond the schemas, told to Terraform in
    /// `GetProviderSchema` and `GetMetadata`.
    pub capabilities: ServerCapabilities,
}

/// What a provider offers beyond its schemas (tfplugin `ServerCapabilities`).
///
/// ```
/// use tfvalue_plugin::{Schemas, ServerCapabilities};
///
/// let schemas = Schemas::new()
///     .capabilities(ServerCapabilities::default().with_move_resource_state(true));
/// assert!(schemas.capabilities.move_resource_state);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// The provider answers `MoveResourceState` ([`Provider::move_resource_state`]):
    /// Terraform 1.8+ then takes `moved` blocks from one resource type to another
    /// (otherwise it refuses them: "Unsupported `moved` across resource types").
    pub move_resource_state: bool,
    /// The provider answers `GenerateResourceConfig`
    /// ([`Provider::generate_resource_config`]): Terraform 1.14+ then asks it for the
    /// configuration it writes with `-generate-config-out`, instead of guessing one
    /// from the state itself.
    pub generate_resource_config: bool,
}

impl ServerCapabilities {
    /// With [`move_resource_state`](ServerCapabilities::move_resource_state) as given.
    #[must_use]
    pub fn with_move_resource_state(mut self, on: bool) -> Self {
        self.move_resource_state = on;
        self
    }

    /// With [`generate_resource_config`](ServerCapabilities::generate_resource_config)
    /// as given.
    #[must_use]
    pub fn with_generate_resource_config(mut self, on: bool) -> Self {
        self.generate_resource_config = on;
        self
    }
}

impl Schemas {
    /// No schemas yet: an empty provider block.
    pub fn new() -> Self {
        Schemas::default()
    }

    /// Sets the provider block's schema.
    #[must_use]
    pub fn provider(mut self, schema: Schema) -> Self {
        self.provider = schema;
        self
    }

    /// Sets the `provider_meta` schema.
    #[must_use]
    pub fn provider_meta(mut self, schema: Schema) -> Self {
        self.provider_meta = Some(schema);
        self
    }

    /// Adds a managed resource type.
    #[must_use]
    pub fn resource(mut self, type_name: impl Into<String>, schema: Schema) -> Self {
        insert_schema(&mut self.resources, type_name.into(), schema);
        self
    }

    /// Adds a data source type.
    #[must_use]
    pub fn data_source(mut self, type_name: impl Into<String>, schema: Schema) -> Self {
        insert_schema(&mut self.data_sources, type_name.into(), schema);
        self
    }

    /// Adds an ephemeral resource type (Terraform 1.10+): the schema of its
    /// configuration and result (computed attributes are the result).
    #[must_use]
    pub fn ephemeral_resource(mut self, type_name: impl Into<String>, schema: Schema) -> Self {
        insert_schema(&mut self.ephemeral_resources, type_name.into(), schema);
        self
    }

    /// Gives a resource type an identity (Terraform 1.12+): then Terraform sends and
    /// stores it with every read, plan, apply and import of that type, and an
    /// `import` block may name an object by it.
    #[must_use]
    pub fn identity(mut self, type_name: impl Into<String>, schema: IdentitySchema) -> Self {
        insert_identity(&mut self.identities, type_name.into(), schema);
        self
    }

    /// Sets what the provider offers beyond its schemas.
    #[must_use]
    pub fn capabilities(mut self, capabilities: ServerCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Adds a list resource type (Terraform 1.14+): `type_name` is a managed resource
    /// type of the provider with an identity, and `schema` that of the `list` block's
    /// `config` block, the filter; [`Provider::list_resource`] answers.
    #[must_use]
    pub fn list_resource(mut self, type_name: impl Into<String>, schema: Schema) -> Self {
        insert_schema(&mut self.list_resources, type_name.into(), schema);
        self
    }

    /// Adds an action type (Terraform 1.14+): the schema of its configuration;
    /// [`Provider::plan_action`] and [`Provider::invoke_action`] answer.
    #[must_use]
    pub fn action(mut self, type_name: impl Into<String>, schema: Schema) -> Self {
        insert_schema(&mut self.actions, type_name.into(), schema);
        self
    }

    /// Adds a state store type (protocol 6 only; Terraform 1.15+, experimental there):
    /// the schema of its `state_store` block; [`Provider::read_state_bytes`] and the
    /// other state store methods answer.
    #[must_use]
    pub fn state_store(mut self, type_name: impl Into<String>, schema: Schema) -> Self {
        insert_schema(&mut self.state_stores, type_name.into(), schema);
        self
    }

    /// Adds a provider-defined function (Terraform 1.8+), called in configurations as
    /// `provider::<provider>::<name>(..)`; [`Provider::call_function`] answers its calls.
    #[must_use]
    pub fn function(mut self, name: impl Into<String>, function: Function) -> Self {
        insert_function(&mut self.functions, name.into(), function);
        self
    }
}

// The builders' map insertions, not generic (a `BTreeMap`'s insertion is compiled here,
// once, rather than in every provider crate that builds its schemas).
fn insert_schema(map: &mut BTreeMap<String, Schema>, name: String, schema: Schema) {
    map.insert(name, schema);
}

fn insert_identity(
    map: &mut BTreeMap<String, IdentitySchema>,
    name: String,
    schema: IdentitySchema,
) {
    map.insert(name, schema);
}

fn insert_function(map: &mut BTreeMap<String, Function>, name: String, function: Function) {
    map.insert(name, function);
}

/// What every request carries besides its own fields: whether the provider should stop
/// working on it.
///
/// As in go-plugin providers (whose request contexts are cancelled), a request is
/// stopped when Terraform calls `StopProvider` while it runs (Ctrl-C), or when its client
/// goes away. The server never drops a handler half-way: it runs to its end, and what it
/// returns is what Terraform receives, so an apply that created an object can report
/// it. A handler that waits on slow work should watch [`Context::stopped`] (or poll
/// [`Context::is_stopped`]) and return early, with an error diagnostic or with what it
/// has done so far. Requests that arrive after `StopProvider` start with a fresh context.
///
/// Each handler runs on a thread of its own (from the blocking pool of the runtime that
/// serves the provider), so blocking code in a handler is allowed: it holds up its own
/// request only, and `StopProvider` still reaches the others at once.
#[derive(Clone, Debug)]
pub struct Context {
    stop: Arc<Signal>,
    // The request's own cancellation: its client went away.
    cancel: Option<Arc<Signal>>,
    capabilities: ClientCapabilities,
    // Where a handler that has read the planned state hands its bytes back to the server
    // (an apply of a provider whose `__returns_planned_state` is true), so that the
    // server checks the new state against them without a copy of its own.
    planned_back: Option<PlannedBack>,
}

/// The place an apply's planned state is handed back to the server ([`Context`]'s);
/// its `Debug` says how many bytes it holds, not which.
#[derive(Clone, Default)]
pub(crate) struct PlannedBack(Arc<std::sync::Mutex<Option<Vec<u8>>>>);

impl PlannedBack {
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Vec<u8>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The bytes handed back, if any (taken).
    pub(crate) fn take(&self) -> Option<Vec<u8>> {
        self.slot().take()
    }
}

impl std::fmt::Debug for PlannedBack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.slot().as_ref().map(Vec::len) {
            Some(n) => write!(f, "PlannedBack({n} bytes)"),
            None => f.write_str("PlannedBack(empty)"),
        }
    }
}

/// What the Terraform calling says it supports (tfplugin `ClientCapabilities`), in
/// the requests that carry it: `ValidateResourceConfig`, `ReadResource`,
/// `PlanResourceChange`, `ImportResourceState`, `ReadDataSource` (and their v5 names).
/// Terraform before 1.9 sends none: everything is `false` then.
///
/// ```
/// use tfvalue_plugin::{ClientCapabilities, Context};
///
/// let caps = ClientCapabilities::default().with_write_only_attributes_allowed(true);
/// let ctx = Context::detached().with_client_capabilities(caps);
/// assert!(ctx.client_capabilities().write_only_attributes_allowed);
/// assert!(!Context::detached().client_capabilities().deferral_allowed);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// The client can handle deferred responses (Terraform 1.9+, experimental builds).
    pub deferral_allowed: bool,
    /// The client supports write-only attributes (Terraform 1.11+): without it a
    /// configured write-only value would end up in plan and state, so the server refuses
    /// one at validation.
    pub write_only_attributes_allowed: bool,
}

impl ClientCapabilities {
    /// With [`deferral_allowed`](ClientCapabilities::deferral_allowed) set as given.
    #[must_use]
    pub fn with_deferral_allowed(mut self, allowed: bool) -> Self {
        self.deferral_allowed = allowed;
        self
    }

    /// With [`write_only_attributes_allowed`](ClientCapabilities::write_only_attributes_allowed)
    /// set as given.
    #[must_use]
    pub fn with_write_only_attributes_allowed(mut self, allowed: bool) -> Self {
        self.write_only_attributes_allowed = allowed;
        self
    }
}

/// A signal fired once and never reset: `StopProvider` for the requests in flight (a
/// fresh one serves the requests after it), or one request's cancellation.
#[derive(Debug, Default)]
pub(crate) struct Signal {
    fired: std::sync::atomic::AtomicBool,
    wake: tokio::sync::Notify,
}

impl Signal {
    /// Fires the signal: every [`Signal::fired`] now and later resolves.
    pub(crate) fn fire(&self) {
        self.fired.store(true, std::sync::atomic::Ordering::SeqCst);
        self.wake.notify_waiters();
    }

    /// Whether the signal was fired.
    pub(crate) fn is_fired(&self) -> bool {
        self.fired.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Resolves once the signal is fired.
    pub(crate) async fn fired(&self) {
        loop {
            let woken = self.wake.notified();
            tokio::pin!(woken);
            // Registered before the flag is read: a `fire` in between still wakes it.
            woken.as_mut().enable();
            if self.is_fired() {
                return;
            }
            woken.await;
        }
    }
}

impl Context {
    pub(crate) fn for_request(stop: Arc<Signal>, cancel: Arc<Signal>) -> Self {
        Context {
            stop,
            cancel: Some(cancel),
            capabilities: ClientCapabilities::default(),
            planned_back: None,
        }
    }

    /// The context with a place for the handler to hand the planned state's bytes back
    /// ([`Context::give_back_planned_state`]).
    pub(crate) fn with_planned_back(mut self, slot: PlannedBack) -> Self {
        self.planned_back = Some(slot);
        self
    }

    /// Hands an apply's planned state (its MessagePack bytes, as the request carried
    /// them) back to the server once the handler has read it; dropped where the server
    /// asked for none.
    pub(crate) fn give_back_planned_state(&self, bytes: Vec<u8>) {
        if let Some(slot) = &self.planned_back {
            *slot.slot() = Some(bytes);
        }
    }

    /// What the Terraform calling says it supports (all `false` for a request that
    /// carries no capabilities, and for Terraform before 1.9).
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.capabilities
    }

    /// The context with these client capabilities (the server sets them from the
    /// request; for tests of handlers).
    #[must_use]
    pub fn with_client_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// A context that is never stopped, for calling a provider's handlers in tests.
    ///
    /// ```
    /// assert!(!tfvalue_plugin::Context::detached().is_stopped());
    /// ```
    pub fn detached() -> Self {
        Context {
            stop: Arc::default(),
            cancel: None,
            capabilities: ClientCapabilities::default(),
            planned_back: None,
        }
    }

    /// Whether Terraform has asked the provider to stop (`StopProvider`) since this
    /// request arrived, or its client went away.
    pub fn is_stopped(&self) -> bool {
        self.stop.is_fired() || self.cancel.as_ref().is_some_and(|c| c.is_fired())
    }

    /// Resolves once the request is stopped (see [`Context::is_stopped`]).
    pub async fn stopped(&self) {
        match &self.cancel {
            None => self.stop.fired().await,
            Some(cancel) => {
                tokio::select! {
                    () = self.stop.fired() => {}
                    () = cancel.fired() => {}
                }
            }
        }
    }
}

/// `ValidateProviderConfig` (tfplugin5 `PrepareProviderConfig`).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ValidateProviderConfigRequest {
    /// The provider block's configuration; may hold unknowns.
    pub config: DynamicValue,
    /// Stop signal.
    pub ctx: Context,
}

/// `ValidateResourceConfig` and `ValidateDataResourceConfig` (tfplugin5
/// `ValidateResourceTypeConfig` and `ValidateDataSourceConfig`).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ValidateConfigRequest {
    /// The resource or data source type.
    pub type_name: String,
    /// The configuration; may hold unknowns.
    pub config: DynamicValue,
    /// Stop signal.
    pub ctx: Context,
}

/// `ConfigureProvider` (tfplugin5 `Configure`).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConfigureProviderRequest {
    /// The version of the Terraform calling.
    pub terraform_version: String,
    /// The provider block's configuration.
    pub config: DynamicValue,
    /// Stop signal.
    pub ctx: Context,
}

/// `UpgradeResourceState`: stored state of any schema version, to be returned in the
/// current one. Terraform calls it for every managed instance on every plan, refresh and
/// apply, even at the current version.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct UpgradeResourceStateRequest {
    /// The resource type.
    pub type_name: String,
    /// The schema version the state was stored with.
    pub version: i64,
    /// The stored state: JSON, or the flatmap of Terraform before 0.12. Feed it to a
    /// [`tfvalue::codec::Codec`].
    pub raw_state: RawState,
    /// The resource type's current schema.
    pub schema: Arc<Schema>,
    /// Stop signal.
    pub ctx: Context,
}

/// The answer to [`UpgradeResourceStateRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct UpgradeResourceStateResponse {
    /// The state in the current schema version (MessagePack).
    pub upgraded_state: DynamicValue,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl UpgradeResourceStateResponse {
    /// The upgraded state.
    pub fn new(upgraded_state: DynamicValue) -> Self {
        UpgradeResourceStateResponse {
            upgraded_state,
            diagnostics: Vec::new(),
        }
    }

    /// Only diagnostics.
    pub fn from_diagnostics(diagnostics: Vec<Diagnostic>) -> Self {
        UpgradeResourceStateResponse {
            upgraded_state: DynamicValue::default(),
            diagnostics,
        }
    }
}

/// `ReadResource`: refresh the state from the real world.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadResourceRequest {
    /// The resource type.
    pub type_name: String,
    /// The state as last stored (after `UpgradeResourceState`).
    pub current_state: DynamicValue,
    /// The private data stored with it.
    pub private: Vec<u8>,
    /// The `provider_meta` value, if any.
    pub provider_meta: DynamicValue,
    /// The identity stored with the resource (Terraform 1.12+, for a type with an
    /// identity schema); `None` when Terraform sent none.
    pub current_identity: Option<DynamicValue>,
    /// Stop signal.
    pub ctx: Context,
}

/// The answer to [`ReadResourceRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ReadResourceResponse {
    /// The refreshed state; null when the object no longer exists.
    pub new_state: DynamicValue,
    /// Private data to store.
    pub private: Vec<u8>,
    /// Deferred to a later run instead (Terraform's deferred actions; only when
    /// [`ClientCapabilities::deferral_allowed`](crate::ClientCapabilities) is set, else
    /// the server turns it into an error).
    pub deferred: Option<Deferred>,
    /// The identity of the object read (Terraform 1.12+): wholly known, the same as
    /// the current one when there was one.
    pub new_identity: Option<DynamicValue>,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl ReadResourceResponse {
    /// The refreshed state and private data.
    pub fn new(new_state: DynamicValue, private: Vec<u8>) -> Self {
        ReadResourceResponse {
            new_identity: None,
            deferred: None,
            new_state,
            private,
            diagnostics: Vec::new(),
        }
    }
}

/// `PlanResourceChange`: what applying the configuration would do.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PlanResourceChangeRequest {
    /// The resource type.
    pub type_name: String,
    /// The current state; null when creating.
    pub prior_state: DynamicValue,
    /// Terraform's proposal: the configuration merged with the prior state's computed
    /// values; null when destroying.
    pub proposed_new_state: DynamicValue,
    /// The configuration; may hold unknowns (values that depend on other resources).
    pub config: DynamicValue,
    /// The private data stored with the prior state.
    pub prior_private: Vec<u8>,
    /// The `provider_meta` value, if any.
    pub provider_meta: DynamicValue,
    /// The identity stored with the resource (Terraform 1.12+, for a type with an
    /// identity schema); `None` when Terraform sent none.
    pub prior_identity: Option<DynamicValue>,
    /// Stop signal.
    pub ctx: Context,
}

/// The answer to [`PlanResourceChangeRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct PlanResourceChangeResponse {
    /// The planned state; unknowns (refined or not) for what apply will decide.
    pub planned_state: DynamicValue,
    /// Attributes whose change forces replacement.
    pub requires_replace: Vec<AttributePath>,
    /// Private data handed to apply.
    pub planned_private: Vec<u8>,
    /// Deferred to a later run instead (Terraform's deferred actions; only when
    /// [`ClientCapabilities::deferral_allowed`](crate::ClientCapabilities) is set, else
    /// the server turns it into an error).
    pub deferred: Option<Deferred>,
    /// The planned identity (Terraform 1.12+): the prior one for an update (an
    /// identity never changes but by replacement); may hold unknowns on create.
    pub planned_identity: Option<DynamicValue>,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl PlanResourceChangeResponse {
    /// A plan with this planned state.
    pub fn new(planned_state: DynamicValue) -> Self {
        PlanResourceChangeResponse {
            planned_state,
            ..Default::default()
        }
    }
}

impl PlanResourceChangeRequest {
    /// A request, as the server builds it (to call a handler in tests): no private data,
    /// no `provider_meta`, a context that is never stopped.
    ///
    /// ```
    /// use tfvalue::DynamicValue;
    /// use tfvalue_plugin::PlanResourceChangeRequest;
    ///
    /// let null = DynamicValue::from_msgpack(vec![0xc0]);
    /// let req = PlanResourceChangeRequest::new("acme_thing", null.clone(), null.clone(), null);
    /// assert!(req.prior_private.is_empty());
    /// ```
    pub fn new(
        type_name: impl Into<String>,
        prior_state: DynamicValue,
        proposed_new_state: DynamicValue,
        config: DynamicValue,
    ) -> Self {
        PlanResourceChangeRequest {
            prior_identity: None,
            type_name: type_name.into(),
            prior_state,
            proposed_new_state,
            config,
            prior_private: Vec::new(),
            provider_meta: DynamicValue::default(),
            ctx: Context::detached(),
        }
    }
}

/// `ApplyResourceChange`: make the plan real.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ApplyResourceChangeRequest {
    /// The resource type.
    pub type_name: String,
    /// The current state; null when creating.
    pub prior_state: DynamicValue,
    /// The state planned; null when destroying. Terraform before 1.6 sends refined
    /// unknowns back as plain unknowns: the server keeps the plan's refinements itself
    /// and checks the new state against them.
    pub planned_state: DynamicValue,
    /// The configuration, now wholly known.
    pub config: DynamicValue,
    /// The private data the plan returned.
    pub planned_private: Vec<u8>,
    /// The `provider_meta` value, if any.
    pub provider_meta: DynamicValue,
    /// The planned identity (Terraform 1.12+); it may hold unknowns on create.
    pub planned_identity: Option<DynamicValue>,
    /// Stop signal.
    pub ctx: Context,
}

impl ApplyResourceChangeRequest {
    /// A request, as the server builds it (to call a handler in tests): no private data,
    /// no `provider_meta`, a context that is never stopped.
    pub fn new(
        type_name: impl Into<String>,
        prior_state: DynamicValue,
        planned_state: DynamicValue,
        config: DynamicValue,
    ) -> Self {
        ApplyResourceChangeRequest {
            planned_identity: None,
            type_name: type_name.into(),
            prior_state,
            planned_state,
            config,
            planned_private: Vec::new(),
            provider_meta: DynamicValue::default(),
            ctx: Context::detached(),
        }
    }
}

/// The answer to [`ApplyResourceChangeRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ApplyResourceChangeResponse {
    /// The new state: wholly known, consistent with the plan; null after destroy.
    pub new_state: DynamicValue,
    /// Private data to store with it.
    pub private: Vec<u8>,
    /// The identity of the object applied (Terraform 1.12+): wholly known, the planned
    /// one where that was known.
    pub new_identity: Option<DynamicValue>,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl ApplyResourceChangeResponse {
    /// The new state.
    pub fn new(new_state: DynamicValue) -> Self {
        ApplyResourceChangeResponse {
            new_state,
            ..Default::default()
        }
    }
}

/// `ImportResourceState`: adopt an existing object by its id.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ImportResourceStateRequest {
    /// The resource type.
    pub type_name: String,
    /// The id given to `terraform import`.
    pub id: String,
    /// The identity to import by (`import { identity = {..} }`, Terraform 1.12+);
    /// [`id`](ImportResourceStateRequest::id) is empty then.
    pub identity: Option<DynamicValue>,
    /// Stop signal.
    pub ctx: Context,
}

/// `MoveResourceState` (Terraform 1.8+): a `moved` block takes the state of a resource
/// of another type (of this provider or another) into one of this provider's types.
/// Terraform sends it only when [`ServerCapabilities::move_resource_state`] is set.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct MoveResourceStateRequest {
    /// The source's provider (`registry.terraform.io/hashicorp/random`).
    pub source_provider_address: String,
    /// The source's resource type.
    pub source_type_name: String,
    /// The schema version the source's state was stored with.
    pub source_schema_version: i64,
    /// The source's stored state (JSON; its schema is the source provider's).
    pub source_state: RawState,
    /// The source's private data.
    pub source_private: Vec<u8>,
    /// The source's stored identity (JSON), if it had one.
    pub source_identity: Option<RawState>,
    /// The identity schema version the source's identity was stored with.
    pub source_identity_schema_version: i64,
    /// The target resource type (one of this provider's).
    pub target_type_name: String,
    /// The target resource type's schema.
    pub target_schema: Arc<Schema>,
    /// Stop signal.
    pub ctx: Context,
}

/// The answer to [`MoveResourceStateRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct MoveResourceStateResponse {
    /// The state in the target type's current schema (checked against it; wholly
    /// known).
    pub target_state: DynamicValue,
    /// The target's private data.
    pub target_private: Vec<u8>,
    /// The target's identity (Terraform 1.12+).
    pub target_identity: Option<DynamicValue>,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl MoveResourceStateResponse {
    /// A moved state.
    pub fn new(target_state: DynamicValue) -> Self {
        MoveResourceStateResponse {
            target_state,
            ..Default::default()
        }
    }
}

/// Why an operation is deferred to a later run (Terraform's deferred actions,
/// experimental in Terraform 1.9+): a handler answers [`Deferred`] instead of a result
/// only when [`ClientCapabilities::deferral_allowed`](crate::ClientCapabilities) says
/// Terraform takes it; the server refuses a deferral otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeferredReason {
    /// Not given (the protocol's `UNKNOWN`).
    Unknown,
    /// The resource's configuration holds unknowns the provider needs.
    ResourceConfigUnknown,
    /// The provider's configuration holds unknowns it needs.
    ProviderConfigUnknown,
    /// Something the operation needs does not exist yet.
    AbsentPrereq,
}

/// An operation deferred to a later run, and why: see [`DeferredReason`].
///
/// ```
/// use tfvalue_plugin::{Deferred, DeferredReason};
///
/// let d = Deferred::new(DeferredReason::ProviderConfigUnknown);
/// assert_eq!(d.reason, DeferredReason::ProviderConfigUnknown);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Deferred {
    /// Why.
    pub reason: DeferredReason,
}

impl Deferred {
    /// A deferral for this reason.
    pub fn new(reason: DeferredReason) -> Self {
        Deferred { reason }
    }
}

/// `OpenEphemeralResource` (Terraform 1.10+): an `ephemeral` block's configuration,
/// wholly known (Terraform does not open one whose configuration is not; its result is
/// then unknown).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct OpenEphemeralResourceRequest {
    /// The ephemeral resource type.
    pub type_name: String,
    /// The configuration, wholly known.
    pub config: DynamicValue,
    /// Stop signal, and the client's capabilities.
    pub ctx: Context,
}

impl OpenEphemeralResourceRequest {
    /// A request, as the server builds it (useful in tests); its context is never
    /// stopped.
    pub fn new(type_name: impl Into<String>, config: DynamicValue) -> Self {
        OpenEphemeralResourceRequest {
            type_name: type_name.into(),
            config,
            ctx: Context::detached(),
        }
    }
}

/// The answer to [`OpenEphemeralResourceRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct OpenEphemeralResourceResponse {
    /// The result: the configuration with the computed attributes set (wholly known).
    /// Terraform keeps it in memory for the run; it never reaches a plan or a state.
    pub result: DynamicValue,
    /// Bytes Terraform hands back to [`Provider::renew_ephemeral_resource`] and
    /// [`Provider::close_ephemeral_resource`] (a lease id, a token to revoke).
    pub private: Vec<u8>,
    /// When Terraform should call [`Provider::renew_ephemeral_resource`], if the
    /// resource is still open then; `None`: never.
    pub renew_at: Option<std::time::SystemTime>,
    /// Opened in a later run instead (only when the client allows deferral).
    pub deferred: Option<Deferred>,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl OpenEphemeralResourceResponse {
    /// An opened resource with this result.
    pub fn new(result: DynamicValue) -> Self {
        OpenEphemeralResourceResponse {
            result,
            ..Default::default()
        }
    }
}

/// `RenewEphemeralResource`: the time an open ephemeral resource asked for has come,
/// and Terraform still uses it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RenewEphemeralResourceRequest {
    /// The ephemeral resource type.
    pub type_name: String,
    /// The private bytes of the open, or of the renew before this one.
    pub private: Vec<u8>,
    /// Stop signal.
    pub ctx: Context,
}

impl RenewEphemeralResourceRequest {
    /// A request, as the server builds it (useful in tests).
    pub fn new(type_name: impl Into<String>, private: Vec<u8>) -> Self {
        RenewEphemeralResourceRequest {
            type_name: type_name.into(),
            private,
            ctx: Context::detached(),
        }
    }
}

/// The answer to [`RenewEphemeralResourceRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RenewEphemeralResourceResponse {
    /// The private bytes for the next renew (Terraform 1.10 and 1.11 still hand the
    /// open's bytes to close).
    pub private: Vec<u8>,
    /// When to renew again; `None`: never.
    pub renew_at: Option<std::time::SystemTime>,
    /// Problems found; an error stops the renewals, and Terraform reports it at close.
    pub diagnostics: Vec<Diagnostic>,
}

impl RenewEphemeralResourceResponse {
    /// A renewal that keeps `private` and asks for no other (set
    /// [`renew_at`](RenewEphemeralResourceResponse::renew_at) for one).
    pub fn new(private: Vec<u8>) -> Self {
        RenewEphemeralResourceResponse {
            private,
            ..Default::default()
        }
    }
}

/// `CloseEphemeralResource`: Terraform is done with an open ephemeral resource (at the
/// end of the plan or apply that opened it, or when nothing left needs it).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CloseEphemeralResourceRequest {
    /// The ephemeral resource type.
    pub type_name: String,
    /// The private bytes of the open.
    pub private: Vec<u8>,
    /// Stop signal.
    pub ctx: Context,
}

impl CloseEphemeralResourceRequest {
    /// A request, as the server builds it (useful in tests).
    pub fn new(type_name: impl Into<String>, private: Vec<u8>) -> Self {
        CloseEphemeralResourceRequest {
            type_name: type_name.into(),
            private,
            ctx: Context::detached(),
        }
    }
}

/// One object an import found.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ImportedResource {
    /// Its resource type.
    pub type_name: String,
    /// Its state (Terraform reads it with `ReadResource` next).
    pub state: DynamicValue,
    /// Its identity (Terraform 1.12+).
    pub identity: Option<DynamicValue>,
    /// Private data to store.
    pub private: Vec<u8>,
}

impl ImportedResource {
    /// An imported object.
    pub fn new(type_name: impl Into<String>, state: DynamicValue) -> Self {
        ImportedResource {
            identity: None,
            type_name: type_name.into(),
            state,
            private: Vec::new(),
        }
    }
}

/// The answer to [`ImportResourceStateRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ImportResourceStateResponse {
    /// What was imported.
    pub imported_resources: Vec<ImportedResource>,
    /// Deferred to a later run instead (Terraform's deferred actions; only when
    /// [`ClientCapabilities::deferral_allowed`](crate::ClientCapabilities) is set, else
    /// the server turns it into an error).
    pub deferred: Option<Deferred>,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl ImportResourceStateResponse {
    /// These imported objects.
    pub fn new(imported_resources: Vec<ImportedResource>) -> Self {
        ImportResourceStateResponse {
            deferred: None,
            imported_resources,
            diagnostics: Vec::new(),
        }
    }
}

/// `ReadDataSource`.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadDataSourceRequest {
    /// The data source type.
    pub type_name: String,
    /// The configuration, wholly known.
    pub config: DynamicValue,
    /// The `provider_meta` value, if any.
    pub provider_meta: DynamicValue,
    /// Stop signal.
    pub ctx: Context,
}

/// The answer to [`ReadDataSourceRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ReadDataSourceResponse {
    /// The data source's state.
    pub state: DynamicValue,
    /// Deferred to a later run instead (Terraform's deferred actions; only when
    /// [`ClientCapabilities::deferral_allowed`](crate::ClientCapabilities) is set, else
    /// the server turns it into an error).
    pub deferred: Option<Deferred>,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl ReadDataSourceResponse {
    /// The data source's state.
    pub fn new(state: DynamicValue) -> Self {
        ReadDataSourceResponse {
            deferred: None,
            state,
            diagnostics: Vec::new(),
        }
    }
}

/// `GenerateResourceConfig` (Terraform 1.14+, `-generate-config-out`): the configuration
/// Terraform writes for an imported or listed object, from its state.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GenerateResourceConfigRequest {
    /// The resource type.
    pub type_name: String,
    /// The object's state, wholly known.
    pub state: DynamicValue,
    /// The resource type's schema.
    pub schema: Arc<Schema>,
    /// Stop signal.
    pub ctx: Context,
}

impl GenerateResourceConfigRequest {
    /// A request, as the server builds it (useful in tests); its context is never
    /// stopped.
    pub fn new(type_name: impl Into<String>, state: DynamicValue, schema: Arc<Schema>) -> Self {
        GenerateResourceConfigRequest {
            type_name: type_name.into(),
            state,
            schema,
            ctx: Context::detached(),
        }
    }
}

/// The answer to [`GenerateResourceConfigRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct GenerateResourceConfigResponse {
    /// The configuration, of the resource type's schema, wholly known: Terraform writes
    /// every attribute that is not null.
    pub config: DynamicValue,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
}

impl GenerateResourceConfigResponse {
    /// A configuration.
    pub fn new(config: DynamicValue) -> Self {
        GenerateResourceConfigResponse {
            config,
            diagnostics: Vec::new(),
        }
    }
}

/// The default `GenerateResourceConfig`: the state with what a configuration cannot
/// set made null ([`Block::config_from_state`](tfvalue::schema::Block::config_from_state):
/// computed-only and write-only attributes, at any depth), so that the configuration
/// Terraform writes from it plans with no change.
///
/// ```
/// use std::sync::Arc;
/// use tfvalue::schema::{Attribute, Block, Schema};
/// use tfvalue::{DynamicValue, Type, Value};
/// use tfvalue_plugin::{config_from_state, GenerateResourceConfigRequest};
///
/// let schema = Schema::new(0, Block::new()
///     .attribute("id", Attribute::computed(Type::String))
///     .attribute("name", Attribute::required(Type::String)));
/// let state = DynamicValue::encode(&serde_json::json!({ "id": "i-1", "name": "web" })).unwrap();
/// let resp = config_from_state(&GenerateResourceConfigRequest::new("acme_thing", state, Arc::new(schema.clone())));
/// let config = resp.config.decode_value(&schema.implied_type()).unwrap();
/// assert_eq!(config["id"], Value::Null);
/// assert_eq!(config["name"], "web");
/// ```
pub fn config_from_state(req: &GenerateResourceConfigRequest) -> GenerateResourceConfigResponse {
    let ty: Type = req.schema.implied_type();
    let state = match req.state.decode_value(&ty) {
        Ok(v) => v,
        Err(e) => {
            return Diagnostic::from_value_error(
                "the state to generate configuration from does not decode",
                &e,
            )
            .into()
        }
    };
    let config = req.schema.block.config_from_state(state);
    match DynamicValue::encode_value(&config, &ty) {
        Ok(dv) => GenerateResourceConfigResponse::new(dv),
        Err(e) => {
            Diagnostic::from_value_error("the generated configuration does not encode", &e).into()
        }
    }
}

fn unsupported(what: &str, type_name: &str) -> Diagnostic {
    Diagnostic::error(format!("{what} is not supported")).with_detail(format!(
        "This provider does not implement {what} for `{type_name}`."
    ))
}

/// A Terraform provider, served over tfplugin5 and tfplugin6 by [`serve`](crate::serve).
///
/// Only [`schemas`](Provider::schemas) is required; every operation has a default:
///
/// | operation | default |
/// | --- | --- |
/// | validate (provider, resource, data source) | no diagnostics |
/// | configure | no diagnostics |
/// | upgrade state | state at the current version passes through (decoded and re-encoded with the schema); other versions are an error |
/// | read resource | the current state, unchanged |
/// | plan | the proposed new state, unchanged |
/// | apply | an "unsupported" error |
/// | import | an "unsupported" error |
/// | read data source | an "unsupported" error |
/// | move resource state | an "unsupported" error |
/// | upgrade resource identity | the current version as it is, an error for others |
/// | validate an ephemeral resource | no diagnostics |
/// | open an ephemeral resource | an "unsupported" error |
/// | renew, close an ephemeral resource | nothing to do |
/// | call function | an error: no such function |
/// | generate resource config | [`config_from_state`] (called only when [`ServerCapabilities::generate_resource_config`] is on) |
/// | validate a list resource, validate an action | no diagnostics |
/// | list resource | an "unsupported" error |
/// | plan action | no diagnostics |
/// | invoke action | an "unsupported" error |
/// | validate, configure a state store | no diagnostics |
/// | read, write, lock, unlock, list, delete states | an "unsupported" error (lock and unlock: no locking) |
/// | stop | nothing to do |
///
/// Requests hold their values as [`DynamicValue`]s whose bytes were moved out of the gRPC
/// message, not copied: decode them with [`DynamicValue::decode`] into a model, or with
/// [`DynamicValue::decode_borrowed`] into one that borrows strings from the request.
///
/// Handlers are `async`; write them as `async fn`. The server checks what they receive
/// and what they return: every `DynamicValue` is decoded against the schema before the
/// handler runs (a malformed one is answered with an error diagnostic naming the
/// attribute), a panic becomes an error diagnostic, and the new state from apply is
/// checked against the plan, refinements included.
///
/// ```
/// use tfvalue::schema::{Attribute, Block, Schema};
/// use tfvalue::{DynamicValue, Type};
/// use tfvalue_plugin::{
///     ApplyResourceChangeRequest, ApplyResourceChangeResponse, Diagnostic, Provider, Schemas,
/// };
///
/// struct Echo;
///
/// impl Provider for Echo {
///     fn schemas(&self) -> Schemas {
///         let block = Block::new().attribute("text", Attribute::required(Type::String));
///         Schemas::new().resource("echo_text", Schema::new(0, block))
///     }
///
///     async fn apply_resource_change(&self, req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse {
///         // Nothing to create: the plan is the result (null after destroy).
///         ApplyResourceChangeResponse::new(req.planned_state)
///     }
/// }
/// # let _ = Echo.schemas();
/// ```
pub trait Provider: Send + Sync + 'static {
    /// Every schema of the provider. Called once when serving starts; a schema that the
    /// negotiated protocol cannot carry is reported as an error diagnostic at `GetSchema`.
    fn schemas(&self) -> Schemas;

    /// Validates the provider block.
    fn validate_provider_config(
        &self,
        req: ValidateProviderConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// Validates a resource block.
    fn validate_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// Validates a data source block.
    fn validate_data_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// Configures the provider; called before any resource operation but after
    /// validation and state upgrades.
    fn configure_provider(
        &self,
        req: ConfigureProviderRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// Upgrades stored state to the current schema version.
    fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> impl Future<Output = UpgradeResourceStateResponse> + Send {
        async move { same_version_upgrade(&req) }
    }

    /// Upgrades an identity stored with an older identity schema version (Terraform
    /// 1.12+). By default, an identity of the current version is taken as it is and
    /// any other is an error ([`same_version_identity`]).
    fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> impl Future<Output = UpgradeResourceIdentityResponse> + Send {
        async move { same_version_identity(&req) }
    }

    /// Refreshes a resource's state.
    fn read_resource(
        &self,
        req: ReadResourceRequest,
    ) -> impl Future<Output = ReadResourceResponse> + Send {
        async move {
            let mut resp = ReadResourceResponse::new(req.current_state, req.private);
            resp.new_identity = req.current_identity;
            resp
        }
    }

    /// Plans a change.
    fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> impl Future<Output = PlanResourceChangeResponse> + Send {
        async move {
            let mut resp = PlanResourceChangeResponse::new(req.proposed_new_state);
            resp.planned_private = req.prior_private;
            resp.planned_identity = req.prior_identity;
            resp
        }
    }

    /// Applies a planned change.
    fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> impl Future<Output = ApplyResourceChangeResponse> + Send {
        async move {
            ApplyResourceChangeResponse {
                diagnostics: vec![unsupported("apply", &req.type_name)],
                ..Default::default()
            }
        }
    }

    /// Imports an existing object.
    fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> impl Future<Output = ImportResourceStateResponse> + Send {
        async move {
            ImportResourceStateResponse {
                deferred: None,
                imported_resources: Vec::new(),
                diagnostics: vec![unsupported("import", &req.type_name)],
            }
        }
    }

    /// Reads a data source.
    fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> impl Future<Output = ReadDataSourceResponse> + Send {
        async move {
            ReadDataSourceResponse {
                deferred: None,
                state: DynamicValue::default(),
                diagnostics: vec![unsupported("reading a data source", &req.type_name)],
            }
        }
    }

    /// Validates an `ephemeral` block (Terraform 1.10+); the server has checked it
    /// against the schema.
    fn validate_ephemeral_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// Opens an ephemeral resource (Terraform 1.10+) declared in
    /// [`Schemas::ephemeral_resources`]: makes its result for this run (a token, a
    /// lease, a secret read). The server checks the result against the schema (wholly
    /// known).
    fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> impl Future<Output = OpenEphemeralResourceResponse> + Send {
        async move {
            OpenEphemeralResourceResponse {
                diagnostics: vec![unsupported("opening an ephemeral resource", &req.type_name)],
                ..Default::default()
            }
        }
    }

    /// Renews an open ephemeral resource when its `renew_at` has come. By default, no
    /// renewal is needed again.
    fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> impl Future<Output = RenewEphemeralResourceResponse> + Send {
        async move {
            RenewEphemeralResourceResponse {
                private: req.private,
                ..Default::default()
            }
        }
    }

    /// Closes an open ephemeral resource (revokes the token, ends the lease). By
    /// default, nothing to do.
    fn close_ephemeral_resource(
        &self,
        req: CloseEphemeralResourceRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// Takes the state of a resource of another type into one of this provider's types
    /// (a `moved` block across types, Terraform 1.8+). Terraform calls it only when
    /// [`Schemas::capabilities`] says [`ServerCapabilities::move_resource_state`].
    fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> impl Future<Output = MoveResourceStateResponse> + Send {
        async move {
            MoveResourceStateResponse {
                diagnostics: vec![unsupported("moving resource state", &req.target_type_name)],
                ..Default::default()
            }
        }
    }

    /// Calls a provider-defined function (Terraform 1.8+) declared in
    /// [`Schemas::functions`]. The server has checked the arguments against the
    /// function's parameters (their number and types, null and unknown only where a
    /// parameter allows them) and checks the result against its return type. Functions
    /// are called also before the provider is configured, and must be pure.
    fn call_function(
        &self,
        req: CallFunctionRequest,
    ) -> impl Future<Output = CallFunctionResponse> + Send {
        async move {
            CallFunctionResponse::error(FunctionError::new(format!(
                "this provider does not implement its function `{}`",
                req.name
            )))
        }
    }

    /// Writes the configuration of an object from its state (Terraform 1.14+,
    /// `-generate-config-out` of `plan` and `query`). Terraform calls it only when
    /// [`Schemas::capabilities`] says [`ServerCapabilities::generate_resource_config`];
    /// the server checks the answer against the resource's schema. By default
    /// [`config_from_state`].
    fn generate_resource_config(
        &self,
        req: GenerateResourceConfigRequest,
    ) -> impl Future<Output = GenerateResourceConfigResponse> + Send {
        async move { config_from_state(&req) }
    }

    /// Validates a `list` block (Terraform 1.14+) of a type declared in
    /// [`Schemas::list_resources`]; the server has checked it against the schema.
    fn validate_list_resource_config(
        &self,
        req: ValidateListResourceConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// Lists the objects a `list` block selects (Terraform 1.14+, `terraform query`),
    /// sending each through [`ListResourceRequest::results`] as it is found; returns
    /// the diagnostics of the listing as a whole (on an error, Terraform drops every
    /// result it was sent). The server checks each result against the resource type's identity and
    /// resource schemas, and stops the listing at Terraform's limit.
    fn list_resource(
        &self,
        req: ListResourceRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        async move { vec![unsupported("listing resources", &req.type_name)] }
    }

    /// Validates an `action` block (Terraform 1.14+) of a type declared in
    /// [`Schemas::actions`]; the server has checked it against the schema.
    fn validate_action_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// Plans an action (Terraform 1.14+): whether it can run with this configuration
    /// (which may hold unknowns). By default, nothing to say.
    fn plan_action(
        &self,
        req: PlanActionRequest,
    ) -> impl Future<Output = PlanActionResponse> + Send {
        let _ = req;
        async { PlanActionResponse::default() }
    }

    /// Invokes an action (Terraform 1.14+), sending progress through
    /// [`InvokeActionRequest::progress`]; returns the diagnostics of the whole action
    /// (an error means it failed).
    fn invoke_action(
        &self,
        req: InvokeActionRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        async move { vec![unsupported("invoking an action", &req.action_type)] }
    }

    /// Validates a `state_store` block (protocol 6.10) of a type declared in
    /// [`Schemas::state_stores`]; the server has checked it against the schema.
    fn validate_state_store_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// Configures a state store: called once per Terraform command, after the provider
    /// is configured and before any state is read or written. The server answers the
    /// chunk size itself.
    fn configure_state_store(
        &self,
        req: ConfigureStateStoreRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// The state of a workspace (empty bytes: none yet); the server sends it in chunks.
    fn read_state_bytes(
        &self,
        req: ReadStateBytesRequest,
    ) -> impl Future<Output = ReadStateBytesResponse> + Send {
        async move { unsupported("reading states", &req.type_name).into() }
    }

    /// Replaces the state of a workspace; the server has put its chunks together.
    fn write_state_bytes(
        &self,
        req: WriteStateBytesRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        async move { vec![unsupported("writing states", &req.type_name)] }
    }

    /// Takes the lock of a workspace's state. By default no locking: an empty lock id.
    fn lock_state(&self, req: LockStateRequest) -> impl Future<Output = LockStateResponse> + Send {
        let _ = req;
        async { LockStateResponse::default() }
    }

    /// Gives back a lock [`Provider::lock_state`] took. By default nothing to do.
    fn unlock_state(
        &self,
        req: UnlockStateRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        let _ = req;
        async { Vec::new() }
    }

    /// The workspaces that have a state (`GetStates`).
    fn get_states(&self, req: StateStoreRequest) -> impl Future<Output = GetStatesResponse> + Send {
        async move { unsupported("listing states", &req.type_name).into() }
    }

    /// Deletes a workspace and its state (`DeleteState`).
    fn delete_state(&self, req: StateStoreRequest) -> impl Future<Output = Vec<Diagnostic>> + Send {
        async move { vec![unsupported("deleting states", &req.type_name)] }
    }

    /// Called when Terraform asks the provider to stop (Ctrl-C). The server cancels the
    /// requests in flight itself; an error string is reported to Terraform.
    fn stop_provider(&self) -> impl Future<Output = Result<(), String>> + Send {
        async { Ok(()) }
    }

    /// Whether this provider's `apply_resource_change` hands the planned state's bytes
    /// back to the server (through its request's context) once it has read them, so
    /// that the server need not keep a copy to check the new state against. Not for
    /// providers to write: the framework's provider does (a handler that did not would
    /// leave its apply unchecked against the plan).
    #[doc(hidden)]
    fn __returns_planned_state(&self) -> bool {
        false
    }

    /// The provider as the one type the server is compiled for. Not for providers to
    /// write: the framework's providers override it to hand over a provider that does
    /// not depend on their client's type, so that their crate does not compile the
    /// erasure of every handler again for it.
    #[doc(hidden)]
    fn __into_erased(self) -> crate::server::erased::Erased
    where
        Self: Sized,
    {
        crate::server::erased::Erased::of(self)
    }
}

/// The default `UpgradeResourceState`: state stored at the schema's current version is
/// decoded with the schema's type and returned as MessagePack; any other version is an
/// error. Providers with older versions use a [`tfvalue::codec::Codec`] instead.
///
/// ```
/// use std::sync::Arc;
/// use tfvalue::codec::RawState;
/// use tfvalue::schema::{Attribute, Block, Schema};
/// use tfvalue::Type;
/// use tfvalue_plugin::{same_version_upgrade, Context, UpgradeResourceStateRequest};
///
/// let schema = Schema::new(1, Block::new().attribute("name", Attribute::required(Type::String)));
/// let req = UpgradeResourceStateRequest::new(
///     "acme_thing", 1, RawState::from_json(br#"{"name":"a","gone":1}"#.to_vec()), Arc::new(schema));
/// let resp = same_version_upgrade(&req);
/// assert!(resp.diagnostics.is_empty());
/// assert_eq!(resp.upgraded_state.msgpack, b"\x81\xa4name\xa1a");
/// ```
pub fn same_version_upgrade(req: &UpgradeResourceStateRequest) -> UpgradeResourceStateResponse {
    if req.version != req.schema.version {
        return UpgradeResourceStateResponse::from_diagnostics(vec![Diagnostic::error(
            "unsupported schema version",
        )
        .with_detail(format!(
            "`{}` state has schema version {}, but this provider only reads version {}.",
            req.type_name, req.version, req.schema.version
        ))]);
    }
    let ty: Type = req.schema.implied_type();
    match req.raw_state.transcode(&ty, true) {
        Ok(dv) => UpgradeResourceStateResponse::new(dv),
        Err(e) => {
            // Errors are rare: tell a state that does not decode from one that does not
            // encode, as the summary says which.
            let summary = if req.raw_state.decode_value(&ty, true).is_err() {
                "stored state does not decode"
            } else {
                "stored state does not encode"
            };
            UpgradeResourceStateResponse::from_diagnostics(vec![Diagnostic::from_value_error(
                summary, &e,
            )])
        }
    }
}

impl UpgradeResourceStateRequest {
    /// A request, as the server builds it (useful in tests); its context is never
    /// stopped.
    pub fn new(
        type_name: impl Into<String>,
        version: i64,
        raw_state: RawState,
        schema: Arc<Schema>,
    ) -> Self {
        UpgradeResourceStateRequest {
            type_name: type_name.into(),
            version,
            raw_state,
            schema,
            ctx: Context::detached(),
        }
    }
}

impl MoveResourceStateRequest {
    /// A request, as the server builds it (useful in tests): no private data, a context
    /// that is never stopped.
    pub fn new(
        source_provider_address: impl Into<String>,
        source_type_name: impl Into<String>,
        source_schema_version: i64,
        source_state: RawState,
        target_type_name: impl Into<String>,
        target_schema: Arc<Schema>,
    ) -> Self {
        MoveResourceStateRequest {
            source_identity_schema_version: 0,
            source_identity: None,
            source_provider_address: source_provider_address.into(),
            source_type_name: source_type_name.into(),
            source_schema_version,
            source_state,
            source_private: Vec::new(),
            target_type_name: target_type_name.into(),
            target_schema,
            ctx: Context::detached(),
        }
    }
}

/// Every response can be built from the diagnostics alone (an operation that failed), and
/// from one diagnostic, so that a handler can compute a `Result<_, Diagnostic>` and end
/// with `.unwrap_or_else(Into::into)`.
macro_rules! failed_responses {
    ($($t:ident),*) => {$(
        impl From<Diagnostic> for $t {
            fn from(d: Diagnostic) -> Self {
                $t { diagnostics: vec![d], ..Default::default() }
            }
        }

        impl From<Vec<Diagnostic>> for $t {
            fn from(diagnostics: Vec<Diagnostic>) -> Self {
                $t { diagnostics, ..Default::default() }
            }
        }
    )*};
}

pub(crate) use failed_responses;

failed_responses!(
    UpgradeResourceStateResponse,
    ReadResourceResponse,
    PlanResourceChangeResponse,
    ApplyResourceChangeResponse,
    ImportResourceStateResponse,
    ReadDataSourceResponse,
    MoveResourceStateResponse,
    OpenEphemeralResourceResponse,
    RenewEphemeralResourceResponse,
    GenerateResourceConfigResponse
);
