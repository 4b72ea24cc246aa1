{{- define "svc27.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
