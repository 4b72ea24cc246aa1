{{- define "svc17.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
