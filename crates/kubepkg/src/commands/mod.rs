//! One module per verb; [`run`] dispatches the parsed command line.

mod get;
mod history;
mod install;
mod list;
mod package;
mod releases;
mod rollback;
mod template;
mod test;
mod uninstall;
mod upgrade;
mod version;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Run the parsed command and return the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Version => version::run(),
        Command::Template(args) => template::run(args),
        Command::Plan(args) => package::plan(*args),
        Command::Apply(args) => package::apply(*args),
        Command::Values(args) => package::values(*args),
        Command::Package(cmd) => package::run(cmd),
        Command::Install(args) => install::run(args),
        Command::Upgrade(args) => upgrade::run(args),
        Command::Rollback(args) => rollback::run(args),
        Command::Uninstall(args) => uninstall::run(*args),
        Command::List(args) => list::run(*args),
        Command::History(args) => history::run(*args),
        Command::Status(args) => history::status(*args),
        Command::Get(args) => get::run(*args),
        Command::Test(args) => test::run(*args),
    }
}
