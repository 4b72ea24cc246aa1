//! `kubepkg test NAME`: run the latest revision's `test` hooks.

use std::process::ExitCode;

use anyhow::Result;
use kubepkg_release::action::Options;
use kubepkg_release::output::{self, Format};

use super::runtime;
use crate::cli::ReleaseQueryArgs;
use crate::progress::Printer;
use crate::settings::Settings;

pub fn run(args: ReleaseQueryArgs, settings: &Settings) -> Result<ExitCode> {
    runtime()?.block_on(async {
        let cluster = settings.connect().await?;
        let opts = Options {
            timeout: args.timeout,
            ..settings.options()
        };
        let release = settings
            .releases(&cluster, &Printer::text())?
            .test(&args.name, &opts)
            .await?;
        let format = Format::parse(&args.output).unwrap_or_default();
        print!("{}", output::release(&release, format)?);
        Ok(ExitCode::SUCCESS)
    })
}
