//! `tfvalue docs`: a provider's documentation for the Terraform Registry, generated from
//! its schema, and the check of a docs folder against it.

mod pages;
mod schema_md;
mod template;
mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value as Json;
use tfvalue::schema::{Schema, StringKind};
use tfvalue::Type;

use crate::out::{self, Outcome};
use crate::schemas::SchemaFile;

/// The arguments of `tfvalue docs generate`.
#[derive(clap::Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The provider's folder: the other folders are inside it unless given as absolute
    /// paths, and `tffile` paths in templates are relative to it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub provider_dir: PathBuf,
    /// The examples folder (`provider/provider.tf`, `resources/<type>/resource.tf`, ...).
    #[arg(long, value_name = "DIR", default_value = "examples")]
    pub examples: PathBuf,
    /// The templates folder (`index.md.tmpl`, `resources/<name>.md.tmpl`, ...).
    #[arg(long, value_name = "DIR", default_value = "templates")]
    pub templates: PathBuf,
    /// Where to write the docs.
    #[arg(long, value_name = "DIR", default_value = "docs")]
    pub out: PathBuf,
    /// The provider's name in page titles (default: the provider name).
    #[arg(long, value_name = "NAME")]
    pub rendered_provider_name: Option<String>,
    /// Write nothing: fail (status 1) when the docs on disk differ from what would be
    /// generated, listing the files.
    #[arg(long)]
    pub check: bool,
}

/// The arguments of `tfvalue docs validate`.
#[derive(clap::Args)]
pub struct ValidateArgs {
    /// The docs folder.
    #[arg(value_name = "DIR", default_value = "docs")]
    pub dir: PathBuf,
    /// With the provider's binary or schema file, the pages are also checked against
    /// its schemas.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Where the schema comes from: the binary or the file (`docs generate` needs one).
#[derive(clap::Args)]
pub struct SourceArgs {
    /// The provider binary: started as Terraform starts it and asked for its schemas.
    #[arg(long, value_name = "PATH", conflicts_with = "providers_schema")]
    pub provider_binary: Option<PathBuf>,
    /// The JSON of `terraform providers schema -json` instead of a binary.
    #[arg(long, value_name = "FILE")]
    pub providers_schema: Option<String>,
    /// The provider's name (`kv` for `kv_entry`): by default taken from the binary's
    /// name (`terraform-provider-NAME`) or the schema file's only provider.
    #[arg(long, value_name = "NAME")]
    pub provider_name: Option<String>,
}

/// The things a page can document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Resource,
    DataSource,
    EphemeralResource,
    ListResource,
    Function,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Resource,
        Kind::DataSource,
        Kind::EphemeralResource,
        Kind::ListResource,
        Kind::Function,
    ];

    /// The folder of its pages (and of its examples).
    pub fn dir(self) -> &'static str {
        match self {
            Kind::Resource => "resources",
            Kind::DataSource => "data-sources",
            Kind::EphemeralResource => "ephemeral-resources",
            Kind::ListResource => "list-resources",
            Kind::Function => "functions",
        }
    }

    /// The name in page titles and headings.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Resource => "Resource",
            Kind::DataSource => "Data Source",
            Kind::EphemeralResource => "Ephemeral Resource",
            Kind::ListResource => "List Resource",
            Kind::Function => "function",
        }
    }

    /// What its example files are called: `resource.tf`, `resource2.tf`, ...
    pub fn example(self) -> (&'static str, &'static str) {
        match self {
            Kind::Resource => ("resource", ".tf"),
            Kind::DataSource => ("data-source", ".tf"),
            Kind::EphemeralResource => ("ephemeral-resource", ".tf"),
            Kind::ListResource => ("list-resource", ".tfquery.hcl"),
            Kind::Function => ("function", ".tf"),
        }
    }

    /// "resource", "data source", ... for messages.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Resource => "resource",
            Kind::DataSource => "data source",
            Kind::EphemeralResource => "ephemeral resource",
            Kind::ListResource => "list resource",
            Kind::Function => "function",
        }
    }
}

/// A function's signature, for its page.
#[derive(Clone, Debug, Default)]
pub struct FunctionDoc {
    pub summary: String,
    pub description: String,
    pub description_kind: StringKind,
    pub deprecation_message: String,
    pub parameters: Vec<ParameterDoc>,
    pub variadic: Option<ParameterDoc>,
    pub return_type: Option<Type>,
}

/// A function's parameter.
#[derive(Clone, Debug)]
pub struct ParameterDoc {
    pub name: String,
    pub ty: Type,
    pub nullable: bool,
    pub description: String,
    pub description_kind: StringKind,
}

/// An identity attribute: name, type, required for import, description.
#[derive(Clone, Debug)]
pub struct IdentityDoc {
    pub name: String,
    pub ty: Type,
    pub required: bool,
    pub description: String,
}

/// Everything the docs are made of.
#[derive(Clone, Debug, Default)]
pub struct Described {
    /// The provider's name (`kv`).
    pub name: String,
    pub provider: Option<Schema>,
    pub blocks: BTreeMap<Kind, BTreeMap<String, Schema>>,
    pub functions: BTreeMap<String, FunctionDoc>,
    pub identities: BTreeMap<String, Vec<IdentityDoc>>,
}

impl Described {
    /// The names of everything of a kind.
    pub fn names(&self, kind: Kind) -> Vec<String> {
        match kind {
            Kind::Function => self.functions.keys().cloned().collect(),
            k => self
                .blocks
                .get(&k)
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default(),
        }
    }

    /// The file name (without `.md`) of a page: the type name without the provider's
    /// prefix (`kv_entry` -> `entry`); a function's name as it is.
    pub fn short_name<'a>(&self, kind: Kind, name: &'a str) -> &'a str {
        if kind == Kind::Function {
            return name;
        }
        name.strip_prefix(&self.name)
            .and_then(|r| r.strip_prefix('_'))
            .filter(|r| !r.is_empty())
            .unwrap_or(name)
    }
}

/// The provider's name from its binary's file name: `terraform-provider-NAME`, with
/// an optional `_vVERSION` and `.exe`.
fn name_from_binary(path: &Path) -> Option<String> {
    let file = path.file_name()?.to_str()?;
    let file = file.strip_suffix(".exe").unwrap_or(file);
    let rest = file.strip_prefix("terraform-provider-")?;
    let name = rest.split_once("_v").map_or(rest, |(n, _)| n);
    (!name.is_empty()).then(|| name.to_owned())
}

/// Reads the schema from the binary or the file.
pub fn load(
    binary: Option<&Path>,
    schema_file: Option<&str>,
    name: Option<&str>,
) -> Result<Described, String> {
    if let Some(bin) = binary {
        let name = match name {
            Some(n) => n.to_owned(),
            None => name_from_binary(bin).ok_or_else(|| {
                format!(
                    "cannot tell the provider's name from {} (not `terraform-provider-NAME`): \
                     give --provider-name",
                    bin.display()
                )
            })?,
        };
        let d = tfvalue_plugin::client::describe(bin).map_err(|e| e.to_string())?;
        for w in &d.warnings {
            out::warn(&format!("the provider warns: {}", w.summary));
        }
        return Ok(from_description(name, d));
    }
    let Some(path) = schema_file else {
        return Err("give --provider-binary PATH or --providers-schema FILE".into());
    };
    let file = SchemaFile::load(path)?;
    let address = match name {
        Some(n) => Some(
            file.all
                .provider_schemas
                .keys()
                .find(|k| k.rsplit('/').next() == Some(n))
                .cloned()
                .ok_or_else(|| {
                    let known: Vec<&str> = file
                        .all
                        .provider_schemas
                        .keys()
                        .map(String::as_str)
                        .collect();
                    format!(
                        "{path} has no provider named {n} (it has {})",
                        if known.is_empty() {
                            "none".into()
                        } else {
                            known.join(", ")
                        }
                    )
                })?,
        ),
        None => None,
    };
    let (addr, provider) = file.provider(address.as_deref())?;
    let name = match name {
        Some(n) => n.to_owned(),
        None => addr.rsplit('/').next().unwrap_or(addr).to_owned(),
    };
    let mut out = Described {
        name,
        provider: provider.provider.clone(),
        ..Described::default()
    };
    out.blocks
        .insert(Kind::Resource, provider.resource_schemas.clone());
    out.blocks
        .insert(Kind::DataSource, provider.data_source_schemas.clone());
    out.blocks.insert(
        Kind::EphemeralResource,
        provider.ephemeral_resource_schemas.clone(),
    );
    out.blocks
        .insert(Kind::ListResource, provider.list_resource_schemas.clone());
    // Functions and identities: read from the same file (the library's model of the
    // file leaves them out).
    let bytes = crate::input::read_file(path)?;
    let text = crate::input::utf8_json(path, &bytes)?;
    let json: Json =
        serde_json::from_slice(text).map_err(|e| format!("{path}: invalid JSON: {e}"))?;
    let p = &json["provider_schemas"][addr];
    if let Some(fs) = p["functions"].as_object() {
        for (fname, f) in fs {
            out.functions.insert(
                fname.clone(),
                function_from_json(f).map_err(|e| format!("{path}: function {fname}: {e}"))?,
            );
        }
    }
    if let Some(ids) = p["resource_identity_schemas"].as_object() {
        for (rname, s) in ids {
            let mut attrs = Vec::new();
            for (aname, a) in s["attributes"].as_object().into_iter().flatten() {
                attrs.push(IdentityDoc {
                    name: aname.clone(),
                    ty: type_from_json(&a["type"])
                        .map_err(|e| format!("{path}: identity attribute {rname}.{aname}: {e}"))?,
                    required: a["required_for_import"].as_bool().unwrap_or(false),
                    description: a["description"].as_str().unwrap_or("").to_owned(),
                });
            }
            out.identities.insert(rname.clone(), attrs);
        }
    }
    Ok(out)
}

fn type_from_json(j: &Json) -> Result<Type, String> {
    serde_json::from_value(j.clone()).map_err(|e| format!("invalid type: {e}"))
}

fn function_from_json(f: &Json) -> Result<FunctionDoc, String> {
    let param = |p: &Json| -> Result<ParameterDoc, String> {
        Ok(ParameterDoc {
            name: p["name"].as_str().unwrap_or("").to_owned(),
            ty: type_from_json(&p["type"])?,
            nullable: p["is_nullable"].as_bool().unwrap_or(false),
            description: p["description"].as_str().unwrap_or("").to_owned(),
            // The file does not say how descriptions are written: Markdown, as
            // Terraform's own docs read them.
            description_kind: StringKind::Markdown,
        })
    };
    Ok(FunctionDoc {
        summary: f["summary"].as_str().unwrap_or("").to_owned(),
        description: f["description"].as_str().unwrap_or("").to_owned(),
        description_kind: StringKind::Markdown,
        deprecation_message: f["deprecation_message"].as_str().unwrap_or("").to_owned(),
        parameters: f["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .map(param)
            .collect::<Result<_, _>>()?,
        variadic: match &f["variadic_parameter"] {
            Json::Null => None,
            v => Some(param(v)?),
        },
        return_type: Some(type_from_json(&f["return_type"])?),
    })
}

fn from_description(name: String, d: tfvalue_plugin::client::ProviderDescription) -> Described {
    let mut out = Described {
        name,
        provider: d.schema.provider,
        ..Described::default()
    };
    out.blocks.insert(Kind::Resource, d.schema.resource_schemas);
    out.blocks
        .insert(Kind::DataSource, d.schema.data_source_schemas);
    out.blocks
        .insert(Kind::EphemeralResource, d.schema.ephemeral_resource_schemas);
    out.blocks
        .insert(Kind::ListResource, d.schema.list_resource_schemas);
    let param = |p: tfvalue_plugin::Parameter| ParameterDoc {
        name: p.name,
        ty: p.ty,
        nullable: p.allow_null_value,
        description: p.description,
        description_kind: p.description_kind,
    };
    for (fname, f) in d.functions {
        out.functions.insert(
            fname,
            FunctionDoc {
                summary: f.summary,
                description: f.description,
                description_kind: f.description_kind,
                deprecation_message: f.deprecation_message,
                parameters: f.parameters.into_iter().map(param).collect(),
                variadic: f.variadic_parameter.map(param),
                return_type: Some(f.return_type),
            },
        );
    }
    for (rname, s) in d.identities {
        out.identities.insert(
            rname,
            s.attributes
                .into_values()
                .map(|a| IdentityDoc {
                    name: a.name,
                    ty: a.ty,
                    required: a.required_for_import,
                    description: a.description,
                })
                .collect(),
        );
    }
    out
}

/// `tfvalue docs generate`.
pub fn generate(args: &GenerateArgs) -> Outcome<ExitCode> {
    let described = load(
        args.source.provider_binary.as_deref(),
        args.source.providers_schema.as_deref(),
        args.source.provider_name.as_deref(),
    )?;
    let base = &args.provider_dir;
    let within = |p: &Path| {
        if p.is_absolute() || base == Path::new(".") {
            p.to_path_buf()
        } else {
            base.join(p)
        }
    };
    if let Some(n) = &args.rendered_provider_name {
        // It goes into the front matter's double-quoted `page_title`.
        if n.trim().is_empty() || n.contains(['"', '\\']) || n.chars().any(char::is_control) {
            return Err(format!(
                "--rendered-provider-name {n:?}: a name for page titles cannot be empty \
                 or hold `\"`, `\\` or control characters"
            )
            .into());
        }
    }
    let layout = pages::Layout {
        provider_dir: base.clone(),
        examples: within(&args.examples),
        templates: within(&args.templates),
        rendered_name: args
            .rendered_provider_name
            .clone()
            .unwrap_or_else(|| described.name.clone()),
    };
    let docs = pages::render_all(&described, &layout)?;
    let out_dir = within(&args.out);
    if args.check {
        let problems = pages::compare(&out_dir, &docs)?;
        if problems.is_empty() {
            out::println(&format!(
                "{}: {} files, as generated",
                out_dir.display(),
                docs.len()
            ))?;
            return Ok(ExitCode::SUCCESS);
        }
        for p in &problems {
            out::warn_plain(p);
        }
        return Err(format!(
            "{} of the docs in {} differ from what `tfvalue docs generate` writes: \
             regenerate them",
            problems.len(),
            out_dir.display()
        )
        .into());
    }
    let (written, removed) = pages::write_all(&out_dir, &docs)?;
    out::println(&format!(
        "{}: {} files written{}",
        out_dir.display(),
        written,
        if removed > 0 {
            format!(", {removed} stale removed")
        } else {
            String::new()
        }
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// `tfvalue docs validate`.
pub fn validate(args: &ValidateArgs) -> Outcome<ExitCode> {
    let described = match (&args.source.provider_binary, &args.source.providers_schema) {
        (None, None) => None,
        (bin, file) => Some(load(
            bin.as_deref(),
            file.as_deref(),
            args.source.provider_name.as_deref(),
        )?),
    };
    let problems = validate::validate(&args.dir, described.as_ref())?;
    if problems.is_empty() {
        out::println(&format!("{}: valid", args.dir.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    for p in &problems {
        out::warn_plain(p);
    }
    Err(format!(
        "{} problem{} in {}",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        args.dir.display()
    )
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_comes_from_the_binary() {
        let n = |s: &str| name_from_binary(Path::new(s));
        assert_eq!(n("target/terraform-provider-kv").as_deref(), Some("kv"));
        assert_eq!(
            n("terraform-provider-null_v2.1.2_x4").as_deref(),
            Some("null")
        );
        assert_eq!(n("terraform-provider-aws.exe").as_deref(), Some("aws"));
        assert_eq!(n("kv"), None);
    }

    #[test]
    fn pages_are_named_without_the_prefix() {
        let d = Described {
            name: "kv".into(),
            ..Described::default()
        };
        assert_eq!(d.short_name(Kind::Resource, "kv_entry"), "entry");
        assert_eq!(d.short_name(Kind::Resource, "kv"), "kv");
        assert_eq!(d.short_name(Kind::Resource, "kvx_entry"), "kvx_entry");
        assert_eq!(d.short_name(Kind::Function, "kv_len"), "kv_len");
    }
}
