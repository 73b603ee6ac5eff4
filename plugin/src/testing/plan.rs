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
}
