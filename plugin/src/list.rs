//! List resources (protocol 5.10 and 6.10, Terraform 1.14+): `list` blocks in
//! `.tfquery.hcl` files, run by `terraform query`, which finds existing objects of a
//! managed resource type (to import them, or to generate their configuration).
//!
//! A list resource has the type name of a managed resource type that has an identity
//! ([`Schemas::identity`](crate::Schemas::identity)); its own schema
//! ([`Schemas::list_resource`](crate::Schemas::list_resource)) is that of the `config`
//! block inside the `list` block, the filter. [`Provider::list_resource`](crate::Provider::list_resource)
//! streams what it finds through [`ListResults`]: each result is an identity, a name for
//! people, and (when Terraform asks for it, `include_resource = true`) the object as a
//! resource state.

use std::sync::{Arc, Mutex, PoisonError};

use tfvalue::{DynamicValue, Type};

use crate::diagnostic::{has_errors, Diagnostic};
use crate::provider::Context;
use crate::server::core::{check_output, Known};

/// How many results the server holds for Terraform before a handler's
/// [`ListResults::send`] waits: memory stays bounded however many objects a provider
/// lists, and a handler runs no further ahead of Terraform than this.
pub(crate) const LIST_BUFFER: usize = 32;

/// `ValidateListResourceConfig`: a `list` block, checked against the list resource's
/// schema by the server first. Values may be unknown (they may come from variables that
/// `terraform validate` does not know).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ValidateListResourceConfigRequest {
    /// The list resource type (a managed resource type's name).
    pub type_name: String,
    /// The `config` block, the filter, of the list resource's schema type.
    pub config: DynamicValue,
    /// The `list` block's `include_resource` argument: a bool, null when not set.
    pub include_resource_object: DynamicValue,
    /// The `list` block's `limit` argument: a number, null when not set.
    pub limit: DynamicValue,
    /// Stop signal.
    pub ctx: Context,
}

/// `ListResource`: list the objects a `list` block's filter selects.
#[derive(Debug)]
#[non_exhaustive]
pub struct ListResourceRequest {
    /// The list resource type (a managed resource type's name).
    pub type_name: String,
    /// The `config` block, the filter, of the list resource's schema type.
    pub config: DynamicValue,
    /// Whether Terraform wants each object as a resource state
    /// ([`ListResult::resource_object`]); when not, the server drops the objects a
    /// handler sends anyway, so a handler may skip fetching them.
    pub include_resource_object: bool,
    /// The most results Terraform reads (the `list` block's `limit`, 100 by default).
    /// [`ListResults::send`] refuses any beyond it, so a handler need not count.
    pub limit: i64,
    /// Where the results go, one at a time, as the handler finds them.
    pub results: ListResults,
    /// Stop signal: fired too when Terraform stops reading.
    pub ctx: Context,
}

/// One object a list resource found.
///
/// ```
/// use tfvalue::DynamicValue;
/// use tfvalue_plugin::ListResult;
///
/// let identity = DynamicValue::encode(&serde_json::json!({ "key": "app/a" })).unwrap();
/// let result = ListResult::new(identity, "app/a");
/// assert_eq!(result.display_name, "app/a");
/// assert!(result.resource_object.is_none());
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ListResult {
    /// The object's identity, of the resource type's identity schema, wholly known.
    pub identity: DynamicValue,
    /// A name for people (Terraform shows it beside the identity).
    pub display_name: String,
    /// The object as a state of the resource type, wholly known; only sent when
    /// Terraform asked for objects ([`ListResourceRequest::include_resource_object`]).
    pub resource_object: Option<DynamicValue>,
    /// Problems met with this object; an error ends the listing in Terraform.
    pub diagnostics: Vec<Diagnostic>,
}

impl ListResult {
    /// A result: an identity and a name for people.
    pub fn new(identity: DynamicValue, display_name: impl Into<String>) -> Self {
        ListResult {
            identity,
            display_name: display_name.into(),
            ..Default::default()
        }
    }

    /// With the object as a resource state.
    #[must_use]
    pub fn with_resource_object(mut self, object: DynamicValue) -> Self {
        self.resource_object = Some(object);
        self
    }
}

/// Why [`ListResults::send`] took no more results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListClosed {
    /// The limit Terraform set is reached: Terraform reads no more.
    Limit,
    /// Terraform stopped reading (it reached its limit, met an error, or went away).
    Gone,
    /// A result did not match the schemas, or carried an error: Terraform was told, and
    /// the listing is over.
    Failed,
    /// The handler has returned; results sent after it are dropped.
    Finished,
}

impl std::fmt::Display for ListClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ListClosed::Limit => "the listing reached its limit",
            ListClosed::Gone => "Terraform stopped reading the listing",
            ListClosed::Failed => "the listing ended with an error",
            ListClosed::Finished => "the listing's handler has returned",
        })
    }
}

impl std::error::Error for ListClosed {}

/// What the server sends Terraform, in order.
#[derive(Debug)]
pub(crate) enum ListEvent {
    Result(ListResult),
    Diagnostics(Vec<Diagnostic>),
}

/// Where the objects listed go. A result reaches Terraform as soon as it is sent, with
/// back-pressure: [`send`](ListResults::send) waits while Terraform has not read the
/// results before it, so a handler that pages through an API never holds more than a
/// page and the server holds a few results at most.
///
/// Every result is checked before it leaves: the identity against the resource type's
/// identity schema, the object against its resource schema, both wholly known. A
/// mismatch is an error Terraform shows, and ends the listing.
#[derive(Debug)]
pub struct ListResults {
    sink: Sink,
    identity: Option<Arc<Type>>,
    /// The resource's type, and its schema where it has write-only attributes.
    resource: Option<(Arc<Type>, Option<Arc<tfvalue::schema::Schema>>)>,
    include_resource_object: bool,
    remaining: u64,
    closed: Option<ListClosed>,
}

#[derive(Debug)]
enum Sink {
    /// The server's channel to Terraform; taken away when the handler returns.
    Channel(Arc<Mutex<Option<tokio::sync::mpsc::Sender<ListEvent>>>>),
    /// [`ListResults::collect`]: results kept for a test.
    Collect(Arc<Mutex<Vec<ListResult>>>),
}

/// The results a [`ListResults::collect`] kept, for tests of a handler.
#[derive(Clone, Debug)]
pub struct CollectedResults(Arc<Mutex<Vec<ListResult>>>);

impl CollectedResults {
    /// The results sent so far.
    pub fn take(&self) -> Vec<ListResult> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl ListResults {
    pub(crate) fn channel(
        tx: Arc<Mutex<Option<tokio::sync::mpsc::Sender<ListEvent>>>>,
        identity: Arc<Type>,
        resource: (Arc<Type>, Option<Arc<tfvalue::schema::Schema>>),
        include_resource_object: bool,
        limit: i64,
    ) -> Self {
        ListResults {
            sink: Sink::Channel(tx),
            identity: Some(identity),
            resource: Some(resource),
            include_resource_object,
            remaining: u64::try_from(limit).unwrap_or(0),
            closed: None,
        }
    }

    /// Results that go nowhere but into the returned [`CollectedResults`], unchecked,
    /// up to `limit`: for calling a list handler in a test.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use tfvalue::DynamicValue;
    /// use tfvalue_plugin::{ListClosed, ListResult, ListResults};
    ///
    /// let (mut results, kept) = ListResults::collect(true, 1);
    /// let one = ListResult::new(DynamicValue::from_msgpack(vec![0xc0]), "one");
    /// assert_eq!(results.send(one.clone()).await, Ok(()));
    /// assert_eq!(results.send(one).await, Err(ListClosed::Limit));
    /// assert_eq!(kept.take().len(), 1);
    /// # });
    /// ```
    pub fn collect(include_resource_object: bool, limit: i64) -> (Self, CollectedResults) {
        let kept = Arc::new(Mutex::new(Vec::new()));
        (
            ListResults {
                sink: Sink::Collect(kept.clone()),
                identity: None,
                resource: None,
                include_resource_object,
                remaining: u64::try_from(limit).unwrap_or(0),
                closed: None,
            },
            CollectedResults(kept),
        )
    }

    /// How many more results Terraform reads.
    pub fn remaining(&self) -> u64 {
        if self.closed.is_some() {
            0
        } else {
            self.remaining
        }
    }

    /// Whether the listing is over: more results would be dropped.
    pub fn is_closed(&self) -> bool {
        self.closed.is_some() || self.remaining == 0
    }

    /// Whether Terraform wants the objects ([`ListResult::resource_object`]).
    pub fn include_resource_object(&self) -> bool {
        self.include_resource_object
    }

    /// Sends one result to Terraform, once it has room for it.
    ///
    /// # Errors
    ///
    /// The listing is over ([`ListClosed`] says why): stop listing and return. A result
    /// that does not match the schemas is reported to Terraform as an error, and so is
    /// a result that carries an error diagnostic; both end the listing.
    pub async fn send(&mut self, mut result: ListResult) -> Result<(), ListClosed> {
        if let Some(why) = self.closed {
            return Err(why);
        }
        if self.remaining == 0 {
            self.closed = Some(ListClosed::Limit);
            return Err(ListClosed::Limit);
        }
        if !self.include_resource_object {
            result.resource_object = None;
        }
        let failed = match self.check(&mut result) {
            Ok(()) => has_errors(&result.diagnostics),
            Err(d) => {
                result = ListResult {
                    diagnostics: vec![d],
                    ..Default::default()
                };
                true
            }
        };
        match &self.sink {
            Sink::Collect(kept) => {
                kept.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(result);
            }
            Sink::Channel(tx) => {
                let tx = tx.lock().unwrap_or_else(PoisonError::into_inner).clone();
                let Some(tx) = tx else {
                    self.closed = Some(ListClosed::Finished);
                    return Err(ListClosed::Finished);
                };
                let event = if failed && result.identity.is_empty() {
                    ListEvent::Diagnostics(result.diagnostics)
                } else {
                    ListEvent::Result(result)
                };
                if tx.send(event).await.is_err() {
                    self.closed = Some(ListClosed::Gone);
                    return Err(ListClosed::Gone);
                }
            }
        }
        if failed {
            self.closed = Some(ListClosed::Failed);
            return Err(ListClosed::Failed);
        }
        self.remaining -= 1;
        Ok(())
    }

    /// The checks of a result against the schemas (none for collected results).
    fn check(&self, result: &mut ListResult) -> Result<(), Diagnostic> {
        let name = &result.display_name;
        if let Some(ty) = &self.identity {
            check_output(
                &format!("identity of the listed object `{name}`"),
                &mut result.identity,
                ty,
                Known::Wholly,
            )?;
            if result.identity.msgpack == [0xc0] {
                return Err(Diagnostic::error(format!(
                    "the provider's identity of the listed object `{name}` is null"
                ))
                .with_detail(
                    "Terraform needs the identity of every object a list resource finds. \
                     This is a bug in the provider.",
                ));
            }
        }
        if let (Some((ty, write_only)), Some(object)) =
            (&self.resource, &mut result.resource_object)
        {
            let what = format!("state of the listed object `{name}`");
            check_output(&what, object, ty, Known::Wholly)?;
            // `terraform query -json` prints the object as it is: a write-only value in
            // it would be shown in clear text.
            if let Some(schema) = write_only {
                let value = object.decode_value(ty).map_err(|e| {
                    Diagnostic::from_value_error(
                        format!("the provider's {what} does not decode"),
                        &e,
                    )
                })?;
                if let Some(path) = schema.block.find_write_only(&value) {
                    return Err(Diagnostic::error(format!(
                        "the provider's {what} holds a write-only value"
                    ))
                    .with_detail(
                        "A write-only value is only ever in configuration, never in a state. \
                             This is a bug in the provider.",
                    )
                    .at(path));
                }
            }
        }
        Ok(())
    }
}
