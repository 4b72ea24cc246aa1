//! A new chart exactly as `helm create NAME` writes it (Helm v4.3.1's default scaffold, kept
//! in `scaffold/` and regenerated from the real `helm` by `tools/lint-ref/scaffold.sh`): the
//! same files, bytes, order and modes, with the chart name put where Helm puts it (Helm's
//! `<CHARTNAME>` placeholder). Unlike Helm, an existing non-empty directory is refused rather
//! than overwritten file by file.

use std::path::{Path, PathBuf};

/// The longest chart name Helm accepts.
pub const MAX_NAME_LENGTH: usize = 250;

/// Helm's placeholder for the chart name in the scaffold.
const PLACEHOLDER: &str = "<CHARTNAME>";

/// The scaffold's files in the order `helm create` writes them.
const SCAFFOLD: &[(&str, &str)] = &[
    ("Chart.yaml", include_str!("scaffold/Chart.yaml")),
    ("values.yaml", include_str!("scaffold/values.yaml")),
    (".helmignore", include_str!("scaffold/helmignore")),
    (
        "templates/ingress.yaml",
        include_str!("scaffold/templates__ingress.yaml"),
    ),
    (
        "templates/httproute.yaml",
        include_str!("scaffold/templates__httproute.yaml"),
    ),
    (
        "templates/deployment.yaml",
        include_str!("scaffold/templates__deployment.yaml"),
    ),
    (
        "templates/service.yaml",
        include_str!("scaffold/templates__service.yaml"),
    ),
    (
        "templates/serviceaccount.yaml",
        include_str!("scaffold/templates__serviceaccount.yaml"),
    ),
    (
        "templates/hpa.yaml",
        include_str!("scaffold/templates__hpa.yaml"),
    ),
    (
        "templates/NOTES.txt",
        include_str!("scaffold/templates__NOTES.txt"),
    ),
    (
        "templates/_helpers.tpl",
        include_str!("scaffold/templates___helpers.tpl"),
    ),
    (
        "templates/tests/test-connection.yaml",
        include_str!("scaffold/templates__tests__test-connection.yaml"),
    ),
];

/// Why a chart could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// The name breaks Helm's rule (its message).
    #[error("{0}")]
    InvalidName(String),
    /// The target exists and is a file.
    #[error("file {} already exists and is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// The target directory exists and has files in it.
    #[error("{} already exists and is not empty; create writes into a new or empty directory only", .0.display())]
    NotEmpty(PathBuf),
    /// A directory or file could not be made.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Helm's `validateChartName`.
pub fn validate_name(name: &str) -> Result<(), CreateError> {
    if name.is_empty() || name.len() > MAX_NAME_LENGTH {
        return Err(CreateError::InvalidName(format!(
            "chart name must be between 1 and {MAX_NAME_LENGTH} characters"
        )));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err(CreateError::InvalidName(
            "chart name must match the regular expression \"^[a-zA-Z0-9._-]+$\"".into(),
        ));
    }
    Ok(())
}

/// The scaffold of chart `name`: chart-relative path and contents, in Helm's order.
pub fn scaffold(name: &str) -> Vec<(&'static str, String)> {
    SCAFFOLD
        .iter()
        .map(|(path, text)| (*path, text.replace(PLACEHOLDER, name)))
        .collect()
}

/// Refuses `dir` when it exists and is not an empty directory.
pub fn check_target(dir: &Path) -> Result<(), CreateError> {
    match std::fs::metadata(dir) {
        Err(_) => Ok(()),
        Ok(m) if !m.is_dir() => Err(CreateError::NotADirectory(dir.to_path_buf())),
        Ok(_) => {
            let mut entries = std::fs::read_dir(dir).map_err(|source| CreateError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
            match entries.next() {
                None => Ok(()),
                Some(_) => Err(CreateError::NotEmpty(dir.to_path_buf())),
            }
        }
    }
}

/// Writes the chart `name` into `dir` (created, with `charts/`), as `helm create` does: files
/// of mode 0644 and directories of 0755 (less the umask).
pub fn create(name: &str, dir: &Path) -> Result<(), CreateError> {
    validate_name(name)?;
    check_target(dir)?;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CreateError::Io { path, source }
    };
    for (rel, text) in scaffold(name) {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, text).map_err(io(&path))?;
    }
    let charts = dir.join("charts");
    std::fs::create_dir_all(&charts).map_err(io(&charts))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_helms_rule() {
        assert!(validate_name("my-chart_1.0").is_ok());
        assert!(validate_name("").is_err());
        assert!(validate_name("bad/name").is_err());
        assert!(validate_name(&"a".repeat(251)).is_err());
    }

    #[test]
    fn the_name_replaces_the_placeholder() {
        let files = scaffold("web");
        assert_eq!(files.len(), 12);
        assert!(files.iter().all(|(_, t)| !t.contains(PLACEHOLDER)));
        assert!(files[0].1.contains("name: web"));
    }
}
