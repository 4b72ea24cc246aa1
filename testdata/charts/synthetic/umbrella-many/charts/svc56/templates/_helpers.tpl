{{- define "svc56.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
