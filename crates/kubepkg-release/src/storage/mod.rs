//! Release storage as Helm does it: one object per revision named
//! `sh.helm.release.v1.<name>.v<revision>`, labelled `name`, `owner=helm`, `status`,
//! `version` (plus `createdAt` on create, `modifiedAt` on update, and the release's custom
//! labels), holding the encoded record under the `release` key.
//!
//! [`Store`] adds Helm's storage semantics on top of a [`Driver`]: history, last and last
//! deployed revision, the history limit (default 10, never deleting the last deployed
//! revision), and listing that reads labels and decodes only each release's latest revision.

mod any;
mod kube;
mod memory;
mod remembering;

use std::collections::BTreeMap;
use std::future::Future;

use crate::codec;
use crate::error::Error;
use crate::record::{Release, STORAGE_PREFIX, Status};

pub use self::any::{AnyDriver, DriverKind};
pub use self::kube::{ConfigMapDriver, KubeDriver, SecretDriver, StorageObject};
pub use memory::MemoryDriver;
pub use remembering::{Remembered, Remembering};

/// Labels Helm manages on storage objects; never copied into `Release::labels`.
pub const SYSTEM_LABELS: [&str; 6] = [
    "name",
    "owner",
    "status",
    "version",
    "createdAt",
    "modifiedAt",
];

/// Helm's default `--history-max`.
pub const DEFAULT_MAX_HISTORY: usize = 10;

/// The storage object's name for a revision: `sh.helm.release.v1.<name>.v<revision>`.
pub fn storage_key(name: &str, revision: u64) -> String {
    format!("{STORAGE_PREFIX}.{name}.v{revision}")
}

/// A storage object as a driver sees it: name, namespace, labels and the encoded record.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredObject {
    pub key: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    /// The `release` entry: base64 text of the gzipped JSON record.
    pub payload: Vec<u8>,
}

impl StoredObject {
    /// Builds the object for `release` with Helm's labels; `stamp` is `("createdAt", t)` on
    /// create and `("modifiedAt", t)` on update, exactly as Helm's drivers set them.
    pub fn from_release(release: &Release, stamp: (&str, i64)) -> Result<Self, Error> {
        for label in release.labels.keys() {
            if SYSTEM_LABELS.contains(&label.as_str()) {
                return Err(Error::ReservedLabel {
                    label: label.clone(),
                });
            }
        }
        let mut labels = BTreeMap::new();
        labels.insert(stamp.0.to_string(), stamp.1.to_string());
        labels.extend(release.labels.clone());
        labels.insert("name".into(), release.name.clone());
        labels.insert("owner".into(), "helm".into());
        labels.insert("status".into(), release.status().as_str().to_string());
        labels.insert("version".into(), release.version.to_string());
        Ok(StoredObject {
            key: storage_key(&release.name, release.version),
            namespace: release.namespace.clone(),
            labels,
            payload: codec::encode(release)?.into_bytes(),
        })
    }

    /// Decodes the record; custom labels (all but Helm's system labels) become `labels`.
    pub fn decode(&self) -> Result<Release, Error> {
        let mut release = codec::decode(&self.key, &self.payload)?;
        release.labels = self
            .labels
            .iter()
            .filter(|(k, _)| !SYSTEM_LABELS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(release)
    }

    /// The revision from the `version` label, falling back to the `.v<N>` key suffix.
    pub fn revision(&self) -> Option<u64> {
        self.labels
            .get("version")
            .and_then(|v| v.parse().ok())
            .or_else(|| self.key.rsplit_once(".v").and_then(|(_, v)| v.parse().ok()))
    }

    /// The release name from the `name` label.
    pub fn release_name(&self) -> Option<&str> {
        self.labels.get("name").map(String::as_str)
    }

    /// The status from the `status` label (what `helm list` filters on without decoding).
    pub fn status(&self) -> Option<Status> {
        self.labels.get("status").map(|s| Status::parse(s))
    }
}

/// A place that stores release objects (Helm's `driver.Driver`), bound to one namespace or,
/// for listing only, to all namespaces.
pub trait Driver: Send + Sync {
    /// Helm's name of the driver (`Secret`, `ConfigMap`, `Memory`).
    fn name(&self) -> &'static str;
    /// Objects whose labels include all of `selector` (always at least `owner=helm`).
    fn query(
        &self,
        selector: &BTreeMap<String, String>,
    ) -> impl Future<Output = Result<Vec<StoredObject>, Error>> + Send;
    /// One object by key, `None` when absent.
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<StoredObject>, Error>> + Send;
    /// Creates; `Error::AlreadyExists` when the key is taken.
    fn create(&self, object: StoredObject) -> impl Future<Output = Result<(), Error>> + Send;
    /// Replaces an existing object.
    fn update(&self, object: StoredObject) -> impl Future<Output = Result<(), Error>> + Send;
    /// Deletes by key; absent objects are not an error.
    fn delete(&self, key: &str) -> impl Future<Output = Result<(), Error>> + Send;
    /// Reads `release` from the store again next time: another writer may have changed it
    /// (called once its Lease is held). Only a driver that remembers ([`Remembering`]) has
    /// anything to forget.
    fn forget(&self, _release: &str) {}
}

fn selector(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut m: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    m.insert("owner".into(), "helm".into());
    m
}

/// Helm's storage semantics over a driver.
#[derive(Debug, Clone)]
pub struct Store<D> {
    pub driver: D,
    /// Maximum revisions kept per release, including the new one; 0 means unlimited.
    pub max_history: usize,
    /// Source of Unix seconds for `createdAt`/`modifiedAt` labels.
    pub clock: fn() -> i64,
}

fn unix_now() -> i64 {
    jiff::Timestamp::now().as_second()
}

impl<D: Driver> Store<D> {
    /// A store with Helm's default history limit (10).
    pub fn new(driver: D) -> Self {
        Store {
            driver,
            max_history: DEFAULT_MAX_HISTORY,
            clock: unix_now,
        }
    }

    /// One revision of a release.
    pub async fn get(&self, name: &str, revision: u64) -> Result<Release, Error> {
        match self.driver.get(&storage_key(name, revision)).await? {
            Some(obj) => obj.decode(),
            None => Err(Error::NotFound {
                name: name.to_string(),
                revision: Some(revision),
            }),
        }
    }

    /// Every stored revision of a release, oldest first (empty when none).
    pub async fn history(&self, name: &str) -> Result<Vec<Release>, Error> {
        let objs = self.driver.query(&selector(&[("name", name)])).await?;
        let mut out = objs
            .iter()
            .map(StoredObject::decode)
            .collect::<Result<Vec<_>, _>>()?;
        out.sort_by_key(|r| r.version);
        Ok(out)
    }

    /// The latest revision, decoding only that one object.
    pub async fn last(&self, name: &str) -> Result<Option<Release>, Error> {
        let objs = self.driver.query(&selector(&[("name", name)])).await?;
        latest(objs.iter()).map(StoredObject::decode).transpose()
    }

    /// The latest revision with status `deployed` (Helm takes the newest if several are).
    pub async fn deployed(&self, name: &str) -> Result<Option<Release>, Error> {
        let objs = self
            .driver
            .query(&selector(&[("name", name), ("status", "deployed")]))
            .await?;
        latest(objs.iter()).map(StoredObject::decode).transpose()
    }

    /// Writes a new revision, first pruning history to make room as Helm does.
    pub async fn create(&self, release: &Release) -> Result<(), Error> {
        self.create_with(release, self.max_history).await
    }

    /// [`Store::create`] with an explicit history limit (`--history-max`; 0: unlimited).
    pub async fn create_with(&self, release: &Release, max_history: usize) -> Result<(), Error> {
        validate_name(&release.name)?;
        if max_history > 0 {
            self.prune(&release.name, max_history - 1).await?;
        }
        let obj = StoredObject::from_release(release, ("createdAt", (self.clock)()))?;
        self.driver.create(obj).await
    }

    /// Rewrites an existing revision (status changes).
    pub async fn update(&self, release: &Release) -> Result<(), Error> {
        let obj = StoredObject::from_release(release, ("modifiedAt", (self.clock)()))?;
        self.driver.update(obj).await
    }

    /// Deletes one revision.
    pub async fn delete(&self, name: &str, revision: u64) -> Result<(), Error> {
        self.driver.delete(&storage_key(name, revision)).await
    }

    /// Deletes the oldest revisions until at most `keep` remain, never deleting the last
    /// deployed revision (Helm's `removeLeastRecent`). Reads labels only.
    pub async fn prune(&self, name: &str, keep: usize) -> Result<Vec<u64>, Error> {
        let objs = self.driver.query(&selector(&[("name", name)])).await?;
        let doomed = revisions_to_prune(&objs, keep);
        for rev in &doomed {
            self.delete(name, *rev).await?;
        }
        Ok(doomed)
    }

    /// The latest revision of every release the driver sees, decoding one object per
    /// release; sorted by namespace then name.
    pub async fn list_latest(&self) -> Result<Vec<Release>, Error> {
        let objs = self.driver.query(&selector(&[])).await?;
        let mut groups: BTreeMap<(&str, &str), Vec<&StoredObject>> = BTreeMap::new();
        for o in &objs {
            if let Some(name) = o.release_name() {
                groups
                    .entry((o.namespace.as_str(), name))
                    .or_default()
                    .push(o);
            }
        }
        groups
            .into_values()
            .filter_map(|g| latest(g.into_iter()))
            .map(StoredObject::decode)
            .collect()
    }
}

/// The object with the highest revision.
fn latest<'a>(objs: impl Iterator<Item = &'a StoredObject>) -> Option<&'a StoredObject> {
    objs.max_by_key(|o| o.revision().unwrap_or(0))
}

/// Revisions Helm's history limit deletes so that at most `keep` remain: oldest first,
/// skipping the newest `deployed` one.
pub fn revisions_to_prune(objs: &[StoredObject], keep: usize) -> Vec<u64> {
    if objs.len() <= keep {
        return Vec::new();
    }
    let mut revs: Vec<(u64, Option<Status>)> = objs
        .iter()
        .map(|o| (o.revision().unwrap_or(0), o.status()))
        .collect();
    revs.sort_by_key(|(r, _)| *r);
    let last_deployed = revs
        .iter()
        .filter(|(_, s)| *s == Some(Status::Deployed))
        .map(|(r, _)| *r)
        .max();
    let mut doomed = Vec::new();
    for (rev, _) in &revs {
        if revs.len() - doomed.len() == keep {
            break;
        }
        if Some(*rev) != last_deployed {
            doomed.push(*rev);
        }
    }
    doomed
}

/// Release names must fit a label value and a DNS subdomain once prefixed; Helm allows at
/// most 53 characters of `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`.
pub fn validate_name(name: &str) -> Result<(), Error> {
    let bad = |reason: &str| {
        Err(Error::InvalidName {
            name: name.to_string(),
            reason: reason.to_string(),
        })
    };
    if name.is_empty() {
        return bad("a release name is required");
    }
    if name.len() > 53 {
        return bad("at most 53 characters");
    }
    for part in name.split('.') {
        let b = part.as_bytes();
        let ok_inner = b
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-');
        let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        if b.is_empty() || !ok_inner || !alnum(b[0]) || !alnum(b[b.len() - 1]) {
            return bad(
                "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit",
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
