{{- define "svc12.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
