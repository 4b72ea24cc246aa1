//! Errors of the package layer: a package that cannot be read or is invalid.
//!
//! Validation collects every problem of a manifest before failing, so an author fixes them in
//! one pass. Each [`Problem`] names the file, the line where it is known, the component, what is
//! wrong and what to do.

use std::fmt;
use std::path::PathBuf;

/// What is wrong with a package manifest (one entry of [`PackageError::Invalid`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProblemKind {
    /// The YAML could not be read into the manifest's shape (syntax, unknown field, wrong type).
    #[error("{message}")]
    Syntax { message: String },
    /// The manifest has no `components`.
    #[error("the package has no components; add at least one entry under `components:`")]
    NoComponents,
    /// A name that is used in release and object names is not a DNS-1123 label.
    #[error(
        "{what} {name:?} is not valid: {reason}; use lowercase letters, digits and '-', starting and ending with a letter or digit"
    )]
    BadName {
        what: &'static str,
        name: String,
        reason: String,
    },
    /// Two components have the same name.
    #[error(
        "duplicate component name {name:?} (first defined on line {first_line}); give each component a unique name"
    )]
    DuplicateComponent { name: String, first_line: u64 },
    /// Two `requires` entries name the same package.
    #[error("package {name:?} is required twice; keep one entry")]
    DuplicateRequirement { name: String },
    /// `dependsOn` names a component that does not exist.
    #[error(
        "dependsOn names {dependency:?}, which is not a component of this package; known components: {known}"
    )]
    UnknownDependency { dependency: String, known: String },
    /// `dependsOn` lists the same component twice.
    #[error("dependsOn lists {dependency:?} more than once; list it once")]
    DuplicateDependency { dependency: String },
    /// The components' `dependsOn` edges form a cycle.
    #[error("dependency cycle: {cycle}; remove one of these dependsOn entries")]
    Cycle { cycle: String },
    /// A component depends on a `PreUpgrade` hook (hooks run before everything and are removed after).
    #[error(
        "depends on {hook:?}, which is a PreUpgrade hook; hooks run before every other component and are uninstalled after the upgrade, so nothing may depend on one: remove it from dependsOn"
    )]
    DependsOnHook { hook: String },
    /// A `PreUpgrade` hook lists `dependsOn` (hooks run first, in manifest order).
    #[error(
        "is a PreUpgrade hook and lists dependsOn {dependency:?}; hooks run before every other component, in manifest order: remove dependsOn from the hook"
    )]
    HookWithDependencies { dependency: String },
    /// `install.phase` is not a known phase.
    #[error(
        "unknown install.phase {phase:?}; the phases are PreUpgrade and PreRollback (omit phase for a normal component)"
    )]
    UnknownPhase { phase: String },
    /// The chart path is absolute or leaves the package directory.
    #[error("chart path {path:?} must be relative and stay inside the package directory")]
    PathOutsidePackage { path: String },
    /// The chart path does not exist.
    #[error(
        "chart path {path:?} does not exist (looked for {resolved}); add the chart directory or .tgz to the package, or fix the path"
    )]
    ChartMissing { path: String, resolved: String },
    /// A component has both or neither of `path` and `chart`.
    #[error("{}", if *.both { "a component has either `path` (a chart in the package) or `chart` (a chart of a chart repository), not both" } else { "the component names no chart: set `path` (a chart directory or .tgz in the package) or `chart: {repository, name, version}`" })]
    PathOrChart { both: bool },
    /// `chart.repository` is not an HTTP(S) URL or an `oci://` registry repository.
    #[error(
        "chart.repository {repository:?} is not an http:// or https:// chart repository URL or an oci:// registry repository"
    )]
    BadChartRepository { repository: String },
    /// `path: oci://…` that is not `oci://host/repo/chart`, or without a `version`, or a
    /// `version` beside a path in the package.
    #[error("{0}")]
    BadOciPath(String),
    /// `chart.name` is empty or has a `/`.
    #[error(
        "chart.name {name:?} is not a chart name (the name in the repository's index, without a /)"
    )]
    BadChartName { name: String },
    /// `chart.version` is not a version or SemVer constraint.
    #[error("chart.version {version:?} is not a version or SemVer constraint ({reason})")]
    BadChartVersion { version: String, reason: String },
    /// The chart path exists but is not a chart.
    #[error("chart path {path:?} is not a chart: {reason}")]
    NotAChart { path: String, reason: String },
    /// The package version is not SemVer 2.
    #[error(
        "package version {version:?} is not SemVer 2 ({reason}); write MAJOR.MINOR.PATCH, e.g. 1.4.0"
    )]
    BadVersion { version: String, reason: String },
    /// A requirement's version constraint cannot be parsed.
    #[error(
        "requires {package:?}: version constraint {constraint:?} is not valid ({reason}); write e.g. \">=1.14.0\" or \"^1.2 || ~2.0\""
    )]
    BadConstraint {
        package: String,
        constraint: String,
        reason: String,
    },
    /// `rollback.to` cannot be parsed as a constraint.
    #[error(
        "rollback.to {constraint:?} is not a valid version constraint ({reason}); write the older versions that may run again once this one has run, e.g. \">=2.0.0\""
    )]
    BadRollbackFloor { constraint: String, reason: String },
    /// `rollback.to` beside `rollback.safe: false`, which already forbids every older version.
    #[error(
        "rollback.to {constraint:?} contradicts rollback.safe: false (which forbids every older version); keep one of them"
    )]
    RollbackFloorWithUnsafe { constraint: String },
    /// A `readyWhen` entry lacks required fields.
    #[error(
        "readyWhen[{index}] is missing {missing}; every readyWhen entry needs apiVersion, kind, name and condition"
    )]
    ReadyWhenIncomplete { index: usize, missing: String },
    /// `components[].values` is not a mapping.
    #[error(
        "values must be a mapping of chart values (got {got}); write e.g. `values: {{replicas: 2}}`"
    )]
    ValuesNotAMap { got: String },
    /// `postRenderers` that do not read (an unknown field, a patch that is not YAML, a JSON
    /// 6902 patch without a target); the reason names the entry and patch.
    #[error("{reason}")]
    PostRenderer { reason: String },
}

/// One problem found in a manifest, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The manifest file as given by the user.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// 1-based column, when known.
    pub column: Option<u64>,
    /// The component concerned, if any.
    pub component: Option<String>,
    /// What is wrong.
    pub kind: ProblemKind,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        write!(f, ": ")?;
        if let Some(c) = &self.component {
            write!(f, "component {c:?}: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

/// Failures of the package layer.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// The manifest is invalid; every problem found is listed. Nothing was applied.
    #[error("invalid package{}", render_problems(file, problems))]
    Invalid {
        file: PathBuf,
        problems: Vec<Problem>,
    },
    /// The path holds neither `kubepkg.yaml` nor `Chart.yaml`.
    #[error("{} is not a package: it has no kubepkg.yaml and no Chart.yaml; point at a package directory, a chart directory or a .tgz of one", path.display())]
    NotAPackage { path: PathBuf },
    /// The package source given does not exist (a mistyped path, or a URL, which is no
    /// package source): not an invalid package, a wrong argument.
    #[error("{}: {hint}", path.display())]
    Missing { path: PathBuf, hint: &'static str },
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A package archive is unsafe or damaged.
    #[error("cannot extract package archive {}: {reason}", path.display())]
    Archive { path: PathBuf, reason: String },
    /// `kubepkg.lock` is not the file `kubepkg package lock` writes.
    #[error("cannot read {}: {source}", path.display())]
    Lock {
        path: PathBuf,
        #[source]
        source: LockError,
    },
}

fn render_problems(file: &std::path::Path, problems: &[Problem]) -> String {
    if problems.len() == 1 {
        return format!(": {}", problems[0]);
    }
    let mut s = format!(" {}: {} problems:", file.display(), problems.len());
    for p in problems {
        s.push_str("\n  - ");
        s.push_str(&p.to_string());
    }
    s
}

/// Why `kubepkg.lock` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Not YAML: go-yaml's text, naming the line.
    #[error(transparent)]
    Yaml(#[from] kubepkg_yaml::YamlError),
    /// YAML, but not a lock: an unknown or missing field, or a value of the wrong type.
    /// (serde names the position in the JSON the YAML became, so only the reason is shown.)
    #[error("{}", shape_reason(.0))]
    Shape(#[source] serde_json::Error),
}

/// serde's message without its ` at line N column M`, a position in the JSON text.
fn shape_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rsplit_once(" at line ") {
        Some((reason, _)) if e.line() > 0 => reason.to_string(),
        _ => text,
    }
}
