//! One module per verb; [`run`] dispatches the parsed command line with the [`Settings`]
//! resolved from it. Every command is async and runs on the one runtime `main` built; it ends
//! with an [`Exit`] code, or a [`CliError`] whose code follows from its kind.
//! The single-release verbs call `kubepkg_release` (`action`, `query`) and
//! `kubepkg_engine::verbs` for data and print what `kubepkg_release::output` makes of it.

mod completion;
mod controller;
mod create;
mod dashboard;
mod env;
mod get;
mod history;
mod install;
mod lint;
mod list;
mod package;
mod package_archive;
mod package_oci;
mod package_pack;
mod plugin;
mod pull;
mod push;
mod registry;
mod release_test;
mod render;
mod repo;
mod rollback;
pub(crate) mod rollout;
mod rollout_object;
mod rollout_plan;
mod schema;
mod show;
mod sign;
mod spec_plan;
mod status;
mod template;
mod uninstall;
mod upgrade;
mod version;

use anyhow::Result;

use crate::cli::Command;
use crate::error::CliError;
use crate::exit::Exit;
use crate::format::Format;
use crate::settings::Settings;

/// Runs the parsed command on the one runtime `main` built, and returns how it ended.
pub async fn run(command: Command, settings: &Settings) -> Result<Exit, CliError> {
    Ok(match command {
        Command::Plan(args) => return package::plan(*args, settings).await,
        Command::Apply(args) => return package::apply(*args, settings).await,
        Command::Version(args) => version::run(args),
        Command::Env(args) => env::run(args, settings),
        Command::Completion(args) => completion::run(args),
        Command::Render(args) => render::run(*args, settings).await,
        Command::Schema => schema::run(),
        Command::Template(args) => template::run(*args, settings).await,
        Command::Values(args) => package::values(*args, settings).await,
        Command::Package(cmd) => package::run(cmd, settings).await,
        Command::Install(args) => install::run(*args, settings).await,
        Command::Upgrade(args) => upgrade::run(*args, settings).await,
        Command::Rollback(args) => rollback::run(*args, settings).await,
        Command::Rollout(cmd) => rollout::run(cmd, settings).await,
        Command::Uninstall(args) => uninstall::run(*args, settings).await,
        Command::List(args) => list::run(*args, settings).await,
        Command::History(args) => history::run(*args, settings).await,
        Command::Status(args) => status::run(*args, settings).await,
        Command::Get(args) => get::run(*args, settings).await,
        Command::Pull(args) => pull::run(*args, settings).await,
        Command::Push(args) => push::run(*args, settings).await,
        Command::Sign(args) => sign::run(*args, settings).await,
        Command::Registry(cmd) => registry::run(cmd, settings).await,
        Command::Test(args) => release_test::run(*args, settings).await,
        Command::Repo(cmd) => repo::run(cmd, settings).await,
        Command::Plugin(cmd) => plugin::run(cmd, settings),
        Command::Search(cmd) => repo::search(cmd, settings),
        Command::Dependency(cmd) => repo::dependency(cmd, settings).await,
        Command::Controller(args) => controller::run(*args, settings).await,
        Command::Dashboard(args) => dashboard::run(*args, settings).await,
        Command::Lint(args) => lint::run(*args, settings),
        Command::Create(args) => create::run(*args),
        Command::Show(cmd) => show::run(cmd, settings).await,
    }?)
}

/// The chart `reference` names, located on disk (fetched into the cache when it is remote),
/// for the commands that take a chart.
async fn locate_chart(
    reference: &str,
    source: &crate::cli::ChartSourceArgs,
    settings: &Settings,
) -> Result<kubepkg_source::LocatedChart> {
    let located =
        kubepkg_source::locate_chart(reference, &source.options(), &settings.paths).await?;
    let dir = &located.path;
    if dir.join(kubepkg_model::manifest::MANIFEST_FILE).is_file()
        && !dir.join("Chart.yaml").is_file()
    {
        // Helm would say "Chart.yaml file is missing"; the user has a package in hand.
        anyhow::bail!(
            "{reference} is a kubepkg package (it has {}), not a chart: `kubepkg plan NAME \
             {reference}` shows what it would apply, `kubepkg apply NAME {reference} -n \
             NAMESPACE` installs it; its charts are the directories its components name",
            kubepkg_model::manifest::MANIFEST_FILE
        );
    }
    for w in &located.warnings {
        eprintln!("{w}");
    }
    Ok(located)
}

/// The per-component timeout of a package operation when `--timeout` is not given.
const PACKAGE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// The release timeout when `--timeout` is not given (Helm's 5m0s).
const RELEASE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Prints `j` as `-o json|yaml` asks, or `text()` for `-o table|text`.
pub(crate) fn print_structured(
    j: serde_json::Value,
    output: Format,
    text: impl FnOnce() -> String,
) -> Result<()> {
    match output {
        Format::Json => println!("{j}"),
        Format::Yaml => print!("{}", kubepkg_release::output::yaml(&j)?),
        Format::Table | Format::Text => print!("{}", text()),
    }
    Ok(())
}
