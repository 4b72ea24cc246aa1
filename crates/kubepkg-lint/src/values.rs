//! Helm's `values.yaml` rules (`rules/values.go`): the file exists (else an INFO), parses as
//! a map, and — user values coalesced over it, as `helm lint -f/--set` passes them — meets
//! the chart's own `values.schema.json`. Subcharts' values are not linted, as in Helm.

use std::path::Path;

use kubepkg_chart::values::{coalesce_tables, deep_copy};
use kubepkg_value::Value;

use crate::support::{Linter, Severity};

const VALUES_FILE: &str = "values.yaml";

/// Runs the values rules of the chart in `dir` with the user's values `overrides`.
pub fn lint(linter: &mut Linter, dir: &Path, overrides: &Value, skip_schema: bool) {
    let path = dir.join(VALUES_FILE);
    if !linter.rule(
        Severity::Info,
        VALUES_FILE,
        std::fs::metadata(&path)
            .is_err()
            .then(|| "file does not exist".to_string()),
    ) {
        return;
    }
    linter.check(
        Severity::Error,
        VALUES_FILE,
        validate(dir, &path, overrides, skip_schema),
    );
}

fn validate(dir: &Path, path: &Path, overrides: &Value, skip_schema: bool) -> Result<(), String> {
    let raw = std::fs::read(path).map_err(|e| e.to_string())?;
    let values = kubepkg_yaml::text(&raw)
        .and_then(kubepkg_yaml::read_values)
        .map_err(|e| {
            format!(
                "unable to parse YAML: {}",
                e.to_string().replace(
                    "Go value of type map[string]interface {}",
                    "Go value of type common.Values"
                )
            )
        })?;
    let schema = std::fs::read(dir.join("values.schema.json")).unwrap_or_default();
    if schema.is_empty() || skip_schema {
        return Ok(());
    }
    let merged = match deep_copy(overrides) {
        Value::Map(m) => m,
        _ => match Value::empty_map() {
            Value::Map(m) => m,
            _ => unreachable!("an empty map is a map"),
        },
    };
    if let Value::Map(src) = &values {
        coalesce_tables(&merged, src, false);
    }
    kubepkg_chart::schema::validate_single(&Value::Map(merged), &schema)
}
