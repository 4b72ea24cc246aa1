{{- define "svc52.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
