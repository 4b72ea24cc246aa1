//! `kubepkg history NAME` and `kubepkg status NAME`: the package NAME when one has revision
//! records in the namespace (see [`super::package::resolve`]), else the Helm release NAME,
//! printed byte for byte as `helm history` / `helm status` print it.

use std::process::ExitCode;

use anyhow::Result;
use kubepkg_kube::Cluster;
use kubepkg_release::record::Release;

use super::list::helm_table;
use super::package;
use super::releases::{self, with_releases};
use crate::cli::{QueryArgs, ReleaseQueryArgs};

pub fn run(args: QueryArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.query.cluster).await?;
        if package::resolve(&cluster, &args.query.name, args.target).await? {
            return package::history(&cluster, &args.query.name, &args.query.output).await;
        }
        release_history(&cluster, &args.query).await
    })
}

pub fn status(args: QueryArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.query.cluster).await?;
        if package::resolve(&cluster, &args.query.name, args.target).await? {
            return package::status(&cluster, &args.query.name, &args.query.output).await;
        }
        release_status(&cluster, &args.query).await
    })
}

/// One row of `helm history`, in Helm's JSON field order.
fn history_row(r: &Release) -> serde_json::Value {
    let info = r.info.clone().unwrap_or_default();
    let mut row = serde_json::Map::new();
    row.insert("revision".into(), r.version.into());
    row.insert(
        "updated".into(),
        info.last_deployed
            .map(go_time_json)
            .unwrap_or_default()
            .into(),
    );
    row.insert("status".into(), info.status.to_string().into());
    row.insert("chart".into(), r.chart_label().into());
    row.insert("app_version".into(), r.app_version().into());
    row.insert("description".into(), info.description.into());
    serde_json::Value::Object(row)
}

/// A time as Go's `time.Time` marshals to JSON (RFC 3339 with nanoseconds, trailing zeros
/// dropped), in UTC as Helm's records carry it.
pub fn go_time_json(t: jiff::Timestamp) -> String {
    let z = t.to_zoned(jiff::tz::TimeZone::system());
    let frac = match t.subsec_nanosecond() {
        0 => String::new(),
        n => format!(".{n:09}").trim_end_matches('0').to_string(),
    };
    let offset = z.strftime("%:z").to_string();
    let offset = if offset == "+00:00" {
        "Z".to_string()
    } else {
        offset
    };
    format!("{}{frac}{offset}", z.strftime("%Y-%m-%dT%H:%M:%S"))
}

async fn release_history(cluster: &Cluster, args: &ReleaseQueryArgs) -> Result<ExitCode> {
    let ns = cluster.namespace.clone();
    let mut history = with_releases!(cluster, Some(ns.as_str()), |rel| rel
        .store
        .history(&args.name)
        .await?);
    if history.is_empty() {
        anyhow::bail!("release: not found");
    }
    // Helm keeps the newest `--max` revisions and prints them oldest first.
    history.sort_by_key(|r| r.version);
    let skip = history.len().saturating_sub(args.max);
    let history = &history[skip..];
    let rows: Vec<serde_json::Value> = history.iter().map(history_row).collect();
    match args.output.as_str() {
        "json" | "yaml" => {
            releases::print_json_or_yaml(&args.output, &serde_json::Value::Array(rows))?
        }
        "table" => {
            let mut table = vec![
                [
                    "REVISION",
                    "UPDATED",
                    "STATUS",
                    "CHART",
                    "APP VERSION",
                    "DESCRIPTION",
                ]
                .map(String::from)
                .to_vec(),
            ];
            for r in history {
                let info = r.info.clone().unwrap_or_default();
                table.push(vec![
                    r.version.to_string(),
                    releases::ansic(info.last_deployed.or(Some(go_zero_time()))),
                    info.status.to_string(),
                    r.chart_label(),
                    r.app_version().to_string(),
                    info.description,
                ]);
            }
            print!("{}", helm_table(&table));
        }
        other => anyhow::bail!("invalid format type {other:?}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Go's zero `time.Time` (0001-01-01 00:00:00 UTC), printed when a record has no time.
fn go_zero_time() -> jiff::Timestamp {
    jiff::Timestamp::from_second(-62135596800).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

async fn release_status(cluster: &Cluster, args: &ReleaseQueryArgs) -> Result<ExitCode> {
    let ns = cluster.namespace.clone();
    let release = with_releases!(cluster, Some(ns.as_str()), |rel| match args.revision {
        Some(v) => rel.store.get(&args.name, v).await?,
        None => rel
            .store
            .last(&args.name)
            .await?
            .ok_or_else(|| anyhow::anyhow!("release: not found"))?,
    });
    super::status::print(cluster, &release, &args.output).await?;
    Ok(ExitCode::SUCCESS)
}
