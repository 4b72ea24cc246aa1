//! Fetching a Package's archive (docs/controller.md#sources): `url` + `sha256` over HTTP(S)
//! (through `kubepkg_fetch`: redirects followed, the body capped at [`MAX_ARCHIVE_BYTES`], the digest checked before
//! anything is read from it), or the `package.tgz` key of a ConfigMap (`binaryData`) or Secret
//! of the Package's namespace, or `oci` + `version` from a registry (`kubepkg_oci`, the CLI's
//! client: the version resolved against the tags, every blob digest-checked, credentials from a
//! `kubernetes.io/dockerconfigjson` Secret named by `secretRef`, `insecure` for plain HTTP; the
//! resolved tag and digest become the revision's `source`; with `verify: {provider: cosign,
//! secretRef}` the manifest's cosign signature is checked, by `kubepkg_oci::signature` with the
//! Secret's `*.pub` keys, before any blob is pulled). `path` is the CLI's and is refused
//! with a message saying what to use.
//!
//! Or `git` (`kubepkg_git` through `kubepkg_source::package::fetch_git`, the CLI's fetch): the
//! ref resolved to a commit, the package directory fetched shallowly into the controller's
//! content cache (keyed by commit), credentials from the `git.secretRef` Secret's Flux keys
//! (`username` and `password`, or `bearerToken`, or for `ssh://` `identity` and
//! `known_hosts`). Its fingerprint is the Git tree id of the
//! package directory, so a commit that changes nothing under `path` is no new input and makes
//! no revision; the branch or tag and the commit become the revision's `source`.
//!
//! (`sourceRef`, the artifact of a Flux source, is fetched by `crate::flux_source` with this
//! module's client and types.)
//!
//! The archive (or checkout) is then loaded by `kubepkg_source::package::load`, the same loader
//! as the CLI's.

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::Api;
use kubepkg_package::conditions::reason;
use kubepkg_package_object::{ArchiveRef, GitSource, Source, Verify};
use sha2::{Digest, Sha256};

/// The largest package archive fetched (bounded memory).
pub const MAX_ARCHIVE_BYTES: usize = 256 * 1024 * 1024;
/// How long one fetch may take, redirects included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(300);

/// A fetched package archive, or a Git checkout.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The archive (empty for a Git checkout).
    pub bytes: Vec<u8>,
    /// Lowercase hex SHA-256 of `bytes`; of a Git checkout, of its package directory's tree id
    /// (what changes exactly when a file under `path` changes).
    pub sha256: String,
    /// Where it came from, for messages (`ConfigMap shop/shop-pkg key package.tgz`).
    pub origin: String,
    /// For an `oci` or `git` source: the reference, the resolved tag (or branch) and the
    /// digest (or commit), recorded in the package revision.
    pub record: Option<kubepkg_model::manifest::PackageSource>,
    /// For a `git` source: what was fetched, loaded from the cache by the controller.
    pub git: Option<(kubepkg_git::GitSource, kubepkg_git::Checkout)>,
    /// For a Flux source's artifact (`sourceRef`): the package's directory in it (empty: the
    /// root). The artifact is a tree, not a package archive.
    pub subdir: Option<String>,
}

/// Why a source could not be fetched. Each names the object or URL and what to do.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(
        "source.path is read by the kubepkg CLI only (`kubepkg apply NAME PATH`); for the controller use source.url with sha256, or put the archive in a ConfigMap or Secret (source.configMapRef / source.secretRef)"
    )]
    PathIsCliOnly,
    /// The registry refused, failed, or sent what is not a package (the message names the
    /// reference and what to do).
    #[error(transparent)]
    Oci(#[from] kubepkg_oci::Error),
    #[error(
        "Secret {namespace}/{name} (source.secretRef of an oci source) is not a kubernetes.io/dockerconfigjson Secret with key .dockerconfigjson"
    )]
    NotDockerConfig { namespace: String, name: String },
    #[error(
        "spec.source names no source: set one of oci, url (with sha256), configMapRef, secretRef, git or sourceRef"
    )]
    Missing,
    /// The Flux source of `sourceRef` is missing or has no (valid) artifact yet.
    #[error("{kind} {namespace}/{name} (source.sourceRef) {problem}")]
    FluxSource {
        kind: String,
        namespace: String,
        name: String,
        problem: String,
    },
    /// `sourceRef` itself is wrong (its kind or path).
    #[error("spec.source.sourceRef: {0}")]
    FluxSourceRef(String),
    /// A `git` source could not be read (the message names it and what to do).
    #[error(transparent)]
    Git(#[from] kubepkg_source::SourceError),
    /// The `git.secretRef` Secret is missing or holds none of Flux's keys.
    #[error("Secret {namespace}/{name} (source.git.secretRef) {problem}")]
    GitSecret {
        namespace: String,
        name: String,
        problem: String,
    },
    /// `source.verify` names a provider other than cosign.
    #[error("source.verify.provider {0:?} is not supported; use provider: cosign")]
    VerifyProvider(String),
    /// The `source.verify.secretRef` Secret is missing or holds no usable public key.
    #[error("Secret {namespace}/{name} (source.verify.secretRef) {problem}")]
    VerifySecret {
        namespace: String,
        name: String,
        problem: String,
    },
    /// A `*.pub` key of the verify Secret is not a cosign public key.
    #[error(transparent)]
    VerifyKey(#[from] kubepkg_oci::signature::KeyError),
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
    #[error("pulling {url}: took longer than {}s", FETCH_TIMEOUT.as_secs())]
    Timeout { url: String },
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
            SourceError::Oci(
                kubepkg_oci::Error::Unsigned { .. }
                | kubepkg_oci::Error::SignatureRejected { .. }
                | kubepkg_oci::Error::SignatureForOtherArtifact { .. },
            )
            | SourceError::VerifyProvider(_)
            | SourceError::VerifySecret { .. }
            | SourceError::VerifyKey(_) => reason::VERIFICATION_FAILED,
            SourceError::Oci(
                kubepkg_oci::Error::InvalidReference { .. }
                | kubepkg_oci::Error::BadConstraint { .. }
                | kubepkg_oci::Error::WrongArtifact { .. }
                | kubepkg_oci::Error::TooLarge { .. },
            ) => reason::INVALID_PACKAGE,
            SourceError::Git(kubepkg_source::SourceError::Git(
                kubepkg_git::GitError::InvalidSource { .. }
                | kubepkg_git::GitError::BadConstraint { .. }
                | kubepkg_git::GitError::PathNotFound { .. }
                | kubepkg_git::GitError::NotAPackage { .. }
                | kubepkg_git::GitError::Unsupported { .. }
                | kubepkg_git::GitError::TooLarge { .. },
            )) => reason::INVALID_PACKAGE,
            SourceError::Git(kubepkg_source::SourceError::Git(_)) => reason::SOURCE_UNAVAILABLE,
            SourceError::Git(_) => reason::INVALID_PACKAGE,
            SourceError::PathIsCliOnly
            | SourceError::FluxSourceRef(_)
            | SourceError::NotDockerConfig { .. }
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

/// Fetches the archive `source` names, reading ConfigMaps and Secrets of `namespace`; a `git`
/// source into the content cache of `paths`.
pub async fn fetch(
    client: &kube::Client,
    namespace: &str,
    source: &Source,
    http: &HttpClient,
    oci_cache: &std::path::Path,
    paths: &kubepkg_source::HelmPaths,
) -> Result<Fetched, SourceError> {
    if source.path.is_some() {
        return Err(SourceError::PathIsCliOnly);
    }
    if let Some(git) = &source.git {
        return Box::pin(fetch_git(client, namespace, git, paths)).await;
    }
    if let Some(reference) = &source.oci {
        // Boxed: the registry client's futures would otherwise grow every reconcile future.
        return Box::pin(fetch_oci(client, namespace, source, reference, oci_cache)).await;
    }
    if let (Some(url), Some(expected)) = (&source.url, &source.sha256) {
        let bytes = http.get(url).await?;
        return checked(bytes, url.clone(), Some(expected));
    }
    if let Some(r) = &source.config_map_ref {
        let (cm, namespace) = get::<ConfigMap>(client, "ConfigMap", namespace, r).await?;
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
        let (secret, namespace) = get::<Secret>(client, "Secret", namespace, r).await?;
        let key = r.key().to_string();
        let bytes = match secret.data.as_ref().and_then(|d| d.get(&key)) {
            Some(b) => b.0.clone(),
            None => return Err(missing_key("Secret", namespace, r, "")),
        };
        return checked(bytes, origin("Secret", namespace, r), None);
    }
    Err(SourceError::Missing)
}

/// A client of `repo`'s registry with the credentials of the `kubernetes.io/dockerconfigjson`
/// Secret `secret` of `namespace` (if any): the `oci` source's pulls and the Flux backend's
/// chart pushes (`spec.flux.secretRef`).
pub async fn registry_client(
    client: &kube::Client,
    namespace: &str,
    secret: Option<&ArchiveRef>,
    repo: &kubepkg_oci::Reference,
    insecure: bool,
    cache: &std::path::Path,
) -> Result<kubepkg_oci::Client, SourceError> {
    let credential = match secret {
        None => None,
        Some(r) => {
            let (secret, namespace) = get::<Secret>(client, "Secret", namespace, r).await?;
            let not_docker = || SourceError::NotDockerConfig {
                namespace: namespace.to_string(),
                name: r.name.clone(),
            };
            let bytes = secret
                .data
                .as_ref()
                .and_then(|d| d.get(".dockerconfigjson"))
                .ok_or_else(not_docker)?;
            let origin = std::path::PathBuf::from(format!("Secret {namespace}/{}", r.name));
            kubepkg_oci::credentials::lookup_in_json(&bytes.0, &origin, &repo.registry)?
        }
    };
    Ok(kubepkg_oci::Client::new(kubepkg_oci::ClientOptions {
        plain_http: insecure,
        insecure_skip_tls_verify: false,
        ca_file: None,
        cert_file: None,
        key_file: None,
        credentials: kubepkg_oci::CredentialFiles::none(),
        credential,
        cache: kubepkg_oci::Cache::new(cache),
        limits: kubepkg_oci::Limits::from_env()?,
    })?)
}

/// An `oci` source: credentials from the `secretRef` dockerconfigjson Secret (if any), the
/// version resolved against the tags, the package artifact pulled through the cache.
async fn fetch_oci(
    client: &kube::Client,
    namespace: &str,
    source: &Source,
    reference: &str,
    cache: &std::path::Path,
) -> Result<Fetched, SourceError> {
    let repo = kubepkg_oci::Reference::parse(reference)?;
    let oci = registry_client(
        client,
        namespace,
        source.secret_ref.as_ref(),
        &repo,
        source.insecure,
        cache,
    )
    .await?;
    let verifier = match &source.verify {
        Some(v) => Some(verifier(client, namespace, v).await?),
        None => None,
    };
    let fetch = async {
        let resolved = kubepkg_oci::resolve(&oci, &repo, source.version.as_deref()).await?;
        kubepkg_oci::package::pull_verified(&oci, &resolved, verifier.as_ref()).await
    };
    let pulled = match tokio::time::timeout(FETCH_TIMEOUT, fetch).await {
        Ok(p) => p?,
        Err(_) => {
            return Err(SourceError::Timeout {
                url: reference.to_string(),
            });
        }
    };
    let record = kubepkg_model::manifest::PackageSource {
        reference: pulled.reference.repository_url(),
        tag: pulled.reference.tag.clone().unwrap_or_default(),
        digest: pulled.digest.clone(),
    };
    let mut fetched = checked(pulled.archive, record.to_string(), None)?;
    fetched.record = Some(record);
    Ok(fetched)
}

/// The Git source of `spec.source.git` (`file://` is the CLI's: the controller reads no files
/// of its own machine for a Package).
pub fn git_source(git: &GitSource) -> Result<kubepkg_git::GitSource, SourceError> {
    use kubepkg_git::GitRef as R;
    if git.url.starts_with("file://") || git.url.starts_with("git+file://") {
        return Err(SourceError::Git(
            kubepkg_git::GitError::InvalidSource {
                source_text: git.url.clone(),
                reason: "file:// is read by the kubepkg CLI only; give the controller an https://, http:// or ssh:// URL".into(),
            }
            .into(),
        ));
    }
    let reference = match &git.reference {
        None => R::Default,
        Some(r) => {
            if let Some(c) = &r.commit {
                R::Commit(c.clone())
            } else if let Some(s) = &r.semver {
                R::Semver(s.clone())
            } else if let Some(t) = &r.tag {
                R::Tag(t.clone())
            } else if let Some(b) = &r.branch {
                R::Branch(b.clone())
            } else {
                R::Default
            }
        }
    };
    kubepkg_git::GitSource::new(&git.url, reference, git.path.as_deref().unwrap_or(""))
        .map_err(|e| SourceError::Git(e.into()))
}

/// A `git` source: credentials from `secretRef` (Flux's keys), the ref resolved, the package
/// directory fetched into the cache (or found there).
async fn fetch_git(
    client: &kube::Client,
    namespace: &str,
    git: &GitSource,
    paths: &kubepkg_source::HelmPaths,
) -> Result<Fetched, SourceError> {
    let source = git_source(git)?;
    let auth = match &git.secret_ref {
        None => kubepkg_git::Auth::None,
        Some(r) => git_auth(client, namespace, r).await?,
    };
    let checkout = kubepkg_source::package::fetch_git(
        &source,
        auth,
        &kubepkg_source::SourceOptions::default(),
        paths,
    )
    .await?;
    let record = kubepkg_source::package::git_record(&source, &checkout);
    let sha256 = hex(&Sha256::digest(
        format!("git tree {}", checkout.tree).as_bytes(),
    ));
    Ok(Fetched {
        bytes: Vec::new(),
        sha256,
        origin: record.to_string(),
        record: Some(record),
        git: Some((source, checkout)),
        subdir: None,
    })
}

/// Flux's keys of a Git Secret: `identity` and `known_hosts` (SSH), else `username` and
/// `password`, else `bearerToken`.
async fn git_auth(
    client: &kube::Client,
    namespace: &str,
    r: &kubepkg_package_object::ObjectRef,
) -> Result<kubepkg_git::Auth, SourceError> {
    let namespace = r.namespace.as_deref().unwrap_or(namespace);
    let problem = |problem: &str| SourceError::GitSecret {
        namespace: namespace.to_string(),
        name: r.name.clone(),
        problem: problem.to_string(),
    };
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let secret = read(&api, "Secret", "Secret", namespace, &r.name)
        .await?
        .ok_or_else(|| {
            problem("not found: create it with username and password, or bearerToken")
        })?;
    let data = secret.data.unwrap_or_default();
    let text = |key: &str| {
        data.get(key).map(|v| {
            String::from_utf8_lossy(&v.0)
                .trim_end_matches('\n')
                .to_string()
        })
    };
    if let Some(identity) = data.get("identity") {
        let Some(known_hosts) = text("known_hosts") else {
            return Err(problem(
                "has an SSH identity but no known_hosts: add the host's keys (ssh-keyscan HOST) under known_hosts",
            ));
        };
        return Ok(kubepkg_git::Auth::Ssh {
            identity: String::from_utf8_lossy(&identity.0).into_owned(),
            known_hosts,
        });
    }
    match (text("username"), text("password"), text("bearerToken")) {
        (Some(username), Some(password), _) => Ok(kubepkg_git::Auth::Basic { username, password }),
        (None, None, Some(token)) => Ok(kubepkg_git::Auth::Bearer(token)),
        _ => Err(problem(
            "has none of Flux's keys: store username and password, or bearerToken, or (for ssh://) identity and known_hosts",
        )),
    }
}

/// The keys of `source.verify`: every key of its Secret whose name ends in `.pub` (Flux's
/// rule), each a cosign public key, named `Secret NS/NAME key K` in messages.
async fn verifier(
    client: &kube::Client,
    namespace: &str,
    verify: &Verify,
) -> Result<kubepkg_oci::signature::Verifier, SourceError> {
    if verify.provider != "cosign" {
        return Err(SourceError::VerifyProvider(verify.provider.clone()));
    }
    let name = &verify.secret_ref.name;
    let namespace = verify.secret_ref.namespace.as_deref().unwrap_or(namespace);
    let problem = |problem: String| SourceError::VerifySecret {
        namespace: namespace.to_string(),
        name: name.clone(),
        problem,
    };
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let secret = read(&api, "Secret", "Secret", namespace, name).await?.ok_or_else(|| {
        problem(format!(
            "not found: create it with the cosign public key (kubectl create secret generic {name} --from-file=cosign.pub)"
        ))
    })?;
    let mut keys = Vec::new();
    for (key, value) in secret.data.iter().flatten() {
        if !key.ends_with(".pub") {
            continue;
        }
        let origin = format!("Secret {namespace}/{name} key {key}");
        let public = kubepkg_oci::signature::PublicKey::from_pem(&value.0, &origin)?;
        keys.push(kubepkg_oci::signature::TrustedKey {
            name: origin,
            key: public,
        });
    }
    if keys.is_empty() {
        return Err(problem(
            "has no key ending in .pub: store the cosign public key as cosign.pub".into(),
        ));
    }
    Ok(kubepkg_oci::signature::Verifier::new(keys))
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

/// The `kind` (a ConfigMap or Secret) `r` names, in `namespace` unless it names another: the
/// object, and the namespace it was read from.
async fn get<'a, K>(
    client: &kube::Client,
    kind: &'static str,
    namespace: &'a str,
    r: &'a ArchiveRef,
) -> Result<(K, &'a str), SourceError>
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    K::DynamicType: Default,
{
    let namespace = r.namespace.as_deref().unwrap_or(namespace);
    let api: Api<K> = Api::namespaced(client.clone(), namespace);
    let not_found = || SourceError::NotFound {
        kind,
        namespace: namespace.to_string(),
        name: r.name.clone(),
        key: r.key().to_string(),
    };
    let object = read(&api, kind, kind, namespace, &r.name).await?;
    Ok((object.ok_or_else(not_found)?, namespace))
}

/// The object `name` of `api` (of `namespace`) a Package names, when there is one; a refused
/// read names it `kind` (the API server's refusal: `api_kind`).
pub(crate) async fn read<K>(
    api: &Api<K>,
    kind: &'static str,
    api_kind: &str,
    namespace: &str,
    name: &str,
) -> Result<Option<K>, SourceError>
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.get_opt(name).await.map_err(|e| SourceError::Api {
        kind,
        namespace: namespace.to_string(),
        name: name.to_string(),
        source: Box::new(kubepkg_kube::KubeError::refused(
            "get",
            format!("{api_kind} {namespace}/{name}"),
            e,
        )),
    })
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
        record: None,
        git: None,
        subdir: None,
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
    fn git_refs_follow_fluxs_precedence_and_git_errors_have_their_reasons() {
        let spec: GitSource = serde_json::from_value(serde_json::json!({
            "url": "https://example.test/r.git", "path": "/deploy/shop/",
            "ref": {"branch": "main", "tag": "v1", "semver": ">=1"},
        }))
        .unwrap();
        let source = git_source(&spec).unwrap();
        assert_eq!(source.reference, kubepkg_git::GitRef::Semver(">=1".into()));
        assert_eq!(source.path, "deploy/shop");
        let bare = GitSource {
            url: "https://example.test/r.git".into(),
            ..Default::default()
        };
        assert_eq!(
            git_source(&bare).unwrap().reference,
            kubepkg_git::GitRef::Default
        );

        let git = |e| SourceError::Git(kubepkg_source::SourceError::Git(e));
        let missing_ref = git(kubepkg_git::GitError::RefNotFound {
            source_text: "git+https://example.test/r.git?branch=x".into(),
            wanted: "branch x".into(),
            known: String::new(),
        });
        assert_eq!(missing_ref.reason(), reason::SOURCE_UNAVAILABLE);
        let no_package = git(kubepkg_git::GitError::NotAPackage {
            source_text: "git+https://example.test/r.git".into(),
            commit: "0".repeat(40),
            where_: "the repository's root".into(),
        });
        assert_eq!(no_package.reason(), reason::INVALID_PACKAGE);
        let ftp = GitSource {
            url: "ftp://example.test/r.git".into(),
            ..Default::default()
        };
        assert_eq!(
            git_source(&ftp).unwrap_err().reason(),
            reason::INVALID_PACKAGE
        );
        let local = GitSource {
            url: "file:///etc/repo.git".into(),
            ..Default::default()
        };
        let e = git_source(&local).unwrap_err();
        assert!(e.to_string().contains("CLI only"), "{e}");
    }

    #[test]
    fn unreachable_sources_are_not_invalid_packages() {
        let e = SourceError::Fetch(kubepkg_fetch::FetchError::Status {
            url: "u".into(),
            status: kubepkg_fetch::Status(503),
        });
        assert_eq!(e.reason(), reason::SOURCE_UNAVAILABLE);
        assert_eq!(SourceError::PathIsCliOnly.reason(), reason::INVALID_PACKAGE);
        let unsigned = SourceError::Oci(kubepkg_oci::Error::Unsigned {
            reference: "oci://r/p@sha256:00".into(),
            tag: "sha256-00.sig".into(),
        });
        assert_eq!(unsigned.reason(), reason::VERIFICATION_FAILED);
    }
}
