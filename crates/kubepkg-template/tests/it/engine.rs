//! Behaviour of the engine against Go text/template semantics (expected values are Go's
//! documented/observed output).

use std::collections::BTreeMap;

use kubepkg_template::{ArgType, Function, MissingKey, Templates, Value};

fn map(entries: &[(&str, Value)]) -> Value {
    Value::map(
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect::<BTreeMap<_, _>>(),
    )
}

fn upper(a: &[Value]) -> Result<Value, String> {
    Ok(Value::str(a[0].as_str().unwrap_or("").to_uppercase()))
}

fn funcs() -> Vec<Function> {
    vec![Function {
        name: "upper",
        params: &[ArgType::String],
        variadic: None,
        call: upper,
    }]
}

fn run_with(text: &str, data: &Value, helm: bool) -> String {
    let mut t = Templates::new(funcs());
    if helm {
        t.enable_helm(None, false);
    }
    if let Err(e) = t.parse("t", text) {
        return format!("PARSE: {e}");
    }
    match t.execute("t", data) {
        Ok(s) => s,
        Err(e) => format!("ERR: {e}"),
    }
}

/// Renders each `(template, expected output)` case against `data` (Go's builtins, and Helm's
/// functions too with `helm`); a case whose output differs is named by its template.
fn assert_renders_with(cases: &[(&str, &str)], data: &Value, helm: bool) {
    for &(text, want) in cases {
        assert_eq!(run_with(text, data, helm), want, "template {text:?}");
    }
}

/// [`assert_renders_with`] without Helm's functions.
fn assert_renders(cases: &[(&str, &str)], data: &Value) {
    assert_renders_with(cases, data, false);
}

fn values() -> Value {
    map(&[
        ("a", map(&[("b", Value::str("x"))])),
        ("n", Value::Float(1_000_000.0)),
        ("i", Value::Int(3)),
        ("s", Value::str("hello")),
        ("l", Value::list(vec![Value::str("p"), Value::str("q")])),
        ("z", Value::Nil),
    ])
}

#[test]
fn fields_and_missing_keys() {
    assert_renders(
        &[
            ("{{ .a.b }}", "x"),
            ("{{ .missing }}", "<no value>"),
            (
                "{{ .missing.foo }}",
                "ERR: template: t:1:11: executing \"t\" at <.missing.foo>: nil pointer evaluating interface {}.foo",
            ),
            (
                "{{ .s.foo }}",
                "ERR: template: t:1:5: executing \"t\" at <.s.foo>: can't evaluate field foo in type interface {}",
            ),
            ("{{ $x := .missing }}{{ $x.foo }}", "<no value>"),
            ("{{ .n }} {{ .i }}", "1e+06 3"),
            ("{{ print .missing }}", "<nil>"),
        ],
        &values(),
    );
}

#[test]
fn missingkey_error() {
    let mut t = Templates::new(vec![]);
    t.set_missing_key(MissingKey::Error);
    t.parse("t", "{{ .nope }}").unwrap();
    let e = t.execute("t", &values()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "template: t:1:3: executing \"t\" at <.nope>: map has no entry for key \"nope\""
    );
}

#[test]
fn control_structures() {
    assert_renders(
        &[
            (
                "{{ range $i, $e := .l }}{{ $i }}={{ $e }};{{ end }}",
                "0=p;1=q;",
            ),
            ("{{ range .a }}{{ . }}{{ end }}", "x"),
            ("{{ range 3 }}{{ . }}{{ end }}", "012"),
            ("{{ range .nil }}x{{ else }}empty{{ end }}", "empty"),
            (
                "{{ range $i, $e := .l }}{{ if eq $i 1 }}{{ break }}{{ end }}{{ $e }}{{ end }}",
                "p",
            ),
            (
                "{{ range .l }}{{ if eq . \"p\" }}{{ continue }}{{ end }}{{ . }}{{ end }}",
                "q",
            ),
            (
                "{{ with .missing }}a{{ else with .s }}{{ . }}{{ end }}",
                "hello",
            ),
            ("{{ if .z }}a{{ else if .i }}b{{ end }}", "b"),
            (
                "{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}",
                "2",
            ),
            ("a  {{- 1 -}}  b", "a1b"),
            ("{{/* c */}}x", "x"),
            (
                "{{ range $i, $e := 3 }}{{ end }}",
                "ERR: template: t:1:19: executing \"t\" at <3>: can't use 3 to iterate over more than one variable",
            ),
            (
                "{{ range .s }}{{ end }}",
                "ERR: template: t:1:9: executing \"t\" at <.s>: range can't iterate over hello",
            ),
        ],
        &values(),
    );
}

#[test]
fn templates_and_blocks() {
    assert_renders(
        &[
            (
                "{{ define \"x\" }}[{{ . }}]{{ end }}{{ template \"x\" .s }}",
                "[hello]",
            ),
            ("{{ block \"b\" .i }}<{{ . }}>{{ end }}", "<3>"),
            (
                "{{ template \"nope\" }}",
                "ERR: template: t:1:12: executing \"t\" at <{{template \"nope\"}}>: template \"nope\" not defined",
            ),
        ],
        &values(),
    );
}

#[test]
fn comparisons() {
    assert_renders(
        &[
            (
                "{{ eq 1 1 }} {{ ne \"a\" \"b\" }} {{ lt 1 2 }} {{ ge 2.5 2.5 }}",
                "true true true true",
            ),
            ("{{ eq .s \"x\" \"hello\" }}", "true"),
            (
                "{{ eq .n 1 }}",
                "ERR: template: t:1:3: executing \"t\" at <eq .n 1>: error calling eq: incompatible types for comparison: float64 and int",
            ),
            (
                "{{ lt .l 1 }}",
                "ERR: template: t:1:3: executing \"t\" at <lt .l 1>: error calling lt: invalid type for comparison",
            ),
            ("{{ eq .missing nil }}", "true"),
            ("{{ and 1 0 2 }} {{ or 0 \"\" 3 }} {{ not .z }}", "0 3 true"),
            (
                "{{ and 0 (fail) }}",
                "PARSE: template: t:1: function \"fail\" not defined",
            ),
        ],
        &values(),
    );
}

#[test]
fn builtins() {
    assert_renders(
        &[
            (
                "{{ len .l }} {{ len .s }} {{ index .l 1 }} {{ index .a \"b\" }}",
                "2 5 q x",
            ),
            (
                "{{ index .l 5 }}",
                "ERR: template: t:1:3: executing \"t\" at <index .l 5>: error calling index: index out of range: 5",
            ),
            ("{{ slice .s 1 3 }} {{ slice .l 1 }}", "el [q]"),
            (
                "{{ printf \"%05.1f|%q|%v\" 12.34567 \"a\" .l }}",
                "012.3|\"a\"|[p q]",
            ),
            ("{{ print 1 2 \"a\" }} {{ println \"x\" }}", "1 2a x\n"),
            ("{{ html \"<a href='x'>\" }}", "&lt;a href=&#39;x&#39;&gt;"),
            ("{{ js \"a'b<\" }}", "a\\'b\\u003C"),
            ("{{ urlquery \"a b&c\" }}", "a+b%26c"),
            (
                "{{ printf \"%T\" 1.5 }} {{ printf \"%T\" 0x10 }} {{ 'a' }}",
                "float64 int 97",
            ),
            ("{{ 1e3 }} {{ 0x1p4 }} {{ 1_000 }}", "1000 16 1000"),
        ],
        &values(),
    );
}

#[test]
fn function_argument_checks() {
    assert_renders(
        &[
            ("{{ upper .s }}", "HELLO"),
            ("{{ .s | upper }}", "HELLO"),
            (
                "{{ upper .missing }}",
                "ERR: template: t:1:9: executing \"t\" at <.missing>: wrong type for value; expected string; got interface {}",
            ),
            (
                "{{ upper .i }}",
                "ERR: template: t:1:9: executing \"t\" at <.i>: wrong type for value; expected string; got int",
            ),
            (
                "{{ upper 3 }}",
                "ERR: template: t:1:9: executing \"t\" at <3>: expected string; found 3",
            ),
            (
                "{{ upper }}",
                "ERR: template: t:1:3: executing \"t\" at <upper>: wrong number of args for upper: want 1 got 0",
            ),
            (
                "{{ $x := .missing }}{{ upper $x }}",
                "ERR: template: t:1:29: executing \"t\" at <$x>: invalid value; expected string",
            ),
        ],
        &values(),
    );
}

#[test]
fn helm_functions() {
    let v = values();
    assert_renders_with(
        &[
            (
                "{{ define \"h\" }}<{{ .s }}>{{ end }}{{ include \"h\" . | upper }}",
                "<HELLO>",
            ),
            ("{{ tpl \"{{ .s }}\" . }}", "hello"),
            (
                "{{ required \"need s\" .missing }}",
                "ERR: template: t:1:3: executing \"t\" at <required \"need s\" .missing>: error calling required: HELM_ERR_STARTneed sHELM_ERR_END",
            ),
        ],
        &v,
        true,
    );
    let r = run_with(
        "{{ define \"r\" }}{{ include \"r\" . }}{{ end }}{{ include \"r\" . }}",
        &v,
        true,
    );
    assert!(
        r.contains("rendering template has a nested reference name: r: unable to execute template"),
        "{r}"
    );
}

#[test]
fn template_sets_are_shareable_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Templates>();
    assert_send_sync::<kubepkg_template::FuncTable>();
}

#[test]
fn time_methods() {
    // 2024-03-05T07:08:09.5+02:00 (a Tuesday), as Go's time.Time reports it.
    let t = Value::Time(std::sync::Arc::new(kubepkg_value::GoTime {
        unix_secs: 1_709_615_289,
        nanos: 500_000_000,
        offset_secs: 7200,
        zone: "EET".into(),
    }));
    assert_renders(
        &[
            (
                "{{ .t.Year }} {{ .t.Month }} {{ .t.Day }} {{ .t.Hour }}:{{ .t.Minute }}:{{ .t.Second }} {{ .t.Weekday }} {{ .t.YearDay }} {{ .t.Unix }}",
                "2024 March 5 7:8:9 Tuesday 65 1709615289",
            ),
            ("{{ .t }}", "2024-03-05 07:08:09.5 +0200 EET"),
            ("{{ printf \"%T %d\" .t.Month .t.Month }}", "time.Month 3"),
        ],
        &map(&[("t", t)]),
    );
}

#[derive(Debug)]
struct Cert;

impl kubepkg_value::GoObject for Cert {
    fn type_name(&self) -> &str {
        "sprig.certificate"
    }
    fn field(&self, name: &str) -> Option<Value> {
        (name == "Cert").then(|| Value::str("PEM"))
    }
    fn format_v(&self) -> String {
        "{PEM KEY}".into()
    }
}

#[test]
fn named_object_parameters() {
    fn cert_of(a: &[Value]) -> Result<Value, String> {
        Ok(Value::str(kubepkg_template::format_value(&a[0])))
    }
    let mut t = Templates::new(vec![Function {
        name: "certOf",
        params: &[ArgType::Object("sprig.certificate")],
        variadic: None,
        call: cert_of,
    }]);
    t.parse("t", "{{ certOf .c }}|{{ .c.Cert }}").unwrap();
    let data = map(&[("c", Value::Object(std::sync::Arc::new(Cert)))]);
    assert_eq!(t.execute("t", &data).unwrap(), "{PEM KEY}|PEM");
    t.parse("u", "{{ certOf .s }}").unwrap();
    let data = map(&[("s", map(&[]))]);
    assert_eq!(
        t.execute("u", &data).unwrap_err().to_string(),
        "template: u:1:10: executing \"u\" at <.s>: wrong type for value; expected sprig.certificate; got map[string]interface {}"
    );
    t.parse("v", "{{ certOf nil }}").unwrap();
    assert_eq!(
        t.execute("v", &data).unwrap_err().to_string(),
        "template: v:1:10: executing \"v\" at <nil>: cannot assign nil to sprig.certificate"
    );
}

/// Each include's output is its own value, whatever buffer the engine wrote it in: a long
/// output, then a short one, then includes nested inside an include, then the long one again,
/// twenty times over (the engine keeps finished includes' buffers for the next ones).
#[test]
fn include_outputs_stay_their_own_across_reused_buffers() {
    let long = "L".repeat(300);
    let text = [
        &format!("{{{{ define \"long\" }}}}{long}{{{{ end }}}}"),
        "{{ define \"short\" }}s{{ end }}",
        "{{ define \"outer\" }}<{{ include \"short\" . }}{{ include \"long\" . | len }}>{{ end }}",
        "{{ range .n }}{{ $a := include \"long\" . }}{{ $b := include \"short\" . }}",
        "{{ $c := include \"outer\" . }}{{ $a | len }},{{ $b }},{{ $c }};{{ end }}",
    ]
    .concat();
    let mut t = Templates::new(funcs());
    t.enable_helm(None, false);
    t.parse("t", &text).unwrap();
    let n = Value::list((0..20i64).map(Value::Int).collect());
    let got = t.execute("t", &map(&[("n", n)])).unwrap();
    assert_eq!(got, "300,s,<s300>;".repeat(20));
}
