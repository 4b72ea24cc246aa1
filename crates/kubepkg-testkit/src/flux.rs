//! Flux's real controllers for tests of kubepkg's Flux backend: `source-controller` and
//! `helm-controller` built from the Go module proxy by `testenv/flux/build.sh` (on first use,
//! cached as `helm` and the test registry are) and run as child processes against the local
//! control plane, with Flux's own CRDs (from the same modules' `config/crd/bases`) installed
//! by server-side apply.
//!
//! [`Flux::start`](crate::flux::Flux::start) gives one test its own pair of controllers that
//! watch only the test's namespace (`--watch-all-namespaces=false` with `RUNTIME_NAMESPACE`),
//! without leader election, on free loopback ports: metrics, health, and source-controller's
//! artifact server (whose address it advertises in artifact URLs, so helm-controller downloads
//! charts from it). Artifacts are stored in a temporary directory; each controller logs to a
//! file there. The controllers are killed when the [`Flux`](crate::flux::Flux) is dropped
//! (and, through `setpriv --pdeathsig`, when the thread that started them dies), after which
//! Flux's finalizers are removed from the namespace's Flux objects so that its deletion
//! completes; when the test is failing, both logs' tails are printed and the directory is kept.
//!
//! ```no_run
//! # async fn f() {
//! use kubepkg_testkit::{TestNamespace, flux::Flux};
//! let ns = TestNamespace::new("flux_example").await.unwrap();
//! let flux = Flux::start(&ns).await.unwrap();
//! ns.apply_yaml("apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\n...")
//!     .await
//!     .unwrap();
//! # drop(flux);
//! # }
//! ```
//!
//! Versions and build times: testenv/README.md (`testenv/flux/`).

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use crate::process::{
    Probe, finish, free_ports, log_tails, retry_port_clash, spawn_logged, wait_started, work_dir,
};
use crate::{ControlPlane, Error, TestNamespace};

/// The kinds Flux's controllers put finalizers on (group, version, kind).
const FLUX_KINDS: [(&str, &str, &str); 7] = [
    ("helm.toolkit.fluxcd.io", "v2", "HelmRelease"),
    ("source.toolkit.fluxcd.io", "v1", "OCIRepository"),
    ("source.toolkit.fluxcd.io", "v1", "HelmRepository"),
    ("source.toolkit.fluxcd.io", "v1", "HelmChart"),
    ("source.toolkit.fluxcd.io", "v1", "GitRepository"),
    ("source.toolkit.fluxcd.io", "v1", "Bucket"),
    ("source.toolkit.fluxcd.io", "v1", "ExternalArtifact"),
];

/// The field manager of the CRD applies.
const CRD_FIELD_MANAGER: &str = "kubepkg-testkit-flux";

/// How long a controller may take to answer on its health port.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The directory `testenv/flux/build.sh` builds into: `source-controller`, `helm-controller`
/// and `crds/*.yaml`. Built on first use (once per test binary; the first build on a machine
/// takes minutes) and cached afterwards.
pub fn flux_dir() -> Result<PathBuf, Error> {
    crate::tooling::built("flux").map_err(|message| Error::Flux { message })
}

/// Server-side applies Flux's CRDs (HelmRelease, OCIRepository, HelmRepository, HelmChart,
/// GitRepository, Bucket, ExternalArtifact) to `ns`'s control plane and waits until each is
/// Established; returns their names. Idempotent, and safe when several tests (of one or more
/// test binaries) call it at once: a file lock in the plane's state directory serialises them.
pub async fn install_crds(ns: &TestNamespace) -> Result<Vec<String>, Error> {
    crate::tooling::install_crds(
        ns,
        &flux_dir()?.join("crds"),
        "flux-crds.lock",
        CRD_FIELD_MANAGER,
        |message| Error::Flux { message },
    )
    .await
}

/// A running pair of Flux controllers watching one test namespace; killed on drop.
#[derive(Debug)]
pub struct Flux {
    plane: ControlPlane,
    namespace: String,
    source: Child,
    helm: Child,
    storage_addr: String,
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
}

impl Flux {
    /// Builds (first use only) and installs Flux, then starts source-controller and
    /// helm-controller for `ns`'s namespace and waits until both answer `/readyz` and the
    /// artifact server listens.
    pub async fn start(ns: &TestNamespace) -> Result<Flux, Error> {
        let bin_dir = flux_dir()?;
        install_crds(ns).await?;
        retry_port_clash(|| Flux::spawn(ns, &bin_dir)).await
    }

    async fn spawn(ns: &TestNamespace, bin_dir: &Path) -> Result<Flux, Error> {
        let dir = work_dir("kubepkg-flux-", &["storage", "home"])?;
        let path = dir.path().to_path_buf();
        let [
            source_metrics,
            source_health,
            storage,
            helm_metrics,
            helm_health,
        ] = free_ports()?;
        let storage_addr = format!("127.0.0.1:{storage}");
        let storage_path = path.join("storage");
        let home = path.join("home");
        let common = |metrics: u16, health: u16| {
            vec![
                "--watch-all-namespaces=false".to_string(),
                "--enable-leader-election=false".to_string(),
                format!("--metrics-addr=127.0.0.1:{metrics}"),
                format!("--health-addr=127.0.0.1:{health}"),
                "--log-encoding=console".to_string(),
            ]
        };
        let mut source_args = common(source_metrics, source_health);
        source_args.extend([
            format!("--storage-path={}", storage_path.display()),
            format!("--storage-addr={storage_addr}"),
            format!("--storage-adv-addr={storage_addr}"),
        ]);
        // Each controller against the plane, for `ns` only.
        let env = [
            ("KUBECONFIG", ns.plane().kubeconfig().into()),
            ("RUNTIME_NAMESPACE", ns.name().into()),
            ("HOME", home.clone().into()),
        ];
        let source = spawn_logged(
            &bin_dir.join("source-controller"),
            &source_args,
            &env,
            &path.join("source-controller.log"),
        )?;
        let helm = match spawn_logged(
            &bin_dir.join("helm-controller"),
            &common(helm_metrics, helm_health),
            &env,
            &path.join("helm-controller.log"),
        ) {
            Ok(child) => child,
            Err(e) => {
                let mut source = source;
                let _ = source.kill();
                let _ = source.wait();
                return Err(e);
            }
        };
        let mut flux = Flux {
            plane: ns.plane().clone(),
            namespace: ns.name().to_string(),
            source,
            helm,
            storage_addr,
            dir: Some(dir),
            path,
        };
        if let Err(message) = flux.wait_ready(source_health, helm_health).await {
            let message = format!("{message}\n{}", flux.log_tails(40));
            flux.stop();
            return Err(Error::Flux { message });
        }
        Ok(flux)
    }

    /// Waits for both health endpoints and the artifact server; fails early when a
    /// controller exits.
    async fn wait_ready(&mut self, source_health: u16, helm_health: u16) -> Result<(), String> {
        let waiting = vec![
            (
                "source-controller /readyz",
                Probe::Http(source_health, "/readyz"),
            ),
            (
                "helm-controller /readyz",
                Probe::Http(helm_health, "/readyz"),
            ),
            (
                "source-controller's artifact server",
                Probe::Listening(self.storage_addr.clone()),
            ),
        ];
        let mut children = [
            ("source-controller", &mut self.source),
            ("helm-controller", &mut self.helm),
        ];
        wait_started(&mut children, waiting, START_TIMEOUT, "ready").await
    }

    /// The namespace both controllers watch.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// `127.0.0.1:PORT` of source-controller's artifact server (the host of artifact URLs).
    pub fn storage_addr(&self) -> &str {
        &self.storage_addr
    }

    /// source-controller's log file.
    pub fn source_log(&self) -> PathBuf {
        self.path.join("source-controller.log")
    }

    /// helm-controller's log file.
    pub fn helm_log(&self) -> PathBuf {
        self.path.join("helm-controller.log")
    }

    /// The last `lines` lines of each controller's log, headed by the file's path.
    pub fn log_tails(&self, lines: usize) -> String {
        log_tails(&[self.source_log(), self.helm_log()], lines)
    }

    fn stop(&mut self) {
        for child in [&mut self.helm, &mut self.source] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Flux {
    fn drop(&mut self) {
        self.stop();
        // The namespace's deletion removes Helm's release Secrets and the charts' objects too.
        let logs = [self.source_log(), self.helm_log()];
        finish(
            "Flux",
            &self.plane,
            &self.namespace,
            &FLUX_KINDS,
            &mut self.dir,
            || log_tails(&logs, 60),
        );
    }
}
