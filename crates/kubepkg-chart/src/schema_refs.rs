//! The documents a `values.schema.json` refers to by URL, loaded as Helm 4's
//! `ValidateAgainstSingleSchema` loads them (`pkg/chart/common/util/jsonschema.go`): `http`
//! and `https` by a GET through `kubepkg-fetch` (15 s timeout, `HTTPS_PROXY`/`NO_PROXY`, the system's trust roots,
//! `User-Agent: Helm/4.3.1`, status 200 only), `file` from the local disk, and `urn` as the
//! permissive schema `true` with Helm's one warning per URN. The error texts are Helm's:
//! `failing loading "<url>": HTTP request to <url> returned status 404 (Not Found)`, `…: HTTP
//! request failed for <url>: Get "<url>": dial tcp <addr>: connect: connection refused`, Go's
//! `encoding/json` text for a document that is not JSON.
//!
//! Unlike Helm, a fetch is bounded ([`MAX_DOCUMENT_BYTES`]) and cached: in the process (a
//! controller validates many charts against the same few URLs) and on disk for
//! [`CACHE_MAX_AGE`] under `$KUBEPKG_SCHEMA_CACHE` (default `$XDG_CACHE_HOME/kubepkg/schema-refs`
//! or `~/.cache/kubepkg/schema-refs`; `off` disables it). Only successful fetches are cached.

use jsonschema::{Retrieve, Uri};
use kubepkg_gostd::slog;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// The largest document a reference may name (Helm has no bound).
pub const MAX_DOCUMENT_BYTES: u64 = 16 << 20;
/// Helm's HTTP client timeout for a reference.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a document fetched once is served from the disk cache.
pub const CACHE_MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// Why a referenced document could not be loaded; `Display` is Helm's text after
/// `failing loading "<url>": `.
#[derive(Debug, thiserror::Error)]
pub enum RefError {
    #[error("HTTP request to {url} returned status {code} ({})", status_text(*.code))]
    Status { url: String, code: u16 },
    #[error(
        "HTTP request failed for {url}: Get {}: {reason}",
        kubepkg_gostd::strconv::quote(url)
    )]
    Request { url: String, reason: String },
    #[error("HTTP response for {url} is larger than {limit} bytes")]
    TooLarge { url: String, limit: u64 },
    #[error("open {path}: {reason}")]
    File { path: String, reason: String },
    /// Go's `encoding/json` text for a document that is not JSON.
    #[error("{0}")]
    Json(String),
    #[error("unsupported scheme {0:?}")]
    Scheme(String),
}

/// The retriever the schema compiler is given: Helm's scheme loaders.
#[derive(Debug, Default, Clone, Copy)]
pub struct HelmLoader;

impl Retrieve for HelmLoader {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<serde_json::Value, Box<dyn std::error::Error + Send + Sync>> {
        let url = uri.as_str();
        let url = url.split_once('#').map_or(url, |(u, _)| u);
        Ok(load(url, uri.scheme().as_str(), uri.path().as_str())?)
    }
}

fn load(url: &str, scheme: &str, path: &str) -> Result<serde_json::Value, RefError> {
    match scheme {
        "http" | "https" => {
            if let Some(doc) = memory().lock().unwrap_or_else(|e| e.into_inner()).get(url) {
                return Ok((**doc).clone());
            }
            let doc = Arc::new(match disk_cached(url) {
                Some(doc) => doc,
                None => {
                    let bytes = fetch(url)?;
                    let doc = parse(&bytes)?;
                    disk_store(url, &bytes);
                    doc
                }
            });
            memory()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(url.to_string(), doc.clone());
            Ok((*doc).clone())
        }
        "file" => {
            let path = percent_decode(path);
            let bytes = read_capped(&path).map_err(|e| RefError::File {
                path: path.clone(),
                reason: crate::error::go_io_reason(&e),
            })?;
            parse(&bytes)
        }
        "urn" => {
            static WARNED: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
            let first = WARNED
                .get_or_init(Default::default)
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(url.to_string());
            if first {
                slog::log(
                    slog::Record::warn("unresolved URN reference ignored; using permissive schema")
                        .attr("urn", url),
                );
            }
            Ok(serde_json::Value::Bool(true))
        }
        other => Err(RefError::Scheme(other.to_string())),
    }
}

fn memory() -> &'static Mutex<HashMap<String, Arc<serde_json::Value>>> {
    static MEMORY: OnceLock<Mutex<HashMap<String, Arc<serde_json::Value>>>> = OnceLock::new();
    MEMORY.get_or_init(Default::default)
}

/// A document's bytes as JSON, refused with Go's `encoding/json` text as Helm's
/// `jsonschema.UnmarshalJSON` refuses it.
fn parse(bytes: &[u8]) -> Result<serde_json::Value, RefError> {
    let text = String::from_utf8_lossy(bytes);
    if let Err(e) = kubepkg_yaml::json::from_json(&text) {
        return Err(RefError::Json(e.to_string()));
    }
    serde_json::from_slice(bytes).map_err(|e| RefError::Json(e.to_string()))
}

/// Helm's `User-Agent` for schema references (`Helm/4.3.1`).
fn user_agent() -> &'static str {
    static UA: OnceLock<String> = OnceLock::new();
    UA.get_or_init(|| {
        format!(
            "Helm/{}",
            crate::objects::HELM_VERSION.trim_start_matches('v')
        )
    })
}

/// A GET through the one HTTP client of kubepkg (`kubepkg-fetch`: the system's trust roots,
/// `HTTPS_PROXY`/`NO_PROXY`, redirects, a deadline, a capped body), from this synchronous
/// layer through its blocking bridge.
fn fetch(url: &str) -> Result<Vec<u8>, RefError> {
    use kubepkg_fetch::{FetchError, Fetcher, Limit, Request, TlsOptions};
    let request = Request {
        url,
        limit: Limit {
            bytes: MAX_DOCUMENT_BYTES,
            what: "schema document",
            variable: None,
        },
        credentials: None,
        accept: None,
    };
    let make = || {
        Ok(Fetcher::new(&TlsOptions::default())?
            .with_timeout(FETCH_TIMEOUT)
            .with_user_agent(user_agent()))
    };
    kubepkg_fetch::get_blocking(make, request).map_err(|e| match e {
        FetchError::Status { status, .. } => RefError::Status {
            url: url.to_string(),
            code: status.0,
        },
        FetchError::TooLarge { .. } => RefError::TooLarge {
            url: url.to_string(),
            limit: MAX_DOCUMENT_BYTES,
        },
        e => RefError::Request {
            url: url.to_string(),
            reason: go_request_reason(url, &e),
        },
    })
}

/// The tail of Go's `*url.Error` for a failed request, as far as it can be told: a refused
/// connection names the address as Go's dialer does, an unknown host as Go's resolver, a
/// timeout is `http.Client`'s.
fn go_request_reason(url: &str, e: &kubepkg_fetch::FetchError) -> String {
    use kubepkg_fetch::FetchError;
    match e {
        FetchError::Timeout { .. } => {
            "context deadline exceeded (Client.Timeout exceeded while awaiting headers)".into()
        }
        FetchError::Redirects { .. } => "stopped after 10 redirects".into(),
        FetchError::Transport { source, .. } => {
            let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(source.as_ref());
            let mut texts = Vec::new();
            while let Some(c) = cause {
                if let Some(io) = c.downcast_ref::<std::io::Error>()
                    && io.kind() == std::io::ErrorKind::ConnectionRefused
                {
                    return format!("dial tcp {}: connect: connection refused", host_port(url));
                }
                texts.push(c.to_string());
                cause = c.source();
            }
            let all = texts.join(": ");
            if all.contains("failed to lookup address") || all.contains("dns error") {
                let host = host_port(url);
                let host = host.rsplit_once(':').map_or(host.as_str(), |(h, _)| h);
                return format!("dial tcp: lookup {host}: no such host");
            }
            texts.last().cloned().unwrap_or(all)
        }
        other => other.to_string(),
    }
}

/// `host:port` of a URL, the port defaulted by scheme.
fn host_port(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let has_port = match authority.rfind(']') {
        Some(close) => authority[close..].contains(':'),
        None => authority.contains(':'),
    };
    if has_port {
        authority.to_string()
    } else {
        let port = if scheme == "https" { 443 } else { 80 };
        format!("{authority}:{port}")
    }
}

fn read_capped(path: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut out)?;
    if out.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {MAX_DOCUMENT_BYTES} bytes"
        )));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) =
                u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or(""), 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The disk cache directory, or `None` when it is switched off or there is no home.
fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os("KUBEPKG_SCHEMA_CACHE") {
        Some(v) if v == "off" => None,
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => {
            let base = std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            Some(base.join("kubepkg").join("schema-refs"))
        }
    }
}

fn cache_file(url: &str) -> Option<PathBuf> {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(url.as_bytes());
    let name: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Some(cache_dir()?.join(format!("{name}.json")))
}

fn disk_cached(url: &str) -> Option<serde_json::Value> {
    let path = cache_file(url)?;
    let age = std::fs::metadata(&path)
        .ok()?
        .modified()
        .ok()?
        .elapsed()
        .ok()?;
    if age > CACHE_MAX_AGE {
        return None;
    }
    let bytes = read_capped(path.to_str()?).ok()?;
    parse(&bytes).ok()
}

/// Store a fetched document (best effort: a cache that cannot be written is no error).
fn disk_store(url: &str, bytes: &[u8]) {
    let Some(path) = cache_file(url) else { return };
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    if std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Go's `http.StatusText`.
fn status_text(code: u16) -> &'static str {
    match code {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        305 => "Use Proxy",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        407 => "Proxy Authentication Required",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Request Entity Too Large",
        414 => "Request URI Too Long",
        415 => "Unsupported Media Type",
        416 => "Requested Range Not Satisfiable",
        417 => "Expectation Failed",
        418 => "I'm a teapot",
        421 => "Misdirected Request",
        422 => "Unprocessable Entity",
        423 => "Locked",
        424 => "Failed Dependency",
        425 => "Too Early",
        426 => "Upgrade Required",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        506 => "Variant Also Negotiates",
        507 => "Insufficient Storage",
        508 => "Loop Detected",
        510 => "Not Extended",
        511 => "Network Authentication Required",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_defaults_by_scheme() {
        assert_eq!(host_port("http://127.0.0.1:8/a.json"), "127.0.0.1:8");
        assert_eq!(host_port("https://example.com/a.json"), "example.com:443");
        assert_eq!(host_port("http://u:p@[::1]/x"), "[::1]:80");
    }

    #[test]
    fn status_errors_read_as_helm() {
        let e = RefError::Status {
            url: "http://h/x.json".into(),
            code: 404,
        };
        assert_eq!(
            e.to_string(),
            "HTTP request to http://h/x.json returned status 404 (Not Found)"
        );
    }
}
