//! Decodes a planned value from its MessagePack bytes with only a type known at run time,
//! and lists what is not known yet and what is known about it.
//!
//! Run with `cargo run --example inspect_plan`.

use tfvalue::{Type, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The type of the resource, as a provider schema implies it.
    let ty: Type = serde_json::from_str(
        r#"["object",{
            "arn":"string","id":"string","name":"string",
            "port":"number","tags":["map","string"],
            "subnets":["set","string"]
        }]"#,
    )?;
    // What Terraform sends in PlanResourceChange's proposed new state, as a provider would
    // receive it: some attributes known, some unknown with refinements.
    let planned = tfvalue::tagged::from_tagged(&serde_json::json!({"object": {
        "arn": {"unknown": {"nullness": false, "prefix": "arn:aws:elasticloadbalancing:"}},
        "id": {"unknown": {}},
        "name": {"string": "web"},
        "port": {"unknown": {"lower": ["1", true], "upper": ["65535", true]}},
        "tags": {"map": {"env": {"string": "prod"}}},
        "subnets": {"unknown": {"nullness": false, "len_lower": 2}},
    }}))?;
    let bytes = planned.to_msgpack(&ty)?;
    println!(
        "{} bytes on the wire: {}",
        bytes.len(),
        tfvalue::conformance::hex_encode(&bytes)
    );

    let value = Value::from_msgpack(&bytes, &ty)?;
    println!("known:");
    value.walk(&mut |path, v| {
        if !path.is_empty() && v.is_wholly_known() && !matches!(v, Value::Map(_) | Value::Object(_))
        {
            println!("  {path} = {}", tfvalue::tagged::to_tagged(v));
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
