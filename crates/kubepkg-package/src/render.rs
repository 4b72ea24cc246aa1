//! The one render path of kubepkg: [`render_component`] renders a component exactly as apply
//! installs it, and `plan` calls the same function, so what `plan` shows is what apply sends.
//!
//! A component is rendered as Helm renders a release: its chart with the values kubepkg gives
//! it ([`kubepkg_model::values::supplied`]: package defaults, user values and, for hooks and
//! `upgradeContext` components, `kubepkg.*`), `.Release.Revision` the release's next revision
//! (`.Release.IsUpgrade` when it has one), and the `.Capabilities` the caller passes — the
//! server's when there is a cluster, Helm's offline defaults otherwise. The chart's `crds/` are
//! kept apart (apply installs them first). [`render_chart`] is the same for a bare chart (the
//! `install`/`upgrade` verbs).
//!
//! [`render_package`] renders every component in apply order for a plan; the API versions of
//! every CRD an earlier component renders are added to the capabilities of the later ones
//! (apply asks the server again after each component), so `.Capabilities.APIVersions.Has
//! "kubevirt.io/v1"` holds in the chart that creates the KubeVirt object although no cluster
//! has that CRD yet (docs/rules.md#plan).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use kubepkg_chart::manifest::Hook;
use kubepkg_chart::objects::{Capabilities, VersionSet};
use kubepkg_chart::postrender::PostRenderers;
use serde::Deserialize;
use serde_json::{Map, Value};

use kubepkg_model::chart_adapter::{from_chart_value, to_chart_value};
use kubepkg_model::graph;
use kubepkg_model::manifest::{ChartSource, Package};
use kubepkg_model::values::{UserValues, supplied, upgrade_context};

use crate::orchestrator::ComponentApply;
use crate::plan::{RenderedComponent, RenderedObject, objects_from_manifest};

/// A component that could not be rendered: which component and chart, and why (the source).
#[derive(Debug, thiserror::Error)]
#[error("component {component:?} (chart {chart}): {source}")]
pub struct RenderError {
    pub component: String,
    pub chart: String,
    #[source]
    pub source: RenderFailure,
}

/// Why a component could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderFailure {
    /// The package has no component of that name.
    #[error("no such component")]
    NoSuchComponent,
    /// A `chart: {repository, …}` component whose chart was not fetched (the CLI fetches it by
    /// `kubepkg.lock`; the controller does not fetch from chart repositories yet).
    #[error(
        "chart {name} ({version}) of {repository} is not fetched: the kubepkg CLI fetches it by kubepkg.lock (`kubepkg package lock` writes it); vendor the chart into the package (`path:`) for the controller"
    )]
    NotFetched {
        repository: String,
        name: String,
        version: String,
    },
    /// The chart could not be loaded or rendered (the chart layer's error, without the path).
    #[error(transparent)]
    Chart(kubepkg_chart::ChartError),
    /// The rendered manifest does not read as Kubernetes objects.
    #[error(transparent)]
    Objects(kubepkg_manifest::ManifestError),
}

/// A chart that could not be loaded or rendered. The message names the chart; the chart
/// layer's error is the [`source`](std::error::Error::source) (error reporters print both,
/// as `chart <path>: <what went wrong>`).
#[derive(Debug, thiserror::Error)]
pub enum ChartRenderError {
    /// The chart could not be loaded (path, Chart.yaml, archive).
    #[error("chart {chart}")]
    Load {
        chart: String,
        #[source]
        source: kubepkg_chart::ChartError,
    },
    /// Rendering failed (template error, schema, kubeVersion, capabilities).
    #[error("chart {chart}")]
    Render {
        chart: String,
        #[source]
        source: kubepkg_chart::ChartError,
    },
}

impl ChartRenderError {
    /// The chart layer's error (what went wrong, without the chart's path).
    pub fn chart_error(&self) -> &kubepkg_chart::ChartError {
        match self {
            ChartRenderError::Load { source, .. } | ChartRenderError::Render { source, .. } => {
                source
            }
        }
    }

    /// The chart layer's error, owned.
    pub fn into_chart_error(self) -> kubepkg_chart::ChartError {
        match self {
            ChartRenderError::Load { source, .. } | ChartRenderError::Render { source, .. } => {
                source
            }
        }
    }
}

/// What to render a chart as: the release, its namespace and the revision it would become.
#[derive(Debug, Clone, Copy)]
pub struct ReleaseTarget<'a> {
    pub release: &'a str,
    pub namespace: &'a str,
    /// The latest stored revision of the release (`None`: a first install).
    /// `.Release.Revision` is the next one and `.Release.IsUpgrade` is set when there is one.
    pub last_revision: Option<u64>,
    /// What post-renders the manifests ([`kubepkg_chart::postrender`]).
    pub post_renderers: &'a PostRenderers,
}

/// A rendered chart: what apply installs and what plan shows.
#[derive(Debug, Clone)]
pub struct RenderedChart {
    /// The chart as loaded (before dependency processing): what a release record keeps.
    pub chart: kubepkg_chart::Chart,
    /// `crds/` documents (of the chart and its subcharts) as one multi-document manifest,
    /// each after `---` and `# Source:` (empty if none).
    pub crds: String,
    /// The release manifest (plain objects, sorted in Helm's install order).
    pub manifest: String,
    /// The chart's hooks.
    pub hooks: Vec<Hook>,
    pub notes: String,
}

impl RenderedChart {
    /// `name-version` of the chart.
    pub fn chart_id(&self) -> String {
        format!(
            "{}-{}",
            self.chart.metadata.name, self.chart.metadata.version
        )
    }

    /// Every object it renders (CRDs, then the manifest, then hooks), through the one
    /// manifest → objects conversion.
    pub fn objects(&self) -> Result<Vec<RenderedObject>, kubepkg_manifest::ManifestError> {
        let mut objects = objects_from_manifest(&self.crds)?;
        objects.extend(objects_from_manifest(&self.manifest)?);
        for h in &self.hooks {
            objects.extend(objects_from_manifest(&h.manifest)?);
        }
        Ok(objects)
    }
}

/// Loads `chart_path` and renders it for `target` with user-supplied `values`: the chart
/// render of every release kubepkg installs or plans ([`LoadedChart::load`] then
/// [`LoadedChart::render`]). `defaults`, when given, replace the chart's default values (Helm's
/// `upgrade --reuse-values` renders the new chart with the previous release's values as its
/// defaults).
pub fn render_chart(
    chart_path: &Path,
    target: ReleaseTarget<'_>,
    values: &Map<String, Value>,
    defaults: Option<&Map<String, Value>>,
    caps: &Capabilities,
) -> Result<RenderedChart, ChartRenderError> {
    LoadedChart::load(chart_path)?.render(target, values, defaults, caps)
}

/// A chart loaded once and rendered any number of times: the in-process render API, for a
/// process that renders many releases of many charts (the controller keeps one per chart).
///
/// Loading reads and decodes the chart tree (`Chart.yaml`, values, templates, files, `crds/`);
/// a render shares all of it (file contents, default values and parsed templates are
/// reference-counted, and each template file is parsed once per loaded chart, on its first
/// render) and does only the per-release work: dependency conditions, coalescing, the schema
/// check (compiled schemas are cached per process), executing the templates and sorting the
/// manifest. Every render of kubepkg goes through [`LoadedChart::render`]
/// ([`render_chart`] loads and renders once). `bench/render-api.sh` measures it.
#[derive(Debug, Clone)]
pub struct LoadedChart {
    path: std::path::PathBuf,
    chart: kubepkg_chart::Chart,
    crds: String,
}

impl LoadedChart {
    /// Loads the chart directory or archive at `chart_path`.
    pub fn load(chart_path: &Path) -> Result<Self, ChartRenderError> {
        let chart =
            kubepkg_chart::chart::load_with_local_dependencies(chart_path).map_err(|source| {
                ChartRenderError::Load {
                    chart: chart_path.display().to_string(),
                    source,
                }
            })?;
        let crds: String = chart
            .crd_objects(chart.name())
            .into_iter()
            .map(|(n, d)| format!("---\n# Source: {n}\n{}\n", String::from_utf8_lossy(&d)))
            .collect();
        Ok(LoadedChart {
            path: chart_path.to_path_buf(),
            chart,
            crds,
        })
    }

    /// The chart as loaded.
    pub fn chart(&self) -> &kubepkg_chart::Chart {
        &self.chart
    }

    /// Renders the chart for `target` with user-supplied `values`, the chart's default values
    /// replaced by `defaults` when given (see [`render_chart`]).
    pub fn render(
        &self,
        target: ReleaseTarget<'_>,
        values: &Map<String, Value>,
        defaults: Option<&Map<String, Value>>,
        caps: &Capabilities,
    ) -> Result<RenderedChart, ChartRenderError> {
        let mut chart = self.chart.clone();
        if let Some(defaults) = defaults {
            chart.values = to_chart_value(&Value::Object(defaults.clone()));
        }
        let opts = kubepkg_chart::TemplateOptions {
            release_name: target.release.to_string(),
            chart: self.path.clone(),
            namespace: target.namespace.to_string(),
            is_upgrade: target.last_revision.is_some(),
            revision: Some(target.last_revision.map_or(1, |r| r as i64 + 1)),
            post_renderers: target.post_renderers.clone(),
            ..Default::default()
        };
        let user = to_chart_value(&Value::Object(values.clone()));
        let out =
            kubepkg_chart::render_release(chart.clone(), &user, &opts, caps).map_err(|source| {
                ChartRenderError::Render {
                    chart: self.path.display().to_string(),
                    source,
                }
            })?;
        Ok(RenderedChart {
            chart,
            crds: self.crds.clone(),
            manifest: out.manifest,
            hooks: out.hooks,
            notes: out.notes,
        })
    }
}

/// Renders one component as apply installs it: `request` is what the orchestrator asks the
/// cluster to apply (release, namespace, chart, supplied values), `last_revision` the
/// release's latest stored revision (`None` for a first install and for a hook, which is
/// always installed afresh).
pub fn render_component(
    request: &ComponentApply,
    caps: &Capabilities,
    last_revision: Option<u64>,
) -> Result<RenderedChart, RenderError> {
    let target = ReleaseTarget {
        release: &request.release,
        namespace: &request.namespace,
        last_revision,
        post_renderers: &request.post_renderers,
    };
    not_fetched(&request.component, &request.chart)?;
    render_chart(request.chart.path(), target, &request.values, None, caps).map_err(|e| {
        RenderError {
            component: request.component.clone(),
            chart: chart_label(&request.chart),
            source: RenderFailure::Chart(e.into_chart_error()),
        }
    })
}

/// What the render needs beyond the package.
#[derive(Debug, Clone)]
pub struct RenderInput<'a> {
    /// Package instance name (release names derive from it).
    pub name: &'a str,
    /// Package namespace (default for components).
    pub namespace: &'a str,
    pub user: Option<&'a UserValues>,
    /// The deployed revision's version (`kubepkg.fromVersion`), if any.
    pub from_version: Option<&'a kubepkg_semver::Version>,
    /// Each component's effective values in the deployed revision (`kubepkg.previous`).
    pub previous_values: Option<&'a BTreeMap<String, Map<String, Value>>>,
    /// Each component's release's latest stored revision (by component name); a component
    /// missing here is a first install.
    pub last_revisions: BTreeMap<String, u64>,
    /// `.Capabilities` before the first component.
    pub capabilities: Capabilities,
}

impl<'a> RenderInput<'a> {
    /// A first install of `name` in `namespace`, rendered with `capabilities`.
    pub fn new(name: &'a str, namespace: &'a str, capabilities: Capabilities) -> Self {
        RenderInput {
            name,
            namespace,
            user: None,
            from_version: None,
            previous_values: None,
            last_revisions: BTreeMap::new(),
            capabilities,
        }
    }
}

fn chart_label(source: &ChartSource) -> String {
    match source {
        ChartSource::Repository(r) => format!("{}/{}", r.repository.trim_end_matches('/'), r.name),
        other => other.path().display().to_string(),
    }
}

/// A repository chart that was not fetched is an error naming it, not a missing path.
fn not_fetched(component: &str, source: &ChartSource) -> Result<(), RenderError> {
    match source {
        ChartSource::Repository(r) => Err(RenderError {
            component: component.to_string(),
            chart: chart_label(source),
            source: RenderFailure::NotFetched {
                repository: r.repository.clone(),
                name: r.name.clone(),
                version: r.version.clone(),
            },
        }),
        _ => Ok(()),
    }
}

/// Loads a component's chart.
pub fn load_chart(package: &Package, component: &str) -> Result<kubepkg_chart::Chart, RenderError> {
    let c = package.component(component).ok_or_else(|| RenderError {
        component: component.to_string(),
        chart: String::new(),
        source: RenderFailure::NoSuchComponent,
    })?;
    not_fetched(component, &c.chart)?;
    kubepkg_chart::chart::load_with_local_dependencies(c.chart.path()).map_err(|e| RenderError {
        component: component.to_string(),
        chart: chart_label(&c.chart),
        source: RenderFailure::Chart(e),
    })
}

/// A component's chart defaults (`values.yaml`) as JSON, for [`kubepkg_model::values::effective`].
pub fn chart_defaults(
    package: &Package,
    component: &str,
) -> Result<Map<String, Value>, RenderError> {
    let chart = load_chart(package, component)?;
    Ok(match from_chart_value(&chart.values) {
        Value::Object(m) => m,
        _ => Map::new(),
    })
}

/// What apply would ask the cluster to install for `component` (hooks included): the same
/// request the orchestrator builds.
pub fn component_request(
    package: &Package,
    input: &RenderInput<'_>,
    component: &str,
) -> Option<ComponentApply> {
    let empty_user = UserValues::new();
    let user = input.user.unwrap_or(&empty_user);
    let c = package.component(component)?;
    let ctx = c.gets_upgrade_context().then(|| {
        upgrade_context(
            input.from_version,
            &package.meta.version,
            input.previous_values.and_then(|p| p.get(component)),
        )
    });
    Some(ComponentApply {
        component: component.to_string(),
        release: package.release_name(input.name, component),
        namespace: c.namespace_or(input.namespace).to_string(),
        chart: c.chart.clone(),
        values: supplied(package, component, user, ctx.as_ref()),
        hook: c.is_hook(),
        post_renderers: c.post_renderers.clone(),
    })
}

/// Renders every component (hooks included) in apply order, each through
/// [`render_component`].
pub fn render_package(
    package: &Package,
    input: &RenderInput<'_>,
) -> Result<BTreeMap<String, RenderedComponent>, RenderError> {
    let order = graph::order(&package.components);
    let mut caps = input.capabilities.clone();
    let mut out = BTreeMap::new();
    for name in order
        .hooks
        .iter()
        .chain(&order.rollback_hooks)
        .chain(order.components.iter())
    {
        let Some(request) = component_request(package, input, name) else {
            continue;
        };
        let last = if request.hook {
            None
        } else {
            input.last_revisions.get(name).copied()
        };
        let rendered = render_component(&request, &caps, last)?;
        let objects = rendered.objects().map_err(|e| RenderError {
            component: name.clone(),
            chart: chart_label(&request.chart),
            source: RenderFailure::Objects(e),
        })?;
        let mut api_versions = caps.api_versions.0.as_ref().clone();
        // A server's list is sorted, and stays so when discovery finds the new CRDs.
        let sorted = api_versions.is_sorted();
        for o in &objects {
            for v in crd_api_versions(o) {
                if !api_versions.contains(&v) {
                    api_versions.push(v);
                }
            }
        }
        if sorted {
            api_versions.sort();
        }
        caps.api_versions = VersionSet(Arc::new(api_versions));
        out.insert(
            name.clone(),
            RenderedComponent {
                chart: rendered.chart_id(),
                objects,
            },
        );
    }
    Ok(out)
}

/// `group/version` and `group/version/Kind` of every served version of a rendered CRD.
pub fn crd_api_versions(o: &RenderedObject) -> Vec<String> {
    #[derive(Deserialize, Default)]
    struct Names {
        #[serde(default)]
        kind: String,
    }
    #[derive(Deserialize)]
    struct Version {
        name: String,
        #[serde(default = "yes")]
        served: bool,
    }
    fn yes() -> bool {
        true
    }
    #[derive(Deserialize)]
    struct Spec {
        #[serde(default)]
        group: String,
        #[serde(default)]
        names: Names,
        #[serde(default)]
        versions: Vec<Version>,
        #[serde(default)]
        version: Option<String>,
    }
    #[derive(Deserialize)]
    struct Crd {
        spec: Spec,
    }
    if o.kind != "CustomResourceDefinition" || !o.api_version.starts_with("apiextensions.k8s.io/") {
        return Vec::new();
    }
    let Some(crd) = kubepkg_yaml::yaml_to_json(&o.yaml)
        .ok()
        .and_then(|json| serde_json::from_str::<Crd>(&json).ok())
    else {
        return Vec::new();
    };
    let mut versions: Vec<String> = crd
        .spec
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| v.name.clone())
        .collect();
    if let Some(v) = crd.spec.version {
        versions.push(v);
    }
    let mut out = Vec::new();
    for v in versions {
        out.push(format!("{}/{v}", crd.spec.group));
        if !crd.spec.names.kind.is_empty() {
            out.push(format!("{}/{v}/{}", crd.spec.group, crd.spec.names.kind));
        }
    }
    out
}
