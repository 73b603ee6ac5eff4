//! Side-by-side measurement of tfvalue-plugin against tf-provider 0.2.2 (the Rust peer
//! of issue #19 item 7) on one resource, protocol 6: PlanResourceChange and
//! ApplyResourceChange at about 2 KB and 200 KB per value.
//!
//! - [`tfvalue_side`]: the provider of `plugin/benches/requests.rs`, the same text
//!   (`plugin/benches/support/requests_model.rs`, included by both),
//!   served in process through `tfvalue_plugin::__bench::InProcess` or as a process
//!   through `serve_main`;
//! - [`peer_side`]: the same resource on tf-provider's `Resource` trait, called in
//!   process as its gRPC service calls it (its `DynamicResource` methods on
//!   `RawValue::MessagePack`), or served as a process through its `serve`;
//! - [`workload`]: the request bytes both get, and the canonical form their answers are
//!   compared in;
//! - [`cpu`]: CPU clocks (the bench thread's for criterion, a process's from
//!   `/proc/PID/task/*/schedstat`).
//!
//! See README.md for how to run it.

pub mod cpu;
pub mod peer_side;
pub mod tfvalue_side;
pub mod workload;

/// The tfplugin6 client (generated from `plugin/proto/tfplugin6.proto`).
#[allow(missing_docs, clippy::all)]
pub mod tfplugin6 {
    tonic::include_proto!("tfplugin6");
}

/// The resource type both providers serve.
pub const TYPE_NAME: &str = "bench_instance";
