//! A real OCI registry on loopback for tests: the CNCF distribution registry run in-process by
//! `kpk-registry` (`testenv/registry/`, built from the Go module proxy on first use through
//! `testenv/registry/build.sh` and cached, as `helm` is). [`Registry::start`] gives each test
//! its own registry (its own storage directory and port): plain HTTP, TLS with a per-registry
//! CA ([`Registry::ca_file`]), optionally requiring a client certificate that CA signed (the
//! registry's `http.tls.clientcas`; [`Registry::client_cert`]), and with htpasswd users (basic
//! auth) or bearer tokens issued by its own token endpoint. It listens on loopback, or on this
//! machine's outward address for proxy tests (loopback is never proxied). The process is stopped when the [`Registry`] is dropped, and exits
//! by itself when the test binary dies.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::Error;

/// How a test registry is reached and who may use it.
#[derive(Debug, Clone, Default)]
pub struct RegistryOptions {
    /// Serve HTTPS with a certificate of a CA made for this registry.
    pub tls: bool,
    /// Require this user (name, password).
    pub user: Option<(String, String)>,
    /// With a user: ask for bearer tokens from the registry's own token endpoint (the flow of
    /// public registries) instead of basic auth.
    pub token: bool,
    /// With TLS: require a client certificate signed by the registry's CA
    /// (`http.tls.clientcas`); [`Registry::client_cert`] is one.
    pub client_certs: bool,
    /// Listen on this machine's outward address ([`crate::proxy::outward_ip`]) instead of
    /// `127.0.0.1`, so that requests to it go through a proxy.
    pub outward: bool,
}

impl RegistryOptions {
    /// Plain HTTP, anyone may push and pull.
    pub fn plain() -> Self {
        Self::default()
    }
    /// HTTPS with a per-registry CA.
    pub fn tls() -> Self {
        Self {
            tls: true,
            ..Self::default()
        }
    }
    /// Require `user` with `password` (basic auth).
    pub fn with_user(mut self, user: &str, password: &str) -> Self {
        self.user = Some((user.to_string(), password.to_string()));
        self
    }
    /// Bearer tokens instead of basic auth (needs a user).
    pub fn with_token(mut self) -> Self {
        self.token = true;
        self
    }
    /// HTTPS that requires a client certificate signed by the registry's CA.
    pub fn with_client_certs(mut self) -> Self {
        self.tls = true;
        self.client_certs = true;
        self
    }
    /// On this machine's outward address (for proxy tests).
    pub fn outward(mut self) -> Self {
        self.outward = true;
        self
    }
}

/// A running `kpk-registry serve`; stopped on drop.
#[derive(Debug)]
pub struct Registry {
    child: Child,
    dir: tempfile_dir::Dir,
    /// `IP:PORT` it listens on.
    host: String,
    tls: bool,
}

impl Registry {
    /// Starts a registry of its own on a free loopback port.
    pub fn start(options: RegistryOptions) -> Result<Registry, Error> {
        let bin = registry_binary()?;
        let dir = tempfile_dir::Dir::new("kubepkg-registry")?;
        let mut cmd = Command::new(&bin);
        cmd.arg("serve").arg("--root").arg(dir.path().join("root"));
        let ip = if options.outward {
            crate::proxy::outward_ip()?
        } else {
            std::net::IpAddr::from([127, 0, 0, 1])
        };
        cmd.arg("--addr").arg(ip.to_string());
        if options.client_certs && !options.tls {
            return Err(Error::Registry {
                message: "client certificates need a TLS registry (RegistryOptions::tls)".into(),
            });
        }
        if options.tls {
            run(Command::new(&bin)
                .arg("certs")
                .arg(dir.path().join("pki"))
                .arg(ip.to_string()))?;
            cmd.arg("--tls-cert")
                .arg(dir.path().join("pki/server.pem"))
                .arg("--tls-key")
                .arg(dir.path().join("pki/server-key.pem"));
            if options.client_certs {
                cmd.arg("--client-ca").arg(dir.path().join("pki/ca.pem"));
            }
        }
        if let Some((user, password)) = &options.user {
            let line = run(Command::new(&bin).args(["htpasswd", user, password]))?;
            let path = dir.path().join("htpasswd");
            std::fs::write(&path, line).map_err(|source| Error::Io {
                what: "writing",
                path: path.clone(),
                source,
            })?;
            cmd.arg("--htpasswd").arg(&path);
            if options.token {
                cmd.arg("--token");
            }
        }
        let (mut child, host) =
            crate::process::spawn_listening(cmd.stdin(Stdio::null()).stderr(Stdio::inherit()))?;
        let host = match host {
            Ok(host) => host,
            Err(line) => {
                let _ = child.kill();
                let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
                return Err(Error::Registry {
                    message: format!(
                        "kpk-registry serve did not start ({status}); it printed {line:?}"
                    ),
                });
            }
        };
        Ok(Registry {
            child,
            dir,
            host,
            tls: options.tls,
        })
    }

    /// `127.0.0.1:PORT` (or the outward `IP:PORT`), the host part of `oci://` references.
    pub fn host(&self) -> String {
        self.host.clone()
    }

    /// `oci://127.0.0.1:PORT/PATH`.
    pub fn oci(&self, path: &str) -> String {
        format!("oci://{}/{}", self.host(), path.trim_start_matches('/'))
    }

    /// The registry's base URL (`http://…` or `https://…`).
    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.host())
    }

    /// The CA certificate (PEM) that signed the serving certificate (TLS registries only).
    pub fn ca_file(&self) -> Option<PathBuf> {
        self.tls.then(|| self.dir.path().join("pki/ca.pem"))
    }

    /// A client certificate and its key (PEM) signed by the registry's CA (TLS registries
    /// only; the one a registry started `with_client_certs` accepts).
    pub fn client_cert(&self) -> Option<(PathBuf, PathBuf)> {
        self.tls.then(|| {
            (
                self.dir.path().join("pki/client.pem"),
                self.dir.path().join("pki/client-key.pem"),
            )
        })
    }

    /// The registry's storage (`docker/registry/v2/…` under it): tests tamper with blobs here.
    pub fn storage_dir(&self) -> PathBuf {
        self.dir.path().join("root/data")
    }

    /// The registry's request log.
    pub fn log_file(&self) -> PathBuf {
        self.dir.path().join("root/registry.log")
    }

    /// How many requests the registry has served so far whose path contains `needle`
    /// (e.g. `/blobs/`): tests check that a cached pull transfers nothing.
    pub fn requests_matching(&self, needle: &str) -> usize {
        std::fs::read_to_string(self.log_file())
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("kpk-registry: ") && l.contains(needle))
            .count()
    }

    /// A scratch directory that lives as long as the registry.
    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The path of `kpk-registry`, built by `testenv/registry/build.sh` on first use (once per
/// test binary) and cached afterwards.
pub fn registry_binary() -> Result<PathBuf, Error> {
    crate::tooling::built("registry").map_err(|message| Error::Registry { message })
}

fn run(cmd: &mut Command) -> Result<String, Error> {
    let out = cmd.output().map_err(|e| Error::Registry {
        message: format!("running {cmd:?}: {e}"),
    })?;
    if !out.status.success() {
        return Err(Error::Registry {
            message: format!(
                "{cmd:?} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A temporary directory removed on drop (the kit has no tempfile dependency).
mod tempfile_dir {
    use std::path::{Path, PathBuf};

    use crate::Error;

    #[derive(Debug)]
    pub struct Dir(PathBuf);

    impl Dir {
        pub fn new(prefix: &str) -> Result<Dir, Error> {
            static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!("{prefix}-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).map_err(|source| Error::Io {
                what: "creating",
                path: path.clone(),
                source,
            })?;
            Ok(Dir(path))
        }
        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    fn get_v2(reg: &Registry) -> String {
        let mut s = std::net::TcpStream::connect(reg.host()).unwrap();
        write!(
            s,
            "GET /v2/ HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            reg.host()
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn plain_registry_answers_and_stops_on_drop() {
        let reg = Registry::start(RegistryOptions::plain()).unwrap();
        assert!(get_v2(&reg).starts_with("HTTP/1.1 200"), "{}", get_v2(&reg));
        let host = reg.host();
        drop(reg);
        assert!(std::net::TcpStream::connect(host).is_err());
    }

    #[test]
    fn registry_with_user_asks_for_basic_auth_and_token_for_bearer() {
        let reg = Registry::start(RegistryOptions::plain().with_user("u", "p")).unwrap();
        let answer = get_v2(&reg);
        assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
        assert!(answer.contains("Basic realm"), "{answer}");
        let reg =
            Registry::start(RegistryOptions::plain().with_user("u", "p").with_token()).unwrap();
        let answer = get_v2(&reg);
        assert!(answer.contains("Bearer realm"), "{answer}");
    }

    #[test]
    fn tls_registry_has_a_ca_file() {
        let reg = Registry::start(RegistryOptions::tls()).unwrap();
        let ca = std::fs::read_to_string(reg.ca_file().unwrap()).unwrap();
        assert!(ca.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(reg.url().starts_with("https://127.0.0.1:"));
    }
}
