//! Orchestrator rules (docs/rules.md) against a fake cluster. Test names start with the rule
//! number.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::json;

use super::*;
use crate::plan::{Intent, Previous, RenderedComponent, plan};
use kubepkg_model::source::load_dir;

/// A scripted cluster: releases are counters, failures are chosen per component.
#[derive(Default)]
struct Fake {
    requirements: BTreeMap<String, RequirementState>,
    /// Applied to `requirements` on each wait; when empty a wait times out.
    requirement_changes: Vec<(String, RequirementState)>,
    releases: BTreeMap<String, u64>,
    records: BTreeMap<u64, PackageRevision>,
    /// Every record written, in order.
    writes: Vec<PackageRevision>,
    fail_apply: BTreeSet<String>,
    fail_ready: BTreeSet<String>,
    fail_rollback: BTreeSet<String>,
    values: BTreeMap<String, Map<String, Value>>,
    timeouts: Vec<Duration>,
    log: Vec<String>,
    progress: Vec<Event>,
    /// Cluster calls made; when `crash_at` is reached the call never returns (the process
    /// "dies" there: the test drops the future).
    calls: usize,
    crash_at: Option<usize>,
    /// Record calls made; the one numbered `fail_record_at` fails.
    record_calls: usize,
    fail_record_at: Option<usize>,
    /// The failing record went through, its answer lost (the error comes back anyway).
    record_answer_lost: bool,
    /// The backend the fake says it applies with.
    backend: kubepkg_model::Backend,
}

impl Fake {
    async fn step(&mut self) {
        self.calls += 1;
        if self.crash_at == Some(self.calls) {
            std::future::pending::<()>().await;
        }
    }
}

impl Cluster for Fake {
    async fn requirement(&mut self, name: &str) -> RequirementState {
        self.requirements
            .get(name)
            .cloned()
            .unwrap_or(RequirementState::Absent)
    }
    async fn wait_for_requirements(&mut self) -> Waited {
        self.log.push("wait requirements".into());
        if self.requirement_changes.is_empty() {
            return Waited::TimedOut;
        }
        let (n, s) = self.requirement_changes.remove(0);
        self.requirements.insert(n, s);
        Waited::Changed
    }
    async fn record(&mut self, r: &PackageRevision) -> Result<(), Failure> {
        self.step().await;
        self.record_calls += 1;
        if self.fail_record_at == Some(self.record_calls) {
            self.log.push(format!(
                "record {} {} refused",
                r.revision,
                r.status.as_str()
            ));
            if self.record_answer_lost {
                self.records.insert(r.revision, r.clone());
                return Err(Failure::new(FailureKind::Record, "client error (Connect)"));
            }
            return Err(Failure::new(FailureKind::Record, "secrets is forbidden"));
        }
        self.log
            .push(format!("record {} {}", r.revision, r.status.as_str()));
        self.records.insert(r.revision, r.clone());
        self.writes.push(r.clone());
        Ok(())
    }
    async fn forget(&mut self, r: &PackageRevision) -> Result<(), Failure> {
        self.step().await;
        self.log.push(format!("forget {}", r.revision));
        self.records.remove(&r.revision);
        Ok(())
    }
    async fn apply_component(&mut self, req: &ComponentApply) -> Result<u64, Failure> {
        self.step().await;
        let what = if req.hook { "hook" } else { "apply" };
        self.log.push(format!("{what} {}", req.component));
        self.values
            .insert(req.component.clone(), req.values.clone());
        let n = self.releases.entry(req.release.clone()).or_insert(0);
        *n += 1;
        if self.fail_apply.contains(&req.component) {
            return Err(Failure::new(FailureKind::Render, "render error: boom"));
        }
        Ok(*n)
    }
    async fn wait_ready(&mut self, req: &ReadyWait) -> Result<(), Failure> {
        self.step().await;
        self.log.push(format!("ready {}", req.component));
        self.timeouts.push(req.timeout);
        if self.fail_ready.contains(&req.component) {
            return Err(Failure::new(
                FailureKind::NotReady,
                "timed out waiting for KubeVirt kubevirt/kubevirt: Available is False",
            ));
        }
        Ok(())
    }
    async fn rollback_component(
        &mut self,
        release: &str,
        _ns: &str,
        to: u64,
    ) -> Result<u64, Failure> {
        self.step().await;
        self.log.push(format!("rollback {release} to {to}"));
        if self.fail_rollback.contains(release) {
            return Err(Failure::new(FailureKind::Rollback, "rollback refused"));
        }
        let n = self.releases.entry(release.to_string()).or_insert(0);
        *n += 1;
        Ok(*n)
    }
    async fn uninstall_release(&mut self, release: &str, _ns: &str) -> Result<(), Failure> {
        self.step().await;
        self.log.push(format!("uninstall {release}"));
        self.releases.remove(release);
        Ok(())
    }
    fn progress(&mut self, event: Event) {
        self.progress.push(event);
    }
    fn now(&self) -> String {
        "2026-11-29T00:00:01Z".into()
    }
    fn backend(&self) -> kubepkg_model::Backend {
        self.backend
    }
}

/// The kubevirt test package (`testdata/packages/kubevirt`) as it is, `requires` included.
fn kubevirt() -> Package {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/packages/kubevirt"))
        .unwrap()
}

/// [`package`] 1.0.0, rollback-safe, requiring what the kubevirt test package requires
/// (cert-manager, and monitoring as optional).
fn package_with_requires() -> Package {
    let mut p = package("1.0.0", Some(true));
    p.meta.requires = kubevirt().meta.requires;
    p
}

/// A required package the cluster has installed at `version`, Ready or not.
fn installed(version: &str, ready: bool) -> RequirementState {
    RequirementState::Present {
        version: version.into(),
        ready,
    }
}

fn package(version: &str, safe: Option<bool>) -> Package {
    let mut p = kubevirt();
    p.meta.version = kubepkg_semver::Version::parse_strict(version).unwrap();
    p.meta.rollback_safe = safe;
    p.meta.requires.clear();
    p
}

fn rendered(version: &str, tweak: &str) -> BTreeMap<String, RenderedComponent> {
    ["operator", "kubevirt", "migrate", "worker"]
        .iter()
        .map(|c| {
            (
                c.to_string(),
                RenderedComponent {
                    chart: format!("{c}-{version}"),
                    objects: manifest_objects(&format!(
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {c}\ndata:\n  v: \"{version}{tweak}\"\n"
                    )),
                },
            )
        })
        .collect()
}

struct Scenario {
    fake: Fake,
    history: Vec<PackageRevision>,
    rendered_now: BTreeMap<String, RenderedComponent>,
}

impl Scenario {
    fn new() -> Scenario {
        Scenario {
            fake: Fake::default(),
            history: Vec::new(),
            rendered_now: BTreeMap::new(),
        }
    }

    /// A scenario that applied [`package`]`(version, safe)` of each of `versions` in turn.
    fn applied(versions: &[(&str, Option<bool>)]) -> Scenario {
        let mut s = Scenario::new();
        for (version, safe) in versions {
            s.apply(&package(version, *safe), &UserValues::new(), "");
        }
        s
    }

    /// Applies `pkg` with user values; the previous rendering is what the last apply rendered.
    fn apply(&mut self, pkg: &Package, user: &UserValues, tweak: &str) -> Outcome {
        self.try_apply(pkg, user, tweak, false)
            .unwrap_or_else(|e| panic!("stopped: {e}"))
    }

    /// [`Scenario::apply`] that may stop before anything changed (`allow_downgrade`:
    /// `--allow-downgrade`).
    fn try_apply(
        &mut self,
        pkg: &Package,
        user: &UserValues,
        tweak: &str,
        allow_downgrade: bool,
    ) -> Result<Outcome, Stopped> {
        let history = History::new(self.history.clone());
        let now = rendered(&pkg.meta.version.to_string(), tweak);
        let prev_rendered = std::mem::take(&mut self.rendered_now);
        let previous = history.deployed().map(|r| Previous {
            revision: r,
            history: &history,
            rendered: &prev_rendered,
        });
        let p = plan(pkg, "kv", "kubepkg-system", Intent::Apply, previous, &now);
        let previous_values: BTreeMap<String, Map<String, Value>> = self.fake.values.clone();
        self.fake.log.clear();
        let out = block_on(apply(
            &mut self.fake,
            ApplyInput {
                allow_downgrade,
                ..apply_input(
                    "kubepkg-system",
                    pkg,
                    user,
                    &history,
                    &previous_values,
                    &p,
                    "2026-11-29T00:00:00Z",
                )
            },
        ));
        self.history = self.fake.records.values().cloned().collect();
        self.rendered_now = if out.as_ref().is_ok_and(|o| o.reason == Reason::Succeeded) {
            now
        } else {
            prev_rendered
        };
        out
    }

    /// Upgrades the deployed 1.0.0 to `pkg` on a cluster that stops answering at its call
    /// `fake.crash_at`, and says whether the run crashed (did not finish). The cluster is then
    /// up again, and the scenario goes on from what the crashed run recorded, 1.0.0's rendering
    /// being the last one.
    fn upgrade_until_crash(&mut self, pkg: &Package) -> bool {
        let history = History::new(self.history.clone());
        let old = rendered("1.0.0", "");
        let now = rendered(&pkg.meta.version.to_string(), "");
        let p = plan(
            pkg,
            "kv",
            "kubepkg-system",
            Intent::Apply,
            history.deployed().map(|r| Previous {
                revision: r,
                history: &history,
                rendered: &old,
            }),
            &now,
        );
        let (user, prev_values) = (UserValues::new(), BTreeMap::new());
        self.fake.log.clear();
        let crashed = run_until_crash(apply(
            &mut self.fake,
            apply_input(
                "kubepkg-system",
                pkg,
                &user,
                &history,
                &prev_values,
                &p,
                "t",
            ),
        ))
        .is_none();
        self.fake.crash_at = None;
        self.history = self.fake.records.values().cloned().collect();
        self.rendered_now = old;
        crashed
    }

    /// What a run that crashed left behind: revision 2, revision 1's record still
    /// `pending-upgrade` as `change` makes it, is recorded and the next apply starts from it.
    fn left_pending(&mut self, change: impl FnOnce(&mut PackageRevision)) {
        let mut pending = self.fake.records[&1].clone();
        pending.revision = 2;
        pending.status = RevisionStatus::PendingUpgrade;
        change(&mut pending);
        self.fake.records.insert(2, pending);
        self.history = self.fake.records.values().cloned().collect();
    }

    /// The history the cluster holds now.
    fn recorded(&self) -> History {
        History::new(self.fake.records.values().cloned().collect())
    }

    /// A scenario whose cluster has these required packages, by name, in these states.
    fn requiring<const N: usize>(states: [(&str, RequirementState); N]) -> Scenario {
        let mut s = Scenario::new();
        for (name, state) in states {
            s.fake.requirements.insert(name.into(), state);
        }
        s
    }

    /// A scenario that applied `first`, then 2.0.0 declaring `rollback.safe: false`, then
    /// `last` (`first` and `last` rollback-safe): a version that forbids going back ran since
    /// `first`, though not last.
    fn unsafe_in_between(first: &str, last: &str) -> Scenario {
        Scenario::applied(&[
            (first, Some(true)),
            ("2.0.0", Some(false)),
            (last, Some(true)),
        ])
    }

    fn status_of(&self, n: u64) -> RevisionStatus {
        self.fake.records[&n].status
    }
}

/// A manual rollback of `kv` over `history` on the scenario's cluster: to `target` (`None`:
/// the previous revision), `force` being `--force`.
fn manual_rollback(
    s: &mut Scenario,
    history: &History,
    target: Option<u64>,
    force: bool,
) -> Result<Outcome, Stopped> {
    block_on(rollback(
        &mut s.fake,
        history,
        "kv",
        target,
        force,
        DEFAULT_TIMEOUT,
        "t",
        &[],
    ))
}

/// Applies [`package`]`(version, safe)` of each of `versions` in turn, the component `failing`
/// never becoming ready during the last one: the scenario and the last one's outcome.
fn failing_last(failing: &str, versions: &[(&str, Option<bool>)]) -> (Scenario, Outcome) {
    let (&(version, safe), before) = versions.split_last().expect("a version to apply");
    let mut s = Scenario::applied(before);
    s.fake.fail_ready.insert(failing.into());
    let out = s.apply(&package(version, safe), &UserValues::new(), "");
    (s, out)
}

/// What `apply` is given to apply `package` as `kv` in `namespace` over `history` with the plan
/// `plan`, stamped `now`: the default timeout, no `--allow-*` flag, no `PreRollback` hooks.
fn apply_input<'a>(
    namespace: &'a str,
    package: &'a Package,
    user: &'a UserValues,
    history: &'a History,
    previous_values: &'a BTreeMap<String, Map<String, Value>>,
    plan: &'a Plan,
    now: &'a str,
) -> ApplyInput<'a> {
    ApplyInput {
        name: "kv",
        namespace,
        package,
        user,
        history,
        previous_values,
        plan,
        timeout: DEFAULT_TIMEOUT,
        now,
        allow_downgrade: false,
        allow_unsafe_crd_changes: false,
        rollback_hooks: &[],
    }
}

fn log(s: &Scenario) -> Vec<&str> {
    s.fake.log.iter().map(String::as_str).collect()
}

#[test]
fn rule1_components_one_at_a_time_dependencies_first_and_waited_for() {
    let mut s = Scenario::new();
    let out = s.apply(&package("1.0.0", Some(true)), &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
    assert_eq!(
        log(&s),
        [
            "record 1 pending-install",
            "apply operator",
            "ready operator",
            "record 1 pending-install",
            "apply kubevirt",
            "ready kubevirt",
            "record 1 pending-install",
            "apply worker",
            "ready worker",
            "record 1 deployed",
        ]
    );
    assert_eq!(out.deployed_revision, Some(1));
    // The pending revision was re-recorded before each component with what it applies; the
    // final one is Ready.
    let r = &s.fake.records[&1];
    assert_eq!(r.description, "Install complete");
    assert_eq!(
        crate::conditions::summary(&r.conditions),
        crate::conditions::Summary::Current
    );
}

#[test]
fn rule2_requirements_not_met_waits_then_times_out_without_changes() {
    let mut s = Scenario::new();
    let pkg = package_with_requires();
    let out = s.apply(&pkg, &UserValues::new(), "");
    assert_eq!(out.reason, Reason::RequirementsNotMet);
    assert_eq!(
        out.message,
        "waiting for package cert-manager (not installed)"
    );
    // Recorded as pending (RequirementsNotMet) while waiting, removed when the wait ends.
    assert_eq!(
        log(&s),
        ["record 1 pending-install", "wait requirements", "forget 1"]
    );
    assert!(s.fake.records.is_empty() && s.fake.releases.is_empty());
    assert_eq!(
        s.fake.progress,
        [Event::WaitingForRequirements {
            message: "waiting for package cert-manager (not installed)".into()
        }]
    );
}

#[test]
fn rule2_waiting_is_recorded_as_requirements_not_met_then_progressing() {
    use crate::conditions::{Summary, summary};
    let mut s = Scenario::new();
    let pkg = package_with_requires();
    s.fake.requirement_changes = vec![("cert-manager".into(), installed("1.14.0", true))];
    let out = s.apply(&pkg, &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
    let w = &s.fake.writes;
    // First write: pending, waiting for cert-manager, nothing applied.
    assert_eq!(w[0].status, RevisionStatus::PendingInstall);
    assert_eq!(w[0].reason, Some(Reason::RequirementsNotMet));
    assert_eq!(
        w[0].description,
        "waiting for package cert-manager (not installed)"
    );
    assert_eq!(w[0].conditions[0].type_, "Ready");
    assert_eq!(w[0].conditions[0].reason, "RequirementsNotMet");
    assert_eq!(summary(&w[0].conditions), Summary::InProgress);
    // Then the same revision, progressing, before anything is applied.
    assert_eq!((w[1].revision, w[1].reason), (1, None));
    assert_eq!(w[1].conditions[0].reason, "Progressing");
    assert_eq!(
        log(&s)[..3],
        [
            "record 1 pending-install",
            "wait requirements",
            "record 1 pending-install"
        ]
    );
    assert_eq!(summary(&w.last().unwrap().conditions), Summary::Current);
}

#[test]
fn rule2_a_run_that_died_waiting_for_requirements_leaves_nothing_behind() {
    let mut s = Scenario::applied(&[("1.0.0", Some(true))]);
    // A crashed run that only waited: revision 2 pending with RequirementsNotMet.
    s.left_pending(|stale| stale.reason = Some(Reason::RequirementsNotMet));
    let out = s.apply(&package("2.0.0", Some(true)), &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
    // Its number is reused: no failed revision for a run that changed nothing.
    assert_eq!(out.deployed_revision, Some(2));
    assert_eq!(s.fake.records.keys().copied().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(s.status_of(1), RevisionStatus::Superseded);
}

#[test]
fn rule2_a_requirement_the_cluster_cannot_see_is_not_met_even_if_optional() {
    let mut s = Scenario::requiring([
        ("cert-manager", installed("1.14.0", true)),
        (
            "monitoring",
            RequirementState::Unknown("secrets is forbidden".into()),
        ),
    ]);
    let out = s.apply(&package_with_requires(), &UserValues::new(), "");
    assert_eq!(out.reason, Reason::RequirementsNotMet);
    assert_eq!(
        out.message,
        "waiting for package monitoring (cannot tell whether it is installed: secrets is forbidden)"
    );
    assert!(s.fake.releases.is_empty());
}

#[test]
fn rule2_requirements_version_readiness_and_optional() {
    let pkg = package_with_requires();
    // cert-manager too old, then new but not Ready, then Ready; monitoring (optional) installed
    // and not Ready at first, so it is awaited too.
    let mut s = Scenario::requiring([
        ("cert-manager", installed("1.13.2", true)),
        ("monitoring", installed("0.1.0", false)),
    ]);
    s.fake.requirement_changes = vec![
        ("cert-manager".into(), installed("1.14.0", false)),
        ("cert-manager".into(), installed("1.14.0", true)),
        ("monitoring".into(), installed("0.1.0", true)),
    ];
    let out = s.apply(&pkg, &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
    let waits: Vec<String> = s
        .fake
        .progress
        .iter()
        .filter_map(|p| match p {
            Event::WaitingForRequirements { message } => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        waits,
        [
            "waiting for package cert-manager >=1.14.0 (installed: 1.13.2); waiting for package monitoring (not Ready)",
            "waiting for package cert-manager (not Ready); waiting for package monitoring (not Ready)",
            "waiting for package monitoring (not Ready)",
        ]
    );
    // Optional and absent: nobody waits.
    let mut s = Scenario::requiring([("cert-manager", installed("1.15.0", true))]);
    let out = s.apply(&pkg, &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded);
    assert!(!log(&s).contains(&"wait requirements"));
}

#[test]
fn rule3_next_component_does_not_start_until_ready() {
    let (s, out) = failing_last("kubevirt", &[("1.0.0", Some(true))]);
    assert_eq!(out.reason, Reason::InstallFailed);
    assert!(!log(&s).contains(&"apply worker"), "{:?}", log(&s));
    assert!(out.message.contains("component kubevirt failed: timed out waiting for KubeVirt kubevirt/kubevirt: Available is False"), "{}", out.message);
}

#[test]
fn rule4_per_component_timeout_is_passed_to_every_wait() {
    let s = Scenario::applied(&[("1.0.0", Some(true))]);
    assert_eq!(s.fake.timeouts, [Duration::from_secs(600); 3]);
}

#[test]
fn rule5_failed_first_install_is_kept_for_diagnosis() {
    let (s, out) = failing_last("worker", &[("1.0.0", Some(true))]);
    assert_eq!(out.reason, Reason::InstallFailed);
    assert_eq!(out.deployed_revision, None);
    assert!(
        !log(&s)
            .iter()
            .any(|l| l.starts_with("rollback") || l.starts_with("uninstall")),
        "{:?}",
        log(&s)
    );
    assert_eq!(s.status_of(1), RevisionStatus::Failed);
    assert_eq!(s.fake.records[&1].reason, Some(Reason::InstallFailed));
    // Every component that was applied is recorded with its release revision.
    let recorded: Vec<&str> = s.fake.records[&1]
        .components
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(recorded, ["operator", "kubevirt", "worker"]);
    assert_eq!(s.fake.releases.len(), 3);
}

/// The cluster calls of the upgrade 1.0.0 -> 2.0.0 whose `kubevirt` does not become ready: the
/// hook, the operator, then kubevirt, each recorded as pending first, and the failure.
const UPGRADE_FAILED_AT_KUBEVIRT: [&str; 10] = [
    "record 2 pending-upgrade",
    "hook migrate",
    "ready migrate",
    "record 2 pending-upgrade",
    "apply operator",
    "ready operator",
    "record 2 pending-upgrade",
    "apply kubevirt",
    "ready kubevirt",
    "record 2 failed",
];

#[test]
fn rule5_unsafe_new_version_stops_with_upgrade_failed() {
    let (s, out) = failing_last("kubevirt", &[("1.0.0", Some(true)), ("2.0.0", Some(false))]);
    assert_eq!(out.reason, Reason::UpgradeFailed);
    assert_eq!(out.deployed_revision, Some(1));
    assert!(
        out.message.contains(
            "version 2.0.0 declares rollback.safe: false, so nothing is rolled back: fix forward"
        ),
        "{}",
        out.message
    );
    assert_eq!(log(&s), UPGRADE_FAILED_AT_KUBEVIRT);
    assert_eq!(s.status_of(1), RevisionStatus::Deployed);
    assert_eq!(s.fake.records[&2].reason, Some(Reason::UpgradeFailed));
    // Undeclared rollback.safe is treated as unsafe too.
    let mut s2 = Scenario::applied(&[("1.0.0", None)]);
    s2.fake.fail_apply.insert("operator".into());
    let out = s2.apply(&package("2.0.0", None), &UserValues::new(), "");
    assert_eq!(out.reason, Reason::UpgradeFailed);
    assert!(
        out.message.contains("does not declare rollback.safe: true"),
        "{}",
        out.message
    );
}

#[test]
fn rule5_safe_new_version_rolls_back_changed_components_newest_first() {
    // After 1.0.0, operator is rev 1, kubevirt rev 1, worker rev 1.
    let (s, out) = failing_last("kubevirt", &[("1.0.0", Some(false)), ("2.0.0", Some(true))]);
    assert_eq!(out.reason, Reason::RolledBack, "{}", out.message);
    assert_eq!(
        log(&s),
        [
            &UPGRADE_FAILED_AT_KUBEVIRT[..],
            &[
                "record 3 pending-rollback",
                "rollback kv-kubevirt to 1",
                "rollback kv-operator to 1",
                "record 3 deployed",
                "record 1 superseded",
            ],
        ]
        .concat()
    );
    assert_eq!(out.recorded, [2, 3, 1]);
    assert_eq!(out.deployed_revision, Some(3));
    let r3 = &s.fake.records[&3];
    assert_eq!(r3.version, "1.0.0");
    // Helm's words, then why: the failed revision's cause.
    let cause = s.fake.records[&2]
        .description
        .split("; rolled back")
        .next()
        .unwrap()
        .to_string();
    assert_eq!(r3.description, format!("Rollback to 1: {cause}"));
    assert!(!cause.is_empty());
    assert_eq!(r3.reason, Some(Reason::RolledBack));
    // The failed revision keeps the time its upgrade began; the rollback is stamped when it
    // happens (the fake's clock is one second later).
    assert_eq!(s.fake.records[&2].last_deployed, "2026-11-29T00:00:00Z");
    assert_eq!(r3.last_deployed, "2026-11-29T00:00:01Z");
    // Release revisions after rollback: Helm rollbacks are new release revisions.
    let revs: Vec<(String, u64)> = r3
        .components
        .iter()
        .map(|c| (c.name.clone(), c.revision))
        .collect();
    assert_eq!(
        revs,
        [
            ("operator".into(), 3),
            ("kubevirt".into(), 3),
            ("worker".into(), 1)
        ]
    );
    // The worker was never touched; the hook is not part of any record.
    assert!(r3.component("migrate").is_none() && s.fake.records[&2].component("migrate").is_none());
}

#[test]
fn rule5_rollback_uninstalls_components_new_in_the_failed_upgrade() {
    let mut s = Scenario::new();
    let mut v1 = package("1.0.0", Some(true));
    v1.components.retain(|c| c.name == "operator");
    s.apply(&v1, &UserValues::new(), "");
    s.fake.fail_ready.insert("kubevirt".into());
    let out = s.apply(&package("2.0.0", Some(true)), &UserValues::new(), "");
    assert_eq!(out.reason, Reason::RolledBack);
    let l = log(&s);
    let tail = &l[l.len() - 4..];
    assert_eq!(
        tail,
        [
            "uninstall kv-kubevirt",
            "rollback kv-operator to 1",
            "record 3 deployed",
            "record 1 superseded"
        ]
    );
}

#[test]
fn rule5_failed_rollback_stops_with_upgrade_failed() {
    let mut s = Scenario::applied(&[("1.0.0", Some(true))]);
    s.fake.fail_ready.insert("kubevirt".into());
    s.fake.fail_rollback.insert("kv-kubevirt".into());
    let out = s.apply(&package("2.0.0", Some(true)), &UserValues::new(), "");
    assert_eq!(out.reason, Reason::UpgradeFailed);
    assert!(
        out.message
            .contains("rolling back component kubevirt failed too"),
        "{}",
        out.message
    );
    assert!(!log(&s).contains(&"rollback kv-operator to 1"));
    assert_eq!(s.status_of(3), RevisionStatus::Failed);
}

#[test]
fn rule6_hooks_never_run_on_first_install() {
    let s = Scenario::applied(&[("1.0.0", Some(true))]);
    assert!(!log(&s).iter().any(|l| l.contains("migrate")));
}

#[test]
fn rule6_hooks_never_run_on_a_values_only_change() {
    let mut s = Scenario::new();
    let pkg = package("1.0.0", Some(true));
    s.apply(&pkg, &UserValues::new(), "");
    let mut user = UserValues::new();
    user.add_set("worker.replicas=3").unwrap();
    let out = s.apply(&pkg, &user, "-tweaked");
    assert_eq!(out.reason, Reason::Succeeded);
    assert!(
        !log(&s).iter().any(|l| l.contains("migrate")),
        "{:?}",
        log(&s)
    );
    assert_eq!(s.fake.records[&2].values["worker"]["replicas"], json!(3));
}

#[test]
fn rule6_hooks_run_first_on_version_change_with_versions_and_are_uninstalled_after() {
    let mut s = Scenario::applied(&[("1.3.0", Some(true))]);
    let out = s.apply(&package("1.4.0", Some(true)), &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
    let l = log(&s);
    assert_eq!(l[1], "hook migrate");
    assert_eq!(l[2], "ready migrate");
    assert_eq!(l[3], "record 2 pending-upgrade");
    assert_eq!(l[4], "apply operator");
    let i_uninstall = l.iter().position(|x| *x == "uninstall kv-migrate").unwrap();
    let i_last_ready = l.iter().position(|x| *x == "ready worker").unwrap();
    assert!(i_uninstall > i_last_ready, "{l:?}");
    let ctx = &s.fake.values["migrate"]["kubepkg"];
    assert_eq!(ctx["fromVersion"], json!("1.3.0"));
    assert_eq!(ctx["toVersion"], json!("1.4.0"));
    assert!(
        s.fake
            .records
            .values()
            .all(|r| r.component("migrate").is_none())
    );
}

#[test]
fn rule6_failed_hook_stops_before_anything_else_changes() {
    let (s, out) = failing_last("migrate", &[("1.3.0", Some(true)), ("1.4.0", Some(true))]);
    assert_eq!(out.reason, Reason::UpgradeFailed);
    assert_eq!(
        log(&s),
        [
            "record 2 pending-upgrade",
            "hook migrate",
            "ready migrate",
            "record 2 failed"
        ]
    );
    assert!(
        out.message.contains("PreUpgrade hook migrate failed"),
        "{}",
        out.message
    );
    // The failed hook's release is kept for its logs.
    assert!(s.fake.releases.contains_key("kv-migrate"));
    assert_eq!(s.status_of(1), RevisionStatus::Deployed);
}

#[test]
fn rule6_upgrade_context_reaches_opted_in_components_only() {
    let mut s = Scenario::applied(&[("1.3.0", Some(true))]);
    assert_eq!(
        s.fake.values["worker"]["kubepkg"],
        json!({"fromVersion": "", "toVersion": "1.3.0", "previous": {}})
    );
    assert!(s.fake.values["operator"].get("kubepkg").is_none());
    let mut user = UserValues::new();
    user.add_set("worker.image=worker:1.4.0").unwrap();
    s.apply(&package("1.4.0", Some(true)), &user, "");
    // previous = the worker's values in the deployed revision, without its own kubepkg key.
    assert_eq!(
        s.fake.values["worker"]["kubepkg"],
        json!({"fromVersion": "1.3.0", "toVersion": "1.4.0", "previous": {}})
    );
    let mut user = UserValues::new();
    user.add_set("worker.image=worker:1.5.0").unwrap();
    s.apply(&package("1.5.0", Some(true)), &user, "");
    assert_eq!(
        s.fake.values["worker"]["kubepkg"]["previous"],
        json!({"image": "worker:1.4.0"})
    );
}

#[test]
fn rule8_unchanged_components_are_skipped_and_nothing_changed_records_nothing() {
    let mut s = Scenario::new();
    let pkg = package("1.0.0", Some(true));
    s.apply(&pkg, &UserValues::new(), "");
    // Same package, same rendering: no revision, no change.
    let mut same = s.fake.records[&1].clone();
    same.manifest_digest = pkg.digest.clone();
    s.fake.records.insert(1, same);
    s.history = s.fake.records.values().cloned().collect();
    let out = s.apply(&pkg, &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded);
    assert_eq!(out.message, "nothing to change");
    assert!(out.recorded.is_empty() && s.fake.log.is_empty());
}

#[test]
fn rule8_revisions_record_version_values_and_release_revisions() {
    let mut s = Scenario::new();
    let mut user = UserValues::new();
    user.add_set("operator.replicas=2").unwrap();
    s.apply(&package("1.0.0", Some(true)), &user, "");
    s.apply(&package("1.1.0", Some(true)), &user, "");
    let r2 = &s.fake.records[&2];
    assert_eq!(r2.version, "1.1.0");
    assert_eq!(r2.status, RevisionStatus::Deployed);
    assert_eq!(r2.values["operator"]["replicas"], json!(2));
    assert_eq!(r2.values_digest, s.fake.records[&1].values_digest);
    let revs: Vec<u64> = r2.components.iter().map(|c| c.revision).collect();
    assert_eq!(revs, [2, 2, 2]);
    assert_eq!(r2.components[1].ready_when[0].condition, "Available");
    assert_eq!(s.status_of(1), RevisionStatus::Superseded);
}

#[test]
fn each_applied_component_records_the_backend_that_applied_it_and_the_others_keep_theirs() {
    use kubepkg_model::Backend;
    let mut s = Scenario::new();
    let user = UserValues::new();
    s.apply(&package("1.0.0", Some(true)), &user, "");
    let r1 = &s.fake.records[&1];
    assert!(
        r1.components
            .iter()
            .all(|c| c.backend == Some(Backend::Helm)),
        "{:?}",
        r1.components
    );
    // An upgrade through another backend that fails at its second component: the first is
    // recorded with the new backend, the unreached keep what applied them.
    s.fake.backend = Backend::Argocd;
    s.fake.fail_ready.insert("kubevirt".into());
    s.apply(&package("1.1.0", Some(false)), &user, "");
    let r2 = &s.fake.records[&2];
    let backends: Vec<_> = r2
        .components
        .iter()
        .map(|c| (c.name.as_str(), c.backend))
        .collect();
    assert_eq!(
        backends,
        [
            ("operator", Some(Backend::Argocd)),
            ("kubevirt", Some(Backend::Argocd)),
            ("worker", Some(Backend::Helm)),
        ]
    );
}

#[test]
fn crash_left_pending_revision_is_recovered_by_the_next_apply() {
    let mut s = Scenario::applied(&[("1.0.0", Some(true))]);
    s.left_pending(|crashed| crashed.version = "1.1.0".into());
    let out = s.apply(&package("1.1.0", Some(true)), &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded);
    assert_eq!(log(&s)[0], "record 2 failed");
    assert_eq!(log(&s)[1], "record 3 pending-upgrade");
    assert!(
        s.fake.records[&2]
            .description
            .contains("superseded by revision 3")
    );
    assert_eq!(out.deployed_revision, Some(3));
}

#[test]
fn removed_components_are_uninstalled_last_in_reverse_order() {
    let mut s = Scenario::applied(&[("1.0.0", Some(true))]);
    let mut v2 = package("1.0.1", Some(true));
    v2.components
        .retain(|c| c.name == "operator" || c.name == "migrate");
    let out = s.apply(&v2, &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
    let l = log(&s);
    let pos = |x: &str| l.iter().position(|y| *y == x).unwrap();
    assert!(pos("uninstall kv-worker") < pos("uninstall kv-kubevirt"));
    assert!(pos("ready operator") < pos("uninstall kv-worker"));
    let names: Vec<&str> = s.fake.records[&2]
        .components
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["operator"]);
}

#[test]
fn rule8_manual_rollback_is_a_new_revision_and_runs_no_hooks() {
    let mut s = Scenario::applied(&[("1.0.0", Some(true)), ("1.1.0", Some(true))]);
    s.fake.log.clear();
    let history = s.recorded();
    let out = manual_rollback(&mut s, &history, None, false).unwrap();
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
    assert_eq!(out.deployed_revision, Some(3));
    assert!(!log(&s).iter().any(|l| l.contains("migrate")));
    assert_eq!(
        log(&s),
        [
            "record 3 pending-rollback",
            "rollback kv-operator to 1",
            "ready operator",
            "rollback kv-kubevirt to 1",
            "ready kubevirt",
            "rollback kv-worker to 1",
            "ready worker",
            "record 3 deployed",
            "record 2 superseded",
        ]
    );
    assert_eq!(s.fake.records[&3].version, "1.0.0");
    assert_eq!(s.fake.records[&3].description, "Rollback to 1");
}

#[test]
fn rule5_manual_rollback_refuses_to_leave_an_unsafe_version_unless_forced() {
    let mut s = Scenario::applied(&[("1.0.0", Some(true)), ("2.0.0", Some(false))]);
    let history = s.recorded();
    let e = manual_rollback(&mut s, &history, Some(1), false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "revision 1 of package kv runs version 1.0.0, which may not run again: 2.0.0 (revision 2) declares rollback.safe: false; fix forward with a new version, or use --force to roll back anyway"
    );
    let out = manual_rollback(&mut s, &history, Some(1), true).unwrap();
    assert_eq!(out.reason, Reason::Succeeded);
    let e = manual_rollback(&mut s, &history, Some(9), true).unwrap_err();
    assert!(matches!(
        e,
        Stopped::Rollback(RollbackRefused::NoSuchRevision { revision: 9, .. })
    ));
}

#[test]
fn progress_reports_each_state_change() {
    let s = Scenario::applied(&[("1.0.0", Some(true))]);
    let first: Vec<&Event> = s.fake.progress.iter().take(3).collect();
    assert_eq!(
        first,
        [
            &Event::Applying {
                component: "operator".into()
            },
            &Event::Waiting {
                component: "operator".into()
            },
            &Event::Ready {
                component: "operator".into()
            },
        ]
    );
    // The JSON form is the CLI's printer (`crates/kubepkg/src/progress.rs`); the text form:
    assert_eq!(s.fake.progress[0].to_string(), "operator: applying");
}

#[test]
fn apply_future_is_send_for_a_send_cluster() {
    fn assert_send<T: Send>(_: &T) {}
    let pkg = package("1.0.0", Some(true));
    let user = UserValues::new();
    let history = History::default();
    let prev = BTreeMap::new();
    let p = plan(&pkg, "kv", "ns", Intent::Apply, None, &BTreeMap::new());
    let mut fake = Fake::default();
    let fut = apply(
        &mut fake,
        apply_input("ns", &pkg, &user, &history, &prev, &p, "t"),
    );
    assert_send(&fut);
    assert_eq!(block_on(fut).unwrap().reason, Reason::Succeeded);
}

/// Polls a future a bounded number of times; `None` if it did not finish (a crash).
fn run_until_crash<F: std::future::Future>(fut: F) -> Option<F::Output> {
    let mut fut = std::pin::pin!(fut);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    for _ in 0..1000 {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return Some(v);
        }
    }
    None
}

/// Upgrades 1.0.0 → 2.0.0 (safe), crashing at each cluster call in turn (with `failing` not
/// becoming ready during the crashed run, so the rollback path crashes too), then applies
/// 2.0.0 again with a healthy cluster and checks that everything converged.
fn crash_at_every_point_then_recover(failing: Option<&str>) {
    // Count the cluster calls of an uninterrupted run.
    let mut clean = Scenario::applied(&[("1.0.0", Some(true))]);
    let before = clean.fake.calls;
    if let Some(f) = failing {
        clean.fake.fail_ready.insert(f.to_string());
    }
    clean.apply(&package("2.0.0", Some(true)), &UserValues::new(), "");
    let upgrade_calls = clean.fake.calls - before;
    assert!(upgrade_calls >= 10, "{upgrade_calls}");
    for crash in 1..=upgrade_calls {
        let mut s = Scenario::applied(&[("1.0.0", Some(true))]);
        let v2 = package("2.0.0", Some(true));
        s.fake.crash_at = Some(s.fake.calls + crash);
        if let Some(f) = failing {
            s.fake.fail_ready.insert(f.to_string());
        }
        assert!(
            s.upgrade_until_crash(&v2),
            "crash point {crash} was not reached"
        );
        s.fake.fail_ready.clear();
        let out = s.apply(&v2, &UserValues::new(), "");
        assert_eq!(
            out.reason,
            Reason::Succeeded,
            "crash at call {crash}: {}",
            out.message
        );
        let h = s.recorded();
        let deployed = h.deployed().unwrap();
        assert_eq!(deployed.version, "2.0.0", "crash at call {crash}");
        assert_eq!(
            h.revisions
                .iter()
                .filter(|r| r.status == RevisionStatus::Deployed)
                .count(),
            1
        );
        assert!(
            h.revisions.iter().all(|r| !r.status.is_pending()),
            "crash at call {crash}: {:?}",
            h.revisions
        );
        // Every component runs a release revision newer than the one of revision 1, and the
        // hook's release is gone after the successful upgrade.
        for c in &deployed.components {
            assert!(c.revision >= 2, "crash at call {crash}: {c:?}");
            assert_eq!(
                s.fake.releases[&c.release], c.revision,
                "crash at call {crash}"
            );
        }
        assert!(
            !s.fake.releases.contains_key("kv-migrate"),
            "crash at call {crash}"
        );
    }
}

#[test]
fn crash_at_every_point_of_an_upgrade_is_recovered_by_the_next_apply() {
    crash_at_every_point_then_recover(None);
}

#[test]
fn crash_at_every_point_of_a_failing_upgrade_and_its_rollback_is_recovered() {
    crash_at_every_point_then_recover(Some("kubevirt"));
}

/// A test manifest as objects (through the one manifest conversion).
fn manifest_objects(m: &str) -> Vec<crate::plan::RenderedObject> {
    crate::plan::objects_from_manifest(m).expect("test manifest")
}

#[test]
fn a_failure_keeps_its_kind_and_the_error_behind_it() {
    let io = std::io::Error::other("connection reset");
    let f = Failure::caused(FailureKind::Apply, io);
    assert_eq!(f.kind, FailureKind::Apply);
    assert_eq!(f.to_string(), "connection reset");
    let source = std::error::Error::source(&f).expect("source kept");
    assert_eq!(source.to_string(), "connection reset");
    assert_eq!(f, Failure::new(FailureKind::Apply, "connection reset"));
    assert_ne!(f, Failure::new(FailureKind::NotReady, "connection reset"));
}

/// The race of the issue: 2.0.0 (rollback.safe: false) then 2.0.1 ran; an apply of 1.1.0 is
/// a downgrade that 2.0.0 forbids. It is refused before anything is recorded or applied,
/// naming 2.0.0; `--allow-downgrade` applies it and says so.
#[test]
fn rule7_a_downgrade_follows_the_rollback_policy_of_every_version_since() {
    let mut s = Scenario::unsafe_in_between("1.1.0", "2.0.1");
    let writes = s.fake.writes.len();
    let calls = s.fake.calls;
    let e = s
        .try_apply(&package("1.1.0", Some(true)), &UserValues::new(), "", false)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "refusing to downgrade package kv from 2.0.1 to 1.1.0: 2.0.0 (revision 2) declares rollback.safe: false, so 1.1.0 may not run again once it has run (a downgrade is a rollback in effect); fix forward with a newer version, or use --allow-downgrade to apply it anyway"
    );
    assert!(matches!(e, Stopped::Downgrade(_)));
    assert_eq!(s.fake.writes.len(), writes, "nothing recorded");
    assert_eq!(s.fake.calls, calls, "no cluster call at all");

    // Down to 2.0.0 itself is allowed (only 2.0.1 ran since, and it is safe).
    s.fake.progress.clear();
    let out = s.apply(&package("2.0.0", Some(false)), &UserValues::new(), "");
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
    assert_eq!(
        s.fake.progress[0].to_string(),
        "downgrade from 2.0.1 to 2.0.0: allowed: no version that ran since 2.0.0 last ran forbids it (by rollback.safe: false or a rollback.to floor)"
    );

    s.fake.progress.clear();
    let out = s
        .try_apply(&package("1.1.0", Some(true)), &UserValues::new(), "", true)
        .unwrap();
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
    assert_eq!(
        s.fake.progress[0].to_string(),
        "downgrade from 2.0.0 to 1.1.0: allowed by --allow-downgrade although 2.0.0 (revision 2) declares rollback.safe: false"
    );
    let h = s.recorded();
    assert_eq!(h.deployed().unwrap().version, "1.1.0");
}

/// A manual rollback follows the same policy: every version that ran since the target last
/// ran counts, not only the one being left.
#[test]
fn rule7_manual_rollback_is_refused_by_any_version_that_ran_since() {
    let mut s = Scenario::unsafe_in_between("1.0.0", "2.1.0");
    let history = s.recorded();
    let e = manual_rollback(&mut s, &history, Some(1), false).unwrap_err();
    assert!(
        e.to_string()
            .contains("2.0.0 (revision 2) declares rollback.safe: false"),
        "{e}"
    );
    // Back to 2.0.0 is fine: nothing newer than it forbids it.
    let out = manual_rollback(&mut s, &history, Some(2), false).unwrap();
    assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
}

/// A record that cannot be written before anything changed is an error (exit 1), not an
/// `UpgradeFailed` outcome; once a component changed, it is `UpgradeFailed`.
#[test]
fn a_first_record_that_cannot_be_written_stops_with_nothing_changed() {
    let mut s = Scenario::applied(&[("1.0.0", Some(true))]);
    s.fake.record_calls = 0;
    s.fake.fail_record_at = Some(1);
    let e = s
        .try_apply(&package("1.0.1", Some(true)), &UserValues::new(), "", false)
        .unwrap_err();
    assert!(matches!(e, Stopped::NotRecorded(_)), "{e}");
    assert_eq!(
        e.to_string(),
        "cannot record the package revision, so nothing was changed: secrets is forbidden"
    );
    // The refused write may have gone through: it is removed (absent is fine).
    assert_eq!(log(&s), ["record 2 pending-upgrade refused", "forget 2"]);

    // A first record that went through with its answer lost leaves no pending revision.
    s.fake.record_calls = 0;
    s.fake.record_answer_lost = true;
    let e = s
        .try_apply(&package("1.0.1", Some(true)), &UserValues::new(), "", false)
        .unwrap_err();
    assert!(matches!(e, Stopped::NotRecorded(_)), "{e}");
    assert!(
        s.fake.records.values().all(|r| !r.status.is_pending()),
        "{:?}",
        s.fake
            .records
            .values()
            .map(|r| r.status)
            .collect::<Vec<_>>()
    );
    s.fake.record_answer_lost = false;

    // The second record (before the second component) fails after the first was applied.
    s.fake.record_calls = 0;
    s.fake.fail_record_at = Some(2);
    let out = s
        .try_apply(&package("1.0.1", Some(true)), &UserValues::new(), "", false)
        .unwrap();
    assert_eq!(out.reason, Reason::UpgradeFailed, "{}", out.message);
    assert!(
        out.message
            .starts_with("cannot record the package revision")
    );

    // A manual rollback whose first record fails changes nothing either.
    let mut s = Scenario::applied(&[("1.0.0", Some(true)), ("1.0.1", Some(true))]);
    let history = s.recorded();
    s.fake.record_calls = 0;
    s.fake.fail_record_at = Some(1);
    s.fake.log.clear();
    let e = manual_rollback(&mut s, &history, Some(1), false).unwrap_err();
    assert!(matches!(e, Stopped::NotRecorded(_)), "{e}");
    assert!(
        log(&s)
            .iter()
            .all(|l| l.starts_with("record") || l.starts_with("forget")),
        "{:?}",
        log(&s)
    );
}

/// Point 5 of the robustness issue: an upgrade interrupted after its PreUpgrade hook
/// completed is recovered without running the hook again (its completion was recorded in the
/// pending revision before anything else changed); the recovered run still uninstalls the
/// hook's release at the end. Interrupted while the hook ran, the hook runs again.
#[test]
fn rule6_a_hook_completed_before_a_crash_is_not_run_again_by_the_recovery() {
    for (crash_after, reruns) in [("apply operator", false), ("hook migrate", true)] {
        let mut s = Scenario::applied(&[("1.0.0", Some(true))]);
        // Find the call to crash at: the one logged as `crash_after` in a clean run.
        let mut probe = Scenario::applied(&[("1.0.0", Some(true))]);
        let start = probe.fake.calls;
        probe.apply(&package("2.0.0", Some(true)), &UserValues::new(), "");
        let at = log(&probe).iter().position(|l| *l == crash_after).unwrap() + 2;
        let v2 = package("2.0.0", Some(true));
        s.fake.crash_at = Some(start + at);
        assert!(s.upgrade_until_crash(&v2));
        assert_eq!(s.fake.log.last().map(String::as_str), Some(crash_after));
        s.fake.progress.clear();
        let out = s.apply(&v2, &UserValues::new(), "");
        assert_eq!(out.reason, Reason::Succeeded, "{}", out.message);
        let ran = log(&s).contains(&"hook migrate");
        assert_eq!(ran, reruns, "{crash_after}: {:?}", log(&s));
        if !reruns {
            assert!(
                s.fake.progress.iter().any(|e| e.to_string()
                    == "migrate: already completed for 1.0.0 -> 2.0.0 by interrupted revision 2; not run again"),
                "{:?}",
                s.fake.progress
            );
        }
        // Recorded in the deployed revision; the hook's release is gone either way.
        let hooks: Vec<(String, String, String)> = s.fake.records[&3]
            .hooks_completed
            .iter()
            .map(|h| (h.name.clone(), h.from_version.clone(), h.to_version.clone()))
            .collect();
        assert_eq!(
            hooks,
            [(
                "migrate".to_string(),
                "1.0.0".to_string(),
                "2.0.0".to_string()
            )]
        );
        assert!(!s.fake.releases.contains_key("kv-migrate"));
    }
}
