{{- define "svc42.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
