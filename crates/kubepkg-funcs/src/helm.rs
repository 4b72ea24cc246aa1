//! Helm's own template functions (Helm 4 `pkg/engine`): YAML, JSON and TOML conversion with
//! Helm's error handling (`toYaml` swallows errors and returns `""`, `fromYaml` reports them
//! under an `Error` key, `toToml` returns the error text), `required` and `fail` (whose messages
//! Helm wraps in `HELM_ERR_START…HELM_ERR_END` markers that the engine strips when reporting),
//! and Helm 4's duration helpers over Go's `time.Duration`.

use std::collections::BTreeMap;
use std::sync::Arc;

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::{GoObject, Value};

use crate::args::{arg, s};
use crate::dates::{duration_string, parse_duration, round_duration};
use crate::f;

/// Helm's markers around `required`/`fail` messages (`warnWrap`).
pub const WARN_START: &str = "HELM_ERR_START";
/// See [`WARN_START`].
pub const WARN_END: &str = "HELM_ERR_END";

fn warn_wrap(msg: &str) -> String {
    format!("{WARN_START}{msg}{WARN_END}")
}

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("toYaml", [Any], |a| Ok(kubepkg_yaml::to_yaml(arg(a, 0))
            .map(trim_nl)
            .unwrap_or_default()
            .into())),
        f!("mustToYaml", [Any], |a| {
            kubepkg_yaml::to_yaml(arg(a, 0))
                .map(|y| Value::from(trim_nl(y)))
                .map_err(|e| e.to_string())
        }),
        f!("toYamlPretty", [Any], |a| {
            Ok(kubepkg_yaml::to_yaml_pretty(arg(a, 0))
                .map(trim_nl)
                .unwrap_or_default()
                .into())
        }),
        f!("fromYaml", [String], |a| Ok(map_or_error(
            kubepkg_yaml::from_yaml_map(s(a, 0)).map_err(|e| e.to_string())
        ))),
        f!("fromYamlArray", [String], |a| {
            Ok(list_or_error(
                kubepkg_yaml::from_yaml_array(s(a, 0)).map_err(|e| e.to_string()),
            ))
        }),
        // `toJson` and `mustToJson`: Helm's behave as Sprig's (`encoding`), which serve.
        f!("fromJson", [String], |a| {
            // Go keeps what it decoded and adds the error to the same map.
            let (m, err) = kubepkg_yaml::json::from_json_map_partial(s(a, 0));
            if let (Value::Map(m), Some(e)) = (&m, err) {
                kubepkg_value::map_write(m).insert("Error".into(), Value::from(e.to_string()));
            }
            Ok(m)
        }),
        f!("fromJsonArray", [String], |a| {
            Ok(list_or_error(
                kubepkg_yaml::json::from_json_array(s(a, 0)).map_err(|e| e.to_string()),
            ))
        }),
        f!("toToml", [Any], |a| to_toml(arg(a, 0), false)),
        f!("mustToToml", [Any], |a| to_toml(arg(a, 0), true)),
        f!("fromToml", [String], |a| Ok(map_or_error(
            kubepkg_yaml::toml::from_toml(s(a, 0)).map_err(|e| e.to_string())
        ))),
        f!("required", [String, Any], required),
        // Helm disables DNS lookups unless `--enable-dns` is given.
        f!("getHostByName", [String], |_| Ok("".into())),
        f!("fail", [String], |a| Err(warn_wrap(s(a, 0)))),
        f!("mustToDuration", [Any], |a| as_duration(arg(a, 0))
            .map(duration_value)),
        f!("durationSeconds", [Any], |a| Ok(Value::Float(
            as_duration(arg(a, 0))
                .map(|d| secs_f(d, 1e9))
                .unwrap_or(0.0)
        ))),
        f!("durationMilliseconds", [Any], |a| Ok(Value::Int64(
            as_duration(arg(a, 0)).map(|d| d / 1_000_000).unwrap_or(0)
        ))),
        f!("durationMicroseconds", [Any], |a| Ok(Value::Int64(
            as_duration(arg(a, 0)).map(|d| d / 1_000).unwrap_or(0)
        ))),
        f!("durationNanoseconds", [Any], |a| Ok(Value::Int64(
            as_duration(arg(a, 0)).unwrap_or(0)
        ))),
        f!("durationMinutes", [Any], |a| Ok(Value::Float(
            as_duration(arg(a, 0))
                .map(|d| secs_f(d, 6e10))
                .unwrap_or(0.0)
        ))),
        f!("durationHours", [Any], |a| Ok(Value::Float(
            as_duration(arg(a, 0))
                .map(|d| secs_f(d, 3.6e12))
                .unwrap_or(0.0)
        ))),
        f!("durationDays", [Any], |a| {
            Ok(Value::Float(
                as_duration(arg(a, 0))
                    .map(|d| secs_f(d, 3.6e12) / 24.0)
                    .unwrap_or(0.0),
            ))
        }),
        f!("durationWeeks", [Any], |a| {
            Ok(Value::Float(
                as_duration(arg(a, 0))
                    .map(|d| secs_f(d, 3.6e12) / 24.0 / 7.0)
                    .unwrap_or(0.0),
            ))
        }),
        f!("durationRoundTo", [Any, Any], |a| Ok(duration_value(
            round_or_truncate(a, true)
        ))),
        f!("durationTruncateTo", [Any, Any], |a| Ok(duration_value(
            round_or_truncate(a, false)
        ))),
    ]
}

/// Helm's `toToml` returns the encoder's error text as its result; `mustToToml` fails. A panic
/// inside BurntSushi's encoder (`kubepkg-yaml` marks it `panic: …`) fails both, as text/template
/// turns the panic into an error.
fn to_toml(v: &Value, must: bool) -> FuncResult {
    match kubepkg_yaml::toml::to_toml(v) {
        Ok(s) => Ok(s.into()),
        Err(e) => {
            let msg = e.to_string();
            match msg.strip_prefix("panic: ") {
                Some(p) => Err(p.to_string()),
                None if must => Err(msg),
                None => Ok(msg.into()),
            }
        }
    }
}

fn trim_nl(s: String) -> String {
    s.strip_suffix('\n').map(str::to_string).unwrap_or(s)
}

fn map_or_error(r: Result<Value, String>) -> Value {
    match r {
        Ok(v @ Value::Map(_)) => v,
        Ok(_) => Value::empty_map(),
        Err(e) => {
            let mut m = BTreeMap::new();
            m.insert("Error".to_string(), Value::from(e));
            Value::map(m)
        }
    }
}

fn list_or_error(r: Result<Value, String>) -> Value {
    match r {
        Ok(v @ Value::List(..)) => v,
        Ok(_) => Value::list(Vec::new()),
        Err(e) => Value::list(vec![Value::from(e)]),
    }
}

fn required(a: &[Value]) -> FuncResult {
    let v = arg(a, 1);
    match v {
        Value::Nil => Err(warn_wrap(s(a, 0))),
        Value::String(x) if x.is_empty() => Err(warn_wrap(s(a, 0))),
        other => Ok(other.clone()),
    }
}

/// Go's `time.Duration` as a template value: prints as `1h0m0s`, is an `int64` underneath.
#[derive(Debug)]
pub struct Duration(pub i64);

impl GoObject for Duration {
    fn type_name(&self) -> &str {
        "time.Duration"
    }
    fn kind(&self) -> &str {
        "int64"
    }
    fn field(&self, name: &str) -> Option<Value> {
        let d = self.0;
        Some(match name {
            "String" => duration_string(d).into(),
            "Hours" => Value::Float(secs_f(d, 3.6e12)),
            "Minutes" => Value::Float(secs_f(d, 6e10)),
            "Seconds" => Value::Float(secs_f(d, 1e9)),
            "Milliseconds" => Value::Int64(d / 1_000_000),
            "Microseconds" => Value::Int64(d / 1_000),
            "Nanoseconds" => Value::Int64(d),
            "Abs" => duration_value(if d == i64::MIN { i64::MAX } else { d.abs() }),
            _ => return None,
        })
    }
    fn has_method(&self, name: &str) -> bool {
        matches!(name, "Round" | "Truncate")
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        let m = match args.first() {
            Some(Value::Int(x) | Value::Int64(x)) => *x,
            _ => {
                return Err(format!(
                    "wrong type for value; expected time.Duration; got {}",
                    args.first().map(Value::type_name).unwrap_or_default()
                ));
            }
        };
        Ok(duration_value(if name == "Round" {
            round_duration(self.0, m)
        } else {
            truncate(self.0, m)
        }))
    }
    fn format_v(&self) -> String {
        duration_string(self.0)
    }
    fn to_plain(&self) -> Value {
        Value::Int64(self.0)
    }
    fn truthy(&self) -> bool {
        self.0 != 0
    }
}

fn duration_value(d: i64) -> Value {
    Value::Object(Arc::new(Duration(d)))
}

/// Go's float conversion of a duration: whole units plus the fractional remainder.
fn secs_f(d: i64, unit: f64) -> f64 {
    let u = unit as i64;
    (d / u) as f64 + (d % u) as f64 / unit
}

fn truncate(d: i64, m: i64) -> i64 {
    if m <= 0 { d } else { d - d % m }
}

fn round_or_truncate(a: &[Value], round: bool) -> i64 {
    let Ok(d) = as_duration(arg(a, 0)) else {
        return 0;
    };
    let Ok(m) = as_duration(arg(a, 1)) else {
        return d;
    };
    if round {
        round_duration(d, m)
    } else {
        truncate(d, m)
    }
}

const MAX_SECS: i64 = i64::MAX / 1_000_000_000;
const MIN_SECS: i64 = i64::MIN / 1_000_000_000;

fn from_secs_int(secs: i64) -> Result<i64, String> {
    if !(MIN_SECS..=MAX_SECS).contains(&secs) {
        return Err(format!("duration seconds overflow: {secs}"));
    }
    Ok(secs * 1_000_000_000)
}

fn from_secs_float(secs: f64) -> Result<i64, String> {
    let g = crate::gofmt::format_float_g;
    if !secs.is_finite() {
        return Err(format!("invalid duration seconds: {}", g(secs)));
    }
    if secs > i64::MAX as f64 / 1e9 || secs < i64::MIN as f64 / 1e9 {
        return Err(format!("duration seconds overflow: {}", g(secs)));
    }
    let nanos = secs * 1e9;
    if nanos > i64::MAX as f64 || nanos < i64::MIN as f64 {
        return Err(format!("duration nanoseconds overflow: {}", g(nanos)));
    }
    Ok(crate::cast::f64_to_i64(nanos))
}

/// Helm's `asDuration`: a duration, a Go duration string, a number of seconds (number or string).
fn as_duration(v: &Value) -> Result<i64, String> {
    match v {
        Value::Object(o) if o.type_name() == "time.Duration" => match o.to_plain() {
            Value::Int64(d) => Ok(d),
            _ => Ok(0),
        },
        Value::String(x) => {
            let t = x.trim();
            if t.is_empty() {
                return Err("empty duration".into());
            }
            if let Ok(d) = parse_duration(t) {
                return Ok(d);
            }
            if let Some(f) = crate::cast::parse_go_float(t) {
                return from_secs_float(f);
            }
            Err(format!(
                "could not parse duration {}",
                crate::gofmt::quote(x)
            ))
        }
        Value::Nil => Err("invalid duration".into()),
        Value::Int(i) | Value::Int64(i) => from_secs_int(*i),
        Value::Uint(u) => {
            if *u > MAX_SECS as u64 {
                Err(format!("duration seconds overflow: {u}"))
            } else {
                Ok(*u as i64 * 1_000_000_000)
            }
        }
        Value::Float(f) => from_secs_float(*f),
        other => Err(format!("unsupported duration type {}", other.type_name())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_and_fail_wrap_messages() {
        assert_eq!(
            required(&["need x".into(), Value::Nil]).unwrap_err(),
            "HELM_ERR_STARTneed xHELM_ERR_END"
        );
        assert_eq!(
            required(&["need x".into(), Value::Int(0)]).unwrap(),
            Value::Int(0)
        );
    }

    #[test]
    fn durations_accept_helm_forms() {
        assert_eq!(as_duration(&"90s".into()).unwrap(), 90_000_000_000);
        assert_eq!(as_duration(&"1.5".into()).unwrap(), 1_500_000_000);
        assert_eq!(as_duration(&Value::Int(2)).unwrap(), 2_000_000_000);
        assert_eq!(
            as_duration(&"x".into()).unwrap_err(),
            "could not parse duration \"x\""
        );
    }
}
