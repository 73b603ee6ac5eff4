//! A value built without a type (by [`value!`](crate::value!), `From`, code that thinks in
//! JSON) given the shape of one.

use super::{canonicalize_set, Value};
use crate::error::{Error, Result};
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::path::PathStep;
use crate::types::Type;

impl Value {
    /// The value in the shape `ty` gives it: JSON-like syntax has only lists and objects,
    /// so where `ty` says set, a list becomes a set (duplicates removed, as decoding gives
    /// it), where it says tuple, a list of as many elements becomes a tuple, and where it
    /// says map, an object becomes a map; everywhere below. A value in a position declared
    /// `dynamic` gets the type it implies ([`Dynamic::infer`](crate::Dynamic::infer)).
    /// Nothing else is converted (a number stays a number), and the result is checked with
    /// [`conforms_to`](Value::conforms_to), so it encodes against `ty`, and decoding what it
    /// encodes to gives it back.
    ///
    /// ```
    /// use tfvalue::{value, Type, Value};
    ///
    /// let ty: Type = "object({ name = string, ports = set(number), tags = map(string) })".parse()?;
    /// let v = value!({ "name": "web", "ports": [443, 80, 443], "tags": { "env": "prod" } })
    ///     .into_typed(&ty)?;
    /// assert_eq!(v["ports"], Value::Set(vec![80.into(), 443.into()]));
    /// let bytes = v.to_msgpack(&ty)?;
    /// assert_eq!(Value::from_msgpack(&bytes, &ty)?, v);
    ///
    /// // What does not fit is an error with its path.
    /// let err = value!({ "name": "web", "ports": ["x"], "tags": {} }).into_typed(&ty).unwrap_err();
    /// assert_eq!(err.to_string(), "value of kind string does not conform to type number at ports[0]");
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Where the value does not fit `ty` (another kind of value, an attribute the type
    /// does not declare or a missing one, a tuple of another length, a value in a
    /// `dynamic` position without its own type), or nests deeper than 128: the error
    /// names the path.
    pub fn into_typed(self, ty: &Type) -> Result<Value> {
        let v = shape(self, ty, 0)?;
        v.conforms_to(ty)?;
        Ok(v)
    }
}

fn shape(v: Value, ty: &Type, depth: usize) -> Result<Value> {
    if depth > DEFAULT_MAX_DEPTH {
        return Err(Error::limit("nesting is deeper than the limit of 128"));
    }
    let each = |vs: Vec<Value>, et: &Type| -> Result<Vec<Value>> {
        vs.into_iter()
            .enumerate()
            .map(|(i, e)| {
                shape(e, et, depth + 1).map_err(|err| err.prepend(PathStep::Index(i as u64)))
            })
            .collect()
    };
    Ok(match (ty, v) {
        (_, v @ (Value::Null | Value::Unknown(_))) => v,
        (Type::Dynamic, v @ Value::Dynamic(_)) => v,
        // A value without its own type where the type is `dynamic`: the one it implies.
        (Type::Dynamic, v) => crate::dynamic::Dynamic::infer(v)?.into_value(),
        // A value with its own type where the type is declared: the value is what counts.
        (t, Value::Dynamic(d)) => shape(d.into_parts().1, t, depth + 1)?,
        (Type::List(et), Value::List(vs)) => Value::List(each(vs, et)?),
        (Type::Set(et), Value::List(vs) | Value::Set(vs)) => {
            let mut elems = each(vs, et)?;
            canonicalize_set(&mut elems);
            Value::Set(elems)
        }
        (Type::Tuple(ts), Value::List(vs) | Value::Tuple(vs)) if vs.len() == ts.len() => {
            let mut out = Vec::with_capacity(vs.len());
            for (i, (e, t)) in vs.into_iter().zip(ts).enumerate() {
                out.push(
                    shape(e, t, depth + 1).map_err(|err| err.prepend(PathStep::Index(i as u64)))?,
                );
            }
            Value::Tuple(out)
        }
        (Type::Map(et), Value::Object(mut m) | Value::Map(mut m)) => {
            for (k, e) in m.iter_mut() {
                *e = shape(std::mem::take(e), et, depth + 1)
                    .map_err(|err| err.prepend(PathStep::Key(k.to_string())))?;
            }
            Value::Map(m)
        }
        (Type::Object(o), Value::Object(mut m)) => {
            for (k, e) in m.iter_mut() {
                // An attribute the type does not declare is left for conformance to name.
                if let Some(t) = o.get(k) {
                    *e = shape(std::mem::take(e), t, depth + 1)
                        .map_err(|err| err.prepend(PathStep::Attr(k.to_string())))?;
                }
            }
            Value::Object(m)
        }
        (_, v) => v,
    })
}
