//! Resource limits: pathological templates end in an error (or Go's result), never a panic,
//! a stack overflow or a hang.

use kubepkg_template::{Limits, Templates, Value};

fn helm_set() -> Templates {
    let mut t = Templates::new(vec![]);
    t.enable_helm(None, false);
    t
}

/// Templates `t0` to `t{n-1}`, each including the next (`t{n}` is left undefined).
fn include_chain(n: usize) -> String {
    let mut src = String::new();
    for i in 0..n {
        src.push_str(&format!(
            "{{{{ define \"t{i}\" }}}}{{{{ include \"t{}\" . }}}}{{{{ end }}}}",
            i + 1
        ));
    }
    src
}

/// The message of the error that executing `main` (with Helm's functions, under `limits`)
/// ends in.
fn error_under(limits: Limits, main: &str) -> String {
    let mut t = helm_set();
    t.set_limits(limits);
    t.parse("main", main).unwrap();
    t.execute("main", &Value::Nil)
        .unwrap_err()
        .message()
        .to_string()
}

#[test]
fn ten_thousand_nested_includes_of_distinct_templates_render() {
    // Go has no limit here (each include starts a fresh execution); Helm's limit is per name.
    let mut src = include_chain(10_000);
    src.push_str("{{ define \"t10000\" }}bottom{{ end }}");
    let mut t = helm_set();
    t.parse("defs", &src).unwrap();
    t.parse("main", "{{ include \"t0\" . }}").unwrap();
    assert_eq!(t.execute("main", &Value::Nil).unwrap(), "bottom");
}

#[test]
fn recursive_include_stops_at_helms_limit() {
    let mut t = helm_set();
    t.parse(
        "main",
        "{{ define \"r\" }}{{ include \"r\" . }}{{ end }}{{ include \"r\" . }}",
    )
    .unwrap();
    let e = t.execute("main", &Value::Nil).unwrap_err();
    assert!(e.message().ends_with(
        "error calling include: rendering template has a nested reference name: r: unable to execute template"
    ));
    // Helm lets a name nest 1001 times, then fails on the next include.
    assert_eq!(e.message().matches("executing \"r\"").count(), 1001);
}

#[test]
fn recursive_template_stops_at_gos_depth() {
    let mut t = Templates::new(vec![]);
    t.parse(
        "main",
        "{{ define \"r\" }}{{ template \"r\" . }}{{ end }}{{ template \"r\" . }}",
    )
    .unwrap();
    let e = t.execute("main", &Value::Nil).unwrap_err();
    assert_eq!(
        e.message(),
        "template: main:1:28: executing \"r\" at <{{template \"r\" .}}>: exceeded maximum template depth (100000)"
    );
}

#[test]
fn configured_depth_limit_applies_to_includes() {
    let src = include_chain(100);
    let limits = Limits {
        max_depth: 50,
        ..Limits::default()
    };
    let message = error_under(limits, &format!("{src}{{{{ include \"t0\" . }}}}"));
    assert!(
        message.ends_with("exceeded the maximum nesting of template, include and tpl calls (50); set KUBEPKG_TEMPLATE_MAX_DEPTH=N to raise it"),
        "{message}"
    );
}

#[test]
fn huge_output_is_an_error() {
    // 4^12 = 16M copies of "x" through nested includes.
    let mut src = String::from("{{ define \"l0\" }}xxxx{{ end }}");
    for i in 1..=12 {
        let p = i - 1;
        src.push_str(&format!(
            "{{{{ define \"l{i}\" }}}}{{{{ include \"l{p}\" . }}}}{{{{ include \"l{p}\" . }}}}{{{{ include \"l{p}\" . }}}}{{{{ include \"l{p}\" . }}}}{{{{ end }}}}"
        ));
    }
    src.push_str("{{ include \"l12\" . }}");
    let limits = Limits {
        max_output_bytes: 1 << 20,
        ..Limits::default()
    };
    let message = error_under(limits, &src);
    assert!(
        message.contains("output exceeds the limit of 1048576 bytes"),
        "{message}"
    );
}

#[test]
fn deeply_nested_blocks_and_parens_parse_and_run() {
    let depth = 20_000;
    let src = format!(
        "{}x{}",
        "{{ if true }}".repeat(depth),
        "{{ end }}".repeat(depth)
    );
    let mut t = Templates::new(vec![]);
    t.parse("main", &src).unwrap();
    assert_eq!(t.execute("main", &Value::Nil).unwrap(), "x");
    drop(t);
    let src = format!("{{{{ {}1{} }}}}", "(".repeat(9_000), ")".repeat(9_000));
    let mut t = Templates::new(vec![]);
    t.parse("p", &src).unwrap();
    assert_eq!(t.execute("p", &Value::Nil).unwrap(), "1");
    let src = format!("{{{{ {}1{} }}}}", "(".repeat(10_001), ")".repeat(10_001));
    let e = Templates::new(vec![]).parse("p", &src).unwrap_err();
    assert_eq!(e.message, "template: p:1: max expression depth exceeded");
}

#[test]
fn malformed_inputs_never_panic() {
    let inputs = [
        "{{",
        "}}",
        "{{-",
        "{{- -}}",
        "{{/*",
        "{{ \"\\",
        "{{ '",
        "{{ `",
        "{{ $",
        "{{ . . . }}",
        "{{ (((",
        "{{ ))) }}",
        "{{ define \"x\" }}",
        "{{ end }}{{ end }}",
        "{{ 0x }}",
        "{{ 1e }}",
        "{{ 'ab }}",
        "{{ \"\\xzz\" }}",
        "\u{0}{{ \u{0} }}",
        "{{ .a.b.c.d.e.f.g }}",
        "{{ range $i, $j := . }}{{ end }}",
        "{{ template \"\" }}",
        "{{ ☃ }}",
        "{{ $x := 1 }}{{ $x.y.z }}",
    ];
    for src in inputs {
        let mut t = Templates::new(vec![]);
        if t.parse("x", src).is_ok() {
            let _ = t.execute("x", &Value::Nil);
        }
    }
}
