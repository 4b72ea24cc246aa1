//! `readyWhen` gates (docs/rules.md#readywhen): every listed object must have `status.conditions`
//! entry of the given type with the given status. Waiting watches each object by name (never polls
//! its state); a namespace left out defaults to the component's, and is ignored for cluster-scoped
//! kinds. A kind whose CRD is not served yet is looked up again as discovery changes, so a gate on
//! a resource an operator registers late still works.

use std::time::Duration;

use futures::StreamExt;
use kube::runtime::watcher;
use kubepkg_kube::{Cluster, KubeError, ObjectRef};
use kubepkg_model::ReadyCondition;
use serde_json::Value;
use tokio::time::Instant;

/// Why waiting for a component's Jobs or `readyWhen` gates ended without them holding.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// The deadline passed while the object still waited for `what`.
    #[error("timed out after {}s waiting for readyWhen {object}: {what}", timeout.as_secs())]
    TimedOut {
        object: String,
        what: String,
        timeout: Duration,
    },
    /// The gate's kind could not be looked up (not a "not served yet", which is waited out).
    #[error("readyWhen {object}: {source}")]
    Lookup {
        object: String,
        #[source]
        source: KubeError,
    },
    /// The object reported the condition that ends the wait (a Job's `Failed`), with what its
    /// pods, log tail and events say, one per line.
    #[error("{object} failed: {detail}{}", diagnosis.iter().map(|l| format!("\n    {l}")).collect::<String>())]
    Failed {
        object: String,
        detail: String,
        diagnosis: Vec<String>,
    },
}

/// Why a gate does not hold (yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateState {
    /// `Kind namespace/name` (or `Kind name` when cluster-scoped).
    pub object: String,
    /// `None` when the gate holds.
    pub waiting: Option<String>,
}

fn describe(id: &ObjectRef) -> String {
    if id.namespace.is_empty() {
        format!("{} {}", id.kind, id.name)
    } else {
        format!("{} {}/{}", id.kind, id.namespace, id.name)
    }
}

fn target(c: &ReadyCondition, namespace: &str) -> ObjectRef {
    ObjectRef {
        api_version: c.api_version.clone(),
        kind: c.kind.clone(),
        namespace: c.namespace.clone().unwrap_or_else(|| namespace.to_string()),
        name: c.name.clone(),
    }
}

/// What a gate says about `obj` (`None` = the object is absent).
pub fn evaluate(c: &ReadyCondition, obj: Option<&Value>) -> Option<String> {
    let Some(obj) = obj else {
        return Some("not found".into());
    };
    let conds = obj
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let found = conds
        .iter()
        .find(|x| x.get("type").and_then(Value::as_str) == Some(c.condition.as_str()));
    let expected = if c.status.is_empty() {
        "True"
    } else {
        &c.status
    };
    match found {
        None => Some(format!("condition {} not reported yet", c.condition)),
        Some(x) => {
            if let Some(stale) = stale_generation(obj, x, &c.condition) {
                return Some(stale);
            }
            let status = x.get("status").and_then(Value::as_str).unwrap_or("");
            if status == expected {
                return None;
            }
            let mut s = format!("{}={status}, want {expected}", c.condition);
            let reason = x.get("reason").and_then(Value::as_str).unwrap_or("");
            let message = x.get("message").and_then(Value::as_str).unwrap_or("");
            if !reason.is_empty() {
                s.push_str(&format!(" ({reason})"));
            }
            if !message.is_empty() {
                s.push_str(&format!(": {message}"));
            }
            Some(s)
        }
    }
}

/// A condition set for an older spec than the object's (Kubernetes API conventions: a
/// condition's `observedGeneration`, else `status.observedGeneration`, below
/// `metadata.generation`) says nothing about the current spec yet: right after an upgrade
/// changes a custom resource, its operator's last report is stale until it reconciles again.
fn stale_generation(obj: &Value, condition: &Value, name: &str) -> Option<String> {
    let generation = obj
        .pointer("/metadata/generation")
        .and_then(Value::as_i64)?;
    let observed = condition
        .get("observedGeneration")
        .or_else(|| obj.pointer("/status/observedGeneration"))
        .and_then(Value::as_i64)?;
    (observed < generation).then(|| {
        format!(
            "condition {name} reported for generation {observed}, the object is at generation {generation}"
        )
    })
}

/// The current state of every gate (one GET each), for `kubepkg status`.
pub async fn check(cluster: &Cluster, gates: &[ReadyCondition], namespace: &str) -> Vec<GateState> {
    let mut out = Vec::new();
    for c in gates {
        let id = target(c, namespace);
        let state = match cluster.locate(&id, namespace).await {
            Ok((api, id)) => {
                let obj = api
                    .get_opt(&id.name)
                    .await
                    .ok()
                    .flatten()
                    .map(|o| serde_json::to_value(o).unwrap_or_default());
                GateState {
                    object: describe(&id),
                    waiting: evaluate(c, obj.as_ref()),
                }
            }
            Err(e) => GateState {
                object: describe(&id),
                waiting: Some(format!("kind not served: {e}")),
            },
        };
        out.push(state);
    }
    out
}

/// Where and until when one component's Jobs and gates are waited for: the cluster of its
/// objects, its namespace (a gate's default), the deadline and the timeout it stands for
/// (named in [`GateError::TimedOut`]).
#[derive(Clone, Copy)]
pub struct Wait<'a> {
    pub cluster: &'a Cluster,
    pub namespace: &'a str,
    pub deadline: Instant,
    pub timeout: Duration,
}

impl Wait<'_> {
    /// Waits until every Job among `ids` has completed (condition `Complete`); a Job whose
    /// `Failed` condition turns true ends the wait at once. kstatus counts a started Job as
    /// current, but a hook component (docs/rules.md#preupgrade-hooks) and any Job of a
    /// component must have finished.
    /// `progress` as for [`Wait::gates`].
    pub async fn jobs(
        &self,
        ids: &[ObjectRef],
        mut progress: impl FnMut(&str, &str),
    ) -> Result<(), GateError> {
        for id in ids
            .iter()
            .filter(|i| i.kind == "Job" && i.api_version == "batch/v1")
        {
            let c = ReadyCondition {
                api_version: id.api_version.clone(),
                kind: id.kind.clone(),
                name: id.name.clone(),
                namespace: (!id.namespace.is_empty()).then(|| id.namespace.clone()),
                condition: "Complete".into(),
                status: "True".into(),
            };
            self.one(&c, Some("Failed"), &mut progress).await?;
        }
        Ok(())
    }

    /// Waits until every gate holds, or fails at the deadline naming each gate still unmet.
    /// `progress` gets the object and what it waits for whenever that changes.
    pub async fn gates(
        &self,
        gates: &[ReadyCondition],
        mut progress: impl FnMut(&str, &str),
    ) -> Result<(), GateError> {
        loop {
            for c in gates {
                self.one(c, None, &mut progress).await?;
            }
            // All held one after another; they must hold together.
            let now = check(self.cluster, gates, self.namespace).await;
            if now.iter().all(|g| g.waiting.is_none()) {
                return Ok(());
            }
        }
    }
    /// Waits until `c` holds; fails at once when the object reports `fail_when`.
    async fn one(
        &self,
        c: &ReadyCondition,
        fail_when: Option<&str>,
        progress: &mut impl FnMut(&str, &str),
    ) -> Result<(), GateError> {
        let Wait {
            cluster,
            namespace,
            deadline,
            timeout,
        } = *self;
        let id = target(c, namespace);
        let timed_out = |what: &str, object: &str| GateError::TimedOut {
            object: object.to_string(),
            what: what.to_string(),
            timeout,
        };
        // Resolve the kind; its CRD may still be on its way.
        let (api, id) = loop {
            match cluster.locate(&id, namespace).await {
                Ok(x) => break x,
                Err(e @ KubeError::Api { .. }) if kubepkg_kube::is_unreachable_api(&e) => {
                    return Err(GateError::Lookup {
                        object: describe(&id),
                        source: e,
                    });
                }
                Err(KubeError::UnknownKind { .. }) | Err(KubeError::Api { .. }) => {
                    let what = format!("{} {} is not served yet", id.api_version, id.kind);
                    progress(&describe(&id), &what);
                    if Instant::now() >= deadline {
                        return Err(timed_out(&what, &describe(&id)));
                    }
                    cluster.discovery.invalidate();
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(source) => {
                    return Err(GateError::Lookup {
                        object: describe(&id),
                        source,
                    });
                }
            }
        };
        let object = describe(&id);
        let mut stream = kubepkg_kube::wait::watch_named(api, &id.name).boxed();
        let mut last: Option<String> = Some("not found".into());
        let mut reported: Option<String> = None;
        // While the watch lists the object (Init .. InitDone) its state is not known yet: saying
        // "not found" then would be wrong for an object that exists.
        let mut listing = false;
        let mut outage = kubepkg_kube::wait::Outage::default();
        loop {
            let ev = match tokio::time::timeout_at(deadline, stream.next()).await {
                Ok(Some(ev)) => ev,
                Ok(None) | Err(_) => {
                    return Err(timed_out(last.as_deref().unwrap_or("unknown"), &object));
                }
            };
            match ev {
                Ok(watcher::Event::Apply(o)) | Ok(watcher::Event::InitApply(o)) => {
                    let v = serde_json::to_value(&o).unwrap_or_default();
                    if let Some(f) = fail_when {
                        let failed = ReadyCondition {
                            condition: f.to_string(),
                            status: "True".into(),
                            ..c.clone()
                        };
                        if evaluate(&failed, Some(&v)).is_none() {
                            let why = evaluate(c, Some(&v)).unwrap_or_default();
                            let detail = v
                                .pointer("/status/conditions")
                                .and_then(Value::as_array)
                                .and_then(|cs| {
                                    cs.iter()
                                        .find(|x| x.get("type").and_then(Value::as_str) == Some(f))
                                })
                                .map(|x| {
                                    format!(
                                        "{} ({}): {}",
                                        f,
                                        x.get("reason").and_then(Value::as_str).unwrap_or(""),
                                        x.get("message").and_then(Value::as_str).unwrap_or("")
                                    )
                                })
                                .unwrap_or(why);
                            // The pods behind it, their warnings and (a Job) its log tail.
                            let d = kubepkg_kube::diagnosis::diagnose(cluster, &id, true).await;
                            let diagnosis = d
                                .pods
                                .iter()
                                .chain(&d.log)
                                .cloned()
                                .chain(d.events.iter().map(|e| format!("event: {e}")))
                                .collect();
                            return Err(GateError::Failed {
                                object,
                                detail,
                                diagnosis,
                            });
                        }
                    }
                    last = evaluate(c, Some(&v));
                }
                Ok(watcher::Event::Delete(_)) => last = evaluate(c, None),
                Ok(watcher::Event::InitDone) => listing = false,
                Ok(watcher::Event::Init) => {
                    listing = true;
                    last = evaluate(c, None);
                }
                Err(e) => {
                    outage
                        .watch_failed(e, &object)
                        .map_err(|source| GateError::Lookup {
                            object: object.clone(),
                            source,
                        })?;
                    continue;
                }
            }
            outage.answered();
            match &last {
                None => return Ok(()),
                Some(_) if listing => {}
                Some(w) if reported.as_ref() != Some(w) => {
                    progress(&object, w);
                    reported = Some(w.clone());
                }
                Some(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn gate(status: &str) -> ReadyCondition {
        ReadyCondition {
            api_version: "kubevirt.io/v1".into(),
            kind: "KubeVirt".into(),
            name: "kubevirt".into(),
            namespace: None,
            condition: "Available".into(),
            status: status.into(),
        }
    }

    #[test]
    fn gate_holds_only_on_the_expected_status() {
        let obj = json!({"status": {"conditions": [
            {"type": "Progressing", "status": "True"},
            {"type": "Available", "status": "False", "reason": "Deploying", "message": "3 of 5"}
        ]}});
        assert_eq!(
            evaluate(&gate("True"), Some(&obj)).as_deref(),
            Some("Available=False, want True (Deploying): 3 of 5")
        );
        assert_eq!(evaluate(&gate("False"), Some(&obj)), None);
        assert_eq!(evaluate(&gate(""), None).as_deref(), Some("not found"));
        let none = json!({"status": {}});
        assert_eq!(
            evaluate(&gate("True"), Some(&none)).as_deref(),
            Some("condition Available not reported yet")
        );
    }

    #[test]
    fn gate_waits_for_a_report_on_the_current_generation() {
        let stale = json!({"metadata": {"generation": 2}, "status": {"conditions": [
            {"type": "Available", "status": "True", "observedGeneration": 1}
        ]}});
        assert_eq!(
            evaluate(&gate("True"), Some(&stale)).as_deref(),
            Some("condition Available reported for generation 1, the object is at generation 2")
        );
        // Without a per-condition generation, status.observedGeneration decides.
        let top = json!({"metadata": {"generation": 3}, "status": {"observedGeneration": 2,
            "conditions": [{"type": "Available", "status": "True"}]}});
        assert!(evaluate(&gate("True"), Some(&top)).is_some());
        let current = json!({"metadata": {"generation": 2}, "status": {"observedGeneration": 1,
            "conditions": [{"type": "Available", "status": "True", "observedGeneration": 2}]}});
        assert_eq!(evaluate(&gate("True"), Some(&current)), None);
        // Objects that report no generation at all keep the plain rule.
        let plain = json!({"metadata": {"generation": 5}, "status": {"conditions": [
            {"type": "Available", "status": "True"}]}});
        assert_eq!(evaluate(&gate("True"), Some(&plain)), None);
    }
}
