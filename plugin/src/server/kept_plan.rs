//! The plan kept for apply in the planned private data.
//!
//! Terraform before 1.6 drops every unknown's refinements from the plan it sends back to
//! apply, so the server keeps what it needs to check the new state against the plan
//! as the provider made it. Version 3 keeps only the refinements: the plan Terraform
//! sends back is the plan with each unknown made plain, byte for byte (bound by a
//! digest), so the refined plan is that value with the refined unknowns put back, found
//! by their place among the plan's unknowns. Where the plan made plain changes beyond
//! its unknowns (bytes not in canonical form: keys out of order, say) the whole plan is
//! kept (version 2), as before.

use std::hash::Hasher;

use tfvalue::Type;

/// Version 3: the digest of the plan as Terraform sends it back, then the refined
/// unknowns by their place among the plan's unknowns.
const PLAN_MAGIC_REFINEMENTS: &[u8] = b"tfvalue-plugin/plan/3\n";
/// Version 2: the digest, then the whole plan.
const PLAN_MAGIC: &[u8] = b"tfvalue-plugin/plan/2\n";
/// Version 1, from before the digest; its kept plan is never used.
const PLAN_MAGIC_V1: &[u8] = b"tfvalue-plugin/plan/1\n";

/// The digest that binds a kept plan to the plan Terraform applies. Deterministic
/// (SipHash with fixed keys): planning and applying run in different processes of the
/// same provider binary.
fn digest(bytes: &[u8]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    h.write(bytes);
    h.finish()
}

/// One MessagePack token at the start of `bytes`: its length (a string's, binary's or
/// extension's with its payload, an array's or map's header alone) and whether it is
/// an unknown (extension 0 or 12). `None` for a token cut short or not MessagePack.
fn token(bytes: &[u8]) -> Option<(usize, bool)> {
    let &m = bytes.first()?;
    let n = |at: usize, width: usize| -> Option<usize> {
        let b = bytes.get(at..at + width)?;
        Some(b.iter().fold(0usize, |acc, &x| acc << 8 | usize::from(x)))
    };
    let ext = |len: usize, kind_at: usize| -> Option<(usize, bool)> {
        let kind = *bytes.get(kind_at)?;
        Some((len, kind == 0 || kind == 12))
    };
    let (len, unknown) = match m {
        0x00..=0x7f | 0x80..=0x9f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => (1, false),
        0xa0..=0xbf => (1 + usize::from(m & 0x1f), false),
        0xc4 | 0xd9 => (2 + n(1, 1)?, false),
        0xc5 | 0xda => (3 + n(1, 2)?, false),
        0xc6 | 0xdb => (5usize.checked_add(n(1, 4)?)?, false),
        0xc7 => ext(3 + n(1, 1)?, 2)?,
        0xc8 => ext(4 + n(1, 2)?, 3)?,
        0xc9 => ext(6usize.checked_add(n(1, 4)?)?, 5)?,
        0xd4..=0xd8 => ext(2 + (1usize << (m - 0xd4)), 1)?,
        0xca => (5, false),
        0xcb => (9, false),
        0xcc | 0xd0 => (2, false),
        0xcd | 0xd1 | 0xdc | 0xde => (3, false),
        0xce | 0xd2 | 0xdd | 0xdf => (5, false),
        0xcf | 0xd3 => (9, false),
        0xc1 => return None,
    };
    (len <= bytes.len()).then_some((len, unknown))
}

/// The refined unknowns of `planned` by their place among its unknowns (and their
/// tokens), if `planned` and `plain` are the same tokens but for the unknowns.
fn refined_unknowns<'a>(mut planned: &'a [u8], mut plain: &[u8]) -> Option<Vec<(u32, &'a [u8])>> {
    let mut found = Vec::new();
    let mut index = 0u32;
    while !planned.is_empty() || !plain.is_empty() {
        let (a, a_unknown) = token(planned)?;
        let (b, b_unknown) = token(plain)?;
        let (ta, tb) = (&planned[..a], &plain[..b]);
        if a_unknown && b_unknown {
            if ta != tb {
                found.push((index, ta));
            }
            index = index.checked_add(1)?;
        } else if ta != tb {
            return None;
        }
        planned = &planned[a..];
        plain = &plain[b..];
    }
    Some(found)
}

/// Planned private data that also carries what the apply of this plan is to be checked
/// against, bound to the plan Terraform will send back by the digest of its
/// refinement-free form: the refined unknowns alone where the plan, made plain, keeps its
/// other tokens (a plan in canonical form, sets and `dynamic` values included), else the
/// whole plan.
/// `None` when the plan cannot be kept (too large, or not of `ty`).
pub(crate) fn wrap_plan(planned: &[u8], private: &[u8], ty: &Type) -> Option<Vec<u8>> {
    let len = u32::try_from(planned.len()).ok()?;
    // The plan as Terraform before 1.6 sends it back to apply (every unknown without its
    // refinements), written as the plan's bytes stream by.
    let plain = tfvalue::msgpack::without_refinements(planned, ty).ok()?;
    let plain_digest = digest(&plain);
    if let Some(refined) = refined_unknowns(planned, &plain) {
        let size: usize = refined.iter().map(|(_, t)| 8 + t.len()).sum();
        let mut out = Vec::with_capacity(PLAN_MAGIC_REFINEMENTS.len() + 12 + size + private.len());
        out.extend_from_slice(PLAN_MAGIC_REFINEMENTS);
        out.extend_from_slice(&plain_digest.to_be_bytes());
        out.extend_from_slice(&u32::try_from(refined.len()).ok()?.to_be_bytes());
        for (index, t) in refined {
            out.extend_from_slice(&index.to_be_bytes());
            out.extend_from_slice(&u32::try_from(t.len()).ok()?.to_be_bytes());
            out.extend_from_slice(t);
        }
        out.extend_from_slice(private);
        return Some(out);
    }
    drop(plain);
    let mut out = Vec::with_capacity(PLAN_MAGIC.len() + 12 + planned.len() + private.len());
    out.extend_from_slice(PLAN_MAGIC);
    out.extend_from_slice(&plain_digest.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(planned);
    out.extend_from_slice(private);
    Some(out)
}

/// Reads a big-endian `u32` off the front of `bytes`.
fn take_u32(bytes: &mut &[u8]) -> Option<usize> {
    let (head, rest) = bytes.split_first_chunk::<4>()?;
    *bytes = rest;
    usize::try_from(u32::from_be_bytes(*head)).ok()
}

/// Reads a big-endian `u64` off the front of `bytes`.
fn take_u64(bytes: &mut &[u8]) -> Option<u64> {
    let (head, rest) = bytes.split_first_chunk::<8>()?;
    *bytes = rest;
    Some(u64::from_be_bytes(*head))
}

/// `plain` with the unknowns at the places `refined` names replaced by its tokens (they
/// come in the order of their places); `None` if `plain` has no unknown at one of them.
fn put_back(plain: &[u8], mut refined: &[u8], count: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(plain.len() + refined.len());
    let mut rest = plain;
    let mut index = 0usize;
    for _ in 0..count {
        let want = take_u32(&mut refined)?;
        let len = take_u32(&mut refined)?;
        let (t, after) = refined.split_at_checked(len)?;
        refined = after;
        // Copy the tokens up to the unknown at `want`.
        loop {
            let (n, unknown) = token(rest)?;
            if unknown {
                if index == want {
                    out.extend_from_slice(t);
                    rest = &rest[n..];
                    index += 1;
                    break;
                }
                index += 1;
            }
            out.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
        }
    }
    out.extend_from_slice(rest);
    Some(out)
}

/// The kept plan, if the private data carries one and it is the plan of `planned` (the
/// planned state Terraform sends to apply), and the provider's own private data. `None`
/// also where `planned` is the plan as it was made (Terraform 1.6 and later keep the
/// refinements): the apply is checked against `planned` itself then.
///
/// The destroy half of a replacement brings the private data of the create plan along,
/// with a null planned state: that kept plan is not this apply's, and is left aside.
/// (The server reads it in two steps, [`unwrap_kept`] and [`Kept::onto`].)
#[cfg(test)]
pub(crate) fn unwrap_plan(data: Vec<u8>, planned: &[u8]) -> (Option<Vec<u8>>, Vec<u8>) {
    let (kept, private) = unwrap_kept(data, planned);
    (kept.and_then(|k| k.onto(planned)), private)
}

/// What a kept plan that belongs to an apply's planned state holds ([`unwrap_kept`]).
#[derive(Debug, PartialEq)]
pub(crate) enum Kept {
    /// The plan itself (versions 1 and 2).
    Plan(Vec<u8>),
    /// The plan's refined unknowns (version 3), for the planned state they were checked
    /// to belong to (its digest): [`Kept::onto`] rebuilds the plan from those bytes, so a
    /// server that hands the planned state to the provider first can rebuild it from
    /// the bytes the provider gives back.
    Refinements {
        /// Each refined unknown: its place among the plan's unknowns, its length, its
        /// token.
        refined: Vec<u8>,
        /// How many.
        count: usize,
    },
}

impl Kept {
    /// The plan as it was made, from the planned state it was unwrapped for; `None`
    /// where the refinements do not fit those bytes.
    pub(crate) fn onto(self, planned: &[u8]) -> Option<Vec<u8>> {
        match self {
            Kept::Plan(plan) => Some(plan),
            Kept::Refinements { refined, count } => put_back(planned, &refined, count),
        }
    }
}

/// [`unwrap_plan`] with the plan not rebuilt yet: what is kept, if it belongs to
/// `planned`, and the provider's own private data.
pub(crate) fn unwrap_kept(data: Vec<u8>, planned: &[u8]) -> (Option<Kept>, Vec<u8>) {
    if let Some(mut rest) = data.strip_prefix(PLAN_MAGIC_REFINEMENTS) {
        let Some((want, count)) = take_u64(&mut rest).zip(take_u32(&mut rest)) else {
            return (None, data);
        };
        // The refined unknowns, then the provider's private data.
        let mut skip = rest;
        for _ in 0..count {
            let Some(len) = take_u32(&mut skip).and_then(|_| take_u32(&mut skip)) else {
                return (None, data);
            };
            let Some(after) = skip.get(len..) else {
                return (None, data);
            };
            skip = after;
        }
        let refined = &rest[..rest.len() - skip.len()];
        let kept = (digest(planned) == want).then(|| Kept::Refinements {
            refined: refined.to_vec(),
            count,
        });
        return (kept, skip.to_vec());
    }
    // Version 2 (the digest, the plan's length, the plan), or 1 (no digest).
    let (want, mut rest) = if let Some(mut rest) = data.strip_prefix(PLAN_MAGIC) {
        let Some(want) = take_u64(&mut rest) else {
            return (None, data);
        };
        (Some(want), rest)
    } else if let Some(rest) = data.strip_prefix(PLAN_MAGIC_V1) {
        (None, rest)
    } else {
        return (None, data);
    };
    let Some((plan, private)) = take_u32(&mut rest).and_then(|len| rest.split_at_checked(len))
    else {
        return (None, data);
    };
    let ours = want.is_some_and(|d| planned == plan || digest(planned) == d);
    (ours.then(|| Kept::Plan(plan.to_vec())), private.to_vec())
}

/// `bytes` with every unknown made plain, token by token: what Terraform before 1.6
/// sends back of a plan in Terraform's own encoding. For tests.
#[cfg(test)]
pub(crate) fn made_plain(mut bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    while !bytes.is_empty() {
        let (n, unknown) = token(bytes)?;
        out.extend_from_slice(if unknown {
            b"\xd4\x00\x00"
        } else {
            &bytes[..n]
        });
        bytes = &bytes[n..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfvalue::msgpack::without_refinements;
    use tfvalue::{Dynamic, Refinements, Value};

    fn ty() -> Type {
        serde_json::from_str(r#"["object",{"id":"string"}]"#).unwrap()
    }

    #[test]
    fn kept_plans_belong_to_their_plan_only() {
        // `{"id": unknown, not null, prefix "a-"}` and what Terraform 1.0 sends back.
        let plan = Value::Object(
            [(
                "id".to_owned(),
                Value::Unknown(Refinements::new().not_null().with_prefix("a-")),
            )]
            .into(),
        );
        let bytes = plan.to_msgpack(&ty()).unwrap();
        let echoed = b"\x81\xa2id\xd4\x00\x00".to_vec();
        let w = wrap_plan(&bytes, b"mine", &ty()).unwrap();
        assert!(w.starts_with(PLAN_MAGIC_REFINEMENTS));
        // Only the refined unknown is kept, not the plan.
        assert!(w.len() < PLAN_MAGIC_REFINEMENTS.len() + 12 + 8 + bytes.len() + 4);
        // The apply of that plan, as Terraform 1.0 sends it: the plan as it was made.
        assert_eq!(
            unwrap_plan(w.clone(), &echoed),
            (Some(bytes.clone()), b"mine".to_vec())
        );
        // As Terraform 1.6 sends it (refinements kept): checked against itself.
        assert_eq!(unwrap_plan(w.clone(), &bytes), (None, b"mine".to_vec()));
        // The destroy half of a replacement (null), and another plan: not ours.
        assert_eq!(unwrap_plan(w.clone(), b"\xc0"), (None, b"mine".to_vec()));
        assert_eq!(
            unwrap_plan(w, b"\x81\xa2id\xa3a-1"),
            (None, b"mine".to_vec())
        );
        // Private data that is not ours passes through, even if it starts like ours.
        assert_eq!(
            unwrap_plan(b"abc".to_vec(), &echoed),
            (None, b"abc".to_vec())
        );
        for magic in [PLAN_MAGIC, PLAN_MAGIC_REFINEMENTS] {
            let mut bad = magic.to_vec();
            bad.extend_from_slice(&[0, 0, 0, 9, 1]);
            assert_eq!(unwrap_plan(bad.clone(), &echoed), (None, bad));
        }
        // A plan kept by version 1 (no digest) is never used, its private data is.
        let mut v1 = PLAN_MAGIC_V1.to_vec();
        v1.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        v1.extend_from_slice(&bytes);
        v1.extend_from_slice(b"mine");
        assert_eq!(unwrap_plan(v1, &echoed), (None, b"mine".to_vec()));
        // Version 2 (the whole plan), as providers before version 3 kept it, still reads.
        let mut v2 = PLAN_MAGIC.to_vec();
        v2.extend_from_slice(&digest(&echoed).to_be_bytes());
        v2.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        v2.extend_from_slice(&bytes);
        v2.extend_from_slice(b"mine");
        assert_eq!(
            unwrap_plan(v2, &echoed),
            (Some(bytes.clone()), b"mine".to_vec())
        );
    }

    /// A plan whose bytes change beyond its unknowns when made plain (its keys out of
    /// order) is kept whole, and read back as it was.
    #[test]
    fn plans_that_change_when_made_plain_are_kept_whole() {
        let ty: Type = serde_json::from_str(r#"["object",{"a":"string","b":"string"}]"#).unwrap();
        let refined = Value::Unknown(Refinements::new().not_null().with_prefix("x"))
            .to_msgpack(&Type::String)
            .unwrap();
        // `{"b": "x", "a": unknown}`: keys out of order.
        let mut bytes = b"\x82\xa1b\xa1x\xa1a".to_vec();
        bytes.extend_from_slice(&refined);
        let echoed = without_refinements(&bytes, &ty).unwrap();
        assert_eq!(echoed, b"\x82\xa1a\xd4\x00\x00\xa1b\xa1x");
        let w = wrap_plan(&bytes, b"p", &ty).unwrap();
        assert!(w.starts_with(PLAN_MAGIC));
        assert_eq!(unwrap_plan(w, &echoed), (Some(bytes), b"p".to_vec()));
    }

    /// A small deterministic generator (xorshift), for plans of many shapes.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// An unknown, refined or not, with refinements that fit `kind`.
    fn unknown(rng: &mut Rng, kind: &str) -> Value {
        let r = Refinements::new();
        Value::Unknown(match (rng.below(4), kind) {
            (0, _) => r,
            (1, _) => r.not_null(),
            (_, "string") => r.not_null().with_prefix(format!("p{}-", rng.below(9))),
            (_, "number") => r
                .with_lower_bound(rng.below(5), true)
                .with_upper_bound(10 + rng.below(5), false),
            _ => r
                .not_null()
                .with_min_length(rng.below(3))
                .with_max_length(9),
        })
    }

    fn string(rng: &mut Rng) -> Value {
        match rng.below(5) {
            0 => unknown(rng, "string"),
            1 => Value::Null,
            _ => Value::String(format!("s{}", rng.below(20))),
        }
    }

    fn plan(rng: &mut Rng) -> Value {
        let number = |rng: &mut Rng| match rng.below(3) {
            0 => unknown(rng, "number"),
            _ => Value::from(rng.below(1000)),
        };
        let tags = match rng.below(4) {
            0 => unknown(rng, "collection"),
            _ => Value::Map(
                (0..rng.below(4))
                    .map(|i| (format!("k{i}"), string(rng)))
                    .collect(),
            ),
        };
        let rules = match rng.below(4) {
            0 => unknown(rng, "collection"),
            _ => Value::List(
                (0..rng.below(4))
                    .map(|_| {
                        Value::Object(
                            [
                                ("name".to_owned(), string(rng)),
                                ("port".to_owned(), number(rng)),
                            ]
                            .into(),
                        )
                    })
                    .collect(),
            ),
        };
        let labels = match rng.below(4) {
            0 => unknown(rng, "collection"),
            _ => Value::Set(
                (0..rng.below(4))
                    .map(|_| string(rng))
                    .filter(|v| !v.is_null())
                    .collect(),
            ),
        };
        let meta = match rng.below(4) {
            0 => unknown(rng, "dynamic"),
            1 => Value::Null,
            _ => Value::Dynamic(Box::new(Dynamic::new(Type::String, string(rng)))),
        };
        Value::Object(
            [
                ("id".to_owned(), string(rng)),
                ("count".to_owned(), number(rng)),
                ("tags".to_owned(), tags),
                ("rules".to_owned(), rules),
                ("labels".to_owned(), labels),
                ("meta".to_owned(), meta),
            ]
            .into(),
        )
    }

    /// Whatever the plan, the apply is checked against the plan as it was made: kept
    /// (its refinements, or the whole plan) where Terraform sends it back plain, itself
    /// where Terraform keeps the refinements.
    #[test]
    fn the_plan_kept_is_the_plan_made() {
        let ty: Type = serde_json::from_str(
            r#"["object",{"id":"string","count":"number","tags":["map","string"],
                "rules":["list",["object",{"name":"string","port":"number"}]],
                "labels":["set","string"],"meta":"dynamic"}]"#,
        )
        .unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut flips = Rng(0x2545_f491_4f6c_dd1d);
        let (mut refinements_only, mut whole) = (0, 0);
        let (mut kept_bytes, mut plan_bytes) = (0, 0);
        for _ in 0..2000 {
            let value = plan(&mut rng);
            let bytes = value.to_msgpack(&ty).unwrap();
            let echoed = without_refinements(&bytes, &ty).unwrap();
            let w = wrap_plan(&bytes, b"mine", &ty).unwrap();
            if w.starts_with(PLAN_MAGIC_REFINEMENTS) {
                refinements_only += 1;
                kept_bytes += w.len() - PLAN_MAGIC_REFINEMENTS.len() - 12 - 4;
                plan_bytes += bytes.len();
            } else {
                whole += 1;
            }
            let (kept, private) = unwrap_plan(w.clone(), &echoed);
            assert_eq!(private, b"mine");
            assert_eq!(kept.as_deref(), Some(&bytes[..]), "{value:?}");
            let (kept, _) = unwrap_plan(w.clone(), &bytes);
            assert_eq!(kept.as_deref().unwrap_or(&bytes), &bytes[..], "{value:?}");
            // Cut short or damaged (it comes back from Terraform), it reads without a
            // panic; a count or length beyond the data is no plan.
            for cut in [1, 9, 13, 17, w.len() / 2] {
                let short = w[..w.len().saturating_sub(cut)].to_vec();
                let _ = unwrap_plan(short, &echoed);
            }
            for _ in 0..8 {
                let mut flipped = w.clone();
                let at = flips.below(flipped.len() as u64) as usize;
                flipped[at] ^= 1 << flips.below(8);
                let _ = unwrap_plan(flipped, &echoed);
            }
            let mut huge = w.clone();
            let at = PLAN_MAGIC_REFINEMENTS.len() + 8;
            if huge.starts_with(PLAN_MAGIC_REFINEMENTS) {
                huge[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
                assert_eq!(unwrap_plan(huge.clone(), &echoed), (None, huge));
            }
        }
        assert!(refinements_only > 1000, "{refinements_only} / {whole}");
        // What is kept is the refined unknowns, a fraction of the plans.
        assert!(kept_bytes * 2 < plan_bytes, "{kept_bytes} of {plan_bytes}");
    }
}
