{{- define "svc06.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
