//! [`Reads`]: the reads many status reads of one page share (the dashboard's package list):
//! each namespace's Helm releases listed once (the latest revision of each decoded), and each
//! kind of object listed once per namespace, instead of a list of one release's records and a
//! GET of each object per component. What a component's state is made of stays one path
//! (`backend::helm::release_live`); only where its reads come from differs. Held for one page:
//! whatever it read is as of that page's load.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use kube::api::{Api, DynamicObject, ListParams};
use kubepkg_release::Release;
use kubepkg_release::storage::{SecretDriver, Store};
use serde_json::Value;
use tokio::sync::OnceCell;

/// One list's answer, read once however many ask for it at the same time.
type Once<T> = Arc<OnceCell<Option<T>>>;

/// A kind's objects in a namespace: (namespace, apiVersion, kind) → name → object.
type Objects = HashMap<(String, String, String), Once<HashMap<String, Value>>>;

/// Reads shared by the status reads of one page.
#[derive(Default)]
pub struct Reads {
    /// The latest revision of every release, by namespace then release name (`None`: the
    /// list failed; each asks the API server itself then).
    releases: Mutex<HashMap<String, Once<HashMap<String, Release>>>>,
    /// Objects by (namespace, apiVersion, kind), then name.
    objects: Mutex<Objects>,
}

fn cell<K: std::hash::Hash + Eq, T>(map: &Mutex<HashMap<K, Once<T>>>, key: K) -> Once<T> {
    let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
    map.entry(key).or_default().clone()
}

impl Reads {
    /// The latest revision of release `name` in `namespace`: `Some(None)` when the namespace
    /// holds none of it, `None` when the namespace's releases could not be listed.
    pub(crate) async fn last_release(
        &self,
        client: &kube::Client,
        namespace: &str,
        name: &str,
    ) -> Option<Option<Release>> {
        let releases = cell(&self.releases, namespace.to_string());
        let all = releases
            .get_or_init(|| async {
                let store = Store::new(SecretDriver::new(client.clone(), Some(namespace)));
                let latest = store.list_latest().await.ok()?;
                Some(latest.into_iter().map(|r| (r.name.clone(), r)).collect())
            })
            .await
            .as_ref()?;
        Some(all.get(name).cloned())
    }

    /// The object `name` of `api` (the API of one kind in `namespace`, or cluster-scoped with
    /// an empty `namespace`): `Some(None)` when absent, `None` when the kind could not be
    /// listed.
    pub(crate) async fn object(
        &self,
        api: &Api<DynamicObject>,
        namespace: &str,
        api_version: &str,
        kind: &str,
        name: &str,
    ) -> Option<Option<Value>> {
        let key = (
            namespace.to_string(),
            api_version.to_string(),
            kind.to_string(),
        );
        let objects = cell(&self.objects, key);
        let all = objects
            .get_or_init(|| async {
                let typed = |name: Option<String>, mut v: Value| {
                    // A list's items carry no apiVersion or kind of their own.
                    v["apiVersion"] = Value::String(api_version.to_string());
                    v["kind"] = Value::String(kind.to_string());
                    Some((name?, v))
                };
                let params = ListParams::default();
                // Their state is their existence: names and metadata only, never the data
                // (a namespace's Secrets include every release record).
                let by_metadata = api_version == "v1" && matches!(kind, "Secret" | "ConfigMap");
                let items: HashMap<String, Value> = if by_metadata {
                    let list = api.list_metadata(&params).await.ok()?;
                    list.items
                        .into_iter()
                        .filter_map(|o| {
                            let meta = serde_json::to_value(&o.metadata).ok()?;
                            typed(o.metadata.name, serde_json::json!({ "metadata": meta }))
                        })
                        .collect()
                } else {
                    let list = api.list(&params).await.ok()?;
                    list.items
                        .into_iter()
                        .filter_map(|o| {
                            typed(o.metadata.name.clone(), serde_json::to_value(o).ok()?)
                        })
                        .collect()
                };
                Some(items)
            })
            .await
            .as_ref()?;
        Some(all.get(name).cloned())
    }
}
