//! Package revisions kept in the cluster: one Secret of type `kubepkg.dev/package.v1` per
//! revision (`kubepkg.package.v1.<name>.v<revision>`) in the package's namespace, labelled as
//! Helm labels its release Secrets (`owner=kubepkg`, `name`, `status`, `version`). The payload
//! encoding is [`kubepkg_package::revision`]'s; this module only reads and writes Secrets.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, ListParams, ObjectMeta, PostParams};
use kubepkg_package::revision::{
    self, History, PackageRevision, RevisionSecret, SECRET_TYPE, from_secret, secret_selector,
    to_secret,
};

use crate::error::EngineError;

/// Reads and writes the revisions of package instances.
#[derive(Clone)]
pub struct RevisionStore {
    client: kube::Client,
}

fn to_plain(s: &Secret) -> RevisionSecret {
    RevisionSecret {
        name: s.metadata.name.clone().unwrap_or_default(),
        namespace: s.metadata.namespace.clone().unwrap_or_default(),
        type_: s.type_.clone().unwrap_or_default(),
        labels: s.metadata.labels.clone().unwrap_or_default(),
        data: s
            .data
            .clone()
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, v.0))
            .collect(),
    }
}

impl RevisionStore {
    pub fn new(client: kube::Client) -> RevisionStore {
        RevisionStore { client }
    }

    fn api(&self, namespace: Option<&str>) -> Api<Secret> {
        match namespace {
            Some(ns) => Api::namespaced(self.client.clone(), ns),
            None => Api::all(self.client.clone()),
        }
    }

    /// Every revision of package instance `name` in `namespace`.
    pub async fn history(&self, name: &str, namespace: &str) -> Result<History, EngineError> {
        let list = self
            .api(Some(namespace))
            .list(&ListParams::default().labels(&secret_selector(name)))
            .await
            .map_err(|e| EngineError::api("list", format!("revisions of package {name}"), e))?;
        let mut revs = Vec::new();
        for s in list
            .items
            .iter()
            .filter(|s| s.type_.as_deref() == Some(SECRET_TYPE))
        {
            revs.push(from_secret(&to_plain(s))?);
        }
        Ok(History::new(revs))
    }

    /// The latest revision of package instance `name` in `namespace`, decoding only that
    /// one: the revisions are listed by metadata, the highest `version` label is read (what a
    /// controller looks at on every reconcile, without decoding a whole history).
    pub async fn latest(
        &self,
        name: &str,
        namespace: &str,
    ) -> Result<Option<PackageRevision>, EngineError> {
        let api = self.api(Some(namespace));
        let metas = api
            .list_metadata(&ListParams::default().labels(&secret_selector(name)))
            .await
            .map_err(|e| EngineError::api("list", format!("revisions of package {name}"), e))?;
        let newest = metas
            .items
            .iter()
            .filter_map(|m| {
                let version: u64 = m.metadata.labels.as_ref()?.get("version")?.parse().ok()?;
                Some((version, m.metadata.name.clone()?))
            })
            .max();
        let Some((_, secret)) = newest else {
            return Ok(None);
        };
        let object = format!("Secret {namespace}/{secret}");
        match api
            .get_opt(&secret)
            .await
            .map_err(|e| EngineError::api("get", &object, e))?
        {
            Some(s) if s.type_.as_deref() == Some(SECRET_TYPE) => {
                Ok(Some(from_secret(&to_plain(&s))?))
            }
            _ => Ok(None),
        }
    }

    /// Creates or replaces the Secret of `rev`.
    pub async fn record(&self, rev: &PackageRevision) -> Result<(), EngineError> {
        let plain = to_secret(rev);
        let api = self.api(Some(&plain.namespace));
        let mut secret = Secret {
            metadata: ObjectMeta {
                name: Some(plain.name.clone()),
                namespace: Some(plain.namespace.clone()),
                labels: Some(plain.labels.clone()),
                ..Default::default()
            },
            type_: Some(plain.type_.clone()),
            data: Some(
                plain
                    .data
                    .iter()
                    .map(|(k, v)| (k.clone(), ByteString(v.clone())))
                    .collect::<BTreeMap<_, _>>(),
            ),
            ..Default::default()
        };
        let object = format!("Secret {}/{}", plain.namespace, plain.name);
        // Under the package Lease this process is the only writer: a 409 means a write of ours
        // whose answer was lost went through (sent again by the client's retry layer). Read
        // again and write over it.
        let mut round = 0;
        loop {
            round += 1;
            let written = match api
                .get_opt(&plain.name)
                .await
                .map_err(|e| EngineError::api("get", &object, e))?
            {
                None => api
                    .create(&PostParams::default(), &secret)
                    .await
                    .map_err(|e| (e, "create")),
                Some(current) => {
                    secret.metadata.resource_version = current.metadata.resource_version;
                    api.replace(&plain.name, &PostParams::default(), &secret)
                        .await
                        .map_err(|e| (e, "replace"))
                }
            };
            match written {
                Ok(_) => return Ok(()),
                Err((kube::Error::Api(s), _)) if s.code == 409 && round < 3 => continue,
                Err((e, action)) => return Err(EngineError::api(action, &object, e)),
            }
        }
    }

    /// Deletes the Secret of one revision (a pending one that changed nothing); absent is fine.
    pub async fn delete(&self, rev: &PackageRevision) -> Result<(), EngineError> {
        let secret = rev.secret_name();
        match self
            .api(Some(&rev.namespace))
            .delete(&secret, &Default::default())
            .await
        {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
            Err(e) => Err(EngineError::api("delete", format!("Secret {secret}"), e)),
        }
    }

    /// Deletes every revision Secret of `name` (uninstall without `--keep-history`).
    pub async fn delete_all(&self, name: &str, namespace: &str) -> Result<(), EngineError> {
        let h = self.history(name, namespace).await?;
        let api = self.api(Some(namespace));
        for r in &h.revisions {
            let secret = revision::secret_name(name, r.revision);
            match api.delete(&secret, &Default::default()).await {
                Ok(_) => {}
                Err(kube::Error::Api(s)) if s.code == 404 => {}
                Err(e) => return Err(EngineError::api("delete", format!("Secret {secret}"), e)),
            }
        }
        Ok(())
    }

    /// The latest revision of every package instance (in `namespace`, or everywhere), sorted
    /// by namespace and name. Only the newest revision of each is decoded.
    pub async fn list_latest(
        &self,
        namespace: Option<&str>,
    ) -> Result<Vec<PackageRevision>, EngineError> {
        let list = self
            .api(namespace)
            .list(&ListParams::default().labels("owner=kubepkg"))
            .await
            .map_err(|e| EngineError::api("list", "package revisions", e))?;
        let mut newest: BTreeMap<(String, String), (u64, &Secret)> = BTreeMap::new();
        for s in list
            .items
            .iter()
            .filter(|s| s.type_.as_deref() == Some(SECRET_TYPE))
        {
            let labels = s.metadata.labels.clone().unwrap_or_default();
            let (Some(name), Some(version)) = (labels.get("name"), labels.get("version")) else {
                continue;
            };
            let Ok(v) = version.parse::<u64>() else {
                continue;
            };
            let key = (
                s.metadata.namespace.clone().unwrap_or_default(),
                name.clone(),
            );
            if newest.get(&key).is_none_or(|(n, _)| *n < v) {
                newest.insert(key, (v, s));
            }
        }
        let mut out = Vec::new();
        for (_, s) in newest.values() {
            out.push(from_secret(&to_plain(s))?);
        }
        Ok(out)
    }

    /// The installed instances named `name` in any namespace (for `requires`), newest first.
    /// An identity that may not list Secrets cluster-wide (a tenant's ServiceAccount bound in
    /// its own namespace) sees the instances of `own_namespace` only, as `kubectl get
    /// secrets` would show it, rather than waiting on a requirement it cannot read.
    pub async fn find(&self, name: &str, own_namespace: &str) -> Result<Vec<History>, EngineError> {
        let params = ListParams::default().labels(&secret_selector(name));
        let list = match self.api(None).list(&params).await {
            Err(e) if kubepkg_kube::is_forbidden(&e) => {
                self.api(Some(own_namespace)).list(&params).await
            }
            other => other,
        }
        .map_err(|e| EngineError::api("list", format!("revisions of package {name}"), e))?;
        let mut by_ns: BTreeMap<String, Vec<PackageRevision>> = BTreeMap::new();
        for s in list
            .items
            .iter()
            .filter(|s| s.type_.as_deref() == Some(SECRET_TYPE))
        {
            let r = from_secret(&to_plain(s))?;
            by_ns.entry(r.namespace.clone()).or_default().push(r);
        }
        Ok(by_ns.into_values().map(History::new).collect())
    }
}
