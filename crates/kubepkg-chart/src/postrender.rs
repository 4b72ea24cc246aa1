//! Post-rendering as Helm 4 does it (`renderResources` in `pkg/action/action.go`, its default
//! `combined` strategy): after the templates are executed and `NOTES.txt` is set aside, every
//! rendered document, hooks included, is annotated with the file it came from
//! (`postrenderer.helm.sh/postrender-filename`) and the lot is handed to the post-renderer as
//! one stream; its answer is split back into files by that annotation (documents without it
//! become `generated-by-postrender-N.yaml`) and sorted into manifests and hooks as usual.
//!
//! Both directions go through kyaml ([`kubepkg_yaml::node`]), so the manifests a post-renderer
//! sees, and those Helm installs after it, are go-yaml v3's text, not the template's.
//!
//! A post-renderer is anything that turns that stream into another ([`PostRender`]): a Helm 4
//! `postrenderer/v1` plugin ([`crate::plugin::PostRendererPlugin`]) or kubepkg's declarative
//! patches. Several run in order on the same stream, as Flux chains its post-renderers.

use std::collections::BTreeMap;
use std::sync::Arc;

use kubepkg_yaml::node::{Node, parse_stream, write_stream};

use crate::merge_keys::MergeKeys;

/// The annotation Helm puts on each document to find its file again.
pub const FILENAME_ANNOTATION: &str = "postrenderer.helm.sh/postrender-filename";

/// One post-rendering step: the whole manifest stream in, a new stream out.
pub trait PostRender: std::fmt::Debug + Send + Sync {
    /// How a revision and messages name it (`plugin NAME [ARGS]`, `patches of COMPONENT`).
    fn describe(&self) -> String;
    /// The stream after this step; the error is the message to show (it names the step).
    fn run(&self, manifests: &str) -> Result<String, String>;
    /// The declarative specs of a kustomize-style step (what a Flux HelmRelease's
    /// `postRenderers` can hold); `None` for a step only kubepkg can run (a plugin).
    fn kustomize_specs(&self) -> Option<&[crate::kustomize::PostRendererSpec]> {
        None
    }
    /// The `(apiVersion, kind)` of the objects its strategic-merge patches aim at, as far as
    /// it names them (`None`: any version); empty for a step that merges nothing.
    fn aimed_kinds(&self) -> Vec<(Option<String>, String)> {
        Vec::new()
    }
    /// This step merging lists as `keys` declares; `None` when that changes nothing.
    fn with_merge_keys(&self, _keys: &Arc<MergeKeys>) -> Option<Arc<dyn PostRender>> {
        None
    }
}

impl PostRender for crate::kustomize::Kustomize {
    fn describe(&self) -> String {
        self.summary()
    }

    fn run(&self, manifests: &str) -> Result<String, String> {
        self.apply(manifests).map_err(|e| e.to_string())
    }

    fn kustomize_specs(&self) -> Option<&[crate::kustomize::PostRendererSpec]> {
        Some(self.specs())
    }

    fn aimed_kinds(&self) -> Vec<(Option<String>, String)> {
        crate::kustomize::Kustomize::aimed_kinds(self)
    }

    fn with_merge_keys(&self, keys: &Arc<MergeKeys>) -> Option<Arc<dyn PostRender>> {
        Some(Arc::new(crate::kustomize::Kustomize::with_merge_keys(
            self,
            keys.clone(),
        )))
    }
}

impl PostRender for crate::plugin::PostRendererPlugin {
    fn describe(&self) -> String {
        let mut s = format!("plugin {}", self.plugin.name);
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }

    fn run(&self, manifests: &str) -> Result<String, String> {
        crate::plugin::PostRendererPlugin::run(self, manifests).map_err(|e| e.to_string())
    }
}

/// The post-renderers of one render, in order. Two lists are equal when they describe the
/// same steps.
#[derive(Debug, Clone, Default)]
pub struct PostRenderers(pub Vec<Arc<dyn PostRender>>);

impl PostRenderers {
    /// No post-rendering.
    pub fn none() -> Self {
        PostRenderers(Vec::new())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each step's [`PostRender::describe`], in order (what a revision records).
    pub fn describe(&self) -> Vec<String> {
        self.0.iter().map(|s| s.describe()).collect()
    }

    /// These steps, then `more`.
    pub fn then(&self, more: &PostRenderers) -> PostRenderers {
        PostRenderers(self.0.iter().chain(more.0.iter()).cloned().collect())
    }

    /// Every step's [`PostRender::aimed_kinds`].
    pub fn aimed_kinds(&self) -> Vec<(Option<String>, String)> {
        self.0.iter().flat_map(|s| s.aimed_kinds()).collect()
    }

    /// These steps merging lists as `keys` (a cluster's OpenAPI) declares.
    pub fn with_merge_keys(&self, keys: &Arc<MergeKeys>) -> PostRenderers {
        PostRenderers(
            self.0
                .iter()
                .map(|s| s.with_merge_keys(keys).unwrap_or_else(|| s.clone()))
                .collect(),
        )
    }
}

impl PartialEq for PostRenderers {
    fn eq(&self, other: &Self) -> bool {
        self.describe() == other.describe()
    }
}

/// Helm's `annotateAndMerge`: the rendered files (by name) as one stream, each document
/// annotated with its file.
pub fn annotate_and_merge(files: &BTreeMap<String, String>) -> Result<String, String> {
    let mut all: Vec<Node> = Vec::new();
    for (name, content) in files {
        let base = name.rsplit('/').next().unwrap_or(name);
        if base.starts_with('_') || content.trim().is_empty() {
            continue;
        }
        for doc in kubepkg_manifest::sort::split_manifests(content) {
            if doc.trim().is_empty() {
                continue;
            }
            let nodes = parse_stream(&doc).map_err(|e| format!("parsing {name}: {e}"))?;
            for mut n in nodes {
                n.set_annotation(FILENAME_ANNOTATION, name)
                    .map_err(|e| format!("annotating {name}: {e}"))?;
                all.push(n);
            }
        }
    }
    Ok(write_stream(&all))
}

/// Helm's `splitAndDeannotate`: a post-rendered stream back into files by the annotation.
pub fn split_and_deannotate(stream: &str) -> Result<BTreeMap<String, String>, String> {
    let nodes = parse_stream(stream).map_err(|e| format!("error parsing YAML: {e}"))?;
    let mut by_file: BTreeMap<String, Vec<Node>> = BTreeMap::new();
    for (i, mut n) in nodes.into_iter().enumerate() {
        let name = match n.annotation(FILENAME_ANNOTATION) {
            Some(f) if !f.is_empty() => f.to_string(),
            _ => format!("generated-by-postrender-{i}.yaml"),
        };
        n.clear_annotation(FILENAME_ANNOTATION);
        by_file.entry(name).or_default().push(n);
    }
    Ok(by_file
        .into_iter()
        .map(|(name, docs)| (name, write_stream(&docs)))
        .collect())
}

/// The files after `steps` (none: unchanged), with Helm's error texts.
pub fn post_render(
    files: BTreeMap<String, String>,
    steps: &PostRenderers,
) -> Result<BTreeMap<String, String>, String> {
    if steps.is_empty() {
        return Ok(files);
    }
    let mut stream =
        annotate_and_merge(&files).map_err(|e| format!("error merging manifests: {e}"))?;
    for step in &steps.0 {
        stream = step
            .run(&stream)
            .map_err(|e| format!("error while running post render on files: {e}"))?;
    }
    split_and_deannotate(&stream)
        .map_err(|e| format!("error while parsing post rendered output: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Upper;
    impl PostRender for Upper {
        fn describe(&self) -> String {
            "upper".into()
        }
        fn run(&self, m: &str) -> Result<String, String> {
            Ok(m.replace("name: a", "name: b") + "---\nkind: Extra\n")
        }
    }

    #[test]
    fn files_survive_the_round_trip_and_new_documents_get_a_generated_name() {
        let files = BTreeMap::from([
            (
                "c/templates/a.yaml".to_string(),
                "kind: A\nmetadata:\n    name: a\n".to_string(),
            ),
            ("c/templates/_h.tpl".to_string(), "ignored".to_string()),
        ]);
        let merged = annotate_and_merge(&files).unwrap();
        assert_eq!(
            merged,
            "kind: A\nmetadata:\n  name: a\n  annotations:\n    postrenderer.helm.sh/postrender-filename: 'c/templates/a.yaml'\n"
        );
        let out = post_render(files, &PostRenderers(vec![Arc::new(Upper)])).unwrap();
        assert_eq!(out["c/templates/a.yaml"], "kind: A\nmetadata:\n  name: b\n");
        assert_eq!(out["generated-by-postrender-1.yaml"], "kind: Extra\n");
    }
}
