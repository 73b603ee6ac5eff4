//! Configuration generated from state: what `terraform plan -generate-config-out` and
//! `terraform query -generate-config-out` write for an imported or listed object
//! (tfplugin `GenerateResourceConfig`).

use super::{Attribute, AttributeType, Block, NestedType, NestingMode};
use crate::value::{Map, Value};
use std::collections::BTreeMap;

impl Block {
    /// The configuration that describes `state` (an object of this block): every
    /// attribute a configuration may set keeps its value, and what only the provider
    /// sets (computed-only attributes) or what is never stored (write-only attributes)
    /// becomes null, at any depth. Planned against the same state, such a configuration
    /// gives no change: optional and computed values are kept as they are, and so are
    /// values equal to a default.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new()
    ///     .attribute("id", Attribute::computed(Type::String))
    ///     .attribute("name", Attribute::required(Type::String))
    ///     .attribute("size", Attribute::optional_computed(Type::Number));
    /// let state = Value::Object([
    ///     ("id".to_owned(), Value::from("i-1")),
    ///     ("name".to_owned(), Value::from("web")),
    ///     ("size".to_owned(), Value::from(3)),
    /// ].into());
    /// let config = block.config_from_state(state);
    /// assert_eq!(config["id"], Value::Null);
    /// assert_eq!(config["name"], "web");
    /// assert_eq!(config["size"], Value::from(3));
    /// ```
    ///
    /// A null state (a listed object whose state the provider did not send) gives the
    /// block's empty value: every attribute null, no nested blocks.
    pub fn config_from_state(&self, mut state: Value) -> Value {
        if state.is_null() {
            return self.empty_value();
        }
        config_in_block(self, &mut state);
        state
    }

    /// The value of this block in a configuration that writes nothing in it: every
    /// attribute null, single blocks null, list and set blocks empty, map blocks empty,
    /// group blocks their own empty value (configschema's `EmptyValue`).
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, NestedBlock, NestingMode};
    /// use tfvalue::{Type, Value};
    ///
    /// let block = Block::new()
    ///     .attribute("name", Attribute::optional(Type::String))
    ///     .block("rule", NestedBlock::new(NestingMode::List, Block::new()));
    /// let empty = block.empty_value();
    /// assert_eq!(empty["name"], Value::Null);
    /// assert_eq!(empty["rule"], Value::List(vec![]));
    /// ```
    pub fn empty_value(&self) -> Value {
        let mut fields = Map::new();
        for name in self.attributes.keys() {
            fields.insert(name.clone(), Value::Null);
        }
        for (name, nested) in &self.block_types {
            let v = match nested.nesting {
                NestingMode::Single => Value::Null,
                NestingMode::Group => nested.block.empty_value(),
                NestingMode::List => Value::List(Vec::new()),
                NestingMode::Set => Value::Set(Vec::new()),
                NestingMode::Map => Value::Map(Map::new()),
            };
            fields.insert(name.clone(), v);
        }
        Value::Object(fields)
    }
}

fn config_in_block(block: &Block, value: &mut Value) {
    let Value::Object(fields) = value else {
        return;
    };
    config_in_attributes(&block.attributes, fields);
    for (name, nested) in &block.block_types {
        if let Some(v) = fields.get_mut(name.as_str()) {
            for_each_object(v, |o| config_in_block(&nested.block, o));
        }
    }
}

fn config_in_attributes(attributes: &BTreeMap<String, Attribute>, fields: &mut Map) {
    for (name, attr) in attributes {
        if let Some(v) = fields.get_mut(name.as_str()) {
            config_in_attribute(attr, v);
        }
    }
}

fn config_in_attribute(attr: &Attribute, v: &mut Value) {
    if attr.is_computed_only() || attr.write_only {
        *v = Value::Null;
        return;
    }
    if let AttributeType::Nested(nested) = &attr.ty {
        for_each_object(v, |o| config_in_nested(nested, o));
    }
}

fn config_in_nested(nested: &NestedType, value: &mut Value) {
    if let Value::Object(fields) = value {
        config_in_attributes(&nested.attributes, fields);
    }
}

/// Runs `f` on the object itself or on each element of a list, set or map of objects.
fn for_each_object(v: &mut Value, mut f: impl FnMut(&mut Value)) {
    match v {
        Value::Object(_) => f(v),
        Value::List(items) | Value::Set(items) => items.iter_mut().for_each(f),
        Value::Map(m) => m.values_mut().for_each(f),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::{Attribute, Block, NestedBlock, NestedType, NestingMode, ObjectNesting};
    use crate::{Type, Value};

    fn obj(fields: &[(&str, Value)]) -> Value {
        Value::Object(
            fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn computed_only_and_write_only_values_go_at_every_depth() {
        let rule = Block::new()
            .attribute("port", Attribute::required(Type::Number))
            .attribute("rule_id", Attribute::computed(Type::String));
        let member = NestedType::new(ObjectNesting::Set)
            .attribute("name", Attribute::required(Type::String))
            .attribute("uid", Attribute::computed(Type::String));
        let block = Block::new()
            .attribute("id", Attribute::computed(Type::String))
            .attribute("name", Attribute::required(Type::String))
            .attribute("note", Attribute::optional(Type::String))
            .attribute("secret_wo", Attribute::optional(Type::String).write_only())
            .attribute("members", Attribute::nested(member))
            .block("rule", NestedBlock::new(NestingMode::List, rule));
        let state = obj(&[
            ("id", "x-1".into()),
            ("name", "web".into()),
            ("note", Value::Null),
            ("secret_wo", "leaked".into()),
            (
                "members",
                Value::Set(vec![obj(&[("name", "a".into()), ("uid", "u-1".into())])]),
            ),
            (
                "rule",
                Value::List(vec![
                    obj(&[("port", 80.into()), ("rule_id", "r-1".into())]),
                    obj(&[("port", 443.into()), ("rule_id", "r-2".into())]),
                ]),
            ),
        ]);
        let config = block.config_from_state(state);
        assert_eq!(config["id"], Value::Null);
        assert_eq!(config["secret_wo"], Value::Null);
        assert_eq!(config["name"], "web");
        assert_eq!(config["note"], Value::Null);
        assert_eq!(
            config["members"],
            Value::Set(vec![obj(&[("name", "a".into()), ("uid", Value::Null)])])
        );
        assert_eq!(config["rule"][1]["port"], Value::from(443));
        assert_eq!(config["rule"][0]["rule_id"], Value::Null);
        assert_eq!(config["rule"][1]["rule_id"], Value::Null);
    }
}
