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

/// `kubepkg apply shop pkg ARGS` run from `dir`, which must succeed: its standard error.
fn apply(ns: &TestNamespace, dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["apply", "shop", "pkg"];
    all.extend_from_slice(args);
    let (code, out, err) = run(ns, dir, &all);
    assert_eq!(code, 0, "{out}\n{err}");
    err
}

/// Asserts that `kubepkg values shop ARGS` run from `dir` prints `expected`.
#[track_caller]
fn assert_values(ns: &TestNamespace, dir: &Path, args: &[&str], expected: &str) {
    let mut all = vec!["values", "shop"];
    all.extend_from_slice(args);
    let (code, out, err) = run(ns, dir, &all);
    assert_eq!((code, out.as_str()), (0, expected), "{err}");
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

/// A fresh namespace for `test` and a temporary directory holding [`package`].
async fn namespace_and_package(test: &str) -> (TestNamespace, tempfile::TempDir) {
    let ns = TestNamespace::fresh(test).await;
    let tmp = tempfile::tempdir().unwrap();
    package(tmp.path());
    (ns, tmp)
}

#[tokio::test]
async fn explain_names_every_source_for_the_live_and_an_older_revision() {
    let (ns, tmp) = namespace_and_package("values-explain").await;
    let dir = tmp.path();

    // Revision 1: every kind of user source, flags given out of Helm's order.
    apply(
        &ns,
        dir,
        &[
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
    let rev1 = "# package shop 1.0.0 revision 1\n\
# web\n\
cert: \"PEM\\n\"  # --set-file web.cert=cert.pem\n\
image: \"web:2\"  # file prod.yaml\n\
note: \"007\"  # --set-string web.note=007\n\
ports: [80, 443]  # --set-json web.ports=[80,443]\n\
replicas: 3  # --set web.replicas=3\n\
tier: \"silver\"  # package default (kubepkg.yaml)\n";
    assert_values(&ns, dir, &["--explain"], rev1);

    // Revision 2: no user values at all. kubepkg does not carry them over silently (Helm's
    // upgrade would reuse them without a word): it says which are dropped.
    let err = apply(&ns, dir, &[]);
    assert!(
        err.contains(
            "note: values given in revision 1 (from file prod.yaml; --set-json web.ports; --set web.replicas; --set-string web.note; --set-file web.cert) for component(s) web are not kept"
        ),
        "{err}"
    );
    // The note names the keys, never the values given (`--set` may carry a secret).
    assert!(!err.contains("007") && !err.contains("[80,443]"), "{err}");
    assert_values(
        &ns,
        dir,
        &["--explain"],
        "# package shop 1.0.0 revision 2\n\
# web\n\
cert: \"none\"  # chart default\n\
image: \"web:1\"  # chart default\n\
ports: [80]  # chart default\n\
replicas: 1  # chart default\n\
tier: \"silver\"  # package default (kubepkg.yaml)\n",
    );

    // The older revision still explains its own sources (read from its record).
    assert_values(&ns, dir, &["--revision", "1", "--explain"], rev1);
    assert_values(
        &ns,
        dir,
        &["--revision", "1"],
        "# package shop 1.0.0 revision 1\nweb:\n  cert: |\n    PEM\n  image: web:2\n  note: \"007\"\n  ports:\n  - 80\n  - 443\n  replicas: 3\n  tier: silver\n",
    );
}

/// Values for one revision (`--set-once`, `--set-json-once`, `--values-once`): they win over
/// every other source, are recorded and explained as such, and the next apply neither keeps
/// them nor notes them as dropped — the approval an operator gives for one upgrade.
#[tokio::test]
async fn once_values_apply_to_one_revision_only() {
    let (ns, tmp) = namespace_and_package("values-once").await;
    let dir = tmp.path();
    std::fs::write(dir.join("switch.yaml"), "web:\n  tier: gold\n").unwrap();
    apply(
        &ns,
        dir,
        &[
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
    assert_values(
        &ns,
        dir,
        &["--explain"],
        "# package shop 1.0.0 revision 1\n\
# web\n\
approved: [\"s-17\"]  # --set-json-once web.approved=[\"s-17\"]\n\
cert: \"none\"  # chart default\n\
image: \"web:1\"  # chart default\n\
ports: [80]  # chart default\n\
replicas: 5  # --set-once web.replicas=5\n\
tier: \"gold\"  # file switch.yaml (--values-once: this revision only)\n",
    );
    // The next apply gives only the lasting --set: the once values are gone, and only the
    // lasting value would have been worth a note (it is given again, so there is none).
    let err = apply(&ns, dir, &["--set", "web.replicas=2"]);
    assert!(!err.contains("not kept"), "{err}");
    assert_values(
        &ns,
        dir,
        &[],
        "# package shop 1.0.0 revision 2\nweb:\n  cert: none\n  image: web:1\n  ports:\n  - 80\n  replicas: 2\n  tier: silver\n",
    );
    // A third apply with no values at all notes only the lasting --set of revision 2.
    let err = apply(&ns, dir, &[]);
    assert!(
        err.contains("note: values given in revision 2 (from --set web.replicas) for component(s) web are not kept"),
        "{err}"
    );
    // A revision given only once values: the apply after it has nothing to note.
    apply(&ns, dir, &["--set-once", "web.replicas=4"]);
    let err = apply(&ns, dir, &[]);
    assert!(!err.contains("not kept"), "{err}");
}
