//! Helpers shared by the fuzz targets: a type description that `arbitrary` can build from
//! the fuzzer's bytes, and the oracle for "decode -> encode -> decode gives the same value".

use arbitrary::Arbitrary;
use tfvalue::schema::{Attribute, Block, NestedBlock, NestedType};
use tfvalue::{Number, Refinements, Type, Value};

/// How deep a generated type may nest (deeper descriptions are cut to `string`).
const MAX_TYPE_DEPTH: usize = 12;

/// Attribute names the generated object types use: a few short ones so that the fuzzer
/// can hit them, a non-ASCII name in NFC and the same name not in NFC, and the empty name.
const NAMES: &[&str] = &["a", "b", "id", "name", "tags", "x_y", "é", "", "e\u{301}"];

/// A type constraint, as `arbitrary` builds it.
#[derive(Arbitrary, Debug)]
pub enum TypeDesc {
    String,
    Number,
    Bool,
    Dynamic,
    List(Box<TypeDesc>),
    Set(Box<TypeDesc>),
    Map(Box<TypeDesc>),
    Object(Vec<(u8, TypeDesc, bool)>),
    Tuple(Vec<TypeDesc>),
}

impl TypeDesc {
    /// The `Type` this describes.
    pub fn to_type(&self) -> Type {
        self.build(0)
    }

    fn build(&self, depth: usize) -> Type {
        if depth > MAX_TYPE_DEPTH {
            return Type::String;
        }
        let d = depth + 1;
        match self {
            TypeDesc::String => Type::String,
            TypeDesc::Number => Type::Number,
            TypeDesc::Bool => Type::Bool,
            TypeDesc::Dynamic => Type::Dynamic,
            TypeDesc::List(t) => Type::list(t.build(d)),
            TypeDesc::Set(t) => Type::set(t.build(d)),
            TypeDesc::Map(t) => Type::map(t.build(d)),
            TypeDesc::Object(attrs) => {
                let mut names = Vec::new();
                let mut optional = Vec::new();
                for (n, t, opt) in attrs.iter().take(8) {
                    let name = NAMES[*n as usize % NAMES.len()];
                    if names.iter().any(|(k, _)| *k == name) {
                        continue;
                    }
                    names.push((name, t.build(d)));
                    if *opt {
                        optional.push(name);
                    }
                }
                Type::object(names).with_optional(optional)
            }
            TypeDesc::Tuple(ts) => Type::tuple(ts.iter().take(8).map(|t| t.build(d))),
        }
    }
}

fn nfc(s: &str) -> String {
    tfvalue::text::normalize(s).into_owned()
}

/// Whether `n` may be a whole float64 beyond i64 that came off the wire as a float: go-cty
/// writes such a number as the shortest text that reads back as the same float64 (`1e300`
/// as a 1 and 300 zeros, a float32 1.6510420534312304640e19 as 16510420534312305000),
/// which is not its exact value, so after a round trip it is only equal as a float64.
fn lossy_float(n: &Number) -> bool {
    n.is_integer() && n.to_i64().is_none() && n.to_exact_f64().is_some()
}

fn same_number(a: &Number, b: &Number) -> bool {
    a == b || (lossy_float(a) && (a.to_f64() == b.to_f64() || power_of_two_below(a, b)))
}

/// go-cty's text for some powers of two reads back as the float below (math/big does
/// not narrow the lower half-ulp there: `src/number/shortest.rs`), so an integer float64
/// past `i64` that is a power of two may come back as its neighbour below.
fn power_of_two_below(a: &Number, b: &Number) -> bool {
    match (a.to_f64(), b.to_f64()) {
        (Some(x), Some(y)) => {
            let bits = x.abs().to_bits();
            bits & ((1 << 52) - 1) == 0 && y.abs().to_bits() == bits - 1 && x.signum() == y.signum()
        }
        _ => false,
    }
}

fn same_bound(a: Option<&tfvalue::NumberBound>, b: Option<&tfvalue::NumberBound>) -> bool {
    // -inf lower and +inf upper bounds say nothing and may be dropped on encode.
    fn eff(x: Option<&tfvalue::NumberBound>) -> Option<&tfvalue::NumberBound> {
        x.filter(|b| b.value.is_finite())
    }
    match (eff(a), eff(b)) {
        (None, None) => true,
        (Some(a), Some(b)) => a.inclusive == b.inclusive && same_number(&a.value, &b.value),
        _ => false,
    }
}

/// `after` is what encoding `before` wrote (NFC, a prefix over 256 bytes cut short of its
/// last grapheme cluster, refinements that do not apply to `ty` dropped).
fn same_refinements(before: &Refinements, after: &Refinements, ty: &Type) -> bool {
    if *ty == Type::Dynamic {
        return after.is_empty();
    }
    let prefix_ok = match (before.prefix().map(nfc), after.prefix()) {
        (None, None) => true,
        (Some(p), None) => p.len() > 256 || p.is_empty(),
        (Some(p), Some(q)) => p == q || (p.len() > 256 && q.len() <= 255 && p.starts_with(q)),
        (None, Some(_)) => false,
    };
    prefix_ok
        && before.is_not_null() == after.is_not_null()
        && same_bound(before.lower_bound(), after.lower_bound())
        && same_bound(before.upper_bound(), after.upper_bound())
        && before.min_length() == after.min_length()
        && before.max_length() == after.max_length()
}

fn element_type(ty: &Type) -> &Type {
    ty.element_type().unwrap_or(&Type::Dynamic)
}

/// Whether `after` (decoded from the encoding of `before`, both of type `ty`) is the same
/// value, allowing for what encoding does on purpose: NFC strings and keys, canonical set
/// order with duplicates removed, shortened prefixes, and whole floats beyond i64.
pub fn same_after_round_trip(before: &Value, after: &Value, ty: &Type) -> bool {
    match (before, after) {
        (Value::Null, Value::Null) => true,
        (Value::Unknown(r), Value::Number(n)) => {
            // An unknown number pinned to one value is written as that number.
            *ty == Type::Number
                && r.is_not_null()
                && matches!((r.lower_bound(), r.upper_bound()),
                    (Some(lo), Some(hi)) if lo.inclusive && hi.inclusive && same_number(&lo.value, n) && same_number(&hi.value, n))
        }
        (Value::Unknown(a), Value::Unknown(b)) => same_refinements(a, b, ty),
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Number(a), Value::Number(b)) => same_number(a, b),
        (Value::String(a), Value::String(b)) => nfc(a) == *b,
        (Value::List(a), Value::List(b)) => {
            let et = element_type(ty);
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| same_after_round_trip(x, y, et))
        }
        (Value::Tuple(a), Value::Tuple(b)) => match ty {
            Type::Tuple(ts) => {
                a.len() == b.len()
                    && ts.len() == a.len()
                    && a.iter()
                        .zip(b)
                        .zip(ts)
                        .all(|((x, y), t)| same_after_round_trip(x, y, t))
            }
            _ => false,
        },
        (Value::Set(a), Value::Set(b)) => {
            // Every element on each side has a counterpart on the other (sets may lose
            // elements that became duplicates under NFC).
            let et = element_type(ty);
            b.len() <= a.len()
                && a.iter()
                    .all(|x| b.iter().any(|y| same_after_round_trip(x, y, et)))
                && b.iter()
                    .all(|y| a.iter().any(|x| same_after_round_trip(x, y, et)))
        }
        (Value::Map(a), Value::Map(b)) => {
            let et = element_type(ty);
            a.len() == b.len()
                && a.iter().all(|(k, x)| {
                    b.get(&nfc(k))
                        .is_some_and(|y| same_after_round_trip(x, y, et))
                })
        }
        (Value::Object(a), Value::Object(b)) => match ty {
            Type::Object(o) => {
                a.len() == b.len()
                    && a.iter().all(|(k, x)| {
                        let aty = o.get(k).unwrap_or(&Type::Dynamic);
                        b.get(k).is_some_and(|y| same_after_round_trip(x, y, aty))
                    })
            }
            _ => false,
        },
        (Value::Dynamic(a), Value::Dynamic(b)) => {
            a.ty() == b.ty() && same_after_round_trip(a.value(), b.value(), a.ty())
        }
        _ => false,
    }
}

/// The planner targets' schema: computed attributes at every nesting (single, list, set
/// and map nested attributes, list and set blocks), refined, of a primitive, a
/// collection and `dynamic` type; `kind`, an optional and computed string in the root
/// and in every block, is as given (with a default, say), and the root has `root`'s
/// attributes too.
pub fn planner_block(kind: Attribute, root: Block) -> Block {
    let inner = || {
        Block::new()
            .attribute("name", Attribute::optional(Type::String))
            .attribute(
                "id",
                Attribute::computed(Type::String)
                    .refine(Refinements::new().not_null().with_prefix("i-")),
            )
            .attribute("n", Attribute::optional_computed(Type::Number))
            .attribute("kind", kind.clone())
    };
    let nested = |t: NestedType| {
        t.attribute("v", Attribute::optional(Type::String))
            .attribute("id", Attribute::computed(Type::String))
    };
    let mut block = inner()
        .attribute("any", Attribute::optional_computed(Type::Dynamic))
        .attribute("tags", Attribute::optional_computed(Type::map(Type::String)))
        .attribute("one", Attribute::nested(nested(NestedType::single())).set_optional())
        .attribute("list", Attribute::nested(nested(NestedType::list())).set_optional())
        .attribute("set", Attribute::nested(nested(NestedType::set())).set_optional())
        .attribute("map", Attribute::nested(nested(NestedType::map())).set_optional())
        .block("rule", NestedBlock::list(inner().block("port", NestedBlock::set(inner()))))
        .block("disk", NestedBlock::set(inner()));
    block.attributes.extend(root.attributes);
    block
}
