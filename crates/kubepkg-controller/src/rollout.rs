//! The `PackageRollout` reconciler (docs/fleet.md): reads the clusters registered in the
//! rollout's namespace (Secrets labelled `kubepkg.dev/cluster`) and the Package it gave each,
//! lets `kubepkg_fleet::decide` say what happens next, gives the clusters that start now their
//! Package (server-side applied, owned by the rollout, annotated with the rollout's digest), and
//! writes the status: per stage and per cluster, with each cluster's reachability and
//! Kubernetes version. Everything a Package does (hooks, readiness, revisions, rollback rules)
//! is the Package reconciler's, in each cluster.
//!
//! A cluster started over an earlier spec keeps that spec on its Package
//! (`kubepkg.dev/rollout-previous`, written in the same apply), and `onFailure: Rollback` gives
//! it back ([`crate::rollout_verdict`] judges first whether it may go).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::ResourceExt;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams,
};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::EventType;
use kube::runtime::watcher;
use kubepkg_fleet::decide::{self, ClusterView, Outcome, Phase};
use kubepkg_fleet::rollback::{self, Verdict};
use kubepkg_fleet::spec::{InvalidSpec, OnFailure, RolloutSpec};
use kubepkg_package::conditions;
use kubepkg_package_object::KubeConfigSecretRef;
use serde_json::{Value, json};

use crate::reconcile::{Context, event, now};
use crate::rollout_package::{
    self, keep_for_next, outcome, package_body, rolled_back_outcome, version_of,
};
use crate::rollout_verdict;
use crate::status::{carry_transition_times, conditions_of};
use crate::{resource, target};

/// The field manager of the Packages a rollout gives its clusters.
const MANAGER: &str = "kubepkg-rollout";

/// Why a rollout reconcile must be retried.
#[derive(Debug, thiserror::Error)]
pub enum RolloutError {
    #[error("PackageRollout {object}: {what}")]
    Api {
        object: String,
        what: String,
        #[source]
        source: kube::Error,
    },
}

/// The API resource of `PackageRollout`.
pub fn api_resource() -> ApiResource {
    let gvk = GroupVersionKind::gvk(
        kubepkg_fleet::GROUP,
        kubepkg_fleet::VERSION,
        kubepkg_fleet::KIND,
    );
    ApiResource::from_gvk_with_plural(&gvk, kubepkg_fleet::PLURAL)
}

/// Whether the cluster serves PackageRollouts (their CRD is optional: without it the
/// controller reconciles Packages only).
pub async fn served(client: &kube::Client) -> bool {
    kube::discovery::oneshot::group(client, kubepkg_fleet::GROUP)
        .await
        .is_ok_and(|g| {
            g.recommended_resources()
                .iter()
                .any(|(r, _)| r.plural == kubepkg_fleet::PLURAL)
        })
}

/// Reconciles the PackageRollouts of `namespace` (all when `None`) until `shutdown`.
pub async fn run(
    ctx: Arc<Context>,
    namespace: Option<String>,
    shutdown: impl std::future::Future<Output = ()> + Send + Sync + 'static,
) {
    let client = ctx.cluster.client.clone();
    let ar = api_resource();
    let par = resource::api_resource();
    let (rollouts, packages): (Api<DynamicObject>, Api<DynamicObject>) = match &namespace {
        Some(ns) => (
            Api::namespaced_with(client.clone(), ns, &ar),
            Api::namespaced_with(client.clone(), ns, &par),
        ),
        None => (
            Api::all_with(client.clone(), &ar),
            Api::all_with(client.clone(), &par),
        ),
    };
    // A shard reconciles the rollouts its selector picks (their Packages carry their shard).
    let watched = match &ctx.label_selector {
        Some(selector) => watcher::Config::default().labels(selector),
        None => watcher::Config::default(),
    };
    Controller::new_with(rollouts, watched, ar)
        .owns_with(
            packages,
            par,
            watcher::Config::default().labels(kubepkg_fleet::ROLLOUT_LABEL),
        )
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, ctx)
        .for_each(|result| async move {
            if let Err(e) = result {
                tracing::debug!(error = %e, "rollout reconcile request failed");
            }
        })
        .await;
}

fn error_policy(obj: Arc<DynamicObject>, e: &RolloutError, _ctx: Arc<Context>) -> Action {
    tracing::warn!(rollout = %key(&obj), error = %kubepkg_engine::error::report(e), "retrying");
    Action::requeue(Duration::from_secs(10))
}

fn key(obj: &DynamicObject) -> String {
    format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any())
}

/// Stages approved for `digest` by the rollout's `kubepkg.dev/approved` annotation.
pub fn approvals(obj: &DynamicObject, digest: &str) -> BTreeSet<String> {
    obj.annotations()
        .get(kubepkg_fleet::APPROVED_ANNOTATION)
        .map(|a| {
            a.split(',')
                .filter_map(|e| e.trim().split_once('@'))
                .filter(|(_, d)| *d == digest)
                .map(|(s, _)| s.to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// A registered cluster's reachability and Kubernetes version (asked as the controller, five
/// seconds at most).
async fn probe(ctx: &Context, namespace: &str, secret: &str) -> Value {
    let r = KubeConfigSecretRef {
        name: secret.to_string(),
        key: None,
        namespace: None,
    };
    let who = kubepkg_kube::Impersonation::default();
    let acting = match target::remote(&ctx.cluster, &ctx.clients, namespace, &r, &who).await {
        Ok(a) => a,
        Err(e) => {
            return json!({"reachable": false, "message": kubepkg_engine::error::report(&e)});
        }
    };
    let server = acting.cluster.server().unwrap_or_default();
    match tokio::time::timeout(
        Duration::from_secs(5),
        acting.cluster.client.apiserver_version(),
    )
    .await
    {
        Ok(Ok(v)) => {
            json!({"server": server, "reachable": true, "kubernetesVersion": v.git_version})
        }
        Ok(Err(e)) => json!({"server": server, "reachable": false, "message": e.to_string()}),
        Err(_) => json!({"server": server, "reachable": false, "message": "no answer in 5s"}),
    }
}

/// One reconcile of a PackageRollout.
pub async fn reconcile(obj: Arc<DynamicObject>, ctx: Arc<Context>) -> Result<Action, RolloutError> {
    let namespace = obj.namespace().unwrap_or_default();
    let name = obj.name_any();
    let object = key(&obj);
    let client = ctx.cluster.client.clone();
    let rollouts: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), &namespace, &api_resource());
    let api_err = |what: &str| {
        let object = object.clone();
        let what = what.to_string();
        move |source| RolloutError::Api {
            object,
            what,
            source,
        }
    };
    let checked =
        serde_json::from_value::<RolloutSpec>(obj.data.get("spec").cloned().unwrap_or_default())
            .map_err(|e| InvalidSpec(format!("spec: {e}")))
            .and_then(|s| s.check().map(|p| (s, p)));
    let (spec, plans) = match checked {
        Ok(ok) => ok,
        Err(why) => {
            let message =
                format!("{why}; fix the PackageRollout (kubectl edit packagerollout {name})");
            let status = json!({
                "observedGeneration": obj.metadata.generation,
                "phase": "Invalid",
                "message": message,
                "conditions": carry_transition_times(
                    conditions::stopped("InvalidRollout", &message, &now()), &conditions_of(&obj)),
            });
            write(&rollouts, &name, status)
                .await
                .map_err(api_err("writing its status"))?;
            return Ok(Action::await_change());
        }
    };
    let digest = spec.digest();

    // The registered clusters it selects, and the Package it gave each.
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &namespace);
    let registered = secrets
        .list_metadata(&ListParams::default().labels(kubepkg_fleet::CLUSTER_LABEL))
        .await
        .map_err(api_err("listing the registered clusters"))?;
    let packages: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), &namespace, &resource::api_resource());
    let given = packages
        .list(&ListParams::default().labels(&format!("{}={name}", kubepkg_fleet::ROLLOUT_LABEL)))
        .await
        .map_err(api_err("listing its Packages"))?;
    let by_cluster: BTreeMap<String, &DynamicObject> = given
        .items
        .iter()
        .filter_map(|p| {
            p.labels()
                .get(kubepkg_fleet::CLUSTER_NAME_LABEL)
                .map(|c| (c.clone(), p))
        })
        .collect();
    let views: Vec<ClusterView> = registered
        .items
        .iter()
        .map(|s| {
            let labels: BTreeMap<String, String> = s.labels().clone().into_iter().collect();
            (s.name_any(), labels)
        })
        .filter(|(_, labels)| spec.clusters.as_ref().is_none_or(|sel| sel.matches(labels)))
        .map(|(cluster, labels)| {
            let package = by_cluster.get(&cluster);
            let rolled_back_from = package.and_then(|p| {
                p.annotations()
                    .get(kubepkg_fleet::ROLLED_BACK_ANNOTATION)
                    .cloned()
            });
            let back = rolled_back_from.as_deref() == Some(digest.as_str());
            ClusterView {
                given: package.and_then(|p| {
                    p.annotations()
                        .get(kubepkg_fleet::DIGEST_ANNOTATION)
                        .cloned()
                }),
                outcome: match package {
                    None => Outcome::InProgress("no Package yet".into()),
                    Some(p) if back => rolled_back_outcome(p),
                    Some(p) => outcome(p),
                },
                previous: package.and_then(|p| rollout_package::previous(p)).is_some(),
                rolled_back_from,
                conditions: package
                    .map(|p| {
                        conditions_of(p)
                            .into_iter()
                            .map(|c| (c.type_, c.status))
                            .collect()
                    })
                    .unwrap_or_default(),
                name: cluster,
                labels,
            }
        })
        .collect();

    // What was recorded for this digest: each stage's readyAt.
    let status = obj.data.get("status");
    let same_digest = status.and_then(|s| s.get("digest")).and_then(Value::as_str) == Some(&digest);
    let recorded = |field: &str| -> BTreeMap<String, i64> {
        status
            .filter(|_| same_digest)
            .and_then(|s| s.get("stages"))
            .and_then(Value::as_array)
            .map(|stages| {
                stages
                    .iter()
                    .filter_map(|s| Some((s["name"].as_str()?.to_string(), s[field].as_i64()?)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let ready_at = recorded("readyAtUnix");
    let started_at = recorded("startedAtUnix");
    let approved = approvals(&obj, &digest);
    let aborted = obj
        .annotations()
        .get(kubepkg_fleet::ABORTED_ANNOTATION)
        .map(String::as_str)
        == Some(&digest);
    // onFailure: Rollback: whether each cluster given this digest may go back (only once a
    // cluster failed, and read from each cluster's revisions).
    let mut verdicts: BTreeMap<String, Verdict> = BTreeMap::new();
    if spec.on_failure == OnFailure::Rollback && !aborted {
        for cluster in rollback::needs_verdict(&digest, &views) {
            if let Some(p) = by_cluster.get(cluster) {
                let v = rollout_verdict::verdict(&ctx, &namespace, p).await;
                verdicts.insert(cluster.to_string(), v);
            }
        }
    }
    let now_unix = jiff::Timestamp::now().as_second();
    let d = decide::decide(&decide::Inputs {
        stages: &plans,
        digest: &digest,
        clusters: &views,
        ready_at: &ready_at,
        approved: &approved,
        paused: spec.paused,
        on_failure: spec.on_failure,
        supersede: spec.supersede,
        verdicts: &verdicts,
        aborted,
        now: now_unix,
    });

    // Start the clusters whose turn it is.
    let owner = json!({
        "apiVersion": format!("{}/{}", kubepkg_fleet::GROUP, kubepkg_fleet::VERSION),
        "kind": kubepkg_fleet::KIND,
        "name": name,
        "uid": obj.uid().unwrap_or_default(),
        "controller": true,
    });
    let shard = obj
        .labels()
        .get(kubepkg_package_object::SHARD_LABEL)
        .map(String::as_str);
    // Each cluster's Package is server-side applied whole, as this controller's, with
    // `annotations` and the Package spec `spec` (`what` names the step in an error).
    let apply = |cluster: &str, annotations: Value, spec: Value, what: &'static str| {
        let package = kubepkg_fleet::package_name(&name, cluster);
        let body = package_body(
            &package,
            &namespace,
            (&name, shard),
            cluster,
            &owner,
            annotations,
            &spec,
        );
        let packages = packages.clone();
        async move {
            packages
                .patch(
                    &package,
                    &PatchParams::apply(MANAGER).force(),
                    &Patch::Apply(&body),
                )
                .await
                .map_err(api_err(&format!("{what} Package {package}")))
        }
    };
    for cluster in &d.start {
        let Some(view) = views.iter().find(|v| &v.name == cluster) else {
            continue;
        };
        let mut annotations = json!({kubepkg_fleet::DIGEST_ANNOTATION: digest});
        if let Some(previous) = by_cluster.get(cluster).and_then(|p| keep_for_next(p)) {
            annotations[kubepkg_fleet::PREVIOUS_ANNOTATION] =
                json!(serde_json::to_string(&previous).unwrap_or_default());
        }
        let package_spec = Value::Object(spec.package_for(&view.labels, cluster));
        apply(cluster, annotations, package_spec, "applying").await?;
        tracing::info!(rollout = %object, cluster = %cluster, "cluster started");
    }
    // Roll back the clusters whose turn it is: each Package gets the spec it had before
    // (applied whole, so what this digest added goes), marked as rolled back from it.
    for cluster in &d.roll_back {
        let Some(previous) = by_cluster
            .get(cluster)
            .and_then(|p| rollout_package::previous(p))
        else {
            continue;
        };
        let annotations = json!({
            kubepkg_fleet::DIGEST_ANNOTATION: previous.digest,
            kubepkg_fleet::ROLLED_BACK_ANNOTATION: digest,
        });
        let previous_spec = Value::Object(previous.spec);
        apply(cluster, annotations, previous_spec, "rolling back").await?;
        tracing::info!(rollout = %object, cluster = %cluster, to = %previous.version, "cluster rolled back");
    }

    // Status: per stage, per cluster (with reachability), phase and conditions.
    let probes =
        futures::future::join_all(views.iter().map(|v| probe(&ctx, &namespace, &v.name))).await;
    let stage_of = |cluster: &str| {
        d.stages
            .iter()
            .find(|s| s.clusters.iter().any(|c| c == cluster))
            .map(|s| s.name.clone())
    };
    let clusters: Vec<Value> = views
        .iter()
        .zip(probes)
        .map(|(v, probe)| {
            let package = by_cluster.get(&v.name);
            let pstatus = package.and_then(|p| p.data.get("status"));
            let started = d.start.contains(&v.name);
            let back = v.rolled_back_from.as_deref() == Some(&digest);
            let (state, message) =
                match (&v.outcome, v.given.as_deref() == Some(&digest) || started) {
                    _ if d.roll_back.contains(&v.name) => ("RollingBack", String::new()),
                    (Outcome::Ready, _) if back => ("RolledBack", String::new()),
                    (Outcome::Failed(m), _) if back => ("RollbackFailed", m.clone()),
                    (Outcome::InProgress(w), _) if back => ("RollingBack", w.clone()),
                    (_, false) => ("Pending", String::new()),
                    (Outcome::Ready, true) if !started => ("Ready", String::new()),
                    (Outcome::Failed(m), true) if !started => ("Failed", m.clone()),
                    (Outcome::InProgress(w), _) => ("InProgress", w.clone()),
                    _ => ("InProgress", "starting".to_string()),
                };
            let mut c = json!({
                "name": v.name,
                "stage": stage_of(&v.name),
                "state": state,
                "package": kubepkg_fleet::package_name(&name, &v.name),
                "version": pstatus.and_then(|s| s.get("version")).cloned(),
                "revision": pstatus.and_then(|s| s.get("revision")).cloned(),
            });
            if !message.is_empty() {
                c["message"] = json!(message);
            }
            if let (Some(c), Some(p)) = (c.as_object_mut(), probe.as_object()) {
                c.extend(p.clone());
            }
            c
        })
        .collect();
    ctx.metrics.rollouts.clusters(
        &object,
        clusters
            .iter()
            .map(|c| c["state"].as_str().unwrap_or_default()),
    );
    let stages: Vec<Value> = d
        .stages
        .iter()
        .map(|s| {
            let mut v = json!({"name": s.name, "state": s.state, "clusters": s.clusters});
            // When its first cluster started (for the stage duration metric).
            let started = started_at.get(&s.name).copied().or_else(|| {
                let begun = !s.clusters.is_empty()
                    && !matches!(
                        s.state,
                        decide::StageState::Waiting | decide::StageState::AwaitingApproval
                    );
                begun.then_some(now_unix)
            });
            if let Some(at) = started {
                v["startedAtUnix"] = json!(at);
            }
            if let (Some(ready), Some(started), None) = (s.ready_at, started, ready_at.get(&s.name))
            {
                ctx.metrics
                    .rollouts
                    .stage_done(&object, &s.name, (ready - started) as f64);
            }
            if let Some(at) = s.ready_at {
                v["readyAtUnix"] = json!(at);
                v["readyAt"] = json!(
                    jiff::Timestamp::from_second(at)
                        .map(|t| t.to_string())
                        .unwrap_or_default()
                );
            }
            v
        })
        .collect();
    let current = d
        .stages
        .iter()
        .find(|s| s.state != decide::StageState::Done)
        .map(|s| s.name.clone());
    let phase = format!("{:?}", d.phase);
    let stamp = now();
    let next_conditions = match d.phase {
        Phase::Succeeded => conditions::ready("Succeeded", &d.message, &stamp),
        Phase::Halted | Phase::RolledBack | Phase::Aborted => {
            conditions::stopped(&phase, &d.message, &stamp)
        }
        _ => conditions::reconciling(&phase, &d.message, &stamp),
    };
    let previous_phase = status
        .and_then(|s| s.get("phase"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut status = json!({
        "observedGeneration": obj.metadata.generation,
        "digest": digest,
        "phase": phase,
        "stage": current,
        "message": d.message,
        "stages": stages,
        "clusters": clusters,
        "conditions": carry_transition_times(next_conditions, &conditions_of(&obj)),
    });
    if !d.unstaged.is_empty() {
        status["unstaged"] = json!(d.unstaged);
    }
    let before: Vec<kubepkg_fleet::history::Entry> = obj
        .data
        .pointer("/status/history")
        .and_then(|h| serde_json::from_value(h.clone()).ok())
        .unwrap_or_default();
    status["history"] = json!(kubepkg_fleet::history::record(
        before,
        &digest,
        version_of(&given.items, &digest).as_deref(),
        &phase,
        &stamp,
    ));
    write(&rollouts, &name, status)
        .await
        .map_err(api_err("writing its status"))?;
    if previous_phase.as_deref() != Some(phase.as_str())
        || !d.start.is_empty()
        || !d.roll_back.is_empty()
    {
        let type_ = if matches!(
            d.phase,
            Phase::Halted | Phase::RollingBack | Phase::RolledBack
        ) {
            EventType::Warning
        } else {
            EventType::Normal
        };
        let note = match (d.start.is_empty(), d.roll_back.is_empty()) {
            (false, _) => format!("started {}; {}", d.start.join(", "), d.message),
            (_, false) => format!("rolling back {}; {}", d.roll_back.join(", "), d.message),
            _ => d.message.clone(),
        };
        event(&ctx, &obj, type_, &phase, &note).await;
    }
    Ok(match (d.phase, d.requeue_after) {
        (_, Some(secs)) => Action::requeue(Duration::from_secs(secs.max(1))),
        (Phase::Progressing | Phase::RollingBack, _) => Action::requeue(Duration::from_secs(15)),
        _ => Action::requeue(Duration::from_secs(300)),
    })
}

/// Merge-patches `status` into the rollout's status.
async fn write(api: &Api<DynamicObject>, name: &str, status: Value) -> Result<(), kube::Error> {
    api.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(&json!({"status": status})),
    )
    .await
    .map(|_| ())
}
