//! `kubepkg push CHART.tgz oci://HOST/REPO`: a chart archive into a registry with Helm's layout
//! (`kubepkg_oci::chart`), so `helm pull` gets the same archive byte for byte; prints what
//! `helm push` prints; `--sign KEY` then signs the pushed digest (`commands/sign.rs`).

use anyhow::{Context, Result, bail};
use kubepkg_chart::metadata::Metadata;

use crate::cli::PushArgs;
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn run(args: PushArgs, settings: &Settings) -> Result<Exit> {
    let raw =
        std::fs::read(&args.chart).with_context(|| format!("reading {}", args.chart.display()))?;
    let origin = args.chart.display().to_string();
    let chart = kubepkg_chart::chart::load_archive(&raw, &origin)?;
    let repo = kubepkg_oci::Reference::parse(&args.remote)?;
    if repo.tag.is_some() || repo.digest.is_some() {
        bail!(
            "{}: push into a repository without a tag or digest; the chart's version is the tag",
            args.remote
        );
    }
    let key = super::sign::push_key(&args.sign)?;
    let meta = chart_meta(&chart.metadata);
    let prov_path = args.chart.with_extension("tgz.prov");
    let prov = std::fs::read(&prov_path).ok();
    let client = kubepkg_source::oci::client(&args.access.options(), &settings.paths)?;
    let pushed = kubepkg_oci::chart::push(&client, &repo, &raw, &meta, prov.as_deref()).await?;
    super::sign::pushed(&client, &pushed.reference, &pushed.digest, key.as_ref()).await?;
    Ok(Exit::Succeeded)
}

/// What the push needs from `Chart.yaml` (`kubepkg_source::push::chart_meta`).
pub(crate) fn chart_meta(m: &Metadata) -> kubepkg_oci::chart::ChartMeta {
    kubepkg_source::push::chart_meta(m)
}
