use super::*;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum BinaryKind {
    Example(String),
    Bin(String),
    Path(PathBuf),
    InProcess(String),
}

/// Starts a provider's server inside the test process.
type Start = dyn Fn() -> Result<crate::server::Listening, crate::server::ServeError> + Send + Sync;

/// The provider under test: an example or binary of the package under test (built with
/// `cargo build`), a binary at a path, or a provider served inside the test process
/// ([`ProviderBinary::in_process`]).
#[derive(Clone)]
pub struct ProviderBinary {
    pub(super) kind: BinaryKind,
    pub(super) protocol_env: Option<String>,
    pub(super) start: Option<Arc<Start>>,
}

impl fmt::Debug for ProviderBinary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderBinary")
            .field("kind", &self.kind)
            .field("protocol_env", &self.protocol_env)
            .finish()
    }
}

impl ProviderBinary {
    /// The example `name` of the package under test (`examples/<name>.rs`); its provider
    /// name defaults to `name`.
    pub fn example(name: impl Into<String>) -> Self {
        ProviderBinary {
            kind: BinaryKind::Example(name.into()),
            protocol_env: None,
            start: None,
        }
    }

    /// The binary target `name` of the package under test; its provider name is `name`
    /// without a `terraform-provider-` prefix.
    pub fn bin(name: impl Into<String>) -> Self {
        ProviderBinary {
            kind: BinaryKind::Bin(name.into()),
            protocol_env: None,
            start: None,
        }
    }

    /// A binary built elsewhere; its provider name is the file name without a
    /// `terraform-provider-` prefix and a `_v<version>` suffix.
    pub fn path(path: impl Into<PathBuf>) -> Self {
        ProviderBinary {
            kind: BinaryKind::Path(path.into()),
            protocol_env: None,
            start: None,
        }
    }

    /// A provider served inside the test process, as terraform-plugin-testing's provider
    /// factories are: each case calls `make` once, serves what it returns on a free port
    /// of 127.0.0.1 for as long as the case runs, and hands Terraform the address through
    /// `TF_REATTACH_PROVIDERS`, so that every Terraform command of the case talks to that
    /// one server. Nothing is built or installed: a test starts faster, a debugger's
    /// breakpoints and coverage see the provider's code, and its state in memory lasts
    /// the whole case (a binary starts afresh for each command). `name` is the provider's
    /// type name, as the binary's name says it otherwise.
    ///
    /// The provider runs in the test's process: it sees the process's environment, not
    /// [`TestCase::env`] (which still reaches Terraform), and [`TestCase::protocol`]
    /// picks the protocol version Terraform attaches with.
    ///
    /// ```no_run
    /// use tfvalue_plugin::framework::Framework;
    /// use tfvalue_plugin::testing::{ProviderBinary, Step, TestCase};
    /// # fn provider() -> Framework { Framework::new() }
    ///
    /// TestCase::new(ProviderBinary::in_process("kv", provider))
    ///     .source("example.com/acme/kv")
    ///     .step(Step::config(r#"resource "kv_entry" "e" { key = "k" }"#))
    ///     .run();
    /// ```
    pub fn in_process<P, F>(name: impl Into<String>, make: F) -> Self
    where
        P: crate::Provider,
        F: Fn() -> P + Send + Sync + 'static,
    {
        ProviderBinary {
            kind: BinaryKind::InProcess(name.into()),
            protocol_env: None,
            start: Some(Arc::new(move || crate::server::start_local(make()))),
        }
    }

    /// This example or binary, served inside the test process as
    /// [`ProviderBinary::in_process`] does, unless [`BINARY_ENV`]
    /// (`TFVALUE_TESTING_BINARY`) is set: one suite runs fast in process and, in a CI job
    /// that sets it, end to end with the binary Terraform would start.
    ///
    /// ```no_run
    /// use tfvalue_plugin::framework::Framework;
    /// use tfvalue_plugin::testing::ProviderBinary;
    /// # fn provider() -> Framework { Framework::new() }
    ///
    /// let kv = ProviderBinary::example("kv").or_in_process(provider);
    /// # let _ = kv;
    /// ```
    #[must_use]
    pub fn or_in_process<P, F>(mut self, make: F) -> Self
    where
        P: crate::Provider,
        F: Fn() -> P + Send + Sync + 'static,
    {
        self.start = Some(Arc::new(move || crate::server::start_local(make())));
        self
    }

    /// Whether a case serves the provider inside the test process (rather than have
    /// Terraform start its binary).
    pub fn is_in_process(&self) -> bool {
        self.starter().is_some()
    }

    /// How to start the provider in process, when a case does.
    pub(super) fn starter(&self) -> Option<&Arc<Start>> {
        let binary_wanted = !matches!(self.kind, BinaryKind::InProcess(_))
            && std::env::var_os(BINARY_ENV).is_some_and(|v| !v.is_empty());
        self.start.as_ref().filter(|_| !binary_wanted)
    }

    /// The environment variable through which the provider chooses its protocol version:
    /// [`TestCase::protocol`] sets it to `5` or `6`.
    #[must_use]
    pub fn protocol_env(mut self, name: impl Into<String>) -> Self {
        self.protocol_env = Some(name.into());
        self
    }

    /// The provider's type name as the binary's name says it.
    pub(super) fn default_name(&self) -> String {
        let raw = match &self.kind {
            BinaryKind::Example(n) | BinaryKind::Bin(n) | BinaryKind::InProcess(n) => n.clone(),
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
            BinaryKind::InProcess(n) => {
                return Err(Error::new(format!(
                    "the provider `{n}` is served in process: it has no binary"
                )))
            }
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
pub(super) fn cargo_build(flag: &str, name: &str) -> Result<PathBuf, Error> {
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
pub(super) fn test_target_dir() -> Option<(PathBuf, String)> {
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
pub(super) fn platform() -> String {
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
