//! `Value` decoding against an arbitrary type: the first bytes describe the type (through
//! `arbitrary`), the rest is the MessagePack input.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use tfvalue::Value;
use tfvalue_fuzz::TypeDesc;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(desc) = TypeDesc::arbitrary(&mut u) else {
        return;
    };
    let ty = desc.to_type();
    let input = u.take_rest();
    let Ok(v) = Value::from_msgpack(input, &ty) else {
        return;
    };
    if let Err(e) = v.conforms_to(&ty) {
        panic!("a decoded value must conform to its type {ty}: {e}\n{v:?}");
    }
    // Encoding may refuse only map keys that collide after NFC.
    if let Err(e) = v.to_msgpack(&ty) {
        assert!(
            e.to_string().contains("normalization"),
            "a decoded value must encode: {e}\n{ty}\n{v:?}"
        );
    }
});
