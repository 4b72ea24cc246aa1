//! Two recorded package revisions compared: what each component's release rendered at the
//! release revision each package revision recorded, diffed object by object with the plan's
//! one diff ([`kubepkg_package::plan::diff_objects`]), so a Secret's values are masked exactly
//! as `kubepkg plan` masks them. The dashboard's history view shows it.

use kubepkg_package::orchestrator::RollbackRefused;
use kubepkg_package::plan::{self, ObjectDiff, RenderedObject};
use kubepkg_package::revision::PackageRevision;

use crate::cluster::KubeCluster;
use crate::error::EngineError;
use crate::ops::{Instance, chart_id, history, recorded_objects, release_at};

/// One component's change between two package revisions.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentDiff {
    pub name: String,
    /// The chart (`name-version`) in the older and the newer revision (empty when absent).
    pub from_chart: String,
    pub to_chart: String,
    /// Object changes; `None` when a side's rendering is no longer kept (the release's
    /// history was trimmed, or the component was never applied).
    pub objects: Option<Vec<ObjectDiff>>,
}

/// The diff from revision `from` to revision `to` of a package, component by component in
/// the newer revision's order (then components only the older one had).
pub async fn revisions(
    kc: &KubeCluster,
    instance: Instance<'_>,
    from: u64,
    to: u64,
) -> Result<Vec<ComponentDiff>, EngineError> {
    let h = history(kc, instance).await?;
    let get = |n: u64| {
        h.get(n).cloned().ok_or_else(|| {
            EngineError::Refused(RollbackRefused::NoSuchRevision {
                name: instance.name.to_string(),
                revision: n,
            })
        })
    };
    let (old, new) = (get(from)?, get(to)?);
    let mut names: Vec<String> = new.components.iter().map(|c| c.name.clone()).collect();
    for c in &old.components {
        if !names.contains(&c.name) {
            names.push(c.name.clone());
        }
    }
    let mut out = Vec::new();
    for name in names {
        let a = rendered(kc, &old, &name).await?;
        let b = rendered(kc, &new, &name).await?;
        let objects = match (&a, &b) {
            (Some((_, a)), Some((_, b))) => Some(plan::diff_objects(a, b)),
            (None, Some((_, b))) if old.component(&name).is_none() => {
                Some(plan::diff_objects(&[], b))
            }
            (Some((_, a)), None) if new.component(&name).is_none() => {
                Some(plan::diff_objects(a, &[]))
            }
            _ => None,
        };
        out.push(ComponentDiff {
            from_chart: a.map(|(c, _)| c).unwrap_or_default(),
            to_chart: b.map(|(c, _)| c).unwrap_or_default(),
            name,
            objects,
        });
    }
    Ok(out)
}

/// What component `name` rendered in revision `rev` (its chart and objects, `crds/` and
/// hooks included, as a plan compares them); `None` when its release revision is not kept.
async fn rendered(
    kc: &KubeCluster,
    rev: &PackageRevision,
    name: &str,
) -> Result<Option<(String, Vec<RenderedObject>)>, EngineError> {
    let Some(c) = rev.component(name) else {
        return Ok(None);
    };
    let Some(r) = release_at(kc, &c.namespace, &c.release, c.revision).await? else {
        return Ok(None);
    };
    Ok(Some((chart_id(&r), recorded_objects(&r)?)))
}
