//! `kubepkg get all|values|manifest|hooks|notes|metadata NAME`: parts of a stored revision, as Helm
//! prints them (`values --all` coalesces the stored chart's defaults under the user values).

use std::process::ExitCode;

use anyhow::Result;
use serde_json::Value;

use std::collections::BTreeMap;

use kubepkg_release::Driver;
use kubepkg_release::record::Release;
use kubepkg_release::storage::storage_key;

use super::releases::{self, with_releases};
use crate::cli::GetArgs;

pub fn run(args: GetArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        // The record, and its storage labels (`get metadata` prints them).
        let (r, labels) = with_releases!(&cluster, Some(ns.as_str()), |rel| {
            let r = match args.revision {
                Some(v) => rel.store.get(&args.name, v).await?,
                None => rel
                    .store
                    .last(&args.name)
                    .await?
                    .ok_or_else(|| anyhow::anyhow!("release: not found"))?,
            };
            // Helm reads the latest revision through a storage query, which keeps every
            // label; a `--revision` read keeps only the custom ones.
            let labels = if args.revision.is_some() {
                r.labels.clone()
            } else {
                rel.store
                    .driver
                    .get(&storage_key(&r.name, r.version))
                    .await?
                    .map(|o| o.labels)
                    .unwrap_or_default()
            };
            (r, labels)
        });
        match args.what.as_str() {
            "values" => {
                let v = if args.all {
                    computed_values(&r)
                } else {
                    go_sorted(Value::Object(r.config.clone()))
                };
                match args.output.as_str() {
                    // No user-supplied values: Helm's nil map, `null`.
                    "json" if !args.all && r.config.is_empty() => println!("null"),
                    "json" => println!("{v}"),
                    "yaml" => print!("{}", values_yaml(&v)?),
                    "table" => {
                        if args.all {
                            println!("COMPUTED VALUES:");
                        } else {
                            println!("USER-SUPPLIED VALUES:");
                        }
                        print!("{}", values_yaml(&v)?);
                    }
                    other => anyhow::bail!("invalid format type {other:?}"),
                }
            }
            "all" => print!("{}", super::status::get_all(&r)?),
            "metadata" => print_metadata(&r, &labels, &args.output)?,
            "manifest" => println!("{}", r.manifest),
            "hooks" => {
                for h in &r.hooks {
                    println!("---\n# Source: {}\n{}", h.path, h.manifest);
                }
            }
            "notes" => {
                let notes = r.info.map(|i| i.notes).unwrap_or_default();
                println!("NOTES:\n{notes}");
            }
            other => anyhow::bail!(
                "unknown `get` subject {other:?}: use all, values, manifest, hooks, notes or metadata"
            ),
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// `helm get metadata`: the chart's identity, annotations and dependencies, the storage
/// labels and the revision's state; `-o json|yaml` as Helm's `Metadata` struct.
fn print_metadata(r: &Release, labels: &BTreeMap<String, String>, output: &str) -> Result<()> {
    let m = r
        .chart
        .as_ref()
        .and_then(|c| c.metadata.clone())
        .unwrap_or_default();
    let info = r.info.clone().unwrap_or_default();
    // Go's time.RFC3339 (whole seconds, UTC as the record carries it).
    let deployed_at = info
        .last_deployed
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| "0001-01-01T00:00:00Z".into());
    let set = |m: &BTreeMap<String, String>| {
        m.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    match output {
        "table" => {
            let mut deps: Vec<&str> = m.dependencies.iter().map(|d| d.name.as_str()).collect();
            deps.sort_unstable();
            println!("NAME: {}", r.name);
            println!("CHART: {}", m.name);
            println!("VERSION: {}", m.version);
            println!("APP_VERSION: {}", m.app_version);
            println!("ANNOTATIONS: {}", set(&m.annotations));
            println!("LABELS: {}", set(labels));
            println!("DEPENDENCIES: {}", deps.join(","));
            println!("NAMESPACE: {}", r.namespace);
            println!("REVISION: {}", r.version);
            println!("STATUS: {}", info.status);
            println!("DEPLOYED_AT: {deployed_at}");
            match r.apply_method.as_str() {
                "" => {}
                "ssa" => println!("APPLY_METHOD: server-side apply"),
                "csa" => println!("APPLY_METHOD: client-side apply"),
                other => println!("APPLY_METHOD: {other}"),
            }
        }
        "json" | "yaml" => {
            let mut v = serde_json::Map::new();
            v.insert("name".into(), r.name.clone().into());
            v.insert("chart".into(), m.name.clone().into());
            v.insert("version".into(), m.version.clone().into());
            v.insert("appVersion".into(), m.app_version.clone().into());
            if !m.annotations.is_empty() {
                v.insert("annotations".into(), serde_json::to_value(&m.annotations)?);
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
            let v = Value::Object(v);
            releases::print_json_or_yaml(output, &v)?;
        }
        other => anyhow::bail!("invalid format type {other:?}"),
    }
    Ok(())
}

/// The chart's defaults coalesced under the user-supplied values (`get values --all`).
pub(super) fn computed_values(r: &kubepkg_release::record::Release) -> Value {
    let defaults = r
        .chart
        .as_ref()
        .and_then(|c| c.values.clone())
        .unwrap_or_default();
    go_sorted(Value::Object(releases::coalesce(
        r.config.clone(),
        &defaults,
    )))
}

/// Values as `helm get values` writes YAML (an empty map: `null`, as Helm's nil map).
pub(super) fn values_yaml(v: &Value) -> Result<String> {
    if v.as_object().is_some_and(|m| m.is_empty()) {
        return Ok("null\n".into());
    }
    kubepkg_yaml::to_yaml(&releases::from_json(v)?).map_err(|e| anyhow::anyhow!("{e}"))
}

/// `v` with every map's keys in sorted order, as Go's `encoding/json` writes maps.
pub(super) fn go_sorted(v: Value) -> Value {
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
