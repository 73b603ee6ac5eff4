//! The tagged JSON notation of values, in which the conformance vectors are written and
//! which `tfvalue decode` prints and `tfvalue encode` reads.
//!
//! Every value is a one-key JSON object that says what it is, so nothing is lost: null
//! `{"null": true}`, `{"string": "x"}`, `{"bool": true}`, `{"number": "1.5"}` (decimal
//! text; `"+Inf"`, `"-Inf"`), `{"list": [..]}`, `{"set": [..]}`, `{"tuple": [..]}`,
//! `{"map": {k: v}}`, `{"object": {k: v}}`, a value in a `dynamic` position
//! `{"dynamic": {"type": T, "value": V}}`, and an unknown
//! `{"unknown": {"nullness": false, "prefix": "ab", "lower": ["1.5", true], "upper": ["10", false], "len_lower": 1, "len_upper": 5}}`
//! with only the refinements that are known.
//!
//! ```
//! use tfvalue::{tagged, Value};
//!
//! let v = tagged::from_tagged(&serde_json::json!({"list": [{"string": "a"}, {"unknown": {"prefix": "b"}}]}))?;
//! assert_eq!(v.get(0).and_then(Value::as_str), Some("a"));
//! assert_eq!(tagged::to_tagged(&v)["list"][1]["unknown"]["prefix"], "b");
//! # Ok::<(), tfvalue::Error>(())
//! ```

use serde_json::{json, Map as JsonMap, Value as Json};

use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::unknown::Refinements;
use crate::value::{Map, Value};
use crate::{dynamic::Dynamic, types::Type};

/// The tagged notation of a value.
pub fn to_tagged(v: &Value) -> Json {
    match v {
        Value::Null => json!({"null": true}),
        Value::Unknown(r) => json!({ "unknown": refinements_to_tagged(r) }),
        Value::Bool(b) => json!({ "bool": b }),
        Value::Number(n) => number_to_tagged(n),
        Value::String(s) => json!({ "string": s }),
        Value::List(vs) => json!({ "list": vs.iter().map(to_tagged).collect::<Vec<_>>() }),
        Value::Set(vs) => json!({ "set": vs.iter().map(to_tagged).collect::<Vec<_>>() }),
        Value::Tuple(vs) => json!({ "tuple": vs.iter().map(to_tagged).collect::<Vec<_>>() }),
        Value::Map(m) => json!({ "map": map_to_tagged(m) }),
        Value::Object(m) => json!({ "object": map_to_tagged(m) }),
        Value::Dynamic(d) => {
            json!({ "dynamic": { "type": d.ty(), "value": to_tagged(d.value()) } })
        }
    }
}

/// A number as its text; a float64 whose exact value differs from its short text also
/// with the exact expansion under `"exact"`, as the vectors write it.
fn number_to_tagged(n: &Number) -> Json {
    let (text, exact) = (n.to_string(), format!("{n:#}"));
    if text == exact {
        json!({ "number": text })
    } else {
        json!({ "number": text, "exact": exact })
    }
}

fn map_to_tagged(m: &Map) -> JsonMap<String, Json> {
    m.iter()
        .map(|(k, v)| (k.to_string(), to_tagged(v)))
        .collect()
}

fn refinements_to_tagged(r: &Refinements) -> Json {
    let mut o = JsonMap::new();
    if r.is_not_null() {
        o.insert("nullness".into(), json!(false));
    }
    if let Some(p) = r.prefix() {
        o.insert("prefix".into(), json!(p));
    }
    if let Some(b) = r.lower_bound() {
        o.insert(
            "lower".into(),
            json!([format!("{:#}", b.value), b.inclusive]),
        );
    }
    if let Some(b) = r.upper_bound() {
        o.insert(
            "upper".into(),
            json!([format!("{:#}", b.value), b.inclusive]),
        );
    }
    if let Some(n) = r.min_length() {
        o.insert("len_lower".into(), json!(n));
    }
    if let Some(n) = r.max_length() {
        o.insert("len_upper".into(), json!(n));
    }
    Json::Object(o)
}

/// Reads the tagged notation. A number is read from `"exact"` when that key is present
/// (the vectors give a float's exact expansion there), else from `"number"`.
///
/// # Errors
///
/// Anything that is not the notation above, with the path of the offending part; a
/// number that does not parse (`"NaN"`).
pub fn from_tagged(j: &Json) -> Result<Value> {
    from_tagged_at(j, 0)
}

fn from_tagged_at(j: &Json, depth: usize) -> Result<Value> {
    if depth > 10_000 {
        return Err(Error::limit("tagged value nested too deeply"));
    }
    let Some(o) = j.as_object() else {
        return Err(Error::data(format_args!(
            "a tagged value must be an object, found {j}"
        )));
    };
    let bad = || Error::data(format_args!("not a tagged value: {j}"));
    let elems = |arr: &Json| -> Result<Vec<Value>> {
        let arr = arr.as_array().ok_or_else(bad)?;
        arr.iter()
            .enumerate()
            .map(|(i, e)| {
                from_tagged_at(e, depth + 1).map_err(|e| e.prepend(PathStep::Index(i as u64)))
            })
            .collect()
    };
    let entries = |m: &Json, attrs: bool| -> Result<Map> {
        let m = m.as_object().ok_or_else(bad)?;
        m.iter()
            .map(|(k, v)| {
                from_tagged_at(v, depth + 1)
                    .map(|v| (k.clone(), v))
                    .map_err(|e| {
                        e.prepend(if attrs {
                            PathStep::Attr(k.to_string())
                        } else {
                            PathStep::Key(k.to_string())
                        })
                    })
            })
            .collect()
    };
    if let Some(n) = o.get("exact").or_else(|| o.get("number")) {
        let text = n.as_str().ok_or_else(bad)?;
        return text
            .parse::<Number>()
            .map(Value::Number)
            .map_err(|e| Error::data(e.to_string()));
    }
    let (tag, body) = o.iter().next().ok_or_else(bad)?;
    if o.len() != 1 {
        return Err(bad());
    }
    Ok(match tag.as_str() {
        "null" => Value::Null,
        "string" => Value::String(body.as_str().ok_or_else(bad)?.to_owned()),
        "bool" => Value::Bool(body.as_bool().ok_or_else(bad)?),
        "list" => Value::List(elems(body)?),
        "set" => Value::Set(elems(body)?),
        "tuple" => Value::Tuple(elems(body)?),
        "map" => Value::Map(entries(body, false)?),
        "object" => Value::Object(entries(body, true)?),
        "dynamic" => {
            let ty: Type = serde_json::from_value(body.get("type").cloned().ok_or_else(bad)?)
                .map_err(|e| {
                    Error::data(format_args!("invalid type in tagged dynamic value: {e}"))
                })?;
            let value = from_tagged_at(body.get("value").ok_or_else(bad)?, depth + 1)?;
            Dynamic::new(ty, value).into_value()
        }
        "unknown" => return refinements_from_tagged(body),
        _ => return Err(bad()),
    })
}

fn refinements_from_tagged(j: &Json) -> Result<Value> {
    let o = j
        .as_object()
        .ok_or_else(|| Error::data("unknown refinements must be an object"))?;
    let mut r = Refinements::new();
    let bound = |v: &Json| -> Result<(Number, bool)> {
        match v.as_array().map(Vec::as_slice) {
            Some([n, Json::Bool(inc)]) => {
                let n = n
                    .as_str()
                    .ok_or_else(|| Error::data("a bound's number must be decimal text"))?
                    .parse::<Number>()
                    .map_err(|e| Error::data(e.to_string()))?;
                Ok((n, *inc))
            }
            _ => Err(Error::data("a bound must be [number, inclusive]")),
        }
    };
    let len = |v: &Json| {
        v.as_u64()
            .ok_or_else(|| Error::data("a length bound must be a whole number"))
    };
    for (k, v) in o {
        r = match k.as_str() {
            "nullness" => match v.as_bool() {
                Some(true) => return Ok(Value::Null),
                Some(false) => r.not_null(),
                None => return Err(Error::data("nullness must be a bool")),
            },
            "prefix" => r.with_prefix(
                v.as_str()
                    .ok_or_else(|| Error::data("prefix must be a string"))?,
            ),
            "lower" => {
                let (n, inc) = bound(v)?;
                r.with_lower_bound(n, inc)
            }
            "upper" => {
                let (n, inc) = bound(v)?;
                r.with_upper_bound(n, inc)
            }
            "len_lower" => r.with_min_length(len(v)?),
            "len_upper" => r.with_max_length(len(v)?),
            other => return Err(Error::data(format_args!("unknown refinement {other:?}"))),
        };
    }
    Ok(Value::Unknown(r))
}
