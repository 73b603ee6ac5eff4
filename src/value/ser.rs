//! Encoding a `Value`, against its type when there is one: one `Serialize` for every format.

use serde::ser::{Error as _, Serialize, SerializeMap, SerializeSeq, Serializer};

use std::cmp::Ordering;

use super::{sorted_refs, Value};
use crate::types::Type;
use crate::unknown::{serialize_unknown, RefineKind};

/// A value with the type it is written as (`None`: as its own structure says).
pub(crate) struct TypedValue<'a> {
    value: &'a Value,
    ty: Option<&'a Type>,
}

impl<'a> TypedValue<'a> {
    pub(crate) fn new(value: &'a Value, ty: Option<&'a Type>) -> Self {
        TypedValue { value, ty }
    }
}

pub(super) fn elem_type(ty: Option<&Type>) -> Option<&Type> {
    match ty {
        Some(Type::List(t) | Type::Set(t) | Type::Map(t)) => Some(t),
        _ => None,
    }
}

impl Serialize for TypedValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ty = self.ty;
        match self.value {
            Value::Null => s.serialize_unit(),
            Value::Unknown(r) => {
                let kind = ty.map_or(RefineKind::Any, RefineKind::of);
                serialize_unknown(r, kind, s)
            }
            Value::Dynamic(d) => match ty {
                None | Some(Type::Dynamic) => d.serialize(s),
                Some(t) => Err(S::Error::custom(format_args!(
                    "a dynamic value where a value of type {t} belongs"
                ))),
            },
            v if ty == Some(&Type::Dynamic) => Err(S::Error::custom(format_args!(
                "a {} in a position of type dynamic must carry its own type",
                v.kind_name()
            ))),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(v) => s.serialize_str(v),
            Value::List(vs) | Value::Tuple(vs) => {
                let mut seq = s.serialize_seq(Some(vs.len()))?;
                for (i, v) in vs.iter().enumerate() {
                    let t = match ty {
                        Some(Type::Tuple(ts)) => ts.get(i),
                        t => elem_type(t),
                    };
                    seq.serialize_element(&TypedValue::new(v, t))?;
                }
                seq.end()
            }
            Value::Set(vs) => {
                // Canonical order, duplicates removed, strings compared as they are written
                // (NFC) and objects as they are written (left-out optional attributes null).
                let t = elem_type(ty);
                let filled: Option<Vec<Value>> = match t {
                    Some(t) if has_optional(t) => {
                        Some(vs.iter().map(|v| fill_optional(v, t)).collect())
                    }
                    _ => None,
                };
                let src = filled.as_deref().unwrap_or(vs);
                let elems = sorted_refs(src, true);
                let mut seq = s.serialize_seq(Some(elems.len()))?;
                for v in elems {
                    seq.serialize_element(&TypedValue::new(v, t))?;
                }
                seq.end()
            }
            Value::Map(m) => {
                let t = elem_type(ty);
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, &TypedValue::new(v, t))?;
                }
                map.end()
            }
            Value::Object(m) => match ty {
                Some(Type::Object(o)) => {
                    // Every attribute the type declares, in name order; missing optional ones as null.
                    // Both are sorted by name: walk them together rather than look each up.
                    let mut map = s.serialize_map(Some(o.len()))?;
                    let mut present = m.iter().peekable();
                    for (name, aty) in o.attributes() {
                        let mut found = None;
                        while let Some((k, v)) = present.peek() {
                            match k.as_bytes().cmp(name.as_bytes()) {
                                // not declared (conformance rules it out): not written
                                Ordering::Less => {
                                    present.next();
                                    continue;
                                }
                                Ordering::Equal => {
                                    found = Some(*v);
                                    present.next();
                                }
                                Ordering::Greater => {}
                            }
                            break;
                        }
                        match found {
                            Some(v) => map.serialize_entry(name, &TypedValue::new(v, Some(aty)))?,
                            None => map.serialize_entry(name, &())?,
                        }
                    }
                    map.end()
                }
                _ => {
                    let mut map = s.serialize_map(Some(m.len()))?;
                    for (k, v) in m {
                        map.serialize_entry(k, &TypedValue::new(v, None))?;
                    }
                    map.end()
                }
            },
        }
    }
}

/// Whether an object type with optional attributes appears in `ty`.
pub(super) fn has_optional(ty: &Type) -> bool {
    match ty {
        Type::Object(o) => !o.optional().is_empty() || o.attributes().values().any(has_optional),
        Type::List(t) | Type::Set(t) | Type::Map(t) => has_optional(t),
        Type::Tuple(ts) => ts.iter().any(has_optional),
        _ => false,
    }
}

/// The value as it is written: optional attributes it leaves out are null.
pub(super) fn fill_optional(v: &Value, ty: &Type) -> Value {
    match (v, ty) {
        (Value::Object(m), Type::Object(o)) => Value::Object(
            o.attributes()
                .iter()
                .map(|(name, aty)| {
                    let v = m.get(name).map_or(Value::Null, |v| fill_optional(v, aty));
                    (name.clone(), v)
                })
                .collect(),
        ),
        (Value::List(vs), Type::List(t)) => {
            Value::List(vs.iter().map(|v| fill_optional(v, t)).collect())
        }
        (Value::Set(vs), Type::Set(t)) => {
            Value::Set(vs.iter().map(|v| fill_optional(v, t)).collect())
        }
        (Value::Map(m), Type::Map(t)) => Value::Map(
            m.iter()
                .map(|(k, v)| (k.clone(), fill_optional(v, t)))
                .collect(),
        ),
        (Value::Tuple(vs), Type::Tuple(ts)) => Value::Tuple(
            vs.iter()
                .zip(ts)
                .map(|(v, t)| fill_optional(v, t))
                .collect(),
        ),
        (v, _) => v.clone(),
    }
}

impl Serialize for Value {
    /// Writes the value as its own structure says: lists, sets and tuples as arrays, maps
    /// and objects as maps, `Dynamic` with its type. Use [`Value::to_msgpack`] to check it
    /// against a type as well.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Untracked(TypedValue::new(self, None)).serialize(s)
    }
}

/// A value written as a whole: a newtype that tells tfvalue's MessagePack serializer not to
/// track the types of its `dynamic` values (see `VALUE_TOKEN`); transparent elsewhere.
pub(crate) struct Untracked<'a>(pub(crate) TypedValue<'a>);

impl Serialize for Untracked<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(crate::private::VALUE_TOKEN, &self.0)
    }
}
