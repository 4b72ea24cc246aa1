{{- define "svc26.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
