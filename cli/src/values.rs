//! Attribute values from state and plan files: JSON (with or without a schema) and the
//! flatmap of format 3 states, plus the unknown and sensitive marks that come beside them.

use std::collections::BTreeMap;

use serde_json::value::RawValue;
use serde_json::Value as Json;
use tfvalue::{Map, ObjectType, Refinements, Type, Value};

/// The type a JSON value has when no schema says: objects, tuples and primitives as they
/// are written; `null` as `dynamic` (so it reads as null).
pub fn infer_type(j: &Json) -> Type {
    match j {
        Json::Null => Type::Dynamic,
        Json::Bool(_) => Type::Bool,
        Json::Number(_) => Type::Number,
        Json::String(_) => Type::String,
        Json::Array(a) => Type::tuple(a.iter().map(infer_type)),
        Json::Object(o) => Type::object(o.iter().map(|(k, v)| (k.clone(), infer_type(v)))),
    }
}

/// The schema's type with each `dynamic` replaced by the type of the JSON found there.
///
/// `terraform show -json` writes a value of a `dynamic` attribute plainly, not in the
/// `{"value", "type"}` wrapper that state files use, so a plan's values decode against
/// this type.
pub fn concretize(ty: &Type, j: &Json) -> Type {
    match (ty, j) {
        (Type::Dynamic, j) if !j.is_null() => infer_type(j),
        (Type::Object(o), Json::Object(m)) => {
            let mut out = ObjectType::new(Vec::<(String, Type)>::new());
            for (k, t) in o.attributes() {
                let t = m.get(k).map_or_else(|| t.clone(), |v| concretize(t, v));
                out.insert(k.clone(), t, o.is_optional(k));
            }
            Type::Object(out)
        }
        (Type::List(e), Json::Array(a)) => Type::list(first_concrete(e, a.iter())),
        (Type::Set(e), Json::Array(a)) => Type::set(first_concrete(e, a.iter())),
        (Type::Map(e), Json::Object(m)) => Type::map(first_concrete(e, m.values())),
        (Type::Tuple(ts), Json::Array(a)) => Type::tuple(
            ts.iter()
                .enumerate()
                .map(|(i, t)| a.get(i).map_or_else(|| t.clone(), |v| concretize(t, v))),
        ),
        _ => ty.clone(),
    }
}

fn first_concrete<'j>(e: &Type, mut items: impl Iterator<Item = &'j Json>) -> Type {
    match items.find(|v| !v.is_null()) {
        Some(v) => concretize(e, v),
        None => e.clone(),
    }
}

/// The type with every set read as a list: a plan's `after_unknown` and sensitive marks
/// point into sets by the position in the plan's JSON, which a set's own order would lose.
/// [`restore_sets`] turns them back into sets afterwards.
pub fn sets_as_lists(ty: &Type) -> Type {
    match ty {
        Type::Set(e) | Type::List(e) => Type::list(sets_as_lists(e)),
        Type::Map(e) => Type::map(sets_as_lists(e)),
        Type::Tuple(ts) => Type::tuple(ts.iter().map(sets_as_lists)),
        Type::Object(o) => {
            let mut out = ObjectType::new(Vec::<(String, Type)>::new());
            for (k, t) in o.attributes() {
                out.insert(k.clone(), sets_as_lists(t), o.is_optional(k));
            }
            Type::Object(out)
        }
        other => other.clone(),
    }
}

/// Turns the lists that [`sets_as_lists`] made back into sets, in the plan's order.
pub fn restore_sets(v: Value, ty: &Type) -> Value {
    match (v, ty) {
        (Value::List(xs), Type::Set(e)) => {
            Value::Set(xs.into_iter().map(|x| restore_sets(x, e)).collect())
        }
        (Value::List(xs), Type::List(e)) => {
            Value::List(xs.into_iter().map(|x| restore_sets(x, e)).collect())
        }
        (Value::Map(m), Type::Map(e)) => Value::Map(
            m.into_iter()
                .map(|(k, x)| (k, restore_sets(x, e)))
                .collect(),
        ),
        (Value::Tuple(xs), Type::Tuple(ts)) => Value::Tuple(
            xs.into_iter()
                .zip(ts)
                .map(|(x, t)| restore_sets(x, t))
                .collect(),
        ),
        (Value::Object(m), Type::Object(o)) => Value::Object(
            m.into_iter()
                .map(|(k, x)| {
                    let x = match o.get(&k) {
                        Some(t) => restore_sets(x, t),
                        None => x,
                    };
                    (k, x)
                })
                .collect(),
        ),
        (v, _) => v,
    }
}

/// The paths of attributes in `j` that `ty` does not declare, as `a.b[0].c`.
pub fn undeclared(j: &Json, ty: &Type) -> Vec<String> {
    let mut out = Vec::new();
    walk_undeclared(j, ty, &mut String::new(), &mut out);
    out
}

fn walk_undeclared(j: &Json, ty: &Type, path: &mut String, out: &mut Vec<String>) {
    let len = path.len();
    match (ty, j) {
        (Type::Object(o), Json::Object(m)) => {
            for (k, v) in m {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                match o.get(k) {
                    Some(t) => walk_undeclared(v, t, path, out),
                    None => out.push(path.clone()),
                }
                path.truncate(len);
            }
        }
        (Type::List(e) | Type::Set(e), Json::Array(a)) => {
            for (i, v) in a.iter().enumerate() {
                path.push_str(&format!("[{i}]"));
                walk_undeclared(v, e, path, out);
                path.truncate(len);
            }
        }
        (Type::Tuple(ts), Json::Array(a)) => {
            for (i, (v, t)) in a.iter().zip(ts).enumerate() {
                path.push_str(&format!("[{i}]"));
                walk_undeclared(v, t, path, out);
                path.truncate(len);
            }
        }
        (Type::Map(e), Json::Object(m)) => {
            for (k, v) in m {
                path.push_str(&format!("[{}]", serde_json::Value::from(k.as_str())));
                walk_undeclared(v, e, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// What decoding skipped, and the value.
pub struct Decoded {
    pub value: Value,
    /// Attributes in the input that the schema does not declare, skipped.
    pub skipped: Vec<String>,
}

/// The message for attributes a schema does not declare.
pub fn undeclared_message(skipped: &[String]) -> String {
    let names: Vec<String> = skipped.iter().take(5).map(|s| format!("`{s}`")).collect();
    let more = if skipped.len() > 5 {
        format!(" and {} more", skipped.len() - 5)
    } else {
        String::new()
    };
    let s = if skipped.len() == 1 { "" } else { "s" };
    format!(
        "the schema does not declare the attribute{s} {}{more} (was the state written by a \
         newer provider?); --ignore-undeclared skips them",
        names.join(", ")
    )
}

/// Decodes JSON attributes against the schema's type, or against the type the JSON
/// itself has when there is no schema. `plain` is for the JSON of `terraform show -json`
/// (plans, and state shown), which writes `dynamic` values without their type wrapper and
/// sets in an order its marks point into: sets come back as lists (see [`restore_sets`]).
pub fn decode_json(
    raw: &RawValue,
    ty: Option<&Type>,
    ignore_undeclared: bool,
    plain: bool,
) -> Result<Decoded, String> {
    let text = raw.get().as_bytes();
    let j: Json = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    let (ty, skipped) = match ty {
        None => (infer_type(&j), Vec::new()),
        Some(t) => {
            let skipped = undeclared(&j, t);
            if !skipped.is_empty() && !ignore_undeclared {
                return Err(undeclared_message(&skipped));
            }
            // A plan writes the values of `dynamic` attributes plainly, and keeps the
            // order of set elements that its marks point into.
            let t = if plain {
                sets_as_lists(&concretize(t, &j))
            } else {
                t.clone()
            };
            (t, skipped)
        }
    };
    let mut de = tfvalue::json::Deserializer::from_slice(text)
        .ignore_undeclared_attributes(ignore_undeclared);
    let value = de
        .decode_value(&ty)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| e.to_string())?;
    Ok(Decoded { value, skipped })
}

/// Decodes the flatmap attributes of a format 3 state (or `attributes_flat` of format 4)
/// with the codec's flatmap reader. Without a schema there are no types to read them
/// with, and they are shown as the strings they are.
pub fn decode_flat(
    flat: &BTreeMap<String, String>,
    ty: Option<&Type>,
    ignore_undeclared: bool,
) -> Result<Decoded, String> {
    let Some(ty) = ty else {
        let m: Map = flat
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        return Ok(Decoded {
            value: Value::Object(m),
            skipped: Vec::new(),
        });
    };
    let Some(o) = ty.as_object() else {
        return Err(format!("flatmap state needs an object type, not {ty}"));
    };
    let mut skipped: Vec<String> = flat
        .keys()
        .map(|k| k.split('.').next().unwrap_or(k))
        .filter(|top| o.get(top).is_none())
        .map(str::to_owned)
        .collect();
    skipped.dedup();
    if !skipped.is_empty() && !ignore_undeclared {
        return Err(undeclared_message(&skipped));
    }
    // Flatmap predates `dynamic`: a dynamic attribute with no keys in it is null, and is
    // left out of the type the flatmap reader sees (which would reject it).
    let mut read = ObjectType::new(Vec::<(String, Type)>::new());
    let mut absent = Vec::new();
    for (k, t) in o.attributes() {
        let dotted = format!("{k}.");
        let present = flat.keys().any(|f| f == k || f.starts_with(&dotted));
        if t.has_dynamic() && !present {
            absent.push(k.clone());
        } else {
            read.insert(k.clone(), t.clone(), o.is_optional(k));
        }
    }
    let mut value = Value::from_flatmap(flat, &Type::Object(read)).map_err(|e| e.to_string())?;
    if let Value::Object(m) = &mut value {
        for k in absent {
            m.insert(k, Value::Null);
        }
    }
    Ok(Decoded { value, skipped })
}

/// Marks the places `after_unknown` says are unknown. `terraform show -json` leaves an
/// unknown attribute out of `after` (or null in a list), and says `true` for it here.
pub fn overlay_unknown(v: Value, unknown: &Json) -> Value {
    match unknown {
        Json::Bool(true) => Value::Unknown(Refinements::new()),
        Json::Object(u) => match v {
            Value::Object(m) => Value::Object(overlay_map(m, u)),
            Value::Map(m) => Value::Map(overlay_map(m, u)),
            Value::Null if u.values().any(|x| x == &Json::Bool(true)) => {
                Value::Object(overlay_map(Map::new(), u))
            }
            other => other,
        },
        Json::Array(u) => match v {
            Value::List(items) => Value::List(overlay_seq(items, u)),
            Value::Set(items) => Value::Set(overlay_seq(items, u)),
            Value::Tuple(items) => Value::Tuple(overlay_seq(items, u)),
            other => other,
        },
        _ => v,
    }
}

fn overlay_map(mut m: Map, u: &serde_json::Map<String, Json>) -> Map {
    for (k, uk) in u {
        let cur = m.remove(k).unwrap_or(Value::Null);
        let next = overlay_unknown(cur, uk);
        if !(next.is_null() && !m.contains_key(k) && uk == &Json::Bool(false)) {
            m.insert(k.clone(), next);
        }
    }
    m
}

fn overlay_seq(mut items: Vec<Value>, u: &[Json]) -> Vec<Value> {
    for (i, ui) in u.iter().enumerate() {
        match items.get_mut(i) {
            Some(slot) => *slot = overlay_unknown(std::mem::take(slot), ui),
            None if ui == &Json::Bool(true) => items.push(Value::Unknown(Refinements::new())),
            None => {}
        }
    }
    items
}

/// The sensitive marks of a format 4 state's `sensitive_attributes` (a list of paths,
/// each a list of `{"type": "get_attr", "value": "name"}` and
/// `{"type": "index", "value": {"value": 0, "type": "number"}}` steps), in the shape
/// `before_sensitive` has in a plan: `true` where sensitive, objects and arrays around.
pub fn marks_from_paths(paths: &Json) -> Json {
    let mut root = Json::Bool(false);
    let Json::Array(paths) = paths else {
        return root;
    };
    // Array elements made for indexes, in all: the indexes come from the file, and many
    // large ones must not add up to more memory than the file could need.
    let mut budget: usize = 1 << 20;
    'paths: for path in paths {
        let Json::Array(steps) = path else { continue };
        let mut node = &mut root;
        for step in steps {
            let key = match step.get("value") {
                Some(Json::Object(v)) => v.get("value").cloned().unwrap_or(Json::Null),
                Some(v) => v.clone(),
                None => step.clone(),
            };
            node = match key {
                Json::String(k) => {
                    if !node.is_object() {
                        *node = Json::Object(serde_json::Map::new());
                    }
                    match node {
                        Json::Object(m) => m.entry(k).or_insert(Json::Bool(false)),
                        _ => continue 'paths,
                    }
                }
                Json::Number(n) => {
                    let Some(i) = n.as_u64().and_then(|i| usize::try_from(i).ok()) else {
                        continue 'paths;
                    };
                    if !node.is_array() {
                        *node = Json::Array(Vec::new());
                    }
                    match node {
                        Json::Array(a) => {
                            if a.len() <= i {
                                let more = i + 1 - a.len();
                                if more > budget {
                                    continue 'paths;
                                }
                                budget -= more;
                                a.resize(i + 1, Json::Bool(false));
                            }
                            &mut a[i]
                        }
                        _ => continue 'paths,
                    }
                }
                _ => continue 'paths,
            };
        }
        *node = Json::Bool(true);
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infers_and_finds_undeclared() {
        let j: Json = serde_json::from_str(r#"{"a":1,"b":[{"c":"x","d":null}]}"#).unwrap();
        assert_eq!(
            infer_type(&j).to_string(),
            "object({a=number,b=tuple([object({c=string,d=any})])})"
        );
        let ty =
            Type::from_json(br#"["object",{"a":"number","b":["list",["object",{"c":"string"}]]}]"#)
                .unwrap();
        assert_eq!(undeclared(&j, &ty), ["b[0].d"]);
    }

    #[test]
    fn marks_paths() {
        let p: Json = serde_json::from_str(
            r#"[[{"type":"get_attr","value":"password"}],
                [{"type":"get_attr","value":"rule"},{"type":"index","value":{"value":1,"type":"number"}},{"type":"get_attr","value":"key"}]]"#,
        )
        .unwrap();
        assert_eq!(
            marks_from_paths(&p),
            serde_json::json!({"password": true, "rule": [false, {"key": true}]})
        );
    }

    #[test]
    fn huge_indexes_in_marks_are_bounded() {
        let step = |i: u64| serde_json::json!([{"type":"get_attr","value":"a"},{"type":"index","value":{"value":i,"type":"number"}}]);
        let many: Vec<Json> = (0..50)
            .map(|n| {
                let mut p = step(999_999);
                p[0]["value"] = Json::from(format!("a{n}"));
                p
            })
            .collect();
        let marks = marks_from_paths(&Json::Array(many));
        let made: usize = marks
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_array().map_or(0, Vec::len))
            .sum();
        assert!(made <= 1 << 20, "{made}");
        let one = marks_from_paths(&Json::Array(vec![step(1 << 40)]));
        assert_eq!(one, serde_json::json!({"a": []}), "nothing marked");
    }

    #[test]
    fn overlays_unknowns() {
        let v = Value::Object(Map::from([("a".to_string(), Value::from("x"))]));
        let u = serde_json::json!({"id": true, "a": false});
        let o = overlay_unknown(v, &u);
        assert!(o["id"].is_unknown());
        assert_eq!(o["a"], "x");
    }
}
