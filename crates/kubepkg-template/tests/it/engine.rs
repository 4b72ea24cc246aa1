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

fn run(text: &str, data: &Value) -> String {
    run_with(text, data, false)
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
    let v = values();
    assert_eq!(run("{{ .a.b }}", &v), "x");
    assert_eq!(run("{{ .missing }}", &v), "<no value>");
    assert_eq!(
        run("{{ .missing.foo }}", &v),
        "ERR: template: t:1:11: executing \"t\" at <.missing.foo>: nil pointer evaluating interface {}.foo"
    );
    assert_eq!(
        run("{{ .s.foo }}", &v),
        "ERR: template: t:1:5: executing \"t\" at <.s.foo>: can't evaluate field foo in type interface {}"
    );
    assert_eq!(run("{{ $x := .missing }}{{ $x.foo }}", &v), "<no value>");
    assert_eq!(run("{{ .n }} {{ .i }}", &v), "1e+06 3");
    assert_eq!(run("{{ print .missing }}", &v), "<nil>");
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
    let v = values();
    assert_eq!(
        run("{{ range $i, $e := .l }}{{ $i }}={{ $e }};{{ end }}", &v),
        "0=p;1=q;"
    );
    assert_eq!(run("{{ range .a }}{{ . }}{{ end }}", &v), "x");
    assert_eq!(run("{{ range 3 }}{{ . }}{{ end }}", &v), "012");
    assert_eq!(
        run("{{ range .nil }}x{{ else }}empty{{ end }}", &v),
        "empty"
    );
    assert_eq!(
        run(
            "{{ range $i, $e := .l }}{{ if eq $i 1 }}{{ break }}{{ end }}{{ $e }}{{ end }}",
            &v
        ),
        "p"
    );
    assert_eq!(
        run(
            "{{ range .l }}{{ if eq . \"p\" }}{{ continue }}{{ end }}{{ . }}{{ end }}",
            &v
        ),
        "q"
    );
    assert_eq!(
        run("{{ with .missing }}a{{ else with .s }}{{ . }}{{ end }}", &v),
        "hello"
    );
    assert_eq!(run("{{ if .z }}a{{ else if .i }}b{{ end }}", &v), "b");
    assert_eq!(
        run(
            "{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}",
            &v
        ),
        "2"
    );
    assert_eq!(run("a  {{- 1 -}}  b", &v), "a1b");
    assert_eq!(run("{{/* c */}}x", &v), "x");
    assert_eq!(
        run("{{ range $i, $e := 3 }}{{ end }}", &v),
        "ERR: template: t:1:19: executing \"t\" at <3>: can't use 3 to iterate over more than one variable"
    );
    assert_eq!(
        run("{{ range .s }}{{ end }}", &v),
        "ERR: template: t:1:9: executing \"t\" at <.s>: range can't iterate over hello"
    );
}

#[test]
fn templates_and_blocks() {
    let v = values();
    assert_eq!(
        run(
            "{{ define \"x\" }}[{{ . }}]{{ end }}{{ template \"x\" .s }}",
            &v
        ),
        "[hello]"
    );
    assert_eq!(run("{{ block \"b\" .i }}<{{ . }}>{{ end }}", &v), "<3>");
    assert_eq!(
        run("{{ template \"nope\" }}", &v),
        "ERR: template: t:1:12: executing \"t\" at <{{template \"nope\"}}>: template \"nope\" not defined"
    );
}

#[test]
fn comparisons() {
    let v = values();
    assert_eq!(
        run(
            "{{ eq 1 1 }} {{ ne \"a\" \"b\" }} {{ lt 1 2 }} {{ ge 2.5 2.5 }}",
            &v
        ),
        "true true true true"
    );
    assert_eq!(run("{{ eq .s \"x\" \"hello\" }}", &v), "true");
    assert_eq!(
        run("{{ eq .n 1 }}", &v),
        "ERR: template: t:1:3: executing \"t\" at <eq .n 1>: error calling eq: incompatible types for comparison: float64 and int"
    );
    assert_eq!(
        run("{{ lt .l 1 }}", &v),
        "ERR: template: t:1:3: executing \"t\" at <lt .l 1>: error calling lt: invalid type for comparison"
    );
    assert_eq!(run("{{ eq .missing nil }}", &v), "true");
    assert_eq!(
        run("{{ and 1 0 2 }} {{ or 0 \"\" 3 }} {{ not .z }}", &v),
        "0 3 true"
    );
    assert_eq!(
        run("{{ and 0 (fail) }}", &v),
        "PARSE: template: t:1: function \"fail\" not defined"
    );
}

#[test]
fn builtins() {
    let v = values();
    assert_eq!(
        run(
            "{{ len .l }} {{ len .s }} {{ index .l 1 }} {{ index .a \"b\" }}",
            &v
        ),
        "2 5 q x"
    );
    assert_eq!(
        run("{{ index .l 5 }}", &v),
        "ERR: template: t:1:3: executing \"t\" at <index .l 5>: error calling index: index out of range: 5"
    );
    assert_eq!(run("{{ slice .s 1 3 }} {{ slice .l 1 }}", &v), "el [q]");
    assert_eq!(
        run("{{ printf \"%05.1f|%q|%v\" 12.34567 \"a\" .l }}", &v),
        "012.3|\"a\"|[p q]"
    );
    assert_eq!(
        run("{{ print 1 2 \"a\" }} {{ println \"x\" }}", &v),
        "1 2a x\n"
    );
    assert_eq!(
        run("{{ html \"<a href='x'>\" }}", &v),
        "&lt;a href=&#39;x&#39;&gt;"
    );
    assert_eq!(run("{{ js \"a'b<\" }}", &v), "a\\'b\\u003C");
    assert_eq!(run("{{ urlquery \"a b&c\" }}", &v), "a+b%26c");
    assert_eq!(
        run(
            "{{ printf \"%T\" 1.5 }} {{ printf \"%T\" 0x10 }} {{ 'a' }}",
            &v
        ),
        "float64 int 97"
    );
    assert_eq!(run("{{ 1e3 }} {{ 0x1p4 }} {{ 1_000 }}", &v), "1000 16 1000");
}

#[test]
fn function_argument_checks() {
    let v = values();
    assert_eq!(run("{{ upper .s }}", &v), "HELLO");
    assert_eq!(run("{{ .s | upper }}", &v), "HELLO");
    assert_eq!(
        run("{{ upper .missing }}", &v),
        "ERR: template: t:1:9: executing \"t\" at <.missing>: wrong type for value; expected string; got interface {}"
    );
    assert_eq!(
        run("{{ upper .i }}", &v),
        "ERR: template: t:1:9: executing \"t\" at <.i>: wrong type for value; expected string; got int"
    );
    assert_eq!(
        run("{{ upper 3 }}", &v),
        "ERR: template: t:1:9: executing \"t\" at <3>: expected string; found 3"
    );
    assert_eq!(
        run("{{ upper }}", &v),
        "ERR: template: t:1:3: executing \"t\" at <upper>: wrong number of args for upper: want 1 got 0"
    );
    assert_eq!(
        run("{{ $x := .missing }}{{ upper $x }}", &v),
        "ERR: template: t:1:29: executing \"t\" at <$x>: invalid value; expected string"
    );
}

#[test]
fn helm_functions() {
    let v = values();
    let t = "{{ define \"h\" }}<{{ .s }}>{{ end }}{{ include \"h\" . | upper }}";
    assert_eq!(run_with(t, &v, true), "<HELLO>");
    assert_eq!(run_with("{{ tpl \"{{ .s }}\" . }}", &v, true), "hello");
    assert_eq!(
        run_with("{{ required \"need s\" .missing }}", &v, true),
        "ERR: template: t:1:3: executing \"t\" at <required \"need s\" .missing>: error calling required: HELM_ERR_STARTneed sHELM_ERR_END"
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
    let data = map(&[("t", t)]);
    assert_eq!(
        run(
            "{{ .t.Year }} {{ .t.Month }} {{ .t.Day }} {{ .t.Hour }}:{{ .t.Minute }}:{{ .t.Second }} {{ .t.Weekday }} {{ .t.YearDay }} {{ .t.Unix }}",
            &data
        ),
        "2024 March 5 7:8:9 Tuesday 65 1709615289"
    );
    assert_eq!(run("{{ .t }}", &data), "2024-03-05 07:08:09.5 +0200 EET");
    assert_eq!(
        run("{{ printf \"%T %d\" .t.Month .t.Month }}", &data),
        "time.Month 3"
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
