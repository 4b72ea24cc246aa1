//! Cosign signatures in the registry, the classic layout `cosign sign --key` writes and
//! `cosign verify --key` and Flux's `verify: {provider: cosign}` read ("tag-based
//! discovery"): the signatures of the manifest `sha256:<hex>` of a repository are the layers
//! of the image manifest tagged `sha256-<hex>.sig` in the same repository, each layer a
//! simple-signing payload ([`kubepkg_cosign::SIMPLE_SIGNING_MEDIA_TYPE`]) with its base64
//! ECDSA signature in the annotation [`kubepkg_cosign::SIGNATURE_ANNOTATION`]. The payload
//! format and the crypto are `kubepkg-cosign`'s; this module reads and writes them through
//! the one registry [`Client`].
//!
//! [`Verifier::verify`] accepts a digest when one signature layer verifies with one of its
//! keys and its payload names that digest (`critical.image.docker-manifest-digest`), as
//! cosign's `SimpleClaimVerifier`; the payload's `docker-reference` is not compared (cosign
//! does not either), so an artifact copied to a mirror with its `.sig` still verifies. The
//! signature tag is always asked of the registry (never the cache: a tag moves), and nothing
//! about a verification is cached. [`sign`] appends a layer to the `.sig` manifest (made when
//! there is none), as cosign does; signing the same digest with the same key again changes
//! nothing (the signatures are deterministic).

use std::collections::BTreeMap;

pub use kubepkg_cosign::{KeyError, PublicKey, SigningKey};
use kubepkg_cosign::{Payload, SIGNATURE_ANNOTATION, SIMPLE_SIGNING_MEDIA_TYPE};

use crate::client::Client;
use crate::error::Error;
use crate::manifest::{Descriptor, ImageManifest, OCI_MANIFEST};
use crate::reference::Reference;

/// The config media type of a signature manifest (an OCI image config, as cosign writes).
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.oci.image.config.v1+json";

/// A signature payload larger than this is not fetched (cosign's are a few hundred bytes).
pub const MAX_PAYLOAD_BYTES: u64 = 1024 * 1024;

/// A public key and the name it is known by in messages (its file, or `Secret ns/name key k`).
#[derive(Debug, Clone)]
pub struct TrustedKey {
    pub name: String,
    pub key: PublicKey,
}

/// The keys a verification accepts (any one of them).
#[derive(Debug, Clone)]
pub struct Verifier {
    keys: Vec<TrustedKey>,
}

/// What a verification found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The digest verified.
    pub digest: String,
    /// The name of the key whose signature verified.
    pub key: String,
}

impl Verifier {
    /// A verifier accepting a signature by any of `keys` (at least one).
    pub fn new(keys: Vec<TrustedKey>) -> Verifier {
        Verifier { keys }
    }

    /// The keys' names, for messages (`a.pub, b.pub`).
    pub fn key_names(&self) -> String {
        self.keys
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Checks that `digest` (the manifest `reference` resolved to) has a cosign signature by
    /// one of the keys whose payload names it.
    pub async fn verify(
        &self,
        client: &Client,
        reference: &Reference,
        digest: &str,
    ) -> Result<Verified, Error> {
        let shown = reference.with_digest(digest).to_string();
        let tag = signature_tag(reference, digest)?;
        let sig_ref = reference.with_tag(&tag);
        let m = match client.pull_manifest(&sig_ref).await {
            Ok(m) => m,
            Err(Error::NotFound { .. }) => {
                return Err(Error::Unsigned {
                    reference: shown,
                    tag,
                });
            }
            Err(e) => return Err(e),
        };
        let Some(image) = m.image() else {
            return Err(Error::SignatureRejected {
                reference: shown,
                tag,
                why: format!("it is not an image manifest (media type {})", m.media_type),
            });
        };
        let layers: Vec<&Descriptor> = image
            .layers
            .iter()
            .filter(|l| l.media_type == SIMPLE_SIGNING_MEDIA_TYPE)
            .collect();
        let mut other_digest: Option<(String, String)> = None;
        for layer in &layers {
            let Some(sig) = layer.annotations.get(SIGNATURE_ANNOTATION) else {
                continue;
            };
            if layer.size > MAX_PAYLOAD_BYTES {
                continue;
            }
            let payload = client.pull_blob(&sig_ref, layer).await?;
            let Some(key) = self.keys.iter().find(|k| k.key.verifies(&payload, sig)) else {
                continue;
            };
            match Payload::parse(&payload) {
                Ok(p) if p.digest == digest => {
                    return Ok(Verified {
                        digest: digest.to_string(),
                        key: key.name.clone(),
                    });
                }
                Ok(p) => other_digest = Some((key.name.clone(), p.digest)),
                Err(e) => other_digest = Some((key.name.clone(), format!("nothing ({e})"))),
            }
        }
        if let Some((key, claimed)) = other_digest {
            return Err(Error::SignatureForOtherArtifact {
                reference: shown,
                tag,
                key,
                claimed,
            });
        }
        let why = match layers.len() {
            0 => "it has no simple-signing layer".to_string(),
            n => format!(
                "none of its {n} signature{} verifies with {}; it was signed with another key, or altered",
                if n == 1 { "" } else { "s" },
                self.key_names()
            ),
        };
        Err(Error::SignatureRejected {
            reference: shown,
            tag,
            why,
        })
    }
}

/// `sha256-<hex>.sig` of `digest`, or an error naming `reference` when `digest` is not sha256.
pub fn signature_tag(reference: &Reference, digest: &str) -> Result<String, Error> {
    kubepkg_cosign::signature_tag(digest).ok_or_else(|| Error::InvalidReference {
        input: reference.with_digest(digest).to_string(),
        reason: "cosign signatures are found by a sha256 digest".into(),
    })
}

/// A signature written by [`sign`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    /// The signature manifest's reference (`oci://…:sha256-<hex>.sig`).
    pub reference: Reference,
    /// The signature manifest's digest.
    pub digest: String,
    /// False when the same signature was there already (nothing pushed).
    pub added: bool,
}

/// Signs the manifest `digest` of `reference`'s repository with `key`: the simple-signing
/// payload (`docker-reference` the repository, `HOST[:PORT]/REPO`, as cosign writes it) is
/// pushed as a layer of the `sha256-<hex>.sig` manifest with its signature, after the layers
/// already there.
pub async fn sign(
    client: &Client,
    reference: &Reference,
    digest: &str,
    key: &SigningKey,
) -> Result<Signed, Error> {
    let tag = signature_tag(reference, digest)?;
    let sig_ref = reference.with_tag(&tag);
    let docker_reference = format!("{}/{}", reference.registry, reference.repository);
    let payload = Payload::new(&docker_reference, digest).to_bytes();
    let signature = key.sign(&payload);
    let mut existing = None;
    let mut layers = match client.pull_manifest(&sig_ref).await {
        Ok(m) => match m.image() {
            Some(image) => {
                existing = Some(m.digest);
                image.layers
            }
            None => {
                return Err(Error::WrongArtifact {
                    reference: sig_ref.to_string(),
                    found: format!("a manifest of media type {}", m.media_type),
                    expected: "a cosign signature manifest",
                });
            }
        },
        Err(Error::NotFound { .. }) => Vec::new(),
        Err(e) => return Err(e),
    };
    let mut layer = client
        .push_blob(&sig_ref, SIMPLE_SIGNING_MEDIA_TYPE, &payload)
        .await?;
    layer
        .annotations
        .insert(SIGNATURE_ANNOTATION.into(), signature);
    if let Some(digest) = existing.filter(|_| layers.contains(&layer)) {
        return Ok(Signed {
            reference: sig_ref,
            digest,
            added: false,
        });
    }
    layers.push(layer);
    let config = config_json(&layers);
    let config = client
        .push_blob(&sig_ref, CONFIG_MEDIA_TYPE, &config)
        .await?;
    let manifest = ImageManifest {
        schema_version: 2,
        media_type: Some(OCI_MANIFEST.to_string()),
        artifact_type: None,
        config,
        layers,
        annotations: BTreeMap::new(),
    };
    let bytes = serde_json::to_vec(&manifest).map_err(|e| Error::Malformed {
        reference: sig_ref.to_string(),
        what: "manifest",
        message: e.to_string(),
    })?;
    let digest = client.push_manifest(&sig_ref, OCI_MANIFEST, &bytes).await?;
    Ok(Signed {
        reference: sig_ref,
        digest,
        added: true,
    })
}

/// The image config go-containerregistry gives cosign's signature image: an empty image with
/// one history entry and one diff ID (the layer's digest: payloads are not compressed) per
/// layer.
pub fn config_json(layers: &[Descriptor]) -> Vec<u8> {
    let zero = "0001-01-01T00:00:00Z";
    let history: Vec<serde_json::Value> = layers
        .iter()
        .map(|_| serde_json::json!({ "created": zero }))
        .collect();
    let diff_ids: Vec<&str> = layers.iter().map(|l| l.digest.as_str()).collect();
    let mut o = serde_json::Map::new();
    o.insert("architecture".into(), "".into());
    o.insert("created".into(), zero.into());
    o.insert("history".into(), history.into());
    o.insert("os".into(), "".into());
    o.insert(
        "rootfs".into(),
        serde_json::json!({ "type": "layers", "diff_ids": diff_ids }),
    );
    o.insert("config".into(), serde_json::json!({}));
    serde_json::Value::Object(o).to_string().into_bytes()
}
