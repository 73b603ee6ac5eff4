//! Value matchers for state and plan checks (terraform-plugin-testing's `knownvalue`):
//! exact numbers, strings by pattern, null or not, collections exact, partial or by
//! size, and custom closures; a mismatch names the path, the expected and the found value.

use std::collections::BTreeMap;
use std::fmt;

use tfvalue::schema::Pattern;
use tfvalue::{AttributePath, Number, PathStep, Value};

/// Where a value did not match, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The path inside the value checked (empty: the value itself).
    pub path: AttributePath,
    /// What the matcher expected.
    pub expected: String,
    /// What it found.
    pub found: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "at {}: ", self.path)?;
        }
        write!(f, "expected {}, found {}", self.expected, self.found)
    }
}

impl std::error::Error for Mismatch {}

type CheckFn = Box<dyn Fn(&Value) -> Result<(), Mismatch> + Send + Sync>;

/// A check of one value: build it with the functions of this module.
///
/// ```
/// use tfvalue::Value;
/// use tfvalue_plugin::testing::known;
///
/// let tags = Value::from_json_value(
///     &serde_json::json!({"env": "prod", "team": "db"}),
///     &serde_json::from_str(r#"["map","string"]"#)?,
/// )?;
/// known::map_partial([("env", known::string("prod"))]).check(&tags)?;
/// let e = known::map_partial([("env", known::string("dev"))]).check(&tags).unwrap_err();
/// assert_eq!(e.to_string(), r#"at ["env"]: expected "dev", found "prod""#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Known {
    what: String,
    check: CheckFn,
}

impl fmt::Debug for Known {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl fmt::Display for Known {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl Known {
    /// Checks `value`.
    ///
    /// # Errors
    ///
    /// Where it does not match, with what was expected and found.
    pub fn check(&self, value: &Value) -> Result<(), Mismatch> {
        (self.check)(value)
    }

    fn new(
        what: String,
        check: impl Fn(&Value) -> Result<(), Mismatch> + Send + Sync + 'static,
    ) -> Known {
        Known {
            what,
            check: Box::new(check),
        }
    }
}

/// How a value is printed in a mismatch: JSON-like, numbers exact, `(unknown)`.
pub fn show(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v);
    out
}

fn write_value(out: &mut String, v: &Value) {
    use std::fmt::Write as _;
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => {
            let _ = write!(out, "{}", serde_json::Value::from(s.as_str()));
        }
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Map(m) | Value::Object(m) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{}: ", serde_json::Value::from(k.as_str()));
                write_value(out, item);
            }
            out.push('}');
        }
        Value::Unknown(_) => out.push_str("(unknown)"),
        Value::Dynamic(d) => write_value(out, d.value()),
    }
}

fn mismatch(expected: &str, found: &Value) -> Mismatch {
    Mismatch {
        path: AttributePath::new(),
        expected: expected.to_owned(),
        found: show(found),
    }
}

/// The value inside a `Dynamic`, or the value itself.
fn plain(v: &Value) -> &Value {
    match v {
        Value::Dynamic(d) => plain(d.value()),
        v => v,
    }
}

/// Runs `k` on an element, putting `step` in front of the path of a mismatch.
fn within(k: &Known, step: PathStep, v: &Value) -> Result<(), Mismatch> {
    k.check(v).map_err(|mut m| {
        let mut path = AttributePath::from(vec![step]);
        for s in m.path.steps() {
            path.push(s.clone());
        }
        m.path = path;
        m
    })
}

/// Exactly this string.
pub fn string(expected: impl Into<String>) -> Known {
    let expected = expected.into();
    let what = serde_json::Value::from(expected.as_str()).to_string();
    Known::new(what.clone(), move |v| match plain(v) {
        Value::String(s) if *s == expected => Ok(()),
        v => Err(mismatch(&what, v)),
    })
}

/// A string matching `pattern` (tfvalue's [`Pattern`] language: without `^` and `$`
/// it may match anywhere, as Go's `regexp.MatchString`). A pattern outside that
/// language matches nothing, and the failure says why.
pub fn string_matching(pattern: &str) -> Known {
    let p = Pattern::new(pattern);
    let what = match &p {
        Ok(_) => format!("a string matching `{pattern}`"),
        Err(e) => format!("a string matching `{pattern}`, which is no pattern ({e})"),
    };
    Known::new(what.clone(), move |v| match (plain(v), &p) {
        (Value::String(s), Ok(p)) if p.is_match(s) => Ok(()),
        (v, _) => Err(mismatch(&what, v)),
    })
}

/// Exactly this number (compared exactly: `1.10` is `1.1`, `0.1` is not `0.1000001`).
pub fn number(expected: impl Into<Number>) -> Known {
    let expected: Number = expected.into();
    let what = expected.to_string();
    Known::new(what.clone(), move |v| match plain(v) {
        Value::Number(n) if *n == expected => Ok(()),
        v => Err(mismatch(&what, v)),
    })
}

/// Exactly this bool.
pub fn bool(expected: bool) -> Known {
    let what = expected.to_string();
    Known::new(what.clone(), move |v| match plain(v) {
        Value::Bool(b) if *b == expected => Ok(()),
        v => Err(mismatch(&what, v)),
    })
}

/// Null.
pub fn null() -> Known {
    Known::new("null".to_owned(), |v| {
        if plain(v).is_null() {
            Ok(())
        } else {
            Err(mismatch("null", v))
        }
    })
}

/// Anything but null (unknown included).
pub fn not_null() -> Known {
    Known::new("a value that is not null".to_owned(), |v| {
        if plain(v).is_null() {
            Err(mismatch("a value that is not null", v))
        } else {
            Ok(())
        }
    })
}

fn elements(v: &Value) -> Option<&[Value]> {
    match plain(v) {
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => Some(items),
        _ => None,
    }
}

fn what_all(items: &[Known]) -> String {
    items
        .iter()
        .map(|k| k.what.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A list (or tuple) of exactly these elements, in order.
pub fn list(expected: impl IntoIterator<Item = Known>) -> Known {
    let expected: Vec<Known> = expected.into_iter().collect();
    let what = format!("[{}]", what_all(&expected));
    Known::new(what.clone(), move |v| {
        let Some(items) = elements(v).filter(|_| !matches!(plain(v), Value::Set(_))) else {
            return Err(mismatch(&format!("a list {what}"), v));
        };
        if items.len() != expected.len() {
            return Err(mismatch(&format!("{} elements {what}", expected.len()), v));
        }
        for (i, (k, item)) in expected.iter().zip(items).enumerate() {
            within(k, PathStep::Index(i as u64), item)?;
        }
        Ok(())
    })
}

/// A list (or tuple) whose elements at these indexes match; the others may be anything.
pub fn list_partial(expected: impl IntoIterator<Item = (usize, Known)>) -> Known {
    let expected: BTreeMap<usize, Known> = expected.into_iter().collect();
    let what = format!(
        "a list with {}",
        expected
            .iter()
            .map(|(i, k)| format!("[{i}] = {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Known::new(what.clone(), move |v| {
        let Some(items) = elements(v).filter(|_| !matches!(plain(v), Value::Set(_))) else {
            return Err(mismatch(&what, v));
        };
        for (i, k) in &expected {
            match items.get(*i) {
                Some(item) => within(k, PathStep::Index(*i as u64), item)?,
                None => return Err(mismatch(&what, v)),
            }
        }
        Ok(())
    })
}

/// Matches each expected element to a different element of a set, in any order.
fn set_match(expected: &[Known], items: &[Value]) -> bool {
    // Augmenting paths (bipartite matching): sets in tests are small.
    fn place(
        e: usize,
        expected: &[Known],
        items: &[Value],
        taken: &mut [Option<usize>],
        seen: &mut [bool],
    ) -> bool {
        for (i, item) in items.iter().enumerate() {
            if seen[i] || expected[e].check(item).is_err() {
                continue;
            }
            seen[i] = true;
            if taken[i].is_none_or(|other| place(other, expected, items, taken, seen)) {
                taken[i] = Some(e);
                return true;
            }
        }
        false
    }
    let mut taken = vec![None; items.len()];
    (0..expected.len()).all(|e| {
        place(
            e,
            expected,
            items,
            &mut taken,
            &mut vec![false; items.len()],
        )
    })
}

/// A set of exactly these elements, in any order.
pub fn set(expected: impl IntoIterator<Item = Known>) -> Known {
    let expected: Vec<Known> = expected.into_iter().collect();
    let what = format!("a set of {{{}}}", what_all(&expected));
    Known::new(what.clone(), move |v| match plain(v) {
        Value::Set(items) if items.len() == expected.len() && set_match(&expected, items) => Ok(()),
        v => Err(mismatch(&what, v)),
    })
}

/// A set holding elements that match these (each a different element), and maybe more.
pub fn set_partial(expected: impl IntoIterator<Item = Known>) -> Known {
    let expected: Vec<Known> = expected.into_iter().collect();
    let what = format!("a set holding {{{}}}", what_all(&expected));
    Known::new(what.clone(), move |v| match plain(v) {
        Value::Set(items) if set_match(&expected, items) => Ok(()),
        v => Err(mismatch(&what, v)),
    })
}

fn entries(v: &Value) -> Option<&tfvalue::Map> {
    match plain(v) {
        Value::Map(m) | Value::Object(m) => Some(m),
        _ => None,
    }
}

fn keyed<K: Into<String>>(
    expected: impl IntoIterator<Item = (K, Known)>,
) -> BTreeMap<String, Known> {
    expected.into_iter().map(|(k, v)| (k.into(), v)).collect()
}

fn what_keyed(expected: &BTreeMap<String, Known>) -> String {
    expected
        .iter()
        .map(|(k, v)| format!("{}: {v}", serde_json::Value::from(k.as_str())))
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_keyed(
    expected: &BTreeMap<String, Known>,
    exact: bool,
    what: &str,
    v: &Value,
    step: fn(String) -> PathStep,
) -> Result<(), Mismatch> {
    let Some(m) = entries(v) else {
        return Err(mismatch(what, v));
    };
    for (k, known) in expected {
        match m.get(k) {
            Some(item) => within(known, step(k.clone()), item)?,
            None => {
                return Err(Mismatch {
                    path: AttributePath::from(vec![step(k.clone())]),
                    expected: known.what.clone(),
                    found: "nothing (no such key)".to_owned(),
                })
            }
        }
    }
    if exact {
        if let Some(extra) = m.keys().find(|k| !expected.contains_key(&***k)) {
            return Err(Mismatch {
                path: AttributePath::from(vec![step(extra.to_string())]),
                expected: "no such key".to_owned(),
                found: m.get(extra).map_or_else(String::new, show),
            });
        }
    }
    Ok(())
}

/// A map of exactly these keys, each value matching.
pub fn map<K: Into<String>>(expected: impl IntoIterator<Item = (K, Known)>) -> Known {
    let expected = keyed(expected);
    let what = format!("a map {{{}}}", what_keyed(&expected));
    Known::new(what.clone(), move |v| {
        check_keyed(&expected, true, &what, v, PathStep::Key)
    })
}

/// A map holding these keys (and maybe more), each value matching.
pub fn map_partial<K: Into<String>>(expected: impl IntoIterator<Item = (K, Known)>) -> Known {
    let expected = keyed(expected);
    let what = format!("a map holding {{{}}}", what_keyed(&expected));
    Known::new(what.clone(), move |v| {
        check_keyed(&expected, false, &what, v, PathStep::Key)
    })
}

/// An object of exactly these attributes, each matching.
pub fn object<K: Into<String>>(expected: impl IntoIterator<Item = (K, Known)>) -> Known {
    let expected = keyed(expected);
    let what = format!("an object {{{}}}", what_keyed(&expected));
    Known::new(what.clone(), move |v| {
        check_keyed(&expected, true, &what, v, PathStep::Attr)
    })
}

/// An object whose named attributes match; the others may be anything.
pub fn object_partial<K: Into<String>>(expected: impl IntoIterator<Item = (K, Known)>) -> Known {
    let expected = keyed(expected);
    let what = format!("an object with {{{}}}", what_keyed(&expected));
    Known::new(what.clone(), move |v| {
        check_keyed(&expected, false, &what, v, PathStep::Attr)
    })
}

/// A list, set, tuple or map of `n` elements.
pub fn size(n: usize) -> Known {
    let what = format!("{n} elements");
    Known::new(what.clone(), move |v| {
        let len = elements(v).map(<[Value]>::len).or_else(|| match plain(v) {
            Value::Map(m) => Some(m.len()),
            _ => None,
        });
        match len {
            Some(len) if len == n => Ok(()),
            _ => Err(mismatch(&what, v)),
        }
    })
}

/// A check of your own: `what` is how a failure names what was expected.
///
/// ```
/// use tfvalue::Value;
/// use tfvalue_plugin::testing::known;
///
/// let even = known::custom("an even number", |v| {
///     v.as_number().and_then(|n| n.to_u64()).is_some_and(|n| n % 2 == 0)
/// });
/// assert!(even.check(&Value::from(4u64)).is_ok());
/// assert_eq!(even.check(&Value::from(3u64)).unwrap_err().to_string(), "expected an even number, found 3");
/// ```
pub fn custom(
    what: impl Into<String>,
    f: impl Fn(&Value) -> bool + Send + Sync + 'static,
) -> Known {
    let what = what.into();
    Known::new(what.clone(), move |v| {
        if f(plain(v)) {
            Ok(())
        } else {
            Err(mismatch(&what, v))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfvalue::Type;

    fn value(json: serde_json::Value, ty: &str) -> Value {
        let ty: Type = serde_json::from_str(ty).unwrap();
        Value::from_json_value(&json, &ty).unwrap()
    }

    fn fails(k: &Known, v: &Value) -> String {
        k.check(v).unwrap_err().to_string()
    }

    #[test]
    fn scalars_match_exactly_and_say_what_they_found() {
        let s = value(serde_json::json!("web-1"), r#""string""#);
        assert!(string("web-1").check(&s).is_ok());
        assert_eq!(
            fails(&string("web-2"), &s),
            r#"expected "web-2", found "web-1""#
        );
        assert!(string_matching(r"^web-\d$").check(&s).is_ok());
        assert_eq!(
            fails(&string_matching("^db"), &s),
            r#"expected a string matching `^db`, found "web-1""#
        );
        let n: Value = Value::Number("0.1".parse().unwrap());
        assert!(number("0.10".parse::<Number>().unwrap()).check(&n).is_ok());
        assert_eq!(
            fails(
                &number("0.1000000000000000000001".parse::<Number>().unwrap()),
                &n
            ),
            "expected 0.1000000000000000000001, found 0.1"
        );
        assert_eq!(
            fails(&bool(true), &Value::Bool(false)),
            "expected true, found false"
        );
        assert!(null().check(&Value::Null).is_ok());
        assert_eq!(
            fails(&not_null(), &Value::Null),
            "expected a value that is not null, found null"
        );
        assert_eq!(fails(&null(), &s), r#"expected null, found "web-1""#);
    }

    #[test]
    fn collections_name_the_path_of_the_first_mismatch() {
        let rules = value(
            serde_json::json!([{"name": "a", "priority": 1}, {"name": "b", "priority": null}]),
            r#"["list",["object",{"name":"string","priority":"number"}]]"#,
        );
        let rule = |name: &str, p: Known| object([("name", string(name)), ("priority", p)]);
        assert!(list([rule("a", number(1u64)), rule("b", null())])
            .check(&rules)
            .is_ok());
        assert_eq!(
            fails(
                &list([rule("a", number(1u64)), rule("b", number(2u64))]),
                &rules
            ),
            "at [1].priority: expected 2, found null"
        );
        assert_eq!(
            fails(
                &list_partial([(0, object_partial([("name", string("z"))]))]),
                &rules
            ),
            r#"at [0].name: expected "z", found "a""#
        );
        assert!(size(2).check(&rules).is_ok());
        let short = fails(&list([rule("a", number(1u64))]), &rules);
        assert!(
            short.starts_with(r#"expected 1 elements [an object {"name": "a", "#),
            "{short}"
        );
        let tags = value(
            serde_json::json!({"env": "prod", "team": "db"}),
            r#"["map","string"]"#,
        );
        assert_eq!(
            fails(&map([("env", string("prod"))]), &tags),
            r#"at ["team"]: expected no such key, found "db""#
        );
        assert_eq!(
            fails(&map_partial([("owner", string("x"))]), &tags),
            r#"at ["owner"]: expected "x", found nothing (no such key)"#
        );
        assert_eq!(
            fails(&size(3), &tags),
            r#"expected 3 elements, found {"env": "prod", "team": "db"}"#
        );
    }

    #[test]
    fn sets_match_in_any_order_each_element_once() {
        let acl = value(
            serde_json::json!(["read", "write", "admin"]),
            r#"["set","string"]"#,
        );
        assert!(set([string("admin"), string("read"), string("write")])
            .check(&acl)
            .is_ok());
        assert!(set_partial([string_matching("^w"), string("read")])
            .check(&acl)
            .is_ok());
        // Two matchers cannot take the same element.
        assert!(set_partial([string("read"), string("read")])
            .check(&acl)
            .is_err());
        // The first matcher would take "read"; matching must move it to find room.
        let loose = set_partial([string_matching("r"), string("read")]);
        assert!(loose.check(&acl).is_ok());
        assert_eq!(
            fails(&set([string("read")]), &acl),
            r#"expected a set of {"read"}, found ["admin", "read", "write"]"#
        );
    }
}
