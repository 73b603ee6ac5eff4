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
//! | [`Step::refresh`] | `refresh`, checks, `plan` | as a configuration step |
//! | [`Step::import`] | `init`, `import` in a new directory, checks | the import succeeds (and `.verify()`: the imported state equals the applied one) |
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
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use tfvalue::schema::{Pattern, ProviderSchemas};
use tfvalue::Value;

pub mod known;

/// The environment variable naming the Terraform binary the tests run.
pub const TERRAFORM_ENV: &str = "TFVALUE_TERRAFORM";

/// The environment variable naming a newer Terraform binary, for cases that need
/// features of recent Terraform (write-only attributes need 1.11):
/// [`TestCase::run_latest`] runs with it, and is skipped (saying why) without it.
pub const TERRAFORM_LATEST_ENV: &str = "TFVALUE_TERRAFORM_LATEST";

/// Set (to anything) to keep each case's temporary directory.
pub const KEEP_ENV: &str = "TFVALUE_TESTING_KEEP";

/// What a check returns: `Ok(())`, or any error (`?` works on tfvalue's errors, I/O
/// errors, and the harness's own [`Error`]).
pub type CheckResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

type Check = Box<dyn FnOnce(&State) -> CheckResult>;
type PlanCheck = Box<dyn FnOnce(&Plan) -> CheckResult>;
type Hook = Box<dyn FnOnce()>;

/// Why a case failed, or a state lookup failed: a message that names the step and holds
/// the output of the Terraform command concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    fn new(message: impl Into<String>) -> Self {
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

// ---------------------------------------------------------------------------------------
// The provider's binary

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum BinaryKind {
    Example(String),
    Bin(String),
    Path(PathBuf),
}

/// The provider under test: an example or binary of the package under test (built with
/// `cargo build`), or a binary at a path.
#[derive(Clone, Debug)]
pub struct ProviderBinary {
    kind: BinaryKind,
    protocol_env: Option<String>,
}

impl ProviderBinary {
    /// The example `name` of the package under test (`examples/<name>.rs`); its provider
    /// name defaults to `name`.
    pub fn example(name: impl Into<String>) -> Self {
        ProviderBinary {
            kind: BinaryKind::Example(name.into()),
            protocol_env: None,
        }
    }

    /// The binary target `name` of the package under test; its provider name is `name`
    /// without a `terraform-provider-` prefix.
    pub fn bin(name: impl Into<String>) -> Self {
        ProviderBinary {
            kind: BinaryKind::Bin(name.into()),
            protocol_env: None,
        }
    }

    /// A binary built elsewhere; its provider name is the file name without a
    /// `terraform-provider-` prefix and a `_v<version>` suffix.
    pub fn path(path: impl Into<PathBuf>) -> Self {
        ProviderBinary {
            kind: BinaryKind::Path(path.into()),
            protocol_env: None,
        }
    }

    /// The environment variable through which the provider chooses its protocol version:
    /// [`TestCase::protocol`] sets it to `5` or `6`.
    #[must_use]
    pub fn protocol_env(mut self, name: impl Into<String>) -> Self {
        self.protocol_env = Some(name.into());
        self
    }

    /// The provider's type name as the binary's name says it.
    fn default_name(&self) -> String {
        let raw = match &self.kind {
            BinaryKind::Example(n) | BinaryKind::Bin(n) => n.clone(),
            BinaryKind::Path(p) => p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        let raw = raw.strip_prefix("terraform-provider-").unwrap_or(&raw);
        match raw.split_once("_v") {
            Some((name, _)) => name.to_owned(),
            None => raw.to_owned(),
        }
    }

    /// The binary's path, building it first (once per test process) if it is a target of
    /// the package under test; for tests that run the provider themselves.
    ///
    /// # Errors
    ///
    /// When the build fails or a binary given by path does not exist.
    pub fn build(&self) -> Result<PathBuf, Error> {
        let (flag, name) = match &self.kind {
            BinaryKind::Path(p) => {
                return if p.is_file() {
                    Ok(p.clone())
                } else {
                    Err(Error::new(format!(
                        "the provider binary {} does not exist",
                        p.display()
                    )))
                };
            }
            BinaryKind::Example(n) => ("--example", n),
            BinaryKind::Bin(n) => ("--bin", n),
        };
        // One build per target per test process: the tests of a file run in parallel,
        // and the first one builds while the others wait for it.
        static BUILT: Mutex<Vec<(BinaryKind, PathBuf)>> = Mutex::new(Vec::new());
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, path)) = built.iter().find(|(k, _)| *k == self.kind) {
            return Ok(path.clone());
        }
        let path = cargo_build(flag, name)?;
        built.push((self.kind.clone(), path.clone()));
        Ok(path)
    }
}

/// `cargo build` of one target of the package under test, with the running test's target
/// directory and profile; the path of the executable it reports.
fn cargo_build(flag: &str, name: &str) -> Result<PathBuf, Error> {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").ok_or_else(|| {
        Error::new(
            "CARGO_MANIFEST_DIR is not set (it is under `cargo test`): give the provider as \
             ProviderBinary::path(..)",
        )
    })?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.arg("build")
        .arg("--message-format=json-render-diagnostics")
        .arg("--manifest-path")
        .arg(Path::new(&manifest_dir).join("Cargo.toml"))
        .args([flag, name]);
    if let Some(pkg) = std::env::var_os("CARGO_PKG_NAME") {
        cmd.arg("-p").arg(pkg);
    }
    if let Some((target_dir, profile)) = test_target_dir() {
        cmd.arg("--target-dir").arg(target_dir);
        match profile.as_str() {
            // `cargo test` builds with the `test` profile into `debug/`: building the
            // provider with it too reuses every dependency the test itself was built with.
            "debug" => {
                cmd.args(["--profile", "test"]);
            }
            "release" => {
                cmd.arg("--release");
            }
            other => {
                cmd.args(["--profile", other]);
            }
        }
    }
    let started = Instant::now();
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::new(format!("cannot run cargo: {e}")))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(Error::new(format!(
            "`cargo build {flag} {name}` failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let exe = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from));
    let exe = exe.ok_or_else(|| {
        Error::new(format!(
            "`cargo build {flag} {name}` reported no executable:\n{stdout}"
        ))
    })?;
    println!("built {} ({:.1?})", exe.display(), started.elapsed());
    Ok(exe)
}

/// The target directory and profile directory name of the running test binary
/// (`<target>/[<triple>/]<profile>/deps/<test>`), if it looks like one cargo built.
fn test_target_dir() -> Option<(PathBuf, String)> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    if deps.file_name()? != "deps" {
        return None;
    }
    let profile_dir = deps.parent()?;
    let profile = profile_dir.file_name()?.to_string_lossy().into_owned();
    let mut target = profile_dir.parent()?;
    // Cross builds put a target triple between the two; cargo tags the target directory
    // itself with CACHEDIR.TAG.
    if !target.join("CACHEDIR.TAG").exists() {
        if let Some(up) = target.parent().filter(|t| t.join("CACHEDIR.TAG").exists()) {
            target = up;
        }
    }
    Some((target.to_path_buf(), profile))
}

/// Terraform's name for this platform's `<os>_<arch>` directory.
fn platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "386",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}_{arch}")
}

// ---------------------------------------------------------------------------------------
// Steps

/// Where a check, an expected error and a hook go: shared by every kind of step.
#[derive(Default)]
struct Common {
    checks: Vec<Check>,
    before: Vec<Hook>,
    expect_error: Option<String>,
    env: Vec<(OsString, OsString)>,
    versions: Versions,
}

/// The Terraform versions a case or step runs with (terraform-plugin-testing's
/// `tfversion.SkipBelow` and `SkipAbove`).
#[derive(Clone, Debug, Default)]
struct Versions {
    below: Option<TerraformVersion>,
    above: Option<TerraformVersion>,
}

impl Versions {
    /// Why `v` is outside, if it is.
    fn skip(&self, v: TerraformVersion) -> Option<String> {
        match (self.below, self.above) {
            (Some(min), _) if v < min => {
                Some(format!("Terraform {v} is below {min}, which this needs"))
            }
            (_, Some(max)) if v > max => Some(format!(
                "Terraform {v} is above {max}, the newest this runs with"
            )),
            _ => None,
        }
    }
}

/// A Terraform version, `major.minor.patch` (what `terraform version -json` says).
///
/// ```
/// use tfvalue_plugin::testing::TerraformVersion;
///
/// let v: TerraformVersion = "1.11.4".parse().unwrap();
/// assert!(v >= "1.10".parse().unwrap());
/// assert_eq!(v.to_string(), "1.11.4");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TerraformVersion {
    /// The major version.
    pub major: u64,
    /// The minor version.
    pub minor: u64,
    /// The patch version.
    pub patch: u64,
}

impl std::str::FromStr for TerraformVersion {
    type Err = Error;

    /// `1.11`, `1.11.4`, `v1.11.4`, `1.12.0-beta1` (the pre-release is ignored).
    fn from_str(s: &str) -> Result<Self, Error> {
        let core = s.trim().trim_start_matches('v');
        let core = core.split(['-', '+']).next().unwrap_or("");
        let mut parts = core.split('.').map(str::parse::<u64>);
        let bad = || {
            Error::new(format!(
                "`{s}` is not a Terraform version (major.minor[.patch])"
            ))
        };
        let major = parts.next().and_then(Result::ok).ok_or_else(bad)?;
        let minor = parts.next().and_then(Result::ok).ok_or_else(bad)?;
        let patch = match parts.next() {
            None => 0,
            Some(p) => p.map_err(|_| bad())?,
        };
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(TerraformVersion {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for TerraformVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The version of the Terraform binary at `path` (`terraform version -json`).
///
/// # Errors
///
/// It does not run, or says no version.
pub fn terraform_version(path: &Path) -> Result<TerraformVersion, Error> {
    let out = Command::new(path)
        .args(["version", "-json"])
        .env("CHECKPOINT_DISABLE", "1")
        .output()
        .map_err(|e| Error::new(format!("cannot run {}: {e}", path.display())))?;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        Error::new(format!(
            "`{} version -json` printed no JSON: {e}",
            path.display()
        ))
    })?;
    json["terraform_version"]
        .as_str()
        .ok_or_else(|| {
            Error::new(format!(
                "`{} version -json` names no version",
                path.display()
            ))
        })?
        .parse()
}

/// The version range of a spec (`skip_below`), parsed; a bad one fails the case at once.
fn version_spec(v: &str) -> TerraformVersion {
    match v.parse() {
        Ok(v) => v,
        // A mistake in the test itself.
        #[allow(clippy::panic)]
        Err(e) => panic!("{e}"),
    }
}

/// One step of a [`TestCase`]: a configuration to apply or plan ([`Step::config`]), an
/// import ([`Step::import`]), or a refresh ([`Step::refresh`]).
pub struct Step {
    kind: StepKind,
    common: Common,
}

enum StepKind {
    Config(ConfigOptions),
    Refresh { non_empty_plan: bool },
    Import(ImportOptions),
}

struct ConfigOptions {
    hcl: String,
    plan_only: bool,
    non_empty_plan: bool,
    taint: Vec<String>,
    replace: Vec<String>,
    plan_checks: Vec<PlanCheck>,
}

struct ImportOptions {
    address: String,
    id: ImportId,
    verify: bool,
    ignore: Vec<String>,
    in_place: bool,
}

enum ImportId {
    Attribute(String),
    Given(String),
}

impl Step {
    /// Applies a configuration (HCL), then runs the step's checks and a plan that must
    /// show no changes. The configuration needs no `terraform { required_providers }`
    /// block: the case adds one for the provider under test.
    pub fn config(hcl: impl Into<String>) -> ConfigStep {
        ConfigStep(Step {
            kind: StepKind::Config(ConfigOptions {
                hcl: hcl.into(),
                plan_only: false,
                non_empty_plan: false,
                taint: Vec::new(),
                replace: Vec::new(),
                plan_checks: Vec::new(),
            }),
            common: Common::default(),
        })
    }

    /// Imports the resource at `address` (`thing_server.web`, `kv_entry.e["k"]`) with the
    /// configuration of the step before, in a new working directory (or, with
    /// [`ImportStep::in_place`], in the case's own). The id is the `id` attribute of the
    /// resource in the state unless [`ImportStep::id`] or [`ImportStep::id_attribute`]
    /// says otherwise.
    pub fn import(address: impl Into<String>) -> ImportStep {
        ImportStep(Step {
            kind: StepKind::Import(ImportOptions {
                address: address.into(),
                id: ImportId::Attribute("id".to_owned()),
                verify: false,
                ignore: Vec::new(),
                in_place: false,
            }),
            common: Common::default(),
        })
    }

    /// Refreshes the state (`terraform refresh`), then runs the step's checks and a plan
    /// that must show no changes (see [`RefreshStep::expect_non_empty_plan`] for drift).
    pub fn refresh() -> RefreshStep {
        RefreshStep(Step {
            kind: StepKind::Refresh {
                non_empty_plan: false,
            },
            common: Common::default(),
        })
    }

    fn describe(&self) -> String {
        match &self.kind {
            StepKind::Config(o) if o.plan_only => "plan".to_owned(),
            StepKind::Config(_) => "config".to_owned(),
            StepKind::Refresh { .. } => "refresh".to_owned(),
            StepKind::Import(o) => format!("import {}", o.address),
        }
    }
}

macro_rules! common_methods {
    ($t:ident) => {
        impl $t {
            /// Adds a check of the state the step leaves (see [`State`]). Checks run in
            /// order; the first that fails (returns an error or panics) fails the case.
            #[must_use]
            pub fn check(mut self, f: impl FnOnce(&State) -> CheckResult + 'static) -> Self {
                self.0.common.checks.push(Box::new(f));
                self
            }

            /// Expects the step's Terraform command to fail, with output matching
            /// `pattern` (a [`tfvalue::schema::Pattern`]: a literal with `.`, classes and
            /// quantifiers; without `^`/`$` it matches anywhere). The output is matched
            /// as printed and also with Terraform's diagnostic boxes (`│ `) taken out and
            /// every run of white space made one space, so a message that Terraform
            /// wrapped over lines still matches.
            #[must_use]
            pub fn expect_error(mut self, pattern: impl Into<String>) -> Self {
                self.0.common.expect_error = Some(pattern.into());
                self
            }

            /// Skips this step (printing why) with a Terraform older than `version`
            /// (`1.8`, `1.10.0`), as plugin-testing's `tfversion.SkipBelow`.
            ///
            /// # Panics
            ///
            /// `version` is not a version.
            #[must_use]
            pub fn skip_below(mut self, version: &str) -> Self {
                self.0.common.versions.below = Some(version_spec(version));
                self
            }

            /// Skips this step (printing why) with a Terraform newer than `version`.
            ///
            /// # Panics
            ///
            /// `version` is not a version.
            #[must_use]
            pub fn skip_above(mut self, version: &str) -> Self {
                self.0.common.versions.above = Some(version_spec(version));
                self
            }

            /// Runs `f` before the step: change the real objects behind Terraform's back
            /// (drift), or anything else the step needs.
            #[must_use]
            pub fn before(mut self, f: impl FnOnce() + 'static) -> Self {
                self.0.common.before.push(Box::new(f));
                self
            }

            /// Sets an environment variable for this step's Terraform commands (and so
            /// for the provider they start), over the case's own.
            #[must_use]
            pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
                self.0
                    .common
                    .env
                    .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
                self
            }
        }

        impl From<$t> for Step {
            fn from(s: $t) -> Step {
                s.0
            }
        }
    };
}

/// A configuration step ([`Step::config`]).
pub struct ConfigStep(Step);
/// An import step ([`Step::import`]).
pub struct ImportStep(Step);
/// A refresh step ([`Step::refresh`]).
pub struct RefreshStep(Step);

common_methods!(ConfigStep);
common_methods!(ImportStep);
common_methods!(RefreshStep);

impl ConfigStep {
    fn with(mut self, f: impl FnOnce(&mut ConfigOptions)) -> Self {
        if let StepKind::Config(o) = &mut self.0.kind {
            f(o);
        }
        self
    }

    /// Only plans the configuration (no apply); the plan must show no changes, or must
    /// show some with [`ConfigStep::expect_non_empty_plan`].
    #[must_use]
    pub fn plan_only(self) -> Self {
        self.with(|o| o.plan_only = true)
    }

    /// Expects the plan (after apply, or the only plan of a
    /// [`plan_only`](ConfigStep::plan_only) step) to show changes, and fails if it
    /// shows none.
    #[must_use]
    pub fn expect_non_empty_plan(self) -> Self {
        self.with(|o| o.non_empty_plan = true)
    }

    /// Marks the resource at `address` tainted (`terraform taint`) before the apply, so
    /// that the apply replaces it.
    #[must_use]
    pub fn taint(self, address: impl Into<String>) -> Self {
        self.with(|o| o.taint.push(address.into()))
    }

    /// Applies with `-replace=<address>`: the resource is replaced even though nothing
    /// in it changed.
    #[must_use]
    pub fn replace(self, address: impl Into<String>) -> Self {
        self.with(|o| o.replace.push(address.into()))
    }

    /// Adds a check of the plan, before it is applied (as terraform-plugin-testing's
    /// `ConfigPlanChecks.PreApply`). With plan checks the step saves its plan
    /// (`terraform plan -out`), runs the checks on it (see [`Plan`]), and then applies
    /// that very plan; a [`plan_only`](ConfigStep::plan_only) step checks its only plan.
    /// Checks run in order; the first that fails fails the case.
    ///
    /// ```no_run
    /// use tfvalue_plugin::testing::{ProviderBinary, Step, TestCase};
    ///
    /// TestCase::new(ProviderBinary::example("kv"))
    ///     .step(
    ///         Step::config(r#"resource "kv_entry" "e" { key = "k" }"#).plan_check(|plan| {
    ///             assert!(plan.text().contains("kv_entry.e will be created"));
    ///             Ok(())
    ///         }),
    ///     )
    ///     .run();
    /// ```
    #[must_use]
    pub fn plan_check(self, f: impl FnOnce(&Plan) -> CheckResult + 'static) -> Self {
        self.with(|o| o.plan_checks.push(Box::new(f)))
    }

    /// Sets an input variable for this step (`TF_VAR_<name>`), and for the destroy at the
    /// end if this is the last configuration applied.
    #[must_use]
    pub fn var(self, name: &str, value: impl AsRef<OsStr>) -> Self {
        self.env(format!("TF_VAR_{name}"), value)
    }
}

impl RefreshStep {
    /// Expects the plan after the refresh to show changes (the real object drifted
    /// from the configuration), and fails if it shows none.
    #[must_use]
    pub fn expect_non_empty_plan(mut self) -> Self {
        if let StepKind::Refresh { non_empty_plan } = &mut self.0.kind {
            *non_empty_plan = true;
        }
        self
    }
}

impl ImportStep {
    fn with(mut self, f: impl FnOnce(&mut ImportOptions)) -> Self {
        if let StepKind::Import(o) = &mut self.0.kind {
            f(o);
        }
        self
    }

    /// Imports this id.
    #[must_use]
    pub fn id(self, id: impl Into<String>) -> Self {
        self.with(|o| o.id = ImportId::Given(id.into()))
    }

    /// Imports by the value of this attribute of the resource in the state (default
    /// `id`).
    #[must_use]
    pub fn id_attribute(self, name: impl Into<String>) -> Self {
        self.with(|o| o.id = ImportId::Attribute(name.into()))
    }

    /// Checks that the imported state equals the state the resource had before (every
    /// attribute, set elements in any order), as `ImportStateVerify` does.
    #[must_use]
    pub fn verify(self) -> Self {
        self.with(|o| o.verify = true)
    }

    /// As [`ImportStep::verify`], leaving out these top-level attributes (ones that
    /// import cannot know, such as a password).
    #[must_use]
    pub fn verify_ignore<I, S>(self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.with(|o| {
            o.verify = true;
            o.ignore.extend(names.into_iter().map(Into::into));
        })
    }

    /// Imports into the case's own working directory: the resource is first removed from
    /// the state (`terraform state rm`), and the steps after this one run on the imported
    /// state.
    #[must_use]
    pub fn in_place(self) -> Self {
        self.with(|o| o.in_place = true)
    }
}

// ---------------------------------------------------------------------------------------
// The plan

/// A plan Terraform saved (`terraform plan -out`), for [`ConfigStep::plan_check`].
pub struct Plan {
    path: PathBuf,
    json: Parsed,
    text: String,
    schemas: Result<ProviderSchemas, Error>,
}

impl Plan {
    /// The saved plan file (a zip archive in Terraform's own format).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The plan as `terraform show -json` prints it: `resource_changes`,
    /// `planned_values`, `output_changes` and the rest of Terraform's JSON plan format.
    pub fn json(&self) -> &serde_json::Value {
        &self.json.json
    }

    /// The plan as `terraform show -no-color` prints it for a person.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The actions planned for the resource at `address` (`["create"]`, `["update"]`,
    /// `["delete", "create"]` for a replacement, `["no-op"]`), from `resource_changes`.
    ///
    /// # Errors
    ///
    /// The plan has no change for `address`.
    pub fn actions(&self, address: &str) -> Result<Vec<String>, Error> {
        let changes = self.json["resource_changes"].as_array();
        let change = changes
            .into_iter()
            .flatten()
            .find(|c| c["address"] == address)
            .ok_or_else(|| {
                let known: Vec<_> = changes
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["address"].as_str())
                    .collect();
                Error::new(format!(
                    "the plan has no change for `{address}` (it has {known:?})"
                ))
            })?;
        Ok(change["change"]["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_owned))
            .collect())
    }

    /// The position of the change for `address` in `resource_changes`.
    fn change(&self, address: &str) -> Result<usize, Error> {
        self.actions(address)?;
        self.json["resource_changes"]
            .as_array()
            .and_then(|c| c.iter().position(|c| c["address"] == address))
            .ok_or_else(|| Error::new(format!("the plan has no change for `{address}`")))
    }

    /// Checks that the plan changes nothing: every resource's action and every
    /// output's is `no-op` (plan-testing's `plancheck.ExpectEmptyPlan`).
    ///
    /// # Errors
    ///
    /// The addresses that change, with their actions.
    pub fn expect_empty(&self) -> Result<(), Error> {
        let changing = self.changing();
        if changing.is_empty() {
            Ok(())
        } else {
            Err(Error::new(format!(
                "expected an empty plan, found {}",
                changing.join(", ")
            )))
        }
    }

    /// Checks that the plan changes something (`plancheck.ExpectNonEmptyPlan`).
    ///
    /// # Errors
    ///
    /// The plan changes nothing.
    pub fn expect_non_empty(&self) -> Result<(), Error> {
        if self.changing().is_empty() {
            Err(Error::new(
                "expected a plan that changes something, found an empty plan",
            ))
        } else {
            Ok(())
        }
    }

    fn changing(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (what, key) in [("resource_changes", "address"), ("output_changes", "")] {
            let changes: Vec<(String, &serde_json::Value)> = match &self.json[what] {
                serde_json::Value::Array(a) => a
                    .iter()
                    .map(|c| (c[key].as_str().unwrap_or("?").to_owned(), &c["change"]))
                    .collect(),
                serde_json::Value::Object(o) => {
                    o.iter().map(|(k, c)| (format!("output.{k}"), c)).collect()
                }
                _ => Vec::new(),
            };
            for (name, change) in changes {
                let actions = &change["actions"];
                if actions != &serde_json::json!(["no-op"]) {
                    out.push(format!("`{name}` ({actions})"));
                }
            }
        }
        out
    }

    /// Checks the planned value at `path` of the resource at `address`
    /// (`plancheck.ExpectKnownValue`); a value only known after apply is found
    /// `(unknown)`. Numbers are compared exactly.
    ///
    /// # Errors
    ///
    /// No change for `address`, a path its schema does not have, or a value that does
    /// not match: the message names the address, the path, the expected and found value.
    pub fn expect_known(
        &self,
        address: &str,
        path: &str,
        known: &known::Known,
    ) -> Result<(), Error> {
        let at = self.change(address)?;
        let p = parse_path(path)?;
        let change = &self.json["resource_changes"][at];
        let fail = |m: known::Mismatch| Error::new(format!("`{address}` {}", inside(path, &m)));
        let value = if marked(&change["change"]["after_unknown"], &p) {
            Value::Unknown(tfvalue::Refinements::default())
        } else {
            let schemas = self.schemas.as_ref().map_err(Clone::clone)?;
            let type_name = change["type"].as_str().unwrap_or("");
            let schema = schemas
                .provider_schemas
                .values()
                .find_map(|s| {
                    if change["mode"] == "data" {
                        s.data_source(type_name)
                    } else {
                        s.resource(type_name)
                    }
                })
                .ok_or_else(|| Error::new(format!("no schema for `{type_name}`")))?;
            let ty = type_at(&schema.implied_type(), &p).ok_or_else(|| {
                Error::new(format!(
                    "`{address}`: the schema of `{type_name}` has no `{path}`"
                ))
            })?;
            let mut raw = vec![
                Seg::Key("resource_changes"),
                Seg::Index(at),
                Seg::Key("change"),
                Seg::Key("after"),
            ];
            raw.extend(segs(&p));
            let text = raw_at(&self.json.text, &raw).unwrap_or("null");
            Value::from_json(text, &ty)
                .map_err(|e| Error::new(format!("`{address}` at `{path}` does not decode: {e}")))?
        };
        known.check(&value).map_err(fail)
    }

    /// Checks that the value at `path` of the resource at `address` is known only after
    /// apply (`plancheck.ExpectUnknownValue`).
    ///
    /// # Errors
    ///
    /// No change for `address`, or a value known in the plan.
    pub fn expect_unknown(&self, address: &str, path: &str) -> Result<(), Error> {
        self.expect_mark(address, path, "after_unknown", "unknown until apply")
    }

    /// Checks that the planned value at `path` of the resource at `address` is
    /// sensitive (`plancheck.ExpectSensitiveValue`).
    ///
    /// # Errors
    ///
    /// No change for `address`, or a value that is not sensitive.
    pub fn expect_sensitive(&self, address: &str, path: &str) -> Result<(), Error> {
        self.expect_mark(address, path, "after_sensitive", "sensitive")
    }

    fn expect_mark(&self, address: &str, path: &str, marks: &str, what: &str) -> Result<(), Error> {
        let at = self.change(address)?;
        let p = parse_path(path)?;
        if marked(&self.json["resource_changes"][at]["change"][marks], &p) {
            Ok(())
        } else {
            Err(Error::new(format!(
                "`{address}` at `{path}`: expected a value {what}, found one that is not"
            )))
        }
    }
}

// ---------------------------------------------------------------------------------------
// The state

/// The state a step left (Terraform's state file), for checks.
///
/// Resources are found by address: `type.name`, `type.name[0]`, `type.name["key"]`,
/// `data.type.name`, with a `module.<name>.` prefix inside modules.
pub struct State<'a> {
    json: Parsed,
    schemas: &'a dyn Fn() -> Result<ProviderSchemas, Error>,
}

/// A JSON document Terraform wrote, parsed, with its text: values are read from the
/// text, so that numbers stay exact.
struct Parsed {
    json: serde_json::Value,
    text: String,
}

impl From<(serde_json::Value, String)> for Parsed {
    fn from((json, text): (serde_json::Value, String)) -> Self {
        Parsed { json, text }
    }
}

impl From<serde_json::Value> for Parsed {
    fn from(json: serde_json::Value) -> Self {
        let text = json.to_string();
        Parsed { json, text }
    }
}

impl std::ops::Deref for Parsed {
    type Target = serde_json::Value;
    fn deref(&self) -> &serde_json::Value {
        &self.json
    }
}

/// One step into a JSON document.
enum Seg<'s> {
    Key(&'s str),
    Index(usize),
}

/// The JSON text at `path` inside `text`, as written (numbers exact).
fn raw_at<'t>(text: &'t str, path: &[Seg<'_>]) -> Option<&'t str> {
    use serde_json::value::RawValue;
    let mut here: &'t RawValue = serde_json::from_str(text).ok()?;
    for seg in path {
        here = match seg {
            Seg::Key(k) => {
                let m: BTreeMap<String, &'t RawValue> = serde_json::from_str(here.get()).ok()?;
                *m.get(*k)?
            }
            Seg::Index(i) => {
                let v: Vec<&'t RawValue> = serde_json::from_str(here.get()).ok()?;
                *v.get(*i)?
            }
        };
    }
    Some(here.get())
}

/// A mismatch inside the value at `path`, its own path joined to it.
fn inside(path: &str, m: &known::Mismatch) -> String {
    let inner = m.path.to_string();
    let sep = if path.is_empty() || inner.is_empty() || inner.starts_with('[') {
        ""
    } else {
        "."
    };
    let full = format!("{path}{sep}{inner}");
    if full.is_empty() {
        format!("expected {}, found {}", m.expected, m.found)
    } else {
        format!("at {full}: expected {}, found {}", m.expected, m.found)
    }
}

fn parse_path(path: &str) -> Result<tfvalue::AttributePath, Error> {
    path.parse()
        .map_err(|e| Error::new(format!("the path `{path}`: {e}")))
}

/// The type at `path` inside `ty`.
fn type_at(ty: &tfvalue::Type, path: &tfvalue::AttributePath) -> Option<tfvalue::Type> {
    use tfvalue::{PathStep, Type};
    let mut t = ty.clone();
    for step in path.steps() {
        t = match (step, &t) {
            (PathStep::Attr(n) | PathStep::Key(n), Type::Object(o)) => o.get(n)?.clone(),
            (PathStep::Key(_), Type::Map(e)) => (**e).clone(),
            (PathStep::Index(_), Type::List(e) | Type::Set(e)) => (**e).clone(),
            (PathStep::Index(i), Type::Tuple(ts)) => ts.get(usize::try_from(*i).ok()?)?.clone(),
            _ => return None,
        };
    }
    Some(t)
}

/// Whether the marks of Terraform's plan JSON (`after_unknown`, `after_sensitive`: a
/// mirror of the value holding `true` where the mark is) say `path` is marked: at it or
/// at a value holding it.
fn marked(marks: &serde_json::Value, path: &tfvalue::AttributePath) -> bool {
    use tfvalue::PathStep;
    let mut m = marks;
    for step in path.steps() {
        if m == &serde_json::Value::Bool(true) {
            return true;
        }
        m = match step {
            PathStep::Attr(n) | PathStep::Key(n) => &m[n.as_str()],
            PathStep::Index(i) => &m[usize::try_from(*i).unwrap_or(usize::MAX)],
            _ => return false,
        };
    }
    m == &serde_json::Value::Bool(true)
}

fn segs(path: &tfvalue::AttributePath) -> Vec<Seg<'_>> {
    use tfvalue::PathStep;
    path.steps()
        .iter()
        .map(|s| match s {
            PathStep::Attr(n) | PathStep::Key(n) => Seg::Key(n.as_str()),
            PathStep::Index(i) => Seg::Index(usize::try_from(*i).unwrap_or(usize::MAX)),
            // A step this version does not know leads nowhere.
            _ => Seg::Index(usize::MAX),
        })
        .collect()
}

/// The value at `path` inside `v`, or a message saying where the path leaves it.
fn value_at<'v>(v: &'v Value, path: &str) -> Result<&'v Value, Error> {
    let p = parse_path(path)?;
    v.get_path(&p)
        .ok_or_else(|| Error::new(format!("there is nothing at `{path}`")))
}

impl fmt::Debug for State<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("addresses", &self.addresses())
            .finish()
    }
}

/// One resource instance in the state file.
struct Instance<'j> {
    address: String,
    /// Where it is in the file: `resources[resource].instances[index]`.
    resource: usize,
    index: usize,
    mode: &'j str,
    type_name: &'j str,
    attributes: &'j serde_json::Value,
}

impl<'a> State<'a> {
    fn instances(&self) -> Vec<Instance<'_>> {
        let mut out = Vec::new();
        let Some(resources) = self.json["resources"].as_array() else {
            return out;
        };
        for (ri, r) in resources.iter().enumerate() {
            let mode = r["mode"].as_str().unwrap_or("managed");
            let type_name = r["type"].as_str().unwrap_or("");
            let mut base = String::new();
            if let Some(m) = r["module"].as_str() {
                base.push_str(m);
                base.push('.');
            }
            if mode == "data" {
                base.push_str("data.");
            }
            base.push_str(type_name);
            base.push('.');
            base.push_str(r["name"].as_str().unwrap_or(""));
            for (ii, i) in r["instances"].as_array().into_iter().flatten().enumerate() {
                let address = match &i["index_key"] {
                    serde_json::Value::Null => base.clone(),
                    serde_json::Value::String(s) => {
                        format!("{base}[{}]", serde_json::Value::from(s.as_str()))
                    }
                    other => format!("{base}[{other}]"),
                };
                out.push(Instance {
                    address,
                    resource: ri,
                    index: ii,
                    mode,
                    type_name,
                    attributes: &i["attributes"],
                });
            }
        }
        out
    }

    fn instance(&self, address: &str) -> Result<Instance<'_>, Error> {
        let all = self.instances();
        let names: Vec<String> = all.iter().map(|i| i.address.clone()).collect();
        all.into_iter()
            .find(|i| i.address == address)
            .ok_or_else(|| {
                Error::new(format!(
                    "`{address}` is not in the state (it holds {})",
                    if names.is_empty() {
                        "nothing".to_owned()
                    } else {
                        names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ))
            })
    }

    /// The address of every resource instance in the state, managed and data.
    pub fn addresses(&self) -> Vec<String> {
        self.instances().into_iter().map(|i| i.address).collect()
    }

    /// Whether the state holds no managed resource instance.
    pub fn is_empty(&self) -> bool {
        self.instances().iter().all(|i| i.mode != "managed")
    }

    /// Whether the state holds a resource instance at `address`.
    pub fn contains(&self, address: &str) -> bool {
        self.instances().iter().any(|i| i.address == address)
    }

    /// The resource at `address`, decoded into a model (a `#[derive(TfValue)]` struct,
    /// or anything else that reads tfvalue's JSON).
    ///
    /// # Errors
    ///
    /// No resource at `address`, or one whose attributes do not decode as `M` (the
    /// message names the attribute).
    pub fn resource<M: DeserializeOwned>(&self, address: &str) -> Result<M, Error> {
        let i = self.instance(address)?;
        let bytes = serde_json::to_vec(i.attributes).map_err(|e| Error::new(e.to_string()))?;
        tfvalue::json::from_slice(&bytes)
            .map_err(|e| Error::new(format!("`{address}` does not decode: {e}")))
    }

    /// The resource at `address` as a [`Value`] of its schema's type (the provider's
    /// schema is read with `terraform providers schema -json` the first time it is
    /// needed).
    ///
    /// # Errors
    ///
    /// No resource at `address`, no schema for its type, or attributes that do not fit
    /// it.
    pub fn value(&self, address: &str) -> Result<Value, Error> {
        let i = self.instance(address)?;
        let schemas = (self.schemas)()?;
        let schema = schemas
            .provider_schemas
            .values()
            .find_map(|p| {
                if i.mode == "data" {
                    p.data_source(i.type_name)
                } else {
                    p.resource(i.type_name)
                }
            })
            .ok_or_else(|| Error::new(format!("no schema for `{}`", i.type_name)))?;
        let path = [
            Seg::Key("resources"),
            Seg::Index(i.resource),
            Seg::Key("instances"),
            Seg::Index(i.index),
            Seg::Key("attributes"),
        ];
        let text = raw_at(&self.json.text, &path).unwrap_or("null");
        Value::from_json(text, &schema.implied_type())
            .map_err(|e| Error::new(format!("`{address}` does not decode: {e}")))
    }

    /// Checks the value at `path` (`tags["env"]`, `rule[0].priority`; empty: the whole
    /// resource) of the resource at `address` (terraform-plugin-testing's
    /// `statecheck.ExpectKnownValue`). Numbers are compared exactly.
    ///
    /// # Errors
    ///
    /// No such resource or path, or a value that does not match: the message names the
    /// address, the path, what was expected and what was found.
    pub fn expect(&self, address: &str, path: &str, known: &known::Known) -> Result<(), Error> {
        let v = self.value(address)?;
        let at = value_at(&v, path).map_err(|e| Error::new(format!("`{address}`: {e}")))?;
        known
            .check(at)
            .map_err(|m| Error::new(format!("`{address}` {}", inside(path, &m))))
    }

    /// Checks the root module's output `name` (`statecheck.ExpectKnownOutputValue`).
    ///
    /// # Errors
    ///
    /// No such output, or a value that does not match.
    pub fn expect_output(&self, name: &str, known: &known::Known) -> Result<(), Error> {
        let v = self.output(name)?;
        known
            .check(&v)
            .map_err(|m| Error::new(format!("output `{name}`: {m}")))
    }

    /// The root module's output `name` as a [`Value`] of its type.
    ///
    /// # Errors
    ///
    /// No such output, or one that does not decode.
    pub fn output(&self, name: &str) -> Result<Value, Error> {
        let o = &self.json["outputs"][name];
        if o.is_null() {
            return Err(Error::new(format!("no output `{name}` in the state")));
        }
        let ty: tfvalue::Type = serde_json::from_value(o["type"].clone())
            .map_err(|e| Error::new(format!("output `{name}`: {e}")))?;
        let path = [Seg::Key("outputs"), Seg::Key(name), Seg::Key("value")];
        let text = raw_at(&self.json.text, &path).unwrap_or("null");
        Value::from_json(text, &ty)
            .map_err(|e| Error::new(format!("output `{name}` does not decode: {e}")))
    }

    /// The state file as Terraform wrote it (format version 4).
    pub fn json(&self) -> &serde_json::Value {
        &self.json.json
    }
}

// ---------------------------------------------------------------------------------------
// The case

/// An acceptance test: a provider, steps, and what must hold after the destroy at the
/// end. See [the module's documentation](self).
pub struct TestCase {
    provider: ProviderBinary,
    source: Option<String>,
    version: String,
    protocol: Option<u32>,
    env: Vec<(OsString, OsString)>,
    steps: Vec<Step>,
    check_destroy: Option<Check>,
    timeout: Duration,
    dir: TempDir,
    versions: Versions,
}

impl fmt::Debug for TestCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestCase")
            .field("provider", &self.provider)
            .field("source", &self.source)
            .field("protocol", &self.protocol)
            .field("steps", &self.steps.len())
            .field("dir", &self.dir.0)
            .finish()
    }
}

/// A directory removed on drop (unless [`KEEP_ENV`] is set).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "tfvalue-testing-{}-{n}-{nanos:x}",
            std::process::id()
        ));
        // A failure shows when the case writes its first file, with the path.
        let _ = std::fs::create_dir_all(&path);
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os(KEEP_ENV).is_some() {
            println!("kept {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl TestCase {
    /// A case for this provider, with no steps yet, and a fresh temporary directory
    /// ([`TestCase::dir`]).
    pub fn new(provider: ProviderBinary) -> Self {
        TestCase {
            provider,
            source: None,
            version: "0.1.0".to_owned(),
            protocol: None,
            env: Vec::new(),
            steps: Vec::new(),
            check_destroy: None,
            timeout: Duration::from_secs(600),
            dir: TempDir::new(),
            versions: Versions::default(),
        }
    }

    /// The case's temporary directory, removed at the end: put what the provider's
    /// "cloud" needs here (the working directories are `work/` and `import-<n>/` in it).
    pub fn dir(&self) -> &Path {
        &self.dir.0
    }

    /// The case's working directory (`work/` in [`TestCase::dir`]), where configuration
    /// steps run and Terraform keeps its state file (`terraform.tfstate`): a
    /// [`before`](ConfigStep::before) hook may write an old state there to test a state
    /// upgrade.
    pub fn work_dir(&self) -> PathBuf {
        self.dir.0.join("work")
    }

    /// The provider's source address (`example.com/acme/thing`); its last part is the
    /// provider's name, which prefixes its resource types. Default:
    /// `example.com/test/<name>`, the name coming from the binary's name.
    #[must_use]
    pub fn source(mut self, address: impl Into<String>) -> Self {
        self.source = Some(address.into());
        self
    }

    /// The version the provider is installed as (default `0.1.0`).
    #[must_use]
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Runs the provider over this protocol version (5 or 6): sets the provider's
    /// [`protocol_env`](ProviderBinary::protocol_env) variable to it, and checks in
    /// Terraform's log that every command talked to the provider over it.
    #[must_use]
    pub fn protocol(mut self, version: u32) -> Self {
        self.protocol = Some(version);
        self
    }

    /// Sets an environment variable for every Terraform command (and so for the provider
    /// they start).
    #[must_use]
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Skips the case (printing why) with a Terraform older than `version` (`1.8`), as
    /// plugin-testing's `tfversion.SkipBelow`: the feature under test needs it.
    ///
    /// # Panics
    ///
    /// `version` is not a version.
    #[must_use]
    pub fn skip_below(mut self, version: &str) -> Self {
        self.versions.below = Some(version_spec(version));
        self
    }

    /// Skips the case (printing why) with a Terraform newer than `version`.
    ///
    /// # Panics
    ///
    /// `version` is not a version.
    #[must_use]
    pub fn skip_above(mut self, version: &str) -> Self {
        self.versions.above = Some(version_spec(version));
        self
    }

    /// Adds a step.
    #[must_use]
    pub fn step(mut self, step: impl Into<Step>) -> Self {
        self.steps.push(step.into());
        self
    }

    /// Adds a check run after the destroy at the end (and after the check that no
    /// managed resource is left in the state): that the real objects are gone. It gets
    /// the state from before the destroy, to look them up.
    #[must_use]
    pub fn check_destroy(mut self, f: impl FnOnce(&State) -> CheckResult + 'static) -> Self {
        self.check_destroy = Some(Box::new(f));
        self
    }

    /// The longest any one Terraform command may take (default 10 minutes); one that
    /// takes longer is killed and fails the case.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Runs the case, panicking with the failure's message if it fails (for `#[test]`
    /// functions). Without [`TERRAFORM_ENV`], prints why it is skipped and returns.
    #[track_caller]
    pub fn run(self) {
        self.run_with(TERRAFORM_ENV);
    }

    /// Runs the case with the Terraform that `env` names, panicking on failure.
    #[track_caller]
    fn run_with(self, env: &str) {
        match self.try_run_with(std::env::var_os(env), env) {
            Ok(_) => {}
            // Reporting a failure is this function's purpose.
            #[allow(clippy::panic)]
            Err(e) => panic!("{e}"),
        }
    }

    /// Runs the case, and says how it ended.
    ///
    /// # Errors
    ///
    /// The first step that failed (or the destroy at the end), with the output of the
    /// Terraform command concerned. A panic in a check or hook is resumed after the
    /// destroy at the end.
    pub fn try_run(self) -> Result<Outcome, Error> {
        self.try_run_with(std::env::var_os(TERRAFORM_ENV), TERRAFORM_ENV)
    }

    /// [`TestCase::run`] with the Terraform that [`TERRAFORM_LATEST_ENV`]
    /// (`TFVALUE_TERRAFORM_LATEST`) names, for what older Terraforms cannot do; without
    /// it, prints why it is skipped and returns.
    #[track_caller]
    pub fn run_latest(self) {
        self.run_with(TERRAFORM_LATEST_ENV);
    }

    /// Runs the case `make` builds once with each Terraform named by
    /// [`TERRAFORM_ENV`] and [`TERRAFORM_LATEST_ENV`] (the same binary once), each
    /// within the case's own version checks; prints a skip for each one unset.
    ///
    /// # Panics
    ///
    /// A run fails (the message says with which Terraform).
    pub fn run_each(make: impl Fn() -> TestCase) {
        let mut seen: Vec<PathBuf> = Vec::new();
        for env in [TERRAFORM_ENV, TERRAFORM_LATEST_ENV] {
            let terraform = std::env::var_os(env).filter(|t| !t.is_empty());
            if let Some(t) = &terraform {
                let t = PathBuf::from(t);
                let t = t.canonicalize().unwrap_or(t);
                if seen.contains(&t) {
                    continue;
                }
                seen.push(t);
            }
            match make().try_run_with(terraform, env) {
                Ok(_) => {}
                // Reporting a failure is this function's purpose.
                #[allow(clippy::panic)]
                Err(e) => panic!("with {env}: {e}"),
            }
        }
    }

    fn try_run_with(self, terraform: Option<OsString>, env: &str) -> Result<Outcome, Error> {
        let Some(terraform) = terraform.filter(|t| !t.is_empty()) else {
            let reason = format!(
                "{env} is not set (the path of a Terraform binary to run the \
                 acceptance tests with)"
            );
            println!("skipped: {reason}");
            return Ok(Outcome::Skipped(reason));
        };
        let terraform = PathBuf::from(terraform);
        let version = terraform_version(&terraform)?;
        if let Some(reason) = self.versions.skip(version) {
            println!("skipped: {reason}");
            return Ok(Outcome::Skipped(reason));
        }
        let mut runner = Runner::new(terraform, &self)?;
        runner.terraform_version = version;
        let TestCase {
            steps,
            check_destroy,
            ..
        } = self;
        let started = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| runner.steps(steps)));
        let destroyed = catch_unwind(AssertUnwindSafe(|| runner.destroy(check_destroy)));
        println!("case finished in {:.1?}", started.elapsed());
        let result = match result {
            Ok(r) => r,
            Err(panic) => {
                if let Ok(Err(e)) = destroyed {
                    println!("{e}");
                }
                resume_unwind(panic)
            }
        };
        let destroyed = match destroyed {
            Ok(r) => r,
            Err(panic) => {
                if let Err(e) = result {
                    println!("{e}");
                }
                resume_unwind(panic)
            }
        };
        match (result, destroyed) {
            (Err(e), Err(d)) => Err(Error::new(format!(
                "{e}\n\nand then the destroy at the end failed too: {d}"
            ))),
            (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
            (Ok(()), Ok(())) => Ok(Outcome::Passed),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Running

/// One Terraform command's result.
struct Run {
    command: String,
    code: Option<i32>,
    /// Standard output, then standard error.
    output: String,
    stdout: String,
}

impl Run {
    fn failed(&self, what: impl fmt::Display) -> Error {
        Error::new(format!(
            "{what}\n--- `{}` ({}):\n{}",
            self.command,
            exit_text(self.code),
            self.output.trim_end()
        ))
    }
}

fn exit_text(code: Option<i32>) -> String {
    match code {
        Some(c) => format!("exit code {c}"),
        None => "killed".to_owned(),
    }
}

struct Runner {
    terraform: PathBuf,
    root: PathBuf,
    work: PathBuf,
    cli_config: PathBuf,
    log: PathBuf,
    source: String,
    version: String,
    protocol: Option<u32>,
    env: Vec<(OsString, OsString)>,
    timeout: Duration,
    /// The last configuration that applied or planned, with its step's environment, for
    /// the destroy at the end and for imports.
    good_config: Option<(String, Vec<(OsString, OsString)>)>,
    /// Whether `terraform init` has run in `work`.
    initialized: bool,
    step: usize,
    step_name: String,
    schemas: OnceLock<Result<ProviderSchemas, Error>>,
    /// How many provider starts the log showed with the protocol version asked for.
    protocol_seen: std::cell::Cell<usize>,
    terraform_version: TerraformVersion,
}

impl Runner {
    fn new(terraform: PathBuf, case: &TestCase) -> Result<Runner, Error> {
        if !terraform.is_file() {
            return Err(Error::new(format!(
                "{TERRAFORM_ENV} names {}, which is not a file",
                terraform.display()
            )));
        }
        let name = case.provider.default_name();
        let source = case
            .source
            .clone()
            .unwrap_or_else(|| format!("example.com/test/{name}"));
        let type_name = source.rsplit('/').next().unwrap_or(&name).to_owned();
        let binary = case.provider.build()?;
        let root = case.dir().to_path_buf();
        let io = |what: &str, e: std::io::Error| Error::new(format!("{what}: {e}"));
        let plugin_dir = root
            .join("mirror")
            .join(&source)
            .join(&case.version)
            .join(platform());
        std::fs::create_dir_all(&plugin_dir)
            .map_err(|e| io(&format!("cannot create {}", plugin_dir.display()), e))?;
        let installed = plugin_dir.join(format!(
            "terraform-provider-{type_name}_v{}{}",
            case.version,
            std::env::consts::EXE_SUFFIX
        ));
        std::fs::copy(&binary, &installed)
            .map_err(|e| io(&format!("cannot copy {}", binary.display()), e))?;
        let cli_config = root.join("cli.tfrc");
        std::fs::write(
            &cli_config,
            format!(
                "provider_installation {{\n  filesystem_mirror {{\n    path    = {}\n    include = [{}]\n  }}\n}}\n",
                hcl_string(&root.join("mirror").to_string_lossy()),
                hcl_string(&source),
            ),
        )
        .map_err(|e| io("cannot write the CLI configuration", e))?;
        let work = case.work_dir();
        std::fs::create_dir_all(&work).map_err(|e| io("cannot create the working directory", e))?;
        let mut env = case.env.clone();
        if let Some(p) = case.protocol {
            if p != 5 && p != 6 {
                return Err(Error::new(format!(
                    "protocol version {p}: Terraform speaks 5 and 6"
                )));
            }
            if let Some(var) = &case.provider.protocol_env {
                env.push((var.into(), p.to_string().into()));
            }
        }
        println!(
            "case in {} with {}, provider {source} from {}",
            root.display(),
            terraform.display(),
            binary.display()
        );
        Ok(Runner {
            terraform,
            log: root.join("terraform.log"),
            root,
            work,
            cli_config,
            source,
            version: case.version.clone(),
            protocol: case.protocol,
            env,
            timeout: case.timeout,
            good_config: None,
            initialized: false,
            step: 0,
            step_name: String::new(),
            schemas: OnceLock::new(),
            protocol_seen: std::cell::Cell::new(0),
            terraform_version: TerraformVersion {
                major: 0,
                minor: 0,
                patch: 0,
            },
        })
    }

    fn where_(&self) -> String {
        if self.step == 0 {
            "the destroy at the end".to_owned()
        } else {
            format!("step {} ({})", self.step, self.step_name)
        }
    }

    /// Runs `terraform <args>` in `dir`.
    fn terraform(
        &self,
        dir: &Path,
        args: &[&str],
        extra: &[(OsString, OsString)],
    ) -> Result<Run, Error> {
        let command = format!("terraform {}", args.join(" "));
        let mut cmd = Command::new(&self.terraform);
        cmd.args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, _) in std::env::vars_os() {
            let k_str = k.to_string_lossy();
            if k_str.starts_with("TF_CLI_ARGS") || k_str.starts_with("TF_LOG") {
                cmd.env_remove(&k);
            }
        }
        for k in [
            "TF_REATTACH_PROVIDERS",
            "TF_WORKSPACE",
            "TF_DATA_DIR",
            "TF_PLUGIN_CACHE_DIR",
        ] {
            cmd.env_remove(k);
        }
        cmd.env("CHECKPOINT_DISABLE", "1")
            .env("TF_IN_AUTOMATION", "1")
            .env("TF_INPUT", "0")
            .env("TF_CLI_CONFIG_FILE", &self.cli_config);
        if self.protocol.is_some() {
            // The log says which protocol version each provider start negotiated.
            let _ = std::fs::remove_file(&self.log);
            cmd.env("TF_LOG", "DEBUG").env("TF_LOG_PATH", &self.log);
        }
        for (k, v) in self.env.iter().chain(extra) {
            cmd.env(k, v);
        }
        let started = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| Error::new(format!("cannot run `{command}`: {e}")))?;
        let mut pipes = Vec::new();
        if let Some(mut out) = child.stdout.take() {
            pipes.push(std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = out.read_to_end(&mut buf);
                buf
            }));
        }
        if let Some(mut err) = child.stderr.take() {
            pipes.push(std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = err.read_to_end(&mut buf);
                buf
            }));
        }
        let code = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status.code(),
                Ok(None) if started.elapsed() > self.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(Error::new(format!("waiting for `{command}`: {e}"))),
            }
        };
        let mut output = String::new();
        let mut stdout = String::new();
        for (i, p) in pipes.into_iter().enumerate() {
            let bytes = p.join().unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            if i == 0 {
                stdout = text.clone().into_owned();
            }
            if !output.is_empty() && !text.is_empty() && !output.ends_with('\n') {
                output.push('\n');
            }
            output.push_str(&text);
        }
        if code.is_none() {
            output.push_str(&format!("\n(killed after {:?})", self.timeout));
        }
        println!(
            "--- {}: `{command}` in {} -> {} ({:.1?})\n{}",
            self.where_(),
            dir.strip_prefix(&self.root).unwrap_or(dir).display(),
            exit_text(code),
            started.elapsed(),
            output.trim_end()
        );
        let run = Run {
            command,
            code,
            output,
            stdout,
        };
        if code.is_some() {
            self.check_protocol(&run)?;
        }
        Ok(run)
    }

    /// Checks, from Terraform's log, that every start of the provider negotiated the
    /// protocol version asked for.
    fn check_protocol(&self, run: &Run) -> Result<(), Error> {
        let Some(want) = self.protocol else {
            return Ok(());
        };
        let Ok(log) = std::fs::read_to_string(&self.log) else {
            return Ok(());
        };
        for line in log.lines() {
            // go-plugin: `plugin: using plugin: version=6` once per provider start.
            let Some(rest) = line.split("using plugin: version=").nth(1) else {
                continue;
            };
            let got: u32 = rest.trim().parse().unwrap_or(0);
            if got == want {
                self.protocol_seen.set(self.protocol_seen.get() + 1);
            } else {
                return Err(run.failed(format!(
                    "{}: Terraform talked to the provider over protocol {got}, but the case \
                     asked for protocol {want}",
                    self.where_()
                )));
            }
        }
        Ok(())
    }

    fn type_name(&self) -> &str {
        self.source.rsplit('/').next().unwrap_or("")
    }

    /// Writes a configuration into `dir`, with the `required_providers` block unless it
    /// has its own.
    fn write_config(&self, dir: &Path, hcl: &str) -> Result<(), Error> {
        let io =
            |e: std::io::Error| Error::new(format!("cannot write into {}: {e}", dir.display()));
        std::fs::create_dir_all(dir).map_err(io)?;
        std::fs::write(dir.join("main.tf"), hcl).map_err(io)?;
        let providers = dir.join("providers.tf");
        if hcl.contains("required_providers") {
            let _ = std::fs::remove_file(providers);
        } else {
            std::fs::write(
                providers,
                format!(
                    "terraform {{\n  required_providers {{\n    {} = {{\n      source  = {}\n      version = {}\n    }}\n  }}\n}}\n",
                    self.type_name(),
                    hcl_string(&self.source),
                    hcl_string(&self.version)
                ),
            )
            .map_err(io)?;
        }
        Ok(())
    }

    /// The state file in `dir`, parsed, and its text (for exact numbers).
    fn read_state_json(dir: &Path) -> Result<(serde_json::Value, String), Error> {
        match std::fs::read_to_string(dir.join("terraform.tfstate")) {
            Ok(text) => serde_json::from_str(&text)
                .map(|json| (json, text))
                .map_err(|e| Error::new(format!("the state file does not parse: {e}"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let json = serde_json::json!({ "version": 4, "resources": [] });
                Ok((json.clone(), json.to_string()))
            }
            Err(e) => Err(Error::new(format!("cannot read the state file: {e}"))),
        }
    }

    fn fetch_schemas(&self) -> Result<ProviderSchemas, Error> {
        self.schemas
            .get_or_init(|| {
                let run = self.terraform(&self.work, &["providers", "schema", "-json"], &[])?;
                if run.code != Some(0) {
                    return Err(run.failed("cannot read the provider's schema"));
                }
                ProviderSchemas::from_json(run.stdout.as_bytes())
                    .map_err(|e| Error::new(format!("the provider's schema: {e}")))
            })
            .clone()
    }

    /// Runs the checks on the state in `dir`.
    fn checks(&self, checks: Vec<Check>, dir: &Path) -> Result<(), Error> {
        if checks.is_empty() {
            return Ok(());
        }
        let fetch = || self.fetch_schemas();
        let state = State {
            json: Runner::read_state_json(dir)?.into(),
            schemas: &fetch,
        };
        for (i, check) in checks.into_iter().enumerate() {
            if let Err(e) = check(&state) {
                return Err(Error::new(format!(
                    "{}: check {} failed: {e}",
                    self.where_(),
                    i + 1
                )));
            }
        }
        Ok(())
    }

    /// Reads the plan saved at `file` and runs the checks on it.
    fn plan_checks(
        &self,
        checks: Vec<PlanCheck>,
        file: &Path,
        env: &[(OsString, OsString)],
    ) -> Result<(), Error> {
        let path = file.to_string_lossy();
        let shown = self.terraform(&self.work, &["show", "-json", &path], env)?;
        if shown.code != Some(0) {
            return Err(shown.failed(format!("{}: cannot show the plan", self.where_())));
        }
        let json: serde_json::Value = serde_json::from_str(&shown.stdout).map_err(|e| {
            shown.failed(format!(
                "{}: the plan's JSON does not parse: {e}",
                self.where_()
            ))
        })?;
        let text = self.terraform(&self.work, &["show", "-no-color", &path], env)?;
        if text.code != Some(0) {
            return Err(text.failed(format!("{}: cannot show the plan", self.where_())));
        }
        let plan = Plan {
            path: file.to_path_buf(),
            json: (json, shown.stdout).into(),
            text: text.stdout,
            schemas: self.fetch_schemas(),
        };
        for (i, check) in checks.into_iter().enumerate() {
            if let Err(e) = check(&plan) {
                return Err(Error::new(format!(
                    "{}: plan check {} failed: {e}\n--- the plan:\n{}",
                    self.where_(),
                    i + 1,
                    plan.text.trim_end()
                )));
            }
        }
        Ok(())
    }

    /// Whether a failed command was the error the step expected.
    fn expected_error(&self, run: &Run, pattern: &Option<String>) -> Result<bool, Error> {
        let Some(source) = pattern else {
            return Ok(false);
        };
        let p = Pattern::new(source)
            .map_err(|e| Error::new(format!("{}: expect_error: {e}", self.where_())))?;
        if p.is_match(&run.output) || p.is_match(&unwrapped(&run.output)) {
            Ok(true)
        } else {
            Err(run.failed(format!(
                "{}: the error does not match `{source}`",
                self.where_()
            )))
        }
    }

    fn init(&self, dir: &Path, env: &[(OsString, OsString)]) -> Result<Option<Run>, Error> {
        let run = self.terraform(dir, &["init", "-no-color"], env)?;
        if run.code == Some(0) {
            Ok(None)
        } else {
            Ok(Some(run))
        }
    }

    fn steps(&mut self, steps: Vec<Step>) -> Result<(), Error> {
        for (i, step) in steps.into_iter().enumerate() {
            self.step = i + 1;
            self.step_name = step.describe();
            let Step { kind, common } = step;
            if let Some(reason) = common.versions.skip(self.terraform_version) {
                println!("step {} ({}) skipped: {reason}", self.step, self.step_name);
                continue;
            }
            for hook in common.before {
                hook();
            }
            match kind {
                StepKind::Config(o) => {
                    self.config_step(o, common.checks, &common.expect_error, common.env)?;
                }
                StepKind::Refresh { non_empty_plan } => {
                    self.refresh_step(
                        non_empty_plan,
                        common.checks,
                        &common.expect_error,
                        &common.env,
                    )?;
                }
                StepKind::Import(o) => {
                    self.import_step(o, common.checks, &common.expect_error, &common.env)?;
                }
            }
        }
        self.step = 0;
        Ok(())
    }

    /// A command that must fail as expected or succeed as `ok` says; `Ok(true)` when it
    /// failed as expected (the step then ends after its checks).
    fn expect(&self, run: &Run, expect_error: &Option<String>, ok: &[i32]) -> Result<bool, Error> {
        match run.code {
            Some(c) if ok.contains(&c) => {
                if let Some(p) = expect_error {
                    Err(run.failed(format!(
                        "{}: expected an error matching `{p}`, but `{}` succeeded",
                        self.where_(),
                        run.command
                    )))
                } else {
                    Ok(false)
                }
            }
            _ => {
                if self.expected_error(run, expect_error)? {
                    Ok(true)
                } else {
                    Err(run.failed(format!("{}: `{}` failed", self.where_(), run.command)))
                }
            }
        }
    }

    /// `plan -detailed-exitcode` after a step: no changes, or changes if `non_empty`.
    fn plan_after(
        &self,
        non_empty: bool,
        env: &[(OsString, OsString)],
        what: &str,
    ) -> Result<(), Error> {
        let run = self.terraform(
            &self.work,
            &["plan", "-no-color", "-detailed-exitcode"],
            env,
        )?;
        match (run.code, non_empty) {
            (Some(0), false) | (Some(2), true) => Ok(()),
            (Some(0), true) => Err(run.failed(format!(
                "{}: expected a plan with changes {what}, but it had none",
                self.where_()
            ))),
            (Some(2), false) => {
                Err(run.failed(format!("{}: {what}, the plan was not empty", self.where_())))
            }
            _ => Err(run.failed(format!("{}: the plan {what} failed", self.where_()))),
        }
    }

    fn config_step(
        &mut self,
        o: ConfigOptions,
        checks: Vec<Check>,
        expect_error: &Option<String>,
        env: Vec<(OsString, OsString)>,
    ) -> Result<(), Error> {
        let ConfigOptions {
            hcl,
            plan_only,
            non_empty_plan,
            taint,
            replace,
            plan_checks,
        } = o;
        let hcl = hcl.as_str();
        let work = self.work.clone();
        self.write_config(&work, hcl)?;
        if !self.initialized {
            if let Some(failed) = self.init(&work, &env)? {
                self.expect(&failed, expect_error, &[0])?;
                return self.checks(checks, &work);
            }
            self.initialized = true;
        }
        let plan_file = self.root.join(format!("step-{}.tfplan", self.step));
        let out = format!("-out={}", plan_file.display());
        if plan_only {
            let mut args = vec!["plan", "-no-color", "-detailed-exitcode"];
            if !plan_checks.is_empty() {
                args.push(&out);
            }
            let run = self.terraform(&work, &args, &env)?;
            if self.expect(&run, expect_error, &[0, 2])? {
                return self.checks(checks, &work);
            }
            if !plan_checks.is_empty() {
                self.plan_checks(plan_checks, &plan_file, &env)?;
            }
            self.good_config = Some((hcl.to_owned(), env));
            match (run.code, non_empty_plan) {
                (Some(0), false) | (Some(2), true) => {}
                (Some(0), true) => {
                    return Err(run.failed(format!(
                        "{}: expected a plan with changes, but it had none",
                        self.where_()
                    )))
                }
                _ => {
                    return Err(run.failed(format!(
                        "{}: expected a plan with no changes",
                        self.where_()
                    )))
                }
            }
            return self.checks(checks, &work);
        }
        for address in &taint {
            let run = self.terraform(&work, &["taint", "-no-color", address], &env)?;
            if run.code != Some(0) {
                return Err(run.failed(format!("{}: `terraform taint` failed", self.where_())));
            }
        }
        let replace: Vec<String> = replace.iter().map(|a| format!("-replace={a}")).collect();
        let plan_path = plan_file.to_string_lossy().into_owned();
        let run = if plan_checks.is_empty() {
            let mut args = vec!["apply", "-no-color", "-auto-approve"];
            args.extend(replace.iter().map(String::as_str));
            self.terraform(&work, &args, &env)?
        } else {
            let mut args = vec!["plan", "-no-color", &out];
            args.extend(replace.iter().map(String::as_str));
            let run = self.terraform(&work, &args, &env)?;
            if self.expect(&run, expect_error, &[0])? {
                return self.checks(checks, &work);
            }
            self.plan_checks(plan_checks, &plan_file, &env)?;
            self.terraform(&work, &["apply", "-no-color", &plan_path], &env)?
        };
        if self.expect(&run, expect_error, &[0])? {
            return self.checks(checks, &work);
        }
        self.good_config = Some((hcl.to_owned(), env.clone()));
        self.checks(checks, &work)?;
        self.plan_after(non_empty_plan, &env, "after applying this step")
    }

    fn refresh_step(
        &mut self,
        non_empty_plan: bool,
        checks: Vec<Check>,
        expect_error: &Option<String>,
        env: &[(OsString, OsString)],
    ) -> Result<(), Error> {
        let work = self.work.clone();
        let env = self.step_env(env);
        let run = self.terraform(&work, &["refresh", "-no-color"], &env)?;
        if self.expect(&run, expect_error, &[0])? {
            return self.checks(checks, &work);
        }
        self.checks(checks, &work)?;
        self.plan_after(non_empty_plan, &env, "after the refresh")
    }

    /// The environment of the last good configuration, and then the step's own.
    fn step_env(&self, env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
        let mut out = self
            .good_config
            .as_ref()
            .map(|(_, e)| e.clone())
            .unwrap_or_default();
        out.extend(env.iter().cloned());
        out
    }

    fn import_step(
        &mut self,
        o: ImportOptions,
        checks: Vec<Check>,
        expect_error: &Option<String>,
        env: &[(OsString, OsString)],
    ) -> Result<(), Error> {
        let Some((hcl, _)) = self.good_config.clone() else {
            return Err(Error::new(format!(
                "{}: an import step needs a configuration step before it",
                self.where_()
            )));
        };
        let env = self.step_env(env);
        let before = Runner::read_state_json(&self.work)?;
        let fetch = || self.fetch_schemas();
        let before = State {
            json: before.into(),
            schemas: &fetch,
        };
        let applied = before
            .instance(&o.address)
            .ok()
            .map(|i| i.attributes.clone());
        let id = match &o.id {
            ImportId::Given(id) => id.clone(),
            ImportId::Attribute(name) => {
                let Some(attrs) = &applied else {
                    return Err(Error::new(format!(
                        "{}: `{}` is not in the state to take its `{name}` from; give the id with .id(..)",
                        self.where_(),
                        o.address
                    )));
                };
                match &attrs[name.as_str()] {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Number(n) => n.to_string(),
                    other => {
                        return Err(Error::new(format!(
                            "{}: the `{name}` of `{}` is {other}, not a string to import by",
                            self.where_(),
                            o.address
                        )))
                    }
                }
            }
        };
        let dir = if o.in_place {
            let run =
                self.terraform(&self.work, &["state", "rm", "-no-color", &o.address], &env)?;
            if run.code != Some(0) {
                return Err(run.failed(format!("{}: `terraform state rm` failed", self.where_())));
            }
            self.work.clone()
        } else {
            let dir = self.root.join(format!("import-{}", self.step));
            self.write_config(&dir, &hcl)?;
            if let Some(failed) = self.init(&dir, &env)? {
                return Err(failed.failed(format!("{}: `terraform init` failed", self.where_())));
            }
            dir
        };
        let run = self.terraform(&dir, &["import", "-no-color", &o.address, &id], &env)?;
        if self.expect(&run, expect_error, &[0])? {
            return self.checks(checks, &dir);
        }
        if o.verify {
            let Some(applied) = applied else {
                return Err(Error::new(format!(
                    "{}: `{}` was not in the state before the import, so there is nothing to verify against",
                    self.where_(),
                    o.address
                )));
            };
            let after = State {
                json: Runner::read_state_json(&dir)?.into(),
                schemas: &fetch,
            };
            let imported = after.instance(&o.address)?.attributes.clone();
            let diff = attribute_diff(&applied, &imported, &o.ignore);
            if !diff.is_empty() {
                return Err(run.failed(format!(
                    "{}: the imported state differs from the applied one:\n{}",
                    self.where_(),
                    diff.join("\n")
                )));
            }
        }
        self.checks(checks, &dir)
    }

    fn destroy(&mut self, check_destroy: Option<Check>) -> Result<(), Error> {
        self.step = 0;
        let work = self.work.clone();
        let fetch = || self.fetch_schemas();
        let before = State {
            json: Runner::read_state_json(&work)?.into(),
            schemas: &fetch,
        };
        if self.initialized && work.join("terraform.tfstate").exists() {
            let env = self.step_env(&[]);
            if let Some((hcl, _)) = &self.good_config {
                self.write_config(&work, hcl)?;
            }
            let run = self.terraform(&work, &["destroy", "-no-color", "-auto-approve"], &env)?;
            if run.code != Some(0) {
                return Err(run.failed("the destroy at the end failed"));
            }
            let after = State {
                json: Runner::read_state_json(&work)?.into(),
                schemas: &fetch,
            };
            if !after.is_empty() {
                return Err(run.failed(format!(
                    "the destroy at the end left {} in the state",
                    after
                        .instances()
                        .iter()
                        .filter(|i| i.mode == "managed")
                        .map(|i| format!("`{}`", i.address))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        if let Some(check) = check_destroy {
            check(&before).map_err(|e| Error::new(format!("check_destroy failed: {e}")))?;
        }
        if let Some(p) = self.protocol {
            if self.initialized && self.protocol_seen.get() == 0 {
                return Err(Error::new(format!(
                    "the case asked for protocol {p}, but Terraform's log never said which \
                     protocol it used (no `using plugin: version=` line)"
                )));
            }
        }
        Ok(())
    }
}

/// The attributes whose values differ, one line each.
fn attribute_diff(
    applied: &serde_json::Value,
    imported: &serde_json::Value,
    ignore: &[String],
) -> Vec<String> {
    let empty = serde_json::Map::new();
    let a = applied.as_object().unwrap_or(&empty);
    let b = imported.as_object().unwrap_or(&empty);
    let mut names: Vec<&String> = a.keys().chain(b.keys()).collect();
    names.sort();
    names.dedup();
    let null = serde_json::Value::Null;
    names
        .into_iter()
        .filter(|n| !ignore.iter().any(|i| i == *n))
        .filter_map(|n| {
            let (x, y) = (a.get(n).unwrap_or(&null), b.get(n).unwrap_or(&null));
            (x != y).then(|| format!("  {n}: applied {x}, imported {y}"))
        })
        .collect()
}

/// Terraform's output with the diagnostic boxes (`╷`, `│ `, `╵`) taken out and every run
/// of white space made one space.
fn unwrapped(output: &str) -> String {
    let mut out = String::with_capacity(output.len());
    for line in output.lines() {
        let line = line.trim_start();
        let line = line
            .strip_prefix('│')
            .or_else(|| line.strip_prefix('╷'))
            .or_else(|| line.strip_prefix('╵'))
            .unwrap_or(line);
        for word in line.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}

/// A string as an HCL quoted string.
fn hcl_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '$' => out.push_str("$$"),
            '%' => out.push_str("%%"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = r#"{"format_version":"1.0","provider_schemas":{"example.com/acme/kv":{
        "provider":{"version":0,"block":{}},
        "resource_schemas":{"kv_entry":{"version":0,"block":{"attributes":{
            "key":{"type":"string","required":true},
            "ttl":{"type":"number","optional":true},
            "tags":{"type":["map","string"],"optional":true,"sensitive":true},
            "rule":{"type":["list",["object",{"name":"string","priority":"number"}]],"optional":true}}}}}}}}"#;

    fn schemas() -> Result<ProviderSchemas, Error> {
        ProviderSchemas::from_json(SCHEMA.as_bytes()).map_err(|e| Error::new(e.to_string()))
    }

    /// State and plan checks read numbers exactly from the file's text, and say where,
    /// what and what was found when a value does not match.
    #[test]
    fn state_checks_match_values_exactly() {
        let text = r#"{"version":4,"outputs":{"n":{"type":"number","value":0.30000000000000000001}},
            "resources":[{"mode":"managed","type":"kv_entry","name":"a","instances":[{"attributes":
            {"key":"a","ttl":12345678901234567890.5,"tags":{"env":"prod"},
             "rule":[{"name":"r","priority":null}]}}]}]}"#;
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        let fetch = schemas;
        let state = State {
            json: (json, text.to_owned()).into(),
            schemas: &fetch,
        };
        let exact = |s: &str| known::number(s.parse::<tfvalue::Number>().unwrap());
        state
            .expect("kv_entry.a", "ttl", &exact("12345678901234567890.5"))
            .unwrap();
        let e = state
            .expect("kv_entry.a", "ttl", &exact("12345678901234567890"))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`kv_entry.a` at ttl: expected 12345678901234567890, found 12345678901234567890.5"
        );
        state
            .expect("kv_entry.a", r#"tags["env"]"#, &known::string("prod"))
            .unwrap();
        let rules = known::list([known::object([
            ("name", known::string("r")),
            ("priority", known::number(1u64)),
        ])]);
        assert_eq!(
            state
                .expect("kv_entry.a", "rule", &rules)
                .unwrap_err()
                .to_string(),
            "`kv_entry.a` at rule[0].priority: expected 1, found null"
        );
        assert_eq!(
            state
                .expect(
                    "kv_entry.a",
                    "",
                    &known::object_partial([("key", known::string("b"))])
                )
                .unwrap_err()
                .to_string(),
            r#"`kv_entry.a` at key: expected "b", found "a""#
        );
        assert_eq!(
            state
                .expect("kv_entry.a", "nope", &known::null())
                .unwrap_err()
                .to_string(),
            "`kv_entry.a`: there is nothing at `nope`"
        );
        assert!(state
            .expect("kv_entry.a", "rule[", &known::null())
            .unwrap_err()
            .to_string()
            .contains("the path `rule[`"));
        assert!(state
            .expect("kv_entry.b", "", &known::null())
            .unwrap_err()
            .to_string()
            .contains("not in the state"));
        state
            .expect_output("n", &exact("0.30000000000000000001"))
            .unwrap();
        assert_eq!(
            state
                .expect_output("n", &exact("0.3"))
                .unwrap_err()
                .to_string(),
            "output `n`: expected 0.3, found 0.30000000000000000001"
        );
    }

    #[test]
    fn plan_checks_read_known_unknown_and_sensitive_values() {
        let text = r#"{"resource_changes":[{"address":"kv_entry.a","mode":"managed","type":"kv_entry",
            "change":{"actions":["create"],"after":{"key":"a","tags":{"env":"prod"},"rule":[]},
            "after_unknown":{"ttl":true,"rule":[]},"after_sensitive":{"tags":{"env":true}}}},
            {"address":"kv_entry.b","mode":"managed","type":"kv_entry",
            "change":{"actions":["no-op"],"after":{"key":"b","ttl":1.5},"after_unknown":{},"after_sensitive":{}}}],
            "output_changes":{"x":{"actions":["no-op"]}}}"#;
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        let plan = Plan {
            path: PathBuf::new(),
            json: (json, text.to_owned()).into(),
            text: String::new(),
            schemas: schemas(),
        };
        plan.expect_known("kv_entry.a", "key", &known::string("a"))
            .unwrap();
        plan.expect_known(
            "kv_entry.b",
            "ttl",
            &known::number("1.50".parse::<tfvalue::Number>().unwrap()),
        )
        .unwrap();
        assert_eq!(
            plan.expect_known("kv_entry.a", "ttl", &known::number(3600u64))
                .unwrap_err()
                .to_string(),
            "`kv_entry.a` at ttl: expected 3600, found (unknown)"
        );
        plan.expect_unknown("kv_entry.a", "ttl").unwrap();
        assert_eq!(
            plan.expect_unknown("kv_entry.a", "key")
                .unwrap_err()
                .to_string(),
            "`kv_entry.a` at `key`: expected a value unknown until apply, found one that is not"
        );
        plan.expect_sensitive("kv_entry.a", r#"tags["env"]"#)
            .unwrap();
        assert!(plan.expect_sensitive("kv_entry.b", "key").is_err());
        assert!(plan
            .expect_known("kv_entry.a", "nope", &known::null())
            .unwrap_err()
            .to_string()
            .contains("has no `nope`"));
        assert_eq!(
            plan.expect_empty().unwrap_err().to_string(),
            r#"expected an empty plan, found `kv_entry.a` (["create"])"#
        );
        plan.expect_non_empty().unwrap();
    }

    #[test]
    fn versions_parse_and_skip_with_a_reason() {
        let v = |s: &str| s.parse::<TerraformVersion>().unwrap();
        assert_eq!(v("v1.12.0-beta1"), v("1.12"));
        assert!(v("1.10.0") > v("1.9.9") && v("1.0.3") < v("1.8"));
        for bad in ["", "1", "one.two", "1.2.3.4", "1.x"] {
            assert!(bad.parse::<TerraformVersion>().is_err(), "{bad}");
        }
        let range = Versions {
            below: Some(v("1.8")),
            above: Some(v("1.11")),
        };
        assert_eq!(
            range.skip(v("1.0.3")).as_deref(),
            Some("Terraform 1.0.3 is below 1.8.0, which this needs")
        );
        assert_eq!(range.skip(v("1.8.0")), None);
        assert_eq!(
            range.skip(v("1.11.4")).as_deref(),
            Some("Terraform 1.11.4 is above 1.11.0, the newest this runs with")
        );
        assert_eq!(Versions::default().skip(v("1.0.3")), None);
    }

    #[test]
    fn unwrapped_joins_a_wrapped_diagnostic() {
        let out = "\n╷\n│ Error: no such entry\n│ \n│   with kv_entry.e,\n│ There is no entry\n│ with key `x`.\n╵\n";
        assert_eq!(
            unwrapped(out),
            "Error: no such entry with kv_entry.e, There is no entry with key `x`."
        );
        let p = Pattern::new("no entry with key `x`").unwrap();
        assert!(!p.is_match(out));
        assert!(p.is_match(&unwrapped(out)));
    }

    #[test]
    fn hcl_strings_escape_interpolation() {
        assert_eq!(hcl_string(r#"a"b\c${x}%{y}"#), r#""a\"b\\c$${x}%%{y}""#);
    }

    #[test]
    fn default_names_come_from_the_binary() {
        assert_eq!(ProviderBinary::example("thing").default_name(), "thing");
        assert_eq!(
            ProviderBinary::bin("terraform-provider-kv").default_name(),
            "kv"
        );
        assert_eq!(
            ProviderBinary::path("/x/terraform-provider-kv_v1.2.3").default_name(),
            "kv"
        );
    }

    #[test]
    fn state_addresses_follow_terraform() {
        let json = serde_json::json!({
            "version": 4,
            "resources": [
                {"mode": "managed", "type": "kv_entry", "name": "e", "instances": [
                    {"index_key": "ü \"q\"", "attributes": {"key": "a"}},
                    {"index_key": 2, "attributes": {"key": "b"}}
                ]},
                {"module": "module.m", "mode": "data", "type": "kv_lookup", "name": "l", "instances": [
                    {"attributes": {"key": "c"}}
                ]}
            ]
        });
        let no_schema = || Err(Error::new("no schema"));
        let state = State {
            json: json.into(),
            schemas: &no_schema,
        };
        assert_eq!(
            state.addresses(),
            [
                r#"kv_entry.e["ü \"q\""]"#,
                "kv_entry.e[2]",
                "module.m.data.kv_lookup.l"
            ]
        );
        assert!(!state.is_empty());
        #[derive(serde::Deserialize)]
        struct Entry {
            key: String,
        }
        let e: Entry = state.resource("kv_entry.e[2]").unwrap();
        assert_eq!(e.key, "b");
        let missing = state.resource::<Entry>("kv_entry.f").err().unwrap();
        assert!(
            missing
                .message()
                .starts_with("`kv_entry.f` is not in the state (it holds `kv_entry.e"),
            "{missing}"
        );
        assert_eq!(
            state.value("kv_entry.e[2]").unwrap_err().message(),
            "no schema"
        );
    }

    #[test]
    fn attribute_diff_names_each_attribute() {
        let a = serde_json::json!({"id": "x", "size": 1, "password": "p"});
        let b = serde_json::json!({"id": "x", "size": 2, "password": null});
        assert_eq!(
            attribute_diff(&a, &b, &["password".to_owned()]),
            ["  size: applied 1, imported 2"]
        );
    }

    #[test]
    fn a_case_without_terraform_is_skipped() {
        let case = TestCase::new(ProviderBinary::path("/nonexistent"));
        let dir = case.dir().to_path_buf();
        assert!(dir.is_dir());
        let outcome = case
            .step(Step::config(""))
            .try_run_with(None, TERRAFORM_ENV)
            .unwrap();
        assert!(matches!(outcome, Outcome::Skipped(r) if r.contains(TERRAFORM_ENV)));
        assert!(!dir.exists(), "the temporary directory is removed");
    }
}
