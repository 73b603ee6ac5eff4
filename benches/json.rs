//! tfvalue::json against plain serde_json on the same structs and the same bytes.
//!
//! Run: `cargo bench --bench json -- --warm-up-time 1 --measurement-time 3`

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde::{Deserialize, Serialize};

/// A resource much like an `aws_instance` in Terraform state: about 30 attributes, two
/// tag maps, string lists and two nested block lists.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Instance {
    ami: String,
    arn: String,
    associate_public_ip_address: bool,
    availability_zone: String,
    cpu_core_count: u32,
    cpu_threads_per_core: u32,
    disable_api_termination: bool,
    ebs_optimized: bool,
    get_password_data: bool,
    hibernation: bool,
    host_id: Option<String>,
    iam_instance_profile: String,
    id: String,
    instance_initiated_shutdown_behavior: String,
    instance_state: String,
    instance_type: String,
    ipv6_address_count: u32,
    key_name: String,
    monitoring: bool,
    outpost_arn: Option<String>,
    password_data: String,
    placement_group: String,
    primary_network_interface_id: String,
    private_dns: String,
    private_ip: String,
    public_dns: String,
    public_ip: String,
    root_volume_gib: f64,
    secondary_private_ips: Vec<String>,
    security_groups: Vec<String>,
    source_dest_check: bool,
    subnet_id: String,
    tenancy: String,
    user_data: Option<String>,
    vpc_security_group_ids: Vec<String>,
    tags: BTreeMap<String, String>,
    tags_all: BTreeMap<String, String>,
    ebs_block_device: Vec<EbsBlockDevice>,
    network_interface: Vec<NetworkInterface>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct EbsBlockDevice {
    delete_on_termination: bool,
    device_name: String,
    encrypted: bool,
    iops: u32,
    kms_key_id: String,
    snapshot_id: String,
    throughput: u32,
    volume_id: String,
    volume_size: u32,
    volume_type: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct NetworkInterface {
    delete_on_termination: bool,
    device_index: u32,
    network_card_index: u32,
    network_interface_id: String,
}

fn instance(i: u32) -> Instance {
    let tags: BTreeMap<String, String> = [
        ("Environment", "production"),
        ("Name", "web-server"),
        ("Owner", "platform-team"),
        ("CostCenter", "cc-1234"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), format!("{v}-{i}")))
    .collect();
    Instance {
        ami: "ami-0c55b159cbfafe1f0".into(),
        arn: format!("arn:aws:ec2:us-east-1:123456789012:instance/i-0abcd1234efgh{i:05}"),
        associate_public_ip_address: true,
        availability_zone: "us-east-1a".into(),
        cpu_core_count: 2,
        cpu_threads_per_core: 2,
        disable_api_termination: false,
        ebs_optimized: true,
        get_password_data: false,
        hibernation: false,
        host_id: None,
        iam_instance_profile: "web-server-profile".into(),
        id: format!("i-0abcd1234efgh{i:05}"),
        instance_initiated_shutdown_behavior: "stop".into(),
        instance_state: "running".into(),
        instance_type: "t3.large".into(),
        ipv6_address_count: 0,
        key_name: "deployer-key".into(),
        monitoring: true,
        outpost_arn: None,
        password_data: String::new(),
        placement_group: String::new(),
        primary_network_interface_id: format!("eni-0123456789abc{i:04}"),
        private_dns: format!("ip-10-0-{}-{}.ec2.internal", i % 256, (i / 256) % 256),
        private_ip: format!("10.0.{}.{}", i % 256, (i / 256) % 256),
        public_dns: format!(
            "ec2-54-210-{}-{}.compute-1.amazonaws.com",
            i % 256,
            (i / 256) % 256
        ),
        public_ip: format!("54.210.{}.{}", i % 256, (i / 256) % 256),
        root_volume_gib: 37.5 + f64::from(i) * 0.25,
        secondary_private_ips: vec!["10.0.1.20".into(), "10.0.1.21".into()],
        security_groups: vec!["default".into(), "web".into()],
        source_dest_check: true,
        subnet_id: "subnet-0bb1c79de3EXAMPLE".into(),
        tenancy: "default".into(),
        user_data: Some("IyEvYmluL2Jhc2gKZWNobyBoZWxsbyB3b3JsZAo=".into()),
        vpc_security_group_ids: vec!["sg-0123456789abcdef0".into(), "sg-0fedcba9876543210".into()],
        tags: tags.clone(),
        tags_all: tags,
        ebs_block_device: (0..2)
            .map(|d| EbsBlockDevice {
                delete_on_termination: true,
                device_name: format!("/dev/sd{}", char::from(b'b' + d as u8)),
                encrypted: true,
                iops: 3000,
                kms_key_id:
                    "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
                        .into(),
                snapshot_id: String::new(),
                throughput: 125,
                volume_id: format!("vol-0{i:05}abcdef{d}"),
                volume_size: 100 + d,
                volume_type: "gp3".into(),
            })
            .collect(),
        network_interface: vec![NetworkInterface {
            delete_on_termination: false,
            device_index: 0,
            network_card_index: 0,
            network_interface_id: format!("eni-0123456789abc{i:04}"),
        }],
    }
}

fn bench_decode(c: &mut Criterion) {
    let one = instance(7);
    let many: Vec<Instance> = (0..1000).map(instance).collect();
    let one_bytes = serde_json::to_vec(&one).unwrap();
    let many_bytes = serde_json::to_vec(&many).unwrap();
    // Same bytes, same result through both.
    assert_eq!(
        tfvalue::json::from_slice::<Instance>(&one_bytes).unwrap(),
        one
    );
    assert_eq!(
        tfvalue::json::from_slice::<Vec<Instance>>(&many_bytes).unwrap(),
        many
    );

    let mut g = c.benchmark_group("json_decode");
    g.throughput(Throughput::Bytes(one_bytes.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("serde_json", "resource"),
        &one_bytes,
        |b, bytes| b.iter(|| serde_json::from_slice::<Instance>(black_box(bytes)).unwrap()),
    );
    g.bench_with_input(
        BenchmarkId::new("tfvalue", "resource"),
        &one_bytes,
        |b, bytes| b.iter(|| tfvalue::json::from_slice::<Instance>(black_box(bytes)).unwrap()),
    );
    g.throughput(Throughput::Bytes(many_bytes.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("serde_json", "list-1000"),
        &many_bytes,
        |b, bytes| b.iter(|| serde_json::from_slice::<Vec<Instance>>(black_box(bytes)).unwrap()),
    );
    g.bench_with_input(
        BenchmarkId::new("tfvalue", "list-1000"),
        &many_bytes,
        |b, bytes| b.iter(|| tfvalue::json::from_slice::<Vec<Instance>>(black_box(bytes)).unwrap()),
    );
    g.finish();
}

fn bench_encode(c: &mut Criterion) {
    let one = instance(7);
    let many: Vec<Instance> = (0..1000).map(instance).collect();
    let one_len = serde_json::to_vec(&one).unwrap().len() as u64;
    let many_len = serde_json::to_vec(&many).unwrap().len() as u64;

    let mut g = c.benchmark_group("json_encode");
    g.throughput(Throughput::Bytes(one_len));
    g.bench_with_input(BenchmarkId::new("serde_json", "resource"), &one, |b, v| {
        b.iter(|| serde_json::to_vec(black_box(v)).unwrap())
    });
    g.bench_with_input(BenchmarkId::new("tfvalue", "resource"), &one, |b, v| {
        b.iter(|| tfvalue::json::to_vec(black_box(v)).unwrap())
    });
    g.throughput(Throughput::Bytes(many_len));
    g.bench_with_input(
        BenchmarkId::new("serde_json", "list-1000"),
        &many,
        |b, v| b.iter(|| serde_json::to_vec(black_box(v)).unwrap()),
    );
    g.bench_with_input(BenchmarkId::new("tfvalue", "list-1000"), &many, |b, v| {
        b.iter(|| tfvalue::json::to_vec(black_box(v)).unwrap())
    });
    g.finish();
}

/// The ratio tfvalue / serde_json measured in alternating short batches (the median of
/// the per-round ratios), which holds up on a busy machine where two separate criterion
/// measurements may run under different load.
fn paired_ratio(
    rounds: usize,
    iters: usize,
    mut serde_json: impl FnMut(),
    mut tfvalue: impl FnMut(),
) -> f64 {
    use std::time::Instant;
    let mut ratios = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let time = |f: &mut dyn FnMut()| {
            let start = Instant::now();
            for _ in 0..iters {
                f();
            }
            start.elapsed().as_secs_f64()
        };
        // Alternate which side goes first, so that drift in load cancels out.
        let (a, b) = if round % 2 == 0 {
            let a = time(&mut serde_json);
            (a, time(&mut tfvalue))
        } else {
            let b = time(&mut tfvalue);
            (time(&mut serde_json), b)
        };
        ratios.push(b / a);
    }
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

fn bench_paired(_: &mut Criterion) {
    let one = instance(7);
    let many: Vec<Instance> = (0..1000).map(instance).collect();
    let one_bytes = serde_json::to_vec(&one).unwrap();
    let many_bytes = serde_json::to_vec(&many).unwrap();
    let rows = [
        (
            "decode resource",
            paired_ratio(
                400,
                200,
                || {
                    drop(black_box(
                        serde_json::from_slice::<Instance>(black_box(&one_bytes)).unwrap(),
                    ))
                },
                || {
                    drop(black_box(
                        tfvalue::json::from_slice::<Instance>(black_box(&one_bytes)).unwrap(),
                    ))
                },
            ),
        ),
        (
            "decode list-1000",
            paired_ratio(
                40,
                2,
                || {
                    drop(black_box(
                        serde_json::from_slice::<Vec<Instance>>(black_box(&many_bytes)).unwrap(),
                    ))
                },
                || {
                    drop(black_box(
                        tfvalue::json::from_slice::<Vec<Instance>>(black_box(&many_bytes)).unwrap(),
                    ))
                },
            ),
        ),
        (
            "encode resource",
            paired_ratio(
                400,
                200,
                || drop(black_box(serde_json::to_vec(black_box(&one)).unwrap())),
                || drop(black_box(tfvalue::json::to_vec(black_box(&one)).unwrap())),
            ),
        ),
        (
            "encode list-1000",
            paired_ratio(
                40,
                2,
                || drop(black_box(serde_json::to_vec(black_box(&many)).unwrap())),
                || drop(black_box(tfvalue::json::to_vec(black_box(&many)).unwrap())),
            ),
        ),
    ];
    println!("paired ratio tfvalue / serde_json (median of alternating batches):");
    for (name, ratio) in rows {
        println!("  {name:<18} {ratio:.2}x");
    }
}

criterion_group!(benches, bench_paired, bench_decode, bench_encode);
criterion_main!(benches);
