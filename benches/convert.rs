#![allow(missing_docs)] // criterion_group! and criterion_main! generate public items
//! `tfvalue::to_value_as` and `tfvalue::from_value` (typed data to a `Value` and back) on
//! the three workloads of `benches/common/mod.rs`, against:
//!
//! - `via_msgpack`: the same conversion through the wire, as tfvalue did it before
//!   `Value` was a serde target of its own (`msgpack::to_vec` then `Value::from_msgpack`;
//!   `msgpack::to_vec` of the value then `msgpack::from_slice`);
//! - `serde_json`: `serde_json::to_value` and `T::deserialize(&serde_json::Value)` of the
//!   same data, the conversions a serde_json user knows.
//!
//! Run with `cargo bench -p tfvalue --bench convert`; `benches/README.md` has the figures.

mod common;

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tfvalue::{Type, Value};

use common::{configure, Instance};

struct Workload<'a, T> {
    name: &'static str,
    data: &'a T,
    ty: Type,
    value: Value,
    json_value: serde_json::Value,
    /// The MessagePack bytes, for the throughput.
    len: usize,
}

/// Builds a workload and checks that every path gives the same result before anything is
/// measured (panics if not).
fn workload<'a, T>(name: &'static str, data: &'a T, ty: Type) -> Workload<'a, T>
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let value = tfvalue::to_value_as(data, &ty).unwrap();
    assert!(
        value == op_to_value_via_msgpack(data, &ty),
        "{name}: to_value_as and the wire disagree"
    );
    assert!(
        op_from_value_tfvalue::<T>(&value) == *data,
        "{name}: from_value does not give the data back"
    );
    assert!(
        op_from_value_via_msgpack::<T>(&value) == *data,
        "{name}: the wire does not give the data back"
    );
    let json_value = serde_json::to_value(data).unwrap();
    let len = tfvalue::msgpack::to_vec(data).unwrap().len();
    Workload {
        name,
        data,
        ty,
        value,
        json_value,
        len,
    }
}

#[inline(never)]
fn op_to_value_tfvalue<T: Serialize>(data: &T, ty: &Type) -> Value {
    tfvalue::to_value_as(data, ty).unwrap()
}

#[inline(never)]
fn op_to_value_via_msgpack<T: Serialize>(data: &T, ty: &Type) -> Value {
    Value::from_msgpack(&tfvalue::msgpack::to_vec(data).unwrap(), ty).unwrap()
}

#[inline(never)]
fn op_to_value_serde_json<T: Serialize>(data: &T) -> serde_json::Value {
    serde_json::to_value(data).unwrap()
}

#[inline(never)]
fn op_from_value_tfvalue<T: DeserializeOwned>(value: &Value) -> T {
    tfvalue::from_value(value).unwrap()
}

#[inline(never)]
fn op_from_value_via_msgpack<T: DeserializeOwned>(value: &Value) -> T {
    tfvalue::msgpack::from_slice(&tfvalue::msgpack::to_vec(value).unwrap()).unwrap()
}

#[inline(never)]
fn op_from_value_serde_json<T: DeserializeOwned>(value: &serde_json::Value) -> T {
    T::deserialize(value).unwrap()
}

fn bench_workload<T>(c: &mut Criterion, w: &Workload<T>)
where
    T: Serialize + DeserializeOwned,
{
    let mut g = c.benchmark_group(format!("{}/to_value", w.name));
    configure(&mut g, w.len);
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_to_value_tfvalue(black_box(w.data), &w.ty))
    });
    g.bench_function("via_msgpack", |b| {
        b.iter(|| op_to_value_via_msgpack(black_box(w.data), &w.ty))
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| op_to_value_serde_json(black_box(w.data)))
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/from_value", w.name));
    configure(&mut g, w.len);
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_from_value_tfvalue::<T>(black_box(&w.value)))
    });
    g.bench_function("via_msgpack", |b| {
        b.iter(|| op_from_value_via_msgpack::<T>(black_box(&w.value)))
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| op_from_value_serde_json::<T>(black_box(&w.json_value)))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let data = common::data();
    if common::selected("small") {
        let w = workload("small", &data.small, data.small_ty.clone());
        bench_workload::<Instance>(c, &w);
    }
    if common::selected("wide") {
        let w = workload("wide", &data.wide, data.wide_ty.clone());
        bench_workload::<Vec<Instance>>(c, &w);
    }
    if common::selected("deep_tags") {
        let w = workload("deep_tags", &data.deep_tags, data.deep_tags_ty.clone());
        bench_workload::<BTreeMap<String, String>>(c, &w);
    }
}

criterion_group! {
    name = convert;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(convert);
