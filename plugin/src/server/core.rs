//! What the server does around every handler, whichever major carried the request:
//! the checks of what Terraform sends (each value once, without building it), the
//! schema's own validators, value logging, panic capture, the stop signal, and the checks
//! of what the provider answers (the apply check against the plan, refinements included).

use std::any::Any;
use std::collections::BTreeMap;
use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tfvalue::msgpack::Validated;
use tfvalue::schema::Schema;
use tfvalue::{AttributePath, DynamicValue, Type, Value};

use super::kept_plan::{unwrap_kept, wrap_plan, Kept};
use crate::diagnostic::{has_errors, Diagnostic};
use crate::function::{
    check_arguments, CallFunctionRequest, CallFunctionResponse, Function, FunctionError,
};
use crate::identity::{
    IdentitySchema, UpgradeResourceIdentityRequest, UpgradeResourceIdentityResponse,
};
use crate::provider::*;

/// A handler's future, boxed for [`Core::spawn_handler`].
type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A handler's answer, of any type.
type Handled = Box<dyn Any + Send>;

/// The environment variable naming a file to which the server appends every
/// `DynamicValue` it receives, one JSON object per line: `rpc`, `field`, the `type` it
/// was decoded with (type JSON) and the `msgpack` bytes in hex.
pub const VALUE_LOG_ENV: &str = "TFVALUE_PLUGIN_VALUE_LOG";

/// A schema and the type it implies, computed once.
struct Entry {
    schema: Arc<Schema>,
    ty: Type,
    /// Whether the schema has write-only attributes.
    write_only: bool,
}

impl Entry {
    fn new(schema: &Schema) -> Entry {
        Entry {
            ty: schema.implied_type(),
            write_only: schema.block.has_write_only(),
            schema: Arc::new(schema.clone()),
        }
    }

    /// The first write-only attribute that holds a value in `dv`, where the schema has
    /// any (a value that does not decode has none here: the type checks report it).
    fn write_only_in(&self, dv: &DynamicValue) -> Option<AttributePath> {
        if !self.write_only {
            return None;
        }
        let value = dv.decode_value(&self.ty).ok()?;
        self.schema.block.find_write_only(&value)
    }

    /// A value the provider answers with (a plan, a new, read, imported or upgraded
    /// state) holds no write-only value: Terraform refuses the whole answer otherwise.
    fn check_write_only(&self, what: &str, dv: &DynamicValue) -> Result<(), Diagnostic> {
        match self.write_only_in(dv) {
            None => Ok(()),
            Some(path) => Err(Diagnostic::error(format!(
                "the provider's {what} holds a write-only value"
            ))
            .with_detail(format!(
                "{} is write-only: its value is only ever in configuration, never in a plan \
                 or a state, and Terraform refuses an answer that holds one. This is a bug \
                 in the provider.",
                describe(&path)
            ))
            .at(path)),
        }
    }
}

pub(crate) struct Core<P> {
    pub(crate) provider: Arc<P>,
    pub(crate) schemas: Schemas,
    resources: BTreeMap<String, Entry>,
    data_sources: BTreeMap<String, Entry>,
    ephemerals: BTreeMap<String, Entry>,
    lists: BTreeMap<String, Entry>,
    actions: BTreeMap<String, Entry>,
    state_stores: BTreeMap<String, Entry>,
    /// The chunk size agreed with Terraform for each state store configured.
    state_chunks: Mutex<BTreeMap<String, usize>>,
    /// The largest message the server takes (a state chunk must fit in one).
    max_message: usize,
    /// The identity schemas, with their types, by resource type.
    identities: BTreeMap<String, (Arc<IdentitySchema>, Type)>,
    provider_entry: Entry,
    meta_type: Option<Type>,
    functions: BTreeMap<String, Arc<Function>>,
    /// The stop signal of the requests that arrive now; `StopProvider` fires it and puts
    /// a fresh one in its place, as go-plugin servers do with their stop channel.
    stop: Mutex<Arc<Signal>>,
    /// How many handlers are running (including those whose client went away).
    in_flight: Arc<InFlightCount>,
    log: Option<Mutex<std::fs::File>>,
    /// The runtime whose blocking pool runs the handlers: the one the server was
    /// started on (the provider's, in `serve_main`), or else the caller's.
    handlers: Option<tokio::runtime::Handle>,
}

impl<P> Drop for Core<P> {
    fn drop(&mut self) {
        // Handlers still running learn that the server is gone, which also means stop.
        self.stop
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .fire();
    }
}

/// How many handlers are running, and a wake-up for whoever waits for none.
#[derive(Default)]
struct InFlightCount {
    running: AtomicUsize,
    idle: tokio::sync::Notify,
}

impl InFlightCount {
    /// Resolves once no handler runs.
    async fn idle(&self) {
        loop {
            let woken = self.idle.notified();
            tokio::pin!(woken);
            // Registered before the count is read: the last handler's end still wakes it.
            woken.as_mut().enable();
            if self.running.load(Ordering::SeqCst) == 0 {
                return;
            }
            woken.await;
        }
    }
}

/// Counts one running handler until dropped.
struct InFlight(Arc<InFlightCount>);

impl InFlight {
    fn enter(count: &Arc<InFlightCount>) -> InFlight {
        count.running.fetch_add(1, Ordering::SeqCst);
        InFlight(count.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// Which kind of block a configuration to validate is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigKind {
    Resource,
    DataSource,
    Ephemeral,
    Action,
    StateStore,
}

/// A deferral the client did not allow becomes an error naming the RPC (and the
/// deferral is dropped); returns whether the operation stays deferred.
fn check_deferral(
    rpc: &str,
    deferred: &mut Option<Deferred>,
    capabilities: ClientCapabilities,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    match deferred {
        None => false,
        Some(_) if capabilities.deferral_allowed => true,
        Some(d) => {
            diagnostics.push(
                Diagnostic::error(format!("{rpc}: the provider deferred the operation"))
                    .with_detail(format!(
                        "The provider answered \"deferred\" ({:?}), but this Terraform did not \
                         allow deferral (its client capabilities say deferral_allowed = false). \
                         This is a bug in the provider: it must defer only when \
                         `client_capabilities().deferral_allowed` is set.",
                        d.reason
                    )),
            );
            *deferred = None;
            false
        }
    }
}

/// Whether a value is null (or absent, which Terraform reads as null).
fn is_null(dv: &DynamicValue) -> bool {
    dv.is_empty() || dv.msgpack == [0xc0] || (dv.msgpack.is_empty() && dv.json == b"null")
}

/// Whether a value may hold unknowns where it comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Known {
    /// Configurations and plans: unknowns are the point.
    Maybe,
    /// Stored state, an apply's configuration, a data source's configuration: Terraform
    /// never sends unknowns there.
    Wholly,
}

/// Fires the cancellation of one request when dropped before [`Cancel::disarm`]: the
/// client went away (or the call was cancelled) while its handler still runs.
struct Cancel(Option<Arc<Signal>>);

impl Cancel {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for Cancel {
    fn drop(&mut self) {
        if let Some(signal) = self.0.take() {
            signal.fire();
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Where a value sits: an RPC and one of its fields.
#[derive(Clone, Copy)]
struct Field {
    rpc: &'static str,
    name: &'static str,
}

impl<P: Provider> Core<P> {
    pub(crate) fn new(provider: P) -> Self {
        let schemas = provider.schemas();
        let resources = schemas
            .resources
            .iter()
            .map(|(k, s)| (k.clone(), Entry::new(s)))
            .collect();
        let data_sources = schemas
            .data_sources
            .iter()
            .map(|(k, s)| (k.clone(), Entry::new(s)))
            .collect();
        let ephemerals = schemas
            .ephemeral_resources
            .iter()
            .map(|(k, s)| (k.clone(), Entry::new(s)))
            .collect();
        let lists = schemas
            .list_resources
            .iter()
            .map(|(k, s)| (k.clone(), Entry::new(s)))
            .collect();
        let actions = schemas
            .actions
            .iter()
            .map(|(k, s)| (k.clone(), Entry::new(s)))
            .collect();
        let state_stores = schemas
            .state_stores
            .iter()
            .map(|(k, s)| (k.clone(), Entry::new(s)))
            .collect();
        let identities = schemas
            .identities
            .iter()
            .map(|(k, s)| (k.clone(), (Arc::new(s.clone()), s.implied_type())))
            .collect();
        let provider_entry = Entry::new(&schemas.provider);
        let meta_type = schemas.provider_meta.as_ref().map(Schema::implied_type);
        let functions = schemas
            .functions
            .iter()
            .map(|(k, f)| (k.clone(), Arc::new(f.clone())))
            .collect();
        let log = std::env::var_os(VALUE_LOG_ENV).and_then(|path| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .ok()
                .map(Mutex::new)
        });
        Core {
            provider: Arc::new(provider),
            schemas,
            resources,
            data_sources,
            ephemerals,
            lists,
            actions,
            state_stores,
            state_chunks: Mutex::default(),
            max_message: super::DEFAULT_MAX_MESSAGE_SIZE,
            identities,
            provider_entry,
            meta_type,
            functions,
            stop: Mutex::default(),
            in_flight: Arc::default(),
            log,
            handlers: tokio::runtime::Handle::try_current().ok(),
        }
    }

    /// Runs `fut` to its end on a thread of its own, from the handlers' runtime's
    /// blocking pool, so that a handler that blocks holds up nothing but itself. One
    /// function for every handler (their futures and answers boxed): the runtime's task
    /// machinery is compiled once, not once per handler.
    fn spawn_handler(&self, fut: BoxFuture<Handled>) -> tokio::task::JoinHandle<Handled> {
        let runtime = self
            .handlers
            .clone()
            .unwrap_or_else(tokio::runtime::Handle::current);
        runtime
            .clone()
            .spawn_blocking(move || runtime.block_on(fut))
    }

    /// The context of a request arriving now, and the guard that cancels it if the
    /// request is dropped before its handler ends.
    fn request_ctx(&self) -> (Context, Cancel) {
        self.request_ctx_with(ClientCapabilities::default())
    }

    /// [`Core::request_ctx`] for a request that carries the client's capabilities.
    fn request_ctx_with(&self, capabilities: ClientCapabilities) -> (Context, Cancel) {
        let stop = self
            .stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let cancel = Arc::new(Signal::default());
        (
            Context::for_request(stop, cancel.clone()).with_client_capabilities(capabilities),
            Cancel(Some(cancel)),
        )
    }

    pub(crate) fn resource_type(&self, name: &str) -> Option<&Type> {
        self.resources.get(name).map(|e| &e.ty)
    }

    pub(crate) fn data_source_type(&self, name: &str) -> Option<&Type> {
        self.data_sources.get(name).map(|e| &e.ty)
    }

    pub(crate) fn ephemeral_type(&self, name: &str) -> Option<&Type> {
        self.ephemerals.get(name).map(|e| &e.ty)
    }

    /// The server's message size limit, which bounds the state chunks it agrees to.
    pub(crate) fn with_max_message(mut self, bytes: usize) -> Self {
        self.max_message = bytes;
        self
    }

    pub(crate) fn state_store_type(&self, name: &str) -> Option<&Type> {
        self.state_stores.get(name).map(|e| &e.ty)
    }

    pub(crate) fn list_type(&self, name: &str) -> Option<&Type> {
        self.lists.get(name).map(|e| &e.ty)
    }

    pub(crate) fn action_type(&self, name: &str) -> Option<&Type> {
        self.actions.get(name).map(|e| &e.ty)
    }

    pub(crate) fn provider_type(&self) -> &Type {
        &self.provider_entry.ty
    }

    fn log_value(&self, field: Field, dv: &DynamicValue, ty: &Type) {
        let Some(log) = &self.log else { return };
        let line = serde_json::json!({
            "rpc": field.rpc,
            "field": field.name,
            "type": ty,
            "msgpack": hex(&dv.msgpack),
            "json": String::from_utf8_lossy(&dv.json),
        });
        if let Ok(mut f) = log.lock() {
            let _ = writeln!(f, "{line}");
        }
    }

    /// Logs a value Terraform sent and checks that it is there at all: null is MessagePack
    /// nil, never nothing.
    fn present(&self, field: Field, dv: &DynamicValue, ty: &Type) -> Result<(), Diagnostic> {
        self.log_value(field, dv, ty);
        if !dv.is_empty() {
            return Ok(());
        }
        let Field { rpc, name } = field;
        Err(
            Diagnostic::error(format!("{rpc}: `{name}` is empty")).with_detail(format!(
                "Terraform sends a value in `{name}`, a null one as MessagePack nil (c0); \
                 a DynamicValue with neither `msgpack` nor `json` is not a value, and \
                 the provider does not guess one."
            )),
        )
    }

    /// Checks a value Terraform sent, without building it: present (null is MessagePack
    /// nil, never nothing), of its type, and wholly known where Terraform never sends
    /// unknowns. A problem is an error diagnostic naming the RPC, the field and the
    /// attribute.
    fn check_input(
        &self,
        field: Field,
        dv: &DynamicValue,
        ty: &Type,
        known: Known,
    ) -> Result<Validated, Diagnostic> {
        self.present(field, dv, ty)?;
        let Field { rpc, name } = field;
        // The shape, numbers, refinements and unknowns; the UTF-8 of strings is checked
        // by whatever decodes them (a typed decode or a Value), once.
        let checked = if dv.msgpack.is_empty() {
            dv.validate(ty)
        } else {
            tfvalue::msgpack::validate_structure(&dv.msgpack, ty)
        }
        .map_err(|e| {
            Diagnostic::from_value_error(
                format!("{rpc}: the `{name}` sent by Terraform does not decode"),
                &e,
            )
        })?;
        if known == Known::Wholly && !checked.is_wholly_known() {
            return Err(unknown_in(
                field,
                dv,
                ty,
                "Terraform never sends unknown values there",
            ));
        }
        Ok(checked)
    }

    /// `provider_meta`: checked against the provider_meta schema when the provider has
    /// one (Terraform then always sends it); without one, Terraform sends nothing, and a
    /// value other than null is an error.
    fn check_meta(&self, rpc: &'static str, dv: &DynamicValue) -> Result<(), Diagnostic> {
        let field = Field {
            rpc,
            name: "provider_meta",
        };
        match &self.meta_type {
            Some(ty) => self.check_input(field, dv, ty, Known::Maybe).map(drop),
            None if dv.is_empty() || dv.msgpack == [0xc0] || dv.json == b"null" => Ok(()),
            None => Err(
                Diagnostic::error(format!("{rpc}: unexpected `provider_meta`")).with_detail(
                    "This provider declares no provider_meta schema, so Terraform sends no \
                     provider_meta value; this request carries one.",
                ),
            ),
        }
    }

    /// Checks a value the provider answers with; see [`check_output`].
    fn check_output(
        what: &str,
        dv: &mut DynamicValue,
        ty: &Type,
        known: Known,
    ) -> Result<Validated, Diagnostic> {
        check_output(what, dv, ty, known)
    }

    /// Runs a handler to its end: a panic becomes an error diagnostic
    /// passed to `fail`. The handler is never dropped half-way: `StopProvider` and a
    /// client that goes away reach it through its [`Context`], and an apply that created
    /// an object reports it.
    fn run<'a, T, F, G>(
        &'a self,
        rpc: &'static str,
        cancel: Cancel,
        fut: F,
        fail: G,
    ) -> impl Future<Output = T> + 'a
    where
        F: Future<Output = T> + Send + 'static,
        G: FnOnce(Diagnostic) -> T + 'a,
        T: Send + 'static,
    {
        // What is compiled per handler: the boxing of its future and the unboxing of its
        // answer; the running in between is `run_boxed`'s, compiled once.
        let handled = self.run_boxed(
            rpc,
            cancel,
            Box::pin(async move { Box::new(fut.await) as Handled }),
        );
        async move {
            match handled.await.map(|answer| answer.downcast::<T>()) {
                Ok(Ok(answer)) => *answer,
                // Not reached: the future above answers a `T`.
                Ok(Err(_)) => fail(Diagnostic::error(
                    "the handler's answer was lost in the server",
                )),
                Err(d) => fail(d),
            }
        }
    }

    /// [`Core::run`] for every handler: its answer boxed, or the diagnostic of a panic or
    /// of a shutdown.
    async fn run_boxed(
        &self,
        rpc: &'static str,
        cancel: Cancel,
        fut: BoxFuture<Handled>,
    ) -> Result<Handled, Diagnostic> {
        let running = InFlight::enter(&self.in_flight);
        // Each handler runs on a thread of its own (see `spawn_handler`): blocking there
        // is allowed, and the server's own thread never runs provider code. The handler
        // is never dropped half-way: a client that leaves only fires its cancellation.
        let task = self.spawn_handler(Box::pin(async move {
            let _running = running;
            fut.await
        }));
        let result = task.await;
        cancel.disarm();
        match result {
            Ok(v) => Ok(v),
            Err(e) if e.is_panic() => Err(Diagnostic::error("the provider panicked")
                .with_detail(format!("{rpc}: {}", panic_message(&*e.into_panic())))),
            Err(_) => Err(Diagnostic::error("the operation was cancelled")
                .with_detail(format!("{rpc}: the server is shutting down"))),
        }
    }

    /// Checks an identity Terraform sent: only for a type with an identity schema, of
    /// its type.
    fn check_identity_in(
        &self,
        field: Field,
        type_name: &str,
        identity: Option<&DynamicValue>,
        known: Known,
    ) -> Result<(), Diagnostic> {
        let Some(dv) = identity else { return Ok(()) };
        let Some((_, ty)) = self.identities.get(type_name) else {
            return Err(Diagnostic::error(format!(
                "{}: `{}` sent for `{type_name}`, which has no identity schema",
                field.rpc, field.name
            )));
        };
        self.check_input(field, dv, ty, known).map(drop)
    }

    /// Checks an identity the provider answers with: only for a type with an identity
    /// schema, of its type, wholly known where `known` says.
    fn check_identity_out(
        &self,
        what: &str,
        type_name: &str,
        identity: &mut Option<DynamicValue>,
        known: Known,
    ) -> Result<(), Diagnostic> {
        let Some(dv) = identity else { return Ok(()) };
        let Some((_, ty)) = self.identities.get(type_name) else {
            return Err(Diagnostic::error(format!(
                "the provider answered an identity for `{type_name}`, which has no identity schema"
            ))
            .with_detail("Declare it in `Schemas::identities` (this is a bug in the provider)."));
        };
        Self::check_output(what, dv, ty, known).map(drop)
    }

    /// An identity that changed where it must stay (`was` known and not null): the
    /// error Terraform's providers give ("Unexpected Identity Change").
    fn identity_changed(
        &self,
        rpc: &str,
        type_name: &str,
        was: Option<&DynamicValue>,
        now: Option<&DynamicValue>,
    ) -> Option<Diagnostic> {
        let (_, ty) = self.identities.get(type_name)?;
        let was = was?
            .decode_value(ty)
            .ok()
            .filter(|v| !v.is_null() && v.is_wholly_known())?;
        let now = now
            .and_then(|dv| dv.decode_value(ty).ok())
            .unwrap_or(Value::Null);
        if was == now {
            return None;
        }
        let show = |v: &Value| {
            v.to_json_value(ty)
                .map_or_else(|_| "?".to_owned(), |j| j.to_string())
        };
        Some(
            Diagnostic::error("unexpected identity change").with_detail(format!(
                "{rpc}: the provider changed the identity of this `{type_name}` from {} to \
                     {}. An identity names the remote object and changes only when the \
                     object is replaced; this is a bug in the provider.",
                show(&was),
                show(&now)
            )),
        )
    }

    /// The identity an answer carries, settled: an object that is gone has none; one
    /// whose handler left it out keeps the identity it came with (a provider that does
    /// not deal in identities loses none); otherwise it is checked (of its type,
    /// wholly known) and must be the one it came with, where that was known.
    #[allow(clippy::too_many_arguments)]
    fn settle_identity(
        &self,
        rpc: &str,
        type_name: &str,
        what: &str,
        was: Option<&DynamicValue>,
        now: &mut Option<DynamicValue>,
        exists: bool,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if !exists {
            *now = None;
            return;
        }
        if now.as_ref().is_none_or(is_null) {
            if let Some(was) = was.filter(|w| !is_null(w)) {
                *now = Some(was.clone());
            }
        }
        let result = self
            .check_identity_out(what, type_name, now, Known::Wholly)
            .map_err(|d| vec![d])
            .and_then(
                |()| match self.identity_changed(rpc, type_name, was, now.as_ref()) {
                    Some(d) => Err(vec![d]),
                    None => Ok(()),
                },
            );
        if let Err(d) = result {
            diagnostics.extend(d);
        }
    }

    fn unknown_type(kind: &str, name: &str) -> Diagnostic {
        unknown_type(kind, name)
    }

    /// A configuration to validate: present, decoded once (which checks it against its
    /// type), and the schema's own checks (required attributes, block counts, validators,
    /// computed-only attributes left null), before the provider's handler.
    fn schema_checks(&self, field: Field, config: &DynamicValue, entry: &Entry) -> Vec<Diagnostic> {
        if let Err(d) = self.present(field, config, &entry.ty) {
            return vec![d];
        }
        let value = match config.decode_value(&entry.ty) {
            Ok(v) => v,
            Err(e) => {
                return vec![Diagnostic::from_value_error(
                    format!(
                        "{}: the `{}` sent by Terraform does not decode",
                        field.rpc, field.name
                    ),
                    &e,
                )]
            }
        };
        entry.schema.block.validate_config(&value).into_vec()
    }

    pub(crate) async fn validate_provider_config(&self, config: DynamicValue) -> Vec<Diagnostic> {
        const RPC: &str = "ValidateProviderConfig";
        let field = Field {
            rpc: RPC,
            name: "config",
        };
        let mut diags = self.schema_checks(field, &config, &self.provider_entry);
        if has_errors(&diags) {
            return diags;
        }
        let (ctx, cancel) = self.request_ctx();
        let req = ValidateProviderConfigRequest { config, ctx };
        let p = self.provider.clone();
        diags.extend(
            self.run(
                RPC,
                cancel,
                async move { p.validate_provider_config(req).await },
                |d| vec![d],
            )
            .await,
        );
        diags
    }

    pub(crate) async fn validate_config(
        &self,
        kind: ConfigKind,
        type_name: String,
        config: DynamicValue,
        capabilities: ClientCapabilities,
    ) -> Vec<Diagnostic> {
        let (rpc, what, entry) = match kind {
            ConfigKind::Resource => (
                "ValidateResourceConfig",
                "resource",
                self.resources.get(&type_name),
            ),
            ConfigKind::DataSource => (
                "ValidateDataResourceConfig",
                "data source",
                self.data_sources.get(&type_name),
            ),
            ConfigKind::Ephemeral => (
                "ValidateEphemeralResourceConfig",
                "ephemeral resource",
                self.ephemerals.get(&type_name),
            ),
            ConfigKind::Action => (
                "ValidateActionConfig",
                "action",
                self.actions.get(&type_name),
            ),
            ConfigKind::StateStore => (
                "ValidateStateStoreConfig",
                "state store",
                self.state_stores.get(&type_name),
            ),
        };
        let Some(entry) = entry else {
            return vec![Self::unknown_type(what, &type_name)];
        };
        let field = Field {
            rpc,
            name: "config",
        };
        let mut diags = self.schema_checks(field, &config, entry);
        if kind == ConfigKind::Resource && !capabilities.write_only_attributes_allowed {
            diags.extend(refuse_write_only(entry, &config));
        }
        if has_errors(&diags) {
            return diags;
        }
        let (ctx, cancel) = self.request_ctx_with(capabilities);
        let req = ValidateConfigRequest {
            type_name,
            config,
            ctx,
        };
        let p = self.provider.clone();
        let found = match kind {
            ConfigKind::Resource => {
                self.run(
                    rpc,
                    cancel,
                    async move { p.validate_resource_config(req).await },
                    |d| vec![d],
                )
                .await
            }
            ConfigKind::DataSource => {
                self.run(
                    rpc,
                    cancel,
                    async move { p.validate_data_resource_config(req).await },
                    |d| vec![d],
                )
                .await
            }
            ConfigKind::Ephemeral => {
                self.run(
                    rpc,
                    cancel,
                    async move { p.validate_ephemeral_resource_config(req).await },
                    |d| vec![d],
                )
                .await
            }
            ConfigKind::Action => {
                self.run(
                    rpc,
                    cancel,
                    async move { p.validate_action_config(req).await },
                    |d| vec![d],
                )
                .await
            }
            ConfigKind::StateStore => {
                self.run(
                    rpc,
                    cancel,
                    async move { p.validate_state_store_config(req).await },
                    |d| vec![d],
                )
                .await
            }
        };
        diags.extend(found);
        diags
    }

    pub(crate) async fn configure(
        &self,
        terraform_version: String,
        config: DynamicValue,
    ) -> Vec<Diagnostic> {
        const RPC: &str = "ConfigureProvider";
        let field = Field {
            rpc: RPC,
            name: "config",
        };
        if let Err(d) = self.check_input(field, &config, &self.provider_entry.ty, Known::Maybe) {
            return vec![d];
        }
        let (ctx, cancel) = self.request_ctx();
        let req = ConfigureProviderRequest {
            terraform_version,
            config,
            ctx,
        };
        let p = self.provider.clone();
        self.run(
            RPC,
            cancel,
            async move { p.configure_provider(req).await },
            |d| vec![d],
        )
        .await
    }

    pub(crate) async fn upgrade(
        &self,
        type_name: String,
        version: i64,
        raw_state: tfvalue::codec::RawState,
    ) -> UpgradeResourceStateResponse {
        const RPC: &str = "UpgradeResourceState";
        let Some(entry) = self.resources.get(&type_name) else {
            return UpgradeResourceStateResponse::from_diagnostics(vec![Self::unknown_type(
                "resource", &type_name,
            )]);
        };
        let (ctx, cancel) = self.request_ctx();
        let req = UpgradeResourceStateRequest {
            type_name,
            version,
            raw_state,
            schema: entry.schema.clone(),
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.upgrade_resource_state(req).await },
                |d| UpgradeResourceStateResponse::from_diagnostics(vec![d]),
            )
            .await;
        if !has_errors(&resp.diagnostics) {
            if let Err(d) = Self::check_output(
                "upgraded state",
                &mut resp.upgraded_state,
                &entry.ty,
                Known::Wholly,
            )
            .map(drop)
            .and_then(|()| entry.check_write_only("upgraded state", &resp.upgraded_state))
            {
                resp.diagnostics.push(d);
            }
        }
        resp
    }

    pub(crate) async fn read(
        &self,
        type_name: String,
        current_state: DynamicValue,
        private: Vec<u8>,
        provider_meta: DynamicValue,
        capabilities: ClientCapabilities,
        current_identity: Option<DynamicValue>,
    ) -> ReadResourceResponse {
        const RPC: &str = "ReadResource";
        let fail = |d| ReadResourceResponse {
            diagnostics: vec![d],
            ..Default::default()
        };
        let Some(entry) = self.resources.get(&type_name) else {
            return fail(Self::unknown_type("resource", &type_name));
        };
        let field = Field {
            rpc: RPC,
            name: "current_state",
        };
        let identity_field = Field {
            rpc: RPC,
            name: "current_identity",
        };
        if let Err(d) = self
            .check_input(field, &current_state, &entry.ty, Known::Wholly)
            .and_then(|_| self.check_meta(RPC, &provider_meta))
            .and_then(|()| {
                self.check_identity_in(
                    identity_field,
                    &type_name,
                    current_identity.as_ref(),
                    Known::Wholly,
                )
            })
        {
            return fail(d);
        }
        let (ctx, cancel) = self.request_ctx_with(capabilities);
        let kept_identity = current_identity.clone();
        let name = type_name.clone();
        let req = ReadResourceRequest {
            type_name,
            current_state,
            private,
            provider_meta,
            current_identity,
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(RPC, cancel, async move { p.read_resource(req).await }, fail)
            .await;
        check_deferral(RPC, &mut resp.deferred, capabilities, &mut resp.diagnostics);
        if !has_errors(&resp.diagnostics) {
            if let Err(d) = Self::check_output(
                "refreshed state",
                &mut resp.new_state,
                &entry.ty,
                Known::Wholly,
            )
            .map(drop)
            .and_then(|()| entry.check_write_only("refreshed state", &resp.new_state))
            {
                resp.diagnostics.push(d);
            }
        }
        self.settle_identity(
            RPC,
            &name,
            "refreshed identity",
            kept_identity.as_ref(),
            &mut resp.new_identity,
            !is_null(&resp.new_state),
            &mut resp.diagnostics,
        );
        resp
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn plan(
        &self,
        type_name: String,
        prior_state: DynamicValue,
        proposed_new_state: DynamicValue,
        config: DynamicValue,
        prior_private: Vec<u8>,
        provider_meta: DynamicValue,
        capabilities: ClientCapabilities,
        prior_identity: Option<DynamicValue>,
    ) -> PlanResourceChangeResponse {
        const RPC: &str = "PlanResourceChange";
        let fail = |d| PlanResourceChangeResponse {
            diagnostics: vec![d],
            ..Default::default()
        };
        let Some(entry) = self.resources.get(&type_name) else {
            return fail(Self::unknown_type("resource", &type_name));
        };
        let ty = &entry.ty;
        let inputs = [
            ("prior_state", &prior_state, Known::Wholly),
            ("proposed_new_state", &proposed_new_state, Known::Maybe),
            ("config", &config, Known::Maybe),
        ];
        for (i, &(name, dv, known)) in inputs.iter().enumerate() {
            // Terraform's proposal is often the prior state (no change) or the
            // configuration (a create): bytes already checked, at least as strictly,
            // are not checked again.
            let checked = inputs[..i].iter().any(|&(_, before, before_known)| {
                !dv.msgpack.is_empty()
                    && before.msgpack == dv.msgpack
                    && (before_known == Known::Wholly || known == Known::Maybe)
            });
            if checked {
                continue;
            }
            if let Err(d) = self.check_input(Field { rpc: RPC, name }, dv, ty, known) {
                return fail(d);
            }
        }
        let identity_field = Field {
            rpc: RPC,
            name: "prior_identity",
        };
        if let Err(d) = self.check_meta(RPC, &provider_meta).and_then(|()| {
            self.check_identity_in(
                identity_field,
                &type_name,
                prior_identity.as_ref(),
                Known::Wholly,
            )
        }) {
            return fail(d);
        }
        // An update keeps the identity; a create or a replacement may change it.
        let updating = !is_null(&prior_state) && !is_null(&proposed_new_state);
        let kept_identity = prior_identity.clone();
        let name = type_name.clone();
        let (ctx, cancel) = self.request_ctx_with(capabilities);
        let req = PlanResourceChangeRequest {
            prior_identity,
            type_name,
            prior_state,
            proposed_new_state,
            config,
            prior_private,
            provider_meta,
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.plan_resource_change(req).await },
                fail,
            )
            .await;
        check_deferral(RPC, &mut resp.deferred, capabilities, &mut resp.diagnostics);
        if has_errors(&resp.diagnostics) {
            return resp;
        }
        let replacing = !resp.requires_replace.is_empty();
        if updating && !replacing {
            self.settle_identity(
                RPC,
                &name,
                "planned identity",
                kept_identity.as_ref(),
                &mut resp.planned_identity,
                !is_null(&resp.planned_state),
                &mut resp.diagnostics,
            );
        } else if let Err(d) = self.check_identity_out(
            "planned identity",
            &name,
            &mut resp.planned_identity,
            Known::Maybe,
        ) {
            resp.diagnostics.push(d);
        }
        match Self::check_output("planned state", &mut resp.planned_state, ty, Known::Maybe)
            .and_then(|c| {
                entry.check_write_only("planned state", &resp.planned_state)?;
                Ok(c)
            }) {
            Err(d) => resp.diagnostics.push(d),
            // Terraform before 1.6 drops refinements; keep the plan to check apply by.
            Ok(checked) if checked.has_refinements() => {
                if let Some(wrapped) =
                    wrap_plan(&resp.planned_state.msgpack, &resp.planned_private, ty)
                {
                    resp.planned_private = wrapped;
                }
            }
            Ok(_) => {}
        }
        resp
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn apply(
        &self,
        type_name: String,
        prior_state: DynamicValue,
        planned_state: DynamicValue,
        config: DynamicValue,
        planned_private: Vec<u8>,
        provider_meta: DynamicValue,
        planned_identity: Option<DynamicValue>,
    ) -> ApplyResourceChangeResponse {
        const RPC: &str = "ApplyResourceChange";
        let fail = |d| ApplyResourceChangeResponse {
            diagnostics: vec![d],
            ..Default::default()
        };
        let Some(entry) = self.resources.get(&type_name) else {
            return fail(Self::unknown_type("resource", &type_name));
        };
        let ty = &entry.ty;
        for (name, dv, known) in [
            ("prior_state", &prior_state, Known::Wholly),
            ("planned_state", &planned_state, Known::Maybe),
            // Terraform checks that the configuration is wholly known before it applies.
            ("config", &config, Known::Wholly),
        ] {
            if let Err(d) = self.check_input(Field { rpc: RPC, name }, dv, ty, known) {
                return fail(d);
            }
        }
        let identity_field = Field {
            rpc: RPC,
            name: "planned_identity",
        };
        if let Err(d) = self.check_meta(RPC, &provider_meta).and_then(|()| {
            self.check_identity_in(
                identity_field,
                &type_name,
                planned_identity.as_ref(),
                Known::Maybe,
            )
        }) {
            return fail(d);
        }
        let kept_identity = planned_identity.clone();
        let (kept, planned_private) = unwrap_kept(planned_private, &planned_state.msgpack);
        // What the checks after the handler need of the request: the plan as it was made
        // (the kept plan, else the planned state; never null with a kept plan). A
        // provider that hands the planned state back once it has read it (the framework)
        // gets it without a copy: the server takes it back after the handler (and puts
        // the kept refinements back into it then).
        let (ctx, cancel) = self.request_ctx();
        let (planned_bytes, ctx, planned_back) = match kept {
            Some(Kept::Plan(plan)) => (Some(plan), ctx, None),
            kept if self.provider.__returns_planned_state() => {
                let slot = crate::provider::PlannedBack::default();
                let ctx = ctx.with_planned_back(slot.clone());
                (None, ctx, Some((slot, kept)))
            }
            // Refinements that do not fit the plan (its digest matched): checked
            // against the planned state itself, as where none were kept.
            Some(kept) => {
                let plan = kept
                    .onto(&planned_state.msgpack)
                    .unwrap_or_else(|| planned_state.msgpack.clone());
                (Some(plan), ctx, None)
            }
            None => (Some(planned_state.msgpack.clone()), ctx, None),
        };
        let prior_bytes = prior_state.clone();
        let req = ApplyResourceChangeRequest {
            type_name: type_name.clone(),
            prior_state,
            planned_state,
            config,
            planned_private,
            provider_meta,
            planned_identity,
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.apply_resource_change(req).await },
                fail,
            )
            .await;
        if !has_errors(&resp.diagnostics) {
            self.settle_identity(
                RPC,
                &type_name,
                "new identity",
                kept_identity.as_ref(),
                &mut resp.new_identity,
                !is_null(&resp.new_state),
                &mut resp.diagnostics,
            );
        }
        if has_errors(&resp.diagnostics) {
            // Terraform reads an empty new state as null, and would forget an object
            // that a failed update or delete left in place: a failed apply that says
            // nothing leaves the prior state (null for a failed create).
            if resp.new_state.is_empty() {
                resp.new_state = prior_bytes;
            }
            // The object that stays keeps its identity (an update's plan holds it).
            if resp.new_identity.is_none() && !is_null(&resp.new_state) {
                let known = |dv: &DynamicValue| {
                    self.identity_type(&type_name)
                        .and_then(|ty| dv.decode_value(ty).ok())
                        .is_some_and(|v| !v.is_null() && v.is_wholly_known())
                };
                resp.new_identity = kept_identity.filter(known);
            }
            return resp;
        }
        if let Err(d) = entry.check_write_only("new state", &resp.new_state) {
            resp.diagnostics.push(d);
            return resp;
        }
        let planned_bytes = match (planned_bytes, planned_back) {
            (Some(bytes), _) => bytes,
            (None, Some((slot, kept))) => {
                let back = slot.take();
                let back = match (kept, back) {
                    (Some(kept), Some(bytes)) => Some(kept.onto(&bytes).unwrap_or(bytes)),
                    (_, back) => back,
                };
                match back {
                    Some(bytes) => bytes,
                    // A provider that said it would hand the plan back and did not:
                    // the new state is checked against the schema alone.
                    None => {
                        if let Err(d) =
                            Self::check_output("new state", &mut resp.new_state, ty, Known::Wholly)
                        {
                            resp.diagnostics.push(d);
                        }
                        return resp;
                    }
                }
            }
            // Not reached: no bytes kept means a slot was given.
            (None, None) => return resp,
        };
        let planned_source = &planned_bytes[..];
        // One walk of the answer on its bytes first, for the schema and the plan at once:
        // where the plan is known the new state must be its bytes (checked already: the
        // planned state on the way in, a kept plan when it was made), and where the plan
        // is unknown the new state is checked as an output is, and must be known and
        // within the unknown's refinements. Only what that cannot tell is checked in
        // full, with the messages of the full checks.
        if planned_bytes != [0xc0]
            && !resp.new_state.msgpack.is_empty()
            && tfvalue::msgpack::keeps_plan(planned_source, &resp.new_state.msgpack, ty, |r, v| {
                r.admits(v)
            })
        {
            return resp;
        }
        if let Err(d) = Self::check_output("new state", &mut resp.new_state, ty, Known::Wholly) {
            resp.diagnostics.push(d);
            return resp;
        }
        if planned_bytes == [0xc0] {
            // A destroy: Terraform itself checks that the result is null.
            return resp;
        }
        let (planned, new) = match (
            Value::from_msgpack(planned_source, ty),
            resp.new_state.decode_value(ty),
        ) {
            (Ok(p), Ok(n)) => (p, n),
            // Both were checked already; a kept plan that no longer decodes is ignored.
            _ => return resp,
        };
        for p in entry.schema.block.check_apply(&planned, &new).iter() {
            resp.diagnostics.push(inconsistent_result(&type_name, p));
        }
        resp
    }

    pub(crate) async fn import(
        &self,
        type_name: String,
        id: String,
        capabilities: ClientCapabilities,
        identity: Option<DynamicValue>,
    ) -> ImportResourceStateResponse {
        const RPC: &str = "ImportResourceState";
        let fail = |d| ImportResourceStateResponse {
            diagnostics: vec![d],
            ..Default::default()
        };
        if !self.resources.contains_key(&type_name) {
            return fail(Self::unknown_type("resource", &type_name));
        }
        let identity_field = Field {
            rpc: RPC,
            name: "identity",
        };
        if let Err(d) =
            self.check_identity_in(identity_field, &type_name, identity.as_ref(), Known::Wholly)
        {
            return fail(d);
        }
        let (ctx, cancel) = self.request_ctx_with(capabilities);
        let req = ImportResourceStateRequest {
            type_name,
            id,
            identity,
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.import_resource_state(req).await },
                fail,
            )
            .await;
        // A deferred import may answer unknown values (what it found is not known yet).
        let known = if check_deferral(RPC, &mut resp.deferred, capabilities, &mut resp.diagnostics)
        {
            Known::Maybe
        } else {
            Known::Wholly
        };
        let mut found = Vec::new();
        for r in &mut resp.imported_resources {
            let Some(entry) = self.resources.get(&r.type_name) else {
                found.push(Self::unknown_type("resource", &r.type_name));
                continue;
            };
            if let Err(d) = Self::check_output("imported state", &mut r.state, &entry.ty, known)
                .map(drop)
                .and_then(|()| entry.check_write_only("imported state", &r.state))
                .and_then(|()| {
                    self.check_identity_out(
                        "imported identity",
                        &r.type_name,
                        &mut r.identity,
                        known,
                    )
                })
            {
                found.push(d);
            }
        }
        resp.diagnostics.extend(found);
        resp
    }

    /// `MoveResourceState`: the handler, then its target state checked against the
    /// target type (wholly known, no write-only value).
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn move_state(
        &self,
        source_provider_address: String,
        source_type_name: String,
        source_schema_version: i64,
        source_state: tfvalue::codec::RawState,
        source_private: Vec<u8>,
        target_type_name: String,
        source_identity: Option<(tfvalue::codec::RawState, i64)>,
    ) -> MoveResourceStateResponse {
        const RPC: &str = "MoveResourceState";
        let Some(entry) = self.resources.get(&target_type_name) else {
            return Self::unknown_type("resource", &target_type_name).into();
        };
        let (ctx, cancel) = self.request_ctx();
        let req = MoveResourceStateRequest {
            source_provider_address,
            source_type_name,
            source_schema_version,
            source_state,
            source_private,
            source_identity_schema_version: source_identity.as_ref().map_or(0, |(_, v)| *v),
            source_identity: source_identity.map(|(raw, _)| raw),
            target_type_name: target_type_name.clone(),
            target_schema: entry.schema.clone(),
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.move_resource_state(req).await },
                MoveResourceStateResponse::from,
            )
            .await;
        if has_errors(&resp.diagnostics) {
            return resp;
        }
        if let Err(d) = Self::check_output(
            "moved state",
            &mut resp.target_state,
            &entry.ty,
            Known::Wholly,
        )
        .map(drop)
        .and_then(|()| entry.check_write_only("moved state", &resp.target_state))
        .and_then(|()| {
            self.check_identity_out(
                "moved identity",
                &target_type_name,
                &mut resp.target_identity,
                Known::Wholly,
            )
        }) {
            resp.diagnostics.push(d);
        }
        resp
    }

    /// `UpgradeResourceIdentity`: the handler, its identity checked against the current
    /// identity schema (wholly known).
    pub(crate) async fn upgrade_identity(
        &self,
        type_name: String,
        version: i64,
        raw_identity: tfvalue::codec::RawState,
    ) -> UpgradeResourceIdentityResponse {
        const RPC: &str = "UpgradeResourceIdentity";
        let Some((schema, ty)) = self.identities.get(&type_name) else {
            return Diagnostic::error(format!("{RPC}: `{type_name}` has no identity schema"))
                .into();
        };
        let (ctx, cancel) = self.request_ctx();
        let req = UpgradeResourceIdentityRequest {
            type_name,
            version,
            raw_identity,
            schema: schema.clone(),
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.upgrade_resource_identity(req).await },
                UpgradeResourceIdentityResponse::from,
            )
            .await;
        if !has_errors(&resp.diagnostics) {
            if let Err(d) = Self::check_output(
                "upgraded identity",
                &mut resp.upgraded_identity,
                ty,
                Known::Wholly,
            ) {
                resp.diagnostics.push(d);
            }
        }
        resp
    }

    /// The identity schemas, for `GetResourceIdentitySchemas`.
    pub(crate) fn identity_schemas(&self) -> impl Iterator<Item = (&String, &IdentitySchema)> {
        self.identities.iter().map(|(k, (s, _))| (k, &**s))
    }

    pub(crate) fn identity_type(&self, type_name: &str) -> Option<&Type> {
        self.identities.get(type_name).map(|(_, t)| t)
    }

    /// `OpenEphemeralResource`: the configuration checked (wholly known: Terraform opens
    /// nothing else), the handler, its result checked (wholly known, of its type) unless
    /// it deferred, which only a client that allows it may get.
    pub(crate) async fn open_ephemeral(
        &self,
        type_name: String,
        config: DynamicValue,
        capabilities: ClientCapabilities,
    ) -> OpenEphemeralResourceResponse {
        const RPC: &str = "OpenEphemeralResource";
        let Some(entry) = self.ephemerals.get(&type_name) else {
            return Self::unknown_type("ephemeral resource", &type_name).into();
        };
        let field = Field {
            rpc: RPC,
            name: "config",
        };
        if let Err(d) = self.check_input(field, &config, &entry.ty, Known::Wholly) {
            return d.into();
        }
        let (ctx, cancel) = self.request_ctx_with(capabilities);
        let req = OpenEphemeralResourceRequest {
            type_name,
            config,
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.open_ephemeral_resource(req).await },
                OpenEphemeralResourceResponse::from,
            )
            .await;
        let deferred = check_deferral(RPC, &mut resp.deferred, capabilities, &mut resp.diagnostics);
        if !deferred && !has_errors(&resp.diagnostics) {
            if let Err(d) = Self::check_output(
                "ephemeral resource result",
                &mut resp.result,
                &entry.ty,
                Known::Wholly,
            ) {
                resp.diagnostics.push(d);
            }
        }
        resp
    }

    /// `RenewEphemeralResource`.
    pub(crate) async fn renew_ephemeral(
        &self,
        type_name: String,
        private: Vec<u8>,
    ) -> RenewEphemeralResourceResponse {
        const RPC: &str = "RenewEphemeralResource";
        if !self.ephemerals.contains_key(&type_name) {
            return Self::unknown_type("ephemeral resource", &type_name).into();
        }
        let (ctx, cancel) = self.request_ctx();
        let req = RenewEphemeralResourceRequest {
            type_name,
            private,
            ctx,
        };
        let p = self.provider.clone();
        self.run(
            RPC,
            cancel,
            async move { p.renew_ephemeral_resource(req).await },
            RenewEphemeralResourceResponse::from,
        )
        .await
    }

    /// `CloseEphemeralResource`.
    pub(crate) async fn close_ephemeral(
        &self,
        type_name: String,
        private: Vec<u8>,
    ) -> Vec<Diagnostic> {
        const RPC: &str = "CloseEphemeralResource";
        if !self.ephemerals.contains_key(&type_name) {
            return vec![Self::unknown_type("ephemeral resource", &type_name)];
        }
        let (ctx, cancel) = self.request_ctx();
        let req = CloseEphemeralResourceRequest {
            type_name,
            private,
            ctx,
        };
        let p = self.provider.clone();
        self.run(
            RPC,
            cancel,
            async move { p.close_ephemeral_resource(req).await },
            |d| vec![d],
        )
        .await
    }

    pub(crate) async fn read_data(
        &self,
        type_name: String,
        config: DynamicValue,
        provider_meta: DynamicValue,
        capabilities: ClientCapabilities,
    ) -> ReadDataSourceResponse {
        const RPC: &str = "ReadDataSource";
        let fail = |d| ReadDataSourceResponse {
            diagnostics: vec![d],
            ..Default::default()
        };
        let Some(entry) = self.data_sources.get(&type_name) else {
            return fail(Self::unknown_type("data source", &type_name));
        };
        // Terraform reads a data source whose configuration is not wholly known at apply.
        let field = Field {
            rpc: RPC,
            name: "config",
        };
        if let Err(d) = self
            .check_input(field, &config, &entry.ty, Known::Wholly)
            .and_then(|_| self.check_meta(RPC, &provider_meta))
        {
            return fail(d);
        }
        let (ctx, cancel) = self.request_ctx_with(capabilities);
        let req = ReadDataSourceRequest {
            type_name,
            config,
            provider_meta,
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.read_data_source(req).await },
                fail,
            )
            .await;
        // A deferred read answers an unknown state (Terraform reads it in a later run).
        let known = if check_deferral(RPC, &mut resp.deferred, capabilities, &mut resp.diagnostics)
        {
            Known::Maybe
        } else {
            Known::Wholly
        };
        if !has_errors(&resp.diagnostics) {
            if let Err(d) =
                Self::check_output("data source state", &mut resp.state, &entry.ty, known)
            {
                resp.diagnostics.push(d);
            }
        }
        resp
    }

    /// Stops as for `StopProvider`, then waits (at most `limit`) for the handlers in
    /// flight to end: the provider's parent is gone.
    /// `GenerateResourceConfig`: the state checked (wholly known, of the resource's
    /// type), the handler, and its configuration checked the same way.
    pub(crate) async fn generate_config(
        &self,
        type_name: String,
        state: DynamicValue,
    ) -> GenerateResourceConfigResponse {
        const RPC: &str = "GenerateResourceConfig";
        let Some(entry) = self.resources.get(&type_name) else {
            return Self::unknown_type("resource", &type_name).into();
        };
        let field = Field {
            rpc: RPC,
            name: "state",
        };
        if let Err(d) = self.check_input(field, &state, &entry.ty, Known::Wholly) {
            return d.into();
        }
        let (ctx, cancel) = self.request_ctx();
        let req = GenerateResourceConfigRequest {
            type_name,
            state,
            schema: entry.schema.clone(),
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.generate_resource_config(req).await },
                GenerateResourceConfigResponse::from,
            )
            .await;
        if !has_errors(&resp.diagnostics) {
            if let Err(d) = check_output(
                "generated configuration",
                &mut resp.config,
                &entry.ty,
                Known::Wholly,
            ) {
                resp.diagnostics.push(d);
            } else if let Err(d) = entry.check_write_only("generated configuration", &resp.config) {
                resp.diagnostics.push(d);
            }
        }
        resp
    }

    /// `ValidateListResourceConfig`: the filter checked against the list resource's
    /// schema, `include_resource` as a bool and `limit` as a whole number that is not
    /// negative (each may be null or unknown), then the handler.
    pub(crate) async fn validate_list_config(
        &self,
        type_name: String,
        config: DynamicValue,
        include_resource_object: DynamicValue,
        limit: DynamicValue,
    ) -> Vec<Diagnostic> {
        const RPC: &str = "ValidateListResourceConfig";
        let Some(entry) = self.lists.get(&type_name) else {
            return vec![Self::unknown_type("list resource", &type_name)];
        };
        let field = Field {
            rpc: RPC,
            name: "config",
        };
        let mut diags = self.schema_checks(field, &config, entry);
        diags.extend(check_list_argument(
            "include_resource",
            &include_resource_object,
            &Type::Bool,
        ));
        diags.extend(check_list_argument("limit", &limit, &Type::Number));
        if has_errors(&diags) {
            return diags;
        }
        let (ctx, cancel) = self.request_ctx();
        let req = crate::list::ValidateListResourceConfigRequest {
            type_name,
            config,
            include_resource_object,
            limit,
            ctx,
        };
        let p = self.provider.clone();
        diags.extend(
            self.run(
                RPC,
                cancel,
                async move { p.validate_list_resource_config(req).await },
                |d| vec![d],
            )
            .await,
        );
        diags
    }

    /// `PlanAction`: the configuration checked against the action's schema (it may
    /// hold unknowns), then the handler; a deferral only where the client allows it.
    pub(crate) async fn plan_action(
        &self,
        action_type: String,
        config: DynamicValue,
        capabilities: ClientCapabilities,
    ) -> crate::action::PlanActionResponse {
        const RPC: &str = "PlanAction";
        let Some(entry) = self.actions.get(&action_type) else {
            return Self::unknown_type("action", &action_type).into();
        };
        let field = Field {
            rpc: RPC,
            name: "config",
        };
        if let Err(d) = self.check_input(field, &config, &entry.ty, Known::Maybe) {
            return d.into();
        }
        let (ctx, cancel) = self.request_ctx_with(capabilities);
        let req = crate::action::PlanActionRequest {
            action_type,
            config,
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.plan_action(req).await },
                crate::action::PlanActionResponse::from,
            )
            .await;
        check_deferral(RPC, &mut resp.deferred, capabilities, &mut resp.diagnostics);
        resp
    }

    /// `InvokeAction`: the configuration checked (wholly known), then the handler on a
    /// task of its own, whose progress and final diagnostics come out of the returned
    /// channel; the last event is always `Completed`. When Terraform stops reading, the
    /// handler's context is cancelled.
    pub(crate) fn invoke_action(
        self: &Arc<Self>,
        action_type: String,
        config: DynamicValue,
        capabilities: ClientCapabilities,
    ) -> tokio::sync::mpsc::Receiver<crate::action::ActionEvent> {
        use crate::action::{ActionEvent, ActionProgress};
        const RPC: &str = "InvokeAction";
        let (tx, rx) = tokio::sync::mpsc::channel(crate::list::LIST_BUFFER);
        let checked = match self.actions.get(&action_type) {
            None => Err(Self::unknown_type("action", &action_type)),
            Some(entry) => self
                .check_input(
                    Field {
                        rpc: RPC,
                        name: "config",
                    },
                    &config,
                    &entry.ty,
                    Known::Wholly,
                )
                .map(drop),
        };
        if let Err(d) = checked {
            let _ = tx.try_send(ActionEvent::Completed(vec![d]));
            return rx;
        }
        let core = self.clone();
        let shared = Arc::new(Mutex::new(Some(tx.clone())));
        self.spawn_stream(tx.clone(), async move {
            let (ctx, cancel) = core.request_ctx_with(capabilities);
            let req = crate::action::InvokeActionRequest {
                action_type,
                config,
                progress: ActionProgress::channel(shared.clone()),
                ctx,
            };
            let p = core.provider.clone();
            let run = core.run(
                RPC,
                cancel,
                async move { p.invoke_action(req).await },
                |d| vec![d],
            );
            let diags = run.await;
            // Progress sent after the handler returned (from a task it left running)
            // is dropped: Completed is the last event.
            shared.lock().unwrap_or_else(PoisonError::into_inner).take();
            let _ = tx.send(ActionEvent::Completed(diags)).await;
        });
        rx
    }

    /// `ListResource`: the filter checked (the list resource's schema), then the
    /// handler on a task of its own, whose results (each checked against the resource
    /// type's identity and resource schemas) and final diagnostics come out of the
    /// returned channel. When Terraform stops reading, the handler's context is
    /// cancelled and its next [`crate::ListResults::send`] fails.
    pub(crate) fn list(
        self: &Arc<Self>,
        type_name: String,
        config: DynamicValue,
        include_resource_object: bool,
        limit: i64,
    ) -> tokio::sync::mpsc::Receiver<crate::list::ListEvent> {
        use crate::list::{ListEvent, ListResults};
        const RPC: &str = "ListResource";
        let (tx, rx) = tokio::sync::mpsc::channel(crate::list::LIST_BUFFER);
        let types = match (
            self.lists.get(&type_name),
            self.resources.get(&type_name),
            self.identities.get(&type_name),
        ) {
            (None, _, _) => Err(Self::unknown_type("list resource", &type_name)),
            (Some(_), None, _) | (Some(_), _, None) => Err(Diagnostic::error(
                "list resource without an identity",
            )
            .with_detail(format!(
                "The list resource `{type_name}` needs a managed resource type of the same \
                 name with an identity schema; this provider has none. This is a bug in the \
                 provider."
            ))),
            (Some(list), Some(resource), Some((_, identity))) => self
                .check_input(
                    Field {
                        rpc: RPC,
                        name: "config",
                    },
                    &config,
                    &list.ty,
                    Known::Maybe,
                )
                .map(|_| {
                    let write_only = resource.write_only.then(|| resource.schema.clone());
                    (
                        Arc::new(identity.clone()),
                        (Arc::new(resource.ty.clone()), write_only),
                    )
                }),
        };
        let (identity, resource) = match types {
            Ok(t) => t,
            Err(d) => {
                let _ = tx.try_send(ListEvent::Diagnostics(vec![d]));
                return rx;
            }
        };
        let core = self.clone();
        let shared = Arc::new(Mutex::new(Some(tx.clone())));
        self.spawn_stream(tx.clone(), async move {
            let (ctx, cancel) = core.request_ctx();
            let results = ListResults::channel(
                shared.clone(),
                identity,
                resource,
                include_resource_object,
                limit,
            );
            let req = crate::list::ListResourceRequest {
                type_name,
                config,
                include_resource_object,
                limit,
                results,
                ctx,
            };
            let p = core.provider.clone();
            let run = core.run(
                RPC,
                cancel,
                async move { p.list_resource(req).await },
                |d| vec![d],
            );
            let diags = run.await;
            shared.lock().unwrap_or_else(PoisonError::into_inner).take();
            // Terraform reads an event without an identity only for its diagnostics.
            if !diags.is_empty() {
                let _ = tx.send(ListEvent::Diagnostics(diags)).await;
            }
        });
        rx
    }

    /// `ConfigureStateStore`: the configuration checked (wholly known), the handler,
    /// and the chunk size agreed: Terraform's, within [`crate::state_store::MAX_CHUNK`]
    /// and the server's message limit. Returns the diagnostics and the chunk size (0
    /// after an error).
    pub(crate) async fn configure_state_store(
        &self,
        type_name: String,
        config: DynamicValue,
        suggested: i64,
    ) -> (Vec<Diagnostic>, i64) {
        const RPC: &str = "ConfigureStateStore";
        let Some(entry) = self.state_stores.get(&type_name) else {
            return (vec![Self::unknown_type("state store", &type_name)], 0);
        };
        let field = Field {
            rpc: RPC,
            name: "config",
        };
        if let Err(d) = self.check_input(field, &config, &entry.ty, Known::Wholly) {
            return (vec![d], 0);
        }
        let (ctx, cancel) = self.request_ctx();
        let req = crate::state_store::ConfigureStateStoreRequest {
            type_name: type_name.clone(),
            config,
            ctx,
        };
        let p = self.provider.clone();
        let diags = self
            .run(
                RPC,
                cancel,
                async move { p.configure_state_store(req).await },
                |d| vec![d],
            )
            .await;
        if has_errors(&diags) {
            return (diags, 0);
        }
        // Room in a message for the chunk's other fields.
        let cap = crate::state_store::MAX_CHUNK
            .min(self.max_message.saturating_sub(4 << 10))
            .max(1);
        let size = usize::try_from(suggested)
            .ok()
            .filter(|&s| s > 0)
            .map_or(cap, |s| s.min(cap));
        self.state_chunks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(type_name, size);
        (diags, i64::try_from(size).unwrap_or(i64::MAX))
    }

    /// The chunk size agreed for a state store (the largest allowed if it was never
    /// configured: Terraform configures it first).
    pub(crate) fn state_chunk(&self, type_name: &str) -> usize {
        self.state_chunks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(type_name)
            .copied()
            .unwrap_or(crate::state_store::MAX_CHUNK)
    }

    /// Runs a state store handler for a known type.
    async fn state_store_call<T, F, Fut>(
        &self,
        rpc: &'static str,
        type_name: &str,
        call: F,
        fail: fn(Diagnostic) -> T,
    ) -> T
    where
        F: FnOnce(Arc<P>, Context) -> Fut,
        Fut: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        if !self.state_stores.contains_key(type_name) {
            return fail(Self::unknown_type("state store", type_name));
        }
        let (ctx, cancel) = self.request_ctx();
        let fut = call(self.provider.clone(), ctx);
        self.run(rpc, cancel, fut, fail).await
    }

    pub(crate) async fn read_state(
        &self,
        type_name: String,
        state_id: String,
    ) -> crate::state_store::ReadStateBytesResponse {
        let t = type_name.clone();
        self.state_store_call(
            "ReadStateBytes",
            &t,
            |p, ctx| async move {
                let req = crate::state_store::ReadStateBytesRequest {
                    type_name,
                    state_id,
                    ctx,
                };
                p.read_state_bytes(req).await
            },
            Into::into,
        )
        .await
    }

    pub(crate) async fn write_state(
        &self,
        type_name: String,
        state_id: String,
        bytes: Vec<u8>,
    ) -> Vec<Diagnostic> {
        let t = type_name.clone();
        self.state_store_call(
            "WriteStateBytes",
            &t,
            |p, ctx| async move {
                let req = crate::state_store::WriteStateBytesRequest {
                    type_name,
                    state_id,
                    bytes,
                    ctx,
                };
                p.write_state_bytes(req).await
            },
            |d| vec![d],
        )
        .await
    }

    pub(crate) async fn lock_state(
        &self,
        type_name: String,
        state_id: String,
        operation: String,
    ) -> crate::state_store::LockStateResponse {
        let t = type_name.clone();
        self.state_store_call(
            "LockState",
            &t,
            |p, ctx| async move {
                let req = crate::state_store::LockStateRequest {
                    type_name,
                    state_id,
                    operation,
                    ctx,
                };
                p.lock_state(req).await
            },
            Into::into,
        )
        .await
    }

    pub(crate) async fn unlock_state(
        &self,
        type_name: String,
        state_id: String,
        lock_id: String,
    ) -> Vec<Diagnostic> {
        let t = type_name.clone();
        self.state_store_call(
            "UnlockState",
            &t,
            |p, ctx| async move {
                let req = crate::state_store::UnlockStateRequest {
                    type_name,
                    state_id,
                    lock_id,
                    ctx,
                };
                p.unlock_state(req).await
            },
            |d| vec![d],
        )
        .await
    }

    pub(crate) async fn get_states(
        &self,
        type_name: String,
    ) -> crate::state_store::GetStatesResponse {
        let t = type_name.clone();
        self.state_store_call(
            "GetStates",
            &t,
            |p, ctx| async move {
                let req = crate::state_store::StateStoreRequest {
                    type_name,
                    state_id: String::new(),
                    ctx,
                };
                p.get_states(req).await
            },
            Into::into,
        )
        .await
    }

    pub(crate) async fn delete_state(
        &self,
        type_name: String,
        state_id: String,
    ) -> Vec<Diagnostic> {
        let t = type_name.clone();
        self.state_store_call(
            "DeleteState",
            &t,
            |p, ctx| async move {
                let req = crate::state_store::StateStoreRequest {
                    type_name,
                    state_id,
                    ctx,
                };
                p.delete_state(req).await
            },
            |d| vec![d],
        )
        .await
    }

    /// Runs a streaming RPC's work on the server's runtime until it ends or Terraform
    /// stops reading (`tx` closed): then the work is dropped, which cancels the
    /// handler's context (its thread runs on to its end, as for any request).
    fn spawn_stream<T: Send + 'static>(
        &self,
        tx: tokio::sync::mpsc::Sender<T>,
        work: impl Future<Output = ()> + Send + 'static,
    ) {
        let runtime = self
            .handlers
            .clone()
            .unwrap_or_else(tokio::runtime::Handle::current);
        runtime.spawn(async move {
            tokio::select! {
                () = work => {}
                () = tx.closed() => {}
            }
        });
    }

    pub(crate) async fn stop_and_drain(&self, limit: std::time::Duration) {
        let _ = self.stop().await;
        let _ = tokio::time::timeout(limit, self.in_flight.idle()).await;
    }

    /// `CallFunction`: the arguments checked against the signature, the handler, and its
    /// result checked against the return type (unknown only where an argument was). A
    /// function needs no configured provider: Terraform calls functions before it
    /// configures one.
    pub(crate) async fn call_function(
        &self,
        name: String,
        arguments: Vec<DynamicValue>,
    ) -> CallFunctionResponse {
        const RPC: &str = "CallFunction";
        let Some(function) = self.functions.get(&name).cloned() else {
            return FunctionError::new(format!("this provider has no function `{name}`")).into();
        };
        for (i, arg) in arguments.iter().enumerate() {
            if let Some(p) = function.parameter_at(i) {
                self.log_value(
                    Field {
                        rpc: RPC,
                        name: "arguments",
                    },
                    arg,
                    &p.ty,
                );
            }
        }
        let unknown = match check_arguments(&name, &function, &arguments) {
            Ok(unknown) => unknown,
            Err(e) => return e.into(),
        };
        let (ctx, cancel) = self.request_ctx();
        let req = CallFunctionRequest {
            name: name.clone(),
            arguments,
            function: function.clone(),
            ctx,
        };
        let p = self.provider.clone();
        let mut resp = self
            .run(
                RPC,
                cancel,
                async move { p.call_function(req).await },
                |d| FunctionError::new(d.to_string()).into(),
            )
            .await;
        if resp.error.is_some() {
            resp.result = DynamicValue::default();
            return resp;
        }
        let known = if unknown { Known::Maybe } else { Known::Wholly };
        if let Err(d) = Self::check_output(
            &format!("result of `{name}`"),
            &mut resp.result,
            &function.return_type,
            known,
        ) {
            return FunctionError::new(d.to_string()).into();
        }
        resp
    }

    /// `StopProvider`: the requests in flight see their [`Context`] stopped (a fresh
    /// signal serves the requests that come after), then the provider cleans up.
    pub(crate) async fn stop(&self) -> String {
        // A fresh signal for the requests after this one.
        let fired = std::mem::take(&mut *self.stop.lock().unwrap_or_else(PoisonError::into_inner));
        fired.fire();
        let p = self.provider.clone();
        let stopped = self
            .spawn_handler(Box::pin(async move {
                Box::new(p.stop_provider().await) as Handled
            }))
            .await;
        match stopped.map(|answer| answer.downcast::<Result<(), String>>()) {
            Ok(Ok(answer)) => answer.err().unwrap_or_default(),
            // Not reached: the future above answers a `Result<(), String>`.
            Ok(Err(_)) => "the provider's answer to StopProvider was lost in the server".to_owned(),
            Err(e) if e.is_panic() => format!(
                "the provider panicked while stopping: {}",
                panic_message(&*e.into_panic())
            ),
            Err(_) => "the provider was stopping when the server shut down".to_owned(),
        }
    }
}

/// Checks a value the provider answers with: of its type (and wholly known where
/// Terraform requires it). An empty value is written as nil, which is how Terraform
/// reads it.
pub(crate) fn check_output(
    what: &str,
    dv: &mut DynamicValue,
    ty: &Type,
    known: Known,
) -> Result<Validated, Diagnostic> {
    if dv.is_empty() {
        dv.msgpack.push(0xc0);
    }
    let checked = dv.validate(ty).map_err(|e| {
        Diagnostic::from_value_error(
            format!("the provider's {what} does not match its schema"),
            &e,
        )
    })?;
    if known == Known::Wholly && !checked.is_wholly_known() {
        let path = first_unknown(dv, ty);
        return Err(
            Diagnostic::error(format!("the provider's {what} holds an unknown value"))
                .with_detail(format!(
                    "Every value of the {what} must be known; {} is unknown. This is a bug in the provider.",
                    describe(&path)
                ))
                .at(path),
        );
    }
    Ok(checked)
}

/// The answer to a request naming a `kind` type (resource, state store, ..) the provider
/// does not have.
pub(crate) fn unknown_type(kind: &str, name: &str) -> Diagnostic {
    Diagnostic::error(format!("unknown {kind} type"))
        .with_detail(format!("This provider has no {kind} type `{name}`."))
}

/// A `list` block argument as `ValidateListResourceConfig` carries it: of its type,
/// null or unknown when not known; a `limit` a whole number that is not negative.
fn check_list_argument(name: &str, dv: &DynamicValue, ty: &Type) -> Option<Diagnostic> {
    if dv.is_empty() {
        return None;
    }
    let value = match dv.decode_value(ty) {
        Ok(v) => v,
        Err(e) => {
            return Some(Diagnostic::from_value_error(
                format!("ValidateListResourceConfig: `{name}` does not decode"),
                &e,
            ))
        }
    };
    let Value::Number(n) = &value else {
        return None;
    };
    if n.to_i64().is_some_and(|n| n >= 0) {
        return None;
    }
    Some(
        Diagnostic::error(format!("invalid `{name}`")).with_detail(format!(
            "The `{name}` of a list block is a whole number, zero or more; it is {n}."
        )),
    )
}

/// A configured write-only value, where the Terraform calling did not say it supports
/// write-only attributes (Terraform before 1.11 sends no capabilities): it would keep the
/// value in plan and state, in clear text.
fn refuse_write_only(entry: &Entry, config: &DynamicValue) -> Option<Diagnostic> {
    let path = entry.write_only_in(config)?;
    Some(
        Diagnostic::error("Write-only attribute not supported by this Terraform")
            .with_detail(format!(
                "{} is write-only: its value must never be stored in a plan or a state. \
                 Write-only attributes need Terraform 1.11 or later; the Terraform running \
                 this does not support them and would store the value. Upgrade Terraform, or \
                 leave the attribute unset.",
                describe(&path)
            ))
            .at(path),
    )
}

/// The path of the first unknown in a value (empty if there is none or it does not
/// decode).
fn first_unknown(dv: &DynamicValue, ty: &Type) -> AttributePath {
    let mut found: Option<AttributePath> = None;
    if let Ok(v) = dv.decode_value(ty) {
        v.walk(&mut |path, v| {
            if found.is_none() && v.is_unknown() {
                found = Some(path.clone());
            }
        });
    }
    found.unwrap_or_default()
}

fn describe(path: &AttributePath) -> String {
    if path.is_empty() {
        "the whole value".to_owned()
    } else {
        format!("`{path}`")
    }
}

fn unknown_in(field: Field, dv: &DynamicValue, ty: &Type, why: &str) -> Diagnostic {
    let path = first_unknown(dv, ty);
    Diagnostic::error(format!(
        "{}: `{}` holds an unknown value",
        field.rpc, field.name
    ))
    .with_detail(format!("{} is unknown; {why}.", describe(&path)))
    .at(path)
}

/// "Provider produced inconsistent result after apply", naming the resource type and
/// the attribute (or the whole object) where the new state breaks the plan.
fn inconsistent_result(type_name: &str, p: &tfvalue::schema::Diagnostic) -> Diagnostic {
    let path = p.path();
    Diagnostic::error("Provider produced inconsistent result after apply")
        .with_detail(format!(
            "When applying changes to a `{type_name}`, the provider produced a new state that breaks its plan at {}: {}. This is a bug in the provider.",
            if path.is_empty() { "the object as a whole".to_owned() } else { format!("`{path}`") },
            p.detail
        ))
        .at(path.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A provider of no resources, for the server's own bookkeeping.
    struct Nothing;

    impl Provider for Nothing {
        fn schemas(&self) -> Schemas {
            Schemas::default()
        }
    }

    async fn settle() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    /// Waits for a task that should end now (at most 5 s).
    async fn ends(task: tokio::task::JoinHandle<()>) {
        tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .unwrap()
            .unwrap();
    }

    /// A handler hands an apply's planned bytes back through its context: the server
    /// takes them from the slot it gave; a context without one drops them; `Debug`
    /// tells how many bytes are held, never the bytes.
    #[test]
    fn planned_bytes_handed_back() {
        let slot = crate::provider::PlannedBack::default();
        let ctx = Context::detached().with_planned_back(slot.clone());
        ctx.clone().give_back_planned_state(vec![7; 1000]);
        let shown = format!("{ctx:?}");
        assert!(shown.contains("PlannedBack(1000 bytes)"), "{shown}");
        assert!(!shown.contains("7, 7"), "{shown}");
        assert_eq!(slot.take(), Some(vec![7; 1000]));
        assert_eq!(slot.take(), None);
        assert!(format!("{ctx:?}").contains("PlannedBack(empty)"));
        Context::detached().give_back_planned_state(vec![1, 2, 3]);
    }

    /// The server waits (at a dead parent) until the last handler in flight ends, and not
    /// longer: with none running it goes on at once.
    #[tokio::test]
    async fn idle_means_no_handler_runs() {
        let count = Arc::new(InFlightCount::default());
        tokio::time::timeout(Duration::from_secs(5), count.idle())
            .await
            .unwrap();
        let (a, b) = (InFlight::enter(&count), InFlight::enter(&count));
        let waiter = tokio::spawn({
            let count = count.clone();
            async move { count.idle().await }
        });
        settle().await;
        assert!(!waiter.is_finished());
        drop(a);
        settle().await;
        assert!(!waiter.is_finished());
        drop(b);
        ends(waiter).await;
    }

    /// A request's context is stopped by `StopProvider` (also when it waits already), by
    /// its client leaving (its guard dropped armed), and when the server itself goes; a
    /// disarmed guard stops nothing, and requests after a stop start afresh.
    #[tokio::test]
    async fn what_stops_a_request() {
        let core = Core::new(Nothing);
        let (ctx, cancel) = core.request_ctx();
        let waiter = tokio::spawn({
            let ctx = ctx.clone();
            async move { ctx.stopped().await }
        });
        settle().await;
        assert!(!waiter.is_finished() && !ctx.is_stopped());
        cancel.disarm();
        settle().await;
        assert!(!waiter.is_finished() && !ctx.is_stopped());
        let _ = core.stop().await;
        ends(waiter).await;
        assert!(ctx.is_stopped());

        // After the stop, a fresh signal; a client that leaves stops its request only.
        let (left, leaving) = core.request_ctx();
        let (stays, staying) = core.request_ctx();
        assert!(!left.is_stopped() && !stays.is_stopped());
        drop(leaving);
        assert!(left.is_stopped() && !stays.is_stopped());
        tokio::time::timeout(Duration::from_secs(5), left.stopped())
            .await
            .unwrap();

        // The server goes: what still runs sees its context stopped.
        let waiter = tokio::spawn({
            let stays = stays.clone();
            async move { stays.stopped().await }
        });
        settle().await;
        assert!(!waiter.is_finished());
        drop(core);
        ends(waiter).await;
        assert!(stays.is_stopped());
        staying.disarm();
    }
}
