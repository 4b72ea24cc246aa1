{{- define "svc62.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
