//! The `kubepkg` command line: a thin `main` over the library crates. Argument definitions live
//! in [`cli`], the flags and environment every command reads in [`settings`] (resolved once
//! here), each verb in `commands/<verb>.rs`, run on the one tokio runtime built here; how a
//! run ends is one of the codes of [`exit`].

#![forbid(unsafe_code)]

mod cli;
mod commands;
mod completion;
mod debug;
mod error;
mod exit;
mod format;
mod present;
mod progress;
mod settings;
mod terminal;

use crate::present::style::Role;
use clap::Parser;
use std::process::ExitCode;

use crate::exit::Exit;

/// Parses the command line once into [`settings::Settings`], runs the command on the one tokio
/// runtime of the process (shell completion too), and exits with its [`Exit`] code.
fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("Error: starting the async runtime: {e}");
            return Exit::Failed.into();
        }
    };
    {
        // A TAB in a shell that loaded `kubepkg completion SHELL`: answer (on this runtime)
        // and exit.
        let _entered = runtime.enter();
        completion::complete_if_asked(<cli::Cli as clap::CommandFactory>::command);
    }
    let cli = cli::Cli::parse_from(cli::from_helms_forms(std::env::args_os().collect()));
    let settings = cli.settings();
    // The controller logs through its own subscriber (`KUBEPKG_LOG`), with the trail in it.
    if settings.debug && !matches!(cli.command, cli::Command::Controller(_)) {
        debug::install();
    }
    let as_helm = cli.command.exits_as_helm();
    match runtime.block_on(commands::run(cli.command, &settings)) {
        Ok(exit) => exit.into(),
        Err(err) => {
            let prefix = settings.terminal.stderr.paint(Role::Bad, "Error:");
            eprintln!("{prefix} {}", err.report());
            if let Some(hint) = err.hint(&settings) {
                eprintln!("{hint}");
            }
            err.exit(as_helm).into()
        }
    }
}
