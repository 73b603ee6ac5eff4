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
    pub(super) protocol: Option<u32>,
    pub(super) env: Vec<(OsString, OsString)>,
    pub(super) timeout: Duration,
    /// The last configuration that applied or planned, with its step's environment, for
    /// the destroy at the end and for imports.
    pub(super) good_config: Option<(Files, Vec<(OsString, OsString)>)>,
    /// Whether `terraform init` has run in `work`.
    pub(super) initialized: bool,
    pub(super) step: usize,
    pub(super) step_name: String,
    pub(super) schemas: OnceLock<Result<ProviderSchemas, Error>>,
    /// How many provider starts the log showed with the protocol version asked for.
    pub(super) protocol_seen: std::cell::Cell<usize>,
    pub(super) terraform_version: TerraformVersion,
    /// Whether the provider under test is served in this process.
    pub(super) in_process: bool,
    /// Every provider's source address and version, for `required_providers`.
    pub(super) required: Vec<(String, String)>,
    /// The servers of the providers served in process, for as long as the case runs.
    pub(super) _servers: Vec<crate::server::Listening>,
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
        let root = case.dir().to_path_buf();
        let io = |what: &str, e: std::io::Error| Error::new(format!("{what}: {e}"));
        let mut providers = vec![(source.clone(), case.version.clone(), &case.provider)];
        providers.extend(
            case.external
                .iter()
                .map(|(s, v, p)| (s.clone(), v.clone(), p)),
        );
        let mut mirrored = Vec::new();
        let mut reattach = serde_json::Map::new();
        let mut servers = Vec::new();
        let mut from = Vec::new();
        for (source, version, provider) in providers {
            let type_name = source.rsplit('/').next().unwrap_or(&source).to_owned();
            if let Some(start) = provider.starter() {
                let server = start().map_err(|e| {
                    Error::new(format!(
                        "cannot serve the provider {source} in process: {e}"
                    ))
                })?;
                let protocol = case
                    .protocol
                    .filter(|_| mirrored.is_empty() && reattach.is_empty());
                reattach.insert(
                    source.clone(),
                    serde_json::json!({
                        "Protocol": "grpc",
                        "ProtocolVersion": protocol.unwrap_or(6),
                        "Pid": std::process::id(),
                        "Test": true,
                        "Addr": {"Network": "tcp", "String": server.addr.to_string()},
                    }),
                );
                from.push(format!("{source} in process at {}", server.addr));
                servers.push(server);
                continue;
            }
            let binary = provider.build()?;
            let plugin_dir = root
                .join("mirror")
                .join(&source)
                .join(&version)
                .join(platform());
            std::fs::create_dir_all(&plugin_dir)
                .map_err(|e| io(&format!("cannot create {}", plugin_dir.display()), e))?;
            let installed = plugin_dir.join(format!(
                "terraform-provider-{type_name}_v{version}{}",
                std::env::consts::EXE_SUFFIX
            ));
            std::fs::copy(&binary, &installed)
                .map_err(|e| io(&format!("cannot copy {}", binary.display()), e))?;
            from.push(format!("{source} from {}", binary.display()));
            mirrored.push(hcl_string(&source));
        }
        let cli_config = root.join("cli.tfrc");
        // Only the mirror: nothing is downloaded, and a provider served in process needs
        // no installation.
        let installation = if mirrored.is_empty() {
            "provider_installation {\n}\n".to_owned()
        } else {
            format!(
                "provider_installation {{\n  filesystem_mirror {{\n    path    = {}\n    include = [{}]\n  }}\n}}\n",
                hcl_string(&root.join("mirror").to_string_lossy()),
                mirrored.join(", "),
            )
        };
        std::fs::write(&cli_config, installation)
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
        let case_source = source.clone();
        if !reattach.is_empty() {
            let reattach = serde_json::Value::Object(reattach).to_string();
            env.push(("TF_REATTACH_PROVIDERS".into(), reattach.into()));
        }
        println!(
            "case in {} with {}, provider {}",
            root.display(),
            terraform.display(),
            from.join(", provider ")
        );
        Ok(Runner {
            terraform,
            log: root.join("terraform.log"),
            root,
            work,
            cli_config,
            protocol: case.protocol,
            env,
            timeout: case.timeout,
            good_config: None,
            initialized: false,
            step: 0,
            step_name: String::new(),
            schemas: OnceLock::new(),
            protocol_seen: std::cell::Cell::new(0),
            in_process: case.provider.is_in_process(),
            required: std::iter::once((case_source, case.version.clone()))
                .chain(case.external.iter().map(|(s, v, _)| (s.clone(), v.clone())))
                .collect(),
            _servers: servers,
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
        if self.protocol.is_some() && !self.in_process {
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
        if self.in_process {
            // The server itself counts the calls of each protocol major.
            use std::sync::atomic::Ordering::Relaxed;
            let Some(calls) = self._servers.first().map(|s| &s.calls) else {
                return Ok(());
            };
            let (v5, v6) = (calls.v5.load(Relaxed), calls.v6.load(Relaxed));
            let (seen, other) = if want == 5 { (v5, v6) } else { (v6, v5) };
            self.protocol_seen.set(seen);
            if other > 0 {
                return Err(run.failed(format!(
                    "{}: Terraform called the provider over protocol {} ({other} calls), but \
                     the case asked for protocol {want}",
                    self.where_(),
                    if want == 5 { 6 } else { 5 }
                )));
            }
            return Ok(());
        }
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

    /// Writes a configuration's files into `dir` (taking out the configuration files an
    /// earlier step left there), with a `required_providers` block for the case's
    /// providers unless a file has its own.
    pub(super) fn write_config(&self, dir: &Path, files: &[(String, String)]) -> Result<(), Error> {
        let io =
            |e: std::io::Error| Error::new(format!("cannot write into {}: {e}", dir.display()));
        std::fs::create_dir_all(dir).map_err(io)?;
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if is_config_file(&name)
                    && e.path().is_file()
                    && !files.iter().any(|(n, _)| *n == name)
                {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        for (name, text) in files {
            std::fs::write(dir.join(name), text).map_err(io)?;
        }
        if !files.iter().any(|(_, t)| t.contains("required_providers")) {
            let mut block = String::from("terraform {\n  required_providers {\n");
            for (source, version) in &self.required {
                let name = source.rsplit('/').next().unwrap_or(source);
                block.push_str(&format!(
                    "    {name} = {{\n      source  = {}\n      version = {}\n    }}\n",
                    hcl_string(source),
                    hcl_string(version)
                ));
            }
            block.push_str("  }\n}\n");
            std::fs::write(dir.join("tfvalue_providers.tf"), block).map_err(io)?;
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
                StepKind::Refresh(o) => {
                    self.refresh_step(o, common.checks, &common.expect_error, &common.env)?;
                }
                StepKind::Import(o) => {
                    self.import_step(o, common.checks, &common.expect_error, &common.env)?;
                }
                StepKind::Test(o) => {
                    self.test_step(o, common.checks, &common.expect_error, &common.env)?;
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

    /// The plan file of this step named `what`.
    fn plan_file(&self, what: &str) -> PathBuf {
        self.root.join(format!("step-{}{what}.tfplan", self.step))
    }

    /// `plan -detailed-exitcode` after a step: no changes, or changes if `non_empty`;
    /// saved and checked when there are plan checks.
    pub(super) fn plan_after(
        &self,
        non_empty: bool,
        env: &[(OsString, OsString)],
        what: &str,
        checks: Vec<PlanCheck>,
    ) -> Result<(), Error> {
        let file = self.plan_file("-after");
        let out = format!("-out={}", file.display());
        let mut args = vec!["plan", "-no-color", "-detailed-exitcode"];
        if !checks.is_empty() {
            args.push(&out);
        }
        let run = self.terraform(&self.work, &args, env)?;
        if matches!(run.code, Some(0 | 2)) && !checks.is_empty() {
            self.plan_checks(checks, &file, env)?;
        }
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

    /// The files of a step's configuration: `(name, contents)`.
    fn config_files(
        &self,
        source: &ConfigSource,
        variables: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Files, Error> {
        let read = |p: &Path| {
            std::fs::read_to_string(p).map_err(|e| {
                Error::new(format!(
                    "{}: cannot read the configuration {}: {e}",
                    self.where_(),
                    p.display()
                ))
            })
        };
        let mut files = match source {
            ConfigSource::Inline(hcl) => vec![("main.tf".to_owned(), hcl.clone())],
            ConfigSource::File(p) => {
                let name = if p.to_string_lossy().ends_with(".tf.json") {
                    "main.tf.json"
                } else {
                    "main.tf"
                };
                vec![(name.to_owned(), read(p)?)]
            }
            ConfigSource::Dir(d) => {
                let entries = std::fs::read_dir(d).map_err(|e| {
                    Error::new(format!(
                        "{}: cannot read the configuration directory {}: {e}",
                        self.where_(),
                        d.display()
                    ))
                })?;
                let mut files = Vec::new();
                for e in entries.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if is_config_file(&name) && e.path().is_file() {
                        files.push((name, read(&e.path())?));
                    }
                }
                files.sort();
                if files.is_empty() {
                    return Err(Error::new(format!(
                        "{}: the configuration directory {} has no `.tf` file",
                        self.where_(),
                        d.display()
                    )));
                }
                files
            }
        };
        if !variables.is_empty() {
            let json = serde_json::Value::Object(variables.clone());
            files.push(("terraform.tfvars.json".to_owned(), format!("{json:#}\n")));
        }
        Ok(files)
    }

    pub(super) fn config_step(
        &mut self,
        o: ConfigOptions,
        checks: Vec<Check>,
        expect_error: &Option<String>,
        env: Vec<(OsString, OsString)>,
    ) -> Result<(), Error> {
        let ConfigOptions {
            source,
            variables,
            plan_only,
            non_empty_plan,
            taint,
            replace,
            plan_checks,
            post_apply_pre_refresh,
            post_apply_post_refresh,
        } = o;
        let files = self.config_files(&source, &variables)?;
        let work = self.work.clone();
        self.write_config(&work, &files)?;
        if !self.initialized {
            if let Some(failed) = self.init(&work, &env)? {
                self.expect(&failed, expect_error, &[0])?;
                return self.checks(checks, &work);
            }
            self.initialized = true;
        }
        let plan_file = self.plan_file("");
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
            self.good_config = Some((files, env));
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
        self.good_config = Some((files, env.clone()));
        self.checks(checks, &work)?;
        if !post_apply_pre_refresh.is_empty() {
            let file = self.plan_file("-pre-refresh");
            let out = format!("-out={}", file.display());
            let run =
                self.terraform(&work, &["plan", "-no-color", "-refresh=false", &out], &env)?;
            if run.code != Some(0) {
                return Err(run.failed(format!(
                    "{}: the plan after the apply (without a refresh) failed",
                    self.where_()
                )));
            }
            self.plan_checks(post_apply_pre_refresh, &file, &env)?;
        }
        self.plan_after(
            non_empty_plan,
            &env,
            "after applying this step",
            post_apply_post_refresh,
        )
    }

    pub(super) fn refresh_step(
        &mut self,
        o: RefreshOptions,
        checks: Vec<Check>,
        expect_error: &Option<String>,
        env: &[(OsString, OsString)],
    ) -> Result<(), Error> {
        let work = self.work.clone();
        let env = self.step_env(env);
        // The last configuration that applied, not one a failed step left behind.
        if let Some((files, _)) = self.good_config.clone() {
            self.write_config(&work, &files)?;
        }
        // `-refresh-only` came with Terraform 0.15.4; `terraform refresh` before.
        let refresh_only = self.terraform_version
            >= (TerraformVersion {
                major: 0,
                minor: 15,
                patch: 4,
            });
        let run = if !o.plan_checks.is_empty() && refresh_only {
            let file = self.plan_file("-refresh");
            let out = format!("-out={}", file.display());
            let run = self.terraform(&work, &["plan", "-no-color", "-refresh-only", &out], &env)?;
            if self.expect(&run, expect_error, &[0])? {
                return self.checks(checks, &work);
            }
            self.plan_checks(o.plan_checks, &file, &env)?;
            let path = file.to_string_lossy().into_owned();
            self.terraform(&work, &["apply", "-no-color", &path], &env)?
        } else if !o.plan_checks.is_empty() {
            return Err(Error::new(format!(
                "{}: a refresh-only plan to check needs Terraform 0.15.4 or newer (this is {})",
                self.where_(),
                self.terraform_version
            )));
        } else if refresh_only {
            let args = ["apply", "-no-color", "-refresh-only", "-auto-approve"];
            self.terraform(&work, &args, &env)?
        } else {
            self.terraform(&work, &["refresh", "-no-color"], &env)?
        };
        if self.expect(&run, expect_error, &[0])? {
            return self.checks(checks, &work);
        }
        self.checks(checks, &work)?;
        self.plan_after(o.non_empty_plan, &env, "after the refresh", o.post_refresh)
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
        let Some((files, _)) = self.good_config.clone() else {
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
        let found = before.instance(&o.address).ok();
        let applied = found.as_ref().map(|i| i.attributes.clone());
        let identity = found
            .as_ref()
            .map(|i| i.identity.clone())
            .filter(|i| !i.is_null());
        let id = match &o.id {
            _ if matches!(o.block, Some(ImportBlock::Identity(_))) => String::new(),
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
            self.write_config(&dir, &files)?;
            if let Some(failed) = self.init(&dir, &env)? {
                return Err(failed.failed(format!("{}: `terraform init` failed", self.where_())));
            }
            dir
        };
        // The command whose output a failed verification shows.
        let shown: Run;
        let imported = match &o.block {
            None => {
                let run = self.terraform(&dir, &["import", "-no-color", &o.address, &id], &env)?;
                if self.expect(&run, expect_error, &[0])? {
                    return self.checks(checks, &dir);
                }
                let after = State {
                    json: Runner::read_state_json(&dir)?.into(),
                    schemas: &fetch,
                };
                shown = run;
                o.verify
                    .then(|| after.instance(&o.address).map(|i| i.attributes.clone()))
                    .transpose()?
            }
            Some(block) => {
                let target = match block {
                    ImportBlock::Id => format!("  id = {}\n", hcl_string(&id)),
                    ImportBlock::Identity(given) => {
                        let Some(identity) = given.clone().or(identity) else {
                            return Err(Error::new(format!(
                                "{}: `{}` has no identity in the state (Terraform 1.12+ writes \
                                 one for a resource with an identity schema); give it with \
                                 .with_identity(Some(..))",
                                self.where_(),
                                o.address
                            )));
                        };
                        format!("  identity = {}\n", hcl_value(&identity, 2))
                    }
                };
                let mut files = files.clone();
                files.push((
                    "tfvalue_import.tf".to_owned(),
                    format!("import {{\n  to = {}\n{target}}}\n", o.address),
                ));
                self.write_config(&dir, &files)?;
                let file = self.plan_file("-import");
                let out = format!("-out={}", file.display());
                let run = self.terraform(&dir, &["plan", "-no-color", &out], &env)?;
                if self.expect(&run, expect_error, &[0])? {
                    return self.checks(checks, &dir);
                }
                shown = run;
                let mut plan_checks: Vec<PlanCheck> = Vec::new();
                let address = o.address.clone();
                let planned = std::rc::Rc::new(std::cell::RefCell::new(None));
                let keep = planned.clone();
                plan_checks.push(Box::new(move |plan: &Plan| {
                    keep.replace(Some(plan.expect_import(&address)?));
                    Ok(())
                }));
                plan_checks.extend(o.plan_checks);
                self.plan_checks(plan_checks, &file, &env)?;
                if o.in_place {
                    let path = file.to_string_lossy().into_owned();
                    let run = self.terraform(&dir, &["apply", "-no-color", &path], &env)?;
                    if run.code != Some(0) {
                        return Err(
                            run.failed(format!("{}: applying the import failed", self.where_()))
                        );
                    }
                }
                planned.take()
            }
        };
        if o.verify {
            let Some(applied) = applied else {
                return Err(Error::new(format!(
                    "{}: `{}` was not in the state before the import, so there is nothing to verify against",
                    self.where_(),
                    o.address
                )));
            };
            let imported = imported.unwrap_or_default();
            // A plan's JSON writes a `dynamic` attribute's value without the
            // `{"type", "value"}` the state file wraps it in.
            let applied = if o.block.is_some() {
                unwrap_dynamic(&applied)
            } else {
                applied
            };
            let diff = attribute_diff(&applied, &imported, &o.ignore);
            if !diff.is_empty() {
                let what = format!(
                    "{}: the imported state differs from the applied one:\n{}",
                    self.where_(),
                    diff.join("\n")
                );
                return Err(shown.failed(what));
            }
        }
        self.checks(checks, &dir)
    }

    /// `terraform test` on a copy of the directory's configuration and tests.
    pub(super) fn test_step(
        &mut self,
        o: TestOptions,
        checks: Vec<Check>,
        expect_error: &Option<String>,
        env: &[(OsString, OsString)],
    ) -> Result<(), Error> {
        let dir = self.root.join(format!("test-{}", self.step));
        let files = self.config_files(&ConfigSource::Dir(o.dir.clone()), &Default::default())?;
        self.write_config(&dir, &files)?;
        let tests_from = o.dir.join("tests");
        let tests_to = dir.join("tests");
        let io = |e: std::io::Error, p: &Path| {
            Error::new(format!("{}: {}: {e}", self.where_(), p.display()))
        };
        std::fs::create_dir_all(&tests_to).map_err(|e| io(e, &tests_to))?;
        let mut copied = 0;
        if let Ok(entries) = std::fs::read_dir(&tests_from) {
            for e in entries.flatten() {
                let name = e.file_name();
                let n = name.to_string_lossy();
                if n.ends_with(".tftest.hcl") || n.ends_with(".tftest.json") {
                    std::fs::copy(e.path(), tests_to.join(&name)).map_err(|x| io(x, &e.path()))?;
                    copied += 1;
                }
            }
        }
        if copied == 0 {
            return Err(Error::new(format!(
                "{}: {} has no `.tftest.hcl` file",
                self.where_(),
                tests_from.display()
            )));
        }
        if let Some(failed) = self.init(&dir, env)? {
            self.expect(&failed, expect_error, &[0])?;
            return self.checks(checks, &dir);
        }
        let filters: Vec<String> = o
            .filter
            .iter()
            .map(|f| format!("-filter=tests/{f}"))
            .collect();
        let mut args = vec!["test", "-no-color"];
        args.extend(filters.iter().map(String::as_str));
        let run = self.terraform(&dir, &args, env)?;
        self.expect(&run, expect_error, &[0])?;
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
            if let Some((files, _)) = &self.good_config {
                self.write_config(&work, files)?;
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
                return Err(Error::new(if self.in_process {
                    format!(
                        "the case asked for protocol {p}, but the provider served in process \
                         had no call over it"
                    )
                } else {
                    format!(
                        "the case asked for protocol {p}, but Terraform's log never said which \
                         protocol it used (no `using plugin: version=` line)"
                    )
                }));
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

/// `v` with every `{"type": T, "value": V}` (the state file's form of a value of a
/// `dynamic` attribute) made `V`, as Terraform's JSON plan writes it.
pub(super) fn unwrap_dynamic(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        J::Object(o)
            if o.len() == 2
                && o.contains_key("value")
                && o.get("type").is_some_and(|t| {
                    serde_json::from_value::<tfvalue::Type>(t.clone()).is_ok()
                }) =>
        {
            o["value"].clone()
        }
        J::Object(o) => J::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), unwrap_dynamic(v)))
                .collect(),
        ),
        J::Array(a) => J::Array(a.iter().map(unwrap_dynamic).collect()),
        other => other.clone(),
    }
}

/// A step's configuration files: `(name, contents)`.
pub(super) type Files = Vec<(String, String)>;

/// Whether Terraform reads a file of this name as configuration or variables.
pub(super) fn is_config_file(name: &str) -> bool {
    [".tf", ".tf.json", ".tfvars", ".tfvars.json"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// A JSON value as an HCL expression (for an identity in an `import {}` block), nested
/// objects indented by `indent` spaces more.
pub(super) fn hcl_value(v: &serde_json::Value, indent: usize) -> String {
    use serde_json::Value as J;
    match v {
        J::Null => "null".to_owned(),
        J::Bool(b) => b.to_string(),
        J::Number(n) => n.to_string(),
        J::String(s) => hcl_string(s),
        J::Array(items) => {
            let items: Vec<String> = items.iter().map(|i| hcl_value(i, indent)).collect();
            format!("[{}]", items.join(", "))
        }
        J::Object(fields) => {
            let pad = " ".repeat(indent + 2);
            let mut out = String::from("{\n");
            for (k, v) in fields {
                out.push_str(&format!(
                    "{pad}{} = {}\n",
                    hcl_string(k),
                    hcl_value(v, indent + 2)
                ));
            }
            out.push_str(&" ".repeat(indent));
            out.push('}');
            out
        }
    }
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
