//! Decodes a planned value from its MessagePack bytes with only a type known at run time,
//! and lists what is not known yet and what is known about it.
//!
//! Run with `cargo run --example inspect_plan`.

use tfvalue::{Refinements, Type, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The type of the resource, as a provider schema implies it (Terraform's type syntax;
    // the type JSON of a schema file reads the same with `Type::from_json`).
    let ty: Type = "object({
        arn = string, id = string, name = string, port = number,
        tags = map(string), subnets = set(string)
    })"
    .parse()?;
    // What Terraform sends in PlanResourceChange's proposed new state, as a provider would
    // receive it: some attributes known, some unknown with refinements.
    let planned = Value::from_iter([
        (
            "arn",
            Value::Unknown(
                Refinements::new()
                    .not_null()
                    .with_prefix("arn:aws:elasticloadbalancing:"),
            ),
        ),
        ("id", Value::Unknown(Refinements::new())),
        ("name", Value::from("web")),
        (
            "port",
            Value::Unknown(
                Refinements::new()
                    .with_lower_bound(1, true)
                    .with_upper_bound(65535, true),
            ),
        ),
        ("tags", Value::Map([("env", Value::from("prod"))].into())),
        (
            "subnets",
            Value::Unknown(Refinements::new().not_null().with_min_length(2)),
        ),
    ]);
    let bytes = planned.to_msgpack(&ty)?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    println!("{} bytes on the wire: {hex}", bytes.len());

    let value = Value::from_msgpack(&bytes, &ty)?;
    println!("known:");
    value.walk(&mut |path, v| {
        if !path.is_empty() && v.is_wholly_known() && !matches!(v, Value::Map(_) | Value::Object(_))
        {
            println!("  {path} = {v}");
        }
    });
    println!("known after apply:");
    value.walk(&mut |path, v| {
        if let Some(r) = v.as_unknown() {
            if r.is_empty() {
                println!("  {path}");
            } else {
                println!("  {path} ({r})");
            }
        }
    });
    Ok(())
}
