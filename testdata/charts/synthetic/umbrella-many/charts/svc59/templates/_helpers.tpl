{{- define "svc59.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
