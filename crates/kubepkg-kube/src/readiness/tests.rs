//! Cases ported from kstatus' own tests (cli-utils `status_compute_test.go`): each YAML
//! object with the status and reason kstatus expects for it.

use super::*;

fn obj(yaml: &str) -> Value {
    let v = kubepkg_yaml::from_yaml_str(yaml).expect("test YAML");
    let json = kubepkg_yaml::json::to_json(&v).expect("JSON");
    serde_json::from_str(&json).expect("serde JSON")
}

fn now() -> jiff::Timestamp {
    "2026-01-01T00:00:00Z".parse().unwrap()
}

#[track_caller]
fn check(name: &str, yaml: &str, status: Status, reason: &str) {
    let r = compute(&obj(yaml), now());
    assert_eq!(r.status, status, "{name}: {r:?}");
    if !reason.is_empty() {
        assert_eq!(r.reason, reason, "{name}: {r:?}");
    }
}

/// Checks each case of objects whose YAML starts with `head`: (name, the rest of the YAML, the
/// status and reason kstatus gives it).
#[track_caller]
fn check_after(head: &str, cases: &[(&str, &str, Status, &str)]) {
    for &(name, rest, status, reason) in cases {
        check(name, &format!("{head}{rest}"), status, reason);
    }
}

#[test]
fn pods() {
    check_after(
        "apiVersion: v1\nkind: Pod\nmetadata:\n   generation: 1\n   name: test\n",
        &[
            ("podNoStatus", "", Status::InProgress, "PodNotObserved"),
            (
                "podReady",
                "status:\n   conditions:\n    - type: Ready\n      status: \"True\"\n   phase: Running\n",
                Status::Current,
                "",
            ),
            (
                "podCompletedOK",
                "status:\n   phase: Succeeded\n   conditions:\n    - type: Ready\n      status: \"False\"\n      reason: PodCompleted\n",
                Status::Current,
                "",
            ),
            (
                "podCompletedFail",
                "status:\n   phase: Failed\n   conditions:\n    - type: Ready\n      status: \"False\"\n      reason: PodCompleted\n",
                Status::Current,
                "",
            ),
            (
                "podCrashLooping",
                "status:\n   phase: Running\n   conditions:\n    - type: PodScheduled\n      status: \"False\"\n      reason: Unschedulable\n   containerStatuses:\n    - name: nginx\n      state:\n         waiting:\n            reason: CrashLoopBackOff\n",
                Status::Failed,
                "ContainerCrashLooping",
            ),
            (
                "podUnknownPhase",
                "status:\n   phase: Weird\n",
                Status::Unknown,
                "",
            ),
        ],
    );
    let unsched = "   name: test\nstatus:\n   phase: Pending\n   conditions:\n    - type: PodScheduled\n      status: \"False\"\n      reason: Unschedulable\n";
    check_after(
        "apiVersion: v1\nkind: Pod\nmetadata:\n   creationTimestamp: ",
        &[
            (
                "podBeingScheduled",
                &format!("\"2025-12-31T23:59:55Z\"\n{unsched}"),
                Status::InProgress,
                "PodNotScheduled",
            ),
            (
                "podUnschedulable (created long ago)",
                &format!("\"2025-12-31T23:00:00Z\"\n{unsched}"),
                Status::Failed,
                "PodUnschedulable",
            ),
        ],
    );
}

#[test]
fn pvcs() {
    check_after(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n   generation: 1\n   name: test\n",
        &[
            ("pvcNoStatus", "", Status::InProgress, "NotBound"),
            (
                "pvcBound",
                "status:\n   phase: Bound\n",
                Status::Current,
                "",
            ),
        ],
    );
}

#[test]
fn statefulsets() {
    let st = |cur: i32, ready: i32, replicas: i32| {
        format!(
            "spec:\n   replicas: 4\nstatus:\n   observedGeneration: 1\n   currentReplicas: {cur}\n   readyReplicas: {ready}\n   replicas: {replicas}\n"
        )
    };
    check_after(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n   generation: 1\n   name: test\n",
        &[
            ("stsNoStatus", "", Status::InProgress, "LessReplicas"),
            (
                "stsBadStatus",
                "status:\n   observedGeneration: 1\n   currentReplicas: 1\n",
                Status::InProgress,
                "LessReplicas",
            ),
            ("stsOK", &st(4, 4, 4), Status::Current, ""),
            (
                "stsLessReady",
                &st(4, 2, 4),
                Status::InProgress,
                "LessReady",
            ),
            (
                "stsLessCurrent",
                &st(2, 4, 4),
                Status::InProgress,
                "LessCurrent",
            ),
            (
                "stsExtraPods",
                &st(4, 4, 8),
                Status::InProgress,
                "ExtraPods",
            ),
        ],
    );
}

#[test]
fn daemonsets() {
    let ds = |avail: i32, ready: i32| {
        format!(
            "status:\n   desiredNumberScheduled: 4\n   currentNumberScheduled: 4\n   updatedNumberScheduled: 4\n   numberAvailable: {avail}\n   numberReady: {ready}\n   observedGeneration: 1\n"
        )
    };
    let head = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n   name: test\n   generation: ";
    check_after(
        head,
        &[
            (
                "dsNoStatus",
                "1\n",
                Status::InProgress,
                "NoObservedGeneration",
            ),
            (
                "dsBadStatus",
                "1\nstatus:\n   observedGeneration: 1\n   currentReplicas: 1\n",
                Status::InProgress,
                "NoDesiredNumber",
            ),
            ("dsOK", &format!("1\n{}", ds(4, 4)), Status::Current, ""),
            (
                "dsDifferentGeneration",
                &format!("2\n{}", ds(4, 4)),
                Status::InProgress,
                "LatestGenerationNotObserved",
            ),
            (
                "dsLessReady",
                &format!("1\n{}", ds(4, 2)),
                Status::InProgress,
                "LessReady",
            ),
            (
                "dsLessAvailable",
                &format!("1\n{}", ds(2, 4)),
                Status::InProgress,
                "LessAvailable",
            ),
        ],
    );
}

#[test]
fn deployments() {
    let head =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n   name: test\n   generation: 1\n";
    check("depNoStatus", head, Status::InProgress, "LessReplicas");
    let counts = "   observedGeneration: 1\n   updatedReplicas: 1\n   readyReplicas: 1\n   availableReplicas: 1\n   replicas: 1\n";
    check_after(
        &format!("{head}status:\n{counts}   conditions:\n"),
        &[
            (
                "depOK",
                "    - type: Progressing\n      status: \"True\"\n      reason: NewReplicaSetAvailable\n    - type: Available\n      status: \"True\"\n",
                Status::Current,
                "",
            ),
            (
                "depNoProgressDeadlineSeconds",
                "    - type: Available\n      status: \"True\"\n",
                Status::Current,
                "",
            ),
            (
                "depNotAvailable",
                "    - type: Progressing\n      status: \"True\"\n      reason: NewReplicaSetAvailable\n    - type: Available\n      status: \"False\"\n",
                Status::InProgress,
                "DeploymentNotAvailable",
            ),
            (
                "depDeadlineExceeded",
                "    - type: Progressing\n      status: \"False\"\n      reason: ProgressDeadlineExceeded\n",
                Status::Failed,
                "ProgressDeadlineExceeded",
            ),
        ],
    );
    check(
        "depNotProgressing",
        &format!(
            "{head}spec:\n   progressDeadlineSeconds: 45\nstatus:\n{counts}   conditions:\n    - type: Progressing\n      status: \"False\"\n      reason: Some reason\n    - type: Available\n      status: \"True\"\n"
        ),
        Status::InProgress,
        "ReplicaSetNotAvailable",
    );
}

#[test]
fn replicasets() {
    let rs = |spec: i32, ready: i32, avail: i32, extra: &str| {
        format!(
            "spec:\n   replicas: {spec}\nstatus:\n   observedGeneration: 1\n   replicas: {spec}\n   readyReplicas: {ready}\n   availableReplicas: {avail}\n   fullyLabeledReplicas: {spec}\n{extra}"
        )
    };
    let failure = |status: &str| {
        format!("   conditions:\n    - type: ReplicaFailure\n      status: \"{status}\"\n")
    };
    check_after(
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n   name: test\n   generation: 1\n",
        &[
            ("rsNoStatus", "", Status::InProgress, "LessLabelled"),
            (
                "rsOK1",
                &rs(2, 2, 2, &failure("False")),
                Status::Current,
                "",
            ),
            ("rsOK2", &rs(2, 2, 2, ""), Status::Current, ""),
            (
                "rsLessReady",
                &rs(4, 2, 4, ""),
                Status::InProgress,
                "LessReady",
            ),
            (
                "rsLessAvailable",
                &rs(4, 4, 2, ""),
                Status::InProgress,
                "LessAvailable",
            ),
            (
                "rsReplicaFailure",
                &rs(4, 4, 4, &failure("True")),
                Status::InProgress,
                "ReplicaFailure",
            ),
        ],
    );
}

#[test]
fn pdbs() {
    check_after(
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n   generation: ",
        &[
            (
                "pdbNotObserved",
                "2\n   name: test\nstatus:\n   observedGeneration: 1\n",
                Status::InProgress,
                "LatestGenerationNotObserved",
            ),
            (
                "pdbObserved",
                "1\n   name: test\nstatus:\n   observedGeneration: 1\n",
                Status::Current,
                "",
            ),
        ],
    );
}

#[test]
fn custom_resources_follow_generic_conditions() {
    check_after(
        "apiVersion: something/v1\nkind: MyCR\nmetadata:\n   name: test\n   namespace: qual\n",
        &[
            ("crdNoStatus", "   generation: 1\n", Status::Current, ""),
            (
                "crdMismatchStatusGeneration",
                "   generation: 2\nstatus:\n   observedGeneration: 1\n",
                Status::InProgress,
                "LatestGenerationNotObserved",
            ),
            (
                "crdReady",
                "   generation: 1\nstatus:\n   conditions:\n    - type: Ready\n      status: \"True\"\n      message: All looks ok\n      reason: AllOk\n",
                Status::Current,
                "",
            ),
            (
                "crdNotReady",
                "   generation: 1\nstatus:\n   observedGeneration: 1\n   conditions:\n    - type: Ready\n      status: \"False\"\n      reason: NotReadyYet\n",
                Status::InProgress,
                "NotReadyYet",
            ),
            (
                "crdNoCondition",
                "   generation: 1\nstatus:\n   conditions:\n    - type: SomeCondition\n      status: \"False\"\n",
                Status::Current,
                "",
            ),
            (
                "reconciling",
                "status:\n   conditions:\n    - type: Reconciling\n      status: \"True\"\n      reason: Working\n",
                Status::InProgress,
                "Working",
            ),
            (
                "stalled",
                "status:\n   conditions:\n    - type: Stalled\n      status: \"True\"\n      reason: Broken\n",
                Status::Failed,
                "Broken",
            ),
            (
                "terminating",
                "   deletionTimestamp: \"2026-01-01T00:00:00Z\"\n",
                Status::Terminating,
                "",
            ),
        ],
    );
}

#[test]
fn jobs() {
    check_after(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n   name: test\n   namespace: qual\n   generation: 1\n",
        &[
            ("jobNoStatus", "", Status::InProgress, "JobNotStarted"),
            (
                "jobComplete",
                "status:\n   succeeded: 1\n   active: 0\n   conditions:\n    - type: Complete\n      status: \"True\"\n",
                Status::Current,
                "",
            ),
            (
                "jobFailed",
                "spec:\n   completions: 4\nstatus:\n   succeeded: 3\n   failed: 1\n   conditions:\n    - type: Failed\n      status: \"True\"\n      reason: JobFailed\n",
                Status::Failed,
                "JobFailed",
            ),
            (
                "jobInProgress",
                "spec:\n   completions: 10\n   parallelism: 2\nstatus:\n   startTime: \"2019-06-04T01:17:13Z\"\n   succeeded: 3\n   failed: 1\n   active: 2\n   conditions:\n    - type: Failed\n      status: \"False\"\n    - type: Complete\n      status: \"False\"\n",
                Status::Current,
                "",
            ),
        ],
    );
}

#[test]
fn hpas_and_cronjobs() {
    let conds = "status:\n  conditions:\n  - type: AbleToScale\n    status: \"True\"\n  - type: ScalingActive\n    status: \"True\"\n";
    check_after(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: test\n  generation: 1\n",
        &[
            ("hpaNoStatus", "", Status::Unknown, ""),
            ("hpaCurrentStatus", conds, Status::Current, ""),
            (
                "hpaScalingLimitedStatus",
                &format!("{conds}  - type: ScalingLimited\n    status: \"True\"\n"),
                Status::Failed,
                "",
            ),
        ],
    );
    check_after(
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n   name: test\n   generation: 1\n",
        &[
            ("cronjobNoStatus", "", Status::Current, ""),
            ("cronjobWithStatus", "status:\n", Status::Current, ""),
        ],
    );
}

#[test]
fn services() {
    check_after(
        "apiVersion: v1\nkind: Service\nmetadata:\n   name: test\n   generation: 1\n",
        &[
            ("serviceDefault", "", Status::Current, ""),
            (
                "serviceNodePort",
                "spec:\n  type: NodePort\n",
                Status::Current,
                "",
            ),
            (
                "serviceLBok",
                "spec:\n  type: LoadBalancer\n  clusterIP: \"1.2.3.4\"\n",
                Status::Current,
                "",
            ),
            (
                "serviceLBnok",
                "spec:\n  type: LoadBalancer\n",
                Status::InProgress,
                "NoIPAssigned",
            ),
        ],
    );
}

#[test]
fn crds() {
    check_after(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n   generation: 1\n",
        &[
            ("crdNoConditions", "", Status::InProgress, "Installing"),
            (
                "crdInstalling",
                "status:\n   conditions:\n    - type: NamesAccepted\n      status: \"True\"\n      reason: NoConflicts\n    - type: Established\n      status: \"False\"\n      reason: Installing\n",
                Status::InProgress,
                "Installing",
            ),
            (
                "crdNamesNotAccepted",
                "status:\n   conditions:\n    - type: NamesAccepted\n      status: \"False\"\n      reason: SomeReason\n",
                Status::Failed,
                "SomeReason",
            ),
            (
                "crdEstablished",
                "status:\n   conditions:\n    - type: NamesAccepted\n      status: \"True\"\n      reason: NoConflicts\n    - type: Established\n      status: \"True\"\n      reason: InitialNamesAccepted\n",
                Status::Current,
                "",
            ),
        ],
    );
}

#[test]
fn apiservices_need_available() {
    check_after(
        "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n   name: v1.x\n",
        &[
            ("apiNoStatus", "", Status::InProgress, "NotAvailable"),
            (
                "apiUnavailable",
                "status:\n   conditions:\n    - type: Available\n      status: \"False\"\n      reason: MissingEndpoints\n",
                Status::InProgress,
                "MissingEndpoints",
            ),
            (
                "apiAvailable",
                "status:\n   conditions:\n    - type: Available\n      status: \"True\"\n",
                Status::Current,
                "",
            ),
        ],
    );
}

#[test]
fn malformed_objects_do_not_panic() {
    for v in [
        serde_json::json!(null),
        serde_json::json!([1, 2]),
        serde_json::json!({"kind": "Deployment", "apiVersion": "apps/v1", "status": "weird"}),
        serde_json::json!({"kind": "Pod", "apiVersion": "v1", "status": {"conditions": "x", "phase": 3}}),
        serde_json::json!({"kind": "Job", "apiVersion": "batch/v1", "spec": {"completions": "lots"}}),
    ] {
        let _ = compute(&v, now());
    }
}

#[test]
fn hooks_wait_for_completion_not_for_kstatus_current() {
    let running = obj(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: m\nstatus:\n  startTime: \"2026-01-01T00:00:00Z\"\n  active: 1\n",
    );
    assert_eq!(
        compute(&running, now()).status,
        Status::Current,
        "kstatus: a started Job is current"
    );
    assert_eq!(hook_completion(&running).status, Status::InProgress);
    let done = obj(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: m\nstatus:\n  conditions:\n  - type: Complete\n    status: \"True\"\n",
    );
    assert_eq!(hook_completion(&done).status, Status::Current);
    let failed = obj(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: m\nstatus:\n  conditions:\n  - type: Failed\n    status: \"True\"\n    reason: BackoffLimitExceeded\n    message: Job has reached the specified backoff limit\n",
    );
    let r = hook_completion(&failed);
    assert_eq!(
        (r.status, r.reason.as_str()),
        (Status::Failed, "BackoffLimitExceeded")
    );
    let pod = obj(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nstatus:\n  phase: Running\n  conditions:\n  - type: Ready\n    status: \"True\"\n",
    );
    assert_eq!(hook_completion(&pod).status, Status::InProgress);
    let cm = obj("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n");
    assert_eq!(hook_completion(&cm).status, Status::Current);
}
