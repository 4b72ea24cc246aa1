//! `kubepkg rollback NAME [REVISION]`: the package NAME when one has revision records in the
//! namespace (see [`super::package::resolve`]; refused when the version being left declares
//! `rollback.safe: false`, unless `--force`), else the Helm release NAME — either way a new
//! revision copying an earlier one.

use anyhow::Result;
use kubepkg_release::action::Options;

use super::{PACKAGE_TIMEOUT, RELEASE_TIMEOUT, package};
use crate::cli::{ChangeArgs, RollbackArgs};
use crate::exit::Exit;
use crate::progress::Printer;
use crate::settings::Settings;

/// The release layer's options from the bare verbs' flags (release default timeout 5m0s).
pub fn release_options(settings: &Settings, op: &ChangeArgs) -> Options {
    Options {
        wait: op.wait,
        timeout: op.timeout.unwrap_or(RELEASE_TIMEOUT),
        no_hooks: op.no_hooks,
        description: op.description.clone(),
        ..settings.options()
    }
}

pub async fn run(args: RollbackArgs, settings: &Settings) -> Result<Exit> {
    let mode = args.op.progress.progress;
    let cluster = settings.connect().await?;
    if package::resolve(&cluster, &args.name, args.target).await? {
        let timeout = args.op.timeout.unwrap_or(PACKAGE_TIMEOUT);
        let printer = Printer::new(args.op.output, mode, &settings.terminal);
        return package::rollback(
            &cluster,
            &args.name,
            args.revision,
            args.force,
            timeout,
            &printer,
        )
        .await;
    }
    let opts = Options {
        max_history: args.history_max,
        ..release_options(settings, &args.op)
    };
    let printer = Printer::progress(mode, &settings.terminal);
    settings
        .releases(&cluster, &printer)?
        .rollback(&args.name, args.revision.unwrap_or(0), &opts)
        .await?;
    printer.finish(true);
    println!("Rollback was a success! Happy Helming!");
    Ok(Exit::Succeeded)
}
