//! The one HTTP(S) GET of kubepkg: chart repository indexes and chart archives
//! (`kubepkg-repo`) and the controller's `url` package sources (`kubepkg-controller::source`)
//! are all fetched here, so TLS, credentials, redirects, the timeout and the size cap behave
//! the same everywhere.
//!
//! What it does, following Helm's `getter.HTTPGetter` where Helm has a rule:
//! - **TLS** ([`TlsOptions`]): the system's trust roots (`rustls-native-certs`), or, with
//!   `--ca-file`, only the certificates of that PEM bundle (Go's `tlsutil.WithCAFile` replaces
//!   the pool, it does not add to it); a client certificate with `--cert-file`/`--key-file`;
//!   `--insecure-skip-tls-verify` accepts any server certificate (signatures of the handshake
//!   are still checked, so the connection is encrypted, just not authenticated). A server that
//!   asks for a client certificate and gets none, or refuses the one given, is told apart by
//!   its TLS alert ([`client_auth_failure`]), for registries and repositories alike.
//! - **Basic auth** ([`Credentials`]): sent only when the URL has the scheme and host of the
//!   repository it belongs to (an index may point its archives at another host), or to every
//!   host with `--pass-credentials`; never carried across a redirect to another host (Go's
//!   client drops `Authorization` there too).
//! - **Redirects**: up to 10, as Go's client; relative `Location`s resolve against the URL
//!   that answered.
//! - **Status**: anything but `200 OK` is an error worded as Helm's
//!   (`failed to fetch URL : 404 Not Found`).
//! - **Timeout**: one deadline for the whole fetch, redirects and body included (Go's
//!   `http.Client.Timeout`); Helm's default is 120 s ([`DEFAULT_TIMEOUT`]).
//! - **Size cap** ([`Limit`]): every body is read through a cap and stopped at it, so a
//!   server cannot make kubepkg hold more than the limit in memory; the error names the limit
//!   and the environment variable that raises it.
//!
//! Why hyper + rustls (ring) and not a higher-level client such as reqwest: the workspace
//! already builds hyper 1, hyper-util and hyper-rustls 0.27 for the controller's HTTP server and
//! kube's client, so this adds no new dependency tree, and what Helm's getter needs (per-
//! repository TLS, credentials by host, a capped body) is a few lines on top. HTTP/1.1 only.
//! - **Proxies** ([`proxy`]): `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` as Go reads them, for
//!   this client and the registry client alike ([`Proxies::from_env`], [`Proxies::connector`]).
//!
//! [`http_client`] builds every outbound HTTP client (a connect timeout, proxies, TLS);
//! [`tls_client_config`] is the one TLS configuration of kubepkg's HTTP clients (the registry
//! client in `kubepkg-oci` uses it too): a client certificate and key are checked to match,
//! and half a pair is refused. [`get_blocking`] is the bridge for synchronous callers
//! (`kubepkg-chart`'s schema `$ref`s).

pub mod proxy;

pub use proxy::{Proxies, ProxyError};

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;

/// Helm's default timeout of an index or chart download (`getter.DefaultHTTPTimeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Go's `http.Client` stops after 10 redirects.
pub const MAX_REDIRECTS: usize = 10;

/// TLS settings of one repository (Helm's `--ca-file`, `--cert-file`, `--key-file`,
/// `--insecure-skip-tls-verify`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsOptions {
    pub ca_file: Option<std::path::PathBuf>,
    pub cert_file: Option<std::path::PathBuf>,
    pub key_file: Option<std::path::PathBuf>,
    pub insecure_skip_verify: bool,
}

/// Basic-auth credentials and the repository they belong to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub username: String,
    pub password: String,
    /// The repository's URL: credentials go only to its scheme and host...
    pub origin: String,
    /// ...unless this is set (`--pass-credentials`).
    pub pass_to_all_hosts: bool,
}

/// The size cap of one body: how many bytes, what it is (for the message) and the variable
/// that raises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    /// `"repository index"`, `"chart archive"`, `"package archive"`.
    pub what: &'static str,
    /// The environment variable that raises it, when there is one.
    pub variable: Option<&'static str>,
}

/// One GET.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub url: &'a str,
    pub limit: Limit,
    pub credentials: Option<&'a Credentials>,
    /// The `Accept` header (Helm sends `application/gzip,application/octet-stream` for charts).
    pub accept: Option<&'a str>,
}

/// Why a fetch failed. Each text names the URL.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    #[error("{url}: not a valid URL ({reason})")]
    BadUrl { url: String, reason: String },
    #[error("can't create TLS config for client: {what} {}", path.display())]
    TlsFile {
        what: &'static str,
        path: std::path::PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("can't create TLS config for client")]
    Tls(#[source] rustls::Error),
    /// Only one of a client certificate and its key was given.
    #[error(
        "client certificate: {given} {} is given without {missing}; a client certificate needs both files",
        .path.display()
    )]
    ClientCertHalf {
        given: &'static str,
        missing: &'static str,
        path: std::path::PathBuf,
    },
    /// The client key is not the key of the client certificate.
    #[error(
        "client certificate {} and key {}: the key does not match the certificate; give the key the certificate was made for",
        .cert.display(), .key.display()
    )]
    ClientKeyMismatch {
        cert: std::path::PathBuf,
        key: std::path::PathBuf,
    },
    /// The client certificate and key cannot be used (an unsupported key type, …).
    #[error("client certificate {} and key {}: {source}", .cert.display(), .key.display())]
    ClientCertificate {
        cert: std::path::PathBuf,
        key: std::path::PathBuf,
        #[source]
        source: Box<rustls::Error>,
    },
    /// The server requires a client certificate and none was given.
    #[error(
        "Get {url:?}: the server requires a client certificate (TLS alert {alert:?}); give --cert-file and --key-file"
    )]
    ClientCertificateRequired {
        url: String,
        alert: rustls::AlertDescription,
    },
    /// The server refused the client certificate given.
    #[error(
        "Get {url:?}: the server refused the client certificate {} (TLS alert {alert:?}); give one signed by a CA the server trusts",
        .cert.display()
    )]
    ClientCertificateRefused {
        url: String,
        cert: std::path::PathBuf,
        alert: rustls::AlertDescription,
    },
    #[error("Get {url:?}")]
    Transport {
        url: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Helm's text for an answer that is not `200 OK`.
    #[error("failed to fetch {url} : {status}")]
    Status { url: String, status: Status },
    #[error("Get {url:?}: stopped after {MAX_REDIRECTS} redirects")]
    Redirects { url: String },
    #[error("Get {url:?}: no complete answer within {}s (the timeout)", .after.as_secs())]
    Timeout { url: String, after: Duration },
    #[error(
        "{url}: the {} is larger than {} bytes, kubepkg's limit{}",
        .limit.what, .limit.bytes, raise_hint(.limit)
    )]
    TooLarge { url: String, limit: Limit },
    #[error(transparent)]
    Proxy(#[from] ProxyError),
}

fn raise_hint(limit: &Limit) -> String {
    match limit.variable {
        Some(v) => format!("; set {v}=BYTES to raise it"),
        None => String::new(),
    }
}

impl FetchError {
    /// The HTTP status the server answered, for an answer that was not `200 OK`.
    pub fn status(&self) -> Option<u16> {
        match self {
            FetchError::Status { status, .. } => Some(status.0),
            _ => None,
        }
    }
}

/// An HTTP status printed as Go prints `resp.Status` (`404 Not Found`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status(pub u16);

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reason = hyper::StatusCode::from_u16(self.0)
            .ok()
            .and_then(|s| s.canonical_reason());
        match reason {
            Some(r) => write!(f, "{} {r}", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// The connector of kubepkg's HTTP clients: TLS over the proxy connector.
pub type Connector = hyper_rustls::HttpsConnector<proxy::ProxyConnector>;

/// How long a TCP connection (to the server or to its proxy) may take to open.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// The one builder of kubepkg's outbound HTTP(S) clients — this crate's [`Fetcher`] and
/// `kubepkg-oci`'s registry client: `tls` ([`tls_client_config`]), `proxies`, a
/// [`CONNECT_TIMEOUT`], HTTP/1.1, plain `http://` allowed where the caller asks for it.
pub fn http_client<B>(
    tls: rustls::ClientConfig,
    proxies: &Proxies,
) -> hyper_util::client::legacy::Client<Connector, B>
where
    B: hyper::body::Body + Send,
    B::Data: Send,
{
    let mut direct = hyper_util::client::legacy::connect::HttpConnector::new();
    direct.enforce_http(false);
    direct.set_connect_timeout(Some(CONNECT_TIMEOUT));
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(proxies.connector(direct));
    hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build(connector)
}

/// An HTTP(S) client with one TLS configuration. Cheap to clone.
#[derive(Clone)]
pub struct Fetcher {
    client: hyper_util::client::legacy::Client<Connector, Empty<Bytes>>,
    /// The client certificate presented, if any (for the message when it is refused).
    client_cert: Option<std::path::PathBuf>,
    proxies: Proxies,
    timeout: Duration,
    user_agent: &'static str,
}

/// The `User-Agent` kubepkg sends.
pub const USER_AGENT: &str = concat!("kubepkg/", env!("CARGO_PKG_VERSION"));

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A client with `tls`, the process's proxy variables ([`Proxies::from_env`]), and
    /// [`DEFAULT_TIMEOUT`].
    pub fn new(tls: &TlsOptions) -> Result<Fetcher, FetchError> {
        Fetcher::with_proxies(tls, Proxies::from_env()?)
    }

    /// A client with `tls` and `proxies`.
    pub fn with_proxies(tls: &TlsOptions, proxies: Proxies) -> Result<Fetcher, FetchError> {
        let client = http_client(tls_client_config(tls)?, &proxies);
        Ok(Fetcher {
            client,
            client_cert: tls.cert_file.clone(),
            proxies,
            timeout: DEFAULT_TIMEOUT,
            user_agent: USER_AGENT,
        })
    }

    /// The same client sending another `User-Agent` (schema references are fetched as Helm's).
    pub fn with_user_agent(mut self, user_agent: &'static str) -> Fetcher {
        self.user_agent = user_agent;
        self
    }

    /// The same client with another deadline for each fetch.
    pub fn with_timeout(mut self, timeout: Duration) -> Fetcher {
        self.timeout = timeout;
        self
    }

    /// GETs `request.url`: redirects followed, `200 OK` required, the body capped.
    pub async fn get(&self, request: Request<'_>) -> Result<Vec<u8>, FetchError> {
        match tokio::time::timeout(self.timeout, self.get_following(request)).await {
            Ok(r) => r,
            Err(_) => Err(FetchError::Timeout {
                url: request.url.to_string(),
                after: self.timeout,
            }),
        }
    }

    async fn get_following(&self, request: Request<'_>) -> Result<Vec<u8>, FetchError> {
        let mut current = request.url.to_string();
        let mut uri = parse(&current)?;
        let mut auth = request
            .credentials
            .filter(|c| c.pass_to_all_hosts || same_origin(&c.origin, &uri))
            .filter(|c| !c.username.is_empty() && !c.password.is_empty())
            .map(basic);
        for _ in 0..=MAX_REDIRECTS {
            let mut builder =
                hyper::Request::get(uri.clone()).header(hyper::header::USER_AGENT, self.user_agent);
            if let Some(accept) = request.accept {
                builder = builder.header(hyper::header::ACCEPT, accept);
            }
            if let Some(a) = &auth {
                builder = builder.header(hyper::header::AUTHORIZATION, a);
            }
            if let Some(p) = self.proxies.forward_authorization(&uri) {
                builder = builder.header(hyper::header::PROXY_AUTHORIZATION, p);
            }
            let req = builder.body(Empty::new()).map_err(|e| FetchError::BadUrl {
                url: current.clone(),
                reason: e.to_string(),
            })?;
            // The span `--debug` prints as a line of the request trail (kube's own is named so).
            let span = tracing::debug_span!(
                "HTTP",
                http.method = "GET",
                http.url = %current,
                http.status_code = tracing::field::Empty
            );
            let response = tracing::Instrument::instrument(self.client.request(req), span.clone())
                .await
                .map_err(
                    |e| match client_auth_failure(&e, self.client_cert.is_some()) {
                        Some(ClientAuthFailure::Required(alert)) => {
                            FetchError::ClientCertificateRequired {
                                url: current.clone(),
                                alert,
                            }
                        }
                        Some(ClientAuthFailure::Refused(alert)) => {
                            FetchError::ClientCertificateRefused {
                                url: current.clone(),
                                cert: self.client_cert.clone().unwrap_or_default(),
                                alert,
                            }
                        }
                        None => FetchError::Transport {
                            url: current.clone(),
                            source: Box::new(e),
                        },
                    },
                )?;
            let status = response.status();
            span.record("http.status_code", status.as_u16());
            if status.is_redirection()
                && let Some(location) = response
                    .headers()
                    .get(hyper::header::LOCATION)
                    .and_then(|l| l.to_str().ok())
            {
                let next = resolve(&uri, location);
                let next_uri = parse(&next)?;
                if next_uri.host() != uri.host() || next_uri.port_u16() != uri.port_u16() {
                    auth = None;
                }
                current = next;
                uri = next_uri;
                continue;
            }
            if status != hyper::StatusCode::OK {
                return Err(FetchError::Status {
                    url: current,
                    status: Status(status.as_u16()),
                });
            }
            let cap = usize::try_from(request.limit.bytes).unwrap_or(usize::MAX);
            if let Some(len) = response
                .headers()
                .get(hyper::header::CONTENT_LENGTH)
                .and_then(|l| l.to_str().ok()?.parse::<u64>().ok())
                && len > request.limit.bytes
            {
                return Err(FetchError::TooLarge {
                    url: current,
                    limit: request.limit,
                });
            }
            let body = Limited::new(response.into_body(), cap);
            let bytes = body.collect().await.map_err(|e| {
                if e.is::<http_body_util::LengthLimitError>() {
                    FetchError::TooLarge {
                        url: current.clone(),
                        limit: request.limit,
                    }
                } else {
                    FetchError::Transport {
                        url: current.clone(),
                        source: e,
                    }
                }
            })?;
            return Ok(bytes.to_bytes().to_vec());
        }
        Err(FetchError::Redirects {
            url: request.url.to_string(),
        })
    }
}

/// One GET from synchronous code (the chart layer's schema references, which a template
/// render reaches with or without a runtime around it): a client made by `make` on a thread
/// of its own with its own single-threaded runtime, so it can neither block nor be blocked by
/// a runtime of the caller's.
pub fn get_blocking(
    make: impl FnOnce() -> Result<Fetcher, FetchError> + Send,
    request: Request<'_>,
) -> Result<Vec<u8>, FetchError> {
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| FetchError::Transport {
                        url: request.url.to_string(),
                        source: Box::new(e),
                    })?;
                runtime.block_on(async { make()?.get(request).await })
            })
            .join()
            .unwrap_or_else(|_| {
                Err(FetchError::Transport {
                    url: request.url.to_string(),
                    source: "the fetching thread stopped".into(),
                })
            })
    })
}

fn parse(url: &str) -> Result<hyper::Uri, FetchError> {
    let uri: hyper::Uri =
        url.parse()
            .map_err(|e: hyper::http::uri::InvalidUri| FetchError::BadUrl {
                url: url.to_string(),
                reason: e.to_string(),
            })?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none() {
        return Err(FetchError::BadUrl {
            url: url.to_string(),
            reason: "only http:// and https:// URLs with a host are fetched".into(),
        });
    }
    Ok(uri)
}

/// Helm's rule for sending credentials: the URL has the repository's scheme and host.
fn same_origin(origin: &str, uri: &hyper::Uri) -> bool {
    let Ok(o) = origin.parse::<hyper::Uri>() else {
        return false;
    };
    o.scheme_str() == uri.scheme_str()
        && o.authority().map(|a| a.as_str()) == uri.authority().map(|a| a.as_str())
}

fn basic(c: &Credentials) -> String {
    use base64::Engine as _;
    let raw = format!("{}:{}", c.username, c.password);
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

/// A redirect's `Location` against the URL that answered it.
pub fn resolve(base: &hyper::Uri, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let scheme = base.scheme_str().unwrap_or("http");
    let authority = base.authority().map(|a| a.as_str()).unwrap_or_default();
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{scheme}://{rest}");
    }
    if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else {
        let path = base.path();
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        format!("{scheme}://{authority}{dir}{location}")
    }
}

/// The TLS configuration of kubepkg's HTTP clients (chart repositories, registries, the
/// controller's `url` sources): ring, the system roots or `ca_file` in their place, a client
/// certificate when both files are given, or no verification with `insecure_skip_verify`.
pub fn tls_client_config(tls: &TlsOptions) -> Result<rustls::ClientConfig, FetchError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(rustls::DEFAULT_VERSIONS)
        .map_err(FetchError::Tls)?;
    let builder = if tls.insecure_skip_verify {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyServer(provider)))
    } else {
        let mut roots = rustls::RootCertStore::empty();
        match &tls.ca_file {
            Some(path) => {
                let file_error =
                    |e: Box<dyn std::error::Error + Send + Sync>| FetchError::TlsFile {
                        what: "reading the CA file",
                        path: path.clone(),
                        source: e,
                    };
                let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                    .map_err(|e| file_error(Box::new(e)))?
                    .collect::<Result<_, _>>()
                    .map_err(|e| file_error(Box::new(e)))?;
                if certs.is_empty() {
                    return Err(file_error("no PEM certificate in it".into()));
                }
                for cert in certs {
                    roots.add(cert).map_err(|e| file_error(Box::new(e)))?;
                }
            }
            None => {
                for cert in rustls_native_certs::load_native_certs().certs {
                    let _ = roots.add(cert);
                }
            }
        }
        builder.with_root_certificates(roots)
    };
    // Go's tlsutil reads the pair when either is given (and fails on the missing one).
    match (&tls.cert_file, &tls.key_file) {
        (Some(cert_path), Some(key_path)) => {
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert_path)
                .and_then(|it| it.collect::<Result<_, _>>())
                .map_err(|e| FetchError::TlsFile {
                    what: "reading the client certificate",
                    path: cert_path.clone(),
                    source: Box::new(e),
                })?;
            if certs.is_empty() {
                return Err(FetchError::TlsFile {
                    what: "reading the client certificate",
                    path: cert_path.clone(),
                    source: "no PEM certificate in it".into(),
                });
            }
            let key = PrivateKeyDer::from_pem_file(key_path).map_err(|e| FetchError::TlsFile {
                what: "reading the client key",
                path: key_path.clone(),
                source: Box::new(e),
            })?;
            builder
                .with_client_auth_cert(certs, key)
                .map_err(|e| match e {
                    rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => {
                        FetchError::ClientKeyMismatch {
                            cert: cert_path.clone(),
                            key: key_path.clone(),
                        }
                    }
                    source => FetchError::ClientCertificate {
                        cert: cert_path.clone(),
                        key: key_path.clone(),
                        source: Box::new(source),
                    },
                })
        }
        (Some(path), None) => Err(FetchError::ClientCertHalf {
            given: "the certificate",
            missing: "a key file (--key-file)",
            path: path.clone(),
        }),
        (None, Some(path)) => Err(FetchError::ClientCertHalf {
            given: "the key",
            missing: "a certificate file (--cert-file)",
            path: path.clone(),
        }),
        (None, None) => Ok(builder.with_no_client_auth()),
    }
}

/// Why a server ended the TLS session over the client certificate, read from the alert it sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuthFailure {
    /// It wants a client certificate and got none (`certificate_required`, or TLS 1.2's
    /// `handshake_failure`/`bad_certificate` when none was sent).
    Required(rustls::AlertDescription),
    /// It refused the one given (unknown CA, expired, bad certificate, access denied, …).
    Refused(rustls::AlertDescription),
}

/// The client-certificate failure behind `error` (any error whose chain holds the fatal TLS
/// alert a server sent), given whether a client certificate was presented; `None` for every
/// other failure.
pub fn client_auth_failure(
    error: &(dyn std::error::Error + 'static),
    presented: bool,
) -> Option<ClientAuthFailure> {
    use rustls::AlertDescription as A;
    let alert = received_alert(error)?;
    match (alert, presented) {
        (A::CertificateRequired, _) => Some(ClientAuthFailure::Required(alert)),
        (A::HandshakeFailure | A::BadCertificate, false) => {
            Some(ClientAuthFailure::Required(alert))
        }
        (
            A::BadCertificate
            | A::UnknownCA
            | A::CertificateExpired
            | A::CertificateRevoked
            | A::CertificateUnknown
            | A::UnsupportedCertificate
            | A::AccessDenied
            | A::DecryptError,
            true,
        ) => Some(ClientAuthFailure::Refused(alert)),
        _ => None,
    }
}

/// The fatal alert the peer sent, found anywhere in `error`'s chain (an `io::Error` wrapping
/// rustls' error is looked into: its `source` skips the wrapped error).
fn received_alert(error: &(dyn std::error::Error + 'static)) -> Option<rustls::AlertDescription> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(rustls::Error::AlertReceived(a)) = e.downcast_ref::<rustls::Error>() {
            return Some(*a);
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && let Some(inner) = io.get_ref()
            && let Some(rustls::Error::AlertReceived(a)) = inner.downcast_ref::<rustls::Error>()
        {
            return Some(*a);
        }
        current = e.source();
    }
    None
}

/// `--insecure-skip-tls-verify`: any server certificate is accepted; the handshake's
/// signatures are still verified with the provider's algorithms.
#[derive(Debug)]
struct AnyServer(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for AnyServer {
    fn verify_server_cert(
        &self,
        _end_entity: &rustls::pki_types::CertificateDer<'_>,
        _intermediates: &[rustls::pki_types::CertificateDer<'_>],
        _server_name: &rustls::pki_types::ServerName<'_>,
        _ocsp_response: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_resolve_against_the_answering_url() {
        let base: hyper::Uri = "http://h:1/a/b/p.tgz".parse().unwrap();
        assert_eq!(resolve(&base, "/c.tgz"), "http://h:1/c.tgz");
        assert_eq!(resolve(&base, "c.tgz"), "http://h:1/a/b/c.tgz");
        assert_eq!(resolve(&base, "https://o/x"), "https://o/x");
        assert_eq!(resolve(&base, "//o/x"), "http://o/x");
    }

    #[test]
    fn credentials_go_to_the_repository_host_only() {
        let uri: hyper::Uri = "https://charts.example/a/x.tgz".parse().unwrap();
        assert!(same_origin("https://charts.example/a", &uri));
        assert!(!same_origin("http://charts.example/a", &uri));
        assert!(!same_origin("https://charts.example:8443/a", &uri));
        assert!(!same_origin("https://cdn.example", &uri));
    }

    #[test]
    fn statuses_print_as_go_prints_them() {
        assert_eq!(Status(404).to_string(), "404 Not Found");
        assert_eq!(Status(401).to_string(), "401 Unauthorized");
        let e = FetchError::TooLarge {
            url: "http://x/index.yaml".into(),
            limit: Limit {
                bytes: 10,
                what: "repository index",
                variable: Some("KUBEPKG_MAX_REPO_INDEX"),
            },
        };
        assert_eq!(
            e.to_string(),
            "http://x/index.yaml: the repository index is larger than 10 bytes, kubepkg's limit; set KUBEPKG_MAX_REPO_INDEX=BYTES to raise it"
        );
    }

    #[test]
    fn a_received_alert_is_found_through_io_errors() {
        use rustls::AlertDescription as A;
        let io = std::io::Error::other(rustls::Error::AlertReceived(A::CertificateRequired));
        #[derive(Debug, thiserror::Error)]
        #[error("connection error")]
        struct Outer(#[source] std::io::Error);
        let e = Outer(io);
        assert_eq!(
            client_auth_failure(&e, false),
            Some(ClientAuthFailure::Required(A::CertificateRequired))
        );
        let io = std::io::Error::other(rustls::Error::AlertReceived(A::UnknownCA));
        assert_eq!(
            client_auth_failure(&Outer(io), true),
            Some(ClientAuthFailure::Refused(A::UnknownCA))
        );
        let io = std::io::Error::other(rustls::Error::AlertReceived(A::UnknownCA));
        assert_eq!(client_auth_failure(&Outer(io), false), None);
        let io = std::io::Error::other("reset");
        assert_eq!(client_auth_failure(&Outer(io), true), None);
    }

    #[test]
    fn half_a_client_certificate_is_refused_naming_the_file() {
        let tls = TlsOptions {
            cert_file: Some("c.pem".into()),
            ..TlsOptions::default()
        };
        assert_eq!(
            tls_client_config(&tls).unwrap_err().to_string(),
            "client certificate: the certificate c.pem is given without a key file (--key-file); a client certificate needs both files"
        );
    }

    #[test]
    fn only_http_urls_are_fetched() {
        assert!(matches!(parse("ftp://x/y"), Err(FetchError::BadUrl { .. })));
        assert!(matches!(parse("file:///x"), Err(FetchError::BadUrl { .. })));
    }
}
