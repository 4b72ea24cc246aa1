//! The controller's own chart, `charts/kubepkg-controller`:
//! - its `crds/` copies of the Package and PackageRollout CRDs are byte for byte those the
//!   binaries embed (`kubepkg_package_object::CRD`, `kubepkg_fleet::CRD`), so they cannot drift;
//! - `kubepkg template` prints exactly what the real `helm template` v4.3.1 prints (and the
//!   same documents as v3.22.0), for the default values and for the value sets users change
//!   (RBAC off, watched namespaces, leader election off, the package-contents roles,
//!   scheduling), each of which does what it says; both refuse the same bad values with the
//!   same message;
//! - the real `helm lint --strict` passes;
//! - on the local control plane both `kubepkg install` and `helm install` install it and its
//!   Deployment becomes ready (the Package CRD may exist already: `crds/` is then left as it
//!   is, as Helm does);
//! - the ServiceAccount may do every verb the controller needs (`kubectl auth can-i --as`) and
//!   nothing of the package contents unless `rbac.packageContents` grants it;
//! - the real `kubepkg controller` process, authenticated as that ServiceAccount (a token of
//!   it), reconciles a Package to Ready and uninstalls it on delete: the chart's rules are
//!   enough for what the controller really calls.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
use kubepkg_package_object as object;
use kubepkg_testkit::{TestNamespace, helm_binary, helm_command, helm_offline};
use serde_json::json;

use crate::controller::{ControllerProcess, NO_PORTS};
use crate::support::{kubepkg, ok, repo};
use kubepkg_testkit::charts::package;
use kubepkg_testkit::eventually;

const LIMIT: Duration = Duration::from_secs(180);
pub(crate) const HELM_VERSIONS: [&str; 2] = ["v4.3.1", "v3.22.0"];

fn chart() -> PathBuf {
    repo().join("charts/kubepkg-controller")
}

pub(crate) fn chart_arg() -> String {
    chart().display().to_string()
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The chart's `crds/` copies are the CRDs the binaries embed, byte for byte: `Package`
/// (`kubepkg-package-object`'s file is the source) and `PackageRollout` (`kubepkg-fleet`'s);
/// after changing one, copy it over the chart's.
#[test]
fn the_charts_crds_are_the_binaries_crds() {
    for (file, embedded, source) in [
        (
            "packages.kubepkg.dev.yaml",
            object::CRD,
            "crates/kubepkg-package-object/crd",
        ),
        (
            "packagerollouts.kubepkg.dev.yaml",
            kubepkg_fleet::CRD,
            "crates/kubepkg-fleet/crd",
        ),
    ] {
        let copy = chart().join("crds").join(file);
        let chart_crd = std::fs::read_to_string(&copy).expect("the chart ships the CRD");
        assert!(
            chart_crd == embedded,
            "{} differs from {source}/{file}; run\n  cp {source}/{file} charts/kubepkg-controller/crds/",
            copy.display()
        );
    }
    let mut crds: Vec<_> = std::fs::read_dir(chart().join("crds"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    crds.sort();
    assert_eq!(
        crds,
        [
            "packagerollouts.kubepkg.dev.yaml",
            "packages.kubepkg.dev.yaml"
        ],
        "two CRDs, no stray files"
    );
}

/// A value set rendered by both tools: what it is, its arguments, lines the output must have
/// and text it must not contain (so that the set is seen to do what it says).
struct ValueSet {
    what: &'static str,
    args: Vec<&'static str>,
    has: Vec<&'static str>,
    lacks: Vec<&'static str>,
}

fn value_sets() -> Vec<ValueSet> {
    let set = |what, args, has, lacks| ValueSet {
        what,
        args,
        has,
        lacks,
    };
    vec![
        set(
            "default values",
            vec![],
            vec![
                "kind: ClusterRole",
                "kind: PodDisruptionBudget",
                "            - --leader-elect",
                "            - --leader-election-namespace=kubepkg-system",
                "  replicas: 2",
                "          image: \"kubepkg/controller:0.1.0\"",
                "              path: /readyz",
                "              mountPath: /tmp",
                "            readOnlyRootFilesystem: true",
            ],
            vec![
                "kind: CustomResourceDefinition",
                "cluster-admin",
                "package-contents",
                "--watch-namespace",
            ],
        ),
        set(
            "default values with CRDs",
            vec!["--include-crds"],
            vec![
                "kind: CustomResourceDefinition",
                "  name: packages.kubepkg.dev",
                "  name: packagerollouts.kubepkg.dev",
            ],
            vec![],
        ),
        set(
            "RBAC off, an existing ServiceAccount",
            vec![
                "--set",
                "rbac.create=false",
                "--set",
                "serviceAccount.create=false",
                "--set",
                "serviceAccount.name=ops-controller",
            ],
            vec!["      serviceAccountName: ops-controller"],
            vec!["kind: ClusterRole", "kind: ServiceAccount"],
        ),
        set(
            "watched namespaces",
            vec!["--set", "watchNamespaces={shop,billing}"],
            vec!["            - --watch-namespace=shop,billing"],
            vec![],
        ),
        set(
            "leader election off, one replica",
            vec![
                "--set",
                "leaderElection.enabled=false",
                "--set",
                "replicas=1",
            ],
            vec!["  replicas: 1"],
            vec!["--leader-elect", "kind: PodDisruptionBudget"],
        ),
        set(
            "package contents cluster-admin",
            vec!["--set", "rbac.packageContents=clusterAdmin"],
            vec![
                "  name: kpc-kubepkg-controller-package-contents",
                "  name: cluster-admin",
            ],
            vec!["kind: RoleBinding"],
        ),
        set(
            "package contents rules in two namespaces",
            vec![
                "--set",
                "rbac.packageContents=rules",
                "--set-json",
                DEPLOYMENT_RULES,
                "--set",
                "rbac.packageContentsNamespaces={shop,billing}",
            ],
            vec![
                "kind: RoleBinding",
                "  namespace: shop",
                "  namespace: billing",
                "    - deployments",
            ],
            vec!["cluster-admin"],
        ),
        set(
            "the dashboard",
            vec!["--set", "dashboard.enabled=true"],
            vec![
                "    resources: [\"tokenreviews\"]",
                "    resources: [\"deployments\", \"statefulsets\", \"daemonsets\"]",
                "  name: kpc-kubepkg-controller-dashboard",
            ],
            vec![],
        ),
        set(
            "tenancy mode with the dashboard",
            vec![
                "--set",
                "tenancy.enabled=true",
                "--set",
                "dashboard.enabled=true",
            ],
            vec![
                "    resources: [\"tokenreviews\"]",
                "    resources: [\"subjectaccessreviews\"]",
                "    resources: [\"deployments\", \"statefulsets\", \"daemonsets\"]",
                "            - --dashboard-bind-address=:8090",
            ],
            vec!["cluster-admin"],
        ),
        set(
            "digest, json logs, scheduling, extras",
            vec![
                "--set",
                "image.digest=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                "--set",
                "logFormat=json",
                "--set",
                "concurrency=16",
                "--set",
                "defaultTimeout=5m",
                "--set",
                "leaderElection.namespace=kubepkg-leases",
                "--set",
                "tmpVolume.sizeLimit=2Gi",
                "--set",
                "metrics.service.enabled=false",
                "--set",
                "podDisruptionBudget.enabled=false",
                "--set",
                "nodeSelector.kubernetes\\.io/os=linux",
                "--set-json",
                r#"tolerations=[{"key":"dedicated","operator":"Equal","value":"ops","effect":"NoSchedule"}]"#,
                "--set-json",
                r#"extraEnv=[{"name":"KUBEPKG_LOG","value":"debug"}]"#,
                "--set",
                "extraArgs={--kube-context=x}",
                "--set",
                "podAnnotations.team=ops",
                "--set",
                "fullnameOverride=kpc",
            ],
            vec![
                "          image: \"kubepkg/controller@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"",
                "            - --log-format=json",
                "            - --concurrency=16",
                "            - --timeout=5m",
                "            - --leader-election-namespace=kubepkg-leases",
                "            sizeLimit: 2Gi",
                "        kubernetes.io/os: linux",
                "          value: ops",
                "              value: debug",
                "            - \"--kube-context=x\"",
                "        team: ops",
                "  name: kpc",
            ],
            vec!["name: kpc-metrics", "kind: PodDisruptionBudget"],
        ),
    ]
}

pub(crate) fn kubepkg_template(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["template", "kpc", &chart_arg(), "-n", "kubepkg-system"])
        .args(args)
        .env_remove("HELM_NAMESPACE")
        .output()
        .unwrap()
}

pub(crate) fn helm_template(helm: &Path, args: &[&str]) -> Output {
    helm_offline(
        helm,
        &["template", "kpc", &chart_arg(), "-n", "kubepkg-system"],
    )
    .args(args)
    .output()
    .unwrap()
}

/// The first line where `ours` and `theirs` differ, with its neighbours.
pub(crate) fn first_difference(ours: &str, theirs: &str) -> String {
    let (a, b): (Vec<_>, Vec<_>) = (ours.lines().collect(), theirs.lines().collect());
    let i = (0..a.len().max(b.len()))
        .find(|&i| a.get(i) != b.get(i))
        .unwrap_or(0);
    let around = |l: &[&str]| l[i.saturating_sub(3)..(i + 3).min(l.len())].join("\n");
    format!(
        "line {}:\n--- kubepkg\n{}\n--- helm\n{}",
        i + 1,
        around(&a),
        around(&b)
    )
}

/// The documents of a `helm template` output, each without the blank lines around it (Helm 3
/// and Helm 4 separate documents differently; kubepkg prints what Helm 4 prints).
pub(crate) fn documents(out: &str) -> Vec<&str> {
    out.split("\n---\n")
        .map(|d| d.trim_matches('\n'))
        .filter(|d| !d.is_empty() && *d != "---")
        .collect()
}

/// Byte for byte what Helm 4 prints; the same documents, in the same order and with the same
/// text, as Helm 3.
#[test]
fn kubepkg_template_renders_the_chart_as_helm_template_does() {
    for version in HELM_VERSIONS {
        let helm = helm_binary(version).expect("helm oracle");
        for ValueSet {
            what,
            args,
            has,
            lacks,
        } in value_sets()
        {
            assert_renders_as_helm(version, &helm, what, &args, &has, &lacks);
        }
    }
}

/// `kubepkg template` with `args` prints what `helm` (`version`) prints: byte for byte for
/// Helm 4, the same documents for Helm 3; and the value set does what it says: helm's output
/// (which ours equals) has every line of `has` and no part of `lacks`.
pub(crate) fn assert_renders_as_helm(
    version: &str,
    helm: &Path,
    what: &str,
    args: &[&str],
    has: &[&str],
    lacks: &[&str],
) {
    let theirs = helm_template(helm, args);
    assert!(
        theirs.status.success(),
        "helm {version} template ({what}) failed: {}",
        text(&theirs.stderr)
    );
    let ours = kubepkg_template(args);
    assert!(
        ours.status.success(),
        "kubepkg template ({what}) failed: {}",
        text(&ours.stderr)
    );
    let (ours, theirs) = (text(&ours.stdout), text(&theirs.stdout));
    if version.starts_with("v4") {
        assert!(
            ours == theirs,
            "kubepkg template differs from helm {version} template ({what}) at {}",
            first_difference(&ours, &theirs)
        );
    } else {
        let (a, b) = (documents(&ours), documents(&theirs));
        assert!(
            a == b,
            "kubepkg template's documents differ from helm {version} template's ({what}) at {}",
            first_difference(&a.join("\n---\n"), &b.join("\n---\n"))
        );
    }
    let lines: Vec<&str> = theirs.lines().collect();
    for line in has {
        assert!(
            lines.contains(line),
            "{what}: no line {line:?} in\n{theirs}"
        );
    }
    for part in lacks {
        assert!(
            !theirs.contains(part),
            "{what}: {part:?} should not be in\n{theirs}"
        );
    }
}

/// The chart's refusals (its `fail`s and its schema) are both tools' refusals, with the same
/// exit code and the same message, byte for byte.
#[test]
fn kubepkg_template_refuses_the_values_helm_template_refuses() {
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "two replicas without leader election",
            &["--set", "leaderElection.enabled=false"],
            "replicas > 1 needs leaderElection.enabled=true",
        ),
        (
            "rules without rules",
            &["--set", "rbac.packageContents=rules"],
            "rbac.packageContents=rules needs rbac.packageContentsRules",
        ),
        (
            "no ServiceAccount name",
            &["--set", "serviceAccount.create=false"],
            "serviceAccount.name is required",
        ),
        (
            "unknown log format",
            &["--set", "logFormat=xml"],
            "at '/logFormat': value must be one of 'text', 'json'",
        ),
    ];
    assert_refuses_as_helm(&cases);
}

/// Each `(what, args, message)`: both helm versions refuse `args` with `message` in their error,
/// and `kubepkg template` refuses with the same exit code and the same standard error.
pub(crate) fn assert_refuses_as_helm(cases: &[(&str, &[&str], &str)]) {
    for version in HELM_VERSIONS {
        let helm = helm_binary(version).expect("helm oracle");
        for (what, args, message) in cases {
            let theirs = helm_template(&helm, args);
            let ours = kubepkg_template(args);
            assert!(
                !theirs.status.success() && text(&theirs.stderr).contains(message),
                "helm {version} ({what}) should refuse with {message:?}: {}",
                text(&theirs.stderr)
            );
            assert_eq!(
                (ours.status.code(), text(&ours.stderr)),
                (theirs.status.code(), text(&theirs.stderr)),
                "kubepkg template ({what}) refuses as helm {version} does"
            );
        }
    }
}

#[test]
fn helm_lint_passes() {
    assert_lint_passes(&[
        &[],
        &["--set", "rbac.packageContents=clusterAdmin"],
        &[
            "--set",
            "leaderElection.enabled=false",
            "--set",
            "replicas=1",
        ],
    ]);
}

/// The real `helm lint --strict` of both helm versions passes for each value set.
pub(crate) fn assert_lint_passes(value_sets: &[&[&str]]) {
    for version in HELM_VERSIONS {
        let helm = helm_binary(version).expect("helm oracle");
        for args in value_sets {
            let out = helm_offline(&helm, &["lint", "--strict", &chart_arg()])
                .args(*args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "helm {version} lint --strict {args:?}:\n{}{}",
                text(&out.stdout),
                text(&out.stderr)
            );
        }
    }
}

/// Which tool installs (and, when dropped, uninstalls: the chart's ClusterRoles and bindings
/// outlive the test namespace otherwise).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Tool {
    Kubepkg,
    Helm,
}

pub(crate) struct Installed<'a> {
    ns: &'a TestNamespace,
    tool: Tool,
    release: String,
}

impl Installed<'_> {
    fn command(ns: &TestNamespace, tool: Tool, args: &[&str]) -> Command {
        match tool {
            Tool::Kubepkg => kubepkg(ns, args),
            Tool::Helm => {
                let helm = helm_binary(HELM_VERSIONS[0]).expect("helm oracle");
                helm_command(&helm, ns, args)
            }
        }
    }

    pub(crate) fn install<'a>(ns: &'a TestNamespace, tool: Tool, values: &[&str]) -> Installed<'a> {
        let release = ns.name().to_string();
        let chart = chart_arg();
        let mut args = vec![
            "install",
            release.as_str(),
            chart.as_str(),
            "--wait",
            "--timeout",
            "3m",
        ];
        args.extend_from_slice(values);
        let out = Self::command(ns, tool, &args).output().unwrap();
        let installed = Installed { ns, tool, release };
        ok(out);
        installed
    }

    /// The chart's full name for this release (RELEASE-kubepkg-controller).
    pub(crate) fn fullname(&self) -> String {
        format!("{}-kubepkg-controller", self.release)
    }

    /// The user name of the chart's ServiceAccount (`system:serviceaccount:NS:FULLNAME`).
    pub(crate) fn service_account(&self) -> String {
        format!(
            "system:serviceaccount:{}:{}",
            self.ns.name(),
            self.fullname()
        )
    }
}

impl Drop for Installed<'_> {
    fn drop(&mut self) {
        let _ = Self::command(self.ns, self.tool, &["uninstall", &self.release]).output();
    }
}

/// Waits until the Deployment has all its replicas ready and available.
pub(crate) async fn deployment_ready(ns: &TestNamespace, name: &str, replicas: i32) {
    let api: Api<Deployment> = ns.api();
    eventually(LIMIT, &format!("Deployment {name} ready"), async || {
        let d = api.get_opt(name).await.ok()??;
        let s = d.status?;
        (s.ready_replicas == Some(replicas) && s.available_replicas == Some(replicas)).then_some(())
    })
    .await;
}

/// What `helm install` and `kubepkg install` both made: the pods run as the ServiceAccount,
/// with the downward-API variables, and the PodDisruptionBudget allows one disruption.
async fn check_installed(installed: &Installed<'_>) {
    let ns = installed.ns;
    let name = installed.fullname();
    deployment_ready(ns, &name, 2).await;
    let d: Deployment = ns.api().get(&name).await.unwrap();
    let pod = d.spec.template.spec.unwrap();
    assert_eq!(pod.service_account_name.as_deref(), Some(name.as_str()));
    let c = &pod.containers[0];
    let env: Vec<_> = c.env.iter().flatten().map(|e| e.name.as_str()).collect();
    assert_eq!(env, ["POD_NAME", "POD_NAMESPACE"]);
    let args = c.args.clone().unwrap_or_default();
    assert!(args.contains(&"--leader-elect".to_string()), "{args:?}");
    let pdb: Api<k8s_openapi::api::policy::v1::PodDisruptionBudget> = ns.api();
    eventually(
        LIMIT,
        "PodDisruptionBudget allows one disruption",
        async || {
            let p = pdb.get_opt(&name).await.ok()??;
            (p.status?.disruptions_allowed == Some(1)).then_some(())
        },
    )
    .await;
    let svc: Api<k8s_openapi::api::core::v1::Service> = ns.api();
    assert!(
        svc.get_opt(&format!("{name}-metrics"))
            .await
            .unwrap()
            .is_some()
    );
    let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        Api::all(ns.client().clone());
    assert!(
        crds.get_opt("packages.kubepkg.dev")
            .await
            .unwrap()
            .is_some()
    );
}

#[tokio::test]
async fn kubepkg_install_installs_the_chart_and_the_deployment_becomes_ready() {
    let ns = TestNamespace::fresh("chart-kubepkg").await;
    let installed = Installed::install(&ns, Tool::Kubepkg, &[]);
    check_installed(&installed).await;
}

#[tokio::test]
async fn helm_install_installs_the_chart_and_the_deployment_becomes_ready() {
    let ns = TestNamespace::fresh("chart-helm").await;
    let installed = Installed::install(&ns, Tool::Helm, &[]);
    check_installed(&installed).await;
    // Without package contents, the controller may not create what packages contain.
    let sa = installed.service_account();
    let may_not = [
        ("create", "deployments.apps", None),
        ("delete", "nodes", None),
        ("create", "clusterroles.rbac.authorization.k8s.io", None),
    ];
    let granted = granted(&ns, &sa, &may_not, &[Scope::AllNamespaces]);
    assert!(granted.is_empty(), "{sa} may: {granted:?}");
}

#[derive(Clone, Copy)]
pub(crate) enum Scope<'a> {
    AllNamespaces,
    Namespace(&'a str),
}

/// `kubectl auth can-i VERB RESOURCE --as SUBJECT`: true for yes, false for no.
pub(crate) fn can_i(
    ns: &TestNamespace,
    subject: &str,
    verb: &str,
    resource: &str,
    subresource: Option<&str>,
    scope: Scope<'_>,
) -> bool {
    let mut c = ns.plane().kubectl();
    c.args(["auth", "can-i", verb, resource, "--as", subject]);
    if let Some(s) = subresource {
        c.arg(format!("--subresource={s}"));
    }
    match scope {
        Scope::AllNamespaces => c.arg("--all-namespaces"),
        Scope::Namespace(n) => c.args(["-n", n]),
    };
    let out = c.output().expect("kubectl");
    match (out.status.code(), text(&out.stdout).trim()) {
        (Some(0), "yes") => true,
        (Some(1), "no") => false,
        other => panic!(
            "kubectl auth can-i {verb} {resource}: {other:?} {}",
            text(&out.stderr)
        ),
    }
}

/// Every (verb, resource, subresource) the controller calls, cluster-wide (README.md#rbac).
const CONTROLLER_NEEDS: &[(&str, &str, Option<&str>)] = &[
    ("get", "packages.kubepkg.dev", None),
    ("list", "packages.kubepkg.dev", None),
    ("watch", "packages.kubepkg.dev", None),
    ("patch", "packages.kubepkg.dev", None),
    ("patch", "packages.kubepkg.dev", Some("status")),
    ("create", "packages.kubepkg.dev", None),
    ("get", "packagerollouts.kubepkg.dev", None),
    ("list", "packagerollouts.kubepkg.dev", None),
    ("watch", "packagerollouts.kubepkg.dev", None),
    ("patch", "packagerollouts.kubepkg.dev", Some("status")),
    ("get", "secrets", None),
    ("list", "secrets", None),
    ("watch", "secrets", None),
    ("create", "secrets", None),
    ("update", "secrets", None),
    ("delete", "secrets", None),
    ("get", "configmaps", None),
    ("get", "leases.coordination.k8s.io", None),
    ("create", "leases.coordination.k8s.io", None),
    ("update", "leases.coordination.k8s.io", None),
    ("delete", "leases.coordination.k8s.io", None),
    ("create", "namespaces", None),
    ("patch", "namespaces", None),
    ("create", "events.events.k8s.io", None),
    ("patch", "events.events.k8s.io", None),
    ("list", "events", None),
    // source.sourceRef — Flux sources (README.md#rbac).
    ("get", "gitrepositories.source.toolkit.fluxcd.io", None),
    ("list", "gitrepositories.source.toolkit.fluxcd.io", None),
    ("watch", "gitrepositories.source.toolkit.fluxcd.io", None),
    ("get", "buckets.source.toolkit.fluxcd.io", None),
    ("watch", "buckets.source.toolkit.fluxcd.io", None),
    ("list", "ocirepositories.source.toolkit.fluxcd.io", None),
    // backend: argocd — each component's Application (README.md#rbac).
    ("get", "applications.argoproj.io", None),
    ("list", "applications.argoproj.io", None),
    ("watch", "applications.argoproj.io", None),
    ("create", "applications.argoproj.io", None),
    ("patch", "applications.argoproj.io", None),
    ("update", "applications.argoproj.io", None),
    ("delete", "applications.argoproj.io", None),
    // The watch that keeps `.Capabilities` between reconciles (README.md#rbac).
    ("list", CRDS, None),
    ("watch", CRDS, None),
    ("list", "apiservices.apiregistration.k8s.io", None),
    ("watch", "apiservices.apiregistration.k8s.io", None),
];

/// What the controller never needs: granted neither cluster-wide nor in its namespace (the
/// package-contents role of the test grants Deployments only, checked on their own).
const CONTROLLER_MUST_NOT: &[(&str, &str, Option<&str>)] = &[
    ("delete", "nodes", None),
    ("escalate", "clusterroles.rbac.authorization.k8s.io", None),
    ("bind", "clusterroles.rbac.authorization.k8s.io", None),
    (
        "create",
        "clusterrolebindings.rbac.authorization.k8s.io",
        None,
    ),
    ("impersonate", "serviceaccounts", None),
    ("create", "pods", Some("exec")),
    ("create", CRDS, None),
    ("delete", "namespaces", None),
    ("update", "packages.kubepkg.dev", None),
    ("delete", "packages.kubepkg.dev", None),
    ("patch", "secrets", None),
    ("create", "configmaps", None),
    ("list", "configmaps", None),
    ("list", "leases.coordination.k8s.io", None),
    ("create", "events", None),
    // backend: argocd — Argo CD's own objects are not kubepkg's.
    ("patch", "appprojects.argoproj.io", None),
];

/// The rules the package-contents role gets in the RBAC test: what a package of one
/// Deployment needs.
const DEPLOYMENT_RULES: &str = r#"rbac.packageContentsRules=[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["get","list","watch","create","update","patch","delete"]}]"#;

/// The ServiceAccount may do exactly what the controller needs; the package-contents role
/// grants its rules in its namespaces only; and the real controller, authenticated as that
/// ServiceAccount, reconciles a Package of one Deployment to Ready and uninstalls it on
/// delete.
#[tokio::test]
async fn the_service_account_may_do_what_the_controller_needs_and_no_more() {
    let ns = TestNamespace::fresh("chart-rbac").await;
    // `kubectl auth can-i` of Argo CD's kinds needs them served, whichever test runs first.
    kubepkg_testkit::argocd::install_crds(&ns)
        .await
        .expect("Argo CD's CRDs");
    kubepkg_testkit::flux::install_crds(&ns)
        .await
        .expect("Flux's CRDs");
    let contents_ns = format!("--set=rbac.packageContentsNamespaces={{{}}}", ns.name());
    let installed = Installed::install(
        &ns,
        Tool::Kubepkg,
        &[
            "--set",
            "rbac.packageContents=rules",
            "--set-json",
            DEPLOYMENT_RULES,
            &contents_ns,
        ],
    );
    deployment_ready(&ns, &installed.fullname(), 2).await;
    let sa = installed.service_account();

    let here = Scope::Namespace(ns.name());
    // The package-contents role grants Deployments in its namespace only.
    let deployments = ("create", "deployments.apps", None);
    assert!(refused(&ns, &sa, &[(deployments, here)]).is_empty());
    let elsewhere = [Scope::Namespace("default"), Scope::AllNamespaces];
    assert!(granted(&ns, &sa, &[deployments], &elsewhere).is_empty());
    let needs: Vec<_> = CONTROLLER_NEEDS
        .iter()
        .map(|&access| (access, Scope::AllNamespaces))
        .collect();
    let refused = refused(&ns, &sa, &needs);
    assert!(refused.is_empty(), "{sa} may not: {refused:?}");
    let granted = granted(&ns, &sa, CONTROLLER_MUST_NOT, &[Scope::AllNamespaces, here]);
    assert!(granted.is_empty(), "{sa} may: {granted:?}");

    // The real controller as that ServiceAccount.
    let tmp = tempfile::tempdir().unwrap();
    let kubeconfig = service_account_kubeconfig(&ns, &installed.fullname(), tmp.path());
    let ctl = start_controller(&ns, &kubeconfig);
    store_notes_archive(&ns, &tmp.path().join("pkg")).await;
    let spec = json!({"source": {"configMapRef": {"name": "notes-pkg"}}});
    package_ready(&ns, &ctl, "notes", spec, LIMIT, &String::new).await;
    deployment_ready(&ns, "notes-app", 1).await;

    // Delete: the finalizer uninstalls the component, then lets the object go.
    delete_package(&ns, &ctl, "notes", Some("notes-app"), LIMIT, &String::new).await;
}

/// Package `notes` 1.0.0 (one component, `app`) written to `root` and stored in `ns` as the
/// archive ConfigMap `notes-pkg`.
pub(crate) async fn store_notes_archive(ns: &TestNamespace, root: &Path) {
    package(
        root,
        "package:\n  name: notes\n  version: 1.0.0\ncomponents:\n- {name: app, path: app}\n",
        &["app"],
        &[],
    );
    kubepkg_testkit::store_package_archive(
        ns,
        "notes-pkg",
        kubepkg_testkit::package_archive(root).expect("package archive"),
    )
    .await
    .expect("archive ConfigMap");
}

/// A kubeconfig for the plane's API server that authenticates with a token of ServiceAccount
/// `sa` (TokenRequest, as the kubelet gets one for the controller's pod).
pub(crate) fn service_account_kubeconfig(ns: &TestNamespace, sa: &str, dir: &Path) -> PathBuf {
    let kubectl = |args: &[&str]| -> String {
        let mut c = ns.plane().kubectl();
        c.args(args);
        ok(c.output().unwrap()).trim().to_string()
    };
    let token = kubectl(&["create", "token", sa, "-n", ns.name(), "--duration=1h"]);
    let server = kubectl(&[
        "config",
        "view",
        "--raw",
        "--minify",
        "-o",
        "jsonpath={.clusters[0].cluster.server}",
    ]);
    let ca = kubectl(&[
        "config",
        "view",
        "--raw",
        "--minify",
        "-o",
        "jsonpath={.clusters[0].cluster.certificate-authority-data}",
    ]);
    assert!(!server.is_empty() && !ca.is_empty(), "admin kubeconfig");
    let config = json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "plane", "cluster": {"server": server, "certificate-authority-data": ca}}],
        "users": [{"name": sa, "user": {"token": token}}],
        "contexts": [{"name": sa, "context": {"cluster": "plane", "user": sa, "namespace": ns.name()}}],
        "current-context": sa,
    });
    let path = dir.join("sa.kubeconfig");
    std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
    path
}

/// `kubepkg controller` as the chart runs it (leader election in the release namespace) with
/// `kubeconfig`, watching the test namespace; killed when dropped.
fn start_controller(ns: &TestNamespace, kubeconfig: &Path) -> ControllerProcess {
    let mut args = vec!["--leader-elect", "--leader-election-namespace", ns.name()];
    args.extend(NO_PORTS);
    args.extend(["--interval", "5s", "--timeout", "60s"]);
    ControllerProcess::spawn(ns, kubeconfig, &args, &[])
}

/// CustomResourceDefinitions, as `kubectl auth can-i` names the resource.
pub(crate) const CRDS: &str = "customresourcedefinitions.apiextensions.k8s.io";

/// A (verb, resource, subresource) the chart's ServiceAccount is asked about.
pub(crate) type Access<'a> = (&'a str, &'a str, Option<&'a str>);

/// The chart installed for a GitOps backend's Package: package contents limited to reading
/// Deployments in the test namespace (the backend's controller writes them; kubepkg only checks
/// their readiness). Asserts that its ServiceAccount may do each of `may` (in the namespace, or
/// cluster-wide where its scope says so) and none of `may_not`, in the namespace or cluster-wide.
pub(crate) fn install_for_backend<'a>(
    ns: &'a TestNamespace,
    may: &[(Access<'_>, Scope<'_>)],
    may_not: &[Access<'_>],
) -> Installed<'a> {
    let contents_ns = format!("--set=rbac.packageContentsNamespaces={{{}}}", ns.name());
    let installed = Installed::install(
        ns,
        Tool::Kubepkg,
        &[
            "--set",
            "rbac.packageContents=rules",
            "--set-json",
            r#"rbac.packageContentsRules=[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["get","list","watch"]}]"#,
            &contents_ns,
        ],
    );
    let sa = installed.service_account();
    let refused = refused(ns, &sa, may);
    assert!(refused.is_empty(), "{sa} may not: {refused:?}");
    let here = Scope::Namespace(ns.name());
    let granted = granted(ns, &sa, may_not, &[here, Scope::AllNamespaces]);
    assert!(granted.is_empty(), "{sa} may: {granted:?}");
    installed
}

/// Of `may`, what `subject` may not do in its scope, each as `VERB RESOURCE SUBRESOURCE`.
pub(crate) fn refused(
    ns: &TestNamespace,
    subject: &str,
    may: &[(Access<'_>, Scope<'_>)],
) -> Vec<String> {
    may.iter()
        .filter(|((verb, resource, sub), scope)| !can_i(ns, subject, verb, resource, *sub, *scope))
        .map(|((verb, resource, sub), _)| format!("{verb} {resource} {sub:?}"))
        .collect()
}

/// Of `may_not`, what `subject` may do in any of `scopes`, each as `VERB RESOURCE SUBRESOURCE`.
pub(crate) fn granted(
    ns: &TestNamespace,
    subject: &str,
    may_not: &[Access<'_>],
    scopes: &[Scope<'_>],
) -> Vec<String> {
    may_not
        .iter()
        .filter(|(verb, resource, sub)| {
            scopes
                .iter()
                .any(|&scope| can_i(ns, subject, verb, resource, *sub, scope))
        })
        .map(|(verb, resource, sub)| format!("{verb} {resource} {sub:?}"))
        .collect()
}

/// Package `shop` 1.0.0 in `pkg`: two components, api after db (one simulated Deployment
/// each), `rollback.safe`.
pub(crate) fn shop_package(pkg: &Path) {
    package(
        pkg,
        "package:\n  name: shop\n  version: 1.0.0\n  rollback: {safe: true}\ncomponents:\n\
         \x20 - name: api\n    path: api\n    install: {dependsOn: [db]}\n\
         \x20 - name: db\n    path: db\n",
        &["api", "db"],
        &[],
    );
}

/// The real `kubepkg controller`, authenticated with a token of `installed`'s ServiceAccount,
/// reconciling Package `shop` — two components, api after db, `rollback.safe`, from ConfigMap
/// `shop-archive`; `backend` the rest of its spec — until it is Ready (`Succeeded`): the
/// controller and the Ready Package. `tails` is what the backend's controllers logged.
pub(crate) async fn shop_ready_as_service_account(
    ns: &TestNamespace,
    installed: &Installed<'_>,
    dir: &Path,
    backend: serde_json::Value,
    tails: &dyn Fn() -> String,
) -> (ControllerProcess, serde_json::Value) {
    let kubeconfig = service_account_kubeconfig(ns, &installed.fullname(), dir);
    let ctl = start_controller(ns, &kubeconfig);
    let pkg = dir.join("pkg");
    shop_package(&pkg);
    kubepkg_testkit::store_package_archive(
        ns,
        "shop-archive",
        kubepkg_testkit::package_archive(&pkg).expect("package archive"),
    )
    .await
    .expect("archive ConfigMap");
    let mut spec = json!({"source": {"configMapRef": {"name": "shop-archive"}}});
    if let (Some(spec), Some(backend)) = (spec.as_object_mut(), backend.as_object()) {
        spec.extend(backend.clone());
    }
    let o = package_ready(ns, &ctl, "shop", spec, Duration::from_secs(240), tails).await;
    (ctl, o)
}

/// Creates Package `name` of `spec` in `ns` and waits, at most `limit`, until `ctl` makes it
/// Ready (`Succeeded`), failing with its status, the controller's log and `tails()`; the
/// Package object then.
async fn package_ready(
    ns: &TestNamespace,
    ctl: &ControllerProcess,
    name: &str,
    spec: serde_json::Value,
    limit: Duration,
    tails: &dyn Fn() -> String,
) -> serde_json::Value {
    let packages = kubepkg_testkit::package_api(ns);
    let o: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "kubepkg.dev/v1alpha1", "kind": "Package",
        "metadata": {"name": name},
        "spec": spec,
    }))
    .unwrap();
    packages.create(&PostParams::default(), &o).await.unwrap();
    let deadline = std::time::Instant::now() + limit;
    loop {
        ctl.assert_running();
        let o = serde_json::to_value(packages.get(name).await.unwrap()).unwrap();
        let ready = o
            .pointer("/status/conditions")
            .and_then(|c| c.as_array())
            .and_then(|c| c.iter().find(|c| c["type"] == "Ready"))
            .cloned();
        if ready
            .as_ref()
            .is_some_and(|r| r["status"] == "True" && r["reason"] == "Succeeded")
        {
            return o;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "Package {name} never became Ready; status:\n{}\ncontroller log:\n{}\n{}",
            serde_json::to_string_pretty(&o["status"]).unwrap(),
            ctl.log(),
            tails()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Deletes Package `shop` and waits until it is gone (its finalizer ran the uninstall, which
/// waits for the backend's objects to go); the controller was never refused anything.
pub(crate) async fn delete_shop_as_service_account(
    ns: &TestNamespace,
    ctl: &ControllerProcess,
    tails: &dyn Fn() -> String,
) {
    delete_package(ns, ctl, "shop", None, Duration::from_secs(180), tails).await;
}

/// Deletes Package `name` and waits, at most `limit`, until it (and Deployment `deployment`,
/// when given) is gone, failing with the controller's log and `tails()`; the controller, as a
/// ServiceAccount, was never refused anything.
async fn delete_package(
    ns: &TestNamespace,
    ctl: &ControllerProcess,
    name: &str,
    deployment: Option<&str>,
    limit: Duration,
    tails: &dyn Fn() -> String,
) {
    let packages = kubepkg_testkit::package_api(ns);
    packages
        .delete(name, &DeleteParams::default())
        .await
        .unwrap();
    let deployments: Api<Deployment> = ns.api();
    let deadline = std::time::Instant::now() + limit;
    loop {
        let deployment_left = match deployment {
            Some(d) => deployments.get_opt(d).await.unwrap().is_some(),
            None => false,
        };
        if packages.get_opt(name).await.unwrap().is_none() && !deployment_left {
            break;
        }
        ctl.assert_running();
        assert!(
            std::time::Instant::now() < deadline,
            "Package {name} not uninstalled; controller log:\n{}\n{}",
            ctl.log(),
            tails()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let log = ctl.log();
    assert!(
        !log.to_lowercase().contains("forbidden"),
        "the controller was refused something:\n{log}"
    );
}
