//! Starting or attaching to the local control plane, once per test binary.
//!
//! The state directory is `$KUBEPKG_TESTENV_DIR`, or `.testenv` at the root
//! of the repository. Starting goes through `testenv/up.sh` (which builds the
//! cached binary if needed and attaches to a healthy running plane); a lock
//! on `<state>/testkit.lock` serialises test binaries that start together.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kube::config::{KubeConfigOptions, Kubeconfig};

use crate::error::Error;

/// The running local control plane.
#[derive(Debug, Clone)]
pub struct ControlPlane {
    state_dir: PathBuf,
    kubeconfig: PathBuf,
}

impl ControlPlane {
    /// The state directory: kubeconfig, certificates, `logs/`, `state.json`.
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// The admin kubeconfig (a `system:masters` client certificate).
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The directory holding one log file per component.
    pub fn logs_dir(&self) -> PathBuf {
        self.state_dir.join("logs")
    }

    /// A `kubectl` command line (the real kubectl of the control plane's
    /// Kubernetes version) bound to the admin kubeconfig; add arguments and run it.
    pub fn kubectl(&self) -> Command {
        let mut command = Command::new(self.state_dir.join("bin").join("kubectl"));
        command.arg("--kubeconfig").arg(&self.kubeconfig);
        command
    }

    /// The admin kubeconfig with its server replaced by `https://127.0.0.1:PORT` (a proxy in
    /// front of the API server: TLS passes through, the server's certificate names 127.0.0.1),
    /// and the API server's `HOST:PORT` it replaced.
    pub(crate) fn kubeconfig_via(&self, port: u16) -> Result<(Kubeconfig, String), Error> {
        let path = self.kubeconfig();
        let bad = |message: String| Error::Kubeconfig {
            path: path.to_path_buf(),
            message,
        };
        let mut kubeconfig = Kubeconfig::read_from(path).map_err(|e| bad(e.to_string()))?;
        let server = kubeconfig
            .clusters
            .first()
            .and_then(|c| c.cluster.as_ref())
            .and_then(|c| c.server.clone())
            .ok_or_else(|| bad("no cluster server".into()))?;
        let upstream = server
            .strip_prefix("https://")
            .map(|h| h.trim_end_matches('/').to_string())
            .ok_or_else(|| bad(format!("server {server:?} is not https://HOST:PORT")))?;
        for c in &mut kubeconfig.clusters {
            if let Some(cluster) = c.cluster.as_mut() {
                cluster.server = Some(format!("https://127.0.0.1:{port}"));
            }
        }
        Ok((kubeconfig, upstream))
    }

    /// A new client for the admin user.
    ///
    /// Make one per test (per tokio runtime): a client's connection pool
    /// belongs to the runtime it was made on.
    pub async fn client(&self) -> Result<kube::Client, Error> {
        let kubeconfig =
            Kubeconfig::read_from(&self.kubeconfig).map_err(|e| Error::Kubeconfig {
                path: self.kubeconfig.clone(),
                message: e.to_string(),
            })?;
        let config =
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .map_err(|e| Error::Kubeconfig {
                    path: self.kubeconfig.clone(),
                    message: e.to_string(),
                })?;
        kube::Client::try_from(config).map_err(|source| Error::Kube {
            what: format!("building a client from {}", self.kubeconfig.display()),
            source,
        })
    }
}

/// The repository root (this crate lives in `<root>/crates/kubepkg-testkit`).
pub(crate) fn repo_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .ancestors()
        .nth(2)
        .unwrap_or(manifest_dir)
        .to_path_buf()
}

/// The state directory the control plane uses.
pub fn state_dir() -> PathBuf {
    match std::env::var_os("KUBEPKG_TESTENV_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => repo_root().join(".testenv"),
    }
}

static PLANE: OnceLock<Result<ControlPlane, String>> = OnceLock::new();

/// Starts the local control plane, or attaches to the running one; the work
/// is done once per process and its outcome shared by every test.
pub fn control_plane() -> Result<ControlPlane, Error> {
    PLANE
        .get_or_init(|| start_or_attach().map_err(|e| e.to_string()))
        .clone()
        .map_err(|output| Error::StartFailed {
            status: "see the first test that tried".into(),
            logs: state_dir().join("logs"),
            output,
        })
}

/// An exclusive lock on the file `path` (created if missing), held until the file is dropped:
/// what serialises test binaries on one plane.
pub(crate) fn lock_file(path: &std::path::Path) -> Result<File, Error> {
    let lock = File::create(path).map_err(|source| Error::Io {
        what: "creating the lock",
        path: path.to_path_buf(),
        source,
    })?;
    lock.lock().map_err(|source| Error::Io {
        what: "locking",
        path: path.to_path_buf(),
        source,
    })?;
    Ok(lock)
}

static TARGET: OnceLock<Result<ControlPlane, String>> = OnceLock::new();

/// A second local control plane (its own etcd, API server, controllers and nodes) in
/// `<state>/target`, for tests of one cluster managing another: started, or attached to, once
/// per process; it keeps running afterwards as the first does (`testenv/down.sh` stops both).
/// A whole plane rather than a second API server over the first's etcd: a target's
/// Deployments and hook Jobs need its own controllers and nodes to become ready.
pub fn target_plane() -> Result<ControlPlane, Error> {
    let dir = state_dir().join("target");
    TARGET
        .get_or_init(|| start_or_attach_in(dir.clone()).map_err(|e| e.to_string()))
        .clone()
        .map_err(|output| Error::StartFailed {
            status: "see the first test that tried".into(),
            logs: dir.join("logs"),
            output,
        })
}

static REAL_NODE: OnceLock<Result<ControlPlane, String>> = OnceLock::new();

/// The local control plane with its real node (`testenv/up.sh --real-node`: a real kubelet,
/// containerd and runc; see [`crate::real_node`]): a running plane without one gains it. Once per
/// process; the plane and its node keep running afterwards (`testenv/down.sh` stops them).
pub fn real_node_plane() -> Result<ControlPlane, Error> {
    REAL_NODE
        .get_or_init(|| {
            start_or_attach_with(state_dir(), &["--real-node".to_string()])
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|output| Error::StartFailed {
            status: "see the first test that tried".into(),
            logs: state_dir().join("logs"),
            output,
        })
}

/// Starts a plane of its own in `dir` with `kpk-cluster up`'s options `args` (waiting for it),
/// for tests of the plane itself; stop it with `testenv/down.sh` and that directory.
pub fn start_plane_in(dir: &Path, args: &[String]) -> Result<ControlPlane, Error> {
    start_or_attach_with(dir.to_path_buf(), args)
}

static FLEET: std::sync::Mutex<Vec<(String, ControlPlane)>> = std::sync::Mutex::new(Vec::new());

/// A fleet cluster `name` for tests of rollouts across clusters: an API server of its own (own
/// certificates, own port) storing into the first plane's etcd under a prefix of its own, in
/// `<state>/fleet/NAME`; no controllers, scheduler or nodes, so it holds objects that are
/// ready as soon as they exist (ConfigMaps, Secrets, RBAC), which is what fleet tests apply.
/// Several cost one API server each, not a whole plane (bench/README.md has the figures).
/// Started, or attached to, once per process; `testenv/down.sh` stops them.
pub fn fleet_plane(name: &str) -> Result<ControlPlane, Error> {
    control_plane()?;
    let mut started = FLEET.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, plane)) = started.iter().find(|(n, _)| n == name) {
        return Ok(plane.clone());
    }
    let home = state_dir();
    let plane = start_or_attach_with(
        home.join("fleet").join(name),
        &[
            "--etcd-of".to_string(),
            home.display().to_string(),
            "--etcd-prefix".to_string(),
            format!("/fleet-{name}"),
            "--apiserver-only".to_string(),
        ],
    )?;
    started.push((name.to_string(), plane.clone()));
    Ok(plane)
}

/// Runs `work` with a client of `plane` on a thread with a runtime of its own, for what must
/// reach the cluster from a `Drop` (which cannot await, while the test's runtime may be
/// shutting down). Its error, or a panic of that thread, as text.
pub(crate) fn on_own_runtime<F, Fut>(plane: &ControlPlane, work: F) -> Result<(), String>
where
    F: FnOnce(kube::Client) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let plane = plane.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        runtime.block_on(async {
            let client = plane.client().await.map_err(|e| e.to_string())?;
            work(client).await
        })
    })
    .join()
    .map_err(|_| "its thread panicked".to_string())?
}

fn start_or_attach() -> Result<ControlPlane, Error> {
    start_or_attach_in(state_dir())
}

fn start_or_attach_in(state_dir: PathBuf) -> Result<ControlPlane, Error> {
    start_or_attach_with(state_dir, &[])
}

/// [`start_or_attach_in`] with `kpk-cluster up`'s options `args`.
fn start_or_attach_with(state_dir: PathBuf, args: &[String]) -> Result<ControlPlane, Error> {
    fs::create_dir_all(&state_dir).map_err(|source| Error::Io {
        what: "creating the state directory",
        path: state_dir.clone(),
        source,
    })?;
    let lock = lock_file(&state_dir.join("testkit.lock"))?;
    let up = repo_root().join("testenv").join("up.sh");
    let output = Command::new("bash")
        .arg(&up)
        .args(args)
        .env("KUBEPKG_TESTENV_DIR", &state_dir)
        .output()
        .map_err(|source| Error::Io {
            what: "running",
            path: up.clone(),
            source,
        })?;
    drop(lock);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(Error::StartFailed {
            status: output.status.to_string(),
            logs: state_dir.join("logs"),
            output: format!("{stdout}{stderr}"),
        });
    }
    let kubeconfig = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| PathBuf::from(l.trim()))
        .unwrap_or_else(|| state_dir.join("kubeconfig"));
    Ok(ControlPlane {
        state_dir,
        kubeconfig,
    })
}
