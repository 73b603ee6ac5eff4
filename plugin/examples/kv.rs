//! `terraform-provider-kv`: a key-value store in a JSON file, written on the framework
//! (`tfvalue_plugin::framework`).
//!
//! The provider block names the store (`path`, a `.json` file); resource `kv_entry` is
//! one entry, data source `kv_lookup` reads one. The file maps each key to the entry's
//! state as tfvalue JSON (its write-only `secret_wo` kept as `secret`); edit it behind
//! Terraform's back and `terraform refresh` sees it.
//!
//! - Functions (Terraform 1.8+): `provider::kv::id(key)` gives the id an entry of that
//!   key gets, `provider::kv::merge(maps...)` merges maps of strings left to right.
//! - `kv_lease` leases an entry's value for one run (an ephemeral resource, Terraform
//!   1.10+); each open, renew and close is a line in `<store>.leases`.
//! - `kv_legacy_entry` is an entry in the provider's first shape (`data` for `value`);
//!   a `moved` block takes its state into a `kv_entry` (Terraform 1.8+).
//! - An entry's identity is its key (Terraform 1.12+:
//!   `import { identity = { key = "a" } }`).
//! - `list "kv_entry"` blocks list entries by key prefix (Terraform 1.14+ `terraform
//!   query`, streamed as they are read); `-generate-config-out` writes their
//!   configuration (from the model's roles: what only the provider sets is left out).
//! - Action `kv_compact` rewrites the store, every entry in its canonical form, with
//!   progress (Terraform 1.14+ `terraform apply -invoke=action.kv_compact.x`).
//! - State store `kv_states` keeps Terraform's own state, a file per workspace in a
//!   folder (protocol 6; `terraform { state_store "kv_states" { .. } }`, experimental in
//!   Terraform 1.15), written atomically and locked across processes.
//!
//! `KV_PROTOCOL=5` or `6` serves one protocol only.
//!
//! The store is read and written as `support/store.rs` does it (copy that file too): a
//! lock shared by every process using the file, atomic writes, and an error naming the
//! file when it is damaged. Its calls block; each handler runs on a thread of its own,
//! so that is allowed.

#[path = "support/store.rs"]
mod store;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tfvalue::{AttributePath, Dynamic, DynamicValue, Number, TfValue, Unknown};
use tfvalue_plugin::framework::*;
use tfvalue_plugin::{serve_main, ActionProgress, FunctionError, ServeConfig};

/// The provider block.
#[derive(TfValue, Serialize, Deserialize)]
struct Config {
    /// The store: a `.json` file (a missing file is an empty store).
    path: Unknown<String>,
}

/// A rule of an entry.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Rule {
    name: Unknown<String>,
    #[tfvalue(optional)]
    priority: Unknown<Option<Number>>,
}

/// Who may do what with an entry.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Acl {
    principal: Unknown<String>,
    #[tfvalue(one_of = ["read", "write", "admin"])]
    level: Unknown<String>,
}

/// An entry of the store.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[tfvalue(version = 1)]
struct Entry {
    /// The key; changing it replaces the entry.
    #[tfvalue(requires_replace)]
    key: Unknown<String>,
    #[tfvalue(optional)]
    value: Unknown<Option<String>>,
    /// Seconds to live.
    #[tfvalue(optional, computed, default = 3600, at_least = 1)]
    ttl: Unknown<Option<Number>>,
    /// `kv-<key>`.
    #[tfvalue(computed, use_state_for_unknown, refine(not_null, prefix = "kv-"))]
    id: Unknown<Option<String>>,
    /// 1 on create, one more on every change.
    #[tfvalue(computed)]
    version: Unknown<Option<u64>>,
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
    #[tfvalue(block)]
    rule: Unknown<Vec<Rule>>,
    #[tfvalue(block = "set")]
    acl: Unknown<Vec<Acl>>,
    #[tfvalue(optional)]
    meta: Dynamic,
    /// A secret handed to the store on create and on every update (changing
    /// `secret_wo_version` makes one). Write-only (Terraform 1.11 and later): never in a
    /// plan or a state, and a new value alone is no change.
    #[tfvalue(optional, sensitive, write_only)]
    secret_wo: Unknown<Option<String>>,
    /// Change it to hand `secret_wo` to the store again.
    #[tfvalue(optional)]
    secret_wo_version: Unknown<Option<u64>>,
}

/// An entry's identity (Terraform 1.12+): its key.
#[derive(TfValue, Serialize, Deserialize)]
struct EntryIdentity {
    /// The entry's key.
    key: String,
}

/// Schema version 0 of an entry: the value under `data`, no rules, acls or meta.
#[derive(TfValue, Serialize, Deserialize)]
struct EntryV0 {
    key: String,
    #[tfvalue(optional)]
    data: Option<String>,
    #[tfvalue(optional, computed)]
    ttl: Option<Number>,
    #[tfvalue(computed)]
    id: Option<String>,
    #[tfvalue(computed)]
    version: Option<u64>,
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, Unknown<String>>>,
}

/// `kv_legacy_entry`: an entry in the shape (and under the name) of the provider's
/// first release, over the same entries; `moved { from = kv_legacy_entry.x  to =
/// kv_entry.x }` turns one into a `kv_entry`.
#[derive(TfValue, Serialize, Deserialize)]
#[tfvalue(deprecated = "Use kv_entry: a moved block takes an entry's state there.")]
struct LegacyEntry {
    #[tfvalue(requires_replace)]
    key: Unknown<String>,
    /// The entry's `value`.
    #[tfvalue(optional)]
    data: Unknown<Option<String>>,
    #[tfvalue(computed, use_state_for_unknown)]
    id: Unknown<Option<String>>,
    #[tfvalue(computed)]
    version: Unknown<Option<u64>>,
}

/// `kv_lease`: an entry's value, leased for one run (an ephemeral resource, Terraform
/// 1.10+): never in a plan or a state, usable in a provider block or a write-only
/// attribute.
#[derive(TfValue, Serialize, Deserialize)]
struct Lease {
    /// The entry's key.
    key: Unknown<String>,
    /// The entry's value.
    #[tfvalue(computed, sensitive)]
    value: Unknown<Option<String>>,
}

/// The data source: an entry looked up by key.
#[derive(TfValue, Serialize, Deserialize)]
struct Lookup {
    key: Unknown<String>,
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    #[tfvalue(computed)]
    value: Unknown<Option<String>>,
    #[tfvalue(computed)]
    ttl: Unknown<Option<Number>>,
    #[tfvalue(computed)]
    version: Unknown<Option<u64>>,
    #[tfvalue(computed)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
}

/// The file's contents: each entry as tfvalue's JSON of its model (a map of models
/// could not hold two types of `meta`). Each operation decodes the entries it needs,
/// not the whole store.
type Raw = BTreeMap<String, Box<RawValue>>;

/// The client: the store's file, and the log of leases beside it.
struct Store {
    file: store::JsonFile,
    /// `<store>.leases`: a line `open|renew|close <key>` for each event of a lease.
    leases: PathBuf,
}

/// An entry from the store's JSON. `decode_model` reads it with the decoder the derive
/// wrote for `Entry`, which the framework uses too (`tfvalue::json::from_str::<Entry>`
/// would compile serde's JSON decoder for it as well: seconds of every release build).
fn entry_from_json(json: &str) -> Result<Entry> {
    let json = renamed(json, "secret", "secret_wo")?;
    let dv = DynamicValue::from_json(json.get().as_bytes().to_vec());
    Ok(dv.decode_model()?)
}

/// An entry as the store's JSON (through MessagePack and a `Value`, for the same reason).
fn entry_to_json(e: &Entry) -> Result<Box<RawValue>> {
    let ty = Entry::tf_type();
    let json = DynamicValue::encode_model(e)?
        .decode_value(&ty)?
        .to_json(&ty)?;
    let json = String::from_utf8(json).map_err(|e| Diagnostic::error(e.to_string()))?;
    renamed(&json, "secret_wo", "secret")
}

/// The JSON object `json` with its field `from` named `to`: the store keeps an entry's
/// write-only `secret_wo` as `secret`. (Fields as raw JSON: numbers stay exact.)
fn renamed(json: &str, from: &str, to: &str) -> Result<Box<RawValue>> {
    let mut fields: BTreeMap<String, Box<RawValue>> = serde_json::from_str(json)?;
    if let Some(v) = fields.remove(from) {
        fields.insert(to.to_owned(), v);
    }
    Ok(RawValue::from_string(serde_json::to_string(&fields)?)?)
}

// The store's operations are plain functions, each calling the file once: a closure
// passed around would compile the file's locked read-modify-write once per caller.
impl Store {
    /// The entries whose key starts with `prefix`, as JSON, read under the shared lock.
    fn entries(&self, prefix: &str) -> Result<Vec<(String, Box<RawValue>)>> {
        self.file.read(|raw: Raw| {
            let matching = raw.into_iter().filter(|(k, _)| k.starts_with(prefix));
            Ok::<_, Diagnostics>(matching.collect())
        })
    }

    /// The entry of `key`, if there is one.
    fn get(&self, key: &str) -> Result<Option<Entry>> {
        let json = self
            .file
            .read(|mut raw: Raw| Ok::<_, Diagnostics>(raw.remove(key)))?;
        json.map(|json| entry_from_json(json.get())).transpose()
    }

    /// Writes `entry` as the entry of `key` (`None`: removes it), under the exclusive
    /// lock: no other process reads or writes in between. With `create`, the key must
    /// be new.
    fn put(&self, key: &str, entry: Option<Box<RawValue>>, create: bool) -> Result<()> {
        self.file.update(|raw: &mut Raw| {
            if create && raw.contains_key(key) {
                return Err(at("key", "the key exists: terraform import it").into());
            }
            match entry {
                Some(json) => raw.insert(key.to_owned(), json),
                None => raw.remove(key),
            };
            Ok(())
        })
    }

    /// Decodes every entry and writes it again in its canonical form (under the
    /// exclusive lock), unless the store has fewer than `min` entries; the number of
    /// entries.
    fn compact(&self, min: u64) -> Result<usize> {
        self.file.update(|raw: &mut Raw| {
            if (raw.len() as u64) < min {
                return Err(at("min_entries", "the store has fewer entries").into());
            }
            for json in raw.values_mut() {
                *json = entry_to_json(&entry_from_json(json.get())?)?;
            }
            Ok(raw.len())
        })
    }

    /// Records an event of the lease of `key`.
    fn log_lease(&self, event: &str, key: &str) -> Result<()> {
        Ok(store::append_line(&self.leases, &format!("{event} {key}"))?)
    }
}

fn at(attr: &str, summary: &str) -> Diagnostic {
    Diagnostic::error(summary).at(AttributePath::new().attr(attr))
}

impl ProviderConfig for Config {
    type Client = Store;

    fn validate(&self) -> Result<()> {
        if self.path.known().is_some_and(|p| !p.ends_with(".json")) {
            return Err(at("path", "path must name a .json file").into());
        }
        Ok(())
    }

    async fn configure(self, _cx: &Ctx) -> Result<Store> {
        let path = PathBuf::from(self.path.into_known().unwrap_or_default());
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if dir.is_some_and(|d| !d.is_dir()) {
            return Err(at("path", "the store's directory does not exist").into());
        }
        let mut leases = path.clone().into_os_string();
        leases.push(".leases");
        Ok(Store {
            file: store::JsonFile::new(path),
            leases: leases.into(),
        })
    }
}

struct EntryResource;

/// The entry's key, known at apply.
fn key(e: &Entry) -> String {
    e.key.known().cloned().unwrap_or_default()
}

/// `e` with the configured `secret_wo`, which the store keeps (the plan holds it null;
/// the configuration is the one place Terraform sends it).
fn with_secret(cx: &Ctx<Store>, mut e: Entry) -> Result<Entry> {
    if let Some(config) = cx.config::<Entry>()? {
        e.secret_wo = config.secret_wo;
    }
    Ok(e)
}

/// Writes `e` as the new state of its key; on create, the key must be new. The state
/// returned never holds `secret_wo`.
fn save(store: &Store, mut e: Entry, version: u64, create: bool) -> Result<Entry> {
    if e.value.value().is_some_and(|v| v == "FAIL") {
        return Err(at("value", "the store refused the value").into());
    }
    e.id = format!("kv-{}", key(&e)).into();
    e.version = version.into();
    store.put(&key(&e), Some(entry_to_json(&e)?), create)?;
    Ok(e)
}

impl Resource<Store> for EntryResource {
    type Model = Entry;
    const IMPORT_ID: &'static str = "key";

    fn upgrade(&self) -> tfvalue::codec::Codec<Entry> {
        tfvalue::codec::Codec::new().upgrade_from(|old: EntryV0| Entry {
            key: old.key.into(),
            value: old.data.into(),
            ttl: old.ttl.into(),
            id: old.id.into(),
            version: old.version.into(),
            tags: old.tags.into(),
            rule: Vec::new().into(),
            acl: Vec::new().into(),
            meta: Dynamic::null(),
            secret_wo: None.into(),
            secret_wo_version: None.into(),
        })
    }

    async fn create(&self, cx: &Ctx<Store>, e: Entry) -> Result<Entry> {
        save(cx.client(), with_secret(cx, e)?, 1, true)
    }

    async fn read(&self, cx: &Ctx<Store>, e: Entry) -> Result<Option<Entry>> {
        cx.client().get(&key(&e))
    }

    async fn update(&self, cx: &Ctx<Store>, prior: Entry, e: Entry) -> Result<Entry> {
        let version = prior.version.value().map_or(1, |v| v + 1);
        save(cx.client(), with_secret(cx, e)?, version, false)
    }

    async fn delete(&self, cx: &Ctx<Store>, e: Entry) -> Result<()> {
        cx.client().put(&key(&e), None, false)
    }

    async fn import(&self, cx: &Ctx<Store>, key: String) -> Result<Option<Entry>> {
        let found = cx.client().get(&key)?;
        Ok(Some(
            found.ok_or_else(|| Diagnostic::error("no such entry"))?,
        ))
    }

    fn identity(&self) -> Option<ResourceIdentity<Entry>> {
        let of = |e: &Entry| {
            Some(EntryIdentity {
                key: e.key.known()?.clone(),
            })
        };
        Some(ResourceIdentity::new(
            tfvalue::codec::Codec::new(),
            of,
            |i| i.key,
        ))
    }

    fn moves(&self) -> Vec<StateMove<Entry>> {
        let legacy = tfvalue::codec::Codec::<LegacyEntry>::new();
        vec![StateMove::new("kv_legacy_entry", legacy, |old| {
            Ok(Entry::from(old))
        })]
    }
}

impl From<LegacyEntry> for Entry {
    fn from(old: LegacyEntry) -> Entry {
        Entry {
            key: old.key,
            value: old.data,
            ttl: Some(Number::from(3600)).into(),
            id: old.id,
            version: old.version,
            tags: None.into(),
            rule: Vec::new().into(),
            acl: Vec::new().into(),
            meta: Dynamic::null(),
            secret_wo: None.into(),
            secret_wo_version: None.into(),
        }
    }
}

impl From<Entry> for LegacyEntry {
    fn from(e: Entry) -> LegacyEntry {
        let (key, data, id, version) = (e.key, e.value, e.id, e.version);
        LegacyEntry {
            key,
            data,
            id,
            version,
        }
    }
}

struct LegacyEntryResource;

impl Resource<Store> for LegacyEntryResource {
    type Model = LegacyEntry;

    async fn create(&self, cx: &Ctx<Store>, e: LegacyEntry) -> Result<LegacyEntry> {
        save(cx.client(), e.into(), 1, true).map(Into::into)
    }

    async fn read(&self, cx: &Ctx<Store>, e: LegacyEntry) -> Result<Option<LegacyEntry>> {
        let k = e.key.known().cloned().unwrap_or_default();
        Ok(cx.client().get(&k)?.map(Into::into))
    }

    async fn update(
        &self,
        cx: &Ctx<Store>,
        prior: LegacyEntry,
        e: LegacyEntry,
    ) -> Result<LegacyEntry> {
        let version = prior.version.value().map_or(1, |v| v + 1);
        save(cx.client(), e.into(), version, false).map(Into::into)
    }

    async fn delete(&self, cx: &Ctx<Store>, e: LegacyEntry) -> Result<()> {
        let k = e.key.known().cloned().unwrap_or_default();
        cx.client().put(&k, None, false)
    }
}

struct LookupSource;

impl DataSource<Store> for LookupSource {
    type Model = Lookup;

    async fn read(&self, cx: &Ctx<Store>, mut l: Lookup) -> Result<Lookup> {
        let k = l.key.known().cloned().unwrap_or_default();
        let Some(e) = cx.client().get(&k)? else {
            return Err(at("key", "no such entry").into());
        };
        (l.id, l.value, l.ttl, l.version, l.tags) = (e.id, e.value, e.ttl, e.version, e.tags);
        Ok(l)
    }
}

struct LeaseResource;

/// With `KV_LEASE_RENEW_SECS` set, a lease asks to be renewed that many seconds on.
fn renew_lease(cx: &Ctx<Store>) -> Result<()> {
    if let Ok(secs) = std::env::var("KV_LEASE_RENEW_SECS") {
        let secs = secs
            .parse()
            .map_err(|_| Diagnostic::error("KV_LEASE_RENEW_SECS: not a number"))?;
        let at = std::time::SystemTime::now() + std::time::Duration::from_secs(secs);
        cx.set_renew_at(at);
    }
    Ok(())
}

impl EphemeralResource<Store> for LeaseResource {
    type Model = Lease;

    async fn open(&self, cx: &Ctx<Store>, mut lease: Lease) -> Result<Lease> {
        let k = lease.key.known().cloned().unwrap_or_default();
        let Some(e) = cx.client().get(&k)? else {
            return Err(at("key", "no such entry").into());
        };
        lease.value = e.value;
        cx.client().log_lease("open", &k)?;
        cx.set_private(k.into_bytes());
        renew_lease(cx)?;
        Ok(lease)
    }

    async fn renew(&self, cx: &Ctx<Store>) -> Result<()> {
        cx.client()
            .log_lease("renew", &String::from_utf8_lossy(&cx.private()))?;
        renew_lease(cx)
    }

    async fn close(&self, cx: &Ctx<Store>) -> Result<()> {
        cx.client()
            .log_lease("close", &String::from_utf8_lossy(&cx.private()))
    }
}

/// The filter of a `list "kv_entry"` block.
#[derive(TfValue, Serialize, Deserialize)]
#[tfvalue(markdown)]
struct EntryFilter {
    /// Only entries whose key starts with it.
    #[tfvalue(optional)]
    prefix: Unknown<Option<String>>,
}

struct ListEntries;

impl ListResource<Store> for ListEntries {
    type Resource = EntryResource;
    type Filter = EntryFilter;

    async fn list(
        &self,
        cx: &Ctx<Store>,
        f: EntryFilter,
        out: &mut Listed<'_, Entry>,
    ) -> Result<()> {
        let prefix = f.prefix.into_known().flatten().unwrap_or_default();
        // The matching entries' JSON, read under the lock; each is decoded when sent, and
        // sending waits for Terraform to read: a few decoded entries at a time.
        for (key, json) in cx.client().entries(&prefix)? {
            let entry = entry_from_json(json.get())?;
            if !out.send(&key, &entry).await? {
                break; // Terraform has all it wants.
            }
        }
        Ok(())
    }
}

/// `kv_compact`: rewrites the store, every entry in its canonical form.
#[derive(TfValue, Serialize, Deserialize)]
#[tfvalue(markdown)]
struct Compact {
    /// Refuse to rewrite a store of fewer entries (a guard against the wrong file).
    #[tfvalue(optional, at_least = 0)]
    min_entries: Unknown<Option<u64>>,
}

struct CompactAction;

impl Action<Store> for CompactAction {
    type Model = Compact;

    async fn invoke(&self, cx: &Ctx<Store>, c: Compact, progress: &ActionProgress) -> Result<()> {
        let min = c.min_entries.into_known().flatten().unwrap_or(0);
        let _ = progress.send("reading the store").await;
        // Every entry decoded and written again, atomically, under the exclusive lock.
        let n = cx.client().compact(min)?;
        // Progress is shown, not needed: a Terraform gone away does not undo the work.
        let _ = progress.send(format!("rewrote {n} entries")).await;
        Ok(())
    }
}

/// `kv_states`: where Terraform's states go.
#[derive(TfValue, Serialize, Deserialize)]
struct StatesConfig {
    /// The folder of the state files, `<workspace>.tfstate` each (it must exist).
    dir: Unknown<String>,
}

struct States;

/// A folder of state files, and the locks this process holds on them.
struct StatesDir {
    dir: PathBuf,
    /// The lock files held open (their `flock` is the lock), by lock id.
    locks: std::sync::Mutex<BTreeMap<String, std::fs::File>>,
}

/// Whether `id` is a workspace name this store keeps: letters, digits, `-`, `_` and `.`,
/// not first (so no path, device or hidden name can be smuggled in).
fn workspace_name(id: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
    !id.is_empty() && !id.starts_with('.') && id.chars().all(allowed)
}

impl StatesDir {
    /// The file of workspace `id`.
    fn file(&self, id: &str, ext: &str) -> Result<PathBuf> {
        if !workspace_name(id) {
            return Err(Diagnostic::error(format!("`{id}` is not a workspace name")).into());
        }
        Ok(self.dir.join(format!("{id}.{ext}")))
    }
}

impl StateStore<Store> for States {
    type Model = StatesConfig;
    type Store = StatesDir;

    async fn configure(&self, _cx: &Ctx<Store>, c: StatesConfig) -> Result<StatesDir> {
        let dir = PathBuf::from(c.dir.into_known().unwrap_or_default());
        if !dir.is_dir() {
            return Err(at("dir", "the folder of the states does not exist").into());
        }
        let locks = std::sync::Mutex::default();
        Ok(StatesDir { dir, locks })
    }

    async fn read(&self, _: &Ctx<Store>, s: &StatesDir, id: &str) -> Result<Option<Vec<u8>>> {
        match std::fs::read(s.file(id, "tfstate")?) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            read => Ok(Some(read?)),
        }
    }

    async fn write(&self, _: &Ctx<Store>, s: &StatesDir, id: &str, state: Vec<u8>) -> Result<()> {
        Ok(store::write_atomic(&s.file(id, "tfstate")?, &state)?)
    }

    /// A `flock` on `<workspace>.tfstate.lock`, held while Terraform holds the lock (and
    /// given back by the system if this process dies); the file says who holds it.
    async fn lock(&self, _: &Ctx<Store>, s: &StatesDir, id: &str, op: &str) -> Result<String> {
        use std::io::{Read as _, Seek as _, Write as _};
        let path = s.file(id, "tfstate.lock")?;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                file.read_to_string(&mut holder)?;
                let held = format!("the state of workspace `{id}` is locked: {holder}");
                return Err(Diagnostic::error(held)
                    .with_detail(path.display().to_string())
                    .into());
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e.into()),
        }
        let lock_id = format!("{}-{op}-{id}", std::process::id());
        file.set_len(0)?;
        file.rewind()?;
        write!(file, "{op} by process {}", std::process::id())?;
        let mut locks = s.locks.lock().map_err(|_| Diagnostic::error("poisoned"))?;
        locks.insert(lock_id.clone(), file);
        Ok(lock_id)
    }

    async fn unlock(&self, _: &Ctx<Store>, s: &StatesDir, id: &str, lock_id: &str) -> Result<()> {
        let mut locks = s.locks.lock().map_err(|_| Diagnostic::error("poisoned"))?;
        // Closing the file gives the lock back.
        match locks.remove(lock_id) {
            Some(_file) => Ok(()),
            None => Err(Diagnostic::error(format!(
                "workspace `{id}` has no lock `{lock_id}` here"
            ))
            .into()),
        }
    }

    async fn states(&self, _cx: &Ctx<Store>, s: &StatesDir) -> Result<Vec<String>> {
        let mut ids = Vec::new();
        for entry in std::fs::read_dir(&s.dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            let id = name
                .strip_suffix(".tfstate")
                .filter(|id| workspace_name(id));
            ids.extend(id.map(str::to_owned));
        }
        ids.sort();
        Ok(ids)
    }

    async fn delete(&self, _cx: &Ctx<Store>, s: &StatesDir, id: &str) -> Result<()> {
        Ok(std::fs::remove_file(s.file(id, "tfstate")?)?)
    }
}

/// `provider::kv::id(key)`: the id an entry of that key gets.
struct IdFunction;

impl Function for IdFunction {
    type Args = (String,);
    type Return = String;

    fn definition(&self) -> FunctionDefinition {
        FunctionDefinition::new("The id of the entry with this key")
            .description("Returns `kv-<key>`, the id `kv_entry` sets, without the store.")
            .parameter("key", "The entry's key; not empty.")
    }

    fn call(&self, (key,): (String,)) -> Result<String, FunctionError> {
        if key.is_empty() {
            return Err(FunctionError::argument(0, "the key must not be empty"));
        }
        Ok(format!("kv-{key}"))
    }
}

/// `provider::kv::merge(maps...)`: maps of strings merged left to right.
struct MergeFunction;

impl Function for MergeFunction {
    type Args = (Variadic<BTreeMap<String, String>>,);
    type Return = BTreeMap<String, String>;

    fn definition(&self) -> FunctionDefinition {
        FunctionDefinition::new("Merges maps of strings")
            .description("A key of a later map wins over the same key of an earlier one.")
            .parameter("maps", "The maps, in order.")
    }

    fn call(&self, (maps,): Self::Args) -> Result<BTreeMap<String, String>, FunctionError> {
        Ok(maps.0.into_iter().flatten().collect())
    }
}

/// The provider: `main` serves it, and acceptance tests serve it in their own process
/// (`tests/examples.rs` takes this file in as a module).
pub fn provider() -> impl tfvalue_plugin::Provider {
    Framework::new_with::<Config>()
        .resource("kv_entry", EntryResource)
        .resource("kv_legacy_entry", LegacyEntryResource)
        .data_source("kv_lookup", LookupSource)
        .ephemeral_resource("kv_lease", LeaseResource)
        .list_resource("kv_entry", ListEntries)
        .action("kv_compact", CompactAction)
        .state_store("kv_states", States)
        .function("id", IdFunction)
        .function("merge", MergeFunction)
}

fn main() {
    let versions = match std::env::var("KV_PROTOCOL").as_deref() {
        Ok("5") => vec![5],
        Ok("6") => vec![6],
        _ => vec![5, 6],
    };
    let config = ServeConfig::new("example.com/acme/kv");
    serve_main(provider(), config.protocol_versions(&versions));
}
