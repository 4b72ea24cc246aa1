//! Rendering against the second, independent reference: Helm's Go SDK (v4.2.3 engine) as
//! bundled by the PyPI package `helm-python-sdk`, recorded by `tools/helm-ref/sdk_reference.py`
//! in `testdata/helm-reference/sdk/`. For every chart of the corpus: the SDK and kubepkg must
//! both fail, or both render the same set of templates with equal text (or, where the text
//! differs, equal YAML documents).

use kubepkg_chart::action::{TemplateOptions, prepare};
use kubepkg_chart::objects::Capabilities;
use kubepkg_testkit::helm_reference::{cases, listed, shape};
use kubepkg_value::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn docs(text: &str) -> Vec<serde_json::Value> {
    kubepkg_chart::manifest::split_manifests(text)
        .iter()
        .map(|d| {
            kubepkg_yaml::from_yaml_str(d)
                .map(|v| kubepkg_chart::schema::value_to_json(&v))
                .unwrap_or_else(|e| serde_json::Value::String(format!("unparsable: {e}")))
        })
        .collect()
}

fn ours(path: &Path) -> Result<BTreeMap<String, String>, String> {
    let chart = kubepkg_chart::load(path).map_err(|e| e.to_string())?;
    let opts = TemplateOptions {
        release_name: "release-name".into(),
        namespace: "default".into(),
        ..TemplateOptions::default()
    };
    // The SDK is Helm v4.2.3 built with client-go 0.36: its default Kubernetes is v1.36.0.
    let kube = kubepkg_chart::objects::KubeVersion::parse("v1.36.0").expect("version");
    let caps = Capabilities::new(Some(kube), &[]);
    let (chart, top) =
        prepare(chart, &Value::empty_map(), &opts, &caps).map_err(|e| e.to_string())?;
    kubepkg_chart::render::render(&chart, &top, false).map_err(|e| e.to_string())
}

#[test]
fn rendering_matches_helm_sdk() {
    let entries = cases("sdk", "run tools/helm-ref/sdk_reference.py", 100);
    let exceptions = listed("exceptions.txt");
    let random = listed("nondeterministic.txt");
    let (mut exact, mut semantic, mut structural, mut both_failed, mut excepted) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for e in &entries {
        let case = e.file_stem().unwrap().to_string_lossy().into_owned();
        let want: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(e).expect("read")).expect("json");
        let got = ours(&root().join(want["chart"].as_str().expect("chart path")));
        let problem = match (want["ok"].as_bool() == Some(true), got) {
            (false, Err(_)) => {
                both_failed += 1;
                continue;
            }
            (false, Ok(_)) => format!("SDK failed ({}), kubepkg rendered", want["error"]),
            (true, Err(err)) => format!("SDK rendered, kubepkg failed: {err}"),
            (true, Ok(files)) => {
                let want_files: BTreeMap<String, String> = want["files"]
                    .as_object()
                    .expect("files")
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect();
                if want_files == files {
                    exact += 1;
                    continue;
                }
                let names_a: Vec<&String> = want_files.keys().collect();
                let names_b: Vec<&String> = files.keys().collect();
                if names_a != names_b {
                    format!("templates differ: {names_a:?} vs {names_b:?}")
                } else {
                    let bad: Vec<&String> = want_files
                        .iter()
                        .filter(|(k, v)| docs(v) != docs(&files[*k]))
                        .map(|(k, _)| k)
                        .collect();
                    if bad.is_empty() {
                        semantic += 1;
                        continue;
                    }
                    let same_shape = bad.iter().all(|k| {
                        let (a, b) = (docs(&want_files[*k]), docs(&files[*k]));
                        a.iter().map(shape).collect::<Vec<_>>()
                            == b.iter().map(shape).collect::<Vec<_>>()
                    });
                    if same_shape && random.contains_key(&case) {
                        structural += 1;
                        continue;
                    }
                    let k = bad[0];
                    format!(
                        "{} templates differ, first {k}:\n--- sdk\n{}\n--- kubepkg\n{}",
                        bad.len(),
                        want_files[k],
                        files[k]
                    )
                }
            }
        };
        if exceptions.contains_key(&case) {
            excepted += 1;
        } else {
            failures.push(format!("{case}: {problem}"));
        }
    }
    println!(
        "helm SDK reference: {} charts: {exact} exact, {semantic} semantically equal, {structural} structurally equal (random functions), {both_failed} failing in both, {excepted} listed exceptions, {} mismatches",
        entries.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
