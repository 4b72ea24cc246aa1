//! `kubepkg package pack DIR...`: a chart directory to `NAME-VERSION.tgz` as `helm package`
//! writes it (the entries of `kubepkg_chart::save::archive_entries`: Helm's order, re-written
//! Chart.yaml, subcharts unpacked; `--version`, `--app-version`, `-d`), or a package directory
//! (kubepkg.yaml) to the package archive `package push` publishes.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cli::PackagePackArgs;
use crate::exit::Exit;

pub fn run(args: PackagePackArgs) -> Result<Exit> {
    let dest = if args.destination == Path::new(".") {
        std::env::current_dir().context("reading the working directory")?
    } else {
        args.destination.clone()
    };
    for p in &args.paths {
        std::fs::metadata(p).with_context(|| format!("stat {}", p.display()))?;
        let written = if p.join(kubepkg_model::manifest::MANIFEST_FILE).is_file() {
            let out = pack_package(p, &dest)?;
            println!(
                "Successfully packaged package and saved it to: {}",
                out.display()
            );
            continue;
        } else {
            pack_chart(p, &dest, &args)?
        };
        println!(
            "Successfully packaged chart and saved it to: {}",
            written.display()
        );
    }
    Ok(Exit::Succeeded)
}

fn pack_chart(dir: &Path, dest: &Path, args: &PackagePackArgs) -> Result<PathBuf> {
    let files = kubepkg_chart::chart::dir_files(dir)?;
    let chart = kubepkg_chart::chart::load_files(files.clone())?;
    let version = args.version.as_deref().unwrap_or(&chart.metadata.version);
    // Helm's `validateVersion`: Masterminds' error text.
    kubepkg_chart::semver::Version::parse(version)?;
    let deps: Vec<&str> = chart.metadata.deps().map(|d| d.name.as_str()).collect();
    let missing: Vec<&str> = deps
        .iter()
        .copied()
        .filter(|n| !chart.dependencies.iter().any(|d| d.name() == *n))
        .collect();
    if !missing.is_empty() {
        bail!(
            "found in Chart.yaml, but missing in charts/ directory: {}",
            missing.join(", ")
        );
    }
    let (md, entries) = kubepkg_chart::save::archive_entries(
        files,
        args.version.as_deref(),
        args.app_version.as_deref(),
    )?;
    let bytes = kubepkg_chart::save::pack_entries(&entries).context("writing the archive")?;
    write(dest, &format!("{}-{}.tgz", md.name, md.version), &bytes)
}

fn pack_package(dir: &Path, dest: &Path) -> Result<PathBuf> {
    let scratch = super::package::scratch_dir()?;
    let package = kubepkg_model::source::load(dir, scratch.path())?;
    drop(scratch);
    let name = package.meta.name.clone();
    let bytes = super::package_oci::tar_gz(dir, &name)?;
    write(
        dest,
        &format!("{name}-{}.tgz", package.meta.version),
        &bytes,
    )
}

fn write(dest: &Path, file: &str, bytes: &[u8]) -> Result<PathBuf> {
    match std::fs::metadata(dest) {
        Ok(m) if !m.is_dir() => bail!("is not a directory: {}", dest.display()),
        Ok(_) => {}
        Err(_) => {
            std::fs::create_dir_all(dest).with_context(|| format!("creating {}", dest.display()))?
        }
    }
    let path = dest.join(file);
    std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}
