//! kubepkg's declarative post-renderers ([`kubepkg_chart::kustomize`], Flux's
//! `postRenderers[].kustomize`) against the real `kustomize` (v5.8.1, test tooling built from
//! the Go module proxy by `testenv/kustomize/build.sh`): for corpus charts rendered as `helm
//! template` renders them, the same `patches` and `images` give the same objects
//! (compared as JSON, in any order), and a strategic-merge patch that names no object is
//! refused by both.

use std::path::Path;

use kubepkg_chart::TemplateOptions;
use kubepkg_chart::kustomize::{Kustomize, KustomizeSpec, PostRendererSpec};
use kubepkg_testkit::kustomize::kustomize_build;

fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `helm template rel CHART` of a corpus chart.
fn rendered(chart: &str) -> String {
    let opts = TemplateOptions {
        release_name: "rel".into(),
        chart: repo().join("testdata/charts/modules").join(chart),
        namespace: "default".into(),
        ..Default::default()
    };
    kubepkg_chart::template(&opts).expect("the chart renders")
}

/// The objects of a stream as sorted JSON texts.
fn objects(stream: &str) -> Vec<String> {
    let mut out: Vec<String> = kubepkg_manifest::parse(stream)
        .expect("objects read")
        .into_iter()
        .map(|o| serde_json::to_string(&o.object).unwrap())
        .collect();
    out.sort();
    out
}

fn ours(manifests: &str, fields: &str) -> Result<String, String> {
    let json = kubepkg_yaml::yaml_to_json(fields).expect("fields are YAML");
    let spec: KustomizeSpec = serde_json::from_str(&json).expect("fields are a kustomize spec");
    let specs = [PostRendererSpec {
        kustomize: Some(spec),
    }];
    Kustomize::new("c", &specs)
        .and_then(|k| k.apply(manifests))
        .map_err(|e| e.to_string())
}

const GUESTBOOK: &str = "github.com_argoproj_argo-cd_v3__test_e2e_testdata_helm-guestbook";
const METRICS: &str = "sigs.k8s.io_metrics-server__charts_metrics-server";
const SEALED: &str = "github.com_bitnami-labs_sealed-secrets__helm_sealed-secrets";
const PODINFO: &str = "github.com_fluxcd_flagger__charts_podinfo";

/// (chart, kustomization fields): each patch kind, over several charts.
const CASES: &[(&str, &str)] = &[
    // Strategic merge without a target: containers merge by name, env by name, ports by
    // containerPort; a new container; a label added and one deleted with null.
    (
        GUESTBOOK,
        r#"patches:
- patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: guestbook-ui
      labels:
        team: web
        test: null
    spec:
      replicas: 3
      template:
        spec:
          containers:
          - name: guestbook-ui
            env:
            - {name: MODE, value: prod}
            ports:
            - {containerPort: 80, name: http}
            - {containerPort: 9090, name: metrics}
          - name: sidecar
            image: busybox:1.36
"#,
    ),
    // Service ports merge by port.
    (
        GUESTBOOK,
        r#"patches:
- patch: |
    apiVersion: v1
    kind: Service
    metadata: {name: guestbook-ui}
    spec:
      type: NodePort
      ports:
      - {port: 80, nodePort: 30080}
      - {port: 443, targetPort: 8443, name: https}
"#,
    ),
    // A targeted strategic merge on every object the selector picks; a deleted list item.
    (
        METRICS,
        r#"patches:
- target: {kind: Deployment, labelSelector: "app.kubernetes.io/name=metrics-server"}
  patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: any}
    spec:
      template:
        spec:
          tolerations:
          - {key: dedicated, operator: Exists}
          containers:
          - name: metrics-server
            args: [--secure-port=10250, --kubelet-insecure-tls]
            resources: {limits: {memory: 200Mi}}
- target: {kind: "Service|ServiceAccount", name: rel-metrics-server}
  patch: |
    apiVersion: v1
    kind: Service
    metadata:
      name: x
      annotations: {patched: "yes"}
"#,
    ),
    // JSON 6902 (YAML and JSON forms) with targets by group, version, kind and name.
    (
        SEALED,
        r#"patches:
- target: {group: apps, version: v1, kind: Deployment, name: rel-sealed-secrets}
  patch: |
    - op: replace
      path: /spec/replicas
      value: 2
    - op: add
      path: /metadata/annotations
      value: {owner: platform}
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: --update-status
    - op: remove
      path: /spec/template/spec/containers/0/securityContext
    - op: copy
      from: /metadata/name
      path: /metadata/labels/copied
    - op: test
      path: /kind
      value: Deployment
- target: {kind: Service, name: "rel-sealed-secrets.*"}
  patch: '[{"op": "add", "path": "/metadata/labels/exposed", "value": "true"}]'
"#,
    ),
    // Images: a new name and tag, a digest, a tag only.
    (
        METRICS,
        r#"images:
- name: registry.k8s.io/metrics-server/metrics-server
  newName: mirror.local/metrics-server
  newTag: v0.8.2
"#,
    ),
    (
        PODINFO,
        r#"images:
- name: ghcr.io/stefanprodan/podinfo
  digest: sha256:1111111111111111111111111111111111111111111111111111111111111111
patches:
- patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: rel-podinfo}
    spec:
      template:
        metadata:
          annotations: {rolled: "1"}
"#,
    ),
];

#[test]
fn patches_and_images_give_the_objects_kustomize_gives() {
    for (i, (chart, fields)) in CASES.iter().enumerate() {
        let manifests = rendered(chart);
        let dir = tempfile::tempdir().unwrap();
        let want = kustomize_build(dir.path(), &manifests, fields)
            .expect("kustomize runs")
            .unwrap_or_else(|e| panic!("case {i} ({chart}): kustomize refused it: {e}"));
        let got = ours(&manifests, fields)
            .unwrap_or_else(|e| panic!("case {i} ({chart}): kubepkg refused it: {e}"));
        let (want, got) = (objects(&want), objects(&got));
        assert_eq!(
            got.len(),
            want.len(),
            "case {i} ({chart}): other objects than kustomize's"
        );
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(
                g, w,
                "case {i} ({chart}): an object differs from kustomize's"
            );
        }
        // The case changed something (the test can fail).
        assert_ne!(
            got,
            objects(&manifests),
            "case {i} ({chart}) changed nothing"
        );
    }
}

#[test]
fn a_strategic_merge_patch_that_names_no_object_is_refused_as_kustomize_refuses_it() {
    let manifests = rendered(GUESTBOOK);
    let fields = "patches:\n- patch: |\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: no-such-deployment}\n    spec: {replicas: 2}\n";
    let dir = tempfile::tempdir().unwrap();
    let theirs = kustomize_build(dir.path(), &manifests, fields).expect("kustomize runs");
    let e = theirs.expect_err("kustomize refuses it");
    assert!(
        e.contains("no resource matches strategic merge patch"),
        "{e}"
    );
    let ours = ours(&manifests, fields).expect_err("kubepkg refuses it");
    assert!(
        ours.starts_with(
            "component \"c\": postRenderers[0].kustomize.patches[0]: no object matches"
        ) && ours.contains("no-such-deployment"),
        "{ours}"
    );
}
