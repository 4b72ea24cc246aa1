{{- define "svc41.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
