{{- define "svc02.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
