//! A Helm chart repository as real ones are: a directory with a static `index.yaml` and chart
//! archives (made by the real `helm package` and `helm repo index`, see [`build_repository`]),
//! served read-only on loopback over HTTP or HTTPS by [`ChartRepo`] (certificate from a CA made
//! for that server with the `openssl` CLI), optionally behind basic auth or requiring a client
//! certificate that CA signed ([`ChartRepo::client_cert`]). `GET /redirect/PATH`
//! answers `302` to `/PATH`, for redirect tests. The server counts the requests it answered
//! ([`ChartRepo::requests`]) and stops when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use http_body_util::Full;
use hyper::body::Bytes;

use crate::Error;

/// How a [`ChartRepo`] serves.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// HTTPS with a certificate signed by a CA of its own ([`ChartRepo::ca_file`]).
    pub tls: bool,
    /// Require these basic-auth credentials on every request.
    pub basic_auth: Option<(String, String)>,
    /// Listen on this machine's outward (non-loopback) address instead of `127.0.0.1`
    /// ([`crate::proxy::outward_ip`]): clients never send loopback requests through a proxy,
    /// so proxy tests serve here.
    pub outward: bool,
    /// With `tls`: require a client certificate signed by the server's CA
    /// ([`ChartRepo::client_cert`] is one), as Go's `tls.RequireAndVerifyClientCert`.
    pub client_certs: bool,
}

/// A static file server on `127.0.0.1` (or the outward address), stopped on drop.
#[derive(Debug)]
pub struct ChartRepo {
    url: String,
    root: PathBuf,
    ca_file: Option<PathBuf>,
    requests: Arc<AtomicUsize>,
    _served: crate::serve::Served,
    _certs: Option<tempfile::TempDir>,
}

impl ChartRepo {
    /// Serves the files under `root`.
    pub fn serve(root: &Path, options: ServeOptions) -> Result<ChartRepo, Error> {
        let io = |what: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { what, path, source }
        };
        let ip = if options.outward {
            crate::proxy::outward_ip()?
        } else {
            std::net::IpAddr::from([127, 0, 0, 1])
        };
        let listener = std::net::TcpListener::bind((ip, 0))
            .map_err(io("binding", Path::new(&ip.to_string())))?;
        listener
            .set_nonblocking(true)
            .map_err(io("configuring", Path::new("listener")))?;
        let port = listener
            .local_addr()
            .map_err(io("reading the address of", Path::new("listener")))?
            .port();
        let (certs, acceptor) = if options.tls {
            let dir = tempfile::tempdir().map_err(io("creating", Path::new("tempdir")))?;
            let acceptor = make_tls(dir.path(), ip, options.client_certs)?;
            (Some(dir), Some(acceptor))
        } else {
            (None, None)
        };
        let ca_file = certs.as_ref().map(|d| d.path().join("ca.crt"));
        let scheme = if options.tls { "https" } else { "http" };
        let url = format!("{scheme}://{ip}:{port}");
        let requests = Arc::new(AtomicUsize::new(0));
        let state = Arc::new(State {
            root: root.to_path_buf(),
            auth: options
                .basic_auth
                .map(|(u, p)| crate::serve::basic_auth(&u, &p)),
            requests: requests.clone(),
        });
        let served = crate::serve::serve(listener, acceptor, move |req| {
            let state = state.clone();
            async move { state.answer(req) }
        });
        Ok(ChartRepo {
            url,
            root: root.to_path_buf(),
            ca_file,
            requests,
            _served: served,
            _certs: certs,
        })
    }

    /// `http://127.0.0.1:PORT` or `https://…`, without a trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The directory served.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The CA certificate (PEM) the HTTPS server's certificate is signed by.
    pub fn ca_file(&self) -> Option<&Path> {
        self.ca_file.as_deref()
    }

    /// A client certificate and its key (PEM files) signed by the server's CA (HTTPS only).
    pub fn client_cert(&self) -> Option<(PathBuf, PathBuf)> {
        self.ca_file.as_ref().and_then(|ca| {
            let dir = ca.parent()?;
            Some((dir.join("client.crt"), dir.join("client.key")))
        })
    }

    /// How many requests were answered so far (any status).
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

struct State {
    root: PathBuf,
    auth: Option<String>,
    requests: Arc<AtomicUsize>,
}

impl State {
    fn answer(&self, req: hyper::Request<hyper::body::Incoming>) -> hyper::Response<Full<Bytes>> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        let reply = |status: u16, body: Vec<u8>| {
            let mut r = hyper::Response::new(Full::new(Bytes::from(body)));
            *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or_default();
            r
        };
        if let Some(expected) = &self.auth {
            let given = req
                .headers()
                .get(hyper::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok());
            if given != Some(expected.as_str()) {
                let mut r = reply(401, b"unauthorized\n".to_vec());
                r.headers_mut().insert(
                    hyper::header::WWW_AUTHENTICATE,
                    hyper::header::HeaderValue::from_static("Basic realm=\"charts\""),
                );
                return r;
            }
        }
        let path = req.uri().path();
        if let Some(rest) = path.strip_prefix("/redirect/") {
            let mut r = reply(302, Vec::new());
            if let Ok(v) = hyper::header::HeaderValue::from_str(&format!("/{rest}")) {
                r.headers_mut().insert(hyper::header::LOCATION, v);
            }
            return r;
        }
        let relative = path.trim_start_matches('/');
        if relative.split('/').any(|s| s == ".." || s.is_empty()) {
            return reply(404, b"not found\n".to_vec());
        }
        match std::fs::read(self.root.join(relative)) {
            Ok(bytes) => reply(200, bytes),
            Err(_) => reply(404, b"not found\n".to_vec()),
        }
    }
}

fn run(cmd: &mut Command) -> Result<String, Error> {
    let out = cmd.output().map_err(|source| Error::Io {
        what: "running",
        path: PathBuf::from(cmd.get_program()),
        source,
    })?;
    if !out.status.success() {
        return Err(Error::Tool {
            command: format!("{cmd:?}"),
            output: format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A CA, a server certificate for `127.0.0.1`/`localhost` and a client certificate (made with
/// the `openssl` CLI in `dir`: `ca.crt`, `server.crt`, `server.key`, `client.crt`,
/// `client.key`), as a rustls acceptor; with `client_certs` it requires a client certificate
/// the CA signed.
fn make_tls(
    dir: &Path,
    ip: std::net::IpAddr,
    client_certs: bool,
) -> Result<tokio_rustls::TlsAcceptor, Error> {
    let openssl = |args: &[&str]| run(Command::new("openssl").args(args).current_dir(dir));
    // `openssl req` with a new P-256 key `NAME.key` for `subject`, writing `out`; `x509` (the
    // options that make it a self-signed certificate) or none (a request).
    let request = |x509: &[&str], name: &str, out: &str, subject: &str| {
        let key = format!("{name}.key");
        let mut args = vec!["req"];
        args.extend_from_slice(x509);
        args.extend_from_slice(&["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]);
        args.extend_from_slice(&["-nodes", "-keyout", &key, "-out", out, "-subj", subject]);
        openssl(&args)
    };
    // `NAME.key` and `NAME.crt` for `subject`, signed by the CA, with the extensions `ext`.
    let issue = |name: &str, subject: &str, ext: &str| -> Result<String, Error> {
        let csr = format!("{name}.csr");
        let crt = format!("{name}.crt");
        let cnf = format!("{name}-ext.cnf");
        request(&[], name, &csr, subject)?;
        std::fs::write(dir.join(&cnf), ext).map_err(|source| Error::Io {
            what: "writing",
            path: dir.join(&cnf),
            source,
        })?;
        let mut args = vec!["x509", "-req", "-in", &csr, "-out", &crt, "-days", "2"];
        args.extend_from_slice(&["-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial"]);
        args.extend_from_slice(&["-extfile", &cnf]);
        openssl(&args)
    };
    request(
        &["-x509", "-days", "2"],
        "ca",
        "ca.crt",
        "/CN=kubepkg test CA",
    )?;
    issue(
        "server",
        "/CN=127.0.0.1",
        &format!(
            "subjectAltName=IP:{ip},DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        ),
    )?;
    issue(
        "client",
        "/CN=kubepkg test client",
        "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n",
    )?;
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let pem_error = |path: PathBuf| {
        move |e: rustls::pki_types::pem::Error| Error::Io {
            what: "reading PEM",
            path: path.clone(),
            source: std::io::Error::other(e.to_string()),
        }
    };
    let cert_path = dir.join("server.crt");
    let key_path = dir.join("server.key");
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&cert_path)
        .map_err(pem_error(cert_path.clone()))?
        .collect::<Result<_, _>>()
        .map_err(pem_error(cert_path.clone()))?;
    let key = PrivateKeyDer::from_pem_file(&key_path).map_err(pem_error(key_path.clone()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls_error = |path: &Path| {
        let path = path.to_path_buf();
        move |e: String| Error::Io {
            what: "configuring TLS with",
            path,
            source: std::io::Error::other(e),
        }
    };
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(rustls::DEFAULT_VERSIONS)
        .map_err(|e| tls_error(&cert_path)(e.to_string()))?;
    let builder = if client_certs {
        let ca_path = dir.join("ca.crt");
        let mut roots = rustls::RootCertStore::empty();
        for ca in CertificateDer::pem_file_iter(&ca_path)
            .map_err(pem_error(ca_path.clone()))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(pem_error(ca_path.clone()))?
        {
            roots
                .add(ca)
                .map_err(|e| tls_error(&ca_path)(e.to_string()))?;
        }
        let verifier =
            rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|e| tls_error(&ca_path)(e.to_string()))?;
        builder.with_client_cert_verifier(verifier)
    } else {
        builder.with_no_client_auth()
    };
    let config = builder
        .with_single_cert(certs, key)
        .map_err(|e| tls_error(&cert_path)(e.to_string()))?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// A chart to put into a repository: `helm create NAME`, with `version` and an optional
/// description, packaged with the real `helm package`.
#[derive(Debug, Clone)]
pub struct ChartSpec {
    pub name: String,
    pub version: String,
    pub description: Option<String>,
}

impl ChartSpec {
    pub fn new(name: &str, version: &str) -> ChartSpec {
        ChartSpec {
            name: name.to_string(),
            version: version.to_string(),
            description: None,
        }
    }
}

/// Fills `dir` as a chart repository: each chart made by `helm create`, packaged by
/// `helm package`, then `helm repo index dir` (relative URLs, as most repositories have).
pub fn build_repository(helm: &Path, dir: &Path, charts: &[ChartSpec]) -> Result<(), Error> {
    let work = tempfile::tempdir().map_err(|source| Error::Io {
        what: "creating",
        path: PathBuf::from("tempdir"),
        source,
    })?;
    let helm_cmd = || {
        let mut c = Command::new(helm);
        c.env("HELM_CONFIG_HOME", work.path().join("config"))
            .env("HELM_CACHE_HOME", work.path().join("cache"))
            .env("HELM_DATA_HOME", work.path().join("data"));
        c
    };
    for spec in charts {
        let chart_dir = work.path().join(&spec.name);
        if !chart_dir.exists() {
            run(helm_cmd().arg("create").arg(&chart_dir))?;
        }
        let chart_yaml = chart_dir.join("Chart.yaml");
        let text = std::fs::read_to_string(&chart_yaml).map_err(|source| Error::Io {
            what: "reading",
            path: chart_yaml.clone(),
            source,
        })?;
        let mut lines: Vec<String> = text
            .lines()
            .map(|l| {
                if l.starts_with("version:") {
                    format!("version: {}", spec.version)
                } else if l.starts_with("description:")
                    && let Some(d) = &spec.description
                {
                    format!("description: {d}")
                } else {
                    l.to_string()
                }
            })
            .collect();
        lines.push(String::new());
        std::fs::write(&chart_yaml, lines.join("\n")).map_err(|source| Error::Io {
            what: "writing",
            path: chart_yaml.clone(),
            source,
        })?;
        run(helm_cmd().arg("package").arg(&chart_dir).arg("-d").arg(dir))?;
    }
    run(helm_cmd().args(["repo", "index"]).arg(dir))?;
    Ok(())
}
