//! Readiness of one object from its JSON alone: a port of kstatus' rules
//! (`sigs.k8s.io/cli-utils/pkg/kstatus/status`), plus Helm's APIService rule.
//!
//! Order of decisions, as in kstatus' `Compute`:
//! 1. `metadata.deletionTimestamp` set → `Terminating`.
//! 2. `status.observedGeneration` present and ≠ `metadata.generation` → `InProgress`
//!    (`LatestGenerationNotObserved`).
//! 3. A `Reconciling=True` condition → `InProgress`; a `Stalled=True` condition → `Failed`.
//! 4. Kind rules: Deployment, StatefulSet, DaemonSet, ReplicaSet, Pod, Job, PVC, Service,
//!    PodDisruptionBudget, CustomResourceDefinition, APIService; Secret, ConfigMap and
//!    CronJob are always current.
//! 5. Anything else is `Current` ("Resource is current").
//!
//! The functions are pure: `now` is passed in for the Pod scheduling window.

use std::fmt;

use serde_json::Value;

/// kstatus' status of a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    InProgress,
    Failed,
    Current,
    Terminating,
    NotFound,
    Unknown,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::InProgress => "InProgress",
            Status::Failed => "Failed",
            Status::Current => "Current",
            Status::Terminating => "Terminating",
            Status::NotFound => "NotFound",
            Status::Unknown => "Unknown",
        })
    }
}

/// The computed readiness: status, a reason (kstatus' condition reason, empty when current)
/// and a human message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    pub status: Status,
    pub reason: String,
    pub message: String,
}

impl Readiness {
    fn current(message: impl Into<String>) -> Self {
        Readiness {
            status: Status::Current,
            reason: String::new(),
            message: message.into(),
        }
    }
    fn in_progress(reason: &str, message: impl Into<String>) -> Self {
        Readiness {
            status: Status::InProgress,
            reason: reason.to_string(),
            message: message.into(),
        }
    }
    fn failed(reason: &str, message: impl Into<String>) -> Self {
        Readiness {
            status: Status::Failed,
            reason: reason.to_string(),
            message: message.into(),
        }
    }
    /// True when the object counts as ready.
    pub fn is_ready(&self) -> bool {
        self.status == Status::Current
    }
}

/// How long a Pod may stay unschedulable before it is reported as failed (kstatus).
pub const SCHEDULE_WINDOW_SECONDS: i64 = 15;

/// Computes the readiness of `obj` (a full object including `status`) at time `now`.
pub fn compute(obj: &Value, now: jiff::Timestamp) -> Readiness {
    if let Some(r) = generic(obj) {
        return r;
    }
    let api_version = str_at(obj, &["apiVersion"]).unwrap_or("");
    let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
    let kind = str_at(obj, &["kind"]).unwrap_or("");
    match (group, kind) {
        ("", "Service") => service(obj),
        ("", "Pod") => pod(obj, now),
        ("", "Secret") | ("", "ConfigMap") | ("batch", "CronJob") => {
            Readiness::current("Resource is always ready")
        }
        ("", "PersistentVolumeClaim") => pvc(obj),
        ("apps", "StatefulSet") => statefulset(obj),
        ("apps" | "extensions", "DaemonSet") => daemonset(obj),
        ("apps" | "extensions", "Deployment") => deployment(obj),
        ("apps" | "extensions", "ReplicaSet") => replicaset(obj),
        ("policy", "PodDisruptionBudget") => {
            Readiness::current("AllowedDisruptions has been computed.")
        }
        ("batch", "Job") => job(obj),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => crd(obj),
        ("apiregistration.k8s.io", "APIService") => apiservice(obj),
        ("autoscaling", "HorizontalPodAutoscaler") => hpa(obj),
        _ => ready_condition(obj),
    }
}

/// One entry of `status.conditions`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Condition {
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub message: String,
}

/// The object's `status.conditions`, skipping malformed entries.
pub fn conditions(obj: &Value) -> Vec<Condition> {
    let Some(list) = at(obj, &["status", "conditions"]).and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|c| {
            let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            c.is_object().then(|| Condition {
                type_: s("type"),
                status: s("status"),
                reason: s("reason"),
                message: s("message"),
            })
        })
        .collect()
}

fn generic(obj: &Value) -> Option<Readiness> {
    if str_at(obj, &["metadata", "deletionTimestamp"]).is_some_and(|s| !s.is_empty()) {
        return Some(Readiness {
            status: Status::Terminating,
            reason: String::new(),
            message: "Resource scheduled for deletion".into(),
        });
    }
    if let Some(generation) = int_at(obj, &["metadata", "generation"])
        && let Some(observed) = int_at(obj, &["status", "observedGeneration"])
        && observed != generation
    {
        let kind = str_at(obj, &["kind"]).unwrap_or("");
        return Some(Readiness::in_progress(
            "LatestGenerationNotObserved",
            format!(
                "{kind} generation is {generation}, but latest observed generation is {observed}"
            ),
        ));
    }
    for c in conditions(obj) {
        if c.type_ == "Reconciling" && c.status == "True" {
            return Some(Readiness::in_progress(&c.reason, c.message));
        }
        if c.type_ == "Stalled" && c.status == "True" {
            return Some(Readiness::failed(&c.reason, c.message));
        }
    }
    None
}

fn statefulset(obj: &Value) -> Readiness {
    if str_at(obj, &["spec", "updateStrategy", "type"]) == Some("OnDelete") {
        return Readiness::current("StatefulSet is using the ondelete update strategy");
    }
    let spec = int_or(obj, &["spec", "replicas"], 1);
    let ready = int_or(obj, &["status", "readyReplicas"], 0);
    let current = int_or(obj, &["status", "currentReplicas"], 0);
    let updated = int_or(obj, &["status", "updatedReplicas"], 0);
    let replicas = int_or(obj, &["status", "replicas"], 0);
    let partition = int_or(
        obj,
        &["spec", "updateStrategy", "rollingUpdate", "partition"],
        -1,
    );
    if spec > replicas {
        return Readiness::in_progress("LessReplicas", format!("Replicas: {replicas}/{spec}"));
    }
    if spec > ready {
        return Readiness::in_progress("LessReady", format!("Ready: {ready}/{spec}"));
    }
    if replicas > spec {
        return Readiness::in_progress(
            "ExtraPods",
            format!("Pending termination: {}", replicas - spec),
        );
    }
    if partition != -1 {
        if updated < spec - partition {
            return Readiness::in_progress(
                "PartitionRollout",
                format!("updated: {updated}/{}", spec - partition),
            );
        }
        return Readiness::current(format!("Partition rollout complete. updated: {updated}"));
    }
    if spec > current {
        return Readiness::in_progress("LessCurrent", format!("current: {current}/{spec}"));
    }
    let cur_rev = str_at(obj, &["status", "currentRevision"]).unwrap_or("");
    let upd_rev = str_at(obj, &["status", "updateRevision"]).unwrap_or("");
    if cur_rev != upd_rev {
        return Readiness::in_progress(
            "RevisionMismatch",
            "Waiting for updated revision to match current",
        );
    }
    Readiness::current(format!(
        "All replicas scheduled as expected. Replicas: {replicas}"
    ))
}

fn deployment(obj: &Value) -> Readiness {
    // Without progressDeadlineSeconds the controller never sets Progressing; kstatus then
    // treats the rollout as progressing (the controller's MaxInt32 special case).
    let mut progressing = int_or(
        obj,
        &["spec", "progressDeadlineSeconds"],
        i64::from(i32::MAX),
    ) == i64::from(i32::MAX);
    let mut available = false;
    for c in conditions(obj) {
        match c.type_.as_str() {
            "Progressing" => {
                if c.reason == "ProgressDeadlineExceeded" {
                    return Readiness {
                        status: Status::Failed,
                        reason: c.reason,
                        message: "Progress deadline exceeded".into(),
                    };
                }
                if c.status == "True" && c.reason == "NewReplicaSetAvailable" {
                    progressing = true;
                }
            }
            "Available" if c.status == "True" => available = true,
            _ => {}
        }
    }
    let reps = ReplicaCounts::of(obj);
    let updated = int_or(obj, &["status", "updatedReplicas"], 0);
    let counts = first_short(&[
        ("LessReplicas", "Replicas", reps.replicas, reps.spec),
        ("LessUpdated", "Updated", updated, reps.spec),
    ])
    .or_else(|| extra_pods(reps.replicas, reps.spec))
    .or_else(|| {
        first_short(&[
            ("LessAvailable", "Available", reps.avail, updated),
            ("LessReady", "Ready", reps.ready, reps.spec),
        ])
    });
    if let Some(r) = counts {
        return r;
    }
    if !progressing {
        return Readiness::in_progress("ReplicaSetNotAvailable", "ReplicaSet not Available");
    }
    if !available {
        return Readiness::in_progress("DeploymentNotAvailable", "Deployment not Available");
    }
    Readiness::current(format!(
        "Deployment is available. Replicas: {}",
        reps.replicas
    ))
}

fn replicaset(obj: &Value) -> Readiness {
    if conditions(obj)
        .iter()
        .any(|c| c.type_ == "ReplicaFailure" && c.status == "True")
    {
        return Readiness::in_progress("ReplicaFailure", "Replica Failure condition. Check Pods");
    }
    let reps = ReplicaCounts::of(obj);
    let labelled = int_or(obj, &["status", "fullyLabeledReplicas"], 0);
    let counts = first_short(&[
        ("LessLabelled", "Labelled", labelled, reps.spec),
        ("LessAvailable", "Available", reps.avail, reps.spec),
        ("LessReady", "Ready", reps.ready, reps.spec),
    ])
    .or_else(|| extra_pods(reps.replicas, reps.spec));
    if let Some(r) = counts {
        return r;
    }
    Readiness::current(format!(
        "ReplicaSet is available. Replicas: {}",
        reps.replicas
    ))
}

fn daemonset(obj: &Value) -> Readiness {
    let kind = str_at(obj, &["kind"]).unwrap_or("");
    if int_at(obj, &["metadata", "generation"]).is_none() {
        return Readiness::in_progress(
            "NoGeneration",
            format!("{kind} metadata.generation not found"),
        );
    }
    if int_at(obj, &["status", "observedGeneration"]).is_none() {
        return Readiness::in_progress(
            "NoObservedGeneration",
            format!("{kind} status.observedGeneration not found"),
        );
    }
    let desired = int_or(obj, &["status", "desiredNumberScheduled"], -1);
    let current = int_or(obj, &["status", "currentNumberScheduled"], 0);
    let updated = int_or(obj, &["status", "updatedNumberScheduled"], 0);
    let avail = int_or(obj, &["status", "numberAvailable"], 0);
    let ready = int_or(obj, &["status", "numberReady"], 0);
    if desired == -1 {
        return Readiness::in_progress("NoDesiredNumber", "Missing .status.desiredNumberScheduled");
    }
    let counts = first_short(&[
        ("LessCurrent", "Current", current, desired),
        ("LessUpdated", "Updated", updated, desired),
        ("LessAvailable", "Available", avail, desired),
        ("LessReady", "Ready", ready, desired),
    ]);
    if let Some(r) = counts {
        return r;
    }
    Readiness::current(format!(
        "All replicas scheduled as expected. Replicas: {desired}"
    ))
}

/// The replica counts a Deployment and a ReplicaSet both have.
struct ReplicaCounts {
    /// `spec.replicas` (1 when unset).
    spec: i64,
    /// `status.replicas`.
    replicas: i64,
    /// `status.readyReplicas`.
    ready: i64,
    /// `status.availableReplicas`.
    avail: i64,
}

impl ReplicaCounts {
    fn of(obj: &Value) -> Self {
        ReplicaCounts {
            spec: int_or(obj, &["spec", "replicas"], 1),
            replicas: int_or(obj, &["status", "replicas"], 0),
            ready: int_or(obj, &["status", "readyReplicas"], 0),
            avail: int_or(obj, &["status", "availableReplicas"], 0),
        }
    }
}

/// kstatus's replica counts, checked in order: the first count `have` short of its `want`
/// makes the object `InProgress` with `reason` and "<label>: <have>/<want>".
fn first_short(counts: &[(&str, &str, i64, i64)]) -> Option<Readiness> {
    counts
        .iter()
        .find(|&&(_, _, have, want)| want > have)
        .map(|&(reason, label, have, want)| {
            Readiness::in_progress(reason, format!("{label}: {have}/{want}"))
        })
}

/// More `replicas` than the `spec` asks for: pods still to be terminated.
fn extra_pods(replicas: i64, spec: i64) -> Option<Readiness> {
    (replicas > spec).then(|| {
        Readiness::in_progress(
            "ExtraPods",
            format!("Pending termination: {}", replicas - spec),
        )
    })
}

fn pvc(obj: &Value) -> Readiness {
    let phase = str_at(obj, &["status", "phase"]).unwrap_or("unknown");
    if phase != "Bound" {
        return Readiness::in_progress("NotBound", format!("PVC is not Bound. phase: {phase}"));
    }
    Readiness::current("PVC is Bound")
}

fn pod(obj: &Value, now: jiff::Timestamp) -> Readiness {
    let conds = conditions(obj);
    match str_at(obj, &["status", "phase"]).unwrap_or("") {
        "Succeeded" => Readiness::current("Pod has completed successfully"),
        "Failed" => Readiness::current("Pod has completed, but not successfully"),
        "Running" => {
            if conds
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True")
            {
                return Readiness::current("Pod is Ready");
            }
            let crashing = crash_looping_containers(obj);
            if !crashing.is_empty() {
                return Readiness::failed(
                    "ContainerCrashLooping",
                    format!("Containers in CrashLoop state: {}", crashing.join(",")),
                );
            }
            Readiness::in_progress("PodRunningNotReady", "Pod is running but is not Ready")
        }
        "Pending" => {
            let unschedulable = conds.iter().any(|c| {
                c.type_ == "PodScheduled" && c.status == "False" && c.reason == "Unschedulable"
            });
            if unschedulable {
                let created = str_at(obj, &["metadata", "creationTimestamp"])
                    .and_then(|s| s.parse::<jiff::Timestamp>().ok());
                let within_window = created
                    .is_none_or(|t| now.as_second() - SCHEDULE_WINDOW_SECONDS < t.as_second());
                if within_window {
                    return Readiness::in_progress("PodNotScheduled", "Pod has not been scheduled");
                }
                return Readiness::failed("PodUnschedulable", "Pod could not be scheduled");
            }
            Readiness::in_progress("PodPending", "Pod is in the Pending phase")
        }
        "" => Readiness::in_progress("PodNotObserved", "Pod phase not available"),
        other => Readiness {
            status: Status::Unknown,
            reason: "UnknownPhase".into(),
            message: format!("unknown phase {other}"),
        },
    }
}

fn crash_looping_containers(obj: &Value) -> Vec<String> {
    let Some(list) = at(obj, &["status", "containerStatuses"]).and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter(|cs| str_at(cs, &["state", "waiting", "reason"]) == Some("CrashLoopBackOff"))
        .filter_map(|cs| str_at(cs, &["name"]).map(str::to_string))
        .collect()
}

fn job(obj: &Value) -> Readiness {
    let parallelism = int_or(obj, &["spec", "parallelism"], 1);
    let completions = int_or(obj, &["spec", "completions"], parallelism);
    let succeeded = int_or(obj, &["status", "succeeded"], 0);
    let active = int_or(obj, &["status", "active"], 0);
    let failed = int_or(obj, &["status", "failed"], 0);
    for c in conditions(obj) {
        if c.status != "True" {
            continue;
        }
        match c.type_.as_str() {
            "Complete" => {
                return Readiness::current(format!(
                    "Job Completed. succeeded: {succeeded}/{completions}"
                ));
            }
            "Failed" => {
                return Readiness::failed(
                    "JobFailed",
                    format!("Job Failed. failed: {failed}/{completions}"),
                );
            }
            "Suspended" => return Readiness::current("Job is suspended"),
            _ => {}
        }
    }
    if str_at(obj, &["status", "startTime"])
        .unwrap_or("")
        .is_empty()
    {
        return Readiness::in_progress("JobNotStarted", "Job not started");
    }
    Readiness::current(format!(
        "Job in progress. success:{succeeded}, active: {active}, failed: {failed}"
    ))
}

fn service(obj: &Value) -> Readiness {
    let kind = str_at(obj, &["spec", "type"]).unwrap_or("ClusterIP");
    if kind == "LoadBalancer" && str_at(obj, &["spec", "clusterIP"]).unwrap_or("").is_empty() {
        return Readiness::in_progress(
            "NoIPAssigned",
            "ClusterIP not set. Service type: LoadBalancer",
        );
    }
    Readiness::current("Service is ready")
}

fn crd(obj: &Value) -> Readiness {
    for c in conditions(obj) {
        if c.type_ == "NamesAccepted" && c.status == "False" {
            return Readiness::failed(&c.reason, c.message);
        }
        if c.type_ == "Established" {
            if c.status == "False" && c.reason != "Installing" {
                return Readiness::failed(&c.reason, c.message);
            }
            if c.status == "True" {
                return Readiness::current("CRD is established");
            }
        }
    }
    Readiness::in_progress("Installing", "Install in progress")
}

/// Kinds without rules: a `Ready=False` condition means in progress (kstatus' generic
/// conditions test); otherwise the absence of known conditions means current.
fn ready_condition(obj: &Value) -> Readiness {
    // kstatus' checkReadyCondition: the first `Ready` condition that is True, False or Unknown
    // decides (Unknown is InProgress); other values and no such condition fall through.
    for c in conditions(obj).into_iter().filter(|c| c.type_ == "Ready") {
        match c.status.as_str() {
            "True" => return Readiness::current("Resource is Ready"),
            "False" | "Unknown" => return Readiness::in_progress(&c.reason, c.message),
            _ => {}
        }
    }
    Readiness::current("Resource is current")
}

/// HorizontalPodAutoscaler as kstatus' tests pin it: no conditions yet → unknown,
/// `ScalingLimited=True` → failed, otherwise current.
fn hpa(obj: &Value) -> Readiness {
    let conds = conditions(obj);
    if conds.is_empty() {
        return Readiness {
            status: Status::Unknown,
            reason: "NoConditions".into(),
            message: "HorizontalPodAutoscaler has no conditions yet".into(),
        };
    }
    if let Some(c) = conds
        .iter()
        .find(|c| c.type_ == "ScalingLimited" && c.status == "True")
    {
        return Readiness::failed("ScalingLimited", c.message.clone());
    }
    Readiness::current("HorizontalPodAutoscaler is scaling")
}

/// Helm's rule (kstatus has none): an APIService is ready when `Available` is `True`.
fn apiservice(obj: &Value) -> Readiness {
    match conditions(obj).into_iter().find(|c| c.type_ == "Available") {
        Some(c) if c.status == "True" => Readiness::current("APIService is available"),
        Some(c) => Readiness::in_progress(
            if c.reason.is_empty() {
                "NotAvailable"
            } else {
                &c.reason
            },
            if c.message.is_empty() {
                "APIService is not available".to_string()
            } else {
                c.message
            },
        ),
        None => Readiness::in_progress("NotAvailable", "APIService is not available"),
    }
}

/// Helm's hook rule: a Job is done when `Complete=True` and failed when `Failed=True`; a
/// Pod is done when `Succeeded` and failed when `Failed`; anything else is done once created.
pub fn hook_completion(obj: &Value) -> Readiness {
    match str_at(obj, &["kind"]).unwrap_or("") {
        "Job" => {
            for c in conditions(obj) {
                if c.status != "True" {
                    continue;
                }
                if c.type_ == "Complete" {
                    return Readiness::current("Job completed");
                }
                if c.type_ == "Failed" {
                    let reason = if c.reason.is_empty() {
                        "JobFailed"
                    } else {
                        &c.reason
                    };
                    return Readiness::failed(reason, format!("job failed: {}", c.message));
                }
            }
            let active = int_or(obj, &["status", "active"], 0);
            let succeeded = int_or(obj, &["status", "succeeded"], 0);
            let failed = int_or(obj, &["status", "failed"], 0);
            Readiness::in_progress(
                "JobRunning",
                format!(
                    "Jobs active: {active}, jobs failed: {failed}, jobs succeeded: {succeeded}"
                ),
            )
        }
        "Pod" => match str_at(obj, &["status", "phase"]).unwrap_or("") {
            "Succeeded" => Readiness::current("Pod succeeded"),
            "Failed" => Readiness::failed("PodFailed", "pod failed"),
            phase => Readiness::in_progress("PodRunning", format!("Pod phase: {phase}")),
        },
        _ => Readiness::current("created"),
    }
}

/// The value at a path of object keys.
pub fn at<'a>(obj: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(obj, |v, k| v.get(k))
}

/// The string at a path.
pub fn str_at<'a>(obj: &'a Value, path: &[&str]) -> Option<&'a str> {
    at(obj, path).and_then(Value::as_str)
}

/// The integer at a path (kstatus' `GetIntField` accepts Go's integer types only; JSON
/// integers written as floats by a client, e.g. `3.0`, are accepted when integral).
pub fn int_at(obj: &Value, path: &[&str]) -> Option<i64> {
    let v = at(obj, path)?;
    v.as_i64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

fn int_or(obj: &Value, path: &[&str], default: i64) -> i64 {
    int_at(obj, path).unwrap_or(default)
}

#[cfg(test)]
mod tests;
