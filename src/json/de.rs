//! The JSON deserializer: serde_json reads the text, and a thin adapter of ours handles
//! what serde_json does not know (exact numbers, `dynamic` values, go-cty's conversions,
//! attribute paths, duplicate keys, the nesting limit).
//!
//! # How the adapter works
//!
//! serde hands nested values to a seed together with serde_json's own deserializer, so
//! the adapter wraps every level: [`Wrap`] wraps a serde_json deserializer, `VisitorWrap`
//! the visitor given to it, `SeqWrap` and `MapWrap` the accessors serde_json passes to
//! that visitor, and `SeedWrap` the seeds given to those, which wraps the deserializer
//! for the next level in turn. Users' visitors only ever see tfvalue's [`Error`]; when
//! one of them fails inside serde_json, the error is kept aside in the shared state and
//! serde_json carries a marker up to the next wrapper, which takes the error back.
//!
//! Numbers and strings are read as serde_json's `RawValue` (a borrowed slice of the
//! input, checked by serde_json) and converted here, so that numbers stay exact without
//! serde_json's global `arbitrary_precision` feature, and a string may be given as a
//! number or a bool with its text intact, as go-cty allows.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell};
use std::collections::HashSet;
use std::fmt;

use serde::de::{
    self, value::BorrowedStrDeserializer, Deserialize, DeserializeSeed, IntoDeserializer,
    Unexpected, Visitor,
};
use serde_json::value::RawValue;

use crate::dyn_check::{At, DynCheck};
use crate::error::{Category, Error, Origin, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::private::{DYNAMIC_TOKEN, NUMBER_TOKEN, RAW_TOKEN, UNKNOWN_TOKEN, VALUE_TOKEN};
use crate::types::Type;
use crate::value::{TypedSeed, Value};

use super::ser::is_json_number;

/// The default nesting limit (the model's, [`limits::DEFAULT_MAX_DEPTH`](crate::limits::DEFAULT_MAX_DEPTH)).
pub use crate::limits::DEFAULT_MAX_DEPTH;

/// The newtype name of `serde_json::value::RawValue`, passed through untouched so that
/// `Box<RawValue>` and `&RawValue` fields keep working.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The message of the stand-in error that carries one of ours through serde_json.
const DEFERRED: &str = "\u{0}tfvalue: deferred error";

/// Deserializes Terraform's JSON value format into any `serde::Deserialize` type.
///
/// This is the format of the `json` field of tfplugin5/6 `DynamicValue` and of
/// `RawState.json` in `UpgradeResourceState`. serde_json does the parsing; this adapter
/// adds what Terraform's format needs on top:
///
/// - numbers of any size and precision, exactly ([`Number`], `Value`);
/// - go-cty's conversions: a number may be given as a string (`"5"`), a string as a
///   number or a bool (`12` reads as `"12"`, `1e3` as `"1e3"`), a bool as one of the
///   strings `"true"`, `"false"`, `"1"`, `"0"`;
/// - `dynamic` values as `{"type": T, "value": V}`, with the keys in either order;
/// - duplicate keys are rejected, and so is an attribute a struct does not declare
///   (unless [`ignore_undeclared_attributes`](Deserializer::ignore_undeclared_attributes)
///   is set);
/// - errors name the attribute path and the byte offset.
///
/// Build it from a slice, set options, deserialize, then call
/// [`end`](Deserializer::end) to reject trailing data (the free function
/// [`from_slice`](super::from_slice) does all of that):
///
/// ```
/// use serde::Deserialize;
/// use tfvalue::json::Deserializer;
///
/// #[derive(Deserialize, Debug, PartialEq)]
/// struct Instance { ami: String, count: u32 }
///
/// // `count` was stored as a string, and `legacy` is no longer in the model.
/// let input = br#"{"ami": "ami-123", "count": "2", "legacy": true}"#;
/// let mut de = Deserializer::from_slice(input)
///     .ignore_undeclared_attributes(true)
///     .max_depth(64);
/// let instance = Instance::deserialize(&mut de)?;
/// de.end()?;
/// assert_eq!(instance, Instance { ami: "ami-123".into(), count: 2 });
/// # Ok::<(), tfvalue::Error>(())
/// ```
///
/// # Under `#[serde(flatten)]` and untagged enums
///
/// serde buffers the content of flattened structs and untagged enums in its own
/// representation before handing it on, and that buffer only holds what serde_json
/// reports: exact numbers beyond `f64`, `dynamic` values and the conversions above are
/// not available there, and undeclared attributes of a flattened struct are not
/// detected. Give such fields their own struct instead.
pub struct Deserializer<'de> {
    json: serde_json::Deserializer<serde_json::de::StrRead<'de>>,
    st: State<'de>,
    /// Invalid UTF-8 in the input, reported by the first read.
    invalid: Option<Error>,
}

impl<'de> Deserializer<'de> {
    /// A deserializer over `input`, borrowing strings from it where the target allows.
    pub fn from_slice(input: &'de [u8]) -> Self {
        // JSON is UTF-8 throughout. Checking it once here, rather than string by string,
        // lets serde_json read the input as `str` and skip its per-value checks.
        let (text, invalid) = match std::str::from_utf8(input) {
            Ok(text) => (text, None),
            Err(e) => (
                "",
                Some({
                    let at = e.valid_up_to();
                    let newlines: Vec<usize> = input[..at]
                        .iter()
                        .enumerate()
                        .filter(|(_, b)| **b == b'\n')
                        .map(|(i, _)| i)
                        .collect();
                    let (line, column) = line_column(input, &newlines, at);
                    Error::syntax("invalid UTF-8 in JSON text").at_text_offset(
                        Origin::Json,
                        at as u64,
                        line,
                        column,
                    )
                }),
            ),
        };
        let mut json = serde_json::Deserializer::from_str(text);
        // Our own depth guard counts every level serde_json recurses into (every visit of
        // an array or object passes through the adapter), so serde_json's fixed limit is
        // replaced by the configurable one.
        json.disable_recursion_limit();
        Deserializer {
            json,
            st: State {
                root: input,
                cur: Cell::new(input),
                stash: Cell::new(None),
                depth_left: Cell::new(DEFAULT_MAX_DEPTH),
                max_depth: DEFAULT_MAX_DEPTH,
                ignore_undeclared: false,
                undeclared: Cell::new(false),
                last_key: Cell::new(None),
                newlines: OnceCell::new(),
                dyn_check: Default::default(),
            },
            invalid,
        }
    }

    /// Sets the nesting limit (default 128): every array and object counts one level, and
    /// so does the body of each `dynamic` value.
    ///
    /// The limit also bounds the stack the decoder uses, so a very high limit is only
    /// safe on a thread with a large stack.
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.st.depth_left.set(depth);
        self.st.max_depth = depth;
        self
    }

    /// Skips object attributes that the target does not declare, instead of failing with
    /// `unsupported attribute`. This is what decoding state written under an older schema
    /// needs when attributes have since been removed.
    ///
    /// It applies to structs deriving `Deserialize` and to object types when decoding a
    /// [`Value`] with [`decode_value`](Deserializer::decode_value). For a struct, an
    /// attribute is undeclared when serde's derive skips it, which it does by reading it
    /// as `serde::de::IgnoredAny` (so a field of that very type counts as undeclared too);
    /// a struct with `#[serde(deny_unknown_fields)]` rejects it whatever this says. The
    /// type of a `dynamic` value comes with the value, so its attributes are never
    /// skipped.
    ///
    /// ```
    /// use serde::Deserialize;
    ///
    /// #[derive(Deserialize, Debug)]
    /// struct Tag { key: String }
    ///
    /// let input = br#"{"key": "env", "value": "prod"}"#;
    /// let err = tfvalue::json::from_slice::<Tag>(input).unwrap_err();
    /// assert_eq!(err.to_string(), "unsupported attribute `value`, expected one of `key` at line 1 column 16");
    ///
    /// let mut de = tfvalue::json::Deserializer::from_slice(input).ignore_undeclared_attributes(true);
    /// let tag = Tag::deserialize(&mut de)?;
    /// assert_eq!(tag.key, "env");
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    #[must_use]
    pub fn ignore_undeclared_attributes(mut self, ignore: bool) -> Self {
        self.st.ignore_undeclared = ignore;
        self
    }

    /// Checks that nothing but whitespace follows the value.
    ///
    /// # Errors
    ///
    /// `trailing data after the value` when anything else is left.
    pub fn end(&mut self) -> Result<()> {
        if let Some(e) = self.invalid.take() {
            return Err(e);
        }
        self.json.end().map_err(|e| self.st.recover(e))
    }

    /// Decodes a [`Value`] of type `ty`, with this deserializer's options.
    ///
    /// Attributes missing from an object are null, as in Terraform's JSON state.
    ///
    /// ```
    /// use tfvalue::{json::Deserializer, Type};
    ///
    /// let ty: Type = serde_json::from_str(r#"["object",{"name":"string","size":"number"}]"#)?;
    /// let mut de = Deserializer::from_slice(br#"{"name": "disk", "old": 1}"#).ignore_undeclared_attributes(true);
    /// let v = de.decode_value(&ty)?;
    /// de.end()?;
    /// assert_eq!(v["name"], "disk");
    /// assert!(v["size"].is_null());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Value::from_json`].
    pub fn decode_value(&mut self, ty: &Type) -> Result<Value> {
        let seed = TypedSeed::new(ty)
            .missing_attributes_null(true)
            .ignore_undeclared_attributes(self.st.ignore_undeclared);
        seed.deserialize(&mut *self)
    }

    #[inline]
    fn wrap(
        &mut self,
    ) -> Result<Wrap<'_, 'static, 'de, &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>>>
    {
        if let Some(e) = self.invalid.take() {
            return Err(e);
        }
        Ok(Wrap {
            de: &mut self.json,
            st: &self.st,
            ctx: Ctx::Value,
        })
    }
}

macro_rules! forward_to_wrap {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
            de::Deserializer::$method(self.wrap()?, $($arg,)* visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    forward_to_wrap! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

// ---------------------------------------------------------------------------------------
// Shared state

struct State<'de> {
    /// The whole input, for byte offsets.
    root: &'de [u8],
    /// The input serde_json is reading now: the root, or a `dynamic` value that was read
    /// ahead of its type. serde_json reports line and column within it.
    cur: Cell<&'de [u8]>,
    /// An error of ours on its way through serde_json.
    stash: Cell<Option<Error>>,
    depth_left: Cell<usize>,
    max_depth: usize,
    ignore_undeclared: bool,
    /// Set when an attribute was found undeclared, so that its name is not also put on
    /// the path (the message names it).
    undeclared: Cell<bool>,
    /// The text of the map key read last.
    last_key: Cell<Option<Cow<'de, str>>>,
    /// Where the newlines of the whole input are, found on first need (to turn
    /// serde_json's lines and columns into offsets without rescanning).
    newlines: OnceCell<Vec<usize>>,
    /// Where the deserializer is, for the check that the elements of a collection agree
    /// on the types of the `dynamic` values in them.
    dyn_check: std::cell::RefCell<DynCheck<'static>>,
}

impl<'de> State<'de> {
    #[inline]
    fn enter(&self) -> Result<()> {
        match self.depth_left.get().checked_sub(1) {
            Some(d) => {
                self.depth_left.set(d);
                Ok(())
            }
            None => Err(Error::limit(format_args!(
                "nesting is deeper than the limit of {}",
                self.max_depth
            ))),
        }
    }

    #[inline]
    fn leave(&self) {
        self.depth_left.set(self.depth_left.get().saturating_add(1));
    }

    /// Hands one of our errors to serde_json, which only carries its own error type.
    #[cold]
    fn defer<E: de::Error>(&self, err: Error) -> E {
        self.stash.set(Some(err));
        E::custom(DEFERRED)
    }

    /// Turns an error that came out of serde_json back into ours: the deferred error if
    /// it is one, else serde_json's own (a syntax error, the end of input), with the
    /// position serde_json reports turned into a byte offset.
    #[cold]
    fn recover<E: fmt::Display>(&self, err: E) -> Error {
        let text = err.to_string();
        let (message, position) = split_position(&text);
        let stashed = self.stash.take();
        let err = match stashed {
            Some(e) if message == DEFERRED => e,
            _ => {
                let category = categorize(message);
                let message = match message {
                    "trailing characters" => "trailing data after the value",
                    "EOF while parsing a value"
                        if self.root.iter().all(u8::is_ascii_whitespace) =>
                    {
                        "the input is empty"
                    }
                    m => m,
                };
                Error::new(category, message)
            }
        };
        match position {
            Some((line, column)) => self.at_json(err, self.offset_of(line, column) as usize),
            None => err,
        }
    }

    /// Gives `err` the byte offset `at` in the whole input, with its line and column
    /// (counted in the whole input, as serde_json counts them), unless it has a position.
    #[cold]
    fn at_json(&self, err: Error, at: usize) -> Error {
        if err.offset().is_some() {
            return err;
        }
        let (line, column) = line_column(self.root, self.newlines(), at);
        err.at_text_offset(Origin::Json, at as u64, line, column)
    }

    /// Where the input's newlines are, found once.
    fn newlines(&self) -> &[usize] {
        self.newlines.get_or_init(|| {
            self.root
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i)
                .collect()
        })
    }

    /// The byte offset in the whole input of serde_json's line and column in the current
    /// input (the column is that of the byte serde_json stopped at).
    fn offset_of(&self, line: usize, column: usize) -> u64 {
        self.index_of(line, column).saturating_sub(1) as u64
    }

    /// The offset in the whole input just after serde_json's line and column in the
    /// current input (where serde_json's reading stopped).
    fn index_of(&self, line: usize, column: usize) -> usize {
        let cur = self.cur.get();
        let base = self.base_of(cur).unwrap_or(0);
        let end = base + cur.len();
        let start = if line <= 1 {
            base
        } else {
            let newlines = self.newlines();
            // The first newline of the current input, then line - 2 more.
            let first = newlines.partition_point(|&at| at < base);
            match newlines.get(first + line - 2) {
                Some(&at) if at < end => at + 1,
                _ => end,
            }
        };
        start.saturating_add(column).min(end)
    }

    /// The text of the JSON number that ends where serde_json's reading stopped (at
    /// `line` and `column`), if there is one.
    fn number_before(&self, line: usize, column: usize) -> Option<&'de str> {
        let cur = self.cur.get();
        let base = self.base_of(cur)?;
        let end = self.index_of(line, column);
        let mut start = end;
        while start > base
            && self
                .root
                .get(start - 1)
                .is_some_and(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            start -= 1;
        }
        // The number must end there: anything but a delimiter after it means the position
        // was not the end of the number, and its text would be cut short.
        let ends = match self.root.get(end) {
            None => true,
            Some(b) => matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}'),
        };
        let text = std::str::from_utf8(self.root.get(start..end)?).ok()?;
        (ends && is_json_number(text)).then_some(text)
    }

    /// Where `part` starts in the whole input, if it is a slice of it (a string that was
    /// unescaped into a buffer of its own is not).
    fn base_of(&self, part: &[u8]) -> Option<usize> {
        let at = (part.as_ptr() as usize).wrapping_sub(self.root.as_ptr() as usize);
        (at <= self.root.len()).then_some(at)
    }

    /// Gives `err` the offset of `raw`, a value of the input, unless it has one.
    #[cold]
    fn at_raw(&self, err: Error, raw: &str) -> Error {
        match self.base_of(raw.as_bytes()) {
            Some(at) => self.at_json(err, at),
            None => err,
        }
    }

    /// Gives `err` the offset of the opening quote of `key`, the text of a key of the
    /// input (a key with escapes was copied, and has no offset here).
    #[cold]
    fn at_key(&self, err: Error, key: &str) -> Error {
        match self.base_of(key.as_bytes()) {
            Some(at) => self.at_json(err, at.saturating_sub(1)),
            None => err,
        }
    }

    /// Decodes a value that was read ahead (a `dynamic` value before its type) from its
    /// raw text, with the same options, depth and offsets as the rest of the input.
    fn decode_raw<S: DeserializeSeed<'de>>(&self, raw: &'de RawValue, seed: S) -> Result<S::Value> {
        let text = raw.get();
        let mut json = serde_json::Deserializer::from_str(text);
        json.disable_recursion_limit();
        let outer = self.cur.replace(text.as_bytes());
        let res = seed
            .deserialize(Wrap {
                de: &mut json,
                st: self,
                ctx: Ctx::Value,
            })
            .and_then(|v| json.end().map(|()| v).map_err(|e| self.recover(e)));
        self.cur.set(outer);
        res
    }
}

/// Splits serde_json's ` at line L column C` off a message.
fn split_position(text: &str) -> (&str, Option<(usize, usize)>) {
    const AT: &str = " at line ";
    if let Some(i) = text.rfind(AT) {
        if let (Some(message), Some(rest)) = (text.get(..i), text.get(i + AT.len()..)) {
            if let Some((line, column)) = rest.split_once(" column ") {
                if let (Ok(line), Ok(column)) = (line.parse(), column.parse()) {
                    return (message, Some((line, column)));
                }
            }
        }
    }
    (text, None)
}

/// The category of one of serde_json's own messages.
fn categorize(message: &str) -> Category {
    const SYNTAX: &[&str] = &[
        "expected",
        "invalid escape",
        "invalid number",
        "number out of range",
        "invalid unicode code point",
        "control character",
        "key must be a string",
        "lone leading surrogate",
        "trailing comma",
        "trailing characters",
        "unexpected end of hex escape",
        "float key must be finite",
    ];
    if message.starts_with("EOF while parsing") {
        Category::Eof
    } else if message == "recursion limit exceeded" {
        Category::Limit
    } else if SYNTAX.iter().any(|s| message.starts_with(s)) {
        Category::Syntax
    } else {
        Category::Data
    }
}

// ---------------------------------------------------------------------------------------
// The wrappers

/// Where a wrapped deserializer sits.
#[derive(Clone, Copy)]
enum Ctx<'k> {
    /// An ordinary value.
    Value,
    /// A map key.
    Key,
    /// The value of the attribute `key` of a struct with these fields: if the struct
    /// ignores it, the struct does not declare it.
    Field(&'k str, &'static [&'static str]),
}

/// What a wrapped visitor is reading.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Anything; objects are maps.
    Any,
    /// A map key, whose text is recorded.
    Key,
    /// A bool, which may be given as a string.
    Bool,
    /// A struct with these fields: an object (an array is not accepted).
    Struct(&'static [&'static str]),
    /// An object of a `Value`: its visitor checks attributes itself.
    Object,
    /// An array read as a list or set.
    Seq,
    /// An array read as a tuple.
    Tuple,
}

/// A serde_json deserializer (or one of its parts), seen through the adapter.
struct Wrap<'s, 'k, 'de, D> {
    de: D,
    st: &'s State<'de>,
    ctx: Ctx<'k>,
}

impl<'s, 'de, D: de::Deserializer<'de>> Wrap<'s, '_, 'de, D> {
    #[inline]
    fn visit_with<V: Visitor<'de>>(self, visitor: V, mode: Mode) -> Result<V::Value> {
        let st = self.st;
        self.de
            .deserialize_any(VisitorWrap {
                v: visitor,
                st,
                mode,
            })
            .map_err(|e| st.recover(e))
    }

    /// Reads the next value as raw JSON text.
    #[inline]
    fn raw(self) -> Result<&'de RawValue> {
        let st = self.st;
        <&'de RawValue>::deserialize(self.de).map_err(|e| st.recover(e))
    }

    fn number_hint<V: Visitor<'de>>(self, visitor: V, hint: Hint) -> Result<V::Value> {
        let st = self.st;
        let raw = self.raw()?.get();
        let res = match raw.as_bytes().first() {
            Some(b'-' | b'0'..=b'9') => visit_json_number(raw, visitor, hint),
            Some(b'"') => match string_content(raw) {
                Ok(s) => visit_number_string(&s, visitor, hint),
                Err(e) => Err(e),
            },
            _ => visit_other(raw, visitor),
        };
        res.map_err(|e| st.at_raw(e, raw))
    }

    fn str_hint<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let st = self.st;
        let mut slot = Some(visitor);
        let err = match self.de.deserialize_any(StrVisitor {
            slot: &mut slot,
            st,
        }) {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        // A number that serde_json could only give as an f64 (`1e3`, `1.50`, `-0`): go-cty
        // reads it as its text, as written. serde_json has read it and stopped right
        // after it, which its error says.
        // The same for a number too large for an f64 (`1e400`): serde_json gave up on it
        // right after reading it.
        if let Some(visitor) = slot.take() {
            let text = err.to_string();
            if let (NUMBER_TEXT | "number out of range", Some((line, column))) =
                split_position(&text)
            {
                return match st.number_before(line, column) {
                    Some(raw) => visitor
                        .visit_borrowed_str(raw)
                        .map_err(|e| st.at_raw(e, raw)),
                    None => Err(Error::syntax("cannot find the text of a number")),
                };
            }
        }
        Err(st.recover(err))
    }

    /// A [`Number`] or a `Value` of type number: the exact text goes to the visitor.
    fn number_token<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let st = self.st;
        let raw = self.raw()?.get();
        let res = match raw.as_bytes().first() {
            Some(b'-' | b'0'..=b'9') => match small_int(raw) {
                Some(SmallInt::U(u)) => visitor.visit_u64(u),
                Some(SmallInt::I(i)) => visitor.visit_i64(i),
                None => visitor.visit_borrowed_str(raw),
            },
            // go-cty accepts a number given as a string (`"5"`, `"1e3"`, `"-Inf"`).
            Some(b'"') => match string_content(raw) {
                Ok(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
                Ok(Cow::Owned(s)) => visitor.visit_string(s),
                Err(e) => Err(e),
            },
            _ => visit_other(raw, visitor),
        };
        res.map_err(|e| st.at_raw(e, raw))
    }

    /// `{"type": T, "value": V}` in either key order, or null.
    fn dynamic<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let st = self.st;
        self.de
            .deserialize_any(DynamicVisitor { v: visitor, st })
            .map_err(|e| st.recover(e))
    }
}

/// The number types a visitor may ask for.
#[derive(Clone, Copy)]
enum Hint {
    Int(&'static str),
    F32,
    F64,
}

macro_rules! int_hints {
    ($($method:ident => $name:literal;)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.number_hint(visitor, Hint::Int($name))
        }
    )*};
}

impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for Wrap<'_, '_, 'de, D> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_with(visitor, Mode::Any)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_with(visitor, Mode::Bool)
    }

    int_hints! {
        deserialize_i8 => "i8";
        deserialize_i16 => "i16";
        deserialize_i32 => "i32";
        deserialize_i64 => "i64";
        deserialize_i128 => "i128";
        deserialize_u8 => "u8";
        deserialize_u16 => "u16";
        deserialize_u32 => "u32";
        deserialize_u64 => "u64";
        deserialize_u128 => "u128";
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.number_hint(visitor, Hint::F32)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.number_hint(visitor, Hint::F64)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str_hint(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str_hint(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str_hint(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let st = self.st;
        self.de
            .deserialize_bytes(VisitorWrap {
                v: visitor,
                st,
                mode: Mode::Any,
            })
            .map_err(|e| st.recover(e))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let st = self.st;
        self.de
            .deserialize_option(VisitorWrap {
                v: visitor,
                st,
                mode: Mode::Any,
            })
            .map_err(|e| st.recover(e))
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_with(visitor, Mode::Any)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.visit_with(visitor, Mode::Any)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match name {
            // JSON has no unknowns: every value is known.
            UNKNOWN_TOKEN => visitor.visit_newtype_struct(self),
            // A `Value` checks its collections of dynamic values against its type itself.
            VALUE_TOKEN => {
                let st = self.st;
                st.dyn_check.borrow_mut().skip += 1;
                let v = visitor.visit_newtype_struct(self);
                st.dyn_check.borrow_mut().skip -= 1;
                v
            }
            NUMBER_TOKEN => self.number_token(visitor),
            DYNAMIC_TOKEN => self.dynamic(visitor),
            // tfvalue::Raw: the JSON text of the value, not parsed any further.
            RAW_TOKEN => {
                let st = self.st;
                let raw = self.raw()?.get();
                visitor
                    .visit_borrowed_str(raw)
                    .map_err(|e| st.at_raw(e, raw))
            }
            RAW_VALUE_TOKEN => {
                let st = self.st;
                self.de
                    .deserialize_newtype_struct(name, visitor)
                    .map_err(|e| st.recover(e))
            }
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_with(visitor, Mode::Seq)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.visit_with(visitor, Mode::Tuple)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.visit_with(visitor, Mode::Any)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_with(visitor, Mode::Any)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // `Value` objects are read as a struct without a name; their visitor checks the
        // attributes against the object type itself.
        let mode = if name.is_empty() {
            Mode::Object
        } else {
            Mode::Struct(fields)
        };
        self.visit_with(visitor, mode)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let st = self.st;
        self.de
            .deserialize_any(EnumVisitor { v: visitor, st })
            .map_err(|e| st.recover(e))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str_hint(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let st = self.st;
        if let Ctx::Field(key, fields) = self.ctx {
            // A struct skips what it does not declare; we do not, unless asked to.
            if !st.ignore_undeclared {
                st.undeclared.set(true);
                return Err(st.at_key(<Error as de::Error>::unknown_field(key, fields), key));
            }
        }
        self.de
            .deserialize_ignored_any(VisitorWrap {
                v: visitor,
                st,
                mode: Mode::Any,
            })
            .map_err(|e| st.recover(e))
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

/// A map key: everything goes to serde_json as asked, and the key's text is recorded.
struct KeyWrap<'s, 'de, D> {
    de: D,
    st: &'s State<'de>,
}

macro_rules! forward_key {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
            let st = self.st;
            self.de
                .$method($($arg,)* VisitorWrap { v: visitor, st, mode: Mode::Key })
                .map_err(|e| st.recover(e))
        }
    )*};
}

impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for KeyWrap<'_, 'de, D> {
    type Error = Error;

    forward_key! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

/// A seed handed to serde_json: the deserializer it gets back is wrapped again.
struct SeedWrap<'s, 'k, 'de, S> {
    seed: S,
    st: &'s State<'de>,
    ctx: Ctx<'k>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for SeedWrap<'_, '_, 'de, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        let st = self.st;
        let res = match self.ctx {
            Ctx::Key => self.seed.deserialize(KeyWrap { de: d, st }),
            ctx => self.seed.deserialize(Wrap { de: d, st, ctx }),
        };
        res.map_err(|e| st.defer(e))
    }
}

/// A visitor handed to serde_json: what it is given is wrapped before the user's visitor
/// sees it.
struct VisitorWrap<'s, 'de, V> {
    v: V,
    st: &'s State<'de>,
    mode: Mode,
}

macro_rules! forward_visit {
    ($($method:ident: $ty:ty => $key:expr;)*) => {$(
        #[inline]
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            let st = self.st;
            if self.mode == Mode::Key {
                #[allow(clippy::redundant_closure_call)]
                st.last_key.set(Some(Cow::Owned(($key)(v))));
            }
            self.v.$method(v).map_err(|e: Error| st.defer(e))
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for VisitorWrap<'_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    #[inline]
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        let st = self.st;
        self.v.visit_bool(v).map_err(|e: Error| st.defer(e))
    }

    forward_visit! {
        visit_i8: i8 => |v: i8| v.to_string();
        visit_i16: i16 => |v: i16| v.to_string();
        visit_i32: i32 => |v: i32| v.to_string();
        visit_i64: i64 => |v: i64| v.to_string();
        visit_i128: i128 => |v: i128| v.to_string();
        visit_u8: u8 => |v: u8| v.to_string();
        visit_u16: u16 => |v: u16| v.to_string();
        visit_u32: u32 => |v: u32| v.to_string();
        visit_u64: u64 => |v: u64| v.to_string();
        visit_u128: u128 => |v: u128| v.to_string();
        visit_f32: f32 => |v: f32| v.to_string();
        visit_f64: f64 => |v: f64| v.to_string();
        visit_char: char => |v: char| v.to_string();
    }

    #[inline]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        let st = self.st;
        match self.mode {
            Mode::Key => st.last_key.set(Some(Cow::Owned(v.to_owned()))),
            Mode::Bool => return bool_from_str(self.v, v).map_err(|e| st.defer(e)),
            _ => {}
        }
        self.v.visit_str(v).map_err(|e: Error| st.defer(e))
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        let st = self.st;
        match self.mode {
            Mode::Key => {
                // A key the visitor refuses (an attribute the object type does not
                // declare) is reported where it is.
                st.last_key.set(Some(Cow::Borrowed(v)));
                return self
                    .v
                    .visit_borrowed_str(v)
                    .map_err(|e: Error| st.defer(st.at_key(e, v)));
            }
            Mode::Bool => return bool_from_str(self.v, v).map_err(|e| st.defer(st.at_key(e, v))),
            _ => {}
        }
        self.v.visit_borrowed_str(v).map_err(|e: Error| st.defer(e))
    }

    #[inline]
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        let st = self.st;
        match self.mode {
            Mode::Key => st.last_key.set(Some(Cow::Owned(v.clone()))),
            Mode::Bool => return bool_from_str(self.v, &v).map_err(|e| st.defer(e)),
            _ => {}
        }
        self.v.visit_string(v).map_err(|e: Error| st.defer(e))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        let st = self.st;
        self.v.visit_bytes(v).map_err(|e: Error| st.defer(e))
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        let st = self.st;
        self.v
            .visit_borrowed_bytes(v)
            .map_err(|e: Error| st.defer(e))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        let st = self.st;
        self.v.visit_byte_buf(v).map_err(|e: Error| st.defer(e))
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        let st = self.st;
        self.v.visit_none().map_err(|e: Error| st.defer(e))
    }

    #[inline]
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        let st = self.st;
        self.v
            .visit_some(Wrap {
                de: d,
                st,
                ctx: Ctx::Value,
            })
            .map_err(|e| st.defer(e))
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        let st = self.st;
        self.v.visit_unit().map_err(|e: Error| st.defer(e))
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        let st = self.st;
        self.v
            .visit_newtype_struct(Wrap {
                de: d,
                st,
                ctx: Ctx::Value,
            })
            .map_err(|e| st.defer(e))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let st = self.st;
        if let Mode::Struct(_) | Mode::Object = self.mode {
            // go-cty does not read an object from an array, and neither do we.
            return Err(st.defer(<Error as de::Error>::invalid_type(Unexpected::Seq, &self.v)));
        }
        st.enter().map_err(|e| st.defer(e))?;
        st.dyn_check.borrow_mut().push(self.mode != Mode::Tuple);
        let res = self.v.visit_seq(SeqWrap { seq, st, index: 0 });
        st.leave();
        st.dyn_check.borrow_mut().pop();
        res.map_err(|e| st.defer(e))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let st = self.st;
        st.enter().map_err(|e| st.defer(e))?;
        let kind = match self.mode {
            Mode::Struct(fields) => MapKind::Struct(fields),
            Mode::Object => MapKind::Object,
            _ => MapKind::Map,
        };
        st.dyn_check.borrow_mut().push(kind == MapKind::Map);
        let res = self.v.visit_map(MapWrap {
            map,
            st,
            kind,
            key: None,
            seen: Seen::default(),
        });
        st.leave();
        st.dyn_check.borrow_mut().pop();
        res.map_err(|e| st.defer(e))
    }
}

/// The message of the stand-in error with which [`StrVisitor`] asks for a number's text.
const NUMBER_TEXT: &str = "\u{0}tfvalue: number text";

/// What a string is read from: a string, a number or bool (as its text), or null. The
/// visitor stays in `slot` when the text of a number is needed (see `Wrap::str_hint`).
struct StrVisitor<'a, 's, 'de, V> {
    slot: &'a mut Option<V>,
    st: &'s State<'de>,
}

impl<'de, V: Visitor<'de>> StrVisitor<'_, '_, 'de, V> {
    #[inline]
    fn with<E: de::Error>(self, f: impl FnOnce(V) -> Result<V::Value>) -> Result<V::Value, E> {
        let st = self.st;
        match self.slot.take() {
            Some(v) => f(v).map_err(|e| st.defer(e)),
            None => Err(st.defer(Error::data("a string was read twice"))),
        }
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for StrVisitor<'_, '_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.slot {
            Some(v) => v.expecting(f),
            None => f.write_str("a string"),
        }
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.with(|visitor| visitor.visit_borrowed_str(v))
    }

    #[inline]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.with(|visitor| visitor.visit_str(v))
    }

    #[inline]
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.with(|visitor| visitor.visit_string(v))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.with(|visitor| visitor.visit_borrowed_str(if v { "true" } else { "false" }))
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.with(|visitor| visitor.visit_unit())
    }

    // JSON has no leading zeros or `+`, so an integer's text is its decimal form.
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.with(|visitor| visitor.visit_str(&v.to_string()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.with(|visitor| visitor.visit_str(&v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<V::Value, E> {
        // Keep the visitor: `Wrap::str_hint` gives it the number's text.
        Err(E::custom(NUMBER_TEXT))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<V::Value, A::Error> {
        self.with(|visitor| {
            Err(<Error as de::Error>::invalid_type(
                Unexpected::Seq,
                &visitor,
            ))
        })
    }

    fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<V::Value, A::Error> {
        self.with(|visitor| {
            Err(<Error as de::Error>::invalid_type(
                Unexpected::Map,
                &visitor,
            ))
        })
    }
}

/// go-cty's string-to-bool conversion.
fn bool_from_str<'de, V: Visitor<'de>>(visitor: V, s: &str) -> Result<V::Value> {
    visitor.visit_bool(parse_bool(s)?)
}

/// [`bool_from_str`]'s parse, compiled once rather than for every visitor.
fn parse_bool(s: &str) -> Result<bool> {
    match s {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(Error::data(format_args!(
            "invalid value: string {s:?}, expected a bool (true, false, or one of the strings \"true\", \"false\", \"1\", \"0\")"
        ))),
    }
}

struct SeqWrap<'s, 'de, A> {
    seq: A,
    st: &'s State<'de>,
    index: u64,
}

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for SeqWrap<'_, 'de, A> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let st = self.st;
        let i = self.index;
        self.index += 1;
        st.dyn_check.borrow_mut().at(At::Index(i as u32));
        self.seq
            .next_element_seed(SeedWrap {
                seed,
                st,
                ctx: Ctx::Value,
            })
            .map_err(|e| st.recover(e).prepend(PathStep::Index(i)))
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum MapKind {
    /// A map: keys are map keys, checked for duplicates here.
    Map,
    /// A struct with these fields: keys are attributes; serde's derive rejects duplicate
    /// fields, and an attribute it ignores is undeclared.
    Struct(&'static [&'static str]),
    /// The object of a `Value`, whose visitor checks duplicates and undeclared attributes.
    Object,
}

struct MapWrap<'s, 'de, A> {
    map: A,
    st: &'s State<'de>,
    kind: MapKind,
    key: Option<Cow<'de, str>>,
    seen: Seen<'de>,
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for MapWrap<'_, 'de, A> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let st = self.st;
        match self.map.next_key_seed(SeedWrap {
            seed,
            st,
            ctx: Ctx::Key,
        }) {
            Ok(Some(k)) => {
                let key = st.last_key.take();
                if let (MapKind::Map, Some(key)) = (self.kind, &key) {
                    if !self.seen.insert(key.clone()) {
                        let err = Error::data(format_args!("duplicate key `{}`", key.as_ref()));
                        return Err(st.at_key(err, key));
                    }
                }
                self.key = key;
                Ok(Some(k))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(st.recover(e)),
        }
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let st = self.st;
        let key = self.key.as_deref().unwrap_or_default();
        let ctx = match self.kind {
            MapKind::Struct(fields) => Ctx::Field(key, fields),
            _ => Ctx::Value,
        };
        if let MapKind::Struct(fields) = self.kind {
            // The struct's own name for the field, which lives as long as the check.
            let at = fields
                .iter()
                .find(|f| **f == key)
                .map_or(At::Start, |f| At::Field(f));
            st.dyn_check.borrow_mut().at(at);
        }
        match self.map.next_value_seed(SeedWrap { seed, st, ctx }) {
            Ok(v) => Ok(v),
            Err(e) => {
                let err = st.recover(e);
                if st.undeclared.replace(false) {
                    // The message names the attribute; the path is the object's.
                    return Err(err);
                }
                let key = self.key.as_deref().unwrap_or_default().to_owned();
                Err(err.prepend(match self.kind {
                    MapKind::Map => PathStep::Key(key),
                    MapKind::Struct(_) | MapKind::Object => PathStep::Attr(key),
                }))
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// The line and column (both from 1; the column in bytes, as serde_json counts it) of
/// byte `at` of `input`, whose newlines are at `newlines`.
fn line_column(input: &[u8], newlines: &[usize], at: usize) -> (u64, u64) {
    let at = at.min(input.len());
    let before = newlines.partition_point(|&n| n < at);
    let line_start = match before {
        0 => 0,
        k => newlines[k - 1] + 1,
    };
    (before as u64 + 1, (at - line_start) as u64 + 1)
}

/// The keys of a map so far, to reject duplicates in linear time. Keys usually come
/// sorted (Terraform writes them so), which needs only a comparison with the previous
/// key; out of order, a hash set of the keys is built once.
#[derive(Default)]
struct Seen<'de> {
    keys: Vec<Cow<'de, str>>,
    set: Option<HashSet<Cow<'de, str>>>,
}

impl<'de> Seen<'de> {
    /// Whether `key` was not seen before.
    fn insert(&mut self, key: Cow<'de, str>) -> bool {
        if let Some(set) = &mut self.set {
            return set.insert(key);
        }
        if let Some(prev) = self.keys.last() {
            match prev.as_bytes().cmp(key.as_bytes()) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => return false,
                std::cmp::Ordering::Greater => {
                    let mut set: HashSet<Cow<'de, str>> = self.keys.drain(..).collect();
                    let new = set.insert(key);
                    self.set = Some(set);
                    return new;
                }
            }
        }
        self.keys.push(key);
        true
    }
}

/// Unit enum variants, which are strings.
struct EnumVisitor<'s, 'de, V> {
    v: V,
    st: &'s State<'de>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for EnumVisitor<'_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        let st = self.st;
        self.v
            .visit_enum(BorrowedStrDeserializer::<Error>::new(v))
            .map_err(|e| st.defer(e))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.visit_string(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        let st = self.st;
        let access: de::value::StringDeserializer<Error> = v.into_deserializer();
        self.v.visit_enum(access).map_err(|e| st.defer(e))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, _map: A) -> Result<V::Value, A::Error> {
        Err(self.st.defer(Error::data(
            "enum variants with data cannot be represented in Terraform's wire format",
        )))
    }
}

// ---------------------------------------------------------------------------------------
// dynamic

/// Reads `{"type": T, "value": V}` (either order) and hands it to the visitor as the
/// sequence `[type JSON, value]`; null as unit.
struct DynamicVisitor<'s, 'de, V> {
    v: V,
    st: &'s State<'de>,
}

impl<'de, V: Visitor<'de>> DynamicVisitor<'_, 'de, V> {
    fn read<A: de::MapAccess<'de>>(
        self,
        map: &mut A,
    ) -> Result<(V::Value, &'de RawValue), A::Error> {
        let st = self.st;
        let missing = || {
            st.defer(Error::data(
                r#"a dynamic value needs both "type" and "value""#,
            ))
        };
        match map.next_key_seed(DynKeySeed)? {
            Some(DynKey::Type) => {
                let ty: &'de RawValue = map.next_value()?;
                match map.next_key_seed(DynKeySeed)? {
                    Some(DynKey::Value) => {}
                    Some(other) => return Err(st.defer(other.unexpected())),
                    None => return Err(missing()),
                }
                let v = self
                    .v
                    .visit_seq(DynamicSeq {
                        st,
                        ty: Some(ty),
                        value: Some(DynamicBody::Here(&mut *map)),
                    })
                    .map_err(|e| st.defer(e))?;
                match map.next_key_seed(DynKeySeed)? {
                    None => Ok((v, ty)),
                    Some(other) => Err(st.defer(other.unexpected())),
                }
            }
            Some(DynKey::Value) => {
                // The value comes before its type: keep its text (a borrowed slice, no
                // copy) and decode it once the type is known.
                let value: &'de RawValue = map.next_value()?;
                let ty: &'de RawValue = match map.next_key_seed(DynKeySeed)? {
                    Some(DynKey::Type) => map.next_value()?,
                    Some(other) => return Err(st.defer(other.unexpected())),
                    None => return Err(missing()),
                };
                if let Some(other) = map.next_key_seed(DynKeySeed)? {
                    return Err(st.defer(other.unexpected()));
                }
                self.v
                    .visit_seq(DynamicSeq {
                        st,
                        ty: Some(ty),
                        value: Some(DynamicBody::<A>::Ahead(value)),
                    })
                    .map(|v| (v, ty))
                    .map_err(|e| st.defer(e))
            }
            Some(other) => Err(st.defer(other.unexpected())),
            None => Err(missing()),
        }
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for DynamicVisitor<'_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a dynamic value {"type": T, "value": V}"#)
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        let st = self.st;
        self.v.visit_unit().map_err(|e: Error| st.defer(e))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<V::Value, A::Error> {
        let st = self.st;
        st.enter().map_err(|e| st.defer(e))?;
        let track = st.dyn_check.borrow().skip == 0;
        st.dyn_check.borrow_mut().skip += 1;
        let res = self.read(&mut map);
        st.dyn_check.borrow_mut().skip -= 1;
        st.leave();
        let (v, ty) = res?;
        if track {
            let ty = crate::types::Type::from_json(ty.get().as_bytes()).map_err(|e| st.defer(e))?;
            st.dyn_check
                .borrow_mut()
                .record(ty, &[], false)
                .map_err(|e| st.defer(e))?;
        }
        Ok(v)
    }

    // Anything else is the wrong type, said in tfvalue's words.

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        Err(self.wrong(Unexpected::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        Err(self.wrong(Unexpected::Signed(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        Err(self.wrong(Unexpected::Unsigned(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        Err(self.wrong(Unexpected::Float(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        Err(self.wrong(Unexpected::Str(v)))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, _seq: A) -> Result<V::Value, A::Error> {
        Err(self.wrong(Unexpected::Seq))
    }
}

impl<'de, V: Visitor<'de>> DynamicVisitor<'_, 'de, V> {
    #[cold]
    fn wrong<E: de::Error>(&self, unexpected: Unexpected<'_>) -> E {
        self.st
            .defer(<Error as de::Error>::invalid_type(unexpected, self))
    }
}

enum DynKey {
    Type,
    Value,
    Other(String),
}

impl DynKey {
    #[cold]
    fn unexpected(self) -> Error {
        match self {
            DynKey::Type => Error::data("duplicate key `type` in a dynamic value"),
            DynKey::Value => Error::data("duplicate key `value` in a dynamic value"),
            DynKey::Other(k) => Error::data(format_args!(
                r#"unexpected key {k:?} in a dynamic value, expected "type" and "value""#
            )),
        }
    }
}

struct DynKeySeed;

impl<'de> DeserializeSeed<'de> for DynKeySeed {
    type Value = DynKey;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<DynKey, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for DynKeySeed {
    type Value = DynKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#""type" or "value""#)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<DynKey, E> {
        Ok(match v {
            "type" => DynKey::Type,
            "value" => DynKey::Value,
            other => DynKey::Other(other.to_owned()),
        })
    }
}

/// Where the value of a `dynamic` is: next in the object, or read ahead as raw text.
enum DynamicBody<'m, 'de, A> {
    Here(&'m mut A),
    Ahead(&'de RawValue),
}

struct DynamicSeq<'s, 'm, 'de, A> {
    st: &'s State<'de>,
    ty: Option<&'de RawValue>,
    value: Option<DynamicBody<'m, 'de, A>>,
}

impl<'de, A: de::MapAccess<'de>> de::SeqAccess<'de> for DynamicSeq<'_, '_, 'de, A> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let st = self.st;
        if let Some(ty) = self.ty.take() {
            // First the type, as its raw JSON text.
            let text = ty.get();
            return seed
                .deserialize(BorrowedStrDeserializer::<Error>::new(text))
                .map(Some)
                .map_err(|e| st.at_raw(e, text));
        }
        match self.value.take() {
            Some(DynamicBody::Here(map)) => map
                .next_value_seed(SeedWrap {
                    seed,
                    st,
                    ctx: Ctx::Value,
                })
                .map(Some)
                .map_err(|e| st.recover(e)),
            Some(DynamicBody::Ahead(raw)) => st.decode_raw(raw, seed).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(self.ty.is_some()) + usize::from(self.value.is_some()))
    }
}

// ---------------------------------------------------------------------------------------
// Numbers and strings from raw JSON text

/// The content of a JSON string literal (serde_json has checked it): borrowed when it
/// has no escapes.
fn string_content(raw: &str) -> Result<Cow<'_, str>> {
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
    if !inner.as_bytes().contains(&b'\\') {
        return Ok(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(raw)
        .map(Cow::Owned)
        .map_err(|e| {
            let text = e.to_string();
            let (message, _) = split_position(&text);
            Error::new(categorize(message), message)
        })
}

/// null, a bool, an array or an object where a string or a number was asked for: the
/// visitor decides (null may be welcome).
fn visit_other<'de, V: Visitor<'de>>(raw: &str, visitor: V) -> Result<V::Value> {
    match raw.as_bytes().first() {
        Some(b'n') => visitor.visit_unit(),
        Some(b't') => visitor.visit_bool(true),
        Some(b'f') => visitor.visit_bool(false),
        Some(b'[') => Err(<Error as de::Error>::invalid_type(
            Unexpected::Seq,
            &visitor,
        )),
        Some(b'{') => Err(<Error as de::Error>::invalid_type(
            Unexpected::Map,
            &visitor,
        )),
        _ => Err(Error::syntax("expected value")),
    }
}

pub(crate) enum SmallInt {
    U(u64),
    I(i64),
}

/// A plain integer of up to 18 digits, which needs no exact-number machinery.
#[inline]
pub(crate) fn small_int(text: &str) -> Option<SmallInt> {
    let (neg, digits) = match text.as_bytes().split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text.as_bytes()),
    };
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut n: u64 = 0;
    for d in digits {
        n = n * 10 + u64::from(d - b'0');
    }
    if neg {
        // -0 is zero; |n| < 10^18 fits in an i64.
        Some(SmallInt::I(-(n as i64)))
    } else {
        Some(SmallInt::U(n))
    }
}

/// A JSON number token where the visitor wants a Rust number.
fn visit_json_number<'de, V: Visitor<'de>>(text: &str, visitor: V, hint: Hint) -> Result<V::Value> {
    match hint {
        Hint::F64 => match text.parse::<f64>() {
            // The standard parser rounds correctly; JSON's number syntax is a subset of its.
            Ok(f) if f.is_finite() => visitor.visit_f64(f),
            _ => Err(out_of_range(text, "f64")),
        },
        Hint::F32 => match text.parse::<f32>() {
            Ok(f) if f.is_finite() => visitor.visit_f32(f),
            _ => Err(out_of_range(text, "f32")),
        },
        Hint::Int(name) => match small_int(text) {
            Some(SmallInt::U(u)) => visitor.visit_u64(u),
            Some(SmallInt::I(i)) => visitor.visit_i64(i),
            None => visit_int(parse_number(text)?, visitor, name),
        },
    }
}

/// A number given as a JSON string where the visitor wants a Rust number.
fn visit_number_string<'de, V: Visitor<'de>>(
    text: &str,
    visitor: V,
    hint: Hint,
) -> Result<V::Value> {
    let n = parse_number(text)?;
    match hint {
        Hint::F64 => match n.to_f64() {
            Some(f) => visitor.visit_f64(f),
            None => Err(out_of_range(text, "f64")),
        },
        Hint::F32 => match n.to_f32() {
            Some(f) => visitor.visit_f32(f),
            None => Err(out_of_range(text, "f32")),
        },
        Hint::Int(name) => visit_int(n, visitor, name),
    }
}

fn parse_number(text: &str) -> Result<Number> {
    text.parse::<Number>().map_err(|e| {
        if e.is_out_of_range() {
            Error::limit(e)
        } else {
            Error::data(e)
        }
    })
}

fn visit_int<'de, V: Visitor<'de>>(n: Number, visitor: V, name: &str) -> Result<V::Value> {
    if let Some(i) = n.to_i64() {
        visitor.visit_i64(i)
    } else if let Some(u) = n.to_u64() {
        visitor.visit_u64(u)
    } else if let Some(i) = n.to_i128() {
        visitor.visit_i128(i)
    } else if let Some(u) = n.to_u128() {
        visitor.visit_u128(u)
    } else if n.is_integer() {
        Err(out_of_range(&n.to_string(), name))
    } else {
        Err(Error::data(format_args!(
            "invalid value: number {n}, expected {name}"
        )))
    }
}

#[cold]
fn out_of_range(text: &str, name: &str) -> Error {
    let mut shown = text.get(..64).unwrap_or(text).to_owned();
    if shown.len() < text.len() {
        shown.push_str("...");
    }
    Error::data(format_args!("number {shown} is out of range for {name}"))
}
