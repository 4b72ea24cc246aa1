//! What to show about an object that did not become ready, beyond its own status: the pods
//! behind a workload (a Deployment's, StatefulSet's, DaemonSet's, ReplicaSet's or Job's, found by
//! the workload's label selector; a Pod itself), each as one line — phase, `Ready` condition,
//! every container's waiting or terminated state with reason and message, restart count and
//! last termination — the recent **Warning** events of the object and of those pods, and for a
//! failed Job the tail of its newest pod's log. Bounded: at most [`MAX_PODS`] pods (unready ones
//! first), [`MAX_EVENTS`] events, [`LOG_LINES`] log lines, each line cut at [`MAX_LINE`]
//! characters; what cannot be read is left out (a diagnosis never fails the report).

use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::{Api, DynamicObject, ListParams, LogParams};

use crate::client::Cluster;
use crate::manifest::ObjectRef;

/// Pods described per object.
pub const MAX_PODS: usize = 3;
/// Events kept per object (its own and its pods' together).
pub const MAX_EVENTS: usize = 5;
/// Log lines of a failed Job's pod.
pub const LOG_LINES: i64 = 10;
/// Characters of one line.
pub const MAX_LINE: usize = 400;

/// The pods, events and log lines that explain why `id` is not ready.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnosis {
    /// One line per pod (`pod web-7d9c: Running, Ready=False …`).
    pub pods: Vec<String>,
    /// `Type Reason: message` of the object's and its pods' events, oldest first: the Warning
    /// ones; when there is none, the last event of any type.
    pub events: Vec<String>,
    /// The last lines of a failed Job's newest pod log.
    pub log: Vec<String>,
}

/// Looks at `id` and what runs it.
pub async fn diagnose(cluster: &Cluster, id: &ObjectRef, failed: bool) -> Diagnosis {
    let ns = if id.namespace.is_empty() {
        cluster.namespace.clone()
    } else {
        id.namespace.clone()
    };
    let pods_api: Api<Pod> = Api::namespaced(cluster.client.clone(), &ns);
    let mut pods = match id.kind.as_str() {
        "Pod" => pods_api
            .get_opt(&id.name)
            .await
            .ok()
            .flatten()
            .into_iter()
            .collect(),
        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "Job" => {
            match selector(cluster, id).await {
                Some(sel) if !sel.is_empty() => pods_api
                    .list(&ListParams::default().labels(&sel))
                    .await
                    .map(|l| l.items)
                    .unwrap_or_default(),
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    // Unready pods first, then the newest.
    pods.sort_by_key(|p| {
        (
            pod_ready(p),
            std::cmp::Reverse(p.metadata.creation_timestamp.as_ref().map(|t| t.0)),
        )
    });
    pods.truncate(MAX_PODS);
    let mut events = object_events(cluster, &ns, &id.kind, &id.name).await;
    for p in &pods {
        let name = p.metadata.name.clone().unwrap_or_default();
        events.extend(object_events(cluster, &ns, "Pod", &name).await);
    }
    events.sort();
    let warnings: Vec<String> = events
        .iter()
        .filter(|(_, warning, _)| *warning)
        .map(|(_, _, t)| t.clone())
        .collect();
    let events: Vec<String> = if warnings.is_empty() {
        events
            .last()
            .map(|(_, _, t)| t.clone())
            .into_iter()
            .collect()
    } else {
        let n = warnings.len();
        warnings
            .into_iter()
            .skip(n.saturating_sub(MAX_EVENTS))
            .collect()
    };
    let mut log = Vec::new();
    if failed
        && id.kind == "Job"
        && let Some(newest) = pods
            .iter()
            .max_by_key(|p| p.metadata.creation_timestamp.as_ref().map(|t| t.0))
    {
        let lp = LogParams {
            container: newest
                .spec
                .as_ref()
                .and_then(|s| s.containers.first())
                .map(|c| c.name.clone()),
            tail_lines: Some(LOG_LINES),
            limit_bytes: Some(16 * 1024),
            ..Default::default()
        };
        let name = newest.metadata.name.clone().unwrap_or_default();
        if let Ok(text) = pods_api.logs(&name, &lp).await {
            log = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| cut(&format!("log of pod {name}: {l}")))
                .collect();
        }
    }
    Diagnosis {
        pods: pods.iter().map(|p| cut(&pod_line(p))).collect(),
        events: events.into_iter().map(|e| cut(&e)).collect(),
        log,
    }
}

/// The workload's `spec.selector` as a label selector string (`matchLabels` and the `In`,
/// `NotIn`, `Exists`, `DoesNotExist` expressions).
async fn selector(cluster: &Cluster, id: &ObjectRef) -> Option<String> {
    let (api, located) = cluster.locate(id, &cluster.namespace).await.ok()?;
    let api: Api<DynamicObject> = api;
    let obj = api.get_opt(&located.name).await.ok()??;
    let sel = obj.data.get("spec")?.get("selector")?;
    let mut parts = Vec::new();
    if let Some(m) = sel.get("matchLabels").and_then(|m| m.as_object()) {
        for (k, v) in m {
            parts.push(format!("{k}={}", v.as_str().unwrap_or_default()));
        }
    }
    if let Some(exprs) = sel.get("matchExpressions").and_then(|e| e.as_array()) {
        for e in exprs {
            let key = e.get("key").and_then(|k| k.as_str()).unwrap_or_default();
            let values: Vec<&str> = e
                .get("values")
                .and_then(|v| v.as_array())
                .map(|v| v.iter().filter_map(|x| x.as_str()).collect())
                .unwrap_or_default();
            match e.get("operator").and_then(|o| o.as_str()) {
                Some("In") => parts.push(format!("{key} in ({})", values.join(","))),
                Some("NotIn") => parts.push(format!("{key} notin ({})", values.join(","))),
                Some("Exists") => parts.push(key.to_string()),
                Some("DoesNotExist") => parts.push(format!("!{key}")),
                _ => {}
            }
        }
    }
    Some(parts.join(","))
}

fn pod_ready(p: &Pod) -> bool {
    p.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// `pod NAME: PHASE, Ready=STATUS (REASON: MESSAGE); container C: STATE …`.
fn pod_line(p: &Pod) -> String {
    let name = p.metadata.name.as_deref().unwrap_or_default();
    let Some(status) = &p.status else {
        return format!("pod {name}: no status yet");
    };
    let mut line = format!(
        "pod {name}: {}",
        status.phase.as_deref().unwrap_or("Unknown")
    );
    if let Some(reason) = &status.reason {
        line.push_str(&format!(" ({reason})"));
    }
    if let Some(ready) = status
        .conditions
        .as_ref()
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
    {
        line.push_str(&format!(", Ready={}", ready.status));
        match (&ready.reason, &ready.message) {
            (Some(r), Some(m)) => line.push_str(&format!(" ({r}: {m})")),
            (Some(r), None) => line.push_str(&format!(" ({r})")),
            _ => {}
        }
    } else if let Some(c) = status.conditions.as_ref().and_then(|cs| {
        cs.iter()
            .find(|c| c.type_ == "PodScheduled" && c.status != "True")
    }) {
        line.push_str(&format!(
            ", not scheduled ({}: {})",
            c.reason.as_deref().unwrap_or_default(),
            c.message.as_deref().unwrap_or_default()
        ));
    }
    for c in status.container_statuses.iter().flatten() {
        line.push_str(&format!("; container {}: ", c.name));
        let state = c.state.as_ref();
        if let Some(w) = state.and_then(|s| s.waiting.as_ref()) {
            line.push_str(&format!(
                "waiting {}",
                w.reason.as_deref().unwrap_or_default()
            ));
            if let Some(m) = &w.message {
                line.push_str(&format!(": {m}"));
            }
        } else if let Some(t) = state.and_then(|s| s.terminated.as_ref()) {
            line.push_str(&terminated(t));
        } else if state.and_then(|s| s.running.as_ref()).is_some() {
            line.push_str(if c.ready {
                "running, ready"
            } else {
                "running, not ready"
            });
        } else {
            line.push_str("state unknown");
        }
        if c.restart_count > 0 {
            line.push_str(&format!(" (restarts {})", c.restart_count));
        }
        if let Some(t) = c.last_state.as_ref().and_then(|s| s.terminated.as_ref()) {
            line.push_str(&format!("; last {}", terminated(t)));
        }
    }
    line
}

fn terminated(t: &k8s_openapi::api::core::v1::ContainerStateTerminated) -> String {
    let mut s = format!(
        "terminated {} (exit {})",
        t.reason.as_deref().unwrap_or_default(),
        t.exit_code
    );
    if let Some(m) = t
        .message
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        s.push_str(&format!(": {m}"));
    }
    s
}

/// `(time, is warning, "Type Reason: message")` of the events about one object, in the order
/// listed.
pub(crate) async fn object_events(
    cluster: &Cluster,
    namespace: &str,
    kind: &str,
    name: &str,
) -> Vec<(String, bool, String)> {
    let api: Api<Event> = Api::namespaced(cluster.client.clone(), namespace);
    let lp = ListParams::default().fields(&format!(
        "involvedObject.name={name},involvedObject.kind={kind}"
    ));
    let Ok(list) = api.list(&lp).await else {
        return Vec::new();
    };
    list.items
        .into_iter()
        .map(|e| {
            let when = event_time(&e);
            let kind_text = e.type_.unwrap_or_default();
            let warning = kind_text == "Warning";
            let subject = if kind == "Pod" {
                format!("pod {name}: ")
            } else {
                String::new()
            };
            let text = format!(
                "{kind_text} {}: {subject}{}",
                e.reason.unwrap_or_default(),
                e.message.unwrap_or_default().trim()
            );
            (when, warning, text)
        })
        .collect()
}

/// `s` cut to [`MAX_LINE`] characters (an ellipsis marks the cut).
/// When an Event last happened: its `lastTimestamp` (core/v1 Events), else its `eventTime`
/// (events.k8s.io ones); empty when it has neither.
pub fn event_time(e: &Event) -> String {
    e.last_timestamp
        .as_ref()
        .map(|t| t.0.to_string())
        .or_else(|| e.event_time.as_ref().map(|t| t.0.to_string()))
        .unwrap_or_default()
}

fn cut(s: &str) -> String {
    if s.chars().count() <= MAX_LINE {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX_LINE).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(v: serde_json::Value) -> Pod {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_crashing_pod_is_one_line_with_its_reasons() {
        let p = pod(serde_json::json!({
            "metadata": {"name": "web-7d9c"},
            "status": {
                "phase": "Running",
                "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady", "message": "containers with unready status: [web]"}],
                "containerStatuses": [{
                    "name": "web", "ready": false, "restartCount": 3, "image": "x", "imageID": "",
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s restarting failed container"}},
                    "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "message": "config missing\n"}}
                }]
            }
        }));
        assert_eq!(
            pod_line(&p),
            "pod web-7d9c: Running, Ready=False (ContainersNotReady: containers with unready status: [web]); container web: waiting CrashLoopBackOff: back-off 40s restarting failed container (restarts 3); last terminated Error (exit 1): config missing"
        );
    }

    #[test]
    fn an_unscheduled_pod_says_why() {
        let p = pod(serde_json::json!({
            "metadata": {"name": "db-0"},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/2 nodes are available"}]}
        }));
        assert_eq!(
            pod_line(&p),
            "pod db-0: Pending, not scheduled (Unschedulable: 0/2 nodes are available)"
        );
    }

    #[test]
    fn long_lines_are_cut() {
        let s = "x".repeat(MAX_LINE + 10);
        assert_eq!(cut(&s).chars().count(), MAX_LINE + 1);
        assert_eq!(cut("short"), "short");
    }
}
