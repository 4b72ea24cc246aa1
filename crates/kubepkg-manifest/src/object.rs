//! A rendered release manifest (`---`-separated YAML documents, each preceded by Helm's
//! `# Source: <chart>/templates/<file>` comment) split into objects with their identity:
//! the one boundary between rendered text and Kubernetes objects.

use std::fmt;

use serde_json::Value;

/// Errors reading a manifest; each names the template the document came from.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The document is not valid YAML.
    #[error("{source_path} (document {document}): invalid YAML: {message}")]
    Yaml {
        source_path: String,
        document: usize,
        message: String,
    },
    /// The document is YAML but not an object with apiVersion, kind and metadata.name.
    #[error(
        "{source_path} (document {document}): {message} (every manifest document must be a Kubernetes object with apiVersion, kind and metadata.name)"
    )]
    NotAnObject {
        source_path: String,
        document: usize,
        message: String,
    },
}

/// A document as the plan shows it: without its `---` separator line, one final newline.
fn document_text(doc: &str) -> String {
    let body = match doc.split_once('\n') {
        Some((first, rest)) if first == "---" || first.starts_with("--- ") => rest,
        _ => doc,
    };
    body.trim_end().to_string() + "\n"
}

impl ManifestError {
    /// The 1-based document the error is about (0: the stream as a whole).
    pub fn document(&self) -> usize {
        match self {
            ManifestError::Yaml { document, .. } | ManifestError::NotAnObject { document, .. } => {
                *document
            }
        }
    }
}

/// Identity of an object: apiVersion, kind, namespace (empty for cluster-scoped or not yet
/// defaulted) and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl ObjectRef {
    /// The identity of a JSON object, `None` when kind/apiVersion/name are missing.
    pub fn of(obj: &Value) -> Option<ObjectRef> {
        let s = |path: &[&str]| {
            path.iter()
                .try_fold(obj, |v, k| v.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        Some(ObjectRef {
            api_version: s(&["apiVersion"]).filter(|v| !v.is_empty())?,
            kind: s(&["kind"]).filter(|v| !v.is_empty())?,
            namespace: s(&["metadata", "namespace"]).unwrap_or_default(),
            name: s(&["metadata", "name"]).filter(|v| !v.is_empty())?,
        })
    }

    /// The API group (`""` for the core group).
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map(|(g, _)| g)
            .unwrap_or("")
    }

    /// Same object regardless of API version (Helm compares group, kind, namespace, name).
    pub fn same_object(&self, other: &ObjectRef) -> bool {
        self.group() == other.group()
            && self.kind == other.kind
            && self.namespace == other.namespace
            && self.name == other.name
    }
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{} {:?}", self.kind, self.name)
        } else {
            write!(
                f,
                "{} {:?} in namespace {:?}",
                self.kind, self.name, self.namespace
            )
        }
    }
}

/// One object of a manifest: the template it came from, its position, the document as
/// rendered and the object as it is sent to the API server.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestObject {
    /// The template (`chart/templates/file.yaml`) from the document's `# Source:` line, or
    /// `document N` when it has none.
    pub source: String,
    /// The 1-based position of the document in the manifest.
    pub document: usize,
    /// The YAML document as rendered (what `plan` shows and diffs).
    pub text: String,
    /// The object as JSON, integers kept exactly (what apply sends).
    pub object: Value,
    pub id: ObjectRef,
}

impl ManifestObject {
    /// The Helm hook events the object is annotated with ([`HOOK_ANNOTATION`], as written:
    /// `pre-install,pre-upgrade`), or `None` for an object of the release itself.
    pub fn hook(&self) -> Option<&str> {
        self.object
            .get("metadata")?
            .get("annotations")?
            .get(HOOK_ANNOTATION)?
            .as_str()
    }
}

/// The annotation that makes an object a Helm hook: the events it runs on, comma-separated.
pub const HOOK_ANNOTATION: &str = "helm.sh/hook";

/// Splits and parses a manifest: the one conversion from rendered text to Kubernetes
/// objects, used by plan, apply, status and prune.
///
/// Documents are split as Kubernetes' YAML stream reader splits them (what Helm's kube
/// client reads a release manifest with); empty documents (only comments or whitespace)
/// are skipped, as Helm does. Each document becomes JSON as `sigs.k8s.io/yaml.YAMLToJSON`
/// makes it: integers stay integers of any size that fits `int64`/`uint64` (never through
/// `float64`, so `9007199254740993` reaches the API server intact).
pub fn parse(manifest: &str) -> Result<Vec<ManifestObject>, ManifestError> {
    let docs = kubepkg_yaml::split::split_documents(manifest).map_err(|e| ManifestError::Yaml {
        source_path: "manifest".into(),
        document: 0,
        message: e.to_string(),
    })?;
    let mut out = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let document = i + 1;
        let source = doc
            .lines()
            .find_map(|l| l.trim().strip_prefix("# Source: ").map(str::to_string))
            .unwrap_or_else(|| format!("document {document}"));
        let yaml_err = |message: String| ManifestError::Yaml {
            source_path: source.clone(),
            document,
            message,
        };
        let json = kubepkg_yaml::yaml_to_json(doc).map_err(|e| yaml_err(e.to_string()))?;
        let object: Value = serde_json::from_str(&json).map_err(|e| yaml_err(e.to_string()))?;
        if object.is_null() {
            continue;
        }
        if !object.is_object() {
            return Err(ManifestError::NotAnObject {
                source_path: source,
                document,
                message: "document is not a mapping".into(),
            });
        }
        let id = ObjectRef::of(&object).ok_or_else(|| ManifestError::NotAnObject {
            source_path: source.clone(),
            document,
            message: "apiVersion, kind or metadata.name not set".into(),
        })?;
        out.push(ManifestObject {
            source,
            document,
            text: document_text(doc),
            object,
            id,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_helm_manifest_with_sources() {
        let m = "---\n# Source: web/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  n: \"1\"\n---\n# Source: web/templates/empty.yaml\n# nothing here\n---\n# Source: web/templates/dep.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: x\nspec:\n  replicas: 3\n";
        let objs = parse(m).unwrap();
        assert_eq!(objs.len(), 2);
        assert_eq!(objs[0].source, "web/templates/cm.yaml");
        assert_eq!(
            objs[1].id.to_string(),
            "Deployment \"d\" in namespace \"x\""
        );
        assert_eq!(objs[1].object["spec"]["replicas"], 3);
    }

    #[test]
    fn missing_kind_names_the_template() {
        let err = parse("# Source: c/templates/bad.yaml\napiVersion: v1\nmetadata:\n  name: a\n")
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("c/templates/bad.yaml (document 1):"),
            "{err}"
        );
        let err = parse("# Source: c/templates/list.yaml\n- 1\n- 2\n").unwrap_err();
        assert!(err.to_string().contains("not a mapping"), "{err}");
    }

    // Regression: the manifest went YAML → Go values → JSON text through float64, so
    // 2^53+1 reached the API server as 2^53.
    #[test]
    fn integers_above_2_pow_53_are_kept() {
        let objs = parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nspec:\n  big: 9007199254740993\n  max: 18446744073709551615\n  neg: -9223372036854775808\n  f: 1.5\n").unwrap();
        let spec = &objs[0].object["spec"];
        assert_eq!(spec["big"].as_u64(), Some(9_007_199_254_740_993));
        assert_eq!(spec["max"].as_u64(), Some(u64::MAX));
        assert_eq!(spec["neg"].as_i64(), Some(i64::MIN));
        assert_eq!(spec["f"].as_f64(), Some(1.5));
        assert_eq!(
            serde_json::to_string(spec).unwrap(),
            r#"{"big":9007199254740993,"f":1.5,"max":18446744073709551615,"neg":-9223372036854775808}"#
        );
    }

    #[test]
    fn errors_name_the_document_and_keep_the_text() {
        let m = "---\n# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# Source: c/templates/b.yaml\nkey: [unclosed\n";
        let err = parse(m).unwrap_err();
        assert_eq!(err.document(), 2);
        assert!(
            err.to_string()
                .starts_with("c/templates/b.yaml (document 2): invalid YAML"),
            "{err}"
        );
        let ok = parse(&m[..m.rfind("---").unwrap()]).unwrap();
        assert_eq!(
            ok[0].text,
            "# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
        );
    }

    #[test]
    fn same_object_ignores_version() {
        let a = ObjectRef {
            api_version: "autoscaling/v1".into(),
            kind: "HorizontalPodAutoscaler".into(),
            namespace: "n".into(),
            name: "h".into(),
        };
        let b = ObjectRef {
            api_version: "autoscaling/v2".into(),
            ..a.clone()
        };
        assert!(a.same_object(&b));
    }
}
