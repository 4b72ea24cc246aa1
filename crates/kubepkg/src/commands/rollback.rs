//! `kubepkg rollback NAME [REVISION]`: the package NAME when one has revision records in the
//! namespace (see [`super::package::resolve`]; refused when the version being left declares
//! `rollback.safe: false`, unless `--force`), else the Helm release NAME — either way a new
//! revision copying an earlier one.

use anyhow::Result;
use kubepkg_release::action::Options;

use super::{PACKAGE_TIMEOUT, RELEASE_TIMEOUT, package};
use crate::cli::{BareChangeArgs, ChangeArgs, RollbackArgs};
use crate::exit::Exit;
use crate::progress::Printer;
use crate::settings::Settings;

/// The release layer's options from the bare verbs' flags (release default timeout 5m0s).
fn release_options(settings: &Settings, op: &ChangeArgs) -> Options {
    Options {
        wait: op.wait,
        timeout: op.timeout.unwrap_or(RELEASE_TIMEOUT),
        no_hooks: op.no_hooks,
        description: op.description.clone(),
        ..settings.options()
    }
}

pub async fn run(args: RollbackArgs, settings: &Settings) -> Result<Exit> {
    let verb = Verb::Rollback {
        revision: args.revision,
        force: args.force,
        history_max: args.history_max,
    };
    change(&args.change, verb, settings).await
}

/// What a bare verb that changes a package or a release does, with its own flags.
pub enum Verb {
    /// `rollback NAME [REVISION]` (`--force`, `--history-max`).
    Rollback {
        revision: Option<u64>,
        force: bool,
        history_max: usize,
    },
    /// `uninstall NAME` (`--keep-history`).
    Uninstall { keep_history: bool },
}

/// Runs `verb` on the package NAME when one has revision records in the namespace (see
/// [`package::resolve`]), else on the Helm release NAME, as Helm does and says.
pub async fn change(args: &BareChangeArgs, verb: Verb, settings: &Settings) -> Result<Exit> {
    let mode = args.op.progress.progress;
    let cluster = settings.connect().await?;
    let name = args.name.as_str();
    if package::resolve(&cluster, name, args.target).await? {
        let timeout = args.op.timeout.unwrap_or(PACKAGE_TIMEOUT);
        let printer = Printer::new(args.op.output, mode, &settings.terminal);
        return match verb {
            Verb::Rollback {
                revision, force, ..
            } => package::rollback(&cluster, name, revision, force, timeout, &printer).await,
            Verb::Uninstall { keep_history } => {
                package::uninstall(&cluster, name, keep_history, timeout, &printer).await
            }
        };
    }
    let opts = release_options(settings, &args.op);
    let printer = Printer::progress(mode, &settings.terminal);
    let releases = settings.releases(&cluster, &printer)?;
    let done = match verb {
        Verb::Rollback {
            revision,
            history_max,
            ..
        } => {
            let opts = Options {
                max_history: history_max,
                ..opts
            };
            releases
                .rollback(name, revision.unwrap_or(0), &opts)
                .await?;
            "Rollback was a success! Happy Helming!".to_string()
        }
        Verb::Uninstall { keep_history } => {
            let opts = Options {
                keep_history,
                ..opts
            };
            releases.uninstall(name, &opts).await?;
            format!("release \"{name}\" uninstalled")
        }
    };
    printer.finish(true);
    println!("{done}");
    Ok(Exit::Succeeded)
}
