use super::*;

/// Where a check, an expected error and a hook go: shared by every kind of step.
#[derive(Default)]
pub(super) struct Common {
    pub(super) checks: Vec<Check>,
    pub(super) before: Vec<Hook>,
    pub(super) expect_error: Option<String>,
    pub(super) env: Vec<(OsString, OsString)>,
    pub(super) versions: Versions,
}

/// One step of a [`TestCase`]: a configuration to apply or plan ([`Step::config`],
/// [`Step::config_file`], [`Step::config_dir`]), an import ([`Step::import`]), a refresh
/// ([`Step::refresh`]), or a run of `terraform test` ([`Step::terraform_test`]).
pub struct Step {
    pub(super) kind: StepKind,
    pub(super) common: Common,
}

pub(super) enum StepKind {
    Config(ConfigOptions),
    Refresh(RefreshOptions),
    Import(ImportOptions),
    Test(TestOptions),
}

/// Where a step's configuration comes from.
#[derive(Clone, Debug)]
pub(super) enum ConfigSource {
    Inline(String),
    File(PathBuf),
    Dir(PathBuf),
}

pub(super) struct ConfigOptions {
    pub(super) source: ConfigSource,
    pub(super) variables: serde_json::Map<String, serde_json::Value>,
    pub(super) plan_only: bool,
    pub(super) non_empty_plan: bool,
    pub(super) taint: Vec<String>,
    pub(super) replace: Vec<String>,
    pub(super) plan_checks: Vec<PlanCheck>,
    pub(super) post_apply_pre_refresh: Vec<PlanCheck>,
    pub(super) post_apply_post_refresh: Vec<PlanCheck>,
}

#[derive(Default)]
pub(super) struct RefreshOptions {
    pub(super) non_empty_plan: bool,
    pub(super) plan_checks: Vec<PlanCheck>,
    pub(super) post_refresh: Vec<PlanCheck>,
}

pub(super) struct ImportOptions {
    pub(super) address: String,
    pub(super) id: ImportId,
    pub(super) verify: bool,
    pub(super) ignore: Vec<String>,
    pub(super) in_place: bool,
    pub(super) block: Option<ImportBlock>,
    pub(super) plan_checks: Vec<PlanCheck>,
}

/// How an import step writes its `import {}` block.
pub(super) enum ImportBlock {
    /// `id = ...`.
    Id,
    /// `identity = {...}`: given, or the resource's identity in the state.
    Identity(Option<serde_json::Value>),
}

pub(super) struct TestOptions {
    pub(super) dir: PathBuf,
    pub(super) filter: Vec<String>,
}

pub(super) enum ImportId {
    Attribute(String),
    Given(String),
}

impl Step {
    /// Applies a configuration (HCL), then runs the step's checks and a plan that must
    /// show no changes. The configuration needs no `terraform { required_providers }`
    /// block: the case adds one for the provider under test.
    pub fn config(hcl: impl Into<String>) -> ConfigStep {
        Step::config_from(ConfigSource::Inline(hcl.into()))
    }

    /// As [`Step::config`], with the configuration in a file (read when the step runs;
    /// terraform-plugin-testing's `ConfigFile`): it is written as the working directory's
    /// `main.tf`.
    pub fn config_file(path: impl Into<PathBuf>) -> ConfigStep {
        Step::config_from(ConfigSource::File(path.into()))
    }

    /// As [`Step::config`], with the configuration in a directory (`ConfigDirectory`):
    /// its files (`*.tf`, `*.tf.json`, `*.tfvars`, `*.tfvars.json`, not its
    /// subdirectories) replace the working directory's when the step runs. A
    /// `required_providers` block is added unless one of the files has one.
    pub fn config_dir(path: impl Into<PathBuf>) -> ConfigStep {
        Step::config_from(ConfigSource::Dir(path.into()))
    }

    fn config_from(source: ConfigSource) -> ConfigStep {
        ConfigStep(Step {
            kind: StepKind::Config(ConfigOptions {
                source,
                variables: serde_json::Map::new(),
                plan_only: false,
                non_empty_plan: false,
                taint: Vec::new(),
                replace: Vec::new(),
                plan_checks: Vec::new(),
                post_apply_pre_refresh: Vec::new(),
                post_apply_post_refresh: Vec::new(),
            }),
            common: Common::default(),
        })
    }

    /// Runs `terraform test` (Terraform 1.6+; skipped below, saying why) on the test
    /// files of a directory: its configuration (`*.tf`) and its `tests/` folder
    /// (`*.tftest.hcl`) are copied into a fresh directory, initialized with the case's
    /// providers (a `required_providers` block added unless the configuration has one),
    /// and the step passes when every test run passes. The state checks of the step see
    /// no state (`terraform test` keeps its own and destroys it).
    pub fn terraform_test(dir: impl Into<PathBuf>) -> TestStep {
        TestStep(Step {
            kind: StepKind::Test(TestOptions {
                dir: dir.into(),
                filter: Vec::new(),
            }),
            common: Common {
                versions: Versions {
                    below: Some(TerraformVersion {
                        major: 1,
                        minor: 6,
                        patch: 0,
                    }),
                    above: None,
                },
                ..Common::default()
            },
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
                block: None,
                plan_checks: Vec::new(),
            }),
            common: Common::default(),
        })
    }

    /// Refreshes the state (`terraform apply -refresh-only`, terraform-plugin-testing's
    /// `RefreshState`), then runs the step's checks and a plan that must show no changes
    /// (see [`RefreshStep::expect_non_empty_plan`] for drift).
    pub fn refresh() -> RefreshStep {
        RefreshStep(Step {
            kind: StepKind::Refresh(RefreshOptions::default()),
            common: Common::default(),
        })
    }

    pub(super) fn describe(&self) -> String {
        match &self.kind {
            StepKind::Config(o) if o.plan_only => "plan".to_owned(),
            StepKind::Config(_) => "config".to_owned(),
            StepKind::Refresh(_) => "refresh".to_owned(),
            StepKind::Import(o) if o.block.is_some() => format!("import block {}", o.address),
            StepKind::Import(o) => format!("import {}", o.address),
            StepKind::Test(o) => format!("terraform test {}", o.dir.display()),
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
                self.0.common.versions.raise_below(version_spec(version));
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

            /// Runs `f` before the step (terraform-plugin-testing's `PreConfig`): change
            /// the real objects behind Terraform's back (drift), or anything else the
            /// step needs.
            #[doc(alias = "PreConfig")]
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
/// A `terraform test` step ([`Step::terraform_test`]).
pub struct TestStep(Step);

common_methods!(ConfigStep);
common_methods!(ImportStep);
common_methods!(RefreshStep);
common_methods!(TestStep);

impl ConfigStep {
    pub(super) fn with(mut self, f: impl FnOnce(&mut ConfigOptions)) -> Self {
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

    /// Adds a check of the plan right after the apply, without a refresh
    /// (`ConfigPlanChecks.PostApplyPreRefresh`: `terraform plan -refresh=false`): what
    /// the configuration still changes against the state the apply wrote.
    #[must_use]
    pub fn post_apply_pre_refresh_plan_check(
        self,
        f: impl FnOnce(&Plan) -> CheckResult + 'static,
    ) -> Self {
        self.with(|o| o.post_apply_pre_refresh.push(Box::new(f)))
    }

    /// Adds a check of the plan after the apply, with a refresh
    /// (`ConfigPlanChecks.PostApplyPostRefresh`): the plan the step makes anyway to see
    /// that nothing changes, saved and checked.
    #[must_use]
    pub fn post_apply_post_refresh_plan_check(
        self,
        f: impl FnOnce(&Plan) -> CheckResult + 'static,
    ) -> Self {
        self.with(|o| o.post_apply_post_refresh.push(Box::new(f)))
    }

    /// Sets an input variable for this step (`TF_VAR_<name>`), and for the destroy at the
    /// end if this is the last configuration applied.
    #[must_use]
    pub fn var(self, name: &str, value: impl AsRef<OsStr>) -> Self {
        self.env(format!("TF_VAR_{name}"), value)
    }

    /// Sets an input variable of any type (terraform-plugin-testing's `ConfigVariables`):
    /// the step's variables go into a `terraform.tfvars.json` beside the configuration,
    /// so a list, a map or an object is written as JSON, numbers exact.
    ///
    /// ```
    /// use tfvalue_plugin::testing::Step;
    ///
    /// let step = Step::config(r#"variable "tags" { type = map(string) }"#)
    ///     .variable("tags", serde_json::json!({"env": "prod"}))
    ///     .variable("size", 3);
    /// # let _ = step;
    /// ```
    ///
    /// # Panics
    ///
    /// `value` does not serialize to JSON (a map with keys that are not strings).
    #[must_use]
    pub fn variable(self, name: impl Into<String>, value: impl serde::Serialize) -> Self {
        let value = match serde_json::to_value(value) {
            Ok(v) => v,
            // A mistake in the test itself.
            #[allow(clippy::panic)]
            Err(e) => panic!("the variable does not serialize to JSON: {e}"),
        };
        self.with(|o| {
            o.variables.insert(name.into(), value);
        })
    }
}

impl RefreshStep {
    /// Expects the plan after the refresh to show changes (the real object drifted
    /// from the configuration), and fails if it shows none.
    #[must_use]
    pub fn expect_non_empty_plan(self) -> Self {
        self.with(|o| o.non_empty_plan = true)
    }

    fn with(mut self, f: impl FnOnce(&mut RefreshOptions)) -> Self {
        if let StepKind::Refresh(o) = &mut self.0.kind {
            f(o);
        }
        self
    }

    /// Adds a check of the refresh-only plan (`terraform plan -refresh-only`, saved and
    /// then applied): the drift the refresh finds, as changes of the resources' state
    /// (Terraform's JSON plan lists them under `resource_drift`; see
    /// [`Plan::expect_drift`]).
    #[must_use]
    pub fn plan_check(self, f: impl FnOnce(&Plan) -> CheckResult + 'static) -> Self {
        self.with(|o| o.plan_checks.push(Box::new(f)))
    }

    /// Adds a check of the plan after the refresh (`RefreshPlanChecks.PostRefresh`):
    /// what the configuration would change against the refreshed state.
    #[must_use]
    pub fn post_refresh_plan_check(self, f: impl FnOnce(&Plan) -> CheckResult + 'static) -> Self {
        self.with(|o| o.post_refresh.push(Box::new(f)))
    }
}

impl TestStep {
    /// Runs only these test files (`-filter=tests/<file>`, relative to the directory).
    #[must_use]
    pub fn filter(mut self, file: impl Into<String>) -> Self {
        if let StepKind::Test(o) = &mut self.0.kind {
            o.filter.push(file.into());
        }
        self
    }
}

impl ImportStep {
    pub(super) fn with(mut self, f: impl FnOnce(&mut ImportOptions)) -> Self {
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

    /// Imports through an `import {}` block (Terraform 1.5+; the step is skipped below,
    /// saying why) rather than `terraform import`: the block, with the id, is added to
    /// the configuration, the plan is saved and must import the resource and change
    /// nothing else, the [`plan_check`](ImportStep::plan_check)s run on it
    /// (`ImportPlanChecks.PreApply`), and it is applied (terraform-plugin-testing's
    /// `ImportStateKind: ImportBlockWithID`).
    #[must_use]
    pub fn with_import_block(mut self) -> Self {
        self.0.common.versions.raise_below(TerraformVersion {
            major: 1,
            minor: 5,
            patch: 0,
        });
        self.with(|o| o.block = Some(ImportBlock::Id))
    }

    /// Imports through an `import {}` block that names the resource by its identity
    /// (`identity = {...}`, Terraform 1.12+; skipped below, saying why): the identity
    /// the resource has in the state, or the one given here as a JSON object
    /// (`ImportStateKind: ImportBlockWithResourceIdentity`).
    #[must_use]
    pub fn with_identity(mut self, identity: Option<serde_json::Value>) -> Self {
        self.0.common.versions.raise_below(TerraformVersion {
            major: 1,
            minor: 12,
            patch: 0,
        });
        self.with(|o| o.block = Some(ImportBlock::Identity(identity)))
    }

    /// Adds a check of the import's plan, before it is applied (with an `import {}`
    /// block; [`ImportStep::with_import_block`]).
    #[must_use]
    pub fn plan_check(self, f: impl FnOnce(&Plan) -> CheckResult + 'static) -> Self {
        self.with(|o| o.plan_checks.push(Box::new(f)))
    }
}
