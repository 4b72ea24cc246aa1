//! A chart rendered into what the release layer installs: the chart as Helm records it in a
//! release, the user-supplied values, the manifest, the chart's hooks, its notes and its
//! `crds/` documents. This is the one conversion from a chart to a release payload; the
//! package engine (per component) and the `install`/`upgrade` verbs (per chart) both use
//! [`release_payload`].
//!
//! Values cross from `serde_json` (how releases and packages keep them) to the chart
//! layer's Go values with [`to_chart_value`], which keeps Go's number types: an integer from
//! `--set` renders as `int64`, a number from a values file as `float64` (so `1000000` from
//! a file prints `1e+06`, as in Helm). Values read back from a stored release went through
//! Go's `json.Unmarshal` in Helm, so [`recorded_values`] turns their numbers into `float64`.
//!
//! `.Capabilities` come from [`ClusterCapabilities`]: the server's version and exactly the
//! API versions it serves, or Helm's offline defaults when no cluster was asked.

use std::path::Path;

use kubepkg_chart::objects::{Capabilities, KubeVersion, VersionSet};
use kubepkg_kube::discovery::ServerCapabilities;
use kubepkg_model::chart_adapter::from_chart_value;
use kubepkg_package::orchestrator::ComponentApply;
use kubepkg_package::render::{RenderedChart, render_chart, render_component};
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
    /// `v1.37.2` (the server's `gitVersion`); `None` uses Helm's default (`v1.37.0`).
    /// Helm keeps a server's gitVersion as given (`.Capabilities.KubeVersion` prints it).
    pub kube_version: Option<String>,
    /// `Major`/`Minor` as the server reports them (a provider's `minor` may be `28+`);
    /// `None` reads them from `kube_version`.
    pub kube_major_minor: Option<(String, String)>,
    /// Every `group/version` and `group/version/Kind` served. Empty: Helm's offline default
    /// set (as `helm template`); otherwise exactly these, as Helm asks a live cluster.
    pub api_versions: Vec<String>,
}

impl ClusterCapabilities {
    /// From what the server reported.
    pub fn from_server(s: ServerCapabilities) -> Self {
        ClusterCapabilities {
            kube_version: Some(s.git_version),
            kube_major_minor: Some((s.major, s.minor)),
            api_versions: s.api_versions,
        }
    }

    /// Asks the cluster (`/version` and discovery), as Helm's `getCapabilities`.
    pub async fn discover(client: &kube::Client) -> Result<Self, kubepkg_kube::KubeError> {
        Ok(Self::from_server(
            kubepkg_kube::discovery::server_capabilities(client).await?,
        ))
    }

    /// The chart layer's `.Capabilities`.
    pub fn to_chart(&self) -> Result<Capabilities, ServerVersionError> {
        let kube_version = match (&self.kube_version, &self.kube_major_minor) {
            (Some(v), Some((major, minor))) => KubeVersion {
                version: v.clone(),
                normalized: v.clone(),
                major: major.clone(),
                minor: minor.clone(),
            },
            (Some(v), None) => KubeVersion {
                version: v.clone(),
                normalized: v.clone(),
                ..KubeVersion::parse(v).map_err(|message| ServerVersionError {
                    version: v.clone(),
                    message,
                })?
            },
            (None, _) => KubeVersion::helm_default(),
        };
        if self.api_versions.is_empty() {
            return Ok(Capabilities::new(Some(kube_version), &[]));
        }
        Ok(Capabilities {
            kube_version,
            api_versions: VersionSet(std::sync::Arc::new(self.api_versions.clone())),
        })
    }
}

pub use kubepkg_package::render::{ChartRenderError as PayloadError, ReleaseTarget};

pub use crate::error::ServerVersionError;

/// Loads and renders `chart_path` with user-supplied `config` into a release payload, through
/// the one render path ([`kubepkg_package::render::render_chart`]); the chart's default values
/// replaced by `defaults` when given: Helm's `upgrade --reuse-values` renders, and records, the
/// new chart with the previous release's values as its defaults (`chart.Values = oldVals`).
pub fn release_payload(
    chart_path: &Path,
    target: ReleaseTarget<'_>,
    config: &Map<String, Value>,
    defaults: Option<&Map<String, Value>>,
    caps: &ClusterCapabilities,
) -> Result<ComponentRelease, PayloadError> {
    let capabilities = caps.to_chart().map_err(|e| PayloadError::Render {
        chart: chart_path.display().to_string(),
        source: kubepkg_chart::error::ChartErrorKind::Render(e.to_string()).into(),
    })?;
    let out = render_chart(chart_path, target, config, defaults, &capabilities)?;
    Ok(payload(out, config))
}

/// A rendered chart as the release layer installs it.
pub fn payload(out: RenderedChart, config: &Map<String, Value>) -> ComponentRelease {
    ComponentRelease {
        rendered: Rendered {
            chart: record_chart(&out.chart),
            config: config.clone(),
            manifest: out.manifest,
            hooks: out.hooks.into_iter().map(record_hook).collect(),
            notes: out.notes,
        },
        crds: out.crds,
    }
}

/// A package component rendered as apply installs it: the one render path
/// ([`kubepkg_package::render::render_component`], which `plan` calls too) into a release
/// payload. `last_revision` is the release's latest stored revision.
pub fn component_payload(
    request: &ComponentApply,
    caps: &ClusterCapabilities,
    last_revision: Option<u64>,
) -> Result<ComponentRelease, EngineError> {
    let capabilities = caps.to_chart()?;
    let out = render_component(request, &capabilities, last_revision)?;
    Ok(payload(out, &request.values))
}

fn record_hook(h: kubepkg_chart::manifest::Hook) -> record::Hook {
    record::Hook {
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
    }
}

/// User values (from `-f`/`--set`… merged by the chart layer) as a JSON map, keeping Go's
/// number types in memory (see the module docs). Non-map values give an empty map.
pub fn user_values(merged: &kubepkg_value::Value) -> Map<String, Value> {
    object(merged)
}

/// Values as Helm sees them after reading a stored release: `json.Unmarshal` into
/// `interface{}` makes every number a `float64`.
pub fn recorded_values(config: &Map<String, Value>) -> Map<String, Value> {
    kubepkg_model::values::from_yaml_numbers(config.clone())
}

fn object(v: &kubepkg_value::Value) -> Map<String, Value> {
    match from_chart_value(v) {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The chart as Helm stores it in a release (the top chart; Helm drops subchart bodies too).
pub fn record_chart(c: &kubepkg_chart::Chart) -> record::Chart {
    let lock = c.lock.as_ref().map(|l| record::Lock {
        generated: Value::String(l.generated.clone()),
        digest: l.digest.clone(),
        dependencies: Some(l.dependencies.iter().flatten().cloned().collect()),
    });
    let file = |f: &kubepkg_chart::ChartFile| record::File {
        name: f.name.clone(),
        data: f.data.to_vec(),
        modtime: None,
    };
    record::Chart {
        metadata: Some(c.metadata.clone()),
        lock,
        templates: Some(c.templates.iter().map(file).collect()),
        values: Some(object(&c.values)),
        schema: c.schema.as_ref().map(|s| s.to_vec()),
        files: Some(c.files.iter().map(file).collect()),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recorded_values_are_float64_as_after_json_unmarshal() {
        let m = json!({"n": 10000000, "l": [1, {"x": 2}], "s": "3"});
        let Value::Object(m) = m else { unreachable!() };
        let r = recorded_values(&m);
        assert!(r["n"].is_f64());
        assert!(r["l"][0].is_f64() && r["l"][1]["x"].is_f64());
        assert_eq!(r["s"], json!("3"));
    }

    #[test]
    fn live_server_capabilities_are_exact() {
        let caps = ClusterCapabilities {
            kube_version: Some("v1.33.4-gke.1245000".into()),
            kube_major_minor: Some(("1".into(), "33+".into())),
            api_versions: vec!["v1".into(), "v1/Pod".into()],
        }
        .to_chart()
        .unwrap();
        assert_eq!(caps.kube_version.version, "v1.33.4-gke.1245000");
        assert_eq!(caps.kube_version.minor, "33+");
        let parsed = ClusterCapabilities {
            kube_version: Some("v1.30.2".into()),
            ..Default::default()
        }
        .to_chart()
        .unwrap();
        assert_eq!(
            (
                parsed.kube_version.major.as_str(),
                parsed.kube_version.minor.as_str()
            ),
            ("1", "30")
        );
        assert_eq!(caps.api_versions.0.as_slice(), ["v1", "v1/Pod"]);
        // Offline: Helm's defaults (which include apps/v1).
        let offline = ClusterCapabilities::default().to_chart().unwrap();
        assert!(offline.api_versions.0.iter().any(|v| v == "apps/v1"));
        assert_eq!(offline.kube_version.version, "v1.37.0");
    }
}
