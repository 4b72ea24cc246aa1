//! A chart's `Chart.yaml` dependencies from chart repositories, as Helm's `downloader.Manager`
//! and `resolver` handle them: `dependency update` ([`update`]) resolves each constraint against
//! the cached index of the repository it names (by URL, `@name` or `alias:name`; a URL no
//! repository has gets an unmanaged `helm-manager-<sha256(url)>` index in the cache, as Helm
//! makes), downloads the archives into `charts/` (through a `tmpcharts-PID` directory, outdated
//! archives deleted) and writes `Chart.lock` (`requirements.lock` for `apiVersion: v1`) only when
//! its digest changed; `dependency build` ([`build`]) downloads what an existing lock says and
//! refuses a lock out of sync with Chart.yaml; `dependency list` ([`list`]) prints Helm's table.
//!
//! The lock's `digest` is Helm's `resolver.HashReq`: `sha256:` + the SHA-256 of Go's
//! `json.Marshal([2][]*chart.Dependency{requested, locked})` (struct field order, `omitempty`,
//! HTML characters escaped), so a lock written by either tool is in sync for the other.
//! `generated` is the time of writing (`time.Now()` in RFC 3339 with nanoseconds).
//!
//! Archives come from `kubepkg-repo` (digest-checked, through kubepkg's content cache).
//! `oci://` dependencies are resolved as Helm's resolver does them: the registry's tags of
//! `<repository>/<name>` (`_` read as `+`), the exact tag or else the newest SemVer tag the
//! constraint allows (`kubepkg_oci::version`), locked with that version; the chart is pulled
//! through `kubepkg-oci` (digest-checked, its cache) as `<name>-<version>.tgz`, as `helm
//! dependency update` names it.
//!
//! `file://` dependencies are Helm's local charts: the path after `file://` is absolute or
//! relative to the chart directory (Helm's `resolver.GetLocalPath`: joined and cleaned
//! lexically), must exist and hold a chart whose version the constraint allows; it is locked
//! with that version and packed into `charts/` as Helm's `chartutil.Save` packs it
//! (`kubepkg_chart::save::save_dir`: the same bytes, file times included;
//! [`Options::source_date_epoch`] stamps them as Helm's `SOURCE_DATE_EPOCH` does).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubepkg_chart::chart::Chart;
use kubepkg_chart::metadata::Dependency;
use kubepkg_repo::{Entry, Paths, RepoError, RepoFile};
use kubepkg_semver::{Constraints, Version};
use sha2::{Digest as _, Sha256};

/// Why a dependency operation failed. Texts are Helm's (`kubepkg` where they name a command).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DependencyError {
    #[error("could not find {}", .0.display())]
    NoChart(PathBuf),
    #[error("only unpacked charts can be updated")]
    NotADirectory,
    #[error(transparent)]
    Chart(#[from] kubepkg_chart::ChartError),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(
        "dependency {name:?}: {repository} dependencies are not supported yet (kubepkg fetches dependencies from chart repositories and OCI registries)"
    )]
    Unsupported { name: String, repository: String },
    #[error("{0}")]
    NoRepositoryDefinition(String),
    /// A `file://` dependency whose path does not exist.
    #[error("dependency {name:?} ({repository}): directory {} not found", .path.display())]
    LocalPathMissing {
        name: String,
        repository: String,
        path: PathBuf,
    },
    /// A `file://` dependency whose path is not a chart (or a chart that does not load).
    #[error("dependency {name:?} ({repository}): {} is not a chart", .path.display())]
    LocalNotAChart {
        name: String,
        repository: String,
        path: PathBuf,
        #[source]
        source: Box<kubepkg_chart::ChartError>,
    },
    /// A `file://` dependency whose chart has a version that is not SemVer.
    #[error("dependency {name:?} ({repository}): the chart at {} has an invalid version {version:?}", .path.display())]
    LocalVersion {
        name: String,
        repository: String,
        path: PathBuf,
        version: String,
    },
    /// A `file://` dependency's chart could not be packed.
    #[error("dependency {name:?} ({repository}): packing {}", .path.display())]
    LocalPack {
        name: String,
        repository: String,
        path: PathBuf,
        #[source]
        source: Box<kubepkg_chart::ChartError>,
    },
    /// A registry refused or failed a request for an `oci://` dependency.
    #[error("dependency {name:?}: {source}")]
    Registry {
        name: String,
        #[source]
        source: Box<kubepkg_oci::Error>,
    },
    #[error("no repository definition for {}. Please add the missing repos via 'kubepkg repo add'", .0.join(", "))]
    RepoNotFound(Vec<String>),
    #[error("dependency {name:?} has an invalid version/constraint format")]
    Constraint {
        name: String,
        #[source]
        source: kubepkg_semver::SemverError,
    },
    #[error("directory {} not found", .0.display())]
    NoLocalChart(PathBuf),
    #[error("no cached repository for {repo} found. (try 'kubepkg repo update')")]
    NoCachedRepository {
        repo: String,
        #[source]
        source: Box<RepoError>,
    },
    #[error("{name} chart not found in repo {url}")]
    NotInRepo { name: String, url: String },
    #[error(
        "can't get a valid version for {} subchart(s): {}. Make sure a matching chart version exists in the repo, or change the version constraint in Chart.yaml",
        .0.len(), .0.join(", ")
    )]
    NoValidVersion(Vec<String>),
    #[error(
        "the lock file ({lock}) is out of sync with the dependencies file ({deps}). Please update the dependencies with 'kubepkg dependency update'"
    )]
    OutOfSync {
        lock: &'static str,
        deps: &'static str,
    },
    #[error("could not find {url}")]
    NotFound {
        url: String,
        #[source]
        source: Box<DependencyError>,
    },
    #[error("could not download {url}")]
    Download {
        url: String,
        #[source]
        source: RepoError,
    },
    #[error("dependency {name} at version {version} does not satisfy the constraint {constraint}")]
    Unsatisfied {
        name: String,
        version: String,
        constraint: String,
    },
    #[error("the {0} file is a symlink")]
    LockIsSymlink(&'static str),
    #[error("{what} {}", .path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> DependencyError {
    let path = path.to_path_buf();
    move |source| DependencyError::Io { what, path, source }
}

/// How the repositories are reached and whether to refresh their indexes first.
#[derive(Debug, Clone)]
pub struct Options {
    pub paths: Paths,
    pub limits: kubepkg_repo::Limits,
    /// `--skip-refresh`: use the cached indexes as they are.
    pub skip_refresh: bool,
    /// The registry client of `oci://` dependencies (the registry flags, logins, cache).
    pub registry: Option<kubepkg_oci::Client>,
    /// Helm's `SOURCE_DATE_EPOCH` (seconds): the time stamped on every file of the archives
    /// packed for `file://` dependencies; `None`: the files' own modification times.
    pub source_date_epoch: Option<i64>,
}

fn is_local(repository: &str) -> bool {
    repository.starts_with("file://")
}

/// Helm's `resolver.GetLocalPath`: the directory of a `file://` dependency (absolute, or
/// joined to the chart's directory), which must exist.
fn local_path(d: &Dependency, chart_dir: &Path) -> Result<PathBuf, DependencyError> {
    let p = d.repository.trim_start_matches("file://");
    let path = if p.starts_with('/') {
        kubepkg_chart::chart::clean_path(Path::new(p))
    } else {
        kubepkg_chart::chart::clean_path(&chart_dir.join(p))
    };
    if std::fs::metadata(&path).is_err() {
        return Err(DependencyError::LocalPathMissing {
            name: d.name.clone(),
            repository: d.repository.clone(),
            path,
        });
    }
    Ok(path)
}

/// The chart of a `file://` dependency and its directory.
fn local_chart(d: &Dependency, chart_dir: &Path) -> Result<(Chart, PathBuf), DependencyError> {
    let path = local_path(d, chart_dir)?;
    let not_a_chart = |source| DependencyError::LocalNotAChart {
        name: d.name.clone(),
        repository: d.repository.clone(),
        path: path.clone(),
        source: Box::new(source),
    };
    if !path.is_dir() {
        return Err(not_a_chart(kubepkg_chart::ChartError::from(
            kubepkg_chart::ChartErrorKind::Load("not a directory".into()),
        )));
    }
    let chart = kubepkg_chart::chart::load(&path).map_err(not_a_chart)?;
    Ok((chart, path))
}

/// The SemVer version of a `file://` dependency's chart.
fn local_version(d: &Dependency, chart: &Chart, path: &Path) -> Result<Version, DependencyError> {
    Version::parse(&chart.metadata.version).map_err(|_| DependencyError::LocalVersion {
        name: d.name.clone(),
        repository: d.repository.clone(),
        path: path.to_path_buf(),
        version: chart.metadata.version.clone(),
    })
}

fn is_oci(repository: &str) -> bool {
    kubepkg_oci::reference::is_oci(repository)
}

/// The registry reference of an `oci://` dependency (`<repository>/<name>`).
fn oci_reference(d: &Dependency) -> Result<kubepkg_oci::Reference, DependencyError> {
    kubepkg_oci::Reference::parse(&format!(
        "{}/{}",
        d.repository.trim_end_matches('/'),
        d.name
    ))
    .map_err(|source| DependencyError::Registry {
        name: d.name.clone(),
        source: Box::new(source),
    })
}

fn registry<'a>(
    options: &'a Options,
    d: &Dependency,
) -> Result<&'a kubepkg_oci::Client, DependencyError> {
    options
        .registry
        .as_ref()
        .ok_or_else(|| DependencyError::Unsupported {
            name: d.name.clone(),
            repository: d.repository.clone(),
        })
}

const MANAGER_PREFIX: &str = "helm-manager-";

/// Helm's `urlutil.Equal`, as far as repository URLs go: equal but for a trailing `/`.
fn same_url(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

fn load_chart(dir: &Path) -> Result<Chart, DependencyError> {
    match std::fs::metadata(dir) {
        Err(_) => return Err(DependencyError::NoChart(dir.to_path_buf())),
        Ok(m) if !m.is_dir() => return Err(DependencyError::NotADirectory),
        Ok(_) => {}
    }
    Ok(kubepkg_chart::chart::load(dir)?)
}

fn is_legacy(chart: &Chart) -> bool {
    chart.metadata.api_version == "v1"
}

/// Helm's `resolveRepoNames`: dependency name → repository name; `@name` and `alias:name`
/// are replaced by the repository's URL in `deps`.
/// A chart's dependencies as requested, with their repositories resolved.
struct Requested {
    deps: Vec<Dependency>,
    /// The repository file they were resolved against.
    file: RepoFile,
    /// Dependency name → the name of its repository.
    names: BTreeMap<String, String>,
}

/// The chart's dependencies as requested, their repositories resolved against the user's
/// repository file.
fn requested(
    chart: &Chart,
    chart_dir: &Path,
    options: &Options,
) -> Result<Requested, DependencyError> {
    let mut deps: Vec<Dependency> = chart.metadata.deps().cloned().collect();
    let file =
        RepoFile::load_or_default(&options.paths.repository_config).map_err(RepoError::from)?;
    let names = resolve_repo_names(&mut deps, &file, chart_dir)?;
    Ok(Requested { deps, file, names })
}

fn resolve_repo_names(
    deps: &mut [Dependency],
    file: &RepoFile,
    chart_dir: &Path,
) -> Result<BTreeMap<String, String>, DependencyError> {
    let mut names = BTreeMap::new();
    let mut missing = Vec::new();
    for d in deps.iter_mut() {
        if d.repository.is_empty() {
            continue;
        }
        if is_oci(&d.repository) {
            continue;
        }
        if is_local(&d.repository) {
            local_path(d, chart_dir)?;
            continue;
        }
        let alias = d
            .repository
            .strip_prefix('@')
            .or_else(|| d.repository.strip_prefix("alias:"));
        let found = file.repositories.iter().find(|r| match alias {
            Some(a) => a == r.name,
            None => same_url(&r.url, &d.repository),
        });
        match found {
            Some(r) => {
                if alias.is_some() {
                    d.repository = r.url.clone();
                }
                names.insert(d.name.clone(), r.name.clone());
            }
            None if alias.is_none() && d.repository.contains("://") => {}
            None => missing.push(d.repository.clone()),
        }
    }
    if !missing.is_empty() {
        let mut message = format!(
            "no repository definition for {}. Please add them via 'kubepkg repo add'",
            missing.join(", ")
        );
        if missing
            .iter()
            .any(|r| !r.contains("//") && !r.starts_with('@') && !r.starts_with("alias:"))
        {
            message.push_str(
                "\nNote that repositories must be URLs or aliases. For example, to refer to the \"example\"\nrepository, use \"https://charts.example.com/\" or \"@example\" instead of\n\"example\". Don't forget to add the repo, too ('kubepkg repo add').",
            );
        }
        return Err(DependencyError::NoRepositoryDefinition(message));
    }
    Ok(names)
}

fn manager_name(url: &str) -> String {
    format!(
        "{MANAGER_PREFIX}{}",
        kubepkg_repo::hex_digest(url.as_bytes())
    )
}

/// Fetches the indexes of `entries` into the cache, printing Helm's lines; failures are
/// printed, not returned (as Helm's `parallelRepoUpdate`).
async fn refresh(entries: &[Entry], options: &Options, say: &mut dyn FnMut(String)) {
    let mut seen = std::collections::BTreeSet::new();
    for entry in entries {
        if !seen.insert(entry.url.trim_end_matches('/').to_string()) {
            continue;
        }
        let access = kubepkg_repo::Access::of_entry(entry, kubepkg_fetch_timeout(), options.limits);
        let shown = if entry.name.starts_with(MANAGER_PREFIX) {
            format!("{:?}", entry.url)
        } else {
            format!("{:?}", entry.name)
        };
        match kubepkg_repo::download_index(entry, &options.paths, &access).await {
            Ok(_) => say(format!(
                "...Successfully got an update from the {shown} chart repository"
            )),
            Err(e) if entry.name.starts_with(MANAGER_PREFIX) => say(format!(
                "...Unable to get an update from the {shown} chart repository:\n\t{}",
                report(&e)
            )),
            Err(e) => say(format!(
                "...Unable to get an update from the {shown} chart repository ({}):\n\t{}",
                entry.url,
                report(&e)
            )),
        }
    }
}

fn kubepkg_fetch_timeout() -> std::time::Duration {
    std::time::Duration::from_secs(120)
}

/// An error and its causes on one line, each once.
fn report(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = s.source();
    }
    text
}

async fn update_repositories(file: &RepoFile, options: &Options, say: &mut dyn FnMut(String)) {
    if file.repositories.is_empty() {
        return;
    }
    say("Hang tight while we grab the latest from your chart repositories...".into());
    refresh(&file.repositories, options, say).await;
    say("Update Complete. ⎈Happy Helming!⎈".into());
}

/// `dependency update CHART`.
pub async fn update(
    chart_dir: &Path,
    options: &Options,
    say: &mut dyn FnMut(String),
) -> Result<(), DependencyError> {
    let chart = load_chart(chart_dir)?;
    if !chart.metadata.dependencies_set {
        return Ok(());
    }
    let Requested {
        deps: req,
        file,
        mut names,
    } = requested(&chart, chart_dir, options)?;
    // Helm's ensureMissingRepos: an unmanaged repository for each URL no entry has.
    let mut unmanaged = Vec::new();
    for d in &req {
        if d.repository.is_empty()
            || names.contains_key(&d.name)
            || is_oci(&d.repository)
            || is_local(&d.repository)
        {
            continue;
        }
        let name = manager_name(&d.repository);
        names.insert(d.name.clone(), name.clone());
        unmanaged.push(Entry {
            name,
            url: d.repository.clone(),
            ..Entry::default()
        });
    }
    if !options.skip_refresh && !unmanaged.is_empty() {
        say("Getting updates for unmanaged Helm repositories...".into());
        refresh(&unmanaged, options, say).await;
    }
    if !options.skip_refresh {
        update_repositories(&file, options, say).await;
    }
    let mut locked = resolve(chart_dir, &req, &names, options).await?;
    download_all(chart_dir, &mut locked, &file, &unmanaged, options, say).await?;
    let digest = hash_req(&req, &locked);
    if chart.lock.as_ref().is_some_and(|l| l.digest == digest) {
        return Ok(());
    }
    write_lock(chart_dir, &digest, &locked, is_legacy(&chart))
}

/// `dependency build CHART`: the lock's versions downloaded; no lock: [`update`].
pub async fn build(
    chart_dir: &Path,
    options: &Options,
    say: &mut dyn FnMut(String),
) -> Result<(), DependencyError> {
    let chart = load_chart(chart_dir)?;
    let Some(lock) = &chart.lock else {
        return update(chart_dir, options, say).await;
    };
    let Requested {
        deps: req, file, ..
    } = requested(&chart, chart_dir, options)?;
    let mut locked: Vec<Dependency> = lock.dependencies.iter().flatten().cloned().collect();
    if hash_req(&req, &locked) != lock.digest {
        return Err(if is_legacy(&chart) {
            DependencyError::OutOfSync {
                lock: "requirements.lock",
                deps: "requirements.yaml",
            }
        } else {
            DependencyError::OutOfSync {
                lock: "Chart.lock",
                deps: "Chart.yaml",
            }
        });
    }
    let missing: Vec<String> = locked
        .iter()
        .filter(|d| !d.repository.is_empty() && !is_oci(&d.repository) && !is_local(&d.repository))
        .filter(|d| {
            !file
                .repositories
                .iter()
                .any(|r| same_url(&r.url, &d.repository))
        })
        .map(|d| d.repository.clone())
        .collect();
    if !missing.is_empty() {
        return Err(DependencyError::RepoNotFound(missing));
    }
    if !options.skip_refresh {
        update_repositories(&file, options, say).await;
    }
    download_all(chart_dir, &mut locked, &file, &[], options, say).await
}

/// Helm's `resolver.Resolve`: each dependency's newest version its constraint allows.
async fn resolve(
    chart_dir: &Path,
    req: &[Dependency],
    names: &BTreeMap<String, String>,
    options: &Options,
) -> Result<Vec<Dependency>, DependencyError> {
    let paths = &options.paths;
    let mut locked = Vec::new();
    let mut missing = Vec::new();
    for d in req {
        let constraint =
            Constraints::parse(&d.version).map_err(|source| DependencyError::Constraint {
                name: d.name.clone(),
                source,
            })?;
        if d.repository.is_empty() {
            let local = chart_dir.join("charts").join(&d.name);
            if !local.exists() {
                return Err(DependencyError::NoLocalChart(local));
            }
            locked.push(Dependency {
                name: d.name.clone(),
                version: d.version.clone(),
                ..Dependency::default()
            });
            continue;
        }
        if is_local(&d.repository) {
            let (chart, path) = local_chart(d, chart_dir)?;
            let version = local_version(d, &chart, &path)?;
            if constraint.check(&version) {
                locked.push(Dependency {
                    name: d.name.clone(),
                    repository: d.repository.clone(),
                    version: chart.metadata.version.clone(),
                    ..Dependency::default()
                });
            } else {
                missing.push(format!(
                    "{:?} (repository {:?}, version {:?})",
                    d.name, d.repository, d.version
                ));
            }
            continue;
        }
        if is_oci(&d.repository) {
            let reference = oci_reference(d)?;
            let client = registry(options, d)?;
            let registry_error = |source| DependencyError::Registry {
                name: d.name.clone(),
                source: Box::new(source),
            };
            let tags = client.list_tags(&reference).await.map_err(registry_error)?;
            match kubepkg_oci::version::resolve_tag(&reference, &tags, &d.version) {
                Ok(tag) => locked.push(Dependency {
                    name: d.name.clone(),
                    repository: d.repository.clone(),
                    version: kubepkg_oci::reference::version_of_tag(&tag),
                    ..Dependency::default()
                }),
                Err(kubepkg_oci::Error::NoMatchingTag { .. }) => missing.push(format!(
                    "{:?} (repository {:?}, version {:?})",
                    d.name, d.repository, d.version
                )),
                Err(e) => return Err(registry_error(e)),
            }
            continue;
        }
        let repo = names.get(&d.name).cloned().unwrap_or_default();
        let loaded = kubepkg_repo::load_cached_index(paths, &repo).map_err(|e| {
            DependencyError::NoCachedRepository {
                repo: repo.clone(),
                source: Box::new(e),
            }
        })?;
        let Some(versions) = loaded.index.entries.get(&d.name) else {
            return Err(DependencyError::NotInRepo {
                name: d.name.clone(),
                url: d.repository.clone(),
            });
        };
        let chosen = versions.iter().find(|v| {
            !v.urls.is_empty()
                && Version::parse(v.version()).is_ok_and(|parsed| constraint.check(&parsed))
        });
        match chosen {
            Some(v) => locked.push(Dependency {
                name: d.name.clone(),
                repository: d.repository.clone(),
                version: v.version().to_string(),
                ..Dependency::default()
            }),
            None => missing.push(format!(
                "{:?} (repository {:?}, version {:?})",
                d.name, d.repository, d.version
            )),
        }
    }
    if !missing.is_empty() {
        return Err(DependencyError::NoValidVersion(missing));
    }
    Ok(locked)
}

/// Helm's `downloadAll` and `safeMoveDeps`.
async fn download_all(
    chart_dir: &Path,
    deps: &mut [Dependency],
    file: &RepoFile,
    unmanaged: &[Entry],
    options: &Options,
    say: &mut dyn FnMut(String),
) -> Result<(), DependencyError> {
    let dest = chart_dir.join("charts");
    if dest.exists() && !dest.is_dir() {
        return Err(DependencyError::Io {
            what: "not a directory:",
            path: dest,
            source: std::io::Error::other("charts is a file"),
        });
    }
    std::fs::create_dir_all(&dest).map_err(io("creating", &dest))?;
    let tmp = chart_dir.join(format!("tmpcharts-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(io("creating", &tmp))?;
    let result = download_into(chart_dir, deps, file, unmanaged, options, say, &tmp).await;
    let moved = result.and_then(|()| move_deps(deps, &tmp, &dest, say));
    let _ = std::fs::remove_dir_all(&tmp);
    moved
}

async fn download_into(
    chart_dir: &Path,
    deps: &mut [Dependency],
    file: &RepoFile,
    unmanaged: &[Entry],
    options: &Options,
    say: &mut dyn FnMut(String),
    tmp: &Path,
) -> Result<(), DependencyError> {
    say(format!("Saving {} charts", deps.len()));
    let mut fetched = std::collections::BTreeSet::new();
    let outcome: Result<(), DependencyError> = async {
        for dep in deps.iter_mut() {
            if dep.repository.is_empty() {
                say(format!(
                    "Dependency {} did not declare a repository. Assuming it exists in the charts directory",
                    dep.name
                ));
                let path = chart_dir.join("charts").join(&dep.name);
                let sub = kubepkg_chart::chart::load(&path)?;
                let constraint =
                    Constraints::parse(&dep.version).map_err(|source| DependencyError::Constraint {
                        name: dep.name.clone(),
                        source,
                    })?;
                let ok = Version::parse(&sub.metadata.version).is_ok_and(|v| constraint.check(&v));
                if !ok {
                    return Err(DependencyError::Unsatisfied {
                        name: dep.name.clone(),
                        version: sub.metadata.version.clone(),
                        constraint: dep.version.clone(),
                    });
                }
                continue;
            }
            if is_local(&dep.repository) {
                dep.version = tar_from_local_dir(chart_dir, dep, tmp, options.source_date_epoch)?;
                continue;
            }
            if is_oci(&dep.repository) {
                let reference = oci_reference(dep)?.with_tag(&dep.version);
                let client = registry(options, dep)?;
                if !fetched.insert(reference.to_string()) {
                    say(format!(
                        "Already downloaded {} from repo {}",
                        dep.name, dep.repository
                    ));
                    continue;
                }
                say(format!("Downloading {} from repo {}", dep.name, dep.repository));
                let pulled = kubepkg_oci::chart::pull(client, &reference)
                    .await
                    .map_err(|source| DependencyError::Registry {
                        name: dep.name.clone(),
                        source: Box::new(source),
                    })?;
                let target = tmp.join(format!("{}-{}.tgz", dep.name, dep.version));
                std::fs::write(&target, &pulled.archive).map_err(io("writing", &target))?;
                continue;
            }
            let resolved = find_chart_url(dep, file, unmanaged, options).map_err(|e| {
                DependencyError::NotFound {
                    url: dep.repository.clone(),
                    source: Box::new(e),
                }
            })?;
            if !fetched.insert(resolved.url.clone()) {
                say(format!(
                    "Already downloaded {} from repo {}",
                    dep.name, dep.repository
                ));
                continue;
            }
            say(format!("Downloading {} from repo {}", dep.name, dep.repository));
            let cached = kubepkg_repo::download_chart(&resolved, &options.paths.content_cache)
                .await
                .map_err(|source| DependencyError::Download {
                    url: resolved.url.clone(),
                    source,
                })?;
            let target = tmp.join(kubepkg_repo::url::file_name(&resolved.url));
            std::fs::copy(&cached, &target).map_err(io("writing", &target))?;
        }
        Ok(())
    }
    .await;
    if let Err(e) = &outcome {
        say(format!("Save error occurred:  {}", report(e)));
    }
    outcome
}

/// Helm's `tarFromLocalDir`: the chart of a `file://` dependency packed into `dest` as
/// `chartutil.Save` packs it, when its version satisfies the locked constraint; its version.
fn tar_from_local_dir(
    chart_dir: &Path,
    dep: &Dependency,
    dest: &Path,
    source_date_epoch: Option<i64>,
) -> Result<String, DependencyError> {
    let (chart, path) = local_chart(dep, chart_dir)?;
    let constraint =
        Constraints::parse(&dep.version).map_err(|source| DependencyError::Constraint {
            name: dep.name.clone(),
            source,
        })?;
    let version = local_version(dep, &chart, &path)?;
    if !constraint.check(&version) {
        return Err(DependencyError::NoValidVersion(vec![format!(
            "{:?} (repository {:?}, version {:?})",
            dep.name, dep.repository, dep.version
        )]));
    }
    let (_, file_name, bytes) =
        kubepkg_chart::save::save_dir(&path, source_date_epoch).map_err(|source| {
            DependencyError::LocalPack {
                name: dep.name.clone(),
                repository: dep.repository.clone(),
                path: path.clone(),
                source: Box::new(source),
            }
        })?;
    let target = dest.join(file_name);
    std::fs::write(&target, bytes).map_err(io("writing", &target))?;
    Ok(chart.metadata.version)
}

/// The archive URL of `dep`'s locked version in the cached index of its repository.
fn find_chart_url(
    dep: &Dependency,
    file: &RepoFile,
    unmanaged: &[Entry],
    options: &Options,
) -> Result<kubepkg_repo::Resolved, DependencyError> {
    let entry = file
        .repositories
        .iter()
        .chain(unmanaged)
        .find(|r| same_url(&r.url, &dep.repository))
        .cloned()
        .unwrap_or_else(|| Entry {
            name: manager_name(&dep.repository),
            url: dep.repository.clone(),
            ..Entry::default()
        });
    let loaded = kubepkg_repo::load_cached_index(&options.paths, &entry.name)?;
    let versions =
        loaded
            .index
            .entries
            .get(&dep.name)
            .ok_or_else(|| DependencyError::NotInRepo {
                name: dep.name.clone(),
                url: dep.repository.clone(),
            })?;
    let wanted = Version::parse(&dep.version).ok();
    let cv = versions
        .iter()
        .filter(|v| !v.urls.is_empty())
        .find(|v| {
            dep.version.is_empty()
                || match (&wanted, Version::parse(v.version())) {
                    (Some(w), Ok(have)) => w.compare(&have).is_eq(),
                    (None, _) => v.version() == dep.version,
                    _ => false,
                }
        })
        .ok_or_else(|| DependencyError::NotInRepo {
            name: format!("{} {}", dep.name, dep.version),
            url: dep.repository.clone(),
        })?;
    Ok(kubepkg_repo::Resolved {
        url: kubepkg_repo::url::resolve_reference(&dep.repository, &cv.urls[0]),
        origin: entry.url.clone(),
        name: cv.name().to_string(),
        version: cv.version().to_string(),
        digest: (!cv.digest.is_empty()).then(|| cv.digest.clone()),
        access: kubepkg_repo::Access::of_entry(&entry, kubepkg_fetch_timeout(), options.limits),
        warnings: Vec::new(),
    })
}

fn move_deps(
    deps: &[Dependency],
    source: &Path,
    dest: &Path,
    say: &mut dyn FnMut(String),
) -> Result<(), DependencyError> {
    let local: std::collections::BTreeSet<&str> = deps
        .iter()
        .filter(|d| d.repository.is_empty())
        .map(|d| d.name.as_str())
        .collect();
    let mut moved = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(source)
        .map_err(io("reading", source))?
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            continue;
        }
        let name = entry.file_name();
        moved.insert(name.clone());
        if let Err(e) = kubepkg_chart::chart::load(&path) {
            say(format!(
                "Could not verify {} for moving: {e} (Skipping)",
                path.display()
            ));
            continue;
        }
        let target = dest.join(&name);
        if std::fs::rename(&path, &target).is_err() {
            std::fs::copy(&path, &target).map_err(io("writing", &target))?;
        }
    }
    say("Deleting outdated charts".into());
    for entry in std::fs::read_dir(dest)
        .map_err(io("reading", dest))?
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() || moved.contains(&entry.file_name()) {
            continue;
        }
        match kubepkg_chart::chart::load(&path) {
            Err(e) => say(format!(
                "Could not verify {} for deletion: {e} (Skipping)",
                path.display()
            )),
            Ok(c) if local.contains(c.metadata.name.as_str()) => {}
            Ok(_) => {
                if let Err(e) = std::fs::remove_file(&path) {
                    say(format!(
                        "Could not delete {}: {e} (Skipping)",
                        path.display()
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Helm's `resolver.HashReq`: the SHA-256 of Go's `json.Marshal` of `[requested, locked]`
/// (each an empty list, not `null`, when empty: Chart.yaml's `dependencies: []` is an empty
/// slice), the dependencies in their one JSON form (`kubepkg_chart::metadata`).
pub fn hash_req(req: &[Dependency], locked: &[Dependency]) -> String {
    let data = kubepkg_gostd::json::to_vec(&(req, locked)).expect("dependencies are always JSON");
    let digest: String = Sha256::digest(&data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{digest}")
}

/// `Chart.lock` as `yaml.Marshal(chart.Lock)` writes it, mode 0644.
fn write_lock(
    chart_dir: &Path,
    digest: &str,
    locked: &[Dependency],
    legacy: bool,
) -> Result<(), DependencyError> {
    let name = if legacy {
        "requirements.lock"
    } else {
        "Chart.lock"
    };
    let dest = chart_dir.join(name);
    if std::fs::symlink_metadata(&dest).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(DependencyError::LockIsSymlink(name));
    }
    std::fs::write(&dest, lock_yaml(digest, locked)).map_err(io("writing", &dest))
}

fn lock_yaml(digest: &str, locked: &[Dependency]) -> String {
    let lock = kubepkg_chart::metadata::Lock {
        generated: kubepkg_gostd::time::now().format(kubepkg_gostd::time::RFC3339_NANO),
        digest: digest.to_string(),
        dependencies: locked.iter().cloned().map(Some).collect(),
    };
    kubepkg_chart::save::lock_yaml(&lock).unwrap_or_default()
}

/// `dependency list CHART`: Helm's table (and warnings about archives Chart.yaml does not
/// name), as text.
pub fn list(chart_path: &Path) -> Result<String, DependencyError> {
    let chart = kubepkg_chart::chart::load(chart_path)?;
    let charts_dir = chart_path.join("charts");
    if !chart.metadata.dependencies_set {
        return Ok(format!(
            "WARNING: no dependencies at {}\n",
            charts_dir.display()
        ));
    }
    let mut rows = vec![vec![
        "NAME".to_string(),
        "VERSION".to_string(),
        "REPOSITORY".to_string(),
        "STATUS".to_string(),
    ]];
    for d in chart.metadata.deps() {
        rows.push(vec![
            d.name.clone(),
            d.version.clone(),
            d.repository.clone(),
            status(&charts_dir, d, &chart).into(),
        ]);
    }
    let mut out = kubepkg_gostd::uitable::uitable_max_width(&rows, 80);
    out.push('\n');
    let mut files: Vec<PathBuf> = std::fs::read_dir(&charts_dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    for f in files {
        if !f.is_dir() && f.extension().is_none_or(|e| e != "tgz") {
            continue;
        }
        let shown = kubepkg_gostd::strconv::quote(&f.display().to_string());
        match kubepkg_chart::chart::load(&f) {
            Err(_) => out.push_str(&format!("WARNING: {shown} is not a chart.\n")),
            Ok(c) if !chart.metadata.deps().any(|d| d.name == c.metadata.name) => {
                out.push_str(&format!("WARNING: {shown} is not in Chart.yaml.\n"))
            }
            Ok(_) => {}
        }
    }
    Ok(out)
}

fn satisfies(constraint: &str, version: &str) -> Result<bool, ()> {
    let c = Constraints::parse(constraint).map_err(|_| ())?;
    let v = Version::parse(version).map_err(|_| ())?;
    Ok(c.check(&v))
}

/// Whether the chart `found` (an archive's or an unpacked subchart's) is the version `dep`
/// asks for: exactly, or within its constraint; Helm's status text when it is not.
fn version_status(dep: &Dependency, found: &Chart) -> Option<&'static str> {
    if found.metadata.version == dep.version {
        return None;
    }
    match satisfies(&dep.version, &found.metadata.version) {
        Err(()) => Some("invalid version"),
        Ok(false) => Some("wrong version"),
        Ok(true) => None,
    }
}

fn archive_status(archive: &Path, dep: &Dependency) -> &'static str {
    let Ok(c) = kubepkg_chart::chart::load(archive) else {
        return "corrupt";
    };
    if c.metadata.name != dep.name {
        return "misnamed";
    }
    version_status(dep, &c).unwrap_or("ok")
}

/// Helm's `dependencyStatus`.
fn status(charts_dir: &Path, dep: &Dependency, parent: &Chart) -> &'static str {
    let prefix = format!("{}-", dep.name);
    let archives: Vec<PathBuf> = std::fs::read_dir(charts_dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".tgz"))
                })
                .collect()
        })
        .unwrap_or_default();
    if archives.len() == 1 {
        return archive_status(&archives[0], dep);
    }
    if archives.len() > 1 {
        let found: Vec<&PathBuf> = archives
            .iter()
            .filter(|a| {
                let stem = a.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
                let version = stem.strip_prefix(&prefix).unwrap_or_default();
                kubepkg_semver::is_strict_new_version(version)
            })
            .collect();
        match found.len() {
            1 => return archive_status(found[0], dep),
            0 => {}
            _ => return "too many matches",
        }
    }
    let Some(sub) = parent
        .dependencies
        .iter()
        .rev()
        .find(|c| c.metadata.name == dep.name)
    else {
        return "missing";
    };
    version_status(dep, sub).unwrap_or("unpacked")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_digest_is_helms_hash_req() {
        // Chart.yaml `dependencies: [{name: app, version: ">=0.1.0", repository: "http://x"}]`
        // locked at 0.2.0: Go's json.Marshal escapes '>' as \u003e.
        let req = vec![Dependency {
            name: "app".into(),
            version: ">=0.1.0".into(),
            repository: "http://x".into(),
            ..Dependency::default()
        }];
        let locked = vec![Dependency {
            version: "0.2.0".into(),
            ..req[0].clone()
        }];
        let expected = "[[{\"name\":\"app\",\"version\":\"\\u003e=0.1.0\",\"repository\":\"http://x\"}],[{\"name\":\"app\",\"version\":\"0.2.0\",\"repository\":\"http://x\"}]]";
        let digest: String = Sha256::digest(expected.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hash_req(&req, &locked), format!("sha256:{digest}"));
    }

    #[test]
    fn repositories_are_named_by_url_or_alias() {
        let mut file = RepoFile::default();
        file.update(Entry {
            name: "r".into(),
            url: "http://h/charts/".into(),
            ..Entry::default()
        });
        let mut deps = vec![
            Dependency {
                name: "a".into(),
                repository: "@r".into(),
                ..Dependency::default()
            },
            Dependency {
                name: "b".into(),
                repository: "http://h/charts".into(),
                ..Dependency::default()
            },
        ];
        let here = Path::new(".");
        let names = resolve_repo_names(&mut deps, &file, here).unwrap();
        assert_eq!(names["a"], "r");
        assert_eq!(names["b"], "r");
        assert_eq!(deps[0].repository, "http://h/charts/");
        let mut bad = vec![Dependency {
            name: "c".into(),
            repository: "stable".into(),
            ..Dependency::default()
        }];
        let e = resolve_repo_names(&mut bad, &file, here)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("no repository definition for stable. Please add them via 'kubepkg repo add'\nNote that"), "{e}");
        let mut oci = vec![Dependency {
            name: "d".into(),
            repository: "oci://reg/charts".into(),
            ..Dependency::default()
        }];
        assert!(
            resolve_repo_names(&mut oci, &file, here)
                .unwrap()
                .is_empty(),
            "a registry needs no repository entry"
        );
        let mut file_dep = vec![Dependency {
            name: "d".into(),
            repository: "file://../d".into(),
            ..Dependency::default()
        }];
        let charts = tempfile::tempdir().unwrap();
        let parent = charts.path().join("parent");
        std::fs::create_dir(&parent).unwrap();
        assert_eq!(
            resolve_repo_names(&mut file_dep, &file, &parent)
                .unwrap_err()
                .to_string(),
            format!(
                "dependency \"d\" (file://../d): directory {} not found",
                charts.path().join("d").display()
            )
        );
        std::fs::create_dir(charts.path().join("d")).unwrap();
        assert!(
            resolve_repo_names(&mut file_dep, &file, &parent)
                .unwrap()
                .is_empty(),
            "a local chart needs no repository entry"
        );
    }
}
