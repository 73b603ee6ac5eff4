use super::*;

/// A plan Terraform saved (`terraform plan -out`), for [`ConfigStep::plan_check`].
pub struct Plan {
    pub(super) path: PathBuf,
    pub(super) json: Parsed,
    pub(super) text: String,
    pub(super) schemas: Result<ProviderSchemas, Error>,
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
    pub(super) fn change(&self, address: &str) -> Result<usize, Error> {
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

    pub(super) fn changing(&self) -> Vec<String> {
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
        let fail = |m: known::Mismatch| Error::new(format!("`{address}`{}", inside(path, &m)));
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

    pub(super) fn expect_mark(
        &self,
        address: &str,
        path: &str,
        marks: &str,
        what: &str,
    ) -> Result<(), Error> {
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

    /// Checks the action planned for the resource at `address`
    /// (`plancheck.ExpectResourceAction`).
    ///
    /// # Errors
    ///
    /// No change for `address`, or another action: the message names both.
    pub fn expect_resource_action(
        &self,
        address: &str,
        action: ResourceAction,
    ) -> Result<(), Error> {
        let actions = self.actions(address)?;
        let actions: Vec<&str> = actions.iter().map(String::as_str).collect();
        let found = ResourceAction::from_actions(&actions);
        let matches = match (action, found) {
            (ResourceAction::Replace, Some(f)) => matches!(
                f,
                ResourceAction::DestroyBeforeCreate | ResourceAction::CreateBeforeDestroy
            ),
            (a, Some(f)) => a == f,
            (_, None) => false,
        };
        if matches {
            Ok(())
        } else {
            Err(Error::new(format!(
                "`{address}`: expected the action {action:?}, found {actions:?}"
            )))
        }
    }

    /// Checks that the plan imports the resource at `address` and changes nothing in it
    /// (what an import step with an `import {}` block requires); the imported
    /// attributes, as planned.
    ///
    /// # Errors
    ///
    /// No change for `address`, a change that does not import, or one that also updates
    /// or replaces.
    pub fn expect_import(&self, address: &str) -> Result<serde_json::Value, Error> {
        let at = self.change(address)?;
        let change = &self.json["resource_changes"][at]["change"];
        if change["importing"].is_null() {
            return Err(Error::new(format!(
                "`{address}`: expected the plan to import it, but it does not (actions {})",
                change["actions"]
            )));
        }
        if change["actions"] != serde_json::json!(["no-op"]) {
            return Err(Error::new(format!(
                "`{address}`: expected a no-op import, found the actions {} (the imported \
                 object differs from the configuration)",
                change["actions"]
            )));
        }
        Ok(change["after"].clone())
    }

    /// Checks that the refresh found the resource at `address` changed outside
    /// Terraform: Terraform's JSON plan lists it in `resource_drift`.
    ///
    /// # Errors
    ///
    /// No drift for `address` (the message lists what drifted).
    pub fn expect_drift(&self, address: &str) -> Result<(), Error> {
        let drift: Vec<&str> = self.json["resource_drift"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["address"].as_str())
            .collect();
        if drift.contains(&address) {
            Ok(())
        } else {
            Err(Error::new(format!(
                "`{address}`: expected drift, found drift in {drift:?}"
            )))
        }
    }

    fn output_change(&self, name: &str) -> Result<&serde_json::Value, Error> {
        let c = &self.json["output_changes"][name];
        if c.is_null() {
            let known: Vec<&String> = self.json["output_changes"]
                .as_object()
                .map(|o| o.keys().collect())
                .unwrap_or_default();
            return Err(Error::new(format!(
                "the plan has no output `{name}` (it has {known:?})"
            )));
        }
        Ok(c)
    }

    /// Checks the planned value of the root module's output `name` at `path` (empty:
    /// the whole output; `plancheck.ExpectKnownOutputValue` and `..AtPath`); a value only
    /// known after apply is found `(unknown)`, one not set is `null`.
    ///
    /// # Errors
    ///
    /// No such output or path, or a value that does not match.
    pub fn expect_known_output(
        &self,
        name: &str,
        path: &str,
        known: &known::Known,
    ) -> Result<(), Error> {
        let change = self.output_change(name)?;
        let p = parse_path(path)?;
        let fail = |m: known::Mismatch| Error::new(format!("output `{name}`{}", inside(path, &m)));
        if marked(&change["after_unknown"], &p) {
            return known
                .check(&Value::Unknown(tfvalue::Refinements::default()))
                .map_err(fail);
        }
        let raw = [
            Seg::Key("output_changes"),
            Seg::Key(name),
            Seg::Key("after"),
        ];
        let text = raw_at(&self.json.text, &raw).unwrap_or("null");
        // The JSON plan gives an output's type in `planned_values` (Terraform 1.x); the
        // type the JSON implies otherwise.
        let ty = serde_json::from_value::<tfvalue::Type>(
            self.json["planned_values"]["outputs"][name]["type"].clone(),
        )
        .unwrap_or_else(|_| implied_type(&change["after"]));
        let value = Value::from_json(text, &ty)
            .map_err(|e| Error::new(format!("output `{name}` does not decode: {e}")))?;
        let at = value_at(&value, path).map_err(|e| Error::new(format!("output `{name}`: {e}")))?;
        known.check(at).map_err(fail)
    }

    /// Checks that the root module's output `name` (at `path`) is known only after apply
    /// (`plancheck.ExpectUnknownOutputValue`).
    ///
    /// # Errors
    ///
    /// No such output, or a value known in the plan.
    pub fn expect_unknown_output(&self, name: &str, path: &str) -> Result<(), Error> {
        let change = self.output_change(name)?;
        if marked(&change["after_unknown"], &parse_path(path)?) {
            Ok(())
        } else {
            Err(Error::new(format!(
                "output `{name}`{}: expected a value unknown until apply, found {}",
                if path.is_empty() {
                    String::new()
                } else {
                    format!(" at `{path}`")
                },
                change["after"]
            )))
        }
    }

    /// Checks that the root module's output `name` is sensitive
    /// (`plancheck.ExpectSensitiveValue` for an output).
    ///
    /// # Errors
    ///
    /// No such output, or one that is not sensitive.
    pub fn expect_sensitive_output(&self, name: &str) -> Result<(), Error> {
        let change = self.output_change(name)?;
        if change["after_sensitive"] == serde_json::Value::Bool(true) {
            Ok(())
        } else {
            Err(Error::new(format!(
                "output `{name}`: expected a sensitive value, found one that is not"
            )))
        }
    }
}

/// The action Terraform plans for a resource (terraform-plugin-testing's
/// `plancheck.ResourceActionType`), for [`Plan::expect_resource_action`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResourceAction {
    /// `no-op`: nothing changes.
    NoOp,
    /// `create`.
    Create,
    /// `read`: a data source read during apply.
    Read,
    /// `update`: changed in place.
    Update,
    /// `delete`.
    Destroy,
    /// A replacement, in either order.
    Replace,
    /// `delete` then `create`: a replacement, the old object destroyed first.
    DestroyBeforeCreate,
    /// `create` then `delete`: a replacement with `create_before_destroy`.
    CreateBeforeDestroy,
}

impl ResourceAction {
    fn from_actions(actions: &[&str]) -> Option<ResourceAction> {
        Some(match actions {
            ["no-op"] => ResourceAction::NoOp,
            ["create"] => ResourceAction::Create,
            ["read"] => ResourceAction::Read,
            ["update"] => ResourceAction::Update,
            ["delete"] => ResourceAction::Destroy,
            ["delete", "create"] => ResourceAction::DestroyBeforeCreate,
            ["create", "delete"] => ResourceAction::CreateBeforeDestroy,
            _ => return None,
        })
    }
}

/// The type a JSON value implies (as Terraform's `jsondecode` gives it): arrays are
/// tuples, objects are objects, null is dynamic.
pub(super) fn implied_type(v: &serde_json::Value) -> tfvalue::Type {
    use serde_json::Value as J;
    use tfvalue::Type;
    match v {
        J::Null => Type::Dynamic,
        J::Bool(_) => Type::Bool,
        J::Number(_) => Type::Number,
        J::String(_) => Type::String,
        J::Array(items) => Type::tuple(items.iter().map(implied_type)),
        J::Object(fields) => Type::object(fields.iter().map(|(k, v)| (k.clone(), implied_type(v)))),
    }
}
