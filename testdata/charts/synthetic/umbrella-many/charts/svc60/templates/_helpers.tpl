{{- define "svc60.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
