{{- define "svc50.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
