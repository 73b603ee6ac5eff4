//! `DynamicValue::plan_create` (a create planned over the MessagePack bytes) against
//! `Planner::plan_create` on the decoded value, on arbitrary input: no panic, and where
//! the input is a value of the block's type, the bytes' plan decodes to the value's plan.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tfvalue::schema::{Attribute, Block, Planner};
use tfvalue::{DynamicValue, Type, Value};
use tfvalue_fuzz::planner_block;

/// `tfvalue_fuzz::planner_block`, with a default for `kind`.
fn planner() -> &'static Planner {
    static P: OnceLock<Planner> = OnceLock::new();
    P.get_or_init(|| {
        let kind = Attribute::optional_computed(Type::String).default_value("ssd");
        Planner::new(planner_block(kind, Block::new()))
    })
}

fuzz_target!(|input: &[u8]| {
    let planner = planner();
    let ty = planner.block().implied_type();
    let Some(planned) = DynamicValue::from_msgpack(input.to_vec()).plan_create(planner) else {
        return;
    };
    if let Ok(config) = Value::from_msgpack(input, &ty) {
        let from_bytes = Value::from_msgpack(&planned.msgpack, &ty)
            .unwrap_or_else(|e| panic!("the bytes' plan does not decode: {e}"));
        assert_eq!(from_bytes, planner.plan_create(config).planned);
    }
});
