//! Size caps on what a registry may send ([limits.md](../../../docs/limits.md)): a manifest
//! (or tag list, or token answer) above `KUBEPKG_OCI_MAX_MANIFEST_BYTES` (default 4 MiB, the
//! distribution registry's own manifest limit) and a blob above `KUBEPKG_OCI_MAX_BLOB_BYTES`
//! (default 256 MiB) are refused before they are read past the cap.

/// The caps in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of one manifest, tag list page or token answer.
    pub max_manifest_bytes: u64,
    /// Bytes of one blob (a chart archive, a package's kubepkg.yaml, a config).
    pub max_blob_bytes: u64,
}

/// The environment variable raising [`Limits::max_manifest_bytes`].
pub const MANIFEST_ENV: &str = "KUBEPKG_OCI_MAX_MANIFEST_BYTES";
/// The environment variable raising [`Limits::max_blob_bytes`].
pub const BLOB_ENV: &str = "KUBEPKG_OCI_MAX_BLOB_BYTES";

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_manifest_bytes: 4 << 20,
            max_blob_bytes: 256 << 20,
        }
    }
}

impl Limits {
    /// The defaults, each replaced by its environment variable when set: a whole number of
    /// bytes (`_` separators allowed); anything else is an error naming the variable.
    pub fn from_env() -> Result<Limits, crate::Error> {
        let d = Limits::default();
        let read = |name: &'static str, default: u64| match std::env::var(name) {
            Err(_) => Ok(default),
            Ok(v) if v.trim().is_empty() => Ok(default),
            Ok(v) => v
                .trim()
                .replace('_', "")
                .parse::<u64>()
                .map_err(|_| crate::Error::BadLimit {
                    variable: name,
                    value: v.clone(),
                }),
        };
        Ok(Limits {
            max_manifest_bytes: read(MANIFEST_ENV, d.max_manifest_bytes)?,
            max_blob_bytes: read(BLOB_ENV, d.max_blob_bytes)?,
        })
    }
}
