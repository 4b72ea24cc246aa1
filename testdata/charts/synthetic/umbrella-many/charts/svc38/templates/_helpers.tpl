{{- define "svc38.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
