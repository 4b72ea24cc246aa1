{{- define "svc20.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
