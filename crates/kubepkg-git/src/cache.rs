//! The checkout cache, keyed by commit: `<cache>/git/checkouts/<commit>-<hash of path>/`
//! holds the package directory's files (`package/`) and the Git tree id of that directory
//! (`tree`). An entry is written whole into a scratch directory and renamed into place, so a
//! reader sees a complete one or none; the same commit and path are never fetched twice.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use gix::bstr::ByteSlice;
use sha2::{Digest, Sha256};

use crate::{Checkout, GitError, GitSource, Options};

const TREE_FILE: &str = "tree";
const PACKAGE_DIR: &str = "package";

fn entry_dir(cache: &Path, commit: &str, path: &str) -> PathBuf {
    let key: String = Sha256::digest(path.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    cache
        .join("git")
        .join("checkouts")
        .join(format!("{commit}-{key}"))
}

/// A directory under `<cache>/git/tmp/` no one else uses.
pub(crate) fn scratch_dir(cache: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    cache.join("git").join("tmp").join(format!(
        "{}-{nanos}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ))
}

/// The cached checkout of `path` at `commit`, if there is one.
pub(crate) fn lookup(cache: &Path, commit: &str, path: &str, name: &str) -> Option<Checkout> {
    let dir = entry_dir(cache, commit, path);
    let tree = std::fs::read_to_string(dir.join(TREE_FILE)).ok()?;
    let package = dir.join(PACKAGE_DIR);
    package.is_dir().then(|| Checkout {
        dir: package,
        commit: commit.to_string(),
        tree: tree.trim().to_string(),
        reference: name.to_string(),
    })
}

/// Writes the directory `source.path` of `commit` (fetched into `repo`) into the cache.
pub(crate) fn store(
    repo: &gix::Repository,
    commit: gix::ObjectId,
    source: &GitSource,
    name: &str,
    options: &Options,
    text: &str,
) -> Result<Checkout, GitError> {
    let failed = |source: gix::Error| GitError::Fetch {
        source_text: text.to_string(),
        source,
    };
    let commit_hex = commit.to_string();
    let mut tree = repo
        .find_commit(commit)
        .and_then(|c| c.tree())
        .map_err(failed)?;
    let not_found = || GitError::PathNotFound {
        source_text: text.to_string(),
        commit: commit_hex.clone(),
        path: source.path.clone(),
    };
    if !source.path.is_empty() {
        let entry = tree
            .peel_to_entry_by_path(&source.path)
            .map_err(failed)?
            .ok_or_else(not_found)?;
        if !entry.mode().is_tree() {
            return Err(not_found());
        }
        tree = repo.find_tree(entry.object_id()).map_err(failed)?;
    }
    let has_manifest = tree
        .find_entry("kubepkg.yaml")
        .is_some_and(|e| e.mode().is_blob());
    if !has_manifest {
        return Err(GitError::NotAPackage {
            source_text: text.to_string(),
            commit: commit_hex,
            where_: if source.path.is_empty() {
                "the repository's root".to_string()
            } else {
                format!("directory {:?}", source.path)
            },
        });
    }
    let tree_id = tree.id.to_string();
    let scratch = scratch_dir(&options.cache);
    let result = (|| {
        let mut budget = Budget {
            left: options.limits.max_bytes,
            limit: options.limits.max_bytes,
            text,
        };
        let package = scratch.join(PACKAGE_DIR);
        write_tree(repo, &tree, &package, "", &commit_hex, &mut budget)?;
        write(&scratch.join(TREE_FILE), tree_id.as_bytes())?;
        let target = entry_dir(&options.cache, &commit_hex, &source.path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|source| GitError::Io {
                what: "creating",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        // Another fetch of the same commit may have put it there first: keep that one.
        if std::fs::rename(&scratch, &target).is_err() && !target.join(TREE_FILE).is_file() {
            return Err(GitError::Io {
                what: "moving the checkout into",
                path: target,
                source: std::io::Error::other("rename failed"),
            });
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result?;
    lookup(&options.cache, &commit_hex, &source.path, name).ok_or_else(|| GitError::Io {
        what: "reading the checkout in",
        path: entry_dir(&options.cache, &commit_hex, &source.path),
        source: std::io::Error::from(std::io::ErrorKind::NotFound),
    })
}

/// What the package's files may still take.
struct Budget<'a> {
    left: u64,
    limit: u64,
    text: &'a str,
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), GitError> {
    std::fs::write(path, bytes).map_err(|source| GitError::Io {
        what: "writing",
        path: path.to_path_buf(),
        source,
    })
}

fn write_tree(
    repo: &gix::Repository,
    tree: &gix::Tree<'_>,
    dir: &Path,
    prefix: &str,
    commit: &str,
    budget: &mut Budget<'_>,
) -> Result<(), GitError> {
    let failed = |source: gix::Error| GitError::Fetch {
        source_text: budget.text.to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(|source| GitError::Io {
        what: "creating",
        path: dir.to_path_buf(),
        source,
    })?;
    let entries: Vec<_> = tree
        .iter()
        .map(|e| e.map(|e| (e.filename().to_owned(), e.mode(), e.object_id())))
        .collect::<Result<_, _>>()
        .map_err(failed)?;
    for (name, mode, id) in entries {
        let name = name.to_str_lossy().into_owned();
        let shown = format!("{prefix}{name}");
        // Git refuses such names in a checkout; a package never has them.
        if name.is_empty() || name == "." || name == ".." || name.contains('/') {
            continue;
        }
        let unsupported = |what| GitError::Unsupported {
            source_text: budget.text.to_string(),
            commit: commit.to_string(),
            file: shown.clone(),
            what,
        };
        if mode.is_tree() {
            let sub = repo.find_tree(id).map_err(failed)?;
            write_tree(
                repo,
                &sub,
                &dir.join(&name),
                &format!("{shown}/"),
                commit,
                budget,
            )?;
        } else if mode.is_link() {
            return Err(unsupported("symbolic link"));
        } else if mode.is_commit() {
            return Err(unsupported("submodule"));
        } else {
            let blob = repo.find_blob(id).map_err(failed)?;
            let size = blob.data.len() as u64;
            if size > budget.left {
                return Err(GitError::TooLarge {
                    source_text: budget.text.to_string(),
                    what: "package's files",
                    limit: budget.limit,
                    variable: crate::MAX_BYTES_ENV,
                });
            }
            budget.left -= size;
            write(&dir.join(&name), &blob.data)?;
        }
    }
    Ok(())
}
