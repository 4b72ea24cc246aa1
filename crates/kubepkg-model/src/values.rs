//! Values per component, with provenance (docs/rules.md#values-precedence,
//! docs/rules.md#values-provenance, docs/kubepkg-yaml.md#upgradecontext).
//!
//! Precedence, lowest first: chart defaults < `components[].values` in kubepkg.yaml < user
//! values: `spec.values` of a `Package` object, then Helm's `MergeValues` order — `-f` files in
//! order, `--set-json`, `--set`, `--set-string`, `--set-file` — whatever the order of the flags
//! on the command line. A user values file has one top-level key per component; a `--set` path
//! starts with the component name (`--set operator.replicas=2`). The user sources are replayed
//! over one map with Helm's own `mergeMaps` and strvals parsers (`kubepkg_chart::strvals`), so
//! `--set web.list[1]=x` edits the list a file gave, as in Helm. Over the package and chart
//! defaults, maps merge key by key, anything else replaces, and `null` deletes a key.
//!
//! Provenance: every source records what it set ([`ValueLayer`]); package revisions keep these
//! layers (`valueSources`), so every effective leaf of any recorded revision names the layer it
//! came from, which `kubepkg values --explain` prints. Revisions recorded before the layers
//! were kept still read: their user values are named as a whole. An apply never drops the
//! values the deployed revision was given without saying so (`kubepkg_package::revision_values`).
//!
//! Numbers read from YAML are 64-bit floats, as Helm reads values files (YAML → JSON →
//! `float64`); integers from `--set` are 64-bit integers, as Helm's strvals types them. The
//! `kubepkg.*` upgrade context (`fromVersion`, `toVersion`, `previous`) is the highest layer and
//! is given to hooks and to components with `upgradeContext: true`.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Number, Value};

use crate::manifest::Package;

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "from", rename_all = "camelCase")]
pub enum ValueSource {
    /// The chart's `values.yaml`.
    ChartDefault,
    /// `components[].values` in kubepkg.yaml.
    PackageDefault,
    /// One `spec.valuesFrom` entry of the `Package` object (`Secret ns/name key values.yaml`).
    PackageValuesFrom(String),
    /// `spec.values` of the `Package` object.
    PackageSpec,
    /// A `-f` values file (as named on the command line).
    File(String),
    /// A `--set-json` value.
    SetJson(String),
    /// A `--set` line.
    Set(String),
    /// A `--set-string` line.
    SetString(String),
    /// A `--set-file` line.
    SetFile(String),
    /// A `--values-once` file: for this revision only.
    FileOnce(String),
    /// A `--set-json-once` value: for this revision only.
    SetJsonOnce(String),
    /// A `--set-once` line: for this revision only.
    SetOnce(String),
    /// `spec.valuesOnce` of the `Package` object: for one revision only.
    PackageValuesOnce,
    /// User values of a revision recorded before kubepkg recorded their sources (the number
    /// is the revision's).
    Recorded(u64),
    /// The `kubepkg.*` upgrade context.
    UpgradeContext,
}

impl fmt::Display for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueSource::ChartDefault => f.write_str("chart default"),
            ValueSource::PackageDefault => f.write_str("package default (kubepkg.yaml)"),
            ValueSource::PackageValuesFrom(s) => write!(f, "Package spec.valuesFrom {s}"),
            ValueSource::PackageSpec => f.write_str("Package spec.values"),
            ValueSource::File(p) => write!(f, "file {p}"),
            ValueSource::SetJson(s) => write!(f, "--set-json {s}"),
            ValueSource::Set(s) => write!(f, "--set {s}"),
            ValueSource::SetString(s) => write!(f, "--set-string {s}"),
            ValueSource::SetFile(s) => write!(f, "--set-file {s}"),
            ValueSource::FileOnce(p) => write!(f, "file {p} (--values-once: this revision only)"),
            ValueSource::SetJsonOnce(s) => write!(f, "--set-json-once {s}"),
            ValueSource::SetOnce(s) => write!(f, "--set-once {s}"),
            ValueSource::PackageValuesOnce => {
                f.write_str("Package spec.valuesOnce (this revision only)")
            }
            ValueSource::Recorded(n) => write!(
                f,
                "user values of revision {n} (-f or --set; this revision was recorded without their sources)"
            ),
            ValueSource::UpgradeContext => f.write_str("kubepkg upgrade context"),
        }
    }
}

/// A values file's text (`-f`, a `valuesFrom` key) read exactly as `helm -f` reads one (Helm
/// 4's loader over go-yaml v2 rules): a mapping with one key per component.
fn values_file_map(name: &str, text: &str) -> Result<Map<String, Value>, ValuesError> {
    let fail = |message: String| ValuesError::File {
        file: name.to_string(),
        message,
    };
    let doc = kubepkg_yaml::load_values(text).map_err(|e| fail(e.to_string()))?;
    match crate::chart_adapter::from_chart_value(&doc) {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Map::new()),
        other => Err(fail(format!(
            "the file must be a mapping with one key per component, not {}",
            kind_of(&other)
        ))),
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

/// When a user values source is applied: Helm's `MergeValues` order (Package spec first, as
/// the lowest user layer of docs/rules.md#values-precedence), whatever the order of the flags
/// on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    PackageValuesFrom,
    PackageSpec,
    File,
    SetJson,
    Set,
    SetString,
    SetFile,
    /// Values for this revision only, above every other user source.
    FileOnce,
    SetJsonOnce,
    SetOnce,
}

/// What a user values source contributes, kept so that the sources can be replayed in Helm's
/// order over one map (a later `--set a[1]=x` edits the list an earlier file gave, as in Helm).
#[derive(Debug, Clone, PartialEq)]
enum Input {
    /// A whole map merged with Helm's `mergeMaps`: a `-f` file, `spec.values`, `--set-json '{…}'`.
    Map(Map<String, Value>),
    /// A strvals line: `--set`, `--set-string`, `--set-json key=JSON`.
    Line(String),
    /// A `--set-file key=path` line and the text of each file it names, read when it was added.
    FileLine {
        line: String,
        texts: BTreeMap<String, String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
struct Step {
    rank: Rank,
    source: ValueSource,
    input: Input,
}

/// One user values source and what it set, for provenance: the paths it set, with the values
/// they held right after it was applied (a list it edited is taken whole). Recorded in package
/// revisions (`valueSources`) so that `kubepkg values --revision N --explain` names the real
/// source long after the apply.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ValueLayer {
    pub source: ValueSource,
    /// Top-level key (component name) → the values this source set for it.
    pub values: Map<String, Value>,
}

impl ValueLayer {
    /// The source named without any value it gave: a file by its name, a `--set…` line by
    /// the paths it set (`--set app.token`, never `--set app.token=…`), for notes and logs.
    pub fn named(&self) -> String {
        let flag = match &self.source {
            ValueSource::SetJson(_) => "--set-json",
            ValueSource::Set(_) => "--set",
            ValueSource::SetString(_) => "--set-string",
            ValueSource::SetFile(_) => "--set-file",
            ValueSource::SetJsonOnce(_) => "--set-json-once",
            ValueSource::SetOnce(_) => "--set-once",
            other => return other.to_string(),
        };
        let mut paths = Vec::new();
        leaf_paths(&self.values, "", &mut paths);
        format!("{flag} {}", paths.join(","))
    }

    /// Whether the source gave values for its revision only (`--set-once`, `--set-json-once`,
    /// `--values-once`): never noted as dropped by a later apply.
    pub fn is_once(&self) -> bool {
        matches!(
            self.source,
            ValueSource::FileOnce(_)
                | ValueSource::SetJsonOnce(_)
                | ValueSource::SetOnce(_)
                | ValueSource::PackageValuesOnce
        )
    }
}

/// The dotted paths of every leaf of `m` (a list or a scalar is a leaf), prefixed by `prefix`.
fn leaf_paths(m: &Map<String, Value>, prefix: &str, out: &mut Vec<String>) {
    for (k, v) in m {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Object(inner) if !inner.is_empty() => leaf_paths(inner, &path, out),
            _ => out.push(path),
        }
    }
}

/// The values a user gave for a package apply (`spec.values`, `-f`, `--set-json`, `--set`,
/// `--set-string`, `--set-file`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserValues {
    steps: Vec<Step>,
}

impl UserValues {
    /// No user values.
    pub fn new() -> UserValues {
        UserValues::default()
    }

    /// Whether no source was given at all.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Adds a `-f` file's content (`name` is how the user named it).
    pub fn add_file(&mut self, name: &str, text: &str) -> Result<(), ValuesError> {
        self.add_values_file(Rank::File, ValueSource::File(name.to_string()), name, text)
    }

    /// Adds one `spec.valuesFrom` entry of a `Package` object: `text` is the YAML held by the
    /// Secret or ConfigMap key, `name` says which (`Secret shop/db key values.yaml`). Entries
    /// apply in their order, below `spec.values` (as Flux's `valuesFrom` below `values`).
    pub fn add_package_values_from(&mut self, name: &str, text: &str) -> Result<(), ValuesError> {
        self.add_values_file(
            Rank::PackageValuesFrom,
            ValueSource::PackageValuesFrom(name.to_string()),
            name,
            text,
        )
    }

    /// Adds the `spec.values` of a `Package` object (below every command-line source).
    pub fn add_package_spec(&mut self, values: Map<String, Value>) {
        self.push(
            Rank::PackageSpec,
            ValueSource::PackageSpec,
            Input::Map(values),
        );
    }

    /// Adds a `--set` line.
    pub fn add_set(&mut self, line: &str) -> Result<(), ValuesError> {
        self.add_line(Rank::Set, ValueSource::Set(line.to_string()), line)
    }

    /// Adds a `--set-string` line.
    pub fn add_set_string(&mut self, line: &str) -> Result<(), ValuesError> {
        self.add_line(
            Rank::SetString,
            ValueSource::SetString(line.to_string()),
            line,
        )
    }

    /// Adds a `--set-json` value: `key=JSON[,key=JSON…]`, or a whole JSON object (Helm 4).
    pub fn add_set_json(&mut self, line: &str) -> Result<(), ValuesError> {
        let source = ValueSource::SetJson(line.to_string());
        self.add_json(Rank::SetJson, source, "--set-json", line)
    }

    /// Adds a `--values-once` file: values for this revision only, above every other source.
    pub fn add_file_once(&mut self, name: &str, text: &str) -> Result<(), ValuesError> {
        self.add_values_file(
            Rank::FileOnce,
            ValueSource::FileOnce(name.to_string()),
            name,
            text,
        )
    }

    /// Adds the `spec.valuesOnce` of a `Package` object: for one revision only, above every
    /// other source.
    pub fn add_package_values_once(&mut self, values: Map<String, Value>) {
        self.push(
            Rank::FileOnce,
            ValueSource::PackageValuesOnce,
            Input::Map(values),
        );
    }

    /// Adds a `--set-once` line: for this revision only, above every other source.
    pub fn add_set_once(&mut self, line: &str) -> Result<(), ValuesError> {
        self.add_line(Rank::SetOnce, ValueSource::SetOnce(line.to_string()), line)
    }

    /// Adds a `--set-json-once` value (`key=JSON`, or a JSON object): for this revision only.
    pub fn add_set_json_once(&mut self, line: &str) -> Result<(), ValuesError> {
        let source = ValueSource::SetJsonOnce(line.to_string());
        self.add_json(Rank::SetJsonOnce, source, "--set-json-once", line)
    }

    /// A values file's map (`name` names it in errors) as a source of `rank`.
    fn add_values_file(
        &mut self,
        rank: Rank,
        source: ValueSource,
        name: &str,
        text: &str,
    ) -> Result<(), ValuesError> {
        let map = values_file_map(name, text)?;
        self.push(rank, source, Input::Map(map));
        Ok(())
    }

    /// A `--set-json` style value of `flag`: a whole JSON object, or `key=JSON[,key=JSON…]`.
    fn add_json(
        &mut self,
        rank: Rank,
        source: ValueSource,
        flag: &'static str,
        line: &str,
    ) -> Result<(), ValuesError> {
        let trimmed = line.trim();
        if trimmed.starts_with('{') {
            let map: Map<String, Value> =
                serde_json::from_str(trimmed).map_err(|e| ValuesError::Set {
                    flag,
                    line: line.to_string(),
                    message: format!("failed parsing {flag} data JSON: {e}"),
                })?;
            self.push(rank, source, Input::Map(map));
            return Ok(());
        }
        self.add_line(rank, source, line)
    }

    /// Adds a `--set-file key=path` line; `read` returns the text of a named file. Files are
    /// read once, now, and kept, so that replaying the sources reads nothing again.
    pub fn add_set_file(
        &mut self,
        line: &str,
        read: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<(), ValuesError> {
        let texts = std::sync::Mutex::new(BTreeMap::new());
        let reader = |path: &str| -> Result<kubepkg_value::Value, String> {
            let text = read(path)?;
            if let Ok(mut t) = texts.lock() {
                t.insert(path.to_string(), text.clone());
            }
            Ok(kubepkg_value::Value::from(text))
        };
        let mut scratch = BTreeMap::new();
        kubepkg_chart::strvals::parse_into_file(line, &mut scratch, &reader).map_err(|e| {
            ValuesError::Set {
                flag: "--set-file",
                line: line.to_string(),
                message: e,
            }
        })?;
        let texts = texts.into_inner().unwrap_or_default();
        self.push(
            Rank::SetFile,
            ValueSource::SetFile(line.to_string()),
            Input::FileLine {
                line: line.to_string(),
                texts,
            },
        );
        Ok(())
    }

    fn add_line(&mut self, rank: Rank, source: ValueSource, line: &str) -> Result<(), ValuesError> {
        // Parsed once alone so that a bad line is refused when given, with Helm's message.
        let mut scratch = BTreeMap::new();
        apply_line(rank, line, &BTreeMap::new(), &mut scratch).map_err(|message| {
            ValuesError::Set {
                flag: flag_of(rank),
                line: line.to_string(),
                message,
            }
        })?;
        self.push(rank, source, Input::Line(line.to_string()));
        Ok(())
    }

    fn push(&mut self, rank: Rank, source: ValueSource, input: Input) {
        self.steps.push(Step {
            rank,
            source,
            input,
        });
    }

    /// The sources in the order Helm applies them (stable within one kind).
    fn ordered(&self) -> Vec<&Step> {
        let mut steps: Vec<&Step> = self.steps.iter().collect();
        steps.sort_by_key(|s| s.rank);
        steps
    }

    /// Replays every source over one map as Helm's `MergeValues` does; returns the final map
    /// and, per source, what it set ([`ValueLayer`]).
    fn replay(&self) -> (Map<String, Value>, Vec<ValueLayer>) {
        let mut base = Map::new();
        let mut layers = Vec::new();
        let none = BTreeMap::new();
        for step in self.ordered() {
            let touched = match &step.input {
                Input::Map(m) => {
                    base = merge_maps(base, m);
                    m.clone()
                }
                Input::Line(line) | Input::FileLine { line, .. } => {
                    let texts = match &step.input {
                        Input::FileLine { texts, .. } => texts,
                        _ => &none,
                    };
                    let mut alone = BTreeMap::new();
                    let mut tree = to_tree(&base);
                    // The line parsed alone when it was added. Over earlier values it can
                    // still fail where its path crosses a value of another type (Helm fails
                    // the same way); it then sets nothing.
                    if apply_line(step.rank, line, texts, &mut alone).is_ok()
                        && apply_line(step.rank, line, texts, &mut tree).is_ok()
                    {
                        base = from_tree(tree);
                    }
                    from_tree(alone)
                }
            };
            layers.push(ValueLayer {
                source: step.source.clone(),
                values: project(&touched, &base),
            });
        }
        (base, layers)
    }

    /// What each source set, in the order Helm applies them (recorded in package revisions).
    pub fn layers(&self) -> Vec<ValueLayer> {
        self.replay().1
    }

    /// Checks that every top-level key names a component of `package` and holds a mapping.
    pub fn check(&self, package: &Package) -> Result<(), ValuesError> {
        for layer in &self.layers() {
            for (key, v) in &layer.values {
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

    /// The user-supplied values of one component, merged as Helm merges them (nulls kept).
    pub fn given(&self, component: &str) -> Map<String, Value> {
        match self.replay().0.remove(component) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }

    /// Every component's user-supplied values (components without any are omitted).
    pub fn given_all(&self) -> BTreeMap<String, Map<String, Value>> {
        self.replay()
            .0
            .into_iter()
            .filter_map(|(k, v)| match v {
                Value::Object(m) if !m.is_empty() => Some((k, m)),
                _ => None,
            })
            .collect()
    }

    /// Rebuilds user values from a recorded revision (`given_all`), as one source.
    pub fn from_recorded(
        given: &BTreeMap<String, Map<String, Value>>,
        source: ValueSource,
    ) -> UserValues {
        let mut u = UserValues::new();
        u.push(
            Rank::File,
            source,
            Input::Map(
                given
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::Object(v.clone())))
                    .collect(),
            ),
        );
        u
    }
}

fn flag_of(rank: Rank) -> &'static str {
    match rank {
        Rank::PackageValuesFrom => "spec.valuesFrom",
        Rank::PackageSpec => "spec.values",
        Rank::File => "-f",
        Rank::SetJson => "--set-json",
        Rank::Set => "--set",
        Rank::SetString => "--set-string",
        Rank::SetFile => "--set-file",
        Rank::FileOnce => "--values-once",
        Rank::SetJsonOnce => "--set-json-once",
        Rank::SetOnce => "--set-once",
    }
}

/// Applies one strvals line of kind `rank` into `dest` with Helm's parser for that flag;
/// `texts` holds the files a `--set-file` line names.
fn apply_line(
    rank: Rank,
    line: &str,
    texts: &BTreeMap<String, String>,
    dest: &mut BTreeMap<String, kubepkg_chart::strvals::Tree>,
) -> Result<(), String> {
    use kubepkg_chart::strvals;
    match rank {
        Rank::Set | Rank::SetOnce => strvals::parse_into(line, dest),
        Rank::SetString => strvals::parse_into_string(line, dest),
        Rank::SetJson | Rank::SetJsonOnce => strvals::parse_json(line, dest),
        Rank::SetFile => {
            let read = |path: &str| -> Result<kubepkg_value::Value, String> {
                texts
                    .get(path)
                    .map(|t| kubepkg_value::Value::from(t.clone()))
                    .ok_or_else(|| format!("open {path}: no such file or directory"))
            };
            strvals::parse_into_file(line, dest, &read)
        }
        Rank::PackageValuesFrom | Rank::PackageSpec | Rank::File | Rank::FileOnce => Ok(()),
    }
}

fn to_tree(m: &Map<String, Value>) -> BTreeMap<String, kubepkg_chart::strvals::Tree> {
    m.iter()
        .map(|(k, v)| {
            (
                k.clone(),
                kubepkg_chart::strvals::Tree::from_value(&crate::chart_adapter::to_chart_value(v)),
            )
        })
        .collect()
}

fn from_tree(t: BTreeMap<String, kubepkg_chart::strvals::Tree>) -> Map<String, Value> {
    t.into_iter()
        .map(|(k, v)| (k, crate::chart_adapter::from_chart_value(&v.into_value())))
        .collect()
}

/// The parts of `now` at the paths `touched` names: maps recurse, anything else (a scalar, a
/// list a source edited, a map that replaced a scalar) is taken whole.
fn project(touched: &Map<String, Value>, now: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, t) in touched {
        let Some(n) = now.get(k) else { continue };
        match (t, n) {
            (Value::Object(tm), Value::Object(nm)) => {
                // `a: {}` merged into an existing map sets nothing there.
                if !tm.is_empty() || nm.is_empty() {
                    out.insert(k.clone(), Value::Object(project(tm, nm)));
                }
            }
            _ => {
                out.insert(k.clone(), n.clone());
            }
        }
    }
    out
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
    from_version: Option<&kubepkg_semver::Version>,
    to_version: &kubepkg_semver::Version,
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

/// A component's values built up layer by layer, lowest first, every leaf keeping the source
/// that set it: over maps, keys merge; anything else replaces; `null` deletes a key.
/// [`effective`] layers a package's sources; a recorded revision's layers are replayed the
/// same way (`kubepkg_package::revision_values`).
#[derive(Debug, Clone, Default)]
pub struct Layering {
    tree: BTreeMap<String, Node>,
}

impl Layering {
    /// Lays `values`, set by `source`, over what is there.
    pub fn overlay(&mut self, values: &Map<String, Value>, source: &ValueSource) {
        overlay(&mut self.tree, values, source);
    }

    /// The values as they stand, each leaf with its source.
    pub fn effective(&self) -> Effective {
        let mut values = Map::new();
        let mut explain = Vec::new();
        collect(&self.tree, "", &mut values, &mut explain);
        Effective { values, explain }
    }
}

#[derive(Debug, Clone)]
enum Node {
    Map(BTreeMap<String, Node>, ValueSource),
    Leaf(Value, ValueSource),
}

fn overlay(dest: &mut BTreeMap<String, Node>, over: &Map<String, Value>, source: &ValueSource) {
    for (k, v) in over {
        match v {
            // A null deletes what is below it; over nothing it stays, as Helm's coalescing
            // keeps a user's null for a key the chart does not have.
            Value::Null => {
                if dest.remove(k).is_none() {
                    dest.insert(k.clone(), Node::Leaf(Value::Null, source.clone()));
                }
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
    let mut layering = Layering::default();
    layering.overlay(chart_defaults, &ValueSource::ChartDefault);
    if let Some(c) = package.component(component) {
        layering.overlay(&c.values, &ValueSource::PackageDefault);
    }
    for layer in user.layers() {
        if let Some(Value::Object(m)) = layer.values.get(component) {
            layering.overlay(m, &layer.source);
        }
    }
    if let Some(ctx) = context {
        layering.overlay(ctx, &ValueSource::UpgradeContext);
    }
    layering.effective()
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
