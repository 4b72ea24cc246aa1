//! Helm chart repositories, kept as Helm keeps them so `helm` and kubepkg share them:
//! `repositories.yaml` ([`config`]), the repository cache (`<cache>/NAME-index.yaml` and
//! `NAME-charts.txt`, written whole: temporary file + rename, mode 0644), `index.yaml`
//! ([`index`]: Helm's loader and version selection), `search repo` ([`search`]), and chart
//! downloads into kubepkg's content cache (`<kubepkg cache>/charts/<sha256>/<file>.tgz`,
//! written whole and only after the index's digest matched, so nothing is ever half-cached and a
//! second use of the same digest does no transfer).
//!
//! Every request goes through `kubepkg_fetch` (the one HTTP client) with the repository's TLS
//! settings and credentials (sent to the repository's own host only, unless
//! `pass_credentials_all`), Helm's 120 s timeout and a size cap per body ([`Limits`]:
//! `KUBEPKG_MAX_REPO_INDEX`, `KUBEPKG_MAX_CHART_DOWNLOAD`).
//!
//! Error texts are Helm's, with `helm` replaced by `kubepkg` where they tell the user what to run.
//!
//! Entry points: [`add`], [`update`], [`remove`] (the `repo` verbs); [`resolve_in_repo`],
//! [`resolve_in_url`] and [`resolve_url`] (a chart and version to an archive URL, with
//! `IndexFile::get`'s version selection and [`url`]'s `ResolveReferenceURL`);
//! [`download_chart`] (into the content cache, digest checked before anything is written).
//! The user-facing rules are in docs/repositories.md.

pub mod config;
pub mod index;
pub mod search;
pub mod url;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest as _, Sha256};

pub use config::{Entry, RepoFile, RepoFileLock};
pub use index::{ChartVersion, IndexFile, Loaded, Skipped};

/// Where the shared files are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Paths {
    /// Helm's `repositories.yaml`.
    pub repository_config: PathBuf,
    /// Helm's repository cache directory.
    pub repository_cache: PathBuf,
    /// kubepkg's own content cache (charts are kept under `charts/`).
    pub content_cache: PathBuf,
}

impl Paths {
    /// `<cache>/NAME-index.yaml`, as Helm's `helmpath.CacheIndexFile`.
    pub fn index_file(&self, name: &str) -> PathBuf {
        self.repository_cache.join(format!("{name}-index.yaml"))
    }
    /// `<cache>/NAME-charts.txt`, as Helm's `helmpath.CacheChartsFile`.
    pub fn charts_file(&self, name: &str) -> PathBuf {
        self.repository_cache.join(format!("{name}-charts.txt"))
    }
}

/// The size caps of downloads ([limits](../../../docs/limits.md)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub index_bytes: u64,
    pub chart_bytes: u64,
}

/// Variable raising the cap of an `index.yaml` download.
pub const MAX_INDEX_VAR: &str = "KUBEPKG_MAX_REPO_INDEX";
/// Variable raising the cap of a chart archive download.
pub const MAX_CHART_VAR: &str = "KUBEPKG_MAX_CHART_DOWNLOAD";

impl Default for Limits {
    fn default() -> Self {
        Limits {
            index_bytes: 256 << 20,
            chart_bytes: 100 << 20,
        }
    }
}

impl Limits {
    /// The defaults, raised or lowered by `KUBEPKG_MAX_REPO_INDEX` and
    /// `KUBEPKG_MAX_CHART_DOWNLOAD` (whole numbers of bytes, `_` separators allowed).
    pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<Limits, RepoError> {
        let mut limits = Limits::default();
        for (var, slot) in [
            (MAX_INDEX_VAR, &mut limits.index_bytes),
            (MAX_CHART_VAR, &mut limits.chart_bytes),
        ] {
            if let Some(value) = env(var).filter(|v| !v.is_empty()) {
                *slot = value
                    .replace('_', "")
                    .parse()
                    .map_err(|_| RepoError::BadLimit {
                        variable: var,
                        value,
                    })?;
            }
        }
        Ok(limits)
    }

    fn index(&self) -> kubepkg_fetch::Limit {
        kubepkg_fetch::Limit {
            bytes: self.index_bytes,
            what: "repository index",
            variable: Some(MAX_INDEX_VAR),
        }
    }

    fn chart(&self) -> kubepkg_fetch::Limit {
        kubepkg_fetch::Limit {
            bytes: self.chart_bytes,
            what: "chart archive",
            variable: Some(MAX_CHART_VAR),
        }
    }
}

/// How requests to a repository are made: its TLS settings and credentials, the timeout and
/// the caps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    pub tls: kubepkg_fetch::TlsOptions,
    /// `(username, password)`.
    pub credentials: Option<(String, String)>,
    pub pass_credentials_all: bool,
    pub timeout: Duration,
    pub limits: Limits,
}

impl Default for Access {
    fn default() -> Self {
        Access {
            tls: kubepkg_fetch::TlsOptions::default(),
            credentials: None,
            pass_credentials_all: false,
            timeout: kubepkg_fetch::DEFAULT_TIMEOUT,
            limits: Limits::default(),
        }
    }
}

impl Access {
    /// The access `entry` of repositories.yaml describes.
    pub fn of_entry(entry: &Entry, timeout: Duration, limits: Limits) -> Access {
        let path = |s: &str| (!s.is_empty()).then(|| PathBuf::from(s));
        Access {
            tls: kubepkg_fetch::TlsOptions {
                ca_file: path(&entry.ca_file),
                cert_file: path(&entry.cert_file),
                key_file: path(&entry.key_file),
                insecure_skip_verify: entry.insecure_skip_tls_verify,
            },
            credentials: (!entry.username.is_empty() || !entry.password.is_empty())
                .then(|| (entry.username.clone(), entry.password.clone())),
            pass_credentials_all: entry.pass_credentials_all,
            timeout,
            limits,
        }
    }

    async fn get(
        &self,
        url: &str,
        origin: &str,
        limit: kubepkg_fetch::Limit,
        accept: Option<&str>,
    ) -> Result<Vec<u8>, RepoError> {
        let fetcher = kubepkg_fetch::Fetcher::new(&self.tls)?.with_timeout(self.timeout);
        let credentials =
            self.credentials
                .as_ref()
                .map(|(username, password)| kubepkg_fetch::Credentials {
                    username: username.clone(),
                    password: password.clone(),
                    origin: origin.to_string(),
                    pass_to_all_hosts: self.pass_credentials_all,
                });
        Ok(fetcher
            .get(kubepkg_fetch::Request {
                url,
                limit,
                credentials: credentials.as_ref(),
                accept,
            })
            .await?)
    }
}

/// Why a repository operation failed. Texts are Helm's where Helm has one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepoError {
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    #[error(transparent)]
    Fetch(#[from] kubepkg_fetch::FetchError),
    #[error(transparent)]
    Index(#[from] index::IndexError),
    #[error("error loading {}", .path.display())]
    CachedIndex {
        path: PathBuf,
        #[source]
        source: Box<RepoError>,
    },
    #[error("open {}: no such file or directory", .0.display())]
    NoFile(PathBuf),
    #[error("{variable}={value:?}: not a whole number of bytes")]
    BadLimit {
        variable: &'static str,
        value: String,
    },
    #[error("repository name ({0}) contains '/', please specify a different name without '/'")]
    NameHasSlash(String),
    #[error("repository name ({0}) already exists, please specify a different name")]
    NameExists(String),
    #[error("repo {url:?} is no longer available; try {instead:?} instead")]
    Deprecated { url: String, instead: &'static str },
    #[error("looks like {url:?} is not a valid chart repository or cannot be reached")]
    Unreachable {
        url: String,
        #[source]
        source: Box<RepoError>,
    },
    #[error("no repositories found. You must add one before updating")]
    NothingToUpdate,
    #[error("no repositories configured")]
    NoneConfigured,
    #[error("no repositories found matching '{0}'.  Nothing will be updated")]
    NotConfiguredForUpdate(String),
    #[error("failed to update the following repositories: [{}]", .0.join(" "))]
    UpdateFailed(Vec<String>),
    #[error("no repo named {0:?} found")]
    NoRepoNamed(String),
    #[error("repo {0} not found")]
    RepoNotFound(String),
    #[error("no URL found for repository {0}")]
    NoUrl(String),
    #[error("no cached repo found. (try 'kubepkg repo update')")]
    NoCachedRepo(#[source] Box<RepoError>),
    #[error(
        "chart {chart:?} matching {version} not found in {repo} index. (try 'kubepkg repo update')"
    )]
    ChartNotFound {
        chart: String,
        version: String,
        repo: String,
        #[source]
        source: Box<index::GetError>,
    },
    /// Helm's `ChartNotFoundError` (`--repo URL`).
    #[error("{chart} not found in {url} repository")]
    ChartNotFoundAt { chart: String, url: String },
    #[error("chart {0:?} has no downloadable URLs")]
    NoDownloadUrls(String),
    #[error(
        "the index's digest of {url} is {digest:?}, not a SHA-256 in hex; the repository's index is broken"
    )]
    BadDigest { url: String, digest: String },
    #[error(
        "{url}: the archive's sha256 is {actual}, but the repository index says {expected}; nothing was cached (the archive changed since the index was made, or was altered on the way; try 'kubepkg repo update')"
    )]
    DigestMismatch {
        url: String,
        expected: String,
        actual: String,
    },
    #[error("writing {}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

const DEPRECATED: &[(&str, &str)] = &[
    (
        "//kubernetes-charts.storage.googleapis.com",
        "https://charts.helm.sh/stable",
    ),
    (
        "//kubernetes-charts-incubator.storage.googleapis.com",
        "https://charts.helm.sh/incubator",
    ),
];

/// Writes `bytes` to `path` whole: a temporary file beside it, `mode`, then a rename (Helm's
/// `fileutil.AtomicWriteFile`).
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<(), RepoError> {
    let err = |source| RepoError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    config::create_dir(dir).map_err(err)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))?;
        }
        #[cfg(not(unix))]
        let _ = mode;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(err)
}

/// Downloads and validates `entry`'s index, then writes `NAME-charts.txt` and
/// `NAME-index.yaml` into the repository cache as Helm's `DownloadIndexFile` does (the bytes
/// as served). Returns what was loaded (with the skipped entries to warn about).
pub async fn download_index(
    entry: &Entry,
    paths: &Paths,
    access: &Access,
) -> Result<Loaded, RepoError> {
    let (bytes, loaded) = fetch_index(&entry.url, access).await?;
    let mut charts = String::new();
    for name in loaded.index.entries.keys() {
        charts.push_str(name);
        charts.push('\n');
    }
    write_atomic(&paths.charts_file(&entry.name), charts.as_bytes(), 0o644)?;
    write_atomic(&paths.index_file(&entry.name), &bytes, 0o644)?;
    Ok(loaded)
}

async fn fetch_index(url: &str, access: &Access) -> Result<(Vec<u8>, Loaded), RepoError> {
    let index_url = url::index_url(url);
    let bytes = access
        .get(&index_url, url, access.limits.index(), None)
        .await?;
    let loaded = index::load_index(&bytes, url)?;
    Ok((bytes, loaded))
}

/// Reads a repository's cached index (Helm's `LoadIndexFile`).
pub fn load_cached_index(paths: &Paths, name: &str) -> Result<Loaded, RepoError> {
    let path = paths.index_file(name);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(RepoError::NoFile(path));
        }
        Err(source) => return Err(RepoError::Write { path, source }),
    };
    index::load_index(&bytes, &path.display().to_string()).map_err(|e| RepoError::CachedIndex {
        path,
        source: Box::new(e.into()),
    })
}

/// What `repo add` did.
#[derive(Debug)]
pub enum Added {
    /// Added (or replaced with `--force-update`); the entries of its index that were skipped.
    Added(Vec<Skipped>),
    /// The same entry was there already: nothing done.
    AlreadyThere,
}

/// `repo add`: refuses Helm's deprecated URLs and names with `/`, a name taken with other
/// settings (unless `force_update`), an index that cannot be fetched or read; otherwise caches
/// the index and writes the entry, holding Helm's lock of `repositories.yaml`.
pub async fn add(
    paths: &Paths,
    entry: Entry,
    force_update: bool,
    timeout: Duration,
    limits: Limits,
) -> Result<Added, RepoError> {
    for (old, instead) in DEPRECATED {
        if entry.url.contains(old) {
            return Err(RepoError::Deprecated {
                url: entry.url.clone(),
                instead,
            });
        }
    }
    let _lock = RepoFileLock::acquire(&paths.repository_config)?;
    let mut file = RepoFile::load_or_default(&paths.repository_config)?;
    if entry.name.contains('/') {
        return Err(RepoError::NameHasSlash(entry.name));
    }
    if !force_update && let Some(existing) = file.get(&entry.name) {
        if *existing != entry {
            return Err(RepoError::NameExists(entry.name));
        }
        return Ok(Added::AlreadyThere);
    }
    let access = Access::of_entry(&entry, timeout, limits);
    let loaded =
        download_index(&entry, paths, &access)
            .await
            .map_err(|e| RepoError::Unreachable {
                url: entry.url.clone(),
                source: Box::new(e),
            })?;
    file.update(entry);
    file.write(&paths.repository_config)?;
    Ok(Added::Added(loaded.skipped))
}

/// The outcome of updating one repository.
#[derive(Debug)]
pub struct Updated {
    pub name: String,
    pub url: String,
    pub result: Result<Vec<Skipped>, RepoError>,
}

/// `repo update [NAME…]`: every named repository (all when `names` is empty) fetched at once;
/// the outcomes in repositories.yaml's order.
pub async fn update(
    paths: &Paths,
    names: &[String],
    timeout: Duration,
    limits: Limits,
) -> Result<Vec<Updated>, RepoError> {
    let file = match RepoFile::load(&paths.repository_config) {
        Err(e) if e.is_not_found() => return Err(RepoError::NothingToUpdate),
        other => other?,
    };
    if file.repositories.is_empty() {
        return Err(RepoError::NothingToUpdate);
    }
    for name in names {
        if file.get(name).is_none() {
            return Err(RepoError::NotConfiguredForUpdate(name.clone()));
        }
    }
    let mut set = tokio::task::JoinSet::new();
    for (i, entry) in file.repositories.iter().enumerate() {
        if !names.is_empty() && !names.contains(&entry.name) {
            continue;
        }
        let entry = entry.clone();
        let paths = paths.clone();
        set.spawn(async move {
            let access = Access::of_entry(&entry, timeout, limits);
            let result = download_index(&entry, &paths, &access)
                .await
                .map(|l| l.skipped);
            (
                i,
                Updated {
                    name: entry.name,
                    url: entry.url,
                    result,
                },
            )
        });
    }
    let mut done = Vec::new();
    while let Some(joined) = set.join_next().await {
        if let Ok(one) = joined {
            done.push(one);
        }
    }
    done.sort_by_key(|(i, _)| *i);
    Ok(done.into_iter().map(|(_, u)| u).collect())
}

/// `repo remove NAME`: the entry, then its cached index and charts list. The caller checks
/// first that any repository is configured ([`RepoError::NoneConfigured`]).
pub fn remove(paths: &Paths, name: &str) -> Result<(), RepoError> {
    let _lock = RepoFileLock::acquire(&paths.repository_config)?;
    let mut file = match RepoFile::load(&paths.repository_config) {
        Err(e) if e.is_not_found() => return Err(RepoError::NoneConfigured),
        other => other?,
    };
    if file.repositories.is_empty() {
        return Err(RepoError::NoneConfigured);
    }
    if !file.remove(name) {
        return Err(RepoError::NoRepoNamed(name.to_string()));
    }
    file.write(&paths.repository_config)?;
    for path in [paths.charts_file(name), paths.index_file(name)] {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(RepoError::Write { path, source: e });
            }
            _ => {}
        }
    }
    Ok(())
}

/// A chart version found in an index, with how to download it.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The archive's absolute URL.
    pub url: String,
    /// The URL credentials belong to (the repository's).
    pub origin: String,
    pub name: String,
    pub version: String,
    /// The index's digest (hex SHA-256), when it has one.
    pub digest: Option<String>,
    pub access: Access,
    /// Entries skipped while loading the index, and Helm's fallback warning.
    pub warnings: Vec<String>,
}

/// The version constraint `--version`/`--devel` mean (Helm's `LocateChart`).
pub fn version_query(version: Option<&str>, devel: bool) -> String {
    match version {
        Some(v) if !v.is_empty() => v.to_string(),
        _ if devel => ">0.0.0-0".into(),
        _ => String::new(),
    }
}

/// Flags that override what repositories.yaml says for a download (`--ca-file`, …).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub tls: kubepkg_fetch::TlsOptions,
    pub credentials: Option<(String, String)>,
    pub pass_credentials_all: bool,
}

fn merged_access(entry: &Entry, overrides: &Overrides, limits: Limits) -> Access {
    let mut access = Access::of_entry(entry, kubepkg_fetch::DEFAULT_TIMEOUT, limits);
    let t = &mut access.tls;
    t.ca_file = t.ca_file.take().or(overrides.tls.ca_file.clone());
    t.cert_file = t.cert_file.take().or(overrides.tls.cert_file.clone());
    t.key_file = t.key_file.take().or(overrides.tls.key_file.clone());
    t.insecure_skip_verify |= overrides.tls.insecure_skip_verify;
    if access.credentials.is_none() {
        access.credentials = overrides.credentials.clone();
        access.pass_credentials_all = overrides.pass_credentials_all;
    }
    access
}

/// `REPO/CHART` at `version` (see [`version_query`]) from the cached index of `REPO`
/// (Helm's `ResolveChartVersion`).
pub fn resolve_in_repo(
    paths: &Paths,
    repo: &str,
    chart: &str,
    version: &str,
    overrides: &Overrides,
    limits: Limits,
) -> Result<Resolved, RepoError> {
    let file = RepoFile::load_or_default(&paths.repository_config)?;
    let entry = file
        .get(repo)
        .ok_or_else(|| RepoError::RepoNotFound(repo.to_string()))?;
    if entry.url.is_empty() {
        return Err(RepoError::NoUrl(repo.to_string()));
    }
    let loaded =
        load_cached_index(paths, repo).map_err(|e| RepoError::NoCachedRepo(Box::new(e)))?;
    let access = merged_access(entry, overrides, limits);
    select(
        &loaded,
        &entry.url,
        chart,
        version,
        access,
        |source| RepoError::ChartNotFound {
            chart: chart.to_string(),
            version: version.to_string(),
            repo: repo.to_string(),
            source: Box::new(source),
        },
        &format!("{repo}/{chart}"),
    )
}

/// A chart name looked up in the repository at `url` (`--repo URL`; Helm's
/// `FindChartInRepoURL`). The index is fetched and read but not cached.
pub async fn resolve_in_url(
    url: &str,
    chart: &str,
    version: &str,
    overrides: &Overrides,
    limits: Limits,
) -> Result<Resolved, RepoError> {
    let entry = Entry {
        url: url.to_string(),
        ..Entry::default()
    };
    let access = merged_access(&entry, overrides, limits);
    let (_, loaded) = fetch_index(url, &access)
        .await
        .map_err(|e| RepoError::Unreachable {
            url: url.to_string(),
            source: Box::new(e),
        })?;
    let mut what = format!("chart {chart:?}");
    if !version.is_empty() {
        what = format!("{what} version {version:?}");
    }
    select(
        &loaded,
        url,
        chart,
        version,
        access,
        |_| RepoError::ChartNotFoundAt {
            chart: what.clone(),
            url: url.to_string(),
        },
        chart,
    )
}

fn select(
    loaded: &Loaded,
    repo_url: &str,
    chart: &str,
    version: &str,
    access: Access,
    not_found: impl FnOnce(index::GetError) -> RepoError,
    reference: &str,
) -> Result<Resolved, RepoError> {
    let mut warnings: Vec<String> = loaded.skipped.iter().map(|s| s.to_string()).collect();
    let selected = loaded.index.get(chart, version).map_err(not_found)?;
    let cv = selected.chart;
    if selected.fell_back {
        warnings.push(format!(
            "level=WARN msg=\"unable to find exact version requested; falling back to closest available version\" chart={} requested={} selected={}",
            index::logfmt(chart),
            index::logfmt(version),
            index::logfmt(cv.version())
        ));
    }
    let first = cv
        .urls
        .first()
        .ok_or_else(|| RepoError::NoDownloadUrls(reference.to_string()))?;
    Ok(Resolved {
        url: url::resolve_reference(repo_url, first),
        origin: repo_url.to_string(),
        name: cv.name().to_string(),
        version: cv.version().to_string(),
        digest: (!cv.digest.is_empty()).then(|| cv.digest.clone()),
        access,
        warnings,
    })
}

/// An archive URL given directly: the credentials and TLS settings of the configured
/// repository whose index lists that URL (Helm's `scanReposForURL`), else the flags'.
pub fn resolve_url(
    paths: &Paths,
    archive_url: &str,
    overrides: &Overrides,
    limits: Limits,
) -> Result<Resolved, RepoError> {
    let file = RepoFile::load_or_default(&paths.repository_config)?;
    let owner = file.repositories.iter().find(|entry| {
        load_cached_index(paths, &entry.name).is_ok_and(|loaded| {
            loaded.index.entries.values().flatten().any(|cv| {
                cv.urls.iter().any(|u| {
                    u == archive_url || url::resolve_reference(&entry.url, u) == archive_url
                })
            })
        })
    });
    let (access, origin) = match owner {
        Some(entry) => (merged_access(entry, overrides, limits), entry.url.clone()),
        None => (
            merged_access(&Entry::default(), overrides, limits),
            archive_url.to_string(),
        ),
    };
    Ok(Resolved {
        url: archive_url.to_string(),
        origin,
        name: String::new(),
        version: String::new(),
        digest: None,
        access,
        warnings: Vec::new(),
    })
}

/// Downloads the archive `resolved` names into the content cache (or finds it there) and
/// returns its path: `<cache>/charts/<sha256>/<file name>`. With an index digest, a cached
/// copy is used without any transfer, and a download whose digest differs is refused before
/// anything is written.
pub async fn download_chart(
    resolved: &Resolved,
    content_cache: &Path,
) -> Result<PathBuf, RepoError> {
    let file_name = url::file_name(&resolved.url);
    let charts = content_cache.join("charts");
    let expected = match &resolved.digest {
        Some(d) => {
            let hex = d.strip_prefix("sha256:").unwrap_or(d).to_ascii_lowercase();
            if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(RepoError::BadDigest {
                    url: resolved.url.clone(),
                    digest: d.clone(),
                });
            }
            let cached = charts.join(&hex).join(&file_name);
            if let Ok(bytes) = std::fs::read(&cached)
                && hex_digest(&bytes) == hex
            {
                return Ok(cached);
            }
            Some(hex)
        }
        None => None,
    };
    let bytes = resolved
        .access
        .get(
            &resolved.url,
            &resolved.origin,
            resolved.access.limits.chart(),
            Some("application/gzip,application/octet-stream"),
        )
        .await?;
    let actual = hex_digest(&bytes);
    if let Some(expected) = expected
        && expected != actual
    {
        return Err(RepoError::DigestMismatch {
            url: resolved.url.clone(),
            expected,
            actual,
        });
    }
    let path = charts.join(&actual).join(&file_name);
    write_atomic(&path, &bytes, 0o644)?;
    Ok(path)
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn hex_digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_come_from_the_environment() {
        let l = Limits::from_env(|v| (v == MAX_INDEX_VAR).then(|| "1_000".to_string())).unwrap();
        assert_eq!(l.index_bytes, 1000);
        assert_eq!(l.chart_bytes, Limits::default().chart_bytes);
        let e = Limits::from_env(|v| (v == MAX_CHART_VAR).then(|| "lots".to_string())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "KUBEPKG_MAX_CHART_DOWNLOAD=\"lots\": not a whole number of bytes"
        );
    }

    #[test]
    fn unknown_repositories_and_missing_caches_are_helms_errors() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths {
            repository_config: dir.path().join("repositories.yaml"),
            repository_cache: dir.path().join("cache"),
            content_cache: dir.path().join("kubepkg"),
        };
        let o = Overrides::default();
        let e = resolve_in_repo(&paths, "nope", "app", "", &o, Limits::default()).unwrap_err();
        assert_eq!(e.to_string(), "repo nope not found");
        let mut f = RepoFile::default();
        f.update(Entry {
            name: "r".into(),
            url: "http://127.0.0.1:1".into(),
            ..Entry::default()
        });
        f.write(&paths.repository_config).unwrap();
        let e = resolve_in_repo(&paths, "r", "app", "", &o, Limits::default()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("no cached repo found. (try 'kubepkg repo update')")
        );
        std::fs::create_dir_all(&paths.repository_cache).unwrap();
        std::fs::write(
            paths.index_file("r"),
            "apiVersion: v1\nentries:\n  app:\n  - {apiVersion: v2, name: app, version: 1.0.0, urls: [app-1.0.0.tgz]}\n",
        )
        .unwrap();
        let e = resolve_in_repo(&paths, "r", "app", "9.9.9", &o, Limits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "chart \"app\" matching 9.9.9 not found in r index. (try 'kubepkg repo update')"
        );
        let r = resolve_in_repo(&paths, "r", "app", "", &o, Limits::default()).unwrap();
        assert_eq!(r.url, "http://127.0.0.1:1/app-1.0.0.tgz");
        assert!(remove(&paths, "x").is_err());
        remove(&paths, "r").unwrap();
        assert!(!paths.index_file("r").exists());
    }
}
