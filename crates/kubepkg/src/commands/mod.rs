//! One module per verb; [`run`] dispatches the parsed command line.

mod template;
mod version;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Run the parsed command and return the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Version => version::run(),
        Command::Template(args) => template::run(args),
    }
}
