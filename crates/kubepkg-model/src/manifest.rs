//! The package model: what a `kubepkg.yaml` describes once read and validated (docs/kubepkg-yaml.md).
//!
//! A [`Package`] is its metadata ([`PackageMeta`]: name, SemVer version, rollback
//! declarations, `requires`) and its [`Component`]s, each a chart that becomes one Helm
//! release, with chart paths resolved. [`crate::parse`] reads a manifest into this model;
//! nothing here reads files.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::constraint::Constraint;

/// The manifest's file name inside a package.
pub const MANIFEST_FILE: &str = "kubepkg.yaml";

/// A validated package: its metadata and components, with chart paths resolved.
#[derive(Debug, Clone)]
pub struct Package {
    /// The package directory (for an archive, where it was extracted).
    pub root: PathBuf,
    /// The manifest as named in messages (`<source>/kubepkg.yaml`, or the Chart.yaml of a bare chart).
    pub manifest_file: PathBuf,
    /// `package:` of the manifest.
    pub meta: PackageMeta,
    /// `components:` in manifest order.
    pub components: Vec<Component>,
    /// `sha256:<hex>` of the manifest file's bytes.
    pub digest: String,
    /// True when the package is a bare chart directory (no kubepkg.yaml): one component whose
    /// release takes the package instance's name, as `helm install NAME CHART` would.
    pub bare_chart: bool,
    /// Where the package was pulled from (`oci://…`: the resolved tag and digest; `git+…`: the
    /// branch or tag and the commit); set by the caller that fetched it, `None` for a local directory or archive. Recorded in the
    /// package revision.
    pub source: Option<PackageSource>,
}

/// The registry artifact or Git commit a package was taken from: the revision that applies
/// it records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageSource {
    /// The repository: `oci://host/repo/name`, or `git+https://host/repo.git//path` (a Git
    /// repository and the package's directory in it), or `flux:KIND/NAMESPACE/NAME//path` (a
    /// Flux source and the directory in its artifact).
    pub reference: String,
    /// The tag `--version` resolved to (empty when pulled by digest); for Git, the branch or
    /// tag the ref resolved to (empty for a commit); for a Flux source, its artifact's
    /// revision (`main@sha1:…`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tag: String,
    /// The manifest digest, `sha256:…`; for Git, the commit, `sha1:…`; for a Flux source, the
    /// artifact's digest, `sha256:…`.
    pub digest: String,
}

impl PackageSource {
    /// Whether this is a Git commit (`git+…`).
    pub fn is_git(&self) -> bool {
        self.reference.starts_with("git+")
    }

    /// Whether this is a Flux source's artifact (`flux:KIND/NAMESPACE/NAME[//PATH]`).
    pub fn is_flux(&self) -> bool {
        self.reference.starts_with("flux:")
    }
}

impl std::fmt::Display for PackageSource {
    /// `oci://host/repo/name:TAG@sha256:…`; for Git, the repository and path then Flux's
    /// revision, `git+https://host/repo.git//path main@sha1:…`; for a Flux source, the source
    /// and path, the artifact's revision and its digest,
    /// `flux:GitRepository/ns/name//path main@sha1:… (sha256:…)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reference)?;
        if self.is_flux() {
            return write!(f, " {} ({})", self.tag, self.digest);
        }
        if self.is_git() {
            f.write_str(" ")?;
            if !self.tag.is_empty() {
                write!(f, "{}@", self.tag)?;
            }
            return f.write_str(&self.digest);
        }
        if !self.tag.is_empty() {
            write!(f, ":{}", self.tag)?;
        }
        write!(f, "@{}", self.digest)
    }
}

#[cfg(test)]
mod source_tests {
    use super::PackageSource;

    #[test]
    fn a_source_prints_as_its_registry_reference_or_git_revision() {
        let oci = PackageSource {
            reference: "oci://r.example/pkgs/shop".into(),
            tag: "1.2.0".into(),
            digest: "sha256:ab".into(),
        };
        assert_eq!(oci.to_string(), "oci://r.example/pkgs/shop:1.2.0@sha256:ab");
        let git = PackageSource {
            reference: "git+https://g.example/shop.git//deploy".into(),
            tag: "main".into(),
            digest: "sha1:cd".into(),
        };
        assert!(git.is_git() && !oci.is_git());
        assert_eq!(
            git.to_string(),
            "git+https://g.example/shop.git//deploy main@sha1:cd"
        );
        let commit = PackageSource {
            tag: String::new(),
            ..git
        };
        assert_eq!(
            commit.to_string(),
            "git+https://g.example/shop.git//deploy sha1:cd"
        );
        let flux = PackageSource {
            reference: "flux:GitRepository/flux-system/platform//packages/shop".into(),
            tag: "main@sha1:cd".into(),
            digest: "sha256:ef".into(),
        };
        assert!(flux.is_flux() && !flux.is_git() && !commit.is_flux());
        assert_eq!(
            flux.to_string(),
            "flux:GitRepository/flux-system/platform//packages/shop main@sha1:cd (sha256:ef)"
        );
    }
}

/// `package:` — what the package is and how it may be upgraded.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageMeta {
    pub name: String,
    /// SemVer 2 version.
    pub version: kubepkg_semver::Version,
    /// `rollback.safe`: once this version has run, can the version before it run again?
    /// `None` when the manifest does not say; automatic rollback needs an explicit `true` (or a
    /// `rollback.to` floor).
    pub rollback_safe: Option<bool>,
    /// `rollback.to`: the older versions that may run again once this one has run (its
    /// rollback floor, e.g. `>=2.0.0`); `None`: not declared.
    pub rollback_to: Option<Constraint>,
    pub requires: Vec<Requirement>,
}

impl PackageMeta {
    /// Whether this version allows a failed upgrade *to* it to be rolled back at all: it
    /// declares `rollback.safe: true`, or a `rollback.to` floor (which says which older versions
    /// are safe) without `rollback.safe` (docs/rules.md#failure-and-rollback). Which target the
    /// floors admit is the rollback policy's to judge (`kubepkg_package::rollback_policy::on_failure`).
    pub fn rollback_is_safe(&self) -> bool {
        match self.rollback_safe {
            Some(safe) => safe,
            None => self.rollback_to.is_some(),
        }
    }
}

/// One `requires` entry: another package (by `Package` name) that must be Ready first.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirement {
    pub name: String,
    pub version: Option<Constraint>,
    /// Only orders: if installed it must be Ready first; if absent nobody waits.
    pub optional: bool,
}

/// When a component is applied.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, JsonSchema,
)]
pub enum Phase {
    /// A normal component, applied in dependency order.
    #[default]
    Install,
    /// A hook: runs before every other component, only when the package version changes.
    PreUpgrade,
    /// A hook: runs before every rollback away from this version, automatic or manual, and
    /// can refuse it (docs/rules.md#prerollback-hooks).
    PreRollback,
}

/// Where a component's chart is: inside the package, or in a Helm chart repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartSource {
    /// A chart directory (holds `Chart.yaml`).
    Directory(PathBuf),
    /// A chart archive (`.tgz`).
    Archive(PathBuf),
    /// `chart: {repository, name, version}`: a chart of a Helm chart repository, fetched by
    /// its `kubepkg.lock` entry before anything is rendered (`kubepkg_source::package`); it
    /// becomes an [`ChartSource::Archive`] in kubepkg's chart cache.
    Repository(RepositoryChart),
}

/// A component's `chart:` naming a chart of a Helm chart repository or an OCI registry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepositoryChart {
    /// The repository URL (`https://…`), or a registry repository (`oci://host/repo`, the
    /// chart being `oci://host/repo/<name>`).
    #[schemars(regex(pattern = r"^(https?|oci)://"))]
    pub repository: String,
    /// The chart's name in the repository's index (in a registry: the last path component).
    #[schemars(regex(pattern = r"^[^/]+$"))]
    pub name: String,
    /// An exact version or a SemVer constraint (`15.x`).
    pub version: String,
}

impl ChartSource {
    /// The resolved path on disk (empty for a [`ChartSource::Repository`] chart not fetched yet).
    pub fn path(&self) -> &Path {
        match self {
            ChartSource::Directory(p) | ChartSource::Archive(p) => p,
            ChartSource::Repository(_) => Path::new(""),
        }
    }
}

/// One component: a chart that becomes one Helm release.
#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    pub name: String,
    /// `path` as written in the manifest.
    pub path: String,
    pub chart: ChartSource,
    /// `values`: package-level defaults for this component (a mapping).
    pub values: serde_json::Map<String, serde_json::Value>,
    /// `install.namespace`; `None` means the namespace the package is installed into.
    pub namespace: Option<String>,
    pub depends_on: Vec<String>,
    pub ready_when: Vec<ReadyCondition>,
    pub phase: Phase,
    /// Opt-in: the chart also receives the `kubepkg.*` values.
    pub upgrade_context: bool,
    /// Line of the component's entry in the manifest (0 when not from a manifest).
    pub line: u64,
    /// What post-renders the component's rendered manifests, in order: a Helm 4
    /// `postrenderer/v1` plugin the CLI was given (`--post-renderer`), kubepkg's patches.
    /// Part of the one render path (kubepkg-package's `render_component`).
    pub post_renderers: kubepkg_chart::postrender::PostRenderers,
}

impl Component {
    /// Whether the component is a hook (`PreUpgrade` or `PreRollback`): never part of the
    /// install order nor of a revision's components.
    pub fn is_hook(&self) -> bool {
        matches!(self.phase, Phase::PreUpgrade | Phase::PreRollback)
    }

    /// Whether the component is a `PreRollback` hook.
    pub fn is_pre_rollback(&self) -> bool {
        self.phase == Phase::PreRollback
    }

    /// Whether the chart receives the `kubepkg.*` values (hooks always do).
    pub fn gets_upgrade_context(&self) -> bool {
        self.is_hook() || self.upgrade_context
    }

    /// The namespace the component is installed into, given the package's namespace.
    pub fn namespace_or<'a>(&'a self, package_namespace: &'a str) -> &'a str {
        self.namespace.as_deref().unwrap_or(package_namespace)
    }
}

/// A `readyWhen` entry: an object whose `status.conditions[type=condition].status` must equal `status`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadyCondition {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    /// Defaults to the component's namespace; ignored for cluster-scoped kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub condition: String,
    /// Expected condition status, `"True"` by default.
    pub status: String,
}

impl Package {
    /// The component named `name`.
    pub fn component(&self, name: &str) -> Option<&Component> {
        self.components.iter().find(|c| c.name == name)
    }

    /// Checks that the package can be installed as `instance`: the name is a DNS-1123 label of
    /// at most 53 characters (it names the Lease `kubepkg.package.<name>`, the revision
    /// Secrets and their `name` label) and every component's release name fits Helm's
    /// 53-character limit.
    pub fn check_instance_name(&self, instance: &str) -> Result<(), InstanceNameError> {
        check_dns_label(instance, MAX_RELEASE_NAME).map_err(|reason| {
            InstanceNameError::Invalid {
                name: instance.to_string(),
                reason,
            }
        })?;
        for c in &self.components {
            let release = self.release_name(instance, &c.name);
            if release.len() > MAX_RELEASE_NAME {
                return Err(InstanceNameError::ReleaseTooLong {
                    length: release.len(),
                    release,
                    component: c.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// The Helm release name of a component when the package is installed as `instance`:
    /// `<instance>-<component>`, or `<instance>` itself for a bare chart.
    pub fn release_name(&self, instance: &str, component: &str) -> String {
        if self.bare_chart {
            instance.to_string()
        } else {
            format!("{instance}-{component}")
        }
    }
}

/// `sha256:<hex>` of bytes.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let sum = Sha256::digest(bytes);
    let mut s = String::from("sha256:");
    for b in sum {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Helm's limit on release names (`chartutil.ValidateReleaseName`).
pub const MAX_RELEASE_NAME: usize = 53;

/// A package instance name (`kubepkg apply NAME`) that the API server or Helm would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstanceNameError {
    /// Not a DNS-1123 label of at most 53 characters.
    #[error(
        "package name {name:?} is not valid: {reason}; a package name must be at most 53 characters of lowercase letters, digits and '-', starting and ending with a letter or digit (it names the Lease kubepkg.package.<name> and the Helm release <name>-<component> of each component)"
    )]
    Invalid { name: String, reason: String },
    /// `<name>-<component>` is longer than Helm allows.
    #[error(
        "release name {release:?} of component {component:?} is {length} characters long, Helm allows 53; choose a shorter package name"
    )]
    ReleaseTooLong {
        release: String,
        component: String,
        length: usize,
    },
}

/// DNS-1123 label check (what release and object names need). Returns the reason on failure.
pub fn check_dns_label(name: &str, max: usize) -> Result<(), String> {
    if name.is_empty() {
        return Err("it is empty".into());
    }
    if name.len() > max {
        return Err(format!(
            "it is {} characters long, at most {max} are allowed",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Err(format!("it contains {c:?}"));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err("it starts or ends with '-'".into());
    }
    Ok(())
}

/// Parses a package version as strict SemVer 2.
pub fn parse_version(text: &str) -> Result<kubepkg_semver::Version, String> {
    kubepkg_semver::Version::parse_strict(text).map_err(|e| e.to_string())
}
