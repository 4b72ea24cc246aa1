//! The rollback policy: whether an older version may run again once newer versions have run
//! (docs/rules.md#the-rollback-policy).
//!
//! One rule for every way back to an older version: a manual `kubepkg rollback` and an apply of
//! a lower version than the one running (a downgrade, which is a rollback in effect). A version
//! *V* may run again unless a version newer than *V* has run since *V* (or a version below it)
//! last ran, and forbids it: a version that declares `rollback.safe: false` forbids every older
//! one; a version that declares a rollback floor `rollback.to: <constraint>` forbids the older
//! versions outside it. [`forbids`] is the one place that judges one version against one
//! revision; [`on_failure`] is the one decision of what a failed upgrade does (the plan states
//! it, the orchestrator does it).
//!
//! "Has run" counts every revision recorded since, whatever its status (a failed upgrade may
//! have run its migration), except one left pending while it only waited for requirements
//! (that changed nothing).

use std::fmt;

use serde::Serialize;

use kubepkg_model::Constraint;
use kubepkg_model::manifest::PackageMeta;

use crate::revision::{History, PackageRevision, Reason, RevisionStatus};

/// Why a version that has run forbids an older one to run again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
#[non_exhaustive]
pub enum Rule {
    /// It declares `rollback.safe: false`: no version before it may run again.
    DeclaredUnsafe,
    /// It declares the rollback floor `rollback.to: <constraint>`, which the older version
    /// does not satisfy.
    Floor { constraint: String },
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::DeclaredUnsafe => f.write_str("declares rollback.safe: false"),
            Rule::Floor { constraint } => write!(f, "declares rollback.to {constraint}"),
        }
    }
}

/// A version that has run and forbids the older one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Forbidder {
    /// The first revision since that ran it.
    pub revision: u64,
    pub version: String,
    pub rule: Rule,
}

impl fmt::Display for Forbidder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (revision {}) {}",
            self.version, self.revision, self.rule
        )
    }
}

/// Whether `revision` forbids `version` to run again once it has run. The one judgement of
/// the policy.
pub fn forbids(revision: &PackageRevision, version: &str) -> Option<Rule> {
    forbids_as(
        &revision.version,
        revision.rollback_safe,
        revision.rollback_to.as_deref(),
        version,
    )
}

/// [`forbids`] for a version that declares `safe` and the floor `to`.
fn forbids_as(declarer: &str, safe: Option<bool>, to: Option<&str>, version: &str) -> Option<Rule> {
    if !is_older(version, declarer) {
        return None;
    }
    if safe == Some(false) {
        return Some(Rule::DeclaredUnsafe);
    }
    let floor = to?;
    // A floor recorded by this kubepkg always parses; one that no longer does (or a target
    // that is not SemVer) errs on the side of refusing.
    let admitted = match (
        Constraint::parse(floor),
        kubepkg_semver::Version::parse_strict(version),
    ) {
        (Ok(c), Ok(v)) => c.matches(&v),
        _ => false,
    };
    (!admitted).then(|| Rule::Floor {
        constraint: floor.to_string(),
    })
}

/// Every version that has run since `version` (or a lower one) last ran and forbids it to
/// run again, each once, oldest first. Empty: `version` may run again.
pub fn forbidders(history: &History, version: &str) -> Vec<Forbidder> {
    let since = last_ran_at_or_below(history, version);
    let mut out: Vec<Forbidder> = Vec::new();
    for r in ran_after(history, since) {
        if let Some(rule) = forbids(r, version)
            && !out.iter().any(|f| f.version == r.version && f.rule == rule)
        {
            out.push(Forbidder {
                revision: r.revision,
                version: r.version.clone(),
                rule,
            });
        }
    }
    out
}

/// What a failure of an upgrade does (docs/rules.md#failure-and-rollback): the one decision,
/// stated by `plan` and carried out by the orchestrator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub enum FailurePolicy {
    /// First install: nothing is rolled back; the state is kept for diagnosis (`InstallFailed`).
    KeepForDiagnosis,
    /// Changed components go back to the deployed revision: the new version declares
    /// `rollback.safe: true` or a floor, and every floor of the versions that ran since the
    /// target (the new one included) admits it. `floors` are those floors.
    RollBack {
        to_revision: u64,
        to_version: String,
        floors: Vec<Floor>,
    },
    /// No rollback: stop with `UpgradeFailed` and fix forward. `declared` is the new version's
    /// `rollback.safe` (`None` when not declared).
    StopUpgradeFailed { declared: Option<bool> },
    /// No rollback although the new version allows rollbacks: a version that would have run
    /// (the new one, or one that ran since the deployed revision) forbids the deployed
    /// version by its floor; stop with `UpgradeFailed`.
    StopForbidden {
        to_revision: u64,
        to_version: String,
        forbidden_by: Vec<Forbidder>,
    },
}

/// A version's rollback floor that a rollback was checked against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Floor {
    pub version: String,
    pub constraint: String,
}

impl fmt::Display for Floor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}'s rollback.to {}", self.version, self.constraint)
    }
}

impl fmt::Display for FailurePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailurePolicy::KeepForDiagnosis => f.write_str(
                "stop with InstallFailed; nothing is rolled back, the state is kept for diagnosis",
            ),
            FailurePolicy::RollBack {
                to_revision,
                to_version,
                floors,
            } => {
                write!(
                    f,
                    "roll every changed component back to revision {to_revision} ({to_version}): "
                )?;
                if floors.is_empty() {
                    f.write_str("this version declares rollback.safe: true")
                } else {
                    let floors: Vec<String> = floors.iter().map(Floor::to_string).collect();
                    write!(f, "allowed by {}", floors.join(" and "))
                }
            }
            FailurePolicy::StopUpgradeFailed { declared } => {
                let why = match declared {
                    Some(false) => "this version declares rollback.safe: false",
                    _ => "this version does not declare rollback.safe: true",
                };
                write!(
                    f,
                    "no rollback ({why}); stop with UpgradeFailed and fix forward"
                )
            }
            FailurePolicy::StopForbidden {
                to_revision,
                to_version,
                forbidden_by,
            } => write!(
                f,
                "no rollback to revision {to_revision} ({to_version}): {}; stop with UpgradeFailed and fix forward",
                join(forbidden_by)
            ),
        }
    }
}

/// What a failure of an apply of `new` (to be recorded as revision `new_revision`) over the
/// `deployed` revision of `history` does; `deployed` `None`: a first install.
pub fn on_failure(
    history: &History,
    deployed: Option<&PackageRevision>,
    new: &PackageMeta,
    new_revision: u64,
) -> FailurePolicy {
    let Some(deployed) = deployed else {
        return FailurePolicy::KeepForDiagnosis;
    };
    if !new.rollback_is_safe() {
        return FailurePolicy::StopUpgradeFailed {
            declared: new.rollback_safe,
        };
    }
    let new_version = new.version.to_string();
    let new_floor = new.rollback_to.as_ref().map(ToString::to_string);
    let mut forbidden_by = forbidders(history, &deployed.version);
    if let Some(rule) = forbids_as(
        &new_version,
        new.rollback_safe,
        new_floor.as_deref(),
        &deployed.version,
    ) {
        forbidden_by.push(Forbidder {
            revision: new_revision,
            version: new_version.clone(),
            rule,
        });
    }
    if !forbidden_by.is_empty() {
        return FailurePolicy::StopForbidden {
            to_revision: deployed.revision,
            to_version: deployed.version.clone(),
            forbidden_by,
        };
    }
    let since = last_ran_at_or_below(history, &deployed.version);
    let mut floors: Vec<Floor> = Vec::new();
    let newer: Vec<(&str, Option<&str>)> = ran_after(history, since)
        .filter(|r| is_older(&deployed.version, &r.version))
        .map(|r| (r.version.as_str(), r.rollback_to.as_deref()))
        .chain(
            is_older(&deployed.version, &new_version)
                .then_some((new_version.as_str(), new_floor.as_deref())),
        )
        .collect();
    for (version, to) in newer {
        if let Some(to) = to
            && !floors
                .iter()
                .any(|f| f.version == version && f.constraint == to)
        {
            floors.push(Floor {
                version: version.to_string(),
                constraint: to.to_string(),
            });
        }
    }
    FailurePolicy::RollBack {
        to_revision: deployed.revision,
        to_version: deployed.version.clone(),
        floors,
    }
}

/// An apply of a version lower than one that runs now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Downgrade {
    /// The highest version the package may be running: the deployed revision's, or that of a
    /// later revision that failed or was interrupted (its components may run it).
    pub from: String,
    pub to: String,
    /// What forbids it (empty: allowed).
    pub forbidden_by: Vec<Forbidder>,
}

impl Downgrade {
    /// Whether the rollback policy allows it.
    pub fn allowed(&self) -> bool {
        self.forbidden_by.is_empty()
    }

    /// The verdict in words ("allowed: …" / "refused: …").
    pub fn verdict(&self) -> String {
        if self.allowed() {
            format!(
                "allowed: no version that ran since {} last ran forbids it (by rollback.safe: false or a rollback.to floor)",
                self.to
            )
        } else {
            format!(
                "refused: {}, so {} may not run again once it has run; apply refuses it unless given --allow-downgrade",
                join(&self.forbidden_by),
                self.to
            )
        }
    }
}

impl fmt::Display for Downgrade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "downgrade from {} to {}: {}",
            self.from,
            self.to,
            self.verdict()
        )
    }
}

/// The downgrade an apply of `to` would be, if it is one: `to` is lower than the version of
/// the deployed revision or of a revision recorded after it.
pub fn downgrade(history: &History, to: &kubepkg_semver::Version) -> Option<Downgrade> {
    let deployed = history.deployed()?;
    let running = history
        .revisions
        .iter()
        .filter(|r| r.revision >= deployed.revision && !changed_nothing(r))
        .filter_map(|r| r.semver())
        .max()?;
    if *to >= running {
        return None;
    }
    let to_text = to.to_string();
    Some(Downgrade {
        from: running.to_string(),
        forbidden_by: forbidders(history, &to_text),
        to: to_text,
    })
}

/// Joins forbidders as one clause ("2.0.0 (revision 3) declares …; 2.1.0 (revision 5) …").
pub fn join(forbidders: &[Forbidder]) -> String {
    forbidders
        .iter()
        .map(Forbidder::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Whether `a` is an older version than `b` (SemVer order; a version that does not read as
/// SemVer is taken as older than any other, so the policy errs on the side of refusing).
fn is_older(a: &str, b: &str) -> bool {
    match (
        kubepkg_semver::Version::parse_strict(a),
        kubepkg_semver::Version::parse_strict(b),
    ) {
        (Ok(a), Ok(b)) => a < b,
        _ => a != b,
    }
}

/// The last revision that ran to completion (deployed or since superseded) at `version` or
/// below.
fn last_ran_at_or_below(history: &History, version: &str) -> Option<u64> {
    history
        .revisions
        .iter()
        .rev()
        .find(|r| {
            matches!(
                r.status,
                RevisionStatus::Deployed | RevisionStatus::Superseded
            ) && !is_older(version, &r.version)
        })
        .map(|r| r.revision)
}

/// The revisions recorded after `since` (all when `None`) that may have changed something.
fn ran_after(history: &History, since: Option<u64>) -> impl Iterator<Item = &PackageRevision> {
    history
        .revisions
        .iter()
        .filter(move |r| since.is_none_or(|s| r.revision > s) && !changed_nothing(r))
}

/// A revision left pending while it only waited for requirements (nothing was applied).
fn changed_nothing(r: &PackageRevision) -> bool {
    r.status.is_pending() && r.reason == Some(Reason::RequirementsNotMet)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rev(n: u64, version: &str, safe: Option<bool>, status: RevisionStatus) -> PackageRevision {
        PackageRevision {
            name: "p".into(),
            namespace: "ns".into(),
            revision: n,
            package: "p".into(),
            version: version.into(),
            rollback_safe: safe,
            status,
            ..Default::default()
        }
    }

    fn v(s: &str) -> kubepkg_semver::Version {
        kubepkg_semver::Version::parse_strict(s).unwrap()
    }

    use RevisionStatus::{Deployed, Failed, PendingUpgrade, Superseded};

    #[test]
    fn a_version_declaring_unsafe_forbids_every_older_one_not_itself_or_newer() {
        let r = rev(3, "2.0.0", Some(false), Deployed);
        assert_eq!(forbids(&r, "1.9.9"), Some(Rule::DeclaredUnsafe));
        assert_eq!(forbids(&r, "2.0.0-rc.1"), Some(Rule::DeclaredUnsafe));
        assert_eq!(forbids(&r, "2.0.0"), None);
        assert_eq!(forbids(&r, "2.0.1"), None);
        assert_eq!(forbids(&rev(3, "2.0.0", None, Deployed), "1.0.0"), None);
        assert_eq!(
            forbids(&rev(3, "2.0.0", Some(true), Deployed), "1.0.0"),
            None
        );
    }

    /// The race of the issue: 1.1.0, then 2.0.0 (rollback.safe: false), then 2.0.1 deployed;
    /// an apply of 1.1.0 is a downgrade that 2.0.0 forbids although 2.0.1 does not.
    #[test]
    fn a_downgrade_is_judged_by_every_version_that_ran_since() {
        let h = History::new(vec![
            rev(1, "1.0.0", Some(true), Superseded),
            rev(2, "1.1.0", Some(true), Superseded),
            rev(3, "2.0.0", Some(false), Superseded),
            rev(4, "2.0.1", Some(true), Deployed),
        ]);
        let d = downgrade(&h, &v("1.1.0")).unwrap();
        assert_eq!((d.from.as_str(), d.to.as_str()), ("2.0.1", "1.1.0"));
        assert_eq!(
            d.forbidden_by,
            [Forbidder {
                revision: 3,
                version: "2.0.0".into(),
                rule: Rule::DeclaredUnsafe
            }]
        );
        assert_eq!(
            d.to_string(),
            "downgrade from 2.0.1 to 1.1.0: refused: 2.0.0 (revision 3) declares rollback.safe: false, so 1.1.0 may not run again once it has run; apply refuses it unless given --allow-downgrade"
        );
        // 2.0.0 itself may run again: nothing newer than it forbids it.
        let d = downgrade(&h, &v("2.0.0")).unwrap();
        assert!(d.allowed(), "{d}");
        assert!(d.verdict().starts_with("allowed: "), "{d}");
        // Not downgrades: the same version, a newer one.
        assert_eq!(downgrade(&h, &v("2.0.1")), None);
        assert_eq!(downgrade(&h, &v("3.0.0")), None);
        // Nothing deployed: a first install.
        assert_eq!(downgrade(&History::default(), &v("1.0.0")), None);
    }

    /// Versions that ran before the target last ran (completely) do not count: a forced
    /// rollback already went past them.
    #[test]
    fn only_versions_since_the_target_last_ran_count() {
        let h = History::new(vec![
            rev(1, "1.0.0", None, Superseded),
            rev(2, "3.0.0", Some(false), Superseded),
            rev(3, "1.0.0", None, Superseded), // forced rollback to 1
            rev(4, "2.5.0", None, Deployed),
        ]);
        assert!(downgrade(&h, &v("2.0.0")).unwrap().allowed());
        assert!(forbidders(&h, "1.0.0").is_empty());
        // Below every version that ever completed: everything counts.
        let f = forbidders(&h, "0.9.0");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].version, "3.0.0");
    }

    /// A failed or interrupted upgrade may have run its migration: it counts, and the apply of
    /// the deployed version over it is a downgrade from the failed one.
    #[test]
    fn failed_and_interrupted_revisions_count_requirement_waits_do_not() {
        let h = History::new(vec![
            rev(1, "1.0.0", None, Deployed),
            rev(2, "2.0.0", Some(false), Failed),
        ]);
        let d = downgrade(&h, &v("1.0.0")).unwrap();
        assert_eq!(d.from, "2.0.0");
        assert_eq!(d.forbidden_by[0].revision, 2);

        let h = History::new(vec![
            rev(1, "1.0.0", None, Deployed),
            rev(2, "2.0.0", Some(false), PendingUpgrade),
        ]);
        assert!(!downgrade(&h, &v("1.0.0")).unwrap().allowed());

        let mut waiting = rev(2, "2.0.0", Some(false), PendingUpgrade);
        waiting.reason = Some(Reason::RequirementsNotMet);
        let h = History::new(vec![rev(1, "1.0.0", None, Deployed), waiting]);
        assert_eq!(downgrade(&h, &v("1.0.0")), None);
        assert!(forbidders(&h, "1.0.0").is_empty());
    }

    fn floored(n: u64, version: &str, to: &str, status: RevisionStatus) -> PackageRevision {
        let mut r = rev(n, version, None, status);
        r.rollback_to = Some(to.into());
        r
    }

    fn meta(version: &str, safe: Option<bool>, to: Option<&str>) -> PackageMeta {
        PackageMeta {
            name: "p".into(),
            version: v(version),
            rollback_safe: safe,
            rollback_to: to.map(|t| Constraint::parse(t).unwrap()),
            requires: Vec::new(),
        }
    }

    #[test]
    fn a_floor_forbids_the_older_versions_outside_it() {
        let r = floored(5, "2.1.0", ">=2.0.0", Deployed);
        assert_eq!(forbids(&r, "2.0.0"), None);
        assert_eq!(forbids(&r, "2.0.9"), None);
        assert_eq!(
            forbids(&r, "1.9.0"),
            Some(Rule::Floor {
                constraint: ">=2.0.0".into()
            })
        );
        // Not older: never forbidden, whatever the floor says.
        assert_eq!(
            forbids(&floored(5, "2.1.0", ">=3.0.0", Deployed), "2.1.0"),
            None
        );
        // A floor that no longer parses errs on the side of refusing.
        assert!(forbids(&floored(5, "2.1.0", "not a constraint", Deployed), "2.0.0").is_some());
    }

    /// A manual rollback across two floors: 3.0.0's floor forbids 1.x although 2.0.0's admits it.
    #[test]
    fn a_rollback_is_judged_by_the_floor_of_every_version_since() {
        let h = History::new(vec![
            rev(1, "1.0.0", Some(true), Superseded),
            floored(2, "2.0.0", ">=1.0.0", Superseded),
            floored(3, "3.0.0", ">=2.0.0", Deployed),
        ]);
        assert_eq!(
            forbidders(&h, "1.0.0"),
            [Forbidder {
                revision: 3,
                version: "3.0.0".into(),
                rule: Rule::Floor {
                    constraint: ">=2.0.0".into()
                }
            }]
        );
        assert_eq!(
            join(&forbidders(&h, "1.0.0")),
            "3.0.0 (revision 3) declares rollback.to >=2.0.0"
        );
        assert!(forbidders(&h, "2.0.0").is_empty());
    }

    #[test]
    fn a_failed_upgrade_rolls_back_only_where_every_floor_admits_the_target() {
        let deployed = rev(2, "2.0.1", Some(true), Deployed);
        let h = History::new(vec![rev(1, "1.0.0", None, Superseded), deployed.clone()]);
        // Declared safe, no floor: as before.
        assert_eq!(
            on_failure(&h, Some(&deployed), &meta("2.1.0", Some(true), None), 3),
            FailurePolicy::RollBack {
                to_revision: 2,
                to_version: "2.0.1".into(),
                floors: vec![]
            }
        );
        // A floor alone allows rollbacks into it, naming it.
        assert_eq!(
            on_failure(
                &h,
                Some(&deployed),
                &meta("2.1.0", None, Some(">=2.0.0")),
                3
            ),
            FailurePolicy::RollBack {
                to_revision: 2,
                to_version: "2.0.1".into(),
                floors: vec![Floor {
                    version: "2.1.0".into(),
                    constraint: ">=2.0.0".into()
                }]
            }
        );
        // The new version's floor excludes the deployed one.
        let stop = on_failure(
            &h,
            Some(&deployed),
            &meta("2.1.0", Some(true), Some(">=2.1.0")),
            3,
        );
        assert_eq!(
            stop.to_string(),
            "no rollback to revision 2 (2.0.1): 2.1.0 (revision 3) declares rollback.to >=2.1.0; stop with UpgradeFailed and fix forward"
        );
        // A version that ran since the deployed one (a failed upgrade) has a floor too.
        let h2 = History::new(vec![
            deployed.clone(),
            floored(3, "2.2.0", ">=2.1.0", Failed),
        ]);
        assert!(matches!(
            on_failure(&h2, Some(&deployed), &meta("2.3.0", Some(true), None), 4),
            FailurePolicy::StopForbidden { forbidden_by, .. } if forbidden_by[0].version == "2.2.0"
        ));
        // Not declared, or declared unsafe: no rollback; first install: kept.
        assert_eq!(
            on_failure(&h, Some(&deployed), &meta("2.1.0", None, None), 3),
            FailurePolicy::StopUpgradeFailed { declared: None }
        );
        assert_eq!(
            on_failure(&h, None, &meta("2.1.0", Some(true), None), 1),
            FailurePolicy::KeepForDiagnosis
        );
    }
}
