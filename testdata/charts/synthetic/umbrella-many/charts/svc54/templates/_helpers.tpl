{{- define "svc54.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
