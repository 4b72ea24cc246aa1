//! `kubepkg list`: the latest revision of each release, decoding one record per release.
//! By default, like Helm, only deployed and failed releases are shown, sorted by name.

use std::process::ExitCode;

use anyhow::Result;
use kubepkg_release::Status;
use kubepkg_release::record::Release;

use super::releases::{self, with_releases};
use crate::cli::ListArgs;

/// Go's `2006-01-02 15:04:05.999999999 -0700 MST` in UTC, as `helm list` prints UPDATED.
fn updated(r: &Release) -> String {
    match r.info.as_ref().and_then(|i| i.last_deployed) {
        Some(t) => {
            let z = t.to_zoned(jiff::tz::TimeZone::UTC);
            let frac = match t.subsec_nanosecond() {
                0 => String::new(),
                n => format!(".{n:09}").trim_end_matches('0').to_string(),
            };
            format!("{}{frac} +0000 UTC", z.strftime("%Y-%m-%d %H:%M:%S"))
        }
        None => String::new(),
    }
}

pub fn run(args: ListArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        let scope = if args.all_namespaces {
            None
        } else {
            Some(ns.as_str())
        };
        let mut list = with_releases!(&cluster, scope, |rel| rel.store.list_latest().await?);
        if !args.all {
            // Helm's default state mask: deployed and failed.
            list.retain(|r| matches!(r.status(), Status::Deployed | Status::Failed));
        }
        // Helm sorts by name (stable), so across namespaces equal names keep namespace order.
        list.sort_by(|a, b| a.name.cmp(&b.name));
        let rows: Vec<serde_json::Value> = list
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
        match args.output.as_str() {
            "json" => println!("{}", serde_json::Value::Array(rows)),
            "yaml" => print!(
                "{}",
                kubepkg_yaml::to_yaml(&releases::from_json(&serde_json::Value::Array(rows))?)
                    .map_err(|e| anyhow::anyhow!("{e}"))?
            ),
            _ => {
                let cols = [
                    "name",
                    "namespace",
                    "revision",
                    "updated",
                    "status",
                    "chart",
                    "app_version",
                ];
                let head = [
                    "NAME",
                    "NAMESPACE",
                    "REVISION",
                    "UPDATED",
                    "STATUS",
                    "CHART",
                    "APP VERSION",
                ];
                let widths: Vec<usize> = (0..cols.len())
                    .map(|i| {
                        rows.iter()
                            .map(|r| r[cols[i]].as_str().unwrap_or("").len())
                            .chain([head[i].len()])
                            .max()
                            .unwrap_or(0)
                    })
                    .collect();
                let line = |vals: Vec<&str>| {
                    vals.iter()
                        .enumerate()
                        .map(|(i, v)| {
                            if i + 1 == vals.len() {
                                v.to_string()
                            } else {
                                format!("{v:<w$}\t", w = widths[i])
                            }
                        })
                        .collect::<String>()
                };
                println!("{}", line(head.to_vec()));
                for r in &rows {
                    println!(
                        "{}",
                        line(cols.iter().map(|c| r[*c].as_str().unwrap_or("")).collect())
                    );
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}
