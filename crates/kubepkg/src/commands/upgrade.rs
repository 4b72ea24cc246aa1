//! `kubepkg upgrade NAME CHART`: a new revision from a chart and values, rendered with the
//! cluster's `.Capabilities`, with Helm's `--reuse-values` / `--reset-values` /
//! `--reset-then-reuse-values` rules (`kubepkg_engine::verbs::upgrade_values`).
//! `--dry-run[=client|server]` writes nothing; `server` also has the API server validate
//! every object.

use anyhow::Result;
use kubepkg_engine::verbs::{self, DryRunMode, ValuesMode};
use kubepkg_release::output;

use super::install::options;
use super::locate_chart;
use crate::cli::UpgradeArgs;
use crate::exit::Exit;
use crate::format::Format;
use crate::progress::Printer;
use crate::settings::Settings;

pub async fn run(args: UpgradeArgs, settings: &Settings) -> Result<Exit> {
    let c = &args.common;
    let values = verbs::user_values(&c.values.options())?;
    let dry_run = DryRunMode::parse(c.dry_run.as_deref())?;
    let post_renderers = c.post_render.resolve(&settings.paths.plugins)?;
    let mode = ValuesMode::from_flags(
        args.reuse_values,
        args.reset_values,
        args.reset_then_reuse_values,
    );
    let table = c.op.output == Format::Table;
    let cluster = settings.connect().await?;
    let caps = verbs::capabilities(&cluster).await?;
    let printer = Printer::progress(c.op.progress.progress, &settings.terminal);
    let releases = settings.releases(&cluster, &printer)?;
    let target = verbs::upgrade_target(&releases.store, &c.name, args.install).await?;
    if target.installs() && table {
        println!("Release {:?} does not exist. Installing it now.", c.name);
    }
    let located = locate_chart(&c.chart, &c.source, settings).await?;
    let prepared = target.prepare(
        &cluster.namespace,
        &located.path,
        values,
        mode,
        &caps,
        &post_renderers,
    )?;
    if let Some(warning) = prepared.dry_run_warning(dry_run) {
        eprintln!("{warning}");
    }
    let opts = kubepkg_release::action::Options {
        max_history: args.history_max,
        ..options(settings, c)
    };
    let release = prepared.run(&releases, &opts, dry_run).await?;
    printer.finish(true);
    if table && !target.installs() {
        println!(
            "Release {:?} has been upgraded. Happy Helming!",
            release.name
        );
    }
    let format = c.op.output.helm();
    print!("{}", output::release(&release, format)?);
    Ok(Exit::Succeeded)
}
