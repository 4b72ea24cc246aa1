//! A package read from a Flux source (`spec.source.sourceRef`, docs/controller.md#flux-sources):
//! the `GitRepository`, `OCIRepository` or `Bucket` of `source.toolkit.fluxcd.io/v1` that
//! Flux's source-controller already fetched (and verified, where it verifies) publishes its
//! content as `status.artifact`: a `.tar.gz` at `url` with its `digest`. kubepkg downloads it
//! with the archive fetcher ([`crate::source::HttpClient`]: size cap, timeout), checks the
//! digest before reading a byte of it, and loads the package from `path` inside it. The
//! artifact's digest is the fingerprint of the input, so a new artifact (a push Flux picked
//! up) makes a new revision only when its content differs; the controller watches the source
//! objects so that a new artifact reconciles at once ([`served_kinds`], [`referencing`]).
//!
//! Flux sources are read as the controller (like the ConfigMaps and Secrets a Package names),
//! never as the Package's ServiceAccount: they are the platform's objects.

use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::reflector::{ObjectRef, Store};
use kubepkg_package_object::{FLUX_SOURCE_KINDS, FluxSourceRef, PackageSpec};
use sha2::{Digest, Sha256};

use crate::source::{Fetched, HttpClient, SourceError, hex, read};

/// Flux's source API group; every kind of [`FLUX_SOURCE_KINDS`] is served at `v1`.
pub const GROUP: &str = "source.toolkit.fluxcd.io";
const VERSION: &str = "v1";

/// The API resource of a Flux source kind (one of [`FLUX_SOURCE_KINDS`]).
pub fn api_resource(kind: &str) -> ApiResource {
    let plural = match kind {
        "GitRepository" => "gitrepositories",
        "OCIRepository" => "ocirepositories",
        _ => "buckets",
    };
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(GROUP, VERSION, kind), plural)
}

/// The Flux source kinds the API server serves (none when Flux's CRDs are not installed), by
/// discovery, so the controller watches only what exists.
pub async fn served_kinds(client: &kube::Client) -> Vec<&'static str> {
    let Ok(list) = client
        .list_api_group_resources(&format!("{GROUP}/{VERSION}"))
        .await
    else {
        return Vec::new();
    };
    FLUX_SOURCE_KINDS
        .into_iter()
        .filter(|kind| list.resources.iter().any(|r| r.kind == *kind))
        .collect()
}

/// The Packages of `packages` whose `source.sourceRef` names the Flux source `kind`
/// `namespace/name`: what a change of that source reconciles.
pub fn referencing(
    packages: &Store<DynamicObject>,
    kind: &str,
    namespace: &str,
    name: &str,
) -> Vec<ObjectRef<DynamicObject>> {
    packages
        .state()
        .iter()
        .filter(|package| {
            let own = package.metadata.namespace.as_deref().unwrap_or_default();
            let Some(spec) = package.data.get("spec") else {
                return false;
            };
            let Ok(spec) = serde_json::from_value::<PackageSpec>(spec.clone()) else {
                return false;
            };
            spec.source.source_ref.is_some_and(|r| {
                r.kind == kind
                    && r.name == name
                    && r.namespace.as_deref().unwrap_or(own) == namespace
            })
        })
        .map(|package| ObjectRef::from_obj_with(package.as_ref(), packages_resource()))
        .collect()
}

fn packages_resource() -> ApiResource {
    crate::resource::api_resource()
}

/// The artifact of `r` (a Package of `namespace`), downloaded and digest-checked; the
/// package is loaded from `path` in it by the reconcile.
pub async fn fetch(
    client: &kube::Client,
    namespace: &str,
    r: &FluxSourceRef,
    http: &HttpClient,
) -> Result<Fetched, SourceError> {
    let namespace = r.namespace.as_deref().unwrap_or(namespace);
    let unavailable = |problem: String| SourceError::FluxSource {
        kind: r.kind.clone(),
        namespace: namespace.to_string(),
        name: r.name.clone(),
        problem,
    };
    if !FLUX_SOURCE_KINDS.contains(&r.kind.as_str()) {
        return Err(SourceError::FluxSourceRef(format!(
            "kind {:?} is not a Flux source kubepkg reads; use one of {}",
            r.kind,
            FLUX_SOURCE_KINDS.join(", ")
        )));
    }
    let subdir = artifact_path(r.path.as_deref())?;
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), namespace, &api_resource(&r.kind));
    let object = read(&api, "Flux source", &r.kind, namespace, &r.name)
        .await?
        .ok_or_else(|| {
            unavailable("not found: create it (a Flux source), or fix spec.source.sourceRef".into())
        })?;
    let artifact = object.data.pointer("/status/artifact");
    let field = |name: &str| {
        artifact
            .and_then(|a| a.get(name))
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let (url, digest, revision) = (field("url"), field("digest"), field("revision"));
    if url.is_empty() || digest.is_empty() {
        return Err(unavailable(format!(
            "has no artifact yet{}; kubepkg waits for Flux's source-controller to fetch it",
            ready_message(&object)
        )));
    }
    let Some(expected) = digest.strip_prefix("sha256:") else {
        return Err(unavailable(format!(
            "artifact digest {digest:?} is not sha256:…; kubepkg checks sha256 digests only"
        )));
    };
    let bytes = http.get(&url).await?;
    let actual = hex(&Sha256::digest(&bytes));
    if actual != expected {
        // Flux replaced the artifact between the read and the download: the next reconcile
        // (the source's watch event) reads the new one.
        return Err(unavailable(format!(
            "artifact {url} has sha256:{actual}, but the source's status says {digest}; it is read again"
        )));
    }
    let reference = match &subdir {
        Some(path) => format!("flux:{}/{namespace}/{}//{path}", r.kind, r.name),
        None => format!("flux:{}/{namespace}/{}", r.kind, r.name),
    };
    let record = kubepkg_model::manifest::PackageSource {
        reference,
        tag: revision,
        digest,
    };
    Ok(Fetched {
        bytes,
        sha256: actual,
        origin: record.to_string(),
        record: Some(record),
        git: None,
        subdir: Some(subdir.unwrap_or_default()),
    })
}

/// `sourceRef.path` as a relative path inside the artifact (`./a/b/` → `a/b`, and `/a/b` too,
/// as Flux reads it; `None` for the root), refusing `..`.
fn artifact_path(path: Option<&str>) -> Result<Option<String>, SourceError> {
    let Some(path) = path else { return Ok(None) };
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(SourceError::FluxSourceRef(format!(
                    "path {path:?} leaves the artifact (..); give a directory inside it"
                )));
            }
            p => parts.push(p),
        }
    }
    Ok((!parts.is_empty()).then(|| parts.join("/")))
}

/// `: Ready=False (reason: message)` of a source object, for "no artifact yet" messages.
fn ready_message(object: &DynamicObject) -> String {
    let conditions = object
        .data
        .pointer("/status/conditions")
        .and_then(|c| c.as_array())
        .cloned()
        .unwrap_or_default();
    conditions
        .iter()
        .find(|c| c.get("type").and_then(|t| t.as_str()) == Some("Ready"))
        .map(|c| {
            let text = |k: &str| c.get(k).and_then(|v| v.as_str()).unwrap_or_default();
            format!(
                " (Ready={}: {}: {})",
                text("status"),
                text("reason"),
                text("message")
            )
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_is_relative_to_the_artifact_root_and_cannot_leave_it() {
        assert_eq!(artifact_path(None).unwrap(), None);
        assert_eq!(artifact_path(Some("./")).unwrap(), None);
        assert_eq!(
            artifact_path(Some("./packages/shop/")).unwrap().as_deref(),
            Some("packages/shop")
        );
        assert_eq!(
            artifact_path(Some("/packages/shop")).unwrap().as_deref(),
            Some("packages/shop")
        );
        let err = artifact_path(Some("packages/../../etc")).unwrap_err();
        assert!(err.to_string().contains("leaves the artifact"), "{err}");
    }

    #[test]
    fn each_kind_has_flux_s_plural() {
        assert_eq!(api_resource("GitRepository").plural, "gitrepositories");
        assert_eq!(api_resource("OCIRepository").plural, "ocirepositories");
        assert_eq!(api_resource("Bucket").plural, "buckets");
        assert_eq!(api_resource("Bucket").group, GROUP);
    }
}
