//! The example provider's process as go-plugin sees it: the magic cookie, the handshake
//! line, protocol negotiation and the port range.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use base64::Engine as _;

/// The example provider, built (or found up to date) by cargo with this test's profile.
fn provider() -> PathBuf {
    tfvalue_plugin::testing::ProviderBinary::example("thing")
        .build()
        .unwrap_or_else(|e| panic!("building the example provider: {e}"))
}

#[test]
fn without_the_magic_cookie_it_says_it_is_a_plugin_and_exits_1() {
    let out = Command::new(provider())
        .env_remove(tfvalue_plugin::MAGIC_COOKIE_KEY)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("This binary is a plugin"), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// Starts the provider as Terraform would and returns the handshake line's fields.
fn handshake(extra: &[(&str, &str)]) -> Vec<String> {
    let mut cmd = Command::new(provider());
    cmd.env(
        tfvalue_plugin::MAGIC_COOKIE_KEY,
        tfvalue_plugin::MAGIC_COOKIE_VALUE,
    )
    .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
    .env("PLUGIN_MIN_PORT", "20100")
    .env("PLUGIN_MAX_PORT", "20199")
    .env_remove("PLUGIN_CLIENT_CERT")
    .env_remove("THING_PROTOCOL")
    .stdout(Stdio::piped());
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // SIGINT is ignored, as go-plugin hosts expect.
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        child.try_wait().unwrap().is_none(),
        "SIGINT ended the plugin"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    line.trim_end().split('|').map(str::to_owned).collect()
}

#[test]
fn the_handshake_line_is_what_go_plugin_reads() {
    let fields = handshake(&[]);
    assert_eq!(fields[..3], ["1", "6", "tcp"], "{fields:?}");
    let port: u16 = fields[3]
        .strip_prefix("127.0.0.1:")
        .unwrap()
        .parse()
        .unwrap();
    assert!((20100..=20199).contains(&port), "{port}");
    assert_eq!(fields[4], "grpc");
    assert_eq!(fields.len(), 5, "no certificate without PLUGIN_CLIENT_CERT");

    // With a client certificate, the server's certificate follows, base64 without padding.
    let cert = include_str!("../src/server/testdata/client.cert.pem");
    let fields = handshake(&[("PLUGIN_CLIENT_CERT", cert), ("THING_PROTOCOL", "5")]);
    assert_eq!(fields[1], "5", "{fields:?}");
    assert_eq!(fields.len(), 6);
    assert!(!fields[5].ends_with('='));
    let der = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(&fields[5])
        .unwrap();
    assert_eq!(der.first(), Some(&0x30), "a DER certificate");
}

/// A PEM block with garbage inside is refused at start, with a message that says so;
/// before, the server started and refused every client.
#[test]
fn a_client_certificate_that_is_not_one_fails_at_start() {
    let garbage = "-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n";
    let out = Command::new(provider())
        .env(
            tfvalue_plugin::MAGIC_COOKIE_KEY,
            tfvalue_plugin::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .env("PLUGIN_CLIENT_CERT", garbage)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("PLUGIN_CLIENT_CERT holds a PEM block that is not a valid X.509 certificate"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "a handshake line was printed");
}

/// Starts the provider from a shell as Terraform would, kills the shell so that the
/// provider is an orphan, and returns how long the provider lived on (at most `limit`).
/// With `dead_pipes`, the provider's stdout and stderr are pipes whose read ends are
/// closed before the shell dies, as when Terraform is killed.
#[cfg(unix)]
fn orphan_lives_on(dead_pipes: bool, limit: std::time::Duration) -> Option<std::time::Duration> {
    use std::time::{Duration, Instant};
    let mut shell = Command::new("sh")
        .arg("-c")
        .arg("\"$0\" & echo $!; wait")
        .arg(provider())
        .env(
            tfvalue_plugin::MAGIC_COOKIE_KEY,
            tfvalue_plugin::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .env_remove("PLUGIN_CLIENT_CERT")
        .stdout(Stdio::piped())
        .stderr(if dead_pipes {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(shell.stdout.take().unwrap()).lines();
    // The shell's `echo $!` and the provider's handshake share the pipe: either may come
    // first (a loaded machine runs the provider before the shell's echo).
    let (first, second) = (
        lines.next().unwrap().unwrap(),
        lines.next().unwrap().unwrap(),
    );
    let (pid, handshake) = match first.trim().parse::<u32>() {
        Ok(pid) => (pid, second),
        Err(_) => (second.trim().parse::<u32>().unwrap(), first),
    };
    assert!(handshake.starts_with("1|6|tcp|"), "{handshake}");
    let alive = || {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
            && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_default()
                .contains(") Z ")
    };
    assert!(alive());
    if dead_pipes {
        drop(lines);
        drop(shell.stderr.take());
    }
    shell.kill().unwrap();
    shell.wait().unwrap();
    let killed = Instant::now();
    while alive() && killed.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(20));
    }
    if alive() {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        return None;
    }
    Some(killed.elapsed())
}

/// When the process that started the provider dies without `Shutdown` (Terraform
/// killed), the provider does not linger.
#[cfg(unix)]
#[test]
fn the_provider_ends_when_its_parent_dies() {
    let limit = std::time::Duration::from_secs(5);
    let lived = orphan_lives_on(false, limit);
    assert!(
        lived.is_some(),
        "the provider outlived its parent by {limit:?}"
    );
}

/// As Terraform killed by `kill -9` leaves it: an orphan whose stderr is a pipe nobody
/// reads. Writing there fails (`EPIPE`); the provider must still end, within 2 s (it
/// checks its parent once a second). Before the fix its watcher panicked on the failed
/// write and the provider lived on.
#[cfg(unix)]
#[test]
fn an_orphan_with_dead_pipes_ends_within_2_s() {
    let limit = std::time::Duration::from_secs(2);
    let lived = orphan_lives_on(true, limit);
    assert!(
        lived.is_some(),
        "the provider outlived its parent (stdout and stderr closed) by {limit:?}"
    );
}
