{{- /* Every construct that asks Go for the truth of dot: text/template's if, with, not, and,
or; Sprig's empty, default, coalesce, all, any, compact; ternary over a bool. */ -}}
{{- define "probe" -}}
if={{ if . }}T{{ else }}F{{ end }} with={{ with . }}T{{ else }}F{{ end }} not={{ not . }} and={{ and . "a" | typeOf }} or={{ or . "o" | typeOf }} empty={{ empty . }} default={{ default "dflt" . | typeOf }} coalesce={{ coalesce . "c" | typeOf }} all={{ all . }} any={{ any . 0 }} compact={{ len (compact (list .)) }} ternary={{ ternary "t" "f" (not (not .)) }}
{{- end -}}
