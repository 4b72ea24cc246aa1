//! Values per component, with provenance (SPEC §2, §5 values, §6 values provenance).
//!
//! Precedence, lowest first: chart defaults < `components[].values` in kubepkg.yaml < user
//! values (`-f` files in order, then `--set`, then `--set-string`, as Helm orders them). A user
//! values file has one top-level key per component; a `--set` path starts with the component
//! name (`--set operator.replicas=2`). Layers merge as Helm merges them: maps merge key by key,
//! anything else replaces, and `null` deletes a key. Every effective leaf remembers the layer it
//! came from, which `kubepkg values --explain` prints.
//!
//! Numbers read from YAML are 64-bit floats, as Helm reads values files (YAML → JSON →
//! `float64`); integers from `--set` are 64-bit integers, as Helm's strvals types them. The
//! `kubepkg.*` upgrade context (`fromVersion`, `toVersion`, `previous`) is the highest layer and
//! is given to hooks and to components with `upgradeContext: true`.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Number, Value};

use crate::manifest::Package;
use crate::strvals;

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "from", rename_all = "camelCase")]
pub enum ValueSource {
    /// The chart's `values.yaml`.
    ChartDefault,
    /// `components[].values` in kubepkg.yaml.
    PackageDefault,
    /// A `-f` values file (as named on the command line).
    File(String),
    /// A `--set` line.
    Set(String),
    /// A `--set-string` line.
    SetString(String),
    /// The `kubepkg.*` upgrade context.
    UpgradeContext,
}

impl fmt::Display for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueSource::ChartDefault => f.write_str("chart default"),
            ValueSource::PackageDefault => f.write_str("package default (kubepkg.yaml)"),
            ValueSource::File(p) => write!(f, "file {p}"),
            ValueSource::Set(s) => write!(f, "--set {s}"),
            ValueSource::SetString(s) => write!(f, "--set-string {s}"),
            ValueSource::UpgradeContext => f.write_str("kubepkg upgrade context"),
        }
    }
}

/// A user values problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValuesError {
    /// A values file is not valid YAML or not a mapping.
    #[error("values file {file}: {message}")]
    File { file: String, message: String },
    /// A `--set` line cannot be parsed.
    #[error("{flag} {line:?}: {message}")]
    Set {
        flag: &'static str,
        line: String,
        message: String,
    },
    /// A top-level key names no component.
    #[error(
        "{source_name} sets values for {key:?}, which is not a component of package {package}; the top-level key must be one of: {known}"
    )]
    UnknownComponent {
        source_name: String,
        key: String,
        package: String,
        known: String,
    },
    /// A component's values are not a mapping.
    #[error("{source_name}: values for component {component:?} must be a mapping")]
    NotAMap {
        source_name: String,
        component: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
struct Layer {
    source: ValueSource,
    /// Top-level key (component name) → that component's values.
    per_component: BTreeMap<String, Value>,
}

/// The values a user gave for a package apply (`-f`, `--set`, `--set-string`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserValues {
    files: Vec<Layer>,
    sets: Vec<Layer>,
    set_strings: Vec<Layer>,
}

impl UserValues {
    /// No user values.
    pub fn new() -> UserValues {
        UserValues::default()
    }

    /// Adds a `-f` file's content (`name` is how the user named it).
    pub fn add_file(&mut self, name: &str, text: &str) -> Result<(), ValuesError> {
        let fail = |message: String| ValuesError::File {
            file: name.to_string(),
            message,
        };
        // Read exactly as `helm -f` reads a values file (Helm 4's loader over go-yaml v2 rules).
        let doc = kubepkg_yaml::load_values(text).map_err(|e| fail(e.to_string()))?;
        let map = match crate::chart_adapter::from_chart_value(&doc) {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                return Err(fail(format!(
                    "the file must be a mapping with one key per component, not {}",
                    kind_of(&other)
                )));
            }
        };
        self.files.push(Layer {
            source: ValueSource::File(name.to_string()),
            per_component: map.into_iter().collect(),
        });
        Ok(())
    }

    /// Adds a `--set` line.
    pub fn add_set(&mut self, line: &str) -> Result<(), ValuesError> {
        let layer = parse_set(line, false)?;
        self.sets.push(layer);
        Ok(())
    }

    /// Adds a `--set-string` line.
    pub fn add_set_string(&mut self, line: &str) -> Result<(), ValuesError> {
        let layer = parse_set(line, true)?;
        self.set_strings.push(layer);
        Ok(())
    }

    fn layers(&self) -> impl Iterator<Item = &Layer> {
        self.files
            .iter()
            .chain(self.sets.iter())
            .chain(self.set_strings.iter())
    }

    /// Checks that every top-level key names a component of `package` and holds a mapping.
    pub fn check(&self, package: &Package) -> Result<(), ValuesError> {
        for layer in self.layers() {
            for (key, v) in &layer.per_component {
                if package.component(key).is_none() {
                    return Err(ValuesError::UnknownComponent {
                        source_name: layer.source.to_string(),
                        key: key.clone(),
                        package: package.meta.name.clone(),
                        known: package
                            .components
                            .iter()
                            .map(|c| c.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    });
                }
                if !matches!(v, Value::Object(_) | Value::Null) {
                    return Err(ValuesError::NotAMap {
                        source_name: layer.source.to_string(),
                        component: key.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The user-supplied values of one component, merged as Helm merges `-f`/`--set` (nulls kept).
    pub fn given(&self, component: &str) -> Map<String, Value> {
        let mut out = Map::new();
        for layer in self.layers() {
            if let Some(Value::Object(m)) = layer.per_component.get(component) {
                out = merge_maps(out, m);
            }
        }
        out
    }

    /// Every component's user-supplied values (components without any are omitted).
    pub fn given_all(&self) -> BTreeMap<String, Map<String, Value>> {
        let mut names: Vec<&String> = self.layers().flat_map(|l| l.per_component.keys()).collect();
        names.sort();
        names.dedup();
        names
            .into_iter()
            .map(|n| (n.clone(), self.given(n)))
            .filter(|(_, m)| !m.is_empty())
            .collect()
    }

    /// Rebuilds user values from a recorded revision (`given_all`), as one layer.
    pub fn from_recorded(
        given: &BTreeMap<String, Map<String, Value>>,
        source: ValueSource,
    ) -> UserValues {
        UserValues {
            files: vec![Layer {
                source,
                per_component: given
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::Object(v.clone())))
                    .collect(),
            }],
            sets: Vec::new(),
            set_strings: Vec::new(),
        }
    }
}

fn parse_set(line: &str, strings: bool) -> Result<Layer, ValuesError> {
    let mut m = Map::new();
    strvals::parse_into(line, &mut m, strings).map_err(|e| ValuesError::Set {
        flag: if strings { "--set-string" } else { "--set" },
        line: line.to_string(),
        message: e.0,
    })?;
    Ok(Layer {
        source: if strings {
            ValueSource::SetString(line.to_string())
        } else {
            ValueSource::Set(line.to_string())
        },
        per_component: m.into_iter().collect(),
    })
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Turns every number into a `float64`, as values read from YAML are in Helm.
pub fn from_yaml_numbers(m: Map<String, Value>) -> Map<String, Value> {
    m.into_iter().map(|(k, v)| (k, float_numbers(v))).collect()
}

fn float_numbers(v: Value) -> Value {
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        Value::Array(a) => Value::Array(a.into_iter().map(float_numbers).collect()),
        Value::Object(m) => Value::Object(from_yaml_numbers(m)),
        other => other,
    }
}

/// Helm's `mergeMaps` (cli/values): maps merge recursively, anything else in `b` replaces.
pub fn merge_maps(a: Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    let mut out = a;
    for (k, v) in b {
        if let Value::Object(bm) = v
            && let Some(Value::Object(am)) = out.get(k)
        {
            let merged = merge_maps(am.clone(), bm);
            out.insert(k.clone(), Value::Object(merged));
            continue;
        }
        out.insert(k.clone(), v.clone());
    }
    out
}

/// The `kubepkg.*` values: `fromVersion` (empty on first install), `toVersion`, and `previous`
/// (this component's effective values in the deployed revision, `{}` if none; its own `kubepkg`
/// key is dropped so that contexts do not nest revision after revision).
pub fn upgrade_context(
    from_version: Option<&semver::Version>,
    to_version: &semver::Version,
    previous: Option<&Map<String, Value>>,
) -> Map<String, Value> {
    let mut prev = previous.cloned().unwrap_or_default();
    prev.remove("kubepkg");
    let mut ctx = Map::new();
    ctx.insert(
        "fromVersion".into(),
        Value::String(from_version.map(|v| v.to_string()).unwrap_or_default()),
    );
    ctx.insert("toVersion".into(), Value::String(to_version.to_string()));
    ctx.insert("previous".into(), Value::Object(prev));
    let mut top = Map::new();
    top.insert("kubepkg".into(), Value::Object(ctx));
    top
}

/// The values kubepkg gives the chart layer for a component (Helm's "user-supplied values" of
/// the release): package defaults, then user values, then the upgrade context if any. The chart
/// layer coalesces these over the chart's own defaults.
pub fn supplied(
    package: &Package,
    component: &str,
    user: &UserValues,
    context: Option<&Map<String, Value>>,
) -> Map<String, Value> {
    let defaults = package
        .component(component)
        .map(|c| c.values.clone())
        .unwrap_or_default();
    let mut out = merge_maps(defaults, &user.given(component));
    if let Some(ctx) = context {
        out = merge_maps(out, ctx);
    }
    out
}

/// One effective leaf value and where it came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Explained {
    /// Path inside the component's values, dotted, with `\.` for dots inside keys (as `--set`
    /// would address it).
    pub path: String,
    pub value: Value,
    pub source: ValueSource,
}

/// A component's effective values and their provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct Effective {
    pub values: Map<String, Value>,
    /// Leaves (scalars, lists, empty maps) in key order.
    pub explain: Vec<Explained>,
}

#[derive(Debug, Clone)]
enum Node {
    Map(BTreeMap<String, Node>, ValueSource),
    Leaf(Value, ValueSource),
}

fn overlay(dest: &mut BTreeMap<String, Node>, over: &Map<String, Value>, source: &ValueSource) {
    for (k, v) in over {
        match v {
            Value::Null => {
                dest.remove(k);
            }
            Value::Object(m) => {
                let entry = dest
                    .entry(k.clone())
                    .or_insert_with(|| Node::Map(BTreeMap::new(), source.clone()));
                if let Node::Leaf(..) = entry {
                    *entry = Node::Map(BTreeMap::new(), source.clone());
                }
                if let Node::Map(children, _) = entry {
                    overlay(children, m, source);
                }
            }
            other => {
                dest.insert(k.clone(), Node::Leaf(other.clone(), source.clone()));
            }
        }
    }
}

fn collect(
    tree: &BTreeMap<String, Node>,
    prefix: &str,
    values: &mut Map<String, Value>,
    out: &mut Vec<Explained>,
) {
    for (k, node) in tree {
        let escaped = k.replace('.', "\\.");
        let path = if prefix.is_empty() {
            escaped
        } else {
            format!("{prefix}.{escaped}")
        };
        match node {
            Node::Leaf(v, s) => {
                values.insert(k.clone(), v.clone());
                out.push(Explained {
                    path,
                    value: v.clone(),
                    source: s.clone(),
                });
            }
            Node::Map(children, s) => {
                let mut inner = Map::new();
                if children.is_empty() {
                    out.push(Explained {
                        path: path.clone(),
                        value: Value::Object(Map::new()),
                        source: s.clone(),
                    });
                }
                collect(children, &path, &mut inner, out);
                values.insert(k.clone(), Value::Object(inner));
            }
        }
    }
}

/// Computes a component's effective values over its chart defaults, with provenance.
///
/// This is the package layer's own, clearly separated coalescing of plain maps; the chart layer
/// (`kubepkg-chart`) owns Helm's full coalescing (globals, subcharts, schema) used to render.
pub fn effective(
    chart_defaults: &Map<String, Value>,
    package: &Package,
    component: &str,
    user: &UserValues,
    context: Option<&Map<String, Value>>,
) -> Effective {
    let mut tree = BTreeMap::new();
    overlay(&mut tree, chart_defaults, &ValueSource::ChartDefault);
    if let Some(c) = package.component(component) {
        overlay(&mut tree, &c.values, &ValueSource::PackageDefault);
    }
    for layer in user.layers() {
        if let Some(Value::Object(m)) = layer.per_component.get(component) {
            overlay(&mut tree, m, &layer.source);
        }
    }
    if let Some(ctx) = context {
        overlay(&mut tree, ctx, &ValueSource::UpgradeContext);
    }
    let mut values = Map::new();
    let mut explain = Vec::new();
    collect(&tree, "", &mut values, &mut explain);
    Effective { values, explain }
}

/// Explains a component's values as recorded in the cluster, for `kubepkg values --revision N
/// --explain`: `chart_defaults` from the release's chart, `supplied` the release's user-supplied
/// values (package defaults, user values and `kubepkg.*`), `given` the user values the package
/// revision recorded for the component. What `supplied` holds beyond `given` came from the
/// package defaults, except the `kubepkg` key (the upgrade context).
pub fn effective_recorded(
    chart_defaults: &Map<String, Value>,
    supplied: &Map<String, Value>,
    given: &Map<String, Value>,
    revision: u64,
) -> Effective {
    let mut package_layer = supplied.clone();
    let context = package_layer.remove("kubepkg");
    let mut tree = BTreeMap::new();
    overlay(&mut tree, chart_defaults, &ValueSource::ChartDefault);
    overlay(&mut tree, &package_layer, &ValueSource::PackageDefault);
    overlay(
        &mut tree,
        given,
        &ValueSource::File(format!("values given in revision {revision}")),
    );
    if let Some(ctx) = context {
        let mut m = Map::new();
        m.insert("kubepkg".into(), ctx);
        overlay(&mut tree, &m, &ValueSource::UpgradeContext);
    }
    let mut values = Map::new();
    let mut explain = Vec::new();
    collect(&tree, "", &mut values, &mut explain);
    Effective { values, explain }
}

/// A value printed compactly, numbers as Go prints a `float64`/`int64` (`2`, `1.5`, `1e+21`).
pub fn display_value(v: &Value) -> String {
    match v {
        Value::Number(n) => display_number(n),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(display_value).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(m) => {
            let inner: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}: {}", display_value(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        other => other.to_string(),
    }
}

fn display_number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or_default();
    let a = f.abs();
    if a == 0.0 || (1e-6..1e21).contains(&a) {
        return format!("{f}");
    }
    // Go's 'e' format: mantissa digits as shortest, exponent with sign and at least 2 digits.
    let s = format!("{f:e}");
    match s.split_once('e') {
        Some((mant, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mant}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// Values as `helm get values` prints them (sigs.k8s.io/yaml: JSON with sorted keys, then
/// go-yaml v2's emitter).
pub fn values_yaml(values: &Map<String, Value>) -> String {
    let v = crate::chart_adapter::to_chart_value(&Value::Object(values.clone()));
    kubepkg_yaml::to_yaml(&v).unwrap_or_else(|e| format!("# cannot print values: {e}\n"))
}

/// `kubepkg values --explain` text for one component: `path: value  # source`.
pub fn render_explain(component: &str, effective: &Effective) -> String {
    let mut out = format!("# {component}\n");
    for e in &effective.explain {
        out.push_str(&format!(
            "{}: {}  # {}\n",
            e.path,
            display_value(&e.value),
            e.source
        ));
    }
    out
}

#[cfg(test)]
mod tests;
