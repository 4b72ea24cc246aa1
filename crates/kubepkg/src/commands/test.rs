//! `kubepkg test NAME`: run the latest revision's `test` hooks.

use std::process::ExitCode;

use anyhow::Result;

use super::releases::{self, with_releases};
use crate::cli::ReleaseQueryArgs;

pub fn run(args: ReleaseQueryArgs) -> Result<ExitCode> {
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        let opts = kubepkg_release::action::Options {
            timeout: releases::parse_duration(&args.timeout)?,
            wait_lock: !args.cluster.no_wait_lock,
            ..Default::default()
        };
        let release = with_releases!(&cluster, Some(ns.as_str()), |rel| {
            releases::with_progress(rel).test(&args.name, &opts).await?
        });
        releases::print_release(&release, &args.output)?;
        Ok(ExitCode::SUCCESS)
    })
}
