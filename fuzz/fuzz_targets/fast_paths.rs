//! The fast paths against the general ones, on arbitrary input: `Value::from_msgpack`
//! against the serde decode, `Value::to_msgpack` and `Value::to_json` against the
//! conformance check plus serde, and `RawState::transcode` (the streaming JSON state to
//! MessagePack) against `decode_value` plus `encode_value`. Each pair must give the same
//! bytes or the same error. The first bytes describe the type (through `arbitrary`); the
//! rest is the input, read as MessagePack and as JSON.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use tfvalue::codec::RawState;
use tfvalue::{DynamicValue, Value};
use tfvalue_fuzz::TypeDesc;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(desc) = TypeDesc::arbitrary(&mut u) else {
        return;
    };
    let Ok(ignore_undeclared) = bool::arbitrary(&mut u) else {
        return;
    };
    let ty = desc.to_type();
    let input = u.take_rest();

    let text = |r: tfvalue::Result<Vec<u8>>| r.map_err(|e| e.to_string());
    let fast = Value::from_msgpack(input, &ty).map_err(|e| e.to_string());
    let general = tfvalue::msgpack::from_msgpack_general(input, &ty).map_err(|e| e.to_string());
    assert_eq!(
        fast, general,
        "from_msgpack: fast and general paths differ\n{ty}"
    );
    // The check without building the value says what the decode says.
    let checked = tfvalue::msgpack::validate(input, &ty);
    match (&checked, &fast) {
        (Ok(c), Ok(v)) => {
            let refined = {
                let mut r = false;
                v.walk(&mut |_, v| r |= v.as_unknown().is_some_and(|u| !u.is_empty()));
                r
            };
            assert_eq!(
                (c.is_wholly_known(), c.has_refinements()),
                (v.is_wholly_known(), refined),
                "validate: what it learned differs from the value\n{ty}"
            );
        }
        (Err(e), Err(d)) => assert_eq!(&e.to_string(), d, "validate: another error\n{ty}"),
        (c, v) => panic!("validate and decode disagree\n{ty}\n{c:?}\n{v:?}"),
    }
    // The structure check accepts all that validate accepts, and refuses nothing else
    // but strings that are not UTF-8.
    match (tfvalue::msgpack::validate_structure(input, &ty), &checked) {
        (Ok(s), Ok(c)) => assert_eq!(s, *c, "validate_structure learned otherwise\n{ty}"),
        (Ok(_), Err(e)) => assert!(
            e.to_string().contains("UTF-8"),
            "validate_structure let through: {e}\n{ty}"
        ),
        (Err(e), Ok(_)) => panic!("validate_structure refused a valid value: {e}\n{ty}"),
        (Err(_), Err(_)) => {}
    }
    // A wholly known value keeps itself as a plan.
    if let Ok(v) = &fast {
        if v.is_wholly_known() && !ty.has_dynamic() {
            if let Ok(b) = v.to_msgpack(&ty) {
                assert!(
                    tfvalue::msgpack::keeps_plan(&b, &b, &ty, |_, _| true),
                    "keeps_plan refused a value as its own plan\n{ty}\n{v:?}"
                );
            }
        }
    }
    if let Ok(v) = &fast {
        assert_eq!(
            text(v.to_msgpack(&ty)),
            text(tfvalue::msgpack::to_msgpack_general(v, &ty)),
            "to_msgpack: fast and general paths differ\n{ty}\n{v:?}"
        );
        assert_eq!(
            text(v.to_json(&ty)),
            text(tfvalue::json::general_to_json(v, &ty)),
            "to_json: fast and general paths differ\n{ty}\n{v:?}"
        );
    }

    let raw = RawState::from_json(input.to_vec());
    let streamed = raw
        .transcode(&ty, ignore_undeclared)
        .map(|dv| dv.msgpack)
        .map_err(|e| e.to_string());
    let through_value = raw
        .decode_value(&ty, ignore_undeclared)
        .and_then(|v| DynamicValue::encode_value(&v, &ty))
        .map(|dv| dv.msgpack)
        .map_err(|e| e.to_string());
    assert_eq!(
        streamed, through_value,
        "transcode differs from the Value path\n{ty}"
    );
});
