//! The versioning codec: stored states of every version, upgraded to the current model.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use tfvalue::codec::{Codec, RawState};
use tfvalue::flatmap::UNKNOWN_MARKER;
use tfvalue::{TfModel, TfValue};

/// Version 0: the flatmap era. `size` was a free-form string, `tags` a map.
#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct ServerV0 {
    name: String,
    size: String,
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, String>>,
}

/// Version 1: `size` became `cpus`, ports were added.
#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[tfvalue(version = 1)]
struct ServerV1 {
    name: String,
    cpus: u32,
    #[tfvalue(optional)]
    ports: Option<Vec<u16>>,
    #[tfvalue(optional)]
    tags: Option<BTreeMap<String, String>>,
}

/// Version 2: tags became labels, memory was added.
#[derive(TfValue, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[tfvalue(version = 2)]
struct Server {
    name: String,
    cpus: u32,
    #[tfvalue(optional)]
    memory_gb: Option<u32>,
    #[tfvalue(optional)]
    ports: Option<Vec<u16>>,
    #[tfvalue(optional)]
    labels: Option<BTreeMap<String, String>>,
}

fn v0_to_v1(old: ServerV0) -> Result<ServerV1, String> {
    let cpus = match old.size.as_str() {
        "small" => 1,
        "medium" => 2,
        "large" => 4,
        other => return Err(format!("unknown size {other:?}")),
    };
    Ok(ServerV1 {
        name: old.name,
        cpus,
        ports: None,
        tags: old.tags,
    })
}

fn v1_to_v2(old: ServerV1) -> Result<Server, String> {
    Ok(Server {
        name: old.name,
        cpus: old.cpus,
        memory_gb: None,
        ports: old.ports,
        labels: old.tags,
    })
}

fn chained() -> Codec<Server> {
    Codec::new()
        .try_step_from(v0_to_v1)
        .try_upgrade_from(v1_to_v2)
}

fn flatmap(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn flatmap_v0_state_upgrades_through_v1() {
    let raw = RawState::from_flatmap(flatmap(&[
        ("id", "srv-1"), // an attribute no model declares any more: flatmap ignores it
        ("name", "web"),
        ("size", "large"),
        ("tags.%", "2"),
        ("tags.env", "prod"),
        ("tags.team.name", "infra"),
    ]));
    let got = chained().decode(0, &raw).unwrap();
    assert_eq!(
        got,
        Server {
            name: "web".into(),
            cpus: 4,
            memory_gb: None,
            ports: None,
            labels: Some(BTreeMap::from([
                ("env".into(), "prod".into()),
                ("team.name".into(), "infra".into())
            ])),
        }
    );
    // UpgradeResourceState's answer is MessagePack of the current version
    let dv = chained().upgrade(0, &raw).unwrap();
    assert!(dv.json.is_empty());
    assert_eq!(dv.decode::<Server>().unwrap(), got);
}

#[test]
fn json_states_of_each_version_and_the_current_one() {
    let codec = chained();
    let v1 = RawState::from_json(br#"{"name":"db","cpus":8,"ports":[5432],"tags":null}"#.to_vec());
    assert_eq!(codec.decode(1, &v1).unwrap().ports, Some(vec![5432]));
    let v2 = RawState::from_json(
        br#"{"name":"db","cpus":8,"memory_gb":32,"ports":null,"labels":{"a":"b"}}"#.to_vec(),
    );
    let got = codec.decode(2, &v2).unwrap();
    assert_eq!(got.memory_gb, Some(32));
    // JSON state leaves out null attributes
    let sparse = RawState::from_json(br#"{"name":"db","cpus":1}"#.to_vec());
    assert_eq!(codec.decode(2, &sparse).unwrap().labels, None);
}

#[test]
fn direct_and_stepwise_conversions_agree_and_mix() {
    let direct = Codec::<Server>::new()
        .try_upgrade_from(|old: ServerV0| v0_to_v1(old).and_then(v1_to_v2))
        .try_upgrade_from(v1_to_v2);
    let raw = RawState::from_json(br#"{"name":"x","size":"small","tags":{"k":"v"}}"#.to_vec());
    assert_eq!(
        direct.decode(0, &raw).unwrap(),
        chained().decode(0, &raw).unwrap()
    );
    assert_eq!(direct.current_version(), 2);
}

#[test]
fn defaulting_runs_after_conversion() {
    let codec = chained().default_with(|s: &mut Server| {
        s.memory_gb.get_or_insert(s.cpus * 2);
    });
    let raw = RawState::from_json(br#"{"name":"x","size":"medium"}"#.to_vec());
    assert_eq!(codec.decode(0, &raw).unwrap().memory_gb, Some(4));
    let raw = RawState::from_json(br#"{"name":"x","cpus":3,"memory_gb":1}"#.to_vec());
    assert_eq!(codec.decode(2, &raw).unwrap().memory_gb, Some(1));
}

#[test]
fn undeclared_attributes_are_ignored_unless_asked() {
    let raw = RawState::from_json(br#"{"name":"x","size":"small","id":"legacy"}"#.to_vec());
    assert_eq!(chained().decode(0, &raw).unwrap().cpus, 1);
    let err = chained()
        .ignore_undeclared_attributes(false)
        .decode(0, &raw)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("decoding state of schema version 0"),
        "{err}"
    );
    assert!(err.to_string().contains("id"), "{err}");
}

#[test]
fn errors_say_which_version_and_which_attribute() {
    let codec = chained();
    // a count that is not a number, in flatmap state
    let raw = RawState::from_flatmap(flatmap(&[
        ("name", "x"),
        ("size", "small"),
        ("tags.%", "two"),
    ]));
    let err = codec.decode(0, &raw).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("decoding state of schema version 0: invalid count"),
        "{err}"
    );
    assert_eq!(err.path().to_string(), "tags");
    // a value of the wrong type in JSON state
    let raw = RawState::from_json(br#"{"name":"x","cpus":"many"}"#.to_vec());
    let err = codec.decode(1, &raw).unwrap_err();
    assert!(err.to_string().contains("schema version 1"), "{err}");
    assert_eq!(err.path().to_string(), "cpus");
    // a failed conversion
    let raw = RawState::from_json(br#"{"name":"x","size":"huge"}"#.to_vec());
    let err = codec.decode(0, &raw).unwrap_err();
    assert_eq!(
        err.to_string(),
        "upgrading from schema version 0 to 1: unknown size \"huge\""
    );
    // versions nobody registered
    let err = codec.decode(7, &raw).unwrap_err();
    assert!(
        err.to_string()
            .contains("newer than this provider's version 2"),
        "{err}"
    );
    let err = Codec::<Server>::new().decode(0, &raw).unwrap_err();
    assert!(
        err.to_string()
            .contains("no model is registered for schema version 0 (known: 2)"),
        "{err}"
    );
    // an empty state
    let err = codec.decode(1, &RawState::default()).unwrap_err();
    assert!(err.to_string().contains("empty"), "{err}");
    // the unknown marker cannot stand in stored state for a required attribute's model
    let raw = RawState::from_flatmap(flatmap(&[("name", UNKNOWN_MARKER), ("size", "small")]));
    assert!(codec.decode(0, &raw).is_err());
}

#[test]
fn a_codec_built_wrongly_says_so() {
    // a step to a version that has no model
    let codec = Codec::<Server>::new().try_step_from(v0_to_v1);
    let raw = RawState::from_json(br#"{"name":"x","size":"small"}"#.to_vec());
    let err = codec.decode(0, &raw).unwrap_err();
    assert!(err.to_string().contains("codec misconfigured"), "{err}");
    // registering the current version as an old one
    let codec = Codec::<ServerV1>::new().upgrade_from(|s: ServerV1| s);
    let err = codec.decode(1, &raw).unwrap_err();
    assert!(
        err.to_string()
            .contains("not older than the current version"),
        "{err}"
    );
    assert!(format!("{:?}", chained()).contains("v0"));
}

#[test]
fn the_models_schemas_are_versioned() {
    assert_eq!(ServerV0::schema().version, 0);
    assert_eq!(ServerV1::SCHEMA_VERSION, 1);
    assert_eq!(Server::schema().version, 2);
}

fn arb_v1() -> impl Strategy<Value = ServerV1> {
    (
        "[a-z0-9-]{1,12}",
        any::<u32>(),
        proptest::option::of(proptest::collection::vec(any::<u16>(), 0..4)),
        proptest::option::of(proptest::collection::btree_map(
            "[a-z.]{0,6}",
            "[ -~é]{0,8}",
            0..4,
        )),
    )
        .prop_map(|(name, cpus, ports, tags)| ServerV1 {
            name,
            cpus,
            ports,
            tags,
        })
}

proptest! {
    /// Any v1 value written as v1 JSON upgrades to the v2 value that converting it in
    /// memory gives.
    #[test]
    fn v1_json_upgrades_like_the_in_memory_conversion(v1 in arb_v1()) {
        let json = tfvalue::json::to_vec(&v1).unwrap();
        let raw = RawState::from_json(json);
        let upgraded = chained().decode(1, &raw).unwrap();
        prop_assert_eq!(upgraded, v1_to_v2(v1.clone()).unwrap());
        // and through the bytes UpgradeResourceState returns
        let dv = chained().upgrade(1, &raw).unwrap();
        prop_assert_eq!(dv.decode::<Server>().unwrap(), v1_to_v2(v1).unwrap());
    }
}
