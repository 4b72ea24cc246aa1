//! Helm's `install`/`upgrade` flags on `kubepkg apply` and `plan` (docs/cli.md#helms-install-and-upgrade-flags-on-plan-and-apply):
//! a Helm user's command line keeps working where kubepkg does what a flag asks
//! (`--create-namespace`, `--wait`, `--dry-run[=server]`), and is refused as a usage error
//! (exit 2, before anything is read or changed) with one sentence saying what kubepkg does
//! instead where it does not (`--atomic`/`--rollback-on-failure`, `--description`,
//! `--history-max`, `--wait=false|hookOnly`, `apply --dry-run=client`).

use std::path::Path;
use std::process::Command;

use crate::support::{package_history, run, run_command, run_in, run_ok};
use kubepkg_testkit::TestNamespace;

fn one_component(dir: &Path, version: &str) {
    kubepkg_testkit::charts::package(
        dir,
        &format!(
            "package: {{name: p, version: {version}}}\ncomponents:\n- {{name: web, path: web}}\n"
        ),
        &["web"],
        &[],
    );
}

/// `kubepkg ARGS` with no cluster to reach (nothing here may need one).
fn offline(args: &[&str]) -> (i32, String, String) {
    run_command(
        Command::new(env!("CARGO_BIN_EXE_kubepkg"))
            .args(args)
            .env("KUBECONFIG", "/nonexistent/kubeconfig")
            .env("NO_COLOR", "1")
            .env_remove("HELM_NAMESPACE"),
    )
}

#[test]
fn flags_kubepkg_does_not_do_are_refused_with_what_it_does_instead() {
    let atomic = "kubepkg rolls a failed upgrade back by itself exactly when the new version \
                  declares that safe (rollback.safe or rollback.to in kubepkg.yaml) and keeps a \
                  failed first install for diagnosis, so no flag decides it (docs/rules.md)";
    let wait = "kubepkg always waits until each component is ready before it starts the next \
                one (the order of a package depends on it), so the wait cannot be turned off or \
                narrowed to hooks";
    let description = "kubepkg writes each package revision's description itself (what it did, \
                       or why it failed: `kubepkg history NAME` shows it) and takes no \
                       description of yours";
    let history = "kubepkg keeps every package revision, and of each component's release the \
                   history its backend keeps (helm: the last 10 records, Helm's default; flux: \
                   helm-controller's), with no limit of yours";
    let client = "kubepkg apply --dry-run (or =server) plans against the cluster and changes \
                  nothing; for a plan without the cluster, as Helm's client dry run renders, run \
                  `kubepkg plan NAME PACKAGE`";
    let mut cases: Vec<(&str, Vec<&str>, &str)> = Vec::new();
    for verb in ["apply", "plan"] {
        cases.extend([
            (verb, vec!["--atomic"], atomic),
            (verb, vec!["--atomic=true"], atomic),
            (verb, vec!["--rollback-on-failure"], atomic),
            (verb, vec!["--wait=false"], wait),
            (verb, vec!["--wait=hookOnly"], wait),
            (verb, vec!["--description", "nightly"], description),
            (verb, vec!["--history-max", "5"], history),
            (verb, vec!["--history-max=10"], history),
        ]);
    }
    cases.push(("apply", vec!["--dry-run=client"], client));
    for (verb, flags, sentence) in cases {
        let mut args = vec![verb, "shop", "./no-such-package"];
        args.extend(&flags);
        let (code, out, err) = offline(&args);
        assert_eq!(code, 2, "{args:?} is a usage error:\n{out}\n{err}");
        assert_eq!(out, "", "{args:?}");
        let first = err.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("error: invalid value '") && first.contains(&format!(": {sentence}")),
            "{args:?}: the first line says what kubepkg does instead:\n{err}"
        );
    }
}

#[test]
fn accepted_flags_leave_an_offline_plan_as_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    one_component(&dir, "1.0.0");
    let dir = dir.to_str().unwrap();
    let (code, plain, err) = offline(&["plan", "shop", dir, "-n", "shop"]);
    assert_eq!(code, 0, "{err}");
    for flags in [
        &["--create-namespace"][..],
        &["--wait"],
        &["--wait=watcher"],
        &["--wait=legacy"],
        &["--wait=true"],
        &["--atomic=false"],
        &["--dry-run"],
        &["--dry-run=client"],
        &["--dry-run=none"],
        &["--create-namespace", "--wait", "--dry-run=client"],
    ] {
        let mut args = vec!["plan", "shop", dir, "-n", "shop"];
        args.extend(flags);
        let (code, out, err) = offline(&args);
        assert_eq!(
            (code, out.as_str()),
            (0, plain.as_str()),
            "{flags:?}: {err}"
        );
    }
    // Bare `--dry-run` takes no value from the next word (Helm's `--dry-run=MODE` form).
    let (code, out, err) = offline(&["plan", "shop", "--dry-run", dir, "-n", "shop"]);
    assert_eq!((code, out.as_str()), (0, plain.as_str()), "{err}");
}

/// The line: `kubepkg apply shop ./shop -n new --create-namespace` (with `--wait`, as
/// Helm users write it) installs into a namespace that did not exist. `--dry-run=server` is
/// `apply --dry-run` (plans against the cluster, changes nothing), and `plan --dry-run=server`
/// is `plan --cluster`.
#[tokio::test]
async fn create_namespace_wait_and_server_dry_run_do_what_helm_users_mean() {
    let ns = TestNamespace::fresh("helm-flags").await;
    let tmp = tempfile::tempdir().unwrap();
    let (v1, v2) = (tmp.path().join("v1"), tmp.path().join("v2"));
    one_component(&v1, "1.0.0");
    one_component(&v2, "2.0.0");
    let (v1, v2) = (v1.to_str().unwrap(), v2.to_str().unwrap());
    let fresh = format!("{}-new", ns.name());
    let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> =
        kube::Api::all(ns.client().clone());
    assert!(namespaces.get_opt(&fresh).await.unwrap().is_none());
    let (code, out, err) = run_in(
        &ns,
        &fresh,
        &["apply", "shop", v1, "--create-namespace", "--wait"],
    );
    let created = namespaces.get_opt(&fresh).await.unwrap();
    let _ = namespaces.delete(&fresh, &Default::default()).await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(created.is_some(), "namespace {fresh} was not created");
    assert!(
        out.contains("Succeeded: p 1.0.0 is deployed as revision 1"),
        "{out}\n{err}"
    );

    // In the test namespace: revision 1, then dry runs of 2.0.0.
    let (code, out, err) = run(&ns, &["apply", "shop", v1, "--wait=watcher"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let server = run_ok(&ns, &["apply", "shop", v2, "--dry-run=server"]);
    let bare = run_ok(&ns, &["apply", "shop", v2, "--dry-run"]);
    assert_eq!(server, bare, "--dry-run=server is apply's --dry-run");
    assert!(server.contains("2.0.0"), "{server}");
    let revisions = package_history(&ns, ns.name(), "shop").await.revisions;
    assert_eq!(revisions.len(), 1, "the dry runs changed nothing");
    let with_cluster = run_ok(&ns, &["plan", "shop", v2, "--cluster"]);
    let server_plan = run_ok(&ns, &["plan", "shop", v2, "--dry-run=server"]);
    assert_eq!(
        server_plan, with_cluster,
        "plan --dry-run=server is plan --cluster"
    );
    let offline_plan = run_ok(&ns, &["plan", "shop", v2]);
    assert_ne!(
        offline_plan, with_cluster,
        "against the cluster, 2.0.0 is an upgrade of the installed 1.0.0"
    );
}

/// What the `--history-max` refusal says kubepkg keeps, kept: after 12 revisions (each a
/// new image of the one component), all 12 package revisions and the last 10 records of
/// the component's release, Helm's default.
#[tokio::test]
async fn history_max_refusal_says_what_kubepkg_keeps() {
    let ns = TestNamespace::fresh("helm-flags-history").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    one_component(&dir, "1.0.0");
    let dir = dir.to_str().unwrap();
    for i in 1..=12 {
        let set = format!("web.image=registry.invalid/web:{i}");
        let (code, out, err) = run(&ns, &["apply", "shop", dir, "--set", &set]);
        assert_eq!(code, 0, "apply {i}: {out}\n{err}");
    }
    let revisions = package_history(&ns, ns.name(), "shop").await.revisions;
    assert_eq!(revisions.len(), 12, "every package revision");
    let records = kubepkg_release::storage::Store::new(
        kubepkg_release::storage::SecretDriver::new(ns.client().clone(), Some(ns.name())),
    )
    .history("shop-web")
    .await
    .unwrap();
    let kept: Vec<u64> = records.iter().map(|r| r.version).collect();
    assert_eq!(kept, (3..=12).collect::<Vec<u64>>(), "the last 10 records");
}
