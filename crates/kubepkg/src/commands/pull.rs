//! `kubepkg pull CHART`: download a chart archive from a registry or chart repository into a
//! directory, as `helm pull` does (`--untar` unpacks it there, through the same safe archive
//! reader every chart goes through).

use std::path::Path;

use anyhow::{Context, Result, bail};

use super::locate_chart;
use crate::cli::PullArgs;
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn run(args: PullArgs, settings: &Settings) -> Result<Exit> {
    let located = locate_chart(&args.chart, &args.source, settings).await?;
    if located.origin.is_none() {
        bail!(
            "{}: pull downloads charts from registries and chart repositories; this is a local chart already",
            args.chart
        );
    }
    let file_name = located
        .path
        .file_name()
        .context("the located chart has no file name")?;
    std::fs::create_dir_all(&args.destination)
        .with_context(|| format!("creating {}", args.destination.display()))?;
    if !args.untar {
        let target = args.destination.join(file_name);
        std::fs::copy(&located.path, &target)
            .with_context(|| format!("writing {}", target.display()))?;
        return Ok(Exit::Succeeded);
    }
    untar(&located.path, &args.destination.join(&args.untardir))?;
    Ok(Exit::Succeeded)
}

/// Unpacks the chart archive at `archive` into `dir/<chart name>/`, refusing what every chart
/// archive is refused for (links, paths outside the chart, the size limits).
fn untar(archive: &Path, dir: &Path) -> Result<()> {
    let raw = std::fs::read(archive).with_context(|| format!("reading {}", archive.display()))?;
    let origin = archive.display().to_string();
    let limits = kubepkg_chart::archive::Limits::default();
    let files = kubepkg_chart::archive::load_archive_files(&raw, &origin, &limits)?;
    let chart = kubepkg_chart::chart::load_archive(&raw, &origin)?;
    let root = dir.join(&chart.metadata.name);
    for file in files {
        let path = root.join(&file.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, &file.data).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
