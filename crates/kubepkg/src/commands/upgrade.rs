//! `kubepkg upgrade NAME CHART`: a new revision from a chart and values, with Helm's
//! `--reuse-values` / `--reset-values` / `--reset-then-reuse-values` rules.

use std::process::ExitCode;

use anyhow::Result;

use super::releases::{self, with_releases};
use crate::cli::UpgradeArgs;

pub fn run(args: Box<UpgradeArgs>) -> Result<ExitCode> {
    let args = *args;
    let c = &args.common;
    let new_values = releases::user_values(&c.values)?;
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&c.cluster).await?;
        let ns = cluster.namespace.clone();
        let mut opts = releases::options(&c.cluster, &c.op)?;
        opts.atomic = c.atomic;
        opts.wait |= c.atomic;
        opts.take_ownership = c.take_ownership;
        opts.create_namespace = c.create_namespace;
        opts.max_history = args.history_max;
        let release = with_releases!(&cluster, Some(ns.as_str()), |rel| {
            let last = rel.store.last(&c.name).await?;
            let last_revision = last.as_ref().map(|r| r.version);
            let previous = last.map(|r| r.config).unwrap_or_default();
            let config = if args.reset_values {
                new_values
            } else if args.reuse_values || args.reset_then_reuse_values {
                releases::coalesce(new_values, &previous)
            } else if new_values.is_empty() {
                previous
            } else {
                new_values
            };
            let (rendered, _) = releases::render(&c.chart, &c.name, &ns, config, last_revision)?;
            releases::with_progress(rel)
                .upgrade(&c.name, rendered, &opts, args.install)
                .await?
        });
        println!(
            "Release {:?} has been upgraded. Happy Helming!",
            release.name
        );
        releases::print_release(&release, &c.op.output)?;
        Ok(ExitCode::SUCCESS)
    })
}
