{{- define "svc14.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
