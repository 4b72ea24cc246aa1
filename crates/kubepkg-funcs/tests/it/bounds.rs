//! Bounded templates (issue 16, points 9 and 10): values that contain themselves, deep values,
//! and templates that would run or allocate without end. Where Helm has an answer the expected
//! text is what Helm v4.3.1 printed for the same template (`helm template` of a chart holding
//! it, recorded by hand); where Go crashes or never finishes (printing a cyclic map, `deepCopy`,
//! `toYamlPretty`, `toToml` of one, `tpl` calling itself) the test asks for an error naming the
//! template, its line and column and the reason.

use kubepkg_template::{Limits, Templates, Value, helm};

fn render_with(src: &str, limits: Limits) -> Result<String, String> {
    let mut t = Templates::with_funcs(kubepkg_funcs::helm_table());
    t.enable_helm(None, false);
    t.set_limits(limits);
    t.parse("c/templates/t.yaml", src)
        .map_err(|e| helm::parse_error_text("c/templates/t.yaml", &e))?;
    let mut top = std::collections::BTreeMap::new();
    top.insert(
        "Values".to_string(),
        Value::typed_map(kubepkg_value::MapType::HelmValues, Default::default()),
    );
    t.execute("c/templates/t.yaml", &Value::map(top))
        .map(|s| helm::scrub_no_value(&s))
        .map_err(|e| e.message().to_string())
}

fn render(src: &str) -> Result<String, String> {
    render_with(src, Limits::default())
}

const SELF: &str = r#"{{ $d := dict }}{{ $_ := set $d "self" $d }}"#;

#[test]
fn to_yaml_and_to_json_of_a_cyclic_map_print_nothing_like_helm() {
    // Helm: the Go marshaller fails and Helm's toYaml/toJson/toPrettyJson swallow the error.
    assert_eq!(
        render(&format!("{SELF}[{{{{ toYaml $d }}}}]")).unwrap(),
        "[]"
    );
    assert_eq!(
        render(&format!("{SELF}[{{{{ toJson $d }}}}]")).unwrap(),
        "[]"
    );
    assert_eq!(
        render(&format!("{SELF}[{{{{ toPrettyJson $d }}}}]")).unwrap(),
        "[]"
    );
    assert_eq!(
        render(r#"{{ $_ := set .Values "self" .Values }}[{{ toJson .Values }}]"#).unwrap(),
        "[]"
    );
}

#[test]
fn must_variants_fail_with_go_s_cycle_error() {
    // The chart's template was `a: ` followed by this, hence column 50.
    let e = render(&format!("a: {SELF}{{{{ mustToJson $d }}}}")).unwrap_err();
    assert_eq!(
        e,
        "template: c/templates/t.yaml:1:50: executing \"c/templates/t.yaml\" at <mustToJson $d>: \
         error calling mustToJson: json: unsupported value: encountered a cycle via map[string]interface {}"
    );
    let e = render(&format!("{SELF}{{{{ mustToYaml $d }}}}")).unwrap_err();
    assert!(
        e.ends_with(
            "error calling mustToYaml: error marshaling into JSON: json: unsupported value: \
             encountered a cycle via map[string]interface {}"
        ),
        "{e}"
    );
    let e =
        render(r#"{{ $_ := set .Values "self" .Values }}{{ mustToJson .Values }}"#).unwrap_err();
    assert!(e.ends_with("encountered a cycle via common.Values"), "{e}");
    // Go starts remembering containers 1000 levels down, so the type named is the one found
    // there: the list in a map ↔ list cycle (Helm: "via []interface {}").
    let e = render(r#"{{ $d := dict }}{{ $_ := set $d "self" (list $d) }}{{ mustToRawJson $d }}"#)
        .unwrap_err();
    assert!(e.ends_with("encountered a cycle via []interface {}"), "{e}");
    // Sprig's toRawJson panics on the error, so it fails too (Helm: the same text).
    let e = render(&format!("{SELF}{{{{ toRawJson $d }}}}")).unwrap_err();
    assert!(
        e.contains("error calling toRawJson: json: unsupported value"),
        "{e}"
    );
}

#[test]
fn printing_or_copying_a_cyclic_map_is_an_error_where_go_crashes() {
    for (src, at) in [
        (
            "{{ $d }}",
            "1:47: executing \"c/templates/t.yaml\" at <{{$d}}>: cannot print it:",
        ),
        (
            "{{ printf \"%v\" $d }}",
            "1:47: executing \"c/templates/t.yaml\" at <printf \"%v\" $d>: error calling printf:",
        ),
        (
            "{{ deepCopy $d }}",
            "1:47: executing \"c/templates/t.yaml\" at <deepCopy $d>: error calling deepCopy:",
        ),
        ("{{ toString $d }}", "error calling toString:"),
        ("{{ toYamlPretty $d }}", "error calling toYamlPretty:"),
        ("{{ toToml $d }}", "error calling toToml:"),
    ] {
        let e = render(&format!("{SELF}{src}")).unwrap_err();
        assert!(e.contains(at), "{src}: {e}");
        assert!(
            e.contains("the value contains itself (a cycle via map[string]interface {})"),
            "{src}: {e}"
        );
    }
}

#[test]
fn to_yaml_refuses_values_nested_deeper_than_go_yaml_reads() {
    // Helm: 10 000 nested lists are written, 10 001 fail in go-yaml's reader (toYaml prints "").
    let deep = |n: usize, f: &str| {
        format!(
            "{{{{ $d := list }}}}{{{{ range until {n} }}}}{{{{ $d = list $d }}}}{{{{ end }}}}{{{{ {f} $d | len }}}}"
        )
    };
    assert_eq!(render(&deep(9_999, "mustToYaml")).unwrap(), "20000");
    let e = render(&deep(10_000, "mustToYaml")).unwrap_err();
    assert!(
        e.ends_with("error calling mustToYaml: yaml: exceeded max depth of 10000"),
        "{e}"
    );
    assert_eq!(render(&deep(10_000, "toYaml")).unwrap(), "0");
    // encoding/json has no depth limit: 20 002 brackets.
    assert_eq!(render(&deep(10_000, "toJson")).unwrap(), "20002");
}

#[test]
fn a_deep_value_built_by_a_template_is_printed_and_freed_on_a_small_stack() {
    let src = "{{ $d := dict }}{{ range until 100000 }}{{ $d = dict \"a\" $d }}{{ end }}\
               {{ $d | toString | len }}";
    let out = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || render(src))
        .unwrap()
        .join()
        .unwrap();
    // map[a:map[a:…map[]…]]: 6 bytes per level and "map[]".
    assert_eq!(out.unwrap(), (100_000 * 7 + 5).to_string());
}

#[test]
fn long_strings_and_lists_are_refused_before_they_are_made() {
    let e = render("{{ randAlphaNum 1000000000 }}").unwrap_err();
    assert_eq!(
        e,
        "template: c/templates/t.yaml:1:3: executing \"c/templates/t.yaml\" at <randAlphaNum 1000000000>: \
         error calling randAlphaNum: the result would be 1000000000 bytes, over kubepkg's limit of \
         67108864 bytes for one string; set KUBEPKG_TEMPLATE_MAX_STRING=BYTES to raise it"
    );
    for src in [
        "{{ randAlpha 70000000 }}",
        "{{ randNumeric 70000000 }}",
        "{{ randAscii 70000000 }}",
        "{{ repeat 70000000 \"x\" }}",
        "{{ indent 70000000 \"x\" }}",
        "{{ nindent 70000000 \"x\" }}",
    ] {
        let e = render(src).unwrap_err();
        assert!(e.contains("KUBEPKG_TEMPLATE_MAX_STRING"), "{src}: {e}");
    }
    let small = Limits {
        max_string_bytes: 10,
        ..Limits::default()
    };
    assert_eq!(
        render_with("{{ randAlphaNum 10 | len }}", small).unwrap(),
        "10"
    );
    assert!(render_with("{{ randAlphaNum 11 }}", small).is_err());
    let e = render("{{ until 1000000000 }}").unwrap_err();
    assert!(e.contains("KUBEPKG_TEMPLATE_MAX_LIST"), "{e}");
    assert!(render("{{ untilStep 0 1000000000000 1 }}").is_err());
    assert!(render("{{ seq 1000000000 }}").is_err());
    assert_eq!(render("{{ untilStep 0 10 3 }}").unwrap(), "[0 3 6 9]");
    assert_eq!(render("{{ untilStep 10 0 -4 }}").unwrap(), "[10 6 2]");
}

#[test]
fn nested_ranges_stop_at_the_operation_limit() {
    let l = Limits {
        max_operations: 10_000,
        ..Limits::default()
    };
    let src = "{{ range $i := until 100000 }}{{ range $j := until 100000 }}{{ end }}{{ end }}";
    let e = render_with(src, l).unwrap_err();
    assert!(e.starts_with("template: c/templates/t.yaml:1:"), "{e}");
    assert!(
        e.contains(
            "the template ran more than 10000 operations (range iterations, function and \
             template calls), kubepkg's limit; set KUBEPKG_TEMPLATE_MAX_OPERATIONS=N to raise it"
        ),
        "{e}"
    );
    // Within the limit the same loops run.
    let src = "{{ range $i := until 50 }}{{ range $j := until 50 }}{{ end }}{{ end }}ok";
    assert_eq!(render_with(src, l).unwrap(), "ok");
}

#[test]
fn tpl_calling_itself_stops_at_the_tpl_limit() {
    let src = r#"{{ $_ := set .Values "t" "{{ tpl .Values.t . }}" }}{{ tpl .Values.t . }}"#;
    let e = render(src).unwrap_err();
    assert!(
        e.ends_with(
            "error calling tpl: exceeded the maximum nesting of tpl calls (100); set \
             KUBEPKG_TEMPLATE_MAX_TPL_DEPTH=N to raise it"
        ),
        "{}",
        &e[e.len().saturating_sub(300)..]
    );
    let l = Limits {
        max_tpl_depth: 3,
        ..Limits::default()
    };
    let two = r#"{{ tpl "{{ tpl \"x\" . }}" . }}"#;
    assert_eq!(render_with(two, l).unwrap(), "x");
    let four = r#"{{ tpl "{{ tpl \"{{ tpl \\\"{{ tpl \\\\\\\"y\\\\\\\" . }}\\\" . }}\" . }}" . }}"#;
    assert!(
        render_with(four, l)
            .unwrap_err()
            .contains("nesting of tpl calls (3)")
    );
}

#[test]
fn output_limit_names_its_variable() {
    let l = Limits {
        max_output_bytes: 100,
        ..Limits::default()
    };
    let e = render_with("{{ range until 1000 }}xx{{ end }}", l).unwrap_err();
    assert!(
        e.contains("output exceeds the limit of 100 bytes; set KUBEPKG_TEMPLATE_MAX_OUTPUT=BYTES to raise it"),
        "{e}"
    );
}
