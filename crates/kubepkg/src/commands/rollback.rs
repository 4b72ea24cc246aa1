//! `kubepkg rollback NAME [REVISION]`: the package NAME when one has revision records in the
//! namespace (see [`super::package::resolve`]; refused when the version being left declares
//! `rollback.safe: false`, unless `--force`), else the Helm release NAME — either way a new
//! revision copying an earlier one.

use std::process::ExitCode;

use anyhow::Result;

use super::package;
use super::releases::{self, with_releases};
use crate::cli::{ChangeArgs, ClusterArgs, OperationArgs, RollbackArgs};

/// The release layer's options from the bare verbs' flags (release default timeout 5m0s).
pub fn release_options(
    cluster: &ClusterArgs,
    op: &ChangeArgs,
) -> Result<kubepkg_release::action::Options> {
    releases::options(
        cluster,
        &OperationArgs {
            wait: op.wait,
            timeout: op.timeout.clone().unwrap_or_else(|| "5m0s".into()),
            no_hooks: op.no_hooks,
            description: op.description.clone(),
            output: op.output.clone(),
        },
    )
}

/// The per-component timeout of a package operation (default 10m).
pub fn package_timeout(op: &ChangeArgs) -> Result<std::time::Duration> {
    releases::parse_duration(op.timeout.as_deref().unwrap_or("10m"))
}

pub fn run(args: Box<RollbackArgs>) -> Result<ExitCode> {
    let args = *args;
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        if package::resolve(&cluster, &args.name, args.target).await? {
            let timeout = package_timeout(&args.op)?;
            return package::rollback(
                &cluster,
                &args.name,
                args.revision,
                args.force,
                timeout,
                &args.op.output,
            )
            .await;
        }
        let ns = cluster.namespace.clone();
        let mut opts = release_options(&args.cluster, &args.op)?;
        opts.max_history = args.history_max;
        with_releases!(&cluster, Some(ns.as_str()), |rel| {
            releases::with_progress(rel)
                .rollback(&args.name, args.revision.unwrap_or(0), &opts)
                .await?
        });
        println!("Rollback was a success! Happy Helming!");
        Ok(ExitCode::SUCCESS)
    })
}
