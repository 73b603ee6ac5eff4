//! Typed MessagePack decoding of a realistic provider model: unknowns, nulls, `dynamic`,
//! maps, nested block lists, borrowed strings, exact numbers. Whatever decodes must encode,
//! and what that writes must decode again.
#![no_main]

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use tfvalue::{Dynamic, Number, Unknown};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Protocol {
    Tcp,
    Udp,
    All,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Rule<'a> {
    #[serde(borrow)]
    cidr_blocks: Option<Vec<Cow<'a, str>>>,
    description: Unknown<Option<String>>,
    from_port: Option<u16>,
    protocol: Option<Protocol>,
    to_port: Unknown<Option<i32>>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Timeouts {
    create: Option<String>,
    delete: Option<String>,
}

/// Declared out of Terraform's order, with a field left out when empty: the encoder's
/// kept struct orders, for each set of fields written.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Placement {
    zone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    group: Option<String>,
    affinity: Unknown<Option<bool>>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Resource<'a> {
    arn: Unknown<Option<String>>,
    #[serde(borrow)]
    availability_zones: Unknown<Option<BTreeSet<Cow<'a, str>>>>,
    cost: Unknown<Option<Number>>,
    count: Option<i64>,
    enabled: Option<bool>,
    extra: Option<Dynamic>,
    id: Unknown<Option<String>>,
    ingress: Option<Vec<Rule<'a>>>,
    labels: Unknown<Option<HashMap<String, Unknown<Option<String>>>>>,
    matrix: Option<Vec<Vec<Option<u64>>>>,
    name: &'a str,
    placement: Option<Vec<Placement>>,
    ratio: Unknown<Option<f64>>,
    tags: Option<BTreeMap<String, String>>,
    timeouts: Option<Timeouts>,
    weights: Option<Vec<f32>>,
}

fuzz_target!(|data: &[u8]| {
    // Any input: an error or a value, never a panic.
    let _ = tfvalue::msgpack::from_slice::<serde::de::IgnoredAny>(data);
    let _ = tfvalue::msgpack::from_slice::<Vec<Unknown<Option<Number>>>>(data);
    let Ok(r) = tfvalue::msgpack::from_slice::<Resource>(data) else {
        return;
    };
    let bytes = tfvalue::msgpack::to_vec(&r)
        .unwrap_or_else(|e| panic!("a decoded value must encode: {e}\n{r:?}"));
    let back = tfvalue::msgpack::from_slice::<Resource>(&bytes)
        .unwrap_or_else(|e| panic!("what we write must decode: {e}\n{r:?}"));
    let again = tfvalue::msgpack::to_vec(&back).expect("second encoding");
    assert_eq!(bytes, again, "the encoding is not stable");
});
