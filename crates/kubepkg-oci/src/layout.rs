//! Packages as OCI image layouts, for moving them between registries without a network path
//! between them (`kubepkg package save` / `package load`): the layout of the OCI image-spec
//! (`oci-layout`, `index.json`, `blobs/sha256/<hex>`), the one `oras`, `skopeo` and `crane`
//! read and write, holding the package's manifest and every blob it names, and — when the
//! registry has them — the cosign objects tagged after the package's digest
//! (`sha256-<hex>.sig`, `.att`, `.sbom`) with their blobs, copied byte for byte and never
//! interpreted. `index.json` names each manifest's tag in `org.opencontainers.image.ref.name`.
//!
//! A package built locally and never pushed is laid out the same way ([`of_assembled`]: the
//! artifact `package push` would send).
//!
//! The layout is plain files here ([`Layout::files`], [`Layout::from_files`]); the caller puts
//! them into a tar and reads them out of one through the one archive reader
//! (`kubepkg_chart::archive`), so this crate stays free of archive code. Reading checks every
//! blob's digest against its name and that every blob a manifest names is there, before
//! anything is pushed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::cache::sha256_digest;
use crate::client::Client;
use crate::error::Error;
use crate::manifest::{
    DOCKER_MANIFEST, DOCKER_MANIFEST_LIST, Descriptor, OCI_INDEX, OCI_MANIFEST, PulledManifest,
};
use crate::reference::Reference;

/// The `oci-layout` file's name.
pub const LAYOUT_FILE: &str = "oci-layout";
/// The `index.json` file's name.
pub const INDEX_FILE: &str = "index.json";
/// The directory of the blobs.
pub const BLOBS_DIR: &str = "blobs/sha256/";
/// The layout version written and accepted.
pub const LAYOUT_VERSION: &str = "1.0.0";
/// The annotation of an `index.json` entry holding its tag.
pub const REF_NAME: &str = "org.opencontainers.image.ref.name";
/// The tag suffixes under which cosign stores a signature, attestations and an SBOM of the
/// manifest `sha256:<hex>` (as tag `sha256-<hex><suffix>`).
pub const COSIGN_SUFFIXES: [&str; 3] = [".sig", ".att", ".sbom"];

/// `index.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Index {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default)]
    pub manifests: Vec<Descriptor>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// `oci-layout`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LayoutVersion {
    image_layout_version: String,
}

/// An image layout in memory: `index.json` and the blobs by digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub index: Index,
    /// `sha256:<hex>` → content (manifests, configs, layers).
    pub blobs: BTreeMap<String, Vec<u8>>,
}

/// What `save` put into a layout.
#[derive(Debug, Clone)]
pub struct Saved {
    pub layout: Layout,
    /// The package manifest's reference (tag resolved) and digest.
    pub reference: Reference,
    pub digest: String,
    /// The cosign tags copied with it (`sha256-<hex>.sig`, …).
    pub signatures: Vec<String>,
}

/// What `load` pushed.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Each tag pushed with its manifest digest, the package first.
    pub pushed: Vec<(Reference, String)>,
}

/// The cosign tag of `digest` with `suffix` (`sha256:ab…` → `sha256-ab….sig`).
pub fn cosign_tag(digest: &str, suffix: &str) -> String {
    format!("{}{suffix}", digest.replacen(':', "-", 1))
}

/// Pulls the package `reference` names (a tag or digest must be set), every blob its manifest
/// names, and the cosign objects of its digest when the registry has them, into a layout.
/// The package manifest is tagged in `index.json` with the reference's tag (the package
/// version from the config when pulled by digest).
pub async fn save(client: &Client, reference: &Reference) -> Result<Saved, Error> {
    let m = client.pull_manifest(reference).await?;
    let image = crate::package::check(reference, &m)?;
    let config: crate::package::PackageConfig = serde_json::from_slice(
        &client.pull_blob(reference, &image.config).await?,
    )
    .map_err(|e| Error::Malformed {
        reference: reference.to_string(),
        what: "package config",
        message: e.to_string(),
    })?;
    let mut layout = Layout {
        index: Index {
            schema_version: 2,
            media_type: Some(OCI_INDEX.to_string()),
            manifests: Vec::new(),
            annotations: BTreeMap::new(),
        },
        blobs: BTreeMap::new(),
    };
    let tag = reference
        .tag
        .clone()
        .unwrap_or_else(|| crate::reference::tag_of_version(&config.version));
    layout.add_closure(client, reference, &m).await?;
    layout.index.manifests.push(entry(&m, &tag, &image));
    let mut signatures = Vec::new();
    for suffix in COSIGN_SUFFIXES {
        let sig_tag = cosign_tag(&m.digest, suffix);
        let sig_ref = reference.with_tag(&sig_tag);
        let sig = match client.pull_manifest(&sig_ref).await {
            Ok(sig) => sig,
            Err(Error::NotFound { .. }) => continue,
            Err(e) => return Err(e),
        };
        layout.add_closure(client, &sig_ref, &sig).await?;
        let mut d = Descriptor {
            media_type: sig.media_type.clone(),
            digest: sig.digest.clone(),
            size: sig.bytes.len() as u64,
            annotations: BTreeMap::new(),
            artifact_type: None,
        };
        d.annotations.insert(REF_NAME.to_string(), sig_tag.clone());
        layout.index.manifests.push(d);
        signatures.push(sig_tag);
    }
    client.cache_manifest(&m)?;
    Ok(Saved {
        layout,
        reference: reference.with_tag(&tag),
        digest: m.digest,
        signatures,
    })
}

/// The layout of a package built here and never pushed (`package save DIR|PKG.tgz`): the
/// artifact `package push` would send (`crate::package::assemble`), its manifest tagged with
/// the package version in `index.json`; no signatures.
pub fn of_assembled(assembled: &crate::package::Assembled) -> Layout {
    let m = PulledManifest {
        bytes: assembled.manifest.clone(),
        digest: assembled.digest.clone(),
        media_type: OCI_MANIFEST.to_string(),
    };
    let mut blobs: BTreeMap<String, Vec<u8>> = assembled
        .blobs
        .iter()
        .map(|(_, bytes)| (sha256_digest(bytes), bytes.clone()))
        .collect();
    blobs.insert(m.digest.clone(), m.bytes.clone());
    Layout {
        index: Index {
            schema_version: 2,
            media_type: Some(OCI_INDEX.to_string()),
            manifests: vec![entry(&m, &assembled.tag, &assembled.image)],
            annotations: BTreeMap::new(),
        },
        blobs,
    }
}

fn entry(m: &PulledManifest, tag: &str, image: &crate::manifest::ImageManifest) -> Descriptor {
    let mut d = Descriptor {
        media_type: m.media_type.clone(),
        digest: m.digest.clone(),
        size: m.bytes.len() as u64,
        annotations: BTreeMap::new(),
        artifact_type: image.artifact_type.clone(),
    };
    d.annotations.insert(REF_NAME.to_string(), tag.to_string());
    d
}

/// The blobs and child manifests a manifest names: an image manifest's config and layers, an
/// index's manifests. Other media types name nothing (copied as they are).
fn references(
    origin: &str,
    media_type: &str,
    bytes: &[u8],
) -> Result<(Vec<Descriptor>, Vec<Descriptor>), Error> {
    #[derive(Deserialize)]
    struct Shape {
        #[serde(default)]
        config: Option<Descriptor>,
        #[serde(default)]
        layers: Vec<Descriptor>,
        #[serde(default)]
        manifests: Vec<Descriptor>,
    }
    let malformed = |message: String| Error::Malformed {
        reference: origin.to_string(),
        what: "manifest",
        message,
    };
    match media_type {
        OCI_MANIFEST | DOCKER_MANIFEST | OCI_INDEX | DOCKER_MANIFEST_LIST => {
            let s: Shape = serde_json::from_slice(bytes).map_err(|e| malformed(e.to_string()))?;
            let mut blobs: Vec<Descriptor> = s.config.into_iter().collect();
            blobs.extend(s.layers);
            for d in blobs.iter().chain(&s.manifests) {
                if !crate::reference::valid_digest(&d.digest) {
                    return Err(malformed(format!(
                        "digest {:?} is not sha256:<64 hex digits>",
                        d.digest
                    )));
                }
            }
            Ok((blobs, s.manifests))
        }
        _ => Ok((Vec::new(), Vec::new())),
    }
}

impl Layout {
    /// Adds manifest `m` and everything it names (recursively for an index), pulled from
    /// `reference`'s repository with digests checked.
    async fn add_closure(
        &mut self,
        client: &Client,
        reference: &Reference,
        m: &PulledManifest,
    ) -> Result<(), Error> {
        let mut pending = vec![m.clone()];
        while let Some(m) = pending.pop() {
            let (blobs, children) = references(&reference.to_string(), &m.media_type, &m.bytes)?;
            for d in blobs {
                if !self.blobs.contains_key(&d.digest) {
                    let bytes = client.pull_blob(reference, &d).await?;
                    self.blobs.insert(d.digest.clone(), bytes);
                }
            }
            for c in children {
                if !self.blobs.contains_key(&c.digest) {
                    pending.push(
                        client
                            .pull_manifest(&reference.with_digest(&c.digest))
                            .await?,
                    );
                }
            }
            self.blobs.insert(m.digest.clone(), m.bytes.clone());
        }
        Ok(())
    }

    /// The layout's files, `oci-layout` and `index.json` first, then the blobs by digest.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        let version = LayoutVersion {
            image_layout_version: LAYOUT_VERSION.to_string(),
        };
        let mut out = vec![
            (
                LAYOUT_FILE.to_string(),
                serde_json::to_vec(&version).unwrap_or_default(),
            ),
            (
                INDEX_FILE.to_string(),
                serde_json::to_vec(&self.index).unwrap_or_default(),
            ),
        ];
        for (digest, bytes) in &self.blobs {
            let hex = digest.trim_start_matches("sha256:");
            out.push((format!("{BLOBS_DIR}{hex}"), bytes.clone()));
        }
        out
    }

    /// The layout in `files` (names relative to its root, `./` dropped), read from `archive`
    /// (named in errors): `oci-layout` of version 1.0.0, `index.json`, every blob's bytes
    /// checked against its name, every blob a manifest of the index names present. Other files
    /// are ignored.
    pub fn from_files(
        archive: &str,
        files: impl IntoIterator<Item = (String, Vec<u8>)>,
    ) -> Result<Layout, Error> {
        let bad = |message: String| Error::Layout {
            archive: archive.to_string(),
            message,
        };
        let mut version = None;
        let mut index = None;
        let mut blobs = BTreeMap::new();
        for (name, bytes) in files {
            let name = name.trim_start_matches("./").to_string();
            if name == LAYOUT_FILE {
                version = Some(bytes);
            } else if name == INDEX_FILE {
                index = Some(bytes);
            } else if let Some(hex) = name.strip_prefix(BLOBS_DIR) {
                let expected = format!("sha256:{hex}");
                if !crate::reference::valid_digest(&expected) {
                    return Err(bad(format!(
                        "{name} is not named by a sha256 digest (64 lowercase hex digits)"
                    )));
                }
                let actual = sha256_digest(&bytes);
                if actual != expected {
                    return Err(Error::LayoutDigestMismatch {
                        archive: archive.to_string(),
                        file: name,
                        expected,
                        actual,
                    });
                }
                blobs.insert(expected, bytes);
            } else if name.starts_with("blobs/") {
                return Err(bad(format!(
                    "{name}: only sha256 blobs are supported (blobs/sha256/<hex>)"
                )));
            }
        }
        let version = version.ok_or_else(|| {
            bad(format!(
                "it has no {LAYOUT_FILE} file; it is not an OCI image layout (make one with `kubepkg package save`)"
            ))
        })?;
        let version: LayoutVersion =
            serde_json::from_slice(&version).map_err(|e| bad(format!("{LAYOUT_FILE}: {e}")))?;
        if version.image_layout_version != LAYOUT_VERSION {
            return Err(bad(format!(
                "{LAYOUT_FILE}: image layout version {:?}; only {LAYOUT_VERSION} is supported",
                version.image_layout_version
            )));
        }
        let index = index.ok_or_else(|| bad(format!("it has no {INDEX_FILE}")))?;
        let index: Index =
            serde_json::from_slice(&index).map_err(|e| bad(format!("{INDEX_FILE}: {e}")))?;
        let layout = Layout { index, blobs };
        for d in &layout.index.manifests {
            layout.check_closure(archive, d)?;
        }
        Ok(layout)
    }

    /// Checks that `d` and everything it names are in the layout.
    fn check_closure(&self, archive: &str, d: &Descriptor) -> Result<(), Error> {
        let mut pending = vec![d.clone()];
        while let Some(d) = pending.pop() {
            let bytes = self.blobs.get(&d.digest).ok_or_else(|| Error::Layout {
                archive: archive.to_string(),
                message: format!(
                    "{BLOBS_DIR}{} ({}) is named but missing",
                    d.digest.trim_start_matches("sha256:"),
                    d.media_type
                ),
            })?;
            let (blobs, children) = references(archive, &d.media_type, bytes)?;
            pending.extend(blobs);
            pending.extend(children);
        }
        Ok(())
    }

    /// The package manifest of the layout (the first entry of `index.json` whose manifest is a
    /// kubepkg package) with its tag and config.
    pub fn package(
        &self,
        archive: &str,
    ) -> Result<(Descriptor, crate::package::PackageConfig), Error> {
        for d in &self.index.manifests {
            if d.media_type != OCI_MANIFEST {
                continue;
            }
            let Some(bytes) = self.blobs.get(&d.digest) else {
                continue;
            };
            let Ok(image) = serde_json::from_slice::<crate::manifest::ImageManifest>(bytes) else {
                continue;
            };
            if image.config.media_type != crate::package::CONFIG_MEDIA_TYPE {
                continue;
            }
            let config = self
                .blobs
                .get(&image.config.digest)
                .and_then(|b| serde_json::from_slice(b).ok())
                .ok_or_else(|| Error::Layout {
                    archive: archive.to_string(),
                    message: "the package's config is not a kubepkg package config".into(),
                })?;
            return Ok((d.clone(), config));
        }
        Err(Error::Layout {
            archive: archive.to_string(),
            message: "its index.json names no kubepkg package; make the archive with `kubepkg package save`".into(),
        })
    }
}

/// Pushes every manifest of `layout` (each blob first, an index's children before it) to
/// `repo`, each under the tag its `index.json` entry names (by digest when it names none),
/// the package first.
pub async fn push(client: &Client, repo: &Reference, layout: &Layout) -> Result<Loaded, Error> {
    let mut pushed = Vec::new();
    for d in &layout.index.manifests {
        let target = match d.annotations.get(REF_NAME) {
            Some(tag) => repo.with_tag(tag),
            None => repo.with_digest(&d.digest),
        };
        push_closure(client, &target, layout, d).await?;
        pushed.push((target, d.digest.clone()));
    }
    Ok(Loaded { pushed })
}

async fn push_closure(
    client: &Client,
    target: &Reference,
    layout: &Layout,
    top: &Descriptor,
) -> Result<(), Error> {
    // Depth-first: a manifest is put once everything it names is there.
    let mut stack = vec![(top.clone(), false)];
    while let Some((d, expanded)) = stack.pop() {
        let Some(bytes) = layout.blobs.get(&d.digest) else {
            return Err(Error::NotFound {
                reference: format!("{}@{}", target.repository_url(), d.digest),
            });
        };
        let (blobs, children) = references(&target.to_string(), &d.media_type, bytes)?;
        if !expanded {
            for b in &blobs {
                if let Some(content) = layout.blobs.get(&b.digest) {
                    client.push_blob(target, &b.media_type, content).await?;
                }
            }
            stack.push((d.clone(), true));
            for c in children {
                stack.push((c, false));
            }
            continue;
        }
        let at = if d.digest == top.digest {
            target.clone()
        } else {
            target.with_digest(&d.digest)
        };
        let digest = client.push_manifest(&at, &d.media_type, bytes).await?;
        if digest != d.digest {
            return Err(Error::DigestMismatch {
                reference: at.to_string(),
                expected: d.digest.clone(),
                actual: digest,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest_with(blobs: &[(&str, &[u8])]) -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
        let mut files = Vec::new();
        let mut layers = Vec::new();
        for (t, b) in blobs {
            let d = Descriptor::of(t, b);
            files.push((
                format!("{BLOBS_DIR}{}", d.digest.trim_start_matches("sha256:")),
                b.to_vec(),
            ));
            layers.push(d);
        }
        let config = layers.remove(0);
        let m = crate::manifest::ImageManifest {
            schema_version: 2,
            media_type: Some(OCI_MANIFEST.into()),
            artifact_type: None,
            config,
            layers,
            annotations: BTreeMap::new(),
        };
        (serde_json::to_vec(&m).unwrap(), files)
    }

    fn layout_files(m: &[u8], mut files: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
        let d = Descriptor::of(OCI_MANIFEST, m);
        files.push((
            format!("{BLOBS_DIR}{}", d.digest.trim_start_matches("sha256:")),
            m.to_vec(),
        ));
        let index = Index {
            schema_version: 2,
            media_type: Some(OCI_INDEX.into()),
            manifests: vec![d],
            annotations: BTreeMap::new(),
        };
        files.push((INDEX_FILE.into(), serde_json::to_vec(&index).unwrap()));
        files.push((
            format!("./{LAYOUT_FILE}"),
            br#"{"imageLayoutVersion":"1.0.0"}"#.to_vec(),
        ));
        files
    }

    #[test]
    fn a_layout_round_trips_through_its_files() {
        let (m, files) = manifest_with(&[("a/config", b"{}"), ("a/layer", b"layer")]);
        let layout = Layout::from_files("x.tar", layout_files(&m, files)).unwrap();
        assert_eq!(layout.blobs.len(), 3);
        let again = Layout::from_files("x.tar", layout.files()).unwrap();
        assert_eq!(again, layout);
        let names: Vec<String> = layout.files().into_iter().map(|f| f.0).collect();
        assert_eq!(
            names[..2],
            ["oci-layout".to_string(), "index.json".to_string()]
        );
    }

    #[test]
    fn a_changed_blob_names_both_digests_and_a_missing_one_is_named() {
        let (m, mut files) = manifest_with(&[("a/config", b"{}"), ("a/layer", b"layer")]);
        let name = files[1].0.clone();
        files[1].1 = b"other".to_vec();
        let e = Layout::from_files("x.tar", layout_files(&m, files.clone()))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "x.tar: {name}: digest mismatch: expected sha256:{}, got {}; the archive is damaged or was altered, nothing was pushed",
                name.trim_start_matches(BLOBS_DIR),
                sha256_digest(b"other")
            )
        );
        files.remove(1);
        let e = Layout::from_files("x.tar", layout_files(&m, files))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!("x.tar: {name} (a/layer) is named but missing")),
            "{e}"
        );
        let e = Layout::from_files("x.tar", vec![]).unwrap_err().to_string();
        assert!(e.contains("it has no oci-layout file"), "{e}");
    }

    #[test]
    fn an_assembled_package_is_a_layout_that_reads_back() {
        let pkg = crate::package::PackageArtifact {
            name: "shop".into(),
            version: "1.0.0+b1".into(),
            manifest: b"package: {name: shop}".to_vec(),
            charts: vec![("web".into(), "web-0.1.0.tgz".into(), b"chart".to_vec())],
            archive: b"archive".to_vec(),
            source: None,
            created: Some("2026-01-01T00:00:00Z".into()),
        };
        let a = crate::package::assemble(&pkg).unwrap();
        let layout = of_assembled(&a);
        let again = Layout::from_files("x.tar", layout.files()).unwrap();
        let (d, config) = again.package("x.tar").unwrap();
        assert_eq!(d.digest, a.digest);
        assert_eq!(d.annotations[REF_NAME], "1.0.0_b1");
        assert_eq!(config.name, "shop");
        assert_eq!(config.components[0].chart, sha256_digest(b"chart"));
        // manifest, config, kubepkg.yaml, chart, archive
        assert_eq!(again.blobs.len(), 5);
    }

    #[test]
    fn cosign_tags_are_the_digest_with_a_dash() {
        assert_eq!(cosign_tag("sha256:ab12", ".sig"), "sha256-ab12.sig");
    }
}
