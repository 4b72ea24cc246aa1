//! The registry client: the distribution API's manifest, blob, upload and tag-list requests
//! over hyper, with the authentication of real registries (anonymous first; on 401 the
//! `WWW-Authenticate` challenge decides: `Basic` → the configured credential, `Bearer` → a
//! token from the challenge's realm for the repository's scope, fetched with the credential
//! when there is one), `--plain-http`, `--insecure-skip-tls-verify`, `--ca-file`, a client
//! certificate (`--cert-file`/`--key-file`, refusals told apart by the server's TLS alert:
//! `kubepkg_fetch::client_auth_failure`), size caps on
//! every answer and a digest check of every manifest and blob before it is used or cached.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client as HyperClient;

use crate::cache::{Cache, sha256_digest};
use crate::credentials::{Credential, CredentialFiles};
use crate::error::Error;
use crate::limits::{self, Limits};
use crate::manifest::{ACCEPTED_MANIFESTS, Descriptor, PulledManifest};
use crate::reference::Reference;

/// How to reach registries; the CLI's `--plain-http`, `--insecure-skip-tls-verify`,
/// `--ca-file`, and where credentials and the cache are.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Talk HTTP, not HTTPS.
    pub plain_http: bool,
    /// Accept any server certificate.
    pub insecure_skip_tls_verify: bool,
    /// Trust the CA certificates (PEM) in this file as well as the system's.
    pub ca_file: Option<PathBuf>,
    /// Present this client certificate (PEM, `--cert-file`) with its key (`--key-file`).
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    /// Where credentials are looked up.
    pub credentials: CredentialFiles,
    /// A credential to use for every host instead of the files (`registry login` checks it so).
    pub credential: Option<Credential>,
    /// The content-addressed cache.
    pub cache: Cache,
    /// Size caps.
    pub limits: Limits,
}

type Http = HyperClient<kubepkg_fetch::Connector, Full<Bytes>>;

/// A registry client (cheap to clone; one connection pool).
#[derive(Clone)]
pub struct Client {
    http: Http,
    /// `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` as Go reads them (`kubepkg_fetch::proxy`).
    proxies: kubepkg_fetch::Proxies,
    options: Arc<ClientOptions>,
    /// The `Authorization` value that worked per (host, scope).
    auth: Arc<Mutex<HashMap<(String, String), String>>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("options", &self.options)
            .finish()
    }
}

/// An answer read whole (within its cap).
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

/// What a request is for: read-only or a push (the token scope).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Pull,
    Push,
}

impl Client {
    /// A client with `options` and the process's proxy variables; fails only on an unusable
    /// `--ca-file` or proxy variable.
    pub fn new(options: ClientOptions) -> Result<Client, Error> {
        let tls = tls_config(&options)?;
        let proxies = kubepkg_fetch::Proxies::from_env().map_err(Error::Proxy)?;
        let http = kubepkg_fetch::http_client(tls, &proxies);
        Ok(Client {
            http,
            proxies,
            options: Arc::new(options),
            auth: Arc::new(Mutex::new(HashMap::new())),
        })
    }

    /// The client's options.
    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// The content-addressed cache.
    pub fn cache(&self) -> &Cache {
        &self.options.cache
    }

    fn base(&self, r: &Reference) -> String {
        let scheme = if self.options.plain_http {
            "http"
        } else {
            "https"
        };
        format!("{scheme}://{}", r.registry)
    }

    /// Checks that the registry accepts the client's credential (`GET /v2/`), as login does.
    pub async fn ping(&self, r: &Reference) -> Result<(), Error> {
        let cap = self.options.limits.max_manifest_bytes;
        self.get(r, "/v2/", &[], cap, "answer", None).await?;
        Ok(())
    }

    /// The manifest `r` names (its digest, else its tag). A reference with a digest is served
    /// from the cache when it is there; a pulled manifest's digest must equal the reference's.
    pub async fn pull_manifest(&self, r: &Reference) -> Result<PulledManifest, Error> {
        if let Some(digest) = &r.digest
            && let Some(bytes) = self.cache().get(digest)?
        {
            let media_type = media_type_field(&bytes).unwrap_or_default();
            return Ok(PulledManifest {
                bytes,
                digest: digest.clone(),
                media_type,
            });
        }
        let Some(target) = r.target() else {
            return Err(Error::InvalidReference {
                input: r.to_string(),
                reason: "it names no tag or digest; give --version".into(),
            });
        };
        let path = format!("/v2/{}/manifests/{target}", r.repository);
        let accept = ACCEPTED_MANIFESTS.join(", ");
        let headers = [(header::ACCEPT, accept)];
        let cap = self.options.limits.max_manifest_bytes;
        let missing = Some(r.to_string());
        let a = self
            .get(r, &path, &headers, cap, "manifest", missing)
            .await?;
        let digest = sha256_digest(&a.body);
        if let Some(expected) = &r.digest
            && *expected != digest
        {
            return Err(Error::DigestMismatch {
                reference: r.to_string(),
                expected: expected.clone(),
                actual: digest,
            });
        }
        let media_type = a
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or(v).trim().to_string())
            .filter(|v| !v.is_empty() && v != "application/json")
            .or_else(|| media_type_field(&a.body))
            .unwrap_or_default();
        Ok(PulledManifest {
            bytes: a.body.to_vec(),
            digest,
            media_type,
        })
    }

    /// Stores a checked manifest in the cache (callers do once they accept its content).
    pub fn cache_manifest(&self, m: &PulledManifest) -> Result<(), Error> {
        self.cache().put(&m.digest, &m.bytes)
    }

    /// The blob `desc` names, from the cache or the registry; its digest is checked before it
    /// is cached or returned.
    pub async fn pull_blob(&self, r: &Reference, desc: &Descriptor) -> Result<Vec<u8>, Error> {
        if !crate::reference::valid_digest(&desc.digest) {
            return Err(Error::Malformed {
                reference: r.to_string(),
                what: "descriptor",
                message: format!("digest {:?} is not sha256:<64 hex digits>", desc.digest),
            });
        }
        if let Some(bytes) = self.cache().get(&desc.digest)? {
            return Ok(bytes);
        }
        let limit = self.options.limits.max_blob_bytes;
        if desc.size > limit {
            return Err(Error::TooLarge {
                reference: r.to_string(),
                what: "blob",
                size: desc.size,
                limit,
                env: limits::BLOB_ENV,
            });
        }
        let path = format!("/v2/{}/blobs/{}", r.repository, desc.digest);
        let missing = Some(format!("{}@{}", r.repository_url(), desc.digest));
        let a = self.get(r, &path, &[], limit, "blob", missing).await?;
        let actual = sha256_digest(&a.body);
        if actual != desc.digest {
            return Err(Error::DigestMismatch {
                reference: r.to_string(),
                expected: desc.digest.clone(),
                actual,
            });
        }
        self.cache().put(&desc.digest, &a.body)?;
        Ok(a.body.to_vec())
    }

    /// Uploads `bytes` as a blob of `r`'s repository unless it is there already (monolithic
    /// upload: `POST` a session, `PUT` the content with its digest).
    pub async fn push_blob(
        &self,
        r: &Reference,
        media_type: &str,
        bytes: &[u8],
    ) -> Result<Descriptor, Error> {
        let desc = Descriptor::of(media_type, bytes);
        let head = format!("/v2/{}/blobs/{}", r.repository, desc.digest);
        let a = self.push_step(r, Method::HEAD, &head).await?;
        if a.status.is_success() {
            return Ok(desc);
        }
        let start = format!("/v2/{}/blobs/uploads/", r.repository);
        let a = self.push_step(r, Method::POST, &start).await?;
        if a.status != StatusCode::ACCEPTED {
            return Err(status_error(r, "POST", &start, a.status, &a.body));
        }
        let location = a
            .headers
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| Error::Malformed {
                reference: r.to_string(),
                what: "upload answer",
                message: "no Location header".into(),
            })?;
        let base = self.base(r);
        let location = location.strip_prefix(&base).unwrap_or(location);
        if location.starts_with("http://") || location.starts_with("https://") {
            return Err(Error::Malformed {
                reference: r.to_string(),
                what: "upload answer",
                message: format!("upload location {location} is on another host"),
            });
        }
        let sep = if location.contains('?') { '&' } else { '?' };
        let put = format!("{location}{sep}digest={}", desc.digest.replace(':', "%3A"));
        self.put(r, &put, "application/octet-stream", bytes).await?;
        Ok(desc)
    }

    /// Puts `bytes` as the manifest of `r`'s tag (or digest); returns its digest.
    pub async fn push_manifest(
        &self,
        r: &Reference,
        media_type: &str,
        bytes: &[u8],
    ) -> Result<String, Error> {
        let target = r.target().ok_or_else(|| Error::InvalidReference {
            input: r.to_string(),
            reason: "a push needs a tag".into(),
        })?;
        let path = format!("/v2/{}/manifests/{target}", r.repository);
        self.put(r, &path, media_type, bytes).await?;
        Ok(sha256_digest(bytes))
    }

    /// Every tag of `r`'s repository, in the registry's order (pages followed).
    pub async fn list_tags(&self, r: &Reference) -> Result<Vec<String>, Error> {
        let mut tags = Vec::new();
        let mut path = format!("/v2/{}/tags/list", r.repository);
        for _ in 0..1000 {
            let cap = self.options.limits.max_manifest_bytes;
            let missing = Some(r.repository_url());
            let a = self.get(r, &path, &[], cap, "tag list", missing).await?;
            #[derive(serde::Deserialize)]
            struct TagList {
                #[serde(default)]
                tags: Option<Vec<String>>,
            }
            let list: TagList = serde_json::from_slice(&a.body).map_err(|e| Error::Malformed {
                reference: r.repository_url(),
                what: "tag list",
                message: e.to_string(),
            })?;
            tags.extend(list.tags.unwrap_or_default());
            match next_link(&a.headers) {
                Some(next) => path = next,
                None => break,
            }
        }
        Ok(tags)
    }

    /// A `GET` with pull access that must succeed: `404` is [`Error::NotFound`] naming
    /// `missing` (when given), any other failure a status error.
    async fn get(
        &self,
        r: &Reference,
        path: &str,
        headers: &[(header::HeaderName, String)],
        cap: u64,
        what: &'static str,
        missing: Option<String>,
    ) -> Result<Answer, Error> {
        let a = self
            .send(
                r,
                Method::GET,
                path,
                headers,
                Bytes::new(),
                Access::Pull,
                cap,
                what,
            )
            .await?;
        if a.status == StatusCode::NOT_FOUND
            && let Some(reference) = missing
        {
            return Err(Error::NotFound { reference });
        }
        if !a.status.is_success() {
            return Err(status_error(r, "GET", path, a.status, &a.body));
        }
        Ok(a)
    }

    /// A request without a body, with push access (`HEAD` of a blob, `POST` of an upload).
    async fn push_step(&self, r: &Reference, method: Method, path: &str) -> Result<Answer, Error> {
        let cap = self.options.limits.max_manifest_bytes;
        self.send(
            r,
            method,
            path,
            &[],
            Bytes::new(),
            Access::Push,
            cap,
            "answer",
        )
        .await
    }

    /// A `PUT` of `bytes` (of `content_type`) with push access that must succeed.
    async fn put(
        &self,
        r: &Reference,
        path: &str,
        content_type: &str,
        bytes: &[u8],
    ) -> Result<(), Error> {
        let a = self
            .send(
                r,
                Method::PUT,
                path,
                &[(header::CONTENT_TYPE, content_type.to_string())],
                Bytes::copy_from_slice(bytes),
                Access::Push,
                self.options.limits.max_manifest_bytes,
                "answer",
            )
            .await?;
        if !a.status.is_success() {
            return Err(status_error(r, "PUT", path, a.status, &a.body));
        }
        Ok(())
    }

    /// `req` to `url` with the `Proxy-Authorization` of the proxy it goes through, if any.
    fn proxy_authorized(&self, req: http::request::Builder, url: &str) -> http::request::Builder {
        match url
            .parse()
            .ok()
            .and_then(|u| self.proxies.forward_authorization(&u))
        {
            Some(p) => req.header(header::PROXY_AUTHORIZATION, p),
            None => req,
        }
    }

    /// One request with the authentication dance; the answer read up to `cap` bytes.
    #[allow(clippy::too_many_arguments)]
    async fn send(
        &self,
        r: &Reference,
        method: Method,
        path: &str,
        headers: &[(header::HeaderName, String)],
        body: Bytes,
        access: Access,
        cap: u64,
        what: &'static str,
    ) -> Result<Answer, Error> {
        let scope = match access {
            Access::Pull => format!("repository:{}:pull", r.repository),
            Access::Push => format!("repository:{}:pull,push", r.repository),
        };
        let key = (r.registry.clone(), scope.clone());
        let known = self
            .auth
            .lock()
            .map(|m| m.get(&key).cloned())
            .unwrap_or(None);
        let first = self
            .round_trip(
                r,
                &method,
                path,
                headers,
                &body,
                known.as_deref(),
                cap,
                what,
            )
            .await?;
        if first.status != StatusCode::UNAUTHORIZED {
            return check_denied(r, first);
        }
        let challenge = first
            .headers
            .get(header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(Challenge::parse)
            .unwrap_or(Challenge::Basic);
        let credential = self.credential_for(&r.registry)?;
        let authorization = match challenge {
            Challenge::Basic => {
                let Some(c) = &credential else {
                    return Err(auth_required(r));
                };
                basic(c)
            }
            Challenge::Bearer { realm, service } => {
                format!(
                    "Bearer {}",
                    self.token(r, &realm, service.as_deref(), &scope, credential.as_ref())
                        .await?
                )
            }
        };
        let second = self
            .round_trip(
                r,
                &method,
                path,
                headers,
                &body,
                Some(&authorization),
                cap,
                what,
            )
            .await?;
        if second.status == StatusCode::UNAUTHORIZED {
            return Err(if credential.is_some() {
                auth_denied(r)
            } else {
                auth_required(r)
            });
        }
        if let Ok(mut m) = self.auth.lock() {
            m.insert(key, authorization);
        }
        check_denied(r, second)
    }

    fn credential_for(&self, host: &str) -> Result<Option<Credential>, Error> {
        if let Some(c) = &self.options.credential {
            return Ok(Some(c.clone()));
        }
        self.options.credentials.lookup(host)
    }

    /// A bearer token for `scope` from the challenge's realm (Docker's token specification).
    async fn token(
        &self,
        r: &Reference,
        realm: &str,
        service: Option<&str>,
        scope: &str,
        credential: Option<&Credential>,
    ) -> Result<String, Error> {
        let enc = |s: &str| {
            percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
        };
        let mut url = realm.to_string();
        url.push(if url.contains('?') { '&' } else { '?' });
        if let Some(s) = service {
            url.push_str(&format!("service={}&", enc(s)));
        }
        url.push_str(&format!("scope={}", enc(scope)));
        let mut req = http::Request::builder()
            .method(Method::GET)
            .uri(&url)
            .header(header::USER_AGENT, user_agent());
        if let Some(c) = credential {
            req = req.header(header::AUTHORIZATION, basic(c));
        }
        let req = self
            .proxy_authorized(req, &url)
            .body(Full::new(Bytes::new()))
            .map_err(|e| Error::Malformed {
                reference: r.to_string(),
                what: "token realm",
                message: format!("{realm}: {e}"),
            })?;
        let a = self
            .execute(
                r,
                &url,
                req,
                self.options.limits.max_manifest_bytes,
                "token answer",
            )
            .await?;
        if a.status == StatusCode::UNAUTHORIZED || a.status == StatusCode::FORBIDDEN {
            return Err(if credential.is_some() {
                auth_denied(r)
            } else {
                auth_required(r)
            });
        }
        if !a.status.is_success() {
            return Err(status_error(r, "GET", realm, a.status, &a.body));
        }
        #[derive(serde::Deserialize)]
        struct Token {
            #[serde(default)]
            token: Option<String>,
            #[serde(default)]
            access_token: Option<String>,
        }
        let t: Token = serde_json::from_slice(&a.body).map_err(|e| Error::Malformed {
            reference: r.to_string(),
            what: "token answer",
            message: e.to_string(),
        })?;
        t.token
            .or(t.access_token)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| Error::Malformed {
                reference: r.to_string(),
                what: "token answer",
                message: "no token".into(),
            })
    }

    /// One HTTP exchange at `path` of `r`'s registry, following up to five redirects (the
    /// `Authorization` header only to the registry's own host).
    #[allow(clippy::too_many_arguments)]
    async fn round_trip(
        &self,
        r: &Reference,
        method: &Method,
        path: &str,
        headers: &[(header::HeaderName, String)],
        body: &Bytes,
        authorization: Option<&str>,
        cap: u64,
        what: &'static str,
    ) -> Result<Answer, Error> {
        let base = self.base(r);
        let mut url = format!("{base}{path}");
        for _ in 0..6 {
            let same_host = url.starts_with(&base);
            let mut req = http::Request::builder()
                .method(method.clone())
                .uri(&url)
                .header(header::USER_AGENT, user_agent());
            for (k, v) in headers {
                req = req.header(k, v);
            }
            if let (Some(a), true) = (authorization, same_host) {
                req = req.header(header::AUTHORIZATION, a);
            }
            let req = self
                .proxy_authorized(req, &url)
                .body(Full::new(body.clone()))
                .map_err(|e| Error::Malformed {
                    reference: r.to_string(),
                    what: "request",
                    message: format!("{url}: {e}"),
                })?;
            let a = self.execute(r, &url, req, cap, what).await?;
            if a.status.is_redirection()
                && (*method == Method::GET || *method == Method::HEAD)
                && let Some(loc) = a
                    .headers
                    .get(header::LOCATION)
                    .and_then(|v| v.to_str().ok())
            {
                url = if loc.starts_with('/') {
                    format!("{base}{loc}")
                } else {
                    loc.to_string()
                };
                continue;
            }
            return Ok(a);
        }
        Err(Error::Transport {
            reference: r.to_string(),
            url,
            message: "too many redirects".into(),
            hint: "",
        })
    }

    async fn execute(
        &self,
        r: &Reference,
        url: &str,
        req: http::Request<Full<Bytes>>,
        cap: u64,
        what: &'static str,
    ) -> Result<Answer, Error> {
        let transport = |message: String| {
            let hint = if self.options.plain_http {
                ""
            } else if message.contains("certificate") || message.contains("UnknownIssuer") {
                "; for a private CA give --ca-file (or --insecure-skip-tls-verify)"
            } else if message.contains("InvalidContentType")
                || message.contains("corrupt message")
                || message.contains("HTTP")
            {
                "; for a registry without TLS give --plain-http"
            } else {
                ""
            };
            Error::Transport {
                reference: r.to_string(),
                url: url.to_string(),
                message,
                hint,
            }
        };
        let is_head = req.method() == Method::HEAD;
        // The span `--debug` prints as a line of the request trail (kube's own is named so).
        let span = tracing::debug_span!(
            "HTTP",
            http.method = %req.method(),
            http.url = %url,
            http.status_code = tracing::field::Empty
        );
        let sent = tracing::Instrument::instrument(self.http.request(req), span.clone());
        let resp = tokio::time::timeout(Duration::from_secs(300), sent)
            .await
            .map_err(|_| transport("no answer within 300 s".into()))?
            .map_err(|e| {
                let cert = self.options.cert_file.as_ref();
                match kubepkg_fetch::client_auth_failure(&e, cert.is_some()) {
                    Some(kubepkg_fetch::ClientAuthFailure::Required(alert)) => {
                        Error::ClientCertificateRequired {
                            reference: r.to_string(),
                            url: url.to_string(),
                            alert: format!("{alert:?}"),
                        }
                    }
                    Some(kubepkg_fetch::ClientAuthFailure::Refused(alert)) => {
                        Error::ClientCertificateRefused {
                            reference: r.to_string(),
                            url: url.to_string(),
                            cert: cert.cloned().unwrap_or_default(),
                            alert: format!("{alert:?}"),
                        }
                    }
                    None => transport(error_chain(&e)),
                }
            })?;
        span.record("http.status_code", resp.status().as_u16());
        let (parts, mut body) = resp.into_parts();
        if let Some(len) = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok())
            && len > cap
            && !is_head
            && parts.status.is_success()
        {
            return Err(too_large(r, what, len, cap));
        }
        let mut buf = Vec::new();
        if !is_head {
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| transport(error_chain(&e)))?;
                if let Ok(data) = frame.into_data() {
                    if (buf.len() + data.len()) as u64 > cap {
                        return Err(too_large(r, what, (buf.len() + data.len()) as u64, cap));
                    }
                    buf.extend_from_slice(&data);
                }
            }
        }
        Ok(Answer {
            status: parts.status,
            headers: parts.headers,
            body: Bytes::from(buf),
        })
    }
}

/// 403: the registry knows who asks and refuses.
fn check_denied(r: &Reference, a: Answer) -> Result<Answer, Error> {
    if a.status == StatusCode::FORBIDDEN {
        return Err(auth_denied(r));
    }
    Ok(a)
}

fn too_large(r: &Reference, what: &'static str, size: u64, limit: u64) -> Error {
    Error::TooLarge {
        reference: r.to_string(),
        what,
        size,
        limit,
        env: if what == "blob" {
            limits::BLOB_ENV
        } else {
            limits::MANIFEST_ENV
        },
    }
}

fn auth_required(r: &Reference) -> Error {
    Error::AuthRequired {
        reference: r.to_string(),
        host: r.registry.clone(),
    }
}

fn auth_denied(r: &Reference) -> Error {
    Error::AuthDenied {
        reference: r.to_string(),
        host: r.registry.clone(),
    }
}

fn basic(c: &Credential) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", c.username, c.password))
    )
}

fn user_agent() -> String {
    format!("kubepkg/{}", env!("CARGO_PKG_VERSION"))
}

/// The registry's error text: the first `errors[].message` of its JSON, else the body's start.
fn status_error(r: &Reference, method: &str, path: &str, status: StatusCode, body: &[u8]) -> Error {
    let message = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let e = v.get("errors")?.get(0)?;
            let code = e.get("code").and_then(|c| c.as_str()).unwrap_or_default();
            let msg = e
                .get("message")
                .and_then(|c| c.as_str())
                .unwrap_or_default();
            Some(format!("{code} {msg}").trim().to_string())
        })
        .unwrap_or_else(|| {
            String::from_utf8_lossy(&body[..body.len().min(200)])
                .trim()
                .replace('\n', " ")
        });
    let path = path.split('?').next().unwrap_or(path).to_string();
    Error::Status {
        reference: r.to_string(),
        method: method.to_string(),
        path,
        status: status.as_u16(),
        message,
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        cur = s.source();
    }
    parts.join(": ")
}

/// A manifest's `mediaType` field; when it has none (Helm writes none), what its shape says:
/// `manifests` is an index, `config` an image manifest.
fn media_type_field(bytes: &[u8]) -> Option<String> {
    let v = serde_json::from_slice::<serde_json::Value>(bytes).ok()?;
    if let Some(t) = v.get("mediaType").and_then(|t| t.as_str()) {
        return Some(t.to_string());
    }
    if v.get("manifests").is_some() {
        return Some(crate::manifest::OCI_INDEX.to_string());
    }
    v.get("config")
        .is_some()
        .then(|| crate::manifest::OCI_MANIFEST.to_string())
}

/// The path of a `Link: <…>; rel="next"` header (tag list paging).
fn next_link(headers: &HeaderMap) -> Option<String> {
    let v = headers.get(header::LINK)?.to_str().ok()?;
    let (target, params) = v.split_once(';')?;
    if !params.contains("rel=\"next\"") {
        return None;
    }
    let t = target.trim().trim_start_matches('<').trim_end_matches('>');
    if let Some(i) = t.find("/v2/") {
        return Some(t[i..].to_string());
    }
    None
}

/// A `WWW-Authenticate` challenge.
#[derive(Debug, PartialEq, Eq)]
enum Challenge {
    Basic,
    Bearer {
        realm: String,
        service: Option<String>,
    },
}

impl Challenge {
    fn parse(v: &str) -> Challenge {
        let v = v.trim();
        let Some(rest) = v
            .strip_prefix("Bearer ")
            .or_else(|| v.strip_prefix("bearer "))
        else {
            return Challenge::Basic;
        };
        let mut realm = None;
        let mut service = None;
        for (k, val) in auth_params(rest) {
            match k.to_ascii_lowercase().as_str() {
                "realm" => realm = Some(val),
                "service" => service = Some(val),
                _ => {}
            }
        }
        match realm {
            Some(realm) => Challenge::Bearer { realm, service },
            None => Challenge::Basic,
        }
    }
}

/// `k="v", k2=v2` auth parameters (quoted values may hold commas).
fn auth_params(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let key: String = std::iter::from_fn(|| chars.next_if(|c| *c != '=')).collect();
        if chars.next().is_none() {
            break;
        }
        let mut val = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => val.extend(chars.next()),
                    '"' => break,
                    c => val.push(c),
                }
            }
        } else {
            val = std::iter::from_fn(|| chars.next_if(|c| *c != ',')).collect();
        }
        out.push((key.trim().to_string(), val.trim().to_string()));
    }
    out
}

/// The TLS settings of the registry flags, through the one TLS configuration of kubepkg's HTTP
/// clients (`kubepkg_fetch::tls_client_config`: `--ca-file` in place of the system roots, as
/// Helm's `tlsutil` does, and `--insecure-skip-tls-verify`).
fn tls_config(options: &ClientOptions) -> Result<rustls::ClientConfig, Error> {
    let tls = kubepkg_fetch::TlsOptions {
        ca_file: options.ca_file.clone(),
        cert_file: options.cert_file.clone(),
        key_file: options.key_file.clone(),
        insecure_skip_verify: options.insecure_skip_tls_verify,
    };
    kubepkg_fetch::tls_client_config(&tls).map_err(|e| match e {
        kubepkg_fetch::FetchError::TlsFile { ref path, .. }
            if Some(path) == options.ca_file.as_ref() =>
        {
            Error::TlsConfig {
                path: path.clone(),
                message: format!("--ca-file: {e}"),
            }
        }
        kubepkg_fetch::FetchError::Tls(_) => Error::TlsConfig {
            path: options.ca_file.clone().unwrap_or_default(),
            message: format!("--ca-file: {e}"),
        },
        e => Error::ClientTls(Box::new(e)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_challenge_with_quoted_params() {
        assert_eq!(
            Challenge::parse(
                r#"Bearer realm="https://auth.example/token",service="reg",scope="repository:a:pull,push""#
            ),
            Challenge::Bearer {
                realm: "https://auth.example/token".into(),
                service: Some("reg".into())
            }
        );
        assert_eq!(Challenge::parse(r#"Basic realm="x""#), Challenge::Basic);
    }

    #[test]
    fn next_link_is_the_path() {
        let mut h = HeaderMap::new();
        h.insert(
            header::LINK,
            r#"</v2/a/tags/list?last=b&n=1>; rel="next""#.parse().unwrap(),
        );
        assert_eq!(next_link(&h).as_deref(), Some("/v2/a/tags/list?last=b&n=1"));
    }
}
