{{- define "svc69.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
