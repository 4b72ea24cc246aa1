//! `kubepkg.lock`: the exact chart of each `chart: {repository, name, version}` (or `path:
//! oci://…` with `version:`) component of `kubepkg.yaml` — the version its constraint resolved
//! to and the chart archive's SHA-256 —, next to the manifest. `kubepkg package lock` writes it (`kubepkg_source::package::lock`); `plan` and
//! `apply` fetch exactly what it says (`kubepkg_source::package::fetch_locked`), from kubepkg's
//! chart cache when the digest is there, so a locked package renders the same charts
//! tomorrow and installs with the repository gone once its charts are cached.
//!
//! ```yaml
//! # kubepkg.lock: written by `kubepkg package lock`; do not edit.
//! components:
//!   db:
//!     repository: "https://charts.example"
//!     name: "postgresql"
//!     version: "15.5.3"
//!     digest: "sha256:…"
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::{LockError, PackageError};

/// The lock file's name, next to `kubepkg.yaml`.
pub const LOCK_FILE: &str = "kubepkg.lock";

/// Where `kubepkg package push` puts the locked charts inside the package archive it
/// publishes (`<chart name>-<version>.tgz`), so the installed package never needs the chart's
/// repository or registry: a locked chart found here with the locked digest is used first.
pub const VENDOR_DIR: &str = "vendor/charts";

/// `kubepkg.lock`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockFile {
    /// Component name → its locked chart.
    #[serde(default)]
    pub components: BTreeMap<String, LockedChart>,
}

/// One component's locked chart.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedChart {
    /// A chart repository URL, or a registry repository `oci://host/repo`.
    pub repository: String,
    pub name: String,
    /// The exact version.
    pub version: String,
    /// `sha256:<hex>` of the chart archive.
    pub digest: String,
}

impl LockedChart {
    /// Whether this entry still is what `wanted` asks for: the same repository (a trailing `/`
    /// aside) and chart, and a version equal to its constraint or allowed by it.
    pub fn satisfies(&self, wanted: &crate::manifest::RepositoryChart) -> bool {
        self.repository.trim_end_matches('/') == wanted.repository.trim_end_matches('/')
            && self.name == wanted.name
            && (self.version == wanted.version
                || matches!(
                    (
                        kubepkg_semver::Constraints::parse(&wanted.version),
                        kubepkg_semver::Version::parse(&self.version)
                    ),
                    (Ok(c), Ok(v)) if c.check(&v)
                ))
    }
}

/// The archive of digest `sha256:<hex>` in the package's [`VENDOR_DIR`], if there is one.
pub fn vendored_archive(root: &Path, digest: &str) -> Option<std::path::PathBuf> {
    let want = digest.strip_prefix("sha256:").unwrap_or(digest);
    std::fs::read_dir(root.join(VENDOR_DIR))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|e| e == "tgz")
                && std::fs::read(p)
                    .is_ok_and(|b| crate::manifest::digest(&b) == format!("sha256:{want}"))
        })
}

impl LockFile {
    /// The lock of the package at `root`, if it has one.
    pub fn read(root: &Path) -> Result<Option<LockFile>, PackageError> {
        let path = root.join(LOCK_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(PackageError::Io { path, source }),
        };
        LockFile::parse(&text)
            .map(Some)
            .map_err(|source| PackageError::Lock { path, source })
    }

    /// A lock file's text, read as every YAML file of kubepkg is (`kubepkg-yaml`: go-yaml's
    /// reading and its errors, with their line), into the lock's shape.
    fn parse(text: &str) -> Result<LockFile, LockError> {
        let json = kubepkg_yaml::yaml_to_json(text)?;
        if json == "null" {
            return Ok(LockFile::default());
        }
        serde_json::from_str(&json).map_err(LockError::Shape)
    }

    /// The file's text (strings quoted as JSON, which is YAML).
    pub fn to_yaml(&self) -> String {
        let q = |s: &str| serde_json::Value::String(s.to_string()).to_string();
        let mut out = String::from(
            "# kubepkg.lock: written by `kubepkg package lock`; do not edit.\ncomponents:",
        );
        if self.components.is_empty() {
            out.push_str(" {}");
        }
        out.push('\n');
        for (name, c) in &self.components {
            out.push_str(&format!(
                "  {}:\n    repository: {}\n    name: {}\n    version: {}\n    digest: {}\n",
                q(name),
                q(&c.repository),
                q(&c.name),
                q(&c.version),
                q(&c.digest)
            ));
        }
        out
    }

    /// Writes `root/kubepkg.lock`.
    pub fn write(&self, root: &Path) -> Result<(), PackageError> {
        let path = root.join(LOCK_FILE);
        std::fs::write(&path, self.to_yaml()).map_err(|source| PackageError::Io { path, source })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(LockFile::read(dir.path()).unwrap(), None);
        let mut lock = LockFile::default();
        lock.components.insert(
            "db".into(),
            LockedChart {
                repository: "https://charts.example".into(),
                name: "postgresql".into(),
                version: "15.5.3".into(),
                digest: "sha256:00".into(),
            },
        );
        lock.write(dir.path()).unwrap();
        assert_eq!(LockFile::read(dir.path()).unwrap(), Some(lock));
    }

    #[test]
    fn a_damaged_lock_names_the_file_and_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        std::fs::write(&path, "components:\n  db:\n    name: [unclosed\n").unwrap();
        let e = LockFile::read(dir.path()).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("cannot read {}: ", path.display())),
            "{e}"
        );
        assert!(e.contains("yaml: line "), "{e}");
        std::fs::write(&path, "components:\n  db: {name: x, colour: red}\n").unwrap();
        let e = LockFile::read(dir.path()).unwrap_err().to_string();
        assert!(e.ends_with(": unknown field `colour`, expected one of `repository`, `name`, `version`, `digest`"), "{e}");
    }
}
