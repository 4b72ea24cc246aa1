{{- define "svc43.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
