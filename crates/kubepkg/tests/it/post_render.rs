//! `--post-renderer NAME [--post-renderer-args ARG]…` against the real `helm` (v4.3.1): the
//! same `postrenderer/v1` plugin, written by the test into a fresh `HELM_PLUGINS` directory,
//! serves both. For corpus charts, `kubepkg template` prints the same bytes as `helm template`
//! and hands the plugin the same bytes on its standard input; a missing plugin, one that exits
//! non-zero, one that prints something that is not YAML and one that prints nothing are refused
//! with Helm's message (kubepkg adds the plugin's exit status and standard error); `plugin
//! list` prints what `helm plugin list` prints.
//!
//! Comments survive Helm's post-render round trip (go-yaml v3 keeps them) and kubepkg's in the
//! common places; the charts here include ones full of comments. Charts with comments in the
//! places kubepkg does not place as go-yaml v3 does yet are left out (docs/cli.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::repo;
use kubepkg_testkit::{helm_binary, helm_offline};

/// The test plugin: passes everything on with one field rewritten and adds a ConfigMap named
/// after the chart, holding the plugin's arguments (from `plugin.yaml` and the command line).
/// With `PR_CAPTURE` set it also keeps what it was given.
const POST_RENDER_SH: &str = r#"#!/bin/sh
set -e
in=$(cat)
if [ -n "$PR_CAPTURE" ]; then printf '%s\n' "$in" > "$PR_CAPTURE"; fi
chart=$(printf '%s\n' "$in" | sed -n "s/.*postrender-filename: '\([^/]*\)\/.*/\1/p" | head -n 1)
printf '%s\n' "$in" | sed 's/imagePullPolicy: IfNotPresent/imagePullPolicy: Always/'
printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-post-rendered\ndata:\n  args: "%s"\n' "$chart" "$*"
"#;

/// Writes plugin `name` running `script` into `dir`.
fn plugin(dir: &Path, name: &str, script: &str) {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("plugin.yaml"),
        format!(
            "apiVersion: v1\nname: {name}\nversion: 1.0.0\ntype: postrenderer/v1\nruntime: subprocess\nruntimeConfig:\n  platformCommand:\n  - command: \"${{HELM_PLUGIN_DIR}}/run.sh\"\n    args: [\"--from-plugin-yaml\"]\n"
        ),
    )
    .unwrap();
    let run = d.join("run.sh");
    std::fs::write(&run, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A plugins directory with the test plugin and the misbehaving ones.
fn plugins() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    plugin(dir.path(), "testpr", POST_RENDER_SH);
    plugin(
        dir.path(),
        "failing",
        "#!/bin/sh\ncat >/dev/null\necho 'kustomize: no such patch' >&2\nexit 3\n",
    );
    plugin(
        dir.path(),
        "garbage",
        "#!/bin/sh\ncat >/dev/null\necho 'this: is: not yaml'\n",
    );
    plugin(dir.path(), "silent", "#!/bin/sh\ncat >/dev/null\n");
    // Helm lists, but never runs for --post-renderer, a plugin of another type.
    kubepkg_testkit::tree::write_files(
        dir.path(),
        &[(
            "a-cli/plugin.yaml",
            "name: a-cli\nversion: 0.2.0\nusage: a legacy CLI plugin\ncommand: $HELM_PLUGIN_DIR/x\n",
        )],
    );
    dir
}

/// `tool ARGS` with `HELM_PLUGINS` = `plugins` and the plugin's capture file `capture`.
fn run(mut c: Command, plugins: &Path, capture: &Path) -> Output {
    c.current_dir(repo())
        .env("HELM_PLUGINS", plugins)
        .env("PR_CAPTURE", capture)
        .env_remove("HELM_NAMESPACE")
        .output()
        .unwrap()
}

fn helm(args: &[&str], plugins: &Path, capture: &Path) -> Output {
    let helm = helm_binary("v4.3.1").expect("helm v4.3.1");
    run(helm_offline(&helm, args), plugins, capture)
}

fn kubepkg(args: &[&str], plugins: &Path, capture: &Path) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubepkg"));
    c.args(args).env_remove("CLICOLOR_FORCE");
    run(c, plugins, capture)
}

/// Corpus charts (public charts and Helm's own test charts) rendered by both tools.
const CHARTS: &[&str] = &[
    "testdata/charts/modules/github.com_aws_amazon-vpc-cni-k8s__charts_aws-vpc-cni",
    "testdata/charts/modules/github.com_bitnami-labs_sealed-secrets__helm_sealed-secrets",
    "testdata/charts/modules/github.com_fluxcd_flagger__charts_flagger",
    "testdata/charts/modules/github.com_kyverno_kyverno__charts_kyverno-policies",
    "testdata/charts/modules/sigs.k8s.io_descheduler__charts_descheduler",
    "testdata/charts/modules/sigs.k8s.io_metrics-server__charts_metrics-server",
    "testdata/charts/modules/sigs.k8s.io_kueue__charts_kueue",
    "testdata/charts/modules/sigs.k8s.io_kwok__charts_kwok",
    "testdata/charts/modules/github.com_aquasecurity_trivy__helm_trivy",
    "testdata/charts/modules/github.com_argoproj_argo-cd_v3__test_e2e_testdata_helm-guestbook",
    "testdata/charts/modules/github.com_flannel-io_flannel__chart_kube-flannel",
    "testdata/charts/helm/pkg/cmd/testdata/testcharts/chart-with-only-crds",
    // Charts whose templates write YAML comments (head, foot and line comments).
    "testdata/charts/modules/github.com_cert-manager_cert-manager__deploy_charts_cert-manager",
    "testdata/charts/modules/k8s.io_ingress-nginx__charts_ingress-nginx",
    "testdata/charts/modules/go.universe.tf_metallb__charts_metallb",
    "testdata/charts/modules/github.com_projectcalico_calico__charts_calico",
    "testdata/charts/modules/istio.io_istio__manifests_charts_base",
    "testdata/charts/modules/github.com_open-policy-agent_gatekeeper_v3__charts_gatekeeper",
    "testdata/charts/modules/k8s.io_autoscaler_vertical-pod-autoscaler__charts_vertical-pod-autoscaler",
    "testdata/charts/modules/github.com_cert-manager_trust-manager__deploy_charts_trust-manager",
    "testdata/charts/helm/pkg/cmd/testdata/testcharts/alpine",
    "testdata/charts/helm/pkg/cmd/testdata/testcharts/object-order",
];

#[test]
fn template_with_a_post_renderer_prints_what_helm_prints() {
    let plugins = plugins();
    let work = tempfile::tempdir().unwrap();
    let (theirs, ours) = (work.path().join("helm.in"), work.path().join("kubepkg.in"));
    for chart in CHARTS {
        let args = [
            "template",
            "rel",
            chart,
            "--post-renderer",
            "testpr",
            "--post-renderer-args",
            "one",
            "--post-renderer-args",
            "two words",
        ];
        let want = helm(&args, plugins.path(), &theirs);
        let got = kubepkg(&args, plugins.path(), &ours);
        assert!(
            want.status.success(),
            "{chart}: helm failed: {}",
            String::from_utf8_lossy(&want.stderr)
        );
        assert!(
            got.status.success(),
            "{chart}: kubepkg failed: {}",
            String::from_utf8_lossy(&got.stderr)
        );
        let (want_in, got_in) = (
            std::fs::read_to_string(&theirs).unwrap(),
            std::fs::read_to_string(&ours).unwrap(),
        );
        assert_eq!(
            got_in, want_in,
            "{chart}: the plugin was given other manifests than helm gives it"
        );
        let (want_out, got_out) = (
            String::from_utf8_lossy(&want.stdout),
            String::from_utf8_lossy(&got.stdout),
        );
        assert_eq!(got_out, want_out, "{chart}: output differs from helm's");
        assert!(
            want_out.contains("args: \"--from-plugin-yaml one two words\""),
            "{chart}: the plugin's document is missing:\n{want_out}"
        );
    }
}

/// Helm's `Error: …` line (its CLI adds a hint after a blank line).
fn first_line(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_missing_failing_or_garbled_post_renderer_is_refused_as_helm_refuses_it() {
    let plugins = plugins();
    let capture = PathBuf::from("/dev/null");
    let chart = "testdata/charts/modules/sigs.k8s.io_metrics-server__charts_metrics-server";
    for (name, exact, extra) in [
        ("no-such-plugin", true, ""),
        // kubepkg adds what Helm drops: the exit status and the plugin's standard error.
        ("failing", false, "kustomize: no such patch"),
        ("garbage", true, ""),
        ("silent", true, ""),
        // A plugin of another type is not a post-renderer.
        ("a-cli", true, ""),
    ] {
        let args = ["template", "rel", chart, "--post-renderer", name];
        let want = helm(&args, plugins.path(), &capture);
        let got = kubepkg(&args, plugins.path(), &capture);
        assert!(!want.status.success(), "{name}: helm accepted it");
        assert_eq!(
            got.status.code(),
            want.status.code(),
            "{name}: exit code differs: {}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert!(got.stdout.is_empty(), "{name}: kubepkg printed manifests");
        let (w, g) = (first_line(&want), first_line(&got));
        assert!(w.starts_with("Error: ") && w.contains(name) || name == "garbage");
        if exact {
            assert_eq!(g, w, "{name}: message differs from helm's");
        } else {
            assert!(g.starts_with(&w), "{name}: {g:?} does not start with {w:?}");
            assert!(g.contains(extra), "{name}: {g:?} does not say {extra:?}");
        }
    }
}

#[test]
fn plugin_list_prints_what_helm_prints() {
    let plugins = plugins();
    let capture = PathBuf::from("/dev/null");
    for args in [
        &["plugin", "list"][..],
        &["plugin", "list", "--type", "postrenderer/v1"],
        &["plugin", "ls", "--type", "cli/v1"],
    ] {
        let want = helm(args, plugins.path(), &capture);
        let got = kubepkg(args, plugins.path(), &capture);
        assert!(want.status.success() && got.status.success(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            "{args:?}"
        );
    }
}

/// A package whose component has kubepkg.yaml `postRenderers`: `plan` (offline) shows the
/// patched objects; a patch naming no object and a patch that is not YAML are refused with
/// exit 7 (invalid package), naming the component and the patch, and nothing is planned.
#[test]
fn plan_shows_a_components_patches_and_refuses_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new("cp")
        .arg("-r")
        .arg(repo().join(
            "testdata/charts/modules/github.com_argoproj_argo-cd_v3__test_e2e_testdata_helm-guestbook",
        ))
        .arg(dir.path().join("gb"))
        .status()
        .unwrap();
    assert!(status.success());
    let manifest = |name: &str, spec: &str| {
        format!(
            "package: {{name: p, version: 1.0.0}}\ncomponents:\n- name: gb\n  path: gb\n  postRenderers:\n  - kustomize:\n      patches:\n      - patch: |\n          apiVersion: apps/v1\n          kind: Deployment\n          metadata: {{name: {name}}}\n          spec: {spec}\n      images:\n      - {{name: quay.io/argoprojlabs/argocd-e2e-container, newTag: '0.3'}}\n"
        )
    };
    let plan = || {
        Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(["plan", "p"])
            .arg(dir.path())
            .env("KUBECONFIG", "/nonexistent/kubeconfig")
            .env("NO_COLOR", "1")
            .env_remove("HELM_NAMESPACE")
            .output()
            .unwrap()
    };
    std::fs::write(
        dir.path().join("kubepkg.yaml"),
        manifest("guestbook-ui", "{replicas: 3}"),
    )
    .unwrap();
    let out = plan();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("+  replicas: 3\n"), "{text}");
    assert!(
        text.contains("image: quay.io/argoprojlabs/argocd-e2e-container:0.3\n"),
        "{text}"
    );
    for (name, spec, says) in [
        (
            "nope",
            "{replicas: 3}",
            "postRenderers[0].kustomize.patches[0]: no object matches the strategic merge patch of apps/v1 Deployment \"nope\"",
        ),
        (
            "guestbook-ui",
            "{replicas: 3",
            "postRenderers[0].kustomize.patches[0]: the patch is not valid YAML",
        ),
    ] {
        std::fs::write(dir.path().join("kubepkg.yaml"), manifest(name, spec)).unwrap();
        let out = plan();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(7), "{err}");
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            err.contains("component \"gb\"") && err.contains(says),
            "{err}"
        );
    }
}

/// Merge keys from the cluster: a CRD declares its `spec.listeners` a map keyed by `port`
/// (`x-kubernetes-list-type: map`); a strategic-merge patch of listener 80 merges into that
/// item when planned against and applied to the cluster (kubepkg read the CRD's OpenAPI), where
/// offline the fallback (kyaml's associative keys, which picks `name`) appends a third listener.
#[tokio::test]
async fn a_crds_declared_list_keys_decide_the_merge_where_a_cluster_is_at_hand() {
    use kube::api::DynamicObject;
    let ns = kubepkg_testkit::TestNamespace::fresh("pr-merge-keys").await;
    ns.apply_yaml(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gateways.mergekeys.kubepkg.test}
spec:
  group: mergekeys.kubepkg.test
  names: {kind: Gateway, plural: gateways, singular: gateway, listKind: GatewayList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {listeners: {
      type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [port],
      items: {type: object, required: [port], properties: {port: {type: integer}, name: {type: string}, protocol: {type: string}}}}}}}}}
"#,
    )
    .await
    .unwrap();
    let crds: kube::Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        kube::Api::all(ns.client().clone());
    kubepkg_testkit::wait_for(
        &crds,
        "gateways.mergekeys.kubepkg.test",
        std::time::Duration::from_secs(60),
        "the Gateway CRD established",
        kubepkg_testkit::has_condition("Established", "True"),
    )
    .await
    .unwrap();
    // The API server publishes a new CRD's OpenAPI a moment after it is Established: wait for
    // it (and for discovery), as a package would have to.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let served = kubepkg_kube::discovery::api_versions(ns.client())
            .await
            .unwrap_or_default()
            .contains(&"mergekeys.kubepkg.test/v1/Gateway".to_string());
        let request = http::Request::get("/openapi/v3/apis/mergekeys.kubepkg.test/v1")
            .body(Vec::new())
            .unwrap();
        let published = ns
            .client()
            .request_text(request)
            .await
            .is_ok_and(|doc| doc.contains("x-kubernetes-list-map-keys"));
        if served && published {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the Gateway CRD's OpenAPI was never published"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let dir = tempfile::tempdir().unwrap();
    kubepkg_testkit::charts::write_chart(
        &dir.path().join("gw"),
        "gw",
        "1.0.0",
        &[(
            "templates/gateway.yaml",
            "apiVersion: mergekeys.kubepkg.test/v1\nkind: Gateway\nmetadata: {name: edge}\nspec:\n  listeners:\n  - {port: 80, name: http, protocol: TCP}\n  - {port: 443, name: https, protocol: TCP}\n",
        )],
    );
    std::fs::write(
        dir.path().join("kubepkg.yaml"),
        "package: {name: p, version: 1.0.0}\ncomponents:\n- name: gw\n  path: gw\n  postRenderers:\n  - kustomize:\n      patches:\n      - patch: |\n          apiVersion: mergekeys.kubepkg.test/v1\n          kind: Gateway\n          metadata: {name: edge}\n          spec:\n            listeners:\n            - {port: 80, name: web}\n",
    )
    .unwrap();
    let ports = |listeners: &serde_json::Value| -> Vec<(i64, String)> {
        listeners
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["port"].as_i64().unwrap(),
                    l["name"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // The planned Gateway, as the plan's diff shows it (flow style, as the template wrote it).
    let planned = |out: String| -> String {
        let plan: serde_json::Value = serde_json::from_str(&out).unwrap();
        let diff = plan["steps"][0]["diff"][0]["diff"]
            .as_str()
            .unwrap()
            .to_string();
        diff.lines()
            .find_map(|l| l.strip_prefix("+  listeners: ").map(String::from))
            .unwrap_or_else(|| panic!("no listeners in {diff}"))
    };
    // Offline: no schema; kyaml's fallback merges by `name`, so `web` is a new item.
    let offline = crate::support::ok(
        Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(["plan", "p"])
            .arg(dir.path())
            .args(["-o", "json"])
            .env("KUBECONFIG", "/nonexistent/kubeconfig")
            .env_remove("HELM_NAMESPACE")
            .output()
            .unwrap(),
    );
    assert_eq!(
        planned(offline),
        "[{port: 80, name: http, protocol: TCP}, {port: 443, name: https, protocol: TCP}, {port: 80, name: web}]"
    );
    // Against the cluster: the CRD's OpenAPI says listeners are keyed by port.
    let (code, out, err) = crate::support::run(
        &ns,
        &[
            "plan",
            "p",
            dir.path().to_str().unwrap(),
            "--cluster",
            "-o",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        planned(out),
        "[{port: 80, name: web, protocol: TCP}, {port: 443, name: https, protocol: TCP}]"
    );
    // Applied: the CRD's OpenAPI says listeners are keyed by port.
    let _ = crate::support::run_ok(&ns, &["apply", "p", dir.path().to_str().unwrap()]);
    let gateways: kube::Api<DynamicObject> = kube::Api::namespaced_with(
        ns.client().clone(),
        ns.name(),
        &kube::api::ApiResource::from_gvk_with_plural(
            &kube::api::GroupVersionKind::gvk("mergekeys.kubepkg.test", "v1", "Gateway"),
            "gateways",
        ),
    );
    let edge = gateways.get("edge").await.unwrap();
    assert_eq!(
        ports(&edge.data["spec"]["listeners"]),
        [(80, "web".into()), (443, "https".into())]
    );
    assert_eq!(edge.data["spec"]["listeners"][0]["protocol"], "TCP");
}
