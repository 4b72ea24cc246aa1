//! Helm-engine cases: each case in `helm-cases.jsonl` was rendered by Helm's real engine
//! (helm.sh/helm/v4 pkg/engine, through the repository's `oracle/`; regenerate with
//! `go-oracle/regen.sh`). The engine in Helm mode must reproduce the output, the raw Go error
//! (`go_error`) and Helm's reformatted error (`error`) byte for byte.

use kubepkg_template::{Templates, Value, helm};

use crate::common::check_corpus;
use kubepkg_yaml::json::from_json;

/// Render like Helm's `Engine.render`: parse every file in Helm's order, execute every
/// non-partial file; return (output of main.tpl, or (helm error, go error)).
fn render(
    templates: &serde_json::Map<String, serde_json::Value>,
    values: &Value,
) -> Result<String, (String, String)> {
    let mut t = Templates::new(vec![]);
    t.enable_helm(None, false);
    let mut names: Vec<String> = templates
        .keys()
        .map(|n| format!("corpus/templates/{n}"))
        .collect();
    helm::sort_templates(&mut names);
    for n in &names {
        let text = templates[n.trim_start_matches("corpus/templates/")]
            .as_str()
            .unwrap_or("");
        if let Err(e) = t.parse(n, text) {
            return Err((helm::parse_error_text(n, &e), e.message));
        }
    }
    let mut main = String::new();
    for n in &names {
        if n.rsplit('/').next().unwrap_or("").starts_with('_') {
            continue;
        }
        let tmpl = Value::map(
            [
                ("Name".to_string(), Value::str(n)),
                ("BasePath".to_string(), Value::str("corpus/templates")),
            ]
            .into_iter()
            .collect(),
        );
        let top = Value::map(
            [
                ("Values".to_string(), values.clone()),
                ("Template".to_string(), tmpl),
            ]
            .into_iter()
            .collect(),
        );
        match t.execute(n, &top) {
            Ok(s) => {
                if n.ends_with("/main.tpl") {
                    main = helm::scrub_no_value(&s);
                }
            }
            Err(e) => return Err((helm::exec_error_text(n, &e), e.message().to_string())),
        }
    }
    Ok(main)
}

#[test]
fn helm_mode_matches_helm_engine() {
    check_corpus(include_str!("../helm-cases.jsonl"), "Helm", |c, line| {
        let values = from_json(c["values"].as_str().unwrap_or("{}")).expect("values are JSON");
        let templates = c["templates"].as_object().expect("templates map");
        let got = render(templates, &values);
        let want = match (
            c["output"].as_str(),
            c["error"].as_str(),
            c["go_error"].as_str(),
        ) {
            (Some(o), _, _) => Ok(o.to_string()),
            (_, Some(e), Some(g)) => Err((e.to_string(), g.to_string())),
            _ => panic!("case without expectation: {line}"),
        };
        (got != want).then(|| {
            let short = |s: String| {
                if s.len() > 600 {
                    format!("{}…", &s[..600])
                } else {
                    s
                }
            };
            format!(
                "{}: {:?}\n   want {}\n    got {}",
                c["name"],
                templates,
                short(format!("{want:?}")),
                short(format!("{got:?}"))
            )
        })
    });
}
