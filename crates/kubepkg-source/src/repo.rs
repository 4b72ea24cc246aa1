//! Charts in Helm chart repositories (`REPO/CHART`, `--repo URL`, archive URLs), located
//! through `kubepkg-repo`: the version chosen from the index as Helm chooses it, the archive
//! downloaded into kubepkg's content cache (digest-checked) and returned as a local `.tgz`.
//! Warnings Helm logs while reading an index (skipped entries, a fallback from an exact
//! version) are printed on standard error.

use crate::{ChartRef, HelmPaths, LocatedChart, Origin, SourceError, SourceOptions};

/// The repository layer's view of Helm's paths.
pub fn repo_paths(paths: &HelmPaths) -> kubepkg_repo::Paths {
    kubepkg_repo::Paths {
        repository_config: paths.repository_config.clone(),
        repository_cache: paths.repository_cache.clone(),
        content_cache: paths.kubepkg_cache.clone(),
    }
}

/// The flags that apply to a download, as the repository layer takes them.
pub fn overrides(options: &SourceOptions) -> kubepkg_repo::Overrides {
    kubepkg_repo::Overrides {
        tls: kubepkg_fetch::TlsOptions {
            ca_file: options.ca_file.clone(),
            cert_file: options.cert_file.clone(),
            key_file: options.key_file.clone(),
            insecure_skip_verify: options.insecure_skip_tls_verify,
        },
        credentials: match (&options.username, &options.password) {
            (Some(u), Some(p)) => Some((u.clone(), p.clone())),
            (Some(u), None) => Some((u.clone(), String::new())),
            _ => None,
        },
        pass_credentials_all: options.pass_credentials,
    }
}

/// Downloads the chart `reference` names (at `options.version`) into the cache.
pub async fn locate(
    reference: &ChartRef,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<LocatedChart, SourceError> {
    let limits = kubepkg_repo::Limits::from_env(|v| std::env::var(v).ok())?;
    let rpaths = repo_paths(paths);
    let flags = overrides(options);
    let version = kubepkg_repo::version_query(options.version.as_deref(), options.devel);
    let (resolved, shown) = match reference {
        ChartRef::Repo { repo, chart } => (
            kubepkg_repo::resolve_in_repo(&rpaths, repo, chart, &version, &flags, limits)?,
            format!("{repo}/{chart}"),
        ),
        ChartRef::RepoUrl { url, chart } => (
            kubepkg_repo::resolve_in_url(url, chart, &version, &flags, limits).await?,
            format!("{chart} (--repo {url})"),
        ),
        ChartRef::Url(url) => (
            kubepkg_repo::resolve_url(&rpaths, url, &flags, limits)?,
            url.clone(),
        ),
        ChartRef::Local(p) => {
            return Ok(LocatedChart {
                path: p.clone(),
                origin: None,
                warnings: Vec::new(),
            });
        }
        ChartRef::Oci(r) => {
            return Err(SourceError::Unsupported {
                reference: r.clone(),
                what: "charts in OCI registries",
            });
        }
    };
    let path = kubepkg_repo::download_chart(&resolved, &paths.kubepkg_cache)
        .await
        .map_err(|source| SourceError::Download {
            reference: shown.clone(),
            source: Box::new(source),
        })?;
    let digest = path
        .parent()
        .and_then(|d| d.file_name())
        .map(|d| format!("sha256:{}", d.to_string_lossy()));
    Ok(LocatedChart {
        path,
        origin: Some(Origin {
            reference: shown,
            version: resolved.version.clone(),
            digest,
        }),
        warnings: resolved.warnings.clone(),
    })
}
