//! How the lists of a kind merge in a strategic-merge patch, read from a cluster's OpenAPI v3
//! document of one group/version (`/openapi/v3/apis/GROUP/VERSION`): what
//! [`crate::kustomize`] uses, where a cluster is at hand, for the kinds its offline table does
//! not know ([`crate::kustomize::KNOWN_KINDS`]: the table stays authoritative for those, as
//! kustomize's built-in schema is).
//!
//! Only what a schema declares is taken: `x-kubernetes-patch-strategy: merge` with
//! `x-kubernetes-patch-merge-key` (built-in APIs), `x-kubernetes-list-type: map` with its
//! first `x-kubernetes-list-map-keys` (CRDs), `x-kubernetes-list-type: set`, and an explicit
//! `x-kubernetes-list-type: atomic` (replaced). A list the schema says nothing about keeps
//! kyaml's fallback (the associative keys), so a CRD without these markers merges as it does
//! under Flux.

use std::collections::BTreeMap;

/// How one list merges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListMerge {
    /// Items are mappings merged by this key.
    Key(String),
    /// A set of scalars: patch items are added when absent.
    Set,
    /// Replaced by the patch's list.
    Atomic,
}

/// The declared list merges of kinds: `(apiVersion, kind)` → list path (field names from the
/// object's root, list items as `[]`, joined by `/`) → how it merges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeKeys {
    kinds: BTreeMap<(String, String), BTreeMap<String, ListMerge>>,
}

/// How deep a schema is followed (recursive schemas, such as a CRD's own JSON schema type,
/// would not end).
const MAX_DEPTH: usize = 16;

impl MergeKeys {
    /// The declared merges of every kind of one OpenAPI v3 group/version document, but those
    /// of `skip` (kinds another table decides).
    pub fn from_openapi_v3(doc: &serde_json::Value, skip: &[&str]) -> MergeKeys {
        let mut out = MergeKeys::default();
        let Some(schemas) = doc
            .pointer("/components/schemas")
            .and_then(|s| s.as_object())
        else {
            return out;
        };
        for schema in schemas.values() {
            let Some(gvks) = schema
                .get("x-kubernetes-group-version-kind")
                .and_then(|g| g.as_array())
            else {
                continue;
            };
            for gvk in gvks {
                let text = |k: &str| gvk.get(k).and_then(|v| v.as_str()).unwrap_or_default();
                let (group, version, kind) = (text("group"), text("version"), text("kind"));
                if kind.is_empty() || skip.contains(&kind) {
                    continue;
                }
                let api_version = if group.is_empty() {
                    version.to_string()
                } else {
                    format!("{group}/{version}")
                };
                let mut lists = BTreeMap::new();
                walk(doc, schema, &mut Vec::new(), &mut lists);
                if !lists.is_empty() {
                    out.kinds.insert((api_version, kind.to_string()), lists);
                }
            }
        }
        out
    }

    /// Adds `other`'s kinds.
    pub fn extend(&mut self, other: MergeKeys) {
        self.kinds.extend(other.kinds);
    }

    /// Whether no kind has a declared merge.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// How the list at `path` of an object of `api_version` `kind` merges, when declared.
    pub fn list(&self, api_version: &str, kind: &str, path: &[String]) -> Option<&ListMerge> {
        self.kinds
            .get(&(api_version.to_string(), kind.to_string()))?
            .get(&path.join("/"))
    }
}

/// The schema `s` points at (`$ref`, or `allOf: [{$ref}]` as the API server writes a field of
/// a named type), or `s`.
fn resolve<'a>(doc: &'a serde_json::Value, s: &'a serde_json::Value) -> &'a serde_json::Value {
    let reference = s.get("$ref").or_else(|| {
        s.get("allOf")
            .and_then(|a| a.as_array())
            .and_then(|a| a.first())
            .and_then(|f| f.get("$ref"))
    });
    match reference
        .and_then(|r| r.as_str())
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| doc.pointer(p))
    {
        Some(target) => target,
        None => s,
    }
}

fn walk(
    doc: &serde_json::Value,
    schema: &serde_json::Value,
    path: &mut Vec<String>,
    out: &mut BTreeMap<String, ListMerge>,
) {
    if path.len() > MAX_DEPTH {
        return;
    }
    // The list markers sit on the field (beside its `allOf`), the structure on the type.
    if let Some(merge) = declared(schema) {
        out.insert(path.join("/"), merge);
    }
    let s = resolve(doc, schema);
    if let Some(items) = s.get("items") {
        path.push("[]".into());
        walk(doc, items, path, out);
        path.pop();
    }
    if let Some(props) = s.get("properties").and_then(|p| p.as_object()) {
        for (name, field) in props {
            path.push(name.clone());
            walk(doc, field, path, out);
            path.pop();
        }
    }
}

/// What a field's schema declares about its list merge.
fn declared(s: &serde_json::Value) -> Option<ListMerge> {
    let text = |k: &str| s.get(k).and_then(|v| v.as_str());
    let strategy = text("x-kubernetes-patch-strategy").unwrap_or_default();
    if strategy.split(',').any(|p| p == "merge") {
        return Some(match text("x-kubernetes-patch-merge-key") {
            Some(key) => ListMerge::Key(key.to_string()),
            None => ListMerge::Set,
        });
    }
    match text("x-kubernetes-list-type")? {
        "map" => s
            .get("x-kubernetes-list-map-keys")
            .and_then(|k| k.as_array())
            .and_then(|k| k.first())
            .and_then(|k| k.as_str())
            .map(|k| ListMerge::Key(k.to_string())),
        "set" => Some(ListMerge::Set),
        "atomic" => Some(ListMerge::Atomic),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The shapes the API server writes: a built-in kind's fields by `allOf` + `$ref` with the
    /// patch markers beside them, and a CRD's schema inline with list-type markers.
    #[test]
    fn declared_merges_are_read_from_both_shapes_and_nothing_else() {
        let doc = json!({"components": {"schemas": {
            "io.k8s.api.networking.v1.NetworkPolicy": {
                "x-kubernetes-group-version-kind": [{"group": "networking.k8s.io", "version": "v1", "kind": "NetworkPolicy"}],
                "properties": {"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.NetworkPolicySpec"}]}},
            },
            "io.k8s.api.networking.v1.NetworkPolicySpec": {"properties": {
                "policyTypes": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "atomic"},
                "ingress": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.Rule"}]}},
            }},
            "io.k8s.api.networking.v1.Rule": {"properties": {
                "ports": {"type": "array", "x-kubernetes-patch-strategy": "merge,retainKeys", "x-kubernetes-patch-merge-key": "port", "items": {"type": "object"}},
            }},
            "dev.example.v1.Gateway": {
                "x-kubernetes-group-version-kind": [{"group": "example.dev", "version": "v1", "kind": "Gateway"}],
                "properties": {"spec": {"properties": {
                    "listeners": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"], "items": {"type": "object"}},
                    "hostnames": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                    "rules": {"type": "array", "items": {"type": "object"}},
                }}},
            },
            "io.k8s.api.apps.v1.Deployment": {
                "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
                "properties": {"spec": {"properties": {"x": {"type": "array", "x-kubernetes-list-type": "set"}}}},
            },
        }}});
        let keys = MergeKeys::from_openapi_v3(&doc, &["Deployment"]);
        let path = |p: &str| p.split('/').map(String::from).collect::<Vec<_>>();
        let np = |p: &str| {
            keys.list("networking.k8s.io/v1", "NetworkPolicy", &path(p))
                .cloned()
        };
        assert_eq!(np("spec/policyTypes"), Some(ListMerge::Atomic));
        assert_eq!(
            np("spec/ingress/[]/ports"),
            Some(ListMerge::Key("port".into()))
        );
        assert_eq!(np("spec/ingress"), None, "undeclared: the fallback decides");
        let gw = |p: &str| keys.list("example.dev/v1", "Gateway", &path(p)).cloned();
        assert_eq!(gw("spec/listeners"), Some(ListMerge::Key("port".into())));
        assert_eq!(gw("spec/hostnames"), Some(ListMerge::Set));
        assert_eq!(gw("spec/rules"), None);
        assert!(
            keys.list("apps/v1", "Deployment", &path("spec/x"))
                .is_none(),
            "skipped kinds are the table's"
        );
    }

    #[test]
    fn a_recursive_schema_ends() {
        let doc = json!({"components": {"schemas": {
            "T": {
                "x-kubernetes-group-version-kind": [{"group": "g", "version": "v1", "kind": "T"}],
                "properties": {"self": {"$ref": "#/components/schemas/T"},
                               "l": {"type": "array", "x-kubernetes-list-type": "set"}},
            },
        }}});
        let keys = MergeKeys::from_openapi_v3(&doc, &[]);
        assert_eq!(
            keys.list("g/v1", "T", &["l".to_string()]),
            Some(&ListMerge::Set)
        );
    }
}
