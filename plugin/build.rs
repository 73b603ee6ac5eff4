//! Compiles the protocol definitions in `proto/` with protox (pure Rust), so that no
//! machine needs `protoc`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "proto/tfplugin5.proto",
        "proto/tfplugin6.proto",
        "proto/grpc_controller.proto",
        "proto/grpc_stdio.proto",
    ];
    for f in files {
        println!("cargo:rerun-if-changed={f}");
    }
    let fds = protox::compile(files, ["proto"])?;
    write_repeated_requests(&fds)?;
    let mut config = tonic_prost_build::Config::new();
    // The codec (src/server/budget.rs) knows a request by its protobuf name.
    config.enable_type_names();
    // Decoded straight into the map the provider gets, not a HashMap copied into it.
    config.btree_map([".tfplugin5.RawState.flatmap", ".tfplugin6.RawState.flatmap"]);
    // A value's bytes are slices of the request's buffer (no copy while decoding); the
    // server turns them into the `Vec`s the provider gets, the last one in that buffer.
    config.bytes([".tfplugin5.DynamicValue", ".tfplugin6.DynamicValue"]);
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        // The clients serve the tests; `connect` would need tonic's client transport.
        .build_transport(false)
        // Refuses, before decoding, a request whose many small elements would take far
        // more memory than its bytes.
        .codec_path("crate::server::budget::Codec")
        .compile_fds_with_config(fds, config)?;
    Ok(())
}

/// Writes `$OUT_DIR/repeated_requests.rs`: the names of the requests (RPC inputs) that
/// hold a repeated or map field at any depth, for the test that each has a budget in
/// `src/server/budget.rs`.
fn write_repeated_requests(
    fds: &tonic_prost_build::FileDescriptorSet,
) -> Result<(), Box<dyn std::error::Error>> {
    use std::collections::{BTreeMap, BTreeSet};
    // Every message by its full name (`.tfplugin6.CallFunction.Request`).
    fn collect<'a>(
        prefix: &str,
        messages: &'a [prost_types::DescriptorProto],
        out: &mut BTreeMap<String, &'a prost_types::DescriptorProto>,
    ) {
        for m in messages {
            let name = format!("{prefix}.{}", m.name());
            collect(&name, &m.nested_type, out);
            out.insert(name, m);
        }
    }
    fn repeats(
        name: &str,
        all: &BTreeMap<String, &prost_types::DescriptorProto>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        if !seen.insert(name.to_owned()) {
            return false;
        }
        let Some(m) = all.get(name) else {
            return false;
        };
        m.field.iter().any(|f| {
            f.label() == prost_types::field_descriptor_proto::Label::Repeated
                || (!f.type_name().is_empty() && repeats(f.type_name(), all, seen))
        })
    }
    let mut all = BTreeMap::new();
    for file in &fds.file {
        collect(
            &format!(".{}", file.package()),
            &file.message_type,
            &mut all,
        );
    }
    let mut listed = BTreeSet::new();
    for file in &fds.file {
        let package = format!(".{}.", file.package());
        for service in &file.service {
            for method in &service.method {
                let input = method.input_type();
                if repeats(input, &all, &mut BTreeSet::new()) {
                    listed.insert(input.strip_prefix(&package).unwrap_or(input).to_owned());
                }
            }
        }
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("repeated_requests.rs");
    let names: Vec<String> = listed.iter().map(|n| format!("{n:?}")).collect();
    std::fs::write(out, format!("[{}]", names.join(", ")))?;
    Ok(())
}
