//! `kubepkg uninstall NAME`: hooks, objects deleted in Helm's order (kept ones named), records
//! purged or kept as `uninstalled`.

use std::process::ExitCode;

use anyhow::Result;

use super::releases::{self, with_releases};
use crate::cli::UninstallArgs;

pub fn run(args: UninstallArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        let mut opts = releases::options(&args.cluster, &args.op)?;
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
