//! Provider-defined functions (protocol 5.5 and 6.5, Terraform 1.8 and later):
//! `provider::<name>::<function>(..)` in a configuration.
//!
//! A provider declares each function's signature in [`Schemas::functions`](crate::Schemas)
//! ([`Function`]: parameters, an optional variadic parameter, the return type) and answers
//! [`Provider::call_function`](crate::Provider::call_function). The server checks every
//! call against the signature before the handler runs, as terraform-plugin-go's servers
//! leave to the framework: the number of arguments, each argument against its
//! parameter's type, null only where the parameter allows null, unknown only where it
//! allows unknown values; and the result against the return type. Terraform itself
//! answers a call whose argument is unknown with an unknown result, without calling the
//! provider, unless the parameter allows unknown values.
//!
//! Functions are called before the provider is configured (Terraform validates
//! configurations that use them first), so they must not need the provider's
//! configuration; and they must be pure: the same arguments give the same result.

use std::fmt;
use std::sync::Arc;

use tfvalue::schema::StringKind;
use tfvalue::{DynamicValue, Type};

use crate::provider::Context;

/// A function's signature and documentation (tfplugin `Function`).
///
/// ```
/// use tfvalue::Type;
/// use tfvalue_plugin::{Function, Parameter};
///
/// let id = Function::new(Type::String)
///     .summary("The id of an entry")
///     .parameter(Parameter::new("key", Type::String).description("The entry's key."));
/// assert_eq!(id.parameters[0].name, "key");
/// assert!(!id.parameters[0].allow_null_value);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Function {
    /// The parameters, in order.
    pub parameters: Vec<Parameter>,
    /// The parameter that takes every argument after [`parameters`](Function::parameters)
    /// (zero or more), if the function has one.
    pub variadic_parameter: Option<Parameter>,
    /// The type of the result (`dynamic` for a result whose type depends on the
    /// arguments).
    pub return_type: Type,
    /// A short summary (one line).
    pub summary: String,
    /// What the function does.
    pub description: String,
    /// How `description` is written.
    pub description_kind: StringKind,
    /// Non-empty when the function is deprecated: what to use instead.
    pub deprecation_message: String,
}

impl Function {
    /// A function without parameters that returns a `return_type`.
    pub fn new(return_type: Type) -> Self {
        Function {
            parameters: Vec::new(),
            variadic_parameter: None,
            return_type,
            summary: String::new(),
            description: String::new(),
            description_kind: StringKind::Plain,
            deprecation_message: String::new(),
        }
    }

    /// Adds a parameter after the ones there are.
    #[must_use]
    pub fn parameter(mut self, parameter: Parameter) -> Self {
        self.parameters.push(parameter);
        self
    }

    /// Sets the variadic parameter: it takes every argument after the parameters.
    #[must_use]
    pub fn variadic(mut self, parameter: Parameter) -> Self {
        self.variadic_parameter = Some(parameter);
        self
    }

    /// Sets the summary.
    #[must_use]
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = summary.into();
        self
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
        self.deprecation_message = message.into();
        self
    }

    /// The parameter that takes argument `index` (from 0), if any.
    pub fn parameter_at(&self, index: usize) -> Option<&Parameter> {
        self.parameters
            .get(index)
            .or(self.variadic_parameter.as_ref())
    }
}

/// A parameter of a [`Function`] (tfplugin `Function.Parameter`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Parameter {
    /// Its name, shown in Terraform's messages and documentation (`key`).
    pub name: String,
    /// Its type: an argument of another type is converted to it by Terraform, or
    /// refused. `dynamic` takes any type.
    pub ty: Type,
    /// Whether an argument may be null. If not, Terraform refuses a null argument
    /// before calling the provider.
    pub allow_null_value: bool,
    /// Whether an argument may be (or hold) unknown values. If not, Terraform answers
    /// a call with an unknown argument with an unknown result, without calling the
    /// provider.
    pub allow_unknown_values: bool,
    /// What the parameter is.
    pub description: String,
    /// How `description` is written.
    pub description_kind: StringKind,
}

impl Parameter {
    /// A parameter of type `ty` that takes neither null nor unknown values.
    pub fn new(name: impl Into<String>, ty: Type) -> Self {
        Parameter {
            name: name.into(),
            ty,
            allow_null_value: false,
            allow_unknown_values: false,
            description: String::new(),
            description_kind: StringKind::Plain,
        }
    }

    /// Allows null arguments.
    #[must_use]
    pub fn allow_null(mut self) -> Self {
        self.allow_null_value = true;
        self
    }

    /// Allows arguments that are, or hold, unknown values.
    #[must_use]
    pub fn allow_unknown(mut self) -> Self {
        self.allow_unknown_values = true;
        self
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
}

/// A call of a provider-defined function (`CallFunction`).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CallFunctionRequest {
    /// The function's name.
    pub name: String,
    /// The arguments, each checked against its parameter (type, null, unknown): decode
    /// argument `i` with the type of [`Function::parameter_at`]`(i)`.
    pub arguments: Vec<DynamicValue>,
    /// The function's signature, as the provider declared it.
    pub function: Arc<Function>,
    /// Stop signal.
    pub ctx: Context,
}

impl CallFunctionRequest {
    /// A request, for tests of a provider's handler.
    pub fn new(name: impl Into<String>, arguments: Vec<DynamicValue>, function: Function) -> Self {
        CallFunctionRequest {
            name: name.into(),
            arguments,
            function: Arc::new(function),
            ctx: Context::detached(),
        }
    }
}

/// The answer to a [`CallFunctionRequest`]: the result, or an error.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct CallFunctionResponse {
    /// The result, of the function's return type (unknown only where an argument was).
    pub result: DynamicValue,
    /// Why the call failed; the result is then ignored.
    pub error: Option<FunctionError>,
}

impl CallFunctionResponse {
    /// A result.
    pub fn new(result: DynamicValue) -> Self {
        CallFunctionResponse {
            result,
            error: None,
        }
    }

    /// A failed call.
    pub fn error(error: FunctionError) -> Self {
        CallFunctionResponse {
            result: DynamicValue::default(),
            error: Some(error),
        }
    }
}

impl From<FunctionError> for CallFunctionResponse {
    fn from(e: FunctionError) -> Self {
        CallFunctionResponse::error(e)
    }
}

/// Why a function call failed (tfplugin `FunctionError`): a message, and the argument
/// it is about when it is about one. Terraform shows an argument's error at that
/// argument in the configuration ("Invalid value for "key" parameter: ...").
///
/// ```
/// use tfvalue_plugin::FunctionError;
///
/// let e = FunctionError::argument(0, "must not be empty");
/// assert_eq!(e.function_argument, Some(0));
/// assert_eq!(e.to_string(), "argument 1: must not be empty");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FunctionError {
    /// What went wrong.
    pub text: String,
    /// The argument (from 0) the error is about, if it is about one.
    pub function_argument: Option<u64>,
}

impl FunctionError {
    /// An error about the call as a whole.
    pub fn new(text: impl Into<String>) -> Self {
        FunctionError {
            text: text.into(),
            function_argument: None,
        }
    }

    /// An error about argument `index` (from 0).
    pub fn argument(index: u64, text: impl Into<String>) -> Self {
        FunctionError {
            text: text.into(),
            function_argument: Some(index),
        }
    }
}

impl fmt::Display for FunctionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.function_argument {
            Some(i) => write!(f, "argument {}: {}", i + 1, self.text),
            None => f.write_str(&self.text),
        }
    }
}

impl std::error::Error for FunctionError {}

/// Whether `name` is an identifier Terraform can call (`hclsyntax.ValidIdentifier`: a
/// letter or `_`, then letters, digits, `_` and `-`).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// Checks a signature before it is served: the function's name and every parameter's
/// are identifiers, and no two parameters share a name.
pub(crate) fn check_signature(name: &str, f: &Function) -> Result<(), String> {
    if !is_identifier(name) {
        return Err(format!(
            "function name `{name}` is not an identifier (a letter or `_`, then letters, \
             digits, `_` and `-`): Terraform could not call it"
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for p in f.parameters.iter().chain(&f.variadic_parameter) {
        if !is_identifier(&p.name) {
            return Err(format!(
                "function `{name}`: parameter name `{}` is not an identifier",
                p.name
            ));
        }
        if !seen.insert(p.name.as_str()) {
            return Err(format!(
                "function `{name}`: two parameters are named `{}`",
                p.name
            ));
        }
    }
    Ok(())
}

/// Checks a call's arguments against the signature, as Terraform would have sent them:
/// their number, each of its parameter's type, null only where the parameter allows
/// null, unknown only where it allows unknown values. Returns whether any argument holds
/// an unknown value (the result may then be unknown too).
pub(crate) fn check_arguments(
    name: &str,
    f: &Function,
    arguments: &[DynamicValue],
) -> Result<bool, FunctionError> {
    let (n, fixed) = (arguments.len(), f.parameters.len());
    if n < fixed || (n > fixed && f.variadic_parameter.is_none()) {
        let expected = match f.variadic_parameter {
            Some(_) => format!("at least {fixed}"),
            None => fixed.to_string(),
        };
        return Err(FunctionError::new(format!(
            "function `{name}` takes {expected} argument{}, not {n}",
            if fixed == 1 && f.variadic_parameter.is_none() {
                ""
            } else {
                "s"
            }
        )));
    }
    let mut unknown = false;
    for (i, arg) in arguments.iter().enumerate() {
        let at = |text: String| FunctionError::argument(i as u64, text);
        // The count was checked above; an argument past the signature is an error still.
        let Some(p) = f.parameter_at(i) else {
            return Err(at(format!("function `{name}` has no parameter {i}")));
        };
        if arg.is_empty() {
            return Err(at(format!(
                "`{}` is empty: Terraform sends every argument, null as MessagePack nil",
                p.name
            )));
        }
        let value = arg
            .decode_value(&p.ty)
            .map_err(|e| at(format!("`{}` is not of type {}: {e}", p.name, p.ty)))?;
        if value.is_null() && !p.allow_null_value {
            return Err(at(format!("`{}` must not be null", p.name)));
        }
        if !value.is_wholly_known() {
            if !p.allow_unknown_values {
                return Err(at(format!(
                    "`{}` is unknown, and the parameter does not take unknown values \
                     (Terraform answers such a call with an unknown result itself)",
                    p.name
                )));
            }
            unknown = true;
        }
    }
    Ok(unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge() -> Function {
        Function::new(Type::Map(Box::new(Type::String)))
            .parameter(Parameter::new("first", Type::Map(Box::new(Type::String))))
            .variadic(Parameter::new("rest", Type::Map(Box::new(Type::String))).allow_null())
    }

    fn msgpack(bytes: &[u8]) -> DynamicValue {
        DynamicValue::from_msgpack(bytes.to_vec())
    }

    #[test]
    fn arguments_are_counted_against_the_parameters() {
        let f = merge();
        let empty_map = msgpack(b"\x80");
        let e = check_arguments("merge", &f, &[]).unwrap_err();
        assert_eq!(e.text, "function `merge` takes at least 1 arguments, not 0");
        assert_eq!(
            check_arguments("merge", &f, std::slice::from_ref(&empty_map)),
            Ok(false)
        );
        let three = vec![empty_map.clone(), msgpack(b"\xc0"), empty_map.clone()];
        assert_eq!(check_arguments("merge", &f, &three), Ok(false));
        let id = Function::new(Type::String).parameter(Parameter::new("key", Type::String));
        let e = check_arguments("id", &id, &[msgpack(b"\xa1a"), msgpack(b"\xa1b")]).unwrap_err();
        assert_eq!(e.text, "function `id` takes 1 argument, not 2");
        assert_eq!(e.function_argument, None);
    }

    #[test]
    fn null_and_unknown_only_where_the_parameter_allows_them() {
        let f = merge();
        let e = check_arguments("merge", &f, &[msgpack(b"\xc0")]).unwrap_err();
        assert_eq!(e.function_argument, Some(0));
        assert!(e.text.contains("`first` must not be null"), "{e}");
        let unknown = msgpack(b"\xd4\x00\x00");
        let e = check_arguments("merge", &f, &[msgpack(b"\x80"), unknown.clone()]).unwrap_err();
        assert_eq!(e.function_argument, Some(1));
        assert!(e.text.contains("`rest` is unknown"), "{e}");
        let mut g = merge();
        g.variadic_parameter = g.variadic_parameter.map(Parameter::allow_unknown);
        assert_eq!(
            check_arguments("merge", &g, &[msgpack(b"\x80"), unknown]),
            Ok(true)
        );
        // A map holding an unknown is "unknown values" too.
        let partly = msgpack(b"\x81\xa1k\xd4\x00\x00");
        assert!(check_arguments("merge", &f, &[partly]).is_err());
    }

    #[test]
    fn an_argument_of_another_type_names_its_parameter() {
        let e = check_arguments("merge", &merge(), &[msgpack(b"\xa1x")]).unwrap_err();
        assert_eq!(e.function_argument, Some(0));
        assert!(
            e.text.starts_with("`first` is not of type map(string): "),
            "{e}"
        );
        let e = check_arguments("merge", &merge(), &[DynamicValue::default()]).unwrap_err();
        assert!(e.text.contains("is empty"), "{e}");
    }

    #[test]
    fn signatures_name_what_terraform_cannot_call() {
        assert!(check_signature("merge", &merge()).is_ok());
        assert!(check_signature("to-upper_2", &merge()).is_ok());
        assert!(check_signature("2x", &merge())
            .unwrap_err()
            .contains("not an identifier"));
        assert!(check_signature("a.b", &merge()).is_err());
        let twice = merge().variadic(Parameter::new("first", Type::String));
        assert!(check_signature("m", &twice)
            .unwrap_err()
            .contains("two parameters"));
        let unnamed = merge().parameter(Parameter::new("", Type::String));
        assert!(check_signature("m", &unnamed).is_err());
    }
}
