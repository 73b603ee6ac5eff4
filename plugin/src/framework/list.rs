//! List resources in the framework (Terraform 1.14+ `list` blocks, `terraform query`;
//! terraform-plugin-framework's `list.ListResource`).

use std::any::Any;
use std::future::Future;

use futures_util::future::BoxFuture;
use tfvalue::schema::Schema;
use tfvalue::{DynamicValue, TfModel as _};

use super::configured::Configured;
use super::convert::{self, Wire};
use super::erased::{self, CtxOps};
use super::{Ctx, Model, Resource, ResourceIdentity, Result};
use crate::diagnostic::Diagnostic;
use crate::list::{
    ListResourceRequest, ListResult, ListResults, ValidateListResourceConfigRequest,
};

/// A list resource (`list "kv_entry" "all" { config { prefix = "app/" } }` in a
/// `.tfquery.hcl` file, run by `terraform query`, Terraform 1.14+): finds the existing
/// objects of a managed resource type that a filter selects, so that Terraform can
/// show them, import them, or write their configuration (`-generate-config-out`).
///
/// It lists objects of [`Resource`](ListResource::Resource), registered under the same
/// type name, whose [`identity`](Resource::identity) it must have: the framework makes
/// each result's identity from the model with it, and sends the model itself as the
/// object's state when Terraform asks for it (`include_resource = true`, and always
/// with `-generate-config-out`). [`Listed::send`] waits while Terraform has not read the
/// results before, and says when Terraform wants no more (its `limit`, 100 by default).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::{TfValue, Unknown};
/// use tfvalue_plugin::framework::*;
///
/// #[derive(TfValue, Serialize, Deserialize, Clone)]
/// struct Note {
///     name: Unknown<String>,
/// }
///
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct NoteIdentity {
///     name: String,
/// }
///
/// struct Notes;
///
/// impl Resource for Notes {
///     type Model = Note;
///     async fn create(&self, _cx: &Ctx, n: Note) -> Result<Note> { Ok(n) }
///     async fn read(&self, _cx: &Ctx, n: Note) -> Result<Option<Note>> { Ok(Some(n)) }
///     async fn update(&self, _cx: &Ctx, _p: Note, n: Note) -> Result<Note> { Ok(n) }
///     async fn delete(&self, _cx: &Ctx, _n: Note) -> Result<()> { Ok(()) }
///     fn identity(&self) -> Option<ResourceIdentity<Note>> {
///         Some(ResourceIdentity::new(
///             tfvalue::codec::Codec::<NoteIdentity>::new(),
///             |n: &Note| Some(NoteIdentity { name: n.name.known()?.clone() }),
///             |i| i.name,
///         ))
///     }
/// }
///
/// /// The filter: the `config` block of a `list "notes_note"` block.
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct NoteFilter {
///     /// Only notes whose name starts with it.
///     #[tfvalue(optional)]
///     prefix: Unknown<Option<String>>,
/// }
///
/// struct ListNotes;
///
/// impl ListResource for ListNotes {
///     type Resource = Notes;
///     type Filter = NoteFilter;
///
///     async fn list(&self, _cx: &Ctx, filter: NoteFilter, results: &mut Listed<'_, Note>) -> Result<()> {
///         let prefix = filter.prefix.into_known().flatten().unwrap_or_default();
///         for name in ["a", "b"].into_iter().filter(|n| n.starts_with(&prefix)) {
///             let note = Note { name: name.to_owned().into() };
///             if !results.send(name, &note).await? {
///                 break; // Terraform wants no more
///             }
///         }
///         Ok(())
///     }
/// }
///
/// let provider = Framework::new().resource("notes_note", Notes).list_resource("notes_note", ListNotes);
/// # let _ = provider;
/// ```
pub trait ListResource<C = ()>: Send + Sync + 'static
where
    C: Send + Sync + 'static,
{
    /// The resource type listed, registered under the same type name, with an identity.
    type Resource: Resource<C>;

    /// The filter: the model of the `list` block's `config` block.
    type Filter: Model;

    /// The filter's schema; by default the model's.
    fn schema(&self) -> Schema {
        Self::Filter::schema()
    }

    /// Checks a filter beyond what the schema says; it may hold unknowns (during
    /// `terraform validate`).
    ///
    /// # Errors
    ///
    /// What is wrong with the filter.
    fn validate(&self, filter: &Self::Filter) -> Result<()> {
        let _ = filter;
        Ok(())
    }

    /// Lists the objects `filter` (wholly known) selects, sending each through
    /// `results` as it is found.
    ///
    /// # Errors
    ///
    /// The listing failed; Terraform shows the error (and drops what was listed).
    fn list(
        &self,
        cx: &Ctx<C>,
        filter: Self::Filter,
        results: &mut Listed<'_, <Self::Resource as Resource<C>>::Model>,
    ) -> impl Future<Output = Result<()>> + Send;
}

/// Where a [`ListResource`] sends the objects it finds, as models of its resource type.
pub struct Listed<'a, M> {
    results: ListResults,
    identity: &'a ResourceIdentity<M>,
    wire: &'a Wire,
    type_name: &'a str,
}

impl<M: Model> Listed<'_, M> {
    /// Whether Terraform wants each object's state: when not, only the identity (made
    /// from the model) is sent, so a listing whose full objects cost more to fetch may
    /// fill in only what the identity needs.
    pub fn include_resource(&self) -> bool {
        self.results.include_resource_object()
    }

    /// How many more results Terraform reads.
    pub fn remaining(&self) -> u64 {
        self.results.remaining()
    }

    /// Sends one object, named `display_name` for people. Returns `Ok(false)` when
    /// Terraform wants no more (its limit is reached, it stopped reading, or a result
    /// was refused and Terraform was told): stop listing and return `Ok(())`.
    ///
    /// # Errors
    ///
    /// The object's identity is not known, or the model does not encode: a bug in the
    /// provider.
    pub async fn send(&mut self, display_name: impl Into<String>, object: &M) -> Result<bool> {
        if self.results.is_closed() {
            return Ok(false);
        }
        let display_name = display_name.into();
        let Some(identity) = self.identity.of(object)? else {
            return Err(Diagnostic::error(format!(
                "the identity of the listed object `{display_name}` is not known"
            ))
            .with_detail(
                "The resource's identity is made from the model: a listed object must have \
                 every attribute the identity needs.",
            )
            .into());
        };
        let mut result = ListResult::new(identity, display_name);
        if self.results.include_resource_object() {
            result.resource_object = Some(convert::encode(
                Some(object),
                self.wire,
                "the listed object",
                self.type_name,
            )?);
        }
        Ok(self.results.send(result).await.is_ok())
    }
}

/// A [`ListResource`] with its type parameters erased.
pub(super) trait AnyList: Send + Sync {
    fn wire(&self) -> &Wire;
    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic>;
    /// `resource` is the resource registered under the list's type name, if any.
    fn list<'a>(
        &'a self,
        resource: Option<&'a (dyn Any + Send + Sync)>,
        req: ListResourceRequest,
    ) -> BoxFuture<'a, Vec<Diagnostic>>;
}

pub(super) struct Registered<L, C> {
    list: L,
    wire: Wire,
    type_name: String,
    client: Configured<C>,
}

impl<L, C> Registered<L, C>
where
    C: Send + Sync + 'static,
    L: ListResource<C>,
{
    pub(super) fn new(list: L, type_name: &str, client: Configured<C>) -> Self {
        Registered {
            wire: Wire::new::<L::Filter>(list.schema()),
            list,
            type_name: type_name.to_owned(),
            client,
        }
    }
}

impl<C: Send + Sync + 'static, L: ListResource<C>> AnyList for Registered<L, C> {
    fn wire(&self) -> &Wire {
        &self.wire
    }

    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic> {
        match convert::decode::<L::Filter>(config, &self.wire, "the filter", &self.type_name) {
            Ok(Some(f)) => self
                .list
                .validate(&f)
                .err()
                .map(Vec::from)
                .unwrap_or_default(),
            Ok(None) => Vec::new(),
            Err(d) => d.into(),
        }
    }

    fn list<'a>(
        &'a self,
        resource: Option<&'a (dyn Any + Send + Sync)>,
        req: ListResourceRequest,
    ) -> BoxFuture<'a, Vec<Diagnostic>> {
        list(self, resource, req)
    }
}

/// A list resource's types and handler, erased: the request's path around them is
/// compiled here once (see `super::erased`).
trait ListOps: Send + Sync {
    /// A request's context, or the diagnostic of a provider not configured yet.
    fn new_ctx(&self, stop: crate::Context) -> Result<Box<dyn CtxOps>, Diagnostic>;
    /// Finds the resource's identity, decodes the filter and lists.
    fn list<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        resource: Option<&'a (dyn Any + Send + Sync)>,
        config: &'a DynamicValue,
        results: ListResults,
    ) -> BoxFuture<'a, Result<()>>;
}

impl<C: Send + Sync + 'static, L: ListResource<C>> ListOps for Registered<L, C> {
    fn new_ctx(&self, stop: crate::Context) -> Result<Box<dyn CtxOps>, Diagnostic> {
        erased::boxed_ctx(&self.client, stop, &self.type_name, Vec::new())
    }

    fn list<'a>(
        &'a self,
        cx: &'a dyn CtxOps,
        resource: Option<&'a (dyn Any + Send + Sync)>,
        config: &'a DynamicValue,
        results: ListResults,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let registered =
                resource.and_then(|r| r.downcast_ref::<super::Registered<L::Resource, C>>());
            let Some((identity, wire)) =
                registered.and_then(|r| Some((r.identity.as_ref()?, &r.wire)))
            else {
                return Err(Diagnostic::error("list resource without its resource")
                    .with_detail(format!(
                        "The list resource `{}` lists objects of the resource type {} registered \
                         under the same name, with an identity; the framework has none. This \
                         is a bug in the provider.",
                        self.type_name,
                        std::any::type_name::<L::Resource>()
                    ))
                    .into());
            };
            let cx = erased::ctx::<C>(cx, &self.type_name)?;
            let mut listed = Listed {
                results,
                identity,
                wire,
                type_name: &self.type_name,
            };
            let filter = convert::decode_present::<L::Filter>(
                config,
                &self.wire,
                "the filter",
                &self.type_name,
                "the list resource's filter is null",
            )?;
            self.list.list(cx, filter, &mut listed).await
        })
    }
}

/// `ListResource`, boxed by a function that is not inlined (see `super::erased::read`).
#[inline(never)]
fn list<'a>(
    ops: &'a dyn ListOps,
    resource: Option<&'a (dyn Any + Send + Sync)>,
    req: ListResourceRequest,
) -> BoxFuture<'a, Vec<Diagnostic>> {
    Box::pin(async move {
        let cx = match ops.new_ctx(req.ctx.clone()) {
            Ok(cx) => cx,
            Err(d) => return vec![d],
        };
        let result = ops.list(&*cx, resource, &req.config, req.results).await;
        erased::outcome(&*cx, result).1
    })
}

/// `ValidateListResourceConfig` through the framework: the filter decoded and checked.
pub(super) fn validate(
    lists: &super::registry::Registry<Box<dyn AnyList>>,
    req: &ValidateListResourceConfigRequest,
) -> Vec<Diagnostic> {
    match lists.get(&req.type_name) {
        Some(l) => l.validate(&req.config),
        None => vec![super::unknown_type("list resource", &req.type_name)],
    }
}
