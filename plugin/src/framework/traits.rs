//! What provider authors implement: [`Resource`], [`DataSource`], [`ProviderConfig`].

use std::future::Future;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tfvalue::codec::Codec;
use tfvalue::schema::{Planner, Schema};
use tfvalue::{TfModel, TfValue};

use super::{Ctx, Result};

/// A model: a `#[derive(TfValue, Serialize, Deserialize)]` struct that the framework
/// decodes requests into and encodes answers from. Implemented for every such type.
pub trait Model: TfModel + Serialize + DeserializeOwned + Send + Sync + 'static {}

impl<T: TfModel + Serialize + DeserializeOwned + Send + Sync + 'static> Model for T {}

/// A managed resource type (terraform-plugin-framework's `resource.Resource`): a model and
/// what to do to create, read, update and delete the real object.
///
/// `C` is the client that the provider's configuration builds
/// ([`ProviderConfig::Client`]); every handler reaches it through [`Ctx::client`].
///
/// The framework does the protocol's work around the handlers:
///
/// | RPC | what the framework does |
/// | --- | --- |
/// | `ValidateResourceConfig` | decodes the configuration (it may hold unknowns) and calls [`validate`](Resource::validate) |
/// | `UpgradeResourceState` | decodes the stored state of any version with the [`upgrade`](Resource::upgrade) codec |
/// | `ReadResource` | calls [`read`](Resource::read); `None` means the object is gone (Terraform plans to create it again) |
/// | `PlanResourceChange` | plans from the schema with the model's [`Planner`] (computed attributes unknown where apply decides them, refinements, `requires_replace`), then calls [`modify_plan`](Resource::modify_plan); destroy plans null |
/// | `ApplyResourceChange` | null prior state: [`create`](Resource::create); null planned state: [`delete`](Resource::delete); else [`update`](Resource::update). On an error, the prior state is kept (nothing after a failed create) |
/// | `ImportResourceState` | calls [`import`](Resource::import) |
///
/// Every handler returns a [`Result`] whose error is [`Diagnostics`](crate::Diagnostics),
/// so `?` works on tfvalue's errors, I/O errors and any other error, and
/// [`Diagnostic`](crate::Diagnostic)s (with an attribute path) convert too. Warnings go
/// through [`Ctx::warn`]. Private data passes from plan to apply and from apply to read
/// unless a handler sets it ([`Ctx::set_private`]).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::{TfValue, Unknown};
/// use tfvalue_plugin::framework::{Ctx, Resource, Result};
///
/// #[derive(TfValue, Serialize, Deserialize, Clone)]
/// struct Note {
///     #[tfvalue(computed)]
///     id: Unknown<Option<String>>,
///     text: Unknown<String>,
/// }
///
/// struct Notes;
///
/// impl Resource for Notes {
///     type Model = Note;
///
///     async fn create(&self, _cx: &Ctx, mut note: Note) -> Result<Note> {
///         note.id = Some("note-1".to_owned()).into(); // create it for real here
///         Ok(note)
///     }
///
///     async fn read(&self, _cx: &Ctx, note: Note) -> Result<Option<Note>> {
///         Ok(Some(note)) // or None once it is gone
///     }
///
///     async fn update(&self, _cx: &Ctx, _prior: Note, planned: Note) -> Result<Note> {
///         Ok(planned)
///     }
///
///     async fn delete(&self, _cx: &Ctx, _note: Note) -> Result<()> {
///         Ok(())
///     }
/// }
/// ```
pub trait Resource<C = ()>: Send + Sync + 'static
where
    C: Send + Sync + 'static,
{
    /// The model of the resource's configuration, plan and state.
    type Model: Model;

    /// The attribute that [`import`](Resource::import) sets to the id given to
    /// `terraform import` by default.
    const IMPORT_ID: &'static str = "id";

    /// The schema; by default the model's. Override it to serve a schema that differs
    /// from the model's (the model's attributes missing from the schema are null when
    /// decoded and dropped when encoded).
    fn schema(&self) -> Schema {
        Self::Model::schema()
    }

    /// How plans are made; by default the model's [`TfModel::planner`].
    fn planner(&self) -> Planner {
        Self::Model::planner()
    }

    /// How stored state of older schema versions becomes the current model; by default
    /// only the current version is read. Called once, when the resource is registered.
    fn upgrade(&self) -> Codec<Self::Model> {
        Codec::new()
    }

    /// The resource's identity (Terraform 1.12+): a model of its own computed from the
    /// resource's model; see [`ResourceIdentity`](super::ResourceIdentity). By default
    /// none. Called once, when the resource is registered.
    fn identity(&self) -> Option<super::ResourceIdentity<Self::Model>> {
        None
    }

    /// How long each operation may take when configuration does not say (see
    /// [`Timeouts`](super::Timeouts)): past it, the handler is cancelled with an error.
    /// By default no limit. Called once, when the resource is registered.
    fn timeouts(&self) -> super::TimeoutDefaults {
        super::TimeoutDefaults::new()
    }

    /// The resource types whose state this one takes with a `moved` block from one type
    /// to another (Terraform 1.8+): `moved { from = old_type.x  to = new_type.x }`.
    /// By default none, and Terraform refuses such a block. Called once, when the
    /// resource is registered; the first move whose source type (and provider) matches
    /// converts the state, which is then read and planned as usual.
    fn moves(&self) -> Vec<super::StateMove<Self::Model>> {
        Vec::new()
    }

    /// Checks a configuration beyond what the schema says (the schema's own validators
    /// run first). The configuration may hold unknowns: values that depend on resources
    /// not created yet.
    ///
    /// # Errors
    ///
    /// What is wrong with the configuration (every diagnostic is shown).
    fn validate(&self, config: &Self::Model) -> Result<()> {
        let _ = config;
        Ok(())
    }

    /// Changes the plan the framework made (`planned`), before Terraform sees it; `prior`
    /// is `None` on create. Not called on destroy. Mark further attributes whose change
    /// replaces the resource with [`Ctx::requires_replace`].
    ///
    /// It runs *after* the framework planned the computed attributes: on an update every
    /// computed attribute without `use_state_for_unknown` is already unknown, and one
    /// with it holds its prior value. So a hook that plans a drifted value back to what
    /// the configuration says must also set what follows from it (an attribute the API
    /// changes on every write, such as a `revision`, to `Unknown::unknown()`), or apply
    /// fails Terraform's consistency check on an attribute that stayed known.
    ///
    /// A resource that does not override it plans for less: once the framework has seen
    /// the default run, it builds no model of the prior state for it, a plan of no
    /// change (no default declared) is the prior state as Terraform sent it, and a
    /// create plan is the planner's bytes (the planned model is still decoded: a plan
    /// that does not fit the model fails at plan, not at apply).
    ///
    /// # Errors
    ///
    /// The plan is refused.
    fn modify_plan(
        &self,
        cx: &Ctx<C>,
        prior: Option<&Self::Model>,
        planned: &mut Self::Model,
    ) -> impl Future<Output = Result<()>> + Send {
        // This body runs only where the resource does not override the hook: the
        // framework then plans without building the prior state's model for it.
        cx.default_hook_ran(std::any::TypeId::of::<Self>());
        let _ = (prior, planned);
        async { Ok(()) }
    }

    /// Creates the object; `planned` holds unknowns where apply decides (computed
    /// attributes). Returns the new state, wholly known and consistent with the plan.
    ///
    /// # Errors
    ///
    /// Nothing was created.
    fn create(
        &self,
        cx: &Ctx<C>,
        planned: Self::Model,
    ) -> impl Future<Output = Result<Self::Model>> + Send;

    /// Reads the object that `state` describes; `None` when it no longer exists.
    ///
    /// # Errors
    ///
    /// The object could not be read (the state is kept).
    fn read(
        &self,
        cx: &Ctx<C>,
        state: Self::Model,
    ) -> impl Future<Output = Result<Option<Self::Model>>> + Send;

    /// Changes the object from `prior` to `planned`. Returns the new state.
    ///
    /// # Errors
    ///
    /// The object was not changed (the prior state is kept).
    fn update(
        &self,
        cx: &Ctx<C>,
        prior: Self::Model,
        planned: Self::Model,
    ) -> impl Future<Output = Result<Self::Model>> + Send;

    /// Deletes the object.
    ///
    /// # Errors
    ///
    /// The object was not deleted (the state is kept).
    fn delete(&self, cx: &Ctx<C>, state: Self::Model) -> impl Future<Output = Result<()>> + Send;

    /// Adopts an existing object by the id given to `terraform import`; `None` when
    /// there is none (an error "no such object" for the user).
    ///
    /// By default, import needs no code: a model with [`IMPORT_ID`](Resource::IMPORT_ID)
    /// set to the id, every other attribute null and every block empty, is handed to
    /// [`read`](Resource::read) (terraform-plugin-framework's
    /// `ImportStatePassthroughID`). That needs a model whose other fields hold null;
    /// otherwise override this method.
    ///
    /// # Errors
    ///
    /// The object could not be read, or (by default) the model cannot be made from the
    /// id alone.
    fn import(
        &self,
        cx: &Ctx<C>,
        id: String,
    ) -> impl Future<Output = Result<Option<Self::Model>>> + Send {
        async move {
            let stub = super::convert::import_stub::<Self::Model>(Self::IMPORT_ID, &id)?;
            self.read(cx, stub).await
        }
    }
}

/// A data source type (terraform-plugin-framework's `datasource.DataSource`): a model and
/// how to read it from its configuration.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::{TfValue, Unknown};
/// use tfvalue_plugin::framework::{Ctx, DataSource, Result};
///
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct Greeting {
///     name: Unknown<String>,
///     #[tfvalue(computed)]
///     text: Unknown<Option<String>>,
/// }
///
/// struct Greet;
///
/// impl DataSource for Greet {
///     type Model = Greeting;
///
///     async fn read(&self, _cx: &Ctx, mut g: Greeting) -> Result<Greeting> {
///         g.text = Some(format!("hello, {}", g.name.known().map_or("?", |s| s.as_str()))).into();
///         Ok(g)
///     }
/// }
/// ```
pub trait DataSource<C = ()>: Send + Sync + 'static
where
    C: Send + Sync + 'static,
{
    /// The model of the data source's configuration and state.
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

    /// Reads the data: `config` (wholly known) with its computed attributes set.
    ///
    /// # Errors
    ///
    /// The data could not be read.
    fn read(
        &self,
        cx: &Ctx<C>,
        config: Self::Model,
    ) -> impl Future<Output = Result<Self::Model>> + Send;
}

/// The provider block's model (terraform-plugin-framework's `provider.Provider`'s
/// `Schema` and `Configure`): decoded once in `ConfigureProvider`, and turned into the
/// [`Client`](ProviderConfig::Client) that every resource and data source handler gets
/// through [`Ctx::client`].
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::{TfValue, Unknown};
/// use tfvalue_plugin::framework::{Ctx, ProviderConfig, Result};
/// use tfvalue_plugin::Diagnostic;
///
/// #[derive(TfValue, Serialize, Deserialize)]
/// struct Config {
///     endpoint: Unknown<String>,
/// }
///
/// struct Client {
///     endpoint: String,
/// }
///
/// impl ProviderConfig for Config {
///     type Client = Client;
///
///     async fn configure(self, _cx: &Ctx) -> Result<Client> {
///         let Some(endpoint) = self.endpoint.into_known() else {
///             return Err(Diagnostic::error("the endpoint is not known yet").into());
///         };
///         Ok(Client { endpoint })
///     }
/// }
/// ```
pub trait ProviderConfig: Model {
    /// What configuring builds, shared by every handler.
    type Client: Send + Sync + 'static;

    /// Checks the provider block beyond what the schema says; it may hold unknowns.
    /// Called in `ValidateProviderConfig`, and again in `ConfigureProvider` before
    /// [`configure`](ProviderConfig::configure) (where values unknown at validation,
    /// such as `var.x` in `terraform validate`, are known).
    ///
    /// # Errors
    ///
    /// What is wrong with the configuration.
    fn validate(&self) -> Result<()> {
        Ok(())
    }

    /// Builds the client from the configuration (which holds unknowns where it refers
    /// to resources not created yet).
    ///
    /// # Errors
    ///
    /// The provider cannot work with this configuration.
    fn configure(self, cx: &Ctx) -> impl Future<Output = Result<Self::Client>> + Send;
}

/// The configuration of a provider whose block is empty; its client is `()`.
#[derive(TfValue, Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[tfvalue(crate = "tfvalue")]
pub struct NoConfig {}

impl ProviderConfig for NoConfig {
    type Client = ();

    async fn configure(self, _cx: &Ctx) -> Result<()> {
        Ok(())
    }
}
