//! What the server does around every handler, whichever major carried the request:
//! decode checks, value logging, panic capture, cancellation on stop, and the apply check
//! against the plan (refinements included).

use std::any::Any;
use std::collections::BTreeMap;
use std::future::Future;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use futures_util::FutureExt;
use tfvalue::schema::Schema;
use tfvalue::{DynamicValue, Type, Value};
use tokio::sync::watch;

use crate::diagnostic::{has_errors, Diagnostic};
use crate::provider::*;

/// The environment variable naming a file to which the server appends every
/// `DynamicValue` it receives, one JSON object per line: `rpc`, `field`, the `type` it
/// was decoded with (type JSON) and the `msgpack` bytes in hex.
pub const VALUE_LOG_ENV: &str = "TFVALUE_PLUGIN_VALUE_LOG";

/// The prefix of planned private data that carries the plan itself.
const PLAN_MAGIC: &[u8] = b"tfvalue-plugin/plan/1\n";

pub(crate) struct Core<P> {
    pub(crate) provider: Arc<P>,
    pub(crate) schemas: Schemas,
    resources: BTreeMap<String, (Arc<Schema>, Type)>,
    data_sources: BTreeMap<String, Type>,
    provider_type: Type,
    stop: watch::Sender<bool>,
    log: Option<Mutex<std::fs::File>>,
}

fn panic_message(p: &(dyn Any + Send)) -> String {
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

impl<P: Provider> Core<P> {
    pub(crate) fn new(provider: P) -> Self {
        let schemas = provider.schemas();
        let resources = schemas
            .resources
            .iter()
            .map(|(k, s)| (k.clone(), (Arc::new(s.clone()), s.implied_type())))
            .collect();
        let data_sources = schemas
            .data_sources
            .iter()
            .map(|(k, s)| (k.clone(), s.implied_type()))
            .collect();
        let provider_type = schemas.provider.implied_type();
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
            provider_type,
            stop: watch::channel(false).0,
            log,
        }
    }

    pub(crate) fn ctx(&self) -> Context {
        Context::new(self.stop.subscribe())
    }

    pub(crate) fn resource_type(&self, name: &str) -> Option<&Type> {
        self.resources.get(name).map(|(_, t)| t)
    }

    pub(crate) fn data_source_type(&self, name: &str) -> Option<&Type> {
        self.data_sources.get(name)
    }

    pub(crate) fn provider_type(&self) -> &Type {
        &self.provider_type
    }

    fn log_value(&self, rpc: &str, field: &str, dv: &DynamicValue, ty: &Type) {
        let Some(log) = &self.log else { return };
        let line = serde_json::json!({
            "rpc": rpc,
            "field": field,
            "type": ty,
            "msgpack": hex(&dv.msgpack),
            "json": String::from_utf8_lossy(&dv.json),
        });
        if let Ok(mut f) = log.lock() {
            let _ = writeln!(f, "{line}");
        }
    }

    /// Logs and decodes a value Terraform sent; a value that does not decode with its
    /// type is an error diagnostic at the attribute where decoding failed.
    fn check_input(
        &self,
        rpc: &str,
        field: &str,
        dv: &DynamicValue,
        ty: &Type,
    ) -> Result<Value, Diagnostic> {
        self.log_value(rpc, field, dv, ty);
        dv.decode_value(ty).map_err(|e| {
            Diagnostic::from_value_error(
                format!("{rpc}: the {field} sent by Terraform does not decode"),
                &e,
            )
        })
    }

    /// Runs a handler: a panic or a stop becomes an error diagnostic passed to `fail`.
    async fn guard<T>(
        &self,
        rpc: &str,
        fut: impl Future<Output = T>,
        fail: impl FnOnce(Diagnostic) -> T,
    ) -> T {
        let mut stop = self.stop.subscribe();
        tokio::select! {
            r = AssertUnwindSafe(fut).catch_unwind() => match r {
                Ok(v) => v,
                Err(p) => fail(
                    Diagnostic::error("the provider panicked")
                        .with_detail(format!("{rpc}: {}", panic_message(&*p))),
                ),
            },
            _ = stop.wait_for(|s| *s) => fail(
                Diagnostic::error("the operation was cancelled")
                    .with_detail(format!("{rpc}: Terraform asked the provider to stop")),
            ),
        }
    }

    fn unknown_type(kind: &str, name: &str) -> Diagnostic {
        Diagnostic::error(format!("unknown {kind} type"))
            .with_detail(format!("This provider has no {kind} type `{name}`."))
    }

    pub(crate) async fn validate_provider_config(&self, config: DynamicValue) -> Vec<Diagnostic> {
        const RPC: &str = "ValidateProviderConfig";
        if let Err(d) = self.check_input(RPC, "config", &config, &self.provider_type) {
            return vec![d];
        }
        let req = ValidateProviderConfigRequest {
            config,
            ctx: self.ctx(),
        };
        self.guard(RPC, self.provider.validate_provider_config(req), |d| {
            vec![d]
        })
        .await
    }

    pub(crate) async fn validate_config(
        &self,
        data: bool,
        type_name: String,
        config: DynamicValue,
    ) -> Vec<Diagnostic> {
        let (rpc, ty) = if data {
            (
                "ValidateDataResourceConfig",
                self.data_source_type(&type_name),
            )
        } else {
            ("ValidateResourceConfig", self.resource_type(&type_name))
        };
        let Some(ty) = ty else {
            return vec![Self::unknown_type(
                if data { "data source" } else { "resource" },
                &type_name,
            )];
        };
        if let Err(d) = self.check_input(rpc, "config", &config, ty) {
            return vec![d];
        }
        let req = ValidateConfigRequest {
            type_name,
            config,
            ctx: self.ctx(),
        };
        if data {
            self.guard(rpc, self.provider.validate_data_resource_config(req), |d| {
                vec![d]
            })
            .await
        } else {
            self.guard(rpc, self.provider.validate_resource_config(req), |d| {
                vec![d]
            })
            .await
        }
    }

    pub(crate) async fn configure(
        &self,
        terraform_version: String,
        config: DynamicValue,
    ) -> Vec<Diagnostic> {
        const RPC: &str = "ConfigureProvider";
        if let Err(d) = self.check_input(RPC, "config", &config, &self.provider_type) {
            return vec![d];
        }
        let req = ConfigureProviderRequest {
            terraform_version,
            config,
            ctx: self.ctx(),
        };
        self.guard(RPC, self.provider.configure_provider(req), |d| vec![d])
            .await
    }

    pub(crate) async fn upgrade(
        &self,
        type_name: String,
        version: i64,
        raw_state: tfvalue::codec::RawState,
    ) -> UpgradeResourceStateResponse {
        const RPC: &str = "UpgradeResourceState";
        let Some((schema, ty)) = self.resources.get(&type_name) else {
            return UpgradeResourceStateResponse::from_diagnostics(vec![Self::unknown_type(
                "resource", &type_name,
            )]);
        };
        let req = UpgradeResourceStateRequest {
            type_name,
            version,
            raw_state,
            schema: schema.clone(),
            ctx: self.ctx(),
        };
        let mut resp = self
            .guard(RPC, self.provider.upgrade_resource_state(req), |d| {
                UpgradeResourceStateResponse::from_diagnostics(vec![d])
            })
            .await;
        if !has_errors(&resp.diagnostics) {
            if let Err(e) = resp.upgraded_state.decode_value(ty) {
                resp.diagnostics.push(Diagnostic::from_value_error(
                    "the provider's upgraded state does not match its schema",
                    &e,
                ));
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
    ) -> ReadResourceResponse {
        const RPC: &str = "ReadResource";
        let Some(ty) = self.resource_type(&type_name) else {
            return ReadResourceResponse {
                diagnostics: vec![Self::unknown_type("resource", &type_name)],
                ..Default::default()
            };
        };
        if let Err(d) = self.check_input(RPC, "current_state", &current_state, ty) {
            return ReadResourceResponse {
                diagnostics: vec![d],
                ..Default::default()
            };
        }
        let req = ReadResourceRequest {
            type_name,
            current_state,
            private,
            provider_meta,
            ctx: self.ctx(),
        };
        self.guard(RPC, self.provider.read_resource(req), |d| {
            ReadResourceResponse {
                diagnostics: vec![d],
                ..Default::default()
            }
        })
        .await
    }

    pub(crate) async fn plan(
        &self,
        type_name: String,
        prior_state: DynamicValue,
        proposed_new_state: DynamicValue,
        config: DynamicValue,
        prior_private: Vec<u8>,
        provider_meta: DynamicValue,
    ) -> PlanResourceChangeResponse {
        const RPC: &str = "PlanResourceChange";
        let fail = |d| PlanResourceChangeResponse {
            diagnostics: vec![d],
            ..Default::default()
        };
        let Some(ty) = self.resource_type(&type_name) else {
            return fail(Self::unknown_type("resource", &type_name));
        };
        for (field, dv) in [
            ("prior_state", &prior_state),
            ("proposed_new_state", &proposed_new_state),
            ("config", &config),
        ] {
            if let Err(d) = self.check_input(RPC, field, dv, ty) {
                return fail(d);
            }
        }
        let req = PlanResourceChangeRequest {
            type_name,
            prior_state,
            proposed_new_state,
            config,
            prior_private,
            provider_meta,
            ctx: self.ctx(),
        };
        let mut resp = self
            .guard(RPC, self.provider.plan_resource_change(req), fail)
            .await;
        if has_errors(&resp.diagnostics) {
            return resp;
        }
        match resp.planned_state.decode_value(ty) {
            Err(e) => resp.diagnostics.push(Diagnostic::from_value_error(
                "the provider's planned state does not match its schema",
                &e,
            )),
            // Terraform before 1.6 drops refinements; keep the plan to check apply by.
            Ok(v) if has_refinements(&v) => {
                resp.planned_private =
                    wrap_plan(&resp.planned_state.msgpack, &resp.planned_private);
            }
            Ok(_) => {}
        }
        resp
    }

    pub(crate) async fn apply(
        &self,
        type_name: String,
        prior_state: DynamicValue,
        planned_state: DynamicValue,
        config: DynamicValue,
        planned_private: Vec<u8>,
        provider_meta: DynamicValue,
    ) -> ApplyResourceChangeResponse {
        const RPC: &str = "ApplyResourceChange";
        let fail = |d| ApplyResourceChangeResponse {
            diagnostics: vec![d],
            ..Default::default()
        };
        let Some((schema, ty)) = self.resources.get(&type_name) else {
            return fail(Self::unknown_type("resource", &type_name));
        };
        let mut inputs = Vec::with_capacity(3);
        for (field, dv) in [
            ("prior_state", &prior_state),
            ("planned_state", &planned_state),
            ("config", &config),
        ] {
            match self.check_input(RPC, field, dv, ty) {
                Ok(v) => inputs.push(v),
                Err(d) => return fail(d),
            }
        }
        let (kept_plan, planned_private) = unwrap_plan(planned_private);
        // The plan as the provider made it, refinements included, when it was kept.
        let mut planned = inputs.swap_remove(1);
        if let Some(bytes) = kept_plan {
            // A destroy (also the destroy half of a replacement, taint or `-replace`)
            // has a null planned state, while the private data Terraform passes may
            // still hold the plan of the object's creation: that plan is not this one.
            if !planned.is_null() {
                if let Ok(v) = Value::from_msgpack(&bytes, ty) {
                    planned = v;
                }
            }
        }
        let req = ApplyResourceChangeRequest {
            type_name: type_name.clone(),
            prior_state,
            planned_state,
            config,
            planned_private,
            provider_meta,
            ctx: self.ctx(),
        };
        let mut resp = self
            .guard(RPC, self.provider.apply_resource_change(req), fail)
            .await;
        if has_errors(&resp.diagnostics) {
            return resp;
        }
        match resp.new_state.decode_value(ty) {
            Err(e) => resp.diagnostics.push(Diagnostic::from_value_error(
                "the provider's new state does not match its schema",
                &e,
            )),
            Ok(new) => {
                if !planned.is_null() {
                    for p in schema.block.check_apply(&planned, &new).iter() {
                        resp.diagnostics.push(
                            Diagnostic::error("Provider produced inconsistent result after apply")
                                .with_detail(format!(
                                    "When applying changes to `{type_name}`, the provider produced a new state that breaks its plan: {} at {}. This is a bug in the provider.",
                                    p.detail, p.path()
                                ))
                                .at(p.path().clone()),
                        );
                    }
                }
            }
        }
        resp
    }

    pub(crate) async fn import(
        &self,
        type_name: String,
        id: String,
    ) -> ImportResourceStateResponse {
        const RPC: &str = "ImportResourceState";
        let fail = |d| ImportResourceStateResponse {
            diagnostics: vec![d],
            ..Default::default()
        };
        if self.resource_type(&type_name).is_none() {
            return fail(Self::unknown_type("resource", &type_name));
        }
        let req = ImportResourceStateRequest {
            type_name,
            id,
            ctx: self.ctx(),
        };
        let mut resp = self
            .guard(RPC, self.provider.import_resource_state(req), fail)
            .await;
        for r in &resp.imported_resources {
            let Some(ty) = self.resource_type(&r.type_name) else {
                resp.diagnostics
                    .push(Self::unknown_type("resource", &r.type_name));
                continue;
            };
            if let Err(e) = r.state.decode_value(ty) {
                resp.diagnostics.push(Diagnostic::from_value_error(
                    "the provider's imported state does not match its schema",
                    &e,
                ));
            }
        }
        resp
    }

    pub(crate) async fn read_data(
        &self,
        type_name: String,
        config: DynamicValue,
        provider_meta: DynamicValue,
    ) -> ReadDataSourceResponse {
        const RPC: &str = "ReadDataSource";
        let fail = |d| ReadDataSourceResponse {
            diagnostics: vec![d],
            ..Default::default()
        };
        let Some(ty) = self.data_source_type(&type_name) else {
            return fail(Self::unknown_type("data source", &type_name));
        };
        if let Err(d) = self.check_input(RPC, "config", &config, ty) {
            return fail(d);
        }
        let req = ReadDataSourceRequest {
            type_name,
            config,
            provider_meta,
            ctx: self.ctx(),
        };
        let mut resp = self
            .guard(RPC, self.provider.read_data_source(req), fail)
            .await;
        if !has_errors(&resp.diagnostics) {
            if let Err(e) = resp.state.decode_value(ty) {
                resp.diagnostics.push(Diagnostic::from_value_error(
                    "the provider's data source state does not match its schema",
                    &e,
                ));
            }
        }
        resp
    }

    /// Cancels the work in flight, then lets the provider clean up.
    pub(crate) async fn stop(&self) -> String {
        self.stop.send_replace(true);
        match AssertUnwindSafe(self.provider.stop_provider())
            .catch_unwind()
            .await
        {
            Ok(Ok(())) => String::new(),
            Ok(Err(e)) => e,
            Err(p) => format!(
                "the provider panicked while stopping: {}",
                panic_message(&*p)
            ),
        }
    }
}

/// Whether any unknown in `v` carries refinements.
fn has_refinements(v: &Value) -> bool {
    let mut found = false;
    v.walk(&mut |_, v| {
        if v.as_unknown().is_some_and(|r| !r.is_empty()) {
            found = true;
        }
    });
    found
}

/// Planned private data that also carries the plan's bytes.
pub(crate) fn wrap_plan(planned: &[u8], private: &[u8]) -> Vec<u8> {
    let len = u32::try_from(planned.len()).unwrap_or(u32::MAX);
    if len == u32::MAX {
        // Too large to keep; the check then uses what Terraform sends back.
        return private.to_vec();
    }
    let mut out = Vec::with_capacity(PLAN_MAGIC.len() + 4 + planned.len() + private.len());
    out.extend_from_slice(PLAN_MAGIC);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(planned);
    out.extend_from_slice(private);
    out
}

/// The kept plan, if any, and the provider's own private data.
pub(crate) fn unwrap_plan(data: Vec<u8>) -> (Option<Vec<u8>>, Vec<u8>) {
    let Some(rest) = data.strip_prefix(PLAN_MAGIC) else {
        return (None, data);
    };
    let (Some(&a), Some(&b), Some(&c), Some(&d)) =
        (rest.first(), rest.get(1), rest.get(2), rest.get(3))
    else {
        return (None, data);
    };
    let rest = rest.get(4..).unwrap_or_default();
    let len = u32::from_be_bytes([a, b, c, d]) as usize;
    if len > rest.len() {
        return (None, data);
    }
    let (plan, private) = rest.split_at(len);
    (Some(plan.to_vec()), private.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_wrap_and_unwrap() {
        let w = wrap_plan(b"\xd4\x00\x00", b"mine");
        assert_eq!(
            unwrap_plan(w),
            (Some(b"\xd4\x00\x00".to_vec()), b"mine".to_vec())
        );
        // Private data that is not ours passes through, even if it starts like ours.
        assert_eq!(unwrap_plan(b"abc".to_vec()), (None, b"abc".to_vec()));
        let mut bad = PLAN_MAGIC.to_vec();
        bad.extend_from_slice(&[0, 0, 0, 9, 1]);
        assert_eq!(unwrap_plan(bad.clone()), (None, bad));
    }
}
