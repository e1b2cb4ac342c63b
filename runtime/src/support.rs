//! What generated code shares, written once here instead of in every generated module: the
//! conversion error of validated types, serde helpers and the stock default values. Reached
//! as `mcp_bindgen::__private`; not part of the stable API.

use std::borrow::Cow;
use std::fmt;

pub use chrono;
pub use regress;
pub use uuid;

/// `value` deserialized into `T`, or an error that starts with the JSON path of the first
/// field that does not fit (`observation.revision: invalid type: ...`): what generated code
/// decodes a union's variant with, once its tag has told which.
///
/// ```
/// #[derive(serde::Deserialize, Debug)]
/// struct Pending { #[serde(rename = "expiresAt")] expires_at: i64 }
///
/// let err = mcp_bindgen::__private::from_value::<Pending>(serde_json::json!({"expiresAt": "soon"}))
///     .unwrap_err();
/// assert_eq!(err, "expiresAt: invalid type: string \"soon\", expected i64");
/// ```
pub fn from_value<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            inner.to_string()
        } else {
            format!("{path}: {inner}")
        }
    })
}

/// A value that a generated type does not accept: the type, the value and why.
///
/// ```
/// use mcp_bindgen::__private::ConversionError;
///
/// let e = ConversionError::new("ObjectId", &"abc", "shorter than 24 characters");
/// assert_eq!(e.to_string(), "invalid ObjectId \"abc\": shorter than 24 characters");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ConversionError {
    message: Cow<'static, str>,
}

impl ConversionError {
    /// `value` is not a valid `ty`, because `reason`.
    pub fn new(
        ty: &'static str,
        value: &dyn fmt::Debug,
        reason: impl Into<Cow<'static, str>>,
    ) -> Self {
        let reason = reason.into();
        ConversionError {
            message: format!("invalid {ty} {value:?}: {reason}").into(),
        }
    }
}

impl std::error::Error for ConversionError {}

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.message, f)
    }
}

impl From<&'static str> for ConversionError {
    fn from(message: &'static str) -> Self {
        ConversionError {
            message: message.into(),
        }
    }
}

impl From<String> for ConversionError {
    fn from(message: String) -> Self {
        ConversionError {
            message: message.into(),
        }
    }
}

/// The default `V` of a boolean field.
pub fn default_bool<const V: bool>() -> bool {
    V
}

/// The default `V` of an integer field of type `T`, which the generator checked fits `T`.
pub fn default_i64<T, const V: i64>() -> T
where
    T: TryFrom<i64>,
    <T as TryFrom<i64>>::Error: fmt::Debug,
{
    T::try_from(V).expect("the generator checked that the default fits the field's type")
}

/// The default `V` of an unsigned integer field of type `T`, which the generator checked
/// fits `T`.
pub fn default_u64<T, const V: u64>() -> T
where
    T: TryFrom<u64>,
    <T as TryFrom<u64>>::Error: fmt::Debug,
{
    T::try_from(V).expect("the generator checked that the default fits the field's type")
}

/// Reads a field that is present as `Some` (`null` as `Some(None)`), so that an absent field
/// (`None`, by `#[serde(default)]`) stays distinct from `null`.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// Writes a TypeScript `number` as JavaScript does: an integral value without a fraction
/// (`15000`, not `15000.0`), so that it re-encodes as it came.
pub fn number<S: serde::Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    // Integers up to 2^53 are exact in an f64.
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

/// [`number`] for an optional field.
pub fn optional_number<S: serde::Serializer>(
    value: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    /// An `f64` written by [`number`].
    struct Number(f64);
    impl serde::Serialize for Number {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            number(&self.0, serializer)
        }
    }
    match value {
        Some(value) => serializer.serialize_some(&Number(*value)),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversion_error_names_the_type_and_the_value() {
        let e = ConversionError::new("Limit", &101_u64, "greater than 100");
        assert_eq!(e.to_string(), "invalid Limit 101: greater than 100");
    }

    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        let json = |v: f64| {
            let mut out = Vec::new();
            number(&v, &mut serde_json::Serializer::new(&mut out)).expect("writes");
            String::from_utf8(out).expect("utf-8")
        };
        assert_eq!(json(15000.0), "15000");
        assert_eq!(json(0.5), "0.5");
    }

    #[test]
    fn defaults_are_the_constant() {
        assert!(default_bool::<true>());
        assert_eq!(default_u64::<u8, 50>(), 50);
        assert_eq!(default_i64::<i32, -3>(), -3);
    }
}
