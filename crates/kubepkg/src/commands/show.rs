//! `kubepkg show chart|values|readme|crds|all CHART`: what `helm show` prints, for a chart
//! directory, a `.tgz`, or a chart reference located as `pull` and `template` locate one
//! (`oci://…`, `REPO/CHART`, a URL, `--repo`, `--version`).

use std::io::Write;

use anyhow::Result;

use super::locate_chart;
use crate::cli::{ShowArgs, ShowCommand};
use crate::exit::Exit;
use crate::settings::Settings;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    All,
    Chart,
    Values,
    Readme,
    Crds,
}

pub async fn run(cmd: ShowCommand, settings: &Settings) -> Result<Exit> {
    let (part, args) = match cmd {
        ShowCommand::All(a) => (Part::All, a),
        ShowCommand::Chart(a) => (Part::Chart, a),
        ShowCommand::Values(a) => (Part::Values, a),
        ShowCommand::Readme(a) => (Part::Readme, a),
        ShowCommand::Crds(a) => (Part::Crds, a),
    };
    let out = show(part, &args, settings).await?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(Exit::Succeeded)
}

/// Helm's `action.Show.Run`.
async fn show(part: Part, args: &ShowArgs, settings: &Settings) -> Result<String> {
    let located = locate_chart(&args.chart, &args.source, settings).await?;
    let chart = kubepkg_chart::load(&located.path)?;
    let files = kubepkg_chart::chart::chart_files(&located.path)?;
    let mut out = String::new();
    if matches!(part, Part::Chart | Part::All) {
        out.push_str(&kubepkg_chart::save::chart_yaml(&chart.metadata, true)?);
        out.push('\n');
    }
    if matches!(part, Part::Values | Part::All)
        && let Some(values) = files.iter().find(|f| f.name == "values.yaml")
    {
        if part == Part::All {
            out.push_str("---\n");
        }
        out.push_str(&String::from_utf8_lossy(&values.data));
        out.push('\n');
    }
    if matches!(part, Part::Readme | Part::All) {
        let readme = chart.files.iter().find(|f| {
            ["readme.md", "readme.txt", "readme"]
                .iter()
                .any(|n| f.name.eq_ignore_ascii_case(n))
        });
        if let Some(r) = readme {
            if part == Part::All {
                out.push_str("---\n");
            }
            out.push_str(&String::from_utf8_lossy(&r.data));
            out.push('\n');
        }
    }
    if matches!(part, Part::Crds | Part::All) {
        for (_, data) in chart.crd_objects(chart.name()) {
            if !data.starts_with(b"---") {
                out.push_str("---\n");
            }
            out.push_str(&String::from_utf8_lossy(&data));
            out.push('\n');
        }
    }
    Ok(out)
}
