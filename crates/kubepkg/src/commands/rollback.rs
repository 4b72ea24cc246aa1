//! `kubepkg rollback NAME [REVISION]`: a new revision copying an earlier one.

use std::process::ExitCode;

use anyhow::Result;

use super::releases::{self, with_releases};
use crate::cli::RollbackArgs;

pub fn run(args: Box<RollbackArgs>) -> Result<ExitCode> {
    let args = *args;
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        let mut opts = releases::options(&args.cluster, &args.op)?;
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
