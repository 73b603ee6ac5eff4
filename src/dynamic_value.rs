//! `DynamicValue`: the value container of the plugin protocol.

use serde::de::{Deserialize, DeserializeOwned};
use serde::Serialize;

use crate::error::Result;
use crate::types::Type;
use crate::value::Value;

/// The bytes of a value as tfplugin5/6 carry them: the `DynamicValue` message, with the
/// same fields.
///
/// Terraform Core sends MessagePack, and JSON only in a few places (and older cores);
/// decoding reads `msgpack` when it is non-empty, else `json`; both empty is no value at
/// all, which decodes as null. Encoding always writes `msgpack`, as Terraform expects.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tfvalue::DynamicValue;
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// struct Config { name: String, replicas: Option<u32> }
///
/// let config = Config { name: "web".into(), replicas: Some(3) };
/// let dv = DynamicValue::encode(&config)?;
/// assert!(dv.json.is_empty());
/// assert_eq!(dv.decode::<Config>()?, config);
///
/// // The same value as JSON decodes the same.
/// let dv = DynamicValue { msgpack: vec![], json: br#"{"name":"web","replicas":3}"#.to_vec() };
/// assert_eq!(dv.decode::<Config>()?, config);
///
/// // No value at all is null.
/// assert_eq!(DynamicValue::default().decode::<Option<Config>>()?, None);
/// # Ok::<(), tfvalue::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DynamicValue {
    /// The value as MessagePack (tfvalue's [`msgpack`](crate::msgpack) format).
    pub msgpack: Vec<u8>,
    /// The value as JSON (tfvalue's [`json`](crate::json) format); read only when
    /// `msgpack` is empty.
    pub json: Vec<u8>,
}

/// MessagePack's nil: what an empty `DynamicValue` holds.
const NIL: &[u8] = &[0xc0];

impl DynamicValue {
    /// A value in MessagePack.
    pub fn from_msgpack(bytes: Vec<u8>) -> Self {
        DynamicValue {
            msgpack: bytes,
            json: Vec::new(),
        }
    }

    /// A value in JSON.
    pub fn from_json(bytes: Vec<u8>) -> Self {
        DynamicValue {
            msgpack: Vec::new(),
            json: bytes,
        }
    }

    /// Whether both fields are empty: no value, which decodes as null.
    pub fn is_empty(&self) -> bool {
        self.msgpack.is_empty() && self.json.is_empty()
    }

    /// Decodes a `T` from `msgpack`, or from `json` when `msgpack` is empty; no value at
    /// all is null (so `Option<T>` gives `None`).
    ///
    /// This compiles a JSON decoder for `T` as well as a MessagePack one; for a `T` with a
    /// [`TfValue`](crate::TfValue) type, [`decode_as`](DynamicValue::decode_as) gives the
    /// same `T` and compiles only the MessagePack decoder (a shorter build).
    ///
    /// # Errors
    ///
    /// As [`msgpack::from_slice`](crate::msgpack::from_slice) or
    /// [`json::from_slice`](crate::json::from_slice), whichever field is read; for an
    /// empty value, a `T` that cannot be null.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T> {
        self.decode_borrowed()
    }

    /// Decodes a `T` that may borrow strings from this value's bytes (`&str` fields), as
    /// [`decode`](DynamicValue::decode) does otherwise.
    ///
    /// ```
    /// use tfvalue::DynamicValue;
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Tag<'a> { key: &'a str }
    ///
    /// let dv = DynamicValue::from_json(br#"{"key":"env"}"#.to_vec());
    /// let tag: Tag = dv.decode_borrowed()?;
    /// assert_eq!(tag.key, "env");
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`decode`](DynamicValue::decode).
    pub fn decode_borrowed<'de, T: Deserialize<'de>>(&'de self) -> Result<T> {
        if !self.msgpack.is_empty() {
            crate::msgpack::from_slice(&self.msgpack)
        } else if !self.json.is_empty() {
            crate::json::from_slice(&self.json)
        } else {
            crate::msgpack::from_slice(NIL)
        }
    }

    /// Decodes a `T` as [`decode`](DynamicValue::decode) does, reading JSON as a value of
    /// `ty` (`T`'s own type, [`TfValue::tf_type`](crate::TfValue::tf_type)): JSON is
    /// checked against `ty` and transcoded to MessagePack in one pass, then decoded with
    /// the MessagePack decoder.
    ///
    /// The two give the same `T`. This one builds faster: `decode` compiles a JSON decoder
    /// for `T` and everything in it, on every build of the crate that calls it, even where
    /// Terraform only ever sends MessagePack; here only the MessagePack decoder is compiled
    /// for `T` (the JSON side is compiled once, in tfvalue).
    ///
    /// ```
    /// use tfvalue::{DynamicValue, TfValue};
    ///
    /// #[derive(TfValue, serde::Deserialize, Debug, PartialEq)]
    /// struct Tag {
    ///     key: String,
    ///     #[tfvalue(optional)]
    ///     weight: Option<u8>,
    /// }
    ///
    /// let dv = DynamicValue::from_json(br#"{"key":"env"}"#.to_vec());
    /// let tag: Tag = dv.decode_as(&Tag::tf_type())?;
    /// assert_eq!(tag, Tag { key: "env".into(), weight: None });
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// JSON that is not a value of `ty` (as [`Value::from_json`]), and what
    /// [`msgpack::from_slice`](crate::msgpack::from_slice) rejects; an error of the
    /// transcoded value names the attribute, without an offset (there is none in the
    /// caller's bytes).
    pub fn decode_as<T: DeserializeOwned>(&self, ty: &Type) -> Result<T> {
        if !self.msgpack.is_empty() || self.json.is_empty() {
            return self.decode_msgpack();
        }
        let msgpack = crate::transcode::to_msgpack(&self.json, ty, false)?;
        crate::msgpack::from_slice(&msgpack).map_err(crate::error::Error::without_offset)
    }

    /// Decodes a model (`#[derive(TfValue)]`) from whichever field holds the value, as
    /// [`decode_as`](Self::decode_as) with the model's type does, through the decoder the
    /// derive writes for the model: serde's derived `Deserialize` is not compiled for it
    /// (it is where the struct has `#[serde(...)]` attributes, or a field's type has no
    /// decoder of tfvalue's). Same values, same errors; a model compiles to a fraction of
    /// the code, which a provider's release build feels (`tfvalue-plugin`'s README, "Build
    /// times").
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use serde::{Deserialize, Serialize};
    /// use tfvalue::{DynamicValue, TfValue, Unknown};
    ///
    /// #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    /// struct Tag {
    ///     key: String,
    ///     #[tfvalue(optional)]
    ///     value: Unknown<Option<String>>,
    /// }
    ///
    /// let dv = DynamicValue::from_json(br#"{"key": "env", "value": "prod"}"#.to_vec());
    /// let tag: Tag = dv.decode_model()?;
    /// assert_eq!(tag, Tag { key: "env".into(), value: Some("prod".to_owned()).into() });
    ///
    /// let err = DynamicValue::from_json(br#"{"key": "env", "value": ["prod"]}"#.to_vec())
    ///     .decode_model::<Tag>()
    ///     .unwrap_err();
    /// assert_eq!(err.path().to_string(), "value");
    /// # }
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`decode_as`](Self::decode_as): malformed input, a value that does not fit the
    /// model (with its attribute path), a null value.
    pub fn decode_model<M>(&self) -> Result<M>
    where
        M: crate::tf_value::TfModel + for<'de> serde::Deserialize<'de>,
    {
        self.decode_wire(
            || std::borrow::Cow::Owned(M::tf_type()),
            |de| M::__wire_decode(de),
        )
    }

    /// `decode_as::<Option<M>>(ty)` through the model's own decoder.
    pub(crate) fn decode_model_as<M>(&self, ty: &Type) -> Result<Option<M>>
    where
        M: crate::tf_value::TfModel + for<'de> serde::Deserialize<'de>,
    {
        self.decode_wire(
            || std::borrow::Cow::Borrowed(ty),
            crate::tf_value::model_or_null,
        )
    }

    /// [`decode_as`](Self::decode_as) with `decode` in place of `T::deserialize`; the type
    /// is made only for JSON.
    fn decode_wire<'t, T>(
        &self,
        ty: impl FnOnce() -> std::borrow::Cow<'t, Type>,
        decode: impl FnOnce(&mut crate::msgpack::Deserializer<'_>) -> Result<T>,
    ) -> Result<T> {
        if !self.msgpack.is_empty() || self.json.is_empty() {
            let bytes = if self.msgpack.is_empty() {
                NIL
            } else {
                &self.msgpack[..]
            };
            return crate::msgpack::wire::from_slice_with(bytes, decode);
        }
        let msgpack = crate::transcode::to_msgpack(&self.json, &ty(), false)?;
        crate::msgpack::wire::from_slice_with(&msgpack, decode)
            .map_err(crate::error::Error::without_offset)
    }

    /// `msgpack` decoded (null when both fields are empty).
    fn decode_msgpack<T: DeserializeOwned>(&self) -> Result<T> {
        if self.msgpack.is_empty() {
            crate::msgpack::from_slice(NIL)
        } else {
            crate::msgpack::from_slice(&self.msgpack)
        }
    }

    /// Decodes a [`Value`] of type `ty` from whichever field holds the value; no value at
    /// all is [`Value::Null`].
    ///
    /// ```
    /// use tfvalue::{DynamicValue, Type, Value};
    ///
    /// let ty: Type = serde_json::from_str(r#"["map","number"]"#)?;
    /// let dv = DynamicValue::from_json(br#"{"a": 1e400}"#.to_vec());
    /// let v = dv.decode_value(&ty)?;
    /// assert!(v["a"].as_number().is_some_and(|n| n.is_integer()));
    /// assert_eq!(DynamicValue::default().decode_value(&ty)?, Value::Null);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Value::from_msgpack`] or [`Value::from_json`].
    pub fn decode_value(&self, ty: &Type) -> Result<Value> {
        if !self.msgpack.is_empty() {
            Value::from_msgpack(&self.msgpack, ty)
        } else if !self.json.is_empty() {
            Value::from_json(&self.json, ty)
        } else {
            Ok(Value::Null)
        }
    }

    /// Checks the value against `ty` without building it, as a server checks what it
    /// receives before a typed decode: [`msgpack::validate`](crate::msgpack::validate) on
    /// the MessagePack, a decode of the JSON otherwise. An empty value (neither) is null,
    /// as for [`DynamicValue::decode_value`]; tell it apart with
    /// [`DynamicValue::is_empty`] where a value is required.
    ///
    /// ```
    /// use tfvalue::{DynamicValue, Type};
    ///
    /// let dv = DynamicValue::from_msgpack(b"\x91\xd4\x00\x00".to_vec());
    /// let checked = dv.validate(&Type::List(Box::new(Type::String)))?;
    /// assert!(!checked.is_wholly_known());
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// Those of [`DynamicValue::decode_value`].
    pub fn validate(&self, ty: &Type) -> Result<crate::msgpack::Validated> {
        if !self.msgpack.is_empty() {
            crate::msgpack::validate(&self.msgpack, ty)
        } else if !self.json.is_empty() {
            Value::from_json(&self.json, ty).map(|v| crate::msgpack::Validated::of(&v))
        } else {
            Ok(crate::msgpack::Validated::default())
        }
    }

    /// Encodes `value` as MessagePack.
    ///
    /// # Errors
    ///
    /// As [`msgpack::to_vec`](crate::msgpack::to_vec).
    pub fn encode<T: ?Sized + Serialize>(value: &T) -> Result<Self> {
        Ok(DynamicValue::from_msgpack(crate::msgpack::to_vec(value)?))
    }

    /// Encodes a model (`#[derive(TfValue)]`) as MessagePack: the bytes
    /// [`encode`](Self::encode) writes, through the encoder the derive writes for the
    /// model, so that serde's derived `Serialize` is not compiled for it (it is where the
    /// struct has `#[serde(...)]` attributes, or for a field whose type has no encoder of
    /// tfvalue's).
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use serde::{Deserialize, Serialize};
    /// use tfvalue::{DynamicValue, TfValue, Unknown};
    ///
    /// #[derive(TfValue, Serialize, Deserialize, Debug, PartialEq)]
    /// struct Tag {
    ///     value: Unknown<String>,
    ///     key: String,
    /// }
    ///
    /// let tag = Tag { value: Unknown::unknown(), key: "env".into() };
    /// let dv = DynamicValue::encode_model(&tag)?;
    /// assert_eq!(dv, DynamicValue::encode(&tag)?);
    /// assert_eq!(dv.msgpack, b"\x82\xa3key\xa3env\xa5value\xd4\x00\x00");
    /// # }
    /// # Ok::<(), tfvalue::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`encode`](Self::encode).
    pub fn encode_model<M: crate::tf_value::TfModel + Serialize>(m: &M) -> Result<Self> {
        Ok(DynamicValue::from_msgpack(crate::msgpack::to_vec_with(
            |ser| m.__wire_encode(ser),
        )?))
    }

    /// Encodes a [`Value`] of type `ty` as MessagePack.
    ///
    /// ```
    /// use tfvalue::{DynamicValue, Type, Value};
    ///
    /// let ty: Type = serde_json::from_str(r#"["list","string"]"#)?;
    /// let v = Value::List(vec!["a".into()]);
    /// let dv = DynamicValue::encode_value(&v, &ty)?;
    /// assert_eq!(dv.msgpack, b"\x91\xa1a");
    /// assert_eq!(dv.decode_value(&ty)?, v);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Value::to_msgpack`].
    pub fn encode_value(value: &Value, ty: &Type) -> Result<Self> {
        Ok(DynamicValue::from_msgpack(value.to_msgpack(ty)?))
    }
}
