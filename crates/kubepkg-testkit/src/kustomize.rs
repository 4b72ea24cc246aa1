//! The real `kustomize` CLI (`sigs.k8s.io/kustomize/kustomize/v5`), the oracle of kubepkg's
//! declarative post-renderers: built from the Go module proxy by `testenv/kustomize/build.sh`
//! on first use (once per test binary, through [`crate::tooling`]) and cached.
//! [`kustomize_build`] writes a kustomization over one manifest file and returns what
//! `kustomize build` prints, or its error.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Error;

/// The path of `kustomize`, built by `testenv/kustomize/build.sh` on first use.
pub fn kustomize_binary() -> Result<PathBuf, Error> {
    crate::tooling::built_tool("kustomize")
}

/// `kustomize build` of a kustomization in `dir` whose only resource is `manifests` and whose
/// other fields are `fields` (YAML: `patches:`, `images:` …): its standard output, or its
/// standard error when it fails.
pub fn kustomize_build(
    dir: &Path,
    manifests: &str,
    fields: &str,
) -> Result<Result<String, String>, Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io {
            what: "writing",
            path,
            source,
        }
    };
    let resources = dir.join("resources.yaml");
    std::fs::write(&resources, manifests).map_err(io(&resources))?;
    let k = dir.join("kustomization.yaml");
    std::fs::write(&k, format!("resources:\n- resources.yaml\n{fields}")).map_err(io(&k))?;
    let bin = kustomize_binary()?;
    let out = Command::new(&bin)
        .arg("build")
        .arg(dir)
        .output()
        .map_err(|source| Error::Io {
            what: "running",
            path: bin.clone(),
            source,
        })?;
    Ok(if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    })
}
