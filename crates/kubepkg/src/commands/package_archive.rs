//! `kubepkg package save oci://… [--version V] -o pkg.tar` and `kubepkg package load pkg.tar
//! oci://MIRROR/REPO[/NAME]`: a package (and its cosign signature, when the registry has one)
//! moved between registries through a file, as an OCI image layout in a tar
//! (`kubepkg_oci::layout`). `package save DIR|PKG.tgz` lays out a local package: the artifact
//! `package push` would send (`package_oci::artifact`, `kubepkg_oci::package::assemble`). `load` talks only to the target registry; the tar is read through
//! the one archive reader (`kubepkg_chart::archive::read_tar_entries`: links refused, entry
//! count and sizes capped) and every blob's digest is checked before anything is pushed.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use kubepkg_chart::archive::{BufferedFile, Limits as ArchiveLimits};
use kubepkg_oci::Reference;

use crate::cli::{PackageLoadArgs, PackageSaveArgs};
use crate::exit::Exit;
use crate::settings::Settings;

/// At most this many entries in a layout tar.
const MAX_ENTRIES: usize = 10_000;
/// A layout tar may hold this many times the blob cap in all.
const TOTAL_BLOBS: u64 = 4;

pub async fn save(args: PackageSaveArgs, settings: &Settings) -> Result<Exit> {
    if !kubepkg_oci::reference::is_oci(&args.reference) {
        return save_local(args, settings).await;
    }
    let repo = Reference::parse(&args.reference)?;
    let client = kubepkg_source::oci::client(&args.access.options(), &settings.paths)?;
    let saved = async {
        let resolved = kubepkg_oci::resolve(&client, &repo, args.version.as_deref()).await?;
        kubepkg_oci::layout::save(&client, &resolved).await
    }
    .await?;
    write_layout(&saved.layout, &args.output)?;
    let shown = saved.reference.to_string();
    println!(
        "Saved: {} to {}",
        shown.trim_start_matches(kubepkg_oci::reference::SCHEME),
        args.output.display()
    );
    println!("Digest: {}", saved.digest);
    for s in &saved.signatures {
        println!("With: {s}");
    }
    Ok(Exit::Succeeded)
}

/// `package save DIR|PKG.tgz`: the artifact `package push` would send, laid out without a
/// registry (its charts of repositories vendored from the lock, as push vendors them).
async fn save_local(args: PackageSaveArgs, settings: &Settings) -> Result<Exit> {
    let path = Path::new(&args.reference);
    if !path.exists() {
        bail!(
            "{}: no such package directory or archive; give a package directory, a package .tgz or oci://HOST/REPO/NAME",
            args.reference
        );
    }
    if let Some(v) = &args.version {
        bail!(
            "{}: --version {v} is for a package in a registry (oci://…); a local package is saved at the version its kubepkg.yaml names",
            args.reference
        );
    }
    let scratch = super::package::scratch_dir()?;
    let artifact =
        super::package_oci::artifact(path, &args.access.options(), settings, &scratch).await?;
    let assembled = kubepkg_oci::package::assemble(&artifact)?;
    write_layout(&kubepkg_oci::layout::of_assembled(&assembled), &args.output)?;
    println!(
        "Saved: {} {} ({}) to {}",
        artifact.name,
        artifact.version,
        args.reference,
        args.output.display()
    );
    println!("Digest: {}", assembled.digest);
    Ok(Exit::Succeeded)
}

/// The layout's files as an uncompressed tar, written to `output` through a rename.
fn write_layout(layout: &kubepkg_oci::layout::Layout, output: &Path) -> Result<()> {
    let files: Vec<BufferedFile> = layout
        .files()
        .into_iter()
        .map(|(name, data)| BufferedFile {
            name,
            data: data.into(),
        })
        .collect();
    let tar = kubepkg_chart::archive::write_tar(&files).context("writing the layout")?;
    write_atomically(output, &tar)
}

pub async fn load(args: PackageLoadArgs, settings: &Settings) -> Result<Exit> {
    let shown = args.archive.display().to_string();
    let oci_limits = kubepkg_oci::Limits::from_env()?;
    let limits = ArchiveLimits {
        max_total: oci_limits.max_blob_bytes.saturating_mul(TOTAL_BLOBS),
        max_file_size: oci_limits.max_blob_bytes,
        max_files: MAX_ENTRIES,
        max_ratio: u64::MAX,
    };
    let size = std::fs::metadata(&args.archive)
        .with_context(|| format!("reading {shown}"))?
        .len();
    if size > limits.max_total.saturating_add(1 << 20) {
        bail!(
            "{shown}: {size} bytes is above the limit of {} bytes ({TOTAL_BLOBS} times {}); raise {} if it is expected",
            limits.max_total,
            kubepkg_oci::limits::BLOB_ENV,
            kubepkg_oci::limits::BLOB_ENV
        );
    }
    let raw = std::fs::read(&args.archive).with_context(|| format!("reading {shown}"))?;
    let files = kubepkg_chart::archive::read_tar_entries(&raw, &limits, "package", entry_name)
        .map_err(|reason| {
            let hint = if reason.contains("larger than") {
                format!(
                    "; raise {} if it is expected",
                    kubepkg_oci::limits::BLOB_ENV
                )
            } else {
                String::new()
            };
            anyhow!("{shown}: {reason}{hint}; nothing was pushed")
        })?;
    let layout = kubepkg_oci::layout::Layout::from_files(
        &shown,
        files.into_iter().map(|f| (f.name, f.data.to_vec())),
    )?;
    let (_, config) = layout.package(&shown)?;
    let mut repo = Reference::parse(&args.remote)?;
    if repo.tag.is_some() || repo.digest.is_some() {
        bail!(
            "{}: load into a repository without a tag or digest; the saved tags are kept",
            args.remote
        );
    }
    if repo.name() != config.name {
        repo = repo.join(&config.name);
    }
    let client = kubepkg_source::oci::client(&args.access.options(), &settings.paths)?;
    let loaded = kubepkg_oci::layout::push(&client, &repo, &layout).await?;
    for (i, (reference, digest)) in loaded.pushed.iter().enumerate() {
        let shown = reference.to_string();
        let shown = shown.trim_start_matches(kubepkg_oci::reference::SCHEME);
        if i == 0 {
            println!("Pushed: {shown}");
            println!("Digest: {digest}");
        } else {
            println!("With: {shown}");
        }
    }
    Ok(Exit::Succeeded)
}

/// A layout entry's name: `./` dropped; absolute paths and `..` refused.
fn entry_name(raw: &str) -> std::result::Result<String, String> {
    if raw.starts_with('/') || raw.contains('\\') {
        return Err(format!(
            "the layout contains an illegal path {raw:?} (absolute, or with backslashes)"
        ));
    }
    let clean = kubepkg_chart::archive::clean_path(raw);
    if clean == ".." || clean.starts_with("../") {
        return Err(format!("the layout contains a path outside it ({raw:?})"));
    }
    Ok(clean)
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = dir.join(format!(".kubepkg-save-{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            anyhow!("writing {}: {e}", path.display())
        })
}
