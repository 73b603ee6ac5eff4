//! `msgpack::without_refinements` against an arbitrary type and input: it accepts what
//! `Value::from_msgpack` accepts, and writes what the decoded value, made plain (every
//! unknown without refinements), encodes to.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use tfvalue::{Refinements, Value};
use tfvalue_fuzz::TypeDesc;

fn plain(v: &mut Value) {
    match v {
        Value::Unknown(r) => *r = Refinements::new(),
        Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => xs.iter_mut().for_each(plain),
        Value::Map(m) | Value::Object(m) => m.values_mut().for_each(plain),
        Value::Dynamic(_) => plain(v.unwrap_dynamic_mut()),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(desc) = TypeDesc::arbitrary(&mut u) else {
        return;
    };
    let ty = desc.to_type();
    let input = u.take_rest();
    let streamed = tfvalue::msgpack::without_refinements(input, &ty);
    let Ok(mut v) = Value::from_msgpack(input, &ty) else {
        assert!(streamed.is_err(), "accepted what the value refuses: {ty}");
        return;
    };
    plain(&mut v);
    match (v.to_msgpack(&ty), streamed) {
        (Ok(want), Ok(got)) => assert_eq!(got, want, "{ty}\n{v:?}"),
        // Encoding may refuse only map keys that collide after NFC; so may the stream.
        (Err(e), Err(_)) => assert!(e.to_string().contains("normalization"), "{e}"),
        (want, got) => panic!("{ty}\n{v:?}\nvalue: {want:?}\nstream: {got:?}"),
    }
});
