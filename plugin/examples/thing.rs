//! `terraform-provider-thing`: an example provider built on the framework
//! (`tfvalue_plugin::framework`).
//!
//! Its "cloud" is a JSON file (`THING_DB`, default `thing-db.json` in the working
//! directory), so that a test can see and change what the provider created.
//!
//! - `thing_server`: schema version 2 (upgrades from a version 1 JSON state and a version
//!   0 flatmap state through a `tfvalue::codec::Codec`), a `disk` block with 1 to 3 items,
//!   a `dynamic` attribute, an `endpoints` nested attribute (protocol 6 only), refined
//!   unknowns in its plan (`ip_address` starts with `10.0.`), import by id.
//! - `thing_volume`: refers to a server by id, so its configuration holds an unknown until
//!   the server exists.
//! - `thing_info`: a data source.
//!
//! Every configurable field is `Unknown<..>`: configuration that refers to another
//! resource (`server_id = thing_server.web.id`, `name = var.n`) is unknown at validate
//! and plan time, and a plain `String` field could not hold it.
//!
//! `THING_PROTOCOL=5` serves protocol 5 only (the schema then leaves out `endpoints`,
//! which protocol 5 cannot carry). `THING_BREAK_PROMISE=1` makes apply return an address
//! outside the refined prefix, to show the server's apply check. Run with `--debug` to
//! attach Terraform by `TF_REATTACH_PROVIDERS`.
//!
//! The file is read and written as `support/store.rs` does it: a lock shared by every
//! process using it, atomic writes, and an error naming the file when it is damaged.

#[path = "support/store.rs"]
mod store;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tfvalue::codec::Codec;
use tfvalue::schema::Schema;
use tfvalue::{AttributePath, Dynamic, TfModel, TfValue, Unknown};
use tfvalue_plugin::framework::*;
use tfvalue_plugin::{serve_main, ServeConfig};

/// A disk of a server.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Disk {
    /// Size in GiB.
    #[tfvalue(required)]
    size_gb: Unknown<u32>,
    /// `ssd` or `hdd`.
    #[tfvalue(optional, computed, default = "ssd")]
    kind: Unknown<Option<String>>,
}

/// An endpoint of a server (a protocol 6 nested attribute).
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Endpoint {
    #[tfvalue(required)]
    host: Unknown<String>,
    #[tfvalue(optional)]
    port: Unknown<Option<u16>>,
}

/// A server.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[tfvalue(version = 2)]
struct Server {
    /// Assigned by the cloud.
    #[tfvalue(computed, use_state_for_unknown, refine(not_null))]
    id: Unknown<Option<String>>,
    /// The server's name; changing it replaces the server.
    #[tfvalue(required, requires_replace)]
    name: Unknown<String>,
    /// Number of CPUs.
    #[tfvalue(optional, computed, default = 1)]
    size: Unknown<Option<u32>>,
    /// Labels.
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
    /// The address, known after creation; always in 10.0.0.0/16.
    #[tfvalue(computed, use_state_for_unknown, refine(not_null, prefix = "10.0."))]
    ip_address: Unknown<Option<String>>,
    /// Anything at all.
    #[tfvalue(optional)]
    metadata: Dynamic,
    #[tfvalue(block, min_items = 1, max_items = 3)]
    disk: Unknown<Vec<Disk>>,
    #[tfvalue(nested_type, optional)]
    endpoints: Unknown<Option<Vec<Endpoint>>>,
}

/// Schema version 1 of a server, as stored in JSON state.
#[derive(TfValue, Serialize, Deserialize)]
#[tfvalue(version = 1)]
struct ServerV1 {
    #[tfvalue(computed)]
    id: Option<String>,
    #[tfvalue(required)]
    name: String,
    #[tfvalue(optional)]
    size: Option<u32>,
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, String>>,
    #[tfvalue(computed)]
    ip_address: Option<String>,
}

/// Schema version 0 of a server, from the flatmap state of Terraform before 0.12.
#[derive(TfValue, Serialize, Deserialize)]
#[tfvalue(version = 0)]
struct ServerV0 {
    #[tfvalue(computed)]
    id: Option<String>,
    #[tfvalue(required)]
    name: String,
    #[tfvalue(optional)]
    cpus: Option<u32>,
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, String>>,
}

/// A volume attached to a server.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Volume {
    #[tfvalue(computed, use_state_for_unknown, refine(not_null))]
    id: Unknown<Option<String>>,
    /// The server's id: unknown in configuration until the server exists.
    #[tfvalue(required, requires_replace)]
    server_id: Unknown<String>,
    #[tfvalue(required)]
    size_gb: Unknown<u32>,
}

/// The data source: a greeting for a name.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Info {
    #[tfvalue(required)]
    name: Unknown<String>,
    #[tfvalue(computed)]
    greeting: Unknown<Option<String>>,
}

/// The "cloud": objects by id, each its resource type and its state as tfvalue JSON,
/// and beside them the last id number given.
struct Db {
    records: store::JsonFile,
    last_id: store::JsonFile,
}

/// Each state kept as the JSON text tfvalue wrote, never parsed into a
/// `serde_json::Value` (whose numbers are floats: a number of 30 digits would come back
/// rounded).
type Records = BTreeMap<String, (String, Box<RawValue>)>;

impl Db {
    fn new(path: &str) -> Db {
        Db {
            records: store::JsonFile::new(path),
            last_id: store::JsonFile::new(format!("{path}.last-id")),
        }
    }

    /// Runs `f` on the records; with `save`, under the store's exclusive lock (so that
    /// ids stay unique when Terraform applies in parallel, or two runs share the
    /// store), saving what `f` leaves.
    fn with<T>(&self, save: bool, f: impl FnOnce(&mut Records) -> Result<T>) -> Result<T> {
        if save {
            self.records.update(f)
        } else {
            self.records.read(|mut r: Records| f(&mut r))
        }
    }

    fn fetch<M: DeserializeOwned>(&self, id: &str) -> Result<Option<M>> {
        self.with(false, |r| match r.get(id) {
            None => Ok(None),
            Some((_, v)) => Ok(Some(tfvalue::json::from_str(v.get())?)),
        })
    }

    /// Stores `m` under its id, or under a fresh one (`srv-3`) given to `assign` with its
    /// number when `m` has none yet.
    fn store<M: Serialize>(
        &self,
        type_name: &str,
        mut m: M,
        id_of: impl Fn(&M) -> Option<String>,
        assign: impl FnOnce(&mut M, String, usize),
        prefix: &str,
    ) -> Result<M> {
        self.with(true, |r| {
            let id = match id_of(&m) {
                Some(id) => id,
                None => {
                    // As a cloud does, an id is never given twice, also after its
                    // object is deleted: the last number given is kept beside the
                    // records (under the same lock).
                    let n = self.last_id.update(|last: &mut usize| {
                        let n = (*last + 1..)
                            .find(|n| !r.contains_key(&format!("{prefix}-{n}")))
                            .unwrap_or_default();
                        *last = n;
                        Ok::<_, Diagnostics>(n)
                    })?;
                    let id = format!("{prefix}-{n}");
                    assign(&mut m, id.clone(), n);
                    id
                }
            };
            let value = RawValue::from_string(tfvalue::json::to_string(&m)?)?;
            r.insert(id, (type_name.to_owned(), value));
            Ok(m)
        })
    }

    fn remove(&self, id: Option<&String>) -> Result<()> {
        self.with(true, |r| {
            if let Some(id) = id {
                r.remove(id);
            }
            Ok(())
        })
    }

    fn import<M: DeserializeOwned>(&self, type_name: &str, id: &str) -> Result<Option<M>> {
        match self.fetch(id)? {
            Some(m) => Ok(Some(m)),
            None => Err(Diagnostic::error("cannot import")
                .with_detail(format!("There is no {type_name} with id `{id}`."))
                .into()),
        }
    }
}

fn known_id(id: &Unknown<Option<String>>) -> Option<String> {
    id.value().cloned()
}

struct Servers {
    db: Arc<Db>,
    /// Protocol 6, or protocol 5 without `endpoints`.
    v6: bool,
    break_promise: bool,
}

impl Resource for Servers {
    type Model = Server;

    fn schema(&self) -> Schema {
        let mut schema = Server::schema();
        if !self.v6 {
            schema.block.attributes.remove("endpoints");
        }
        schema
    }

    fn upgrade(&self) -> Codec<Server> {
        Codec::<Server>::new()
            .step_from(|old: ServerV0| ServerV1 {
                id: old.id,
                name: old.name,
                size: old.cpus,
                tags: old.tags,
                ip_address: None,
            })
            .upgrade_from(|old: ServerV1| Server {
                id: old.id.into(),
                name: old.name.into(),
                size: old.size.into(),
                tags: old
                    .tags
                    .map(|t| t.into_iter().map(|(k, v)| (k, v.into())).collect())
                    .into(),
                ip_address: old.ip_address.into(),
                metadata: Dynamic::null(),
                // Version 1 servers had one 10 GiB SSD.
                disk: vec![Disk {
                    size_gb: 10.into(),
                    kind: Some("ssd".to_owned()).into(),
                }]
                .into(),
                endpoints: None.into(),
            })
    }

    fn validate(&self, s: &Server) -> Result<()> {
        if s.name.known().is_some_and(String::is_empty) {
            return Err(Diagnostic::error("name must not be empty")
                .at(AttributePath::new().attr("name"))
                .into());
        }
        let disks = s.disk.known().map(Vec::as_slice).unwrap_or_default();
        let errors: Vec<Diagnostic> = disks
            .iter()
            .enumerate()
            .filter(|(_, d)| d.size_gb.known() == Some(&0))
            .map(|(i, _)| {
                Diagnostic::error("a disk needs a size").at(AttributePath::new()
                    .attr("disk")
                    .index(i as u64)
                    .attr("size_gb"))
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.into_iter().collect::<Diagnostics>())
        }
    }

    async fn create(&self, _cx: &Ctx, s: Server) -> Result<Server> {
        let break_promise = self.break_promise;
        self.db.store(
            "thing_server",
            s,
            |s| known_id(&s.id),
            |s, id, n| {
                s.id = Some(id).into();
                let net = if break_promise { "192.168.0" } else { "10.0.0" };
                s.ip_address = Some(format!("{net}.{n}")).into();
            },
            "srv",
        )
    }

    async fn read(&self, _cx: &Ctx, s: Server) -> Result<Option<Server>> {
        match known_id(&s.id) {
            Some(id) => self.db.fetch(&id),
            None => Ok(Some(s)),
        }
    }

    async fn update(&self, cx: &Ctx, _prior: Server, s: Server) -> Result<Server> {
        self.create(cx, s).await
    }

    async fn delete(&self, _cx: &Ctx, s: Server) -> Result<()> {
        self.db.remove(known_id(&s.id).as_ref())
    }

    async fn import(&self, _cx: &Ctx, id: String) -> Result<Option<Server>> {
        self.db.import("thing_server", &id)
    }
}

struct Volumes {
    db: Arc<Db>,
}

impl Resource for Volumes {
    type Model = Volume;

    async fn create(&self, _cx: &Ctx, v: Volume) -> Result<Volume> {
        let server_id = v.server_id.known().cloned().unwrap_or_default();
        if self.db.fetch::<Server>(&server_id)?.is_none() {
            return Err(Diagnostic::error("no such server")
                .with_detail(format!("There is no server `{server_id}`."))
                .at(AttributePath::new().attr("server_id"))
                .into());
        }
        self.db.store(
            "thing_volume",
            v,
            |v| known_id(&v.id),
            |v, id, _| v.id = Some(id).into(),
            "vol",
        )
    }

    async fn read(&self, _cx: &Ctx, v: Volume) -> Result<Option<Volume>> {
        match known_id(&v.id) {
            Some(id) => self.db.fetch(&id),
            None => Ok(Some(v)),
        }
    }

    async fn update(&self, cx: &Ctx, _prior: Volume, v: Volume) -> Result<Volume> {
        self.create(cx, v).await
    }

    async fn delete(&self, _cx: &Ctx, v: Volume) -> Result<()> {
        self.db.remove(known_id(&v.id).as_ref())
    }

    async fn import(&self, _cx: &Ctx, id: String) -> Result<Option<Volume>> {
        self.db.import("thing_volume", &id)
    }
}

struct Greeting;

impl DataSource for Greeting {
    type Model = Info;

    async fn read(&self, _cx: &Ctx, mut info: Info) -> Result<Info> {
        let name = info.name.known().cloned().unwrap_or_default();
        info.greeting = Some(format!("hello, {name}")).into();
        Ok(info)
    }
}

fn main() {
    let v6 = std::env::var("THING_PROTOCOL").as_deref() != Ok("5");
    let db = Arc::new(Db::new(
        &std::env::var("THING_DB").unwrap_or_else(|_| "thing-db.json".into()),
    ));
    let break_promise = std::env::var("THING_BREAK_PROMISE").as_deref() == Ok("1");
    let provider = Framework::new()
        .resource(
            "thing_server",
            Servers {
                db: db.clone(),
                v6,
                break_promise,
            },
        )
        .resource("thing_volume", Volumes { db })
        .data_source("thing_info", Greeting);
    let versions: &[u32] = if v6 { &[6] } else { &[5] };
    serve_main(
        provider,
        ServeConfig::new("example.com/acme/thing").protocol_versions(versions),
    );
}
