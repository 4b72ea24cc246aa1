//! The `Package` object (docs/package-object.md): group `kubepkg.dev`, version `v1alpha1`,
//! kind `Package`.
//!
//! Its own crate because two layers need it apart from each other: the engine mirrors every
//! recorded revision into the status of the object of the same name (so the CLI keeps it
//! current too), and the controller reconciles the spec.
//!
//! [`CRD`] is its CustomResourceDefinition (structural schema, status subresource, printer
//! columns); [`served`] compares it with the schema a cluster serves. The status is what kubepkg records about the package instance of the same name
//! and namespace, derived from its latest revision by [`status_of`]: the revision and version,
//! the kstatus conditions (`kubepkg_package::conditions`) and each component's release. The CLI writes
//! it whenever it records a revision, so `kubectl get packages` and any kstatus reader (Flux,
//! Argo CD, `kubectl wait --for=condition=Ready`) see what `kubepkg status` shows.

pub mod served;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use kubepkg_model::Backend;
use kubepkg_package::revision::{Condition, PackageRevision, RevisionStatus};

/// The CustomResourceDefinition of `Package` (`packages.kubepkg.dev`).
pub const CRD: &str = include_str!("../crd/packages.kubepkg.dev.yaml");
pub const GROUP: &str = "kubepkg.dev";
pub const VERSION: &str = "v1alpha1";
pub const KIND: &str = "Package";
pub const PLURAL: &str = "packages";

/// The API resource of `Package`, for the dynamic clients that read and write the objects
/// (the controller, the engine's status mirror, the dashboard).
pub fn api_resource() -> kube::core::ApiResource {
    let gvk = kube::core::GroupVersionKind::gvk(GROUP, VERSION, KIND);
    kube::core::ApiResource::from_gvk_with_plural(&gvk, PLURAL)
}

/// `spec` of a `Package`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PackageSpec {
    pub source: Source,
    /// Values per component (a top-level key per component).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub values: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values_from: Vec<ValuesFrom>,
    /// Values for one revision only (docs/rules.md#values-for-one-revision): applied with
    /// the next apply, above every other source, and not again while they stay unchanged.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub values_once: Map<String, Value>,
    /// Post-renderers per component (a key per component), run after the component's own
    /// from kubepkg.yaml: Flux HelmRelease's `postRenderers` (`kustomize` patches and images).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub post_renderers:
        std::collections::BTreeMap<String, Vec<kubepkg_chart::kustomize::PostRendererSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<Upgrade>,
    #[serde(default)]
    pub backend: Backend,
    /// With `backend: flux`: where each component's chart is pushed and Flux pulls it from
    /// (docs/backends.md#where-the-charts-come-from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flux: Option<FluxSpec>,
    /// With `backend: argocd`: where each component's chart is pushed and Argo CD pulls it
    /// from, and where its Applications live (docs/backends.md#argo-cd).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argocd: Option<ArgoCdSpec>,
    /// The controller leaves a suspended Package alone (nothing applied, nothing deleted).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub suspend: bool,
    /// How often the controller re-checks readiness and drift of an applied Package, as a Go
    /// duration (`10m` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift_detection: Option<DriftDetection>,
    /// The ServiceAccount of the Package's namespace every request for its components is
    /// made as (Kubernetes impersonation; docs/controller.md#multi-tenancy). Absent: the
    /// controller's `--default-service-account`, else the controller's own identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    /// Another cluster to apply the components in (Flux's `kubeConfig`): the components,
    /// their release and revision records and Leases live there; the Package and its status
    /// stay here (docs/controller.md#remote-clusters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kube_config: Option<KubeConfig>,
}

impl PackageSpec {
    /// Adds `spec.postRenderers` to the components of `package` (after the component's own);
    /// an unknown component or a patch that does not read is refused, named.
    pub fn add_post_renderers(
        &self,
        package: &mut kubepkg_model::Package,
    ) -> Result<(), kubepkg_chart::kustomize::PatchError> {
        use kubepkg_chart::postrender::PostRenderers;
        for (name, specs) in &self.post_renderers {
            let Some(c) = package.components.iter_mut().find(|c| &c.name == name) else {
                return Err(kubepkg_chart::kustomize::PatchError {
                    component: name.clone(),
                    place: "spec.postRenderers".into(),
                    reason: "the package has no such component".into(),
                });
            };
            let k = kubepkg_chart::kustomize::Kustomize::new(name, specs).map_err(|mut e| {
                e.place = format!("spec.{}", e.place);
                e
            })?;
            if !k.specs().is_empty() {
                c.post_renderers = c
                    .post_renderers
                    .then(&PostRenderers(vec![std::sync::Arc::new(k)]));
            }
        }
        Ok(())
    }
}

/// `spec.kubeConfig`: the kubeconfig of the target cluster, in a Secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeConfig {
    pub secret_ref: KubeConfigSecretRef,
}

/// The Secret holding a kubeconfig under `key` (`value`, else `value.yaml`, when absent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeConfigSecretRef {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Another namespace than the Package's (refused by `--no-cross-namespace-refs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// The keys a [`KubeConfigSecretRef`] without `key` reads, in order (Flux's).
pub const DEFAULT_KUBECONFIG_KEYS: [&str; 2] = ["value", "value.yaml"];

impl PackageSpec {
    /// The references of this spec that name a namespace other than `own` (the Package's),
    /// as `field (kind namespace/name)`: what `--no-cross-namespace-refs` refuses.
    pub fn cross_namespace_refs(&self, own: &str) -> Vec<String> {
        let mut refs: Vec<(String, &str, &str, Option<&str>)> = Vec::new();
        let source = &self.source;
        if let Some(r) = &source.config_map_ref {
            refs.push((
                "source.configMapRef".into(),
                "ConfigMap",
                &r.name,
                r.namespace.as_deref(),
            ));
        }
        if let Some(r) = &source.secret_ref {
            refs.push((
                "source.secretRef".into(),
                "Secret",
                &r.name,
                r.namespace.as_deref(),
            ));
        }
        if let Some(r) = source.git.as_ref().and_then(|g| g.secret_ref.as_ref()) {
            refs.push((
                "source.git.secretRef".into(),
                "Secret",
                &r.name,
                r.namespace.as_deref(),
            ));
        }
        if let Some(r) = &source.source_ref {
            refs.push((
                "source.sourceRef".into(),
                &r.kind,
                &r.name,
                r.namespace.as_deref(),
            ));
        }
        if let Some(v) = &source.verify {
            let r = &v.secret_ref;
            refs.push((
                "source.verify.secretRef".into(),
                "Secret",
                &r.name,
                r.namespace.as_deref(),
            ));
        }
        if let Some(k) = &self.kube_config {
            let r = &k.secret_ref;
            refs.push((
                "kubeConfig.secretRef".into(),
                "Secret",
                &r.name,
                r.namespace.as_deref(),
            ));
        }
        for (i, v) in self.values_from.iter().enumerate() {
            refs.push((
                format!("valuesFrom[{i}]"),
                &v.kind,
                &v.name,
                v.namespace.as_deref(),
            ));
        }
        refs.into_iter()
            .filter_map(|(field, kind, name, namespace)| {
                let namespace = namespace.filter(|n| !n.is_empty() && *n != own)?;
                Some(format!("{field} ({kind} {namespace}/{name})"))
            })
            .collect()
    }
}

/// What the controller does when live objects differ from what their release applied.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DriftDetection {
    #[serde(default)]
    pub mode: DriftMode,
}

/// `enabled` corrects drift, `warn` reports it (condition and Event), `disabled` ignores it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DriftMode {
    Enabled,
    Warn,
    #[default]
    Disabled,
}

/// Where the package comes from: exactly one of `oci` (with `version`), `url` (with
/// `sha256`), `configMapRef`/`secretRef` (a package archive stored in the cluster), `git` (a
/// directory of a Git repository), `sourceRef` (a directory of a Flux source's artifact) or,
/// for the CLI only, `path`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// With `oci`: talk plain HTTP to the registry (no TLS), as `--plain-http`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub insecure: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A ConfigMap of the Package's namespace holding the package archive (`binaryData`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map_ref: Option<ArchiveRef>,
    /// A Secret of the Package's namespace holding the package archive; with `oci`, a
    /// `kubernetes.io/dockerconfigjson` Secret with the registry's credentials instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<ArchiveRef>,
    /// With `oci`: the artifact's cosign signature is verified before it is used (Flux's
    /// `verify` of an `OCIRepository`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<Verify>,
    /// A package directory in a Git repository (Flux's `GitRepository` fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitSource>,
    /// A package directory in the artifact a Flux source (`GitRepository`, `OCIRepository`,
    /// `Bucket`) already fetched and verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_ref: Option<FluxSourceRef>,
}

/// `source.sourceRef`: a Flux source object whose artifact holds the package, and the
/// package's directory in it (Flux Kustomization's `sourceRef` and `path`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxSourceRef {
    /// `GitRepository`, `OCIRepository` or `Bucket` (of `source.toolkit.fluxcd.io/v1`).
    pub kind: String,
    pub name: String,
    /// Another namespace than the Package's (refused by `--no-cross-namespace-refs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The directory with `kubepkg.yaml` in the artifact; absent: its root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// The kinds `source.sourceRef` may name, Flux's `source.toolkit.fluxcd.io/v1` sources that
/// publish an artifact.
pub const FLUX_SOURCE_KINDS: [&str; 3] = ["GitRepository", "OCIRepository", "Bucket"];

/// `source.git`: the repository, which commit, the package's directory, credentials and how
/// often to look for a new commit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GitSource {
    /// `https://…`, `http://…` or `ssh://…`.
    pub url: String,
    /// Which commit; absent: the remote's default branch.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<GitRef>,
    /// The package's directory in the tree (the one with `kubepkg.yaml`); absent: the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A Secret with Flux's keys: `username` and `password` (HTTP basic auth), or
    /// `bearerToken`, or for `ssh://` `identity` (a private key without passphrase) and
    /// `known_hosts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<ObjectRef>,
    /// How often the repository is checked for a new commit, as a Go duration; absent: the
    /// Package's `interval`. The shorter of the two is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
}

/// `source.git.ref`, Flux's: when several are set, `commit` wins over `semver`, `semver` over
/// `tag`, `tag` over `branch`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GitRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// A SemVer constraint: the newest tag whose name is a version matching it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semver: Option<String>,
    /// A full commit hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// `source.verify`: `{provider: cosign, secretRef: {name}}`, Flux's shape; the Secret's keys
/// ending in `.pub` are the accepted public keys (`cosign.pub` files).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Verify {
    /// `cosign` (the only provider).
    pub provider: String,
    pub secret_ref: ObjectRef,
}

/// An object by name, in the Package's namespace unless `namespace` names another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ObjectRef {
    pub name: String,
    /// Another namespace (refused by the controller's `--no-cross-namespace-refs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// A package archive (`.tgz`) stored under `key` of a ConfigMap or Secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArchiveRef {
    pub name: String,
    /// Another namespace than the Package's (refused by `--no-cross-namespace-refs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The key holding the archive; `package.tgz` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl ArchiveRef {
    /// The key read: `key`, or `package.tgz`.
    pub fn key(&self) -> &str {
        self.key.as_deref().unwrap_or(DEFAULT_ARCHIVE_KEY)
    }
}

/// The label that names a Package's shard (docs/controller.md#sharding): a controller run with
/// `--watch-label-selector kubepkg.dev/shard=NAME` reconciles the Packages labelled so, and a
/// PackageRollout's Packages carry the rollout's.
pub const SHARD_LABEL: &str = "kubepkg.dev/shard";

/// The key an [`ArchiveRef`] reads when it names none.
pub const DEFAULT_ARCHIVE_KEY: &str = "package.tgz";

/// Values read from a Secret or ConfigMap of the Package's namespace (or of `namespace`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValuesFrom {
    pub kind: String,
    pub name: String,
    /// Another namespace than the Package's (refused by `--no-cross-namespace-refs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Upgrade {
    /// Per-component readiness timeout as a Go duration (`10m`, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
}

/// `spec.flux` of a `backend: flux` Package.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxSpec {
    /// `oci://HOST/PATH`: each component's chart is pushed to `<chartRepository>/<chart name>`
    /// by kubepkg and pulled from there, by digest, by the component's `OCIRepository`.
    pub chart_repository: String,
    /// A `kubernetes.io/dockerconfigjson` Secret of the Package's namespace with the
    /// registry's credentials: kubepkg pushes with it, and the `OCIRepository`s pull with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<SecretRef>,
    /// The registry speaks plain HTTP (no TLS), for kubepkg and Flux alike.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub insecure: bool,
}

/// `spec.argocd` of a `backend: argocd` Package.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArgoCdSpec {
    /// `oci://HOST/PATH`: each component's chart is pushed to `<chartRepository>/<chart name>`
    /// by kubepkg and pulled from there, by version, by Argo CD's repo server.
    pub chart_repository: String,
    /// A `kubernetes.io/dockerconfigjson` Secret of the Package's namespace with the
    /// registry's credentials kubepkg pushes with (Argo CD pulls with its own repository
    /// credentials).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<SecretRef>,
    /// The registry speaks plain HTTP (no TLS): kubepkg pushes so, and writes the repository
    /// Secret that makes Argo CD pull so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub insecure: bool,
    /// The namespace of the Applications (Argo CD's, or one of its application namespaces;
    /// default: the Package's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The AppProject of the Applications (default `default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

/// A Secret of the Package's namespace, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SecretRef {
    pub name: String,
}

/// `status` of a `Package`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageStatus {
    /// The `metadata.generation` acted on (written by the controller; the CLI leaves it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default)]
    pub revision: u64,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub conditions: Vec<Condition>,
    #[serde(default)]
    pub components: Vec<ComponentStatus>,
    /// With `spec.kubeConfig`: the cluster the components are applied in (written by the
    /// controller).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
}

/// `status.target`: where a remote Package's components live.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// The target's API server URL.
    pub server: String,
    /// The Secret its kubeconfig came from (`NAMESPACE/NAME`).
    pub kube_config: String,
}

/// One component in `status.components`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentStatus {
    pub name: String,
    pub release: String,
    pub namespace: String,
    pub revision: u64,
    pub ready: bool,
    /// What the component waits for while it is being applied (`Deployment shop/web: 1/2
    /// updated`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<String>,
}

/// The status a `Package` shows for its latest revision `rev`. A component is ready when the
/// revision is deployed and Ready (a package whose upgrade was rolled back runs its previous
/// components, which are ready, but is itself not Ready).
pub fn status_of(rev: &PackageRevision, observed_generation: Option<i64>) -> PackageStatus {
    let conditions = if rev.conditions.is_empty() {
        kubepkg_package::conditions::implied(rev)
    } else {
        rev.conditions.clone()
    };
    let deployed = rev.status == RevisionStatus::Deployed;
    PackageStatus {
        observed_generation,
        revision: rev.revision,
        version: rev.version.clone(),
        conditions,
        components: rev
            .components
            .iter()
            .map(|c| ComponentStatus {
                name: c.name.clone(),
                release: c.release.clone(),
                namespace: c.namespace.clone(),
                revision: c.revision,
                ready: deployed && c.revision > 0,
                waiting_for: None,
            })
            .collect(),
        target: None,
    }
}

#[cfg(test)]
mod tests {

    /// `text` read as the API server and kubectl read YAML (go-yaml, through kubepkg-yaml).
    fn yaml<T: serde::de::DeserializeOwned>(text: &str) -> T {
        serde_json::from_str(&kubepkg_yaml::yaml_to_json(text).unwrap()).unwrap()
    }

    #[test]
    fn spec_post_renderers_join_the_components_and_unknown_ones_are_refused() {
        let dir = std::env::temp_dir().join(format!("kubepkg-po-pr-{}", std::process::id()));
        kubepkg_testkit::charts::write_chart(&dir, "web", "1.0.0", &[]);
        let mut package = kubepkg_model::source::load_dir(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let spec: PackageSpec = yaml(
            "source: {oci: oci://r/p}\npostRenderers:\n  web:\n  - kustomize:\n      images: [{name: nginx, newTag: '2'}]\n",
        );
        spec.add_post_renderers(&mut package).unwrap();
        assert_eq!(
            package.components[0].post_renderers.describe(),
            ["kustomize: 0 patches, 1 images"]
        );
        let spec: PackageSpec = yaml(
            "source: {oci: oci://r/p}\npostRenderers:\n  db:\n  - kustomize: {images: [{name: x}]}\n  web:\n  - kustomize: {patches: [{patch: 'a: b: c'}]}\n",
        );
        let e = spec.add_post_renderers(&mut package).unwrap_err();
        assert_eq!(
            e.to_string(),
            "component \"db\": spec.postRenderers: the package has no such component"
        );
        let spec: PackageSpec = yaml(
            "source: {oci: oci://r/p}\npostRenderers:\n  web:\n  - kustomize: {patches: [{patch: 'a: b: c'}]}\n",
        );
        let e = spec.add_post_renderers(&mut package).unwrap_err();
        assert!(e.to_string().starts_with("component \"web\": spec.postRenderers[0].kustomize.patches[0]: the patch is not valid YAML"), "{e}");
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn spec_reads_the_spec_example_and_refuses_unknown_fields() {
        // A spec with every field (docs/package-object.md#spec).
        let spec: PackageSpec = serde_json::from_value(json!({
            "source": {"oci": "oci://registry.example/pkgs/kubevirt", "version": "1.4.0"},
            "values": {"kubevirt": {"featureGates": ["Snapshot"]}},
            "valuesFrom": [{"kind": "Secret", "name": "kubevirt-values"}],
            "upgrade": {"timeout": "10m"},
            "backend": "helm"
        }))
        .unwrap();
        assert_eq!(spec.backend, Backend::Helm);
        assert_eq!(spec.source.version.as_deref(), Some("1.4.0"));
        let verified: PackageSpec = serde_json::from_value(json!({
            "source": {"oci": "oci://r.example/p", "verify": {"provider": "cosign", "secretRef": {"name": "keys"}}},
        }))
        .unwrap();
        let verify = verified.source.verify.unwrap();
        assert_eq!(
            (verify.provider.as_str(), verify.secret_ref.name.as_str()),
            ("cosign", "keys")
        );
        assert_eq!(spec.values_from[0].name, "kubevirt-values");
        let e = serde_json::from_value::<PackageSpec>(json!({
            "source": {"path": "."}, "upgrades": {}
        }))
        .unwrap_err()
        .to_string();
        assert!(e.contains("unknown field `upgrades`"), "{e}");
        let flux: PackageSpec =
            serde_json::from_value(json!({"source": {"path": "."}, "backend": "flux"})).unwrap();
        assert_eq!(flux.backend, Backend::Flux);
        let with_repo: PackageSpec = serde_json::from_value(json!({
            "source": {"path": "."},
            "backend": "flux",
            "flux": {"chartRepository": "oci://r.example/charts", "insecure": true, "secretRef": {"name": "pull"}},
        }))
        .unwrap();
        let f = with_repo.flux.unwrap();
        assert_eq!(f.chart_repository, "oci://r.example/charts");
        assert!(f.insecure);
        assert_eq!(f.secret_ref.unwrap().name, "pull");
        let argocd: PackageSpec = serde_json::from_value(json!({
            "source": {"path": "."},
            "backend": "argocd",
            "argocd": {"chartRepository": "oci://r.example/charts", "namespace": "argocd", "project": "shop"},
        }))
        .unwrap();
        assert_eq!(argocd.backend, Backend::Argocd);
        let a = argocd.argocd.unwrap();
        assert_eq!(a.namespace.as_deref(), Some("argocd"));
        assert_eq!(a.project.as_deref(), Some("shop"));
        assert!(!a.insecure);
    }

    #[test]
    fn crd_is_the_package_kind_with_a_status_subresource() {
        let crd: Value = yaml(CRD);
        assert_eq!(crd["metadata"]["name"], json!(format!("{PLURAL}.{GROUP}")));
        assert_eq!(crd["spec"]["names"]["kind"], json!(KIND));
        let v = &crd["spec"]["versions"][0];
        assert_eq!(v["name"], json!(VERSION));
        assert!(v["subresources"]["status"].is_object());
    }

    #[test]
    fn a_git_source_reads_fluxs_fields_and_its_secret_counts_as_a_reference() {
        let spec: PackageSpec = serde_json::from_value(json!({
            "source": {"git": {
                "url": "https://git.example/shop.git", "ref": {"tag": "v1.2.0"},
                "path": "deploy/shop", "interval": "1m",
                "secretRef": {"name": "creds", "namespace": "shared"},
            }},
        }))
        .unwrap();
        let git = spec.source.git.as_ref().unwrap();
        assert_eq!(
            git.reference.as_ref().unwrap().tag.as_deref(),
            Some("v1.2.0")
        );
        assert_eq!(git.path.as_deref(), Some("deploy/shop"));
        assert_eq!(
            spec.cross_namespace_refs("team-a"),
            ["source.git.secretRef (Secret shared/creds)"]
        );
        let typo = serde_json::from_value::<PackageSpec>(json!({
            "source": {"git": {"url": "https://git.example/shop.git", "ref": {"brnach": "main"}}},
        }));
        assert!(typo.is_err());
        // The CRD has the same fields.
        let crd: Value = yaml(CRD);
        let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"];
        let git = &schema["spec"]["properties"]["source"]["properties"]["git"]["properties"];
        for field in ["url", "ref", "path", "secretRef", "interval"] {
            assert!(
                git[field].is_object(),
                "source.git.{field} is not in the CRD"
            );
        }
        for field in ["branch", "tag", "semver", "commit"] {
            assert!(git["ref"]["properties"][field].is_object(), "ref.{field}");
        }
        assert!(schema["status"]["properties"]["sourceRevision"].is_object());
    }

    #[test]
    fn a_flux_source_ref_names_its_kind_and_counts_as_a_reference() {
        let spec: PackageSpec = serde_json::from_value(json!({
            "source": {"sourceRef": {
                "kind": "GitRepository", "name": "platform", "namespace": "flux-system",
                "path": "./packages/shop",
            }},
        }))
        .unwrap();
        let r = spec.source.source_ref.as_ref().unwrap();
        assert_eq!(
            (r.kind.as_str(), r.name.as_str()),
            ("GitRepository", "platform")
        );
        assert_eq!(r.path.as_deref(), Some("./packages/shop"));
        assert_eq!(
            spec.cross_namespace_refs("team-a"),
            ["source.sourceRef (GitRepository flux-system/platform)"]
        );
        assert!(
            serde_json::from_value::<PackageSpec>(json!({
                "source": {"sourceRef": {"kind": "GitRepository", "nmae": "x"}},
            }))
            .is_err()
        );
        // The CRD has the same fields, and its kinds are FLUX_SOURCE_KINDS.
        let crd: Value = yaml(CRD);
        let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"];
        let source_ref =
            &schema["spec"]["properties"]["source"]["properties"]["sourceRef"]["properties"];
        for field in ["kind", "name", "namespace", "path"] {
            assert!(
                source_ref[field].is_object(),
                "sourceRef.{field} is not in the CRD"
            );
        }
        assert_eq!(source_ref["kind"]["enum"], json!(FLUX_SOURCE_KINDS));
    }

    #[test]
    fn cross_namespace_refs_are_those_naming_another_namespace() {
        let spec: PackageSpec = serde_json::from_value(json!({
            "source": {"oci": "oci://r/p", "secretRef": {"name": "pull", "namespace": "shared"},
                       "verify": {"provider": "cosign", "secretRef": {"name": "keys", "namespace": "team-a"}}},
            "valuesFrom": [
                {"kind": "ConfigMap", "name": "own"},
                {"kind": "Secret", "name": "same", "namespace": "team-a"},
                {"kind": "Secret", "name": "theirs", "namespace": "team-b"},
            ],
            "kubeConfig": {"secretRef": {"name": "prod", "namespace": "clusters"}},
        }))
        .unwrap();
        assert_eq!(
            spec.cross_namespace_refs("team-a"),
            [
                "source.secretRef (Secret shared/pull)",
                "kubeConfig.secretRef (Secret clusters/prod)",
                "valuesFrom[2] (Secret team-b/theirs)",
            ]
        );
        let local: PackageSpec = serde_json::from_value(json!({
            "source": {"configMapRef": {"name": "pkg"}},
            "valuesFrom": [{"kind": "Secret", "name": "v", "namespace": ""}],
        }))
        .unwrap();
        assert!(local.cross_namespace_refs("team-a").is_empty());
    }
}
