//! Declarative post-renderers: Flux HelmRelease's `postRenderers[].kustomize` (strategic-merge
//! and JSON 6902 patches with `target` selectors, and `images` overrides), run in-process on the
//! post-render stream as kustomize runs them (its `PatchTransformer`, then `ImageTagTransformer`;
//! sigs.k8s.io/kustomize/api v0.21).
//!
//! - A **patch** is a strategic-merge patch (a YAML mapping) or a JSON 6902 patch (a YAML or JSON
//!   list of operations), told apart by its text as kustomize does. With a `target`, it applies
//!   to every object the selector picks (`group`, `version`, `kind`, `name`, `namespace`: anchored
//!   regular expressions; `labelSelector`, `annotationSelector`: Kubernetes selectors); a
//!   strategic-merge patch without one applies to the object of its own `apiVersion`, `kind`,
//!   `metadata.name` (and namespace). A JSON 6902 patch needs a target.
//! - **Strategic merge**: mappings merge; `null` deletes a field; `$patch: replace` and
//!   `$patch: delete` work on mappings and list items; a list merges by its merge key where
//!   Kubernetes' API says it has one ([`merge_key`], the offline table of core kinds; for other
//!   kinds, where a cluster is at hand, what its OpenAPI declares: [`crate::merge_keys`]), else (as
//!   kyaml does without a schema) by the first of `mountPath`, `devicePath`, `ip`, `type`,
//!   `topologyKey`, `name`, `containerPort` that every item has; other lists are replaced.
//!   Items kept stay in place; new items are appended.
//! - **images**: every `image` of an item of a `containers` or `initContainers` list, at any
//!   depth, of any kind but CustomResourceDefinition, whose image is `name` (with any tag and
//!   digest) gets `newName`, `newTag` and/or `digest`.
//!
//! Stricter than kustomize, as Flux users expect: a patch that matches no object is refused
//! (kustomize refuses only the target-less strategic-merge one), naming the component and the
//! patch.

use std::collections::BTreeMap;

use kubepkg_yaml::node::{Content, Node, ScalarStyle, parse_documents, parse_stream, write_stream};

use crate::merge_keys::{ListMerge, MergeKeys};
use serde::{Deserialize, Serialize};

/// One entry of `postRenderers` (Flux's `PostRenderer`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostRendererSpec {
    /// Kustomize-style patches and image overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kustomize: Option<KustomizeSpec>,
}

/// Flux's `Kustomize` post-renderer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KustomizeSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patches: Vec<PatchSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageSpec>,
}

/// A patch and the objects it applies to.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchSpec {
    /// A strategic-merge patch or a JSON 6902 patch, as YAML (or JSON) text.
    pub patch: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Selector>,
}

/// kustomize's `Selector`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Selector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation_selector: Option<String>,
}

/// kustomize's `Image`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ImageSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_tag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

/// A patch that could not be read or applied. Messages name the component and the patch
/// (`postRenderers[0].kustomize.patches[1]`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("component {component:?}: {place}: {reason}")]
pub struct PatchError {
    pub component: String,
    /// `postRenderers[I].kustomize.patches[J]` or `…images[J]`.
    pub place: String,
    pub reason: String,
}

/// A parsed patch.
#[derive(Debug, Clone)]
enum Patch {
    Strategic(Node),
    Json(Vec<Node>),
}

/// The post-renderers of one component, ready to run (a post-rendering step of `postrender`).
#[derive(Debug, Clone)]
pub struct Kustomize {
    component: String,
    steps: Vec<Step>,
    specs: Vec<PostRendererSpec>,
    /// The list merges a cluster's OpenAPI declares, for kinds the offline table does not know.
    schema: Option<std::sync::Arc<MergeKeys>>,
}

/// One `postRenderers` entry, read: its patches (where each is, the patch, its target) and
/// its images.
#[derive(Debug, Clone)]
struct Step {
    patches: Vec<(String, Patch, Option<Selector>)>,
    images: Vec<ImageSpec>,
}

impl Kustomize {
    /// Reads `specs` (a component's `postRenderers`): every patch must be a mapping or a list
    /// of operations in valid YAML, a JSON 6902 patch must have a target, selectors must be
    /// valid, images must have a name.
    pub fn new(component: &str, specs: &[PostRendererSpec]) -> Result<Self, PatchError> {
        let mut steps = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let Some(k) = &spec.kustomize else {
                continue;
            };
            let mut patches = Vec::new();
            for (j, p) in k.patches.iter().enumerate() {
                let place = format!("postRenderers[{i}].kustomize.patches[{j}]");
                let err = |reason: String| PatchError {
                    component: component.to_string(),
                    place: place.clone(),
                    reason,
                };
                let patch = read_patch(&p.patch).map_err(err)?;
                if matches!(patch, Patch::Json(_)) && p.target.is_none() {
                    return Err(err("a JSON 6902 patch needs a target".into()));
                }
                if let Some(t) = &p.target {
                    check_selector(t).map_err(err)?;
                }
                patches.push((place, patch, p.target.clone()));
            }
            for (j, image) in k.images.iter().enumerate() {
                if image.name.is_empty() {
                    return Err(PatchError {
                        component: component.to_string(),
                        place: format!("postRenderers[{i}].kustomize.images[{j}]"),
                        reason: "an image needs a name".into(),
                    });
                }
            }
            steps.push(Step {
                patches,
                images: k.images.clone(),
            });
        }
        Ok(Kustomize {
            component: component.to_string(),
            steps,
            specs: specs.to_vec(),
            schema: None,
        })
    }

    /// The same post-renderers, merging the lists of kinds the offline table does not know as
    /// `schema` (a cluster's OpenAPI) declares.
    pub fn with_merge_keys(&self, schema: std::sync::Arc<MergeKeys>) -> Kustomize {
        Kustomize {
            schema: Some(schema),
            ..self.clone()
        }
    }

    /// The `(apiVersion, kind)` of the objects the patches may aim at, as far as the specs
    /// name them: a strategic-merge patch's own, or a target's `kind` with its `group` and
    /// `version` where they are plain names (`None` where any would do).
    pub fn aimed_kinds(&self) -> Vec<(Option<String>, String)> {
        let plain = |s: &Option<String>| {
            s.as_ref()
                .filter(|v| {
                    v.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
                })
                .cloned()
        };
        let mut out = Vec::new();
        for step in &self.steps {
            for (_, patch, target) in &step.patches {
                match (patch, target) {
                    (_, Some(t)) => {
                        let Some(kind) = plain(&t.kind).filter(|k| !k.is_empty()) else {
                            continue;
                        };
                        let api_version = match (plain(&t.group), plain(&t.version)) {
                            (Some(g), Some(v)) if !g.is_empty() => Some(format!("{g}/{v}")),
                            (None, Some(v)) => Some(v),
                            _ => None,
                        };
                        out.push((api_version, kind));
                    }
                    (Patch::Strategic(p), None) => out.push((
                        Some(text(p, &["apiVersion"]).to_string()),
                        kind_of(p).to_string(),
                    )),
                    (Patch::Json(_), None) => {}
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The specs it was made from.
    pub fn specs(&self) -> &[PostRendererSpec] {
        &self.specs
    }

    /// The objects of `stream` patched.
    pub fn apply(&self, stream: &str) -> Result<String, PatchError> {
        let mut objects = parse_stream(stream).map_err(|e| PatchError {
            component: self.component.clone(),
            place: "postRenderers".into(),
            reason: format!("the rendered manifests do not read: {e}"),
        })?;
        for Step { patches, images } in &self.steps {
            for (place, patch, target) in patches {
                let err = |reason: String| PatchError {
                    component: self.component.clone(),
                    place: place.clone(),
                    reason,
                };
                apply_patch(&mut objects, patch, target.as_ref(), self.schema.as_deref())
                    .map_err(err)?;
            }
            for image in images {
                for o in &mut objects {
                    if kind_of(o) != "CustomResourceDefinition" {
                        set_images(o, image);
                    }
                }
            }
        }
        Ok(write_stream(&objects))
    }
}

impl Kustomize {
    /// How a revision names these post-renderers: `kustomize: N patches, M images`.
    pub fn summary(&self) -> String {
        let n: usize = self.steps.iter().map(|s| s.patches.len()).sum();
        let m: usize = self.steps.iter().map(|s| s.images.len()).sum();
        format!("kustomize: {n} patches, {m} images")
    }
}

/// kustomize's reading of a patch text: a list of operations is a JSON 6902 patch, a mapping
/// a strategic-merge one.
fn read_patch(text: &str) -> Result<Patch, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("the patch is empty".into());
    }
    let docs = parse_documents(text).map_err(|e| format!("the patch is not valid YAML: {e}"))?;
    match docs.as_slice() {
        [] => Err("the patch is empty".into()),
        [one] => match &one.content {
            Content::Sequence { items, .. } => {
                for (k, op) in items.iter().enumerate() {
                    let name = op.get("op").and_then(Node::as_str).unwrap_or("");
                    if !matches!(
                        name,
                        "add" | "remove" | "replace" | "move" | "copy" | "test"
                    ) {
                        return Err(format!("operation {k} has no valid `op` ({name:?})"));
                    }
                    if op.get("path").and_then(Node::as_str).is_none() {
                        return Err(format!("operation {k} has no `path`"));
                    }
                }
                Ok(Patch::Json(items.clone()))
            }
            Content::Mapping { .. } => Ok(Patch::Strategic(one.clone())),
            _ => Err("the patch is neither a mapping nor a list of operations".into()),
        },
        _ => Err("one patch may hold one document".into()),
    }
}

fn check_selector(s: &Selector) -> Result<(), String> {
    for (what, v) in [
        ("group", &s.group),
        ("version", &s.version),
        ("kind", &s.kind),
        ("name", &s.name),
        ("namespace", &s.namespace),
    ] {
        if let Some(v) = v {
            regex_lite::Regex::new(&format!("^(?:{v})$"))
                .map_err(|e| format!("target {what} {v:?} is not a regular expression: {e}"))?;
        }
    }
    for (what, v) in [
        ("labelSelector", &s.label_selector),
        ("annotationSelector", &s.annotation_selector),
    ] {
        if let Some(v) = v {
            parse_selector(v).map_err(|e| format!("target {what} {v:?}: {e}"))?;
        }
    }
    Ok(())
}

fn text<'a>(n: &'a Node, path: &[&str]) -> &'a str {
    let mut cur = n;
    for p in path {
        match cur.get(p) {
            Some(x) => cur = x,
            None => return "",
        }
    }
    cur.as_str().unwrap_or("")
}

fn kind_of(o: &Node) -> &str {
    text(o, &["kind"])
}

fn string_map(o: &Node, field: &str) -> BTreeMap<String, String> {
    o.get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Node::pairs)
        .map(|ps| {
            ps.iter()
                .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// One term of a Kubernetes selector.
enum Term {
    Eq(String, String),
    Ne(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// `labels.Parse`: comma-separated `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`,
/// `k`, `!k`.
fn parse_selector(s: &str) -> Result<Vec<Term>, String> {
    let mut terms = Vec::new();
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        let set = |rest: &str| -> Result<Vec<String>, String> {
            let inner = rest
                .trim()
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(|| format!("{p:?}: expected a parenthesised list"))?;
            Ok(inner.split(',').map(|v| v.trim().to_string()).collect())
        };
        let term = if let Some(k) = p.strip_prefix('!') {
            Term::NotExists(k.trim().to_string())
        } else if let Some((k, v)) = p.split_once("!=") {
            Term::Ne(k.trim().to_string(), v.trim().to_string())
        } else if let Some((k, v)) = p.split_once("==") {
            Term::Eq(k.trim().to_string(), v.trim().to_string())
        } else if let Some((k, v)) = p.split_once('=') {
            Term::Eq(k.trim().to_string(), v.trim().to_string())
        } else if let Some((k, rest)) = p.split_once(" notin ") {
            Term::NotIn(k.trim().to_string(), set(rest)?)
        } else if let Some((k, rest)) = p.split_once(" in ") {
            Term::In(k.trim().to_string(), set(rest)?)
        } else if p.contains(char::is_whitespace) {
            return Err(format!("{p:?} is not a selector term"));
        } else {
            Term::Exists(p.to_string())
        };
        terms.push(term);
    }
    Ok(terms)
}

fn selector_matches(terms: &[Term], m: &BTreeMap<String, String>) -> bool {
    terms.iter().all(|t| match t {
        Term::Eq(k, v) => m.get(k) == Some(v),
        Term::Ne(k, v) => m.get(k) != Some(v),
        Term::In(k, vs) => m.get(k).is_some_and(|x| vs.contains(x)),
        Term::NotIn(k, vs) => m.get(k).is_none_or(|x| !vs.contains(x)),
        Term::Exists(k) => m.contains_key(k),
        Term::NotExists(k) => !m.contains_key(k),
    })
}

fn anchored(pattern: &Option<String>, value: &str) -> bool {
    match pattern {
        None => true,
        Some(p) if p.is_empty() => true,
        Some(p) => regex_lite::Regex::new(&format!("^(?:{p})$")).is_ok_and(|r| r.is_match(value)),
    }
}

/// kustomize's `Select`: whether `o` is picked by `s`.
fn selected(o: &Node, s: &Selector) -> bool {
    let api_version = text(o, &["apiVersion"]);
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    };
    let labels_ok = s.label_selector.as_deref().is_none_or(|sel| {
        parse_selector(sel).is_ok_and(|t| selector_matches(&t, &string_map(o, "labels")))
    });
    let annotations_ok = s.annotation_selector.as_deref().is_none_or(|sel| {
        parse_selector(sel).is_ok_and(|t| selector_matches(&t, &string_map(o, "annotations")))
    });
    anchored(&s.group, group)
        && anchored(&s.version, version)
        && anchored(&s.kind, kind_of(o))
        && anchored(&s.name, text(o, &["metadata", "name"]))
        && anchored(&s.namespace, text(o, &["metadata", "namespace"]))
        && labels_ok
        && annotations_ok
}

fn same_namespace(a: &str, b: &str) -> bool {
    let norm = |x: &str| if x.is_empty() { "default" } else { x }.to_string();
    norm(a) == norm(b)
}

/// The object a strategic merge works on: what decides how its lists merge.
struct Merging<'a> {
    api_version: &'a str,
    kind: &'a str,
    schema: Option<&'a MergeKeys>,
}

fn apply_patch(
    objects: &mut [Node],
    patch: &Patch,
    target: Option<&Selector>,
    schema: Option<&MergeKeys>,
) -> Result<(), String> {
    let picked: Vec<usize> = match (patch, target) {
        (_, Some(t)) => (0..objects.len())
            .filter(|&i| selected(&objects[i], t))
            .collect(),
        (Patch::Strategic(p), None) => (0..objects.len())
            .filter(|&i| {
                let o = &objects[i];
                text(o, &["apiVersion"]) == text(p, &["apiVersion"])
                    && kind_of(o) == kind_of(p)
                    && text(o, &["metadata", "name"]) == text(p, &["metadata", "name"])
                    && same_namespace(
                        text(o, &["metadata", "namespace"]),
                        text(p, &["metadata", "namespace"]),
                    )
            })
            .collect(),
        (Patch::Json(_), None) => return Err("a JSON 6902 patch needs a target".into()),
    };
    if picked.is_empty() {
        return Err(match (patch, target) {
            (Patch::Strategic(p), None) => format!(
                "no object matches the strategic merge patch of {} {} {:?}",
                text(p, &["apiVersion"]),
                kind_of(p),
                text(p, &["metadata", "name"])
            ),
            _ => "the patch's target matches no object".into(),
        });
    }
    for i in picked {
        let o = &mut objects[i];
        match patch {
            Patch::Strategic(p) => {
                let mut p = p.clone();
                if target.is_some() {
                    // kustomize aims a targeted patch at each object it picked.
                    for (path, v) in [
                        (&["apiVersion"][..], text(o, &["apiVersion"]).to_string()),
                        (&["kind"][..], kind_of(o).to_string()),
                        (
                            &["metadata", "name"][..],
                            text(o, &["metadata", "name"]).to_string(),
                        ),
                    ] {
                        set_text(&mut p, path, &v);
                    }
                }
                let (api_version, kind) =
                    (text(o, &["apiVersion"]).to_string(), kind_of(o).to_string());
                let merging = Merging {
                    api_version: &api_version,
                    kind: &kind,
                    schema,
                };
                let mut path = Vec::new();
                merge_map(o, &p, &merging, &mut path);
            }
            Patch::Json(ops) => {
                for (k, op) in ops.iter().enumerate() {
                    json_op(o, op).map_err(|e| format!("operation {k}: {e}"))?;
                }
            }
        }
    }
    Ok(())
}

/// Sets the scalar at `path` of a mapping node (creating mappings on the way) when absent or
/// different.
fn set_text(n: &mut Node, path: &[&str], value: &str) {
    let Some((last, dirs)) = path.split_last() else {
        return;
    };
    let mut cur = n;
    for d in dirs {
        let Content::Mapping { pairs, .. } = &mut cur.content else {
            return;
        };
        let i = match pairs.iter().position(|(k, _)| k.as_str() == Some(d)) {
            Some(i) => i,
            None => {
                pairs.push((Node::plain(d), Node::mapping()));
                pairs.len() - 1
            }
        };
        cur = &mut pairs[i].1;
    }
    let Content::Mapping { pairs, .. } = &mut cur.content else {
        return;
    };
    match pairs.iter_mut().find(|(k, _)| k.as_str() == Some(last)) {
        Some((_, v)) => {
            if v.as_str() != Some(value) {
                *v = Node::plain(value);
            }
        }
        None => pairs.push((Node::plain(last), Node::plain(value))),
    }
}

/// The merge key of the list at `path` (field names from the object's root, list items as
/// `[]`) of an object of `kind`: the offline table of Kubernetes' `patchMergeKey`s for the core
/// kinds. `Some("")`: a list of scalars merged as a set.
pub fn merge_key(kind: &str, path: &[String]) -> Option<&'static str> {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    // Where the pod spec sits in each workload kind.
    let pod: &[&str] = match kind {
        "Pod" => &["spec"],
        "Deployment"
        | "StatefulSet"
        | "DaemonSet"
        | "ReplicaSet"
        | "Job"
        | "ReplicationController"
        | "PodTemplate" => match kind {
            "PodTemplate" => &["template", "spec"],
            _ => &["spec", "template", "spec"],
        },
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => &[],
    };
    if p.len() >= 2 && p[..2] == ["metadata", "ownerReferences"] && p.len() == 2 {
        return Some("uid");
    }
    if p == ["metadata", "finalizers"] {
        return Some("");
    }
    if !pod.is_empty() && p.len() > pod.len() && p[..pod.len()] == *pod {
        let rest = &p[pod.len()..];
        return match rest {
            ["containers"] | ["initContainers"] | ["ephemeralContainers"] => Some("name"),
            ["volumes"] | ["imagePullSecrets"] | ["resourceClaims"] | ["schedulingGates"] => {
                Some("name")
            }
            ["hostAliases"] => Some("ip"),
            ["topologySpreadConstraints"] => Some("topologyKey"),
            [c, "[]", "env"] if is_containers(c) => Some("name"),
            [c, "[]", "ports"] if is_containers(c) => Some("containerPort"),
            [c, "[]", "volumeMounts"] if is_containers(c) => Some("mountPath"),
            [c, "[]", "volumeDevices"] if is_containers(c) => Some("devicePath"),
            [c, "[]", "resizePolicy"] if is_containers(c) => Some("resourceName"),
            _ => None,
        };
    }
    match (kind, p.as_slice()) {
        ("Service", ["spec", "ports"]) => Some("port"),
        ("Endpoints", ["subsets", "[]", "ports"]) => Some("name"),
        ("ServiceAccount", ["secrets"]) => Some("name"),
        ("StatefulSet", ["spec", "volumeClaimTemplates"]) => None,
        (_, ["status", "conditions"]) => Some("type"),
        _ => None,
    }
}

fn is_containers(c: &str) -> bool {
    matches!(c, "containers" | "initContainers" | "ephemeralContainers")
}

/// Kinds the table of [`merge_key`] knows (any other kind uses kyaml's fallback).
pub const KNOWN_KINDS: &[&str] = &[
    "Pod",
    "PodTemplate",
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "ReplicationController",
    "Job",
    "CronJob",
    "Service",
    "Endpoints",
    "ServiceAccount",
];

/// kyaml's keys for lists of mappings it knows no schema for, in the order it tries them.
const ASSOCIATIVE_KEYS: [&str; 7] = [
    "mountPath",
    "devicePath",
    "ip",
    "type",
    "topologyKey",
    "name",
    "containerPort",
];

fn patch_directive(n: &Node) -> Option<&str> {
    n.get("$patch").and_then(Node::as_str)
}

fn without_directives(n: &Node) -> Node {
    let mut n = n.clone();
    if let Content::Mapping { pairs, .. } = &mut n.content {
        pairs.retain(|(k, _)| !k.as_str().is_some_and(|s| s.starts_with('$')));
        for (_, v) in pairs.iter_mut() {
            *v = without_nulls_and_directives(v);
        }
    }
    n
}

/// A value that is added as it is: its `null` fields and directives dropped, as kyaml drops
/// them.
fn without_nulls_and_directives(n: &Node) -> Node {
    match &n.content {
        Content::Mapping { pairs, flow } => n.with_content(Content::Mapping {
            pairs: pairs
                .iter()
                .filter(|(k, v)| !k.as_str().is_some_and(|s| s.starts_with('$')) && !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls_and_directives(v)))
                .collect(),
            flow: *flow,
        }),
        Content::Sequence { items, flow } => n.with_content(Content::Sequence {
            items: items.iter().map(without_nulls_and_directives).collect(),
            flow: *flow,
        }),
        _ => n.clone(),
    }
}

/// Strategic merge of mapping `patch` into `dest`.
fn merge_map(dest: &mut Node, patch: &Node, obj: &Merging<'_>, path: &mut Vec<String>) {
    if patch_directive(patch) == Some("replace") {
        *dest = without_directives(patch);
        return;
    }
    let Some(pp) = patch.pairs() else {
        *dest = patch.clone();
        return;
    };
    if !matches!(dest.content, Content::Mapping { .. }) {
        *dest = without_nulls_and_directives(patch);
        return;
    }
    for (k, v) in pp {
        let Some(key) = k.as_str() else { continue };
        if key.starts_with('$') {
            continue;
        }
        let Content::Mapping { pairs, .. } = &mut dest.content else {
            return;
        };
        let at = pairs.iter().position(|(dk, _)| dk.as_str() == Some(key));
        if v.is_null() {
            if let Some(i) = at {
                pairs.remove(i);
            }
            continue;
        }
        match at {
            None => {
                if patch_directive(v) != Some("delete") {
                    pairs.push((k.clone(), without_nulls_and_directives(v)));
                }
            }
            Some(i) => {
                if patch_directive(v) == Some("delete") {
                    pairs.remove(i);
                    continue;
                }
                path.push(key.to_string());
                let d = &mut pairs[i].1;
                match (&mut d.content, &v.content) {
                    (Content::Mapping { .. }, Content::Mapping { .. }) => {
                        merge_map(d, v, obj, path)
                    }
                    (Content::Sequence { .. }, Content::Sequence { .. }) => {
                        merge_list(d, v, obj, path)
                    }
                    _ => *d = without_nulls_and_directives(v),
                }
                path.pop();
            }
        }
    }
}

fn merge_list(dest: &mut Node, patch: &Node, obj: &Merging<'_>, path: &mut Vec<String>) {
    let (Content::Sequence { items: d, .. }, Content::Sequence { items: p, .. }) =
        (&mut dest.content, &patch.content)
    else {
        return;
    };
    // `- $patch: replace` replaces the whole list with the other items.
    if p.iter().any(|x| patch_directive(x) == Some("replace")) {
        *d = p
            .iter()
            .filter(|x| patch_directive(x) != Some("replace"))
            .map(without_nulls_and_directives)
            .collect();
        return;
    }
    let all_maps = |xs: &[Node]| {
        xs.iter()
            .all(|x| matches!(x.content, Content::Mapping { .. }))
    };
    let kind = obj.kind;
    let declared = obj
        .schema
        .filter(|_| !KNOWN_KINDS.contains(&kind))
        .and_then(|s| s.list(obj.api_version, kind, path));
    let key = match (declared, merge_key(kind, path)) {
        (Some(ListMerge::Key(k)), _) => Some(k.as_str()),
        (Some(ListMerge::Set), _) => Some(""),
        (Some(ListMerge::Atomic), _) => None,
        (None, Some(k)) => Some(k),
        (None, None) if KNOWN_KINDS.contains(&kind) => None,
        (None, None) if all_maps(d) && all_maps(p) && !p.is_empty() => ASSOCIATIVE_KEYS
            .into_iter()
            .find(|k| d.iter().chain(p.iter()).all(|x| x.get(k).is_some())),
        (None, None) => None,
    };
    match key {
        Some("") => {
            for x in p {
                if !d.iter().any(|y| y.as_str() == x.as_str()) {
                    d.push(x.clone());
                }
            }
        }
        Some(k) => {
            for x in p {
                let Some(v) = x.get(k).and_then(Node::as_str) else {
                    d.push(without_nulls_and_directives(x));
                    continue;
                };
                let at = d
                    .iter()
                    .position(|y| y.get(k).and_then(Node::as_str) == Some(v));
                match (at, patch_directive(x)) {
                    (Some(i), Some("delete")) => {
                        d.remove(i);
                    }
                    (None, Some("delete")) => {}
                    (Some(i), _) => {
                        path.push("[]".into());
                        merge_map(&mut d[i], x, obj, path);
                        path.pop();
                    }
                    (None, _) => d.push(without_nulls_and_directives(x)),
                }
            }
        }
        None => *d = p.iter().map(without_nulls_and_directives).collect(),
    }
}

/// RFC 6901: a JSON pointer's tokens.
fn pointer(path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let rest = path
        .strip_prefix('/')
        .ok_or_else(|| format!("path {path:?} does not start with /"))?;
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn child_mut<'a>(n: &'a mut Node, token: &str) -> Option<&'a mut Node> {
    match &mut n.content {
        Content::Mapping { pairs, .. } => pairs
            .iter_mut()
            .find(|(k, _)| k.as_str() == Some(token))
            .map(|(_, v)| v),
        Content::Sequence { items, .. } => {
            token.parse::<usize>().ok().and_then(|i| items.get_mut(i))
        }
        _ => None,
    }
}

fn parent_mut<'a>(
    root: &'a mut Node,
    tokens: &[String],
    path: &str,
) -> Result<&'a mut Node, String> {
    let mut cur = root;
    for t in tokens {
        cur = child_mut(cur, t).ok_or_else(|| format!("path {path:?} does not exist"))?;
    }
    Ok(cur)
}

fn json_get(root: &Node, tokens: &[String], path: &str) -> Result<Node, String> {
    let mut cur = root;
    for t in tokens {
        cur = match &cur.content {
            Content::Mapping { pairs, .. } => pairs
                .iter()
                .find(|(k, _)| k.as_str() == Some(t))
                .map(|(_, v)| v),
            Content::Sequence { items, .. } => t.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }
        .ok_or_else(|| format!("path {path:?} does not exist"))?;
    }
    Ok(cur.clone())
}

fn json_remove(root: &mut Node, tokens: &[String], path: &str) -> Result<Node, String> {
    let Some((last, dirs)) = tokens.split_last() else {
        return Err("cannot remove the whole object".into());
    };
    let parent = parent_mut(root, dirs, path)?;
    match &mut parent.content {
        Content::Mapping { pairs, .. } => {
            let i = pairs
                .iter()
                .position(|(k, _)| k.as_str() == Some(last))
                .ok_or_else(|| format!("path {path:?} does not exist"))?;
            Ok(pairs.remove(i).1)
        }
        Content::Sequence { items, .. } => {
            let i = last
                .parse::<usize>()
                .ok()
                .filter(|&i| i < items.len())
                .ok_or_else(|| format!("path {path:?} does not exist"))?;
            Ok(items.remove(i))
        }
        _ => Err(format!("path {path:?} does not exist")),
    }
}

fn json_add(root: &mut Node, tokens: &[String], path: &str, value: Node) -> Result<(), String> {
    let Some((last, dirs)) = tokens.split_last() else {
        *root = value;
        return Ok(());
    };
    let parent = parent_mut(root, dirs, path)?;
    match &mut parent.content {
        Content::Mapping { pairs, .. } => {
            match pairs.iter_mut().find(|(k, _)| k.as_str() == Some(last)) {
                Some((_, v)) => *v = value,
                None => pairs.push((Node::plain(last), value)),
            }
            Ok(())
        }
        Content::Sequence { items, .. } => {
            if last == "-" {
                items.push(value);
                return Ok(());
            }
            let i = last
                .parse::<usize>()
                .ok()
                .filter(|&i| i <= items.len())
                .ok_or_else(|| format!("index of {path:?} is out of range"))?;
            items.insert(i, value);
            Ok(())
        }
        _ => Err(format!("the parent of {path:?} is not an object or array")),
    }
}

/// Semantic equality of two nodes (JSON 6902's `test`).
fn same_value(a: &Node, b: &Node) -> bool {
    let json = |n: &Node| {
        kubepkg_yaml::yaml_to_json(&kubepkg_yaml::node::write_stream(std::slice::from_ref(n)))
    };
    json(a).ok() == json(b).ok()
}

/// One JSON 6902 operation on `o`.
fn json_op(o: &mut Node, op: &Node) -> Result<(), String> {
    let name = op.get("op").and_then(Node::as_str).unwrap_or("");
    let path = op.get("path").and_then(Node::as_str).unwrap_or("");
    let tokens = pointer(path)?;
    let value = || {
        op.get("value")
            .cloned()
            .ok_or_else(|| format!("{name} {path:?} has no value"))
    };
    let from = || -> Result<(String, Vec<String>), String> {
        let f = op
            .get("from")
            .and_then(Node::as_str)
            .ok_or_else(|| format!("{name} {path:?} has no from"))?;
        Ok((f.to_string(), pointer(f)?))
    };
    match name {
        "add" => json_add(o, &tokens, path, value()?),
        "remove" => json_remove(o, &tokens, path).map(|_| ()),
        "replace" => {
            json_remove(o, &tokens, path)?;
            json_add(o, &tokens, path, value()?)
        }
        "move" => {
            let (f, ft) = from()?;
            let v = json_remove(o, &ft, &f)?;
            json_add(o, &tokens, path, v)
        }
        "copy" => {
            let (f, ft) = from()?;
            let v = json_get(o, &ft, &f)?;
            json_add(o, &tokens, path, v)
        }
        "test" => {
            let got = json_get(o, &tokens, path)?;
            if same_value(&got, &value()?) {
                Ok(())
            } else {
                Err(format!("test of {path:?} failed"))
            }
        }
        other => Err(format!("unknown op {other:?}")),
    }
}

/// kustomize's `image.IsImageMatched`: `name`, then an optional `:tag` and `@sha256:digest`.
fn image_matches(image: &str, name: &str) -> bool {
    regex_lite::Regex::new(&format!(
        "^{name}(:[a-zA-Z0-9_.{{}}-]*)?(@sha256:[a-zA-Z0-9_.{{}}-]*)?$"
    ))
    .is_ok_and(|r| r.is_match(image))
}

/// kustomize's `image.Split`: name, tag, digest.
fn split_image(image: &str) -> (String, String, String) {
    let slash = image.find('/').filter(|&i| i > 0).unwrap_or(0);
    let search = &image[slash..];
    let id = search.find('@');
    let ic = search.find(':');
    match (id, ic) {
        (None, None) => (image.to_string(), String::new(), String::new()),
        (Some(d), c) if c.is_none_or(|c| d < c) => (
            image[..slash + d].to_string(),
            String::new(),
            image[slash + d + 1..].to_string(),
        ),
        (Some(d), Some(c)) => (
            image[..slash + c].to_string(),
            image[slash + c + 1..slash + d].to_string(),
            image[slash + d + 1..].to_string(),
        ),
        (None, Some(c)) => (
            image[..slash + c].to_string(),
            image[slash + c + 1..].to_string(),
            String::new(),
        ),
        (Some(_), None) => (image.to_string(), String::new(), String::new()),
    }
}

fn new_image(value: &str, spec: &ImageSpec) -> Option<String> {
    if !image_matches(value, &spec.name) {
        return None;
    }
    let (mut name, mut tag, mut digest) = split_image(value);
    if let Some(n) = spec.new_name.as_deref().filter(|n| !n.is_empty()) {
        name = n.to_string();
    }
    let new_tag = spec.new_tag.as_deref().unwrap_or("");
    let new_digest = spec.digest.as_deref().unwrap_or("");
    match (new_tag.is_empty(), new_digest.is_empty()) {
        (false, false) => {
            tag = new_tag.to_string();
            digest = new_digest.to_string();
        }
        (false, true) => {
            tag = new_tag.to_string();
            digest.clear();
        }
        (true, false) => {
            tag.clear();
            digest = new_digest.to_string();
        }
        (true, true) => {}
    }
    if !tag.is_empty() {
        name = format!("{name}:{tag}");
    }
    if !digest.is_empty() {
        name = format!("{name}@{digest}");
    }
    Some(name)
}

/// kustomize's legacy image filter: every `containers`/`initContainers` list at any depth.
fn set_images(n: &mut Node, spec: &ImageSpec) {
    match &mut n.content {
        Content::Mapping { pairs, .. } => {
            for (k, v) in pairs.iter_mut() {
                set_images(v, spec);
                if matches!(k.as_str(), Some("containers" | "initContainers"))
                    && let Content::Sequence { items, .. } = &mut v.content
                {
                    for item in items.iter_mut() {
                        if let Some(img) = item.get_mut("image")
                            && let Some(new) = img.as_str().and_then(|s| new_image(s, spec))
                        {
                            let style = match &img.content {
                                Content::Scalar { style, .. } => *style,
                                _ => ScalarStyle::Plain,
                            };
                            *img = Node::scalar(&new, style);
                        }
                    }
                }
            }
        }
        Content::Sequence { items, .. } => {
            for i in items.iter_mut() {
                set_images(i, spec);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.0\n        env:\n        - name: A\n          value: a\n      - name: side\n        image: busybox\n";

    fn run(specs: &str) -> Result<String, PatchError> {
        let json = kubepkg_yaml::yaml_to_json(specs).unwrap();
        let specs: Vec<PostRendererSpec> = serde_json::from_str(&json).unwrap();
        Kustomize::new("web", &specs)?.apply(DEPLOY)
    }

    #[test]
    fn strategic_merge_merges_containers_by_name_and_env_by_name() {
        let out = run("- kustomize:\n    patches:\n    - patch: |\n        apiVersion: apps/v1\n        kind: Deployment\n        metadata: {name: web}\n        spec:\n          template:\n            spec:\n              containers:\n              - name: app\n                env:\n                - {name: B, value: b}\n              - name: side\n                $patch: delete\n").unwrap();
        assert!(out.contains("- name: A"), "{out}");
        assert!(out.contains("name: B"), "{out}");
        assert!(!out.contains("busybox"), "{out}");
    }

    #[test]
    fn json_patches_images_and_refusals() {
        let out = run("- kustomize:\n    patches:\n    - target: {kind: Deploy.*, labelSelector: app=web}\n      patch: |\n        - op: add\n        - {op: replace, path: /metadata/name, value: web2}\n").unwrap_err();
        assert!(out.to_string().contains("patches[0]"), "{out}");
        let out = run("- kustomize:\n    patches:\n    - target: {kind: Deploy.*, labelSelector: app=web}\n      patch: '[{\"op\": \"replace\", \"path\": \"/metadata/name\", \"value\": \"web2\"}]'\n    images:\n    - {name: nginx, newName: my/nginx, newTag: '2.0'}\n").unwrap();
        assert!(
            out.contains("name: \"web2\"") && out.contains("image: my/nginx:2.0"),
            "{out}"
        );
        let e =
            run("- kustomize:\n    patches:\n    - target: {kind: Service}\n      patch: '[]'\n")
                .unwrap_err();
        assert!(e.reason.contains("matches no object"), "{e}");
        let e = run("- kustomize:\n    patches:\n    - patch: 'a: b: c'\n").unwrap_err();
        assert!(e.to_string().starts_with("component \"web\": postRenderers[0].kustomize.patches[0]: the patch is not valid YAML"), "{e}");
    }
}
