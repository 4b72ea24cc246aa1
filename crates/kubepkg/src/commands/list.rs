//! `kubepkg list`: the latest revision of each release, decoding one record per release,
//! printed byte for byte as `helm list` prints it. By default, like Helm, only deployed and
//! failed releases are shown, sorted by name. `kubepkg list --packages` lists packages.

use std::process::ExitCode;

use anyhow::Result;
use kubepkg_release::Status;
use kubepkg_release::record::Release;

use super::releases::{self, with_releases};
use crate::cli::ListArgs;

/// Go's `time.Time.String()` (`2006-01-02 15:04:05.999999999 -0700 MST`) in local time, as
/// `helm list` prints UPDATED.
pub fn go_time(t: jiff::Timestamp) -> String {
    let z = t.to_zoned(jiff::tz::TimeZone::system());
    let frac = match t.subsec_nanosecond() {
        0 => String::new(),
        n => format!(".{n:09}").trim_end_matches('0').to_string(),
    };
    format!(
        "{}{frac} {}",
        z.strftime("%Y-%m-%d %H:%M:%S"),
        z.strftime("%z %Z")
    )
}

fn updated(r: &Release) -> String {
    r.info
        .as_ref()
        .and_then(|i| i.last_deployed)
        .map(go_time)
        .unwrap_or_default()
}

/// A table as Helm prints one (gosuri/uitable with its defaults): every cell padded with
/// spaces to its column's width (the last one too), cells joined by a tab, one line per row.
pub fn helm_table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        out.push_str(&cells.join("\t"));
        out.push('\n');
    }
    out
}

pub fn run(args: ListArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        if args.packages {
            return super::package::list(&cluster, args.all_namespaces, &args.output).await;
        }
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
            "table" => {
                let cols = [
                    "name",
                    "namespace",
                    "revision",
                    "updated",
                    "status",
                    "chart",
                    "app_version",
                ];
                let mut table = vec![
                    [
                        "NAME",
                        "NAMESPACE",
                        "REVISION",
                        "UPDATED",
                        "STATUS",
                        "CHART",
                        "APP VERSION",
                    ]
                    .map(String::from)
                    .to_vec(),
                ];
                for r in &rows {
                    table.push(
                        cols.iter()
                            .map(|c| r[*c].as_str().unwrap_or("").to_string())
                            .collect(),
                    );
                }
                print!("{}", helm_table(&table));
            }
            other => anyhow::bail!("invalid format type {other:?}"),
        }
        Ok(ExitCode::SUCCESS)
    })
}
