//! One chart linted as `helm lint` lints it (`action.Lint` and `lint.RunAll`): an archive
//! is unpacked into a scratch directory first; a path without `Chart.yaml` is an error; then
//! the rules run in Helm's order.

use std::path::{Path, PathBuf};

use kubepkg_value::Value;

use crate::support::Linter;
use crate::{LintError, LintOptions, chartfile, crds, dependencies, templates, values};

/// What a path given to `kubepkg lint` is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A directory with `kubepkg.yaml`.
    Package(PathBuf),
    /// A chart directory or a `.tgz`/`.tar.gz` archive.
    Chart(PathBuf),
    /// Neither.
    Neither(PathBuf),
}

impl Target {
    /// Classifies `path`.
    pub fn of(path: &Path) -> Target {
        if path.is_dir() && path.join(kubepkg_model::manifest::MANIFEST_FILE).is_file() {
            return Target::Package(path.to_path_buf());
        }
        let s = path.to_string_lossy();
        if path.join("Chart.yaml").exists()
            || (path.is_file() && (s.ends_with(".tgz") || s.ends_with(".tar.gz")))
        {
            return Target::Chart(path.to_path_buf());
        }
        Target::Neither(path.to_path_buf())
    }
}

/// A scratch directory removed on drop.
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Scratch {
    /// A path under the temporary directory that no other lint uses (not created yet):
    /// `prefix`, the process id and the time in nanoseconds.
    pub(crate) fn unique(prefix: &str) -> Scratch {
        Scratch(std::env::temp_dir().join(format!(
            "{prefix}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        )))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Lints the chart at `path` (a directory or an archive) with the user's values `user`.
pub fn lint_path(path: &str, user: &Value, opts: &LintOptions) -> Result<Linter, LintError> {
    if path.ends_with(".tgz") || path.ends_with(".tar.gz") {
        let raw = std::fs::read(path).map_err(|e| LintError::Extract(e.to_string()))?;
        let scratch = Scratch::unique("kubepkg-lint");
        std::fs::create_dir_all(&scratch.0).map_err(LintError::Scratch)?;
        let dir = expand(&raw, path, &scratch.0)?;
        return lint_chart(&dir, &dir.display().to_string(), user, opts);
    }
    let dir = Path::new(path);
    let shown = std::path::absolute(dir)
        .map(|p| clean(&p))
        .unwrap_or_else(|_| dir.display().to_string());
    lint_chart(dir, &shown, user, opts)
}

/// Go's `filepath.Clean` of an absolute path (what `filepath.Abs` returns).
fn clean(p: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    format!("/{}", parts.join("/"))
}

/// `chartutil.Expand`: the archive's files under `scratch/<chart name>/`.
fn expand(raw: &[u8], origin: &str, scratch: &Path) -> Result<PathBuf, LintError> {
    // `chartutil.Expand` reads the archive without the loader's content check: gzip's own
    // errors.
    if raw.is_empty() {
        return Err(LintError::Extract("EOF".into()));
    }
    if !kubepkg_chart::archive::is_gzip(raw) {
        return Err(LintError::Extract("gzip: invalid header".into()));
    }
    let limits = kubepkg_chart::archive::Limits::default();
    let files = kubepkg_chart::archive::load_archive_files(raw, origin, &limits)
        .map_err(|e| LintError::Extract(e.to_string()))?;
    let mut name = String::new();
    for f in &files {
        if f.name == "Chart.yaml" {
            let text = String::from_utf8_lossy(&f.data);
            let v = kubepkg_yaml::from_yaml_str(&text)
                .map_err(|e| LintError::Extract(format!("cannot load Chart.yaml: {e}")))?;
            if let Ok(md) = kubepkg_chart::metadata::Metadata::decode(&v) {
                name = md.name;
            }
        }
    }
    if name.is_empty() {
        return Err(LintError::Extract("chart name not specified".into()));
    }
    if name == "." || name == ".." || name.contains('/') {
        return Err(LintError::Extract(format!(
            "chart name {} is not allowed",
            kubepkg_gostd::strconv::quote(&name)
        )));
    }
    let dir = scratch.join(&name);
    for f in &files {
        let out = dir.join(&f.name);
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent).map_err(LintError::Scratch)?;
        }
        std::fs::write(&out, &f.data).map_err(LintError::Scratch)?;
    }
    Ok(dir)
}

/// `lint.RunAll` over the chart directory `dir` (named `shown` by the dependency rules).
pub fn lint_chart(
    dir: &Path,
    shown: &str,
    user: &Value,
    opts: &LintOptions,
) -> Result<Linter, LintError> {
    if std::fs::metadata(dir.join("Chart.yaml")).is_err() {
        return Err(LintError::NotAChart {
            path: dir.join("Chart.yaml").display().to_string(),
        });
    }
    let mut linter = Linter::default();
    chartfile::lint(&mut linter, dir);
    values::lint(&mut linter, dir, user, opts.skip_schema_validation);
    templates::lint(&mut linter, dir, user, opts);
    dependencies::lint(&mut linter, dir, shown);
    crds::lint(&mut linter, dir);
    Ok(linter)
}
