//! `kubepkg install NAME CHART`: render the chart with the cluster's `.Capabilities` and
//! install it as a Helm release. `--dry-run[=client]` renders with Helm's default
//! capabilities and touches no cluster; `--dry-run=server` renders against the cluster and
//! has the API server validate every object (server-side dry run); neither writes anything.

use std::process::ExitCode;

use anyhow::Result;
use kubepkg_engine::chart::ClusterCapabilities;
use kubepkg_release::action::{DryRun, dry_run_record};

use super::releases::{self, DryRunMode, with_releases};
use crate::cli::InstallArgs;

pub fn run(args: Box<InstallArgs>) -> Result<ExitCode> {
    let args = *args;
    let config = releases::user_values(&args.values)?;
    let dry_run = releases::dry_run_mode(args.dry_run.as_deref())?;
    if dry_run == Some(DryRunMode::Client) {
        let ns = args
            .cluster
            .namespace
            .clone()
            .or_else(|| {
                std::env::var("HELM_NAMESPACE")
                    .ok()
                    .filter(|s| !s.is_empty())
            })
            .unwrap_or_else(|| "default".into());
        let caps = ClusterCapabilities::default();
        let out = releases::payload(&args.chart, &args.name, &ns, &config, None, &caps)?;
        kubepkg_release::storage::validate_name(&args.name)?;
        let release = dry_run_record(
            &args.name,
            &ns,
            1,
            out.rendered,
            None,
            args.op.description.as_deref(),
        );
        releases::print_release(&release, &args.op.output)?;
        return Ok(ExitCode::SUCCESS);
    }
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        let caps = ClusterCapabilities::discover(&cluster.client).await?;
        let out = releases::payload(&args.chart, &args.name, &ns, &config, None, &caps)?;
        let mut opts = releases::options(&args.cluster, &args.op)?;
        opts.atomic = args.atomic;
        opts.wait |= args.atomic;
        opts.take_ownership = args.take_ownership;
        opts.create_namespace = args.create_namespace;
        let release = if dry_run.is_some() {
            if !out.crds.is_empty() {
                eprintln!("{}", releases::DRY_RUN_CRDS_WARNING);
            }
            let mode = DryRun {
                upgrade: false,
                install_if_missing: true,
                server: true,
                crds: &out.crds,
            };
            with_releases!(&cluster, Some(ns.as_str()), |rel| {
                releases::with_progress(rel)
                    .dry_run(&args.name, out.rendered, &opts, mode)
                    .await?
            })
        } else {
            if !out.crds.is_empty() {
                kubepkg_release::action::install_crds(&cluster, &out.crds, opts.timeout).await?;
            }
            with_releases!(&cluster, Some(ns.as_str()), |rel| {
                releases::with_progress(rel)
                    .install(&args.name, out.rendered, &opts)
                    .await?
            })
        };
        releases::print_release(&release, &args.op.output)?;
        Ok(ExitCode::SUCCESS)
    })
}
