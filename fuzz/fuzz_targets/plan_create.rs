//! `DynamicValue::plan_create` (a create planned over the MessagePack bytes) against
//! `Planner::plan_create` on the decoded value, on arbitrary input: no panic, and where
//! the input is a value of the block's type, the bytes' plan decodes to the value's plan.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tfvalue::schema::{Attribute, Block, NestedBlock, NestedType, Planner};
use tfvalue::{DynamicValue, Refinements, Type, Value};

/// Computed attributes at every nesting (single, list, set and map nested attributes,
/// list and set blocks), refined or with a default, of a primitive, a collection and
/// `dynamic` type.
fn planner() -> &'static Planner {
    static P: OnceLock<Planner> = OnceLock::new();
    P.get_or_init(|| {
        let inner = || {
            Block::new()
                .attribute("name", Attribute::optional(Type::String))
                .attribute(
                    "id",
                    Attribute::computed(Type::String)
                        .refine(Refinements::new().not_null().with_prefix("i-")),
                )
                .attribute("n", Attribute::optional_computed(Type::Number))
                .attribute(
                    "kind",
                    Attribute::optional_computed(Type::String).default_value("ssd"),
                )
        };
        let nested = |t: NestedType| {
            t.attribute("v", Attribute::optional(Type::String))
                .attribute("id", Attribute::computed(Type::String))
        };
        Planner::new(
            inner()
                .attribute("any", Attribute::optional_computed(Type::Dynamic))
                .attribute("tags", Attribute::optional_computed(Type::map(Type::String)))
                .attribute("one", Attribute::nested(nested(NestedType::single())).set_optional())
                .attribute("list", Attribute::nested(nested(NestedType::list())).set_optional())
                .attribute("set", Attribute::nested(nested(NestedType::set())).set_optional())
                .attribute("map", Attribute::nested(nested(NestedType::map())).set_optional())
                .block("rule", NestedBlock::list(inner().block("port", NestedBlock::set(inner()))))
                .block("disk", NestedBlock::set(inner())),
        )
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
