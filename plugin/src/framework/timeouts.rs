//! Timeouts, as terraform-plugin-framework-timeouts has them: a `timeouts` block (or
//! nested attribute) with `create`, `read`, `update` and `delete` durations in
//! Terraform's syntax, defaults per operation, and the handler cancelled past its
//! deadline.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tfvalue::{TfValue, Unknown, Value};

/// The `timeouts` of a resource's model: add it as a field,
/// `#[tfvalue(block)] timeouts: Unknown<Option<Timeouts>>` (a `timeouts { create = "30m" }`
/// block, as most providers have it) or `#[tfvalue(optional, nested_type)]` (an attribute,
/// `timeouts = { create = "30m" }`). The framework reads it: `create` and `update` from
/// the plan, `delete` and `read` from the state; an operation not given one takes
/// [`Resource::timeouts`](super::Resource::timeouts)' default. The handler is cancelled
/// when its time is up, with an error naming the operation and the timeout, and
/// [`Ctx::deadline`](super::Ctx::deadline) says when that is.
///
/// Durations are written as Terraform (and Go's `time.ParseDuration`) writes them:
/// `"30s"`, `"20m"`, `"1h30m"`, `"2.5h"`, `"1500ms"`.
///
/// ```
/// use tfvalue::{TfModel, Unknown};
/// use tfvalue_plugin::framework::Timeouts;
///
/// #[derive(tfvalue::TfValue, serde::Serialize, serde::Deserialize)]
/// struct Cluster {
///     name: Unknown<String>,
///     #[tfvalue(block)]
///     timeouts: Unknown<Option<Timeouts>>,
/// }
///
/// let block = Cluster::block();
/// let t = &block.block_types["timeouts"].block;
/// assert_eq!(t.attributes.keys().collect::<Vec<_>>(), ["create", "delete", "read", "update"]);
/// ```
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct Timeouts {
    /// How long a create may take, as a duration (`"30m"`, `"1h30m"`).
    #[tfvalue(optional, validate_with = duration_value)]
    pub create: Unknown<Option<String>>,
    /// How long a read may take, as a duration (`"30s"`).
    #[tfvalue(optional, validate_with = duration_value)]
    pub read: Unknown<Option<String>>,
    /// How long an update may take, as a duration.
    #[tfvalue(optional, validate_with = duration_value)]
    pub update: Unknown<Option<String>>,
    /// How long a delete may take, as a duration.
    #[tfvalue(optional, validate_with = duration_value)]
    pub delete: Unknown<Option<String>>,
}

/// The validator of a duration attribute.
fn duration_value(v: &Value) -> Result<(), String> {
    match v.as_str() {
        Some(s) => parse_duration(s).map(|_| ()),
        None => Ok(()),
    }
}

/// The defaults of [`Resource::timeouts`](super::Resource::timeouts): for each
/// operation, how long it may take when configuration does not say (`None`: as long as
/// it takes).
///
/// ```
/// use std::time::Duration;
/// use tfvalue_plugin::framework::TimeoutDefaults;
///
/// let d = TimeoutDefaults::new().create(Duration::from_secs(1200)).delete(Duration::from_secs(600));
/// assert_eq!(d.for_operation("create"), Some(Duration::from_secs(1200)));
/// assert_eq!(d.for_operation("read"), None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimeoutDefaults {
    /// Create.
    pub create: Option<Duration>,
    /// Read.
    pub read: Option<Duration>,
    /// Update.
    pub update: Option<Duration>,
    /// Delete.
    pub delete: Option<Duration>,
}

impl TimeoutDefaults {
    /// No defaults.
    pub fn new() -> Self {
        TimeoutDefaults::default()
    }

    /// The default of create.
    #[must_use]
    pub fn create(mut self, d: Duration) -> Self {
        self.create = Some(d);
        self
    }

    /// The default of read.
    #[must_use]
    pub fn read(mut self, d: Duration) -> Self {
        self.read = Some(d);
        self
    }

    /// The default of update.
    #[must_use]
    pub fn update(mut self, d: Duration) -> Self {
        self.update = Some(d);
        self
    }

    /// The default of delete.
    #[must_use]
    pub fn delete(mut self, d: Duration) -> Self {
        self.delete = Some(d);
        self
    }

    /// The default of an operation by name (`create`, `read`, `update`, `delete`).
    pub fn for_operation(&self, op: &str) -> Option<Duration> {
        match op {
            "create" => self.create,
            "read" => self.read,
            "update" => self.update,
            "delete" => self.delete,
            _ => None,
        }
    }
}

/// Reads a duration as Go's `time.ParseDuration` does (which Terraform's timeouts use):
/// decimal numbers, each with a unit (`ns`, `us` or `µs`, `ms`, `s`, `m`, `h`), in a row:
/// `"1h30m"`, `"2.5s"`, `"300ms"`; `"0"` alone is zero. No sign: a timeout is never
/// negative.
///
/// ```
/// use std::time::Duration;
/// use tfvalue_plugin::framework::parse_duration;
///
/// assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
/// assert_eq!(parse_duration("2.5s"), Ok(Duration::from_millis(2500)));
/// assert!(parse_duration("30").is_err());
/// ```
///
/// # Errors
///
/// Text that is not a duration, saying why.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = |why: &str| {
        Err(format!(
            "{text:?} is not a duration ({why}): write it as \"30s\", \"20m\" or \"1h30m\""
        ))
    };
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    if text.is_empty() {
        return bad("it is empty");
    }
    let mut rest = text;
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(digits);
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return bad("a number is missing or malformed");
        }
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_len);
        let seconds = match unit {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            "" => return bad("a number has no unit"),
            _ => return bad("the units are ns, us, ms, s, m and h"),
        };
        let n: f64 = match number.parse() {
            Ok(n) => n,
            Err(_) => return bad("a number is malformed"),
        };
        total += n * seconds;
        rest = next;
    }
    // Go's limit: about 290 years.
    if !total.is_finite() || total > 9.2e9 {
        return bad("it is longer than Go's durations can be");
    }
    Ok(Duration::from_secs_f64(total))
}

/// Writes a duration back as Go does for the error messages: `20m0s`, `1h30m0s`, `1.5s`.
pub(crate) fn show_duration(d: Duration) -> String {
    if d < Duration::from_secs(1) && d.subsec_nanos().is_multiple_of(1_000_000) && !d.is_zero() {
        return format!("{}ms", d.as_millis());
    }
    let total = d.as_secs();
    let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60);
    let frac = d.subsec_nanos();
    let secs = if frac == 0 {
        format!("{s}s")
    } else {
        let f = format!("{:.9}", f64::from(frac) / 1e9);
        format!("{s}{}s", f.trim_start_matches('0').trim_end_matches('0'))
    };
    match (h, m) {
        (0, 0) => secs,
        (0, m) => format!("{m}m{secs}"),
        (h, m) => format!("{h}h{m}m{secs}"),
    }
}

/// Whether `block` has the framework's `timeouts` (a block or nested attribute of
/// [`Timeouts`]' string attributes): a `timeouts` of the provider's own making is left
/// to it.
pub(crate) fn in_schema(block: &tfvalue::schema::Block) -> bool {
    let ours = |attrs: &std::collections::BTreeMap<String, tfvalue::schema::Attribute>| {
        !attrs.is_empty()
            && attrs.iter().all(|(name, a)| {
                matches!(name.as_str(), "create" | "read" | "update" | "delete")
                    && a.plain_type() == Some(&tfvalue::Type::String)
                    && !a.required
            })
    };
    match (
        block.attributes.get("timeouts"),
        block.block_types.get("timeouts"),
    ) {
        (Some(a), _) => a.nested_type().is_some_and(|n| ours(&n.attributes)),
        (None, Some(nb)) => nb.block.block_types.is_empty() && ours(&nb.block.attributes),
        (None, None) => false,
    }
}

/// The configured timeout of `op` in a resource's value (`timeouts.<op>`), if any.
pub(crate) fn configured(value: &Value, op: &str) -> Result<Option<Duration>, String> {
    match value
        .get("timeouts")
        .and_then(|t| t.get(op))
        .and_then(Value::as_str)
    {
        Some(s) => parse_duration(s).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_frameworks_timeouts_are_read() {
        use tfvalue::schema::{Attribute, Block, NestedBlock};
        use tfvalue::{TfModel, Type};
        #[derive(TfValue, Serialize, Deserialize)]
        struct Ours {
            #[tfvalue(block)]
            timeouts: Unknown<Option<Timeouts>>,
        }
        assert!(in_schema(&Ours::block()));
        // A provider's own `timeouts` (seconds as numbers, other names) is not ours.
        let own = Block::new().block(
            "timeouts",
            NestedBlock::single(
                Block::new().attribute("create", Attribute::optional(Type::Number)),
            ),
        );
        assert!(!in_schema(&own));
        let own = Block::new().attribute("timeouts", Attribute::optional(Type::map(Type::String)));
        assert!(!in_schema(&own));
    }

    #[test]
    fn durations_as_go_reads_them() {
        let ok =
            |s: &str, ms: u64| assert_eq!(parse_duration(s), Ok(Duration::from_millis(ms)), "{s}");
        ok("30s", 30_000);
        ok("20m", 1_200_000);
        ok("1h30m", 5_400_000);
        ok("1.5h", 5_400_000);
        ok("1500ms", 1_500);
        ok("0", 0);
        ok("0s", 0);
        ok("1m30.5s", 90_500);
        for bad in ["", "30", "h", "1x", "-5s", "1..5s", "1h 30m", "s30", "1e3s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(show_duration(Duration::from_secs(1200)), "20m0s");
        assert_eq!(show_duration(Duration::from_secs(5400)), "1h30m0s");
        assert_eq!(show_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(show_duration(Duration::from_millis(500)), "500ms");
    }
}
