//! Actions in the framework (Terraform 1.14+ `action` blocks; terraform-plugin-framework's
//! `action.Action`).

use std::future::Future;

use futures_util::future::BoxFuture;
use tfvalue::schema::Schema;
use tfvalue::{DynamicValue, TfModel as _};

use super::configured::Configured;
use super::convert::{self, Wire};
use super::erased::{self, CtxOps};
use super::{Ctx, Model, Result};
use crate::action::{ActionProgress, InvokeActionRequest, PlanActionRequest, PlanActionResponse};
use crate::diagnostic::Diagnostic;

/// An action type (`action "kv_compact" "now" { .. }`, Terraform 1.14+): something done
/// once, invoked by a resource's `lifecycle { action_trigger { .. } }` or by `terraform
/// apply -invoke=action.kv_compact.now`. It has a configuration (its model) and no
/// state.
///
/// Terraform validates the block, [`plan`](Action::plan)s it (the configuration may
/// hold unknowns then), and on apply [`invoke`](Action::invoke)s it with the
/// configuration wholly known; every progress message sent shows at once in
/// Terraform's output.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::{TfValue, Unknown};
/// use tfvalue_plugin::framework::*;
/// use tfvalue_plugin::ActionProgress;
///
/// /// Restarts a service.
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct Restart {
///     service: Unknown<String>,
/// }
///
/// struct RestartAction;
///
/// impl Action for RestartAction {
///     type Model = Restart;
///
///     async fn invoke(&self, _cx: &Ctx, r: Restart, progress: &ActionProgress) -> Result<()> {
///         let service = r.service.into_known().unwrap_or_default();
///         let _ = progress.send(format!("stopping {service}")).await;
///         let _ = progress.send(format!("starting {service}")).await;
///         Ok(())
///     }
/// }
///
/// let provider = Framework::new().action("svc_restart", RestartAction);
/// # let _ = provider;
/// ```
pub trait Action<C = ()>: Send + Sync + 'static
where
    C: Send + Sync + 'static,
{
    /// The model of the action's configuration.
    type Model: Model;

    /// The schema; by default the model's.
    fn schema(&self) -> Schema {
        Self::Model::schema()
    }

    /// Checks a configuration beyond what the schema says; it may hold unknowns.
    ///
    /// # Errors
    ///
    /// What is wrong with the configuration.
    fn validate(&self, config: &Self::Model) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Checks, at plan time, that the action can run (the configuration may hold
    /// unknowns). By default, nothing to check.
    ///
    /// # Errors
    ///
    /// The action cannot run: the plan fails.
    fn plan(&self, cx: &Ctx<C>, config: &Self::Model) -> impl Future<Output = Result<()>> + Send {
        let _ = (cx, config);
        async { Ok(()) }
    }

    /// Does it: `config` is wholly known. Send progress through `progress` (a message
    /// that cannot be sent means Terraform is gone; [`Ctx::is_stopped`] says whether
    /// it asked the action to stop).
    ///
    /// # Errors
    ///
    /// The action failed; Terraform shows the error and the apply fails.
    fn invoke(
        &self,
        cx: &Ctx<C>,
        config: Self::Model,
        progress: &ActionProgress,
    ) -> impl Future<Output = Result<()>> + Send;
}

/// An [`Action`] with its type parameters erased.
pub(super) trait AnyAction: Send + Sync {
    fn wire(&self) -> &Wire;
    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic>;
    fn plan(&self, req: PlanActionRequest) -> BoxFuture<'_, PlanActionResponse>;
    fn invoke(&self, req: InvokeActionRequest) -> BoxFuture<'_, Vec<Diagnostic>>;
}

pub(super) struct Registered<A, C> {
    action: A,
    wire: Wire,
    type_name: String,
    client: Configured<C>,
}

impl<A, C> Registered<A, C>
where
    C: Send + Sync + 'static,
    A: Action<C>,
{
    pub(super) fn new(action: A, type_name: &str, client: Configured<C>) -> Self {
        Registered {
            wire: Wire::new::<A::Model>(action.schema()),
            action,
            type_name: type_name.to_owned(),
            client,
        }
    }
}

impl<C: Send + Sync + 'static, A: Action<C>> AnyAction for Registered<A, C> {
    fn wire(&self) -> &Wire {
        &self.wire
    }

    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic> {
        match convert::decode::<A::Model>(config, &self.wire, "the configuration", &self.type_name)
        {
            Ok(Some(m)) => self
                .action
                .validate(&m)
                .err()
                .map(Vec::from)
                .unwrap_or_default(),
            Ok(None) => Vec::new(),
            Err(d) => d.into(),
        }
    }

    fn plan(&self, req: PlanActionRequest) -> BoxFuture<'_, PlanActionResponse> {
        plan(self, req)
    }

    fn invoke(&self, req: InvokeActionRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
        invoke(self, req)
    }
}

/// An action's model type and handlers, erased: the requests' paths around them are
/// compiled here once (see `super::erased`).
trait ActionOps: Send + Sync {
    /// A request's context, or the diagnostic of a provider not configured yet.
    fn new_ctx(&self, stop: crate::Context) -> Result<Box<dyn CtxOps>, Diagnostic>;
    /// Decodes the configuration and plans (nothing to do for a null one).
    fn plan<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        config: &'a DynamicValue,
    ) -> BoxFuture<'a, Result<()>>;
    /// Decodes the configuration and invokes.
    fn invoke<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        config: &'a DynamicValue,
        progress: &'a ActionProgress,
    ) -> BoxFuture<'a, Result<()>>;
}

impl<C: Send + Sync + 'static, A: Action<C>> ActionOps for Registered<A, C> {
    fn new_ctx(&self, stop: crate::Context) -> Result<Box<dyn CtxOps>, Diagnostic> {
        erased::boxed_ctx(&self.client, stop, &self.type_name, Vec::new())
    }

    fn plan<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        config: &'a DynamicValue,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let cx = erased::ctx::<C>(cx, &self.type_name)?;
            let what = "the configuration";
            match convert::decode::<A::Model>(config, &self.wire, what, &self.type_name)? {
                Some(config) => self.action.plan(cx, &config).await,
                None => Ok(()),
            }
        })
    }

    fn invoke<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        config: &'a DynamicValue,
        progress: &'a ActionProgress,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let cx = erased::ctx::<C>(cx, &self.type_name)?;
            let config = convert::decode_present::<A::Model>(
                config,
                &self.wire,
                "the configuration",
                &self.type_name,
                "the action's configuration is null",
            )?;
            self.action.invoke(cx, config, progress).await
        })
    }
}

// Each request boxed by a function that is not inlined (see `super::erased::read`).

#[inline(never)]
fn plan(ops: &dyn ActionOps, req: PlanActionRequest) -> BoxFuture<'_, PlanActionResponse> {
    Box::pin(async move {
        let cx = match ops.new_ctx(req.ctx.clone()) {
            Ok(cx) => cx,
            Err(d) => return d.into(),
        };
        let result = ops.plan(&*cx, &req.config).await;
        let (_, diagnostics) = erased::outcome(&*cx, result);
        let mut resp = PlanActionResponse::from(diagnostics);
        resp.deferred = cx.take_deferred();
        resp
    })
}

#[inline(never)]
fn invoke(ops: &dyn ActionOps, req: InvokeActionRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
    Box::pin(async move {
        let cx = match ops.new_ctx(req.ctx.clone()) {
            Ok(cx) => cx,
            Err(d) => return vec![d],
        };
        let result = ops.invoke(&*cx, &req.config, &req.progress).await;
        erased::outcome(&*cx, result).1
    })
}
