//! [`Ctx`]: what a handler gets besides its models.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use tfvalue::{AttributePath, DynamicValue, Type};

use super::Model;

use crate::diagnostic::{Diagnostic, Severity};
use crate::provider::{Context, Deferred, DeferredReason};

/// What every framework handler gets besides its models: the client the provider's
/// configuration built ([`Ctx::client`]), the private data stored with the resource, a
/// place for warnings, and Terraform's stop signal.
///
/// Handlers take it by shared reference; what they record through it (warnings, private
/// data, replacements) is collected by the framework when the handler returns.
///
/// Each handler runs on a thread of its own, so it may block (a synchronous API client,
/// `std::fs`, waiting for a file lock): that holds up its own request only, never the
/// server, `StopProvider` or the other handlers.
///
/// ```
/// use tfvalue_plugin::framework::Ctx;
/// use tfvalue_plugin::Diagnostic;
///
/// let cx = Ctx::detached("a client");
/// assert_eq!(*cx.client(), "a client");
/// cx.warn(Diagnostic::warning("the API is slow today"));
/// cx.set_private(b"etag-1".to_vec());
/// assert_eq!(cx.private(), b"etag-1");
/// assert_eq!(cx.warnings().len(), 1);
/// ```
#[derive(Debug)]
pub struct Ctx<C = ()> {
    client: Arc<C>,
    stop: Context,
    type_name: String,
    terraform_version: String,
    private: Mutex<Vec<u8>>,
    warnings: Mutex<Vec<Diagnostic>>,
    replace: Mutex<Vec<AttributePath>>,
    config: Option<(DynamicValue, Arc<Type>)>,
    renew_at: Mutex<Option<SystemTime>>,
    deferred: Mutex<Option<Deferred>>,
    deadline: Mutex<Option<std::time::Instant>>,
    /// The resource type whose default `modify_plan` ran (see
    /// [`Ctx::default_hook_ran`]).
    default_hook: Mutex<Option<std::any::TypeId>>,
}

fn take<T: Default>(m: &Mutex<T>) -> T {
    std::mem::take(&mut *m.lock().unwrap_or_else(PoisonError::into_inner))
}

impl<C> Ctx<C> {
    pub(crate) fn new(client: Arc<C>, stop: Context, type_name: &str, private: Vec<u8>) -> Self {
        Ctx {
            client,
            stop,
            type_name: type_name.to_owned(),
            terraform_version: String::new(),
            private: Mutex::new(private),
            warnings: Mutex::new(Vec::new()),
            replace: Mutex::new(Vec::new()),
            config: None,
            renew_at: Mutex::new(None),
            deferred: Mutex::new(None),
            deadline: Mutex::new(None),
            default_hook: Mutex::new(None),
        }
    }

    /// Records that the default `modify_plan` of the resource type `of` ran (so that
    /// type does not override it).
    pub(crate) fn default_hook_ran(&self, of: std::any::TypeId) {
        *self
            .default_hook
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(of);
    }

    /// Whether the default `modify_plan` of the resource type `of` ran in this request.
    pub(crate) fn ran_default_hook(&self, of: std::any::TypeId) -> bool {
        *self
            .default_hook
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            == Some(of)
    }

    pub(crate) fn with_config(mut self, config: DynamicValue, ty: &Arc<Type>) -> Self {
        self.config = Some((config, ty.clone()));
        self
    }

    /// Lets the configuration go, once nothing is to read it.
    pub(crate) fn release_config(&mut self) {
        self.config = None;
    }

    /// The configuration as Terraform sent it (empty where there is none).
    pub(crate) fn config_value(&self) -> &DynamicValue {
        static NONE: DynamicValue = DynamicValue {
            msgpack: Vec::new(),
            json: Vec::new(),
        };
        self.config.as_ref().map_or(&NONE, |(dv, _)| dv)
    }

    pub(crate) fn set_deadline(&self, at: std::time::Instant) {
        *self.deadline.lock().unwrap_or_else(PoisonError::into_inner) = Some(at);
    }

    /// When the handler's time is up ([`Timeouts`](super::Timeouts)): it is cancelled
    /// then. `None` when the operation has no time limit. A handler that waits on
    /// something of its own (polling an API until a cluster is ready) can use it to stop
    /// waiting in time, or to pass a deadline on to its client.
    pub fn deadline(&self) -> Option<std::time::Instant> {
        *self.deadline.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn with_terraform_version(mut self, version: String) -> Self {
        self.terraform_version = version;
        self
    }

    /// A context around `client` that is never stopped, with no private data: for calling
    /// handlers in unit tests.
    pub fn detached(client: C) -> Self {
        Ctx::new(Arc::new(client), Context::detached(), "", Vec::new())
    }

    /// What the provider's configuration built
    /// ([`ProviderConfig::configure`](super::ProviderConfig::configure)): an API client,
    /// a connection pool, a store. Shared by every handler; no locking in user code
    /// beyond what the client itself needs.
    pub fn client(&self) -> &C {
        &self.client
    }

    /// The resource or data source type being handled (`kv_entry`); empty in the
    /// provider's own configure.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// What the Terraform calling says it supports (write-only attributes, deferred
    /// responses), in the handlers of the requests that carry it (`read`, `modify_plan`,
    /// `import`, a data source's `read`); all `false` elsewhere and for
    /// Terraform before 1.9.
    ///
    /// ```
    /// let cx = tfvalue_plugin::framework::Ctx::detached(());
    /// assert!(!cx.client_capabilities().write_only_attributes_allowed);
    /// ```
    pub fn client_capabilities(&self) -> crate::ClientCapabilities {
        self.stop.client_capabilities()
    }

    /// The version of the Terraform calling; set in
    /// [`ProviderConfig::configure`](super::ProviderConfig::configure), empty elsewhere.
    pub fn terraform_version(&self) -> &str {
        &self.terraform_version
    }

    /// The configuration, decoded into `M` (usually the resource's model): in
    /// `modify_plan` (it may hold unknowns), `create` and `update` (wholly known; the
    /// place to read write-only attributes, which are null in the plan). `None` where
    /// there is no configuration (`read`, `delete`, `import`, null configuration).
    ///
    /// # Errors
    ///
    /// The configuration does not fit `M`.
    pub fn config<M: Model>(&self) -> Result<Option<M>, Diagnostic> {
        let Some((dv, ty)) = &self.config else {
            return Ok(None);
        };
        let decoded = if **ty == M::tf_type() {
            tfvalue::__private::decode_model_as::<M>(dv, ty)
        } else {
            // The schema served differs from the model's (fewer attributes).
            dv.decode_value(ty)
                .and_then(|v| super::convert::from_wire_value::<M>(v, false))
        };
        decoded.map_err(|e| super::convert::misfit("the configuration", &self.type_name, &e))
    }

    /// Adds a warning: Terraform shows it and the operation goes on. (Errors are what a
    /// handler returns in its `Err`.) The diagnostic's severity is set to warning.
    pub fn warn(&self, diagnostic: Diagnostic) {
        self.warnings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(diagnostic.with_severity(Severity::Warning));
    }

    /// The warnings added so far.
    pub fn warnings(&self) -> Vec<Diagnostic> {
        self.warnings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The private data stored with the resource: from the last apply or read in `read`
    /// and `modify_plan`, from the plan in `create`, `update` and `delete`. Terraform
    /// keeps it opaque; it is passed through unless a handler sets it.
    pub fn private(&self) -> Vec<u8> {
        self.private
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the private data stored with the resource.
    pub fn set_private(&self, data: Vec<u8>) {
        *self.private.lock().unwrap_or_else(PoisonError::into_inner) = data;
    }

    /// In [`Resource::modify_plan`](super::Resource::modify_plan): a change of the
    /// attribute at `path` replaces the resource (besides the attributes declared
    /// `requires_replace`).
    pub fn requires_replace(&self, path: AttributePath) {
        self.replace
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path);
    }

    /// In an [`EphemeralResource`](super::EphemeralResource)'s `open` and `renew`: asks
    /// Terraform to call `renew` at `at` if the resource is still open then (a lease
    /// that expires, a token to refresh). Without it, Terraform never renews.
    pub fn set_renew_at(&self, at: SystemTime) {
        *self.renew_at.lock().unwrap_or_else(PoisonError::into_inner) = Some(at);
    }

    /// Defers this operation to a later run (Terraform's deferred actions: the value
    /// needed is not known yet), where the protocol has it: in a resource's `read`,
    /// `modify_plan` and `import`, a data source's `read`, an ephemeral resource's
    /// `open`. What the handler returns then is sent as it is, except for a data
    /// source's state and an ephemeral resource's result, which become unknown.
    ///
    /// # Errors
    ///
    /// The Terraform calling does not take deferrals
    /// ([`ClientCapabilities::deferral_allowed`](crate::ClientCapabilities) is off: all
    /// Terraform releases but experimental builds); nothing is recorded, and the
    /// handler goes on or fails with the error.
    ///
    /// ```
    /// use tfvalue_plugin::framework::Ctx;
    /// use tfvalue_plugin::DeferredReason;
    ///
    /// let cx = Ctx::detached(());
    /// assert!(cx.defer(DeferredReason::ProviderConfigUnknown).is_err());
    /// ```
    pub fn defer(&self, reason: DeferredReason) -> Result<(), Diagnostic> {
        if !self.client_capabilities().deferral_allowed {
            return Err(
                Diagnostic::error("this Terraform does not take deferred operations").with_detail(
                    format!(
                        "The provider would defer `{}` ({reason:?}), but Terraform did not allow \
                     deferral (an experimental feature of Terraform 1.9 and later).",
                        self.type_name
                    ),
                ),
            );
        }
        *self.deferred.lock().unwrap_or_else(PoisonError::into_inner) = Some(Deferred::new(reason));
        Ok(())
    }

    /// Whether Terraform asked the provider to stop (Ctrl-C).
    pub fn is_stopped(&self) -> bool {
        self.stop.is_stopped()
    }

    /// Resolves once Terraform asks the provider to stop.
    pub async fn stopped(&self) {
        self.stop.stopped().await;
    }

    pub(crate) fn take_warnings(&self) -> Vec<Diagnostic> {
        take(&self.warnings)
    }

    pub(crate) fn take_private(&self) -> Vec<u8> {
        take(&self.private)
    }

    pub(crate) fn take_replace(&self) -> Vec<AttributePath> {
        take(&self.replace)
    }

    pub(crate) fn take_renew_at(&self) -> Option<SystemTime> {
        take(&self.renew_at)
    }

    pub(crate) fn take_deferred(&self) -> Option<Deferred> {
        take(&self.deferred)
    }
}
