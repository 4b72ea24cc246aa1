//! Fleet rollouts (docs/fleet.md) against the local control plane: four fleet clusters (API
//! servers of their own over the first plane's etcd, `kubepkg_testkit::fleet_plane`) registered
//! as kubeconfig Secrets, and the real `kubepkg controller` reconciling a `PackageRollout` of
//! three stages — a canary baked before the next stage, a stage of two at `maxConcurrent: 1`
//! behind a manual approval (`kubepkg rollout promote`), then the rest. A version that fails in
//! the canary halts the rollout there, naming the cluster, and no other cluster gets it.

use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams, PostParams,
};
use kubepkg_testkit::{ControlPlane, TestNamespace};
use serde_json::{Value, json};

use crate::controller::{
    ControllerProcess, archive, assert_event, condition, get, install_crd, source, store_archive,
};
use crate::support::{run, run_ok};

fn rollouts(ns: &TestNamespace) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk(
        kubepkg_fleet::GROUP,
        kubepkg_fleet::VERSION,
        kubepkg_fleet::KIND,
    );
    let ar = ApiResource::from_gvk_with_plural(&gvk, kubepkg_fleet::PLURAL);
    Api::namespaced_with(ns.client().clone(), ns.name(), &ar)
}

/// Installs the PackageRollout CRD and waits until it is served.
pub(crate) async fn install_rollout_crd(ns: &TestNamespace) {
    kubepkg_testkit::apply_yaml(ns.client(), None, kubepkg_fleet::CRD, "kubepkg-tests", true)
        .await
        .expect("the PackageRollout CRD applied");
    let deadline = Instant::now() + Duration::from_secs(60);
    while rollouts(ns).list(&ListParams::default()).await.is_err() {
        assert!(Instant::now() < deadline, "PackageRollouts never served");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The four fleet clusters of the rollouts over two stages and the rest: f1 the canary, f2 and
/// f3 the second stage, f4 in none.
fn four_clusters() -> [(&'static str, Value); 4] {
    [
        ("f1", json!({"stage": "canary"})),
        ("f2", json!({"stage": "second"})),
        ("f3", json!({"stage": "second"})),
        ("f4", json!({})),
    ]
}

/// Where a version of the test package fails.
#[derive(Clone, Copy, PartialEq)]
enum Broken {
    No,
    Everywhere,
    /// In the clusters whose values set `app.broken`.
    WhereValuesSay,
}

/// Package `shop` VERSION, `rollback.safe: SAFE`: one component `app` whose chart holds
/// ConfigMap `shop-app` with the version (ready as soon as it exists, so a cluster of only an
/// API server can hold it); where `broken`, the chart also holds a ConfigMap whose name the API
/// server refuses.
fn fleet_package(root: &Path, version: &str, broken: Broken, safe: bool) {
    let mut objects = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-app\ndata:\n  version: \"{version}\"\n"
    );
    let refused =
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Valid_Name\ndata: {}\n";
    match broken {
        Broken::No => {}
        Broken::Everywhere => objects.push_str(refused),
        Broken::WhereValuesSay => objects.push_str(&format!(
            "{{{{- if .Values.broken }}}}\n{refused}{{{{- end }}}}\n"
        )),
    }
    kubepkg_testkit::charts::write_chart(
        &root.join("app"),
        "app",
        "1.0.0",
        &[("templates/app.yaml", &objects)],
    );
    std::fs::write(
        root.join("kubepkg.yaml"),
        format!("package:\n  name: shop\n  version: {version}\n  rollback: {{safe: {safe}}}\ncomponents:\n- {{name: app, path: app}}\n"),
    )
    .unwrap();
}

/// Registers `plane` as fleet cluster `name` with `labels`: its admin kubeconfig (credentials
/// inline) under key `value` of a Secret labelled `kubepkg.dev/cluster`.
async fn register(home: &TestNamespace, name: &str, plane: &ControlPlane, labels: Value) {
    let kubeconfig = std::fs::read_to_string(plane.kubeconfig()).unwrap();
    register_kubeconfig(home, name, &kubeconfig, labels).await;
}

/// Registers fleet cluster `name` with `labels` by its `kubeconfig` (credentials inline).
async fn register_kubeconfig(home: &TestNamespace, name: &str, kubeconfig: &str, labels: Value) {
    let mut all = json!({kubepkg_fleet::CLUSTER_LABEL: "true"});
    all.as_object_mut()
        .unwrap()
        .extend(labels.as_object().unwrap().clone());
    crate::support::create_secret(
        home,
        json!({
            "metadata": {"name": name, "labels": all},
            "stringData": {"value": kubeconfig},
        }),
    )
    .await;
}

/// A fresh namespace for `test` with the Package and PackageRollout CRDs: the fleet's home.
async fn fleet_home(test: &str) -> TestNamespace {
    let home = TestNamespace::fresh(test).await;
    install_crd(&home).await;
    install_rollout_crd(&home).await;
    home
}

/// The fleet clusters `(name, labels)`, each started (or attached) and registered in `home`.
async fn fleet_clusters(
    home: &TestNamespace,
    clusters: &[(&'static str, Value)],
) -> Vec<(&'static str, ControlPlane, Value)> {
    let mut planes = Vec::new();
    for (name, labels) in clusters {
        let plane = kubepkg_testkit::fleet_plane(name)
            .unwrap_or_else(|e| panic!("fleet cluster {name}: {e}"));
        register(home, name, &plane, labels.clone()).await;
        planes.push((*name, plane, labels.clone()));
    }
    planes
}

/// Versions of package `shop` ([`fleet_package`], each `(version, broken, rollback.safe)`)
/// written under `root` and stored as ConfigMaps `shop-X-Y-Z` of `home` ([`source`] names
/// them).
async fn store_fleet_versions(
    home: &TestNamespace,
    root: &Path,
    versions: &[(&str, Broken, bool)],
) {
    for &(version, broken, safe) in versions {
        let dir = root.join(version);
        fleet_package(&dir, version, broken, safe);
        store_archive(
            home,
            &format!("shop-{}", version.replace('.', "-")),
            archive(&dir),
        )
        .await;
    }
}

/// Creates PackageRollout `shop` of `spec` in `home`.
async fn create_rollout(home: &TestNamespace, spec: Value) {
    let o: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "kubepkg.dev/v1alpha1", "kind": "PackageRollout",
        "metadata": {"name": "shop"}, "spec": spec,
    }))
    .unwrap();
    rollouts(home)
        .create(&PostParams::default(), &o)
        .await
        .expect("PackageRollout created");
}

/// Rolls PackageRollout `shop` of `home` out at `version` (its package's [`source`]).
async fn roll(home: &TestNamespace, version: &str) {
    let patch = json!({"spec": {"package": {"source": source(version)}}});
    rollouts(home)
        .patch("shop", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("PackageRollout patched");
}

async fn rollout(home: &TestNamespace, name: &str) -> Value {
    serde_json::to_value(rollouts(home).get(name).await.expect("the PackageRollout")).unwrap()
}

/// Waits until the rollout's phase is `phase` for its current digest.
async fn wait_phase(
    home: &TestNamespace,
    ctl: &ControllerProcess,
    name: &str,
    phase: &str,
) -> Value {
    wait_rollout(home, ctl, name, &format!("reached {phase}"), |o| {
        let current = o.pointer("/status/observedGeneration") == o.pointer("/metadata/generation");
        current && o.pointer("/status/phase") == Some(&json!(phase))
    })
    .await
}

/// Waits (at most 4 minutes) until PackageRollout `name` is as `done` says (`what`, for the
/// failure); returns it.
async fn wait_rollout(
    home: &TestNamespace,
    ctl: &ControllerProcess,
    name: &str,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        let o = rollout(home, name).await;
        if done(&o) {
            return o;
        }
        assert!(
            Instant::now() < deadline,
            "PackageRollout {name} never {what}: {:#}\ncontroller log:\n{}",
            o["status"],
            ctl.log()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Asserts that every cluster of `planes` holds `version` of `shop` ([`version_in`]).
async fn assert_all_at(
    home: &TestNamespace,
    planes: &[(&str, ControlPlane, Value)],
    version: &str,
) {
    for (name, plane, _) in planes {
        assert_eq!(
            version_in(plane, home.name()).await.as_deref(),
            Some(version),
            "cluster {name}"
        );
    }
}

/// The version ConfigMap `shop-app` holds in `plane`'s namespace `ns`, if it exists.
async fn version_in(plane: &ControlPlane, ns: &str) -> Option<String> {
    let client = plane.client().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client, ns);
    cms.get_opt("shop-app")
        .await
        .unwrap()
        .and_then(|c| c.data)
        .and_then(|d| d.get("version").cloned())
}

fn unix(rfc3339: &str) -> i64 {
    rfc3339
        .parse::<jiff::Timestamp>()
        .map(|t| t.as_second())
        .unwrap_or_else(|e| panic!("{rfc3339}: {e}"))
}

#[tokio::test]
async fn a_rollout_goes_stage_by_stage_and_halts_at_a_failed_canary() {
    let home = fleet_home("fleet").await;
    let started = Instant::now();
    let planes = fleet_clusters(&home, &four_clusters()).await;
    eprintln!(
        "four fleet clusters up (or attached) and registered in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    let tmp = tempfile::tempdir().unwrap();
    let versions = [
        ("1.0.0", Broken::No, false),
        ("2.0.0", Broken::Everywhere, false),
    ];
    store_fleet_versions(&home, tmp.path(), &versions).await;
    let ctl = ControllerProcess::start(&home, "5s", &[]);
    let spec = json!({
        "package": {"source": {"configMapRef": {"name": "shop-1-0-0"}}},
        "stages": [
            {"name": "canary", "selector": {"matchLabels": {"stage": "canary"}}, "maxConcurrent": 1, "bake": "5s"},
            {"name": "second", "selector": {"matchLabels": {"stage": "second"}}, "maxConcurrent": 1, "approval": "Manual"},
            {"name": "rest"},
        ],
    });
    create_rollout(&home, spec.clone()).await;

    // The canary, baked, then the manual gate: no other cluster has a Package yet.
    let o = wait_phase(&home, &ctl, "shop", "AwaitingApproval").await;
    assert_eq!(o.pointer("/status/stage"), Some(&json!("second")));
    let canary = get(&home, "shop-f1").await.expect("the canary's Package");
    assert_eq!(
        condition(&canary, "Ready").map(|c| c.0),
        Some("True".into())
    );
    assert_eq!(
        version_in(&planes[0].1, home.name()).await.as_deref(),
        Some("1.0.0")
    );
    for other in ["shop-f2", "shop-f3", "shop-f4"] {
        assert!(
            get(&home, other).await.is_none(),
            "{other} started before its stage"
        );
    }
    let ready_at = o
        .pointer("/status/stages/0/readyAtUnix")
        .and_then(Value::as_i64)
        .expect("the canary's readyAt");
    let out = run_ok(&home, &["rollout", "status", "shop"]);
    for part in [
        "PHASE: AwaitingApproval",
        "canary",
        "second",
        "f1",
        "f4",
        "1.0.0",
        "yes",
    ] {
        assert!(out.contains(part), "rollout status lacks {part:?}:\n{out}");
    }
    let out = run_ok(&home, &["rollout", "status", "shop", "-o", "json"]);
    let j: Value = serde_json::from_str(&out).expect("JSON");
    let reachable: Vec<bool> = j
        .pointer("/status/clusters")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .map(|c| c["reachable"] == json!(true))
        .collect();
    assert_eq!(reachable, vec![true; 4], "{:#}", j["status"]["clusters"]);

    // `rollout plan`: per stage which clusters change, and the plan in the first that does
    // (f2, which has no Package yet: an install of the package's ConfigMap, in f2 itself).
    let (code, out, err) = run(&home, &["rollout", "plan", "shop"]);
    assert_eq!(code, 0, "{out}{err}");
    for line in [
        "  stage canary: f1 (unchanged)",
        "  stage second: f2 (new), f3 (new)",
        "  stage rest: f4 (new)",
        "The plan in cluster f2 (the first the rollout changes):",
    ] {
        assert!(out.contains(line), "rollout plan lacks {line:?}:\n{out}");
    }
    assert!(out.contains("ConfigMap shop-app"), "{out}");
    let out = run_ok(&home, &["rollout", "plan", "shop", "-o", "json"]);
    let j: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(j["plannedCluster"], json!("f2"));
    assert_eq!(
        j["stages"][1]["clusters"],
        json!([{"name": "f2", "change": "new"}, {"name": "f3", "change": "new"}])
    );
    assert_eq!(j["plan"]["action"], json!("install"), "{:#}", j["plan"]);
    assert!(
        get(&home, "shop-f2").await.is_none(),
        "planning started nothing"
    );
    // Offline, from a file and the package alone (no cluster at all).
    let file = tmp.path().join("rollout.yaml");
    std::fs::write(
        &file,
        serde_json::to_string(&json!({
            "apiVersion": "kubepkg.dev/v1alpha1", "kind": "PackageRollout",
            "metadata": {"name": "shop"}, "spec": spec,
        }))
        .unwrap(),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["rollout", "plan", "shop", "--offline", "-f"])
        .arg(&file)
        .arg("--package")
        .arg(tmp.path().join("1.0.0"))
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env_remove("HELM_NAMESPACE")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "  stage canary: {\"matchLabels\":{\"stage\":\"canary\"}}",
        "  stage rest: every cluster no earlier stage takes",
        "The plan of the package as a first install, with package.values:",
        "ConfigMap shop-app",
    ] {
        assert!(
            text.contains(line),
            "offline rollout plan lacks {line:?}:\n{text}"
        );
    }

    // Approved: the second stage one cluster at a time, then the rest; every cluster at 1.0.0.
    let (code, out, err) = run(&home, &["rollout", "promote", "shop"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("stage second"), "{out}");
    wait_phase(&home, &ctl, "shop", "Succeeded").await;
    assert_all_at(&home, &planes, "1.0.0").await;
    let created = |p: &Value| {
        unix(
            p.pointer("/metadata/creationTimestamp")
                .and_then(Value::as_str)
                .unwrap(),
        )
    };
    let f2 = get(&home, "shop-f2").await.unwrap();
    let f3 = get(&home, "shop-f3").await.unwrap();
    let f4 = get(&home, "shop-f4").await.unwrap();
    // The next stage started only after the canary's bake (timestamps are whole seconds).
    assert!(
        created(&f2) >= ready_at + 5,
        "f2 created {} before the bake ended at {}",
        created(&f2),
        ready_at + 5
    );
    // maxConcurrent 1: f3 started only once f2 was Ready; the rest only after both.
    let f2_ready = unix(&condition_time(&f2, "Ready"));
    assert!(
        created(&f3) >= f2_ready,
        "f3 started ({}) before f2 was Ready ({f2_ready})",
        created(&f3)
    );
    assert!(created(&f4) >= unix(&condition_time(&f3, "Ready")));

    // 2.0.0 fails in the canary: halted there, naming it; no other cluster gets it.
    roll(&home, "2.0.0").await;
    let o = wait_phase(&home, &ctl, "shop", "Halted").await;
    let (code, out, err) = run(&home, &["rollout", "status", "shop", "-w"]);
    assert_eq!(
        code, 4,
        "a Halted rollout exits as UpgradeFailed: {out}{err}"
    );
    assert!(out.contains("PHASE: Halted"), "{out}");
    let message = o
        .pointer("/status/message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    assert!(
        message.contains("cluster f1 of stage canary failed") && message.contains("UpgradeFailed"),
        "{message}"
    );
    assert_eq!(condition(&o, "Stalled").map(|c| c.0), Some("True".into()));
    let canary = get(&home, "shop-f1").await.unwrap();
    assert_eq!(
        condition(&canary, "Ready").map(|c| c.1),
        Some("UpgradeFailed".into())
    );
    let digest = o.pointer("/status/digest").and_then(Value::as_str).unwrap();
    for (name, plane, _) in &planes[1..] {
        let p = get(&home, &format!("shop-{name}")).await.unwrap();
        assert_ne!(
            p.pointer("/metadata/annotations/kubepkg.dev~1rollout-digest")
                .and_then(Value::as_str),
            Some(digest),
            "{name} got the halted version"
        );
        assert_eq!(
            version_in(plane, home.name()).await.as_deref(),
            Some("1.0.0"),
            "cluster {name}"
        );
    }
    assert_event(&home, "shop", "Halted", "f1").await;
}

/// The last transition time of condition `type_`.
fn condition_time(obj: &Value, type_: &str) -> String {
    obj.pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
        .and_then(|c| c["lastTransitionTime"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// What a rollout's status shows of its steps: the generation it is for, its phase and each
/// stage's and cluster's state.
fn progress(o: &Value) -> String {
    let states = |key: &str| -> Vec<String> {
        o.pointer(&format!("/status/{key}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|x| format!("{}={}", x["name"], x["state"]))
            .collect()
    };
    format!(
        "{} {} {:?} {:?}",
        o.pointer("/status/observedGeneration")
            .unwrap_or(&Value::Null),
        o.pointer("/status/phase").unwrap_or(&Value::Null),
        states("stages"),
        states("clusters")
    )
}

/// `kubepkg history PACKAGE -o json` in `plane`'s namespace `ns`: its package revisions.
fn history_in(plane: &ControlPlane, ns: &str, package: &str) -> Vec<Value> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args(["history", package, "-o", "json", "-n", ns, "--kubeconfig"])
        .arg(plane.kubeconfig())
        .env_remove("KUBECONFIG")
        .output()
        .expect("kubepkg history");
    let text = crate::support::ok(out);
    match serde_json::from_str::<Value>(&text).expect("history JSON") {
        Value::Array(revisions) => revisions,
        other => panic!("history is not a list: {other}"),
    }
}

/// A controller SIGKILLed at random points while rollouts run (a seeded sequence, printed, at
/// least 20 kills while a rollout is under way), each time replaced by a new process: every
/// rollout still ends Succeeded; each cluster completed each version once and in order (a
/// revision cut short is resumed by one of the same version); for every version, each cluster
/// was done before the next in stage order started (and the second stage's two one at a time).
#[tokio::test]
async fn a_rollout_resumes_after_its_controller_is_killed_anywhere() {
    let home = fleet_home("fleet-kill").await;
    let planes = fleet_clusters(&home, &four_clusters()).await;
    // More versions than 20 kills need at about three kills per version: the loop stops at
    // 20, so the spare ones cost nothing when the controller is slow enough to be hit often.
    let versions: Vec<String> = (1..=16).map(|v| format!("{v}.0.0")).collect();
    let tmp = tempfile::tempdir().unwrap();
    let stored: Vec<_> = versions
        .iter()
        .map(|v| (v.as_str(), Broken::No, false))
        .collect();
    store_fleet_versions(&home, tmp.path(), &stored).await;
    create_rollout(
        &home,
        json!({"package": {"source": source("1.0.0")},
               "stages": [{"name": "canary", "selector": {"matchLabels": {"stage": "canary"}}},
                          {"name": "second", "selector": {"matchLabels": {"stage": "second"}}, "maxConcurrent": 1},
                          {"name": "rest"}]}),
    )
    .await;
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    eprintln!("kill sequence seed {seed}");
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // Up to 0.4 s after a step: a step takes about that long, so most kills land inside
        // the next one.
        (seed >> 33) % 400
    };
    let mut kills = 0;
    let mut rolled = Vec::new();
    for v in &versions {
        if v != "1.0.0" {
            roll(&home, v).await;
        }
        rolled.push(v.clone());
        // Each process runs until the rollout shows a step it made (a cluster's or stage's
        // state, or the phase, changed), then for a random moment more, and is killed there.
        let mut seen = progress(&rollout(&home, "shop").await);
        loop {
            let ctl = ControllerProcess::start(&home, "2s", &[]);
            let deadline = Instant::now() + Duration::from_secs(120);
            loop {
                let now = progress(&rollout(&home, "shop").await);
                if now != seen {
                    seen = now;
                    break;
                }
                if Instant::now() > deadline {
                    let mut packages = String::new();
                    for (name, _, _) in &planes {
                        let p = get(&home, &format!("shop-{name}"))
                            .await
                            .unwrap_or_default();
                        packages.push_str(&format!(
                            "\nshop-{name}: generation {} {} {:#}",
                            p["metadata"]["generation"], p["metadata"]["annotations"], p["status"]
                        ));
                    }
                    panic!("no progress for 120 s: {seen}{packages}\n{}", ctl.log());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            tokio::time::sleep(Duration::from_millis(next())).await;
            let done = |o: &Value| {
                o.pointer("/status/observedGeneration") == o.pointer("/metadata/generation")
                    && o.pointer("/status/phase") == Some(&json!("Succeeded"))
            };
            if done(&rollout(&home, "shop").await) {
                break;
            }
            ctl.assert_running();
            drop(ctl); // SIGKILL
            // It may have finished the version between that read and the kill: then no next
            // process has a step left to show.
            let o = rollout(&home, "shop").await;
            if done(&o) {
                break;
            }
            kills += 1;
            seen = progress(&o);
        }
        if kills >= 20 {
            break;
        }
    }
    assert!(
        kills >= 20,
        "only {kills} kills mid-rollout over {} versions",
        rolled.len()
    );
    eprintln!("{kills} kills over versions {rolled:?}");
    let ctl = ControllerProcess::start(&home, "2s", &[]);
    wait_phase(&home, &ctl, "shop", "Succeeded").await;
    // Per cluster: each version completed once, in order; a revision cut short by a kill is
    // superseded by the one that finished the same version (resumed, not skipped or redone).
    // `spans[cluster][version]`: the first and last time a revision of that version was written.
    let mut spans: Vec<Vec<(jiff::Timestamp, jiff::Timestamp)>> = Vec::new();
    for (name, plane, _) in &planes {
        let history = history_in(plane, home.name(), &format!("shop-{name}"));
        let field = |r: &Value, k: &str| r[k].as_str().unwrap_or_default().to_string();
        let interrupted =
            |r: &Value| field(r, "description").starts_with("interrupted before completion");
        let completed: Vec<String> = history
            .iter()
            .filter(|r| !interrupted(r))
            .map(|r| field(r, "version"))
            .collect();
        assert_eq!(completed, rolled, "cluster {name}: {history:#?}");
        for (i, r) in history.iter().enumerate() {
            if interrupted(r) {
                let next = history.get(i + 1).map(|n| field(n, "version"));
                assert_eq!(
                    next,
                    Some(field(r, "version")),
                    "cluster {name}: an interrupted revision not resumed: {history:#?}"
                );
            }
        }
        spans.push(
            rolled
                .iter()
                .map(|v| {
                    let times: Vec<jiff::Timestamp> = history
                        .iter()
                        .filter(|r| field(r, "version") == *v)
                        .map(|r| field(r, "lastDeployed").parse().unwrap())
                        .collect();
                    (*times.iter().min().unwrap(), *times.iter().max().unwrap())
                })
                .collect(),
        );
    }
    // Stage order, and one at a time in the second stage: for every version, f1 (canary) was
    // done before f2 started, f2 before f3 (maxConcurrent 1), f3 before f4 (the rest).
    for (i, v) in rolled.iter().enumerate() {
        for c in 1..planes.len() {
            assert!(
                spans[c - 1][i].1 < spans[c][i].0,
                "version {v}: {} ran until {} but {} started at {}",
                planes[c - 1].0,
                spans[c - 1][i].1,
                planes[c].0,
                spans[c][i].0
            );
        }
    }
}

/// Each cluster's `(name, state)` in a rollout's status.
fn cluster_states(o: &Value) -> Vec<(String, String)> {
    o.pointer("/status/clusters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_string(),
                c["state"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The digest annotation of the Package a rollout gave `cluster` (`None`: no Package).
async fn given(home: &TestNamespace, cluster: &str) -> Option<String> {
    get(home, &format!("shop-{cluster}"))
        .await?
        .pointer("/metadata/annotations/kubepkg.dev~1rollout-digest")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// `onFailure: Rollback` over three clusters (canary f1; f2 behind a manual gate, whose values
/// break the versions that read them; the rest f3):
/// - 1.1.0 (`rollback.safe: true`) fails in the canary: the canary goes back to 1.0.0, the
///   rollout ends RolledBack, no other cluster got it;
/// - 2.0.0 (safe) passes the canary and fails in f2: both go back to 1.0.0 (RolledBack);
/// - 3.0.0 (`rollback.safe: false`) passes the canary and fails in f2: nothing is rolled back,
///   the rollout is Halted naming 3.0.0, the canary keeps it;
/// - 4.0.0 aborted at the gate: Aborted, and `promote` refuses;
/// - `kubepkg rollout history` lists the five versions with how each ended (and completes the
///   rollout's name);
/// - the controller's `/metrics` count the clusters by state and time each stage.
#[tokio::test]
async fn a_failure_rolls_back_the_clusters_given_the_version_only_when_every_one_may() {
    let home = fleet_home("fleet-back").await;
    let planes = fleet_clusters(
        &home,
        &[
            ("f1", json!({"stage": "canary"})),
            ("f2", json!({"stage": "second"})),
            ("f3", json!({})),
        ],
    )
    .await;
    let versions = [
        ("1.0.0", Broken::No, true),
        ("1.1.0", Broken::Everywhere, true),
        ("2.0.0", Broken::WhereValuesSay, true),
        ("3.0.0", Broken::WhereValuesSay, false),
        ("4.0.0", Broken::No, true),
    ];
    let tmp = tempfile::tempdir().unwrap();
    store_fleet_versions(&home, tmp.path(), &versions).await;
    create_rollout(
        &home,
        json!({"package": {"source": source("1.0.0")},
               "clusterValues": [{"selector": {"matchLabels": {"stage": "second"}}, "values": {"app": {"broken": true}}}],
               "stages": [{"name": "canary", "selector": {"matchLabels": {"stage": "canary"}}},
                          {"name": "second", "selector": {"matchLabels": {"stage": "second"}}, "approval": "Manual"},
                          {"name": "rest"}],
               "onFailure": "Rollback"}),
    )
    .await;
    let port = crate::controller::free_port();
    let ctl = ControllerProcess::start(
        &home,
        "5s",
        &["--metrics-bind-address", &format!("127.0.0.1:{port}")],
    );
    let metrics = || {
        let (code, text) = crate::controller::http_get(port, "/metrics");
        assert_eq!(code, 200, "{text}");
        text
    };
    let promote = || {
        let (code, out, err) = run(&home, &["rollout", "promote", "shop"]);
        assert_eq!(code, 0, "{out}{err}");
    };
    let message = |o: &Value| {
        o.pointer("/status/message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let digest = |o: &Value| {
        o.pointer("/status/digest")
            .and_then(Value::as_str)
            .unwrap()
            .to_string()
    };
    wait_phase(&home, &ctl, "shop", "AwaitingApproval").await;
    promote();
    wait_phase(&home, &ctl, "shop", "Succeeded").await;
    let rollout_label = format!("rollout=\"{}/shop\"", home.name());
    let text = metrics();
    for stage in ["canary", "second", "rest"] {
        let line = format!(
            "kubepkg_rollout_stage_duration_seconds_count{{{rollout_label},stage=\"{stage}\"}}"
        );
        assert!(text.contains(&line), "{line} not in /metrics:\n{text}");
    }

    // 1.1.0 fails in the canary: it goes back to 1.0.0; no other cluster got 1.1.0.
    roll(&home, "1.1.0").await;
    let o = wait_phase(&home, &ctl, "shop", "RolledBack").await;
    let d = digest(&o);
    assert!(message(&o).contains("f1"), "{}", message(&o));
    assert_eq!(condition(&o, "Stalled").map(|c| c.0), Some("True".into()));
    let canary = get(&home, "shop-f1").await.unwrap();
    assert_eq!(
        canary.pointer("/metadata/annotations/kubepkg.dev~1rolled-back-from"),
        Some(&json!(d))
    );
    assert_eq!(canary.pointer("/spec/source"), Some(&source("1.0.0")));
    // The canary runs 1.0.0 again (its Package keeps showing its own automatic rollback:
    // Ready=False RolledBack at 1.0.0); the others never left it.
    let states = cluster_states(&o);
    assert_eq!(
        states,
        [("f1", "RolledBack"), ("f2", "Pending"), ("f3", "Pending")]
            .map(|(c, s)| (c.to_string(), s.to_string()))
            .to_vec()
    );
    assert_all_at(&home, &planes, "1.0.0").await;
    for other in ["f2", "f3"] {
        assert_ne!(
            given(&home, other).await,
            Some(d.clone()),
            "{other} got 1.1.0"
        );
    }
    let text = metrics();
    for line in [
        format!("kubepkg_rollout_clusters{{{rollout_label},state=\"RolledBack\"}} 1"),
        format!("kubepkg_rollout_clusters{{{rollout_label},state=\"Pending\"}} 2"),
    ] {
        assert!(text.contains(&line), "{line} not in /metrics:\n{text}");
    }

    // 2.0.0 passes the canary and fails in f2: both go back to 1.0.0; f3 never got it.
    // `rollout status --watch` follows it (plain lines on a pipe) until it rests at the gate.
    roll(&home, "2.0.0").await;
    let (code, out, err) = run(&home, &["rollout", "status", "shop", "--watch"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PHASE: AwaitingApproval"), "{out}");
    assert!(
        err.lines()
            .last()
            .is_some_and(|l| l.starts_with("AwaitingApproval: stage second waits for approval")),
        "{err}"
    );
    assert!(!err.contains('\x1b'), "{err}");
    wait_phase(&home, &ctl, "shop", "AwaitingApproval").await;
    assert_eq!(
        version_in(&planes[0].1, home.name()).await.as_deref(),
        Some("2.0.0")
    );
    promote();
    let o = wait_phase(&home, &ctl, "shop", "RolledBack").await;
    assert!(message(&o).contains("f1, f2"), "{}", message(&o));
    assert_eq!(
        cluster_states(&o),
        [
            ("f1", "RolledBack"),
            ("f2", "RolledBack"),
            ("f3", "Pending")
        ]
        .map(|(c, s)| (c.to_string(), s.to_string()))
        .to_vec()
    );
    assert_all_at(&home, &planes, "1.0.0").await;
    assert_ne!(given(&home, "f3").await, Some(digest(&o)), "f3 got 2.0.0");
    assert_event(&home, "shop", "RollingBack", "rolling back f1, f2").await;

    // 3.0.0 (rollback.safe: false) passes the canary and fails in f2: no cluster may go back,
    // so none does; halted, naming the version that forbids it.
    roll(&home, "3.0.0").await;
    wait_phase(&home, &ctl, "shop", "AwaitingApproval").await;
    promote();
    let o = wait_phase(&home, &ctl, "shop", "Halted").await;
    let m = message(&o);
    assert!(
        m.contains("cluster f2 failed")
            && m.contains("no cluster is rolled back")
            && m.contains("3.0.0 (revision")
            && m.contains("declares rollback.safe: false"),
        "{m}"
    );
    assert_eq!(given(&home, "f1").await, Some(digest(&o)));
    // `--watch` on a terminal draws the table live and gives way to the status on standard
    // output: one table on the screen, no plain lines.
    let mut cmd = crate::support::kubepkg(&home, &["rollout", "status", "shop", "--watch"]);
    for var in ["CI", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        cmd.env_remove(var);
    }
    cmd.env("TERM", "xterm-256color");
    let (code, rows) = crate::terminal::OnTerminal::spawn(cmd).finish();
    assert_eq!(code, 4, "{rows:#?}");
    assert_eq!(
        rows.iter()
            .filter(|r| r.starts_with("ROLLOUT: shop"))
            .count(),
        1,
        "{rows:#?}"
    );
    assert!(
        rows.iter().any(|r| r.starts_with("PHASE: Halted")),
        "{rows:#?}"
    );
    assert!(!rows.iter().any(|r| r.starts_with("Halted: ")), "{rows:#?}");
    assert_eq!(
        version_in(&planes[0].1, home.name()).await.as_deref(),
        Some("3.0.0")
    );
    assert_event(&home, "shop", "Halted", "3.0.0").await;

    // 4.0.0 aborted at the gate: nothing starts, and promote says why it will not.
    roll(&home, "4.0.0").await;
    wait_phase(&home, &ctl, "shop", "AwaitingApproval").await;
    let (code, out, err) = run(&home, &["rollout", "abort", "shop"]);
    assert_eq!(code, 0, "{out}{err}");
    let o = wait_phase(&home, &ctl, "shop", "Aborted").await;
    assert_eq!(condition(&o, "Stalled").map(|c| c.0), Some("True".into()));
    let (code, _, err) = run(&home, &["rollout", "promote", "shop"]);
    assert_ne!(code, 0);
    assert!(err.contains("aborted"), "{err}");
    assert_ne!(given(&home, "f2").await, Some(digest(&o)));

    // The history: each version once, with how it ended.
    let out = run_ok(&home, &["rollout", "history", "shop", "-o", "json"]);
    let h: Vec<Value> = serde_json::from_str(&out).expect("history JSON");
    let ended: Vec<(String, String)> = h
        .iter()
        .map(|e| {
            (
                e["version"].as_str().unwrap_or("?").to_string(),
                e["phase"].as_str().unwrap_or("?").to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("1.0.0", "Succeeded"),
        ("1.1.0", "RolledBack"),
        ("2.0.0", "RolledBack"),
        ("3.0.0", "Halted"),
        ("4.0.0", "Aborted"),
    ]
    .iter()
    .map(|(v, p)| (v.to_string(), p.to_string()))
    .collect();
    assert_eq!(ended, want, "{h:#?}");
    let out = run_ok(&home, &["rollout", "history", "shop"]);
    assert!(
        out.starts_with("DIGEST") && out.contains("RolledBack"),
        "{out}"
    );
    // The rollout verbs complete rollout names.
    let kubeconfig = home.plane().kubeconfig().display().to_string();
    assert_eq!(
        crate::conventions::values(
            &["kubepkg", "rollout", "history", "-n", home.name(), "sh"],
            &[("KUBECONFIG", kubeconfig.as_str())]
        ),
        ["shop"]
    );
}

/// A target cluster whose API server stops answering mid-stage (a relay in front of it taken
/// down): that cluster waits, the rollout's message and Reconciling condition name it and its
/// status says it is unreachable, the other cluster of the stage goes on (the stage has no
/// `maxConcurrent`); once it answers again the cluster completes and the rollout Succeeds.
#[tokio::test]
async fn a_target_that_stops_answering_mid_stage_waits_and_completes_when_it_returns() {
    let home = fleet_home("fleet-stop").await;
    let f1 = kubepkg_testkit::fleet_plane("f1").unwrap();
    let f2 = kubepkg_testkit::fleet_plane("f2").unwrap();
    let f3 = kubepkg_testkit::fleet_plane("f3").unwrap();
    let relay = kubepkg_testkit::relay::Relay::start(&f2)
        .await
        .expect("relay to f2");
    register(&home, "f1", &f1, json!({"stage": "canary"})).await;
    register_kubeconfig(
        &home,
        "f2",
        relay.kubeconfig_text(),
        json!({"stage": "second"}),
    )
    .await;
    register(&home, "f3", &f3, json!({"stage": "second"})).await;
    let tmp = tempfile::tempdir().unwrap();
    store_fleet_versions(&home, tmp.path(), &[("1.0.0", Broken::No, true)]).await;
    create_rollout(
        &home,
        json!({"package": {"source": source("1.0.0")},
               "stages": [{"name": "canary", "selector": {"matchLabels": {"stage": "canary"}}},
                          {"name": "second", "selector": {"matchLabels": {"stage": "second"}}, "approval": "Manual"}]}),
    )
    .await;
    let ctl = ControllerProcess::start(&home, "5s", &[]);
    wait_phase(&home, &ctl, "shop", "AwaitingApproval").await;
    relay.set_up(false);
    let (code, out, err) = run(&home, &["rollout", "promote", "shop"]);
    assert_eq!(code, 0, "{out}{err}");
    // f2 waits, named; f3 (same stage) is done meanwhile.
    let entry = |o: &Value, list: &str, key: &str, value: &str| {
        o.pointer(list)
            .and_then(Value::as_array)
            .and_then(|items| items.iter().find(|c| c[key] == value))
            .cloned()
    };
    let o = wait_rollout(
        &home,
        &ctl,
        "shop",
        "showed f2 waiting for its API server",
        |o| {
            let message = o
                .pointer("/status/message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let f3 = entry(o, "/status/clusters", "name", "f3");
            message.contains("f2 (TargetUnreachable") && f3.is_some_and(|c| c["state"] == "Ready")
        },
    )
    .await;
    assert_eq!(o.pointer("/status/phase"), Some(&json!("Progressing")));
    let reconciling = entry(&o, "/status/conditions", "type", "Reconciling").unwrap_or_default();
    assert!(
        reconciling["message"]
            .as_str()
            .unwrap_or_default()
            .contains(&relay.server()),
        "{reconciling:#}"
    );
    let f2_status = entry(&o, "/status/clusters", "name", "f2").unwrap();
    assert_eq!(f2_status["reachable"], json!(false), "{f2_status:#}");
    assert_eq!(version_in(&f3, home.name()).await.as_deref(), Some("1.0.0"));

    // Back: f2 completes, nothing lost.
    relay.set_up(true);
    wait_phase(&home, &ctl, "shop", "Succeeded").await;
    for (name, plane) in [("f1", &f1), ("f2", &f2), ("f3", &f3)] {
        assert_eq!(
            version_in(plane, home.name()).await.as_deref(),
            Some("1.0.0"),
            "cluster {name}"
        );
    }
}
