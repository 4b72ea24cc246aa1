//! `kubepkg uninstall NAME`: the package NAME when one has revision records in the namespace
//! (see [`super::package::resolve`]; components uninstalled in reverse order), else the Helm
//! release NAME (hooks, objects deleted in Helm's order, kept ones named, records purged or
//! kept as `uninstalled`).

use anyhow::Result;
use kubepkg_release::action::Options;

use super::rollback::release_options;
use super::{PACKAGE_TIMEOUT, package};
use crate::cli::UninstallArgs;
use crate::exit::Exit;
use crate::progress::Printer;
use crate::settings::Settings;

pub async fn run(args: UninstallArgs, settings: &Settings) -> Result<Exit> {
    let mode = args.op.progress.progress;
    let cluster = settings.connect().await?;
    if package::resolve(&cluster, &args.name, args.target).await? {
        let timeout = args.op.timeout.unwrap_or(PACKAGE_TIMEOUT);
        let printer = Printer::new(args.op.output, mode, &settings.terminal);
        return package::uninstall(&cluster, &args.name, args.keep_history, timeout, &printer)
            .await;
    }
    let opts = Options {
        keep_history: args.keep_history,
        ..release_options(settings, &args.op)
    };
    let printer = Printer::progress(mode, &settings.terminal);
    settings
        .releases(&cluster, &printer)?
        .uninstall(&args.name, &opts)
        .await?;
    printer.finish(true);
    println!("release \"{}\" uninstalled", args.name);
    Ok(Exit::Succeeded)
}
