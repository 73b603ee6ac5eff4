//! Provider schema files (`terraform providers schema -json`) and choosing a block in them.

use tfvalue::schema::{ProviderSchema, ProviderSchemas, Schema};

use crate::input::{read_file, utf8_json};
use crate::suggest::did_you_mean;

/// The kinds of block a provider schema file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Resource,
    DataSource,
    EphemeralResource,
    Provider,
}

impl BlockKind {
    /// "resource type", "data source", ... for messages.
    pub fn noun(self) -> &'static str {
        match self {
            BlockKind::Resource => "resource type",
            BlockKind::DataSource => "data source",
            BlockKind::EphemeralResource => "ephemeral resource type",
            BlockKind::Provider => "provider configuration",
        }
    }

    fn map(self, p: &ProviderSchema) -> Option<&std::collections::BTreeMap<String, Schema>> {
        match self {
            BlockKind::Resource => Some(&p.resource_schemas),
            BlockKind::DataSource => Some(&p.data_source_schemas),
            BlockKind::EphemeralResource => Some(&p.ephemeral_resource_schemas),
            BlockKind::Provider => None,
        }
    }
}

/// A loaded schema file, with its path for messages.
pub struct SchemaFile {
    pub path: String,
    pub all: ProviderSchemas,
}

impl SchemaFile {
    /// Reads and parses the file.
    pub fn load(path: &str) -> Result<SchemaFile, String> {
        let bytes = read_file(path)?;
        let text = utf8_json(path, &bytes)?;
        let all = ProviderSchemas::from_json(text).map_err(|e| format!("{path}: {e}"))?;
        Ok(SchemaFile {
            path: path.to_owned(),
            all,
        })
    }

    fn keys(&self) -> String {
        let keys: Vec<&str> = self
            .all
            .provider_schemas
            .keys()
            .map(String::as_str)
            .collect();
        if keys.is_empty() {
            "none".into()
        } else {
            keys.join(", ")
        }
    }

    /// The only provider in the file, or the one `address` names.
    pub fn provider(&self, address: Option<&str>) -> Result<(&str, &ProviderSchema), String> {
        let path = &self.path;
        match address {
            Some(addr) => self.find_provider(addr).ok_or_else(|| {
                // Compare as many trailing segments as the address has: `acme/shelv`
                // against `acme/shelf` of `registry.terraform.io/acme/shelf`.
                let segments = addr.split('/').count();
                let tail = |k: &'_ str| -> String {
                    let parts: Vec<&str> = k.split('/').collect();
                    parts[parts.len().saturating_sub(segments)..].join("/")
                };
                let tails: Vec<String> =
                    self.all.provider_schemas.keys().map(|k| tail(k)).collect();
                let near = crate::suggest::similar(addr, tails.iter().map(String::as_str));
                let full: Vec<String> = self
                    .all
                    .provider_schemas
                    .keys()
                    .filter(|k| near.contains(&tail(k).as_str()))
                    .map(|k| format!("{k:?}"))
                    .collect();
                let hint = if full.is_empty() {
                    String::new()
                } else {
                    format!("; did you mean {}?", full.join(" or "))
                };
                format!(
                    "{path}: no provider {addr:?} (the file has: {}){hint}",
                    self.keys()
                )
            }),
            None => {
                let mut it = self.all.provider_schemas.iter();
                match (it.next(), it.next()) {
                    (Some((k, p)), None) => Ok((k.as_str(), p)),
                    (None, _) => Err(format!("{path}: no provider schemas in the file")),
                    _ => Err(format!(
                        "{path} has several providers ({}): choose one with --provider-address",
                        self.keys()
                    )),
                }
            }
        }
    }

    /// A provider by the address a state or plan gives: the full address
    /// (`registry.terraform.io/hashicorp/aws`), `hashicorp/aws`, or the bare name of
    /// Terraform 0.12 (`aws`). Files written by Terraform 0.12 key providers by bare name.
    pub fn find_provider(&self, addr: &str) -> Option<(&str, &ProviderSchema)> {
        let all = &self.all.provider_schemas;
        if let Some((k, p)) = all.get_key_value(addr) {
            return Some((k.as_str(), p));
        }
        if addr.contains('/') {
            let suffix = format!("/{addr}");
            let mut found = all.iter().filter(|(k, _)| k.ends_with(&suffix));
            if let (Some((k, p)), None) = (found.next(), found.next()) {
                return Some((k.as_str(), p));
            }
        }
        // By the provider's type name alone: "aws" matches ".../aws" and "aws".
        let name = addr.rsplit('/').next().unwrap_or(addr);
        let ns = addr.rsplit('/').nth(1);
        let same_name: Vec<(&String, &ProviderSchema)> = all
            .iter()
            .filter(|(k, _)| k.rsplit('/').next() == Some(name))
            .collect();
        let pick = |ns: &str| {
            let mut f = same_name
                .iter()
                .filter(|(k, _)| !k.contains('/') || k.rsplit('/').nth(1) == Some(ns));
            match (f.next(), f.next()) {
                (Some((k, p)), None) => Some((k.as_str(), *p)),
                _ => None,
            }
        };
        match ns {
            // "-" is the legacy namespace of states upgraded from Terraform 0.12.
            Some("-") if same_name.len() == 1 => Some((same_name[0].0.as_str(), same_name[0].1)),
            Some("-") => pick("hashicorp"),
            Some(ns) => pick(ns),
            None if same_name.len() == 1 => Some((same_name[0].0.as_str(), same_name[0].1)),
            // Terraform 0.12's bare names meant the hashicorp namespace.
            None => pick("hashicorp"),
        }
    }
}

/// One block of a provider.
pub fn block<'p>(
    path: &str,
    provider_addr: &str,
    provider: &'p ProviderSchema,
    kind: BlockKind,
    name: &str,
) -> Result<&'p Schema, String> {
    let Some(map) = kind.map(provider) else {
        return provider.provider.as_ref().ok_or_else(|| {
            format!("{path}: {provider_addr} has no provider configuration schema")
        });
    };
    if let Some(s) = map.get(name) {
        return Ok(s);
    }
    let mut hint = did_you_mean(name, map.keys().map(String::as_str));
    if hint.is_empty() {
        // The name may be of another kind: say which.
        for other in [
            BlockKind::Resource,
            BlockKind::DataSource,
            BlockKind::EphemeralResource,
        ] {
            if other != kind && other.map(provider).is_some_and(|m| m.contains_key(name)) {
                let article = if other.noun().starts_with('e') {
                    "an"
                } else {
                    "a"
                };
                hint = format!("; it is {article} {} (use {})", other.noun(), flag(other));
            }
        }
    }
    Err(format!(
        "{path}: {provider_addr} has no {} {name:?}{hint}",
        kind.noun()
    ))
}

/// The option that selects a kind of block.
pub fn flag(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::Resource => "--resource",
        BlockKind::DataSource => "--data-source",
        BlockKind::EphemeralResource => "--ephemeral-resource",
        BlockKind::Provider => "--provider",
    }
}

/// The names a provider has, for `tfvalue schema FILE` without a block.
pub fn listing(file: &SchemaFile) -> String {
    let mut out = String::new();
    for (addr, p) in &file.all.provider_schemas {
        out.push_str(&crate::diff::printable(addr));
        out.push('\n');
        if p.provider.is_some() {
            out.push_str("  provider configuration (--provider)\n");
        }
        for kind in [
            BlockKind::Resource,
            BlockKind::DataSource,
            BlockKind::EphemeralResource,
        ] {
            if let Some(map) = kind.map(p) {
                for (name, s) in map {
                    out.push_str(&format!(
                        "  {} {} (version {})\n",
                        flag(kind),
                        crate::diff::printable(name),
                        s.version
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(keys: &[&str]) -> SchemaFile {
        let providers: serde_json::Map<String, serde_json::Value> = keys
            .iter()
            .map(|k| (k.to_string(), serde_json::json!({})))
            .collect();
        let json = serde_json::json!({"format_version": "1.0", "provider_schemas": providers});
        SchemaFile {
            path: "schema.json".into(),
            all: ProviderSchemas::from_json(json.to_string().as_bytes()).unwrap(),
        }
    }

    #[test]
    fn providers_are_found_by_any_address_form() {
        let f = file(&[
            "registry.terraform.io/hashicorp/aws",
            "registry.terraform.io/acme/aws",
            "registry.terraform.io/acme/shelf",
        ]);
        let find = |a: &str| f.find_provider(a).map(|(k, _)| k.to_owned());
        assert_eq!(
            find("registry.terraform.io/acme/shelf").as_deref(),
            Some("registry.terraform.io/acme/shelf")
        );
        assert_eq!(
            find("acme/shelf").as_deref(),
            Some("registry.terraform.io/acme/shelf")
        );
        assert_eq!(
            find("shelf").as_deref(),
            Some("registry.terraform.io/acme/shelf")
        );
        // a bare name of Terraform 0.12 means hashicorp when several match
        assert_eq!(
            find("aws").as_deref(),
            Some("registry.terraform.io/hashicorp/aws")
        );
        assert_eq!(
            find("registry.terraform.io/-/aws").as_deref(),
            Some("registry.terraform.io/hashicorp/aws")
        );
        assert_eq!(find("other/aws"), None);
        // a schema file of Terraform 0.12 names providers bare
        let old = file(&["aws"]);
        assert_eq!(
            old.find_provider("registry.terraform.io/hashicorp/aws")
                .map(|(k, _)| k),
            Some("aws")
        );
    }
}
