//! What post-rendering takes from the cluster (docs/kubepkg-yaml.md#post-renderers): the list
//! merges its OpenAPI declares for the kinds a component's strategic-merge patches aim at and
//! the offline table does not know (CRDs, and built-in kinds outside the table). Asked only for
//! those kinds, one OpenAPI v3 group/version document each; a document that cannot be read
//! leaves the offline rules in place.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use kubepkg_chart::kustomize::KNOWN_KINDS;
use kubepkg_chart::merge_keys::MergeKeys;
use kubepkg_model::Package;

use crate::chart::ClusterCapabilities;

/// The `(apiVersion, kind)` the strategic-merge patches of `package` aim at that the offline
/// table does not know: what the cluster is asked about (none: nothing is asked).
pub fn aimed_unknown_kinds(package: &Package) -> Vec<(Option<String>, String)> {
    package
        .components
        .iter()
        .flat_map(|c| c.post_renderers.aimed_kinds())
        .filter(|(_, kind)| !KNOWN_KINDS.contains(&kind.as_str()))
        .collect()
}

/// `package` with its components' post-renderers merging lists as the cluster declares for
/// the `aimed` kinds ([`aimed_unknown_kinds`]) it serves; `package` itself when it declares
/// nothing for them.
pub async fn with_cluster_merge_keys<'p>(
    client: &kube::Client,
    caps: &ClusterCapabilities,
    package: &'p Package,
    aimed: &[(Option<String>, String)],
) -> Cow<'p, Package> {
    let group_versions = served_group_versions(&caps.api_versions, aimed);
    let mut keys = MergeKeys::default();
    for gv in group_versions {
        let path = if gv.contains('/') {
            format!("/openapi/v3/apis/{gv}")
        } else {
            format!("/openapi/v3/api/{gv}")
        };
        let Ok(request) = ::http::Request::get(&path).body(Vec::new()) else {
            continue;
        };
        if let Ok(doc) = client.request::<serde_json::Value>(request).await {
            keys.extend(MergeKeys::from_openapi_v3(&doc, KNOWN_KINDS));
        }
    }
    if keys.is_empty() {
        return Cow::Borrowed(package);
    }
    let keys = Arc::new(keys);
    let mut package = package.clone();
    for c in &mut package.components {
        c.post_renderers = c.post_renderers.with_merge_keys(&keys);
    }
    Cow::Owned(package)
}

/// The served group/versions (`api_versions` holds `GV` and `GV/Kind` entries, as discovery
/// gives them) of the `aimed` kinds, restricted to an aimed apiVersion where one is named.
fn served_group_versions(
    api_versions: &[String],
    aimed: &[(Option<String>, String)],
) -> BTreeSet<String> {
    api_versions
        .iter()
        .filter_map(|entry| entry.rsplit_once('/'))
        .filter(|(gv, kind)| {
            aimed
                .iter()
                .any(|(av, k)| k == kind && av.as_deref().is_none_or(|av| av == *gv))
        })
        .map(|(gv, _)| gv.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_served_versions_of_the_aimed_kinds_are_asked_for() {
        let served: Vec<String> = [
            "v1",
            "v1/ConfigMap",
            "example.dev/v1",
            "example.dev/v1/Gateway",
            "example.dev/v2",
            "example.dev/v2/Gateway",
            "other.dev/v1/Route",
        ]
        .map(String::from)
        .to_vec();
        let any = served_group_versions(&served, &[(None, "Gateway".into())]);
        assert_eq!(
            any.into_iter().collect::<Vec<_>>(),
            ["example.dev/v1", "example.dev/v2"]
        );
        let one = served_group_versions(
            &served,
            &[(Some("example.dev/v2".into()), "Gateway".into())],
        );
        assert_eq!(one.into_iter().collect::<Vec<_>>(), ["example.dev/v2"]);
        assert!(served_group_versions(&served, &[(None, "Missing".into())]).is_empty());
    }
}
