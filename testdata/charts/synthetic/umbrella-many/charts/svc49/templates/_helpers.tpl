{{- define "svc49.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
