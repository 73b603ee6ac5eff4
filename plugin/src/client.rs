//! Start a provider binary as Terraform does and read what it declares, without
//! Terraform: for tools that document or check a provider (`tfvalue docs generate`).
//!
//! Enabled by the crate feature `client`.
//!
//! ```no_run
//! # fn main() -> Result<(), tfvalue_plugin::client::ClientError> {
//! let described = tfvalue_plugin::client::describe("target/release/terraform-provider-kv")?;
//! for name in described.schema.resource_schemas.keys() {
//!     println!("resource {name}");
//! }
//! # Ok(()) }
//! ```
//!
//! The provider is started with go-plugin's magic cookie and `PLUGIN_PROTOCOL_VERSIONS=5,6`
//! and without `PLUGIN_CLIENT_CERT`, so it serves plaintext gRPC on the socket its
//! handshake line names (a Unix socket for providers built with go-plugin, TCP for
//! tfvalue-plugin's). It is asked for its schemas (`GetProviderSchema`, or `GetSchema` in
//! protocol 5) and its identity schemas, then told to stop (`Shutdown`); a provider
//! still running two seconds later is killed. Whatever it wrote to stderr is in the
//! error when it fails.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use tfvalue::schema::ProviderSchema;
use tonic::transport::{Channel, Endpoint};

use crate::identity::{IdentityAttribute, IdentitySchema};
use crate::proto::{plugin as gp, tfplugin5 as pb5, tfplugin6 as pb6};
use crate::{Diagnostic, Function, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};

/// How long the provider has to print its handshake line (Terraform waits a minute).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long each call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How much of the provider's stderr an error keeps (its end).
const STDERR_KEPT: usize = 16 * 1024;

/// What a provider declares: its schemas, functions and identity schemas.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ProviderDescription {
    /// The protocol major version the provider chose (5 or 6).
    pub protocol_version: u32,
    /// The provider's configuration block, resources, data sources, ephemeral resources
    /// and list resources (protocol 5.10/6.10).
    pub schema: ProviderSchema,
    /// The provider-defined functions, by name.
    pub functions: BTreeMap<String, Function>,
    /// The identity schemas of the resources that have one, by resource type.
    pub identities: BTreeMap<String, IdentitySchema>,
    /// Warnings the provider returned with its schemas.
    pub warnings: Vec<Diagnostic>,
}

/// Why a provider could not be described.
#[derive(Debug)]
pub struct ClientError {
    message: String,
}

impl ClientError {
    fn new(message: impl Into<String>) -> Self {
        ClientError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ClientError {}

/// Starts the provider binary at `binary`, reads its schemas and stops it.
///
/// # Errors
///
/// The binary does not start, prints no handshake line within a minute (or not one
/// go-plugin would read), cannot be reached, fails a call, or returns error
/// diagnostics with its schemas. The message has the end of the provider's stderr.
pub fn describe(binary: impl AsRef<Path>) -> Result<ProviderDescription, ClientError> {
    let binary = binary.as_ref();
    let mut running = Running::start(binary)?;
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            running.stop(None);
            return Err(ClientError::new(format!("cannot start a runtime: {e}")));
        }
    };
    let result = runtime.block_on(running.describe());
    let result = result.map_err(|e| running.explain(e));
    // The channel's connection lives on this runtime: Shutdown goes through it here.
    running.stop(Some(&runtime));
    result
}

/// The calls of [`Running::describe`] in one protocol major: its generated client
/// (`pb6`), conversions (`v6`) and schema RPC (`get_provider_schema`).
macro_rules! read_schemas {
    ($pb:ident, $conv:ident, $rpc:ident, $rpc_name:literal, $channel:expr, $out:ident, $call:ident) => {{
        let mut client = $pb::provider_client::ProviderClient::new($channel)
            .max_decoding_message_size(usize::MAX);
        let r = client
            .$rpc($pb::get_provider_schema::Request {})
            .await
            .map_err(|e| $call($rpc_name, e))?
            .into_inner();
        take_diagnostics(
            $rpc_name,
            crate::convert::$conv::diagnostics(r.diagnostics),
            &mut $out.warnings,
        )?;
        let schema = |s| crate::convert::$conv::schema(s).map_err(ClientError::new);
        fill(
            &mut $out,
            r.provider.map(schema).transpose()?,
            r.resource_schemas,
            r.data_source_schemas,
            r.ephemeral_resource_schemas,
            r.list_resource_schemas,
            schema,
        )?;
        for (name, f) in r.functions {
            let f = crate::convert::$conv::function(f)
                .map_err(|e| ClientError::new(format!("function {name}: {e}")))?;
            $out.functions.insert(name, f);
        }
        // Terraform before 1.12 has no identities, and a provider built for it may not
        // implement the call.
        match client
            .get_resource_identity_schemas($pb::get_resource_identity_schemas::Request {})
            .await
        {
            Ok(r) => {
                let r = r.into_inner();
                take_diagnostics(
                    "GetResourceIdentitySchemas",
                    crate::convert::$conv::diagnostics(r.diagnostics),
                    &mut $out.warnings,
                )?;
                for (name, s) in r.identity_schemas {
                    let attrs = s
                        .identity_attributes
                        .into_iter()
                        .map(|a| (a.name, a.r#type, a.required_for_import, a.description))
                        .collect();
                    $out.identities
                        .insert(name.clone(), identity(&name, s.version, attrs)?);
                }
            }
            Err(e) if e.code() == tonic::Code::Unimplemented => {}
            Err(e) => return Err($call("GetResourceIdentitySchemas", e)),
        }
    }};
}

/// The provider's process and what it told us.
struct Running {
    binary: PathBuf,
    child: Child,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Gets a message when stderr is at its end (the process and its children closed it).
    stderr_end: Option<mpsc::Receiver<()>>,
    protocol: u32,
    network: String,
    address: String,
    channel: Option<Channel>,
}

impl Running {
    fn start(binary: &Path) -> Result<Running, ClientError> {
        let mut child = Command::new(binary)
            .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
            .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
            .env("PLUGIN_MIN_PORT", "10000")
            .env("PLUGIN_MAX_PORT", "25000")
            .env_remove("PLUGIN_CLIENT_CERT")
            .env_remove("TF_REATTACH_PROVIDERS")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| ClientError::new(format!("cannot start {}: {e}", binary.display())))?;
        // stderr is read all along (a provider blocks on a full pipe), keeping its end.
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut stderr_end = None;
        if let Some(mut pipe) = child.stderr.take() {
            let kept = Arc::clone(&stderr);
            let (end_tx, end_rx) = mpsc::channel();
            stderr_end = Some(end_rx);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                    kept.extend_from_slice(&buf[..n]);
                    if kept.len() > 2 * STDERR_KEPT {
                        let cut = kept.len() - STDERR_KEPT;
                        kept.drain(..cut);
                    }
                }
                let _ = end_tx.send(());
            });
        }
        let mut running = Running {
            binary: binary.to_path_buf(),
            child,
            stderr,
            stderr_end,
            protocol: 0,
            network: String::new(),
            address: String::new(),
            channel: None,
        };
        match running.handshake() {
            Ok(()) => Ok(running),
            Err(e) => {
                let e = running.explain(e);
                running.stop(None);
                Err(e)
            }
        }
    }

    /// Reads the handshake line: `1|<protocol>|<network>|<address>|grpc[|<cert>]`.
    fn handshake(&mut self) -> Result<(), ClientError> {
        let Some(stdout) = self.child.stdout.take() else {
            return Err(ClientError::new("the provider's stdout is not a pipe"));
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let first = reader.read_line(&mut line).map(|_| line);
            let _ = tx.send(first);
            // The rest of stdout is drained so that the provider never blocks on it.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let line = match rx.recv_timeout(HANDSHAKE_TIMEOUT) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return Err(ClientError::new(format!("cannot read its stdout: {e}"))),
            Err(_) => {
                return Err(ClientError::new(format!(
                    "it printed no handshake line within {} s",
                    HANDSHAKE_TIMEOUT.as_secs()
                )))
            }
        };
        let line = line.trim_end();
        if line.is_empty() {
            let status = self.child.try_wait().ok().flatten();
            return Err(ClientError::new(match status {
                Some(s) => format!("it exited ({s}) without a handshake line"),
                None => "it closed its stdout without a handshake line".to_owned(),
            }));
        }
        let fields: Vec<&str> = line.split('|').collect();
        let bad = || {
            ClientError::new(format!(
                "its first line is not a go-plugin handshake \
                 (`1|<protocol>|<network>|<address>|grpc`): {line:?}"
            ))
        };
        if fields.len() < 5 || fields[0] != "1" {
            return Err(bad());
        }
        self.protocol = fields[1].parse().map_err(|_| bad())?;
        if !matches!(self.protocol, 5 | 6) {
            return Err(ClientError::new(format!(
                "it chose protocol version {}; only 5 and 6 were offered",
                self.protocol
            )));
        }
        if fields[4] != "grpc" {
            return Err(ClientError::new(format!(
                "it speaks go-plugin's {:?} protocol, not grpc",
                fields[4]
            )));
        }
        if fields.get(5).is_some_and(|c| !c.is_empty()) {
            return Err(ClientError::new(
                "it asks for TLS although no client certificate was offered",
            ));
        }
        fields[2].clone_into(&mut self.network);
        fields[3].clone_into(&mut self.address);
        Ok(())
    }

    async fn connect(&mut self) -> Result<Channel, ClientError> {
        if let Some(c) = &self.channel {
            return Ok(c.clone());
        }
        let cannot = |e: &dyn fmt::Display| {
            ClientError::new(format!(
                "cannot connect to {} {}: {e}",
                self.network, self.address
            ))
        };
        let channel = match self.network.as_str() {
            "tcp" => Endpoint::from_shared(format!("http://{}", self.address))
                .map_err(|e| cannot(&e))?
                .connect_timeout(CALL_TIMEOUT)
                .timeout(CALL_TIMEOUT)
                .connect()
                .await
                .map_err(|e| cannot(&e))?,
            #[cfg(unix)]
            "unix" => {
                let path = PathBuf::from(&self.address);
                Endpoint::from_static("http://localhost")
                    .timeout(CALL_TIMEOUT)
                    .connect_with_connector(tower::service_fn(move |_: tonic::transport::Uri| {
                        let path = path.clone();
                        async move {
                            let stream = tokio::net::UnixStream::connect(path).await?;
                            Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(stream))
                        }
                    }))
                    .await
                    .map_err(|e| cannot(&e))?
            }
            other => {
                return Err(ClientError::new(format!(
                    "it listens on a {other:?} network, which this client cannot reach"
                )))
            }
        };
        self.channel = Some(channel.clone());
        Ok(channel)
    }

    async fn describe(&mut self) -> Result<ProviderDescription, ClientError> {
        let channel = self.connect().await?;
        let call = |rpc: &str, e: tonic::Status| {
            ClientError::new(format!("{rpc} failed: {} ({:?})", e.message(), e.code()))
        };
        let mut out = ProviderDescription {
            protocol_version: self.protocol,
            ..ProviderDescription::default()
        };
        if self.protocol == 6 {
            read_schemas!(
                pb6,
                v6,
                get_provider_schema,
                "GetProviderSchema",
                channel,
                out,
                call
            );
        } else {
            read_schemas!(pb5, v5, get_schema, "GetSchema", channel, out, call);
        }
        Ok(out)
    }

    /// The error with what the provider is and what it wrote to stderr.
    fn explain(&mut self, e: ClientError) -> ClientError {
        // A provider that fails often exits at once, its last words still in the pipe:
        // give it a moment to exit, and the reader the moment to take them.
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                if let Some(end) = &self.stderr_end {
                    let _ = end.recv_timeout(deadline.saturating_duration_since(Instant::now()));
                }
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let stderr = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        let stderr = String::from_utf8_lossy(&stderr);
        let stderr = stderr.trim();
        let mut message = format!("provider {}: {}", self.binary.display(), e.message);
        if !stderr.is_empty() {
            message.push_str("\nits stderr:\n");
            message.push_str(stderr);
        }
        ClientError::new(message)
    }

    /// Asks the provider to stop (through `runtime`, where its connection is), and kills
    /// it if it is still running 2 s later.
    fn stop(&mut self, runtime: Option<&tokio::runtime::Runtime>) {
        if let (Some(channel), Some(runtime)) = (self.channel.take(), runtime) {
            runtime.block_on(async {
                let mut c = gp::grpc_controller_client::GrpcControllerClient::new(channel);
                let _ =
                    tokio::time::timeout(Duration::from_secs(2), c.shutdown(gp::Empty {})).await;
            });
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    /// A provider never outlives its description, whatever path ends it (an early
    /// return, a panic): one still running is killed and reaped.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Error diagnostics fail the description; warnings are kept.
fn take_diagnostics(
    rpc: &str,
    diagnostics: Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), ClientError> {
    let (errors, rest): (Vec<_>, Vec<_>) = diagnostics
        .into_iter()
        .partition(|d| d.severity == crate::Severity::Error);
    warnings.extend(rest);
    if errors.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = errors
        .iter()
        .map(|d| {
            if d.detail.is_empty() {
                d.summary.clone()
            } else {
                format!("{}: {}", d.summary, d.detail)
            }
        })
        .collect();
    Err(ClientError::new(format!(
        "{rpc} returned errors: {}",
        list.join("; ")
    )))
}

type Schemas<S> = std::collections::HashMap<String, S>;

fn fill<S>(
    out: &mut ProviderDescription,
    provider: Option<tfvalue::schema::Schema>,
    resources: Schemas<S>,
    data_sources: Schemas<S>,
    ephemerals: Schemas<S>,
    lists: Schemas<S>,
    schema: impl Fn(S) -> Result<tfvalue::schema::Schema, ClientError>,
) -> Result<(), ClientError> {
    out.schema.provider = provider;
    let named = |kind: &str, name: &str, e: ClientError| {
        ClientError::new(format!("the schema of {kind} {name}: {}", e.message))
    };
    for (name, s) in resources {
        let s = schema(s).map_err(|e| named("resource", &name, e))?;
        out.schema.resource_schemas.insert(name, s);
    }
    for (name, s) in data_sources {
        let s = schema(s).map_err(|e| named("data source", &name, e))?;
        out.schema.data_source_schemas.insert(name, s);
    }
    for (name, s) in ephemerals {
        let s = schema(s).map_err(|e| named("ephemeral resource", &name, e))?;
        out.schema.ephemeral_resource_schemas.insert(name, s);
    }
    for (name, s) in lists {
        let s = schema(s).map_err(|e| named("list resource", &name, e))?;
        out.schema.list_resource_schemas.insert(name, s);
    }
    Ok(())
}

/// An identity schema from the protocol's attributes (name, type JSON, required for
/// import, description).
fn identity(
    resource: &str,
    version: i64,
    attributes: Vec<(String, Vec<u8>, bool, String)>,
) -> Result<IdentitySchema, ClientError> {
    let mut out = IdentitySchema::new(version);
    for (name, ty, required, description) in attributes {
        let ty: tfvalue::Type = serde_json::from_slice(&ty).map_err(|e| {
            ClientError::new(format!(
                "the identity attribute {resource}.{name} has an invalid type: {e}"
            ))
        })?;
        let a = if required {
            IdentityAttribute::required_for_import(name, ty)
        } else {
            IdentityAttribute::optional_for_import(name, ty)
        };
        out = out.attribute(a.description(description));
    }
    Ok(out)
}
