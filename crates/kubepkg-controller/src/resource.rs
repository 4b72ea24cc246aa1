//! The `Package` object as the controller reads it: a dynamic object of the kind
//! `kubepkg_package_object` defines, its spec decoded per reconcile (a spec the types refuse
//! becomes a condition on that one object) and the parts of its status the controller decides
//! by.

use kube::ResourceExt;
use kube::api::{ApiResource, DynamicObject};
use kubepkg_package_object::{self as object, PackageSpec};

/// The finalizer that makes deleting a Package uninstall its components first.
pub const FINALIZER: &str = "kubepkg.dev/uninstall";

/// The API resource of `Package`.
pub fn api_resource() -> ApiResource {
    object::api_resource()
}

/// The Package's spec, or why it does not read as one.
pub fn spec_of(obj: &DynamicObject) -> Result<PackageSpec, serde_json::Error> {
    serde_json::from_value(obj.data.get("spec").cloned().unwrap_or_default())
}

/// What the controller recorded in the status last time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    pub generation: Option<i64>,
    pub digest: Option<String>,
    /// The digest of the `spec.valuesOnce` already applied.
    pub values_once_digest: Option<String>,
    /// With `source.git`: the branch or tag and commit last read.
    pub source_revision: Option<String>,
    /// The `Ready` condition's reason.
    pub ready_reason: Option<String>,
}

/// Reads [`Observed`] from the object's status.
pub fn observed(obj: &DynamicObject) -> Observed {
    let status = obj.data.get("status");
    let field = |k: &str| status.and_then(|s| s.get(k));
    Observed {
        generation: field("observedGeneration").and_then(|v| v.as_i64()),
        digest: field("lastAttemptedDigest")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        values_once_digest: field("valuesOnceDigest")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        source_revision: field("sourceRevision")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        ready_reason: field("conditions")
            .and_then(|c| c.as_array())
            .and_then(|c| c.iter().find(|c| c["type"] == "Ready"))
            .and_then(|c| c["reason"].as_str())
            .map(str::to_string),
    }
}

/// `namespace/name` of the object.
pub fn key(obj: &DynamicObject) -> String {
    format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any())
}

/// What of a Package decides whether a watch event should reconcile it: the spec (its
/// `generation`), the labels, annotations and finalizers, and deletion; not the status, which
/// the reconcile itself writes (a write that would otherwise make another reconcile).
pub fn reconcile_relevant(package: &DynamicObject) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let meta = &package.metadata;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    meta.generation.hash(&mut h);
    meta.labels.hash(&mut h);
    meta.annotations.hash(&mut h);
    meta.finalizers.hash(&mut h);
    meta.deletion_timestamp
        .as_ref()
        .map(|t| t.0.to_string())
        .hash(&mut h);
    Some(h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: serde_json::Value) -> DynamicObject {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn only_spec_metadata_and_deletion_make_a_reconcile() {
        let base = json!({
            "apiVersion": "kubepkg.dev/v1alpha1", "kind": "Package",
            "metadata": {"name": "a", "namespace": "n", "generation": 1, "resourceVersion": "5"},
            "spec": {"source": {"path": "."}},
        });
        let with = |path: &str, value: serde_json::Value| {
            let mut v = base.clone();
            *v.pointer_mut(path).unwrap() = value;
            reconcile_relevant(&object(v))
        };
        let same = reconcile_relevant(&object(base.clone()));
        let mut status = base.clone();
        status["status"] = json!({"conditions": [{"type": "Ready", "status": "True"}]});
        status["metadata"]["resourceVersion"] = json!("6");
        assert_eq!(reconcile_relevant(&object(status)), same, "a status write");
        assert_ne!(
            with("/metadata/generation", json!(2)),
            same,
            "a spec change"
        );
        let mut annotated = base.clone();
        annotated["metadata"]["annotations"] = json!({"kubepkg.dev/requested-at": "now"});
        assert_ne!(
            reconcile_relevant(&object(annotated)),
            same,
            "an annotation"
        );
        let mut deleted = base.clone();
        deleted["metadata"]["deletionTimestamp"] = json!("2026-12-04T00:00:00Z");
        assert_ne!(reconcile_relevant(&object(deleted)), same, "deletion");
        let mut finalized = base;
        finalized["metadata"]["finalizers"] = json!(["kubepkg.dev/uninstall"]);
        assert_ne!(reconcile_relevant(&object(finalized)), same, "a finalizer");
    }

    #[test]
    fn a_spec_the_types_refuse_is_an_error_not_a_panic() {
        let o = object(json!({
            "apiVersion": "kubepkg.dev/v1alpha1", "kind": "Package",
            "metadata": {"name": "a", "namespace": "n"},
            "spec": {"source": {"url": "x", "sha256": "y"}, "unknown": 1}
        }));
        let e = spec_of(&o).unwrap_err().to_string();
        assert!(e.contains("unknown field `unknown`"), "{e}");
    }

    #[test]
    fn observed_reads_what_the_controller_wrote() {
        let o = object(json!({
            "apiVersion": "kubepkg.dev/v1alpha1", "kind": "Package",
            "metadata": {"name": "a", "namespace": "n", "generation": 3},
            "spec": {"source": {"path": "."}},
            "status": {"observedGeneration": 2, "lastAttemptedDigest": "d", "valuesOnceDigest": "o",
                       "conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded"}]}
        }));
        assert_eq!(
            observed(&o),
            Observed {
                generation: Some(2),
                digest: Some("d".into()),
                values_once_digest: Some("o".into()),
                source_revision: None,
                ready_reason: Some("Succeeded".into())
            }
        );
        assert_eq!(key(&o), "n/a");
    }
}
