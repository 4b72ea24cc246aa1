{{- define "svc67.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
