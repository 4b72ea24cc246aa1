//! `kubepkg values NAME [--revision N] --explain` on the local control plane: each effective
//! value of a component and the source it came from (chart default, package default, `-f`
//! file, `--set-json`, `--set`, `--set-string`, `--set-file`), for the live revision and for an
//! older one, read back from the recorded package revision; and the notice an apply prints
//! when it does not keep the values the deployed revision was given.

use std::path::Path;

use crate::support::{kubepkg, run_command};
use kubepkg_testkit::{TestNamespace, charts};

/// `kubepkg ARGS` in the test namespace, run from `dir`.
fn run(ns: &TestNamespace, dir: &Path, args: &[&str]) -> (i32, String, String) {
    run_command(kubepkg(ns, args).current_dir(dir))
}

/// A package of one component `web` (a ConfigMap, ready at once) with chart defaults and a
/// package default.
fn package(root: &Path) {
    charts::write_chart(
        &root.join("pkg/web"),
        "web",
        "1.0.0",
        &[
            (
                "values.yaml",
                "replicas: 1\nimage: web:1\ntier: bronze\ncert: none\nports: [80]\n",
            ),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  values: {{ toJson .Values | quote }}\n",
            ),
        ],
    );
    charts::write_files(
        root,
        &[
            (
                "pkg/kubepkg.yaml",
                "package: {name: shop, version: 1.0.0}\ncomponents:\n- name: web\n  path: web\n  values: {tier: silver}\n",
            ),
            ("prod.yaml", "web:\n  image: web:2\n  replicas: 2\n"),
            ("cert.pem", "PEM\n"),
        ],
    );
}

#[tokio::test]
async fn explain_names_every_source_for_the_live_and_an_older_revision() {
    let ns = TestNamespace::fresh("values-explain").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    package(dir);

    // Revision 1: every kind of user source, flags given out of Helm's order.
    let (code, out, err) = run(
        &ns,
        dir,
        &[
            "apply",
            "shop",
            "pkg",
            "--set-file",
            "web.cert=cert.pem",
            "--set-string",
            "web.note=007",
            "--set",
            "web.replicas=3",
            "--set-json",
            "web.ports=[80,443]",
            "-f",
            "prod.yaml",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let rev1 = "# package shop 1.0.0 revision 1\n\
# web\n\
cert: \"PEM\\n\"  # --set-file web.cert=cert.pem\n\
image: \"web:2\"  # file prod.yaml\n\
note: \"007\"  # --set-string web.note=007\n\
ports: [80, 443]  # --set-json web.ports=[80,443]\n\
replicas: 3  # --set web.replicas=3\n\
tier: \"silver\"  # package default (kubepkg.yaml)\n";
    let (code, out, err) = run(&ns, dir, &["values", "shop", "--explain"]);
    assert_eq!((code, out.as_str()), (0, rev1), "{err}");

    // Revision 2: no user values at all. kubepkg does not carry them over silently (Helm's
    // upgrade would reuse them without a word): it says which are dropped.
    let (code, out, err) = run(&ns, dir, &["apply", "shop", "pkg"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains(
            "note: values given in revision 1 (from file prod.yaml; --set-json web.ports; --set web.replicas; --set-string web.note; --set-file web.cert) for component(s) web are not kept"
        ),
        "{err}"
    );
    // The note names the keys, never the values given (`--set` may carry a secret).
    assert!(!err.contains("007") && !err.contains("[80,443]"), "{err}");
    let (code, out, err) = run(&ns, dir, &["values", "shop", "--explain"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "# package shop 1.0.0 revision 2\n\
# web\n\
cert: \"none\"  # chart default\n\
image: \"web:1\"  # chart default\n\
ports: [80]  # chart default\n\
replicas: 1  # chart default\n\
tier: \"silver\"  # package default (kubepkg.yaml)\n"
        ),
        "{err}"
    );

    // The older revision still explains its own sources (read from its record).
    let (code, out, err) = run(
        &ns,
        dir,
        &["values", "shop", "--revision", "1", "--explain"],
    );
    assert_eq!((code, out.as_str()), (0, rev1), "{err}");
    let (code, out, err) = run(&ns, dir, &["values", "shop", "--revision", "1"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "# package shop 1.0.0 revision 1\nweb:\n  cert: |\n    PEM\n  image: web:2\n  note: \"007\"\n  ports:\n  - 80\n  - 443\n  replicas: 3\n  tier: silver\n"
        ),
        "{err}"
    );
}

/// Values for one revision (`--set-once`, `--set-json-once`, `--values-once`): they win over
/// every other source, are recorded and explained as such, and the next apply neither keeps
/// them nor notes them as dropped — the approval an operator gives for one upgrade.
#[tokio::test]
async fn once_values_apply_to_one_revision_only() {
    let ns = TestNamespace::fresh("values-once").await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    package(dir);
    std::fs::write(dir.join("switch.yaml"), "web:\n  tier: gold\n").unwrap();
    let (code, out, err) = run(
        &ns,
        dir,
        &[
            "apply",
            "shop",
            "pkg",
            "--set",
            "web.replicas=2",
            "--set-once",
            "web.replicas=5",
            "--set-json-once",
            r#"web.approved=["s-17"]"#,
            "--values-once",
            "switch.yaml",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let (code, out, err) = run(&ns, dir, &["values", "shop", "--explain"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "# package shop 1.0.0 revision 1\n\
# web\n\
approved: [\"s-17\"]  # --set-json-once web.approved=[\"s-17\"]\n\
cert: \"none\"  # chart default\n\
image: \"web:1\"  # chart default\n\
ports: [80]  # chart default\n\
replicas: 5  # --set-once web.replicas=5\n\
tier: \"gold\"  # file switch.yaml (--values-once: this revision only)\n"
        ),
        "{err}"
    );
    // The next apply gives only the lasting --set: the once values are gone, and only the
    // lasting value would have been worth a note (it is given again, so there is none).
    let (code, out, err) = run(
        &ns,
        dir,
        &["apply", "shop", "pkg", "--set", "web.replicas=2"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!err.contains("not kept"), "{err}");
    let (code, out, err) = run(&ns, dir, &["values", "shop"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "# package shop 1.0.0 revision 2\nweb:\n  cert: none\n  image: web:1\n  ports:\n  - 80\n  replicas: 2\n  tier: silver\n"
        ),
        "{err}"
    );
    // A third apply with no values at all notes only the lasting --set of revision 2.
    let (code, out, err) = run(&ns, dir, &["apply", "shop", "pkg"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains("note: values given in revision 2 (from --set web.replicas) for component(s) web are not kept"),
        "{err}"
    );
    // A revision given only once values: the apply after it has nothing to note.
    let (code, out, err) = run(
        &ns,
        dir,
        &["apply", "shop", "pkg", "--set-once", "web.replicas=4"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let (code, out, err) = run(&ns, dir, &["apply", "shop", "pkg"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!err.contains("not kept"), "{err}");
}
