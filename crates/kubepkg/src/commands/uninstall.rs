//! `kubepkg uninstall NAME`: the package NAME when one has revision records in the namespace
//! (see [`super::package::resolve`]; components uninstalled in reverse order), else the Helm
//! release NAME (hooks, objects deleted in Helm's order, kept ones named, records purged or
//! kept as `uninstalled`).

use std::process::ExitCode;

use anyhow::Result;

use super::package;
use super::releases::{self, with_releases};
use super::rollback::{package_timeout, release_options};
use crate::cli::UninstallArgs;

pub fn run(args: UninstallArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        if package::resolve(&cluster, &args.name, args.target).await? {
            let timeout = package_timeout(&args.op)?;
            return package::uninstall(
                &cluster,
                &args.name,
                args.keep_history,
                timeout,
                &args.op.output,
            )
            .await;
        }
        let ns = cluster.namespace.clone();
        let mut opts = release_options(&args.cluster, &args.op)?;
        opts.keep_history = args.keep_history;
        with_releases!(&cluster, Some(ns.as_str()), |rel| {
            releases::with_progress(rel)
                .uninstall(&args.name, &opts)
                .await?
        });
        println!("release \"{}\" uninstalled", args.name);
        Ok(ExitCode::SUCCESS)
    })
}
