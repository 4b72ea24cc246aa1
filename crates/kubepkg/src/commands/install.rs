//! `kubepkg install NAME CHART`: render the chart with the cluster's `.Capabilities` and
//! install it as a Helm release. `--dry-run[=client]` renders with Helm's default
//! capabilities and touches no cluster; `--dry-run=server` renders against the cluster and
//! has the API server validate every object (server-side dry run); neither writes anything.

use anyhow::Result;
use kubepkg_engine::verbs::{self, DryRunMode};
use kubepkg_release::action::Options;
use kubepkg_release::output;

use super::locate_chart;
use crate::cli::InstallArgs;
use crate::exit::Exit;
use crate::progress::Printer;
use crate::settings::Settings;

pub async fn run(args: InstallArgs, settings: &Settings) -> Result<Exit> {
    let values = verbs::user_values(&args.values.options())?;
    let dry_run = DryRunMode::parse(args.dry_run.as_deref())?;
    let post_renderers = args.post_render.resolve(&settings.paths.plugins)?;
    let format = args.op.output.helm();
    let located = locate_chart(&args.chart, &args.source, settings).await?;
    let chart = located.path.as_path();
    if dry_run == Some(DryRunMode::Client) {
        let namespace = settings.offline_namespace();
        let description = args.op.description.as_deref();
        let release = verbs::install_offline(
            &args.name,
            &namespace,
            chart,
            values,
            description,
            &post_renderers,
        )?;
        print!("{}", output::release(&release, format)?);
        return Ok(Exit::Succeeded);
    }
    let cluster = settings.connect().await?;
    let caps = verbs::capabilities(&cluster).await?;
    let prepared = verbs::prepare_install(
        &args.name,
        &cluster.namespace,
        chart,
        values,
        &caps,
        &post_renderers,
    )?;
    if let Some(warning) = prepared.dry_run_warning(dry_run) {
        eprintln!("{warning}");
    }
    let printer = Printer::progress(args.op.progress.progress, &settings.terminal);
    let releases = settings.releases(&cluster, &printer)?;
    let release = prepared
        .run(&releases, &options(settings, &args), dry_run)
        .await?;
    printer.finish(true);
    print!("{}", output::release(&release, format)?);
    Ok(Exit::Succeeded)
}

/// The release layer's options from install's (and upgrade's) flags.
pub fn options(settings: &Settings, args: &InstallArgs) -> Options {
    Options {
        wait: args.op.wait || args.atomic,
        timeout: args.op.timeout,
        atomic: args.atomic,
        take_ownership: args.take_ownership,
        no_hooks: args.op.no_hooks,
        description: args.op.description.clone(),
        create_namespace: args.create_namespace,
        ..settings.options()
    }
}
