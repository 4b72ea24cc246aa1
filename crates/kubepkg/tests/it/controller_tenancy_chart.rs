//! The controller's chart in tenancy mode (`tenancy.enabled`, charts/kubepkg-controller/README.md#tenancy;
//! docs/controller.md#multi-tenancy):
//! - `kubepkg template` prints exactly what the real `helm template` v4.3.1 prints (and the
//!   same documents as v3.22.0) for the tenancy value sets, each seen to do what it says (the
//!   controller flags rendered, the reduced ClusterRole, impersonation bound cluster-wide or in
//!   the watched namespaces only, the leader Lease's Role); both refuse tenancy mode with
//!   package contents, without a default ServiceAccount, or with a malformed one, with the same
//!   message; `helm lint --strict` passes;
//! - installed on the local control plane, its ServiceAccount may (`kubectl auth can-i --as`,
//!   the API server's own authorizer) impersonate the ServiceAccounts of the watched namespace
//!   and no other, and otherwise only what the controller does for itself: it may not write a
//!   Secret, a Deployment or a package Lease anywhere, nor impersonate users or groups; acting
//!   through it as a tenant's ServiceAccount (kubectl `--as` on a token of it) gets exactly the
//!   tenant's rights;
//! - the real `kubepkg controller`, authenticated with a token of that ServiceAccount and run
//!   with the flags the chart renders, reconciles a tenant's Package (its ServiceAccount bound
//!   to `cluster-admin` in its namespace only) to Ready and uninstalls it on delete, never
//!   refused anything as itself; a Package naming no ServiceAccount is applied as the
//!   namespace's `default` one (`--default-service-account`) and refused (`AccessDenied`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
use kubepkg_testkit::{TestNamespace, helm_binary};
use serde_json::{Value, json};

use crate::controller_chart::{
    CRDS, HELM_VERSIONS, Installed, Scope, Tool, assert_lint_passes, assert_refuses_as_helm,
    assert_renders_as_helm, can_i, deployment_ready, granted, refused, service_account_kubeconfig,
    store_notes_archive, text,
};
use crate::tenancy::tenant_service_account;

const LIMIT: Duration = Duration::from_secs(180);

/// A tenancy value set: what it is, its arguments, lines helm's output must have and text it
/// must not contain.
type TenancySet = (
    &'static str,
    Vec<&'static str>,
    Vec<&'static str>,
    Vec<&'static str>,
);

fn tenancy_value_sets() -> Vec<TenancySet> {
    vec![
        (
            "tenancy mode",
            vec!["--set", "tenancy.enabled=true"],
            vec![
                "            - --default-service-account=default",
                "            - --no-cross-namespace-refs",
                "  name: kpc-kubepkg-controller",
                "  name: kpc-kubepkg-controller-impersonate",
                "    resources: [\"serviceaccounts\"]",
                "    verbs: [\"impersonate\"]",
                "    verbs: [\"get\", \"list\", \"watch\"]",
                "kind: Role",
                "  name: kpc-kubepkg-controller-leader",
                "    resourceNames: [\"kubepkg-system\"]",
            ],
            vec![
                "package-contents",
                "cluster-admin",
                // The default mode's Secret verbs, its Leases everywhere, its backends' objects.
                "[\"get\", \"list\", \"watch\", \"create\", \"update\", \"delete\"]",
                "helmreleases",
                "applications",
                // The backends' check of their CRDs (tenancy mode only lists and watches them).
                "resources: [\"customresourcedefinitions\"]\n    verbs: [\"get\"",
                "kind: RoleBinding\nmetadata:\n  name: kpc-kubepkg-controller-impersonate",
            ],
        ),
        (
            "tenancy mode, watched namespaces, another default ServiceAccount, cross-namespace refs allowed, the leader Lease elsewhere",
            vec![
                "--set",
                "tenancy.enabled=true",
                "--set",
                "watchNamespaces={shop,billing}",
                "--set",
                "tenancy.defaultServiceAccount=tenant-deployer",
                "--set",
                "tenancy.noCrossNamespaceRefs=false",
                "--set",
                "leaderElection.namespace=kubepkg-leases",
            ],
            vec![
                "            - --default-service-account=tenant-deployer",
                "            - --watch-namespace=shop,billing",
                "  namespace: shop",
                "  namespace: billing",
                "  namespace: kubepkg-leases",
                "    resourceNames: [\"kubepkg-leases\"]",
            ],
            vec![
                "--no-cross-namespace-refs",
                "kind: ClusterRoleBinding\nmetadata:\n  name: kpc-kubepkg-controller-impersonate",
            ],
        ),
        (
            "tenancy mode, one replica without leader election",
            vec![
                "--set",
                "tenancy.enabled=true",
                "--set",
                "leaderElection.enabled=false",
                "--set",
                "replicas=1",
            ],
            vec!["            - --default-service-account=default"],
            vec!["kind: Role\n", "-leader", "--leader-elect"],
        ),
        (
            "tenancy mode, RBAC off",
            vec![
                "--set",
                "tenancy.enabled=true",
                "--set",
                "rbac.create=false",
            ],
            vec![
                "            - --default-service-account=default",
                "            - --no-cross-namespace-refs",
            ],
            vec!["kind: ClusterRole", "kind: Role", "Binding"],
        ),
    ]
}

/// Byte for byte what Helm 4 prints; the same documents as Helm 3.
#[test]
fn kubepkg_template_renders_tenancy_mode_as_helm_template_does() {
    for version in HELM_VERSIONS {
        let helm = helm_binary(version).expect("helm oracle");
        for (what, args, has, lacks) in tenancy_value_sets() {
            assert_renders_as_helm(version, &helm, what, &args, &has, &lacks);
        }
    }
}

/// Tenancy mode's refusals are both tools' refusals, with the same exit code and message.
#[test]
fn kubepkg_template_refuses_the_tenancy_values_helm_template_refuses() {
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "tenancy with cluster-admin package contents",
            &[
                "--set",
                "tenancy.enabled=true",
                "--set",
                "rbac.packageContents=clusterAdmin",
            ],
            "tenancy.enabled applies every Package as a ServiceAccount of its namespace",
        ),
        (
            "tenancy with package-contents rules",
            &[
                "--set",
                "tenancy.enabled=true",
                "--set",
                "rbac.packageContents=rules",
                "--set-json",
                r#"rbac.packageContentsRules=[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["create"]}]"#,
            ],
            "set rbac.packageContents=none",
        ),
        (
            "tenancy without a default ServiceAccount",
            &[
                "--set",
                "tenancy.enabled=true",
                "--set",
                "tenancy.defaultServiceAccount=",
            ],
            "tenancy.enabled needs tenancy.defaultServiceAccount",
        ),
        (
            "a malformed default ServiceAccount",
            &[
                "--set",
                "tenancy.enabled=true",
                "--set",
                "tenancy.defaultServiceAccount=Deployer_1",
            ],
            "at '/tenancy/defaultServiceAccount': 'Deployer_1' does not match pattern",
        ),
    ];
    assert_refuses_as_helm(&cases);
}

#[test]
fn helm_lint_passes_in_tenancy_mode() {
    assert_lint_passes(&[
        &["--set", "tenancy.enabled=true"],
        &[
            "--set",
            "tenancy.enabled=true",
            "--set",
            "watchNamespaces={shop}",
            "--set",
            "tenancy.noCrossNamespaceRefs=false",
        ],
    ]);
}

/// `kubepkg controller` with the flags the chart renders in tenancy mode, authenticated by
/// `kubeconfig` (a token of the chart's ServiceAccount): the leader Lease in the release
/// namespace, the tenant's namespace watched; killed when dropped.
struct TenancyController {
    child: std::cell::RefCell<Child>,
    log: std::path::PathBuf,
}

impl TenancyController {
    fn start(kubeconfig: &Path, release_ns: &str, tenant_ns: &str, args: &[String]) -> Self {
        let log = std::env::temp_dir().join(format!(
            "kubepkg-tenancy-chart-controller-{tenant_ns}-{}.log",
            std::process::id()
        ));
        let file = std::fs::File::create(&log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(["controller", "--kubeconfig"])
            .arg(kubeconfig)
            .args(["--watch-namespace", tenant_ns])
            .args(["--leader-elect", "--leader-election-namespace", release_ns])
            .args([
                "--metrics-bind-address",
                "0",
                "--health-probe-bind-address",
                "0",
            ])
            .args(["--interval", "5s", "--timeout", "60s"])
            .args(args)
            .env_remove("KUBECONFIG")
            .env("KUBEPKG_LOG", "info,kube_client=warn,kube_runtime=warn")
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start kubepkg controller");
        TenancyController {
            child: std::cell::RefCell::new(child),
            log,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn assert_running(&self) {
        if let Ok(Some(status)) = self.child.borrow_mut().try_wait() {
            panic!("kubepkg controller exited ({status}):\n{}", self.log());
        }
    }
}

impl Drop for TenancyController {
    fn drop(&mut self) {
        let mut child = self.child.borrow_mut();
        let _ = child.kill();
        let _ = child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// The `Ready` condition's (status, reason, message).
fn ready(o: &Value) -> Option<(String, String, String)> {
    o.pointer("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c["type"] == "Ready")
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (s("status"), s("reason"), s("message"))
        })
}

/// Waits until Package `name` of `ns` is `Ready` `status` with `reason`; returns it.
async fn wait_ready(
    ns: &TestNamespace,
    ctl: &TenancyController,
    name: &str,
    status: &str,
    reason: &str,
) -> Value {
    let packages = kubepkg_testkit::package_api(ns);
    let deadline = Instant::now() + LIMIT;
    loop {
        ctl.assert_running();
        let o = serde_json::to_value(packages.get(name).await.unwrap()).unwrap();
        if ready(&o).is_some_and(|(s, r, _)| s == status && r == reason) {
            return o;
        }
        assert!(
            Instant::now() < deadline,
            "Package {name} never became Ready={status} {reason}; status:\n{}\ncontroller log:\n{}",
            serde_json::to_string_pretty(&o["status"]).unwrap(),
            ctl.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `kubectl auth can-i VERB RESOURCE` through `kubeconfig` acting `--as` `user`: `Ok(yes)`, or
/// the API server's refusal of the impersonation itself.
fn can_i_acting_as(
    ns: &TestNamespace,
    kubeconfig: &Path,
    user: &str,
    groups: &[&str],
    verb: &str,
    resource: &str,
    namespace: &str,
) -> Result<bool, String> {
    let kubectl = ns.plane().state_dir().join("bin/kubectl");
    let mut c = Command::new(kubectl);
    c.arg("--kubeconfig").arg(kubeconfig);
    c.args(["--as", user]);
    for g in groups {
        c.args(["--as-group", g]);
    }
    c.args(["auth", "can-i", verb, resource, "-n", namespace]);
    let out = c.output().expect("kubectl");
    match (out.status.code(), text(&out.stdout).trim()) {
        (Some(0), "yes") => Ok(true),
        (Some(1), "no") => Ok(false),
        _ => Err(format!("{}{}", text(&out.stdout), text(&out.stderr))),
    }
}

/// The chart in tenancy mode, watching one tenant namespace: its ServiceAccount may impersonate
/// that namespace's ServiceAccounts and otherwise only what the controller does for itself;
/// the real controller as that ServiceAccount installs and uninstalls a tenant's Package as
/// the tenant, and a Package naming no ServiceAccount is refused as the namespace's `default`.
#[tokio::test]
async fn in_tenancy_mode_the_controller_acts_for_packages_only_as_their_service_accounts() {
    let ns = TestNamespace::fresh("tchart").await;
    let tenant = TestNamespace::fresh("tchart-tenant").await;
    tenant_service_account(&tenant, "deployer").await;
    // `kubectl auth can-i` of Flux's sources needs them served, whichever test runs first.
    kubepkg_testkit::flux::install_crds(&ns)
        .await
        .expect("Flux's CRDs");
    let watch = format!("--set=watchNamespaces={{{}}}", tenant.name());
    let installed = Installed::install(
        &ns,
        Tool::Kubepkg,
        &["--set", "tenancy.enabled=true", &watch],
    );
    let fullname = installed.fullname();
    deployment_ready(&ns, &fullname, 2).await;

    // The flags the chart gives the controller.
    let d: Deployment = ns.api().get(&fullname).await.unwrap();
    let args = d.spec.template.spec.unwrap().containers[0]
        .args
        .clone()
        .unwrap_or_default();
    let tenancy_flags: Vec<String> = args
        .iter()
        .filter(|a| a.starts_with("--default-service-account") || *a == "--no-cross-namespace-refs")
        .cloned()
        .collect();
    assert_eq!(
        tenancy_flags,
        [
            "--default-service-account=default",
            "--no-cross-namespace-refs"
        ],
        "{args:?}"
    );

    // What the API server's authorizer lets the controller's ServiceAccount do.
    let sa = installed.service_account();
    let (here, there) = (Scope::Namespace(ns.name()), Scope::Namespace(tenant.name()));
    let all = Scope::AllNamespaces;
    let needs: &[(&str, &str, Option<&str>, Scope<'_>)] = &[
        ("list", "packages.kubepkg.dev", None, all),
        ("watch", "packages.kubepkg.dev", None, all),
        ("get", "packages.kubepkg.dev", None, all),
        ("patch", "packages.kubepkg.dev", None, all),
        ("patch", "packages.kubepkg.dev", Some("status"), all),
        ("create", "packages.kubepkg.dev", None, all),
        ("get", "packagerollouts.kubepkg.dev", None, all),
        ("list", "packagerollouts.kubepkg.dev", None, all),
        ("watch", "packagerollouts.kubepkg.dev", None, all),
        ("patch", "packagerollouts.kubepkg.dev", Some("status"), all),
        ("create", "events.events.k8s.io", None, all),
        ("patch", "events.events.k8s.io", None, all),
        ("get", "configmaps", None, all),
        ("get", "gitrepositories.source.toolkit.fluxcd.io", None, all),
        (
            "watch",
            "ocirepositories.source.toolkit.fluxcd.io",
            None,
            all,
        ),
        ("list", "buckets.source.toolkit.fluxcd.io", None, all),
        ("get", "secrets", None, all),
        ("list", "secrets", None, all),
        ("watch", "secrets", None, all),
        ("list", CRDS, None, all),
        ("watch", CRDS, None, all),
        ("list", "apiservices.apiregistration.k8s.io", None, all),
        ("watch", "apiservices.apiregistration.k8s.io", None, all),
        ("impersonate", "serviceaccounts/deployer", None, there),
        ("impersonate", "serviceaccounts/default", None, there),
        ("get", "leases.coordination.k8s.io", None, here),
        ("create", "leases.coordination.k8s.io", None, here),
        ("update", "leases.coordination.k8s.io", None, here),
        ("delete", "leases.coordination.k8s.io", None, here),
    ];
    let needs: Vec<_> = needs
        .iter()
        .map(|&(verb, resource, sub, scope)| ((verb, resource, sub), scope))
        .collect();
    let refused = refused(&ns, &sa, &needs);
    assert!(refused.is_empty(), "{sa} may not: {refused:?}");
    let leader_ns = format!("namespaces/{}", ns.name());
    assert!(can_i(&ns, &sa, "patch", &leader_ns, None, here));
    let must_not: &[(&str, &str, Option<&str>)] = &[
        ("create", "secrets", None),
        ("update", "secrets", None),
        ("patch", "secrets", None),
        ("delete", "secrets", None),
        ("create", "deployments.apps", None),
        ("delete", "deployments.apps", None),
        ("create", "configmaps", None),
        ("list", "configmaps", None),
        ("create", "namespaces", None),
        ("delete", "namespaces", None),
        ("update", "packages.kubepkg.dev", None),
        ("delete", "packages.kubepkg.dev", None),
        ("list", "events", None),
        ("create", "helmreleases.helm.toolkit.fluxcd.io", None),
        ("create", "applications.argoproj.io", None),
        ("get", CRDS, None),
        ("create", "pods", Some("exec")),
        ("impersonate", "users", None),
        ("impersonate", "groups", None),
        ("impersonate", "uids.authentication.k8s.io", None),
        ("impersonate", "userextras.authentication.k8s.io", None),
        ("bind", "clusterroles.rbac.authorization.k8s.io", None),
        ("escalate", "clusterroles.rbac.authorization.k8s.io", None),
        ("create", "rolebindings.rbac.authorization.k8s.io", None),
    ];
    let mut granted = granted(&ns, &sa, must_not, &[all, here, there]);
    // Leases only in the leader's namespace (the packages' Leases are the tenants').
    for scope in [all, there] {
        if can_i(
            &ns,
            &sa,
            "create",
            "leases.coordination.k8s.io",
            None,
            scope,
        ) {
            granted.push("create leases outside the leader's namespace".into());
        }
    }
    // Impersonation only of the watched namespace's ServiceAccounts.
    for scope in [all, here, Scope::Namespace("kube-system")] {
        if can_i(&ns, &sa, "impersonate", "serviceaccounts", None, scope) {
            granted.push("impersonate serviceaccounts outside the watched namespace".into());
        }
    }
    let tenant_ns = format!("namespaces/{}", tenant.name());
    if can_i(&ns, &sa, "patch", &tenant_ns, None, there) {
        granted.push(format!("patch {tenant_ns}"));
    }
    assert!(granted.is_empty(), "{sa} may: {granted:?}");

    // Through a token of it, acting as the tenant's ServiceAccount gets the tenant's rights,
    // its groups added by the API server; nothing else may be impersonated.
    let tmp = tempfile::tempdir().unwrap();
    let kubeconfig = service_account_kubeconfig(&ns, &fullname, tmp.path());
    let deployer = format!("system:serviceaccount:{}:deployer", tenant.name());
    let t = tenant.name();
    for (resource, namespace, may) in [("deployments.apps", t, true), ("secrets", ns.name(), false)]
    {
        assert_eq!(
            can_i_acting_as(
                &ns,
                &kubeconfig,
                &deployer,
                &[],
                "create",
                resource,
                namespace
            ),
            Ok(may),
            "{deployer} create {resource} in {namespace}"
        );
    }
    for (user, groups) in [
        (deployer.as_str(), &["system:masters"][..]),
        ("system:serviceaccount:kube-system:default", &[][..]),
        ("admin", &[][..]),
    ] {
        let refused = can_i_acting_as(&ns, &kubeconfig, user, groups, "get", "pods", t);
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.contains("cannot impersonate")),
            "acting as {user} {groups:?} through {sa}: {refused:?}"
        );
    }

    // The real controller as that ServiceAccount, with the chart's flags.
    let flags: Vec<String> = tenancy_flags;
    let ctl = TenancyController::start(&kubeconfig, ns.name(), tenant.name(), &flags);
    store_notes_archive(&tenant, &tmp.path().join("pkg")).await;
    let packages = kubepkg_testkit::package_api(&tenant);
    for (name, sa_name) in [("notes", Some("deployer")), ("unbound", None)] {
        let mut spec = json!({"source": {"configMapRef": {"name": "notes-pkg"}}});
        if let Some(sa_name) = sa_name {
            spec["serviceAccountName"] = json!(sa_name);
        }
        let o: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "kubepkg.dev/v1alpha1", "kind": "Package",
            "metadata": {"name": name}, "spec": spec,
        }))
        .unwrap();
        packages.create(&PostParams::default(), &o).await.unwrap();
    }
    wait_ready(&tenant, &ctl, "notes", "True", "Succeeded").await;
    deployment_ready(&tenant, "notes-app", 1).await;
    // The records were written as the tenant (the controller may not create Secrets).
    let records: Api<k8s_openapi::api::core::v1::Secret> = tenant.api();
    let revisions = records
        .list(&kube::api::ListParams::default().labels("owner=kubepkg,name=notes"))
        .await
        .unwrap();
    assert!(!revisions.items.is_empty(), "no revision record of notes");

    // A Package naming no ServiceAccount is applied as the namespace's default one, which may
    // do nothing: refused, naming it.
    let o = wait_ready(&tenant, &ctl, "unbound", "False", "AccessDenied").await;
    let default_sa = format!("system:serviceaccount:{}:default", tenant.name());
    let (_, _, message) = ready(&o).unwrap();
    assert!(
        message.contains(&default_sa) && message.contains("forbidden"),
        "the refusal does not name {default_sa}: {message}"
    );
    let deployments: Api<Deployment> = tenant.api();
    assert!(deployments.get_opt("unbound-app").await.unwrap().is_none());

    // Delete: the finalizer uninstalls as the tenant, then lets the object go. The default
    // ServiceAccount may not uninstall either (it cannot even take the package Lease), but
    // nothing was ever recorded for that Package: it goes without uninstalling.
    for name in ["notes", "unbound"] {
        packages
            .delete(name, &DeleteParams::default())
            .await
            .unwrap();
    }
    let deadline = Instant::now() + LIMIT;
    while packages.get_opt("notes").await.unwrap().is_some()
        || packages.get_opt("unbound").await.unwrap().is_some()
        || deployments.get_opt("notes-app").await.unwrap().is_some()
    {
        ctl.assert_running();
        assert!(
            Instant::now() < deadline,
            "Packages not uninstalled; controller log:\n{}",
            ctl.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The controller's own identity was never refused anything (the default ServiceAccount's
    // refusals name that account, not the controller's).
    let log = ctl.log();
    let own: Vec<&str> = log
        .lines()
        .filter(|l| l.to_lowercase().contains("forbidden") && l.contains(&fullname))
        .collect();
    assert!(
        own.is_empty(),
        "the controller was refused something as itself:\n{}",
        own.join("\n")
    );
    assert!(
        !log.to_lowercase().contains("cannot impersonate"),
        "an impersonation was refused:\n{log}"
    );
}
