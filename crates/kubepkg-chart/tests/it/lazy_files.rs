//! Files stay on disk until used: loading a chart directory reads `Chart.yaml`, values, subchart
//! archives and small templates; a large template (a CRD) is read when the render parses it
//! (never, for a subchart its condition disables), `.Files` and `crds/` (of the chart and its
//! subcharts) when a template, `--include-crds` or an install asks for them.

use kubepkg_chart::{Chart, TemplateOptions};
use std::path::Path;

fn write(root: &Path, name: &str, text: &[u8]) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A template of `name` (a ConfigMap) larger than what the loader reads while loading (a YAML
/// comment of 40 KB after it).
fn large_template(name: &str) -> Vec<u8> {
    let mut text =
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n").into_bytes();
    text.extend(b"# padding\n".repeat(4096));
    text
}

/// A chart whose small template reads `config/app.conf`, with a large template, a CRD (behind a
/// UTF-8 byte order mark, which Helm's loader strips), a README, a subchart with a CRD of its
/// own, and a subchart its condition disables (its template large).
fn chart(root: &Path) {
    write(
        root,
        "Chart.yaml",
        b"apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 1.0.0\n- name: dormant\n  version: 1.0.0\n  condition: dormant.enabled\n",
    );
    write(root, "values.yaml", b"dormant:\n  enabled: false\n");
    write(
        root,
        "charts/dormant/Chart.yaml",
        b"apiVersion: v2\nname: dormant\nversion: 1.0.0\n",
    );
    write(
        root,
        "charts/dormant/templates/cm.yaml",
        &large_template("dormant"),
    );
    write(root, "templates/large.yaml", &large_template("large"));
    write(
        root,
        "templates/cm.yaml",
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  app.conf: {{ .Files.Get \"config/app.conf\" | quote }}\n",
    );
    write(root, "config/app.conf", b"answer=42");
    write(
        root,
        "crds/widgets.yaml",
        b"\xEF\xBB\xBFapiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n",
    );
    write(root, "README.md", b"# app\n");
    write(
        root,
        "charts/sub/Chart.yaml",
        b"apiVersion: v2\nname: sub\nversion: 1.0.0\n",
    );
    write(
        root,
        "charts/sub/crds/gadgets.yaml",
        b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\n",
    );
}

/// Whether the file `name` of `chart` (or of a subchart, `sub/name`, `dormant/name`) is in memory.
fn read(chart: &Chart, name: &str) -> bool {
    let (chart, name) = match name.split_once('/') {
        Some((sub @ ("sub" | "dormant"), rest)) => (
            chart
                .dependencies
                .iter()
                .find(|d| d.name() == sub)
                .unwrap_or_else(|| panic!("no subchart {sub}")),
            rest,
        ),
        _ => (chart, name),
    };
    let file = chart
        .files
        .iter()
        .chain(&chart.templates)
        .find(|f| f.name == name);
    file.unwrap_or_else(|| panic!("{name} is not a file of the chart"))
        .data
        .is_read()
}

/// `chart` rendered with `opts`, no user values, Helm's default capabilities.
fn render(chart: &Chart, opts: &TemplateOptions) -> kubepkg_chart::RenderedRelease {
    let caps = kubepkg_chart::objects::Capabilities::new(None, &[]);
    kubepkg_chart::render_release(
        chart.clone(),
        &kubepkg_value::Value::empty_map(),
        opts,
        &caps,
    )
    .unwrap()
}

#[test]
fn files_and_crds_are_read_when_a_render_asks_for_them() {
    let dir = tempfile::tempdir().unwrap();
    chart(dir.path());
    let loaded = kubepkg_chart::load(dir.path()).unwrap();
    assert!(
        read(&loaded, "templates/cm.yaml"),
        "a small template is read at load"
    );
    for unread in [
        "templates/large.yaml",
        "dormant/templates/cm.yaml",
        "config/app.conf",
        "crds/widgets.yaml",
        "README.md",
        "sub/crds/gadgets.yaml",
    ] {
        assert!(!read(&loaded, unread), "{unread} is read at load");
    }

    let opts = TemplateOptions {
        release_name: "rel".into(),
        ..Default::default()
    };
    let out = render(&loaded, &opts);
    assert!(
        out.manifest.contains("app.conf: \"answer=42\""),
        "{}",
        out.manifest
    );
    assert!(!out.manifest.contains("name: dormant"), "{}", out.manifest);
    assert!(out.manifest.contains("name: large"), "{}", out.manifest);
    assert!(
        read(&loaded, "templates/large.yaml"),
        "the render parsed it"
    );
    assert!(read(&loaded, "config/app.conf"), "the template read it");
    for unread in [
        "crds/widgets.yaml",
        "README.md",
        "sub/crds/gadgets.yaml",
        "dormant/templates/cm.yaml",
    ] {
        assert!(
            !read(&loaded, unread),
            "{unread} is read by a render without CRDs"
        );
    }

    let with_crds = TemplateOptions {
        include_crds: true,
        ..opts
    };
    let out = render(&loaded, &with_crds);
    assert!(
        out.manifest.starts_with(
            "---\n# Source: app/crds/widgets.yaml\napiVersion: apiextensions.k8s.io/v1\n"
        ),
        "the CRD printed first, its byte order mark stripped: {:?}",
        out.manifest
    );
    assert!(
        out.manifest
            .contains("# Source: app/charts/sub/crds/gadgets.yaml\n"),
        "{}",
        out.manifest
    );
    assert!(read(&loaded, "crds/widgets.yaml") && read(&loaded, "sub/crds/gadgets.yaml"));
}

#[test]
fn a_file_that_goes_away_after_loading_reads_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    chart(dir.path());
    let loaded = kubepkg_chart::load(dir.path()).unwrap();
    std::fs::remove_file(dir.path().join("config/app.conf")).unwrap();
    let opts = TemplateOptions {
        release_name: "rel".into(),
        ..Default::default()
    };
    let out = render(&loaded, &opts);
    assert!(out.manifest.contains("app.conf: \"\""), "{}", out.manifest);
}
