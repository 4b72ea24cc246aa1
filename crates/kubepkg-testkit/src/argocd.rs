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

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::{Error, TestNamespace};

/// The field manager of the CRD applies.
const CRD_FIELD_MANAGER: &str = "kubepkg-testkit-argocd";

/// The directory `testenv/argocd/build.sh` builds into: `argocd`, `crds/*.yaml` and `bin/`
/// (a symlink per component name and the helper scripts the repo server runs). Built on first
/// use (once per test binary; the first build on a machine takes minutes) and cached
/// afterwards.
pub fn argocd_dir() -> Result<PathBuf, Error> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| crate::tooling::built("argocd"))
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
    crate::tooling::install_crds(
        ns,
        &argocd_dir()?.join("crds"),
        "argocd-crds.lock",
        CRD_FIELD_MANAGER,
        |message| Error::ArgoCd { message },
    )
    .await
}
