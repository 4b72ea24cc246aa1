//! Helm's template rules (`rules/template.go`): `templates/` exists, the chart loads, its
//! values coalesce and meet the schemas, every template renders (in lint mode: `required`
//! and `fail` only log), and each rendered YAML file of the chart itself has an allowed
//! extension, no leading indent, documents that parse, conforming object names, no
//! deprecated APIs, selectors on workload controllers and no resource policy inside a
//! `List`. Rendering is kubepkg's one render path (`kubepkg_chart::action::prepare_with` and
//! `kubepkg_chart::render::render_lint`).

use std::path::Path;

use kubepkg_chart::objects::Capabilities;
use kubepkg_chart::render::{ReleaseOptions, render_lint};
use kubepkg_chart::{ChartErrorKind, TemplateOptions};
use kubepkg_value::{Value, map_read, map_write};

use crate::decode::{Stub, documents};
use crate::support::{Linter, Severity};
use crate::{LintOptions, deprecations, names};

const TEMPLATES: &str = "templates/";

/// Runs the template rules of the chart in `dir` with the user's values.
pub fn lint(linter: &mut Linter, dir: &Path, user: &Value, opts: &LintOptions) {
    let tdir = dir.join("templates");
    let md = std::fs::metadata(&tdir);
    if !linter.rule(
        Severity::Warning,
        TEMPLATES,
        md.is_err().then(|| "directory does not exist".to_string()),
    ) {
        return;
    }
    if !linter.rule(
        Severity::Error,
        TEMPLATES,
        md.is_ok_and(|m| !m.is_dir())
            .then(|| "not a directory".to_string()),
    ) {
        return;
    }
    let chart = match kubepkg_chart::load(dir) {
        Ok(c) => c,
        Err(e) => {
            linter.error(TEMPLATES, e.to_string());
            return;
        }
    };
    let templates = chart.templates.clone();
    let name = chart.name().to_string();
    let caps = Capabilities::new(opts.kube_version.clone(), &[]);
    let topts = TemplateOptions {
        release_name: "test-release".into(),
        namespace: opts.namespace.clone(),
        revision: Some(0),
        skip_schema_validation: opts.skip_schema_validation,
        ..TemplateOptions::default()
    };
    let (chart, top) = match kubepkg_chart::action::prepare_with(chart, user, &topts, &caps, false)
    {
        Ok(v) => v,
        Err(e) => {
            // Helm gives up silently when dependencies or values cannot be processed, and
            // reports what the values fail of the schemas.
            if matches!(e.kind, ChartErrorKind::Schema(_)) {
                linter.error(TEMPLATES, e.to_string());
            }
            return;
        }
    };
    // Helm coalesces the values twice here (`CoalesceValues`, then again inside
    // `ToRenderValues`); the second pass only repeats its warnings, which Helm prints.
    let _ = kubepkg_chart::values::coalesce_values(&chart, user);
    // `helm lint`'s release: neither an install nor an upgrade, revision 0.
    if let Value::Map(m) = &top {
        let release = ReleaseOptions {
            name: "test-release".into(),
            namespace: opts.namespace.clone(),
            revision: 0,
            is_install: false,
            is_upgrade: false,
        };
        map_write(m).insert("Release".into(), release.to_value());
    }
    let rendered = match render_lint(&chart, &top) {
        Ok(r) => r,
        Err(e) => {
            linter.error(TEMPLATES, e.to_string());
            return;
        }
    };
    let (major, minor) = kube_major_minor(opts);
    for t in &templates {
        let file = t.name.as_str();
        let ext = go_ext(file);
        linter.rule(
            Severity::Error,
            file,
            (![".yaml", ".yml", ".tpl", ".txt"].contains(&ext)).then(|| {
                format!(
                    "file extension '{ext}' not valid. Valid extensions are .yaml, .yml, .tpl, or .txt"
                )
            }),
        );
        let lower = ext.to_ascii_lowercase();
        if lower != ".yaml" && lower != ".yml" {
            continue;
        }
        let content = rendered
            .get(&format!("{name}/{file}"))
            .map(String::as_str)
            .unwrap_or("");
        if content.trim().is_empty() {
            continue;
        }
        linter.rule(Severity::Warning, file, top_indent(content));
        for doc in documents(content) {
            let stub = match doc {
                Err(e) => {
                    linter.error(file, format!("unable to parse YAML: {e}"));
                    return;
                }
                Ok(None) => continue,
                Ok(Some(s)) => s,
            };
            linter.rule(
                Severity::Warning,
                file,
                names::validate(&stub.kind, &stub.name),
            );
            linter.rule(
                Severity::Warning,
                file,
                deprecations::warning(&stub.api_version, &stub.kind, major, minor),
            );
            linter.rule(Severity::Error, file, match_selector(&stub, content));
            linter.rule(Severity::Error, file, list_annotations(&stub, content));
        }
    }
}

fn kube_major_minor(opts: &LintOptions) -> (u32, u32) {
    let kv = opts
        .kube_version
        .clone()
        .unwrap_or_else(kubepkg_chart::objects::KubeVersion::helm_default);
    let num = |s: &str| {
        s.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or(0)
    };
    (num(&kv.major), num(&kv.minor))
}

/// Go's `filepath.Ext`.
fn go_ext(name: &str) -> &str {
    let base = name.rsplit('/').next().unwrap_or(name);
    match base.rfind('.') {
        Some(i) => &base[i..],
        None => "",
    }
}

fn top_indent(content: &str) -> Option<String> {
    for line in content.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with(' ') || line.starts_with('\t') {
            return Some(format!(
                "document starts with an illegal indent: {}, which may cause parsing problems",
                kubepkg_gostd::strconv::quote(line)
            ));
        }
        return None;
    }
    None
}

fn match_selector(s: &Stub, content: &str) -> Option<String> {
    if !matches!(
        s.kind.as_str(),
        "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet"
    ) {
        return None;
    }
    (!content.contains("matchLabels") && !content.contains("matchExpressions")).then(|| {
        format!(
            "a {} must contain matchLabels or matchExpressions, and {} does not",
            s.kind,
            kubepkg_gostd::strconv::quote(&s.name)
        )
    })
}

fn list_annotations(s: &Stub, content: &str) -> Option<String> {
    if s.kind != "List" {
        return None;
    }
    let first = kubepkg_yaml::split::split_documents(content)
        .ok()
        .and_then(|d| d.into_iter().next())
        .unwrap_or_default();
    let v = match kubepkg_yaml::from_yaml_str(&first) {
        Ok(v) => v,
        Err(e) => return Some(format!("unable to parse YAML: {e}")),
    };
    let Value::Map(m) = v else { return None };
    let items = map_read(&m).get("items").cloned();
    let Some(Value::List(items, _)) = items else {
        return None;
    };
    for item in items.iter() {
        let Value::Map(im) = item else { continue };
        let Some(Value::Map(md)) = map_read(im).get("metadata").cloned() else {
            continue;
        };
        let Some(Value::Map(ann)) = map_read(&md).get("annotations").cloned() else {
            continue;
        };
        if map_read(&ann).contains_key("helm.sh/resource-policy") {
            return Some(
                "annotation 'helm.sh/resource-policy' within List objects are ignored".into(),
            );
        }
    }
    None
}
