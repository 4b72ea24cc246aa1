//! `kubepkg test NAME`: run the latest revision's `test` hooks (Helm's release tests).

use anyhow::Result;
use kubepkg_release::action::Options;
use kubepkg_release::output;

use crate::cli::ReleaseQueryArgs;
use crate::exit::Exit;
use crate::progress::Printer;
use crate::settings::Settings;

pub async fn run(args: ReleaseQueryArgs, settings: &Settings) -> Result<Exit> {
    let cluster = settings.connect().await?;
    let opts = Options {
        timeout: args.timeout,
        ..settings.options()
    };
    let release = settings
        .releases(&cluster, &Printer::text())?
        .test(&args.name, &opts)
        .await?;
    let format = args.output.helm();
    print!("{}", output::release(&release, format)?);
    Ok(Exit::Succeeded)
}
