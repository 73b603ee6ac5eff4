//! The plan helper: from prior state, proposed new state and configuration, the planned
//! state and the attributes whose change replaces the resource (PlanResourceChange).

use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Attribute, AttributeType, Block, NestedBlock, NestingMode, ObjectNesting};
use crate::error::Result;
use crate::path::{AttributePath, PathStep};
use crate::tf_value::TfModel;
use crate::unknown::Refinements;
use crate::value::Value;

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

/// Plans a resource change the way every SDK does, from a schema [`Block`]:
///
/// - **Destroy** (the proposed new state is null): the plan is null.
/// - **No change** (the proposal equals the prior state): the plan is the proposal.
/// - Otherwise, a **computed** attribute (at any depth of blocks and nested attributes)
///   that is null in the proposal, and in configuration, becomes **unknown**: the
///   provider sets it at apply. Its refinements are the ones given with
///   [`Planner::refine`] or [`Planner::refine_with`] (none by default). Terraform has
///   already copied prior values of computed attributes that configuration leaves out
///   into the proposal, so values the provider set before are kept.
/// - Everything else is kept as proposed.
/// - On an update (the prior state is not null), every attribute marked
///   [`requires_replace`](Attribute::requires_replace) whose planned value differs from
///   its prior value (an unknown differs from every known value) is listed in
///   [`Plan::requires_replace`]. Inside a `SET` block or set of nested attributes, where
///   elements have no stable position, the set itself is listed.
///
/// ```
/// use tfvalue::schema::{Attribute, Block, Planner};
/// use tfvalue::{AttributePath, Refinements, Type, Value};
///
/// let block = Block::new()
///     .attribute("name", Attribute::required(Type::String).requires_replace())
///     .attribute("id", Attribute::computed(Type::String))
///     .attribute("arn", Attribute::computed(Type::String));
/// let obj = |name: &str, id: Value, arn: Value| {
///     Value::Object([("name".to_owned(), Value::from(name)), ("id".to_owned(), id), ("arn".to_owned(), arn)].into())
/// };
/// let planner = Planner::new(block).refine("arn", Refinements::new().not_null().with_prefix("arn:aws:"));
///
/// // Create: the computed attributes become unknown, refined as the provider said.
/// let config = obj("web", Value::Null, Value::Null);
/// let plan = planner.plan(&Value::Null, &config, &config);
/// assert_eq!(plan.planned["id"], Value::Unknown(Refinements::new()));
/// assert_eq!(plan.planned["arn"], Value::Unknown(Refinements::new().not_null().with_prefix("arn:aws:")));
///
/// // Update of an attribute that requires replacement.
/// let prior = obj("web", Value::from("i-1"), Value::from("arn:aws:1"));
/// let proposed = obj("api", Value::from("i-1"), Value::from("arn:aws:1"));
/// let plan = planner.plan(&prior, &proposed, &obj("api", Value::Null, Value::Null));
/// assert_eq!(plan.requires_replace, [AttributePath::new().attr("name")]);
/// assert_eq!(plan.planned, proposed);
/// ```
#[derive(Clone)]
pub struct Planner {
    block: Block,
    by_name: Vec<(String, Refinements)>,
    with: Option<std::sync::Arc<RefineFn>>,
}

impl fmt::Debug for Planner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Planner")
            .field("block", &self.block)
            .field("refine", &self.by_name)
            .field("refine_with", &self.with.is_some())
            .finish()
    }
}

impl Planner {
    /// A planner for resources of this block.
    pub fn new(block: Block) -> Self {
        Planner {
            block,
            by_name: Vec::new(),
            with: None,
        }
    }

    /// A planner for the model `M` (its [`TfModel::block`]).
    pub fn for_model<M: TfModel>() -> Self {
        Planner::new(M::block())
    }

    /// The block this planner follows.
    pub fn block(&self) -> &Block {
        &self.block
    }

    /// Refines the unknown planned for the computed attribute at `names`: its attribute
    /// names from the root, joined by `.`, with no element steps (`"disk.id"` is the `id`
    /// of every `disk` block).
    #[must_use]
    pub fn refine(mut self, names: impl Into<String>, refinements: Refinements) -> Self {
        self.by_name.push((names.into(), refinements));
        self
    }

    /// Refines the unknowns planned for computed attributes by a function of their full
    /// path and schema; `None` leaves the ones given by [`Planner::refine`] (or none).
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
        if !prior.is_null() && prior == proposed {
            return Plan {
                planned: proposed.clone(),
                requires_replace: Vec::new(),
            };
        }
        let mut w = Walk {
            planner: self,
            path: AttributePath::new(),
            names: Vec::new(),
        };
        let planned = w.block(&self.block, proposed, Some(config));
        let mut requires_replace = Vec::new();
        if !prior.is_null() {
            let mut path = AttributePath::new();
            replaced_block(
                &self.block,
                prior,
                &planned,
                &mut path,
                &mut requires_replace,
                0,
            );
        }
        Plan {
            planned,
            requires_replace,
        }
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
    /// let planner = Planner::for_model::<Bucket>().refine("id", Refinements::new().not_null());
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
    /// Plans a change with no refinements: `Planner::new(self.clone()).plan(..)` (see
    /// [`Planner`]).
    pub fn plan(&self, prior: &Value, proposed: &Value, config: &Value) -> Plan {
        Planner::new(self.clone()).plan(prior, proposed, config)
    }
}

struct Walk<'p> {
    planner: &'p Planner,
    path: AttributePath,
    /// Attribute names only, for [`Planner::refine`].
    names: Vec<String>,
}

impl Walk<'_> {
    fn enter_attr(&mut self, name: &str) {
        self.path.push(PathStep::Attr(name.to_owned()));
        self.names.push(name.to_owned());
    }

    fn leave_attr(&mut self) {
        self.path.pop();
        self.names.pop();
    }

    fn unknown_for(&self, attr: &Attribute) -> Value {
        if let Some(f) = &self.planner.with {
            if let Some(r) = f(&self.path, attr) {
                return Value::Unknown(r);
            }
        }
        let joined = self.names.join(".");
        let r = self
            .planner
            .by_name
            .iter()
            .rev()
            .find(|(n, _)| *n == joined)
            .map(|(_, r)| r.clone())
            .unwrap_or_default();
        Value::Unknown(r)
    }

    fn block(&mut self, block: &Block, p: &Value, c: Option<&Value>) -> Value {
        let Value::Object(pm) = p else {
            return p.clone();
        };
        if self.path.steps().len() > crate::limits::DEFAULT_MAX_DEPTH {
            return p.clone();
        }
        let mut out = pm.clone();
        for (name, attr) in &block.attributes {
            let Some(pv) = pm.get(name) else { continue };
            let cv = c.and_then(|c| c.get(name.as_str()));
            self.enter_attr(name);
            let planned = self.attribute(attr, pv, cv);
            self.leave_attr();
            out.insert(name.clone(), planned);
        }
        for (name, nb) in &block.block_types {
            if block.attributes.contains_key(name) {
                continue;
            }
            let Some(pv) = pm.get(name) else { continue };
            let cv = c.and_then(|c| c.get(name.as_str()));
            self.enter_attr(name);
            let planned = self.nested_block(nb, pv, cv);
            self.leave_attr();
            out.insert(name.clone(), planned);
        }
        Value::Object(out)
    }

    fn attribute(&mut self, attr: &Attribute, p: &Value, c: Option<&Value>) -> Value {
        if attr.computed && p.is_null() && c.is_none_or(Value::is_null) {
            return self.unknown_for(attr);
        }
        match &attr.ty {
            AttributeType::Type(_) => p.clone(),
            AttributeType::Nested(n) => {
                let inner = Block {
                    attributes: n.attributes.clone(),
                    ..Block::default()
                };
                let single = n.nesting == ObjectNesting::Single;
                let keyed = n.nesting != ObjectNesting::Set;
                self.elements(p, c, single, keyed, |w, e, ce| w.block(&inner, e, ce))
            }
        }
    }

    fn nested_block(&mut self, nb: &NestedBlock, p: &Value, c: Option<&Value>) -> Value {
        let single = matches!(nb.nesting, NestingMode::Single | NestingMode::Group);
        let keyed = nb.nesting != NestingMode::Set;
        self.elements(p, c, single, keyed, |w, e, ce| w.block(&nb.block, e, ce))
    }

    /// Plans each object of a single, list, set or map value; `keyed`: the configuration's
    /// element at the same index or key is the same element (not so in a set).
    fn elements(
        &mut self,
        p: &Value,
        c: Option<&Value>,
        single: bool,
        keyed: bool,
        mut f: impl FnMut(&mut Self, &Value, Option<&Value>) -> Value,
    ) -> Value {
        if single {
            return f(self, p, c);
        }
        match p.unwrap_dynamic() {
            Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
                let mut out = Vec::with_capacity(vs.len());
                for (i, e) in vs.iter().enumerate() {
                    let ce = if keyed {
                        c.and_then(|c| c.unwrap_dynamic().get(i))
                    } else {
                        None
                    };
                    self.path.push(PathStep::Index(i as u64));
                    out.push(f(self, e, ce));
                    self.path.pop();
                }
                rebuild(p, |inner| match inner {
                    Value::List(_) => Value::List(out),
                    Value::Set(_) => Value::Set(out),
                    _ => Value::Tuple(out),
                })
            }
            Value::Map(m) | Value::Object(m) => {
                let mut out = m.clone();
                for (k, e) in m {
                    let ce = c.and_then(|c| c.unwrap_dynamic().get(k.as_str()));
                    self.path.push(PathStep::Key(k.to_string()));
                    let planned = f(self, e, ce);
                    self.path.pop();
                    out.insert(k.clone(), planned);
                }
                rebuild(p, |inner| match inner {
                    Value::Map(_) => Value::Map(out),
                    _ => Value::Object(out),
                })
            }
            _ => p.clone(),
        }
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

fn changed(prior: Option<&Value>, planned: Option<&Value>) -> bool {
    prior.unwrap_or(&Value::Null) != planned.unwrap_or(&Value::Null)
}

fn replaced_block(
    block: &Block,
    prior: &Value,
    planned: &Value,
    path: &mut AttributePath,
    out: &mut Vec<AttributePath>,
    depth: usize,
) {
    if depth > crate::limits::DEFAULT_MAX_DEPTH {
        return;
    }
    for (name, attr) in &block.attributes {
        let (pv, nv) = (prior.get(name.as_str()), planned.get(name.as_str()));
        path.push(PathStep::Attr(name.to_string()));
        if attr.requires_replace {
            if changed(pv, nv) {
                out.push(path.clone());
            }
        } else if let AttributeType::Nested(n) = &attr.ty {
            if n.attributes.values().any(has_requires_replace) {
                let inner = Block {
                    attributes: n.attributes.clone(),
                    ..Block::default()
                };
                let nesting = match n.nesting {
                    ObjectNesting::Single => NestingMode::Single,
                    ObjectNesting::List => NestingMode::List,
                    ObjectNesting::Set => NestingMode::Set,
                    ObjectNesting::Map => NestingMode::Map,
                };
                replaced_elements(&inner, nesting, pv, nv, path, out, depth);
            }
        }
        path.pop();
    }
    for (name, nb) in &block.block_types {
        if block.attributes.contains_key(name) || !block_has_requires_replace(&nb.block) {
            continue;
        }
        let (pv, nv) = (prior.get(name.as_str()), planned.get(name.as_str()));
        path.push(PathStep::Attr(name.to_string()));
        replaced_elements(&nb.block, nb.nesting, pv, nv, path, out, depth);
        path.pop();
    }
}

fn replaced_elements(
    block: &Block,
    nesting: NestingMode,
    prior: Option<&Value>,
    planned: Option<&Value>,
    path: &mut AttributePath,
    out: &mut Vec<AttributePath>,
    depth: usize,
) {
    let null = Value::Null;
    let (p, n) = (
        prior.unwrap_or(&null).unwrap_dynamic(),
        planned.unwrap_or(&null).unwrap_dynamic(),
    );
    match nesting {
        NestingMode::Single | NestingMode::Group => {
            replaced_block(block, p, n, path, out, depth + 1);
        }
        NestingMode::Set => {
            if p != n {
                out.push(path.clone());
            }
        }
        NestingMode::List => match (p, n) {
            (Value::List(ps) | Value::Tuple(ps), Value::List(ns) | Value::Tuple(ns)) => {
                for i in 0..ps.len().max(ns.len()) {
                    path.push(PathStep::Index(i as u64));
                    replaced_block(
                        block,
                        ps.get(i).unwrap_or(&null),
                        ns.get(i).unwrap_or(&null),
                        path,
                        out,
                        depth + 1,
                    );
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
                    replaced_block(
                        block,
                        pm.get(k).unwrap_or(&null),
                        nm.get(k).unwrap_or(&null),
                        path,
                        out,
                        depth + 1,
                    );
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

fn block_has_requires_replace(block: &Block) -> bool {
    block.attributes.values().any(has_requires_replace)
        || block
            .block_types
            .values()
            .any(|nb| block_has_requires_replace(&nb.block))
}
