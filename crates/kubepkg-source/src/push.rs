//! A chart pushed to an OCI registry with Helm's layout (`helm push`): its `Chart.yaml` as the
//! manifest's config and annotations ([`chart_meta`]), and [`push_chart`], a chart directory
//! or archive packed as `helm package` packs it and pushed by its version as the tag. The one
//! path of `kubepkg push`, `kubepkg render --push-charts` and the Flux backend (which pushes each
//! component's chart where its `OCIRepository` pulls it).

use std::collections::BTreeMap;
use std::path::Path;

use kubepkg_chart::metadata::Metadata;
use kubepkg_oci::{Client, Reference};
use serde_json::{Map, Value};

/// A chart that was pushed: its name and version, and the manifest's digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushedChart {
    pub name: String,
    pub version: String,
    /// `oci://host/repo/name:version`.
    pub reference: String,
    /// `sha256:…` of the pushed manifest.
    pub digest: String,
}

/// Why a chart could not be pushed.
#[derive(Debug, thiserror::Error)]
pub enum PushError {
    #[error("loading the chart {path}")]
    Load {
        path: String,
        #[source]
        source: kubepkg_chart::ChartError,
    },
    #[error("reading {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("packing the chart {path}")]
    Pack {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("pushing the chart {path} to {repository}")]
    Push {
        path: String,
        repository: String,
        #[source]
        source: kubepkg_oci::Error,
    },
}

/// Packs the chart at `path` (a directory, as `helm package` packs it, or an archive as it is)
/// and pushes it to `repository/<name>:<version>` with Helm's layout.
pub async fn push_chart(
    client: &Client,
    repository: &Reference,
    path: &Path,
) -> Result<PushedChart, PushError> {
    let shown = path.display().to_string();
    let chart = kubepkg_chart::chart::load_with_local_dependencies(path).map_err(|source| {
        PushError::Load {
            path: shown.clone(),
            source,
        }
    })?;
    let archive = if path.is_dir() {
        let pack = |e: kubepkg_chart::ChartError| PushError::Load {
            path: shown.clone(),
            source: e,
        };
        let files = kubepkg_chart::chart::files_with_local_dependencies(path).map_err(pack)?;
        let (_, entries) = kubepkg_chart::save::archive_entries(files, None, None).map_err(pack)?;
        kubepkg_chart::save::pack_entries(&entries).map_err(|source| PushError::Pack {
            path: shown.clone(),
            source,
        })?
    } else {
        std::fs::read(path).map_err(|source| PushError::Read {
            path: shown.clone(),
            source,
        })?
    };
    let meta = chart_meta(&chart.metadata);
    let pushed = kubepkg_oci::chart::push(client, repository, &archive, &meta, None)
        .await
        .map_err(|source| PushError::Push {
            path: shown.clone(),
            repository: repository.to_string(),
            source,
        })?;
    Ok(PushedChart {
        name: meta.name,
        version: meta.version,
        reference: pushed.reference.to_string(),
        digest: pushed.digest,
    })
}

/// What the push needs from `Chart.yaml`: its JSON (the manifest's config, as Helm's
/// `json.Marshal(chart.Metadata)`) and the manifest annotations.
pub fn chart_meta(m: &Metadata) -> kubepkg_oci::chart::ChartMeta {
    let maintainers: Vec<(&str, &str)> = m
        .maintainers
        .iter()
        .flatten()
        .map(|x| (x.name.as_str(), x.email.as_str()))
        .collect();
    let annotations = kubepkg_oci::chart::oci_annotations(
        &kubepkg_oci::chart::AnnotationSource {
            name: &m.name,
            version: &m.version,
            description: &m.description,
            home: &m.home,
            sources: &m.sources,
            maintainers,
            chart_annotations: m.annotations.as_ref(),
        },
        None,
    );
    kubepkg_oci::chart::ChartMeta {
        name: m.name.clone(),
        version: m.version.clone(),
        config_json: metadata_json(m),
        annotations,
    }
}

/// `Chart.yaml` as Go's `encoding/json` writes `chart.Metadata`: its field order, `omitempty`
/// fields left out when empty, and `<`, `>`, `&` escaped as Go does.
pub fn metadata_json(m: &Metadata) -> Vec<u8> {
    let mut o = Map::new();
    let s = |o: &mut Map<String, Value>, k: &str, v: &str, omit: bool| {
        if !(omit && v.is_empty()) {
            o.insert(k.into(), Value::String(v.into()));
        }
    };
    let list = |o: &mut Map<String, Value>, k: &str, v: &[String]| {
        if !v.is_empty() {
            o.insert(
                k.into(),
                Value::Array(v.iter().cloned().map(Value::String).collect()),
            );
        }
    };
    s(&mut o, "name", &m.name, false);
    s(&mut o, "home", &m.home, true);
    list(&mut o, "sources", &m.sources);
    s(&mut o, "version", &m.version, false);
    s(&mut o, "description", &m.description, true);
    list(&mut o, "keywords", &m.keywords);
    if !m.maintainers.is_empty() {
        let ms = m
            .maintainers
            .iter()
            .map(|x| match x {
                None => Value::Null,
                Some(x) => {
                    let mut e = Map::new();
                    s(&mut e, "name", &x.name, false);
                    s(&mut e, "email", &x.email, true);
                    s(&mut e, "url", &x.url, true);
                    Value::Object(e)
                }
            })
            .collect();
        o.insert("maintainers".into(), Value::Array(ms));
    }
    s(&mut o, "icon", &m.icon, true);
    s(&mut o, "apiVersion", &m.api_version, false);
    s(&mut o, "condition", &m.condition, true);
    s(&mut o, "tags", &m.tags, true);
    s(&mut o, "appVersion", &m.app_version, true);
    if m.deprecated {
        o.insert("deprecated".into(), Value::Bool(true));
    }
    if let Some(a) = m.annotations.as_ref().filter(|a| !a.is_empty()) {
        let sorted: BTreeMap<&String, &String> = a.iter().collect();
        let a = sorted
            .into_iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        o.insert("annotations".into(), Value::Object(a));
    }
    s(&mut o, "kubeVersion", &m.kube_version, true);
    if !m.dependencies.is_empty() {
        let ds = m
            .dependencies
            .iter()
            .map(|d| match d {
                None => Value::Null,
                Some(d) => {
                    let mut e = Map::new();
                    s(&mut e, "name", &d.name, false);
                    s(&mut e, "version", &d.version, true);
                    s(&mut e, "repository", &d.repository, false);
                    s(&mut e, "condition", &d.condition, true);
                    list(&mut e, "tags", &d.tags);
                    if d.enabled {
                        e.insert("enabled".into(), Value::Bool(true));
                    }
                    s(&mut e, "alias", &d.alias, true);
                    Value::Object(e)
                }
            })
            .collect();
        o.insert("dependencies".into(), Value::Array(ds));
    }
    s(&mut o, "type", &m.chart_type, true);
    let text = Value::Object(o).to_string();
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .into_bytes()
}
