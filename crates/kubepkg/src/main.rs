//! The `kubepkg` command line: a thin `main` over the library crates. Argument definitions live
//! in [`cli`], the flags and environment every command reads in [`settings`] (resolved once
//! here), each verb in `commands/<verb>.rs`.

#![forbid(unsafe_code)]

mod cli;
mod commands;
mod completion;
mod debug;
mod error;
mod progress;
mod settings;
mod terminal;

use clap::Parser;
use kubepkg_package::style::Role;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A TAB in a shell that loaded `kubepkg completion SHELL`: answer and exit.
    completion::complete_if_asked();
    let cli = cli::Cli::parse_from(cli::from_helms_forms(std::env::args_os().collect()));
    let settings = settings::Settings::from_env(&cli);
    // The controller logs through its own subscriber (`KUBEPKG_LOG`).
    if settings.debug && !matches!(cli.command, cli::Command::Controller(_)) {
        debug::install();
    }
    match commands::run(cli.command, &settings) {
        Ok(code) => code,
        Err(err) => {
            let prefix = settings.terminal.stderr.paint(Role::Bad, "Error:");
            eprintln!("{prefix} {}", err.report());
            if let Some(hint) = err.hint(&settings) {
                eprintln!("{hint}");
            }
            ExitCode::from(err.exit_code())
        }
    }
}
