//! What decoding a request may cost: a request whose repeated fields hold so many small
//! elements that their decoded form would take far more memory than their bytes is
//! refused with `RESOURCE_EXHAUSTED` before prost decodes it.
//!
//! On the wire an empty function argument takes 2 bytes and a flatmap entry a few; in
//! memory each is a struct, a slot of a growing `Vec` or map, and a heap block per
//! string: 50 to 150 times as much. A 128 MiB `CallFunction` of empty arguments took
//! 3.2 GiB to decode. Everything else a request carries (the values as MessagePack or
//! JSON, names) costs about its own size once decoded, which the message size limit
//! bounds.
//!
//! The check is one pass over the bytes, without allocating: it finds the fields that
//! hold such elements in the requests that have them (the table in [`shape`]) and
//! counts them, also across repeated occurrences of the enclosing field, which protobuf
//! merges into one. Anything it cannot parse it leaves to prost, which refuses it.

use std::marker::PhantomData;

use prost::bytes::Buf;
use prost::Message;
use tonic::codec::{BufferSettings, DecodeBuf, EncodeBuf};
use tonic::Status;

/// How many bytes of memory, beyond the request's own bytes, the small elements of one
/// request may take once decoded and used. Within it, a request's peak memory stays
/// within twice its size plus 64 MiB (tests_grpc.rs measures the worst case).
pub(crate) const BUDGET: u64 = 48 << 20;

/// What one function argument costs decoded: a `DynamicValue` (two `Vec<u8>`, 48 bytes)
/// in a `Vec` that may hold twice as many slots as it fills while it grows, a heap block
/// for each of its non-empty byte strings (32 bytes at least with malloc's header), and
/// the argument the server hands on.
pub(crate) const ARGUMENT_COST: u64 = 2 * 48 + 2 * 32 + 96;

/// What one flatmap entry costs decoded and used: its slot in the `BTreeMap` (two
/// `String`s, about 60 bytes with the nodes' slack), a heap block for the key and one for
/// the value, and what a provider builds from it: the example `thing` (a `Value` tree,
/// then models of three schema versions, then MessagePack) peaked at 427 bytes per entry
/// of its `tags`, measured by `the_most_tiny_elements_allowed_stay_within_the_promise`.
pub(crate) const FLATMAP_ENTRY_COST: u64 = 512;

/// A request's fields whose elements cost far more decoded than on the wire.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Field `field` repeats one small message per element.
    Repeated {
        field: u32,
        what: &'static str,
        cost: u64,
    },
    /// Each of `fields` holds a `RawState`, whose field 2 is the flatmap.
    RawStates(&'static [u32]),
}

/// The requests with many small elements, by protobuf name (the same in tfplugin5 and
/// tfplugin6). `budget_covers_every_request_with_repeated_fields` (below) checks that no
/// request of the protocol files is missing.
fn shape(name: &str) -> Option<Shape> {
    Some(match name {
        "CallFunction.Request" => Shape::Repeated {
            field: 2,
            what: "function arguments",
            cost: ARGUMENT_COST,
        },
        "UpgradeResourceState.Request" | "UpgradeResourceIdentity.Request" => {
            Shape::RawStates(&[3])
        }
        "MoveResourceState.Request" => Shape::RawStates(&[4, 7]),
        _ => return None,
    })
}

/// Refuses a request (protobuf message `name`, in `bytes`) whose small elements would
/// take more than [`BUDGET`] to decode.
pub(crate) fn check(name: &str, bytes: &[u8]) -> Result<(), Status> {
    let Some(shape) = shape(name) else {
        return Ok(());
    };
    let (what, cost, count) = match shape {
        Shape::Repeated { field, what, cost } => {
            (what, cost, count_fields(bytes, |f| f == field).unwrap_or(0))
        }
        Shape::RawStates(fields) => {
            let mut entries = 0u64;
            // Malformed bytes are prost's to refuse.
            let _ = fields_of(bytes, |f, value| {
                if fields.contains(&f) {
                    if let Value::Bytes(raw_state) = value {
                        entries += count_fields(raw_state, |f| f == 2).unwrap_or(0);
                    }
                }
            });
            ("flatmap entries", FLATMAP_ENTRY_COST, entries)
        }
    };
    let needed = count.saturating_mul(cost);
    if needed <= BUDGET {
        return Ok(());
    }
    Err(Status::resource_exhausted(format!(
        "{name} carries {count} {what}, which would take about {} MiB of memory to \
         decode (beyond the {} bytes of the message); a request may take {} MiB so, \
         that is at most {} {what}",
        needed >> 20,
        bytes.len(),
        BUDGET >> 20,
        BUDGET / cost
    )))
}

/// One field's value on the wire.
enum Value<'a> {
    /// A varint or a fixed-size number.
    Number,
    /// A length-delimited field: bytes, a string or a message.
    Bytes(&'a [u8]),
}

/// How many fields of `bytes` (a message) have a number `wanted` says yes to; `None`
/// when the bytes are not a message.
fn count_fields(bytes: &[u8], wanted: impl Fn(u32) -> bool) -> Option<u64> {
    let mut n = 0u64;
    fields_of(bytes, |f, _| {
        if wanted(f) {
            n += 1;
        }
    })?;
    Some(n)
}

/// Calls `each` with every field of `bytes` (a message) in order; `None` when the bytes
/// are not a message (groups, which the protocol does not use, included).
fn fields_of<'a>(mut bytes: &'a [u8], mut each: impl FnMut(u32, Value<'a>)) -> Option<()> {
    while !bytes.is_empty() {
        let key = varint(&mut bytes)?;
        let field = u32::try_from(key >> 3).ok()?;
        let value = match key & 7 {
            0 => {
                varint(&mut bytes)?;
                Value::Number
            }
            1 => {
                bytes = bytes.get(8..)?;
                Value::Number
            }
            2 => {
                let len = usize::try_from(varint(&mut bytes)?).ok()?;
                let (value, rest) = bytes.split_at_checked(len)?;
                bytes = rest;
                Value::Bytes(value)
            }
            5 => {
                bytes = bytes.get(4..)?;
                Value::Number
            }
            _ => return None,
        };
        each(field, value);
    }
    Some(())
}

/// Reads a varint off the front of `bytes`.
fn varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..10 {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Some(value);
        }
    }
    None
}

/// prost's codec with [`Encoder`]. The go-plugin services and the generated clients use
/// it (`build.rs`); the `Provider` services' requests are checked before decoding by
/// their router (`router.rs`), with [`check`] or [`Decoder`].
#[derive(Debug)]
pub(crate) struct Codec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for Codec<T, U> {
    fn default() -> Self {
        Codec(PhantomData)
    }
}

impl<T, U> tonic::codec::Codec for Codec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = Encoder<T>;
    type Decoder = tonic_prost::ProstDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        Encoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        tonic_prost::ProstDecoder::new(BufferSettings::default())
    }
}

/// prost's encoder with the buffer sized once for the message: a large answer (a plan
/// of many MB) is written into a buffer of its size, not one grown by doubling to up to
/// twice it (the peak of a large plan's request was that buffer).
#[derive(Debug)]
pub(crate) struct Encoder<T>(PhantomData<T>);

impl<T: Message> tonic::codec::Encoder for Encoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        // `encode` would measure the message again to check the room, which the buffer
        // (growing as written) always has.
        buf.reserve(item.encoded_len());
        item.encode_raw(buf);
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// prost's decoder after [`check`], for the messages of a client stream.
#[derive(Debug)]
pub(crate) struct Decoder<U> {
    /// The message's protobuf name without the package (`WriteStateBytes.RequestChunk`).
    name: &'static str,
    prost: tonic_prost::ProstDecoder<U>,
}

impl<U> Decoder<U> {
    pub(crate) fn new(name: &'static str) -> Self {
        Decoder {
            name,
            prost: tonic_prost::ProstDecoder::new(BufferSettings::default()),
        }
    }
}

impl<U: Message + Default> tonic::codec::Decoder for Decoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        // tonic hands over the whole message in one contiguous buffer.
        let bytes = buf.chunk();
        if bytes.len() == buf.remaining() {
            check(self.name, bytes)?;
        }
        self.prost.decode(buf)
    }

    fn buffer_settings(&self) -> BufferSettings {
        tonic::codec::Decoder::buffer_settings(&self.prost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field's key.
    fn key(field: u32, wire: u8) -> Vec<u8> {
        let mut out = Vec::new();
        let mut v = u64::from(field) << 3 | u64::from(wire);
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return out;
            }
            out.push(b | 0x80);
        }
    }

    fn len_field(field: u32, body: &[u8]) -> Vec<u8> {
        let mut out = key(field, 2);
        let mut n = body.len() as u64;
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                break;
            }
            out.push(b | 0x80);
        }
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn arguments_within_the_budget_pass_and_beyond_it_are_refused() {
        let fits = BUDGET / ARGUMENT_COST;
        let mut bytes = len_field(1, b"upper");
        for _ in 0..fits {
            bytes.extend(len_field(2, b""));
        }
        check("CallFunction.Request", &bytes).unwrap();
        bytes.extend(len_field(2, b""));
        let status = check("CallFunction.Request", &bytes).unwrap_err();
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert!(
            status
                .message()
                .contains(&format!("{} function arguments", fits + 1)),
            "{}",
            status.message()
        );
        // Other requests are not counted.
        check("ReadResource.Request", &bytes).unwrap();
    }

    #[test]
    fn flatmap_entries_count_across_every_occurrence_of_the_raw_state() {
        let entry = len_field(2, &[len_field(1, b"k"), len_field(2, b"v")].concat());
        let fits = BUDGET / FLATMAP_ENTRY_COST;
        // Protobuf merges repeated occurrences of a message field: split the entries
        // over many RawStates, and over both fields of MoveResourceState.
        let per_state = 1000;
        let states = fits.div_ceil(per_state) + 1;
        let raw_state = len_field(4, &entry.repeat(per_state as usize));
        let identity = len_field(7, &entry.repeat(per_state as usize));
        let mut bytes = len_field(2, b"thing_server");
        for i in 0..states {
            bytes.extend(if i % 2 == 0 { &raw_state } else { &identity });
        }
        let status = check("MoveResourceState.Request", &bytes).unwrap_err();
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert!(status.message().contains("flatmap entries"), "{status}");
        // The same entries in one state within the budget pass.
        let one = len_field(3, &entry.repeat(fits as usize));
        check("UpgradeResourceState.Request", &one).unwrap();
        check(
            "UpgradeResourceState.Request",
            &[one, len_field(3, &entry)].concat(),
        )
        .unwrap_err();
    }

    #[test]
    fn malformed_bytes_are_left_to_prost() {
        for bytes in [
            &[0x12, 0xff][..],
            &[0x12, 0x05, 0x00][..],
            &[0xff; 11][..],
            &[0x0b][..],
        ] {
            check("CallFunction.Request", bytes).unwrap();
            check("UpgradeResourceState.Request", bytes).unwrap();
        }
    }

    /// Every request of the protocol files that holds a repeated or map field at any
    /// depth (build.rs lists them from the compiled protocol files) is in [`shape`].
    #[test]
    fn budget_covers_every_request_with_repeated_fields() {
        let listed = include!(concat!(env!("OUT_DIR"), "/repeated_requests.rs"));
        assert!(listed.contains(&"CallFunction.Request"), "{listed:?}");
        let missing: Vec<_> = listed.iter().filter(|n| shape(n).is_none()).collect();
        assert!(missing.is_empty(), "requests without a budget: {missing:?}");
    }
}
