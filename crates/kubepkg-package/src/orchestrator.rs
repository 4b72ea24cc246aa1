//! The orchestrator's decisions (docs/rules.md), over a [`Cluster`] trait for everything it
//! touches.
//!
//! [`apply`] and [`rollback`] hold every rule and nothing else: the [`Cluster`] implementation
//! (releases, readiness watches, Secret storage, leases) lives in the release/kube crates, and a
//! fake one drives the unit tests. The rules:
//!
//! 1. A revision is recorded as pending before anything changes; a revision left pending by a
//!    crashed run is marked failed and superseded by the new one (one that was only waiting
//!    for requirements changed nothing and is replaced instead). Every record carries the
//!    kstatus conditions of its state ([`crate::conditions`]); the pending revision is
//!    re-recorded before each component, so `status` tells what the apply is doing.
//! 2. Requirements first: every required package must be installed, satisfy its version
//!    constraint and be Ready; an optional one only if it is installed. Until then the apply
//!    waits with `RequirementsNotMet` (not a failure; the pending revision says so) and, past
//!    the timeout, stops having changed nothing: its pending revision is removed.
//! 3. `PreUpgrade` hooks run first, in manifest order, only when the package moves to another
//!    version (never on a first install, a values-only change or a rollback), with the
//!    `kubepkg.*` values; each is waited for. A failing hook stops the upgrade before anything
//!    else changed. Each completed hook is recorded in the pending revision at once, so a run
//!    that recovers it after a crash does not run it again for the same move. After a
//!    successful upgrade their releases are uninstalled; they are never components of a
//!    revision.
//! 4. Components are applied one at a time in plan order; unchanged ones are skipped; each must be
//!    ready (release and `readyWhen`, within the per-component timeout) before the next starts.
//! 5. On failure: a first install keeps its state (`InstallFailed`); an upgrade rolls every
//!    component it already changed back to the deployed revision, newest first, only if the *new*
//!    version declares `rollback.safe: true` (the failed revision is kept as failed and the
//!    rollback is a new revision, `RolledBack`); otherwise it stops with `UpgradeFailed`.
//! 6. Components the new package no longer has are uninstalled last, in reverse order.
//! 7. A manual rollback, and an apply of a lower version (a downgrade), follow the rollback
//!    policy ([`crate::rollback_policy`]): refused, before anything changed, when a version that
//!    ran since the target forbids it (`rollback.safe: false`), unless forced
//!    (`--force`, `--allow-downgrade`). A rollback runs no hooks and is recorded as a new
//!    revision.
//!
//! A run that cannot write its first record, or is refused, changes nothing and says so as a
//! [`Stopped`] error instead of an [`Outcome`].

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

/// What the orchestrator reports through [`Cluster::progress`]: one event per state change of a
/// component (the component-state variants of the one progress event, `kubepkg_progress`).
pub use kubepkg_progress::Event;

use crate::plan::{Action, Change, Plan};
use crate::revision::{
    ComponentRecord, Condition, History, HookRun, PackageRevision, Reason, RevisionStatus,
    values_digest,
};
use crate::rollback_policy::{self, Downgrade, FailurePolicy, Forbidder};
use crate::verdict::VerdictKind;
use kubepkg_model::manifest::{ChartSource, Package, ReadyCondition, Requirement};
use kubepkg_model::values::{UserValues, supplied, upgrade_context};
use kubepkg_progress::Message;

/// The default per-component readiness timeout (docs/rules.md#timeouts).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Another package instance as the requirements check sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequirementState {
    /// No such package is installed.
    Absent,
    /// Installed at `version` (its deployed revision), Ready or not.
    Present { version: String, ready: bool },
    /// The cluster could not tell (e.g. the records could not be listed): not met, optional or not.
    Unknown(String),
}

/// Result of waiting for a change of the required packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// Something changed (or may have): check again.
    Changed,
    /// The requirements timeout passed.
    TimedOut,
}

/// What to install or upgrade.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentApply {
    pub component: String,
    pub release: String,
    pub namespace: String,
    /// The chart as written in the package and resolved on disk.
    pub chart: ChartSource,
    /// Values given to the chart ("user-supplied" in Helm's terms): package defaults, user
    /// values and, for hooks and `upgradeContext` components, `kubepkg.*`.
    pub values: Map<String, Value>,
    /// A hook: replace any leftover release of it (a failed hook is kept for its logs until the
    /// next run) and install it afresh.
    pub hook: bool,
    /// The component's post-renderers (part of its render).
    pub post_renderers: kubepkg_chart::postrender::PostRenderers,
}

/// What readiness to wait for.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadyWait {
    pub component: String,
    pub release: String,
    pub namespace: String,
    /// `readyWhen` conditions (their namespace defaults to `namespace`; ignored for cluster-scoped kinds).
    pub ready_when: Vec<ReadyCondition>,
    pub timeout: Duration,
}

/// Which step of the cluster side failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// A package revision could not be recorded or deleted.
    Record,
    /// A component's chart could not be rendered (template, schema, capabilities).
    Render,
    /// A component's release could not be installed or upgraded (API refusal, hook failure).
    Apply,
    /// A component did not become ready (timeout, a failed workload, a `readyWhen` condition).
    NotReady,
    /// A release could not be rolled back.
    Rollback,
    /// A release could not be uninstalled.
    Uninstall,
    /// The cluster stopped answering (connections refused, timed out): no failure of the step
    /// itself. The run stops where it is, as a crash would ([`Stopped::Interrupted`]); its
    /// pending revision and Lease are recovered by the next operation.
    Unreachable,
}

/// A failure reported by the cluster side: which step failed, what to tell the user, and the
/// error behind it (when the cluster side had a typed one).
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl Failure {
    /// A failure known only by its message.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// A failure caused by `error` (its text is the message).
    pub fn caused(
        kind: FailureKind,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> Failure {
        Failure {
            kind,
            message: error.to_string(),
            source: Some(std::sync::Arc::new(error)),
        }
    }
}

impl PartialEq for Failure {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// The cluster side of an apply. Every method is one observable step; errors are [`Failure`]s.
pub trait Cluster {
    /// The state of the package instance `name` (for `requires`).
    fn requirement(&mut self, name: &str) -> impl Future<Output = RequirementState> + Send;
    /// Waits (by watch) until a required package may have changed, or the requirements timeout.
    fn wait_for_requirements(&mut self) -> impl Future<Output = Waited> + Send;
    /// Creates or replaces a package revision record.
    fn record(
        &mut self,
        revision: &PackageRevision,
    ) -> impl Future<Output = Result<(), Failure>> + Send;
    /// Deletes a package revision record (a pending one that changed nothing).
    fn forget(
        &mut self,
        revision: &PackageRevision,
    ) -> impl Future<Output = Result<(), Failure>> + Send;
    /// Installs or upgrades a component's release; returns the release revision now deployed.
    fn apply_component(
        &mut self,
        request: &ComponentApply,
    ) -> impl Future<Output = Result<u64, Failure>> + Send;
    /// Waits until the release is ready and every `readyWhen` holds (a hook: its Job completed).
    fn wait_ready(
        &mut self,
        request: &ReadyWait,
    ) -> impl Future<Output = Result<(), Failure>> + Send;
    /// Rolls a release back to `to_revision`; returns the new release revision.
    fn rollback_component(
        &mut self,
        release: &str,
        namespace: &str,
        to_revision: u64,
    ) -> impl Future<Output = Result<u64, Failure>> + Send;
    /// Uninstalls a release.
    fn uninstall_release(
        &mut self,
        release: &str,
        namespace: &str,
    ) -> impl Future<Output = Result<(), Failure>> + Send;
    /// What the pods of a hook's release left behind (termination messages, log tail), for
    /// its verdict ([`crate::verdict`]). A cluster that cannot tell returns nothing.
    fn hook_output(
        &mut self,
        release: &str,
        namespace: &str,
    ) -> impl Future<Output = crate::verdict::HookOutput> + Send {
        let _ = (release, namespace);
        async { crate::verdict::HookOutput::default() }
    }
    /// Reports progress (synchronous; printing or status updates).
    fn progress(&mut self, event: Event);
    /// The time now (RFC 3339), for records written after the run started (an automatic
    /// rollback is recorded when it happens, not when the failed upgrade began).
    fn now(&self) -> String;
    /// The backend this cluster applies components with (recorded with each component it
    /// applies).
    fn backend(&self) -> kubepkg_model::Backend {
        kubepkg_model::Backend::Helm
    }
}

/// How an apply or rollback ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub reason: Reason,
    pub message: String,
    /// The revision now deployed, if any.
    pub deployed_revision: Option<u64>,
    /// Every revision recorded by this run (a failed one and its rollback are two).
    pub recorded: Vec<u64>,
    /// Non-fatal problems (e.g. a hook release that could not be uninstalled).
    pub warnings: Vec<String>,
}

/// Everything an apply needs besides the cluster.
#[derive(Debug, Clone)]
pub struct ApplyInput<'a> {
    /// Package instance name.
    pub name: &'a str,
    /// Namespace of the package (records; default for components).
    pub namespace: &'a str,
    pub package: &'a Package,
    pub user: &'a UserValues,
    pub history: &'a History,
    /// Each component's effective values in the deployed revision (for `kubepkg.previous`).
    pub previous_values: &'a BTreeMap<String, Map<String, Value>>,
    /// The plan made from the same inputs (which components change).
    pub plan: &'a Plan,
    /// Per-component readiness timeout.
    pub timeout: Duration,
    /// RFC 3339 time stamped on the records.
    pub now: &'a str,
    /// Apply a lower version even when the rollback policy forbids it (`--allow-downgrade`).
    pub allow_downgrade: bool,
    /// Apply CRD changes that are not safe for existing objects (`--allow-unsafe-crd-changes`).
    pub allow_unsafe_crd_changes: bool,
    /// The package's `PreRollback` hooks with their charts, kept in the revision for a later
    /// manual rollback (made by the cluster side, which reads the charts).
    pub rollback_hooks: &'a [crate::revision::RollbackHook],
}

/// One requirement not met yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Awaited {
    /// The required package is not installed.
    NotInstalled { package: String },
    /// Whether it is installed cannot be told (the cluster's error).
    Unknown { package: String, error: String },
    /// It is installed at a version outside the constraint.
    Version {
        package: String,
        constraint: String,
        installed: String,
    },
    /// It is installed but not Ready.
    NotReady { package: String },
}

impl std::fmt::Display for Awaited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Awaited::NotInstalled { package } => {
                write!(f, "waiting for package {package} (not installed)")
            }
            Awaited::Unknown { package, error } => write!(
                f,
                "waiting for package {package} (cannot tell whether it is installed: {error})"
            ),
            Awaited::Version {
                package,
                constraint,
                installed,
            } => write!(
                f,
                "waiting for package {package} {constraint} (installed: {installed})"
            ),
            Awaited::NotReady { package } => write!(f, "waiting for package {package} (not Ready)"),
        }
    }
}

/// The requirements not met yet, each what is awaited; written as one message
/// (`waiting for package a (not installed); waiting for package b (not Ready)`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct Unmet(pub Vec<Awaited>);

/// Checks `requires`; `Ok(())` when met, else what is awaited.
pub async fn check_requirements<C: Cluster>(
    cluster: &mut C,
    requires: &[Requirement],
) -> Result<(), Unmet> {
    let mut unmet = Vec::new();
    for r in requires {
        let package = r.name.clone();
        match cluster.requirement(&r.name).await {
            RequirementState::Absent if r.optional => {}
            RequirementState::Absent => unmet.push(Awaited::NotInstalled { package }),
            RequirementState::Unknown(error) => unmet.push(Awaited::Unknown { package, error }),
            RequirementState::Present { version, ready } => {
                if let Some(c) = &r.version {
                    let ok = kubepkg_semver::Version::parse_strict(&version)
                        .is_ok_and(|v| c.matches(&v));
                    if !ok {
                        unmet.push(Awaited::Version {
                            package,
                            constraint: c.to_string(),
                            installed: version,
                        });
                        continue;
                    }
                }
                if !ready {
                    unmet.push(Awaited::NotReady { package });
                }
            }
        }
    }
    if unmet.is_empty() {
        Ok(())
    } else {
        Err(Unmet(unmet))
    }
}

struct Run<'c, C> {
    cluster: &'c mut C,
    /// Whether anything in the cluster besides the package's records was touched yet.
    changed: bool,
    recorded: Vec<u64>,
    warnings: Vec<String>,
    /// RFC 3339 time of this run (conditions' transition times).
    now: String,
    /// The conditions last written per revision, so transition times carry over.
    written: BTreeMap<u64, Vec<Condition>>,
}

impl<'c, C: Cluster> Run<'c, C> {
    fn new(cluster: &'c mut C, now: &str) -> Self {
        Run {
            cluster,
            changed: false,
            recorded: Vec::new(),
            warnings: Vec::new(),
            now: now.to_string(),
            written: BTreeMap::new(),
        }
    }

    /// Writes `rev` with the conditions its state implies.
    async fn record(&mut self, rev: &PackageRevision) -> Result<(), Failure> {
        let mut rev = rev.clone();
        let before = self
            .written
            .get(&rev.revision)
            .cloned()
            .unwrap_or_else(|| rev.conditions.clone());
        rev.conditions = crate::conditions::compute(&rev, &before, &self.now);
        if let Err(f) = self.cluster.record(&rev).await {
            // A first write whose answer was lost may have gone through: before anything
            // changed, it is removed (absent is fine), so that "nothing was changed" holds and
            // no pending revision is left. If even that fails, the next operation recovers it;
            // a cluster that stopped answering is not asked again (the run is interrupted).
            if !self.changed
                && !self.recorded.contains(&rev.revision)
                && f.kind != FailureKind::Unreachable
            {
                let _ = self.cluster.forget(&rev).await;
            }
            return Err(f);
        }
        self.written.insert(rev.revision, rev.conditions);
        if !self.recorded.contains(&rev.revision) {
            self.recorded.push(rev.revision);
        }
        Ok(())
    }

    /// Removes a pending revision that changed nothing.
    async fn forget(&mut self, rev: &PackageRevision) -> Result<(), Failure> {
        self.cluster.forget(rev).await?;
        self.recorded.retain(|n| *n != rev.revision);
        self.written.remove(&rev.revision);
        Ok(())
    }

    /// Waits until `requires` are met, keeping `rev` (pending, if any) up to date; `Err` with
    /// what is still awaited when the requirements timeout passed.
    async fn await_requirements(
        &mut self,
        requires: &[Requirement],
        mut rev: Option<&mut PackageRevision>,
    ) -> Result<(), Unmet> {
        let mut shown: Option<String> = None;
        loop {
            match check_requirements(self.cluster, requires).await {
                Ok(()) => return Ok(()),
                Err(unmet) => {
                    let message = unmet.to_string();
                    if shown.as_ref() != Some(&message) {
                        if let Some(rev) = rev.as_deref_mut() {
                            rev.reason = Some(Reason::RequirementsNotMet);
                            rev.description = message.clone();
                            if let Err(f) = self.record(&rev.clone().without_unapplied()).await {
                                self.warnings.push(record_failed(f));
                            }
                        }
                        // One progress event per change of what is awaited.
                        self.cluster.progress(Event::WaitingForRequirements {
                            message: message.clone(),
                        });
                        shown = Some(message.clone());
                    }
                    if self.cluster.wait_for_requirements().await == Waited::TimedOut {
                        return Err(unmet);
                    }
                }
            }
        }
    }

    /// Uninstalls the release of the component `name` that is to run no more (`release` in
    /// `namespace`), its progress reported: `Uninstalling`, then `Uninstalled` once it is gone.
    async fn uninstall_component(
        &mut self,
        name: &str,
        release: &str,
        namespace: &str,
    ) -> Result<(), Failure> {
        self.changed = true;
        self.cluster.progress(Event::Uninstalling {
            component: name.to_string(),
        });
        self.cluster.uninstall_release(release, namespace).await?;
        self.cluster.progress(Event::Uninstalled {
            component: name.to_string(),
        });
        Ok(())
    }

    /// Records `rev`; a record that cannot be written is a warning and the run goes on.
    async fn record_or_warn(&mut self, rev: &PackageRevision) {
        if let Err(f) = self.record(rev).await {
            self.warnings.push(record_failed(f));
        }
    }

    /// Ends the run for `reason`: `rev` recorded as having ended so, described by `message`
    /// ([`Run::record_or_warn`]), and the outcome, `deployed` being the revision left deployed.
    async fn end(
        mut self,
        mut rev: PackageRevision,
        reason: Reason,
        message: String,
        deployed: Option<u64>,
    ) -> Outcome {
        rev.reason = Some(reason);
        rev.description = message.clone();
        self.record_or_warn(&rev).await;
        self.outcome(reason, message, deployed)
    }

    fn outcome(self, reason: Reason, message: String, deployed: Option<u64>) -> Outcome {
        Outcome {
            reason,
            message,
            deployed_revision: deployed,
            recorded: self.recorded,
            warnings: self.warnings,
        }
    }

    /// A record that could not be written ends the run: nothing else may change unrecorded.
    /// Before anything changed that is an error ([`Stopped::NotRecorded`], exit 1); after,
    /// the run stopped half way (`UpgradeFailed`).
    fn not_recorded(self, f: Failure, deployed: Option<u64>) -> Result<Outcome, Stopped> {
        if f.kind == FailureKind::Unreachable {
            Err(Stopped::Interrupted(f))
        } else if self.changed {
            Ok(self.outcome(Reason::UpgradeFailed, record_failed(f), deployed))
        } else {
            Err(Stopped::NotRecorded(f))
        }
    }
}

/// A crash between recording a new deployed revision and marking the old one superseded leaves
/// two deployed revisions; every deployed revision but the newest is marked superseded.
async fn supersede_stale<C: Cluster>(
    run: &mut Run<'_, C>,
    history: &History,
) -> Result<(), Failure> {
    let newest = history.deployed().map(|d| d.revision);
    for r in &history.revisions {
        if r.status == RevisionStatus::Deployed && Some(r.revision) != newest {
            let mut old = r.clone();
            old.status = RevisionStatus::Superseded;
            run.record(&old).await?;
        }
    }
    Ok(())
}

/// The message of a record that could not be written.
fn record_failed(f: Failure) -> String {
    format!("cannot record the package revision: {}", f.message)
}

/// An apply or rollback that stopped before anything in the cluster changed (`kubepkg`
/// exits 1): refused by the rules, or unable to write its first record.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Stopped {
    /// A manual rollback the rules refuse.
    #[error(transparent)]
    Rollback(#[from] RollbackRefused),
    /// A downgrade the rollback policy forbids.
    #[error(transparent)]
    Downgrade(#[from] DowngradeRefused),
    /// CRD changes unsafe for existing objects ([`kubepkg_crd`]).
    #[error(
        "refusing to apply package {name}: {} CRD change(s) are unsafe for existing objects:\n  {}\nmake the change safe (keep the field, the version, the type), migrate the objects first, or use --allow-unsafe-crd-changes",
        changes.len(),
        changes.join("\n  ")
    )]
    UnsafeCrdChanges { name: String, changes: Vec<String> },
    /// The package revision could not be recorded, so nothing was applied.
    #[error("cannot record the package revision, so nothing was changed: {0}")]
    NotRecorded(#[source] Failure),
    /// The cluster stopped answering part way ([`FailureKind::Unreachable`]): nothing more was
    /// done, nothing rolled back; the revision stays pending for the next operation to recover.
    #[error(
        "the cluster stopped answering, so the operation stopped where it was (the next apply resumes it): {0}"
    )]
    Interrupted(#[source] Failure),
}

/// An apply of a lower version that the rollback policy forbids.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "refusing to downgrade package {name} from {} to {}: {}, so {} may not run again once it has run (a downgrade is a rollback in effect); fix forward with a newer version, or use --allow-downgrade to apply it anyway",
    downgrade.from,
    downgrade.to,
    rollback_policy::join(&downgrade.forbidden_by),
    downgrade.to
)]
pub struct DowngradeRefused {
    pub name: String,
    pub downgrade: Downgrade,
}

/// The rollback policy's answer to an apply of `package` over `history`: `Ok` with the
/// downgrade it is (if it is one) when it may go on, `Err` when it is refused.
pub fn check_downgrade(
    name: &str,
    history: &History,
    package: &Package,
    allow: bool,
) -> Result<Option<Downgrade>, DowngradeRefused> {
    match rollback_policy::downgrade(history, &package.meta.version) {
        Some(d) if !d.allowed() && !allow => Err(DowngradeRefused {
            name: name.to_string(),
            downgrade: d,
        }),
        other => Ok(other),
    }
}

/// Applies a package (install or upgrade) following every rule of docs/rules.md.
pub async fn apply<C: Cluster>(cluster: &mut C, input: ApplyInput<'_>) -> Result<Outcome, Stopped> {
    let pkg = input.package;
    let downgrade = check_downgrade(input.name, input.history, pkg, input.allow_downgrade)?;
    let unsafe_crds = input.plan.unsafe_crd_changes();
    if !unsafe_crds.is_empty() && !input.allow_unsafe_crd_changes {
        return Err(Stopped::UnsafeCrdChanges {
            name: input.name.to_string(),
            changes: unsafe_crds
                .iter()
                .map(|c| format!("{}: {}", c.component, c.change))
                .collect(),
        });
    }
    let mut run = Run::new(cluster, input.now);
    let deployed = input.history.deployed().cloned();
    let deployed_rev = deployed.as_ref().map(|d| d.revision);
    if let Some(d) = downgrade {
        let verdict = if d.allowed() {
            d.verdict()
        } else {
            format!(
                "allowed by --allow-downgrade although {}",
                rollback_policy::join(&d.forbidden_by)
            )
        };
        run.cluster.progress(Event::message(
            None,
            Message::Downgrade {
                from: d.from,
                to: d.to,
                verdict,
            },
        ));
    }

    if input.plan.action == Action::NoChange {
        // Nothing to record; the requirements still hold the answer back.
        if let Err(unmet) = run.await_requirements(&pkg.meta.requires, None).await {
            return Ok(run.outcome(Reason::RequirementsNotMet, unmet.to_string(), deployed_rev));
        }
        for s in &input.plan.steps {
            run.cluster.progress(Event::Unchanged {
                component: s.name.clone(),
            });
        }
        return Ok(run.outcome(Reason::Succeeded, "nothing to change".into(), deployed_rev));
    }

    // 1. The pending revision (after recovering what a crash left behind).
    let mut number = input.history.next_revision();
    if let Err(f) = supersede_stale(&mut run, input.history).await {
        return run.not_recorded(f, deployed_rev);
    }
    // Hooks that an interrupted upgrade to this same version already completed.
    let mut completed_before: Vec<(u64, HookRun)> = Vec::new();
    if let Some(stale) = input.history.latest().filter(|r| r.status.is_pending()) {
        if stale.reason == Some(Reason::RequirementsNotMet) {
            // It only waited for requirements: nothing changed, its number is reused.
            number = stale.revision;
        } else {
            if matches!(
                stale.status,
                RevisionStatus::PendingInstall | RevisionStatus::PendingUpgrade
            ) && stale.version == pkg.meta.version.to_string()
            {
                completed_before.extend(
                    stale
                        .hooks_completed
                        .iter()
                        .map(|h| (stale.revision, h.clone())),
                );
            }
            let mut stale = stale.clone();
            stale.reason = Some(match stale.status {
                RevisionStatus::PendingInstall => Reason::InstallFailed,
                _ => Reason::UpgradeFailed,
            });
            stale.status = RevisionStatus::Failed;
            stale.to_apply.clear();
            stale.description =
                format!("interrupted before completion; superseded by revision {number}");
            if let Err(f) = run.record(&stale).await {
                return run.not_recorded(f, deployed_rev);
            }
        }
    }
    let given = input.user.given_all();
    let first_deployed = deployed
        .as_ref()
        .map(|d| d.first_deployed.clone())
        .unwrap_or_else(|| input.now.to_string());
    let mut rev = PackageRevision {
        name: input.name.to_string(),
        namespace: input.namespace.to_string(),
        revision: number,
        package: pkg.meta.name.clone(),
        version: pkg.meta.version.to_string(),
        manifest_digest: pkg.digest.clone(),
        source: pkg.source.clone(),
        values_digest: values_digest(&given),
        value_sources: input.user.layers(),
        values: given,
        rollback_safe: pkg.meta.rollback_safe,
        rollback_to: pkg.meta.rollback_to.as_ref().map(ToString::to_string),
        rollback_hooks: input.rollback_hooks.to_vec(),
        components: Vec::new(),
        status: if deployed.is_some() {
            RevisionStatus::PendingUpgrade
        } else {
            RevisionStatus::PendingInstall
        },
        description: String::new(),
        reason: None,
        first_deployed,
        last_deployed: input.now.to_string(),
        conditions: Vec::new(),
        hooks_completed: Vec::new(),
        hook_verdicts: Vec::new(),
        to_apply: Vec::new(),
    };
    // Components start from what is deployed; unreached ones keep that state.
    for s in &input.plan.steps {
        let prev = deployed.as_ref().and_then(|d| d.component(&s.name));
        rev.components.push(ComponentRecord {
            name: s.name.clone(),
            release: s.release.clone(),
            namespace: s.namespace.clone(),
            revision: prev.map_or(0, |p| p.revision),
            chart: prev.map(|p| p.chart.clone()).unwrap_or_default(),
            ready_when: pkg
                .component(&s.name)
                .map(|c| c.ready_when.clone())
                .unwrap_or_default(),
            backend: prev.and_then(|p| p.backend),
            post_renderers: prev.map(|p| p.post_renderers.clone()).unwrap_or_default(),
            depends_on: s.depends_on.clone(),
        });
    }
    let applying = match input.plan.action {
        Action::Install => "Install in progress",
        _ => "Upgrade in progress",
    };
    // 2. Requirements: while they are unmet the pending revision says what it waits for.
    if let Err(unmet) = run
        .await_requirements(&pkg.meta.requires, Some(&mut rev))
        .await
    {
        let message = unmet.to_string();
        // Nothing changed: nothing stays recorded.
        let pending = rev.clone().without_unapplied();
        if let Err(f) = run.forget(&pending).await {
            run.warnings.push(format!(
                "the pending revision {} could not be removed: {}; the next apply replaces it",
                pending.revision, f.message
            ));
        }
        return Ok(run.outcome(Reason::RequirementsNotMet, message, deployed_rev));
    }
    rev.reason = None;
    rev.description = applying.into();
    if let Err(f) = run.record(&rev.clone().without_unapplied()).await {
        return run.not_recorded(f, deployed_rev);
    }

    let from_version = deployed.as_ref().and_then(|d| d.semver());
    let to_version = &pkg.meta.version;
    let context_for = |component: &str| {
        upgrade_context(
            from_version.as_ref(),
            to_version,
            input.previous_values.get(component),
        )
    };

    // 3. Hooks.
    let from_text = deployed
        .as_ref()
        .map(|d| d.version.clone())
        .unwrap_or_default();
    let mut hooks_run = Vec::new();
    for h in input.plan.hooks.iter().filter(|h| h.runs) {
        let Some(c) = pkg.component(&h.name) else {
            continue;
        };
        let this_run = HookRun {
            name: h.name.clone(),
            from_version: from_text.clone(),
            to_version: to_version.to_string(),
        };
        if let Some((by, _)) = completed_before.iter().find(|(_, d)| *d == this_run) {
            // A migration that already ran must not run twice.
            run.cluster.progress(Event::message(
                Some(&h.name),
                Message::HookCompletedBefore {
                    revision: *by,
                    from_version: this_run.from_version.clone(),
                    to_version: this_run.to_version.clone(),
                },
            ));
            rev.hooks_completed.push(this_run);
            hooks_run.push(h);
            continue;
        }
        if !hooks_run.is_empty() {
            // The hooks completed so far are recorded before this one changes anything (the
            // last one's completion goes with the record before the first component).
            rev.description = format!("{applying}: running PreUpgrade hook {}", h.name);
            if let Err(f) = run.record(&rev.clone().without_unapplied()).await {
                return run.not_recorded(f, deployed_rev);
            }
        }
        run.changed = true;
        let ctx = context_for(&h.name);
        let call = HookCall {
            name: h.name.clone(),
            release: h.release.clone(),
            namespace: h.namespace.clone(),
            chart: c.chart.clone(),
            values: supplied(pkg, &h.name, input.user, Some(&ctx)),
            post_renderers: c.post_renderers.clone(),
            ready_when: c.ready_when.clone(),
            timeout: input.timeout,
            checks: "the upgrade",
        };
        let end = Box::pin(run_hook(run.cluster, call, &mut rev.hook_verdicts)).await;
        let stop = match end {
            HookEnd::Interrupted(f) => return Err(Stopped::Interrupted(f)),
            HookEnd::Done => None,
            HookEnd::Refused(v) => Some((Reason::UpgradeRefused, refusal_text(h, &v))),
            HookEnd::Failed(what) => Some((
                Reason::UpgradeFailed,
                format!(
                    "PreUpgrade hook {} {what}; nothing else was changed (its release {} is kept for its logs)",
                    h.name, h.release
                ),
            )),
        };
        if let Some((reason, message)) = stop {
            rev.status = RevisionStatus::Failed;
            return Ok(run
                .end(
                    rev.clone().without_unapplied(),
                    reason,
                    message,
                    deployed_rev,
                )
                .await);
        }
        // Recorded with the next record, before anything else changes: a run recovering this
        // one after a crash skips it.
        rev.hooks_completed.push(this_run);
        hooks_run.push(h);
    }

    // 4. Components, one at a time.
    let mut changed: Vec<(String, String, String, Option<ComponentRecord>)> = Vec::new();
    let mut changed_since_record = !hooks_run.is_empty();
    let total = input.plan.steps.len();
    for (i, s) in input.plan.steps.iter().enumerate() {
        if let Change::Unchanged { .. } = s.change {
            run.cluster.progress(Event::Unchanged {
                component: s.name.clone(),
            });
            continue;
        }
        let Some(c) = pkg.component(&s.name) else {
            continue;
        };
        // The pending revision tells what is being applied (and what already was); it is
        // written again only once something changed since it was last written.
        if changed_since_record {
            rev.description = format!(
                "{applying}: applying component {} ({} of {total})",
                s.name,
                i + 1
            );
            if let Err(f) = run.record(&rev.clone().without_unapplied()).await {
                return run.not_recorded(f, deployed_rev);
            }
        }
        changed_since_record = true;
        run.changed = true;
        run.cluster.progress(Event::Applying {
            component: s.name.clone(),
        });
        let ctx = c.gets_upgrade_context().then(|| context_for(&s.name));
        let req = ComponentApply {
            component: s.name.clone(),
            release: s.release.clone(),
            namespace: s.namespace.clone(),
            chart: c.chart.clone(),
            values: supplied(pkg, &s.name, input.user, ctx.as_ref()),
            hook: false,
            post_renderers: c.post_renderers.clone(),
        };
        let prev = deployed
            .as_ref()
            .and_then(|d| d.component(&s.name))
            .cloned();
        changed.push((s.name.clone(), s.release.clone(), s.namespace.clone(), prev));
        let failure = match run.cluster.apply_component(&req).await {
            Err(f) => Some(f),
            Ok(release_revision) => {
                rev.components[i].revision = release_revision;
                rev.components[i].backend = Some(run.cluster.backend());
                rev.components[i].post_renderers = req.post_renderers.describe();
                rev.components[i].chart = match &s.change {
                    Change::Install { chart } => chart.clone(),
                    Change::Upgrade { to_chart, .. } => to_chart.clone(),
                    Change::Unchanged { chart, .. } => chart.clone(),
                };
                run.cluster.progress(Event::Waiting {
                    component: s.name.clone(),
                });
                run.cluster
                    .wait_ready(&ReadyWait {
                        component: s.name.clone(),
                        release: s.release.clone(),
                        namespace: s.namespace.clone(),
                        ready_when: c.ready_when.clone(),
                        timeout: input.timeout,
                    })
                    .await
                    .err()
            }
        };
        if let Some(f) = failure {
            if f.kind == FailureKind::Unreachable {
                return Err(Stopped::Interrupted(f));
            }
            run.cluster.progress(Event::Failed {
                component: s.name.clone(),
                message: f.message.clone(),
            });
            let policy = rollback_policy::on_failure(
                input.history,
                deployed.as_ref(),
                &pkg.meta,
                rev.revision,
            );
            let hooks = match (&policy, deployed.as_ref().and_then(|d| d.semver())) {
                (FailurePolicy::RollBack { .. }, Some(back_to)) => pkg
                    .components
                    .iter()
                    .filter(|c| c.is_pre_rollback())
                    .map(|c| {
                        let ctx = upgrade_context(
                            Some(&pkg.meta.version),
                            &back_to,
                            Some(&supplied(pkg, &c.name, input.user, None)),
                        );
                        HookCall {
                            name: c.name.clone(),
                            release: pkg.release_name(input.name, &c.name),
                            namespace: c.namespace_or(input.namespace).to_string(),
                            chart: c.chart.clone(),
                            values: supplied(pkg, &c.name, input.user, Some(&ctx)),
                            post_renderers: c.post_renderers.clone(),
                            ready_when: c.ready_when.clone(),
                            timeout: input.timeout,
                            checks: "the rollback",
                        }
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let failed = Failed {
                component: &s.name,
                failure: f,
                changed,
                rollback_hooks: hooks,
            };
            return Box::pin(fail(run, rev, deployed.as_ref(), policy, failed)).await;
        }
        run.cluster.progress(Event::Ready {
            component: s.name.clone(),
        });
    }

    // 6. Components the package no longer has.
    for r in &input.plan.removals {
        if let Err(f) = run
            .uninstall_component(&r.name, &r.release, &r.namespace)
            .await
        {
            run.warnings.push(format!(
                "component {} was removed from the package but its release {} could not be uninstalled: {}",
                r.name, r.release, f.message
            ));
        }
    }

    // Hooks are uninstalled after a successful upgrade so the next one runs them afresh.
    for h in hooks_run {
        run.changed = true;
        if let Err(f) = run
            .cluster
            .uninstall_release(&h.release, &h.namespace)
            .await
        {
            run.warnings.push(format!(
                "hook {} succeeded but its release {} could not be uninstalled: {}; the next upgrade replaces it",
                h.name, h.release, f.message
            ));
        }
    }

    rev.status = RevisionStatus::Deployed;
    rev.reason = Some(Reason::Succeeded);
    rev.description = match input.plan.action {
        Action::Install => "Install complete".into(),
        _ => "Upgrade complete".into(),
    };
    if let Err(f) = run.record(&rev.clone().without_unapplied()).await {
        return run.not_recorded(f, deployed_rev);
    }
    if let Some(mut d) = deployed {
        d.status = RevisionStatus::Superseded;
        run.record_or_warn(&d).await;
    }
    let message = format!(
        "{} {} is deployed as revision {number}",
        pkg.meta.name, pkg.meta.version
    );
    Ok(run.outcome(Reason::Succeeded, message, Some(number)))
}

impl PackageRevision {
    /// The record without components that were never applied (release revision 0); while the
    /// run goes on, they are kept apart as what it has yet to apply (`to_apply`).
    fn without_unapplied(mut self) -> PackageRevision {
        let (applied, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.components)
            .into_iter()
            .partition(|c| c.revision > 0);
        self.components = applied;
        self.to_apply = if self.status.is_pending() {
            rest
        } else {
            Vec::new()
        };
        self
    }
}

/// A hook to run (a `PreUpgrade` or `PreRollback` component): its release, chart and values.
struct HookCall {
    name: String,
    release: String,
    namespace: String,
    chart: ChartSource,
    values: Map<String, Value>,
    post_renderers: kubepkg_chart::postrender::PostRenderers,
    ready_when: Vec<ReadyCondition>,
    timeout: Duration,
    /// What the hook checks, for messages ("the upgrade", "the rollback").
    checks: &'static str,
}

/// How a hook ended.
enum HookEnd {
    /// Its Job completed and it refused nothing (its verdict, if any, was `proceed`).
    Done,
    /// It reported the verdict `refused`.
    Refused(crate::verdict::Verdict),
    /// It failed, could not check (`check_failed`), or reported a verdict that cannot be read:
    /// the words after the hook's name ("failed: …", "could not check …").
    Failed(String),
    /// The cluster stopped answering ([`FailureKind::Unreachable`]).
    Interrupted(Failure),
}

/// Runs one hook: installs its release afresh, waits for its Job, reads its verdict (whether
/// the Job succeeded or failed: a check that refuses usually exits non-zero) and reports
/// each step. Verdicts are appended to `verdicts`.
async fn run_hook<C: Cluster>(
    cluster: &mut C,
    call: HookCall,
    verdicts: &mut Vec<crate::verdict::Verdict>,
) -> HookEnd {
    cluster.progress(Event::HookRunning {
        component: call.name.clone(),
    });
    let req = ComponentApply {
        component: call.name.clone(),
        release: call.release.clone(),
        namespace: call.namespace.clone(),
        chart: call.chart,
        values: call.values,
        hook: true,
        post_renderers: call.post_renderers,
    };
    let result = match cluster.apply_component(&req).await {
        Ok(_) => {
            cluster
                .wait_ready(&ReadyWait {
                    component: call.name.clone(),
                    release: call.release.clone(),
                    namespace: call.namespace.clone(),
                    ready_when: call.ready_when,
                    timeout: call.timeout,
                })
                .await
        }
        Err(f) => Err(f),
    };
    if let Err(f) = &result
        && f.kind == FailureKind::Unreachable
    {
        return HookEnd::Interrupted(f.clone());
    }
    let verdict = if matches!(&result, Err(f) if f.kind != FailureKind::NotReady) {
        Ok(None)
    } else {
        let output = cluster.hook_output(&call.release, &call.namespace).await;
        crate::verdict::read(&call.name, &output)
    };
    let end = match (verdict, result) {
        (Err(e), _) => HookEnd::Failed(format!("failed: {e}")),
        (Ok(Some(v)), result) => {
            cluster.progress(Event::message(
                Some(&call.name),
                Message::HookVerdict {
                    verdict: v.verdict.to_string(),
                    message: v.message.clone(),
                    affected: v.affected_text(),
                },
            ));
            verdicts.push(v.clone());
            match (v.verdict, result) {
                (VerdictKind::Refused, _) => HookEnd::Refused(v),
                (VerdictKind::CheckFailed, _) => HookEnd::Failed(format!(
                    "could not check {} (verdict check_failed){}",
                    call.checks,
                    if v.message.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", v.message)
                    }
                )),
                (VerdictKind::Proceed, Err(f)) => HookEnd::Failed(format!("failed: {}", f.message)),
                (VerdictKind::Proceed, Ok(())) => HookEnd::Done,
            }
        }
        (Ok(None), Err(f)) => HookEnd::Failed(format!("failed: {}", f.message)),
        (Ok(None), Ok(())) => HookEnd::Done,
    };
    match &end {
        HookEnd::Done => cluster.progress(Event::Ready {
            component: call.name.clone(),
        }),
        HookEnd::Refused(v) => cluster.progress(Event::Failed {
            component: call.name.clone(),
            message: format!("refused: {}", v.message),
        }),
        HookEnd::Failed(what) => cluster.progress(Event::Failed {
            component: call.name.clone(),
            message: what.strip_prefix("failed: ").unwrap_or(what).to_string(),
        }),
        HookEnd::Interrupted(f) => cluster.progress(Event::Failed {
            component: call.name.clone(),
            message: f.message.clone(),
        }),
    }
    end
}

/// The message of an upgrade a check hook refused: its reason, what it affects, how to approve.
fn refusal_text(h: &crate::plan::HookPlan, v: &crate::verdict::Verdict) -> String {
    let mut text = format!("PreUpgrade hook {} refused the upgrade", h.name);
    if !v.message.is_empty() {
        text.push_str(&format!(": {}", v.message));
    }
    if !v.affected.is_empty() {
        text.push_str(&format!("; affected: {}", v.affected_text()));
    }
    text.push_str("; nothing else was changed");
    match &v.approve {
        Some(how) => text.push_str(&format!("; to approve, apply again with {how}")),
        None => text.push_str(
            "; to go ahead, give the approval the check asks for (see its log) and apply again",
        ),
    }
    text
}

/// What a `PreRollback` hook's end says about the rollback: `None` when it may go on, else the
/// words after the hook's name ("refused the rollback: …", "failed: …").
fn rollback_stopped(end: HookEnd) -> Option<String> {
    match end {
        HookEnd::Done => None,
        HookEnd::Refused(v) if v.message.is_empty() => Some("refused the rollback".into()),
        HookEnd::Refused(v) => Some(format!("refused the rollback: {}", v.message)),
        HookEnd::Failed(what) => Some(what),
        HookEnd::Interrupted(f) => Some(format!("failed: {}", f.message)),
    }
}

/// Uninstalls the releases of hooks that succeeded (a warning for each that cannot be).
async fn uninstall_hooks<C: Cluster>(run: &mut Run<'_, C>, releases: &[(String, String)]) {
    for (release, namespace) in releases {
        if let Err(f) = run.cluster.uninstall_release(release, namespace).await {
            run.warnings.push(format!(
                "hook release {release} could not be uninstalled: {}; the next run replaces it",
                f.message
            ));
        }
    }
}

/// A component that failed, what the apply had changed so far, and the `PreRollback` hooks
/// that must agree before those changes are rolled back.
struct Failed<'a> {
    component: &'a str,
    failure: Failure,
    changed: Vec<(String, String, String, Option<ComponentRecord>)>,
    rollback_hooks: Vec<HookCall>,
}

/// Failure of a component: what the rollback policy decided (`policy`, from
/// [`rollback_policy::on_failure`]): keep (first install), roll back, or stop.
async fn fail<C: Cluster>(
    mut run: Run<'_, C>,
    mut rev: PackageRevision,
    deployed: Option<&PackageRevision>,
    policy: FailurePolicy,
    failed: Failed<'_>,
) -> Result<Outcome, Stopped> {
    let Failed {
        component,
        failure,
        changed,
        rollback_hooks,
    } = failed;
    let cause = format!("component {component} failed: {}", failure.message);
    rev.status = RevisionStatus::Failed;
    let (deployed, floors) = match (deployed, &policy) {
        (Some(d), FailurePolicy::RollBack { floors, .. }) => (d, floors.clone()),
        stopped => {
            let (reason, message, left) = match stopped {
                (None, _) | (_, FailurePolicy::KeepForDiagnosis) => (
                    Reason::InstallFailed,
                    format!(
                        "{cause}; this is a first install, so nothing is rolled back and its state is kept for diagnosis"
                    ),
                    None,
                ),
                (Some(d), stop) => {
                    let why = match stop {
                        FailurePolicy::StopForbidden { forbidden_by, .. } => format!(
                            "the rollback policy forbids version {} to run again: {}",
                            d.version,
                            rollback_policy::join(forbidden_by)
                        ),
                        FailurePolicy::StopUpgradeFailed {
                            declared: Some(false),
                        } => format!("version {} declares rollback.safe: false", rev.version),
                        _ => format!(
                            "version {} does not declare rollback.safe: true",
                            rev.version
                        ),
                    };
                    (
                        Reason::UpgradeFailed,
                        format!(
                            "{cause}; {why}, so nothing is rolled back: fix forward with a new version"
                        ),
                        Some(d.revision),
                    )
                }
            };
            return Ok(run
                .end(rev.without_unapplied(), reason, message, left)
                .await);
        }
    };
    let allowed_by = if floors.is_empty() {
        String::new()
    } else {
        let floors: Vec<String> = floors.iter().map(ToString::to_string).collect();
        format!(" (allowed by {})", floors.join(" and "))
    };

    // The version being left may refuse to be rolled back (its PreRollback hooks).
    let mut hook_releases = Vec::new();
    for call in rollback_hooks {
        let (name, release, namespace) = (
            call.name.clone(),
            call.release.clone(),
            call.namespace.clone(),
        );
        run.changed = true;
        let end = Box::pin(run_hook(run.cluster, call, &mut rev.hook_verdicts)).await;
        let Some(why) = rollback_stopped(end) else {
            hook_releases.push((release, namespace));
            continue;
        };
        let message = format!(
            "{cause}; the automatic rollback to revision {} was stopped: PreRollback hook {name} {why}; nothing was rolled back (its release {release} is kept for its logs): fix forward with a new version",
            deployed.revision
        );
        return Ok(run
            .end(
                rev.without_unapplied(),
                Reason::UpgradeFailed,
                message,
                Some(deployed.revision),
            )
            .await);
    }

    // Safe: record the failure, then undo every changed component, newest first.
    rev.reason = Some(Reason::RolledBack);
    rev.description = format!(
        "{cause}; rolled back to revision {}{allowed_by}",
        deployed.revision
    );
    let failed_number = rev.revision;
    run.record_or_warn(&rev.without_unapplied()).await;
    let mut back = deployed.clone();
    back.revision = failed_number + 1;
    back.status = RevisionStatus::PendingRollback;
    back.description = format!("Rollback to {}", deployed.revision);
    back.last_deployed = run.cluster.now();
    back.reason = None;
    back.hooks_completed.clear();
    back.hook_verdicts.clear();
    // Recorded before anything is rolled back, so a crash in the middle is seen (and recovered
    // by the next apply) instead of leaving a failed revision that claims a finished rollback.
    run.record_or_warn(&back).await;
    for (name, release, namespace, prev) in changed.into_iter().rev() {
        run.cluster.progress(Event::RollingBack {
            component: name.clone(),
        });
        let result = match &prev {
            Some(p) => run
                .cluster
                .rollback_component(&release, &namespace, p.revision)
                .await
                .map(Some),
            None => run
                .cluster
                .uninstall_release(&release, &namespace)
                .await
                .map(|()| None),
        };
        match result {
            Ok(new_release_revision) => {
                if let (Some(r), Some(c)) = (
                    new_release_revision,
                    back.components.iter_mut().find(|c| c.name == name),
                ) {
                    c.revision = r;
                }
                run.cluster.progress(Event::RolledBack { component: name });
            }
            Err(f) if f.kind == FailureKind::Unreachable => {
                // The cluster stopped answering mid-rollback: the next operation recovers.
                return Err(Stopped::Interrupted(f));
            }
            Err(f) => {
                let message = format!(
                    "{cause}; rolling back component {name} failed too: {}; stopped, the package is partly rolled back",
                    f.message
                );
                back.status = RevisionStatus::Failed;
                return Ok(run
                    .end(
                        back,
                        Reason::UpgradeFailed,
                        message,
                        Some(deployed.revision),
                    )
                    .await);
            }
        }
    }
    uninstall_hooks(&mut run, &hook_releases).await;
    back.status = RevisionStatus::Deployed;
    back.reason = Some(Reason::RolledBack);
    // Why, beside Helm's words: the Package's `Ready` message and `history` show it.
    back.description = format!("Rollback to {}: {cause}", deployed.revision);
    run.record_or_warn(&back).await;
    let mut old = deployed.clone();
    old.status = RevisionStatus::Superseded;
    run.record_or_warn(&old).await;
    let message = format!(
        "{cause}; rolled back to revision {} ({} {}), recorded as revision {}",
        deployed.revision, deployed.package, deployed.version, back.revision
    );
    Ok(run.outcome(Reason::RolledBack, message, Some(back.revision)))
}

/// A `PreRollback` hook of the deployed version, ready to run: its record and its chart on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedHook {
    pub record: crate::revision::RollbackHook,
    pub chart: ChartSource,
}

/// A `PreRollback` hook that stopped a manual rollback.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "PreRollback hook {hook} of version {version} {why}; the rollback of package {name} to revision {target} did not start, nothing was rolled back (its release {release} is kept for its logs); fix what it reports, or use --force to roll back anyway"
)]
pub struct HookRefusal {
    pub name: String,
    pub target: u64,
    pub version: String,
    pub hook: String,
    pub release: String,
    pub why: String,
}

/// Why `kubepkg rollback` refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RollbackRefused {
    #[error(transparent)]
    Hook(Box<HookRefusal>),
    #[error("package {name} has no revision to roll back to")]
    NothingToRollBackTo { name: String },
    #[error("package {name} has no revision {revision}; see `kubepkg history {name}`")]
    NoSuchRevision { name: String, revision: u64 },
    #[error(
        "revision {revision} of package {name} is still {status}; wait for it to finish or apply again to recover"
    )]
    Pending {
        name: String,
        revision: u64,
        status: String,
    },
    #[error(
        "revision {target} of package {name} runs version {version}, which may not run again: {}; fix forward with a new version, or use --force to roll back anyway",
        rollback_policy::join(forbidden_by)
    )]
    Unsafe {
        name: String,
        /// The revision to roll back to, and its version.
        target: u64,
        version: String,
        /// The versions that ran since and forbid it.
        forbidden_by: Vec<Forbidder>,
    },
}

/// Rolls a package back to `target` (or the revision before the deployed one). Never runs hooks;
/// recorded as a new revision. `timeout` is the per-component readiness timeout.
#[allow(clippy::too_many_arguments)]
pub async fn rollback<C: Cluster>(
    cluster: &mut C,
    history: &History,
    name: &str,
    target: Option<u64>,
    force: bool,
    timeout: Duration,
    now: &str,
    rollback_hooks: &[PreparedHook],
) -> Result<Outcome, Stopped> {
    // An operation that never finished is recovered by applying again, whatever the target.
    if let Some(latest) = history.latest().filter(|l| l.status.is_pending()) {
        return Err(RollbackRefused::Pending {
            name: name.into(),
            revision: latest.revision,
            status: latest.status.as_str().into(),
        }
        .into());
    }
    let current = history
        .deployed()
        .or(history.latest())
        .ok_or_else(|| RollbackRefused::NothingToRollBackTo { name: name.into() })?
        .clone();
    let target = match target {
        Some(n) => history.get(n).ok_or(RollbackRefused::NoSuchRevision {
            name: name.into(),
            revision: n,
        })?,
        None => history
            .rollback_target()
            .ok_or_else(|| RollbackRefused::NothingToRollBackTo { name: name.into() })?,
    }
    .clone();
    let forbidden_by = rollback_policy::forbidders(history, &target.version);
    if !forbidden_by.is_empty() && !force {
        return Err(RollbackRefused::Unsafe {
            name: name.into(),
            target: target.revision,
            version: target.version.clone(),
            forbidden_by,
        }
        .into());
    }
    let mut run = Run::new(cluster, now);
    // The version being left may refuse (its PreRollback hooks, kept in its revision).
    let mut verdicts = Vec::new();
    let mut hook_releases = Vec::new();
    let (from, to) = (current.semver(), target.semver());
    for h in rollback_hooks {
        let mut values = h.record.values.clone();
        if let Some(to) = &to {
            values.extend(upgrade_context(from.as_ref(), to, Some(&h.record.values)));
        }
        let call = HookCall {
            name: h.record.name.clone(),
            release: h.record.release.clone(),
            namespace: h.record.namespace.clone(),
            chart: h.chart.clone(),
            values,
            // A kept PreRollback hook runs as recorded, without post-renderers.
            post_renderers: Default::default(),
            ready_when: h.record.ready_when.clone(),
            timeout,
            checks: "the rollback",
        };
        run.changed = true;
        let end = Box::pin(run_hook(run.cluster, call, &mut verdicts)).await;
        let Some(why) = rollback_stopped(end) else {
            hook_releases.push((h.record.release.clone(), h.record.namespace.clone()));
            continue;
        };
        if force {
            run.warnings.push(format!(
                "PreRollback hook {} {why}; rolling back anyway (--force)",
                h.record.name
            ));
            continue;
        }
        return Err(RollbackRefused::Hook(Box::new(HookRefusal {
            name: name.into(),
            target: target.revision,
            version: current.version.clone(),
            hook: h.record.name.clone(),
            release: h.record.release.clone(),
            why,
        }))
        .into());
    }
    if let Err(f) = supersede_stale(&mut run, history).await {
        return run.not_recorded(f, Some(current.revision));
    }
    let number = history.next_revision();
    let mut rev = target.clone();
    rev.revision = number;
    rev.status = RevisionStatus::PendingRollback;
    rev.description = format!("Rollback to {}", target.revision);
    rev.reason = None;
    rev.last_deployed = now.to_string();
    rev.first_deployed = current.first_deployed.clone();
    rev.hooks_completed.clear();
    rev.hook_verdicts = verdicts;
    if let Err(f) = run.record(&rev).await {
        return run.not_recorded(f, Some(current.revision));
    }
    // After a failed revision that was not rolled back (UpgradeFailed), its components may run
    // newer release revisions than `current` records: then every component is rolled back.
    let settled = history.latest().map(|l| l.revision) == Some(current.revision);
    for i in 0..rev.components.len() {
        let c = rev.components[i].clone();
        if settled
            && current
                .component(&c.name)
                .is_some_and(|cur| cur.revision == c.revision && cur.release == c.release)
        {
            run.cluster.progress(Event::Unchanged {
                component: c.name.clone(),
            });
            continue;
        }
        run.cluster.progress(Event::RollingBack {
            component: c.name.clone(),
        });
        run.changed = true;
        let result = match run
            .cluster
            .rollback_component(&c.release, &c.namespace, c.revision)
            .await
        {
            Ok(r) => {
                rev.components[i].revision = r;
                run.cluster.progress(Event::Waiting {
                    component: c.name.clone(),
                });
                run.cluster
                    .wait_ready(&ReadyWait {
                        component: c.name.clone(),
                        release: c.release.clone(),
                        namespace: c.namespace.clone(),
                        ready_when: c.ready_when.clone(),
                        timeout,
                    })
                    .await
            }
            Err(f) => Err(f),
        };
        if let Err(f) = result {
            let message = format!(
                "rollback to revision {} stopped: component {} failed: {}",
                target.revision, c.name, f.message
            );
            run.cluster.progress(Event::Failed {
                component: c.name.clone(),
                message: f.message,
            });
            rev.status = RevisionStatus::Failed;
            return Ok(run
                .end(rev, Reason::UpgradeFailed, message, Some(current.revision))
                .await);
        }
        run.cluster
            .progress(Event::RolledBack { component: c.name });
    }
    // Components the target revision did not have: uninstall, newest first.
    for c in current.components.iter().rev() {
        if target.component(&c.name).is_none()
            && let Err(f) = run
                .uninstall_component(&c.name, &c.release, &c.namespace)
                .await
        {
            run.warnings.push(format!(
                "component {} is not in revision {} but its release {} could not be uninstalled: {}",
                c.name, target.revision, c.release, f.message
            ));
        }
    }
    uninstall_hooks(&mut run, &hook_releases).await;
    rev.status = RevisionStatus::Deployed;
    rev.reason = Some(Reason::Succeeded);
    if let Err(f) = run.record(&rev).await {
        return run.not_recorded(f, Some(current.revision));
    }
    if current.status == RevisionStatus::Deployed {
        let mut old = current.clone();
        old.status = RevisionStatus::Superseded;
        run.record_or_warn(&old).await;
    }
    let message = format!(
        "rolled back to revision {} ({} {}), recorded as revision {number}",
        target.revision, target.package, target.version
    );
    Ok(run.outcome(Reason::Succeeded, message, Some(number)))
}

/// Drives a future whose cluster side never waits (the fake in tests, or a synchronous
/// implementation) to completion on the current thread.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    loop {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests;
