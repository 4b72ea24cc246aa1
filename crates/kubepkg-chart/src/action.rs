//! `helm template` as a library call: load the chart, merge user values, process dependencies,
//! coalesce and validate values, render, split and sort, and print manifests, CRDs and hooks
//! in Helm's format (`---\n# Source: PATH\nDOCUMENT\n`).

use crate::chart::{Chart, load};
use crate::dependencies::{check_dependencies, process_dependencies_with};
use crate::error::{ChartError, ChartErrorKind, Result};
use crate::manifest::{Hook, sort_manifests};
use crate::objects::{Capabilities, KubeVersion};
use crate::render::{ReleaseOptions, capabilities_value, render};
use crate::schema::validate_chart;
use crate::semver::is_compatible_range;
use crate::strvals::{self, Tree};
use crate::values::{coalesce_values, merge_maps, read_values_file};
use kubepkg_value::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// User-supplied values, in Helm's precedence order (later kinds override earlier ones).
#[derive(Debug, Clone, Default)]
pub struct ValueOptions {
    /// `-f/--values` files (`-` is standard input).
    pub value_files: Vec<PathBuf>,
    /// `--set-json`.
    pub json_values: Vec<String>,
    /// `--set`.
    pub values: Vec<String>,
    /// `--set-string`.
    pub string_values: Vec<String>,
    /// `--set-file`.
    pub file_values: Vec<String>,
    /// `--set-literal`.
    pub literal_values: Vec<String>,
}

impl ValueOptions {
    /// `values.Options.MergeValues`: the user values as one map. Runs on a large stack:
    /// `--set-json` may nest 10 000 levels, as Helm accepts. Without any user values there is
    /// nothing to recurse into, and no stack to map (nor the stack bounds to look up).
    pub fn merge(&self) -> Result<Value> {
        if self.is_empty() {
            return self.merge_here();
        }
        kubepkg_value::walk::on_large_stack(|| self.merge_here())
    }

    /// No values given by any of the flags.
    fn is_empty(&self) -> bool {
        let ValueOptions {
            value_files,
            json_values,
            values,
            string_values,
            file_values,
            literal_values,
        } = self;
        value_files.is_empty()
            && json_values.is_empty()
            && values.is_empty()
            && string_values.is_empty()
            && file_values.is_empty()
            && literal_values.is_empty()
    }

    fn merge_here(&self) -> Result<Value> {
        let mut base = Value::empty_map();
        for f in &self.value_files {
            let fp = f.display().to_string();
            let raw = read_values_file(&fp)
                .map_err(|e| ChartError::from(ChartErrorKind::Values(e.to_string())))?;
            let current = kubepkg_yaml::load_values_bytes(&raw).map_err(|e| {
                ChartError::from(ChartErrorKind::Values(format!("failed to parse {fp}: {e}")))
            })?;
            drop(raw);
            base = merge_maps(&base, &current);
        }
        let mut tree = match Tree::from_value(&base) {
            Tree::Map(m) => m,
            _ => BTreeMap::new(),
        };
        for v in &self.json_values {
            let t = v.trim();
            if t.starts_with('{') {
                let max = kubepkg_value::walk::MAX_NESTING;
                if strvals::json_depth(t) > max {
                    return Err(ChartError::from(ChartErrorKind::Values(format!(
                        "failed parsing --set-json data JSON: the value is nested deeper than \
                         {max} levels (Helm's limit)"
                    ))));
                }
                let mut de = serde_json::Deserializer::from_str(t);
                de.disable_recursion_limit();
                let mut values = de.into_iter::<serde_json::Value>();
                let parsed = match values.next() {
                    // Like serde_json::from_str: one value and nothing after it.
                    Some(Ok(p)) if t[values.byte_offset()..].trim().is_empty() => p,
                    _ => {
                        return Err(ChartError::from(ChartErrorKind::Values(format!(
                            "failed parsing --set-json data JSON: {v}"
                        ))));
                    }
                };
                if !parsed.is_object() {
                    return Err(ChartError::from(ChartErrorKind::Values(format!(
                        "failed parsing --set-json data JSON: {v}"
                    ))));
                }
                let cur = Tree::Map(std::mem::take(&mut tree)).into_value();
                let merged = merge_maps(&cur, &strvals::json_to_value(&parsed));
                tree = match Tree::from_value(&merged) {
                    Tree::Map(m) => m,
                    _ => BTreeMap::new(),
                };
            } else {
                strvals::parse_json(v, &mut tree).map_err(|_| {
                    ChartError::from(ChartErrorKind::Values(format!(
                        "failed parsing --set-json data {v}"
                    )))
                })?;
            }
        }
        for v in &self.values {
            strvals::parse_into(v, &mut tree).map_err(set_error("--set"))?;
        }
        for v in &self.string_values {
            strvals::parse_into_string(v, &mut tree).map_err(set_error("--set-string"))?;
        }
        // Go strings are bytes: the file's exact bytes become the value.
        let reader = |p: &str| -> std::result::Result<Value, String> {
            read_values_file(p)
                .map(Value::from_go_bytes)
                .map_err(|e| e.to_string())
        };
        for v in &self.file_values {
            strvals::parse_into_file(v, &mut tree, &reader).map_err(set_error("--set-file"))?;
        }
        for v in &self.literal_values {
            strvals::parse_literal_into(v, &mut tree).map_err(set_error("--set-literal"))?;
        }
        Ok(Tree::Map(tree).into_value())
    }
}

/// Helm's error for a `flag` line that does not parse.
fn set_error<E: std::fmt::Display>(flag: &'static str) -> impl Fn(E) -> ChartError {
    move |e| {
        ChartError::from(ChartErrorKind::Values(format!(
            "failed parsing {flag} data: {e}"
        )))
    }
}

/// Everything `helm template` takes.
#[derive(Debug, Clone, Default)]
pub struct TemplateOptions {
    pub release_name: String,
    pub chart: PathBuf,
    pub namespace: String,
    pub values: ValueOptions,
    pub show_only: Vec<String>,
    pub include_crds: bool,
    pub skip_tests: bool,
    pub no_hooks: bool,
    pub is_upgrade: bool,
    /// `.Release.Revision`: the revision being written (the last one plus one on an upgrade);
    /// `None` renders revision 1, as `helm template` does.
    pub revision: Option<i64>,
    pub kube_version: Option<String>,
    pub api_versions: Vec<String>,
    pub output_dir: Option<PathBuf>,
    pub use_release_name: bool,
    pub skip_schema_validation: bool,
    /// Post-renderers run on the rendered manifests and hooks before they are sorted
    /// ([`crate::postrender`]).
    pub post_renderers: crate::postrender::PostRenderers,
    /// The process exits once the output is printed (`kubepkg template`): what the render
    /// leaves behind (the chart's parse trees and values: for an umbrella chart hundreds of
    /// thousands of small allocations, about a tenth of its render) is left to the operating
    /// system instead of being freed one allocation at a time ([`TemplateOptions::dispose`]).
    /// Only for a process that renders once: one that renders again would keep each render's
    /// leftovers.
    pub exit_after: bool,
}

impl TemplateOptions {
    /// Gives up what the render no longer needs: freed, or with [`TemplateOptions::exit_after`]
    /// left to the process's exit.
    fn dispose<T>(&self, leftovers: T) {
        if self.exit_after {
            std::mem::forget(leftovers);
        }
    }

    /// Where `--output-dir` writes manifests and hooks: under a directory named after the
    /// release with `--release-name`.
    fn manifest_dir(&self) -> Option<PathBuf> {
        let dir = self.output_dir.as_ref()?;
        Some(if self.use_release_name {
            dir.join(&self.release_name)
        } else {
            dir.clone()
        })
    }
}

/// A fully rendered release: what `helm template` would print or write.
#[derive(Debug, Clone, Default)]
pub struct RenderedRelease {
    /// The manifest (CRDs when asked, then plain manifests), as stored in a Helm release.
    pub manifest: String,
    pub hooks: Vec<Hook>,
    pub notes: String,
    /// With [`TemplateOptions::output_dir`]: the files written, in order (the caller says
    /// `wrote FILE` for each, as Helm prints; this library prints nothing).
    pub written: Vec<PathBuf>,
}

/// The checks `helm install`/`helm template` make before the SDK runs: an installable chart
/// type and every declared dependency present in `charts/`.
pub fn check_installable(chart: Chart) -> Result<Chart> {
    match chart.metadata.chart_type.as_str() {
        "" | "application" => {}
        t => {
            return Err(ChartError::from(ChartErrorKind::Chart(format!(
                "{t} charts are not installable"
            ))));
        }
    }
    if chart.metadata.deprecated {
        kubepkg_gostd::slog::log(kubepkg_gostd::slog::Record::warn(
            "this chart is deprecated",
        ));
    }
    if chart.metadata.deps().next().is_some() {
        check_dependencies(&chart).map_err(|e| {
            ChartError::from(ChartErrorKind::Chart(format!(
                "an error occurred while checking for chart dependencies. You may need to run 'helm dependency build' to fetch missing dependencies: {e}"
            )))
        })?;
    }
    Ok(chart)
}

/// Prepare `chart` for rendering as Helm's SDK does: dependencies processed (conditions, tags,
/// aliases, import-values), values coalesced and validated against the schemas.
/// Returns the processed chart and the top-level object for the templates.
pub fn prepare(
    chart: Chart,
    user: &Value,
    opts: &TemplateOptions,
    caps: &Capabilities,
) -> Result<(Chart, Value)> {
    prepare_with(chart, user, opts, caps, true)
}

/// [`prepare`], with imported values coalesced instead of merged when `merge_imports` is false
/// (`helm lint` processes dependencies so).
pub fn prepare_with(
    chart: Chart,
    user: &Value,
    opts: &TemplateOptions,
    caps: &Capabilities,
    merge_imports: bool,
) -> Result<(Chart, Value)> {
    let mut chart = chart;
    process_dependencies_with(&mut chart, user, merge_imports).map_err(|e| {
        ChartError::from(ChartErrorKind::Chart(format!(
            "chart dependencies processing failed: {e}"
        )))
    })?;
    let release = ReleaseOptions {
        name: opts.release_name.clone(),
        namespace: opts.namespace.clone(),
        revision: opts.revision.unwrap_or(1),
        is_install: !opts.is_upgrade,
        is_upgrade: opts.is_upgrade,
    };
    let vals =
        coalesce_values(&chart, user).map_err(|e| ChartError::from(ChartErrorKind::Values(e)))?;
    if !opts.skip_schema_validation {
        validate_chart(&chart, &vals).map_err(|e| {
            ChartError::from(ChartErrorKind::Schema(format!(
                "values don't meet the specifications of the schema(s) in the following chart(s):\n{e}"
            )))
        })?;
    }
    let mut top = BTreeMap::new();
    top.insert("Chart".to_string(), chart.metadata.to_value(true));
    top.insert("Capabilities".to_string(), capabilities_value(caps));
    top.insert("Release".to_string(), release.to_value());
    top.insert("Values".to_string(), vals);
    let top = Value::map(top);
    Ok((chart, top))
}

/// Every rendered template of the chart by path (`chart/templates/x.yaml`, NOTES.txt
/// included, partials excluded) — Helm's `engine.Render` after [`prepare`].
pub fn render_files(
    chart: Chart,
    user: &Value,
    opts: &TemplateOptions,
    caps: &Capabilities,
) -> Result<(Chart, BTreeMap<String, String>)> {
    let (chart, top) = prepare(chart, user, opts, caps)?;
    let files = render(&chart, &top, false)?;
    Ok((chart, files))
}

/// Run the install pipeline in client-only dry-run mode and return the release contents.
pub fn render_release(
    chart: Chart,
    user: &Value,
    opts: &TemplateOptions,
    caps: &Capabilities,
) -> Result<RenderedRelease> {
    render_release_inner(chart, user, opts, caps).map_err(|e| {
        if opts.chart.as_os_str().is_empty() {
            e
        } else {
            e.in_chart(&opts.chart)
        }
    })
}

fn render_release_inner(
    chart: Chart,
    user: &Value,
    opts: &TemplateOptions,
    caps: &Capabilities,
) -> Result<RenderedRelease> {
    let chart = check_installable(chart)?;
    // An umbrella's templates are parsed on another core while its values are worked out
    // (dependency conditions, import-values and coalescing run in Helm's order on one).
    let ahead = crate::render::templates_in_memory(&chart);
    if chart.dependencies.is_empty()
        || ahead.len() < crate::render::PARSED_AHEAD
        || kubepkg_parallel::cores() < 2
    {
        return render_prepared(prepare(chart, user, opts, caps)?, opts, caps);
    }
    std::thread::scope(|s| {
        s.spawn(|| crate::render::parse_ahead(&ahead));
        render_prepared(prepare(chart, user, opts, caps)?, opts, caps)
    })
}

/// [`render_release_inner`] once the chart's dependencies and values are prepared.
fn render_prepared(
    (chart, top): (Chart, Value),
    opts: &TemplateOptions,
    caps: &Capabilities,
) -> Result<RenderedRelease> {
    if !chart.metadata.kube_version.is_empty()
        && !is_compatible_range(&chart.metadata.kube_version, &caps.kube_version.normalized)
    {
        return Err(ChartError::from(ChartErrorKind::Render(format!(
            "chart requires kubeVersion: {} which is incompatible with Kubernetes {}",
            chart.metadata.kube_version, caps.kube_version.version
        ))));
    }
    let mut files = render(&chart, &top, false)?;
    let notes_key = format!("{}/templates/NOTES.txt", chart.name());
    let notes = files.get(&notes_key).cloned().unwrap_or_default();
    files.retain(|k, _| !k.ends_with("NOTES.txt"));
    let files = crate::postrender::post_render(files, &opts.post_renderers)
        .map_err(|e| ChartError::from(ChartErrorKind::PostRender(e)))?;
    let (hooks, manifests) =
        sort_manifests(&files).map_err(|e| ChartError::from(ChartErrorKind::Manifest(e)))?;
    let mut b = String::new();
    let mut written: BTreeMap<String, bool> = BTreeMap::new();
    let mut files_written = Vec::new();
    if opts.include_crds {
        for (name, data) in chart.crd_objects(chart.name()) {
            let text = String::from_utf8_lossy(&data);
            match &opts.output_dir {
                None => b.push_str(&format!("---\n# Source: {name}\n{text}\n")),
                Some(dir) => {
                    files_written.push(write_to_file(
                        dir,
                        &name,
                        &text,
                        written.contains_key(&name),
                    )?);
                    written.insert(name, true);
                }
            }
        }
    }
    for m in &manifests {
        match opts.manifest_dir() {
            None => b.push_str(&format!("---\n# Source: {}\n{}\n", m.name, m.content)),
            Some(dir) => {
                files_written.push(write_to_file(
                    &dir,
                    &m.name,
                    &m.content,
                    written.contains_key(&m.name),
                )?);
                written.insert(m.name.clone(), true);
            }
        }
    }
    opts.dispose((chart, top, files, manifests));
    Ok(RenderedRelease {
        manifest: b,
        hooks,
        notes,
        written: files_written,
    })
}

/// Writes (or appends) one `# Source:` document under `dir`; the file written.
fn write_to_file(dir: &Path, name: &str, data: &str, append: bool) -> Result<PathBuf> {
    let file = PathBuf::from(format!("{}/{name}", dir.display()));
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ChartError::io(parent, e))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .append(append)
        .truncate(!append)
        .open(&file)
        .map_err(|e| ChartError::io(&file, e))?;
    std::io::Write::write_all(
        &mut f,
        format!("---\n# Source: {name}\n{data}\n").as_bytes(),
    )
    .map_err(|e| ChartError::io(&file, e))?;
    Ok(file)
}

/// `filepath.Match` over the `# Source:` path without its chart directory.
fn show_only_filter(out: &str, show: &[String]) -> Result<String> {
    let docs = crate::manifest::split_manifests(out);
    let re = regex_lite::Regex::new("# Source: [^/]+/(.+)").expect("regex");
    let mut selected = Vec::new();
    for f in show {
        let f = f.replace('\\', "/");
        let mut missing = true;
        for d in &docs {
            let Some(c) = re.captures(d) else { continue };
            let name = &c[1];
            if !crate::pattern::go_match(&f, name).unwrap_or(false) {
                continue;
            }
            selected.push(d.clone());
            missing = false;
        }
        if missing {
            return Err(ChartError::from(ChartErrorKind::Chart(format!(
                "could not find template {f} in chart"
            ))));
        }
    }
    Ok(selected
        .iter()
        .map(|m| format!("---\n{m}\n"))
        .collect::<String>())
}

/// `helm template NAME CHART [flags]`: the text printed on standard output.
pub fn template(opts: &TemplateOptions) -> Result<String> {
    let kube_version = match &opts.kube_version {
        None => None,
        Some(v) => Some(KubeVersion::parse(v).map_err(|e| {
            ChartError::from(ChartErrorKind::Chart(format!(
                "invalid kube version '{v}': {e}"
            )))
        })?),
    };
    let mut extra = Vec::new();
    for a in &opts.api_versions {
        extra.extend(a.split(',').map(str::to_string));
    }
    let caps = Capabilities::new(kube_version, &extra);
    template_with_capabilities(opts, &caps)
}

/// [`template`] with the `.Capabilities` given (a live cluster's, for `helm template
/// --dry-run=server`), ignoring `kube_version` and `api_versions` as Helm does then.
pub fn template_with_capabilities(opts: &TemplateOptions, caps: &Capabilities) -> Result<String> {
    let user = opts.values.merge()?;
    let chart = load(&opts.chart)?;
    let rel = render_release(chart, &user, opts, caps).map_err(|e| match e.kind {
        ChartErrorKind::Render(m) | ChartErrorKind::Manifest(m) => ChartError {
            kind: ChartErrorKind::Render(format!(
                "{m}\n\nUse --debug flag to render out invalid YAML"
            )),
            ..e
        },
        kind => ChartError { kind, ..e },
    })?;
    let mut manifests = format!("{}\n", rel.manifest.trim());
    let mut written = rel.written;
    if !opts.no_hooks {
        for h in &rel.hooks {
            if opts.skip_tests && h.events.iter().any(|e| e == "test") {
                continue;
            }
            match opts.manifest_dir() {
                None => manifests.push_str(&format!("---\n# Source: {}\n{}\n", h.path, h.manifest)),
                Some(dir) => {
                    let exists = dir.join(&h.path).exists();
                    written.push(write_to_file(&dir, &h.path, &h.manifest, exists)?);
                }
            }
        }
    }
    if !opts.show_only.is_empty() {
        manifests = show_only_filter(&manifests, &opts.show_only)?;
    }
    // Helm prints `wrote FILE` as it writes, before the output.
    let mut out: String = written
        .iter()
        .map(|f| format!("wrote {}\n", f.display()))
        .collect();
    out.push_str(&manifests);
    Ok(out)
}
