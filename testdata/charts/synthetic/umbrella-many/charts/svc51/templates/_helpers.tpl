{{- define "svc51.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
