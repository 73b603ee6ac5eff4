//! UpgradeResourceState for a resource whose schema went v0 (the flatmap era of Terraform
//! before 0.12) -> v1 -> v2: each stored state, whatever its version, comes back as the
//! current version's MessagePack.
//!
//! Run with `cargo run --example state_upgrade`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tfvalue::codec::{Codec, RawState};
use tfvalue::{TfValue, Unknown};

/// Version 0: a load balancer with one listener per port, stored as flatmap.
#[derive(TfValue, Serialize, Deserialize, Debug)]
struct LoadBalancerV0 {
    /// Assigned by the API: computed only.
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    name: String,
    #[tfvalue(optional)]
    internal: Option<bool>,
    /// Set of "port:protocol" strings.
    #[tfvalue(optional)]
    listeners: Option<Vec<String>>,
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, String>>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, Clone)]
struct Listener {
    port: u16,
    protocol: String,
}

/// Version 1: listeners became blocks.
#[derive(TfValue, Serialize, Deserialize, Debug)]
#[tfvalue(version = 1)]
struct LoadBalancerV1 {
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    name: String,
    #[tfvalue(optional)]
    internal: Option<bool>,
    #[tfvalue(block)]
    listener: Vec<Listener>,
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, String>>,
}

/// Version 2 (current): `internal` became `scheme`, and an idle timeout with a default.
#[derive(TfValue, Serialize, Deserialize, Debug)]
#[tfvalue(version = 2)]
struct LoadBalancer {
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    name: String,
    scheme: String,
    #[tfvalue(optional, computed)]
    idle_timeout: Unknown<Option<u32>>,
    #[tfvalue(block)]
    listener: Vec<Listener>,
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, String>>,
}

fn v0_to_v1(old: LoadBalancerV0) -> Result<LoadBalancerV1, String> {
    let mut listener = Vec::new();
    for l in old.listeners.unwrap_or_default() {
        let (port, protocol) = l
            .split_once(':')
            .ok_or(format!("listener {l:?} is not port:protocol"))?;
        let port = port.parse().map_err(|e| format!("listener {l:?}: {e}"))?;
        listener.push(Listener {
            port,
            protocol: protocol.to_lowercase(),
        });
    }
    Ok(LoadBalancerV1 {
        id: old.id,
        name: old.name,
        internal: old.internal,
        listener,
        tags: old.tags,
    })
}

fn v1_to_v2(old: LoadBalancerV1) -> Result<LoadBalancer, String> {
    let scheme = if old.internal.unwrap_or(false) {
        "internal"
    } else {
        "internet-facing"
    };
    Ok(LoadBalancer {
        id: old.id,
        name: old.name,
        scheme: scheme.into(),
        idle_timeout: Unknown::null(),
        listener: old.listener,
        tags: old.tags,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // SDKv2 style: one step per version; the framework's style (`upgrade_from`) mixes in freely.
    let codec = Codec::<LoadBalancer>::new()
        .try_step_from(v0_to_v1)
        .try_upgrade_from(v1_to_v2)
        .default_with(|lb| {
            if lb.idle_timeout.is_null() {
                lb.idle_timeout = 60.into();
            }
        });

    let stored = [
        (
            0,
            "flatmap state from Terraform 0.11",
            RawState::from_flatmap(
                [
                    ("id", "lb-0a1b"),
                    ("name", "public-web"),
                    ("internal", "false"),
                    ("listeners.#", "2"),
                    ("listeners.0", "80:HTTP"),
                    ("listeners.1", "443:HTTPS"),
                    ("tags.%", "1"),
                    ("tags.env", "prod"),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ),
        ),
        (
            1,
            "JSON state of version 1",
            RawState::from_json(
                br#"{"id":"lb-9f9f","name":"internal-api","internal":true,
                     "listener":[{"port":8080,"protocol":"http"}],"tags":null}"#
                    .to_vec(),
            ),
        ),
        (
            2,
            "JSON state of the current version",
            RawState::from_json(
                br#"{"id":"lb-77aa","name":"edge","scheme":"internet-facing","idle_timeout":300,
                     "listener":[{"port":443,"protocol":"https"}]}"#
                    .to_vec(),
            ),
        ),
    ];
    for (version, what, raw) in &stored {
        let upgraded = codec.upgrade(*version, raw)?;
        let lb: LoadBalancer = upgraded.decode()?;
        println!(
            "v{version} ({what}) -> {} bytes of v2 MessagePack",
            upgraded.msgpack.len()
        );
        println!("  {lb:?}");
    }

    // A broken state names the version and the attribute.
    let broken = RawState::from_flatmap(
        [("name", "x"), ("listeners.#", "many")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    println!("broken state: {}", codec.upgrade(0, &broken).unwrap_err());
    Ok(())
}
