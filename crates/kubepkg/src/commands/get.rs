//! `kubepkg get values|manifest|hooks|notes NAME`: parts of a stored revision, as Helm prints
//! them (`values --all` coalesces the stored chart's defaults under the user values).

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
                let mut values = r.config.clone();
                if args.all {
                    let defaults = r
                        .chart
                        .as_ref()
                        .and_then(|c| c.values.clone())
                        .unwrap_or_default();
                    values = releases::coalesce(values, &defaults);
                }
                let v = go_sorted(Value::Object(values));
                match args.output.as_str() {
                    "json" => println!("{v}"),
                    _ => {
                        if !args.all {
                            println!("USER-SUPPLIED VALUES:");
                        } else {
                            println!("COMPUTED VALUES:");
                        }
                        let text = if r.config.is_empty() && !args.all {
                            "null\n".to_string()
                        } else {
                            kubepkg_yaml::to_yaml(&releases::from_json(&v)?)
                                .map_err(|e| anyhow::anyhow!("{e}"))?
                        };
                        print!("{text}");
                    }
                }
            }
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
                "unknown `get` subject {other:?}: use values, manifest, hooks or notes"
            ),
        }
        Ok(ExitCode::SUCCESS)
    })
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
