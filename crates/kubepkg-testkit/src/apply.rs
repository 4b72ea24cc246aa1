//! Server-side apply of YAML streams, kind by kind through discovery.

use std::fmt::Debug;

use kube::Client;
use kube::api::{Api, Patch, PatchParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind, TypeMeta};
use kube::discovery::{ApiCapabilities, Scope, pinned_kind};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::Error;

/// Parses a multi-document YAML stream into objects through kubepkg's one manifest →
/// objects conversion (`kubepkg_manifest::parse`, what kubepkg's apply reads manifests
/// with); empty documents are skipped, and every other document must have `apiVersion`,
/// `kind` and `metadata.name`.
pub fn parse_yaml_objects(yaml: &str) -> Result<Vec<DynamicObject>, Error> {
    let objects = kubepkg_manifest::parse(yaml).map_err(|e| Error::Yaml {
        document: e.document(),
        message: e.to_string(),
    })?;
    objects
        .into_iter()
        .map(|o| {
            serde_json::from_value(o.object).map_err(|e| Error::Yaml {
                document: o.document,
                message: format!("not a Kubernetes object: {e}"),
            })
        })
        .collect()
}

/// Finds the resource serving an object's apiVersion and kind.
pub async fn resolve(
    client: &Client,
    types: &TypeMeta,
) -> Result<(ApiResource, ApiCapabilities), Error> {
    let (group, version) = match types.api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", types.api_version.as_str()),
    };
    let gvk = GroupVersionKind::gvk(group, version, &types.kind);
    pinned_kind(client, &gvk)
        .await
        .map_err(|source| Error::UnknownKind {
            api_version: types.api_version.clone(),
            kind: types.kind.clone(),
            source,
        })
}

/// Server-side applies every object of `yaml` as `field_manager`, in order.
///
/// Namespaced objects without a namespace go to `namespace`. With `force`
/// false, a field owned by another manager is reported as a conflict (the
/// API server's 409), as `kubectl apply --server-side` does.
pub async fn apply_yaml(
    client: &Client,
    namespace: Option<&str>,
    yaml: &str,
    field_manager: &str,
    force: bool,
) -> Result<Vec<DynamicObject>, Error> {
    let mut applied = Vec::new();
    for mut object in parse_yaml_objects(yaml)? {
        let types = object.types.clone().unwrap_or_default();
        let (resource, caps) = resolve(client, &types).await?;
        let name = object.metadata.name.clone().unwrap_or_default();
        let api: Api<DynamicObject> = match caps.scope {
            Scope::Namespaced => {
                let ns = match (object.metadata.namespace.clone(), namespace) {
                    (Some(ns), _) => ns,
                    (None, Some(ns)) => ns.to_string(),
                    (None, None) => "default".to_string(),
                };
                object.metadata.namespace = Some(ns.clone());
                Api::namespaced_with(client.clone(), &ns, &resource)
            }
            Scope::Cluster => {
                object.metadata.namespace = None;
                Api::all_with(client.clone(), &resource)
            }
        };
        let mut params = PatchParams::apply(field_manager);
        if force {
            params = params.force();
        }
        let result = api
            .patch(&name, &params, &Patch::Apply(&object))
            .await
            .map_err(|source| Error::Kube {
                what: format!("applying {} {name}", types.kind),
                source,
            })?;
        applied.push(result);
    }
    Ok(applied)
}

/// Server-side applies `object`, named `name`, through `api` as `field_manager`, taking over
/// the fields other managers own (as `kubectl apply --server-side --force-conflicts` does).
pub async fn force_apply<K, P>(
    api: &Api<K>,
    name: &str,
    field_manager: &str,
    object: &P,
) -> Result<K, Error>
where
    K: Clone + DeserializeOwned + Debug,
    P: Serialize + Debug,
{
    api.patch(
        name,
        &PatchParams::apply(field_manager).force(),
        &Patch::Apply(object),
    )
    .await
    .map_err(|source| Error::Kube {
        what: format!("applying {name}"),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::parse_yaml_objects;
    use crate::Error;

    #[test]
    fn parses_a_stream_and_skips_empty_documents() {
        let objects = parse_yaml_objects(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n---\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: b\n  namespace: x\n",
        )
        .expect("valid stream");
        assert_eq!(objects.len(), 2);
        assert_eq!(objects[0].metadata.name.as_deref(), Some("a"));
        assert_eq!(objects[0].data["data"]["k"], "v");
        assert_eq!(
            objects[1].types.as_ref().map(|t| t.kind.as_str()),
            Some("Deployment")
        );
        assert_eq!(objects[1].metadata.namespace.as_deref(), Some("x"));
    }

    #[test]
    fn names_the_document_without_a_kind_or_name() {
        let err = parse_yaml_objects("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nmetadata: {name: b}\n")
            .expect_err("the second document has no kind");
        assert!(matches!(err, Error::Yaml { document: 2, .. }), "{err}");
        let err = parse_yaml_objects("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n")
            .expect_err("no name");
        assert!(matches!(err, Error::Yaml { document: 1, .. }), "{err}");
        assert!(err.to_string().contains("metadata.name"), "{err}");
    }
}
