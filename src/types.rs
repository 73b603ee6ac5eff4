//! Type constraints and their JSON form.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};
use std::mem::ManuallyDrop;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::key::Key;

/// The default nesting limit for type JSON read from input (the same as for values).
pub const DEFAULT_TYPE_DEPTH: usize = 128;

/// A Terraform type constraint.
///
/// Serde reads and writes Terraform's compact JSON form, the one used in provider
/// schemas and inside `dynamic` values:
///
/// ```
/// use tfvalue::Type;
///
/// let ty: Type = serde_json::from_str(r#"["list",["object",{"a":"string","b":"number"},["b"]]]"#)?;
/// assert_eq!(ty, Type::list(Type::object([("a", Type::String), ("b", Type::Number)]).with_optional(["b"])));
/// assert_eq!(ty.to_string(), "list(object({a=string,b=optional(number)}))");
/// assert_eq!(serde_json::to_string(&ty)?, r#"["list",["object",{"a":"string","b":"number"},["b"]]]"#);
///
/// let err = serde_json::from_str::<Type>(r#"["lisst","string"]"#).unwrap_err();
/// assert!(err.to_string().starts_with(r#"unknown type kind "lisst""#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Type {
    /// `"string"`
    String,
    /// `"number"`
    Number,
    /// `"bool"`
    Bool,
    /// `"dynamic"` (HCL `any`): the value carries its own type.
    Dynamic,
    /// `["list", T]`
    List(Box<Type>),
    /// `["set", T]`
    Set(Box<Type>),
    /// `["map", T]`
    Map(Box<Type>),
    /// `["object", {..}]` or `["object", {..}, [optional..]]`
    Object(ObjectType),
    /// `["tuple", [..]]`
    Tuple(Vec<Type>),
}

/// The attributes of an object type, and which of them are optional.
///
/// Attributes are kept sorted by name (bytewise), which is also the order in which
/// object values are written on the wire. Names are kept in Unicode NFC, as go-cty keeps
/// them: encoding writes names in NFC, so a type whose name differed from its NFC form
/// could not read back what was written for it. Decoding compares names exactly, so an
/// input key that is not in NFC does not match (go-cty rejects it too).
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectType {
    // `ManuallyDrop`: dropped by `ObjectType`'s own `Drop`, compiled once, here (see
    // there).
    attributes: ManuallyDrop<BTreeMap<String, Type>>,
    optional: ManuallyDrop<BTreeSet<String>>,
    /// The names again, in the same order, as the keys that values of this type share
    /// (decoding an object clones a name's key, never copies the text).
    keys: ManuallyDrop<Vec<Key>>,
    /// Whether an attribute's type has a `dynamic` anywhere, kept with the attributes so
    /// that [`Type::has_dynamic`] does not walk them (decoders ask at every collection).
    dynamic: bool,
}

impl fmt::Debug for ObjectType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectType")
            .field("attributes", &*self.attributes)
            .field("optional", &*self.optional)
            .finish()
    }
}

/// Drops the maps here, in code compiled once in this crate. Without it, every crate that
/// drops a [`Type`] (a provider's, for each of its models) would compile the drop of a
/// `BTreeMap<String, Type>` and a `BTreeSet<String>` again, in each of its codegen units:
/// the largest drop glue LLVM optimized for the `kv` example (`plugin/README.md`, "Build
/// times").
impl Drop for ObjectType {
    #[inline(never)]
    fn drop(&mut self) {
        // What is left behind is empty: nothing allocated, nothing to drop.
        drop(std::mem::take(&mut *self.attributes));
        drop(std::mem::take(&mut *self.optional));
        drop(std::mem::take(&mut *self.keys));
    }
}

impl ObjectType {
    /// An object type with these attributes, none optional.
    pub fn new<K: Into<String>>(attributes: impl IntoIterator<Item = (K, Type)>) -> Self {
        ObjectType {
            attributes: ManuallyDrop::new(
                attributes
                    .into_iter()
                    .map(|(k, v)| (nfc_name(k.into()), v))
                    .collect(),
            ),
            optional: ManuallyDrop::default(),
            keys: ManuallyDrop::default(),
            dynamic: false,
        }
        .with_keys()
    }

    fn with_keys(mut self) -> Self {
        *self.keys = self
            .attributes
            .keys()
            .map(|k| Key::from(k.as_str()))
            .collect();
        self.dynamic = self.attributes.values().any(Type::has_dynamic);
        self
    }

    /// The attributes' names as the keys values share, in name order.
    pub(crate) fn keys(&self) -> &[Key] {
        &self.keys
    }

    /// Marks attributes as optional. Names that are not attributes are ignored.
    #[must_use]
    pub fn with_optional<K: AsRef<str>>(mut self, names: impl IntoIterator<Item = K>) -> Self {
        for name in names {
            let name = crate::text::nfc(name.as_ref());
            if self.attributes.contains_key(name.as_ref()) {
                self.optional.insert(name.into_owned());
            }
        }
        self
    }

    /// The attributes, sorted by name.
    pub fn attributes(&self) -> &BTreeMap<String, Type> {
        &self.attributes
    }

    /// The names of the optional attributes.
    pub fn optional(&self) -> &BTreeSet<String> {
        &self.optional
    }

    /// The type of one attribute.
    pub fn get(&self, name: &str) -> Option<&Type> {
        self.attributes.get(name)
    }

    /// Whether `name` is an optional attribute.
    pub fn is_optional(&self, name: &str) -> bool {
        self.optional.contains(name)
    }

    /// The number of attributes.
    pub fn len(&self) -> usize {
        self.attributes.len()
    }

    /// Whether there are no attributes.
    pub fn is_empty(&self) -> bool {
        self.attributes.is_empty()
    }

    /// Adds (or replaces) an attribute.
    pub fn insert(&mut self, name: impl Into<String>, ty: Type, optional: bool) {
        let name = nfc_name(name.into());
        if optional {
            self.optional.insert(name.clone());
        } else {
            self.optional.remove(&name);
        }
        let dynamic = ty.has_dynamic();
        match self.attributes.insert(name.clone(), ty) {
            None => {
                let at = self.keys.partition_point(|k| k.as_str() < name.as_str());
                self.keys.insert(at, Key::from(name));
                self.dynamic |= dynamic;
            }
            // The only `dynamic` may have gone with the type replaced.
            Some(old) if old.has_dynamic() && !dynamic => {
                self.dynamic = self.attributes.values().any(Type::has_dynamic);
            }
            Some(_) => self.dynamic |= dynamic,
        }
    }
}

impl Type {
    /// `list(element)`
    pub fn list(element: Type) -> Type {
        Type::List(Box::new(element))
    }

    /// `set(element)`
    pub fn set(element: Type) -> Type {
        Type::Set(Box::new(element))
    }

    /// `map(element)`
    pub fn map(element: Type) -> Type {
        Type::Map(Box::new(element))
    }

    /// `object({..})` with no optional attributes; see [`Type::with_optional`].
    pub fn object<K: Into<String>>(attributes: impl IntoIterator<Item = (K, Type)>) -> Type {
        Type::Object(ObjectType::new(attributes))
    }

    /// `tuple([..])`
    pub fn tuple(elements: impl IntoIterator<Item = Type>) -> Type {
        Type::Tuple(elements.into_iter().collect())
    }

    /// For an object type, marks attributes as optional; other types are returned unchanged.
    #[must_use]
    pub fn with_optional<K: AsRef<str>>(self, names: impl IntoIterator<Item = K>) -> Type {
        match self {
            Type::Object(o) => Type::Object(o.with_optional(names)),
            other => other,
        }
    }

    /// Whether this is `string`, `number` or `bool`.
    pub fn is_primitive(&self) -> bool {
        matches!(self, Type::String | Type::Number | Type::Bool)
    }

    /// Whether this is a list, set or map type.
    pub fn is_collection(&self) -> bool {
        matches!(self, Type::List(_) | Type::Set(_) | Type::Map(_))
    }

    /// The element type of a list, set or map.
    pub fn element_type(&self) -> Option<&Type> {
        match self {
            Type::List(t) | Type::Set(t) | Type::Map(t) => Some(t),
            _ => None,
        }
    }

    /// The attributes of an object type.
    pub fn as_object(&self) -> Option<&ObjectType> {
        match self {
            Type::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Whether `dynamic` appears anywhere in this type.
    pub fn has_dynamic(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::String | Type::Number | Type::Bool => false,
            Type::List(t) | Type::Set(t) | Type::Map(t) => t.has_dynamic(),
            Type::Object(o) => o.dynamic,
            Type::Tuple(ts) => ts.iter().any(Type::has_dynamic),
        }
    }

    /// Whether there is no `dynamic` and no optional attribute anywhere in the type: its
    /// values are written as they are (a set of them sorts as written), which the
    /// formats' fast paths rely on.
    pub(crate) fn is_plain(&self) -> bool {
        match self {
            Type::Dynamic => false,
            Type::String | Type::Number | Type::Bool => true,
            Type::List(t) | Type::Set(t) | Type::Map(t) => t.is_plain(),
            Type::Object(o) => o.optional.is_empty() && o.attributes.values().all(Type::is_plain),
            Type::Tuple(ts) => ts.iter().all(Type::is_plain),
        }
    }

    /// A short name of the kind of type, for messages: `string`, `list`, `object`, ...
    pub fn kind_name(&self) -> &'static str {
        match self {
            Type::String => "string",
            Type::Number => "number",
            Type::Bool => "bool",
            Type::Dynamic => "dynamic",
            Type::List(_) => "list",
            Type::Set(_) => "set",
            Type::Map(_) => "map",
            Type::Object(_) => "object",
            Type::Tuple(_) => "tuple",
        }
    }

    /// The nesting depth of this type (`string` is 0, `list(string)` is 1).
    pub fn depth(&self) -> usize {
        match self {
            Type::String | Type::Number | Type::Bool | Type::Dynamic => 0,
            Type::List(t) | Type::Set(t) | Type::Map(t) => 1 + t.depth(),
            Type::Object(o) => 1 + o.attributes.values().map(Type::depth).max().unwrap_or(0),
            Type::Tuple(ts) => 1 + ts.iter().map(Type::depth).max().unwrap_or(0),
        }
    }

    /// Parses the compact JSON form with a nesting limit.
    ///
    /// `serde_json::from_slice::<Type>` works too, with the default limit of 128; use this
    /// for type JSON that is deeper than that.
    ///
    /// # Errors
    ///
    /// Malformed JSON, an unknown type kind, a wrong number of arguments, or nesting
    /// deeper than `max_depth`.
    pub fn from_json_with_depth(json: impl AsRef<[u8]>, max_depth: usize) -> Result<Type, Error> {
        Type::from_json_slice(json.as_ref(), max_depth)
    }

    // The work of `from_json_with_depth`, not generic: compiled once, here, and not again
    // in every crate that reads a type.
    fn from_json_slice(json: &[u8], max_depth: usize) -> Result<Type, Error> {
        let mut de = serde_json::Deserializer::from_slice(json);
        // Our own seed bounds the recursion, so serde_json's fixed limit of 128 is not needed.
        de.disable_recursion_limit();
        let ty = TypeSeed { depth: max_depth }
            .deserialize(&mut de)
            .map_err(json_type_error)?;
        de.end().map_err(json_type_error)?;
        Ok(ty)
    }

    /// Parses the compact JSON form with the default nesting limit (128), from bytes or
    /// text.
    ///
    /// ```
    /// use tfvalue::Type;
    /// assert_eq!(Type::from_json(r#"["list","string"]"#)?, Type::list(Type::String));
    /// assert_eq!(Type::from_json(b"\"number\"")?, Type::Number);
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Type::from_json_with_depth`].
    pub fn from_json(json: impl AsRef<[u8]>) -> Result<Type, Error> {
        Type::from_json_with_depth(json, DEFAULT_TYPE_DEPTH)
    }

    /// The compact JSON form, with object attributes sorted and optional-attribute markers.
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        self.write_json(&mut out, true);
        String::from_utf8(out).unwrap_or_default()
    }

    /// Writes the compact JSON form. `dynamic` values carry their concrete type without
    /// the optional-attribute markers, as go-cty writes it.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>, with_optional: bool) {
        match self {
            Type::String => out.extend_from_slice(b"\"string\""),
            Type::Number => out.extend_from_slice(b"\"number\""),
            Type::Bool => out.extend_from_slice(b"\"bool\""),
            Type::Dynamic => out.extend_from_slice(b"\"dynamic\""),
            Type::List(t) | Type::Set(t) | Type::Map(t) => {
                out.extend_from_slice(b"[\"");
                out.extend_from_slice(self.kind_name().as_bytes());
                out.extend_from_slice(b"\",");
                t.write_json(out, with_optional);
                out.push(b']');
            }
            Type::Object(o) => {
                out.extend_from_slice(b"[\"object\",{");
                for (i, (name, t)) in o.attributes.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_json_string(out, name);
                    out.push(b':');
                    t.write_json(out, with_optional);
                }
                out.push(b'}');
                if with_optional && !o.optional.is_empty() {
                    out.extend_from_slice(b",[");
                    for (i, name) in o.optional.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        write_json_string(out, name);
                    }
                    out.push(b']');
                }
                out.push(b']');
            }
            Type::Tuple(ts) => {
                out.extend_from_slice(b"[\"tuple\",[");
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    t.write_json(out, with_optional);
                }
                out.extend_from_slice(b"]]");
            }
        }
    }
}

/// An attribute name in NFC (see [`ObjectType`]).
fn nfc_name(name: String) -> String {
    match crate::text::nfc(&name) {
        std::borrow::Cow::Borrowed(_) => name,
        std::borrow::Cow::Owned(n) => n,
    }
}

/// Writes a JSON string literal (serde_json's escaping).
pub(crate) fn write_json_string(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        // serde_json cannot fail writing a str into a Vec.
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

fn json_type_error(e: serde_json::Error) -> Error {
    let msg = e.to_string();
    if e.is_eof() {
        Error::new(
            crate::error::Category::Eof,
            format_args!("invalid type JSON: {msg}"),
        )
    } else if msg.contains("nesting") {
        Error::limit(format_args!("invalid type JSON: {msg}"))
    } else {
        Error::syntax(format_args!("invalid type JSON: {msg}"))
    }
}

fn is_hcl_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

impl fmt::Display for Type {
    /// The HCL type constraint syntax: `list(object({a=string,b=optional(number)}))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::String => f.write_str("string"),
            Type::Number => f.write_str("number"),
            Type::Bool => f.write_str("bool"),
            Type::Dynamic => f.write_str("any"),
            Type::List(t) => write!(f, "list({t})"),
            Type::Set(t) => write!(f, "set({t})"),
            Type::Map(t) => write!(f, "map({t})"),
            Type::Object(o) => {
                f.write_str("object({")?;
                for (i, (name, t)) in o.attributes.iter().enumerate() {
                    if i > 0 {
                        f.write_char(',')?;
                    }
                    if is_hcl_identifier(name) {
                        f.write_str(name)?;
                    } else {
                        // JSON string syntax, which `FromStr` reads back.
                        let quoted = serde_json::to_string(name).map_err(|_| fmt::Error)?;
                        f.write_str(&quoted)?;
                    }
                    if o.optional.contains(name) {
                        write!(f, "=optional({t})")?;
                    } else {
                        write!(f, "={t}")?;
                    }
                }
                f.write_str("})")
            }
            Type::Tuple(ts) => {
                f.write_str("tuple([")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_char(',')?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str("])")
            }
        }
    }
}

impl std::str::FromStr for Type {
    type Err = Error;

    /// Reads a type in either form: the compact JSON form (`["list","string"]`, as in
    /// provider schemas) or the HCL form that [`Display`](fmt::Display) prints
    /// (`list(object({a=string,b=optional(number)}))`, as in Terraform configurations;
    /// white space anywhere, `any` and `dynamic` alike).
    ///
    /// ```
    /// use tfvalue::Type;
    ///
    /// let a: Type = r#"["map",["object",{"port":"number"},["port"]]]"#.parse()?;
    /// let b: Type = "map(object({ port = optional(number) }))".parse()?;
    /// assert_eq!(a, b);
    /// assert_eq!(b.to_string().parse::<Type>()?, b);
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    fn from_str(s: &str) -> Result<Type, Error> {
        let t = s.trim_start();
        if t.starts_with('[') || t.starts_with('"') {
            return Type::from_json(s);
        }
        let mut p = HclParser {
            s: s.as_bytes(),
            text: s,
            pos: 0,
        };
        let ty = p.ty(DEFAULT_TYPE_DEPTH)?;
        p.ws();
        if p.pos != p.s.len() {
            return Err(p.err("unexpected text after the type"));
        }
        Ok(ty)
    }
}

/// A parser of HCL type constraints.
struct HclParser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl HclParser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

    #[cold]
    fn err(&self, what: &str) -> Error {
        Error::syntax(format_args!(
            "invalid type: {what} at character {} of {:?}",
            self.text[..self.pos.min(self.text.len())].chars().count() + 1,
            self.text
        ))
    }

    fn eat(&mut self, c: u8) -> Result<(), Error> {
        self.ws();
        if self.s.get(self.pos) == Some(&c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected `{}`", c as char)))
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn word(&mut self) -> &str {
        self.ws();
        let start = self.pos;
        while let Some(&c) = self.s.get(self.pos) {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c >= 0x80 {
                self.pos += 1;
            } else {
                break;
            }
        }
        &self.text[start..self.pos]
    }

    /// A quoted attribute name: JSON string syntax.
    fn quoted(&mut self) -> Result<String, Error> {
        self.ws();
        let start = self.pos;
        self.pos += 1;
        let mut escaped = false;
        while let Some(&c) = self.s.get(self.pos) {
            self.pos += 1;
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => {
                    return serde_json::from_str(&self.text[start..self.pos])
                        .map_err(|_| self.err("malformed quoted name"));
                }
                _ => {}
            }
        }
        Err(self.err("unterminated quoted name"))
    }

    fn ty(&mut self, depth: usize) -> Result<Type, Error> {
        let Some(depth) = depth.checked_sub(1) else {
            return Err(self.err("nesting is deeper than the limit"));
        };
        let at = self.pos;
        let word = self.word().to_owned();
        let ty = match word.as_str() {
            "string" => Type::String,
            "number" => Type::Number,
            "bool" => Type::Bool,
            "any" | "dynamic" => Type::Dynamic,
            "list" | "set" | "map" => {
                self.eat(b'(')?;
                let t = self.ty(depth)?;
                self.eat(b')')?;
                match word.as_str() {
                    "list" => Type::list(t),
                    "set" => Type::set(t),
                    _ => Type::map(t),
                }
            }
            "tuple" => {
                self.eat(b'(')?;
                self.eat(b'[')?;
                let mut ts = Vec::new();
                while self.peek() != Some(b']') {
                    if !ts.is_empty() {
                        self.eat(b',')?;
                        if self.peek() == Some(b']') {
                            break;
                        }
                    }
                    ts.push(self.ty(depth)?);
                }
                self.eat(b']')?;
                self.eat(b')')?;
                Type::Tuple(ts)
            }
            "object" => {
                self.eat(b'(')?;
                self.eat(b'{')?;
                let mut attrs: Vec<(String, Type)> = Vec::new();
                let mut optional = Vec::new();
                while self.peek() != Some(b'}') {
                    if !attrs.is_empty() {
                        // HCL separates attributes with commas or new lines.
                        if self.peek() == Some(b',') {
                            self.pos += 1;
                        }
                        if self.peek() == Some(b'}') {
                            break;
                        }
                    }
                    let name = if self.peek() == Some(b'"') {
                        self.quoted()?
                    } else {
                        let w = self.word().to_owned();
                        if w.is_empty() {
                            return Err(self.err("expected an attribute name"));
                        }
                        w
                    };
                    self.eat(b'=')?;
                    let save = self.pos;
                    let (t, opt) = if self.word() == "optional" && self.peek() == Some(b'(') {
                        self.eat(b'(')?;
                        let t = self.ty(depth)?;
                        self.eat(b')')?;
                        (t, true)
                    } else {
                        self.pos = save;
                        (self.ty(depth)?, false)
                    };
                    if attrs.iter().any(|(n, _)| *n == name) {
                        return Err(self.err(&format!("attribute {name:?} is given twice")));
                    }
                    if opt {
                        optional.push(name.clone());
                    }
                    attrs.push((name, t));
                }
                self.eat(b'}')?;
                self.eat(b')')?;
                Type::Object(ObjectType::new(attrs).with_optional(optional))
            }
            "" => {
                self.pos = at;
                return Err(self.err("expected a type"));
            }
            other => {
                self.pos = at;
                return Err(self.err(&format!("unknown type `{other}`")));
            }
        };
        Ok(ty)
    }
}

impl Serialize for Type {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Type::String | Type::Number | Type::Bool | Type::Dynamic => {
                serializer.serialize_str(self.kind_name())
            }
            Type::List(t) | Type::Set(t) | Type::Map(t) => {
                let mut seq = serializer.serialize_seq(Some(2))?;
                seq.serialize_element(self.kind_name())?;
                seq.serialize_element(t)?;
                seq.end()
            }
            Type::Object(o) => {
                let optional = !o.optional.is_empty();
                let mut seq = serializer.serialize_seq(Some(if optional { 3 } else { 2 }))?;
                seq.serialize_element("object")?;
                seq.serialize_element(&*o.attributes)?;
                if optional {
                    seq.serialize_element(&*o.optional)?;
                }
                seq.end()
            }
            Type::Tuple(ts) => {
                let mut seq = serializer.serialize_seq(Some(2))?;
                seq.serialize_element("tuple")?;
                seq.serialize_element(ts)?;
                seq.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Type {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        TypeSeed {
            depth: DEFAULT_TYPE_DEPTH,
        }
        .deserialize(deserializer)
    }
}

/// Reads a type with a nesting budget.
#[derive(Clone, Copy)]
pub(crate) struct TypeSeed {
    pub(crate) depth: usize,
}

impl<'de> DeserializeSeed<'de> for TypeSeed {
    type Value = Type;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Type, D::Error> {
        deserializer.deserialize_any(self)
    }
}

fn primitive<E: de::Error>(name: &str) -> Result<Type, E> {
    match name {
        "string" => Ok(Type::String),
        "number" => Ok(Type::Number),
        "bool" => Ok(Type::Bool),
        "dynamic" => Ok(Type::Dynamic),
        "list" | "set" | "map" | "object" | "tuple" => Err(E::custom(format_args!(
            "type kind \"{name}\" must be written as an array: [\"{name}\", ...]"
        ))),
        other => Err(E::custom(format_args!("unknown type kind {other:?}"))),
    }
}

impl<'de> Visitor<'de> for TypeSeed {
    type Value = Type;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a type constraint such as \"string\" or [\"list\",\"number\"]")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Type, E> {
        primitive(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Type, A::Error> {
        let depth = match self.depth.checked_sub(1) {
            Some(d) => d,
            None => {
                return Err(de::Error::custom(
                    "type JSON nesting is deeper than the limit",
                ))
            }
        };
        let inner = TypeSeed { depth };
        let kind: String = match seq.next_element()? {
            Some(k) => k,
            None => return Err(de::Error::custom("empty array is not a type")),
        };
        let ty = match kind.as_str() {
            "list" | "set" | "map" => {
                let Some(elem) = seq.next_element_seed(inner)? else {
                    return Err(de::Error::custom(format_args!(
                        "type kind {kind:?} needs an element type"
                    )));
                };
                match kind.as_str() {
                    "list" => Type::list(elem),
                    "set" => Type::set(elem),
                    _ => Type::map(elem),
                }
            }
            "object" => {
                let Some(attributes) = seq.next_element_seed(AttrsSeed(inner))? else {
                    return Err(de::Error::custom(
                        "type kind \"object\" needs an attribute map",
                    ));
                };
                let mut o = ObjectType {
                    attributes: ManuallyDrop::new(attributes),
                    optional: ManuallyDrop::default(),
                    keys: ManuallyDrop::default(),
                    dynamic: false,
                }
                .with_keys();
                if let Some(optional) = seq.next_element::<Vec<String>>()? {
                    for name in optional.into_iter().map(nfc_name) {
                        if !o.attributes.contains_key(&name) {
                            return Err(de::Error::custom(format_args!(
                                "optional attribute {name:?} is not an attribute of the object type"
                            )));
                        }
                        if !o.optional.insert(name.clone()) {
                            return Err(de::Error::custom(format_args!(
                                "optional attribute {name:?} is listed twice"
                            )));
                        }
                    }
                }
                Type::Object(o)
            }
            "tuple" => {
                let Some(elems) = seq.next_element_seed(TupleSeed(inner))? else {
                    return Err(de::Error::custom(
                        "type kind \"tuple\" needs an array of element types",
                    ));
                };
                Type::Tuple(elems)
            }
            "string" | "number" | "bool" | "dynamic" => {
                return Err(de::Error::custom(format_args!(
                    "type kind {kind:?} must be written as a plain string"
                )))
            }
            other => {
                return Err(de::Error::custom(format_args!(
                    "unknown type kind {other:?}"
                )))
            }
        };
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(format_args!(
                "too many arguments for type kind {kind:?}"
            )));
        }
        Ok(ty)
    }
}

struct AttrsSeed(TypeSeed);

impl<'de> DeserializeSeed<'de> for AttrsSeed {
    type Value = BTreeMap<String, Type>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for AttrsSeed {
    type Value = BTreeMap<String, Type>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of attribute types")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(name) = map.next_key::<String>()? {
            // Two names that differ only in their Unicode form are the same name.
            let name = nfc_name(name);
            let ty = map.next_value_seed(self.0)?;
            if out.contains_key(&name) {
                return Err(de::Error::custom(format_args!(
                    "duplicate attribute {name:?} in object type"
                )));
            }
            out.insert(name, ty);
        }
        Ok(out)
    }
}

struct TupleSeed(TypeSeed);

impl<'de> DeserializeSeed<'de> for TupleSeed {
    type Value = Vec<Type>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TupleSeed {
    type Value = Vec<Type>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of element types")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(t) = seq.next_element_seed(self.0)? {
            out.push(t);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Type, Error> {
        Type::from_json(s.as_bytes())
    }

    #[test]
    fn round_trips_compact_json() {
        for text in [
            r#""string""#,
            r#""dynamic""#,
            r#"["list","number"]"#,
            r#"["set",["map","bool"]]"#,
            r#"["object",{"a":"string","b":["tuple",["number","dynamic"]]},["b"]]"#,
            r#"["object",{}]"#,
            r#"["tuple",[]]"#,
        ] {
            let ty = parse(text).unwrap();
            assert_eq!(ty.to_json(), text);
            assert_eq!(serde_json::to_string(&ty).unwrap(), text);
            assert_eq!(serde_json::from_str::<Type>(text).unwrap(), ty);
        }
    }

    #[test]
    fn whitespace_and_attribute_order_do_not_matter() {
        let a = parse(r#" [ "object" , { "b" : "bool" , "a" : "string" } ] "#).unwrap();
        assert_eq!(a.to_json(), r#"["object",{"a":"string","b":"bool"}]"#);
    }

    /// `has_dynamic` of an object type is kept with its attributes: it must follow every
    /// way an object type is built or changed, as a walk over the attributes would.
    #[test]
    fn has_dynamic_follows_the_attributes() {
        fn walked(t: &Type) -> bool {
            match t {
                Type::Dynamic => true,
                Type::String | Type::Number | Type::Bool => false,
                Type::List(t) | Type::Set(t) | Type::Map(t) => walked(t),
                Type::Object(o) => o.attributes().values().any(walked),
                Type::Tuple(ts) => ts.iter().any(walked),
            }
        }
        let nested = Type::list(Type::object([("d", Type::Dynamic)]));
        let mut o = ObjectType::new([("a", Type::String)]);
        let mut seen = Vec::new();
        for (name, ty) in [
            ("b", Type::Number),
            ("c", nested.clone()),
            ("d", Type::Bool),
            ("c", Type::String),
            ("c", Type::Dynamic),
            ("e", Type::Dynamic),
            ("c", Type::Bool),
            ("e", Type::Bool),
        ] {
            o.insert(name, ty, false);
            let t = Type::Object(o.clone());
            assert_eq!(t.has_dynamic(), walked(&t), "after inserting {name}");
            seen.push(t.has_dynamic());
        }
        assert_eq!(seen, [false, true, true, false, true, true, true, false]);
        for text in [
            r#"["object",{"a":"string","b":["tuple",["number","dynamic"]]},["b"]]"#,
            r#"["map",["object",{"a":["set",["object",{"x":"dynamic"}]]}]]"#,
            r#"["object",{"a":"string"}]"#,
        ] {
            let t = parse(text).unwrap();
            assert_eq!(t.has_dynamic(), walked(&t), "{text}");
        }
        assert!(Type::object([("x", nested)]).has_dynamic());
    }
    #[test]
    fn rejects_malformed_type_json() {
        for (text, msg) in [
            (r#"["lisst","string"]"#, "unknown type kind \"lisst\""),
            (r#""strin""#, "unknown type kind \"strin\""),
            (r#"["list"]"#, "needs an element type"),
            (r#"["list","string","x"]"#, "too many arguments"),
            (r#"["object",{"a":"string"},["b"]]"#, "is not an attribute"),
            (
                r#"["object",{"a":"string","a":"bool"}]"#,
                "duplicate attribute",
            ),
            (r#"[]"#, "empty array"),
            (r#""list""#, "must be written as an array"),
            (r#"["string"]"#, "plain string"),
            (r#"5"#, "invalid type"),
            (r#""string" x"#, "trailing"),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.to_string().contains(msg), "{text}: {err}");
        }
    }

    #[test]
    fn depth_is_limited() {
        let deep = |n: usize| {
            let mut s = String::new();
            for _ in 0..n {
                s.push_str(r#"["list","#);
            }
            s.push_str(r#""string""#);
            for _ in 0..n {
                s.push(']');
            }
            s
        };
        assert!(parse(&deep(128)).is_ok());
        let err = parse(&deep(129)).unwrap_err();
        assert!(err.to_string().contains("deeper than the limit"), "{err}");
        assert_eq!(
            Type::from_json_with_depth(deep(1000).as_bytes(), 1000)
                .unwrap()
                .depth(),
            1000
        );
    }

    #[test]
    fn attribute_names_are_kept_in_nfc() {
        let nfd = "cafe\u{301}";
        let nfc = "caf\u{e9}";
        let t = parse(&format!(r#"["object",{{"{nfd}":"string"}},["{nfd}"]]"#)).unwrap();
        let o = t.as_object().unwrap();
        assert!(o.get(nfc).is_some() && o.is_optional(nfc));
        assert!(o.get(nfd).is_none());
        assert_eq!(t, Type::object([(nfc, Type::String)]).with_optional([nfc]));
        assert_eq!(Type::object([(nfd, Type::String)]).with_optional([nfd]), t);
        let err = parse(&format!(
            r#"["object",{{"{nfd}":"string","{nfc}":"bool"}}]"#
        ))
        .unwrap_err();
        assert!(err.to_string().contains("duplicate attribute"), "{err}");
        let mut o = ObjectType::default();
        o.insert(nfd, Type::Bool, true);
        assert!(o.get(nfc).is_some() && o.is_optional(nfc));
    }

    #[test]
    fn hcl_display() {
        let ty = parse(r#"["map",["object",{"my attr":"number","x":["set","dynamic"]},["x"]]]"#)
            .unwrap();
        assert_eq!(
            ty.to_string(),
            r#"map(object({"my attr"=number,x=optional(set(any))}))"#
        );
        assert_eq!(
            Type::tuple([Type::String, Type::Bool]).to_string(),
            "tuple([string,bool])"
        );
    }
}
