//! The plan helper: from prior state, proposed new state and configuration, the planned
//! state and the attributes whose change replaces the resource (PlanResourceChange).

use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::hash::Hasher;

use super::{
    Attribute, AttributeType, Block, DefaultValue, NestedType, NestingMode, ObjectNesting,
};
use crate::error::{Error, Result};
use crate::path::{AttributePath, PathStep};
use crate::tf_value::TfModel;
use crate::types::Type;
use crate::unknown::Refinements;
use crate::value::{canonical_hash, cmp_canonical, equal_hash_runs, Fold, Value};

/// What [`Planner::plan`] (or [`Block::plan`]) answers: the planned state, and the paths
/// of the attributes whose planned change replaces the resource (PlanResourceChange's
/// `planned_state` and `requires_replace`).
///
/// `T` is [`Value`] for a plan of values, and `Option<M>` for a plan of a model `M`
/// ([`Planner::plan_model`]), `None` when the resource is destroyed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Plan<T = Value> {
    /// The planned new state.
    pub planned: T,
    /// The attributes whose change replaces the resource, in schema order.
    pub requires_replace: Vec<AttributePath>,
}

type RefineFn = dyn Fn(&AttributePath, &Attribute) -> Option<Refinements> + Send + Sync;

/// Plans a resource change the way terraform-plugin-framework does, from a schema
/// [`Block`] and the planner facts of its attributes
/// ([`default`](Attribute::default), [`use_state_for_unknown`](Attribute::use_state_for_unknown),
/// [`refinements`](Attribute::refinements), [`requires_replace`](Attribute::requires_replace)),
/// at any depth of blocks and nested attributes:
///
/// | step | rule |
/// | --- | --- |
/// | destroy | the proposed new state is null: the plan is null |
/// | defaults | an attribute with a default that configuration leaves null is planned as the default; a configured value, known or unknown, wins |
/// | no change | the proposal (with its defaults) equals the prior state: the plan is the prior state |
/// | computed | on a create, and on an update that changes anything, a computed attribute that configuration leaves null (and that has no default) is planned **unknown**, with its refinements |
/// | `use_state_for_unknown` | on such an update, the attribute keeps the value Terraform copied from the prior state into the proposal, if any, instead |
/// | the rest | configured values, known or unknown, are kept as proposed |
/// | `requires_replace` | on an update, each such attribute whose value differs between the prior state and the proposal (with its defaults) is listed; an unknown differs from every known value, but an unknown the planner itself made does not count |
///
/// So an attribute the API changes on every update (an `etag`) is unknown in every plan
/// that changes the resource, and one it sets once (an `id`) is marked
/// `use_state_for_unknown`. Terraform pairs the elements of a `SET` of blocks or of nested
/// attributes in configuration with the prior state's; so does the planner, comparing
/// them with their computed attributes left out. Inside a `SET`, where elements have no
/// stable position, `requires_replace` lists the set itself.
///
/// [`Planner::refine`] and [`Planner::refine_with`] add refinements to the planner's own
/// copy of the block, for schemas that do not declare them.
///
/// ```
/// use tfvalue::schema::{Attribute, Block, Planner};
/// use tfvalue::{AttributePath, Refinements, Type, Value};
///
/// let block = Block::new()
///     .attribute("name", Attribute::required(Type::String).requires_replace())
///     .attribute("id", Attribute::computed(Type::String).use_state_for_unknown())
///     .attribute("etag", Attribute::computed(Type::String))
///     .attribute("size", Attribute::optional_computed(Type::Number).default_value(1));
/// let obj = |name: &str, id: Value, etag: Value, size: Value| {
///     Value::Object([
///         ("name".to_owned(), Value::from(name)),
///         ("id".to_owned(), id),
///         ("etag".to_owned(), etag),
///         ("size".to_owned(), size),
///     ].into())
/// };
/// let planner = Planner::new(block).refine("id", Refinements::new().not_null().with_prefix("i-"))?;
///
/// // Create: computed attributes unknown (refined as declared), defaults planned.
/// let config = obj("web", Value::Null, Value::Null, Value::Null);
/// let plan = planner.plan(&Value::Null, &config, &config);
/// assert_eq!(plan.planned["id"], Value::Unknown(Refinements::new().not_null().with_prefix("i-")));
/// assert_eq!(plan.planned["etag"], Value::Unknown(Refinements::new()));
/// assert_eq!(plan.planned["size"], Value::from(1));
///
/// // No change: the plan is the prior state.
/// let prior = obj("web", Value::from("i-1"), Value::from("e1"), Value::from(1));
/// let proposed = prior.clone(); // Terraform copies computed values into the proposal
/// assert_eq!(planner.plan(&prior, &proposed, &config).planned, prior);
///
/// // An update: the etag will change, the id will not.
/// let config = obj("web", Value::Null, Value::Null, Value::from(2));
/// let proposed = obj("web", Value::from("i-1"), Value::from("e1"), Value::from(2));
/// let plan = planner.plan(&prior, &proposed, &config);
/// assert_eq!(plan.planned, obj("web", Value::from("i-1"), Value::Unknown(Refinements::new()), Value::from(2)));
/// assert!(plan.requires_replace.is_empty());
///
/// // Renaming replaces the resource.
/// let config = obj("api", Value::Null, Value::Null, Value::Null);
/// let proposed = obj("api", Value::from("i-1"), Value::from("e1"), Value::from(1));
/// assert_eq!(planner.plan(&prior, &proposed, &config).requires_replace, [AttributePath::new().attr("name")]);
/// # Ok::<(), tfvalue::Error>(())
/// ```
#[derive(Clone)]
pub struct Planner {
    block: Block,
    with: Option<std::sync::Arc<RefineFn>>,
    /// Whether the block declares a default anywhere.
    defaults: bool,
    /// The block's implied type, once asked for (planning over MessagePack).
    implied: std::sync::OnceLock<Type>,
}

impl fmt::Debug for Planner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Planner")
            .field("block", &self.block)
            .field("refine_with", &self.with.is_some())
            .finish()
    }
}

impl Planner {
    /// A planner for resources of this block.
    pub fn new(block: Block) -> Self {
        Planner {
            defaults: block_has_default(&block),
            block,
            with: None,
            implied: std::sync::OnceLock::new(),
        }
    }

    /// Whether the block declares a default anywhere ([`Attribute::default_value`]), in
    /// nested blocks and nested attributes too. Without one, planning sets nothing but
    /// unknowns, and a proposal that is the prior state is planned as no change whatever
    /// the configuration: [`plan_no_change`](Planner::plan_no_change) needs no value
    /// walked then, and a caller holding the request's bytes needs no value decoded.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, NestedBlock, Planner};
    /// use tfvalue::Type;
    ///
    /// let disk = Block::new().attribute("kind", Attribute::optional_computed(Type::String));
    /// let block = Block::new()
    ///     .attribute("id", Attribute::computed(Type::String))
    ///     .block("disk", NestedBlock::list(disk.clone()));
    /// assert!(!Planner::new(block.clone()).sets_defaults());
    /// let disk = disk.attribute("size", Attribute::optional_computed(Type::Number).default_value(10));
    /// assert!(Planner::new(block.block("disk", NestedBlock::list(disk))).sets_defaults());
    /// ```
    pub fn sets_defaults(&self) -> bool {
        self.defaults
    }

    /// The block's implied type, worked out once.
    pub(crate) fn implied_type(&self) -> &Type {
        self.implied.get_or_init(|| self.block.implied_type())
    }

    /// One pass of [`plan_owned`](Planner::plan_owned) on an update, over the objects of
    /// a collection of `block`s nested as `nesting`, in place: `p` proposed (with its
    /// defaults, for the unknowns pass), `c` its configuration (`None`: not known),
    /// `depth` steps below the root; `defaults`: the defaults pass, else the unknowns
    /// pass. For what [`DynamicValue::plan_update`](crate::DynamicValue::plan_update)
    /// does not pair over the bytes (sets and maps of objects); not for the unknowns of
    /// a collection matched `match_by`, which are paired with the prior state's.
    pub(crate) fn plan_elements(
        &self,
        defaults: bool,
        block: &Block,
        nesting: NestingMode,
        p: &mut Value,
        c: Option<&Value>,
        depth: usize,
    ) {
        let pass = if defaults {
            Pass::Defaults
        } else {
            Pass::Unknowns
        };
        let mut w = Walk::new(self, pass, true);
        w.depth = depth;
        let shape = Shape {
            nesting,
            match_by: None,
        };
        w.elements(block, shape, p, c, Prior::Proposal(None));
    }

    /// Whether a [`refine_with`](Planner::refine_with) function refines the unknowns.
    pub(crate) fn refines_with(&self) -> bool {
        self.with.is_some()
    }

    /// A planner for the model `M` (its [`TfModel::block`]).
    pub fn for_model<M: TfModel>() -> Self {
        Planner::new(M::block())
    }

    /// The block this planner follows.
    pub fn block(&self) -> &Block {
        &self.block
    }

    /// Sets the refinements of the unknown planned for the computed attribute at `names`:
    /// its attribute names from the root, joined by `.`, with no element steps
    /// (`"disk.id"` is the `id` of every `disk` block). The same as declaring them with
    /// [`Attribute::refine`] (or the derive's `refine(..)`).
    ///
    /// ```
    /// use tfvalue::schema::Planner;
    /// use tfvalue::{Refinements, TfValue, Unknown};
    ///
    /// #[derive(TfValue)]
    /// struct Server {
    ///     #[tfvalue(computed)]
    ///     id: Unknown<Option<String>>,
    ///     name: Unknown<String>,
    /// }
    ///
    /// let err = Planner::for_model::<Server>().refine("idd", Refinements::new().not_null()).unwrap_err();
    /// assert_eq!(err.to_string(), "no attribute `idd` to refine; the computed attributes are `id`");
    /// let err = Planner::for_model::<Server>().refine("name", Refinements::new().not_null()).unwrap_err();
    /// assert_eq!(err.to_string(), "cannot refine `name`: the planner plans only computed attributes unknown, and `name` is not computed");
    /// ```
    ///
    /// # Errors
    ///
    /// No attribute at `names`, one that is not computed, or refinements that do not fit
    /// its type (see [`Block::check_schema`]).
    pub fn refine(mut self, names: &str, refinements: Refinements) -> Result<Self> {
        let computed = computed_names(&self.block);
        let Some(attr) = attribute_at_mut(&mut self.block, names) else {
            let listed = if computed.is_empty() {
                "the block has no computed attribute".to_owned()
            } else {
                format!(
                    "the computed attributes are {}",
                    computed
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Err(Error::data(format_args!(
                "no attribute `{names}` to refine; {listed}"
            )));
        };
        if !attr.computed {
            return Err(Error::data(format_args!(
                "cannot refine `{names}`: the planner plans only computed attributes unknown, and `{names}` is not computed"
            )));
        }
        attr.refinements = refinements;
        if let Some(problem) = super::plan_facts::problems(attr).into_iter().next() {
            return Err(Error::data(format_args!(
                "cannot refine `{names}`: {problem}"
            )));
        }
        Ok(self)
    }

    /// Refines the unknowns planned for computed attributes by a function of their full
    /// path and schema; `None` leaves the attribute's own [`refinements`](Attribute::refinements).
    #[must_use]
    pub fn refine_with(
        mut self,
        f: impl Fn(&AttributePath, &Attribute) -> Option<Refinements> + Send + Sync + 'static,
    ) -> Self {
        self.with = Some(std::sync::Arc::new(f));
        self
    }

    /// Plans a change of values of the block's implied type (see [`Planner`]).
    pub fn plan(&self, prior: &Value, proposed: &Value, config: &Value) -> Plan {
        if proposed.is_null() {
            return Plan {
                planned: Value::Null,
                requires_replace: Vec::new(),
            };
        }
        self.plan_owned(prior, proposed.clone(), config)
    }

    /// As [`plan`](Planner::plan), planning in `proposed` itself (which it takes)
    /// instead of in a copy of it.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, Planner};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new()
    ///     .attribute("id", Attribute::computed(Type::String))
    ///     .attribute("name", Attribute::required(Type::String));
    /// let config = Value::Object(
    ///     [("id".to_owned(), Value::Null), ("name".to_owned(), Value::from("web"))].into(),
    /// );
    /// let plan = Planner::new(block).plan_owned(&Value::Null, config.clone(), &config);
    /// assert!(plan.planned["id"].is_unknown());
    /// assert_eq!(plan.planned["name"], Value::from("web"));
    /// ```
    pub fn plan_owned(&self, prior: &Value, proposed: Value, config: &Value) -> Plan {
        if proposed.is_null() {
            return Plan {
                planned: Value::Null,
                requires_replace: Vec::new(),
            };
        }
        let update = !prior.is_null();
        let mut planned = proposed;
        // The defaults pass (which changes nothing but defaults), when there are any.
        if self.defaults {
            Walk::new(self, Pass::Defaults, update).block(
                &self.block,
                &mut planned,
                Some(config),
                Prior::Proposal(Some(prior)),
            );
        }
        if update && *prior == planned {
            // No change: the plan is the prior state, which `planned` equals.
            return Plan {
                planned,
                requires_replace: Vec::new(),
            };
        }
        let mut requires_replace = Vec::new();
        if update {
            let mut path = AttributePath::new();
            replaced_block(
                &self.block,
                [prior, &planned, config],
                &mut path,
                &mut requires_replace,
                0,
            );
        }
        Walk::new(self, Pass::Unknowns, update).block(
            &self.block,
            &mut planned,
            Some(config),
            Prior::Proposal(Some(prior)),
        );
        Plan {
            planned,
            requires_replace,
        }
    }

    /// As [`plan_owned`](Planner::plan_owned) for a create (no prior state) whose
    /// configuration is the proposal, as Terraform proposes it: planned in one walk,
    /// without a copy of the configuration.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, Planner};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new()
    ///     .attribute("id", Attribute::computed(Type::String))
    ///     .attribute("port", Attribute::optional_computed(Type::Number).default_value(8080))
    ///     .attribute("name", Attribute::required(Type::String));
    /// let planner = Planner::new(block);
    /// let config = Value::Object(
    ///     [("id".to_owned(), Value::Null), ("name".to_owned(), Value::from("web")), ("port".to_owned(), Value::Null)].into(),
    /// );
    /// let plan = planner.plan_create(config.clone());
    /// assert_eq!(plan, planner.plan_owned(&Value::Null, config.clone(), &config));
    /// assert!(plan.planned["id"].is_unknown());
    /// assert_eq!(plan.planned["port"], Value::from(8080));
    /// ```
    pub fn plan_create(&self, config: Value) -> Plan {
        let mut w = Walk::new(self, Pass::Create, false);
        let mut planned = config;
        w.block(&self.block, &mut planned, None, Prior::Proposal(None));
        Plan {
            planned,
            requires_replace: Vec::new(),
        }
    }

    /// As [`plan_owned`](Planner::plan_owned) where the proposal is the prior state
    /// (Terraform proposes the prior state when the configuration changes nothing the
    /// state holds): the plan when it is a plan of no change, `proposed` itself; `None`
    /// when planning changes something (a default the state does not hold yet), and then
    /// only [`plan_owned`](Planner::plan_owned) with the prior state says what the plan
    /// is. No copy of the prior state is needed for either answer.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, Planner};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new()
    ///     .attribute("id", Attribute::computed(Type::String))
    ///     .attribute("port", Attribute::optional_computed(Type::Number).default_value(8080))
    ///     .attribute("name", Attribute::required(Type::String));
    /// let planner = Planner::new(block);
    /// let obj = |id: Value, port: Value| {
    ///     Value::Object(
    ///         [("id".to_owned(), id), ("name".to_owned(), Value::from("web")), ("port".to_owned(), port)].into(),
    ///     )
    /// };
    /// let config = obj(Value::Null, Value::Null);
    /// // The state holds the default: nothing to change.
    /// let state = obj(Value::from("i-1"), Value::from(8080));
    /// let plan = planner.plan_no_change(state.clone(), &config).unwrap();
    /// assert_eq!(plan.planned, state);
    /// assert!(plan.requires_replace.is_empty());
    /// // A state from before the default: planning sets it, a change.
    /// let older = obj(Value::from("i-1"), Value::Null);
    /// assert!(planner.plan_no_change(older.clone(), &config).is_none());
    /// assert_eq!(planner.plan_owned(&older, older.clone(), &config).planned["port"], Value::from(8080));
    /// ```
    pub fn plan_no_change(&self, proposed: Value, config: &Value) -> Option<Plan> {
        if !self.defaults {
            return Some(Plan {
                planned: proposed,
                requires_replace: Vec::new(),
            });
        }
        let mut w = Walk::new(self, Pass::Defaults, !proposed.is_null());
        let mut planned = proposed;
        // The defaults pass is the only one before `plan_owned` compares the plan with
        // the prior state, and it changes nothing but defaults: the plan is the prior
        // state exactly when it set none that was not there.
        w.block(
            &self.block,
            &mut planned,
            Some(config),
            Prior::Proposal(None),
        );
        (!w.changed).then(|| Plan {
            planned,
            requires_replace: Vec::new(),
        })
    }

    /// Plans a change of a model: as [`Planner::plan`], on the values of `M`. `None` is
    /// the null object: no prior state on create, no proposal and no configuration on
    /// destroy.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use tfvalue::schema::Planner;
    /// use tfvalue::{Refinements, TfValue, Unknown};
    ///
    /// #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    /// struct Bucket {
    ///     #[tfvalue(requires_replace)]
    ///     name: Unknown<String>,
    ///     #[tfvalue(computed)]
    ///     id: Unknown<Option<String>>,
    /// }
    ///
    /// let config = Bucket { name: "logs".to_owned().into(), id: Unknown::null() };
    /// let planner = Planner::for_model::<Bucket>().refine("id", Refinements::new().not_null())?;
    /// let plan = planner.plan_model(None, Some(&config), Some(&config))?;
    /// let planned = plan.planned.unwrap();
    /// assert!(planned.id.is_unknown());
    /// assert!(planned.id.refinements().unwrap().is_not_null());
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A model value that does not fit the block's type, or a planned value that does not
    /// fit `M` (a computed attribute whose field cannot hold an unknown).
    pub fn plan_model<M>(
        &self,
        prior: Option<&M>,
        proposed: Option<&M>,
        config: Option<&M>,
    ) -> Result<Plan<Option<M>>>
    where
        M: Serialize + DeserializeOwned,
    {
        let ty = self.block.implied_type();
        let value = |m: Option<&M>| match m {
            Some(m) => model_value(m, &ty),
            None => Ok(Value::Null),
        };
        let plan = self.plan(&value(prior)?, &value(proposed)?, &value(config)?);
        let planned = if plan.planned.is_null() {
            None
        } else {
            Some(crate::convert::from_value(&plan.planned)?)
        };
        Ok(Plan {
            planned,
            requires_replace: plan.requires_replace,
        })
    }
}

/// A model's value as a [`Value`] of `ty`: `to_value_as`, one walk over the model.
pub(crate) fn model_value<T: Serialize + ?Sized>(
    model: &T,
    ty: &crate::types::Type,
) -> Result<Value> {
    crate::convert::to_value_as(model, ty)
}

/// A plan for a model, with the default [`Planner`] of its block.
///
/// # Errors
///
/// As [`Planner::plan_model`].
pub fn plan_model<M>(
    prior: Option<&M>,
    proposed: Option<&M>,
    config: Option<&M>,
) -> Result<Plan<Option<M>>>
where
    M: TfModel + Serialize + DeserializeOwned,
{
    Planner::for_model::<M>().plan_model(prior, proposed, config)
}

impl Block {
    /// Plans a change by the block's own facts: `Planner::new(self.clone()).plan(..)` (see
    /// [`Planner`]).
    pub fn plan(&self, prior: &Value, proposed: &Value, config: &Value) -> Plan {
        Planner::new(self.clone()).plan(prior, proposed, config)
    }
}

/// The two passes of [`Planner::plan`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Defaults for attributes configuration leaves null.
    Defaults,
    /// Unknowns for computed attributes configuration leaves null.
    Unknowns,
    /// Both at once, for a create whose configuration is the proposal (walked with no
    /// configuration: the proposal's own nulls say what configuration leaves null).
    Create,
}

/// Where an attribute's prior value is, for `use_state_for_unknown`.
#[derive(Clone, Copy)]
enum Prior<'v> {
    /// In the proposal: Terraform copied it there (at the same position). The prior
    /// state's value at the same path, if any, for a `match_by` collection inside.
    Proposal(Option<&'v Value>),
    /// This value: the prior element paired by `match_by` (or a part of one).
    Value(&'v Value),
    /// Nowhere: a new element.
    Absent,
}

impl<'v> Prior<'v> {
    fn get(self, name: &str) -> Prior<'v> {
        match self {
            Prior::Value(v) => v.get(name).map_or(Prior::Absent, Prior::Value),
            Prior::Proposal(v) => Prior::Proposal(v.and_then(|v| v.get(name))),
            Prior::Absent => Prior::Absent,
        }
    }
}

struct Walk<'p> {
    planner: &'p Planner,
    /// Where the walk is, kept only for a [`Planner::refine_with`] function (which is
    /// given it); `None` without one.
    path: Option<AttributePath>,
    /// How many steps deep the walk is.
    depth: usize,
    pass: Pass,
    /// The prior state is not null.
    update: bool,
    /// Whether the walk changed a value (the defaults pass sets defaults only).
    changed: bool,
}

impl<'p> Walk<'p> {
    fn new(planner: &'p Planner, pass: Pass, update: bool) -> Self {
        Walk {
            planner,
            path: planner.with.as_ref().map(|_| AttributePath::new()),
            depth: 0,
            pass,
            update,
            changed: false,
        }
    }

    fn enter(&mut self, step: impl FnOnce() -> PathStep) {
        self.depth += 1;
        if let Some(path) = &mut self.path {
            path.push(step());
        }
    }

    fn leave(&mut self) {
        self.depth -= 1;
        if let Some(path) = &mut self.path {
            path.pop();
        }
    }

    fn unknown_for(&self, attr: &Attribute) -> Value {
        if let (Some(f), Some(path)) = (&self.planner.with, &self.path) {
            if let Some(r) = f(path, attr) {
                return Value::Unknown(r);
            }
        }
        Value::Unknown(attr.refinements.clone())
    }

    /// Plans an object of `block` in place: `p` proposed, `c` its configuration (`None`
    /// when the configuration's counterpart is not known: an unpaired set element).
    fn block(&mut self, block: &Block, p: &mut Value, c: Option<&Value>, prior: Prior<'_>) {
        let Value::Object(pm) = p else {
            return;
        };
        let prior = match prior {
            Prior::Value(v) if !matches!(v.unwrap_dynamic(), Value::Object(_)) => Prior::Absent,
            Prior::Proposal(Some(v)) if !matches!(v.unwrap_dynamic(), Value::Object(_)) => {
                Prior::Proposal(None)
            }
            other => other,
        };
        if self.depth > crate::limits::DEFAULT_MAX_DEPTH {
            return;
        }
        // A null configuration object (a block left out) configures nothing in it.
        let null = Value::Null;
        for (name, attr) in &block.attributes {
            let Some(pv) = pm.get_mut(name) else { continue };
            let cv = c.map(|c| c.get(name.as_str()).unwrap_or(&null));
            self.enter(|| PathStep::Attr(name.to_string()));
            self.attribute(attr, pv, cv, prior.get(name));
            self.leave();
        }
        for (name, nb) in &block.block_types {
            if block.attributes.contains_key(name) {
                continue;
            }
            let Some(pv) = pm.get_mut(name) else { continue };
            let cv = c.map(|c| c.get(name.as_str()).unwrap_or(&null));
            self.enter(|| PathStep::Attr(name.to_string()));
            let shape = Shape {
                nesting: nb.nesting,
                match_by: nb.match_by.as_deref(),
            };
            self.elements(&nb.block, shape, pv, cv, prior.get(name));
            self.leave();
        }
    }

    fn attribute(&mut self, attr: &Attribute, p: &mut Value, c: Option<&Value>, prior: Prior<'_>) {
        // Left null by configuration; when the configuration is not known (an unpaired
        // set element), only a null proposal says so.
        let unset = c.map_or_else(|| p.is_null(), Value::is_null);
        if unset && attr.computed {
            match (self.pass, &attr.default) {
                (Pass::Defaults, Some(d)) => {
                    let d = d.to_value();
                    if *p != d {
                        self.changed = true;
                        *p = d;
                    }
                    return;
                }
                (Pass::Create, Some(d)) => {
                    *p = d.to_value();
                    if let AttributeType::Nested(n) = &attr.ty {
                        // What the unknowns pass does in a default it finds set: plans
                        // it as configured null.
                        self.pass = Pass::Unknowns;
                        self.nested(n, p, Some(&Value::Null), prior);
                        self.pass = Pass::Create;
                    }
                    return;
                }
                (Pass::Create, None) => {
                    *p = self.unknown_for(attr);
                    return;
                }
                (Pass::Unknowns, None) => {
                    let keep = attr.use_state_for_unknown && self.update;
                    match prior {
                        Prior::Proposal(_) if keep && !p.is_null() => {}
                        Prior::Value(v) if keep && !v.is_null() => v.clone_into(p),
                        _ => *p = self.unknown_for(attr),
                    }
                    return;
                }
                _ => {}
            }
        }
        if let AttributeType::Nested(n) = &attr.ty {
            self.nested(n, p, c, prior);
        }
    }

    /// Plans the objects of a nested attribute's value in place.
    fn nested(&mut self, n: &NestedType, p: &mut Value, c: Option<&Value>, prior: Prior<'_>) {
        let (inner, nesting) = as_block(n);
        let shape = Shape {
            nesting,
            match_by: n.match_by.as_deref(),
        };
        self.elements(&inner, shape, p, c, prior);
    }

    /// Plans each object of a single, list, set or map value of `block`s in place. The
    /// configuration's element at the same index or key is the element's configuration;
    /// in a set, the one [`pair_set_unconfirmed`] finds.
    fn elements(
        &mut self,
        block: &Block,
        shape: Shape<'_>,
        p: &mut Value,
        c: Option<&Value>,
        prior: Prior<'_>,
    ) {
        // The defaults pass changes nothing where no attribute has a default (nor pairs
        // a large set's elements for nothing).
        if self.pass == Pass::Defaults && !block_has_default(block) {
            return;
        }
        let nesting = shape.nesting;
        if matches!(nesting, NestingMode::Single | NestingMode::Group) {
            return self.block(block, p, c, prior);
        }
        let c = c.map(Value::unwrap_dynamic);
        let p = match p {
            Value::Dynamic(d) => d.value_mut(),
            other => other,
        };
        match p {
            Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
                // Defaults every element holds already are not set again: nothing to do,
                // nor elements to pair for it (a state planned before holds them all).
                if self.pass == Pass::Defaults && defaults_hold(block, vs) {
                    return;
                }
                // Candidates among the set's pairs are confirmed as the walk reaches
                // them (below), when both elements are about to be read anyway.
                let (mut pairs, mut candidate) = match (nesting, c) {
                    (NestingMode::Set, Some(Value::Set(cs) | Value::List(cs))) => {
                        pair_set_unconfirmed(block, vs, cs)
                    }
                    (NestingMode::Set, _) => (vec![None; vs.len()], Vec::new()),
                    (_, Some(Value::List(cs) | Value::Tuple(cs))) => (
                        (0..vs.len()).map(|i| cs.get(i).map(|_| i)).collect(),
                        Vec::new(),
                    ),
                    _ => (vec![None; vs.len()], Vec::new()),
                };
                let cs: &[Value] = match c {
                    Some(Value::List(cs) | Value::Set(cs) | Value::Tuple(cs)) => cs,
                    _ => &[],
                };
                // Each element's prior element: by `match_by`, else by position in a
                // list inside an element paired so, else the proposal's copy.
                fn elems(v: &Value) -> &[Value] {
                    match v.unwrap_dynamic() {
                        Value::List(ps) | Value::Set(ps) | Value::Tuple(ps) => ps,
                        _ => &[],
                    }
                }
                let (prior_elems, positional): (&[Value], bool) = match prior {
                    Prior::Value(v) => (elems(v), true),
                    Prior::Absent | Prior::Proposal(None) => (&[], false),
                    Prior::Proposal(Some(v)) => (elems(v), false),
                };
                // Without the prior elements (inside a set element, which has no prior
                // element of its own), the proposal's copy is all there is.
                let known_prior = !matches!(prior, Prior::Proposal(None));
                let by_key = match (shape.match_by, self.pass, self.update) {
                    (Some(key), Pass::Unknowns, true) if known_prior => Some({
                        confirm(block, vs, cs, &mut pairs, &mut candidate);
                        let ps = prior_elems;
                        let keys: Vec<Option<&Value>> = vs
                            .iter()
                            .enumerate()
                            .map(|(i, e)| {
                                let ce = pairs.get(i).copied().flatten().and_then(|j| cs.get(j));
                                ce.or(Some(e)).and_then(|x| x.get(key))
                            })
                            .collect();
                        (ps, pair_by_key(key, ps, &keys))
                    }),
                    _ => None,
                };
                let absent_here = matches!(prior, Prior::Absent);
                for (i, e) in vs.iter_mut().enumerate() {
                    if candidate.get(i) == Some(&true) {
                        confirm_one(block, e, cs, &mut pairs[i]);
                    }
                    let ce = pairs.get(i).copied().flatten().and_then(|j| cs.get(j));
                    let pe = match &by_key {
                        // Paired at its own position in a list: Terraform's copy there is
                        // the right one (and holds what the proposal made of it).
                        Some((ps, paired))
                            if nesting == NestingMode::List && paired[i] == Some(i) =>
                        {
                            Prior::Proposal(ps.get(i))
                        }
                        Some((ps, paired)) => paired[i]
                            .and_then(|j| ps.get(j))
                            .map_or(Prior::Absent, Prior::Value),
                        None if absent_here => Prior::Absent,
                        None if positional && nesting == NestingMode::List => {
                            prior_elems.get(i).map_or(Prior::Absent, Prior::Value)
                        }
                        // A set inside an element paired away from its position: the
                        // proposal copied another element's values, so none are kept.
                        None if positional => Prior::Absent,
                        None => Prior::Proposal(
                            (nesting == NestingMode::List)
                                .then(|| prior_elems.get(i))
                                .flatten(),
                        ),
                    };
                    self.enter(|| PathStep::Index(i as u64));
                    self.block(block, e, ce, pe);
                    self.leave();
                }
            }
            Value::Map(m) | Value::Object(m) => {
                for (k, e) in m.iter_mut() {
                    let ce = c.and_then(|c| c.get(k.as_str()));
                    self.enter(|| PathStep::Key(k.to_string()));
                    self.block(block, e, ce, prior.get(k.as_str()));
                    self.leave();
                }
            }
            _ => {}
        }
    }
}

/// How a nested collection is nested, and what identifies its elements.
#[derive(Clone, Copy)]
struct Shape<'s> {
    nesting: NestingMode,
    match_by: Option<&'s str>,
}

/// Pairs each planned element (by its key value, `None` when null or unknown) with the
/// prior element of the same key value (an index into `prior`), each prior element at
/// most once: `n log n` comparisons.
fn pair_by_key(key: &str, prior: &[Value], keys: &[Option<&Value>]) -> Vec<Option<usize>> {
    let usable = |v: &Value| !v.is_null() && v.is_wholly_known();
    let mut order: Vec<usize> = (0..prior.len())
        .filter(|&j| prior[j].get(key).is_some_and(usable))
        .collect();
    let kv = |j: usize| prior[j].get(key).unwrap_or(&Value::Null);
    order.sort_by(|&a, &b| cmp_canonical(kv(a), kv(b), false).then(a.cmp(&b)));
    // Within a run of equal keys, prior elements are taken in order: a cursor per run
    // (at the run's first position) says how many are taken, so repeated keys cost no
    // more than distinct ones.
    let mut taken = vec![0usize; order.len()];
    keys.iter()
        .map(|k| {
            let k = (*k).filter(|k| usable(k))?;
            let start =
                order.partition_point(|&j| cmp_canonical(kv(j), k, false) == Ordering::Less);
            let at = start + *taken.get(start)?;
            let j = *order.get(at)?;
            if cmp_canonical(kv(j), k, false) != Ordering::Equal {
                return None;
            }
            taken[start] += 1;
            Some(j)
        })
        .collect()
}

/// [`pair_set_unconfirmed`]'s pairs, every candidate confirmed.
#[cfg(test)]
fn pair_set(block: &Block, proposed: &[Value], config: &[Value]) -> Vec<Option<usize>> {
    let (mut pairs, mut candidate) = pair_set_unconfirmed(block, proposed, config);
    confirm(block, proposed, config, &mut pairs, &mut candidate);
    pairs
}

/// Confirms every candidate pair of `pairs` (see [`pair_set_unconfirmed`]).
fn confirm(
    block: &Block,
    proposed: &[Value],
    config: &[Value],
    pairs: &mut [Option<usize>],
    candidate: &mut [bool],
) {
    for ((p, pair), c) in proposed.iter().zip(pairs).zip(candidate) {
        if std::mem::take(c) {
            confirm_one(block, p, config, pair);
        }
    }
}

/// Keeps the candidate pair of `proposed` if the two elements are equal but for their
/// computed values, else leaves `proposed` unpaired (the two shared a hash by chance: an
/// element equal to it would have had the same hash, and been found).
fn confirm_one(block: &Block, proposed: &Value, config: &[Value], pair: &mut Option<usize>) {
    if let Some(j) = *pair {
        let equal = config
            .get(j)
            .is_some_and(|c| Masked::of(block).cmp(proposed, c, 0) == Ordering::Equal);
        if !equal {
            *pair = None;
        }
    }
}

/// Pairs each proposed element of a set of `block` objects with the configuration
/// element it came from (an index into `config`), as Terraform pairs them: the two agree
/// on everything but computed attributes. Elements are ordered by their value with the
/// computed attributes left out (or by a hash of that), so pairing takes `n log n`
/// steps; among elements equal that way, a configuration element pairs with the proposed
/// one that agrees with its configured computed values. The pairs found by hash alone
/// are candidates (`true` in the second vector, which is empty when there are none) for
/// [`confirm`] or [`confirm_one`] to confirm.
fn pair_set_unconfirmed(
    block: &Block,
    proposed: &[Value],
    config: &[Value],
) -> (Vec<Option<usize>>, Vec<bool>) {
    let view = Masked::of(block);
    let mask = hash_mask();
    let mut out = vec![None; proposed.len()];
    // Where both sides already come in the masked order (the configuration's elements as
    // Terraform sorts them, a proposal that follows them), one pass tells, and they are
    // merged as they come.
    let in_order = |vs: &[Value]| {
        vs.windows(2)
            .all(|w| view.cmp(&w[0], &w[1], 0) != Ordering::Greater)
    };
    if in_order(proposed) && in_order(config) {
        let all = |n: usize| (0..n).collect::<Vec<_>>();
        merge_runs(
            block,
            view,
            proposed,
            config,
            &all(proposed.len()),
            &all(config.len()),
            &mut out,
        );
        return (out, Vec::new());
    }
    // Else (a proposal that carries the prior state's computed values comes in the
    // order of those values) each element is hashed once, as the comparator sees it, and
    // both sides are sorted and merged by the hashes alone: numbers in two arrays, no
    // element touched. A hash found once on each side is a candidate pair, to be confirmed
    // by one comparison (unequal, it is a collision and neither element has a partner: an
    // equal partner would share the hash); the planner's walk confirms it when it reaches
    // the element, reading the two elements once for both. A hash found more than once on
    // a side (elements equal but for computed values, or a collision) is sorted by the
    // comparator and paired as the ordered case pairs.
    let hashed = |vs: &[Value]| -> Vec<(u64, usize)> {
        let mut hs: Vec<(u64, usize)> = vs
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut h = Fold(0);
                view.hash(v, 0, &mut h);
                (h.0 & mask, i)
            })
            .collect();
        hs.sort_unstable();
        hs
    };
    let pi = hashed(proposed);
    let ci = hashed(config);
    let mut candidate = vec![false; proposed.len()];
    equal_hash_runs(&pi, &ci, |pr, cr| match (pr, cr) {
        ([(_, p)], [(_, c)]) => {
            if let (Some(o), Some(k)) = (out.get_mut(*p), candidate.get_mut(*p)) {
                *o = Some(*c);
                *k = true;
            }
        }
        _ => {
            let by_value = |vs: &[Value], run: &[(u64, usize)]| {
                let mut r: Vec<usize> = run.iter().map(|x| x.1).collect();
                r.sort_by(|&a, &b| view.cmp(&vs[a], &vs[b], 0));
                r
            };
            let (pr, cr) = (by_value(proposed, pr), by_value(config, cr));
            merge_runs(block, view, proposed, config, &pr, &cr, &mut out);
        }
    });
    (out, candidate)
}

/// The bits of the hashes [`pair_set_unconfirmed`] keeps: all of them, but in the tests,
/// which make collisions common with fewer.
fn hash_mask() -> u64 {
    #[cfg(test)]
    return tests::HASH_MASK.with(std::cell::Cell::get);
    #[cfg(not(test))]
    u64::MAX
}

/// Pairs the elements of `pi` (indices into `proposed`) with those of `ci` (into
/// `config`), both in the masked order, into `out`: a merge, and within each run of
/// elements equal that way, equal elements first, then configuration elements by how
/// many computed values they configure (the most particular first), then any.
fn merge_runs(
    block: &Block,
    view: Masked<'_>,
    proposed: &[Value],
    config: &[Value],
    pi: &[usize],
    ci: &[usize],
    out: &mut [Option<usize>],
) {
    let (mut i, mut j) = (0, 0);
    while i < pi.len() && j < ci.len() {
        match view.cmp(&proposed[pi[i]], &config[ci[j]], 0) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                // The runs of equal elements on both sides (each starting with the two
                // just found equal).
                let run = &proposed[pi[i]];
                let pe = i
                    + 1
                    + pi[i + 1..]
                        .iter()
                        .take_while(|&&x| view.cmp(&proposed[x], run, 0) == Ordering::Equal)
                        .count();
                let ce = j
                    + 1
                    + ci[j + 1..]
                        .iter()
                        .take_while(|&&x| view.cmp(&config[x], run, 0) == Ordering::Equal)
                        .count();
                let mut used = vec![false; pe - i];
                let mut group: Vec<usize> = ci[j..ce].to_vec();
                group.sort_by_key(|&cj| std::cmp::Reverse(configured_computed(block, &config[cj])));
                let mut left = Vec::new();
                for &cj in &group {
                    match (i..pe).find(|&k| !used[k - i] && config[cj] == proposed[pi[k]]) {
                        Some(k) => {
                            used[k - i] = true;
                            out[pi[k]] = Some(cj);
                        }
                        None => left.push(cj),
                    }
                }
                for cj in left {
                    let found = (i..pe)
                        .find(|&k| !used[k - i] && agrees(block, &config[cj], &proposed[pi[k]]))
                        .or_else(|| (i..pe).find(|&k| !used[k - i]));
                    if let Some(k) = found {
                        used[k - i] = true;
                        out[pi[k]] = Some(cj);
                    }
                }
                (i, j) = (pe, ce);
            }
        }
    }
}

/// The attributes and blocks of an object whose computed attributes (at any depth) set
/// pairing leaves out: a block, or a nested attribute's objects.
#[derive(Clone, Copy)]
struct Masked<'b> {
    attributes: &'b BTreeMap<String, Attribute>,
    blocks: Option<&'b BTreeMap<String, super::NestedBlock>>,
}

impl<'b> Masked<'b> {
    fn of(block: &'b Block) -> Self {
        Masked {
            attributes: &block.attributes,
            blocks: Some(&block.block_types),
        }
    }

    /// The members of an object of this view, looked up by ascending names as an object's
    /// members come (the attributes and the blocks are in name order too): each found by
    /// walking along, not by a search.
    fn members(self) -> Members<'b> {
        Members {
            attributes: self.attributes.iter().peekable(),
            blocks: self.blocks.map(|b| b.iter().peekable()),
        }
    }

    /// The order of `masked(a)` and `masked(b)` (canonical, every computed attribute
    /// null) without the copies: computed attributes compare equal, the rest as
    /// `cmp_canonical` compares them.
    fn cmp(self, a: &Value, b: &Value, depth: usize) -> Ordering {
        let (Value::Object(x), Value::Object(y)) = (a, b) else {
            return cmp_canonical(a, b, false);
        };
        if depth > crate::limits::DEFAULT_MAX_DEPTH {
            return cmp_canonical(a, b, false);
        }
        let mut members = self.members();
        lexicographic(x.iter(), y.iter(), |(xk, xv), (yk, yv)| {
            crate::private::bytes_cmp(xk.as_bytes(), yk.as_bytes()).then_with(|| {
                match members.find(xk) {
                    Member::Computed => Ordering::Equal,
                    Member::Objects(inner) => inner.elements(xv, yv, depth + 1),
                    Member::Plain => cmp_canonical(xv, yv, false),
                }
            })
        })
    }

    /// The order of two values whose objects (the value itself, or the elements of a
    /// collection) are masked, as `map_elements` masks them.
    fn elements(self, x: &Value, y: &Value, depth: usize) -> Ordering {
        match (x, y) {
            (Value::Dynamic(dx), Value::Dynamic(dy)) => dx.ty().cmp(dy.ty()).then_with(|| {
                match (dx.value(), dy.value()) {
                    // `map_elements` masks an object only when it is not wrapped.
                    (Value::Object(_), _) | (_, Value::Object(_)) => {
                        cmp_canonical(dx.value(), dy.value(), false)
                    }
                    (vx, vy) => self.elements(vx, vy, depth),
                }
            }),
            (Value::List(xs), Value::List(ys)) | (Value::Tuple(xs), Value::Tuple(ys)) => {
                lexicographic(xs.iter(), ys.iter(), |xe, ye| self.cmp(xe, ye, depth))
            }
            // A set's masked elements sort and merge anew: compared through copies (a set
            // inside a set element is rare).
            (Value::Set(_), Value::Set(_)) => {
                let mask = |v: &Value| {
                    let block = Block {
                        attributes: self.attributes.clone(),
                        block_types: self.blocks.cloned().unwrap_or_default(),
                        ..Block::default()
                    };
                    map_elements(v, |e| masked(&block, e, depth))
                };
                cmp_canonical(&mask(x), &mask(y), false)
            }
            (Value::Map(xm), Value::Map(ym)) => {
                lexicographic(xm.iter(), ym.iter(), |(xk, xe), (yk, ye)| {
                    crate::private::bytes_cmp(xk.as_bytes(), yk.as_bytes())
                        .then_with(|| self.cmp(xe, ye, depth))
                })
            }
            (Value::Object(_), Value::Object(_)) => self.cmp(x, y, depth),
            _ => cmp_canonical(x, y, false),
        }
    }

    /// A hash of `v` that elements [`Masked::cmp`] finds equal share.
    fn hash(self, v: &Value, depth: usize, h: &mut Fold) {
        let Value::Object(x) = v else {
            return canonical_hash(v, h);
        };
        if depth > crate::limits::DEFAULT_MAX_DEPTH {
            return canonical_hash(v, h);
        }
        h.write_u8(6);
        let mut members = self.members();
        for (k, e) in x.iter() {
            h.write(k.as_bytes());
            match members.find(k) {
                Member::Computed => {}
                Member::Objects(inner) => inner.hash_elements(e, depth + 1, h),
                Member::Plain => canonical_hash(e, h),
            }
        }
    }

    /// A hash of `v` that values [`Masked::elements`] finds equal share.
    fn hash_elements(self, v: &Value, depth: usize, h: &mut Fold) {
        match v {
            Value::Dynamic(d) => match d.value() {
                inner @ Value::Object(_) => canonical_hash(inner, h),
                inner => self.hash_elements(inner, depth, h),
            },
            Value::List(vs) | Value::Tuple(vs) => {
                h.write_u8(4);
                for e in vs {
                    self.hash(e, depth, h);
                }
            }
            Value::Set(_) => h.write_u8(5),
            Value::Map(m) => {
                h.write_u8(6);
                for (k, e) in m.iter() {
                    h.write(k.as_bytes());
                    self.hash(e, depth, h);
                }
            }
            Value::Object(_) => self.hash(v, depth, h),
            _ => canonical_hash(v, h),
        }
    }
}

/// What a member of a masked object is (see [`Masked::members`]).
enum Member<'b> {
    /// A computed attribute: left out.
    Computed,
    /// A nested attribute or a block: its objects are masked in turn.
    Objects(Masked<'b>),
    /// Anything else, compared whole.
    Plain,
}

/// The attributes and blocks of a [`Masked`] view, walked along by ascending names.
struct Members<'b> {
    attributes: std::iter::Peekable<std::collections::btree_map::Iter<'b, String, Attribute>>,
    blocks: Option<
        std::iter::Peekable<std::collections::btree_map::Iter<'b, String, super::NestedBlock>>,
    >,
}

impl<'b> Members<'b> {
    /// The member `name` (names asked in ascending order); an attribute wins over a block
    /// of the same name, as `masked` has it.
    fn find(&mut self, name: &str) -> Member<'b> {
        if let Some(attr) = seek(&mut self.attributes, name) {
            return match &attr.ty {
                _ if attr.computed => Member::Computed,
                AttributeType::Nested(n) => Member::Objects(Masked {
                    attributes: &n.attributes,
                    blocks: None,
                }),
                AttributeType::Type(_) => Member::Plain,
            };
        }
        match self.blocks.as_mut().and_then(|b| seek(b, name)) {
            Some(nb) => Member::Objects(Masked::of(&nb.block)),
            None => Member::Plain,
        }
    }
}

/// The lexicographic order of two sequences, elements compared by `f`, a shorter prefix
/// first.
fn lexicographic<A, B>(
    x: impl IntoIterator<Item = A>,
    y: impl IntoIterator<Item = B>,
    mut f: impl FnMut(A, B) -> Ordering,
) -> Ordering {
    let mut y = y.into_iter();
    for a in x {
        let Some(b) = y.next() else {
            return Ordering::Greater;
        };
        let o = f(a, b);
        if o != Ordering::Equal {
            return o;
        }
    }
    if y.next().is_some() {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// The entry of `entries` (in name order, walked along by ascending names) named `name`.
fn seek<'a, V>(
    entries: &mut std::iter::Peekable<std::collections::btree_map::Iter<'a, String, V>>,
    name: &str,
) -> Option<&'a V> {
    while let Some(&(n, v)) = entries.peek() {
        match crate::private::bytes_cmp(n.as_bytes(), name.as_bytes()) {
            Ordering::Less => {
                entries.next();
            }
            Ordering::Equal => {
                entries.next();
                return Some(v);
            }
            Ordering::Greater => return None,
        }
    }
    None
}

/// An object of `block` with every computed attribute (at any depth) null.
fn masked(block: &Block, v: &Value, depth: usize) -> Value {
    let Value::Object(m) = v else {
        return v.clone();
    };
    if depth > crate::limits::DEFAULT_MAX_DEPTH {
        return v.clone();
    }
    let mut out = m.clone();
    for (name, attr) in &block.attributes {
        let Some(x) = out.get_mut(name.as_str()) else {
            continue;
        };
        if attr.computed {
            *x = Value::Null;
        } else if let AttributeType::Nested(n) = &attr.ty {
            let inner = Block {
                attributes: n.attributes.clone(),
                ..Block::default()
            };
            *x = map_elements(x, |e| masked(&inner, e, depth + 1));
        }
    }
    for (name, nb) in &block.block_types {
        if block.attributes.contains_key(name) {
            continue;
        }
        if let Some(x) = out.get_mut(name.as_str()) {
            *x = map_elements(x, |e| masked(&nb.block, e, depth + 1));
        }
    }
    Value::Object(out)
}

/// `v` with `f` applied to each object in it (itself, or the elements of a collection).
fn map_elements(v: &Value, f: impl Fn(&Value) -> Value) -> Value {
    match v.unwrap_dynamic() {
        Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
            let out: Vec<Value> = vs.iter().map(&f).collect();
            rebuild(v, |inner| match inner {
                Value::List(_) => Value::List(out),
                Value::Set(_) => Value::Set(out),
                _ => Value::Tuple(out),
            })
        }
        Value::Map(m) => {
            let out = m.iter().map(|(k, e)| (k.clone(), f(e))).collect();
            rebuild(v, |_| Value::Map(out))
        }
        Value::Object(_) => f(v),
        _ => v.clone(),
    }
}

/// How many computed attributes at the top of a configuration object are set.
fn configured_computed(block: &Block, c: &Value) -> usize {
    block
        .attributes
        .iter()
        .filter(|(name, attr)| attr.computed && c.get(name.as_str()).is_some_and(|v| !v.is_null()))
        .count()
}

/// Whether the configured (non-null) computed attributes of `c`, at the top of the
/// object, are what `p` holds.
fn agrees(block: &Block, c: &Value, p: &Value) -> bool {
    block.attributes.iter().all(|(name, attr)| {
        let cv = c.get(name.as_str()).unwrap_or(&Value::Null);
        !attr.computed || cv.is_null() || Some(cv) == p.get(name.as_str())
    })
}

/// A nested attribute's objects as a block of its attributes, and how they nest.
fn as_block(n: &NestedType) -> (Block, NestingMode) {
    let inner = Block {
        attributes: n.attributes.clone(),
        ..Block::default()
    };
    (inner, nesting_of(n.nesting))
}

/// A nested attribute's nesting as a block's.
pub(crate) fn nesting_of(n: ObjectNesting) -> NestingMode {
    match n {
        ObjectNesting::Single => NestingMode::Single,
        ObjectNesting::List => NestingMode::List,
        ObjectNesting::Set => NestingMode::Set,
        ObjectNesting::Map => NestingMode::Map,
    }
}

/// `p` with its (possibly dynamic-wrapped) collection replaced.
fn rebuild(p: &Value, f: impl FnOnce(&Value) -> Value) -> Value {
    match p {
        Value::Dynamic(d) => {
            let inner = f(d.value());
            Value::Dynamic(Box::new(crate::dynamic::Dynamic::new(
                d.ty().clone(),
                inner,
            )))
        }
        other => f(other),
    }
}

/// The prior, planned and configured values at one place (`Null` where absent).
type Three<'v> = [&'v Value; 3];

fn get3<'v>(v: Three<'v>, name: &str) -> Three<'v> {
    v.map(|x| x.get(name).unwrap_or(&Value::Null))
}

fn replaced_block(
    block: &Block,
    v: Three<'_>,
    path: &mut AttributePath,
    out: &mut Vec<AttributePath>,
    depth: usize,
) {
    if depth > crate::limits::DEFAULT_MAX_DEPTH {
        return;
    }
    for (name, attr) in &block.attributes {
        let here = get3(v, name);
        path.push(PathStep::Attr(name.to_string()));
        if attr.requires_replace {
            let [pv, nv, cv] = here;
            let replaces = attr.replace_if.as_ref().is_none_or(|r| r.holds(pv, nv, cv));
            if pv != nv && replaces {
                out.push(path.clone());
            }
        } else if let AttributeType::Nested(n) = &attr.ty {
            if n.attributes.values().any(has_requires_replace) {
                let (inner, nesting) = as_block(n);
                let shape = Shape {
                    nesting,
                    match_by: n.match_by.as_deref(),
                };
                replaced_elements(&inner, shape, here, path, out, depth);
            }
        }
        path.pop();
    }
    for (name, nb) in &block.block_types {
        if block.attributes.contains_key(name) || !block_has_requires_replace(&nb.block) {
            continue;
        }
        path.push(PathStep::Attr(name.to_string()));
        let shape = Shape {
            nesting: nb.nesting,
            match_by: nb.match_by.as_deref(),
        };
        replaced_elements(&nb.block, shape, get3(v, name), path, out, depth);
        path.pop();
    }
}

fn replaced_elements(
    block: &Block,
    shape: Shape<'_>,
    v: Three<'_>,
    path: &mut AttributePath,
    out: &mut Vec<AttributePath>,
    depth: usize,
) {
    let null = Value::Null;
    let [p, n, c] = v.map(Value::unwrap_dynamic);
    fn elems(x: &Value) -> Option<&[Value]> {
        match x {
            Value::List(vs) | Value::Tuple(vs) => Some(vs),
            _ => None,
        }
    }
    match shape.nesting {
        NestingMode::Single | NestingMode::Group => {
            replaced_block(block, [p, n, c], path, out, depth + 1);
        }
        NestingMode::Set => {
            if p != n {
                out.push(path.clone());
            }
        }
        NestingMode::List => match (elems(p), elems(n)) {
            (Some(ps), Some(ns)) => {
                let cs = elems(c).unwrap_or_default();
                // Paired by `match_by`: each planned element against its prior one, a
                // new one against null; a removed one has nothing planned to replace.
                // Else by position.
                let paired: Vec<Option<usize>> = match shape.match_by {
                    Some(key) => {
                        let keys: Vec<Option<&Value>> = ns.iter().map(|e| e.get(key)).collect();
                        pair_by_key(key, ps, &keys)
                    }
                    None => (0..ps.len().max(ns.len())).map(Some).collect(),
                };
                for (i, j) in paired.into_iter().enumerate() {
                    path.push(PathStep::Index(i as u64));
                    let three = [
                        j.and_then(|j| ps.get(j)).unwrap_or(&null),
                        ns.get(i).unwrap_or(&null),
                        cs.get(i).unwrap_or(&null),
                    ];
                    replaced_block(block, three, path, out, depth + 1);
                    path.pop();
                }
            }
            _ if p != n => out.push(path.clone()),
            _ => {}
        },
        NestingMode::Map => match (p, n) {
            (Value::Map(pm) | Value::Object(pm), Value::Map(nm) | Value::Object(nm)) => {
                let keys: std::collections::BTreeSet<&crate::value::Key> =
                    pm.keys().chain(nm.keys()).collect();
                for k in keys {
                    path.push(PathStep::Key(k.to_string()));
                    replaced_block(block, get3([p, n, c], k.as_str()), path, out, depth + 1);
                    path.pop();
                }
            }
            _ if p != n => out.push(path.clone()),
            _ => {}
        },
    }
}

fn has_requires_replace(attr: &Attribute) -> bool {
    attr.requires_replace
        || attr
            .nested_type()
            .is_some_and(|n| n.attributes.values().any(has_requires_replace))
}

/// Whether `a`, or an attribute nested in it, has a default.
fn attribute_has_default(a: &Attribute) -> bool {
    a.default.is_some()
        || a.nested_type()
            .is_some_and(|n| n.attributes.values().any(attribute_has_default))
}

/// Whether `block` declares a default anywhere (a provider's schema: as deep as it is
/// written, as the other walks of the schema here).
fn block_has_default(block: &Block) -> bool {
    block.attributes.values().any(attribute_has_default)
        || block
            .block_types
            .values()
            .any(|nb| block_has_default(&nb.block))
}

/// Whether the defaults pass would leave `objects`, objects of `block`, as they are:
/// each holds the default of every attribute that has one, and no nested attribute or
/// block declares one (those are not looked into: `false`, and the pass walks them).
fn defaults_hold(block: &Block, objects: &[Value]) -> bool {
    let deep = block.attributes.values().any(|a| {
        a.nested_type()
            .is_some_and(|n| n.attributes.values().any(attribute_has_default))
    }) || block
        .block_types
        .values()
        .any(|nb| block_has_default(&nb.block));
    if deep {
        return false;
    }
    // Equal bytes or bools are equal values; anything else compares as the pass does.
    let holds = |d: &DefaultValue, v: &Value| match (d, v) {
        (DefaultValue::String(d), Value::String(v)) => d.as_bytes() == v.as_bytes(),
        (DefaultValue::Bool(d), Value::Bool(v)) => d == v,
        (DefaultValue::String(_) | DefaultValue::Bool(_), _) => false,
        (d, v) => *v == d.to_value(),
    };
    objects.iter().all(|o| match o {
        Value::Object(m) => block.attributes.iter().all(|(name, a)| {
            a.default
                .as_ref()
                .is_none_or(|d| m.get(name.as_str()).is_some_and(|v| holds(d, v)))
        }),
        _ => false,
    })
}

fn block_has_requires_replace(block: &Block) -> bool {
    block.attributes.values().any(has_requires_replace)
        || block
            .block_types
            .values()
            .any(|nb| block_has_requires_replace(&nb.block))
}

/// The attribute at dotted `names`, through attributes, nested attributes and blocks.
fn attribute_at_mut<'b>(block: &'b mut Block, names: &str) -> Option<&'b mut Attribute> {
    let (first, rest) = match names.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (names, None),
    };
    if let Some(attr) = block.attributes.get_mut(first) {
        return match rest {
            None => Some(attr),
            Some(rest) => match &mut attr.ty {
                AttributeType::Nested(n) => nested_attribute_at_mut(&mut n.attributes, rest),
                AttributeType::Type(_) => None,
            },
        };
    }
    let nb = block.block_types.get_mut(first)?;
    attribute_at_mut(&mut nb.block, rest?)
}

fn nested_attribute_at_mut<'b>(
    attributes: &'b mut std::collections::BTreeMap<String, Attribute>,
    names: &str,
) -> Option<&'b mut Attribute> {
    let (first, rest) = match names.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (names, None),
    };
    let attr = attributes.get_mut(first)?;
    match rest {
        None => Some(attr),
        Some(rest) => match &mut attr.ty {
            AttributeType::Nested(n) => nested_attribute_at_mut(&mut n.attributes, rest),
            AttributeType::Type(_) => None,
        },
    }
}

/// The dotted names of every computed attribute, for a message.
fn computed_names(block: &Block) -> Vec<String> {
    fn attrs(
        prefix: &str,
        m: &std::collections::BTreeMap<String, Attribute>,
        out: &mut Vec<String>,
        depth: usize,
    ) {
        if depth > crate::limits::DEFAULT_MAX_DEPTH {
            return;
        }
        for (name, a) in m {
            let full = format!("{prefix}{name}");
            if a.computed {
                out.push(full.clone());
            }
            if let AttributeType::Nested(n) = &a.ty {
                attrs(&format!("{full}."), &n.attributes, out, depth + 1);
            }
        }
    }
    fn walk(prefix: &str, b: &Block, out: &mut Vec<String>, depth: usize) {
        if depth > crate::limits::DEFAULT_MAX_DEPTH {
            return;
        }
        attrs(prefix, &b.attributes, out, depth);
        for (name, nb) in &b.block_types {
            walk(&format!("{prefix}{name}."), &nb.block, out, depth + 1);
        }
    }
    let mut out = Vec::new();
    walk("", block, &mut out, 0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::NestedBlock;
    use crate::types::Type;

    thread_local! {
        /// The bits of set elements' hashes the planner keeps (see `hash_mask`).
        pub(super) static HASH_MASK: std::cell::Cell<u64> = const { std::cell::Cell::new(u64::MAX) };
    }

    /// Runs `f` with the hashes of set elements cut to the bits of `mask`.
    fn with_mask<T>(mask: u64, f: impl FnOnce() -> T) -> T {
        HASH_MASK.with(|m| m.set(mask));
        let out = f();
        HASH_MASK.with(|m| m.set(u64::MAX));
        out
    }

    /// A small deterministic generator (xorshift), so that failures reproduce.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    fn leaf(r: &mut Rng) -> Value {
        match r.below(8) {
            0 => Value::Null,
            1 => Value::Unknown(Refinements::new()),
            2 => Value::Bool(r.below(2) == 1),
            3 => Value::from(r.below(3) as i64),
            4 => Value::from([1.0, 1.5, 2.0][r.below(3) as usize]),
            _ => Value::from(["a", "b", "é"][r.below(3) as usize]),
        }
    }

    /// Objects of `block` (or of anything, now and then), some members left out.
    fn object(r: &mut Rng, block: &Block, depth: usize) -> Value {
        if r.below(12) == 0 {
            return leaf(r);
        }
        let mut m = crate::value::Map::new();
        for (name, attr) in &block.attributes {
            if r.below(10) == 0 {
                continue;
            }
            let v = match &attr.ty {
                AttributeType::Nested(n) if depth < 3 => {
                    let inner = Block {
                        attributes: n.attributes.clone(),
                        ..Block::default()
                    };
                    collection(r, &inner, depth + 1)
                }
                _ if r.below(8) == 0 => Value::Dynamic(Box::new(crate::dynamic::Dynamic::new(
                    Type::String,
                    Value::from("d"),
                ))),
                _ => leaf(r),
            };
            m.insert(name.as_str(), v);
        }
        for (name, nb) in &block.block_types {
            if depth < 3 && r.below(10) != 0 {
                m.insert(name.as_str(), collection(r, &nb.block, depth + 1));
            }
        }
        if r.below(15) == 0 {
            m.insert("extra", leaf(r));
        }
        Value::Object(m)
    }

    fn collection(r: &mut Rng, block: &Block, depth: usize) -> Value {
        let n = r.below(3) as usize;
        let elems = |r: &mut Rng| (0..n).map(|_| object(r, block, depth)).collect::<Vec<_>>();
        match r.below(8) {
            0 => leaf(r),
            1 => Value::Set(elems(r)),
            2 => Value::Tuple(elems(r)),
            3 => {
                let mut m = crate::value::Map::new();
                for k in ["x", "y"].into_iter().take(n) {
                    m.insert(k, object(r, block, depth));
                }
                Value::Map(m)
            }
            4 => Value::Dynamic(Box::new(crate::dynamic::Dynamic::new(
                Type::list(Type::String),
                Value::List(elems(r)),
            ))),
            5 => object(r, block, depth),
            _ => Value::List(elems(r)),
        }
    }

    /// Set pairing by hashes pairs as sorting both sides by the comparator and merging
    /// them does, with hashes whole and cut to two bits (most hashes then collide: runs
    /// of unequal elements, candidates that are not equal), and with sides in order.
    #[test]
    fn pairing_by_hashes_pairs_as_sorting_by_the_comparator() {
        let block = Block::new()
            .attribute("id", Attribute::computed(Type::String))
            .attribute("name", Attribute::required(Type::String))
            .attribute("both", Attribute::optional_computed(Type::String))
            .attribute(
                "na",
                Attribute::nested(
                    NestedType::set()
                        .attribute("k", Attribute::required(Type::String))
                        .attribute("c", Attribute::computed(Type::Number)),
                ),
            );
        let view = Masked::of(&block);
        let mut r = Rng(0x2545_f491_4f6c_dd1d);
        let mut paired = 0;
        for case in 0..3_000 {
            let side = |r: &mut Rng| -> Vec<Value> {
                let n = r.below(12) as usize;
                (0..n)
                    .map(|_| {
                        let mut m = crate::value::Map::new();
                        m.insert("id", leaf(r));
                        m.insert("name", Value::from(["a", "b", "c"][r.below(3) as usize]));
                        m.insert("both", leaf(r));
                        if r.below(3) == 0 {
                            m.insert("na", collection(r, &block, 2));
                        }
                        Value::Object(m)
                    })
                    .collect()
            };
            let (mut p, mut c) = (side(&mut r), side(&mut r));
            let sorted = |vs: &[Value]| {
                let mut ix: Vec<usize> = (0..vs.len()).collect();
                ix.sort_by(|&a, &b| view.cmp(&vs[a], &vs[b], 0));
                ix
            };
            if case % 3 == 0 {
                // Both sides in the masked order: the merge without hashes.
                p = sorted(&p).into_iter().map(|i| p[i].clone()).collect();
                c = sorted(&c).into_iter().map(|i| c[i].clone()).collect();
            }
            let mut want = vec![None; p.len()];
            merge_runs(&block, view, &p, &c, &sorted(&p), &sorted(&c), &mut want);
            for mask in [u64::MAX, 0b11] {
                let got = with_mask(mask, || pair_set(&block, &p, &c));
                assert_eq!(got, want, "case {case}, mask {mask:#x}: {p:?} / {c:?}");
            }
            paired += want.iter().flatten().count();
        }
        assert!(paired > 3_000, "only {paired} pairs");
    }

    /// The planner, which confirms candidate pairs as its walk reaches them, plans a set
    /// of blocks the same whether hashes collide often (two bits kept) or not.
    #[test]
    fn plans_are_the_same_when_set_hashes_collide() {
        // Each rule with a nested set of ports (a computed `pid` in each), paired too.
        let ports = NestedType::set()
            .attribute("p", Attribute::required(Type::Number))
            .attribute("pid", Attribute::computed(Type::String));
        let rule = Block::new()
            .attribute("id", Attribute::computed(Type::String))
            .attribute("name", Attribute::required(Type::String))
            .attribute("both", Attribute::optional_computed(Type::String))
            .attribute("ports", Attribute::nested(ports).set_optional());
        let block = Block::new()
            .attribute("id", Attribute::computed(Type::String))
            .block("rule", NestedBlock::new(NestingMode::Set, rule));
        let mut r = Rng(0x1234_5678_9abc_def1);
        // A set of ports, the `pid`s null (configured) or set (proposed from a state).
        let ports = |r: &mut Rng, pids: bool| {
            let n = r.below(4);
            Value::Set(
                (0..n)
                    .map(|_| {
                        let mut m = crate::value::Map::new();
                        m.insert("p", Value::from(r.below(3) as i64));
                        let pid = if pids && r.below(3) != 0 {
                            Value::from(["q1", "q2"][r.below(2) as usize])
                        } else {
                            Value::Null
                        };
                        m.insert("pid", pid);
                        Value::Object(m)
                    })
                    .collect(),
            )
        };
        let text = |r: &mut Rng, xs: &[&str]| Value::from(xs[r.below(xs.len() as u64) as usize]);
        let mut differed = 0;
        for case in 0..2_000 {
            let n = r.below(10) as usize;
            let config: Vec<Value> = (0..n)
                .map(|_| {
                    let mut m = crate::value::Map::new();
                    m.insert("id", Value::Null);
                    m.insert("name", text(&mut r, &["a", "b", "c", "d"]));
                    let both = if r.below(2) == 0 {
                        Value::Null
                    } else {
                        text(&mut r, &["x", "y"])
                    };
                    m.insert("both", both);
                    m.insert("ports", ports(&mut r, false));
                    Value::Object(m)
                })
                .collect();
            // The proposal: the configuration's elements with computed values of a prior
            // state (or none), now and then one left out or changed.
            let (mut proposed, mut prior_rules) = (Vec::new(), Vec::new());
            for c in &config {
                if r.below(8) == 0 {
                    continue;
                }
                let mut m = match c {
                    Value::Object(m) => m.clone(),
                    _ => crate::value::Map::new(),
                };
                if r.below(2) == 0 {
                    m.insert("id", text(&mut r, &["i1", "i2", "i3"]));
                }
                if m.get("both").is_some_and(Value::is_null) && r.below(2) == 0 {
                    m.insert("both", text(&mut r, &["x", "z"]));
                }
                // Ports with computed values of a state, now and then.
                if r.below(2) == 0 {
                    m.insert("ports", ports(&mut r, true));
                }
                // The prior state had the element (or another name: a change).
                let mut before = m.clone();
                if r.below(5) == 0 {
                    before.insert("name", text(&mut r, &["a", "e"]));
                }
                prior_rules.push(Value::Object(before));
                // A name no configuration element has (an element without a partner).
                if r.below(4) == 0 {
                    m.insert("name", text(&mut r, &["e", "f", "g"]));
                }
                proposed.push(Value::Object(m));
            }
            let prior = Value::Object(
                [("id", Value::from("p")), ("rule", Value::Set(prior_rules))]
                    .into_iter()
                    .collect(),
            );
            let object = |rules: Vec<Value>, id: Value| {
                Value::Object(
                    [("id", id), ("rule", Value::Set(rules))]
                        .into_iter()
                        .collect(),
                )
            };
            let proposed = object(proposed, Value::from("p"));
            let config = object(config, Value::Null);
            let plan = |mask| with_mask(mask, || block.plan(&prior, &proposed, &config));
            let (whole, cut) = (plan(u64::MAX), plan(0b11));
            assert_eq!(whole.planned, cut.planned, "case {case}");
            assert_eq!(whole.requires_replace, cut.requires_replace, "case {case}");
            differed += usize::from(whole.planned != proposed);
        }
        assert!(
            differed > 100,
            "only {differed} plans differ from their proposal"
        );
    }

    /// Comparing without masked copies orders elements as comparing the copies does,
    /// across computed attributes, nested attributes and blocks of every nesting, values
    /// of the wrong shape, `dynamic` wrappers, unknowns and nulls.
    #[test]
    fn masked_comparison_agrees_with_comparing_masked_copies() {
        let inner = Block::new()
            .attribute("id", Attribute::computed(Type::String))
            .attribute("v", Attribute::optional(Type::String))
            .attribute("w", Attribute::optional_computed(Type::Bool));
        let nested = |n: NestedType| {
            n.attribute("k", Attribute::required(Type::String))
                .attribute("c", Attribute::computed(Type::Number))
        };
        let block = Block::new()
            .attribute("id", Attribute::computed(Type::String))
            .attribute("name", Attribute::required(Type::String))
            .attribute("port", Attribute::optional(Type::Number))
            .attribute("both", Attribute::optional_computed(Type::String))
            .attribute("na", Attribute::nested(nested(NestedType::set())))
            .attribute("nl", Attribute::nested(nested(NestedType::list())))
            .block("inner", NestedBlock::new(NestingMode::List, inner.clone()))
            .block("bag", NestedBlock::new(NestingMode::Set, inner.clone()))
            .block("named", NestedBlock::new(NestingMode::Map, inner));
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let view = Masked::of(&block);
        let mut equal = 0;
        for case in 0..20_000 {
            let a = object(&mut r, &block, 0);
            // Half the time a variant of `a`: equal masked values are the interesting case.
            let b = if r.below(2) == 0 {
                let mut b = a.clone();
                if let Value::Object(m) = &mut b {
                    for name in ["id", "both", "port"] {
                        if r.below(2) == 0 {
                            if let Some(v) = m.get_mut(name) {
                                *v = leaf(&mut r);
                            }
                        }
                    }
                }
                b
            } else {
                object(&mut r, &block, 0)
            };
            let want = cmp_canonical(&masked(&block, &a, 0), &masked(&block, &b, 0), false);
            assert_eq!(view.cmp(&a, &b, 0), want, "case {case}: {a:?} vs {b:?}");
            assert_eq!(view.cmp(&b, &a, 0), want.reverse(), "case {case} reversed");
            // Elements equal that way share a hash: pairing sorts by the hash first.
            let hash = |v: &Value| {
                let mut h = Fold(0);
                view.hash(v, 0, &mut h);
                h.0
            };
            if want == Ordering::Equal {
                assert_eq!(hash(&a), hash(&b), "case {case}: {a:?} vs {b:?}");
            }
            equal += usize::from(want == Ordering::Equal);
        }
        assert!(equal > 1_000, "only {equal} cases compare equal");
        // Values equal to `cmp_canonical` share `canonical_hash`, numbers of every
        // representation among them.
        for v in [
            Value::from(2i64),
            Value::from(2.0),
            Value::from(u64::MAX),
            Value::from(0.1),
        ] {
            for w in [
                Value::from(2i64),
                Value::from(2.0),
                Value::from(u64::MAX),
                Value::from(0.1),
            ] {
                if cmp_canonical(&v, &w, false) == Ordering::Equal {
                    let (mut x, mut y) = (Fold(0), Fold(0));
                    canonical_hash(&v, &mut x);
                    canonical_hash(&w, &mut y);
                    assert_eq!(x.0, y.0, "{v:?} and {w:?}");
                }
            }
        }
    }
}
