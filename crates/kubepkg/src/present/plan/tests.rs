//! The plan's text: its layout pinned (an upgrade of the kubevirt test package, a downgrade's
//! verdict, a first install of the widgets package) and its colours.

use std::path::Path;

use kubepkg_package::plan::fixtures::{
    apply_over, kubevirt, plan_over, previous_revision, rendered,
};
use kubepkg_package::plan::{Intent, plan};
use kubepkg_package::revision::{History, RevisionStatus};

use super::*;

/// A lower version than the deployed one is a downgrade: the plan says so, with the rollback
/// policy's verdict over every version that ran since (here 1.5.0 forbids it; the same
/// downgrade from a safe 1.5.0 is allowed).
#[test]
fn a_downgrade_is_stated_with_the_rollback_policy_verdict() {
    let pkg = kubevirt();
    assert_eq!(pkg.meta.version.to_string(), "1.4.0");
    let old = rendered("1.5.0");
    for (safe, verdict) in [
        (
            Some(false),
            "Downgrade from 1.5.0 to 1.4.0: refused: 1.5.0 (revision 3) declares rollback.safe: false, so 1.4.0 may not run again once it has run; apply refuses it unless given --allow-downgrade\n",
        ),
        (
            Some(true),
            "Downgrade from 1.5.0 to 1.4.0: allowed: no version that ran since 1.4.0 last ran forbids it (by rollback.safe: false or a rollback.to floor)\n",
        ),
    ] {
        let prev = previous_revision("1.5.0", safe);
        let mut earlier = previous_revision("1.4.0", None);
        earlier.revision = 2;
        earlier.status = RevisionStatus::Superseded;
        let history = History::new(vec![earlier, prev.clone()]);
        let p = plan_over(
            &pkg,
            Intent::Apply,
            &prev,
            &history,
            &old,
            &rendered("1.4.0"),
        );
        let d = p.downgrade.as_ref().expect("a downgrade");
        assert_eq!(d.allowed(), safe == Some(true));
        let text = render_text(&p, false);
        assert!(
            text.starts_with(&format!(
                "Plan: downgrade kv of package kubevirt 1.5.0 -> 1.4.0 in namespace kubepkg-system\nRecords revision 4.\n{verdict}"
            )),
            "{text}"
        );
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["downgrade"]["from"], "1.5.0");
        assert_eq!(
            json["downgrade"]["forbiddenBy"].as_array().unwrap().len(),
            usize::from(safe == Some(false))
        );
    }
    // An upgrade is no downgrade.
    let prev = previous_revision("1.3.0", Some(false));
    let p = apply_over(&pkg, &prev, &rendered("1.3.0"), &rendered("1.4.0"));
    assert_eq!(p.downgrade, None);
    assert!(!render_text(&p, false).contains("owngrade"));
}

#[test]
fn text_snapshot_of_an_upgrade() {
    let pkg = kubevirt();
    let prev = previous_revision("1.3.0", Some(true));
    let old = rendered("1.3.0");
    let p = apply_over(&pkg, &prev, &old, &rendered("1.4.0"));
    let expected = "\
Plan: upgrade kv of package kubevirt 1.3.0 -> 1.4.0 in namespace kubepkg-system
Records revision 4.

Requires (must be Ready first):
  cert-manager >=1.14.0
  monitoring (optional: waits only if installed)

PreUpgrade hooks:
  migrate [runs] the package moves from 1.3.0 to 1.4.0
    release kv-migrate in app; waits for it, then uninstalls it after a successful upgrade
    creates Job app/migrate-1-4-0

Order (one at a time; each waits for the previous to be ready):
  1. operator: upgrade kubevirt-operator-1.3.0 -> kubevirt-operator-1.4.0 (release revision 4 -> 5)
     release kv-operator in namespace kubevirt
     ready when: release kv-operator ready
     ~ Deployment kubevirt/virt-operator
       --- Deployment kubevirt/virt-operator (deployed)
       +++ Deployment kubevirt/virt-operator (planned)
       @@ -10,4 +10,4 @@
            spec:
              containers:
              - name: virt-operator
       -        image: quay.io/kubevirt/virt-operator:v1.3.0
       +        image: quay.io/kubevirt/virt-operator:v1.4.0
  2. kubevirt (after operator): unchanged kubevirt-1.0.0 (release revision 2)
     release kv-kubevirt in namespace kubevirt
     ready when: release kv-kubevirt ready
     ready when: KubeVirt kubevirt/kubevirt (kubevirt.io/v1) condition Available=True
  3. worker (after kubevirt): upgrade worker-1.3.0 -> worker-1.4.0 (release revision 3 -> 4)
     release kv-worker in namespace app
     gets kubepkg.fromVersion, kubepkg.toVersion, kubepkg.previous
     ready when: release kv-worker ready
     ~ Deployment app/worker
       --- Deployment app/worker (deployed)
       +++ Deployment app/worker (planned)
       @@ -4,4 +4,4 @@
          name: worker
          namespace: app
        spec:
       -  image: worker:1.3.0
       +  image: worker:1.4.0

If a component fails: no rollback (this version declares rollback.safe: false); stop with UpgradeFailed and fix forward
";
    let text = render_text(&p, true);
    assert_eq!(text, expected, "\n--- got ---\n{text}");
    // Without diffs only the object list is shown.
    assert!(!render_text(&p, false).contains("@@"));

    // In colour: the same text, each diff line and change mark styled as `git diff` does.
    let coloured = render_styled(&p, true, Palette::ANSI);
    assert_eq!(strip_ansi(&coloured), expected);
    for line in [
        "\x1b[1mPlan: upgrade kv of package kubevirt 1.3.0 -> 1.4.0 in namespace kubepkg-system\x1b[0m",
        "     \x1b[33m~\x1b[0m Deployment app/worker",
        "       \x1b[1m--- Deployment app/worker (deployed)\x1b[0m",
        "       \x1b[1m+++ Deployment app/worker (planned)\x1b[0m",
        "       \x1b[36m@@ -4,4 +4,4 @@\x1b[0m",
        "       \x1b[31m-  image: worker:1.3.0\x1b[0m",
        "       \x1b[32m+  image: worker:1.4.0\x1b[0m",
        "          name: worker",
    ] {
        assert!(
            coloured.lines().any(|l| l == line),
            "{line:?} in\n{coloured}"
        );
    }
    assert_eq!(render_styled(&p, true, Palette::PLAIN), expected);
}

/// `text` without its ANSI escapes (`ESC [ … m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('\x1b') {
        out.push_str(&rest[..i]);
        let m = rest[i..].find('m').expect("an escape ends with m");
        rest = &rest[i + m + 1..];
    }
    out.push_str(rest);
    out
}

/// A first install of the widgets test package, rendered offline as `kubepkg plan` renders
/// it (`kubepkg-package/src/plan/offline_tests.rs` checks the plan itself).
#[test]
fn a_first_install_reads_as_its_steps_gates_and_objects() {
    use kubepkg_package::render::{RenderInput, render_package};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/packages/widgets");
    let pkg = kubepkg_model::source::load_dir(&dir).unwrap();
    let offline = kubepkg_chart::objects::Capabilities::new(None, &[]);
    let rendered = render_package(&pkg, &RenderInput::new("shop", "apps", offline)).unwrap();
    let p = plan(&pkg, "shop", "apps", Intent::Apply, None, &rendered);
    let text = render_text(&p, false);
    assert!(
        text.starts_with(
            "Plan: install shop of package widgets 2.0.0 in namespace apps\nRecords revision 1.\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("  2. instance (after operator): install widget-instance-2.0.0\n"),
        "{text}"
    );
    assert!(
        text.contains("ready when: Widget apps/main (example.dev/v1) condition Ready=True"),
        "{text}"
    );
    assert!(text.contains("     + Widget apps/main\n"), "{text}");
}

/// A chart's hooks are not kept applied: a first install's rows say when each hook runs, and a
/// `helm test` hook (what `kubepkg create` scaffolds) that only `kubepkg test` creates.
#[test]
fn hook_objects_say_when_they_run() {
    use kubepkg_package::render::{RenderInput, render_package};
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("web");
    std::fs::create_dir_all(chart.join("templates/tests")).unwrap();
    std::fs::write(
        dir.path().join("kubepkg.yaml"),
        "package: {name: site, version: 1.0.0}\ncomponents:\n- {name: web, path: web}\n",
    )
    .unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    )
    .unwrap();
    let hooked = |kind: &str, name: &str, hook: &str| {
        format!(
            "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n  annotations:\n    \"helm.sh/hook\": {hook}\n"
        )
    };
    std::fs::write(
        chart.join("templates/config.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n",
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/tests/test-connection.yaml"),
        hooked("Pod", "web-test", "test"),
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/migrate.yaml"),
        hooked("Job", "web-migrate", "pre-install,pre-upgrade"),
    )
    .unwrap();
    let pkg = kubepkg_model::source::load_dir(dir.path()).unwrap();
    let offline = kubepkg_chart::objects::Capabilities::new(None, &[]);
    let rendered = render_package(&pkg, &RenderInput::new("site", "apps", offline)).unwrap();
    let p = plan(&pkg, "site", "apps", Intent::Apply, None, &rendered);
    let text = render_text(&p, false);
    assert!(text.contains("     + ConfigMap web\n"), "{text}");
    assert!(
        text.contains("     + Job web-migrate (hook: pre-install,pre-upgrade)\n"),
        "{text}"
    );
    assert!(
        text.contains("     + Pod web-test (test hook: run by `kubepkg test`, not by apply)\n"),
        "{text}"
    );
    let json = serde_json::to_value(&p).unwrap();
    let rows = json["steps"][0]["diff"].as_array().unwrap();
    let hooks: Vec<_> = rows.iter().map(|r| r["hook"].as_str()).collect();
    assert!(hooks.contains(&Some("test")), "{json}");
    assert!(hooks.contains(&None), "{json}");
}
