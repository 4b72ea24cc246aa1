//! Where charts (and packages) come from: a chart reference as a user types it — a local
//! directory or archive, `oci://host/repo/chart`, `REPO/CHART` from a Helm chart repository
//! added with `helm repo add` or `kubepkg repo add`, or an archive URL — located as a local
//! chart the chart loader reads. This is the one place that decides what a reference means
//! ([`ChartRef::parse`], the order of Helm's `ChartPathOptions.LocateChart`) and fetches it
//! ([`locate_chart`]); the commands `template`, `install`, `upgrade`, `pull` and `show` all
//! call it, so they read references alike.
//!
//! Modules: [`paths`] (Helm's configuration and cache files, resolved once from the
//! environment), [`oci`] (charts in OCI registries), [`repo`] (Helm chart repositories),
//! [`package`] (the repository charts of a package, by its `kubepkg.lock`), [`push`] (a chart
//! pushed to a registry with Helm's layout).
//!
//! - [`HelmPaths`]: Helm's paths (repositories, registry config, Docker's config, kubepkg's
//!   cache), resolved once.
//! - [`oci`]: charts and packages from registries through `kubepkg-oci`, with a client built
//!   from the source flags; `--verify-key` files become a `kubepkg_oci::signature::Verifier`,
//!   and are refused for any reference but `oci://`.
//! - [`repo`]: `REPO/CHART`, `--repo URL` and archive URLs through `kubepkg-repo`.
//! - [`package`]: [`package::lock`] writes `kubepkg.lock`; [`package::fetch_locked`], called by
//!   the CLI's package loader, fetches what it says; [`package::fetch_git`] and
//!   [`package::load_checkout`] take a package from a Git repository (`kubepkg-git`) into the
//!   same loader.
//! - [`push`]: used by `render --push-charts` and the engine's Flux and Argo CD backends
//!   (`kubepkg push` takes its Chart.yaml metadata from here).
//!
//! This crate depends on `kubepkg-package` (for `kubepkg.lock`), so it sits above it in the
//! layer order (docs/architecture.md).

use std::path::{Path, PathBuf};

pub mod oci;
pub mod package;
pub mod paths;
pub mod push;
pub mod repo;

pub use paths::HelmPaths;

/// How a chart is fetched: Helm's flags of `install`, `upgrade`, `template`, `pull` and `show`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceOptions {
    /// `--version`: an exact version or a SemVer constraint; `None`: the latest stable one.
    pub version: Option<String>,
    /// `--devel`: also consider pre-release versions (when `version` is unset).
    pub devel: bool,
    /// `--repo`: the chart repository URL a bare chart name is looked up in.
    pub repo_url: Option<String>,
    /// `--username` / `--password` for the repository or registry.
    pub username: Option<String>,
    pub password: Option<String>,
    /// `--pass-credentials`: send the credentials to every host an index points at.
    pub pass_credentials: bool,
    /// `--ca-file`, `--cert-file`, `--key-file`.
    pub ca_file: Option<PathBuf>,
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    /// `--insecure-skip-tls-verify`.
    pub insecure_skip_tls_verify: bool,
    /// `--plain-http`: talk HTTP, not HTTPS, to an OCI registry.
    pub plain_http: bool,
    /// `--verify-key`: cosign public keys (`cosign.pub`); when any is given, an `oci://`
    /// artifact must carry a cosign signature by one of them, checked before it is used.
    pub verify_keys: Vec<PathBuf>,
}

/// What a chart reference means, decided before anything is fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartRef {
    /// A chart directory or archive on disk.
    Local(PathBuf),
    /// A chart in an OCI registry: the whole reference, `oci://host[:port]/repo/chart[:tag|@digest]`.
    Oci(String),
    /// `REPO/CHART` of a repository in Helm's `repositories.yaml`.
    Repo { repo: String, chart: String },
    /// A chart name looked up in the repository given by `--repo URL`.
    RepoUrl { url: String, chart: String },
    /// A chart archive's own URL (`https://…/chart-1.0.0.tgz`).
    Url(String),
}

impl ChartRef {
    /// The meaning of `reference`, in Helm's order: `oci://` first, then an existing local
    /// path, then (with `--repo`) a chart name in that repository, then an archive URL, then
    /// `REPO/CHART`. A path that does not exist and looks like one (absolute, or starting with
    /// `.`) is an error naming it, as Helm's `path "…" not found`.
    pub fn parse(reference: &str, repo_url: Option<&str>) -> Result<ChartRef, SourceError> {
        let reference = reference.trim();
        if reference.starts_with("oci://") {
            return Ok(ChartRef::Oci(reference.to_string()));
        }
        let path = Path::new(reference);
        if path.exists() {
            return Ok(ChartRef::Local(path.to_path_buf()));
        }
        if path.is_absolute() || reference.starts_with('.') {
            return Err(SourceError::PathNotFound(path.to_path_buf()));
        }
        if let Some(url) = repo_url.filter(|u| !u.is_empty()) {
            return Ok(ChartRef::RepoUrl {
                url: url.to_string(),
                chart: reference.to_string(),
            });
        }
        if reference.contains("://") {
            return Ok(ChartRef::Url(reference.to_string()));
        }
        match reference.split_once('/') {
            Some((repo, chart)) if !repo.is_empty() && !chart.is_empty() => Ok(ChartRef::Repo {
                repo: repo.to_string(),
                chart: chart.to_string(),
            }),
            _ => Err(SourceError::NotAChartReference(reference.to_string())),
        }
    }
}

/// A chart located on disk, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedChart {
    /// A chart directory or `.tgz` archive the chart loader reads.
    pub path: PathBuf,
    /// Where it came from (a registry reference with its digest, a repository URL); `None`
    /// for a local chart.
    pub origin: Option<Origin>,
    /// What the repository index said that the user should see (Helm prints these on
    /// standard error, e.g. a deprecated chart); the caller shows them.
    pub warnings: Vec<String>,
}

/// What was resolved for a remote chart: the reference, the exact version and the digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub reference: String,
    pub version: String,
    pub digest: Option<String>,
}

/// Locates `reference` as a local chart, fetching it (into the cache) when it is remote.
pub async fn locate_chart(
    reference: &str,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<LocatedChart, SourceError> {
    let parsed = ChartRef::parse(reference, options.repo_url.as_deref())?;
    if !options.verify_keys.is_empty() && !matches!(parsed, ChartRef::Oci(_)) {
        return Err(SourceError::VerifyNeedsOci {
            reference: reference.to_string(),
        });
    }
    match parsed {
        ChartRef::Local(path) => Ok(LocatedChart {
            path,
            origin: None,
            warnings: Vec::new(),
        }),
        ChartRef::Oci(reference) => oci::locate(&reference, options, paths).await,
        other => repo::locate(&other, options, paths).await,
    }
}

/// Why a chart could not be located.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// Helm's text for a path-like reference that does not exist.
    #[error("path {:?} not found", .0.display().to_string())]
    PathNotFound(PathBuf),
    /// Neither a path, a URL, `oci://…` nor `REPO/CHART` (Helm's text).
    #[error("non-absolute URLs should be in form of repo_name/path_to_chart, got: {0}")]
    NotAChartReference(String),
    /// The chart could not be found in, or fetched from, a chart repository.
    #[error(transparent)]
    Repo(Box<kubepkg_repo::RepoError>),
    /// The chart archive could not be downloaded.
    #[error("downloading {reference}")]
    Download {
        reference: String,
        #[source]
        source: Box<kubepkg_repo::RepoError>,
    },
    /// A package's `kubepkg.lock` could not be read.
    #[error(transparent)]
    Package(Box<kubepkg_model::PackageError>),
    /// A repository component has no `kubepkg.lock` entry.
    #[error(
        "component {component}: kubepkg.lock has no entry for its chart ({chart}); run 'kubepkg package lock'"
    )]
    NotLocked { component: String, chart: String },
    /// A `kubepkg.lock` entry no longer matches `kubepkg.yaml`.
    #[error(
        "component {component}: kubepkg.lock has {locked}, but kubepkg.yaml asks for {wanted}; run 'kubepkg package lock'"
    )]
    LockMismatch {
        component: String,
        locked: String,
        wanted: String,
    },
    /// A registry refused or failed a request, or sent what was not expected (the message
    /// names the reference and what to do).
    #[error(transparent)]
    Oci(#[from] kubepkg_oci::Error),
    /// `--verify-key` for a chart or package that is not in an OCI registry.
    #[error(
        "{reference}: --verify-key checks cosign signatures of oci:// artifacts, and this is not one; leave out --verify-key or give an oci:// reference"
    )]
    VerifyNeedsOci { reference: String },
    /// A `--verify-key` file could not be read.
    #[error("reading the verification key {}: {source}", path.display())]
    ReadKey {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A `--verify-key` file is not a usable cosign public key.
    #[error(transparent)]
    Key(#[from] kubepkg_oci::signature::KeyError),
    /// A fetched file could not be written.
    #[error("writing {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A Git source could not be read (the message names the source and what to do).
    #[error(transparent)]
    Git(#[from] kubepkg_git::GitError),
    /// A kind of source this build does not fetch yet.
    #[error("{reference}: {what} are not supported yet")]
    Unsupported {
        reference: String,
        what: &'static str,
    },
}

impl From<kubepkg_repo::RepoError> for SourceError {
    fn from(e: kubepkg_repo::RepoError) -> Self {
        SourceError::Repo(Box::new(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_mean_what_they_mean_to_helm() {
        let dir = tempfile::tempdir().unwrap();
        let local = dir.path().join("mychart");
        std::fs::create_dir(&local).unwrap();
        let local_s = local.to_str().unwrap();
        assert_eq!(
            ChartRef::parse(local_s, None).unwrap(),
            ChartRef::Local(local.clone())
        );
        // An existing path wins over --repo, as in Helm.
        assert_eq!(
            ChartRef::parse(local_s, Some("https://charts.example")).unwrap(),
            ChartRef::Local(local)
        );
        assert_eq!(
            ChartRef::parse("oci://reg.example/charts/app:1.0.0", None).unwrap(),
            ChartRef::Oci("oci://reg.example/charts/app:1.0.0".into())
        );
        assert_eq!(
            ChartRef::parse("bitnami/postgresql", None).unwrap(),
            ChartRef::Repo {
                repo: "bitnami".into(),
                chart: "postgresql".into()
            }
        );
        assert_eq!(
            ChartRef::parse("postgresql", Some("https://charts.example")).unwrap(),
            ChartRef::RepoUrl {
                url: "https://charts.example".into(),
                chart: "postgresql".into()
            }
        );
        assert_eq!(
            ChartRef::parse("https://charts.example/app-1.0.0.tgz", None).unwrap(),
            ChartRef::Url("https://charts.example/app-1.0.0.tgz".into())
        );
    }

    #[test]
    fn missing_paths_and_non_references_are_refused() {
        let err = ChartRef::parse("./nothing-here", None).unwrap_err();
        assert_eq!(err.to_string(), r#"path "./nothing-here" not found"#);
        let err = ChartRef::parse("/no/such/chart", None).unwrap_err();
        assert_eq!(err.to_string(), r#"path "/no/such/chart" not found"#);
        let err = ChartRef::parse("justaname", None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "non-absolute URLs should be in form of repo_name/path_to_chart, got: justaname"
        );
    }
}
