//! The server through a real gRPC client: decode checks, panics, stop, the apply check,
//! schemas a protocol cannot carry, health, Shutdown and mutual TLS.

use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use tfvalue::schema::{Attribute, Block, NestedType, Schema};
use tfvalue::{DynamicValue, Type, Unknown};
use tokio::net::TcpListener;
use tonic::transport::{Channel, Endpoint};

use super::{start, Listening};
use crate::proto::{plugin as gp, tfplugin5 as pb5, tfplugin6 as pb6};
use crate::*;

struct Test;

/// How many objects `test_slow` applies have created, across the process's tests.
static CREATED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// Opens the gate that `test_blocking` reads block their threads on.
static GATE_OPEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// How many `test_slow` applies have started, across the process's tests.
static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// The names of the objects `test_slow` applies have created.
static CREATED_NAMES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

#[derive(serde::Serialize)]
struct Thing {
    name: String,
    ip: Unknown<Option<String>>,
}

fn block() -> Block {
    Block::new()
        .attribute("name", Attribute::required(Type::String))
        .attribute("ip", Attribute::computed(Type::String))
}

impl Provider for Test {
    fn schemas(&self) -> Schemas {
        Schemas::new()
            .resource("test_thing", Schema::new(0, block()))
            .resource(
                "test_checked",
                Schema::new(
                    0,
                    Block::new()
                        .attribute(
                            "level",
                            Attribute::required(Type::String)
                                .validator(tfvalue::schema::Validator::one_of(["read", "write"])),
                        )
                        .attribute("id", Attribute::computed(Type::String)),
                ),
            )
            .resource("test_slow", Schema::new(0, block()))
            .resource("test_blocking", Schema::new(0, block()))
            .resource(
                "test_nested",
                Schema::new(
                    0,
                    Block::new().attribute(
                        "rules",
                        Attribute::nested(
                            NestedType::set().attribute("port", Attribute::required(Type::Number)),
                        )
                        .set_optional(),
                    ),
                ),
            )
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let thing = Thing {
            name: "a".into(),
            ip: Unknown::unknown().not_null().with_prefix("10.0."),
        };
        let mut resp = PlanResourceChangeResponse::new(DynamicValue::encode(&thing).unwrap());
        resp.planned_private = b"mine".to_vec();
        let _ = req;
        resp
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        if req.type_name == "test_slow" {
            // Slow work that creates an object whatever happens meanwhile, and says
            // whether the request was stopped while it ran.
            STARTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::select! {
                () = req.ctx.stopped() => {}
                () = tokio::time::sleep(Duration::from_secs(2)) => {}
            }
            let n = CREATED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let config: serde_json::Value = req.config.decode().unwrap();
            let name = config["name"].as_str().unwrap().to_owned();
            CREATED_NAMES.lock().unwrap().push(name.clone());
            let how = if req.ctx.is_stopped() {
                "stopped"
            } else {
                "running"
            };
            let thing = Thing {
                name,
                ip: Unknown::Known(Some(format!("{how} {n}"))),
            };
            return ApplyResourceChangeResponse::new(DynamicValue::encode(&thing).unwrap());
        }
        if req.type_name == "test_checked" {
            return Diagnostic::error("the store refused the value").into();
        }
        assert_eq!(
            req.planned_private, b"mine",
            "the provider sees its own private data"
        );
        let config: serde_json::Value = req.config.decode().unwrap();
        if config["name"] == "panic" {
            panic!("boom in apply");
        }
        if config["name"] == "later" {
            // A handler that waits first runs on a task of its own from then on.
            tokio::task::yield_now().await;
            panic!("boom after a wait");
        }
        let thing = Thing {
            name: "a".into(),
            ip: Unknown::Known(Some("192.168.1.1".into())),
        };
        ApplyResourceChangeResponse::new(DynamicValue::encode(&thing).unwrap())
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        if req.type_name == "test_blocking" {
            // Blocking code, as a synchronous API client or a stalled file would block:
            // the thread waits until the test opens the gate.
            while !GATE_OPEN.load(std::sync::atomic::Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(10));
            }
            return ReadResourceResponse::new(req.current_state, req.private);
        }
        // Work that only ends when the request is stopped.
        req.ctx.stopped().await;
        Diagnostic::error("stopped before the read finished").into()
    }

    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Vec<Diagnostic> {
        // Reached only when the schema's own checks pass.
        if req.type_name != "test_checked" {
            return Vec::new();
        }
        vec![Diagnostic::warning(format!("validated {}", req.type_name))]
    }
}

/// Waits until `done` holds, polling; fails after 20 s (a loaded machine is slow, not
/// that slow).
async fn until(done: impl Fn() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "waited 20 s in vain"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn serve_plain() -> (Listening, Channel) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Test, listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    (running, channel)
}

fn dv(bytes: &[u8]) -> Option<pb6::DynamicValue> {
    Some(pb6::DynamicValue {
        msgpack: bytes.to_vec().into(),
        json: Default::default(),
    })
}

fn path_names(p: &Option<pb6::AttributePath>) -> Vec<String> {
    use pb6::attribute_path::step::Selector;
    p.iter()
        .flat_map(|p| &p.steps)
        .map(|s| match &s.selector {
            Some(Selector::AttributeName(n)) => n.clone(),
            Some(Selector::ElementKeyString(k)) => format!("[{k:?}]"),
            Some(Selector::ElementKeyInt(i)) => format!("[{i}]"),
            None => "?".into(),
        })
        .collect()
}

const NULL: &[u8] = b"\xc0";

#[tokio::test]
async fn a_malformed_value_is_an_error_at_its_attribute() {
    let (_running, channel) = serve_plain().await;
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let resp = client
        .plan_resource_change(pb6::plan_resource_change::Request {
            type_name: "test_thing".into(),
            prior_state: dv(NULL),
            // `name` is a number, not a string.
            proposed_new_state: dv(b"\x82\xa2ip\xc0\xa4name\x05"),
            config: dv(b"\x82\xa2ip\xc0\xa4name\x05"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    let d = &resp.diagnostics[0];
    assert_eq!(d.severity, pb6::diagnostic::Severity::Error as i32);
    assert!(d.summary.contains("proposed_new_state"), "{}", d.summary);
    assert_eq!(path_names(&d.attribute), ["name"]);

    // Truncated bytes are an error too, and an unknown type name is named.
    let resp = client
        .validate_resource_config(pb6::validate_resource_config::Request {
            type_name: "test_thing".into(),
            config: dv(b"\x82\xa2ip"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1);
    let resp = client
        .validate_resource_config(pb6::validate_resource_config::Request {
            type_name: "test_nope".into(),
            config: dv(NULL),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics[0].detail.contains("`test_nope`"));
}

#[tokio::test]
async fn a_malformed_stored_state_is_an_error_at_its_attribute() {
    let (_running, channel) = serve_plain().await;
    let mut client = pb6::provider_client::ProviderClient::new(channel)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20);
    let upgrade = |json: &[u8]| pb6::upgrade_resource_state::Request {
        type_name: "test_thing".into(),
        version: 0,
        raw_state: Some(pb6::RawState {
            json: json.to_vec(),
            flatmap: Default::default(),
        }),
    };
    let resp = client
        .upgrade_resource_state(upgrade(br#"{"name":{"a":1},"ip":null}"#))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    assert_eq!(path_names(&resp.diagnostics[0].attribute), ["name"]);
    assert!(resp.upgraded_state.is_none());
    // A good one passes through (the default upgrade at the current version).
    let resp = client
        .upgrade_resource_state(upgrade(br#"{"name":"a","ip":"10.0.0.1"}"#))
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(
        resp.upgraded_state.unwrap().msgpack.to_vec(),
        b"\x82\xa2ip\xa810.0.0.1\xa4name\xa1a"
    );
    // A large message is accepted (tonic's default limit is 4 MiB).
    let big = format!(r#"{{"name":"{}","ip":null}}"#, "x".repeat(5 << 20));
    let resp = client
        .upgrade_resource_state(upgrade(big.as_bytes()))
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty());
}

/// The apply that creates a `test_thing` named `name` (a name of 31 bytes at most), its
/// `ip` planned unknown.
fn thing_create(name: &str) -> pb6::apply_resource_change::Request {
    let name = [&[0xa0 | name.len() as u8][..], name.as_bytes()].concat();
    pb6::apply_resource_change::Request {
        type_name: "test_thing".into(),
        prior_state: dv(NULL),
        planned_state: dv(&[&b"\x82\xa2ip\xd4\x00\x00\xa4name"[..], &name].concat()),
        config: dv(&[&b"\x82\xa2ip\xc0\xa4name"[..], &name].concat()),
        planned_private: b"mine".to_vec(),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_panic_is_an_error_and_the_server_keeps_serving() {
    let (_running, channel) = serve_plain().await;
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let resp = client
        .apply_resource_change(thing_create("panic"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics[0].summary, "the provider panicked");
    assert!(resp.diagnostics[0].detail.contains("boom in apply"));
    let resp = client
        .apply_resource_change(thing_create("later"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics[0].summary, "the provider panicked");
    assert!(resp.diagnostics[0].detail.contains("boom after a wait"));
    let schema = client
        .get_provider_schema(pb6::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(schema.resource_schemas.len(), 5);
}

#[tokio::test]
async fn apply_is_checked_against_the_refinements_of_the_plan() {
    let (_running, channel) = serve_plain().await;
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let config = b"\x82\xa2ip\xc0\xa4name\xa1a";
    let plan = client
        .plan_resource_change(pb6::plan_resource_change::Request {
            type_name: "test_thing".into(),
            prior_state: dv(NULL),
            proposed_new_state: dv(config),
            config: dv(config),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    // What Terraform before 1.6 sends back: the unknown without its refinements.
    let resp = client
        .apply_resource_change(pb6::apply_resource_change::Request {
            type_name: "test_thing".into(),
            prior_state: dv(NULL),
            planned_state: dv(b"\x82\xa2ip\xd4\x00\x00\xa4name\xa1a"),
            config: dv(config),
            planned_private: plan.planned_private,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    let d = &resp.diagnostics[0];
    assert_eq!(
        d.summary,
        "Provider produced inconsistent result after apply"
    );
    assert!(
        d.detail
            .contains(r#"does not start with the refined prefix "10.0.""#),
        "{}",
        d.detail
    );
    assert_eq!(path_names(&d.attribute), ["ip"]);
}

#[tokio::test]
async fn stop_reaches_work_in_flight_through_its_context() {
    let (_running, channel) = serve_plain().await;
    let mut reader = pb6::provider_client::ProviderClient::new(channel.clone());
    let read = tokio::spawn(async move {
        reader
            .read_resource(pb6::read_resource::Request {
                type_name: "test_thing".into(),
                current_state: dv(b"\x82\xa2ip\xa11\xa4name\xa1a"),
                ..Default::default()
            })
            .await
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!read.is_finished());
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let stop = client
        .stop_provider(pb6::stop_provider::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(stop.error, "");
    let resp = tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .unwrap()
        .unwrap()
        .unwrap()
        .into_inner();
    // The handler's own answer, not one the server made up.
    assert_eq!(
        resp.diagnostics[0].summary,
        "stopped before the read finished"
    );
}

fn slow_apply() -> pb6::apply_resource_change::Request {
    let config = b"\x82\xa2ip\xc0\xa4name\xa1a";
    pb6::apply_resource_change::Request {
        type_name: "test_slow".into(),
        prior_state: dv(NULL),
        planned_state: dv(b"\x82\xa2ip\xd4\x00\x00\xa4name\xa1a"),
        config: dv(config),
        ..Default::default()
    }
}

/// The names the slow applies answered with (`stopped` or `running`), or their errors.
async fn slow_applies(channel: &Channel, n: usize) -> Vec<tokio::task::JoinHandle<String>> {
    (0..n)
        .map(|_| {
            let mut c = pb6::provider_client::ProviderClient::new(channel.clone());
            tokio::spawn(async move {
                let resp = c
                    .apply_resource_change(slow_apply())
                    .await
                    .unwrap()
                    .into_inner();
                if !resp.diagnostics.is_empty() {
                    return format!("error: {:?}", resp.diagnostics);
                }
                let state: serde_json::Value = DynamicValue {
                    msgpack: resp.new_state.unwrap().msgpack.to_vec(),
                    json: Vec::new(),
                }
                .decode()
                .unwrap();
                let ip = state["ip"].as_str().unwrap();
                ip.split(' ').next().unwrap().to_owned()
            })
        })
        .collect()
}

/// StopProvider is not a coin toss: every request in flight is served to its end (and
/// sees its context stopped), so every apply that created an object reports it; the
/// requests after it start afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_is_deterministic() {
    use std::sync::atomic::Ordering;
    let (_running, channel) = serve_plain().await;
    let before = CREATED.load(Ordering::SeqCst);
    let started = STARTED.load(Ordering::SeqCst);
    let applies = slow_applies(&channel, 100).await;
    // Once all 100 run (however loaded the machine), not after a fixed time.
    until(|| STARTED.load(Ordering::SeqCst) - started >= 100).await;
    let mut client = pb6::provider_client::ProviderClient::new(channel.clone());
    client
        .stop_provider(pb6::stop_provider::Request {})
        .await
        .unwrap();
    let mut answers = Vec::new();
    for a in applies {
        answers.push(a.await.unwrap());
    }
    assert!(answers.iter().all(|a| a == "stopped"), "{answers:?}");
    assert_eq!(CREATED.load(Ordering::SeqCst) - before, 100);

    // After the stop: 200 requests, every one served, none sees a stopped context.
    let after = slow_applies(&channel, 200).await;
    let mut answers = Vec::new();
    for a in after {
        answers.push(a.await.unwrap());
    }
    assert!(answers.iter().all(|a| a == "running"), "{answers:?}");
}

/// Handlers that block their threads (more of them than the runtime has workers) hold
/// up nothing but themselves: StopProvider answers within a second, and health checks,
/// a new connection, GetProviderSchema and other handlers are served meanwhile. Before
/// the server had a thread of its own and ran each handler on a thread of its own, the
/// first blocked handler froze the connection, and with it every call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocked_handlers_hold_up_nothing_else() {
    use std::sync::atomic::Ordering;
    /// Opens the gate however the test ends, so that no thread stays blocked.
    struct OpenOnDrop;
    impl Drop for OpenOnDrop {
        fn drop(&mut self) {
            GATE_OPEN.store(true, Ordering::SeqCst);
        }
    }
    let _open = OpenOnDrop;
    let (running, channel) = serve_plain().await;
    let state = b"\x82\xa2ip\xa11\xa4name\xa1b";
    let blocked: Vec<_> = (0..8)
        .map(|_| {
            let mut c = pb6::provider_client::ProviderClient::new(channel.clone());
            tokio::spawn(async move {
                c.read_resource(pb6::read_resource::Request {
                    type_name: "test_blocking".into(),
                    current_state: dv(state),
                    ..Default::default()
                })
                .await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(blocked.iter().all(|b| !b.is_finished()));
    let second = Duration::from_secs(1);
    let mut client = pb6::provider_client::ProviderClient::new(channel.clone());
    let stop = tokio::time::timeout(second, client.stop_provider(pb6::stop_provider::Request {}))
        .await
        .expect("StopProvider answered within 1 s")
        .unwrap();
    assert_eq!(stop.into_inner().error, "");
    assert!(tokio::time::timeout(second, health_check(channel.clone()))
        .await
        .expect("a health check answered within 1 s")
        .is_ok());
    let fresh = tokio::time::timeout(
        second,
        Endpoint::from_shared(format!("http://{}", running.addr))
            .unwrap()
            .connect(),
    )
    .await
    .expect("a new connection within 1 s")
    .unwrap();
    let mut fresh = pb6::provider_client::ProviderClient::new(fresh);
    let schema = tokio::time::timeout(
        second,
        fresh.get_provider_schema(pb6::get_provider_schema::Request::default()),
    )
    .await
    .expect("GetProviderSchema answered within 1 s")
    .unwrap()
    .into_inner();
    assert!(schema.resource_schemas.contains_key("test_blocking"));
    let applied = tokio::time::timeout(second, fresh.apply_resource_change(thing_create("a")))
        .await
        .expect("another handler served within 1 s")
        .unwrap()
        .into_inner();
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    GATE_OPEN.store(true, Ordering::SeqCst);
    for b in blocked {
        let resp = tokio::time::timeout(Duration::from_secs(5), b)
            .await
            .expect("a blocked read ends once unblocked")
            .unwrap()
            .unwrap()
            .into_inner();
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        assert_eq!(resp.new_state.unwrap().msgpack.to_vec(), state);
    }
}

/// A request whose client goes away still runs to its end, with its context stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_whose_client_leaves_runs_to_its_end() {
    let (_running, channel) = serve_plain().await;
    let mut c = pb6::provider_client::ProviderClient::new(channel.clone());
    let mut req = slow_apply();
    let obj = b"\x82\xa2ip\xd4\x00\x00\xa4name\xa6leaver".to_vec();
    req.planned_state = dv(&obj);
    req.config = dv(b"\x82\xa2ip\xc0\xa4name\xa6leaver");
    let started = STARTED.load(std::sync::atomic::Ordering::SeqCst);
    let call = tokio::spawn(async move { c.apply_resource_change(req).await });
    until(|| STARTED.load(std::sync::atomic::Ordering::SeqCst) > started).await;
    call.abort();
    until(|| CREATED_NAMES.lock().unwrap().iter().any(|n| n == "leaver")).await;
}

/// What Terraform never sends is refused before the handler runs, naming the RPC and
/// the field: an empty value (null is nil), unknowns in stored state or in an apply's
/// configuration, and a provider_meta the provider has no schema for.
#[tokio::test]
async fn inputs_terraform_never_sends_are_refused() {
    let (_running, channel) = serve_plain().await;
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    // A name of its own: other tests create `test_slow` objects at the same time.
    let known = b"\x82\xa2ip\xa11\xa4name\xa5never";
    let unknown_name = b"\x82\xa2ip\xa11\xa4name\xd4\x00\x00";
    let apply = |prior: &[u8], planned: Option<pb6::DynamicValue>, config: &[u8]| {
        pb6::apply_resource_change::Request {
            type_name: "test_slow".into(),
            prior_state: dv(prior),
            planned_state: planned,
            config: dv(config),
            ..Default::default()
        }
    };
    let cases = [
        (
            apply(NULL, Some(pb6::DynamicValue::default()), known),
            "ApplyResourceChange: `planned_state` is empty",
            vec![],
        ),
        (
            apply(NULL, None, known),
            "ApplyResourceChange: `planned_state` is empty",
            vec![],
        ),
        (
            apply(unknown_name, dv(known), known),
            "ApplyResourceChange: `prior_state` holds an unknown value",
            vec!["name"],
        ),
        (
            apply(NULL, dv(known), unknown_name),
            "ApplyResourceChange: `config` holds an unknown value",
            vec!["name"],
        ),
    ];
    for (req, summary, path) in cases {
        let resp = client
            .apply_resource_change(req)
            .await
            .unwrap()
            .into_inner();
        assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
        assert_eq!(resp.diagnostics[0].summary, summary);
        assert_eq!(path_names(&resp.diagnostics[0].attribute), path);
    }
    assert!(
        !CREATED_NAMES.lock().unwrap().iter().any(|n| n == "never"),
        "a handler ran"
    );

    // Also with the same bytes in every field (checked once, as the strictest field
    // wants).
    for rest in [&known[..], &unknown_name[..]] {
        let resp = client
            .plan_resource_change(pb6::plan_resource_change::Request {
                type_name: "test_thing".into(),
                prior_state: dv(unknown_name),
                proposed_new_state: dv(rest),
                config: dv(rest),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            resp.diagnostics[0].summary,
            "PlanResourceChange: `prior_state` holds an unknown value"
        );
    }
    let resp = client
        .read_resource(pb6::read_resource::Request {
            type_name: "test_thing".into(),
            current_state: dv(unknown_name),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        resp.diagnostics[0].summary,
        "ReadResource: `current_state` holds an unknown value"
    );
    let resp = client
        .read_resource(pb6::read_resource::Request {
            type_name: "test_thing".into(),
            current_state: None,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        resp.diagnostics[0].summary,
        "ReadResource: `current_state` is empty"
    );
    let resp = client
        .read_resource(pb6::read_resource::Request {
            type_name: "test_thing".into(),
            current_state: dv(known),
            provider_meta: dv(b"\x81\xa1a\xa1b"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        resp.diagnostics[0].summary,
        "ReadResource: unexpected `provider_meta`"
    );
    let resp = client
        .validate_resource_config(pb6::validate_resource_config::Request {
            type_name: "test_thing".into(),
            config: None,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        resp.diagnostics[0].summary,
        "ValidateResourceConfig: `config` is empty"
    );
}

/// The schema's own validators run in the server, before the provider's handler.
#[tokio::test]
async fn the_schema_validators_run_before_the_handler() {
    let (_running, channel) = serve_plain().await;
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let validate = |config: &[u8]| pb6::validate_resource_config::Request {
        type_name: "test_checked".into(),
        config: dv(config),
        ..Default::default()
    };
    let resp = client
        .validate_resource_config(validate(b"\x82\xa2id\xc0\xa5level\xa5admin"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    assert_eq!(path_names(&resp.diagnostics[0].attribute), ["level"]);
    assert_eq!(
        resp.diagnostics[0].severity,
        pb6::diagnostic::Severity::Error as i32
    );
    // A computed-only attribute set in the configuration.
    let resp = client
        .validate_resource_config(validate(b"\x82\xa2id\xa1x\xa5level\xa4read"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(path_names(&resp.diagnostics[0].attribute), ["id"]);
    // A good one reaches the handler; an unknown one is not judged yet.
    for config in [
        &b"\x82\xa2id\xc0\xa5level\xa4read"[..],
        b"\x82\xa2id\xc0\xa5level\xd4\x00\x00",
    ] {
        let resp = client
            .validate_resource_config(validate(config))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
        assert_eq!(resp.diagnostics[0].summary, "validated test_checked");
    }
}

/// A failed apply that returns no state leaves the prior state: Terraform reads an empty
/// new state as null and would forget the object.
#[tokio::test]
async fn a_failed_apply_keeps_the_prior_state() {
    let (_running, channel) = serve_plain().await;
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let prior = b"\x82\xa2id\xa11\xa5level\xa4read";
    let resp = client
        .apply_resource_change(pb6::apply_resource_change::Request {
            type_name: "test_checked".into(),
            prior_state: dv(prior),
            planned_state: dv(b"\x82\xa2id\xa11\xa5level\xa5write"),
            config: dv(b"\x82\xa2id\xc0\xa5level\xa5write"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics[0].summary, "the store refused the value");
    assert_eq!(resp.new_state.unwrap().msgpack.to_vec(), prior);
}

#[tokio::test]
async fn protocol_5_refuses_nested_attributes_at_get_schema() {
    let (_running, channel) = serve_plain().await;
    let mut v5 = pb5::provider_client::ProviderClient::new(channel.clone());
    let resp = v5
        .get_schema(pb5::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(resp.resource_schemas.contains_key("test_thing"));
    assert!(!resp.resource_schemas.contains_key("test_nested"));
    assert_eq!(resp.diagnostics.len(), 1);
    assert!(resp.diagnostics[0].summary.contains("test_nested"));
    assert!(
        resp.diagnostics[0].detail.contains("`rules`"),
        "{}",
        resp.diagnostics[0].detail
    );
    // Protocol 6 carries it.
    let mut v6 = pb6::provider_client::ProviderClient::new(channel);
    let resp = v6
        .get_provider_schema(pb6::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty());
    assert!(resp.resource_schemas["test_nested"]
        .block
        .as_ref()
        .unwrap()
        .attributes[0]
        .nested_type
        .is_some());
}

#[tokio::test]
async fn health_is_serving_and_shutdown_ends_the_server() {
    let (running, channel) = serve_plain().await;
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let status = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "plugin".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        status.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
    // The stdio stream stays open until shutdown; Shutdown answers and the server ends.
    let mut stdio = gp::grpc_stdio_client::GrpcStdioClient::new(channel.clone());
    let mut stream = stdio.stream_stdio(()).await.unwrap().into_inner();
    let mut controller = gp::grpc_controller_client::GrpcControllerClient::new(channel);
    controller.shutdown(gp::Empty {}).await.unwrap();
    let done = tokio::time::timeout(Duration::from_secs(5), running.done).await;
    assert!(matches!(done, Ok(Ok(Ok(())))), "{done:?}");
    let _ = stream.message().await;
}

/// Pins the server certificate, as go-plugin's client does.
#[derive(Debug)]
struct PinnedServer(Vec<u8>);

impl ServerCertVerifier for PinnedServer {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.0 {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General("not the pinned certificate".into()))
        }
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let p = rustls::crypto::ring::default_provider();
        rustls::crypto::verify_tls12_signature(m, c, d, &p.signature_verification_algorithms)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let p = rustls::crypto::ring::default_provider();
        rustls::crypto::verify_tls13_signature(m, c, d, &p.signature_verification_algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        rustls::crypto::ring::default_provider()
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// A client certificate like go-plugin's: self-signed ECDSA P-521 with SHA-512, a CA.
/// A P-521 client certificate of `testdata/` (see its README): its PEM, its DER and its
/// signing key.
fn client_cert(name: &str) -> (String, CertificateDer<'static>, Arc<P521Key>) {
    use p521::pkcs8::DecodePrivateKey;
    use rustls::pki_types::pem::PemObject;
    let (cert, key) = match name {
        "client" => (
            include_str!("testdata/client.cert.pem"),
            include_str!("testdata/client.pk8.pem"),
        ),
        _ => (
            include_str!("testdata/other.cert.pem"),
            include_str!("testdata/other.pk8.pem"),
        ),
    };
    let der = CertificateDer::from_pem_slice(cert.as_bytes()).unwrap();
    let key = rustls::pki_types::PrivatePkcs8KeyDer::from_pem_slice(key.as_bytes()).unwrap();
    let secret = p521::SecretKey::from_pkcs8_der(key.secret_pkcs8_der()).unwrap();
    let key = p521::ecdsa::SigningKey::from_bytes(&secret.to_bytes()).unwrap();
    (cert.to_owned(), der, Arc::new(P521Key(key)))
}

/// A P-521 key signing TLS handshakes with SHA-512, as go-plugin's client does (ring
/// cannot).
struct P521Key(p521::ecdsa::SigningKey);

impl std::fmt::Debug for P521Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("P521Key")
    }
}

impl rustls::sign::SigningKey for P521Key {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn rustls::sign::Signer>> {
        offered
            .contains(&SignatureScheme::ECDSA_NISTP521_SHA512)
            .then(|| Box::new(P521Signer(self.0.clone())) as Box<dyn rustls::sign::Signer>)
    }
    fn algorithm(&self) -> rustls::SignatureAlgorithm {
        rustls::SignatureAlgorithm::ECDSA
    }
}

struct P521Signer(p521::ecdsa::SigningKey);

impl std::fmt::Debug for P521Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("P521Signer")
    }
}

impl rustls::sign::Signer for P521Signer {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rustls::Error> {
        use p521::ecdsa::signature::Signer;
        let sig: p521::ecdsa::Signature = self.0.sign(message);
        Ok(sig.to_der().as_bytes().to_vec())
    }
    fn scheme(&self) -> SignatureScheme {
        SignatureScheme::ECDSA_NISTP521_SHA512
    }
}

#[derive(Debug)]
struct ClientCert(Arc<rustls::sign::CertifiedKey>);

impl rustls::client::ResolvesClientCert for ClientCert {
    fn resolve(
        &self,
        _: &[&[u8]],
        _: &[SignatureScheme],
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        Some(self.0.clone())
    }
    fn has_certs(&self) -> bool {
        true
    }
}

async fn tls_channel(
    addr: std::net::SocketAddr,
    server_der: Vec<u8>,
    cert: CertificateDer<'static>,
    key: Arc<P521Key>,
) -> Result<Channel, tonic::transport::Error> {
    let certified = rustls::sign::CertifiedKey::new(vec![cert], key);
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .dangerous()
    .with_custom_certificate_verifier(Arc::new(PinnedServer(server_der)))
    .with_client_cert_resolver(Arc::new(ClientCert(Arc::new(certified))));
    config.alpn_protocols = vec![b"h2".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    Endpoint::from_static("http://localhost")
        .connect_with_connector(tower::service_fn(move |_| {
            let connector = connector.clone();
            async move {
                let tcp = tokio::net::TcpStream::connect(addr).await?;
                let name = ServerName::try_from("localhost").unwrap();
                let tls = connector.connect(name, tcp).await?;
                Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(tls))
            }
        }))
        .await
}

async fn health_check(channel: Channel) -> Result<i32, tonic::Status> {
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    Ok(health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "plugin".into(),
        })
        .await?
        .into_inner()
        .status)
}

#[tokio::test]
async fn mutual_tls_accepts_only_the_pinned_p521_client_certificate() {
    let (pem, cert, key) = client_cert("client");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Test, listener, Some(&pem), super::Limits::default()).unwrap();
    let server_der = running.cert_der.clone().unwrap();

    let channel = tls_channel(running.addr, server_der.clone(), cert, key)
        .await
        .unwrap();
    assert_eq!(
        health_check(channel).await.unwrap(),
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );

    // Another certificate, of the same kind, is refused.
    let (_, other_cert, other_key) = client_cert("other");
    let refused = match tls_channel(running.addr, server_der, other_cert, other_key).await {
        Err(_) => true,
        Ok(channel) => health_check(channel).await.is_err(),
    };
    assert!(
        refused,
        "a connection with another client certificate was served"
    );
}

#[tokio::test]
async fn optional_services_answer_with_empty_results_or_errors() {
    let (_running, channel) = serve_plain().await;
    let mut v5 = pb5::provider_client::ProviderClient::new(channel.clone());
    let functions = v5
        .get_functions(pb5::get_functions::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(functions.functions.is_empty() && functions.diagnostics.is_empty());
    let call = v5
        .call_function(pb5::call_function::Request {
            name: "nope".into(),
            arguments: Vec::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(call.error.unwrap().text.contains("`nope`"));
    let mut v6 = pb6::provider_client::ProviderClient::new(channel);
    let ids = v6
        .get_resource_identity_schemas(pb6::get_resource_identity_schemas::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(ids.identity_schemas.is_empty());
    let open = v6
        .open_ephemeral_resource(pb6::open_ephemeral_resource::Request {
            type_name: "test_secret".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        open.diagnostics[0].severity,
        pb6::diagnostic::Severity::Error as i32
    );
    let metadata = v6
        .get_metadata(pb6::get_metadata::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(metadata.resources.len(), 5);
}

#[tokio::test]
async fn protocol_5_prepares_the_config_and_reads_flatmap_state() {
    let (_running, channel) = serve_plain().await;
    let mut v5 = pb5::provider_client::ProviderClient::new(channel);
    let prepared = v5
        .prepare_provider_config(pb5::prepare_provider_config::Request {
            config: Some(pb5::DynamicValue {
                msgpack: b"\x80".to_vec().into(),
                json: Default::default(),
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        prepared.diagnostics.is_empty(),
        "{:?}",
        prepared.diagnostics
    );
    assert_eq!(prepared.prepared_config.unwrap().msgpack.to_vec(), b"\x80");

    // A flatmap state at the current version passes through the default upgrade.
    let resp = v5
        .upgrade_resource_state(pb5::upgrade_resource_state::Request {
            type_name: "test_thing".into(),
            version: 0,
            raw_state: Some(pb5::RawState {
                json: Vec::new(),
                flatmap: [
                    ("name".to_owned(), "a".to_owned()),
                    ("id".to_owned(), "x".to_owned()),
                ]
                .into_iter()
                .collect(),
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(
        resp.upgraded_state.unwrap().msgpack.to_vec(),
        b"\x82\xa2ip\xc0\xa4name\xa1a"
    );

    // An unknown in configuration is not malformed.
    let resp = v5
        .validate_resource_type_config(pb5::validate_resource_type_config::Request {
            type_name: "test_thing".into(),
            config: Some(pb5::DynamicValue {
                msgpack: b"\x82\xa2ip\xc0\xa4name\xd4\x00\x00".to_vec().into(),
                json: Default::default(),
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
}

/// A connection that never speaks (or never starts TLS) is closed after the connection
/// timeout; one that speaks is served.
/// Whether the server closes `conn` within 5 s (it may speak first, HTTP/2 settings;
/// closed is an end of stream or a reset).
async fn closed_within_5_s(conn: &mut tokio::net::TcpStream) -> bool {
    use tokio::io::AsyncReadExt;
    tokio::time::timeout(Duration::from_secs(5), async {
        let mut buf = [0u8; 256];
        loop {
            match conn.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .is_ok()
}

#[tokio::test]
async fn silent_connections_are_closed() {
    let limits = super::Limits {
        connect_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let (pem, _, _) = client_cert("client");
    for tls in [false, true] {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let running = start(Test, listener, tls.then_some(pem.as_str()), limits).unwrap();
        let mut silent = tokio::net::TcpStream::connect(running.addr).await.unwrap();
        // The server may speak first (HTTP/2 settings); it then closes: end of stream,
        // or a reset.
        assert!(
            closed_within_5_s(&mut silent).await,
            "tls {tls}: the silent connection is still open"
        );
    }
    // A client that sends part of its HTTP/2 start and then nothing is closed too (the
    // deadline once ended at the first byte): one byte, the preface alone, the preface
    // and half a SETTINGS frame.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Test, listener, None, limits).unwrap();
    let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    let settings = b"\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64";
    let partial: [Vec<u8>; 3] = [
        b"P".to_vec(),
        preface.to_vec(),
        [&preface[..], &settings[..12]].concat(),
    ];
    for sent in partial {
        use tokio::io::AsyncWriteExt;
        let mut stalled = tokio::net::TcpStream::connect(running.addr).await.unwrap();
        stalled.write_all(&sent).await.unwrap();
        assert!(
            closed_within_5_s(&mut stalled).await,
            "a connection that sent {} bytes of its start is still open",
            sent.len()
        );
    }
    // A client that speaks at once is served, whatever the timeout.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Test, listener, None, limits).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(health_check(channel).await.is_ok());
}

/// A message over the configured limit is refused before it is read into memory.
#[tokio::test]
async fn messages_over_the_limit_are_refused() {
    let limits = super::Limits {
        max_message: 1 << 20,
        ..Default::default()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Test, listener, None, limits).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let big = |n: usize| pb6::upgrade_resource_state::Request {
        type_name: "test_thing".into(),
        version: 0,
        raw_state: Some(pb6::RawState {
            json: format!(r#"{{"name":"{}","ip":null}}"#, "x".repeat(n)).into_bytes(),
            flatmap: Default::default(),
        }),
    };
    let status = client
        .upgrade_resource_state(big(2 << 20))
        .await
        .unwrap_err();
    // RESOURCE_EXHAUSTED, as grpc-go answers it (tonic itself says OUT_OF_RANGE).
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status}");
    // Under the limit, served.
    let resp = client
        .upgrade_resource_state(big(100 << 10))
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
}

/// The example provider `thing` (or another) in a process of its own (so that its peak
/// memory is its own), with a protocol 6 client to it.
#[cfg(target_os = "linux")]
pub(super) struct Child {
    process: std::process::Child,
    pub(super) client: pb6::provider_client::ProviderClient<Channel>,
    channel: Channel,
}

#[cfg(target_os = "linux")]
impl Child {
    async fn start(ports: &str) -> Child {
        Child::start_example("thing", ports).await
    }

    /// The example `name` started as Terraform starts a provider, on a port of `ports`.
    pub(super) async fn start_example(name: &str, ports: &str) -> Child {
        Child::start_example_with(name, ports, &[]).await
    }

    /// [`Child::start_example`] with more environment variables.
    pub(super) async fn start_example_with(
        name: &str,
        ports: &str,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Child {
        use std::io::BufRead;
        let thing = crate::testing::ProviderBinary::example(name)
            .build()
            .unwrap_or_else(|e| panic!("building the example provider: {e}"));
        let (min, max) = ports.split_once('-').unwrap();
        let mut process = std::process::Command::new(thing)
            .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
            .env("PLUGIN_PROTOCOL_VERSIONS", "6")
            .env("PLUGIN_MIN_PORT", min)
            .env("PLUGIN_MAX_PORT", max)
            .env_remove("PLUGIN_CLIENT_CERT")
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(process.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line.split('|').nth(3).unwrap().to_owned();
        let channel = Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let client = pb6::provider_client::ProviderClient::new(channel.clone())
            .max_decoding_message_size(usize::MAX)
            .max_encoding_message_size(usize::MAX);
        Child {
            process,
            client,
            channel,
        }
    }

    /// `CallFunction` with a request given as its bytes.
    async fn call_function(
        &self,
        call: Encoded,
    ) -> Result<pb6::call_function::Response, tonic::Status> {
        let mut grpc = tonic::client::Grpc::new(self.channel.clone())
            .max_decoding_message_size(usize::MAX)
            .max_encoding_message_size(usize::MAX);
        grpc.ready()
            .await
            .map_err(|e| tonic::Status::unavailable(e.to_string()))?;
        let path = tonic::codegen::http::uri::PathAndQuery::from_static(
            "/tfplugin6.Provider/CallFunction",
        );
        let codec = tonic_prost::ProstCodec::<Encoded, pb6::call_function::Response>::default();
        grpc.unary(tonic::Request::new(call), path, codec)
            .await
            .map(tonic::Response::into_inner)
    }

    /// The process's peak resident memory so far, in bytes.
    pub(super) fn peak(&self) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.process.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kib * 1024
    }

    /// A small upgrade first: what the process holds anyway. Returns the peak after it.
    async fn warm_up(&mut self) -> u64 {
        let resp = self
            .client
            .upgrade_resource_state(volume_upgrade("srv-1"))
            .await
            .unwrap()
            .into_inner();
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        self.peak()
    }
}

#[cfg(target_os = "linux")]
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// An upgrade of a `thing_volume` JSON state at version 0.
#[cfg(target_os = "linux")]
fn volume_upgrade(server_id: &str) -> pb6::upgrade_resource_state::Request {
    pb6::upgrade_resource_state::Request {
        type_name: "thing_volume".into(),
        version: 0,
        raw_state: Some(pb6::RawState {
            json: format!(r#"{{"id":"vol-1","server_id":"{server_id}","size_gb":5}}"#).into_bytes(),
            flatmap: Default::default(),
        }),
    }
}

/// A `thing_server` as MessagePack, with these `tags` and `metadata` (dynamic), its
/// computed attributes null (a configuration, as Terraform sends it).
#[cfg(target_os = "linux")]
fn thing_server(tags: rmpv::Value, metadata: rmpv::Value) -> Vec<u8> {
    use rmpv::Value as V;
    let s = |x: &str| V::String(x.into());
    let disk = V::Map(vec![(s("kind"), s("ssd")), (s("size_gb"), V::from(10))]);
    let server = V::Map(vec![
        (s("disk"), V::Array(vec![disk])),
        (s("endpoints"), V::Nil),
        (s("id"), V::Nil),
        (s("ip_address"), V::Nil),
        (s("metadata"), metadata),
        (s("name"), s("big")),
        (s("size"), V::from(1)),
        (s("tags"), tags),
    ]);
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, &server).unwrap();
    out
}

/// The plan of a `thing_server`'s create, as Terraform asks for it: no prior state, the
/// configuration proposed as it is.
#[cfg(target_os = "linux")]
fn create_plan(config: &[u8]) -> pb6::plan_resource_change::Request {
    pb6::plan_resource_change::Request {
        type_name: "thing_server".into(),
        prior_state: dv(NULL),
        proposed_new_state: dv(config),
        config: dv(config),
        ..Default::default()
    }
}

/// The configuration of a `thing_server` with `n` tags (about 43 bytes each on the
/// wire).
#[cfg(target_os = "linux")]
fn server_config(n: usize) -> Vec<u8> {
    use rmpv::Value as V;
    let s = |x: String| V::String(x.into());
    let tags = (0..n)
        .map(|i| (s(format!("tag-{i:08}")), s(format!("value of tag {i:016}"))))
        .collect();
    thing_server(V::Map(tags), V::Nil)
}

/// A large structured plan (the framework's path for a create: planned over the
/// request's bytes, the model decoded from the plan and encoded) keeps the process's
/// peak within 4.5 times the request after each of five plans, and the fifth does not
/// raise it by more than a fourteenth over the third: memory freed by one request is
/// used by the next. (Measured, 2026-12-07: 3.07x-3.11x after the first, 3.57x-3.61x
/// after the second, 4.10x-4.11x after the third and fourth: glibc's, shown by the
/// second child, which runs with glibc's threshold for large blocks fixed and one arena
/// (3.04x flat). Each thread's arena keeps its own high-water mark (the second plan),
/// and the threshold for giving large blocks back to the system rises with the largest
/// block freed, so from the third plan buffers the first gave back stay in the heap. Before the
/// request's values were taken from tonic's buffer without a copy and the plan kept for
/// apply was cut to its refinements, 4.57x-4.61x after each; before the answer's buffer
/// was sized once (`budget::Encoder`), 5.07x and 5.07x-5.60x; before the plan kept for
/// apply was digested as its bytes stream by (`msgpack::without_refinements`), 6.22x
/// after the first and after four; before the create was planned over the bytes, 6.9x
/// and 7.6x; before the configuration's value was freed as soon as the plan was made,
/// 6.9x and 9.4x.)
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_plans_stay_within_bounds_and_do_not_pile_up() {
    use prost::Message;
    let config = server_config(200_000);
    let req = create_plan(&config);
    let size = req.encoded_len();
    let grown = peak_growth_of_plans(Child::start("25000-25499").await, &req, 5).await;
    for (i, g) in grown.iter().enumerate() {
        assert!(
            *g <= 9 * size as u64 / 2,
            "{} plans of {size} bytes grew the peak by {} MiB",
            i + 1,
            g >> 20
        );
    }
    assert!(
        grown[4] <= grown[2] + grown[2] / 14,
        "five plans grew the peak by {} MiB, three by {} MiB",
        grown[4] >> 20,
        grown[2] >> 20
    );
    // What the growth after the first plan is: glibc's, as the plugin README says. With
    // its threshold for large blocks fixed (not raised by the blocks freed) and one arena
    // for every thread, the peak is the first plan's, flat. (Measured 2026-12-07:
    // 3.04x after each of five; with the threshold fixed alone 3.08x, then 3.58x-3.62x.)
    #[cfg(target_env = "gnu")]
    {
        let tunables = std::ffi::OsStr::new(GLIBC_FLAT);
        let child =
            Child::start_example_with("thing", "26750-26999", &[("GLIBC_TUNABLES", tunables)])
                .await;
        let flat = peak_growth_of_plans(child, &req, 3).await;
        assert!(
            flat[0] <= 7 * size as u64 / 2 && flat[2] <= flat[0] + flat[0] / 50,
            "with {GLIBC_FLAT}, three plans of {size} bytes grew the peak by {:?} MiB",
            flat.iter().map(|g| g >> 20).collect::<Vec<_>>()
        );
    }
}

/// The glibc setting the plugin README gives for a process's peak that stays the first
/// request's.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const GLIBC_FLAT: &str = "glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=1";

/// The growth of `child`'s peak (VmHWM) after each of `n` plans of `req`, printed as
/// multiples of the request's size.
#[cfg(target_os = "linux")]
async fn peak_growth_of_plans(
    mut child: Child,
    req: &pb6::plan_resource_change::Request,
    n: usize,
) -> Vec<u64> {
    use prost::Message;
    let size = req.encoded_len();
    let before = child.warm_up().await;
    let mut grown = Vec::new();
    for i in 0..n {
        if i > 0 {
            // The client has the answer before the server has dropped what served it (the
            // answer's buffer after its last frame): without a pause the next request can
            // arrive while those are still held, and its peak measures the overlap (seen
            // once, under the whole test suite's load, as 3.54x instead of 3.04x on the
            // third plan), not what the server keeps from one request to the next.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let resp = child
            .client
            .plan_resource_change(req.clone())
            .await
            .unwrap()
            .into_inner();
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        let config = req.config.as_ref().map_or(0, |c| c.msgpack.len());
        assert!(resp.planned_state.unwrap().msgpack.len() > config);
        grown.push(child.peak().saturating_sub(before));
    }
    let ratios: Vec<String> = grown
        .iter()
        .map(|g| format!("{:.2}x", *g as f64 / size as f64))
        .collect();
    println!("plans of {size} bytes: peak growth after each {ratios:?}");
    grown
}

/// The apply of a large plan (a create of 200,000 tags), in a fresh process, as Terraform
/// before 1.6 sends it (every unknown plain: the server puts the refinements it kept back
/// to check the new state against) and as later ones do (the plan as it was made): the
/// process's peak grows by at most 4.5 times the request. Of that, the example's own store
/// takes its part: the model written as JSON into its records, and the records written to
/// its file. (Measured 2026-12-07: 4.18x and 4.19x; 4.73x and 4.72x before the framework
/// handed the planned bytes back to the server, which had kept a copy of them (or the
/// plan rebuilt from its kept refinements) beside the handler to check the new state
/// against; 5.19x and 4.68x before the server checked the apply against the kept plan
/// instead of a copy of the planned state beside it, and the framework let the planned
/// bytes go once decoded and the configuration once the handler had run.)
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_applies_stay_within_bounds() {
    use prost::Message;
    let dir = std::env::temp_dir().join(format!("tfvalue-large-apply-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db.json");
    let config = server_config(200_000);
    let mut planner =
        Child::start_example_with("thing", "26000-26249", &[("THING_DB", db.as_os_str())]).await;
    let plan = planner
        .client
        .plan_resource_change(create_plan(&config))
        .await
        .unwrap()
        .into_inner();
    drop(planner);
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    // What the server keeps for apply is the plan's refinements, not a copy of the plan.
    assert!(
        plan.planned_private.starts_with(b"tfvalue-plugin/plan/3\n")
            && plan.planned_private.len() < 1024,
        "{} bytes of private data",
        plan.planned_private.len()
    );
    let planned = plan.planned_state.unwrap().msgpack;
    let plain = super::kept_plan::made_plain(&planned).unwrap();
    assert_ne!(plain, planned, "the plan has refined unknowns");
    let mut ratios = Vec::new();
    for (i, (echoed, ports)) in [(&plain[..], "26250-26499"), (&planned[..], "26500-26749")]
        .into_iter()
        .enumerate()
    {
        let _ = std::fs::remove_file(&db);
        let mut child =
            Child::start_example_with("thing", ports, &[("THING_DB", db.as_os_str())]).await;
        let before = child.warm_up().await;
        let req = pb6::apply_resource_change::Request {
            type_name: "thing_server".into(),
            prior_state: dv(NULL),
            planned_state: dv(echoed),
            config: dv(&config),
            planned_private: plan.planned_private.clone(),
            ..Default::default()
        };
        let size = req.encoded_len();
        let resp = child
            .client
            .apply_resource_change(req)
            .await
            .unwrap()
            .into_inner();
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        assert!(resp.new_state.unwrap().msgpack.len() > config.len());
        let grown = child.peak().saturating_sub(before);
        let what = ["as Terraform 1.0 sends it", "with its refinements"][i];
        println!(
            "apply of {size} bytes {what}: peak growth {:.2}x",
            grown as f64 / size as f64
        );
        ratios.push((what, grown, size));
    }
    let _ = std::fs::remove_dir_all(&dir);
    for (what, grown, size) in ratios {
        assert!(
            grown <= 9 * size as u64 / 2,
            "an apply of {size} bytes {what} grew the peak by {} MiB",
            grown >> 20
        );
    }
}

/// The thing example keeps what it stores exactly: a dynamic number of 30 digits (which
/// a float would round) reads back as it was applied.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_thing_example_stores_numbers_exactly() {
    use rmpv::Value as V;
    let dir = std::env::temp_dir().join(format!("tfvalue-thing-exact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db.json");
    let mut child =
        Child::start_example_with("thing", "25500-25999", &[("THING_DB", db.as_os_str())]).await;
    let s = |x: &str| V::String(x.into());
    let digits = "123456789012345678901234567891";
    let metadata = || V::Array(vec![V::Binary(br#""number""#.to_vec()), s(digits)]);
    let config = thing_server(V::Nil, metadata());
    let plan = child
        .client
        .plan_resource_change(create_plan(&config))
        .await
        .unwrap()
        .into_inner();
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    let applied = child
        .client
        .apply_resource_change(pb6::apply_resource_change::Request {
            type_name: "thing_server".into(),
            prior_state: dv(NULL),
            planned_state: plan.planned_state,
            config: dv(&config),
            planned_private: plan.planned_private,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    let state = applied.new_state.unwrap().msgpack;
    let read = child
        .client
        .read_resource(pb6::read_resource::Request {
            type_name: "thing_server".into(),
            current_state: dv(&state),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    let read = rmpv::decode::read_value(&mut &read.new_state.unwrap().msgpack[..]).unwrap();
    let stored = read
        .as_map()
        .unwrap()
        .iter()
        .find(|(k, _)| k.as_str() == Some("metadata"))
        .map(|(_, v)| v.clone())
        .unwrap();
    drop(child);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(stored, metadata());
}

/// A `thing_server` flatmap state (version 0, Terraform before 0.12) with `tags` of `n`
/// entries: as small as entries get, `tags.<n>` = `v`.
#[cfg(target_os = "linux")]
fn flatmap_upgrade(n: u64) -> pb6::upgrade_resource_state::Request {
    let mut flatmap: std::collections::BTreeMap<String, String> = (0..n)
        .map(|i| (format!("tags.{i}"), "v".to_owned()))
        .collect();
    flatmap.insert("tags.%".into(), n.to_string());
    flatmap.insert("id".into(), "srv-1".into());
    flatmap.insert("name".into(), "ancient".into());
    pb6::upgrade_resource_state::Request {
        type_name: "thing_server".into(),
        version: 0,
        raw_state: Some(pb6::RawState {
            json: Vec::new(),
            flatmap,
        }),
    }
}

/// A call of function `f` with `n` empty arguments (2 bytes each on the wire).
#[cfg(target_os = "linux")]
fn empty_arguments(n: u64) -> Encoded {
    // `name` (1): "f"; `arguments` (2): an empty message each.
    let mut bytes = b"\x0a\x01f".to_vec();
    for _ in 0..n {
        bytes.extend_from_slice(b"\x12\x00");
    }
    Encoded(bytes)
}

/// A message as the bytes it is made of: a request of millions of elements built and
/// sent without millions of values to encode (which takes the test's client longer
/// than the server waits for an answer to its keepalive pings).
#[derive(Clone, Debug, Default, PartialEq)]
struct Encoded(Vec<u8>);

impl prost::Message for Encoded {
    fn encode_raw(&self, buf: &mut impl bytes::BufMut) {
        buf.put_slice(&self.0);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: prost::encoding::WireType,
        buf: &mut impl bytes::Buf,
        ctx: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.0.len()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

/// Asserts that serving a request of `size` bytes grew the peak by at most `2 * size +
/// slack`.
#[cfg(target_os = "linux")]
fn assert_peak(what: &str, size: usize, before: u64, after: u64, slack: u64) {
    let grown = after.saturating_sub(before);
    println!(
        "{what}: {size} bytes, peak grew by {} MiB ({:.2} x the request)",
        grown >> 20,
        grown as f64 / size as f64
    );
    assert!(
        grown <= 2 * size as u64 + slack,
        "{what}: peak memory grew by {} MiB for a request of {size} bytes",
        grown >> 20
    );
}

/// Peak memory while serving a large request stays within twice the request's size:
/// the example provider upgrades a 32 MiB state of the current version (the default
/// upgrade, which streams JSON to MessagePack).
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peak_memory_stays_within_twice_the_request() {
    let mut child = Child::start("22000-22999").await;
    let before = child.warm_up().await;
    let size = 32usize << 20;
    let resp = child
        .client
        .upgrade_resource_state(volume_upgrade(&"x".repeat(size)))
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert!(resp.upgraded_state.unwrap().msgpack.len() > size);
    assert_peak(
        "a 32 MiB structured state",
        size,
        before,
        child.peak(),
        4 << 20,
    );
}

/// Requests of millions of tiny elements (empty function arguments, flatmap entries),
/// which prost would decode into 25 and 15 times their size, are refused with
/// `RESOURCE_EXHAUSTED` before they are decoded, the peak staying within twice their
/// size (the received message itself). Each in a fresh process: a peak hides the next.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_of_millions_of_tiny_elements_are_refused_before_decoding() {
    use prost::Message;
    let mut child = Child::start("23000-23499").await;
    let before = child.warm_up().await;
    let call = empty_arguments(64 << 20);
    let size = call.encoded_len();
    let status = child.call_function(call).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status}");
    assert!(
        status.message().contains("67108864 function arguments"),
        "{status}"
    );
    assert_peak(
        "128 MiB of empty function arguments",
        size,
        before,
        child.peak(),
        4 << 20,
    );
    // The provider goes on.
    child.warm_up().await;

    let mut child = Child::start("23500-23999").await;
    let before = child.warm_up().await;
    let upgrade = flatmap_upgrade(2 << 20);
    let size = upgrade.encoded_len();
    let status = child
        .client
        .upgrade_resource_state(upgrade)
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status}");
    assert!(
        status.message().contains("2097155 flatmap entries"),
        "{status}"
    );
    assert_peak(
        "a flatmap of 2 Mi entries",
        size,
        before,
        child.peak(),
        4 << 20,
    );
}

/// The most tiny elements a request may hold are served within twice its size plus
/// 64 MiB: a flatmap state of as many entries as the budget allows, upgraded into a map
/// attribute and answered, and a call of as many empty arguments. Each in a fresh
/// process.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_most_tiny_elements_allowed_stay_within_the_promise() {
    use prost::Message;
    let mut child = Child::start("24000-24499").await;
    let before = child.warm_up().await;
    // Three more entries: `tags.%`, `id` and `name`.
    let n = super::budget::BUDGET / super::budget::FLATMAP_ENTRY_COST - 3;
    let upgrade = flatmap_upgrade(n);
    let size = upgrade.encoded_len();
    let resp = child
        .client
        .upgrade_resource_state(upgrade)
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let state = resp.upgraded_state.unwrap().msgpack;
    let state = rmpv::decode::read_value(&mut &state[..]).unwrap();
    let tags = state
        .as_map()
        .and_then(|m| m.iter().find(|(k, _)| k.as_str() == Some("tags")))
        .and_then(|(_, v)| v.as_map())
        .expect("the upgraded state's tags");
    assert_eq!(tags.len() as u64, n, "every tag upgraded");
    assert_peak(
        &format!("a flatmap of {n} entries"),
        size,
        before,
        child.peak(),
        64 << 20,
    );
    // Over the budget by one.
    let status = child
        .client
        .upgrade_resource_state(flatmap_upgrade(n + 1))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status}");

    let mut child = Child::start("24500-24999").await;
    let before = child.warm_up().await;
    let n = super::budget::BUDGET / super::budget::ARGUMENT_COST;
    let call = empty_arguments(n);
    let size = call.encoded_len();
    let resp = child.call_function(call).await.unwrap();
    assert!(resp.error.is_some(), "the example has no functions");
    assert_peak(
        &format!("a call of {n} empty arguments"),
        size,
        before,
        child.peak(),
        64 << 20,
    );
    let status = child
        .call_function(empty_arguments(n + 1))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status}");
}

/// A provider of functions only (no resources): what the server checks around them.
struct Funcs;

impl Provider for Funcs {
    fn schemas(&self) -> Schemas {
        let string = || Type::String;
        Schemas::new()
            .function(
                "upper",
                Function::new(string())
                    .summary("Upper case")
                    .parameter(Parameter::new("s", string()).description("The text.")),
            )
            .function(
                "join",
                Function::new(string())
                    .parameter(Parameter::new("sep", string()))
                    .variadic(Parameter::new("parts", string()).allow_null()),
            )
            .function(
                "echo",
                Function::new(Type::Dynamic).parameter(
                    Parameter::new("v", Type::Dynamic)
                        .allow_null()
                        .allow_unknown(),
                ),
            )
            .function("liar", Function::new(Type::Number))
            .function("boom", Function::new(string()))
            .function(
                "unknowing",
                Function::new(string()).parameter(Parameter::new("s", string())),
            )
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        let arg = |i: usize| -> Option<String> { req.arguments[i].decode().unwrap() };
        let result = match req.name.as_str() {
            "upper" => {
                let s = arg(0).unwrap();
                if s.is_empty() {
                    return FunctionError::argument(0, "must not be empty").into();
                }
                DynamicValue::encode(&s.to_uppercase()).unwrap()
            }
            "join" => {
                let parts: Vec<String> = (1..req.arguments.len()).filter_map(arg).collect();
                DynamicValue::encode(&parts.join(&arg(0).unwrap())).unwrap()
            }
            "echo" => req.arguments[0].clone(),
            "liar" => DynamicValue::encode("not a number").unwrap(),
            "boom" => panic!("boom in a function"),
            "unknowing" => DynamicValue::encode(&Unknown::<String>::unknown()).unwrap(),
            _ => unreachable!(),
        };
        CallFunctionResponse::new(result)
    }
}

async fn funcs_client() -> (Listening, pb6::provider_client::ProviderClient<Channel>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Funcs, listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    (running, pb6::provider_client::ProviderClient::new(channel))
}

fn call6(name: &str, args: &[&[u8]]) -> pb6::call_function::Request {
    pb6::call_function::Request {
        name: name.into(),
        arguments: args
            .iter()
            .map(|a| pb6::DynamicValue {
                msgpack: a.to_vec().into(),
                json: Default::default(),
            })
            .collect(),
    }
}

/// The signatures reach Terraform in GetFunctions, GetProviderSchema and GetMetadata,
/// on both protocols, with the parameters' types as type JSON.
#[tokio::test]
async fn functions_are_declared_on_both_protocols() {
    let (running, mut client) = funcs_client().await;
    let resp = client
        .get_functions(pb6::get_functions::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let upper = &resp.functions["upper"];
    assert_eq!(upper.summary, "Upper case");
    assert_eq!(upper.parameters[0].name, "s");
    assert_eq!(upper.parameters[0].r#type, br#""string""#);
    assert_eq!(upper.parameters[0].description, "The text.");
    assert!(!upper.parameters[0].allow_null_value);
    assert_eq!(upper.r#return.as_ref().unwrap().r#type, br#""string""#);
    let join = &resp.functions["join"];
    let parts = join.variadic_parameter.as_ref().unwrap();
    assert!(parts.allow_null_value && !parts.allow_unknown_values);
    assert_eq!(
        resp.functions["echo"].r#return.as_ref().unwrap().r#type,
        br#""dynamic""#
    );
    let schema = client
        .get_provider_schema(pb6::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(schema.functions.len(), 6);
    assert_eq!(schema.functions["join"], *join);
    let meta = client
        .get_metadata(pb6::get_metadata::Request {})
        .await
        .unwrap()
        .into_inner();
    let mut names: Vec<_> = meta.functions.iter().map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["boom", "echo", "join", "liar", "unknowing", "upper"]
    );

    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut v5 = pb5::provider_client::ProviderClient::new(channel);
    let resp = v5
        .get_functions(pb5::get_functions::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.functions["upper"].parameters[0].name, "s");
    let called = v5
        .call_function(pb5::call_function::Request {
            name: "upper".into(),
            arguments: vec![pb5::DynamicValue {
                msgpack: b"\xa2hi".to_vec().into(),
                json: Default::default(),
            }],
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(called.result.unwrap().msgpack.to_vec(), b"\xa2HI");
}

/// A call is answered with its result, or with a function error naming the argument;
/// the server refuses what Terraform would never send, and checks the result.
#[tokio::test]
async fn function_calls_are_checked_both_ways() {
    let (_running, mut client) = funcs_client().await;
    let mut call = async |name: &str, args: &[&[u8]]| {
        client
            .call_function(call6(name, args))
            .await
            .unwrap()
            .into_inner()
    };
    let ok = call("upper", &[b"\xa2hi"]).await;
    assert_eq!(
        (ok.result.unwrap().msgpack.to_vec(), ok.error),
        (b"\xa2HI".to_vec(), None)
    );
    // The handler's own error, at its argument.
    let e = call("upper", &[b"\xa0"]).await.error.unwrap();
    assert_eq!(
        (e.text.as_str(), e.function_argument),
        ("must not be empty", Some(0))
    );
    // Variadic: zero or more, null allowed where the parameter says so.
    let r = call("join", &[b"\xa1-", b"\xa1a", b"\xc0", b"\xa1b"]).await;
    assert_eq!(r.result.unwrap().msgpack.to_vec(), b"\xa3a-b");
    let r = call("join", &[b"\xa1-"]).await;
    assert_eq!(r.result.unwrap().msgpack.to_vec(), b"\xa0");
    // What Terraform never sends: checked before the handler.
    type Case<'a> = (&'a str, &'a [&'a [u8]], Option<i64>, &'a str);
    let cases: [Case; 6] = [
        ("upper", &[], None, "takes 1 argument, not 0"),
        (
            "upper",
            &[b"\xa1a", b"\xa1b"],
            None,
            "takes 1 argument, not 2",
        ),
        ("upper", &[b"\xc0"], Some(0), "`s` must not be null"),
        ("upper", &[b"\xd4\x00\x00"], Some(0), "`s` is unknown"),
        (
            "join",
            &[b"\xa1-", b"\x01"],
            Some(1),
            "`parts` is not of type string",
        ),
        ("nope", &[], None, "no function `nope`"),
    ];
    for (name, args, at, text) in cases {
        let r = call(name, args).await;
        assert!(r.result.is_none(), "{name} {args:?}");
        let e = r.error.unwrap();
        assert_eq!(e.function_argument, at, "{name} {args:?}: {}", e.text);
        assert!(e.text.contains(text), "{name} {args:?}: {}", e.text);
    }
    // A dynamic parameter takes any type, unknown too, and passes it on as it came.
    let dynamic_list = b"\x92\xc4\x0f[\"list\",\"bool\"]\x91\xc3";
    let r = call("echo", &[dynamic_list]).await;
    assert_eq!(r.error, None);
    assert_eq!(r.result.unwrap().msgpack.to_vec(), dynamic_list);
    let unknown = b"\xd4\x00\x00";
    let r = call("echo", &[unknown]).await;
    assert_eq!(
        (r.result.unwrap().msgpack.to_vec(), r.error),
        (unknown.to_vec(), None)
    );
    // The result is checked: of the return type, known when every argument was.
    let e = call("liar", &[]).await.error.unwrap();
    assert!(
        e.text.contains("result of `liar` does not match"),
        "{}",
        e.text
    );
    let e = call("unknowing", &[b"\xa1a"]).await.error.unwrap();
    assert!(e.text.contains("holds an unknown value"), "{}", e.text);
    // A panic is an error, and the server goes on.
    let e = call("boom", &[]).await.error.unwrap();
    assert!(e.text.contains("boom in a function"), "{}", e.text);
    assert!(call("upper", &[b"\xa1x"]).await.error.is_none());
}

/// A signature Terraform could not call is reported, and the others are served.
#[tokio::test]
async fn a_function_with_a_bad_name_is_reported() {
    struct Bad;
    impl Provider for Bad {
        fn schemas(&self) -> Schemas {
            Schemas::new()
                .function("ok", Function::new(Type::Bool))
                .function("not.ok", Function::new(Type::Bool))
        }
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Bad, listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let resp = client
        .get_functions(pb6::get_functions::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.functions.keys().collect::<Vec<_>>(), ["ok"]);
    assert_eq!(resp.diagnostics.len(), 1);
    assert!(resp.diagnostics[0]
        .detail
        .contains("`not.ok` is not an identifier"));
    // The default handler answers a declared function it does not implement.
    let r = client
        .call_function(call6("ok", &[]))
        .await
        .unwrap()
        .into_inner();
    assert!(r
        .error
        .unwrap()
        .text
        .contains("does not implement its function `ok`"));
}

/// A schema whose own facts cannot work (a rule naming no attribute) is a warning of
/// GetProviderSchema: the author's bug, said on the first run, without breaking a
/// provider that served the schema before.
#[tokio::test]
async fn a_schema_that_cannot_work_is_reported() {
    struct Broken;
    impl Provider for Broken {
        fn schemas(&self) -> Schemas {
            let block = tfvalue::schema::Block::new()
                .attribute("name", Attribute::optional(Type::String))
                .validator(tfvalue::schema::ObjectValidator::exactly_one_of([
                    "name", "nmae",
                ]));
            Schemas::new()
                .resource("test_broken", Schema::new(0, block))
                .resource("test_fine", Schema::new(0, tfvalue::schema::Block::new()))
        }
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Broken, listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = pb6::provider_client::ProviderClient::new(channel.clone());
    let resp = client
        .get_provider_schema(pb6::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    let d = &resp.diagnostics[0];
    assert_eq!(d.severity, pb6::diagnostic::Severity::Warning as i32);
    assert_eq!(d.summary, "the schema of resource test_broken is not valid");
    assert_eq!(
        d.detail,
        "Invalid provider schema: `nmae` names no attribute or block (`nmae`)"
    );
    // Over protocol 5 as well.
    let mut client5 = pb5::provider_client::ProviderClient::new(channel);
    let resp = client5
        .get_schema(pb5::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    drop(running);
}

/// A provider whose `test_note` takes the state of `old_note` (`{"text": ..}`); from
/// `liar_note` it answers a state with an unknown in it, which no state may hold.
struct Mover;

impl Provider for Mover {
    fn schemas(&self) -> Schemas {
        Schemas::new()
            .resource("test_note", Schema::new(0, block()))
            .capabilities(ServerCapabilities::default().with_move_resource_state(true))
    }

    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        let old: serde_json::Value = serde_json::from_slice(&req.source_state.json).unwrap();
        let ip = match req.source_type_name.as_str() {
            "old_note" => Unknown::Known(Some(format!(
                "{}@{}",
                req.source_schema_version, req.source_provider_address
            ))),
            _ => Unknown::unknown(),
        };
        let thing = Thing {
            name: old["text"].as_str().unwrap().to_owned(),
            ip,
        };
        let mut resp = MoveResourceStateResponse::new(DynamicValue::encode(&thing).unwrap());
        resp.target_private = req.source_private;
        resp
    }
}

fn move6(source: &str, json: &str) -> pb6::move_resource_state::Request {
    pb6::move_resource_state::Request {
        source_provider_address: "registry.terraform.io/acme/old".into(),
        source_type_name: source.into(),
        source_schema_version: 3,
        source_state: Some(pb6::RawState {
            json: json.as_bytes().to_vec(),
            flatmap: Default::default(),
        }),
        target_type_name: "test_note".into(),
        source_private: b"p".to_vec(),
        source_identity: None,
        source_identity_schema_version: 0,
    }
}

/// `MoveResourceState` as Terraform 1.8+ calls it (after it read the capability in
/// GetProviderSchema): the moved state and private data reach Terraform, a moved state
/// that is not wholly known is refused, and a provider without moves keeps the
/// capability off and answers with an error, on both protocols.
#[tokio::test]
async fn moves_across_types_are_offered_and_checked() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Mover, listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut v6 = pb6::provider_client::ProviderClient::new(channel.clone());
    let mut v5 = pb5::provider_client::ProviderClient::new(channel);
    let caps = v6
        .get_provider_schema(pb6::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner()
        .server_capabilities
        .unwrap();
    assert!(caps.move_resource_state);
    let caps = v5
        .get_metadata(pb5::get_metadata::Request {})
        .await
        .unwrap()
        .into_inner()
        .server_capabilities
        .unwrap();
    assert!(caps.move_resource_state);

    let resp = v6
        .move_resource_state(move6("old_note", r#"{"text":"hi"}"#))
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let state: serde_json::Value = rmp_serde_value(&resp.target_state.unwrap().msgpack);
    assert_eq!(
        state,
        serde_json::json!({"name": "hi", "ip": "3@registry.terraform.io/acme/old"})
    );
    assert_eq!(resp.target_private, b"p");

    let resp = v6
        .move_resource_state(move6("liar_note", r#"{"text":"hi"}"#))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    assert!(
        resp.diagnostics[0].detail.contains("unknown"),
        "{:?}",
        resp.diagnostics[0]
    );

    let r = move6("old_note", r#"{"text":"five"}"#);
    let resp = v5
        .move_resource_state(pb5::move_resource_state::Request {
            source_provider_address: r.source_provider_address,
            source_type_name: r.source_type_name,
            source_schema_version: r.source_schema_version,
            source_state: r.source_state.map(|s| pb5::RawState {
                json: s.json,
                flatmap: s.flatmap,
            }),
            target_type_name: r.target_type_name,
            source_private: r.source_private,
            source_identity: None,
            source_identity_schema_version: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(
        rmp_serde_value(&resp.target_state.unwrap().msgpack)["name"],
        "five"
    );

    // A provider that moves nothing.
    let (_plain, channel) = serve_plain().await;
    let mut plain = pb5::provider_client::ProviderClient::new(channel);
    let caps = plain
        .get_schema(pb5::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner()
        .server_capabilities
        .unwrap();
    assert!(!caps.move_resource_state);
    let mut r = move6("old_note", "{}");
    r.target_type_name = "test_thing".into();
    let resp = pb6::provider_client::ProviderClient::new(
        Endpoint::from_shared(format!("http://{}", _plain.addr))
            .unwrap()
            .connect()
            .await
            .unwrap(),
    )
    .move_resource_state(r)
    .await
    .unwrap()
    .into_inner();
    assert_eq!(resp.diagnostics.len(), 1);
    assert!(resp.target_state.is_none_or(|s| s.msgpack.is_empty()));
}

/// A MessagePack object of strings as JSON (for assertions).
fn rmp_serde_value(msgpack: &[u8]) -> serde_json::Value {
    let ty = Type::object([("name", Type::String), ("ip", Type::String)]);
    tfvalue::Value::from_msgpack(msgpack, &ty)
        .unwrap()
        .to_json_value(&ty)
        .unwrap()
}

/// A protocol-level provider with an ephemeral `test_lease` (`name` in, `secret` out);
/// its name says what the open does: `later` defers, `liar` answers an unknown secret.
/// Its `test_thing` read defers when the name is `later`.
struct Leases;

fn lease_schema() -> Schema {
    Schema::new(
        0,
        Block::new()
            .attribute("name", Attribute::required(Type::String))
            .attribute("secret", Attribute::computed(Type::String).sensitive()),
    )
}

#[derive(serde::Serialize, serde::Deserialize)]
struct LeaseValue {
    name: Unknown<String>,
    secret: Unknown<Option<String>>,
}

impl Provider for Leases {
    fn schemas(&self) -> Schemas {
        Schemas::new()
            .resource("test_thing", Schema::new(0, block()))
            .ephemeral_resource("test_lease", lease_schema())
    }

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        let mut v: LeaseValue = req.config.decode().unwrap();
        let name = v.name.known().cloned().unwrap();
        v.secret = match name.as_str() {
            "liar" => Unknown::unknown(),
            _ => Unknown::Known(Some(format!("s-{name}"))),
        };
        let mut resp = OpenEphemeralResourceResponse::new(DynamicValue::encode(&v).unwrap());
        if name == "later" {
            resp.deferred = Some(Deferred::new(DeferredReason::ProviderConfigUnknown));
            resp.result = DynamicValue::encode(&Unknown::<()>::unknown()).unwrap();
        }
        resp.private = name.into_bytes();
        resp.renew_at = Some(std::time::UNIX_EPOCH + Duration::from_millis(1_700_000_000_250));
        resp
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse {
            private: [&req.private[..], b"+"].concat(),
            ..Default::default()
        }
    }

    async fn close_ephemeral_resource(
        &self,
        req: CloseEphemeralResourceRequest,
    ) -> Vec<Diagnostic> {
        if req.private == b"stuck" {
            return vec![Diagnostic::error("the lease would not end")];
        }
        Vec::new()
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        let mut resp = ReadResourceResponse::new(req.current_state, req.private);
        resp.deferred = Some(Deferred::new(DeferredReason::AbsentPrereq));
        resp
    }
}

fn lease6(name: &str, deferral_allowed: bool) -> pb6::open_ephemeral_resource::Request {
    let v = LeaseValue {
        name: name.to_owned().into(),
        secret: Unknown::Known(None),
    };
    pb6::open_ephemeral_resource::Request {
        type_name: "test_lease".into(),
        config: dv(&DynamicValue::encode(&v).unwrap().msgpack),
        client_capabilities: Some(pb6::ClientCapabilities {
            deferral_allowed,
            write_only_attributes_allowed: true,
        }),
    }
}

/// The calls Terraform 1.10+ makes for an `ephemeral` block (read in its
/// `internal/terraform/node_resource_ephemeral.go` and `internal/resources/ephemeral`):
/// the schema, validation (unknowns allowed), open with a wholly known configuration
/// (result, private data, renew_at as a timestamp), renew with the private data,
/// close; a result the schema refuses, an error at close; a deferral only where the
/// client allows it, on both protocols.
#[tokio::test]
async fn ephemeral_resources_as_terraform_calls_them() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Leases, listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut v6 = pb6::provider_client::ProviderClient::new(channel.clone());
    let mut v5 = pb5::provider_client::ProviderClient::new(channel);

    let schema = v6
        .get_provider_schema(pb6::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let lease = &schema.ephemeral_resource_schemas["test_lease"];
    let secret = lease
        .block
        .as_ref()
        .unwrap()
        .attributes
        .iter()
        .find(|a| a.name == "secret");
    assert!(secret.is_some_and(|a| a.computed && a.sensitive));
    let meta = v5
        .get_metadata(pb5::get_metadata::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(meta.ephemeral_resources[0].type_name, "test_lease");
    let schema5 = v5
        .get_schema(pb5::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(schema5
        .ephemeral_resource_schemas
        .contains_key("test_lease"));

    // Validation takes unknowns; a computed-only attribute set is refused.
    let unknown_name = LeaseValue {
        name: Unknown::unknown(),
        secret: Unknown::Known(None),
    };
    let resp = v6
        .validate_ephemeral_resource_config(pb6::validate_ephemeral_resource_config::Request {
            type_name: "test_lease".into(),
            config: dv(&DynamicValue::encode(&unknown_name).unwrap().msgpack),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let set_secret = LeaseValue {
        name: "a".to_owned().into(),
        secret: Unknown::Known(Some("mine".into())),
    };
    let resp = v6
        .validate_ephemeral_resource_config(pb6::validate_ephemeral_resource_config::Request {
            type_name: "test_lease".into(),
            config: dv(&DynamicValue::encode(&set_secret).unwrap().msgpack),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(path_names(&resp.diagnostics[0].attribute), ["secret"]);

    let opened = v6
        .open_ephemeral_resource(lease6("a", false))
        .await
        .unwrap()
        .into_inner();
    assert!(opened.diagnostics.is_empty(), "{:?}", opened.diagnostics);
    let ty = lease_schema().implied_type();
    let result = tfvalue::Value::from_msgpack(&opened.result.unwrap().msgpack, &ty).unwrap();
    assert_eq!(
        result.to_json_value(&ty).unwrap(),
        serde_json::json!({"name": "a", "secret": "s-a"})
    );
    assert_eq!(opened.private.as_deref(), Some(&b"a"[..]));
    let at = opened.renew_at.unwrap();
    assert_eq!((at.seconds, at.nanos), (1_700_000_000, 250_000_000));
    let renewed = v6
        .renew_ephemeral_resource(pb6::renew_ephemeral_resource::Request {
            type_name: "test_lease".into(),
            private: opened.private.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(renewed.private.as_deref(), Some(&b"a+"[..]));
    assert!(renewed.renew_at.is_none());
    let closed = v6
        .close_ephemeral_resource(pb6::close_ephemeral_resource::Request {
            type_name: "test_lease".into(),
            private: opened.private,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(closed.diagnostics.is_empty());
    let closed = v5
        .close_ephemeral_resource(pb5::close_ephemeral_resource::Request {
            type_name: "test_lease".into(),
            private: Some(b"stuck".to_vec()),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(closed.diagnostics[0].summary, "the lease would not end");

    // Terraform never opens a configuration holding unknowns; the server says so.
    let mut req = lease6("a", false);
    req.config = dv(&DynamicValue::encode(&unknown_name).unwrap().msgpack);
    let resp = v6.open_ephemeral_resource(req).await.unwrap().into_inner();
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    // A result holding an unknown is the provider's bug, named.
    let resp = v6
        .open_ephemeral_resource(lease6("liar", false))
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics[0]
        .summary
        .contains("ephemeral resource result holds an unknown"));
    // An unknown type.
    let mut req = lease6("a", false);
    req.type_name = "test_nope".into();
    let resp = v6.open_ephemeral_resource(req).await.unwrap().into_inner();
    assert_eq!(
        resp.diagnostics[0].summary,
        "unknown ephemeral resource type"
    );

    // Deferral: refused with an error naming the RPC unless allowed.
    let resp = v6
        .open_ephemeral_resource(lease6("later", false))
        .await
        .unwrap()
        .into_inner();
    assert!(resp.deferred.is_none());
    assert!(
        resp.diagnostics[0]
            .summary
            .starts_with("OpenEphemeralResource: the provider deferred"),
        "{:?}",
        resp.diagnostics[0]
    );
    let resp = v6
        .open_ephemeral_resource(lease6("later", true))
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(
        resp.deferred.unwrap().reason,
        pb6::deferred::Reason::ProviderConfigUnknown as i32
    );
    let thing = Thing {
        name: "t".into(),
        ip: Unknown::Known(Some("10.0.0.1".into())),
    };
    for deferral_allowed in [false, true] {
        let resp = v5
            .read_resource(pb5::read_resource::Request {
                type_name: "test_thing".into(),
                current_state: Some(pb5::DynamicValue {
                    msgpack: DynamicValue::encode(&thing).unwrap().msgpack.into(),
                    json: Default::default(),
                }),
                private: Vec::new(),
                provider_meta: None,
                client_capabilities: Some(pb5::ClientCapabilities {
                    deferral_allowed,
                    write_only_attributes_allowed: false,
                }),
                current_identity: None,
            })
            .await
            .unwrap()
            .into_inner();
        if deferral_allowed {
            assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
            assert_eq!(
                resp.deferred.unwrap().reason,
                pb5::deferred::Reason::AbsentPrereq as i32
            );
        } else {
            assert!(resp.deferred.is_none());
            assert!(resp.diagnostics[0].summary.starts_with("ReadResource: "));
        }
    }
}

/// A framework resource with an identity: a note named by its `name`, kept in memory.
/// Reading the note named `drift` answers another name (a provider bug the server
/// catches: the identity would change).
mod identity_provider {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use serde::{Deserialize, Serialize};
    use tfvalue::codec::Codec;
    use tfvalue::{TfValue, Unknown};

    use crate::framework::*;

    #[derive(TfValue, Serialize, Deserialize, Clone)]
    pub(super) struct Note {
        #[tfvalue(requires_replace)]
        pub(super) name: Unknown<String>,
        #[tfvalue(optional)]
        pub(super) text: Unknown<Option<String>>,
    }

    /// Version 1 of a note's identity; version 0 called it `title`.
    #[derive(TfValue, Serialize, Deserialize)]
    #[tfvalue(version = 1)]
    pub(super) struct NoteIdentity {
        /// The note's name.
        pub(super) name: String,
        #[tfvalue(optional)]
        pub(super) folder: Option<String>,
    }

    #[derive(TfValue, Serialize, Deserialize)]
    struct NoteIdentityV0 {
        title: String,
    }

    #[derive(Default)]
    pub(super) struct Notes(Mutex<BTreeMap<String, Note>>);

    impl Resource for Notes {
        type Model = Note;
        const IMPORT_ID: &'static str = "name";

        fn identity(&self) -> Option<ResourceIdentity<Note>> {
            let codec = Codec::new().upgrade_from(|old: NoteIdentityV0| NoteIdentity {
                name: old.title,
                folder: None,
            });
            let of = |n: &Note| {
                Some(NoteIdentity {
                    name: n.name.known()?.clone(),
                    folder: None,
                })
            };
            Some(ResourceIdentity::new(codec, of, |i| i.name))
        }

        async fn create(&self, _cx: &Ctx, n: Note) -> Result<Note> {
            let name = n.name.known().cloned().unwrap_or_default();
            self.0.lock().unwrap().insert(name, n.clone());
            Ok(n)
        }

        async fn read(&self, _cx: &Ctx, n: Note) -> Result<Option<Note>> {
            let name = n.name.known().cloned().unwrap_or_default();
            if name == "drift" {
                return Ok(Some(Note {
                    name: "drifted".to_owned().into(),
                    ..n
                }));
            }
            Ok(self.0.lock().unwrap().get(&name).cloned())
        }

        async fn update(&self, cx: &Ctx, _prior: Note, n: Note) -> Result<Note> {
            self.create(cx, n).await
        }

        async fn delete(&self, _cx: &Ctx, n: Note) -> Result<()> {
            let name = n.name.known().cloned().unwrap_or_default();
            self.0.lock().unwrap().remove(&name);
            Ok(())
        }

        async fn import(&self, _cx: &Ctx, name: String) -> Result<Option<Note>> {
            Ok(self.0.lock().unwrap().get(&name).cloned())
        }
    }
}

fn note(name: &str, text: &str) -> Option<pb6::DynamicValue> {
    dv(&DynamicValue::encode(&identity_provider::Note {
        name: name.to_owned().into(),
        text: Unknown::Known(Some(text.to_owned())),
    })
    .unwrap()
    .msgpack)
}

fn note_identity(name: &str) -> Option<pb6::ResourceIdentityData> {
    Some(pb6::ResourceIdentityData {
        identity_data: dv(&DynamicValue::encode(&identity_provider::NoteIdentity {
            name: name.to_owned(),
            folder: None,
        })
        .unwrap()
        .msgpack),
    })
}

/// The identity of the data a response carries, as JSON.
fn identity_json(i: Option<pb6::ResourceIdentityData>) -> serde_json::Value {
    let ty = Type::object([("name", Type::String), ("folder", Type::String)]);
    let bytes = i
        .and_then(|i| i.identity_data)
        .map(|d| d.msgpack)
        .unwrap_or_default();
    tfvalue::Value::from_msgpack(&bytes, &ty)
        .and_then(|v| v.to_json_value(&ty))
        .unwrap_or(serde_json::Value::String("no identity".into()))
}

/// Resource identity as Terraform 1.12+ calls it (read in its
/// `internal/terraform/node_resource_abstract_instance.go`, `internal/plugin6` and
/// `internal/terraform/node_resource_import.go`): the identity schemas; a create planned
/// and applied with the identity computed from the model; a refresh and an update that
/// keep it; a refresh of a state Terraform 1.11 wrote (no identity yet) that gets one;
/// an import by identity (the `id` empty); an identity stored with version 0 upgraded;
/// a read whose identity changes, refused; an identity sent for a type without one.
#[tokio::test]
async fn identities_as_terraform_calls_them() {
    let f = crate::framework::Framework::new()
        .resource("test_note", identity_provider::Notes::default())
        .resource("test_plain", identity_provider::Notes::default());
    // `test_plain` has an identity too (same resource); strip it to have one without.
    struct Plain(crate::framework::Framework);
    impl Provider for Plain {
        fn schemas(&self) -> Schemas {
            let mut s = self.0.schemas();
            s.identities.remove("test_plain");
            s
        }
        async fn plan_resource_change(
            &self,
            req: PlanResourceChangeRequest,
        ) -> PlanResourceChangeResponse {
            self.0.plan_resource_change(req).await
        }
        async fn apply_resource_change(
            &self,
            req: ApplyResourceChangeRequest,
        ) -> ApplyResourceChangeResponse {
            self.0.apply_resource_change(req).await
        }
        async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
            self.0.read_resource(req).await
        }
        async fn import_resource_state(
            &self,
            req: ImportResourceStateRequest,
        ) -> ImportResourceStateResponse {
            self.0.import_resource_state(req).await
        }
        async fn upgrade_resource_identity(
            &self,
            req: UpgradeResourceIdentityRequest,
        ) -> UpgradeResourceIdentityResponse {
            self.0.upgrade_resource_identity(req).await
        }
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Plain(f), listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut v6 = pb6::provider_client::ProviderClient::new(channel.clone());
    let mut v5 = pb5::provider_client::ProviderClient::new(channel);

    let schemas = v6
        .get_resource_identity_schemas(pb6::get_resource_identity_schemas::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(schemas.identity_schemas.len(), 1);
    let s = &schemas.identity_schemas["test_note"];
    assert_eq!(s.version, 1);
    let name = s
        .identity_attributes
        .iter()
        .find(|a| a.name == "name")
        .unwrap();
    assert!(name.required_for_import && !name.optional_for_import);
    assert_eq!(
        (name.r#type.as_slice(), name.description.as_str()),
        (&br#""string""#[..], "The note's name.")
    );
    let folder = s
        .identity_attributes
        .iter()
        .find(|a| a.name == "folder")
        .unwrap();
    assert!(folder.optional_for_import && !folder.required_for_import);

    // Create.
    let null = dv(&[0xc0]);
    let planned = v6
        .plan_resource_change(pb6::plan_resource_change::Request {
            type_name: "test_note".into(),
            prior_state: null.clone(),
            proposed_new_state: note("a", "one"),
            config: note("a", "one"),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: None,
            prior_identity: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
    assert_eq!(identity_json(planned.planned_identity.clone())["name"], "a");
    let applied = v6
        .apply_resource_change(pb6::apply_resource_change::Request {
            type_name: "test_note".into(),
            prior_state: null.clone(),
            planned_state: planned.planned_state.clone(),
            config: note("a", "one"),
            planned_private: planned.planned_private,
            provider_meta: None,
            planned_identity: planned.planned_identity,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    assert_eq!(
        identity_json(applied.new_identity.clone()),
        serde_json::json!({"name": "a", "folder": null})
    );

    // Refresh with the identity, and without (a state of Terraform 1.11).
    for current_identity in [note_identity("a"), None] {
        let read = v6
            .read_resource(pb6::read_resource::Request {
                type_name: "test_note".into(),
                current_state: applied.new_state.clone(),
                private: Vec::new(),
                provider_meta: None,
                client_capabilities: None,
                current_identity,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
        assert_eq!(identity_json(read.new_identity)["name"], "a");
    }

    // Update: the identity stays.
    let planned = v6
        .plan_resource_change(pb6::plan_resource_change::Request {
            type_name: "test_note".into(),
            prior_state: applied.new_state.clone(),
            proposed_new_state: note("a", "two"),
            config: note("a", "two"),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: None,
            prior_identity: note_identity("a"),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
    assert_eq!(identity_json(planned.planned_identity)["name"], "a");

    // A replacement (the name requires it) may change it.
    let planned = v6
        .plan_resource_change(pb6::plan_resource_change::Request {
            type_name: "test_note".into(),
            prior_state: applied.new_state.clone(),
            proposed_new_state: note("b", "one"),
            config: note("b", "one"),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: None,
            prior_identity: note_identity("a"),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
    assert_eq!(identity_json(planned.planned_identity)["name"], "b");

    // Import by identity, over protocol 5.
    let imported = v5
        .import_resource_state(pb5::import_resource_state::Request {
            type_name: "test_note".into(),
            id: String::new(),
            client_capabilities: None,
            identity: note_identity("a").map(|i| pb5::ResourceIdentityData {
                identity_data: i.identity_data.map(|d| pb5::DynamicValue {
                    msgpack: d.msgpack,
                    json: d.json,
                }),
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        imported.diagnostics.is_empty(),
        "{:?}",
        imported.diagnostics
    );
    let got = &imported.imported_resources[0];
    assert!(got.identity.is_some());
    assert_eq!(
        got.state.as_ref().unwrap().msgpack,
        applied.new_state.as_ref().unwrap().msgpack
    );

    // An identity of version 0, and one of a version this provider does not know.
    let upgrade = |version: i64, json: &str| pb6::upgrade_resource_identity::Request {
        type_name: "test_note".into(),
        version,
        raw_identity: Some(pb6::RawState {
            json: json.as_bytes().to_vec(),
            flatmap: Default::default(),
        }),
    };
    let up = v6
        .upgrade_resource_identity(upgrade(0, r#"{"title":"a"}"#))
        .await
        .unwrap()
        .into_inner();
    assert!(up.diagnostics.is_empty(), "{:?}", up.diagnostics);
    assert_eq!(
        identity_json(up.upgraded_identity),
        serde_json::json!({"name": "a", "folder": null})
    );
    let up = v6
        .upgrade_resource_identity(upgrade(7, r#"{"name":"a"}"#))
        .await
        .unwrap()
        .into_inner();
    assert!(
        up.diagnostics[0].detail.contains("newer"),
        "{:?}",
        up.diagnostics
    );

    // A read whose identity changes is the provider's bug.
    let read = v6
        .read_resource(pb6::read_resource::Request {
            type_name: "test_note".into(),
            current_state: note("drift", "x"),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: None,
            current_identity: note_identity("drift"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(read.diagnostics.len(), 1, "{:?}", read.diagnostics);
    assert_eq!(read.diagnostics[0].summary, "unexpected identity change");
    assert!(
        read.diagnostics[0].detail.contains(r#""drifted""#),
        "{:?}",
        read.diagnostics[0]
    );

    // Identities only for a type that has one, both ways.
    let read = v6
        .read_resource(pb6::read_resource::Request {
            type_name: "test_plain".into(),
            current_state: note("p", "x"),
            private: Vec::new(),
            provider_meta: None,
            client_capabilities: None,
            current_identity: note_identity("p"),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        read.diagnostics[0]
            .summary
            .contains("has no identity schema"),
        "{:?}",
        read.diagnostics
    );
    let planned = v6
        .plan_resource_change(pb6::plan_resource_change::Request {
            type_name: "test_plain".into(),
            prior_state: null,
            proposed_new_state: note("p", "x"),
            config: note("p", "x"),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: None,
            prior_identity: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        planned.diagnostics[0]
            .summary
            .contains("answered an identity"),
        "{:?}",
        planned.diagnostics
    );
}

/// What a client that calls beyond the protocol gets: `UNIMPLEMENTED` for a method the
/// service does not have (in either major), `INTERNAL` for a request that is not its
/// message, as tonic's generated servers answer (the router in `router.rs` replaced them).
#[tokio::test]
async fn unknown_methods_and_undecodable_requests_are_answered_as_tonic_does() {
    use tonic::codegen::http::uri::PathAndQuery;

    /// `ReadResource.Request` has `type_name` (a string) at 1: here a number.
    #[derive(Clone, PartialEq, prost::Message)]
    struct NotARead {
        #[prost(uint64, tag = "1")]
        type_name: u64,
    }

    let (_running, channel) = serve_plain().await;
    let call = |path: &'static str, message: NotARead| {
        let channel = channel.clone();
        async move {
            let mut grpc = tonic::client::Grpc::new(channel);
            grpc.ready().await.unwrap();
            grpc.unary(
                tonic::Request::new(message),
                PathAndQuery::from_static(path),
                tonic_prost::ProstCodec::<NotARead, pb6::read_resource::Response>::default(),
            )
            .await
        }
    };
    for path in [
        "/tfplugin6.Provider/NoSuchMethod",
        "/tfplugin5.Provider/NoSuchMethod",
        "/tfplugin6.Provider/",
        // A method of the other major.
        "/tfplugin5.Provider/GetProviderSchema",
        "/tfplugin6.Provider/GetSchema",
    ] {
        let status = call(path, NotARead::default()).await.unwrap_err();
        assert_eq!(
            status.code(),
            tonic::Code::Unimplemented,
            "{path}: {status:?}"
        );
    }
    let status = call(
        "/tfplugin6.Provider/ReadResource",
        NotARead { type_name: 7 },
    )
    .await
    .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Internal, "{status:?}");
    assert!(
        status.message().contains("ReadResource.Request") || status.message().contains("wire type"),
        "{status:?}"
    );
    // An empty message is a request with every field unset: answered, not refused.
    let answered = call("/tfplugin5.Provider/ReadResource", NotARead::default()).await;
    let diagnostics = answered.unwrap().into_inner().diagnostics;
    assert!(
        !diagnostics.is_empty(),
        "an unknown (empty) type name is a diagnostic"
    );
    // The server serves on.
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    client
        .get_provider_schema(pb6::get_provider_schema::Request {})
        .await
        .unwrap();
}
