//! Applying a release's objects: server-side apply with field manager `kubepkg` (conflicts
//! forced, as the chart is the source of truth, like Helm's three-way merge), namespaces set
//! only on namespaced kinds, Helm's ownership metadata stamped and checked before anything
//! is written, CRDs first and waited to `Established`, then kind groups in Helm's order;
//! pruning what left the chart unless `helm.sh/resource-policy: keep`.

use std::time::Duration;

use kube::api::{Api, DeleteParams, Patch, PatchParams, PropagationPolicy};
use kube::core::DynamicObject;
use serde_json::Value;

use crate::client::Cluster;
use crate::error::KubeError;
use crate::manifest::{ManifestObject, ObjectRef};
use crate::order::{INSTALL_ORDER, UNINSTALL_ORDER, kind_groups, sort_by_kind};
use crate::ownership::{self, Owner};
use crate::wait;

/// kubepkg's field manager for server-side apply.
pub const FIELD_MANAGER: &str = "kubepkg";

/// How objects are applied.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    pub field_manager: String,
    /// Take over fields owned by other managers (default true).
    pub force_conflicts: bool,
    /// Adopt existing objects that lack this release's ownership metadata.
    pub take_ownership: bool,
    /// Server-side dry run: validate and default, persist nothing.
    pub dry_run: bool,
    /// How long to wait for CRDs to become established.
    pub crd_timeout: Duration,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions {
            field_manager: FIELD_MANAGER.to_string(),
            force_conflicts: true,
            take_ownership: false,
            dry_run: false,
            crd_timeout: Duration::from_secs(60),
        }
    }
}

/// What a server-side dry run checked.
#[derive(Debug, Clone, Default)]
pub struct DryRunReport {
    /// Objects the API server accepted (namespaces resolved).
    pub validated: Vec<ObjectRef>,
    /// Objects that could not be sent, with the reason.
    pub unchecked: Vec<(ObjectRef, String)>,
}

/// Applies and deletes objects for one release.
pub struct Applier<'a> {
    pub cluster: &'a Cluster,
    pub owner: Owner,
    pub options: ApplyOptions,
}

impl<'a> Applier<'a> {
    pub fn new(cluster: &'a Cluster, owner: Owner, options: ApplyOptions) -> Self {
        Applier {
            cluster,
            owner,
            options,
        }
    }

    /// The API for an object and its identity with the namespace fixed by scope: the
    /// release namespace when a namespaced object has none, none for cluster-scoped kinds.
    pub async fn locate(
        &self,
        id: &ObjectRef,
    ) -> Result<(Api<DynamicObject>, ObjectRef), KubeError> {
        self.cluster.locate(id, &self.owner.namespace).await
    }

    /// The live object, `None` when absent.
    pub async fn get(&self, id: &ObjectRef) -> Result<Option<Value>, KubeError> {
        let (api, id) = self.locate(id).await?;
        match api.get_opt(&id.name).await {
            Ok(o) => Ok(o.map(|o| serde_json::to_value(o).unwrap_or(Value::Null))),
            Err(e) => Err(KubeError::api("get", &id, e)),
        }
    }

    /// Refuses objects that exist but belong to someone else (before anything is written).
    pub async fn check_ownership(&self, objects: &[ManifestObject]) -> Result<(), KubeError> {
        if self.options.take_ownership {
            return Ok(());
        }
        for o in objects {
            let (_, id) = match self.locate(&o.id).await {
                Ok(x) => x,
                // A kind the server does not know yet (its CRD comes with this release).
                Err(KubeError::UnknownKind { .. }) => continue,
                Err(e) => return Err(e),
            };
            if let Some(live) = self.get(&id).await? {
                ownership::check(&live, &id, &self.owner)?;
            }
        }
        Ok(())
    }

    /// Server-side applies one object, returning the object the server stored.
    pub async fn apply_one(&self, object: &ManifestObject) -> Result<Value, KubeError> {
        let (api, id) = self.locate(&object.id).await?;
        if !self.options.dry_run
            && let Some(observe) = &self.cluster.observer
        {
            observe(object);
        }
        let mut body = object.object.clone();
        if let Some(meta) = body.get_mut("metadata").and_then(Value::as_object_mut) {
            if id.namespace.is_empty() {
                meta.remove("namespace");
            } else {
                meta.insert("namespace".into(), Value::String(id.namespace.clone()));
            }
        }
        ownership::stamp(&mut body, &self.owner);
        let mut pp = PatchParams::apply(&self.options.field_manager);
        if self.options.force_conflicts {
            pp = pp.force();
        }
        if self.options.dry_run {
            pp = pp.dry_run();
        }
        let stored = api
            .patch(&id.name, &pp, &Patch::Apply(&body))
            .await
            .map_err(|e| KubeError::api("apply", &id, e))?;
        Ok(serde_json::to_value(stored).unwrap_or(Value::Null))
    }

    /// Refuses, before anything is written, CRDs whose upgrade would break stored or
    /// existing objects (see [`crate::crd`]). Absent CRDs are new and always safe.
    pub async fn check_crd_upgrades(&self, crds: &[&ManifestObject]) -> Result<(), KubeError> {
        for o in crds {
            if let Some(live) = self.get(&o.id).await? {
                crate::crd::check_upgrade(self.cluster, &live, &o.object).await?;
            }
        }
        Ok(())
    }

    /// Applies a release's objects: ownership check (unless `ownership_checked`: the caller
    /// checked every one of `objects` just before, as an install does before recording its
    /// pending revision), CRD upgrade safety, CRDs first (waited to Established, discovery
    /// refreshed), then the rest in kind groups of Helm's install order. Returns the
    /// identities as applied (namespaces resolved).
    pub async fn apply_all(
        &self,
        objects: &[ManifestObject],
        ownership_checked: bool,
    ) -> Result<Vec<ObjectRef>, KubeError> {
        if !ownership_checked {
            self.check_ownership(objects).await?;
        }
        let (mut crds, mut rest): (Vec<&ManifestObject>, Vec<&ManifestObject>) = objects
            .iter()
            .partition(|o| o.id.kind == "CustomResourceDefinition");
        self.check_crd_upgrades(&crds).await?;
        let mut applied = Vec::new();
        if !crds.is_empty() {
            sort_by_kind(&mut crds, INSTALL_ORDER, |o| &o.id.kind);
            let mut crd_ids = Vec::new();
            for o in &crds {
                self.apply_one(o).await?;
                let (_, id) = self.locate(&o.id).await?;
                crd_ids.push(id.clone());
                applied.push(id);
            }
            if !self.options.dry_run {
                wait::wait_ready(self.cluster, &crd_ids, self.options.crd_timeout, |_| {}).await?;
                let defined: Vec<&Value> = crds.iter().map(|o| &o.object).collect();
                self.cluster
                    .discovery
                    .refresh_for_crds(&defined, self.options.crd_timeout)
                    .await?;
            }
        }
        sort_by_kind(&mut rest, INSTALL_ORDER, |o| &o.id.kind);
        for (i, group) in kind_groups(&rest, |o| &o.id.kind).into_iter().enumerate() {
            if i == 1 {
                crate::failpoint::reached("mid-apply").await;
            }
            let results = futures::future::join_all(group.iter().map(|o| self.apply_one(o))).await;
            for (o, r) in group.iter().zip(results) {
                r?;
                applied.push(self.locate(&o.id).await?.1);
            }
        }
        Ok(applied)
    }

    /// A server-side dry run of [`Applier::apply_all`] (whatever `dry_run` says): the API
    /// server validates and defaults every object and persists nothing. Objects that cannot be checked this way are reported, not failed: kinds
    /// whose CRD is among `objects` or `provided_crds` (not installed by a dry run), and
    /// objects in a namespace that does not exist yet (`--create-namespace`).
    pub async fn dry_run_all(
        &self,
        objects: &[ManifestObject],
        provided_crds: &[ManifestObject],
    ) -> Result<DryRunReport, KubeError> {
        let dry = Applier {
            cluster: self.cluster,
            owner: self.owner.clone(),
            options: ApplyOptions {
                dry_run: true,
                ..self.options.clone()
            },
        };
        dry.check_ownership(objects).await?;
        let crds: Vec<&ManifestObject> = objects
            .iter()
            .chain(provided_crds)
            .filter(|o| o.id.kind == "CustomResourceDefinition")
            .collect();
        dry.check_crd_upgrades(&crds).await?;
        let provided: Vec<(String, String)> = crds
            .iter()
            .map(|c| {
                let s = |p: &str| c.object.pointer(p).and_then(Value::as_str).unwrap_or("");
                (
                    s("/spec/group").to_string(),
                    s("/spec/names/kind").to_string(),
                )
            })
            .collect();
        let mut sorted: Vec<&ManifestObject> = objects.iter().collect();
        sort_by_kind(&mut sorted, INSTALL_ORDER, |o| &o.id.kind);
        let mut report = DryRunReport::default();
        for o in sorted {
            match dry.apply_one(o).await {
                Ok(_) => report.validated.push(dry.locate(&o.id).await?.1),
                Err(KubeError::UnknownKind { .. })
                    if provided
                        .iter()
                        .any(|(g, k)| g == o.id.group() && *k == o.id.kind) =>
                {
                    report.unchecked.push((
                        o.id.clone(),
                        "its CustomResourceDefinition comes with this release".into(),
                    ));
                }
                Err(e)
                    if e.is_not_found()
                        && e.status()
                            .is_some_and(|s| s.message.starts_with("namespaces ")) =>
                {
                    let message = e.status().map(|s| s.message.as_str()).unwrap_or_default();
                    report
                        .unchecked
                        .push((o.id.clone(), format!("{message} (yet)")));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(report)
    }

    /// Deletes one object (background propagation, as Helm); absent is not an error.
    /// Returns false when it was already gone.
    pub async fn delete(&self, id: &ObjectRef) -> Result<bool, KubeError> {
        let (api, id) = match self.locate(id).await {
            Ok(x) => x,
            Err(KubeError::UnknownKind { .. }) => return Ok(false),
            Err(e) => return Err(e),
        };
        let dp = DeleteParams {
            propagation_policy: Some(PropagationPolicy::Background),
            dry_run: self.options.dry_run,
            ..Default::default()
        };
        match api.delete(&id.name, &dp).await {
            Ok(_) => Ok(true),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(false),
            Err(e) => Err(KubeError::api("delete", &id, e)),
        }
    }

    /// Deletes objects of `previous` that are not in `current` (same group, kind,
    /// namespace and name) and whose live object belongs to this release, in Helm's
    /// uninstall order, keeping those whose live object
    /// (or manifest) says `helm.sh/resource-policy: keep`. Returns what was deleted and
    /// what was kept.
    pub async fn prune(
        &self,
        previous: &[ManifestObject],
        current: &[ObjectRef],
    ) -> Result<(Vec<ObjectRef>, Vec<ObjectRef>), KubeError> {
        let mut gone: Vec<&ManifestObject> = Vec::new();
        for o in previous {
            let id = match self.locate(&o.id).await {
                Ok((_, id)) => id,
                Err(KubeError::UnknownKind { .. }) => continue,
                Err(e) => return Err(e),
            };
            if current.iter().any(|c| c.same_object(&id))
                || gone.iter().any(|g| g.id.same_object(&o.id))
            {
                continue;
            }
            // Only what this release owns: never an object someone else took over.
            match self.get(&id).await? {
                Some(live) if ownership::check(&live, &id, &self.owner).is_ok() => gone.push(o),
                _ => {}
            }
        }
        self.delete_objects(&gone).await
    }

    /// Deletes objects in Helm's uninstall order honouring the keep policy.
    pub async fn delete_objects(
        &self,
        objects: &[&ManifestObject],
    ) -> Result<(Vec<ObjectRef>, Vec<ObjectRef>), KubeError> {
        let mut objects = objects.to_vec();
        sort_by_kind(&mut objects, &UNINSTALL_ORDER, |o| &o.id.kind);
        let (mut deleted, mut kept) = (Vec::new(), Vec::new());
        for o in objects {
            let live = match self.get(&o.id).await {
                Ok(l) => l,
                Err(KubeError::UnknownKind { .. }) => continue,
                Err(e) => return Err(e),
            };
            let (_, id) = self.locate(&o.id).await?;
            if ownership::keep_policy(&o.object)
                || live.as_ref().is_some_and(ownership::keep_policy)
            {
                kept.push(id);
                continue;
            }
            if live.is_some() && self.delete(&id).await? {
                deleted.push(id);
            }
        }
        Ok((deleted, kept))
    }
}
