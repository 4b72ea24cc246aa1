//! Fuzz targets (issue 16): the template parser and executor, the YAML/JSON/TOML readers, the
//! `--set` parser and the chart archive loader, each fed a fixed number of seeded mutations of
//! the committed corpora (`KUBEPKG_FUZZ_RUNS` runs more, see `kubepkg_testkit::fuzz`). The property is
//! "never panics, never overflows the stack, never runs away": every input either succeeds or
//! returns an error, the template executor within its small operation limit.

use std::collections::BTreeMap;
use std::path::Path;

use kubepkg_template::{Limits, Templates, Value};
use kubepkg_testkit::fuzz::run;
use kubepkg_testkit::tree::tgz;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Every string field `field` of the JSON lines files in `dir` (a corpus).
fn jsonl_strings(dir: &str, field: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(repo().join(dir))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            match &v[field] {
                serde_json::Value::String(s) => out.push(s.as_bytes().to_vec()),
                serde_json::Value::Object(m) => out.extend(
                    m.values()
                        .filter_map(|x| x.as_str())
                        .map(|s| s.as_bytes().to_vec()),
                ),
                _ => {}
            }
        }
    }
    out
}

const TEMPLATE_TOKENS: &[&[u8]] = &[
    b"{{",
    b"}}",
    b"{{-",
    b"-}}",
    b"(",
    b")",
    b"|",
    b"$x",
    b":=",
    b"=",
    b".Values",
    b".",
    b" range ",
    b" if ",
    b" with ",
    b" end ",
    b" else ",
    b" define \"d\" ",
    b" template \"d\" ",
    b" include \"d\" . ",
    b" tpl ",
    b" toYaml ",
    b" toJson ",
    b" fromYaml ",
    b" dict ",
    b" list ",
    b" set ",
    b" deepCopy ",
    b" until 100 ",
    b" repeat 5 ",
    b" indent 3 ",
    b" printf \"%v\" ",
    b"\"",
    b"`",
    b"'",
    b" 1e9 ",
    b" -1 ",
    b" nil ",
    b"\xff",
    b"\n",
];

#[test]
fn fuzz_template_parser_and_executor() {
    let corpus = jsonl_strings("testdata/template-corpus", "templates");
    let funcs = kubepkg_funcs::helm_table();
    // Small limits: a mutant may loop; it must stop with an error, quickly.
    let limits = Limits {
        max_operations: 20_000,
        max_output_bytes: 1 << 20,
        max_string_bytes: 1 << 20,
        max_list_len: 10_000,
        max_depth: 200,
        max_tpl_depth: 10,
    };
    let mut values = BTreeMap::new();
    values.insert("a".to_string(), Value::str("x"));
    values.insert(
        "list".to_string(),
        Value::list(vec![Value::Float(1.0), Value::str("b")]),
    );
    let mut top = BTreeMap::new();
    top.insert("Values".to_string(), Value::map(values));
    let top = Value::map(top);
    let runs = run("template", &corpus, TEMPLATE_TOKENS, 10_000, |input| {
        let text = String::from_utf8_lossy(input);
        let mut t = Templates::with_funcs(funcs.clone());
        t.enable_helm(None, false);
        t.set_limits(limits);
        if t.parse("t", &text).is_ok() {
            let _ = t.execute("t", &top);
        }
    });
    assert_eq!(runs, kubepkg_testkit::fuzz::runs(10_000));
}

const YAML_TOKENS: &[&[u8]] = &[
    b": ",
    b"- ",
    b"\n",
    b"  ",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b"&a ",
    b"*a",
    b"<<: *a",
    b"!!str ",
    b"!!binary ",
    b"|",
    b">-",
    b"'",
    b"\"",
    b"#",
    b"---\n",
    b"...\n",
    b"? ",
    b"~",
    b"1e999",
    b"0x1F",
    b"\t",
    b"\xff",
    b"\xe6\x97",
    b"\\u0000",
];

#[test]
fn fuzz_yaml_json_and_toml_readers() {
    let mut corpus = jsonl_strings("testdata/yaml-corpus", "yaml");
    corpus.extend(jsonl_strings("testdata/yaml-corpus", "json"));
    corpus.push(b"a = 1\n[t]\nb = [1, 2]\n".to_vec());
    run("yaml", &corpus, YAML_TOKENS, 25_000, |input| {
        let _ = kubepkg_yaml::load_values_bytes(input);
        if let Ok(text) = kubepkg_yaml::text(input) {
            let _ = kubepkg_yaml::from_yaml_documents(text);
            let _ = kubepkg_yaml::yaml_to_json(text);
            if let Ok(v) = kubepkg_yaml::from_yaml_str(text) {
                let _ = kubepkg_yaml::to_yaml(&v);
                let _ = kubepkg_yaml::json::to_json(&v);
            }
            let _ = kubepkg_yaml::json::from_json(text);
            let _ = kubepkg_yaml::toml::from_toml(text);
        }
    });
}

#[test]
fn fuzz_set_parser() {
    let corpus: Vec<Vec<u8>> = [
        "a=b",
        "a.b.c=1",
        "a[0]=x",
        "a[1].b=c,d=e",
        "a={x,y}",
        "a\\.b=c",
        "name=null",
        "a[3][2]=1",
        "x=\"quoted\"",
        "a.b[0].c[1]=2",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let tokens: &[&[u8]] = &[
        b"=", b".", b",", b"[", b"]", b"{", b"}", b"\\", b"[99999]", b"[-1]",
    ];
    run("set", &corpus, tokens, 25_000, |input| {
        let s = String::from_utf8_lossy(input);
        let mut t = BTreeMap::new();
        let _ = kubepkg_chart::strvals::parse_into(&s, &mut t);
        let mut t = BTreeMap::new();
        let _ = kubepkg_chart::strvals::parse_json(&s, &mut t);
    });
}

/// Mutations of a chart's files, packed as a `.tgz` (so the gzip and tar layers stay valid
/// and the chart loader sees the mutated contents), and of the raw archive bytes.
#[test]
fn fuzz_chart_archive_loader() {
    let chart =
        b"apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n- name: d\n  version: 1.0.0\n"
            .to_vec();
    let values = b"a: 1\nlist: [1, 2]\n".to_vec();
    let tpl = b"a: {{ .Values.a }}\n".to_vec();
    let corpus = vec![chart.clone(), values.clone(), tpl.clone()];
    run("chart-archive", &corpus, YAML_TOKENS, 1_500, |input| {
        let raw = tgz(&[
            ("c/Chart.yaml", input),
            ("c/values.yaml", &values),
            ("c/templates/t.yaml", &tpl),
            (
                "c/charts/d/Chart.yaml",
                b"apiVersion: v2\nname: d\nversion: 1.0.0\n",
            ),
        ]);
        let _ = kubepkg_chart::chart::load_archive(&raw, "c.tgz");
        let raw = tgz(&[("c/Chart.yaml", &chart), ("c/values.yaml", input)]);
        let _ = kubepkg_chart::chart::load_archive(&raw, "c.tgz");
        // The archive bytes themselves, mutated.
        let mut bytes = raw.clone();
        if !input.is_empty() {
            let i = input[0] as usize % bytes.len();
            bytes[i] ^= input.get(1).copied().unwrap_or(0x55);
        }
        let _ = kubepkg_chart::chart::load_archive(&bytes, "c.tgz");
    });
}
