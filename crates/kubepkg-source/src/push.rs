//! A chart pushed to an OCI registry with Helm's layout (`helm push`): its `Chart.yaml` as the
//! manifest's config and annotations ([`chart_meta`]), and [`push_chart`], a chart directory
//! or archive packed as `helm package` packs it and pushed by its version as the tag. The one
//! path of `kubepkg push`, `kubepkg render --push-charts` and the Flux backend (which pushes each
//! component's chart where its `OCIRepository` pulls it).

use std::collections::BTreeMap;
use std::path::Path;

use kubepkg_chart::metadata::Metadata;
use kubepkg_oci::{Client, Reference};

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
    kubepkg_oci::chart::ChartMeta {
        name: m.name.clone(),
        version: m.version.clone(),
        config_json: m.to_json(),
        annotations: oci_annotations(m, None),
    }
}

/// Helm's `generateOCIAnnotations`: the `org.opencontainers.image.*` annotations of a chart,
/// `created` as given (RFC 3339, UTC now when `None`); blank values left out; the chart's own
/// annotations added, except `org.opencontainers.image.title`/`version`.
pub fn oci_annotations(m: &Metadata, created: Option<&str>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut add = |k: &str, v: &str| {
        if !v.trim().is_empty() {
            out.insert(format!("org.opencontainers.image.{k}"), v.to_string());
        }
    };
    add("description", &m.description);
    add("title", &m.name);
    add("version", &m.version);
    add("url", &m.home);
    let now = kubepkg_oci::chart::now_rfc3339();
    add("created", created.unwrap_or(&now));
    if let Some(s) = m.sources.first() {
        add("source", s);
    }
    let authors: Vec<String> = m
        .maintainers
        .iter()
        .flatten()
        .map(|x| {
            if x.email.is_empty() {
                x.name.clone()
            } else {
                format!("{} ({})", x.name, x.email)
            }
        })
        .collect();
    if !authors.is_empty() {
        add("authors", &authors.join(", "));
    }
    for (k, v) in m.annotations.iter().flatten() {
        if k != "org.opencontainers.image.title" && k != "org.opencontainers.image.version" {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}
