//! Tenancy (docs/controller.md#multi-tenancy) against the local control plane: the real
//! `kubepkg controller` applies a Package as the ServiceAccount it names (or the controller's
//! `--default-service-account`) by Kubernetes impersonation, so the API server refuses what
//! that ServiceAccount may not do — the revision ends as any failure does, naming the refused
//! request; `--no-cross-namespace-refs` refuses references to other namespaces; the CLI's
//! `--kube-as-user` is refused where the API server's own authorizer says so (a
//! SubjectAccessReview is the oracle). No Secret value reaches a log, Event or status.

use std::path::Path;

use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::{ConfigMap, Secret, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, RoleBinding};
use kube::api::{Api, ListParams, PostParams};
use kubepkg_testkit::TestNamespace;
use kubepkg_testkit::charts::deploy_chart;
use serde_json::{Value, json};

use crate::controller::{
    ControllerProcess, archive, create, install_crd, ready_at, store_archive, wait_ready,
};
use crate::support::run;

/// `text` in standard base64.
fn base64_of(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// A ServiceAccount `name` of `ns` allowed everything in `ns` and nothing elsewhere (the
/// built-in `cluster-admin` ClusterRole bound by a RoleBinding, as Flux's multi-tenancy
/// example does). Returns once the API server's authorizer grants it (its RBAC cache follows
/// the new RoleBinding a moment later), so what follows meets the grant in effect.
pub(crate) async fn tenant_service_account(ns: &TestNamespace, name: &str) {
    let sas: Api<ServiceAccount> = ns.api();
    sas.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": name}})).unwrap(),
    )
    .await
    .expect("ServiceAccount created");
    let bindings: Api<RoleBinding> = ns.api();
    bindings
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({
                "metadata": {"name": format!("{name}-admin")},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
                "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns.name()}],
            }))
            .unwrap(),
        )
        .await
        .expect("RoleBinding created");
    let user = format!("system:serviceaccount:{}:{name}", ns.name());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !allowed(ns, &user, "create", "secrets", ns.name()).await {
        assert!(
            std::time::Instant::now() < deadline,
            "{user} not granted by its RoleBinding within 60 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// A package `name` `version` of component `app` (a simulated Deployment) and, with `extra`,
/// a component `extra` whose chart holds that one manifest.
fn tenant_package(root: &Path, name: &str, version: &str, safe: bool, extra: Option<&str>) {
    std::fs::create_dir_all(root).unwrap();
    let mut manifest = format!(
        "package:\n  name: {name}\n  version: {version}\n  rollback: {{safe: {safe}}}\ncomponents:\n- {{name: app, path: app}}\n"
    );
    deploy_chart(&root.join("app"), "app", "1.0.0");
    if let Some(extra) = extra {
        manifest.push_str("- {name: extra, path: extra}\n");
        kubepkg_testkit::charts::write_chart(
            &root.join("extra"),
            "extra",
            "1.0.0",
            &[("templates/extra.yaml", extra)],
        );
    }
    std::fs::write(root.join("kubepkg.yaml"), manifest).unwrap();
}

/// Stores version `version` of package `shop` as ConfigMap `shop-VERSION` of `ns`; returns its
/// `source`.
async fn stored(
    ns: &TestNamespace,
    tmp: &Path,
    version: &str,
    safe: bool,
    extra: Option<&str>,
) -> Value {
    let dir = tmp.join(version);
    tenant_package(&dir, "shop", version, safe, extra);
    let name = format!("shop-{}", version.replace('.', "-"));
    store_archive(ns, &name, archive(&dir)).await;
    crate::controller::source(version)
}

/// The message of condition `type_` (empty when there is none).
fn message(obj: &Value, type_: &str) -> String {
    crate::controller::condition(obj, type_)
        .map(|(_, _, message)| message)
        .unwrap_or_default()
}

/// The Events of object `name` as `REASON MESSAGE` lines.
async fn events(ns: &TestNamespace, name: &str) -> Vec<String> {
    crate::controller::events_of(ns, name)
        .await
        .into_iter()
        .map(|(reason, message)| format!("{reason} {message}"))
        .collect()
}

/// Whether the API server's authorizer lets `user` `verb` `resource` in `namespace` (the
/// independent oracle of what an impersonated request may do).
async fn allowed(
    ns: &TestNamespace,
    user: &str,
    verb: &str,
    resource: &str,
    namespace: &str,
) -> bool {
    let api: Api<SubjectAccessReview> = Api::all(ns.client().clone());
    let (sa_ns, _) = user
        .strip_prefix("system:serviceaccount:")
        .and_then(|r| r.split_once(':'))
        .unwrap();
    let review = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(user.to_string()),
            groups: Some(vec![
                "system:serviceaccounts".into(),
                format!("system:serviceaccounts:{sa_ns}"),
                "system:authenticated".into(),
            ]),
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                resource: Some(resource.into()),
                namespace: Some(namespace.into()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    api.create(&PostParams::default(), &review)
        .await
        .expect("SubjectAccessReview answered")
        .status
        .is_some_and(|s| s.allowed)
}

/// A Package naming a ServiceAccount that may do anything in its namespace only: installed;
/// a version whose chart also writes a Secret in another namespace is refused by the API
/// server (rolled back: the version says safe), one writing a ClusterRole too (not rolled
/// back: unsafe); the condition and an Event name the refused request and the ServiceAccount,
/// nothing is created outside the namespace, and the values Secret's value is never shown.
#[tokio::test]
async fn a_package_is_applied_as_its_service_account_and_refused_beyond_it() {
    let a = TestNamespace::fresh("ten-a").await;
    let b = TestNamespace::fresh("ten-b").await;
    install_crd(&a).await;
    tenant_service_account(&a, "deployer").await;
    let secret_value = "tenant-secret-value-7f3a9c";
    crate::support::create_secret(
        &a,
        json!({
            "metadata": {"name": "shop-values"},
            "stringData": {"values.yaml": format!("app:\n  image: registry.invalid/{secret_value}:1\n")},
        }),
    )
    .await;
    let ctl = ControllerProcess::start(&a, "5s", &[]);
    let tmp = tempfile::tempdir().unwrap();
    let v1 = stored(&a, tmp.path(), "1.0.0", true, None).await;
    create(
        &a,
        "shop",
        json!({"source": v1, "serviceAccountName": "deployer",
               "valuesFrom": [{"kind": "Secret", "name": "shop-values"}]}),
    )
    .await;
    ready_at(&a, &ctl, "shop", "1.0.0").await;
    // `version` (`safe`, its extra component `extra`) given to the Package: Ready turns False
    // with `reason`, its message naming each of `parts`; the Package then.
    let refused = async |version: &str, safe: bool, extra: &str, reason: &str, parts: &[&str]| {
        let source = stored(&a, tmp.path(), version, safe, Some(extra)).await;
        crate::controller::patch_spec(&a, "shop", json!({"source": source})).await;
        let o = wait_ready(&a, &ctl, "shop", "False", reason).await;
        let why = message(&o, "Ready");
        for part in parts {
            assert!(why.contains(part), "Ready message lacks {part:?}: {why}");
        }
        o
    };

    // 2.0.0 (safe) also writes a Secret into namespace b: refused, rolled back to 1.0.0.
    let leak = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: leak\n  namespace: {}\nstringData:\n  a: b\n",
        b.name()
    );
    let user = format!("system:serviceaccount:{}:deployer", a.name());
    let parts = [user.as_str(), "secrets", b.name(), "forbidden"];
    let o = refused("2.0.0", true, &leak, "RolledBack", &parts).await;
    assert!(!allowed(&a, &user, "create", "secrets", b.name()).await);
    let leaked: Api<Secret> = b.api();
    assert!(leaked.get_opt("leak").await.unwrap().is_none());
    assert_eq!(o.pointer("/status/version"), Some(&json!("1.0.0")));
    crate::controller::assert_event(&a, "shop", "RolledBack", &user).await;

    // 3.0.0 (unsafe) writes a ClusterRole: refused, not rolled back; none exists.
    let role = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {}-escalate\nrules: []\n",
        a.name()
    );
    let parts = [user.as_str(), "clusterroles", "forbidden"];
    refused("3.0.0", false, &role, "UpgradeFailed", &parts).await;
    let roles: Api<ClusterRole> = Api::all(a.client().clone());
    assert!(
        roles
            .get_opt(&format!("{}-escalate", a.name()))
            .await
            .unwrap()
            .is_none()
    );

    // The Secret's value is in the applied Deployment (the values were read) and nowhere the
    // controller reports.
    let deployment = a
        .api::<k8s_openapi::api::apps::v1::Deployment>()
        .get("shop-app")
        .await
        .unwrap();
    let image = serde_json::to_string(&deployment.spec).unwrap();
    assert!(image.contains(secret_value), "values not applied: {image}");
    let o = crate::controller::get(&a, "shop").await.unwrap();
    let reported = format!(
        "{}\n{}\n{}",
        ctl.log(),
        events(&a, "shop").await.join("\n"),
        o["status"]
    );
    assert!(
        !reported.contains(secret_value),
        "the Secret's value was reported:\n{reported}"
    );
}

/// `--default-service-account default`: a Package naming no ServiceAccount is applied as its
/// namespace's `default` ServiceAccount, which may do nothing: refused (`AccessDenied`) naming
/// it and the request, and no object is created; one with `backend: argocd` is refused that
/// backend (Argo CD would apply with its own rights).
#[tokio::test]
async fn the_default_service_account_bounds_a_package_that_names_none() {
    let a = TestNamespace::fresh("ten-default").await;
    install_crd(&a).await;
    let ctl = ControllerProcess::start(&a, "5s", &["--default-service-account", "default"]);
    let tmp = tempfile::tempdir().unwrap();
    let v1 = stored(&a, tmp.path(), "1.0.0", true, None).await;
    create(&a, "shop", json!({"source": v1})).await;
    let o = wait_ready(&a, &ctl, "shop", "False", "AccessDenied").await;
    let user = format!("system:serviceaccount:{}:default", a.name());
    assert!(!allowed(&a, &user, "create", "deployments", a.name()).await);
    let why = message(&o, "Ready");
    assert!(
        why.contains(&user) && why.contains("forbidden"),
        "Ready message does not name the refused identity: {why}"
    );
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> = a.api();
    assert!(deployments.get_opt("shop-app").await.unwrap().is_none());

    // Argo CD would apply the components with its own rights: a Package acting as a
    // ServiceAccount is refused that backend before anything is pushed or created.
    create(
        &a,
        "gitops",
        json!({"source": v1, "backend": "argocd",
               "argocd": {"chartRepository": "oci://127.0.0.1:9/charts"}}),
    )
    .await;
    let o = wait_ready(&a, &ctl, "gitops", "False", "AccessDenied").await;
    let why = message(&o, "Ready");
    assert!(
        why.contains("backend argocd") && why.contains(&format!("{}/default", a.name())),
        "{why}"
    );
}

/// `--no-cross-namespace-refs`: a `valuesFrom` Secret of another namespace stops the Package
/// (`AccessDenied`, Stalled) before anything is read or applied.
#[tokio::test]
async fn cross_namespace_references_are_refused_when_locked_down() {
    let a = TestNamespace::fresh("ten-xref").await;
    let b = TestNamespace::fresh("ten-xref-b").await;
    install_crd(&a).await;
    let values: Api<ConfigMap> = b.api();
    values
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({
                "metadata": {"name": "shared-values"},
                "data": {"values.yaml": "app: {}\n"},
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    let ctl = ControllerProcess::start(&a, "5s", &["--no-cross-namespace-refs"]);
    let tmp = tempfile::tempdir().unwrap();
    let v1 = stored(&a, tmp.path(), "1.0.0", true, None).await;
    create(
        &a,
        "shop",
        json!({"source": v1,
               "valuesFrom": [{"kind": "ConfigMap", "name": "shared-values", "namespace": b.name()}]}),
    )
    .await;
    let o = wait_ready(&a, &ctl, "shop", "False", "AccessDenied").await;
    let stalled = o
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Stalled"))
        .map(|c| c["status"].clone());
    assert_eq!(stalled, Some(json!("True")));
    let why = message(&o, "Ready");
    assert!(
        why.contains(&format!(
            "valuesFrom[0] (ConfigMap {}/shared-values)",
            b.name()
        )),
        "{why}"
    );
    let releases: Api<Secret> = a.api();
    let records = releases
        .list(&ListParams::default().labels("owner=helm"))
        .await
        .unwrap();
    assert!(records.items.is_empty(), "something was applied");
}

/// `--kube-as-user`: the CLI acts as the ServiceAccount, so an apply writing a Secret into
/// another namespace is refused exactly where the API server's authorizer says so, and one
/// writing only in the ServiceAccount's namespace goes through.
#[tokio::test]
async fn the_cli_acts_as_the_user_it_is_told_to() {
    let a = TestNamespace::fresh("ten-cli").await;
    let b = TestNamespace::fresh("ten-cli-b").await;
    tenant_service_account(&a, "deployer").await;
    let user = format!("system:serviceaccount:{}:deployer", a.name());
    assert!(allowed(&a, &user, "create", "secrets", a.name()).await);
    assert!(!allowed(&a, &user, "create", "secrets", b.name()).await);
    // `apply NAME DIR --kube-as-user USER FLAGS…`.
    let apply_as_user = |name: &str, dir: &Path, flags: &[&str]| {
        let apply = [
            "apply",
            name,
            dir.to_str().unwrap(),
            "--kube-as-user",
            user.as_str(),
        ];
        run(&a, &[&apply[..], flags].concat())
    };
    let tmp = tempfile::tempdir().unwrap();
    let inside = tmp.path().join("inside");
    let own = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: own\nstringData:\n  a: b\n";
    tenant_package(&inside, "shop", "1.0.0", true, Some(own));
    let (code, _, err) = apply_as_user("shop", &inside, &[]);
    assert_eq!(code, 0, "{err}");
    // A package requiring `shop`, applied as the same user with the request trail on: the
    // user may not list Secrets in every namespace, so the requirement is found in its own
    // namespace (not waited for until the timeout); neither the Secret's value nor the
    // kubeconfig's key appears in any output.
    let secret_value = "needs-secret-value-41c0de";
    let needs = tmp.path().join("needs");
    let secret = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: needs-secret\nstringData:\n  token: {secret_value}\n"
    );
    tenant_package(&needs, "needs", "1.0.0", true, Some(&secret));
    let manifest = std::fs::read_to_string(needs.join("kubepkg.yaml")).unwrap();
    std::fs::write(
        needs.join("kubepkg.yaml"),
        manifest.replace("  rollback:", "  requires: [{name: shop}]\n  rollback:"),
    )
    .unwrap();
    assert!(!allowed(&a, &user, "list", "secrets", b.name()).await);
    let flags = ["--requirements-timeout", "60s", "--debug"];
    let (code, out, err) = apply_as_user("needs", &needs, &flags);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.lines().any(|l| l.starts_with("debug: ")),
        "no request trail: {err}"
    );
    let kubeconfig = std::fs::read_to_string(a.plane().kubeconfig()).unwrap();
    let key = kubeconfig
        .lines()
        .find_map(|l| l.trim().strip_prefix("client-key-data: "))
        .expect("the plane's kubeconfig carries a client key");
    let encoded = base64_of(secret_value);
    for (what, secret) in [
        ("the Secret's value", secret_value),
        ("the Secret's value in base64", encoded.as_str()),
        ("the kubeconfig's key", &key[..40]),
    ] {
        assert!(
            !out.contains(secret) && !err.contains(secret),
            "{what} was printed:\n{out}\n{err}"
        );
    }
    let outside = tmp.path().join("outside");
    let leak = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: leak\n  namespace: {}\nstringData:\n  a: b\n",
        b.name()
    );
    tenant_package(&outside, "other", "1.0.0", true, Some(&leak));
    let (code, _, err) = apply_as_user("other", &outside, &[]);
    assert_ne!(code, 0, "applied beyond the ServiceAccount's rights");
    assert!(
        err.contains(&user) && err.contains("secrets") && err.contains(b.name()),
        "the refusal does not name the request: {err}"
    );
    let leaked: Api<Secret> = b.api();
    assert!(leaked.get_opt("leak").await.unwrap().is_none());
    // A group without a user is refused before anything is sent, as kubectl refuses it.
    let (code, _, err) = run(&a, &["status", "shop", "--kube-as-group", "system:masters"]);
    assert_ne!(code, 0);
    assert!(err.contains("--kube-as-user"), "{err}");
}
