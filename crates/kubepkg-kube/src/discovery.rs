//! Discovery cache: which resource serves a kind and whether it is namespaced, fetched per
//! group-version on first use and refreshed when a kind is missing (a CRD was just
//! installed).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use kube::core::GroupVersion;
use kube::discovery::{ApiResource, Scope};

use crate::error::KubeError;

/// A kind resolved to its API resource.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub resource: ApiResource,
    pub namespaced: bool,
}

type Cache = HashMap<String, HashMap<String, Resolved>>;

/// Shared, cloneable discovery cache.
#[derive(Clone)]
pub struct Discovery {
    client: kube::Client,
    cache: Arc<Mutex<Cache>>,
}

impl Discovery {
    pub fn new(client: kube::Client) -> Self {
        Discovery {
            client,
            cache: Arc::default(),
        }
    }

    fn cached(&self, api_version: &str, kind: &str) -> Option<Resolved> {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .get(api_version)
            .and_then(|kinds| kinds.get(kind))
            .cloned()
    }

    /// Resolves `apiVersion`/`kind`, asking the server when not cached or when cached
    /// without that kind.
    pub async fn resolve(&self, api_version: &str, kind: &str) -> Result<Resolved, KubeError> {
        if let Some(r) = self.cached(api_version, kind) {
            return Ok(r);
        }
        let unknown = || KubeError::UnknownKind {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
        };
        let gv: GroupVersion = api_version.parse().map_err(|_| unknown())?;
        let group = match kube::discovery::oneshot::pinned_group(&self.client, &gv).await {
            Ok(g) => g,
            Err(kube::Error::Api(s)) if s.code == 404 => return Err(unknown()),
            Err(e) => {
                return Err(KubeError::Api {
                    action: "discover",
                    object: api_version.to_string(),
                    message: e.to_string(),
                    code: 0,
                });
            }
        };
        let kinds: HashMap<String, Resolved> = group
            .versioned_resources(&gv.version)
            .into_iter()
            .filter(|(ar, _)| !ar.plural.contains('/'))
            .map(|(ar, caps)| {
                (
                    ar.kind.clone(),
                    Resolved {
                        namespaced: caps.scope == Scope::Namespaced,
                        resource: ar,
                    },
                )
            })
            .collect();
        let found = kinds.get(kind).cloned();
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(api_version.to_string(), kinds);
        found.ok_or_else(unknown)
    }

    /// Forgets everything (after CRDs change).
    pub fn invalidate(&self) {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}
