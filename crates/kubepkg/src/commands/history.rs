//! `kubepkg history NAME`: the package NAME when one has revision records in the namespace
//! (see [`super::package::resolve`]), else the Helm release NAME's revisions as `helm history`
//! prints them.

use anyhow::Result;
use kubepkg_release::output;
use kubepkg_release::query;

use super::package;
use crate::cli::QueryArgs;
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn run(args: QueryArgs, settings: &Settings) -> Result<Exit> {
    let q = &args.query;
    let cluster = settings.connect().await?;
    if package::resolve(&cluster, &q.name, args.target).await? {
        return package::history(&cluster, &q.name, q.output).await;
    }
    let store = settings.store(&cluster, false)?;
    let history = query::history(&store, &q.name, q.max).await?;
    print!("{}", output::history(&history, q.output.helm())?);
    Ok(Exit::Succeeded)
}
