//! Acceptance tests of a provider against a real Terraform, as terraform-plugin-testing's
//! `resource.Test` is for providers written in Go.
//!
//! A [`TestCase`] builds the provider's binary, installs it in a filesystem mirror in a
//! fresh temporary directory, and runs its [`Step`]s with the Terraform binary named by
//! [`TERRAFORM_ENV`] (`TFVALUE_TERRAFORM`); without it, the case prints why it is skipped
//! and passes. At the end it destroys everything and checks that nothing is left.
//!
//! ```no_run
//! use tfvalue::Unknown;
//! use tfvalue_plugin::testing::{ProviderBinary, Step, TestCase};
//! # #[derive(serde::Deserialize)] struct Server { size: Unknown<Option<u32>> }
//!
//! const WEB: &str = r#"
//! resource "thing_server" "web" {
//!   name = "web"
//!   size = 2
//!   disk { size_gb = 20 }
//! }
//! "#;
//!
//! #[test]
//! fn server_lifecycle() {
//!     let case = TestCase::new(ProviderBinary::example("thing")).source("example.com/acme/thing");
//!     let db = case.dir().join("db.json");
//!     case.env("THING_DB", &db)
//!         .step(Step::config(WEB).check(|state| {
//!             let web: Server = state.resource("thing_server.web")?;
//!             assert_eq!(web.size, Unknown::Known(Some(2)));
//!             Ok(())
//!         }))
//!         .step(Step::config(WEB.replace("size = 2", "size = 3")))
//!         .step(Step::import("thing_server.web").verify())
//!         .check_destroy(move |_| {
//!             assert_eq!(std::fs::read_to_string(&db)?, "{}");
//!             Ok(())
//!         })
//!         .run();
//! }
//! ```
//!
//! # What each step does
//!
//! | step | commands | passes when |
//! |---|---|---|
//! | [`Step::config`] | `init` (first time), `apply`, checks, `plan` | apply succeeds, the checks pass, and the plan after it has no changes |
//! | `.taint(a)`, `.replace(a)` | `taint a` then `apply`, or `apply -replace=a` | as above, the resource replaced |
//! | `.plan_only()` | `init` (first time), `plan` | the plan has no changes |
//! | `.expect_non_empty_plan()` | as above | the plan (after apply) has changes |
//! | `.expect_error(p)` | `init`, `apply` (or `plan`), checks | the command fails and its output matches `p` |
//! | `.plan_check(f)`, `.post_apply_pre_refresh_plan_check(f)`, `.post_apply_post_refresh_plan_check(f)` | `plan -out` and `apply` of that plan; `plan -refresh=false -out`; the plan after, saved | as above, and each check passes on its [`Plan`] |
//! | [`Step::config_file`], [`Step::config_dir`], `.variable(name, value)` | as a configuration step, the files copied in, variables in `terraform.tfvars.json` | as above |
//! | [`Step::refresh`] | `apply -refresh-only` (with `.plan_check`: `plan -refresh-only -out`, checks, `apply` of it), checks, `plan` | as a configuration step |
//! | [`Step::import`] | `init`, `import` in a new directory, checks | the import succeeds (and `.verify()`: the imported state equals the applied one) |
//! | `.with_import_block()`, `.with_identity(..)` | an `import {}` block added, `plan -out`, plan checks (and, `.in_place()`, `apply`) | the plan imports the resource and changes nothing in it (Terraform 1.5+ / 1.12+) |
//! | [`Step::terraform_test`] | `init`, `terraform test` in a copy of the directory and its `tests/` | every run passes (Terraform 1.6+) |
//! | end of the case | `destroy`, [`TestCase::check_destroy`] | no managed resource is left in the state, and the check passes |
//!
//! Checks ([`ConfigStep::check`] and its kin) see the [`State`] the step left: the
//! resources decoded into your `#[derive(TfValue)]` models ([`State::resource`]) or as
//! [`tfvalue::Value`]s ([`State::value`]). They run also after an expected error, so a
//! test can check that a failed apply left the state as it was.
//!
//! # Output
//!
//! Every Terraform command's output is printed as the case runs (the test harness shows it
//! only for a failing test), and the failure message holds the output of the command that
//! failed. A check that panics (an `assert!`) still gets the destroy at the end. The
//! temporary directory is removed at the end; set `TFVALUE_TESTING_KEEP=1` to keep it (its
//! path is printed).
//!
//! # The provider in process
//!
//! [`ProviderBinary::in_process`] serves the provider inside the test process, on a free
//! port of 127.0.0.1, for as long as the case runs, and hands its address to Terraform
//! in `TF_REATTACH_PROVIDERS`, as terraform-plugin-testing does with its provider
//! factories: nothing is built or installed, a case starts at once, and a debugger or a
//! coverage tool sees the provider's code. [`ProviderBinary::or_in_process`] gives a
//! binary target an in-process server too, used unless [`BINARY_ENV`]
//! (`TFVALUE_TESTING_BINARY`) is set, so one suite runs either way. In process, the
//! provider sees the test process's environment, not the case's ([`TestCase::env`]
//! still reaches Terraform and the providers it starts).
//!
//! # Terraform versions
//!
//! [`TestCase::run_each`] runs a case once with each binary of [`terraforms`]: the ones
//! [`TERRAFORM_ENV`], [`TERRAFORM_LATEST_ENV`] and the `PATH`-style list in
//! [`TERRAFORMS_ENV`] name, each once. [`TestCase::skip_below`] and
//! [`TestCase::skip_above`] (and the same on steps) skip, printing why, what a version
//! cannot run; [`TestCase::terraform`] pins a binary for a test that loops itself.
//!
//! # Parallel cases
//!
//! `cargo test` runs a file's tests on several threads, and cases may run at once: each
//! has its own temporary directory, CLI configuration and filesystem mirror, Terraform's
//! plugin cache and data directory variables are cleared for its commands, and each
//! in-process server takes a port of its own from the system.
//!
//! # The provider's binary
//!
//! [`ProviderBinary::example`] and [`ProviderBinary::bin`] run `cargo build` for the
//! package under test (the `CARGO_MANIFEST_DIR` and `CARGO_PKG_NAME` that `cargo test`
//! sets), with the target directory and profile of the running test, once per test
//! process; [`ProviderBinary::path`] takes a binary built elsewhere. The binary is
//! installed as `terraform-provider-<name>_v<version>` under the source address
//! ([`TestCase::source`], default `example.com/test/<name>`), and each configuration gets a
//! `required_providers` block for it unless it has one of its own.
//!
//! # Protocol versions
//!
//! Terraform offers both protocol 5 and 6, and the provider picks; a provider that can
//! serve either usually reads an environment variable to choose. Name it with
//! [`ProviderBinary::protocol_env`] and choose with [`TestCase::protocol`]: the case sets
//! the variable and checks, from Terraform's log, that Terraform did talk to the provider
//! over that version.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::Read;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use tfvalue::schema::{Pattern, ProviderSchemas};
use tfvalue::Value;

pub mod compare;
pub mod known;

mod case;
mod plan;
mod provider;
mod run;
mod state;
mod step;
mod version;

pub use case::TestCase;
pub use plan::{Plan, ResourceAction};
pub use provider::ProviderBinary;
pub use state::State;
pub use step::{ConfigStep, ImportStep, RefreshStep, Step, TestStep};
pub use version::{terraform_version, terraforms, TerraformVersion};

use provider::*;
use run::*;
use state::*;
use step::*;
use version::*;

/// The environment variable naming the Terraform binary the tests run.
pub const TERRAFORM_ENV: &str = "TFVALUE_TERRAFORM";

/// The environment variable naming a newer Terraform binary, for cases that need
/// features of recent Terraform (write-only attributes need 1.11):
/// [`TestCase::run_latest`] runs with it, and is skipped (saying why) without it.
pub const TERRAFORM_LATEST_ENV: &str = "TFVALUE_TERRAFORM_LATEST";

/// The environment variable naming more Terraform binaries, as a list of paths in the
/// form of `PATH` (`:`-separated on Unix): [`TestCase::run_each`] and [`terraforms`]
/// add them to [`TERRAFORM_ENV`]'s and [`TERRAFORM_LATEST_ENV`]'s.
pub const TERRAFORMS_ENV: &str = "TFVALUE_TERRAFORMS";

/// Set (to anything but empty) to run the providers that have both a binary and an
/// in-process server ([`ProviderBinary::or_in_process`]) as binaries.
pub const BINARY_ENV: &str = "TFVALUE_TESTING_BINARY";

/// Set (to anything) to keep each case's temporary directory.
pub const KEEP_ENV: &str = "TFVALUE_TESTING_KEEP";

/// What a check returns: `Ok(())`, or any error (`?` works on tfvalue's errors, I/O
/// errors, and the harness's own [`Error`]).
pub type CheckResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

pub(super) type Check = Box<dyn FnOnce(&State) -> CheckResult>;
pub(super) type PlanCheck = Box<dyn FnOnce(&Plan) -> CheckResult>;
pub(super) type Hook = Box<dyn FnOnce()>;

/// Why a case failed, or a state lookup failed: a message that names the step and holds
/// the output of the Terraform command concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    pub(super) fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
        }
    }

    /// The message, as `Display` shows it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// How a case ended without failing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Every step passed, and the destroy at the end left nothing.
    Passed,
    /// The case did not run; the reason (no Terraform binary) was printed.
    Skipped(String),
}

#[cfg(test)]
mod tests;
