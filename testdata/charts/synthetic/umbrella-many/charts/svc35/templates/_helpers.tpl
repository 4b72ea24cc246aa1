{{- define "svc35.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
