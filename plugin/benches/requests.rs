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

/// A rule of an instance (a nested block).
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Rule {
    #[tfvalue(required)]
    port: Unknown<i64>,
    #[tfvalue(required)]
    protocol: Unknown<String>,
    #[tfvalue(optional)]
    cidrs: Unknown<Option<Vec<String>>>,
}

/// A cloud instance, as providers model one: required and optional attributes (which may
/// be unknown in a plan), computed ones, a map, lists, a block list.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Instance {
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    #[tfvalue(computed)]
    arn: Unknown<Option<String>>,
    #[tfvalue(computed)]
    created_at: Unknown<Option<String>>,
    #[tfvalue(required)]
    name: Unknown<String>,
    #[tfvalue(optional)]
    description: Unknown<Option<String>>,
    #[tfvalue(optional)]
    image: Unknown<Option<String>>,
    #[tfvalue(optional)]
    zone: Unknown<Option<String>>,
    #[tfvalue(optional)]
    size: Unknown<Option<i64>>,
    #[tfvalue(optional)]
    disk_gb: Unknown<Option<i64>>,
    #[tfvalue(optional)]
    price: Unknown<Option<f64>>,
    #[tfvalue(optional)]
    enabled: Unknown<Option<bool>>,
    #[tfvalue(optional)]
    monitoring: Unknown<Option<bool>>,
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, String>>>,
    #[tfvalue(optional)]
    labels: Unknown<Option<Vec<String>>>,
    #[tfvalue(optional)]
    security_groups: Unknown<Option<Vec<String>>>,
    #[tfvalue(block)]
    rule: Unknown<Vec<Rule>>,
}

/// The configuration of an instance with `tags` tags and `rules` rules.
fn config(tags: usize, rules: usize) -> Instance {
    Instance {
        id: Unknown::null(),
        arn: Unknown::null(),
        created_at: Unknown::null(),
        name: "web-server-01".to_owned().into(),
        description: Some("the front end of the shop, behind the load balancer".to_owned()).into(),
        image: Some("ami-0123456789abcdef0".to_owned()).into(),
        zone: Some("eu-west-1a".to_owned()).into(),
        size: Some(4).into(),
        disk_gb: Some(120).into(),
        price: Some(0.0234).into(),
        enabled: Some(true).into(),
        monitoring: Some(false).into(),
        tags: Some(
            (0..tags)
                .map(|i| {
                    (
                        format!("tag-{i:05}"),
                        format!("value number {i} of the instance"),
                    )
                })
                .collect(),
        )
        .into(),
        labels: Some((0..5).map(|i| format!("label-{i}")).collect()).into(),
        security_groups: Some(vec!["sg-0a1b2c3d".to_owned(), "sg-4e5f6a7b".to_owned()]).into(),
        rule: (0..rules)
            .map(|i| Rule {
                port: (8000 + i as i64).into(),
                protocol: "tcp".to_owned().into(),
                cidrs: Some(vec![
                    "10.0.0.0/8".to_owned(),
                    format!("192.168.{}.0/24", i % 256),
                ])
                .into(),
            })
            .collect::<Vec<_>>()
            .into(),
    }
}

fn dv<T: Serialize>(v: &T) -> DynamicValue {
    DynamicValue::encode(v).expect("encode")
}

/// The provider: one resource, written as the README teaches (typed decode, computed
/// attributes planned unknown and set at apply, typed encode).
struct Bench;

fn fail(e: tfvalue::Error) -> Diagnostic {
    Diagnostic::from_value_error("invalid value", &e)
}

impl Bench {
    fn plan(req: &PlanResourceChangeRequest) -> Result<PlanResourceChangeResponse, Diagnostic> {
        let prior: Option<Instance> = req.prior_state.decode().map_err(fail)?;
        let _config: Option<Instance> = req.config.decode().map_err(fail)?;
        let Some(mut planned) = req
            .proposed_new_state
            .decode::<Option<Instance>>()
            .map_err(fail)?
        else {
            return Ok(PlanResourceChangeResponse::new(
                req.proposed_new_state.clone(),
            ));
        };
        if prior.is_none() {
            planned.id = Unknown::unknown();
            planned.arn = Unknown::unknown();
            planned.created_at = Unknown::unknown();
        }
        Ok(PlanResourceChangeResponse::new(dv(&planned)))
    }

    fn apply(req: &ApplyResourceChangeRequest) -> Result<ApplyResourceChangeResponse, Diagnostic> {
        let _prior: Option<Instance> = req.prior_state.decode().map_err(fail)?;
        let _config: Option<Instance> = req.config.decode().map_err(fail)?;
        let Some(mut new) = req
            .planned_state
            .decode::<Option<Instance>>()
            .map_err(fail)?
        else {
            return Ok(ApplyResourceChangeResponse::new(req.planned_state.clone()));
        };
        if new.id.is_unknown() {
            new.id = Unknown::Known(Some("i-0123456789".to_owned()));
            new.arn = Unknown::Known(Some(
                "arn:aws:ec2:eu-west-1:123:instance/i-0123456789".to_owned(),
            ));
            new.created_at = Unknown::Known(Some("2026-12-01T12:00:00Z".to_owned()));
        }
        Ok(ApplyResourceChangeResponse::new(dv(&new)))
    }
}

impl Provider for Bench {
    fn schemas(&self) -> Schemas {
        Schemas::new().resource("bench_instance", Instance::schema())
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        Bench::plan(&req).unwrap_or_else(Into::into)
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        Bench::apply(&req).unwrap_or_else(Into::into)
    }
}

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
