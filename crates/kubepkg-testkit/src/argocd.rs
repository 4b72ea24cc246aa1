//! Argo CD's real binary for tests of a kubepkg Argo CD backend, built from the Go module proxy
//! by `testenv/argocd/build.sh` (on first use, cached as `helm`, the test registry and Flux
//! are), and Argo CD's own CRDs (Application, ApplicationSet, AppProject, from the same
//! module's `manifests/crds`) installed by server-side apply.
//!
//! This is the first step only: [`install_crds`] and the paths of the components
//! ([`component`]). Running the application controller and the repo server (with a Redis, a
//! cluster Secret for the plane, `bin/` on the repo server's `PATH`) is described in
//! testenv/README.md (`testenv/argocd/`), as are the versions and build times.
//!
//! ```no_run
//! # async fn f() {
//! use kubepkg_testkit::{TestNamespace, argocd};
//! let ns = TestNamespace::new("argocd_example").await.unwrap();
//! argocd::install_crds(&ns).await.unwrap();
//! let controller = argocd::component("argocd-application-controller").unwrap();
//! # drop(controller);
//! # }
//! ```

use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::Api;

use crate::{Error, TestNamespace, has_condition, wait_for};

/// The field manager of the CRD applies.
const CRD_FIELD_MANAGER: &str = "kubepkg-testkit-argocd";

/// The directory `testenv/argocd/build.sh` builds into: `argocd`, `crds/*.yaml` and `bin/`
/// (a symlink per component name and the helper scripts the repo server runs). Built on first
/// use (once per test binary; the first build on a machine takes minutes) and cached
/// afterwards.
pub fn argocd_dir() -> Result<PathBuf, Error> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let script = crate::plane::repo_root().join("testenv/argocd/build.sh");
        let out = Command::new("bash")
            .arg(&script)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("running {}: {e}", script.display()))?;
        let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || path.is_empty() {
            return Err(format!(
                "testenv/argocd/build.sh failed ({}); it needs Go and the Go module proxy\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(PathBuf::from(path))
    })
    .clone()
    .map_err(|message| Error::ArgoCd { message })
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
    let crds_dir = argocd_dir()?.join("crds");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&crds_dir)
        .map_err(|source| Error::Io {
            what: "reading",
            path: crds_dir.clone(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::ArgoCd {
            message: format!(
                "no CRDs in {}; remove that directory and run testenv/argocd/build.sh",
                crds_dir.display()
            ),
        });
    }
    let lock_path = ns.plane().state_dir().join("argocd-crds.lock");
    let lock = File::create(&lock_path).map_err(|source| Error::Io {
        what: "creating the lock",
        path: lock_path.clone(),
        source,
    })?;
    lock.lock().map_err(|source| Error::Io {
        what: "locking",
        path: lock_path.clone(),
        source,
    })?;
    let mut names = Vec::new();
    for file in &files {
        let yaml = std::fs::read_to_string(file).map_err(|source| Error::Io {
            what: "reading",
            path: file.clone(),
            source,
        })?;
        let applied =
            crate::apply::apply_yaml(ns.client(), None, &yaml, CRD_FIELD_MANAGER, true).await?;
        names.extend(applied.into_iter().filter_map(|o| o.metadata.name));
    }
    drop(lock);
    let crds: Api<CustomResourceDefinition> = Api::all(ns.client().clone());
    for name in &names {
        wait_for(
            &crds,
            name,
            Duration::from_secs(60),
            &format!("CRD {name} to be Established"),
            has_condition("Established", "True"),
        )
        .await?;
    }
    Ok(names)
}
