//! Flux: an `OCIRepository` (`source.toolkit.fluxcd.io/v1`) and a `HelmRelease`
//! (`helm.toolkit.fluxcd.io/v2`) per component, named after the component's release
//! (`<instance>-<component>`), in the package's namespace. Field names and meanings are those
//! of Flux's API types (source-controller v1.9 and helm-controller v1.6):
//!
//! - the source pulls the chart from `<repository>/<chart name>` at the chart's version as the
//!   tag, or at a digest when the charts were pushed by kubepkg and the digests are known, with
//!   Helm's chart layer selected (`layerSelector`);
//! - `spec.dependsOn` is the component before it in kubepkg's order, so helm-controller
//!   reconciles them one at a time, each after the previous one is Ready;
//! - `spec.healthCheckExprs`: the component's `readyWhen`, one entry per apiVersion and kind,
//!   its `current` expression true when every named object of that kind has the condition with
//!   the status (`metadata.name != 'x' || …` leaves the other objects of the kind alone); Flux
//!   also waits for the release's own objects as kstatus says, as kubepkg does;
//! - remediation: `rollback.safe: true` (without a `rollback.to` floor, which Flux cannot
//!   check) lets helm-controller roll a failed upgrade back once (`strategy: rollback`); otherwise no upgrade remediation and no retries — a failed
//!   version stays failed until it is fixed forward, as `kubepkg apply` leaves it.

use std::collections::BTreeMap;
use std::time::Duration;

use kubepkg_model::Package;
use kubepkg_model::manifest::ReadyCondition;
use serde_json::{Map, Value, json};

use crate::{CompileError, Compiled};

/// The API versions written.
pub const HELM_RELEASE_API: &str = "helm.toolkit.fluxcd.io/v2";
pub const OCI_REPOSITORY_API: &str = "source.toolkit.fluxcd.io/v1";
/// Helm's chart layer, which the source hands helm-controller.
pub const CHART_LAYER: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";

/// A component's chart as the source names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartRef {
    pub name: String,
    pub version: String,
    /// `sha256:…` of the pushed chart's manifest, when known (pins the source to it).
    pub digest: Option<String>,
}

/// How to compile.
#[derive(Debug, Clone)]
pub struct Options {
    /// The package instance name (`kubepkg apply NAME`).
    pub instance: String,
    /// Where the Flux objects live (the package's namespace); releases default to it.
    pub namespace: String,
    /// `oci://HOST/PATH`: the charts are at `<repository>/<chart name>`.
    pub repository: String,
    /// The registry is plain HTTP (`spec.insecure`).
    pub insecure: bool,
    /// A `kubernetes.io/dockerconfigjson` Secret of the namespace with the registry's
    /// credentials (the source's `spec.secretRef`).
    pub secret_ref: Option<String>,
    /// How often Flux re-checks sources and releases.
    pub interval: Duration,
    /// Each release's `spec.timeout` (kubepkg's per-component timeout).
    pub timeout: Duration,
    /// kubepkg drives the objects (`backend: flux`): it decides rollbacks itself
    /// (`kubepkg_package::rollback_policy::on_failure`, after undoing every component the
    /// upgrade changed), so helm-controller gets no remediation of its own and no retries.
    pub driven: bool,
    /// The ServiceAccount (of the namespace) helm-controller applies each release as
    /// (`spec.serviceAccountName`): the identity kubepkg itself acts as for the package, so a
    /// tenant's Flux releases get no more than the tenant.
    pub service_account: Option<String>,
}

/// The Flux objects of `package`: `values` are each component's values as kubepkg supplies
/// them to its chart (`kubepkg_model::values::supplied`), `charts` each component's chart.
pub fn compile(
    package: &Package,
    values: &BTreeMap<String, Map<String, Value>>,
    charts: &BTreeMap<String, ChartRef>,
    opts: &Options,
) -> Result<Compiled, CompileError> {
    if !opts.repository.starts_with("oci://") {
        return Err(CompileError::NotOci(opts.repository.clone()));
    }
    let order = kubepkg_model::graph::order(&package.components);
    let mut compiled = Compiled::default();
    if package.meta.rollback_to.is_some() {
        compiled.notes.push(
            "rollback.to: Flux rolls a failed upgrade back to the release's previous revision \
             whatever its version, so no HelmRelease gets rollback remediation (a failed version \
             stays failed, as with rollback.safe: false)"
                .to_string(),
        );
    }
    for hook in order.hooks.iter().chain(&order.rollback_hooks) {
        compiled.notes.push(format!(
            "{hook}: a hook component runs only when kubepkg drives the change (kubepkg apply); \
             Flux has no step that runs once before an upgrade"
        ));
    }
    let mut previous: Option<String> = None;
    for entry in crate::charted_components(package, &order, charts) {
        let (component, chart) = entry?;
        let name = &component.name;
        let objects = component_objects(
            package,
            &component.name,
            values.get(name).cloned().unwrap_or_default(),
            chart,
            previous.as_deref(),
            opts,
        )?;
        previous = Some(objects.release_name().to_string());
        compiled.objects.push(objects.source);
        compiled.objects.push(objects.release);
    }
    Ok(compiled)
}

/// Whether every component of `package` (hooks too) can be told to Flux: the chart
/// repository is an `oci://` URL and each `readyWhen` is one Flux evaluates. What kubepkg
/// checks before it drives anything.
pub fn check(package: &Package, opts: &Options) -> Result<(), CompileError> {
    if !opts.repository.starts_with("oci://") {
        return Err(CompileError::NotOci(opts.repository.clone()));
    }
    for c in &package.components {
        let release_namespace = c.namespace_or(&opts.namespace);
        health_checks(&c.name, &c.ready_when, release_namespace)?;
        crate::flux_post_renderers(c)?;
    }
    Ok(())
}

/// One component's two objects (what [`compile`] writes for it, and what kubepkg applies for
/// it when it drives Flux).
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentObjects {
    /// The `OCIRepository` of its chart.
    pub source: Value,
    /// Its `HelmRelease`.
    pub release: Value,
}

impl ComponentObjects {
    /// The name both objects have (the component's release).
    pub fn release_name(&self) -> &str {
        self.release["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
    }
}

/// The `OCIRepository` and `HelmRelease` of component `name` of `package` (a hook component
/// too: kubepkg runs hooks as HelmReleases when it drives Flux): `values` are what kubepkg
/// supplies to its chart, `depends_on` the release of the component before it in kubepkg's
/// order. Refused when a `readyWhen` cannot be told to Flux.
pub fn component_objects(
    package: &Package,
    name: &str,
    values: Map<String, Value>,
    chart: &ChartRef,
    depends_on: Option<&str>,
    opts: &Options,
) -> Result<ComponentObjects, CompileError> {
    let repository = opts
        .repository
        .strip_prefix("oci://")
        .map(|r| r.trim_end_matches('/'))
        .ok_or_else(|| CompileError::NotOci(opts.repository.clone()))?;
    let component = package
        .component(name)
        .ok_or_else(|| CompileError::UnknownChart(name.to_string()))?;
    let release = package.release_name(&opts.instance, name);
    let release_namespace = component.namespace_or(&opts.namespace).to_string();
    let checks = health_checks(name, &component.ready_when, &release_namespace)?;
    let post_renderers = crate::flux_post_renderers(component)?;
    Ok(ComponentObjects {
        source: source(&release, repository, chart, opts),
        release: helm_release(HelmRelease {
            package,
            release: &release,
            release_namespace: &release_namespace,
            values,
            depends_on,
            checks,
            post_renderers,
            opts,
        }),
    })
}

fn labels(package: &Package, opts: &Options) -> Value {
    json!({
        "app.kubernetes.io/managed-by": "kubepkg",
        "kubepkg.dev/package": opts.instance,
        "kubepkg.dev/version": package.meta.version.to_string(),
    })
}

fn source(release: &str, repository: &str, chart: &ChartRef, opts: &Options) -> Value {
    let reference = match &chart.digest {
        Some(d) => json!({ "digest": d }),
        None => json!({ "tag": chart.version }),
    };
    let mut spec = json!({
        "url": format!("oci://{repository}/{}", chart.name),
        "ref": reference,
        "layerSelector": { "mediaType": CHART_LAYER, "operation": "copy" },
        "interval": go_duration(opts.interval),
    });
    if opts.insecure {
        spec["insecure"] = true.into();
    }
    if let Some(secret) = &opts.secret_ref {
        spec["secretRef"] = json!({ "name": secret });
    }
    json!({
        "apiVersion": OCI_REPOSITORY_API,
        "kind": "OCIRepository",
        "metadata": { "name": release, "namespace": opts.namespace },
        "spec": spec,
    })
}

struct HelmRelease<'a> {
    package: &'a Package,
    release: &'a str,
    release_namespace: &'a str,
    values: Map<String, Value>,
    depends_on: Option<&'a str>,
    checks: Vec<Value>,
    /// The component's kustomize-style post-renderers, as Flux's `postRenderers`.
    post_renderers: Vec<Value>,
    opts: &'a Options,
}

fn helm_release(r: HelmRelease<'_>) -> Value {
    // A floor (`rollback.to`) cannot be told to Flux, which rolls back to the release's
    // previous revision whatever its version: only a plain `safe: true` lets Flux roll back.
    let safe = !r.opts.driven
        && r.package.meta.rollback_safe == Some(true)
        && r.package.meta.rollback_to.is_none();
    let upgrade = if safe {
        json!({ "remediation": { "retries": 1, "strategy": "rollback", "remediateLastFailure": true } })
    } else {
        json!({ "remediation": { "retries": 0, "remediateLastFailure": false } })
    };
    let mut spec = json!({
        "releaseName": r.release,
        "chartRef": { "kind": "OCIRepository", "name": r.release },
        "interval": go_duration(r.opts.interval),
        "timeout": go_duration(r.opts.timeout),
        "install": { "remediation": { "retries": 0 } },
        "upgrade": upgrade,
    });
    if r.release_namespace != r.opts.namespace {
        spec["targetNamespace"] = r.release_namespace.into();
        spec["storageNamespace"] = r.release_namespace.into();
        spec["install"]["createNamespace"] = true.into();
    }
    if !r.values.is_empty() {
        spec["values"] = Value::Object(r.values);
    }
    if let Some(dep) = r.depends_on {
        spec["dependsOn"] = json!([{ "name": dep }]);
    }
    if !r.checks.is_empty() {
        spec["healthCheckExprs"] = Value::Array(r.checks);
    }
    if !r.post_renderers.is_empty() {
        spec["postRenderers"] = Value::Array(r.post_renderers);
    }
    if let Some(sa) = &r.opts.service_account {
        spec["serviceAccountName"] = sa.as_str().into();
    }
    json!({
        "apiVersion": HELM_RELEASE_API,
        "kind": "HelmRelease",
        "metadata": {
            "name": r.release,
            "namespace": r.opts.namespace,
            "labels": labels(r.package, r.opts),
        },
        "spec": spec,
    })
}

/// `readyWhen` as Flux's `healthCheckExprs`: one entry per (apiVersion, kind).
fn health_checks(
    component: &str,
    ready_when: &[ReadyCondition],
    release_namespace: &str,
) -> Result<Vec<Value>, CompileError> {
    let mut by_kind: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for r in ready_when {
        if let Some(ns) = &r.namespace
            && ns != release_namespace
        {
            return Err(CompileError::ReadyWhenOutsideRelease {
                component: component.to_string(),
                kind: r.kind.clone(),
                namespace: ns.clone(),
                name: r.name.clone(),
                release_namespace: release_namespace.to_string(),
            });
        }
        by_kind
            .entry((r.api_version.clone(), r.kind.clone()))
            .or_default()
            .push(format!(
                "(metadata.name != {} || status.?conditions.orValue([]).exists(c, c.type == {} && c.status == {}))",
                cel_string(&r.name),
                cel_string(&r.condition),
                cel_string(&r.status)
            ));
    }
    Ok(by_kind
        .into_iter()
        .map(|((api_version, kind), terms)| {
            json!({ "apiVersion": api_version, "kind": kind, "current": terms.join(" && ") })
        })
        .collect())
}

/// A CEL string literal: single-quoted, with `\` and `'` escaped.
pub fn cel_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A duration as Kubernetes' `metav1.Duration` writes it: Go's `time.Duration.String`.
fn go_duration(d: Duration) -> String {
    kubepkg_gostd::time::duration_string(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests;
