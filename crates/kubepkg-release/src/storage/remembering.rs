//! [`Remembering`]: a driver that, for the releases an operation holds the Lease of, lists the
//! revisions once and then keeps them from its own writes, so the layers of one operation
//! (install or upgrade, history limit, readiness) do not each list the same history again.
//!
//! Only a release made the operation's own by [`Driver::forget`] (called once its Lease is
//! held: no other kubepkg writes it now) is remembered; every other release, such as one a
//! backend's controller writes (helm-controller), is read from the driver each time. What is
//! remembered is keyed by namespace and release name and shared by every driver made from the
//! same [`Remembered`] (one per operation). A query that names a release (`name=…`, as every
//! history, last and deployed read does) is answered from the remembered list; any other query
//! goes to the driver. A failed write makes the release read again (whether it went through
//! is unknown).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Driver, StoredObject};
use crate::error::Error;

/// The releases one operation made its own, by (namespace, release name): their revisions as
/// last read and written, or `None` until read.
type Known = BTreeMap<(String, String), Option<Vec<StoredObject>>>;

/// The revisions remembered for one operation.
#[derive(Debug, Clone, Default)]
pub struct Remembered(Arc<Mutex<Known>>);

impl Remembered {
    /// Forgets everything (the operation is over: the next one reads again).
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> MutexGuard<'_, Known> {
        // Plain data: after a panic elsewhere it is still usable (at worst read again).
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `inner`, bound to `namespace`, remembering into a shared [`Remembered`].
#[derive(Debug, Clone)]
pub struct Remembering<D> {
    inner: D,
    namespace: String,
    known: Remembered,
}

impl<D: Driver> Remembering<D> {
    /// `inner` (a driver of `namespace`) remembering into `known`.
    pub fn new(inner: D, namespace: &str, known: Remembered) -> Self {
        Remembering {
            inner,
            namespace: namespace.to_string(),
            known,
        }
    }

    fn id(&self, release: &str) -> (String, String) {
        (self.namespace.clone(), release.to_string())
    }

    /// Applies a write of ours to the remembered list of its release (if remembered):
    /// `object` replaces the revision of its key, `None` removes `key`.
    fn note(&self, key: &str, object: Option<&StoredObject>) {
        let mut known = self.known.lock();
        for ((ns, _), objects) in known.iter_mut() {
            if *ns == self.namespace
                && let Some(objects) = objects
            {
                objects.retain(|o| o.key != key);
            }
        }
        if let Some(o) = object
            && let Some(release) = o.release_name()
            && let Some(Some(objects)) = known.get_mut(&self.id(release))
        {
            let mut o = o.clone();
            if o.namespace.is_empty() {
                o.namespace = self.namespace.clone();
            }
            objects.push(o);
        }
    }

    /// Makes the release `object` belongs to read again (after a write whose outcome is
    /// unknown).
    fn unsure(&self, key: &str, object: Option<&StoredObject>) {
        let mut known = self.known.lock();
        for ((ns, release), objects) in known.iter_mut() {
            let holds = objects
                .as_ref()
                .is_some_and(|os| os.iter().any(|o| o.key == key));
            let named = object.and_then(StoredObject::release_name) == Some(release.as_str());
            if *ns == self.namespace && (holds || named) {
                *objects = None;
            }
        }
    }
}

impl<D: Driver> Driver for Remembering<D> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    async fn query(&self, selector: &BTreeMap<String, String>) -> Result<Vec<StoredObject>, Error> {
        let Some(release) = selector.get("name") else {
            return self.inner.query(selector).await;
        };
        let id = self.id(release);
        let remembered = self.known.lock().get(&id).cloned();
        let all = match remembered {
            // Not this operation's own: read each time.
            None => return self.inner.query(selector).await,
            Some(Some(all)) => all,
            Some(None) => {
                // The release's whole history, remembered; the selector filters it below.
                let mut whole = BTreeMap::new();
                whole.insert("owner".to_string(), "helm".to_string());
                whole.insert("name".to_string(), release.clone());
                let all = self.inner.query(&whole).await?;
                self.known.lock().insert(id, Some(all.clone()));
                all
            }
        };
        Ok(all
            .into_iter()
            .filter(|o| selector.iter().all(|(k, v)| o.labels.get(k) == Some(v)))
            .collect())
    }

    async fn get(&self, key: &str) -> Result<Option<StoredObject>, Error> {
        let found = self
            .known
            .lock()
            .iter()
            .filter(|((ns, _), _)| *ns == self.namespace)
            .filter_map(|(_, objects)| objects.as_ref())
            .find_map(|objects| objects.iter().find(|o| o.key == key).cloned());
        match found {
            Some(o) => Ok(Some(o)),
            None => self.inner.get(key).await,
        }
    }

    async fn create(&self, object: StoredObject) -> Result<(), Error> {
        match self.inner.create(object.clone()).await {
            Ok(()) => {
                self.note(&object.key, Some(&object));
                Ok(())
            }
            // Taken: nothing of ours was written.
            Err(e @ Error::AlreadyExists { .. }) => Err(e),
            Err(e) => {
                self.unsure(&object.key, Some(&object));
                Err(e)
            }
        }
    }

    async fn update(&self, object: StoredObject) -> Result<(), Error> {
        match self.inner.update(object.clone()).await {
            Ok(()) => {
                self.note(&object.key, Some(&object));
                Ok(())
            }
            Err(e) => {
                self.unsure(&object.key, Some(&object));
                Err(e)
            }
        }
    }

    async fn delete(&self, key: &str) -> Result<(), Error> {
        match self.inner.delete(key).await {
            Ok(()) => {
                self.note(key, None);
                Ok(())
            }
            Err(e) => {
                self.unsure(key, None);
                Err(e)
            }
        }
    }

    fn forget(&self, release: &str) {
        self.known.lock().insert(self.id(release), None);
        self.inner.forget(release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Status;
    use crate::storage::tests::{block, rel};
    use crate::storage::{MemoryDriver, Store};

    /// The driver under test and, beside it, a store over the same objects without
    /// remembering: what the cluster holds.
    fn pair() -> (Store<Remembering<MemoryDriver>>, Store<MemoryDriver>) {
        let memory = MemoryDriver::new("ns");
        let remembering = Remembering::new(memory.clone(), "ns", Remembered::default());
        (Store::new(remembering), Store::new(memory))
    }

    #[test]
    fn own_writes_are_seen_without_reading_again() {
        block(async {
            let (store, truth) = pair();
            store.driver.forget("web");
            assert!(store.history("web").await.unwrap().is_empty());
            store
                .create(&rel("web", 1, Status::Superseded))
                .await
                .unwrap();
            let mut r2 = rel("web", 2, Status::PendingUpgrade);
            store.create(&r2).await.unwrap();
            r2.set_status(Status::Failed, "failed");
            store.update(&r2).await.unwrap();
            store.delete("web", 1).await.unwrap();
            let seen = store.history("web").await.unwrap();
            assert_eq!(seen, truth.history("web").await.unwrap());
            assert_eq!(seen.len(), 1);
            assert_eq!(seen[0].status(), Status::Failed);
            assert_eq!(store.deployed("web").await.unwrap(), None);
        });
    }

    #[test]
    fn another_writer_is_seen_only_after_forget() {
        block(async {
            let (store, truth) = pair();
            store.driver.forget("web");
            store
                .create(&rel("web", 1, Status::Deployed))
                .await
                .unwrap();
            assert_eq!(store.history("web").await.unwrap().len(), 1);
            truth
                .create(&rel("web", 2, Status::Deployed))
                .await
                .unwrap();
            // Remembered: the other writer's revision is not read again...
            assert_eq!(store.history("web").await.unwrap().len(), 1);
            // ...until the operation takes the release's Lease again.
            store.driver.forget("web");
            assert_eq!(store.history("web").await.unwrap().len(), 2);
            assert_eq!(store.last("web").await.unwrap().unwrap().version, 2);
            assert_eq!(store.deployed("web").await.unwrap().unwrap().version, 2);
        });
    }

    #[test]
    fn a_release_not_made_its_own_is_read_every_time() {
        block(async {
            let (store, truth) = pair();
            assert!(store.history("api").await.unwrap().is_empty());
            // Written by someone else (a backend's controller): seen at once.
            truth
                .create(&rel("api", 1, Status::Deployed))
                .await
                .unwrap();
            assert_eq!(store.last("api").await.unwrap().unwrap().version, 1);
            assert!(store.driver.known.lock().is_empty());
        });
    }
}
