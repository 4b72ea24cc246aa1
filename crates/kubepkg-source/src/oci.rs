//! Charts (and packages) in OCI registries (`oci://host[:port]/repo/chart`), as Helm stores
//! them, through `kubepkg-oci`: the reference is resolved against `--version` (an exact tag, a
//! SemVer constraint over the tags, or a digest), pulled digest-checked into the
//! content-addressed cache, and the chart archive written as `<name>-<version>.tgz` (the name
//! `helm pull` gives it) under `<kubepkg cache>/oci/charts/<manifest digest>/`. With
//! `--verify-key` the manifest's cosign signature is verified ([`verifier`],
//! `kubepkg_oci::signature`) before any blob is fetched or anything is cached.

use std::path::{Path, PathBuf};

use kubepkg_oci::signature::{PublicKey, TrustedKey, Verifier};
use kubepkg_oci::{Cache, Client, ClientOptions, Credential, CredentialFiles, Limits, Reference};

use crate::{HelmPaths, LocatedChart, Origin, SourceError, SourceOptions};

/// A registry client with the source flags (`--plain-http`, `--insecure-skip-tls-verify`,
/// `--ca-file`, `--cert-file`/`--key-file`, `--username`/`--password`) and the user's
/// credential files and cache.
pub fn client(options: &SourceOptions, paths: &HelmPaths) -> Result<Client, SourceError> {
    let credential = match (&options.username, &options.password) {
        (Some(u), p) => Some(Credential {
            username: u.clone(),
            password: p.clone().unwrap_or_default(),
        }),
        _ => None,
    };
    Ok(Client::new(ClientOptions {
        plain_http: options.plain_http,
        insecure_skip_tls_verify: options.insecure_skip_tls_verify,
        ca_file: options.ca_file.clone(),
        cert_file: options.cert_file.clone(),
        key_file: options.key_file.clone(),
        credentials: CredentialFiles {
            helm: paths.registry_config.clone(),
            docker: Some(paths.docker_config.clone()),
        },
        credential,
        cache: Cache::new(paths.kubepkg_cache.join("oci")),
        limits: Limits::from_env()?,
    })?)
}

/// Pulls the chart `reference` names (at `options.version`) into the cache.
pub async fn locate(
    reference: &str,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<LocatedChart, SourceError> {
    let (client, resolved, verifier) =
        resolve(reference, options.version.as_deref(), options, paths).await?;
    let pulled = kubepkg_oci::chart::pull_verified(&client, &resolved, verifier.as_ref()).await?;
    let (name, version) = name_and_version(&pulled.config_json).unwrap_or_else(|| {
        (
            resolved.name().to_string(),
            resolved.tag.clone().unwrap_or_default(),
        )
    });
    let file = format!("{name}-{version}.tgz");
    let path = cache_archive(&client, "charts", &pulled.digest, &file, &pulled.archive)?;
    Ok(LocatedChart {
        path,
        origin: Some(Origin {
            reference: resolved.to_string(),
            version,
            digest: Some(pulled.digest),
        }),
        warnings: Vec::new(),
    })
}

/// The verifier of `--verify-key` files (`cosign.pub`), or `None` when there are none; each
/// file is read before anything is fetched, so a bad key fails first.
pub fn verifier(keys: &[PathBuf]) -> Result<Option<Verifier>, SourceError> {
    if keys.is_empty() {
        return Ok(None);
    }
    let mut trusted = Vec::with_capacity(keys.len());
    for path in keys {
        let bytes = std::fs::read(path).map_err(|source| SourceError::ReadKey {
            path: path.clone(),
            source,
        })?;
        let name = path.display().to_string();
        let key = PublicKey::from_pem(&bytes, &name)?;
        trusted.push(TrustedKey { name, key });
    }
    Ok(Some(Verifier::new(trusted)))
}

/// `name` and `version` of a chart's config (`Chart.yaml` as JSON), for the cache file's name
/// only: a lenient read of these two fields whatever the rest holds, not the `Chart.yaml` model
/// (`kubepkg_chart::metadata::Metadata`, which the chart is loaded into from its archive), so
/// that a registry's config with another field malformed still names the file.
fn name_and_version(config: &[u8]) -> Option<(String, String)> {
    let v: serde_json::Value = serde_json::from_slice(config).ok()?;
    let s = |k: &str| v.get(k)?.as_str().map(str::to_string);
    let (name, version) = (s("name")?, s("version")?);
    (safe_file_part(&name) && safe_file_part(&version)).then_some((name, version))
}

/// Whether a name or version may stand in a cache file's name: not empty, no path separator,
/// not `.` or `..`.
fn safe_file_part(x: &str) -> bool {
    !x.is_empty() && !x.contains(['/', '\\']) && x != "." && x != ".."
}

/// The client and `reference` resolved at `version` (a tag, a SemVer constraint over the tags,
/// or a digest), with the verifier of `--verify-key` (read first, so a bad key fails first).
async fn resolve(
    reference: &str,
    version: Option<&str>,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<(Client, Reference, Option<Verifier>), SourceError> {
    let repo = Reference::parse(reference)?;
    let verifier = verifier(&options.verify_keys)?;
    let client = client(options, paths)?;
    let resolved = kubepkg_oci::resolve(&client, &repo, version).await?;
    Ok((client, resolved, verifier))
}

/// Keeps a pulled `archive` as `<kubepkg cache>/oci/KIND/<manifest digest>/FILE` (rewritten
/// only when its bytes differ) and returns that path.
fn cache_archive(
    client: &Client,
    kind: &str,
    digest: &str,
    file: &str,
    archive: &[u8],
) -> Result<PathBuf, SourceError> {
    let path = client
        .cache()
        .root()
        .join(kind)
        .join(digest.trim_start_matches("sha256:"))
        .join(file);
    if std::fs::read(&path).ok().as_deref() != Some(archive) {
        write_atomically(&path, archive)?;
    }
    Ok(path)
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), SourceError> {
    let dir = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let io = |source| SourceError::Io {
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let tmp = dir.join(format!(".tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(e)
        })
}

/// A package pulled from a registry into the cache: the package archive's path
/// (`<kubepkg cache>/oci/packages/<manifest digest>/<name>-<version>.tgz`) and what was
/// resolved (reference with its tag, version, manifest digest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedPackage {
    pub path: PathBuf,
    pub origin: Origin,
}

/// Pulls the package `reference` names at `version` (a tag, a SemVer constraint over the tags,
/// or `@sha256:…`) into the cache, for `package pull`, `plan` and `apply`.
pub async fn locate_package(
    reference: &str,
    version: Option<&str>,
    options: &SourceOptions,
    paths: &HelmPaths,
) -> Result<LocatedPackage, SourceError> {
    let (client, resolved, verifier) = resolve(reference, version, options, paths).await?;
    let pulled = kubepkg_oci::package::pull_verified(&client, &resolved, verifier.as_ref()).await?;
    let (name, version) = (pulled.config.name.clone(), pulled.config.version.clone());
    let file = if safe_file_part(&name) && safe_file_part(&version) {
        format!("{name}-{version}.tgz")
    } else {
        "package.tgz".to_string()
    };
    let path = cache_archive(&client, "packages", &pulled.digest, &file, &pulled.archive)?;
    Ok(LocatedPackage {
        path,
        origin: Origin {
            reference: resolved.to_string(),
            version,
            digest: Some(pulled.digest),
        },
    })
}
