//! Template rendering of a chart tree: Helm's `engine.Render`.
//!
//! Every template of every chart joins one template set (so `include` reaches any chart's
//! `define`s), parsed in Helm's order so that a parent's definitions win. Each non-partial
//! template (`_*` files are skipped) executes with its own chart's top-level object:
//! `.Values` (the subchart's section for a subchart), `.Chart` (with `IsRoot`), `.Files`,
//! `.Release`, `.Capabilities`, `.Subcharts` and `.Template` (`Name`, `BasePath`). Library
//! charts contribute only their `_*` partials. The functions are Helm's
//! (`kubepkg_funcs::helm_table`), whose list functions already accept Helm's named slices and
//! maps such as `.Capabilities.APIVersions` (see `kubepkg_funcs::reflect`).

use crate::chart::Chart;
use crate::error::{ChartError, ChartErrorKind, Result};
use crate::objects::{Capabilities, Files};
use crate::values::table;
use kubepkg_template::parse::Source;
use kubepkg_template::{Templates, helm};
use kubepkg_value::{MapType, Value, map_read, map_write};
use std::collections::BTreeMap;
use std::sync::Arc;

/// `.Release`.
#[derive(Debug, Clone)]
pub struct ReleaseOptions {
    pub name: String,
    pub namespace: String,
    pub revision: i64,
    pub is_install: bool,
    pub is_upgrade: bool,
}

impl ReleaseOptions {
    /// The `.Release` map.
    pub fn to_value(&self) -> Value {
        let mut m = BTreeMap::new();
        m.insert("Name".into(), Value::str(&self.name));
        m.insert("Namespace".into(), Value::str(&self.namespace));
        m.insert("IsUpgrade".into(), Value::Bool(self.is_upgrade));
        m.insert("IsInstall".into(), Value::Bool(self.is_install));
        m.insert("Revision".into(), Value::Int(self.revision));
        m.insert("Service".into(), Value::str("Helm"));
        Value::map(m)
    }
}

/// The map as Helm's `common.Values`, the Go type of `.Values` and `.Template` (with the methods
/// `AsMap`, `YAML`, `Table`, `PathValue`; the entries are shared, not copied).
fn helm_values(v: Value) -> Value {
    match v {
        Value::Map(m) => Value::Map(m.with_type(MapType::HelmValues)),
        other => other,
    }
}

struct Renderable {
    text: Arc<[u8]>,
    parsed: crate::chart::ParsedTemplate,
    data: Value,
    base_path: String,
}

/// Where a render names the templates of `child`, a subchart of the chart at `full_path`.
fn subchart_path(full_path: &str, child: &Chart) -> String {
    format!("{full_path}/charts/{}", child.name())
}

/// Whether a render takes the template `t` of `chart`: a library chart gives only its partials.
fn is_rendered(chart: &Chart, t: &crate::chart::ChartFile) -> bool {
    !chart.is_library() || t.name.rsplit('/').next().unwrap_or("").starts_with('_')
}

/// Build the per-chart top-level objects and collect templates (`recAllTpls`).
fn collect(
    chart: &Chart,
    parent: &Value,
    is_root: bool,
    full_path: &str,
    out: &mut BTreeMap<String, Renderable>,
) -> Value {
    let get = |k: &str| match parent {
        Value::Map(m) => map_read(m).get(k).cloned().unwrap_or(Value::Nil),
        _ => Value::Nil,
    };
    let files: BTreeMap<String, crate::FileData> = chart
        .files
        .iter()
        .map(|f| (f.name.clone(), f.data.clone()))
        .collect();
    let subcharts = Value::empty_map();
    let values = if is_root {
        get("Values")
    } else {
        table(&get("Values"), chart.name()).unwrap_or_else(Value::empty_map)
    };
    let values = helm_values(values);
    let mut next = BTreeMap::new();
    next.insert("Chart".to_string(), chart.metadata.to_value(is_root));
    next.insert(
        "Files".to_string(),
        Value::Object(Arc::new(Files::new(files))),
    );
    next.insert("Release".to_string(), get("Release"));
    next.insert("Capabilities".to_string(), get("Capabilities"));
    next.insert("Values".to_string(), values);
    next.insert("Subcharts".to_string(), subcharts.clone());
    let next = Value::map(next);
    for child in &chart.dependencies {
        let child_path = subchart_path(full_path, child);
        let sub = collect(child, &next, false, &child_path, out);
        if let Value::Map(m) = &subcharts {
            map_write(m).insert(child.name().to_string(), sub);
        }
    }
    for t in &chart.templates {
        if !is_rendered(chart, t) {
            continue;
        }
        out.insert(
            format!("{full_path}/{}", t.name),
            Renderable {
                text: t.data.bytes().clone(),
                parsed: t.parsed.clone(),
                data: next.clone(),
                base_path: format!("{full_path}/templates"),
            },
        );
    }
    next
}

/// The template set a render starts from: Helm's functions, in Helm's mode (`lint`: Helm's
/// `LintMode`). What it parses depends only on which functions exist, not on `lint`.
fn template_set(lint: bool) -> Templates {
    let mut set = Templates::with_funcs(kubepkg_funcs::helm_table());
    set.enable_helm(None, lint);
    set
}

/// The file `text` parsed as `name` through its cache `parsed`, and whether it was parsed
/// escaped (not UTF-8, [`escape_bytes`]).
fn parse_file(
    set: &Templates,
    name: &str,
    text: &Arc<[u8]>,
    parsed: &crate::chart::ParsedTemplate,
) -> std::result::Result<(Arc<kubepkg_template::ParsedFile>, bool), kubepkg_template::ParseError> {
    let utf8 = std::str::from_utf8(text);
    let escaped = utf8.is_err();
    parsed
        .get_or_parse(name, text, || match utf8 {
            Ok(t) => set.parse_trees(name, Source::shared(t, text)),
            Err(_) => set.parse_trees(name, Source::copied(&escape_bytes(text))),
        })
        .map(|trees| (trees, escaped))
}

/// The templates of `chart` and its subcharts as a render names them, with their text, when
/// it is in memory already (a large template left on disk is read when a render parses it:
/// never, for a subchart the values disable).
pub(crate) fn templates_in_memory(chart: &Chart) -> Vec<AheadTemplate> {
    fn walk(chart: &Chart, full_path: &str, out: &mut Vec<AheadTemplate>) {
        for child in &chart.dependencies {
            walk(child, &subchart_path(full_path, child), out);
        }
        for t in &chart.templates {
            if !is_rendered(chart, t) || !t.data.is_read() {
                continue;
            }
            out.push(AheadTemplate {
                name: format!("{full_path}/{}", t.name),
                text: t.data.bytes().clone(),
                parsed: t.parsed.clone(),
            });
        }
    }
    let mut out = Vec::new();
    walk(chart, chart.name(), &mut out);
    out
}

/// A template [`parse_ahead`] parses.
pub(crate) struct AheadTemplate {
    name: String,
    text: Arc<[u8]>,
    parsed: crate::chart::ParsedTemplate,
}

/// The number of templates in memory from which an umbrella's are parsed while its values are
/// worked out ([`parse_ahead`]).
pub(crate) const PARSED_AHEAD: usize = PARSED_IN_PARALLEL;

/// Parse `templates` into their caches, last first (the render's own parse, if it comes
/// before this ends, starts from the first). Run beside the values' preparation, which a
/// render waits for and which an umbrella spends a fifth of its time in on one core: the render
/// then finds the trees made. A template of a subchart the values disable is parsed for
/// nothing; its parse error stays in its cache and is never seen, as Helm never parses it.
pub(crate) fn parse_ahead(templates: &[AheadTemplate]) {
    let set = template_set(false);
    for t in templates.iter().rev() {
        let _ = parse_file(&set, &t.name, &t.text, &t.parsed);
    }
}

/// Render every template of `chart` with the top-level object `top` (`Values`, `Release`,
/// `Capabilities`), returning rendered text by template path (`chart/templates/x.yaml`).
pub fn render(chart: &Chart, top: &Value, strict: bool) -> Result<BTreeMap<String, String>> {
    render_mode(chart, top, strict, false)
}

/// [`render`] as `helm lint` renders (Helm's `engine.LintMode`): `required` and `fail` log
/// their message instead of failing, so every template can be checked.
pub fn render_lint(chart: &Chart, top: &Value) -> Result<BTreeMap<String, String>> {
    render_mode(chart, top, false, true)
}

/// The number of template files from which parsing them is spread over the cores: below it
/// the threads cost about what they save (measured on two cores: charts of 50 and 96 templates
/// did not gain, bench/README.md "Work spread over the cores").
const PARSED_IN_PARALLEL: usize = 200;

/// The number of templates from which they are executed spread over the cores (when none can
/// see another's changes, [`one_sees_anothers_changes`]).
const EXECUTED_IN_PARALLEL: usize = 100;

/// Whether a template of the set may change values another template reads, or read another
/// chart's top-level map: it calls a function that changes a map it is given (`set`, `unset`,
/// the merges), runs text only known when it runs (`tpl`), or names `.Subcharts` (whose maps
/// hold each subchart's `.Template` of the moment). Such templates run one after another in
/// Helm's order, as Helm runs them. The set's trees are walked only when one of the files'
/// `texts` holds one of [`WORDS_OF_CHANGES`] (a chart of a thousand files that holds none is
/// answered by a text search).
fn one_sees_anothers_changes<'t>(
    set: &Templates,
    mut texts: impl Iterator<Item = &'t [u8]>,
) -> bool {
    use kubepkg_template::parse::Arg;
    let words = WORDS_OF_CHANGES.map(memchr::memmem::Finder::new);
    if !texts.any(|t| words.iter().any(|w| w.find(t).is_some())) {
        return false;
    }
    let subcharts = |names: &[std::sync::Arc<str>]| names.iter().any(|n| &**n == "Subcharts");
    set.any_arg(&mut |a| match a {
        Arg::Identifier { name, .. } => {
            &**name == "tpl" || kubepkg_funcs::CHANGE_THEIR_ARGUMENTS.contains(&&**name)
        }
        Arg::Field { idents, .. } | Arg::Variable { idents, .. } => subcharts(idents),
        Arg::Chain { fields, .. } => subcharts(fields),
        Arg::String { value, .. } => matches!(value, Value::String(s) if &**s == "Subcharts"),
        _ => false,
    })
}

/// A word that the text of a template which [`one_sees_anothers_changes`] looks for holds:
/// `set` (in `unset` too), `erge` (in every merge's name), `tpl`, `Subcharts`.
const WORDS_OF_CHANGES: [&str; 4] = ["set", "erge", "tpl", "Subcharts"];

fn render_mode(
    chart: &Chart,
    top: &Value,
    strict: bool,
    lint: bool,
) -> Result<BTreeMap<String, String>> {
    let mut tpls = BTreeMap::new();
    collect(chart, top, true, chart.name(), &mut tpls);
    let mut set = template_set(lint);
    // The execution limits (docs/limits.md), raised by `KUBEPKG_TEMPLATE_MAX_*`.
    let limits = kubepkg_template::Limits::from_env()
        .map_err(|e| ChartError::from(ChartErrorKind::Render(e.to_string())))?;
    set.set_limits(limits);
    if strict {
        set.set_missing_key(kubepkg_template::MissingKey::Error);
    }
    let mut keys: Vec<String> = tpls.keys().cloned().collect();
    helm::sort_templates(&mut keys);
    // Each file is parsed once per loaded chart (the trees are shared by later renders), its
    // trees and text sharing the file's bytes when they are UTF-8. The files are parsed first,
    // spread over the cores (a parse needs only the function table), then joined in Helm's
    // order: the first parse error is still the one Helm stops at.
    // Each file's UTF-8 is checked once per render: whether it is (else its bytes are escaped
    // for the parse and the output unescaped), and the text the parse shares.
    let parse = |k: &String| parse_file(&set, k, &tpls[k].text, &tpls[k].parsed);
    let parsed =
        kubepkg_parallel::map_in_order(&keys, PARSED_IN_PARALLEL, parse).map_err(|(i, e)| {
            ChartError::from(ChartErrorKind::Render(helm::parse_error_text(&keys[i], &e)))
        })?;
    let mut escaped = false;
    for (trees, not_utf8) in parsed {
        escaped |= not_utf8;
        set.add_parsed(&trees);
    }
    let executed: Vec<&String> = keys
        .iter()
        .filter(|k| !k.rsplit('/').next().unwrap_or("").starts_with('_'))
        .collect();
    // `.Template` of each template, as Helm sets it in its chart's top-level map before the
    // template runs; the map keeps the last one, which is what `.Subcharts` shows a parent.
    let template_of = |k: &str| {
        let mut t = BTreeMap::new();
        t.insert("Name".to_string(), Value::str(k));
        t.insert("BasePath".to_string(), Value::str(&tpls[k].base_path));
        helm_values(Value::map(t))
    };
    let execute = |k: &String, data: &Value| -> Result<String> {
        let mut out = set
            .execute_bytes(k, data)
            .map_err(|e| ChartError::from(ChartErrorKind::Render(helm::exec_error_text(k, &e))))?;
        if escaped {
            out = unescape_bytes(out);
        }
        let out = match String::from_utf8(out) {
            Ok(s) => s,
            // Helm reads every rendered file but the notes as YAML, which go-yaml's reader
            // refuses when it is not UTF-8.
            Err(e) if !k.ends_with("NOTES.txt") => {
                return Err(ChartError::from(ChartErrorKind::Manifest(format!(
                    "YAML parse error on {k}: error converting YAML to JSON: yaml: {}",
                    kubepkg_yaml::decode::utf8_error(e.as_bytes())
                ))));
            }
            Err(e) => kubepkg_value::go_lossy(e.as_bytes()),
        };
        Ok(helm::scrub_no_value(&out))
    };
    let outputs = if executed.len() < EXECUTED_IN_PARALLEL
        || one_sees_anothers_changes(&set, tpls.values().map(|r| &*r.text))
    {
        // One after another, in Helm's order, on the charts' shared top-level maps.
        let mut outputs = Vec::with_capacity(executed.len());
        for k in &executed {
            let data = &tpls[k.as_str()].data;
            if let Value::Map(m) = data {
                map_write(m).insert("Template".into(), template_of(k));
            }
            outputs.push(execute(k, data)?);
        }
        outputs
    } else {
        // Side by side: no template can change what another reads, so each runs on a top-level
        // map of its own (the same entries, its own `.Template`); the charts' shared maps get
        // the `.Template` they hold after the last of their templates.
        for k in &executed {
            if let Value::Map(m) = &tpls[k.as_str()].data {
                map_write(m).insert("Template".into(), template_of(k));
            }
        }
        kubepkg_parallel::map_in_order(&executed, EXECUTED_IN_PARALLEL, |k| {
            let data = match &tpls[k.as_str()].data {
                Value::Map(m) => {
                    let mut own = map_read(m).clone();
                    own.insert("Template".into(), template_of(k));
                    Value::map(own)
                }
                other => other.clone(),
            };
            execute(k, &data)
        })
        .map_err(|(_, e)| e)?
    };
    let rendered = executed.into_iter().cloned().zip(outputs).collect();
    Ok(rendered)
}

/// First of the 128 private-use characters (U+10FF80…U+10FFFF) that stand for the bytes
/// 0x80…0xFF of a template file that is not UTF-8 while it is parsed as text.
const BYTE_STANDIN: u32 = 0x10FF80;

/// A template file as text for the parser. Go templates are bytes: a file that is not UTF-8
/// (a Latin-1 comment, a raw byte in a text node) renders in Helm, and its bytes reach the
/// output wherever its text does. Each byte that is not part of a UTF-8 sequence is parsed as
/// a stand-in character and turned back into the byte in the output ([`unescape_bytes`]).
fn escape_bytes(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(raw) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut s = String::with_capacity(raw.len() + 16);
    for chunk in raw.utf8_chunks() {
        s.push_str(chunk.valid());
        for &b in chunk.invalid() {
            s.push(char::from_u32(BYTE_STANDIN + u32::from(b - 0x80)).unwrap_or('\u{FFFD}'));
        }
    }
    std::borrow::Cow::Owned(s)
}

/// The output with each stand-in of [`escape_bytes`] replaced by its byte.
fn unescape_bytes(out: Vec<u8>) -> Vec<u8> {
    // U+10FF80…U+10FFFF are F4 8F BE 80 … F4 8F BF BF in UTF-8.
    let mut res = Vec::with_capacity(out.len());
    let mut i = 0;
    while i < out.len() {
        if i + 3 < out.len()
            && out[i] == 0xF4
            && out[i + 1] == 0x8F
            && (out[i + 2] == 0xBE || out[i + 2] == 0xBF)
            && out[i + 3] & 0xC0 == 0x80
        {
            res.push(0x80 + ((out[i + 2] - 0xBE) << 6) + (out[i + 3] & 0x3F));
            i += 4;
        } else {
            res.push(out[i]);
            i += 1;
        }
    }
    res
}

/// The `.Capabilities` value.
pub fn capabilities_value(caps: &Capabilities) -> Value {
    Value::Object(Arc::new(caps.clone()))
}

#[cfg(test)]
mod tests {
    /// Whether a set of one template of this text must run in Helm's order.
    fn in_order(text: &str) -> bool {
        let mut set = kubepkg_template::Templates::with_funcs(kubepkg_funcs::helm_table());
        set.enable_helm(None, false);
        set.parse("c/templates/t.yaml", text)
            .expect("the template parses");
        super::one_sees_anothers_changes(&set, std::iter::once(text.as_bytes()))
    }

    #[test]
    fn the_words_looked_for_are_in_every_name_looked_for() {
        for name in kubepkg_funcs::CHANGE_THEIR_ARGUMENTS
            .into_iter()
            .chain(["tpl", "Subcharts"])
        {
            assert!(
                super::WORDS_OF_CHANGES.iter().any(|w| name.contains(w)),
                "{name} holds none of the words looked for"
            );
        }
    }

    #[test]
    fn templates_that_may_see_anothers_changes_run_in_order() {
        for text in [
            r#"{{ $_ := set .Values "a" 1 }}"#,
            r#"{{ if true }}{{ range .Values.l }}{{ unset $.Values "a" }}{{ end }}{{ end }}"#,
            r#"{{ define "x" }}{{ merge (dict) .Values | toYaml }}{{ end }}"#,
            r#"{{ with .Values }}{{ (mergeOverwrite .a .b).c }}{{ end }}"#,
            r#"{{ template "y" (mustMerge (dict) .) }}"#,
            r#"{{ tpl .Values.text . }}"#,
            r#"{{ .Subcharts.db.Values }}"#,
            r#"{{ $.Subcharts }}"#,
            r#"{{ (.).Subcharts }}"#,
            r#"{{ index $ "Subcharts" }}"#,
        ] {
            assert!(in_order(text), "{text} runs in order");
        }
        for text in [
            r#"{{ include "x" . | nindent 4 }}{{ .Values.settings }}{{ .Template.Name }}"#,
            r#"{{ $d := dict "a" 1 }}{{ get $d "a" }}{{ pick .Values "setting" }}"#,
            r#"{{ "set" }}{{ .Values.tpl }}{{ index .Values "merge" }}"#,
            r#"{{ .Values.a | toYaml }}{{ include "x" $ }}"#,
        ] {
            assert!(!in_order(text), "{text} may run side by side");
        }
    }

    #[test]
    fn template_bytes_survive_parsing_as_text() {
        let raw = b"a: \xff\xe6\x97 \xc3\xa9\x80";
        let text = super::escape_bytes(raw);
        assert!(text.contains('\u{e9}'));
        assert_eq!(
            super::unescape_bytes(text.as_bytes().to_vec()),
            raw.to_vec()
        );
    }
}
