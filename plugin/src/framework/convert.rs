//! Models to and from the values of the protocol, for a schema that may differ from the
//! model's (a resource that serves fewer attributes over protocol 5, say).
//!
//! Models travel as MessagePack: MessagePack, what Terraform sends, goes straight into
//! the model, and anything else (JSON, which Terraform never sends in a request but
//! another client may; a [`Value`], through [`model_of_value`]) is made MessagePack
//! first. So the one decoder compiled for each model of the provider's crate is the one
//! its requests need, and it is the decoder `#[derive(TfValue)]` writes for the model
//! (`tfvalue::__private::decode_model_as`), not serde's (`plugin/README.md`, "Build
//! times").

use tfvalue::schema::{Block, NestingMode, Schema};
use tfvalue::{DynamicValue, Map, Type, Value};

use super::{Model, Result};
use crate::diagnostic::{Diagnostic, Diagnostics};

/// The schema a model travels in.
#[derive(Debug)]
pub(crate) struct Wire {
    pub(crate) schema: Schema,
    pub(crate) ty: std::sync::Arc<Type>,
    /// The model's own type (the same `Arc` as `ty` when the two are one).
    pub(crate) model_ty: std::sync::Arc<Type>,
    /// Whether the schema's type is the model's: then models go straight to and from
    /// the wire.
    same: bool,
    /// Whether the schema has write-only attributes: then every value the provider
    /// answers with has them set to null on the way out.
    pub(crate) write_only: bool,
}

impl Wire {
    pub(crate) fn new<M: Model>(schema: Schema) -> Self {
        Wire::with_model_type(schema, M::tf_type())
    }

    // The work of `new`, not generic (compiled once, not for each model).
    fn with_model_type(schema: Schema, model_ty: Type) -> Self {
        let ty = std::sync::Arc::new(schema.implied_type());
        let same = *ty == model_ty;
        let model_ty = if same {
            ty.clone()
        } else {
            std::sync::Arc::new(model_ty)
        };
        let write_only = schema.block.has_write_only();
        Wire {
            schema,
            ty,
            model_ty,
            same,
            write_only,
        }
    }
}

/// The explanation added to a value that does not fit its model, where the model cannot
/// hold what Terraform sends.
fn hint(e: &tfvalue::Error) -> &'static str {
    let m = e.message();
    if m.contains("unknown") {
        " (Terraform sends an unknown value wherever configuration refers to something not known yet: declare the field `Unknown<..>`, or the element type `Unknown<..>` for an element of a list, set or map that may be unknown: `Vec<Unknown<Subnet>>`)"
    } else if m.contains("null") {
        " (declare the field `Option<..>` to hold null)"
    } else {
        ""
    }
}

/// A diagnostic for a value that does not fit the model.
pub(crate) fn misfit(what: &str, type_name: &str, e: &tfvalue::Error) -> Diagnostic {
    Diagnostic::error(format!("{what} of `{type_name}` does not fit its model"))
        .with_detail(format!("{}{}", e.message(), hint(e)))
        .at(e.path().clone())
}

/// `v` as a model (`None`: null): encoded as MessagePack, then decoded. The value is
/// written as its own structure says, in its own order, as the model reads it: a value of
/// the model's type (the planner's values conform already).
fn model_of_value<M: Model>(v: &Value) -> tfvalue::Result<Option<M>> {
    tfvalue::__private::model_from_msgpack(&msgpack_of(v)?)
}

/// `v` as MessagePack, as its own structure says. Not generic: compiled once, here.
fn msgpack_of(v: &Value) -> tfvalue::Result<Vec<u8>> {
    tfvalue::msgpack::to_vec(v)
}

/// [`decode`] of a value Terraform never sends null (a configuration, a filter): null is
/// the error `null`.
pub(crate) fn decode_present<M: Model>(
    dv: &DynamicValue,
    wire: &Wire,
    what: &str,
    type_name: &str,
    null: &str,
) -> Result<M> {
    match decode::<M>(dv, wire, what, type_name)? {
        Some(m) => Ok(m),
        None => Err(Diagnostic::error(null).into()),
    }
}

/// A model as a [`Value`] of its own type `ty`: encoded as MessagePack (the encoder its
/// responses use), then decoded.
pub(crate) fn to_value<M: Model>(m: &M, ty: &Type) -> tfvalue::Result<Value> {
    let dv = DynamicValue::encode_model(m)?;
    dv.decode_value(ty)
}

/// Decodes a value of the wire schema into a model; `None` for null.
pub(crate) fn decode<M: Model>(
    dv: &DynamicValue,
    wire: &Wire,
    what: &str,
    type_name: &str,
) -> Result<Option<M>> {
    let decoded = if wire.same {
        tfvalue::__private::decode_model_as::<M>(dv, &wire.ty)
    } else {
        dv.decode_value(&wire.ty)
            .and_then(|v| from_wire_value::<M>(v, false))
    };
    decoded.map_err(|e| misfit(what, type_name, &e).into())
}

/// A value of the wire type as a model: the model's attributes that the wire lacks are
/// null (blocks empty); `same`: the wire type is the model's, and lacks none.
pub(crate) fn from_wire_value<M: Model>(mut v: Value, same: bool) -> tfvalue::Result<Option<M>> {
    if v.is_null() {
        return Ok(None);
    }
    if let (false, Value::Object(m)) = (same, &mut v) {
        fill_missing(m, &M::block());
    }
    model_of_value(&v)
}

/// The value a planner over values works on (where the request's bytes are not planned
/// over), as a model: through MessagePack, as [`model_of_value`], so that no `Value`
/// deserializer is compiled for the model (it was 6% of LLVM's optimization time of
/// `plugin/examples/kv.rs`, `plugin/README.md`, "Build times"), at 5-6% more
/// instructions for such a plan.
pub(crate) fn model_from_value<M: Model>(
    v: Value,
    wire: &Wire,
    what: &str,
    type_name: &str,
) -> Result<Option<M>> {
    from_wire_value(v, wire.same).map_err(|e| misfit(what, type_name, &e).into())
}

fn fill_missing(m: &mut Map, block: &Block) {
    for name in block.attributes.keys() {
        if !m.contains_key(name.as_str()) {
            m.insert(name.clone(), Value::Null);
        }
    }
    for (name, nb) in &block.block_types {
        if !m.contains_key(name.as_str()) {
            m.insert(name.clone(), empty_block(nb.nesting, &nb.block));
        }
    }
}

/// What Terraform sends for a block that configuration leaves out.
fn empty_block(nesting: NestingMode, block: &Block) -> Value {
    match nesting {
        NestingMode::List => Value::List(Vec::new()),
        NestingMode::Set => Value::Set(Vec::new()),
        NestingMode::Map => Value::Map(Map::new()),
        NestingMode::Group => stub(block),
        _ => Value::Null,
    }
}

/// An object of `block` with every attribute null and every block empty.
fn stub(block: &Block) -> Value {
    let mut m = Map::new();
    fill_missing(&mut m, block);
    Value::Object(m)
}

/// Encodes a model (`None`: null) in the wire schema.
pub(crate) fn encode<M: Model>(
    m: Option<&M>,
    wire: &Wire,
    what: &str,
    type_name: &str,
) -> Result<DynamicValue> {
    encode_like(m, wire, what, type_name, 0)
}

/// [`encode`], into a buffer sized for about `like` bytes (the size of a request's value
/// the model came from): a large value is written without growing its buffer by
/// doubling, which would hold up to twice its size, and half again while it moves.
pub(crate) fn encode_like<M: Model>(
    m: Option<&M>,
    wire: &Wire,
    what: &str,
    type_name: &str,
    like: usize,
) -> Result<DynamicValue> {
    let Some(m) = m else {
        return Ok(null());
    };
    let encoded = if wire.same && !wire.write_only {
        if like > 64 * 1024 {
            let capacity = like.saturating_add(like / 8);
            let mut ser = tfvalue::msgpack::Serializer::with_buffer(Vec::with_capacity(capacity));
            m.__wire_encode(&mut ser)
                .map(|()| DynamicValue::from_msgpack(ser.into_inner()))
        } else {
            DynamicValue::encode_model(m)
        }
    } else {
        to_value(m, &wire.model_ty).and_then(|mut v| {
            // Terraform refuses a plan or a state that holds a write-only value.
            if wire.write_only {
                wire.schema.block.null_write_only(&mut v);
            }
            if let Value::Object(map) = &mut v {
                let block = &wire.schema.block;
                map.retain(|k, _| {
                    block.attributes.contains_key(k.as_ref())
                        || block.block_types.contains_key(k.as_ref())
                });
            }
            DynamicValue::encode_value(&v, &wire.ty)
        })
    };
    encoded.map_err(|e| {
        Diagnostics::from(
            Diagnostic::error(format!("{what} of `{type_name}` does not encode"))
                .with_detail(e.message())
                .at(e.path().clone()),
        )
    })
}

/// The size of a value as it came (its MessagePack, or its JSON).
pub(crate) fn wire_len(dv: &DynamicValue) -> usize {
    dv.msgpack.len().max(dv.json.len())
}

/// Null, as MessagePack.
pub(crate) fn null() -> DynamicValue {
    DynamicValue::from_msgpack(vec![0xc0])
}

/// The model that [`Resource::import`](super::Resource::import) hands to `read` by
/// default: `attr` set to `id`, every other attribute null, every block empty.
///
/// # Errors
///
/// The model has no attribute `attr`, or cannot hold null where the stub has it.
pub fn import_stub<M: Model>(attr: &str, id: &str) -> Result<M> {
    let block = M::block();
    if !block.attributes.contains_key(attr) {
        return Err(Diagnostic::error("cannot import by id")
            .with_detail(format!(
                "The model `{}` has no attribute `{attr}` to import by: set `Resource::IMPORT_ID` or implement `Resource::import`.",
                std::any::type_name::<M>()
            ))
            .into());
    }
    let mut v = stub(&block);
    if let Value::Object(m) = &mut v {
        m.insert(attr.to_owned(), Value::from(id));
    }
    let decoded = model_of_value::<M>(&v).and_then(|m| {
        m.ok_or_else(|| <tfvalue::Error as serde::de::Error>::custom("the stub is null"))
    });
    decoded.map_err(|e| {
        Diagnostic::error("cannot import by id")
            .with_detail(format!(
                "A `{}` with only `{attr}` set does not fit the model: {}{}; implement `Resource::import`.",
                std::any::type_name::<M>(),
                e.message(),
                hint(&e)
            ))
            .into()
    })
}
