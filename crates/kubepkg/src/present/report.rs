//! What the CLI prints about packages: the summary of a run, the `status`, `history` and
//! `list` tables. Plain functions over plain data, so their output is pinned by tests. (A
//! progress line is the event's own text, its `Display`; exit codes are `crate::exit`'s.)

use std::fmt::Write as _;

use super::style::{Palette, Role};
use kubepkg_package::conditions;
use kubepkg_package::instance::ComponentState;
use kubepkg_package::orchestrator::Outcome;
use kubepkg_package::revision::Reason;
use kubepkg_package::revision::{History, PackageRevision};

/// The summary printed at the end of an apply or rollback, its reason in `palette`'s colour
/// of it (`Succeeded` green, `RolledBack` yellow, the failures red).
pub fn outcome_text(o: &Outcome, palette: Palette) -> String {
    let role = match o.reason {
        Reason::Succeeded => Role::Good,
        Reason::RolledBack => Role::Waiting,
        Reason::UpgradeFailed
        | Reason::InstallFailed
        | Reason::RequirementsNotMet
        | Reason::UpgradeRefused => Role::Bad,
    };
    let reason = palette.paint(role, o.reason.as_str());
    let mut s = format!("{reason}: {}\n", o.message);
    for w in &o.warnings {
        let _ = writeln!(s, "{} {w}", palette.paint(Role::Waiting, "Warning:"));
    }
    s
}

/// The lines every view of a revision starts with (`UPDATED` when `updated`).
fn header(rev: &PackageRevision, updated: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "NAME: {}", rev.name);
    let _ = writeln!(s, "NAMESPACE: {}", rev.namespace);
    let _ = writeln!(s, "PACKAGE: {} {}", rev.package, rev.version);
    if let Some(source) = &rev.source {
        let _ = writeln!(s, "SOURCE: {source}");
    }
    let _ = writeln!(s, "REVISION: {}", rev.revision);
    if updated {
        let _ = writeln!(s, "UPDATED: {}", ansic(&rev.last_deployed));
    }
    let _ = writeln!(s, "STATUS: {}", rev.status.as_str());
    if let Some(reason) = rev.reason {
        let _ = writeln!(s, "REASON: {}", reason.as_str());
    }
    if !rev.description.is_empty() {
        let _ = writeln!(s, "DESCRIPTION: {}", rev.description);
    }
    s
}

/// `kubepkg status NAME`.
pub fn status_text(rev: &PackageRevision, components: &[ComponentState]) -> String {
    let mut s = header(rev, false);
    // kstatus: the recorded conditions, or what a not-ready component says now.
    let not_ready = components.iter().find(|c| !c.ready).map(|c| {
        format!(
            "component {}: {}",
            c.name,
            c.waiting_for.as_deref().unwrap_or("not ready")
        )
    });
    let conditions = conditions::live(rev, not_ready.as_deref());
    let _ = writeln!(s, "KSTATUS: {}", conditions::summary(&conditions).as_str());
    let _ = writeln!(s, "CONDITIONS:");
    let rows = rows_of(&["TYPE", "STATUS", "REASON", "MESSAGE"], &conditions, |c| {
        vec![
            c.type_.clone(),
            c.status.clone(),
            c.reason.clone(),
            c.message.lines().next().unwrap_or("").to_string(),
        ]
    });
    s.push_str(&table(&rows, "  "));
    let _ = writeln!(s, "COMPONENTS:");
    let rows = rows_of(
        &[
            "COMPONENT",
            "RELEASE",
            "NAMESPACE",
            "REVISION",
            "READY",
            "WAITING FOR",
        ],
        components,
        |c| {
            let mut row = component_cells(&c.name, &c.release, &c.namespace, c.revision);
            row.push(if c.ready { "yes" } else { "no" }.to_string());
            row.push(c.waiting_for.clone().unwrap_or_default());
            row
        },
    );
    s.push_str(&table(&rows, "  "));
    s
}

/// `kubepkg status NAME --revision N`: one recorded revision as it was kept — its state, its
/// description (for a failure, what failed: unready objects, their pods, events, a hook's log),
/// the verdicts its hooks gave, and its components as recorded (not checked live).
pub fn revision_text(rev: &PackageRevision) -> String {
    let mut s = header(rev, true);
    if !rev.hook_verdicts.is_empty() {
        let _ = writeln!(s, "VERDICTS:");
        for v in &rev.hook_verdicts {
            let _ = writeln!(s, "  {}: {v}", v.hook);
        }
    }
    let _ = writeln!(s, "COMPONENTS (as recorded):");
    let rows = rows_of(
        &["COMPONENT", "RELEASE", "NAMESPACE", "REVISION", "CHART"],
        &rev.components,
        |c| {
            let mut row = component_cells(&c.name, &c.release, &c.namespace, c.revision);
            row.push(c.chart.clone());
            row
        },
    );
    s.push_str(&table(&rows, "  "));
    s
}

/// The cells every components table starts with: the component, its release, namespace and
/// revision.
fn component_cells(name: &str, release: &str, namespace: &str, revision: u64) -> Vec<String> {
    vec![
        name.into(),
        release.into(),
        namespace.into(),
        revision.to_string(),
    ]
}

/// A record's RFC 3339 time as Helm's `history` and `status` print times: Go's `time.ANSIC` in
/// the local zone (`-o json|yaml` keep RFC 3339).
fn ansic(rfc3339: &str) -> String {
    kubepkg_gostd::time::local_of_rfc3339(rfc3339)
        .map(|t| t.format(kubepkg_gostd::time::ANSIC))
        .unwrap_or_else(|| rfc3339.to_string())
}

/// `kubepkg history NAME`, oldest first, as `helm history` lays it out.
pub fn history_text(h: &History) -> String {
    let rows = rows_of(
        &[
            "REVISION",
            "UPDATED",
            "STATUS",
            "PACKAGE",
            "VERSION",
            "DESCRIPTION",
        ],
        &h.revisions,
        |r| {
            vec![
                r.revision.to_string(),
                ansic(&r.last_deployed),
                r.status.as_str().to_string(),
                r.package.clone(),
                r.version.clone(),
                // One line per revision, as `helm history` (details: `kubepkg package status`).
                r.description.lines().next().unwrap_or("").to_string(),
            ]
        },
    );
    // Packages pulled from a registry: a SOURCE column (`oci://…:tag@digest`) after the rest.
    let mut rows = rows;
    if h.revisions.iter().any(|r| r.source.is_some()) {
        rows[0].push("SOURCE".into());
        for (row, r) in rows[1..].iter_mut().zip(&h.revisions) {
            row.push(r.source.as_ref().map(|s| s.to_string()).unwrap_or_default());
        }
    }
    table(&rows, "\t")
}

/// `kubepkg package list`: the latest revision of each package, laid out as `helm list`.
pub fn list_text(latest: &[PackageRevision]) -> String {
    let rows = rows_of(
        &[
            "NAME",
            "NAMESPACE",
            "REVISION",
            "UPDATED",
            "STATUS",
            "PACKAGE",
            "VERSION",
        ],
        latest,
        |r| {
            vec![
                r.name.clone(),
                r.namespace.clone(),
                r.revision.to_string(),
                kubepkg_gostd::time::local_of_rfc3339(&r.last_deployed)
                    .map(|t| t.string())
                    .unwrap_or_else(|| r.last_deployed.clone()),
                r.status.as_str().to_string(),
                r.package.clone(),
                r.version.clone(),
            ]
        },
    );
    table(&rows, "\t")
}

/// A table's rows: `header`, then one row per item of `items`, made by `row`.
fn rows_of<'a, T: 'a>(
    header: &[&str],
    items: impl IntoIterator<Item = &'a T>,
    row: impl FnMut(&'a T) -> Vec<String>,
) -> Vec<Vec<String>> {
    std::iter::once(header.iter().map(|h| h.to_string()).collect())
        .chain(items.into_iter().map(row))
        .collect()
}

/// Columns padded to the widest cell, separated by `sep` (last column unpadded).
fn table(rows: &[Vec<String>], sep: &str) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            if i + 1 == r.len() {
                line.push_str(c);
            } else {
                line.push_str(&format!("{c:<w$}{sep}", w = widths[i]));
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubepkg_package::orchestrator::Event;
    use kubepkg_package::revision::{ComponentRecord, RevisionStatus};

    fn rev(n: u64, status: RevisionStatus, version: &str, description: &str) -> PackageRevision {
        PackageRevision {
            name: "kv".into(),
            namespace: "kubepkg-system".into(),
            revision: n,
            package: "kubevirt".into(),
            version: version.into(),
            components: vec![ComponentRecord {
                name: "operator".into(),
                release: "kv-operator".into(),
                namespace: "kubevirt".into(),
                revision: n,
                chart: String::new(),
                ready_when: vec![],
                backend: None,
                post_renderers: Vec::new(),
                depends_on: Vec::new(),
            }],
            status,
            description: description.into(),
            last_deployed: format!("2026-11-2{n}T10:00:00Z"),
            ..Default::default()
        }
    }

    #[test]
    fn history_snapshot() {
        let h = History::new(vec![
            rev(
                2,
                RevisionStatus::Failed,
                "1.5.0",
                "component kubevirt failed: timed out",
            ),
            rev(1, RevisionStatus::Deployed, "1.4.0", "Install complete"),
        ]);
        // Helm's UPDATED: Go's time.ANSIC in the local zone (jiff is the independent oracle).
        let ansic = |t: &str| {
            let t: jiff::Timestamp = t.parse().unwrap();
            t.to_zoned(jiff::tz::TimeZone::system())
                .strftime("%a %b %e %H:%M:%S %Y")
                .to_string()
        };
        let (t1, t2) = (ansic("2026-11-21T10:00:00Z"), ansic("2026-11-22T10:00:00Z"));
        assert_eq!(t1.len(), 24);
        assert_eq!(
            history_text(&h),
            format!(
                "REVISION\tUPDATED                 \tSTATUS  \tPACKAGE \tVERSION\tDESCRIPTION\n\
                 1       \t{t1}\tdeployed\tkubevirt\t1.4.0  \tInstall complete\n\
                 2       \t{t2}\tfailed  \tkubevirt\t1.5.0  \tcomponent kubevirt failed: timed out\n"
            )
        );
    }

    #[test]
    fn status_snapshot() {
        let r = rev(1, RevisionStatus::Deployed, "1.4.0", "Install complete");
        let comps = [
            ComponentState {
                name: "operator".into(),
                release: "kv-operator".into(),
                namespace: "kubevirt".into(),
                revision: 1,
                ready: true,
                waiting_for: None,
            },
            ComponentState {
                name: "kubevirt".into(),
                release: "kv-kubevirt".into(),
                namespace: "kubevirt".into(),
                revision: 1,
                ready: false,
                waiting_for: Some(
                    "KubeVirt kubevirt/kubevirt: Available is False (Deploying)".into(),
                ),
            },
        ];
        assert_eq!(
            status_text(&r, &comps),
            "NAME: kv\nNAMESPACE: kubepkg-system\nPACKAGE: kubevirt 1.4.0\nREVISION: 1\nSTATUS: deployed\nDESCRIPTION: Install complete\n\
             KSTATUS: InProgress\n\
             CONDITIONS:\n\
             TYPE         STATUS  REASON       MESSAGE\n\
             Ready        False   Progressing  component kubevirt: KubeVirt kubevirt/kubevirt: Available is False (Deploying)\n\
             Reconciling  True    Progressing  component kubevirt: KubeVirt kubevirt/kubevirt: Available is False (Deploying)\n\
             COMPONENTS:\n\
             COMPONENT  RELEASE      NAMESPACE  REVISION  READY  WAITING FOR\n\
             operator   kv-operator  kubevirt   1         yes\n\
             kubevirt   kv-kubevirt  kubevirt   1         no     KubeVirt kubevirt/kubevirt: Available is False (Deploying)\n"
        );
    }

    #[test]
    fn progress_and_outcome_lines() {
        assert_eq!(
            Event::Failed {
                component: "kubevirt".into(),
                message: "timed out".into()
            }
            .to_string(),
            "kubevirt: failed: timed out"
        );
        assert_eq!(
            Event::WaitingForRequirements {
                message: "waiting for package cert-manager (not installed)".into()
            }
            .to_string(),
            "requirements: waiting for package cert-manager (not installed)"
        );
        let o = Outcome {
            reason: Reason::RolledBack,
            message: "rolled back".into(),
            deployed_revision: Some(3),
            recorded: vec![2, 3],
            warnings: vec!["w".into()],
        };
        assert_eq!(
            outcome_text(&o, Palette::PLAIN),
            "RolledBack: rolled back\nWarning: w\n"
        );
        assert_eq!(
            outcome_text(&o, Palette::ANSI),
            "\x1b[33mRolledBack\x1b[0m: rolled back\n\x1b[33mWarning:\x1b[0m w\n"
        );
    }
}
