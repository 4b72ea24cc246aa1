//! `kubepkg package push PKG oci://HOST/REPO[/NAME]` and `kubepkg package pull oci://… --version
//! V`: a package as one OCI artifact (`kubepkg_oci::package`: kubepkg.yaml, each component's
//! chart as a Helm chart layer, and the package archive), and [`locate`], which `plan` and
//! `apply` call for an `oci://` package before the one package loader reads it. `--sign KEY`
//! signs the pushed digest (`commands/sign.rs`); `--verify-key` verifies it before the pull.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use kubepkg_model::manifest::ChartSource;

use crate::cli::{PackagePullArgs, PackagePushArgs, RegistryAccessArgs, VerifyArgs};
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn push(args: PackagePushArgs, settings: &Settings) -> Result<Exit> {
    // Read (and its password asked) before anything is pushed.
    let key = super::sign::push_key(&args.sign)?;
    let scratch = super::package::scratch_dir()?;
    let artifact = artifact(&args.package, &args.access.options(), settings, &scratch).await?;
    let name = artifact.name.clone();
    let mut repo = kubepkg_oci::Reference::parse(&args.remote)?;
    if repo.tag.is_some() || repo.digest.is_some() {
        bail!(
            "{}: push into a repository without a tag or digest; the package's version is the tag",
            args.remote
        );
    }
    if repo.name() != name {
        repo = repo.join(&name);
    }
    let client = kubepkg_source::oci::client(&args.access.options(), &settings.paths)?;
    let pushed = kubepkg_oci::package::push(&client, &repo, &artifact).await?;
    super::sign::pushed(&client, &pushed.reference, &pushed.digest, key.as_ref()).await?;
    Ok(Exit::Succeeded)
}

/// The artifact `package push` sends for the package at `package_path` (a directory or
/// `.tgz`): kubepkg.yaml, each component's chart (directories packed as `helm package` packs
/// them, repository charts vendored from the lock, [`vendor`]) and the package
/// archive. `package save` of a local package lays out the same artifact.
pub(super) async fn artifact(
    package_path: &Path,
    options: &kubepkg_source::SourceOptions,
    settings: &Settings,
    scratch: &crate::scratch::Scratch,
) -> Result<kubepkg_oci::package::PackageArtifact> {
    let mut package = kubepkg_model::source::load(package_path, scratch.path())?;
    let name = package.meta.name.clone();
    let version = package.meta.version.to_string();
    // Charts of repositories and registries go into the artifact ([`vendor`]).
    let vendored = vendor(&mut package, options, settings, scratch.path()).await?;
    let archive = if let Some(dir) = &vendored {
        tar_gz(dir, &name)?
    } else if package_path.is_dir() {
        tar_gz(package_path, &name)?
    } else {
        std::fs::read(package_path)
            .with_context(|| format!("reading {}", package_path.display()))?
    };
    let manifest_path = package.root.join(kubepkg_model::manifest::MANIFEST_FILE);
    let manifest = if package.bare_chart {
        std::fs::read(package.root.join("Chart.yaml"))
    } else {
        std::fs::read(&manifest_path)
    }
    .with_context(|| format!("reading {}", manifest_path.display()))?;
    let mut charts = Vec::new();
    for c in &package.components {
        let (file, bytes) = match &c.chart {
            ChartSource::Archive(p) => (
                p.file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                std::fs::read(p).with_context(|| format!("reading {}", p.display()))?,
            ),
            ChartSource::Directory(p) => {
                // As `helm package` makes it: the files the loader reads (.helmignore honoured).
                let files = kubepkg_chart::chart::dir_files(p)?;
                let chart = kubepkg_chart::chart::load_files(files.clone())?;
                let m = &chart.metadata;
                let archive = kubepkg_chart::archive::pack(&m.name, &files)
                    .with_context(|| format!("packing {}", p.display()))?;
                (format!("{}-{}.tgz", m.name, m.version), archive)
            }
            ChartSource::Repository(r) => bail!(
                "component {}: its chart comes from the repository {} ({} {}); package push does not vendor repository charts yet: copy the chart into the package (`path:`) first",
                c.name,
                r.repository,
                r.name,
                r.version
            ),
        };
        charts.push((c.name.clone(), file, bytes));
    }
    Ok(kubepkg_oci::package::PackageArtifact {
        name,
        version,
        manifest,
        charts,
        archive,
        source: None,
        created: None,
    })
}

pub async fn pull(args: PackagePullArgs, settings: &Settings) -> Result<Exit> {
    let located = locate(
        &args.reference,
        args.version.as_deref(),
        &args.access,
        &args.verify,
        settings,
    )
    .await?;
    std::fs::create_dir_all(&args.destination)
        .with_context(|| format!("creating {}", args.destination.display()))?;
    let file = located
        .path
        .file_name()
        .context("the pulled package has no file name")?;
    let target = args.destination.join(file);
    std::fs::copy(&located.path, &target)
        .with_context(|| format!("writing {}", target.display()))?;
    println!(
        "Pulled: {}",
        located
            .origin
            .reference
            .trim_start_matches(kubepkg_oci::reference::SCHEME)
    );
    println!(
        "Digest: {}",
        located.origin.digest.as_deref().unwrap_or_default()
    );
    Ok(Exit::Succeeded)
}

/// The package archive `reference` (`oci://…`) names at `version`, pulled into the cache
/// (its cosign signature verified first with `--verify-key`).
pub async fn locate(
    reference: &str,
    version: Option<&str>,
    access: &RegistryAccessArgs,
    verify: &VerifyArgs,
    settings: &Settings,
) -> Result<kubepkg_source::oci::LocatedPackage> {
    let options = kubepkg_source::SourceOptions {
        verify_keys: verify.verify_keys.clone(),
        ..access.options()
    };
    Ok(kubepkg_source::oci::locate_package(reference, version, &options, &settings.paths).await?)
}

/// `dir` as a `.tgz` under the top-level directory `top`, as `helm package` lays it out:
/// entries sorted, fixed modes and times (the one archive writer, `kubepkg_chart::archive::pack`),
/// so the same directory gives the same bytes.
pub(super) fn tar_gz(dir: &Path, top: &str) -> Result<Vec<u8>> {
    let mut paths = Vec::new();
    collect(dir, dir, &mut paths)?;
    paths.sort();
    let mut files = Vec::with_capacity(paths.len());
    for rel in paths {
        let path = dir.join(&rel);
        let data = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        files.push(kubepkg_chart::archive::BufferedFile {
            name: rel.to_string_lossy().replace('\\', "/"),
            data: data.into(),
        });
    }
    kubepkg_chart::archive::pack(top, &files).context("writing the archive")
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .with_context(|| format!("reading {}", path.display()))?;
        if kind.is_dir() {
            collect(root, &path, out)?;
        } else if kind.is_file() {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

/// `package push` of a package with `chart:` (or `path: oci://…`) components: fetches the
/// charts its `kubepkg.lock` names (refused when it has none or it no longer matches
/// kubepkg.yaml, as `plan` refuses), turns those components into the fetched archives (so the
/// artifact's chart layers hold them), and returns a copy of the package directory with the
/// charts added under `vendor/charts/` for the package archive, so the installed package never
/// needs the chart repository or registry. `None` when nothing is to be vendored.
pub(super) async fn vendor(
    package: &mut kubepkg_model::Package,
    options: &kubepkg_source::SourceOptions,
    settings: &Settings,
    scratch: &Path,
) -> Result<Option<std::path::PathBuf>> {
    use kubepkg_model::manifest::ChartSource;
    if !package
        .components
        .iter()
        .any(|c| matches!(c.chart, ChartSource::Repository(_)))
    {
        return Ok(None);
    }
    let before: Vec<bool> = package
        .components
        .iter()
        .map(|c| matches!(c.chart, ChartSource::Repository(_)))
        .collect();
    kubepkg_source::package::fetch_locked(package, options, &settings.paths).await?;
    let copy = scratch.join(".vendored").join(&package.meta.name);
    copy_dir(&package.root, &copy)?;
    let vendor = copy.join(kubepkg_model::lock::VENDOR_DIR);
    std::fs::create_dir_all(&vendor).with_context(|| format!("creating {}", vendor.display()))?;
    for (c, was_remote) in package.components.iter().zip(before) {
        if !was_remote {
            continue;
        }
        let path = c.chart.path();
        let file = path
            .file_name()
            .with_context(|| format!("component {}: the fetched chart has no file name", c.name))?;
        std::fs::copy(path, vendor.join(file))
            .with_context(|| format!("vendoring {} into the package", path.display()))?;
    }
    Ok(Some(copy))
}

/// Copies the regular files and directories under `from` to `to` (links are not followed:
/// a package directory's files only).
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry.with_context(|| format!("reading {}", from.display()))?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}
