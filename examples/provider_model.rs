//! A provider's resource model, written once as an annotated struct that decodes every
//! payload Terraform sends for the resource: the configuration (computed attributes null,
//! references to other resources unknown), the proposed new state, the prior state and the
//! planned state. The tfplugin6 schema, the plan (unknowns for what the API assigns, the
//! attributes that force replacement) and the plan/apply consistency check that Terraform
//! reports as "Provider produced inconsistent result" all come from it.
//!
//! Run with `cargo run --example provider_model`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tfvalue::{DynamicValue, Refinements, TfModel, TfValue, Unknown, Value};

/// The kind of a disk: a string attribute that accepts `ssd` or `hdd`.
#[derive(TfValue, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum DiskKind {
    Ssd,
    Hdd,
}

/// A disk attached to the server.
#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Disk {
    /// Size in GiB.
    size_gb: Unknown<u32>,
    /// `ssd` or `hdd`.
    #[tfvalue(optional)]
    kind: Unknown<Option<DiskKind>>,
}

/// A virtual server.
#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[tfvalue(version = 2)]
struct Server {
    /// The server's name; changing it replaces the server.
    #[tfvalue(
        requires_replace,
        min_length = 1,
        max_length = 63,
        pattern = "^[a-z][a-z0-9-]*$"
    )]
    name: Unknown<String>,
    /// Assigned by the API.
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    /// The server's address, known after creation.
    #[tfvalue(computed)]
    ipv4_address: Unknown<Option<String>>,
    /// Free-form labels.
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
    /// The root password.
    #[tfvalue(optional, sensitive)]
    root_password: Unknown<Option<String>>,
    #[tfvalue(block, min_items = 1, max_items = 8)]
    disk: Unknown<Vec<Disk>>,
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
            "  {name}: {role}{}{}",
            if attr.sensitive { ", sensitive" } else { "" },
            if attr.requires_replace {
                ", forces replacement"
            } else {
                ""
            }
        );
    }

    // The configuration as Terraform sends it: `id` and `ipv4_address` null (computed),
    // `name = other.thing.id` unknown, the disks from a `dynamic` block over a collection
    // that is not known yet, so the whole block list is unknown.
    let ty = Server::tf_type();
    let config = Value::Object(
        [
            ("name".to_owned(), Value::Unknown(Refinements::new())),
            ("id".to_owned(), Value::Null),
            ("ipv4_address".to_owned(), Value::Null),
            ("tags".to_owned(), Value::Null),
            ("root_password".to_owned(), Value::from("s3cret")),
            ("disk".to_owned(), Value::Unknown(Refinements::new())),
        ]
        .into(),
    );
    let from_core = DynamicValue::encode_value(&config, &ty)?;
    let config: Server = from_core.decode()?;
    println!(
        "config: name unknown: {}, id null: {}",
        config.name.is_unknown(),
        config.id.is_null()
    );

    // PlanResourceChange on create: no prior state; the proposal is the configuration.
    // The computed attributes become unknown, refined as the provider knows they will be.
    let planner = Server::planner()
        .refine("id", Refinements::new().not_null())?
        .refine(
            "ipv4_address",
            Refinements::new().not_null().with_prefix("10.0."),
        )?;
    let plan = planner.plan_model(None, Some(&config), Some(&config))?;
    let Some(planned) = plan.planned else {
        return Err("a create is never planned as a destroy".into());
    };
    println!("planned id: {:?}", planned.id);

    // Apply: by now Terraform knows every reference.
    let known = Server {
        name: Unknown::Known("web-1".into()),
        disk: Unknown::Known(vec![Disk {
            size_gb: Unknown::Known(40),
            kind: Unknown::Known(Some(DiskKind::Ssd)),
        }]),
        ..planned
    };
    let applied = Server {
        id: "srv-8f2a".to_owned().into(),
        ipv4_address: "192.168.1.7".to_owned().into(),
        ..known.clone()
    };
    // Terraform checks the final state against the plan; so can the provider's own tests.
    let problems = Server::check_apply(&known, &applied);
    println!("plan/apply check: {} problem(s)", problems.len());
    for p in problems.iter() {
        println!("  {p}");
    }
    let fixed = Server {
        ipv4_address: "10.0.3.7".to_owned().into(),
        ..applied
    };
    println!(
        "after the fix: {} problem(s)",
        Server::check_apply(&known, &fixed).len()
    );

    // An update that renames the server: `name` forces replacement.
    let proposed = Server {
        name: "web-2".to_owned().into(),
        ..fixed.clone()
    };
    let plan = planner.plan_model(Some(&fixed), Some(&proposed), Some(&proposed))?;
    for path in &plan.requires_replace {
        println!("replacement forced by {path}");
    }

    // Validation of what the provider would store, with the validators' diagnostics.
    let bad = Server {
        name: "Web_1".to_owned().into(),
        ..fixed
    };
    let value = Value::from_msgpack(&tfvalue::msgpack::to_vec(&bad)?, &ty)?;
    for d in Server::block().validate_state(&value).iter() {
        println!("{d}"); // the summary, the detail and the path
    }
    Ok(())
}
