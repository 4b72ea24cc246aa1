{{- define "svc48.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
