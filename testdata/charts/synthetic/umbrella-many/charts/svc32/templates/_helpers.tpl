{{- define "svc32.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
