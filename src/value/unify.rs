//! One concrete type for the elements of a collection that has `dynamic` somewhere in its
//! element type.
//!
//! go-cty builds a list, set or map only from elements of one concrete type (its
//! `ListVal`, `SetVal` and `MapVal` panic otherwise), and a value's concrete type takes the
//! type of every `dynamic` value nested in it: in `map(list(dynamic))` the element
//! `["a"]` of `{"x" = ["a"], "y" = [1]}` has type `list(string)` and the other
//! `list(number)`. No cty value has that shape, and go-cty's decoders panic on its bytes,
//! so tfvalue rejects it on decode and on encode, at any depth, with the path.
//!
//! A position that says nothing about its type (a null or unknown in a `dynamic` position,
//! an empty collection of `dynamic`, or a null or unknown of a type with `dynamic` in it)
//! is *undetermined*: here it is `Type::Dynamic` in the concrete type, and it takes the
//! type its siblings give it. `{"x" = ["a"], "y" = []}` of `map(list(dynamic))` is the cty
//! value `map(list(string))` whose `"y"` is empty, and go-cty writes exactly these bytes for
//! it, so tfvalue reads and writes it. (go-cty's own decoder then panics on them: it reads
//! `"y"` as `list(dynamic)` and cannot build the map; there is no other encoding of that
//! value.)
//!
//! Once the elements agree, a null or unknown in a `dynamic` position takes the common
//! type (`[type, nil]` on the wire, as go-cty writes a null of a concrete type there).

use crate::dynamic::Dynamic;
use crate::error::{Error, Result};
use crate::path::PathStep;
use crate::types::{ObjectType, Type};

use super::Value;

/// Where an element sits in its collection, borrowed until an error needs it.
#[derive(Clone, Copy)]
pub(crate) enum Step<'a> {
    /// A list or set element.
    Index(usize),
    /// A map element.
    Key(&'a str),
}

impl Step<'_> {
    fn to_path_step(self) -> PathStep {
        match self {
            Step::Index(i) => PathStep::Index(i as u64),
            Step::Key(k) => PathStep::Key(k.to_owned()),
        }
    }
}

/// The concrete type of `v`, a value of the declared type `ty`, as an element of a
/// collection: `dynamic` positions take the type of their value, undetermined ones stay
/// `Type::Dynamic`, and optional-attribute markers are dropped (an optional attribute an
/// object leaves out is a null of its type). `Err` only where the value's own collections
/// cannot agree, or nesting runs over the limit.
fn concrete(v: &Value, ty: &Type, depth: usize) -> Result<Type> {
    if depth > crate::limits::DEFAULT_MAX_DEPTH {
        return Err(Error::limit("nesting is deeper than the limit of 128"));
    }
    if !ty.has_dynamic() {
        return Ok(crate::dynamic::strip_optional(ty));
    }
    Ok(match (ty, v) {
        (Type::Dynamic, Value::Dynamic(d)) => concrete(d.value(), d.ty(), depth + 1)?,
        (Type::Dynamic, _) => Type::Dynamic,
        (t, Value::Null | Value::Unknown(_)) => undetermined(t),
        (Type::List(t), Value::List(vs)) => Type::list(common_of(vs.iter(), t, depth)?),
        (Type::Set(t), Value::Set(vs)) => Type::set(common_of(vs.iter(), t, depth)?),
        (Type::Map(t), Value::Map(m)) => Type::map(common_at(
            m.iter().map(|(k, v)| (Step::Key(k), v)),
            t,
            depth + 1,
        )?),
        (Type::Object(o), Value::Object(m)) => {
            let mut attrs = Vec::with_capacity(o.len());
            for (name, aty) in o.attributes() {
                let t = match m.get(name) {
                    Some(v) => concrete(v, aty, depth + 1)
                        .map_err(|e| e.prepend(PathStep::Attr(name.to_string())))?,
                    None => undetermined(aty),
                };
                attrs.push((name.clone(), t));
            }
            Type::Object(ObjectType::new(attrs))
        }
        (Type::Tuple(ts), Value::Tuple(vs)) if ts.len() == vs.len() => {
            let mut types = Vec::with_capacity(ts.len());
            for (i, (t, v)) in ts.iter().zip(vs).enumerate() {
                types.push(
                    concrete(v, t, depth + 1).map_err(|e| e.prepend(PathStep::Index(i as u64)))?,
                );
            }
            Type::Tuple(types)
        }
        // A value of the wrong kind: conformance reports it.
        (t, _) => undetermined(t),
    })
}

/// The type of a null or unknown of `ty`: every `dynamic` in it is undetermined, and the
/// rest is as declared.
fn undetermined(ty: &Type) -> Type {
    crate::dynamic::strip_optional(ty)
}

fn common_of<'a>(vs: impl Iterator<Item = &'a Value>, ety: &Type, depth: usize) -> Result<Type> {
    common_at(
        vs.enumerate().map(|(i, v)| (Step::Index(i), v)),
        ety,
        depth + 1,
    )
}

#[cold]
fn conflict(before: &Type, step: PathStep, found: &Type) -> Error {
    let element: crate::path::AttributePath = std::iter::once(step).collect();
    Error::data(format_args!(
        "inconsistent element types in a collection with dynamic values: element {element} \
         has type {found}, the elements before it {before}"
    ))
}

/// The most specific type that both `a` and `b` describe, where `Type::Dynamic` is
/// undetermined; `None` where they contradict each other.
pub(crate) fn unify(a: &Type, b: &Type) -> Option<Type> {
    Some(match (a, b) {
        (Type::Dynamic, t) | (t, Type::Dynamic) => t.clone(),
        (Type::List(x), Type::List(y)) => Type::list(unify(x, y)?),
        (Type::Set(x), Type::Set(y)) => Type::set(unify(x, y)?),
        (Type::Map(x), Type::Map(y)) => Type::map(unify(x, y)?),
        (Type::Object(x), Type::Object(y)) => {
            if x.len() != y.len() {
                return None;
            }
            let mut attrs = Vec::with_capacity(x.len());
            for ((xn, xt), (yn, yt)) in x.attributes().iter().zip(y.attributes()) {
                if xn != yn {
                    return None;
                }
                attrs.push((xn.clone(), unify(xt, yt)?));
            }
            Type::Object(ObjectType::new(attrs))
        }
        (Type::Tuple(x), Type::Tuple(y)) if x.len() == y.len() => {
            let mut types = Vec::with_capacity(x.len());
            for (xt, yt) in x.iter().zip(y) {
                types.push(unify(xt, yt)?);
            }
            Type::Tuple(types)
        }
        (x, y) if x == y => x.clone(),
        _ => return None,
    })
}

/// Checks that the elements of a list or set whose element type `ety` has `dynamic` in it
/// agree on one concrete type, and gives nulls and unknowns in `dynamic` positions that
/// type.
pub(crate) fn unify_seq(vs: &mut [Value], ety: &Type) -> Result<()> {
    let common = common_type(vs.iter().enumerate().map(|(i, v)| (Step::Index(i), v)), ety)?;
    for v in vs {
        type_placeholders(v, ety, &common);
    }
    Ok(())
}

/// The concrete type the elements of a collection share (`Type::Dynamic` where nothing
/// determines it), or an error naming the element that disagrees.
pub(crate) fn common_type<'a>(
    elems: impl Iterator<Item = (Step<'a>, &'a Value)>,
    ety: &Type,
) -> Result<Type> {
    common_at(elems, ety, 1)
}

fn common_at<'a>(
    elems: impl Iterator<Item = (Step<'a>, &'a Value)>,
    ety: &Type,
    depth: usize,
) -> Result<Type> {
    let mut acc = Type::Dynamic;
    for (step, v) in elems {
        let t = concrete(v, ety, depth).map_err(|e| e.prepend(step.to_path_step()))?;
        match unify(&acc, &t) {
            Some(u) => acc = u,
            None => return Err(conflict(&acc, step.to_path_step(), &t)),
        }
    }
    Ok(acc)
}

/// Gives the nulls and unknowns in `dynamic` positions of `v` (declared `ty`) the type that
/// `common` says is theirs, and a `Dynamic` whose own type leaves positions undetermined
/// the more specific one.
pub(crate) fn type_placeholders(v: &mut Value, ty: &Type, common: &Type) {
    match (ty, common) {
        (_, Type::Dynamic) => {}
        (Type::Dynamic, c) => match v {
            Value::Null | Value::Unknown(_) => {
                let inner = std::mem::take(v);
                *v = Value::Dynamic(Box::new(Dynamic::new(c.clone(), inner)));
            }
            Value::Dynamic(d) if d.ty() != c && d.ty().has_dynamic() => d.set_ty(c.clone()),
            _ => {}
        },
        (Type::List(t), Type::List(c)) | (Type::Set(t), Type::Set(c)) if t.has_dynamic() => {
            if let Value::List(vs) | Value::Set(vs) = v {
                for e in vs {
                    type_placeholders(e, t, c);
                }
            }
        }
        (Type::Map(t), Type::Map(c)) if t.has_dynamic() => {
            if let Value::Map(m) = v {
                for e in m.values_mut() {
                    type_placeholders(e, t, c);
                }
            }
        }
        (Type::Object(o), Type::Object(c)) => {
            if let Value::Object(m) = v {
                for (name, e) in m.iter_mut() {
                    if let (Some(t), Some(c)) = (o.get(name), c.get(name)) {
                        if t.has_dynamic() {
                            type_placeholders(e, t, c);
                        }
                    }
                }
            }
        }
        (Type::Tuple(ts), Type::Tuple(cs)) => {
            if let Value::Tuple(vs) = v {
                for ((e, t), c) in vs.iter_mut().zip(ts).zip(cs) {
                    if t.has_dynamic() {
                        type_placeholders(e, t, c);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Whether a list, set or map with `dynamic` in its element type appears in `ty`: only
/// then do elements need to agree on a type, or placeholders to be typed.
pub(crate) fn has_dynamic_collection(ty: &Type) -> bool {
    match ty {
        Type::List(t) | Type::Set(t) | Type::Map(t) => t.has_dynamic(),
        Type::Object(o) => o.attributes().values().any(has_dynamic_collection),
        Type::Tuple(ts) => ts.iter().any(has_dynamic_collection),
        _ => false,
    }
}

/// Checks and types every collection with `dynamic` in its element type in `v` (declared
/// `ty`), innermost first, as decoding does (see [`unify_seq`]).
pub(crate) fn settle(v: &mut Value, ty: &Type) -> Result<()> {
    if !has_dynamic_collection(ty) {
        return Ok(());
    }
    match (ty, v) {
        (Type::List(t), Value::List(vs)) | (Type::Set(t), Value::Set(vs)) => {
            for (i, e) in vs.iter_mut().enumerate() {
                settle(e, t).map_err(|e| e.prepend(PathStep::Index(i as u64)))?;
            }
            unify_seq(vs, t)
        }
        (Type::Map(t), Value::Map(m)) => {
            for (k, e) in m.iter_mut() {
                settle(e, t).map_err(|e| e.prepend(PathStep::Key(k.to_string())))?;
            }
            let common = common_type(m.iter().map(|(k, v)| (Step::Key(k), v)), t)?;
            for e in m.values_mut() {
                type_placeholders(e, t, &common);
            }
            Ok(())
        }
        (Type::Object(o), Value::Object(m)) => {
            for (k, e) in m.iter_mut() {
                if let Some(t) = o.get(k) {
                    settle(e, t).map_err(|e| e.prepend(PathStep::Attr(k.to_string())))?;
                }
            }
            Ok(())
        }
        (Type::Tuple(ts), Value::Tuple(vs)) => {
            for (i, (e, t)) in vs.iter_mut().zip(ts).enumerate() {
                settle(e, t).map_err(|e| e.prepend(PathStep::Index(i as u64)))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
