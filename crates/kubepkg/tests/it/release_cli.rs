//! The release verbs end to end on the local control plane: kubepkg's `list` agrees with
//! real Helm's on the same releases; killing kubepkg in the middle of an upgrade (after the
//! pending record, mid-apply, in a hook, in the readiness wait) never leaves the release
//! stuck: the next command waits for the dead holder's lease to lapse (or takes over at once
//! when it can tell the holder's process is gone), marks the
//! interrupted revision failed and proceeds; `--dry-run=client|server` changes nothing;
//! `.Capabilities` and value types render as Helm renders them against the same cluster;
//! `HELM_DRIVER=configmap` releases are shared with Helm both ways; CRD upgrades that would
//! drop a stored version or unserve a used one are refused.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{blocking_namespace, crashy_chart, kubectl_apply, kubepkg, ok, without_lines};
use kubepkg_testkit::{TestNamespace, helm_binary, helm_command};

fn helm() -> PathBuf {
    helm_version("v3.22.0")
}

fn helm_version(version: &str) -> PathBuf {
    helm_binary(version).expect("helm oracle")
}

fn history(ns: &TestNamespace, name: &str) -> Vec<(u64, String, String)> {
    let out = ok(kubepkg(ns, &["history", name, "-o", "json"])
        .output()
        .unwrap());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["revision"].as_u64().unwrap(),
                h["status"].as_str().unwrap().to_string(),
                h["description"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn list_agrees_with_helm_list() {
    let (_rt, ns) = blocking_namespace("cli-list");
    ok(kubepkg(
        &ns,
        &[
            "install",
            "one",
            &crashy_chart(),
            "--wait",
            "--set",
            "message=hi",
        ],
    )
    .output()
    .unwrap());
    ok(kubepkg(
        &ns,
        &[
            "upgrade",
            "one",
            &crashy_chart(),
            "--wait",
            "--reuse-values",
            "--set",
            "web=ok",
        ],
    )
    .output()
    .unwrap());
    let values: serde_json::Value =
        serde_json::from_str(&ok(kubepkg(&ns, &["get", "values", "one", "-o", "json"])
            .output()
            .unwrap()))
        .unwrap();
    assert_eq!(
        values,
        serde_json::json!({"message": "hi", "web": "ok"}),
        "--reuse-values keeps message"
    );
    let ours: serde_json::Value =
        serde_json::from_str(&ok(kubepkg(&ns, &["list", "-o", "json"]).output().unwrap())).unwrap();
    let theirs = helm_command(&helm(), &ns, &["list", "-o", "json"])
        .output()
        .unwrap();
    let theirs: serde_json::Value = serde_json::from_str(&ok(theirs)).unwrap();
    assert_eq!(ours, theirs, "kubepkg list -o json is helm list -o json");
}

fn wait_for_status(ns: &TestNamespace, name: &str, revision: u64, status: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if history(ns, name)
            .iter()
            .any(|(r, s, _)| *r == revision && s == status)
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "revision {revision} never became {status}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn kill(mut child: Child) {
    child.kill().expect("kill kubepkg");
    let _ = child.wait();
}

/// Where the killed upgrade is when it is killed.
enum CrashAt {
    /// Once revision 2 is recorded `pending-upgrade` (plus two seconds).
    Pending,
    /// When the process reports reaching this `KUBEPKG_FAILPOINT`.
    Failpoint(&'static str),
}

/// `kubectl get -o jsonpath=…` of one object (`None` when it does not exist).
fn kubectl_get(ns: &TestNamespace, kind: &str, name: &str, jsonpath: &str) -> Option<String> {
    let out = ns
        .plane()
        .kubectl()
        .args(["get", kind, name, "-n", ns.name(), "-o"])
        .arg(format!("jsonpath={jsonpath}"))
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn configmap_message(ns: &TestNamespace, name: &str) -> Option<String> {
    kubectl_get(ns, "configmap", name, "{.data.message}")
}

fn crash_and_recover(point: &str, bad: &[&str]) {
    crash_and_recover_at(point, bad, CrashAt::Pending, |_| {});
}

/// Installs `app`, starts an upgrade with `bad` flags, kills it at `at`, runs `crashed`
/// on the state the crash left, then checks the next upgrade recovers: revision 2 failed
/// as interrupted, revision 3 deployed, and the cluster holds revision 3's objects.
fn crash_and_recover_at(point: &str, bad: &[&str], at: CrashAt, crashed: impl Fn(&TestNamespace)) {
    let (_rt, ns) = blocking_namespace(&format!("cli-crash-{point}"));
    ok(kubepkg(&ns, &["install", "app", &crashy_chart(), "--wait"])
        .output()
        .unwrap());
    let mut args = vec![
        "upgrade",
        "app",
        crashy_chart().leak(),
        "--wait",
        "--timeout",
        "10m",
    ];
    args.extend_from_slice(bad);
    let mut cmd = kubepkg(&ns, &args);
    cmd.stdout(Stdio::null());
    let child = match at {
        CrashAt::Pending => {
            let child = cmd.stderr(Stdio::null()).spawn().unwrap();
            wait_for_status(&ns, "app", 2, "pending-upgrade");
            std::thread::sleep(Duration::from_secs(2));
            child
        }
        CrashAt::Failpoint(name) => {
            let mut child = cmd
                .env("KUBEPKG_FAILPOINT", name)
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let stderr = child.stderr.take().unwrap();
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                use std::io::BufRead;
                for line in std::io::BufReader::new(stderr)
                    .lines()
                    .map_while(Result::ok)
                {
                    let _ = tx.send(line);
                }
            });
            let want = format!("failpoint {name} reached");
            let deadline = Instant::now() + Duration::from_secs(120);
            let mut seen = Vec::new();
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match rx.recv_timeout(left) {
                    Ok(line) if line.contains(&want) => break,
                    Ok(line) => seen.push(line),
                    Err(_) => panic!("failpoint {name} never reached; stderr: {seen:#?}"),
                }
            }
            child
        }
    };
    kill(child);
    crashed(&ns);

    // Right after the crash the dead process's lease is still fresh. A kubepkg that can
    // tell the holder's process is gone (same host) takes over at once; otherwise
    // --no-wait-lock refuses, naming the operation in progress, and the next operation
    // waits for the lease to lapse. Either way it recovers revision 2, then upgrades.
    let after = [
        "upgrade",
        "app",
        crashy_chart().leak(),
        "--wait",
        "--set",
        "message=after",
    ];
    let mut first = after.to_vec();
    first.push("--no-wait-lock");
    let first = kubepkg(&ns, &first).output().unwrap();
    if !first.status.success() {
        let err = String::from_utf8_lossy(&first.stderr);
        assert!(
            err.contains("another operation on release \"app\" is in progress"),
            "{err}"
        );
        ok(kubepkg(&ns, &after).output().unwrap());
    }
    let h = history(&ns, "app");
    assert_eq!(h.len(), 3, "{h:?}");
    assert_eq!((h[0].0, h[0].1.as_str()), (1, "superseded"));
    assert_eq!((h[1].0, h[1].1.as_str()), (2, "failed"));
    assert!(h[1].2.contains("interrupted"), "{h:?}");
    assert_eq!((h[2].0, h[2].1.as_str()), (3, "deployed"));
    // The cluster holds revision 3: its values, and every object of its manifest.
    assert_eq!(
        configmap_message(&ns, "app-config").as_deref(),
        Some("after")
    );
    let manifest = ok(kubepkg(&ns, &["get", "manifest", "app"]).output().unwrap());
    for doc in kubepkg_testkit::parse_yaml_objects(&manifest).unwrap() {
        let name = doc.metadata.name.clone().unwrap();
        let kind = doc.types.as_ref().unwrap().kind.clone();
        assert!(
            kubectl_get(&ns, &kind, &name, "{.metadata.name}").is_some(),
            "{kind} {name} of revision 3 missing"
        );
    }
}

#[test]
fn killed_after_the_pending_record_then_recovered() {
    crash_and_recover_at(
        "pending",
        &["--set", "message=never"],
        CrashAt::Failpoint("after-pending"),
        |ns| {
            // Recorded pending, nothing applied yet.
            let h = history(ns, "app");
            assert_eq!(
                h.iter()
                    .map(|(r, s, _)| (*r, s.as_str()))
                    .collect::<Vec<_>>(),
                [(1, "deployed"), (2, "pending-upgrade")]
            );
            assert_eq!(
                configmap_message(ns, "app-config").as_deref(),
                Some("hello")
            );
        },
    );
}

#[test]
fn killed_mid_apply_then_recovered() {
    crash_and_recover_at(
        "apply",
        &["--set", "message=mid"],
        CrashAt::Failpoint("mid-apply"),
        |ns| {
            // The ConfigMap group is applied (revision 2's value), the release still pending.
            assert_eq!(configmap_message(ns, "app-config").as_deref(), Some("mid"));
            let h = history(ns, "app");
            assert_eq!(
                h.last().map(|(r, s, _)| (*r, s.as_str())),
                Some((2, "pending-upgrade"))
            );
        },
    );
}
#[test]
fn killed_in_a_hook_then_recovered() {
    crash_and_recover("hook", &["--set", "hookExitAfter=1h"]);
}

#[test]
fn killed_while_waiting_for_readiness_then_recovered() {
    crash_and_recover("wait", &["--set", "web=unready"]);
}

fn caps_chart() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/charts/caps")
        .display()
        .to_string()
}

/// Kind/name@resourceVersion of everything a release operation could have written.
fn snapshot(ns: &TestNamespace) -> String {
    let out = ns
        .plane()
        .kubectl()
        .args([
            "get",
            "secrets,configmaps,deployments,jobs,leases",
            "-n",
            ns.name(),
            "-o",
            r#"jsonpath={range .items[*]}{.kind}/{.metadata.name}@{.metadata.resourceVersion}{"\n"}{end}"#,
        ])
        .output()
        .unwrap();
    ok(out)
}

fn run_helm_in(bin: &Path, ns: &TestNamespace, driver: &str, args: &[&str]) -> Output {
    helm_command(bin, ns, args)
        .env("HELM_DRIVER", driver)
        .output()
        .unwrap()
}

fn strs(a: &[String]) -> Vec<&str> {
    a.iter().map(String::as_str).collect()
}

#[test]
fn dry_runs_change_nothing() {
    let (_rt, ns) = blocking_namespace("cli-dry-run");
    ok(kubepkg(&ns, &["install", "app", &crashy_chart(), "--wait"])
        .output()
        .unwrap());
    let before = snapshot(&ns);
    assert!(
        before.contains("Secret/sh.helm.release.v1.app.v1@"),
        "{before}"
    );

    for mode in ["--dry-run=server", "--dry-run=client", "--dry-run"] {
        let out = kubepkg(
            &ns,
            &[
                "upgrade",
                "app",
                &crashy_chart(),
                "--set",
                "message=dry",
                mode,
            ],
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let stdout = ok(out);
        for line in [
            "Release \"app\" has been upgraded. Happy Helming!",
            "STATUS: pending-upgrade",
            "REVISION: 2",
            "HOOKS:",
            "# Source: crashy/templates/migrate.yaml",
            "MANIFEST:",
            "  message: \"dry\"",
        ] {
            assert!(stdout.contains(line), "{mode}: no {line:?} in\n{stdout}");
        }
        if mode == "--dry-run=server" {
            assert!(
                stderr.contains("validated ConfigMap \"app-config\"")
                    && stderr.contains("(server dry run)"),
                "{stderr}"
            );
        }
        assert_eq!(snapshot(&ns), before, "{mode} changed the cluster");
    }
    assert_eq!(history(&ns, "app").len(), 1);
    assert_eq!(
        configmap_message(&ns, "app-config").as_deref(),
        Some("hello")
    );

    // An install dry run on the server: revision 1, nothing created.
    let stdout = ok(kubepkg(
        &ns,
        &["install", "other", &crashy_chart(), "--dry-run=server"],
    )
    .output()
    .unwrap());
    assert!(
        stdout.contains("STATUS: pending-install\nREVISION: 1\n"),
        "{stdout}"
    );
    assert_eq!(snapshot(&ns), before);

    // The server rejects what it would reject on a real install; a client dry run does not
    // ask it, and needs no cluster at all.
    let invalid = kubepkg(
        &ns,
        &[
            "install",
            "bad",
            &caps_chart(),
            "--set",
            "invalid=true",
            "--dry-run=server",
        ],
    )
    .output()
    .unwrap();
    assert!(!invalid.status.success());
    let err = String::from_utf8_lossy(&invalid.stderr);
    assert!(
        err.contains("ConfigMap") && err.contains("bad-invalid") && err.contains("is invalid"),
        "{err}"
    );
    let offline = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args([
            "install",
            "bad",
            &caps_chart(),
            "--set",
            "invalid=true",
            "--dry-run",
        ])
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env_remove("HELM_DRIVER")
        .output()
        .unwrap();
    let stdout = ok(offline);
    assert!(
        stdout.contains("STATUS: pending-install") && stdout.contains("bad-invalid"),
        "{stdout}"
    );
    assert_eq!(snapshot(&ns), before);

    // Into a namespace that --create-namespace would create: rendered, its objects reported
    // as not validated, and the namespace still absent.
    let fresh = format!("{}-new", ns.name());
    let out = Command::new(env!("CARGO_BIN_EXE_kubepkg"))
        .args([
            "install",
            "app",
            &crashy_chart(),
            "--create-namespace",
            "--dry-run=server",
        ])
        .args(["-n", &fresh, "--kubeconfig"])
        .arg(ns.plane().kubeconfig())
        .env_remove("KUBECONFIG")
        .env_remove("HELM_DRIVER")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = ok(out);
    assert!(
        stdout.contains(&format!("NAMESPACE: {fresh}\n")),
        "{stdout}"
    );
    assert!(
        stderr.contains("not validated ConfigMap \"app-config\"")
            && stderr.contains(&format!("namespaces \"{fresh}\" not found")),
        "{stderr}"
    );
    let get_ns = ns
        .plane()
        .kubectl()
        .args(["get", "namespace", &fresh])
        .output()
        .unwrap();
    assert!(!get_ns.status.success(), "the dry run created {fresh}");
}

/// `.Capabilities` from the cluster (server version, served API versions including a CRD
/// installed beforehand) and Go's number types render exactly as Helm 4 renders them
/// against the same cluster; the `--dry-run=server` output matches Helm's.
#[test]
fn capabilities_and_dry_run_output_match_helm() {
    let (_rt, ns) = blocking_namespace("cli-caps");
    let group = format!("{}.kubepkg.test", ns.name());
    let crd = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.{group}\nspec:\n  group: {group}\n  scope: Namespaced\n  names: {{kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}\n"
    );
    kubectl_apply(&ns, &crd);
    let crd_name = format!("crd/widgets.{group}");
    assert!(
        ns.plane()
            .kubectl()
            .args([
                "wait",
                "--for=condition=Established",
                &crd_name,
                "--timeout=60s"
            ])
            .output()
            .unwrap()
            .status
            .success()
    );

    let set_group = format!("group={group}");
    let args = [
        "install",
        "caps",
        caps_chart().leak(),
        "--dry-run=server",
        "--set",
        set_group.as_str(),
        "--set",
        "fromSet=10000000",
    ];
    let manifest = |s: &str| s[s.find("MANIFEST:").unwrap()..].to_string();
    // Other tests add CRDs to the shared cluster meanwhile, which changes the API versions the
    // chart prints: the three runs are compared only when kubepkg rendered the same before and
    // after Helm did (then the cluster's APIs did not change between them).
    let (ours, v3, v4) = (0..5)
        .map(|_| {
            let before = ok(kubepkg(&ns, &args).output().unwrap());
            let v3 = ok(run_helm_in(&helm(), &ns, "secret", &args));
            let v4 = ok(run_helm_in(&helm_version("v4.3.1"), &ns, "secret", &args));
            let after = ok(kubepkg(&ns, &args).output().unwrap());
            (before, v3, v4, after)
        })
        .find(|(before, _, _, after)| manifest(before) == manifest(after))
        .map(|(ours, v3, v4, _)| (ours, v3, v4))
        .expect("the cluster's API versions changed during each of 5 attempts");
    // The release header as Helm 3 prints it (Helm 4 adds a DESCRIPTION line) …
    // Without the LAST DEPLOYED line (the only one that differs between two runs).
    let header = |s: &str| without_lines(&s[..s.find("HOOKS:").unwrap()], "LAST DEPLOYED:");
    assert_eq!(header(&ours), header(&v3), "kubepkg vs helm 3");
    // … and the manifest and notes byte for byte as Helm 4 renders them (Helm 3 trims
    // the manifest's final newline).
    assert_eq!(manifest(&ours), manifest(&v4), "kubepkg vs helm 4");
    for line in [
        "hasWidgetKind: \"true\"",
        "hasWidgetVersion: \"true\"",
        "hasGadget: \"false\"",
        "hasRemovedBeta: \"false\"",
        "fromSet: \"10000000\"",
        "typeFromSet: \"int64\"",
        "fromFile: \"1e+06\"",
        "typeFromFile: \"float64\"",
    ] {
        assert!(ours.contains(line), "no {line:?} in\n{ours}");
    }

    // `template --dry-run=server` renders against the cluster too, as `helm template`.
    let tpl = [
        "template",
        "t",
        caps_chart().leak(),
        "--dry-run=server",
        "--set",
        set_group.as_str(),
    ];
    let ours = ok(kubepkg(&ns, &tpl).output().unwrap());
    let theirs = ok(run_helm_in(&helm_version("v4.3.1"), &ns, "secret", &tpl));
    assert!(ours.contains("hasWidgetKind: \"true\""), "{ours}");
    assert_eq!(ours, theirs, "kubepkg template --dry-run=server vs helm 4");

    // Values reused from a stored release went through JSON: Helm reads every number back
    // as float64, so a reused `--set fromSet=10000000` renders `1e+07`. Same on both sides.
    let chart = caps_chart();
    let install = |name: &'static str| {
        let set_from = "fromSet=10000000";
        vec![
            "install",
            name,
            chart.as_str(),
            "--set",
            set_group.as_str(),
            "--set",
            set_from,
        ]
        .into_iter()
        .map(str::to_string)
        .collect::<Vec<_>>()
    };
    let reuse = |name: &'static str| {
        [
            "upgrade",
            name,
            chart.as_str(),
            "--reuse-values",
            "--dry-run=server",
        ]
        .into_iter()
        .map(str::to_string)
        .collect::<Vec<_>>()
    };
    let helm4 = helm_version("v4.3.1");
    ok(kubepkg(&ns, &strs(&install("ours"))).output().unwrap());
    ok(run_helm_in(
        &helm4,
        &ns,
        "secret",
        &strs(&install("theirs")),
    ));
    let ours = ok(kubepkg(&ns, &strs(&reuse("ours"))).output().unwrap());
    let theirs = ok(run_helm_in(&helm4, &ns, "secret", &strs(&reuse("theirs"))));
    assert!(
        ours.contains("fromSet: \"1e+07\"") && ours.contains("typeFromSet: \"float64\""),
        "{ours}"
    );
    assert_eq!(
        manifest(&ours).replace("ours", "NAME"),
        manifest(&theirs).replace("theirs", "NAME"),
        "reused values render as Helm 4 renders them"
    );
    let _ = ns.plane().kubectl().args(["delete", &crd_name]).output();
}

#[test]
fn configmap_driver_is_shared_with_helm() {
    let (_rt, ns) = blocking_namespace("cli-configmap");
    let helm = helm();
    let cm = |args: &[&str]| {
        let mut c = kubepkg(&ns, args);
        c.env("HELM_DRIVER", "configmap");
        ok(c.output().unwrap())
    };
    let helm_ok = |args: &[&str]| ok(run_helm_in(&helm, &ns, "configmap", args));
    let json = |out: String| -> serde_json::Value { serde_json::from_str(&out).unwrap() };
    let chart = crashy_chart();
    // `upgrade one CHART --reuse-values --set SET --wait`.
    let reuse = |set| {
        [
            "upgrade",
            "one",
            chart.as_str(),
            "--reuse-values",
            "--set",
            set,
            "--wait",
        ]
    };

    // kubepkg writes ConfigMaps, as Helm's configmap driver does; no Secret.
    cm(&[
        "install",
        "one",
        &crashy_chart(),
        "--wait",
        "--set",
        "message=kubepkg",
    ]);
    assert_eq!(
        kubectl_get(
            &ns,
            "configmap",
            "sh.helm.release.v1.one.v1",
            "{.metadata.labels.owner}/{.metadata.labels.status}"
        )
        .as_deref(),
        Some("helm/deployed")
    );
    assert!(
        kubectl_get(
            &ns,
            "secret",
            "sh.helm.release.v1.one.v1",
            "{.metadata.name}"
        )
        .is_none()
    );

    // helm lists and upgrades kubepkg's release.
    let list = json(helm_ok(&["list", "-o", "json"]));
    assert_eq!(list[0]["name"], "one");
    assert_eq!(list[0]["status"], "deployed");
    let ours = json(cm(&["list", "-o", "json"]));
    assert_eq!(ours, list, "kubepkg list == helm list (configmap driver)");
    helm_ok(&reuse("web=ok"));

    // kubepkg reads helm's revision and upgrades on top of it.
    let h = json(cm(&["history", "one", "-o", "json"]));
    assert_eq!(h.as_array().unwrap().len(), 2);
    assert_eq!(h[1]["status"], "deployed");
    assert_eq!(h[1]["description"], "Upgrade complete");
    let values = json(cm(&["get", "values", "one", "-o", "json"]));
    assert_eq!(
        values,
        serde_json::json!({"message": "kubepkg", "web": "ok"})
    );
    cm(&reuse("message=again"));
    let h = json(helm_ok(&["history", "one", "-o", "json"]));
    let statuses: Vec<&str> = h
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["superseded", "superseded", "deployed"]);
    let values = json(helm_ok(&["get", "values", "one", "-o", "json"]));
    assert_eq!(values, serde_json::json!({"message": "again", "web": "ok"}));
    assert_eq!(
        configmap_message(&ns, "one-config").as_deref(),
        Some("again")
    );

    // The reverse: helm installs, kubepkg upgrades and rolls back, helm reads the result.
    helm_ok(&["install", "two", &crashy_chart(), "--set", "message=helm"]);
    cm(&[
        "upgrade",
        "two",
        &crashy_chart(),
        "--set",
        "message=k",
        "--wait",
    ]);
    assert_eq!(configmap_message(&ns, "two-config").as_deref(), Some("k"));
    cm(&["rollback", "two", "1", "--wait"]);
    assert_eq!(
        configmap_message(&ns, "two-config").as_deref(),
        Some("helm")
    );
    let h = json(helm_ok(&["history", "two", "-o", "json"]));
    assert_eq!(h.as_array().unwrap().len(), 3);
    assert_eq!(h[2]["description"], "Rollback to 1");
    assert_eq!(h[2]["status"], "deployed");

    // The secret driver sees none of them.
    let secrets = json(ok(kubepkg(&ns, &["list", "-o", "json"]).output().unwrap()));
    assert_eq!(secrets, serde_json::json!([]));
}

/// A chart whose `crds/` holds a Widget CRD of `group` with `versions` (name, served,
/// storage), and one ConfigMap.
fn crd_chart(dir: &Path, group: &str, versions: &[(&str, bool, bool)]) -> String {
    crd_chart_in(dir, group, versions, "crds/widgets.yaml")
}

/// [`crd_chart`] with the CRD written to `crd_path` (`templates/…`: part of the release).
fn crd_chart_in(
    dir: &Path,
    group: &str,
    versions: &[(&str, bool, bool)],
    crd_path: &str,
) -> String {
    std::fs::create_dir_all(dir.join("crds")).unwrap();
    let mut crd = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.{group}\nspec:\n  group: {group}\n  scope: Namespaced\n  names: {{kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}}\n  versions:\n"
    );
    for (name, served, storage) in versions {
        crd.push_str(&format!(
            "  - name: {name}\n    served: {served}\n    storage: {storage}\n    schema:\n      openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}\n"
        ));
    }
    kubepkg_testkit::charts::write_chart(
        dir,
        "widgets",
        "1.0.0",
        &[
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  message: hi\n",
            ),
            (crd_path, &crd),
        ],
    );
    dir.display().to_string()
}

#[test]
fn unsafe_crd_upgrades_are_refused() {
    let (_rt, ns) = blocking_namespace("cli-crd-upgrade");
    let tmp = tempfile::tempdir().unwrap();
    let group = format!("{}.kubepkg.test", ns.name());
    let crd = format!("widgets.{group}");
    let crd_versions = || {
        let out = ns
            .plane()
            .kubectl()
            .args([
                "get",
                "crd",
                &crd,
                "-o",
                r#"jsonpath={range .spec.versions[*]}{.name}:{.served} {end}"#,
            ])
            .output()
            .unwrap();
        ok(out).trim().to_string()
    };
    // `kubectl apply --server-side` of `yaml`, which must succeed.
    let apply_server_side = |yaml: &str| {
        let mut apply = ns.plane().kubectl();
        apply
            .args(["apply", "--server-side", "-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null());
        let mut child = apply.spawn().unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), yaml.as_bytes()).unwrap();
        assert!(child.wait().unwrap().success(), "kubectl apply of:\n{yaml}");
    };
    // `upgrade RELEASE CHART`, which must be refused: its standard error.
    let refused_upgrade = |release: &str, chart: &str| {
        let out = kubepkg(&ns, &["upgrade", release, chart]).output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let v1 = crd_chart(&tmp.path().join("v1"), &group, &[("v1", true, true)]);
    ok(kubepkg(&ns, &["install", "w", &v1]).output().unwrap());
    assert_eq!(crd_versions(), "v1:true");

    // An object written at v1: status.storedVersions = [v1], managedFields say v1.
    let widget = format!(
        "apiVersion: {group}/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: {}\nspec: {{size: 1}}\n",
        ns.name()
    );
    apply_server_side(&widget);

    // Adding v2 (the new storage version) is safe: applied (Helm would leave crds/ alone).
    let v1v2 = crd_chart(
        &tmp.path().join("v1v2"),
        &group,
        &[("v1", true, false), ("v2", true, true)],
    );
    ok(kubepkg(&ns, &["upgrade", "w", &v1v2]).output().unwrap());
    assert_eq!(crd_versions(), "v1:true v2:true");

    // Dropping v1, still in storedVersions: refused, nothing changed.
    let v2 = crd_chart(&tmp.path().join("v2"), &group, &[("v2", true, true)]);
    let err = refused_upgrade("w", &v2);
    assert!(
        err.contains(&format!(
            "refusing to upgrade CustomResourceDefinition {crd}"
        )) && err.contains("drops version v1")
            && err.contains("status.storedVersions"),
        "{err}"
    );
    assert_eq!(crd_versions(), "v1:true v2:true");

    // Unserving v1, which Widget w1 was written with: refused, naming the object.
    let unserve = crd_chart(
        &tmp.path().join("unserve"),
        &group,
        &[("v1", false, false), ("v2", true, true)],
    );
    let err = refused_upgrade("w", &unserve);
    assert!(
        err.contains("stops serving version v1")
            && err.contains(&format!("Widget {}/w1", ns.name())),
        "{err}"
    );
    assert_eq!(crd_versions(), "v1:true v2:true");
    let h = history(&ns, "w");
    assert_eq!(
        h.iter()
            .map(|(r, s, _)| (*r, s.as_str()))
            .collect::<Vec<_>>(),
        [(1, "superseded"), (2, "deployed")],
        "a refused CRD upgrade writes no revision"
    );
    let _ = ns.plane().kubectl().args(["delete", "crd", &crd]).output();

    // A CRD in templates/ (owned by the release) gets the same checks before the upgrade
    // records anything.
    let group = format!("t.{}.kubepkg.test", ns.name());
    let crd = format!("widgets.{group}");
    let tpl = "templates/crd.yaml";
    let v1 = crd_chart_in(&tmp.path().join("t1"), &group, &[("v1", true, true)], tpl);
    ok(kubepkg(&ns, &["install", "t", &v1]).output().unwrap());
    let widget = widget.replace(&format!("{}.kubepkg.test", ns.name()), &group);
    apply_server_side(&widget);
    let v2 = crd_chart_in(&tmp.path().join("t2"), &group, &[("v2", true, true)], tpl);
    let err = refused_upgrade("t", &v2);
    assert!(
        err.contains(&format!(
            "refusing to upgrade CustomResourceDefinition {crd}"
        )) && err.contains("drops version v1"),
        "{err}"
    );
    let h = history(&ns, "t");
    assert_eq!(h.len(), 1, "{h:?}");
    let _ = ns.plane().kubectl().args(["delete", "crd", &crd]).output();
}

/// Regression (the CLI's own `--reuse-values` merge kept `k: null`): `upgrade --reuse-values
/// --set k=null` deletes `k` from the stored values (Helm's `CoalesceTables`), nested keys
/// too, and renders with the previous release's values as the chart's defaults (Helm's
/// `chart.Values = oldVals`), exactly as real Helm does on a twin release.
#[test]
fn reuse_values_set_null_deletes_the_key_as_helm() {
    let (_rt, ns) = blocking_namespace("cli-reuse-null");
    let helm4 = helm_version("v4.3.1");
    // `words` (NAME replaced by `name`) run by kubepkg or helm 4; stdout with NAME for `name`.
    let run = |helm: bool, words: &str, name: &str| -> String {
        let args: Vec<String> = words.split(' ').map(|w| w.replace("NAME", name)).collect();
        let out = if helm {
            run_helm_in(&helm4, &ns, "secret", &strs(&args))
        } else {
            kubepkg(&ns, &strs(&args)).output().unwrap()
        };
        ok(out).replace(name, "NAME")
    };
    let chart = crashy_chart();
    for (helm, name) in [(false, "ours"), (true, "theirs")] {
        run(
            helm,
            &format!("install NAME {chart} --set message=hi,extra.a=1,extra.b=2"),
            name,
        );
        run(
            helm,
            &format!("upgrade NAME {chart} --reuse-values --set message=null,extra.a=null"),
            name,
        );
    }
    let json = |text: String| -> serde_json::Value { serde_json::from_str(&text).unwrap() };
    assert_eq!(
        json(run(false, "get values NAME -o json", "ours")),
        serde_json::json!({"extra": {"b": 2}}),
        "keys deleted"
    );
    for read in [
        "get values NAME -o json",
        "get values NAME --all -o json",
        "get manifest NAME",
        "get hooks NAME",
        "get values NAME --revision 2 -o json",
    ] {
        let want = run(true, read, "theirs");
        assert_eq!(
            run(true, read, "ours"),
            want,
            "`{read}`: kubepkg's record vs helm's"
        );
        assert_eq!(run(false, read, "ours"), want, "`{read}`: kubepkg vs helm");
    }
    // Known difference, kept on purpose: Helm's `CoalesceTables` writes the nulls into the
    // replaced revision's values too (`src[key] = nil` on `current.Config`), which it then
    // stores as superseded, so a later `rollback 1` would not restore revision 1. kubepkg
    // leaves revision 1 as it was written.
    let rev1 = "get values NAME --revision 1 -o json";
    let written = serde_json::json!({"extra": {"a": 1, "b": 2}, "message": "hi"});
    assert_eq!(json(run(false, rev1, "ours")), written);
    assert_eq!(json(run(true, rev1, "ours")), written);
    assert_eq!(
        json(run(true, rev1, "theirs")),
        serde_json::json!({"extra": {"a": null, "b": 2}, "message": null}),
        "helm v4.3.1 rewrites the superseded revision's values (if this changed, kubepkg's \
         record now matches helm's: fold revision 1 into the comparisons above)"
    );
}

// Regression: `install --create-namespace` took the release's Lease (which lives in the
// namespace) before creating the namespace, and failed with `namespaces "NS" not found`;
// `helm install --create-namespace` works. The release it makes is one helm reads.
#[test]
fn install_create_namespace_into_a_namespace_that_does_not_exist() {
    let (rt, ns) = blocking_namespace("cli-create-ns");
    let target = format!("{}-new", ns.name());
    let out = crate::support::kubepkg_in(
        &ns,
        &target,
        &["install", "fresh", &crashy_chart(), "--create-namespace"],
    )
    .output()
    .unwrap();
    let created = {
        let api: kube::Api<k8s_openapi::api::core::v1::Namespace> =
            kube::Api::all(ns.client().clone());
        let got = rt.block_on(api.get_opt(&target)).unwrap();
        let _ = rt.block_on(api.delete(&target, &Default::default()));
        got
    };
    let stdout = ok(out);
    assert!(stdout.contains("STATUS: deployed"), "{stdout}");
    assert!(created.is_some(), "namespace {target} was not created");
    // Without --create-namespace, a missing namespace is one clear line naming it.
    let missing = format!("{}-missing", ns.name());
    let out = crate::support::kubepkg_in(&ns, &missing, &["install", "x", &crashy_chart()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("namespaces \"{missing}\" not found"))
            && !stderr.contains("Status {"),
        "{stderr}"
    );
}
