//! What Helm prints for the release verbs, byte for byte, as strings: the result of
//! `install`/`upgrade`/`test` ([`release`]), `status` ([`status`]), `list` ([`list`],
//! [`list_names`]), `history` ([`history`]) and `get values|metadata|all|manifest|hooks|notes`,
//! each as a table (uitable's layout, [`table`]) or as `-o json` / `-o yaml` (Go's
//! `encoding/json` and Helm's YAML writer). Times are Go's forms ([`time`]), in local time
//! as Helm prints them. The CLI only writes these strings out; the cluster parity tests
//! compare them with real `helm`.

pub mod table;
pub mod time;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::query::Resources;
use crate::record::{Hook, HookEvent, Release};

/// An output format (`-o`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Table,
    Json,
    Yaml,
}

impl Format {
    /// `table`, `json` or `yaml` (Helm's error text otherwise).
    pub fn parse(s: &str) -> Result<Format, OutputError> {
        match s {
            "table" => Ok(Format::Table),
            "json" => Ok(Format::Json),
            "yaml" => Ok(Format::Yaml),
            other => Err(OutputError::InvalidFormat(other.to_string())),
        }
    }
}

/// Why something could not be printed.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// `-o` names no format (Helm's text).
    #[error("invalid format type {0:?}")]
    InvalidFormat(String),
    #[error(transparent)]
    Record(#[from] crate::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The YAML writer refused the value (its message).
    #[error("{0}")]
    Yaml(String),
}

/// JSON on one line (and a newline), as Helm's `-o json` writes it.
pub fn json_line(v: &Value) -> String {
    format!("{v}\n")
}

/// `v` as Helm's `-o yaml` writes it.
pub fn yaml(v: &Value) -> Result<String, OutputError> {
    let value = kubepkg_yaml::json::from_json(&v.to_string())
        .map_err(|e| OutputError::Yaml(e.to_string()))?;
    kubepkg_yaml::to_yaml(&value).map_err(|e| OutputError::Yaml(e.to_string()))
}

/// [`json_line`] or [`yaml`] (a table format has no structured form: JSON).
fn structured(format: Format, v: &Value) -> Result<String, OutputError> {
    match format {
        Format::Yaml => yaml(v),
        Format::Json | Format::Table => Ok(json_line(v)),
    }
}

/// Values as `helm get values` writes YAML (an empty map: `null`, as Helm's nil map).
pub fn values_yaml(v: &Value) -> Result<String, OutputError> {
    if v.as_object().is_some_and(|m| m.is_empty()) {
        return Ok("null\n".into());
    }
    yaml(v)
}

/// `v` with every map's keys in sorted order, as Go's `encoding/json` writes maps.
pub fn go_sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, go_sorted(v)))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.into_iter().map(go_sorted).collect()),
        other => other,
    }
}

fn record_json(r: &Release) -> Result<Value, OutputError> {
    Ok(serde_json::from_slice(&crate::codec::to_json(r)?)?)
}

fn test_hooks(r: &Release) -> impl Iterator<Item = &Hook> {
    r.hooks
        .iter()
        .filter(|h| h.events.contains(&HookEvent::Test))
}

/// A release as `helm install`, `helm upgrade` and `helm test` print it: the record as JSON
/// or YAML, or the status text (after a dry run also the hooks and the manifest).
pub fn release(r: &Release, format: Format) -> Result<String, OutputError> {
    match format {
        Format::Json => Ok(format!(
            "{}\n",
            String::from_utf8_lossy(&crate::codec::to_json(r)?)
        )),
        Format::Yaml => yaml(&record_json(r)?),
        Format::Table => {
            let info = r.info.clone().unwrap_or_default();
            let mut s = format!(
                "NAME: {}\nLAST DEPLOYED: {}\nNAMESPACE: {}\nSTATUS: {}\nREVISION: {}\n",
                r.name,
                time::ansic(info.last_deployed),
                r.namespace,
                info.status,
                r.version
            );
            let tests: Vec<&Hook> = test_hooks(r).collect();
            if tests.is_empty() {
                s.push_str("TEST SUITE: None\n");
            }
            for h in tests {
                s.push_str(&format!(
                    "TEST SUITE:     {}\nLast Started:   {}\nLast Completed: {}\nPhase:          {}\n",
                    h.name,
                    time::ansic(h.last_run.started_at),
                    time::ansic(h.last_run.completed_at),
                    h.last_run.phase
                ));
            }
            if info.description.eq_ignore_ascii_case("Dry run complete") {
                s.push_str("HOOKS:\n");
                for h in &r.hooks {
                    s.push_str(&format!("---\n# Source: {}\n{}\n", h.path, h.manifest));
                }
                s.push_str(&format!("MANIFEST:\n{}\n", r.manifest));
            }
            if !info.notes.is_empty() {
                s.push_str(&format!("NOTES:\n{}\n", info.notes.trim()));
            }
            Ok(s)
        }
    }
}

/// The first lines of `helm status` (`metadata`: also the chart's name and versions, as
/// `helm get all` prints them).
fn header(r: &Release, metadata: bool) -> String {
    let info = r.info.clone().unwrap_or_default();
    let mut s = format!("NAME: {}\n", r.name);
    if let Some(t) = info.last_deployed {
        s.push_str(&format!("LAST DEPLOYED: {}\n", time::ansic(Some(t))));
    }
    s.push_str(&format!("NAMESPACE: {}\n", r.namespace));
    s.push_str(&format!("STATUS: {}\n", info.status));
    s.push_str(&format!("REVISION: {}\n", r.version));
    if metadata {
        let m = r
            .chart
            .as_ref()
            .and_then(|c| c.metadata.clone())
            .unwrap_or_default();
        s.push_str(&format!("CHART: {}\n", m.name));
        s.push_str(&format!("VERSION: {}\n", m.version));
        s.push_str(&format!("APP_VERSION: {}\n", m.app_version));
    }
    s.push_str(&format!("DESCRIPTION: {}\n", info.description));
    s
}

/// The TEST SUITE lines of `helm status`: each test hook that has run, or `None`.
fn test_suite(r: &Release) -> String {
    let tests: Vec<&Hook> = test_hooks(r).collect();
    if tests.is_empty() {
        return "TEST SUITE: None\n".into();
    }
    let mut s = String::new();
    for h in tests {
        let Some(started) = h.last_run.started_at else {
            continue;
        };
        s.push_str(&format!(
            "TEST SUITE:     {}\nLast Started:   {}\nLast Completed: {}\nPhase:          {}\n",
            h.name,
            time::ansic(Some(started)),
            time::ansic(h.last_run.completed_at),
            h.last_run.phase
        ));
    }
    s
}

/// `helm status`: the record without its chart, with `info.resources` (the live objects,
/// [`crate::query::resources`] as plain objects), or the status text with the RESOURCES
/// section (the same read as server-side Tables), the test suite and the notes.
pub fn status(r: &Release, resources: &Resources, format: Format) -> Result<String, OutputError> {
    if format != Format::Table {
        let mut v = record_json(r)?;
        if let Some(m) = v.as_object_mut() {
            m.shift_remove("chart");
            if !resources.is_empty()
                && let Some(info) = m.get_mut("info").and_then(Value::as_object_mut)
            {
                let map: Map<String, Value> = resources
                    .iter()
                    .map(|(k, objs)| {
                        // Unstructured objects: Go writes their keys sorted.
                        (
                            k.clone(),
                            Value::Array(objs.iter().cloned().map(go_sorted).collect()),
                        )
                    })
                    .collect();
                info.insert("resources".into(), Value::Object(map));
            }
        }
        return structured(format, &v);
    }
    let info = r.info.clone().unwrap_or_default();
    let mut s = header(r, false);
    if !resources.is_empty() {
        let mut buf = String::new();
        let mut last_columns = None;
        for (kind, tables) in resources {
            buf.push_str(&format!("==> {kind}\n"));
            for t in tables {
                if let Some(text) = table::server_table(t, &mut last_columns) {
                    buf.push_str(&text);
                }
            }
            buf.push('\n');
        }
        s.push_str(&format!("RESOURCES:\n{buf}\n"));
    }
    s.push_str(&test_suite(r));
    if !info.notes.is_empty() {
        s.push_str(&format!("NOTES:\n{}\n", info.notes.trim()));
    }
    Ok(s)
}

/// `helm list`: one row per release (`--no-headers`: without the header row). Helm ends
/// the table with a newline even when it has no rows.
pub fn list(releases: &[Release], format: Format, no_headers: bool) -> Result<String, OutputError> {
    let updated = |r: &Release| {
        r.info
            .as_ref()
            .and_then(|i| i.last_deployed)
            .map(time::go_string)
            .unwrap_or_default()
    };
    if format != Format::Table {
        let rows: Vec<Value> = releases
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name,
                    "namespace": r.namespace,
                    "revision": r.version.to_string(),
                    "updated": updated(r),
                    "status": r.status().to_string(),
                    "chart": r.chart_label(),
                    "app_version": r.app_version(),
                })
            })
            .collect();
        return structured(format, &Value::Array(rows));
    }
    let mut rows = Vec::new();
    if !no_headers {
        rows.push(table::header_row(&[
            "NAME",
            "NAMESPACE",
            "REVISION",
            "UPDATED",
            "STATUS",
            "CHART",
            "APP VERSION",
        ]));
    }
    for r in releases {
        rows.push(vec![
            r.name.clone(),
            r.namespace.clone(),
            r.version.to_string(),
            updated(r),
            r.status().to_string(),
            r.chart_label(),
            r.app_version().to_string(),
        ]);
    }
    let text = table::uitable(&rows);
    Ok(if text.is_empty() { "\n".into() } else { text })
}

/// `helm list -q`: the names only (a JSON or YAML list, or one per line).
pub fn list_names(releases: &[Release], format: Format) -> Result<String, OutputError> {
    let names: Vec<&str> = releases.iter().map(|r| r.name.as_str()).collect();
    match format {
        Format::Json => Ok(format!("{}\n", serde_json::to_string(&names)?)),
        Format::Yaml => yaml(&serde_json::json!(names)),
        Format::Table => Ok(names.iter().map(|n| format!("{n}\n")).collect()),
    }
}

/// `helm history`: one row per revision, oldest first (JSON in Helm's field order).
pub fn history(revisions: &[Release], format: Format) -> Result<String, OutputError> {
    if format != Format::Table {
        let rows: Vec<Value> = revisions
            .iter()
            .map(|r| {
                let info = r.info.clone().unwrap_or_default();
                let mut row = Map::new();
                row.insert("revision".into(), r.version.into());
                row.insert(
                    "updated".into(),
                    info.last_deployed
                        .map(time::go_json)
                        .unwrap_or_default()
                        .into(),
                );
                row.insert("status".into(), info.status.to_string().into());
                row.insert("chart".into(), r.chart_label().into());
                row.insert("app_version".into(), r.app_version().into());
                row.insert("description".into(), info.description.into());
                Value::Object(row)
            })
            .collect();
        return structured(format, &Value::Array(rows));
    }
    let mut rows = vec![table::header_row(&[
        "REVISION",
        "UPDATED",
        "STATUS",
        "CHART",
        "APP VERSION",
        "DESCRIPTION",
    ])];
    for r in revisions {
        let info = r.info.clone().unwrap_or_default();
        rows.push(vec![
            r.version.to_string(),
            time::ansic(info.last_deployed.or(Some(time::go_zero()))),
            info.status.to_string(),
            r.chart_label(),
            r.app_version().to_string(),
            info.description,
        ]);
    }
    Ok(table::uitable(&rows))
}

/// `helm get values`: the user-supplied values, or (`computed`) the computed ones; with no
/// user-supplied values `-o json` prints Helm's nil map, `null`.
pub fn values(
    values: &Map<String, Value>,
    computed: bool,
    format: Format,
) -> Result<String, OutputError> {
    let v = go_sorted(Value::Object(values.clone()));
    match format {
        Format::Json if !computed && values.is_empty() => Ok("null\n".into()),
        Format::Json => Ok(json_line(&v)),
        Format::Yaml => values_yaml(&v),
        Format::Table => Ok(format!(
            "{}\n{}",
            if computed {
                "COMPUTED VALUES:"
            } else {
                "USER-SUPPLIED VALUES:"
            },
            values_yaml(&v)?
        )),
    }
}

/// `helm get metadata`: the chart's identity, annotations and dependencies, the storage
/// `labels` and the revision's state; `-o json|yaml` as Helm's `Metadata` struct.
pub fn metadata(
    r: &Release,
    labels: &BTreeMap<String, String>,
    format: Format,
) -> Result<String, OutputError> {
    let m = r
        .chart
        .as_ref()
        .and_then(|c| c.metadata.clone())
        .unwrap_or_default();
    let annotations = m.annotations.clone().unwrap_or_default();
    let info = r.info.clone().unwrap_or_default();
    let deployed_at = time::rfc3339_utc(info.last_deployed);
    if format == Format::Table {
        let set = |m: &BTreeMap<String, String>| {
            m.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut deps: Vec<&str> = m.deps().map(|d| d.name.as_str()).collect();
        deps.sort_unstable();
        let mut s = format!(
            "NAME: {}\nCHART: {}\nVERSION: {}\nAPP_VERSION: {}\nANNOTATIONS: {}\nLABELS: {}\n\
             DEPENDENCIES: {}\nNAMESPACE: {}\nREVISION: {}\nSTATUS: {}\nDEPLOYED_AT: {deployed_at}\n",
            r.name,
            m.name,
            m.version,
            m.app_version,
            set(&annotations),
            set(labels),
            deps.join(","),
            r.namespace,
            r.version,
            info.status,
        );
        match r.apply_method.as_str() {
            "" => {}
            "ssa" => s.push_str("APPLY_METHOD: server-side apply\n"),
            "csa" => s.push_str("APPLY_METHOD: client-side apply\n"),
            other => s.push_str(&format!("APPLY_METHOD: {other}\n")),
        }
        return Ok(s);
    }
    let mut v = Map::new();
    v.insert("name".into(), r.name.clone().into());
    v.insert("chart".into(), m.name.clone().into());
    v.insert("version".into(), m.version.clone().into());
    v.insert("appVersion".into(), m.app_version.clone().into());
    if !annotations.is_empty() {
        v.insert("annotations".into(), serde_json::to_value(&annotations)?);
    }
    if !labels.is_empty() {
        v.insert("labels".into(), serde_json::to_value(labels)?);
    }
    if !m.dependencies.is_empty() {
        v.insert(
            "dependencies".into(),
            serde_json::to_value(&m.dependencies)?,
        );
    }
    v.insert("namespace".into(), r.namespace.clone().into());
    v.insert("revision".into(), r.version.into());
    v.insert("status".into(), info.status.to_string().into());
    v.insert("deployedAt".into(), deployed_at.into());
    if !r.apply_method.is_empty() {
        v.insert("applyMethod".into(), r.apply_method.clone().into());
    }
    structured(format, &Value::Object(v))
}

/// `helm get all`: the status with chart metadata, the user-supplied and the `computed`
/// values, the hooks, the manifest and the notes of a stored revision.
pub fn get_all(r: &Release, computed: &Map<String, Value>) -> Result<String, OutputError> {
    let mut s = header(r, true);
    s.push_str(&test_suite(r));
    s.push_str("USER-SUPPLIED VALUES:\n");
    s.push_str(&values_yaml(&go_sorted(Value::Object(r.config.clone())))?);
    s.push_str("\nCOMPUTED VALUES:\n");
    s.push_str(&values_yaml(&go_sorted(Value::Object(computed.clone())))?);
    s.push_str("\nHOOKS:\n");
    s.push_str(&hooks(r));
    s.push_str(&format!("MANIFEST:\n{}\n", r.manifest));
    let notes = r.info.as_ref().map(|i| i.notes.trim()).unwrap_or_default();
    if !notes.is_empty() {
        s.push_str(&format!("NOTES:\n{notes}\n"));
    }
    Ok(s)
}

/// `helm get manifest`.
pub fn manifest(r: &Release) -> String {
    format!("{}\n", r.manifest)
}

/// `helm get hooks`: each hook's manifest under its source.
pub fn hooks(r: &Release) -> String {
    r.hooks
        .iter()
        .map(|h| format!("---\n# Source: {}\n{}\n", h.path, h.manifest))
        .collect()
}

/// `helm get notes`.
pub fn notes(r: &Release) -> String {
    let notes = r
        .info
        .as_ref()
        .map(|i| i.notes.as_str())
        .unwrap_or_default();
    format!("NOTES:\n{notes}\n")
}

#[cfg(test)]
mod tests;
