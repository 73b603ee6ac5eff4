//! Timeouts under a real Terraform (terraform-plugin-framework-timeouts' shape): a
//! `timeouts` block on the resource, a create that takes longer than its timeout is
//! cancelled with an error naming the operation and the timeout, one within it works,
//! an operation without a configured timeout takes the resource's default, and the
//! handler sees its deadline.
//!
//! Skipped (printing why) unless `TFVALUE_TERRAFORM` or `TFVALUE_TERRAFORM_LATEST` names
//! a Terraform binary.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tfvalue::{TfValue, Unknown};
use tfvalue_plugin::framework::*;
use tfvalue_plugin::testing::{ProviderBinary, Step, TestCase};

#[derive(TfValue, Serialize, Deserialize, Clone)]
struct Cluster {
    /// How long the "cloud" takes to make it, in milliseconds.
    build_ms: Unknown<u64>,
    #[tfvalue(computed, use_state_for_unknown)]
    id: Unknown<Option<String>>,
    #[tfvalue(block)]
    timeouts: Unknown<Option<Timeouts>>,
}

/// Set when a create saw a deadline between now and the timeout.
static SAW_DEADLINE: AtomicBool = AtomicBool::new(false);

struct Clusters;

impl Resource for Clusters {
    type Model = Cluster;

    fn timeouts(&self) -> TimeoutDefaults {
        // Deletes are quick here; the default holds unless configuration says otherwise.
        TimeoutDefaults::new().delete(Duration::from_millis(500))
    }

    async fn create(&self, cx: &Ctx, mut c: Cluster) -> Result<Cluster> {
        if let Some(deadline) = cx.deadline() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left > Duration::ZERO && left <= Duration::from_secs(30) {
                SAW_DEADLINE.store(true, Ordering::Relaxed);
            }
        }
        let ms = c.build_ms.known().copied().unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        c.id = Some(format!("cluster-{ms}")).into();
        Ok(c)
    }

    async fn read(&self, _cx: &Ctx, c: Cluster) -> Result<Option<Cluster>> {
        Ok(Some(c))
    }

    async fn update(&self, _cx: &Ctx, _prior: Cluster, c: Cluster) -> Result<Cluster> {
        Ok(c)
    }

    async fn delete(&self, _cx: &Ctx, c: Cluster) -> Result<()> {
        // A cluster built slowly is also slow to delete.
        let ms = c.build_ms.known().copied().unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok(())
    }
}

fn config(build_ms: u64, timeouts: &str) -> String {
    format!(
        "resource \"slow_cluster\" \"c\" {{\n  build_ms = {build_ms}\n  timeouts {{\n{timeouts}  }}\n}}\n"
    )
}

#[test]
fn a_handler_past_its_timeout_is_cancelled_with_an_error() {
    for protocol in [5, 6] {
        TestCase::run_each(|| {
            let provider = ProviderBinary::in_process("slow", || {
                Framework::new().resource("slow_cluster", Clusters)
            });
            TestCase::new(provider)
                .source("example.com/acme/slow")
                .protocol(protocol)
                // 3 s of work against a 1 s timeout: cancelled, nothing created.
                .step(
                    Step::config(config(3000, "    create = \"1s\"\n"))
                        .expect_error("create of slow_cluster timed out.*timeout of 1s"),
                )
                // Within it: created, and the handler saw its deadline.
                .step(
                    Step::config(config(200, "    create = \"20s\"\n    delete = \"20s\"\n"))
                        .check(|_| {
                            assert!(
                                SAW_DEADLINE.load(Ordering::Relaxed),
                                "the create saw its deadline"
                            );
                            Ok(())
                        }),
                )
        });
    }
}

#[test]
fn the_default_holds_where_configuration_sets_none() {
    TestCase::run_each(|| {
        let provider = ProviderBinary::in_process("slow", || {
            Framework::new().resource("slow_cluster", Clusters)
        });
        TestCase::new(provider)
            .source("example.com/acme/slow")
            .protocol(6)
            .step(Step::config(config(1500, "    create = \"10s\"\n")))
            // Destroying it takes 1.5 s, past the default of 500 ms.
            .step(
                Step::config(String::new())
                    .expect_error("delete of slow_cluster timed out.*timeout of 500ms"),
            )
            // With its own delete timeout the destroy works.
            .step(Step::config(config(
                1500,
                "    create = \"10s\"\n    delete = \"10s\"\n",
            )))
    });
}
