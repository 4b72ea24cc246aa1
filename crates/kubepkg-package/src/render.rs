//! Rendering a package's components offline through the chart layer (`kubepkg-chart`).
//!
//! Each component is rendered as `helm template` renders its chart, with the values kubepkg
//! gives it ([`crate::values::supplied`]: package defaults, user values and, for hooks and
//! `upgradeContext` components, `kubepkg.*`). Components are rendered in apply order, and the
//! API versions of every CRD an earlier component renders are added to the capabilities of the
//! later ones, so `.Capabilities.APIVersions.Has "kubevirt.io/v1"` holds in the chart that
//! creates the KubeVirt object although no cluster has that CRD yet (docs/rules.md#plan).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::chart_adapter::{from_chart_value, to_chart_value};
use crate::graph;
use crate::manifest::{ChartSource, Package};
use crate::plan::{RenderedComponent, RenderedObject, objects_from_manifest};
use crate::values::{UserValues, supplied, upgrade_context};

/// A component that could not be rendered.
#[derive(Debug, thiserror::Error)]
#[error("component {component:?} (chart {chart}): {message}")]
pub struct RenderError {
    pub component: String,
    pub chart: String,
    pub message: String,
}

/// What the render needs beyond the package.
#[derive(Debug, Clone, Default)]
pub struct RenderInput<'a> {
    /// Package instance name (release names derive from it).
    pub name: &'a str,
    /// Package namespace (default for components).
    pub namespace: &'a str,
    pub user: Option<&'a UserValues>,
    /// The deployed revision's version (`kubepkg.fromVersion`), if any.
    pub from_version: Option<&'a semver::Version>,
    /// Each component's effective values in the deployed revision (`kubepkg.previous`).
    pub previous_values: Option<&'a BTreeMap<String, Map<String, Value>>>,
    /// Whether this is an upgrade (`.Release.IsUpgrade`).
    pub is_upgrade: bool,
    /// `--kube-version`, as `helm template` takes it.
    pub kube_version: Option<String>,
    /// Extra API versions (`--api-versions`).
    pub api_versions: Vec<String>,
}

fn chart_label(source: &ChartSource) -> String {
    source.path().display().to_string()
}

/// Loads a component's chart.
pub fn load_chart(package: &Package, component: &str) -> Result<kubepkg_chart::Chart, RenderError> {
    let c = package.component(component).ok_or_else(|| RenderError {
        component: component.to_string(),
        chart: String::new(),
        message: "no such component".into(),
    })?;
    kubepkg_chart::load(c.chart.path()).map_err(|e| RenderError {
        component: component.to_string(),
        chart: chart_label(&c.chart),
        message: e.to_string(),
    })
}

/// A component's chart defaults (`values.yaml`) as JSON, for [`crate::values::effective`].
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

/// Renders every component (hooks included) in apply order.
pub fn render_package(
    package: &Package,
    input: &RenderInput<'_>,
) -> Result<BTreeMap<String, RenderedComponent>, RenderError> {
    let empty_user = UserValues::new();
    let user = input.user.unwrap_or(&empty_user);
    let order = graph::order(&package.components);
    let mut extra_api = input.api_versions.clone();
    let mut out = BTreeMap::new();
    for name in order.hooks.iter().chain(order.components.iter()) {
        let Some(c) = package.component(name) else {
            continue;
        };
        let err = |message: String| RenderError {
            component: name.clone(),
            chart: chart_label(&c.chart),
            message,
        };
        let ctx = c.gets_upgrade_context().then(|| {
            upgrade_context(
                input.from_version,
                &package.meta.version,
                input.previous_values.and_then(|p| p.get(name)),
            )
        });
        let values = supplied(package, name, user, ctx.as_ref());
        let chart = load_chart(package, name)?;
        let chart_id = format!("{}-{}", chart.metadata.name, chart.metadata.version);
        let kube_version = match &input.kube_version {
            None => None,
            Some(v) => Some(
                kubepkg_chart::objects::KubeVersion::parse(v)
                    .map_err(|e| err(format!("invalid kube version {v:?}: {e}")))?,
            ),
        };
        let caps = kubepkg_chart::objects::Capabilities::new(kube_version, &extra_api);
        let opts = kubepkg_chart::TemplateOptions {
            release_name: package.release_name(input.name, name),
            namespace: c.namespace_or(input.namespace).to_string(),
            include_crds: true,
            is_upgrade: input.is_upgrade,
            ..Default::default()
        };
        let user_value = to_chart_value(&Value::Object(values));
        let rendered = kubepkg_chart::render_release(chart, &user_value, &opts, &caps)
            .map_err(|e| err(e.to_string()))?;
        let mut objects = objects_from_manifest(&rendered.manifest);
        for h in &rendered.hooks {
            objects.extend(objects_from_manifest(&h.manifest));
        }
        for o in &objects {
            extra_api.extend(crd_api_versions(o));
        }
        out.insert(
            name.clone(),
            RenderedComponent {
                chart: chart_id,
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
    let Ok(crd) = serde_saphyr::from_str::<Crd>(&o.yaml) else {
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
