//! `tfvalue`: read, write and check the values Terraform exchanges with provider plugins,
//! and the state, plan and provider schema files users have.

mod diff;
mod docs;
mod documents;
mod input;
mod out;
mod render;
mod sample;
mod schemas;
mod show;
mod suggest;
mod values;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::Value as Json;
use tfvalue::conformance::{self, Kind};
use tfvalue::schema::Schema;
use tfvalue::{tagged, Type, Value};

use input::{decode_bytes_detected, read_input, utf8_json, InputFormat};
use out::{Fail, Outcome};
use render::{render, Mask, Style};
use schemas::{BlockKind, SchemaFile};

/// When to colour the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ColorChoice {
    /// When standard output is a terminal and NO_COLOR is not set.
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    fn on(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            // https://no-color.org: a non-empty NO_COLOR turns automatic colour off.
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// The encoding of a DynamicValue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Encoding {
    /// JSON when the input starts with `{`, `[` or `"` (or is `null`, `true`, `false`),
    /// else MessagePack.
    Auto,
    Msgpack,
    Json,
}

/// The encoding `encode` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum OutEncoding {
    Msgpack,
    Json,
}

/// How a value is written for people: the tagged notation, or plain JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Notation {
    /// `{"object":{"a":{"string":"x"}}}`: says every kind; carries unknowns.
    Tagged,
    /// A plain JSON DynamicValue `{"a":"x"}`, as Terraform writes state.
    Json,
}

/// How `encode` writes MessagePack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum OutFormat {
    Hex,
    Base64,
    Raw,
}

/// What `inspect` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Output {
    /// An indented tree (for --state and --plan, as Terraform prints them).
    Text,
    /// The tagged JSON notation.
    Json,
}

/// The kind of a conformance vector file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum VectorKind {
    MsgpackDecode,
    MsgpackEncode,
    JsonDecode,
    JsonEncode,
    MsgpackToJson,
}

impl VectorKind {
    const ALL: [(&'static str, VectorKind); 5] = [
        ("msgpack-decode", VectorKind::MsgpackDecode),
        ("msgpack-encode", VectorKind::MsgpackEncode),
        ("json-decode", VectorKind::JsonDecode),
        ("json-encode", VectorKind::JsonEncode),
        ("msgpack-to-json", VectorKind::MsgpackToJson),
    ];

    fn kind(self) -> Kind {
        match self {
            VectorKind::MsgpackDecode => Kind::MsgpackDecode,
            VectorKind::MsgpackEncode => Kind::MsgpackEncode,
            VectorKind::JsonDecode => Kind::JsonDecode,
            VectorKind::JsonEncode => Kind::JsonEncode,
            VectorKind::MsgpackToJson => Kind::MsgpackToJson,
        }
    }

    /// The kind named anywhere in a file's name (`go-cty-msgpack-decode.jsonl`,
    /// `extra.json-encode.jsonl`).
    fn from_name(path: &str) -> Result<VectorKind, String> {
        let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let found: Vec<(&str, VectorKind)> = Self::ALL
            .into_iter()
            .filter(|(n, _)| base.contains(n))
            .collect();
        match found.as_slice() {
            [(_, k)] => Ok(*k),
            [] => Err(format!(
                "{path}: cannot tell the kind of vectors: the file name has none of \
                 msgpack-decode, msgpack-encode, json-decode, json-encode, msgpack-to-json; \
                 give --kind"
            )),
            _ => Err(format!(
                "{path}: the file name names several kinds of vectors ({}); give --kind",
                found.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            )),
        }
    }
}

const TAGGED_HELP: &str = "\
The tagged notation says what every value is, so nothing is lost (unknowns included):
  {\"null\":true}  {\"bool\":true}  {\"number\":\"1.5\"} (decimal text, \"+Inf\", \"-Inf\")
  {\"string\":\"x\"}  {\"list\":[..]}  {\"set\":[..]}  {\"tuple\":[..]}
  {\"map\":{\"k\":V}}  {\"object\":{\"attr\":V}}
  {\"dynamic\":{\"type\":TYPE_JSON,\"value\":V}} (a value where the type says dynamic)
  {\"unknown\":{}} or with refinements
  {\"unknown\":{\"nullness\":false,\"prefix\":\"ab\",\"lower\":[\"1\",true],\"upper\":[\"9\",false],\"len_lower\":1,\"len_upper\":5}}
TYPE_JSON is Terraform's type JSON: \"string\", \"number\", \"bool\", \"dynamic\",
  [\"list\",T], [\"set\",T], [\"map\",T], [\"object\",{\"a\":T}], [\"tuple\",[T,..]].
--type takes it, or Terraform's type syntax: list(object({a=string,b=optional(number)})).";

/// Read, write and check Terraform's plugin wire values (tfplugin5/6 DynamicValue), and
/// show state files, plans and provider schemas.
#[derive(Parser)]
#[command(
    name = "tfvalue",
    version,
    about,
    long_about = None,
    after_help = "Examples:
  tfvalue inspect                                     # a built-in sample plan value
  tfvalue inspect --state terraform.tfstate           # list the resource instances
  tfvalue inspect --state terraform.tfstate --schema schema.json 'shelf_bucket.logs[0]'
  tfvalue inspect --plan plan.json 'shelf_bucket.logs[1]'
  tfvalue schema schema.json --resource shelf_bucket
  echo 81a16101 | tfvalue decode --type '[\"object\",{\"a\":\"number\"}]'
  echo '{\"a\":1}' | tfvalue encode --from json --type '[\"object\",{\"a\":\"number\"}]'
  tfvalue check vectors.msgpack-decode.jsonl

A closed output pipe (`tfvalue ... | head -1`) ends the command quietly with status 141."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show state instances, planned changes, or a DynamicValue, readably
    ///
    /// Shows a state file's resource instances as `terraform state show` does, a plan's
    /// changes as `terraform plan` does, or a DynamicValue (MessagePack as hex, base64 or
    /// raw bytes, or JSON) as a tree with unknowns and sensitive values marked.
    /// Without input, shows a built-in sample plan value.
    #[command(after_help = "Examples:
  tfvalue inspect                                       # the built-in sample
  tfvalue inspect --state terraform.tfstate             # list the instances
  tfvalue inspect --state terraform.tfstate --schema schema.json 'shelf_item.readme'
  tfvalue inspect --state old.tfstate --schema schema.json shelf_bucket.logs
  tfvalue inspect --state newer.tfstate --schema schema.json --ignore-undeclared shelf_bucket.logs
  tfvalue inspect --plan plan.json                      # every change, as `terraform show`
  tfvalue inspect --plan plan.json --list               # one line per change
  tfvalue inspect --plan plan.json --schema schema.json 'shelf_bucket.logs[0]'
  tfvalue inspect --type '[\"map\",\"string\"]' payload.hex
  tfvalue inspect --type 'map(string)' payload.hex
  tfvalue inspect --schema schema.json --ephemeral-resource shelf_token token.hex
  echo 81a161d40000 | tfvalue inspect --type '[\"object\",{\"a\":\"string\"}]' -

With --state or --plan the positional argument is a resource address (an instance,
`shelf_bucket.logs[0]`, or all instances of a resource, `shelf_bucket.logs`), and the
provider schema of --schema is found by the provider address the file records.
Without one, --state lists the instances and --plan shows every change (--list lists them).
In a tree, <object({..})> before a value is the type a value carries where the schema says
dynamic, and (known after apply, ...) an unknown with its refinements.")]
    Inspect(Box<InspectArgs>),
    /// Decode a DynamicValue to the tagged notation or plain JSON
    ///
    /// Decodes a DynamicValue (MessagePack as hex, base64 or raw bytes, or JSON) against a
    /// type and prints it in the tagged JSON notation, or as plain JSON with --to json.
    #[command(after_help = format!("Examples:
  echo 81a161a178 | tfvalue decode --type '[\"object\",{{\"a\":\"string\"}}]'
  echo 81a161a178 | tfvalue decode --type 'object({{a=string}})'
  tfvalue decode --type '[\"map\",\"string\"]' payload.hex
  echo '{{\"a\":\"x\"}}' | tfvalue decode --encoding json --type '[\"object\",{{\"a\":\"string\"}}]'
  tfvalue decode --schema schema.json --ephemeral-resource shelf_token token.hex
  tfvalue decode --to json --schema schema.json --ephemeral-resource shelf_token token.hex

{TAGGED_HELP}"))]
    Decode(Box<DecodeArgs>),
    /// Encode the tagged notation or plain JSON as a DynamicValue
    ///
    /// Encodes a value (the tagged JSON notation, or plain JSON with --from json) against a
    /// type and prints it as MessagePack (hex, base64 or raw), or as a JSON DynamicValue
    /// with --encoding json.
    #[command(after_help = format!("Examples:
  echo '{{\"list\":[{{\"string\":\"a\"}}]}}' | tfvalue encode --type '[\"list\",\"string\"]'
  echo '[\"a\"]' | tfvalue encode --from json --type '[\"list\",\"string\"]'
  echo '{{\"list\":[{{\"string\":\"a\"}}]}}' | tfvalue encode --encoding json --type '[\"list\",\"string\"]'
  tfvalue encode --from json --schema schema.json --resource shelf_bucket bucket.json

{TAGGED_HELP}"))]
    Encode(Box<EncodeArgs>),
    /// Print the wire type of a block of a provider schema file
    ///
    /// Prints the type a resource, data source, ephemeral resource or provider
    /// configuration has on the wire, from the JSON of `terraform providers schema -json`;
    /// without a block, lists what the file holds.
    #[command(after_help = "Examples:
  tfvalue schema schema.json                           # list providers and blocks
  tfvalue schema schema.json --resource shelf_bucket
  tfvalue schema schema.json --ephemeral-resource shelf_token
  tfvalue schema --schema schema.json --provider

The file comes from `terraform providers schema -json > schema.json`. The first line
printed is the type JSON, the second the same type in Terraform's type syntax.")]
    Schema {
        /// The JSON printed by `terraform providers schema -json` (or give --schema).
        #[arg(value_name = "FILE")]
        file: Option<String>,
        #[command(flatten)]
        schema: SchemaArgs,
    },
    /// Run conformance vector files
    ///
    /// Runs conformance vector files (JSON Lines: msgpack-decode, msgpack-encode,
    /// json-decode, json-encode, msgpack-to-json) and prints each failure and a final
    /// `N passed, M failed`.
    #[command(after_help = "Examples:
  tfvalue check vectors.msgpack-decode.jsonl
  tfvalue check --kind json-decode my-cases.jsonl

The kind of each file is taken from its name (anywhere in it) unless --kind is given.")]
    Check {
        /// Vector files.
        #[arg(required = true)]
        files: Vec<String>,
        /// The kind of vectors, for file names that do not say.
        #[arg(long, value_enum)]
        kind: Option<VectorKind>,
    },
    /// Generate or validate a provider's documentation for the Terraform Registry
    #[command(subcommand)]
    Docs(DocsCommand),
}

/// `tfvalue docs ...`
#[derive(Subcommand)]
enum DocsCommand {
    /// Write the Registry's docs folder from the provider's schema
    ///
    /// Writes docs/index.md and a page per resource, data source, ephemeral resource, list
    /// resource and function (`docs/resources/<name>.md`, without the provider's prefix),
    /// with each attribute's type, role, description, sensitivity and deprecation, the
    /// nested schemas linked, and the example and import files of the examples folder.
    /// A template of the templates folder replaces the built-in one for its page.
    #[command(after_help = "Examples:
  tfvalue docs generate --providers-schema shelf/schema.json --provider-dir shelf --check

From the provider's binary, in its folder (with ./examples and ./templates, into ./docs):
  tfvalue docs generate --provider-binary target/release/terraform-provider-kv

Examples folder: provider/provider.tf, resources/<type>/resource.tf (and import.sh,
import-by-string-id.tf, import-by-identity.tf), data-sources/<type>/data-source.tf,
ephemeral-resources/<type>/ephemeral-resource.tf, list-resources/<type>/list-resource.tfquery.hcl,
functions/<name>/function.tf.
Templates folder: index.md.tmpl, resources/<name>.md.tmpl, resources.md.tmpl (for every
resource without its own), the same for data-sources, ephemeral-resources, list-resources
and functions; guides/*.md copied and guides/*.md.tmpl rendered. Templates take the fields
and functions of tfplugindocs' ({{ .Name }}, {{ .SchemaMarkdown }}, {{ tffile .ExampleFile }}, ...).
With --check nothing is written: the command fails if the folder differs.")]
    Generate(Box<docs::GenerateArgs>),
    /// Check a docs folder: its layout, front matter and, given the schema, its pages
    ///
    /// Checks that the folder has only what the Registry reads (index.md and .md pages in
    /// resources/, data-sources/, ephemeral-resources/, list-resources/, functions/,
    /// guides/), that front matter is well formed, and, with the provider's binary or
    /// schema, that every resource, data source, ... has a page, that no page documents
    /// something the provider lacks, and that each page's schema section lists the
    /// attributes the schema has.
    #[command(after_help = "Examples:
  tfvalue docs validate shelf/docs --providers-schema shelf/schema.json

Against the provider's binary:
  tfvalue docs validate docs --provider-binary target/release/terraform-provider-kv

Each problem is a line naming the file; the status is 1 when there is any.")]
    Validate(Box<docs::ValidateArgs>),
}

/// The arguments of `tfvalue inspect`.
#[derive(clap::Args)]
struct InspectArgs {
    /// The input file, or `-` for standard input; the built-in sample when absent.
    /// With --state or --plan: the resource address to show.
    #[arg(value_name = "FILE|ADDRESS")]
    target: Option<String>,
    /// A state file (`terraform.tfstate`, format 3 or 4, or `terraform show -json` of a state).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["plan", "ty"])]
    state: Option<String>,
    /// A plan as JSON (`terraform show -json PLANFILE > plan.json`).
    #[arg(long, value_name = "FILE", conflicts_with = "ty")]
    plan: Option<String>,
    /// The type: Terraform's type JSON ('["list","string"]') or its type syntax
    /// ('list(object({a=string}))').
    #[arg(long = "type", value_name = "TYPE", conflicts_with = "schema")]
    ty: Option<String>,
    #[command(flatten)]
    schema: SchemaArgs,
    /// Skip attributes the schema does not declare (state from a newer provider), with a
    /// warning naming them, instead of failing.
    #[arg(long)]
    ignore_undeclared: bool,
    /// How the input is written.
    #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
    format: InputFormat,
    /// The encoding of the value.
    #[arg(long, value_enum, default_value_t = Encoding::Auto)]
    encoding: Encoding,
    /// Colour the output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Show sensitive values instead of `(sensitive value)`.
    #[arg(long)]
    show_sensitive: bool,
    /// With --plan, list the changes (one line each) instead of showing them; with
    /// --state, list the instances (what it does without an address anyway).
    #[arg(long, conflicts_with = "target")]
    list: bool,
    /// Print an indented tree, or the tagged JSON notation.
    #[arg(long, value_enum, default_value_t = Output::Text)]
    output: Output,
}

/// The arguments of `tfvalue decode`.
#[derive(clap::Args)]
struct DecodeArgs {
    /// The input file; standard input when absent or `-`.
    file: Option<String>,
    /// The type: Terraform's type JSON ('["list","string"]') or its type syntax
    /// ('list(object({a=string}))').
    #[arg(long = "type", value_name = "TYPE", conflicts_with = "schema")]
    ty: Option<String>,
    #[command(flatten)]
    schema: SchemaArgs,
    /// How MessagePack input is written.
    #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
    format: InputFormat,
    /// The encoding of the input DynamicValue.
    #[arg(long, value_enum, default_value_t = Encoding::Auto)]
    encoding: Encoding,
    /// What to print: the tagged notation, or a plain JSON DynamicValue.
    #[arg(long, value_enum, default_value_t = Notation::Tagged)]
    to: Notation,
}

/// The arguments of `tfvalue encode`.
#[derive(clap::Args)]
struct EncodeArgs {
    /// The input file; standard input when absent or `-`.
    file: Option<String>,
    /// The type: Terraform's type JSON ('["list","string"]') or its type syntax
    /// ('list(object({a=string}))').
    #[arg(long = "type", value_name = "TYPE", conflicts_with = "schema")]
    ty: Option<String>,
    #[command(flatten)]
    schema: SchemaArgs,
    /// What the input is: the tagged notation, or a plain JSON value (as in state).
    #[arg(long, value_enum, default_value_t = Notation::Tagged)]
    from: Notation,
    /// The encoding of the DynamicValue to write.
    #[arg(long, value_enum, default_value_t = OutEncoding::Msgpack)]
    encoding: OutEncoding,
    /// How to write MessagePack.
    #[arg(long, value_enum, default_value_t = OutFormat::Hex)]
    format: OutFormat,
}

/// Where a type comes from in a provider schema file.
#[derive(clap::Args)]
struct SchemaArgs {
    /// The JSON printed by `terraform providers schema -json`.
    #[arg(long, value_name = "FILE")]
    schema: Option<String>,
    /// A managed resource type.
    #[arg(long, value_name = "NAME", group = "what")]
    resource: Option<String>,
    /// A data source.
    #[arg(long, value_name = "NAME", group = "what")]
    data_source: Option<String>,
    /// An ephemeral resource type.
    #[arg(long, value_name = "NAME", group = "what")]
    ephemeral_resource: Option<String>,
    /// The provider's own configuration.
    #[arg(long, group = "what")]
    provider: bool,
    /// The provider, when the file has several (`hashicorp/aws` or the full address).
    #[arg(long, value_name = "ADDRESS")]
    provider_address: Option<String>,
}

impl SchemaArgs {
    fn selection(&self) -> Option<(BlockKind, &str)> {
        if let Some(n) = &self.resource {
            Some((BlockKind::Resource, n))
        } else if let Some(n) = &self.data_source {
            Some((BlockKind::DataSource, n))
        } else if let Some(n) = &self.ephemeral_resource {
            Some((BlockKind::EphemeralResource, n))
        } else if self.provider {
            Some((BlockKind::Provider, ""))
        } else {
            None
        }
    }

    /// The chosen block, if `--schema` was given.
    fn load(&self) -> Result<Option<Schema>, String> {
        let Some(path) = &self.schema else {
            if let Some((kind, _)) = self.selection() {
                return Err(format!(
                    "{} needs --schema FILE (from `terraform providers schema -json`)",
                    schemas::flag(kind)
                ));
            }
            return Ok(None);
        };
        let file = SchemaFile::load(path)?;
        let Some((kind, name)) = self.selection() else {
            return Err(format!(
                "--schema {path} needs --resource NAME, --data-source NAME, \
                 --ephemeral-resource NAME or --provider"
            ));
        };
        let (addr, provider) = file.provider(self.provider_address.as_deref())?;
        schemas::block(path, addr, provider, kind, name)
            .cloned()
            .map(Some)
    }

    /// The type from `--type` or the schema, required.
    fn type_or(&self, ty: Option<&str>) -> Result<(Type, Mask), String> {
        match (ty, self.load()?) {
            (Some(t), _) => Ok((parse_type(t)?, Mask::default())),
            (None, Some(s)) => Ok((s.implied_type(), render::mask_for_block(&s.block))),
            (None, None) => {
                Err("give the type: --type TYPE, or --schema FILE --resource NAME".into())
            }
        }
    }
}

/// A type as `--type` takes it: type JSON or Terraform's type syntax.
fn parse_type(text: &str) -> Result<Type, String> {
    text.parse::<Type>()
        .map_err(|e| format!("invalid --type: {e}"))
}

/// Whether bytes (after whitespace) look like JSON rather than MessagePack.
fn looks_like_json(bytes: &[u8]) -> bool {
    let text: Vec<u8> = bytes
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .take(6)
        .collect();
    matches!(text.first(), Some(b'{' | b'[' | b'"'))
        || text == b"null"
        || text == b"true"
        || text == b"false"
}

/// Reads a DynamicValue's bytes, MessagePack (hex, base64, raw) or JSON, against a type.
fn read_value(
    raw: Vec<u8>,
    ty: &Type,
    encoding: Encoding,
    format: InputFormat,
) -> Result<Value, String> {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err("the input is empty".into());
    }
    let json = match encoding {
        Encoding::Json => true,
        Encoding::Msgpack => false,
        Encoding::Auto => format != InputFormat::Raw && looks_like_json(&raw),
    };
    if json {
        let text = utf8_json("the input", &raw)?;
        return Value::from_json(text, ty)
            .map_err(|e| format!("invalid JSON value: {e}{}", whole_file_hint(text)));
    }
    let (bytes, how) = decode_bytes_detected(raw, format)?;
    Value::from_msgpack(&bytes, ty)
        .map_err(|e| format!("invalid MessagePack value: {e}{}", how.note(bytes.len())))
}

/// What a JSON file is, when it is a whole state, plan or schema file rather than a
/// DynamicValue, and the option that reads it.
fn whole_file_kind(text: &[u8]) -> Option<(&'static str, &'static str)> {
    let Ok(Json::Object(top)) = serde_json::from_slice::<Json>(text) else {
        return None;
    };
    let has = |k: &str| top.contains_key(k);
    if has("resource_changes") || (has("format_version") && has("planned_values")) {
        Some((
            "a plan from `terraform show -json`",
            "use inspect --plan FILE [ADDRESS]",
        ))
    } else if has("provider_schemas") {
        Some(("a provider schema file", "give it with --schema FILE"))
    } else if has("version") && (has("resources") || has("modules")) {
        Some(("a whole state file", "use inspect --state FILE [ADDRESS]"))
    } else {
        None
    }
}

/// ` (this is a whole state file: use ...)` after a decoding error, or nothing.
fn whole_file_hint(text: &[u8]) -> String {
    whole_file_kind(text).map_or(String::new(), |(what, how)| {
        format!(" (this is {what}: {how})")
    })
}

fn inspect(args: InspectArgs) -> Outcome<ExitCode> {
    if args.state.is_some() || args.plan.is_some() {
        return show::inspect_file(&args);
    }
    let style = Style {
        color: args.color.on(),
        show_sensitive: args.show_sensitive,
    };
    if args.ignore_undeclared {
        return Err("--ignore-undeclared applies to --state and --plan".into());
    }
    let input = match args.target.as_deref() {
        Some(path) => Some(read_input(Some(path))?),
        None if std::io::stdin().is_terminal() => None,
        None => Some(read_input(None)?).filter(|b| !b.iter().all(u8::is_ascii_whitespace)),
    };
    let sample = input.is_none();
    let (value, ty, mask) = match input {
        None => {
            let ty = Type::from_json(sample::TYPE_JSON).map_err(|e| e.to_string())?;
            let json: Json = serde_json::from_str(sample::VALUE_JSON).map_err(|e| e.to_string())?;
            let value = tagged::from_tagged(&json).map_err(|e| e.to_string())?;
            // Through the wire and back, as a real payload would come.
            let bytes = value.to_msgpack(&ty).map_err(|e| e.to_string())?;
            let value = Value::from_msgpack(&bytes, &ty).map_err(|e| e.to_string())?;
            (value, ty, sample::mask())
        }
        Some(raw) => {
            let (ty, mask) = args.schema.type_or(args.ty.as_deref()).map_err(|e| {
                let name = input::name(args.target.as_deref());
                match whole_file_kind(&raw) {
                    Some((what, how)) => format!("{name} is {what}: {how}"),
                    None => format!("{e} (or --state FILE / --plan FILE)"),
                }
            })?;
            let value = read_value(raw, &ty, args.encoding, args.format)?;
            (value, ty, mask)
        }
    };
    if sample && args.output == Output::Text {
        out::print(sample::HEADER)?;
    }
    match args.output {
        Output::Json => out::println(&pretty(&tagged::to_tagged(&value))?),
        Output::Text => out::print(&render(&value, &ty, &mask, style)),
    }?;
    Ok(ExitCode::SUCCESS)
}

fn pretty(j: &Json) -> Result<String, String> {
    serde_json::to_string_pretty(j).map_err(|e| e.to_string())
}

fn decode(args: DecodeArgs) -> Outcome<ExitCode> {
    let (ty, _) = args.schema.type_or(args.ty.as_deref())?;
    let raw = read_input(args.file.as_deref())?;
    let value = read_value(raw, &ty, args.encoding, args.format)?;
    let text = match args.to {
        Notation::Tagged => pretty(&tagged::to_tagged(&value))?,
        Notation::Json => {
            let bytes = value
                .to_json(&ty)
                .map_err(|e| format!("cannot write as plain JSON: {e}"))?;
            String::from_utf8(bytes).map_err(|e| e.to_string())?
        }
    };
    out::println(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn encode(args: EncodeArgs) -> Outcome<ExitCode> {
    let (ty, _) = args.schema.type_or(args.ty.as_deref())?;
    let what = input::name(args.file.as_deref()).to_owned();
    let raw = read_input(args.file.as_deref())?;
    let text = utf8_json(&what, &raw)?;
    let value = match args.from {
        Notation::Tagged => {
            let json: Json =
                serde_json::from_slice(text).map_err(|e| format!("{what}: invalid JSON: {e}"))?;
            tagged::from_tagged(&json).map_err(|e| {
                format!("{what}: invalid tagged value: {e} (plain JSON needs --from json)")
            })?
        }
        Notation::Json => Value::from_json(text, &ty).map_err(|e| format!("{what}: {e}"))?,
    };
    match args.encoding {
        OutEncoding::Json => {
            let bytes = value.to_json(&ty).map_err(|e| e.to_string())?;
            out::println(&String::from_utf8(bytes).map_err(|e| e.to_string())?)?;
        }
        OutEncoding::Msgpack => {
            let bytes = value.to_msgpack(&ty).map_err(|e| e.to_string())?;
            match args.format {
                OutFormat::Hex => out::println(&conformance::hex_encode(&bytes))?,
                OutFormat::Base64 => out::println(&input::base64_encode(&bytes))?,
                OutFormat::Raw => {
                    let mut o = std::io::stdout().lock();
                    std::io::Write::write_all(&mut o, &bytes)
                        .and_then(|()| std::io::Write::flush(&mut o))
                        .map_err(|e| match e.kind() {
                            std::io::ErrorKind::BrokenPipe => Fail::BrokenPipe,
                            _ => Fail::Message(format!("cannot write to standard output: {e}")),
                        })?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn schema_cmd(file: Option<String>, mut args: SchemaArgs) -> Outcome<ExitCode> {
    match (file, &args.schema) {
        (Some(f), None) => args.schema = Some(f),
        (Some(f), Some(s)) if &f != s => {
            return Err(format!("two schema files given: {f} and --schema {s}").into())
        }
        (None, None) => {
            return Err(
                "tfvalue schema needs a schema FILE (from `terraform providers schema -json`)"
                    .into(),
            )
        }
        _ => {}
    }
    if args.selection().is_none() {
        let path = args.schema.as_deref().unwrap_or_default();
        let file = SchemaFile::load(path)?;
        out::print(&schemas::listing(&file))?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(s) = args.load()? else {
        return Err("tfvalue schema needs a schema FILE".into());
    };
    let ty = s.implied_type();
    let text = format!("{}\n{ty}\n", ty.to_json());
    out::print(&diff::printable_lines(&text))?;
    Ok(ExitCode::SUCCESS)
}

fn check(files: Vec<String>, kind: Option<VectorKind>) -> Outcome<ExitCode> {
    let (mut passed, mut failed) = (0usize, 0usize);
    for file in &files {
        let bytes = input::read_file(file)?;
        let kind = match kind {
            Some(k) => k,
            None => VectorKind::from_name(file)?,
        };
        let text = utf8_json(file, &bytes)?;
        let text = std::str::from_utf8(text).map_err(|e| format!("{file}: not UTF-8: {e}"))?;
        let mut report = String::new();
        for r in conformance::run_file(kind.kind(), text) {
            match r.outcome {
                Ok(()) => passed += 1,
                Err(why) => {
                    failed += 1;
                    report.push_str(&format!("FAIL {file}: {}: {why}\n", r.name));
                }
            }
        }
        out::print(&report)?;
    }
    out::println(&format!("{passed} passed, {failed} failed"))?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn run(cli: Cli) -> Outcome<ExitCode> {
    match cli.command {
        Command::Inspect(args) => inspect(*args),
        Command::Decode(args) => decode(*args),
        Command::Encode(args) => encode(*args),
        Command::Schema { file, schema } => schema_cmd(file, schema),
        Command::Check { files, kind } => check(files, kind),
        Command::Docs(DocsCommand::Generate(args)) => docs::generate(&args),
        Command::Docs(DocsCommand::Validate(args)) => docs::validate(&args),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to standard output; a closed pipe there is not an error.
            let code = e.exit_code();
            if e.print().is_err() && !e.use_stderr() {
                return ExitCode::from(out::BROKEN_PIPE_STATUS);
            }
            return ExitCode::from(u8::try_from(code).unwrap_or(2));
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(Fail::BrokenPipe) => ExitCode::from(out::BROKEN_PIPE_STATUS),
        Err(Fail::Message(msg)) => {
            // One line, whatever the file said: no control characters, no newlines.
            out::warn_plain(&format!("tfvalue: {}", diff::printable(&msg)));
            ExitCode::FAILURE
        }
    }
}
