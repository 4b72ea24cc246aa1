//! `Chart.yaml` (and `requirements.yaml`, `Chart.lock`) as Helm reads and validates them.
//!
//! Helm decodes these files with `sigs.k8s.io/yaml` into Go structs: unknown fields are ignored,
//! field names match case-insensitively, a number or boolean given where a string is expected
//! becomes that scalar's text (`appVersion: 1.10` is `"1.1"`), and any other type mismatch is a
//! decoding error. [`Metadata::validate`] then applies `chart.Metadata.Validate`: required
//! `apiVersion`, `name` and a SemVer `version`, a known `type`, non-null maintainers and
//! dependencies, valid aliases and unique dependency names.
//!
//! These types are kubepkg's one model of `Chart.yaml`: the loaded chart's, the release
//! record's (`kubepkg_release::record` stores them) and the OCI config blob's. Their serde form
//! is Helm's `json.Marshal(chart.Metadata)`: Go's field names and order, `omitempty` fields left
//! out when empty, nil lists read as empty, fields a newer Helm writes kept in `extra`;
//! [`Metadata::to_json`] writes it as Go does.

use crate::semver::Version;
use kubepkg_value::{Value, map_read};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// Fields of a JSON form this model does not know (written by a newer Helm), kept verbatim.
pub type UnknownFields = serde_json::Map<String, serde_json::Value>;

/// The JSON field names of Helm's `chart.Metadata` (Chart.yaml), in its declaration order: what
/// Helm's strict readers accept (matched case-insensitively, as Go's `encoding/json` does).
pub const METADATA_FIELDS: &[&str] = &[
    "name",
    "home",
    "sources",
    "version",
    "description",
    "keywords",
    "maintainers",
    "icon",
    "apiVersion",
    "condition",
    "tags",
    "appVersion",
    "deprecated",
    "annotations",
    "kubeVersion",
    "dependencies",
    "type",
];

/// `maintainers[]` of `Chart.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Maintainer {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub email: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
}

/// One entry of `dependencies` (Chart.yaml v2, `requirements.yaml` v1, the lock files).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dependency {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(default)]
    pub repository: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub condition: String,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub enabled: bool,
    /// `import-values`: strings or `{child, parent}` maps, as written.
    #[serde(
        default,
        rename = "import-values",
        skip_serializing_if = "Vec::is_empty",
        with = "crate::json_values::go_values"
    )]
    pub import_values: Vec<Value>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub alias: String,
    #[serde(flatten)]
    pub extra: UnknownFields,
}

/// `Chart.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub home: String,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub sources: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub keywords: Vec<String>,
    /// `None` entries are `null` list items (a validation error).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub maintainers: Vec<Option<Maintainer>>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub icon: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub condition: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tags: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub app_version: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub deprecated: bool,
    #[serde(default, skip_serializing_if = "is_none_or_empty")]
    pub annotations: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kube_version: String,
    /// `None` entries are `null` list items (a validation error).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub dependencies: Vec<Option<Dependency>>,
    /// Whether `dependencies` was given as a list (not part of the JSON form).
    #[serde(skip)]
    pub dependencies_set: bool,
    #[serde(default, rename = "type", skip_serializing_if = "String::is_empty")]
    pub chart_type: String,
    #[serde(flatten)]
    pub extra: UnknownFields,
}

fn is_false(v: &bool) -> bool {
    !*v
}

fn is_none_or_empty(m: &Option<BTreeMap<String, String>>) -> bool {
    m.as_ref().is_none_or(BTreeMap::is_empty)
}

/// Go reads `null` into a slice as a nil (empty) one.
fn null_as_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(
    d: D,
) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// `Chart.lock` / `requirements.lock` (its serde form: Helm's `chart.Lock`, every field
/// written).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Lock {
    pub generated: String,
    pub digest: String,
    pub dependencies: Vec<Option<Dependency>>,
}

/// A type mismatch while decoding, worded as Go's `encoding/json`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go struct field {field} of type {want}"
)]
pub struct DecodeError {
    pub got: String,
    pub field: String,
    pub want: String,
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Nil => "null",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Int64(_) | Value::Uint(_) | Value::Uint8(_) | Value::Float(_) => {
            "number"
        }
        Value::String(_) | Value::NonUtf8String(_) | Value::Bytes(_) | Value::Time(_) => "string",
        Value::List(..) => "array",
        Value::Map(_) | Value::Object(_) => "object",
    }
}

struct Fields {
    entries: Vec<(String, Value)>,
    owner: &'static str,
}

impl Fields {
    fn of(v: &Value, owner: &'static str, path: &str) -> Result<Option<Fields>, DecodeError> {
        match v {
            Value::Nil => Ok(None),
            Value::Map(m) => Ok(Some(Fields {
                entries: map_read(m)
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                owner,
            })),
            other => Err(DecodeError {
                got: json_kind(other).into(),
                field: path.trim_end_matches('.').to_string(),
                want: format!("v2.{owner}"),
            }),
        }
    }

    /// encoding/json: the last key naming the field ([`kubepkg_gostd::json::field`]).
    fn get(&self, name: &str) -> Option<&Value> {
        kubepkg_gostd::json::field(self.entries.iter().map(|(k, v)| (k.as_str(), v)), name)
    }

    /// What encoding/json leaves in a string or bool field: the last non-null value of the
    /// keys naming it (a null leaves such a field as it was); `Some(Nil)` when every such key
    /// is null, `None` when none names it.
    fn get_scalar(&self, name: &str) -> Option<&Value> {
        let mut got = None;
        kubepkg_gostd::json::fill_fields(
            self.entries.iter().map(|(k, v)| (k.as_str(), v)),
            &[name],
            |_, v| {
                if !matches!(v, Value::Nil) || got.is_none() {
                    got = Some(v);
                }
                Ok::<(), std::convert::Infallible>(())
            },
        )
        .unwrap_or_else(|never| match never {});
        got
    }

    /// What encoding/json leaves in a `map[string]string` field holding `map`: each object
    /// naming it adds its entries to the same map in key order (a later entry over an earlier
    /// one), a null empties it (`None`).
    fn string_map(
        &self,
        prefix: &str,
        name: &str,
        mut map: Option<BTreeMap<String, String>>,
    ) -> Result<Option<BTreeMap<String, String>>, DecodeError> {
        kubepkg_gostd::json::fill_fields(
            self.entries.iter().map(|(k, v)| (k.as_str(), v)),
            &[name],
            |_, v| match v {
                Value::Nil => {
                    map = None;
                    Ok(())
                }
                Value::Map(m) => {
                    let out = map.get_or_insert_with(BTreeMap::new);
                    for (k, v) in map_read(m).iter() {
                        out.insert(k.clone(), scalar_string(v, &self.path(prefix, name))?);
                    }
                    Ok(())
                }
                other => Err(DecodeError {
                    got: json_kind(other).into(),
                    field: self.path(prefix, name),
                    want: "map[string]string".into(),
                }),
            },
        )?;
        Ok(map)
    }

    fn path(&self, prefix: &str, name: &str) -> String {
        if prefix.is_empty() {
            format!("{}.{name}", self.owner)
        } else {
            format!("{prefix}{name}")
        }
    }

    fn string(&self, prefix: &str, name: &str) -> Result<String, DecodeError> {
        match self.get_scalar(name) {
            None => Ok(String::new()),
            Some(v) => scalar_string(v, &self.path(prefix, name)),
        }
    }

    fn strings(&self, prefix: &str, name: &str) -> Result<Vec<String>, DecodeError> {
        match self.get(name) {
            None | Some(Value::Nil) => Ok(Vec::new()),
            Some(Value::List(items, _)) => items
                .iter()
                .map(|i| scalar_string(i, &self.path(prefix, name)))
                .collect(),
            Some(other) => Err(DecodeError {
                got: json_kind(other).into(),
                field: self.path(prefix, name),
                want: "[]string".into(),
            }),
        }
    }

    fn boolean(&self, prefix: &str, name: &str) -> Result<bool, DecodeError> {
        match self.get_scalar(name) {
            None | Some(Value::Nil) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(DecodeError {
                got: json_kind(other).into(),
                field: self.path(prefix, name),
                want: "bool".into(),
            }),
        }
    }

    fn list(&self, prefix: &str, name: &str, elem: &str) -> Result<Vec<Value>, DecodeError> {
        match self.get(name) {
            None | Some(Value::Nil) => Ok(Vec::new()),
            Some(Value::List(items, _)) => Ok(items.as_ref().clone()),
            Some(other) => Err(DecodeError {
                got: json_kind(other).into(),
                field: self.path(prefix, name),
                want: elem.into(),
            }),
        }
    }
}

/// A scalar where Go expects a string: numbers and booleans become their YAML text, as
/// `sigs.k8s.io/yaml` converts them (floats with 32-bit shortest formatting).
fn scalar_string(v: &Value, field: &str) -> Result<String, DecodeError> {
    match v {
        Value::Nil => Ok(String::new()),
        Value::String(s) => Ok(s.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Int(i) | Value::Int64(i) => Ok(i.to_string()),
        Value::Uint(u) => Ok(u.to_string()),
        Value::Float(f) => {
            if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
                Ok(format!("{}", *f as i64))
            } else {
                Ok(kubepkg_gostd::strconv::format_float(*f, 'g', -1, 32))
            }
        }
        other => Err(DecodeError {
            got: json_kind(other).into(),
            field: field.to_string(),
            want: "string".into(),
        }),
    }
}

fn decode_dependency(v: &Value, path: &str) -> Result<Option<Dependency>, DecodeError> {
    let Some(f) = Fields::of(v, "Dependency", path)? else {
        return Ok(None);
    };
    let p = path;
    Ok(Some(Dependency {
        name: f.string(p, "name")?,
        version: f.string(p, "version")?,
        repository: f.string(p, "repository")?,
        condition: f.string(p, "condition")?,
        tags: f.strings(p, "tags")?,
        enabled: f.boolean(p, "enabled")?,
        import_values: f.list(p, "import-values", "[]interface {}")?,
        alias: f.string(p, "alias")?,
        extra: UnknownFields::new(),
    }))
}

fn decode_dependencies(f: &Fields, owner: &str) -> Result<Vec<Option<Dependency>>, DecodeError> {
    let path = format!("{owner}.dependencies.");
    f.list("", "dependencies", "[]*v2.Dependency")?
        .iter()
        .map(|d| decode_dependency(d, &path))
        .collect()
}

impl Metadata {
    /// Decode a `Chart.yaml` document (already parsed to a value).
    pub fn decode(v: &Value) -> Result<Metadata, DecodeError> {
        let mut md = Metadata::default();
        md.merge(v)?;
        Ok(md)
    }

    /// Decode a further document over this one (`requirements.yaml` is decoded into the same
    /// struct by Helm, so only the fields it names change).
    pub fn merge(&mut self, v: &Value) -> Result<(), DecodeError> {
        let Some(f) = Fields::of(v, "Metadata", "")? else {
            return Ok(());
        };
        let p = "";
        // A field no key sets, or only nulls do, keeps its value (a later document's).
        let sets = |key: &str| f.get_scalar(key).is_some_and(|v| !matches!(v, Value::Nil));
        macro_rules! set_str {
            ($field:ident, $key:literal) => {
                if sets($key) {
                    self.$field = f.string(p, $key)?;
                }
            };
        }
        set_str!(name, "name");
        set_str!(home, "home");
        set_str!(version, "version");
        set_str!(description, "description");
        set_str!(icon, "icon");
        set_str!(api_version, "apiVersion");
        set_str!(condition, "condition");
        set_str!(tags, "tags");
        set_str!(app_version, "appVersion");
        set_str!(kube_version, "kubeVersion");
        set_str!(chart_type, "type");
        if f.get("sources").is_some() {
            self.sources = f.strings(p, "sources")?;
        }
        if f.get("keywords").is_some() {
            self.keywords = f.strings(p, "keywords")?;
        }
        if sets("deprecated") {
            self.deprecated = f.boolean(p, "deprecated")?;
        }
        if f.get("maintainers").is_some() {
            self.maintainers = f
                .list(p, "maintainers", "[]*v2.Maintainer")?
                .iter()
                .map(|m| {
                    let Some(mf) = Fields::of(m, "Maintainer", "Metadata.maintainers.")? else {
                        return Ok(None);
                    };
                    let mp = "Metadata.maintainers.";
                    Ok(Some(Maintainer {
                        name: mf.string(mp, "name")?,
                        email: mf.string(mp, "email")?,
                        url: mf.string(mp, "url")?,
                    }))
                })
                .collect::<Result<_, DecodeError>>()?;
        }
        self.annotations = f.string_map(p, "annotations", self.annotations.take())?;
        if let Some(d) = f.get("dependencies") {
            self.dependencies_set = matches!(d, Value::List(..));
            self.dependencies = decode_dependencies(&f, "Metadata")?;
        }
        Ok(())
    }

    /// `Metadata.Validate`, with its side effect of sanitising strings.
    pub fn validate(&mut self) -> Result<(), String> {
        for s in [
            &mut self.name,
            &mut self.description,
            &mut self.home,
            &mut self.icon,
            &mut self.condition,
            &mut self.tags,
            &mut self.app_version,
            &mut self.kube_version,
        ] {
            *s = sanitize(s);
        }
        for s in self.sources.iter_mut().chain(self.keywords.iter_mut()) {
            *s = sanitize(s);
        }
        if self.api_version.is_empty() {
            return Err("chart.metadata.apiVersion is required".into());
        }
        if self.name.is_empty() {
            return Err("chart.metadata.name is required".into());
        }
        if self.name == "." || self.name == ".." {
            return Err(format!(
                "chart.metadata.name {:?} is not allowed",
                self.name
            ));
        }
        if self.name.contains('/') || self.name.contains(std::path::MAIN_SEPARATOR) {
            return Err(format!("chart.metadata.name {:?} is invalid", self.name));
        }
        if self.version.is_empty() {
            return Err("chart.metadata.version is required".into());
        }
        if Version::parse(&self.version).is_err() {
            return Err(format!(
                "chart.metadata.version {:?} is invalid",
                self.version
            ));
        }
        if !matches!(self.chart_type.as_str(), "" | "application" | "library") {
            return Err("chart.metadata.type must be application or library".into());
        }
        for m in &mut self.maintainers {
            let Some(m) = m else {
                return Err("maintainers must not contain empty or null nodes".into());
            };
            m.name = sanitize(&m.name);
            m.email = sanitize(&m.email);
            m.url = sanitize(&m.url);
        }
        let mut seen = std::collections::HashSet::new();
        for d in &mut self.dependencies {
            let Some(d) = d else {
                return Err("dependencies must not contain empty or null nodes".into());
            };
            d.name = sanitize(&d.name);
            d.version = sanitize(&d.version);
            d.repository = sanitize(&d.repository);
            d.condition = sanitize(&d.condition);
            for t in &mut d.tags {
                *t = sanitize(t);
            }
            if !d.alias.is_empty()
                && !d
                    .alias
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(format!(
                    "dependency {:?} has disallowed characters in the alias",
                    d.name
                ));
            }
            let key = if d.alias.is_empty() {
                d.name.clone()
            } else {
                d.alias.clone()
            };
            if !seen.insert(key.clone()) {
                return Err(format!(
                    "more than one dependency with name or alias {key:?}"
                ));
            }
        }
        Ok(())
    }

    /// `json.Marshal(chart.Metadata)`: the JSON text Go writes (the OCI config blob of a
    /// chart, and a release record's `chart.metadata`).
    pub fn to_json(&self) -> Vec<u8> {
        kubepkg_gostd::json::to_vec(self).expect("chart metadata is always JSON")
    }

    /// The dependencies that are not null.
    pub fn deps(&self) -> impl Iterator<Item = &Dependency> {
        self.dependencies.iter().flatten()
    }

    /// Helm 4's `.Chart` object: the metadata struct as a map keyed by Go field names.
    pub fn to_value(&self, is_root: bool) -> Value {
        let strs = |v: &[String]| Value::list(v.iter().map(Value::str).collect());
        let mut m = BTreeMap::new();
        m.insert("Name".into(), Value::str(&self.name));
        m.insert("Home".into(), Value::str(&self.home));
        m.insert("Sources".into(), strs(&self.sources));
        m.insert("Version".into(), Value::str(&self.version));
        m.insert("Description".into(), Value::str(&self.description));
        m.insert("Keywords".into(), strs(&self.keywords));
        m.insert(
            "Maintainers".into(),
            Value::list(
                self.maintainers
                    .iter()
                    .map(|mt| match mt {
                        None => Value::Nil,
                        Some(mt) => {
                            let mut x = BTreeMap::new();
                            x.insert("Name".into(), Value::str(&mt.name));
                            x.insert("Email".into(), Value::str(&mt.email));
                            x.insert("URL".into(), Value::str(&mt.url));
                            Value::map(x)
                        }
                    })
                    .collect(),
            ),
        );
        m.insert("Icon".into(), Value::str(&self.icon));
        m.insert("APIVersion".into(), Value::str(&self.api_version));
        m.insert("Condition".into(), Value::str(&self.condition));
        m.insert("Tags".into(), Value::str(&self.tags));
        m.insert("AppVersion".into(), Value::str(&self.app_version));
        m.insert("Deprecated".into(), Value::Bool(self.deprecated));
        m.insert(
            "Annotations".into(),
            match &self.annotations {
                None => Value::Nil,
                // `structToMap` keeps the field's Go type: `map[string]string`.
                Some(a) => Value::typed_map(
                    kubepkg_value::MapType::String,
                    a.iter().map(|(k, v)| (k.clone(), Value::str(v))).collect(),
                ),
            },
        );
        m.insert("KubeVersion".into(), Value::str(&self.kube_version));
        m.insert(
            "Dependencies".into(),
            Value::list(
                self.dependencies
                    .iter()
                    .map(|d| match d {
                        None => Value::Nil,
                        Some(d) => d.to_value(),
                    })
                    .collect(),
            ),
        );
        m.insert("Type".into(), Value::str(&self.chart_type));
        m.insert("IsRoot".into(), Value::Bool(is_root));
        Value::map(m)
    }
}

impl Dependency {
    fn to_value(&self) -> Value {
        let mut x = BTreeMap::new();
        x.insert("Name".into(), Value::str(&self.name));
        x.insert("Version".into(), Value::str(&self.version));
        x.insert("Repository".into(), Value::str(&self.repository));
        x.insert("Condition".into(), Value::str(&self.condition));
        x.insert(
            "Tags".into(),
            Value::list(self.tags.iter().map(Value::str).collect()),
        );
        x.insert("Enabled".into(), Value::Bool(self.enabled));
        x.insert(
            "ImportValues".into(),
            Value::list(self.import_values.clone()),
        );
        x.insert("Alias".into(), Value::str(&self.alias));
        Value::map(x)
    }
}

impl Lock {
    /// Decode `Chart.lock` / `requirements.lock`.
    pub fn decode(v: &Value) -> Result<Lock, DecodeError> {
        let Some(f) = Fields::of(v, "Lock", "")? else {
            return Ok(Lock::default());
        };
        Ok(Lock {
            generated: f.string("", "generated")?,
            digest: f.string("", "digest")?,
            dependencies: decode_dependencies(&f, "Lock")?,
        })
    }
}

/// Helm's `sanitizeString`: whitespace becomes a space, other unprintable runes are dropped.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .filter_map(|c| {
            if c.is_whitespace() {
                Some(' ')
            } else if c.is_control() || matches!(c, '\u{200b}'..='\u{200f}' | '\u{feff}') {
                None
            } else {
                Some(c)
            }
        })
        .collect()
}

/// go-yaml gives `7.2445e6` the type float64 and `7244500` the type int; `sigs.k8s.io/yaml`
/// then writes them into string fields differently (`7.2445e+06` vs `7244500`). Values decoded
/// through JSON lose that distinction, so this re-reads the top-level plain scalars of the
/// source and turns the floats among them into their Go text before decoding.
pub fn restore_float_text(v: &Value, src: &str) -> Value {
    let Value::Map(m) = v else {
        return v.clone();
    };
    let mut out = map_read(m).clone();
    for line in src.lines() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        if key.is_empty() || key.starts_with([' ', '\t', '#', '-']) {
            continue;
        }
        let text = rest.split(" #").next().unwrap_or("").trim();
        if text.is_empty() || text.starts_with(['"', '\'']) {
            continue;
        }
        let (kind, _) = kubepkg_yaml::resolve::resolve_plain(text);
        if kind == kubepkg_yaml::resolve::Kind::Float
            && let Some(Value::Float(f)) = out.get(key.trim())
        {
            let s = kubepkg_gostd::strconv::format_float(*f, 'g', -1, 32);
            out.insert(key.trim().to_string(), Value::str(s));
        }
    }
    Value::map(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(src: &str) -> Result<Metadata, DecodeError> {
        Metadata::decode(&kubepkg_yaml::from_yaml_str(src).unwrap())
    }

    #[test]
    fn numbers_become_strings_like_sigs_yaml() {
        let m = md("apiVersion: v2\nname: x\nversion: 1.0.0\nappVersion: 1.10\n").unwrap();
        assert_eq!(m.app_version, "1.1");
        let m = md("apiVersion: v2\nname: x\nversion: 2\nappVersion: 12\n").unwrap();
        assert_eq!(m.version, "2");
    }

    #[test]
    fn wrong_types_are_decode_errors() {
        let e = md("name: [a]\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field Metadata.name of type string"
        );
        assert!(md("unknownField: 1\nname: a\n").is_ok());
    }

    #[test]
    fn validation_messages_match_helm() {
        let mut m = md("name: x\nversion: 1.0.0\n").unwrap();
        assert_eq!(
            m.validate().unwrap_err(),
            "chart.metadata.apiVersion is required"
        );
        let mut m = md("apiVersion: v2\nname: x\nversion: one\n").unwrap();
        assert_eq!(
            m.validate().unwrap_err(),
            "chart.metadata.version \"one\" is invalid"
        );
        let mut m = md("apiVersion: v2\nname: x\nversion: 1.0.0\ntype: foo\n").unwrap();
        assert_eq!(
            m.validate().unwrap_err(),
            "chart.metadata.type must be application or library"
        );
    }
}
