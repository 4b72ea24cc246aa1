{{- define "svc65.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
