//! Helm charts as OCI artifacts, laid out exactly as Helm v4's `pkg/registry` writes and reads
//! them: an image manifest (no `mediaType` field, as Helm marshals it) whose config is the
//! chart's `Chart.yaml` as JSON ([`CONFIG_MEDIA_TYPE`]), one chart layer
//! ([`CHART_LAYER_MEDIA_TYPE`], the `.tgz` byte for byte; [`LEGACY_CHART_LAYER_MEDIA_TYPE`]
//! is accepted on pull) and optionally a provenance layer, layers sorted by digest, and the
//! `org.opencontainers.image.*` annotations Helm derives from the chart (description, title,
//! version, url, created, source, authors; chart annotations added except title/version:
//! written from the chart's metadata by `kubepkg_source::push`),
//! tagged with the chart version (`+` written `_`) in the repository `<repo>/<chart name>`.

use std::collections::BTreeMap;

use crate::client::Client;
use crate::error::Error;
use crate::manifest::{Descriptor, ImageManifest, OCI_MANIFEST, PulledManifest};
use crate::reference::Reference;

/// The config of a Helm chart manifest (`Chart.yaml` as JSON).
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.cncf.helm.config.v1+json";
/// The chart archive layer.
pub const CHART_LAYER_MEDIA_TYPE: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";
/// The provenance file layer.
pub const PROV_LAYER_MEDIA_TYPE: &str = "application/vnd.cncf.helm.chart.provenance.v1.prov";
/// The chart layer of charts pushed by Helm 3.0–3.7.
pub const LEGACY_CHART_LAYER_MEDIA_TYPE: &str = "application/tar+gzip";

/// What a push needs to know about the chart: not a model of `Chart.yaml` (that is
/// `kubepkg_chart::metadata::Metadata`, which this registry layer does not depend on) but the
/// push's view of it, built from that model by `kubepkg_source::push::chart_meta`: the chart's
/// identity for the tag, its `Chart.yaml` JSON as the config blob and the manifest annotations.
#[derive(Debug, Clone)]
pub struct ChartMeta {
    pub name: String,
    pub version: String,
    /// `Chart.yaml` as Helm's `json.Marshal(chart.Metadata)` writes it: the config blob.
    pub config_json: Vec<u8>,
    /// The OCI annotations of the manifest (Helm's `generateOCIAnnotations`).
    pub annotations: BTreeMap<String, String>,
}

/// The current time as Go's `time.RFC3339` in UTC (`2006-01-02T15:04:05Z`).
pub fn now_rfc3339() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// The result of a push.
#[derive(Debug, Clone)]
pub struct Pushed {
    /// Where it went (`oci://host/repo/name:tag`).
    pub reference: Reference,
    /// The manifest's digest.
    pub digest: String,
}

/// Pushes `archive` (a chart `.tgz`) to `repo/<name>:<version>` with Helm's layout.
pub async fn push(
    client: &Client,
    repo: &Reference,
    archive: &[u8],
    meta: &ChartMeta,
    prov: Option<&[u8]>,
) -> Result<Pushed, Error> {
    let reference = repo.join(&meta.name).with_tag(&meta.version);
    let config = client
        .push_blob(&reference, CONFIG_MEDIA_TYPE, &meta.config_json)
        .await?;
    let mut layers = vec![
        client
            .push_blob(&reference, CHART_LAYER_MEDIA_TYPE, archive)
            .await?,
    ];
    if let Some(p) = prov {
        layers.push(
            client
                .push_blob(&reference, PROV_LAYER_MEDIA_TYPE, p)
                .await?,
        );
    }
    layers.sort_by(|a, b| a.digest.cmp(&b.digest));
    let manifest = ImageManifest {
        schema_version: 2,
        media_type: None,
        artifact_type: None,
        config,
        layers,
        annotations: meta.annotations.clone(),
    };
    let bytes = serde_json::to_vec(&manifest).map_err(|e| Error::Malformed {
        reference: reference.to_string(),
        what: "manifest",
        message: e.to_string(),
    })?;
    let digest = client
        .push_manifest(&reference, OCI_MANIFEST, &bytes)
        .await?;
    Ok(Pushed { reference, digest })
}

/// A chart pulled from a registry.
#[derive(Debug, Clone)]
pub struct PulledChart {
    /// The reference pulled (with the tag resolved).
    pub reference: Reference,
    /// The manifest's digest.
    pub digest: String,
    /// The chart `.tgz`, byte for byte as pushed (digest checked).
    pub archive: Vec<u8>,
    /// The provenance file, when the artifact has one.
    pub prov: Option<Vec<u8>>,
    /// `Chart.yaml` as JSON (the config blob).
    pub config_json: Vec<u8>,
}

/// Checks that `m` is a Helm chart: an image manifest with Helm's config media type and a
/// chart layer.
pub fn chart_layers(
    reference: &Reference,
    m: &PulledManifest,
) -> Result<(ImageManifest, Descriptor), Error> {
    let wrong = |found: String| Error::WrongArtifact {
        reference: reference.to_string(),
        found,
        expected: "a Helm chart",
    };
    let image = m
        .image()
        .ok_or_else(|| wrong(describe_media_type(&m.media_type)))?;
    if image.config.media_type != CONFIG_MEDIA_TYPE {
        return Err(wrong(describe_config(&image)));
    }
    let layer = image
        .layers
        .iter()
        .find(|l| {
            l.media_type == CHART_LAYER_MEDIA_TYPE || l.media_type == LEGACY_CHART_LAYER_MEDIA_TYPE
        })
        .cloned()
        .ok_or_else(|| {
            wrong(format!(
                "an artifact without a layer of media type {CHART_LAYER_MEDIA_TYPE}"
            ))
        })?;
    Ok((image, layer))
}

/// Pulls the chart `reference` names (a tag or digest must be set): manifest, config and chart
/// layer, each digest-checked and cached only once all of them are.
pub async fn pull(client: &Client, reference: &Reference) -> Result<PulledChart, Error> {
    pull_verified(client, reference, None).await
}

/// [`pull`], with the manifest's digest checked by `verifier` (its cosign signature) before
/// any blob is fetched or anything cached.
pub async fn pull_verified(
    client: &Client,
    reference: &Reference,
    verifier: Option<&crate::signature::Verifier>,
) -> Result<PulledChart, Error> {
    let m = client.pull_manifest(reference).await?;
    let (image, layer) = chart_layers(reference, &m)?;
    if let Some(v) = verifier {
        v.verify(client, reference, &m.digest).await?;
    }
    let config_json = client.pull_blob(reference, &image.config).await?;
    let archive = client.pull_blob(reference, &layer).await?;
    let prov = match image
        .layers
        .iter()
        .find(|l| l.media_type == PROV_LAYER_MEDIA_TYPE)
    {
        Some(p) => Some(client.pull_blob(reference, p).await?),
        None => None,
    };
    client.cache_manifest(&m)?;
    Ok(PulledChart {
        reference: reference.clone(),
        digest: m.digest,
        archive,
        prov,
        config_json,
    })
}

/// How an unexpected artifact is named in errors.
pub(crate) fn describe_media_type(media_type: &str) -> String {
    match media_type {
        crate::manifest::OCI_INDEX | crate::manifest::DOCKER_MANIFEST_LIST => {
            format!("an image index ({media_type}), e.g. a multi-platform container image")
        }
        "" => "a manifest of unknown media type".to_string(),
        t => format!("a manifest of media type {t}"),
    }
}

pub(crate) fn describe_config(image: &ImageManifest) -> String {
    let t = &image.config.media_type;
    if t == "application/vnd.oci.image.config.v1+json"
        || t == "application/vnd.docker.container.image.v1+json"
    {
        format!("a container image (config media type {t})")
    } else if let Some(a) = &image.artifact_type {
        format!("an artifact of type {a}")
    } else {
        format!("an artifact with config media type {t}")
    }
}
