//! `kubepkg get all|values|manifest|hooks|notes NAME`: parts of a stored revision, as Helm
//! prints them (`values --all` coalesces the stored chart's defaults under the user values).

use std::process::ExitCode;

use anyhow::Result;
use serde_json::Value;

use super::releases::{self, with_releases};
use crate::cli::GetArgs;

pub fn run(args: GetArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        let r = with_releases!(&cluster, Some(ns.as_str()), |rel| match args.revision {
            Some(v) => rel.store.get(&args.name, v).await?,
            None => rel
                .store
                .last(&args.name)
                .await?
                .ok_or_else(|| anyhow::anyhow!("release: not found"))?,
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
                "unknown `get` subject {other:?}: use all, values, manifest, hooks or notes"
            ),
        }
        Ok(ExitCode::SUCCESS)
    })
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
