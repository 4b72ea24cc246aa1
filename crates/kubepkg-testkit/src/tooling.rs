//! The Go test tooling each `testenv/<name>/build.sh` builds and caches (the registry, Flux's
//! controllers, Argo CD, cosign, kustomize): running the script once per test binary
//! ([`built`], [`built_tool`]), and installing
//! the CRDs a build ships ([`install_crds`]) under a file lock in the plane's state directory,
//! so concurrent tests of one or more test binaries apply them once at a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::Api;

use crate::{Error, TestNamespace, has_condition, wait_for};

/// The path `testenv/<name>/build.sh` prints (a binary or a directory), or the script's failure
/// with its standard error; the script runs once per test binary, later calls get its answer.
pub(crate) fn built(name: &str) -> Result<PathBuf, String> {
    type Answer = Arc<OnceLock<Result<PathBuf, String>>>;
    static ANSWERS: Mutex<BTreeMap<String, Answer>> = Mutex::new(BTreeMap::new());
    let answer = ANSWERS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(name.to_string())
        .or_default()
        .clone();
    answer.get_or_init(|| run_build(name)).clone()
}

/// [`built`] for a tool whose failure is an [`Error::Tool`] (cosign, kustomize).
pub(crate) fn built_tool(name: &str) -> Result<PathBuf, Error> {
    built(name).map_err(|output| Error::Tool {
        command: format!("testenv/{name}/build.sh"),
        output,
    })
}

/// Runs `testenv/<name>/build.sh`: the path it prints, or its failure.
fn run_build(name: &str) -> Result<PathBuf, String> {
    let script = crate::plane::repo_root().join(format!("testenv/{name}/build.sh"));
    let out = Command::new("bash")
        .arg(&script)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running {}: {e}", script.display()))?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || path.is_empty() {
        return Err(format!(
            "testenv/{name}/build.sh failed ({}); it needs Go and the Go module proxy\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(PathBuf::from(path))
}

/// Server-side applies every `*.yaml` of `crds_dir` (as `field_manager`) to `ns`'s control
/// plane under the lock `<state dir>/<lock>`, then waits until each CRD is Established;
/// returns their names. `empty` is the error of a directory without CRDs.
pub(crate) async fn install_crds(
    ns: &TestNamespace,
    crds_dir: &Path,
    lock: &str,
    field_manager: &str,
    empty: impl FnOnce(String) -> Error,
) -> Result<Vec<String>, Error> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(crds_dir)
        .map_err(|source| Error::Io {
            what: "reading",
            path: crds_dir.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(empty(format!(
            "no CRDs in {}; remove that directory and run its build.sh again",
            crds_dir.display()
        )));
    }
    let lock = crate::plane::lock_file(&ns.plane().state_dir().join(lock))?;
    let mut names = Vec::new();
    for file in &files {
        let yaml = std::fs::read_to_string(file).map_err(|source| Error::Io {
            what: "reading",
            path: file.clone(),
            source,
        })?;
        let applied =
            crate::apply::apply_yaml(ns.client(), None, &yaml, field_manager, true).await?;
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

/// Removes the finalizers of every object of `kinds` (group, version, kind) in `namespace`, so
/// the test's namespace can be deleted once the controller that would have removed them is
/// gone. From a thread with a runtime and a client of its own: drop cannot await, and the
/// test's runtime may be shutting down.
pub(crate) fn release_finalizers(
    plane: &crate::plane::ControlPlane,
    namespace: &str,
    kinds: &'static [(&'static str, &'static str, &'static str)],
) -> Result<(), String> {
    use kube::api::{ApiResource, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams};
    let namespace = namespace.to_string();
    crate::plane::on_own_runtime(plane, move |client| async move {
        let patch = Patch::Merge(serde_json::json!({"metadata": {"finalizers": null}}));
        for (group, version, kind) in kinds {
            let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind));
            let api: Api<DynamicObject> =
                Api::namespaced_with(client.clone(), &namespace, &resource);
            let list = api
                .list(&ListParams::default())
                .await
                .map_err(|e| format!("listing {kind}: {e}"))?;
            for object in list {
                if object
                    .metadata
                    .finalizers
                    .as_ref()
                    .is_none_or(Vec::is_empty)
                {
                    continue;
                }
                let name = object.metadata.name.unwrap_or_default();
                match api.patch(&name, &PatchParams::default(), &patch).await {
                    Ok(_) => {}
                    Err(kube::Error::Api(s)) if s.code == 404 => {}
                    Err(e) => return Err(format!("patching {kind} {name}: {e}")),
                }
            }
        }
        Ok(())
    })
}
