//! Why a Package cannot be applied as written — its status, not a retried error: the fetched
//! archive does not load, or its backend's settings (`spec.flux`, `spec.argocd`) cannot be
//! used. The reconcile writes [`kubepkg_engine::error::report`] of it as the `Stalled`
//! condition's message.

use std::path::PathBuf;

use crate::source::SourceError;

/// Why a Package's archive or backend settings cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PackageProblem {
    /// The controller's scratch directory for the archive could not be made.
    #[error("scratch directory {}", dir.display())]
    Scratch {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The fetched archive could not be written to the scratch directory.
    #[error("writing {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The archive fetched from `origin` is not a valid package, or the charts its
    /// `kubepkg.lock` names could not be had.
    #[error("{origin}")]
    Load {
        origin: String,
        #[source]
        source: Box<kubepkg_source::SourceError>,
    },
    /// `FIELD.chartRepository` is not an OCI repository reference.
    #[error("{field}.chartRepository {repository}")]
    ChartRepository {
        field: &'static str,
        repository: String,
        #[source]
        source: Box<kubepkg_oci::Error>,
    },
    /// The registry client of `FIELD` (its pull Secret) could not be built.
    #[error("{field}")]
    Registry {
        field: &'static str,
        #[source]
        source: Box<SourceError>,
    },
}
