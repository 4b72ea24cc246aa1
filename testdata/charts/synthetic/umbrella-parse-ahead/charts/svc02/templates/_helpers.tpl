{{- define "sub.name" -}}
{{ .Chart.Name }}-{{ .Values.label }}
{{- end }}
