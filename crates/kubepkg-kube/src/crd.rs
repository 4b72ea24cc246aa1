//! Safe CustomResourceDefinition upgrades (docs/rules.md#crd-upgrades): before a changed CRD
//! replaces the one in the cluster, refuse when the new definition
//! - drops a version listed in the live CRD's `status.storedVersions` (objects may still be
//!   stored in etcd at that version and could no longer be read), or
//! - stops serving (or drops) a version that existing objects of the CRD were written
//!   with (their `metadata.managedFields[].apiVersion`), since the clients and manifests
//!   that manage them use it.
//!
//! Helm never upgrades the CRDs of `crds/`; kubepkg upgrades them when these checks pass.

use kube::api::{Api, ListParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use serde_json::Value;

use crate::client::Cluster;
use crate::error::{KubeError, UnsafeCrdUpgrade};

fn versions(crd: &Value) -> Vec<(String, bool)> {
    crd.pointer("/spec/versions")
        .and_then(Value::as_array)
        .map(|vs| {
            vs.iter()
                .filter_map(|v| {
                    let name = v.get("name")?.as_str()?.to_string();
                    let served = v.get("served").and_then(Value::as_bool).unwrap_or(false);
                    Some((name, served))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// The stored-versions rule alone (pure): versions of `status.storedVersions` of `live`
/// that `new` no longer lists.
pub fn dropped_stored_versions(live: &Value, new: &Value) -> Result<(), UnsafeCrdUpgrade> {
    let stored: Vec<String> = live
        .pointer("/status/storedVersions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let new_versions = versions(new);
    for s in &stored {
        if !new_versions.iter().any(|(n, _)| n == s) {
            return Err(UnsafeCrdUpgrade::DropsStoredVersion {
                crd: str_at(live, "/metadata/name").to_string(),
                version: s.clone(),
                stored: stored.clone(),
            });
        }
    }
    Ok(())
}

/// Versions served by `live` that `new` does not serve.
pub fn unserved_versions(live: &Value, new: &Value) -> Vec<String> {
    let new_versions = versions(new);
    versions(live)
        .into_iter()
        .filter(|(_, served)| *served)
        .filter(|(n, _)| !new_versions.iter().any(|(m, s)| m == n && *s))
        .map(|(n, _)| n)
        .collect()
}

/// Checks replacing the live CRD `live` by `new` on the cluster (both as JSON): the
/// stored-versions rule, then, for each version `new` stops serving, whether an existing
/// object of the CRD was written with it.
pub async fn check_upgrade(cluster: &Cluster, live: &Value, new: &Value) -> Result<(), KubeError> {
    dropped_stored_versions(live, new).map_err(KubeError::UnsafeCrd)?;
    let unserved = unserved_versions(live, new);
    if unserved.is_empty() {
        return Ok(());
    }
    let group = str_at(live, "/spec/group");
    let kind = str_at(live, "/spec/names/kind");
    let plural = str_at(live, "/spec/names/plural");
    // Read the objects through a version that stays served (else any served one).
    let Some(read_version) = versions(live)
        .into_iter()
        .filter(|(_, s)| *s)
        .map(|(n, _)| n)
        .max_by_key(|n| !unserved.contains(n))
    else {
        return Ok(());
    };
    let gvk = GroupVersionKind::gvk(group, &read_version, kind);
    let ar = ApiResource::from_gvk_with_plural(&gvk, plural);
    let api: Api<DynamicObject> = Api::all_with(cluster.client.clone(), &ar);
    let list = api
        .list(&ListParams::default())
        .await
        .map_err(|e| KubeError::refused("list", format!("{plural}.{group}"), e))?;
    for obj in &list.items {
        let used = obj
            .metadata
            .managed_fields
            .iter()
            .flatten()
            .filter_map(|m| m.api_version.as_deref());
        for api_version in used {
            let version = api_version.rsplit('/').next().unwrap_or(api_version);
            if unserved.iter().any(|u| u == version) {
                let ns = obj.metadata.namespace.as_deref().unwrap_or("");
                let name = obj.metadata.name.as_deref().unwrap_or("");
                let object = if ns.is_empty() {
                    format!("{kind} {name}")
                } else {
                    format!("{kind} {ns}/{name}")
                };
                return Err(KubeError::UnsafeCrd(
                    UnsafeCrdUpgrade::UnservesUsedVersion {
                        crd: str_at(live, "/metadata/name").to_string(),
                        version: version.to_string(),
                        group: group.to_string(),
                        object,
                    },
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(versions: &[(&str, bool)], stored: &[&str]) -> Value {
        json!({
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"},
                     "versions": versions.iter().map(|(n, s)| json!({"name": n, "served": s})).collect::<Vec<_>>()},
            "status": {"storedVersions": stored},
        })
    }

    #[test]
    fn dropping_a_stored_version_is_refused_naming_it() {
        let live = crd(&[("v1alpha1", true), ("v1", true)], &["v1alpha1", "v1"]);
        let new = crd(&[("v1", true)], &[]);
        let err = dropped_stored_versions(&live, &new).unwrap_err();
        assert_eq!(
            err,
            UnsafeCrdUpgrade::DropsStoredVersion {
                crd: "widgets.example.com".into(),
                version: "v1alpha1".into(),
                stored: vec!["v1alpha1".into(), "v1".into()],
            }
        );
        assert!(err.to_string().contains("status.storedVersions"));
    }

    #[test]
    fn adding_a_version_or_unserving_an_unstored_one_passes_the_stored_rule() {
        let live = crd(&[("v1", true), ("v2", true)], &["v1"]);
        assert!(dropped_stored_versions(&live, &crd(&[("v1", true)], &[])).is_ok());
        assert!(dropped_stored_versions(&live, &crd(&[("v1", true), ("v3", true)], &[])).is_ok());
        assert_eq!(
            unserved_versions(&live, &crd(&[("v1", true), ("v2", false)], &[])),
            ["v2"]
        );
        assert!(unserved_versions(&live, &crd(&[("v1", true), ("v2", true)], &[])).is_empty());
    }
}
