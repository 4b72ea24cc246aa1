//! Charts in Helm chart repositories (`REPO/CHART`, `--repo URL`, archive URLs).

use crate::{ChartRef, HelmPaths, LocatedChart, SourceError, SourceOptions};

/// Downloads the chart `reference` names (at `options.version`) into the cache.
pub async fn locate(
    reference: &ChartRef,
    _options: &SourceOptions,
    _paths: &HelmPaths,
) -> Result<LocatedChart, SourceError> {
    let reference = match reference {
        ChartRef::Repo { repo, chart } => format!("{repo}/{chart}"),
        ChartRef::RepoUrl { url, chart } => format!("{chart} (--repo {url})"),
        ChartRef::Url(url) => url.clone(),
        ChartRef::Local(p) => p.display().to_string(),
        ChartRef::Oci(r) => r.clone(),
    };
    Err(SourceError::Unsupported {
        reference,
        what: "charts from chart repositories",
    })
}
