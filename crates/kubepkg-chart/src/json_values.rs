//! Plain JSON values (`serde_json`) and the chart layer's Go values ([`kubepkg_value::Value`],
//! Go's `interface{}` as Helm sees it), each way. Numbers keep their Go type across: a JSON
//! float is a `float64`, a JSON integer an `int64`. The package layer crosses here
//! (`kubepkg_model::chart_adapter`), and so does `Chart.yaml`'s `import-values` when a
//! dependency is written to or read from JSON ([`crate::metadata`]).

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

/// `#[serde(with)]` for a list of Go values in a JSON form: written through
/// [`from_chart_value`], read through [`to_chart_value`] (`null` is an empty list).
pub mod go_values {
    use super::*;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[GoValue], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(from_chart_value))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<GoValue>, D::Error> {
        Ok(Option::<Vec<Value>>::deserialize(d)?
            .unwrap_or_default()
            .iter()
            .map(to_chart_value)
            .collect())
    }
}
