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
use crate::schema::{
    nesting_of, Attribute, AttributeType, Block, NestedBlock, NestingMode, Planner,
};
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

/// The name of the next attribute of an object.
fn attribute_name<'a>(r: &mut SliceReader<'a>) -> Walked<&'a [u8]> {
    match r.try_short_str() {
        Some(name) => Ok(name),
        None => match r.next()? {
            Token::Str(name) => Ok(name),
            _ => Err(Fallback),
        },
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
            let name = attribute_name(r)?;
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

impl DynamicValue {
    /// The plan of an update whose proposal is this value, as Terraform proposes it:
    /// what [`Planner::plan_owned`] plans with this `prior` state and `config`uration,
    /// written as MessagePack, without decoding the values. The proposal's bytes are
    /// copied but where a computed attribute that configuration leaves null is set to
    /// its default, and then, once the walk has found that the proposal (with its
    /// defaults) changes the prior state, where one without a default is planned unknown
    /// (its value kept where it is `use_state_for_unknown`); a proposal that changes
    /// nothing is the plan as it is. `requires_replace` lists the attributes of the block's own
    /// that say so and change.
    ///
    /// The values are taken as the server checked them (MessagePack of the block's
    /// type); decode the plan to use it, as a model or a [`Value`].
    ///
    /// `None` where this walk does not apply and [`Planner::plan_owned`] on the decoded
    /// values plans instead: not an update (the prior state or the proposal null), a
    /// planner with a [`Planner::refine_with`] function, a default of a nested attribute
    /// that configuration leaves null, `requires_replace` inside a nested block or
    /// attribute, a `replace_if`, computed attributes inside objects matched by
    /// `match_by` (sets and maps of objects are planned by the planner over values, the
    /// collection alone decoded), a change the walk cannot tell from the bytes (two
    /// encodings of one unknown, of one set, or of one non-ASCII string), a value that is
    /// not MessagePack of the block's type (JSON, say), or one nested deeper than the
    /// limit.
    ///
    /// ```
    /// use tfvalue::schema::{Attribute, Block, Planner};
    /// use tfvalue::{DynamicValue, Type, Value};
    ///
    /// let planner = Planner::new(
    ///     Block::new()
    ///         .attribute("id", Attribute::computed(Type::String).use_state_for_unknown())
    ///         .attribute("etag", Attribute::computed(Type::String))
    ///         .attribute("name", Attribute::required(Type::String).requires_replace())
    ///         .attribute("size", Attribute::optional(Type::Number)),
    /// );
    /// let ty = planner.block().implied_type();
    /// let obj = |id: Value, etag: Value, size: i64| {
    ///     Value::Object(
    ///         [
    ///             ("id".to_owned(), id),
    ///             ("etag".to_owned(), etag),
    ///             ("name".to_owned(), Value::from("web")),
    ///             ("size".to_owned(), Value::from(size)),
    ///         ]
    ///         .into(),
    ///     )
    /// };
    /// let prior = obj(Value::from("i-1"), Value::from("e1"), 1);
    /// let config = obj(Value::Null, Value::Null, 2);
    /// let proposed = obj(Value::from("i-1"), Value::from("e1"), 2);
    /// let wire = |v: &Value| DynamicValue::encode_value(v, &ty);
    /// let plan = wire(&proposed)?
    ///     .plan_update(&wire(&prior)?, &wire(&config)?, &planner)
    ///     .unwrap();
    /// let by_value = planner.plan_owned(&prior, proposed, &config);
    /// assert_eq!(plan.planned.decode_value(&ty)?, by_value.planned);
    /// assert!(by_value.planned["etag"].is_unknown());
    /// assert_eq!(by_value.planned["id"], Value::from("i-1"));
    /// assert!(plan.requires_replace.is_empty());
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    pub fn plan_update(
        &self,
        prior: &DynamicValue,
        config: &DynamicValue,
        planner: &Planner,
    ) -> Option<crate::schema::Plan<DynamicValue>> {
        let block = planner.block();
        if planner.refines_with()
            || self.msgpack.is_empty()
            || prior.msgpack.is_empty()
            || config.msgpack.is_empty()
            || !update_walk_applies(block)
        {
            return None;
        }
        let crate::types::Type::Object(o) = planner.implied_type() else {
            return None;
        };
        // The root objects' attributes, side by side: whether the proposal changes the
        // prior state, and which of the attributes that require replacement change.
        let prior_attrs = root_attributes(&prior.msgpack, o)?;
        // The proposal with its defaults, where the block declares any: what the prior
        // state is compared with, and what is planned.
        let with_defaults = if planner.sets_defaults() {
            Some(update_walk(
                &self.msgpack,
                &config.msgpack,
                planner,
                Pass::Defaults,
            )?)
        } else {
            None
        };
        let proposed = with_defaults.as_deref().unwrap_or(&self.msgpack);
        let proposed_attrs = root_attributes(proposed, o)?;
        let mut changed = false;
        let mut unsure = false;
        let mut requires_replace = Vec::new();
        for ((name, ty), (pv, nv)) in o
            .attributes()
            .iter()
            .zip(prior_attrs.iter().zip(&proposed_attrs))
        {
            let same = same_value(pv, nv, ty, 0);
            changed |= same == Same::No;
            unsure |= same == Same::Unsure;
            let replaces = block
                .attributes
                .get(name)
                .is_some_and(|a| a.requires_replace);
            if replaces {
                match same {
                    Same::Yes => {}
                    Same::No => requires_replace.push(crate::path::AttributePath::new().attr(name)),
                    Same::Unsure => return None,
                }
            }
        }
        if !changed {
            if unsure {
                return None;
            }
            // No change: the plan is the proposal (with its defaults), which is the
            // prior state.
            let planned = with_defaults.unwrap_or_else(|| self.msgpack.clone());
            return Some(crate::schema::Plan {
                planned: DynamicValue::from_msgpack(planned),
                requires_replace,
            });
        }
        let planned = update_walk(proposed, &config.msgpack, planner, Pass::Unknowns)?;
        Some(crate::schema::Plan {
            planned: DynamicValue::from_msgpack(planned),
            requires_replace,
        })
    }
}

/// A pass of [`DynamicValue::plan_update`]'s walk, as the planner over values makes it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Each computed attribute with a default that configuration leaves null is set to
    /// its default.
    Defaults,
    /// Each computed attribute without a default that configuration leaves null is
    /// planned unknown (or kept, `use_state_for_unknown`).
    Unknowns,
}

/// `proposed` rewritten by one pass over the objects of `planner`'s block, beside
/// `config`.
fn update_walk(proposed: &[u8], config: &[u8], planner: &Planner, pass: Pass) -> Option<Vec<u8>> {
    let block = planner.block();
    let mut walk = UpdateWalk {
        w: Rewrite {
            input: proposed,
            out: Vec::with_capacity(proposed.len() + 64),
            copied: 0,
        },
        c: SliceReader::new(config),
        pass,
        planner,
        by_value_schemas: Vec::new(),
    };
    let mut r = SliceReader::new(proposed);
    walk.object(
        &mut r,
        Cfg::At,
        &block.attributes,
        Some(&block.block_types),
        0,
    )
    .ok()?;
    if r.remaining() != 0 || walk.c.remaining() != 0 {
        return None;
    }
    Some(walk.w.finish())
}

/// Whether [`DynamicValue::plan_update`] plans `block`: no `replace_if` anywhere and
/// `requires_replace` on the block's own attributes only.
fn update_walk_applies(block: &Block) -> bool {
    let replaces = |a: &Attribute| a.requires_replace || a.replace_if.is_some();
    block.attributes.values().all(|a| {
        a.replace_if.is_none()
            && match &a.ty {
                AttributeType::Nested(n) => !any_attribute(&n.attributes, None, &replaces),
                AttributeType::Type(_) => true,
            }
    }) && !block
        .block_types
        .values()
        .any(|nb| any_attribute(&nb.block.attributes, Some(&nb.block.block_types), &replaces))
}

/// Whether `f` holds for any attribute of these (or nested in them, or in these blocks).
fn any_attribute(
    attributes: &BTreeMap<String, Attribute>,
    blocks: Option<&BTreeMap<String, NestedBlock>>,
    f: &impl Fn(&Attribute) -> bool,
) -> bool {
    attributes.values().any(|a| {
        f(a) || match &a.ty {
            AttributeType::Nested(n) => any_attribute(&n.attributes, None, f),
            AttributeType::Type(_) => false,
        }
    }) || blocks.is_some_and(|b| {
        b.values()
            .any(|nb| any_attribute(&nb.block.attributes, Some(&nb.block.block_types), f))
    })
}

/// The values of the root object's attributes, in the type's order (as Terraform writes
/// them); `None` for anything else.
fn root_attributes<'a>(bytes: &'a [u8], o: &crate::types::ObjectType) -> Option<Vec<&'a [u8]>> {
    let mut r = SliceReader::new(bytes);
    let Token::Map(n) = r.next().ok()? else {
        return None;
    };
    if n as usize != o.len() {
        return None;
    }
    let mut out = Vec::with_capacity(o.len());
    for key in o.keys() {
        if !is_str(&r.next().ok()?, key.as_bytes()) {
            return None;
        }
        let start = r.pos();
        r.skip_value(DEFAULT_MAX_DEPTH).ok()?;
        out.push(&bytes[start..r.pos()]);
    }
    (r.remaining() == 0).then_some(out)
}

/// Whether two values are equal, as [`Value`]s compare, told from their MessagePack.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Same {
    Yes,
    No,
    /// Not told from the bytes (two encodings of one unknown, say).
    Unsure,
}

impl Same {
    /// Two parts' answers as the whole's: any part that differs makes the whole differ.
    fn and(self, other: Same) -> Same {
        match (self, other) {
            (Same::No, _) | (_, Same::No) => Same::No,
            (Same::Unsure, _) | (_, Same::Unsure) => Same::Unsure,
            _ => Same::Yes,
        }
    }
}

/// Compares `a` and `b`, each one whole value of type `ty`.
fn same_value(a: &[u8], b: &[u8], ty: &crate::types::Type, depth: usize) -> Same {
    use crate::types::Type;
    if a == b {
        return Same::Yes;
    }
    if depth > DEFAULT_MAX_DEPTH {
        return Same::Unsure;
    }
    let mut ra = SliceReader::new(a);
    let mut rb = SliceReader::new(b);
    let (Ok(ta), Ok(tb)) = (ra.next(), rb.next()) else {
        return Same::Unsure;
    };
    match (&ta, &tb) {
        // Two encodings of the same refinements, or two unknowns refined apart.
        (Token::Ext(_), Token::Ext(_)) => return Same::Unsure,
        // Null or unknown against anything else.
        (Token::Nil | Token::Ext(_), _) | (_, Token::Nil | Token::Ext(_)) => return Same::No,
        _ => {}
    }
    match (ty, ta, tb) {
        (Type::String, Token::Str(x), Token::Str(y)) => {
            if x == y {
                Same::Yes
            } else if x.is_ascii() && y.is_ascii() {
                Same::No
            } else {
                Same::Unsure
            }
        }
        (Type::Bool, Token::Bool(x), Token::Bool(y)) => {
            if x == y {
                Same::Yes
            } else {
                Same::No
            }
        }
        (Type::Number, x, y) => {
            let int = |t: &Token<'_>| match *t {
                Token::UInt(u) => Some(i128::from(u)),
                Token::Int(i) => Some(i128::from(i)),
                _ => None,
            };
            match (int(&x), int(&y), x, y) {
                (Some(x), Some(y), _, _) => {
                    if x == y {
                        Same::Yes
                    } else {
                        Same::No
                    }
                }
                (None, None, Token::F64(x), Token::F64(y)) if x.is_finite() && y.is_finite() => {
                    if x != y {
                        Same::No
                    } else if x.to_bits() == y.to_bits() {
                        Same::Yes
                    } else {
                        // Zero and minus zero.
                        Same::Unsure
                    }
                }
                _ => Same::Unsure,
            }
        }
        (Type::List(t), Token::Array(n), Token::Array(m)) => {
            if n != m {
                return Same::No;
            }
            elements_same(&mut ra, &mut rb, n, |_| t, depth)
        }
        (Type::Tuple(ts), Token::Array(n), Token::Array(m)) => {
            if n != m || n as usize != ts.len() {
                return Same::Unsure;
            }
            elements_same(&mut ra, &mut rb, n, |i| &ts[i], depth)
        }
        (Type::Map(t), Token::Map(n), Token::Map(m)) => {
            // Keys in strictly increasing order on both sides (as Terraform writes
            // them): then maps of as many keys that differ in one differ.
            let mut last: [Option<&[u8]>; 2] = [None, None];
            let mut out = Same::Yes;
            let n_keys = n;
            for _ in 0..n.min(m) {
                let (Ok(Token::Str(ka)), Ok(Token::Str(kb))) = (ra.next(), rb.next()) else {
                    return Same::Unsure;
                };
                for (i, k) in [ka, kb].into_iter().enumerate() {
                    if last[i].is_some_and(|l| l >= k) {
                        return Same::Unsure;
                    }
                    last[i] = Some(k);
                }
                let (Some(va), Some(vb)) = (value_at(&mut ra), value_at(&mut rb)) else {
                    return Same::Unsure;
                };
                if ka != kb {
                    // Told apart once both sides are known to be in order: the rest is
                    // read for that.
                    out = Same::No;
                    continue;
                }
                if out != Same::No {
                    out = out.and(same_value(va, vb, t, depth + 1));
                }
            }
            // The longer side's rest, in order too.
            for (r, i) in [(&mut ra, 0), (&mut rb, 1)] {
                while r.remaining() > 0 {
                    let Ok(Token::Str(k)) = r.next() else {
                        return Same::Unsure;
                    };
                    if last[i].is_some_and(|l| l >= k) || value_at(r).is_none() {
                        return Same::Unsure;
                    }
                    last[i] = Some(k);
                }
            }
            if n_keys != m {
                return Same::No;
            }
            out
        }
        (Type::Object(o), Token::Map(n), Token::Map(m)) => {
            if n != m || n as usize != o.len() {
                return Same::Unsure;
            }
            let mut out = Same::Yes;
            for (key, t) in o.keys().iter().zip(o.attributes().values()) {
                let (Ok(ka), Ok(kb)) = (ra.next(), rb.next()) else {
                    return Same::Unsure;
                };
                if !is_str(&ka, key.as_bytes()) || !is_str(&kb, key.as_bytes()) {
                    return Same::Unsure;
                }
                let (Some(va), Some(vb)) = (value_at(&mut ra), value_at(&mut rb)) else {
                    return Same::Unsure;
                };
                out = out.and(same_value(va, vb, t, depth + 1));
                if out == Same::No {
                    return Same::No;
                }
            }
            out
        }
        // Sets (one set in two orders), dynamic values (one type written two ways),
        // numbers written as text or as different kinds, and anything not of the type.
        _ => Same::Unsure,
    }
}

/// Compares `n` elements from each of `ra` and `rb`, the `i`th of type `ty(i)`.
fn elements_same<'t>(
    ra: &mut SliceReader<'_>,
    rb: &mut SliceReader<'_>,
    n: u32,
    ty: impl Fn(usize) -> &'t crate::types::Type,
    depth: usize,
) -> Same {
    let mut out = Same::Yes;
    for i in 0..n as usize {
        let (Some(va), Some(vb)) = (value_at(ra), value_at(rb)) else {
            return Same::Unsure;
        };
        out = out.and(same_value(va, vb, ty(i), depth + 1));
        if out == Same::No {
            return Same::No;
        }
    }
    out
}

/// Whether `t` is the string `s`.
fn is_str(t: &Token<'_>, s: &[u8]) -> bool {
    matches!(t, Token::Str(x) if *x == s)
}

/// The bytes of the next whole value of `r`, which it skips.
fn value_at<'a>(r: &mut SliceReader<'a>) -> Option<&'a [u8]> {
    let start = r.pos();
    r.skip_value(DEFAULT_MAX_DEPTH).ok()?;
    r.input_full().get(start..r.pos())
}

/// Where a value's configuration is, for [`UpdateWalk`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cfg {
    /// Not known: an element the configuration has no counterpart for. Only a null
    /// proposal says that configuration leaves an attribute null.
    Unpaired,
    /// Null: inside a configuration object that is null (or unknown), which configures
    /// nothing.
    Null,
    /// Next in the configuration's reader (which the walk reads past it).
    At,
}

/// [`DynamicValue::plan_update`]'s walk of the proposal (rewritten) and its
/// configuration, side by side.
struct UpdateWalk<'a> {
    w: Rewrite<'a>,
    c: SliceReader<'a>,
    pass: Pass,
    planner: &'a Planner,
    /// The block and the collection type of each set or map of objects planned by value
    /// ([`UpdateWalk::by_value`]), built once per walk (keyed by the address of its
    /// attributes in the schema), not again for each element of a list around it.
    by_value_schemas: Vec<(usize, NestingMode, Block, crate::types::Type)>,
}

impl UpdateWalk<'_> {
    /// A set or map of objects whose elements the planner pairs: decoded, planned by
    /// the planner over values ([`Planner::plan_elements`]), and written in place of
    /// the proposal's.
    fn by_value(
        &mut self,
        r: &mut SliceReader<'_>,
        cfg: Cfg,
        nesting: NestingMode,
        attributes: &BTreeMap<String, Attribute>,
        blocks: Option<&BTreeMap<String, NestedBlock>>,
        depth: usize,
    ) -> Walked {
        let key = std::ptr::from_ref(attributes) as usize;
        let found = self
            .by_value_schemas
            .iter()
            .position(|(k, n, _, _)| *k == key && *n == nesting);
        let at = match found {
            Some(at) => at,
            None => {
                let block = Block {
                    attributes: attributes.clone(),
                    block_types: blocks.cloned().unwrap_or_default(),
                    ..Block::default()
                };
                let object = block.implied_type();
                let ty = match nesting {
                    NestingMode::Set => crate::types::Type::set(object),
                    NestingMode::Map => crate::types::Type::map(object),
                    _ => crate::types::Type::list(object),
                };
                self.by_value_schemas.push((key, nesting, block, ty));
                self.by_value_schemas.len() - 1
            }
        };
        let Some((_, _, block, ty)) = self.by_value_schemas.get(at) else {
            return Err(Fallback);
        };
        let start = r.pos();
        let proposed = value_at(r).ok_or(Fallback)?;
        let mut p = Value::from_msgpack(proposed, ty)?;
        let c = match cfg {
            Cfg::At => Some(Value::from_msgpack(
                value_at(&mut self.c).ok_or(Fallback)?,
                ty,
            )?),
            Cfg::Null => Some(Value::Null),
            Cfg::Unpaired => None,
        };
        let defaults = self.pass == Pass::Defaults;
        self.planner
            .plan_elements(defaults, block, nesting, &mut p, c.as_ref(), depth);
        let bytes = p.to_msgpack(ty)?;
        self.w.replace(start, r.pos(), &bytes);
        Ok(())
    }

    /// Skips the configuration's value, where it is read.
    fn skip_config(&mut self, cfg: Cfg) -> Walked {
        if cfg == Cfg::At {
            self.c.skip_value(DEFAULT_MAX_DEPTH)?;
        }
        Ok(())
    }

    fn object(
        &mut self,
        r: &mut SliceReader<'_>,
        cfg: Cfg,
        attributes: &BTreeMap<String, Attribute>,
        blocks: Option<&BTreeMap<String, NestedBlock>>,
        depth: usize,
    ) -> Walked {
        if depth > DEFAULT_MAX_DEPTH {
            return Err(Fallback);
        }
        // The configuration's attributes: side by side with the proposal's, or none.
        let (inner, config_len) = match cfg {
            Cfg::At => match self.c.next()? {
                Token::Map(m) => (Cfg::At, Some(m)),
                Token::Nil | Token::Ext(_) => (Cfg::Null, None),
                _ => return Err(Fallback),
            },
            other => (other, None),
        };
        let n = match r.next()? {
            Token::Map(n) => n,
            Token::Nil | Token::Ext(_) => {
                for _ in 0..config_len.unwrap_or(0) {
                    self.c.skip_value(DEFAULT_MAX_DEPTH)?;
                    self.c.skip_value(DEFAULT_MAX_DEPTH)?;
                }
                return Ok(());
            }
            _ => return Err(Fallback),
        };
        if config_len.is_some_and(|m| m != n) {
            return Err(Fallback);
        }
        for _ in 0..n {
            let name = attribute_name(r)?;
            if inner == Cfg::At && !is_str(&self.c.next()?, name) {
                return Err(Fallback);
            }
            let name = std::str::from_utf8(name).map_err(|_| Fallback)?;
            if let Some(attr) = attributes.get(name) {
                self.attribute(r, attr, inner, depth)?;
            } else if let Some(nb) = blocks.and_then(|b| b.get(name)) {
                self.elements(
                    r,
                    inner,
                    nb.nesting,
                    nb.match_by.is_some(),
                    &nb.block.attributes,
                    Some(&nb.block.block_types),
                    depth + 1,
                )?;
            } else {
                return Err(Fallback);
            }
        }
        Ok(())
    }

    fn attribute(
        &mut self,
        r: &mut SliceReader<'_>,
        attr: &Attribute,
        cfg: Cfg,
        depth: usize,
    ) -> Walked {
        let start = r.pos();
        let proposed_null = r.peek()? == 0xc0;
        let unset = match cfg {
            Cfg::Unpaired => proposed_null,
            Cfg::Null => true,
            Cfg::At => self.c.peek()? == 0xc0,
        };
        if unset && attr.computed {
            let planned = match (self.pass, &attr.default) {
                (Pass::Defaults, Some(d)) => {
                    if matches!(attr.ty, AttributeType::Nested(_)) {
                        // A nested default: the planner plans the unknowns in it too.
                        return Err(Fallback);
                    }
                    Some(d.to_value())
                }
                // Unknown, but where `use_state_for_unknown` keeps the value Terraform
                // copied from the prior state.
                (Pass::Unknowns, None) => (!attr.use_state_for_unknown || proposed_null)
                    .then(|| Value::Unknown(attr.refinements.clone())),
                // Nothing for the attribute itself in this pass (a default is set by
                // the defaults pass): the values nested in it are planned below.
                _ => return self.nested_or_skip(r, attr, cfg, depth),
            };
            self.skip_config(cfg)?;
            r.skip_value(DEFAULT_MAX_DEPTH)?;
            if let Some(planned) = planned {
                let bytes = planned.to_msgpack(&attr.implied_type())?;
                self.w.replace(start, r.pos(), &bytes);
            }
            return Ok(());
        }
        self.nested_or_skip(r, attr, cfg, depth)
    }

    /// The objects nested in `attr`'s value planned, or (of a primitive type) the value
    /// skipped.
    fn nested_or_skip(
        &mut self,
        r: &mut SliceReader<'_>,
        attr: &Attribute,
        cfg: Cfg,
        depth: usize,
    ) -> Walked {
        match &attr.ty {
            AttributeType::Nested(n) => self.elements(
                r,
                cfg,
                nesting_of(n.nesting),
                n.match_by.is_some(),
                &n.attributes,
                None,
                depth + 1,
            ),
            AttributeType::Type(_) => {
                self.skip_config(cfg)?;
                Ok(r.skip_value(DEFAULT_MAX_DEPTH)?)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn elements(
        &mut self,
        r: &mut SliceReader<'_>,
        cfg: Cfg,
        nesting: NestingMode,
        match_by: bool,
        attributes: &BTreeMap<String, Attribute>,
        blocks: Option<&BTreeMap<String, NestedBlock>>,
        depth: usize,
    ) -> Walked {
        if matches!(nesting, NestingMode::Single | NestingMode::Group) {
            return self.object(r, cfg, attributes, blocks, depth);
        }
        let planned_here = match self.pass {
            Pass::Defaults => any_attribute(attributes, blocks, &|a| a.default.is_some()),
            Pass::Unknowns => any_attribute(attributes, blocks, &|a| a.computed),
        };
        if !planned_here {
            // Nothing in these objects is planned.
            self.skip_config(cfg)?;
            return Ok(r.skip_value(DEFAULT_MAX_DEPTH)?);
        }
        // Elements paired by value (a set), by key (a map) or, for their unknowns, by
        // `match_by`: the planner over values pairs them, where there are any (none in a
        // null, unknown or empty collection).
        let matched = match_by && self.pass == Pass::Unknowns;
        let pairs = nesting != NestingMode::List || matched;
        if pairs && matches!(r.peek()?, 0xc0 | 0xc7..=0xc9 | 0xd4..=0xd8 | 0x80 | 0x90) {
            self.skip_config(cfg)?;
            return Ok(r.skip_value(DEFAULT_MAX_DEPTH)?);
        }
        if matched || depth > DEFAULT_MAX_DEPTH {
            // Paired with the prior state's elements, which this walk does not follow;
            // or nested past the limit.
            return Err(Fallback);
        }
        if pairs {
            return self.by_value(r, cfg, nesting, attributes, blocks, depth);
        }
        let config_len = match cfg {
            Cfg::At => match self.c.next()? {
                Token::Array(m) => m,
                Token::Nil | Token::Ext(_) => 0,
                _ => return Err(Fallback),
            },
            _ => 0,
        };
        let n = match r.next()? {
            Token::Array(n) => n,
            Token::Nil | Token::Ext(_) => 0,
            _ => return Err(Fallback),
        };
        for i in 0..n {
            let element = if i < config_len {
                Cfg::At
            } else {
                Cfg::Unpaired
            };
            self.object(r, element, attributes, blocks, depth + 1)?;
        }
        for _ in n..config_len {
            self.c.skip_value(DEFAULT_MAX_DEPTH)?;
        }
        Ok(())
    }
}
