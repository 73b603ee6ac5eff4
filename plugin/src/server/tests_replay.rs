//! The calls Terraform 1.14+ makes for what is newer than the Terraforms on these
//! machines, replayed with a gRPC client against the kv example, over protocols 5
//! and 6: `terraform query` (with `-generate-config-out`), an action invoked with
//! `terraform apply -invoke`, and `terraform plan -generate-config-out`.
//!
//! The sequences follow Terraform v1.15.9's code:
//! - query: `internal/terraform/node_resource_validate.go` (the validate walk calls
//!   `ValidateListResourceConfig`), `internal/terraform/node_resource_plan_instance_query.go`
//!   (`ValidateListResourceConfig` again, then `ListResource` with `limit`, 100 by
//!   default, and `include_resource_object`, forced on by `-generate-config-out`), the
//!   stream read in `internal/plugin6/grpc_provider.go` `ListResource` (and
//!   `internal/plugin/grpc_provider.go` for protocol 5): at most `limit` events, an
//!   error diagnostic ends the reading, an event without identity is only read for its
//!   warnings;
//! - generated configuration: `internal/terraform/node_resource_plan_instance.go`
//!   `generateResourceConfig` (`GenerateResourceConfig` when the provider's
//!   `ServerCapabilities.generate_resource_config` says so, with the imported or listed
//!   state), then the configuration it wrote is validated and planned
//!   (`ValidateResourceConfig`, `PlanResourceChange`);
//! - actions: `internal/terraform/node_action_validate.go` (`ValidateActionConfig`),
//!   `node_action_invoke.go` (`PlanAction`) and `node_action_trigger_instance_apply.go`
//!   (`InvokeAction`, its stream read to its end, `Completed` the last event).

use std::path::{Path, PathBuf};

use tfvalue::schema::Schema;
use tfvalue::{DynamicValue, Type, Value};
use tokio::net::TcpListener;
use tonic::transport::{Channel, Endpoint};

use super::{start, Listening};
use crate::proto::{tfplugin5 as pb5, tfplugin6 as pb6};

/// The kv example, served in this test's process.
#[allow(dead_code, unreachable_pub)]
#[path = "../../examples/kv.rs"]
mod kv;

async fn serve_kv() -> (Listening, Channel) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(kv::provider(), listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    (running, channel)
}

/// A fresh store of `n` entries `app/0`.. (even) and `sys/1`.. (odd), as the kv
/// example writes it.
fn store(n: usize) -> (tempdir::Dir, PathBuf) {
    let dir = tempdir::Dir::new();
    let path = dir.0.join("store.json");
    let mut entries = serde_json::Map::new();
    for i in 0..n {
        let key = if i % 2 == 0 {
            format!("app/{i}")
        } else {
            format!("sys/{i}")
        };
        entries.insert(
            key.clone(),
            serde_json::json!({
                "key": key, "value": format!("v{i}"), "ttl": 3600, "id": format!("kv-{key}"),
                "version": 1, "tags": {"n": i.to_string()}, "rule": [{"name": "r", "priority": i}],
                "acl": [], "meta": null, "secret": "hidden", "secret_wo_version": 1,
            }),
        );
    }
    std::fs::write(&path, serde_json::to_vec(&entries).unwrap()).unwrap();
    (dir, path)
}

/// A temporary folder, removed when dropped.
mod tempdir {
    pub(super) struct Dir(pub(super) std::path::PathBuf);

    impl Dir {
        pub(super) fn new() -> Dir {
            static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let path =
                std::env::temp_dir().join(format!("tfvalue-replay-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn msgpack(v: &serde_json::Value, ty: &Type) -> Vec<u8> {
    let value = Value::from_json_value(v, ty).unwrap();
    DynamicValue::encode_value(&value, ty).unwrap().msgpack
}

fn json_of(bytes: &[u8], ty: &Type) -> serde_json::Value {
    Value::from_msgpack(bytes, ty)
        .and_then(|v| v.to_json_value(ty))
        .unwrap()
}

fn provider_config(path: &Path) -> serde_json::Value {
    serde_json::json!({ "path": path.to_str().unwrap() })
}

/// The replays over one protocol major (`$pb`, its client, and its names of the RPCs
/// that differ).
macro_rules! replays {
    ($pb:ident, $cv:path, $get_schema:ident, $validate_provider:ident($vp_msg:ident), $configure:ident($conf_msg:ident), $validate_resource:ident($vr_msg:ident)) => {
        use super::*;
        use $pb as pb;
        use $cv as cv;

        type Client = pb::provider_client::ProviderClient<Channel>;

        fn dv(bytes: Vec<u8>) -> Option<pb::DynamicValue> {
            Some(pb::DynamicValue {
                msgpack: bytes.into(),
                json: Default::default(),
            })
        }

        fn errors(diags: &[pb::Diagnostic]) -> Vec<String> {
            diags
                .iter()
                .filter(|d| d.severity == pb::diagnostic::Severity::Error as i32)
                .map(|d| format!("{}: {}", d.summary, d.detail))
                .collect()
        }

        struct Schemas {
            entry: Schema,
            list: Schema,
            action: Schema,
            identity: Type,
        }

        /// `GetProviderSchema` (and the identity schemas), `ValidateProviderConfig` and
        /// `ConfigureProvider`, as every Terraform command starts.
        async fn start_provider(client: &mut Client, store: &Path) -> Schemas {
            let schema = client
                .$get_schema(pb::get_provider_schema::Request {})
                .await
                .unwrap()
                .into_inner();
            assert_eq!(errors(&schema.diagnostics), Vec::<String>::new());
            assert!(
                schema.server_capabilities.unwrap().generate_resource_config,
                "the framework generates configuration"
            );
            let entry = cv::schema(schema.resource_schemas["kv_entry"].clone()).unwrap();
            let list = cv::schema(schema.list_resource_schemas["kv_entry"].clone()).unwrap();
            let action = cv::schema(
                schema.action_schemas["kv_compact"].schema.clone().unwrap(),
            )
            .unwrap();
            let meta = client
                .get_metadata(pb::get_metadata::Request {})
                .await
                .unwrap()
                .into_inner();
            assert_eq!(meta.list_resources[0].type_name, "kv_entry");
            assert_eq!(meta.actions[0].type_name, "kv_compact");
            let identities = client
                .get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {})
                .await
                .unwrap()
                .into_inner();
            let identity = Type::object(
                identities.identity_schemas["kv_entry"]
                    .identity_attributes
                    .iter()
                    .map(|a| (a.name.clone(), Type::from_json(&a.r#type).unwrap())),
            );
            let config = msgpack(&provider_config(store), &Type::object([("path", Type::String)]));
            let resp = client
                .$validate_provider(pb::$vp_msg::Request {
                    config: dv(config.clone()),
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
            let resp = client
                .$configure(pb::$conf_msg::Request {
                    terraform_version: "1.15.9".into(),
                    config: dv(config),
                    client_capabilities: None,
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
            Schemas {
                entry,
                list,
                action,
                identity,
            }
        }

        /// `ListResource`, read as Terraform reads it: up to `limit` events, stopping at
        /// an error; each result as (identity, display name, state).
        async fn list(
            client: &mut Client,
            s: &Schemas,
            filter: serde_json::Value,
            include: bool,
            limit: i64,
        ) -> (Vec<(serde_json::Value, String, Option<serde_json::Value>)>, Vec<String>) {
            let list_ty = s.list.implied_type();
            let entry_ty = s.entry.implied_type();
            let mut stream = client
                .list_resource(pb::list_resource::Request {
                    type_name: "kv_entry".into(),
                    config: dv(msgpack(&filter, &list_ty)),
                    include_resource_object: include,
                    limit,
                })
                .await
                .unwrap()
                .into_inner();
            let mut results = Vec::new();
            let mut errs = Vec::new();
            while (results.len() as i64) < limit {
                let Some(event) = stream.message().await.unwrap() else {
                    break;
                };
                errs.extend(errors(&event.diagnostic));
                if !errs.is_empty() {
                    break;
                }
                let Some(identity) = event.identity.and_then(|i| i.identity_data) else {
                    assert!(!event.diagnostic.is_empty(), "an event without identity or diagnostics");
                    continue;
                };
                let state = event
                    .resource_object
                    .map(|o| json_of(&o.msgpack, &entry_ty));
                results.push((json_of(&identity.msgpack, &s.identity), event.display_name, state));
            }
            (results, errs)
        }

        /// `terraform query`: the list block validated twice, then listed; with and
        /// without the objects, within the limit, filtered by prefix.
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn terraform_query() {
            let (_server, channel) = serve_kv().await;
            let mut client = Client::new(channel);
            let (_dir, path) = store(10);
            let s = start_provider(&mut client, &path).await;
            let list_ty = s.list.implied_type();
            let filter = serde_json::json!({ "prefix": "app/" });
            for _ in 0..2 {
                let resp = client
                    .validate_list_resource_config(pb::validate_list_resource_config::Request {
                        type_name: "kv_entry".into(),
                        config: dv(msgpack(&filter, &list_ty)),
                        include_resource_object: None,
                        limit: None,
                    })
                    .await
                    .unwrap()
                    .into_inner();
                assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
            }

            // include_resource = true: identity, name and state of each app/ entry.
            let (results, errs) = list(&mut client, &s, filter.clone(), true, 100).await;
            assert_eq!(errs, Vec::<String>::new());
            let names: Vec<&str> = results.iter().map(|r| r.1.as_str()).collect();
            assert_eq!(names, ["app/0", "app/2", "app/4", "app/6", "app/8"]);
            for (identity, name, state) in &results {
                assert_eq!(identity["key"], serde_json::json!(name));
                let state = state.as_ref().expect("the object, as asked");
                assert_eq!(state["key"], serde_json::json!(name));
                assert_eq!(state["id"], serde_json::json!(format!("kv-{name}")));
                assert_eq!(state["secret_wo"], serde_json::Value::Null, "write-only in a state");
            }

            // include_resource = false: no objects; the limit cuts the listing.
            let (results, errs) = list(&mut client, &s, serde_json::json!({ "prefix": null }), false, 3).await;
            assert_eq!(errs, Vec::<String>::new());
            assert_eq!(results.len(), 3);
            assert!(results.iter().all(|r| r.2.is_none()), "objects sent unasked");

            // limit = 0: Terraform opens the stream and reads nothing; the server holds
            // nothing back either (the handler's first send is refused).
            let (results, _) = list(&mut client, &s, serde_json::json!({ "prefix": null }), true, 0).await;
            assert!(results.is_empty());

            // A filter that does not fit the schema is an error event, not a hang.
            let mut stream = client
                .list_resource(pb::list_resource::Request {
                    type_name: "kv_entry".into(),
                    config: dv(b"\x81\xa6prefix\x01".to_vec()),
                    include_resource_object: false,
                    limit: 10,
                })
                .await
                .unwrap()
                .into_inner();
            let event = stream.message().await.unwrap().unwrap();
            assert!(event.identity.is_none());
            assert!(!errors(&event.diagnostic).is_empty(), "{:?}", event.diagnostic);
            assert!(stream.message().await.unwrap().is_none());

            // An unknown list resource type: an error event.
            let mut stream = client
                .list_resource(pb::list_resource::Request {
                    type_name: "kv_nothing".into(),
                    config: dv(b"\xc0".to_vec()),
                    include_resource_object: false,
                    limit: 10,
                })
                .await
                .unwrap()
                .into_inner();
            let event = stream.message().await.unwrap().unwrap();
            assert!(errors(&event.diagnostic)[0].contains("unknown list resource type"));
        }

        /// `terraform query -generate-config-out`: each listed state turned into
        /// configuration; and `terraform plan -generate-config-out` of an import, whose
        /// generated configuration then validates and plans with no change.
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn generated_configuration_plans_with_no_change() {
            let (_server, channel) = serve_kv().await;
            let mut client = Client::new(channel);
            let (_dir, path) = store(4);
            let s = start_provider(&mut client, &path).await;
            let entry_ty = s.entry.implied_type();
            let (results, errs) = list(&mut client, &s, serde_json::json!({ "prefix": "sys/" }), true, 100).await;
            assert_eq!(errs, Vec::<String>::new());
            assert_eq!(results.len(), 2);
            for (_, name, state) in results {
                let state = state.unwrap();
                let resp = client
                    .generate_resource_config(pb::generate_resource_config::Request {
                        type_name: "kv_entry".into(),
                        state: dv(msgpack(&state, &entry_ty)),
                    })
                    .await
                    .unwrap()
                    .into_inner();
                assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
                let config = json_of(&resp.config.unwrap().msgpack, &entry_ty);
                // What only the provider sets is left out; what configuration sets is kept.
                assert_eq!(config["id"], serde_json::Value::Null);
                assert_eq!(config["version"], serde_json::Value::Null);
                assert_eq!(config["key"], serde_json::json!(name));
                assert_eq!(config["value"], state["value"]);
                assert_eq!(config["ttl"], serde_json::json!(3600));
                assert_eq!(config["tags"], state["tags"]);
                assert_eq!(config["rule"], state["rule"]);
                assert_eq!(config["secret_wo_version"], serde_json::json!(1));

                // The configuration Terraform writes from it, planned against the state:
                // validated, then planned (the proposed new state is the state, since the
                // configuration holds each of its configurable values) with no change.
                let config_mp = msgpack(&config, &entry_ty);
                let resp = client
                    .$validate_resource(pb::$vr_msg::Request {
                        type_name: "kv_entry".into(),
                        config: dv(config_mp.clone()),
                        client_capabilities: None,
                    })
                    .await
                    .unwrap()
                    .into_inner();
                assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
                let prior = msgpack(&state, &entry_ty);
                let plan = client
                    .plan_resource_change(pb::plan_resource_change::Request {
                        type_name: "kv_entry".into(),
                        prior_state: dv(prior.clone()),
                        proposed_new_state: dv(prior.clone()),
                        config: dv(config_mp),
                        prior_identity: Some(pb::ResourceIdentityData {
                            identity_data: dv(msgpack(&serde_json::json!({ "key": name }), &s.identity)),
                        }),
                        ..Default::default()
                    })
                    .await
                    .unwrap()
                    .into_inner();
                assert_eq!(errors(&plan.diagnostics), Vec::<String>::new());
                assert!(plan.requires_replace.is_empty());
                assert_eq!(json_of(&plan.planned_state.unwrap().msgpack, &entry_ty), state);
            }

            // A listed object without its state (include_resource off): the empty
            // configuration, an object, never null (Terraform does not expect null).
            let resp = client
                .generate_resource_config(pb::generate_resource_config::Request {
                    type_name: "kv_entry".into(),
                    state: dv(b"\xc0".to_vec()),
                })
                .await
                .unwrap()
                .into_inner();
            let config = json_of(&resp.config.unwrap().msgpack, &entry_ty);
            assert_eq!(config["key"], serde_json::Value::Null);
            assert_eq!(config["rule"], serde_json::json!([]));
        }

        /// `terraform apply -invoke=action.kv_compact.now`: validated, planned, invoked;
        /// progress, then `Completed` as the last event; the store rewritten.
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn an_action_invoked() {
            let (_server, channel) = serve_kv().await;
            let mut client = Client::new(channel);
            let (_dir, path) = store(3);
            // Written by hand, not as the provider writes it.
            let before = std::fs::read(&path).unwrap();
            let s = start_provider(&mut client, &path).await;
            let ty = s.action.implied_type();
            let config = dv(msgpack(&serde_json::json!({ "min_entries": 2 }), &ty));
            let resp = client
                .validate_action_config(pb::validate_action_config::Request {
                    type_name: "kv_compact".into(),
                    config: config.clone(),
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
            let resp = client
                .plan_action(pb::plan_action::Request {
                    action_type: "kv_compact".into(),
                    config: config.clone(),
                    client_capabilities: None,
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
            assert!(resp.deferred.is_none());

            let invoke = |config| pb::invoke_action::Request {
                action_type: "kv_compact".into(),
                config,
                client_capabilities: None,
            };
            let mut stream = client.invoke_action(invoke(config)).await.unwrap().into_inner();
            let mut events = Vec::new();
            while let Some(e) = stream.message().await.unwrap() {
                events.push(e.r#type.expect("an event has a type"));
            }
            use pb::invoke_action::event::Type as E;
            let Some(E::Completed(done)) = events.pop() else {
                panic!("the last event is not Completed");
            };
            assert_eq!(errors(&done.diagnostics), Vec::<String>::new());
            let progress: Vec<String> = events
                .into_iter()
                .map(|e| match e {
                    E::Progress(p) => p.message,
                    E::Completed(_) => panic!("Completed before the end"),
                })
                .collect();
            assert_eq!(progress.last().map(String::as_str), Some("rewrote 3 entries"));
            assert_ne!(std::fs::read(&path).unwrap(), before, "the store was not rewritten");

            // A failing action: Completed with its error.
            let config = dv(msgpack(&serde_json::json!({ "min_entries": 5 }), &ty));
            let mut stream = client.invoke_action(invoke(config)).await.unwrap().into_inner();
            let mut last = None;
            while let Some(e) = stream.message().await.unwrap() {
                last = e.r#type;
            }
            let Some(E::Completed(done)) = last else {
                panic!("the last event is not Completed");
            };
            assert!(errors(&done.diagnostics)[0].contains("fewer entries"), "{:?}", done.diagnostics);

            // A configuration that is not wholly known at apply: refused, Completed.
            let unknown = dv(b"\x81\xabmin_entries\xd4\x00\x00".to_vec());
            let mut stream = client.invoke_action(invoke(unknown)).await.unwrap().into_inner();
            let e = stream.message().await.unwrap().unwrap();
            let Some(E::Completed(done)) = e.r#type else {
                panic!("not Completed");
            };
            assert!(!errors(&done.diagnostics).is_empty());
            assert!(stream.message().await.unwrap().is_none());
        }
    };
}

mod protocol6 {
    replays!(
        pb6,
        crate::convert::v6,
        get_provider_schema,
        validate_provider_config(validate_provider_config),
        configure_provider(configure_provider),
        validate_resource_config(validate_resource_config)
    );
}

mod protocol5 {
    replays!(
        pb5,
        crate::convert::v5,
        get_schema,
        prepare_provider_config(prepare_provider_config),
        configure(configure),
        validate_resource_type_config(validate_resource_type_config)
    );
}

/// A list resource that would list forever, counting what it sent.
struct Endless {
    sent: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    stopped: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl crate::Provider for Endless {
    fn schemas(&self) -> crate::Schemas {
        use tfvalue::schema::{Attribute, Block};
        let block = Block::new().attribute("name", Attribute::required(Type::String));
        crate::Schemas::new()
            .resource("e_thing", Schema::new(0, block))
            .identity(
                "e_thing",
                crate::IdentitySchema::new(0).attribute(
                    crate::IdentityAttribute::required_for_import("name", Type::String),
                ),
            )
            .list_resource("e_thing", Schema::new(0, Block::new()))
    }

    async fn list_resource(&self, mut req: crate::ListResourceRequest) -> Vec<crate::Diagnostic> {
        use std::sync::atomic::Ordering::SeqCst;
        let mut why = None;
        for i in 0.. {
            let identity = DynamicValue::encode(&serde_json::json!({ "name": format!("n{i}") }));
            let result = crate::ListResult::new(identity.unwrap(), format!("n{i}"));
            if let Err(e) = req.results.send(result).await {
                why = Some(e);
                break;
            }
            self.sent.fetch_add(1, SeqCst);
        }
        assert_eq!(why, Some(crate::ListClosed::Gone));
        // The context says so too, at once or as soon as the server sees the stream go.
        tokio::time::timeout(std::time::Duration::from_secs(10), req.ctx.stopped())
            .await
            .unwrap();
        self.stopped.store(true, SeqCst);
        Vec::new()
    }
}

/// A listing runs no further ahead of Terraform than the server's buffer and HTTP/2's
/// flow control window: a client that reads slowly holds the handler back (memory
/// stays bounded, however many objects there are), and one that stops reading (its
/// limit reached) stops the handler, whose context is then cancelled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_waits_for_its_reader_and_stops_when_it_goes() {
    use std::sync::atomic::Ordering::SeqCst;
    let sent = std::sync::Arc::default();
    let stopped = std::sync::Arc::default();
    let provider = Endless {
        sent: std::sync::Arc::clone(&sent),
        stopped: std::sync::Arc::clone(&stopped),
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let _running = start(provider, listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", _running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let mut stream = client
        .list_resource(pb6::list_resource::Request {
            type_name: "e_thing".into(),
            config: Some(pb6::DynamicValue {
                msgpack: b"\x80".to_vec().into(),
                json: Default::default(),
            }),
            include_resource_object: false,
            limit: 1_000_000,
        })
        .await
        .unwrap()
        .into_inner();
    for i in 0..10 {
        let e = stream.message().await.unwrap().unwrap();
        assert_eq!(e.display_name, format!("n{i}"));
    }
    // Let the handler run as far as the reader lets it: it stops, then stays.
    let mut ahead = 0;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let now = sent.load(SeqCst);
        if now == ahead {
            break;
        }
        ahead = now;
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        sent.load(SeqCst),
        ahead,
        "the handler runs on while nothing reads"
    );
    println!(
        "a listing read 10 results in, then paused: the handler had sent {ahead}, then waited"
    );
    // The server's 32, what the HTTP/2 windows hold (2 MiB for this client) of ~25-byte
    // events, and tonic's encoding buffer: bounded by bytes, not by the limit.
    assert!(ahead < 200_000, "the handler ran {ahead} results ahead");
    drop(stream);
    tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while !stopped.load(SeqCst) {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the handler did not stop when its reader went");
}

/// The kv example's `list "kv_entry"` over a store of 10,000 entries, in a process of
/// its own: every entry streamed, and the process's peak memory grows by about the
/// store's own size, not with what it sent (printed for the record).
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kv_lists_10000_entries_in_bounded_memory() {
    let (_dir, path) = store(10_000);
    let store_size = std::fs::metadata(&path).unwrap().len();
    let mut child = super::tests_grpc::Child::start_example("kv", "23000-23999").await;
    let config = msgpack(
        &provider_config(&path),
        &Type::object([("path", Type::String)]),
    );
    let dv = |msgpack: Vec<u8>| {
        Some(pb6::DynamicValue {
            msgpack: msgpack.into(),
            json: Default::default(),
        })
    };
    let resp = child
        .client
        .configure_provider(pb6::configure_provider::Request {
            terraform_version: "1.15.9".into(),
            config: dv(config),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let list = |prefix: &str, limit: i64| pb6::list_resource::Request {
        type_name: "kv_entry".into(),
        config: dv(msgpack(
            &serde_json::json!({ "prefix": prefix }),
            &Type::object([("prefix", Type::String)]),
        )),
        include_resource_object: true,
        limit,
    };
    // A small listing first: what the process holds anyway.
    let mut stream = child
        .client
        .list_resource(list("app/", 2))
        .await
        .unwrap()
        .into_inner();
    while stream.message().await.unwrap().is_some() {}
    let before = child.peak();
    let mut stream = child
        .client
        .list_resource(list("", 100_000))
        .await
        .unwrap()
        .into_inner();
    let (mut n, mut bytes) = (0usize, 0usize);
    while let Some(e) = stream.message().await.unwrap() {
        assert!(e.diagnostic.is_empty(), "{:?}", e.diagnostic);
        bytes += e.resource_object.map_or(0, |o| o.msgpack.len());
        n += 1;
    }
    assert_eq!(n, 10_000);
    let grown = child.peak().saturating_sub(before);
    println!(
        "kv listed 10,000 entries ({} KiB of states sent) from a store of {} KiB: peak memory grew by {} KiB",
        bytes >> 10,
        store_size >> 10,
        grown >> 10
    );
    // The store's JSON, read whole under the lock, plus one entry at a time.
    assert!(
        grown < 3 * store_size + (8 << 20),
        "peak memory grew by {grown} bytes listing a store of {store_size} bytes"
    );
}

/// A state store as Terraform v1.15.9 uses one (`internal/command/meta_backend.go`,
/// `internal/backend/pluggable/pluggable.go`, `internal/plugin6/grpc_provider.go`
/// `ReadStateBytes`/`WriteStateBytes`): configured after the provider, the chunk size
/// agreed; `init` lists the workspaces and writes the default one's first state; an
/// apply locks, reads, writes and unlocks; `workspace delete` deletes. Over the kv
/// example's `kv_states`, with chunks of 4 bytes so that a state takes several.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_store_as_terraform_uses_it() {
    let (_server, channel) = serve_kv().await;
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let (dir, path) = store(1);
    let states = dir.0.join("states");
    std::fs::create_dir(&states).unwrap();
    let dv = |msgpack: Vec<u8>| {
        Some(pb6::DynamicValue {
            msgpack: msgpack.into(),
            json: Default::default(),
        })
    };
    let errors = |d: &[pb6::Diagnostic]| -> Vec<String> {
        d.iter()
            .filter(|d| d.severity == pb6::diagnostic::Severity::Error as i32)
            .map(|d| format!("{}: {}", d.summary, d.detail))
            .collect()
    };
    let schema = client
        .get_provider_schema(pb6::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let ty = crate::convert::v6::schema(schema.state_store_schemas["kv_states"].clone())
        .unwrap()
        .implied_type();
    let meta = client
        .get_metadata(pb6::get_metadata::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(meta.state_stores[0].type_name, "kv_states");
    let resp = client
        .configure_provider(pb6::configure_provider::Request {
            terraform_version: "1.15.9".into(),
            config: dv(msgpack(
                &provider_config(&path),
                &Type::object([("path", Type::String)]),
            )),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
    let config = dv(msgpack(
        &serde_json::json!({ "dir": states.to_str().unwrap() }),
        &ty,
    ));
    let resp = client
        .validate_state_store_config(pb6::validate_state_store::Request {
            type_name: "kv_states".into(),
            config: config.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
    let resp = client
        .configure_state_store(pb6::configure_state_store::Request {
            type_name: "kv_states".into(),
            config,
            capabilities: Some(pb6::StateStoreClientCapabilities { chunk_size: 4 }),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
    assert_eq!(resp.capabilities.unwrap().chunk_size, 4);

    let c = client.clone();
    let read = move |id: &str| {
        let req = pb6::read_state_bytes::Request {
            type_name: "kv_states".into(),
            state_id: id.into(),
        };
        let mut c = c.clone();
        async move {
            let mut stream = c.read_state_bytes(req).await.unwrap().into_inner();
            let mut chunks = Vec::new();
            while let Some(chunk) = stream.message().await.unwrap() {
                chunks.push(chunk);
            }
            chunks
        }
    };
    let writer = client.clone();
    let write = move |id: &str, state: &[u8]| {
        let total = state.len() as i64;
        let chunks: Vec<pb6::write_state_bytes::RequestChunk> = state
            .chunks(4)
            .enumerate()
            .map(|(i, bytes)| pb6::write_state_bytes::RequestChunk {
                meta: (i == 0).then(|| pb6::RequestChunkMeta {
                    type_name: "kv_states".into(),
                    state_id: id.into(),
                }),
                bytes: bytes.to_vec(),
                total_length: total,
                range: Some(pb6::StateRange {
                    start: (i * 4) as i64,
                    end: (i * 4 + bytes.len()) as i64 - 1,
                }),
            })
            .collect();
        let mut c = writer.clone();
        async move {
            c.write_state_bytes(tokio_stream::iter(chunks))
                .await
                .unwrap()
                .into_inner()
                .diagnostics
        }
    };
    let get_states = client.clone();
    let states_now = move || {
        let mut c = get_states.clone();
        async move {
            c.get_states(pb6::get_states::Request {
                type_name: "kv_states".into(),
            })
            .await
            .unwrap()
            .into_inner()
            .state_id
        }
    };

    // init: no workspaces; the default one's state read (none), then its first state.
    assert!(states_now().await.is_empty());
    assert!(read("default").await.is_empty(), "no state is zero chunks");
    let first = br#"{"version":4,"serial":1}"#;
    assert_eq!(errors(&write("default", first).await), Vec::<String>::new());
    assert_eq!(states_now().await, ["default"]);

    // apply: lock, read (in chunks of the size agreed), write, unlock.
    let lock = |op: &str| pb6::lock_state::Request {
        type_name: "kv_states".into(),
        state_id: "default".into(),
        operation: op.into(),
    };
    let locked = client
        .lock_state(lock("OperationTypeApply"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(errors(&locked.diagnostics), Vec::<String>::new());
    assert!(!locked.lock_id.is_empty());
    // Another run cannot take it meanwhile (a second lock file handle, as another
    // process would hold).
    let busy = client
        .lock_state(lock("OperationTypePlan"))
        .await
        .unwrap()
        .into_inner();
    let busy = errors(&busy.diagnostics);
    assert!(
        busy[0].contains("is locked: OperationTypeApply by process"),
        "{busy:?}"
    );
    let resp = client
        .unlock_state(pb6::unlock_state::Request {
            type_name: "kv_states".into(),
            state_id: "default".into(),
            lock_id: "not-a-lock".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        !errors(&resp.diagnostics).is_empty(),
        "an unknown lock id unlocked"
    );
    let chunks = read("default").await;
    let ranges: Vec<(i64, i64, usize)> = chunks
        .iter()
        .map(|c| {
            let r = c.range.unwrap();
            (r.start, r.end, c.bytes.len())
        })
        .collect();
    assert_eq!(ranges.len(), first.len().div_ceil(4));
    assert_eq!(ranges[0], (0, 3, 4));
    assert!(chunks.iter().all(|c| c.total_length == first.len() as i64));
    let whole: Vec<u8> = chunks.into_iter().flat_map(|c| c.bytes).collect();
    assert_eq!(whole, first);
    let second = br#"{"version":4,"serial":2,"resources":[]}"#;
    assert_eq!(
        errors(&write("default", second).await),
        Vec::<String>::new()
    );
    let resp = client
        .unlock_state(pb6::unlock_state::Request {
            type_name: "kv_states".into(),
            state_id: "default".into(),
            lock_id: locked.lock_id,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
    let relocked = client
        .lock_state(lock("OperationTypePlan"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        errors(&relocked.diagnostics),
        Vec::<String>::new(),
        "unlocked"
    );
    let whole: Vec<u8> = read("default")
        .await
        .into_iter()
        .flat_map(|c| c.bytes)
        .collect();
    assert_eq!(whole, second);

    // Chunks that do not add up are refused, and the state is left as it was.
    let bad = vec![pb6::write_state_bytes::RequestChunk {
        meta: Some(pb6::RequestChunkMeta {
            type_name: "kv_states".into(),
            state_id: "default".into(),
        }),
        bytes: b"{}".to_vec(),
        total_length: 10,
        range: Some(pb6::StateRange { start: 0, end: 1 }),
    }];
    let diags = client
        .write_state_bytes(tokio_stream::iter(bad))
        .await
        .unwrap()
        .into_inner()
        .diagnostics;
    assert!(errors(&diags)[0].contains("incomplete state"), "{diags:?}");
    let whole: Vec<u8> = read("default")
        .await
        .into_iter()
        .flat_map(|c| c.bytes)
        .collect();
    assert_eq!(whole, second);

    // workspace new dev, then workspace delete dev; a name that is a path is refused.
    assert_eq!(errors(&write("dev", first).await), Vec::<String>::new());
    assert_eq!(states_now().await, ["default", "dev"]);
    let delete = |id: &str| pb6::delete_state::Request {
        type_name: "kv_states".into(),
        state_id: id.into(),
    };
    let resp = client
        .delete_state(delete("dev"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(errors(&resp.diagnostics), Vec::<String>::new());
    assert_eq!(states_now().await, ["default"]);
    let resp = client
        .delete_state(delete("../store"))
        .await
        .unwrap()
        .into_inner();
    assert!(!errors(&resp.diagnostics).is_empty());
    assert!(path.exists());

    // An unknown state store type: an error, at once.
    let mut stream = client
        .read_state_bytes(pb6::read_state_bytes::Request {
            type_name: "kv_nothing".into(),
            state_id: "default".into(),
        })
        .await
        .unwrap()
        .into_inner();
    let chunk = stream.message().await.unwrap().unwrap();
    assert!(errors(&chunk.diagnostics)[0].contains("unknown state store type"));
    assert!(
        chunk.range.is_some(),
        "Terraform reads a range in every message"
    );
}

/// A protocol-level provider whose list handler sends a write-only value in an object,
/// and whose action handler leaves a task sending progress after it returned.
struct Careless;

impl crate::Provider for Careless {
    fn schemas(&self) -> crate::Schemas {
        use tfvalue::schema::{Attribute, Block};
        let block = Block::new()
            .attribute("name", Attribute::required(Type::String))
            .attribute("secret_wo", Attribute::optional(Type::String).write_only());
        crate::Schemas::new()
            .resource("c_thing", Schema::new(0, block))
            .identity(
                "c_thing",
                crate::IdentitySchema::new(0).attribute(
                    crate::IdentityAttribute::required_for_import("name", Type::String),
                ),
            )
            .list_resource("c_thing", Schema::new(0, Block::new()))
            .action("c_act", Schema::new(0, Block::new()))
    }

    async fn list_resource(&self, mut req: crate::ListResourceRequest) -> Vec<crate::Diagnostic> {
        let identity = DynamicValue::encode(&serde_json::json!({ "name": "a" })).unwrap();
        let object =
            DynamicValue::encode(&serde_json::json!({ "name": "a", "secret_wo": "hunter2" }))
                .unwrap();
        let result = crate::ListResult::new(identity, "a").with_resource_object(object);
        assert_eq!(
            req.results.send(result).await,
            Err(crate::ListClosed::Failed)
        );
        Vec::new()
    }

    async fn invoke_action(&self, req: crate::InvokeActionRequest) -> Vec<crate::Diagnostic> {
        let progress = req.progress.clone();
        tokio::spawn(async move {
            for i in 0..10_000 {
                if progress.send(format!("late {i}")).await.is_err() {
                    break;
                }
            }
        });
        let _ = req.progress.send("early").await;
        vec![crate::Diagnostic::error("failed")]
    }
}

/// What a careless provider sends is made safe: a write-only value in a listed object
/// is an error (Terraform would print it), and `Completed` is the last event of an
/// action, however much progress a task the handler left behind still sends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn careless_providers_are_held_to_the_protocol() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(Careless, listener, None, super::Limits::default()).unwrap();
    let channel = Endpoint::from_shared(format!("http://{}", running.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = pb6::provider_client::ProviderClient::new(channel);
    let empty = || {
        Some(pb6::DynamicValue {
            msgpack: b"\x80".to_vec().into(),
            json: Default::default(),
        })
    };
    let mut stream = client
        .list_resource(pb6::list_resource::Request {
            type_name: "c_thing".into(),
            config: empty(),
            include_resource_object: true,
            limit: 10,
        })
        .await
        .unwrap()
        .into_inner();
    let event = stream.message().await.unwrap().unwrap();
    assert!(event.resource_object.is_none(), "the secret was sent");
    assert!(
        event
            .diagnostic
            .iter()
            .any(|d| d.summary.contains("write-only")),
        "{:?}",
        event.diagnostic
    );
    use pb6::invoke_action::event::Type as E;
    for _ in 0..20 {
        let mut stream = client
            .invoke_action(pb6::invoke_action::Request {
                action_type: "c_act".into(),
                config: empty(),
                client_capabilities: None,
            })
            .await
            .unwrap()
            .into_inner();
        let mut events = Vec::new();
        while let Some(e) = stream.message().await.unwrap() {
            events.push(e.r#type.unwrap());
        }
        let completed = events
            .iter()
            .filter(|e| matches!(e, E::Completed(_)))
            .count();
        assert_eq!(completed, 1);
        assert!(matches!(events.last(), Some(E::Completed(_))), "{events:?}");
    }
}
