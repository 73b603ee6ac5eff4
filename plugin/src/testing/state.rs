use super::*;

/// The state a step left (Terraform's state file), for checks.
///
/// Resources are found by address: `type.name`, `type.name[0]`, `type.name["key"]`,
/// `data.type.name`, with a `module.<name>.` prefix inside modules.
pub struct State<'a> {
    pub(super) json: Parsed,
    pub(super) schemas: &'a dyn Fn() -> Result<ProviderSchemas, Error>,
}

/// A JSON document Terraform wrote, parsed, with its text: values are read from the
/// text, so that numbers stay exact.
pub(super) struct Parsed {
    pub(super) json: serde_json::Value,
    pub(super) text: String,
}

impl From<(serde_json::Value, String)> for Parsed {
    fn from((json, text): (serde_json::Value, String)) -> Self {
        Parsed { json, text }
    }
}

impl From<serde_json::Value> for Parsed {
    fn from(json: serde_json::Value) -> Self {
        let text = json.to_string();
        Parsed { json, text }
    }
}

impl std::ops::Deref for Parsed {
    type Target = serde_json::Value;
    fn deref(&self) -> &serde_json::Value {
        &self.json
    }
}

/// One step into a JSON document.
pub(super) enum Seg<'s> {
    Key(&'s str),
    Index(usize),
}

/// The JSON text at `path` inside `text`, as written (numbers exact).
pub(super) fn raw_at<'t>(text: &'t str, path: &[Seg<'_>]) -> Option<&'t str> {
    use serde_json::value::RawValue;
    let mut here: &'t RawValue = serde_json::from_str(text).ok()?;
    for seg in path {
        here = match seg {
            Seg::Key(k) => {
                let m: BTreeMap<String, &'t RawValue> = serde_json::from_str(here.get()).ok()?;
                *m.get(*k)?
            }
            Seg::Index(i) => {
                let v: Vec<&'t RawValue> = serde_json::from_str(here.get()).ok()?;
                *v.get(*i)?
            }
        };
    }
    Some(here.get())
}

/// A mismatch inside the value at `path`, its own path joined to it.
pub(super) fn inside(path: &str, m: &known::Mismatch) -> String {
    let inner = m.path.to_string();
    let sep = if path.is_empty() || inner.is_empty() || inner.starts_with('[') {
        ""
    } else {
        "."
    };
    let full = format!("{path}{sep}{inner}");
    if full.is_empty() {
        format!(": expected {}, found {}", m.expected, m.found)
    } else {
        format!(" at {full}: expected {}, found {}", m.expected, m.found)
    }
}

pub(super) fn parse_path(path: &str) -> Result<tfvalue::AttributePath, Error> {
    path.parse()
        .map_err(|e| Error::new(format!("the path `{path}`: {e}")))
}

/// The type at `path` inside `ty`.
pub(super) fn type_at(ty: &tfvalue::Type, path: &tfvalue::AttributePath) -> Option<tfvalue::Type> {
    use tfvalue::{PathStep, Type};
    let mut t = ty.clone();
    for step in path.steps() {
        t = match (step, &t) {
            (PathStep::Attr(n) | PathStep::Key(n), Type::Object(o)) => o.get(n)?.clone(),
            (PathStep::Key(_), Type::Map(e)) => (**e).clone(),
            (PathStep::Index(_), Type::List(e) | Type::Set(e)) => (**e).clone(),
            (PathStep::Index(i), Type::Tuple(ts)) => ts.get(usize::try_from(*i).ok()?)?.clone(),
            _ => return None,
        };
    }
    Some(t)
}

/// Whether the marks of Terraform's plan JSON (`after_unknown`, `after_sensitive`: a
/// mirror of the value holding `true` where the mark is) say `path` is marked: at it or
/// at a value holding it.
pub(super) fn marked(marks: &serde_json::Value, path: &tfvalue::AttributePath) -> bool {
    use tfvalue::PathStep;
    let mut m = marks;
    for step in path.steps() {
        if m == &serde_json::Value::Bool(true) {
            return true;
        }
        m = match step {
            PathStep::Attr(n) | PathStep::Key(n) => &m[n.as_str()],
            PathStep::Index(i) => &m[usize::try_from(*i).unwrap_or(usize::MAX)],
            _ => return false,
        };
    }
    m == &serde_json::Value::Bool(true)
}

pub(super) fn segs(path: &tfvalue::AttributePath) -> Vec<Seg<'_>> {
    use tfvalue::PathStep;
    path.steps()
        .iter()
        .map(|s| match s {
            PathStep::Attr(n) | PathStep::Key(n) => Seg::Key(n.as_str()),
            PathStep::Index(i) => Seg::Index(usize::try_from(*i).unwrap_or(usize::MAX)),
            // A step this version does not know leads nowhere.
            _ => Seg::Index(usize::MAX),
        })
        .collect()
}

/// The value at `path` inside `v`, or a message saying where the path leaves it.
pub(super) fn value_at<'v>(v: &'v Value, path: &str) -> Result<&'v Value, Error> {
    let p = parse_path(path)?;
    v.get_path(&p)
        .ok_or_else(|| Error::new(format!("there is nothing at `{path}`")))
}

impl fmt::Debug for State<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("addresses", &self.addresses())
            .finish()
    }
}

/// One resource instance in the state file.
pub(super) struct Instance<'j> {
    pub(super) address: String,
    /// Where it is in the file: `resources[resource].instances[index]`.
    pub(super) resource: usize,
    pub(super) index: usize,
    pub(super) mode: &'j str,
    pub(super) type_name: &'j str,
    pub(super) attributes: &'j serde_json::Value,
    /// The identity Terraform 1.12+ keeps beside the attributes (null before).
    pub(super) identity: &'j serde_json::Value,
}

impl<'a> State<'a> {
    pub(super) fn instances(&self) -> Vec<Instance<'_>> {
        let mut out = Vec::new();
        let Some(resources) = self.json["resources"].as_array() else {
            return out;
        };
        for (ri, r) in resources.iter().enumerate() {
            let mode = r["mode"].as_str().unwrap_or("managed");
            let type_name = r["type"].as_str().unwrap_or("");
            let mut base = String::new();
            if let Some(m) = r["module"].as_str() {
                base.push_str(m);
                base.push('.');
            }
            if mode == "data" {
                base.push_str("data.");
            }
            base.push_str(type_name);
            base.push('.');
            base.push_str(r["name"].as_str().unwrap_or(""));
            for (ii, i) in r["instances"].as_array().into_iter().flatten().enumerate() {
                let address = match &i["index_key"] {
                    serde_json::Value::Null => base.clone(),
                    serde_json::Value::String(s) => {
                        format!("{base}[{}]", serde_json::Value::from(s.as_str()))
                    }
                    other => format!("{base}[{other}]"),
                };
                out.push(Instance {
                    address,
                    resource: ri,
                    index: ii,
                    mode,
                    type_name,
                    attributes: &i["attributes"],
                    identity: &i["identity"],
                });
            }
        }
        out
    }

    pub(super) fn instance(&self, address: &str) -> Result<Instance<'_>, Error> {
        let all = self.instances();
        let names: Vec<String> = all.iter().map(|i| i.address.clone()).collect();
        all.into_iter()
            .find(|i| i.address == address)
            .ok_or_else(|| {
                Error::new(format!(
                    "`{address}` is not in the state (it holds {})",
                    if names.is_empty() {
                        "nothing".to_owned()
                    } else {
                        names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ))
            })
    }

    /// The address of every resource instance in the state, managed and data.
    pub fn addresses(&self) -> Vec<String> {
        self.instances().into_iter().map(|i| i.address).collect()
    }

    /// Whether the state holds no managed resource instance.
    pub fn is_empty(&self) -> bool {
        self.instances().iter().all(|i| i.mode != "managed")
    }

    /// Whether the state holds a resource instance at `address`.
    pub fn contains(&self, address: &str) -> bool {
        self.instances().iter().any(|i| i.address == address)
    }

    /// The resource at `address`, decoded into a model (a `#[derive(TfValue)]` struct,
    /// or anything else that reads tfvalue's JSON).
    ///
    /// # Errors
    ///
    /// No resource at `address`, or one whose attributes do not decode as `M` (the
    /// message names the attribute).
    pub fn resource<M: DeserializeOwned>(&self, address: &str) -> Result<M, Error> {
        let i = self.instance(address)?;
        let bytes = serde_json::to_vec(i.attributes).map_err(|e| Error::new(e.to_string()))?;
        tfvalue::json::from_slice(&bytes)
            .map_err(|e| Error::new(format!("`{address}` does not decode: {e}")))
    }

    /// The resource at `address` as a [`Value`] of its schema's type (the provider's
    /// schema is read with `terraform providers schema -json` the first time it is
    /// needed).
    ///
    /// # Errors
    ///
    /// No resource at `address`, no schema for its type, or attributes that do not fit
    /// it.
    pub fn value(&self, address: &str) -> Result<Value, Error> {
        let i = self.instance(address)?;
        let schemas = (self.schemas)()?;
        let schema = schemas
            .provider_schemas
            .values()
            .find_map(|p| {
                if i.mode == "data" {
                    p.data_source(i.type_name)
                } else {
                    p.resource(i.type_name)
                }
            })
            .ok_or_else(|| Error::new(format!("no schema for `{}`", i.type_name)))?;
        let path = [
            Seg::Key("resources"),
            Seg::Index(i.resource),
            Seg::Key("instances"),
            Seg::Index(i.index),
            Seg::Key("attributes"),
        ];
        let text = raw_at(&self.json.text, &path).unwrap_or("null");
        Value::from_json(text, &schema.implied_type())
            .map_err(|e| Error::new(format!("`{address}` does not decode: {e}")))
    }

    /// Checks the value at `path` (`tags["env"]`, `rule[0].priority`; empty: the whole
    /// resource) of the resource at `address` (terraform-plugin-testing's
    /// `statecheck.ExpectKnownValue`). Numbers are compared exactly.
    ///
    /// # Errors
    ///
    /// No such resource or path, or a value that does not match: the message names the
    /// address, the path, what was expected and what was found.
    pub fn expect(&self, address: &str, path: &str, known: &known::Known) -> Result<(), Error> {
        let v = self.value(address)?;
        let at = value_at(&v, path).map_err(|e| Error::new(format!("`{address}`: {e}")))?;
        known
            .check(at)
            .map_err(|m| Error::new(format!("`{address}`{}", inside(path, &m))))
    }

    /// Checks the root module's output `name` (`statecheck.ExpectKnownOutputValue`).
    ///
    /// # Errors
    ///
    /// No such output, or a value that does not match.
    pub fn expect_output(&self, name: &str, known: &known::Known) -> Result<(), Error> {
        let v = self.output(name)?;
        known
            .check(&v)
            .map_err(|m| Error::new(format!("output `{name}`: {m}")))
    }

    /// The root module's output `name` as a [`Value`] of its type.
    ///
    /// # Errors
    ///
    /// No such output, or one that does not decode.
    pub fn output(&self, name: &str) -> Result<Value, Error> {
        let o = &self.json["outputs"][name];
        if o.is_null() {
            return Err(Error::new(format!("no output `{name}` in the state")));
        }
        let ty: tfvalue::Type = serde_json::from_value(o["type"].clone())
            .map_err(|e| Error::new(format!("output `{name}`: {e}")))?;
        let path = [Seg::Key("outputs"), Seg::Key(name), Seg::Key("value")];
        let text = raw_at(&self.json.text, &path).unwrap_or("null");
        Value::from_json(text, &ty)
            .map_err(|e| Error::new(format!("output `{name}` does not decode: {e}")))
    }

    /// The state file as Terraform wrote it (format version 4).
    pub fn json(&self) -> &serde_json::Value {
        &self.json.json
    }
}
