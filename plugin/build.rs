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
    write_provider_routes(&fds)?;
    let mut config = tonic_prost_build::Config::new();
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

/// Writes `$OUT_DIR/<package>_routes.rs` for each package with a `Provider` service: one
/// `provider_routes!` invocation (src/server/router.rs) listing every method with how it
/// streams, its Rust name, its request type's path and the request's protobuf name. The
/// router serves each method from this list, so none can be left out.
fn write_provider_routes(
    fds: &tonic_prost_build::FileDescriptorSet,
) -> Result<(), Box<dyn std::error::Error>> {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    for file in &fds.file {
        let Some(service) = file.service.iter().find(|s| s.name() == "Provider") else {
            continue;
        };
        let package = format!(".{}.", file.package());
        let mut routes = format!("provider_routes! {{ {};\n", file.package());
        for method in &service.method {
            let kind = match (method.client_streaming(), method.server_streaming()) {
                (false, false) => "unary",
                (false, true) => "server_streaming",
                (true, false) => "client_streaming",
                (true, true) => {
                    return Err(format!(
                        "{}.{}: the router serves no bidirectional streams",
                        file.package(),
                        method.name()
                    )
                    .into())
                }
            };
            let input = method.input_type();
            let name = input.strip_prefix(&package).ok_or_else(|| {
                format!("{}: a request from another package: {input}", method.name())
            })?;
            // prost's path: each enclosing message is a module, in snake case.
            let mut segments: Vec<&str> = name.split('.').collect();
            let last = segments.pop().unwrap_or_default();
            let mut path: Vec<String> = segments.into_iter().map(snake_case).collect();
            path.push(last.to_owned());
            routes.push_str(&format!(
                "    {kind} {:?} {} {} {name:?};\n",
                method.name(),
                snake_case(method.name()),
                path.join("::"),
            ));
        }
        routes.push_str("}\n");
        std::fs::write(out.join(format!("{}_routes.rs", file.package())), routes)?;
    }
    Ok(())
}

/// `GetProviderSchema` as `get_provider_schema`: the names prost and tonic give modules
/// and methods (these protocols' names have no acronyms, where the rules get subtle).
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.char_indices() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
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
