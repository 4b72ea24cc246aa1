//! Package revisions kept in the cluster: one Secret of type `kubepkg.dev/package.v1` per
//! revision (`kubepkg.package.v1.<name>.v<revision>`) in the package's namespace, labelled as
//! Helm labels its release Secrets (`owner=kubepkg`, `name`, `status`, `version`). The payload
//! encoding is [`kubepkg_package::revision`]'s; this module only reads and writes Secrets.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

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
    /// With [`RevisionStore::remembering`]: each instance's revision Secrets as this store last
    /// listed them, kept up to date with its own writes, so an operation reads its history
    /// once ([`RevisionStore::forget`] when another writer may have written since).
    known: Option<Arc<Mutex<Known>>>,
}

/// Revision Secrets by (namespace, package instance name).
type Known = BTreeMap<(String, String), Vec<Secret>>;

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
    /// A store that reads the cluster on every call.
    pub fn new(client: kube::Client) -> RevisionStore {
        RevisionStore {
            client,
            known: None,
        }
    }

    /// A store for one operation: an instance's history is listed once and then kept from
    /// this store's own writes (a failed write forgets it: its outcome is unknown). The
    /// operation calls [`RevisionStore::forget`] once it holds the package's Lease, so what it
    /// decides on is read under the Lease.
    pub fn remembering(client: kube::Client) -> RevisionStore {
        RevisionStore {
            client,
            known: Some(Arc::default()),
        }
    }

    /// Reads the history of `name` in `namespace` from the cluster next time.
    pub fn forget(&self, name: &str, namespace: &str) {
        if let Some(known) = &self.known {
            lock(known).remove(&(namespace.to_string(), name.to_string()));
        }
    }

    /// The revision Secrets of `name` in `namespace`: remembered, or listed (and remembered).
    async fn secrets(&self, name: &str, namespace: &str) -> Result<Vec<Secret>, EngineError> {
        let key = (namespace.to_string(), name.to_string());
        if let Some(known) = &self.known
            && let Some(secrets) = lock(known).get(&key)
        {
            return Ok(secrets.clone());
        }
        let list = self
            .api(Some(namespace))
            .list(&ListParams::default().labels(&secret_selector(name)))
            .await
            .map_err(|e| EngineError::api("list", format!("revisions of package {name}"), e))?;
        let secrets: Vec<Secret> = list
            .items
            .into_iter()
            .filter(|s| s.type_.as_deref() == Some(SECRET_TYPE))
            .collect();
        if let Some(known) = &self.known {
            lock(known).insert(key, secrets.clone());
        }
        Ok(secrets)
    }

    /// Keeps the remembered history of `name` in `namespace` (if any) up to date: `written`
    /// replaces the Secret of its name, `None` removes `secret`.
    fn remember(&self, namespace: &str, name: &str, secret: &str, written: Option<Secret>) {
        let Some(known) = &self.known else { return };
        let mut known = lock(known);
        let Some(secrets) = known.get_mut(&(namespace.to_string(), name.to_string())) else {
            return;
        };
        secrets.retain(|s| s.metadata.name.as_deref() != Some(secret));
        secrets.extend(written);
    }

    /// The remembered Secret `secret` of `name` in `namespace`: `None` when nothing is
    /// remembered of `name`, `Some(None)` when it is known not to exist.
    fn remembered(&self, namespace: &str, name: &str, secret: &str) -> Option<Option<Secret>> {
        let known = lock(self.known.as_ref()?);
        let secrets = known.get(&(namespace.to_string(), name.to_string()))?;
        Some(
            secrets
                .iter()
                .find(|s| s.metadata.name.as_deref() == Some(secret))
                .cloned(),
        )
    }

    fn api(&self, namespace: Option<&str>) -> Api<Secret> {
        match namespace {
            Some(ns) => Api::namespaced(self.client.clone(), ns),
            None => Api::all(self.client.clone()),
        }
    }

    /// Every revision of package instance `name` in `namespace`.
    pub async fn history(&self, name: &str, namespace: &str) -> Result<History, EngineError> {
        let mut revs = Vec::new();
        for s in &self.secrets(name, namespace).await? {
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
        if self.known.is_some() {
            // One list of the whole history (remembered for the rest of the operation),
            // the newest decoded.
            let secrets = self.secrets(name, namespace).await?;
            let newest = secrets
                .iter()
                .filter_map(|s| Some((version_label(&s.metadata)?, s)))
                .max_by_key(|(v, _)| *v);
            return match newest {
                Some((_, s)) => Ok(Some(from_secret(&to_plain(s))?)),
                None => Ok(None),
            };
        }
        let api = self.api(Some(namespace));
        let metas = api
            .list_metadata(&ListParams::default().labels(&secret_selector(name)))
            .await
            .map_err(|e| EngineError::api("list", format!("revisions of package {name}"), e))?;
        let newest = metas
            .items
            .iter()
            .filter_map(|m| Some((version_label(&m.metadata)?, m.metadata.name.clone()?)))
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
        // What is remembered of the Secret saves reading it first (the first round only).
        let mut remembered = self.remembered(&plain.namespace, &rev.name, &plain.name);
        loop {
            round += 1;
            let current = match remembered.take() {
                Some(current) => current,
                None => api
                    .get_opt(&plain.name)
                    .await
                    .map_err(|e| EngineError::api("get", &object, e))?,
            };
            let written = match current {
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
                Ok(written) => {
                    self.remember(&plain.namespace, &rev.name, &plain.name, Some(written));
                    return Ok(());
                }
                Err((kube::Error::Api(s), _)) if s.code == 409 && round < 3 => continue,
                Err((e, action)) => {
                    // Whether it went through is unknown: read again next time.
                    self.forget(&rev.name, &plain.namespace);
                    return Err(EngineError::api(action, &object, e));
                }
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
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.code == 404 => {}
            Err(e) => {
                self.forget(&rev.name, &rev.namespace);
                return Err(EngineError::api("delete", format!("Secret {secret}"), e));
            }
        }
        self.remember(&rev.namespace, &rev.name, &secret, None);
        Ok(())
    }

    /// Deletes every revision Secret of `name` (uninstall without `--keep-history`).
    pub async fn delete_all(&self, name: &str, namespace: &str) -> Result<(), EngineError> {
        let h = self.history(name, namespace).await?;
        let api = self.api(Some(namespace));
        self.forget(name, namespace);
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
    /// by namespace and name. Only the newest revision of each is decoded; a remembering store
    /// keeps every history it listed.
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
        // Remembering: every history listed here is known now (a page that reads many).
        if let Some(known) = &self.known {
            let mut by_package: Known = BTreeMap::new();
            for key in newest.keys() {
                by_package.insert(key.clone(), Vec::new());
            }
            for s in list
                .items
                .iter()
                .filter(|s| s.type_.as_deref() == Some(SECRET_TYPE))
            {
                let name = s.metadata.labels.as_ref().and_then(|l| l.get("name"));
                let ns = s.metadata.namespace.clone().unwrap_or_default();
                if let Some(secrets) = name.and_then(|n| by_package.get_mut(&(ns, n.clone()))) {
                    secrets.push(s.clone());
                }
            }
            lock(known).extend(by_package);
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

/// The `version` label of a revision Secret.
fn version_label(meta: &ObjectMeta) -> Option<u64> {
    meta.labels.as_ref()?.get("version")?.parse().ok()
}

/// The remembered histories, even after a panic elsewhere poisoned the lock (they are plain
/// data: at worst one is read again).
fn lock(known: &Mutex<Known>) -> std::sync::MutexGuard<'_, Known> {
    known.lock().unwrap_or_else(|p| p.into_inner())
}
