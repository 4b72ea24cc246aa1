//! Charts in OCI registries (`oci://host[:port]/repo/chart`), as Helm stores them.

use crate::{HelmPaths, LocatedChart, SourceError, SourceOptions};

/// Pulls the chart `reference` names (at `options.version`) into the cache.
pub async fn locate(
    reference: &str,
    _options: &SourceOptions,
    _paths: &HelmPaths,
) -> Result<LocatedChart, SourceError> {
    Err(SourceError::Unsupported {
        reference: reference.to_string(),
        what: "charts in OCI registries",
    })
}
