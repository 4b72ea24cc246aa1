//! Fetching a Package's archive (docs/controller.md#sources): `url` + `sha256` over HTTP(S)
//! (through `kubepkg_fetch`: redirects followed, the body capped at [`MAX_ARCHIVE_BYTES`], the digest checked before
//! anything is read from it), or the `package.tgz` key of a ConfigMap (`binaryData`) or Secret
//! of the Package's namespace. `path` is the CLI's and `oci` is not served by the controller yet:
//! both are refused with a message saying what to use.
//!
//! The archive is then loaded by `kubepkg_package::source::load`, the same loader as the CLI's.

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::Api;
use kubepkg_package::conditions::reason;
use kubepkg_package::object::{ArchiveRef, Source};
use sha2::{Digest, Sha256};

/// The largest package archive fetched (bounded memory).
pub const MAX_ARCHIVE_BYTES: usize = 256 * 1024 * 1024;
/// How long one fetch may take, redirects included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(300);

/// A fetched package archive.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub bytes: Vec<u8>,
    /// Lowercase hex SHA-256 of `bytes`.
    pub sha256: String,
    /// Where it came from, for messages (`ConfigMap shop/shop-pkg key package.tgz`).
    pub origin: String,
}

/// Why a source could not be fetched. Each names the object or URL and what to do.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(
        "source.path is read by the kubepkg CLI only (`kubepkg apply NAME PATH`); for the controller use source.url with sha256, or put the archive in a ConfigMap or Secret (source.configMapRef / source.secretRef)"
    )]
    PathIsCliOnly,
    #[error(
        "source.oci is not served by the controller yet; publish the archive at an HTTP(S) URL (source.url + sha256) or store it in a ConfigMap or Secret (source.configMapRef / source.secretRef)"
    )]
    OciNotSupported,
    #[error("spec.source names no source: set one of url (with sha256), configMapRef or secretRef")]
    Missing,
    #[error(
        "{kind} {namespace}/{name} not found: create it with the package archive under key {key:?}"
    )]
    NotFound {
        kind: &'static str,
        namespace: String,
        name: String,
        key: String,
    },
    #[error(
        "{kind} {namespace}/{name} has no key {key:?}{hint}: store the package archive (.tgz) under that key or set the key in the reference"
    )]
    MissingKey {
        kind: &'static str,
        namespace: String,
        name: String,
        key: String,
        hint: &'static str,
    },
    #[error("reading {kind} {namespace}/{name}")]
    Api {
        kind: &'static str,
        namespace: String,
        name: String,
        #[source]
        source: Box<kubepkg_kube::KubeError>,
    },
    #[error("fetching the package archive")]
    Fetch(#[from] kubepkg_fetch::FetchError),
    #[error("{origin}: the archive is larger than {limit} bytes")]
    TooLarge { origin: String, limit: usize },
    #[error(
        "{origin}: sha256 is {actual}, but spec.source.sha256 says {expected}; fix the digest or the archive"
    )]
    Digest {
        origin: String,
        expected: String,
        actual: String,
    },
}

impl SourceError {
    /// The `Ready` reason this error shows as: the spec or the archive needs a change
    /// (`InvalidPackage`), or the source could not be reached (`SourceUnavailable`).
    pub fn reason(&self) -> &'static str {
        match self {
            SourceError::PathIsCliOnly
            | SourceError::OciNotSupported
            | SourceError::Missing
            | SourceError::Fetch(
                kubepkg_fetch::FetchError::BadUrl { .. }
                | kubepkg_fetch::FetchError::TooLarge { .. },
            )
            | SourceError::TooLarge { .. }
            | SourceError::Digest { .. } => reason::INVALID_PACKAGE,
            _ => reason::SOURCE_UNAVAILABLE,
        }
    }
}

/// Fetches the archive `source` names, reading ConfigMaps and Secrets of `namespace`.
pub async fn fetch(
    client: &kube::Client,
    namespace: &str,
    source: &Source,
    http: &HttpClient,
) -> Result<Fetched, SourceError> {
    if source.path.is_some() {
        return Err(SourceError::PathIsCliOnly);
    }
    if source.oci.is_some() {
        return Err(SourceError::OciNotSupported);
    }
    if let (Some(url), Some(expected)) = (&source.url, &source.sha256) {
        let bytes = http.get(url).await?;
        return checked(bytes, url.clone(), Some(expected));
    }
    if let Some(r) = &source.config_map_ref {
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
        let cm = get(&api, "ConfigMap", namespace, r).await?;
        let key = r.key().to_string();
        let bytes = match cm.binary_data.as_ref().and_then(|d| d.get(&key)) {
            Some(b) => b.0.clone(),
            None => {
                let hint = if cm.data.as_ref().is_some_and(|d| d.contains_key(&key)) {
                    " in binaryData (it is in data, which holds text only; use `kubectl create configmap NAME --from-file=package.tgz=PKG.tgz`)"
                } else {
                    ""
                };
                return Err(missing_key("ConfigMap", namespace, r, hint));
            }
        };
        return checked(bytes, origin("ConfigMap", namespace, r), None);
    }
    if let Some(r) = &source.secret_ref {
        let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
        let secret = get(&api, "Secret", namespace, r).await?;
        let key = r.key().to_string();
        let bytes = match secret.data.as_ref().and_then(|d| d.get(&key)) {
            Some(b) => b.0.clone(),
            None => return Err(missing_key("Secret", namespace, r, "")),
        };
        return checked(bytes, origin("Secret", namespace, r), None);
    }
    Err(SourceError::Missing)
}

fn origin(kind: &str, namespace: &str, r: &ArchiveRef) -> String {
    format!("{kind} {namespace}/{} key {}", r.name, r.key())
}

fn missing_key(
    kind: &'static str,
    namespace: &str,
    r: &ArchiveRef,
    hint: &'static str,
) -> SourceError {
    SourceError::MissingKey {
        kind,
        namespace: namespace.to_string(),
        name: r.name.clone(),
        key: r.key().to_string(),
        hint,
    }
}

async fn get<K>(
    api: &Api<K>,
    kind: &'static str,
    namespace: &str,
    r: &ArchiveRef,
) -> Result<K, SourceError>
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    match api.get_opt(&r.name).await {
        Ok(Some(o)) => Ok(o),
        Ok(None) => Err(SourceError::NotFound {
            kind,
            namespace: namespace.to_string(),
            name: r.name.clone(),
            key: r.key().to_string(),
        }),
        Err(e) => Err(SourceError::Api {
            kind,
            namespace: namespace.to_string(),
            name: r.name.clone(),
            source: Box::new(kubepkg_kube::KubeError::refused(
                "get",
                format!("{kind} {namespace}/{}", r.name),
                e,
            )),
        }),
    }
}

fn checked(bytes: Vec<u8>, origin: String, expected: Option<&str>) -> Result<Fetched, SourceError> {
    if bytes.len() > MAX_ARCHIVE_BYTES {
        return Err(SourceError::TooLarge {
            origin,
            limit: MAX_ARCHIVE_BYTES,
        });
    }
    let sha256 = hex(&Sha256::digest(&bytes));
    if let Some(expected) = expected
        && expected != sha256
    {
        return Err(SourceError::Digest {
            origin,
            expected: expected.to_string(),
            actual: sha256,
        });
    }
    Ok(Fetched {
        bytes,
        sha256,
        origin,
    })
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The HTTP(S) client archives are fetched with: `kubepkg_fetch` (the one fetcher of kubepkg)
/// with the system's trust roots, [`FETCH_TIMEOUT`] and [`MAX_ARCHIVE_BYTES`].
#[derive(Clone, Debug)]
pub struct HttpClient {
    fetcher: kubepkg_fetch::Fetcher,
}

impl HttpClient {
    /// A client trusting the system's roots (`rustls-native-certs`; none found: only `http://`
    /// URLs and servers with no TLS work).
    pub fn new() -> Result<HttpClient, kubepkg_fetch::FetchError> {
        let fetcher = kubepkg_fetch::Fetcher::new(&kubepkg_fetch::TlsOptions::default())?
            .with_timeout(FETCH_TIMEOUT);
        Ok(HttpClient { fetcher })
    }

    /// GETs `url`, following redirects, with the body capped at [`MAX_ARCHIVE_BYTES`].
    pub async fn get(&self, url: &str) -> Result<Vec<u8>, SourceError> {
        let request = kubepkg_fetch::Request {
            url,
            limit: kubepkg_fetch::Limit {
                bytes: MAX_ARCHIVE_BYTES as u64,
                what: "package archive",
                variable: None,
            },
            credentials: None,
            accept: None,
        };
        Ok(self.fetcher.get(request).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_mismatch_names_both_digests_and_the_archive() {
        let e = checked(b"abc".to_vec(), "http://x/p.tgz".into(), Some("00")).unwrap_err();
        let text = e.to_string();
        // sha256("abc") as every implementation computes it.
        assert!(
            text.contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            "{text}"
        );
        assert!(
            text.contains("http://x/p.tgz") && text.contains("says 00"),
            "{text}"
        );
        assert_eq!(e.reason(), reason::INVALID_PACKAGE);
    }

    #[test]
    fn unreachable_sources_are_not_invalid_packages() {
        let e = SourceError::Fetch(kubepkg_fetch::FetchError::Status {
            url: "u".into(),
            status: kubepkg_fetch::Status(503),
        });
        assert_eq!(e.reason(), reason::SOURCE_UNAVAILABLE);
        assert_eq!(SourceError::PathIsCliOnly.reason(), reason::INVALID_PACKAGE);
    }
}
