//! The example provider's process as go-plugin sees it: the magic cookie, the handshake
//! line, protocol negotiation and the port range.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use base64::Engine as _;

/// The example provider: `cargo test` builds the package's examples before running its
/// tests, next to the test binaries; when it is missing (a test target built on its
/// own), it is built here.
fn provider() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples/thing");
    if !path.exists() {
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "-p",
                "tfvalue-plugin",
                "--example",
                "thing",
            ])
            .status()
            .unwrap();
        assert!(status.success(), "building the example provider failed");
    }
    path
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
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();
    let cert = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    let fields = handshake(&[("PLUGIN_CLIENT_CERT", &cert.pem()), ("THING_PROTOCOL", "5")]);
    assert_eq!(fields[1], "5", "{fields:?}");
    assert_eq!(fields.len(), 6);
    assert!(!fields[5].ends_with('='));
    let der = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(&fields[5])
        .unwrap();
    assert_eq!(der.first(), Some(&0x30), "a DER certificate");
}
