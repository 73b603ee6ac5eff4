use super::*;

/// The Terraform versions a case or step runs with (terraform-plugin-testing's
/// `tfversion.SkipBelow` and `SkipAbove`).
#[derive(Clone, Debug, Default)]
pub(super) struct Versions {
    pub(super) below: Option<TerraformVersion>,
    pub(super) above: Option<TerraformVersion>,
}

impl Versions {
    /// Needs at least `v` (a step kind's own floor, over the test's).
    pub(super) fn raise_below(&mut self, v: TerraformVersion) {
        if self.below.is_none_or(|b| b < v) {
            self.below = Some(v);
        }
    }

    /// Why `v` is outside, if it is.
    pub(super) fn skip(&self, v: TerraformVersion) -> Option<String> {
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

/// The Terraform binaries the environment names, each once (by its canonical path), in
/// this order: [`TERRAFORM_ENV`], [`TERRAFORM_LATEST_ENV`], then each path of
/// [`TERRAFORMS_ENV`]. Empty when none is set; [`TestCase::run_each`] runs a case with
/// each, and [`TestCase::terraform`] pins one, for a test that loops itself:
///
/// ```no_run
/// # use tfvalue_plugin::testing::{terraforms, ProviderBinary, Step, TestCase};
/// for terraform in terraforms() {
///     let outcome = TestCase::new(ProviderBinary::example("kv"))
///         .terraform(&terraform)
///         .step(Step::config(r#"resource "kv_entry" "a" { key = "a" }"#))
///         .try_run();
///     println!("{}: {outcome:?}", terraform.display());
/// }
/// ```
pub fn terraforms() -> Vec<PathBuf> {
    terraforms_from(
        std::env::var_os(TERRAFORM_ENV),
        std::env::var_os(TERRAFORM_LATEST_ENV),
        std::env::var_os(TERRAFORMS_ENV),
    )
}

/// [`terraforms`] from the variables' values: empty ones left out, each binary once.
pub(super) fn terraforms_from(
    first: Option<OsString>,
    latest: Option<OsString>,
    list: Option<OsString>,
) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = [first, latest]
        .into_iter()
        .flatten()
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect();
    if let Some(list) = list {
        paths.extend(std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()));
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    paths.retain(|p| {
        let canonical = p.canonicalize().unwrap_or_else(|_| p.clone());
        if seen.contains(&canonical) {
            false
        } else {
            seen.push(canonical);
            true
        }
    });
    paths
}

/// The version range of a spec (`skip_below`), parsed; a bad one fails the case at once.
pub(super) fn version_spec(v: &str) -> TerraformVersion {
    match v.parse() {
        Ok(v) => v,
        // A mistake in the test itself.
        #[allow(clippy::panic)]
        Err(e) => panic!("{e}"),
    }
}
