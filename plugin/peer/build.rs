//! The tfplugin6 client of the process measurement, generated from the plugin's own
//! `proto/tfplugin6.proto` with protox (no `protoc` for this part; tf-provider's own build
//! script does need one).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = "../proto/tfplugin6.proto";
    println!("cargo:rerun-if-changed={file}");
    let fds = protox::compile([file], ["../proto"])?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(false)
        .build_transport(false)
        .compile_fds(fds)?;
    Ok(())
}
