//! Runs conformance vectors: JSON Lines files of cases produced by go-cty, the reference
//! implementation Terraform Core uses, each with the outcome tfvalue must give.
//!
//! This is what `tfvalue check` and the crate's own conformance tests run. A case is one
//! JSON object with a `name`, a `type` (compact type JSON) or `type_text` (the same as a
//! string, for types too deep for ordinary JSON parsers), an input and an `expect`; the
//! kind of case comes from the file name (`msgpack-decode`, `msgpack-encode`,
//! `json-decode`, `json-encode`, `msgpack-to-json`). Values are in the
//! [tagged notation](crate::tagged).
//!
//! ```
//! use tfvalue::conformance::{run_case, Kind};
//!
//! let case = serde_json::json!({
//!     "name": "number/fixint-5", "type": "number", "msgpack": "05",
//!     "expect": {"value": {"number": "5"}, "reencoded": "05"}
//! });
//! assert_eq!(run_case(Kind::MsgpackDecode, &case), Ok(()));
//!
//! // A float64 off the wire, written as JSON as go-cty writes it (a tie, to even).
//! let case = serde_json::json!({
//!     "name": "float/tie", "type": "number", "msgpack": "cb42d0000000000008",
//!     "expect": {"json_text": "70368744177664.12", "compare": "bytes"}
//! });
//! assert_eq!(run_case(Kind::MsgpackToJson, &case), Ok(()));
//! ```

use serde_json::Value as Json;

use crate::tagged::from_tagged;
use crate::{types::Type, value::Value};

/// What a vector file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// Decode `msgpack` (hex) against `type`.
    MsgpackDecode,
    /// Encode `value` against `type` as MessagePack.
    MsgpackEncode,
    /// Decode `json_text` against `type`.
    JsonDecode,
    /// Encode `value` against `type` as JSON.
    JsonEncode,
    /// Decode `msgpack` (hex) against `type` and write the value as JSON: the path a
    /// float64 takes from the wire into stored state, which the tagged notation cannot
    /// express (an `exact` number is a decimal, not a float64). The JSON must equal
    /// `json_text` byte for byte (`"compare": "bytes"`), or either step must fail.
    MsgpackToJson,
}

impl Kind {
    /// The kind named by a vector file's name: its stem starts with `msgpack-decode`,
    /// `msgpack-encode`, `json-decode`, `json-encode` or `msgpack-to-json`.
    pub fn from_file_name(name: &str) -> Option<Kind> {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        [
            ("msgpack-decode", Kind::MsgpackDecode),
            ("msgpack-encode", Kind::MsgpackEncode),
            ("json-decode", Kind::JsonDecode),
            ("json-encode", Kind::JsonEncode),
            ("msgpack-to-json", Kind::MsgpackToJson),
        ]
        .into_iter()
        .find(|(prefix, _)| base.starts_with(prefix))
        .map(|(_, k)| k)
    }
}

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseResult {
    /// The case's `name` (or its line number when it has none).
    pub name: String,
    /// `Ok` when tfvalue did what the case expects; else why not.
    pub outcome: Result<(), String>,
}

/// Runs every case of a JSON Lines file. Blank lines are skipped; a line that is not
/// JSON is a failed case.
///
/// The cases run on a thread of their own with an 8 MiB stack (the size of a main
/// thread's), whatever the caller's thread has.
pub fn run_file(kind: Kind, text: &str) -> Vec<CaseResult> {
    let text = text.to_owned();
    let worker = std::thread::Builder::new()
        .name("tfvalue-conformance".into())
        .stack_size(8 << 20)
        .spawn(move || run_lines(kind, &text));
    match worker.map(|h| h.join()) {
        Ok(Ok(results)) => results,
        _ => vec![CaseResult {
            name: "(runner)".into(),
            outcome: Err("the conformance runner thread failed".into()),
        }],
    }
}

fn run_lines(kind: Kind, text: &str) -> Vec<CaseResult> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Json = match serde_json::from_str(line) {
            Ok(c) => c,
            Err(e) => {
                out.push(CaseResult {
                    name: format!("line {}", i + 1),
                    outcome: Err(format!("not a JSON case: {e}")),
                });
                continue;
            }
        };
        let name = case
            .get("name")
            .and_then(Json::as_str)
            .map_or_else(|| format!("line {}", i + 1), str::to_owned);
        out.push(CaseResult {
            name,
            outcome: run_case(kind, &case),
        });
    }
    out
}

fn field<'a>(case: &'a Json, key: &str) -> Result<&'a Json, String> {
    case.get(key)
        .ok_or_else(|| format!("the case has no {key:?}"))
}

fn case_type(case: &Json) -> Result<Type, String> {
    if let Some(text) = case.get("type_text").and_then(Json::as_str) {
        let text = truncate_type_json(text, TYPE_DEPTH);
        return Type::from_json_with_depth(text.as_bytes(), TYPE_DEPTH + 1)
            .map_err(|e| format!("bad type_text: {e}"));
    }
    serde_json::from_value(field(case, "type")?.clone()).map_err(|e| format!("bad type: {e}"))
}

/// How deep the runner builds a case's type. The vectors' very deep types (ten thousand
/// levels) test that decoding stops at the value nesting limit (128); below this depth
/// the decoder never looks, so the rest of the type is replaced by `dynamic` rather than
/// built (which would take as many levels of recursion).
const TYPE_DEPTH: usize = 2 * crate::limits::DEFAULT_MAX_DEPTH;

/// The type JSON `text` with every array nested deeper than `depth` replaced by
/// `"dynamic"`.
fn truncate_type_json(text: &str, depth: usize) -> std::borrow::Cow<'_, str> {
    let mut out = String::new();
    let mut level = 0usize;
    let mut skip_from: Option<usize> = None; // the level at which skipping started
    let mut in_string = false;
    let mut escaped = false;
    let mut copied = 0usize;
    let mut changed = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                level += 1;
                if level > depth && skip_from.is_none() {
                    out.push_str(&text[copied..i]);
                    out.push_str("\"dynamic\"");
                    skip_from = Some(level);
                    changed = true;
                }
            }
            ']' | '}' => {
                if skip_from == Some(level) {
                    skip_from = None;
                    copied = i + 1;
                }
                level = level.saturating_sub(1);
            }
            _ => {}
        }
    }
    if !changed {
        return std::borrow::Cow::Borrowed(text);
    }
    if skip_from.is_none() {
        out.push_str(&text[copied..]);
    }
    std::borrow::Cow::Owned(out)
}

/// Decodes hex text.
pub fn hex_decode(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    if s.len() % 2 != 0 {
        return Err("hex text of odd length".into());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("invalid hex at {i}"))
        })
        .collect()
}

/// Lower-case hex text.
pub fn hex_encode(b: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

fn short(s: &str) -> String {
    if s.len() <= 200 {
        s.to_owned()
    } else {
        let mut cut = 200;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}... ({} bytes)", &s[..cut], s.len())
    }
}

/// Runs one case.
///
/// # Errors
///
/// Why tfvalue's outcome differs from the expected one (or why the case is malformed).
pub fn run_case(kind: Kind, case: &Json) -> Result<(), String> {
    let expect = field(case, "expect")?;
    let ty = case_type(case)?;
    let expects_error = expect.get("error").and_then(Json::as_bool) == Some(true);
    match kind {
        Kind::MsgpackDecode | Kind::JsonDecode => {
            let decoded = if kind == Kind::MsgpackDecode {
                let input = hex_decode(
                    field(case, "msgpack")?
                        .as_str()
                        .ok_or("msgpack must be hex text")?,
                )?;
                Value::from_msgpack(&input, &ty)
            } else {
                let input = field(case, "json_text")?
                    .as_str()
                    .ok_or("json_text must be text")?;
                Value::from_json(input.as_bytes(), &ty)
            };
            let decoded = match (decoded, expects_error) {
                (Err(_), true) => return Ok(()),
                (Ok(v), true) => {
                    return Err(format!(
                        "expected an error, decoded {}",
                        short(&crate::tagged::to_tagged(&v).to_string())
                    ))
                }
                (Err(e), false) => return Err(format!("decoding failed: {e}")),
                (Ok(v), false) => v,
            };
            if let Some(want) = expect.get("value") {
                let want = from_tagged(want).map_err(|e| format!("bad expected value: {e}"))?;
                if decoded != want && round_bounds(&decoded) != round_bounds(&want) {
                    return Err(format!(
                        "decoded {}, expected {}",
                        short(&crate::tagged::to_tagged(&decoded).to_string()),
                        short(&crate::tagged::to_tagged(&want).to_string())
                    ));
                }
            }
            if let Some(want) = expect.get("reencoded") {
                let want = want.as_str().ok_or("reencoded must be hex text")?;
                let got = decoded
                    .to_msgpack(&ty)
                    .map_err(|e| format!("re-encoding failed: {e}"))?;
                let got = hex_encode(&got);
                if got != want {
                    return Err(format!(
                        "re-encoded {}, expected {}",
                        short(&got),
                        short(want)
                    ));
                }
            }
            if expect.get("value").is_none() && expect.get("reencoded").is_none() {
                return Err("the case expects nothing tfvalue can check".into());
            }
            Ok(())
        }
        Kind::MsgpackToJson => check_msgpack_to_json(case, &ty, expect, expects_error),
        Kind::MsgpackEncode | Kind::JsonEncode => {
            let value = match from_tagged(field(case, "value")?) {
                Ok(v) => v,
                // A value that cannot even be built (NaN) cannot be encoded either.
                Err(_) if expects_error => return Ok(()),
                Err(e) => return Err(format!("bad value: {e}")),
            };
            if kind == Kind::MsgpackEncode {
                check_msgpack_encode(&value, &ty, expect, expects_error)
            } else {
                check_json_encode(&value, &ty, expect, expects_error)
            }
        }
    }
}

/// A `msgpack-to-json` case: decode, write JSON, compare the bytes.
fn check_msgpack_to_json(
    case: &Json,
    ty: &Type,
    expect: &Json,
    expects_error: bool,
) -> Result<(), String> {
    let input = hex_decode(
        field(case, "msgpack")?
            .as_str()
            .ok_or("msgpack must be hex text")?,
    )?;
    let written = Value::from_msgpack(&input, ty).and_then(|v| v.to_json(ty));
    let got = match (written, expects_error) {
        (Err(_), true) => return Ok(()),
        (Ok(b), true) => {
            return Err(format!(
                "expected an error, wrote {}",
                short(&String::from_utf8_lossy(&b))
            ))
        }
        (Err(e), false) => return Err(format!("decoding or writing JSON failed: {e}")),
        (Ok(b), false) => b,
    };
    let want = expect
        .get("json_text")
        .and_then(Json::as_str)
        .ok_or("expect has no json_text")?;
    match expect.get("compare").and_then(Json::as_str) {
        Some("bytes") if got == want.as_bytes() => Ok(()),
        Some("bytes") => Err(format!(
            "wrote {}, expected {}",
            short(&String::from_utf8_lossy(&got)),
            short(want)
        )),
        other => Err(format!("unsupported compare mode {other:?}")),
    }
}

fn check_msgpack_encode(
    value: &Value,
    ty: &Type,
    expect: &Json,
    expects_error: bool,
) -> Result<(), String> {
    let got = match (value.to_msgpack(ty), expects_error) {
        (Err(_), true) => return Ok(()),
        (Ok(b), true) => {
            return Err(format!(
                "expected an error, encoded {}",
                short(&hex_encode(&b))
            ))
        }
        (Err(e), false) => return Err(format!("encoding failed: {e}")),
        (Ok(b), false) => b,
    };
    let want = expect
        .get("msgpack")
        .and_then(Json::as_str)
        .ok_or("expect has no msgpack")?;
    match expect.get("compare").and_then(Json::as_str) {
        Some("bytes") => {
            let got = hex_encode(&got);
            if got == want {
                Ok(())
            } else {
                Err(format!("encoded {}, expected {}", short(&got), short(want)))
            }
        }
        Some("set-order-free") => {
            // The bytes must decode to the value go-cty's bytes decode to.
            let ours = Value::from_msgpack(&got, ty)
                .map_err(|e| format!("our encoding does not decode: {e}"))?;
            let theirs = Value::from_msgpack(&hex_decode(want)?, ty)
                .map_err(|e| format!("the expected encoding does not decode: {e}"))?;
            if ours == theirs {
                Ok(())
            } else {
                Err(format!(
                    "encoded {}, which differs from {}",
                    short(&hex_encode(&got)),
                    short(want)
                ))
            }
        }
        other => Err(format!("unsupported compare mode {other:?}")),
    }
}

fn check_json_encode(
    value: &Value,
    ty: &Type,
    expect: &Json,
    expects_error: bool,
) -> Result<(), String> {
    let got = match (value.to_json(ty), expects_error) {
        (Err(_), true) => return Ok(()),
        (Ok(b), true) => {
            return Err(format!(
                "expected an error, encoded {}",
                short(&String::from_utf8_lossy(&b))
            ))
        }
        (Err(e), false) => return Err(format!("encoding failed: {e}")),
        (Ok(b), false) => b,
    };
    let want = expect
        .get("json_text")
        .and_then(Json::as_str)
        .ok_or("expect has no json_text")?;
    match expect.get("compare").and_then(Json::as_str) {
        Some("json-semantic") => {
            let got =
                std::str::from_utf8(&got).map_err(|e| format!("the output is not UTF-8: {e}"))?;
            let ours = SemanticJson::parse(got)
                .map_err(|e| format!("our output is not JSON ({e}): {}", short(got)))?;
            let theirs = SemanticJson::parse(want)
                .map_err(|e| format!("the expected text is not JSON: {e}"))?;
            if ours == theirs {
                Ok(())
            } else {
                Err(format!("encoded {}, expected {}", short(got), short(want)))
            }
        }
        Some("set-order-free") => {
            // The output must decode to the value the expected text decodes to (sets of
            // non-primitive elements may come out in another order than go-cty's).
            let ours = Value::from_json(&got, ty)
                .map_err(|e| format!("our encoding does not decode: {e}"))?;
            let theirs = Value::from_json(want.as_bytes(), ty)
                .map_err(|e| format!("the expected encoding does not decode: {e}"))?;
            if ours == theirs {
                Ok(())
            } else {
                Err(format!(
                    "encoded {}, which differs from {}",
                    short(&String::from_utf8_lossy(&got)),
                    short(want)
                ))
            }
        }
        other => Err(format!("unsupported compare mode {other:?}")),
    }
}

/// JSON compared the way the `json-semantic` mode asks: numbers by exact value (not as
/// float64, which would hide differences in long numbers), object keys in any order,
/// and duplicate keys rejected.
///
/// ```
/// use tfvalue::conformance::SemanticJson;
///
/// let a = SemanticJson::parse(r#"{"b": 1.50, "a": [1e2, "x"]}"#)?;
/// let b = SemanticJson::parse(r#"{"a":[100,"x"],"b":1.5}"#)?;
/// assert_eq!(a, b);
/// // As float64 these two are the same number; as exact numbers they are not.
/// assert_ne!(SemanticJson::parse("9007199254740993")?, SemanticJson::parse("9007199254740992")?);
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum SemanticJson {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, exactly.
    Number(crate::number::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<SemanticJson>),
    /// An object.
    Object(std::collections::BTreeMap<String, SemanticJson>),
}

impl SemanticJson {
    /// Parses JSON text (one value, nothing after it but whitespace).
    ///
    /// # Errors
    ///
    /// Malformed JSON, a duplicate object key, a number outside [`Number`](crate::Number)'s
    /// range, or nesting deeper than 10,000.
    pub fn parse(text: &str) -> Result<SemanticJson, String> {
        let raw: &serde_json::value::RawValue =
            serde_json::from_str(text).map_err(|e| e.to_string())?;
        Self::from_raw(raw.get(), 0)
    }

    fn from_raw(raw: &str, depth: usize) -> Result<SemanticJson, String> {
        use serde_json::value::RawValue;
        if depth > 10_000 {
            return Err("nested too deeply".into());
        }
        let err = |e: serde_json::Error| e.to_string();
        Ok(match raw.as_bytes().first() {
            Some(b'n') => SemanticJson::Null,
            Some(b't') => SemanticJson::Bool(true),
            Some(b'f') => SemanticJson::Bool(false),
            Some(b'"') => SemanticJson::String(serde_json::from_str(raw).map_err(err)?),
            Some(b'[') => {
                let elems: Vec<&RawValue> = serde_json::from_str(raw).map_err(err)?;
                SemanticJson::Array(
                    elems
                        .into_iter()
                        .map(|e| Self::from_raw(e.get(), depth + 1))
                        .collect::<Result<_, _>>()?,
                )
            }
            Some(b'{') => {
                let entries: Entries<'_> = serde_json::from_str(raw).map_err(err)?;
                let mut out = std::collections::BTreeMap::new();
                for (k, v) in entries.0 {
                    let v = Self::from_raw(v.get(), depth + 1)?;
                    if out.insert(k.clone(), v).is_some() {
                        return Err(format!("duplicate key {k:?}"));
                    }
                }
                SemanticJson::Object(out)
            }
            _ => SemanticJson::Number(
                raw.parse()
                    .map_err(|e: crate::number::ParseNumberError| e.to_string())?,
            ),
        })
    }
}

/// The entries of a JSON object in input order, duplicates kept.
struct Entries<'a>(Vec<(String, &'a serde_json::value::RawValue)>);

impl<'de> serde::Deserialize<'de> for Entries<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The JSON-encode case implied by a `msgpack-encode` case that carries go-cty's JSON
/// text of its value (`json_text`), or `None` when it carries none.
///
/// The expected outcome follows the msgpack case: where encoding must fail (tfvalue never
/// converts a value to its type), JSON encoding must fail too; where the expected
/// MessagePack holds an unknown (tfvalue keeps refinements that go-cty collapses into a
/// known value), JSON encoding must fail, since JSON has no unknowns; otherwise the JSON
/// must equal `json_text` semantically (`json-semantic`), or, where the msgpack case
/// leaves the order of set elements free, decode to the same value (`set-order-free`).
///
/// ```
/// use tfvalue::conformance::{json_encode_case_from_msgpack, run_case, Kind};
///
/// let case = serde_json::json!({
///     "name": "list/two", "type": ["list", "number"],
///     "value": {"list": [{"number": "1"}, {"number": "0.5"}]},
///     "expect": {"msgpack": "9201cb3fe0000000000000", "compare": "bytes"},
///     "json_text": "[1,0.5]"
/// });
/// let json_case = json_encode_case_from_msgpack(&case).unwrap();
/// assert_eq!(json_case["expect"]["json_text"], "[1,0.5]");
/// assert_eq!(run_case(Kind::JsonEncode, &json_case), Ok(()));
/// ```
pub fn json_encode_case_from_msgpack(case: &Json) -> Option<Json> {
    let json_text = case.get("json_text")?.as_str()?;
    let expect = case.get("expect")?;
    let fails = expect.get("error").and_then(Json::as_bool) == Some(true);
    let holds_unknown = || -> bool {
        let ty = match case_type(case) {
            Ok(ty) => ty,
            Err(_) => return false,
        };
        let bytes = match expect.get("msgpack").and_then(Json::as_str).map(hex_decode) {
            Some(Ok(b)) => b,
            _ => return false,
        };
        Value::from_msgpack(&bytes, &ty).is_ok_and(|v| !v.is_wholly_known())
    };
    let compare = match expect.get("compare").and_then(Json::as_str) {
        Some("set-order-free") => "set-order-free",
        _ => "json-semantic",
    };
    let json_expect = if fails || holds_unknown() {
        serde_json::json!({ "error": true })
    } else {
        serde_json::json!({ "json_text": json_text, "compare": compare })
    };
    let mut out = serde_json::Map::new();
    for key in ["name", "tags", "type", "type_text", "value"] {
        if let Some(v) = case.get(key) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    out.insert("expect".to_owned(), json_expect);
    Some(Json::Object(out))
}

/// The vectors write a refinement bound that was a float on the wire as the float's
/// shortest text (the notation has no `exact` for bounds), so bounds are compared as the
/// float64 nearest to them when the exact comparison fails.
fn round_bounds(v: &Value) -> Value {
    use crate::{number::Number, unknown::Refinements};
    let round = |n: &Number| match n.to_exact_f64() {
        Some(_) => n.clone(),
        None => n
            .to_f64()
            .and_then(Number::from_f64)
            .unwrap_or_else(|| n.clone()),
    };
    match v {
        Value::Unknown(r) => {
            let mut out = Refinements::new();
            if r.is_not_null() {
                out = out.not_null();
            }
            if let Some(p) = r.prefix() {
                out = out.with_prefix(p);
            }
            if let Some(b) = r.lower_bound() {
                out = out.with_lower_bound(round(&b.value), b.inclusive);
            }
            if let Some(b) = r.upper_bound() {
                out = out.with_upper_bound(round(&b.value), b.inclusive);
            }
            if let Some(n) = r.min_length() {
                out = out.with_min_length(n);
            }
            if let Some(n) = r.max_length() {
                out = out.with_max_length(n);
            }
            Value::Unknown(out)
        }
        Value::List(vs) => Value::List(vs.iter().map(round_bounds).collect()),
        Value::Set(vs) => Value::Set(vs.iter().map(round_bounds).collect()),
        Value::Tuple(vs) => Value::Tuple(vs.iter().map(round_bounds).collect()),
        Value::Map(m) => Value::Map(
            m.iter()
                .map(|(k, v)| (k.clone(), round_bounds(v)))
                .collect(),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), round_bounds(v)))
                .collect(),
        ),
        Value::Dynamic(d) => {
            crate::dynamic::Dynamic::new(d.ty().clone(), round_bounds(d.value())).into_value()
        }
        v => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_type_json_is_cut_to_dynamic() {
        assert_eq!(
            truncate_type_json(r#"["list","string"]"#, 4),
            r#"["list","string"]"#
        );
        assert_eq!(
            truncate_type_json(r#"["list",["list",["list","string"]]]"#, 2),
            r#"["list",["list","dynamic"]]"#
        );
        // brackets inside attribute names are text, not nesting
        assert_eq!(
            truncate_type_json(r#"["object",{"[[[":["list","number"]}]"#, 2),
            r#"["object",{"[[[":"dynamic"}]"#
        );
        let deep = format!(
            "{}\"string\"{}",
            "[\"list\",".repeat(10_000),
            "]".repeat(10_000)
        );
        let cut = truncate_type_json(&deep, TYPE_DEPTH);
        let ty = Type::from_json_with_depth(cut.as_bytes(), TYPE_DEPTH + 1).unwrap();
        let mut depth = 0;
        let mut t = &ty;
        while let Type::List(e) = t {
            depth += 1;
            t = e;
        }
        assert_eq!((depth, t), (TYPE_DEPTH, &Type::Dynamic));
    }
}
