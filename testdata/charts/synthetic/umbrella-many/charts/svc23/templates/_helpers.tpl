{{- define "svc23.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
