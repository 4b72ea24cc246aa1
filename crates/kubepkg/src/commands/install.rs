//! `kubepkg install NAME CHART`: render the chart and install it as a Helm release.

use std::process::ExitCode;

use anyhow::Result;

use super::releases::{self, with_releases};
use crate::cli::InstallArgs;

pub fn run(args: Box<InstallArgs>) -> Result<ExitCode> {
    let args = *args;
    let config = releases::user_values(&args.values)?;
    if args.dry_run.as_deref() == Some("client") {
        let ns = args
            .cluster
            .namespace
            .clone()
            .unwrap_or_else(|| "default".into());
        let (rendered, _) = releases::render(&args.chart, &args.name, &ns, config, None)?;
        print!("{}", rendered.manifest);
        return Ok(ExitCode::SUCCESS);
    }
    releases::runtime()?.block_on(async {
        let cluster = releases::connect(&args.cluster).await?;
        let ns = cluster.namespace.clone();
        let (rendered, crds) = releases::render(&args.chart, &args.name, &ns, config, None)?;
        let mut opts = releases::options(&args.cluster, &args.op)?;
        opts.atomic = args.atomic;
        opts.wait |= args.atomic;
        opts.take_ownership = args.take_ownership;
        opts.create_namespace = args.create_namespace;
        if !crds.is_empty() {
            kubepkg_release::action::install_crds(&cluster, &crds.concat(), opts.timeout).await?;
        }
        let release = with_releases!(&cluster, Some(ns.as_str()), |rel| {
            releases::with_progress(rel)
                .install(&args.name, rendered, &opts)
                .await?
        });
        releases::print_release(&release, &args.op.output)?;
        Ok(ExitCode::SUCCESS)
    })
}
