//! Argo CD's real controllers for tests of kubepkg's Argo CD backend: one multi-call binary
//! built from the Go module proxy by `testenv/argocd/build.sh` (on first use, cached as `helm`,
//! the test registry and Flux are), with Argo CD's own CRDs (Application, ApplicationSet,
//! AppProject, from the same module's `manifests/crds`) installed by server-side apply.
//!
//! [`ArgoCd::start`] gives one test its own Argo CD in the test's namespace:
//! `argocd-application-controller` (`--namespace <test namespace>`: it reconciles the
//! Applications of that namespace only) and `argocd-repo-server` as child processes against
//! the local control plane, both caching into their own `kpk-redis` (miniredis, built by the
//! same script), on free loopback ports, with the configuration Argo CD reads from its
//! namespace: `argocd-cm`, `argocd-secret`, `argocd-rbac-cm`, the AppProject `default`, and a
//! cluster Secret for `https://kubernetes.default.svc` limited to the test's namespace (with
//! `ARGOCD_FAKE_IN_CLUSTER=true` Argo CD reaches that "in-cluster" server through `KUBECONFIG`,
//! the plane's admin kubeconfig, as Argo CD's own local development setup does; the limit keeps
//! its cluster cache to the test's namespace). The repo server runs the real `helm` v4 (Argo CD
//! v3.5 renders charts with Helm 4) and the helper scripts Argo CD's image puts on `PATH`.
//!
//! Each process logs to a file in a temporary directory. They are killed when the [`ArgoCd`]
//! is dropped (and, through `setpriv --pdeathsig`, when the thread that started them dies),
//! after which Argo CD's finalizers are removed from the namespace's Applications so that its
//! deletion completes; when the test is failing, the logs' tails are printed and the directory
//! is kept.
//!
//! ```no_run
//! # async fn f() {
//! use kubepkg_testkit::{TestNamespace, argocd::ArgoCd};
//! let ns = TestNamespace::new("argocd_example").await.unwrap();
//! let argocd = ArgoCd::start(&ns).await.unwrap();
//! ns.apply_yaml("apiVersion: argoproj.io/v1alpha1\nkind: Application\n...")
//!     .await
//!     .unwrap();
//! # drop(argocd);
//! # }
//! ```
//!
//! Versions, build times and what each process needs: testenv/README.md (`testenv/argocd/`).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::process::{
    Probe, finish, free_ports, log_tails, retry_port_clash, spawn_listening, spawn_logged,
    wait_started, work_dir,
};
use crate::{ControlPlane, Error, TestNamespace};

/// The field manager of the CRD applies.
const CRD_FIELD_MANAGER: &str = "kubepkg-testkit-argocd";

/// The `helm` the repo server runs (Argo CD v3.5.7 ships Helm 4.2.1; the test kit's Helm 4).
pub const HELM_VERSION: &str = "v4.3.1";

/// How long a component may take to answer on its health port.
const START_TIMEOUT: Duration = Duration::from_secs(90);

/// The directory `testenv/argocd/build.sh` builds into: `argocd`, `kpk-redis`, `crds/*.yaml`
/// and `bin/` (a symlink per component name and the helper scripts the repo server runs).
/// Built on first use (once per test binary; the first build on a machine takes minutes) and
/// cached afterwards.
pub fn argocd_dir() -> Result<PathBuf, Error> {
    crate::tooling::built("argocd").map_err(|message| Error::ArgoCd { message })
}

/// The path of one Argo CD component, run under its own name (`argocd-application-controller`,
/// `argocd-repo-server`, ...): Argo CD's one binary picks the component from its argv[0].
pub fn component(name: &str) -> Result<PathBuf, Error> {
    let path = argocd_dir()?.join("bin").join(name);
    if !path.exists() {
        return Err(Error::ArgoCd {
            message: format!(
                "no Argo CD component {name} ({} is missing)",
                path.display()
            ),
        });
    }
    Ok(path)
}

/// Server-side applies Argo CD's CRDs (Application, ApplicationSet, AppProject) to `ns`'s
/// control plane and waits until each is Established; returns their names. Idempotent, and
/// safe when several tests (of one or more test binaries) call it at once: a file lock in the
/// plane's state directory serialises them.
pub async fn install_crds(ns: &TestNamespace) -> Result<Vec<String>, Error> {
    crate::tooling::install_crds(
        ns,
        &argocd_dir()?.join("crds"),
        "argocd-crds.lock",
        CRD_FIELD_MANAGER,
        |message| Error::ArgoCd { message },
    )
    .await
}

/// The configuration Argo CD reads from its namespace, for `namespace`.
fn config_yaml(namespace: &str) -> String {
    format!(
        r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  labels: {{app.kubernetes.io/name: argocd-cm, app.kubernetes.io/part-of: argocd}}
data: {{}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-rbac-cm
  labels: {{app.kubernetes.io/name: argocd-rbac-cm, app.kubernetes.io/part-of: argocd}}
data: {{}}
---
apiVersion: v1
kind: Secret
metadata:
  name: argocd-secret
  labels: {{app.kubernetes.io/name: argocd-secret, app.kubernetes.io/part-of: argocd}}
type: Opaque
---
apiVersion: v1
kind: Secret
metadata:
  name: in-cluster
  labels: {{argocd.argoproj.io/secret-type: cluster}}
stringData:
  name: in-cluster
  server: https://kubernetes.default.svc
  namespaces: {namespace}
  config: '{{"tlsClientConfig":{{"insecure":false}}}}'
---
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: default
spec:
  sourceRepos: ['*']
  destinations: [{{server: '*', namespace: '*'}}]
"#
    )
}

/// A running Argo CD (Redis, repo server, application controller) for one test namespace;
/// killed on drop.
#[derive(Debug)]
pub struct ArgoCd {
    plane: ControlPlane,
    namespace: String,
    children: Vec<(&'static str, Child)>,
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
}

impl ArgoCd {
    /// Builds (first use only) and installs Argo CD, writes its configuration into `ns`, then
    /// starts Redis, the repo server and the application controller for `ns` and waits until
    /// both components answer `/healthz`.
    pub async fn start(ns: &TestNamespace) -> Result<ArgoCd, Error> {
        let dir = argocd_dir()?;
        let helm = crate::helm_binary(HELM_VERSION)?;
        install_crds(ns).await?;
        ns.apply_yaml(&config_yaml(ns.name())).await?;
        retry_port_clash(|| ArgoCd::spawn(ns, &dir, &helm)).await
    }

    async fn spawn(ns: &TestNamespace, bin_dir: &Path, helm: &Path) -> Result<ArgoCd, Error> {
        let dir = work_dir(
            "kubepkg-argocd-",
            &["home", "tmp", "tls", "ssh", "gpg", "plugins"],
        )?;
        let path = dir.path().to_path_buf();
        let mut argocd = ArgoCd {
            plane: ns.plane().clone(),
            namespace: ns.name().to_string(),
            children: Vec::new(),
            dir: Some(dir),
            path: path.clone(),
        };
        let redis = argocd.start_redis(&bin_dir.join("kpk-redis"))?;
        let [repo_port, repo_metrics, controller_metrics] = free_ports()?;
        // PATH: Argo CD's helper scripts and the component symlinks, then helm, then the
        // caller's (git, gpg, ...).
        let helm_dir = helm.parent().unwrap_or(Path::new("/")).to_path_buf();
        let system_path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![bin_dir.join("bin"), helm_dir];
        paths.extend(std::env::split_paths(&system_path));
        let search_path = std::env::join_paths(paths).map_err(|e| Error::ArgoCd {
            message: format!("PATH for the repo server: {e}"),
        })?;
        let env: Vec<(&str, std::ffi::OsString)> = vec![
            ("PATH", search_path),
            ("KUBECONFIG", ns.plane().kubeconfig().into()),
            ("ARGOCD_FAKE_IN_CLUSTER", "true".into()),
            ("HOME", path.join("home").into()),
            ("TMPDIR", path.join("tmp").into()),
            ("ARGOCD_GPG_ENABLED", "false".into()),
            ("ARGOCD_GNUPGHOME", path.join("gpg").into()),
            ("ARGOCD_TLS_DATA_PATH", path.join("tls").into()),
            ("ARGOCD_SSH_DATA_PATH", path.join("ssh").into()),
            ("ARGOCD_PLUGINSOCKFILEPATH", path.join("plugins").into()),
            ("ARGOCD_ASK_PASS_SOCK", path.join("askpass.sock").into()),
        ];
        let repo_server = spawn_logged(
            &bin_dir.join("bin/argocd-repo-server"),
            &[
                "--address".into(),
                "127.0.0.1".into(),
                "--port".into(),
                repo_port.to_string(),
                "--metrics-address".into(),
                "127.0.0.1".into(),
                "--metrics-port".into(),
                repo_metrics.to_string(),
                "--disable-tls".into(),
                // Its default (a file of the image) is refused with --disable-tls.
                "--client-ca-path=".into(),
                "--redis".into(),
                redis.clone(),
                "--logformat".into(),
                "text".into(),
            ],
            &env,
            &path.join("argocd-repo-server.log"),
        )?;
        argocd.children.push(("argocd-repo-server", repo_server));
        let controller = spawn_logged(
            &bin_dir.join("bin/argocd-application-controller"),
            &[
                "--kubeconfig".into(),
                ns.plane().kubeconfig().display().to_string(),
                "--namespace".into(),
                ns.name().to_string(),
                "--redis".into(),
                redis,
                "--repo-server".into(),
                format!("127.0.0.1:{repo_port}"),
                "--repo-server-plaintext".into(),
                "--metrics-port".into(),
                controller_metrics.to_string(),
                "--status-processors".into(),
                "2".into(),
                "--operation-processors".into(),
                "2".into(),
                "--logformat".into(),
                "text".into(),
            ],
            &env,
            &path.join("argocd-application-controller.log"),
        )?;
        argocd
            .children
            .push(("argocd-application-controller", controller));
        if let Err(message) = argocd.wait_healthy(repo_metrics, controller_metrics).await {
            let message = format!("{message}\n{}", argocd.log_tails(40));
            argocd.stop();
            return Err(Error::ArgoCd { message });
        }
        Ok(argocd)
    }

    /// Starts `kpk-redis` and returns the address it listens on.
    fn start_redis(&mut self, bin: &Path) -> Result<String, Error> {
        let log = self.path.join("kpk-redis.log");
        let stderr = File::create(&log).map_err(|source| Error::Io {
            what: "creating",
            path: log.clone(),
            source,
        })?;
        let (child, addr) = spawn_listening(
            Command::new(bin)
                .stdin(Stdio::null())
                .stderr(Stdio::from(stderr)),
        )?;
        self.children.push(("kpk-redis", child));
        addr.map_err(|line| Error::ArgoCd {
            message: format!(
                "kpk-redis did not start; it printed {line:?}; {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            ),
        })
    }

    /// Waits for both components' `/healthz`; fails early when a process exits.
    async fn wait_healthy(
        &mut self,
        repo_metrics: u16,
        controller_metrics: u16,
    ) -> Result<(), String> {
        let mut children: Vec<(&str, &mut Child)> =
            self.children.iter_mut().map(|(n, c)| (*n, c)).collect();
        let waiting = vec![
            (
                "argocd-repo-server /healthz",
                Probe::Http(repo_metrics, "/healthz"),
            ),
            (
                "argocd-application-controller /healthz",
                Probe::Http(controller_metrics, "/healthz"),
            ),
        ];
        wait_started(&mut children, waiting, START_TIMEOUT, "healthy").await
    }

    /// The namespace Argo CD runs in: its configuration and the Applications it reconciles.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The application controller's log file.
    pub fn controller_log(&self) -> PathBuf {
        self.path.join("argocd-application-controller.log")
    }

    /// The repo server's log file.
    pub fn repo_server_log(&self) -> PathBuf {
        self.path.join("argocd-repo-server.log")
    }

    /// The last `lines` lines of each component's log, headed by the file's path.
    pub fn log_tails(&self, lines: usize) -> String {
        log_tails(&self.logs(), lines)
    }

    /// The log file of each process.
    fn logs(&self) -> [PathBuf; 3] {
        [
            self.repo_server_log(),
            self.controller_log(),
            self.path.join("kpk-redis.log"),
        ]
    }

    fn stop(&mut self) {
        for (_, child) in self.children.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for ArgoCd {
    fn drop(&mut self) {
        self.stop();
        // The namespace's deletion removes the Applications and the charts' objects too.
        let logs = self.logs();
        finish(
            "Argo CD",
            &self.plane,
            &self.namespace,
            ARGOCD_KINDS,
            &mut self.dir,
            || log_tails(&logs, 60),
        );
    }
}

/// The kinds whose finalizers Argo CD would remove.
const ARGOCD_KINDS: &[(&str, &str, &str)] = &[
    ("argoproj.io", "v1alpha1", "Application"),
    ("argoproj.io", "v1alpha1", "AppProject"),
];
