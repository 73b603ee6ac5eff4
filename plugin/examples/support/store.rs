//! A JSON file that several provider processes read and update, safely: what the
//! examples keep their "cloud" in, and what a provider keeping local state should copy.
//!
//! - **One update at a time, across processes.** Every read-modify-write holds an
//!   advisory lock (`flock`) on `<file>.lock` beside the file: two Terraform runs sharing
//!   one store (or Terraform's parallel applies within one run) never lose each other's
//!   writes. The lock file is never replaced, so the lock stays valid across renames.
//! - **Atomic writes.** The new contents go to a temporary file in the same directory,
//!   are synced to disk, and replace the file by a rename (then the directory is synced):
//!   a provider killed at any point, or a full disk, leaves either the old file or the
//!   new one, never a cut one.
//! - **A damaged file is an error, never an empty store.** A file that does not parse is
//!   reported with its path; reading it as empty would make the provider forget every
//!   object silently.
//! - **Errors name the file and the operation** (`cannot rename /x/.store.json.tmp to
//!   /x/store.json: No space left on device`).
//!
//! The calls block (file I/O, waiting for the lock): tfvalue-plugin runs each handler on
//! a thread of its own, where blocking is allowed and holds up no other request.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// What went wrong with a store, with its file and the operation that failed.
#[derive(Debug)]
pub struct StoreError {
    /// The file the operation was on.
    pub path: PathBuf,
    /// What was done: "read", "lock", "write", "sync", "rename".
    pub operation: &'static str,
    /// Why it failed.
    pub cause: String,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.operation == "parse" {
            write!(
                f,
                "the store {} is damaged: {} (restore it from a backup, or remove it to start \
                 an empty store)",
                self.path.display(),
                self.cause
            )
        } else {
            write!(
                f,
                "cannot {} {}: {}",
                self.operation,
                self.path.display(),
                self.cause
            )
        }
    }
}

impl std::error::Error for StoreError {}

fn fail(path: &Path, operation: &'static str, cause: impl fmt::Display) -> StoreError {
    StoreError {
        path: path.to_owned(),
        operation,
        cause: cause.to_string(),
    }
}

/// A JSON file of `T`, read and written under a lock shared with every other process
/// that opens the same path. A missing file is `T::default()`.
pub struct JsonFile {
    path: PathBuf,
    lock_path: PathBuf,
}

/// Holds the store's lock until dropped (closing the file releases it).
struct Locked(#[allow(dead_code)] File);

impl JsonFile {
    /// The store at `path`; its lock is `<path>.lock`.
    pub fn new(path: impl Into<PathBuf>) -> JsonFile {
        let path = path.into();
        let mut lock_path = path.clone().into_os_string();
        lock_path.push(".lock");
        JsonFile {
            path,
            lock_path: lock_path.into(),
        }
    }

    fn lock(&self, exclusive: bool) -> Result<Locked, StoreError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.lock_path)
            .map_err(|e| fail(&self.lock_path, "open", e))?;
        if exclusive {
            file.lock()
        } else {
            file.lock_shared()
        }
        .map_err(|e| fail(&self.lock_path, "lock", e))?;
        Ok(Locked(file))
    }

    fn load<T: DeserializeOwned + Default>(&self) -> Result<T, StoreError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                let cause = if bytes.is_empty() {
                    "the file is empty".to_owned()
                } else {
                    format!("not the JSON of a store ({e})")
                };
                fail(&self.path, "parse", cause)
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
            Err(e) => Err(fail(&self.path, "read", e)),
        }
    }

    /// Writes `bytes` in place of the file, atomically.
    fn replace(&self, bytes: &[u8]) -> Result<(), StoreError> {
        write_atomic(&self.path, bytes)
    }

    /// Reads the store (under a shared lock) and gives it to `f`.
    pub fn read<T, R, E>(&self, f: impl FnOnce(T) -> Result<R, E>) -> Result<R, E>
    where
        T: DeserializeOwned + Default,
        E: From<StoreError>,
    {
        let _lock = self.lock(false)?;
        let data = self.load()?;
        f(data)
    }

    /// Reads the store, lets `f` change it and writes it back when `f` succeeds, all
    /// under the exclusive lock: no other process reads or writes in between.
    pub fn update<T, R, E>(&self, f: impl FnOnce(&mut T) -> Result<R, E>) -> Result<R, E>
    where
        T: DeserializeOwned + Serialize + Default,
        E: From<StoreError>,
    {
        let _lock = self.lock(true)?;
        let mut data: T = self.load()?;
        let out = f(&mut data)?;
        let bytes = serde_json::to_vec_pretty(&data).map_err(|e| fail(&self.path, "encode", e))?;
        self.replace(&bytes)?;
        Ok(out)
    }
}

/// Writes `bytes` in place of the file at `path`, atomically: a temporary file in the
/// same directory, synced, renamed over it, the directory synced. A reader sees the old
/// file or the new one, never a part.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    // Unique within the process too: two threads may write at once.
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let written = (|| {
        let mut f = File::create(&tmp).map_err(|e| fail(&tmp, "create", e))?;
        f.write_all(bytes).map_err(|e| fail(&tmp, "write", e))?;
        f.sync_all().map_err(|e| fail(&tmp, "sync", e))?;
        std::fs::rename(&tmp, path).map_err(|e| StoreError {
            path: path.to_path_buf(),
            operation: "rename",
            cause: format!("{} onto it: {e}", tmp.display()),
        })
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    // The rename itself reaches the disk with the directory.
    File::open(&dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| fail(&dir, "sync", e))
}

/// Appends `line` and a newline to the file at `path` (created if missing), in one
/// write to a file opened for appending: lines of processes appending at once never mix
/// (a small write to an `O_APPEND` file lands whole at its end), and the line is synced
/// to disk before this returns.
#[allow(dead_code)] // Not every example keeps a log.
pub fn append_line(path: &Path, line: &str) -> Result<(), StoreError> {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| fail(path, "open", e))?;
    f.write_all(format!("{line}\n").as_bytes())
        .map_err(|e| fail(path, "write", e))?;
    f.sync_data().map_err(|e| fail(path, "sync", e))
}
