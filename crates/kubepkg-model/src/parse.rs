//! Reading `kubepkg.yaml` (docs/kubepkg-yaml.md): strictly, then validated, into the
//! [`Package`] model; and the manifest's JSON Schema, generated from the same raw shape.
//!
//! Reading goes through `kubepkg-yaml` as Helm reads a values file (go-yaml v2's scalars:
//! `yes`/`on` are booleans, `1.4` a number) with each node's line and column
//! (`kubepkg_yaml::de`), and is strict: unknown fields, duplicate keys, wrong types, missing
//! fields and a second document are errors naming the line and column. A component's `values`
//! are therefore exactly what `helm install -f` would read from the same text. Validation then
//! checks what the shape cannot: names, SemVer, constraints, chart paths, `dependsOn` targets,
//! cycles, hooks and `readyWhen`. Every problem is collected and reported at once
//! ([`PackageError::Invalid`]); nothing is applied from an invalid package.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component as PathPart, Path, PathBuf};

use kubepkg_yaml::de::Spanned;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::constraint::Constraint;
use crate::error::{PackageError, Problem, ProblemKind};
use crate::manifest::{
    ChartSource, Component, Package, PackageMeta, Phase, ReadyCondition, RepositoryChart,
    Requirement, check_dns_label, digest, parse_version,
};

// ---- raw shape, read strictly ----
//
// These types are also the source of the JSON Schema of kubepkg.yaml ([`json_schema`]): their
// doc comments are its descriptions, and the `schemars` attributes state in the schema what
// validation checks after reading (names, versions, required fields). What a schema cannot
// say (duplicates across entries, dependency cycles, chart paths on disk, constraint syntax)
// only the parser checks; `parse/schema_tests.rs` holds the two to the same refusals otherwise.

/// A DNS-1123 label of at most 53 characters (package and component names).
const DNS_LABEL: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

/// Strict SemVer 2 (semver.org's expression), as [`parse_version`] reads a package version.
const SEMVER: &str = r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$";

/// A version constraint as written: a string, or a number YAML read from an unquoted `1.2`.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
#[schemars(rename = "Constraint")]
enum ConstraintText {
    Text(String),
    Number(f64),
}

/// A kubepkg package: a versioned set of Helm charts (components), installed one at a time in
/// dependency order, each waited until ready.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "kubepkg.yaml")]
struct RawManifest {
    /// The package's name and version, what it requires and how it may be rolled back.
    #[schemars(with = "RawPackage")]
    package: Spanned<RawPackage>,
    /// The charts of the package, each one Helm release (at least one).
    #[schemars(with = "Vec<RawComponent>", required, length(min = 1))]
    components: Option<Vec<Spanned<RawComponent>>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Package")]
struct RawPackage {
    /// The package name (a DNS label, at most 53 characters).
    #[schemars(with = "String", regex(pattern = DNS_LABEL), length(max = 53))]
    name: Spanned<String>,
    /// The package version, strict SemVer 2 (`1.4.0`, `2.0.0-rc.1`); quote it if YAML would
    /// read it as a number.
    #[schemars(with = "String", regex(pattern = SEMVER))]
    version: Spanned<serde_json::Value>,
    /// Whether older versions may run again after this one (docs/rules.md#rollback).
    #[schemars(with = "Option<RawRollback>")]
    rollback: Option<Spanned<RawRollback>>,
    /// Packages that must be Ready in the cluster before this one is applied.
    #[serde(default)]
    #[schemars(with = "Vec<RawRequirement>")]
    requires: Vec<Spanned<RawRequirement>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Rollback")]
struct RawRollback {
    /// `true`: a failed upgrade to this version is rolled back automatically; `false`: never
    /// (the version changes data older versions cannot read).
    safe: Option<bool>,
    /// The oldest versions this one may be rolled back to, a SemVer constraint (`>=2.0.0`).
    #[schemars(with = "Option<ConstraintText>")]
    to: Option<serde_json::Value>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Requirement")]
struct RawRequirement {
    /// The name of the required package (its Package object or revisions in the namespace).
    #[schemars(regex(pattern = DNS_LABEL), length(max = 53))]
    name: String,
    /// A SemVer constraint on the required package's version (`>=1.2.0`).
    #[schemars(with = "Option<ConstraintText>")]
    version: Option<serde_json::Value>,
    /// `true`: only orders (applied after it when both are present); never waits for it.
    #[serde(default)]
    optional: bool,
}

/// A component: one chart, one Helm release (`<instance>-<name>`). Either `path` or `chart`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("oneOf" = [
    {"required": ["path"], "properties": {"path": {"type": "string"}}},
    {"required": ["chart"], "properties": {"chart": {"type": "object"}}}
]))]
#[schemars(rename = "Component")]
struct RawComponent {
    /// The component name (a DNS label, at most 53 characters).
    #[schemars(with = "String", regex(pattern = DNS_LABEL), length(max = 53))]
    name: Spanned<String>,
    /// A chart directory or `.tgz` inside the package, relative to kubepkg.yaml, or a chart
    /// in an OCI registry, `oci://host/repo/chart` (with `version`; pinned in kubepkg.lock).
    #[schemars(with = "Option<String>")]
    path: Option<Spanned<String>>,
    /// With an `oci://` path: the chart's version or a SemVer constraint over the tags.
    #[schemars(with = "Option<String>")]
    version: Option<Spanned<String>>,
    /// A chart of a Helm chart repository (pinned in kubepkg.lock).
    #[schemars(with = "Option<RepositoryChart>")]
    chart: Option<Spanned<RepositoryChart>>,
    /// Values for this component's chart (above the chart's defaults, below the user's).
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    values: Option<Spanned<serde_json::Value>>,
    /// How and when the component is installed.
    install: Option<RawInstall>,
    /// What post-renders the chart's manifests and hooks, in order, as Flux's HelmRelease
    /// `postRenderers` do: `kustomize` with `patches` (strategic merge or JSON 6902, with a
    /// `target`) and `images` (docs/kubepkg-yaml.md#post-renderers).
    #[serde(rename = "postRenderers")]
    #[schemars(rename = "postRenderers", with = "Option<Vec<PostRendererSchema>>")]
    post_renderers: Option<Spanned<serde_json::Value>>,
}

/// The schema of one `postRenderers` entry (read by `kubepkg_chart::kustomize`).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "PostRenderer")]
#[allow(dead_code)]
struct PostRendererSchema {
    /// Kustomize-style patches and image overrides.
    kustomize: Option<KustomizeSchema>,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Kustomize")]
#[allow(dead_code)]
struct KustomizeSchema {
    /// Patches, applied in order.
    #[serde(default)]
    patches: Vec<PatchSchema>,
    /// Image overrides of `containers` and `initContainers`.
    #[serde(default)]
    images: Vec<ImageSchema>,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Patch")]
#[allow(dead_code)]
struct PatchSchema {
    /// A strategic-merge patch (a mapping) or a JSON 6902 patch (a list of operations).
    patch: String,
    /// The objects it applies to (required for a JSON 6902 patch).
    target: Option<SelectorSchema>,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "PatchTarget")]
#[allow(dead_code)]
struct SelectorSchema {
    /// API group (a regular expression, anchored).
    group: Option<String>,
    /// API version (a regular expression, anchored).
    version: Option<String>,
    /// Kind (a regular expression, anchored).
    kind: Option<String>,
    /// Name (a regular expression, anchored).
    name: Option<String>,
    /// Namespace (a regular expression, anchored).
    namespace: Option<String>,
    /// A Kubernetes label selector (`app=web,tier in (a,b)`).
    label_selector: Option<String>,
    /// A Kubernetes selector over annotations.
    annotation_selector: Option<String>,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "Image")]
#[allow(dead_code)]
struct ImageSchema {
    /// The image name to match (any tag or digest).
    name: String,
    /// Its new name.
    new_name: Option<String>,
    /// Its new tag.
    new_tag: Option<String>,
    /// Its new digest (`sha256:…`).
    digest: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "Install")]
struct RawInstall {
    /// The namespace of the component's release (default: the package's namespace).
    #[schemars(with = "Option<String>")]
    namespace: Option<Spanned<String>>,
    /// Components applied and Ready before this one.
    #[serde(default)]
    #[schemars(with = "Vec<String>", extend("uniqueItems" = true))]
    depends_on: Vec<Spanned<String>>,
    /// Conditions of objects that must hold before the component counts as ready.
    #[serde(default)]
    #[schemars(with = "Vec<RawReady>")]
    ready_when: Vec<Spanned<RawReady>>,
    /// `Install` (default), or a hook: `PreUpgrade` (before every version change) or
    /// `PreRollback` (before every rollback away from this version).
    #[schemars(with = "Option<Phase>")]
    phase: Option<Spanned<String>>,
    /// The chart also receives the `kubepkg.*` values (hooks always do).
    #[serde(default)]
    upgrade_context: bool,
}

/// An object whose `status.conditions[type=condition].status` must equal `status`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "ReadyWhen")]
struct RawReady {
    /// The object's apiVersion (`cert-manager.io/v1`).
    #[schemars(with = "String", required)]
    api_version: Option<String>,
    /// The object's kind (`Certificate`).
    #[schemars(with = "String", required)]
    kind: Option<String>,
    /// The object's name.
    #[schemars(with = "String", required)]
    name: Option<String>,
    /// The object's namespace (default: the component's).
    namespace: Option<String>,
    /// The condition type (`Ready`).
    #[schemars(with = "String", required)]
    condition: Option<String>,
    /// The status the condition must have (default `"True"`).
    status: Option<String>,
}

/// The JSON Schema (draft 07, which editors' YAML servers read) of kubepkg.yaml.
pub fn json_schema() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    generator.into_root_schema_for::<RawManifest>().to_value()
}

/// [`json_schema`] as the text `kubepkg schema` prints and `docs/kubepkg.schema.json` holds.
pub fn json_schema_text() -> String {
    serde_json::to_string_pretty(&json_schema()).unwrap_or_default()
}

/// The line a read value starts on.
fn line_of<T>(s: &Spanned<T>) -> u64 {
    s.mark.line as u64
}

/// Collects problems with their location.
struct Problems<'a> {
    file: &'a Path,
    list: Vec<Problem>,
}

impl Problems<'_> {
    fn add(&mut self, line: u64, component: Option<&str>, kind: ProblemKind) {
        self.list.push(Problem {
            file: self.file.to_path_buf(),
            line: (line > 0).then_some(line),
            column: None,
            component: component.map(str::to_string),
            kind,
        });
    }
}

/// Reads and validates a manifest. `file` names it in messages; chart paths resolve against `root`.
pub fn parse_manifest(text: &str, file: &Path, root: &Path) -> Result<Package, PackageError> {
    let mut problems = Problems {
        file,
        list: Vec::new(),
    };
    let raw: RawManifest = match kubepkg_yaml::de::from_str(text) {
        Ok(raw) => raw,
        Err(e) => {
            let mark = e.mark();
            return Err(PackageError::Invalid {
                file: file.to_path_buf(),
                problems: vec![Problem {
                    file: file.to_path_buf(),
                    line: mark.map(|m| m.line as u64),
                    column: mark.map(|m| m.column as u64),
                    component: None,
                    kind: ProblemKind::Syntax {
                        message: e.message().to_string(),
                    },
                }],
            });
        }
    };
    let meta = validate_meta(&raw.package, &mut problems);
    let raw_components = raw.components.as_deref().unwrap_or_default();
    let components = validate_components(raw_components, root, &mut problems);
    // Report in file order (validation finds them per concern).
    problems.list.sort_by_key(|p| p.line.unwrap_or(0));
    let meta = match meta {
        Some(meta) if problems.list.is_empty() => meta,
        _ => {
            return Err(PackageError::Invalid {
                file: file.to_path_buf(),
                problems: problems.list,
            });
        }
    };
    Ok(Package {
        root: root.to_path_buf(),
        manifest_file: file.to_path_buf(),
        meta,
        components,
        digest: digest(text.as_bytes()),
        bare_chart: false,
        source: None,
    })
}

fn scalar_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a mapping",
    }
}

fn validate_meta(raw: &Spanned<RawPackage>, problems: &mut Problems<'_>) -> Option<PackageMeta> {
    let p = &raw.value;
    let before = problems.list.len();
    if let Err(reason) = check_dns_label(&p.name.value, 53) {
        problems.add(
            line_of(&p.name),
            None,
            ProblemKind::BadName {
                what: "package name",
                name: p.name.value.clone(),
                reason,
            },
        );
    }
    let version_text = scalar_text(&p.version.value);
    let version = match parse_version(&version_text) {
        Ok(v) => Some(v),
        Err(reason) => {
            let reason = if p.version.value.is_number() {
                format!("{reason}; YAML read it as a number, quote it")
            } else {
                reason
            };
            problems.add(
                line_of(&p.version),
                None,
                ProblemKind::BadVersion {
                    version: version_text,
                    reason,
                },
            );
            None
        }
    };
    let mut requires = Vec::new();
    let mut seen = HashMap::new();
    for r in &p.requires {
        let line = line_of(r);
        let req = &r.value;
        if seen.insert(req.name.clone(), line).is_some() {
            problems.add(
                line,
                None,
                ProblemKind::DuplicateRequirement {
                    name: req.name.clone(),
                },
            );
        }
        if let Err(reason) = check_dns_label(&req.name, 253) {
            problems.add(
                line,
                None,
                ProblemKind::BadName {
                    what: "required package name",
                    name: req.name.clone(),
                    reason,
                },
            );
        }
        let constraint = match &req.version {
            None => None,
            Some(v) => {
                let text = scalar_text(v);
                match Constraint::parse(&text) {
                    Ok(c) => Some(c),
                    Err(e) => {
                        problems.add(
                            line,
                            None,
                            ProblemKind::BadConstraint {
                                package: req.name.clone(),
                                constraint: text,
                                reason: e.to_string(),
                            },
                        );
                        None
                    }
                }
            }
        };
        requires.push(Requirement {
            name: req.name.clone(),
            version: constraint,
            optional: req.optional,
        });
    }
    let rollback_safe = p.rollback.as_ref().and_then(|r| r.value.safe);
    let mut rollback_to = None;
    if let Some(r) = &p.rollback
        && let Some(to) = &r.value.to
    {
        let line = line_of(r);
        let text = scalar_text(to);
        match Constraint::parse(&text) {
            Ok(_) if rollback_safe == Some(false) => problems.add(
                line,
                None,
                ProblemKind::RollbackFloorWithUnsafe { constraint: text },
            ),
            Ok(c) => rollback_to = Some(c),
            Err(e) => problems.add(
                line,
                None,
                ProblemKind::BadRollbackFloor {
                    constraint: text,
                    reason: e.to_string(),
                },
            ),
        }
    }
    if problems.list.len() != before {
        return None;
    }
    Some(PackageMeta {
        name: p.name.value.clone(),
        version: version?,
        rollback_safe,
        rollback_to,
        requires,
    })
}

fn validate_components(
    raw: &[Spanned<RawComponent>],
    root: &Path,
    problems: &mut Problems<'_>,
) -> Vec<Component> {
    if raw.is_empty() {
        problems.add(0, None, ProblemKind::NoComponents);
        return Vec::new();
    }
    let mut first_line: HashMap<&str, u64> = HashMap::new();
    let mut out = Vec::new();
    for rc in raw {
        let c = &rc.value;
        let name = c.name.value.as_str();
        let line = line_of(&c.name);
        if let Some(first) = first_line.get(name) {
            problems.add(
                line,
                Some(name),
                ProblemKind::DuplicateComponent {
                    name: name.to_string(),
                    first_line: *first,
                },
            );
        } else {
            first_line.insert(name, line);
        }
        if let Err(reason) = check_dns_label(name, 53) {
            problems.add(
                line,
                Some(name),
                ProblemKind::BadName {
                    what: "component name",
                    name: name.to_string(),
                    reason,
                },
            );
        }
        if let (Some(v), false) = (
            &c.version,
            c.path
                .as_ref()
                .is_some_and(|p| p.value.starts_with("oci://")),
        ) {
            problems.add(
                line_of(v),
                Some(name),
                ProblemKind::BadOciPath(
                    "`version` goes with a chart `path: oci://host/repo/chart` only (a chart in the package has its own version; `chart:` has `chart.version`)".into(),
                ),
            );
        }
        let oci_path = c
            .path
            .as_ref()
            .filter(|p| p.value.starts_with("oci://"))
            .map(|p| {
                oci_path_chart(&p.value, c.version.as_ref().map(|v| v.value.as_str()))
                    .map_err(|kind| problems.add(line_of(p), Some(name), kind))
                    .ok()
            });
        let chart = match (&c.path, &c.chart) {
            (Some(_), None) if oci_path.is_some() => oci_path.flatten(),
            (Some(path), None) => resolve_chart(&path.value, root)
                .map_err(|kind| problems.add(line_of(path), Some(name), kind))
                .ok(),
            (None, Some(chart)) => {
                let r = &chart.value;
                if !r.repository.starts_with("http://")
                    && !r.repository.starts_with("https://")
                    && !r.repository.starts_with("oci://")
                {
                    problems.add(
                        line_of(chart),
                        Some(name),
                        ProblemKind::BadChartRepository {
                            repository: r.repository.clone(),
                        },
                    );
                }
                if r.name.is_empty() || r.name.contains('/') {
                    problems.add(
                        line_of(chart),
                        Some(name),
                        ProblemKind::BadChartName {
                            name: r.name.clone(),
                        },
                    );
                }
                if let Err(e) = kubepkg_semver::Constraints::parse(&r.version) {
                    problems.add(
                        line_of(chart),
                        Some(name),
                        ProblemKind::BadChartVersion {
                            version: r.version.clone(),
                            reason: e.to_string(),
                        },
                    );
                }
                Some(ChartSource::Repository(r.clone()))
            }
            (path, chart) => {
                problems.add(
                    line_of(rc),
                    Some(name),
                    ProblemKind::PathOrChart {
                        both: path.is_some() && chart.is_some(),
                    },
                );
                None
            }
        };
        let values = match &c.values {
            None => serde_json::Map::new(),
            Some(v) => match &v.value {
                serde_json::Value::Object(m) => crate::values::from_yaml_numbers(m.clone()),
                serde_json::Value::Null => serde_json::Map::new(),
                other => {
                    problems.add(
                        line_of(v),
                        Some(name),
                        ProblemKind::ValuesNotAMap {
                            got: json_kind(other).to_string(),
                        },
                    );
                    serde_json::Map::new()
                }
            },
        };
        let mut component = Component {
            name: name.to_string(),
            path: c.path.as_ref().map(|p| p.value.clone()).unwrap_or_default(),
            chart: chart.unwrap_or(ChartSource::Directory(PathBuf::new())),
            values,
            namespace: None,
            depends_on: Vec::new(),
            ready_when: Vec::new(),
            phase: Phase::Install,
            upgrade_context: false,
            line: line_of(rc),
            post_renderers: Default::default(),
        };
        if let Some(pr) = &c.post_renderers {
            let read = serde_json::from_value::<Vec<kubepkg_chart::kustomize::PostRendererSpec>>(
                pr.value.clone(),
            )
            .map_err(|e| format!("postRenderers: {e}"))
            .and_then(|specs| {
                kubepkg_chart::kustomize::Kustomize::new(name, &specs)
                    .map_err(|e| format!("{}: {}", e.place, e.reason))
            });
            match read {
                Ok(k) if k.specs().is_empty() => {}
                Ok(k) => {
                    component.post_renderers =
                        kubepkg_chart::postrender::PostRenderers(vec![std::sync::Arc::new(k)])
                }
                Err(reason) => problems.add(
                    line_of(pr),
                    Some(name),
                    ProblemKind::PostRenderer { reason },
                ),
            }
        }
        if let Some(install) = &c.install {
            if let Some(ns) = &install.namespace {
                if let Err(reason) = check_dns_label(&ns.value, 63) {
                    problems.add(
                        line_of(ns),
                        Some(name),
                        ProblemKind::BadName {
                            what: "namespace",
                            name: ns.value.clone(),
                            reason,
                        },
                    );
                }
                component.namespace = Some(ns.value.clone());
            }
            if let Some(phase) = &install.phase {
                match phase.value.as_str() {
                    "PreUpgrade" => component.phase = Phase::PreUpgrade,
                    "PreRollback" => component.phase = Phase::PreRollback,
                    "Install" => component.phase = Phase::Install,
                    other => problems.add(
                        line_of(phase),
                        Some(name),
                        ProblemKind::UnknownPhase {
                            phase: other.to_string(),
                        },
                    ),
                }
            }
            component.upgrade_context = install.upgrade_context;
            for d in &install.depends_on {
                if component.depends_on.contains(&d.value) {
                    problems.add(
                        line_of(d),
                        Some(name),
                        ProblemKind::DuplicateDependency {
                            dependency: d.value.clone(),
                        },
                    );
                    continue;
                }
                component.depends_on.push(d.value.clone());
            }
            for (index, r) in install.ready_when.iter().enumerate() {
                let rw = &r.value;
                let mut missing = Vec::new();
                for (field, v) in [
                    ("apiVersion", &rw.api_version),
                    ("kind", &rw.kind),
                    ("name", &rw.name),
                    ("condition", &rw.condition),
                ] {
                    if v.as_deref().is_none_or(str::is_empty) {
                        missing.push(field);
                    }
                }
                if !missing.is_empty() {
                    problems.add(
                        line_of(r),
                        Some(name),
                        ProblemKind::ReadyWhenIncomplete {
                            index,
                            missing: missing.join(", "),
                        },
                    );
                    continue;
                }
                component.ready_when.push(ReadyCondition {
                    api_version: rw.api_version.clone().unwrap_or_default(),
                    kind: rw.kind.clone().unwrap_or_default(),
                    name: rw.name.clone().unwrap_or_default(),
                    namespace: rw.namespace.clone().filter(|n| !n.is_empty()),
                    condition: rw.condition.clone().unwrap_or_default(),
                    status: rw
                        .status
                        .clone()
                        .filter(|s| !s.is_empty())
                        .unwrap_or_else(|| "True".to_string()),
                });
            }
        }
        out.push(component);
    }
    check_edges(raw, &out, problems);
    out
}

/// `dependsOn` targets exist, no one depends on a hook, hooks depend on nothing, no cycles.
fn check_edges(raw: &[Spanned<RawComponent>], comps: &[Component], problems: &mut Problems<'_>) {
    let index: BTreeMap<&str, usize> = comps
        .iter()
        .enumerate()
        .rev()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    let known = comps
        .iter()
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let dep_line = |ci: usize, dep: &str| -> u64 {
        raw[ci]
            .value
            .install
            .as_ref()
            .and_then(|i| i.depends_on.iter().find(|d| d.value == dep))
            .map(line_of)
            .unwrap_or(comps[ci].line)
    };
    for (ci, c) in comps.iter().enumerate() {
        for dep in &c.depends_on {
            let line = dep_line(ci, dep);
            match index.get(dep.as_str()) {
                None => problems.add(
                    line,
                    Some(&c.name),
                    ProblemKind::UnknownDependency {
                        dependency: dep.clone(),
                        known: known.clone(),
                    },
                ),
                Some(&di) if comps[di].is_hook() => problems.add(
                    line,
                    Some(&c.name),
                    ProblemKind::DependsOnHook { hook: dep.clone() },
                ),
                Some(_) if c.is_hook() => problems.add(
                    line,
                    Some(&c.name),
                    ProblemKind::HookWithDependencies {
                        dependency: dep.clone(),
                    },
                ),
                Some(_) => {}
            }
        }
    }
    if let Some(cycle) = crate::graph::find_cycle(comps) {
        let first = &cycle[0];
        let ci = index.get(first.as_str()).copied().unwrap_or(0);
        let line = dep_line(ci, &cycle[1]);
        problems.add(
            line,
            Some(first),
            ProblemKind::Cycle {
                cycle: cycle.join(" -> "),
            },
        );
    }
}

/// `path: oci://host/repo/chart` with `version`: a registry chart, as `chart: {repository:
/// oci://host/repo, name: chart, version}`.
fn oci_path_chart(path: &str, version: Option<&str>) -> Result<ChartSource, ProblemKind> {
    let rest = path.trim_start_matches("oci://");
    let bad = |why: &str| ProblemKind::BadOciPath(format!("path {path:?}: {why}"));
    if rest.contains(['@']) || rest.rsplit('/').next().is_some_and(|l| l.contains(':')) {
        return Err(bad(
            "give the version in `version:`, not as a tag or digest of the path",
        ));
    }
    let Some((repository, name)) = rest.rsplit_once('/') else {
        return Err(bad("write oci://host/repo/chart"));
    };
    if name.is_empty() || repository.is_empty() {
        return Err(bad("write oci://host/repo/chart"));
    }
    let Some(version) = version else {
        return Err(bad(
            "a chart in a registry needs `version:` (an exact version or a SemVer constraint)",
        ));
    };
    if let Err(e) = kubepkg_semver::Constraints::parse(version) {
        return Err(ProblemKind::BadChartVersion {
            version: version.to_string(),
            reason: e.to_string(),
        });
    }
    Ok(ChartSource::Repository(RepositoryChart {
        repository: format!("oci://{repository}"),
        name: name.to_string(),
        version: version.to_string(),
    }))
}

/// Resolves a component's chart path inside the package root.
fn resolve_chart(path: &str, root: &Path) -> Result<ChartSource, ProblemKind> {
    let rel = Path::new(path);
    let outside = || ProblemKind::PathOutsidePackage {
        path: path.to_string(),
    };
    if path.is_empty() || rel.is_absolute() {
        return Err(outside());
    }
    let mut depth = 0i32;
    for part in rel.components() {
        match part {
            PathPart::Normal(_) => depth += 1,
            PathPart::CurDir => {}
            PathPart::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(outside());
                }
            }
            PathPart::RootDir | PathPart::Prefix(_) => return Err(outside()),
        }
    }
    let full = root.join(rel);
    let meta = std::fs::metadata(&full).map_err(|_| ProblemKind::ChartMissing {
        path: path.to_string(),
        resolved: full.display().to_string(),
    })?;
    // A symlink inside the package must not lead out of it.
    if let (Ok(canon), Ok(canon_root)) = (full.canonicalize(), root.canonicalize())
        && !canon.starts_with(&canon_root)
    {
        return Err(outside());
    }
    if meta.is_dir() {
        if !full.join("Chart.yaml").is_file() {
            return Err(ProblemKind::NotAChart {
                path: path.to_string(),
                reason: "the directory has no Chart.yaml".into(),
            });
        }
        return Ok(ChartSource::Directory(full));
    }
    if path.ends_with(".tgz") || path.ends_with(".tar.gz") {
        return Ok(ChartSource::Archive(full));
    }
    Err(ProblemKind::NotAChart {
        path: path.to_string(),
        reason: "it is a file but not a .tgz chart archive".into(),
    })
}

#[cfg(test)]
mod schema_tests;
#[cfg(test)]
mod tests;
