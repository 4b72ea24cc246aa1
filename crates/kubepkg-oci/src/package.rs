//! kubepkg packages as one OCI artifact. The image manifest has artifact type
//! [`ARTIFACT_TYPE`] and config [`CONFIG_MEDIA_TYPE`] (`{"name","version","components":[…]}`),
//! and its layers are, in order:
//!
//! 1. `kubepkg.yaml` ([`MANIFEST_LAYER_MEDIA_TYPE`]);
//! 2. each component's chart as a Helm chart archive
//!    ([`crate::chart::CHART_LAYER_MEDIA_TYPE`], annotated with the component's name), so
//!    registries and tools that list Helm charts understand the parts;
//! 3. the package archive itself ([`ARCHIVE_LAYER_MEDIA_TYPE`]): what `package pull` writes,
//!    byte for byte, and what `plan`/`apply oci://…` load through the one package loader.
//!
//! The manifest carries `org.opencontainers.image.title`, `.version`, `.created` and (when
//! known) `.source`, and is tagged with the package version (`+` written `_`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::chart::{CHART_LAYER_MEDIA_TYPE, Pushed, describe_config, describe_media_type};
use crate::client::Client;
use crate::error::Error;
use crate::manifest::{Descriptor, ImageManifest, OCI_MANIFEST};
use crate::reference::Reference;

/// The artifact type of a kubepkg package.
pub const ARTIFACT_TYPE: &str = "application/vnd.kubepkg.package.v1";
/// The config blob of a package artifact.
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.kubepkg.package.config.v1+json";
/// The `kubepkg.yaml` layer.
pub const MANIFEST_LAYER_MEDIA_TYPE: &str = "application/vnd.kubepkg.package.manifest.v1+yaml";
/// The package archive layer.
pub const ARCHIVE_LAYER_MEDIA_TYPE: &str = "application/vnd.kubepkg.package.v1.tar+gzip";
/// The annotation naming a chart layer's component.
pub const COMPONENT_ANNOTATION: &str = "dev.kubepkg.component";
/// The annotation holding a layer's file name.
pub const TITLE_ANNOTATION: &str = "org.opencontainers.image.title";

/// The config blob.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageConfig {
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub components: Vec<ComponentEntry>,
}

/// One component in the config: its name and the digest of its chart layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComponentEntry {
    pub name: String,
    pub chart: String,
}

/// A package to push.
#[derive(Debug, Clone)]
pub struct PackageArtifact {
    pub name: String,
    pub version: String,
    /// The bytes of `kubepkg.yaml`.
    pub manifest: Vec<u8>,
    /// `(component name, chart file name, chart .tgz)` in manifest order.
    pub charts: Vec<(String, String, Vec<u8>)>,
    /// The package archive (`.tgz`).
    pub archive: Vec<u8>,
    /// `org.opencontainers.image.source`, when known.
    pub source: Option<String>,
    /// `org.opencontainers.image.created` (RFC 3339); now when `None`.
    pub created: Option<String>,
}

/// A package artifact built and not yet sent anywhere: the manifest, its digest, and every
/// blob it names with its media type (layers in manifest order, the config last). `package
/// push` sends it to a registry ([`push`]); `package save` of a local package writes it to an
/// image layout (`crate::layout::of_assembled`): the same bytes either way.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The manifest's bytes (`application/vnd.oci.image.manifest.v1+json`).
    pub manifest: Vec<u8>,
    /// `sha256:…` of [`Self::manifest`].
    pub digest: String,
    /// The parsed manifest (its config descriptor and artifact type).
    pub image: ImageManifest,
    /// `(media type, content)` of each layer then the config.
    pub blobs: Vec<(String, Vec<u8>)>,
    /// The tag: the package version, `+` written `_`.
    pub tag: String,
}

/// Builds the artifact of `pkg`: layers (kubepkg.yaml, each chart, the archive) and config as
/// descriptors of their bytes, the manifest with its annotations.
pub fn assemble(pkg: &PackageArtifact) -> Result<Assembled, Error> {
    let tag = crate::reference::tag_of_version(&pkg.version);
    let mut blobs = Vec::new();
    let mut layers = Vec::new();
    let mut add = |media_type: &str, bytes: &[u8], annotations: &[(&str, &str)]| {
        let mut d = Descriptor::of(media_type, bytes);
        for (k, v) in annotations {
            d.annotations.insert((*k).to_string(), (*v).to_string());
        }
        blobs.push((media_type.to_string(), bytes.to_vec()));
        d
    };
    layers.push(add(
        MANIFEST_LAYER_MEDIA_TYPE,
        &pkg.manifest,
        &[(TITLE_ANNOTATION, "kubepkg.yaml")],
    ));
    let mut components = Vec::new();
    for (component, file, bytes) in &pkg.charts {
        let d = add(
            CHART_LAYER_MEDIA_TYPE,
            bytes,
            &[(TITLE_ANNOTATION, file), (COMPONENT_ANNOTATION, component)],
        );
        components.push(ComponentEntry {
            name: component.clone(),
            chart: d.digest.clone(),
        });
        layers.push(d);
    }
    let archive_title = format!("{}-{}.tgz", pkg.name, pkg.version);
    layers.push(add(
        ARCHIVE_LAYER_MEDIA_TYPE,
        &pkg.archive,
        &[(TITLE_ANNOTATION, &archive_title)],
    ));
    let config = PackageConfig {
        name: pkg.name.clone(),
        version: pkg.version.clone(),
        components,
    };
    let origin = || format!("package {} {}", pkg.name, pkg.version);
    let config_bytes = serde_json::to_vec(&config).map_err(|e| Error::Malformed {
        reference: origin(),
        what: "config",
        message: e.to_string(),
    })?;
    let config = add(CONFIG_MEDIA_TYPE, &config_bytes, &[]);
    let mut annotations = BTreeMap::new();
    annotations.insert(TITLE_ANNOTATION.to_string(), pkg.name.clone());
    annotations.insert(
        "org.opencontainers.image.version".to_string(),
        pkg.version.clone(),
    );
    annotations.insert(
        "org.opencontainers.image.created".to_string(),
        pkg.created
            .clone()
            .unwrap_or_else(crate::chart::now_rfc3339),
    );
    if let Some(s) = pkg.source.as_ref().filter(|s| !s.is_empty()) {
        annotations.insert("org.opencontainers.image.source".to_string(), s.clone());
    }
    let image = ImageManifest {
        schema_version: 2,
        media_type: Some(OCI_MANIFEST.to_string()),
        artifact_type: Some(ARTIFACT_TYPE.to_string()),
        config,
        layers,
        annotations,
    };
    let manifest = serde_json::to_vec(&image).map_err(|e| Error::Malformed {
        reference: origin(),
        what: "manifest",
        message: e.to_string(),
    })?;
    Ok(Assembled {
        digest: crate::cache::sha256_digest(&manifest),
        manifest,
        image,
        blobs,
        tag,
    })
}

/// Pushes `pkg` to `reference`'s repository, tagged with its version.
pub async fn push(
    client: &Client,
    repo: &Reference,
    pkg: &PackageArtifact,
) -> Result<Pushed, Error> {
    let assembled = assemble(pkg)?;
    let reference = repo.with_tag(&pkg.version);
    for (media_type, bytes) in &assembled.blobs {
        client.push_blob(&reference, media_type, bytes).await?;
    }
    let digest = client
        .push_manifest(&reference, OCI_MANIFEST, &assembled.manifest)
        .await?;
    Ok(Pushed { reference, digest })
}

/// A package pulled from a registry.
#[derive(Debug, Clone)]
pub struct PulledPackage {
    /// The reference pulled (tag resolved).
    pub reference: Reference,
    /// The manifest's digest.
    pub digest: String,
    /// The config (name, version, components).
    pub config: PackageConfig,
    /// The package archive, byte for byte as pushed (digest checked).
    pub archive: Vec<u8>,
}

/// Pulls the package `reference` names (a tag or digest must be set). Only the config and the
/// package archive are fetched; each digest is checked and the manifest cached only once both
/// were.
pub async fn pull(client: &Client, reference: &Reference) -> Result<PulledPackage, Error> {
    pull_verified(client, reference, None).await
}

/// [`pull`], with the manifest's digest checked by `verifier` (its cosign signature) before
/// any blob is fetched or anything cached.
pub async fn pull_verified(
    client: &Client,
    reference: &Reference,
    verifier: Option<&crate::signature::Verifier>,
) -> Result<PulledPackage, Error> {
    let m = client.pull_manifest(reference).await?;
    let image = check(reference, &m)?;
    let wrong = |found: String| Error::WrongArtifact {
        reference: reference.to_string(),
        found,
        expected: "a kubepkg package",
    };
    let layer: Descriptor = image
        .layers
        .iter()
        .find(|l| l.media_type == ARCHIVE_LAYER_MEDIA_TYPE)
        .cloned()
        .ok_or_else(|| {
            wrong(format!(
                "an artifact without a layer of media type {ARCHIVE_LAYER_MEDIA_TYPE}"
            ))
        })?;
    if let Some(v) = verifier {
        v.verify(client, reference, &m.digest).await?;
    }
    let config_bytes = client.pull_blob(reference, &image.config).await?;
    let config: PackageConfig = serde_json::from_slice(&config_bytes)
        .map_err(|e| malformed(reference, "package config", e))?;
    let archive = client.pull_blob(reference, &layer).await?;
    client.cache_manifest(&m)?;
    Ok(PulledPackage {
        reference: reference.clone(),
        digest: m.digest,
        config,
        archive,
    })
}

/// Checks that `m` is a kubepkg package (an image manifest with the package config media
/// type); a Helm chart or container image is refused naming what it is.
pub fn check(
    reference: &Reference,
    m: &crate::manifest::PulledManifest,
) -> Result<ImageManifest, Error> {
    let wrong = |found: String| Error::WrongArtifact {
        reference: reference.to_string(),
        found,
        expected: "a kubepkg package",
    };
    let image = m
        .image()
        .ok_or_else(|| wrong(describe_media_type(&m.media_type)))?;
    if image.config.media_type != CONFIG_MEDIA_TYPE {
        if image.config.media_type == crate::chart::CONFIG_MEDIA_TYPE {
            return Err(wrong(
                "a Helm chart (install it with `kubepkg install`)".into(),
            ));
        }
        return Err(wrong(describe_config(&image)));
    }
    Ok(image)
}

fn malformed(r: &Reference, what: &'static str, e: serde_json::Error) -> Error {
    Error::Malformed {
        reference: r.to_string(),
        what,
        message: e.to_string(),
    }
}
