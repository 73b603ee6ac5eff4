//! decode -> encode -> decode gives the same value (up to what encoding does on purpose:
//! NFC, canonical set order, shortened prefixes), and the second encoding equals the first.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use tfvalue::Value;
use tfvalue_fuzz::{same_after_round_trip, TypeDesc};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(desc) = TypeDesc::arbitrary(&mut u) else {
        return;
    };
    let ty = desc.to_type();
    let input = u.take_rest();
    let Ok(v1) = Value::from_msgpack(input, &ty) else {
        return;
    };
    let b1 = match v1.to_msgpack(&ty) {
        Ok(b) => b,
        // map keys that collide after NFC cannot be written
        Err(e) if e.to_string().contains("normalization") => return,
        Err(e) => panic!("a decoded value must encode: {e}\n{ty}\n{v1:?}"),
    };
    let v2 = Value::from_msgpack(&b1, &ty)
        .unwrap_or_else(|e| panic!("what we write must decode: {e}\n{ty}\n{v1:?}\n{b1:02x?}"));
    assert!(
        same_after_round_trip(&v1, &v2, &ty),
        "decode -> encode -> decode changed the value\n{ty}\n{v1:?}\n{v2:?}"
    );
    let b2 = v2
        .to_msgpack(&ty)
        .unwrap_or_else(|e| panic!("the round-tripped value must encode: {e}\n{v2:?}"));
    assert_eq!(
        b1, b2,
        "the second encoding differs from the first\n{ty}\n{v2:?}"
    );
    assert!(v2 == v2.clone(), "equality is not reflexive: {v2:?}");
});
