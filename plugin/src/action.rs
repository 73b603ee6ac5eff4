//! Actions (protocol 5.10 and 6.10, Terraform 1.14+): `action` blocks, invoked by a
//! resource's `action_trigger` or by `terraform apply -invoke=action.<type>.<name>`. An
//! action does something once (rotate a key, compact a store, restart a service); it
//! has a configuration and no state.
//!
//! Terraform validates the block ([`Provider::validate_action_config`](crate::Provider::validate_action_config)),
//! plans it ([`Provider::plan_action`](crate::Provider::plan_action)) and, on apply,
//! invokes it ([`Provider::invoke_action`](crate::Provider::invoke_action)), which
//! reports progress as it goes through [`ActionProgress`].

use std::sync::{Arc, Mutex, PoisonError};

use tfvalue::DynamicValue;

use crate::diagnostic::Diagnostic;
use crate::provider::{Context, Deferred};

/// `PlanAction`: an action about to be planned; its configuration may hold unknowns
/// (values from resources not created yet).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PlanActionRequest {
    /// The action type.
    pub action_type: String,
    /// The action's configuration; may hold unknowns.
    pub config: DynamicValue,
    /// Stop signal, and the client's capabilities.
    pub ctx: Context,
}

/// The answer to [`PlanActionRequest`].
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct PlanActionResponse {
    /// Planned in a later run instead (only when the client allows deferral). Terraform
    /// up to v1.15.9 reads no deferral here (its client drops it): to stop a plan, return
    /// an error diagnostic.
    pub deferred: Option<Deferred>,
    /// Problems found: an error stops the plan.
    pub diagnostics: Vec<Diagnostic>,
}

crate::provider::failed_responses!(PlanActionResponse);

/// `InvokeAction`: do the action now.
#[derive(Debug)]
#[non_exhaustive]
pub struct InvokeActionRequest {
    /// The action type.
    pub action_type: String,
    /// The action's configuration, wholly known.
    pub config: DynamicValue,
    /// Where progress messages go (Terraform shows each as it arrives).
    pub progress: ActionProgress,
    /// Stop signal (Ctrl-C, or Terraform went away), and the client's capabilities.
    pub ctx: Context,
}

/// What the server sends Terraform while an action runs.
#[derive(Debug)]
pub(crate) enum ActionEvent {
    Progress(String),
    Completed(Vec<Diagnostic>),
}

/// Where an action's progress goes: each message reaches Terraform as it is sent,
/// which shows it beside the action's address while the action runs.
///
/// Sending waits while Terraform has not read the messages before it (a few are
/// buffered), so a chatty action cannot pile up memory.
#[derive(Clone, Debug)]
pub struct ActionProgress {
    sink: ProgressSink,
}

#[derive(Clone, Debug)]
enum ProgressSink {
    /// The server's channel; taken away when the handler returns.
    Channel(Arc<Mutex<Option<tokio::sync::mpsc::Sender<ActionEvent>>>>),
    /// [`ActionProgress::collect`]: messages kept for a test.
    Collect(Arc<Mutex<Vec<String>>>),
}

/// The progress messages an [`ActionProgress::collect`] kept, for tests of a handler.
#[derive(Clone, Debug)]
pub struct CollectedProgress(Arc<Mutex<Vec<String>>>);

impl CollectedProgress {
    /// The messages sent so far.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Terraform no longer reads an action's progress (it went away, or the handler has
/// returned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgressClosed;

impl std::fmt::Display for ProgressClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Terraform no longer reads the action's progress")
    }
}

impl std::error::Error for ProgressClosed {}

impl ActionProgress {
    pub(crate) fn channel(tx: Arc<Mutex<Option<tokio::sync::mpsc::Sender<ActionEvent>>>>) -> Self {
        ActionProgress {
            sink: ProgressSink::Channel(tx),
        }
    }

    /// Progress that goes into the returned [`CollectedProgress`]: for calling an
    /// action's handler in a test.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let (progress, kept) = tfvalue_plugin::ActionProgress::collect();
    /// progress.send("half way").await.unwrap();
    /// assert_eq!(kept.take(), ["half way"]);
    /// # });
    /// ```
    pub fn collect() -> (Self, CollectedProgress) {
        let kept = Arc::new(Mutex::new(Vec::new()));
        (
            ActionProgress {
                sink: ProgressSink::Collect(kept.clone()),
            },
            CollectedProgress(kept),
        )
    }

    /// Sends a progress message to Terraform.
    ///
    /// # Errors
    ///
    /// Terraform no longer reads: the action may go on (its result is then lost) or
    /// stop; [`Context::is_stopped`] tells whether Terraform asked it to stop.
    pub async fn send(&self, message: impl Into<String>) -> Result<(), ProgressClosed> {
        let message = message.into();
        match &self.sink {
            ProgressSink::Collect(kept) => {
                kept.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(message);
                Ok(())
            }
            ProgressSink::Channel(tx) => {
                let tx = tx.lock().unwrap_or_else(PoisonError::into_inner).clone();
                match tx {
                    Some(tx) => tx
                        .send(ActionEvent::Progress(message))
                        .await
                        .map_err(|_| ProgressClosed),
                    None => Err(ProgressClosed),
                }
            }
        }
    }
}
