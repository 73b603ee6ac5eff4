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

use crate::provider::*;

/// A handler's future, boxed.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Writes [`DynProvider`], its blanket impl and [`Erased`]'s `Provider` impl from one
/// list of the handlers (`name: Request => Response`).
macro_rules! erase {
    ($($name:ident: $req:ty => $resp:ty,)*) => {
        /// [`Provider`] as a trait object: the same methods, with boxed futures.
        pub(crate) trait DynProvider: Send + Sync + 'static {
            fn schemas(&self) -> Schemas;
            fn returns_planned_state(&self) -> bool;
            fn stop_provider(&self) -> BoxFuture<'_, Result<(), String>>;
            $(fn $name(&self, req: $req) -> BoxFuture<'_, $resp>;)*
        }

        impl<P: Provider> DynProvider for P {
            fn schemas(&self) -> Schemas {
                Provider::schemas(self)
            }

            fn returns_planned_state(&self) -> bool {
                Provider::__returns_planned_state(self)
            }

            fn stop_provider(&self) -> BoxFuture<'_, Result<(), String>> {
                Box::pin(Provider::stop_provider(self))
            }

            $(fn $name(&self, req: $req) -> BoxFuture<'_, $resp> {
                Box::pin(Provider::$name(self, req))
            })*
        }

        impl Provider for Erased {
            fn schemas(&self) -> Schemas {
                self.0.schemas()
            }

            fn __into_erased(self) -> Erased {
                self
            }

            fn __returns_planned_state(&self) -> bool {
                self.0.returns_planned_state()
            }

            fn stop_provider(&self) -> impl Future<Output = Result<(), String>> + Send {
                self.0.stop_provider()
            }

            $(fn $name(&self, req: $req) -> impl Future<Output = $resp> + Send {
                self.0.$name(req)
            })*
        }
    };
}

/// Calls the macro `$m` with the list of every handler of [`Provider`] that takes a
/// request (`name: Request => Response,`): the one list the server's erasure (`erase!`)
/// and the framework's forwarding (`Framework<C>`'s `Provider` impl) are written from. The
/// request and response types are named as `crate::provider` exports them (it re-exports
/// those of the other modules).
macro_rules! with_handlers {
    ($m:ident) => {
        $m! {
            validate_provider_config: $crate::ValidateProviderConfigRequest => ::std::vec::Vec<$crate::Diagnostic>,
            validate_resource_config: $crate::ValidateConfigRequest => ::std::vec::Vec<$crate::Diagnostic>,
            validate_data_resource_config: $crate::ValidateConfigRequest => ::std::vec::Vec<$crate::Diagnostic>,
            configure_provider: $crate::ConfigureProviderRequest => ::std::vec::Vec<$crate::Diagnostic>,
            upgrade_resource_state: $crate::UpgradeResourceStateRequest => $crate::UpgradeResourceStateResponse,
            upgrade_resource_identity: $crate::UpgradeResourceIdentityRequest => $crate::UpgradeResourceIdentityResponse,
            read_resource: $crate::ReadResourceRequest => $crate::ReadResourceResponse,
            plan_resource_change: $crate::PlanResourceChangeRequest => $crate::PlanResourceChangeResponse,
            apply_resource_change: $crate::ApplyResourceChangeRequest => $crate::ApplyResourceChangeResponse,
            import_resource_state: $crate::ImportResourceStateRequest => $crate::ImportResourceStateResponse,
            read_data_source: $crate::ReadDataSourceRequest => $crate::ReadDataSourceResponse,
            validate_ephemeral_resource_config: $crate::ValidateConfigRequest => ::std::vec::Vec<$crate::Diagnostic>,
            open_ephemeral_resource: $crate::OpenEphemeralResourceRequest => $crate::OpenEphemeralResourceResponse,
            renew_ephemeral_resource: $crate::RenewEphemeralResourceRequest => $crate::RenewEphemeralResourceResponse,
            close_ephemeral_resource: $crate::CloseEphemeralResourceRequest => ::std::vec::Vec<$crate::Diagnostic>,
            move_resource_state: $crate::MoveResourceStateRequest => $crate::MoveResourceStateResponse,
            call_function: $crate::CallFunctionRequest => $crate::CallFunctionResponse,
            generate_resource_config: $crate::GenerateResourceConfigRequest => $crate::GenerateResourceConfigResponse,
            validate_list_resource_config: $crate::ValidateListResourceConfigRequest => ::std::vec::Vec<$crate::Diagnostic>,
            list_resource: $crate::ListResourceRequest => ::std::vec::Vec<$crate::Diagnostic>,
            validate_action_config: $crate::ValidateConfigRequest => ::std::vec::Vec<$crate::Diagnostic>,
            plan_action: $crate::PlanActionRequest => $crate::PlanActionResponse,
            invoke_action: $crate::InvokeActionRequest => ::std::vec::Vec<$crate::Diagnostic>,
            validate_state_store_config: $crate::ValidateConfigRequest => ::std::vec::Vec<$crate::Diagnostic>,
            configure_state_store: $crate::ConfigureStateStoreRequest => ::std::vec::Vec<$crate::Diagnostic>,
            read_state_bytes: $crate::ReadStateBytesRequest => $crate::ReadStateBytesResponse,
            write_state_bytes: $crate::WriteStateBytesRequest => ::std::vec::Vec<$crate::Diagnostic>,
            lock_state: $crate::LockStateRequest => $crate::LockStateResponse,
            unlock_state: $crate::UnlockStateRequest => ::std::vec::Vec<$crate::Diagnostic>,
            get_states: $crate::StateStoreRequest => $crate::GetStatesResponse,
            delete_state: $crate::StateStoreRequest => ::std::vec::Vec<$crate::Diagnostic>,
        }
    };
}
pub(crate) use with_handlers;

with_handlers!(erase);

/// The one provider type the server is compiled for. (`pub` for
/// [`Provider::__into_erased`]'s signature; its module is private.)
#[doc(hidden)]
pub struct Erased(Box<dyn DynProvider>);

impl Erased {
    /// Erases `provider`'s type: [`Provider::__into_erased`], which the framework
    /// overrides. The only generic step between a provider and the server.
    pub(crate) fn new<P: Provider>(provider: P) -> Self {
        provider.__into_erased()
    }

    /// `provider` behind the trait object, its handlers' futures boxed: what
    /// [`Provider::__into_erased`] does by default.
    pub(crate) fn of<P: Provider>(provider: P) -> Self {
        Erased(Box::new(provider))
    }
}

#[cfg(test)]
mod tests {
    /// Every method of [`Provider`](crate::Provider) is in the list `with_handlers!` gives
    /// `erase!` (and the framework's forwarding): a method left out would be answered by
    /// its default in the server, not by the provider's own implementation.
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
        assert!(methods.len() >= 19, "{methods:?}");
        let erased = include_str!("erased.rs");
        let list = &erased[erased.find("macro_rules! with_handlers").expect("the list")..];
        let list = &list[..list.find("\n}\n").expect("the list's end")];
        for m in methods {
            if m == "schemas" || m == "stop_provider" {
                continue; // Written out in the macro: they take no request.
            }
            if m == "__into_erased" || m == "__returns_planned_state" {
                continue; // Not handlers: how a provider becomes an `Erased`, and a fact
                          // of it (forwarded by hand).
            }
            assert!(
                list.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{m}: "))),
                "`{m}` is not in the list `erase!` and the framework forward"
            );
        }
    }
}
