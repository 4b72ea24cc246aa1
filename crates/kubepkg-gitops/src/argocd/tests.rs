use super::*;
use crate::test_support::{api_replicas, charts, names, object, package, shop};

fn options() -> Options {
    Options {
        instance: "shop".into(),
        namespace: "apps".into(),
        argocd_namespace: "argocd".into(),
        project: "default".into(),
        repository: "oci://registry.example.com/charts/".into(),
        insecure: false,
    }
}

fn app<'a>(c: &'a Compiled, name: &str) -> &'a Value {
    object(&c.objects, "Application", name)
}

/// The shop package compiled with `opts`, no values and the charts of db, api and web.
fn compile_shop(opts: &Options) -> Result<Compiled, CompileError> {
    let (_dir, p) = package(&shop(""));
    compile(&p, &BTreeMap::new(), &charts(&["db", "api", "web"]), opts)
}

#[test]
fn components_become_applications_in_kubepkgs_order_with_sync_waves() {
    let (_dir, p) = package(&shop(""));
    let values = api_replicas(3);
    let c = compile(&p, &values, &charts(&["db", "api", "web"]), &options()).unwrap();
    // The dependency order, not the manifest's; no repository Secret for an HTTPS registry.
    assert_eq!(
        names(&c.objects),
        [
            "Application shop-db",
            "Application shop-api",
            "Application shop-web"
        ]
    );
    for (wave, name) in ["shop-db", "shop-api", "shop-web"].iter().enumerate() {
        let a = app(&c, name);
        assert_eq!(a["apiVersion"], "argoproj.io/v1alpha1");
        assert_eq!(a["metadata"]["namespace"], "argocd");
        assert_eq!(
            a["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"],
            wave.to_string()
        );
        assert_eq!(
            a["metadata"]["finalizers"],
            json!(["resources-finalizer.argocd.argoproj.io"])
        );
        assert_eq!(a["spec"]["project"], "default");
        // No automated sync: nothing happens until an operation is set.
        assert_eq!(a["spec"]["syncPolicy"].get("automated"), None);
        assert_eq!(
            a["spec"]["destination"]["server"],
            "https://kubernetes.default.svc"
        );
        assert_eq!(a["metadata"]["labels"]["kubepkg.dev/version"], "2.0.0");
    }
    let api = app(&c, "shop-api");
    assert_eq!(
        api["spec"]["source"],
        json!({
            "repoURL": "registry.example.com/charts",
            "chart": "api-chart",
            "targetRevision": "1.2.3",
            "helm": {"releaseName": "shop-api", "valuesObject": {"replicas": 3}},
        })
    );
    assert_eq!(api["spec"]["destination"]["namespace"], "apps");
    assert_eq!(api["spec"].get("syncPolicy"), None);
    // A component with install.namespace is deployed there, the namespace created.
    let db = app(&c, "shop-db");
    assert_eq!(db["spec"]["destination"]["namespace"], "data");
    assert_eq!(
        db["spec"]["syncPolicy"],
        json!({"syncOptions": ["CreateNamespace=true"]})
    );
    assert_eq!(
        db["spec"]["source"]["helm"],
        json!({"releaseName": "shop-db"})
    );
    // What Argo CD is not told is said: the rollback policy, the hook, the readyWhen.
    assert_eq!(c.notes.len(), 3, "{:?}", c.notes);
    assert!(
        c.notes[0].starts_with("rollback.safe: Argo CD never rolls"),
        "{:?}",
        c.notes
    );
    assert!(
        c.notes[1].starts_with("check: a hook component"),
        "{:?}",
        c.notes
    );
    assert!(
        c.notes[2].starts_with(
            "api: readyWhen Certificate api-tls Ready=True is checked by kubepkg only"
        ),
        "{:?}",
        c.notes
    );
}

#[test]
fn a_plain_http_registry_gets_an_oci_helm_repository_secret_first() {
    let mut opts = options();
    opts.insecure = true;
    let c = compile_shop(&opts).unwrap();
    let secret = &c.objects[0];
    assert_eq!(secret["kind"], "Secret");
    assert_eq!(secret["metadata"]["name"], "shop-charts");
    assert_eq!(secret["metadata"]["namespace"], "argocd");
    assert_eq!(
        secret["metadata"]["labels"]["argocd.argoproj.io/secret-type"],
        "repository"
    );
    assert_eq!(
        secret["stringData"],
        json!({
            "name": "shop-charts",
            "type": "helm",
            "url": "registry.example.com/charts",
            "enableOCI": "true",
            "insecureOCIForceHttp": "true",
        })
    );
    assert_eq!(c.objects.len(), 4);
}

/// A chart known by digest is Argo CD's native OCI source (Argo CD's OCI user guide: `repoURL`
/// `oci://` + registry + repository, `targetRevision` a tag or digest, `path: .` for a Helm
/// chart), and a plain-HTTP registry gets a credential template (`repo-creds`, matched by URL
/// prefix) for every chart under the repository.
#[test]
fn a_chart_known_by_digest_is_pinned_as_a_native_oci_source() {
    let (_dir, p) = package(&shop(""));
    let mut opts = options();
    opts.insecure = true;
    let mut ch = charts(&["db", "api", "web"]);
    ch.get_mut("db").unwrap().digest = Some("sha256:abc".into());
    let c = compile(&p, &BTreeMap::new(), &ch, &opts).unwrap();
    let kinds: Vec<(&str, &str)> = c
        .objects
        .iter()
        .map(|o| {
            (
                o["kind"].as_str().unwrap(),
                o["metadata"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("Secret", "shop-charts"),
            ("Secret", "shop-chart-creds"),
            ("Application", "shop-db"),
            ("Application", "shop-api"),
            ("Application", "shop-web"),
        ]
    );
    let creds = &c.objects[1];
    assert_eq!(
        creds["metadata"]["labels"]["argocd.argoproj.io/secret-type"],
        "repo-creds"
    );
    assert_eq!(
        creds["stringData"],
        json!({
            "type": "oci",
            "url": "oci://registry.example.com/charts",
            "insecureOCIForceHttp": "true",
        })
    );
    let db = &c.objects[2]["spec"]["source"];
    assert_eq!(
        db["repoURL"], "oci://registry.example.com/charts/db-chart",
        "{db}"
    );
    assert_eq!(db["targetRevision"], "sha256:abc", "{db}");
    assert_eq!(db["path"], ".", "{db}");
    assert!(db.get("chart").is_none(), "{db}");
    assert_eq!(db["helm"]["releaseName"], "shop-db", "{db}");
    assert_eq!(target_revision(&ch["db"]), "sha256:abc");
    let api = &c.objects[3]["spec"]["source"];
    assert_eq!(api["repoURL"], "registry.example.com/charts", "{api}");
    assert_eq!(api["chart"], "api-chart", "{api}");
    assert_eq!(target_revision(&ch["api"]), ch["api"].version);
    assert!(
        !c.notes.iter().any(|n| n.contains("digest")),
        "{:?}",
        c.notes
    );
}

#[test]
fn the_repository_must_be_oci_and_every_chart_known() {
    let (_dir, p) = package(&shop(""));
    let mut opts = options();
    opts.repository = "https://charts.example.com".into();
    let e = compile_shop(&opts).unwrap_err();
    assert_eq!(
        e,
        CompileError::NotOciForArgoCd("https://charts.example.com".into())
    );
    assert!(e.to_string().contains("Argo CD"), "{e}");
    opts.repository = "oci://".into();
    assert!(compile_shop(&opts).is_err());
    let e = compile(&p, &BTreeMap::new(), &charts(&["db"]), &options()).unwrap_err();
    assert_eq!(e, CompileError::UnknownChart("api".into()));
}

#[test]
fn a_post_rendered_component_is_refused_since_argo_cd_has_no_post_renderer() {
    let (_dir, p) = package(
        "package:\n  name: shop\n  version: 1.0.0\ncomponents:\n  - name: db\n    path: db\n    postRenderers:\n      - kustomize:\n          images:\n            - {name: postgres, newTag: '16'}\n",
    );
    let e = compile(&p, &BTreeMap::new(), &charts(&["db"]), &options()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "component db: post-rendered by kustomize: 0 patches, 1 images, which Argo CD cannot run: Argo CD applies no post-renderer to a Helm source, or use the helm backend (kubepkg apply)"
    );
}
