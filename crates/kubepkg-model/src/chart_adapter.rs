//! The seam between the package layer's plain JSON values and the chart layer's value model.
//!
//! The package layer keeps values as `serde_json` data (easy to record, diff and explain); the
//! chart layer (`kubepkg-chart`) renders over [`kubepkg_value::Value`], Go's `interface{}` as Helm
//! sees it. Numbers keep their Go type across the seam: a YAML number is a `float64`, a `--set`
//! integer an `int64`. Once the chart crate publishes its coalescing and rendering entry points,
//! the orchestrator's cluster side calls them with [`to_chart_value`]'s output.

use std::collections::BTreeMap;
use std::sync::Arc;

use kubepkg_value::{ElemType, Value as GoValue, map_read};
use serde_json::{Map, Number, Value};

/// JSON values → the chart layer's values (`f64` → `float64`, integers → `int64`).
pub fn to_chart_value(v: &Value) -> GoValue {
    match v {
        Value::Null => GoValue::Nil,
        Value::Bool(b) => GoValue::Bool(*b),
        Value::Number(n) => {
            if n.is_f64() {
                GoValue::Float(n.as_f64().unwrap_or_default())
            } else if let Some(i) = n.as_i64() {
                GoValue::Int64(i)
            } else {
                GoValue::Uint(n.as_u64().unwrap_or_default())
            }
        }
        Value::String(s) => GoValue::str(s),
        Value::Array(items) => GoValue::List(
            Arc::new(items.iter().map(to_chart_value).collect()),
            ElemType::Interface,
        ),
        Value::Object(m) => GoValue::map(to_chart_map(m)),
    }
}

/// A JSON map → the chart layer's map.
pub fn to_chart_map(m: &Map<String, Value>) -> BTreeMap<String, GoValue> {
    m.iter()
        .map(|(k, v)| (k.clone(), to_chart_value(v)))
        .collect()
}

/// The chart layer's values → JSON (for explaining chart defaults and recording effective values).
/// Go structs and times have no values-file form and become `null`.
pub fn from_chart_value(v: &GoValue) -> Value {
    match v {
        GoValue::Nil => Value::Null,
        GoValue::Bool(b) => Value::Bool(*b),
        GoValue::Int(i) | GoValue::Int64(i) => Value::from(*i),
        GoValue::Uint(u) => Value::from(*u),
        GoValue::Uint8(u) => Value::from(*u),
        GoValue::Float(f) => Number::from_f64(*f)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        GoValue::String(s) => Value::String(s.to_string()),
        GoValue::Bytes(b) | GoValue::NonUtf8String(b) => {
            Value::String(String::from_utf8_lossy(b).into_owned())
        }
        GoValue::List(items, _) => Value::Array(items.iter().map(from_chart_value).collect()),
        GoValue::Map(m) => Value::Object(
            map_read(m)
                .iter()
                .map(|(k, v)| (k.clone(), from_chart_value(v)))
                .collect(),
        ),
        GoValue::Time(_) | GoValue::Object(_) => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_keep_their_go_type_across_the_seam() {
        let v = json!({"file": 2.0, "set": 2, "list": [1.5, "a", null], "m": {"b": true}});
        let g = to_chart_value(&v);
        let GoValue::Map(m) = &g else {
            panic!("not a map")
        };
        let m = map_read(m);
        assert!(matches!(m["file"], GoValue::Float(f) if f == 2.0));
        assert!(matches!(m["set"], GoValue::Int64(2)));
        drop(m);
        assert_eq!(from_chart_value(&g), v);
    }
}
