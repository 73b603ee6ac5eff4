//! tfvalue-plugin's side: the model, the handler and the provider of
//! `plugin/benches/requests.rs` (the same file, `benches/support/requests_model.rs`),
//! and what the measurement calls of them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tfvalue::{DynamicValue, TfModel, TfValue, Unknown};
use tfvalue_plugin::__bench::InProcess;
use tfvalue_plugin::*;

include!("../../benches/support/requests_model.rs");

/// The server's in-process request handling (input checks, handler, output checks) of
/// the bench provider.
pub fn in_process() -> InProcess {
    InProcess::new(Bench)
}

/// The configuration of an instance with `tags` tags and `rules` rules, encoded as the
/// bench encodes it.
pub fn configuration(tags: usize, rules: usize) -> DynamicValue {
    dv(&config(tags, rules))
}

/// The handler alone (no server): PlanResourceChange.
pub fn handler_plan(
    [prior, proposed, config]: [DynamicValue; 3],
) -> Result<PlanResourceChangeResponse, Diagnostic> {
    let req = PlanResourceChangeRequest::new(crate::TYPE_NAME, prior, proposed, config);
    Bench::plan(&req)
}

/// The handler alone (no server): ApplyResourceChange.
pub fn handler_apply(
    [prior, planned, config]: [DynamicValue; 3],
) -> Result<ApplyResourceChangeResponse, Diagnostic> {
    let req = ApplyResourceChangeRequest::new(crate::TYPE_NAME, prior, planned, config);
    Bench::apply(&req)
}

/// The schema's type of the resource (to check that an answer conforms).
pub fn schema_type() -> tfvalue::Type {
    Instance::schema().implied_type()
}

/// Serves the bench provider as a process (`serve_main`: go-plugin handshake, plaintext
/// without `PLUGIN_CLIENT_CERT`, AutoMTLS with it).
pub fn serve_process() {
    serve_main(Bench, ServeConfig::new("example.com/bench/bench"));
}

/// The same resource on the framework level (`tfvalue_plugin::framework`): the framework
/// plans from the model's schema; create sets what the protocol-level handler sets.
struct FrameworkInstance;

impl framework::Resource for FrameworkInstance {
    type Model = Instance;

    async fn create(&self, _cx: &framework::Ctx, mut new: Instance) -> framework::Result<Instance> {
        new.id = Unknown::Known(Some("i-0123456789".to_owned()));
        new.arn = Unknown::Known(Some(
            "arn:aws:ec2:eu-west-1:123:instance/i-0123456789".to_owned(),
        ));
        new.created_at = Unknown::Known(Some("2026-12-01T12:00:00Z".to_owned()));
        Ok(new)
    }

    async fn read(
        &self,
        _cx: &framework::Ctx,
        state: Instance,
    ) -> framework::Result<Option<Instance>> {
        Ok(Some(state))
    }

    async fn update(
        &self,
        _cx: &framework::Ctx,
        _prior: Instance,
        planned: Instance,
    ) -> framework::Result<Instance> {
        Ok(planned)
    }

    async fn delete(&self, _cx: &framework::Ctx, _state: Instance) -> framework::Result<()> {
        Ok(())
    }
}

/// The framework's version of the bench provider behind the server's request handling.
pub fn framework_in_process() -> InProcess {
    InProcess::new(framework::Framework::new().resource(crate::TYPE_NAME, FrameworkInstance))
}
