//! The versioning codec: stored state of any schema version in, the current model out.
//!
//! Terraform's `UpgradeResourceState` hands a provider the state it stored under an older
//! schema version, as [`RawState`]: JSON, or the legacy flatmap of Terraform before 0.12.
//! It expects the state back under the current schema version, as MessagePack. This is the
//! shape of a Kubernetes codec: decode the bytes with the model of the version they were
//! written in, convert to the current ("internal") version, default, and on the way out
//! encode the current version.
//!
//! A [`Codec`] is built once per resource type: one model per stored version (each a
//! `#[derive(TfValue)]` struct with its `#[tfvalue(version = N)]`), and a conversion from
//! each old version, either straight to the current model (the style of the plugin
//! framework) or one step to the next version (the style of SDKv2); both styles mix.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use tfvalue::codec::{Codec, RawState};
//! use tfvalue::TfValue;
//!
//! #[derive(TfValue, Serialize, Deserialize)]
//! struct ServerV0 { name: String, size: String }
//!
//! #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
//! #[tfvalue(version = 1)]
//! struct Server { name: String, cpus: u32 }
//!
//! impl From<ServerV0> for Server {
//!     fn from(old: ServerV0) -> Server {
//!         let cpus = match old.size.as_str() { "small" => 1, "large" => 4, _ => 2 };
//!         Server { name: old.name, cpus }
//!     }
//! }
//!
//! // `ServerV0::into` names the old model; `Server::from` could not, since every type
//! // also converts from itself.
//! let codec = Codec::<Server>::new().upgrade_from(ServerV0::into);
//!
//! // A state stored by version 0, in JSON:
//! let raw = RawState::from_json(br#"{"name":"web","size":"large"}"#.to_vec());
//! assert_eq!(codec.decode(0, &raw)?, Server { name: "web".into(), cpus: 4 });
//! // ... and what UpgradeResourceState returns: the current version, as MessagePack.
//! let upgraded = codec.upgrade(0, &raw)?;
//! assert_eq!(upgraded.decode::<Server>()?, Server { name: "web".into(), cpus: 4 });
//!
//! // A conversion that can fail says so: `try_upgrade_from` / `try_step_from`.
//! let strict = Codec::<Server>::new().try_upgrade_from(|old: ServerV0| match old.size.as_str() {
//!     "small" => Ok(Server { name: old.name, cpus: 1 }),
//!     other => Err(format!("unknown size {other:?}")),
//! });
//! let err = strict.decode(0, &raw).unwrap_err();
//! assert_eq!(err.to_string(), r#"upgrading from schema version 0: unknown size "large""#);
//! # Ok::<(), tfvalue::Error>(())
//! ```

use std::any::Any;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::{dynamic_value::DynamicValue, tf_value::TfModel, types::Type, value::Value};

/// Stored state as `UpgradeResourceState` receives it (tfplugin `RawState`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawState {
    /// The state as JSON, written by Terraform 0.12 and later.
    pub json: Vec<u8>,
    /// The legacy flatmap state of Terraform before 0.12.
    pub flatmap: BTreeMap<String, String>,
}

impl RawState {
    /// A JSON state.
    pub fn from_json(json: Vec<u8>) -> Self {
        RawState {
            json,
            flatmap: BTreeMap::new(),
        }
    }

    /// A flatmap state.
    pub fn from_flatmap(flatmap: BTreeMap<String, String>) -> Self {
        RawState {
            json: Vec::new(),
            flatmap,
        }
    }

    /// Whether there is no state at all.
    pub fn is_empty(&self) -> bool {
        self.json.is_empty() && self.flatmap.is_empty()
    }

    /// Decodes the state as a [`Value`] of `ty`: JSON when there is JSON, else flatmap.
    ///
    /// # Errors
    ///
    /// Both fields empty, or what [`Value::from_json`] and [`Value::from_flatmap`] reject.
    pub fn decode_value(&self, ty: &Type, ignore_undeclared: bool) -> Result<Value> {
        if !self.json.is_empty() {
            crate::json::value_from_slice(&self.json, ty, ignore_undeclared)
        } else if !self.flatmap.is_empty() {
            Value::from_flatmap(&self.flatmap, ty)
        } else {
            Err(Error::data(
                "the stored state is empty (neither JSON nor flatmap)",
            ))
        }
    }
}

impl RawState {
    /// The state re-encoded as the [`DynamicValue`] `UpgradeResourceState` answers with,
    /// for state already at the current schema version: JSON (or flatmap) in, MessagePack
    /// out, checked against `ty` on the way, with attributes `ty` does not declare dropped
    /// when `ignore_undeclared` is set (as Terraform's own providers do).
    ///
    /// ```
    /// use tfvalue::codec::RawState;
    /// use tfvalue::Type;
    ///
    /// let ty: Type = r#"["object",{"name":"string","size":"number"}]"#.parse()?;
    /// let raw = RawState::from_json(br#"{"size":2,"name":"web","gone":true}"#.to_vec());
    /// let dv = raw.transcode(&ty, true)?;
    /// assert_eq!(dv.msgpack, b"\x82\xa4name\xa3web\xa4size\x02");
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// What [`RawState::decode_value`] rejects, and a value that cannot be encoded (as
    /// [`DynamicValue::encode_value`] says). The errors are those of the two steps, with
    /// their paths: input the streaming path does not take on is decoded the general way.
    pub fn transcode(&self, ty: &Type, ignore_undeclared: bool) -> Result<DynamicValue> {
        if !self.json.is_empty() {
            // Streaming, without a `Value` tree where none is needed.
            let msgpack = crate::transcode::to_msgpack(&self.json, ty, ignore_undeclared)?;
            return Ok(DynamicValue::from_msgpack(msgpack));
        }
        let value = self.decode_value(ty, ignore_undeclared)?;
        DynamicValue::encode_value(&value, ty)
    }
}

type DecodeFn = Box<dyn Fn(Cow<'_, RawState>, bool) -> Result<Box<dyn Any>> + Send + Sync>;
type ConvertFn = Box<dyn Fn(Box<dyn Any>) -> Result<Box<dyn Any>> + Send + Sync>;
type DefaultFn<M> = Box<dyn Fn(&mut M) + Send + Sync>;

/// How one stored version is read and moved on.
struct Version {
    /// The name of the model type, for messages.
    model: &'static str,
    decode: DecodeFn,
    /// `None` for the current version.
    convert: Option<(i64, ConvertFn)>,
}

/// Decodes stored state of any registered schema version into the current model `M`.
///
/// See the [module docs](self). `M` is the current version's model; its
/// `#[tfvalue(version = N)]` is the current schema version, whose state decodes as it is.
pub struct Codec<M> {
    versions: Versions,
    default: Option<DefaultFn<M>>,
    ignore_undeclared: bool,
    /// A mistake made while building the codec, reported by every decode.
    misconfigured: Option<String>,
}

impl<M> fmt::Debug for Codec<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.versions.debug(self.ignore_undeclared, f)
    }
}

/// The registered versions, by number. Not generic: the map's code is compiled once,
/// here, and not again for each model in every crate that has a codec.
#[derive(Default)]
struct Versions(BTreeMap<i64, Version>);

impl Versions {
    fn contains(&self, version: i64) -> bool {
        self.0.contains_key(&version)
    }

    fn insert(&mut self, version: i64, v: Version) {
        self.0.insert(version, v);
    }

    fn debug(&self, ignore_undeclared: bool, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Codec");
        for (v, e) in &self.0 {
            match &e.convert {
                Some((to, _)) => d.field(&format!("v{v}"), &format_args!("{} -> v{to}", e.model)),
                None => d.field(&format!("v{v}"), &format_args!("{} (current)", e.model)),
            };
        }
        d.field("ignore_undeclared_attributes", &ignore_undeclared);
        d.finish()
    }

    /// Decodes stored state of `version` with its model and converts it step by step:
    /// the value of the version it ends at, and that version.
    fn run(
        &self,
        version: i64,
        current: i64,
        raw: Cow<'_, RawState>,
        ignore_undeclared: bool,
    ) -> Result<(Box<dyn Any>, i64)> {
        let Some(entry) = self.0.get(&version) else {
            return Err(if version > current {
                Error::data(format_args!(
                    "state has schema version {version}, newer than this provider's version {current}: upgrade the provider"
                ))
            } else {
                Error::data(format_args!(
                    "no model is registered for schema version {version} (known: {})",
                    self.0
                        .keys()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            });
        };
        let mut value = (entry.decode)(raw, ignore_undeclared)
            .map_err(|e| e.context(format_args!("decoding state of schema version {version}")))?;
        let mut at = version;
        // Each step goes to a strictly newer version, so this ends.
        while let Some(Version {
            convert: Some((to, convert)),
            ..
        }) = self.0.get(&at)
        {
            value = convert(value)?;
            at = *to;
            if !self.0.contains_key(&at) {
                return Err(Error::data(format_args!(
                    "codec misconfigured: a step goes to schema version {at}, which has no model registered"
                )));
            }
        }
        Ok((value, at))
    }
}

fn decoder<T: TfModel + DeserializeOwned + 'static>() -> DecodeFn {
    // The model's type, worked out once, when the codec is built.
    let ty = T::tf_type();
    Box::new(move |raw: Cow<'_, RawState>, ignore: bool| {
        if raw.json.is_empty() {
            if raw.flatmap.is_empty() {
                raw.decode_value(&ty, ignore)?;
            }
            // Attributes the state leaves out stay out, for the model's fields to say
            // what that is to them (`None`, or "missing attribute").
            let msgpack = crate::flatmap::flatmap_msgpack_for_model(&raw.flatmap, &ty)?;
            let model: T = crate::msgpack::wire::from_slice_with(&msgpack, T::__wire_decode)
                .map_err(Error::without_offset)?;
            return Ok(Box::new(model) as Box<dyn Any>);
        }
        // JSON checked against the model's type and transcoded to MessagePack in one
        // streaming pass, then decoded as the model: the hot path (Terraform asks for
        // every instance on every plan). The transcoder is compiled once, in this crate,
        // and the model's MessagePack decoder is the one its requests use: no JSON
        // decoder is compiled for each model of a provider (plugin/README.md, "Build
        // times"). Attributes the state leaves out are null, as Terraform reads them.
        let dv = raw.transcode(&ty, ignore)?;
        // Stored state this decode owns is let go before the model is built: a large
        // state is held twice at most, never three times. (A borrowed one stays, for the
        // wording of an error.)
        let raw_json: &[u8] = match raw {
            Cow::Borrowed(r) => &r.json,
            Cow::Owned(owned) => {
                drop(owned);
                &[]
            }
        };
        // An error of the model names the attribute; an offset would be one in bytes
        // made here, not in the state the caller has.
        match crate::msgpack::wire::from_slice_with(&dv.msgpack, T::__wire_decode) {
            Ok(model) => Ok(Box::new(model) as Box<dyn Any>),
            Err(e) => Err(left_out(raw_json, e.without_offset())),
        }
    })
}

/// The error for a model that refused a null where stored JSON leaves the attribute
/// out (the transcoder makes it null, as Terraform reads it): "missing attribute `size`"
/// at the object, as a model says of an attribute it lacks. `json` empty: not known.
#[cold]
fn left_out(json: &[u8], e: Error) -> Error {
    use crate::path::{AttributePath, PathStep};
    if json.is_empty() || !e.message().starts_with("invalid type: null") {
        return e;
    }
    let Some((PathStep::Attr(name), parent)) = e.path().steps().split_last() else {
        return e;
    };
    // The JSON was read within the nesting limit by the transcoder already.
    let Ok(mut at) = serde_json::from_slice::<serde_json::Value>(json) else {
        return e;
    };
    for step in parent {
        let next = match (step, &mut at) {
            (PathStep::Attr(k) | PathStep::Key(k), serde_json::Value::Object(o)) => o.remove(k),
            (PathStep::Index(i), serde_json::Value::Array(a)) => usize::try_from(*i)
                .ok()
                .filter(|i| *i < a.len())
                .map(|i| a.swap_remove(i)),
            _ => None,
        };
        match next {
            Some(v) => at = v,
            None => return e,
        }
    }
    match at {
        serde_json::Value::Object(o) if !o.contains_key(name.as_str()) => {
            let parent: AttributePath = parent.iter().cloned().collect();
            Error::data(format_args!("missing attribute `{name}`")).prepend_path(&parent)
        }
        _ => e,
    }
}

fn downcast<T: 'static>(b: Box<dyn Any>, version: i64) -> Result<T> {
    b.downcast::<T>().map(|b| *b).map_err(|_| {
        Error::data(format_args!(
            "codec misconfigured: the model converted to schema version {version} is not the one registered for it"
        ))
    })
}

impl<M: TfModel + Serialize + DeserializeOwned + 'static> Default for Codec<M> {
    fn default() -> Self {
        Codec::new()
    }
}

impl<M: TfModel + Serialize + DeserializeOwned + 'static> Codec<M> {
    /// A codec for the current model `M`; state of its own version decodes as it is.
    /// Undeclared attributes are ignored by default, as the plugin framework does: a
    /// stored state may still hold attributes that an old model no longer declares.
    pub fn new() -> Self {
        let mut versions = Versions::default();
        versions.insert(
            M::SCHEMA_VERSION,
            Version {
                model: std::any::type_name::<M>(),
                decode: decoder::<M>(),
                convert: None,
            },
        );
        Codec {
            versions,
            default: None,
            ignore_undeclared: true,
            misconfigured: None,
        }
    }

    /// The current schema version.
    pub fn current_version(&self) -> i64 {
        M::SCHEMA_VERSION
    }

    fn register(
        mut self,
        version: i64,
        model: &'static str,
        decode: DecodeFn,
        to: i64,
        convert: ConvertFn,
    ) -> Self {
        if version >= M::SCHEMA_VERSION {
            self.misconfigured.get_or_insert(format!(
                "{model} has schema version {version}, which is not older than the current version {}",
                M::SCHEMA_VERSION
            ));
            return self;
        }
        if to <= version {
            self.misconfigured.get_or_insert(format!(
                "the step from {model} (version {version}) goes to version {to}, which is not newer"
            ));
            return self;
        }
        if self.versions.contains(version) {
            self.misconfigured
                .get_or_insert(format!("schema version {version} is registered twice"));
            return self;
        }
        self.versions.insert(
            version,
            Version {
                model,
                decode,
                convert: Some((to, convert)),
            },
        );
        self
    }

    /// Registers the model of an old version (its `#[tfvalue(version = N)]`) and a
    /// conversion straight to the current model that cannot fail: a `From` impl
    /// (`.upgrade_from(ServerV0::into)`) or a closure (`|old: ServerV0| ...`).
    pub fn upgrade_from<Old>(self, convert: impl Fn(Old) -> M + Send + Sync + 'static) -> Self
    where
        Old: TfModel + DeserializeOwned + 'static,
    {
        self.try_upgrade_from(move |old| Ok::<M, std::convert::Infallible>(convert(old)))
    }

    /// Registers the model of an old version and a conversion straight to the current
    /// model that can fail; its error becomes the decode's, naming the version.
    pub fn try_upgrade_from<Old, E>(
        self,
        convert: impl Fn(Old) -> std::result::Result<M, E> + Send + Sync + 'static,
    ) -> Self
    where
        Old: TfModel + DeserializeOwned + 'static,
        E: fmt::Display,
    {
        let from = Old::SCHEMA_VERSION;
        let to = M::SCHEMA_VERSION;
        self.register(
            from,
            std::any::type_name::<Old>(),
            decoder::<Old>(),
            to,
            Box::new(move |b| {
                let old = downcast::<Old>(b, from)?;
                convert(old)
                    .map(|m| Box::new(m) as Box<dyn Any>)
                    .map_err(|e| {
                        Error::data(format_args!("upgrading from schema version {from}: {e}"))
                    })
            }),
        )
    }

    /// Registers the model of an old version and a conversion that cannot fail to the
    /// model of a newer version, which must be registered too (or be the current one):
    /// the upgrade goes on from there, step by step: `.step_from(|old: ServerV0| ...)`, or
    /// `.step_from(|old: ServerV0| ServerV1::from(old))` with a `From` impl.
    pub fn step_from<Old, Next>(self, convert: impl Fn(Old) -> Next + Send + Sync + 'static) -> Self
    where
        Old: TfModel + DeserializeOwned + 'static,
        Next: TfModel + 'static,
    {
        self.try_step_from(move |old| Ok::<Next, std::convert::Infallible>(convert(old)))
    }

    /// As [`step_from`](Codec::step_from), with a conversion that can fail.
    pub fn try_step_from<Old, Next, E>(
        self,
        convert: impl Fn(Old) -> std::result::Result<Next, E> + Send + Sync + 'static,
    ) -> Self
    where
        Old: TfModel + DeserializeOwned + 'static,
        Next: TfModel + 'static,
        E: fmt::Display,
    {
        let from = Old::SCHEMA_VERSION;
        let to = Next::SCHEMA_VERSION;
        self.register(
            from,
            std::any::type_name::<Old>(),
            decoder::<Old>(),
            to,
            Box::new(move |b| {
                let old = downcast::<Old>(b, from)?;
                convert(old)
                    .map(|n| Box::new(n) as Box<dyn Any>)
                    .map_err(|e| {
                        Error::data(format_args!(
                            "upgrading from schema version {from} to {to}: {e}"
                        ))
                    })
            }),
        )
    }

    /// A defaulting step, applied to every decoded state after conversion.
    #[must_use]
    pub fn default_with(mut self, f: impl Fn(&mut M) + Send + Sync + 'static) -> Self {
        self.default = Some(Box::new(f));
        self
    }

    /// Whether attributes that the stored version's model does not declare are ignored
    /// (the default) or an error.
    #[must_use]
    pub fn ignore_undeclared_attributes(mut self, ignore: bool) -> Self {
        self.ignore_undeclared = ignore;
        self
    }

    /// Decodes state stored under schema `version` and brings it to the current model.
    ///
    /// # Errors
    ///
    /// A version newer than the current one or with no model registered, state that does
    /// not decode with that version's model (the message names the version and the error
    /// the attribute path), a failed conversion, or a codec built wrongly.
    pub fn decode(&self, version: i64, raw: &RawState) -> Result<M> {
        self.decode_cow(version, Cow::Borrowed(raw))
    }

    /// [`Codec::decode`], taking the stored state: its bytes are let go as soon as they
    /// are read, before the model is built, so that a large state is not held three
    /// times over (the stored state, its transcoding and the model).
    ///
    /// # Errors
    ///
    /// As [`Codec::decode`].
    pub fn decode_owned(&self, version: i64, raw: RawState) -> Result<M> {
        self.decode_cow(version, Cow::Owned(raw))
    }

    fn decode_cow(&self, version: i64, raw: Cow<'_, RawState>) -> Result<M> {
        if let Some(why) = &self.misconfigured {
            return Err(Error::data(format_args!("codec misconfigured: {why}")));
        }
        let (value, at) =
            self.versions
                .run(version, M::SCHEMA_VERSION, raw, self.ignore_undeclared)?;
        let mut model = downcast::<M>(value, at)?;
        if let Some(default) = &self.default {
            default(&mut model);
        }
        Ok(model)
    }

    /// What `UpgradeResourceState` returns: the state brought to the current version,
    /// encoded as MessagePack.
    ///
    /// # Errors
    ///
    /// As [`Codec::decode`], and a model that does not encode.
    pub fn upgrade(&self, version: i64, raw: &RawState) -> Result<DynamicValue> {
        let model = self.decode(version, raw)?;
        self.encode(&model)
    }

    /// Encodes a current model: always MessagePack.
    ///
    /// # Errors
    ///
    /// What [`msgpack::to_vec`](crate::msgpack::to_vec) rejects.
    pub fn encode(&self, model: &M) -> Result<DynamicValue> {
        DynamicValue::encode_model(model)
    }
}
