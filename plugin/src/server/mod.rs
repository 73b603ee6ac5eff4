//! The go-plugin server: handshake, listener, TLS, and the services Terraform calls.

pub(crate) mod budget;
pub(crate) mod core;
pub(crate) mod erased;
mod goplugin;
pub(crate) mod kept_plan;
mod router;
mod service;
#[cfg(test)]
mod tests_grpc;
#[cfg(test)]
mod tests_replay;
pub(crate) mod tls;

use std::fmt;
use std::future::Future;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use base64::Engine as _;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_stream::wrappers::ReceiverStream;

use self::core::Core;
use self::erased::Erased;
use crate::provider::Provider;

/// Writes one line to the process's standard error, ignoring any failure. Terraform
/// reads a provider's stderr through a pipe; once Terraform is gone (killed, say) a write
/// there fails with `EPIPE`, and `eprintln!` would panic on it, ending whatever task
/// wrote (such as the watcher that stops an orphaned provider). Every line the server
/// writes goes through here.
pub(crate) fn say(args: fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args);
    let _ = err.write_all(b"\n");
    let _ = err.flush();
}

/// The environment variable go-plugin's handshake puts the magic cookie in.
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
/// The magic cookie Terraform sets for its providers.
pub const MAGIC_COOKIE_VALUE: &str =
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// How to serve a provider: its address, the protocol versions it speaks, and whether to
/// run in debug mode.
///
/// ```
/// let config = tfvalue_plugin::ServeConfig::new("example.com/acme/thing").protocol_versions(&[6]);
/// assert_eq!(config.address(), "example.com/acme/thing");
/// ```
#[derive(Clone, Debug)]
pub struct ServeConfig {
    address: String,
    versions: Vec<u32>,
    debug: bool,
    limits: Limits,
}

/// What the server allows a connection: the largest message, and the time a new
/// connection has to finish TLS and start speaking.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) max_message: usize,
    pub(crate) connect_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message: DEFAULT_MAX_MESSAGE_SIZE,
            connect_timeout: Duration::from_secs(10),
        }
    }
}

/// The largest gRPC message the server reads or writes by default: 256 MiB, the limit of
/// terraform-plugin-go's servers (Go providers), so a value Terraform can send to a Go
/// provider reaches a tfvalue one too. Terraform's own client allows up to 2 GiB; raise
/// the limit with [`ServeConfig::max_message_size`].
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 256 << 20;

impl ServeConfig {
    /// The provider's source address (`registry/namespace/name`), used in debug mode.
    /// Both protocol versions 5 and 6 are offered.
    pub fn new(address: impl Into<String>) -> Self {
        ServeConfig {
            address: address.into(),
            versions: vec![5, 6],
            debug: false,
            limits: Limits::default(),
        }
    }

    /// The largest message (request or response) the server accepts, in bytes; the
    /// default is [`DEFAULT_MAX_MESSAGE_SIZE`] (256 MiB). A larger request is refused
    /// with `RESOURCE_EXHAUSTED` before its bytes are read into memory. Apart from this
    /// limit, a request whose function arguments or flatmap entries would take more than
    /// 48 MiB of memory once decoded (196,608 empty arguments, 98,304 flatmap entries) is
    /// refused with `RESOURCE_EXHAUSTED` before it is decoded.
    ///
    /// ```
    /// let config = tfvalue_plugin::ServeConfig::new("example.com/acme/thing")
    ///     .max_message_size(1 << 30);
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.limits.max_message = bytes;
        self
    }

    /// How long a new connection may take to finish its TLS handshake, and then to send
    /// the whole start of HTTP/2 (the client preface and its first SETTINGS frame): 10
    /// seconds each by default. One that has not done so in time is closed, also when it
    /// sent some bytes and then nothing. An open
    /// connection may then stay idle for as long as its peer answers HTTP/2 pings, and
    /// a call may take as long as it takes: Terraform keeps one connection for a whole
    /// command, idle while it waits for a person to approve a plan.
    #[must_use]
    pub fn connection_timeout(mut self, timeout: Duration) -> Self {
        self.limits.connect_timeout = timeout;
        self
    }

    /// The provider's source address.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Offers only these protocol versions (of 5 and 6; others are ignored).
    #[must_use]
    pub fn protocol_versions(mut self, versions: &[u32]) -> Self {
        self.versions = versions
            .iter()
            .copied()
            .filter(|v| *v == 5 || *v == 6)
            .collect();
        self
    }

    /// Debug mode: run without Terraform, print `TF_REATTACH_PROVIDERS` for Terraform to
    /// attach to, serve without TLS until interrupted.
    #[must_use]
    pub fn debug(mut self, debug: bool) -> Self {
        self.debug = debug;
        self
    }
}

/// Why [`serve`] could not serve.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The magic cookie is missing: the binary was not launched by Terraform.
    NotLaunchedByTerraform,
    /// None of the protocol versions Terraform offers is served.
    NoCommonProtocol {
        /// What Terraform offered.
        offered: String,
    },
    /// No port in the allowed range could be bound, or another I/O problem.
    Io(std::io::Error),
    /// The TLS setup failed (such as an unreadable `PLUGIN_CLIENT_CERT`).
    Tls(String),
    /// The gRPC server failed.
    Transport(tonic::transport::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::NotLaunchedByTerraform => f.write_str(
                "This binary is a plugin. These are not meant to be executed directly.\n\
                 Please execute the program that consumes these plugins, which will\n\
                 load any plugins automatically (this is a Terraform provider: Terraform launches it).",
            ),
            ServeError::NoCommonProtocol { offered } => write!(
                f,
                "Terraform offers plugin protocol versions {offered}, and this provider serves none of them"
            ),
            ServeError::Io(e) => write!(f, "plugin server: {e}"),
            ServeError::Tls(e) => write!(f, "plugin TLS setup: {e}"),
            ServeError::Transport(e) => write!(f, "plugin gRPC server: {e}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Io(e) => Some(e),
            ServeError::Transport(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for ServeError {
    fn from(e: std::io::Error) -> Self {
        ServeError::Io(e)
    }
}

/// The highest version both sides speak; without an offer, the highest served.
fn negotiate(offered: Option<&str>, served: &[u32]) -> Result<u32, ServeError> {
    let Some(offered) = offered else {
        return served
            .iter()
            .copied()
            .max()
            .ok_or(ServeError::NoCommonProtocol {
                offered: String::new(),
            });
    };
    offered
        .split(',')
        .filter_map(|v| v.trim().parse::<u32>().ok())
        .filter(|v| served.contains(v))
        .max()
        .ok_or_else(|| ServeError::NoCommonProtocol {
            offered: offered.to_owned(),
        })
}

fn env_port(key: &str, default: u16) -> u16 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Binds 127.0.0.1 on a free port within `min..=max`, starting at a point that depends on
/// the process id so that providers started together do not race for the same port.
async fn bind(min: u16, max: u16) -> Result<TcpListener, ServeError> {
    let (min, max) = if min <= max { (min, max) } else { (max, min) };
    let span = u32::from(max - min) + 1;
    let start = std::process::id() % span;
    let mut last = None;
    for i in 0..span {
        let port = min as u32 + (start + i) % span;
        let port = u16::try_from(port).unwrap_or(max);
        match TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
    }
    Err(ServeError::Io(last.unwrap_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::AddrInUse, "no port in range")
    })))
}

/// A connection the server accepted: TLS or plain, with the deadline for its HTTP/2
/// start (the client's preface and its first SETTINGS frame) until that has arrived
/// whole. A client that sends a byte and then nothing is closed at the deadline too.
struct Conn {
    stream: Stream,
    start: Option<Start>,
}

/// What a connection has sent of its HTTP/2 start, and its deadline.
struct Start {
    deadline: Pin<Box<tokio::time::Sleep>>,
    /// Bytes read so far.
    read: usize,
    /// The 9 bytes of the SETTINGS frame header that follows the preface.
    header: [u8; 9],
}

/// The client connection preface of HTTP/2 (RFC 9113, 3.4), then a SETTINGS frame.
const PREFACE_LEN: usize = 24;
const FRAME_HEADER_LEN: usize = 9;

impl Start {
    /// Takes note of `bytes`, the next ones read; true once the preface and the whole
    /// first frame have arrived.
    fn arrived(&mut self, bytes: &[u8]) -> bool {
        // The part of `bytes` that falls within the frame header, copied at once.
        let end = self.read + bytes.len();
        let from = self.read.max(PREFACE_LEN);
        let to = end.min(PREFACE_LEN + FRAME_HEADER_LEN);
        if from < to {
            self.header[from - PREFACE_LEN..to - PREFACE_LEN]
                .copy_from_slice(&bytes[from - self.read..to - self.read]);
        }
        self.read = end;
        if self.read < PREFACE_LEN + FRAME_HEADER_LEN {
            return false;
        }
        let [a, b, c, ..] = self.header;
        let length = (usize::from(a) << 16) | (usize::from(b) << 8) | usize::from(c);
        self.read >= PREFACE_LEN + FRAME_HEADER_LEN + length
    }
}

enum Stream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

impl Conn {
    fn new(stream: Stream, timeout: Duration) -> Conn {
        Conn {
            stream,
            start: Some(Start {
                deadline: Box::pin(tokio::time::sleep(timeout)),
                read: 0,
                header: [0; 9],
            }),
        }
    }
}

impl tonic::transport::server::Connected for Conn {
    type ConnectInfo = ();
    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = match &mut this.stream {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_read(cx, buf),
        };
        if let Some(start) = &mut this.start {
            if matches!(r, Poll::Ready(Ok(()))) && start.arrived(&buf.filled()[before..]) {
                this.start = None;
            } else if start.deadline.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the connection did not start HTTP/2 in time",
                )));
            }
        }
        r
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match &mut self.get_mut().stream {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_write(cx, buf),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.get_mut().stream {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s).poll_flush(cx),
        }
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.get_mut().stream {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// Accepts connections, doing the TLS handshake when `tls` is set; a failed handshake
/// (such as a client with the wrong certificate), or one that does not finish within
/// `timeout`, drops that connection only.
fn incoming(
    listener: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    timeout: Duration,
) -> ReceiverStream<std::io::Result<Conn>> {
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tokio::spawn(async move {
        let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
        loop {
            let (tcp, _) = match listener.accept().await {
                Ok(c) => c,
                Err(e) => {
                    say(format_args!("tfvalue-plugin: accept failed: {e}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = tcp.set_nodelay(true);
            if tx.is_closed() {
                break;
            }
            let tx = tx.clone();
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let stream = match acceptor {
                    None => Stream::Plain(tcp),
                    Some(a) => match tokio::time::timeout(timeout, a.accept(tcp)).await {
                        Ok(Ok(s)) => Stream::Tls(Box::new(s)),
                        Ok(Err(e)) => {
                            say(format_args!("tfvalue-plugin: TLS handshake refused: {e}"));
                            return;
                        }
                        Err(_) => {
                            say(format_args!(
                                "tfvalue-plugin: a connection did not finish TLS in time"
                            ));
                            return;
                        }
                    },
                };
                let _ = tx.send(Ok(Conn::new(stream, timeout))).await;
            });
        }
    });
    ReceiverStream::new(rx)
}

/// What a running server needs to be reached, for tests and for [`serve`]. Dropping it
/// ends the server (as `Shutdown` does).
pub(crate) struct Listening {
    pub(crate) addr: SocketAddr,
    /// The calls of each protocol major the server has answered.
    pub(crate) calls: Arc<Calls>,
    pub(crate) cert_der: Option<Vec<u8>>,
    pub(crate) shutdown: watch::Sender<bool>,
    /// The server's outcome, once it has ended.
    pub(crate) done: tokio::sync::oneshot::Receiver<Result<(), ServeError>>,
    /// The server's own runtime, on its own thread.
    server: tokio::runtime::Handle,
    stop_and_drain: StopAndDrain,
    _end: EndOnDrop,
}

/// How many calls of each protocol major a server has had (the testing module checks
/// that Terraform attached to an in-process provider over the version asked for).
#[derive(Default, Debug)]
pub(crate) struct Calls {
    pub(crate) v5: std::sync::atomic::AtomicUsize,
    pub(crate) v6: std::sync::atomic::AtomicUsize,
}

impl Calls {
    fn count(&self, path: &str) {
        use std::sync::atomic::Ordering::Relaxed;
        if path.starts_with("/tfplugin5.") {
            self.v5.fetch_add(1, Relaxed);
        } else if path.starts_with("/tfplugin6.") {
            self.v6.fetch_add(1, Relaxed);
        }
    }
}

/// Ends the server when the [`Listening`] holding it is dropped.
struct EndOnDrop(watch::Sender<bool>);

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        self.0.send_replace(true);
    }
}

/// Starts serving `provider` on `listener` (TLS pinned to `client_pem` when given) and
/// returns at once.
///
/// The server (connections, TLS, HTTP/2, the health and controller services, the stop
/// signal) runs on a thread and runtime of its own, and every handler of the provider
/// on a thread of its own from the blocking pool of the runtime `start` is called on.
/// So a handler that blocks (a synchronous API client, a file on a hung network
/// filesystem) holds up its own request only: `StopProvider`, `Shutdown`, health checks,
/// new connections and the other handlers go on.
fn start_erased(
    provider: Erased,
    listener: TcpListener,
    client_pem: Option<&str>,
    limits: Limits,
) -> Result<Listening, ServeError> {
    // Served by the server's own runtime, which must drive its readiness.
    start_std(provider, listener.into_std()?, client_pem, limits)
}

/// Serves `provider` inside this process, on a free port of 127.0.0.1 and without TLS,
/// for a Terraform that attaches to it through `TF_REATTACH_PROVIDERS` (the testing
/// module's in-process providers). It needs no runtime of the caller's: the server has
/// its own thread, and ends when the [`Listening`] is dropped.
pub(crate) fn start_local<P: Provider>(provider: P) -> Result<Listening, ServeError> {
    start_local_erased(Erased::new(provider))
}

fn start_local_erased(provider: Erased) -> Result<Listening, ServeError> {
    let listener = std::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    listener.set_nonblocking(true)?;
    start_std(provider, listener, None, Limits::default())
}

/// [`start_erased`] for any provider (the server's tests).
#[cfg(test)]
pub(crate) fn start<P: Provider>(
    provider: P,
    listener: TcpListener,
    client_pem: Option<&str>,
    limits: Limits,
) -> Result<Listening, ServeError> {
    start_erased(Erased::new(provider), listener, client_pem, limits)
}

/// [`start_erased`] on a listener in non-blocking mode.
fn start_std(
    provider: Erased,
    listener: std::net::TcpListener,
    client_pem: Option<&str>,
    limits: Limits,
) -> Result<Listening, ServeError> {
    let addr = listener.local_addr()?;
    let (cert_der, tls) = match client_pem {
        Some(pem) => {
            let (der, config) = tls::server_config(pem).map_err(ServeError::Tls)?;
            (Some(der), Some(Arc::new(config)))
        }
        None => (None, None),
    };
    let core = Arc::new(Core::new(provider).with_max_message(limits.max_message));
    let (shutdown, shutdown_rx) = watch::channel(false);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let server = runtime.handle().clone();
    let controller_shutdown = shutdown.clone();
    let service = Arc::new(service::Service { core: core.clone() });
    let calls = Arc::new(Calls::default());
    let count_calls = calls.clone();
    let serving = async move {
        let listener = TcpListener::from_std(listener)?;
        let (health, health_service) = tonic_health::server::health_reporter();
        let router = tonic::transport::Server::builder()
            .layer(tower::util::MapRequestLayer::new(
                move |req: tonic::codegen::http::Request<tonic::body::Body>| {
                    count_calls.count(req.uri().path());
                    req
                },
            ))
            .layer(tower::util::MapResponseLayer::new(
                resource_exhausted as fn(HttpResponse) -> HttpResponse,
            ))
            // A peer that stops answering pings is gone (a killed Terraform whose socket
            // was not closed); an idle one that answers is kept.
            .http2_keepalive_interval(Some(Duration::from_secs(30)))
            .http2_keepalive_timeout(Some(Duration::from_secs(20)))
            .add_service(health_service)
            .add_service(router::ProviderV5::new(service.clone(), limits.max_message))
            .add_service(router::ProviderV6::new(service, limits.max_message))
            .add_service(
                crate::proto::plugin::grpc_controller_server::GrpcControllerServer::new(
                    goplugin::Controller {
                        shutdown: controller_shutdown,
                    },
                ),
            )
            .add_service(
                crate::proto::plugin::grpc_stdio_server::GrpcStdioServer::new(goplugin::Stdio {
                    shutdown: shutdown_rx.clone(),
                }),
            );
        let conns = incoming(listener, tls, limits.connect_timeout);
        health
            .set_service_status("plugin", tonic_health::ServingStatus::Serving)
            .await;
        let mut rx = shutdown_rx;
        let stopped = async move {
            let _ = rx.wait_for(|s| *s).await;
            // Let the Shutdown answer reach the client before connections close.
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        // Graceful shutdown would wait for Terraform to hang up the stdio stream; the
        // host expects the process to end, so stop at once.
        tokio::select! {
            r = router.serve_with_incoming(conns) => r.map_err(ServeError::Transport),
            () = stopped => Ok(()),
        }
    };
    let (done_tx, done) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("tfvalue-plugin-server".into())
        .spawn(move || {
            let result = runtime.block_on(serving);
            let _ = done_tx.send(result);
            // The runtime ends here, and with it every connection and task it served.
        })?;
    let stopper = core;
    let stop_and_drain: StopAndDrain = Arc::new(move |limit| {
        let core = stopper.clone();
        Box::pin(async move { core.stop_and_drain(limit).await })
    });
    Ok(Listening {
        addr,
        calls,
        cert_der,
        _end: EndOnDrop(shutdown.clone()),
        shutdown,
        done,
        server,
        stop_and_drain,
    })
}

type HttpResponse = tonic::codegen::http::Response<tonic::body::Body>;

/// A message over the size limit is `RESOURCE_EXHAUSTED`, as grpc-go (Terraform's client,
/// Go providers) answers it and as clients look for; tonic says `OUT_OF_RANGE`, the only
/// status it makes with that code (this server's handlers answer with diagnostics, never
/// with a status).
fn resource_exhausted(mut resp: HttpResponse) -> HttpResponse {
    use tonic::codegen::http::HeaderValue;
    let headers = resp.headers_mut();
    if headers.get("grpc-status").is_some_and(|s| s == "11") {
        headers.insert("grpc-status", HeaderValue::from_static("8"));
    }
    resp
}

/// Fires the stop signal of the requests in flight and waits (at most the given time)
/// for their handlers to end.
type StopAndDrain =
    Arc<dyn Fn(Duration) -> Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send + Sync>;

/// Ends serving when the process that started the provider is gone without calling
/// `Shutdown` (Terraform killed, its pipes closed): the provider would otherwise live on
/// as an orphan, as go-plugin servers do (they wait for `Shutdown` alone). The parent's
/// death shows as a change of parent process id, checked once a second (more often costs
/// an idle provider measurable CPU: five checks a second cost about 0.4 ms of CPU per
/// second). The requests in flight see their context stopped and get up to 10 seconds
/// to end. It runs on the server's own runtime, so handlers that block do not hold it
/// up, and it writes through [`say`], which cannot fail on the dead parent's pipe.
#[cfg(unix)]
fn watch_parent(running: &Listening) {
    let parent = std::os::unix::process::parent_id();
    let shutdown = running.shutdown.clone();
    let stop_and_drain = running.stop_and_drain.clone();
    running.server.spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(1000)).await;
            if std::os::unix::process::parent_id() != parent {
                say(format_args!(
                    "tfvalue-plugin: the process that started this provider is gone; stopping"
                ));
                stop_and_drain(Duration::from_secs(10)).await;
                shutdown.send_replace(true);
                return;
            }
        }
    });
}

#[cfg(not(unix))]
fn watch_parent(_: &Listening) {}

/// Ignores SIGINT, as go-plugin hosts expect: Terraform forwards Ctrl-C as
/// `StopProvider`, and ends the plugin with `Shutdown`.
fn ignore_sigint(running: &Listening) {
    #[cfg(unix)]
    {
        let _guard = running.server.enter();
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut s) = signal(SignalKind::interrupt()) {
            running
                .server
                .spawn(async move { while s.recv().await.is_some() {} });
        }
    }
    #[cfg(not(unix))]
    let _ = running;
}

/// Serves `provider` as Terraform expects: checks the magic cookie, negotiates the
/// protocol version, listens on 127.0.0.1 within `PLUGIN_MIN_PORT..=PLUGIN_MAX_PORT`,
/// sets up AutoMTLS when `PLUGIN_CLIENT_CERT` is set (plaintext otherwise), prints the
/// handshake line and serves until Terraform calls `Shutdown`.
///
/// In debug mode ([`ServeConfig::debug`]) it needs no cookie, prints the
/// `TF_REATTACH_PROVIDERS` line to use in another shell and serves until Ctrl-C.
///
/// # Errors
///
/// See [`ServeError`]; the usual one is [`ServeError::NotLaunchedByTerraform`], whose
/// message is meant for a person who ran the binary by hand. [`serve_main`] prints it and
/// exits with status 1.
pub async fn serve<P: Provider>(provider: P, config: ServeConfig) -> Result<(), ServeError> {
    serve_erased(Erased::new(provider), config).await
}

/// [`serve`], compiled once: boxed, so that no state machine of the server's is a type
/// of the provider's crate.
fn serve_erased(
    provider: Erased,
    config: ServeConfig,
) -> Pin<Box<dyn Future<Output = Result<(), ServeError>> + Send>> {
    Box::pin(serve_inner(provider, config))
}

async fn serve_inner(provider: Erased, config: ServeConfig) -> Result<(), ServeError> {
    if config.debug {
        return serve_debug(provider, config).await;
    }
    if std::env::var(MAGIC_COOKIE_KEY).ok().as_deref() != Some(MAGIC_COOKIE_VALUE) {
        return Err(ServeError::NotLaunchedByTerraform);
    }
    let version = negotiate(
        std::env::var("PLUGIN_PROTOCOL_VERSIONS").ok().as_deref(),
        &config.versions,
    )?;
    let listener = bind(
        env_port("PLUGIN_MIN_PORT", 10000),
        env_port("PLUGIN_MAX_PORT", 25000),
    )
    .await?;
    let client_pem = std::env::var("PLUGIN_CLIENT_CERT")
        .ok()
        .filter(|s| !s.trim().is_empty());
    let running = start_erased(provider, listener, client_pem.as_deref(), config.limits)?;
    ignore_sigint(&running);
    watch_parent(&running);
    let mut line = format!("1|{version}|tcp|{}|grpc", running.addr);
    if let Some(der) = &running.cert_der {
        line.push('|');
        line.push_str(&base64::engine::general_purpose::STANDARD_NO_PAD.encode(der));
    }
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{line}")?;
        out.flush()?;
    }
    match running.done.await {
        Ok(r) => r,
        Err(_) => Err(ServeError::Io(std::io::Error::other(
            "the server's thread ended without an outcome",
        ))),
    }
}

async fn serve_debug(provider: Erased, config: ServeConfig) -> Result<(), ServeError> {
    let version = config.versions.iter().copied().max().unwrap_or(6);
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
    let running = start_erased(provider, listener, None, config.limits)?;
    let reattach = serde_json::json!({
        config.address.clone(): {
            "Protocol": "grpc",
            "ProtocolVersion": version,
            "Pid": std::process::id(),
            "Test": true,
            "Addr": {"Network": "tcp", "String": running.addr.to_string()},
        }
    });
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "Provider started. To attach Terraform, set in another shell:\n\n\tTF_REATTACH_PROVIDERS='{reattach}'\n"
        );
        let _ = out.flush();
    }
    let shutdown = running.shutdown.clone();
    tokio::select! {
        r = running.done => r.unwrap_or(Ok(())),
        _ = tokio::signal::ctrl_c() => {
            shutdown.send_replace(true);
            Ok(())
        }
    }
}

/// [`serve`] for `main`: runs a Tokio runtime, serves, and on error prints the message to
/// stderr and exits with status 1. With `--debug` among the arguments it serves in debug
/// mode.
///
/// ```no_run
/// # struct MyProvider;
/// # impl tfvalue_plugin::Provider for MyProvider {
/// #     fn schemas(&self) -> tfvalue_plugin::Schemas { tfvalue_plugin::Schemas::new() }
/// # }
/// fn main() {
///     tfvalue_plugin::serve_main(MyProvider, tfvalue_plugin::ServeConfig::new("example.com/acme/thing"));
/// }
/// ```
pub fn serve_main<P: Provider>(provider: P, config: ServeConfig) {
    serve_main_erased(Erased::new(provider), config);
}

/// [`serve_main`], compiled once.
fn serve_main_erased(provider: Erased, config: ServeConfig) {
    let debug = std::env::args().any(|a| a == "--debug");
    let config = if debug { config.debug(true) } else { config };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            say(format_args!(
                "tfvalue-plugin: cannot start the runtime: {e}"
            ));
            std::process::exit(1);
        }
    };
    let result = runtime.block_on(serve_erased(provider, config));
    // Do not wait for the stdio stream or other tasks: the host expects the process to end.
    runtime.shutdown_timeout(Duration::from_millis(100));
    if let Err(e) = result {
        say(format_args!("{e}"));
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start of HTTP/2 has arrived exactly when its last byte has, however the
    /// reads split it (the frame header's length may straddle two reads).
    #[tokio::test]
    async fn the_http2_start_arrives_with_its_last_byte() {
        let mut start = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        start.extend_from_slice(b"\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64");
        for chunk in [1, 5, 7, 24, 25, 33, start.len()] {
            let mut s = Start {
                deadline: Box::pin(tokio::time::sleep(Duration::from_secs(10))),
                read: 0,
                header: [0; 9],
            };
            let pieces: Vec<&[u8]> = start.chunks(chunk).collect();
            let (last, before) = pieces.split_last().unwrap();
            for p in before {
                assert!(!s.arrived(p), "chunks of {chunk}: arrived early");
            }
            assert!(s.arrived(last), "chunks of {chunk}: never arrived");
            assert_eq!(&s.header[..3], b"\x00\x00\x06");
        }
    }

    #[test]
    fn negotiation_picks_the_highest_common_version() {
        assert_eq!(negotiate(Some("5,6"), &[5, 6]).unwrap(), 6);
        assert_eq!(negotiate(Some("5,6"), &[5]).unwrap(), 5);
        assert_eq!(negotiate(Some("4, 5"), &[5, 6]).unwrap(), 5);
        assert_eq!(negotiate(None, &[5, 6]).unwrap(), 6);
        assert!(matches!(
            negotiate(Some("4"), &[5, 6]),
            Err(ServeError::NoCommonProtocol { .. })
        ));
    }
}
