//! YAML, JSON and TOML exactly as Helm reads and writes them, over [`kubepkg_value::Value`].
//!
//! Helm never parses YAML straight into its values: `sigs.k8s.io/yaml` decodes the text with
//! go-yaml v2 (YAML 1.1 scalars: `yes`/`on` are booleans, `0x1F` and `017` are integers,
//! timestamps stay strings, `<<` merges), converts that tree to JSON and decodes the JSON with
//! Go's `encoding/json`, so every number becomes a `float64` ([`Value::Float`]). Writing goes the
//! same way backwards: `toYaml` is `encoding/json` (sorted keys, Go float text) followed by
//! go-yaml v2's emitter (its quoting rules, 80-column folding, block scalars).
//!
//! Entry points:
//! - reading: [`from_yaml_str`] (`yaml.Unmarshal` into `interface{}`), [`from_yaml_map`]
//!   (`fromYaml`), [`from_yaml_array`] (`fromYamlArray`), [`from_yaml_documents`] (a stream split
//!   as Kubernetes' YAML reader does), [`load_values`] (Helm 4's values file loader, multi-document)
//!   and [`read_values`] (Helm 3's `chartutil.ReadValues`); [`yaml_to_json`]
//!   (`sigs.k8s.io/yaml.YAMLToJSON`, integers kept, for Kubernetes objects);
//! - writing: [`to_yaml`] (`yaml.Marshal`; Helm's `toYaml` trims the final newline) and
//!   [`to_yaml_pretty`] (Helm's `toYamlPretty`: go-yaml v3 with 2-space indent);
//! - [`json`]: `toJson`, `toPrettyJson`, `toRawJson`, `fromJson`, `fromJsonArray`;
//! - [`located`]: a document read as Helm reads it with each node's line and column, and
//!   [`de`]: serde `Deserialize` types read strictly from it (duplicate keys and a second
//!   document refused, errors placed), for files kubepkg checks itself (`kubepkg.yaml`);
//! - [`node`]: documents as node trees (order, styles, comments kept), read and written as
//!   kustomize's kyaml does: Helm 4's post-render round trip;
//! - [`toml`]: `toToml`, `fromToml` (a port of BurntSushi/toml's encoder, lexer and parser: the
//!   same values and error texts).
//!
//! Every behaviour is checked against the real Go libraries: `testdata/yaml-oracle` (Go, test
//! tooling) writes `testdata/yaml-corpus`, and `tests/it/corpus.rs` compares byte for byte.
//!
//! Limits (documented in [`decode`]): alias expansion follows go-yaml v2's ratio rule (a
//! document may not draw more than 99% of its decoded nodes from aliases once it has more than
//! 1000 nodes) and nesting is capped at [`decode::MAX_DEPTH`] (1000) levels, below go-yaml's
//! 10 000 so that deep values can be dropped safely on small thread stacks.

#![forbid(unsafe_code)]

mod block;
pub mod de;
pub mod decode;
pub mod emit;
mod error;
pub mod json;
mod json_string;
pub mod located;
mod mark;
pub mod node;
pub mod resolve;
pub mod split;
pub mod toml;
mod toml_form;
mod toml_lex;
mod toml_parse;

pub use error::{JsonError, TomlError, YamlError};
pub use kubepkg_value::Value;

/// YAML bytes as text, refused as go-yaml's reader refuses bytes that are not UTF-8 (Helm's
/// `yaml: invalid leading UTF-8 octet` and its siblings, see [`decode::utf8_error`]). Every
/// reader of a file (`values.yaml`, `Chart.yaml`, `-f`, `kubepkg.yaml`) goes through it.
pub fn text(bytes: &[u8]) -> Result<&str, YamlError> {
    std::str::from_utf8(bytes).map_err(|_| YamlError::Syntax {
        line: None,
        message: decode::utf8_error(bytes).to_string(),
    })
}

/// [`load_values`] of a file's bytes (Helm 4's `loader.LoadValues`, which reads bytes):
/// invalid UTF-8 is refused as go-yaml refuses it, inside the document error Helm gives.
pub fn load_values_bytes(bytes: &[u8]) -> Result<Value, YamlError> {
    let text = text(bytes).map_err(|e| YamlError::Document {
        document: 1,
        source: Box::new(e),
    })?;
    load_values(text)
}

/// `sigs.k8s.io/yaml.Unmarshal(src, &v)` with `v interface{}`: the first document of `src`
/// decoded as Helm sees it (maps, lists, `float64` numbers, strings, bools, nil). An empty
/// document gives [`Value::Nil`].
pub fn from_yaml_str(src: &str) -> Result<Value, YamlError> {
    decode::unmarshal(src, decode::Target::Any)
}

/// [`from_yaml_str`] for a reader of a few top-level fields (a manifest's head): the whole
/// document is decoded and checked, with the same errors, but of a top-level map only the keys
/// `keep` accepts are built.
pub fn from_yaml_str_keeping(src: &str, keep: &dyn Fn(&str) -> bool) -> Result<Value, YamlError> {
    decode::unmarshal_keeping(src, keep)
}

/// `sigs.k8s.io/yaml.YAMLToJSON`: the first document as JSON text with integers kept as
/// integers (for Kubernetes objects); see [`decode::yaml_to_json`].
pub fn yaml_to_json(src: &str) -> Result<String, YamlError> {
    decode::yaml_to_json(src)
}

/// `sigs.k8s.io/yaml.Unmarshal(src, &m)` with `m map[string]interface{}` — Helm's `fromYaml`.
/// A document that is not a mapping is an error ([`YamlError::Shape`]); an empty or `null`
/// document gives an empty map.
pub fn from_yaml_map(src: &str) -> Result<Value, YamlError> {
    decode::unmarshal(src, decode::Target::Map)
}

/// `sigs.k8s.io/yaml.Unmarshal(src, &a)` with `a []interface{}` — Helm's `fromYamlArray`.
pub fn from_yaml_array(src: &str) -> Result<Value, YamlError> {
    decode::unmarshal(src, decode::Target::List)
}

/// Every document of a multi-document stream, split on `---` lines as Kubernetes'
/// `utilyaml.NewYAMLReader` does, each decoded like [`from_yaml_str`]. Errors name the
/// 1-based document ([`YamlError::Document`]) and the line inside it.
pub fn from_yaml_documents(src: &str) -> Result<Vec<Value>, YamlError> {
    split::split_documents(src)?
        .into_iter()
        .enumerate()
        .map(|(i, doc)| {
            decode::unmarshal(&doc, decode::Target::Any).map_err(|e| YamlError::Document {
                document: i + 1,
                source: Box::new(e),
            })
        })
        .collect()
}

/// Helm 4's `loader.LoadValues`: a values file may hold several documents; each must be a
/// mapping (or empty) and later documents are merged over earlier ones (maps merge
/// recursively, everything else replaces). Always returns a [`Value::Map`] on success.
pub fn load_values(src: &str) -> Result<Value, YamlError> {
    let mut text = src.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let mut merged = std::collections::BTreeMap::new();
    for (i, doc) in split::split_documents(&text)?.into_iter().enumerate() {
        let current =
            decode::unmarshal(&doc, decode::Target::Map).map_err(|e| YamlError::Document {
                document: i + 1,
                source: Box::new(e),
            })?;
        if let Value::Map(m) = current {
            let m = kubepkg_value::map_read(&m).clone();
            merge_maps(&mut merged, m);
        }
    }
    Ok(Value::map(merged))
}

/// Helm 3's `chartutil.ReadValues`: one document, which must be a mapping; empty gives `{}`.
pub fn read_values(src: &str) -> Result<Value, YamlError> {
    decode::unmarshal(src, decode::Target::Map)
}

/// Helm 4's `loader.MergeMaps`: `b` over `a`, recursing where both sides hold maps.
fn merge_maps(
    a: &mut std::collections::BTreeMap<String, Value>,
    b: std::collections::BTreeMap<String, Value>,
) {
    for (k, v) in b {
        if let Value::Map(bm) = &v
            && let Some(Value::Map(am)) = a.get(&k)
        {
            let mut inner = kubepkg_value::map_read(am).clone();
            merge_maps(&mut inner, kubepkg_value::map_read(bm).clone());
            a.insert(k, Value::map(inner));
            continue;
        }
        a.insert(k, v);
    }
}

/// `sigs.k8s.io/yaml.Marshal(v)`: Go's `encoding/json` followed by go-yaml v2's emitter, byte for
/// byte, including the final newline (Helm's `toYaml` trims exactly one trailing `"\n"`).
pub fn to_yaml(v: &Value) -> Result<String, YamlError> {
    emit::marshal(v)
}

/// Helm's `toYamlPretty`: go-yaml v3's encoder with a 2-space indent applied to the value
/// itself (not through JSON), including the final newline.
pub fn to_yaml_pretty(v: &Value) -> Result<String, YamlError> {
    emit::marshal_pretty(v)
}
