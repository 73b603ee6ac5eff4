//! The examples' store (`examples/support/store.rs`, what `kv.rs` and `thing.rs` keep
//! their data in) under faults: `kill -9` of a writer at random moments, two processes
//! updating one store at once, a full disk, a damaged file.
//!
//! The writers are this test binary run again as a child (`store_writer`, which does
//! nothing unless `STORE_WRITER` names a store).

#[path = "../examples/support/store.rs"]
#[allow(dead_code)]
mod store;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use store::{JsonFile, StoreError};

/// What the writers keep: a count, and one entry per increment, so that a store cut
/// half-way or a lost update shows as a count that disagrees with the entries.
type Data = BTreeMap<String, serde_json::Value>;

fn count(d: &Data) -> u64 {
    d.get("count")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0)
}

/// Adds one to the count and one entry (about 2 KB, so that a write takes a while).
fn increment(store: &JsonFile, who: &str) -> Result<u64, StoreError> {
    store.update(|d: &mut Data| {
        let n = count(d) + 1;
        d.insert("count".into(), n.into());
        d.insert(
            format!("entry-{n:06}"),
            format!("{who}:{}", "x".repeat(2000)).into(),
        );
        Ok::<_, StoreError>(n)
    })
}

/// The store's contents, checked: it parses, and its count is its number of entries.
fn check(path: &Path) -> u64 {
    let d: Data = JsonFile::new(path)
        .read(|d: Data| Ok::<_, StoreError>(d))
        .unwrap_or_else(|e| panic!("the store is unreadable: {e}"));
    let entries = d.keys().filter(|k| k.starts_with("entry-")).count() as u64;
    assert_eq!(count(&d), entries, "the count disagrees with the entries");
    entries
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tfvalue-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// This binary as a writer of `path`: `limit` increments, or forever when 0.
fn writer(path: &Path, limit: u64) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "store_writer", "--nocapture", "--test-threads=1"])
        .env("STORE_WRITER", path)
        .env("STORE_WRITER_LIMIT", limit.to_string())
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

/// Not a test of its own: the child process of the tests below.
#[test]
fn store_writer() {
    let Some(path) = std::env::var_os("STORE_WRITER") else {
        return;
    };
    let limit: u64 = std::env::var("STORE_WRITER_LIMIT")
        .ok()
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let store = JsonFile::new(PathBuf::from(path));
    let who = std::process::id().to_string();
    let mut done = 0;
    while limit == 0 || done < limit {
        increment(&store, &who).unwrap();
        done += 1;
    }
}

/// 30 times: a writer killed with SIGKILL at a random moment of its writes. The store is
/// never empty, cut or behind what it held before the writer started.
#[test]
fn the_store_survives_30_kills() {
    let d = dir("kills");
    let path = d.join("store.json");
    let mut before = 0;
    let mut seed = u64::from(std::process::id());
    for round in 0..30 {
        let mut child = writer(&path, 0);
        // Let it write for 20-80 ms, then kill it wherever it is.
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis(20 + (seed >> 33) % 60));
        child.kill().unwrap();
        child.wait().unwrap();
        let now = if path.exists() { check(&path) } else { 0 };
        assert!(
            now >= before,
            "round {round}: the store went back from {before} to {now}"
        );
        before = now;
    }
    assert!(before > 0, "no writer wrote anything");
    println!("30 kills, the store kept {before} increments, every one whole");
    let _ = std::fs::remove_dir_all(&d);
}

/// Two processes updating one store at once lose nothing: each update holds the lock
/// across its read and its write.
#[test]
fn two_writers_lose_no_update() {
    let d = dir("two");
    let path = d.join("store.json");
    let (a, b) = (writer(&path, 150), writer(&path, 150));
    for mut c in [a, b] {
        assert!(c.wait().unwrap().success());
    }
    assert_eq!(check(&path), 300);
    let _ = std::fs::remove_dir_all(&d);
}

/// A file that does not parse is an error naming it, never an empty store; the file is
/// left as it was.
#[test]
fn a_damaged_store_is_an_error_naming_it() {
    let d = dir("damaged");
    let path = d.join("store.json");
    for (bytes, why) in [
        (&b""[..], "the file is empty"),
        (b"{\"count\": 3, \"entr", "not the JSON of a store"),
    ] {
        std::fs::write(&path, bytes).unwrap();
        let store = JsonFile::new(&path);
        let err = store
            .read(|d: Data| Ok::<_, StoreError>(d))
            .unwrap_err()
            .to_string();
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert!(err.contains("is damaged") && err.contains(why), "{err}");
        let err = increment(&store, "me").unwrap_err().to_string();
        assert!(err.contains("is damaged"), "{err}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "the damaged file was changed"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A full disk: writes fail with an error naming the file and the operation, and the
/// store keeps its last whole contents. Needs a small filesystem: a tmpfs mounted for
/// the test (as root); without one the test says so and checks nothing.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_leaves_the_last_whole_store() {
    let d = dir("full");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=96k", "tmpfs"])
        .arg(&d)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        println!("skipped: cannot mount a small tmpfs here (needs root)");
        let _ = std::fs::remove_dir_all(&d);
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _unmount = Unmount(d.clone());
    let path = d.join("store.json");
    let store = JsonFile::new(&path);
    let started = Instant::now();
    let mut last = 0;
    let err = loop {
        match increment(&store, "me") {
            Ok(n) => last = n,
            Err(e) => break e,
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the disk never filled"
        );
    };
    let msg = err.to_string();
    assert!(msg.contains("No space left on device"), "{msg}");
    assert!(msg.contains(&d.display().to_string()), "{msg}");
    assert!(last > 0);
    // The store holds the last update that succeeded, whole, and no temporary file is
    // left behind to fill the disk further.
    assert_eq!(check(&path), last);
    let leftovers: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    println!("disk full after {last} updates: {msg}");
}
