//! The same resource as a process, through tf-provider's own `serve` (started by
//! `grpc-cpu`, as Terraform starts a provider). tf-provider leaves the runtime to its
//! user; its examples use tokio's current-thread runtime, tfvalue-plugin's `serve_main` a
//! multi-thread one: `PEER_RUNTIME=multi_thread` picks the latter, anything else the
//! former.

fn main() -> anyhow::Result<()> {
    let multi = std::env::var("PEER_RUNTIME").is_ok_and(|v| v == "multi_thread");
    let runtime = if multi {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
    };
    runtime.block_on(tfvalue_peer::peer_side::serve_process())
}
