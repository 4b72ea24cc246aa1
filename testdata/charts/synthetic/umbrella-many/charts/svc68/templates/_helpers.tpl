{{- define "svc68.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
