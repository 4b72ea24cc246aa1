//! What a `PreUpgrade` hook's pods left behind, for its verdict
//! (`kubepkg_package::verdict`): every terminated container's termination message (the file
//! at its `terminationMessagePath`, which the kubelet copies into the pod status) and the last
//! lines of the newest pod's log. Read after the hook's Job completed or failed; what cannot be
//! read (a pod already gone, a log the node no longer serves) is left out, so the hook is then
//! judged by its Job alone.

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, LogParams};
use kubepkg_kube::ObjectRef;
use kubepkg_package::verdict::HookOutput;

/// Lines of the log read for a verdict, and a cap on their bytes.
const LOG_TAIL_LINES: i64 = 20;
const LOG_MAX_BYTES: i64 = 64 * 1024;

/// The output of the pods behind the hook objects `ids` (its Jobs and Pods) in `namespace`.
pub async fn read(
    cluster: &kubepkg_kube::Cluster,
    ids: &[ObjectRef],
    namespace: &str,
) -> HookOutput {
    let pods: Api<Pod> = Api::namespaced(cluster.client.clone(), namespace);
    let mut found: Vec<Pod> = Vec::new();
    for id in ids {
        match id.kind.as_str() {
            "Pod" => {
                if let Ok(Some(p)) = pods.get_opt(&id.name).await {
                    found.push(p);
                }
            }
            "Job" => {
                let lp = ListParams::default().labels(&format!("job-name={}", id.name));
                if let Ok(list) = pods.list(&lp).await {
                    found.extend(list.items);
                }
            }
            _ => {}
        }
    }
    found.sort_by(|a, b| {
        a.metadata
            .creation_timestamp
            .as_ref()
            .map(|t| t.0)
            .cmp(&b.metadata.creation_timestamp.as_ref().map(|t| t.0))
    });
    let mut out = HookOutput::default();
    for pod in &found {
        let name = pod.metadata.name.clone().unwrap_or_default();
        let statuses = pod
            .status
            .as_ref()
            .and_then(|s| s.container_statuses.as_ref())
            .map(Vec::as_slice)
            .unwrap_or_default();
        for c in statuses {
            let terminated = c
                .state
                .as_ref()
                .and_then(|s| s.terminated.as_ref())
                .or_else(|| c.last_state.as_ref().and_then(|s| s.terminated.as_ref()));
            if let Some(message) = terminated.and_then(|t| t.message.clone())
                && !message.trim().is_empty()
            {
                out.termination_messages.push((
                    format!(
                        "the termination message of container {} of pod {name}",
                        c.name
                    ),
                    message,
                ));
            }
        }
    }
    if let Some(pod) = found.last() {
        let name = pod.metadata.name.clone().unwrap_or_default();
        let container = pod
            .spec
            .as_ref()
            .and_then(|s| s.containers.first())
            .map(|c| c.name.clone());
        let lp = LogParams {
            container: container.clone(),
            tail_lines: Some(LOG_TAIL_LINES),
            limit_bytes: Some(LOG_MAX_BYTES),
            ..Default::default()
        };
        if let Ok(text) = pods.logs(&name, &lp).await {
            out.log = Some((format!("the last log line of pod {name}"), text));
        }
    }
    out
}
