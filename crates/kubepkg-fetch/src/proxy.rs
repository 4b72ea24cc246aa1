//! Proxies as Go's `http.ProxyFromEnvironment` (and so Helm) reads them, for every HTTP client
//! of kubepkg: chart repositories ([`crate::Fetcher`]) and OCI registries (`kubepkg-oci`).
//!
//! The variables ([`Proxies::from_env`]), as Go's `golang.org/x/net/http/httpproxy` reads them:
//! - `HTTPS_PROXY` (else `https_proxy`) for `https://` URLs, `HTTP_PROXY` (else `http_proxy`)
//!   for `http://` URLs; `ALL_PROXY` is not read (Go does not). `HTTP_PROXY` is ignored when
//!   `REQUEST_METHOD` is set (a CGI process, where it would come from a request header).
//! - A value without a scheme is `http://…`. Only `http://` proxies are supported; any other
//!   scheme (`https://`, `socks5://`) is refused when the client is made, naming the variable,
//!   rather than silently connecting directly.
//! - `NO_PROXY` (else `no_proxy`): comma-separated host names (matching the name and its
//!   subdomains, a leading dot allowed), IP addresses, CIDR ranges, or `*`.
//! - `localhost` and loopback addresses are never proxied (Go's rule), whatever the variables.
//!
//! How: an `https://` URL goes through an HTTP `CONNECT` tunnel to the proxy (hyper-util's
//! `Tunnel`), with `Proxy-Authorization` from the proxy URL's user and password, and TLS to the
//! server inside it; an `http://` URL is sent to the proxy in absolute form (the connection is
//! marked proxied, so hyper writes `GET http://host/path`), and callers add
//! [`Proxies::forward_authorization`] to such requests.
//!
//! Why hyper-util's matcher: it is in the tree already (hyper-util, used by every client here)
//! and implements curl's `NO_PROXY` rules, which are Go's but for ports in entries (Go matches
//! `host:port` entries by port too; here an entry's port is not compared).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use hyper::Uri;
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// A proxy variable kubepkg cannot use.
#[derive(Debug, thiserror::Error)]
#[error(
    "{variable}={value:?} is not a proxy kubepkg can use: {reason}; set it to http://HOST:PORT (or unset it)"
)]
pub struct ProxyError {
    pub variable: &'static str,
    pub value: String,
    pub reason: String,
}

/// The proxy settings of one process (see the module documentation).
#[derive(Clone, Default)]
pub struct Proxies {
    matcher: Option<Arc<Matcher>>,
}

impl std::fmt::Debug for Proxies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxies")
            .field("matcher", &self.matcher)
            .finish()
    }
}

/// The values of the variables, as read ([`Proxies::from_values`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProxyVariables {
    pub http: Option<String>,
    pub https: Option<String>,
    pub no: Option<String>,
}

impl ProxyVariables {
    /// Reads Go's variables from an environment lookup (`std::env::var` in a process).
    pub fn read(env: impl Fn(&str) -> Option<String>) -> ProxyVariables {
        let first = |names: &[&str]| names.iter().find_map(|n| env(n).filter(|v| !v.is_empty()));
        let cgi = env("REQUEST_METHOD").is_some_and(|v| !v.is_empty());
        ProxyVariables {
            http: if cgi {
                None
            } else {
                first(&["HTTP_PROXY", "http_proxy"])
            },
            https: first(&["HTTPS_PROXY", "https_proxy"]),
            no: first(&["NO_PROXY", "no_proxy"]),
        }
    }
}

impl Proxies {
    /// No proxy at all.
    pub fn none() -> Proxies {
        Proxies::default()
    }

    /// The process's proxy variables; an unusable one is an error naming it.
    pub fn from_env() -> Result<Proxies, ProxyError> {
        Proxies::from_values(&ProxyVariables::read(|n| std::env::var(n).ok()))
    }

    /// Proxies from the variables' values.
    pub fn from_values(v: &ProxyVariables) -> Result<Proxies, ProxyError> {
        let http = v
            .http
            .as_deref()
            .map(|x| checked("HTTP_PROXY", x))
            .transpose()?;
        let https = v
            .https
            .as_deref()
            .map(|x| checked("HTTPS_PROXY", x))
            .transpose()?;
        if http.is_none() && https.is_none() {
            return Ok(Proxies::none());
        }
        let matcher = Matcher::builder()
            .http(http.unwrap_or_default())
            .https(https.unwrap_or_default())
            .no(v.no.clone().unwrap_or_default())
            .build();
        Ok(Proxies {
            matcher: Some(Arc::new(matcher)),
        })
    }

    /// The proxy a request to `dst` goes through, if any.
    pub fn proxy_for(&self, dst: &Uri) -> Option<Uri> {
        self.intercept(dst).map(|i| i.uri().clone())
    }

    fn intercept(&self, dst: &Uri) -> Option<hyper_util::client::proxy::matcher::Intercept> {
        let matcher = self.matcher.as_ref()?;
        let host = dst.host()?;
        if is_loopback(host) {
            return None;
        }
        matcher.intercept(dst)
    }

    /// The `Proxy-Authorization` value to send with a request to `dst` when it goes to an HTTP
    /// proxy in absolute form (an `http://` URL through a proxy with a user and password).
    pub fn forward_authorization(&self, dst: &Uri) -> Option<hyper::header::HeaderValue> {
        if dst.scheme_str() != Some("http") {
            return None;
        }
        self.intercept(dst)?.basic_auth().cloned()
    }

    /// A connector that reaches each destination directly or through its proxy (to wrap in
    /// TLS with `hyper_rustls::HttpsConnectorBuilder::wrap_connector`).
    pub fn connector(&self, direct: HttpConnector) -> ProxyConnector {
        ProxyConnector {
            direct,
            proxies: self.clone(),
        }
    }
}

/// `host` is `localhost` or a loopback address (never proxied).
fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare.to_ascii_lowercase().ends_with(".localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The proxy URL in `value` (Go's rule: no scheme means `http://`), if kubepkg can use it.
fn checked(variable: &'static str, value: &str) -> Result<String, ProxyError> {
    let err = |reason: String| ProxyError {
        variable,
        value: value.to_string(),
        reason,
    };
    let with_scheme = if value.contains("://") {
        value.to_string()
    } else {
        format!("http://{value}")
    };
    let uri: Uri = with_scheme.parse().map_err(|e| err(format!("{e}")))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some(other) => {
            return Err(err(format!(
                "{other}:// proxies are not supported, only http://"
            )));
        }
        None => return Err(err("no scheme".into())),
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(err("no host".into()));
    }
    Ok(with_scheme)
}

/// Connects directly or through the proxy [`Proxies`] names for the destination.
#[derive(Clone)]
pub struct ProxyConnector {
    direct: HttpConnector,
    proxies: Proxies,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl tower_service::Service<Uri> for ProxyConnector {
    type Response = ProxiedIo;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<ProxiedIo, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        tower_service::Service::<Uri>::poll_ready(&mut self.direct, cx).map_err(Into::into)
    }

    fn call(&mut self, dst: Uri) -> Self::Future {
        let mut direct = self.direct.clone();
        match self.proxies.intercept(&dst) {
            None => Box::pin(async move {
                let io = tower_service::Service::call(&mut direct, dst).await?;
                Ok(ProxiedIo { io, forward: false })
            }),
            Some(proxy) if dst.scheme_str() == Some("https") => {
                let mut tunnel = Tunnel::new(proxy.uri().clone(), direct);
                if let Some(auth) = proxy.basic_auth() {
                    tunnel = tunnel.with_auth(auth.clone());
                }
                let proxy_uri = proxy.uri().clone();
                Box::pin(async move {
                    let io = tower_service::Service::call(&mut tunnel, dst.clone())
                        .await
                        .map_err(|e| tunnel_error(&proxy_uri, &dst, e))?;
                    Ok(ProxiedIo { io, forward: false })
                })
            }
            Some(proxy) => {
                let proxy_uri = proxy.uri().clone();
                Box::pin(async move {
                    let io = tower_service::Service::call(&mut direct, proxy_uri).await?;
                    Ok(ProxiedIo { io, forward: true })
                })
            }
        }
    }
}

/// A `CONNECT` through the proxy that failed, naming the proxy and the destination.
#[derive(Debug, thiserror::Error)]
#[error("proxy {proxy} (CONNECT {host}){hint}")]
pub struct TunnelFailed {
    proxy: String,
    host: String,
    hint: &'static str,
    #[source]
    source: BoxError,
}

fn tunnel_error(
    proxy: &Uri,
    dst: &Uri,
    e: impl std::error::Error + Send + Sync + 'static,
) -> BoxError {
    let text = e.to_string();
    let hint = if text.contains("authorization required") {
        ": the proxy requires authentication (407); put USER:PASSWORD@ in the proxy URL"
    } else if text.contains("unsuccessful") {
        ": the proxy refused the tunnel"
    } else {
        ""
    };
    Box::new(TunnelFailed {
        proxy: proxy.to_string(),
        host: dst.authority().map(|a| a.to_string()).unwrap_or_default(),
        hint,
        source: Box::new(e),
    })
}

/// A connection, marked proxied when requests on it go to a proxy in absolute form.
pub struct ProxiedIo {
    io: TokioIo<TcpStream>,
    forward: bool,
}

impl Connection for ProxiedIo {
    fn connected(&self) -> Connected {
        self.io.connected().proxy(self.forward)
    }
}

impl Read for ProxiedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl Write for ProxiedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(http: Option<&str>, https: Option<&str>, no: Option<&str>) -> Proxies {
        Proxies::from_values(&ProxyVariables {
            http: http.map(String::from),
            https: https.map(String::from),
            no: no.map(String::from),
        })
        .unwrap()
    }

    fn via(p: &Proxies, url: &str) -> Option<String> {
        p.proxy_for(&url.parse().unwrap()).map(|u| u.to_string())
    }

    #[test]
    fn each_scheme_takes_its_own_variable() {
        let p = proxies(Some("http://p1:3128"), Some("p2:8080"), None);
        assert_eq!(
            via(&p, "http://charts.example/x").as_deref(),
            Some("http://p1:3128/")
        );
        assert_eq!(
            via(&p, "https://charts.example/x").as_deref(),
            Some("http://p2:8080/")
        );
        let only_https = proxies(None, Some("http://p2:8080"), None);
        assert_eq!(via(&only_https, "http://charts.example/x"), None);
    }

    #[test]
    fn loopback_and_localhost_are_never_proxied() {
        let p = proxies(Some("http://p:1"), Some("http://p:1"), None);
        for url in [
            "https://127.0.0.1:5000/v2/",
            "http://localhost:8080/index.yaml",
            "https://[::1]:443/",
            "https://127.1.2.3/",
            "http://registry.localhost/",
        ] {
            assert_eq!(via(&p, url), None, "{url}");
        }
        assert!(via(&p, "https://192.0.2.7:5000/").is_some());
    }

    #[test]
    fn no_proxy_names_domains_addresses_and_ranges() {
        let p = proxies(
            None,
            Some("http://p:1"),
            Some("example.com, .corp.internal,10.0.0.0/8,192.0.2.9"),
        );
        for url in [
            "https://example.com/",
            "https://charts.example.com/",
            "https://a.corp.internal/",
            "https://10.1.2.3/",
            "https://192.0.2.9:5000/",
        ] {
            assert_eq!(via(&p, url), None, "{url}");
        }
        for url in ["https://notexample.com/", "https://192.0.2.10/"] {
            assert!(via(&p, url).is_some(), "{url}");
        }
        assert_eq!(
            via(
                &proxies(None, Some("http://p:1"), Some("*")),
                "https://x.y/"
            ),
            None
        );
    }

    #[test]
    fn variables_are_read_as_go_reads_them() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |n: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map(|(_, v)| v.to_string())
            }
        };
        let v = ProxyVariables::read(env(&[
            ("HTTPS_PROXY", "http://upper:1"),
            ("https_proxy", "http://lower:1"),
            ("http_proxy", "http://lower:2"),
            ("ALL_PROXY", "http://all:3"),
            ("no_proxy", "a.b"),
        ]));
        assert_eq!(v.https.as_deref(), Some("http://upper:1"));
        assert_eq!(v.http.as_deref(), Some("http://lower:2"));
        assert_eq!(v.no.as_deref(), Some("a.b"));
        let cgi = ProxyVariables::read(env(&[
            ("REQUEST_METHOD", "GET"),
            ("HTTP_PROXY", "http://from-a-header:1"),
            ("HTTPS_PROXY", "http://p:1"),
        ]));
        assert_eq!(cgi.http, None);
        assert_eq!(cgi.https.as_deref(), Some("http://p:1"));
        assert_eq!(ProxyVariables::read(env(&[])), ProxyVariables::default());
    }

    #[test]
    fn unusable_proxies_are_refused_naming_the_variable() {
        let e = Proxies::from_values(&ProxyVariables {
            https: Some("socks5://p:1080".into()),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "HTTPS_PROXY=\"socks5://p:1080\" is not a proxy kubepkg can use: socks5:// proxies \
             are not supported, only http://; set it to http://HOST:PORT (or unset it)"
        );
        assert!(
            Proxies::from_values(&ProxyVariables {
                http: Some("http://".into()),
                ..Default::default()
            })
            .is_err()
        );
    }

    #[test]
    fn only_plain_http_requests_carry_the_proxy_credentials() {
        let p = proxies(Some("http://u:pw@p:1"), Some("http://u:pw@p:1"), None);
        let auth = p
            .forward_authorization(&"http://charts.example/i".parse().unwrap())
            .unwrap();
        assert_eq!(auth, "Basic dTpwdw==");
        assert!(
            p.forward_authorization(&"https://charts.example/i".parse().unwrap())
                .is_none()
        );
    }
}
