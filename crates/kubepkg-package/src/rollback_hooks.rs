//! `PreRollback` hooks kept in revisions (docs/rules.md#prerollback-hooks). A manual
//! `kubepkg rollback` has no package at hand, only the records in the cluster, yet the hooks
//! to run are those of the version being left: so each apply keeps its version's hooks in its
//! revision — release, values and the chart itself as a `.tgz` ([`records`]) — and a rollback
//! writes them back to disk to run them ([`prepare`]). The charts of one revision may take at
//! most [`MAX_ROLLBACK_HOOK_BYTES`] (a revision is one Secret, at most 1 MiB).

use std::path::{Path, PathBuf};

use base64::Engine as _;

use kubepkg_model::manifest::{ChartSource, Package};
use kubepkg_model::values::{UserValues, supplied};

use crate::orchestrator::PreparedHook;
use crate::revision::{MAX_ROLLBACK_HOOK_BYTES, RollbackHook};

/// Why a `PreRollback` hook could not be kept or restored.
#[derive(Debug, thiserror::Error)]
pub enum RollbackHookError {
    #[error("PreRollback hook {hook}: its chart cannot be read: {source}")]
    Chart {
        hook: String,
        #[source]
        source: kubepkg_chart::ChartError,
    },
    #[error(
        "PreRollback hooks take {bytes} bytes as archives, more than the {limit} bytes a package revision keeps (the charts of hook {hook} and those before it); keep hook charts small (a Job and its script)"
    )]
    TooLarge {
        hook: String,
        bytes: usize,
        limit: usize,
    },
    #[error("PreRollback hook {hook}: {what}: {source}")]
    Io {
        hook: String,
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("PreRollback hook {hook}: the chart kept in the revision is not base64: {reason}")]
    Corrupt { hook: String, reason: String },
}

/// The records of `package`'s `PreRollback` hooks for instance `name` in `namespace`, with the
/// values `user` gives them (no `kubepkg.*`: a rollback adds its own).
pub fn records(
    package: &Package,
    name: &str,
    namespace: &str,
    user: &UserValues,
) -> Result<Vec<RollbackHook>, RollbackHookError> {
    let mut out = Vec::new();
    let mut total = 0usize;
    for c in package.components.iter().filter(|c| c.is_pre_rollback()) {
        let chart_err = |source| RollbackHookError::Chart {
            hook: c.name.clone(),
            source,
        };
        let files = kubepkg_chart::chart::chart_files(c.chart.path()).map_err(chart_err)?;
        let archive = kubepkg_chart::archive::pack(&c.name, &files).map_err(|source| {
            RollbackHookError::Io {
                hook: c.name.clone(),
                what: "packing its chart".into(),
                source,
            }
        })?;
        total += archive.len();
        if total > MAX_ROLLBACK_HOOK_BYTES {
            return Err(RollbackHookError::TooLarge {
                hook: c.name.clone(),
                bytes: total,
                limit: MAX_ROLLBACK_HOOK_BYTES,
            });
        }
        out.push(RollbackHook {
            name: c.name.clone(),
            release: package.release_name(name, &c.name),
            namespace: c.namespace_or(namespace).to_string(),
            values: supplied(package, &c.name, user, None),
            ready_when: c.ready_when.clone(),
            chart: base64::engine::general_purpose::STANDARD.encode(&archive),
        });
    }
    Ok(out)
}

/// Writes each kept chart to `dir` (`<hook>.tgz`) and returns the hooks ready to run.
pub fn prepare(
    records: &[RollbackHook],
    dir: &Path,
) -> Result<Vec<PreparedHook>, RollbackHookError> {
    let mut out = Vec::new();
    for r in records {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&r.chart)
            .map_err(|e| RollbackHookError::Corrupt {
                hook: r.name.clone(),
                reason: e.to_string(),
            })?;
        let path: PathBuf = dir.join(format!("{}.tgz", r.name));
        std::fs::write(&path, bytes).map_err(|source| RollbackHookError::Io {
            hook: r.name.clone(),
            what: format!("writing {}", path.display()),
            source,
        })?;
        out.push(PreparedHook {
            record: r.clone(),
            chart: ChartSource::Archive(path),
        });
    }
    Ok(out)
}
