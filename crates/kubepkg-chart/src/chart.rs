//! The loaded chart: metadata, templates, values, schema, other files and subcharts — Helm's
//! `chart.Chart` — and loading it from a directory or an archive (`loader.Load`).

use crate::archive::{BufferedFile, Limits, load_archive_files};
use crate::error::{ChartError, ChartErrorKind, Result};
use crate::file_data::FileData;
use crate::ignore::IgnoreRules;
use crate::metadata::{Lock, Metadata};
use kubepkg_value::Value;
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file of a chart (template or other), by chart-relative slash path.
#[derive(Debug, Clone)]
pub struct ChartFile {
    pub name: String,
    /// The contents: always in memory for templates; other files are read at first use
    /// ([`FileData`]).
    pub data: FileData,
    /// The file parsed as a template, kept by the first render and shared by every clone of
    /// the chart, so that a chart loaded once is parsed once however often it is rendered
    /// ([`crate::render`]).
    pub parsed: ParsedTemplate,
}

impl ChartFile {
    /// A file with these contents (not parsed yet).
    pub fn new(name: impl Into<String>, data: impl Into<FileData>) -> ChartFile {
        ChartFile {
            name: name.into(),
            data: data.into(),
            parsed: ParsedTemplate::default(),
        }
    }
}

/// What parsing a template file gave: its trees or Go's parse error, by the name it was
/// parsed as (a hit also needs the same `data`, so a file whose contents were replaced is
/// parsed again).
#[derive(Clone, Default)]
pub struct ParsedTemplate(Arc<std::sync::Mutex<Option<ParsedEntry>>>);

type ParsedEntry = (
    Arc<str>,
    Arc<[u8]>,
    std::result::Result<Arc<kubepkg_template::ParsedFile>, kubepkg_template::ParseError>,
);

impl ParsedTemplate {
    /// The parse of `data` as `name`, from the cache or made by `parse` and kept.
    pub fn get_or_parse(
        &self,
        name: &str,
        data: &Arc<[u8]>,
        parse: impl FnOnce() -> std::result::Result<
            kubepkg_template::ParsedFile,
            kubepkg_template::ParseError,
        >,
    ) -> std::result::Result<Arc<kubepkg_template::ParsedFile>, kubepkg_template::ParseError> {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((n, d, r)) = &*slot
            && **n == *name
            && Arc::ptr_eq(d, data)
        {
            return r.clone();
        }
        let r = parse().map(Arc::new);
        *slot = Some((Arc::from(name), data.clone(), r.clone()));
        r
    }
}

impl std::fmt::Debug for ParsedTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParsedTemplate")
    }
}

/// A chart and its subcharts.
#[derive(Debug, Clone)]
pub struct Chart {
    pub metadata: Metadata,
    pub lock: Option<Lock>,
    pub templates: Vec<ChartFile>,
    /// `values.yaml` (an empty map when absent).
    pub values: Value,
    pub schema: Option<Arc<[u8]>>,
    /// Every other file (`.Files`), including `crds/`, `README.md`, `requirements.yaml` (v1).
    pub files: Vec<ChartFile>,
    pub dependencies: Vec<Chart>,
}

impl Chart {
    /// The chart's name (`Chart.yaml` `name`, or the alias it was given).
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// Whether this is a library chart.
    pub fn is_library(&self) -> bool {
        self.metadata.chart_type == "library"
    }

    /// Files under `crds/` with a manifest extension, with their chart-qualified names
    /// (`parent/charts/sub/crds/x.yaml`), this chart's first then its dependencies'.
    pub fn crd_objects(&self, full_path: &str) -> Vec<(String, Arc<[u8]>)> {
        let mut out = Vec::new();
        for f in &self.files {
            if f.name.starts_with("crds/") && has_manifest_extension(&f.name) {
                out.push((format!("{full_path}/{}", f.name), f.data.bytes().clone()));
            }
        }
        for d in &self.dependencies {
            out.extend(d.crd_objects(&format!("{full_path}/charts/{}", d.name())));
        }
        out
    }
}

fn has_manifest_extension(name: &str) -> bool {
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    let ext = if name.rsplit('/').next().is_some_and(|b| b.contains('.')) {
        ext
    } else {
        ""
    };
    ext.eq_ignore_ascii_case("yaml")
        || ext.eq_ignore_ascii_case("yml")
        || ext.eq_ignore_ascii_case("json")
}

/// Load a chart from a directory or a `.tgz` archive (`loader.Load`). Errors name `path`
/// ([`ChartError::path`]).
pub fn load(path: &Path) -> Result<Chart> {
    load_any(path).map_err(|e| e.in_chart(path))
}

fn load_any(path: &Path) -> Result<Chart> {
    let meta = std::fs::metadata(path).map_err(|e| ChartError::io(path, e))?;
    if meta.is_dir() {
        load_dir(path)
    } else {
        let raw = std::fs::read(path).map_err(|e| ChartError::io(path, e))?;
        // Helm names the archive by its absolute path (LocateChart).
        let shown = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        load_archive(&raw, &shown.display().to_string())
    }
}

/// Load a chart archive from its bytes.
pub fn load_archive(raw: &[u8], origin: &str) -> Result<Chart> {
    let files = load_archive_files(raw, origin, &Limits::default())?;
    load_files(files)
}

/// Load a chart directory, honouring `.helmignore`; symbolic links are followed as Helm does.
pub fn load_dir(dir: &Path) -> Result<Chart> {
    load_files(dir_files(dir)?)
}

/// A chart of a package, loaded with its `file://` dependencies: [`load`], and for a chart
/// directory each `repository: file://PATH` dependency that `charts/` does not hold is loaded
/// from `PATH` (absolute, or relative to the chart directory, as Helm's
/// `resolver.GetLocalPath` resolves it) as if `dependency update` had packed it there
/// (recursively: the local chart's own `file://` dependencies too). A path that does not
/// exist or holds no chart is an error naming the dependency and the path.
pub fn load_with_local_dependencies(path: &Path) -> Result<Chart> {
    if !path.is_dir() {
        return load(path);
    }
    load_files(files_with_local_dependencies(path)?).map_err(|e| e.in_chart(path))
}

/// The files of the chart directory `dir` (as [`dir_files`]) plus, under `charts/NAME/`, the
/// files of each `file://` dependency `charts/` does not hold (see
/// [`load_with_local_dependencies`]): what a chart pushed or rendered from a package holds.
pub fn files_with_local_dependencies(dir: &Path) -> Result<Vec<BufferedFile>> {
    local_dependency_files(dir, 0)
}

fn local_dependency_files(dir: &Path, depth: usize) -> Result<Vec<BufferedFile>> {
    let mut files = dir_files(dir).map_err(|e| e.in_chart(dir))?;
    let chart = load_files(files.clone()).map_err(|e| e.in_chart(dir))?;
    let mut added = std::collections::BTreeSet::new();
    for d in chart.metadata.deps() {
        let Some(p) = d.repository.strip_prefix("file://") else {
            continue;
        };
        if chart.dependencies.iter().any(|c| c.name() == d.name) || !added.insert(d.name.clone()) {
            continue;
        }
        let local = clean_path(&if p.starts_with('/') {
            PathBuf::from(p)
        } else {
            dir.join(p)
        });
        let fail = |what: String| {
            ChartError::from(ChartErrorKind::Chart(format!(
                "dependency {:?} ({}): {what}",
                d.name, d.repository
            )))
        };
        if !local.exists() {
            return Err(fail(format!("directory {} not found", local.display())));
        }
        if depth > 16 {
            return Err(fail(
                "file:// dependencies nested too deeply (a cycle?)".into(),
            ));
        }
        let sub = local_dependency_files(&local, depth + 1)
            .map_err(|e| fail(format!("{} is not a chart: {e}", local.display())))?;
        files.extend(sub.into_iter().map(|f| BufferedFile {
            name: format!("charts/{}/{}", d.name, f.name),
            data: f.data,
        }));
    }
    Ok(files)
}

/// Go's `filepath.Clean`, lexically (the one copy: `file://` dependency paths are cleaned with
/// it by the loader and by `kubepkg-dependency`).
pub fn clean_path(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) => {}
                _ => out.push(c),
            },
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// The files of a chart directory as the loader reads them (`.helmignore` honoured, links
/// followed, the archive size limit applied), chart-relative paths.
pub fn dir_files(dir: &Path) -> Result<Vec<BufferedFile>> {
    Ok(dir_files_timed(dir)?.into_iter().map(|(f, _)| f).collect())
}

/// A file's modification time: seconds and nanoseconds since the Unix epoch; `None` is Go's
/// zero time (no time known).
pub type ModTime = Option<(i64, u32)>;

/// [`dir_files`] with each file's modification time (seconds and nanoseconds since the Unix
/// epoch, `None` where the system has none), as Helm's directory loader records them
/// (`BufferedFile.ModTime`) for `chartutil.Save`.
pub fn dir_files_timed(dir: &Path) -> Result<Vec<(BufferedFile, ModTime)>> {
    let top = std::path::absolute(dir).map_err(|e| ChartError::io(dir, e))?;
    let mut rules = IgnoreRules::default();
    let ignore_file = top.join(".helmignore");
    if ignore_file.exists() {
        let text =
            std::fs::read_to_string(&ignore_file).map_err(|e| ChartError::io(&ignore_file, e))?;
        rules = IgnoreRules::parse(&text).map_err(|e| {
            ChartError::from(ChartErrorKind::Load(format!(
                "{}: {e}",
                ignore_file.display()
            )))
        })?;
    }
    rules.add_defaults();
    let mut files = Vec::new();
    let max = Limits::default().max_total;
    let spread = Walk {
        rules: &rules,
        budget: Budget::new(max),
        spread: true,
    };
    if spread.dir(&top, "", &mut files, 0).is_err() {
        // Exactly the error the walk in order stops at (threads may have met another first).
        files.clear();
        let in_order = Walk {
            rules: &rules,
            budget: Budget::new(max),
            spread: false,
        };
        in_order.dir(&top, "", &mut files, 0)?;
    }
    Ok(files)
}

/// What a walk may still read of a chart's size limit, shared by the walk's threads.
struct Budget(std::sync::atomic::AtomicU64);

impl Budget {
    fn new(max: u64) -> Budget {
        Budget(std::sync::atomic::AtomicU64::new(max))
    }

    /// Takes `len` bytes off what is left; false, taking nothing, where less is left.
    fn take(&self, len: u64) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.0
            .fetch_update(Relaxed, Relaxed, |left| left.checked_sub(len))
            .is_ok()
    }
}

/// Whether the walk is in a `charts/` directory: its entries are subcharts (directories or
/// archives), read spread over the cores.
fn holds_subcharts(rel: &str) -> bool {
    rel == "charts" || rel.ends_with("/charts")
}

/// The files of the chart at `path` (a directory or a `.tgz`), as the loader reads them.
pub fn chart_files(path: &Path) -> Result<Vec<BufferedFile>> {
    let meta = std::fs::metadata(path).map_err(|e| ChartError::io(path, e))?;
    if meta.is_dir() {
        return dir_files(path).map_err(|e| e.in_chart(path));
    }
    let raw = std::fs::read(path).map_err(|e| ChartError::io(path, e))?;
    load_archive_files(&raw, &path.display().to_string(), &Limits::default())
}

/// One walk of a chart directory: its `.helmignore` rules, what it may still read, and whether
/// `charts/` directories are read spread over the cores.
struct Walk<'r> {
    rules: &'r IgnoreRules,
    budget: Budget,
    spread: bool,
}

/// One entry of a directory the walk lists: its name and what its directory entry says it is.
struct Entry {
    name: std::ffi::CString,
    kind: rustix::fs::FileType,
}

impl Walk<'_> {
    /// The files under `dir` (named `rel/…`), each directory's entries in name order, into `out`.
    ///
    /// Each entry is measured, checked and opened relative to its directory's descriptor
    /// (`fstatat`, `faccessat`, `openat`: rustix, as `std` has none of them), not by its whole
    /// path again: on a chart of a few hundred files that is a third of the walk's time.
    fn dir(
        &self,
        dir: &Path,
        rel: &str,
        out: &mut Vec<(BufferedFile, ModTime)>,
        depth: usize,
    ) -> Result<()> {
        use rustix::fs::{Dir, Mode, OFlags};
        if depth > 64 {
            return Err(ChartError::from(ChartErrorKind::Load(format!(
                "{}: directories nested too deeply (a symbolic link loop?)",
                dir.display()
            ))));
        }
        let io = |e: rustix::io::Errno| ChartError::io(dir, e.into());
        let fd = rustix::fs::open(
            dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(io)?;
        let mut listing = Dir::new(fd).map_err(io)?;
        let mut entries = Vec::new();
        while let Some(e) = listing.read() {
            let e = e.map_err(io)?;
            let name = e.file_name();
            if !matches!(name.to_bytes(), b"." | b"..") {
                entries.push(Entry {
                    name: name.to_owned(),
                    kind: e.file_type(),
                });
            }
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let at = Within {
            fd: listing.fd().map_err(io)?,
            dir,
        };
        if self.spread && holds_subcharts(rel) {
            let parts = kubepkg_parallel::map_in_order(&entries, SUBCHARTS_IN_PARALLEL, |e| {
                let mut part = Vec::new();
                self.entry(&at, e, rel, &mut part, depth).map(|()| part)
            })
            .map_err(|(_, e): (usize, ChartError)| e)?;
            out.extend(parts.into_iter().flatten());
            return Ok(());
        }
        for e in &entries {
            self.entry(&at, e, rel, out, depth)?;
        }
        Ok(())
    }

    /// One entry of a directory [`Walk::dir`] reads: a directory walked, a file read (or
    /// measured and checked readable, to be read at first use), or an ignored one skipped.
    fn entry(
        &self,
        at: &Within<'_>,
        e: &Entry,
        rel: &str,
        out: &mut Vec<(BufferedFile, ModTime)>,
        depth: usize,
    ) -> Result<()> {
        use rustix::fs::{Access, AtFlags, FileType, Mode, OFlags};
        let (rules, budget) = (self.rules, &self.budget);
        let os_name = std::ffi::OsStr::from_bytes(e.name.to_bytes());
        let name = os_name.to_string_lossy();
        let n = if rel.is_empty() {
            name.into_owned()
        } else {
            format!("{rel}/{name}")
        };
        // Its whole path only where it is kept or named (a file read now keeps none).
        let path = || at.dir.join(os_name);
        let io = |err: rustix::io::Errno| ChartError::io(path(), err.into());
        // Follow symbolic links like Helm's sympath.Walk: a link is measured through (the one
        // measure its file keeps). The directory entry says what the others are (where the file
        // system does not, the entry itself is measured).
        let measure = || rustix::fs::statat(at.fd, &e.name, AtFlags::empty()).map_err(io);
        let own = match e.kind {
            FileType::Unknown => FileType::from_raw_mode(
                rustix::fs::statat(at.fd, &e.name, AtFlags::SYMLINK_NOFOLLOW)
                    .map_err(io)?
                    .st_mode,
            ),
            kind => kind,
        };
        let (kind, followed) = if own == FileType::Symlink {
            // A link that does not resolve fails the load as Helm's walk fails it.
            let target = measure().map_err(|_| {
                ChartError::from(ChartErrorKind::Load(format!(
                    "error evaluating symlink {}: {}",
                    path().display(),
                    eval_symlinks_error(&path())
                )))
            })?;
            (FileType::from_raw_mode(target.st_mode), Some(target))
        } else {
            (own, None)
        };
        if kind == FileType::Directory {
            if rules.ignored(&n, true) {
                return Ok(());
            }
            return self.dir(&path(), &n, out, depth + 1);
        }
        if rules.ignored(&n, false) {
            return Ok(());
        }
        if kind != FileType::RegularFile {
            return Err(ChartError::from(ChartErrorKind::Load(format!(
                "cannot load irregular file {} as it has file mode type bits set",
                path().display()
            ))));
        }
        // Its size first: one too large fails as too large even where it cannot be read, as
        // in Helm.
        let stat = match followed {
            Some(target) => target,
            None => measure()?,
        };
        let len = u64::try_from(stat.st_size).unwrap_or(0);
        if !budget.take(len) {
            return Err(ChartError::from(ChartErrorKind::Load(format!(
                "error reading {n}: chart exceeds maximum decompressed size of {} bytes",
                Limits::default().max_total
            ))));
        }
        let data = if read_at_load(&n, len) {
            let file = rustix::fs::openat(
                at.fd,
                &e.name,
                OFlags::RDONLY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(io)?;
            FileData::new(
                crate::file_data::read_open(std::fs::File::from(file), len)
                    .map_err(|err| ChartError::io(path(), err))?,
            )
        } else {
            // Checked readable (a file Helm cannot read fails here, as in Helm), read at first
            // use.
            rustix::fs::accessat(at.fd, &e.name, Access::READ_OK, AtFlags::EACCESS).map_err(io)?;
            FileData::on_disk(path())
        };
        // Seconds and nanoseconds since the epoch; none before it (as `SystemTime` gives them).
        let nanos = u32::try_from(stat.st_mtime_nsec).unwrap_or(0);
        let mtime = (stat.st_mtime >= 0).then_some((stat.st_mtime, nanos));
        out.push((BufferedFile { name: n, data }, mtime));
        Ok(())
    }
}

/// The directory a walk's entry is in: its open descriptor and its path.
struct Within<'d> {
    fd: rustix::fd::BorrowedFd<'d>,
    dir: &'d Path,
}

/// Whether the walk reads the file `name` (a path in a chart directory) of `len` bytes while it
/// has it open: what the loader needs to build the chart — `Chart.yaml`, the lock and
/// requirements files, values and their schema, of the chart and of each subchart directory
/// under `charts/`, and whatever lies directly in a `charts/` directory (subchart archives) —
/// and templates up to [`EAGER_TEMPLATE_BYTES`] (read now: opening them again to parse them
/// costs more than reading them). Larger templates (CRDs) are read when the render parses them,
/// so a subchart its condition disables, or a chart that fails its dependency check, never reads
/// them; `.Files` and `crds/` are read at first use ([`FileData`]).
fn read_at_load(name: &str, len: u64) -> bool {
    let mut rest = name;
    while let Some(inside) = rest.strip_prefix("charts/") {
        match inside.split_once('/') {
            Some((_, within_subchart)) => rest = within_subchart,
            None => return true,
        }
    }
    is_chart_definition(rest) || (rest.starts_with("templates/") && len <= EAGER_TEMPLATE_BYTES)
}

/// The size up to which a template is read while the walk has it open ([`read_at_load`]).
const EAGER_TEMPLATE_BYTES: u64 = 32 * 1024;

/// Whether `name` (chart-relative) is one of the files the loader reads into the chart itself
/// rather than `.Files`: `Chart.yaml`, `Chart.lock`, `values.yaml`, `values.schema.json` and
/// the v1 `requirements.yaml`/`requirements.lock`.
pub(crate) fn is_chart_definition(name: &str) -> bool {
    matches!(
        name,
        "Chart.yaml"
            | "Chart.lock"
            | "values.yaml"
            | "values.schema.json"
            | "requirements.yaml"
            | "requirements.lock"
    )
}

/// A chart's YAML file as text; bytes that are not UTF-8 are refused as Helm refuses them.
fn yaml_text(f: &BufferedFile) -> std::result::Result<&str, kubepkg_yaml::YamlError> {
    kubepkg_yaml::text(&f.data)
}

/// Helm's loader error for its file `name`.
fn cannot_load<E: std::fmt::Display>(name: &str) -> impl Fn(E) -> ChartError + '_ {
    move |e| ChartError::from(ChartErrorKind::Load(format!("cannot load {name}: {e}")))
}

/// One of the chart's YAML files (`f`) read as a value, errors worded as the loader's.
fn load_yaml(f: &BufferedFile) -> Result<Value> {
    yaml_text(f)
        .and_then(kubepkg_yaml::from_yaml_str)
        .map_err(cannot_load(&f.name))
}

/// The number of subcharts from which reading and loading them is spread over the cores (each
/// is files read and YAML parsed: hundreds of microseconds).
const SUBCHARTS_IN_PARALLEL: usize = 4;

/// Build a chart from its files (`loader.LoadFiles`).
pub fn load_files(files: Vec<BufferedFile>) -> Result<Chart> {
    let mut metadata: Option<Metadata> = None;
    for f in &files {
        if f.name == "Chart.yaml" {
            let v = load_yaml(f)?;
            let v = crate::metadata::restore_float_text(&v, yaml_text(f).unwrap_or_default());
            let mut md = Metadata::decode(&v).map_err(cannot_load(&f.name))?;
            if md.api_version.is_empty() {
                md.api_version = "v1".into();
            }
            metadata = Some(md);
        }
    }
    let mut chart = Chart {
        metadata: Metadata::default(),
        lock: None,
        templates: Vec::new(),
        values: Value::empty_map(),
        schema: None,
        files: Vec::new(),
        dependencies: Vec::new(),
    };
    let mut subcharts: BTreeMap<String, Vec<BufferedFile>> = BTreeMap::new();
    // Each file moves into the chart (its name and contents are not copied).
    let to_file = |f: BufferedFile| ChartFile::new(f.name, f.data);
    for f in files {
        match f.name.as_str() {
            "Chart.yaml" => {}
            "Chart.lock" => {
                chart.lock = Some(Lock::decode(&load_yaml(&f)?).map_err(cannot_load(&f.name))?);
            }
            "values.yaml" => {
                chart.values =
                    kubepkg_yaml::load_values_bytes(&f.data).map_err(cannot_load(&f.name))?;
            }
            "values.schema.json" => chart.schema = Some(f.data.bytes().clone()),
            "requirements.yaml" => {
                let md = metadata.get_or_insert_with(Metadata::default);
                if md.api_version != "v1" {
                    // Helm's loader says it with `log.Print`: level INFO under Helm 4's logger.
                    kubepkg_gostd::slog::log(kubepkg_gostd::slog::Record::info(
                        "Warning: Dependencies are handled in Chart.yaml since apiVersion \"v2\". We recommend migrating dependencies to Chart.yaml.",
                    ));
                }
                md.merge(&load_yaml(&f)?).map_err(cannot_load(&f.name))?;
                if md.api_version == "v1" {
                    chart.files.push(to_file(f));
                }
            }
            "requirements.lock" => {
                chart.lock = Some(Lock::decode(&load_yaml(&f)?).map_err(cannot_load(&f.name))?);
                let md = metadata.get_or_insert_with(Metadata::default);
                if md.api_version == "v1" {
                    chart.files.push(to_file(f));
                }
            }
            n if n.starts_with("templates/") => chart.templates.push(to_file(f)),
            n if n.starts_with("charts/") => {
                if n.ends_with(".prov") {
                    chart.files.push(to_file(f));
                    continue;
                }
                let rest = &n["charts/".len()..];
                let cname = rest.split('/').next().unwrap_or(rest).to_string();
                subcharts.entry(cname).or_default().push(BufferedFile {
                    name: rest.to_string(),
                    data: f.data,
                });
            }
            _ => chart.files.push(to_file(f)),
        }
    }
    let Some(mut md) = metadata else {
        return Err(ChartError::from(ChartErrorKind::Load(
            "Chart.yaml file is missing".into(),
        )));
    };
    md.validate()
        .map_err(|e| ChartError::from(ChartErrorKind::Validation(e)))?;
    chart.metadata = md;
    let subcharts: Vec<(String, Vec<BufferedFile>)> = subcharts
        .into_iter()
        .filter(|(n, _)| !n.starts_with('_') && !n.starts_with('.'))
        .collect();
    // The subcharts are loaded spread over the cores, then taken in order: the first that
    // fails is still the one Helm names.
    let loaded = kubepkg_parallel::map_in_order(&subcharts, SUBCHARTS_IN_PARALLEL, |(n, files)| {
        if !n.ends_with(".tgz") {
            let inner: Vec<BufferedFile> = files
                .iter()
                .filter_map(|f| {
                    f.name.split_once('/').map(|(_, rest)| BufferedFile {
                        name: rest.to_string(),
                        data: f.data.clone(),
                    })
                })
                .collect();
            return load_files(inner).map_err(Some);
        }
        // An archive must be named as its directory entry (`None`: it is not).
        let file = &files[0];
        if file.name != *n {
            return Err(None);
        }
        load_archive(&file.data, &format!("charts/{n}")).map_err(Some)
    })
    .map_err(|(i, e)| {
        let (n, files) = &subcharts[i];
        ChartError::from(ChartErrorKind::Load(match e {
            Some(e) => format!("error unpacking subchart {n} in {}: {e}", chart.name()),
            None => format!(
                "error unpacking subchart tar in {}: expected {n}, got {}",
                chart.name(),
                files[0].name
            ),
        }))
    })?;
    chart.dependencies.extend(loaded);
    Ok(chart)
}

/// Why Go's `filepath.EvalSymlinks(path)` fails for a link that does not resolve: `lstat P:
/// REASON` for the first path P, with the links before it followed, that cannot be measured
/// (Go's `walkSymlinks`: each component in turn, `..` going up, a link's target put in its
/// place, from the root when absolute), or `EvalSymlinks: too many links`.
fn eval_symlinks_error(path: &Path) -> String {
    use std::path::Component;
    let mut todo: Vec<std::ffi::OsString> = Vec::new();
    let push = |todo: &mut Vec<std::ffi::OsString>, p: &Path| {
        for c in p.components().rev() {
            todo.push(match c {
                Component::ParentDir => "..".into(),
                Component::CurDir | Component::RootDir | Component::Prefix(_) => continue,
                Component::Normal(n) => n.to_os_string(),
            });
        }
    };
    let mut dest = PathBuf::from(if path.is_absolute() { "/" } else { "" });
    push(&mut todo, path);
    let mut links = 0;
    while let Some(c) = todo.pop() {
        if c == ".." {
            dest.pop();
            continue;
        }
        let next = dest.join(&c);
        match std::fs::symlink_metadata(&next) {
            Err(e) => {
                return format!(
                    "lstat {}: {}",
                    next.display(),
                    crate::error::go_io_reason(&e)
                );
            }
            Ok(m) if m.file_type().is_symlink() => {
                links += 1;
                if links > 255 {
                    return "EvalSymlinks: too many links".into();
                }
                match std::fs::read_link(&next) {
                    Ok(target) => {
                        if target.is_absolute() {
                            dest = PathBuf::from("/");
                        }
                        push(&mut todo, &target);
                    }
                    Err(e) => {
                        return format!(
                            "readlink {}: {}",
                            next.display(),
                            crate::error::go_io_reason(&e)
                        );
                    }
                }
            }
            Ok(m) if !m.is_dir() && !todo.is_empty() => return "not a directory".into(),
            Ok(_) => dest = next,
        }
    }
    // Everything resolved after all (the link was repaired meanwhile): the kernel's answer.
    std::fs::metadata(path).err().map_or_else(
        || "no such file or directory".into(),
        |e| {
            format!(
                "stat {}: {}",
                path.display(),
                crate::error::go_io_reason(&e)
            )
        },
    )
}
