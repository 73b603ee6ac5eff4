#![allow(missing_docs)] // criterion_group! and criterion_main! generate public items
//! tfvalue's MessagePack against rmp-serde (typed) and rmpv (dynamic values) on the same
//! bytes, on the three workloads of `benches/common/mod.rs` (`small`, `wide`, `deep_tags`).
//!
//! Struct fields are declared in name order, so `rmp_serde::to_vec_named` writes the same
//! bytes as tfvalue (checked when the workloads are built). Run with
//! `cargo bench -p tfvalue --bench msgpack`, or everything with `benches/run.sh`;
//! `benches/README.md` has the figures.

mod common;

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde::{Deserialize, Serialize};
use tfvalue::{Type, Value};

use common::{configure, Instance, InstanceRef};

/// One workload: the typed data, its bytes and its type.
struct Workload<'a, T> {
    name: &'static str,
    data: &'a T,
    bytes: Vec<u8>,
    ty: Type,
}

fn workload<'a, T: Serialize>(name: &'static str, data: &'a T, ty: Type) -> Workload<'a, T> {
    let bytes = tfvalue::msgpack::to_vec(data).unwrap();
    let rmp = rmp_serde::to_vec_named(data).unwrap();
    // Both implementations must see the same bytes.
    assert_eq!(
        bytes, rmp,
        "{name}: tfvalue and rmp-serde write different bytes"
    );
    // And the bytes are a valid value of the type.
    Value::from_msgpack(&bytes, &ty).unwrap();
    eprintln!("workload {name}: {} bytes", bytes.len());
    Workload {
        name,
        data,
        bytes,
        ty,
    }
}

// Each measured call sits in a function of its own (`inline(never)`), so that a profiler
// (valgrind's callgrind with `--toggle-collect=msgpack::op_*`) can count instructions per call.
// Every benchmark of a workload calls a function of a different name (borrowed decoding
// has its own), so one callgrind run per workload counts all of them.

#[inline(never)]
fn op_decode_tfvalue<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> T {
    tfvalue::msgpack::from_slice(bytes).unwrap()
}

#[inline(never)]
fn op_decode_rmp_serde<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> T {
    rmp_serde::from_slice(bytes).unwrap()
}

#[inline(never)]
fn op_decode_borrowed_tfvalue<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> T {
    tfvalue::msgpack::from_slice(bytes).unwrap()
}

#[inline(never)]
fn op_decode_borrowed_rmp_serde<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> T {
    rmp_serde::from_slice(bytes).unwrap()
}

#[inline(never)]
fn op_encode_tfvalue<T: Serialize>(data: &T) -> Vec<u8> {
    tfvalue::msgpack::to_vec(data).unwrap()
}

#[inline(never)]
fn op_encode_rmp_serde<T: Serialize>(data: &T) -> Vec<u8> {
    rmp_serde::to_vec_named(data).unwrap()
}

#[inline(never)]
fn op_value_decode_tfvalue(bytes: &[u8], ty: &Type) -> Value {
    Value::from_msgpack(bytes, ty).unwrap()
}

#[inline(never)]
fn op_value_decode_rmpv(mut bytes: &[u8]) -> rmpv::Value {
    rmpv::decode::read_value(&mut bytes).unwrap()
}

#[inline(never)]
fn op_value_encode_tfvalue(value: &Value, ty: &Type) -> Vec<u8> {
    value.to_msgpack(ty).unwrap()
}

#[inline(never)]
fn op_value_encode_rmpv(value: &rmpv::Value) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, value).unwrap();
    out
}

/// Typed decode, typed encode, `Value` decode and encode.
fn bench_workload<T>(c: &mut Criterion, w: &Workload<T>)
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    let bytes = &w.bytes[..];

    let mut g = c.benchmark_group(format!("{}/decode", w.name));
    configure(&mut g, bytes.len());
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_decode_tfvalue::<T>(black_box(bytes)))
    });
    g.bench_function("rmp_serde", |b| {
        b.iter(|| op_decode_rmp_serde::<T>(black_box(bytes)))
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/encode", w.name));
    configure(&mut g, bytes.len());
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_encode_tfvalue(black_box(w.data)))
    });
    g.bench_function("rmp_serde", |b| {
        b.iter(|| op_encode_rmp_serde(black_box(w.data)))
    });
    g.finish();

    let value = Value::from_msgpack(bytes, &w.ty).unwrap();
    let rmpv_value = rmpv::decode::read_value(&mut &bytes[..]).unwrap();
    let mut g = c.benchmark_group(format!("{}/value_decode", w.name));
    configure(&mut g, bytes.len());
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_value_decode_tfvalue(black_box(bytes), &w.ty))
    });
    g.bench_function("rmpv", |b| {
        b.iter(|| op_value_decode_rmpv(black_box(bytes)))
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/value_encode", w.name));
    configure(&mut g, bytes.len());
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_value_encode_tfvalue(black_box(&value), &w.ty))
    });
    g.bench_function("rmpv", |b| {
        b.iter(|| op_value_encode_rmpv(black_box(&rmpv_value)))
    });
    g.finish();
}

/// Borrowed-string decoding of the same bytes.
fn bench_borrowed<'a, R: Deserialize<'a>>(c: &mut Criterion, name: &str, bytes: &'a [u8]) {
    let mut g = c.benchmark_group(format!("{name}/decode_borrowed"));
    configure(&mut g, bytes.len());
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_decode_borrowed_tfvalue::<R>(black_box(bytes)))
    });
    g.bench_function("rmp_serde", |b| {
        b.iter(|| op_decode_borrowed_rmp_serde::<R>(black_box(bytes)))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let data = common::data();

    if common::selected("small") {
        let small = workload("small", &data.small, data.small_ty.clone());
        bench_workload::<Instance>(c, &small);
        bench_borrowed::<InstanceRef<'_>>(c, "small", &small.bytes);
    }

    if common::selected("wide") {
        let wide = workload("wide", &data.wide, data.wide_ty.clone());
        bench_workload::<Vec<Instance>>(c, &wide);
        bench_borrowed::<Vec<InstanceRef<'_>>>(c, "wide", &wide.bytes);
    }

    if common::selected("deep_tags") {
        let deep = workload("deep_tags", &data.deep_tags, data.deep_tags_ty.clone());
        bench_workload::<BTreeMap<String, String>>(c, &deep);
        bench_borrowed::<BTreeMap<&str, &str>>(c, "deep_tags", &deep.bytes);
    }
}

criterion_group! {
    name = msgpack;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(msgpack);
