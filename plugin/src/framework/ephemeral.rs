//! Ephemeral resources (Terraform 1.10+; terraform-plugin-framework's
//! `ephemeral.EphemeralResource`): values opened for one run, never stored.

use std::future::Future;

use futures_util::future::BoxFuture;
use tfvalue::schema::Schema;
use tfvalue::{DynamicValue, Refinements, TfModel as _, Value};

use super::configured::Configured;
use super::convert::{self, Wire};
use super::erased::{self, CtxOps};
use super::{Ctx, Model, Result};
use crate::diagnostic::Diagnostic;
use crate::provider::{
    CloseEphemeralResourceRequest, OpenEphemeralResourceRequest, OpenEphemeralResourceResponse,
    RenewEphemeralResourceRequest, RenewEphemeralResourceResponse,
};

/// An ephemeral resource type (`ephemeral "kv_lease" "x" { .. }`, Terraform 1.10+): a
/// value made for one run, a token, a lease or a secret read, which Terraform keeps in
/// memory and never writes to a plan or a state. It can feed a provider block, a
/// write-only attribute, another ephemeral resource, a provisioner or an ephemeral
/// output or variable; Terraform refuses it anywhere else.
///
/// Terraform opens it (with a wholly known configuration: while the configuration holds
/// unknowns, the result is unknown and nothing is opened) in each plan and apply that
/// needs it, may [`renew`](EphemeralResource::renew) it when a time set with
/// [`Ctx::set_renew_at`] comes while it is still in use, and
/// [`close`](EphemeralResource::close)s it when nothing left needs it. What `open`
/// stores with [`Ctx::set_private`] reaches `renew` and `close` through
/// [`Ctx::private`] (Terraform 1.10 and 1.11 give `close` the bytes of the open, not
/// of a renew).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::{TfValue, Unknown};
/// use tfvalue_plugin::framework::{Ctx, EphemeralResource, Result};
///
/// /// A token, issued for one run.
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct Token {
///     /// Who the token is for.
///     subject: Unknown<String>,
///     #[tfvalue(computed, sensitive)]
///     token: Unknown<Option<String>>,
/// }
///
/// struct Tokens;
///
/// impl EphemeralResource for Tokens {
///     type Model = Token;
///
///     async fn open(&self, cx: &Ctx, mut t: Token) -> Result<Token> {
///         let subject = t.subject.known().cloned().unwrap_or_default();
///         t.token = Some(format!("tok-{subject}")).into();
///         cx.set_private(subject.into_bytes());
///         Ok(t)
///     }
///
///     async fn close(&self, cx: &Ctx) -> Result<()> {
///         let _subject = String::from_utf8_lossy(&cx.private()).into_owned();
///         // Revoke the token here.
///         Ok(())
///     }
/// }
/// ```
pub trait EphemeralResource<C = ()>: Send + Sync + 'static
where
    C: Send + Sync + 'static,
{
    /// The model of the configuration and the result (its computed attributes).
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

    /// Opens it: `config` (wholly known) with its computed attributes set. Set
    /// [`Ctx::set_private`] for `renew` and `close`, [`Ctx::set_renew_at`] to be
    /// renewed.
    ///
    /// # Errors
    ///
    /// It could not be opened; the plan or apply fails.
    fn open(
        &self,
        cx: &Ctx<C>,
        config: Self::Model,
    ) -> impl Future<Output = Result<Self::Model>> + Send;

    /// Renews it, when the time set with [`Ctx::set_renew_at`] has come and Terraform
    /// still uses it; [`Ctx::private`] is what `open` (or the renew before) stored. Set
    /// [`Ctx::set_renew_at`] again to be renewed again. By default, nothing to do.
    ///
    /// # Errors
    ///
    /// It could not be renewed: Terraform stops renewing it and reports the error.
    fn renew(&self, cx: &Ctx<C>) -> impl Future<Output = Result<()>> + Send {
        let _ = cx;
        async { Ok(()) }
    }

    /// Closes it (ends the lease, revokes the token) when Terraform is done with it;
    /// [`Ctx::private`] is what `open` stored. By default, nothing to do.
    ///
    /// # Errors
    ///
    /// It could not be closed.
    fn close(&self, cx: &Ctx<C>) -> impl Future<Output = Result<()>> + Send {
        let _ = cx;
        async { Ok(()) }
    }
}

/// An [`EphemeralResource`] with its type parameters erased.
pub(super) trait AnyEphemeral: Send + Sync {
    fn wire(&self) -> &Wire;
    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic>;
    fn open(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> BoxFuture<'_, OpenEphemeralResourceResponse>;
    fn renew(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> BoxFuture<'_, RenewEphemeralResourceResponse>;
    fn close(&self, req: CloseEphemeralResourceRequest) -> BoxFuture<'_, Vec<Diagnostic>>;
}

pub(super) struct Registered<E, C> {
    ephemeral: E,
    wire: Wire,
    type_name: String,
    client: Configured<C>,
}

impl<E, C> Registered<E, C>
where
    C: Send + Sync + 'static,
    E: EphemeralResource<C>,
{
    pub(super) fn new(ephemeral: E, type_name: &str, client: Configured<C>) -> Self {
        Registered {
            wire: Wire::new::<E::Model>(ephemeral.schema()),
            ephemeral,
            type_name: type_name.to_owned(),
            client,
        }
    }
}

impl<C: Send + Sync + 'static, E: EphemeralResource<C>> AnyEphemeral for Registered<E, C> {
    fn wire(&self) -> &Wire {
        &self.wire
    }

    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic> {
        match convert::decode::<E::Model>(config, &self.wire, "the configuration", &self.type_name)
        {
            Ok(Some(m)) => self
                .ephemeral
                .validate(&m)
                .err()
                .map(Vec::from)
                .unwrap_or_default(),
            Ok(None) => Vec::new(),
            Err(d) => d.into(),
        }
    }

    fn open(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> BoxFuture<'_, OpenEphemeralResourceResponse> {
        open(self, req)
    }

    fn renew(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> BoxFuture<'_, RenewEphemeralResourceResponse> {
        renew(self, req)
    }

    fn close(&self, req: CloseEphemeralResourceRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
        close(self, req)
    }
}

/// An ephemeral resource's model type and handlers, erased: the requests' paths around
/// them are compiled here once (see `super::erased`).
trait EphemeralOps: Send + Sync {
    fn wire(&self) -> &Wire;
    /// A request's context, or the diagnostic of a provider not configured yet.
    fn new_ctx(
        &self,
        stop: crate::Context,
        private: Vec<u8>,
    ) -> Result<Box<dyn CtxOps>, Diagnostic>;
    /// Decodes the configuration, opens, and encodes the result.
    fn open<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        config: &'a DynamicValue,
    ) -> BoxFuture<'a, Result<DynamicValue>>;
    fn renew<'a>(&'a self, cx: &'a dyn CtxOps) -> BoxFuture<'a, Result<()>>;
    fn close<'a>(&'a self, cx: &'a dyn CtxOps) -> BoxFuture<'a, Result<()>>;
}

impl<C: Send + Sync + 'static, E: EphemeralResource<C>> EphemeralOps for Registered<E, C> {
    fn wire(&self) -> &Wire {
        &self.wire
    }

    fn new_ctx(
        &self,
        stop: crate::Context,
        private: Vec<u8>,
    ) -> Result<Box<dyn CtxOps>, Diagnostic> {
        erased::boxed_ctx(&self.client, stop, &self.type_name, private)
    }

    fn open<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        config: &'a DynamicValue,
    ) -> BoxFuture<'a, Result<DynamicValue>> {
        Box::pin(async move {
            let cx = erased::ctx::<C>(cx, &self.type_name)?;
            let config = convert::decode_present::<E::Model>(
                config,
                &self.wire,
                "the configuration",
                &self.type_name,
                "the ephemeral resource's configuration is null",
            )?;
            let opened = self.ephemeral.open(cx, config).await?;
            convert::encode(Some(&opened), &self.wire, "the result", &self.type_name)
        })
    }

    fn renew<'a>(&'a self, cx: &'a dyn CtxOps) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let cx = erased::ctx::<C>(cx, &self.type_name)?;
            self.ephemeral.renew(cx).await
        })
    }

    fn close<'a>(&'a self, cx: &'a dyn CtxOps) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let cx = erased::ctx::<C>(cx, &self.type_name)?;
            self.ephemeral.close(cx).await
        })
    }
}

// Each request boxed by a function that is not inlined (see `super::erased::read`).

#[inline(never)]
fn open(
    ops: &dyn EphemeralOps,
    req: OpenEphemeralResourceRequest,
) -> BoxFuture<'_, OpenEphemeralResourceResponse> {
    Box::pin(async move {
        let cx = match ops.new_ctx(req.ctx.clone(), Vec::new()) {
            Ok(cx) => cx,
            Err(d) => return d.into(),
        };
        let result = ops.open(&*cx, &req.config).await;
        match erased::outcome(&*cx, result) {
            (Some(result), diagnostics) => {
                let deferred = cx.take_deferred();
                let result = if deferred.is_some() {
                    let unknown = Value::Unknown(Refinements::default());
                    DynamicValue::encode_value(&unknown, &ops.wire().ty).unwrap_or_default()
                } else {
                    result
                };
                let mut resp = OpenEphemeralResourceResponse::new(result);
                resp.private = cx.take_private();
                resp.renew_at = cx.take_renew_at();
                resp.deferred = deferred;
                resp.diagnostics = diagnostics;
                resp
            }
            (None, diagnostics) => diagnostics.into(),
        }
    })
}

#[inline(never)]
fn renew(
    ops: &dyn EphemeralOps,
    req: RenewEphemeralResourceRequest,
) -> BoxFuture<'_, RenewEphemeralResourceResponse> {
    Box::pin(async move {
        let cx = match ops.new_ctx(req.ctx.clone(), req.private) {
            Ok(cx) => cx,
            Err(d) => return d.into(),
        };
        let result = ops.renew(&*cx).await;
        match erased::outcome(&*cx, result) {
            (Some(()), diagnostics) => {
                let mut resp = RenewEphemeralResourceResponse::from(diagnostics);
                resp.private = cx.take_private();
                resp.renew_at = cx.take_renew_at();
                resp
            }
            (None, diagnostics) => diagnostics.into(),
        }
    })
}

#[inline(never)]
fn close(
    ops: &dyn EphemeralOps,
    req: CloseEphemeralResourceRequest,
) -> BoxFuture<'_, Vec<Diagnostic>> {
    Box::pin(async move {
        let cx = match ops.new_ctx(req.ctx.clone(), req.private) {
            Ok(cx) => cx,
            Err(d) => return vec![d],
        };
        let result = ops.close(&*cx).await;
        erased::outcome(&*cx, result).1
    })
}
