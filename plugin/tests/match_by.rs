//! The `ipam` shape under a real Terraform: a network's `subnet` blocks, each with an id
//! the "cloud" assigns, and a subnet inserted in the middle of the list, then the first
//! removed. Terraform proposes a list's computed values by position; without `match_by`
//! this test fails at its second plan, which gives the new subnet its neighbour's id
//! (and the apply returns each subnet's real id). With
//! `#[tfvalue(block, match_by = "cidr")]` the plan keeps each id with its subnet, and no
//! `modify_plan` code is needed.
//!
//! Skipped (printing why) unless `TFVALUE_TERRAFORM` or `TFVALUE_TERRAFORM_LATEST` names
//! a Terraform binary.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use tfvalue::{TfValue, Unknown};
use tfvalue_plugin::framework::*;
use tfvalue_plugin::testing::{known, ProviderBinary, Step, TestCase};

#[derive(TfValue, Serialize, Deserialize, Clone)]
struct Subnet {
    cidr: Unknown<String>,
    /// Assigned by the cloud when the subnet is made; never changes.
    #[tfvalue(computed, use_state_for_unknown)]
    id: Unknown<Option<String>>,
}

#[derive(TfValue, Serialize, Deserialize, Clone)]
struct Network {
    name: Unknown<String>,
    #[tfvalue(block, match_by = "cidr")]
    subnet: Unknown<Vec<Subnet>>,
}

/// The cloud: each network's subnets, by cidr, with the ids it gave them.
static CLOUD: Mutex<BTreeMap<String, BTreeMap<String, String>>> = Mutex::new(BTreeMap::new());
static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

struct Networks;

impl Networks {
    /// Makes the subnets the cloud lacks and forgets those not listed; answers each
    /// subnet with the id the cloud has for it.
    fn apply(network: &mut Network) -> Result<()> {
        let name = network.name.known().cloned().unwrap_or_default();
        let mut cloud = CLOUD.lock().unwrap_or_else(PoisonError::into_inner);
        let had = cloud.remove(&name).unwrap_or_default();
        let mut now = BTreeMap::new();
        let Unknown::Known(subnets) = &mut network.subnet else {
            return Err(Diagnostic::error("the subnets are not known at apply").into());
        };
        for s in subnets {
            let cidr = s.cidr.known().cloned().unwrap_or_default();
            let id = had
                .get(&cidr)
                .cloned()
                .unwrap_or_else(|| format!("subnet-{}", NEXT_ID.fetch_add(1, Ordering::Relaxed)));
            s.id = Some(id.clone()).into();
            now.insert(cidr, id);
        }
        cloud.insert(name, now);
        Ok(())
    }
}

impl Resource for Networks {
    type Model = Network;

    async fn create(&self, _cx: &Ctx, mut n: Network) -> Result<Network> {
        Self::apply(&mut n)?;
        Ok(n)
    }

    async fn read(&self, _cx: &Ctx, n: Network) -> Result<Option<Network>> {
        Ok(Some(n))
    }

    async fn update(&self, _cx: &Ctx, _prior: Network, mut n: Network) -> Result<Network> {
        Self::apply(&mut n)?;
        Ok(n)
    }

    async fn delete(&self, _cx: &Ctx, n: Network) -> Result<()> {
        let name = n.name.known().cloned().unwrap_or_default();
        CLOUD
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&name);
        Ok(())
    }
}

fn config(name: &str, cidrs: &[&str]) -> String {
    let mut out = format!("resource \"ipam_network\" \"main\" {{\n  name = {name:?}\n");
    for c in cidrs {
        out.push_str(&format!("  subnet {{\n    cidr = {c:?}\n  }}\n"));
    }
    out.push_str("}\n");
    out
}

/// The ids of the network's subnets in the state, in order.
fn ids(state: &tfvalue_plugin::testing::State) -> Vec<String> {
    let n: serde_json::Value = state.resource("ipam_network.main").unwrap();
    n["subnet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_subnet_inserted_in_the_middle_keeps_the_others_ids() {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    for protocol in [5, 6] {
        TestCase::run_each(|| {
            // A network of its own for each run.
            let name = format!("net-{}", RUN.fetch_add(1, Ordering::Relaxed));
            let provider = ProviderBinary::in_process("ipam", || {
                Framework::new().resource("ipam_network", Networks)
            });
            let (n1, n2, n3) = (name.clone(), name.clone(), name.clone());
            let before = std::sync::Arc::new(Mutex::new(Vec::<String>::new()));
            let (b1, b2, b3) = (before.clone(), before.clone(), before.clone());
            TestCase::new(provider)
                .source("example.com/acme/ipam")
                .protocol(protocol)
                .step(
                    Step::config(config(&n1, &["10.0.1.0/24", "10.0.3.0/24"])).check(move |s| {
                        *b1.lock().unwrap() = ids(s);
                        Ok(())
                    }),
                )
                .step(
                    Step::config(config(&n2, &["10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24"]))
                        .plan_check(move |plan| {
                            let old = b2.lock().unwrap().clone();
                            plan.expect_known(
                                "ipam_network.main",
                                "subnet[0].id",
                                &known::string(&old[0]),
                            )?;
                            plan.expect_unknown("ipam_network.main", "subnet[1].id")?;
                            plan.expect_known(
                                "ipam_network.main",
                                "subnet[2].id",
                                &known::string(&old[1]),
                            )?;
                            Ok(())
                        })
                        .check(move |s| {
                            let old = b3.lock().unwrap().clone();
                            let now = ids(s);
                            assert_eq!((&now[0], &now[2]), (&old[0], &old[1]));
                            assert!(now[1].starts_with("subnet-") && !old.contains(&now[1]));
                            Ok(())
                        }),
                )
                // The first removed: the others keep theirs.
                .step(
                    Step::config(config(&n3, &["10.0.2.0/24", "10.0.3.0/24"])).plan_check(|plan| {
                        plan.expect_known(
                            "ipam_network.main",
                            "subnet[1].id",
                            &known::string_matching("^subnet-"),
                        )?;
                        Ok(())
                    }),
                )
        });
    }
}
