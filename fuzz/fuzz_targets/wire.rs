//! The decoder and encoder `#[derive(TfValue)]` writes for a model (`msgpack::wire`)
//! against serde's derived `Deserialize` and `Serialize` over the same MessagePack decoder
//! and encoder: on any bytes, with any nesting limit and either rule for undeclared
//! attributes, the same value or the same error (message, path, offset); whatever decodes
//! encodes to the same bytes both ways.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use tfvalue::msgpack::Deserializer;
use tfvalue::{Dynamic, Number, TfModel, TfValue, Unknown};

#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Tier {
    Standard,
    HighIo,
}

#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
struct Rule {
    name: Unknown<String>,
    #[tfvalue(optional)]
    port: Unknown<Option<u16>>,
    #[tfvalue(optional)]
    cidrs: Option<Vec<Unknown<String>>>,
}

#[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
struct Model {
    key: String,
    #[tfvalue(optional)]
    value: Unknown<Option<String>>,
    #[tfvalue(optional)]
    on: Unknown<Option<bool>>,
    #[tfvalue(optional)]
    count: Option<u64>,
    #[tfvalue(optional)]
    delta: Unknown<Option<i32>>,
    #[tfvalue(optional)]
    ratio: Option<f64>,
    #[tfvalue(optional)]
    size: Unknown<Option<Number>>,
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, Unknown<String>>>>,
    #[tfvalue(block)]
    rule: Unknown<Vec<Rule>>,
    #[tfvalue(optional)]
    meta: Dynamic,
    #[tfvalue(optional)]
    tier: Unknown<Option<Tier>>,
}

#[derive(Debug, PartialEq)]
enum Outcome<T> {
    Ok(T),
    Err(String, String, Option<u64>),
}

fn outcome<T>(r: tfvalue::Result<T>) -> Outcome<T> {
    match r {
        Ok(v) => Outcome::Ok(v),
        Err(e) => Outcome::Err(e.message().to_owned(), e.path().to_string(), e.offset()),
    }
}

fn decode<M: TfModel + for<'de> Deserialize<'de>>(
    bytes: &[u8],
    depth: usize,
    ignore: bool,
    wire: bool,
) -> Outcome<M> {
    let mut de = Deserializer::from_slice(bytes)
        .max_depth(depth)
        .ignore_undeclared_attributes(ignore);
    let v = if wire {
        M::__wire_decode(&mut de)
    } else {
        M::deserialize(&mut de)
    };
    outcome(v.and_then(|v| de.end().map(|()| v)))
}

fn check<M: TfModel + Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(
    bytes: &[u8],
    depth: usize,
    ignore: bool,
) {
    let wire = decode::<M>(bytes, depth, ignore, true);
    let serde = decode::<M>(bytes, depth, ignore, false);
    assert_eq!(wire, serde);
    if let Outcome::Ok(m) = wire {
        assert_eq!(
            outcome(tfvalue::__private::model_to_msgpack(&m)),
            outcome(tfvalue::msgpack::to_vec(&m))
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, bytes)) = data.split_first() else {
        return;
    };
    let depth = [2, 3, 8, 128][usize::from(flags & 3)];
    let ignore = flags & 4 != 0;
    check::<Model>(bytes, depth, ignore);
    check::<Rule>(bytes, depth, ignore);
});
