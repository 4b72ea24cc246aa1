{{- define "svc64.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
