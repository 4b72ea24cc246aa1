//! Argo CD's CRDs, from the real Argo CD build (`testenv/argocd/build.sh`), are served by the
//! local control plane: installing them twice is harmless, and an AppProject and an
//! Application that Argo CD's own schema accepts are stored as written.

use std::time::Duration;

use kube::api::Api;
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kubepkg_testkit::{TestNamespace, argocd};

#[tokio::test]
async fn argocd_crds_serve_applications() {
    let ns = TestNamespace::fresh("argocd_crds").await;
    let mut names = argocd::install_crds(&ns).await.expect("CRDs installed");
    names.sort();
    assert_eq!(
        names,
        [
            "applications.argoproj.io",
            "applicationsets.argoproj.io",
            "appprojects.argoproj.io"
        ]
    );
    argocd::install_crds(&ns)
        .await
        .expect("a second install is a no-op");
    for name in ["argocd-application-controller", "argocd-repo-server"] {
        assert!(argocd::component(name).expect("built").exists(), "{name}");
    }

    let name = ns.name();
    ns.apply_yaml(&format!(
        r#"
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {{name: default}}
spec:
  sourceRepos: ['*']
  destinations: [{{server: '*', namespace: '{name}'}}]
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: web}}
spec:
  project: default
  source: {{repoURL: 'file:///nowhere.git', targetRevision: main, path: .}}
  destination: {{server: 'https://kubernetes.default.svc', namespace: '{name}'}}
"#
    ))
    .await
    .expect("Argo CD objects applied");
    let gvk = GroupVersionKind::gvk("argoproj.io", "v1alpha1", "Application");
    let apps: Api<DynamicObject> =
        Api::namespaced_with(ns.client().clone(), name, &ApiResource::from_gvk(&gvk));
    let app = tokio::time::timeout(Duration::from_secs(10), apps.get("web"))
        .await
        .expect("in time")
        .expect("the Application is stored");
    assert_eq!(app.data["spec"]["source"]["targetRevision"], "main");
    assert_eq!(app.data["spec"]["destination"]["namespace"], name);
}
