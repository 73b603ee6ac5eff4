#![allow(missing_docs)] // criterion_group! and criterion_main! generate public items
//! tfvalue's MessagePack against rmp-serde (typed) and rmpv (dynamic values) on the same
//! bytes. Three workloads, generated deterministically here:
//!
//! - `small`: one resource of about 2 KB (35 attributes, two tag maps, string lists, two
//!   nested block lists);
//! - `wide`: a list of 10,000 such resources;
//! - `deep_tags`: a `map(string)` of 100,000 entries.
//!
//! Struct fields are declared in name order, so `rmp_serde::to_vec_named` writes the same
//! bytes as tfvalue (checked when the workloads are built). Run with
//! `cargo bench -p tfvalue --bench msgpack`; `benches/README.md` has the figures.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use serde::{Deserialize, Serialize};
use tfvalue::{Type, Value};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct EbsBlockDevice {
    delete_on_termination: bool,
    device_name: String,
    encrypted: bool,
    iops: i64,
    kms_key_id: Option<String>,
    snapshot_id: String,
    throughput: i64,
    volume_id: String,
    volume_size: i64,
    volume_type: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct NetworkInterface {
    delete_on_termination: bool,
    device_index: i64,
    network_card_index: i64,
    network_interface_id: String,
}

/// A resource as a provider model: owned strings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Instance {
    ami: String,
    arn: String,
    associate_public_ip_address: bool,
    availability_zone: String,
    cpu_core_count: i64,
    cpu_threads_per_core: i64,
    disable_api_termination: bool,
    ebs_block_device: Vec<EbsBlockDevice>,
    ebs_optimized: bool,
    get_password_data: bool,
    hibernation: Option<bool>,
    host_id: Option<String>,
    iam_instance_profile: String,
    id: String,
    instance_state: String,
    instance_type: String,
    ipv6_addresses: Vec<String>,
    key_name: String,
    monitoring: bool,
    network_interface: Vec<NetworkInterface>,
    placement_group: Option<String>,
    price: f64,
    private_dns: String,
    private_ip: String,
    public_dns: String,
    public_ip: String,
    secondary_private_ips: Vec<String>,
    security_groups: Vec<String>,
    source_dest_check: bool,
    subnet_id: String,
    tags: BTreeMap<String, String>,
    tenancy: String,
    user_data: Option<String>,
    volume_tags: BTreeMap<String, String>,
    vpc_security_group_ids: Vec<String>,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)] // read only by the decoder
struct EbsBlockDeviceRef<'a> {
    delete_on_termination: bool,
    device_name: &'a str,
    encrypted: bool,
    iops: i64,
    #[serde(borrow)]
    kms_key_id: Option<&'a str>,
    snapshot_id: &'a str,
    throughput: i64,
    volume_id: &'a str,
    volume_size: i64,
    volume_type: &'a str,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct NetworkInterfaceRef<'a> {
    delete_on_termination: bool,
    device_index: i64,
    network_card_index: i64,
    network_interface_id: &'a str,
}

/// The same resource decoded without copying strings: `&str` and `Cow<str>` borrow from
/// the input.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct InstanceRef<'a> {
    ami: &'a str,
    arn: &'a str,
    associate_public_ip_address: bool,
    availability_zone: &'a str,
    cpu_core_count: i64,
    cpu_threads_per_core: i64,
    disable_api_termination: bool,
    #[serde(borrow)]
    ebs_block_device: Vec<EbsBlockDeviceRef<'a>>,
    ebs_optimized: bool,
    get_password_data: bool,
    hibernation: Option<bool>,
    #[serde(borrow)]
    host_id: Option<&'a str>,
    iam_instance_profile: &'a str,
    id: &'a str,
    instance_state: &'a str,
    instance_type: &'a str,
    #[serde(borrow)]
    ipv6_addresses: Vec<&'a str>,
    key_name: &'a str,
    monitoring: bool,
    #[serde(borrow)]
    network_interface: Vec<NetworkInterfaceRef<'a>>,
    #[serde(borrow)]
    placement_group: Option<&'a str>,
    price: f64,
    private_dns: &'a str,
    private_ip: &'a str,
    public_dns: &'a str,
    public_ip: &'a str,
    #[serde(borrow)]
    secondary_private_ips: Vec<&'a str>,
    #[serde(borrow)]
    security_groups: Vec<Cow<'a, str>>,
    source_dest_check: bool,
    subnet_id: &'a str,
    #[serde(borrow)]
    tags: BTreeMap<&'a str, &'a str>,
    tenancy: &'a str,
    #[serde(borrow)]
    user_data: Option<&'a str>,
    #[serde(borrow)]
    volume_tags: BTreeMap<&'a str, &'a str>,
    #[serde(borrow)]
    vpc_security_group_ids: Vec<&'a str>,
}

const INSTANCE_TYPE: &str = r#"["object",{
    "ami":"string","arn":"string","associate_public_ip_address":"bool","availability_zone":"string",
    "cpu_core_count":"number","cpu_threads_per_core":"number","disable_api_termination":"bool",
    "ebs_block_device":["list",["object",{"delete_on_termination":"bool","device_name":"string",
        "encrypted":"bool","iops":"number","kms_key_id":"string","snapshot_id":"string",
        "throughput":"number","volume_id":"string","volume_size":"number","volume_type":"string"}]],
    "ebs_optimized":"bool","get_password_data":"bool","hibernation":"bool","host_id":"string",
    "iam_instance_profile":"string","id":"string","instance_state":"string","instance_type":"string",
    "ipv6_addresses":["list","string"],"key_name":"string","monitoring":"bool",
    "network_interface":["list",["object",{"delete_on_termination":"bool","device_index":"number",
        "network_card_index":"number","network_interface_id":"string"}]],
    "placement_group":"string","price":"number","private_dns":"string","private_ip":"string",
    "public_dns":"string","public_ip":"string","secondary_private_ips":["list","string"],
    "security_groups":["list","string"],"source_dest_check":"bool","subnet_id":"string",
    "tags":["map","string"],"tenancy":"string","user_data":"string","volume_tags":["map","string"],
    "vpc_security_group_ids":["list","string"]}]"#;

/// A small deterministic generator (xorshift64*), so every run builds the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn hex(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| char::from(b"0123456789abcdef"[self.below(16) as usize]))
            .collect()
    }
    fn ip(&mut self) -> String {
        format!(
            "10.{}.{}.{}",
            self.below(256),
            self.below(256),
            self.below(256)
        )
    }
}

fn instance(rng: &mut Rng) -> Instance {
    let id = format!("i-{}", rng.hex(17));
    let ip = rng.ip();
    let public_ip = format!(
        "54.{}.{}.{}",
        rng.below(256),
        rng.below(256),
        rng.below(256)
    );
    let tags = (0..10)
        .map(|i| {
            (
                format!("tag-{i:02}"),
                format!("value-{}-{}", i, rng.hex(12)),
            )
        })
        .collect();
    let volume_tags = (0..5)
        .map(|i| (format!("volume-tag-{i}"), rng.hex(20)))
        .collect();
    Instance {
        ami: format!("ami-{}", rng.hex(17)),
        arn: format!("arn:aws:ec2:eu-west-1:123456789012:instance/{id}"),
        associate_public_ip_address: rng.below(2) == 0,
        availability_zone: "eu-west-1b".into(),
        cpu_core_count: 1 + rng.below(64) as i64,
        cpu_threads_per_core: 2,
        disable_api_termination: false,
        ebs_block_device: (0..3)
            .map(|i| EbsBlockDevice {
                delete_on_termination: true,
                device_name: format!("/dev/sd{}", char::from(b'f' + i as u8)),
                encrypted: rng.below(2) == 0,
                iops: 3000,
                kms_key_id: if i == 0 {
                    Some(format!(
                        "arn:aws:kms:eu-west-1:123456789012:key/{}",
                        rng.hex(32)
                    ))
                } else {
                    None
                },
                snapshot_id: format!("snap-{}", rng.hex(17)),
                throughput: 125,
                volume_id: format!("vol-{}", rng.hex(17)),
                volume_size: 8 << rng.below(6),
                volume_type: "gp3".into(),
            })
            .collect(),
        ebs_optimized: true,
        get_password_data: false,
        hibernation: None,
        host_id: None,
        iam_instance_profile: format!("profile-{}", rng.hex(8)),
        id,
        instance_state: "running".into(),
        instance_type: "t3.micro".into(),
        ipv6_addresses: (0..2)
            .map(|_| format!("2a05:d018:{}::{}", rng.hex(4), rng.hex(4)))
            .collect(),
        key_name: "deployer".into(),
        monitoring: true,
        network_interface: (0..2)
            .map(|i| NetworkInterface {
                delete_on_termination: i == 0,
                device_index: i,
                network_card_index: 0,
                network_interface_id: format!("eni-{}", rng.hex(17)),
            })
            .collect(),
        placement_group: None,
        price: 0.0104 + rng.below(100) as f64 / 1000.0,
        private_dns: format!("ip-{}.eu-west-1.compute.internal", ip.replace('.', "-")),
        private_ip: ip,
        public_dns: format!(
            "ec2-{}.eu-west-1.compute.amazonaws.com",
            public_ip.replace('.', "-")
        ),
        public_ip,
        secondary_private_ips: (0..3).map(|_| rng.ip()).collect(),
        security_groups: (0..3).map(|i| format!("sg-group-{i}")).collect(),
        source_dest_check: true,
        subnet_id: format!("subnet-{}", rng.hex(17)),
        tags,
        tenancy: "default".into(),
        user_data: Some(rng.hex(40)),
        volume_tags,
        vpc_security_group_ids: (0..3).map(|_| format!("sg-{}", rng.hex(17))).collect(),
    }
}

/// One workload: the typed data, its bytes and its type.
struct Workload<T> {
    name: &'static str,
    data: T,
    bytes: Vec<u8>,
    ty: Type,
}

fn workload<T: Serialize>(name: &'static str, data: T, ty: Type) -> Workload<T> {
    let bytes = tfvalue::msgpack::to_vec(&data).unwrap();
    let rmp = rmp_serde::to_vec_named(&data).unwrap();
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

fn configure(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, bytes: usize) {
    g.throughput(Throughput::Bytes(bytes as u64));
    if bytes > 100_000 {
        g.sample_size(10);
    }
}

// Each measured call sits in a function of its own (`inline(never)`), so that a profiler
// (valgrind's callgrind with `--toggle-collect=msgpack::op_*`) can count instructions per call.

#[inline(never)]
fn op_decode_tfvalue<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> T {
    tfvalue::msgpack::from_slice(bytes).unwrap()
}

#[inline(never)]
fn op_decode_rmp_serde<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> T {
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
        b.iter(|| op_encode_tfvalue(black_box(&w.data)))
    });
    g.bench_function("rmp_serde", |b| {
        b.iter(|| op_encode_rmp_serde(black_box(&w.data)))
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
        b.iter(|| op_decode_tfvalue::<R>(black_box(bytes)))
    });
    g.bench_function("rmp_serde", |b| {
        b.iter(|| op_decode_rmp_serde::<R>(black_box(bytes)))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let instance_ty = Type::from_json(INSTANCE_TYPE.as_bytes()).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);

    let small = workload("small", instance(&mut rng), instance_ty.clone());
    bench_workload::<Instance>(c, &small);
    bench_borrowed::<InstanceRef<'_>>(c, "small", &small.bytes);

    let wide = workload(
        "wide",
        (0..10_000).map(|_| instance(&mut rng)).collect::<Vec<_>>(),
        Type::list(instance_ty),
    );
    bench_workload::<Vec<Instance>>(c, &wide);
    bench_borrowed::<Vec<InstanceRef<'_>>>(c, "wide", &wide.bytes);

    let tags: BTreeMap<String, String> = (0..100_000)
        .map(|i| (format!("key-{i:06}"), format!("value-{}", rng.hex(10))))
        .collect();
    let deep = workload("deep_tags", tags, Type::map(Type::String));
    bench_workload::<BTreeMap<String, String>>(c, &deep);
    bench_borrowed::<BTreeMap<&str, &str>>(c, "deep_tags", &deep.bytes);
}

criterion_group! {
    name = msgpack;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(msgpack);
