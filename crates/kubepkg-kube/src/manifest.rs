//! A rendered release manifest (`---`-separated YAML documents, each preceded by Helm's
//! `# Source: <chart>/templates/<file>` comment) split into objects with their identity.

use std::fmt;

use serde_json::Value;

/// Errors reading a manifest; each names the template the document came from.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The document is not valid YAML.
    #[error("{source_path}: invalid YAML: {message}")]
    Yaml {
        source_path: String,
        message: String,
    },
    /// The document is YAML but not an object with apiVersion, kind and metadata.name.
    #[error(
        "{source_path}: {message} (every manifest document must be a Kubernetes object with apiVersion, kind and metadata.name)"
    )]
    NotAnObject {
        source_path: String,
        message: String,
    },
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
        let s = |path: &[&str]| crate::readiness::str_at(obj, path).map(str::to_string);
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

/// One object of a manifest with the template it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestObject {
    pub source: String,
    pub object: Value,
    pub id: ObjectRef,
}

/// Splits and parses a manifest. Empty documents (only comments or whitespace) are skipped,
/// as Helm does.
pub fn parse(manifest: &str) -> Result<Vec<ManifestObject>, ManifestError> {
    let docs = kubepkg_yaml::split::split_documents(manifest).map_err(|e| ManifestError::Yaml {
        source_path: "manifest".into(),
        message: e.to_string(),
    })?;
    let mut out = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let source = doc
            .lines()
            .find_map(|l| l.trim().strip_prefix("# Source: ").map(str::to_string))
            .unwrap_or_else(|| format!("document {}", i + 1));
        let value = kubepkg_yaml::from_yaml_str(doc).map_err(|e| ManifestError::Yaml {
            source_path: source.clone(),
            message: e.to_string(),
        })?;
        if matches!(value, kubepkg_value::Value::Nil) {
            continue;
        }
        let json = kubepkg_yaml::json::to_json(&value).map_err(|e| ManifestError::Yaml {
            source_path: source.clone(),
            message: e.to_string(),
        })?;
        let object: Value = serde_json::from_str(&json).map_err(|e| ManifestError::Yaml {
            source_path: source.clone(),
            message: e.to_string(),
        })?;
        if !object.is_object() {
            return Err(ManifestError::NotAnObject {
                source_path: source,
                message: "document is not a mapping".into(),
            });
        }
        let id = ObjectRef::of(&object).ok_or_else(|| ManifestError::NotAnObject {
            source_path: source.clone(),
            message: "apiVersion, kind or metadata.name not set".into(),
        })?;
        out.push(ManifestObject { source, object, id });
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
            err.to_string().starts_with("c/templates/bad.yaml:"),
            "{err}"
        );
        let err = parse("# Source: c/templates/list.yaml\n- 1\n- 2\n").unwrap_err();
        assert!(err.to_string().contains("not a mapping"), "{err}");
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
