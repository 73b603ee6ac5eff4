//! The elements of a collection agree on the types of their `dynamic` values, for typed
//! structs, which have no type at hand.
//!
//! go-cty builds a list, set or map only from elements of one concrete type, and a value's
//! type takes in the types of the `dynamic` values in it; bytes where two elements differ
//! there make Terraform's decoder panic (see `value::unify`). `Value`s are checked against
//! their type; typed structs have no type at hand, so the serializer and the deserializer
//! follow where they are: one frame for every array, map and struct being written or read,
//! and for
//! each collection (a sequence or a map, not a struct or tuple) the concrete type of the
//! `dynamic` values met at each position inside its elements. Only `dynamic` values
//! cost anything beyond a store per field.

#[derive(Default)]
pub(crate) struct DynCheck<'a> {
    frames: Vec<Frame<'a>>,
    /// The type of the `dynamic` values seen so far at a position inside the elements of
    /// the collection `frame`.
    seen: Vec<Seen<'a>>,
    /// Inside a `dynamic` value (its own type covers what is nested in it) or a `Value`
    /// (checked against its type before it is written).
    pub(crate) skip: u32,
    /// The type JSON of the `dynamic` value being written, once its bytes are out.
    pub(crate) capture: Capture,
}

#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Capture {
    #[default]
    Off,
    /// The next bytes written are the type JSON of a `dynamic` value.
    Next,
    Done(usize, usize),
}

impl Capture {
    /// Takes the captured range, leaving `Off`.
    pub(crate) fn take(&mut self) -> Option<(usize, usize)> {
        match std::mem::replace(self, Capture::Off) {
            Capture::Done(a, b) => Some((a, b)),
            _ => None,
        }
    }
}

#[derive(Clone, Copy)]
struct Frame<'a> {
    collection: bool,
    at: At<'a>,
}

/// The position being written in a frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum At<'a> {
    Start,
    Index(u32),
    Field(&'a str),
    /// A map key.
    Key(&'a str),
    /// A map key, by the range of its text in the output.
    KeyInOutput(usize, usize),
    /// A struct whose fields the serializer records itself (see
    /// [`DynCheck::record_in_struct`]): its field is the last one recorded from this
    /// index on, before those of the next struct inside it.
    Fields(usize),
}

/// A position inside a collection's element: struct fields and tuple indices are kept,
/// nested collections stand for any of their elements.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Sig<'a> {
    Any,
    Index(u32),
    Field(&'a str),
}

struct Seen<'a> {
    frame: usize,
    at: Vec<Sig<'a>>,
    ty: crate::types::Type,
}

impl<'a> DynCheck<'a> {
    #[inline]
    pub(crate) fn push(&mut self, collection: bool) {
        if self.skip == 0 {
            self.frames.push(Frame {
                collection,
                at: At::Start,
            });
        }
    }

    /// A struct whose fields are recorded from index `base` of the list the serializer
    /// keeps (so that it does not also have to say which field it is at).
    #[inline]
    pub(crate) fn push_fields(&mut self, base: usize) {
        if self.skip == 0 {
            self.frames.push(Frame {
                collection: false,
                at: At::Fields(base),
            });
        }
    }

    #[inline]
    pub(crate) fn pop(&mut self) {
        if self.skip == 0 {
            self.frames.pop();
            let depth = self.frames.len();
            if self.seen.last().is_some_and(|s| s.frame >= depth) {
                self.seen.retain(|s| s.frame < depth);
            }
        }
    }

    #[inline]
    pub(crate) fn at(&mut self, at: At<'a>) {
        if self.skip == 0 {
            if let Some(f) = self.frames.last_mut() {
                f.at = at;
            }
        }
    }

    /// A `dynamic` value of type `ty` was written where the frames say.
    #[cold]
    /// `out` is the output written so far (for map keys named by their place in it);
    /// `with_path` puts the path in the error (the deserializer's accessors add it on the
    /// way up instead).
    pub(crate) fn record(
        &mut self,
        ty: crate::types::Type,
        out: &[u8],
        with_path: bool,
    ) -> crate::error::Result<()> {
        self.record_in_struct(ty, out, &[], with_path)
    }

    /// [`DynCheck::record`] for a serializer that records the fields of the structs it is
    /// writing (name, start, end) in `fields`, which [`At::Fields`] frames refer to.
    #[cold]
    pub(crate) fn record_in_struct(
        &mut self,
        ty: crate::types::Type,
        out: &[u8],
        fields: &[(&'a str, usize, usize)],
        with_path: bool,
    ) -> crate::error::Result<()> {
        use crate::value::unify::unify;
        let DynCheck { frames, seen, .. } = self;
        let frames: std::borrow::Cow<'_, [Frame<'a>]> =
            if frames.iter().any(|f| matches!(f.at, At::Fields(_))) {
                std::borrow::Cow::Owned(resolve_fields(frames, fields))
            } else {
                std::borrow::Cow::Borrowed(frames.as_slice())
            };
        for i in 0..frames.len() {
            if !frames[i].collection {
                continue;
            }
            let at: Vec<Sig<'a>> = frames[i + 1..]
                .iter()
                .map(|f| match (f.collection, f.at) {
                    (true, _)
                    | (_, At::Start | At::Key(_) | At::KeyInOutput(..) | At::Fields(_)) => Sig::Any,
                    (false, At::Index(n)) => Sig::Index(n),
                    (false, At::Field(name)) => Sig::Field(name),
                })
                .collect();
            match seen.iter().position(|s| s.frame == i && s.at == at) {
                Some(k) => match unify(&seen[k].ty, &ty) {
                    Some(u) => seen[k].ty = u,
                    None => return Err(conflict(&frames, &seen[k].ty, &ty, out, with_path)),
                },
                None => seen.push(Seen {
                    frame: i,
                    at,
                    ty: ty.clone(),
                }),
            }
        }
        Ok(())
    }
}

/// `frames` with each [`At::Fields`] frame at the field it is writing: the last one
/// recorded before the first of the next such frame inside it (or the end of `fields`).
fn resolve_fields<'a>(frames: &[Frame<'a>], fields: &[(&'a str, usize, usize)]) -> Vec<Frame<'a>> {
    let mut resolved = frames.to_vec();
    let mut end = fields.len();
    for f in resolved.iter_mut().rev() {
        if let At::Fields(base) = f.at {
            f.at = match end.checked_sub(1).and_then(|last| fields.get(last)) {
                Some(&(name, _, _)) if end > base => At::Field(name),
                _ => At::Start,
            };
            end = base;
        }
    }
    resolved
}

#[cold]
fn conflict(
    frames: &[Frame<'_>],
    before: &crate::types::Type,
    found: &crate::types::Type,
    out: &[u8],
    with_path: bool,
) -> crate::error::Error {
    let mut path = crate::path::AttributePath::new();
    for f in frames {
        match f.at {
            At::Start | At::Fields(_) => {}
            At::Index(n) => path.push(crate::path::PathStep::Index(u64::from(n))),
            At::Field(name) => path.push(crate::path::PathStep::Attr(name.to_owned())),
            At::Key(k) => path.push(crate::path::PathStep::Key(k.to_owned())),
            At::KeyInOutput(a, b) => path.push(crate::path::PathStep::Key(
                String::from_utf8_lossy(out.get(a..b).unwrap_or_default()).into_owned(),
            )),
        }
    }
    let err = crate::error::Error::data(format_args!(
        "inconsistent element types in a collection with dynamic values: a dynamic value \
         of type {found} where an earlier element has one of type {before}"
    ));
    if with_path {
        err.prepend_path(&path)
    } else {
        err
    }
}
