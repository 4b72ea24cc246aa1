{{- define "svc55.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
