//! The safety limits, in one place: how deep values and types may nest, how long a
//! number's text and a refinement payload may be. Decoding rejects input past them with a
//! [`Category::Limit`](crate::Category::Limit) error.
//!
//! ```
//! assert_eq!(tfvalue::limits::DEFAULT_MAX_DEPTH, 128);
//! let mut de = tfvalue::msgpack::Deserializer::from_slice(b"\x91\x91\xc0").max_depth(1);
//! let err = serde::Deserialize::deserialize(&mut de).map(|_: Vec<Vec<()>>| ()).unwrap_err();
//! assert_eq!(err.category(), tfvalue::Category::Limit);
//! ```

/// How deep values may nest by default: arrays, maps, refined unknowns and the body of
/// each `dynamic` value count one level each (`msgpack::Deserializer::max_depth` and
/// `json::Deserializer::max_depth` change it).
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// How deep a type's JSON may nest by default ([`Type::from_json_with_depth`] takes
/// another limit).
///
/// [`Type::from_json_with_depth`]: crate::Type::from_json_with_depth
pub const DEFAULT_TYPE_DEPTH: usize = crate::types::DEFAULT_TYPE_DEPTH;

/// The longest plain decimal text of a number, in characters.
pub const MAX_NUMBER_TEXT_LEN: usize = crate::number::MAX_NUMBER_TEXT_LEN;

/// The largest refinement payload of an unknown, in bytes (go-cty's limit too).
pub const MAX_REFINEMENT_PAYLOAD: usize = crate::unknown::MAX_REFINEMENT_PAYLOAD;

/// A budget for the nulls that decoding fills in for attributes an object leaves out, when
/// the object's type came from the input.
///
/// A type read from the input (inside a `dynamic` value) can declare many optional
/// attributes, and every empty object of it would make that many nulls: without a budget,
/// a few kilobytes of input could build hundreds of megabytes. (With a type the caller
/// gives, the nulls per byte are bounded by that type.) The outermost decode sets a budget
/// proportional to its input; nested decodes share it.
///
/// Why a thread-local and not a field of the deserializer: the nulls are made by the
/// model's seeds (`Value`'s and `Dynamic`'s `DeserializeSeed`s), which serde hands any
/// `Deserializer`, the formats' own and everyone else's; serde gives a seed no way to reach
/// its deserializer's state. The guard scopes the budget to one outermost decode on one
/// thread, and is dropped (the budget cleared) when that decode returns or unwinds.
pub(crate) mod fill {
    use std::cell::Cell;

    thread_local! {
        static LEFT: Cell<Option<usize>> = const { Cell::new(None) };
        /// How many `dynamic` values (whose types come from the input) enclose the
        /// decoding; a type the caller gave is trusted to be as large as it is.
        static INSIDE_DYNAMIC: Cell<u32> = const { Cell::new(0) };
    }

    /// Marks the decoding of a `dynamic` value's body, whose type came from the input.
    pub(crate) struct DynamicScope;

    impl DynamicScope {
        pub(crate) fn enter() -> DynamicScope {
            INSIDE_DYNAMIC.with(|d| d.set(d.get().saturating_add(1)));
            DynamicScope
        }
    }

    impl Drop for DynamicScope {
        fn drop(&mut self) {
            INSIDE_DYNAMIC.with(|d| d.set(d.get().saturating_sub(1)));
        }
    }

    /// Nulls that any input may have filled in, whatever its size.
    const BASE: usize = 1 << 16;
    /// And per byte of input.
    const PER_BYTE: usize = 4;

    /// Holds the budget for one outermost decode.
    pub(crate) struct Guard {
        outermost: bool,
    }

    impl Guard {
        pub(crate) fn enter(input_len: usize) -> Guard {
            LEFT.with(|left| {
                if left.get().is_some() {
                    Guard { outermost: false }
                } else {
                    left.set(Some(
                        BASE.saturating_add(input_len.saturating_mul(PER_BYTE)),
                    ));
                    Guard { outermost: true }
                }
            })
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            if self.outermost {
                LEFT.with(|left| left.set(None));
            }
        }
    }

    /// Spends `n` filled-in nulls, if the object's type came from the input.
    pub(crate) fn charge(n: usize) -> Result<(), crate::error::Error> {
        if INSIDE_DYNAMIC.with(Cell::get) == 0 {
            return Ok(());
        }
        LEFT.with(|left| match left.get() {
            None => Ok(()),
            Some(l) if n <= l => {
                left.set(Some(l - n));
                Ok(())
            }
            // The mark keeps the category through the visitor's `de::Error::custom`.
            Some(_) => Err(crate::error::Error::limit(format_args!(
                "{}objects leave out more attributes than the input could justify: \
                 too many nulls would be filled in",
                crate::error::LIMIT_MARK
            ))),
        })
    }
}
