#![allow(missing_docs)] // criterion_group! and criterion_main! generate public items
//! tfvalue's JSON against serde_json on the three workloads of `benches/common/mod.rs`
//! (`small`, `wide`, `deep_tags`), on the same structs and the same bytes:
//!
//! - `json_decode`: typed decode, `tfvalue::json::from_slice` and `serde_json::from_slice`;
//! - `json_encode`: typed encode, `tfvalue::json::to_vec` and `serde_json::to_vec`;
//! - `value_to_json`: `Value::to_json(&ty)` and `serde_json::to_vec` of the
//!   `serde_json::Value` of the same document;
//! - `upgrade`: the same-version upgrade of stored state,
//!   `RawState::from_json(json).transcode(&ty, true)` (JSON state in, MessagePack
//!   `DynamicValue` out), against `serde_json::from_slice::<serde_json::Value>` of the
//!   same bytes, and the path through a `Value` (`RawState::decode_value` and
//!   `DynamicValue::encode_value`) as `tfvalue_via_value`.
//!
//! The state JSON of a workload is what Terraform stores: what `tfvalue::json::to_vec`
//! writes for the typed data (checked to be what `Value::to_json` writes). Run with
//! `cargo bench -p tfvalue --bench json`, or everything with `benches/run.sh`;
//! `benches/README.md` has the figures.

mod common;

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde::{Deserialize, Serialize};
use tfvalue::codec::RawState;
use tfvalue::{DynamicValue, Type, Value};

use common::{configure, Instance};

/// One workload: the typed data, its state JSON, its `Value`s and its type.
struct Workload<'a, T> {
    name: &'static str,
    data: &'a T,
    /// The state JSON (`tfvalue::json::to_vec` of `data`).
    json: Vec<u8>,
    value: Value,
    json_value: serde_json::Value,
    ty: Type,
}

/// Builds a workload and checks, before anything is measured, that tfvalue and serde_json
/// agree on it (panics if not).
fn workload<'a, T>(name: &'static str, data: &'a T, ty: Type) -> Workload<'a, T>
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let json = tfvalue::json::to_vec(data).unwrap();
    // Typed encode: the same bytes.
    assert!(
        json == serde_json::to_vec(data).unwrap(),
        "{name}: tfvalue::json::to_vec and serde_json::to_vec write different bytes"
    );
    // Typed decode: the same data back. Exactly from tfvalue; serde_json (without its
    // `float_roundtrip` feature, which the baseline does not get) may read a float one unit
    // in the last place off, so its result is compared with that tolerance.
    let exact = serde_json::to_value(data).unwrap();
    assert!(
        tfvalue::json::from_slice::<T>(&json).unwrap() == *data,
        "{name}: tfvalue::json::from_slice does not read the data back"
    );
    let decoded = serde_json::to_value(serde_json::from_slice::<T>(&json).unwrap()).unwrap();
    assert!(
        same_document(&decoded, &exact),
        "{name}: serde_json::from_slice does not read the data back"
    );

    // `Value::to_json` writes the state JSON. serde_json's `Value` of the state JSON is the
    // same document (floats within a unit in the last place, as above), which its encode
    // writes: the same bytes but for the last digit of such a float.
    let value = Value::from_json(&json, &ty).unwrap();
    assert!(
        value.to_json(&ty).unwrap() == json,
        "{name}: Value::to_json and tfvalue::json::to_vec write different bytes"
    );
    let json_value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(
        same_document(&json_value, &exact),
        "{name}: serde_json's Value is not the state's document"
    );
    let rewritten = serde_json::to_vec(&json_value).unwrap();
    let identical = rewritten == json;
    let rewritten: serde_json::Value = serde_json::from_slice(&rewritten).unwrap();
    assert!(
        same_document(&rewritten, &exact),
        "{name}: serde_json's Value does not write the state's document"
    );

    // The upgrade answers with the value's MessagePack, the same bytes by both paths. (Not
    // the bytes of `msgpack::to_vec` of the typed data: a non-integral `f64` such as
    // `price` is a float64 there, while the state JSON holds its shortest decimal, say
    // 0.023399999999999997, which no float64 is exactly, and a `Value` keeps that decimal
    // and writes it as a string, as go-cty does.)
    let raw = RawState::from_json(json.clone());
    let upgraded = raw.transcode(&ty, true).unwrap().msgpack;
    let via_value = DynamicValue::encode_value(&raw.decode_value(&ty, true).unwrap(), &ty);
    assert!(
        upgraded == via_value.unwrap().msgpack,
        "{name}: RawState::transcode and the path through a Value write different bytes"
    );
    assert!(
        Value::from_msgpack(&upgraded, &ty).unwrap() == value,
        "{name}: RawState::transcode does not write the state's value"
    );

    eprintln!(
        "workload {name}: {} bytes of state JSON ({} through serde_json's Value), {} of \
         MessagePack out of the upgrade",
        json.len(),
        if identical {
            "the same bytes"
        } else {
            "floats differ"
        },
        upgraded.len()
    );
    Workload {
        name,
        data,
        json,
        value,
        json_value,
        ty,
    }
}

/// Whether two JSON documents are the same, floats within a relative 1e-15 (serde_json's
/// default float parsing is not always correctly rounded).
fn same_document(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Number(x), J::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || (x - y).abs() <= 1e-15 * x.abs().max(y.abs())
        }
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_document(x, y))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, x), (ky, y))| kx == ky && same_document(x, y))
        }
        _ => a == b,
    }
}

// Each measured call sits in a function of its own (`inline(never)`), so that a profiler
// (valgrind's callgrind with `--toggle-collect=json::op_*`) can count instructions per call.
// Every benchmark of a workload calls a function of a different name, so one callgrind run
// per workload counts all of them.

#[inline(never)]
fn op_json_decode_tfvalue<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> T {
    tfvalue::json::from_slice(bytes).unwrap()
}

#[inline(never)]
fn op_json_decode_serde_json<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> T {
    serde_json::from_slice(bytes).unwrap()
}

#[inline(never)]
fn op_json_encode_tfvalue<T: Serialize>(data: &T) -> Vec<u8> {
    tfvalue::json::to_vec(data).unwrap()
}

#[inline(never)]
fn op_json_encode_serde_json<T: Serialize>(data: &T) -> Vec<u8> {
    serde_json::to_vec(data).unwrap()
}

#[inline(never)]
fn op_value_to_json_tfvalue(value: &Value, ty: &Type) -> Vec<u8> {
    value.to_json(ty).unwrap()
}

#[inline(never)]
fn op_value_to_json_serde_json(value: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap()
}

#[inline(never)]
fn op_upgrade_tfvalue(raw: &RawState, ty: &Type) -> DynamicValue {
    raw.transcode(ty, true).unwrap()
}

#[inline(never)]
fn op_upgrade_tfvalue_via_value(raw: &RawState, ty: &Type) -> DynamicValue {
    let value = raw.decode_value(ty, true).unwrap();
    DynamicValue::encode_value(&value, ty).unwrap()
}

#[inline(never)]
fn op_upgrade_serde_json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).unwrap()
}

fn bench_workload<T>(c: &mut Criterion, w: &Workload<'_, T>)
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    let json = &w.json[..];

    let mut g = c.benchmark_group(format!("{}/json_decode", w.name));
    configure(&mut g, json.len());
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_json_decode_tfvalue::<T>(black_box(json)))
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| op_json_decode_serde_json::<T>(black_box(json)))
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/json_encode", w.name));
    configure(&mut g, json.len());
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_json_encode_tfvalue(black_box(w.data)))
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| op_json_encode_serde_json(black_box(w.data)))
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/value_to_json", w.name));
    configure(&mut g, json.len());
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_value_to_json_tfvalue(black_box(&w.value), &w.ty))
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| op_value_to_json_serde_json(black_box(&w.json_value)))
    });
    g.finish();

    // The state as `UpgradeResourceState` receives it; `from_json` takes the bytes, so it
    // is built once, outside the measurement.
    let raw = RawState::from_json(w.json.clone());
    let mut g = c.benchmark_group(format!("{}/upgrade", w.name));
    configure(&mut g, json.len());
    g.bench_function("tfvalue", |b| {
        b.iter(|| op_upgrade_tfvalue(black_box(&raw), &w.ty))
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| op_upgrade_serde_json(black_box(json)))
    });
    g.bench_function("tfvalue_via_value", |b| {
        b.iter(|| op_upgrade_tfvalue_via_value(black_box(&raw), &w.ty))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let data = common::data();

    if common::selected("small") {
        let small = workload("small", &data.small, data.small_ty.clone());
        bench_workload::<Instance>(c, &small);
    }

    if common::selected("wide") {
        let wide = workload("wide", &data.wide, data.wide_ty.clone());
        bench_workload::<Vec<Instance>>(c, &wide);
    }

    if common::selected("deep_tags") {
        let deep = workload("deep_tags", &data.deep_tags, data.deep_tags_ty.clone());
        bench_workload::<BTreeMap<String, String>>(c, &deep);
    }
}

criterion_group! {
    name = json;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(json);
