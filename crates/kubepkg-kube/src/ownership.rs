//! Helm's release ownership metadata and adoption rules (`pkg/action/validate.go`): every
//! object of a release carries `app.kubernetes.io/managed-by: Helm` and the annotations
//! `meta.helm.sh/release-name` / `meta.helm.sh/release-namespace`. An existing object
//! without them belongs to someone else and is not adopted unless `--take-ownership`.

use serde_json::{Map, Value};

use crate::manifest::ObjectRef;

pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY_HELM: &str = "Helm";
pub const RELEASE_NAME_ANNOTATION: &str = "meta.helm.sh/release-name";
pub const RELEASE_NAMESPACE_ANNOTATION: &str = "meta.helm.sh/release-namespace";
/// `helm.sh/resource-policy: keep` keeps an object when it leaves the release.
pub const RESOURCE_POLICY_ANNOTATION: &str = "helm.sh/resource-policy";
pub const RESOURCE_POLICY_KEEP: &str = "keep";

/// The release an object is being applied for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub release: String,
    pub namespace: String,
}

/// Adds Helm's ownership label and annotations to an object to apply.
pub fn stamp(obj: &mut Value, owner: &Owner) {
    let Some(o) = obj.as_object_mut() else { return };
    let meta = o
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(meta) = meta.as_object_mut() else {
        return;
    };
    let mut set = |field: &str, k: &str, v: &str| {
        let m = meta
            .entry(field)
            .or_insert_with(|| Value::Object(Map::new()));
        if !m.is_object() {
            *m = Value::Object(Map::new());
        }
        if let Some(m) = m.as_object_mut() {
            m.insert(k.to_string(), Value::String(v.to_string()));
        }
    };
    set("labels", MANAGED_BY_LABEL, MANAGED_BY_HELM);
    set("annotations", RELEASE_NAME_ANNOTATION, &owner.release);
    set(
        "annotations",
        RELEASE_NAMESPACE_ANNOTATION,
        &owner.namespace,
    );
}

/// Why an existing object cannot be adopted: Helm's exact wording.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{object} exists and cannot be imported into the current release: invalid ownership metadata; {}", problems.join("; "))]
pub struct ForeignObject {
    pub object: String,
    pub problems: Vec<String>,
}

/// Checks that an existing object already belongs to `owner` (Helm's `checkOwnership`).
pub fn check(existing: &Value, id: &ObjectRef, owner: &Owner) -> Result<(), ForeignObject> {
    let get = |field: &str, key: &str| {
        crate::readiness::at(existing, &["metadata", field, key]).and_then(Value::as_str)
    };
    let mut problems = Vec::new();
    let mut require = |what: &str, field: &str, key: &str, want: &str| match get(field, key) {
        None => problems.push(format!(
            "{what} validation error: missing key {key:?}: must be set to {want:?}"
        )),
        Some(v) if v != want => problems.push(format!(
            "{what} validation error: key {key:?} must equal {want:?}: current value is {v:?}"
        )),
        Some(_) => {}
    };
    require("label", "labels", MANAGED_BY_LABEL, MANAGED_BY_HELM);
    require(
        "annotation",
        "annotations",
        RELEASE_NAME_ANNOTATION,
        &owner.release,
    );
    require(
        "annotation",
        "annotations",
        RELEASE_NAMESPACE_ANNOTATION,
        &owner.namespace,
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ForeignObject {
            object: format!("{} {:?} in namespace {:?}", id.kind, id.name, id.namespace),
            problems,
        })
    }
}

/// True when the object asks to be kept when it leaves the release (or on uninstall).
pub fn keep_policy(obj: &Value) -> bool {
    crate::readiness::at(
        obj,
        &["metadata", "annotations", RESOURCE_POLICY_ANNOTATION],
    )
    .and_then(Value::as_str)
    .is_some_and(|v| v.trim().eq_ignore_ascii_case(RESOURCE_POLICY_KEEP))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn owner() -> Owner {
        Owner {
            release: "web".into(),
            namespace: "prod".into(),
        }
    }
    fn id() -> ObjectRef {
        ObjectRef {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            namespace: "prod".into(),
            name: "cfg".into(),
        }
    }

    #[test]
    fn stamped_object_passes_the_check() {
        let mut o = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "labels": {"a": "b"}}});
        stamp(&mut o, &owner());
        assert_eq!(o["metadata"]["labels"]["a"], "b");
        check(&o, &id(), &owner()).unwrap();
    }

    // Wording from Helm's validate.go (requireValue / checkOwnership / existingResourceConflict).
    #[test]
    fn foreign_object_error_is_helms() {
        let o = json!({"metadata": {"name": "cfg", "annotations": {"meta.helm.sh/release-name": "other"}}});
        let err = check(&o, &id(), &owner()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "ConfigMap \"cfg\" in namespace \"prod\" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key \"app.kubernetes.io/managed-by\": must be set to \"Helm\"; annotation validation error: key \"meta.helm.sh/release-name\" must equal \"web\": current value is \"other\"; annotation validation error: missing key \"meta.helm.sh/release-namespace\": must be set to \"prod\""
        );
    }

    #[test]
    fn keep_policy_is_read() {
        assert!(keep_policy(
            &json!({"metadata": {"annotations": {"helm.sh/resource-policy": "keep"}}})
        ));
        assert!(!keep_policy(
            &json!({"metadata": {"annotations": {"helm.sh/resource-policy": "delete"}}})
        ));
        assert!(!keep_policy(&json!({})));
    }
}
