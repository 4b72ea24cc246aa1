//! Running a release's hooks for one event as Helm's `execHook` does: hooks with the event,
//! stable-sorted by weight then name; each one's `before-hook-creation` objects deleted
//! first (the default policy when none is given); created; a Job waited until complete, a
//! Pod until succeeded, anything else done once created; `last_run` recorded. A failure
//! stops the sequence: earlier hooks are cleaned by `hook-succeeded`, the failed one by
//! `hook-failed`, and a kept failed Job/Pod's log is attached to the error. After success,
//! `hook-succeeded` objects are deleted in reverse order.

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, LogParams};
use kubepkg_kube::manifest::{self, ManifestObject};
use kubepkg_kube::{Applier, KubeError, wait};
use kubepkg_progress::Message;

use super::ActionError;
use crate::record::{Hook, HookDeletePolicy, HookEvent, HookExecution, HookPhase};

/// Indices of the hooks that run for `event`, in execution order.
pub fn hooks_for(hooks: &[Hook], event: &HookEvent) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..hooks.len())
        .filter(|&i| hooks[i].events.contains(event))
        .collect();
    idx.sort_by(|&a, &b| {
        hooks[a]
            .weight
            .cmp(&hooks[b].weight)
            .then_with(|| hooks[a].name.cmp(&hooks[b].name))
    });
    idx
}

fn has_policy(h: &Hook, p: &HookDeletePolicy) -> bool {
    h.delete_policies.contains(p)
}

fn objects(h: &Hook) -> Result<Vec<ManifestObject>, ActionError> {
    manifest::parse(&h.manifest).map_err(|e| ActionError::Manifest(e.to_string()))
}

/// Deletes a hook's objects when it carries `policy` and waits for them to be gone.
/// CRD hooks are never deleted (Helm).
async fn delete_by_policy(
    applier: &Applier<'_>,
    h: &Hook,
    policy: &HookDeletePolicy,
    timeout: Duration,
) -> Result<(), ActionError> {
    if h.kind == "CustomResourceDefinition" || !has_policy(h, policy) {
        return Ok(());
    }
    let objs = objects(h)?;
    let mut ids = Vec::new();
    for o in &objs {
        if applier.delete(&o.id).await? {
            ids.push(applier.locate(&o.id).await?.1);
        }
    }
    wait::wait_deleted(applier.cluster, &ids, timeout).await?;
    Ok(())
}

/// Runs the hooks of `event`, updating their `last_run` in `hooks`. `record` is called
/// after each hook starts so the stored release shows it running.
pub async fn run(
    applier: &Applier<'_>,
    hooks: &mut [Hook],
    event: HookEvent,
    timeout: Duration,
    progress: &(dyn Fn(Message) + Send + Sync),
) -> Result<(), ActionError> {
    let order = hooks_for(hooks, &event);
    for (n, &i) in order.iter().enumerate() {
        if hooks[i].delete_policies.is_empty() {
            hooks[i].delete_policies = vec![HookDeletePolicy::BeforeHookCreation];
        }
        delete_by_policy(
            applier,
            &hooks[i],
            &HookDeletePolicy::BeforeHookCreation,
            timeout,
        )
        .await?;
        progress(Message::HookStarted {
            event: event.to_string(),
            hook: hooks[i].name.clone(),
            path: hooks[i].path.clone(),
        });
        hooks[i].last_run = HookExecution {
            started_at: Some(jiff::Timestamp::now()),
            completed_at: None,
            phase: HookPhase::Unknown,
        };
        let result = execute(applier, &hooks[i], timeout).await;
        hooks[i].last_run.completed_at = Some(jiff::Timestamp::now());
        if let Err(e) = result {
            hooks[i].last_run.phase = HookPhase::Failed;
            let log = if has_policy(&hooks[i], &HookDeletePolicy::HookFailed) {
                String::new()
            } else {
                hook_log(applier, &hooks[i]).await
            };
            for &j in &order[..n] {
                delete_by_policy(
                    applier,
                    &hooks[j],
                    &HookDeletePolicy::HookSucceeded,
                    timeout,
                )
                .await?;
            }
            delete_by_policy(applier, &hooks[i], &HookDeletePolicy::HookFailed, timeout).await?;
            return Err(ActionError::HookFailed {
                event: event.to_string(),
                path: hooks[i].path.clone(),
                reason: e.to_string(),
                log,
            });
        }
        hooks[i].last_run.phase = HookPhase::Succeeded;
    }
    for &i in order.iter().rev() {
        delete_by_policy(
            applier,
            &hooks[i],
            &HookDeletePolicy::HookSucceeded,
            timeout,
        )
        .await?;
    }
    Ok(())
}

/// Creates a hook's objects and waits for Jobs to complete and Pods to succeed.
async fn execute(applier: &Applier<'_>, h: &Hook, timeout: Duration) -> Result<(), ActionError> {
    let objs = objects(h)?;
    let mut waits = Vec::new();
    for o in &objs {
        applier.apply_one(o).await?;
        if matches!(o.id.kind.as_str(), "Job" | "Pod") {
            waits.push(applier.locate(&o.id).await?.1);
        }
    }
    match wait::wait_hooks_done(applier.cluster, &waits, timeout).await {
        Ok(()) => Ok(()),
        Err(e @ (KubeError::Failed(_) | KubeError::NotReady(_))) => Err(ActionError::Cluster(e)),
        Err(e) => Err(e.into()),
    }
}

/// The log of a hook's Pod, or of the newest Pod of a hook's Job (last 50 lines each).
async fn hook_log(applier: &Applier<'_>, h: &Hook) -> String {
    let Ok(objs) = objects(h) else {
        return String::new();
    };
    let ns = &applier.owner.namespace;
    let pods: Api<Pod> = Api::namespaced(applier.cluster.client.clone(), ns);
    let mut out = String::new();
    for o in objs {
        let names: Vec<String> = match o.id.kind.as_str() {
            "Pod" => vec![o.id.name.clone()],
            "Job" => {
                let lp = ListParams::default().labels(&format!("job-name={}", o.id.name));
                match pods.list(&lp).await {
                    Ok(l) => l
                        .items
                        .into_iter()
                        .filter_map(|p| p.metadata.name)
                        .collect(),
                    Err(_) => Vec::new(),
                }
            }
            _ => Vec::new(),
        };
        for pod in names {
            let lp = LogParams {
                tail_lines: Some(50),
                ..Default::default()
            };
            if let Ok(text) = pods.logs(&pod, &lp).await {
                out.push_str(&format!("--- log of pod {pod} ---\n{text}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(name: &str, weight: i64, events: &[HookEvent]) -> Hook {
        Hook {
            name: name.into(),
            weight,
            events: events.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn hooks_run_by_weight_then_name_for_their_event_only() {
        let hooks = vec![
            hook("b", 0, &[HookEvent::PreInstall]),
            hook("a", 0, &[HookEvent::PreInstall, HookEvent::PreUpgrade]),
            hook("z", -5, &[HookEvent::PreInstall]),
            hook("post", -10, &[HookEvent::PostInstall]),
        ];
        let order: Vec<&str> = hooks_for(&hooks, &HookEvent::PreInstall)
            .into_iter()
            .map(|i| hooks[i].name.as_str())
            .collect();
        assert_eq!(order, vec!["z", "a", "b"]);
        assert_eq!(hooks_for(&hooks, &HookEvent::PreUpgrade), vec![1]);
        assert!(hooks_for(&hooks, &HookEvent::Test).is_empty());
    }
}
