//! JSON values compared as JSON Schema compares them: numbers by value (`1` equals `1.0`,
//! integers exactly however large), objects whatever their key order. One home for the
//! comparison, the runtime's argument checks and the generator.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// The order of two JSON numbers: exact for integers (any `i64` or `u64`), by `f64` value
/// otherwise; `None` when one is not a number `f64` can compare (never, for parsed JSON).
pub fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    let int = |n: &Number| n.as_i64().map(i128::from).or(n.as_u64().map(i128::from));
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// JSON equality with `1` equal to `1.0` (JSON Schema's `const`, `enum`, `uniqueItems`).
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_by_value_and_objects_by_members() {
        assert!(equal(&json!(1), &json!(1.0)));
        assert!(equal(
            &json!({"a": [1, 2.0], "b": null}),
            &json!({"b": null, "a": [1.0, 2]})
        ));
        assert!(!equal(&json!([1, 2]), &json!([2, 1])));
        assert!(!equal(&json!(1), &json!("1")));
        // Past 2^53, integers stay exact.
        let big = json!(9_007_199_254_740_993_u64);
        assert!(!equal(&big, &json!(9_007_199_254_740_992_u64)));
        assert_eq!(
            compare(&Number::from(u64::MAX), &Number::from(-1)),
            Some(Ordering::Greater)
        );
    }
}
