//! Drivers over the Kubernetes API: Secrets (Helm's default) and ConfigMaps
//! (`HELM_DRIVER=configmap`). A Secret holds the record under `data.release` (so the API
//! shows it base64 again, as with Helm); a ConfigMap under `data.release` as text.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};

use super::{Driver, StoredObject};
use crate::error::Error;
use crate::record::SECRET_TYPE;

fn label_selector(selector: &BTreeMap<String, String>) -> String {
    selector
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn backend(driver: &'static str, key: &str, e: kube::Error) -> Error {
    Error::Backend {
        driver,
        key: key.to_string(),
        source: e.into(),
    }
}

fn is_status(e: &kube::Error, code: u16) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == code)
}

/// A create answered 409 `AlreadyExists`: when the stored record is the one sent (a create
/// whose answer was lost, sent again by the client's retry layer), it was created.
fn created_already(existing: Option<StoredObject>, sent: &StoredObject) -> Result<(), Error> {
    match existing {
        Some(e) if e.labels == sent.labels && e.payload == sent.payload => Ok(()),
        _ => Err(Error::AlreadyExists {
            key: sent.key.clone(),
        }),
    }
}

fn meta(object: &StoredObject) -> ObjectMeta {
    ObjectMeta {
        name: Some(object.key.clone()),
        namespace: (!object.namespace.is_empty()).then(|| object.namespace.clone()),
        labels: Some(object.labels.clone()),
        ..Default::default()
    }
}

fn from_meta(meta: &ObjectMeta, payload: Vec<u8>) -> StoredObject {
    StoredObject {
        key: meta.name.clone().unwrap_or_default(),
        namespace: meta.namespace.clone().unwrap_or_default(),
        labels: meta.labels.clone().unwrap_or_default(),
        payload,
    }
}

/// A kind of object a release record is stored in, and how the record sits in it.
pub trait StorageObject:
    kube::Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
    + Clone
    + serde::Serialize
    + serde::de::DeserializeOwned
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
{
    /// The driver's name in errors (Helm's `Secret`, `ConfigMap`).
    const DRIVER: &'static str;
    /// The object that stores `object`.
    fn store(object: &StoredObject) -> Self;
    /// The record an object holds.
    fn read(self) -> StoredObject;
}

impl StorageObject for Secret {
    const DRIVER: &'static str = "Secret";

    fn store(object: &StoredObject) -> Self {
        Secret {
            metadata: meta(object),
            type_: Some(SECRET_TYPE.to_string()),
            data: Some(BTreeMap::from([(
                "release".to_string(),
                ByteString(object.payload.clone()),
            )])),
            ..Default::default()
        }
    }

    fn read(self) -> StoredObject {
        let payload = self
            .data
            .and_then(|mut d| d.remove("release"))
            .map(|b| b.0)
            .unwrap_or_default();
        from_meta(&self.metadata, payload)
    }
}

impl StorageObject for ConfigMap {
    const DRIVER: &'static str = "ConfigMap";

    fn store(object: &StoredObject) -> Self {
        ConfigMap {
            metadata: meta(object),
            data: Some(BTreeMap::from([(
                "release".to_string(),
                String::from_utf8_lossy(&object.payload).into_owned(),
            )])),
            ..Default::default()
        }
    }

    fn read(self) -> StoredObject {
        let payload = self
            .data
            .and_then(|mut d| d.remove("release"))
            .unwrap_or_default()
            .into_bytes();
        from_meta(&self.metadata, payload)
    }
}

/// A driver over the Kubernetes API storing records in objects of kind `K`.
#[derive(Clone)]
pub struct KubeDriver<K: StorageObject> {
    api: Api<K>,
}

/// Helm's `Secret` driver.
pub type SecretDriver = KubeDriver<Secret>;
/// Helm's `ConfigMap` driver.
pub type ConfigMapDriver = KubeDriver<ConfigMap>;

impl<K: StorageObject> KubeDriver<K> {
    /// Records in `namespace`; `None` lists across all namespaces (read-only use).
    pub fn new(client: kube::Client, namespace: Option<&str>) -> Self {
        let api = match namespace {
            Some(ns) => Api::namespaced(client, ns),
            None => Api::all(client),
        };
        KubeDriver { api }
    }
}

impl<K: StorageObject> Driver for KubeDriver<K> {
    fn name(&self) -> &'static str {
        K::DRIVER
    }

    async fn query(&self, selector: &BTreeMap<String, String>) -> Result<Vec<StoredObject>, Error> {
        let lp = ListParams::default().labels(&label_selector(selector));
        let list = self
            .api
            .list(&lp)
            .await
            .map_err(|e| backend(K::DRIVER, "list", e))?;
        Ok(list.items.into_iter().map(K::read).collect())
    }

    async fn get(&self, key: &str) -> Result<Option<StoredObject>, Error> {
        match self.api.get_opt(key).await {
            Ok(o) => Ok(o.map(K::read)),
            Err(e) => Err(backend(K::DRIVER, key, e)),
        }
    }

    async fn create(&self, object: StoredObject) -> Result<(), Error> {
        match self
            .api
            .create(&PostParams::default(), &K::store(&object))
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_status(&e, 409) => created_already(self.get(&object.key).await?, &object),
            Err(e) => Err(backend(K::DRIVER, &object.key, e)),
        }
    }

    async fn update(&self, object: StoredObject) -> Result<(), Error> {
        self.api
            .replace(&object.key, &PostParams::default(), &K::store(&object))
            .await
            .map(|_| ())
            .map_err(|e| backend(K::DRIVER, &object.key, e))
    }

    async fn delete(&self, key: &str) -> Result<(), Error> {
        match self.api.delete(key, &DeleteParams::default()).await {
            Ok(_) => Ok(()),
            Err(e) if is_status(&e, 404) => Ok(()),
            Err(e) => Err(backend(K::DRIVER, key, e)),
        }
    }
}
