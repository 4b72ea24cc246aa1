#!/usr/bin/env python3
"""Writes the inputs of kubepkg-template's Go-oracle corpus (JSON Lines) to stdout."""
import json

D = json.dumps({
    "a": {"b": "x"}, "n": 1000000, "f": 3.5, "i": 3, "s": "hello", "l": ["p", "q"], "z": None,
    "e": "", "m": {"b": 2, "a": 1}, "t": True, "neg": -2.5, "tiny": 1e-05, "big": 1.5e300,
    "mixed": [1, "two", 3.5, True, None], "nested": {"x": {"y": {"z": "deep"}}},
    "uni": "h\u00e9llo \u2713", "el": [], "em": {}, "ints": [3, 1, 2], "fl": 0.1, "k": 1234567,
    "html": "<a href='x'>&\"", "q": "a\"b\\c\n\t", "ml": "line1\nline2",
})

T = [
    # printing of values
    "{{ . }}", "{{ .a }}", "{{ .a.b }}", "{{ .n }}", "{{ .f }}", "{{ .i }}", "{{ .tiny }}", "{{ .big }}",
    "{{ .neg }}", "{{ .fl }}", "{{ .k }}", "{{ .l }}", "{{ .m }}", "{{ .mixed }}", "{{ .z }}", "{{ .t }}",
    "{{ .el }}", "{{ .em }}", "{{ .uni }}", "{{ .nested }}", "{{ .missing }}",
    # missing keys and nil pointers
    "{{ .missing.foo }}", "{{ .z.foo }}", "{{ .a.b.c }}", "{{ .s.foo }}", "{{ .l.foo }}", "{{ .nested.x.nope.z }}",
    "{{ $x := .missing }}{{ $x.foo }}", "{{ $x := .z }}{{ $x }}", "{{ $.a.b }}", "{{ with .a }}{{ $.s }}{{ .b }}{{ end }}",
    "{{ .a.b \"arg\" }}", "{{ \"x\" | .a.b }}", "{{ .missing | print }}", "{{ print .missing }}", "{{ print .z .missing }}",
    "{{ printf \"%v\" .missing }}", "{{ printf \"%s\" .missing }}", "{{ printf \"%d\" .z }}",
    # constants
    "{{ 1 }}", "{{ 1.5 }}", "{{ 1e3 }}", "{{ 1e30 }}", "{{ 0x1F }}", "{{ 0o17 }}", "{{ 017 }}", "{{ 0b101 }}",
    "{{ 1_000 }}", "{{ 'a' }}", "{{ '\\n' }}", "{{ -5 }}", "{{ +5 }}", "{{ 1i }}", "{{ 1+2i }}", "{{ 0x1p-2 }}",
    "{{ 99999999999999999999 }}", "{{ 18446744073709551615 }}", "{{ 9223372036854775807 }}", "{{ 1_ }}", "{{ 3k }}",
    "{{ \"a\\tb\" }}", "{{ `raw\\n` }}", "{{ \"\\x41\\u00e9\" }}", "{{ true }}", "{{ nil }}", "{{ . | printf \"%T\" }}",
    "{{ printf \"%T %T %T %T %T\" 1 1.0 \"s\" true 'x' }}", "{{ printf \"%T\" .f }}", "{{ printf \"%T\" .l }}", "{{ printf \"%T\" .m }}",
    "{{ printf \"%T\" .missing }}", "{{ printf \"%T\" nil }}",
    # control flow
    "{{ if .t }}yes{{ end }}", "{{ if .e }}a{{ else }}b{{ end }}", "{{ if .z }}a{{ else if .missing }}b{{ else }}c{{ end }}",
    "{{ if .el }}a{{ else }}empty{{ end }}", "{{ if .em }}a{{ else }}empty{{ end }}", "{{ if 0.0 }}a{{ else }}b{{ end }}",
    "{{ with .a }}{{ .b }}{{ end }}", "{{ with .missing }}x{{ else }}none{{ end }}", "{{ with .missing }}x{{ else with .s }}{{ . }}{{ end }}",
    "{{ range .l }}[{{ . }}]{{ end }}", "{{ range $i, $e := .l }}{{ $i }}:{{ $e }} {{ end }}", "{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}",
    "{{ range .m }}{{ . }}{{ end }}", "{{ range .el }}x{{ else }}none{{ end }}", "{{ range .missing }}x{{ else }}none{{ end }}",
    "{{ range 3 }}{{ . }}{{ end }}", "{{ range $i := 3 }}{{ $i }}{{ end }}", "{{ range $i, $e := 3 }}{{ end }}", "{{ range 0 }}x{{ else }}zero{{ end }}",
    "{{ range -2 }}x{{ else }}neg{{ end }}", "{{ range .s }}{{ end }}", "{{ range .f }}{{ end }}", "{{ range .t }}{{ end }}", "{{ range .i }}{{ . }}{{ end }}",
    "{{ range .l }}{{ if eq . \"p\" }}{{ continue }}{{ end }}{{ . }}{{ end }}", "{{ range .ints }}{{ if eq . 1.0 }}{{ break }}{{ end }}{{ . }}{{ end }}",
    "{{ range .mixed }}{{ . }},{{ end }}", "{{ range $e := .mixed }}{{ $e.foo }}{{ end }}", "{{ range .l }}{{ .foo }}{{ end }}",
    "{{ range $i, $e := .l }}{{ $i | printf \"%T\" }}{{ end }}", "{{ $x := 0 }}{{ range .l }}{{ $x = . }}{{ end }}{{ $x }}",
    "{{ $x := 1 }}{{ if true }}{{ $x := 2 }}{{ end }}{{ $x }}", "{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}",
    "{{ $a, $b := 1 }}", "{{ range $a, $b, $c := .l }}{{ end }}", "{{ range $i, $e = .l }}{{ end }}",
    "{{ $i := 0 }}{{ $e := 0 }}{{ range $i, $e = .l }}{{ end }}{{ $i }}{{ $e }}",
    # define / template / block
    "{{ define \"x\" }}[{{ . }}]{{ end }}{{ template \"x\" .s }}", "{{ define \"x\" }}[{{ . }}]{{ end }}{{ template \"x\" }}",
    "{{ block \"b\" .i }}<{{ . }}>{{ end }}", "{{ template \"nope\" }}", "{{ define \"r\" }}{{ template \"r\" . }}{{ end }}{{ template \"r\" . }}",
    "{{ define \"x\" }}{{ .foo.bar }}{{ end }}{{ template \"x\" .missing }}", "{{ define \"x\" }}{{ $ }}{{ end }}{{ template \"x\" 5 }}",
    "a{{ define \"x\" }}b{{ end }}c", "{{ define \"x\" }}1{{ end }}{{ define \"x\" }}2{{ end }}", "{{ define \"x\" }}{{ end }}{{ define \"x\" }}2{{ end }}{{ template \"x\" }}",
    "{{ define \"x\" }}\n{{ .nope.x }}\n{{ end }}\n{{ template \"x\" . }}",
    # whitespace / comments
    "a  {{- 1 -}}  b", "a {{- /* c */ -}} b", "{{/* c */}}x", "{{- 3 }} {{ 4 -}} \n 5", "{{ /* c */ }}", "{{/* c */ 1 }}", "{{/* open",
    "{{-3}}", "{{ 3 -}}", "x {{-  3}}", "{{3 -  }}",
    # comparisons
    "{{ eq 1 1 }}", "{{ eq .i 3.0 }}", "{{ eq .i 3 }}", "{{ eq .s \"hello\" }}", "{{ eq .s \"a\" \"hello\" }}", "{{ eq .missing nil }}",
    "{{ eq .z nil }}", "{{ eq nil nil }}", "{{ eq .l .l }}", "{{ eq .m .m }}", "{{ eq .a.b \"x\" }}", "{{ eq 1 }}", "{{ eq }}",
    "{{ ne 1 2 }}", "{{ ne .s 1 }}", "{{ lt 1 2 }}", "{{ lt 1.5 2 }}", "{{ lt .f 4.0 }}", "{{ lt \"a\" \"b\" }}", "{{ lt .l 1 }}",
    "{{ lt true false }}", "{{ le 2 2 }}", "{{ gt 3 2 }}", "{{ ge 2 3 }}", "{{ lt nil 1 }}", "{{ eq 1 \"1\" }}", "{{ lt .i 4 }}",
    "{{ eq .t true }}", "{{ eq 1.0 1 }}", "{{ eq 'a' 97 }}",
    # and/or/not
    "{{ and 1 0 2 }}", "{{ and 1 2 }}", "{{ or 0 \"\" 3 }}", "{{ or 0 \"\" }}", "{{ not .z }}", "{{ not 1 }}", "{{ and }}", "{{ not 1 2 }}",
    "{{ or .missing .s }}", "{{ and .s .missing }}", "{{ and .t .missing.x }}", "{{ or .t .missing.x }}", "{{ .s | and 1 }}",
    # builtins
    "{{ len .l }}", "{{ len .s }}", "{{ len .m }}", "{{ len .uni }}", "{{ len .i }}", "{{ len .missing }}", "{{ len nil }}",
    "{{ index .l 1 }}", "{{ index .l 5 }}", "{{ index .l -1 }}", "{{ index .a \"b\" }}", "{{ index .a \"zz\" }}", "{{ index .m \"a\" }}",
    "{{ index .s 1 }}", "{{ index .missing 1 }}", "{{ index .l \"x\" }}", "{{ index .m 1 }}", "{{ index .nested \"x\" \"y\" \"z\" }}",
    "{{ index .l 1.0 }}", "{{ index . }}", "{{ index .f 0 }}", "{{ index .l 2 }}", "{{ index .mixed 4 }}",
    "{{ slice .s 1 3 }}", "{{ slice .l 1 }}", "{{ slice .l }}", "{{ slice .s 3 1 }}", "{{ slice .s 1 2 3 }}", "{{ slice .l 0 1 2 }}",
    "{{ slice .f 1 }}", "{{ slice .missing 1 }}", "{{ slice .l 0 9 }}", "{{ slice .uni 1 3 }}",
    "{{ print 1 2 \"a\" 3 }}", "{{ print \"a\" \"b\" }}", "{{ print .l .m }}", "{{ println 1 \"x\" }}", "{{ print }}",
    "{{ html .html }}", "{{ html .i }}", "{{ html .missing }}", "{{ html 1 2 }}", "{{ js .html }}", "{{ js .q }}", "{{ js .uni }}",
    "{{ urlquery \"a b&c=d/é\" }}", "{{ urlquery .l }}", "{{ call .s }}", "{{ call .missing }}", "{{ call }}",
    # printf verbs
    "{{ printf \"%d\" 42 }}", "{{ printf \"%5d|%-5d|%05d\" 42 42 -42 }}", "{{ printf \"%x %X %o %O %b\" 255 255 8 8 5 }}",
    "{{ printf \"%#x %#o %#b\" 255 8 5 }}", "{{ printf \"%+d % d\" 5 5 }}", "{{ printf \"%c %q %U %#U\" 65 65 65 9731 }}",
    "{{ printf \"%.3d\" 7 }}", "{{ printf \"%8.3d\" -7 }}", "{{ printf \"%.0d\" 0 }}",
    "{{ printf \"%f %.2f %8.3f %-8.2f|\" 3.14159 3.14159 3.14159 3.14159 }}", "{{ printf \"%e %E %.2e\" 1234.5678 1234.5678 1234.5678 }}",
    "{{ printf \"%g %g %g %g\" 1000000.0 100000.0 0.0001 0.00001 }}", "{{ printf \"%.3g %.10g %g\" 1234.5678 1234.5678 1e21 }}",
    "{{ printf \"%v %v %v\" .n .f .tiny }}", "{{ printf \"%08.3f|%+.2f|% .2f\" -3.14159 2.5 2.5 }}", "{{ printf \"%G\" 1e-10 }}",
    "{{ printf \"%#g %#v\" 1.0 1.0 }}", "{{ printf \"%.0f %.0f %.0f\" 0.5 1.5 2.5 }}", "{{ printf \"%f\" .big }}", "{{ printf \"%.1f\" .fl }}",
    "{{ printf \"%s|%10s|%-10s|%.2s\" \"hi\" \"hi\" \"hi\" \"hello\" }}", "{{ printf \"%q\" .q }}", "{{ printf \"%#q\" \"a`b\" }}", "{{ printf \"%#q\" \"ab\" }}",
    "{{ printf \"%+q\" .uni }}", "{{ printf \"%x %X % x %#x\" \"hi\" \"hi\" \"hi\" \"hi\" }}", "{{ printf \"%v %s %d\" .l .l .l }}",
    "{{ printf \"%v %d\" .m .m }}", "{{ printf \"%q\" .l }}", "{{ printf \"%d\" .mixed }}", "{{ printf \"%s\" .mixed }}",
    "{{ printf \"%t %t\" true .t }}", "{{ printf \"%t\" 1 }}", "{{ printf \"%d\" \"x\" }}", "{{ printf \"%s\" 1 }}", "{{ printf \"%d\" 1.5 }}",
    "{{ printf \"%f\" 1 }}", "{{ printf \"%z\" 1 }}", "{{ printf \"%d %d\" 1 }}", "{{ printf \"%d\" 1 2 3 }}", "{{ printf \"%\" }}",
    "{{ printf \"100%%\" }}", "{{ printf \"%[2]d %[1]d\" 1 2 }}", "{{ printf \"%[3]d\" 1 2 }}", "{{ printf \"%[x]d\" 1 }}",
    "{{ printf \"%*d|%-*d\" 5 42 5 42 }}", "{{ printf \"%.*f\" 2 3.14159 }}", "{{ printf \"%*d\" \"x\" 1 }}", "{{ printf \"%v\" nil }}",
    "{{ printf \"%s\" nil }}", "{{ printf \"%d\" nil }}", "{{ printf \"%v %v\" true nil }}", "{{ printf \"%p\" 1 }}", "{{ printf \"%6.2v|\" 3.14159 }}",
    "{{ printf \"%05s|%-05s|\" \"ab\" \"ab\" }}", "{{ printf \"%x\" -255 }}", "{{ printf \"%x\" 3.5 }}", "{{ printf \"%b\" 4.0 }}",
    "{{ printf \"%v\" .em }}", "{{ printf \"%#v\" .l }}", "{{ printf \"%#v\" .m }}", "{{ printf \"%#v\" \"s\" }}", "{{ printf \"%#v\" 42 }}",
    "{{ printf \"%5t|%-7v|\" true false }}", "{{ printf \"%c\" 1114112 }}", "{{ printf \"%q\" 0 }}", "{{ printf \"%U\" -1 }}",
    "{{ printf \"%3c|%-3c|\" 65 66 }}", "{{ printf \"%v\" .uni }}", "{{ printf \"%.3s\" .uni }}", "{{ printf \"%8s|\" .uni }}",
    "{{ printf 1 }}", "{{ printf }}", "{{ printf \"%s %s\" .missing .z }}", "{{ printf \"%d\" .i }}", "{{ printf \"%e\" 0.0 }}", "{{ printf \"%g\" -0.0 }}",
    # functions and argument checks
    "{{ upper .s }}", "{{ .s | upper }}", "{{ upper .missing }}", "{{ upper .z }}", "{{ upper .i }}", "{{ upper 3 }}", "{{ upper }}",
    "{{ upper \"a\" \"b\" }}", "{{ $x := .missing }}{{ upper $x }}", "{{ upper nil }}", "{{ upper (print .i) }}", "{{ upper .l }}",
    "{{ add1 3 }}", "{{ add1 3.0 }}", "{{ add1 3.5 }}", "{{ add1 .i }}", "{{ add1 \"3\" }}", "{{ add1 nil }}", "{{ add1 'a' }}",
    "{{ add1 99999999999999999999 }}", "{{ add1 (len .l) }}", "{{ len .l | add1 }}", "{{ half 3 }}", "{{ half .f }}", "{{ half \"x\" }}",
    "{{ half 1e3 }}", "{{ half .i }}", "{{ join .l \",\" }}", "{{ join .mixed \"-\" }}", "{{ join .missing \",\" }}", "{{ join nil \",\" }}",
    "{{ join .s \",\" }}", "{{ join (strs) \",\" }}", "{{ join \"a\" \",\" }}", "{{ join .em \",\" }}", "{{ $l := .l }}{{ join $l \"+\" }}",
    "{{ boom \"x\" }}", "{{ \"y\" | boom }}", "{{ cat 1 2 \"a\" nil .missing }}", "{{ cat }}", "{{ (dict1 \"k\" 5).k }}", "{{ (dict1 \"k\" .l).k }}",
    "{{ (dict1 \"k\" nil).k.j }}", "{{ $d := dict1 \"k\" 1 }}{{ $d.k }}{{ $d.nope }}", "{{ i64 1 | printf \"%T %v\" }}", "{{ strs }}",
    "{{ strs | printf \"%T\" }}", "{{ range strs }}{{ . }}{{ end }}", "{{ index (strs) 0 }}", "{{ (strs).foo }}",
    "{{ nope }}", "{{ .s 1 }}", "{{ $x := 1 }}{{ $x 2 }}", "{{ 1 2 }}", "{{ \"a\" | 1 }}", "{{ . | upper | len }}", "{{ .s | len }}",
    "{{ (1).x }}", "{{ (nil).x }}", "{{ (.a).b }}", "{{ (.missing).b }}", "{{ (print 1).x }}",
    # differential-fuzzing findings
    "{{ slice .s .i }}", "{{ slice .l .z }}", "{{ $i := 1 }}{{ slice .s $i }}", "{{ printf \"%#v\" .mixed }}", "{{ printf \"%#v\" .a }}",
    "{{ index .html 1 }}", "{{ printf \"%T %c %v %d\" (index .s 0) (index .s 0) (index .s 0) (index .s 0) }}", "{{ index .s 0 | add1 }}",
    "{{ eq (index .s 0) 104 }}", "{{ lt (index .s 0) 1 }}", "{{ index .l (index .s 0) }}", "{{ index .html 1 1 }}",
    "{{ .s | print 1 }}", "{{ .missing | print 1 }}", "{{ .s | printf \"%s-%s\" \"a\" }}", "{{ .i | printf \"%d\" }}", "{{ nil | print }}",
    # parse errors
    "{{ .a ", "{{ end }}", "{{ else }}", "{{ if .a }}", "{{ if }}{{ end }}", "{{ range }}{{ end }}", "{{ $x }}", "{{ break }}", "{{ continue }}",
    "{{ }}", "{{ . | 3 }}", "\n{{ 1 2 ) }}", "{{ (1 }}", "{{ \"x\".a }}", "{{ .a\n", "{{ \"abc }}", "{{ 'ab' }}", "{{ '' }}", "{{ `abc }}",
    "{{ with }}{{ end }}", "{{ define }}{{ end }}", "{{ define \"a\" }}", "{{ define \"a\" 1 }}{{ end }}", "{{ template }}", "{{ template x }}",
    "{{ if 1 }}{{ else }}{{ else }}{{ end }}", "{{ range .l }}{{ else if 1 }}{{ end }}", "{{ if 1 }}{{ else with 2 }}{{ end }}",
    "{{ .a.1 }}", "{{ $x.y := 1 }}", "{{ @ }}", "{{ 3 | .x | 4 }}", "{{ a b c }}", "{{ x := 1 }}", "{{ $x := }}", "{{ $x = 1 }}",
    "{{ .a | }}", "{{ | .a }}", "{{ ( ) }}", "{{ .a: }}", "{{ .a, .b }}", "{{ 0x }}", "{{ 1.2.3 }}", "{{ 1e }}", "{{ 08 }}", "{{ 0x1.8 }}",
    "{{ 1e400 }}", "{{ -0 }}", "{{ 0_1 }}", "{{ 1__0 }}", "{{ 0x_1 }}", "{{ .é }}", "{{ $é := 1 }}{{ $é }}", "{{ ☃ }}", "{{ \"\\q\" }}",
    "{{ block \"b\" }}{{ end }}", "{{ block \"b\" . }}", "line1\nline2\n{{ .a.b.c.d }}", "x\n\n  {{ .missing.y }}", "{{ if .t }}\n{{ .z.q }}{{ end }}",
    "{{ range .l }}\n  {{ .x }}\n{{ end }}", "{{ printf \"%d\" (index .l 7) }}", "{{ $ := 1 }}", "{{ $.x.y.z }}", "{{ .a.b.c | print }}",
]

# A chart-sized template (deployment with helpers) in the style of `helm create`, using only
# built-ins and the oracle's functions, for the benchmark and as a corpus case.
DEPLOY = """{{- define "app.name" -}}{{ .chart | printf "%.63s" }}{{- end }}
{{- define "app.labels" -}}
app.kubernetes.io/name: {{ include_name . }}
app.kubernetes.io/instance: {{ .release }}
{{- range $k, $v := .labels }}
{{ $k }}: {{ printf "%q" $v }}
{{- end }}
{{- end -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ printf "%s-%s" .release .chart | printf "%.63s" }}
  labels:
    {{- template "app.labels" . }}
spec:
  {{- if not .autoscaling }}
  replicas: {{ .replicas }}
  {{- end }}
  template:
    spec:
      containers:
        - name: {{ .chart }}
          image: "{{ .image.repository }}:{{ .image.tag | default_tag }}"
          imagePullPolicy: {{ .image.pullPolicy }}
          ports:
          {{- range .ports }}
            - name: {{ .name }}
              containerPort: {{ .port }}
              protocol: {{ or .protocol "TCP" }}
          {{- end }}
          env:
          {{- range $i, $e := .env }}
            - name: {{ upper $e.name }}
              value: {{ printf "%q" (print $e.value) }}
          {{- end }}
          {{- with .resources }}
          resources:
            limits:
              cpu: {{ .limits.cpu }}
              memory: {{ .limits.memory }}
          {{- end }}
      {{- if and .nodeSelector (gt (len .nodeSelector) 0) }}
      nodeSelector:
        {{- range $k, $v := .nodeSelector }}
        {{ $k }}: {{ $v }}
        {{- end }}
      {{- end }}
"""
DEPLOY = DEPLOY.replace("include_name .", 'template "app.name" .').replace('{{ template "app.name" . }}', "{{ .chart }}").replace(" | default_tag", "")
DEPLOY_DATA = json.dumps({
    "release": "my-release", "chart": "webapp", "replicas": 3, "autoscaling": False,
    "labels": {"team": "payments", "tier": "backend", "version": "1.2.3"},
    "image": {"repository": "registry.example/webapp", "tag": "v1.2.3", "pullPolicy": "IfNotPresent"},
    "ports": [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9090, "protocol": "TCP"}],
    "env": [{"name": "log_level", "value": "info"}, {"name": "workers", "value": 4}, {"name": "ratio", "value": 0.75}],
    "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}},
    "nodeSelector": {"kubernetes.io/os": "linux", "pool": "general"},
})

cases = []
cases.append({"name": "deployment.yaml", "template": DEPLOY, "data": DEPLOY_DATA})
for i, t in enumerate(T):
    cases.append({"name": "t", "template": t, "data": D})
for mk in ["default", "error"]:
    for t in ["{{ .missing }}", "{{ .missing.foo }}", "{{ .a.nope }}", "{{ $x := .missing }}{{ $x.y }}", "{{ index .a \"nope\" }}", "{{ .z.foo }}"]:
        cases.append({"name": "t", "template": t, "data": D, "missingkey": mk})
cases.append({"name": "t", "template": "{{ .x }}", "data": ""})
cases.append({"name": "t", "template": "{{ .x.y }}", "data": ""})
cases.append({"name": "t", "template": "{{ . }}", "data": "null"})
cases.append({"name": "my-file.yaml", "template": "ok {{ .a.b.c }}", "data": D})
if __name__ == "__main__":
  for c in cases:
      print(json.dumps(c, ensure_ascii=False))
