#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

// The kv example, taken into the server's replay tests, names this crate.
#[cfg(test)]
extern crate self as tfvalue_plugin;

mod action;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
mod convert;
mod diagnostic;
pub mod framework;
mod function;
mod identity;
mod list;
mod provider;
mod server;
mod state_store;
pub mod testing;

/// The code generated from `proto/`; internal, never part of the API.
#[allow(
    missing_docs,
    dead_code,
    unreachable_pub,
    clippy::all,
    clippy::pedantic
)]
pub(crate) mod proto {
    pub(crate) mod tfplugin5 {
        tonic::include_proto!("tfplugin5");
    }
    pub(crate) mod tfplugin6 {
        tonic::include_proto!("tfplugin6");
    }
    pub(crate) mod plugin {
        tonic::include_proto!("plugin");
    }
}

pub use action::{
    ActionProgress, CollectedProgress, InvokeActionRequest, PlanActionRequest, PlanActionResponse,
    ProgressClosed,
};
pub use diagnostic::{has_errors, Diagnostic, Diagnostics, Severity};
pub use function::{CallFunctionRequest, CallFunctionResponse, Function, FunctionError, Parameter};
pub use identity::{
    same_version_identity, IdentityAttribute, IdentitySchema, UpgradeResourceIdentityRequest,
    UpgradeResourceIdentityResponse,
};
pub use list::{
    CollectedResults, ListClosed, ListResourceRequest, ListResult, ListResults,
    ValidateListResourceConfigRequest,
};
pub use server::DEFAULT_MAX_MESSAGE_SIZE;
pub use state_store::{
    ConfigureStateStoreRequest, GetStatesResponse, LockStateRequest, LockStateResponse,
    ReadStateBytesRequest, ReadStateBytesResponse, StateStoreRequest, UnlockStateRequest,
    WriteStateBytesRequest,
};

/// The server's handling of a request without gRPC (the checks, the handler, the checks
/// of its answer), for the crate's benchmarks. Not part of the API: it may change in
/// any release.
#[doc(hidden)]
pub mod __bench {
    use std::sync::Arc;

    use tfvalue::DynamicValue;

    use crate::server::core::Core;
    use crate::{ApplyResourceChangeResponse, PlanResourceChangeResponse, Provider};

    use crate::server::erased::Erased;

    /// A provider behind the server's request handling (its type erased, as
    /// [`serve`](crate::serve) erases it).
    pub struct InProcess(Arc<Core<Erased>>);

    impl InProcess {
        /// Serves `provider` in process.
        pub fn new<P: Provider>(provider: P) -> Self {
            InProcess(Arc::new(Core::new(Erased::new(provider))))
        }

        /// `PlanResourceChange` (prior state, proposed new state, configuration).
        pub async fn plan(
            &self,
            type_name: &str,
            values: [DynamicValue; 3],
            prior_private: Vec<u8>,
        ) -> PlanResourceChangeResponse {
            let [prior, proposed, config] = values;
            self.0
                .plan(
                    type_name.to_owned(),
                    prior,
                    proposed,
                    config,
                    prior_private,
                    DynamicValue::default(),
                    crate::ClientCapabilities::default(),
                    None,
                )
                .await
        }

        /// `ApplyResourceChange` (prior state, planned state, configuration).
        pub async fn apply(
            &self,
            type_name: &str,
            values: [DynamicValue; 3],
            planned_private: Vec<u8>,
        ) -> ApplyResourceChangeResponse {
            let [prior, planned, config] = values;
            self.0
                .apply(
                    type_name.to_owned(),
                    prior,
                    planned,
                    config,
                    planned_private,
                    DynamicValue::default(),
                    None,
                )
                .await
        }
    }
}
pub use provider::*;
pub use server::core::VALUE_LOG_ENV;
pub use server::{
    serve, serve_main, ServeConfig, ServeError, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE,
};
