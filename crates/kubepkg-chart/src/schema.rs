//! `values.schema.json`: validation of the final values of a chart and of every subchart (its
//! values under its name), as Helm's `ValidateAgainstSchema` does. Messages list each chart by
//! name followed by one `- at '<pointer>': <problem>` line per violation.

use crate::chart::Chart;
use kubepkg_value::{Value, map_read};

/// A [`Value`] as JSON for the validator (integral floats become integers so `type: integer`
/// accepts them as Go's validator does).
pub fn value_to_json(v: &Value) -> serde_json::Value {
    kubepkg_value::walk::grow(|| value_to_json_inner(v))
}

fn value_to_json_inner(v: &Value) -> serde_json::Value {
    match v {
        Value::Nil => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) | Value::Int64(i) => serde_json::Value::from(*i),
        Value::Uint(u) => serde_json::Value::from(*u),
        Value::Uint8(u) => serde_json::Value::from(*u),
        Value::Float(f) => {
            if f.fract() == 0.0 && f.abs() < 9.2e18 {
                serde_json::Value::from(*f as i64)
            } else {
                serde_json::Number::from_f64(*f)
                    .map(serde_json::Value::Number)
                    .unwrap_or(serde_json::Value::Null)
            }
        }
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::Bytes(b) | Value::NonUtf8String(b) => {
            serde_json::Value::String(String::from_utf8_lossy(b).into_owned())
        }
        Value::List(items, _) => {
            serde_json::Value::Array(items.iter().map(value_to_json).collect())
        }
        Value::Map(m) => serde_json::Value::Object(
            map_read(m)
                .iter()
                .map(|(k, v)| (k.clone(), value_to_json(v)))
                .collect(),
        ),
        Value::Time(_) | Value::Object(_) => serde_json::Value::Null,
    }
}

/// The draft a `$schema` URL names, accepting the `https` and fragment-less spellings Go's
/// validator accepts; the `$schema` key is then removed so the validator does not reject it.
fn detect_draft(schema: &mut serde_json::Value) -> Option<jsonschema::Draft> {
    let obj = schema.as_object_mut()?;
    let url = obj.get("$schema")?.as_str()?.to_string();
    let draft = if url.contains("draft-04") {
        jsonschema::Draft::Draft4
    } else if url.contains("draft-06") {
        jsonschema::Draft::Draft6
    } else if url.contains("draft-07") {
        jsonschema::Draft::Draft7
    } else if url.contains("2019-09") {
        jsonschema::Draft::Draft201909
    } else {
        jsonschema::Draft::Draft202012
    };
    obj.remove("$schema");
    Some(draft)
}

/// The most compiled schemas kept; the cache starts over when full.
const VALIDATOR_CACHE_ENTRIES: usize = 64;

/// The compiled validator of a schema document, compiled once per process: a process that
/// renders many charts (the controller) validates the same few schemas again and again, and
/// compiling is the expensive part. Keyed by the document's SHA-256; failures are not kept.
fn validator(schema: &[u8]) -> Result<std::sync::Arc<jsonschema::Validator>, String> {
    use sha2::Digest as _;
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Cache = Mutex<HashMap<[u8; 32], Arc<jsonschema::Validator>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key: [u8; 32] = sha2::Sha256::digest(schema).into();
    if let Some(v) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(v.clone());
    }
    let compiled = Arc::new(compile(schema)?);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= VALIDATOR_CACHE_ENTRIES {
        cache.clear();
    }
    cache.insert(key, compiled.clone());
    Ok(compiled)
}

fn compile(schema: &[u8]) -> Result<jsonschema::Validator, String> {
    let mut schema: serde_json::Value =
        serde_json::from_slice(schema).map_err(|e| format!("invalid values.schema.json: {e}"))?;
    let mut opts = jsonschema::options()
        .with_base_uri("file:///values.schema.json")
        .with_retriever(crate::schema_refs::HelmLoader);
    if let Some(d) = detect_draft(&mut schema) {
        opts = opts.with_draft(d);
    }
    let validator = opts.build(&schema).map_err(|e| match e.kind() {
        // Helm's compiler: `failing loading "<url>": <why>`.
        jsonschema::error::ValidationErrorKind::Referencing(
            jsonschema::ReferencingError::Unretrievable { uri, source },
        ) => format!(
            "failing loading {}: {source}",
            kubepkg_gostd::strconv::quote(uri.split_once('#').map_or(uri.as_str(), |(u, _)| u))
        ),
        _ => format!("invalid values.schema.json: {e}"),
    })?;
    Ok(validator)
}

/// Validate `values` against one schema document; the text lists every violation.
pub fn validate_single(values: &Value, schema: &[u8]) -> Result<(), String> {
    let validator = validator(schema)?;
    let instance = value_to_json(values);
    let mut out = String::new();
    let mut missing: Option<(String, Vec<String>)> = None;
    let flush = |out: &mut String, missing: &mut Option<(String, Vec<String>)>| {
        if let Some((at, props)) = missing.take() {
            let list = props
                .iter()
                .map(|p| format!("'{p}'"))
                .collect::<Vec<_>>()
                .join(", ");
            let noun = if props.len() == 1 {
                "property"
            } else {
                "properties"
            };
            out.push_str(&format!("- at '{at}': missing {noun} {list}\n"));
        }
    };
    // santhosh-tekuri/jsonschema checks `type` first and stops at a value of the wrong type:
    // no further keyword (`enum`, `minimum`, …) is reported for it.
    let errors: Vec<_> = validator.iter_errors(&instance).collect();
    let mistyped: Vec<String> = errors
        .iter()
        .filter(|e| {
            matches!(
                e.kind(),
                jsonschema::error::ValidationErrorKind::Type { .. }
            )
        })
        .map(|e| e.instance_path().to_string())
        .collect();
    for e in errors {
        let at = e.instance_path().to_string();
        if !matches!(
            e.kind(),
            jsonschema::error::ValidationErrorKind::Type { .. }
        ) && mistyped.contains(&at)
        {
            continue;
        }
        if let jsonschema::error::ValidationErrorKind::Required { property } = e.kind() {
            let name = property
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| property.to_string());
            match &mut missing {
                Some((p, props)) if *p == at => props.push(name),
                _ => {
                    flush(&mut out, &mut missing);
                    missing = Some((at, vec![name]));
                }
            }
            continue;
        }
        flush(&mut out, &mut missing);
        out.push_str(&format!("- at '{at}': {}\n", helm_message(&e)));
    }
    flush(&mut out, &mut missing);
    if out.is_empty() { Ok(()) } else { Err(out) }
}

fn json_type(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

fn quoted(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

/// The wording of Go's `santhosh-tekuri/jsonschema` (Helm's validator) for common violations.
fn helm_message(e: &jsonschema::ValidationError<'_>) -> String {
    use jsonschema::error::{TypeKind, ValidationErrorKind as K};
    let inst = e.instance().as_ref();
    let len = || match inst {
        serde_json::Value::String(s) => s.chars().count(),
        serde_json::Value::Array(a) => a.len(),
        serde_json::Value::Object(o) => o.len(),
        _ => 0,
    };
    match e.kind() {
        K::Type { kind } => {
            let want = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(ts) => ts
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            format!("got {}, want {want}", json_type(inst))
        }
        K::Minimum { limit } => format!("minimum: got {inst}, want {limit}"),
        K::Maximum { limit } => format!("maximum: got {inst}, want {limit}"),
        K::ExclusiveMinimum { limit } => format!("exclusiveMinimum: got {inst}, want {limit}"),
        K::ExclusiveMaximum { limit } => format!("exclusiveMaximum: got {inst}, want {limit}"),
        K::MinLength { limit } => format!("minLength: got {}, want {limit}", len()),
        K::MaxLength { limit } => format!("maxLength: got {}, want {limit}", len()),
        K::MinItems { limit } => format!("minItems: got {}, want {limit}", len()),
        K::MaxItems { limit } => format!("maxItems: got {}, want {limit}", len()),
        K::MinProperties { limit } => format!("minProperties: got {}, want {limit}", len()),
        K::MaxProperties { limit } => format!("maxProperties: got {}, want {limit}", len()),
        K::Pattern { pattern } => format!("{} does not match pattern '{pattern}'", quoted(inst)),
        K::Enum { options } => match options.as_array() {
            Some(a) if a.len() == 1 => format!("value must be {}", quoted(&a[0])),
            Some(a) => format!(
                "value must be one of {}",
                a.iter().map(quoted).collect::<Vec<_>>().join(", ")
            ),
            None => e.to_string(),
        },
        K::Constant { expected_value } => format!("value must be {}", quoted(expected_value)),
        K::AdditionalProperties { unexpected } => format!(
            "additional properties {} not allowed",
            unexpected
                .iter()
                .map(|p| format!("'{p}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        K::Format { format } => format!("{} is not valid '{format}'", quoted(inst)),
        _ => e.to_string(),
    }
}

/// `ValidateAgainstSchema`: the chart's schema over `values`, then each subchart's over
/// `values[<subchart name>]`.
pub fn validate_chart(chart: &Chart, values: &Value) -> Result<(), String> {
    let mut sb = String::new();
    if let Some(schema) = &chart.schema
        && let Err(e) = validate_single(values, schema)
    {
        sb.push_str(&format!("{}:\n{e}", chart.name()));
    }
    for sub in &chart.dependencies {
        let raw = match values {
            Value::Map(m) => map_read(m).get(sub.name()).cloned(),
            _ => None,
        };
        match raw {
            None | Some(Value::Nil) => continue,
            Some(v @ Value::Map(_)) => {
                if let Err(e) = validate_chart(sub, &v) {
                    sb.push_str(&e);
                }
            }
            Some(other) => sb.push_str(&format!(
                "{}:\ninvalid type for values: expected object (map), got {}\n",
                sub.name(),
                other.type_name()
            )),
        }
    }
    if sb.is_empty() { Ok(()) } else { Err(sb) }
}
