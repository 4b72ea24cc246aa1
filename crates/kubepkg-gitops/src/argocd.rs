//! Argo CD: an `Application` (`argoproj.io/v1alpha1`) per component, named after the
//! component's release (`<instance>-<component>`), in Argo CD's namespace. Field names and
//! meanings are those of Argo CD v3.5's API types (`pkg/apis/application/v1alpha1`):
//!
//! - `spec.source` is a Helm chart in an OCI registry as Argo CD names one: `repoURL` the
//!   registry and path **without** `oci://` (Argo CD's repo server takes a scheme-less
//!   `host[:port]/path` as an OCI Helm repository and runs `helm pull oci://<repoURL>/<chart>
//!   --version <targetRevision>`), `chart` the chart's name, `targetRevision` its version;
//!   `helm.releaseName` the component's release and `helm.valuesObject` the values kubepkg
//!   supplies to the chart;
//! - `spec.destination`: the cluster Argo CD runs in (`https://kubernetes.default.svc`) and the
//!   component's release namespace (`CreateNamespace=true` when that is not the package's);
//! - no `syncPolicy.automated`: nothing is applied until a sync operation is set (by kubepkg in
//!   order, [`sync`], or by a user);
//! - `argocd.argoproj.io/sync-wave`: the component's position in kubepkg's order, which Argo CD
//!   honours only between the Applications of one parent Application (app of apps), and there
//!   only waits for each wave's Applications to be applied, not Healthy, unless Argo CD is given
//!   a health check for `argoproj.io/Application` (docs/backends.md);
//! - the finalizer `resources-finalizer.argocd.argoproj.io`: deleting the Application deletes
//!   the objects it applied, as `helm uninstall` (and `kubepkg uninstall`) does.
//!
//! With a plain-HTTP registry (`insecure`) a repository Secret (label
//! `argocd.argoproj.io/secret-type: repository`, `type: helm`, `enableOCI`,
//! `insecureOCIForceHttp`) is written first, in Argo CD's namespace: without it Argo CD's repo
//! server pulls over HTTPS.
//!
//! What Argo CD cannot be told is said in [`Compiled::notes`](crate::Compiled): `readyWhen`
//! (Argo CD's health checks are per kind for a whole Argo CD instance, `argocd-cm`'s
//! `resource.customizations.health.<group>_<kind>`, never per Application: kubepkg checks them
//! when it drives the sync), hook components, the rollback policy (Argo CD never rolls an
//! Application back by itself), and pinned digests (Argo CD pulls a Helm chart by version).

pub mod sync;

use std::collections::BTreeMap;

use kubepkg_package::Package;
use serde_json::{Map, Value, json};

pub use crate::flux::ChartRef;
use crate::{CompileError, Compiled};

/// The API version of `Application`.
pub const APPLICATION_API: &str = "argoproj.io/v1alpha1";
/// The cluster Argo CD runs in, as Argo CD names it.
pub const IN_CLUSTER: &str = "https://kubernetes.default.svc";
/// The annotation carrying kubepkg's order.
pub const SYNC_WAVE: &str = "argocd.argoproj.io/sync-wave";
/// The finalizer that makes an Application's deletion delete its objects.
pub const RESOURCES_FINALIZER: &str = "resources-finalizer.argocd.argoproj.io";
/// The label that makes a Secret one of Argo CD's repositories.
pub const SECRET_TYPE_LABEL: &str = "argocd.argoproj.io/secret-type";

/// How to compile.
#[derive(Debug, Clone)]
pub struct Options {
    /// The package instance name (`kubepkg apply NAME`).
    pub instance: String,
    /// The package's namespace: releases default to it.
    pub namespace: String,
    /// Where the Applications (and the repository Secret) live: Argo CD's namespace, or one of
    /// its `--application-namespaces`.
    pub argocd_namespace: String,
    /// The AppProject of the Applications.
    pub project: String,
    /// `oci://HOST/PATH`: the charts are at `<repository>/<chart name>`.
    pub repository: String,
    /// The registry is plain HTTP (a repository Secret with `insecureOCIForceHttp`).
    pub insecure: bool,
}

/// The Argo CD objects of `package`: `values` are each component's values as kubepkg supplies
/// them to its chart (`kubepkg_package::values::supplied`), `charts` each component's chart.
pub fn compile(
    package: &Package,
    values: &BTreeMap<String, Map<String, Value>>,
    charts: &BTreeMap<String, ChartRef>,
    opts: &Options,
) -> Result<Compiled, CompileError> {
    let repository = repo_url(&opts.repository)?;
    let order = kubepkg_package::graph::order(&package.components);
    let mut compiled = Compiled::default();
    if package.meta.rollback_safe == Some(true) {
        compiled.notes.push(
            "rollback.safe: Argo CD never rolls an Application back by itself; only kubepkg \
             driving the upgrade can sync the previous version's chart and values when it fails"
                .to_string(),
        );
    }
    for hook in order.hooks.iter().chain(&order.rollback_hooks) {
        compiled.notes.push(format!(
            "{hook}: a hook component runs only when kubepkg drives the change (kubepkg apply); \
             Argo CD has no step that runs once before an upgrade"
        ));
    }
    if charts.values().any(|c| c.digest.is_some()) {
        compiled.notes.push(
            "Argo CD pulls a Helm chart by its version (targetRevision), not by digest: the \
             pushed digests are not pinned"
                .to_string(),
        );
    }
    if opts.insecure {
        compiled
            .objects
            .push(repository_secret(package, repository, opts));
    }
    for name in &order.components {
        let Some(component) = package.component(name) else {
            continue;
        };
        let chart = charts
            .get(name)
            .ok_or_else(|| CompileError::UnknownChart(name.clone()))?;
        for r in &component.ready_when {
            compiled.notes.push(format!(
                "{name}: readyWhen {} {} {}={} is checked by kubepkg only (when it drives the \
                 sync): Argo CD's health checks are per kind for a whole Argo CD instance, not per Application",
                r.kind, r.name, r.condition, r.status
            ));
        }
        compiled.objects.push(component_application(
            package,
            name,
            values.get(name).cloned().unwrap_or_default(),
            chart,
            opts,
        )?);
    }
    Ok(compiled)
}

/// One component's `Application`, exactly as [`compile`] writes it (its sync wave its position
/// in kubepkg's order; a hook component, which `compile` leaves out, gets wave 0): the form the
/// engine's Argo CD backend applies, one component at a time.
pub fn component_application(
    package: &Package,
    component: &str,
    values: Map<String, Value>,
    chart: &ChartRef,
    opts: &Options,
) -> Result<Value, CompileError> {
    let repository = repo_url(&opts.repository)?;
    let order = kubepkg_package::graph::order(&package.components);
    let wave = order
        .components
        .iter()
        .position(|c| c == component)
        .unwrap_or(0);
    let release = package.release_name(&opts.instance, component);
    let release_namespace = package
        .component(component)
        .map_or(opts.namespace.as_str(), |c| c.namespace_or(&opts.namespace));
    Ok(application(Application {
        package,
        release: &release,
        release_namespace,
        repository,
        chart,
        values,
        wave,
        opts,
    }))
}

/// The repository Secret [`compile`] writes for a plain-HTTP registry (`None` otherwise).
pub fn repository_secret_object(
    package: &Package,
    opts: &Options,
) -> Result<Option<Value>, CompileError> {
    let repository = repo_url(&opts.repository)?;
    Ok(opts
        .insecure
        .then(|| repository_secret(package, repository, opts)))
}

/// `oci://HOST/PATH` as Argo CD's `repoURL` of an OCI Helm repository: `HOST/PATH`.
pub fn repo_url(repository: &str) -> Result<&str, CompileError> {
    repository
        .strip_prefix("oci://")
        .map(|r| r.trim_end_matches('/'))
        .filter(|r| !r.is_empty())
        .ok_or_else(|| CompileError::NotOciForArgoCd(repository.to_string()))
}

fn labels(package: &Package, opts: &Options) -> Value {
    json!({
        "app.kubernetes.io/managed-by": "kubepkg",
        "kubepkg.dev/package": opts.instance,
        "kubepkg.dev/version": package.meta.version.to_string(),
    })
}

/// The name of the repository Secret of a package instance.
pub fn repository_secret_name(instance: &str) -> String {
    format!("{instance}-charts")
}

fn repository_secret(package: &Package, repository: &str, opts: &Options) -> Value {
    let mut labels = labels(package, opts);
    labels[SECRET_TYPE_LABEL] = "repository".into();
    let name = repository_secret_name(&opts.instance);
    json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": { "name": name, "namespace": opts.argocd_namespace, "labels": labels },
        "stringData": {
            "name": name,
            "type": "helm",
            "url": repository,
            "enableOCI": "true",
            "insecureOCIForceHttp": "true",
        },
    })
}

struct Application<'a> {
    package: &'a Package,
    release: &'a str,
    release_namespace: &'a str,
    repository: &'a str,
    chart: &'a ChartRef,
    values: Map<String, Value>,
    wave: usize,
    opts: &'a Options,
}

fn application(a: Application<'_>) -> Value {
    let mut helm = json!({ "releaseName": a.release });
    if !a.values.is_empty() {
        helm["valuesObject"] = Value::Object(a.values);
    }
    let mut spec = json!({
        "project": a.opts.project,
        "source": {
            "repoURL": a.repository,
            "chart": a.chart.name,
            "targetRevision": a.chart.version,
            "helm": helm,
        },
        "destination": { "server": IN_CLUSTER, "namespace": a.release_namespace },
    });
    if a.release_namespace != a.opts.namespace {
        spec["syncPolicy"] = json!({ "syncOptions": ["CreateNamespace=true"] });
    }
    json!({
        "apiVersion": APPLICATION_API,
        "kind": "Application",
        "metadata": {
            "name": a.release,
            "namespace": a.opts.argocd_namespace,
            "labels": labels(a.package, a.opts),
            "annotations": { SYNC_WAVE: a.wave.to_string() },
            "finalizers": [RESOURCES_FINALIZER],
        },
        "spec": spec,
    })
}

#[cfg(test)]
mod tests;
