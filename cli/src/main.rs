//! `tfvalue`: read, write and check the values Terraform exchanges with provider plugins.

mod input;
mod render;
mod sample;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tfvalue::conformance::{self, Kind};
use tfvalue::{tagged, Type, Value};

use input::{decode_bytes, read_input, InputFormat};
use render::{render, Mask, Style};

/// When to colour the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ColorChoice {
    /// When standard output is a terminal.
    Auto,
    Always,
    Never,
}

/// The encoding of a DynamicValue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Encoding {
    /// JSON when the input starts with `{`, `[` or `"`, else MessagePack.
    Auto,
    Msgpack,
    Json,
}

/// Decodes a DynamicValue's bytes, MessagePack or JSON.
fn decode_value(bytes: &[u8], ty: &Type, encoding: Encoding) -> Result<Value, String> {
    let json = match encoding {
        Encoding::Json => true,
        Encoding::Msgpack => false,
        Encoding::Auto => matches!(
            bytes.iter().find(|b| !b.is_ascii_whitespace()),
            Some(b'{' | b'[' | b'"')
        ),
    };
    let res = if json {
        Value::from_json(bytes, ty)
    } else {
        Value::from_msgpack(bytes, ty)
    };
    res.map_err(|e| e.to_string())
}

/// What `inspect` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Output {
    /// An indented tree.
    Text,
    /// The tagged JSON notation.
    Json,
}

/// Read, write and check Terraform's plugin wire values (tfplugin5/6 DynamicValue).
#[derive(Parser)]
#[command(name = "tfvalue", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show a DynamicValue (MessagePack as hex, base64 or raw bytes, or JSON) as a readable tree,
    /// with unknowns and their refinements marked and sensitive values masked.
    /// Without input, shows a built-in sample plan value.
    #[command(after_help = "Examples:\n  \
        tfvalue inspect                      # the built-in sample\n  \
        tfvalue inspect --type '[\"map\",\"string\"]' payload.hex\n  \
        echo 81a161d40000 | tfvalue inspect --type '[\"object\",{\"a\":\"string\"}]' -")]
    Inspect(InspectArgs),
    /// Decode MessagePack wire bytes against a type and print the tagged JSON notation.
    #[command(after_help = "Examples:\n  \
        echo 81a161a178 | tfvalue decode --type '[\"object\",{\"a\":\"string\"}]'\n  \
        tfvalue decode --type '\"string\"' --format raw value.bin")]
    Decode {
        /// The type constraint as compact JSON, e.g. '["list","string"]'.
        #[arg(long = "type", value_name = "TYPE_JSON")]
        ty: String,
        /// How the input is written.
        #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
        format: InputFormat,
        /// The input file; standard input when absent or `-`.
        file: Option<String>,
    },
    /// Encode a value in the tagged JSON notation against a type and print MessagePack hex.
    #[command(after_help = "Example:\n  \
        echo '{\"list\":[{\"string\":\"a\"}]}' | tfvalue encode --type '[\"list\",\"string\"]'")]
    Encode {
        /// The type constraint as compact JSON.
        #[arg(long = "type", value_name = "TYPE_JSON")]
        ty: String,
        /// The input file (tagged JSON); standard input when absent or `-`.
        file: Option<String>,
    },
    /// Print the type a resource, data source or provider configuration has on the wire,
    /// from the JSON of `terraform providers schema -json`.
    #[command(after_help = "Example:\n  \
        terraform providers schema -json > schema.json\n  \
        tfvalue schema schema.json --resource aws_instance")]
    Schema {
        #[command(flatten)]
        schema: SchemaArgs,
    },
    /// Run conformance vector files (msgpack-decode*, msgpack-encode*, json-decode*,
    /// json-encode* .jsonl) and print each failure and a final `N passed, M failed` line.
    #[command(after_help = "Example:\n  tfvalue check tests/vectors/*.jsonl")]
    Check {
        /// Vector files; the kind of each comes from its file name.
        #[arg(required = true)]
        files: Vec<String>,
    },
}

/// The arguments of `tfvalue inspect`.
#[derive(clap::Args)]
struct InspectArgs {
    /// The input file, or `-` for standard input; the built-in sample when absent.
    file: Option<String>,
    /// The type constraint as compact JSON.
    #[arg(long = "type", value_name = "TYPE_JSON", conflicts_with = "schema")]
    ty: Option<String>,
    #[command(flatten)]
    schema: SchemaArgs,
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
    /// Print an indented tree, or the tagged JSON notation.
    #[arg(long, value_enum, default_value_t = Output::Text)]
    output: Output,
}

/// Where a type comes from in a provider schema file.
#[derive(clap::Args)]
struct SchemaArgs {
    /// The JSON printed by `terraform providers schema -json`.
    #[arg(long, value_name = "FILE", global = false)]
    schema: Option<String>,
    /// A managed resource type.
    #[arg(long, value_name = "NAME", requires = "schema", group = "what")]
    resource: Option<String>,
    /// A data source.
    #[arg(long, value_name = "NAME", requires = "schema", group = "what")]
    data_source: Option<String>,
    /// The provider's own configuration.
    #[arg(long, requires = "schema", group = "what")]
    provider: bool,
    /// The provider, when the file has several (`hashicorp/aws` or the full address).
    #[arg(long, value_name = "ADDRESS", requires = "schema")]
    provider_address: Option<String>,
}

impl SchemaArgs {
    /// The chosen schema, if `--schema` was given.
    fn load(&self) -> Result<Option<tfvalue::schema::Schema>, String> {
        let Some(path) = &self.schema else {
            return Ok(None);
        };
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let all = tfvalue::schema::ProviderSchemas::from_json(&bytes)
            .map_err(|e| format!("{path}: {e}"))?;
        let provider =
            match &self.provider_address {
                Some(addr) => all.provider(addr).ok_or_else(|| {
                    format!("{path}: no provider {addr:?} (or more than one matches)")
                })?,
                None => {
                    let mut it = all.provider_schemas.values();
                    match (it.next(), it.next()) {
                        (Some(p), None) => p,
                        (None, _) => return Err(format!("{path}: no provider schemas")),
                        _ => {
                            return Err(format!(
                            "{path} has several providers ({}): choose one with --provider-address",
                            all.provider_schemas.keys().cloned().collect::<Vec<_>>().join(", ")
                        ))
                        }
                    }
                }
            };
        let schema = if let Some(name) = &self.resource {
            provider
                .resource(name)
                .ok_or_else(|| format!("{path}: no resource type {name:?}"))?
        } else if let Some(name) = &self.data_source {
            provider
                .data_source(name)
                .ok_or_else(|| format!("{path}: no data source {name:?}"))?
        } else if self.provider {
            provider
                .provider
                .as_ref()
                .ok_or_else(|| format!("{path}: no provider configuration schema"))?
        } else {
            return Err("--schema needs --resource NAME, --data-source NAME or --provider".into());
        };
        Ok(Some(schema.clone()))
    }
}

fn parse_type(text: &str) -> Result<Type, String> {
    Type::from_json(text.as_bytes()).map_err(|e| format!("invalid --type: {e}"))
}

fn inspect(args: InspectArgs) -> Result<ExitCode, String> {
    let InspectArgs {
        file,
        ty,
        schema,
        format,
        encoding,
        color,
        show_sensitive,
        output,
    } = args;
    let schema = &schema;
    use std::io::IsTerminal;
    let input = match file.as_deref() {
        Some(path) => Some(read_input(Some(path))?),
        None if std::io::stdin().is_terminal() => None,
        None => Some(read_input(None)?).filter(|b| !b.iter().all(u8::is_ascii_whitespace)),
    };
    let (value, ty, mask) = match input {
        None => {
            let ty = parse_type(sample::TYPE_JSON)?;
            let json: serde_json::Value =
                serde_json::from_str(sample::VALUE_JSON).map_err(|e| e.to_string())?;
            let value = tagged::from_tagged(&json).map_err(|e| e.to_string())?;
            // Through the wire and back, as a real payload would come.
            let bytes = value.to_msgpack(&ty).map_err(|e| e.to_string())?;
            let value = Value::from_msgpack(&bytes, &ty).map_err(|e| e.to_string())?;
            (value, ty, sample::mask())
        }
        Some(raw) => {
            let (ty, mask) =
                match (ty, schema.load()?) {
                    (Some(ty), _) => (parse_type(&ty)?, Mask::default()),
                    (None, Some(s)) => (s.implied_type(), render::mask_for_block(&s.block)),
                    (None, None) => return Err(
                        "inspecting input needs --type TYPE_JSON or --schema FILE --resource NAME"
                            .into(),
                    ),
                };
            let bytes = decode_bytes(raw, format)?;
            let value = decode_value(&bytes, &ty, encoding)?;
            (value, ty, mask)
        }
    };
    match output {
        Output::Json => {
            let text = serde_json::to_string_pretty(&tagged::to_tagged(&value))
                .map_err(|e| e.to_string())?;
            println!("{text}");
        }
        Output::Text => {
            let color = match color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => std::io::stdout().is_terminal(),
            };
            print!(
                "{}",
                render(
                    &value,
                    &ty,
                    &mask,
                    Style {
                        color,
                        show_sensitive
                    }
                )
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Inspect(args) => inspect(args),
        Command::Schema { schema } => {
            let Some(s) = schema.load()? else {
                return Err("tfvalue schema needs --schema FILE".into());
            };
            let ty = s.implied_type();
            println!("{}", ty.to_json());
            println!("{ty}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Decode { ty, format, file } => {
            let ty = parse_type(&ty)?;
            let bytes = decode_bytes(read_input(file.as_deref())?, format)?;
            let value = Value::from_msgpack(&bytes, &ty).map_err(|e| e.to_string())?;
            let text = serde_json::to_string_pretty(&tagged::to_tagged(&value))
                .map_err(|e| e.to_string())?;
            println!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Encode { ty, file } => {
            let ty = parse_type(&ty)?;
            let input = read_input(file.as_deref())?;
            let json: serde_json::Value =
                serde_json::from_slice(&input).map_err(|e| format!("invalid tagged JSON: {e}"))?;
            let value =
                tagged::from_tagged(&json).map_err(|e| format!("invalid tagged value: {e}"))?;
            let bytes = value.to_msgpack(&ty).map_err(|e| e.to_string())?;
            println!("{}", conformance::hex_encode(&bytes));
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { files } => {
            let (mut passed, mut failed) = (0usize, 0usize);
            for file in &files {
                let Some(kind) = Kind::from_file_name(file) else {
                    return Err(format!(
                        "{file}: cannot tell the kind of vectors from the file name \
                         (expected msgpack-decode*, msgpack-encode*, json-decode* or json-encode*)"
                    ));
                };
                let text = std::fs::read_to_string(file)
                    .map_err(|e| format!("cannot read {file}: {e}"))?;
                for r in conformance::run_file(kind, &text) {
                    match r.outcome {
                        Ok(()) => passed += 1,
                        Err(why) => {
                            failed += 1;
                            println!("FAIL {file}: {}: {why}", r.name);
                        }
                    }
                }
            }
            println!("{passed} passed, {failed} failed");
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("tfvalue: {msg}");
            ExitCode::FAILURE
        }
    }
}
