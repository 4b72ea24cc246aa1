{{- define "svc15.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
