//! `DynamicValue::plan_update` (an update planned over the MessagePack bytes) against
//! `Planner::plan_owned` on the decoded values, on arbitrary input (the prior state, the
//! proposal and the configuration, each but the last behind a two-byte length): no panic, and where
//! all three are values of the block's type, the bytes' plan decodes to the values'
//! plan, with the same attributes requiring replacement.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tfvalue::schema::{Attribute, Block, Planner};
use tfvalue::{DynamicValue, Type, Value};
use tfvalue_fuzz::planner_block;

/// `tfvalue_fuzz::planner_block`, `kind` kept from the prior state, with attributes of
/// the root that require replacement, a set and a default.
fn planner() -> &'static Planner {
    static P: OnceLock<Planner> = OnceLock::new();
    P.get_or_init(|| {
        let kind = Attribute::optional_computed(Type::String).use_state_for_unknown();
        let root = Block::new()
            .attribute("zone", Attribute::optional(Type::String).requires_replace())
            .attribute(
                "size",
                Attribute::optional_computed(Type::Number).requires_replace(),
            )
            .attribute("ports", Attribute::optional(Type::set(Type::Number)))
            .attribute(
                "mode",
                Attribute::optional_computed(Type::String).default_value("m"),
            );
        Planner::new(planner_block(kind, root))
    })
}

/// The next part of `input`: its length (two bytes, big-endian), then its bytes.
fn part<'a>(input: &mut &'a [u8]) -> Option<&'a [u8]> {
    let (len, rest) = input.split_at_checked(2)?;
    let n = usize::from(u16::from_be_bytes([len[0], len[1]])).min(rest.len());
    let (part, rest) = rest.split_at(n);
    *input = rest;
    Some(part)
}

fuzz_target!(|input: &[u8]| {
    let planner = planner();
    let ty = planner.block().implied_type();
    let mut input = input;
    let (Some(prior), Some(proposed)) = (part(&mut input), part(&mut input)) else {
        return;
    };
    let config = input;
    let dv = |b: &[u8]| DynamicValue::from_msgpack(b.to_vec());
    let Some(plan) = dv(proposed).plan_update(&dv(prior), &dv(config), planner) else {
        return;
    };
    let values = (
        Value::from_msgpack(prior, &ty),
        Value::from_msgpack(proposed, &ty),
        Value::from_msgpack(config, &ty),
    );
    if let (Ok(prior), Ok(proposed), Ok(config)) = values {
        let by_value = planner.plan_owned(&prior, proposed, &config);
        let from_bytes = Value::from_msgpack(&plan.planned.msgpack, &ty)
            .unwrap_or_else(|e| panic!("the bytes' plan does not decode: {e}"));
        assert_eq!(from_bytes, by_value.planned);
        assert_eq!(plan.requires_replace, by_value.requires_replace);
    }
});
