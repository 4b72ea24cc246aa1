//! `kubepkg history NAME` and `kubepkg status NAME`.

use std::process::ExitCode;

use anyhow::Result;

use super::releases::{self, with_releases};
use crate::cli::ReleaseQueryArgs;

pub fn run(args: ReleaseQueryArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        let history = with_releases!(&cluster, Some(ns.as_str()), |rel| rel.store.history(&args.name).await?);
        if history.is_empty() {
            anyhow::bail!("release: not found");
        }
        let rows: Vec<serde_json::Value> = history
            .iter()
            .map(|r| {
                let info = r.info.clone().unwrap_or_default();
                serde_json::json!({
                    "revision": r.version,
                    "updated": info.last_deployed.map(|t| t.to_string()).unwrap_or_default(),
                    "status": info.status.to_string(),
                    "chart": r.chart_label(),
                    "app_version": r.app_version(),
                    "description": info.description,
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
                println!("REVISION\tUPDATED                 \tSTATUS    \tCHART        \tAPP VERSION\tDESCRIPTION");
                for r in &history {
                    let info = r.info.clone().unwrap_or_default();
                    println!(
                        "{:<8}\t{:<24}\t{:<10}\t{:<13}\t{:<11}\t{}",
                        r.version,
                        releases::ansic(info.last_deployed),
                        info.status,
                        r.chart_label(),
                        r.app_version(),
                        info.description
                    );
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn status(args: ReleaseQueryArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        let release = with_releases!(&cluster, Some(ns.as_str()), |rel| match args.revision {
            Some(v) => rel.store.get(&args.name, v).await?,
            None => rel
                .store
                .last(&args.name)
                .await?
                .ok_or_else(|| anyhow::anyhow!("release: not found"))?,
        });
        releases::print_release(&release, &args.output)?;
        Ok(ExitCode::SUCCESS)
    })
}
