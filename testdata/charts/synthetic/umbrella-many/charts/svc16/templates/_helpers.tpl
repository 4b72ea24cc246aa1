{{- define "svc16.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
