//! An in-memory driver (Helm's `Memory` driver): for tests and `--dry-run`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Driver, StoredObject};
use crate::error::Error;

/// Objects kept in a shared map keyed by (namespace, key); clones share the map.
#[derive(Debug, Clone, Default)]
pub struct MemoryDriver {
    objects: Arc<Mutex<BTreeMap<(String, String), StoredObject>>>,
    namespace: String,
}

impl MemoryDriver {
    /// A driver bound to `namespace` (empty: all namespaces, for listing).
    pub fn new(namespace: &str) -> Self {
        MemoryDriver {
            objects: Arc::default(),
            namespace: namespace.to_string(),
        }
    }

    /// A view of the same objects bound to another namespace.
    pub fn in_namespace(&self, namespace: &str) -> Self {
        MemoryDriver {
            objects: self.objects.clone(),
            namespace: namespace.to_string(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<(String, String), StoredObject>> {
        // A poisoned lock only means another test thread panicked; the map is still usable.
        self.objects.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// All stored objects (for assertions).
    pub fn objects(&self) -> Vec<StoredObject> {
        self.lock().values().cloned().collect()
    }
}

impl Driver for MemoryDriver {
    fn name(&self) -> &'static str {
        "Memory"
    }

    async fn query(&self, selector: &BTreeMap<String, String>) -> Result<Vec<StoredObject>, Error> {
        Ok(self
            .lock()
            .values()
            .filter(|o| self.namespace.is_empty() || o.namespace == self.namespace)
            .filter(|o| selector.iter().all(|(k, v)| o.labels.get(k) == Some(v)))
            .cloned()
            .collect())
    }

    async fn get(&self, key: &str) -> Result<Option<StoredObject>, Error> {
        Ok(self
            .lock()
            .get(&(self.namespace.clone(), key.to_string()))
            .cloned())
    }

    async fn create(&self, mut object: StoredObject) -> Result<(), Error> {
        if object.namespace.is_empty() {
            object.namespace = self.namespace.clone();
        }
        let mut map = self.lock();
        let id = (object.namespace.clone(), object.key.clone());
        if map.contains_key(&id) {
            return Err(Error::AlreadyExists { key: object.key });
        }
        map.insert(id, object);
        Ok(())
    }

    async fn update(&self, mut object: StoredObject) -> Result<(), Error> {
        if object.namespace.is_empty() {
            object.namespace = self.namespace.clone();
        }
        let mut map = self.lock();
        let id = (object.namespace.clone(), object.key.clone());
        if !map.contains_key(&id) {
            return Err(Error::NotFound {
                name: object.key,
                revision: None,
            });
        }
        map.insert(id, object);
        Ok(())
    }

    async fn delete(&self, key: &str) -> Result<(), Error> {
        self.lock()
            .remove(&(self.namespace.clone(), key.to_string()));
        Ok(())
    }
}
