// Case inputs: text/template's language (built-ins, fmt verbs, control flow, variables, errors).
package main

import (
	"fmt"
	"strings"
)

func genBuiltins(g *corpusGen) {
	const b = "builtins"
	g.t(b,
		"plain text only", "", "{{/* a comment */}}x", "a {{- /* trimmed */ -}} b", "a  {{- 1 -}}  b", "a {{ 1 }} b",
		"{{ .Values.str }}", "{{ .Values.missing }}", "{{ .Values.nul }}", "{{ .Values.list }}", "{{ .Values.map }}",
		"{{ .Values.map.c.d }}", "{{ .Values.nested.a.b.c.d }}", "{{ .Values.mixed }}", "{{ .Values.emptymap }}", "{{ .Values.emptylist }}",
		"{{ .Release.Name }}", "{{ .Release.Namespace }}", "{{ .Release.Revision }}", "{{ .Release.IsInstall }}", "{{ .Release.IsUpgrade }}",
		"{{ .Release.Service }}", "{{ .Chart.Name }}", "{{ .Chart.Version }}", "{{ .Template.Name }}", "{{ .Template.BasePath }}",
		"{{ and 1 0 }}", "{{ and 1 2 }}", "{{ and .Values.str .Values.num }}", "{{ and .Values.empty .Values.num }}", "{{ and }}",
		"{{ or 0 \"\" }}", "{{ or 0 3 }}", "{{ or .Values.missing .Values.str }}", "{{ or .Values.emptylist .Values.emptymap }}",
		"{{ not 0 }}", "{{ not 1 }}", "{{ not .Values.str }}", "{{ not .Values.emptymap }}", "{{ not .Values.nul }}",
		"{{ len .Values.str }}", "{{ len .Values.list }}", "{{ len .Values.map }}", "{{ len .Values.uni }}", "{{ len \"\" }}", "{{ len .Values.emptylist }}",
		"{{ len .Values.num }}", "{{ len .Values.nul }}", "{{ len 3 }}",
		"{{ index .Values.list 1 }}", "{{ index .Values.map \"b\" }}", "{{ index .Values.map \"zz\" }}", "{{ index .Values.nested \"a\" \"b\" \"c\" }}",
		"{{ index .Values.list 5 }}", "{{ index .Values.list -1 }}", "{{ index .Values.str 1 }}", "{{ index .Values.nul 1 }}", "{{ index .Values.list }}",
		"{{ index .Values.map 1 }}", "{{ index .Values.list \"x\" }}", "{{ index .Values.num 0 }}", "{{ index .Values.mixed 4 }}",
		"{{ print 1 2 \"a\" \"b\" 3 }}", "{{ print \"a\" 1 2 \"b\" }}", "{{ print }}", "{{ print .Values.nul }}", "{{ print .Values.list .Values.map }}",
		"{{ println 1 \"a\" }}", "{{ println }}", "{{ printf \"%d-%s\" 3 \"x\" }}", "{{ printf \"no verbs\" }}", "{{ printf \"%d\" }}", "{{ printf \"%d %d\" 1 2 3 }}",
		"{{ html \"<a href='x'>&\\\"</a>\" }}", "{{ html 3 }}", "{{ js \"it's <b> \\\"q\\\" \\\\ \\n ✓\" }}", "{{ js 3.5 }}",
		"{{ urlquery \"a b&c=d/é\" }}", "{{ urlquery 1 \"x\" }}",
		"{{ eq 1 1 }}", "{{ eq 1 2 }}", "{{ eq \"a\" \"a\" }}", "{{ eq .Values.num 42.0 }}", "{{ eq .Values.num 42 }}", "{{ eq .Values.str \"hello\" }}",
		"{{ eq 1 2 3 1 }}", "{{ eq .Values.nul nil }}", "{{ eq .Values.missing nil }}", "{{ eq .Values.bool true }}", "{{ eq .Values.list .Values.list }}",
		"{{ eq \"a\" 1 }}", "{{ ne 1 2 }}", "{{ ne \"a\" \"a\" }}", "{{ ne .Values.num 42.0 }}",
		"{{ lt 1 2 }}", "{{ lt 2.5 1.5 }}", "{{ lt \"a\" \"b\" }}", "{{ lt .Values.num 50.0 }}", "{{ lt 1 2.5 }}", "{{ lt true false }}", "{{ lt .Values.list 1 }}",
		"{{ le 2 2 }}", "{{ gt 3 2 }}", "{{ ge 1 2 }}", "{{ gt \"b\" \"a\" }}", "{{ ge .Values.flt 3.75 }}", "{{ lt -1 1 }}",
		"{{ call .Values.str }}", "{{ call nil }}",
		"{{ 1 }}", "{{ -1 }}", "{{ 1.5 }}", "{{ 1e3 }}", "{{ 0x1F }}", "{{ 0o17 }}", "{{ 0b101 }}", "{{ 1_000 }}", "{{ 'a' }}", "{{ '\\n' }}",
		"{{ \"quoted\\tstring\" }}", "{{ `raw\\nstring` }}", "{{ true }}", "{{ false }}", "{{ nil }}", "{{ 1e21 }}", "{{ 123456789.0 }}", "{{ 0.000001 }}",
		"{{ 9223372036854775807 }}", "{{ 1.0 }}", "{{ -0.0 }}", "{{ 1i }}", "{{ 100000000000000000000 }}",
		"{{ .Values.big }}", "{{ .Values.huge }}", "{{ .Values.tiny }}", "{{ .Values.flt }}", "{{ .Values.neg }}", "{{ .Values.zero }}",
		"{{ (1) }}", "{{ (print 1 2) }}", "{{ \"x\" | print }}", "{{ 1 | printf \"%d-%d\" 2 }}", "{{ .Values.str | len }}",
	)
}

// fmtValues are the operands every fmt verb is tried with.
var fmtValues = []string{
	".Values.str", ".Values.num", ".Values.neg", ".Values.flt", ".Values.big", ".Values.tiny", ".Values.bool",
	".Values.nul", ".Values.list", ".Values.map", ".Values.uni", ".Values.mixed",
	"42", "-3", "3.5", "\"lit\"", "true", "(int 5)", "(int64 7)", "(list 1 \"a\")", "(dict \"k\" 1)", "nil",
}

var fmtVerbs = []string{
	"%v", "%+v", "%#v", "%T", "%d", "%s", "%q", "%x", "%X", "%o", "%b", "%e", "%f", "%.2f", "%g", "%G", "%t",
	"%c", "%U", "%5v|", "%-6v|", "%06d", "%+d", "%8.3f", "%.3s", "%10.4g", "%#x", "%x %[1]d", "%!",
}

func genFmt(g *corpusGen) {
	for _, verb := range fmtVerbs {
		for _, v := range fmtValues {
			tpl := fmt.Sprintf("{{ printf %q %s }}", verb, v)
			g.addCase("fmt", Case{Name: slug(verb + "_" + v), Templates: map[string]string{mainTemplate: tpl}, Values: stdValues})
		}
	}
	g.t("fmt",
		"{{ printf \"%%\" }}", "{{ printf \"%v %v\" 1 }}", "{{ printf \"%z\" 1 }}", "{{ printf \"%d\" \"x\" }}", "{{ printf \"%s\" 3 }}",
		"{{ printf \"%*d\" 5 3 }}", "{{ printf \"%.*f\" 2 3.14159 }}", "{{ printf \"%[2]s %[1]s\" \"a\" \"b\" }}", "{{ printf \"%[3]s\" 1 }}",
		"{{ printf \"%v\" 1e21 }}", "{{ printf \"%v\" 1e20 }}", "{{ printf \"%v\" 123456789.0 }}", "{{ printf \"%v\" 0.0001 }}", "{{ printf \"%v\" 0.00001 }}",
		"{{ printf \"%e\" 0.0 }}", "{{ printf \"%g\" 100000.0 }}", "{{ printf \"%g\" 1000000.0 }}", "{{ printf \"%.0f\" 2.5 }}", "{{ printf \"%.0f\" 3.5 }}",
		"{{ printf \"%x\" \"hello\" }}", "{{ printf \"% x\" \"hi\" }}", "{{ printf \"%q\" \"a\\\"b\\n✓\" }}", "{{ printf \"%+q\" \"✓\" }}", "{{ printf \"%#q\" \"ab\" }}",
		"{{ printf \"%c\" 9731 }}", "{{ printf \"%U\" 9731 }}", "{{ printf \"%#U\" 9731 }}", "{{ printf \"%08.3f\" -3.14159 }}", "{{ printf \"%-8d|\" 42 }}",
		"{{ printf \"%v\" .Values.nested }}", "{{ printf \"%+v\" .Values.nested }}", "{{ printf \"%#v\" .Values.nested }}", "{{ printf \"%T\" .Values.nested.a }}",
		"{{ printf \"%s\" .Values.list }}", "{{ printf \"%d\" .Values.nums }}", "{{ printf \"%v\" (splitList \",\" \"a,b\") }}", "{{ printf \"%T\" (splitList \",\" \"a,b\") }}",
		"{{ printf \"%T\" (until 3) }}", "{{ printf \"%v\" (until 3) }}", "{{ printf \"%T\" .Release }}", "{{ printf \"%T\" .Chart }}", "{{ printf \"%T\" .Values.map }}",
		"{{ printf \"%v\" .Release }}", "{{ printf \"%T\" (b64dec \"aGk=\" | toString) }}", "{{ printf \"%5.1f|%-5.1f|\" 3.14159 2.0 }}",
		"{{ printf \"%t\" 1 }}", "{{ printf \"%08b\" 5 }}", "{{ printf \"%o %O\" 8 8 }}", "{{ printf \"%x\" -255 }}", "{{ printf \"%X\" 3.5 }}",
		"{{ printf \"%v\" 1.0 }}", "{{ printf \"%v\" -0.0 }}", "{{ printf \"%.3g\" 1234.5678 }}", "{{ printf \"%6.2e\" 12345.678 }}",
		"{{ printf \"%s|%s\" (list) (dict) }}", "{{ printf \"%v\" (list nil) }}", "{{ printf \"%d\" (list 1 2.5) }}",
	)
}

func genControl(g *corpusGen) {
	const c = "control"
	g.t(c,
		"{{ if .Values.bool }}yes{{ end }}", "{{ if .Values.fls }}yes{{ else }}no{{ end }}", "{{ if .Values.missing }}a{{ else if .Values.str }}b{{ else }}c{{ end }}",
		"{{ if .Values.zero }}t{{ else }}f{{ end }}", "{{ if .Values.emptylist }}t{{ else }}f{{ end }}", "{{ if .Values.emptymap }}t{{ else }}f{{ end }}",
		"{{ if .Values.empty }}t{{ else }}f{{ end }}", "{{ if .Values.nul }}t{{ else }}f{{ end }}", "{{ if .Values.tiny }}t{{ else }}f{{ end }}",
		"{{ if 0.0 }}t{{ else }}f{{ end }}", "{{ if \"0\" }}t{{ else }}f{{ end }}", "{{ if and .Values.str (not .Values.fls) }}ok{{ end }}",
		"{{ with .Values.map }}{{ .a }}{{ end }}", "{{ with .Values.missing }}x{{ else }}none{{ end }}", "{{ with .Values.missing }}x{{ else with .Values.str }}{{ . }}{{ end }}",
		"{{ with $x := .Values.str }}{{ $x }}{{ end }}", "{{ with .Values.nested.a.b }}{{ .c.d }}{{ end }}",
		"{{ range .Values.list }}[{{ . }}]{{ end }}", "{{ range $i, $v := .Values.list }}{{ $i }}={{ $v }};{{ end }}", "{{ range $k, $v := .Values.map }}{{ $k }}:{{ $v }} {{ end }}",
		"{{ range .Values.emptylist }}x{{ else }}empty{{ end }}", "{{ range .Values.missing }}x{{ else }}none{{ end }}", "{{ range .Values.nul }}x{{ end }}done",
		"{{ range 3 }}{{ . }}{{ end }}", "{{ range $i := 4 }}{{ $i }}{{ end }}", "{{ range 0 }}x{{ else }}zero{{ end }}", "{{ range .Values.num }}{{ . }}{{ end }}",
		"{{ range .Values.str }}{{ . }}{{ end }}", "{{ range $i, $c := \"héllo\" }}{{ $i }}:{{ $c }} {{ end }}",
		"{{ range .Values.list }}{{ if eq . \"b\" }}{{ break }}{{ end }}{{ . }}{{ end }}", "{{ range .Values.list }}{{ if eq . \"b\" }}{{ continue }}{{ end }}{{ . }}{{ end }}",
		"{{ range $k, $v := .Values.nested }}{{ range $k2, $v2 := $v }}{{ $k }}.{{ $k2 }}{{ end }}{{ end }}",
		"{{ range .Values.mixed }}<{{ . }}>{{ end }}", "{{ range until 5 }}{{ . }}{{ end }}", "{{ range $i, $e := until 3 }}{{ $i }}{{ $e }}{{ end }}",
		"{{ range $v := .Values.map }}{{ $v }},{{ end }}", "{{ range .Values.map }}{{ . }}|{{ end }}",
		"{{ define \"x\" }}X{{ . }}{{ end }}{{ template \"x\" 1 }}", "{{ define \"x\" }}X{{ end }}{{ template \"x\" }}", "{{ template \"nope\" }}",
		"{{ block \"b\" .Values.str }}[{{ . }}]{{ end }}", "{{ define \"r\" }}{{ if gt . 0 }}{{ . }}{{ template \"r\" (sub . 1) }}{{ end }}{{ end }}{{ template \"r\" 5 }}",
		"a\n{{- if true }}\nb\n{{- end }}\nc", "  {{- \"x\" }}  ", "{{ \"x\" -}}\n\n  y", "{{- /* c */ -}}", "x{{ if false }}\n{{ end }}y",
		"{{ if true }}{{ else }}{{ end }}", "{{ range .Values.list }}{{ end }}", "line1\n{{ \"line2\" }}\n\nline4\n",
		"{{ if .Values.list }}{{ range .Values.list }}{{ . }}{{ end }}{{ end }}", "{{ with .Values.list }}{{ index . 0 }}{{ end }}",
		"{{ range $i, $e := .Values.nums }}{{ if $i }},{{ end }}{{ $e }}{{ end }}",
	)
	g.tf(c, "define_in_helper", map[string]string{
		mainTemplate:   "{{ template \"h.a\" . }}|{{ include \"h.b\" .Values.str }}",
		"_helpers.tpl": "{{- define \"h.a\" -}}A:{{ .Release.Name }}{{- end -}}\n{{- define \"h.b\" -}}B:{{ . | upper }}{{- end -}}",
	}, stdValues)
	g.tf(c, "define_override_order", map[string]string{
		mainTemplate: "{{ template \"dup\" }}",
		"_a.tpl":     "{{ define \"dup\" }}from a{{ end }}",
		"_b.tpl":     "{{ define \"dup\" }}from b{{ end }}",
	}, "")
	g.tf(c, "block_overridden", map[string]string{
		mainTemplate: "{{ block \"blk\" . }}default{{ end }}",
		"_o.tpl":     "{{ define \"blk\" }}overridden{{ end }}",
	}, "")
	g.tf(c, "other_template_rendered_too", map[string]string{
		mainTemplate: "main",
		"other.yaml": "{{ .Values.str }}",
	}, stdValues)
}

func genVariables(g *corpusGen) {
	const v = "variables"
	g.t(v,
		"{{ $x := 1 }}{{ $x }}", "{{ $x := .Values.str }}{{ $x }}-{{ $x | upper }}", "{{ $x := 1 }}{{ $x = 2 }}{{ $x }}",
		"{{ $x := 0 }}{{ range .Values.nums }}{{ $x = add $x . }}{{ end }}{{ $x }}", "{{ $x := 1 }}{{ if true }}{{ $x := 2 }}{{ $x }}{{ end }}{{ $x }}",
		"{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}", "{{ $.Values.str }}", "{{ range .Values.list }}{{ $.Values.num }}{{ end }}",
		"{{ with .Values.map }}{{ $.Release.Name }}{{ .a }}{{ end }}", "{{ $.Values.num }}", "{{ $y }}", "{{ $x = 1 }}", "{{ $x := 1 }}{{ $x.foo }}",
		"{{ $m := .Values.map }}{{ $m.c.d }}", "{{ $l := list 1 2 }}{{ $l }}", "{{ $d := dict \"a\" 1 }}{{ $_ := set $d \"b\" 2 }}{{ $d }}",
		"{{ $a, $b := 1, 2 }}", "{{ range $a, $b, $c := .Values.list }}{{ end }}", "{{ $x := \"outer\" }}{{ define \"t\" }}{{ $x }}{{ end }}",
		"{{ $i := 0 }}{{ range $i = .Values.list }}{{ end }}{{ $i }}", "{{ range $i, $e := .Values.list }}{{ end }}{{ $i }}",
		"{{ $x := .Values.missing }}{{ $x }}", "{{ $x := .Values.nul }}{{ printf \"%v\" $x }}", "{{ $x := . }}{{ $x.Values.num }}",
		"{{ $s := \"\" }}{{ range .Values.list }}{{ $s = print $s . }}{{ end }}{{ $s }}",
		"{{ $_ := 1 }}{{ $_ }}", "{{ $x := 1 }}{{ with $x := 2 }}{{ $x }}{{ end }}{{ $x }}",
	)
}

func genErrors(g *corpusGen) {
	const e = "errors"
	g.t(e,
		"{{ .Values.missing.deeper }}", "{{ .Values.nul.x }}", "{{ .Values.str.x }}", "{{ .Values.list.x }}", "{{ .Values.num.x }}",
		"{{ .Values.map.a.x }}", "{{ .Values.nested.a.b.zz.yy }}", "{{ .Release.Name.x }}", "{{ .NoSuch }}", "{{ .NoSuch.Deeper }}",
		"{{ nosuchfunc 1 }}", "{{ if }}", "{{ end }}", "{{ range }}{{ end }}", "{{ if true }}", "{{ else }}", "{{ 1 2 }}", "{{ .Values.str 1 }}",
		"{{ \"unterminated }}", "{{ ( }}", "{{ ) }}", "{{ | print }}", "{{ print | }}", "{{ 1 | 2 }}", "{{ define \"a\" }}{{ end }}{{ define \"a\" }}x{{ end }}",
		"{{ break }}", "{{ continue }}", "{{ template }}", "{{ template 1 }}", "{{ with }}{{ end }}", "{{ .Values.str | nosuch }}",
		"{{/* unterminated comment }}", "{{ 'ab' }}", "{{ 0x }}", "{{ 1e }}", "{{ $ := 1 }}", "{{ .Values.map.\"a\" }}", "{{ .Values..str }}",
		"{{ index }}", "{{ len }}", "{{ not 1 2 }}", "{{ eq }}", "{{ eq 1 }}", "{{ lt }}", "{{ html }}", "{{ printf }}", "{{ slice }}",
		"{{ upper 3 }}", "{{ upper .Values.num }}", "{{ upper .Values.list }}", "{{ upper nil }}", "{{ upper }}", "{{ upper \"a\" \"b\" }}",
		"{{ repeat \"x\" \"a\" }}", "{{ repeat .Values.num \"a\" }}", "{{ trunc \"a\" \"b\" }}", "{{ add1 }}",
		"{{ include \"missing\" . }}", "{{ template \"missing\" . }}", "{{ fail \"custom failure\" }}", "{{ required \"x is required\" .Values.x }}",
		"{{ required \"empty\" .Values.empty }}", "{{ required \"ok\" .Values.zero }}", "{{ required \"ok\" .Values.fls }}",
		"line1\nline2\n  {{ .Values.missing.deeper }}", "{{ if true }}\n\n{{ fail \"on line 3\" }}{{ end }}",
		"{{ range .Values.list }}{{ .x }}{{ end }}", "{{ index .Values.list 10 }}", "{{ index .Values.map 3 }}", "{{ index 3 1 }}",
		"{{ lt 1 \"a\" }}", "{{ lt .Values.map .Values.map }}", "{{ eq .Values.map .Values.map }}", "{{ eq .Values.list 1 }}",
		"{{ call 1 }}", "{{ and (fail \"left\") (fail \"right\") }}", "{{ or 1 (fail \"not evaluated\") }}", "{{ and 0 (fail \"not evaluated\") }}",
		"{{ mustFirst .Values.emptylist }}", "{{ mustRegexMatch \"[\" \"a\" }}", "{{ mustToDate \"2006\" \"x\" }}", "{{ mustFromJson \"{\" }}",
		"{{ div 1 0 }}", "{{ mod 1 0 }}", "{{ divf 1 0 }}", "{{ until \"a\" }}", "{{ semver \"not a version\" }}", "{{ semverCompare \">>1\" \"1.0.0\" }}",
		"{{ .Values.str | printf \"%s\" | nosuch }}", "{{ template \"x\" }}{{ define \"x\" }}{{ .Values.a }}{{ end }}",
	)
	g.tf(e, "error_in_helper_file", map[string]string{
		mainTemplate:   "ok {{ include \"bad\" . }}",
		"_helpers.tpl": "{{/* a helper */}}\n{{ define \"bad\" }}\n  {{ .Values.missing.deeper }}\n{{ end }}",
	}, stdValues)
	g.tf(e, "parse_error_in_helper", map[string]string{mainTemplate: "ok", "_helpers.tpl": "{{ define \"x\" }}{{ if }}{{ end }}"}, "")
	g.tf(e, "error_in_other_file", map[string]string{mainTemplate: "ok", "a.yaml": "{{ fail \"in a\" }}"}, "")
	g.tf(e, "nested_include_error", map[string]string{
		mainTemplate: "{{ include \"outer\" . }}",
		"_h.tpl":     "{{ define \"outer\" }}[{{ include \"inner\" . }}]{{ end }}{{ define \"inner\" }}{{ .Values.a.b }}{{ end }}",
	}, "")
	g.tf(e, "include_recursion_limit", map[string]string{
		mainTemplate: "{{ include \"loop\" . }}",
		"_h.tpl":     "{{ define \"loop\" }}{{ include \"loop\" . }}{{ end }}",
	}, "")
	g.tf(e, "template_recursion_limit", map[string]string{
		mainTemplate: "{{ template \"loop\" . }}",
		"_h.tpl":     "{{ define \"loop\" }}{{ template \"loop\" . }}{{ end }}",
	}, "")
}

// truthSubjects are typed values whose truth Go's reflect kinds decide: named and typed maps
// (`common.Values`, `map[string]string`), typed slices, non-UTF-8 strings,
// structs and pointers, nil interfaces; each is judged by every construct that asks for truth.
// `.Files` and `.Capabilities` are real objects only in a chart: their cases are the charts
// `testdata/charts/synthetic/truthiness*` of the helm-reference corpus.
var truthSubjects = []string{
	".Values", ".Values.map", ".Values.emptymap", ".Values.list", ".Values.emptylist", ".Values.str", ".Values.empty",
	".Values.zero", ".Values.num", ".Values.fls", ".Values.bool", ".Values.nul", ".Values.missing",
	".Release", ".Chart", ".Chart.Dependencies", ".Template", ".Subcharts",
	"(dict)", "(list)", "(splitn \",\" 0 \"a\")", "(split \",\" \"\")", "(splitList \",\" \"\")", "(until 0)", "(until 2)",
	"(b64dec \"/w==\")", "(semver \"1.2.3\")", "(toDate \"2006-01-02\" \"2020-01-02\")", "(fromYaml \"\")",
	"(fromYamlArray \"[]\")", "(regexFindAll \"x\" \"abc\" -1)", "(uniq (list))", "(deepCopy .Values.emptymap)",
	"(.Values.AsMap)", "(keys (dict))", "(chunk 2 (list))",
}

// truthProbe asks every truth-deciding construct about X: text/template's if/with/not/and/or,
// Sprig's empty/default/coalesce/all/any/compact, and ternary over its boolean.
const truthProbe = `if={{ if X }}T{{ else }}F{{ end }} with={{ with X }}T{{ else }}F{{ end }} not={{ not X }} ` +
	`and={{ and X "a" | typeOf }} or={{ or X "o" | typeOf }} empty={{ empty X }} default={{ default "dflt" X | typeOf }} ` +
	`coalesce={{ coalesce X "c" | typeOf }} all={{ all X }} any={{ any X 0 }} compact={{ len (compact (list X)) }} ` +
	`ternary={{ ternary "t" "f" (not (not X)) }}`

func genTruth(g *corpusGen) {
	const t = "truth"
	for _, x := range truthSubjects {
		g.addCase(t, Case{Name: slug(x), Templates: map[string]string{mainTemplate: strings.ReplaceAll(truthProbe, "X", x)}, Values: stdValues})
	}
	// An empty values file: `.Values` is an empty common.Values.
	g.tv(t, "empty_values", strings.ReplaceAll(truthProbe, "X", ".Values"), "")
	g.tv(t, "empty_values_asmap", strings.ReplaceAll(truthProbe, "X", "(.Values.AsMap)"), "")
	// Go's isTrue refuses nothing a template can hold; ternary wants a bool.
	g.t(t, `{{ ternary "t" "f" .Values.emptymap }}`, `{{ ternary "t" "f" (splitn "," 0 "a") }}`)
}
