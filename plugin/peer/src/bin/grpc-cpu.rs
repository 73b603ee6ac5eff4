//! CPU per request over gRPC: both providers as real processes (tfvalue-plugin's
//! `serve_main`, tf-provider's `serve`), started as Terraform starts them (magic cookie,
//! `PLUGIN_PROTOCOL_VERSIONS=6`, no `PLUGIN_CLIENT_CERT`: both then serve plaintext),
//! driven by one tfplugin6 client over the address of their go-plugin handshake line.
//! The CPU of each provider process (the sum over its threads of
//! `/proc/PID/task/*/schedstat`) is read before and after N sequential requests.
//!
//! ```text
//! grpc-cpu [--rounds R] [--small N] [--large N]
//! ```
//!
//! Each round runs N requests of each RPC and workload against each provider in turn
//! (interleaved, so that a change in the machine's load reaches all of them); the table
//! gives the median over the rounds of CPU per request. Before measuring, each
//! provider's answers are checked: no error; tfvalue-plugin's the same bytes as its
//! in-process server's; tf-provider's the same bytes as `PeerInProcess` (which
//! transcribes its per-request path); the two the same value.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tfvalue_peer::cpu::{process_cpu, process_cpu_ticks};
use tfvalue_peer::peer_side::PeerInProcess;
use tfvalue_peer::tfplugin6::provider_client::ProviderClient;
use tfvalue_peer::tfplugin6::{
    apply_resource_change, diagnostic::Severity, plan_resource_change, Diagnostic, DynamicValue,
};
use tfvalue_peer::workload::{assert_same, dynamic, Requests, NULL, WORKLOADS};
use tfvalue_peer::{tfvalue_side, TYPE_NAME};
use tonic::transport::Channel;

struct Provider {
    label: &'static str,
    /// Which in-process answers its answers must equal, byte for byte.
    peer: bool,
    child: Child,
    client: ProviderClient<Channel>,
}

fn dv(bytes: &[u8]) -> Option<DynamicValue> {
    Some(DynamicValue {
        msgpack: bytes.to_vec(),
        json: Vec::new(),
    })
}

fn errors(diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.severity == Severity::Error as i32)
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect()
}

async fn start(
    label: &'static str,
    bin: &str,
    env: &[(&str, &str)],
    peer: bool,
) -> Result<Provider, Box<dyn std::error::Error>> {
    let path = std::env::current_exe()?.with_file_name(bin);
    let mut cmd = Command::new(&path);
    cmd.env(
        tfvalue_plugin::MAGIC_COOKIE_KEY,
        tfvalue_plugin::MAGIC_COOKIE_VALUE,
    )
    .env("PLUGIN_PROTOCOL_VERSIONS", "6")
    .env_remove("PLUGIN_CLIENT_CERT")
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("{}: {e} (build it with --bins)", path.display()))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    // core version | protocol version | network | address | protocol [| server cert]
    let fields: Vec<&str> = line.trim().split('|').collect();
    let (["1", "6", "tcp", addr, "grpc"] | ["1", "6", "tcp", addr, "grpc", ""]) = fields[..] else {
        let _ = child.kill();
        return Err(format!(
            "{label}: unexpected handshake line {line:?} (plaintext, protocol 6 expected)"
        )
        .into());
    };
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))?
        .connect()
        .await?;
    let client = ProviderClient::new(channel)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20);
    Ok(Provider {
        label,
        peer,
        child,
        client,
    })
}

impl Provider {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    async fn plan(&mut self, values: &[Vec<u8>; 3]) -> plan_resource_change::Response {
        let req = plan_resource_change::Request {
            type_name: TYPE_NAME.to_owned(),
            prior_state: dv(&values[0]),
            proposed_new_state: dv(&values[1]),
            config: dv(&values[2]),
            prior_private: Vec::new(),
            provider_meta: dv(&NULL),
            ..Default::default()
        };
        self.client
            .plan_resource_change(req)
            .await
            .expect("PlanResourceChange")
            .into_inner()
    }

    async fn apply(
        &mut self,
        values: &[Vec<u8>; 3],
        private: &[u8],
    ) -> apply_resource_change::Response {
        let req = apply_resource_change::Request {
            type_name: TYPE_NAME.to_owned(),
            prior_state: dv(&values[0]),
            planned_state: dv(&values[1]),
            config: dv(&values[2]),
            planned_private: private.to_vec(),
            provider_meta: dv(&NULL),
            ..Default::default()
        };
        self.client
            .apply_resource_change(req)
            .await
            .expect("ApplyResourceChange")
            .into_inner()
    }

    fn private<'a>(&self, r: &'a Requests) -> &'a [u8] {
        if self.peer {
            &r.peer_private
        } else {
            &r.tfvalue_private
        }
    }

    /// N requests; the process's CPU (schedstat, and /proc/PID/stat as a cross-check)
    /// and the wall time they took.
    async fn run(&mut self, r: &Requests, rpc: &str, n: usize) -> (Duration, Duration, Duration) {
        let pid = self.pid();
        let (cpu0, ticks0, t0) = (
            process_cpu(pid).expect("schedstat"),
            process_cpu_ticks(pid).expect("stat"),
            Instant::now(),
        );
        for _ in 0..n {
            if rpc == "plan" {
                std::hint::black_box(self.plan(&r.plan).await);
            } else {
                let private = self.private(r).to_vec();
                std::hint::black_box(self.apply(&r.apply, &private).await);
            }
        }
        let wall = t0.elapsed();
        let cpu = process_cpu(pid).expect("schedstat") - cpu0;
        let ticks = process_cpu_ticks(pid).expect("stat") - ticks0;
        (cpu, ticks, wall)
    }
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a number"))
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = arg(&args, "--rounds", 5);
    let counts = [arg(&args, "--small", 2000), arg(&args, "--large", 50)];

    // The requests, built and checked in process (on a runtime of their own: the
    // in-process servers block on it).
    let requests: Vec<Requests> = std::thread::spawn(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        WORKLOADS
            .iter()
            .map(|&(name, tags, rules)| Requests::new(&rt, name, tags, rules))
            .collect()
    })
    .join()
    .expect("requests");

    let mut providers = vec![
        start(
            "tfvalue-plugin (serve_main: multi-thread runtime)",
            "tfvalue-bench-provider",
            &[],
            false,
        )
        .await?,
        start(
            "tf-provider 0.2.2 (serve, current-thread runtime as its examples)",
            "tf-provider-bench-provider",
            &[("PEER_RUNTIME", "current_thread")],
            true,
        )
        .await?,
        start(
            "tf-provider 0.2.2 (serve, multi-thread runtime)",
            "tf-provider-bench-provider",
            &[("PEER_RUNTIME", "multi_thread")],
            true,
        )
        .await?,
    ];

    // The answers: no error, the same bytes as in process, the same value across.
    let ty = tfvalue_side::schema_type();
    for r in &requests {
        let (inproc_plan, inproc_apply, peer_plan, peer_apply) = std::thread::scope(|s| {
            s.spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .expect("runtime");
                let server = tfvalue_side::in_process();
                let peer = PeerInProcess::new();
                let plan = rt.block_on(server.plan(TYPE_NAME, dynamic(&r.plan), Vec::new()));
                let apply = rt.block_on(server.apply(
                    TYPE_NAME,
                    dynamic(&r.apply),
                    r.tfvalue_private.clone(),
                ));
                let peer_plan = rt
                    .block_on(peer.plan(TYPE_NAME, r.plan.clone(), Vec::new(), NULL.to_vec()))
                    .expect("tf-provider plan");
                let peer_apply = rt
                    .block_on(peer.apply(
                        TYPE_NAME,
                        r.apply.clone(),
                        r.peer_private.clone(),
                        NULL.to_vec(),
                    ))
                    .expect("tf-provider apply");
                (
                    plan.planned_state.msgpack,
                    apply.new_state.msgpack,
                    peer_plan,
                    peer_apply,
                )
            })
            .join()
            .expect("in process")
        });
        for p in &mut providers {
            let plan = p.plan(&r.plan).await;
            assert!(
                errors(&plan.diagnostics).is_empty(),
                "{}: {:?}",
                p.label,
                plan.diagnostics
            );
            let private = p.private(r).to_vec();
            let apply = p.apply(&r.apply, &private).await;
            assert!(
                errors(&apply.diagnostics).is_empty(),
                "{}: {:?}",
                p.label,
                apply.diagnostics
            );
            let plan_state = plan.planned_state.unwrap_or_default().msgpack;
            let new_state = apply.new_state.unwrap_or_default().msgpack;
            if p.peer {
                assert_eq!(
                    plan_state, peer_plan.0,
                    "{}: plan differs from PeerInProcess",
                    p.label
                );
                assert_eq!(
                    plan.planned_private, peer_plan.1,
                    "{}: planned private",
                    p.label
                );
                assert_eq!(
                    new_state, peer_apply.0,
                    "{}: apply differs from PeerInProcess",
                    p.label
                );
                assert_eq!(apply.private, peer_apply.1, "{}: private", p.label);
            } else {
                assert_eq!(
                    plan_state, inproc_plan,
                    "{}: plan differs from in process",
                    p.label
                );
                assert_eq!(
                    new_state, inproc_apply,
                    "{}: apply differs from in process",
                    p.label
                );
            }
            assert_same(&format!("{} plan", r.name), &inproc_plan, &plan_state, &ty);
            assert_same(&format!("{} apply", r.name), &inproc_apply, &new_state, &ty);
        }
        println!(
            "{}: answers checked ({} bytes per apply request)",
            r.name,
            r.apply.iter().map(Vec::len).sum::<usize>()
        );
    }

    // Idle CPU (what a provider spends with no request), over one second.
    let idle0: Vec<Duration> = providers
        .iter()
        .map(|p| process_cpu(p.pid()).expect("cpu"))
        .collect();
    tokio::time::sleep(Duration::from_secs(1)).await;
    for (p, c0) in providers.iter().zip(&idle0) {
        let idle = process_cpu(p.pid())? - *c0;
        println!(
            "idle: {}: {:.1} µs of CPU per second",
            p.label,
            idle.as_secs_f64() * 1e6
        );
    }

    // Warm-up, then the rounds.
    for p in &mut providers {
        for r in &requests {
            let n = if r.name == "2KB" {
                counts[0] / 10
            } else {
                counts[1] / 10
            }
            .max(1);
            p.run(r, "plan", n).await;
            p.run(r, "apply", n).await;
        }
    }
    // [provider][workload][rpc] -> per-round (cpu µs, ticks µs, wall µs) per request.
    let mut samples = vec![vec![vec![Vec::new(); 2]; requests.len()]; providers.len()];
    for round in 0..rounds {
        for (pi, p) in providers.iter_mut().enumerate() {
            for (wi, r) in requests.iter().enumerate() {
                let n = if r.name == "2KB" {
                    counts[0]
                } else {
                    counts[1]
                };
                for (ri, rpc) in ["plan", "apply"].into_iter().enumerate() {
                    let (cpu, ticks, wall) = p.run(r, rpc, n).await;
                    let per = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
                    samples[pi][wi][ri].push((per(cpu), per(ticks), per(wall)));
                }
            }
        }
        eprintln!("round {}/{rounds} done", round + 1);
    }

    println!();
    println!(
        "CPU per request over gRPC (median of {rounds} rounds; µs of the provider process's CPU, schedstat; N = {} at 2KB, {} at 200KB):",
        counts[0], counts[1]
    );
    print!("| workload/RPC |");
    for p in &providers {
        print!(" {} |", p.label);
    }
    println!(" tfvalue-plugin / tf-provider (current-thread) | tfvalue-plugin / tf-provider (multi-thread) |");
    println!("|---|{}---:|---:|", "---:|".repeat(providers.len()));
    for (wi, r) in requests.iter().enumerate() {
        for (ri, rpc) in ["plan", "apply"].into_iter().enumerate() {
            let cpu: Vec<f64> = (0..providers.len())
                .map(|pi| median(samples[pi][wi][ri].iter().map(|s| s.0).collect()))
                .collect();
            print!("| {}/{rpc} |", r.name);
            for c in &cpu {
                print!(" {c:.1} |");
            }
            println!(" {:.2}x | {:.2}x |", cpu[0] / cpu[1], cpu[0] / cpu[2]);
        }
    }
    println!();
    println!("Cross-checks (medians, µs per request): /proc/PID/stat CPU (10 ms ticks), wall time");
    for (wi, r) in requests.iter().enumerate() {
        for (ri, rpc) in ["plan", "apply"].into_iter().enumerate() {
            print!("{}/{rpc}:", r.name);
            for (pi, p) in providers.iter().enumerate() {
                let s = &samples[pi][wi][ri];
                print!(
                    "  [{}] stat {:.1}, wall {:.1}",
                    p.label.split(' ').next().unwrap_or(""),
                    median(s.iter().map(|s| s.1).collect()),
                    median(s.iter().map(|s| s.2).collect())
                );
            }
            println!();
        }
    }
    println!();
    println!("Per round (schedstat CPU µs per request):");
    for (pi, p) in providers.iter().enumerate() {
        for (wi, r) in requests.iter().enumerate() {
            for (ri, rpc) in ["plan", "apply"].into_iter().enumerate() {
                let v: Vec<String> = samples[pi][wi][ri]
                    .iter()
                    .map(|s| format!("{:.1}", s.0))
                    .collect();
                println!("  {} {}/{rpc}: {}", p.label, r.name, v.join(" "));
            }
        }
    }

    for p in &mut providers {
        let _ = p.child.kill();
        let _ = p.child.wait();
    }
    Ok(())
}
