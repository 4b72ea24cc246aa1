//! The content-addressed local cache: every manifest and blob pulled is stored under its
//! digest (`<root>/blobs/sha256/<hex>`, root `<kubepkg cache>/oci`, the
//! cache being `$KUBEPKG_CACHE_DIR` or `~/.cache/kubepkg`) after its digest was checked, written to a temporary file in the same
//! directory and renamed, so a reader never sees half an entry; a second pull of the same
//! digest transfers nothing.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::error::Error;

/// The cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// A cache rooted at `root` (its `blobs/sha256/` holds the entries).
    pub fn new(root: impl Into<PathBuf>) -> Cache {
        Cache { root: root.into() }
    }

    /// The cache's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the entry of `digest` lives (whether or not it is there).
    pub fn path_of(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
        self.root.join("blobs/sha256").join(hex)
    }

    /// The cached content of `digest`, if present. An entry whose content no longer matches
    /// its name (damaged on disk) is removed and reported absent.
    pub fn get(&self, digest: &str) -> Result<Option<Vec<u8>>, Error> {
        let path = self.path_of(digest);
        match std::fs::read(&path) {
            Ok(bytes) => {
                if sha256_digest(&bytes) == digest {
                    Ok(Some(bytes))
                } else {
                    let _ = std::fs::remove_file(&path);
                    Ok(None)
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("reading cache entry", path)(e)),
        }
    }

    /// Stores `bytes`, already checked to be `digest`'s content: temporary file, then rename.
    pub fn put(&self, digest: &str, bytes: &[u8]) -> Result<(), Error> {
        let path = self.path_of(digest);
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        std::fs::create_dir_all(&dir).map_err(Error::io("creating cache directory", &dir))?;
        let tmp = dir.join(format!(
            ".tmp-{}-{}",
            std::process::id(),
            TMP_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::io("writing cache entry", path.clone())(e)
        })
    }
}

static TMP_COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// `sha256:<hex>` of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in Sha256::digest(bytes) {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_then_get_by_digest_and_a_damaged_entry_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let d = sha256_digest(b"hello");
        assert_eq!(cache.get(&d).unwrap(), None);
        cache.put(&d, b"hello").unwrap();
        assert_eq!(cache.get(&d).unwrap().as_deref(), Some(&b"hello"[..]));
        std::fs::write(cache.path_of(&d), b"tampered").unwrap();
        assert_eq!(cache.get(&d).unwrap(), None);
        assert!(!cache.path_of(&d).exists());
        let leftovers: Vec<_> = std::fs::read_dir(cache.path_of(&d).parent().unwrap())
            .unwrap()
            .collect();
        assert!(leftovers.is_empty(), "no temporary files left");
    }
}
