//! Generated hostile inputs (issue 16) through the chart layer: values files nested far
//! deeper than any reader allows, `--set` and `--set-json` nesting at and past Helm's limits,
//! huge `--set` indexes, a chart archive of 100 000 entries, and templates that build deep and
//! cyclic values. Each must end in a value or an error: never a panic, an abort or a stack
//! overflow (the tests run on small thread stacks to make overflows likely).

use std::collections::BTreeMap;

use kubepkg_chart::ValueOptions;

/// Run `f` on a thread with a 1 MiB stack (smaller than a test thread's 2 MiB).
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no panic")
}

#[test]
fn values_files_nested_a_hundred_thousand_levels_are_errors() {
    let flow = "flow collections nested deeper than 255 levels are not supported";
    for (text, why) in [
        (
            format!("a: {}{}", "[".repeat(100_000), "]".repeat(100_000)),
            flow,
        ),
        (
            format!("a: {}{}", "{b: ".repeat(100_000), "}".repeat(100_000)),
            flow,
        ),
        // Block nesting grows quadratically with its depth (a hundred thousand levels would be
        // 5 GB of indentation): 12 000 levels, past kubepkg's limit and Helm's, is 72 MB.
        (
            (0..12_000)
                .map(|i| format!("{}k:\n", " ".repeat(i)))
                .collect::<String>(),
            "exceeded max depth of 1000",
        ),
    ] {
        let r = small_stack(move || {
            kubepkg_yaml::load_values_bytes(text.as_bytes())
                .map(|_| ())
                .map_err(|e| e.to_string())
        });
        let e = r.expect_err("nesting past the limit is an error");
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn set_json_is_read_to_helm_s_depth_and_refused_past_it_with_a_reason() {
    let json = |n: usize| format!("{{\"a\":{}{}}}", "[".repeat(n), "]".repeat(n));
    let opts = |j: String| ValueOptions {
        json_values: vec![j],
        ..ValueOptions::default()
    };
    let ok = small_stack(move || opts(json(9_999)).merge().map(|_| ()));
    assert!(ok.is_ok(), "{ok:?}");
    let e = small_stack(move || {
        opts(json(10_001))
            .merge()
            .map(|_| ())
            .unwrap_err()
            .to_string()
    });
    assert_eq!(
        e,
        "failed parsing --set-json data JSON: the value is nested deeper than 10000 levels (Helm's limit)"
    );
    let deep_key = format!("a={}{}", "[".repeat(10_001), "]".repeat(10_001));
    let e = small_stack(move || {
        ValueOptions {
            json_values: vec![deep_key],
            ..ValueOptions::default()
        }
        .merge()
        .map(|_| ())
        .unwrap_err()
        .to_string()
    });
    assert!(e.starts_with("failed parsing --set-json data"), "{e}");
}

#[test]
fn set_with_deep_paths_and_huge_indexes_never_panics() {
    // Helm refuses names nested more than 30 levels and indexes above 65536; list indexes
    // nest without limit (Helm v4.3.1 renders `a[0]…[0]=1` with 1000 of them).
    let long_path = format!("{}=1", vec!["a"; 20_000].join("."));
    for s in [
        long_path,
        "a[2147483647]=1".to_string(),
        "a[-1]=1".to_string(),
    ] {
        let r = small_stack(move || {
            let mut t = BTreeMap::new();
            kubepkg_chart::strvals::parse_into(&s, &mut t).map(|_| ())
        });
        assert!(r.is_err(), "refused");
    }
    let deep_index = format!("a{}=1", "[0]".repeat(20_000));
    let r = small_stack(move || {
        ValueOptions {
            values: vec![deep_index],
            ..ValueOptions::default()
        }
        .merge()
        // A list nested 20 000 levels: freed without recursion.
        .map(kubepkg_value::drop_deep)
    });
    assert!(r.is_ok(), "{r:?}");
}

#[test]
fn values_files_over_the_cap_are_refused_naming_file_and_limit() {
    let dir = tempfile_dir();
    let p = dir.join("big.yaml");
    std::fs::write(
        &p,
        vec![b'#'; (kubepkg_chart::values::MAX_VALUES_FILE + 1) as usize],
    )
    .unwrap();
    let e = kubepkg_chart::values::read_values_file(&p.display().to_string())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "{}: the file is larger than kubepkg's limit of 67108864 bytes for a values file; set KUBEPKG_MAX_VALUES_FILE=BYTES to raise it",
            p.display()
        )
    );
    // /dev/zero never ends: the reader stops at the cap.
    if std::path::Path::new("/dev/zero").exists() {
        let e = kubepkg_chart::values::read_values_file("/dev/zero").unwrap_err();
        assert!(matches!(
            e,
            kubepkg_chart::values::ReadValuesError::TooLarge { .. }
        ));
    }
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, b"a: \"x\xffy\"\n").unwrap();
    let e = kubepkg_chart::values::read_values_text(&bad.display().to_string())
        .unwrap_err()
        .to_string();
    // Helm v4.3.1: `failed to parse FILE: cannot unmarshal yaml document: error converting
    // YAML to JSON: yaml: invalid leading UTF-8 octet`.
    assert_eq!(
        e,
        format!(
            "failed to parse {}: cannot unmarshal yaml document: error converting YAML to JSON: yaml: invalid leading UTF-8 octet",
            bad.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "kubepkg-chart-no-panic-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn invalid_utf8_in_chart_files_is_refused_with_helm_s_text() {
    // Texts recorded from `helm template` (v4.3.1) of the same charts.
    let chart = kubepkg_testkit::tree::tgz;
    let ok_chart: &[u8] = b"apiVersion: v2\nname: u\nversion: 0.1.0\n";
    let e = kubepkg_chart::chart::load_archive(
        &chart(&[
            ("u/Chart.yaml", ok_chart),
            ("u/values.yaml", b"a: \"x\xff\xfey\"\n"),
        ]),
        "u.tgz",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "cannot load values.yaml: cannot unmarshal yaml document: error converting YAML to JSON: yaml: invalid leading UTF-8 octet"
    );
    let e = kubepkg_chart::chart::load_archive(
        &chart(&[(
            "u/Chart.yaml",
            b"apiVersion: v2\nname: u\nversion: 0.1.0\ndescription: \"\xff\"\n",
        )]),
        "u.tgz",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "cannot load Chart.yaml: error converting YAML to JSON: yaml: invalid leading UTF-8 octet"
    );
    // Templates are bytes in Go: invalid UTF-8 in a comment renders, in the output it is
    // refused when Helm reads the manifest.
    let render = |tpl: &[u8]| {
        let c = kubepkg_chart::chart::load_archive(
            &chart(&[("u/Chart.yaml", ok_chart), ("u/templates/t.yaml", tpl)]),
            "u.tgz",
        )
        .unwrap();
        let opts = kubepkg_chart::TemplateOptions {
            release_name: "x".into(),
            ..Default::default()
        };
        kubepkg_chart::render_release(
            c,
            &kubepkg_value::Value::empty_map(),
            &opts,
            &kubepkg_chart::objects::Capabilities::new(None, &[]),
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    assert!(render(b"{{/* \xff */}}a: 1\n").is_ok());
    assert_eq!(
        render(b"a: \"\xff\"\n").unwrap_err(),
        "YAML parse error on u/templates/t.yaml: error converting YAML to JSON: yaml: invalid leading UTF-8 octet"
    );
}

#[test]
fn a_chart_archive_of_a_hundred_thousand_entries_is_refused() {
    let names: Vec<String> = (0..100_000).map(|i| format!("c/f{i}")).collect();
    let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
    let raw = kubepkg_testkit::tree::tgz(&entries);
    let e = kubepkg_chart::chart::load_archive(&raw, "many.tgz")
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 10000 entries"), "{e}");
}
