{{- define "svc39.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
