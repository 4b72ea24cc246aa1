{{- define "svc29.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
