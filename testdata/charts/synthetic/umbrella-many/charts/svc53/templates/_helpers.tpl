{{- define "svc53.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
