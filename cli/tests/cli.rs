//! Runs the `tfvalue` binary on fixtures, good and bad.

use std::io::Write;
use std::process::{Command, Stdio};

fn tfvalue(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tfvalue"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tfvalue");
    // the command may exit before it reads its input (a bad --type): ignore a broken pipe
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn vectors(file: &str) -> String {
    format!("{}/../tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn inspect_without_input_shows_the_sample() {
    let (code, out, err) = tfvalue(&["inspect"], b"");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(r#"arn                    = (known after apply, not null, prefix "arn:aws:ec2:eu-west-1:")"#), "{out}");
    assert!(
        out.contains("user_data              = (sensitive value)"),
        "{out}"
    );
    assert!(out.contains("set ["), "{out}");
    assert!(!out.contains('\x1b'), "no colour when not a terminal");
    let (_, out, _) = tfvalue(&["inspect", "--show-sensitive", "--color", "always"], b"");
    assert!(out.contains("#!/bin/sh"), "{out}");
    assert!(out.contains("\x1b[33m(known after apply"), "{out}");
}

#[test]
fn inspect_reads_hex_base64_and_raw() {
    let ty = r#"["object",{"a":"string","b":["set","number"]}]"#;
    // {"a": unknown not null, "b": [2, 1]}
    let hex = "82a161c7030c8101c2a162920201";
    let (code, out, err) = tfvalue(&["inspect", "--type", ty, "-"], hex.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("a = (known after apply, not null)"), "{out}");
    assert!(out.contains("set [\n    1,\n    2,\n  ]"), "{out}");
    let raw = tfvalue::conformance::hex_decode(hex).unwrap();
    let (code, out2, _) = tfvalue(&["inspect", "--type", ty, "--format", "raw", "-"], &raw);
    assert_eq!((code, &out2), (0, &out));
    let (code, out3, _) = tfvalue(&["inspect", "--type", ty, "-"], b"gqFhxwMMgQHCoWKSAgE=");
    assert_eq!((code, &out3), (0, &out));
    let (code, json, _) = tfvalue(
        &["inspect", "--type", ty, "--output", "json", "-"],
        hex.as_bytes(),
    );
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(j["object"]["a"]["unknown"]["nullness"], false);
}

#[test]
fn decode_and_encode_are_inverse() {
    let ty = r#"["map",["list","number"]]"#;
    let (code, tagged, err) = tfvalue(&["decode", "--type", ty], b"81a1789201cb3ff8000000000000");
    assert_eq!(code, 0, "{err}");
    let (code, hex, err) = tfvalue(&["encode", "--type", ty], tagged.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert_eq!(hex.trim(), "81a1789201cb3ff8000000000000");
}

#[test]
fn bad_input_is_one_line_with_the_path_and_exit_1() {
    let ty = r#"["object",{"tags":["map","string"]}]"#;
    let (code, out, err) = tfvalue(&["decode", "--type", ty], b"81a47461677381a3656e7605");
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(r#"at tags["env"]"#), "{err}");
    let (code, _, err) = tfvalue(&["decode", "--type", r#"["lisst","string"]"#], b"90");
    assert_eq!(code, 1);
    assert!(err.contains(r#"unknown type kind "lisst""#), "{err}");
    let (code, _, err) = tfvalue(
        &["inspect", "--type", "\"string\"", "-"],
        b"zz-not-hex-or-base64\xff",
    );
    assert_eq!(code, 1);
    assert!(err.starts_with("tfvalue: "), "{err}");
    let (code, _, err) = tfvalue(&["inspect", "no/such/file"], b"");
    assert_eq!(code, 1);
    assert!(err.contains("cannot read no/such/file"), "{err}");
}

#[test]
fn check_runs_vector_files() {
    let (code, out, err) = tfvalue(
        &[
            "check",
            &vectors("msgpack-decode.jsonl"),
            &vectors("msgpack-encode.jsonl"),
        ],
        b"",
    );
    assert_eq!(code, 0, "{out}{err}");
    let last = out.lines().last().unwrap();
    let (passed, failed) = last.split_once(" passed, ").unwrap();
    assert!(passed.parse::<usize>().unwrap() > 500, "{last}");
    assert_eq!(failed, "0 failed");

    // a failing case is reported by name, and the exit code says so
    let dir = std::env::temp_dir().join(format!("tfvalue-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("msgpack-decode-bad.jsonl");
    std::fs::write(
        &file,
        r#"{"name":"wrong/expectation","type":"number","msgpack":"05","expect":{"value":{"number":"6"}}}
{"name":"right","type":"number","msgpack":"05","expect":{"value":{"number":"5"}}}
"#,
    )
    .unwrap();
    let (code, out, _) = tfvalue(&["check", file.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(
        out.contains("FAIL") && out.contains("wrong/expectation"),
        "{out}"
    );
    assert_eq!(out.lines().last(), Some("1 passed, 1 failed"));
    let (code, _, err) = tfvalue(&["check", dir.join("unnamed.jsonl").to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(err.contains("cannot tell the kind"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn fixture() -> String {
    format!(
        "{}/../tests/fixtures/providers-schema.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn schema_prints_the_implied_type() {
    let f = fixture();
    let (code, out, err) = tfvalue(
        &[
            "schema",
            "--schema",
            &f,
            "--resource",
            "widget_dns_record",
            "--provider-address",
            "acme/widget",
        ],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    let json = lines.next().unwrap();
    let ty = tfvalue::Type::from_json(json.as_bytes()).unwrap();
    assert_eq!(lines.next(), Some(ty.to_string().as_str()));
    assert!(ty.as_object().unwrap().get("records").is_some());
    // several providers in the file: the command says how to choose
    let (code, _, err) = tfvalue(
        &["schema", "--schema", &f, "--resource", "widget_dns_record"],
        b"",
    );
    assert_eq!(code, 1);
    assert!(err.contains("--provider-address"), "{err}");
    let (code, _, err) = tfvalue(
        &[
            "schema",
            "--schema",
            &f,
            "--resource",
            "nope",
            "--provider-address",
            "acme/widget",
        ],
        b"",
    );
    assert_eq!(code, 1);
    assert!(err.contains("no resource type \"nope\""), "{err}");
}

#[test]
fn inspect_with_a_schema_masks_sensitive_attributes() {
    let f = fixture();
    let schema = tfvalue::schema::ProviderSchemas::from_json(&std::fs::read(&f).unwrap()).unwrap();
    let server = schema
        .provider("acme/widget")
        .unwrap()
        .resource("widget_server")
        .unwrap();
    let sensitive: Vec<_> = server
        .block
        .attributes
        .iter()
        .filter(|(_, a)| a.sensitive)
        .map(|(n, _)| n.clone())
        .collect();
    assert!(
        !sensitive.is_empty(),
        "the fixture has a sensitive attribute"
    );
    let ty = server.implied_type();
    // a value with every attribute null except the sensitive ones
    let mut attrs = tfvalue::Map::new();
    for name in ty.as_object().unwrap().attributes().keys() {
        let v = if sensitive.contains(name) {
            tfvalue::Value::from("hunter2")
        } else {
            tfvalue::Value::Null
        };
        attrs.insert(name.clone(), v);
    }
    let hex =
        tfvalue::conformance::hex_encode(&tfvalue::Value::Object(attrs).to_msgpack(&ty).unwrap());
    let args = [
        "inspect",
        "--schema",
        &f,
        "--resource",
        "widget_server",
        "--provider-address",
        "acme/widget",
        "-",
    ];
    let (code, out, err) = tfvalue(&args, hex.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(sensitive value)"), "{out}");
    assert!(!out.contains("hunter2"), "{out}");
    let mut shown = args.to_vec();
    shown.insert(1, "--show-sensitive");
    let (_, out, _) = tfvalue(&shown, hex.as_bytes());
    assert!(out.contains("hunter2"), "{out}");
}

#[test]
fn inspect_reads_json_too() {
    let ty = r#"["object",{"a":"string","n":"number"}]"#;
    let (code, out, err) = tfvalue(
        &["inspect", "--type", ty, "-"],
        br#"{"a":"x","n":123456789012345678901234567890.5}"#,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("n = 123456789012345678901234567890.5"),
        "{out}"
    );
    // JSON cannot hold an undeclared attribute either
    let (code, _, err) = tfvalue(
        &["inspect", "--type", ty, "--encoding", "json", "-"],
        br#"{"zz":1}"#,
    );
    assert_eq!(code, 1);
    assert!(err.contains("zz"), "{err}");
}
