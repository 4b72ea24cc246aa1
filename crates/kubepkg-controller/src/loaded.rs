//! A fetched source ([`crate::source::Fetched`]) loaded as a package with the one package
//! loader ([`kubepkg_source::package::load`], the CLI's): a Git checkout from the cache, a
//! package archive extracted, or a Flux artifact (a tree) read at its `path`. The charts of
//! `chart:` components are those `package push` vendored, else fetched by the package's
//! `kubepkg.lock` into the content cache of `paths`. Used by the reconcile and by
//! `kubepkg rollout plan`.

use std::path::PathBuf;

use kubepkg_model::Package;

use crate::problem::PackageProblem;
use crate::source::Fetched;

/// A loaded package and the scratch directory it was extracted into, removed on drop.
#[derive(Debug)]
pub struct Loaded {
    pub package: Package,
    dir: PathBuf,
}

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Loads `fetched` in the scratch directory `dir` (emptied first; removed again on failure,
/// else when the [`Loaded`] is dropped), the revision's `source` set from it.
pub async fn load(
    fetched: &Fetched,
    dir: PathBuf,
    paths: &kubepkg_source::HelmPaths,
) -> Result<Loaded, PackageProblem> {
    let _ = std::fs::remove_dir_all(&dir);
    let unpack = dir.join("pkg");
    std::fs::create_dir_all(&unpack).map_err(|source| PackageProblem::Scratch {
        dir: dir.clone(),
        source,
    })?;
    let load_error = |source| PackageProblem::Load {
        origin: fetched.origin.clone(),
        source: Box::new(source),
    };
    let options = kubepkg_source::SourceOptions::default();
    let loaded = if let Some((source, checkout)) = &fetched.git {
        kubepkg_source::package::load_checkout(source, checkout, &unpack, &options, paths)
            .await
            .map_err(load_error)
    } else {
        let archive = dir.join("package.tgz");
        match std::fs::write(&archive, &fetched.bytes) {
            Err(source) => Err(PackageProblem::Write {
                path: archive.clone(),
                source,
            }),
            // A Flux artifact is a tree: the package is the directory `subdir` of it; without
            // one, its root, or the one directory there (an OCI artifact of a package archive).
            Ok(()) => match &fetched.subdir {
                Some(subdir) => match kubepkg_model::source::extract_archive(&archive, &unpack) {
                    Ok(root) => {
                        let at = if subdir.is_empty() {
                            root
                        } else {
                            unpack.join(subdir)
                        };
                        kubepkg_source::package::load(&at, &dir.join("inner"), &options, paths)
                            .await
                            .map_err(load_error)
                    }
                    Err(e) => Err(load_error(kubepkg_source::SourceError::Package(Box::new(
                        e,
                    )))),
                },
                None => kubepkg_source::package::load(&archive, &unpack, &options, paths)
                    .await
                    .map_err(load_error),
            },
        }
    };
    match loaded {
        Ok(mut package) => {
            // A checkout records its own source (`load_checkout`); the others, what was fetched.
            if fetched.git.is_none() {
                package.source = fetched.record.clone();
            }
            Ok(Loaded { package, dir })
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            Err(e)
        }
    }
}
