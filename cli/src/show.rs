//! `tfvalue inspect --state` and `--plan`: listing a file's resource instances, and showing
//! the ones an address selects, decoded against the provider schema when one is given.

use std::process::ExitCode;

use tfvalue::schema::Schema;
use tfvalue::{tagged, Value};

use crate::out::{self, Outcome};
use crate::schemas::{self, BlockKind, SchemaFile};
use crate::{diff, documents, pretty, render, suggest, values, InspectArgs, Output};

/// The schema of one resource of a state or plan, when `--schema` was given.
fn schema_for(
    file: Option<&SchemaFile>,
    override_addr: Option<&str>,
    provider: &str,
    data: bool,
    type_name: &str,
    label: &str,
) -> Result<Option<Schema>, String> {
    let Some(file) = file else { return Ok(None) };
    let addr = override_addr.unwrap_or(provider);
    let (full, p) = file.find_provider(addr).ok_or_else(|| {
        format!(
            "{label}: {} has no provider {addr:?}, which the resource belongs to \
             (the file has: {}; choose one with --provider-address)",
            file.path,
            file.all
                .provider_schemas
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let kind = if data {
        BlockKind::DataSource
    } else {
        BlockKind::Resource
    };
    schemas::block(&file.path, full, p, kind, type_name)
        .cloned()
        .map(Some)
        .map_err(|e| format!("{label}: {e}"))
}

/// Which items an address selects: an instance, or every instance of a resource.
fn select<'a, T>(
    items: &'a [T],
    address: &str,
    addr_of: impl Fn(&T) -> (String, String, String),
    what: &str,
) -> Result<Vec<&'a T>, String> {
    let exact: Vec<&T> = items
        .iter()
        .filter(|t| {
            let (label, addr, _) = addr_of(t);
            label == address || addr == address
        })
        .collect();
    if !exact.is_empty() {
        return Ok(exact);
    }
    let by_resource: Vec<&T> = items.iter().filter(|t| addr_of(t).2 == address).collect();
    if !by_resource.is_empty() {
        return Ok(by_resource);
    }
    let mut names: Vec<String> = items
        .iter()
        .flat_map(|t| {
            let (_, a, r) = addr_of(t);
            [a, r]
        })
        .collect();
    names.sort();
    names.dedup();
    let hint = suggest::did_you_mean(address, names.iter().map(String::as_str));
    let hint = if hint.is_empty() {
        format!("; run with --list to list them ({} in all)", items.len())
    } else {
        hint
    };
    Err(format!("no resource instance {address:?} in {what}{hint}"))
}

/// `inspect --state` or `--plan`.
pub fn inspect_file(args: &InspectArgs) -> Outcome<ExitCode> {
    if args.schema.selection().is_some() {
        return Err(
            "with --state or --plan the schema of each resource is found by its type: \
             give --schema FILE without --resource, --data-source or --provider"
                .into(),
        );
    }
    let style = diff::Style {
        color: args.color.on(),
        show_sensitive: args.show_sensitive,
    };
    let schema_file = args
        .schema
        .schema
        .as_deref()
        .map(SchemaFile::load)
        .transpose()?;
    let override_addr = args.schema.provider_address.as_deref();
    let ctx = Ctx {
        args,
        style,
        schema_file,
        override_addr,
    };
    match (&args.state, &args.plan) {
        (Some(path), _) => inspect_state(&ctx, path),
        (None, Some(path)) => inspect_plan(&ctx, path),
        (None, None) => Err("inspect needs --state FILE or --plan FILE here".into()),
    }
}

/// What showing a state or a plan needs.
struct Ctx<'a> {
    args: &'a InspectArgs,
    style: diff::Style,
    schema_file: Option<SchemaFile>,
    override_addr: Option<&'a str>,
}

/// `inspect --state FILE [ADDRESS]`.
fn inspect_state(ctx: &Ctx<'_>, path: &str) -> Outcome<ExitCode> {
    let (args, style, schema_file, override_addr) =
        (ctx.args, ctx.style, &ctx.schema_file, ctx.override_addr);
    let state = documents::read_state(path)?;
    let Some(address) = &args.target else {
        return list_state(path, &state);
    };
    let chosen = select(
        &state.instances,
        address,
        |i| (i.label(), i.address.clone(), i.resource.clone()),
        path,
    )?;
    let mut text = String::new();
    for (n, inst) in chosen.into_iter().enumerate() {
        let label = inst.label();
        let schema = schema_for(
            schema_file.as_ref(),
            override_addr,
            &inst.provider,
            inst.mode == documents::Mode::Data,
            &inst.type_name,
            &label,
        )?;
        if let (Some(s), Some(v)) = (&schema, inst.schema_version) {
            if s.version != v {
                out::warn(&format!(
                    "{label} was stored under schema version {v}, the schema is version {}; \
                     it is shown as stored (the provider upgrades it on the next plan)",
                    s.version
                ));
            }
        }
        let ty = schema.as_ref().map(Schema::implied_type);
        let decoded = match &inst.attrs {
            documents::Attrs::Json(raw) => {
                values::decode_json(raw, ty.as_ref(), args.ignore_undeclared, inst.plain).map(
                    |mut d| {
                        if let (true, Some(t)) = (inst.plain, &ty) {
                            d.value = values::restore_sets(d.value, t);
                        }
                        d
                    },
                )
            }
            documents::Attrs::Flat(flat) => {
                values::decode_flat(flat, ty.as_ref(), args.ignore_undeclared)
            }
        }
        .map_err(|e| format!("{label}: {e}"))?;
        warn_skipped(&label, &decoded.skipped);
        let mask = schema.as_ref().map(|s| render::mask_for_block(&s.block));
        let sens = diff::Sens {
            marks: Some(&inst.sensitive),
            mask: mask.as_ref(),
        };
        if n > 0 {
            text.push('\n');
        }
        match args.output {
            Output::Json => text.push_str(&pretty(&serde_json::json!({
                "address": label,
                "value": tagged::to_tagged(&decoded.value),
            }))?),
            Output::Text => {
                let header = diff::Header {
                    data: inst.mode == documents::Mode::Data,
                    type_name: &inst.type_name,
                    name: &inst.name,
                };
                text.push_str(&diff::show_instance(
                    &label,
                    &header,
                    &decoded.value,
                    sens,
                    style,
                ));
            }
        }
    }
    out::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `inspect --plan FILE [ADDRESS]`.
fn inspect_plan(ctx: &Ctx<'_>, path: &str) -> Outcome<ExitCode> {
    let (args, style, schema_file, override_addr) =
        (ctx.args, ctx.style, &ctx.schema_file, ctx.override_addr);
    let plan = documents::read_plan(path)?;
    if args.list {
        return list_plan(path, &plan);
    }
    // Without an address, every change, as `terraform show PLANFILE` prints a plan (changes
    // that change nothing are left out, as there).
    let (chosen, whole) = match &args.target {
        Some(address) => (
            select(
                &plan.changes,
                address,
                |c| (c.label(), c.address.clone(), c.resource().to_owned()),
                path,
            )?,
            false,
        ),
        None => (
            plan.changes
                .iter()
                .filter(|c| c.action() != "no-op")
                .collect(),
            true,
        ),
    };
    let mut text = String::new();
    if whole && args.output == Output::Text {
        text.push_str(&legend(&chosen));
    }
    let shown = chosen.len();
    for (n, c) in chosen.into_iter().enumerate() {
        let label = c.label();
        let data = c.mode == documents::Mode::Data;
        let schema = schema_for(
            schema_file.as_ref(),
            override_addr,
            &c.provider,
            data,
            &c.type_name,
            &label,
        )?;
        let ty = schema.as_ref().map(Schema::implied_type);
        let decode = |raw: &Option<Box<serde_json::value::RawValue>>, which: &str| match raw {
            None => Ok(Value::Null),
            Some(raw) => {
                let d = values::decode_json(raw, ty.as_ref(), args.ignore_undeclared, true)
                    .map_err(|e| format!("{label} ({which}): {e}"))?;
                warn_skipped(&format!("{label} ({which})"), &d.skipped);
                Ok::<Value, String>(d.value)
            }
        };
        let before = decode(&c.before, "before")?;
        let after = values::overlay_unknown(decode(&c.after, "after")?, &c.after_unknown);
        // Sets were read as lists so that the marks found their elements.
        let (before, after) = match &ty {
            Some(t) => (
                values::restore_sets(before, t),
                values::restore_sets(after, t),
            ),
            None => (before, after),
        };
        let mask = schema.as_ref().map(|s| render::mask_for_block(&s.block));
        if n > 0 {
            text.push('\n');
        }
        match args.output {
            Output::Json => text.push_str(&pretty(&serde_json::json!({
                "address": label,
                "actions": c.actions,
                "before": tagged::to_tagged(&before),
                "after": tagged::to_tagged(&after),
            }))?),
            Output::Text => {
                let header = diff::Header {
                    data,
                    type_name: &c.type_name,
                    name: &c.name,
                };
                text.push_str(&diff::show_change(
                    &label,
                    &header,
                    c.action(),
                    c.action_reason.as_deref(),
                    c.importing.as_deref(),
                    &before,
                    diff::Sens {
                        marks: Some(&c.before_sensitive),
                        mask: mask.as_ref(),
                    },
                    &after,
                    diff::Sens {
                        marks: Some(&c.after_sensitive),
                        mask: mask.as_ref(),
                    },
                    &c.replace_paths,
                    style,
                ));
            }
        }
    }
    if whole && args.output == Output::Text {
        if shown > 0 {
            text.push('\n');
        }
        text.push_str(&plan_summary(&plan));
    }
    out::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The symbols of the actions a plan shows, as Terraform explains them above a plan.
fn legend(changes: &[&documents::Change]) -> String {
    let mut lines = String::new();
    for (action, line) in [
        ("create", "  + create"),
        ("update", "  ~ update in-place"),
        ("delete", "  - destroy"),
        ("replace", "-/+ destroy and then create replacement"),
        (
            "replace (create first)",
            "+/- create replacement and then destroy",
        ),
        ("read", " <= read (data resources)"),
    ] {
        if changes.iter().any(|c| c.action() == action) {
            lines.push_str(line);
            lines.push('\n');
        }
    }
    if lines.is_empty() {
        return lines;
    }
    format!("Resource actions are indicated with the following symbols:\n{lines}\n")
}

/// `Plan: 1 to add, 2 to change, 0 to destroy.`, as Terraform ends a plan.
fn plan_summary(plan: &documents::Plan) -> String {
    let (mut add, mut change, mut destroy, mut import) = (0, 0, 0, 0);
    for c in &plan.changes {
        match c.action() {
            "create" => add += 1,
            "update" => change += 1,
            "delete" => destroy += 1,
            a if a.starts_with("replace") => {
                add += 1;
                destroy += 1;
            }
            _ => {}
        }
        if c.importing.is_some() {
            import += 1;
        }
    }
    // Terraform names imports first, and only when there are any.
    let imports = if import > 0 {
        format!("{import} to import, ")
    } else {
        String::new()
    };
    format!("Plan: {imports}{add} to add, {change} to change, {destroy} to destroy.\n")
}

fn warn_skipped(label: &str, skipped: &[String]) {
    if skipped.is_empty() {
        return;
    }
    let names: Vec<String> = skipped.iter().map(|s| format!("`{s}`")).collect();
    out::warn(&format!(
        "{label}: skipped what the schema does not declare: {}",
        names.join(", ")
    ));
}

fn list_state(path: &str, state: &documents::State) -> Outcome<ExitCode> {
    let version = state
        .terraform_version
        .as_deref()
        .map(|v| format!(", Terraform {v}"))
        .unwrap_or_default();
    let n = state.instances.len();
    let s = if n == 1 { "" } else { "s" };
    let mut text = format!(
        "{path}: {}{version}, {n} resource instance{s}\n",
        state.format
    );
    let labels: Vec<String> = state
        .instances
        .iter()
        .map(|i| diff::printable(&i.label()).into_owned())
        .collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for (i, label) in state.instances.iter().zip(&labels) {
        let v = i
            .schema_version
            .map(|v| format!(", schema version {v}"))
            .unwrap_or_default();
        let provider = diff::printable(&i.provider);
        text.push_str(&format!("  {label:width$}  ({provider}{v})\n"));
    }
    out::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn list_plan(path: &str, plan: &documents::Plan) -> Outcome<ExitCode> {
    let n = plan.changes.len();
    let s = if n == 1 { "" } else { "s" };
    let mut text = format!(
        "{path}: plan JSON format {}, {n} resource change{s}\n",
        plan.format_version
    );
    for c in &plan.changes {
        text.push_str(&format!(
            "  {:<8} {}\n",
            c.action().split(' ').next().unwrap_or(""),
            diff::printable(&c.label())
        ));
    }
    text.push_str(&plan_summary(plan));
    out::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
