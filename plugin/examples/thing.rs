//! `terraform-provider-thing`: an example provider built on tfvalue-plugin.
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
//! `THING_PROTOCOL=5` serves protocol 5 only (the schema then leaves out `endpoints`,
//! which protocol 5 cannot carry). `THING_BREAK_PROMISE=1` makes apply return an address
//! outside the refined prefix, to show the server's apply check. Run with `--debug` to
//! attach Terraform by `TF_REATTACH_PROVIDERS`.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tfvalue::codec::Codec;
use tfvalue::schema::Schema;
use tfvalue::{AttributePath, Dynamic, DynamicValue, TfModel, TfValue, Unknown, Value};
use tfvalue_plugin::*;

/// A disk of a server.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Disk {
    /// Size in GiB.
    #[tfvalue(required)]
    size_gb: u32,
    /// `ssd` (the default) or `hdd`.
    #[tfvalue(optional, computed)]
    kind: Unknown<Option<String>>,
}

/// An endpoint of a server (a protocol 6 nested attribute).
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Endpoint {
    #[tfvalue(required)]
    host: String,
    #[tfvalue(optional)]
    port: Option<u16>,
}

/// A server.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[tfvalue(version = 2)]
struct Server {
    /// Assigned by the cloud.
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    /// The server's name; changing it replaces the server. `Unknown`: a configuration
    /// may set it from a reference or a variable, unknown until then.
    #[tfvalue(required)]
    name: Unknown<String>,
    /// Number of CPUs (default 1).
    #[tfvalue(optional, computed)]
    size: Unknown<Option<u32>>,
    /// Labels.
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, String>>,
    /// The address, known after creation; always in 10.0.0.0/16.
    #[tfvalue(computed)]
    ip_address: Unknown<Option<String>>,
    /// Anything at all.
    #[tfvalue(optional)]
    metadata: Option<Dynamic>,
    #[tfvalue(block, min_items = 1, max_items = 3)]
    disk: Vec<Disk>,
    #[tfvalue(nested_type, optional)]
    endpoints: Option<Vec<Endpoint>>,
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
}

/// A volume attached to a server.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Volume {
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    /// The server's id: unknown in configuration until the server exists.
    #[tfvalue(required)]
    server_id: Unknown<String>,
    #[tfvalue(required)]
    size_gb: u32,
}

/// The data source: a greeting for a name.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Info {
    #[tfvalue(required)]
    name: String,
    #[tfvalue(computed)]
    greeting: Option<String>,
}

/// A stored object: its resource type and its state as tfvalue JSON.
type Db = BTreeMap<String, (String, serde_json::Value)>;

struct Thing {
    /// Protocol 6, or protocol 5 without `endpoints`.
    v6: bool,
    db_path: String,
    db: Mutex<()>,
    server_codec: Codec<Server>,
}

fn diag(summary: &str, e: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(summary).with_detail(e.to_string())
}

impl Thing {
    fn new() -> Self {
        let v6 = std::env::var("THING_PROTOCOL").as_deref() != Ok("5");
        let server_codec = Codec::<Server>::new()
            .step_from(|old: ServerV0| ServerV1 {
                id: old.id,
                name: old.name,
                size: old.cpus,
                tags: None,
                ip_address: None,
            })
            .upgrade_from(|old: ServerV1| Server {
                id: Unknown::Known(old.id),
                name: Unknown::Known(old.name),
                size: Unknown::Known(old.size),
                tags: old.tags,
                ip_address: Unknown::Known(old.ip_address),
                metadata: None,
                // Version 1 servers had one 10 GiB SSD.
                disk: vec![Disk {
                    size_gb: 10,
                    kind: Unknown::Known(Some("ssd".into())),
                }],
                endpoints: None,
            });
        Thing {
            v6,
            db_path: std::env::var("THING_DB").unwrap_or_else(|_| "thing-db.json".into()),
            db: Mutex::new(()),
            server_codec,
        }
    }

    fn server_schema(&self) -> Schema {
        let mut schema = Server::schema();
        if !self.v6 {
            schema.block.attributes.remove("endpoints");
        }
        schema
    }

    /// Decodes a value of `M`; over protocol 5, attributes the wire lacks read as null.
    fn decode<M: TfModel + serde::de::DeserializeOwned>(
        &self,
        dv: &DynamicValue,
        wire: &Schema,
    ) -> Result<Option<M>, Diagnostic> {
        let mut v = dv.decode_value(&wire.implied_type())?;
        if v.is_null() {
            return Ok(None);
        }
        if let Value::Object(m) = &mut v {
            for name in M::block().attributes.keys() {
                m.entry(name.clone()).or_insert(Value::Null);
            }
        }
        Ok(Some(tfvalue::from_value(&v)?))
    }

    /// Encodes a value of `M` with the attributes of `wire` only.
    fn encode<M: TfModel + Serialize>(
        &self,
        m: Option<&M>,
        wire: &Schema,
    ) -> Result<DynamicValue, Diagnostic> {
        let Some(m) = m else {
            return Ok(DynamicValue::from_msgpack(vec![0xc0]));
        };
        let mut v = tfvalue::to_value(m)?;
        if let Value::Object(map) = &mut v {
            map.retain(|k, _| {
                wire.block.attributes.contains_key(k.as_str())
                    || wire.block.block_types.contains_key(k.as_str())
            });
        }
        Ok(DynamicValue::encode_value(&v, &wire.implied_type())?)
    }

    fn load(&self) -> Db {
        std::fs::read(&self.db_path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    fn save(&self, db: &Db) -> Result<(), Diagnostic> {
        let text =
            serde_json::to_vec_pretty(db).map_err(|e| diag("cannot write the database", e))?;
        std::fs::write(&self.db_path, text).map_err(|e| diag("cannot write the database", e))
    }

    fn store<M: Serialize>(&self, type_name: &str, id: &str, m: &M) -> Result<(), Diagnostic> {
        let _g = self.db.lock().map_err(|e| diag("database lock", e))?;
        let json = tfvalue::json::to_vec(m)?;
        let value = serde_json::from_slice(&json).map_err(|e| diag("database record", e))?;
        let mut db = self.load();
        db.insert(id.to_owned(), (type_name.to_owned(), value));
        self.save(&db)
    }

    fn fetch<M: serde::de::DeserializeOwned>(&self, id: &str) -> Result<Option<M>, Diagnostic> {
        let _g = self.db.lock().map_err(|e| diag("database lock", e))?;
        match self.load().get(id) {
            // Not there, or reserved by an apply still running.
            None => Ok(None),
            Some((_, v)) if v.is_null() => Ok(None),
            Some((_, v)) => {
                let bytes = serde_json::to_vec(v).map_err(|e| diag("database record", e))?;
                Ok(Some(tfvalue::json::from_slice(&bytes)?))
            }
        }
    }

    fn remove(&self, id: &str) -> Result<(), Diagnostic> {
        let _g = self.db.lock().map_err(|e| diag("database lock", e))?;
        let mut db = self.load();
        db.remove(id);
        self.save(&db)
    }

    /// A fresh id such as `srv-3`, and its number: never one handed out before (the
    /// last number is kept beside the database), so a replaced object gets a new id.
    fn next_id(&self, prefix: &str, type_name: &str) -> Result<(String, u32), Diagnostic> {
        let _g = self.db.lock().map_err(|e| diag("database lock", e))?;
        let counter = format!("{}.last-id", self.db_path);
        let last: u32 = std::fs::read_to_string(&counter)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        let mut db = self.load();
        let mut n = last + 1;
        while db.contains_key(&format!("{prefix}-{n}")) {
            n += 1;
        }
        std::fs::write(&counter, n.to_string())
            .map_err(|e| diag("cannot write the database", e))?;
        let id = format!("{prefix}-{n}");
        // Reserved at once, so that applies running in parallel never get the same one.
        db.insert(id.clone(), (type_name.to_owned(), serde_json::Value::Null));
        self.save(&db)?;
        Ok((id, n))
    }

    fn plan_server(
        &self,
        req: &PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, Diagnostic> {
        let wire = self.server_schema();
        let prior: Option<Server> = self.decode(&req.prior_state, &wire)?;
        let Some(mut planned) = self.decode::<Server>(&req.proposed_new_state, &wire)? else {
            // Destroy: nothing to plan.
            return Ok(PlanResourceChangeResponse::new(
                req.proposed_new_state.clone(),
            ));
        };
        if planned.size == Unknown::Known(None) {
            planned.size = Unknown::Known(Some(1));
        }
        for d in &mut planned.disk {
            if d.kind == Unknown::Known(None) {
                d.kind = Unknown::Known(Some("ssd".into()));
            }
        }
        let mut requires_replace = Vec::new();
        match &prior {
            Some(p) if p.name != planned.name => {
                requires_replace.push(AttributePath::new().attr("name"));
                planned.id = Unknown::unknown().not_null();
                planned.ip_address = Unknown::unknown().not_null().with_prefix("10.0.");
            }
            Some(_) => {}
            None => {
                planned.id = Unknown::unknown().not_null();
                planned.ip_address = Unknown::unknown().not_null().with_prefix("10.0.");
            }
        }
        let mut resp = PlanResourceChangeResponse::new(self.encode(Some(&planned), &wire)?);
        resp.requires_replace = requires_replace;
        Ok(resp)
    }

    fn apply_server(
        &self,
        req: &ApplyResourceChangeRequest,
    ) -> Result<ApplyResourceChangeResponse, Diagnostic> {
        let wire = self.server_schema();
        let prior: Option<Server> = self.decode(&req.prior_state, &wire)?;
        let Some(mut planned) = self.decode::<Server>(&req.planned_state, &wire)? else {
            if let Some(Unknown::Known(Some(id))) = prior.as_ref().map(|p| &p.id) {
                self.remove(id)?;
            }
            return Ok(ApplyResourceChangeResponse::new(
                self.encode::<Server>(None, &wire)?,
            ));
        };
        if planned.id.is_unknown() {
            let (id, n) = self.next_id("srv", "thing_server")?;
            planned.id = Unknown::Known(Some(id));
            let ip = if std::env::var("THING_BREAK_PROMISE").as_deref() == Ok("1") {
                format!("192.168.0.{n}")
            } else {
                format!("10.0.0.{n}")
            };
            planned.ip_address = Unknown::Known(Some(ip));
        }
        if let Unknown::Known(Some(id)) = &planned.id {
            self.store("thing_server", id, &planned)?;
        }
        Ok(ApplyResourceChangeResponse::new(
            self.encode(Some(&planned), &wire)?,
        ))
    }

    fn apply_volume(
        &self,
        req: &ApplyResourceChangeRequest,
    ) -> Result<ApplyResourceChangeResponse, Diagnostic> {
        let wire = Volume::schema();
        let prior: Option<Volume> = self.decode(&req.prior_state, &wire)?;
        let Some(mut planned) = self.decode::<Volume>(&req.planned_state, &wire)? else {
            if let Some(Unknown::Known(Some(id))) = prior.as_ref().map(|p| &p.id) {
                self.remove(id)?;
            }
            return Ok(ApplyResourceChangeResponse::new(
                self.encode::<Volume>(None, &wire)?,
            ));
        };
        let Unknown::Known(server_id) = &planned.server_id else {
            return Err(Diagnostic::error("server_id is still unknown at apply"));
        };
        if self.fetch::<Server>(server_id)?.is_none() {
            return Err(Diagnostic::error("no such server")
                .with_detail(format!("There is no server `{server_id}`."))
                .at(AttributePath::new().attr("server_id")));
        }
        if planned.id.is_unknown() {
            planned.id = Unknown::Known(Some(self.next_id("vol", "thing_volume")?.0));
        }
        if let Unknown::Known(Some(id)) = &planned.id {
            self.store("thing_volume", id, &planned)?;
        }
        Ok(ApplyResourceChangeResponse::new(
            self.encode(Some(&planned), &wire)?,
        ))
    }

    /// Refresh: the stored object, or null when it is gone.
    fn read<M: TfModel + Serialize + serde::de::DeserializeOwned>(
        &self,
        req: &ReadResourceRequest,
        wire: &Schema,
        id_of: impl Fn(&M) -> Option<String>,
    ) -> Result<ReadResourceResponse, Diagnostic> {
        let Some(current) = self.decode::<M>(&req.current_state, wire)? else {
            return Ok(ReadResourceResponse::new(
                req.current_state.clone(),
                req.private.clone(),
            ));
        };
        let Some(id) = id_of(&current) else {
            return Ok(ReadResourceResponse::new(
                req.current_state.clone(),
                req.private.clone(),
            ));
        };
        let found: Option<M> = self.fetch(&id)?;
        Ok(ReadResourceResponse::new(
            self.encode(found.as_ref(), wire)?,
            req.private.clone(),
        ))
    }
}

fn known_id(id: &Unknown<Option<String>>) -> Option<String> {
    id.known().cloned().flatten()
}

impl Provider for Thing {
    fn schemas(&self) -> Schemas {
        Schemas::new()
            .resource("thing_server", self.server_schema())
            .resource("thing_volume", Volume::schema())
            .data_source("thing_info", Info::schema())
    }

    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Vec<Diagnostic> {
        if req.type_name != "thing_server" {
            return Vec::new();
        }
        match self.decode::<Server>(&req.config, &self.server_schema()) {
            Ok(Some(s)) if s.name.known().is_some_and(String::is_empty) => {
                vec![Diagnostic::error("name must not be empty")
                    .at(AttributePath::new().attr("name"))]
            }
            Ok(Some(s)) => s
                .disk
                .iter()
                .enumerate()
                .filter(|(_, d)| d.size_gb == 0)
                .map(|(i, _)| {
                    Diagnostic::error("a disk needs a size").at(AttributePath::new()
                        .attr("disk")
                        .index(i as u64)
                        .attr("size_gb"))
                })
                .collect(),
            Ok(None) => Vec::new(),
            Err(d) => vec![d],
        }
    }

    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        if req.type_name != "thing_server" {
            return same_version_upgrade(&req);
        }
        let wire = self.server_schema();
        let result = self
            .server_codec
            .decode(req.version, &req.raw_state)
            .map_err(|e| Diagnostic::from_value_error("cannot upgrade the stored state", &e))
            .and_then(|m| self.encode(Some(&m), &wire));
        match result {
            Ok(dv) => UpgradeResourceStateResponse::new(dv),
            Err(d) => d.into(),
        }
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        let result = match req.type_name.as_str() {
            "thing_server" => self.read::<Server>(&req, &self.server_schema(), |s| known_id(&s.id)),
            _ => self.read::<Volume>(&req, &Volume::schema(), |v| known_id(&v.id)),
        };
        result.unwrap_or_else(Into::into)
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let result = match req.type_name.as_str() {
            "thing_server" => self.plan_server(&req),
            _ => (|| {
                let wire = Volume::schema();
                let prior: Option<Volume> = self.decode(&req.prior_state, &wire)?;
                let Some(mut planned) = self.decode::<Volume>(&req.proposed_new_state, &wire)?
                else {
                    return Ok(PlanResourceChangeResponse::new(
                        req.proposed_new_state.clone(),
                    ));
                };
                let mut resp_replace = Vec::new();
                match &prior {
                    Some(p) if p.server_id != planned.server_id => {
                        resp_replace.push(AttributePath::new().attr("server_id"));
                        planned.id = Unknown::unknown().not_null();
                    }
                    Some(_) => {}
                    None => planned.id = Unknown::unknown().not_null(),
                }
                let mut resp = PlanResourceChangeResponse::new(self.encode(Some(&planned), &wire)?);
                resp.requires_replace = resp_replace;
                Ok(resp)
            })(),
        };
        result.unwrap_or_else(Into::into)
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let result = match req.type_name.as_str() {
            "thing_server" => self.apply_server(&req),
            _ => self.apply_volume(&req),
        };
        result.unwrap_or_else(Into::into)
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let result = (|| {
            let wire = match req.type_name.as_str() {
                "thing_server" => self.server_schema(),
                _ => Volume::schema(),
            };
            let state = if req.type_name == "thing_server" {
                self.encode(self.fetch::<Server>(&req.id)?.as_ref(), &wire)?
            } else {
                self.encode(self.fetch::<Volume>(&req.id)?.as_ref(), &wire)?
            };
            if state.msgpack == [0xc0] {
                return Err(Diagnostic::error("cannot import").with_detail(format!(
                    "There is no {} with id `{}`.",
                    req.type_name, req.id
                )));
            }
            Ok(ImportResourceStateResponse::new(vec![
                ImportedResource::new(&req.type_name, state),
            ]))
        })();
        result.unwrap_or_else(Into::into)
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let result = (|| {
            let wire = Info::schema();
            let Some(mut info) = self.decode::<Info>(&req.config, &wire)? else {
                return Err(Diagnostic::error("no configuration"));
            };
            info.greeting = Some(format!("hello, {}", info.name));
            Ok(ReadDataSourceResponse::new(
                self.encode(Some(&info), &wire)?,
            ))
        })();
        result.unwrap_or_else(Into::into)
    }
}

fn main() {
    let thing = Thing::new();
    let versions: &[u32] = if thing.v6 { &[6] } else { &[5] };
    serve_main(
        thing,
        ServeConfig::new("example.com/acme/thing").protocol_versions(versions),
    );
}
