//! Rust types that know their Terraform type: the traits behind `#[derive(TfValue)]`.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use crate::schema::{Block, Diagnostics, Planner, Schema};
use crate::types::Type;
use crate::{dynamic::Dynamic, number::Number, unknown::Unknown};

/// A Rust type whose values are Terraform values of a known [`Type`].
///
/// Implemented for the std types that serde writes in a Terraform shape, and by
/// `#[derive(TfValue)]` for model structs:
///
/// | Rust | Terraform |
/// | --- | --- |
/// | `String`, `str`, `Box<str>`, `Cow<str>`, `char` | `string` |
/// | integers, `f32`, `f64`, [`Number`] | `number` |
/// | `bool` | `bool` |
/// | `Vec<T>`, `VecDeque<T>`, `[T]` | `list(T)` |
/// | `BTreeSet<T>`, `HashSet<T>` | `set(T)` |
/// | `BTreeMap<K, V>`, `HashMap<K, V>` with string keys | `map(V)` |
/// | tuples of up to 12 elements | `tuple([..])` |
/// | `Option<T>`, [`Unknown<T>`], `&T`, `Box<T>`, `Rc<T>`, `Arc<T>` | as `T` (null and unknown are values of every type) |
/// | [`Dynamic`] | `dynamic` |
/// | a `#[derive(TfValue)]` enum of unit variants | `string`, accepting the variants' names |
/// | a `#[derive(TfValue)]` struct | `object({..})`: its block's [implied type](Block::implied_type) |
///
/// ```
/// use std::collections::BTreeMap;
/// use tfvalue::{TfValue, Type, Unknown};
///
/// assert_eq!(<Vec<Option<String>>>::tf_type(), Type::list(Type::String));
/// assert_eq!(<Unknown<BTreeMap<String, u16>>>::tf_type(), Type::map(Type::Number));
/// assert_eq!(<(bool, f64)>::tf_type().to_string(), "tuple([bool,number])");
/// assert!(<String as TfValue>::schema_block().is_none());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no Terraform type: it does not implement `TfValue`",
    label = "not a Terraform value",
    note = "Terraform values are `String`, `bool`, integers, `f64`, `tfvalue::Number`, `Vec<T>`, `BTreeSet<T>`, `BTreeMap<String, T>`, tuples, `tfvalue::Dynamic`, `Option<T>` and `Unknown<T>` of those, and structs and unit enums that `#[derive(TfValue)]`",
    note = "for a struct or enum of your own, add `#[derive(TfValue)]` to it; for a type of another crate (`std::time::Duration`, ...), hold a Terraform value instead (seconds as `u64`, an RFC 3339 `String`) and convert"
)]
pub trait TfValue {
    /// The Terraform type of every value of this Rust type.
    fn tf_type() -> Type;

    /// The schema block of a model struct (`#[derive(TfValue)]`); `None` for other types.
    fn schema_block() -> Option<Block> {
        None
    }

    /// The only strings a value may be, for a string enum (`#[derive(TfValue)]` on an enum
    /// of unit variants); `None` for other types. An attribute of such a type gets a
    /// [`Validator::OneOf`](crate::schema::Validator::OneOf) in its schema.
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use serde::{Deserialize, Serialize};
    /// use tfvalue::{TfValue, Type, Unknown};
    ///
    /// #[derive(TfValue, Serialize, Deserialize)]
    /// #[serde(rename_all = "snake_case")]
    /// enum Tier {
    ///     Standard,
    ///     HighIo,
    /// }
    ///
    /// assert_eq!(Tier::tf_type(), Type::String);
    /// assert_eq!(<Unknown<Option<Tier>>>::accepted_values(), Some(&["standard", "high_io"][..]));
    /// # }
    /// ```
    fn accepted_values() -> Option<&'static [&'static str]> {
        None
    }
}

/// A model or null (`None`), as `Option<M>` decodes, through the model's own decoder.
pub(crate) fn model_or_null<M>(
    de: &mut crate::msgpack::Deserializer<'_>,
) -> crate::error::Result<Option<M>>
where
    M: TfModel + for<'de> serde::Deserialize<'de>,
{
    if de.wire_take_nil()? {
        return Ok(None);
    }
    M::__wire_decode(de).map(Some)
}

/// A model struct: a [`TfValue`] that is a schema block. `#[derive(TfValue)]` implements it.
///
/// Its [`tf_type`](TfValue::tf_type) is the block's implied type, and
/// [`schema_block`](TfValue::schema_block) returns `Some(Self::block())`.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use tfvalue::{TfModel, TfValue};
///
/// #[derive(TfValue)]
/// #[tfvalue(version = 2)]
/// struct Bucket {
///     name: String,
/// }
///
/// assert_eq!(Bucket::schema().version, 2);
/// assert_eq!(Bucket::tf_type(), Bucket::block().implied_type());
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model struct: a block or a nested attribute needs `#[derive(TfValue)]` on it",
    label = "does not derive `TfValue`",
    note = "add `#[derive(TfValue, Serialize, Deserialize)]` to the struct `{Self}`: its fields become the block's attributes"
)]
pub trait TfModel: TfValue {
    /// The schema version (`#[tfvalue(version = N)]`, 0 by default).
    const SCHEMA_VERSION: i64 = 0;

    /// The schema block.
    fn block() -> Block;

    /// The schema: [`SCHEMA_VERSION`](TfModel::SCHEMA_VERSION) and [`block`](TfModel::block).
    fn schema() -> Schema {
        Schema::new(Self::SCHEMA_VERSION, Self::block())
    }

    /// A [`Planner`] for this model, to refine its unknowns and plan its changes.
    fn planner() -> Planner
    where
        Self: Sized,
    {
        Planner::for_model::<Self>()
    }

    /// The plan/apply consistency check ([`Block::check_apply`]) on two values of the
    /// model: where `applied`, the state a provider returns from apply, breaks `planned`.
    /// A value that cannot be encoded is reported as an error diagnostic.
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use serde::Serialize;
    /// use tfvalue::{TfModel, TfValue, Unknown};
    ///
    /// #[derive(TfValue, Serialize)]
    /// struct Server {
    ///     name: Unknown<String>,
    ///     #[tfvalue(computed)]
    ///     ip: Unknown<Option<String>>,
    /// }
    ///
    /// let planned = Server { name: "web".to_owned().into(), ip: Unknown::unknown().with_prefix("10.") };
    /// let applied = Server { name: "web".to_owned().into(), ip: "192.168.0.9".to_owned().into() };
    /// let diags = Server::check_apply(&planned, &applied);
    /// assert_eq!(diags.to_string(), r#"Provider produced inconsistent result after apply: final value "192.168.0.9" does not start with the refined prefix "10." at ip"#);
    /// # }
    /// ```
    fn check_apply(planned: &Self, applied: &Self) -> Diagnostics
    where
        Self: serde::Serialize + Sized,
    {
        let ty = Self::tf_type();
        match (
            crate::schema::model_value(planned, &ty),
            crate::schema::model_value(applied, &ty),
        ) {
            (Ok(p), Ok(a)) => Self::block().check_apply(&p, &a),
            (Err(e), _) | (_, Err(e)) => Diagnostics::from(e),
        }
    }

    /// Encodes the model as tfvalue's MessagePack: serde's `Serialize` here;
    /// `#[derive(TfValue)]` writes an encoder of its own (`msgpack::wire`) for a struct
    /// without `#[serde(...)]` attributes, which writes the same bytes. Use
    /// [`DynamicValue::encode_model`](crate::dynamic_value::DynamicValue::encode_model).
    #[doc(hidden)]
    fn __wire_encode(&self, ser: &mut crate::msgpack::Serializer) -> crate::error::Result<()>
    where
        for<'a> Self: serde::Serialize,
    {
        self.serialize(ser)
    }

    /// Decodes the model from tfvalue's MessagePack: serde's `Deserialize` here;
    /// `#[derive(TfValue)]` writes a decoder of its own (`msgpack::wire`) for a struct
    /// without `#[serde(...)]` attributes. Use
    /// [`DynamicValue::decode_model`](crate::dynamic_value::DynamicValue::decode_model).
    #[doc(hidden)]
    fn __wire_decode(de: &mut crate::msgpack::Deserializer<'_>) -> crate::error::Result<Self>
    where
        Self: for<'de> serde::Deserialize<'de> + Sized,
    {
        Self::deserialize(de)
    }
}

macro_rules! primitive {
    ($ty:expr => $($t:ty),*) => {$(
        impl TfValue for $t {
            fn tf_type() -> Type {
                $ty
            }
        }
    )*};
}

primitive!(Type::String => String, str, char);
primitive!(Type::Bool => bool);
primitive!(Type::Number => i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, Number);
primitive!(Type::Dynamic => Dynamic);

/// The same type as the pointee.
macro_rules! transparent {
    ($($t:ident),*) => {$(
        impl<T: TfValue + ?Sized> TfValue for $t<T> {
            fn tf_type() -> Type {
                T::tf_type()
            }
            fn accepted_values() -> Option<&'static [&'static str]> {
                T::accepted_values()
            }
        }
    )*};
}

transparent!(Box, Rc, Arc);

impl<T: TfValue + ?Sized> TfValue for &T {
    fn tf_type() -> Type {
        T::tf_type()
    }
    fn accepted_values() -> Option<&'static [&'static str]> {
        T::accepted_values()
    }
}

impl<T: TfValue + ?Sized> TfValue for &mut T {
    fn tf_type() -> Type {
        T::tf_type()
    }
    fn accepted_values() -> Option<&'static [&'static str]> {
        T::accepted_values()
    }
}

impl<T: TfValue + ToOwned + ?Sized> TfValue for Cow<'_, T> {
    fn tf_type() -> Type {
        T::tf_type()
    }
    fn accepted_values() -> Option<&'static [&'static str]> {
        T::accepted_values()
    }
}

impl<T: TfValue> TfValue for Option<T> {
    fn tf_type() -> Type {
        T::tf_type()
    }
    fn accepted_values() -> Option<&'static [&'static str]> {
        T::accepted_values()
    }
}

impl<T: TfValue> TfValue for Unknown<T> {
    fn tf_type() -> Type {
        T::tf_type()
    }
    fn accepted_values() -> Option<&'static [&'static str]> {
        T::accepted_values()
    }
}

/// An element of a list, set or map of nested objects or blocks that may be wholly
/// unknown (Terraform sends `[{..}, var.x ? {..} : {..}]` as a known list with an unknown
/// element): `Vec<Unknown<Subnet>>` has `Subnet`'s schema.
impl<T: TfModel> TfModel for Unknown<T> {
    const SCHEMA_VERSION: i64 = T::SCHEMA_VERSION;

    fn block() -> Block {
        T::block()
    }
}

impl<T: TfValue> TfValue for Vec<T> {
    fn tf_type() -> Type {
        Type::list(T::tf_type())
    }
}

impl<T: TfValue> TfValue for VecDeque<T> {
    fn tf_type() -> Type {
        Type::list(T::tf_type())
    }
}

impl<T: TfValue> TfValue for [T] {
    fn tf_type() -> Type {
        Type::list(T::tf_type())
    }
}

impl<T: TfValue> TfValue for BTreeSet<T> {
    fn tf_type() -> Type {
        Type::set(T::tf_type())
    }
}

impl<T: TfValue, S> TfValue for HashSet<T, S> {
    fn tf_type() -> Type {
        Type::set(T::tf_type())
    }
}

impl<K: MapKey, V: TfValue> TfValue for BTreeMap<K, V> {
    fn tf_type() -> Type {
        Type::map(V::tf_type())
    }
}

impl<K: MapKey, V: TfValue, S> TfValue for HashMap<K, V, S> {
    fn tf_type() -> Type {
        Type::map(V::tf_type())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Types that serde writes as strings, and so may key a Terraform map (sealed).
pub trait MapKey: sealed::Sealed {}

macro_rules! map_key {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl MapKey for $t {}
    )*};
}

map_key!(String, Box<str>, Cow<'_, str>, &str, char);

macro_rules! tuple {
    ($($name:ident)+) => {
        impl<$($name: TfValue),+> TfValue for ($($name,)+) {
            fn tf_type() -> Type {
                Type::tuple([$($name::tf_type()),+])
            }
        }
    };
}

tuple!(A);
tuple!(A B);
tuple!(A B C);
tuple!(A B C D);
tuple!(A B C D E);
tuple!(A B C D E F);
tuple!(A B C D E F G);
tuple!(A B C D E F G H);
tuple!(A B C D E F G H I);
tuple!(A B C D E F G H I J);
tuple!(A B C D E F G H I J K);
tuple!(A B C D E F G H I J K L);

/// What `#[derive(TfValue)]` expands to. Not public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::number::Number;
    pub use crate::schema::DefaultValue;
    pub use crate::schema::{
        Attribute, AttributeType, Block, CustomValidator, NestedBlock, NestedType, NestingMode,
        ObjectNesting, ObjectValidator, Schema, StringKind, Validator,
    };
    pub use crate::types::Type;
    pub use crate::unknown::Refinements;
    pub use crate::{tf_value::TfModel, tf_value::TfValue};
    pub use core::option::Option::{self, None, Some};
    pub use std::vec;
    pub use std::vec::Vec;

    /// Nested attributes whose elements pair with their prior elements by `key`.
    pub fn match_by(mut a: Attribute, key: &str) -> Attribute {
        if let crate::schema::AttributeType::Nested(n) = &mut a.ty {
            n.match_by = Some(key.to_owned());
        }
        a
    }

    /// An object value of these attributes (a default written `{ name = .. }`).
    pub fn object(pairs: Vec<(&str, crate::value::Value)>) -> crate::value::Value {
        crate::value::Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }

    pub use crate::error::Result;
    pub use crate::msgpack::wire::{
        unit_error as wire_unit_error, Probe, ViaSerde, ViaSerdeEncode, ViaWire, ViaWireEncode,
        WireDecode, WireEncode,
    };
    pub use crate::msgpack::Deserializer as MsgpackDeserializer;
    pub use crate::msgpack::Serializer as MsgpackSerializer;
    pub use serde::{Deserialize, Serialize};

    /// `m` as MessagePack, as `msgpack::to_vec(m)` writes it, through the model's own
    /// encoder.
    pub fn model_to_msgpack<M: TfModel + serde::Serialize>(m: &M) -> crate::error::Result<Vec<u8>> {
        crate::msgpack::to_vec_with(|ser| m.__wire_encode(ser))
    }

    /// A model of type `ty`, or null (`None`), decoded as
    /// `dv.decode_as::<Option<M>>(ty)` would, through the model's own decoder
    /// ([`TfModel::__wire_decode`]).
    pub fn decode_model_as<M>(
        dv: &crate::dynamic_value::DynamicValue,
        ty: &Type,
    ) -> crate::error::Result<Option<M>>
    where
        M: TfModel + for<'de> serde::Deserialize<'de>,
    {
        dv.decode_model_as(ty)
    }

    /// A model or null (`None`) from the whole of `bytes`, as
    /// `msgpack::from_slice::<Option<M>>` decodes it, through the model's own decoder.
    pub fn model_from_msgpack<M>(bytes: &[u8]) -> crate::error::Result<Option<M>>
    where
        M: TfModel + for<'de> serde::Deserialize<'de>,
    {
        crate::msgpack::wire::from_slice_with(bytes, super::model_or_null)
    }

    /// A pattern the derive has checked.
    pub fn pattern(source: &str) -> crate::schema::Pattern {
        crate::schema::Pattern::unchecked(source)
    }

    /// A number literal the derive has checked (`default = 0.1`, `refine(min = 1)`);
    /// zero for text it would have rejected.
    pub fn number(text: &str) -> Number {
        text.parse().unwrap_or_else(|_| Number::from(0))
    }

    /// The schema facts of a field, as the derive found them.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Facts {
        pub required: bool,
        pub optional: bool,
        pub computed: bool,
        pub sensitive: bool,
        pub deprecated: bool,
        pub write_only: bool,
        pub requires_replace: bool,
        pub description: Option<&'static str>,
        pub markdown: bool,
        pub one_of: Option<&'static [&'static str]>,
        pub min_length: Option<u64>,
        pub max_length: Option<u64>,
        pub pattern: Option<&'static str>,
    }

    /// The types that hold null (`Option<T>`, and `Unknown<T>` or `Box<T>` of one, and
    /// [`Dynamic`](crate::Dynamic)): a field the derive cannot see into (a type alias)
    /// whose role makes it null at times is checked to be one.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot hold null, and this attribute is null when it is not set",
        label = "cannot hold null",
        note = "an optional, computed or write-only attribute is null in configuration or in the plan: write `Option<..>` around the type, or `Unknown<Option<..>>` for a value that is unknown until apply"
    )]
    pub trait CanBeNull {}

    impl<T> CanBeNull for Option<T> {}
    impl<T: CanBeNull> CanBeNull for crate::unknown::Unknown<T> {}
    impl<T: CanBeNull + ?Sized> CanBeNull for Box<T> {}
    impl CanBeNull for crate::dynamic::Dynamic {}

    /// Checks that a field's type holds null (see [`CanBeNull`]).
    pub fn can_be_null<T: CanBeNull + ?Sized>() {}

    // The helpers' signatures stay on one line: compile errors quote them (tests/ui).

    fn finish(mut a: Attribute, facts: Facts) -> Attribute {
        a.required = facts.required;
        a.optional = facts.optional;
        a.computed = facts.computed;
        a.sensitive = facts.sensitive;
        a.deprecated = facts.deprecated;
        a.write_only = facts.write_only;
        a.requires_replace = facts.requires_replace;
        if let Some(d) = facts.description {
            a.description = Some(d.to_owned());
            a.description_kind = kind(facts.markdown);
        }
        if let Some(values) = facts.one_of {
            a.validators.push(Validator::one_of(values.iter().copied()));
        }
        if facts.min_length.is_some() || facts.max_length.is_some() {
            a.validators.push(Validator::Length {
                min: facts.min_length,
                max: facts.max_length,
            });
        }
        if let Some(p) = facts.pattern {
            a.validators
                .push(Validator::Pattern(crate::schema::Pattern::unchecked(p)));
        }
        a
    }

    fn kind(markdown: bool) -> StringKind {
        if markdown {
            StringKind::Markdown
        } else {
            StringKind::Plain
        }
    }

    /// An attribute of the field's own type.
    pub fn attribute<T: TfValue + ?Sized>(facts: Facts) -> Attribute {
        attribute_of(T::tf_type(), T::accepted_values(), facts)
    }

    // The work of `attribute`, not generic: compiled once here, not for every field.
    fn attribute_of(
        ty: Type,
        accepted: Option<&'static [&'static str]>,
        facts: Facts,
    ) -> Attribute {
        let mut a = Attribute::of_type(ty);
        if let Some(values) = accepted {
            a.validators.push(Validator::one_of(values.iter().copied()));
        }
        finish(a, facts)
    }

    /// An attribute with the nested attributes of model `T`. Blocks of `T` become
    /// optional nested attributes of the same shape (nested types have no blocks).
    pub fn nested_attribute<T: TfModel + ?Sized>(n: ObjectNesting, facts: Facts) -> Attribute {
        finish(Attribute::nested(nested_type(n, T::block())), facts)
    }

    fn nested_type(nesting: ObjectNesting, block: Block) -> NestedType {
        let mut n = NestedType::new(nesting);
        n.attributes = block.attributes;
        n.validators = block.validators;
        for (name, nb) in block.block_types {
            if n.attributes.contains_key(&name) {
                continue;
            }
            let inner = match nb.nesting {
                NestingMode::List => ObjectNesting::List,
                NestingMode::Set => ObjectNesting::Set,
                NestingMode::Map => ObjectNesting::Map,
                _ => ObjectNesting::Single,
            };
            n.attributes.insert(
                name,
                Attribute::nested(NestedType {
                    match_by: nb.match_by,
                    ..nested_type(inner, nb.block)
                })
                .set_optional(),
            );
        }
        n
    }

    /// A nested block type of model `T`.
    pub fn block<T: TfModel + ?Sized>(n: NestingMode, min: u64, max: u64) -> NestedBlock {
        NestedBlock::new(n, T::block())
            .min_items(min)
            .max_items(max)
    }

    /// The container's (or a block field's) description and deprecation.
    pub fn describe(
        block: Block,
        description: Option<&str>,
        markdown: bool,
        deprecated: bool,
    ) -> Block {
        let block = if deprecated {
            block.deprecated()
        } else {
            block
        };
        match description {
            Some(d) => block.description(d, kind(markdown)),
            None => block,
        }
    }
}
