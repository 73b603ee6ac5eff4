//! The workloads both benches run on (`benches/msgpack.rs` and `benches/json.rs` include
//! this file as `mod common;`), generated deterministically (a fixed xorshift seed):
//!
//! - `small`: one resource of about 2 KB (35 attributes, two tag maps, string lists, two
//!   nested block lists);
//! - `wide`: a list of 10,000 such resources;
//! - `deep_tags`: a `map(string)` of 100,000 entries.
//!
//! Struct fields are declared in name order, so serializers that write fields in
//! declaration order (rmp-serde, serde_json) write what tfvalue writes: the benches check
//! that before they measure.
//!
//! `TFVALUE_BENCH_WORKLOADS` (a comma-separated list, e.g. `small,deep_tags`) limits the
//! workloads a bench builds and measures; unset, all three. The data of every workload is
//! generated anyway (it is cheap, and keeps every workload's bytes the same whichever are
//! chosen); only the chosen ones are encoded, checked and measured.

// Each bench uses a different part of this module.
#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::BTreeMap;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, SamplingMode, Throughput};
use serde::{Deserialize, Serialize};
use tfvalue::Type;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct EbsBlockDevice {
    pub delete_on_termination: bool,
    pub device_name: String,
    pub encrypted: bool,
    pub iops: i64,
    pub kms_key_id: Option<String>,
    pub snapshot_id: String,
    pub throughput: i64,
    pub volume_id: String,
    pub volume_size: i64,
    pub volume_type: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct NetworkInterface {
    pub delete_on_termination: bool,
    pub device_index: i64,
    pub network_card_index: i64,
    pub network_interface_id: String,
}

/// A resource as a provider model: owned strings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Instance {
    pub ami: String,
    pub arn: String,
    pub associate_public_ip_address: bool,
    pub availability_zone: String,
    pub cpu_core_count: i64,
    pub cpu_threads_per_core: i64,
    pub disable_api_termination: bool,
    pub ebs_block_device: Vec<EbsBlockDevice>,
    pub ebs_optimized: bool,
    pub get_password_data: bool,
    pub hibernation: Option<bool>,
    pub host_id: Option<String>,
    pub iam_instance_profile: String,
    pub id: String,
    pub instance_state: String,
    pub instance_type: String,
    pub ipv6_addresses: Vec<String>,
    pub key_name: String,
    pub monitoring: bool,
    pub network_interface: Vec<NetworkInterface>,
    pub placement_group: Option<String>,
    pub price: f64,
    pub private_dns: String,
    pub private_ip: String,
    pub public_dns: String,
    pub public_ip: String,
    pub secondary_private_ips: Vec<String>,
    pub security_groups: Vec<String>,
    pub source_dest_check: bool,
    pub subnet_id: String,
    pub tags: BTreeMap<String, String>,
    pub tenancy: String,
    pub user_data: Option<String>,
    pub volume_tags: BTreeMap<String, String>,
    pub vpc_security_group_ids: Vec<String>,
}

#[derive(Deserialize, Debug)]
pub struct EbsBlockDeviceRef<'a> {
    pub delete_on_termination: bool,
    pub device_name: &'a str,
    pub encrypted: bool,
    pub iops: i64,
    #[serde(borrow)]
    pub kms_key_id: Option<&'a str>,
    pub snapshot_id: &'a str,
    pub throughput: i64,
    pub volume_id: &'a str,
    pub volume_size: i64,
    pub volume_type: &'a str,
}

#[derive(Deserialize, Debug)]
pub struct NetworkInterfaceRef<'a> {
    pub delete_on_termination: bool,
    pub device_index: i64,
    pub network_card_index: i64,
    pub network_interface_id: &'a str,
}

/// The same resource decoded without copying strings: `&str` and `Cow<str>` borrow from
/// the input.
#[derive(Deserialize, Debug)]
pub struct InstanceRef<'a> {
    pub ami: &'a str,
    pub arn: &'a str,
    pub associate_public_ip_address: bool,
    pub availability_zone: &'a str,
    pub cpu_core_count: i64,
    pub cpu_threads_per_core: i64,
    pub disable_api_termination: bool,
    #[serde(borrow)]
    pub ebs_block_device: Vec<EbsBlockDeviceRef<'a>>,
    pub ebs_optimized: bool,
    pub get_password_data: bool,
    pub hibernation: Option<bool>,
    #[serde(borrow)]
    pub host_id: Option<&'a str>,
    pub iam_instance_profile: &'a str,
    pub id: &'a str,
    pub instance_state: &'a str,
    pub instance_type: &'a str,
    #[serde(borrow)]
    pub ipv6_addresses: Vec<&'a str>,
    pub key_name: &'a str,
    pub monitoring: bool,
    #[serde(borrow)]
    pub network_interface: Vec<NetworkInterfaceRef<'a>>,
    #[serde(borrow)]
    pub placement_group: Option<&'a str>,
    pub price: f64,
    pub private_dns: &'a str,
    pub private_ip: &'a str,
    pub public_dns: &'a str,
    pub public_ip: &'a str,
    #[serde(borrow)]
    pub secondary_private_ips: Vec<&'a str>,
    #[serde(borrow)]
    pub security_groups: Vec<Cow<'a, str>>,
    pub source_dest_check: bool,
    pub subnet_id: &'a str,
    #[serde(borrow)]
    pub tags: BTreeMap<&'a str, &'a str>,
    pub tenancy: &'a str,
    #[serde(borrow)]
    pub user_data: Option<&'a str>,
    #[serde(borrow)]
    pub volume_tags: BTreeMap<&'a str, &'a str>,
    #[serde(borrow)]
    pub vpc_security_group_ids: Vec<&'a str>,
}

pub const INSTANCE_TYPE: &str = r#"["object",{
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
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn hex(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| char::from(b"0123456789abcdef"[self.below(16) as usize]))
            .collect()
    }
    pub fn ip(&mut self) -> String {
        format!(
            "10.{}.{}.{}",
            self.below(256),
            self.below(256),
            self.below(256)
        )
    }
}

pub fn instance(rng: &mut Rng) -> Instance {
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

/// The seed of every run.
pub const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// The data of the three workloads and their types.
pub struct Data {
    pub small: Instance,
    pub wide: Vec<Instance>,
    pub deep_tags: BTreeMap<String, String>,
    pub small_ty: Type,
    pub wide_ty: Type,
    pub deep_tags_ty: Type,
}

/// Generates the three workloads, always in the same order from the same seed.
pub fn data() -> Data {
    let small_ty = Type::from_json(INSTANCE_TYPE.as_bytes()).unwrap();
    let mut rng = Rng(SEED);
    let small = instance(&mut rng);
    let wide = (0..10_000).map(|_| instance(&mut rng)).collect();
    let deep_tags = (0..100_000)
        .map(|i| (format!("key-{i:06}"), format!("value-{}", rng.hex(10))))
        .collect();
    Data {
        small,
        wide,
        deep_tags,
        wide_ty: Type::list(small_ty.clone()),
        deep_tags_ty: Type::map(Type::String),
        small_ty,
    }
}

/// Whether the workload `name` is to be measured (`TFVALUE_BENCH_WORKLOADS`).
pub fn selected(name: &str) -> bool {
    match std::env::var("TFVALUE_BENCH_WORKLOADS") {
        Ok(list) if !list.trim().is_empty() => list.split(',').any(|w| w.trim() == name),
        _ => true,
    }
}

/// Throughput in bytes of the input (or output) document; large inputs get 10 samples of
/// one iteration each (flat sampling), which keeps a `wide` benchmark to a few seconds.
pub fn configure(g: &mut BenchmarkGroup<'_, WallTime>, bytes: usize) {
    g.throughput(Throughput::Bytes(bytes as u64));
    if bytes > 100_000 {
        g.sample_size(10);
        g.sampling_mode(SamplingMode::Flat);
    }
}
