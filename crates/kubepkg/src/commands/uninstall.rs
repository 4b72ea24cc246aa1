//! `kubepkg uninstall NAME`: the package NAME when one has revision records in the namespace
//! (see [`super::package::resolve`]; components uninstalled in reverse order), else the Helm
//! release NAME (hooks, objects deleted in Helm's order, kept ones named, records purged or
//! kept as `uninstalled`).

use anyhow::Result;

use super::rollback::{Verb, change};
use crate::cli::UninstallArgs;
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn run(args: UninstallArgs, settings: &Settings) -> Result<Exit> {
    let verb = Verb::Uninstall {
        keep_history: args.keep_history,
    };
    change(&args.change, verb, settings).await
}
