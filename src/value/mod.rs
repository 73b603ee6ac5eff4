//! The dynamic value tree, for code that knows the schema only at run time.

mod de;
mod deserializer;
mod index;
mod macros;
mod map;
mod more;
mod ser;
mod serializer;
mod typed;
pub(crate) mod unify;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

pub use crate::key::Key;
pub use index::Index;
pub use macros::IntoValue;
pub use map::{Entry, Iter, IterMut, Map, OccupiedEntry, VacantEntry};

pub(crate) use de::TypedSeed;
pub(crate) use deserializer::from_value_typed;
pub(crate) use ser::{TypedValue, Untracked};
pub(crate) use serializer::to_value_typed;
pub(crate) use unify::{common_type, has_dynamic_collection, settle, Step};

use crate::dynamic::Dynamic;
use crate::error::{Error, Result};
use crate::limits::DEFAULT_MAX_DEPTH;
use crate::number::Number;
use crate::path::PathStep;
use crate::text::nfc;
use crate::types::Type;
use crate::unknown::Refinements;

/// A Terraform value, as go-cty holds it.
///
/// A `Value` is decoded against a [`Type`], which says how to read the wire (a MessagePack
/// array may be a list, a set or a tuple), and encoded against one, which it must conform
/// to (tfvalue never converts silently):
///
/// ```
/// use tfvalue::{Type, Value};
///
/// let ty: Type = serde_json::from_str(r#"["object",{"name":"string","ports":["set","number"]}]"#)?;
/// let bytes = b"\x82\xa4name\xa3web\xa5ports\x92\xcd\x01\xbb\x50";
/// let v = Value::from_msgpack(bytes, &ty)?;
/// assert_eq!(v["name"], "web");
/// assert_eq!(v["ports"].as_set().map(|s| s.len()), Some(2));
/// // Sets are written in canonical order, numbers ascending: 80 before 443.
/// assert_eq!(v.to_msgpack(&ty)?, b"\x82\xa4name\xa3web\xa5ports\x92\x50\xcd\x01\xbb");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// `Value` is `Serialize` but not `Deserialize`: reading one needs its type (an array may
/// be a list, a set or a tuple; a map may be an object or a map), which serde's
/// `Deserialize` has no way to pass. For a field of a serde struct whose type is known
/// only at run time, use [`Dynamic`] (a value that carries its type, as Terraform's
/// `dynamic` attributes do) or [`Raw`](crate::Raw) (the undecoded bytes, for
/// [`Raw::decode_value`](crate::Raw::decode_value) once the type is known).
///
/// Equality (`==`) is structural, with set semantics: sets compare as sets, numbers by
/// value, unknowns by their refinements (go-cty's `RawEquals`). Strings compare by their
/// bytes; tfvalue normalizes to NFC only when encoding.
#[derive(Clone, Default)]
pub enum Value {
    /// `null` of any type.
    #[default]
    Null,
    /// A value not known yet, with what is known about it.
    Unknown(Refinements),
    /// A bool.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    String(String),
    /// A list.
    List(Vec<Value>),
    /// A set; duplicates and order do not matter.
    Set(Vec<Value>),
    /// A map.
    Map(Map),
    /// An object.
    Object(Map),
    /// A tuple.
    Tuple(Vec<Value>),
    /// A value in a position declared `dynamic`, with its own concrete type.
    Dynamic(Box<Dynamic>),
}

impl Value {
    /// Where `ty` has a collection with `dynamic` in its element type, a copy whose nulls
    /// and unknowns in `dynamic` positions carry the type their siblings share, as go-cty
    /// writes them; `None` where nothing needs it.
    pub(crate) fn settled(&self, ty: &Type) -> Result<Option<Value>> {
        if !has_dynamic_collection(ty) {
            return Ok(None);
        }
        let mut v = self.clone();
        settle(&mut v, ty)?;
        Ok(Some(v))
    }

    /// Checks that the value conforms to `ty` exactly, without conversion: kinds match, an
    /// object has every attribute its type declares (optional ones may be missing) and no
    /// other, a tuple has the right length, a position declared `dynamic` holds a
    /// [`Value::Dynamic`] (or null, or unknown) that conforms to its own type, and
    /// refinements do not contradict each other.
    ///
    /// # Errors
    ///
    /// The first mismatch, with its path.
    pub fn conforms_to(&self, ty: &Type) -> Result<()> {
        conform(self, ty, 0)
    }

    /// Whether this is `Null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether this is `Unknown`.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Value::Unknown(_))
    }

    /// Whether neither this value nor anything inside it is unknown.
    pub fn is_wholly_known(&self) -> bool {
        match self {
            Value::Unknown(_) => false,
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => true,
            Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
                vs.iter().all(Value::is_wholly_known)
            }
            Value::Map(m) | Value::Object(m) => m.values().all(Value::is_wholly_known),
            Value::Dynamic(d) => d.value().is_wholly_known(),
        }
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements of a list.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(v) => Some(v),
            _ => None,
        }
    }

    /// The elements of a set.
    pub fn as_set(&self) -> Option<&[Value]> {
        match self {
            Value::Set(v) => Some(v),
            _ => None,
        }
    }

    /// The elements of a tuple.
    pub fn as_tuple(&self) -> Option<&[Value]> {
        match self {
            Value::Tuple(v) => Some(v),
            _ => None,
        }
    }

    /// The elements of a map.
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The attributes of an object.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The refinements of an unknown.
    pub fn as_unknown(&self) -> Option<&Refinements> {
        match self {
            Value::Unknown(r) => Some(r),
            _ => None,
        }
    }

    /// The typed value in a `dynamic` position.
    pub fn as_dynamic(&self) -> Option<&Dynamic> {
        match self {
            Value::Dynamic(d) => Some(d),
            _ => None,
        }
    }

    /// Looks up an attribute, map key or element: `v.get("tags")`, `v.get(2)`.
    /// Sees through `Dynamic`.
    pub fn get<I: Index>(&self, index: I) -> Option<&Value> {
        index.index_into(self)
    }

    /// Follows a path of steps; `None` where a step does not apply.
    pub fn get_path(&self, path: &crate::path::AttributePath) -> Option<&Value> {
        let mut v = self;
        for step in path.steps() {
            v = match step {
                PathStep::Attr(name) | PathStep::Key(name) => v.get(name.as_str())?,
                PathStep::Index(i) => v.get(usize::try_from(*i).ok()?)?,
            };
        }
        Some(v)
    }

    /// Calls `f` on this value and every value inside it, outermost first, with its path.
    /// Set elements are visited with their position in the set.
    ///
    /// ```
    /// use tfvalue::{Type, Value};
    ///
    /// let ty: Type = serde_json::from_str(r#"["object",{"a":"string","b":["list","number"]}]"#)?;
    /// let v = Value::from_msgpack(b"\x82\xa1a\xd4\x00\x00\xa1b\x92\x01\xd4\x00\x00", &ty)?;
    /// let mut unknown = Vec::new();
    /// v.walk(&mut |path, v| if v.is_unknown() { unknown.push(path.to_string()) });
    /// assert_eq!(unknown, ["a", "b[1]"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn walk(&self, f: &mut impl FnMut(&crate::path::AttributePath, &Value)) {
        let mut path = crate::path::AttributePath::new();
        self.walk_at(&mut path, f);
    }

    fn walk_at(
        &self,
        path: &mut crate::path::AttributePath,
        f: &mut impl FnMut(&crate::path::AttributePath, &Value),
    ) {
        f(path, self);
        match self {
            Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
                for (i, v) in vs.iter().enumerate() {
                    path.push(PathStep::Index(i as u64));
                    v.walk_at(path, f);
                    path.pop();
                }
            }
            Value::Map(m) => {
                for (k, v) in m {
                    path.push(PathStep::Key(k.to_string()));
                    v.walk_at(path, f);
                    path.pop();
                }
            }
            Value::Object(m) => {
                for (k, v) in m {
                    path.push(PathStep::Attr(k.to_string()));
                    v.walk_at(path, f);
                    path.pop();
                }
            }
            Value::Dynamic(d) => d.value().walk_at(path, f),
            _ => {}
        }
    }

    /// The value with a `Dynamic` wrapper taken off (other values are returned as they are).
    pub fn unwrap_dynamic(&self) -> &Value {
        match self {
            Value::Dynamic(d) => d.value(),
            v => v,
        }
    }

    /// The name of the kind of value, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Unknown(_) => "unknown",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Set(_) => "set",
            Value::Map(_) => "map",
            Value::Object(_) => "object",
            Value::Tuple(_) => "tuple",
            Value::Dynamic(_) => "dynamic",
        }
    }
}

// ---------------------------------------------------------------------------------------
// Conformance

fn conform(v: &Value, ty: &Type, depth: usize) -> Result<()> {
    if depth > DEFAULT_MAX_DEPTH {
        return Err(Error::limit("nesting is deeper than the limit of 128"));
    }
    let mismatch = || {
        // A value built as JSON would be (lists and objects) for a set, tuple or map.
        let hint = match (v, ty) {
            (Value::List(_), Type::Set(_) | Type::Tuple(_)) | (Value::Object(_), Type::Map(_)) => {
                " (`Value::into_typed` gives a value built as JSON its type's shape)"
            }
            _ => "",
        };
        Error::data(format_args!(
            "value of kind {} does not conform to type {ty}{hint}",
            v.kind_name()
        ))
    };
    match (v, ty) {
        (Value::Null, _) => Ok(()),
        (Value::Unknown(r), _) => r.validate(),
        (Value::Dynamic(d), Type::Dynamic) => conform(d.value(), d.ty(), depth + 1),
        (_, Type::Dynamic) => Err(Error::data(format_args!(
            "a {} in a position of type dynamic must carry its own type (Value::Dynamic)",
            v.kind_name()
        ))),
        (Value::Bool(_), Type::Bool)
        | (Value::Number(_), Type::Number)
        | (Value::String(_), Type::String) => Ok(()),
        (Value::List(vs), Type::List(t)) | (Value::Set(vs), Type::Set(t)) => {
            for (i, e) in vs.iter().enumerate() {
                conform(e, t, depth + 1).map_err(|e| e.prepend(PathStep::Index(i as u64)))?;
            }
            if t.has_dynamic() {
                common_type(vs.iter().enumerate().map(|(i, v)| (Step::Index(i), v)), t)?;
            }
            Ok(())
        }
        (Value::Map(m), Type::Map(t)) => {
            for (k, e) in m {
                conform(e, t, depth + 1).map_err(|e| e.prepend(PathStep::Key(k.to_string())))?;
            }
            if t.has_dynamic() {
                common_type(m.iter().map(|(k, v)| (Step::Key(k), v)), t)?;
            }
            check_nfc_keys(m)
        }
        (Value::Object(m), Type::Object(o)) => {
            // Both sides are sorted by name: walk them together.
            let mut present = m.iter().peekable();
            for (name, aty) in o.attributes() {
                let mut found = None;
                if let Some((k, e)) = present.peek() {
                    match k.as_bytes().cmp(name.as_bytes()) {
                        // Anything before `name` in the value is not declared by the type.
                        Ordering::Less => return Err(undeclared(k)),
                        Ordering::Equal => {
                            found = Some(*e);
                            present.next();
                        }
                        Ordering::Greater => {}
                    }
                }
                match found {
                    Some(e) => conform(e, aty, depth + 1)
                        .map_err(|e| e.prepend(PathStep::Attr(name.to_string())))?,
                    None if o.is_optional(name) => {}
                    None => return Err(Error::data(format_args!("missing attribute `{name}`"))),
                }
            }
            match present.next() {
                Some((extra, _)) => Err(undeclared(extra)),
                None => Ok(()),
            }
        }
        (Value::Tuple(vs), Type::Tuple(ts)) => {
            if vs.len() != ts.len() {
                return Err(Error::data(format_args!(
                    "a tuple of {} elements does not conform to type {ty}",
                    vs.len()
                )));
            }
            for (i, (e, t)) in vs.iter().zip(ts).enumerate() {
                conform(e, t, depth + 1).map_err(|e| e.prepend(PathStep::Index(i as u64)))?;
            }
            Ok(())
        }
        _ => Err(mismatch()),
    }
}

#[cold]
fn undeclared(name: &str) -> Error {
    Error::data(format_args!(
        "attribute {name:?} is not declared by the object type"
    ))
    .prepend(PathStep::Attr(name.to_owned()))
}

/// Two map keys that are equal after NFC would collide on the wire.
fn check_nfc_keys(m: &Map) -> Result<()> {
    if m.keys().all(|k| k.is_ascii()) {
        return Ok(());
    }
    let mut keys: Vec<_> = m.keys().map(|k| nfc(k)).collect();
    keys.sort();
    if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::data(format_args!(
            "map keys {:?} collide after Unicode normalization",
            w[0]
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Canonical order and equality

fn rank(v: &Value) -> u8 {
    match v {
        Value::Null => 12,
        Value::Unknown(_) => 11,
        Value::Bool(_) => 0,
        Value::Number(_) => 1,
        Value::String(_) => 2,
        Value::List(_) => 3,
        Value::Set(_) => 4,
        Value::Map(_) => 5,
        Value::Object(_) => 6,
        Value::Tuple(_) => 7,
        Value::Dynamic(_) => 8,
    }
}

/// The canonical order of set elements: known values first (strings bytewise, numbers by
/// value, false before true, containers element by element), then unknowns (in the order
/// given: a stable sort keeps it), then null. With `normalize`, strings compare in NFC, as
/// they will be written.
pub(crate) fn cmp_canonical(a: &Value, b: &Value, normalize: bool) -> Ordering {
    match (a, b) {
        (Value::String(x), Value::String(y)) => {
            if normalize {
                crate::private::bytes_cmp(nfc(x).as_bytes(), nfc(y).as_bytes())
            } else {
                crate::private::bytes_cmp(x.as_bytes(), y.as_bytes())
            }
        }
        (Value::Number(x), Value::Number(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::List(x), Value::List(y)) | (Value::Tuple(x), Value::Tuple(y)) => {
            cmp_seq(x.iter(), y.iter(), normalize)
        }
        (Value::Set(x), Value::Set(y)) => {
            let x = sorted_refs(x, normalize);
            let y = sorted_refs(y, normalize);
            cmp_seq(x.into_iter(), y.into_iter(), normalize)
        }
        (Value::Map(x), Value::Map(y)) | (Value::Object(x), Value::Object(y)) => {
            let mut xi = x.iter();
            let mut yi = y.iter();
            loop {
                match (xi.next(), yi.next()) {
                    (None, None) => return Ordering::Equal,
                    (None, Some(_)) => return Ordering::Less,
                    (Some(_), None) => return Ordering::Greater,
                    (Some((xk, xv)), Some((yk, yv))) => {
                        let o = crate::private::bytes_cmp(xk.as_bytes(), yk.as_bytes())
                            .then_with(|| cmp_canonical(xv, yv, normalize));
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                }
            }
        }
        (Value::Dynamic(x), Value::Dynamic(y)) => x
            .ty()
            .cmp(y.ty())
            .then_with(|| cmp_canonical(x.value(), y.value(), normalize)),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn cmp_seq<'a>(
    mut x: impl Iterator<Item = &'a Value>,
    mut y: impl Iterator<Item = &'a Value>,
    normalize: bool,
) -> Ordering {
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(a), Some(b)) => {
                let o = cmp_canonical(a, b, normalize);
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

/// The elements of a set in canonical order, duplicates removed. Elements that are not
/// wholly known are never duplicates of anything: each unknown stands for its own value.
pub(crate) fn sorted_refs(elems: &[Value], normalize: bool) -> Vec<&Value> {
    let mut refs: Vec<&Value> = elems.iter().collect();
    refs.sort_by(|a, b| cmp_canonical(a, b, normalize));
    refs.dedup_by(|b, a| {
        cmp_canonical(a, b, normalize) == Ordering::Equal
            && a.is_wholly_known()
            && b.is_wholly_known()
    });
    refs
}

/// Puts decoded set elements in canonical order and removes duplicates.
pub(crate) fn canonicalize_set(elems: &mut Vec<Value>) {
    elems.sort_by(|a, b| cmp_canonical(a, b, false));
    elems.dedup_by(|b, a| {
        cmp_canonical(a, b, false) == Ordering::Equal && a.is_wholly_known() && b.is_wholly_known()
    });
}

/// A fast hash for ordering set elements (FxHash's step): collisions cost a comparison,
/// never a wrong answer, and a sort, unlike a hash table, cannot be driven quadratic by
/// them.
pub(crate) struct Fold(pub(crate) u64);

impl Fold {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for Fold {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        let mut w = [0u8; 8];
        if let Some(dst) = w.get_mut(..rest.len()) {
            dst.copy_from_slice(rest);
        }
        self.mix(u64::from_le_bytes(w) ^ ((bytes.len() as u64) << 56));
    }

    fn write_u8(&mut self, i: u8) {
        self.mix(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }
}

/// A hash of `v` that values equal under `cmp_canonical` (not normalized) share: what
/// it compares is hashed, what it does not is left out (an unknown's refinements, a
/// set's order: a set is hashed by its kind only).
pub(crate) fn canonical_hash(v: &Value, h: &mut Fold) {
    match v {
        Value::Null => h.write_u8(12),
        Value::Unknown(_) => h.write_u8(11),
        Value::Bool(b) => h.write_u8(u8::from(*b)),
        Value::Number(n) => {
            h.write_u8(2);
            n.hash(h);
        }
        Value::String(s) => {
            h.write_u8(3);
            h.write(s.as_bytes());
        }
        Value::List(vs) | Value::Tuple(vs) => {
            h.write_u8(4);
            for e in vs {
                canonical_hash(e, h);
            }
        }
        Value::Set(_) => h.write_u8(5),
        Value::Map(m) | Value::Object(m) => {
            h.write_u8(6);
            for (k, e) in m.iter() {
                h.write(k.as_bytes());
                canonical_hash(e, h);
            }
        }
        Value::Dynamic(d) => canonical_hash(d.value(), h),
    }
}

/// Calls `f` with each pair of runs of one hash, one run from `a` and one from `b`
/// (`(hash, index)` pairs, each side sorted by hash): a merge of the two.
pub(crate) fn equal_hash_runs(
    a: &[(u64, usize)],
    b: &[(u64, usize)],
    mut f: impl FnMut(&[(u64, usize)], &[(u64, usize)]),
) {
    let run = |hs: &[(u64, usize)], h: u64| hs.iter().take_while(|e| e.0 == h).count();
    let (mut i, mut j) = (0, 0);
    while let (Some(ra), Some(rb)) = (a.get(i..), b.get(j..)) {
        let (Some(&(ha, _)), Some(&(hb, _))) = (ra.first(), rb.first()) else {
            return;
        };
        match ha.cmp(&hb) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                let (na, nb) = (run(ra, ha), run(rb, hb));
                f(
                    ra.get(..na).unwrap_or_default(),
                    rb.get(..nb).unwrap_or_default(),
                );
                (i, j) = (i + na, j + nb);
            }
        }
    }
}

/// Whether the sets `a` and `b` may be equal as their elements' hashes tell: `false`
/// when an element of one has a hash that no element of the other has (elements equal
/// under `cmp_canonical` share their hash). One pass over each set, then numbers
/// sorted: a set of many elements that differs is told without sorting the elements.
fn set_hashes_agree(a: &[Value], b: &[Value]) -> bool {
    let hashes = |vs: &[Value]| {
        let mut hs: Vec<u64> = vs
            .iter()
            .map(|v| {
                let mut h = Fold(0);
                canonical_hash(v, &mut h);
                h.0
            })
            .collect();
        hs.sort_unstable();
        hs.dedup();
        hs
    };
    hashes(a) == hashes(b)
}

/// Set equality by sorting both sides (see `PartialEq for Value`).
fn sets_equal(a: &[Value], b: &[Value]) -> bool {
    let a = sorted_refs(a, false);
    let b = sorted_refs(b, false);
    if a.len() != b.len() {
        return false;
    }
    // Equal elements are adjacent in canonical order; unknowns all compare
    // equal there, so within such a group match them up one by one.
    let (mut i, mut j) = (0, 0);
    while i < a.len() {
        let gi = a[i..]
            .iter()
            .take_while(|x| cmp_canonical(x, a[i], false) == Ordering::Equal)
            .count();
        let gj = b[j..]
            .iter()
            .take_while(|y| cmp_canonical(y, a[i], false) == Ordering::Equal)
            .count();
        if gi != gj {
            return false;
        }
        let mut used = vec![false; gj];
        for x in &a[i..i + gi] {
            match (0..gj).find(|&k| !used[k] && **x == *b[j + k]) {
                Some(k) => used[k] = true,
                None => return false,
            }
        }
        i += gi;
        j += gj;
    }
    true
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Unknown(a), Value::Unknown(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::List(a), Value::List(b)) | (Value::Tuple(a), Value::Tuple(b)) => a == b,
            (Value::Set(a), Value::Set(b)) => {
                // Two sets in one order (both decoded: canonical) are equal element by
                // element, in one pass.
                if a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y) {
                    return true;
                }
                // Sorting the elements of a large set touches them all over the heap:
                // most sets that differ are told apart by their hashes first.
                if a.len().max(b.len()) >= 32 && !set_hashes_agree(a, b) {
                    return false;
                }
                sets_equal(a, b)
            }
            (Value::Map(a), Value::Map(b)) | (Value::Object(a), Value::Object(b)) => a == b,
            (Value::Dynamic(a), Value::Dynamic(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("Null"),
            Value::Unknown(r) if r.is_empty() => f.write_str("Unknown"),
            Value::Unknown(r) => write!(f, "Unknown({r})"),
            Value::Bool(b) => write!(f, "Bool({b})"),
            Value::Number(n) => write!(f, "Number({n})"),
            Value::String(s) => write!(f, "String({s:?})"),
            Value::List(v) => {
                f.write_str("List")?;
                f.debug_list().entries(v).finish()
            }
            Value::Set(v) => {
                f.write_str("Set")?;
                f.debug_set().entries(v).finish()
            }
            Value::Tuple(v) => {
                f.write_str("Tuple")?;
                f.debug_list().entries(v).finish()
            }
            Value::Map(m) => {
                f.write_str("Map")?;
                f.debug_map().entries(m).finish()
            }
            Value::Object(m) => {
                f.write_str("Object")?;
                f.debug_map().entries(m).finish()
            }
            Value::Dynamic(d) => write!(f, "Dynamic({}, {:?})", d.ty(), d.value()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Construction

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Self {
        Value::Number(n)
    }
}

macro_rules! from_number {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Self {
                Value::Number(Number::from(n))
            }
        }
    )*};
}
from_number!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<Refinements> for Value {
    fn from(r: Refinements) -> Self {
        Value::Unknown(r)
    }
}

impl From<Dynamic> for Value {
    fn from(d: Dynamic) -> Self {
        Value::Dynamic(Box::new(d))
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.unwrap_dynamic().as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.unwrap_dynamic().as_str() == Some(*other)
    }
}

impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.unwrap_dynamic().as_bool() == Some(*other)
    }
}

impl PartialEq<i64> for Value {
    fn eq(&self, other: &i64) -> bool {
        self.unwrap_dynamic().as_number().and_then(Number::to_i64) == Some(*other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set equality told by hashes first agrees with sorting both sides, on sets of 32
    /// to 60 elements: reordered, with duplicates, unknowns (never duplicates), numbers
    /// of two representations, one element changed, dropped or written another way.
    #[test]
    fn set_equality_by_hashes_agrees_with_sorting() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut below = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let (mut equal, mut differ) = (0, 0);
        for case in 0..2_000 {
            let n = 32 + below(29) as usize;
            let elem = |r: u64| match r % 6 {
                0 => Value::from((r / 6 % 5) as i64),
                1 => Value::from((r / 6 % 5) as f64),
                2 => Value::Unknown(Refinements::new()),
                3 => Value::from(format!("s{}", r / 6 % 40)),
                4 => Value::Object(
                    [("k".to_owned(), Value::from(format!("v{}", r / 6 % 40)))].into(),
                ),
                _ => Value::Null,
            };
            let a: Vec<Value> = (0..n).map(|_| elem(below(1_000))).collect();
            let mut b = a.clone();
            // Reordered (reversed, rotated), an element duplicated, changed, dropped.
            b.reverse();
            let k = below(n as u64) as usize;
            b.rotate_left(k);
            match below(5) {
                0 => b.push(b[k].clone()),
                1 => b[k] = elem(below(1_000)),
                2 => {
                    b.remove(k);
                }
                // The same number written as a float: equal.
                3 => {
                    if let Some(i) = b[k].as_i64() {
                        b[k] = Value::from(i as f64);
                    }
                }
                _ => {}
            }
            let (sa, sb) = (Value::Set(a.clone()), Value::Set(b.clone()));
            let want = sets_equal(&a, &b);
            assert_eq!(sa == sb, want, "case {case}: {a:?} / {b:?}");
            assert_eq!(sb == sa, sets_equal(&b, &a), "case {case}, reversed");
            if want {
                equal += 1;
            } else {
                differ += 1;
            }
        }
        assert!(
            equal > 200 && differ > 200,
            "{equal} equal, {differ} differ"
        );
    }

    fn object(attrs: &[(&str, Value)]) -> Value {
        Value::Object(
            attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    /// Conformance and encoding walk the type's attributes and the object's together.
    #[test]
    fn objects_are_checked_attribute_by_attribute() {
        let ty = Type::object([("b", Type::String), ("d", Type::Bool), ("f", Type::Number)])
            .with_optional(["d"]);
        let ok = object(&[("b", "x".into()), ("f", 1.into())]);
        ok.conforms_to(&ty).unwrap();
        // the optional attribute comes out as null, in name order
        assert_eq!(
            ok.to_msgpack(&ty).unwrap(),
            b"\x83\xa1b\xa1x\xa1d\xc0\xa1f\x01"
        );
        for (extra, at) in [("a", "a"), ("c", "c"), ("e", "e"), ("g", "g")] {
            let mut v = vec![("b", Value::from("x")), ("f", 1.into())];
            v.push((extra, Value::Null));
            let err = object(&v).conforms_to(&ty).unwrap_err();
            assert!(
                err.to_string().contains("is not declared"),
                "{extra}: {err}"
            );
            assert_eq!(err.path().to_string(), at);
            assert!(object(&v).to_msgpack(&ty).is_err());
        }
        let err = object(&[("f", 1.into())]).conforms_to(&ty).unwrap_err();
        assert!(err.to_string().contains("missing attribute `b`"), "{err}");
        let err = object(&[("b", "x".into())]).conforms_to(&ty).unwrap_err();
        assert!(err.to_string().contains("missing attribute `f`"), "{err}");
        let err = object(&[("b", 1.into()), ("f", 1.into())])
            .conforms_to(&ty)
            .unwrap_err();
        assert_eq!(err.path().to_string(), "b");
    }
}
