//! What a change of a CustomResourceDefinition does to the objects that already exist, judged
//! before anything is applied — the checks OLM runs before it upgrades an operator's CRDs
//! (its CRD upgrade-safety rules), as one pure comparison of the old and the new definition:
//!
//! | change | verdict | why |
//! |---|---|---|
//! | `spec.scope` changed | unsafe | every existing object is lost to the new scope |
//! | a version removed | unsafe | objects stored or written at it can no longer be read |
//! | a version no longer served | unsafe | clients and manifests that use it break |
//! | a property's `type` changed | unsafe | existing values no longer validate |
//! | a property removed (no `x-kubernetes-preserve-unknown-fields`) | unsafe | its data is pruned on the next write |
//! | a new `required` property | unsafe | existing objects without it no longer validate |
//! | an `enum` value removed, or an `enum` added | unsafe | existing values may be outside it |
//! | a `default` added, changed or removed | unsafe | objects that relied on it change meaning |
//! | a version added, a property added | safe | – |
//!
//! Descriptions and other annotations are not changes. The comparison walks each version's
//! `schema.openAPIV3Schema` through `properties`, `items` and `additionalProperties`; paths are
//! written `spec.size`, `spec.items[*].name`, `spec.labels[*]`.
//!
//! A leaf crate, used by `kubepkg-package` (plan, orchestrator) and `kubepkg-engine` (the plan
//! against the objects in the cluster).

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// What changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
#[non_exhaustive]
pub enum ChangeKind {
    ScopeChanged {
        from: String,
        to: String,
    },
    VersionRemoved,
    VersionUnserved,
    VersionAdded,
    TypeChanged {
        from: String,
        to: String,
    },
    PropertyRemoved,
    PropertyAdded,
    RequiredAdded,
    EnumValuesRemoved {
        values: Vec<String>,
    },
    EnumAdded,
    DefaultChanged {
        from: String,
        to: String,
    },
    /// Objects in the cluster that the new schema of their version would not accept.
    ObjectsInvalid {
        invalid: usize,
        total: usize,
        first: String,
    },
}

impl ChangeKind {
    /// Whether existing objects and clients keep working.
    pub fn is_safe(&self) -> bool {
        matches!(self, ChangeKind::VersionAdded | ChangeKind::PropertyAdded)
    }
}

/// One change of one CRD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdChange {
    /// The CRD's name (`widgets.demo.kubepkg.dev`).
    pub crd: String,
    /// The version whose schema changed (none for scope changes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The property's path in the schema (empty for the whole version).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub path: String,
    pub change: ChangeKind,
    pub safe: bool,
}

impl fmt::Display for CrdChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CustomResourceDefinition {}", self.crd)?;
        if let Some(v) = &self.version {
            write!(f, " {v}")?;
        }
        if !self.path.is_empty() {
            write!(f, " {}", self.path)?;
        }
        let (what, why) = match &self.change {
            ChangeKind::ScopeChanged { from, to } => (
                format!("scope changed from {from} to {to}"),
                "existing objects are lost to the new scope",
            ),
            ChangeKind::VersionRemoved => (
                "version removed".into(),
                "objects stored or written at it can no longer be read",
            ),
            ChangeKind::VersionUnserved => (
                "version no longer served".into(),
                "clients and manifests that use it break",
            ),
            ChangeKind::VersionAdded => ("version added".into(), ""),
            ChangeKind::TypeChanged { from, to } => (
                format!("type changed from {from} to {to}"),
                "existing values may no longer validate",
            ),
            ChangeKind::PropertyRemoved => (
                "property removed".into(),
                "its data is dropped from existing objects on their next write",
            ),
            ChangeKind::PropertyAdded => ("property added".into(), ""),
            ChangeKind::RequiredAdded => (
                "now required".into(),
                "existing objects without it no longer validate",
            ),
            ChangeKind::EnumValuesRemoved { values } => (
                format!("enum values removed: {}", values.join(", ")),
                "existing values may be outside the enum",
            ),
            ChangeKind::EnumAdded => (
                "enum added".into(),
                "existing values may be outside the enum",
            ),
            ChangeKind::DefaultChanged { from, to } => (
                format!("default changed from {from} to {to}"),
                "objects that relied on the default change meaning",
            ),
            ChangeKind::ObjectsInvalid {
                invalid,
                total,
                first,
            } => (
                format!(
                    "{invalid} of {total} existing object(s) would not validate under the new schema (first: {first})"
                ),
                "the API server refuses every later write of them",
            ),
        };
        write!(f, ": {what}")?;
        if self.safe {
            f.write_str(" (safe)")
        } else {
            write!(f, " (unsafe: {why})")
        }
    }
}

/// Every change from the CRD `old` to `new` (both as JSON objects), safe ones included, in
/// the order of the definition.
pub fn compare(old: &Value, new: &Value) -> Vec<CrdChange> {
    let crd = str_at(new, "/metadata/name").to_string();
    let mut out = Vec::new();
    let mut push = |version: Option<&str>, path: String, change: ChangeKind| {
        out.push(CrdChange {
            crd: crd.clone(),
            version: version.map(str::to_string),
            path,
            safe: change.is_safe(),
            change,
        })
    };
    let (old_scope, new_scope) = (scope(old), scope(new));
    if old_scope != new_scope {
        push(
            None,
            String::new(),
            ChangeKind::ScopeChanged {
                from: old_scope.into(),
                to: new_scope.into(),
            },
        );
    }
    let old_versions = versions(old);
    let new_versions = versions(new);
    for (name, served, schema) in &old_versions {
        match new_versions.iter().find(|(n, _, _)| n == name) {
            None => push(Some(name), String::new(), ChangeKind::VersionRemoved),
            Some((_, new_served, new_schema)) => {
                if *served && !*new_served {
                    push(Some(name), String::new(), ChangeKind::VersionUnserved);
                }
                let mut changes = Vec::new();
                compare_schema("", schema, new_schema, &mut changes);
                for (path, change) in changes {
                    push(Some(name), path, change);
                }
            }
        }
    }
    for (name, _, _) in &new_versions {
        if !old_versions.iter().any(|(n, _, _)| n == name) {
            push(Some(name), String::new(), ChangeKind::VersionAdded);
        }
    }
    out
}

/// The objects of `objects` (custom resources of the CRD, each with its `apiVersion`) that the
/// schema `new` gives their version would not accept, as a change (`None`: all valid, or
/// nothing to check). A version the new definition drops is a change of its own.
pub fn validate_existing(new: &Value, objects: &[Value]) -> Option<CrdChange> {
    let crd = str_at(new, "/metadata/name").to_string();
    let schemas: Vec<(String, Option<jsonschema::Validator>)> = versions(new)
        .into_iter()
        .map(|(name, _, schema)| {
            let mut schema = schema;
            structural_to_json_schema(&mut schema);
            (
                name,
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft4)
                    .build(&schema)
                    .ok(),
            )
        })
        .collect();
    let mut invalid = 0;
    let mut first: Option<(String, String)> = None;
    let mut checked = 0;
    for o in objects {
        let version = str_at(o, "/apiVersion")
            .rsplit('/')
            .next()
            .unwrap_or_default();
        let Some((name, Some(validator))) = schemas.iter().find(|(n, _)| n == version) else {
            continue;
        };
        checked += 1;
        let mut errors = validator.iter_errors(o);
        if let Some(e) = errors.next() {
            invalid += 1;
            if first.is_none() {
                let ns = str_at(o, "/metadata/namespace");
                let object = match ns {
                    "" => str_at(o, "/metadata/name").to_string(),
                    ns => format!("{ns}/{}", str_at(o, "/metadata/name")),
                };
                first = Some((
                    name.clone(),
                    format!("{object}: at '{}': {e}", e.instance_path()),
                ));
            }
        }
    }
    let (version, first) = first?;
    Some(CrdChange {
        crd,
        version: Some(version),
        path: String::new(),
        change: ChangeKind::ObjectsInvalid {
            invalid,
            total: checked,
            first,
        },
        safe: false,
    })
}

/// A structural schema read as JSON Schema (draft 4, which OpenAPI v3 schemas follow): the
/// Kubernetes extensions become what they mean — `nullable: true` admits `null`,
/// `x-kubernetes-int-or-string` admits an integer or a string.
fn structural_to_json_schema(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if obj
        .get("x-kubernetes-int-or-string")
        .and_then(Value::as_bool)
        == Some(true)
    {
        obj.remove("type");
        obj.insert(
            "anyOf".into(),
            serde_json::json!([{"type": "integer"}, {"type": "string"}]),
        );
    }
    if obj.get("nullable").and_then(Value::as_bool) == Some(true)
        && let Some(Value::String(t)) = obj.get("type").cloned()
    {
        obj.insert("type".into(), serde_json::json!([t, "null"]));
    }
    for key in ["properties", "patternProperties"] {
        if let Some(Value::Object(props)) = obj.get_mut(key) {
            for (_, v) in props.iter_mut() {
                structural_to_json_schema(v);
            }
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(v) = obj.get_mut(key) {
            structural_to_json_schema(v);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(items)) = obj.get_mut(key) {
            for v in items {
                structural_to_json_schema(v);
            }
        }
    }
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// `spec.scope`, `Namespaced` when unset (the API server's default).
fn scope(crd: &Value) -> &str {
    match str_at(crd, "/spec/scope") {
        "" => "Namespaced",
        s => s,
    }
}

/// `(name, served, openAPIV3Schema)` of each version.
fn versions(crd: &Value) -> Vec<(String, bool, Value)> {
    crd.pointer("/spec/versions")
        .and_then(Value::as_array)
        .map(|vs| {
            vs.iter()
                .filter_map(|v| {
                    Some((
                        v.get("name")?.as_str()?.to_string(),
                        v.get("served").and_then(Value::as_bool).unwrap_or(false),
                        v.pointer("/schema/openAPIV3Schema")
                            .cloned()
                            .unwrap_or(Value::Null),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// A value as a short text for messages (`"a"`, `3`, `none`).
fn text(v: Option<&Value>) -> String {
    match v {
        None => "none".into(),
        Some(v) => v.to_string(),
    }
}

fn compare_schema(path: &str, old: &Value, new: &Value, out: &mut Vec<(String, ChangeKind)>) {
    let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
        return;
    };
    if let (Some(ot), Some(nt)) = (
        o.get("type").and_then(Value::as_str),
        n.get("type").and_then(Value::as_str),
    ) && ot != nt
    {
        out.push((
            path.to_string(),
            ChangeKind::TypeChanged {
                from: ot.into(),
                to: nt.into(),
            },
        ));
        return;
    }
    match (
        o.get("enum").and_then(Value::as_array),
        n.get("enum").and_then(Value::as_array),
    ) {
        (Some(oe), Some(ne)) => {
            let removed: Vec<String> = oe
                .iter()
                .filter(|v| !ne.contains(v))
                .map(|v| text(Some(v)))
                .collect();
            if !removed.is_empty() {
                out.push((
                    path.to_string(),
                    ChangeKind::EnumValuesRemoved { values: removed },
                ));
            }
        }
        (None, Some(_)) => out.push((path.to_string(), ChangeKind::EnumAdded)),
        _ => {}
    }
    if o.get("default") != n.get("default") {
        out.push((
            path.to_string(),
            ChangeKind::DefaultChanged {
                from: text(o.get("default")),
                to: text(n.get("default")),
            },
        ));
    }
    let names = |m: &serde_json::Map<String, Value>| -> Vec<String> {
        m.get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let old_required = names(o);
    for r in names(n) {
        if !old_required.contains(&r) {
            out.push((join(path, &r), ChangeKind::RequiredAdded));
        }
    }
    let empty = serde_json::Map::new();
    let op = o
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let np = n
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let preserves = n
        .get("x-kubernetes-preserve-unknown-fields")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    for (name, os) in op {
        let p = join(path, name);
        match np.get(name) {
            Some(ns) => compare_schema(&p, os, ns, out),
            None if preserves => {}
            None => out.push((p, ChangeKind::PropertyRemoved)),
        }
    }
    for name in np.keys() {
        if !op.contains_key(name) {
            out.push((join(path, name), ChangeKind::PropertyAdded));
        }
    }
    if let (Some(oi), Some(ni)) = (o.get("items"), n.get("items")) {
        compare_schema(&format!("{path}[*]"), oi, ni, out);
    }
    if let (Some(oa), Some(na)) = (o.get("additionalProperties"), n.get("additionalProperties")) {
        compare_schema(&format!("{path}[*]"), oa, na, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(scope: &str, versions: Value) -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "widgets.demo.kubepkg.dev"},
               "spec": {"group": "demo.kubepkg.dev", "scope": scope, "versions": versions}})
    }

    fn v(name: &str, served: bool, spec: Value) -> Value {
        json!({"name": name, "served": served, "storage": true,
               "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}})
    }

    fn texts(old: &Value, new: &Value) -> Vec<String> {
        compare(old, new).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn an_identical_definition_has_no_change() {
        let a = crd(
            "Namespaced",
            json!([v("v1", true, json!({"type": "object", "description": "x"}))]),
        );
        let mut b = a.clone();
        b["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["description"] =
            json!("changed text");
        assert!(compare(&a, &b).is_empty());
    }

    #[test]
    fn each_unsafe_change_is_named_with_its_path() {
        let old = crd(
            "Namespaced",
            json!([
                v(
                    "v1",
                    true,
                    json!({"type": "object", "properties": {
                        "size": {"type": "integer", "default": 1},
                        "mode": {"type": "string", "enum": ["fast", "safe", "slow"]},
                        "color": {"type": "string"},
                        "ports": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
                        "legacy": {"type": "string"}
                    }})
                ),
                v("v1beta1", true, json!({"type": "object"}))
            ]),
        );
        let new = crd(
            "Cluster",
            json!([
                v(
                    "v1",
                    true,
                    json!({"type": "object", "required": ["owner"], "properties": {
                        "size": {"type": "string"},
                        "mode": {"type": "string", "enum": ["fast"]},
                        "color": {"type": "string", "enum": ["red"], "default": "red"},
                        "ports": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "integer"}}}},
                        "owner": {"type": "string"}
                    }})
                ),
                v("v2", true, json!({"type": "object"}))
            ]),
        );
        assert_eq!(
            texts(&old, &new),
            [
                "CustomResourceDefinition widgets.demo.kubepkg.dev: scope changed from Namespaced to Cluster (unsafe: existing objects are lost to the new scope)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v1 spec.owner: now required (unsafe: existing objects without it no longer validate)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v1 spec.size: type changed from integer to string (unsafe: existing values may no longer validate)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v1 spec.mode: enum values removed: \"safe\", \"slow\" (unsafe: existing values may be outside the enum)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v1 spec.color: enum added (unsafe: existing values may be outside the enum)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v1 spec.color: default changed from none to \"red\" (unsafe: objects that relied on the default change meaning)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v1 spec.ports[*].name: type changed from string to integer (unsafe: existing values may no longer validate)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v1 spec.legacy: property removed (unsafe: its data is dropped from existing objects on their next write)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v1 spec.owner: property added (safe)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v1beta1: version removed (unsafe: objects stored or written at it can no longer be read)",
                "CustomResourceDefinition widgets.demo.kubepkg.dev v2: version added (safe)",
            ]
        );
    }

    #[test]
    fn new_optional_fields_and_versions_are_safe_and_unserving_is_not() {
        let old = crd("", json!([v("v1", true, json!({"type": "object"}))]));
        let new = crd(
            "Namespaced",
            json!([v(
                "v1",
                false,
                json!({"type": "object", "properties": {"x": {"type": "string"}}})
            )]),
        );
        let changes = compare(&old, &new);
        assert_eq!(changes.len(), 2, "{changes:?}");
        assert_eq!(changes[0].change, ChangeKind::VersionUnserved);
        assert!(!changes[0].safe);
        assert_eq!(changes[1].change, ChangeKind::PropertyAdded);
        assert!(changes[1].safe);
    }

    #[test]
    fn preserved_unknown_fields_keep_removed_properties() {
        let old = crd(
            "Namespaced",
            json!([v(
                "v1",
                true,
                json!({"type": "object", "properties": {"a": {"type": "string"}}})
            )]),
        );
        let new = crd(
            "Namespaced",
            json!([v(
                "v1",
                true,
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
            )]),
        );
        assert!(compare(&old, &new).is_empty());
    }

    #[test]
    fn existing_objects_are_checked_against_the_new_schema_of_their_version() {
        let new = crd(
            "Namespaced",
            json!([v(
                "v1",
                true,
                json!({"type": "object", "properties": {
                    "size": {"type": "integer"},
                    "port": {"x-kubernetes-int-or-string": true},
                    "note": {"type": "string", "nullable": true}
                }})
            )]),
        );
        let obj = |name: &str, spec: Value| {
            json!({"apiVersion": "demo.kubepkg.dev/v1", "kind": "Widget",
                   "metadata": {"name": name, "namespace": "ns"}, "spec": spec})
        };
        let fine = [
            obj("a", json!({"size": 3, "port": "http", "note": null})),
            obj("b", json!({"size": 1, "port": 80})),
        ];
        assert_eq!(validate_existing(&new, &fine), None);
        let mut all = fine.to_vec();
        all.push(obj("c", json!({"size": "3"})));
        all.push(json!({"apiVersion": "demo.kubepkg.dev/v9", "metadata": {"name": "other"}}));
        let change = validate_existing(&new, &all).unwrap();
        assert!(!change.safe);
        assert_eq!(
            change.to_string(),
            "CustomResourceDefinition widgets.demo.kubepkg.dev v1: 1 of 3 existing object(s) would not validate under the new schema (first: ns/c: at '/spec/size': \"3\" is not of type \"integer\") (unsafe: the API server refuses every later write of them)"
        );
    }
}
