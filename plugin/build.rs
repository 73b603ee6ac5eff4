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
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        // The clients serve the tests; `connect` would need tonic's client transport.
        .build_transport(false)
        .compile_fds(fds)?;
    Ok(())
}
