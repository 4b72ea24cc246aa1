use super::*;
use crate::test_support::{api_replicas, charts, names, object, package, position, shop};

fn options() -> Options {
    Options {
        instance: "shop".into(),
        namespace: "apps".into(),
        repository: "oci://registry.example.com/charts/".into(),
        insecure: false,
        secret_ref: None,
        interval: Duration::from_secs(600),
        timeout: Duration::from_secs(300),
        driven: false,
        service_account: None,
    }
}

/// What api of the shop package waits for here beyond its Certificate `api-tls`: a Certificate
/// whose name holds a quote (with status "False") and a Queue.
const SHOP_READY_WHEN: &str = concat!(
    "        - {apiVersion: cert-manager.io/v1, kind: Certificate, name: \"it's\", condition: Ready, status: \"False\"}\n",
    "        - {apiVersion: example.com/v1, kind: Queue, name: jobs, condition: Available}\n"
);

/// The shop package compiled with `opts`, no values and the charts of db, api and web.
fn compile_shop(opts: &Options) -> Result<Compiled, CompileError> {
    let (_dir, p) = package(&shop(SHOP_READY_WHEN));
    compile(&p, &BTreeMap::new(), &charts(&["db", "api", "web"]), opts)
}

#[test]
fn components_become_sources_and_releases_one_after_the_other_in_kubepkgs_order() {
    let (_dir, p) = package(&shop(SHOP_READY_WHEN));
    let values = api_replicas(3);
    let c = compile(&p, &values, &charts(&["db", "api", "web"]), &options()).unwrap();
    // The order is the dependency order, not the manifest's.
    assert_eq!(
        names(&c.objects),
        [
            "OCIRepository shop-db",
            "HelmRelease shop-db",
            "OCIRepository shop-api",
            "HelmRelease shop-api",
            "OCIRepository shop-web",
            "HelmRelease shop-web"
        ]
    );
    let release = |n: &str| object(&c.objects, "HelmRelease", n).clone();
    assert_eq!(release("shop-db")["spec"].get("dependsOn"), None);
    assert_eq!(
        release("shop-api")["spec"]["dependsOn"],
        json!([{"name": "shop-db"}])
    );
    assert_eq!(
        release("shop-web")["spec"]["dependsOn"],
        json!([{"name": "shop-api"}])
    );
    // Everything lives in the package's namespace; a component with install.namespace
    // installs there (and keeps its release records there, as kubepkg does).
    for o in &c.objects {
        assert_eq!(o["metadata"]["namespace"], "apps");
    }
    let db = release("shop-db");
    assert_eq!(db["spec"]["targetNamespace"], "data");
    assert_eq!(db["spec"]["storageNamespace"], "data");
    assert_eq!(db["spec"]["install"]["createNamespace"], true);
    assert_eq!(release("shop-api")["spec"].get("targetNamespace"), None);
    // The values given are the ones kubepkg would supply; none: no field.
    assert_eq!(
        release("shop-api")["spec"]["values"],
        json!({"replicas": 3})
    );
    assert_eq!(release("shop-db")["spec"].get("values"), None);
    let api = release("shop-api");
    assert_eq!(api["spec"]["releaseName"], "shop-api");
    assert_eq!(
        api["spec"]["chartRef"],
        json!({"kind": "OCIRepository", "name": "shop-api"})
    );
    assert_eq!(api["spec"]["timeout"], "5m0s");
    assert_eq!(api["spec"]["interval"], "10m0s");
    assert_eq!(api["metadata"]["labels"]["kubepkg.dev/version"], "2.0.0");
    // The hook is not compiled, and said so.
    assert_eq!(c.notes.len(), 1, "{:?}", c.notes);
    assert!(
        c.notes[0].starts_with("check: a hook component"),
        "{:?}",
        c.notes
    );
}

#[test]
fn the_source_pulls_the_chart_layer_by_tag_or_pinned_digest() {
    let (_dir, p) = package(&shop(SHOP_READY_WHEN));
    let mut ch = charts(&["db", "api", "web"]);
    ch.get_mut("db").unwrap().digest = Some("sha256:abc".into());
    let mut opts = options();
    opts.insecure = true;
    let c = compile(&p, &BTreeMap::new(), &ch, &opts).unwrap();
    let src = |n: &str| object(&c.objects, "OCIRepository", n)["spec"].clone();
    assert_eq!(
        src("shop-api")["url"],
        "oci://registry.example.com/charts/api-chart"
    );
    assert_eq!(src("shop-api")["ref"], json!({"tag": "1.2.3"}));
    assert_eq!(src("shop-db")["ref"], json!({"digest": "sha256:abc"}));
    assert_eq!(
        src("shop-api")["layerSelector"],
        json!({"mediaType": "application/vnd.cncf.helm.chart.content.v1.tar+gzip", "operation": "copy"})
    );
    assert_eq!(src("shop-api")["insecure"], true);
}

#[test]
fn ready_when_becomes_one_cel_expression_per_kind() {
    let c = compile_shop(&options()).unwrap();
    let api = object(&c.objects, "HelmRelease", "shop-api");
    assert_eq!(
        api["spec"]["healthCheckExprs"],
        json!([
            {
                "apiVersion": "cert-manager.io/v1",
                "kind": "Certificate",
                "current": "(metadata.name != 'api-tls' || status.?conditions.orValue([]).exists(c, c.type == 'Ready' && c.status == 'True')) && (metadata.name != 'it\\'s' || status.?conditions.orValue([]).exists(c, c.type == 'Ready' && c.status == 'False'))"
            },
            {
                "apiVersion": "example.com/v1",
                "kind": "Queue",
                "current": "(metadata.name != 'jobs' || status.?conditions.orValue([]).exists(c, c.type == 'Available' && c.status == 'True'))"
            }
        ])
    );
}

#[test]
fn remediation_follows_rollback_safe_and_floors_are_not_given_to_flux() {
    let one = |rollback: &str| {
        let (_dir, p) = package(&format!(
            "package:\n  name: shop\n  version: 2.0.0\n{rollback}components:\n  - name: db\n    path: db\n"
        ));
        let c = compile(&p, &BTreeMap::new(), &charts(&["db"]), &options()).unwrap();
        (c.objects[1]["spec"]["upgrade"].clone(), c.notes)
    };
    let (safe, notes) = one("  rollback: {safe: true}\n");
    assert_eq!(
        safe,
        json!({"remediation": {"retries": 1, "strategy": "rollback", "remediateLastFailure": true}})
    );
    assert!(notes.is_empty());
    let no_rollback = json!({"remediation": {"retries": 0, "remediateLastFailure": false}});
    assert_eq!(one("  rollback: {safe: false}\n").0, no_rollback);
    assert_eq!(one("").0, no_rollback);
    let (floor, notes) = one("  rollback: {safe: true, to: \">=1.5.0\"}\n");
    assert_eq!(floor, no_rollback);
    assert!(notes[0].starts_with("rollback.to:"), "{notes:?}");
}

#[test]
fn what_flux_cannot_be_told_is_refused_with_the_reason() {
    let (_dir, p) = package(
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n  - name: db\n    path: db\n    install:\n      readyWhen:\n        - {apiVersion: v1, kind: ConfigMap, name: x, namespace: other, condition: Ready}\n",
    );
    let e = compile(&p, &BTreeMap::new(), &charts(&["db"]), &options()).unwrap_err();
    assert!(matches!(e, CompileError::ReadyWhenOutsideRelease { .. }));
    assert!(
        e.to_string()
            .contains("ConfigMap other/x is outside the release's namespace apps"),
        "{e}"
    );
    let (_dir, p) = package(&shop(SHOP_READY_WHEN));
    let mut opts = options();
    opts.repository = "https://charts.example.com".into();
    let e = compile_shop(&opts).unwrap_err();
    assert_eq!(e, CompileError::NotOci("https://charts.example.com".into()));
    let e = compile(&p, &BTreeMap::new(), &charts(&["db"]), &options()).unwrap_err();
    assert_eq!(e, CompileError::UnknownChart("api".into()));
}

#[test]
fn cel_strings_are_quoted_and_escaped() {
    assert_eq!(cel_string("a"), "'a'");
    assert_eq!(cel_string("it's"), "'it\\'s'");
    assert_eq!(cel_string("back\\slash"), "'back\\\\slash'");
}

#[test]
fn driven_objects_are_the_compiled_ones_without_flux_remediation() {
    let (_dir, p) = package(&shop(SHOP_READY_WHEN));
    let ch = charts(&["db", "api", "web"]);
    let compiled = compile(&p, &BTreeMap::new(), &ch, &options()).unwrap();
    // Per component, compile writes exactly what component_objects makes.
    let api = component_objects(
        &p,
        "api",
        Map::new(),
        &ch["api"],
        Some("shop-db"),
        &options(),
    )
    .unwrap();
    let at = position(&compiled.objects, "HelmRelease", "shop-api");
    assert_eq!(compiled.objects[at - 1], api.source);
    assert_eq!(compiled.objects[at], api.release);
    assert_eq!(api.release_name(), "shop-api");
    // Driven: kubepkg decides rollbacks, so Flux neither remediates nor retries.
    let driven = Options {
        driven: true,
        service_account: None,
        ..options()
    };
    let d = component_objects(&p, "api", Map::new(), &ch["api"], None, &driven).unwrap();
    assert_eq!(
        d.release["spec"]["upgrade"],
        json!({"remediation": {"retries": 0, "remediateLastFailure": false}})
    );
    assert_eq!(d.release["spec"].get("dependsOn"), None);
    assert_eq!(d.source, api.source);
    assert_eq!(check(&p, &driven), Ok(()));
    let (_bad, other_ns) = package(
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n  - name: db\n    path: db\n    install:\n      readyWhen:\n        - {apiVersion: v1, kind: ConfigMap, name: x, namespace: other, condition: Ready}\n",
    );
    assert!(matches!(
        check(&other_ns, &driven),
        Err(CompileError::ReadyWhenOutsideRelease { .. })
    ));
}

#[test]
fn kustomize_post_renderers_become_the_helm_releases_and_plugins_are_refused() {
    let (_dir, mut p) = package(
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n  - name: db\n    path: db\n    postRenderers:\n      - kustomize:\n          patches:\n            - target: {kind: StatefulSet}\n              patch: '[{op: add, path: /spec/replicas, value: 3}]'\n          images:\n            - {name: postgres, newTag: '16'}\n",
    );
    let c = compile(&p, &BTreeMap::new(), &charts(&["db"]), &options()).unwrap();
    let release = &c.objects[1];
    assert_eq!(
        release["spec"]["postRenderers"],
        serde_json::json!([{"kustomize": {
            "patches": [{"patch": "[{op: add, path: /spec/replicas, value: 3}]", "target": {"kind": "StatefulSet"}}],
            "images": [{"name": "postgres", "newTag": "16"}],
        }}])
    );
    let plugin = kubepkg_chart::plugin::PostRendererPlugin {
        plugin: kubepkg_chart::plugin::Plugin {
            dir: "/plugins/mine".into(),
            name: "mine".into(),
            version: "1.0.0".into(),
            plugin_type: "postrenderer/v1".into(),
            api_version: "v1".into(),
            runtime: "subprocess".into(),
            source_url: String::new(),
            platform_command: Vec::new(),
        },
        args: vec!["x".into()],
    };
    p.components[0].post_renderers =
        p.components[0]
            .post_renderers
            .then(&kubepkg_chart::postrender::PostRenderers(vec![
                std::sync::Arc::new(plugin),
            ]));
    let e = compile(&p, &BTreeMap::new(), &charts(&["db"]), &options()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "component db: post-rendered by plugin mine x, which Flux's helm-controller cannot run: give the patches in kubepkg.yaml's postRenderers instead, or use the helm backend (kubepkg apply)"
    );
    assert!(check(&p, &options()).is_err());
}
