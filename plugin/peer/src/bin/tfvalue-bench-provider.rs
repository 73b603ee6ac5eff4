//! The provider of `plugin/benches/requests.rs` as a process, through tfvalue-plugin's
//! `serve_main` (started by `grpc-cpu`, as Terraform starts a provider).

fn main() {
    tfvalue_peer::tfvalue_side::serve_process();
}
