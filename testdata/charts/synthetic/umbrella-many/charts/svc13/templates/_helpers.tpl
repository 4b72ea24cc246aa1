{{- define "svc13.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
