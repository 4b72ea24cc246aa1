//! `kubepkg upgrade NAME CHART`: a new revision from a chart and values, rendered with the
//! cluster's `.Capabilities`, with Helm's `--reuse-values` / `--reset-values` /
//! `--reset-then-reuse-values` rules. Values taken from the stored release are read as
//! Helm reads them (numbers become `float64`). `--dry-run[=client|server]` writes nothing;
//! `server` also has the API server validate every object.

use std::process::ExitCode;

use anyhow::Result;
use kubepkg_engine::chart::{ClusterCapabilities, recorded_values};
use kubepkg_release::Status;
use kubepkg_release::action::DryRun;

use super::releases::{self, DryRunMode, with_releases};
use crate::cli::UpgradeArgs;

pub fn run(args: Box<UpgradeArgs>) -> Result<ExitCode> {
    let args = *args;
    let c = &args.common;
    let new_values = releases::user_values(&c.values)?;
    let dry_run = releases::dry_run_mode(c.dry_run.as_deref())?;
    let table = c.op.output == "table";
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&c.cluster).await?;
        let ns = cluster.namespace.clone();
        let mut opts = releases::options(&c.cluster, &c.op)?;
        opts.atomic = c.atomic;
        opts.wait |= c.atomic;
        opts.take_ownership = c.take_ownership;
        opts.create_namespace = c.create_namespace;
        opts.max_history = args.history_max;
        let caps = ClusterCapabilities::discover(&cluster.client).await?;
        let (release, installed) = with_releases!(&cluster, Some(ns.as_str()), |rel| {
            let last = rel.store.last(&c.name).await?;
            let installing = args.install
                && last
                    .as_ref()
                    .is_none_or(|l| l.status() == Status::Uninstalled);
            if installing && table {
                println!("Release {:?} does not exist. Installing it now.", c.name);
            }
            let last_revision = last.as_ref().map(|r| r.version);
            let previous = last.map(|r| recorded_values(&r.config)).unwrap_or_default();
            let config = if installing || args.reset_values {
                new_values
            } else if args.reuse_values || args.reset_then_reuse_values {
                releases::coalesce(new_values, &previous)
            } else if new_values.is_empty() {
                previous
            } else {
                new_values
            };
            let out = releases::payload(&c.chart, &c.name, &ns, &config, last_revision, &caps)?;
            let rel = releases::with_progress(rel);
            let release = match dry_run {
                Some(mode) => {
                    if !out.crds.is_empty() {
                        eprintln!("{}", releases::DRY_RUN_CRDS_WARNING);
                    }
                    let mode = DryRun {
                        upgrade: true,
                        install_if_missing: args.install,
                        server: mode == DryRunMode::Server,
                        crds: &out.crds,
                    };
                    rel.dry_run(&c.name, out.rendered, &opts, mode).await?
                }
                None => {
                    if !out.crds.is_empty() {
                        kubepkg_release::action::install_crds(&cluster, &out.crds, opts.timeout)
                            .await?;
                    }
                    rel.upgrade(&c.name, out.rendered, &opts, args.install)
                        .await?
                }
            };
            (release, installing)
        });
        if table && !installed {
            println!(
                "Release {:?} has been upgraded. Happy Helming!",
                release.name
            );
        }
        releases::print_release(&release, &c.op.output)?;
        Ok(ExitCode::SUCCESS)
    })
}
