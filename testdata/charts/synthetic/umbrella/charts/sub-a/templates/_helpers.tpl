{{- define "common.label" -}}sub-a-loses{{- end -}}
