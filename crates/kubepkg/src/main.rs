//! The `kubepkg` command line: a thin `main` over the library crates. Argument definitions live
//! in [`cli`], each verb's behaviour in `commands/<verb>.rs`.

#![forbid(unsafe_code)]

mod cli;
mod commands;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("Error: {err:#}");
            ExitCode::from(commands::exit_code(&err))
        }
    }
}
