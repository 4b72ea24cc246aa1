//! A kubepkg package compiled into the objects a GitOps controller reconciles, so that a
//! GitOps repository can hold them and the controller keeps kubepkg's rules without kubepkg
//! running in the cluster (`kubepkg render --backend flux`, docs/backends.md).
//!
//! - [`flux`]: per component, in kubepkg's install order, an `OCIRepository` for its chart and
//!   a `HelmRelease` (`helm.toolkit.fluxcd.io/v2`) whose `dependsOn` names the component
//!   before it (one at a time, as kubepkg applies them), whose `healthCheckExprs` are its
//!   `readyWhen` conditions in Flux's CEL, and whose upgrade remediation is the version's
//!   `rollback.safe` (rolled back only when the version says it may be).
//! - [`argocd`]: per component, in kubepkg's install order, an `Application`
//!   (`argoproj.io/v1alpha1`) with its chart from an OCI registry as a Helm source, no automated
//!   sync and a sync wave for its position; [`argocd::sync`] is what a driver sets on an
//!   Application to sync it (`argocd app sync`'s operation) and how it reads the outcome.
//!
//! What a controller cannot be told is refused or reported, never dropped silently: a
//! `readyWhen` on an object outside the component's release namespace is an error (Flux only
//! evaluates health expressions on a release's own objects); hook components (`PreUpgrade`,
//! `PreRollback`) run only when kubepkg drives the change, and a `rollback.to` floor cannot be
//! checked by Flux: both are said in [`Compiled::notes`].
//!
//! Both modules are pure, over the loaded `Package` and the values
//! `kubepkg_model::values::supplied` gives. [`flux::compile`] and [`argocd::compile`] write
//! the whole package; `kubepkg render` (`crates/kubepkg/src/commands/render.rs`) loads it,
//! optionally pushes the charts, and prints them. The engine's backends apply one component at
//! a time with the same code: [`flux::component_objects`] (with `Options::driven`: no Flux
//! remediation, kubepkg decides rollbacks) and [`argocd::component_application`];
//! [`flux::check`] is what the Flux backend refuses before it applies anything.
//!
//! An Argo CD source is pinned to the pushed digest (Argo CD's native OCI source) when the
//! digest is known, else an OCI Helm chart by version ([`argocd::target_revision`] is what a
//! sync names). For a plain-HTTP registry a `repo-creds` template (pinned) or a repository
//! Secret (by version) comes first.

pub mod argocd;
pub mod flux;
#[cfg(test)]
mod test_support;

/// The components of `order` (kubepkg's apply order, hooks left out) with their charts, in
/// that order; a component whose chart is not known is [`CompileError::UnknownChart`].
fn charted_components<'p>(
    package: &'p kubepkg_model::Package,
    order: &'p kubepkg_model::graph::Order,
    charts: &'p std::collections::BTreeMap<String, flux::ChartRef>,
) -> impl Iterator<
    Item = Result<(&'p kubepkg_model::manifest::Component, &'p flux::ChartRef), CompileError>,
> + 'p {
    order.components.iter().filter_map(|name| {
        let component = package.component(name)?;
        Some(
            charts
                .get(name)
                .map(|chart| (component, chart))
                .ok_or_else(|| CompileError::UnknownChart(name.clone())),
        )
    })
}

/// The objects of a compiled package and what could not be compiled.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Compiled {
    /// The objects, in the order they are applied.
    pub objects: Vec<serde_json::Value>,
    /// What the backend will not do as kubepkg would (hook components left out, rollback
    /// floors), each a sentence for the user.
    pub notes: Vec<String>,
}

/// Why a package cannot be compiled for a backend.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// A `readyWhen` names an object in another namespace than its component's release.
    #[error(
        "component {component}: readyWhen {kind} {namespace}/{name} is outside the release's \
         namespace {release_namespace}; Flux evaluates healthCheckExprs only on the objects of \
         the HelmRelease itself: move the condition to the component that creates the object, \
         or use the helm backend (kubepkg apply) to wait for it"
    )]
    ReadyWhenOutsideRelease {
        component: String,
        kind: String,
        namespace: String,
        name: String,
        release_namespace: String,
    },
    /// A component's chart is not known (name and version are needed for its source).
    #[error("component {0}: its chart's name and version are unknown (load the chart first)")]
    UnknownChart(String),
    /// The chart repository is not an `oci://` URL.
    #[error(
        "chart repository {0:?} is not an oci:// URL: Flux pulls each component's chart from an \
         OCI registry (push them there with --push-charts, or kubepkg push)"
    )]
    NotOci(String),
    /// The chart repository is not an `oci://` URL (Argo CD).
    #[error(
        "chart repository {0:?} is not an oci:// URL: the Argo CD Applications pull each \
         component's chart from an OCI registry (push them there with --push-charts, or kubepkg push)"
    )]
    NotOciForArgoCd(String),
    /// A component is post-rendered by something its GitOps controller cannot run: a Helm
    /// plugin (Flux), or anything (Argo CD, which has no post-renderers for Helm sources).
    #[error(
        "component {component}: post-rendered by {renderer}, which {controller} cannot run: \
         {hint}, or use the helm backend (kubepkg apply)"
    )]
    PostRenderer {
        component: String,
        renderer: String,
        controller: &'static str,
        hint: &'static str,
    },
}

/// A component's post-renderers as Flux HelmRelease `postRenderers` (JSON), or the refusal:
/// only kustomize-style ones (kubepkg.yaml's and `spec.postRenderers`) can be told to Flux.
pub fn flux_post_renderers(
    component: &kubepkg_model::manifest::Component,
) -> Result<Vec<serde_json::Value>, CompileError> {
    let mut out = Vec::new();
    for step in &component.post_renderers.0 {
        let Some(specs) = step.kustomize_specs() else {
            return Err(CompileError::PostRenderer {
                component: component.name.clone(),
                renderer: step.describe(),
                controller: "Flux's helm-controller",
                hint: "give the patches in kubepkg.yaml's postRenderers instead",
            });
        };
        for s in specs {
            out.push(serde_json::to_value(s).unwrap_or_default());
        }
    }
    Ok(out)
}

/// Argo CD renders Helm sources without post-renderers: a post-rendered component is refused.
pub fn argocd_post_renderers(
    component: &kubepkg_model::manifest::Component,
) -> Result<(), CompileError> {
    match component.post_renderers.0.first() {
        None => Ok(()),
        Some(step) => Err(CompileError::PostRenderer {
            component: component.name.clone(),
            renderer: step.describe(),
            controller: "Argo CD",
            hint: "Argo CD applies no post-renderer to a Helm source",
        }),
    }
}
