//! A rollout's past digests and how each ended (`status.history`, `kubepkg rollout history`):
//! a bounded list, oldest first, the current digest last.

use serde::{Deserialize, Serialize};

/// How many digests `status.history` keeps.
pub const KEPT: usize = 10;

/// One digest the rollout rolled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub digest: String,
    /// The package version its clusters were given (as their Packages report it), once known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The rollout's last phase with this digest: how it ended, once superseded.
    pub phase: String,
    /// When it was first seen (RFC 3339).
    pub started: String,
    /// When it was superseded by the next digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded: Option<String>,
}

/// `entries` with the current digest's phase and version (a new entry when the digest is new,
/// the one before it marked superseded `now`), at most [`KEPT`] of them.
pub fn record(
    mut entries: Vec<Entry>,
    digest: &str,
    version: Option<&str>,
    phase: &str,
    now: &str,
) -> Vec<Entry> {
    match entries.last_mut() {
        Some(last) if last.digest == digest => {
            last.phase = phase.to_string();
            if let Some(v) = version {
                last.version = Some(v.to_string());
            }
        }
        _ => {
            if let Some(last) = entries.last_mut() {
                last.superseded = Some(now.to_string());
            }
            entries.push(Entry {
                digest: digest.to_string(),
                version: version.map(str::to_string),
                phase: phase.to_string(),
                started: now.to_string(),
                superseded: None,
            });
        }
    }
    let over = entries.len().saturating_sub(KEPT);
    entries.drain(..over);
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_digest_once_the_last_one_current_at_most_kept() {
        let h = record(Vec::new(), "d1", None, "Progressing", "t1");
        let h = record(h, "d1", Some("1.0.0"), "Succeeded", "t2");
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].version.as_deref(), Some("1.0.0"));
        assert_eq!(h[0].started, "t1");
        // A version not known any more (the clusters went back) keeps the one recorded.
        let h = record(h, "d1", None, "Succeeded", "t3");
        assert_eq!(h[0].version.as_deref(), Some("1.0.0"));
        let h = record(h, "d2", None, "Progressing", "t4");
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].phase, "Succeeded");
        assert_eq!(h[0].superseded.as_deref(), Some("t4"));
        assert_eq!(h[1].superseded, None);
        let mut h = h;
        for n in 3..20 {
            h = record(h, &format!("d{n}"), None, "Halted", "t");
        }
        assert_eq!(h.len(), KEPT);
        assert_eq!(h.last().unwrap().digest, "d19");
        assert_eq!(h[0].digest, "d10");
    }
}
