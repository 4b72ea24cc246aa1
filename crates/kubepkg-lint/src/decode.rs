//! Rendered manifests and CRD files read as `helm lint` reads them: apimachinery's
//! `YAMLOrJSONDecoder` (a stream that opens with `{` is JSON, otherwise YAML documents split
//! as Kubernetes' YAML reader splits them) decoding each document into Helm's
//! `k8sYamlStruct` stub (apiVersion, kind, metadata name and namespace), with Go's errors.

use kubepkg_value::{Value, map_read};

/// The fields of a document the rules look at (Helm's `k8sYamlStruct`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stub {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

/// The documents of `content` in order: `Ok(None)` for an empty (null) document, `Err` with
/// Go's text for the first that fails to decode (the reading stops there, as Helm's does).
pub fn documents(content: &str) -> Vec<Result<Option<Stub>, String>> {
    let t = content.trim_start_matches([' ', '\t', '\n', '\r']);
    if t.starts_with('{') {
        match kubepkg_yaml::json::from_json(t) {
            Ok(v) => return vec![stub(&v).map_err(sigs_json_error)],
            Err(kubepkg_yaml::JsonError::Syntax { offset, message }) => {
                // Ambiguous: apimachinery retries the stream as YAML and reports the JSON
                // error only if that fails too.
                let yaml = yaml_documents(content);
                if yaml.iter().any(|d| d.is_err()) {
                    return vec![Err(format!("json: offset {offset}: {message}"))];
                }
                return yaml;
            }
            Err(e) => return vec![Err(e.to_string())],
        }
    }
    yaml_documents(content)
}

fn yaml_documents(content: &str) -> Vec<Result<Option<Stub>, String>> {
    let docs = match kubepkg_yaml::split::split_documents(content) {
        Ok(d) => d,
        Err(kubepkg_yaml::YamlError::Separator { text }) => {
            return vec![Err(format!("invalid Yaml document separator: {text}"))];
        }
        Err(e) => return vec![Err(e.to_string())],
    };
    let mut out = Vec::new();
    for d in docs {
        let r = kubepkg_yaml::from_yaml_str(&d)
            .map_err(|e| e.to_string())
            .and_then(|v| stub(&v).map_err(sigs_json_error));
        let failed = r.is_err();
        out.push(r);
        if failed {
            break;
        }
    }
    out
}

/// `sigs.k8s.io/yaml.Unmarshal`'s wrapping of a JSON decoding error.
fn sigs_json_error(e: String) -> String {
    format!("error unmarshaling JSON: while decoding JSON: {e}")
}

fn json_kind(v: &Value) -> &'static str {
    type_names(v).1
}

/// The names of the type of a value decoded from JSON: Go's `%T` of it in an `interface{}`,
/// and its JSON type.
pub(crate) fn type_names(v: &Value) -> (&'static str, &'static str) {
    match v {
        Value::Nil => ("<nil>", "null"),
        Value::Bool(_) => ("bool", "bool"),
        Value::String(_) | Value::NonUtf8String(_) => ("string", "string"),
        Value::List(..) => ("[]interface {}", "array"),
        Value::Map(_) | Value::Object(_) => ("map[string]interface {}", "object"),
        _ => ("float64", "number"),
    }
}

/// A string field's value as Go's decoder sets it: a null leaves what the field holds.
fn set_string(slot: &mut String, v: &Value, go_path: &str) -> Result<(), String> {
    match v {
        Value::Nil => {}
        Value::String(s) => *slot = s.to_string(),
        Value::NonUtf8String(_) => slot.clear(),
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go struct field {go_path} of type string",
                json_kind(other)
            ));
        }
    }
    Ok(())
}

/// `json.Unmarshal(doc, &*k8sYamlStruct)`: `None` for `null`. The keys fill the struct as Go's
/// decoder fills it ([`kubepkg_gostd::json::fill_fields`]: in order, each key naming a field
/// the same or in another case, a later one over an earlier one, objects for `Metadata` into
/// the same struct).
pub fn stub(v: &Value) -> Result<Option<Stub>, String> {
    let m = match v {
        Value::Nil => return Ok(None),
        Value::Map(m) => map_read(m),
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type rules.k8sYamlStruct",
                json_kind(other)
            ));
        }
    };
    let mut s = Stub::default();
    let entries = m.iter().map(|(k, v)| (k.as_str(), v));
    kubepkg_gostd::json::fill_fields(entries, &["apiVersion", "Kind", "Metadata"], |field, v| {
        match field {
            0 => set_string(&mut s.api_version, v, "k8sYamlStruct.apiVersion"),
            1 => set_string(&mut s.kind, v, "k8sYamlStruct.Kind"),
            _ => match v {
                Value::Nil => Ok(()),
                Value::Map(md) => {
                    let md = map_read(md);
                    let entries = md.iter().map(|(k, v)| (k.as_str(), v));
                    kubepkg_gostd::json::fill_fields(entries, &["Namespace", "Name"], |field, v| {
                        match field {
                            0 => {
                                set_string(&mut s.namespace, v, "k8sYamlStruct.Metadata.Namespace")
                            }
                            _ => set_string(&mut s.name, v, "k8sYamlStruct.Metadata.Name"),
                        }
                    })
                }
                other => Err(format!(
                    "json: cannot unmarshal {} into Go struct field k8sYamlStruct.Metadata of type rules.k8sYamlMetadata",
                    json_kind(other)
                )),
            },
        }
    })?;
    Ok(Some(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_split_and_stubbed() {
        let docs = documents(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# empty\n---\nkind: 5\n",
        );
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[0].as_ref().unwrap().as_ref().unwrap().name, "a");
        assert_eq!(docs[1], Ok(None));
        assert!(docs[2].as_ref().unwrap_err().contains("k8sYamlStruct.Kind"));
    }

    #[test]
    fn a_brace_opens_json() {
        let docs = documents("{ {- x -}}");
        assert_eq!(
            docs[0].as_ref().unwrap_err(),
            "json: offset 3: invalid character '{' looking for beginning of object key string"
        );
    }
}
