//! The framework: resources and data sources as types, as with terraform-plugin-framework.
//!
//! A provider written on the protocol-level [`Provider`] trait routes every RPC itself.
//! Here, a resource is a type with a `#[derive(TfValue)]` model and `create`, `read`,
//! `update`, `delete` ([`Resource`]); a data source has `read` ([`DataSource`]); the
//! provider block is a model that builds a client once ([`ProviderConfig`]). A
//! [`Framework`] holds them and implements [`Provider`], so [`serve_main`](crate::serve_main)
//! serves it as it is.
//!
//! ```no_run
//! use serde::{Deserialize, Serialize};
//! use tfvalue::{TfValue, Unknown};
//! use tfvalue_plugin::framework::*;
//! use tfvalue_plugin::{serve_main, ServeConfig};
//!
//! /// A note.
//! #[derive(TfValue, Serialize, Deserialize, Clone)]
//! struct Note {
//!     /// Set by the provider.
//!     #[tfvalue(computed)]
//!     id: Unknown<Option<String>>,
//!     text: Unknown<String>,
//! }
//!
//! struct Notes;
//!
//! impl Resource for Notes {
//!     type Model = Note;
//!
//!     async fn create(&self, _cx: &Ctx, mut note: Note) -> Result<Note> {
//!         note.id = "note-1".to_owned().into();
//!         Ok(note)
//!     }
//!     async fn read(&self, _cx: &Ctx, note: Note) -> Result<Option<Note>> {
//!         Ok(Some(note))
//!     }
//!     async fn update(&self, _cx: &Ctx, _prior: Note, planned: Note) -> Result<Note> {
//!         Ok(planned)
//!     }
//!     async fn delete(&self, _cx: &Ctx, _note: Note) -> Result<()> {
//!         Ok(())
//!     }
//! }
//!
//! fn main() {
//!     let provider = Framework::new().resource("notes_note", Notes);
//!     serve_main(provider, ServeConfig::new("example.com/me/notes"));
//! }
//! ```
//!
//! The crate documentation has a table from terraform-plugin-framework's concepts to
//! these ("terraform-plugin-framework's concepts here").

mod action;
mod configured;
mod convert;
mod ctx;
mod ephemeral;
mod erased;
mod function;
mod identity;
mod list;
mod moves;
mod registry;
mod state_store;
mod timeouts;
mod traits;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use tfvalue::codec::Codec;
use tfvalue::schema::{Plan, Planner, Schema};
use tfvalue::{DynamicValue, Value};

pub use self::action::Action;
use self::action::AnyAction;
use self::configured::Configured;
pub use self::convert::import_stub;
use self::convert::Wire;
pub use self::ctx::Ctx;
use self::ephemeral::AnyEphemeral;
pub use self::ephemeral::EphemeralResource;
use self::function::AnyFunction;
pub use self::function::{Arg, Args, Function, FunctionDefinition, Variadic};
pub use self::identity::ResourceIdentity;
use self::list::AnyList;
pub use self::list::{ListResource, Listed};
pub use self::moves::StateMove;
use self::registry::Registry;
use self::state_store::AnyStateStore;
pub use self::state_store::StateStore;
pub use self::timeouts::{parse_duration, TimeoutDefaults, Timeouts};
pub use self::traits::{DataSource, Model, NoConfig, ProviderConfig, Resource};
pub use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::function::{CallFunctionRequest, CallFunctionResponse, FunctionError};
use crate::provider::*;

/// What every framework handler returns: its model, or the [`Diagnostics`] saying why it
/// failed. `?` converts tfvalue's errors (keeping their attribute path), I/O errors and
/// any other error into them, and so does a single [`Diagnostic`].
pub type Result<T, E = Diagnostics> = std::result::Result<T, E>;

/// A provider made of [`Resource`]s and [`DataSource`]s: it implements the
/// protocol-level [`Provider`], so [`serve_main`](crate::serve_main) serves it.
///
/// `C` is the client its configuration builds ([`ProviderConfig::Client`]): `()` for
/// [`Framework::new`], whose provider block is empty.
pub struct Framework<C = ()> {
    core: Core,
    /// The client, once configured: each registered handler holds this cell too.
    client: Configured<C>,
}

/// A [`Framework`] but for the type of its client: what it serves, and its dispatch of
/// each request to the handler it names, compiled once, here (generic over the client,
/// it was compiled again in each provider's crate: `plugin/README.md`, "Build times").
struct Core {
    declared: Declared,
    validate_config: fn(&DynamicValue) -> Vec<Diagnostic>,
    configure: ConfigureFn,
    resources: Registry<Box<dyn AnyResource>>,
    data_sources: Registry<Box<dyn AnyDataSource>>,
    ephemerals: Registry<Box<dyn AnyEphemeral>>,
    functions: Registry<Box<dyn AnyFunction>>,
    lists: Registry<Box<dyn AnyList>>,
    actions: Registry<Box<dyn AnyAction>>,
    state_stores: Registry<Box<dyn AnyStateStore>>,
}

/// `ConfigureProvider`: builds the client and keeps it where the handlers find it.
type ConfigureFn =
    Box<dyn Fn(ConfigureProviderRequest) -> BoxFuture<'static, Vec<Diagnostic>> + Send + Sync>;

impl<C> std::fmt::Debug for Framework<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.core.fmt(f)
    }
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Framework")
            .field("resources", &self.resources.keys().collect::<Vec<_>>())
            .field(
                "data_sources",
                &self.data_sources.keys().collect::<Vec<_>>(),
            )
            .field(
                "ephemeral_resources",
                &self.ephemerals.keys().collect::<Vec<_>>(),
            )
            .field("functions", &self.functions.keys().collect::<Vec<_>>())
            .field("list_resources", &self.lists.keys().collect::<Vec<_>>())
            .field("actions", &self.actions.keys().collect::<Vec<_>>())
            .field(
                "state_stores",
                &self.state_stores.keys().collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Framework<()> {
    /// A provider whose block is empty (its client is `()`).
    pub fn new() -> Self {
        let f = Framework::new_with::<NoConfig>();
        f.client.set(());
        f
    }
}

impl Default for Framework<()> {
    fn default() -> Self {
        Framework::new()
    }
}

fn validate_provider<P: ProviderConfig>(config: &DynamicValue) -> Vec<Diagnostic> {
    let wire = Wire::new::<P>(P::schema());
    match convert::decode::<P>(config, &wire, "the configuration", "provider") {
        Ok(Some(p)) => p.validate().err().map(Vec::from).unwrap_or_default(),
        Ok(None) => Vec::new(),
        Err(d) => d.into(),
    }
}

/// `ConfigureProvider` of the provider block `P`: the client it builds goes to `client`.
fn configure_provider<P: ProviderConfig>(
    req: ConfigureProviderRequest,
    client: Configured<P::Client>,
) -> BoxFuture<'static, Vec<Diagnostic>> {
    async move {
        let wire = Wire::new::<P>(P::schema());
        let cx = Ctx::new(Arc::new(()), req.ctx, "", Vec::new())
            .with_terraform_version(req.terraform_version);
        let result = match convert::decode::<P>(&req.config, &wire, "the configuration", "provider")
        {
            // Validated again: what was unknown when Terraform validated it is known now.
            Ok(Some(p)) => match p.validate() {
                Ok(()) => p.configure(&cx).await,
                Err(d) => Err(d),
            },
            Ok(None) => Err(Diagnostic::error("the provider configuration is null").into()),
            Err(d) => Err(d),
        };
        let mut diagnostics = cx.take_warnings();
        match result {
            Ok(c) => client.set(c),
            Err(errors) => diagnostics.extend(ensure_error(errors)),
        }
        diagnostics
    }
    .boxed()
}

impl<C: Send + Sync + 'static> Framework<C> {
    /// A provider whose block is the model `P`: decoded and checked in
    /// `ValidateProviderConfig` ([`ProviderConfig::validate`]), decoded once in
    /// `ConfigureProvider` and turned into the client `C` ([`ProviderConfig::configure`]),
    /// which every handler then reaches through [`Ctx::client`].
    ///
    /// ```
    /// # use serde::{Deserialize, Serialize};
    /// # use tfvalue::{TfValue, Unknown};
    /// # use tfvalue_plugin::framework::*;
    /// #[derive(TfValue, Serialize, Deserialize)]
    /// struct Config {
    ///     token: Unknown<String>,
    /// }
    ///
    /// impl ProviderConfig for Config {
    ///     type Client = String;
    ///     async fn configure(self, _cx: &Ctx) -> Result<String> {
    ///         Ok(self.token.into_known().unwrap_or_default())
    ///     }
    /// }
    ///
    /// let provider = Framework::new_with::<Config>();
    /// # let _: Framework<String> = provider;
    /// ```
    pub fn new_with<P: ProviderConfig<Client = C>>() -> Self {
        let client = Configured::new();
        let cell = client.clone();
        Framework {
            core: Core {
                declared: Declared::new(P::schema()),
                validate_config: validate_provider::<P>,
                configure: Box::new(move |req| configure_provider::<P>(req, cell.clone())),
                resources: Registry::default(),
                data_sources: Registry::default(),
                ephemerals: Registry::default(),
                functions: Registry::default(),
                lists: Registry::default(),
                actions: Registry::default(),
                state_stores: Registry::default(),
            },
            client,
        }
    }

    /// Adds a managed resource type under its Terraform name (`kv_entry`). A second
    /// resource under the same name replaces the first.
    #[must_use]
    pub fn resource<R: Resource<C>>(mut self, type_name: impl Into<String>, resource: R) -> Self {
        let type_name = type_name.into();
        let registered = Registered::new(resource, &type_name, self.client.clone());
        self.core.declared.resource(
            &type_name,
            &registered.wire.schema,
            registered.identity_schema(),
        );
        self.core.resources.insert(type_name, Box::new(registered));
        self
    }

    /// Adds a data source type under its Terraform name (`kv_lookup`).
    #[must_use]
    pub fn data_source<D: DataSource<C>>(
        mut self,
        type_name: impl Into<String>,
        data_source: D,
    ) -> Self {
        let type_name = type_name.into();
        let wire = Wire::new::<D::Model>(data_source.schema());
        self.core.declared.data_source(&type_name, &wire.schema);
        self.core.data_sources.insert(
            type_name.clone(),
            Box::new(RegisteredData {
                data_source,
                wire,
                type_name,
                client: self.client.clone(),
            }),
        );
        self
    }

    /// Adds an ephemeral resource type (Terraform 1.10+) under its Terraform name
    /// (`kv_lease`, used as `ephemeral "kv_lease" "x" { .. }`).
    #[must_use]
    pub fn ephemeral_resource<E: EphemeralResource<C>>(
        mut self,
        type_name: impl Into<String>,
        ephemeral: E,
    ) -> Self {
        let type_name = type_name.into();
        let registered = ephemeral::Registered::new(ephemeral, &type_name, self.client.clone());
        self.core
            .declared
            .ephemeral_resource(&type_name, &registered.wire().schema);
        self.core.ephemerals.insert(type_name, Box::new(registered));
        self
    }

    /// Adds a provider-defined function (Terraform 1.8+) under its name (`id`, called
    /// as `provider::kv::id(..)`). It works on an unconfigured provider too.
    ///
    /// # Panics
    ///
    /// The function's [`FunctionDefinition`] names another number of parameters than
    /// its [`Function::Args`] has, or a [`Variadic`] is not the last of them: a mistake
    /// in the provider's code, found as soon as it starts.
    #[must_use]
    pub fn function<F: Function>(mut self, name: impl Into<String>, function: F) -> Self {
        let name = name.into();
        let registered = function::Registered::new(&name, function);
        self.core.declared.function(&name, registered.signature());
        self.core.functions.insert(name, Box::new(registered));
        self
    }

    /// Adds a list resource (Terraform 1.14+ `list` blocks, `terraform query`) under the
    /// type name of the resource it lists (`kv_entry`), which must be registered too,
    /// with an identity.
    #[must_use]
    pub fn list_resource<L: ListResource<C>>(
        mut self,
        type_name: impl Into<String>,
        list: L,
    ) -> Self {
        let type_name = type_name.into();
        let registered = list::Registered::new(list, &type_name, self.client.clone());
        self.core
            .declared
            .list_resource(&type_name, &registered.wire().schema);
        self.core.lists.insert(type_name, Box::new(registered));
        self
    }

    /// Adds an action type (Terraform 1.14+ `action` blocks) under its Terraform name
    /// (`kv_compact`, used as `action "kv_compact" "x" { config { .. } }`).
    #[must_use]
    pub fn action<A: Action<C>>(mut self, type_name: impl Into<String>, action: A) -> Self {
        let type_name = type_name.into();
        let registered = action::Registered::new(action, &type_name, self.client.clone());
        self.core
            .declared
            .action(&type_name, &registered.wire().schema);
        self.core.actions.insert(type_name, Box::new(registered));
        self
    }

    /// Adds a state store type (protocol 6 only; Terraform 1.15+, experimental there)
    /// under its Terraform name (`kv_states`, used as `terraform { state_store
    /// "kv_states" { .. } }`).
    #[must_use]
    pub fn state_store<S: StateStore<C>>(mut self, type_name: impl Into<String>, store: S) -> Self {
        let type_name = type_name.into();
        let registered = state_store::Registered::new(store, &type_name, self.client.clone());
        self.core
            .declared
            .state_store(&type_name, &registered.wire().schema);
        self.core
            .state_stores
            .insert(type_name, Box::new(registered));
        self
    }
}

/// How long operation `op` may take: as the value (the plan, or the state for read and
/// delete) configures it in `timeouts` (when the schema has one: `configurable` is the
/// value's type), else the resource's default. Not generic (compiled once, not for each
/// resource).
fn time_limit(
    configurable: Option<&tfvalue::Type>,
    defaults: &TimeoutDefaults,
    op: &str,
    value: &DynamicValue,
) -> Result<Option<std::time::Duration>> {
    if let Some(ty) = configurable {
        if let Ok(v) = value.decode_value(ty) {
            if let Some(d) = timeouts::configured(&v, op).map_err(|e| {
                Diagnostics::from(
                    Diagnostic::error(format!("invalid timeouts.{op}"))
                        .with_detail(e)
                        .at(tfvalue::AttributePath::new().attr("timeouts").attr(op)),
                )
            })? {
                return Ok(Some(d));
            }
        }
    }
    Ok(defaults.for_operation(op))
}

/// The limit and the instant it ends; none for a limit too far to reach (`Duration::MAX`
/// for "none").
fn deadline(limit: std::time::Duration) -> Option<(std::time::Duration, std::time::Instant)> {
    Some((limit, std::time::Instant::now().checked_add(limit)?))
}

/// The error of an operation stopped at its time limit.
fn timed_out(op: &str, type_name: &str, limit: std::time::Duration) -> Diagnostics {
    Diagnostic::error(format!("{op} of {type_name} timed out"))
        .with_detail(format!(
            "The {op} did not finish within its timeout of {} (`timeouts.{op}`, or the \
             provider's default), and was stopped. The real object may be left half \
             done: see it in the API, then run Terraform again, with a longer \
             timeout if it needs one.",
            timeouts::show_duration(limit)
        ))
        .into()
}

/// The schemas a [`Framework`] declares, kept as its handlers are registered. Not
/// generic: the schemas' maps and clones are compiled once, here, and not again for each
/// provider's client type.
#[derive(Debug)]
struct Declared(Schemas);

impl Declared {
    fn new(provider: Schema) -> Self {
        Declared(Schemas::new().provider(provider))
    }

    fn resource(
        &mut self,
        name: &str,
        schema: &Schema,
        identity: Option<&crate::identity::IdentitySchema>,
    ) {
        self.0.resources.insert(name.to_owned(), schema.clone());
        // A resource registered again under the name replaces the first, identity too.
        match identity {
            Some(i) => {
                self.0.identities.insert(name.to_owned(), i.clone());
            }
            None => {
                self.0.identities.remove(name);
            }
        }
    }

    fn data_source(&mut self, name: &str, schema: &Schema) {
        self.0.data_sources.insert(name.to_owned(), schema.clone());
    }

    fn ephemeral_resource(&mut self, name: &str, schema: &Schema) {
        self.0
            .ephemeral_resources
            .insert(name.to_owned(), schema.clone());
    }

    fn function(&mut self, name: &str, signature: &crate::function::Function) {
        self.0.functions.insert(name.to_owned(), signature.clone());
    }

    fn list_resource(&mut self, name: &str, schema: &Schema) {
        self.0
            .list_resources
            .insert(name.to_owned(), schema.clone());
    }

    fn action(&mut self, name: &str, schema: &Schema) {
        self.0.actions.insert(name.to_owned(), schema.clone());
    }

    fn state_store(&mut self, name: &str, schema: &Schema) {
        self.0.state_stores.insert(name.to_owned(), schema.clone());
    }

    /// What `GetProviderSchema` answers.
    fn schemas(&self, moves: bool) -> Schemas {
        // Configuration is generated from each resource's schema (required and optional
        // values kept, computed-only and write-only ones null): see `config_from_state`.
        self.0.clone().capabilities(
            ServerCapabilities::default()
                .with_move_resource_state(moves)
                .with_generate_resource_config(true),
        )
    }
}

fn unknown_type(kind: &str, name: &str) -> Diagnostic {
    Diagnostic::error(format!("unknown {kind} type"))
        .with_detail(format!("This provider has no {kind} type `{name}`."))
}

/// Writes `Framework<C>`'s `Provider` impl from the list of every handler (the server's
/// own, `with_handlers!`): each handler is [`Core`]'s, whose futures do not depend on `C`.
macro_rules! forward {
    ($($name:ident: $req:ty => $resp:ty,)*) => {
        impl<C: Send + Sync + 'static> Provider for Framework<C> {
            fn schemas(&self) -> Schemas {
                self.core.schemas()
            }

            $(fn $name(&self, req: $req) -> impl std::future::Future<Output = $resp> + Send {
                self.core.$name(req)
            })*

            fn __into_erased(self) -> crate::server::erased::Erased {
                erase_core(self.core)
            }

            fn __returns_planned_state(&self) -> bool {
                self.core.__returns_planned_state()
            }
        }
    };
}

/// The core as the server's provider, erased by code compiled once, here: a provider's
/// crate compiles no boxing of each handler for its own client type. (Not inlined: the
/// erasure would be compiled into the caller's crate again.)
#[inline(never)]
fn erase_core(core: Core) -> crate::server::erased::Erased {
    crate::server::erased::Erased::of(core)
}

crate::server::erased::with_handlers!(forward);

impl Provider for Core {
    fn schemas(&self) -> Schemas {
        self.declared
            .schemas(self.resources.values().any(|r| r.has_moves()))
    }

    /// Every resource's apply hands the planned state back once its model is decoded
    /// (`apply_inner`).
    fn __returns_planned_state(&self) -> bool {
        true
    }

    async fn validate_list_resource_config(
        &self,
        req: crate::list::ValidateListResourceConfigRequest,
    ) -> Vec<Diagnostic> {
        list::validate(&self.lists, &req)
    }

    async fn list_resource(&self, req: crate::list::ListResourceRequest) -> Vec<Diagnostic> {
        let Some(l) = self.lists.get(&req.type_name) else {
            return vec![unknown_type("list resource", &req.type_name)];
        };
        let resource = self.resources.get(&req.type_name).map(|r| r.as_any());
        l.list(resource, req).await
    }

    async fn validate_state_store_config(&self, req: ValidateConfigRequest) -> Vec<Diagnostic> {
        match self.state_stores.get(&req.type_name) {
            Some(s) => s.validate(&req.config),
            None => vec![unknown_type("state store", &req.type_name)],
        }
    }

    async fn configure_state_store(
        &self,
        req: crate::state_store::ConfigureStateStoreRequest,
    ) -> Vec<Diagnostic> {
        let Some(s) = self.state_stores.get(&req.type_name) else {
            return vec![unknown_type("state store", &req.type_name)];
        };
        s.configure(req).await
    }

    async fn read_state_bytes(
        &self,
        req: crate::state_store::ReadStateBytesRequest,
    ) -> crate::state_store::ReadStateBytesResponse {
        let Some(s) = self.state_stores.get(&req.type_name) else {
            return unknown_type("state store", &req.type_name).into();
        };
        s.read(req).await
    }

    async fn write_state_bytes(
        &self,
        req: crate::state_store::WriteStateBytesRequest,
    ) -> Vec<Diagnostic> {
        let Some(s) = self.state_stores.get(&req.type_name) else {
            return vec![unknown_type("state store", &req.type_name)];
        };
        s.write(req).await
    }

    async fn lock_state(
        &self,
        req: crate::state_store::LockStateRequest,
    ) -> crate::state_store::LockStateResponse {
        let Some(s) = self.state_stores.get(&req.type_name) else {
            return unknown_type("state store", &req.type_name).into();
        };
        s.lock(req).await
    }

    async fn unlock_state(&self, req: crate::state_store::UnlockStateRequest) -> Vec<Diagnostic> {
        let Some(s) = self.state_stores.get(&req.type_name) else {
            return vec![unknown_type("state store", &req.type_name)];
        };
        s.unlock(req).await
    }

    async fn get_states(
        &self,
        req: crate::state_store::StateStoreRequest,
    ) -> crate::state_store::GetStatesResponse {
        let Some(s) = self.state_stores.get(&req.type_name) else {
            return unknown_type("state store", &req.type_name).into();
        };
        s.states(req).await
    }

    async fn delete_state(&self, req: crate::state_store::StateStoreRequest) -> Vec<Diagnostic> {
        let Some(s) = self.state_stores.get(&req.type_name) else {
            return vec![unknown_type("state store", &req.type_name)];
        };
        s.delete(req).await
    }

    async fn validate_action_config(&self, req: ValidateConfigRequest) -> Vec<Diagnostic> {
        match self.actions.get(&req.type_name) {
            Some(a) => a.validate(&req.config),
            None => vec![unknown_type("action", &req.type_name)],
        }
    }

    async fn plan_action(
        &self,
        req: crate::action::PlanActionRequest,
    ) -> crate::action::PlanActionResponse {
        let Some(a) = self.actions.get(&req.action_type) else {
            return unknown_type("action", &req.action_type).into();
        };
        a.plan(req).await
    }

    async fn invoke_action(&self, req: crate::action::InvokeActionRequest) -> Vec<Diagnostic> {
        let Some(a) = self.actions.get(&req.action_type) else {
            return vec![unknown_type("action", &req.action_type)];
        };
        a.invoke(req).await
    }

    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        match self.resources.get(&req.target_type_name) {
            Some(r) => r.move_state(&req),
            None => unknown_type("resource", &req.target_type_name).into(),
        }
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        match self.functions.get(&req.name) {
            Some(f) => f.call(&req.arguments),
            None => {
                FunctionError::new(format!("this provider has no function `{}`", req.name)).into()
            }
        }
    }

    async fn validate_provider_config(
        &self,
        req: ValidateProviderConfigRequest,
    ) -> Vec<Diagnostic> {
        (self.validate_config)(&req.config)
    }

    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Vec<Diagnostic> {
        (self.configure)(req).await
    }

    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Vec<Diagnostic> {
        match self.resources.get(&req.type_name) {
            Some(r) => r.validate(&req.config),
            None => vec![unknown_type("resource", &req.type_name)],
        }
    }

    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Vec<Diagnostic> {
        match self.data_sources.get(&req.type_name) {
            Some(d) => d.validate(&req.config),
            None => vec![unknown_type("data source", &req.type_name)],
        }
    }

    async fn upgrade_resource_identity(
        &self,
        req: crate::identity::UpgradeResourceIdentityRequest,
    ) -> crate::identity::UpgradeResourceIdentityResponse {
        match self.resources.get(&req.type_name) {
            Some(r) => r.upgrade_identity(&req),
            None => unknown_type("resource", &req.type_name).into(),
        }
    }

    async fn validate_ephemeral_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> Vec<Diagnostic> {
        match self.ephemerals.get(&req.type_name) {
            Some(e) => e.validate(&req.config),
            None => vec![unknown_type("ephemeral resource", &req.type_name)],
        }
    }

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        let Some(e) = self.ephemerals.get(&req.type_name) else {
            return unknown_type("ephemeral resource", &req.type_name).into();
        };
        e.open(req).await
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        let Some(e) = self.ephemerals.get(&req.type_name) else {
            return unknown_type("ephemeral resource", &req.type_name).into();
        };
        e.renew(req).await
    }

    async fn close_ephemeral_resource(
        &self,
        req: CloseEphemeralResourceRequest,
    ) -> Vec<Diagnostic> {
        let Some(e) = self.ephemerals.get(&req.type_name) else {
            return vec![unknown_type("ephemeral resource", &req.type_name)];
        };
        e.close(req).await
    }

    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        match self.resources.get(&req.type_name) {
            Some(r) => r.upgrade(req),
            None => unknown_type("resource", &req.type_name).into(),
        }
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        let Some(r) = self.resources.get(&req.type_name) else {
            return unknown_type("resource", &req.type_name).into();
        };
        r.read(req).await
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let Some(r) = self.resources.get(&req.type_name) else {
            return unknown_type("resource", &req.type_name).into();
        };
        r.plan(req).await
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let Some(r) = self.resources.get(&req.type_name) else {
            return unknown_type("resource", &req.type_name).into();
        };
        r.apply(req).await
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let Some(r) = self.resources.get(&req.type_name) else {
            return unknown_type("resource", &req.type_name).into();
        };
        r.import(req).await
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let Some(d) = self.data_sources.get(&req.type_name) else {
            return unknown_type("data source", &req.type_name).into();
        };
        d.read(req).await
    }
}

/// The diagnostics of a failed handler, with an error among them: an `Err` holding only
/// warnings (or nothing) still fails the operation, and says so.
fn ensure_error(d: Diagnostics) -> Vec<Diagnostic> {
    let mut v: Vec<Diagnostic> = d.into();
    if !v.iter().any(Diagnostic::is_error) {
        v.push(
            Diagnostic::error("the operation failed").with_detail(
                "The provider's handler returned an error without an error diagnostic.",
            ),
        );
    }
    v
}

/// A [`Resource`] with its type parameters erased, as the framework stores it.
trait AnyResource: Send + Sync {
    /// The `Registered<R, C>` itself, for a list resource that knows its `R`.
    fn as_any(&self) -> &(dyn std::any::Any + Send + Sync);
    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic>;
    fn upgrade(&self, req: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse;
    fn has_moves(&self) -> bool;
    fn identity_schema(&self) -> Option<&crate::identity::IdentitySchema>;
    fn upgrade_identity(
        &self,
        req: &crate::identity::UpgradeResourceIdentityRequest,
    ) -> crate::identity::UpgradeResourceIdentityResponse;
    fn move_state(&self, req: &MoveResourceStateRequest) -> MoveResourceStateResponse;
    fn read(&self, req: ReadResourceRequest) -> BoxFuture<'_, ReadResourceResponse>;
    fn plan(&self, req: PlanResourceChangeRequest) -> BoxFuture<'_, PlanResourceChangeResponse>;
    fn apply(&self, req: ApplyResourceChangeRequest) -> BoxFuture<'_, ApplyResourceChangeResponse>;
    fn import(&self, req: ImportResourceStateRequest)
        -> BoxFuture<'_, ImportResourceStateResponse>;
}

struct Registered<R: Resource<C>, C: Send + Sync + 'static> {
    resource: R,
    wire: Wire,
    planner: Planner,
    codec: Codec<R::Model>,
    moves: Vec<StateMove<R::Model>>,
    identity: Option<ResourceIdentity<R::Model>>,
    type_name: String,
    timeouts: TimeoutDefaults,
    /// The schema has a `timeouts` block or attribute to read.
    configurable_timeouts: bool,
    /// The resource does not override `modify_plan` (known once the default ran): plans
    /// then neither call it nor build the prior state's model for it.
    default_hook: std::sync::atomic::AtomicBool,
    client: Configured<C>,
}

impl<C: Send + Sync + 'static, R: Resource<C>> Registered<R, C> {
    /// The identity of `model`, where the resource has one and it is known.
    fn identity_of(&self, model: Option<&R::Model>) -> Result<Option<DynamicValue>> {
        match (&self.identity, model) {
            (Some(identity), Some(m)) => identity.of(m),
            _ => Ok(None),
        }
    }

    fn new(resource: R, type_name: &str, client: Configured<C>) -> Self {
        let schema = resource.schema();
        let configurable_timeouts = timeouts::in_schema(&schema.block);
        Registered {
            timeouts: resource.timeouts(),
            configurable_timeouts,
            wire: Wire::new::<R::Model>(schema),
            planner: resource.planner(),
            codec: resource.upgrade(),
            moves: resource.moves(),
            identity: resource.identity(),
            type_name: type_name.to_owned(),
            resource,
            default_hook: std::sync::atomic::AtomicBool::new(false),
            client,
        }
    }

    fn decode(&self, dv: &DynamicValue, what: &str) -> Result<Option<R::Model>> {
        convert::decode(dv, &self.wire, what, &self.type_name)
    }

    fn encode(&self, m: Option<&R::Model>, what: &str) -> Result<DynamicValue> {
        convert::encode(m, &self.wire, what, &self.type_name)
    }

    /// [`encode`](Self::encode), sized for about `like` bytes (see
    /// [`convert::encode_like`]).
    fn encode_like(&self, m: Option<&R::Model>, what: &str, like: usize) -> Result<DynamicValue> {
        convert::encode_like(m, &self.wire, what, &self.type_name, like)
    }

    /// The model of a value [`plan_step`] leaves (`None`: null). Not inlined: compiled
    /// once for each model, not at each use.
    #[inline(never)]
    fn model_of(&self, source: Source, what: &str) -> Result<Option<R::Model>> {
        match source {
            Source::Bytes(dv) => self.decode(&dv, what),
            Source::Value(v) => convert::model_from_value(v, &self.wire, what, &self.type_name),
        }
    }
}

impl<C: Send + Sync + 'static, R: Resource<C>> AnyResource for Registered<R, C> {
    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic> {
        match self.decode(config, "the configuration") {
            Ok(Some(m)) => self
                .resource
                .validate(&m)
                .err()
                .map(Vec::from)
                .unwrap_or_default(),
            Ok(None) => Vec::new(),
            Err(d) => d.into(),
        }
    }

    fn has_moves(&self) -> bool {
        !self.moves.is_empty()
    }

    fn as_any(&self) -> &(dyn std::any::Any + Send + Sync) {
        self
    }

    fn identity_schema(&self) -> Option<&crate::identity::IdentitySchema> {
        self.identity.as_ref().map(ResourceIdentity::schema)
    }

    fn upgrade_identity(
        &self,
        req: &crate::identity::UpgradeResourceIdentityRequest,
    ) -> crate::identity::UpgradeResourceIdentityResponse {
        let Some(identity) = &self.identity else {
            return Diagnostic::error(format!("`{}` has no identity", self.type_name)).into();
        };
        match identity.upgrade(req.version, &req.raw_identity) {
            Ok(dv) => crate::identity::UpgradeResourceIdentityResponse::new(dv),
            Err(d) => Vec::from(d).into(),
        }
    }

    fn move_state(&self, req: &MoveResourceStateRequest) -> MoveResourceStateResponse {
        let Some(m) = self
            .moves
            .iter()
            .find(|m| m.takes(&req.source_provider_address, &req.source_type_name))
        else {
            let takes: Vec<_> = self.moves.iter().map(StateMove::source_type).collect();
            return Diagnostic::error(format!(
                "`{}` cannot take the state of `{}`",
                self.type_name, req.source_type_name
            ))
            .with_detail(format!(
                "A `moved` block into `{}` may come from {} (here from `{}` of {}).",
                self.type_name,
                if takes.is_empty() {
                    "no other resource type".to_owned()
                } else {
                    format!("`{}`", takes.join("`, `"))
                },
                req.source_type_name,
                req.source_provider_address
            ))
            .into();
        };
        let moved = m
            .convert(req.source_schema_version, &req.source_state)
            .and_then(|model| {
                Ok((
                    self.encode(Some(&model), "the moved state")?,
                    self.identity_of(Some(&model))?,
                ))
            });
        match moved {
            Ok((state, identity)) => {
                let mut resp = MoveResourceStateResponse::new(state);
                resp.target_identity = identity;
                resp
            }
            Err(d) => d.into_vec().into(),
        }
    }

    fn upgrade(&self, req: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse {
        // The stored state is let go once it is read, before the model is built: a
        // large state is held at most twice, never three times.
        let decoded = self.codec.decode_owned(req.version, req.raw_state);
        let result = decoded
            .map_err(|e| {
                Diagnostics::from(Diagnostic::from_value_error(
                    format!("cannot upgrade the stored state of `{}`", self.type_name),
                    &e,
                ))
            })
            .and_then(|m| self.encode(Some(&m), "the upgraded state"));
        match result {
            Ok(dv) => UpgradeResourceStateResponse::new(dv),
            Err(d) => UpgradeResourceStateResponse::from_diagnostics(d.into()),
        }
    }

    fn read(&self, req: ReadResourceRequest) -> BoxFuture<'_, ReadResourceResponse> {
        erased::read(self, req)
    }

    fn plan(&self, req: PlanResourceChangeRequest) -> BoxFuture<'_, PlanResourceChangeResponse> {
        erased::plan(self, req)
    }

    fn apply(&self, req: ApplyResourceChangeRequest) -> BoxFuture<'_, ApplyResourceChangeResponse> {
        erased::apply(self, req)
    }

    fn import(
        &self,
        req: ImportResourceStateRequest,
    ) -> BoxFuture<'_, ImportResourceStateResponse> {
        erased::import(self, req)
    }
}

/// A [`DataSource`] with its type parameters erased.
trait AnyDataSource: Send + Sync {
    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic>;
    fn read(&self, req: ReadDataSourceRequest) -> BoxFuture<'_, ReadDataSourceResponse>;
}

struct RegisteredData<D, C> {
    data_source: D,
    wire: Wire,
    type_name: String,
    client: Configured<C>,
}

impl<C: Send + Sync + 'static, D: DataSource<C>> AnyDataSource for RegisteredData<D, C> {
    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic> {
        match convert::decode::<D::Model>(config, &self.wire, "the configuration", &self.type_name)
        {
            Ok(Some(m)) => self
                .data_source
                .validate(&m)
                .err()
                .map(Vec::from)
                .unwrap_or_default(),
            Ok(None) => Vec::new(),
            Err(d) => d.into(),
        }
    }

    fn read(&self, req: ReadDataSourceRequest) -> BoxFuture<'_, ReadDataSourceResponse> {
        erased::read_data(self, req)
    }
}

impl<C: Send + Sync + 'static, D: DataSource<C>> erased::DataOps for RegisteredData<D, C> {
    fn wire(&self) -> &Wire {
        &self.wire
    }

    fn new_ctx(
        &self,
        stop: crate::Context,
    ) -> std::result::Result<Box<dyn erased::CtxOps>, Diagnostic> {
        erased::boxed_ctx(&self.client, stop, &self.type_name, Vec::new())
    }

    fn read<'a>(
        &'a self,
        cx: &'a dyn erased::CtxOps,
        config: &'a DynamicValue,
    ) -> BoxFuture<'a, Result<DynamicValue>> {
        Box::pin(async move {
            let cx = erased::ctx::<C>(cx, &self.type_name)?;
            let config = convert::decode_present::<D::Model>(
                config,
                &self.wire,
                "the configuration",
                &self.type_name,
                "the data source's configuration is null",
            )?;
            let state = self.data_source.read(cx, config).await?;
            convert::encode(Some(&state), &self.wire, "the state", &self.type_name)
        })
    }
}

/// What [`plan_step`] leaves to the resource's model.
enum PlanStep {
    /// The plan, as it is: no model is wanted for it (no `modify_plan` to call, no
    /// identity to work out). `check`: the planned model is to be decoded from it (and
    /// dropped) first, to show that the plan fits the model; without it, the plan is the
    /// prior state as the provider wrote it, which fits.
    Answer {
        plan: DynamicValue,
        requires_replace: Vec<tfvalue::AttributePath>,
        check: bool,
    },
    /// The planned model to build from `planned` (null: a destroy), the prior state's
    /// from `prior` (where `modify_plan` is to be called), before the plan is written
    /// from the planned model.
    Models {
        planned: Source,
        prior: Option<Source>,
        requires_replace: Vec<tfvalue::AttributePath>,
    },
}

/// Where a model comes from: bytes on the wire, or a value the planner made.
enum Source {
    Bytes(DynamicValue),
    Value(Value),
}

/// Plans a resource's change as far as it goes without the resource's model: compiled
/// once, not for each resource (`plugin/README.md`, "Build times"). `wants_models`: a
/// `modify_plan` is to be called or an identity worked out, which need the models.
///
/// Terraform's proposal is often the prior state (a plan of no change) or the
/// configuration itself (a create: every computed attribute null in both). A create
/// whose configuration is the proposal, and an update, are planned over the request's
/// bytes where the planner allows it ([`DynamicValue::plan_create`],
/// [`DynamicValue::plan_update`]); a proposal that is the prior state, where nothing
/// would set a default (and no write-only value is to be nulled), is the plan; the rest
/// goes through the planner over values. Each request's bytes are let go as soon as
/// nothing reads them (for a large value, as much memory as the plan).
fn plan_step(
    wire: &Wire,
    planner: &Planner,
    type_name: &str,
    config: &DynamicValue,
    mut req: PlanResourceChangeRequest,
    wants_models: bool,
) -> Result<PlanStep> {
    let same =
        |dv: &DynamicValue| !dv.msgpack.is_empty() && dv.msgpack == req.proposed_new_state.msgpack;
    let prior_is_proposal = same(&req.prior_state) && !wire.write_only;
    let config_is_proposal = same(config);
    let prior_is_null = req.prior_state.msgpack == [0xc0];
    if config_is_proposal && !wire.write_only && prior_is_null {
        if let Some(created) = req.proposed_new_state.plan_create(planner) {
            return Ok(if wants_models {
                PlanStep::Models {
                    planned: Source::Bytes(created),
                    prior: None,
                    requires_replace: Vec::new(),
                }
            } else {
                PlanStep::Answer {
                    plan: created,
                    requires_replace: Vec::new(),
                    check: true,
                }
            });
        }
    }
    if prior_is_proposal && !planner.sets_defaults() {
        let proposal = std::mem::take(&mut req.proposed_new_state);
        return Ok(if !wants_models && !prior_is_null {
            // No change to plan and nothing to call: the plan is the prior state as
            // Terraform sent it, which this provider wrote through its model (apply,
            // read, import and `UpgradeResourceState` all encode one), so it fits.
            PlanStep::Answer {
                plan: proposal,
                requires_replace: Vec::new(),
                check: false,
            }
        } else {
            PlanStep::Models {
                planned: Source::Bytes(proposal),
                prior: Some(Source::Bytes(req.prior_state)),
                requires_replace: Vec::new(),
            }
        });
    }
    if !wire.write_only {
        // Not where write-only values are to be nulled first.
        if let Some(plan) = req
            .proposed_new_state
            .plan_update(&req.prior_state, config, planner)
        {
            return Ok(if wants_models {
                PlanStep::Models {
                    planned: Source::Bytes(plan.planned),
                    prior: Some(Source::Bytes(req.prior_state)),
                    requires_replace: plan.requires_replace,
                }
            } else {
                PlanStep::Answer {
                    plan: plan.planned,
                    requires_replace: plan.requires_replace,
                    check: true,
                }
            });
        }
    }
    let Some((plan, prior)) = plan_request(
        wire,
        planner,
        type_name,
        config,
        &req,
        prior_is_proposal,
        config_is_proposal,
    )?
    else {
        return Ok(PlanStep::Models {
            planned: Source::Value(Value::Null),
            prior: None,
            requires_replace: Vec::new(),
        });
    };
    let prior = match prior {
        PriorState::Null => None,
        PriorState::Decoded(v) => Some(Source::Value(v)),
        // The proposal was the prior state: its bytes hold it (no encoding of it).
        PriorState::NotDecoded => Some(Source::Bytes(req.prior_state)),
    };
    Ok(PlanStep::Models {
        planned: Source::Value(plan.planned),
        prior,
        requires_replace: plan.requires_replace,
    })
}

/// The planner's plan over a request's values decoded (compiled once, not for each
/// resource): the plan and the prior state (its value, where it was decoded, so that
/// its model is built from it); `None` when the proposal is null (a destroy).
/// `prior_is_proposal` / `config_is_proposal`: the request's bytes of the prior state /
/// the configuration (`config`) are the proposal's.
fn plan_request(
    wire: &Wire,
    planner: &Planner,
    type_name: &str,
    config_dv: &DynamicValue,
    req: &PlanResourceChangeRequest,
    prior_is_proposal: bool,
    config_is_proposal: bool,
) -> Result<Option<(Plan, PriorState)>> {
    let value = |dv: &DynamicValue, what: &str| -> Result<Value> {
        dv.decode_value(&wire.ty)
            .map_err(|e| Diagnostics::from(convert::misfit(what, type_name, &e)))
    };
    let proposal = || -> Result<Value> {
        let mut v = value(&req.proposed_new_state, "the proposed new state")?;
        if wire.write_only {
            // Terraform proposes the configured value of a write-only attribute; it is
            // never planned, and never counts as a change.
            wire.schema.block.null_write_only(&mut v);
        }
        Ok(v)
    };
    let proposed = proposal()?;
    if proposed.is_null() {
        return Ok(None);
    }
    // The same bytes make the same value: copied rather than decoded again (before
    // a write-only value is nulled: the configuration is decoded then).
    let config_is_proposal = config_is_proposal && !wire.write_only;
    let config = |proposed: &Value| {
        if config_is_proposal {
            Ok(proposed.clone())
        } else {
            value(config_dv, "the configuration")
        }
    };
    let planned = if prior_is_proposal {
        // Planned without a copy of the prior state.
        let config = config(&proposed)?;
        match planner.plan_no_change(proposed, &config) {
            Some(plan) => (plan, PriorState::NotDecoded),
            // A change after all (a default the state does not hold yet): the
            // proposal, which went to `plan_no_change`, decoded again.
            None => {
                let prior = value(&req.prior_state, "the prior state")?;
                let proposed = proposal()?;
                let plan = planner.plan_owned(&prior, proposed, &config);
                (plan, PriorState::of(prior))
            }
        }
    } else {
        let prior = value(&req.prior_state, "the prior state")?;
        if prior.is_null() && config_is_proposal {
            // A create whose configuration is the proposal: planned without a copy of
            // it.
            (planner.plan_create(proposed), PriorState::Null)
        } else {
            let config = config(&proposed)?;
            let plan = planner.plan_owned(&prior, proposed, &config);
            // The configuration's last use: freed before the model is built (for a
            // large value, as much memory as the plan).
            drop(config);
            (plan, PriorState::of(prior))
        }
    };
    Ok(Some(planned))
}

/// The prior state as [`plan_request`] leaves it.
enum PriorState {
    /// Null: nothing exists yet.
    Null,
    /// Decoded for the planner: its model is built from this value, not decoded again.
    Decoded(Value),
    /// Not decoded: the proposal was the prior state, whose bytes hold it.
    NotDecoded,
}

impl PriorState {
    fn of(prior: Value) -> Self {
        if prior.is_null() {
            PriorState::Null
        } else {
            PriorState::Decoded(prior)
        }
    }
}
