//! `kubepkg history NAME`: the package NAME when one has revision records in the namespace
//! (see [`super::package::resolve`]), else the Helm release NAME's revisions as `helm history`
//! prints them.

use std::process::ExitCode;

use anyhow::Result;
use kubepkg_release::output::{self, Format};
use kubepkg_release::query;

use super::{package, runtime};
use crate::cli::QueryArgs;
use crate::settings::Settings;

pub fn run(args: QueryArgs, settings: &Settings) -> Result<ExitCode> {
    let q = &args.query;
    runtime()?.block_on(async {
        let cluster = settings.connect().await?;
        if package::resolve(&cluster, &q.name, args.target).await? {
            return package::history(&cluster, &q.name, &q.output).await;
        }
        let store = settings.store(&cluster, false)?;
        let history = query::history(&store, &q.name, q.max).await?;
        print!("{}", output::history(&history, Format::parse(&q.output)?)?);
        Ok(ExitCode::SUCCESS)
    })
}
