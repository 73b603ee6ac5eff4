//! State stores (protocol 6.10, Terraform 1.15+, experimental there): a provider keeps
//! Terraform's state itself, named in `terraform { state_store "kv_states" { .. } }`,
//! instead of a backend. Terraform hands the provider whole state files (as bytes, one
//! per workspace: the `state_id`), locks them around plans and applies, and lists and
//! deletes workspaces through it.
//!
//! The server does the protocol's chunking: it answers `ConfigureStateStore` with a
//! chunk size, streams [`ReadStateBytesResponse::bytes`] in chunks of that size, and
//! puts the chunks of a `WriteStateBytes` together (checking their ranges and total)
//! before the handler sees the state.

use tfvalue::DynamicValue;

use crate::diagnostic::Diagnostic;
use crate::provider::Context;

/// The chunk size the server answers `ConfigureStateStore` with, at most: Terraform
/// proposes 8 MiB and accepts up to 128 MiB; each chunk must fit in a gRPC message.
pub(crate) const MAX_CHUNK: usize = 8 << 20;

/// The largest state the server puts together from `WriteStateBytes` chunks.
pub(crate) const MAX_STATE: u64 = 2 << 30;

/// `ConfigureStateStore`: the `state_store` block's configuration, wholly known.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConfigureStateStoreRequest {
    /// The state store type.
    pub type_name: String,
    /// The `state_store` block (without its `provider` block).
    pub config: DynamicValue,
    /// Stop signal.
    pub ctx: Context,
}

/// `ReadStateBytes`: the state of one workspace.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadStateBytesRequest {
    /// The state store type.
    pub type_name: String,
    /// The workspace (`default` unless `terraform workspace` says otherwise).
    pub state_id: String,
    /// Stop signal.
    pub ctx: Context,
}

/// The answer to [`ReadStateBytesRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ReadStateBytesResponse {
    /// The state file as Terraform wrote it; empty when the workspace has no state yet.
    pub bytes: Vec<u8>,
    /// Problems met; an error means Terraform gets no state.
    pub diagnostics: Vec<Diagnostic>,
}

impl ReadStateBytesResponse {
    /// A state read.
    pub fn new(bytes: Vec<u8>) -> Self {
        ReadStateBytesResponse {
            bytes,
            diagnostics: Vec::new(),
        }
    }
}

/// `WriteStateBytes`: a new state of one workspace, put together from its chunks.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WriteStateBytesRequest {
    /// The state store type.
    pub type_name: String,
    /// The workspace.
    pub state_id: String,
    /// The whole state file (never empty: Terraform does not write an empty state).
    pub bytes: Vec<u8>,
    /// Stop signal.
    pub ctx: Context,
}

/// `LockState`: take the lock of a workspace's state for an operation.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LockStateRequest {
    /// The state store type.
    pub type_name: String,
    /// The workspace.
    pub state_id: String,
    /// What the lock is for (`OperationTypePlan`, `OperationTypeApply`, ..).
    pub operation: String,
    /// Stop signal.
    pub ctx: Context,
}

/// The answer to [`LockStateRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct LockStateResponse {
    /// The lock's id, handed back to [`UnlockStateRequest::lock_id`].
    pub lock_id: String,
    /// Problems met; an error means the lock was not taken (Terraform does not retry:
    /// say who holds it).
    pub diagnostics: Vec<Diagnostic>,
}

impl LockStateResponse {
    /// A lock taken.
    pub fn new(lock_id: impl Into<String>) -> Self {
        LockStateResponse {
            lock_id: lock_id.into(),
            diagnostics: Vec::new(),
        }
    }
}

/// `UnlockState`: give back a lock [`LockStateResponse`] took.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct UnlockStateRequest {
    /// The state store type.
    pub type_name: String,
    /// The workspace.
    pub state_id: String,
    /// The id the lock was taken with.
    pub lock_id: String,
    /// Stop signal.
    pub ctx: Context,
}

/// `GetStates` (the workspaces) and `DeleteState` (one of them).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct StateStoreRequest {
    /// The state store type.
    pub type_name: String,
    /// The workspace (empty for `GetStates`).
    pub state_id: String,
    /// Stop signal.
    pub ctx: Context,
}

/// The answer to `GetStates`.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct GetStatesResponse {
    /// The workspaces that have a state.
    pub state_ids: Vec<String>,
    /// Problems met.
    pub diagnostics: Vec<Diagnostic>,
}

impl GetStatesResponse {
    /// The workspaces found.
    pub fn new(state_ids: Vec<String>) -> Self {
        GetStatesResponse {
            state_ids,
            diagnostics: Vec::new(),
        }
    }
}

crate::provider::failed_responses!(ReadStateBytesResponse, LockStateResponse, GetStatesResponse);

/// What a client sent as one `WriteStateBytes` chunk.
pub(crate) struct Chunk {
    /// `(type_name, state_id)`, on the first chunk only.
    pub(crate) meta: Option<(String, String)>,
    pub(crate) bytes: Vec<u8>,
    pub(crate) total_length: i64,
    /// `(start, end)`, `end` inclusive.
    pub(crate) range: Option<(i64, i64)>,
}

/// Puts the chunks of a `WriteStateBytes` together, checking each as it comes: the
/// first names the store and the workspace, each continues where the one before ended,
/// none goes past the total the first declared (at most [`MAX_STATE`]); memory grows
/// with the bytes received, never with what a length prefix claims.
#[derive(Default)]
pub(crate) struct Assembly {
    pub(crate) meta: Option<(String, String)>,
    total: u64,
    pub(crate) bytes: Vec<u8>,
}

impl Assembly {
    pub(crate) fn push(&mut self, chunk: Chunk) -> Result<(), Diagnostic> {
        let bad = |detail: String| Diagnostic::error("invalid state chunk").with_detail(detail);
        if self.meta.is_none() {
            let Some(meta) = chunk.meta else {
                return Err(bad(
                    "The first chunk of WriteStateBytes names the state store and the state \
                     (`meta`); this one does not."
                        .into(),
                ));
            };
            let total = u64::try_from(chunk.total_length).unwrap_or(u64::MAX);
            if total == 0 || total > MAX_STATE {
                return Err(bad(format!(
                    "A state of {} bytes: a written state has 1 to {MAX_STATE} bytes.",
                    chunk.total_length
                )));
            }
            self.meta = Some(meta);
            self.total = total;
        } else if chunk.meta.is_some() {
            return Err(bad(
                "Only the first chunk of WriteStateBytes carries `meta`.".into(),
            ));
        }
        let start = self.bytes.len() as u64;
        let len = chunk.bytes.len() as u64;
        let expected = (start, start + len.max(1) - 1);
        let range = chunk
            .range
            .and_then(|(s, e)| Some((u64::try_from(s).ok()?, u64::try_from(e).ok()?)));
        if len == 0 || range != Some(expected) {
            return Err(bad(format!(
                "A chunk of {len} bytes with range {:?}, where bytes {}..={} were expected next.",
                chunk.range, expected.0, expected.1
            )));
        }
        if u64::try_from(chunk.total_length).ok() != Some(self.total) || start + len > self.total {
            return Err(bad(format!(
                "The chunks go past the state's total of {} bytes (this one says {}).",
                self.total, chunk.total_length
            )));
        }
        self.bytes.extend_from_slice(&chunk.bytes);
        Ok(())
    }

    /// The whole state, once every byte the first chunk announced has come.
    pub(crate) fn finish(self) -> Result<(String, String, Vec<u8>), Diagnostic> {
        let Some((type_name, state_id)) = self.meta else {
            return Err(Diagnostic::error("no state written")
                .with_detail("WriteStateBytes ended before its first chunk."));
        };
        if self.bytes.len() as u64 != self.total {
            return Err(Diagnostic::error("incomplete state").with_detail(format!(
                "WriteStateBytes ended after {} of the {} bytes of the state.",
                self.bytes.len(),
                self.total
            )));
        }
        Ok((type_name, state_id, self.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(meta: bool, bytes: &[u8], total: i64, range: (i64, i64)) -> Chunk {
        Chunk {
            meta: meta.then(|| ("kv_states".to_owned(), "default".to_owned())),
            bytes: bytes.to_vec(),
            total_length: total,
            range: Some(range),
        }
    }

    #[test]
    fn chunks_are_put_together_in_order_and_checked() {
        let mut a = Assembly::default();
        a.push(chunk(true, b"abc", 5, (0, 2))).unwrap();
        a.push(chunk(false, b"de", 5, (3, 4))).unwrap();
        let (t, s, bytes) = a.finish().unwrap();
        assert_eq!(
            (t.as_str(), s.as_str(), &bytes[..]),
            ("kv_states", "default", &b"abcde"[..])
        );

        // Out of order, past the total, without meta first, meta twice, a lying total.
        let mut a = Assembly::default();
        a.push(chunk(true, b"abc", 5, (0, 2))).unwrap();
        assert!(a.push(chunk(false, b"de", 5, (4, 5))).is_err());
        let mut a = Assembly::default();
        a.push(chunk(true, b"abc", 4, (0, 2))).unwrap();
        assert!(a.push(chunk(false, b"de", 4, (3, 4))).is_err());
        assert!(Assembly::default()
            .push(chunk(false, b"a", 1, (0, 0)))
            .is_err());
        let mut a = Assembly::default();
        a.push(chunk(true, b"a", 2, (0, 0))).unwrap();
        assert!(a.push(chunk(true, b"b", 2, (1, 1))).is_err());
        assert!(Assembly::default()
            .push(chunk(true, b"a", 1 << 40, (0, 0)))
            .is_err());
        assert!(Assembly::default()
            .push(chunk(true, b"", 0, (0, -1)))
            .is_err());
        // Ended early.
        let mut a = Assembly::default();
        a.push(chunk(true, b"abc", 5, (0, 2))).unwrap();
        assert!(a.finish().is_err());
        assert!(Assembly::default().finish().is_err());
    }
}
