//! State stores in the framework (protocol 6.10; Terraform 1.15+, experimental there).

use std::future::Future;
use std::sync::{Arc, PoisonError, RwLock};

use futures_util::future::BoxFuture;
use futures_util::FutureExt as _;
use tfvalue::schema::Schema;
use tfvalue::{DynamicValue, TfModel as _};

use super::configured::Configured;
use super::convert::{self, Wire};
use super::erased::{self, CtxOps};
use super::{ensure_error, Ctx, Model, Result};
use crate::diagnostic::Diagnostic;
use crate::state_store::{
    ConfigureStateStoreRequest, GetStatesResponse, LockStateRequest, LockStateResponse,
    ReadStateBytesRequest, ReadStateBytesResponse, StateStoreRequest, UnlockStateRequest,
    WriteStateBytesRequest,
};

/// A state store (`terraform { state_store "kv_states" { .. provider "kv" { .. } } }`,
/// protocol 6 only): Terraform keeps its state in it, one state file per workspace
/// (the `state_id`, `default` unless `terraform workspace` says otherwise).
///
/// Terraform configures it once per command ([`configure`](StateStore::configure)
/// builds the [`Store`](StateStore::Store) every other call gets), reads and writes
/// whole state files (the server does the protocol's chunking), takes the lock of a
/// workspace around a plan or an apply, and lists and deletes workspaces. Terraform does
/// not retry a lock that fails: say who holds it.
///
/// ```
/// use std::collections::BTreeMap;
/// use std::sync::Mutex;
/// use serde::{Deserialize, Serialize};
/// use tfvalue::{TfValue, Unknown};
/// use tfvalue_plugin::framework::*;
///
/// /// States kept in memory (a real store writes them somewhere that lasts).
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct MemoryConfig {
///     #[tfvalue(optional)]
///     prefix: Unknown<Option<String>>,
/// }
///
/// struct Memory;
///
/// impl StateStore for Memory {
///     type Model = MemoryConfig;
///     type Store = Mutex<BTreeMap<String, Vec<u8>>>;
///
///     async fn configure(&self, _cx: &Ctx, _config: MemoryConfig) -> Result<Self::Store> {
///         Ok(Mutex::new(BTreeMap::new()))
///     }
///     async fn read(&self, _cx: &Ctx, s: &Self::Store, id: &str) -> Result<Option<Vec<u8>>> {
///         Ok(s.lock().unwrap().get(id).cloned())
///     }
///     async fn write(&self, _cx: &Ctx, s: &Self::Store, id: &str, state: Vec<u8>) -> Result<()> {
///         s.lock().unwrap().insert(id.to_owned(), state);
///         Ok(())
///     }
///     async fn states(&self, _cx: &Ctx, s: &Self::Store) -> Result<Vec<String>> {
///         Ok(s.lock().unwrap().keys().cloned().collect())
///     }
///     async fn delete(&self, _cx: &Ctx, s: &Self::Store, id: &str) -> Result<()> {
///         s.lock().unwrap().remove(id);
///         Ok(())
///     }
/// }
///
/// let provider = Framework::new().state_store("mem_states", Memory);
/// # let _ = provider;
/// ```
pub trait StateStore<C = ()>: Send + Sync + 'static
where
    C: Send + Sync + 'static,
{
    /// The model of the `state_store` block (without its `provider` block; no
    /// attribute of it may be named `provider`).
    type Model: Model;

    /// What [`configure`](StateStore::configure) builds, kept for every call after it.
    type Store: Send + Sync + 'static;

    /// The schema; by default the model's.
    fn schema(&self) -> Schema {
        Self::Model::schema()
    }

    /// Checks a configuration beyond what the schema says.
    ///
    /// # Errors
    ///
    /// What is wrong with the configuration.
    fn validate(&self, config: &Self::Model) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Builds the store from its configuration (wholly known).
    ///
    /// # Errors
    ///
    /// The store cannot work with this configuration.
    fn configure(
        &self,
        cx: &Ctx<C>,
        config: Self::Model,
    ) -> impl Future<Output = Result<Self::Store>> + Send;

    /// The state of workspace `state_id`; `None` when it has none yet.
    ///
    /// # Errors
    ///
    /// The state could not be read.
    fn read(
        &self,
        cx: &Ctx<C>,
        store: &Self::Store,
        state_id: &str,
    ) -> impl Future<Output = Result<Option<Vec<u8>>>> + Send;

    /// Replaces the state of workspace `state_id` (never empty), as one change: a
    /// reader sees the old state or the new one, never a part.
    ///
    /// # Errors
    ///
    /// The state was not written.
    fn write(
        &self,
        cx: &Ctx<C>,
        store: &Self::Store,
        state_id: &str,
        state: Vec<u8>,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Takes the lock of workspace `state_id` for `operation`; returns the lock's id
    /// for [`unlock`](StateStore::unlock). By default no locking (an empty id).
    ///
    /// # Errors
    ///
    /// The lock is held by another: say by whom (Terraform does not retry).
    fn lock(
        &self,
        cx: &Ctx<C>,
        store: &Self::Store,
        state_id: &str,
        operation: &str,
    ) -> impl Future<Output = Result<String>> + Send {
        let _ = (cx, store, state_id, operation);
        async { Ok(String::new()) }
    }

    /// Gives back the lock `lock_id` of workspace `state_id`. By default nothing to do.
    ///
    /// # Errors
    ///
    /// The lock could not be given back.
    fn unlock(
        &self,
        cx: &Ctx<C>,
        store: &Self::Store,
        state_id: &str,
        lock_id: &str,
    ) -> impl Future<Output = Result<()>> + Send {
        let _ = (cx, store, state_id, lock_id);
        async { Ok(()) }
    }

    /// The workspaces that have a state.
    ///
    /// # Errors
    ///
    /// They could not be listed.
    fn states(
        &self,
        cx: &Ctx<C>,
        store: &Self::Store,
    ) -> impl Future<Output = Result<Vec<String>>> + Send;

    /// Deletes workspace `state_id` and its state.
    ///
    /// # Errors
    ///
    /// It was not deleted.
    fn delete(
        &self,
        cx: &Ctx<C>,
        store: &Self::Store,
        state_id: &str,
    ) -> impl Future<Output = Result<()>> + Send;
}

/// A [`StateStore`] with its type parameters erased.
pub(super) trait AnyStateStore: Send + Sync {
    fn wire(&self) -> &Wire;
    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic>;
    fn configure(&self, req: ConfigureStateStoreRequest) -> BoxFuture<'_, Vec<Diagnostic>>;
    fn read(&self, req: ReadStateBytesRequest) -> BoxFuture<'_, ReadStateBytesResponse>;
    fn write(&self, req: WriteStateBytesRequest) -> BoxFuture<'_, Vec<Diagnostic>>;
    fn lock(&self, req: LockStateRequest) -> BoxFuture<'_, LockStateResponse>;
    fn unlock(&self, req: UnlockStateRequest) -> BoxFuture<'_, Vec<Diagnostic>>;
    fn states(&self, req: StateStoreRequest) -> BoxFuture<'_, GetStatesResponse>;
    fn delete(&self, req: StateStoreRequest) -> BoxFuture<'_, Vec<Diagnostic>>;
}

pub(super) struct Registered<S: StateStore<C>, C: Send + Sync + 'static> {
    state_store: S,
    wire: Wire,
    type_name: String,
    configured: RwLock<Option<Arc<S::Store>>>,
    client: Configured<C>,
}

impl<S: StateStore<C>, C: Send + Sync + 'static> Registered<S, C> {
    pub(super) fn new(state_store: S, type_name: &str, client: Configured<C>) -> Self {
        Registered {
            wire: Wire::new::<S::Model>(state_store.schema()),
            state_store,
            type_name: type_name.to_owned(),
            configured: RwLock::new(None),
            client,
        }
    }

    fn store(&self) -> Result<Arc<S::Store>, Diagnostic> {
        self.configured
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| {
                Diagnostic::error("the state store is not configured").with_detail(format!(
                    "Terraform configures the state store `{}` (ConfigureStateStore) before it \
                     reads or writes states; this request came before that, or after \
                     configuring failed.",
                    self.type_name
                ))
            })
    }
}

impl<C: Send + Sync + 'static, S: StateStore<C>> AnyStateStore for Registered<S, C> {
    fn wire(&self) -> &Wire {
        &self.wire
    }

    fn validate(&self, config: &DynamicValue) -> Vec<Diagnostic> {
        match convert::decode::<S::Model>(config, &self.wire, "the configuration", &self.type_name)
        {
            Ok(Some(m)) => self
                .state_store
                .validate(&m)
                .err()
                .map(Vec::from)
                .unwrap_or_default(),
            Ok(None) => Vec::new(),
            Err(d) => d.into(),
        }
    }

    fn configure(&self, req: ConfigureStateStoreRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
        async move {
            let client = match self.client.get() {
                Ok(client) => client,
                Err(d) => return vec![d],
            };
            let cx = Ctx::new(client, req.ctx.clone(), &self.type_name, Vec::new());
            let result = async {
                let config = convert::decode_present::<S::Model>(
                    &req.config,
                    &self.wire,
                    "the configuration",
                    &self.type_name,
                    "the state store's configuration is null",
                )?;
                self.state_store.validate(&config)?;
                self.state_store.configure(&cx, config).await
            }
            .await;
            let mut diagnostics = cx.take_warnings();
            let mut configured = self
                .configured
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            match result {
                Ok(store) => *configured = Some(Arc::new(store)),
                Err(e) => {
                    // A store configured before is not used with a configuration refused.
                    *configured = None;
                    diagnostics.extend(ensure_error(e));
                }
            }
            diagnostics
        }
        .boxed()
    }

    fn read(&self, req: ReadStateBytesRequest) -> BoxFuture<'_, ReadStateBytesResponse> {
        read(self, req)
    }

    fn write(&self, req: WriteStateBytesRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
        write(self, req)
    }

    fn lock(&self, req: LockStateRequest) -> BoxFuture<'_, LockStateResponse> {
        lock(self, req)
    }

    fn unlock(&self, req: UnlockStateRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
        unlock(self, req)
    }

    fn states(&self, req: StateStoreRequest) -> BoxFuture<'_, GetStatesResponse> {
        states(self, req)
    }

    fn delete(&self, req: StateStoreRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
        delete(self, req)
    }
}

/// A state store's request, for the paths that do not depend on its types (compiled
/// here once, not in each provider's crate for each state store: see
/// `super::erased`).
enum Call<'a> {
    Read(&'a str),
    Write(&'a str, Vec<u8>),
    Lock(&'a str, &'a str),
    Unlock(&'a str, &'a str),
    States,
    Delete(&'a str),
}

/// What a [`Call`] answers.
enum Answer {
    Bytes(Option<Vec<u8>>),
    LockId(String),
    Ids(Vec<String>),
    Done,
}

/// A registered state store, its types erased.
trait StoreOps: Send + Sync {
    /// A request's context, or the diagnostic of a provider not configured yet.
    fn new_ctx(&self, stop: crate::Context) -> Result<Box<dyn CtxOps>, Diagnostic>;
    /// Runs `call` on the configured store.
    fn call<'a>(&'a self, cx: &'a dyn CtxOps, call: Call<'a>) -> BoxFuture<'a, Result<Answer>>;
}

impl<C: Send + Sync + 'static, S: StateStore<C>> StoreOps for Registered<S, C> {
    fn new_ctx(&self, stop: crate::Context) -> Result<Box<dyn CtxOps>, Diagnostic> {
        erased::boxed_ctx(&self.client, stop, &self.type_name, Vec::new())
    }

    fn call<'a>(&'a self, cx: &'a dyn CtxOps, call: Call<'a>) -> BoxFuture<'a, Result<Answer>> {
        Box::pin(async move {
            let store = self.store()?;
            let (s, store) = (&self.state_store, &*store);
            let cx = erased::ctx::<C>(cx, &self.type_name)?;
            Ok(match call {
                Call::Read(id) => Answer::Bytes(s.read(cx, store, id).await?),
                Call::Write(id, bytes) => {
                    s.write(cx, store, id, bytes).await?;
                    Answer::Done
                }
                Call::Lock(id, op) => Answer::LockId(s.lock(cx, store, id, op).await?),
                Call::Unlock(id, lock_id) => {
                    s.unlock(cx, store, id, lock_id).await?;
                    Answer::Done
                }
                Call::States => Answer::Ids(s.states(cx, store).await?),
                Call::Delete(id) => {
                    s.delete(cx, store, id).await?;
                    Answer::Done
                }
            })
        })
    }
}

/// Runs `call` with a context and the configured store; its warnings and error as
/// diagnostics.
async fn run(
    ops: &dyn StoreOps,
    stop: crate::Context,
    call: Call<'_>,
) -> (Option<Answer>, Vec<Diagnostic>) {
    let cx = match ops.new_ctx(stop) {
        Ok(cx) => cx,
        Err(d) => return (None, vec![d]),
    };
    let result = ops.call(&*cx, call).await;
    erased::outcome(&*cx, result)
}

// Each request boxed by a function that is not inlined (see `super::erased::read`).

#[inline(never)]
fn read(ops: &dyn StoreOps, req: ReadStateBytesRequest) -> BoxFuture<'_, ReadStateBytesResponse> {
    Box::pin(async move {
        let (answer, diagnostics) = run(ops, req.ctx, Call::Read(&req.state_id)).await;
        let mut resp = ReadStateBytesResponse::from(diagnostics);
        if let Some(Answer::Bytes(bytes)) = answer {
            resp.bytes = bytes.unwrap_or_default();
        }
        resp
    })
}

#[inline(never)]
fn write(ops: &dyn StoreOps, req: WriteStateBytesRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
    Box::pin(async move {
        let WriteStateBytesRequest {
            ctx,
            state_id,
            bytes,
            ..
        } = req;
        run(ops, ctx, Call::Write(&state_id, bytes)).await.1
    })
}

#[inline(never)]
fn lock(ops: &dyn StoreOps, req: LockStateRequest) -> BoxFuture<'_, LockStateResponse> {
    Box::pin(async move {
        let call = Call::Lock(&req.state_id, &req.operation);
        let (answer, diagnostics) = run(ops, req.ctx.clone(), call).await;
        let mut resp = LockStateResponse::from(diagnostics);
        if let Some(Answer::LockId(id)) = answer {
            resp.lock_id = id;
        }
        resp
    })
}

#[inline(never)]
fn unlock(ops: &dyn StoreOps, req: UnlockStateRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
    Box::pin(async move {
        let call = Call::Unlock(&req.state_id, &req.lock_id);
        run(ops, req.ctx.clone(), call).await.1
    })
}

#[inline(never)]
fn states(ops: &dyn StoreOps, req: StateStoreRequest) -> BoxFuture<'_, GetStatesResponse> {
    Box::pin(async move {
        let (answer, diagnostics) = run(ops, req.ctx, Call::States).await;
        let mut resp = GetStatesResponse::from(diagnostics);
        if let Some(Answer::Ids(ids)) = answer {
            resp.state_ids = ids;
        }
        resp
    })
}

#[inline(never)]
fn delete(ops: &dyn StoreOps, req: StateStoreRequest) -> BoxFuture<'_, Vec<Diagnostic>> {
    Box::pin(async move { run(ops, req.ctx, Call::Delete(&req.state_id)).await.1 })
}
