{{- define "svc00.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
