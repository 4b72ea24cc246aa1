{{- define "svc33.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
