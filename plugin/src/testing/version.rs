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

/// The version range of a spec (`skip_below`), parsed; a bad one fails the case at once.
pub(super) fn version_spec(v: &str) -> TerraformVersion {
    match v.parse() {
        Ok(v) => v,
        // A mistake in the test itself.
        #[allow(clippy::panic)]
        Err(e) => panic!("{e}"),
    }
}
