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

const POD_HEAD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n   generation: 1\n   name: test\n";

#[test]
fn pods() {
    check(
        "podNoStatus",
        POD_HEAD,
        Status::InProgress,
        "PodNotObserved",
    );
    check(
        "podReady",
        &format!(
            "{POD_HEAD}status:\n   conditions:\n    - type: Ready\n      status: \"True\"\n   phase: Running\n"
        ),
        Status::Current,
        "",
    );
    check(
        "podCompletedOK",
        &format!(
            "{POD_HEAD}status:\n   phase: Succeeded\n   conditions:\n    - type: Ready\n      status: \"False\"\n      reason: PodCompleted\n"
        ),
        Status::Current,
        "",
    );
    check(
        "podCompletedFail",
        &format!(
            "{POD_HEAD}status:\n   phase: Failed\n   conditions:\n    - type: Ready\n      status: \"False\"\n      reason: PodCompleted\n"
        ),
        Status::Current,
        "",
    );
    let unsched = "status:\n   phase: Pending\n   conditions:\n    - type: PodScheduled\n      status: \"False\"\n      reason: Unschedulable\n";
    check(
        "podBeingScheduled",
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n   creationTimestamp: \"2025-12-31T23:59:55Z\"\n   name: test\n{unsched}"
        ),
        Status::InProgress,
        "PodNotScheduled",
    );
    check(
        "podUnschedulable (created long ago)",
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n   creationTimestamp: \"2025-12-31T23:00:00Z\"\n   name: test\n{unsched}"
        ),
        Status::Failed,
        "PodUnschedulable",
    );
    check(
        "podCrashLooping",
        &format!(
            "{POD_HEAD}status:\n   phase: Running\n   conditions:\n    - type: PodScheduled\n      status: \"False\"\n      reason: Unschedulable\n   containerStatuses:\n    - name: nginx\n      state:\n         waiting:\n            reason: CrashLoopBackOff\n"
        ),
        Status::Failed,
        "ContainerCrashLooping",
    );
    check(
        "podUnknownPhase",
        &format!("{POD_HEAD}status:\n   phase: Weird\n"),
        Status::Unknown,
        "",
    );
}

#[test]
fn pvcs() {
    let head =
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n   generation: 1\n   name: test\n";
    check("pvcNoStatus", head, Status::InProgress, "NotBound");
    check(
        "pvcBound",
        &format!("{head}status:\n   phase: Bound\n"),
        Status::Current,
        "",
    );
}

#[test]
fn statefulsets() {
    let head =
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n   generation: 1\n   name: test\n";
    check("stsNoStatus", head, Status::InProgress, "LessReplicas");
    check(
        "stsBadStatus",
        &format!("{head}status:\n   observedGeneration: 1\n   currentReplicas: 1\n"),
        Status::InProgress,
        "LessReplicas",
    );
    let st = |cur: i32, ready: i32, replicas: i32| {
        format!(
            "{head}spec:\n   replicas: 4\nstatus:\n   observedGeneration: 1\n   currentReplicas: {cur}\n   readyReplicas: {ready}\n   replicas: {replicas}\n"
        )
    };
    check("stsOK", &st(4, 4, 4), Status::Current, "");
    check(
        "stsLessReady",
        &st(4, 2, 4),
        Status::InProgress,
        "LessReady",
    );
    check(
        "stsLessCurrent",
        &st(2, 4, 4),
        Status::InProgress,
        "LessCurrent",
    );
    check(
        "stsExtraPods",
        &st(4, 4, 8),
        Status::InProgress,
        "ExtraPods",
    );
}

#[test]
fn daemonsets() {
    let head = |g: i32| {
        format!(
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n   name: test\n   generation: {g}\n"
        )
    };
    check(
        "dsNoStatus",
        &head(1),
        Status::InProgress,
        "NoObservedGeneration",
    );
    check(
        "dsBadStatus",
        &format!(
            "{}status:\n   observedGeneration: 1\n   currentReplicas: 1\n",
            head(1)
        ),
        Status::InProgress,
        "NoDesiredNumber",
    );
    let ds = |g: i32, avail: i32, ready: i32| {
        format!(
            "{}status:\n   desiredNumberScheduled: 4\n   currentNumberScheduled: 4\n   updatedNumberScheduled: 4\n   numberAvailable: {avail}\n   numberReady: {ready}\n   observedGeneration: 1\n",
            head(g)
        )
    };
    check("dsOK", &ds(1, 4, 4), Status::Current, "");
    check(
        "dsDifferentGeneration",
        &ds(2, 4, 4),
        Status::InProgress,
        "LatestGenerationNotObserved",
    );
    check("dsLessReady", &ds(1, 4, 2), Status::InProgress, "LessReady");
    check(
        "dsLessAvailable",
        &ds(1, 2, 4),
        Status::InProgress,
        "LessAvailable",
    );
}

#[test]
fn deployments() {
    let head =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n   name: test\n   generation: 1\n";
    check("depNoStatus", head, Status::InProgress, "LessReplicas");
    let counts = "   observedGeneration: 1\n   updatedReplicas: 1\n   readyReplicas: 1\n   availableReplicas: 1\n   replicas: 1\n";
    check(
        "depOK",
        &format!(
            "{head}status:\n{counts}   conditions:\n    - type: Progressing\n      status: \"True\"\n      reason: NewReplicaSetAvailable\n    - type: Available\n      status: \"True\"\n"
        ),
        Status::Current,
        "",
    );
    check(
        "depNotProgressing",
        &format!(
            "{head}spec:\n   progressDeadlineSeconds: 45\nstatus:\n{counts}   conditions:\n    - type: Progressing\n      status: \"False\"\n      reason: Some reason\n    - type: Available\n      status: \"True\"\n"
        ),
        Status::InProgress,
        "ReplicaSetNotAvailable",
    );
    check(
        "depNoProgressDeadlineSeconds",
        &format!(
            "{head}status:\n{counts}   conditions:\n    - type: Available\n      status: \"True\"\n"
        ),
        Status::Current,
        "",
    );
    check(
        "depNotAvailable",
        &format!(
            "{head}status:\n{counts}   conditions:\n    - type: Progressing\n      status: \"True\"\n      reason: NewReplicaSetAvailable\n    - type: Available\n      status: \"False\"\n"
        ),
        Status::InProgress,
        "DeploymentNotAvailable",
    );
    check(
        "depDeadlineExceeded",
        &format!(
            "{head}status:\n{counts}   conditions:\n    - type: Progressing\n      status: \"False\"\n      reason: ProgressDeadlineExceeded\n"
        ),
        Status::Failed,
        "ProgressDeadlineExceeded",
    );
}

#[test]
fn replicasets() {
    let head =
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n   name: test\n   generation: 1\n";
    check("rsNoStatus", head, Status::InProgress, "LessLabelled");
    let rs = |spec: i32, ready: i32, avail: i32, extra: &str| {
        format!(
            "{head}spec:\n   replicas: {spec}\nstatus:\n   observedGeneration: 1\n   replicas: {spec}\n   readyReplicas: {ready}\n   availableReplicas: {avail}\n   fullyLabeledReplicas: {spec}\n{extra}"
        )
    };
    check(
        "rsOK1",
        &rs(
            2,
            2,
            2,
            "   conditions:\n    - type: ReplicaFailure\n      status: \"False\"\n",
        ),
        Status::Current,
        "",
    );
    check("rsOK2", &rs(2, 2, 2, ""), Status::Current, "");
    check(
        "rsLessReady",
        &rs(4, 2, 4, ""),
        Status::InProgress,
        "LessReady",
    );
    check(
        "rsLessAvailable",
        &rs(4, 4, 2, ""),
        Status::InProgress,
        "LessAvailable",
    );
    check(
        "rsReplicaFailure",
        &rs(
            4,
            4,
            4,
            "   conditions:\n    - type: ReplicaFailure\n      status: \"True\"\n",
        ),
        Status::InProgress,
        "ReplicaFailure",
    );
}

#[test]
fn pdbs() {
    let pdb = |g: i32| {
        format!(
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n   generation: {g}\n   name: test\nstatus:\n   observedGeneration: 1\n"
        )
    };
    check(
        "pdbNotObserved",
        &pdb(2),
        Status::InProgress,
        "LatestGenerationNotObserved",
    );
    check("pdbObserved", &pdb(1), Status::Current, "");
}

#[test]
fn custom_resources_follow_generic_conditions() {
    let head =
        "apiVersion: something/v1\nkind: MyCR\nmetadata:\n   name: test\n   namespace: qual\n";
    check(
        "crdNoStatus",
        &format!("{head}   generation: 1\n"),
        Status::Current,
        "",
    );
    check(
        "crdMismatchStatusGeneration",
        &format!("{head}   generation: 2\nstatus:\n   observedGeneration: 1\n"),
        Status::InProgress,
        "LatestGenerationNotObserved",
    );
    check(
        "crdReady",
        &format!(
            "{head}   generation: 1\nstatus:\n   conditions:\n    - type: Ready\n      status: \"True\"\n      message: All looks ok\n      reason: AllOk\n"
        ),
        Status::Current,
        "",
    );
    check(
        "crdNotReady",
        &format!(
            "{head}   generation: 1\nstatus:\n   observedGeneration: 1\n   conditions:\n    - type: Ready\n      status: \"False\"\n      reason: NotReadyYet\n"
        ),
        Status::InProgress,
        "NotReadyYet",
    );
    check(
        "crdNoCondition",
        &format!(
            "{head}   generation: 1\nstatus:\n   conditions:\n    - type: SomeCondition\n      status: \"False\"\n"
        ),
        Status::Current,
        "",
    );
    check(
        "reconciling",
        &format!(
            "{head}status:\n   conditions:\n    - type: Reconciling\n      status: \"True\"\n      reason: Working\n"
        ),
        Status::InProgress,
        "Working",
    );
    check(
        "stalled",
        &format!(
            "{head}status:\n   conditions:\n    - type: Stalled\n      status: \"True\"\n      reason: Broken\n"
        ),
        Status::Failed,
        "Broken",
    );
    check(
        "terminating",
        &format!("{head}   deletionTimestamp: \"2026-01-01T00:00:00Z\"\n"),
        Status::Terminating,
        "",
    );
}

#[test]
fn jobs() {
    let head = "apiVersion: batch/v1\nkind: Job\nmetadata:\n   name: test\n   namespace: qual\n   generation: 1\n";
    check("jobNoStatus", head, Status::InProgress, "JobNotStarted");
    check(
        "jobComplete",
        &format!(
            "{head}status:\n   succeeded: 1\n   active: 0\n   conditions:\n    - type: Complete\n      status: \"True\"\n"
        ),
        Status::Current,
        "",
    );
    check(
        "jobFailed",
        &format!(
            "{head}spec:\n   completions: 4\nstatus:\n   succeeded: 3\n   failed: 1\n   conditions:\n    - type: Failed\n      status: \"True\"\n      reason: JobFailed\n"
        ),
        Status::Failed,
        "JobFailed",
    );
    check(
        "jobInProgress",
        &format!(
            "{head}spec:\n   completions: 10\n   parallelism: 2\nstatus:\n   startTime: \"2019-06-04T01:17:13Z\"\n   succeeded: 3\n   failed: 1\n   active: 2\n   conditions:\n    - type: Failed\n      status: \"False\"\n    - type: Complete\n      status: \"False\"\n"
        ),
        Status::Current,
        "",
    );
}

#[test]
fn hpas_and_cronjobs() {
    let head = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: test\n  generation: 1\n";
    check("hpaNoStatus", head, Status::Unknown, "");
    let conds = "status:\n  conditions:\n  - type: AbleToScale\n    status: \"True\"\n  - type: ScalingActive\n    status: \"True\"\n";
    check(
        "hpaCurrentStatus",
        &format!("{head}{conds}"),
        Status::Current,
        "",
    );
    check(
        "hpaScalingLimitedStatus",
        &format!("{head}{conds}  - type: ScalingLimited\n    status: \"True\"\n"),
        Status::Failed,
        "",
    );
    let cj = "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n   name: test\n   generation: 1\n";
    check("cronjobNoStatus", cj, Status::Current, "");
    check(
        "cronjobWithStatus",
        &format!("{cj}status:\n"),
        Status::Current,
        "",
    );
}

#[test]
fn services() {
    let head = "apiVersion: v1\nkind: Service\nmetadata:\n   name: test\n   generation: 1\n";
    check("serviceDefault", head, Status::Current, "");
    check(
        "serviceNodePort",
        &format!("{head}spec:\n  type: NodePort\n"),
        Status::Current,
        "",
    );
    check(
        "serviceLBok",
        &format!("{head}spec:\n  type: LoadBalancer\n  clusterIP: \"1.2.3.4\"\n"),
        Status::Current,
        "",
    );
    check(
        "serviceLBnok",
        &format!("{head}spec:\n  type: LoadBalancer\n"),
        Status::InProgress,
        "NoIPAssigned",
    );
}

#[test]
fn crds() {
    let head = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n   generation: 1\n";
    check("crdNoConditions", head, Status::InProgress, "Installing");
    check(
        "crdInstalling",
        &format!(
            "{head}status:\n   conditions:\n    - type: NamesAccepted\n      status: \"True\"\n      reason: NoConflicts\n    - type: Established\n      status: \"False\"\n      reason: Installing\n"
        ),
        Status::InProgress,
        "Installing",
    );
    check(
        "crdNamesNotAccepted",
        &format!(
            "{head}status:\n   conditions:\n    - type: NamesAccepted\n      status: \"False\"\n      reason: SomeReason\n"
        ),
        Status::Failed,
        "SomeReason",
    );
    check(
        "crdEstablished",
        &format!(
            "{head}status:\n   conditions:\n    - type: NamesAccepted\n      status: \"True\"\n      reason: NoConflicts\n    - type: Established\n      status: \"True\"\n      reason: InitialNamesAccepted\n"
        ),
        Status::Current,
        "",
    );
}

#[test]
fn apiservices_need_available() {
    let head =
        "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n   name: v1.x\n";
    check("apiNoStatus", head, Status::InProgress, "NotAvailable");
    check(
        "apiUnavailable",
        &format!(
            "{head}status:\n   conditions:\n    - type: Available\n      status: \"False\"\n      reason: MissingEndpoints\n"
        ),
        Status::InProgress,
        "MissingEndpoints",
    );
    check(
        "apiAvailable",
        &format!("{head}status:\n   conditions:\n    - type: Available\n      status: \"True\"\n"),
        Status::Current,
        "",
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
