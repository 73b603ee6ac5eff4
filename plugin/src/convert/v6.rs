//! tfplugin6 conversions: the shared ones, and schemas with nested attribute types.

crate::convert::common_conversions!(tfplugin6);

use tfvalue::schema::{AttributeType, NestedType, ObjectNesting};

fn to_attribute(
    name: &str,
    a: &tfvalue::schema::Attribute,
    at: &mut String,
) -> Result<pb::schema::Attribute, String> {
    let (ty, nested_type) = match &a.ty {
        AttributeType::Type(t) => (type_json(t)?, None),
        AttributeType::Nested(n) => (Vec::new(), Some(to_object(n, at)?)),
        #[allow(unreachable_patterns)]
        _ => return Err(format!("attribute type at {at} has no protocol form")),
    };
    Ok(pb::schema::Attribute {
        name: name.to_owned(),
        r#type: ty,
        nested_type,
        description: crate::convert::attribute_description(a),
        required: a.required,
        optional: a.optional,
        computed: a.computed,
        sensitive: a.sensitive,
        description_kind: string_kind(a.description_kind),
        // Terraform refuses a deprecation message on what is not deprecated.
        deprecated: a.deprecated || a.deprecation_message.is_some(),
        write_only: a.write_only,
        deprecation_message: a.deprecation_message.clone().unwrap_or_default(),
    })
}

fn to_object(n: &NestedType, at: &mut String) -> Result<pb::schema::Object, String> {
    use pb::schema::object::NestingMode as N;
    let nesting = match n.nesting {
        ObjectNesting::Single => N::Single,
        ObjectNesting::List => N::List,
        ObjectNesting::Set => N::Set,
        ObjectNesting::Map => N::Map,
        #[allow(unreachable_patterns)]
        other => {
            return Err(format!(
                "object nesting {other:?} at {at} has no protocol form"
            ))
        }
    } as i32;
    let mut attributes = Vec::with_capacity(n.attributes.len());
    for (name, a) in &n.attributes {
        let len = at.len();
        at.push('.');
        at.push_str(name);
        attributes.push(to_attribute(name, a, at)?);
        at.truncate(len);
    }
    #[allow(deprecated)]
    Ok(pb::schema::Object {
        attributes,
        nesting,
        min_items: 0,
        max_items: 0,
    })
}

fn attribute(a: pb::schema::Attribute) -> Result<tfvalue::schema::Attribute, String> {
    let base = match &a.nested_type {
        Some(o) => tfvalue::schema::Attribute::nested(object(o.clone())?),
        None => tfvalue::schema::Attribute::of_type(from_type_json(&a.r#type)?),
    };
    Ok(facts(base, &a))
}

fn object(o: pb::schema::Object) -> Result<NestedType, String> {
    use pb::schema::object::NestingMode as N;
    let nesting = match N::try_from(o.nesting) {
        Ok(N::Single) => ObjectNesting::Single,
        Ok(N::List) => ObjectNesting::List,
        Ok(N::Set) => ObjectNesting::Set,
        Ok(N::Map) => ObjectNesting::Map,
        _ => return Err(format!("invalid object nesting mode {}", o.nesting)),
    };
    let mut out = NestedType::new(nesting);
    for a in o.attributes {
        let name = a.name.clone();
        out = out.attribute(name, attribute(a)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfvalue::schema::{Attribute, Block, NestedBlock, Schema};

    fn sample() -> Schema {
        Schema::new(
            2,
            Block::new()
                .attribute("name", Attribute::required(Type::String))
                .attribute("id", Attribute::computed(Type::String).sensitive())
                .attribute(
                    "endpoints",
                    Attribute::nested(
                        NestedType::list()
                            .attribute("host", Attribute::required(Type::String))
                            .attribute("port", Attribute::optional(Type::Number)),
                    )
                    .set_optional(),
                )
                .block(
                    "disk",
                    NestedBlock::list(
                        Block::new().attribute("size", Attribute::required(Type::Number)),
                    )
                    .min_items(1)
                    .max_items(3),
                ),
        )
    }

    #[test]
    fn schemas_round_trip() {
        let s = sample();
        let pb = to_schema(&s).unwrap();
        let attrs = &pb.block.as_ref().unwrap().attributes;
        let endpoints = attrs.iter().find(|a| a.name == "endpoints").unwrap();
        assert!(endpoints.r#type.is_empty());
        assert_eq!(endpoints.nested_type.as_ref().unwrap().attributes.len(), 2);
        let name = attrs.iter().find(|a| a.name == "name").unwrap();
        assert_eq!(name.r#type, br#""string""#);
        assert_eq!(schema(pb).unwrap(), s);
    }

    #[test]
    fn diagnostics_round_trip() {
        let d = Diagnostic::warning("w")
            .with_detail("d")
            .at(AttributePath::new().attr("a").key("k").index(2));
        let back = diagnostics(to_diagnostics(vec![d.clone()], None));
        assert_eq!(back, [d]);
    }
}
