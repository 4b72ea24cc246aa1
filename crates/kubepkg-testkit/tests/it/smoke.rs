//! Smoke tests proving the local control plane is a real Kubernetes: real
//! controllers drive Deployments and Jobs through real pods on simulated
//! nodes, CRDs are served by the real apiextensions server, and server-side
//! apply tracks field managers. Expected behaviour is Kubernetes' own
//! (conditions, reasons, pruning, conflicts as the API server reports them).

use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::batch::v1::{Job, JobStatus};
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ListParams};
use kube::core::{DynamicObject, GroupVersionKind};
use kubepkg_testkit::{Error, TestNamespace, apply_yaml, has_condition, sim, wait_for};

const TIMEOUT: Duration = Duration::from_secs(90);

fn deployment(name: &str, replicas: u32, annotations: &str) -> String {
    format!(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: {replicas}
  progressDeadlineSeconds: 10
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
      annotations: {{{annotations}}}
    spec:
      containers:
      - name: web
        image: registry.invalid/web:1.0
"#
    )
}

#[tokio::test]
async fn deployment_becomes_available_through_replicasets_and_pods() {
    let ns = TestNamespace::fresh("deployment-available").await;
    ns.apply_yaml(&deployment("web", 2, "")).await.unwrap();

    let deployments = ns.api::<Deployment>();
    let web = wait_for(
        &deployments,
        "web",
        TIMEOUT,
        "Deployment web Available",
        has_condition("Available", "True"),
    )
    .await
    .unwrap();
    let status = web.status.expect("status");
    assert_eq!(status.ready_replicas, Some(2));
    assert_eq!(status.available_replicas, Some(2));

    // The deployment controller made a ReplicaSet, the ReplicaSet controller
    // made the pods, the scheduler bound them, the simulated kubelet ran them.
    let replica_sets = ns
        .api::<ReplicaSet>()
        .list(&ListParams::default())
        .await
        .unwrap();
    assert_eq!(replica_sets.items.len(), 1);
    let rs = &replica_sets.items[0];
    let owner = &rs.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("Deployment", "web")
    );
    assert_eq!(rs.status.as_ref().unwrap().ready_replicas, Some(2));

    let pods = ns
        .api::<Pod>()
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap();
    assert_eq!(pods.items.len(), 2);
    for pod in &pods.items {
        let owner = &pod.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(owner.kind, "ReplicaSet");
        assert_eq!(&owner.name, rs.metadata.name.as_ref().unwrap());
        let spec = pod.spec.as_ref().unwrap();
        assert!(
            spec.node_name
                .as_deref()
                .is_some_and(|n| n.starts_with("kpk-node-"))
        );
        // The ServiceAccount admission plugin mounted a projected token.
        assert!(
            spec.volumes
                .iter()
                .flatten()
                .any(|v| v.name.starts_with("kube-api-access-")),
            "no service-account token volume in {spec:?}"
        );
        let status = pod.status.as_ref().unwrap();
        assert_eq!(status.phase.as_deref(), Some("Running"));
        assert!(status.pod_ip.is_some());
        assert!(has_condition("Ready", "True")(pod));
    }
    // Pod logs go through the API server to the node's kubelet endpoint.
    let pod = pods.items[0].metadata.name.as_ref().unwrap();
    let log = ns.pod_logs(pod, Some("web")).await.unwrap();
    assert!(log.contains("container web"), "{log}");
}

#[tokio::test]
async fn unready_pods_make_a_deployment_miss_its_progress_deadline() {
    let ns = TestNamespace::fresh("deployment-unready").await;
    let annotations = format!("{}: {}", sim::MODE, sim::UNREADY);
    ns.apply_yaml(&deployment("stuck", 1, &annotations))
        .await
        .unwrap();
    let stuck = wait_for(
        &ns.api::<Deployment>(),
        "stuck",
        TIMEOUT,
        "Deployment stuck past its progress deadline",
        |d: &Deployment| {
            d.status
                .iter()
                .flat_map(|s| s.conditions.iter().flatten())
                .any(|c| {
                    c.type_.as_deref() == Some("Progressing")
                        && c.status.as_deref() == Some("False")
                        && c.reason.as_deref() == Some("ProgressDeadlineExceeded")
                })
        },
    )
    .await
    .unwrap();
    assert_eq!(stuck.status.unwrap().ready_replicas, None);
    let pods = ns.api::<Pod>().list(&ListParams::default()).await.unwrap();
    assert_eq!(pods.items.len(), 1);
    assert_eq!(
        pods.items[0].status.as_ref().unwrap().phase.as_deref(),
        Some("Running")
    );
    assert!(has_condition("Ready", "False")(&pods.items[0]));
}

fn job(name: &str, annotations: &str) -> String {
    job_with(name, annotations, "Never", 0)
}

fn job_with(name: &str, annotations: &str, restart_policy: &str, backoff_limit: u32) -> String {
    format!(
        r#"
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
spec:
  backoffLimit: {backoff_limit}
  template:
    metadata:
      annotations: {{{annotations}}}
    spec:
      restartPolicy: {restart_policy}
      containers:
      - name: main
        image: registry.invalid/task:1.0
"#
    )
}

/// Waits until Job `name` has the condition `condition` True; its status then.
async fn job_until(ns: &TestNamespace, name: &str, condition: &str) -> JobStatus {
    let job = wait_for(
        &ns.api::<Job>(),
        name,
        TIMEOUT,
        &format!("Job {name} {condition}"),
        has_condition(condition, "True"),
    )
    .await
    .unwrap();
    job.status.unwrap()
}

/// [`job_until`] `Failed`, which must say the Job exceeded its backoff limit.
async fn failed_job(ns: &TestNamespace, name: &str) -> JobStatus {
    let status = job_until(ns, name, "Failed").await;
    let condition = status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "Failed")
        .unwrap();
    assert_eq!(condition.reason.as_deref(), Some("BackoffLimitExceeded"));
    status
}

/// The pods of Job `name`.
async fn job_pods(ns: &TestNamespace, name: &str) -> Vec<Pod> {
    let selector = ListParams::default().labels(&format!("job-name={name}"));
    ns.api::<Pod>().list(&selector).await.unwrap().items
}

#[tokio::test]
async fn job_completes() {
    let ns = TestNamespace::fresh("job-completes").await;
    let annotations = format!("{}: \"migrating\\ndone\"", sim::LOG);
    ns.apply_yaml(&job("migrate", &annotations)).await.unwrap();
    let status = job_until(&ns, "migrate", "Complete").await;
    assert_eq!(status.succeeded, Some(1));
    assert!(status.completion_time.is_some());
    let pods = job_pods(&ns, "migrate").await;
    assert_eq!(pods.len(), 1);
    assert_eq!(
        pods[0].status.as_ref().unwrap().phase.as_deref(),
        Some("Succeeded")
    );
    let pod = pods[0].metadata.name.as_ref().unwrap();
    assert_eq!(ns.pod_logs(pod, None).await.unwrap(), "migrating\ndone\n");
}

#[tokio::test]
async fn job_whose_container_keeps_crashing_under_on_failure_exceeds_its_backoff_limit() {
    let ns = TestNamespace::fresh("job-crashloop").await;
    let annotations = format!("{}: {}, {}: 300ms", sim::MODE, sim::FAIL, sim::EXIT_AFTER);
    ns.apply_yaml(&job_with("crashy", &annotations, "OnFailure", 2))
        .await
        .unwrap();
    // The Job controller counts the container restarts of its running pods.
    let status = failed_job(&ns, "crashy").await;
    assert_eq!(status.succeeded, None);
}

#[tokio::test]
async fn job_whose_pod_fails_ends_failed() {
    let ns = TestNamespace::fresh("job-fails").await;
    let annotations = format!("{}: {}, {}: \"3\"", sim::MODE, sim::FAIL, sim::EXIT_CODE);
    ns.apply_yaml(&job("broken", &annotations)).await.unwrap();
    let status = failed_job(&ns, "broken").await;
    assert_eq!(status.failed, Some(1));
    assert_eq!(status.succeeded, None);
    let pods = job_pods(&ns, "broken").await;
    let pod_status = pods[0].status.as_ref().unwrap();
    assert_eq!(pod_status.phase.as_deref(), Some("Failed"));
    let terminated = pod_status.container_statuses.as_ref().unwrap()[0]
        .state
        .as_ref()
        .unwrap()
        .terminated
        .as_ref()
        .unwrap();
    assert_eq!(terminated.exit_code, 3);
}

#[tokio::test]
async fn crd_becomes_established_and_its_custom_resource_is_served() {
    let ns = TestNamespace::fresh("crd-served").await;
    // CRDs are cluster-wide: SSA of the same definition is idempotent across tests and runs.
    ns.apply_yaml(
        r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.smoke.kubepkg.dev
spec:
  group: smoke.kubepkg.dev
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3}
              color: {type: string}
"#,
    )
    .await
    .unwrap();
    wait_for(
        &Api::<CustomResourceDefinition>::all(ns.client().clone()),
        "widgets.smoke.kubepkg.dev",
        TIMEOUT,
        "CRD widgets.smoke.kubepkg.dev Established",
        has_condition("Established", "True"),
    )
    .await
    .unwrap();

    // Established comes a moment before discovery serves the new group (seen on a loaded
    // machine: 404 from the group's discovery document): ask again until it does.
    let types = kube::core::TypeMeta {
        api_version: "smoke.kubepkg.dev/v1".into(),
        kind: "Widget".into(),
    };
    let deadline = std::time::Instant::now() + TIMEOUT;
    let (resource, _) = loop {
        match kubepkg_testkit::resolve(ns.client(), &types).await {
            Ok(found) => break found,
            Err(e) if std::time::Instant::now() < deadline => {
                eprintln!("discovery does not serve Widget yet: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            Err(e) => panic!("Widget not served {TIMEOUT:?} after its CRD was Established: {e}"),
        }
    };
    let gvk = GroupVersionKind::gvk("smoke.kubepkg.dev", "v1", "Widget");
    assert_eq!(resource.kind, gvk.kind);
    assert_eq!(resource.plural, "widgets");
    let widgets: Api<DynamicObject> =
        Api::namespaced_with(ns.client().clone(), ns.name(), &resource);

    // Server-side apply validates against the schema: an undeclared field is refused...
    let err = ns
        .apply_yaml(
            "apiVersion: smoke.kubepkg.dev/v1\nkind: Widget\nmetadata: {name: w0}\nspec: {unknownField: x}\n",
        )
        .await
        .expect_err("an undeclared field must be refused by server-side apply");
    assert!(
        err.to_string()
            .contains(".spec.unknownField: field not declared in schema"),
        "{err}"
    );

    // ...while a plain create keeps the declared fields, prunes the rest and
    // fills in the schema's defaults.
    let w1: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "smoke.kubepkg.dev/v1",
        "kind": "Widget",
        "metadata": {"name": "w1"},
        "spec": {"color": "blue", "unknownField": "dropped"},
    }))
    .unwrap();
    widgets.create(&Default::default(), &w1).await.unwrap();
    let w1 = widgets.get("w1").await.unwrap();
    // The structural schema pruned the unknown field and defaulted size.
    assert_eq!(
        w1.data["spec"],
        serde_json::json!({"color": "blue", "size": 3})
    );
}

#[tokio::test]
async fn server_side_apply_tracks_field_managers_and_reports_conflicts() {
    let ns = TestNamespace::fresh("server-side-apply").await;
    let client = ns.client();
    let config = |value: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: settings}}\ndata: {{mode: \"{value}\"}}\n"
        )
    };
    apply_yaml(client, Some(ns.name()), &config("fast"), "kubepkg-a", false)
        .await
        .unwrap();
    let cm = ns.api::<ConfigMap>().get("settings").await.unwrap();
    let managers: Vec<_> = cm
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|m| {
            (
                m.manager.clone().unwrap_or_default(),
                m.operation.clone().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        managers,
        vec![("kubepkg-a".to_string(), "Apply".to_string())]
    );

    // Another manager changing an owned field conflicts...
    let err = apply_yaml(client, Some(ns.name()), &config("slow"), "kubepkg-b", false)
        .await
        .expect_err("a second manager must conflict");
    match &err {
        Error::Kube {
            source: kube::Error::Api(status),
            ..
        } => {
            assert_eq!(status.code, 409, "{err}");
            assert_eq!(status.reason, "Conflict", "{err}");
            assert!(status.message.contains("kubepkg-a"), "{err}");
            assert!(status.message.contains(".data.mode"), "{err}");
        }
        other => panic!("expected a 409 conflict, got {other}"),
    }
    assert_eq!(
        ns.api::<ConfigMap>()
            .get("settings")
            .await
            .unwrap()
            .data
            .unwrap()["mode"],
        "fast"
    );

    // ...unless it forces, which takes the field over.
    apply_yaml(client, Some(ns.name()), &config("slow"), "kubepkg-b", true)
        .await
        .unwrap();
    let cm = ns.api::<ConfigMap>().get("settings").await.unwrap();
    assert_eq!(cm.data.as_ref().unwrap()["mode"], "slow");
    let owners: Vec<_> = cm
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|m| {
            m.fields_v1
                .as_ref()
                .is_some_and(|f| f.0.to_string().contains("f:mode"))
        })
        .map(|m| m.manager.clone().unwrap_or_default())
        .collect();
    assert_eq!(owners, vec!["kubepkg-b".to_string()]);
}
