//! A provider's resource model, written once as an annotated struct: the tfplugin6 schema,
//! the wire encoding of a plan with unknowns, and the plan/apply consistency check that
//! Terraform reports as "Provider produced inconsistent result" all come from it.
//!
//! Run with `cargo run --example provider_model`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tfvalue::schema::check_apply;
use tfvalue::{TfModel, TfValue, Unknown, Value};

/// A disk attached to the server.
#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Disk {
    /// Size in GiB.
    size_gb: u32,
    /// `ssd` or `hdd`.
    kind: Option<String>,
}

/// A virtual server.
#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[tfvalue(version = 2)]
struct Server {
    /// The server's name.
    name: String,
    /// Assigned by the API.
    id: Unknown<Option<String>>,
    /// The server's address, known after creation.
    ipv4_address: Unknown<Option<String>>,
    /// Free-form labels.
    tags: Option<BTreeMap<String, String>>,
    /// The root password.
    #[tfvalue(sensitive)]
    root_password: Option<String>,
    #[tfvalue(block, min_items = 1, max_items = 8)]
    disk: Vec<Disk>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = Server::schema();
    println!(
        "schema version {}, type {}",
        schema.version,
        Server::tf_type()
    );
    for (name, attr) in &schema.block.attributes {
        let role = match (attr.required, attr.optional, attr.computed) {
            (true, _, _) => "required",
            (_, true, true) => "optional, computed",
            (_, true, _) => "optional",
            _ => "computed",
        };
        println!(
            "  {name}: {role}{}",
            if attr.sensitive { ", sensitive" } else { "" }
        );
    }

    // PlanResourceChange: the provider fills in what it can and marks the rest unknown,
    // saying what it already knows (not null, an address prefix).
    let planned = Server {
        name: "web-1".into(),
        id: Unknown::unknown().not_null(),
        ipv4_address: Unknown::unknown().not_null().with_prefix("10.0."),
        tags: Some(BTreeMap::from([("env".into(), "prod".into())])),
        root_password: Some("s3cret".into()),
        disk: vec![Disk {
            size_gb: 40,
            kind: Some("ssd".into()),
        }],
    };
    let plan_bytes = tfvalue::msgpack::to_vec(&planned)?;
    println!("planned: {} bytes of MessagePack", plan_bytes.len());

    // ApplyResourceChange: the API answered.
    let applied = Server {
        id: Unknown::Known(Some("srv-8f2a".into())),
        ipv4_address: Unknown::Known(Some("192.168.1.7".into())),
        ..planned.clone()
    };
    let apply_bytes = tfvalue::msgpack::to_vec(&applied)?;

    // Terraform checks the final value against the plan; so can the provider's own tests.
    let ty = Server::tf_type();
    let planned_value = Value::from_msgpack(&plan_bytes, &ty)?;
    let applied_value = Value::from_msgpack(&apply_bytes, &ty)?;
    let problems = check_apply(&planned_value, &applied_value, &ty);
    println!("plan/apply check: {} problem(s)", problems.len());
    for p in problems.iter() {
        println!("  {p}");
    }

    let fixed = Server {
        ipv4_address: Unknown::Known(Some("10.0.3.7".into())),
        ..applied
    };
    let fixed_value = Value::from_msgpack(&tfvalue::msgpack::to_vec(&fixed)?, &ty)?;
    let problems = check_apply(&planned_value, &fixed_value, &ty);
    println!("after the fix: {} problem(s)", problems.len());
    Ok(())
}
