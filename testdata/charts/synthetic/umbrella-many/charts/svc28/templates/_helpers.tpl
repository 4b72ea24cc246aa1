{{- define "svc28.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
