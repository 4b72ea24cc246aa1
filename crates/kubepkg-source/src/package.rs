//! Charts of `chart: {repository, name, version}` components of `kubepkg.yaml` (a Helm chart
//! repository, or an OCI registry: `repository: oci://host/repo`, also written `path:
//! oci://host/repo/chart` with `version:`), resolved into `kubepkg.lock` ([`lock`], `kubepkg
//! package lock`) and fetched by it ([`fetch_locked`], called by the CLI's one package loader
//! before `plan`, `apply` and `values` render anything): the locked version, checked against
//! the locked digest (the chart archive's SHA-256), taken first from the package's own
//! `vendor/charts/` (what `package push` vendors), then from kubepkg's chart cache — a chart
//! whose digest is cached is used without any request —, then from the repository or registry
//! (registry charts through [`crate::oci::locate`] and its cache). So a locked package
//! installs with its repository gone once its charts were fetched, and a pushed one always.
//! Repository entries of `repositories.yaml` with the same URL lend their credentials and TLS
//! settings; registries take the source flags (`--plain-http`, …) and the stored logins.
//!
//! A package kept in a Git repository is fetched by [`fetch_git`] (`kubepkg-git`) and its
//! checkout loaded by [`load_checkout`] through [`load`], the CLI's and the controller's alike.

use kubepkg_model::lock::{LockFile, LockedChart};
use kubepkg_model::manifest::{ChartSource, Package, RepositoryChart};

use crate::{HelmPaths, SourceError, SourceOptions};

/// Whether a component's repository is an OCI registry.
fn is_oci(repository: &str) -> bool {
    kubepkg_oci::reference::is_oci(repository)
}

/// `oci://host/repo` + `chart`.
fn oci_chart(repository: &str, name: &str) -> String {
    format!("{}/{name}", repository.trim_end_matches('/'))
}

/// Pulls a registry chart at `version` (a constraint for `lock`, the locked version for a
/// fetch) through the OCI path and cache, and keeps its archive in kubepkg's chart cache under
/// its SHA-256 (`charts/<hex>/<name>-<version>.tgz`), as repository charts are kept.
async fn pull_oci(
    repository: &str,
    name: &str,
    version: &str,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<(std::path::PathBuf, String), SourceError> {
    let options = SourceOptions {
        version: Some(version.to_string()),
        ..options.clone()
    };
    let located = crate::oci::locate(&oci_chart(repository, name), &options, paths).await?;
    let bytes = std::fs::read(&located.path).map_err(|source| SourceError::Io {
        path: located.path.clone(),
        source,
    })?;
    let hex = kubepkg_repo::hex_digest(&bytes);
    let file = located
        .path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| format!("{name}.tgz"));
    let path = paths.kubepkg_cache.join("charts").join(&hex).join(file);
    if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
        crate::oci::write_atomically(&path, &bytes)?;
    }
    let version = located
        .origin
        .map(|o| o.version)
        .unwrap_or_else(|| version.to_string());
    Ok((path, version))
}

fn access_for(paths: &HelmPaths, repository: &str) -> kubepkg_repo::Overrides {
    let file =
        kubepkg_repo::RepoFile::load_or_default(&paths.repository_config).unwrap_or_default();
    match file
        .repositories
        .iter()
        .find(|e| e.url.trim_end_matches('/') == repository.trim_end_matches('/'))
    {
        Some(e) => {
            let a = kubepkg_repo::Access::of_entry(
                e,
                kubepkg_fetch::DEFAULT_TIMEOUT,
                kubepkg_repo::Limits::default(),
            );
            kubepkg_repo::Overrides {
                tls: a.tls,
                credentials: a.credentials,
                pass_credentials_all: a.pass_credentials_all,
            }
        }
        None => kubepkg_repo::Overrides::default(),
    }
}

fn limits() -> Result<kubepkg_repo::Limits, SourceError> {
    Ok(kubepkg_repo::Limits::from_env(|v| std::env::var(v).ok())?)
}

/// `kubepkg package lock`: each repository component's constraint resolved against its
/// repository's index (Helm's choice), the archive downloaded (digest-checked against the
/// index) into the chart cache, and both recorded.
pub async fn lock(
    package: &Package,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<LockFile, SourceError> {
    let limits = limits()?;
    let mut lock = LockFile::default();
    for c in &package.components {
        let ChartSource::Repository(r) = &c.chart else {
            continue;
        };
        if is_oci(&r.repository) {
            let (path, version) =
                pull_oci(&r.repository, &r.name, &r.version, options, paths).await?;
            lock.components.insert(
                c.name.clone(),
                LockedChart {
                    repository: r.repository.clone(),
                    name: r.name.clone(),
                    version,
                    digest: digest_of(&path),
                },
            );
            continue;
        }
        let overrides = access_for(paths, &r.repository);
        let resolved =
            kubepkg_repo::resolve_in_url(&r.repository, &r.name, &r.version, &overrides, limits)
                .await?;
        let path = download(&resolved, &c.name, paths).await?;
        lock.components.insert(
            c.name.clone(),
            LockedChart {
                repository: r.repository.clone(),
                name: r.name.clone(),
                version: resolved.version.clone(),
                digest: digest_of(&path),
            },
        );
    }
    Ok(lock)
}

async fn download(
    resolved: &kubepkg_repo::Resolved,
    component: &str,
    paths: &HelmPaths,
) -> Result<std::path::PathBuf, SourceError> {
    kubepkg_repo::download_chart(resolved, &paths.kubepkg_cache)
        .await
        .map_err(|source| SourceError::Download {
            reference: format!("the chart of component {component}"),
            source: Box::new(source),
        })
}

/// `sha256:<hex>` of a cached archive (its directory is named by its digest).
fn digest_of(path: &std::path::Path) -> String {
    let hex = path
        .parent()
        .and_then(|d| d.file_name())
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("sha256:{hex}")
}

fn matches(locked: &LockedChart, wanted: &RepositoryChart) -> bool {
    locked.satisfies(wanted)
}

/// The one package loader, the CLI's and the controller's: the package at `path` (a
/// directory, or an archive extracted under `scratch`), then each `chart: {repository, …}`
/// component's chart by its `kubepkg.lock` entry ([`fetch_locked`]: the archive the package
/// vendors, else the one in the content cache, else fetched).
pub async fn load(
    path: &std::path::Path,
    scratch: &std::path::Path,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<Package, SourceError> {
    let mut package = kubepkg_model::source::load(path, scratch)
        .map_err(|e| SourceError::Package(Box::new(e)))?;
    fetch_locked(&mut package, options, paths).await?;
    Ok(package)
}

/// The package directory a Git source names ([`kubepkg_git::fetch`]): the ref resolved to a
/// commit, the directory taken from kubepkg's cache (`git/checkouts/`, keyed by commit) or
/// fetched shallowly into it, with the limits of `KUBEPKG_GIT_MAX_BYTES` and 300 s; HTTPS with
/// the TLS flags of `options` (`--ca-file`, `--insecure-skip-tls-verify`, a client certificate).
pub async fn fetch_git(
    source: &kubepkg_git::GitSource,
    auth: kubepkg_git::Auth,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<kubepkg_git::Checkout, SourceError> {
    let limits = kubepkg_git::Limits::from_env(|v| std::env::var(v).ok())?;
    let options = kubepkg_git::Options {
        auth,
        tls: kubepkg_fetch::TlsOptions {
            ca_file: options.ca_file.clone(),
            cert_file: options.cert_file.clone(),
            key_file: options.key_file.clone(),
            insecure_skip_verify: options.insecure_skip_tls_verify,
        },
        cache: paths.kubepkg_cache.clone(),
        limits,
    };
    Ok(kubepkg_git::fetch(source, &options).await?)
}

/// A fetched Git checkout loaded by [`load`] as any package directory, its source recorded
/// (the repository and path, the branch or tag, the commit as `sha1:…`) for the revision.
pub async fn load_checkout(
    source: &kubepkg_git::GitSource,
    checkout: &kubepkg_git::Checkout,
    scratch: &std::path::Path,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<Package, SourceError> {
    let mut package = load(&checkout.dir, scratch, options, paths).await?;
    package.source = Some(git_record(source, checkout));
    Ok(package)
}

/// The revision's record of a Git checkout.
pub fn git_record(
    source: &kubepkg_git::GitSource,
    checkout: &kubepkg_git::Checkout,
) -> kubepkg_model::manifest::PackageSource {
    let mut reference = format!("git+{}", source.display_url());
    if !source.path.is_empty() {
        reference = format!("{reference}//{}", source.path);
    }
    kubepkg_model::manifest::PackageSource {
        reference,
        tag: checkout.reference.clone(),
        digest: format!("sha1:{}", checkout.commit),
    }
}

/// Replaces each repository component's chart by the archive its `kubepkg.lock` entry names,
/// fetching it when it is not cached. A component without an entry, or whose entry no longer
/// matches `kubepkg.yaml`, is an error saying to run `kubepkg package lock`.
pub async fn fetch_locked(
    package: &mut Package,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<(), SourceError> {
    if !package
        .components
        .iter()
        .any(|c| matches!(c.chart, ChartSource::Repository(_)))
    {
        return Ok(());
    }
    let lock = LockFile::read(&package.root)
        .map_err(|e| SourceError::Package(Box::new(e)))?
        .unwrap_or_default();
    let limits = limits()?;
    for c in &mut package.components {
        let ChartSource::Repository(wanted) = &c.chart else {
            continue;
        };
        let Some(locked) = lock.components.get(&c.name) else {
            return Err(SourceError::NotLocked {
                component: c.name.clone(),
                chart: format!(
                    "{} {} of {}",
                    wanted.name, wanted.version, wanted.repository
                ),
            });
        };
        if !matches(locked, wanted) {
            return Err(SourceError::LockMismatch {
                component: c.name.clone(),
                locked: format!(
                    "{} {} of {}",
                    locked.name, locked.version, locked.repository
                ),
                wanted: format!(
                    "{} {} of {}",
                    wanted.name, wanted.version, wanted.repository
                ),
            });
        }
        let hex = locked
            .digest
            .strip_prefix("sha256:")
            .unwrap_or(&locked.digest)
            .to_string();
        let cached = kubepkg_model::lock::vendored_archive(&package.root, &hex)
            .or_else(|| cached_archive(&paths.kubepkg_cache, &hex));
        let path = match cached {
            Some(p) => p,
            None if is_oci(&locked.repository) => {
                let (path, _) = pull_oci(
                    &locked.repository,
                    &locked.name,
                    &locked.version,
                    options,
                    paths,
                )
                .await?;
                let got = digest_of(&path);
                if got != format!("sha256:{hex}") {
                    return Err(SourceError::LockMismatch {
                        component: c.name.clone(),
                        locked: format!("{} {} ({})", locked.name, locked.version, locked.digest),
                        wanted: format!(
                            "{} {} ({got}, the registry's tag now names another chart)",
                            locked.name, locked.version
                        ),
                    });
                }
                path
            }
            None => {
                let overrides = access_for(paths, &locked.repository);
                let mut resolved = kubepkg_repo::resolve_in_url(
                    &locked.repository,
                    &locked.name,
                    &locked.version,
                    &overrides,
                    limits,
                )
                .await?;
                if resolved.version != locked.version {
                    return Err(SourceError::LockMismatch {
                        component: c.name.clone(),
                        locked: format!("{} {}", locked.name, locked.version),
                        wanted: format!(
                            "{} {} (the repository no longer has it)",
                            resolved.name, resolved.version
                        ),
                    });
                }
                resolved.digest = Some(hex);
                download(&resolved, &c.name, paths).await?
            }
        };
        c.chart = ChartSource::Archive(path);
    }
    Ok(())
}

/// The cached archive of digest `hex`, if there is one whose bytes still have that digest.
fn cached_archive(cache: &std::path::Path, hex: &str) -> Option<std::path::PathBuf> {
    let dir = cache.join("charts").join(hex);
    std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|e| e == "tgz")
                && std::fs::read(p).is_ok_and(|b| kubepkg_repo::hex_digest(&b) == hex)
        })
}
