//! Runs N in-process requests of one implementation, for instruction counts under
//! callgrind (load-independent, unlike times):
//!
//! ```text
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_loop*' \
//!     target/release/callgrind-loop tfvalue_plugin 2KB plan 200
//! ```
//!
//! Only `measured_loop` (the N requests, their inputs built beforehand) is counted;
//! divide its inclusive count by N. Implementations: `tfvalue_plugin`, `tf_provider`,
//! `tfvalue_handler`, `rmp_serde_decode`, and `tfvalue_framework` (the same resource on
//! `tfvalue_plugin::framework`, behind the same server).

use std::hint::black_box;

use tfvalue_peer::peer_side::PeerInProcess;
use tfvalue_peer::workload::{into_dynamic, Requests, NULL, WORKLOADS};
use tfvalue_peer::{tfvalue_side, TYPE_NAME};
use tfvalue_plugin::__bench::InProcess;

/// A workload a hundred times `200KB` (a plan request of about 43 MB), for the cost
/// per request byte at the size of a large provider's largest resources; counted here
/// only (the criterion bench and `grpc-cpu` keep to `WORKLOADS`).
const LARGE: [(&str, usize, usize); 1] = [("40MB", 420_000, 52_500)];

#[inline(never)]
fn measured_loop(
    rt: &tokio::runtime::Runtime,
    server: &InProcess,
    framework: &InProcess,
    peer: &PeerInProcess,
    kind: &str,
    rpc: &str,
    inputs: Vec<([Vec<u8>; 3], Vec<u8>)>,
) {
    for (values, private) in inputs {
        match (kind, rpc) {
            ("tfvalue_plugin", "plan") => {
                black_box(rt.block_on(server.plan(TYPE_NAME, into_dynamic(values), Vec::new())));
            }
            ("tfvalue_plugin", _) => {
                black_box(rt.block_on(server.apply(TYPE_NAME, into_dynamic(values), private)));
            }
            ("tfvalue_framework", "plan") => {
                let out = rt.block_on(framework.plan(TYPE_NAME, into_dynamic(values), Vec::new()));
                assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
                black_box(out);
            }
            ("tfvalue_framework", _) => {
                let out = rt.block_on(framework.apply(TYPE_NAME, into_dynamic(values), private));
                assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
                black_box(out);
            }
            ("tf_provider", "plan") => {
                let out = rt.block_on(peer.plan(TYPE_NAME, values, Vec::new(), NULL.to_vec()));
                black_box(out.expect("tf-provider"));
            }
            ("tf_provider", _) => {
                let out = rt.block_on(peer.apply(TYPE_NAME, values, private, NULL.to_vec()));
                black_box(out.expect("tf-provider"));
            }
            ("tfvalue_handler", "plan") => {
                black_box(tfvalue_side::handler_plan(into_dynamic(values)).expect("plan"));
            }
            ("tfvalue_handler", _) => {
                black_box(tfvalue_side::handler_apply(into_dynamic(values)).expect("apply"));
            }
            ("rmp_serde_decode", _) => {
                for v in &values {
                    let value: rmpv::Value = rmp_serde::from_slice(v).expect("rmp-serde");
                    black_box(value);
                }
            }
            _ => panic!("unknown implementation `{kind}`"),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, workload, rpc, n] = &args[..] else {
        eprintln!("usage: callgrind-loop <tfvalue_plugin|tfvalue_framework|tf_provider|tfvalue_handler|rmp_serde_decode> <2KB|200KB|40MB> <plan|noop|update|apply> <N>");
        std::process::exit(2);
    };
    let n: usize = n.parse().expect("N");
    let (name, tags, rules) = WORKLOADS
        .into_iter()
        .chain(LARGE)
        .find(|w| w.0 == workload)
        .expect("workload: 2KB, 200KB or 40MB");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let r = Requests::new(&rt, name, tags, rules);
    let (values, private) = match (kind.as_str(), rpc.as_str()) {
        (_, "plan") => (&r.plan, Vec::new()),
        (_, "noop") => (&r.noop_plan, Vec::new()),
        (_, "update") => (&r.update_plan, Vec::new()),
        ("tf_provider", "apply") => (&r.apply, r.peer_private.clone()),
        (_, "apply") => (&r.apply, r.tfvalue_private.clone()),
        _ => panic!("rpc: plan, noop (a no-change plan), update (an update plan) or apply"),
    };
    // The request's size (its values and private data), for the cost per request byte.
    let size: usize = values.iter().map(Vec::len).sum::<usize>() + private.len();
    eprintln!("request: {size} bytes");
    let inputs = (0..n).map(|_| (values.clone(), private.clone())).collect();
    let server = tfvalue_side::in_process();
    let framework = tfvalue_side::framework_in_process();
    let peer = PeerInProcess::new();
    // A no-change plan and an update plan are plans.
    let rpc = if rpc == "noop" || rpc == "update" {
        "plan"
    } else {
        rpc
    };
    measured_loop(&rt, &server, &framework, &peer, kind, rpc, inputs);
}
