//! The live resources of a release as `helm status` (v4) gathers them: each object of the
//! manifest read back from the API server, grouped by `version/Kind`, then the pods related to
//! its workloads as `v1/Pod(related)`; as the server's own Tables (what kubectl and Helm ask
//! for when printing a table) or as plain objects (`-o json|yaml`).

use std::collections::BTreeMap;

use kubepkg_kube::Cluster;
use serde_json::Value;

use crate::record::Release;

/// Live objects by Helm's group key (`v1/ConfigMap`, `v1/Pod(related)`), each a server-side
/// Table or an object (a list for related pods).
pub type Resources = BTreeMap<String, Vec<Value>>;

/// The kinds whose `spec.selector.matchLabels` select related pods (Helm's list).
const POD_OWNERS: [&str; 5] = [
    "ReplicaSet",
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "Job",
];

/// The `Accept` header kubectl and Helm send for server-side Tables.
const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,\
                            application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

/// Helm's key for a resource group: the object's API version (without group) and kind.
fn group_key(api_version: &str, kind: &str) -> String {
    let version = api_version.rsplit('/').next().unwrap_or(api_version);
    format!("{version}/{kind}")
}

/// The pods' label selector of a manifest object, as Helm finds it.
fn pod_selector(object: &Value) -> Option<BTreeMap<String, String>> {
    let kind = object.get("kind")?.as_str()?;
    let labels = if POD_OWNERS.contains(&kind) {
        object.pointer("/spec/selector/matchLabels")?
    } else if kind == "ReplicationController" {
        object.pointer("/spec/selector")?
    } else {
        return None;
    };
    Some(
        labels
            .as_object()?
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect(),
    )
}

/// Sends a GET and decodes the JSON answer, as a server-side Table with the object included
/// when `table`; `None` when it fails (Helm leaves out what it cannot read).
async fn fetch(
    cluster: &Cluster,
    request: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
    table: bool,
) -> Option<Value> {
    let mut request = request.ok()?;
    if table {
        let uri = request.uri().to_string();
        let sep = if uri.contains('?') { '&' } else { '?' };
        *request.uri_mut() = format!("{uri}{sep}includeObject=Object").parse().ok()?;
        request
            .headers_mut()
            .insert("accept", TABLE_ACCEPT.parse().ok()?);
    }
    cluster.client.request::<Value>(request).await.ok()
}

/// The live resources of `release`: each manifest object by its `version/Kind`, then
/// `v1/Pod(related)` for workloads (each distinct selector once). Objects that cannot be read
/// are left out, as Helm does.
pub async fn resources(cluster: &Cluster, release: &Release, table: bool) -> Resources {
    let mut out = Resources::new();
    let Ok(objects) = kubepkg_kube::manifest::parse(&release.manifest) else {
        return out;
    };
    let mut selectors: Vec<BTreeMap<String, String>> = Vec::new();
    for o in objects {
        let Ok((api, id)) = cluster.locate(&o.id, &release.namespace).await else {
            continue;
        };
        let request = kube::core::Request::new(api.resource_url())
            .get(&id.name, &kube::api::GetParams::default());
        let Some(live) = fetch(cluster, request, table).await else {
            continue;
        };
        out.entry(group_key(&id.api_version, &id.kind))
            .or_default()
            .push(live);
        let Some(selector) = pod_selector(&o.object) else {
            continue;
        };
        if selectors.contains(&selector) {
            continue;
        }
        let query: Vec<String> = selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
        selectors.push(selector);
        let namespace = if id.namespace.is_empty() {
            release.namespace.clone()
        } else {
            id.namespace.clone()
        };
        let request = kube::core::Request::new(format!("/api/v1/namespaces/{namespace}/pods"))
            .list(&kube::api::ListParams::default().labels(&query.join(",")));
        if let Some(mut pods) = fetch(cluster, request, table).await {
            // Go's unstructured list decoding gives every item its apiVersion and kind.
            if let Some(items) = pods.get_mut("items").and_then(Value::as_array_mut) {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    item.insert("apiVersion".into(), "v1".into());
                    item.insert("kind".into(), "Pod".into());
                }
            }
            out.entry("v1/Pod(related)".into()).or_default().push(pods);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn groups_drop_the_api_group() {
        assert_eq!(group_key("apps/v1", "Deployment"), "v1/Deployment");
        assert_eq!(group_key("v1", "ConfigMap"), "v1/ConfigMap");
    }

    #[test]
    fn workloads_select_their_pods() {
        let d =
            json!({"kind": "Deployment", "spec": {"selector": {"matchLabels": {"app": "web"}}}});
        assert_eq!(
            pod_selector(&d),
            Some(BTreeMap::from([("app".into(), "web".into())]))
        );
        let rc = json!({"kind": "ReplicationController", "spec": {"selector": {"a": "b"}}});
        assert!(pod_selector(&rc).is_some());
        assert_eq!(pod_selector(&json!({"kind": "ConfigMap"})), None);
    }
}
