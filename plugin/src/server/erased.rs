//! The provider behind the server, type-erased.
//!
//! Everything the server does (the checks around each handler, both gRPC services,
//! tonic, the runtime) is written against [`Erased`], a concrete type, so it is compiled
//! once, in this crate. A provider's crate compiles only the blanket [`DynProvider`]
//! impl for its own type: each handler's future boxed, one allocation per RPC. Generic
//! over the provider, the whole server was monomorphized and optimized again in the
//! provider's crate on every edit (`plugin/README.md`, "Build times").

use std::future::Future;
use std::pin::Pin;

use crate::diagnostic::Diagnostic;
use crate::function::{CallFunctionRequest, CallFunctionResponse};
use crate::identity::{UpgradeResourceIdentityRequest, UpgradeResourceIdentityResponse};
use crate::provider::*;

/// A handler's future, boxed.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`Provider`] as a trait object: the same methods, with boxed futures.
pub(crate) trait DynProvider: Send + Sync + 'static {
    fn schemas(&self) -> Schemas;
    fn validate_provider_config(
        &self,
        req: ValidateProviderConfigRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>>;
    fn validate_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>>;
    fn validate_data_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>>;
    fn configure_provider(&self, req: ConfigureProviderRequest) -> BoxFuture<'_, Vec<Diagnostic>>;
    fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> BoxFuture<'_, UpgradeResourceStateResponse>;
    fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> BoxFuture<'_, UpgradeResourceIdentityResponse>;
    fn read_resource(&self, req: ReadResourceRequest) -> BoxFuture<'_, ReadResourceResponse>;
    fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> BoxFuture<'_, PlanResourceChangeResponse>;
    fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> BoxFuture<'_, ApplyResourceChangeResponse>;
    fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> BoxFuture<'_, ImportResourceStateResponse>;
    fn read_data_source(&self, req: ReadDataSourceRequest)
        -> BoxFuture<'_, ReadDataSourceResponse>;
    fn validate_ephemeral_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>>;
    fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> BoxFuture<'_, OpenEphemeralResourceResponse>;
    fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> BoxFuture<'_, RenewEphemeralResourceResponse>;
    fn close_ephemeral_resource(
        &self,
        req: CloseEphemeralResourceRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>>;
    fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> BoxFuture<'_, MoveResourceStateResponse>;
    fn call_function(&self, req: CallFunctionRequest) -> BoxFuture<'_, CallFunctionResponse>;
    fn stop_provider(&self) -> BoxFuture<'_, Result<(), String>>;
}

impl<P: Provider> DynProvider for P {
    fn schemas(&self) -> Schemas {
        Provider::schemas(self)
    }

    fn validate_provider_config(
        &self,
        req: ValidateProviderConfigRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>> {
        Box::pin(Provider::validate_provider_config(self, req))
    }

    fn validate_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>> {
        Box::pin(Provider::validate_resource_config(self, req))
    }

    fn validate_data_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>> {
        Box::pin(Provider::validate_data_resource_config(self, req))
    }

    fn configure_provider(&self, req: ConfigureProviderRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
        Box::pin(Provider::configure_provider(self, req))
    }

    fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> BoxFuture<'_, UpgradeResourceStateResponse> {
        Box::pin(Provider::upgrade_resource_state(self, req))
    }

    fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> BoxFuture<'_, UpgradeResourceIdentityResponse> {
        Box::pin(Provider::upgrade_resource_identity(self, req))
    }

    fn read_resource(&self, req: ReadResourceRequest) -> BoxFuture<'_, ReadResourceResponse> {
        Box::pin(Provider::read_resource(self, req))
    }

    fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> BoxFuture<'_, PlanResourceChangeResponse> {
        Box::pin(Provider::plan_resource_change(self, req))
    }

    fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> BoxFuture<'_, ApplyResourceChangeResponse> {
        Box::pin(Provider::apply_resource_change(self, req))
    }

    fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> BoxFuture<'_, ImportResourceStateResponse> {
        Box::pin(Provider::import_resource_state(self, req))
    }

    fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> BoxFuture<'_, ReadDataSourceResponse> {
        Box::pin(Provider::read_data_source(self, req))
    }

    fn validate_ephemeral_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>> {
        Box::pin(Provider::validate_ephemeral_resource_config(self, req))
    }

    fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> BoxFuture<'_, OpenEphemeralResourceResponse> {
        Box::pin(Provider::open_ephemeral_resource(self, req))
    }

    fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> BoxFuture<'_, RenewEphemeralResourceResponse> {
        Box::pin(Provider::renew_ephemeral_resource(self, req))
    }

    fn close_ephemeral_resource(
        &self,
        req: CloseEphemeralResourceRequest,
    ) -> BoxFuture<'_, Vec<Diagnostic>> {
        Box::pin(Provider::close_ephemeral_resource(self, req))
    }

    fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> BoxFuture<'_, MoveResourceStateResponse> {
        Box::pin(Provider::move_resource_state(self, req))
    }

    fn call_function(&self, req: CallFunctionRequest) -> BoxFuture<'_, CallFunctionResponse> {
        Box::pin(Provider::call_function(self, req))
    }

    fn stop_provider(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(Provider::stop_provider(self))
    }
}

/// The one provider type the server is compiled for.
pub(crate) struct Erased(Box<dyn DynProvider>);

impl Erased {
    /// Erases `provider`'s type. The only generic step between a provider and the server.
    pub(crate) fn new<P: Provider>(provider: P) -> Self {
        Erased(Box::new(provider))
    }
}

impl Provider for Erased {
    fn schemas(&self) -> Schemas {
        self.0.schemas()
    }

    fn validate_provider_config(
        &self,
        req: ValidateProviderConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        self.0.validate_provider_config(req)
    }

    fn validate_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        self.0.validate_resource_config(req)
    }

    fn validate_data_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        self.0.validate_data_resource_config(req)
    }

    fn configure_provider(
        &self,
        req: ConfigureProviderRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        self.0.configure_provider(req)
    }

    fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> impl Future<Output = UpgradeResourceStateResponse> + Send {
        self.0.upgrade_resource_state(req)
    }

    fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> impl Future<Output = UpgradeResourceIdentityResponse> + Send {
        self.0.upgrade_resource_identity(req)
    }

    fn read_resource(
        &self,
        req: ReadResourceRequest,
    ) -> impl Future<Output = ReadResourceResponse> + Send {
        self.0.read_resource(req)
    }

    fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> impl Future<Output = PlanResourceChangeResponse> + Send {
        self.0.plan_resource_change(req)
    }

    fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> impl Future<Output = ApplyResourceChangeResponse> + Send {
        self.0.apply_resource_change(req)
    }

    fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> impl Future<Output = ImportResourceStateResponse> + Send {
        self.0.import_resource_state(req)
    }

    fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> impl Future<Output = ReadDataSourceResponse> + Send {
        self.0.read_data_source(req)
    }

    fn validate_ephemeral_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        self.0.validate_ephemeral_resource_config(req)
    }

    fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> impl Future<Output = OpenEphemeralResourceResponse> + Send {
        self.0.open_ephemeral_resource(req)
    }

    fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> impl Future<Output = RenewEphemeralResourceResponse> + Send {
        self.0.renew_ephemeral_resource(req)
    }

    fn close_ephemeral_resource(
        &self,
        req: CloseEphemeralResourceRequest,
    ) -> impl Future<Output = Vec<Diagnostic>> + Send {
        self.0.close_ephemeral_resource(req)
    }

    fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> impl Future<Output = MoveResourceStateResponse> + Send {
        self.0.move_resource_state(req)
    }

    fn call_function(
        &self,
        req: CallFunctionRequest,
    ) -> impl Future<Output = CallFunctionResponse> + Send {
        self.0.call_function(req)
    }

    fn stop_provider(&self) -> impl Future<Output = Result<(), String>> + Send {
        self.0.stop_provider()
    }
}

#[cfg(test)]
mod tests {
    /// Every method of [`Provider`](crate::Provider) is in [`DynProvider`](super::DynProvider)
    /// and is forwarded both ways: a method left out would be answered by its default
    /// in the server, not by the provider's own implementation.
    #[test]
    fn every_provider_method_is_forwarded() {
        let provider = include_str!("../provider.rs");
        let start = provider
            .find("pub trait Provider:")
            .expect("the Provider trait");
        let body = &provider[start..];
        let body = &body[..body.find("\n}\n").expect("the trait's end")];
        let methods: Vec<&str> = body
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("fn "))
            .map(|l| &l[..l.find('(').expect("a method's parameters")])
            .collect();
        assert!(methods.len() >= 18, "{methods:?}");
        let erased = include_str!("erased.rs");
        let erased = &erased[..erased.find("#[cfg(test)]").expect("the tests")];
        for m in methods {
            let n = erased.matches(&format!("fn {m}(")).count();
            assert_eq!(
                n, 3,
                "`{m}`: in the trait, the blanket impl and `Erased` ({n} found)"
            );
        }
    }
}
