//! What an attribute tells the planner: a static default, whether to keep the prior
//! state's value, and the refinements of the unknown planned for it; and the rules those
//! facts follow (checked by `Block::check_schema` and `Planner::refine`).

use std::fmt;

use super::{Attribute, AttributeType, ObjectNesting};
use crate::number::Number;
use crate::types::Type;
use crate::value::Value;

/// When a change of a [`requires_replace`](Attribute::requires_replace) attribute
/// replaces the resource (terraform-plugin-framework's `RequiresReplaceIfConfigured` and
/// `RequiresReplaceIf`); without one, every change does.
///
/// ```
/// use tfvalue::schema::{Attribute, Block, Planner};
/// use tfvalue::{Type, Value};
///
/// // A zone that moving replaces, but not one the provider chose (left out of config).
/// let block = Block::new().attribute(
///     "zone",
///     Attribute::optional_computed(Type::String).requires_replace_if_configured(),
/// );
/// let obj = |zone: Value| Value::Object([("zone".to_owned(), zone)].into());
/// let prior = obj(Value::from("a"));
/// let plan = Planner::new(block.clone()).plan(&prior, &obj(Value::from("b")), &obj(Value::from("b")));
/// assert_eq!(plan.requires_replace.len(), 1);
/// // Configuration no longer sets it: no replacement for that.
/// let plan = Planner::new(block).plan(&prior, &obj(Value::from("b")), &obj(Value::Null));
/// assert!(plan.requires_replace.is_empty());
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplaceIf {
    /// Only when configuration sets the attribute (not null).
    Configured,
    /// When the function says so, given the prior, the planned and the configured value.
    Custom(ReplaceFn),
}

/// A condition of [`ReplaceIf::Custom`]: `f(prior, planned, config)`; compared by name.
#[derive(Clone)]
pub struct ReplaceFn {
    name: String,
    f: std::sync::Arc<ReplaceCheck>,
}

/// The function of a [`ReplaceFn`].
type ReplaceCheck = dyn Fn(&Value, &Value, &Value) -> bool + Send + Sync;

impl ReplaceFn {
    /// A condition named `name`.
    pub fn new<F>(name: impl Into<String>, f: F) -> Self
    where
        F: Fn(&Value, &Value, &Value) -> bool + Send + Sync + 'static,
    {
        ReplaceFn {
            name: name.into(),
            f: std::sync::Arc::new(f),
        }
    }

    /// The condition's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl PartialEq for ReplaceFn {
    fn eq(&self, other: &ReplaceFn) -> bool {
        self.name == other.name
    }
}

impl Eq for ReplaceFn {}

impl fmt::Debug for ReplaceFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ReplaceFn").field(&self.name).finish()
    }
}

impl fmt::Debug for ReplaceIf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplaceIf::Configured => f.write_str("Configured"),
            ReplaceIf::Custom(r) => f.debug_tuple("Custom").field(r).finish(),
        }
    }
}

impl ReplaceIf {
    /// Whether a change from `prior` to `planned` (configured as `config`) replaces.
    pub(crate) fn holds(&self, prior: &Value, planned: &Value, config: &Value) -> bool {
        match self {
            ReplaceIf::Configured => !config.is_null(),
            ReplaceIf::Custom(r) => (r.f)(prior, planned, config),
        }
    }
}

/// A static default: what [`Planner`](super::Planner) plans for an attribute that
/// configuration leaves null (terraform-plugin-framework's `Default` with
/// `stringdefault.StaticString` and its kin). A configured value, known or unknown, always
/// wins.
///
/// ```
/// use tfvalue::schema::{Attribute, DefaultValue};
/// use tfvalue::{Type, Value};
///
/// let ttl = Attribute::optional_computed(Type::Number).default_value(3600);
/// assert_eq!(ttl.default, Some(DefaultValue::from(3600)));
/// assert_eq!(DefaultValue::from("eu").to_value(), Value::from("eu"));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DefaultValue {
    /// A string.
    String(String),
    /// A number.
    Number(Number),
    /// A bool.
    Bool(bool),
    /// A list, set, map or object (terraform-plugin-framework's `listdefault`,
    /// `setdefault`, `mapdefault`, `objectdefault`), or any value of the attribute's type.
    /// [`Attribute::default_value`] converts it to the attribute's type as Terraform
    /// converts a literal: a tuple to a list or set, an object to a map, an object's
    /// missing attributes to null.
    Value(Value),
}

// A default holds no unknown, and `Value`'s equality is an equivalence on known values.
impl Eq for DefaultValue {}

impl DefaultValue {
    /// The value.
    pub fn to_value(&self) -> Value {
        match self {
            DefaultValue::String(s) => Value::from(s.as_str()),
            DefaultValue::Number(n) => Value::Number(n.clone()),
            DefaultValue::Bool(b) => Value::Bool(*b),
            DefaultValue::Value(v) => v.clone(),
        }
    }

    /// The type of the value: `string`, `number` or `bool`; `dynamic` for a
    /// [`DefaultValue::Value`], whose type is the attribute's.
    pub fn ty(&self) -> Type {
        match self {
            DefaultValue::String(_) => Type::String,
            DefaultValue::Number(_) => Type::Number,
            DefaultValue::Bool(_) => Type::Bool,
            DefaultValue::Value(_) => Type::Dynamic,
        }
    }

    /// The default converted to `ty` where a literal's shape allows (see
    /// [`DefaultValue::Value`]); a scalar as it is.
    pub(crate) fn fitted(self, ty: &Type) -> DefaultValue {
        match self {
            DefaultValue::Value(v) => DefaultValue::Value(fit(v, ty, 0)),
            other => other,
        }
    }
}

/// `v` as a value of `ty`, where its shape allows: a tuple or list as a list or set, an
/// object as a map or as an object with its missing attributes null. What does not fit
/// is left as it is, for the schema check to report.
fn fit(v: Value, ty: &Type, depth: usize) -> Value {
    if depth > crate::limits::DEFAULT_MAX_DEPTH {
        return v;
    }
    match (ty, v) {
        (Type::List(t), Value::Tuple(vs) | Value::List(vs)) => {
            Value::List(vs.into_iter().map(|e| fit(e, t, depth + 1)).collect())
        }
        (Type::Set(t), Value::Tuple(vs) | Value::List(vs) | Value::Set(vs)) => {
            let mut vs: Vec<Value> = vs.into_iter().map(|e| fit(e, t, depth + 1)).collect();
            crate::value::canonicalize_set(&mut vs);
            Value::Set(vs)
        }
        (Type::Map(t), Value::Object(m) | Value::Map(m)) => Value::Map(
            m.into_iter()
                .map(|(k, e)| (k, fit(e, t, depth + 1)))
                .collect(),
        ),
        (Type::Object(o), Value::Object(mut m)) => {
            let mut out = crate::value::Map::new();
            for (name, t) in o.attributes() {
                let e = m.remove(name.as_str()).unwrap_or(Value::Null);
                out.insert(name.clone(), fit(e, t, depth + 1));
            }
            // Attributes the type lacks stay, for the check to name.
            for (k, e) in m {
                out.insert(k, e);
            }
            Value::Object(out)
        }
        (Type::Tuple(ts), Value::Tuple(vs) | Value::List(vs)) if ts.len() == vs.len() => {
            Value::Tuple(
                vs.into_iter()
                    .zip(ts)
                    .map(|(e, t)| fit(e, t, depth + 1))
                    .collect(),
            )
        }
        (_, v) => v,
    }
}

impl fmt::Display for DefaultValue {
    /// As HCL writes it: `"eu"`, `3600`, `true`, `["a", "b"]`, `{ env = "dev" }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefaultValue::String(s) => write!(f, "{s:?}"),
            DefaultValue::Number(n) => write!(f, "{n}"),
            DefaultValue::Bool(b) => write!(f, "{b}"),
            DefaultValue::Value(v) => write!(f, "{v}"),
        }
    }
}

impl From<Value> for DefaultValue {
    fn from(v: Value) -> Self {
        DefaultValue::Value(v)
    }
}

impl From<&str> for DefaultValue {
    fn from(s: &str) -> Self {
        DefaultValue::String(s.to_owned())
    }
}

impl From<String> for DefaultValue {
    fn from(s: String) -> Self {
        DefaultValue::String(s)
    }
}

impl From<bool> for DefaultValue {
    fn from(b: bool) -> Self {
        DefaultValue::Bool(b)
    }
}

impl From<Number> for DefaultValue {
    fn from(n: Number) -> Self {
        DefaultValue::Number(n)
    }
}

macro_rules! default_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for DefaultValue {
            fn from(n: $t) -> Self {
                DefaultValue::Number(Number::from(n))
            }
        }
    )*};
}

default_from_int!(i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);

/// The kind of value an attribute holds, as far as refinements care.
fn kind(attr: &Attribute) -> &'static str {
    match &attr.ty {
        AttributeType::Type(Type::String) => "string",
        AttributeType::Type(Type::Number) => "number",
        AttributeType::Type(Type::List(_) | Type::Set(_) | Type::Map(_)) => "collection",
        AttributeType::Type(Type::Dynamic) => "dynamic",
        AttributeType::Type(Type::Bool) => "bool",
        AttributeType::Type(_) => "object",
        AttributeType::Nested(n) if n.nesting == ObjectNesting::Single => "object",
        AttributeType::Nested(_) => "collection",
    }
}

/// `word` with its indefinite article.
fn a(word: impl fmt::Display) -> String {
    let w = word.to_string();
    let article = if w.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {w}")
}

/// Every way the attribute's planner facts break the rules, each as a message (empty when
/// they are fine):
///
/// - `default`, `use_state_for_unknown` and refinements apply to computed attributes
///   only (the planner never sets any other);
/// - a default is of the attribute's own type (`string`, `number` or `bool`), and makes
///   `use_state_for_unknown` and refinements pointless (a default is never unknown);
/// - a prefix refines strings, bounds refine numbers, lengths refine collections, and
///   nothing refines a `dynamic` attribute (Terraform's wire form drops its refinements).
pub(crate) fn problems(attr: &Attribute) -> Vec<String> {
    let mut out = Vec::new();
    let r = &attr.refinements;
    if !attr.computed {
        if let Some(d) = &attr.default {
            out.push(format!(
                "a default ({d}) applies to computed attributes only: the planner sets only those"
            ));
        }
        if attr.use_state_for_unknown {
            out.push(
                "`use_state_for_unknown` applies to computed attributes only: the planner sets only those"
                    .to_owned(),
            );
        }
        if !r.is_empty() {
            out.push(format!(
                "refinements ({r}) apply to computed attributes only: the planner plans no other attribute unknown"
            ));
        }
        return out;
    }
    if let Some(DefaultValue::Value(v)) = &attr.default {
        let t = attr.implied_type();
        if let Err(e) = v.conforms_to(&t) {
            out.push(format!(
                "the default {v} does not fit the attribute's type {t}: {e}"
            ));
        }
    }
    if let Some(d) = &attr.default {
        match attr.plain_type() {
            _ if matches!(d, DefaultValue::Value(_)) => {}
            Some(t) if *t == d.ty() => {}
            Some(t) => out.push(format!(
                "the default {d} is {}, but the attribute is {}",
                a(d.ty()),
                a(t)
            )),
            None => out.push(format!(
                "the default {d} is {}, but the attribute has nested attributes",
                a(d.ty())
            )),
        }
        if attr.use_state_for_unknown {
            out.push(
                "`use_state_for_unknown` has no effect with a default: the default is planned whenever configuration leaves the attribute null"
                    .to_owned(),
            );
        }
        if !r.is_empty() {
            out.push(format!(
                "refinements ({r}) have no effect with a default: the planner never plans the attribute unknown"
            ));
        }
    }
    if r.is_empty() {
        return out;
    }
    let k = kind(attr);
    if k == "dynamic" {
        out.push(format!(
            "refinements ({r}) of a dynamic attribute are never sent: Terraform's wire form of a dynamic unknown has none"
        ));
        return out;
    }
    if r.prefix().is_some() && k != "string" {
        out.push(format!(
            "a prefix refines strings, and the attribute is {}",
            a(k)
        ));
    }
    if (r.lower_bound().is_some() || r.upper_bound().is_some()) && k != "number" {
        out.push(format!(
            "bounds refine numbers, and the attribute is {}",
            a(k)
        ));
    }
    if (r.min_length().is_some() || r.max_length().is_some()) && k != "collection" {
        out.push(format!(
            "a length refines lists, sets and maps, and the attribute is {}",
            a(k)
        ));
    }
    out
}
