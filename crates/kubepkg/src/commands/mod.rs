//! One module per verb; [`run`] dispatches the parsed command line and [`exit_code`] turns an
//! error into the documented process exit code.

mod get;
mod history;
mod install;
mod list;
mod package;
mod releases;
mod rollback;
mod status;
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

/// The package (its `kubepkg.yaml` or one of its charts) is invalid: nothing was applied.
#[derive(Debug)]
pub struct InvalidPackage(pub String);

impl std::fmt::Display for InvalidPackage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidPackage {}

/// Exit code of a run that ended in an error (see `kubepkg --help`): 7 when the package is
/// invalid (`InvalidPackage`: a bad `kubepkg.yaml`, a missing or unrenderable chart), else 1.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    use kubepkg_engine::EngineError;
    let invalid = err.chain().any(|cause| {
        cause.is::<InvalidPackage>()
            || cause.is::<kubepkg_package::PackageError>()
            || matches!(
                cause.downcast_ref::<EngineError>(),
                Some(EngineError::Package(_) | EngineError::Render { .. })
            )
    });
    if invalid { 7 } else { 1 }
}
