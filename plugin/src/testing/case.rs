use super::*;

/// An acceptance test: a provider, steps, and what must hold after the destroy at the
/// end. See [the module's documentation](super).
pub struct TestCase {
    pub(super) provider: ProviderBinary,
    pub(super) source: Option<String>,
    pub(super) version: String,
    pub(super) protocol: Option<u32>,
    pub(super) env: Vec<(OsString, OsString)>,
    pub(super) steps: Vec<Step>,
    pub(super) check_destroy: Option<Check>,
    pub(super) timeout: Duration,
    pub(super) dir: TempDir,
    pub(super) versions: Versions,
    /// Other providers the configurations use: source address, version, provider.
    pub(super) external: Vec<(String, String, ProviderBinary)>,
    /// The Terraform binary pinned with [`TestCase::terraform`].
    pub(super) terraform: Option<PathBuf>,
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
pub(super) struct TempDir(pub(super) PathBuf);

impl TempDir {
    pub(super) fn new() -> TempDir {
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
            external: Vec::new(),
            terraform: None,
        }
    }

    /// Runs the case with this Terraform binary, whatever [`TERRAFORM_ENV`] says (for
    /// a test that loops over [`terraforms`] itself; [`TestCase::run_each`] does it for
    /// a case built anew each time). The case's version checks still apply.
    #[must_use]
    pub fn terraform(mut self, path: impl Into<PathBuf>) -> Self {
        self.terraform = Some(path.into());
        self
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

    /// Another provider the configurations use (terraform-plugin-testing's
    /// `ExternalProviders`), installed under `source` at `version` in the case's
    /// filesystem mirror (or served in process), and added to the `required_providers`
    /// block the case writes. Nothing is downloaded: give a binary (a Go provider
    /// unpacked from its release archive, [`ProviderBinary::path`]) or a target of the
    /// package.
    ///
    /// ```no_run
    /// use tfvalue_plugin::testing::{ProviderBinary, Step, TestCase};
    ///
    /// TestCase::new(ProviderBinary::example("kv"))
    ///     .external_provider(
    ///         "registry.terraform.io/hashicorp/null",
    ///         "3.2.4",
    ///         ProviderBinary::path("/opt/providers/terraform-provider-null_v3.2.4_x5"),
    ///     )
    ///     .step(Step::config(r#"resource "null_resource" "n" {}"#))
    ///     .run();
    /// ```
    #[must_use]
    pub fn external_provider(
        mut self,
        source: impl Into<String>,
        version: impl Into<String>,
        provider: ProviderBinary,
    ) -> Self {
        self.external
            .push((source.into(), version.into(), provider));
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
    pub(super) fn run_with(self, env: &str) {
        let terraform = self.terraform_or(env);
        match self.try_run_with(terraform, env) {
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
        let terraform = self.terraform_or(TERRAFORM_ENV);
        self.try_run_with(terraform, TERRAFORM_ENV)
    }

    /// The pinned Terraform ([`TestCase::terraform`]), else the one `env` names.
    fn terraform_or(&self, env: &str) -> Option<OsString> {
        (self.terraform.clone().map(Into::into)).or_else(|| std::env::var_os(env))
    }

    /// [`TestCase::run`] with the Terraform that [`TERRAFORM_LATEST_ENV`]
    /// (`TFVALUE_TERRAFORM_LATEST`) names, for what older Terraforms cannot do; without
    /// it, prints why it is skipped and returns.
    #[track_caller]
    pub fn run_latest(self) {
        self.run_with(TERRAFORM_LATEST_ENV);
    }

    /// Runs the case `make` builds once with each Terraform of [`terraforms`]
    /// ([`TERRAFORM_ENV`], [`TERRAFORM_LATEST_ENV`], the list in [`TERRAFORMS_ENV`];
    /// the same binary once), each within the case's own version checks; prints why it
    /// is skipped when none is set.
    ///
    /// # Panics
    ///
    /// A run fails (the message says with which Terraform).
    pub fn run_each(make: impl Fn() -> TestCase) {
        let terraforms = terraforms();
        if terraforms.is_empty() {
            println!(
                "skipped: none of {TERRAFORM_ENV}, {TERRAFORM_LATEST_ENV} and {TERRAFORMS_ENV} \
                 is set (the paths of Terraform binaries to run the acceptance tests with)"
            );
            return;
        }
        for terraform in terraforms {
            match make().terraform(&terraform).try_run() {
                Ok(_) => {}
                // Reporting a failure is this function's purpose.
                #[allow(clippy::panic)]
                Err(e) => panic!("with {}: {e}", terraform.display()),
            }
        }
    }

    pub(super) fn try_run_with(
        self,
        terraform: Option<OsString>,
        env: &str,
    ) -> Result<Outcome, Error> {
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
