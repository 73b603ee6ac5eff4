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
    // It says it is a sample, and how to read what it shows.
    assert!(out.starts_with("# A built-in sample: "), "{out}");
    assert!(
        out.contains("# <object({..})> before a value is the type a value carries where the schema says dynamic."),
        "{out}"
    );
    assert!(
        out.contains("metadata               = <object({owner=string,ttl_hours=number})> object {"),
        "{out}"
    );
    // The tagged notation is for programs: no header there.
    let (_, json, _) = tfvalue(&["inspect", "--output", "json"], b"");
    assert!(json.starts_with('{'), "{json}");
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
fn type_takes_the_json_form_and_terraform_syntax() {
    for ty in [
        r#"["list",["object",{"a":"string"}]]"#,
        "list(object({a=string}))",
        "list(object({ a = string }))",
    ] {
        let (code, out, err) = tfvalue(&["decode", "--to", "json", "--type", ty], b"9181a161a178");
        assert_eq!(code, 0, "{ty}: {err}");
        assert_eq!(out, "[{\"a\":\"x\"}]\n", "{ty}");
    }
    let (code, _, err) = tfvalue(&["decode", "--type", "lisst(string)"], b"90");
    assert_eq!(code, 1);
    assert!(err.starts_with("tfvalue: invalid --type: "), "{err}");
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
    let (code, _, err) = tfvalue(&["inspect", "--type", "\"string\"", "no/such/file"], b"");
    assert_eq!(code, 1);
    assert_eq!(err, "tfvalue: no such file: no/such/file\n");
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
    let unnamed = dir.join("unnamed.jsonl");
    // a missing file is said to be missing, whatever its name
    let (code, _, err) = tfvalue(&["check", unnamed.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(err.contains("no such file"), "{err}");
    std::fs::copy(&file, &unnamed).unwrap();
    let (code, _, err) = tfvalue(&["check", unnamed.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(
        err.contains("cannot tell the kind") && err.contains("--kind"),
        "{err}"
    );
    // --kind says it; and the kind is found anywhere in a name
    let (code, out, _) = tfvalue(
        &[
            "check",
            "--kind",
            "msgpack-decode",
            unnamed.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!((code, out.lines().last()), (1, Some("1 passed, 1 failed")));
    let inside = dir.join("go-cty.v1.msgpack-decode.extra.jsonl");
    std::fs::copy(&file, &inside).unwrap();
    let (code, out, err) = tfvalue(&["check", inside.to_str().unwrap()], b"");
    assert_eq!(
        (code, out.lines().last()),
        (1, Some("1 passed, 1 failed")),
        "{err}"
    );
    // a name with two kinds is ambiguous
    let both = dir.join("json-decode-vs-msgpack-decode.jsonl");
    std::fs::copy(&file, &both).unwrap();
    let (code, _, err) = tfvalue(&["check", both.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(err.contains("several kinds"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_runs_msgpack_to_json_vectors() {
    let (code, out, err) = tfvalue(&["check", &vectors("msgpack-to-json.jsonl")], b"");
    assert_eq!(code, 0, "{out}{err}");
    let last = out.lines().last().unwrap();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    // bytes are compared: the text of a tie rounded away from zero is a failure
    let dir = std::env::temp_dir().join(format!("tfvalue-cli-m2j-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.msgpack-to-json.jsonl");
    std::fs::write(
        &file,
        r#"{"name":"tie/away","type":"number","msgpack":"cb42d0000000000008","expect":{"json_text":"70368744177664.13","compare":"bytes"}}
{"name":"tie/even","type":"number","msgpack":"cb42d0000000000008","expect":{"json_text":"70368744177664.12","compare":"bytes"}}
{"name":"nan","type":"number","msgpack":"cb7ff8000000000000","expect":{"error":true}}
"#,
    )
    .unwrap();
    let (code, out, _) = tfvalue(&["check", file.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(
        out.contains("FAIL") && out.contains("tie/away") && out.contains("70368744177664.12"),
        "{out}"
    );
    assert_eq!(out.lines().last(), Some("2 passed, 1 failed"));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn fixture() -> String {
    format!("{}/tests/fixtures/schema.json", env!("CARGO_MANIFEST_DIR"))
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
            "shelf_bucket",
            "--provider-address",
            "acme/shelf",
        ],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    let json = lines.next().unwrap();
    let ty = tfvalue::Type::from_json(json.as_bytes()).unwrap();
    assert_eq!(lines.next(), Some(ty.to_string().as_str()));
    assert!(ty.as_object().unwrap().get("lifecycle_rule").is_some());
    // several providers in the file: the command says how to choose
    let mut two: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
    let p = two["provider_schemas"]["registry.terraform.io/acme/shelf"].clone();
    two["provider_schemas"]["registry.terraform.io/other/shelf"] = p;
    let two_file = std::env::temp_dir().join(format!("tfvalue-two-{}.json", std::process::id()));
    std::fs::write(&two_file, two.to_string()).unwrap();
    let two_path = two_file.to_str().unwrap();
    let (code, _, err) = tfvalue(&["schema", two_path, "--resource", "shelf_bucket"], b"");
    assert_eq!(code, 1);
    assert!(err.contains("--provider-address"), "{err}");
    let (code, out2, err) = tfvalue(
        &[
            "schema",
            two_path,
            "--resource",
            "shelf_bucket",
            "--provider-address",
            "other/shelf",
        ],
        b"",
    );
    assert_eq!((code, &out2), (0, &out), "{err}");
    let (code, _, err) = tfvalue(
        &[
            "schema",
            two_path,
            "--resource",
            "shelf_bucket",
            "--provider-address",
            "acme/shelv",
        ],
        b"",
    );
    std::fs::remove_file(&two_file).unwrap();
    assert_eq!(code, 1);
    assert!(
        err.contains("did you mean \"registry.terraform.io/acme/shelf\""),
        "{err}"
    );
    let (code, _, err) = tfvalue(
        &[
            "schema",
            "--schema",
            &f,
            "--resource",
            "nope",
            "--provider-address",
            "acme/shelf",
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
        .provider("acme/shelf")
        .unwrap()
        .resource("shelf_item")
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
        "shelf_item",
        "--provider-address",
        "acme/shelf",
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

/// A MessagePack list of `n` strings, as hex: decoding it prints far more than a pipe holds.
fn big_list_hex(n: u16) -> String {
    let mut bytes = vec![0xdc];
    bytes.extend_from_slice(&n.to_be_bytes());
    for _ in 0..n {
        bytes.push(0xaa);
        bytes.extend_from_slice(b"abcdefghij");
    }
    tfvalue::conformance::hex_encode(&bytes)
}

#[test]
fn a_closed_output_pipe_ends_quietly_with_status_141() {
    use std::io::Read;
    let hex = big_list_hex(20_000);
    for _ in 0..5 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tfvalue"))
            .args(["decode", "--type", r#"["list","string"]"#])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = hex.clone();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 10];
        stdout.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"{\n  \"list\"");
        drop(stdout); // the reader goes away, as `head -c 10` does
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        writer.join().unwrap();
        assert_eq!(err, "", "nothing on standard error, no panic");
        assert_eq!(status.code(), Some(141));
    }
    // the whole output, when it is read, is the whole list
    let (code, out, _) = tfvalue(
        &["decode", "--type", r#"["list","string"]"#],
        hex.as_bytes(),
    );
    assert_eq!(code, 0);
    assert_eq!(out.matches("abcdefghij").count(), 20_000);
}

#[test]
fn decode_and_encode_speak_plain_json() {
    let ty = r#"["object",{"n":"number","tags":["map","string"],"d":"dynamic"}]"#;
    let json = r#"{"d":{"type":["tuple",["number","string"]],"value":[1,"x"]},"n":123456789012345678901234567890.25,"tags":{"env":"prod"}}"#;
    // plain JSON in, MessagePack out ...
    let (code, hex, err) = tfvalue(&["encode", "--from", "json", "--type", ty], json.as_bytes());
    assert_eq!(code, 0, "{err}");
    let bytes = tfvalue::conformance::hex_decode(hex.trim()).unwrap();
    let ty_v = tfvalue::Type::from_json(ty.as_bytes()).unwrap();
    let v = tfvalue::Value::from_msgpack(&bytes, &ty_v).unwrap();
    assert_eq!(v["tags"]["env"], "prod");
    assert_eq!(
        v["n"].as_number().unwrap().to_string(),
        "123456789012345678901234567890.25"
    );
    // ... and back, to the same JSON
    let (code, back, err) = tfvalue(&["decode", "--to", "json", "--type", ty], hex.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert_eq!(back.trim(), json);
    // decode reads JSON too, detected or told
    let (code, tagged, err) = tfvalue(&["decode", "--type", ty], json.as_bytes());
    assert_eq!(code, 0, "{err}");
    let (code, tagged2, _) = tfvalue(
        &["decode", "--encoding", "json", "--type", ty],
        json.as_bytes(),
    );
    assert_eq!((code, &tagged2), (0, &tagged));
    let (code, tagged3, _) = tfvalue(&["decode", "--type", ty], hex.as_bytes());
    assert_eq!((code, &tagged3), (0, &tagged));
    // encode writes a JSON DynamicValue with --encoding json
    let (code, out, err) = tfvalue(
        &["encode", "--encoding", "json", "--type", ty],
        tagged.as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), json);
    // base64 and raw MessagePack out
    let (code, b64, _) = tfvalue(
        &["encode", "--format", "base64", "--type", ty],
        tagged.as_bytes(),
    );
    assert_eq!(code, 0);
    let (code, tagged4, _) = tfvalue(&["decode", "--type", ty], b64.as_bytes());
    assert_eq!((code, &tagged4), (0, &tagged));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tfvalue"))
        .args(["encode", "--format", "raw", "--type", ty])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(tagged.as_bytes())
        .unwrap();
    let raw = child.wait_with_output().unwrap();
    assert!(raw.status.success());
    assert_eq!(raw.stdout, bytes);
    // an unknown cannot be plain JSON, and the message says where it is
    let (code, _, err) = tfvalue(
        &[
            "decode",
            "--to",
            "json",
            "--type",
            r#"["object",{"id":"string"}]"#,
        ],
        b"81a26964c7030c8101c2",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("unknown values cannot be encoded as JSON at id"),
        "{err}"
    );
    // tagged input to --from json, or plain JSON to the tagged reader, is explained
    let (code, _, err) = tfvalue(&["encode", "--type", ty], json.as_bytes());
    assert_eq!(code, 1);
    assert!(err.contains("--from json"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn failed_detection_says_what_it_chose() {
    let ty = r#"["object",{"b":"string"}]"#;
    let (code, _, err) = tfvalue(&["decode", "--type", ty], b"81a161a178");
    assert_eq!(code, 1);
    assert!(err.contains("unsupported attribute"), "{err}");
    assert!(
        err.contains("(input read as hex: 5 bytes; choose with --format)"),
        "{err}"
    );
    let (code, _, err) = tfvalue(&["decode", "--type", ty], b"gaFhoXg=");
    assert_eq!(code, 1);
    assert!(err.contains("input read as base64: 5 bytes"), "{err}");
    let (code, _, err) = tfvalue(&["decode", "--type", ty], b"\x81\xa1a\xa1\xff");
    assert_eq!(code, 1);
    assert!(
        err.contains("input read as raw bytes, since it is neither hex nor base64"),
        "{err}"
    );
    // given formats are not second-guessed, and not reported
    let (code, _, err) = tfvalue(&["decode", "--format", "hex", "--type", ty], b"81a161a178");
    assert_eq!(code, 1);
    assert!(!err.contains("input read as"), "{err}");
    let (code, _, err) = tfvalue(&["decode", "--type", ty], b"  \n");
    assert_eq!((code, err.as_str()), (1, "tfvalue: the input is empty\n"));
}

#[test]
fn utf16_input_is_named_as_such() {
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("81a161a178".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let (code, _, err) = tfvalue(
        &["decode", "--type", r#"["object",{"a":"string"}]"#],
        &utf16,
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("UTF-16LE") && err.contains("byte order mark"),
        "{err}"
    );
    // a UTF-16 JSON file without a byte order mark
    let json: Vec<u8> = r#"["a"]"#.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let (code, _, err) = tfvalue(
        &["encode", "--from", "json", "--type", r#"["list","string"]"#],
        &json,
    );
    assert_eq!(code, 1);
    assert!(err.contains("UTF-16LE (every other byte is zero)"), "{err}");
    // a UTF-8 byte order mark is only skipped
    let (code, out, err) = tfvalue(
        &["encode", "--from", "json", "--type", r#"["list","string"]"#],
        b"\xEF\xBB\xBF[\"a\"]",
    );
    assert_eq!((code, out.trim()), (0, "91a161"), "{err}");
}

#[test]
fn ephemeral_resources_are_chosen_and_names_are_suggested() {
    let f = fixture();
    let (code, out, err) = tfvalue(&["schema", &f, "--ephemeral-resource", "shelf_token"], b"");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().nth(1),
        Some("object({bucket=string,token=string,ttl=number})")
    );
    let (code, _, err) = tfvalue(&["schema", &f, "--resource", "shelf_token"], b"");
    assert_eq!(code, 1);
    assert!(err.ends_with("no resource type \"shelf_token\"; it is an ephemeral resource type (use --ephemeral-resource)\n"), "{err}");
    let (code, _, err) = tfvalue(&["schema", &f, "--data-source", "shelf_catalgo"], b"");
    assert_eq!(code, 1);
    assert!(err.ends_with("did you mean \"shelf_catalog\"?\n"), "{err}");
    // an ephemeral value: the token is sensitive in the schema
    let token = std::fs::read(format!(
        "{}/tests/fixtures/token.hex",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let args = [
        "inspect",
        "--schema",
        &f,
        "--ephemeral-resource",
        "shelf_token",
        "-",
    ];
    let (code, out, err) = tfvalue(&args, &token);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("token  = (sensitive value)") && out.contains("ttl    = 3600"),
        "{out}"
    );
    // without a block, schema lists the file
    let (code, out, _) = tfvalue(&["schema", &f], b"");
    assert_eq!(code, 0);
    assert!(
        out.contains("--ephemeral-resource shelf_token (version 0)"),
        "{out}"
    );
    assert!(out.contains("--resource shelf_bucket (version 1)"), "{out}");
    // --resource without a schema file says what is missing
    let (code, _, err) = tfvalue(&["decode", "--resource", "shelf_bucket"], b"90");
    assert_eq!(code, 1);
    assert!(err.contains("--resource needs --schema FILE"), "{err}");
}
