{{- define "svc40.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
