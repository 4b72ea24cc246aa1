//! File trees a test writes or compares: [`write_files`] lays out files from a list (and [`tgz`]
//! packs them), [`walk`] and [`files`] read back what a command wrote.

use std::path::{Path, PathBuf};

/// Writes each `(path, contents)` of `files` under `dir` (paths relative to it), creating the
/// directories they need; panics naming the file it could not write.
pub fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (path, contents) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("creating {}: {e}", parent.display()));
        }
        std::fs::write(&path, contents)
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }
}

/// The files under `dir` and its subdirectories, in no particular order (none when `dir` does
/// not exist).
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The files under `dir` ([`walk`]), relative to it and sorted, with their bytes.
pub fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = walk(dir)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.strip_prefix(dir).unwrap().display().to_string(), bytes)
        })
        .collect();
    out.sort();
    out
}

/// A gzipped tar archive of `entries` (path in the archive, bytes), in that order: regular
/// files of mode 0644, whatever their paths or bytes say (e.g. a chart archive to be loaded).
pub fn tgz(entries: &[(&str, &[u8])]) -> Vec<u8> {
    tar_gz(|tar| {
        for (name, data) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_entry_type(tar::EntryType::Regular);
            tar.append_data(&mut h, name, *data)?;
        }
        Ok(())
    })
    .expect("an archive in memory")
}

/// A tar archive written by `fill`, gzipped (fast: tests' archives are small and many).
pub(crate) fn tar_gz(
    fill: impl FnOnce(&mut tar::Builder<flate2::write::GzEncoder<Vec<u8>>>) -> std::io::Result<()>,
) -> std::io::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    fill(&mut tar)?;
    tar.into_inner()?.finish()
}
