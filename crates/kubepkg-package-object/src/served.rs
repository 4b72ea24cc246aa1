//! The `Package` schema a cluster serves, compared with this build's [`crate::CRD`]: an API
//! server prunes the fields its CRD does not know, so a controller newer than the CRD installed
//! would silently lose them (a `spec.kubeConfig` pruned away applies a Package to the managing
//! cluster instead of its target). [`missing_spec_fields`] names what the served schema lacks.

use std::collections::BTreeSet;

use serde_json::Value;

/// The OpenAPI v3 path that publishes the served schema (`kubectl get --raw` shows it); every
/// authenticated identity may read it (`system:discovery`).
pub fn openapi_path() -> String {
    format!("/openapi/v3/apis/{}/{}", crate::GROUP, crate::VERSION)
}

/// The dotted paths of every field under `schema`'s `properties` (array items as `NAME[]`),
/// prefixed by `prefix`.
fn field_paths(schema: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    if let Some(items) = schema.get("items") {
        field_paths(items, &format!("{prefix}[]"), out);
    }
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, sub) in props {
        let path = format!("{prefix}.{name}");
        out.insert(path.clone());
        field_paths(sub, &path, out);
    }
}

/// The `spec` schema of this build's CRD.
fn bundled_spec() -> Value {
    let crd: Value = kubepkg_yaml::yaml_to_json(crate::CRD)
        .ok()
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default();
    crd.pointer("/spec/versions")
        .and_then(Value::as_array)
        .and_then(|vs| vs.iter().find(|v| v["name"] == crate::VERSION))
        .and_then(|v| v.pointer("/schema/openAPIV3Schema/properties/spec"))
        .cloned()
        .unwrap_or_default()
}

/// The `spec` schema of `Package` in an OpenAPI v3 document of [`openapi_path`], if it has one.
pub fn served_spec(openapi: &Value) -> Option<&Value> {
    openapi
        .pointer("/components/schemas")?
        .as_object()?
        .values()
        .find(|s| {
            s.get("x-kubernetes-group-version-kind")
                .and_then(Value::as_array)
                .is_some_and(|gvks| {
                    gvks.iter().any(|g| {
                        g["group"] == crate::GROUP
                            && g["version"] == crate::VERSION
                            && g["kind"] == crate::KIND
                    })
                })
        })?
        .pointer("/properties/spec")
}

/// The fields of this build's `spec` that `served_spec` lacks, outermost only (a missing
/// `spec.kubeConfig` is named, not each field under it).
pub fn missing_spec_fields(served_spec: &Value) -> Vec<String> {
    let mut bundled = BTreeSet::new();
    field_paths(&bundled_spec(), "spec", &mut bundled);
    let mut served = BTreeSet::new();
    field_paths(served_spec, "spec", &mut served);
    let missing: Vec<&String> = bundled.difference(&served).collect();
    missing
        .iter()
        .filter(|p| {
            !missing.iter().any(|q| {
                p.len() > q.len()
                    && p.starts_with(q.as_str())
                    && p[q.len()..].starts_with(['.', '['])
            })
        })
        .map(|p| p.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An OpenAPI document serving `spec` for Package, as an API server publishes a CRD.
    fn openapi(spec: Value) -> Value {
        json!({"components": {"schemas": {
            "dev.kubepkg.v1alpha1.PackageList": {"x-kubernetes-group-version-kind": [
                {"group": "kubepkg.dev", "version": "v1alpha1", "kind": "PackageList"}]},
            "dev.kubepkg.v1alpha1.Package": {
                "x-kubernetes-group-version-kind": [
                    {"group": "kubepkg.dev", "version": "v1alpha1", "kind": "Package"}],
                "properties": {"spec": spec},
            },
        }}})
    }

    #[test]
    fn the_bundled_schema_lacks_nothing_of_itself() {
        let doc = openapi(bundled_spec());
        let spec = served_spec(&doc).expect("Package's spec");
        assert!(spec.get("properties").is_some());
        assert_eq!(missing_spec_fields(spec), Vec::<String>::new());
    }

    #[test]
    fn an_older_schema_is_named_by_its_outermost_missing_fields() {
        let mut older = bundled_spec();
        let props = older["properties"].as_object_mut().unwrap();
        assert!(props.remove("kubeConfig").is_some());
        assert!(props.remove("serviceAccountName").is_some());
        older["properties"]["valuesFrom"]["items"]["properties"]
            .as_object_mut()
            .unwrap()
            .remove("namespace")
            .expect("valuesFrom[].namespace");
        let doc = openapi(older);
        assert_eq!(
            missing_spec_fields(served_spec(&doc).unwrap()),
            vec![
                "spec.kubeConfig".to_string(),
                "spec.serviceAccountName".to_string(),
                "spec.valuesFrom[].namespace".to_string(),
            ]
        );
    }

    #[test]
    fn a_document_without_package_has_no_spec() {
        assert!(served_spec(&json!({"components": {"schemas": {}}})).is_none());
    }
}
