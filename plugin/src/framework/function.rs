//! Provider-defined functions as types (terraform-plugin-framework's `function`
//! package): the parameters are a tuple of Rust types, the result a Rust type, and the
//! signature follows from them.

use serde::de::DeserializeOwned;
use serde::Serialize;
use tfvalue::schema::StringKind;
use tfvalue::{DynamicValue, TfValue, Type};

use crate::function::{CallFunctionResponse, FunctionError, Parameter};

/// A provider-defined function (Terraform 1.8+; terraform-plugin-framework's
/// `function.Function`), called in a configuration as `provider::<provider>::<name>(..)`.
///
/// The parameters are the tuple [`Args`](Function::Args), one Rust type per parameter,
/// the last one [`Variadic`] if the function takes any number of arguments there; the
/// result is [`Return`](Function::Return). What Terraform may pass follows from the
/// types: a parameter takes null if its type can hold null (`Option<String>`), and
/// unknown values if its type can hold one (`Unknown<String>`); otherwise Terraform
/// refuses a null argument itself, and answers a call with an unknown argument with an
/// unknown result without calling the provider. `Number` takes numbers exactly,
/// `Dynamic` takes any type. The server checks every argument against its type before
/// [`call`](Function::call), which decodes them.
///
/// Functions are pure (the same arguments give the same result, as Terraform requires)
/// and need no configured provider: Terraform calls them before it configures one. So
/// `call` gets no client and is not `async`.
///
/// ```
/// use tfvalue_plugin::framework::{Function, FunctionDefinition, Variadic};
/// use tfvalue_plugin::FunctionError;
///
/// /// `provider::acme::join(sep, parts...)`.
/// struct Join;
///
/// impl Function for Join {
///     type Args = (String, Variadic<String>);
///     type Return = String;
///
///     fn definition(&self) -> FunctionDefinition {
///         FunctionDefinition::new("Joins strings with a separator")
///             .parameter("sep", "What goes between the parts.")
///             .parameter("parts", "The strings to join.")
///     }
///
///     fn call(&self, (sep, parts): Self::Args) -> Result<String, FunctionError> {
///         Ok(parts.0.join(&sep))
///     }
/// }
/// # let _ = Join.call((",".into(), Variadic(vec!["a".into(), "b".into()])));
/// ```
pub trait Function: Send + Sync + 'static {
    /// The parameters, in order: a tuple of types (`(String,)`, `(String, Option<u64>)`,
    /// `()`), each decoded from its argument; a [`Variadic`] last takes every argument
    /// after the others.
    type Args: Args;
    /// The result's type.
    type Return: TfValue + Serialize;

    /// The summary, description, and the parameters' names and descriptions (one
    /// [`FunctionDefinition::parameter`] for each element of [`Args`](Function::Args)).
    fn definition(&self) -> FunctionDefinition;

    /// Calls the function.
    ///
    /// # Errors
    ///
    /// Why the call fails; [`FunctionError::argument`] says which argument is wrong,
    /// and Terraform shows the error there.
    fn call(&self, args: Self::Args) -> Result<Self::Return, FunctionError>;
}

/// What [`Function::definition`] says of a function beyond its types: a summary, a
/// description, a deprecation, and each parameter's name and description.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionDefinition {
    summary: String,
    description: String,
    description_kind: StringKind,
    deprecation: String,
    parameters: Vec<(String, String)>,
}

impl FunctionDefinition {
    /// A definition with this summary (one line).
    pub fn new(summary: impl Into<String>) -> Self {
        FunctionDefinition {
            summary: summary.into(),
            ..FunctionDefinition::default()
        }
    }

    /// Sets the description (plain text).
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self.description_kind = StringKind::Plain;
        self
    }

    /// Sets the description, written in Markdown.
    #[must_use]
    pub fn markdown_description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self.description_kind = StringKind::Markdown;
        self
    }

    /// Marks the function deprecated, saying what to use instead.
    #[must_use]
    pub fn deprecated(mut self, message: impl Into<String>) -> Self {
        self.deprecation = message.into();
        self
    }

    /// Names and describes the next parameter (the next element of
    /// [`Function::Args`], the variadic one included).
    #[must_use]
    pub fn parameter(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.parameters.push((name.into(), description.into()));
        self
    }
}

/// The arguments after the other parameters' (zero or more), each a `T`: the last
/// element of a [`Function::Args`] tuple.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variadic<T>(pub Vec<T>);

/// What the framework knows of one parameter from its type.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct ArgFacts {
    ty: Type,
    allow_null: bool,
    allow_unknown: bool,
    variadic: bool,
}

/// One element of a [`Function::Args`] tuple: any [`TfValue`] type, or [`Variadic`].
pub trait Arg: Sized + Send + 'static {
    #[doc(hidden)]
    fn facts() -> ArgFacts;
    /// Decodes the argument at `index` (a variadic one: every argument from there).
    #[doc(hidden)]
    fn decode_at(index: usize, arguments: &[DynamicValue]) -> Result<Self, FunctionError>;
}

/// Decodes argument `index` as a `T`.
fn decode_one<T: TfValue + DeserializeOwned>(
    index: usize,
    arguments: &[DynamicValue],
) -> Result<T, FunctionError> {
    let at = |text: String| FunctionError::argument(index as u64, text);
    let arg = arguments
        .get(index)
        .ok_or_else(|| at("the argument is missing".to_owned()))?;
    arg.decode_as(&T::tf_type()).map_err(|e| at(e.to_string()))
}

impl<T: TfValue + DeserializeOwned + Send + 'static> Arg for T {
    fn facts() -> ArgFacts {
        // What the type can hold, found by decoding null and an unknown into it.
        let takes = |bytes: &[u8]| tfvalue::msgpack::from_slice::<T>(bytes).is_ok();
        ArgFacts {
            ty: T::tf_type(),
            allow_null: takes(b"\xc0"),
            allow_unknown: takes(b"\xd4\x00\x00"),
            variadic: false,
        }
    }

    fn decode_at(index: usize, arguments: &[DynamicValue]) -> Result<Self, FunctionError> {
        decode_one(index, arguments)
    }
}

impl<T: TfValue + DeserializeOwned + Send + 'static> Arg for Variadic<T> {
    fn facts() -> ArgFacts {
        ArgFacts {
            variadic: true,
            ..<T as Arg>::facts()
        }
    }

    fn decode_at(index: usize, arguments: &[DynamicValue]) -> Result<Self, FunctionError> {
        (index..arguments.len())
            .map(|i| decode_one(i, arguments))
            .collect::<Result<_, _>>()
            .map(Variadic)
    }
}

/// The parameters of a [`Function`]: a tuple of up to 8 [`Arg`]s (`()` for none).
pub trait Args: Sized + Send + 'static {
    #[doc(hidden)]
    fn facts() -> Vec<ArgFacts>;
    #[doc(hidden)]
    fn decode(arguments: &[DynamicValue]) -> Result<Self, FunctionError>;
}

impl Args for () {
    fn facts() -> Vec<ArgFacts> {
        Vec::new()
    }

    fn decode(_: &[DynamicValue]) -> Result<Self, FunctionError> {
        Ok(())
    }
}

macro_rules! args_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Arg),+> Args for ($($t,)+) {
            fn facts() -> Vec<ArgFacts> {
                vec![$($t::facts()),+]
            }

            fn decode(arguments: &[DynamicValue]) -> Result<Self, FunctionError> {
                Ok(($($t::decode_at($i, arguments)?,)+))
            }
        }
    };
}

args_tuple!(A 0);
args_tuple!(A 0, B 1);
args_tuple!(A 0, B 1, C 2);
args_tuple!(A 0, B 1, C 2, D 3);
args_tuple!(A 0, B 1, C 2, D 3, E 4);
args_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
args_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
args_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// A registered function, its signature computed once.
pub(super) struct Registered<F> {
    function: F,
    signature: crate::function::Function,
}

impl<F: Function> Registered<F> {
    /// # Panics
    ///
    /// The definition names another number of parameters than `Args` has, or a
    /// `Variadic` is not last: mistakes in the provider's code, found when it starts.
    pub(super) fn new(name: &str, function: F) -> Self {
        let facts = F::Args::facts();
        let definition = function.definition();
        assert!(
            definition.parameters.len() == facts.len(),
            "function `{name}`: its definition names {} parameters, and its Args has {}",
            definition.parameters.len(),
            facts.len()
        );
        let mut signature = crate::function::Function::new(F::Return::tf_type());
        signature.summary = definition.summary;
        signature.description = definition.description;
        signature.description_kind = definition.description_kind;
        signature.deprecation_message = definition.deprecation;
        let last = facts.len().saturating_sub(1);
        for (i, (facts, (pname, description))) in
            facts.into_iter().zip(definition.parameters).enumerate()
        {
            let mut p = Parameter::new(pname, facts.ty);
            p.allow_null_value = facts.allow_null;
            p.allow_unknown_values = facts.allow_unknown;
            p.description = description;
            if facts.variadic {
                assert!(
                    i == last,
                    "function `{name}`: only the last parameter may be Variadic"
                );
                signature.variadic_parameter = Some(p);
            } else {
                signature.parameters.push(p);
            }
        }
        Registered {
            function,
            signature,
        }
    }
}

/// A registered function of any type.
pub(super) trait AnyFunction: Send + Sync {
    fn signature(&self) -> &crate::function::Function;
    fn call(&self, arguments: &[DynamicValue]) -> CallFunctionResponse;
}

impl<F: Function> AnyFunction for Registered<F> {
    fn signature(&self) -> &crate::function::Function {
        &self.signature
    }

    fn call(&self, arguments: &[DynamicValue]) -> CallFunctionResponse {
        let result = F::Args::decode(arguments)
            .and_then(|args| self.function.call(args))
            .and_then(|r| {
                DynamicValue::encode(&r)
                    .map_err(|e| FunctionError::new(format!("the result does not encode: {e}")))
            });
        match result {
            Ok(dv) => CallFunctionResponse::new(dv),
            Err(e) => e.into(),
        }
    }
}
