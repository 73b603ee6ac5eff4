//! The framework's request paths for resources (read, plan, apply, import) and data
//! sources (read), with the models' types erased.
//!
//! What these requests do around the resource's handlers (the client, the [`Ctx`], the
//! time limits, the identity check, the answer and its error path) does not depend on
//! the resource: it is written once here, over [`ResourceOps`] and [`CtxOps`], and
//! compiled once, in this crate. What a provider's crate compiles for each resource is
//! only what its model type needs: decoding, encoding, its identity, and a call of each
//! handler (see `plugin/README.md`, "Build times").

use futures_util::future::BoxFuture;
use std::any::Any;
use tfvalue::DynamicValue;

use super::configured::Configured;
use super::convert::{self, Wire};
use super::{deadline, ensure_error, time_limit, timed_out, Ctx, Diagnostic, Resource, Result};
use super::{plan_step, PlanStep, Source};
use super::{Registered, TimeoutDefaults};
use crate::provider::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, Context, Deferred,
    ImportResourceStateRequest, ImportResourceStateResponse, ImportedResource,
    PlanResourceChangeRequest, PlanResourceChangeResponse, ReadDataSourceRequest,
    ReadDataSourceResponse, ReadResourceRequest, ReadResourceResponse,
};
use std::any::TypeId;
use std::sync::atomic::{AtomicBool, Ordering};
use tfvalue::schema::Planner;
use tfvalue::AttributePath;

/// A model whose type only the resource that decoded it knows.
pub(super) type AnyModel = Box<dyn Any + Send + Sync>;

/// What the erased paths need to know of a resource, none of it generic.
pub(super) struct Common<'a> {
    pub(super) wire: &'a Wire,
    pub(super) type_name: &'a str,
    pub(super) timeouts: &'a TimeoutDefaults,
    pub(super) configurable_timeouts: bool,
    pub(super) has_identity: bool,
    pub(super) planner: &'a Planner,
    /// Set once the resource's `modify_plan` is known to be the default.
    pub(super) default_hook: &'a AtomicBool,
    /// The resource's type (`R`), which the default `modify_plan` reports.
    pub(super) resource_type: TypeId,
    /// [`Resource::IMPORT_ID`].
    pub(super) import_id: &'static str,
}

/// A [`Ctx`] whose client type only the resource that made it knows: what the erased
/// paths do with it.
pub(super) trait CtxOps: Send + Sync {
    /// The `Ctx<C>` itself, for the resource's handlers.
    fn as_any(&self) -> &(dyn Any + Send + Sync);
    fn take_warnings(&self) -> Vec<Diagnostic>;
    fn take_private(&self) -> Vec<u8>;
    fn take_deferred(&self) -> Option<Deferred>;
    fn take_replace(&self) -> Vec<AttributePath>;
    fn take_renew_at(&self) -> Option<std::time::SystemTime>;
    fn release_config(&mut self);
    fn config_value(&self) -> &DynamicValue;
    fn ran_default_hook(&self, of: TypeId) -> bool;
    fn set_deadline(&self, at: std::time::Instant);
}

impl<C: Send + Sync + 'static> CtxOps for Ctx<C> {
    fn as_any(&self) -> &(dyn Any + Send + Sync) {
        self
    }
    fn take_warnings(&self) -> Vec<Diagnostic> {
        Ctx::take_warnings(self)
    }
    fn take_private(&self) -> Vec<u8> {
        Ctx::take_private(self)
    }
    fn take_deferred(&self) -> Option<Deferred> {
        Ctx::take_deferred(self)
    }
    fn take_replace(&self) -> Vec<AttributePath> {
        Ctx::take_replace(self)
    }
    fn take_renew_at(&self) -> Option<std::time::SystemTime> {
        Ctx::take_renew_at(self)
    }
    fn release_config(&mut self) {
        Ctx::release_config(self)
    }
    fn config_value(&self) -> &DynamicValue {
        Ctx::config_value(self)
    }
    fn ran_default_hook(&self, of: TypeId) -> bool {
        Ctx::ran_default_hook(self, of)
    }
    fn set_deadline(&self, at: std::time::Instant) {
        Ctx::set_deadline(self, at)
    }
}

/// The context of a request to the handler of `type_name`, boxed for the paths of this
/// module; the diagnostic of a provider not configured yet.
pub(super) fn boxed_ctx<C: Send + Sync + 'static>(
    client: &Configured<C>,
    stop: Context,
    type_name: &str,
    private: Vec<u8>,
) -> std::result::Result<Box<dyn CtxOps>, Diagnostic> {
    Ok(Box::new(Ctx::new(client.get()?, stop, type_name, private)))
}

/// What a handler's `result` comes to: its value, and the context's warnings followed by
/// the error's diagnostics (with an error among them).
pub(super) fn outcome<T>(cx: &dyn CtxOps, result: Result<T>) -> (Option<T>, Vec<Diagnostic>) {
    let mut diagnostics = cx.take_warnings();
    match result {
        Ok(v) => (Some(v), diagnostics),
        Err(e) => {
            diagnostics.extend(ensure_error(e));
            (None, diagnostics)
        }
    }
}

/// The `Ctx<C>` behind `cx`: made by the resource's own [`ResourceOps::new_ctx`], so the
/// other case is a bug, answered as an error.
pub(super) fn ctx<'a, C: Send + Sync + 'static>(
    cx: &'a dyn CtxOps,
    type_name: &str,
) -> Result<&'a Ctx<C>> {
    cx.as_any()
        .downcast_ref::<Ctx<C>>()
        .ok_or_else(|| wrong_type(type_name, "context"))
}

/// A resource's model type and handlers, behind models of erased type.
pub(super) trait ResourceOps: Send + Sync {
    fn common(&self) -> Common<'_>;
    /// The context of a request (with its configuration, where given), or the diagnostic
    /// of a provider not configured yet.
    fn new_ctx(
        &self,
        stop: Context,
        private: Vec<u8>,
        config: Option<DynamicValue>,
    ) -> std::result::Result<Box<dyn CtxOps>, Diagnostic>;
    /// The model of `dv`; `None` for null.
    fn decode_model(&self, dv: &DynamicValue, what: &str) -> Result<Option<AnyModel>>;
    /// `m` as a value of the resource's type (null for `None`), sized for about `like`
    /// bytes where given.
    fn encode_model(
        &self,
        m: Option<&AnyModel>,
        what: &str,
        like: Option<usize>,
    ) -> Result<DynamicValue>;
    /// The identity of `m`, where the resource has one and it is known.
    fn identity_of_model(&self, m: Option<&AnyModel>) -> Result<Option<DynamicValue>>;
    /// The model of a value [`plan_step`] leaves (`None`: null).
    fn model_from(&self, source: Source, what: &str) -> Result<Option<AnyModel>>;
    /// The id an import by identity names; `None` where the resource has no identity.
    fn import_id(&self, identity: &DynamicValue) -> Option<Result<String>>;
    fn modify_plan<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        prior: Option<&'a AnyModel>,
        planned: &'a mut AnyModel,
    ) -> BoxFuture<'a, Result<()>>;
    fn import<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        id: String,
    ) -> BoxFuture<'a, Result<Option<AnyModel>>>;
    fn create<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        planned: AnyModel,
    ) -> BoxFuture<'a, Result<AnyModel>>;
    fn update<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        prior: AnyModel,
        planned: AnyModel,
    ) -> BoxFuture<'a, Result<AnyModel>>;
    fn delete<'a>(&'a self, cx: &'a dyn CtxOps, state: AnyModel) -> BoxFuture<'a, Result<()>>;
    fn read<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        state: AnyModel,
    ) -> BoxFuture<'a, Result<Option<AnyModel>>>;
}

/// The model in `m`, of the type `R` decodes. Every [`AnyModel`] a resource's methods
/// get was decoded by that resource, so the other case is a bug, answered as an error.
fn model<M: 'static>(m: AnyModel, type_name: &str) -> Result<M> {
    match m.downcast::<M>() {
        Ok(m) => Ok(*m),
        Err(_) => Err(wrong_type(type_name, "model")),
    }
}

fn model_ref<'a, M: 'static>(m: &'a AnyModel, type_name: &str) -> Result<&'a M> {
    m.downcast_ref::<M>()
        .ok_or_else(|| wrong_type(type_name, "model"))
}

#[cold]
fn wrong_type(type_name: &str, what: &str) -> super::Diagnostics {
    Diagnostic::error(format!("`{type_name}`: a {what} of another type"))
        .with_detail(format!(
            "tfvalue-plugin handed a resource a {what} it did not make (a bug)."
        ))
        .into()
}

impl<C: Send + Sync + 'static, R: Resource<C>> ResourceOps for Registered<R, C> {
    fn common(&self) -> Common<'_> {
        Common {
            wire: &self.wire,
            type_name: &self.type_name,
            timeouts: &self.timeouts,
            configurable_timeouts: self.configurable_timeouts,
            has_identity: self.identity.is_some(),
            planner: &self.planner,
            default_hook: &self.default_hook,
            resource_type: TypeId::of::<R>(),
            import_id: R::IMPORT_ID,
        }
    }

    fn model_from(&self, source: Source, what: &str) -> Result<Option<AnyModel>> {
        Ok(self
            .model_of(source, what)?
            .map(|m| Box::new(m) as AnyModel))
    }

    fn import_id(&self, identity: &DynamicValue) -> Option<Result<String>> {
        self.identity.as_ref().map(|i| i.import_id(identity))
    }

    fn modify_plan<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        prior: Option<&'a AnyModel>,
        planned: &'a mut AnyModel,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let cx = ctx::<C>(cx, &self.type_name)?;
            let prior = prior
                .map(|m| model_ref::<R::Model>(m, &self.type_name))
                .transpose()?;
            let planned = planned
                .downcast_mut::<R::Model>()
                .ok_or_else(|| wrong_type(&self.type_name, "model"))?;
            self.resource.modify_plan(cx, prior, planned).await
        })
    }

    fn import<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        id: String,
    ) -> BoxFuture<'a, Result<Option<AnyModel>>> {
        Box::pin(async move {
            let cx = ctx::<C>(cx, &self.type_name)?;
            Ok(self
                .resource
                .import(cx, id)
                .await?
                .map(|m| Box::new(m) as AnyModel))
        })
    }

    fn new_ctx(
        &self,
        stop: Context,
        private: Vec<u8>,
        config: Option<DynamicValue>,
    ) -> std::result::Result<Box<dyn CtxOps>, Diagnostic> {
        let cx = Ctx::new(self.client.get()?, stop, &self.type_name, private);
        Ok(Box::new(match config {
            Some(config) => cx.with_config(config, &self.wire.ty),
            None => cx,
        }))
    }

    fn decode_model(&self, dv: &DynamicValue, what: &str) -> Result<Option<AnyModel>> {
        Ok(self.decode(dv, what)?.map(|m| Box::new(m) as AnyModel))
    }

    fn encode_model(
        &self,
        m: Option<&AnyModel>,
        what: &str,
        like: Option<usize>,
    ) -> Result<DynamicValue> {
        let m = m
            .map(|m| model_ref::<R::Model>(m, &self.type_name))
            .transpose()?;
        match like {
            Some(like) => self.encode_like(m, what, like),
            None => self.encode(m, what),
        }
    }

    fn identity_of_model(&self, m: Option<&AnyModel>) -> Result<Option<DynamicValue>> {
        match (&self.identity, m) {
            (Some(identity), Some(m)) => identity.of(model_ref::<R::Model>(m, &self.type_name)?),
            _ => Ok(None),
        }
    }

    fn create<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        planned: AnyModel,
    ) -> BoxFuture<'a, Result<AnyModel>> {
        Box::pin(async move {
            let cx = ctx::<C>(cx, &self.type_name)?;
            let planned = model::<R::Model>(planned, &self.type_name)?;
            Ok(Box::new(self.resource.create(cx, planned).await?) as AnyModel)
        })
    }

    fn update<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        prior: AnyModel,
        planned: AnyModel,
    ) -> BoxFuture<'a, Result<AnyModel>> {
        Box::pin(async move {
            let cx = ctx::<C>(cx, &self.type_name)?;
            let prior = model::<R::Model>(prior, &self.type_name)?;
            let planned = model::<R::Model>(planned, &self.type_name)?;
            Ok(Box::new(self.resource.update(cx, prior, planned).await?) as AnyModel)
        })
    }

    fn delete<'a>(&'a self, cx: &'a dyn CtxOps, state: AnyModel) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let cx = ctx::<C>(cx, &self.type_name)?;
            let state = model::<R::Model>(state, &self.type_name)?;
            self.resource.delete(cx, state).await
        })
    }

    fn read<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        state: AnyModel,
    ) -> BoxFuture<'a, Result<Option<AnyModel>>> {
        Box::pin(async move {
            let cx = ctx::<C>(cx, &self.type_name)?;
            let state = model::<R::Model>(state, &self.type_name)?;
            Ok(self
                .resource
                .read(cx, state)
                .await?
                .map(|m| Box::new(m) as AnyModel))
        })
    }
}

/// How long `op` may take: as the value (the plan, or the state for read and delete)
/// configures it in `timeouts`, else the resource's default.
fn limit_of(c: &Common<'_>, op: &str, value: &DynamicValue) -> Result<Option<std::time::Duration>> {
    time_limit(
        c.configurable_timeouts.then_some(&c.wire.ty),
        c.timeouts,
        op,
        value,
    )
}

/// Runs `handler` (operation `op`) within its time limit, if it has one: past it, the
/// handler is dropped (cancelled) and the error names the operation and the timeout.
async fn within_limit<T>(
    cx: &dyn CtxOps,
    type_name: &str,
    op: &str,
    limit: Option<std::time::Duration>,
    handler: BoxFuture<'_, Result<T>>,
) -> Result<T> {
    let Some((limit, deadline)) = limit.and_then(deadline) else {
        return handler.await;
    };
    cx.set_deadline(deadline);
    match tokio::time::timeout(limit, handler).await {
        Ok(r) => r,
        Err(_) => Err(timed_out(op, type_name, limit)),
    }
}

/// `ReadResource`. Boxed here, by a function that is not inlined: an `async fn`'s body
/// is compiled in each crate that polls its future, so a provider's crate polling this
/// one's would compile it again; through the box, it polls code compiled here.
#[inline(never)]
pub(super) fn read(
    ops: &dyn ResourceOps,
    req: ReadResourceRequest,
) -> BoxFuture<'_, ReadResourceResponse> {
    Box::pin(read_async(ops, req))
}

async fn read_async(ops: &dyn ResourceOps, req: ReadResourceRequest) -> ReadResourceResponse {
    let cx = match ops.new_ctx(req.ctx.clone(), req.private.clone(), None) {
        Ok(cx) => cx,
        Err(d) => return d.into(),
    };
    let cx = &*cx;
    let c = ops.common();
    let result = async {
        let Some(state) = ops.decode_model(&req.current_state, "the current state")? else {
            return Ok((convert::null(), None));
        };
        let limit = limit_of(&c, "read", &req.current_state)?;
        let found = within_limit(cx, c.type_name, "read", limit, ops.read(cx, state)).await?;
        let identity = ops.identity_of_model(found.as_ref())?;
        Ok((
            ops.encode_model(found.as_ref(), "the state read", None)?,
            identity,
        ))
    }
    .await;
    match outcome(cx, result) {
        (Some((new_state, new_identity)), diagnostics) => ReadResourceResponse {
            new_identity,
            deferred: cx.take_deferred(),
            new_state,
            private: cx.take_private(),
            diagnostics,
        },
        (None, diagnostics) => ReadResourceResponse {
            new_identity: req.current_identity,
            deferred: None,
            new_state: req.current_state,
            private: req.private,
            diagnostics,
        },
    }
}

/// `ApplyResourceChange`, boxed here as [`read`] is.
#[inline(never)]
pub(super) fn apply(
    ops: &dyn ResourceOps,
    req: ApplyResourceChangeRequest,
) -> BoxFuture<'_, ApplyResourceChangeResponse> {
    Box::pin(apply_async(ops, req))
}

async fn apply_async(
    ops: &dyn ResourceOps,
    mut req: ApplyResourceChangeRequest,
) -> ApplyResourceChangeResponse {
    let config = std::mem::take(&mut req.config);
    let mut cx = match ops.new_ctx(req.ctx.clone(), req.planned_private.clone(), Some(config)) {
        Ok(cx) => cx,
        Err(d) => {
            return ApplyResourceChangeResponse {
                new_identity: None,
                // Nothing happened: the prior state stays.
                new_state: req.prior_state,
                private: req.planned_private,
                diagnostics: vec![d],
            };
        }
    };
    let c = ops.common();
    let result = apply_inner(ops, &c, &mut *cx, &mut req).await;
    match outcome(&*cx, result) {
        (Some((new_state, new_identity)), diagnostics) => ApplyResourceChangeResponse {
            new_identity,
            new_state,
            private: cx.take_private(),
            diagnostics,
        },
        (None, diagnostics) => {
            // Nothing changed: the prior state stays (null after a failed create).
            let new_state = if req.prior_state.msgpack.is_empty() && req.prior_state.json.is_empty()
            {
                convert::null()
            } else {
                req.prior_state
            };
            ApplyResourceChangeResponse {
                new_identity: None,
                new_state,
                private: req.planned_private,
                diagnostics,
            }
        }
    }
}

async fn apply_inner(
    ops: &dyn ResourceOps,
    c: &Common<'_>,
    cx: &mut dyn CtxOps,
    req: &mut ApplyResourceChangeRequest,
) -> Result<(DynamicValue, Option<DynamicValue>)> {
    let like = convert::wire_len(&req.planned_state);
    let prior = ops.decode_model(&req.prior_state, "the prior state")?;
    let planned = ops.decode_model(&req.planned_state, "the planned state")?;
    // The planned model holds the plan: its bytes go before the handler runs (the prior
    // state's stay, as a failed apply answers with them).
    let mut limit = |op| -> Result<_> {
        let limit = limit_of(c, op, &req.planned_state)?;
        // The server checks the new state against these bytes once the handler has run:
        // handed back, not copied.
        let planned = std::mem::take(&mut req.planned_state);
        req.ctx.give_back_planned_state(planned.msgpack);
        Ok(limit)
    };
    let new = match (prior, planned) {
        (None, Some(planned)) => {
            let limit = limit("create")?;
            let cx = &*cx;
            Some(within_limit(cx, c.type_name, "create", limit, ops.create(cx, planned)).await?)
        }
        (Some(prior), Some(planned)) => {
            let limit = limit("update")?;
            let cx = &*cx;
            Some(
                within_limit(
                    cx,
                    c.type_name,
                    "update",
                    limit,
                    ops.update(cx, prior, planned),
                )
                .await?,
            )
        }
        (Some(prior), None) => {
            let limit = limit_of(c, "delete", &req.prior_state)?;
            let cx = &*cx;
            within_limit(cx, c.type_name, "delete", limit, ops.delete(cx, prior)).await?;
            None
        }
        (None, None) => None,
    };
    // Nothing reads the configuration once the handler has run.
    cx.release_config();
    let identity = ops.identity_of_model(new.as_ref())?;
    if new.is_some() && c.has_identity && identity.is_none() {
        return Err(
            Diagnostic::error("the identity of the new state is not known")
                .with_detail(format!(
                    "`{}` has an identity, and the state its create or update returned leaves \
                 it unknown.",
                    c.type_name
                ))
                .into(),
        );
    }
    Ok((
        ops.encode_model(new.as_ref(), "the new state", Some(like))?,
        identity,
    ))
}

/// `PlanResourceChange`, boxed here as [`read`] is.
#[inline(never)]
pub(super) fn plan(
    ops: &dyn ResourceOps,
    req: PlanResourceChangeRequest,
) -> BoxFuture<'_, PlanResourceChangeResponse> {
    Box::pin(plan_async(ops, req))
}

async fn plan_async(
    ops: &dyn ResourceOps,
    mut req: PlanResourceChangeRequest,
) -> PlanResourceChangeResponse {
    let private = std::mem::take(&mut req.prior_private);
    let config = std::mem::take(&mut req.config);
    let mut cx = match ops.new_ctx(req.ctx.clone(), private, Some(config)) {
        Ok(cx) => cx,
        Err(d) => return d.into(),
    };
    let c = ops.common();
    let result = plan_inner(ops, &c, &mut *cx, req).await;
    match outcome(&*cx, result) {
        (Some(mut resp), mut diagnostics) => {
            resp.planned_private = cx.take_private();
            resp.deferred = cx.take_deferred();
            diagnostics.append(&mut resp.diagnostics);
            resp.diagnostics = diagnostics;
            resp
        }
        (None, diagnostics) => diagnostics.into(),
    }
}

async fn plan_inner(
    ops: &dyn ResourceOps,
    c: &Common<'_>,
    cx: &mut dyn CtxOps,
    req: PlanResourceChangeRequest,
) -> Result<PlanResourceChangeResponse> {
    let like = convert::wire_len(&req.proposed_new_state);
    // Whether `modify_plan` is to be called: not where it is known to be the default,
    // which does nothing. The prior state's model is for it alone.
    let hook = !c.default_hook.load(Ordering::Relaxed);
    let step = plan_step(
        c.wire,
        c.planner,
        c.type_name,
        cx.config_value(),
        req,
        hook || c.has_identity,
    )?;
    let (mut planned, prior_model, replace) = match step {
        PlanStep::Answer {
            plan,
            requires_replace,
            check,
        } => {
            if check {
                // Nothing reads the configuration any more: its bytes go before the model
                // is built (for a large value, a third of what is held then).
                cx.release_config();
                // The model shows that the plan fits it (a computed field without
                // `Unknown` fails here, not at apply).
                drop(ops.decode_model(&plan, "the planned state")?);
            }
            let mut resp = PlanResourceChangeResponse::new(plan);
            resp.requires_replace = requires_replace;
            return Ok(resp);
        }
        PlanStep::Models {
            planned,
            prior,
            requires_replace,
        } => {
            // The prior state's model first (its value, where it has one, let go before
            // the planned model is built), and only for the hook.
            let prior = match prior {
                Some(prior) if hook => ops.model_from(prior, "the prior state")?,
                _ => None,
            };
            match ops.model_from(planned, "the planned state")? {
                Some(planned) => (planned, prior, requires_replace),
                // Destroy: the plan is null.
                None => return Ok(PlanResourceChangeResponse::new(convert::null())),
            }
        }
    };
    if hook {
        ops.modify_plan(&*cx, prior_model.as_ref(), &mut planned)
            .await?;
        if cx.ran_default_hook(c.resource_type) {
            c.default_hook.store(true, Ordering::Relaxed);
        }
    }
    // The hook was the last to read the configuration and the prior state's model: both
    // go before the plan is encoded (for a large create, the configuration's bytes were a
    // fifth of what was held then).
    drop(prior_model);
    cx.release_config();
    let mut resp = PlanResourceChangeResponse::new(ops.encode_model(
        Some(&planned),
        "the planned state",
        Some(like),
    )?);
    resp.planned_identity = ops.identity_of_model(Some(&planned))?;
    resp.requires_replace = replace;
    for p in cx.take_replace() {
        if !resp.requires_replace.contains(&p) {
            resp.requires_replace.push(p);
        }
    }
    Ok(resp)
}

/// `ImportResourceState`, boxed here as [`read`] is.
#[inline(never)]
pub(super) fn import(
    ops: &dyn ResourceOps,
    req: ImportResourceStateRequest,
) -> BoxFuture<'_, ImportResourceStateResponse> {
    Box::pin(import_async(ops, req))
}

async fn import_async(
    ops: &dyn ResourceOps,
    req: ImportResourceStateRequest,
) -> ImportResourceStateResponse {
    let cx = match ops.new_ctx(req.ctx.clone(), Vec::new(), None) {
        Ok(cx) => cx,
        Err(d) => return d.into(),
    };
    let cx = &*cx;
    let c = ops.common();
    let result = async {
        // By identity (`import { identity = {..} }`): the id it names.
        let id = match req.identity.as_ref().and_then(|i| ops.import_id(i)) {
            Some(id) => id?,
            None => req.id.clone(),
        };
        match ops.import(cx, id.clone()).await? {
            Some(m) => Ok((
                ops.encode_model(Some(&m), "the imported state", None)?,
                ops.identity_of_model(Some(&m))?,
            )),
            None => Err(Diagnostic::error("no such object")
                .with_detail(format!(
                    "There is no `{}` with {} `{}` to import.",
                    c.type_name, c.import_id, id
                ))
                .into()),
        }
    }
    .await;
    match outcome(cx, result) {
        (Some((state, identity)), diagnostics) => {
            let mut imported = ImportedResource::new(c.type_name, state);
            imported.private = cx.take_private();
            imported.identity = identity;
            ImportResourceStateResponse {
                deferred: cx.take_deferred(),
                imported_resources: vec![imported],
                diagnostics,
            }
        }
        (None, diagnostics) => diagnostics.into(),
    }
}

/// A data source's model type and handler, erased.
pub(super) trait DataOps: Send + Sync {
    fn wire(&self) -> &Wire;
    /// A request's context, or the diagnostic of a provider not configured yet.
    fn new_ctx(&self, stop: Context) -> std::result::Result<Box<dyn CtxOps>, Diagnostic>;
    /// Decodes the configuration, reads, and encodes the state read.
    fn read<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        config: &'a DynamicValue,
    ) -> BoxFuture<'a, Result<DynamicValue>>;
}

/// `ReadDataSource`, boxed here as [`read`] is.
#[inline(never)]
pub(super) fn read_data(
    ops: &dyn DataOps,
    req: ReadDataSourceRequest,
) -> BoxFuture<'_, ReadDataSourceResponse> {
    Box::pin(async move {
        let cx = match ops.new_ctx(req.ctx.clone()) {
            Ok(cx) => cx,
            Err(d) => return d.into(),
        };
        let result = ops.read(&*cx, &req.config).await;
        match outcome(&*cx, result) {
            (Some(state), diagnostics) => {
                let deferred = cx.take_deferred();
                let state = if deferred.is_some() {
                    // Read in a later run: not known now.
                    let unknown = tfvalue::Value::Unknown(Default::default());
                    DynamicValue::encode_value(&unknown, &ops.wire().ty).unwrap_or(state)
                } else {
                    state
                };
                ReadDataSourceResponse {
                    state,
                    diagnostics,
                    deferred,
                }
            }
            (None, diagnostics) => diagnostics.into(),
        }
    })
}
