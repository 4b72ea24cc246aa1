//! Discovery cache: which resource serves a kind and whether it is namespaced, fetched per
//! group-version on first use and refreshed when a kind is missing (a CRD was just
//! installed); [`server_capabilities`]: what the server reports for `.Capabilities`.
//!
//! [`Discovery::capabilities`] asks for those every time, unless whoever holds the cache
//! watches what changes them (the controller watches CustomResourceDefinitions and
//! APIServices: [`Discovery::keep_capabilities`], [`Discovery::capabilities_changed`]); then
//! they are kept between operations, at most [`KEPT_AT_MOST`], and not kept when asked within
//! [`SETTLING`] of a change (the server's discovery document lags a new CRD by a moment).

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// How long kept capabilities count as the server's at the most, even when nothing said they
/// changed (a watch that missed an event).
pub const KEPT_AT_MOST: Duration = Duration::from_secs(300);

/// Capabilities asked for within this long of a change are used once, not kept: a new CRD is
/// Established a moment before discovery serves its group.
pub const SETTLING: Duration = Duration::from_secs(5);

/// The server's capabilities between operations ([`Discovery::capabilities`]).
#[derive(Default)]
struct KeptCapabilities {
    /// Whether anything watches for changes (only then are they kept).
    watched: bool,
    kept: Option<(Instant, ServerCapabilities)>,
    changed: Option<Instant>,
}

/// Shared, cloneable discovery cache.
#[derive(Clone)]
pub struct Discovery {
    client: kube::Client,
    cache: Arc<Mutex<Cache>>,
    /// One lock per group-version being fetched: concurrent resolves of the same one (a page
    /// reading many objects at once) ask the server once.
    fetching: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
    capabilities: Arc<Mutex<KeptCapabilities>>,
}

impl Discovery {
    pub fn new(client: kube::Client) -> Self {
        Discovery {
            client,
            cache: Arc::default(),
            fetching: Arc::default(),
            capabilities: Arc::default(),
        }
    }

    /// The server's [`ServerCapabilities`]: asked for now, unless they are watched
    /// ([`Discovery::keep_capabilities`]) and were asked for since the last change, less than
    /// [`KEPT_AT_MOST`] ago.
    pub async fn capabilities(&self) -> Result<ServerCapabilities, KubeError> {
        if let Some(kept) = self.kept_capabilities() {
            return Ok(kept);
        }
        let asked_at = Instant::now();
        let caps = server_capabilities(&self.client).await?;
        let mut kept = self.capabilities.lock().unwrap_or_else(|p| p.into_inner());
        let settled = kept
            .changed
            .is_none_or(|at| asked_at.saturating_duration_since(at) >= SETTLING);
        if kept.watched && settled {
            kept.kept = Some((asked_at, caps.clone()));
        }
        Ok(caps)
    }

    fn kept_capabilities(&self) -> Option<ServerCapabilities> {
        let kept = self.capabilities.lock().unwrap_or_else(|p| p.into_inner());
        match &kept.kept {
            Some((at, caps)) if kept.watched && at.elapsed() < KEPT_AT_MOST => Some(caps.clone()),
            _ => None,
        }
    }

    /// Whether something now watches what changes the capabilities (and calls
    /// [`Discovery::capabilities_changed`] on every change): only then are they kept.
    pub fn keep_capabilities(&self, watched: bool) {
        let mut kept = self.capabilities.lock().unwrap_or_else(|p| p.into_inner());
        kept.watched = watched;
        if !watched {
            kept.kept = None;
        }
    }

    /// The served APIs may have changed (a CRD or APIService was added, changed or removed):
    /// the capabilities are asked for again.
    pub fn capabilities_changed(&self) {
        let mut kept = self.capabilities.lock().unwrap_or_else(|p| p.into_inner());
        kept.kept = None;
        kept.changed = Some(Instant::now());
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
        let fetching = self
            .fetching
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(api_version.to_string())
            .or_default()
            .clone();
        let _one_at_a_time = fetching.lock().await;
        // Another resolve may have fetched it meanwhile.
        if let Some(r) = self.cached(api_version, kind) {
            return Ok(r);
        }
        let group = match kube::discovery::oneshot::pinned_group(&self.client, &gv).await {
            Ok(g) => g,
            Err(kube::Error::Api(s)) if s.code == 404 => return Err(unknown()),
            Err(e) => {
                return Err(KubeError::refused("discover", api_version.to_string(), e));
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
        self.capabilities_changed();
    }

    /// After CRDs were applied and became Established: forgets the cache and waits (up to
    /// `timeout`) until discovery serves every kind they define. The API server reports a
    /// CRD Established a moment before its group's discovery document exists (a 404 then), so
    /// resolving the new kind at once can fail on a busy server; kubectl retries for the same
    /// reason.
    pub async fn refresh_for_crds(
        &self,
        crds: &[&serde_json::Value],
        timeout: std::time::Duration,
    ) -> Result<(), KubeError> {
        self.invalidate();
        let deadline = tokio::time::Instant::now() + timeout;
        for crd in crds {
            let spec = &crd["spec"];
            let (Some(group), Some(kind)) =
                (spec["group"].as_str(), spec["names"]["kind"].as_str())
            else {
                continue;
            };
            let served = spec["versions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|v| v["served"].as_bool().unwrap_or(true))
                .filter_map(|v| v["name"].as_str());
            for version in served {
                let api_version = format!("{group}/{version}");
                loop {
                    match self.resolve(&api_version, kind).await {
                        Ok(_) => break,
                        Err(KubeError::UnknownKind { .. })
                            if tokio::time::Instant::now() < deadline =>
                        {
                            self.invalidate();
                            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        Ok(())
    }
}

/// What the API server reports about itself for a chart's `.Capabilities`, gathered as
/// Helm's `getCapabilities` does: the `/version` answer (git version, major, minor) and
/// every served `group/version` plus `group/version/Kind` for each resource the server
/// lists in that group version, subresources included (`v1/Binding`, `apps/v1/Scale`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerCapabilities {
    /// `gitVersion` (`v1.37.2`).
    pub git_version: String,
    /// `major` and `minor` as the server reports them (`1`, `37`, possibly `37+`).
    pub major: String,
    pub minor: String,
    /// Sorted and without duplicates.
    pub api_versions: Vec<String>,
}

fn discovery_error(what: &str, e: kube::Error) -> KubeError {
    KubeError::refused("discover", what.to_string(), e)
}

/// Asks the server for its [`ServerCapabilities`]: three requests (`/version`, and `/api` and
/// `/apis` as aggregated discovery, which Kubernetes serves since 1.26, GA in 1.30, as
/// client-go asks), else, from a server that answers aggregated discovery with the legacy
/// lists, one more request per group version. A group version whose resource list cannot be
/// fetched (an APIService registered but not answering; in aggregated discovery, one marked
/// `Stale`) keeps its `group/version` and contributes no kinds, as client-go's discovery does.
pub async fn server_capabilities(client: &kube::Client) -> Result<ServerCapabilities, KubeError> {
    let info = client
        .apiserver_version()
        .await
        .map_err(|e| discovery_error("/version", e))?;
    let set = match aggregated_api_versions(client).await {
        Some(set) => set,
        None => legacy_api_versions(client).await?,
    };
    Ok(ServerCapabilities {
        git_version: info.git_version,
        major: info.major,
        minor: info.minor,
        api_versions: set.into_iter().collect(),
    })
}

/// Every `group/version` and `group/version/Kind` the server serves, subresource kinds
/// included (Helm's `GetVersionSet`), sorted: [`ServerCapabilities::api_versions`] without
/// asking `/version`.
pub async fn api_versions(client: &kube::Client) -> Result<Vec<String>, KubeError> {
    let set = match aggregated_api_versions(client).await {
        Some(set) => set,
        None => legacy_api_versions(client).await?,
    };
    Ok(set.into_iter().collect())
}

/// `group/version` and `group/version/Kind` from aggregated discovery (subresources' response
/// kinds included, as client-go lists them as resources); `None` when the server does not
/// answer in that form. Public for the test that holds it to [`legacy_api_versions`].
pub async fn aggregated_api_versions(client: &kube::Client) -> Option<BTreeSet<String>> {
    let core = client.list_core_api_versions_aggregated().await.ok()?;
    let groups = client.list_api_groups_aggregated().await.ok()?;
    let mut set = BTreeSet::new();
    for group in core.items.iter().chain(&groups.items) {
        let name = group
            .metadata
            .as_ref()
            .and_then(|m| m.name.clone())
            .unwrap_or_default();
        for version in &group.versions {
            let Some(v) = &version.version else { continue };
            let gv = if name.is_empty() {
                v.clone()
            } else {
                format!("{name}/{v}")
            };
            set.insert(gv.clone());
            if version.freshness.as_deref() == Some("Stale") {
                continue;
            }
            for r in &version.resources {
                let kinds = r.response_kind.iter().chain(
                    r.subresources
                        .iter()
                        .filter_map(|s| s.response_kind.as_ref()),
                );
                for kind in kinds.filter_map(|k| k.kind.as_deref()) {
                    set.insert(format!("{gv}/{kind}"));
                }
            }
        }
    }
    Some(set)
}

/// The same from the legacy discovery lists: `/api`, `/apis`, then each group version's.
pub async fn legacy_api_versions(client: &kube::Client) -> Result<BTreeSet<String>, KubeError> {
    let mut group_versions: Vec<String> = client
        .list_core_api_versions()
        .await
        .map_err(|e| discovery_error("/api", e))?
        .versions;
    let groups = client
        .list_api_groups()
        .await
        .map_err(|e| discovery_error("/apis", e))?;
    for g in &groups.groups {
        group_versions.extend(g.versions.iter().map(|v| v.group_version.clone()));
    }
    let mut set = BTreeSet::new();
    for gv in &group_versions {
        set.insert(gv.clone());
        let resources = if gv.contains('/') {
            client.list_api_group_resources(gv).await
        } else {
            client.list_core_api_resources(gv).await
        };
        let Ok(resources) = resources else { continue };
        for r in &resources.resources {
            set.insert(format!("{gv}/{}", r.kind));
        }
    }
    Ok(set)
}
