use super::*;

/// One Terraform command's result.
pub(super) struct Run {
    pub(super) command: String,
    pub(super) code: Option<i32>,
    /// Standard output, then standard error.
    pub(super) output: String,
    pub(super) stdout: String,
}

impl Run {
    pub(super) fn failed(&self, what: impl fmt::Display) -> Error {
        Error::new(format!(
            "{what}\n--- `{}` ({}):\n{}",
            self.command,
            exit_text(self.code),
            self.output.trim_end()
        ))
    }
}

pub(super) fn exit_text(code: Option<i32>) -> String {
    match code {
        Some(c) => format!("exit code {c}"),
        None => "killed".to_owned(),
    }
}

pub(super) struct Runner {
    pub(super) terraform: PathBuf,
    pub(super) root: PathBuf,
    pub(super) work: PathBuf,
    pub(super) cli_config: PathBuf,
    pub(super) log: PathBuf,
    pub(super) source: String,
    pub(super) version: String,
    pub(super) protocol: Option<u32>,
    pub(super) env: Vec<(OsString, OsString)>,
    pub(super) timeout: Duration,
    /// The last configuration that applied or planned, with its step's environment, for
    /// the destroy at the end and for imports.
    pub(super) good_config: Option<(String, Vec<(OsString, OsString)>)>,
    /// Whether `terraform init` has run in `work`.
    pub(super) initialized: bool,
    pub(super) step: usize,
    pub(super) step_name: String,
    pub(super) schemas: OnceLock<Result<ProviderSchemas, Error>>,
    /// How many provider starts the log showed with the protocol version asked for.
    pub(super) protocol_seen: std::cell::Cell<usize>,
    pub(super) terraform_version: TerraformVersion,
}

impl Runner {
    pub(super) fn new(terraform: PathBuf, case: &TestCase) -> Result<Runner, Error> {
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

    pub(super) fn where_(&self) -> String {
        if self.step == 0 {
            "the destroy at the end".to_owned()
        } else {
            format!("step {} ({})", self.step, self.step_name)
        }
    }

    /// Runs `terraform <args>` in `dir`.
    pub(super) fn terraform(
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
    pub(super) fn check_protocol(&self, run: &Run) -> Result<(), Error> {
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

    pub(super) fn type_name(&self) -> &str {
        self.source.rsplit('/').next().unwrap_or("")
    }

    /// Writes a configuration into `dir`, with the `required_providers` block unless it
    /// has its own.
    pub(super) fn write_config(&self, dir: &Path, hcl: &str) -> Result<(), Error> {
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
    pub(super) fn read_state_json(dir: &Path) -> Result<(serde_json::Value, String), Error> {
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

    pub(super) fn fetch_schemas(&self) -> Result<ProviderSchemas, Error> {
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
    pub(super) fn checks(&self, checks: Vec<Check>, dir: &Path) -> Result<(), Error> {
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
    pub(super) fn plan_checks(
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
    pub(super) fn expected_error(
        &self,
        run: &Run,
        pattern: &Option<String>,
    ) -> Result<bool, Error> {
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

    pub(super) fn init(
        &self,
        dir: &Path,
        env: &[(OsString, OsString)],
    ) -> Result<Option<Run>, Error> {
        let run = self.terraform(dir, &["init", "-no-color"], env)?;
        if run.code == Some(0) {
            Ok(None)
        } else {
            Ok(Some(run))
        }
    }

    pub(super) fn steps(&mut self, steps: Vec<Step>) -> Result<(), Error> {
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
    pub(super) fn expect(
        &self,
        run: &Run,
        expect_error: &Option<String>,
        ok: &[i32],
    ) -> Result<bool, Error> {
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
    pub(super) fn plan_after(
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

    pub(super) fn config_step(
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

    pub(super) fn refresh_step(
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
    pub(super) fn step_env(&self, env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
        let mut out = self
            .good_config
            .as_ref()
            .map(|(_, e)| e.clone())
            .unwrap_or_default();
        out.extend(env.iter().cloned());
        out
    }

    pub(super) fn import_step(
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

    pub(super) fn destroy(&mut self, check_destroy: Option<Check>) -> Result<(), Error> {
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
pub(super) fn attribute_diff(
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
pub(super) fn unwrapped(output: &str) -> String {
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
pub(super) fn hcl_string(s: &str) -> String {
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
