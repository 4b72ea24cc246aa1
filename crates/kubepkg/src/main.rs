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
mod scratch;
mod settings;
mod terminal;

use crate::present::style::Role;
use clap::Parser;
use std::process::ExitCode;

use crate::exit::Exit;

/// Parses the command line once into [`settings::Settings`], runs the command on the one tokio
/// runtime of the process ([`runtime`]), and exits with its [`Exit`] code.
fn main() -> ExitCode {
    if std::env::var_os(completion::VAR).is_some() {
        // A TAB in a shell that loaded `kubepkg completion SHELL`: answer (on a runtime, for
        // the names it reads from the cluster) and exit.
        let runtime = match runtime(false) {
            Ok(runtime) => runtime,
            Err(exit) => return exit,
        };
        let _entered = runtime.enter();
        completion::complete_if_asked(<cli::Cli as clap::CommandFactory>::command);
    }
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Before the parse, whose few hundred KiB of allocations then lie in huge pages too.
    if cli::verb_runs_on_one_thread(&args) {
        kubepkg_heap::use_huge_pages();
    }
    let cli = cli::Cli::parse_from(cli::from_helms_forms(args));
    let runtime = match runtime(cli.command.runs_on_one_thread()) {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
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

/// The process's tokio runtime: on the main thread alone for a verb that only reads, renders and
/// prints ([`cli::Command::runs_on_one_thread`]: no threads to start for a `template`), with
/// two workers for the others.
fn runtime(one_thread: bool) -> Result<tokio::runtime::Runtime, ExitCode> {
    let mut builder = if one_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    };
    builder.enable_all().build().map_err(|e| {
        eprintln!("Error: starting the async runtime: {e}");
        Exit::Failed.into()
    })
}
