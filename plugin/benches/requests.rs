#![allow(missing_docs)] // criterion_group! and criterion_main! generate public items
//! CPU per request of the server's own handling (no gRPC): PlanResourceChange and
//! ApplyResourceChange of one resource at about 2 KB and 200 KB per value, each
//! measured against a plain rmp-serde decode of the same request's values
//! (`rmp_serde::from_slice::<rmpv::Value>`, what a provider that decodes generically
//! does, and a machine-independent yardstick for the ratio).
//!
//! Rows, per workload and RPC:
//! - `server`: the whole in-process handling: the checks of the three values Terraform
//!   sends (present, of the schema's type, wholly known where required), the handler
//!   (a provider written as the README teaches: typed decode of prior, proposed or
//!   planned, and configuration, computed attributes filled, typed encode), and the
//!   checks of its answer (schema, and at apply the check against the plan);
//! - `handler`: the same handler called directly, without the server (what the server
//!   adds is the difference);
//! - `rmp_serde_decode`: the yardstick.
//!
//! `cargo bench -p tfvalue-plugin --bench requests`; the ratios are in
//! benches/README.md.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde::{Deserialize, Serialize};
use tfvalue::{DynamicValue, TfModel, TfValue, Unknown};
use tfvalue_plugin::__bench::InProcess;
use tfvalue_plugin::*;

include!("support/requests_model.rs");

/// One request's values: prior state, proposed or planned state, configuration.
type Values = [DynamicValue; 3];

fn rmp_decode(values: &Values) -> usize {
    values
        .iter()
        .map(|v| {
            let value: rmpv::Value = rmp_serde::from_slice(&v.msgpack).expect("rmp-serde");
            black_box(value);
            v.msgpack.len()
        })
        .sum()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let server = InProcess::new(Bench);
    for (workload, tags, rules) in [("2KB", 30, 3), ("200KB", 4000, 500)] {
        let config = config(tags, rules);
        let null = DynamicValue::from_msgpack(vec![0xc0]);
        // Create: prior null, proposed = configuration (computed attributes null).
        let plan_values: Values = [null.clone(), dv(&config), dv(&config)];
        let planned = rt
            .block_on(server.plan("bench_instance", plan_values.clone(), Vec::new()))
            .planned_state;
        let apply_values: Values = [null.clone(), planned, dv(&config)];
        let applied = rt.block_on(server.apply("bench_instance", apply_values.clone(), Vec::new()));
        assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
        let bytes: usize = apply_values.iter().map(|v| v.msgpack.len()).sum();
        println!(
            "{workload}: {} bytes per value (configuration), {bytes} per apply request",
            apply_values[2].msgpack.len()
        );

        for (rpc, values) in [("plan", &plan_values), ("apply", &apply_values)] {
            let mut g = c.benchmark_group(format!("{workload}/{rpc}"));
            g.throughput(Throughput::Bytes(
                values.iter().map(|v| v.msgpack.len() as u64).sum(),
            ));
            if workload == "200KB" {
                g.sample_size(20);
            }
            g.bench_function("server", |b| {
                b.iter_batched(
                    || values.clone(),
                    |v| {
                        if rpc == "plan" {
                            black_box(rt.block_on(server.plan("bench_instance", v, Vec::new())));
                        } else {
                            black_box(rt.block_on(server.apply("bench_instance", v, Vec::new())));
                        }
                    },
                    BatchSize::SmallInput,
                )
            });
            g.bench_function("handler", |b| {
                b.iter_batched(
                    || values.clone(),
                    |[prior, mid, config]| {
                        if rpc == "plan" {
                            let req = PlanResourceChangeRequest::new(
                                "bench_instance",
                                prior,
                                mid,
                                config,
                            );
                            black_box(Bench::plan(&req).expect("plan"));
                        } else {
                            let req = ApplyResourceChangeRequest::new(
                                "bench_instance",
                                prior,
                                mid,
                                config,
                            );
                            black_box(Bench::apply(&req).expect("apply"));
                        }
                    },
                    BatchSize::SmallInput,
                )
            });
            g.bench_function("rmp_serde_decode", |b| {
                b.iter(|| black_box(rmp_decode(values)))
            });
            g.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
