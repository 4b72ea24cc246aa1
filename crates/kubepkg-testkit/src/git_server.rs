//! A real Git server on loopback: Debian's `git http-backend` (Git's own smart-HTTP server, a
//! CGI program) behind a small CGI server written here ([`GitServer`]), optionally requiring
//! HTTP basic auth or a bearer token, serving the bare repositories under its root. Tests
//! make a repository with [`GitServer::repo`] and commit, tag and push to it with the real
//! `git` through [`GitRepo`]. Every request is counted ([`GitServer::requests`]); the server
//! stops when dropped. For `git+ssh://`, [`SshServer`] is the real `sshd` on loopback with a
//! host key and one client key of its own. `git` and `sshd` must be installed
//! (scripts/lib/needs.sh lists them).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;

use crate::Error;

/// What a [`GitServer`] requires of clients.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum GitAuth {
    /// Anyone may read and push.
    #[default]
    None,
    /// HTTP basic auth with this username and password.
    Basic(String, String),
    /// `Authorization: Bearer TOKEN`.
    Bearer(String),
}

fn git_error(message: impl Into<String>) -> Error {
    Error::Git {
        message: message.into(),
    }
}

/// Runs `git` with `args` in `dir` with no user or system configuration; its standard output.
pub fn git(dir: &Path, args: &[&str]) -> Result<String, Error> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "kubepkg test")
        .env("GIT_AUTHOR_EMAIL", "test@kubepkg.invalid")
        .env("GIT_COMMITTER_NAME", "kubepkg test")
        .env("GIT_COMMITTER_EMAIL", "test@kubepkg.invalid")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            git_error(format!(
                "running git {args:?}: {e} (install Debian's git: scripts/lib/needs.sh)"
            ))
        })?;
    if !out.status.success() {
        return Err(git_error(format!(
            "git {args:?} in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `git http-backend` over HTTP on `127.0.0.1`, stopped on drop.
#[derive(Debug)]
pub struct GitServer {
    base: String,
    root: tempfile::TempDir,
    requests: Arc<AtomicUsize>,
    _served: crate::serve::Served,
}

impl GitServer {
    /// Starts a server requiring `auth`.
    pub fn start(auth: GitAuth) -> Result<GitServer, Error> {
        let root = tempfile::tempdir().map_err(|e| git_error(format!("tempdir: {e}")))?;
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|e| git_error(format!("binding 127.0.0.1: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| git_error(format!("reading the listener's address: {e}")))?
            .port();
        let requests = Arc::new(AtomicUsize::new(0));
        let expected = match &auth {
            GitAuth::None => None,
            GitAuth::Basic(u, p) => Some(crate::serve::basic_auth(u, p)),
            GitAuth::Bearer(t) => Some(format!("Bearer {t}")),
        };
        let state = Arc::new(Cgi {
            root: root.path().to_path_buf(),
            expected,
            requests: requests.clone(),
        });
        let served = crate::serve::serve(listener, None, move |req| {
            let state = state.clone();
            async move { state.answer(req).await }
        });
        Ok(GitServer {
            base: format!("http://127.0.0.1:{port}"),
            root,
            requests,
            _served: served,
        })
    }

    /// The URL of repository `name` (`http://127.0.0.1:PORT/NAME.git`).
    pub fn url(&self, name: &str) -> String {
        format!("{}/{name}.git", self.base)
    }

    /// A new empty bare repository `name` on the server, and a work tree to commit from.
    pub fn repo(&self, name: &str) -> Result<GitRepo, Error> {
        let bare = self.root.path().join(format!("{name}.git"));
        std::fs::create_dir_all(&bare).map_err(|e| git_error(format!("mkdir: {e}")))?;
        git(
            &bare,
            &["init", "--quiet", "--bare", "--initial-branch=main"],
        )?;
        let work = tempfile::tempdir().map_err(|e| git_error(format!("tempdir: {e}")))?;
        git(work.path(), &["init", "--quiet", "--initial-branch=main"])?;
        let bare_text = bare.to_string_lossy().into_owned();
        git(work.path(), &["remote", "add", "origin", &bare_text])?;
        Ok(GitRepo { bare, work })
    }

    /// How many requests were answered so far (any status).
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// A repository of a [`GitServer`] and a work tree that pushes to it directly.
#[derive(Debug)]
pub struct GitRepo {
    bare: PathBuf,
    work: tempfile::TempDir,
}

impl GitRepo {
    /// The bare repository on disk (for `git+file://` tests).
    pub fn bare(&self) -> &Path {
        &self.bare
    }

    /// Commits to `branch` (created from the current commit when new): the directory `path`
    /// of the tree (`""`: the whole tree) replaced by a copy of `from` (`None`: left as it is), and `extra` files
    /// (path in the tree, content) written; then pushes. Returns the commit.
    pub fn commit(
        &self,
        branch: &str,
        path: &str,
        from: Option<&Path>,
        extra: &[(&str, &str)],
        message: &str,
    ) -> Result<String, Error> {
        let work = self.work.path();
        git(work, &["checkout", "--quiet", "-B", branch])?;
        if let Some(from) = from {
            let target = work.join(path);
            if path.is_empty() {
                // The whole tree: everything but `.git` goes.
                for entry in std::fs::read_dir(work).into_iter().flatten().flatten() {
                    if entry.file_name() != ".git" {
                        let p = entry.path();
                        let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
                    }
                }
            } else {
                let _ = std::fs::remove_dir_all(&target);
            }
            copy_dir(from, &target)?;
        }
        for (file, content) in extra {
            let target = work.join(file);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| git_error(format!("mkdir: {e}")))?;
            }
            std::fs::write(&target, content).map_err(|e| git_error(format!("write: {e}")))?;
        }
        git(work, &["add", "--all"])?;
        git(work, &["commit", "--quiet", "--allow-empty", "-m", message])?;
        git(
            work,
            &[
                "push",
                "--quiet",
                "--force",
                "origin",
                &format!("{branch}:{branch}"),
            ],
        )?;
        git(work, &["rev-parse", "HEAD"])
    }

    /// Tags the head of `branch` as `tag` (annotated when `annotated`) and pushes the tag.
    pub fn tag(&self, branch: &str, tag: &str, annotated: bool) -> Result<String, Error> {
        let work = self.work.path();
        git(work, &["checkout", "--quiet", branch])?;
        if annotated {
            git(work, &["tag", "-a", "-m", tag, tag])?;
        } else {
            git(work, &["tag", tag])?;
        }
        git(work, &["push", "--quiet", "origin", tag])?;
        git(work, &["rev-parse", "HEAD"])
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(to).map_err(|e| git_error(format!("mkdir {}: {e}", to.display())))?;
    let entries =
        std::fs::read_dir(from).map_err(|e| git_error(format!("read {}: {e}", from.display())))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &target)?;
        } else {
            std::fs::copy(&path, &target)
                .map_err(|e| git_error(format!("copy {}: {e}", path.display())))?;
        }
    }
    Ok(())
}

/// The CGI side: each request runs `git http-backend` with the CGI variables.
struct Cgi {
    root: PathBuf,
    expected: Option<String>,
    requests: Arc<AtomicUsize>,
}

impl Cgi {
    async fn answer(
        &self,
        req: hyper::Request<hyper::body::Incoming>,
    ) -> hyper::Response<Full<Bytes>> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        let reply = |status: u16, body: &'static str| {
            let mut r = hyper::Response::new(Full::new(Bytes::from_static(body.as_bytes())));
            *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or_default();
            r
        };
        if let Some(expected) = &self.expected {
            let given = req
                .headers()
                .get(hyper::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok());
            if given != Some(expected.as_str()) {
                let mut r = reply(401, "unauthorized\n");
                r.headers_mut().insert(
                    hyper::header::WWW_AUTHENTICATE,
                    hyper::header::HeaderValue::from_static("Basic realm=\"git\""),
                );
                return r;
            }
        }
        let header = |name: &str| {
            req.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        let method = req.method().to_string();
        let path = req.uri().path().to_string();
        let query = req.uri().query().unwrap_or_default().to_string();
        let content_type = header("content-type");
        let encoding = header("content-encoding");
        let protocol = header("git-protocol");
        let Ok(body) = req.into_body().collect().await.map(|b| b.to_bytes()) else {
            return reply(400, "cannot read the request body\n");
        };
        let child = tokio::process::Command::new("git")
            .arg("http-backend")
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("GIT_PROJECT_ROOT", &self.root)
            .env("GIT_HTTP_EXPORT_ALL", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("REQUEST_METHOD", &method)
            .env("PATH_INFO", &path)
            .env("QUERY_STRING", &query)
            .env("CONTENT_TYPE", &content_type)
            .env("CONTENT_LENGTH", body.len().to_string())
            .env("HTTP_CONTENT_ENCODING", &encoding)
            .env("GIT_PROTOCOL", &protocol)
            .env("REMOTE_ADDR", "127.0.0.1")
            .env("REMOTE_USER", "test")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            return reply(500, "cannot run git http-backend\n");
        };
        if let Some(mut stdin) = child.stdin.take() {
            use tokio::io::AsyncWriteExt as _;
            let _ = stdin.write_all(&body).await;
        }
        let Ok(out) = child.wait_with_output().await else {
            return reply(500, "git http-backend failed\n");
        };
        cgi_response(&out.stdout)
    }
}

/// The HTTP response of a CGI program's output: headers (`Status:` among them) up to the blank
/// line, then the body.
fn cgi_response(out: &[u8]) -> hyper::Response<Full<Bytes>> {
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| out.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let (head, body) = match split {
        Some((i, n)) => (&out[..i], &out[i + n..]),
        None => (&out[..0], out),
    };
    let mut response = hyper::Response::new(Full::new(Bytes::copy_from_slice(body)));
    for line in String::from_utf8_lossy(head).lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("status") {
            let code = value.split(' ').next().and_then(|c| c.parse().ok());
            if let Some(code) = code.and_then(|c| hyper::StatusCode::from_u16(c).ok()) {
                *response.status_mut() = code;
            }
        } else if let (Ok(n), Ok(v)) = (
            hyper::header::HeaderName::from_bytes(name.trim().as_bytes()),
            hyper::header::HeaderValue::from_str(value),
        ) {
            response.headers_mut().append(n, v);
        }
    }
    response
}

/// A real `sshd` (Debian's openssh-server) on loopback for `git+ssh://` tests, serving the
/// repositories on this machine's disk as the current user: its own host key, one authorized
/// client key ([`SshServer::client_key`]), stopped on drop.
#[derive(Debug)]
pub struct SshServer {
    child: std::process::Child,
    port: u16,
    user: String,
    dir: tempfile::TempDir,
}

/// A new ed25519 key pair in `dir` as `name` and `name.pub`: (private key, public key).
fn ssh_keygen(dir: &Path, name: &str) -> Result<(String, String), Error> {
    let path = dir.join(name);
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "kubepkg-test", "-f"])
        .arg(&path)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| git_error(format!("ssh-keygen: {e} (install Debian's openssh-client)")))?;
    if !out.status.success() {
        return Err(git_error(format!(
            "ssh-keygen: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let read = |p: PathBuf| {
        std::fs::read_to_string(&p).map_err(|e| git_error(format!("{}: {e}", p.display())))
    };
    Ok((read(path.clone())?, read(path.with_extension("pub"))?))
}

impl SshServer {
    /// Starts `sshd` on a free loopback port, accepting [`SshServer::client_key`] only.
    pub fn start() -> Result<SshServer, Error> {
        let sshd = ["/usr/sbin/sshd", "/usr/bin/sshd"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.exists())
            .ok_or_else(|| {
                git_error(
                    "sshd is not installed: scripts/test installs it (scripts/lib/needs.sh), or `apt-get install -y openssh-server`",
                )
            })?;
        let dir = tempfile::tempdir().map_err(|e| git_error(format!("tempdir: {e}")))?;
        ssh_keygen(dir.path(), "host_key")?;
        let (_, client) = ssh_keygen(dir.path(), "client_key")?;
        std::fs::write(dir.path().join("authorized_keys"), client)
            .map_err(|e| git_error(format!("authorized_keys: {e}")))?;
        // sshd's privilege separation directory (Debian makes it at boot; a container may not).
        let _ = std::fs::create_dir_all("/run/sshd");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| git_error(format!("finding a free port: {e}")))?
            .port();
        let d = dir.path().display();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\n\
             AuthorizedKeysFile {d}/authorized_keys\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
             PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nLogLevel ERROR\n"
        );
        let config_path = dir.path().join("sshd_config");
        std::fs::write(&config_path, config).map_err(|e| git_error(format!("sshd_config: {e}")))?;
        let log = std::fs::File::create(dir.path().join("sshd.log"))
            .map_err(|e| git_error(format!("sshd.log: {e}")))?;
        let child = Command::new(sshd)
            .args(["-D", "-e", "-f"])
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| git_error(format!("starting sshd: {e}")))?;
        let user = Command::new("id")
            .arg("-un")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .map_err(|e| git_error(format!("id -un: {e}")))?;
        let mut server = SshServer {
            child,
            port,
            user,
            dir,
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                let log =
                    std::fs::read_to_string(server.dir.path().join("sshd.log")).unwrap_or_default();
                return Err(git_error(format!("sshd exited ({status}): {log}")));
            }
            if std::time::Instant::now() > deadline {
                return Err(git_error("sshd did not listen within 20s"));
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Ok(server)
    }

    /// `ssh://USER@127.0.0.1:PORT/PATH` of the repository `bare` on this machine.
    pub fn url(&self, bare: &Path) -> String {
        format!(
            "ssh://{}@127.0.0.1:{}{}",
            self.user,
            self.port,
            bare.display()
        )
    }

    /// The private key (OpenSSH format) the server accepts.
    pub fn client_key(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("client_key")).unwrap_or_default()
    }

    /// A `known_hosts` line for the server's host key.
    pub fn known_hosts(&self) -> String {
        let key = std::fs::read_to_string(self.dir.path().join("host_key.pub")).unwrap_or_default();
        format!("[127.0.0.1]:{} {}", self.port, key.trim())
    }

    /// Another private key, which the server does not accept.
    pub fn stranger_key(&self) -> Result<String, Error> {
        Ok(ssh_keygen(self.dir.path(), &format!("stranger_{}", std::process::id()))?.0)
    }
}

impl Drop for SshServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
