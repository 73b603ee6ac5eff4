//! Planning a create over the request's MessagePack: [`DynamicValue::plan_create`].
//!
//! On a create whose configuration is the proposal, the planner's only work is to plan
//! each computed attribute that configuration leaves null (see
//! [`Planner::plan_create`]): unknown, with its declared refinements, or its default.
//! Without a [`Planner::refine_with`] function (which needs the path of each value),
//! that is a rewrite of the nils at those places; everything else is copied as it is.
//! What this walk does not cover (a nested attribute's default, an unexpected item, a
//! nesting past the limit) it leaves to the planner over a [`Value`], and says so.

use std::collections::BTreeMap;

use crate::dynamic_value::DynamicValue;
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::msgpack::read::{SliceReader, Token};
use crate::schema::{nesting_of, Attribute, AttributeType, NestedBlock, NestingMode, Planner};
use crate::value::Value;

/// Nothing this walk plans: the planner over a `Value` does.
struct Fallback;

type Walked<T = ()> = std::result::Result<T, Fallback>;

impl From<crate::error::Error> for Fallback {
    fn from(_: crate::error::Error) -> Fallback {
        Fallback
    }
}

impl DynamicValue {
    /// The planned state of a create whose configuration is this value, as Terraform
    /// proposes it (the configuration is the proposal and there is no prior state):
    /// what [`Planner::plan_create`] plans, written as MessagePack, without decoding the
    /// value. Every computed attribute the configuration leaves null becomes unknown with
    /// its declared refinements, or its default; every other byte is copied.
    ///
    /// `None` where this walk does not apply and `plan_create` on the decoded value
    /// plans instead: a planner with a [`Planner::refine_with`] function, a default of a
    /// nested attribute that is left null (the planner plans unknowns inside it too), a
    /// value that is not MessagePack of the block's type (JSON, say), or nested deeper
    /// than the limit.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, Planner};
    /// use tfvalue::{DynamicValue, Type, Value};
    ///
    /// let planner = Planner::new(
    ///     Block::new()
    ///         .attribute("id", Attribute::computed(Type::String))
    ///         .attribute("name", Attribute::required(Type::String)),
    /// );
    /// let config = Value::Object(
    ///     [("id".to_owned(), Value::Null), ("name".to_owned(), Value::from("web"))].into(),
    /// );
    /// let ty = planner.block().implied_type();
    /// let wire = DynamicValue::encode_value(&config, &ty)?;
    /// let planned = wire.plan_create(&planner).unwrap();
    /// assert_eq!(planned.decode_value(&ty)?, planner.plan_create(config).planned);
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    pub fn plan_create(&self, planner: &Planner) -> Option<DynamicValue> {
        if planner.refines_with() || self.msgpack.is_empty() {
            return None;
        }
        let mut r = SliceReader::new(&self.msgpack);
        let mut w = Rewrite {
            input: &self.msgpack,
            out: Vec::with_capacity(self.msgpack.len() + 64),
            copied: 0,
        };
        let block = planner.block();
        w.object(&mut r, &block.attributes, Some(&block.block_types), 0)
            .ok()?;
        if r.remaining() != 0 {
            return None;
        }
        Some(DynamicValue::from_msgpack(w.finish()))
    }
}

/// The output: the input's bytes up to `copied` taken over in runs, with the planned
/// unknowns in place of nils.
struct Rewrite<'a> {
    input: &'a [u8],
    out: Vec<u8>,
    /// How much of the input is in `out` (or replaced there).
    copied: usize,
}

impl Rewrite<'_> {
    /// Replaces the item at `start..end` (a nil) with `bytes`.
    fn replace(&mut self, start: usize, end: usize, bytes: &[u8]) {
        self.out.extend_from_slice(&self.input[self.copied..start]);
        self.out.extend_from_slice(bytes);
        self.copied = end;
    }

    fn finish(mut self) -> Vec<u8> {
        self.out.extend_from_slice(&self.input[self.copied..]);
        self.out
    }

    /// An object of these attributes (and nested blocks): each computed attribute left
    /// null planned unknown, nested objects planned in turn. A null or unknown object is
    /// kept.
    fn object(
        &mut self,
        r: &mut SliceReader<'_>,
        attributes: &BTreeMap<String, Attribute>,
        blocks: Option<&BTreeMap<String, NestedBlock>>,
        depth: usize,
    ) -> Walked {
        if depth > DEFAULT_MAX_DEPTH {
            return Err(Fallback);
        }
        let n = match r.next()? {
            Token::Map(n) => n,
            Token::Nil | Token::Ext(_) => return Ok(()),
            _ => return Err(Fallback),
        };
        for _ in 0..n {
            let name = match r.try_short_str() {
                Some(name) => name,
                None => match r.next()? {
                    Token::Str(name) => name,
                    _ => return Err(Fallback),
                },
            };
            let name = std::str::from_utf8(name).map_err(|_| Fallback)?;
            if let Some(attr) = attributes.get(name) {
                self.attribute(r, attr, depth)?;
            } else if let Some(nb) = blocks.and_then(|b| b.get(name)) {
                self.elements(
                    r,
                    nb.nesting,
                    &nb.block.attributes,
                    Some(&nb.block.block_types),
                    depth + 1,
                )?;
            } else {
                // Not in the schema: not a value of the block's type.
                return Err(Fallback);
            }
        }
        Ok(())
    }

    fn attribute(&mut self, r: &mut SliceReader<'_>, attr: &Attribute, depth: usize) -> Walked {
        let start = r.pos();
        if r.peek()? == 0xc0 && attr.computed {
            r.next()?;
            let planned = match (&attr.default, &attr.ty) {
                (None, _) => Value::Unknown(attr.refinements.clone()),
                (Some(d), AttributeType::Type(_)) => d.to_value(),
                // A nested default: the planner plans the unknowns in it too.
                (Some(_), AttributeType::Nested(_)) => return Err(Fallback),
            };
            let bytes = planned.to_msgpack(&attr.implied_type())?;
            self.replace(start, r.pos(), &bytes);
            return Ok(());
        }
        match &attr.ty {
            AttributeType::Nested(n) => {
                self.elements(r, nesting_of(n.nesting), &n.attributes, None, depth + 1)
            }
            AttributeType::Type(_) => Ok(r.skip_value(DEFAULT_MAX_DEPTH)?),
        }
    }

    /// A single, list, set or map value of objects, each planned. Null or unknown: kept.
    fn elements(
        &mut self,
        r: &mut SliceReader<'_>,
        nesting: NestingMode,
        attributes: &BTreeMap<String, Attribute>,
        blocks: Option<&BTreeMap<String, NestedBlock>>,
        depth: usize,
    ) -> Walked {
        if matches!(nesting, NestingMode::Single | NestingMode::Group) {
            return self.object(r, attributes, blocks, depth);
        }
        if depth > DEFAULT_MAX_DEPTH {
            return Err(Fallback);
        }
        match r.next()? {
            Token::Nil | Token::Ext(_) => Ok(()),
            Token::Array(n) if matches!(nesting, NestingMode::List | NestingMode::Set) => {
                for _ in 0..n {
                    self.object(r, attributes, blocks, depth + 1)?;
                }
                Ok(())
            }
            Token::Map(n) if nesting == NestingMode::Map => {
                for _ in 0..n {
                    match r.next()? {
                        Token::Str(_) => {}
                        _ => return Err(Fallback),
                    }
                    self.object(r, attributes, blocks, depth + 1)?;
                }
                Ok(())
            }
            _ => Err(Fallback),
        }
    }
}
