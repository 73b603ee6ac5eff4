//! The requests both providers get, and the canonical form their answers are compared in.

use tfvalue::DynamicValue;

use crate::peer_side::PeerInProcess;
use crate::tfvalue_side;

/// The workloads of `plugin/benches/requests.rs`: name, tags, rules.
pub const WORKLOADS: [(&str, usize, usize); 2] = [("2KB", 30, 3), ("200KB", 4000, 500)];

/// msgpack nil.
pub const NULL: [u8; 1] = [0xc0];

/// One workload's requests (a create: prior state null), the same bytes for both.
#[derive(Clone, Debug)]
pub struct Requests {
    /// The workload's name.
    pub name: &'static str,
    /// PlanResourceChange: prior state (null), proposed new state, configuration.
    pub plan: [Vec<u8>; 3],
    /// ApplyResourceChange: prior state (null), planned state (tfvalue-plugin's plan, as
    /// `requests.rs` builds it; tf-provider's plan is checked to be the same value),
    /// configuration.
    pub apply: [Vec<u8>; 3],
    /// PlanResourceChange of the applied object with its configuration unchanged (a
    /// no-change plan, what every `terraform plan` of existing infrastructure sends):
    /// prior state and proposed new state the applied state, configuration.
    pub noop_plan: [Vec<u8>; 3],
    /// PlanResourceChange of the applied object with one tag's value changed in its
    /// configuration (an update): prior state the applied state, proposed new state the
    /// applied state with that tag changed, configuration.
    pub update_plan: [Vec<u8>; 3],
    /// The private data of tfvalue-plugin's plan (its apply gets it back).
    pub tfvalue_private: Vec<u8>,
    /// The private data of tf-provider's plan (its apply gets it back).
    pub peer_private: Vec<u8>,
}

/// The three values of a request as `DynamicValue`s.
pub fn dynamic(values: &[Vec<u8>; 3]) -> [DynamicValue; 3] {
    into_dynamic(values.clone())
}

/// The three values of a request as `DynamicValue`s, without a copy (as the peer takes
/// its bytes).
pub fn into_dynamic(values: [Vec<u8>; 3]) -> [DynamicValue; 3] {
    values.map(DynamicValue::from_msgpack)
}

impl Requests {
    /// Builds a workload's requests, planning through both providers in process, and checks
    /// that both plans and both applies give the same values.
    ///
    /// # Panics
    ///
    /// When a provider fails or the two disagree.
    pub fn new(
        rt: &tokio::runtime::Runtime,
        name: &'static str,
        tags: usize,
        rules: usize,
    ) -> Self {
        let config = tfvalue_side::configuration(tags, rules).msgpack;
        let plan = [NULL.to_vec(), config.clone(), config.clone()];
        let server = tfvalue_side::in_process();
        let peer = PeerInProcess::new();
        let ty = tfvalue_side::schema_type();

        let planned = rt.block_on(server.plan(crate::TYPE_NAME, dynamic(&plan), Vec::new()));
        assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
        let (peer_planned, peer_private) = rt
            .block_on(peer.plan(crate::TYPE_NAME, plan.clone(), Vec::new(), NULL.to_vec()))
            .expect("tf-provider's plan");
        assert_same("plan", &planned.planned_state.msgpack, &peer_planned, &ty);

        let apply = [NULL.to_vec(), planned.planned_state.msgpack.clone(), config];
        let tfvalue_private = planned.planned_private;
        let applied =
            rt.block_on(server.apply(crate::TYPE_NAME, dynamic(&apply), tfvalue_private.clone()));
        assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
        let (peer_applied, _) = rt
            .block_on(peer.apply(
                crate::TYPE_NAME,
                apply.clone(),
                peer_private.clone(),
                NULL.to_vec(),
            ))
            .expect("tf-provider's apply");
        assert_same("apply", &applied.new_state.msgpack, &peer_applied, &ty);
        // The handler's own answer (without the server) is the server's answer.
        let handler = tfvalue_side::handler_apply(dynamic(&apply)).expect("handler");
        assert_eq!(handler.new_state.msgpack, applied.new_state.msgpack);

        let state = applied.new_state.msgpack.clone();
        let noop_plan = [state.clone(), state.clone(), apply[2].clone()];

        let update_plan = [
            state.clone(),
            with_tag_changed(&state, &ty),
            with_tag_changed(&apply[2], &ty),
        ];
        let updated = rt.block_on(server.plan(crate::TYPE_NAME, dynamic(&update_plan), Vec::new()));
        assert!(updated.diagnostics.is_empty(), "{:?}", updated.diagnostics);
        let (peer_updated, _) = rt
            .block_on(peer.plan(
                crate::TYPE_NAME,
                update_plan.clone(),
                Vec::new(),
                NULL.to_vec(),
            ))
            .expect("tf-provider's update plan");
        assert_same(
            "update plan",
            &updated.planned_state.msgpack,
            &peer_updated,
            &ty,
        );
        assert_ne!(updated.planned_state.msgpack, update_plan[0], "a change");
        Requests {
            name,
            plan,
            apply,
            noop_plan,
            update_plan,
            tfvalue_private,
            peer_private,
        }
    }
}

/// `bytes` (a value of the resource's type `ty`) with the value of its first tag changed.
fn with_tag_changed(bytes: &[u8], ty: &tfvalue::Type) -> Vec<u8> {
    let mut v = tfvalue::Value::from_msgpack(bytes, ty).expect("a value of the resource");
    v["tags"]["tag-00000"] = tfvalue::Value::from("a changed value");
    v.to_msgpack(ty).expect("encodes")
}

/// Checks that two answers are the same value: the same msgpack after [`canonical`], and
/// both of the resource's type (tfvalue decodes both against the schema).
///
/// # Panics
///
/// When they differ.
pub fn assert_same(what: &str, tfvalue: &[u8], peer: &[u8], ty: &tfvalue::Type) {
    for (who, bytes) in [("tfvalue-plugin", tfvalue), ("tf-provider", peer)] {
        if let Err(e) = tfvalue::Value::from_msgpack(bytes, ty) {
            panic!("{what}: {who}'s answer is not of the resource's type: {e}");
        }
    }
    let (a, b) = (canonical(tfvalue), canonical(peer));
    assert!(
        a == b,
        "{what}: the answers differ\ntfvalue-plugin: {a}\ntf-provider:    {b}"
    );
}

/// An answer in a form two encoders agree on when they encode the same value: map
/// entries sorted by key (object attributes come in any order; go-cty reads them by
/// name), integers and floats as they are (both encoders pick the shortest integer form),
/// and every unknown as `ext 0` with no payload (go-cty reads any `ext 0` as a wholly
/// unknown value; the payload is not part of the value).
///
/// # Panics
///
/// When `bytes` is not msgpack.
pub fn canonical(bytes: &[u8]) -> rmpv::Value {
    fn walk(v: rmpv::Value) -> rmpv::Value {
        match v {
            rmpv::Value::Map(entries) => {
                let mut entries: Vec<_> = entries
                    .into_iter()
                    .map(|(k, v)| (walk(k), walk(v)))
                    .collect();
                entries.sort_by_key(|a| a.0.to_string());
                rmpv::Value::Map(entries)
            }
            rmpv::Value::Array(items) => rmpv::Value::Array(items.into_iter().map(walk).collect()),
            rmpv::Value::Ext(0, _) => rmpv::Value::Ext(0, Vec::new()),
            other => other,
        }
    }
    walk(rmpv::decode::read_value(&mut &bytes[..]).expect("msgpack"))
}
