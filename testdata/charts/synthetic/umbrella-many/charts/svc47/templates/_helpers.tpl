{{- define "svc47.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
