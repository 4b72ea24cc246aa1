//! The errors of chart loading, values, dependencies and rendering. Each message is Helm's text
//! for the same failure where Helm has one, prefixed with the file or chart it concerns.

use std::path::PathBuf;

/// Everything that can go wrong between a chart path and rendered manifests.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// A file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A chart archive is unsafe or malformed (path escape, link, size or count limit, not gzip).
    #[error("{0}")]
    Archive(String),
    /// `Chart.yaml`, `Chart.lock`, `requirements.yaml`, `values.yaml` or `.helmignore` could not
    /// be decoded; the message names the file.
    #[error("{0}")]
    Load(String),
    /// `Chart.yaml` fails Helm's validation (`validation: chart.metadata.name is required`).
    #[error("validation: {0}")]
    Validation(String),
    /// A chart cannot be installed or rendered as asked (library chart, missing dependency,
    /// incompatible kubeVersion).
    #[error("{0}")]
    Chart(String),
    /// User-supplied values could not be read or parsed (`-f`, `--set*`).
    #[error("{0}")]
    Values(String),
    /// The coalesced values violate a chart's `values.schema.json`.
    #[error("{0}")]
    Schema(String),
    /// A template failed to parse or execute (Helm's `parse error at (...)` /
    /// `execution error at (...)` texts).
    #[error("{0}")]
    Render(String),
    /// A rendered document is not valid YAML or has a malformed head.
    #[error("{0}")]
    Manifest(String),
}

impl ChartError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ChartError {
        ChartError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result alias of this crate.
pub type Result<T, E = ChartError> = std::result::Result<T, E>;
