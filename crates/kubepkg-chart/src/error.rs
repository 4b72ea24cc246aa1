//! The errors of chart loading, values, dependencies and rendering. Each message is Helm's text
//! for the same failure where Helm has one, prefixed with the file or chart it concerns.

use std::path::PathBuf;

/// Everything that can go wrong between a chart path and rendered manifests: what went wrong
/// ([`ChartErrorKind`], whose text is Helm's) and the chart it concerns, when known
/// (set by [`crate::load`] and [`crate::render_release`]).
#[derive(Debug)]
pub struct ChartError {
    /// The chart (directory or archive) the error concerns.
    pub path: Option<PathBuf>,
    pub kind: ChartErrorKind,
}

impl std::fmt::Display for ChartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The kind's text is Helm's and already names the file where Helm does.
        self.kind.fmt(f)
    }
}

impl std::error::Error for ChartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.kind)
    }
}

impl From<ChartErrorKind> for ChartError {
    fn from(kind: ChartErrorKind) -> Self {
        ChartError { path: None, kind }
    }
}

impl ChartError {
    /// The same error, concerning the chart at `path` (kept if already set: the innermost
    /// chart, e.g. a subchart, is the one named).
    pub fn in_chart(mut self, path: &std::path::Path) -> Self {
        self.path.get_or_insert_with(|| path.to_path_buf());
        self
    }
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChartErrorKind {
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
    /// A post-renderer failed or answered something that is not manifests (Helm's texts:
    /// `error while running post render on files: …`).
    #[error("{0}")]
    PostRender(String),
}

impl ChartError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ChartError {
        ChartErrorKind::Io {
            path: path.into(),
            source,
        }
        .into()
    }
}

/// Go's text of an `*os.PathError`'s cause (`no such file or directory`).
pub(crate) fn go_io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::NotADirectory => "not a directory".into(),
        _ => e.to_string(),
    }
}

/// Result alias of this crate.
pub type Result<T, E = ChartError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_errors_name_the_chart_and_keep_their_kind() {
        let dir = std::env::temp_dir().join(format!("kubepkg-chart-err-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("Chart.yaml"), "apiVersion: v2\nversion: 1.0.0\n").unwrap();
        let e = crate::load(&dir).unwrap_err();
        assert_eq!(e.path.as_deref(), Some(dir.as_path()));
        assert!(matches!(e.kind, ChartErrorKind::Validation(_)), "{e:?}");
        assert_eq!(e.to_string(), "validation: chart.metadata.name is required");
        let missing = dir.join("nope");
        let e = crate::load(&missing).unwrap_err();
        assert_eq!(e.path.as_deref(), Some(missing.as_path()));
        assert!(matches!(e.kind, ChartErrorKind::Io { .. }), "{e:?}");
        assert!(std::error::Error::source(&e).is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
