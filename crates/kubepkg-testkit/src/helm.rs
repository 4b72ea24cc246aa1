//! The real `helm` CLI as a test oracle: [`helm_binary`] builds (once, cached under
//! `~/.cache/kubepkg/helm/<version>`) the requested Helm version from the Go module proxy
//! through the repository's `tools/helm-ref/install-helm.sh`, and [`helm_command`] prepares a
//! `helm` invocation aimed at a test namespace on the local control plane, with Helm's cache
//! and config kept out of the user's home.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Error, TestNamespace};

/// The path of the real `helm` binary of `version` (e.g. `v3.22.0`, `v4.3.1`), built by
/// `tools/helm-ref/install-helm.sh` on first use and cached afterwards.
pub fn helm_binary(version: &str) -> Result<PathBuf, Error> {
    let script = crate::plane::repo_root().join("tools/helm-ref/install-helm.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(version)
        .output()
        .map_err(|source| Error::Io {
            what: "running",
            path: script.clone(),
            source,
        })?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || path.is_empty() {
        return Err(Error::HelmInstall {
            version: version.to_string(),
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(PathBuf::from(path))
}

/// `helm ARGS -n NAMESPACE` run by `helm` (a path from [`helm_binary`]) against `ns`'s
/// control plane (through `KUBECONFIG`), with `HELM_DRIVER` and `HELM_NAMESPACE` of the
/// calling environment removed and Helm's cache and config in fixed directories under the
/// system temporary directory. Callers add their own environment (e.g. `HELM_DRIVER`) before
/// running it.
pub fn helm_command(helm: &Path, ns: &TestNamespace, args: &[&str]) -> Command {
    let mut c = helm_offline(helm, args);
    c.args(["-n", ns.name()])
        .env("KUBECONFIG", ns.plane().kubeconfig());
    c
}

/// `helm ARGS` run by `helm` (a path from [`helm_binary`]) for what needs no cluster (`template`,
/// `lint`, ...): `HELM_DRIVER` and `HELM_NAMESPACE` of the calling environment removed, Helm's
/// cache and config in fixed directories under the system temporary directory.
pub fn helm_offline(helm: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(helm);
    c.args(args)
        .env_remove("HELM_DRIVER")
        .env_remove("HELM_NAMESPACE")
        .env(
            "HELM_CACHE_HOME",
            std::env::temp_dir().join("kubepkg-helm-cache"),
        )
        .env(
            "HELM_CONFIG_HOME",
            std::env::temp_dir().join("kubepkg-helm-config"),
        );
    c
}
