//! CPU per request, in process, of tfvalue-plugin and of tf-provider 0.2.2 on the same
//! resource and the same request bytes (PlanResourceChange and ApplyResourceChange of a
//! create, at about 2 KB and 200 KB per value), against the same rmp-serde yardstick as
//! `plugin/benches/requests.rs`, in one run.
//!
//! Rows, per workload and RPC:
//! - `tfvalue_plugin`: `tfvalue_plugin::__bench::InProcess` (input checks, handler,
//!   output checks) with the provider of `requests.rs`;
//! - `tf_provider`: tf-provider's per-request path (see `PeerInProcess`) with the same
//!   resource on its `Resource` trait;
//! - `tfvalue_handler`: tfvalue-plugin's handler alone (what the server adds is the
//!   difference to `tfvalue_plugin`);
//! - `rmp_serde_decode`: `rmp_serde::from_slice::<rmpv::Value>` of the request's three
//!   values.
//!
//! Measured in CPU time of the bench thread (`CLOCK_THREAD_CPUTIME_ID`): everything runs
//! on that thread (a current-thread runtime), and the machine's other load does not count.
//! Both answers are checked to be the same value before anything is measured. The table
//! at the end gives medians and ratios.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BatchSize, Criterion, Throughput};
use tfvalue_peer::cpu::ThreadCpu;
use tfvalue_peer::peer_side::PeerInProcess;
use tfvalue_peer::workload::{dynamic, Requests, NULL, WORKLOADS};
use tfvalue_peer::{tfvalue_side, TYPE_NAME};

const ROWS: [&str; 4] = [
    "tfvalue_plugin",
    "tf_provider",
    "tfvalue_handler",
    "rmp_serde_decode",
];

fn rmp_decode(values: &[Vec<u8>; 3]) -> usize {
    values
        .iter()
        .map(|v| {
            let value: rmpv::Value = rmp_serde::from_slice(v).expect("rmp-serde");
            black_box(value);
            v.len()
        })
        .sum()
}

fn bench(c: &mut Criterion<ThreadCpu>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let server = tfvalue_side::in_process();
    let peer = PeerInProcess::new();
    for (workload, tags, rules) in WORKLOADS {
        // Builds the requests and checks that both providers answer them alike.
        let r = Requests::new(&rt, workload, tags, rules);
        println!(
            "{workload}: {} bytes per value (configuration), {} per apply request",
            r.apply[2].len(),
            r.apply.iter().map(Vec::len).sum::<usize>()
        );
        for rpc in ["plan", "apply"] {
            let values = if rpc == "plan" { &r.plan } else { &r.apply };
            let mut g = c.benchmark_group(format!("{workload}/{rpc}"));
            g.throughput(Throughput::Bytes(
                values.iter().map(|v| v.len() as u64).sum(),
            ));
            if workload == "200KB" {
                g.sample_size(20);
            }
            g.bench_function("tfvalue_plugin", |b| {
                b.iter_batched(
                    || (dynamic(values), r.tfvalue_private.clone()),
                    |(v, private)| {
                        if rpc == "plan" {
                            black_box(rt.block_on(server.plan(TYPE_NAME, v, Vec::new())));
                        } else {
                            black_box(rt.block_on(server.apply(TYPE_NAME, v, private)));
                        }
                    },
                    BatchSize::SmallInput,
                )
            });
            g.bench_function("tf_provider", |b| {
                b.iter_batched(
                    || (values.clone(), r.peer_private.clone(), NULL.to_vec()),
                    |(v, private, meta)| {
                        let out = if rpc == "plan" {
                            rt.block_on(peer.plan(TYPE_NAME, v, Vec::new(), meta))
                        } else {
                            rt.block_on(peer.apply(TYPE_NAME, v, private, meta))
                        };
                        black_box(out.expect("tf-provider"));
                    },
                    BatchSize::SmallInput,
                )
            });
            g.bench_function("tfvalue_handler", |b| {
                b.iter_batched(
                    || dynamic(values),
                    |v| {
                        if rpc == "plan" {
                            black_box(tfvalue_side::handler_plan(v).expect("plan"));
                        } else {
                            black_box(tfvalue_side::handler_apply(v).expect("apply"));
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

/// The median of a row, in ns of CPU per request, from criterion's estimates.
fn median(dir: &Path, group: &str, row: &str) -> Option<f64> {
    let group = group.replace('/', "_");
    let text =
        std::fs::read_to_string(dir.join(group).join(row).join("new/estimates.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn table(dir: &Path) {
    let us = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{:.1}", v / 1e3));
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => format!("{:.2}x", a / b),
        _ => "-".to_owned(),
    };
    println!();
    println!("CPU per request, in process (median, µs of the bench thread's CPU):");
    println!(
        "| workload/RPC | tfvalue-plugin | tf-provider 0.2.2 | tfvalue handler alone | rmp-serde decode | tfvalue-plugin / tf-provider | tfvalue-plugin / rmp-serde | tf-provider / rmp-serde |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (workload, _, _) in WORKLOADS {
        for rpc in ["plan", "apply"] {
            let group = format!("{workload}/{rpc}");
            let [t, p, h, y] = ROWS.map(|row| median(dir, &group, row));
            println!(
                "| {group} | {} | {} | {} | {} | {} | {} | {} |",
                us(t),
                us(p),
                us(h),
                us(y),
                ratio(t, p),
                ratio(t, y),
                ratio(p, y)
            );
        }
    }
}

fn main() {
    let dir = std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/criterion"));
    let mut c = Criterion::default()
        .with_measurement(ThreadCpu)
        .output_directory(&dir)
        .configure_from_args();
    bench(&mut c);
    c.final_summary();
    table(&dir);
}
