{{- define "svc22.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
