//! A component's chart rendered into what the release layer installs: the chart as Helm
//! records it in a release, the user-supplied values, the manifest, the chart's hooks, its
//! notes and its `crds/` documents.
//!
//! Rendering itself belongs to `kubepkg-chart`; this module only converts its output into
//! `kubepkg-release`'s [`Rendered`] (the same conversion the `install` verb makes for a
//! plain chart).

use std::path::Path;

use kubepkg_chart::objects::{Capabilities, KubeVersion};
use kubepkg_package::chart_adapter::{from_chart_value, to_chart_value};
use kubepkg_release::action::Rendered;
use kubepkg_release::record;
use serde_json::{Map, Value};

use crate::error::EngineError;

/// A chart ready to install: the release payload and the chart's CRDs (`crds/`).
#[derive(Debug, Clone)]
pub struct ComponentRelease {
    pub rendered: Rendered,
    /// `crds/` documents as one multi-document manifest (empty if none).
    pub crds: String,
}

/// What the cluster reports about itself, for `.Capabilities`.
#[derive(Debug, Clone, Default)]
pub struct ClusterCapabilities {
    /// `v1.37.2`; `None` uses the chart layer's default.
    pub kube_version: Option<String>,
    /// Every `group/version` and `group/version/Kind` served.
    pub api_versions: Vec<String>,
}

/// Renders `chart_path` for release `release` in `namespace` with user-supplied `config`.
pub fn render(
    component: &str,
    chart_path: &Path,
    release: &str,
    namespace: &str,
    config: &Map<String, Value>,
    last_revision: Option<u64>,
    caps: &ClusterCapabilities,
) -> Result<ComponentRelease, EngineError> {
    let is_upgrade = last_revision.is_some();
    let err = |message: String| EngineError::Render {
        component: component.to_string(),
        chart: chart_path.display().to_string(),
        message,
    };
    let chart = kubepkg_chart::load(chart_path).map_err(|e| err(e.to_string()))?;
    let record_chart = record_chart(&chart);
    let crds: String = chart
        .crd_objects(chart.name())
        .into_iter()
        .map(|(n, d)| format!("---\n# Source: {n}\n{}\n", String::from_utf8_lossy(&d)))
        .collect();
    let kube_version = match &caps.kube_version {
        Some(v) => {
            Some(KubeVersion::parse(v).map_err(|e| err(format!("cluster version {v:?}: {e}")))?)
        }
        None => None,
    };
    let capabilities = Capabilities::new(kube_version, &caps.api_versions);
    let opts = kubepkg_chart::TemplateOptions {
        release_name: release.to_string(),
        chart: chart_path.to_path_buf(),
        namespace: namespace.to_string(),
        is_upgrade,
        revision: Some(last_revision.map_or(1, |r| r as i64 + 1)),
        ..Default::default()
    };
    let user = to_chart_value(&Value::Object(config.clone()));
    let out = kubepkg_chart::render_release(chart, &user, &opts, &capabilities)
        .map_err(|e| err(e.to_string()))?;
    let hooks = out
        .hooks
        .into_iter()
        .map(|h| record::Hook {
            name: h.name,
            kind: h.kind,
            path: h.path,
            manifest: h.manifest,
            events: h
                .events
                .iter()
                .filter_map(|e| record::HookEvent::from_annotation(e))
                .collect(),
            weight: h.weight,
            delete_policies: h
                .delete_policies
                .iter()
                .map(|p| record::HookDeletePolicy::parse(p))
                .collect(),
            output_log_policies: h
                .output_log_policies
                .iter()
                .map(|p| record::HookOutputLogPolicy::parse(p))
                .collect(),
            ..Default::default()
        })
        .collect();
    Ok(ComponentRelease {
        rendered: Rendered {
            chart: record_chart,
            config: config.clone(),
            manifest: out.manifest,
            hooks,
            notes: out.notes,
        },
        crds,
    })
}

fn object(v: &kubepkg_value::Value) -> Map<String, Value> {
    match from_chart_value(v) {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The chart as Helm stores it in a release (the top chart; Helm drops subchart bodies too).
pub fn record_chart(c: &kubepkg_chart::Chart) -> record::Chart {
    let m = &c.metadata;
    let dep = |d: &kubepkg_chart::metadata::Dependency| record::Dependency {
        name: d.name.clone(),
        version: d.version.clone(),
        repository: d.repository.clone(),
        condition: d.condition.clone(),
        tags: d.tags.clone(),
        enabled: d.enabled,
        import_values: d.import_values.iter().map(from_chart_value).collect(),
        alias: d.alias.clone(),
        extra: Map::new(),
    };
    let metadata = record::Metadata {
        name: m.name.clone(),
        home: m.home.clone(),
        sources: m.sources.clone(),
        version: m.version.clone(),
        description: m.description.clone(),
        keywords: m.keywords.clone(),
        maintainers: m
            .maintainers
            .iter()
            .flatten()
            .map(|x| record::Maintainer {
                name: x.name.clone(),
                email: x.email.clone(),
                url: x.url.clone(),
            })
            .collect(),
        icon: m.icon.clone(),
        api_version: m.api_version.clone(),
        condition: m.condition.clone(),
        tags: m.tags.clone(),
        app_version: m.app_version.clone(),
        deprecated: m.deprecated,
        annotations: m.annotations.clone().unwrap_or_default(),
        kube_version: m.kube_version.clone(),
        dependencies: m.dependencies.iter().flatten().map(dep).collect(),
        chart_type: m.chart_type.clone(),
        extra: Map::new(),
    };
    let lock = c.lock.as_ref().map(|l| record::Lock {
        generated: Value::String(l.generated.clone()),
        digest: l.digest.clone(),
        dependencies: Some(l.dependencies.iter().flatten().map(dep).collect()),
    });
    let file = |f: &kubepkg_chart::ChartFile| record::File {
        name: f.name.clone(),
        data: f.data.to_vec(),
        modtime: None,
    };
    record::Chart {
        metadata: Some(metadata),
        lock,
        templates: Some(c.templates.iter().map(file).collect()),
        values: Some(object(&c.values)),
        schema: c.schema.as_ref().map(|s| s.to_vec()),
        files: Some(c.files.iter().map(file).collect()),
        ..Default::default()
    }
}
