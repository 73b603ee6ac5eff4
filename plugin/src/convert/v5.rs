//! tfplugin5 conversions: the shared ones, and schemas without nested attribute types.

crate::convert::common_conversions!(tfplugin5);

use tfvalue::schema::AttributeType;

fn to_attribute(
    name: &str,
    a: &tfvalue::schema::Attribute,
    at: &mut String,
) -> Result<pb::schema::Attribute, String> {
    let ty = match &a.ty {
        AttributeType::Type(t) => type_json(t)?,
        _ => {
            return Err(format!(
                "attribute `{at}` has nested attributes (nested_type), which protocol 5 cannot carry: serve protocol 6, or make it a block"
            ))
        }
    };
    Ok(pb::schema::Attribute {
        name: name.to_owned(),
        r#type: ty,
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

fn attribute(a: pb::schema::Attribute) -> Result<tfvalue::schema::Attribute, String> {
    let base = tfvalue::schema::Attribute::of_type(from_type_json(&a.r#type)?);
    Ok(facts(base, &a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfvalue::schema::{Attribute, Block, NestedType, Schema};

    #[test]
    fn nested_attributes_are_an_error_naming_the_attribute() {
        let s = Schema::new(
            0,
            Block::new().block(
                "outer",
                tfvalue::schema::NestedBlock::single(
                    Block::new().attribute(
                        "endpoints",
                        Attribute::nested(
                            NestedType::list().attribute("host", Attribute::required(Type::String)),
                        )
                        .set_optional(),
                    ),
                ),
            ),
        );
        let err = to_schema(&s).unwrap_err();
        assert!(
            err.starts_with("attribute `outer.endpoints` has nested attributes"),
            "{err}"
        );
    }

    #[test]
    fn plain_schemas_round_trip() {
        let s = Schema::new(
            1,
            Block::new()
                .attribute("name", Attribute::required(Type::String))
                .attribute("tags", Attribute::optional(Type::map(Type::String))),
        );
        assert_eq!(schema(to_schema(&s).unwrap()).unwrap(), s);
    }
}
