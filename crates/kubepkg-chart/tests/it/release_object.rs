//! `.Release` as a template sees it when a release layer renders an upgrade: the revision being
//! written and the install/upgrade flags (Helm sets `Revision` to the new record's number, which
//! charts use in annotations to force a rollout on every upgrade).

use kubepkg_chart::objects::Capabilities;
use kubepkg_chart::{TemplateOptions, render_release};
use kubepkg_value::Value;

/// The chart, in a directory of its own removed when the render is done (the tests run side by
/// side in one process).
fn chart_dir() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    kubepkg_testkit::charts::write_chart(
        tmp.path(),
        "rev",
        "0.1.0",
        &[(
            "templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rev\ndata:\n  revision: {{ .Release.Revision | quote }}\n  upgrade: {{ .Release.IsUpgrade | quote }}\n  install: {{ .Release.IsInstall | quote }}\n",
        )],
    );
    tmp
}

fn render(revision: Option<i64>, is_upgrade: bool) -> String {
    let tmp = chart_dir();
    let dir = tmp.path().to_path_buf();
    let chart = kubepkg_chart::load(&dir).unwrap();
    let opts = TemplateOptions {
        release_name: "r".into(),
        chart: dir.clone(),
        namespace: "default".into(),
        is_upgrade,
        revision,
        ..Default::default()
    };
    let caps = Capabilities::new(None, &[]);
    let out = render_release(chart, &Value::empty_map(), &opts, &caps).unwrap();
    out.manifest
}

#[test]
fn template_without_revision_renders_revision_one_as_helm_template() {
    let m = render(None, false);
    assert!(m.contains("revision: \"1\""), "{m}");
    assert!(m.contains("install: \"true\""), "{m}");
}

#[test]
fn upgrade_renders_the_revision_being_written() {
    let m = render(Some(4), true);
    assert!(m.contains("revision: \"4\""), "{m}");
    assert!(m.contains("upgrade: \"true\""), "{m}");
    assert!(m.contains("install: \"false\""), "{m}");
}
