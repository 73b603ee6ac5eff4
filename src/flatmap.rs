//! The legacy flatmap state format of Terraform before 0.12, as `RawState.flatmap` carries it.
//!
//! A flatmap flattens a value into string keys and string values:
//! `name = "web"`, `tags.% = "1"`, `tags.env = "prod"`, `ports.# = "2"`, `ports.0 = "80"`,
//! `rule.0.cidr = "10.0.0.0/8"`, set elements under hash keys (`sg.1234567.name`), numbers and
//! bools as strings, and `74D93920-ED26-11E3-AC10-0800200C9A66` for an unknown. The rules are
//! those of Terraform's own flatmap reader; a key that is missing is null.

use std::collections::BTreeMap;
use std::ops::Bound;

use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::types::Type;
use crate::unknown::Refinements;
use crate::value::{canonicalize_set, Map, Value};

/// The marker legacy state uses for an unknown value (`tfvalue::flatmap::UNKNOWN_MARKER`).
pub const UNKNOWN_MARKER: &str = "74D93920-ED26-11E3-AC10-0800200C9A66";

impl Value {
    /// Decodes legacy flatmap state against an object type.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use tfvalue::{Type, Value};
    ///
    /// let ty: Type = serde_json::from_str(
    ///     r#"["object",{"name":"string","port":"number","tags":["map","string"],"cidrs":["list","string"]}]"#,
    /// )?;
    /// let state: BTreeMap<String, String> = [
    ///     ("name", "web"), ("port", "8080"),
    ///     ("tags.%", "1"), ("tags.env", "prod"),
    ///     ("cidrs.#", "2"), ("cidrs.0", "10.0.0.0/8"), ("cidrs.1", "192.168.0.0/16"),
    /// ]
    /// .into_iter()
    /// .map(|(k, v)| (k.to_string(), v.to_string()))
    /// .collect();
    /// let v = Value::from_flatmap(&state, &ty)?;
    /// assert_eq!(v["port"], 8080);
    /// assert_eq!(v["tags"]["env"], "prod");
    /// assert_eq!(v["cidrs"][1], "192.168.0.0/16");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A type that is not an object, or contains `dynamic` (flatmap cannot carry it), or a
    /// map of non-primitive elements; a count (`.#`, `.%`) that is not a whole number or is
    /// larger than the whole state; a value that does not convert to its type (`"abc"`
    /// for a number). The error names the path.
    pub fn from_flatmap(state: &BTreeMap<String, String>, ty: &Type) -> Result<Value> {
        read(state, ty, false)
    }
}

/// Flatmap state for a model: as [`Value::from_flatmap`], but an attribute the state
/// leaves out is left out of its object too (not made null), so that the model's field
/// says what a missing attribute is to it (`None` for an `Option` or an
/// `Unknown<Option<T>>`, "missing attribute `size`" for a field that must be there).
pub(crate) fn from_flatmap_for_model(state: &BTreeMap<String, String>, ty: &Type) -> Result<Value> {
    read(state, ty, true)
}

/// [`from_flatmap_for_model`] as MessagePack, written as the value's own structure says
/// (the attributes left out stay out): what a model decodes from, with the decoder its
/// requests use.
pub(crate) fn flatmap_msgpack_for_model(
    state: &BTreeMap<String, String>,
    ty: &Type,
) -> Result<Vec<u8>> {
    crate::msgpack::to_vec(&from_flatmap_for_model(state, ty)?)
}

fn read(state: &BTreeMap<String, String>, ty: &Type, leave_out_missing: bool) -> Result<Value> {
    let Type::Object(o) = ty else {
        return Err(Error::data(format_args!(
            "flatmap state decodes as an object, not as {ty}"
        )));
    };
    let r = Reader {
        m: state,
        budget: std::cell::Cell::new(state.len()),
        leave_out_missing,
    };
    let mut out = Map::new();
    for (name, aty) in o.attributes() {
        let v = r
            .value(name, aty, 0)
            .map_err(|e| e.prepend(PathStep::Attr(name.to_string())))?;
        if !(leave_out_missing && v.is_null()) {
            out.insert(name.clone(), v);
        }
    }
    Ok(Value::Object(out))
}

struct Reader<'a> {
    m: &'a BTreeMap<String, String>,
    /// List elements left to make: counts are checked against the whole state together,
    /// so nested counts cannot multiply into far more elements than the state holds keys.
    budget: std::cell::Cell<usize>,
    /// Leave attributes the state does not have out of their objects (else null).
    leave_out_missing: bool,
}

fn unknown() -> Value {
    Value::Unknown(Refinements::new())
}

impl<'a> Reader<'a> {
    /// The entries whose keys start with `prefix`, in key order.
    fn with_prefix<'p>(
        &self,
        prefix: &'p str,
    ) -> impl Iterator<Item = (&'a String, &'a String)> + 'p
    where
        'a: 'p,
    {
        self.m
            .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .take_while(move |(k, _)| k.starts_with(prefix))
    }

    fn count(&self, key: &str) -> Result<Option<std::result::Result<usize, ()>>> {
        let Some(raw) = self.m.get(key) else {
            return Ok(None);
        };
        if raw == UNKNOWN_MARKER {
            return Ok(Some(Err(())));
        }
        let n: usize = raw.parse().map_err(|_| {
            Error::data(format_args!(
                "invalid count {raw:?} for {key:?} in flatmap state"
            ))
        })?;
        if n > self.m.len() {
            return Err(Error::data(format_args!(
                "count {n} for {key:?} is larger than the whole flatmap state ({} entries)",
                self.m.len()
            )));
        }
        Ok(Some(Ok(n)))
    }

    fn value(&self, key: &str, ty: &Type, depth: usize) -> Result<Value> {
        if depth > crate::limits::DEFAULT_MAX_DEPTH {
            return Err(Error::limit("nesting is deeper than the limit of 128"));
        }
        match ty {
            Type::String | Type::Number | Type::Bool => self.primitive(key, ty),
            Type::Object(o) => {
                let mut out = Map::new();
                for (name, aty) in o.attributes() {
                    let v = self
                        .value(&format!("{key}.{name}"), aty, depth + 1)
                        .map_err(|e| e.prepend(PathStep::Attr(name.to_string())))?;
                    if !(self.leave_out_missing && v.is_null()) {
                        out.insert(name.clone(), v);
                    }
                }
                Ok(Value::Object(out))
            }
            Type::List(_) | Type::Tuple(_) => {
                let n = match self.count(&format!("{key}.#"))? {
                    None => return Ok(Value::Null),
                    Some(Err(())) => return Ok(unknown()),
                    Some(Ok(n)) => n,
                };
                if let Type::Tuple(ts) = ty {
                    if n != ts.len() {
                        return Err(Error::data(format_args!(
                            "wrong number of values for {key:?} in flatmap state: {n}, expected {}",
                            ts.len()
                        )));
                    }
                }
                let left = self.budget.get();
                if n > left {
                    return Err(Error::data(format_args!(
                        "count {n} for {key:?} makes the flatmap state's lists longer than its {} entries",
                        self.m.len()
                    )));
                }
                self.budget.set(left - n);
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let ety = match ty {
                        Type::Tuple(ts) => ts.get(i).unwrap_or(&Type::Dynamic),
                        Type::List(t) => t,
                        _ => &Type::Dynamic,
                    };
                    let v = self
                        .value(&format!("{key}.{i}"), ety, depth + 1)
                        .map_err(|e| e.prepend(PathStep::Index(i as u64)))?;
                    out.push(v);
                }
                Ok(if matches!(ty, Type::Tuple(_)) {
                    Value::Tuple(out)
                } else {
                    Value::List(out)
                })
            }
            Type::Set(t) => {
                match self.count(&format!("{key}.#"))? {
                    None => return Ok(Value::Null),
                    Some(Err(())) => return Ok(unknown()),
                    Some(Ok(_)) => {}
                }
                // The count only says the set exists; elements sit under hash keys.
                let prefix = format!("{key}.");
                let mut element_keys: Vec<&str> = Vec::new();
                for (full, _) in self.with_prefix(&prefix) {
                    let sub = &full[prefix.len()..];
                    if sub == "#" {
                        continue;
                    }
                    let elem = match sub.find('.') {
                        Some(dot) => &full[..prefix.len() + dot],
                        None => full.as_str(),
                    };
                    if element_keys.last() != Some(&elem) {
                        element_keys.push(elem);
                    }
                }
                element_keys.dedup();
                let mut out = Vec::with_capacity(element_keys.len());
                for (i, elem) in element_keys.into_iter().enumerate() {
                    let v = self
                        .value(elem, t, depth + 1)
                        .map_err(|e| e.prepend(PathStep::Index(i as u64)))?;
                    out.push(v);
                }
                canonicalize_set(&mut out);
                Ok(Value::Set(out))
            }
            Type::Map(t) => {
                match self.count(&format!("{key}.%"))? {
                    None => return Ok(Value::Null),
                    Some(Err(())) => return Ok(unknown()),
                    Some(Ok(_)) => {}
                }
                if !t.is_primitive() {
                    return Err(Error::data(format_args!(
                        "flatmap state cannot carry a map of {t}: map elements there are primitive"
                    )));
                }
                // The rest of the key, dots and all, is the map key.
                let prefix = format!("{key}.");
                let mut out = Map::new();
                for (full, _) in self.with_prefix(&prefix) {
                    let k = &full[prefix.len()..];
                    if k == "%" {
                        continue;
                    }
                    let v = self
                        .primitive(full, t)
                        .map_err(|e| e.prepend(PathStep::Key(k.to_owned())))?;
                    out.insert(k.to_owned(), v);
                }
                Ok(Value::Map(out))
            }
            Type::Dynamic => Err(Error::data(
                "flatmap state cannot carry a value of type dynamic",
            )),
        }
    }

    fn primitive(&self, key: &str, ty: &Type) -> Result<Value> {
        let Some(raw) = self.m.get(key) else {
            return Ok(Value::Null);
        };
        if raw == UNKNOWN_MARKER {
            return Ok(unknown());
        }
        match ty {
            Type::Number => raw
                .parse::<Number>()
                .map(Value::Number)
                .map_err(|e| Error::data(format_args!("invalid value in flatmap state: {e}"))),
            Type::Bool => match raw.as_str() {
                "true" | "1" => Ok(Value::Bool(true)),
                "false" | "0" => Ok(Value::Bool(false)),
                _ => Err(Error::data(format_args!(
                    "invalid value in flatmap state: {raw:?} is not a bool"
                ))),
            },
            _ => Ok(Value::String(raw.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn ty(s: &str) -> Type {
        Type::from_json(s.as_bytes()).unwrap()
    }

    #[test]
    fn sets_under_hash_keys_nested_blocks_and_unknowns() {
        let t = ty(
            r#"["object",{"id":"string","ingress":["set",["object",{"from_port":"number","cidr_blocks":["list","string"]}]],"enabled":"bool","arn":"string"}]"#,
        );
        let m = state(&[
            ("id", "sg-1"),
            ("enabled", "true"),
            ("arn", UNKNOWN_MARKER),
            ("ingress.#", "2"),
            ("ingress.1234.from_port", "443"),
            ("ingress.1234.cidr_blocks.#", "1"),
            ("ingress.1234.cidr_blocks.0", "0.0.0.0/0"),
            ("ingress.99.from_port", "80"),
            ("ingress.99.cidr_blocks.#", "0"),
        ]);
        let v = Value::from_flatmap(&m, &t).unwrap();
        assert!(v["arn"].is_unknown());
        assert_eq!(v["enabled"], true);
        let ingress = v["ingress"].as_set().unwrap();
        assert_eq!(ingress.len(), 2);
        let ports: Vec<_> = ingress
            .iter()
            .map(|e| e["from_port"].as_number().unwrap().to_i64().unwrap())
            .collect();
        assert!(ports.contains(&443) && ports.contains(&80));
        // the value conforms to its type and encodes
        v.to_msgpack(&t).unwrap();
    }

    #[test]
    fn missing_is_null_and_counts_are_checked() {
        let t = ty(r#"["object",{"a":["list","string"],"m":["map","number"],"s":"string"}]"#);
        let v = Value::from_flatmap(&state(&[]), &t).unwrap();
        assert!(v["a"].is_null() && v["m"].is_null() && v["s"].is_null());
        let err = Value::from_flatmap(&state(&[("a.#", "x")]), &t).unwrap_err();
        assert_eq!(err.path().to_string(), "a");
        assert!(err.to_string().contains("invalid count"), "{err}");
        let err = Value::from_flatmap(&state(&[("a.#", "1000000000")]), &t).unwrap_err();
        assert!(
            err.to_string()
                .contains("larger than the whole flatmap state"),
            "{err}"
        );
        let err = Value::from_flatmap(&state(&[("m.%", "1"), ("m.k", "abc")]), &t).unwrap_err();
        assert_eq!(err.path().to_string(), r#"m["k"]"#);
        let v = Value::from_flatmap(&state(&[("m.%", "1"), ("m.a.b", "2")]), &t).unwrap();
        assert_eq!(v["m"]["a.b"], 2);
        let v = Value::from_flatmap(&state(&[("a.#", UNKNOWN_MARKER)]), &t).unwrap();
        assert!(v["a"].is_unknown());
        // nested counts share one budget: N lists of N elements from 2N entries is refused
        let t3 = ty(r#"["object",{"a":["list",["list","string"]]}]"#);
        let n = 500;
        let mut pairs = vec![("a.#".to_string(), n.to_string())];
        for i in 0..n {
            pairs.push((format!("a.{i}.#"), n.to_string()));
        }
        let m: BTreeMap<String, String> = pairs.into_iter().collect();
        let err = Value::from_flatmap(&m, &t3).unwrap_err();
        assert!(err.to_string().contains("longer than its"), "{err}");
        assert!(Value::from_flatmap(&state(&[]), &Type::String).is_err());
    }
}
