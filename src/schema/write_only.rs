//! Write-only attributes (Terraform 1.11): values that are only ever in configuration.
//! Terraform refuses a plan, a new state or a read result that holds one, so whatever
//! produces those values clears them first, and a server checks that none is left.

use super::{Attribute, AttributeType, Block, NestedType};
use crate::path::AttributePath;
use crate::value::{Map, Value};
use std::collections::BTreeMap;

impl Block {
    /// Whether any attribute of the block, of its nested attributes or of its nested
    /// blocks is write-only.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block};
    /// use tfvalue::Type;
    ///
    /// let block = Block::new().attribute("password_wo", Attribute::optional(Type::String).write_only());
    /// assert!(block.has_write_only());
    /// assert!(!Block::new().has_write_only());
    /// ```
    pub fn has_write_only(&self) -> bool {
        self.attributes.values().any(attribute_has_write_only)
            || self.block_types.values().any(|b| b.block.has_write_only())
    }

    /// Sets every write-only attribute of `value` (an object of this block) to null,
    /// also inside nested attributes and nested blocks; returns whether anything changed.
    /// What a provider answers for a plan, a new state, a read, an import or an upgrade
    /// goes through this: Terraform refuses a write-only value in any of them.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new()
    ///     .attribute("name", Attribute::required(Type::String))
    ///     .attribute("password_wo", Attribute::optional(Type::String).write_only());
    /// let mut v = Value::Object([
    ///     ("name".to_owned(), Value::from("db")),
    ///     ("password_wo".to_owned(), Value::from("hunter2")),
    /// ].into());
    /// assert!(block.null_write_only(&mut v));
    /// assert_eq!(v["password_wo"], Value::Null);
    /// assert_eq!(v["name"], "db");
    /// ```
    pub fn null_write_only(&self, value: &mut Value) -> bool {
        let Value::Object(fields) = value else {
            return false;
        };
        let mut changed = null_in_attributes(&self.attributes, fields);
        for (name, nested) in &self.block_types {
            if !nested.block.has_write_only() {
                continue;
            }
            if let Some(v) = fields.get_mut(name.as_str()) {
                for_each_element(v, |b| changed |= nested.block.null_write_only(b));
            }
        }
        changed
    }

    /// The path of the first write-only attribute of `value` (an object of this block)
    /// that is not null, if any.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block};
    /// use tfvalue::{AttributePath, Type, Value};
    ///
    /// let block = Block::new().attribute("password_wo", Attribute::optional(Type::String).write_only());
    /// let v = Value::Object([("password_wo".to_owned(), Value::from("hunter2"))].into());
    /// assert_eq!(block.find_write_only(&v), Some(AttributePath::new().attr("password_wo")));
    /// ```
    pub fn find_write_only(&self, value: &Value) -> Option<AttributePath> {
        find_in_block(self, value, AttributePath::new())
    }
}

fn attribute_has_write_only(attr: &Attribute) -> bool {
    attr.write_only
        || matches!(&attr.ty, AttributeType::Nested(n)
            if n.attributes.values().any(attribute_has_write_only))
}

fn null_in_attribute(attr: &Attribute, v: &mut Value) -> bool {
    if attr.write_only {
        let was_set = !v.is_null();
        *v = Value::Null;
        return was_set;
    }
    let AttributeType::Nested(nested) = &attr.ty else {
        return false;
    };
    if !nested.attributes.values().any(attribute_has_write_only) {
        return false;
    }
    let mut changed = false;
    for_each_element(v, |o| changed |= null_in_nested(nested, o));
    changed
}

fn null_in_nested(nested: &NestedType, value: &mut Value) -> bool {
    match value {
        Value::Object(fields) => null_in_attributes(&nested.attributes, fields),
        _ => false,
    }
}

/// [`null_in_attribute`] for each of `attributes` present in `fields`.
fn null_in_attributes(attributes: &BTreeMap<String, Attribute>, fields: &mut Map) -> bool {
    let mut changed = false;
    for (name, attr) in attributes {
        if let Some(v) = fields.get_mut(name.as_str()) {
            changed |= null_in_attribute(attr, v);
        }
    }
    changed
}

/// Runs `f` on the object itself (single nesting) or on each element of a list or map.
/// Sets are left alone: Terraform allows no write-only attribute inside one
/// ([`Block::check_schema`] refuses it), and changing an element could merge two.
fn for_each_element(v: &mut Value, mut f: impl FnMut(&mut Value)) {
    match v {
        Value::Object(_) => f(v),
        Value::List(items) => items.iter_mut().for_each(f),
        Value::Map(m) => m.values_mut().for_each(f),
        _ => {}
    }
}

fn find_in_block(block: &Block, value: &Value, path: AttributePath) -> Option<AttributePath> {
    let Value::Object(fields) = value else {
        return None;
    };
    for (name, attr) in &block.attributes {
        if let Some(v) = fields.get(name.as_str()) {
            if let Some(p) = find_in_attribute(attr, v, path.clone().attr(name.as_str())) {
                return Some(p);
            }
        }
    }
    for (name, nested) in &block.block_types {
        if let Some(v) = fields.get(name.as_str()) {
            let found = find_in_elements(v, path.clone().attr(name.as_str()), |o, p| {
                find_in_block(&nested.block, o, p)
            });
            if found.is_some() {
                return found;
            }
        }
    }
    None
}

fn find_in_attribute(attr: &Attribute, v: &Value, path: AttributePath) -> Option<AttributePath> {
    if attr.write_only {
        return (!v.is_null()).then_some(path);
    }
    let AttributeType::Nested(nested) = &attr.ty else {
        return None;
    };
    find_in_elements(v, path, |o, p| {
        let Value::Object(fields) = o else {
            return None;
        };
        nested.attributes.iter().find_map(|(name, a)| {
            fields
                .get(name.as_str())
                .and_then(|v| find_in_attribute(a, v, p.clone().attr(name.as_str())))
        })
    })
}

fn find_in_elements(
    v: &Value,
    path: AttributePath,
    f: impl Fn(&Value, AttributePath) -> Option<AttributePath>,
) -> Option<AttributePath> {
    match v {
        Value::Object(_) => f(v, path),
        Value::List(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, o)| f(o, path.clone().index(i as u64))),
        Value::Map(m) => m
            .iter()
            .find_map(|(k, o)| f(o, path.clone().key(k.as_ref()))),
        Value::Set(items) => items.iter().find_map(|o| f(o, path.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{NestedBlock, NestingMode};
    use crate::Type;

    fn obj(fields: &[(&str, Value)]) -> Value {
        Value::Object(
            fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn write_only_values_are_found_and_nulled_at_any_depth() {
        let inner = Block::new()
            .attribute("port", Attribute::optional(Type::Number))
            .attribute("token_wo", Attribute::optional(Type::String).write_only());
        let block = Block::new()
            .attribute("name", Attribute::required(Type::String))
            .attribute(
                "users",
                Attribute::nested(
                    NestedType::list()
                        .attribute("login", Attribute::required(Type::String))
                        .attribute(
                            "password_wo",
                            Attribute::optional(Type::String).write_only(),
                        ),
                )
                .set_optional(),
            )
            .block("rule", NestedBlock::new(NestingMode::Map, inner));
        assert!(block.has_write_only());
        let mut v = obj(&[
            ("name", Value::from("db")),
            (
                "users",
                Value::List(vec![
                    obj(&[("login", "a".into()), ("password_wo", Value::Null)]),
                    obj(&[("login", "b".into()), ("password_wo", "pw".into())]),
                ]),
            ),
            (
                "rule",
                Value::Map(
                    [(
                        "x".to_owned(),
                        obj(&[("port", Value::Null), ("token_wo", "t".into())]),
                    )]
                    .into(),
                ),
            ),
        ]);
        assert_eq!(
            block.find_write_only(&v),
            Some(
                AttributePath::new()
                    .attr("users")
                    .index(1)
                    .attr("password_wo")
            )
        );
        assert!(block.null_write_only(&mut v));
        assert_eq!(block.find_write_only(&v), None);
        assert_eq!(v["users"][1]["login"], "b");
        assert_eq!(v["rule"]["x"]["token_wo"], Value::Null);
        assert!(!block.null_write_only(&mut v), "nothing left to null");
    }
}
