//! The files users have: `.tfstate` (format 3 and 4) and the plan JSON of
//! `terraform show -json` (format 0.1 of Terraform 0.12 to 1.x of today).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value as Json;

use crate::input::{read_file, utf8_json};

/// A resource's mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Managed,
    Data,
}

impl Mode {
    fn parse(s: &str) -> Mode {
        if s == "data" {
            Mode::Data
        } else {
            Mode::Managed
        }
    }
}

/// The attributes of a state instance.
pub enum Attrs {
    Json(Box<RawValue>),
    Flat(BTreeMap<String, String>),
}

/// One resource instance of a state.
pub struct Instance {
    /// `module.net.aws_subnet.a[0]`
    pub address: String,
    /// `module.net.aws_subnet.a`
    pub resource: String,
    pub mode: Mode,
    pub type_name: String,
    pub name: String,
    /// The provider as the state names it: a full address, or a bare name (`aws`) in
    /// states of Terraform 0.12 and format 3.
    pub provider: String,
    pub schema_version: Option<i64>,
    pub attrs: Attrs,
    /// `true` where sensitive, as in a plan's `before_sensitive`.
    pub sensitive: Json,
    pub deposed: Option<String>,
    /// The values are written as `terraform show -json` writes them: `dynamic` values
    /// plainly, not in a `{"value", "type"}` wrapper.
    pub plain: bool,
}

impl Instance {
    /// The address with the deposed key, when there is one.
    pub fn label(&self) -> String {
        match &self.deposed {
            Some(d) => format!("{} (deposed object {d})", self.address),
            None => self.address.clone(),
        }
    }
}

/// A state file.
pub struct State {
    /// "state format 4", or "`terraform show -json` state format 1.0".
    pub format: String,
    pub terraform_version: Option<String>,
    pub instances: Vec<Instance>,
}

#[derive(Deserialize)]
struct Head {
    version: Option<Json>,
    format_version: Option<Json>,
    resource_changes: Option<serde::de::IgnoredAny>,
    values: Option<serde::de::IgnoredAny>,
    provider_schemas: Option<serde::de::IgnoredAny>,
}

fn head(path: &str, text: &[u8]) -> Result<Head, String> {
    serde_json::from_slice(text).map_err(|e| format!("{path}: not JSON: {e}"))
}

/// The provider address inside `provider["registry.terraform.io/hashicorp/aws"].alias`,
/// or the bare name of `provider.aws.alias` (Terraform 0.12) and `module.x.provider.aws`.
pub fn provider_of(config_addr: &str, type_name: &str) -> String {
    if let Some(start) = config_addr.find("provider[\"") {
        let rest = &config_addr[start + 10..];
        if let Some(end) = rest.find("\"]") {
            return rest[..end].to_owned();
        }
    }
    if let Some(start) = config_addr.find("provider.") {
        let rest = &config_addr[start + 9..];
        return rest.split('.').next().unwrap_or(rest).to_owned();
    }
    if !config_addr.is_empty() {
        return config_addr.to_owned();
    }
    // Format 3 may leave it empty: the provider is the type's prefix.
    type_name.split('_').next().unwrap_or(type_name).to_owned()
}

fn index_suffix(key: &Json) -> String {
    match key {
        Json::Null => String::new(),
        Json::String(s) => format!("[{}]", Json::from(s.as_str())),
        other => format!("[{other}]"),
    }
}

/// Reads a state file, format 3 or 4.
pub fn read_state(path: &str) -> Result<State, String> {
    let bytes = read_file(path)?;
    let text = utf8_json(path, &bytes)?;
    let h = head(path, text)?;
    if h.provider_schemas.is_some() {
        return Err(format!(
            "{path} is a provider schema file, not a state: give it with --schema"
        ));
    }
    if h.resource_changes.is_some() || (h.format_version.is_some() && h.values.is_none()) {
        return Err(format!(
            "{path} is a plan (`terraform show -json` output), not a state: use --plan"
        ));
    }
    if h.values.is_some() {
        return read_shown(path, text);
    }
    let version = match &h.version {
        Some(Json::Number(n)) => n.as_u64(),
        _ => None,
    };
    match version {
        Some(4) => read_v4(path, text),
        Some(3) => read_v3(path, text),
        Some(v @ (1 | 2)) => Err(format!(
            "{path}: state format version {v} is from Terraform before 0.7; \
             tfvalue reads formats 3 and 4 (upgrade it with Terraform 0.11, then 0.12)"
        )),
        Some(v) => Err(format!(
            "{path}: state format version {v} is newer than tfvalue reads (3 and 4)"
        )),
        None => Err(format!(
            "{path}: no state format `version` (expected 3 or 4): is it a .tfstate file?"
        )),
    }
}

#[derive(Deserialize)]
struct StateV4 {
    terraform_version: Option<String>,
    #[serde(default)]
    resources: Vec<ResourceV4>,
}

#[derive(Deserialize)]
struct ResourceV4 {
    #[serde(default)]
    module: Option<String>,
    #[serde(default)]
    mode: Option<String>,
    #[serde(rename = "type")]
    ty: String,
    name: String,
    #[serde(default)]
    provider: String,
    #[serde(default)]
    instances: Vec<InstanceV4>,
}

#[derive(Deserialize)]
struct InstanceV4 {
    #[serde(default)]
    index_key: Json,
    #[serde(default)]
    deposed: Option<String>,
    #[serde(default)]
    schema_version: Option<i64>,
    #[serde(default)]
    attributes: Option<Box<RawValue>>,
    #[serde(default)]
    attributes_flat: Option<BTreeMap<String, String>>,
    #[serde(default)]
    sensitive_attributes: Json,
}

fn read_v4(path: &str, text: &[u8]) -> Result<State, String> {
    let s: StateV4 =
        serde_json::from_slice(text).map_err(|e| format!("{path}: not a format 4 state: {e}"))?;
    let mut instances = Vec::new();
    for r in s.resources {
        let mode = Mode::parse(r.mode.as_deref().unwrap_or("managed"));
        let mut resource = String::new();
        if let Some(m) = r.module.as_deref().filter(|m| !m.is_empty()) {
            resource.push_str(m);
            resource.push('.');
        }
        if mode == Mode::Data {
            resource.push_str("data.");
        }
        resource.push_str(&format!("{}.{}", r.ty, r.name));
        let provider = provider_of(&r.provider, &r.ty);
        for i in r.instances {
            let attrs = match (i.attributes, i.attributes_flat) {
                (Some(a), _) => Attrs::Json(a),
                (None, Some(f)) => Attrs::Flat(f),
                (None, None) => {
                    return Err(format!(
                        "{path}: {resource}{} has neither `attributes` nor `attributes_flat`",
                        index_suffix(&i.index_key)
                    ))
                }
            };
            instances.push(Instance {
                address: format!("{resource}{}", index_suffix(&i.index_key)),
                resource: resource.clone(),
                mode,
                type_name: r.ty.clone(),
                name: r.name.clone(),
                provider: provider.clone(),
                schema_version: i.schema_version,
                attrs,
                sensitive: crate::values::marks_from_paths(&i.sensitive_attributes),
                deposed: i.deposed,
                plain: false,
            });
        }
    }
    Ok(State {
        format: "state format 4".into(),
        terraform_version: s.terraform_version,
        instances,
    })
}

#[derive(Deserialize)]
struct StateV3 {
    terraform_version: Option<String>,
    #[serde(default)]
    modules: Vec<ModuleV3>,
}

#[derive(Deserialize)]
struct ModuleV3 {
    #[serde(default)]
    path: Vec<String>,
    #[serde(default)]
    resources: BTreeMap<String, ResourceV3>,
}

#[derive(Deserialize)]
struct ResourceV3 {
    #[serde(rename = "type", default)]
    ty: String,
    #[serde(default)]
    provider: String,
    #[serde(default)]
    primary: Option<InstanceV3>,
    #[serde(default)]
    deposed: Vec<InstanceV3>,
}

#[derive(Deserialize)]
struct InstanceV3 {
    #[serde(default)]
    attributes: BTreeMap<String, String>,
    #[serde(default)]
    meta: BTreeMap<String, Json>,
}

fn read_v3(path: &str, text: &[u8]) -> Result<State, String> {
    let s: StateV3 =
        serde_json::from_slice(text).map_err(|e| format!("{path}: not a format 3 state: {e}"))?;
    let mut instances = Vec::new();
    for m in s.modules {
        let module: String = m
            .path
            .iter()
            .skip(1)
            .map(|p| format!("module.{p}."))
            .collect();
        for (key, r) in m.resources {
            // "aws_instance.web", "aws_instance.web.1", "data.aws_ami.ubuntu"
            let mut parts: Vec<&str> = key.split('.').collect();
            let mode = if parts.first() == Some(&"data") {
                parts.remove(0);
                Mode::Data
            } else {
                Mode::Managed
            };
            let index = match parts.last() {
                Some(last) if parts.len() == 3 && last.parse::<u64>().is_ok() => {
                    let i = format!("[{last}]");
                    parts.pop();
                    i
                }
                _ => String::new(),
            };
            let (ty, name) = match parts.as_slice() {
                [t, n] => (t.to_string(), n.to_string()),
                _ => {
                    return Err(format!(
                        "{path}: resource key {key:?} is not TYPE.NAME[.INDEX]"
                    ))
                }
            };
            let ty = if r.ty.is_empty() { ty } else { r.ty.clone() };
            let prefix = if mode == Mode::Data { "data." } else { "" };
            let resource = format!("{module}{prefix}{ty}.{name}");
            let provider = provider_of(&r.provider, &ty);
            let objects = r.primary.into_iter().map(|i| (None, i)).chain(
                r.deposed
                    .into_iter()
                    .enumerate()
                    .map(|(n, i)| (Some(n.to_string()), i)),
            );
            for (deposed, i) in objects {
                let schema_version = i.meta.get("schema_version").and_then(|v| match v {
                    Json::String(s) => s.parse().ok(),
                    Json::Number(n) => n.as_i64(),
                    _ => None,
                });
                instances.push(Instance {
                    address: format!("{resource}{index}"),
                    resource: resource.clone(),
                    mode,
                    type_name: ty.clone(),
                    name: name.clone(),
                    provider: provider.clone(),
                    schema_version,
                    attrs: Attrs::Flat(i.attributes),
                    sensitive: Json::Bool(false),
                    deposed,
                    plain: false,
                });
            }
        }
    }
    Ok(State {
        format: "state format 3".into(),
        terraform_version: s.terraform_version,
        instances,
    })
}

#[derive(Deserialize)]
struct Shown {
    #[serde(default)]
    format_version: Option<String>,
    terraform_version: Option<String>,
    values: ShownValues,
}

#[derive(Deserialize)]
struct ShownValues {
    #[serde(default)]
    root_module: Option<ShownModule>,
}

#[derive(Deserialize)]
struct ShownModule {
    #[serde(default)]
    resources: Vec<ShownResource>,
    #[serde(default)]
    child_modules: Vec<ShownModule>,
}

#[derive(Deserialize)]
struct ShownResource {
    address: String,
    #[serde(default)]
    mode: Option<String>,
    #[serde(rename = "type")]
    ty: String,
    name: String,
    #[serde(default)]
    provider_name: String,
    #[serde(default)]
    schema_version: Option<i64>,
    #[serde(default)]
    values: Option<Box<RawValue>>,
    #[serde(default)]
    sensitive_values: Json,
    #[serde(default)]
    deposed_key: Option<String>,
}

/// Reads the state as `terraform show -json` prints it (`values.root_module`, with
/// `child_modules`), which is what many users keep.
fn read_shown(path: &str, text: &[u8]) -> Result<State, String> {
    let s: Shown = serde_json::from_slice(text)
        .map_err(|e| format!("{path}: not `terraform show -json` state output: {e}"))?;
    let mut instances = Vec::new();
    let mut stack: Vec<ShownModule> = s.values.root_module.into_iter().collect();
    // Modules in the order the file has them, depth first.
    let mut ordered = Vec::new();
    while let Some(mut m) = stack.pop() {
        let children = std::mem::take(&mut m.child_modules);
        ordered.push(m);
        stack.extend(children.into_iter().rev());
    }
    for m in ordered {
        for r in m.resources {
            let resource = match r.address.strip_suffix(']') {
                Some(a) => a
                    .rfind('[')
                    .map_or(r.address.clone(), |i| a[..i].to_owned()),
                None => r.address.clone(),
            };
            let attrs = Attrs::Json(
                r.values
                    .ok_or_else(|| format!("{path}: {} has no `values`", r.address))?,
            );
            instances.push(Instance {
                address: r.address,
                resource,
                mode: Mode::parse(r.mode.as_deref().unwrap_or("managed")),
                provider: provider_of(&r.provider_name, &r.ty),
                type_name: r.ty,
                name: r.name,
                schema_version: r.schema_version,
                attrs,
                sensitive: r.sensitive_values,
                deposed: r.deposed_key,
                plain: true,
            });
        }
    }
    Ok(State {
        format: format!(
            "`terraform show -json` state format {}",
            s.format_version.as_deref().unwrap_or("?")
        ),
        terraform_version: s.terraform_version,
        instances,
    })
}

/// One resource change of a plan.
pub struct Change {
    pub address: String,
    pub mode: Mode,
    pub type_name: String,
    pub name: String,
    /// `registry.terraform.io/hashicorp/aws`, or `aws` in plans of Terraform 0.12.
    pub provider: String,
    pub deposed: Option<String>,
    pub actions: Vec<String>,
    pub before: Option<Box<RawValue>>,
    pub after: Option<Box<RawValue>>,
    pub after_unknown: Json,
    pub before_sensitive: Json,
    pub after_sensitive: Json,
    pub replace_paths: Vec<Vec<Json>>,
    pub action_reason: Option<String>,
    /// The import ID when the change imports the object (Terraform 1.5 and later), or an
    /// empty string when the plan names no ID.
    pub importing: Option<String>,
}

impl Change {
    /// The address with the deposed key, when there is one.
    pub fn label(&self) -> String {
        match &self.deposed {
            Some(d) => format!("{} (deposed object {d})", self.address),
            None => self.address.clone(),
        }
    }

    /// The resource's address without its instance key.
    pub fn resource(&self) -> &str {
        match self.address.strip_suffix(']') {
            Some(s) => s.rfind('[').map_or(&self.address, |i| &self.address[..i]),
            None => &self.address,
        }
    }

    /// The action as one word: create, update, delete, replace, read, import, no-op.
    pub fn action(&self) -> &'static str {
        let a: Vec<&str> = self.actions.iter().map(String::as_str).collect();
        match a.as_slice() {
            ["create"] => "create",
            ["update"] => "update",
            ["delete"] => "delete",
            ["read"] => "read",
            ["delete", "create"] => "replace",
            ["create", "delete"] => "replace (create first)",
            ["forget"] => "forget",
            ["no-op"] | [] if self.importing.is_some() => "import",
            ["no-op"] | [] => "no-op",
            _ => "change",
        }
    }
}

/// A plan.
pub struct Plan {
    pub format_version: String,
    pub changes: Vec<Change>,
}

#[derive(Deserialize)]
struct PlanJson {
    #[serde(default)]
    format_version: Option<String>,
    #[serde(default)]
    resource_changes: Vec<ChangeJson>,
}

#[derive(Deserialize)]
struct ChangeJson {
    address: String,
    #[serde(default)]
    mode: Option<String>,
    #[serde(rename = "type")]
    ty: String,
    name: String,
    #[serde(default)]
    provider_name: String,
    #[serde(default)]
    deposed: Option<String>,
    change: ChangeBody,
    #[serde(default)]
    action_reason: Option<String>,
}

#[derive(Deserialize)]
struct ChangeBody {
    #[serde(default)]
    actions: Vec<String>,
    #[serde(default)]
    importing: Option<Json>,
    #[serde(default)]
    before: Option<Box<RawValue>>,
    #[serde(default)]
    after: Option<Box<RawValue>>,
    #[serde(default)]
    after_unknown: Json,
    #[serde(default)]
    before_sensitive: Json,
    #[serde(default)]
    after_sensitive: Json,
    #[serde(default)]
    replace_paths: Vec<Vec<Json>>,
}

/// Reads the JSON of `terraform show -json PLANFILE`.
pub fn read_plan(path: &str) -> Result<Plan, String> {
    let bytes = read_file(path)?;
    let text = utf8_json(path, &bytes)?;
    let h = head(path, text)?;
    if h.provider_schemas.is_some() {
        return Err(format!(
            "{path} is a provider schema file, not a plan: give it with --schema"
        ));
    }
    if h.version.is_some() && h.format_version.is_none() {
        return Err(format!("{path} is a state file, not a plan: use --state"));
    }
    if h.resource_changes.is_none() && h.values.is_some() {
        return Err(format!(
            "{path} is `terraform show -json` output of a state, not of a plan \
             (it has no `resource_changes`)"
        ));
    }
    let p: PlanJson =
        serde_json::from_slice(text).map_err(|e| format!("{path}: not a plan JSON: {e}"))?;
    let format_version = p.format_version.unwrap_or_default();
    let major = format_version.split('.').next().unwrap_or("");
    if !matches!(major, "0" | "1") {
        return Err(format!(
            "{path}: plan JSON format_version {format_version:?} is not one tfvalue reads \
             (0.x of Terraform 0.12 to 0.15, 1.x since)"
        ));
    }
    let changes = p
        .resource_changes
        .into_iter()
        .map(|c| Change {
            mode: Mode::parse(c.mode.as_deref().unwrap_or("managed")),
            provider: provider_of(&c.provider_name, &c.ty),
            address: c.address,
            type_name: c.ty,
            name: c.name,
            deposed: c.deposed,
            actions: c.change.actions,
            before: c.change.before,
            after: c.change.after,
            after_unknown: c.change.after_unknown,
            before_sensitive: c.change.before_sensitive,
            after_sensitive: c.change.after_sensitive,
            replace_paths: c.change.replace_paths,
            action_reason: c.action_reason,
            importing: c.change.importing.map(|i| {
                i.get("id")
                    .and_then(Json::as_str)
                    .unwrap_or_default()
                    .to_owned()
            }),
        })
        .collect();
    Ok(Plan {
        format_version,
        changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_addresses() {
        assert_eq!(
            provider_of(
                r#"provider["registry.terraform.io/hashicorp/aws"].west"#,
                "aws_vpc"
            ),
            "registry.terraform.io/hashicorp/aws"
        );
        assert_eq!(provider_of("provider.aws.west", "aws_vpc"), "aws");
        assert_eq!(provider_of("module.a.provider.google", "x"), "google");
        assert_eq!(provider_of("", "aws_vpc"), "aws");
        assert_eq!(
            provider_of("registry.terraform.io/acme/widget", "widget_server"),
            "registry.terraform.io/acme/widget"
        );
    }
}
