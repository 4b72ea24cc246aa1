//! The OCI manifest and descriptor (image-spec v1.1) as JSON, in the field order Go's
//! `encoding/json` gives ORAS and Helm (`schemaVersion`, `mediaType`, `artifactType`,
//! `config`, `layers`, `annotations`; a descriptor's `mediaType`, `digest`, `size`,
//! `annotations`, `artifactType`), and the media types kubepkg reads and writes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `application/vnd.oci.image.manifest.v1+json`.
pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
/// `application/vnd.oci.image.index.v1+json`.
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
/// Docker's image manifest (schema 2).
pub const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
/// Docker's manifest list.
pub const DOCKER_MANIFEST_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
/// The manifest types a pull accepts (others are refused by the registry's content negotiation).
pub const ACCEPTED_MANIFESTS: [&str; 4] = [
    OCI_MANIFEST,
    OCI_INDEX,
    DOCKER_MANIFEST,
    DOCKER_MANIFEST_LIST,
];

/// A content descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    pub media_type: String,
    pub digest: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
}

impl Descriptor {
    /// The descriptor of `bytes` as `media_type`.
    pub fn of(media_type: &str, bytes: &[u8]) -> Descriptor {
        Descriptor {
            media_type: media_type.to_string(),
            digest: crate::cache::sha256_digest(bytes),
            size: bytes.len() as u64,
            annotations: BTreeMap::new(),
            artifact_type: None,
        }
    }
}

/// An image manifest (what Helm charts and kubepkg packages are stored as).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageManifest {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    pub config: Descriptor,
    #[serde(default)]
    pub layers: Vec<Descriptor>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// A manifest as pulled: its bytes, digest and media type.
#[derive(Debug, Clone)]
pub struct PulledManifest {
    /// The manifest's bytes, as the registry sent them (their digest is [`Self::digest`]).
    pub bytes: Vec<u8>,
    /// `sha256:…` of [`Self::bytes`].
    pub digest: String,
    /// The manifest's media type (`Content-Type`, else its `mediaType` field).
    pub media_type: String,
}

impl PulledManifest {
    /// The image manifest, or `None` when this is an index or not an image manifest.
    pub fn image(&self) -> Option<ImageManifest> {
        if self.media_type != OCI_MANIFEST && self.media_type != DOCKER_MANIFEST {
            return None;
        }
        serde_json::from_slice(&self.bytes).ok()
    }
}
