//! `kubepkg status NAME`: the package NAME when one has revision records in the namespace
//! (see [`super::package::resolve`]), else the Helm release NAME as `helm status` (v4) prints
//! it, with its live resources (`kubepkg_release::query::resources`).

use anyhow::Result;
use kubepkg_release::output::{self, Format};
use kubepkg_release::query;

use super::package;
use crate::cli::QueryArgs;
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn run(args: QueryArgs, settings: &Settings) -> Result<Exit> {
    let q = &args.query;
    let cluster = settings.connect().await?;
    if package::resolve(&cluster, &q.name, args.target).await? {
        return package::status(&cluster, &q.name, q.revision, q.output).await;
    }
    let store = settings.store(&cluster, false)?;
    let release = query::revision(&store, &q.name, q.revision).await?;
    let format = q.output.helm();
    // A table shows the server's own Tables; JSON and YAML the objects.
    let resources = query::resources(&cluster, &release, format == Format::Table).await;
    print!("{}", output::status(&release, &resources, format)?);
    Ok(Exit::Succeeded)
}
